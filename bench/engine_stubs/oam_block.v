/*
 * oam_block (stub): the link-delay engines replaced by wires. The steer stream passes straight
 * from the switch's lookup to its queues (s_steer_* -> m_steer_*), its meta widened to the real
 * block's m_steer_meta layout {length[13:0], engine[1:0], isl_group, tx_offset[6:0],
 * rx_offset[6:0], RX stamp meta[62:0]} with zeros in the fields the engines add (no stamp
 * fields, no length: only oam_egress reads it); the 8 output streams pass straight to the
 * ports (s_axis_* -> m_axis_*), no stamps written. No counters.
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

module oam_block (
    input  wire            clk,
    input  wire            rst,

    // Frames from the switch's port lookup (tuser {source[2:0], mask[7:0]}, meta
    // {RX stamp valid, seconds[31:0], nanoseconds[29:0]})
    input  wire [63:0]     s_steer_tdata,
    input  wire [7:0]      s_steer_tkeep,
    input  wire            s_steer_tvalid,
    output wire            s_steer_tready,
    input  wire            s_steer_tlast,
    input  wire [10:0]     s_steer_tuser,
    input  wire [62:0]     s_steer_meta,

    // The same frames to the switch's output queues, unchanged
    output wire [63:0]     m_steer_tdata,
    output wire [7:0]      m_steer_tkeep,
    output wire            m_steer_tvalid,
    input  wire            m_steer_tready,
    output wire            m_steer_tlast,
    output wire [10:0]     m_steer_tuser,
    output wire [93:0]     m_steer_meta,

    // The switch's 8 output streams, port i in slice i, with each frame's meta (unused here)
    input  wire [8*64-1:0] s_axis_tdata,
    input  wire [8*8-1:0]  s_axis_tkeep,
    input  wire [7:0]      s_axis_tvalid,
    output wire [7:0]      s_axis_tready,
    input  wire [7:0]      s_axis_tlast,
    input  wire [8*94-1:0] s_axis_meta,
    input  wire [7:0]      s_axis_meta_valid,

    // The output streams, unchanged
    output wire [8*64-1:0] m_axis_tdata,
    output wire [8*8-1:0]  m_axis_tkeep,
    output wire [7:0]      m_axis_tvalid,
    input  wire [7:0]      m_axis_tready,
    output wire [7:0]      m_axis_tlast,

    // TX stamp of this clock of MAC port i (unused here)
    input  wire [4*62-1:0] tx_stamp,

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

assign m_steer_tdata = s_steer_tdata;
assign m_steer_tkeep = s_steer_tkeep;
assign m_steer_tvalid = s_steer_tvalid;
assign s_steer_tready = m_steer_tready;
assign m_steer_tlast = s_steer_tlast;
assign m_steer_tuser = s_steer_tuser;
assign m_steer_meta = {31'd0, s_steer_meta};

assign m_axis_tdata = s_axis_tdata;
assign m_axis_tkeep = s_axis_tkeep;
assign m_axis_tvalid = s_axis_tvalid;
assign s_axis_tready = m_axis_tready;
assign m_axis_tlast = s_axis_tlast;

wire unused = &{1'b0, s_axis_meta, s_axis_meta_valid, tx_stamp};

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
