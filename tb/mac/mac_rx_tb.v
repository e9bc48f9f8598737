/*
 * mac_rx_tb: the receive MAC (mac_rx_port) as the board will use it, for tb/mac/test_mac_rx.cpp:
 * RGMII pins in (rgmii_rxc domain), 64-bit AXI4-Stream out (clk domain), with a stand-in for
 * pktstats_core's time of day.
 *
 *   rgmii_rxd/rx_ctl --> mac_rx_port: mac_rgmii_rx --GMII--> mac_rx --bytes--> mac_rx_fifo --> m_axis
 *                                     (IDDR)                 (stat_*)  (stat_overflows)    + rx stamp
 *                                                                         ^ tod_seconds/nanoseconds
 *   clk --> time of day: +8 ns a clock, nanoseconds wrap at 10^9 into the seconds; loaded
 *           (tod_load) with any value by the harness
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_rx_tb #(
    parameter MAX_FRAME_BYTES = 1518, // mac_rx_port's (mac_rx's)
    parameter ADDR_WIDTH = 11,        // mac_rx_port's (mac_rx_fifo's)
    parameter LATENCY_NS = 96         // mac_rx_port's (mac_rx_stamp's)
) (
    input  wire        rgmii_rxc,
    input  wire        rx_rst,
    input  wire [3:0]  rgmii_rxd,
    input  wire        rgmii_rx_ctl,
    input  wire        clk,
    input  wire        rst,
    input  wire        tod_load,
    input  wire [31:0] tod_load_seconds,
    input  wire [29:0] tod_load_nanoseconds,
    output reg  [31:0] tod_seconds,
    output reg  [29:0] tod_nanoseconds,
    output wire [63:0] m_axis_tdata,
    output wire [7:0]  m_axis_tkeep,
    output wire        m_axis_tvalid,
    input  wire        m_axis_tready,
    output wire        m_axis_tlast,
    output wire [61:0] m_axis_rx_timestamp,
    output wire        m_axis_rx_timestamp_valid,
    output wire        stat_frames_received,
    output wire [15:0] stat_bytes_received,
    output wire        stat_fcs_errors,
    output wire        stat_runts,
    output wire        stat_giants,
    output wire        stat_preamble_errors,
    output wire        stat_rx_errors,
    output wire        stat_overflows
);

always @(posedge clk) begin
    if (rst) begin
        tod_seconds <= 32'd0;
        tod_nanoseconds <= 30'd0;
    end else if (tod_load) begin
        tod_seconds <= tod_load_seconds;
        tod_nanoseconds <= tod_load_nanoseconds;
    end else if (tod_nanoseconds >= 30'd999999992) begin
        tod_seconds <= tod_seconds + 32'd1;
        tod_nanoseconds <= tod_nanoseconds - 30'd999999992;
    end else begin
        tod_nanoseconds <= tod_nanoseconds + 30'd8;
    end
end

mac_rx_port #(
    .MAX_FRAME_BYTES(MAX_FRAME_BYTES),
    .ADDR_WIDTH(ADDR_WIDTH),
    .LATENCY_NS(LATENCY_NS)
) port (
    .rgmii_rxc(rgmii_rxc),
    .rx_rst(rx_rst),
    .rgmii_rxd(rgmii_rxd),
    .rgmii_rx_ctl(rgmii_rx_ctl),
    .stat_frames_received(stat_frames_received),
    .stat_bytes_received(stat_bytes_received),
    .stat_fcs_errors(stat_fcs_errors),
    .stat_runts(stat_runts),
    .stat_giants(stat_giants),
    .stat_preamble_errors(stat_preamble_errors),
    .stat_rx_errors(stat_rx_errors),
    .stat_overflows(stat_overflows),
    .clk(clk),
    .rst(rst),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_rx_timestamp(m_axis_rx_timestamp),
    .m_axis_rx_timestamp_valid(m_axis_rx_timestamp_valid)
);

endmodule

`resetall
