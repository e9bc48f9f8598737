// SPDX-License-Identifier: BSD-3-Clause
/*
 * evcap_checksum_formal: the IPv4 header checksum evcap_packet_output puts in every stat
 * packet (issue 18), one of two parts:
 *   - here (checksum_field): in every clock, the header the block loads into its shift
 *     register (dut.header, a function of the fields latched for the packet) has at bytes
 *     24..25 the complement of fold(S), S the sum of its other nine IPv4 header words
 *     (bytes 14..33 but 24..25) added as integers in header order (9 words < 2^20: the
 *     20-bit sum is exact), fold RFC 1071's end-around carry (tb/formal/ipv4_checksum/
 *     ipv4_fold.v, twice). Written from RFC 1071, not from the RTL's expression;
 *   - tb/formal/ipv4_checksum/ (the lemma): for every S <= 9 * 0xffff, S + ~fold(S) folds to
 *     0xffff, two folds being complete.
 * Together: a receiver adds the ten words of that header as integers, in any order (integer
 * addition is associative and commutative), which gives S + checksum, and folds the carries
 * back in until none is left: 0xffff, so the checksum verifies.
 * NOT proved: that the frame's bytes 14..33 are this header as loaded (the shift register's
 * transport). Checked against the frame itself, even as plain equality of the 160 bits, the
 * bounded evcap_packet_output proof ran past 600 s with z3 4.8.12; the simulation tests check
 * every stat packet's checksum on the wire (tshark, the decoder).
 *
 * How: k-induction, k = 1. The property is combinational in the latched fields, so it holds
 * in every state (the induction's first clock is any state); every frame's header is covered,
 * not only the first. Nothing is assumed but reset in the first clock; every input is free.
 * (The direct statement, "the ones'-complement sum of the ten words read off the frame is
 * 0xffff", is beyond z3 4.8.12 over the 112 free header bits. Split in two, each part takes
 * under a second.)
 */

`default_nettype none

module evcap_checksum_formal (
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

reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;
always @(*) if (!f_past_valid) assume (rst);

wire [639:0] f_header;            // dut.header (proof.toml links)
wire [1:0]   f_state;             // dut.state_reg
// A linked wire is used only as an operand (see tb/formal/switch_queue/).

// the IPv4 header, bytes 14..33, byte 14 in bits 159:152; word i in bits 159-16i -: 16
wire [159:0] ip = f_header[639-8*14 -: 160];
wire [19:0] sum_others = {4'd0, ip[159:144]} + {4'd0, ip[143:128]} + {4'd0, ip[127:112]}
    + {4'd0, ip[111:96]} + {4'd0, ip[95:80]}
    /* ip[79:64], bytes 24..25, is the checksum field: left out */
    + {4'd0, ip[63:48]} + {4'd0, ip[47:32]} + {4'd0, ip[31:16]} + {4'd0, ip[15:0]};
wire [15:0] sum_folded;
wire        sum_complete;
ipv4_fold fold (
    .sum({1'b0, sum_others}),
    .folded(sum_folded),
    .complete(sum_complete)
);

always @(*) begin
    checksum_field: assert (ip[79:64] == ~sum_folded);
end

// a header is loaded (PREPARE), and one whose sum needs the second fold
wire [16:0] fold1 = {1'b0, sum_others[15:0]} + {13'd0, sum_others[19:16]};
always @(*) begin
    cover_header_loaded: cover (f_past_valid && !rst && f_state == 2'd1);
    cover_second_fold: cover (f_past_valid && !rst && f_state == 2'd1 && fold1[16]);
end

endmodule

`default_nettype wire
