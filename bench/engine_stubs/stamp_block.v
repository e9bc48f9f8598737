/*
 * stamp_block (stub): the wire timestamps replaced by constants. No RX stamps go into the
 * switch (m_meta 0: every frame without one, as from a CPU port), the TX stamps and residence
 * times are 0; the handshakes, the time of day and the MAC's RX stamps are not looked at.
 *
 * Not hardware: a measuring tool. `make bench` builds the simulator a second time with
 * oam_block, stamp_block and flowlat_block replaced by these stubs (the Makefile's
 * $(BUILD)/bench/sim-stubbed/pktstats-sim; the rest of the design, the harness and the build
 * as in build/bin/pktstats-sim) and runs it beside the real one (bench/bench_sim.py), so that
 * the cost of the idle engines in every clock is measured and tracked (docs/simulator.md,
 * "Speed"). Same module name, parameters and ports as the real block, so that given to
 * Verilator instead of its files it takes its place in pktstats_core. Kept out of rtl/: never
 * linted, synthesised or tested as part of the design.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module stamp_block (
    input  wire            clk,
    input  wire            rst,

    // Time of day (time_base): seconds, nanoseconds (unused here)
    input  wire [47:0]     tod_seconds,
    input  wire [29:0]     tod_nanoseconds,

    // The switch's input handshakes, port i in bit i, and the MAC's RX stamps (unused here)
    input  wire [7:0]      s_axis_tvalid,
    input  wire [7:0]      s_axis_tready,
    input  wire [7:0]      s_axis_tlast,
    input  wire [4*62-1:0] s_rx_stamp,
    input  wire [3:0]      s_rx_stamp_valid,
    // Metadata of each input's current word, for the switch: port i in bits 63i+62:63i,
    // {valid, seconds[31:0], nanoseconds[29:0]}: 0 here
    output wire [8*63-1:0] m_meta,

    // The switch's output handshakes of the MAC ports and their RX stamps (unused here)
    input  wire [3:0]      m_axis_tvalid,
    input  wire [3:0]      m_axis_tready,
    input  wire [3:0]      m_axis_tlast,
    input  wire [4*62-1:0] rx_stamp,
    input  wire [3:0]      rx_valid,
    // TX stamp of this clock and residence time of the frame on MAC output i: 0 here
    output wire [4*62-1:0] tx_stamp,
    output wire [4*32-1:0] residence,

    // Registers (block-local addresses): a minimal slave, no registers (engine_stub_axil)
    input  wire [11:0]     s_axil_awaddr,
    input  wire [2:0]      s_axil_awprot,
    input  wire            s_axil_awvalid,
    output wire            s_axil_awready,
    input  wire [31:0]     s_axil_wdata,
    input  wire [3:0]      s_axil_wstrb,
    input  wire            s_axil_wvalid,
    output wire            s_axil_wready,
    output wire [1:0]      s_axil_bresp,
    output wire            s_axil_bvalid,
    input  wire            s_axil_bready,
    input  wire [11:0]     s_axil_araddr,
    input  wire [2:0]      s_axil_arprot,
    input  wire            s_axil_arvalid,
    output wire            s_axil_arready,
    output wire [31:0]     s_axil_rdata,
    output wire [1:0]      s_axil_rresp,
    output wire            s_axil_rvalid,
    input  wire            s_axil_rready
);

assign m_meta = {8*63{1'b0}};
assign tx_stamp = {4*62{1'b0}};
assign residence = {4*32{1'b0}};

wire unused = &{1'b0, tod_seconds, tod_nanoseconds, s_axis_tvalid, s_axis_tready, s_axis_tlast,
                s_rx_stamp, s_rx_stamp_valid, m_axis_tvalid, m_axis_tready, m_axis_tlast,
                rx_stamp, rx_valid};

engine_stub_axil regs_inst (
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
    .s_axil_rready(s_axil_rready)
);

endmodule

`resetall
