/*
 * mac_rx: the receive MAC of a 1 Gb/s Ethernet port, in the PHY's receive clock domain: GMII
 * bytes in (from mac_rgmii_rx), the frame's bytes out without preamble, SFD and FCS, and at its
 * end whether it is good; one pulse per frame on exactly one of the counters.
 *
 *   gmii_rx_dv  __/~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\______
 *   gmii_rxd      55 55 .. 55 D5 b0 b1 b2 b3 b4 ... bN-1 F0 F1 F2 F3
 *                 preamble    SFD frame bytes            FCS
 *   frame_start                 ^  (the clock after the SFD was on gmii_rxd)
 *   byte_valid                           b0 ... (each byte when the 4 after it have come)
 *   frame_end, frame_good                                   ^ (the clock after gmii_rx_dv fell)
 *
 *        +------+  dv, 55   +----------+  D5   +-------+  !dv   +------+
 *        | IDLE | --------> | PREAMBLE | ----> | FRAME | -----> | IDLE | count the outcome
 *        +------+           +----------+       +-------+        +------+
 *            | dv, not 55        | not 55/D5   CRC of every byte; the last 4 bytes held back
 *            v                   v             (so the FCS never leaves); length counted
 *        +---------+  !dv: preamble_error (rx_error if gmii_rx_er came with gmii_rx_dv)
 *        | DISCARD | -> IDLE
 *        +---------+
 *
 * Preamble: any number (>= 1) of 0x55 bytes, then the SFD 0xD5. 802.3 sends 7, but a PHY may
 * deliver fewer (clause 35 lets the receive path lose preamble): any length from 1 is
 * accepted. A burst of gmii_rx_dv that starts with anything else, has any other byte before the
 * SFD, starts with the SFD itself or ends before it is a preamble error: no frame_start, nothing
 * reaches the FIFO.
 *
 * A frame (after its SFD) ends in exactly one outcome, the first that applies:
 *   rx_error      gmii_rx_er was high with gmii_rx_dv at some byte of the burst (preamble too)
 *   giant         more than MAX_FRAME_BYTES bytes, FCS included (bytes past it are not output)
 *   runt          fewer than 64 bytes, FCS included
 *   fcs_error     the CRC register over the frame and its FCS is not the residue 0xDEBB20E3
 *   good          frame_good = 1: frames_received, with bytes_received = length - 4
 * (a preamble error, above, is the sixth outcome of a burst). gmii_rx_er without gmii_rx_dv
 * (false carrier, carrier extension) outside a frame is ignored.
 *
 * bytes_received counts as sim/mac_model.h counts a received frame: its bytes without FCS (a
 * good frame is at least 60 of them, so never padded). A good frame that then finds no room in
 * the receive FIFO is still received (the FIFO counts it again, as an overflow: the model's
 * frames_dropped).
 *
 * Every output is registered; the statistics outputs are one-clock pulses in this clock domain.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_rx #(
    // Longest frame accepted, in bytes from the destination address to the FCS included (1518:
    // an untagged maximum frame; 1522 for VLAN tags). At most 65534.
    parameter MAX_FRAME_BYTES = 1518
) (
    input  wire        clk,                  // the receive clock (rgmii_rxc)
    input  wire        rst,                  // synchronous, active high
    // GMII from mac_rgmii_rx
    input  wire [7:0]  gmii_rxd,
    input  wire        gmii_rx_dv,
    input  wire        gmii_rx_er,
    // The frame, to mac_rx_fifo
    output reg         frame_start,          // pulse: an SFD was found, a frame begins
    output reg  [7:0]  byte_data,            // the frame's next byte (FCS excluded)
    output reg         byte_valid,
    output reg         frame_end,            // pulse: the frame begun by frame_start is over
    output reg         frame_good,           // with frame_end: 1 to deliver it, 0 to drop it
    // Statistics: one pulse per frame on exactly one of these (bytes with frames_received)
    output reg         stat_frames_received, // a good frame
    output reg  [15:0] stat_bytes_received,  // its bytes without FCS, with stat_frames_received (else 0)
    output reg         stat_fcs_errors,
    output reg         stat_runts,
    output reg         stat_giants,
    output reg         stat_preamble_errors,
    output reg         stat_rx_errors
);

localparam [1:0] S_IDLE = 2'd0, S_PREAMBLE = 2'd1, S_FRAME = 2'd2, S_DISCARD = 2'd3;
localparam [31:0] CRC_RESIDUE = 32'hdebb20e3;
localparam [15:0] MIN_FRAME_BYTES = 16'd64;
localparam [15:0] MAX_BYTES = MAX_FRAME_BYTES;

reg [1:0] state;
reg [31:0] crc;          // the CRC register over the frame's bytes so far
reg [15:0] length;       // bytes since the SFD, FCS included; saturates at 0xffff
reg [31:0] held;         // the last 4 bytes (held[7:0] the oldest): the FCS at the end
reg rx_error_seen;       // gmii_rx_er with gmii_rx_dv in this burst

wire [31:0] crc_next;

mac_crc32 crc32 (
    .crc_in(crc),
    .data(gmii_rxd),
    .crc_out(crc_next)
);

wire giant = length > MAX_BYTES;

always @(posedge clk) begin
    frame_start <= 1'b0;
    byte_valid <= 1'b0;
    frame_end <= 1'b0;
    frame_good <= 1'b0;
    stat_frames_received <= 1'b0;
    stat_bytes_received <= 16'd0;
    stat_fcs_errors <= 1'b0;
    stat_runts <= 1'b0;
    stat_giants <= 1'b0;
    stat_preamble_errors <= 1'b0;
    stat_rx_errors <= 1'b0;
    if (rst) begin
        state <= S_IDLE;
        crc <= 32'hffffffff;
        length <= 16'd0;
        held <= 32'd0;
        rx_error_seen <= 1'b0;
        byte_data <= 8'd0;
    end else begin
        case (state)
        S_IDLE: begin
            if (gmii_rx_dv) begin
                rx_error_seen <= gmii_rx_er;
                state <= gmii_rxd == 8'h55 ? S_PREAMBLE : S_DISCARD;
            end
        end
        S_PREAMBLE: begin
            if (!gmii_rx_dv) begin
                stat_rx_errors <= rx_error_seen;
                stat_preamble_errors <= !rx_error_seen;
                state <= S_IDLE;
            end else begin
                rx_error_seen <= rx_error_seen | gmii_rx_er;
                if (gmii_rxd == 8'hd5 && !rx_error_seen && !gmii_rx_er) begin
                    frame_start <= 1'b1;
                    crc <= 32'hffffffff;
                    length <= 16'd0;
                    state <= S_FRAME;
                end else if (gmii_rxd != 8'h55 || gmii_rx_er) begin
                    state <= S_DISCARD;
                end
            end
        end
        S_FRAME: begin
            if (gmii_rx_dv) begin
                rx_error_seen <= rx_error_seen | gmii_rx_er;
                crc <= crc_next;
                if (length != 16'hffff)
                    length <= length + 16'd1;
                held <= {gmii_rxd, held[31:8]};
                // byte `length` has come: byte length - 4 is not part of the FCS
                if (length >= 16'd4 && length < MAX_BYTES) begin
                    byte_data <= held[7:0];
                    byte_valid <= 1'b1;
                end
            end else begin
                frame_end <= 1'b1;
                state <= S_IDLE;
                if (rx_error_seen)
                    stat_rx_errors <= 1'b1;
                else if (giant)
                    stat_giants <= 1'b1;
                else if (length < MIN_FRAME_BYTES)
                    stat_runts <= 1'b1;
                else if (crc != CRC_RESIDUE)
                    stat_fcs_errors <= 1'b1;
                else begin
                    frame_good <= 1'b1;
                    stat_frames_received <= 1'b1;
                    stat_bytes_received <= length - 16'd4;
                end
            end
        end
        default: begin // S_DISCARD: wait for the end of the burst
            if (gmii_rx_dv) begin
                rx_error_seen <= rx_error_seen | gmii_rx_er;
            end else begin
                stat_rx_errors <= rx_error_seen;
                stat_preamble_errors <= !rx_error_seen;
                state <= S_IDLE;
            end
        end
        endcase
    end
end

endmodule

`resetall
