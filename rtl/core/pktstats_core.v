/*
 * pktstats_core: the whole design without a board: the reference switch, event capture on its
 * output queues, the time-of-day clock, the wire timestamps of the MAC ports, the link-delay
 * engines (Y.1731 frame delay, headroom measurement, OpenKilda's ISL round trip), the
 * flow-latency monitor with its IPFIX exporter, the identity block, and the register
 * interconnect.
 * Board shells (fpga/<board>/) and the simulator (sim/) wrap this module.
 *
 *   registers (AXI4-Lite, 16-bit addresses)
 *     0x0000 identity (pktstats_id_regs)   0x1000 evcap   0x2000 switch   0x3000 time
 *     0x4000 stamp   0x5000 oam   0x6000 flowlat (docs/regmap.md)
 *
 *   8 inputs --> switch_core ------------------------------> oam_block egress --> 8 outputs
 *      |   RX stamps |   | lookup -> oam_block steer -> queues |   (stamps written)
 *      v   (meta)    |   |                                     | meta of each frame
 *   stamp_block -----'   |                                     v   out of MAC ports 0..3
 *   (RX point)           |          stamp_block (TX point) --> m_axis_rx_timestamp, _valid,
 *     queue events v     | stat packets                        m_axis_tx_timestamp,
 *                 evcap -+                                     m_axis_residence_time
 *                        | IPFIX messages          frames leaving MAC ports 0..3, their
 *               flowlat -'  <-------------------   residence times (flow-latency monitor)
 *
 * Ports 0..3 are the MAC ports, 4..7 the CPU ports; input i and output i are the same port.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module pktstats_core #(
    // Git hash of the build (first 8 hex digits), read from the identity block
    parameter [31:0] GIT_HASH = 32'h00000000,
    // Entries of the switch's learning table
    parameter TABLE_SIZE = 32,
    // Clock cycles per ageing tick of the learning table (1 s at 125 MHz)
    parameter AGE_TICK_CYCLES = 125000000,
    // log2 of each output queue's block RAM in 64-bit words (12: 32 KiB)
    parameter QUEUE_DEPTH_LOG2 = 12
) (
    input  wire            clk,
    input  wire            rst,

    // Frames into the switch, port i in slice i
    input  wire [8*64-1:0] s_axis_tdata,
    input  wire [8*8-1:0]  s_axis_tkeep,
    input  wire [7:0]      s_axis_tvalid,
    output wire [7:0]      s_axis_tready,
    input  wire [7:0]      s_axis_tlast,
    // RX timestamps of MAC input i (0..3) from the MAC, read with the frame's first word
    // (docs/timestamps.md): {seconds[31:0], nanoseconds[29:0]} in bits 62i+61:62i, the time of
    // day (tod_seconds, tod_nanoseconds below) the MAC sampled in the clock the frame's first
    // bit arrived; rx_correction is added. Valid 0: the switch stamps the clock the first word
    // is accepted instead (fallback, no constant latency to the wire under load)
    input  wire [4*62-1:0] s_axis_rx_timestamp,
    input  wire [3:0]      s_axis_rx_timestamp_valid,

    // Frames out of the switch, port i in slice i
    output wire [8*64-1:0] m_axis_tdata,
    output wire [8*8-1:0]  m_axis_tkeep,
    output wire [7:0]      m_axis_tvalid,
    input  wire [7:0]      m_axis_tready,
    output wire [7:0]      m_axis_tlast,

    // Wire timestamps of the frames out of MAC port i (0..3), valid in the clock of the
    // handshake of their first word on m_axis (docs/timestamps.md): stamps are
    // {seconds[31:0], nanoseconds[29:0]} in bits 62i+61:62i, corrected to the first bit on the
    // wire; the TX stamp is that of the handshake clock, the RX stamp the MAC's (s_axis_rx_timestamp)
    // or, without it, that of the clock the frame's first word entered the switch (valid 0 for stat packets and frames from CPU
    // ports), the residence time TX minus RX in signed ns (bits 32i+31:32i, 0 without RX stamp)
    output wire [4*62-1:0] m_axis_rx_timestamp,
    output wire [3:0]      m_axis_rx_timestamp_valid,
    output wire [4*62-1:0] m_axis_tx_timestamp,
    output wire [4*32-1:0] m_axis_residence_time,

    // Event-capture time base (8 ns clocks since the last timer reset), for the board shell
    // and the simulator
    output wire [63:0]     timer,

    // Time of day (docs/time.md): seconds, nanoseconds (0..999 999 999), fraction in 2^-32 ns
    output wire [47:0]     tod_seconds,
    output wire [29:0]     tod_nanoseconds,
    output wire [31:0]     tod_fraction,

    // Registers
    input  wire [15:0]   s_axil_awaddr,
    input  wire [2:0]    s_axil_awprot,
    input  wire          s_axil_awvalid,
    output wire          s_axil_awready,
    input  wire [31:0]   s_axil_wdata,
    input  wire [3:0]    s_axil_wstrb,
    input  wire          s_axil_wvalid,
    output wire          s_axil_wready,
    output wire [1:0]    s_axil_bresp,
    output wire          s_axil_bvalid,
    input  wire          s_axil_bready,
    input  wire [15:0]   s_axil_araddr,
    input  wire [2:0]    s_axil_arprot,
    input  wire          s_axil_arvalid,
    output wire          s_axil_arready,
    output wire [31:0]   s_axil_rdata,
    output wire [1:0]    s_axil_rresp,
    output wire          s_axil_rvalid,
    input  wire          s_axil_rready
);

wire [7*12-1:0] block_axil_awaddr;
wire [7*3-1:0] block_axil_awprot;
wire [7*1-1:0] block_axil_awvalid;
wire [7*1-1:0] block_axil_awready;
wire [7*32-1:0] block_axil_wdata;
wire [7*4-1:0] block_axil_wstrb;
wire [7*1-1:0] block_axil_wvalid;
wire [7*1-1:0] block_axil_wready;
wire [7*2-1:0] block_axil_bresp;
wire [7*1-1:0] block_axil_bvalid;
wire [7*1-1:0] block_axil_bready;
wire [7*12-1:0] block_axil_araddr;
wire [7*3-1:0] block_axil_arprot;
wire [7*1-1:0] block_axil_arvalid;
wire [7*1-1:0] block_axil_arready;
wire [7*32-1:0] block_axil_rdata;
wire [7*2-1:0] block_axil_rresp;
wire [7*1-1:0] block_axil_rvalid;
wire [7*1-1:0] block_axil_rready;

common_axil_interconnect #(
    .SLAVE_COUNT(7),
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
    .m_axil_awaddr(block_axil_awaddr),
    .m_axil_awprot(block_axil_awprot),
    .m_axil_awvalid(block_axil_awvalid),
    .m_axil_awready(block_axil_awready),
    .m_axil_wdata(block_axil_wdata),
    .m_axil_wstrb(block_axil_wstrb),
    .m_axil_wvalid(block_axil_wvalid),
    .m_axil_wready(block_axil_wready),
    .m_axil_bresp(block_axil_bresp),
    .m_axil_bvalid(block_axil_bvalid),
    .m_axil_bready(block_axil_bready),
    .m_axil_araddr(block_axil_araddr),
    .m_axil_arprot(block_axil_arprot),
    .m_axil_arvalid(block_axil_arvalid),
    .m_axil_arready(block_axil_arready),
    .m_axil_rdata(block_axil_rdata),
    .m_axil_rresp(block_axil_rresp),
    .m_axil_rvalid(block_axil_rvalid),
    .m_axil_rready(block_axil_rready)
);

pktstats_id_regs id_inst (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(block_axil_awaddr[12*0 +: 12]),
    .s_axil_awprot(block_axil_awprot[3*0 +: 3]),
    .s_axil_awvalid(block_axil_awvalid[1*0 +: 1]),
    .s_axil_awready(block_axil_awready[1*0 +: 1]),
    .s_axil_wdata(block_axil_wdata[32*0 +: 32]),
    .s_axil_wstrb(block_axil_wstrb[4*0 +: 4]),
    .s_axil_wvalid(block_axil_wvalid[1*0 +: 1]),
    .s_axil_wready(block_axil_wready[1*0 +: 1]),
    .s_axil_bresp(block_axil_bresp[2*0 +: 2]),
    .s_axil_bvalid(block_axil_bvalid[1*0 +: 1]),
    .s_axil_bready(block_axil_bready[1*0 +: 1]),
    .s_axil_araddr(block_axil_araddr[12*0 +: 12]),
    .s_axil_arprot(block_axil_arprot[3*0 +: 3]),
    .s_axil_arvalid(block_axil_arvalid[1*0 +: 1]),
    .s_axil_arready(block_axil_arready[1*0 +: 1]),
    .s_axil_rdata(block_axil_rdata[32*0 +: 32]),
    .s_axil_rresp(block_axil_rresp[2*0 +: 2]),
    .s_axil_rvalid(block_axil_rvalid[1*0 +: 1]),
    .s_axil_rready(block_axil_rready[1*0 +: 1]),
    .git_hash(GIT_HASH)
);

wire [63:0]     stat_tdata;
wire [7:0]      stat_tkeep;
wire            stat_tvalid;
wire            stat_tready;
wire            stat_tlast;
wire [7:0]      stat_tuser;
wire [63:0]     evcap_stat_tdata;
wire [7:0]      evcap_stat_tkeep;
wire            evcap_stat_tvalid;
wire            evcap_stat_tready;
wire            evcap_stat_tlast;
wire [7:0]      evcap_stat_tuser;
wire [63:0]     ipfix_tdata;
wire [7:0]      ipfix_tkeep;
wire            ipfix_tvalid;
wire            ipfix_tready;
wire            ipfix_tlast;
wire [7:0]      ipfix_tuser;
wire [4*3-1:0]  output_ingress;
wire [7:0]      queue_arrival;
wire [8*16-1:0] queue_arrival_length;
wire [7:0]      queue_departure;
wire [8*16-1:0] queue_departure_length;
wire [7:0]      queue_drop;
wire [8*16-1:0] queue_drop_length;
wire [8*20-1:0] queue_occupancy;
wire [8*63-1:0] stamp_meta;
wire [4*62-1:0] stamp_rx_stamp;
wire [3:0]      stamp_rx_valid;
wire [4*62-1:0] stamp_tx_stamp;
wire [8*94-1:0] output_meta;
wire [7:0]      output_meta_valid;
wire [63:0]     steer_in_tdata;
wire [7:0]      steer_in_tkeep;
wire            steer_in_tvalid;
wire            steer_in_tready;
wire            steer_in_tlast;
wire [10:0]     steer_in_tuser;
wire [62:0]     steer_in_meta;
wire [63:0]     steer_out_tdata;
wire [7:0]      steer_out_tkeep;
wire            steer_out_tvalid;
wire            steer_out_tready;
wire            steer_out_tlast;
wire [10:0]     steer_out_tuser;
wire [93:0]     steer_out_meta;
wire [8*64-1:0] switch_tdata;
wire [8*8-1:0]  switch_tkeep;
wire [7:0]      switch_tvalid;
wire [7:0]      switch_tready;
wire [7:0]      switch_tlast;

evcap #(
    .QUEUE_SIZE_WIDTH(20)
) evcap_inst (
    .clk(clk),
    .rst(rst),
    .queue_arrival(queue_arrival),
    .queue_arrival_length(queue_arrival_length),
    .queue_departure(queue_departure),
    .queue_departure_length(queue_departure_length),
    .queue_drop(queue_drop),
    .queue_drop_length(queue_drop_length),
    .queue_occupancy(queue_occupancy),
    .m_axis_tdata(evcap_stat_tdata),
    .m_axis_tkeep(evcap_stat_tkeep),
    .m_axis_tvalid(evcap_stat_tvalid),
    .m_axis_tready(evcap_stat_tready),
    .m_axis_tlast(evcap_stat_tlast),
    .m_axis_tuser(evcap_stat_tuser),
    .s_axil_awaddr(block_axil_awaddr[12*1 +: 12]),
    .s_axil_awprot(block_axil_awprot[3*1 +: 3]),
    .s_axil_awvalid(block_axil_awvalid[1*1 +: 1]),
    .s_axil_awready(block_axil_awready[1*1 +: 1]),
    .s_axil_wdata(block_axil_wdata[32*1 +: 32]),
    .s_axil_wstrb(block_axil_wstrb[4*1 +: 4]),
    .s_axil_wvalid(block_axil_wvalid[1*1 +: 1]),
    .s_axil_wready(block_axil_wready[1*1 +: 1]),
    .s_axil_bresp(block_axil_bresp[2*1 +: 2]),
    .s_axil_bvalid(block_axil_bvalid[1*1 +: 1]),
    .s_axil_bready(block_axil_bready[1*1 +: 1]),
    .s_axil_araddr(block_axil_araddr[12*1 +: 12]),
    .s_axil_arprot(block_axil_arprot[3*1 +: 3]),
    .s_axil_arvalid(block_axil_arvalid[1*1 +: 1]),
    .s_axil_arready(block_axil_arready[1*1 +: 1]),
    .s_axil_rdata(block_axil_rdata[32*1 +: 32]),
    .s_axil_rresp(block_axil_rresp[2*1 +: 2]),
    .s_axil_rvalid(block_axil_rvalid[1*1 +: 1]),
    .s_axil_rready(block_axil_rready[1*1 +: 1]),
    .timer(timer)
);

// The switch's own frames: evcap's stat packets and the flow-latency monitor's IPFIX messages,
// whole frames taking turns, onto the stat path
switch_stat_merge stat_merge_inst (
    .clk(clk),
    .rst(rst),
    .s_a_tdata(evcap_stat_tdata),
    .s_a_tkeep(evcap_stat_tkeep),
    .s_a_tvalid(evcap_stat_tvalid),
    .s_a_tready(evcap_stat_tready),
    .s_a_tlast(evcap_stat_tlast),
    .s_a_tuser(evcap_stat_tuser),
    .s_b_tdata(ipfix_tdata),
    .s_b_tkeep(ipfix_tkeep),
    .s_b_tvalid(ipfix_tvalid),
    .s_b_tready(ipfix_tready),
    .s_b_tlast(ipfix_tlast),
    .s_b_tuser(ipfix_tuser),
    .m_tdata(stat_tdata),
    .m_tkeep(stat_tkeep),
    .m_tvalid(stat_tvalid),
    .m_tready(stat_tready),
    .m_tlast(stat_tlast),
    .m_tuser(stat_tuser)
);

switch_core #(
    .TABLE_SIZE(TABLE_SIZE),
    .AGE_TICK_CYCLES(AGE_TICK_CYCLES),
    .QUEUE_DEPTH_LOG2(QUEUE_DEPTH_LOG2)
) switch_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(switch_tdata),
    .m_axis_tkeep(switch_tkeep),
    .m_axis_tvalid(switch_tvalid),
    .m_axis_tready(switch_tready),
    .m_axis_tlast(switch_tlast),
    .s_axis_meta(stamp_meta),
    .m_axis_meta(output_meta),
    .m_axis_meta_valid(output_meta_valid),
    .m_axis_ingress(output_ingress),
    .m_steer_tdata(steer_in_tdata),
    .m_steer_tkeep(steer_in_tkeep),
    .m_steer_tvalid(steer_in_tvalid),
    .m_steer_tready(steer_in_tready),
    .m_steer_tlast(steer_in_tlast),
    .m_steer_tuser(steer_in_tuser),
    .m_steer_meta(steer_in_meta),
    .s_steer_tdata(steer_out_tdata),
    .s_steer_tkeep(steer_out_tkeep),
    .s_steer_tvalid(steer_out_tvalid),
    .s_steer_tready(steer_out_tready),
    .s_steer_tlast(steer_out_tlast),
    .s_steer_tuser(steer_out_tuser),
    .s_steer_meta(steer_out_meta),
    .s_stat_tdata(stat_tdata),
    .s_stat_tkeep(stat_tkeep),
    .s_stat_tvalid(stat_tvalid),
    .s_stat_tready(stat_tready),
    .s_stat_tlast(stat_tlast),
    .s_stat_tuser(stat_tuser),
    .queue_arrival(queue_arrival),
    .queue_arrival_length(queue_arrival_length),
    .queue_departure(queue_departure),
    .queue_departure_length(queue_departure_length),
    .queue_drop(queue_drop),
    .queue_drop_length(queue_drop_length),
    .queue_occupancy(queue_occupancy),
    .s_axil_awaddr(block_axil_awaddr[12*2 +: 12]),
    .s_axil_awprot(block_axil_awprot[3*2 +: 3]),
    .s_axil_awvalid(block_axil_awvalid[1*2 +: 1]),
    .s_axil_awready(block_axil_awready[1*2 +: 1]),
    .s_axil_wdata(block_axil_wdata[32*2 +: 32]),
    .s_axil_wstrb(block_axil_wstrb[4*2 +: 4]),
    .s_axil_wvalid(block_axil_wvalid[1*2 +: 1]),
    .s_axil_wready(block_axil_wready[1*2 +: 1]),
    .s_axil_bresp(block_axil_bresp[2*2 +: 2]),
    .s_axil_bvalid(block_axil_bvalid[1*2 +: 1]),
    .s_axil_bready(block_axil_bready[1*2 +: 1]),
    .s_axil_araddr(block_axil_araddr[12*2 +: 12]),
    .s_axil_arprot(block_axil_arprot[3*2 +: 3]),
    .s_axil_arvalid(block_axil_arvalid[1*2 +: 1]),
    .s_axil_arready(block_axil_arready[1*2 +: 1]),
    .s_axil_rdata(block_axil_rdata[32*2 +: 32]),
    .s_axil_rresp(block_axil_rresp[2*2 +: 2]),
    .s_axil_rvalid(block_axil_rvalid[1*2 +: 1]),
    .s_axil_rready(block_axil_rready[1*2 +: 1])
);

time_base time_inst (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(block_axil_awaddr[12*3 +: 12]),
    .s_axil_awprot(block_axil_awprot[3*3 +: 3]),
    .s_axil_awvalid(block_axil_awvalid[1*3 +: 1]),
    .s_axil_awready(block_axil_awready[1*3 +: 1]),
    .s_axil_wdata(block_axil_wdata[32*3 +: 32]),
    .s_axil_wstrb(block_axil_wstrb[4*3 +: 4]),
    .s_axil_wvalid(block_axil_wvalid[1*3 +: 1]),
    .s_axil_wready(block_axil_wready[1*3 +: 1]),
    .s_axil_bresp(block_axil_bresp[2*3 +: 2]),
    .s_axil_bvalid(block_axil_bvalid[1*3 +: 1]),
    .s_axil_bready(block_axil_bready[1*3 +: 1]),
    .s_axil_araddr(block_axil_araddr[12*3 +: 12]),
    .s_axil_arprot(block_axil_arprot[3*3 +: 3]),
    .s_axil_arvalid(block_axil_arvalid[1*3 +: 1]),
    .s_axil_arready(block_axil_arready[1*3 +: 1]),
    .s_axil_rdata(block_axil_rdata[32*3 +: 32]),
    .s_axil_rresp(block_axil_rresp[2*3 +: 2]),
    .s_axil_rvalid(block_axil_rvalid[1*3 +: 1]),
    .s_axil_rready(block_axil_rready[1*3 +: 1]),
    .timer(timer),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .tod_fraction(tod_fraction)
);

// Wire timestamps of the MAC ports: RX and TX points, corrections and debug registers. The
// RX stamp of the frame on MAC output i is in its metadata (bits 62:0: {valid, stamp})

genvar i;
generate
    for (i = 0; i < 4; i = i + 1) begin : rx_stamp
        assign stamp_rx_stamp[62*i +: 62] = output_meta[94*i +: 62];
        assign stamp_rx_valid[i] = output_meta_valid[i] && output_meta[94*i + 62];
    end
endgenerate

assign m_axis_rx_timestamp = stamp_rx_stamp;
assign m_axis_rx_timestamp_valid = stamp_rx_valid;
assign m_axis_tx_timestamp = stamp_tx_stamp;

stamp_block stamp_inst (
    .clk(clk),
    .rst(rst),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_rx_stamp(s_axis_rx_timestamp),
    .s_rx_stamp_valid(s_axis_rx_timestamp_valid),
    .m_meta(stamp_meta),
    .m_axis_tvalid(m_axis_tvalid[3:0]),
    .m_axis_tready(m_axis_tready[3:0]),
    .m_axis_tlast(m_axis_tlast[3:0]),
    .rx_stamp(stamp_rx_stamp),
    .rx_valid(stamp_rx_valid),
    .tx_stamp(stamp_tx_stamp),
    .residence(m_axis_residence_time),
    .s_axil_awaddr(block_axil_awaddr[12*4 +: 12]),
    .s_axil_awprot(block_axil_awprot[3*4 +: 3]),
    .s_axil_awvalid(block_axil_awvalid[1*4 +: 1]),
    .s_axil_awready(block_axil_awready[1*4 +: 1]),
    .s_axil_wdata(block_axil_wdata[32*4 +: 32]),
    .s_axil_wstrb(block_axil_wstrb[4*4 +: 4]),
    .s_axil_wvalid(block_axil_wvalid[1*4 +: 1]),
    .s_axil_wready(block_axil_wready[1*4 +: 1]),
    .s_axil_bresp(block_axil_bresp[2*4 +: 2]),
    .s_axil_bvalid(block_axil_bvalid[1*4 +: 1]),
    .s_axil_bready(block_axil_bready[1*4 +: 1]),
    .s_axil_araddr(block_axil_araddr[12*4 +: 12]),
    .s_axil_arprot(block_axil_arprot[3*4 +: 3]),
    .s_axil_arvalid(block_axil_arvalid[1*4 +: 1]),
    .s_axil_arready(block_axil_arready[1*4 +: 1]),
    .s_axil_rdata(block_axil_rdata[32*4 +: 32]),
    .s_axil_rresp(block_axil_rresp[2*4 +: 2]),
    .s_axil_rvalid(block_axil_rvalid[1*4 +: 1]),
    .s_axil_rready(block_axil_rready[1*4 +: 1])
);

// Link-delay engines: the steer between the switch's lookup and queues, the egress between
// its outputs and the MACs (docs/oam.md)

oam_block oam_inst (
    .clk(clk),
    .rst(rst),
    .s_steer_tdata(steer_in_tdata),
    .s_steer_tkeep(steer_in_tkeep),
    .s_steer_tvalid(steer_in_tvalid),
    .s_steer_tready(steer_in_tready),
    .s_steer_tlast(steer_in_tlast),
    .s_steer_tuser(steer_in_tuser),
    .s_steer_meta(steer_in_meta),
    .m_steer_tdata(steer_out_tdata),
    .m_steer_tkeep(steer_out_tkeep),
    .m_steer_tvalid(steer_out_tvalid),
    .m_steer_tready(steer_out_tready),
    .m_steer_tlast(steer_out_tlast),
    .m_steer_tuser(steer_out_tuser),
    .m_steer_meta(steer_out_meta),
    .s_axis_tdata(switch_tdata),
    .s_axis_tkeep(switch_tkeep),
    .s_axis_tvalid(switch_tvalid),
    .s_axis_tready(switch_tready),
    .s_axis_tlast(switch_tlast),
    .s_axis_meta(output_meta),
    .s_axis_meta_valid(output_meta_valid),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .tx_stamp(stamp_tx_stamp),
    .s_axil_awaddr(block_axil_awaddr[12*5 +: 12]),
    .s_axil_awprot(block_axil_awprot[3*5 +: 3]),
    .s_axil_awvalid(block_axil_awvalid[1*5 +: 1]),
    .s_axil_awready(block_axil_awready[1*5 +: 1]),
    .s_axil_wdata(block_axil_wdata[32*5 +: 32]),
    .s_axil_wstrb(block_axil_wstrb[4*5 +: 4]),
    .s_axil_wvalid(block_axil_wvalid[1*5 +: 1]),
    .s_axil_wready(block_axil_wready[1*5 +: 1]),
    .s_axil_bresp(block_axil_bresp[2*5 +: 2]),
    .s_axil_bvalid(block_axil_bvalid[1*5 +: 1]),
    .s_axil_bready(block_axil_bready[1*5 +: 1]),
    .s_axil_araddr(block_axil_araddr[12*5 +: 12]),
    .s_axil_arprot(block_axil_arprot[3*5 +: 3]),
    .s_axil_arvalid(block_axil_arvalid[1*5 +: 1]),
    .s_axil_arready(block_axil_arready[1*5 +: 1]),
    .s_axil_rdata(block_axil_rdata[32*5 +: 32]),
    .s_axil_rresp(block_axil_rresp[2*5 +: 2]),
    .s_axil_rvalid(block_axil_rvalid[1*5 +: 1]),
    .s_axil_rready(block_axil_rready[1*5 +: 1])
);

// The flow-latency monitor (docs/flowlat.md): it watches the frames leaving the MAC ports, with
// their residence times, ingress ports and queue occupancies, and sends its events as IPFIX
// messages through the stat path

flowlat_block flowlat_inst (
    .clk(clk),
    .rst(rst),
    .tap_tdata(m_axis_tdata[0 +: 4*64]),
    .tap_tvalid(m_axis_tvalid[3:0]),
    .tap_tready(m_axis_tready[3:0]),
    .tap_tlast(m_axis_tlast[3:0]),
    .residence(m_axis_residence_time),
    .rx_valid(stamp_rx_valid),
    .tx_stamp(stamp_tx_stamp),
    .ingress(output_ingress),
    .occupancy(queue_occupancy[0 +: 4*20]),
    .tod_seconds(tod_seconds[31:0]),
    .m_axis_tdata(ipfix_tdata),
    .m_axis_tkeep(ipfix_tkeep),
    .m_axis_tvalid(ipfix_tvalid),
    .m_axis_tready(ipfix_tready),
    .m_axis_tlast(ipfix_tlast),
    .m_axis_tuser(ipfix_tuser),
    .s_axil_awaddr(block_axil_awaddr[12*6 +: 12]),
    .s_axil_awprot(block_axil_awprot[3*6 +: 3]),
    .s_axil_awvalid(block_axil_awvalid[1*6 +: 1]),
    .s_axil_awready(block_axil_awready[1*6 +: 1]),
    .s_axil_wdata(block_axil_wdata[32*6 +: 32]),
    .s_axil_wstrb(block_axil_wstrb[4*6 +: 4]),
    .s_axil_wvalid(block_axil_wvalid[1*6 +: 1]),
    .s_axil_wready(block_axil_wready[1*6 +: 1]),
    .s_axil_bresp(block_axil_bresp[2*6 +: 2]),
    .s_axil_bvalid(block_axil_bvalid[1*6 +: 1]),
    .s_axil_bready(block_axil_bready[1*6 +: 1]),
    .s_axil_araddr(block_axil_araddr[12*6 +: 12]),
    .s_axil_arprot(block_axil_arprot[3*6 +: 3]),
    .s_axil_arvalid(block_axil_arvalid[1*6 +: 1]),
    .s_axil_arready(block_axil_arready[1*6 +: 1]),
    .s_axil_rdata(block_axil_rdata[32*6 +: 32]),
    .s_axil_rresp(block_axil_rresp[2*6 +: 2]),
    .s_axil_rvalid(block_axil_rvalid[1*6 +: 1]),
    .s_axil_rready(block_axil_rready[1*6 +: 1])
);

endmodule

`resetall
