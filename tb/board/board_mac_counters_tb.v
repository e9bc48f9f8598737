/*
 * board_mac_counters_tb: the board top's register path after board_axil_cdc, for
 * tb/board/test_board_mac_counters.cpp: board_axil_split with the MAC counters
 * (board_mac_counters, with mac_regs) on its window 0x7000-0x7fff and a stand-in for
 * pktstats_core on everything else.
 *
 *   s_axil (16-bit address, clk) -> board_axil_split -+-> m1: board_mac_counters <- tx pulses (clk)
 *                                                      |                           <- rx pulses (rx_clk[i])
 *                                                      +-> m0: core stand-in (below)
 *
 * The core stand-in answers every address it gets, so that the harness sees which slave
 * answered and that its response passes unchanged: a read returns {16'hc0de, address}; the
 * response (read and write) is DECERR for 0x8000-0xffff, SLVERR for 0x6000-0x6fff, OKAY
 * below (0x7000-0x7fff would be OKAY too: it must never get them). AW and W are taken
 * independently, AR alone; each ready is low while core_stall is high (the harness randomizes
 * it). It counts the writes and reads it answered and shows the last write.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module board_mac_counters_tb (
    input  wire        clk,
    input  wire        rst,
    input  wire [15:0] s_axil_awaddr,
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
    input  wire [15:0] s_axil_araddr,
    input  wire [2:0]  s_axil_arprot,
    input  wire        s_axil_arvalid,
    output wire        s_axil_arready,
    output wire [31:0] s_axil_rdata,
    output wire [1:0]  s_axil_rresp,
    output wire        s_axil_rvalid,
    input  wire        s_axil_rready,
    // the MACs' statistics
    input  wire [3:0]  tx_frame_sent,
    input  wire [63:0] tx_frame_bytes,
    input  wire [3:0]  tx_underrun,
    input  wire [3:0]  rx_clk,
    input  wire [3:0]  rx_rst,
    input  wire [3:0]  rx_frame_received,
    input  wire [63:0] rx_bytes_received,
    input  wire [3:0]  rx_fcs_errors,
    input  wire [3:0]  rx_runts,
    input  wire [3:0]  rx_giants,
    input  wire [3:0]  rx_preamble_errors,
    input  wire [3:0]  rx_errors,
    input  wire [3:0]  rx_overflows,
    // the MDIO registers (board_mdio's side; tb/board/test_board_mdio.cpp tests them with it)
    output wire [4:0]  mdio_phy,
    output wire [4:0]  mdio_register,
    output wire [15:0] mdio_write_data,
    output wire        mdio_read,
    output wire        mdio_write,
    input  wire [31:0] mdio_status,
    // the core stand-in
    input  wire        core_stall,
    output reg  [31:0] core_writes,
    output reg  [31:0] core_reads,
    output reg  [15:0] core_last_waddr,
    output reg  [31:0] core_last_wdata,
    output reg  [3:0]  core_last_wstrb
);

wire [15:0] core_awaddr;
wire [2:0]  core_awprot;
wire        core_awvalid;
wire        core_awready;
wire [31:0] core_wdata;
wire [3:0]  core_wstrb;
wire        core_wvalid;
wire        core_wready;
wire [1:0]  core_bresp;
wire        core_bvalid;
wire        core_bready;
wire [15:0] core_araddr;
wire [2:0]  core_arprot;
wire        core_arvalid;
wire        core_arready;
wire [31:0] core_rdata;
wire [1:0]  core_rresp;
wire        core_rvalid;
wire        core_rready;

wire [11:0] mac_awaddr;
wire [2:0]  mac_awprot;
wire        mac_awvalid;
wire        mac_awready;
wire [31:0] mac_wdata;
wire [3:0]  mac_wstrb;
wire        mac_wvalid;
wire        mac_wready;
wire [1:0]  mac_bresp;
wire        mac_bvalid;
wire        mac_bready;
wire [11:0] mac_araddr;
wire [2:0]  mac_arprot;
wire        mac_arvalid;
wire        mac_arready;
wire [31:0] mac_rdata;
wire [1:0]  mac_rresp;
wire        mac_rvalid;
wire        mac_rready;

board_axil_split #(
    .ADDR_WIDTH(16),
    .M1_BITS(12),
    .M1_BASE(16'h7000)
) split (
    .clk(clk),
    .rst(rst),
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
    .s_axil_rready(s_axil_rready),
    .m0_axil_awaddr(core_awaddr),
    .m0_axil_awprot(core_awprot),
    .m0_axil_awvalid(core_awvalid),
    .m0_axil_awready(core_awready),
    .m0_axil_wdata(core_wdata),
    .m0_axil_wstrb(core_wstrb),
    .m0_axil_wvalid(core_wvalid),
    .m0_axil_wready(core_wready),
    .m0_axil_bresp(core_bresp),
    .m0_axil_bvalid(core_bvalid),
    .m0_axil_bready(core_bready),
    .m0_axil_araddr(core_araddr),
    .m0_axil_arprot(core_arprot),
    .m0_axil_arvalid(core_arvalid),
    .m0_axil_arready(core_arready),
    .m0_axil_rdata(core_rdata),
    .m0_axil_rresp(core_rresp),
    .m0_axil_rvalid(core_rvalid),
    .m0_axil_rready(core_rready),
    .m1_axil_awaddr(mac_awaddr),
    .m1_axil_awprot(mac_awprot),
    .m1_axil_awvalid(mac_awvalid),
    .m1_axil_awready(mac_awready),
    .m1_axil_wdata(mac_wdata),
    .m1_axil_wstrb(mac_wstrb),
    .m1_axil_wvalid(mac_wvalid),
    .m1_axil_wready(mac_wready),
    .m1_axil_bresp(mac_bresp),
    .m1_axil_bvalid(mac_bvalid),
    .m1_axil_bready(mac_bready),
    .m1_axil_araddr(mac_araddr),
    .m1_axil_arprot(mac_arprot),
    .m1_axil_arvalid(mac_arvalid),
    .m1_axil_arready(mac_arready),
    .m1_axil_rdata(mac_rdata),
    .m1_axil_rresp(mac_rresp),
    .m1_axil_rvalid(mac_rvalid),
    .m1_axil_rready(mac_rready)
);

board_mac_counters counters (
    .clk(clk),
    .rst(rst),
    .tx_frame_sent(tx_frame_sent),
    .tx_frame_bytes(tx_frame_bytes),
    .tx_underrun(tx_underrun),
    .rx_clk(rx_clk),
    .rx_rst(rx_rst),
    .rx_frame_received(rx_frame_received),
    .rx_bytes_received(rx_bytes_received),
    .rx_fcs_errors(rx_fcs_errors),
    .rx_runts(rx_runts),
    .rx_giants(rx_giants),
    .rx_preamble_errors(rx_preamble_errors),
    .rx_errors(rx_errors),
    .rx_overflows(rx_overflows),
    .mdio_phy(mdio_phy),
    .mdio_register(mdio_register),
    .mdio_write_data(mdio_write_data),
    .mdio_read(mdio_read),
    .mdio_write(mdio_write),
    .mdio_status(mdio_status),
    .s_axil_awaddr(mac_awaddr),
    .s_axil_awprot(mac_awprot),
    .s_axil_awvalid(mac_awvalid),
    .s_axil_awready(mac_awready),
    .s_axil_wdata(mac_wdata),
    .s_axil_wstrb(mac_wstrb),
    .s_axil_wvalid(mac_wvalid),
    .s_axil_wready(mac_wready),
    .s_axil_bresp(mac_bresp),
    .s_axil_bvalid(mac_bvalid),
    .s_axil_bready(mac_bready),
    .s_axil_araddr(mac_araddr),
    .s_axil_arprot(mac_arprot),
    .s_axil_arvalid(mac_arvalid),
    .s_axil_arready(mac_arready),
    .s_axil_rdata(mac_rdata),
    .s_axil_rresp(mac_rresp),
    .s_axil_rvalid(mac_rvalid),
    .s_axil_rready(mac_rready)
);

// ---- the core stand-in
function [1:0] core_resp;
    input [3:0] page; // address bits 15:12
    begin
        if (page[3])
            core_resp = 2'b11;
        else if (page == 4'h6)
            core_resp = 2'b10;
        else
            core_resp = 2'b00;
    end
endfunction

reg        aw_got = 1'b0;
reg        w_got = 1'b0;
reg [15:0] waddr = 16'd0;
reg        bvalid = 1'b0;
reg [1:0]  bresp = 2'b00;
reg        rvalid = 1'b0;
reg [31:0] rdata = 32'd0;
reg [1:0]  rresp = 2'b00;

assign core_awready = !aw_got && !bvalid && !core_stall;
assign core_wready = !w_got && !bvalid && !core_stall;
assign core_bvalid = bvalid;
assign core_bresp = bresp;
assign core_arready = !rvalid && !core_stall;
assign core_rvalid = rvalid;
assign core_rdata = rdata;
assign core_rresp = rresp;

always @(posedge clk) begin
    if (core_awvalid && core_awready) begin
        aw_got <= 1'b1;
        waddr <= core_awaddr;
    end
    if (core_wvalid && core_wready) begin
        w_got <= 1'b1;
        core_last_wdata <= core_wdata;
        core_last_wstrb <= core_wstrb;
    end
    if (aw_got && w_got && !bvalid) begin
        aw_got <= 1'b0;
        w_got <= 1'b0;
        bvalid <= 1'b1;
        bresp <= core_resp(waddr[15:12]);
        core_last_waddr <= waddr;
        core_writes <= core_writes + 32'd1;
    end
    if (bvalid && core_bready)
        bvalid <= 1'b0;
    if (core_arvalid && core_arready) begin
        rvalid <= 1'b1;
        rdata <= {16'hc0de, core_araddr};
        rresp <= core_resp(core_araddr[15:12]);
        core_reads <= core_reads + 32'd1;
    end
    if (rvalid && core_rready)
        rvalid <= 1'b0;
    if (rst) begin
        aw_got <= 1'b0;
        w_got <= 1'b0;
        bvalid <= 1'b0;
        rvalid <= 1'b0;
        core_writes <= 32'd0;
        core_reads <= 32'd0;
        core_last_waddr <= 16'd0;
        core_last_wdata <= 32'd0;
        core_last_wstrb <= 4'd0;
    end
end

wire unused = &{1'b0, core_awprot, core_arprot};

endmodule

`resetall
