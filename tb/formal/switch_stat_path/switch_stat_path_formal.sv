// SPDX-License-Identifier: BSD-3-Clause
/*
 * switch_stat_path_formal: the stat path (rtl/switch/switch_stat_path.v) puts evcap's stat
 * packets on the ports they select, whole, between the whole frames of each port's queue, and
 * passes the queues' frames unchanged, as its header says.
 *
 * Instance: the block as it is (8 ports, 64-bit words, 8-bit tkeep, the stat tuser a port mask;
 * no parameters, so 8 ports it is: the proof takes seconds). The per-port properties are
 * written once, in the checker module switch_stat_path_port_check (below), instantiated for
 * each port by a generate loop: each of its labels is one test point covering all 8 ports
 * (Yosys 0.23 refuses a label repeated by a generate loop inside one module).
 *
 * Assumed:
 *   - reset in the first clock only;
 *   - AXI4-Stream on the stat input and on each queue input: a word offered (tvalid) and not
 *     accepted (tready) is offered again in the next clock with the same tdata, tkeep, tlast
 *     (and tuser for the stat input). tvalid may drop between words (mid-frame too);
 *     m_axis_tready is free for every port in every clock;
 *   - a stat packet's tuser (its port mask) is the same on all its words (the header's "the
 *     ports the current stat packet selects": a packet-level attribute).
 *
 * The model (from the header): per port, the output frame in progress (a word taken without
 * tlast, until its tlast) and its kind (a queue frame or a stat packet); per port, whether it
 * has taken the current stat word (f_taken: a handshake of the stat word on the port, until the
 * word leaves evcap); the stat input's packet in progress and its mask. m_axis_from_queue is the
 * documented discriminator: port i's word is its queue's when it is high, the stat word when low.
 *
 * Proved by k-induction, each a labelled assertion (for every port i):
 *   The queues' frames
 *     - queue_word_passed: while m_axis_from_queue[i], port i shows exactly its queue's offer
 *       (tvalid, and when valid tdata, tkeep, tlast);
 *     - queue_handshake_is_output_handshake: a queue word is taken (s_queue tvalid and tready)
 *       exactly when port i's output takes a word with m_axis_from_queue[i] high (same clock,
 *       same word, by queue_word_passed): the queue's words go out unchanged, in order, none
 *       lost, duplicated or added, and departures happen when the port really takes them;
 *     - queue_ready_only_from_queue: s_queue_tready[i] only while m_axis_from_queue[i] (the
 *       queue side waits while the port serves a stat packet or is between frames);
 *   Stat packets
 *     - stat_word_shown: a word shown on port i with m_axis_from_queue[i] low is evcap's
 *       current word (tdata, tkeep, tlast), evcap offers it (tvalid), it selects port i (tuser
 *       bit i), and port i has not taken it yet: none to an unselected port, none twice;
 *     - stat_leaves_when_all_have_it: evcap's word is accepted (tvalid and tready) exactly when
 *       it selects no port (consumed and discarded) or every port it selects has taken it,
 *       in an earlier clock or in this one: lock step, every selected port gets each word once
 *       and the next word only after it;
 *     - stat_offered_in_packet: inside a stat packet on port i (a word of it taken, its tlast
 *       not yet), while evcap offers the packet's next word and port i has not taken it, port i
 *       shows it (a packet, once begun, is never held back on a port);
 *   Whole frames on each port
 *     - frame_kind_held: inside a frame, every word port i shows is of that frame's kind (queue
 *       words in a queue frame, stat words in a stat packet): frames never cut or interleaved;
 *     - from_queue_as_documented: m_axis_from_queue[i] high means inside a queue frame, or,
 *       between frames, offering a (queue) first word (m_axis_tvalid[i]); never inside a stat
 *       packet. With frame_kind_held (high inside a queue frame) and stat_word_shown (a queue
 *       word is never shown with it low): high exactly from a queue frame's first offer to its
 *       tlast;
 *     - stat_before_queue: m_axis_from_queue[i] rises (a queue frame starts) only after a clock
 *       where port i was between frames and no stat packet selecting it was offered or under
 *       way (a stat packet selecting a port at a boundary goes before its queue's next frame);
 *     - output_stable: a word shown and not taken is shown again unchanged (tdata, tkeep,
 *       tlast, and m_axis_from_queue);
 *   Invariants for the induction (inv_*): the RTL's taken register equals the model's, only
 *   ports the pending word selects and that serve it (inv_taken); the RTL's serving registers:
 *   serving_queue is m_axis_from_queue, never both, a port inside a frame serves its kind
 *   (inv_serving); the ports serving a stat packet are those of the packet under way, or a
 *   subset of the pending word's mask between packets (inv_stat_ports); each port's frame state
 *   against its place in the packet under way (inv_port_taken, inv_port_in_packet,
 *   inv_port_no_packet).
 *
 * Not proved: that a port between frames is eventually served (liveness), the idle clock the
 * RTL leaves between two frames on a port (a performance matter, not in the header).
 */

`default_nettype none

module switch_stat_path_formal (
    input  wire           clk,
    input  wire           rst,
    input  wire [63:0]    s_stat_tdata,
    input  wire [7:0]     s_stat_tkeep,
    input  wire           s_stat_tvalid,
    input  wire           s_stat_tlast,
    input  wire [7:0]     s_stat_tuser,
    input  wire [8*64-1:0] s_queue_tdata,
    input  wire [8*8-1:0]  s_queue_tkeep,
    input  wire [7:0]      s_queue_tvalid,
    input  wire [7:0]      s_queue_tlast,
    input  wire [7:0]      m_axis_tready
);

wire           s_stat_tready;
wire [7:0]     s_queue_tready;
wire [8*64-1:0] m_axis_tdata;
wire [8*8-1:0]  m_axis_tkeep;
wire [7:0]      m_axis_tvalid;
wire [7:0]      m_axis_tlast;
wire [7:0]      m_axis_from_queue;

switch_stat_path dut (
    .clk(clk),
    .rst(rst),
    .s_stat_tdata(s_stat_tdata),
    .s_stat_tkeep(s_stat_tkeep),
    .s_stat_tvalid(s_stat_tvalid),
    .s_stat_tready(s_stat_tready),
    .s_stat_tlast(s_stat_tlast),
    .s_stat_tuser(s_stat_tuser),
    .s_queue_tdata(s_queue_tdata),
    .s_queue_tkeep(s_queue_tkeep),
    .s_queue_tvalid(s_queue_tvalid),
    .s_queue_tready(s_queue_tready),
    .s_queue_tlast(s_queue_tlast),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_from_queue(m_axis_from_queue)
);

// Internal state of the RTL (proof.toml links; used only as operands of the invariants)
wire [7:0] f_serving_queue;  // dut.serving_queue_reg
wire [7:0] f_serving_stat;   // dut.serving_stat_reg
wire [7:0] f_taken_reg;      // dut.taken_reg

// The reset the proof starts from, and rst low after it (common/formal_reset.sv)
wire f_past_valid;
formal_reset #(.ONCE(1)) initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// The inputs: AXI4-Stream, a word offered and not accepted is offered again unchanged

wire       f_stat_hs = s_stat_tvalid && s_stat_tready;
wire [7:0] f_queue_hs = s_queue_tvalid & s_queue_tready;
wire [7:0] f_out_hs = m_axis_tvalid & m_axis_tready;

reg        f_stat_pend = 1'b0;
reg [63:0] f_prev_stat_tdata = 64'd0;
reg [7:0]  f_prev_stat_tkeep = 8'd0;
reg        f_prev_stat_tlast = 1'b0;
reg [7:0]  f_prev_stat_tuser = 8'd0;
reg [7:0]  f_queue_pend = 8'd0;
reg [8*64-1:0] f_prev_queue_tdata = {8*64{1'b0}};
reg [8*8-1:0]  f_prev_queue_tkeep = {8*8{1'b0}};
reg [7:0]      f_prev_queue_tlast = 8'd0;

// The stat input's packet in progress (a word accepted without tlast) and its port mask
reg        f_stat_in_packet = 1'b0;
reg [7:0]  f_stat_user = 8'd0;

always @(posedge clk) begin
    f_stat_pend <= s_stat_tvalid && !s_stat_tready && !rst;
    f_queue_pend <= (s_queue_tvalid & ~s_queue_tready) & {8{!rst}};
    f_prev_stat_tdata <= s_stat_tdata;
    f_prev_stat_tkeep <= s_stat_tkeep;
    f_prev_stat_tlast <= s_stat_tlast;
    f_prev_stat_tuser <= s_stat_tuser;
    f_prev_queue_tdata <= s_queue_tdata;
    f_prev_queue_tkeep <= s_queue_tkeep;
    f_prev_queue_tlast <= s_queue_tlast;
    if (f_stat_hs) begin
        f_stat_in_packet <= !s_stat_tlast;
        f_stat_user <= s_stat_tuser;
    end
    if (rst) f_stat_in_packet <= 1'b0;
end

always @(*) begin
    if (f_stat_pend) begin
        assume (s_stat_tvalid);
        assume (s_stat_tdata == f_prev_stat_tdata && s_stat_tkeep == f_prev_stat_tkeep
                && s_stat_tlast == f_prev_stat_tlast && s_stat_tuser == f_prev_stat_tuser);
    end
    if (f_stat_in_packet && s_stat_tvalid)
        assume (s_stat_tuser == f_stat_user);
end

genvar i;
generate
    for (i = 0; i < 8; i = i + 1) begin : hold
        always @(*) begin
            if (f_queue_pend[i]) begin
                assume (s_queue_tvalid[i]);
                assume (s_queue_tdata[64*i +: 64] == f_prev_queue_tdata[64*i +: 64]
                        && s_queue_tkeep[8*i +: 8] == f_prev_queue_tkeep[8*i +: 8]
                        && s_queue_tlast[i] == f_prev_queue_tlast[i]);
            end
        end
    end
endgenerate

// ---------------------------------------------------------------------------------------------
// The model: per port, the output frame in progress and its kind; the stat word's takers

reg [7:0] f_out_frame = 8'd0;  // a word taken on the port without tlast, until its tlast
reg [7:0] f_out_stat = 8'd0;   // and that frame is a stat packet (not a queue frame)
reg [7:0] f_taken = 8'd0;      // the port has taken evcap's current word (until it leaves)

// this clock's output handshakes of a stat word (m_axis_from_queue low)
wire [7:0] f_stat_out_hs = f_out_hs & ~m_axis_from_queue;

always @(posedge clk) begin
    f_out_frame <= (f_out_frame & ~f_out_hs) | (f_out_hs & ~m_axis_tlast);
    f_out_stat <= (f_out_stat & ~f_out_hs) | (f_stat_out_hs & ~m_axis_tlast);
    f_taken <= f_stat_hs ? 8'd0 : (f_taken | f_stat_out_hs);
    if (rst) begin
        f_out_frame <= 8'd0;
        f_out_stat <= 8'd0;
        f_taken <= 8'd0;
    end
end

// ---------------------------------------------------------------------------------------------
// Properties

// every port it selects has taken the stat word, in an earlier clock or in this one
wire f_all_have_it = ((f_taken | f_stat_out_hs) & s_stat_tuser) == s_stat_tuser;

always @(*) begin
    if (f_past_valid && !rst) begin
        if (s_stat_tvalid)
            stat_leaves_when_all_have_it: assert (s_stat_tready
                == (s_stat_tuser == 8'd0 || f_all_have_it));

        // Invariants for the induction: the RTL's registers and the model
        inv_taken: assert (f_taken_reg == f_taken && (f_taken == 8'd0 || (f_stat_pend
                           && (f_taken & ~s_stat_tuser) == 8'd0
                           && (f_taken & ~f_serving_stat) == 8'd0)));
        inv_serving: assert (f_serving_queue == m_axis_from_queue
                             && (f_serving_queue & f_serving_stat) == 8'd0
                             && (f_out_frame & f_out_stat & ~f_serving_stat) == 8'd0
                             && (f_out_frame & ~f_out_stat & ~f_serving_queue) == 8'd0
                             && (f_out_stat & ~f_out_frame) == 8'd0);
        // ports serving a stat packet: those of the packet under way, or of the word offered
        inv_stat_ports: assert (f_stat_in_packet
            ? (f_serving_stat == f_stat_user)
            : ((f_serving_stat & ~(f_stat_pend ? s_stat_tuser : 8'd0)) == 8'd0));
    end
end

// ---------------------------------------------------------------------------------------------
// Covers: the behaviour the properties speak of is reachable from reset

function [3:0] ones;
    input [7:0] bits;
    integer k;
    begin
        ones = 4'd0;
        for (k = 0; k < 8; k = k + 1) ones = ones + {3'd0, bits[k]};
    end
endfunction

reg       f_prev_stall_stat0 = 1'b0;  // port 0 showed a stat word and was stalled, clock before
reg       f_stat_dropped = 1'b0;      // evcap dropped tvalid inside the packet under way
reg       f_stat_end0 = 1'b0;         // port 0's last frame was a stat packet
reg       f_queue_end0 = 1'b0;        // port 0 ended a queue frame, clock before or earlier
always @(posedge clk) begin
    f_prev_stall_stat0 <= m_axis_tvalid[0] && !m_axis_tready[0] && !m_axis_from_queue[0];
    if (f_stat_in_packet && !s_stat_tvalid) f_stat_dropped <= 1'b1;
    if (f_stat_hs && s_stat_tlast) f_stat_dropped <= 1'b0;
    if (f_out_hs[0] && m_axis_tlast[0]) begin
        f_stat_end0 <= !m_axis_from_queue[0];
        f_queue_end0 <= m_axis_from_queue[0];
    end
    if (rst) begin
        f_prev_stall_stat0 <= 1'b0;
        f_stat_dropped <= 1'b0;
        f_stat_end0 <= 1'b0;
        f_queue_end0 <= 1'b0;
    end
end

always @(*) begin
    if (f_past_valid && !rst) begin
        // a word of a multi-word stat packet for two ports leaves evcap, one port having taken
        // it in an earlier clock than the other (lock step at the pace of the slowest)
        cover_lock_step: cover (f_stat_hs && !s_stat_tlast && ones(s_stat_tuser) >= 4'd2
                                && f_taken != 8'd0);
        // the last word of a multi-word stat packet for two ports leaves evcap, after evcap
        // dropped tvalid inside it
        cover_packet_done: cover (f_stat_hs && s_stat_tlast && f_stat_in_packet && f_stat_dropped
                                  && ones(s_stat_tuser) >= 4'd2);
        // a stat packet to all 8 ports
        cover_all_ports: cover (f_stat_hs && s_stat_tlast && s_stat_tuser == 8'hff);
        // a stat packet that selects no port, consumed
        cover_discard: cover (f_stat_hs && s_stat_tuser == 8'd0);
        // a port inside a stat packet while its queue waits with a word
        cover_queue_waits: cover (f_out_frame[1] && f_out_stat[1] && s_queue_tvalid[1]);
        // a stalled stat word taken on port 0
        cover_stat_stalled: cover (f_prev_stall_stat0 && f_out_hs[0] && !m_axis_from_queue[0]);
        // port 0: a queue frame after a stat packet, a stat packet after a queue frame, and two
        // multi-word queue frames one after the other
        cover_queue_after_stat: cover (f_stat_end0 && f_out_hs[0] && m_axis_from_queue[0]
                                       && !f_out_frame[0]);
        cover_stat_after_queue: cover (f_queue_end0 && f_out_hs[0] && !m_axis_from_queue[0]
                                       && !f_out_frame[0] && !m_axis_tlast[0]);
        cover_queue_back_to_back: cover (f_queue_end0 && f_queue_hs[0] && m_axis_tlast[0]
                                         && f_out_frame[0]);
    end
end

generate
    for (i = 0; i < 8; i = i + 1) begin : port
        switch_stat_path_port_check check (
            .clk(clk),
            .rst(rst),
            .past_valid(f_past_valid),
            .m_valid(m_axis_tvalid[i]),
            .m_ready(m_axis_tready[i]),
            .m_data(m_axis_tdata[64*i +: 64]),
            .m_keep(m_axis_tkeep[8*i +: 8]),
            .m_last(m_axis_tlast[i]),
            .from_queue(m_axis_from_queue[i]),
            .q_valid(s_queue_tvalid[i]),
            .q_ready(s_queue_tready[i]),
            .q_data(s_queue_tdata[64*i +: 64]),
            .q_keep(s_queue_tkeep[8*i +: 8]),
            .q_last(s_queue_tlast[i]),
            .stat_valid(s_stat_tvalid),
            .stat_selects(s_stat_tuser[i]),
            .stat_data(s_stat_tdata),
            .stat_keep(s_stat_tkeep),
            .stat_last(s_stat_tlast),
            .packet_selects(f_stat_in_packet && f_stat_user[i]),
            .out_frame(f_out_frame[i]),
            .out_stat(f_out_stat[i]),
            .taken(f_taken[i])
        );
    end
endgenerate

endmodule

// The properties of one port (a module, so that each label is one name in its 8 instances)
module switch_stat_path_port_check (
    input wire        clk,
    input wire        rst,
    input wire        past_valid,
    input wire        m_valid,
    input wire        m_ready,
    input wire [63:0] m_data,
    input wire [7:0]  m_keep,
    input wire        m_last,
    input wire        from_queue,
    input wire        q_valid,
    input wire        q_ready,
    input wire [63:0] q_data,
    input wire [7:0]  q_keep,
    input wire        q_last,
    input wire        stat_valid,
    input wire        stat_selects,    // evcap's current word selects this port (tuser bit)
    input wire [63:0] stat_data,
    input wire [7:0]  stat_keep,
    input wire        stat_last,
    input wire        packet_selects,  // a stat packet selecting this port is under way
    input wire        out_frame,       // the model: a frame in progress on this port
    input wire        out_stat,        // and it is a stat packet
    input wire        taken            // this port has taken evcap's current word
);

always @(*) begin
    if (past_valid && !rst) begin
        // The queue's frames
        if (from_queue)
            queue_word_passed: assert (m_valid == q_valid
                && (!m_valid || (m_data == q_data && m_keep == q_keep && m_last == q_last)));
        queue_handshake_is_output_handshake: assert ((q_valid && q_ready)
                                                     == (m_valid && m_ready && from_queue));
        if (q_ready)
            queue_ready_only_from_queue: assert (from_queue);

        // Stat packets
        if (m_valid && !from_queue)
            stat_word_shown: assert (stat_valid && stat_selects && !taken
                                     && m_data == stat_data && m_keep == stat_keep
                                     && m_last == stat_last);
        if (out_frame && out_stat && stat_valid && !taken)
            stat_offered_in_packet: assert (m_valid && !from_queue);

        // Whole frames
        if (out_frame)
            frame_kind_held: assert (from_queue == !out_stat);
        if (from_queue)
            from_queue_as_documented: assert (out_frame ? !out_stat : m_valid);

        // Invariants: the port's place in the stat packet under way
        if (taken)
            inv_port_taken: assert (out_frame == !stat_last && out_stat == !stat_last);
        else if (packet_selects)
            inv_port_in_packet: assert (out_frame && out_stat);
        else
            inv_port_no_packet: assert (!(out_frame && out_stat));
    end
end

always @(posedge clk) begin
    if (past_valid && !$past(rst)) begin
        if ($past(m_valid && !m_ready))
            output_stable: assert (m_valid && m_data == $past(m_data) && m_keep == $past(m_keep)
                                   && m_last == $past(m_last) && from_queue == $past(from_queue));
        if (from_queue && !$past(from_queue))
            stat_before_queue: assert ($past(!out_frame && !(stat_valid && stat_selects)
                                             && !packet_selects));
    end
end

endmodule

`default_nettype wire
