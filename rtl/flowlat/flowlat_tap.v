/*
 * flowlat_tap: watches the frames leaving one MAC port and hands the flow-latency monitor one
 * record per IPv4 frame: its 5-tuple, its ports, its residence time and when it left
 * (docs/flowlat.md). It only observes the stream (no ready of its own, no latency added).
 *
 * Frame bytes: byte k is byte k%8 of word k/8 (bits 8(k%8)+7 : 8(k%8)). An untagged IPv4
 * frame without IP options:
 *
 *   word 1  bytes 12,13  EtherType 0x0800      word 3  bytes 26..29 source address
 *           byte  14     0x45 (version, IHL)           bytes 30,31  destination address (high)
 *   word 2  byte  23     protocol              word 4  bytes 32,33  destination address (low)
 *           bytes 20,21  flags | fragment offset       bytes 34..37 L4 source, destination ports
 *
 * The L4 ports are taken for TCP (6) and UDP (17) when the packet is not a later fragment
 * (fragment offset 0); 0 otherwise. The record leaves in the clock after word 4 is taken:
 *
 *   record = {occupancy[19:0], tx_stamp[61:0], residence[31:0], egress[1:0], ingress[2:0],
 *             dport[15:0], sport[15:0], protocol[7:0], dst_ip[31:0], src_ip[31:0]}   (223 bits)
 *
 * residence, tx_stamp, ingress and occupancy are sampled in the clock of the frame's first
 * word's handshake, as stamp_tx gives them. A frame gives no record, and is counted, when it
 * is shorter than 5 words or not IPv4 with IHL 5 (another EtherType, a VLAN tag, IP options):
 * not_ipv4; or when it has no RX stamp (from a CPU port: no residence time): no_stamp.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module flowlat_tap #(
    // The MAC port this tap watches (the record's egress port)
    parameter [1:0] PORT = 2'd0
) (
    input  wire         clk,
    input  wire         rst,

    // The port's output stream, observed (the handshake is the MAC's)
    input  wire [63:0]  tap_tdata,
    input  wire         tap_tvalid,
    input  wire         tap_tready,
    input  wire         tap_tlast,

    // Sideband, valid in the clock of a frame's first word's handshake: its residence time
    // (signed ns, stamp_tx), whether it has an RX stamp, its TX stamp ({seconds[31:0],
    // nanoseconds[29:0]}), the port it came in by and the occupancy of its queue
    input  wire [31:0]  residence,
    input  wire         rx_valid,
    input  wire [61:0]  tx_stamp,
    input  wire [2:0]   ingress,
    input  wire [19:0]  occupancy,

    // One record per monitored frame, a one-clock pulse
    output reg          record_valid = 1'b0,
    output reg  [222:0] record = 223'd0,

    // One-clock pulses: a frame that gave no record, and why
    output reg          not_ipv4 = 1'b0,
    output reg          no_stamp = 1'b0
);

wire beat = tap_tvalid && tap_tready;

reg        in_frame = 1'b0;  // a frame is open (its first word was taken)
reg  [2:0] word = 3'd0;      // index of the next word of the open frame, saturating at 5
reg        has_stamp = 1'b0;
reg [31:0] frame_residence = 32'd0;
reg [61:0] frame_tx_stamp = 62'd0;
reg  [2:0] frame_ingress = 3'd0;
reg [19:0] frame_occupancy = 20'd0;
reg [63:0] word1 = 64'd0, word2 = 64'd0, word3 = 64'd0;

function [7:0] byte_of;
    input [63:0] data;
    input [2:0]  index;
    byte_of = data[8*index +: 8];
endfunction

// Fields of words 1..3 and of word 4 (tap_tdata while it is taken), as functions called in the
// clock that takes word 4 (a simulator then evaluates them once a frame, not in every clock)
function ipv4_of;
    input [63:0] w1;
    ipv4_of = byte_of(w1, 4) == 8'h08 && byte_of(w1, 5) == 8'h00 && byte_of(w1, 6) == 8'h45;
endfunction

// {dport, sport, protocol, dst_ip, src_ip}
function [103:0] key_of;
    input [63:0] w2, w3, w4;
    reg   [7:0]  protocol;
    reg          first_fragment, has_ports;
    begin
        protocol = byte_of(w2, 7);
        // not a later fragment: fragment offset 0 (bits 12:0 of bytes 20, 21; the flags do not
        // matter)
        first_fragment = (byte_of(w2, 4) & 8'h1f) == 8'd0 && byte_of(w2, 5) == 8'd0;
        has_ports = (protocol == 8'd6 || protocol == 8'd17) && first_fragment;
        key_of = {has_ports ? {byte_of(w4, 4), byte_of(w4, 5)} : 16'd0,
                  has_ports ? {byte_of(w4, 2), byte_of(w4, 3)} : 16'd0,
                  protocol,
                  byte_of(w3, 6), byte_of(w3, 7), byte_of(w4, 0), byte_of(w4, 1),
                  byte_of(w3, 2), byte_of(w3, 3), byte_of(w3, 4), byte_of(w3, 5)};
    end
endfunction

always @(posedge clk) begin
    record_valid <= 1'b0;
    not_ipv4 <= 1'b0;
    no_stamp <= 1'b0;
    if (beat) begin
        if (in_frame) begin
            case (word)
                3'd1: word1 <= tap_tdata;
                3'd2: word2 <= tap_tdata;
                3'd3: word3 <= tap_tdata;
                3'd4: begin
                    if (!ipv4_of(word1)) begin
                        not_ipv4 <= 1'b1;
                    end else if (!has_stamp) begin
                        no_stamp <= 1'b1;
                    end else begin
                        record_valid <= 1'b1;
                        record <= {frame_occupancy, frame_tx_stamp, frame_residence, PORT,
                                   frame_ingress, key_of(word2, word3, tap_tdata)};
                    end
                end
                default: ;
            endcase
        end
        // a frame that ends before word 4 gives no record
        if (tap_tlast && (in_frame ? word < 3'd4 : 1'b1))
            not_ipv4 <= 1'b1;
        // (written after the reads above: a simulator then needs no copy of them per clock)
        if (!in_frame) begin
            // first word: the sideband belongs to this frame
            has_stamp <= rx_valid;
            frame_residence <= residence;
            frame_tx_stamp <= tx_stamp;
            frame_ingress <= ingress;
            frame_occupancy <= occupancy;
            word <= 3'd1;
        end else if (word != 3'd5) begin
            word <= word + 3'd1;
        end
        in_frame <= !tap_tlast;
    end
    if (rst) begin
        in_frame <= 1'b0;
        word <= 3'd0;
        record_valid <= 1'b0;
        not_ipv4 <= 1'b0;
        no_stamp <= 1'b0;
    end
end

endmodule

`resetall
