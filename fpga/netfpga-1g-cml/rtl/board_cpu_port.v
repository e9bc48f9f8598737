/*
 * board_cpu_port: one CPU port of the switch (pktstats_core port 4 + j) on one pair of XDMA
 * AXI4-Stream channels (H2C j, C2H j): the width conversion between the XDMA's 128 bits and
 * the switch's 64, and the crossing between the XDMA's user clock (pcie_clk) and the switch
 * clock (clk), both asynchronous FIFOs of 16 words.
 *
 *   H2C j (128, pcie_clk) -> board_axis_128to64 -> board_axis_async_fifo -> s_axis of port 4+j (64, clk)
 *   m_axis of port 4+j (64, clk) -> board_axis_async_fifo -> board_axis_64to128 -> C2H j (128, pcie_clk)
 *
 * The conversions are on the PCIe side, so that each FIFO is 64 bits wide (73 with keep and
 * last). Throughput: 64 bits per switch clock each way (8 Gb/s), above what a CPU port of
 * the switch carries.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_cpu_port (
    // the XDMA side
    input  wire         pcie_clk,
    input  wire         pcie_rst,       // synchronous to pcie_clk, active high
    input  wire [127:0] h2c_tdata,
    input  wire [15:0]  h2c_tkeep,
    input  wire         h2c_tvalid,
    output wire         h2c_tready,
    input  wire         h2c_tlast,
    output wire [127:0] c2h_tdata,
    output wire [15:0]  c2h_tkeep,
    output wire         c2h_tvalid,
    input  wire         c2h_tready,
    output wire         c2h_tlast,
    // the switch side
    input  wire         clk,
    input  wire         rst,            // synchronous to clk, active high
    output wire [63:0]  m_axis_tdata,   // into the switch
    output wire [7:0]   m_axis_tkeep,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast,
    input  wire [63:0]  s_axis_tdata,   // out of the switch
    input  wire [7:0]   s_axis_tkeep,
    input  wire         s_axis_tvalid,
    output wire         s_axis_tready,
    input  wire         s_axis_tlast
);

wire [63:0] h2c64_tdata;
wire [7:0]  h2c64_tkeep;
wire        h2c64_tvalid;
wire        h2c64_tready;
wire        h2c64_tlast;

board_axis_128to64 h2c_width (
    .clk(pcie_clk),
    .rst(pcie_rst),
    .s_axis_tdata(h2c_tdata),
    .s_axis_tkeep(h2c_tkeep),
    .s_axis_tvalid(h2c_tvalid),
    .s_axis_tready(h2c_tready),
    .s_axis_tlast(h2c_tlast),
    .m_axis_tdata(h2c64_tdata),
    .m_axis_tkeep(h2c64_tkeep),
    .m_axis_tvalid(h2c64_tvalid),
    .m_axis_tready(h2c64_tready),
    .m_axis_tlast(h2c64_tlast)
);

board_axis_async_fifo #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(4)
) h2c_fifo (
    .s_clk(pcie_clk),
    .s_rst(pcie_rst),
    .s_axis_tdata(h2c64_tdata),
    .s_axis_tkeep(h2c64_tkeep),
    .s_axis_tvalid(h2c64_tvalid),
    .s_axis_tready(h2c64_tready),
    .s_axis_tlast(h2c64_tlast),
    .m_clk(clk),
    .m_rst(rst),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast)
);

wire [63:0] c2h64_tdata;
wire [7:0]  c2h64_tkeep;
wire        c2h64_tvalid;
wire        c2h64_tready;
wire        c2h64_tlast;

board_axis_async_fifo #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(4)
) c2h_fifo (
    .s_clk(clk),
    .s_rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_clk(pcie_clk),
    .m_rst(pcie_rst),
    .m_axis_tdata(c2h64_tdata),
    .m_axis_tkeep(c2h64_tkeep),
    .m_axis_tvalid(c2h64_tvalid),
    .m_axis_tready(c2h64_tready),
    .m_axis_tlast(c2h64_tlast)
);

board_axis_64to128 c2h_width (
    .clk(pcie_clk),
    .rst(pcie_rst),
    .s_axis_tdata(c2h64_tdata),
    .s_axis_tkeep(c2h64_tkeep),
    .s_axis_tvalid(c2h64_tvalid),
    .s_axis_tready(c2h64_tready),
    .s_axis_tlast(c2h64_tlast),
    .m_axis_tdata(c2h_tdata),
    .m_axis_tkeep(c2h_tkeep),
    .m_axis_tvalid(c2h_tvalid),
    .m_axis_tready(c2h_tready),
    .m_axis_tlast(c2h_tlast)
);

endmodule

`resetall
