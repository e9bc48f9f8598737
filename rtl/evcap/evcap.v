/*
 * evcap: event capture with its AXI4-Lite registers, the block the switch instantiates.
 *
 * evcap_regs (generated from regmap/evcap.toml) holds the configuration and exposes the timer
 * and counters; evcap_core does the work (see its header and docs/evcap-architecture.md).
 * Register map: docs/regmap.md. Packet format: docs/packet-format.md.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module evcap #(
    // Width of each queue's occupancy input, in 64-bit words (at most 32)
    parameter QUEUE_SIZE_WIDTH = 20,
    // log2 of the record FIFO depth (one record per clock with events)
    parameter RECORD_FIFO_DEPTH_LOG2 = 9,
    // log2 of the packet ring size in 64-bit words (at least 11)
    parameter PACKET_RAM_DEPTH_LOG2 = 11,
    // log2 of the number of closed packets waiting to be sent
    parameter DESCRIPTOR_FIFO_DEPTH_LOG2 = 4
) (
    input  wire                          clk,
    input  wire                          rst,

    // Queue events (see evcap_core)
    input  wire [7:0]                    queue_arrival,
    input  wire [8*16-1:0]               queue_arrival_length,
    input  wire [7:0]                    queue_departure,
    input  wire [8*16-1:0]               queue_departure_length,
    input  wire [7:0]                    queue_drop,
    input  wire [8*16-1:0]               queue_drop_length,
    input  wire [8*QUEUE_SIZE_WIDTH-1:0] queue_occupancy,

    // Stat packets; tuser = output port mask
    output wire [63:0]                   m_axis_tdata,
    output wire [7:0]                    m_axis_tkeep,
    output wire                          m_axis_tvalid,
    input  wire                          m_axis_tready,
    output wire                          m_axis_tlast,
    output wire [7:0]                    m_axis_tuser,

    // Registers (block-local addresses)
    input  wire [11:0]                   s_axil_awaddr,
    input  wire [2:0]                    s_axil_awprot,
    input  wire                          s_axil_awvalid,
    output wire                          s_axil_awready,
    input  wire [31:0]                   s_axil_wdata,
    input  wire [3:0]                    s_axil_wstrb,
    input  wire                          s_axil_wvalid,
    output wire                          s_axil_wready,
    output wire [1:0]                    s_axil_bresp,
    output wire                          s_axil_bvalid,
    input  wire                          s_axil_bready,
    input  wire [11:0]                   s_axil_araddr,
    input  wire [2:0]                    s_axil_arprot,
    input  wire                          s_axil_arvalid,
    output wire                          s_axil_arready,
    output wire [31:0]                   s_axil_rdata,
    output wire [1:0]                    s_axil_rresp,
    output wire                          s_axil_rvalid,
    input  wire                          s_axil_rready,

    // Shared time base (8 ns clocks since the last timer reset)
    output wire [63:0]                   timer
);

wire        control_enable;
wire        command_timer_reset;
wire        command_flush;
wire [2:0]  resolution;
wire [7:0]  queue_mask;
wire [2:0]  event_mask;
wire [7:0]  output_ports;
wire [47:0] destination_mac;
wire [47:0] source_mac;
wire [31:0] source_ip;
wire [31:0] destination_ip;
wire [7:0]  tos;
wire [7:0]  ttl;
wire [15:0] udp_source_port;
wire [15:0] udp_destination_port;
wire [15:0] max_length;
wire [31:0] flush_timeout;
wire [63:0] timer_preset;
wire        timer_preset_commit;
wire [63:0] events_missed;
wire        events_missed_clear;
wire [63:0] events_sent;
wire        events_sent_clear;
wire [63:0] packets_sent;
wire        packets_sent_clear;

evcap_regs regs_inst (
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
    .control_enable(control_enable),
    .command_timer_reset(command_timer_reset),
    .command_flush(command_flush),
    .resolution(resolution),
    .queue_mask(queue_mask),
    .event_mask(event_mask),
    .output_ports(output_ports),
    .destination_mac(destination_mac),
    .source_mac(source_mac),
    .source_ip(source_ip),
    .destination_ip(destination_ip),
    .tos(tos),
    .ttl(ttl),
    .udp_source_port(udp_source_port),
    .udp_destination_port(udp_destination_port),
    .max_length(max_length),
    .flush_timeout(flush_timeout),
    .timer(timer),
    .timer_preset(timer_preset),
    .timer_preset_commit(timer_preset_commit),
    .events_missed(events_missed),
    .events_missed_clear(events_missed_clear),
    .events_sent(events_sent),
    .events_sent_clear(events_sent_clear),
    .packets_sent(packets_sent),
    .packets_sent_clear(packets_sent_clear)
);

evcap_core #(
    .QUEUE_SIZE_WIDTH(QUEUE_SIZE_WIDTH),
    .RECORD_FIFO_DEPTH_LOG2(RECORD_FIFO_DEPTH_LOG2),
    .PACKET_RAM_DEPTH_LOG2(PACKET_RAM_DEPTH_LOG2),
    .DESCRIPTOR_FIFO_DEPTH_LOG2(DESCRIPTOR_FIFO_DEPTH_LOG2)
) core_inst (
    .clk(clk),
    .rst(rst),
    .queue_arrival(queue_arrival),
    .queue_arrival_length(queue_arrival_length),
    .queue_departure(queue_departure),
    .queue_departure_length(queue_departure_length),
    .queue_drop(queue_drop),
    .queue_drop_length(queue_drop_length),
    .queue_occupancy(queue_occupancy),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .config_enable(control_enable),
    .config_resolution(resolution),
    .config_queue_mask(queue_mask),
    .config_event_mask(event_mask),
    .config_output_ports(output_ports),
    .config_destination_mac(destination_mac),
    .config_source_mac(source_mac),
    .config_source_ip(source_ip),
    .config_destination_ip(destination_ip),
    .config_tos(tos),
    .config_ttl(ttl),
    .config_udp_source_port(udp_source_port),
    .config_udp_destination_port(udp_destination_port),
    .config_max_length(max_length),
    .config_flush_timeout(flush_timeout),
    .config_timer_preset(timer_preset),
    .command_flush(command_flush),
    .command_timer_reset(command_timer_reset),
    .command_timer_load(timer_preset_commit),
    .command_clear_events_missed(events_missed_clear),
    .command_clear_events_sent(events_sent_clear),
    .command_clear_packets_sent(packets_sent_clear),
    .status_timer(timer),
    .status_events_missed(events_missed),
    .status_events_sent(events_sent),
    .status_packets_sent(packets_sent)
);

endmodule

`resetall
