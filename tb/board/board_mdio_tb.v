/*
 * board_mdio_tb: the board top's MDIO path, for tb/board/test_board_mdio.cpp: the MAC block
 * (board_mac_counters with mac_regs, 12-bit block-local addresses) whose mdio_* registers
 * drive board_mdio, wired as netfpga_1g_cml_top wires them, with a table of 3 power-up writes
 * (NUM_WRITES 3, to PHYs 1, 5 and 1) and MDC at clk / 8 (CLK_DIV 4) so that frames are short.
 *
 *   s_axil (12-bit, clk) -> board_mac_counters -- mdio_frame / mdio_command --> board_mdio -> mdc
 *                                              <-------- mdio_status --------            -> mdio_o, mdio_oe
 *                                                                                         <- mdio_i
 *
 * The MAC statistics inputs are tied off (no traffic; port resets held). The harness plays the
 * PHYs on mdc, mdio_o/mdio_oe and mdio_i (tb/board/mdio_phy_model.h) and drives start (the
 * top's phy_ready).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_mdio_tb #(
    parameter [7:0] CLK_DIV = 8'd4
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,
    output wire        mdc,
    output wire        mdio_o,
    output wire        mdio_oe,
    input  wire        mdio_i,
    output wire        done,
    input  wire [11:0] s_axil_awaddr,
    input  wire [2:0]  s_axil_awprot,
    input  wire        s_axil_awvalid,
    output wire        s_axil_awready,
    input  wire [31:0] s_axil_wdata,
    input  wire [3:0]  s_axil_wstrb,
    input  wire        s_axil_wvalid,
    output wire        s_axil_wready,
    output wire [1:0]  s_axil_bresp,
    output wire        s_axil_bvalid,
    input  wire        s_axil_bready,
    input  wire [11:0] s_axil_araddr,
    input  wire [2:0]  s_axil_arprot,
    input  wire        s_axil_arvalid,
    output wire        s_axil_arready,
    output wire [31:0] s_axil_rdata,
    output wire [1:0]  s_axil_rresp,
    output wire        s_axil_rvalid,
    input  wire        s_axil_rready
);

// the power-up table: entry k = {6'b0, phy, register, data}
localparam [31:0] ENTRY0 = {6'b0, 5'd1, 5'd4, 16'h01e1};
localparam [31:0] ENTRY1 = {6'b0, 5'd5, 5'd9, 16'h0300};
localparam [31:0] ENTRY2 = {6'b0, 5'd1, 5'd0, 16'h1340};

wire [4:0]  mdio_cmd_phy;
wire [4:0]  mdio_cmd_register;
wire [15:0] mdio_cmd_data;
wire        mdio_cmd_read;
wire        mdio_cmd_write;
wire        mdio_busy;
wire [15:0] mdio_read_data;
wire        mdio_no_answer;

board_mdio #(
    .CLK_DIV(CLK_DIV),
    .NUM_WRITES(5'd3),
    .WRITES({{13{32'd0}}, ENTRY2, ENTRY1, ENTRY0})
) mdio_master (
    .clk(clk),
    .rst(rst),
    .start(start),
    .mdc(mdc),
    .mdio_o(mdio_o),
    .mdio_oe(mdio_oe),
    .mdio_i(mdio_i),
    .done(done),
    .cmd_read(mdio_cmd_read),
    .cmd_write(mdio_cmd_write),
    .cmd_phy(mdio_cmd_phy),
    .cmd_register(mdio_cmd_register),
    .cmd_data(mdio_cmd_data),
    .busy(mdio_busy),
    .read_data(mdio_read_data),
    .no_answer(mdio_no_answer)
);

board_mac_counters mac_counters (
    .clk(clk),
    .rst(rst),
    .tx_frame_sent(4'd0),
    .tx_frame_bytes(64'd0),
    .tx_underrun(4'd0),
    .rx_clk({4{clk}}),
    .rx_rst(4'hf),
    .rx_frame_received(4'd0),
    .rx_bytes_received(64'd0),
    .rx_fcs_errors(4'd0),
    .rx_runts(4'd0),
    .rx_giants(4'd0),
    .rx_preamble_errors(4'd0),
    .rx_errors(4'd0),
    .rx_overflows(4'd0),
    .mdio_phy(mdio_cmd_phy),
    .mdio_register(mdio_cmd_register),
    .mdio_write_data(mdio_cmd_data),
    .mdio_read(mdio_cmd_read),
    .mdio_write(mdio_cmd_write),
    .mdio_status({mdio_read_data, 13'd0, mdio_no_answer, done, mdio_busy}),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awprot(s_axil_awprot),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot),
    .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready)
);

endmodule

`resetall
