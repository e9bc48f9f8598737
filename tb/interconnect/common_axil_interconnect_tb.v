/*
 * common_axil_interconnect_tb: test top for tb/interconnect/test_interconnect.cpp: the
 * interconnect with the identity block at 0x0000 and the evcap register block at 0x1000
 * (inputs tied to constants the test reads back), and nothing at 0x2000 and above.
 */

`timescale 1ns / 1ps
`default_nettype none

module common_axil_interconnect_tb (
    input  wire clk,
    input  wire rst,
    output wire config_digest,
    input  wire [15:0] s_axil_awaddr,
    input  wire [2:0] s_axil_awprot,
    input  wire s_axil_awvalid,
    output wire s_axil_awready,
    input  wire [31:0] s_axil_wdata,
    input  wire [3:0] s_axil_wstrb,
    input  wire s_axil_wvalid,
    output wire s_axil_wready,
    output wire [1:0] s_axil_bresp,
    output wire s_axil_bvalid,
    input  wire s_axil_bready,
    input  wire [15:0] s_axil_araddr,
    input  wire [2:0] s_axil_arprot,
    input  wire s_axil_arvalid,
    output wire s_axil_arready,
    output wire [31:0] s_axil_rdata,
    output wire [1:0] s_axil_rresp,
    output wire s_axil_rvalid,
    input  wire s_axil_rready
);

wire [2*12-1:0] m_axil_awaddr;
wire [2*3-1:0] m_axil_awprot;
wire [2*1-1:0] m_axil_awvalid;
wire [2*1-1:0] m_axil_awready;
wire [2*32-1:0] m_axil_wdata;
wire [2*4-1:0] m_axil_wstrb;
wire [2*1-1:0] m_axil_wvalid;
wire [2*1-1:0] m_axil_wready;
wire [2*2-1:0] m_axil_bresp;
wire [2*1-1:0] m_axil_bvalid;
wire [2*1-1:0] m_axil_bready;
wire [2*12-1:0] m_axil_araddr;
wire [2*3-1:0] m_axil_arprot;
wire [2*1-1:0] m_axil_arvalid;
wire [2*1-1:0] m_axil_arready;
wire [2*32-1:0] m_axil_rdata;
wire [2*2-1:0] m_axil_rresp;
wire [2*1-1:0] m_axil_rvalid;
wire [2*1-1:0] m_axil_rready;

// The register block's outputs, folded into one output so that none is left unconnected
wire control_enable;
wire command_timer_reset;
wire command_flush;
wire [2:0] resolution;
wire [7:0] queue_mask;
wire [2:0] event_mask;
wire [7:0] output_ports;
wire [47:0] destination_mac;
wire [47:0] source_mac;
wire [31:0] source_ip;
wire [31:0] destination_ip;
wire [7:0] tos;
wire [7:0] ttl;
wire [15:0] udp_source_port;
wire [15:0] udp_destination_port;
wire [15:0] max_length;
wire [31:0] flush_timeout;
wire [63:0] timer_preset;
wire timer_preset_commit;
wire events_missed_clear;
wire events_sent_clear;
wire packets_sent_clear;

assign config_digest = ^{control_enable, command_timer_reset, command_flush, resolution, queue_mask, event_mask, output_ports, destination_mac, source_mac, source_ip, destination_ip, tos, ttl, udp_source_port, udp_destination_port, max_length, flush_timeout, timer_preset, timer_preset_commit, events_missed_clear, events_sent_clear, packets_sent_clear};

common_axil_interconnect #(
    .SLAVE_COUNT(2),
    .ADDR_WIDTH(16)
) interconnect_inst (
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
    .m_axil_awaddr(m_axil_awaddr),
    .m_axil_awprot(m_axil_awprot),
    .m_axil_awvalid(m_axil_awvalid),
    .m_axil_awready(m_axil_awready),
    .m_axil_wdata(m_axil_wdata),
    .m_axil_wstrb(m_axil_wstrb),
    .m_axil_wvalid(m_axil_wvalid),
    .m_axil_wready(m_axil_wready),
    .m_axil_bresp(m_axil_bresp),
    .m_axil_bvalid(m_axil_bvalid),
    .m_axil_bready(m_axil_bready),
    .m_axil_araddr(m_axil_araddr),
    .m_axil_arprot(m_axil_arprot),
    .m_axil_arvalid(m_axil_arvalid),
    .m_axil_arready(m_axil_arready),
    .m_axil_rdata(m_axil_rdata),
    .m_axil_rresp(m_axil_rresp),
    .m_axil_rvalid(m_axil_rvalid),
    .m_axil_rready(m_axil_rready)
);

pktstats_id_regs id_inst (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(m_axil_awaddr[12*0 +: 12]),
    .s_axil_awprot(m_axil_awprot[3*0 +: 3]),
    .s_axil_awvalid(m_axil_awvalid[1*0 +: 1]),
    .s_axil_awready(m_axil_awready[1*0 +: 1]),
    .s_axil_wdata(m_axil_wdata[32*0 +: 32]),
    .s_axil_wstrb(m_axil_wstrb[4*0 +: 4]),
    .s_axil_wvalid(m_axil_wvalid[1*0 +: 1]),
    .s_axil_wready(m_axil_wready[1*0 +: 1]),
    .s_axil_bresp(m_axil_bresp[2*0 +: 2]),
    .s_axil_bvalid(m_axil_bvalid[1*0 +: 1]),
    .s_axil_bready(m_axil_bready[1*0 +: 1]),
    .s_axil_araddr(m_axil_araddr[12*0 +: 12]),
    .s_axil_arprot(m_axil_arprot[3*0 +: 3]),
    .s_axil_arvalid(m_axil_arvalid[1*0 +: 1]),
    .s_axil_arready(m_axil_arready[1*0 +: 1]),
    .s_axil_rdata(m_axil_rdata[32*0 +: 32]),
    .s_axil_rresp(m_axil_rresp[2*0 +: 2]),
    .s_axil_rvalid(m_axil_rvalid[1*0 +: 1]),
    .s_axil_rready(m_axil_rready[1*0 +: 1]),
    .git_hash(32'h0badc0de)
);

evcap_regs evcap_inst (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(m_axil_awaddr[12*1 +: 12]),
    .s_axil_awprot(m_axil_awprot[3*1 +: 3]),
    .s_axil_awvalid(m_axil_awvalid[1*1 +: 1]),
    .s_axil_awready(m_axil_awready[1*1 +: 1]),
    .s_axil_wdata(m_axil_wdata[32*1 +: 32]),
    .s_axil_wstrb(m_axil_wstrb[4*1 +: 4]),
    .s_axil_wvalid(m_axil_wvalid[1*1 +: 1]),
    .s_axil_wready(m_axil_wready[1*1 +: 1]),
    .s_axil_bresp(m_axil_bresp[2*1 +: 2]),
    .s_axil_bvalid(m_axil_bvalid[1*1 +: 1]),
    .s_axil_bready(m_axil_bready[1*1 +: 1]),
    .s_axil_araddr(m_axil_araddr[12*1 +: 12]),
    .s_axil_arprot(m_axil_arprot[3*1 +: 3]),
    .s_axil_arvalid(m_axil_arvalid[1*1 +: 1]),
    .s_axil_arready(m_axil_arready[1*1 +: 1]),
    .s_axil_rdata(m_axil_rdata[32*1 +: 32]),
    .s_axil_rresp(m_axil_rresp[2*1 +: 2]),
    .s_axil_rvalid(m_axil_rvalid[1*1 +: 1]),
    .s_axil_rready(m_axil_rready[1*1 +: 1]),
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
    .timer(64'h1122334455667788),
    .timer_preset(timer_preset),
    .timer_preset_commit(timer_preset_commit),
    .events_missed(64'd5),
    .events_missed_clear(events_missed_clear),
    .events_sent(64'd6),
    .events_sent_clear(events_sent_clear),
    .packets_sent(64'd7),
    .packets_sent_clear(packets_sent_clear)
);

endmodule

`default_nettype wire
