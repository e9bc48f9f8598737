/*
 * mac_rx_stamp: the switch-clock half of the RX timestamp (see mac_rx_fifo for the whole
 * path). It watches the receive side's count of SFDs (Gray code, from the rx clock domain),
 * and in the clock it sees the count change it samples the switch's time of day, takes the
 * constant latency off and holds the stamp, tagged with the count, for the rx side to read:
 *
 *   rx clock                 |  switch clock (clk)
 *   sfd_gray  --------------->[2-flop sync]--> differs from the count seen?
 *                            |                    | yes
 *                            |   tod - LATENCY -->[stamp_hold] ----> back to the rx side,
 *                            |      sfd count --->[stamp_tag_gray]-> which writes the stamp
 *                            |                                       into the frame's header
 *
 * LATENCY_NS: from the first bit of a frame with a standard 7-byte preamble on the RGMII pins
 * to the time of day this block samples, in an ideal crossing (no metastability), at 1 Gb/s
 * and a 125 MHz switch clock whose time of day advances 8 ns a clock:
 *     2 ns    the RGMII set-up: data ahead of the rgmii_rxc edge sampling it (PHY-side skew)
 *   + 80 ns   10 rx clocks: 7 preamble bytes and the SFD (8), the IDDR's pipelined output (1),
 *             mac_rx's SFD register (1); then mac_rx_fifo registers the SFD count (at the
 *             10th rx edge after the first one, the 82 ns point)
 *   + 0..8 ns to the first switch edge after that (the phase of the two clocks)
 *   + 8 ns    the synchronizer's second flip-flop
 *   + 8 ns    this block's sampling edge reads the time of day of the clock before it
 * The time of day read is that of the clock containing the first bit plus 12 clocks (96 ns) or,
 * when the first bit falls in the last 2 ns of a switch clock, 13. LATENCY_NS = 96 takes the
 * first off: the stamp is the time of day of the clock in which the first bit arrived (what
 * sim/mac_model.h stamps), or of the next one: the crossing's uncertainty is one clock. A
 * metastable first flip-flop only moves where in the clock the boundary between the two
 * falls, not the two outcomes. A PHY that delivers a shortened preamble does not move the
 * stamp's reference: it is the SFD minus 7 nominal byte times. What remains (the PHY's own
 * receive latency, board delays) is rx_correction's (docs/timestamps.md).
 *
 * The stamp held changes only when a new SFD is seen, and the rx side reads it only once it
 * sees stamp_tag_gray equal to its own frame's count (through its own 2-flop synchronizer), so
 * stamp_hold is stable for at least two rx clocks when it is read.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_rx_stamp #(
    parameter SEQ_WIDTH = 6,     // bits of the SFD count (a Gray code across the domains)
    parameter LATENCY_NS = 96    // subtracted from the time of day sampled (see above), < 10^9
) (
    input  wire                 clk,             // the switch clock
    input  wire                 rst,             // synchronous to clk, active high
    input  wire [SEQ_WIDTH-1:0] sfd_gray,        // SFDs seen by the rx side (rx clock register)
    input  wire [31:0]          tod_seconds,     // the switch's time of day: low 32 bits of seconds
    input  wire [29:0]          tod_nanoseconds, // and nanoseconds (0..999999999)
    output reg  [61:0]          stamp_hold,      // {seconds, nanoseconds} of the last SFD seen
    output reg  [SEQ_WIDTH-1:0] stamp_tag_gray   // the SFD count that stamp_hold belongs to
);

localparam [29:0] LATENCY = LATENCY_NS;
localparam [29:0] NS_PER_SECOND = 30'd1000000000;

wire [SEQ_WIDTH-1:0] sfd_sync;

mac_rx_sync #(
    .WIDTH(SEQ_WIDTH)
) sfd_synchronizer (
    .clk(clk),
    .in(sfd_gray),
    .out(sfd_sync)
);

wire borrow = tod_nanoseconds < LATENCY;
wire [29:0] stamp_ns = borrow ? tod_nanoseconds + (NS_PER_SECOND - LATENCY) : tod_nanoseconds - LATENCY;
wire [31:0] stamp_s = tod_seconds - {31'd0, borrow};

always @(posedge clk) begin
    if (rst) begin
        stamp_hold <= 62'd0;
        stamp_tag_gray <= {SEQ_WIDTH{1'b0}};
    end else if (sfd_sync != stamp_tag_gray) begin
        stamp_hold <= {stamp_s, stamp_ns};
        stamp_tag_gray <= sfd_sync;
    end
end

endmodule

`resetall
