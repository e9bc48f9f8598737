// SPDX-License-Identifier: BSD-3-Clause
/*
 * switch_input_arbiter_formal: the switch's input arbiter (rtl/switch/switch_input_arbiter.v)
 * merges its 8 input streams into one without losing, duplicating, reordering, cutting or
 * interleaving a frame, round robin, as its header says.
 *
 * Instance: META_WIDTH = 2 (the metadata is only carried; 2 bits tell the slices apart).
 *
 * Assumed:
 *   - reset in the first clock only;
 *   - the AXI4-Stream rules on each input: a word offered (tvalid) and not accepted (tready)
 *     is offered again in the next clock, with the same tdata, tkeep, tlast and meta. Between
 *     words, and after a word is accepted, tvalid may drop (mid-frame too) and the data change
 *     freely; m_axis_tready is free in every clock.
 *
 * Proved by k-induction, each a labelled assertion:
 *   The output, word by word (nothing lost, duplicated, reordered or altered)
 *     - ready_one_at_a_time: s_axis_tready has at most one bit set, so at most one input word
 *       is accepted per clock;
 *     - no_ready_while_stalled: while the output is stalled (m_axis_tvalid and not
 *       m_axis_tready) no input is ready, so no accepted word can overwrite one not yet taken;
 *     - ready_when_free: when the output is free, exactly one input is ready (the granted one,
 *       or the one that would be granted; the header's rule);
 *     - output_is_accepted_word: the output is a shadow register of the wrapper's own, loaded
 *       with the word accepted from input i (tdata, tkeep, tlast, meta, and tuser = i) in the
 *       clock of its handshake and emptied when taken without a new word: m_axis_tvalid and,
 *       when valid, every output field equal the shadow's. So each accepted word is on the
 *       output in the next clock, stays there until taken (with no_ready_while_stalled), and
 *       is taken exactly once; no word appears that was not accepted. The output handshakes
 *       are the input handshakes, in order, one clock later;
 *     - output_stable: a word shown and not taken is shown again unchanged (AXI4-Stream on the
 *       output; also implied by the above, stated on its own).
 *   Whole frames
 *     - grant_held_in_frame: between the acceptance of a frame's first word and of its tlast,
 *       only that input is ready (when the output is free, whether or not it has tvalid: a
 *       granted input that drops tvalid mid-frame keeps the grant);
 *     - output_frame_not_interleaved: on the output, every word between a frame's first word
 *       and its tlast carries the tuser of the first word (frames are never interleaved or cut:
 *       with output_is_accepted_word, each output frame is one input frame, whole);
 *   Round robin
 *     - round_robin: between frames, with the output free and some input with tvalid, the ready
 *       input is the first with tvalid in the order i+1, ..., i+8 after the input i of the last
 *       accepted word (input 7 after reset, so input 0 has the first turn); no idle clock between
 *       frames when another input waits;
 *     - wait_bounded: an input that offers a word waits for at most 7 frames of other inputs to
 *       start before its word is accepted (the fairness the round robin gives; counted per input).
 *   Invariants for the induction (inv_*): the RTL's grant and in-frame registers (links) equal
 *   the wrapper's last accepted input and in-frame flag; the output side's frame state follows
 *   from the input side's; each waiting input's count of frames passed plus the inputs between
 *   the last accepted one and it in round-robin order is at most 7.
 */

`default_nettype none

module switch_input_arbiter_formal (
    input  wire            clk,
    input  wire            rst,
    input  wire [8*64-1:0] s_axis_tdata,
    input  wire [8*8-1:0]  s_axis_tkeep,
    input  wire [7:0]      s_axis_tvalid,
    input  wire [7:0]      s_axis_tlast,
    input  wire [8*2-1:0]  s_axis_meta,
    input  wire            m_axis_tready
);

localparam META_WIDTH = 2;

wire [7:0]  s_axis_tready;
wire [63:0] m_axis_tdata;
wire [7:0]  m_axis_tkeep;
wire        m_axis_tvalid;
wire        m_axis_tlast;
wire [2:0]  m_axis_tuser;
wire [META_WIDTH-1:0] m_axis_meta;

switch_input_arbiter #(
    .META_WIDTH(META_WIDTH)
) dut (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_meta(s_axis_meta),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .m_axis_meta(m_axis_meta)
);

// Internal state of the RTL (proof.toml links; used only as operands of the invariants)
wire [2:0] f_grant_reg;     // dut.grant_reg
wire       f_in_frame_reg;  // dut.in_frame_reg

// The reset the proof starts from, and rst low after it (common/formal_reset.sv)
wire f_past_valid;
formal_reset #(.ONCE(1)) initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// The inputs: AXI4-Stream, a word offered and not accepted is offered again unchanged

wire [7:0] f_hs = s_axis_tvalid & s_axis_tready;
// f_pend[i]: input i offered a word and it was not accepted, in the clock before
reg  [7:0] f_pend = 8'd0;
reg  [8*64-1:0] f_prev_tdata = 0;
reg  [8*8-1:0]  f_prev_tkeep = 0;
reg  [7:0]      f_prev_tlast = 0;
reg  [8*META_WIDTH-1:0] f_prev_meta = 0;

always @(posedge clk) begin
    f_prev_tdata <= s_axis_tdata;
    f_prev_tkeep <= s_axis_tkeep;
    f_prev_tlast <= s_axis_tlast;
    f_prev_meta <= s_axis_meta;
end

integer a;
always @(*) begin
    for (a = 0; a < 8; a = a + 1) begin
        if (f_pend[a]) begin
            assume (s_axis_tvalid[a]);
            assume (s_axis_tdata[64*a +: 64] == f_prev_tdata[64*a +: 64]);
            assume (s_axis_tkeep[8*a +: 8] == f_prev_tkeep[8*a +: 8]);
            assume (s_axis_tlast[a] == f_prev_tlast[a]);
            assume (s_axis_meta[META_WIDTH*a +: META_WIDTH] == f_prev_meta[META_WIDTH*a +: META_WIDTH]);
        end
    end
end

// ---------------------------------------------------------------------------------------------
// The model: the word accepted, one clock later; the frame in progress; the round robin

wire f_out_free = !m_axis_tvalid || m_axis_tready;
wire f_out_hs = m_axis_tvalid && m_axis_tready;

// Shadow of the output register: the last word accepted, until taken
reg        f_valid = 1'b0;
reg [63:0] f_tdata = 64'd0;
reg [7:0]  f_tkeep = 8'd0;
reg        f_tlast = 1'b0;
reg [2:0]  f_tuser = 3'd0;
reg [META_WIDTH-1:0] f_meta = {META_WIDTH{1'b0}};

// Input side: the input of the last word accepted (7 after reset: input 0 goes first), and
// whether its frame is in progress (accepted words, tlast not yet)
reg [2:0]  f_last = 3'd7;
reg        f_in_frame = 1'b0;
// Output side: a frame in progress on m_axis (words taken, tlast not yet), and its tuser
reg        f_out_frame = 1'b0;
reg [2:0]  f_out_user = 3'd0;

// First input with tvalid in the order last+1, ..., last+8 (written independently of the RTL)
function [2:0] rr_next;
    input [2:0] last;
    input [7:0] valid;
    integer k;
    reg found;
    begin
        rr_next = last;
        found = 1'b0;
        for (k = 1; k <= 8; k = k + 1) begin
            if (!found && valid[(last + k) % 8]) begin
                rr_next = (last + k) % 8;
                found = 1'b1;
            end
        end
    end
endfunction

// The input accepted in this clock (when f_hs != 0)
reg [2:0] f_hs_input;
integer b;
always @(*) begin
    f_hs_input = 3'd0;
    for (b = 0; b < 8; b = b + 1) begin
        if (f_hs[b]) f_hs_input = b;
    end
end

wire f_any_hs = f_hs != 8'd0;
// A frame's first word accepted in this clock
wire f_frame_start = f_any_hs && !f_in_frame;

// Fairness: f_passed[i], frames of other inputs started since input i waits (f_pend[i])
reg [31:0] f_passed = 32'd0;   // 4 bits per input
integer c;

always @(posedge clk) begin
    if (f_any_hs) begin
        f_valid <= 1'b1;
        f_tdata <= s_axis_tdata[64*f_hs_input +: 64];
        f_tkeep <= s_axis_tkeep[8*f_hs_input +: 8];
        f_tlast <= s_axis_tlast[f_hs_input];
        f_tuser <= f_hs_input;
        f_meta <= s_axis_meta[META_WIDTH*f_hs_input +: META_WIDTH];
        f_last <= f_hs_input;
        f_in_frame <= !s_axis_tlast[f_hs_input];
    end else if (m_axis_tready) begin
        f_valid <= 1'b0;
    end
    if (f_out_hs) begin
        f_out_frame <= !m_axis_tlast;
        f_out_user <= m_axis_tuser;
    end
    f_pend <= s_axis_tvalid & ~s_axis_tready;
    for (c = 0; c < 8; c = c + 1) begin
        f_passed[4*c +: 4] <= (s_axis_tvalid[c] && !f_hs[c])
            ? (f_pend[c] ? f_passed[4*c +: 4] : 4'd0) + {3'd0, f_frame_start}
            : 4'd0;
    end
    if (rst) begin
        f_valid <= 1'b0;
        f_last <= 3'd7;
        f_in_frame <= 1'b0;
        f_out_frame <= 1'b0;
        f_pend <= 8'd0;
        f_passed <= 32'd0;
    end
end

// Inputs strictly between `last` and `i` in round-robin order (7 when i == last)
function [3:0] rr_between;
    input [2:0] last;
    input [2:0] i;
    begin
        rr_between = {1'b0, i - last - 3'd1};
    end
endfunction

// ---------------------------------------------------------------------------------------------
// Properties

always @(*) begin
    if (f_past_valid && !rst) begin
        // The output, word by word
        ready_one_at_a_time: assert ((s_axis_tready & (s_axis_tready - 8'd1)) == 8'd0);
        if (!f_out_free)
            no_ready_while_stalled: assert (s_axis_tready == 8'd0);
        if (f_out_free)
            ready_when_free: assert (s_axis_tready != 8'd0);
        output_is_accepted_word: assert (m_axis_tvalid == f_valid
                                         && (!f_valid || (m_axis_tdata == f_tdata
                                                          && m_axis_tkeep == f_tkeep
                                                          && m_axis_tlast == f_tlast
                                                          && m_axis_tuser == f_tuser
                                                          && m_axis_meta == f_meta)));

        // Whole frames
        if (f_in_frame)
            grant_held_in_frame: assert (s_axis_tready == (f_out_free ? 8'd1 << f_last : 8'd0));
        if (m_axis_tvalid && f_out_frame)
            output_frame_not_interleaved: assert (m_axis_tuser == f_out_user);

        // Round robin
        if (!f_in_frame && f_out_free && s_axis_tvalid != 8'd0)
            round_robin: assert (s_axis_tready == 8'd1 << rr_next(f_last, s_axis_tvalid));
        wait_bounded: assert (f_passed[3:0] <= 4'd7 && f_passed[7:4] <= 4'd7
                              && f_passed[11:8] <= 4'd7 && f_passed[15:12] <= 4'd7
                              && f_passed[19:16] <= 4'd7 && f_passed[23:20] <= 4'd7
                              && f_passed[27:24] <= 4'd7 && f_passed[31:28] <= 4'd7);

        // Invariants for the induction
        inv_rtl_state: assert (f_grant_reg == f_last && f_in_frame_reg == f_in_frame);
        // the output side's frame: with a word shown, the input side is past that word; with
        // none, both sides are at the same point of the same frame
        if (m_axis_tvalid)
            inv_out_frame: assert (f_tuser == f_last && f_in_frame == !f_tlast
                                   && (!f_out_frame || f_out_user == f_last));
        else
            inv_out_frame_idle: assert (f_out_frame == f_in_frame
                                        && (!f_out_frame || f_out_user == f_last));
    end
end

// Fairness invariant, per input (one assertion over all 8: Yosys 0.23 names a labelled
// assertion in a generate loop the same in every iteration)
reg [7:0] f_fair_ok;
integer d;
always @(*) begin
    for (d = 0; d < 8; d = d + 1) begin
        f_fair_ok[d] = f_pend[d] ? f_passed[4*d +: 4] + rr_between(f_last, d) <= 4'd7
                                 : f_passed[4*d +: 4] == 4'd0;
    end
end

always @(*) begin
    if (f_past_valid && !rst)
        inv_wait: assert (f_fair_ok == 8'hff);
end

always @(posedge clk) begin
    if (f_past_valid && !$past(rst)) begin
        if ($past(m_axis_tvalid && !m_axis_tready))
            output_stable: assert (m_axis_tvalid && m_axis_tdata == $past(m_axis_tdata)
                                   && m_axis_tkeep == $past(m_axis_tkeep)
                                   && m_axis_tlast == $past(m_axis_tlast)
                                   && m_axis_tuser == $past(m_axis_tuser)
                                   && m_axis_meta == $past(m_axis_meta));
    end
end

// ---------------------------------------------------------------------------------------------
// Covers: the behaviour the properties speak of is reachable from reset

// the clock before: a tlast accepted, and from which input
reg       f_prev_last_hs = 1'b0;
reg [2:0] f_prev_input = 3'd0;
// the output went idle inside a frame (its input dropped tvalid mid-frame)
reg       f_idle_in_frame = 1'b0;
// the output was stalled in the clock before; input 7 has been served
reg       f_prev_stall = 1'b0;
reg       f_served_7 = 1'b0;
always @(posedge clk) begin
    f_prev_stall <= m_axis_tvalid && !m_axis_tready;
    if (f_hs[7]) f_served_7 <= 1'b1;
    f_prev_last_hs <= f_any_hs && s_axis_tlast[f_hs_input];
    f_prev_input <= f_hs_input;
    if (f_out_frame && !m_axis_tvalid && f_in_frame) f_idle_in_frame <= 1'b1;
    if (f_out_hs && m_axis_tlast) f_idle_in_frame <= 1'b0;
    if (rst) begin
        f_prev_last_hs <= 1'b0;
        f_idle_in_frame <= 1'b0;
        f_prev_stall <= 1'b0;
        f_served_7 <= 1'b0;
    end
end

always @(*) begin
    if (f_past_valid && !rst) begin
        // two frames from different inputs back to back: a tlast accepted in the clock before,
        // another input's first word now, both multi-word frames
        cover_back_to_back: cover (f_prev_last_hs && f_any_hs && f_hs_input != f_prev_input
                                   && f_out_frame && !s_axis_tlast[f_hs_input]);
        // a stalled output word taken, while another input waits
        cover_stall_released: cover (f_pend != 8'd0 && !f_pend[f_last] && m_axis_tvalid
                                     && m_axis_tready && f_out_frame && f_prev_stall);
        // a frame's input dropped tvalid mid-frame, the output went idle, and it resumed
        cover_mid_frame_drop_resumed: cover (f_idle_in_frame && f_out_hs && m_axis_tlast
                                             && f_out_frame);
        // the round robin is not a fixed priority: a higher input goes before a lower one
        // waiting, and the order wraps from 7 to 0
        cover_round_robin_not_lowest: cover (f_frame_start && (f_pend & ((8'd1 << f_hs_input) - 8'd1)) != 8'd0);
        cover_wrap_to_0: cover (f_frame_start && f_hs_input == 3'd0 && f_last == 3'd7
                                && f_served_7 && s_axis_tvalid[1]);
        // an input waits while other frames pass it
        cover_waited_two_frames: cover (f_hs[3] && f_passed[15:12] == 4'd2);
    end
end

endmodule

`default_nettype wire
