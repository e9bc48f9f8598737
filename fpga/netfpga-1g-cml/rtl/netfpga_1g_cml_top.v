/*
 * netfpga_1g_cml_top: pktstats on the NetFPGA-1G-CML (Kintex-7 XC7K325T-1FFG676): the board's
 * pins and clocks around the portable pktstats_core (docs/board.md). The ports are exactly
 * those of constraints/pins.xdc (tb/fpga/test_constraints.py checks it).
 *
 *   sys_clk_p/n (200 MHz) -> board_clocking: MMCM -> clk (125 MHz), clk90 (125 MHz, +90 deg)
 *   clk:  pktstats_core, mac_tx + mac_rgmii_tx x4, mac_rx_port's switch side x4, the PHY reset
 *         and MDIO set-up, the switch side of the PCIe crossings
 *   rgmii{i}_rxc -> BUFR -> mac_rx_port i's receive side (IDDRs, mac_rx, FIFO write)
 *   pcie_refclk_p/n -> IBUFDS_GTE2 -> pcie_xdma (Gen2 x4); its axi_aclk (125 MHz, from the
 *         PCIe reference clock: asynchronous to clk) runs the XDMA side of board_axil_cdc
 *         and of the four board_cpu_port
 *
 * Ports of the switch: 0..3 are the MACs (m_axis i -> mac_tx -> mac_rgmii_tx -> RGMII i;
 * RGMII i -> mac_rx_port -> s_axis i with its RX stamp), 4..7 the CPU ports (XDMA H2C j ->
 * s_axis 4+j, m_axis 4+j -> C2H j, j = 0..3). Registers: the XDMA's AXI4-Lite master (BAR0)
 * -> board_axil_cdc -> board_axil_split -> pktstats_core's s_axil (address bits 15:0; BAR0 is
 * 1 MB, so the 64 KiB register space repeats through it), except 0x7000-0x7fff -> the MAC
 * counters (board_mac_counters: the MACs' statistics, per port, the `mac` block of
 * regmap/mac.toml; on the board only).
 *
 * The core runs on the board's oscillator, not on the XDMA's 125 MHz user clock, and every
 * path between them crosses (board_axil_cdc, board_axis_async_fifo): the MACs need clk and a
 * 90-degree copy from one MMCM, the switch must run (and its time of day count) whether or not
 * a host has brought the PCIe link up, and the user clock comes from the host's reference
 * clock (spread spectrum allowed), stops with it, and is reset with the link.
 *
 * Resets (all synchronous, active high, one per clock domain, from board_reset_sync): rst
 * (clk) while the MMCM is not locked or the button (btn_reset_n, low when pressed) is down;
 * rx_rst[i] (rgmii{i}_rxc) while rst's condition holds or PHY i is in reset; pcie_rst
 * (axi_aclk) while the XDMA's axi_aresetn is low. The XDMA itself is reset by PERST#
 * (sys_rst_n = pcie_perst_n, as the IP expects).
 *
 * The RX clocks: each rgmii{i}_rxc goes through a BUFR (regional buffer), not a BUFG. The
 * constraints assume the PHY delays RXC by about 2 ns (RGMII-ID), so the data are centred on
 * RXC's edges at the pins and the IDDRs must see RXC with as little insertion delay as the
 * data path has: a BUFR next to the pins adds far less than a BUFG (whose delay, several ns,
 * would eat the 1 ns hold window of timing.xdc without IDELAYs, which mac_rgmii_rx does not
 * have). mac_rx_port has one clock for its IDDRs and its logic, so one BUFR serves both; the
 * receive side of a port (about 600 LUTs, 4 RAMB36) must then fit in that clock region (a
 * BUFR drives one region). To be confirmed in Vivado: that rgmii{i}_rxc are clock-capable
 * pins (SRCC/MRCC), the placement, and the hold/setup slack of the RX inputs.
 *
 * PHYs: board_phy_reset holds phy{i}_reset_n low for 10 ms after rst, then releases them and,
 * 5 ms later, board_mdio writes its table of PHY registers over MDC/MDIO. The table is EMPTY
 * here (NUM_WRITES 0): the register settings the board's PHYs need could not be established
 * from a source (docs/board.md says what must be set); the PHYs keep their strap settings.
 * After the table, board_mdio sends the host's clause-22 read and write frames, one at a time
 * (the `mac` block's mdio_frame, mdio_command and mdio_status, regmap/mac.toml; `pktstats mac
 * mdio`), so the PHYs can be identified and set without a new bitstream. The mdio pin goes
 * through an IOBUF (driven with mdio_o while mdio_oe is high) and is read back into
 * board_mdio's mdio_i.
 *
 * LEDs: led[i] blinks for each frame MAC port i sends or receives (a good frame), about 34 ms.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module netfpga_1g_cml_top #(
    parameter [31:0] GIT_HASH = 32'h00000000,
    // board_phy_reset: PHY reset time and the wait before MDIO, in 125 MHz clocks
    parameter [23:0] PHY_RESET_CYCLES = 24'd1250000,
    parameter [23:0] PHY_READY_CYCLES = 24'd625000,
    // board_led: blink length, log2 of clocks
    parameter LED_STRETCH_LOG2 = 22
) (
    // 200 MHz LVDS oscillator
    input  wire       sys_clk_p,
    input  wire       sys_clk_n,
    // reset button (low when pressed)
    input  wire       btn_reset_n,
    output wire [3:0] led,
    // MDIO, shared by the four PHYs
    output wire       mdc,
    inout  wire       mdio,
    // MAC port 0 (the reference designs' PHY 1)
    output wire       phy0_reset_n,
    output wire       rgmii0_txc,
    output wire       rgmii0_tx_ctl,
    output wire [3:0] rgmii0_txd,
    input  wire       rgmii0_rxc,
    input  wire       rgmii0_rx_ctl,
    input  wire [3:0] rgmii0_rxd,
    // MAC port 1 (the reference designs' PHY 2)
    output wire       phy1_reset_n,
    output wire       rgmii1_txc,
    output wire       rgmii1_tx_ctl,
    output wire [3:0] rgmii1_txd,
    input  wire       rgmii1_rxc,
    input  wire       rgmii1_rx_ctl,
    input  wire [3:0] rgmii1_rxd,
    // MAC port 2 (the reference designs' PHY 3)
    output wire       phy2_reset_n,
    output wire       rgmii2_txc,
    output wire       rgmii2_tx_ctl,
    output wire [3:0] rgmii2_txd,
    input  wire       rgmii2_rxc,
    input  wire       rgmii2_rx_ctl,
    input  wire [3:0] rgmii2_rxd,
    // MAC port 3 (the reference designs' PHY 4)
    output wire       phy3_reset_n,
    output wire       rgmii3_txc,
    output wire       rgmii3_tx_ctl,
    output wire [3:0] rgmii3_txd,
    input  wire       rgmii3_rxc,
    input  wire       rgmii3_rx_ctl,
    input  wire [3:0] rgmii3_rxd,
    // PCIe
    input  wire       pcie_refclk_p,
    input  wire       pcie_refclk_n,
    input  wire [3:0] pcie_rx_p,
    input  wire [3:0] pcie_rx_n,
    output wire [3:0] pcie_tx_p,
    output wire [3:0] pcie_tx_n,
    input  wire       pcie_perst_n
);

// ------------------------------------------------------------------------------------------
// Clocks and resets

wire clk;
wire clk90;
wire mmcm_locked;
wire rst;

board_clocking clocks (
    .sys_clk_p(sys_clk_p),
    .sys_clk_n(sys_clk_n),
    .clk(clk),
    .clk90(clk90),
    .locked(mmcm_locked)
);

// the reset condition of the switch clock (and of the RX clocks): asynchronous level
wire rst_request = !mmcm_locked || !btn_reset_n;

board_reset_sync clk_reset (
    .clk(clk),
    .rst_in(rst_request),
    .rst_out(rst)
);

// ------------------------------------------------------------------------------------------
// PHY reset and MDIO set-up

wire [3:0] phy_reset_n;
wire       phy_ready;
wire       mdio_o;
wire       mdio_oe;
wire       mdio_i;
wire       mdio_done;
// the host's MDIO frames: mac_counters' mdio_* registers <-> board_mdio
wire [4:0]  mdio_cmd_phy;
wire [4:0]  mdio_cmd_register;
wire [15:0] mdio_cmd_data;
wire        mdio_cmd_read;
wire        mdio_cmd_write;
wire        mdio_busy;
wire [15:0] mdio_read_data;
wire        mdio_no_answer;

board_phy_reset #(
    .RESET_CYCLES(PHY_RESET_CYCLES),
    .READY_CYCLES(PHY_READY_CYCLES)
) phy_reset (
    .clk(clk),
    .rst(rst),
    .phy_reset_n(phy_reset_n),
    .phy_ready(phy_ready)
);

// The table of PHY register writes is empty on purpose: see the header and docs/board.md. The
// host's frames come from the MAC block's registers (below).
board_mdio #(
    .CLK_DIV(8'd32),
    .NUM_WRITES(5'd0),
    .WRITES({16*32{1'b0}})
) mdio_master (
    .clk(clk),
    .rst(rst),
    .start(phy_ready),
    .mdc(mdc),
    .mdio_o(mdio_o),
    .mdio_oe(mdio_oe),
    .mdio_i(mdio_i),
    .done(mdio_done),
    .cmd_read(mdio_cmd_read),
    .cmd_write(mdio_cmd_write),
    .cmd_phy(mdio_cmd_phy),
    .cmd_register(mdio_cmd_register),
    .cmd_data(mdio_cmd_data),
    .busy(mdio_busy),
    .read_data(mdio_read_data),
    .no_answer(mdio_no_answer)
);

// The pin: driven with mdio_o while mdio_oe is high, else released (the PHYs drive it during a
// read's turnaround and data; a pull-up holds it at 1 otherwise); read back into board_mdio.

IOBUF mdio_iobuf (
    .O(mdio_i),
    .IO(mdio),
    .I(mdio_o),
    .T(!mdio_oe)
);

assign phy0_reset_n = phy_reset_n[0];
assign phy1_reset_n = phy_reset_n[1];
assign phy2_reset_n = phy_reset_n[2];
assign phy3_reset_n = phy_reset_n[3];

// ------------------------------------------------------------------------------------------
// The switch

wire [8*64-1:0] s_axis_tdata;
wire [8*8-1:0]  s_axis_tkeep;
wire [7:0]      s_axis_tvalid;
wire [7:0]      s_axis_tready;
wire [7:0]      s_axis_tlast;
wire [4*62-1:0] s_axis_rx_timestamp;
wire [3:0]      s_axis_rx_timestamp_valid;
wire [8*64-1:0] m_axis_tdata;
wire [8*8-1:0]  m_axis_tkeep;
wire [7:0]      m_axis_tvalid;
wire [7:0]      m_axis_tready;
wire [7:0]      m_axis_tlast;
wire [4*62-1:0] m_axis_rx_timestamp;
wire [3:0]      m_axis_rx_timestamp_valid;
wire [4*62-1:0] m_axis_tx_timestamp;
wire [4*32-1:0] m_axis_residence_time;
wire [63:0]     timer;
wire [47:0]     tod_seconds;
wire [29:0]     tod_nanoseconds;
wire [31:0]     tod_fraction;

// Registers: board_axil_cdc (bus_*, clk) -> board_axil_split -> pktstats_core (core_*), or the
// MAC counters (mac_block_*) for 0x7000-0x7fff
wire [15:0] bus_awaddr;
wire [2:0]  bus_awprot;
wire        bus_awvalid;
wire        bus_awready;
wire [31:0] bus_wdata;
wire [3:0]  bus_wstrb;
wire        bus_wvalid;
wire        bus_wready;
wire [1:0]  bus_bresp;
wire        bus_bvalid;
wire        bus_bready;
wire [15:0] bus_araddr;
wire [2:0]  bus_arprot;
wire        bus_arvalid;
wire        bus_arready;
wire [31:0] bus_rdata;
wire [1:0]  bus_rresp;
wire        bus_rvalid;
wire        bus_rready;

wire [15:0] core_awaddr;
wire [2:0]  core_awprot;
wire        core_awvalid;
wire        core_awready;
wire [31:0] core_wdata;
wire [3:0]  core_wstrb;
wire        core_wvalid;
wire        core_wready;
wire [1:0]  core_bresp;
wire        core_bvalid;
wire        core_bready;
wire [15:0] core_araddr;
wire [2:0]  core_arprot;
wire        core_arvalid;
wire        core_arready;
wire [31:0] core_rdata;
wire [1:0]  core_rresp;
wire        core_rvalid;
wire        core_rready;

wire [11:0] mac_block_awaddr;
wire [2:0]  mac_block_awprot;
wire        mac_block_awvalid;
wire        mac_block_awready;
wire [31:0] mac_block_wdata;
wire [3:0]  mac_block_wstrb;
wire        mac_block_wvalid;
wire        mac_block_wready;
wire [1:0]  mac_block_bresp;
wire        mac_block_bvalid;
wire        mac_block_bready;
wire [11:0] mac_block_araddr;
wire [2:0]  mac_block_arprot;
wire        mac_block_arvalid;
wire        mac_block_arready;
wire [31:0] mac_block_rdata;
wire [1:0]  mac_block_rresp;
wire        mac_block_rvalid;
wire        mac_block_rready;

pktstats_core #(
    .GIT_HASH(GIT_HASH)
) core (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_rx_timestamp(s_axis_rx_timestamp),
    .s_axis_rx_timestamp_valid(s_axis_rx_timestamp_valid),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_rx_timestamp(m_axis_rx_timestamp),
    .m_axis_rx_timestamp_valid(m_axis_rx_timestamp_valid),
    .m_axis_tx_timestamp(m_axis_tx_timestamp),
    .m_axis_residence_time(m_axis_residence_time),
    .timer(timer),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .tod_fraction(tod_fraction),
    .s_axil_awaddr(core_awaddr),
    .s_axil_awprot(core_awprot),
    .s_axil_awvalid(core_awvalid),
    .s_axil_awready(core_awready),
    .s_axil_wdata(core_wdata),
    .s_axil_wstrb(core_wstrb),
    .s_axil_wvalid(core_wvalid),
    .s_axil_wready(core_wready),
    .s_axil_bresp(core_bresp),
    .s_axil_bvalid(core_bvalid),
    .s_axil_bready(core_bready),
    .s_axil_araddr(core_araddr),
    .s_axil_arprot(core_arprot),
    .s_axil_arvalid(core_arvalid),
    .s_axil_arready(core_arready),
    .s_axil_rdata(core_rdata),
    .s_axil_rresp(core_rresp),
    .s_axil_rvalid(core_rvalid),
    .s_axil_rready(core_rready)
);

// ------------------------------------------------------------------------------------------
// The four MAC ports

wire [3:0]  rgmii_rxc = {rgmii3_rxc, rgmii2_rxc, rgmii1_rxc, rgmii0_rxc};
wire [3:0]  rgmii_rx_ctl = {rgmii3_rx_ctl, rgmii2_rx_ctl, rgmii1_rx_ctl, rgmii0_rx_ctl};
wire [15:0] rgmii_rxd = {rgmii3_rxd, rgmii2_rxd, rgmii1_rxd, rgmii0_rxd};
wire [3:0]  rgmii_txc;
wire [3:0]  rgmii_tx_ctl;
wire [15:0] rgmii_txd;

assign rgmii0_txc = rgmii_txc[0];
assign rgmii1_txc = rgmii_txc[1];
assign rgmii2_txc = rgmii_txc[2];
assign rgmii3_txc = rgmii_txc[3];
assign rgmii0_tx_ctl = rgmii_tx_ctl[0];
assign rgmii1_tx_ctl = rgmii_tx_ctl[1];
assign rgmii2_tx_ctl = rgmii_tx_ctl[2];
assign rgmii3_tx_ctl = rgmii_tx_ctl[3];
assign rgmii0_txd = rgmii_txd[3:0];
assign rgmii1_txd = rgmii_txd[7:4];
assign rgmii2_txd = rgmii_txd[11:8];
assign rgmii3_txd = rgmii_txd[15:12];

wire [3:0]  rx_clk;
wire [3:0]  rx_rst;
wire [3:0]  tx_led;
wire [3:0]  rx_led;
// The MACs' statistics (one-clock pulses, rtl/mac/): tx in clk, port i's rx in rx_clk[i];
// counted by board_mac_counters
wire [3:0]      tx_frame_sent;
wire [4*16-1:0] tx_frame_bytes;
wire [3:0]      tx_underrun;
wire [4*16-1:0] rx_bytes_received;
wire [3:0]      rx_fcs_errors;
wire [3:0]      rx_runts;
wire [3:0]      rx_giants;
wire [3:0]      rx_preamble_errors;
wire [3:0]      rx_errors;
wire [3:0]      rx_overflows;
wire [3:0]      rx_frame_received;

genvar i;
generate
    for (i = 0; i < 4; i = i + 1) begin : mac_port
        wire [7:0] gmii_txd;
        wire       gmii_tx_en;
        wire       gmii_tx_er;

        mac_tx tx (
            .clk(clk),
            .rst(rst),
            .s_axis_tdata(m_axis_tdata[64*i+:64]),
            .s_axis_tkeep(m_axis_tkeep[8*i+:8]),
            .s_axis_tvalid(m_axis_tvalid[i]),
            .s_axis_tready(m_axis_tready[i]),
            .s_axis_tlast(m_axis_tlast[i]),
            .gmii_txd(gmii_txd),
            .gmii_tx_en(gmii_tx_en),
            .gmii_tx_er(gmii_tx_er),
            .stat_frame_sent(tx_frame_sent[i]),
            .stat_frame_bytes(tx_frame_bytes[16*i+:16]),
            .stat_underrun(tx_underrun[i])
        );

        mac_rgmii_tx #(
            .TXC_CLK90(1)
        ) rgmii_tx (
            .clk(clk),
            .clk90(clk90),
            .rst(rst),
            .gmii_txd(gmii_txd),
            .gmii_tx_en(gmii_tx_en),
            .gmii_tx_er(gmii_tx_er),
            .rgmii_txd(rgmii_txd[4*i+:4]),
            .rgmii_tx_ctl(rgmii_tx_ctl[i]),
            .rgmii_txc(rgmii_txc[i])
        );

        // The RX clock: a BUFR (see the header for why not a BUFG)
        BUFR #(
            .BUFR_DIVIDE("BYPASS"),
            .SIM_DEVICE("7SERIES")
        ) rx_clk_bufr (
            .O(rx_clk[i]),
            .CE(1'b1),
            .CLR(1'b0),
            .I(rgmii_rxc[i])
        );

        board_reset_sync rx_reset (
            .clk(rx_clk[i]),
            .rst_in(rst_request || !phy_reset_n[i]),
            .rst_out(rx_rst[i])
        );

        mac_rx_port rx (
            .rgmii_rxc(rx_clk[i]),
            .rx_rst(rx_rst[i]),
            .rgmii_rxd(rgmii_rxd[4*i+:4]),
            .rgmii_rx_ctl(rgmii_rx_ctl[i]),
            .stat_frames_received(rx_frame_received[i]),
            .stat_bytes_received(rx_bytes_received[16*i+:16]),
            .stat_fcs_errors(rx_fcs_errors[i]),
            .stat_runts(rx_runts[i]),
            .stat_giants(rx_giants[i]),
            .stat_preamble_errors(rx_preamble_errors[i]),
            .stat_rx_errors(rx_errors[i]),
            .stat_overflows(rx_overflows[i]),
            .clk(clk),
            .rst(rst),
            .tod_seconds(tod_seconds[31:0]),
            .tod_nanoseconds(tod_nanoseconds),
            .m_axis_tdata(s_axis_tdata[64*i+:64]),
            .m_axis_tkeep(s_axis_tkeep[8*i+:8]),
            .m_axis_tvalid(s_axis_tvalid[i]),
            .m_axis_tready(s_axis_tready[i]),
            .m_axis_tlast(s_axis_tlast[i]),
            .m_axis_rx_timestamp(s_axis_rx_timestamp[62*i+:62]),
            .m_axis_rx_timestamp_valid(s_axis_rx_timestamp_valid[i])
        );

        board_led #(
            .STRETCH_LOG2(LED_STRETCH_LOG2)
        ) tx_activity (
            .clk(clk),
            .rst(rst),
            .event_pulse(tx_frame_sent[i]),
            .led(tx_led[i])
        );

        board_led #(
            .STRETCH_LOG2(LED_STRETCH_LOG2)
        ) rx_activity (
            .clk(rx_clk[i]),
            .rst(rx_rst[i]),
            .event_pulse(rx_frame_received[i]),
            .led(rx_led[i])
        );
    end
endgenerate

// an LED is slow: the OR of two flip-flops of two clock domains is fine (timing.xdc: false path)
assign led = tx_led | rx_led;

// ------------------------------------------------------------------------------------------
// PCIe: the XDMA, its register path and the four CPU ports

wire pcie_refclk;
wire pcie_refclk_div2;
wire pcie_clk;
wire pcie_aresetn;
wire pcie_rst;
wire pcie_link_up;
wire [0:0] pcie_irq_ack;
wire pcie_msi_enable;
wire [2:0] pcie_msi_vector_width;

IBUFDS_GTE2 #(
    .CLKCM_CFG("TRUE"),
    .CLKRCV_TRST("TRUE"),
    .CLKSWING_CFG(2'b11)
) pcie_refclk_ibuf (
    .O(pcie_refclk),
    .ODIV2(pcie_refclk_div2),
    .CEB(1'b0),
    .I(pcie_refclk_p),
    .IB(pcie_refclk_n)
);

wire [31:0] xdma_awaddr;
wire [2:0]  xdma_awprot;
wire        xdma_awvalid;
wire        xdma_awready;
wire [31:0] xdma_wdata;
wire [3:0]  xdma_wstrb;
wire        xdma_wvalid;
wire        xdma_wready;
wire        xdma_bvalid;
wire [1:0]  xdma_bresp;
wire        xdma_bready;
wire [31:0] xdma_araddr;
wire [2:0]  xdma_arprot;
wire        xdma_arvalid;
wire        xdma_arready;
wire [31:0] xdma_rdata;
wire [1:0]  xdma_rresp;
wire        xdma_rvalid;
wire        xdma_rready;

wire [4*128-1:0] h2c_tdata;
wire [4*16-1:0]  h2c_tkeep;
wire [3:0]       h2c_tvalid;
wire [3:0]       h2c_tready;
wire [3:0]       h2c_tlast;
wire [4*128-1:0] c2h_tdata;
wire [4*16-1:0]  c2h_tkeep;
wire [3:0]       c2h_tvalid;
wire [3:0]       c2h_tready;
wire [3:0]       c2h_tlast;

pcie_xdma xdma (
    .sys_clk(pcie_refclk),
    .sys_rst_n(pcie_perst_n),
    .user_lnk_up(pcie_link_up),
    .pci_exp_txp(pcie_tx_p),
    .pci_exp_txn(pcie_tx_n),
    .pci_exp_rxp(pcie_rx_p),
    .pci_exp_rxn(pcie_rx_n),
    .axi_aclk(pcie_clk),
    .axi_aresetn(pcie_aresetn),
    .usr_irq_req(1'b0),
    .usr_irq_ack(pcie_irq_ack),
    .msi_enable(pcie_msi_enable),
    .msi_vector_width(pcie_msi_vector_width),
    .m_axil_awaddr(xdma_awaddr),
    .m_axil_awprot(xdma_awprot),
    .m_axil_awvalid(xdma_awvalid),
    .m_axil_awready(xdma_awready),
    .m_axil_wdata(xdma_wdata),
    .m_axil_wstrb(xdma_wstrb),
    .m_axil_wvalid(xdma_wvalid),
    .m_axil_wready(xdma_wready),
    .m_axil_bvalid(xdma_bvalid),
    .m_axil_bresp(xdma_bresp),
    .m_axil_bready(xdma_bready),
    .m_axil_araddr(xdma_araddr),
    .m_axil_arprot(xdma_arprot),
    .m_axil_arvalid(xdma_arvalid),
    .m_axil_arready(xdma_arready),
    .m_axil_rdata(xdma_rdata),
    .m_axil_rresp(xdma_rresp),
    .m_axil_rvalid(xdma_rvalid),
    .m_axil_rready(xdma_rready),
    .s_axis_c2h_tdata_0(c2h_tdata[128*0+:128]),
    .s_axis_c2h_tlast_0(c2h_tlast[0]),
    .s_axis_c2h_tvalid_0(c2h_tvalid[0]),
    .s_axis_c2h_tready_0(c2h_tready[0]),
    .s_axis_c2h_tkeep_0(c2h_tkeep[16*0+:16]),
    .m_axis_h2c_tdata_0(h2c_tdata[128*0+:128]),
    .m_axis_h2c_tlast_0(h2c_tlast[0]),
    .m_axis_h2c_tvalid_0(h2c_tvalid[0]),
    .m_axis_h2c_tready_0(h2c_tready[0]),
    .m_axis_h2c_tkeep_0(h2c_tkeep[16*0+:16]),
    .s_axis_c2h_tdata_1(c2h_tdata[128*1+:128]),
    .s_axis_c2h_tlast_1(c2h_tlast[1]),
    .s_axis_c2h_tvalid_1(c2h_tvalid[1]),
    .s_axis_c2h_tready_1(c2h_tready[1]),
    .s_axis_c2h_tkeep_1(c2h_tkeep[16*1+:16]),
    .m_axis_h2c_tdata_1(h2c_tdata[128*1+:128]),
    .m_axis_h2c_tlast_1(h2c_tlast[1]),
    .m_axis_h2c_tvalid_1(h2c_tvalid[1]),
    .m_axis_h2c_tready_1(h2c_tready[1]),
    .m_axis_h2c_tkeep_1(h2c_tkeep[16*1+:16]),
    .s_axis_c2h_tdata_2(c2h_tdata[128*2+:128]),
    .s_axis_c2h_tlast_2(c2h_tlast[2]),
    .s_axis_c2h_tvalid_2(c2h_tvalid[2]),
    .s_axis_c2h_tready_2(c2h_tready[2]),
    .s_axis_c2h_tkeep_2(c2h_tkeep[16*2+:16]),
    .m_axis_h2c_tdata_2(h2c_tdata[128*2+:128]),
    .m_axis_h2c_tlast_2(h2c_tlast[2]),
    .m_axis_h2c_tvalid_2(h2c_tvalid[2]),
    .m_axis_h2c_tready_2(h2c_tready[2]),
    .m_axis_h2c_tkeep_2(h2c_tkeep[16*2+:16]),
    .s_axis_c2h_tdata_3(c2h_tdata[128*3+:128]),
    .s_axis_c2h_tlast_3(c2h_tlast[3]),
    .s_axis_c2h_tvalid_3(c2h_tvalid[3]),
    .s_axis_c2h_tready_3(c2h_tready[3]),
    .s_axis_c2h_tkeep_3(c2h_tkeep[16*3+:16]),
    .m_axis_h2c_tdata_3(h2c_tdata[128*3+:128]),
    .m_axis_h2c_tlast_3(h2c_tlast[3]),
    .m_axis_h2c_tvalid_3(h2c_tvalid[3]),
    .m_axis_h2c_tready_3(h2c_tready[3]),
    .m_axis_h2c_tkeep_3(h2c_tkeep[16*3+:16])
);

board_reset_sync pcie_reset (
    .clk(pcie_clk),
    .rst_in(!pcie_aresetn),
    .rst_out(pcie_rst)
);

board_axil_cdc #(
    .ADDR_WIDTH(16)
) axil_cdc (
    .s_clk(pcie_clk),
    .s_rst(pcie_rst),
    .s_awaddr(xdma_awaddr[15:0]),
    .s_awprot(xdma_awprot),
    .s_awvalid(xdma_awvalid),
    .s_awready(xdma_awready),
    .s_wdata(xdma_wdata),
    .s_wstrb(xdma_wstrb),
    .s_wvalid(xdma_wvalid),
    .s_wready(xdma_wready),
    .s_bresp(xdma_bresp),
    .s_bvalid(xdma_bvalid),
    .s_bready(xdma_bready),
    .s_araddr(xdma_araddr[15:0]),
    .s_arprot(xdma_arprot),
    .s_arvalid(xdma_arvalid),
    .s_arready(xdma_arready),
    .s_rdata(xdma_rdata),
    .s_rresp(xdma_rresp),
    .s_rvalid(xdma_rvalid),
    .s_rready(xdma_rready),
    .m_clk(clk),
    .m_rst(rst),
    .m_awaddr(bus_awaddr),
    .m_awprot(bus_awprot),
    .m_awvalid(bus_awvalid),
    .m_awready(bus_awready),
    .m_wdata(bus_wdata),
    .m_wstrb(bus_wstrb),
    .m_wvalid(bus_wvalid),
    .m_wready(bus_wready),
    .m_bresp(bus_bresp),
    .m_bvalid(bus_bvalid),
    .m_bready(bus_bready),
    .m_araddr(bus_araddr),
    .m_arprot(bus_arprot),
    .m_arvalid(bus_arvalid),
    .m_arready(bus_arready),
    .m_rdata(bus_rdata),
    .m_rresp(bus_rresp),
    .m_rvalid(bus_rvalid),
    .m_rready(bus_rready)
);

// 0x7000-0x7fff: the MAC counters (regmap/mac.toml; not part of pktstats_core, whose
// interconnect answers DECERR there, as pktstats-sim does); everything else: pktstats_core
board_axil_split #(
    .ADDR_WIDTH(16),
    .M1_BITS(12),
    .M1_BASE(16'h7000)
) axil_split (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(bus_awaddr),
    .s_axil_awprot(bus_awprot),
    .s_axil_awvalid(bus_awvalid),
    .s_axil_awready(bus_awready),
    .s_axil_wdata(bus_wdata),
    .s_axil_wstrb(bus_wstrb),
    .s_axil_wvalid(bus_wvalid),
    .s_axil_wready(bus_wready),
    .s_axil_bresp(bus_bresp),
    .s_axil_bvalid(bus_bvalid),
    .s_axil_bready(bus_bready),
    .s_axil_araddr(bus_araddr),
    .s_axil_arprot(bus_arprot),
    .s_axil_arvalid(bus_arvalid),
    .s_axil_arready(bus_arready),
    .s_axil_rdata(bus_rdata),
    .s_axil_rresp(bus_rresp),
    .s_axil_rvalid(bus_rvalid),
    .s_axil_rready(bus_rready),
    .m0_axil_awaddr(core_awaddr),
    .m0_axil_awprot(core_awprot),
    .m0_axil_awvalid(core_awvalid),
    .m0_axil_awready(core_awready),
    .m0_axil_wdata(core_wdata),
    .m0_axil_wstrb(core_wstrb),
    .m0_axil_wvalid(core_wvalid),
    .m0_axil_wready(core_wready),
    .m0_axil_bresp(core_bresp),
    .m0_axil_bvalid(core_bvalid),
    .m0_axil_bready(core_bready),
    .m0_axil_araddr(core_araddr),
    .m0_axil_arprot(core_arprot),
    .m0_axil_arvalid(core_arvalid),
    .m0_axil_arready(core_arready),
    .m0_axil_rdata(core_rdata),
    .m0_axil_rresp(core_rresp),
    .m0_axil_rvalid(core_rvalid),
    .m0_axil_rready(core_rready),
    .m1_axil_awaddr(mac_block_awaddr),
    .m1_axil_awprot(mac_block_awprot),
    .m1_axil_awvalid(mac_block_awvalid),
    .m1_axil_awready(mac_block_awready),
    .m1_axil_wdata(mac_block_wdata),
    .m1_axil_wstrb(mac_block_wstrb),
    .m1_axil_wvalid(mac_block_wvalid),
    .m1_axil_wready(mac_block_wready),
    .m1_axil_bresp(mac_block_bresp),
    .m1_axil_bvalid(mac_block_bvalid),
    .m1_axil_bready(mac_block_bready),
    .m1_axil_araddr(mac_block_araddr),
    .m1_axil_arprot(mac_block_arprot),
    .m1_axil_arvalid(mac_block_arvalid),
    .m1_axil_arready(mac_block_arready),
    .m1_axil_rdata(mac_block_rdata),
    .m1_axil_rresp(mac_block_rresp),
    .m1_axil_rvalid(mac_block_rvalid),
    .m1_axil_rready(mac_block_rready)
);

board_mac_counters mac_counters (
    .clk(clk),
    .rst(rst),
    .tx_frame_sent(tx_frame_sent),
    .tx_frame_bytes(tx_frame_bytes),
    .tx_underrun(tx_underrun),
    .rx_clk(rx_clk),
    .rx_rst(rx_rst),
    .rx_frame_received(rx_frame_received),
    .rx_bytes_received(rx_bytes_received),
    .rx_fcs_errors(rx_fcs_errors),
    .rx_runts(rx_runts),
    .rx_giants(rx_giants),
    .rx_preamble_errors(rx_preamble_errors),
    .rx_errors(rx_errors),
    .rx_overflows(rx_overflows),
    .mdio_phy(mdio_cmd_phy),
    .mdio_register(mdio_cmd_register),
    .mdio_write_data(mdio_cmd_data),
    .mdio_read(mdio_cmd_read),
    .mdio_write(mdio_cmd_write),
    .mdio_status({mdio_read_data, 13'd0, mdio_no_answer, mdio_done, mdio_busy}),
    .s_axil_awaddr(mac_block_awaddr),
    .s_axil_awprot(mac_block_awprot),
    .s_axil_awvalid(mac_block_awvalid),
    .s_axil_awready(mac_block_awready),
    .s_axil_wdata(mac_block_wdata),
    .s_axil_wstrb(mac_block_wstrb),
    .s_axil_wvalid(mac_block_wvalid),
    .s_axil_wready(mac_block_wready),
    .s_axil_bresp(mac_block_bresp),
    .s_axil_bvalid(mac_block_bvalid),
    .s_axil_bready(mac_block_bready),
    .s_axil_araddr(mac_block_araddr),
    .s_axil_arprot(mac_block_arprot),
    .s_axil_arvalid(mac_block_arvalid),
    .s_axil_arready(mac_block_arready),
    .s_axil_rdata(mac_block_rdata),
    .s_axil_rresp(mac_block_rresp),
    .s_axil_rvalid(mac_block_rvalid),
    .s_axil_rready(mac_block_rready)
);

genvar j;
generate
    for (j = 0; j < 4; j = j + 1) begin : cpu_port
        board_cpu_port port (
            .pcie_clk(pcie_clk),
            .pcie_rst(pcie_rst),
            .h2c_tdata(h2c_tdata[128*j+:128]),
            .h2c_tkeep(h2c_tkeep[16*j+:16]),
            .h2c_tvalid(h2c_tvalid[j]),
            .h2c_tready(h2c_tready[j]),
            .h2c_tlast(h2c_tlast[j]),
            .c2h_tdata(c2h_tdata[128*j+:128]),
            .c2h_tkeep(c2h_tkeep[16*j+:16]),
            .c2h_tvalid(c2h_tvalid[j]),
            .c2h_tready(c2h_tready[j]),
            .c2h_tlast(c2h_tlast[j]),
            .clk(clk),
            .rst(rst),
            .m_axis_tdata(s_axis_tdata[64*(4+j)+:64]),
            .m_axis_tkeep(s_axis_tkeep[8*(4+j)+:8]),
            .m_axis_tvalid(s_axis_tvalid[4+j]),
            .m_axis_tready(s_axis_tready[4+j]),
            .m_axis_tlast(s_axis_tlast[4+j]),
            .s_axis_tdata(m_axis_tdata[64*(4+j)+:64]),
            .s_axis_tkeep(m_axis_tkeep[8*(4+j)+:8]),
            .s_axis_tvalid(m_axis_tvalid[4+j]),
            .s_axis_tready(m_axis_tready[4+j]),
            .s_axis_tlast(m_axis_tlast[4+j])
        );
    end
endgenerate

// ------------------------------------------------------------------------------------------
// Outputs with no user on the board yet: the core's per-frame stamps of the MAC ports (read
// through its registers), the time bases beyond what the MACs take, MDIO done, the XDMA's status and the upper BAR0 address bits.
wire unused = &{1'b0, m_axis_rx_timestamp, m_axis_rx_timestamp_valid, m_axis_tx_timestamp,
    m_axis_residence_time, timer, tod_seconds[47:32], tod_fraction, pcie_refclk_div2,
    pcie_link_up, pcie_irq_ack, pcie_msi_enable, pcie_msi_vector_width, xdma_awaddr[31:16],
    xdma_araddr[31:16]};

endmodule

`resetall
