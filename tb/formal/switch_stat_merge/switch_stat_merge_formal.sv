// SPDX-License-Identifier: BSD-3-Clause
/*
 * switch_stat_merge_formal: the stat merge (rtl/switch/switch_stat_merge.v) joins its two
 * streams of frames into one without losing, duplicating, reordering, cutting or interleaving a
 * frame, taking turns when both wait, as its header says.
 *
 * Instance: the block as it is (64-bit words, 8-bit tkeep and tuser; no parameters).
 *
 * Assumed:
 *   - reset in the first clock only;
 *   - the AXI4-Stream rules on each input: a word offered (tvalid) and not accepted (tready)
 *     is offered again in the next clock, with the same tdata, tkeep, tlast and tuser. Between
 *     words, and after a word is accepted, tvalid may drop (mid-frame too) and the data change
 *     freely; m_tready is free in every clock.
 *
 * The model (written from the header, not from the RTL's registers): the frame in progress
 * (a word accepted without tlast, until its tlast) and its input; whether the output was
 * stalled in the clock before, and from which input; whose turn it is (the input other than the
 * one whose frame ended last, input a after reset). The input the block must pass, f_pick_b:
 * the frame's input inside a frame, the stalled word's input after a stall, otherwise the one
 * input with tvalid, or the one whose turn it is when both have it.
 *
 * Proved by k-induction, each a labelled assertion:
 *   The output, word by word (nothing lost, duplicated, reordered or altered)
 *     - ready_as_arbitrated: s_a_tready = m_tready and not f_pick_b, s_b_tready = m_tready and
 *       f_pick_b: exactly one input ready when the output is, never both, none while stalled;
 *     - output_is_input_word: the output (m_tvalid, and when valid tdata, tkeep, tlast, tuser)
 *       is the picked input's, so each output handshake is exactly one input handshake in the
 *       same clock, of the same word (one_handshake states it: an output word taken iff one
 *       input word accepted, never two): each accepted word is sent once, unchanged, in order,
 *       and no word appears that was not accepted;
 *     - output_stable: a word shown and not taken is shown again unchanged (AXI4-Stream on the
 *       output, from the inputs' rule and the source held after a stall);
 *   Whole frames
 *     - source_held_in_frame: between the acceptance of a frame's first word and of its tlast,
 *       the other input is never ready, and the frame's input is ready whenever m_tready is
 *       (whether or not it has tvalid: an input that drops tvalid mid-frame keeps the output);
 *     - frames_not_interleaved: inside a frame no word of the other input is accepted (so, with
 *       output_is_input_word, each output frame is one input frame, whole, first word to tlast);
 *   Turns
 *     - no_idle_between_frames: between frames (not after a stall) an input with tvalid is on
 *       the output (m_tvalid);
 *     - turns_when_both_wait: between frames, not after a stall, with both tvalid, the input
 *       whose turn it is is picked (the other of the one whose frame ended last);
 *     - wait_bounded: an input that offers a word sees at most one frame of the other input
 *       start before its word is accepted (counted per input).
 *   Invariants for the induction (inv_*): the RTL's registers (links) equal the model's (the
 *   source only where it is used: in a frame or after a stall); each waiting input's count of
 *   frames passed plus whether the other may still start a frame before it is at most 1.
 */

`default_nettype none

module switch_stat_merge_formal (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] s_a_tdata,
    input  wire [7:0]  s_a_tkeep,
    input  wire        s_a_tvalid,
    input  wire        s_a_tlast,
    input  wire [7:0]  s_a_tuser,
    input  wire [63:0] s_b_tdata,
    input  wire [7:0]  s_b_tkeep,
    input  wire        s_b_tvalid,
    input  wire        s_b_tlast,
    input  wire [7:0]  s_b_tuser,
    input  wire        m_tready
);

wire        s_a_tready;
wire        s_b_tready;
wire [63:0] m_tdata;
wire [7:0]  m_tkeep;
wire        m_tvalid;
wire        m_tlast;
wire [7:0]  m_tuser;

switch_stat_merge dut (
    .clk(clk),
    .rst(rst),
    .s_a_tdata(s_a_tdata),
    .s_a_tkeep(s_a_tkeep),
    .s_a_tvalid(s_a_tvalid),
    .s_a_tready(s_a_tready),
    .s_a_tlast(s_a_tlast),
    .s_a_tuser(s_a_tuser),
    .s_b_tdata(s_b_tdata),
    .s_b_tkeep(s_b_tkeep),
    .s_b_tvalid(s_b_tvalid),
    .s_b_tready(s_b_tready),
    .s_b_tlast(s_b_tlast),
    .s_b_tuser(s_b_tuser),
    .m_tdata(m_tdata),
    .m_tkeep(m_tkeep),
    .m_tvalid(m_tvalid),
    .m_tready(m_tready),
    .m_tlast(m_tlast),
    .m_tuser(m_tuser)
);

// Internal state of the RTL (proof.toml links; used only as operands of the invariants)
wire f_in_frame_reg;  // dut.in_frame
wire f_offered_reg;   // dut.offered
wire f_from_b_reg;    // dut.from_b
wire f_b_next_reg;    // dut.b_next

// The reset the proof starts from, and rst low after it (common/formal_reset.sv)
wire f_past_valid;
formal_reset #(.ONCE(1)) initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// The inputs: AXI4-Stream, a word offered and not accepted is offered again unchanged

wire f_a_hs = s_a_tvalid && s_a_tready;
wire f_b_hs = s_b_tvalid && s_b_tready;
wire f_out_hs = m_tvalid && m_tready;

// f_pend_x: input x offered a word and it was not accepted, in the clock before
reg        f_pend_a = 1'b0;
reg        f_pend_b = 1'b0;
reg [63:0] f_prev_a_tdata = 64'd0;
reg [7:0]  f_prev_a_tkeep = 8'd0;
reg        f_prev_a_tlast = 1'b0;
reg [7:0]  f_prev_a_tuser = 8'd0;
reg [63:0] f_prev_b_tdata = 64'd0;
reg [7:0]  f_prev_b_tkeep = 8'd0;
reg        f_prev_b_tlast = 1'b0;
reg [7:0]  f_prev_b_tuser = 8'd0;

always @(posedge clk) begin
    f_prev_a_tdata <= s_a_tdata;
    f_prev_a_tkeep <= s_a_tkeep;
    f_prev_a_tlast <= s_a_tlast;
    f_prev_a_tuser <= s_a_tuser;
    f_prev_b_tdata <= s_b_tdata;
    f_prev_b_tkeep <= s_b_tkeep;
    f_prev_b_tlast <= s_b_tlast;
    f_prev_b_tuser <= s_b_tuser;
end

always @(*) begin
    if (f_pend_a) begin
        assume (s_a_tvalid);
        assume (s_a_tdata == f_prev_a_tdata && s_a_tkeep == f_prev_a_tkeep
                && s_a_tlast == f_prev_a_tlast && s_a_tuser == f_prev_a_tuser);
    end
    if (f_pend_b) begin
        assume (s_b_tvalid);
        assume (s_b_tdata == f_prev_b_tdata && s_b_tkeep == f_prev_b_tkeep
                && s_b_tlast == f_prev_b_tlast && s_b_tuser == f_prev_b_tuser);
    end
end

// ---------------------------------------------------------------------------------------------
// The model: the frame in progress, the stalled word, the turn

reg f_frame = 1'b0;      // a frame's words accepted, its tlast not yet
reg f_stalled = 1'b0;    // a word was shown and not taken in the clock before
reg f_src_b = 1'b0;      // the input of that frame, or of that stalled word
reg f_turn_b = 1'b0;     // input b goes first when both wait between frames (a after reset)

// the input the block must pass (header: whole frames, taking turns when both wait)
wire f_boundary = !f_frame && !f_stalled;
wire f_pick_b = f_boundary ? (s_b_tvalid && (!s_a_tvalid || f_turn_b)) : f_src_b;

// A frame's first word accepted in this clock, from either input
wire f_frame_start = (f_a_hs || f_b_hs) && !f_frame;

// Fairness: f_passed_x, frames of the other input started since input x waits (f_pend_x)
reg [1:0] f_passed_a = 2'd0;
reg [1:0] f_passed_b = 2'd0;

always @(posedge clk) begin
    f_stalled <= m_tvalid && !m_tready;
    if (m_tvalid && !m_tready)
        f_src_b <= f_pick_b;
    if (f_a_hs || f_b_hs) begin
        f_src_b <= f_b_hs;
        f_frame <= !(f_b_hs ? s_b_tlast : s_a_tlast);
        if (f_b_hs ? s_b_tlast : s_a_tlast)
            f_turn_b <= !f_b_hs;
    end
    f_pend_a <= s_a_tvalid && !s_a_tready;
    f_pend_b <= s_b_tvalid && !s_b_tready;
    f_passed_a <= (s_a_tvalid && !f_a_hs)
        ? (f_pend_a ? f_passed_a : 2'd0) + {1'b0, f_frame_start && f_b_hs}
        : 2'd0;
    f_passed_b <= (s_b_tvalid && !f_b_hs)
        ? (f_pend_b ? f_passed_b : 2'd0) + {1'b0, f_frame_start && f_a_hs}
        : 2'd0;
    if (rst) begin
        f_frame <= 1'b0;
        f_stalled <= 1'b0;
        f_src_b <= 1'b0;
        f_turn_b <= 1'b0;
        f_pend_a <= 1'b0;
        f_pend_b <= 1'b0;
        f_passed_a <= 2'd0;
        f_passed_b <= 2'd0;
    end
end

// whether the other input may still start a frame before the waiting one: a first word of it
// stalled on the output, or its turn between frames
wire f_b_may_start = (f_stalled && !f_frame && f_src_b) || (f_boundary && f_turn_b);
wire f_a_may_start = (f_stalled && !f_frame && !f_src_b) || (f_boundary && !f_turn_b);

// ---------------------------------------------------------------------------------------------
// Properties

always @(*) begin
    if (f_past_valid && !rst) begin
        // The output, word by word
        ready_as_arbitrated: assert (s_a_tready == (m_tready && !f_pick_b)
                                     && s_b_tready == (m_tready && f_pick_b));
        output_is_input_word: assert (f_pick_b
            ? (m_tvalid == s_b_tvalid && (!m_tvalid || (m_tdata == s_b_tdata
                   && m_tkeep == s_b_tkeep && m_tlast == s_b_tlast && m_tuser == s_b_tuser)))
            : (m_tvalid == s_a_tvalid && (!m_tvalid || (m_tdata == s_a_tdata
                   && m_tkeep == s_a_tkeep && m_tlast == s_a_tlast && m_tuser == s_a_tuser))));
        one_handshake: assert (f_out_hs == (f_a_hs || f_b_hs) && !(f_a_hs && f_b_hs));

        // Whole frames
        if (f_frame)
            source_held_in_frame: assert (s_a_tready == (m_tready && !f_src_b)
                                          && s_b_tready == (m_tready && f_src_b));
        if (f_frame)
            frames_not_interleaved: assert (f_src_b ? !f_a_hs : !f_b_hs);

        // Turns
        if (f_boundary && (s_a_tvalid || s_b_tvalid))
            no_idle_between_frames: assert (m_tvalid);
        if (f_boundary && s_a_tvalid && s_b_tvalid)
            turns_when_both_wait: assert (s_a_tready == (m_tready && !f_turn_b)
                                          && s_b_tready == (m_tready && f_turn_b));
        wait_bounded: assert (f_passed_a <= 2'd1 && f_passed_b <= 2'd1);

        // Invariants for the induction
        inv_rtl_state: assert (f_in_frame_reg == f_frame && f_offered_reg == f_stalled
                               && f_b_next_reg == f_turn_b
                               && (f_boundary || f_from_b_reg == f_src_b));
        inv_wait: assert ((f_pend_a ? f_passed_a + {1'b0, f_b_may_start} <= 2'd1
                                    : f_passed_a == 2'd0)
                          && (f_pend_b ? f_passed_b + {1'b0, f_a_may_start} <= 2'd1
                                       : f_passed_b == 2'd0));
    end
end

always @(posedge clk) begin
    if (f_past_valid && !$past(rst)) begin
        if ($past(m_tvalid && !m_tready))
            output_stable: assert (m_tvalid && m_tdata == $past(m_tdata)
                                   && m_tkeep == $past(m_tkeep)
                                   && m_tlast == $past(m_tlast)
                                   && m_tuser == $past(m_tuser));
    end
end

// ---------------------------------------------------------------------------------------------
// Covers: the behaviour the properties speak of is reachable from reset

reg f_prev_last_hs = 1'b0;   // a tlast accepted in the clock before
reg f_prev_hs_b = 1'b0;      // and from which input
reg f_prev_first_b = 1'b0;   // a multi-word frame of b ended in the clock before
reg f_prev_stall = 1'b0;     // the output was stalled in the clock before
reg f_idle_in_frame = 1'b0;  // the frame's input dropped tvalid mid-frame (output idle)
always @(posedge clk) begin
    f_prev_stall <= m_tvalid && !m_tready;
    f_prev_last_hs <= f_out_hs && m_tlast;
    f_prev_hs_b <= f_b_hs;
    f_prev_first_b <= f_b_hs && m_tlast && f_frame;
    if (f_frame && !m_tvalid) f_idle_in_frame <= 1'b1;
    if (f_out_hs && m_tlast) f_idle_in_frame <= 1'b0;
    if (rst) begin
        f_prev_last_hs <= 1'b0;
        f_prev_hs_b <= 1'b0;
        f_prev_first_b <= 1'b0;
        f_prev_stall <= 1'b0;
        f_idle_in_frame <= 1'b0;
    end
end

always @(*) begin
    if (f_past_valid && !rst) begin
        // a multi-word frame of b ends, and a multi-word frame of a starts in the next clock
        cover_back_to_back: cover (f_prev_first_b && f_a_hs && !s_a_tlast && !f_frame);
        // a stalled word taken inside a frame, while the other input waits
        cover_stall_released: cover (f_prev_stall && f_out_hs && f_frame
                                     && (f_src_b ? f_pend_a : f_pend_b));
        // a frame's input dropped tvalid mid-frame while the other waited, and it resumed
        cover_mid_frame_drop_resumed: cover (f_idle_in_frame && f_out_hs && m_tlast
                                             && f_frame && (f_src_b ? f_pend_a : f_pend_b));
        // both wait between frames and b goes first (its turn), a waiting through b's frame
        cover_turn_b: cover (f_boundary && s_a_tvalid && s_b_tvalid && f_b_hs);
        cover_waited_one_frame: cover (f_a_hs && f_passed_a == 2'd1);
    end
end

endmodule

`default_nettype wire
