/*
 * mac_tx_tb: the transmit MAC as the board joins it, for tb/mac/test_mac_tx.cpp: mac_tx
 * (AXI4-Stream to GMII bytes) into mac_rgmii_tx (GMII to the RGMII pins through ODDRs;
 * fpga/models/ODDR.v in simulation). The GMII bytes and the counter pulses are brought out
 * too, so that the harness sees both sides of mac_rgmii_tx.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_tx_tb #(
    // mac_tx's gap, in byte times (12; the harness's mutation run sets 11)
    parameter IFG_BYTES = 12
) (
    input  wire        clk,
    input  wire        clk90,
    input  wire        rst,

    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,
    input  wire        s_axis_tlast,

    output wire [7:0]  gmii_txd,
    output wire        gmii_tx_en,
    output wire        gmii_tx_er,

    output wire [3:0]  rgmii_txd,
    output wire        rgmii_tx_ctl,
    output wire        rgmii_txc,

    output wire        stat_frame_sent,
    output wire [15:0] stat_frame_bytes,
    output wire        stat_underrun
);

mac_tx #(
    .IFG_BYTES(IFG_BYTES)
) mac_tx_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .gmii_txd(gmii_txd),
    .gmii_tx_en(gmii_tx_en),
    .gmii_tx_er(gmii_tx_er),
    .stat_frame_sent(stat_frame_sent),
    .stat_frame_bytes(stat_frame_bytes),
    .stat_underrun(stat_underrun)
);

mac_rgmii_tx mac_rgmii_tx_inst (
    .clk(clk),
    .clk90(clk90),
    .rst(rst),
    .gmii_txd(gmii_txd),
    .gmii_tx_en(gmii_tx_en),
    .gmii_tx_er(gmii_tx_er),
    .rgmii_txd(rgmii_txd),
    .rgmii_tx_ctl(rgmii_tx_ctl),
    .rgmii_txc(rgmii_txc)
);

endmodule

`resetall
