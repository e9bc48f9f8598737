/*
 * evcap_packet_output: sends each closed stat packet as one AXI4-Stream frame.
 *
 * For every descriptor it latches the header registers, computes the IPv4 header checksum,
 * sends the 80 header bytes (10 words), then the packet's event words from the ring. The
 * output-port mask rides on tuser for the whole frame. Byte k of a word is tdata[8k+7:8k],
 * byte 0 first on the wire; fields are big-endian.
 *
 *  byte  0                   4                   8
 *       +-------------------------------------------------------------+
 *     0 | destination MAC                 | source MAC                |
 *       +-------------------------------------------------------------+
 *    12 | 0x0800 | 0x45 | TOS | total length | IP id (seq[15:0]) | 0x4000 (DF)
 *    22 | TTL | 17 | header checksum | source IP | destination IP   |
 *    34 | UDP src port | UDP dst port | UDP length | 0 (no checksum) |
 *    42 | M,C,ver=2 | 3 | sequence number (32) | queue size 0 (32)  |
 *    52 | queue sizes 1..7 (32 bits each)                           |
 *    80 | event slots, 32 bits each, two per word                   |
 *       +-------------------------------------------------------------+
 *
 * IP total length = 66 + 4 * slots; UDP length = IP total length - 20.
 * Clock-by-clock rules: docs/evcap-architecture.md, "Packet output".
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module evcap_packet_output #(
    // Width of each queue's occupancy, in 64-bit words (zero-extended to 32 bits)
    parameter QUEUE_SIZE_WIDTH = 20
) (
    input  wire                          clk,
    input  wire                          rst,

    // Descriptor FIFO read side
    input  wire [31:0]                   s_descriptor_seq,
    input  wire [11:0]                   s_descriptor_slots,
    input  wire [11:0]                   s_descriptor_events,
    input  wire                          s_descriptor_missed,
    input  wire [2:0]                    s_descriptor_resolution,
    input  wire [8*QUEUE_SIZE_WIDTH-1:0] s_descriptor_snapshot,
    input  wire                          s_descriptor_valid,
    output wire                          s_descriptor_ready,

    // Packet ring read side
    input  wire [63:0]                   s_ring_data,
    input  wire                          s_ring_valid,
    output wire                          s_ring_ready,

    // Stat packets; tuser = output port mask
    output wire [63:0]                   m_axis_tdata,
    output wire [7:0]                    m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire [7:0]                    m_axis_tuser,

    // Header configuration
    input  wire [7:0]                    config_output_ports,
    input  wire [47:0]                   config_destination_mac,
    input  wire [47:0]                   config_source_mac,
    input  wire [31:0]                   config_source_ip,
    input  wire [31:0]                   config_destination_ip,
    input  wire [7:0]                    config_tos,
    input  wire [7:0]                    config_ttl,
    input  wire [15:0]                   config_udp_source_port,
    input  wire [15:0]                   config_udp_destination_port,

    // Counters
    input  wire                          command_clear_events_sent,
    input  wire                          command_clear_packets_sent,
    output wire [63:0]                   status_events_sent,
    output wire [63:0]                   status_packets_sent
);

localparam [1:0]
    STATE_IDLE = 2'd0,
    STATE_PREPARE = 2'd1,
    STATE_HEADER = 2'd2,
    STATE_DATA = 2'd3;

reg [1:0] state_reg = STATE_IDLE;

// Latched for the packet being sent
reg [31:0]                   seq_reg = 32'd0;
reg [11:0]                   slots_reg = 12'd0;
reg [11:0]                   events_reg = 12'd0;
reg                          missed_reg = 1'b0;
reg [2:0]                    resolution_reg = 3'd0;
reg [8*QUEUE_SIZE_WIDTH-1:0] snapshot_reg = {8*QUEUE_SIZE_WIDTH{1'b0}};
reg [7:0]                    output_ports_reg = 8'd0;
reg [47:0]                   destination_mac_reg = 48'd0;
reg [47:0]                   source_mac_reg = 48'd0;
reg [31:0]                   source_ip_reg = 32'd0;
reg [31:0]                   destination_ip_reg = 32'd0;
reg [7:0]                    tos_reg = 8'd0;
reg [7:0]                    ttl_reg = 8'd0;
reg [15:0]                   udp_source_port_reg = 16'd0;
reg [15:0]                   udp_destination_port_reg = 16'd0;

// Header bytes in frame order, byte 0 in bits 639:632; shifted out a word at a time
reg [639:0] header_reg = 640'd0;
reg [3:0]   header_word_reg = 4'd0;
reg [10:0]  words_left_reg = 11'd0;

reg [63:0] events_sent_reg = 64'd0;
reg [63:0] packets_sent_reg = 64'd0;

wire [15:0] ip_length = 16'd66 + {2'b00, slots_reg, 2'b00};
wire [15:0] udp_length = ip_length - 16'd20;

// IPv4 header checksum over the latched fields (checksum field taken as 0)
wire [19:0] checksum_sum = {4'd0, 8'h45, tos_reg} + {4'd0, ip_length} + {4'd0, seq_reg[15:0]}
    + 20'h04000 + {4'd0, ttl_reg, 8'd17}
    + {4'd0, source_ip_reg[31:16]} + {4'd0, source_ip_reg[15:0]}
    + {4'd0, destination_ip_reg[31:16]} + {4'd0, destination_ip_reg[15:0]};
wire [16:0] checksum_fold1 = {1'b0, checksum_sum[15:0]} + {13'd0, checksum_sum[19:16]};
wire [15:0] checksum_fold2 = checksum_fold1[15:0] + {15'd0, checksum_fold1[16]};
wire [15:0] checksum = ~checksum_fold2;

// Queue sizes, 32 bits each, zero-extended
reg [255:0] queue_sizes;
integer q;
always @* begin
    queue_sizes = 256'd0;
    for (q = 0; q < 8; q = q + 1) begin
        queue_sizes[255-32*q -: 32] = {{32-QUEUE_SIZE_WIDTH{1'b0}}, snapshot_reg[QUEUE_SIZE_WIDTH*q +: QUEUE_SIZE_WIDTH]};
    end
end

wire [639:0] header = {
    destination_mac_reg, source_mac_reg, 16'h0800,
    8'h45, tos_reg, ip_length, seq_reg[15:0], 16'h4000, ttl_reg, 8'd17, checksum,
    source_ip_reg, destination_ip_reg,
    udp_source_port_reg, udp_destination_port_reg, udp_length, 16'h0000,
    missed_reg, resolution_reg, 4'd2, 8'd3, seq_reg,
    queue_sizes
};

// Network order on the stream: the first byte goes into tdata[7:0]
function [63:0] byte_reverse64;
    input [63:0] value;
    integer i;
    begin
        for (i = 0; i < 8; i = i + 1) begin
            byte_reverse64[8*i +: 8] = value[63-8*i -: 8];
        end
    end
endfunction

// Ring words hold {second slot, first slot}; each slot goes out most significant byte first
function [31:0] byte_reverse32;
    input [31:0] value;
    begin
        byte_reverse32 = {value[7:0], value[15:8], value[23:16], value[31:24]};
    end
endfunction

wire in_data = state_reg == STATE_DATA;
wire last_word = words_left_reg == 11'd1;
wire handshake = m_axis_tvalid && m_axis_tready;

assign s_descriptor_ready = state_reg == STATE_IDLE;
assign s_ring_ready = in_data && m_axis_tready;

assign m_axis_tdata = in_data
    ? {byte_reverse32(s_ring_data[63:32]), byte_reverse32(s_ring_data[31:0])}
    : byte_reverse64(header_reg[639:576]);
assign m_axis_tvalid = state_reg == STATE_HEADER || (in_data && s_ring_valid);
assign m_axis_tlast = in_data && last_word;
assign m_axis_tkeep = (in_data && last_word && slots_reg[0]) ? 8'h0f : 8'hff;
assign m_axis_tuser = output_ports_reg;

assign status_events_sent = events_sent_reg;
assign status_packets_sent = packets_sent_reg;

wire packet_done = in_data && handshake && last_word;

always @(posedge clk) begin
    case (state_reg)
        STATE_IDLE: begin
            if (s_descriptor_valid) begin
                seq_reg <= s_descriptor_seq;
                slots_reg <= s_descriptor_slots;
                events_reg <= s_descriptor_events;
                missed_reg <= s_descriptor_missed;
                resolution_reg <= s_descriptor_resolution;
                snapshot_reg <= s_descriptor_snapshot;
                output_ports_reg <= config_output_ports;
                destination_mac_reg <= config_destination_mac;
                source_mac_reg <= config_source_mac;
                source_ip_reg <= config_source_ip;
                destination_ip_reg <= config_destination_ip;
                tos_reg <= config_tos;
                ttl_reg <= config_ttl;
                udp_source_port_reg <= config_udp_source_port;
                udp_destination_port_reg <= config_udp_destination_port;
                state_reg <= STATE_PREPARE;
            end
        end
        STATE_PREPARE: begin
            header_reg <= header;
            header_word_reg <= 4'd0;
            state_reg <= STATE_HEADER;
        end
        STATE_HEADER: begin
            if (m_axis_tready) begin
                header_reg <= header_reg << 64;
                if (header_word_reg == 4'd9) begin
                    words_left_reg <= (slots_reg[11:1] + {10'd0, slots_reg[0]});
                    state_reg <= STATE_DATA;
                end else begin
                    header_word_reg <= header_word_reg + 4'd1;
                end
            end
        end
        default: begin
            if (handshake) begin
                words_left_reg <= words_left_reg - 11'd1;
                if (last_word) begin
                    state_reg <= STATE_IDLE;
                end
            end
        end
    endcase

    events_sent_reg <= (command_clear_events_sent ? 64'd0 : events_sent_reg)
        + (packet_done ? {52'd0, events_reg} : 64'd0);
    packets_sent_reg <= (command_clear_packets_sent ? 64'd0 : packets_sent_reg)
        + (packet_done ? 64'd1 : 64'd0);

    if (rst) begin
        state_reg <= STATE_IDLE;
        output_ports_reg <= 8'd0;
        events_sent_reg <= 64'd0;
        packets_sent_reg <= 64'd0;
    end
end

endmodule

`resetall
