/*
 * flowlat_block (stub): the flow-latency monitor and its IPFIX exporter replaced by an idle
 * stream. The MAC ports' outputs and their sideband are not looked at; no IPFIX frame is ever
 * sent (m_axis_tvalid 0). The parameters are the real block's and change nothing.
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

module flowlat_block #(
    // log2 of the flow table's sets (the real block's; unused here)
    parameter SET_BITS = 11,
    // Clocks per microsecond (the real block's; unused here)
    parameter CLOCKS_PER_US = 125
) (
    input  wire              clk,
    input  wire              rst,

    // The MAC ports' output streams, observed, and their sideband (unused here)
    input  wire [4*64-1:0]   tap_tdata,
    input  wire [3:0]        tap_tvalid,
    input  wire [3:0]        tap_tready,
    input  wire [3:0]        tap_tlast,
    input  wire [4*32-1:0]   residence,
    input  wire [3:0]        rx_valid,
    input  wire [4*62-1:0]   tx_stamp,
    input  wire [4*3-1:0]    ingress,
    input  wire [4*20-1:0]   occupancy,

    // Time of day: seconds (unused here)
    input  wire [31:0]       tod_seconds,

    // The IPFIX frames: none here
    output wire [63:0]       m_axis_tdata,
    output wire [7:0]        m_axis_tkeep,
    output wire              m_axis_tvalid,
    input  wire              m_axis_tready,
    output wire              m_axis_tlast,
    output wire [7:0]        m_axis_tuser,

    // Registers (block-local addresses): a minimal slave, no registers (engine_stub_axil)
    input  wire [11:0]       s_axil_awaddr,
    input  wire [2:0]        s_axil_awprot,
    input  wire              s_axil_awvalid,
    output wire              s_axil_awready,
    input  wire [31:0]       s_axil_wdata,
    input  wire [3:0]        s_axil_wstrb,
    input  wire              s_axil_wvalid,
    output wire              s_axil_wready,
    output wire [1:0]        s_axil_bresp,
    output wire              s_axil_bvalid,
    input  wire              s_axil_bready,
    input  wire [11:0]       s_axil_araddr,
    input  wire [2:0]        s_axil_arprot,
    input  wire              s_axil_arvalid,
    output wire              s_axil_arready,
    output wire [31:0]       s_axil_rdata,
    output wire [1:0]        s_axil_rresp,
    output wire              s_axil_rvalid,
    input  wire              s_axil_rready
);

assign m_axis_tdata = 64'd0;
assign m_axis_tkeep = 8'd0;
assign m_axis_tvalid = 1'b0;
assign m_axis_tlast = 1'b0;
assign m_axis_tuser = 8'd0;

// The parameters count as used (Verilator -Wall: UNUSEDPARAM)
wire [31:0] parameters = SET_BITS ^ CLOCKS_PER_US;
wire unused = &{1'b0, tap_tdata, tap_tvalid, tap_tready, tap_tlast, residence, rx_valid, tx_stamp,
                ingress, occupancy, tod_seconds, m_axis_tready, parameters};

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
