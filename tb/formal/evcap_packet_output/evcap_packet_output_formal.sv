// SPDX-License-Identifier: BSD-3-Clause
/*
 * evcap_packet_output_formal: every stat packet evcap_packet_output sends, for every input
 * sequence (issue 18: "every frame on its output stream is well formed (contiguous tkeep, one
 * tlast, length equal to its IP total length), ..., carries a valid IPv4 header checksum, and
 * ... its sequence number").
 *
 * Instance: QUEUE_SIZE_WIDTH = 4 (the real 20): the snapshot is only copied, zero-extended,
 * into the header; the logic does not depend on its width.
 *
 * Assumed:
 *   - reset in the first clock (free afterwards: the model restarts with the block);
 *   - the packet ring behaves as evcap_fifo: once s_ring_valid is shown and not taken it stays,
 *     with the same data (the FIFO's output register only changes when popped);
 *   - a descriptor holds 1 to 4093 slots: every packet the block can frame (11-bit word count;
 *     the serializer, proved in tb/formal/evcap_serializer/, sends 3 to 2233: a timestamp, at
 *     least one event, and 66 + 4 x slots within max_length, clamped to 9000).
 * Everything else is free: ring data, descriptor fields, header configuration, tready, the
 * counters' clears.
 *
 * The model, written from the block's header and docs/evcap-architecture.md ("Packet
 * output"), not from the RTL: a descriptor is taken when the block is idle (no frame
 * pending); its fields and the header configuration of that clock are latched (m_*); the
 * header is loaded in the next clock (f_prepare) and f_snapshot keeps the header the block
 * loads then (dut.header, linked); then the frame's beats are counted (f_beats): 10 header
 * beats, then ceil(slots / 2) data beats, one ring word each; the last ends the frame.
 *
 * Proved by k-induction, so for every frame, not only the first:
 *   The stream
 *     - beat_held: a beat shown and not taken is shown again unchanged (AXI4-Stream);
 *     - descriptor_ready: a descriptor is taken only between frames;
 *     - header_beats_valid / idle_quiet: the 10 header beats are offered without a gap, and
 *       nothing is offered between frames (nor in the clock the header is loaded);
 *     - header_beat: header beat k is bytes 8k..8k+7 of the loaded header, byte 0 in tdata[7:0];
 *     - data_beat: each data beat is the ring word at the head, its slots big-endian, the first
 *       slot first; offered exactly when the ring has a word, and the ring popped exactly when
 *       a data beat is taken (so each ring word is sent once, in order, and no other);
 *     - tlast_at_length / keep: tlast on the beat 10 + ceil(slots / 2) and no other, tkeep
 *       0xff on every beat but the last, 0x0f on the last when the slot count is odd: one
 *       frame of 80 + 4 x slots bytes = 14 + the IP total length it carries (header_fields);
 *     - tuser_ports: tuser is the output-port mask of the descriptor's clock on every beat;
 *   The header (the loaded header, so every frame's bytes 0..79 by header_beat)
 *     - header_fields: destination and source MAC, EtherType 0x0800, 0x45, TOS, total length
 *       66 + 4 x slots, identification = seq[15:0], DF, TTL, protocol 17, source and
 *       destination IP, UDP ports, UDP length = total length - 20, UDP checksum 0, M flag,
 *       resolution, version 2, 3, the sequence number, the 8 queue sizes zero-extended: each
 *       the descriptor's or the configuration's of the clock the descriptor was taken;
 *     - checksum_field: in every clock, the header the block would load (dut.header) has at
 *       bytes 24..25 the complement of the RFC 1071 fold of the integer sum of its other nine
 *       IPv4 header words (bytes 14..33), written from RFC 1071, not from the RTL's adder.
 *       f_snapshot is that header as loaded, so by header_beat every frame carries a header
 *       whose checksum is right; with the lemma proved in tb/formal/ipv4_checksum/, a
 *       receiver's check of it passes. (Asserted of dut.header rather than of
 *       f_snapshot: there, z3 4.8.12 must redo the sum over a copy of the 160 bits and does
 *       not finish in 5 minutes; as it is, the proof takes seconds.)
 *   The counters
 *     - packets_counted / events_counted: packets_sent counts the frames whose last beat was
 *       taken, events_sent their descriptors' event counts, each cleared by its command.
 *   Invariants for the induction (inv_*): the RTL's state, header shift register, header word
 *   and word counts (links) equal what the model says they must be.
 */

`default_nettype none

module evcap_packet_output_formal (
    input  wire         clk,
    input  wire         rst,

    input  wire [31:0]  s_descriptor_seq,
    input  wire [11:0]  s_descriptor_slots,
    input  wire [11:0]  s_descriptor_events,
    input  wire         s_descriptor_missed,
    input  wire [2:0]   s_descriptor_resolution,
    input  wire [4*8-1:0] s_descriptor_snapshot,
    input  wire         s_descriptor_valid,
    input  wire [63:0]  s_ring_data,
    input  wire         s_ring_valid,
    input  wire         m_axis_tready,
    input  wire [7:0]   config_output_ports,
    input  wire [47:0]  config_destination_mac,
    input  wire [47:0]  config_source_mac,
    input  wire [31:0]  config_source_ip,
    input  wire [31:0]  config_destination_ip,
    input  wire [7:0]   config_tos,
    input  wire [7:0]   config_ttl,
    input  wire [15:0]  config_udp_source_port,
    input  wire [15:0]  config_udp_destination_port,
    input  wire         command_clear_events_sent,
    input  wire         command_clear_packets_sent
);

wire        s_descriptor_ready;
wire        s_ring_ready;
wire [63:0] m_axis_tdata;
wire [7:0]  m_axis_tkeep;
wire        m_axis_tvalid;
wire        m_axis_tlast;
wire [7:0]  m_axis_tuser;
wire [63:0] status_events_sent;
wire [63:0] status_packets_sent;

evcap_packet_output #(
    .QUEUE_SIZE_WIDTH(4)
) dut (
    .clk(clk),
    .rst(rst),
    .s_descriptor_seq(s_descriptor_seq),
    .s_descriptor_slots(s_descriptor_slots),
    .s_descriptor_events(s_descriptor_events),
    .s_descriptor_missed(s_descriptor_missed),
    .s_descriptor_resolution(s_descriptor_resolution),
    .s_descriptor_snapshot(s_descriptor_snapshot),
    .s_descriptor_valid(s_descriptor_valid),
    .s_descriptor_ready(s_descriptor_ready),
    .s_ring_data(s_ring_data),
    .s_ring_valid(s_ring_valid),
    .s_ring_ready(s_ring_ready),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .config_output_ports(config_output_ports),
    .config_destination_mac(config_destination_mac),
    .config_source_mac(config_source_mac),
    .config_source_ip(config_source_ip),
    .config_destination_ip(config_destination_ip),
    .config_tos(config_tos),
    .config_ttl(config_ttl),
    .config_udp_source_port(config_udp_source_port),
    .config_udp_destination_port(config_udp_destination_port),
    .command_clear_events_sent(command_clear_events_sent),
    .command_clear_packets_sent(command_clear_packets_sent),
    .status_events_sent(status_events_sent),
    .status_packets_sent(status_packets_sent)
);

// Internal state (proof.toml links); used only as operands (see tb/formal/switch_queue/)
wire [639:0] f_header;            // dut.header: the header the block would load now
wire [639:0] f_header_reg;        // dut.header_reg: the shift register
wire [3:0]   f_header_word;       // dut.header_word_reg
wire [10:0]  f_words_left;        // dut.words_left_reg
wire [11:0]  f_slots_reg;         // dut.slots_reg
wire [11:0]  f_events_reg;        // dut.events_reg
wire [1:0]   f_state;             // dut.state_reg

// The reset the proof starts from (common/formal_reset.sv)
wire f_past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(f_past_valid));

// ---------------------------------------------------------------------------------------------
// Environment

always @(*) begin
    if (s_descriptor_valid) assume (s_descriptor_slots >= 12'd1 && s_descriptor_slots <= 12'd4093);
end

always @(posedge clk) begin
    if (f_past_valid && !$past(rst) && $past(s_ring_valid && !s_ring_ready))
        assume (s_ring_valid && s_ring_data == $past(s_ring_data));
end

// ---------------------------------------------------------------------------------------------
// Model

wire handshake = m_axis_tvalid && m_axis_tready;
wire desc_take = s_descriptor_valid && s_descriptor_ready;

reg          f_pending = 1'b0;    // a descriptor taken whose frame has not ended
reg          f_prepare = 1'b0;    // the clock after it was taken: the header is loaded
reg  [11:0]  f_beats = 12'd0;     // beats of the frame already taken
reg  [639:0] f_snapshot = 640'd0; // the header loaded for the frame

reg  [31:0]  m_seq = 32'd0;       // the descriptor and configuration of the frame
reg  [11:0]  m_slots = 12'd0;
reg  [11:0]  m_events = 12'd0;
reg          m_missed = 1'b0;
reg  [2:0]   m_resolution = 3'd0;
reg  [31:0]  m_snapshot = 32'd0;
reg  [7:0]   m_ports = 8'd0;
reg  [47:0]  m_destination_mac = 48'd0;
reg  [47:0]  m_source_mac = 48'd0;
reg  [31:0]  m_source_ip = 32'd0;
reg  [31:0]  m_destination_ip = 32'd0;
reg  [7:0]   m_tos = 8'd0;
reg  [7:0]   m_ttl = 8'd0;
reg  [15:0]  m_udp_source_port = 16'd0;
reg  [15:0]  m_udp_destination_port = 16'd0;

reg  [63:0]  f_packets = 64'd0;   // status counters as docs/evcap-registers say
reg  [63:0]  f_events = 64'd0;

// data beats of the frame: ceil(slots / 2); the frame's last beat is 10 + that - 1
wire [11:0] data_words = {1'b0, m_slots[11:1]} + {11'd0, m_slots[0]};
wire in_header = f_pending && !f_prepare && f_beats < 12'd10;
wire in_data = f_pending && !f_prepare && f_beats >= 12'd10;
wire last_beat = in_data && f_beats == 12'd9 + data_words;
wire frame_done = last_beat && handshake;

always @(posedge clk) begin
    f_prepare <= desc_take;
    if (desc_take) begin
        f_pending <= 1'b1;
        f_beats <= 12'd0;
        m_seq <= s_descriptor_seq;
        m_slots <= s_descriptor_slots;
        m_events <= s_descriptor_events;
        m_missed <= s_descriptor_missed;
        m_resolution <= s_descriptor_resolution;
        m_snapshot <= s_descriptor_snapshot;
        m_ports <= config_output_ports;
        m_destination_mac <= config_destination_mac;
        m_source_mac <= config_source_mac;
        m_source_ip <= config_source_ip;
        m_destination_ip <= config_destination_ip;
        m_tos <= config_tos;
        m_ttl <= config_ttl;
        m_udp_source_port <= config_udp_source_port;
        m_udp_destination_port <= config_udp_destination_port;
    end
    if (f_prepare) f_snapshot <= f_header;
    if (handshake) f_beats <= f_beats + 12'd1;
    if (frame_done) f_pending <= 1'b0;
    f_packets <= (command_clear_packets_sent ? 64'd0 : f_packets) + (frame_done ? 64'd1 : 64'd0);
    f_events <= (command_clear_events_sent ? 64'd0 : f_events)
        + (frame_done ? {52'd0, m_events} : 64'd0);
    if (rst) begin
        f_pending <= 1'b0;
        f_prepare <= 1'b0;
        f_packets <= 64'd0;
        f_events <= 64'd0;
    end
end

// Header beat k: bytes 8k..8k+7 of the header, byte 8k (bits 639-64k..632-64k) in tdata[7:0].
// (Constant part selects, one per k: z3 proves shifts by a variable 64 * k far more slowly.)
function [63:0] header_beat_of;
    input [639:0] header;
    input [3:0]   k;
    integer i, b;
    begin
        header_beat_of = 64'd0;
        for (i = 0; i < 10; i = i + 1) begin
            if (k == i) begin
                for (b = 0; b < 8; b = b + 1) header_beat_of[8*b +: 8] = header[639-64*i-8*b -: 8];
            end
        end
    end
endfunction

// The shift register after k header beats: the header moved up by k words, zeros below
function shifted_by;
    input [639:0] register;
    input [639:0] header;
    input [3:0]   k;
    integer i;
    begin
        shifted_by = 1'b0;
        for (i = 0; i < 10; i = i + 1) begin
            if (k == i) shifted_by = register == (header << (64 * i));
        end
    end
endfunction

function [31:0] big_endian;
    input [31:0] value;
    big_endian = {value[7:0], value[15:8], value[23:16], value[31:24]};
endfunction

// The header, field by field, as the block's header comment draws it (the checksum apart)
wire [15:0] ip_length = 16'd66 + {2'b00, m_slots, 2'b00};
wire [255:0] queue_sizes = {
    28'd0, m_snapshot[3:0], 28'd0, m_snapshot[7:4], 28'd0, m_snapshot[11:8],
    28'd0, m_snapshot[15:12], 28'd0, m_snapshot[19:16], 28'd0, m_snapshot[23:20],
    28'd0, m_snapshot[27:24], 28'd0, m_snapshot[31:28]
};
wire [639:0] expected_header = {
    m_destination_mac, m_source_mac, 16'h0800,
    8'h45, m_tos, ip_length, m_seq[15:0], 16'h4000, m_ttl, 8'd17, 16'h0000,
    m_source_ip, m_destination_ip,
    m_udp_source_port, m_udp_destination_port, ip_length - 16'd20, 16'h0000,
    m_missed, m_resolution, 4'd2, 8'd3, m_seq,
    queue_sizes
};
// every bit but the checksum's (bytes 24..25)
wire [639:0] checksum_mask = ~({16'hffff, 624'd0} >> (8*24));

// ---------------------------------------------------------------------------------------------
// Checksum: RFC 1071 over the IPv4 header (bytes 14..33, byte 14 in bits 159:152)

function [19:0] sum_others;
    input [639:0] header;
    reg [159:0] ip;
    begin
        ip = header[639-8*14 -: 160];
        // ip[79:64], bytes 24..25, is the checksum field: left out
        sum_others = {4'd0, ip[159:144]} + {4'd0, ip[143:128]} + {4'd0, ip[127:112]}
            + {4'd0, ip[111:96]} + {4'd0, ip[95:80]}
            + {4'd0, ip[63:48]} + {4'd0, ip[47:32]} + {4'd0, ip[31:16]} + {4'd0, ip[15:0]};
    end
endfunction

wire [19:0] header_sum = sum_others(f_header);
wire [15:0] header_folded;
wire        header_fold_complete;
ipv4_fold fold (
    .sum({1'b0, header_sum}),
    .folded(header_folded),
    .complete(header_fold_complete)
);

// for a cover: a header whose sum needs RFC 1071's second fold (the first one carries)
wire [16:0] header_first_fold = {1'b0, header_sum[15:0]} + {13'd0, header_sum[19:16]};

// ---------------------------------------------------------------------------------------------
// Properties

localparam [1:0] STATE_IDLE = 2'd0, STATE_PREPARE = 2'd1, STATE_HEADER = 2'd2, STATE_DATA = 2'd3;
wire [1:0] model_state = !f_pending ? STATE_IDLE : f_prepare ? STATE_PREPARE
                       : in_header ? STATE_HEADER : STATE_DATA;
wire [11:0] data_beats_taken = f_beats - 12'd10;

always @(*) begin
    if (f_past_valid && !rst) begin
        descriptor_ready: assert (s_descriptor_ready == !f_pending);
        idle_quiet: assert (f_pending && !f_prepare || !m_axis_tvalid);
        header_beats_valid: assert (!in_header || m_axis_tvalid);
        header_beat: assert (!in_header
                             || m_axis_tdata == header_beat_of(f_snapshot, f_beats[3:0]));
        data_beat: assert (!in_data
                           || (m_axis_tvalid == s_ring_valid
                               && m_axis_tdata == {big_endian(s_ring_data[63:32]),
                                                   big_endian(s_ring_data[31:0])}));
        ring_popped_by_data_beat: assert (s_ring_ready == (in_data && m_axis_tready));
        tlast_at_length: assert (!m_axis_tvalid || m_axis_tlast == last_beat);
        keep: assert (!m_axis_tvalid
                      || m_axis_tkeep == ((last_beat && m_slots[0]) ? 8'h0f : 8'hff));
        tuser_ports: assert (!f_pending || m_axis_tuser == m_ports);
        header_fields: assert (!f_pending || f_prepare
                               || (f_snapshot & checksum_mask) == expected_header);
        packets_counted: assert (status_packets_sent == f_packets);
        events_counted: assert (status_events_sent == f_events);
    end
    checksum_field: assert (f_header[639-8*24 -: 16] == ~header_folded);
end

always @(posedge clk) begin
    if (f_past_valid && !$past(rst) && !rst && $past(m_axis_tvalid && !m_axis_tready))
        beat_held: assert (m_axis_tvalid && m_axis_tdata == $past(m_axis_tdata)
                           && m_axis_tkeep == $past(m_axis_tkeep)
                           && m_axis_tlast == $past(m_axis_tlast)
                           && m_axis_tuser == $past(m_axis_tuser));
end

// Invariants for the induction
always @(*) begin
    if (f_past_valid && !rst) begin
        inv_state: assert (f_state == model_state);
        inv_bounds: assert (!f_pending || (m_slots >= 12'd1 && m_slots <= 12'd4093
                                           && f_beats <= 12'd9 + data_words));
        inv_descriptor: assert (!f_pending || f_prepare
                                || (f_slots_reg == m_slots && f_events_reg == m_events));
        inv_header_word: assert (!in_header || f_header_word == f_beats[3:0]);
        inv_header_register: assert (!in_header
                                     || shifted_by(f_header_reg, f_snapshot, f_beats[3:0]));
        inv_words_left: assert (!in_data
                                || {1'b0, f_words_left} == data_words - data_beats_taken);
    end
end

// ---------------------------------------------------------------------------------------------
// Reachability

reg f_stalled = 1'b0;   // a beat of the frame was held back by tready
always @(posedge clk) begin
    if (desc_take) f_stalled <= 1'b0;
    if (m_axis_tvalid && !m_axis_tready) f_stalled <= 1'b1;
    if (rst) f_stalled <= 1'b0;
end

always @(*) begin
    if (f_past_valid && !rst) begin
        cover_odd_frame: cover (frame_done && m_axis_tkeep == 8'h0f);
        cover_even_frame_stalled: cover (frame_done && m_axis_tkeep == 8'hff && f_stalled);
        cover_second_frame: cover (frame_done && f_packets == 64'd1);
        cover_second_fold: cover (f_prepare && header_first_fold[16]);
    end
end

endmodule

`default_nettype wire
