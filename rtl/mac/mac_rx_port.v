/*
 * mac_rx_port: the receive half of one 1 Gb/s Ethernet port, RGMII pins to pktstats_core's
 * s_axis input (one per MAC port on the board top).
 *
 *   rgmii_rxc domain                                        |  clk domain (the switch)
 *   rgmii_rxd[3:0],  +--------------+ GMII  +--------+ bytes  +-------------+  m_axis (64 bits)
 *   rgmii_rx_ctl --> | mac_rgmii_rx | ----> | mac_rx | -----> | mac_rx_fifo | -> + rx timestamp
 *                    | (5 IDDR)     |       |        | start, |  (async,    |    ^
 *                    +--------------+       +--------+ end,   |  store and  |    tod_seconds,
 *                                            | stat_*   good  |  forward)   |    tod_nanoseconds
 *                                            v                +-------------+
 *                                     one pulse per frame          | stat_overflows
 *
 * The statistics are one-clock pulses in the rgmii_rxc domain (a register block in another
 * domain synchronizes or counts them there). Frames come out as pktstats_core's s_axis wants
 * them: without FCS, byte 0 in tdata[7:0], with m_axis_rx_timestamp/_valid on the first word,
 * the switch's time of day of the clock of the frame's first bit or the next clock's
 * (mac_rx_stamp). See mac_rx, mac_rx_fifo and mac_rx_stamp for the details.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_rx_port #(
    parameter MAX_FRAME_BYTES = 1518, // longest frame accepted, FCS included (mac_rx)
    parameter ADDR_WIDTH = 11,        // log2 of the FIFO's 8-byte words: 11 = 16 KiB (mac_rx_fifo)
    parameter LATENCY_NS = 96         // first bit to the time of day sampled (mac_rx_stamp)
) (
    // The PHY's side (rgmii_rxc domain)
    input  wire        rgmii_rxc,            // the PHY's 125 MHz receive clock, buffered
    input  wire        rx_rst,               // synchronous to rgmii_rxc, active high
    input  wire [3:0]  rgmii_rxd,
    input  wire        rgmii_rx_ctl,
    output wire        stat_frames_received, // a good frame (FIFO overflows included)
    output wire [15:0] stat_bytes_received,  // its bytes without FCS, with stat_frames_received
    output wire        stat_fcs_errors,
    output wire        stat_runts,           // < 64 bytes with FCS
    output wire        stat_giants,          // > MAX_FRAME_BYTES with FCS
    output wire        stat_preamble_errors, // no preamble and SFD
    output wire        stat_rx_errors,       // rx_er in the frame
    output wire        stat_overflows,       // a good frame dropped: no room in the FIFO
    // The switch's side (clk domain)
    input  wire        clk,
    input  wire        rst,                  // synchronous to clk, active high
    input  wire [31:0] tod_seconds,          // pktstats_core's time of day (low 32 bits of seconds)
    input  wire [29:0] tod_nanoseconds,
    output wire [63:0] m_axis_tdata,
    output wire [7:0]  m_axis_tkeep,
    output wire        m_axis_tvalid,
    input  wire        m_axis_tready,
    output wire        m_axis_tlast,
    output wire [61:0] m_axis_rx_timestamp,       // {seconds, nanoseconds}, with the first word
    output wire        m_axis_rx_timestamp_valid
);

wire [7:0] gmii_rxd;
wire gmii_rx_dv;
wire gmii_rx_er;

mac_rgmii_rx rgmii (
    .rgmii_rxc(rgmii_rxc),
    .rst(rx_rst),
    .rgmii_rxd(rgmii_rxd),
    .rgmii_rx_ctl(rgmii_rx_ctl),
    .gmii_rxd(gmii_rxd),
    .gmii_rx_dv(gmii_rx_dv),
    .gmii_rx_er(gmii_rx_er)
);

wire frame_start;
wire [7:0] byte_data;
wire byte_valid;
wire frame_end;
wire frame_good;

mac_rx #(
    .MAX_FRAME_BYTES(MAX_FRAME_BYTES)
) rx (
    .clk(rgmii_rxc),
    .rst(rx_rst),
    .gmii_rxd(gmii_rxd),
    .gmii_rx_dv(gmii_rx_dv),
    .gmii_rx_er(gmii_rx_er),
    .frame_start(frame_start),
    .byte_data(byte_data),
    .byte_valid(byte_valid),
    .frame_end(frame_end),
    .frame_good(frame_good),
    .stat_frames_received(stat_frames_received),
    .stat_bytes_received(stat_bytes_received),
    .stat_fcs_errors(stat_fcs_errors),
    .stat_runts(stat_runts),
    .stat_giants(stat_giants),
    .stat_preamble_errors(stat_preamble_errors),
    .stat_rx_errors(stat_rx_errors)
);

mac_rx_fifo #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .LATENCY_NS(LATENCY_NS)
) fifo (
    .rx_clk(rgmii_rxc),
    .rx_rst(rx_rst),
    .frame_start(frame_start),
    .byte_data(byte_data),
    .byte_valid(byte_valid),
    .frame_end(frame_end),
    .frame_good(frame_good),
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
