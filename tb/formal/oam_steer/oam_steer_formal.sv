// SPDX-License-Identifier: BSD-3-Clause
/*
 * oam_steer_formal: the link-delay engines' classifier (rtl/oam/oam_steer.v) holds each frame in
 * its data FIFO until the frame's decision and then passes it on whole, in order, once, with
 * only the documented rewrite of a responder's answer; neither FIFO overflows.
 *
 * Instance: the block as it is (no parameters: an 8-word data FIFO, an 8-entry decision FIFO,
 * 64-bit words, 11-bit tuser, 63-bit input meta). The induction starts from any state meeting
 * the invariants, so every pointer value and every fill of both FIFOs is covered.
 *
 * Assumed:
 *   - reset in the first clock only;
 *   - config_port_mac held while the output is stalled (it is a register the host writes; the
 *     rewrite reads it as the word leaves, so a write during a stall would change the word
 *     shown). Everything else is free in every clock: the input stream (no hold rule is
 *     needed: the block samples a word at its handshake), tuser and meta on every word, the
 *     output's tready, the rest of the configuration;
 *   - after the BMC's clocks, that the RTL's memories return what was written (below).
 *
 * The model: the words accepted and not yet sent (f_count); a shadow of the data FIFO, f_ram,
 * written with the words accepted at the RTL's write pointer (link); the incoming frame's word
 * index (saturating at 7) and the outgoing frame's (and its bytes sent). Decisions are left to
 * the RTL: the classification (which frames are answered, passed up, stamped, with what
 * offsets) is not checked here, and the decision FIFO's contents are not shadowed (a shadow of
 * its 93 bits x 8 entries made the induction time out at 10 minutes): the properties that read
 * the head decision (rewrite_bytes, the exemption of watched_word, decision_constant_in_frame)
 * hold for whatever decision the decision FIFO returns at its head.
 *
 * How the data FIFO is seen: Yosys 0.23 cannot reference dut.fifo_data, so the wrapper keeps
 * the shadow above, and mem_reads_what_was_written says that the RTL's head word (out_data,
 * tkeep, tlast) is the shadow's entry at the RTL's read pointer whenever the FIFO holds a word.
 * It is an assertion in the first F_DEPTH clocks after the initial state, so in every clock of
 * the BMC from reset, and an assumption afterwards, the induction's last step (where the RTL's
 * memory contents are free and the shadow stands for them), as in switch_queue_formal.sv. This
 * is sound for any RTL whose FIFO is a memory: choosing the shadow's free initial contents
 * equal to the RTL's makes the assumption hold in every run. F_DEPTH is the run's clocks
 * (FORMAL_DEPTH: proof.toml's bmc_depth in the BMC, its depth in the induction).
 *
 * Proved by k-induction, each a labelled assertion:
 *   FIFOs
 *     - data_fifo_no_overflow: at most 8 words held (f_count = words accepted - words sent, the
 *       RTL's pointers' difference), and a word accepted into a full FIFO only in the clock its
 *       head word leaves (the slot written is the one freed);
 *     - decision_fifo_no_overflow: at most 8 decisions held, and a decision written into a
 *       full decision FIFO only in the clock the head frame's last word leaves;
 *     - decision_fifo_accounting: decisions held = frames whose last word is in the data FIFO
 *       + 1 while the incoming frame is decided but not whole;
 *     - ready_rule: s_axis_tready = FIFO not full, or its head word leaving in this clock;
 *     - no_deadlock: whenever the output shows nothing, the input is ready (a full FIFO
 *       always holds a decided frame at its head);
 *     - always_ready_never_stalls: while m_axis_tready has been 1 in every clock since reset,
 *       s_axis_tready is 1 and at most 7 words are held (the header's steady state);
 *   The stream
 *     - output_only_decided: a word is shown only when its frame's decision is made;
 *     - watched_word: the words come out in the order they came in, each once, with its tkeep
 *       and tlast, and its data unchanged except in words 0..2 of a frame whose head decision
 *       has a rewrite (a responder's answer, below; every word from the 4th on is unchanged).
 *       A free choice (f_pick) watches a word as it is accepted; the words ahead of it are
 *       counted down by the output handshakes, and when none is left the word shown must be the
 *       watched one. As any word may be watched, the output stream is exactly the input
 *       stream: nothing lost, duplicated, reordered, cut (tlast where it was) or added. Each
 *       frame leaves once (its two copies for an ISL discovery packet with isl_group are made
 *       by the output queues from its 2-bit mask, not here);
 *     - rewrite_bytes: in words 0..2 of a frame whose head decision has a rewrite: a headroom
 *       response keeps bytes 0..5, gets port_mac (of the port the frame leaves by, tuser[9:8],
 *       big-endian) in bytes 6..11 and type 2 in bits 1:0 of byte 15, the rest unchanged; a DMR
 *       gets port_mac in bytes 6..11, may change bytes 0..5 (the DMM's source MAC: the value is
 *       not proved), and byte 15 (untagged) or 19 (tagged) is unchanged or 46; nothing else;
 *     - rewrite_only_answers: a decision with a rewrite (as written into the decision FIFO)
 *       sends the frame back out of its input MAC port only (tuser source < 4, mask =
 *       1 << source), and the rewrite is one of the two kinds;
 *     - decision_constant_in_frame: tuser and the metadata's decision fields (engine,
 *       isl_group, offsets, RX stamp) are the same on every word of a frame on the output;
 *     - length_meta: m_axis_meta's length is the bytes of the frame sent up to and including
 *       this word (the sum of the tkeep bits), saturating at 16383;
 *     - output_stable: a word shown and not taken is shown again unchanged (AXI4-Stream).
 *   Invariants for the induction (inv_*): the RTL's pointers and indexes (links) equal the
 *   model's (and the incoming frame is decided exactly from its 8th word on), the word index
 *   each held word has in its frame and the index the next word will have, the watched word's
 *   place in the shadow.
 *
 * Not proved: the classification (which decision each frame gets, the counters' pulses); that
 * the decision read at the head is the one written for that frame (the decision FIFO is not
 * shadowed: decisions held = frames held is proved, and that none is overwritten, but not
 * entry by entry), so "only answers are rewritten" is proved of the decisions written, and
 * that a frame carries its own first word's tuser source and meta is not proved; the value of
 * a DMR's destination bytes 0..5 (that they are the DMM's source MAC): only that they are the
 * only other bytes a DMR may change.
 */

`default_nettype none

module oam_steer_formal (
    input  wire            clk,
    input  wire            rst,
    input  wire [63:0]     s_axis_tdata,
    input  wire [7:0]      s_axis_tkeep,
    input  wire            s_axis_tvalid,
    input  wire            s_axis_tlast,
    input  wire [10:0]     s_axis_tuser,
    input  wire [62:0]     s_axis_meta,
    input  wire            m_axis_tready,
    input  wire [3:0]      config_dm_enable,
    input  wire [3:0]      config_dm_responder,
    input  wire [4*3-1:0]  config_dm_level,
    input  wire [3:0]      config_headroom_enable,
    input  wire [3:0]      config_headroom_responder,
    input  wire [3:0]      config_isl_copy_field,
    input  wire [3:0]      config_isl_group,
    input  wire [3:0]      config_cpu_bound,
    input  wire [4*48-1:0] config_port_mac,
    // Free choice of the check: watch the word accepted in this clock
    input  wire            f_pick
);

localparam F_DEPTH = `FORMAL_DEPTH;  // the run's clocks (tb/formal/formal.py)

wire        s_axis_tready;
wire [63:0] m_axis_tdata;
wire [7:0]  m_axis_tkeep;
wire        m_axis_tvalid;
wire        m_axis_tlast;
wire [10:0] m_axis_tuser;
wire [93:0] m_axis_meta;
wire [3:0]  dm_answered, dm_passed_up, dm_malformed;
wire [3:0]  headroom_answered, headroom_passed_up, headroom_malformed;
wire [3:0]  isl_t1_stamped, isl_reflected, isl_passed_up;

oam_steer dut (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tuser(s_axis_tuser),
    .s_axis_meta(s_axis_meta),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .m_axis_meta(m_axis_meta),
    .config_dm_enable(config_dm_enable),
    .config_dm_responder(config_dm_responder),
    .config_dm_level(config_dm_level),
    .config_headroom_enable(config_headroom_enable),
    .config_headroom_responder(config_headroom_responder),
    .config_isl_copy_field(config_isl_copy_field),
    .config_isl_group(config_isl_group),
    .config_cpu_bound(config_cpu_bound),
    .config_port_mac(config_port_mac),
    .dm_answered(dm_answered),
    .dm_passed_up(dm_passed_up),
    .dm_malformed(dm_malformed),
    .headroom_answered(headroom_answered),
    .headroom_passed_up(headroom_passed_up),
    .headroom_malformed(headroom_malformed),
    .isl_t1_stamped(isl_t1_stamped),
    .isl_reflected(isl_reflected),
    .isl_passed_up(isl_passed_up)
);

// Internal signals of the RTL (proof.toml links). Used only as operands, never alone as an
// `if` condition or the right side of an assign (see switch_queue_formal.sv).
wire [3:0]  f_fifo_write_reg;      // dut.fifo_write_reg
wire [3:0]  f_fifo_read_reg;       // dut.fifo_read_reg
wire [3:0]  f_decision_write_reg;  // dut.decision_write_reg
wire [3:0]  f_decision_read_reg;   // dut.decision_read_reg
wire [2:0]  f_in_index_reg;        // dut.in_index_reg
wire        f_in_decided_reg;      // dut.in_decided_reg
wire [2:0]  f_out_index_reg;       // dut.out_index_reg
wire [13:0] f_out_bytes_reg;       // dut.out_bytes_reg
wire [63:0] f_out_data;            // dut.out_data (the head word before the rewrite)
wire [1:0]  f_out_rewrite;         // dut.out_rewrite (the head decision's rewrite)
wire [7:0]  f_decision_mask;       // dut.decision_mask  (the decision computed this clock)
wire [2:0]  f_source;              // dut.source
wire [1:0]  f_decision_rewrite;    // dut.decision_rewrite

// The reset the proof starts from, and rst low after it (common/formal_reset.sv)
wire f_past_valid;
formal_reset #(.ONCE(1)) initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

reg f_prev_stall = 1'b0;          // the output was stalled in the clock before
reg [4*48-1:0] f_prev_port_mac = 0;
always @(posedge clk) begin
    f_prev_stall <= m_axis_tvalid && !m_axis_tready;
    f_prev_port_mac <= config_port_mac;
    if (rst) f_prev_stall <= 1'b0;
end
always @(*) begin
    if (f_prev_stall) assume (config_port_mac == f_prev_port_mac);
end

// ---------------------------------------------------------------------------------------------
// The model

wire f_accept = s_axis_tvalid && s_axis_tready;
wire f_pop = m_axis_tvalid && m_axis_tready;

reg [4:0] f_count = 5'd0;        // words accepted and not yet sent
reg [2:0] f_in_index = 3'd0;     // word index of the incoming frame, saturating at 7
reg [2:0] f_out_index = 3'd0;    // word index of the outgoing frame, saturating at 7
reg [13:0] f_out_bytes = 14'd0;  // bytes of the outgoing frame sent, saturating
reg       f_always_ready = 1'b1; // m_axis_tready in every clock since reset

function [3:0] f_keep_count;
    input [7:0] keep;
    integer b;
    begin
        f_keep_count = 4'd0;
        for (b = 0; b < 8; b = b + 1)
            f_keep_count = f_keep_count + {3'd0, keep[b]};
    end
endfunction

wire [14:0] f_bytes_sum = {1'b0, f_out_bytes} + {11'd0, f_keep_count(m_axis_tkeep)};
wire [13:0] f_bytes_now = f_bytes_sum[14] ? 14'h3fff : f_bytes_sum[13:0];

// The decision of the incoming frame is made with its 7th word or its last
wire f_decide = f_accept && f_in_index != 3'd7 && (s_axis_tlast || f_in_index == 3'd6);

// Shadow of the data FIFO: {last, keep, data} at each address
reg [72:0] f_ram [0:7];
wire [72:0] f_in_entry = {s_axis_tlast, s_axis_tkeep, s_axis_tdata};
wire [3:0] f_dcount = f_decision_write_reg - f_decision_read_reg;
wire [72:0] f_head_entry = f_ram[f_fifo_read_reg[2:0]];

integer i;
always @(posedge clk) begin
    for (i = 0; i < 8; i = i + 1) begin
        f_ram[i] <= (f_accept && f_fifo_write_reg[2:0] == i) ? f_in_entry : f_ram[i];
    end
end

always @(posedge clk) begin
    f_count <= f_count + {4'd0, f_accept} - {4'd0, f_pop};
    if (f_accept) begin
        f_in_index <= s_axis_tlast ? 3'd0 : (f_in_index == 3'd7 ? 3'd7 : f_in_index + 3'd1);
    end
    if (f_pop) begin
        f_out_index <= m_axis_tlast ? 3'd0 : (f_out_index == 3'd7 ? 3'd7 : f_out_index + 3'd1);
        f_out_bytes <= m_axis_tlast ? 14'd0 : f_bytes_now;
    end
    if (!m_axis_tready) f_always_ready <= 1'b0;
    if (rst) begin
        f_count <= 5'd0;
        f_in_index <= 3'd0;
        f_out_index <= 3'd0;
        f_out_bytes <= 14'd0;
        f_always_ready <= 1'b1;
    end
end

// The held words, from the head: their word index in their frame (the outgoing frame's index
// at the head, 0 after a last word, saturating at 7), the last words among them, and the index
// the next word accepted will have
reg [26:0] f_index_at;   // 9 indexes of 3 bits: that of held word p in bits 3p+2:3p
reg [3:0]  f_lasts;
reg [2:0]  f_idx;
integer p;
always @(*) begin
    f_idx = f_out_index;
    f_index_at[2:0] = f_idx;
    f_lasts = 4'd0;
    for (p = 0; p < 8; p = p + 1) begin
        if (p < f_count) begin
            f_lasts = f_lasts + {3'd0, f_ram[(f_fifo_read_reg[2:0] + p) % 8][72]};
            f_idx = f_ram[(f_fifo_read_reg[2:0] + p) % 8][72] ? 3'd0
                : (f_idx == 3'd7 ? 3'd7 : f_idx + 3'd1);
        end
        f_index_at[3*(p+1) +: 3] = f_idx;
    end
end

// clocks since the initial state, up to F_DEPTH; not reset: it tells BMC from induction
reg [3:0] f_step = 4'd0;
always @(posedge clk) begin
    if (f_step < F_DEPTH) f_step <= f_step + 4'd1;
end

always @(*) begin
    if (f_step < F_DEPTH) begin
        if (f_count != 5'd0)
            mem_reads_what_was_written: assert (
                {m_axis_tlast, m_axis_tkeep, f_out_data} == f_head_entry);
    end else begin
        if (f_count != 5'd0)
            assume ({m_axis_tlast, m_axis_tkeep, f_out_data} == f_head_entry);
    end
end

// ---------------------------------------------------------------------------------------------
// The watched word

reg        f_watch = 1'b0;
reg [72:0] f_watch_entry = 73'd0;
reg [3:0]  f_watch_pos = 4'd0;     // words to be sent before it
reg [2:0]  f_watch_index = 3'd0;   // its word index in its frame (saturating at 7)
wire       f_watch_start = !f_watch && f_pick && f_accept;

always @(posedge clk) begin
    if (f_watch_start) begin
        f_watch <= 1'b1;
        f_watch_entry <= f_in_entry;
        f_watch_pos <= f_count[3:0] - {3'd0, f_pop};
        f_watch_index <= f_in_index;
    end else if (f_watch && f_pop) begin
        if (f_watch_pos == 4'd0)
            f_watch <= 1'b0;
        else
            f_watch_pos <= f_watch_pos - 4'd1;
    end
    if (rst) f_watch <= 1'b0;
end

// A responder's answer: from MAC port s (source < 4), to MAC port s only
function f_answer;
    input [10:0] tuser;
    begin
        f_answer = !tuser[10] && tuser[7:0] == (8'd1 << tuser[9:8]);
    end
endfunction

// The output word against the input word, for the rewrite of words 0..2
wire [47:0] f_out_mac = config_port_mac[48*m_axis_tuser[9:8] +: 48];
wire [63:0] f_in_data = f_watch_entry[63:0];
reg rewrite_ok;
always @(*) begin
    rewrite_ok = 1'b1;
    case (f_watch_index)
        3'd0: begin
            // bytes 6, 7: port_mac[47:40], [39:32]; bytes 0..5 kept for a headroom response
            rewrite_ok = m_axis_tdata[63:48] == {f_out_mac[39:32], f_out_mac[47:40]}
                && (f_out_rewrite == 2'd1 || m_axis_tdata[47:0] == f_in_data[47:0]);
        end
        3'd1: begin
            rewrite_ok = m_axis_tdata[31:0] == {f_out_mac[7:0], f_out_mac[15:8],
                                                f_out_mac[23:16], f_out_mac[31:24]}
                && m_axis_tdata[55:32] == f_in_data[55:32]
                && (f_out_rewrite == 2'd2
                    ? m_axis_tdata[63:56] == {f_in_data[63:58], 2'd2}
                    : (m_axis_tdata[63:56] == f_in_data[63:56] || m_axis_tdata[63:56] == 8'd46));
        end
        3'd2: begin
            rewrite_ok = m_axis_tdata[23:0] == f_in_data[23:0]
                && m_axis_tdata[63:32] == f_in_data[63:32]
                && (m_axis_tdata[31:24] == f_in_data[31:24]
                    || (f_out_rewrite == 2'd1 && m_axis_tdata[31:24] == 8'd46));
        end
        default: rewrite_ok = m_axis_tdata == f_in_data;
    endcase
end

// The outgoing frame's decision, as on its first word
reg        f_out_in_frame = 1'b0;
reg [90:0] f_out_decision = 91'd0;   // {tuser, meta[79:0]}
always @(posedge clk) begin
    if (f_pop) begin
        f_out_in_frame <= !m_axis_tlast;
        if (!f_out_in_frame) f_out_decision <= {m_axis_tuser, m_axis_meta[79:0]};
    end
    if (rst) f_out_in_frame <= 1'b0;
end

// ---------------------------------------------------------------------------------------------
// Properties

always @(*) begin
    if (f_past_valid && !rst) begin
        // FIFOs
        data_fifo_no_overflow: assert (f_count <= 5'd8
                                       && (!f_accept || f_count != 5'd8 || f_pop));
        decision_fifo_no_overflow: assert (f_dcount <= 4'd8
                                           && (!f_decide || f_dcount != 4'd8
                                               || (f_pop && m_axis_tlast)));
        decision_fifo_accounting: assert (f_dcount == f_lasts + {3'd0, f_in_index == 3'd7});
        ready_rule: assert (s_axis_tready == (f_count != 5'd8 || f_pop));
        no_deadlock: assert (m_axis_tvalid || s_axis_tready);
        if (f_always_ready)
            always_ready_never_stalls: assert (s_axis_tready && f_count <= 5'd7);

        // The stream
        output_only_decided: assert (m_axis_tvalid == (f_count != 5'd0 && f_dcount != 4'd0));
        if (f_watch && f_watch_pos == 4'd0 && m_axis_tvalid) begin
            watched_word: assert (m_axis_tkeep == f_watch_entry[71:64]
                                  && m_axis_tlast == f_watch_entry[72]
                                  && (m_axis_tdata == f_watch_entry[63:0]
                                      || (f_watch_index <= 3'd2 && f_out_rewrite != 2'd0)));
            if (f_out_rewrite != 2'd0)
                rewrite_bytes: assert (rewrite_ok);
        end
        if (f_decide)
            rewrite_only_answers: assert ((f_decision_rewrite == 2'd0
                                           || f_answer({f_source, f_decision_mask}))
                                          && f_decision_rewrite != 2'd3);
        if (f_out_in_frame)
            decision_constant_in_frame: assert ({m_axis_tuser, m_axis_meta[79:0]}
                                                == f_out_decision);
        if (m_axis_tvalid)
            length_meta: assert (m_axis_meta[93:80] == f_bytes_now);

        // Invariants
        inv_pointers: assert ({1'b0, f_fifo_write_reg - f_fifo_read_reg} == f_count
                              && f_in_index_reg == f_in_index
                              && f_in_decided_reg == (f_in_index == 3'd7)
                              && f_out_index_reg == f_out_index
                              && f_out_bytes_reg == f_out_bytes);
        inv_frames: assert (f_index_at[26:24] == f_in_index
                            && (!f_out_in_frame || f_dcount != 4'd0));
        if (f_watch)
            inv_watch: assert ({1'b0, f_watch_pos} < f_count
                               && f_ram[(f_fifo_read_reg[2:0] + f_watch_pos[2:0]) % 8]
                                  == f_watch_entry
                               && f_index_at[3*f_watch_pos +: 3] == f_watch_index);
    end
end

// The output of the clock before (registers of the wrapper rather than $past, so that the
// induction closes at k = 1)
reg [63:0] f_prev_tdata = 64'd0;
reg [7:0]  f_prev_tkeep = 8'd0;
reg        f_prev_tlast = 1'b0;
reg [10:0] f_prev_tuser = 11'd0;
reg [93:0] f_prev_meta = 94'd0;
always @(posedge clk) begin
    f_prev_tdata <= m_axis_tdata;
    f_prev_tkeep <= m_axis_tkeep;
    f_prev_tlast <= m_axis_tlast;
    f_prev_tuser <= m_axis_tuser;
    f_prev_meta <= m_axis_meta;
end

always @(*) begin
    if (f_past_valid && !rst && f_prev_stall)
        output_stable: assert (m_axis_tvalid && m_axis_tdata == f_prev_tdata
                               && m_axis_tkeep == f_prev_tkeep && m_axis_tlast == f_prev_tlast
                               && m_axis_tuser == f_prev_tuser && m_axis_meta == f_prev_meta);
end

// ---------------------------------------------------------------------------------------------
// Covers

reg f_seen_full = 1'b0;     // the data FIFO was full
always @(posedge clk) begin
    if (f_count == 5'd8) f_seen_full <= 1'b1;
    if (rst) f_seen_full <= 1'b0;
end

always @(*) begin
    if (f_past_valid && !rst) begin
        // a watched word, the last of a 3-word frame, leaves
        cover_watched_word_sent: cover (f_watch && f_watch_pos == 4'd0 && f_pop
                                        && f_watch_index == 3'd2 && f_watch_entry[72]);
        // a responder's answer leaves with its rewritten word 1
        cover_rewrite: cover (f_watch && f_watch_pos == 4'd0 && f_pop && f_out_rewrite != 2'd0
                              && f_watch_index == 3'd1);
        // a word written into the full FIFO as the head leaves
        cover_full_and_pop: cover (f_accept && f_count == 5'd8 && f_pop);
        // two decisions held: a short frame waits behind one being sent
        cover_two_decisions: cover (f_dcount == 4'd2 && f_pop);
        // a stalled word taken in a frame
        cover_stall_released: cover (f_prev_stall && f_pop && f_out_in_frame);
        // the input stalls: full FIFO, output stalled
        cover_input_stalled: cover (s_axis_tvalid && !s_axis_tready);
    end
end

endmodule

`default_nettype wire
