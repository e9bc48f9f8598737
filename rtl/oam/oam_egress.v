/*
 * oam_egress: writes the RX and TX stamps into the frames of one output port of the switch,
 * as oam_steer decided (docs/oam.md). It sits on the port's output stream after the
 * stat-packet multiplexer and changes bytes only; it adds no clock of latency and never
 * stalls the stream (s_axis_tready is m_axis_tready).
 *
 *   s_axis (switch output) --------------> rewrite bytes of words 2..6 ---> m_axis (MAC / DMA)
 *   s_axis_meta (the frame's, from the        ^               ^
 *   queue's stamp_meta_fifo)                  |               |
 *     rx_offset, rx_stamp --> + duration ---> RX field        |
 *     tx_offset, tx_stamp at the first word's handshake       |
 *                         --> + duration -------------------> TX field
 *
 * A field is 8 bytes at an even byte offset of at most 112 (oam_steer's are 16..80; the word
 * index saturates at 15, so a field reaching beyond byte 127 would be written again into every
 * later word): {seconds[31:0], nanoseconds[31:0]}, big-endian. The duration is added for last-bit stamps (the headroom PDU): the time from the frame's first
 * bit to the end of its FCS at the port's rate, (8 + max(length, 60) + 4) * byte_time ns,
 * where length is the frame's bytes in the stream (no FCS).
 *
 * The RX field is written on every port when the frame has an RX stamp and an RX offset
 * (frames for a CPU port, a responder's answers). The TX field only on a MAC port
 * (MAC_PORT = 1), and only while the port's engine for that kind of frame is enabled
 * (config_dm_enable, config_headroom_enable, config_isl_copy_field): the TX stamp is that of
 * the clock of the frame's first word's handshake, tx_stamp (stamp_tx's, corrected to the
 * first bit on the wire). Stat packets (s_axis_meta_valid 0) pass unchanged.
 *
 * OpenKilda's packets (engine ISL, docs/isl.md) are IPv4/UDP: whenever a stamp is written into
 * one, or its UDP destination port is changed, its UDP checksum (bytes 40, 41) is set to 0 (no
 * checksum, valid in IPv4), so that it is never stale. A reflected discovery
 * packet leaves a MAC port as a round-trip packet (UDP destination port, bytes 36 and 37,
 * 61232) and a CPU port with config_port_mac as its destination MAC (bytes 0..5).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module oam_egress #(
    // 1: a MAC port (TX stamps written), 0: a CPU port (RX stamps only)
    parameter MAC_PORT = 1
) (
    input  wire        clk,
    input  wire        rst,

    // The switch's output stream of this port
    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,
    input  wire        s_axis_tlast,
    // Metadata of the frame on s_axis (oam_steer's m_axis_meta as the queue kept it:
    // {length[13:0], engine[1:0], isl_group, tx_offset[6:0], rx_offset[6:0], rx_valid,
    // rx_stamp[61:0]}),
    // and whether it has any (0 for stat packets and frames without one)
    input  wire [93:0] s_axis_meta,
    input  wire        s_axis_meta_valid,

    // The stream with the stamps written
    output wire [63:0] m_axis_tdata,
    output wire [7:0]  m_axis_tkeep,
    output wire        m_axis_tvalid,
    input  wire        m_axis_tready,
    output wire        m_axis_tlast,

    // TX stamp of this clock ({seconds[31:0], nanoseconds[29:0]}, first bit on the wire)
    input  wire [61:0] tx_stamp,

    // Configuration of the port (of MAC port i for CPU port 4+i): nanoseconds per byte on the
    // wire, and whether the engines stamp frames leaving here
    input  wire [11:0] config_byte_time,
    input  wire        config_dm_enable,
    input  wire        config_headroom_enable,
    input  wire        config_isl_copy_field,
    // MAC address of the port (of MAC port i for CPU port 4+i): a reflected discovery
    // packet's destination on a CPU port
    input  wire [47:0] config_port_mac,

    // One-clock pulses in the clock of a frame's first word's handshake: it leaves with a TX
    // stamp, as a frame from a CPU port (stamped) or as a responder's answer (reply)
    output wire        dm_stamped,
    output wire        dm_reply_sent,
    output wire        headroom_stamped,
    output wire        headroom_reply_sent,
    output wire        isl_t0_stamped
);

localparam [1:0] ENGINE_DM = 2'd0;
localparam [1:0] ENGINE_HEADROOM = 2'd1;
localparam [1:0] ENGINE_ISL = 2'd2;
localparam [15:0] UDP_PORT_ROUND_TRIP = 16'd61232;

wire [13:0] length = s_axis_meta[93:80];
wire [1:0]  engine = s_axis_meta[79:78];
wire        isl_group = s_axis_meta[77];
wire [6:0]  tx_offset = s_axis_meta[76:70];
wire [6:0]  rx_offset = s_axis_meta[69:63];
wire        last_bit = engine == ENGINE_HEADROOM;
wire        rx_valid = s_axis_meta[62];
wire [61:0] rx_stamp = s_axis_meta[61:0];

reg         in_frame_reg = 1'b0;
reg  [3:0]  index_reg = 4'd0;        // word of the frame, saturating at 15
reg  [61:0] tx_first_reg = 62'd0;    // TX stamp of the frame's first word

wire handshake = s_axis_tvalid && m_axis_tready;
wire first_handshake = handshake && !in_frame_reg;

// What a field adds to its stamp: for a last-bit stamp, the time from the first bit to the end
// of the FCS (preamble and SFD, the frame padded to 60 bytes, the FCS), else 0
function [29:0] added_of;
    input        last;
    input [13:0] frame_length;
    input [11:0] byte_time;
    reg   [13:0] padded_length;
    reg   [14:0] wire_bytes;
    reg   [26:0] duration;
    begin
        padded_length = frame_length < 14'd60 ? 14'd60 : frame_length;
        wire_bytes = {1'b0, padded_length} + 15'd12;
        duration = wire_bytes * {3'd0, byte_time};
        added_of = last ? {3'd0, duration} : 30'd0;
    end
endfunction

// A stamp plus the duration as a field's 8 bytes, {seconds[31:0], 2'b00, nanoseconds[29:0]}:
// the duration is below 2^27 ns (16395 bytes of at most 4095 ns), so the nanoseconds carry
// into the seconds at most once (stamp_correct's arithmetic for a correction of at least 0). A
// function, called only for a frame with that field to write (below), rather than two
// stamp_correct instances: the same adders, but a cycle simulator (Verilator) evaluates them
// only for those frames instead of in every clock. So is the duration (added_of): as a wire,
// it and the RX field's sum with it were hoisted out of the branch into every clock of all 8
// ports by the simulator's dataflow optimisation.
function [63:0] stamp_field;
    input [61:0] stamp;
    input [29:0] correction;
    reg   [31:0] sum;
    reg          carry;
    begin
        sum = {2'b00, stamp[29:0]} + {2'b00, correction};
        carry = sum >= 32'd1000000000;
        // Below 2^30 either way: modulo 2^30 is exact
        stamp_field = {stamp[61:30] + {31'd0, carry}, 2'b00,
                       carry ? sum[29:0] - 30'd1000000000 : sum[29:0]};
    end
endfunction

reg tx_enabled;
always @* begin
    case (engine)
        ENGINE_DM:       tx_enabled = config_dm_enable;
        ENGINE_HEADROOM: tx_enabled = config_headroom_enable;
        ENGINE_ISL:      tx_enabled = config_isl_copy_field;
        default:         tx_enabled = 1'b0;
    endcase
end
wire write_rx = s_axis_meta_valid && rx_valid && rx_offset != 7'd0;
wire write_tx = MAC_PORT != 0 && s_axis_meta_valid && tx_offset != 7'd0 && tx_enabled;
wire reflected = s_axis_meta_valid && engine == ENGINE_ISL && isl_group;
wire clear_checksum = s_axis_meta_valid && engine == ENGINE_ISL &&
                      (write_rx || write_tx || (reflected && MAC_PORT != 0));

// Every field starts at an even byte (oam_steer), so the frame is rewritten in 16-bit lanes:
// lane l of word index_reg is frame bytes 2h, 2h + 1 with h = 4 * index_reg + l, and field
// lane d (0: the most significant) goes to h = offset / 2 + d
wire [5:0] rx_lane_offset = rx_offset[6:1];
wire [5:0] tx_lane_offset = tx_offset[6:1];

// Only a frame with a field to write or reflected is changed (clear_checksum implies one of
// these), and the fields are computed only for a frame with one: every other word passes
// without the branches below, which a cycle simulator (Verilator) then skips
wire rewrite = write_rx || write_tx || reflected;

reg [63:0] rewritten;
reg [63:0] rx_bytes;
reg [63:0] tx_bytes;
reg [29:0] added;
reg [5:0]  lane;
reg [5:0]  rx_distance;
reg [5:0]  tx_distance;
integer l;
always @* begin
    rewritten = s_axis_tdata;
    rx_bytes = 64'd0;
    tx_bytes = 64'd0;
    added = 30'd0;
    lane = 6'd0;
    rx_distance = 6'd0;
    tx_distance = 6'd0;
    if (rewrite) begin
        // OpenKilda's packets: the destination MAC (word 0), the UDP destination port (word 4,
        // lane 2) and checksum (word 5, lane 0)
        if (reflected && MAC_PORT == 0 && index_reg == 4'd0) begin
            rewritten[47:0] = {config_port_mac[7:0], config_port_mac[15:8],
                               config_port_mac[23:16], config_port_mac[31:24],
                               config_port_mac[39:32], config_port_mac[47:40]};
        end
        if (reflected && MAC_PORT != 0 && index_reg == 4'd4) begin
            rewritten[47:32] = {UDP_PORT_ROUND_TRIP[7:0], UDP_PORT_ROUND_TRIP[15:8]};
        end
        if (clear_checksum && index_reg == 4'd5) begin
            rewritten[15:0] = 16'd0;
        end
    end
    if (write_rx || write_tx) begin
        added = added_of(last_bit, length, config_byte_time);
        rx_bytes = stamp_field(rx_stamp, added);
        tx_bytes = stamp_field(tx_first_reg, added);
        for (l = 0; l < 4; l = l + 1) begin
            lane = {index_reg, 2'b00} + l[5:0];
            rx_distance = lane - rx_lane_offset;
            tx_distance = lane - tx_lane_offset;
            if (write_rx && lane >= rx_lane_offset && rx_distance < 6'd4) begin
                // Big-endian: the lane's first byte (bits 16l+7:16l) is the field's higher one
                rewritten[16*l +: 8] = rx_bytes[63 - 16*rx_distance[1:0] -: 8];
                rewritten[16*l+8 +: 8] = rx_bytes[55 - 16*rx_distance[1:0] -: 8];
            end
            if (write_tx && lane >= tx_lane_offset && tx_distance < 6'd4) begin
                rewritten[16*l +: 8] = tx_bytes[63 - 16*tx_distance[1:0] -: 8];
                rewritten[16*l+8 +: 8] = tx_bytes[55 - 16*tx_distance[1:0] -: 8];
            end
        end
    end
end

assign m_axis_tdata = rewritten;
assign m_axis_tkeep = s_axis_tkeep;
assign m_axis_tvalid = s_axis_tvalid;
assign m_axis_tlast = s_axis_tlast;
assign s_axis_tready = m_axis_tready;

// The TX pulses, looked at only in the clock of a first word's handshake with a TX field
wire reply = rx_offset != 7'd0;
reg  [4:0] pulses;   // {isl_t0_stamped, headroom_reply_sent, headroom_stamped, dm_reply_sent,
                     // dm_stamped}
always @* begin
    pulses = 5'd0;
    if (first_handshake && write_tx) begin
        pulses = {engine == ENGINE_ISL, engine == ENGINE_HEADROOM && reply,
                  engine == ENGINE_HEADROOM && !reply, engine == ENGINE_DM && reply,
                  engine == ENGINE_DM && !reply};
    end
end
assign {isl_t0_stamped, headroom_reply_sent, headroom_stamped, dm_reply_sent, dm_stamped} = pulses;

always @(posedge clk) begin
    if (handshake) begin
        in_frame_reg <= !s_axis_tlast;
        if (s_axis_tlast) begin
            index_reg <= 4'd0;
        end else if (index_reg != 4'd15) begin
            index_reg <= index_reg + 4'd1;
        end
    end
    if (first_handshake) begin
        tx_first_reg <= tx_stamp;
    end

    if (rst) begin
        in_frame_reg <= 1'b0;
        index_reg <= 4'd0;
        tx_first_reg <= 62'd0;
    end
end

endmodule

`resetall
