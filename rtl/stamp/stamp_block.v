/*
 * stamp_block: wire timestamps of the 4 MAC ports, with their registers (block `stamp`,
 * regmap/stamp.toml; docs/timestamps.md).
 *
 *                 time of day (time_base)
 *                   |                 |
 *   s_axis handshakes --> stamp_rx --> m_meta ---> switch_core (arbiter -> lookup -> queues,
 *   (switch inputs)       + rx_correction          RX stamp carried with each frame)
 *                                                                  |
 *   m_axis handshakes --> stamp_tx <-- rx_stamp, rx_valid <--------'
 *   (switch outputs)      + tx_correction --> tx_stamp, residence (sideband of m_axis)
 *                             |
 *   registers (stamp_regs) <--' last RX, TX, residence per port; the 8 corrections -->
 *
 * The stamps are {seconds[31:0], nanoseconds[29:0]}: the low 32 bits of the time of day's
 * seconds, as the wire formats carry them.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module stamp_block (
    input  wire            clk,
    input  wire            rst,

    // Time of day (time_base): seconds, nanoseconds
    input  wire [47:0]     tod_seconds,
    input  wire [29:0]     tod_nanoseconds,

    // The switch's input handshakes, port i in bit i
    input  wire [7:0]      s_axis_tvalid,
    input  wire [7:0]      s_axis_tready,
    input  wire [7:0]      s_axis_tlast,
    // The MAC's RX stamps of MAC input i (bits 62i+61:62i), valid (bit i) with a frame's first
    // word; without valid the handshake clock's time of day is taken (stamp_rx)
    input  wire [4*62-1:0] s_rx_stamp,
    input  wire [3:0]      s_rx_stamp_valid,
    // Metadata of each input's current word, for the switch: port i in bits 63i+62:63i,
    // {valid, seconds[31:0], nanoseconds[29:0]} (valid 0 on the CPU ports)
    output wire [8*63-1:0] m_meta,

    // The switch's output handshakes of the MAC ports, port i in bit i
    input  wire [3:0]      m_axis_tvalid,
    input  wire [3:0]      m_axis_tready,
    input  wire [3:0]      m_axis_tlast,
    // RX stamp of the frame on MAC output i, from the switch (bits 62i+61:62i), and its valid
    input  wire [4*62-1:0] rx_stamp,
    input  wire [3:0]      rx_valid,
    // TX stamp of this clock (bits 62i+61:62i) and residence time of the frame on MAC output
    // i (bits 32i+31:32i, signed ns); the values of its first word's handshake clock count
    output wire [4*62-1:0] tx_stamp,
    output wire [4*32-1:0] residence,

    // Registers (block-local addresses)
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

wire [4*30-1:0] rx_correction;
wire [4*30-1:0] tx_correction;
wire [4*62-1:0] last_rx;
wire [4*62-1:0] last_tx;
wire [4*32-1:0] last_residence;

// The wire formats carry 32-bit seconds
wire unused = &{1'b0, tod_seconds[47:32]};

stamp_rx rx_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .tod_seconds(tod_seconds[31:0]),
    .tod_nanoseconds(tod_nanoseconds),
    .s_rx_stamp(s_rx_stamp),
    .s_rx_stamp_valid(s_rx_stamp_valid),
    .rx_correction(rx_correction),
    .m_meta(m_meta),
    .last_rx(last_rx)
);

stamp_tx tx_inst (
    .clk(clk),
    .rst(rst),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .rx_stamp(rx_stamp),
    .rx_valid(rx_valid),
    .tod_seconds(tod_seconds[31:0]),
    .tod_nanoseconds(tod_nanoseconds),
    .tx_correction(tx_correction),
    .tx_stamp(tx_stamp),
    .residence(residence),
    .last_tx(last_tx),
    .last_residence(last_residence)
);

stamp_regs regs_inst (
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
    .rx_correction_0(rx_correction[30*0 +: 30]),
    .rx_correction_1(rx_correction[30*1 +: 30]),
    .rx_correction_2(rx_correction[30*2 +: 30]),
    .rx_correction_3(rx_correction[30*3 +: 30]),
    .tx_correction_0(tx_correction[30*0 +: 30]),
    .tx_correction_1(tx_correction[30*1 +: 30]),
    .tx_correction_2(tx_correction[30*2 +: 30]),
    .tx_correction_3(tx_correction[30*3 +: 30]),
    .last_rx_0({last_rx[62*0+30 +: 32], 2'b00, last_rx[62*0 +: 30]}),
    .last_rx_1({last_rx[62*1+30 +: 32], 2'b00, last_rx[62*1 +: 30]}),
    .last_rx_2({last_rx[62*2+30 +: 32], 2'b00, last_rx[62*2 +: 30]}),
    .last_rx_3({last_rx[62*3+30 +: 32], 2'b00, last_rx[62*3 +: 30]}),
    .last_tx_0({last_tx[62*0+30 +: 32], 2'b00, last_tx[62*0 +: 30]}),
    .last_tx_1({last_tx[62*1+30 +: 32], 2'b00, last_tx[62*1 +: 30]}),
    .last_tx_2({last_tx[62*2+30 +: 32], 2'b00, last_tx[62*2 +: 30]}),
    .last_tx_3({last_tx[62*3+30 +: 32], 2'b00, last_tx[62*3 +: 30]}),
    .last_residence_0(last_residence[32*0 +: 32]),
    .last_residence_1(last_residence[32*1 +: 32]),
    .last_residence_2(last_residence[32*2 +: 32]),
    .last_residence_3(last_residence[32*3 +: 32])
);

endmodule

`resetall
