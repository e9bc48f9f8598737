/*
 * time_base: the time-of-day clock with its AXI4-Lite registers, the block pktstats_core
 * instantiates at 0x3000.
 *
 * time_regs (generated from regmap/time.toml) holds the trim, the set and step values and the
 * latched time; time_clock keeps the time (see its header and docs/time.md). The evcap timer
 * comes in so that one latch command captures it in the same clock as the time of day: that
 * pair maps evcap ticks to time of day. The live time of day goes out for the blocks that
 * timestamp frames.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module time_base (
    input  wire        clk,
    input  wire        rst,

    // Registers
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
    input  wire        s_axil_rready,

    // The evcap timer (8 ns clocks), latched with the time of day
    input  wire [63:0] timer,

    // Time of day, live: seconds, nanoseconds (0..999 999 999), fraction in 2^-32 ns
    output wire [47:0] tod_seconds,
    output wire [29:0] tod_nanoseconds,
    output wire [31:0] tod_fraction
);

wire        command_latch;
wire        command_set;
wire        command_step;
wire [31:0] trim;
wire [47:0] set_seconds;
wire [29:0] set_nanoseconds;
wire [47:0] step_seconds;
wire [29:0] step_nanoseconds;
wire [47:0] latched_seconds;
wire [29:0] latched_nanoseconds;
wire [31:0] latched_fraction;
wire [63:0] latched_timer;
wire [63:0] set_refused;
wire        set_refused_clear;
wire [63:0] step_refused;
wire        step_refused_clear;

time_regs regs_inst (
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
    .command_latch(command_latch),
    .command_set(command_set),
    .command_step(command_step),
    .trim(trim),
    .set_seconds(set_seconds),
    .set_nanoseconds(set_nanoseconds),
    .step_seconds(step_seconds),
    .step_nanoseconds(step_nanoseconds),
    .latched_seconds({16'd0, latched_seconds}),
    .latched_nanoseconds(latched_nanoseconds),
    .latched_fraction(latched_fraction),
    .latched_timer(latched_timer),
    .set_refused(set_refused),
    .set_refused_clear(set_refused_clear),
    .step_refused(step_refused),
    .step_refused_clear(step_refused_clear)
);

time_clock clock_inst (
    .clk(clk),
    .rst(rst),
    .trim(trim),
    .command_set(command_set),
    .set_seconds(set_seconds),
    .set_nanoseconds(set_nanoseconds),
    .command_step(command_step),
    .step_seconds(step_seconds),
    .step_nanoseconds(step_nanoseconds),
    .command_latch(command_latch),
    .timer(timer),
    .set_refused(set_refused),
    .set_refused_clear(set_refused_clear),
    .step_refused(step_refused),
    .step_refused_clear(step_refused_clear),
    .latched_seconds(latched_seconds),
    .latched_nanoseconds(latched_nanoseconds),
    .latched_fraction(latched_fraction),
    .latched_timer(latched_timer),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .tod_fraction(tod_fraction)
);

endmodule

`resetall
