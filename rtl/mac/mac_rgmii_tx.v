/*
 * mac_rgmii_tx: GMII transmit bytes (125 MHz, from mac_tx) to the RGMII transmit pins of a
 * 1000BASE-T PHY, through the 7-series output DDR registers (ODDR, UG471/UG953): one ODDR per
 * pin, all in SAME_EDGE mode, so that both halves of a byte are taken in the same rising edge
 * of clk and the byte on gmii_* in clock n is on the pins during clock n + 1:
 *
 *   clk        __/~~~~~~~~\________/~~~~~~~~\________/~~
 *   gmii_txd   ==X  byte b           X  byte b+1 ...
 *   rgmii_txd  ===========X b[3:0]   X b[7:4]  X b+1[3:0] ...      (changes at clk's edges)
 *   rgmii_tx_ctl =========X tx_en    X en^er   X ...
 *   clk90        ____/~~~~~~~~\________/~~~~~~~~\____
 *   rgmii_txc    ____/~~~~~~~~\________/~~~~~~~~\____   ODDR D1 = 1, D2 = 0, clocked by clk90
 *                    ^ 2 ns after the data change: TXC's edges are in the middle of the data
 *
 * rgmii_txd carries the low nibble of the byte while TXC is high (from its rising edge), the
 * high nibble while it is low; rgmii_tx_ctl carries tx_en while TXC is high and
 * tx_en XOR tx_er while it is low (RGMII v2.0). The added latency is one clock: with mac_tx,
 * the first preamble nibble is on rgmii_txd 2 clocks after the first word's handshake clock.
 *
 * The choice of clock for TXC (parameter TXC_CLK90): 1 (default) clocks TXC's ODDR with clk90,
 * the 125 MHz clock shifted by +90 degrees (2 ns) from clk, e.g. a second MMCM output, so that
 * the data are centred on TXC: for PHYs without an internal TX clock delay (RGMII v1.3 timing,
 * the delay made here). 0 clocks it with clk (TXC edge-aligned with the data): for PHYs that
 * add the 2 ns themselves (RGMII-ID, "TX internal delay" on); clk90 is then not used.
 *
 * The ODDRs are Xilinx's primitive: Vivado and Yosys (synth_xilinx) map it; Verilator and Icarus
 * use the behavioural model in fpga/models/ODDR.v. rst resets the data ODDRs synchronously
 * (SRTYPE "SYNC"): rgmii_txd and rgmii_tx_ctl go low (line idle) from the edge that sees it;
 * TXC keeps running (PHYs expect a continuous TXC).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_rgmii_tx #(
    // 1: TXC from clk90, centred on the data; 0: TXC from clk, edge-aligned (PHY delays it)
    parameter TXC_CLK90 = 1
) (
    input  wire       clk,         // 125 MHz, the clock of the gmii_* inputs
    input  wire       clk90,       // the same clock shifted by +90 degrees (TXC_CLK90 = 1)
    input  wire       rst,         // synchronous, active high: rgmii_txd, rgmii_tx_ctl low

    // GMII transmit, one byte per clk (mac_tx)
    input  wire [7:0] gmii_txd,
    input  wire       gmii_tx_en,
    input  wire       gmii_tx_er,

    // RGMII transmit pins
    output wire [3:0] rgmii_txd,
    output wire       rgmii_tx_ctl,
    output wire       rgmii_txc
);

genvar i;
generate
    for (i = 0; i < 4; i = i + 1) begin : txd
        ODDR #(
            .DDR_CLK_EDGE("SAME_EDGE"),
            .INIT(1'b0),
            .SRTYPE("SYNC")
        ) txd_oddr (
            .Q(rgmii_txd[i]),
            .C(clk),
            .CE(1'b1),
            .D1(gmii_txd[i]),
            .D2(gmii_txd[i+4]),
            .R(rst),
            .S(1'b0)
        );
    end
endgenerate

ODDR #(
    .DDR_CLK_EDGE("SAME_EDGE"),
    .INIT(1'b0),
    .SRTYPE("SYNC")
) tx_ctl_oddr (
    .Q(rgmii_tx_ctl),
    .C(clk),
    .CE(1'b1),
    .D1(gmii_tx_en),
    .D2(gmii_tx_en ^ gmii_tx_er),
    .R(rst),
    .S(1'b0)
);

// The forwarded clock: 1 in the first half of each period of its clock, 0 in the second. The
// choice of clock is a constant (a parameter): no multiplexer is built.
wire txc_source = (TXC_CLK90 != 0) ? clk90 : clk;

ODDR #(
    .DDR_CLK_EDGE("SAME_EDGE"),
    .INIT(1'b0),
    .SRTYPE("SYNC")
) txc_oddr (
    .Q(rgmii_txc),
    .C(txc_source),
    .CE(1'b1),
    .D1(1'b1),
    .D2(1'b0),
    .R(1'b0),
    .S(1'b0)
);

endmodule

`resetall
