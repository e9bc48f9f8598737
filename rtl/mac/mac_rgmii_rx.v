/*
 * mac_rgmii_rx: the receive half of an RGMII interface (RGMII v2.0, 1000 Mb/s): the PHY's
 * double-data-rate nibbles in, GMII bytes out, in the PHY's receive clock domain (rgmii_rxc,
 * 125 MHz from the PHY's own oscillator: asynchronous to the switch clock).
 *
 * RGMII carries a GMII byte per rgmii_rxc cycle, half on each edge:
 *
 *   rgmii_rxc     __/~~~~\____/~~~~\____
 *   rgmii_rxd      | lo0 | hi0 | lo1 | hi1 |    lo = gmii_rxd[3:0], hi = gmii_rxd[7:4]
 *   rgmii_rx_ctl   | dv0 | x0  | dv1 | x1  |    x = rx_dv XOR rx_er
 *
 * Each of the five pins goes through one Xilinx 7-series IDDR (the real primitive: Vivado maps
 * it to the ILOGIC; fpga/models/IDDR.v stands in for Verilator and Icarus) in
 * SAME_EDGE_PIPELINED mode, so that both halves of a byte come out together after a rising
 * edge:
 *
 *   rgmii_rxd[i]  --> IDDR --Q1 (rising edge)--> gmii_rxd[i]
 *                         `-Q2 (falling edge)-> gmii_rxd[i+4]
 *   rgmii_rx_ctl  --> IDDR --Q1--> gmii_rx_dv
 *                         `-Q2--> XOR Q1 --> gmii_rx_er
 *
 * Latency: the byte whose low nibble is sampled at rising edge n is on gmii_* from rising edge
 * n+1 to n+2 (the IDDR's pipelined mode; no other register). The outputs come straight from the
 * ILOGIC's flip-flops (gmii_rx_er through one XOR).
 *
 * The board top provides rgmii_rxc through a clock buffer (BUFIO/BUFR or BUFG) and whatever
 * input delay (IDELAYE2) its PHY's clock-to-data skew needs; those are board-specific and not
 * here. rst is synchronous to rgmii_rxc (it resets the IDDRs' registers: gmii_rx_dv = 0).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_rgmii_rx (
    input  wire       rgmii_rxc,    // the PHY's receive clock, 125 MHz; the clock of every output
    input  wire       rst,          // synchronous to rgmii_rxc, active high
    input  wire [3:0] rgmii_rxd,    // DDR data: bits 3:0 at the rising edge, 7:4 at the falling
    input  wire       rgmii_rx_ctl, // DDR control: rx_dv at the rising edge, rx_dv ^ rx_er at the falling
    output wire [7:0] gmii_rxd,     // the byte, bit 0 first on the wire
    output wire       gmii_rx_dv,   // data valid
    output wire       gmii_rx_er    // receive error (with gmii_rx_dv: a coding error in the frame)
);

wire [3:0] rxd_rise; // sampled at the rising edge: the low nibble
wire [3:0] rxd_fall; // sampled at the falling edge: the high nibble
wire ctl_rise;
wire ctl_fall;

genvar i;
generate
for (i = 0; i < 4; i = i + 1) begin : g_rxd
    IDDR #(
        .DDR_CLK_EDGE("SAME_EDGE_PIPELINED"),
        .INIT_Q1(1'b0),
        .INIT_Q2(1'b0),
        .SRTYPE("SYNC")
    ) rxd_iddr (
        .Q1(rxd_rise[i]),
        .Q2(rxd_fall[i]),
        .C(rgmii_rxc),
        .CE(1'b1),
        .D(rgmii_rxd[i]),
        .R(rst),
        .S(1'b0)
    );
end
endgenerate

IDDR #(
    .DDR_CLK_EDGE("SAME_EDGE_PIPELINED"),
    .INIT_Q1(1'b0),
    .INIT_Q2(1'b0),
    .SRTYPE("SYNC")
) ctl_iddr (
    .Q1(ctl_rise),
    .Q2(ctl_fall),
    .C(rgmii_rxc),
    .CE(1'b1),
    .D(rgmii_rx_ctl),
    .R(rst),
    .S(1'b0)
);

assign gmii_rxd = {rxd_fall, rxd_rise};
assign gmii_rx_dv = ctl_rise;
assign gmii_rx_er = ctl_rise ^ ctl_fall;

endmodule

`resetall
