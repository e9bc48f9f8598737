// SPDX-License-Identifier: BSD-3-Clause
/*
 * evcap_packet_output_formal (BOUNDED, see proof.toml): what evcap_packet_output promises of
 * the frames on m_axis (issue 18: "every frame on its output stream is well formed, carries a
 * valid IPv4 header checksum ... and its sequence number").
 *
 * Checked for the first frame after reset (15 clocks), for every input, by a checker that only
 * watches the stream and the descriptor handshake:
 *   - AXI4-Stream: a beat, once presented, stays presented and unchanged until taken;
 *   - tkeep is 0xff on every beat but the last, and 0xff or 0x0f (bytes 0..3) on the last;
 *   - the frame's byte count is 14 + the IPv4 total length carried in its own bytes 16..17,
 *     so there is exactly one tlast, where the length says; no frame is shorter than its
 *     80-byte header plus one data word;
 *   - NOT the IPv4 checksum: z3 4.8.12 does not decide, in minutes, that the ones'-complement
 *     sum of the header words as they pass is 0xffff (the sum of 9 free 16-bit fields in stream
 *     order against the block's adder tree, as a SAT problem; not even as a combinational
 *     check alone);
 *   - the constant fields (EtherType 0x0800, 0x45, DF, protocol 17, UDP length = total - 20,
 *     format version 2, header length 3);
 *   - the sequence number (bytes 44..47 and IP identification) and the M flag are those of the
 *     descriptor taken for the frame; one frame per descriptor, in order; tuser is constant
 *     within a frame.
 *
 * Assumed:
 *   - reset in the first clock (free afterwards: the checker restarts with the block);
 *   - the packet ring behaves as evcap_fifo: once s_ring_valid is shown and not taken it stays,
 *     with the same data (the FIFO's output register only changes on m_ready);
 *   - a descriptor holds 2 or 3 slots (a packet opens with a 2-slot timestamp; 3 gives the
 *     odd case, tkeep 0x0f): the bound that keeps the bounded check to minutes.
 * Everything else is free: ring data, descriptor fields, header configuration, tready.
 *
 * How: the checker counts the beats of the frame, samples each beat taken and checks it in
 * the next clock. Induction was tried with invariants tying the header shift register to the
 * latched fields; z3 4.8.12 stalls on them (the checksum logic in the 640-bit header).
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

// A small queue-size width: the snapshot is only copied into the header
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

reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;

// ---------------------------------------------------------------------------------------------
// Environment

always @(*) begin
    if (!f_past_valid) assume (rst);
    // a timestamp first (2 slots); at most 3 slots (1 or 2 data words, odd and even), so
    // that the bounded check, all z3 can do in minutes, sees a whole frame (bounded_because)
    if (s_descriptor_valid) assume (s_descriptor_slots >= 12'd2 && s_descriptor_slots <= 12'd3);
end

always @(posedge clk) begin
    // the ring is an evcap_fifo: its output holds until popped
    if (f_past_valid && !$past(rst) && $past(s_ring_valid && !s_ring_ready))
        assume (s_ring_valid && s_ring_data == $past(s_ring_data));
end

// ---------------------------------------------------------------------------------------------
// Stream checker

wire handshake = m_axis_tvalid && m_axis_tready;
wire desc_take = s_descriptor_valid && s_descriptor_ready;

reg  [10:0] f_beats = 11'd0;      // beats of the current frame already taken
reg  [15:0] f_ip_len = 16'd0;     // IPv4 total length seen in bytes 16..17
reg  [31:0] f_desc_seq = 32'd0;   // the descriptor taken for the frame
reg         f_desc_missed = 1'b0;
reg         f_pending = 1'b0;     // a descriptor taken whose frame has not ended
reg  [7:0]  f_tuser = 8'd0;       // tuser of the frame's first beat

wire [63:0] t = m_axis_tdata;
// the 16-bit big-endian word at bytes 0, 1 of the beat (bytes 16, 17 of the frame in beat 2)
wire [15:0] w0 = {t[7:0], t[15:8]};

// bytes of the frame up to and including this beat
wire [15:0] bytes_now = {2'b00, f_beats, 3'b000} + 16'd8 - ((m_axis_tkeep == 8'h0f) ? 16'd4 : 16'd0);

always @(posedge clk) begin
    if (desc_take) begin
        f_desc_seq <= s_descriptor_seq;
        f_desc_missed <= s_descriptor_missed;
        f_pending <= 1'b1;
    end
    if (handshake) begin
        f_beats <= m_axis_tlast ? 11'd0 : f_beats + 11'd1;
        if (f_beats == 11'd0) f_tuser <= m_axis_tuser;
        if (f_beats == 11'd2) f_ip_len <= w0;
        if (m_axis_tlast) begin
            f_pending <= 1'b0;
        end
    end
    if (rst) begin
        f_beats <= 11'd0;
        f_pending <= 1'b0;
    end
end

// Each beat taken is checked in the next clock, from a sample: z3 4.8.12 stalls simplifying
// the assertions when they all reach into the combinational tdata mux of the block, so the
// checks read registers instead.
reg         c_beat = 1'b0;        // a beat was taken in the previous clock
reg  [63:0] c_t = 64'd0;          // its tdata, tkeep, tlast
reg  [7:0]  c_keep = 8'd0;
reg         c_last = 1'b0;
reg  [10:0] c_beats = 11'd0;      // its index in the frame
reg  [15:0] c_bytes = 16'd0;      // bytes of the frame up to and including it
reg  [15:0] c_len = 16'd0;        // IPv4 total length seen before it
reg         c_pending = 1'b0;     // a descriptor had been taken for the frame
reg         c_tuser_same = 1'b0;  // its tuser was that of the frame's first beat
reg  [31:0] c_seq = 32'd0;        // the descriptor's sequence number and M flag
reg         c_missed = 1'b0;

always @(posedge clk) begin
    c_beat <= f_past_valid && !rst && handshake;
    c_t <= m_axis_tdata;
    c_keep <= m_axis_tkeep;
    c_last <= m_axis_tlast;
    c_beats <= f_beats;
    c_bytes <= bytes_now;
    c_len <= f_ip_len;
    c_pending <= f_pending;
    c_tuser_same <= f_beats == 11'd0 || m_axis_tuser == f_tuser;
    c_seq <= f_desc_seq;
    c_missed <= f_desc_missed;
end

wire [15:0] c_w0 = {c_t[7:0], c_t[15:8]};
wire [15:0] c_w2 = {c_t[23:16], c_t[31:24]};
wire [15:0] c_w4 = {c_t[39:32], c_t[47:40]};
wire [15:0] c_w6 = {c_t[55:48], c_t[63:56]};

always @(*) begin
    if (c_beat) begin
        keep_full_but_last: assert (c_last || c_keep == 8'hff);
        keep_contiguous: assert (c_keep == 8'hff || c_keep == 8'h0f);
        frame_after_descriptor: assert (c_pending);
        frame_min_length: assert (!c_last || c_beats >= 11'd10);
        tuser_constant: assert (c_tuser_same);
        length_at_tlast: assert (!c_last || c_bytes == c_len + 16'd14);
        no_tlast_missing: assert (c_last || c_beats < 11'd3 || c_bytes < c_len + 16'd14);
        // bytes 12..14: EtherType 0x0800, version 4 and IHL 5
        ethertype_ipv4: assert (c_beats != 11'd1
                                || (c_t[39:32] == 8'h08 && c_t[47:40] == 8'h00 && c_t[55:48] == 8'h45));
        // bytes 18..23: identification = seq[15:0], DF, protocol 17
        ip_id_flags_proto: assert (c_beats != 11'd2
                                   || (c_w2 == c_seq[15:0] && c_w4 == 16'h4000 && c_t[63:56] == 8'd17));
        // bytes 38..39: UDP length = total length - 20
        udp_length: assert (c_beats != 11'd4 || c_w6 == c_len - 16'd20);
        // bytes 40..41: UDP checksum 0; 42: M, resolution, version 2; 43: 3; 44..47: seq
        seq_and_m_flag: assert (c_beats != 11'd5
                                || (c_w0 == 16'h0000 && c_t[23] == c_missed && c_t[19:16] == 4'd2
                                    && c_t[31:24] == 8'd3
                                    && {c_t[39:32], c_t[47:40], c_t[55:48], c_t[63:56]} == c_seq));
    end
end

always @(posedge clk) begin
    if (f_past_valid && !$past(rst) && !rst && $past(m_axis_tvalid && !m_axis_tready))
        beat_held: assert (m_axis_tvalid && m_axis_tdata == $past(m_axis_tdata)
                           && m_axis_tkeep == $past(m_axis_tkeep)
                           && m_axis_tlast == $past(m_axis_tlast)
                           && m_axis_tuser == $past(m_axis_tuser));
end

// ---------------------------------------------------------------------------------------------
// Reachability

// (from the checker's samples, like the assertions)
reg c_stalled = 1'b0;   // the frame sampled last had a beat held back by tready
always @(posedge clk) begin
    if (handshake && f_beats == 11'd0) c_stalled <= 1'b0;
    if (m_axis_tvalid && !m_axis_tready && f_beats != 11'd0) c_stalled <= 1'b1;
    if (rst) c_stalled <= 1'b0;
end

always @(*) begin
    cover_odd_frame: cover (c_beat && c_last && c_keep == 8'h0f);
    cover_even_frame_stalled: cover (c_beat && c_last && c_keep == 8'hff && c_stalled);
end

endmodule

`default_nettype wire
