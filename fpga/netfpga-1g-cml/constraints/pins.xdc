# SPDX-License-Identifier: BSD-3-Clause
# pins.xdc: the NetFPGA-1G-CML's pins and I/O standards for the ports of netfpga_1g_cml_top.
# Part: XC7K325T-1FFG676 (xc7k325tffg676-1; the reference designs' system.mhs: xc7k325t,
# ffg676, speed grade -1). Only PACKAGE_PIN, IOSTANDARD and the I/O attributes of a pin are
# here; clocks and I/O timing are in timing.xdc. tb/fpga/test_constraints.py checks that every
# port has one pin and one I/O standard (none on the PCIe transceiver pins, see there), that no
# pin is used twice, and, once the top exists, that its ports and these are the same set.
#
# Sources (written here from the facts, not copied):
#   [NF-SW]  NetFPGA/NetFPGA-1G-CML-live projects/reference_switch_nf1_cml/hw/data/system.ucf
#   [NF-NIC] NetFPGA/NetFPGA-1G-CML-live projects/reference_nic_nf1_cml/hw/data/system.ucf
#   [NF-IO]  NetFPGA/NetFPGA-1G-CML-live contrib-projects/nf1_cml_io_example/hw/data/system.ucf
#   [NF-MHS] NetFPGA/NetFPGA-1G-CML-live projects/reference_nic_nf1_cml/hw/system.mhs
#   [SC5]    the-aerospace-corporation/satcat5 examples/netfpga/netfpga_synth.xdc
#            ('Synthesis constraints for "netfpga" example design') and .../create_vivado.tcl
#   [ZBNT]   zbnt/hardware projects/netfpga_1g_cml/NetFPGA-1G-CML.xdc
#
# Port numbering: our port i (0..3) is the reference designs' PHY i+1 (rgmii_*_1..4, phy_rstn_1..4
# in [NF-NIC]); [SC5] and [ZBNT] number them 0..3 the same way ("rgmii0 = RGMII1 interface").

# --- Configuration bank and flash interface ------------------------------------------------
# Bank 0 is powered at 3.3 V and the board boots from a 16-bit BPI flash (Micron 28F00AP30,
# 1 Gbit). [SC5] netfpga_synth.xdc and [ZBNT]: CFGBVS VCCO, CONFIG_VOLTAGE 3.3; [SC5]
# netfpga_impl.xdc and [ZBNT]: CONFIG_MODE BPI16; the flash part: NetFPGA/NetFPGA-1G-CML-live
# projects/reference_flash_nf1_cml/hw/program_flash.cmd (attachflash -bpi "28F00AP30", 16 bits).
# Disagreement: [SC5] sets BPI_SYNC_MODE DISABLE, [ZBNT] TYPE1 (the P30's synchronous burst
# read). We keep DISABLE (asynchronous reads, the flash's power-up mode): it needs nothing set in
# the flash's read configuration register and is what the configuration logic does by default;
# TYPE1 only shortens the load time. Unused pins pulled up: [SC5] netfpga_impl.xdc.
set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
set_property CONFIG_MODE BPI16 [current_design]
set_property BITSTREAM.CONFIG.BPI_SYNC_MODE DISABLE [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN Pullup [current_design]

# --- 200 MHz system clock (LVDS oscillator) -------------------------------------------------
# [NF-NIC] and [NF-SW]: clk_in_p AA3, clk_in_n AA2, LVDS; 200 MHz per [NF-MHS] (CLK_FREQ =
# 200000000). Same in [NF-IO] (sys_clk_p/n), [SC5] (system_clk_clk_p/n) and [ZBNT].
set_property -dict {PACKAGE_PIN AA3 IOSTANDARD LVDS} [get_ports sys_clk_p]
set_property -dict {PACKAGE_PIN AA2 IOSTANDARD LVDS} [get_ports sys_clk_n]

# --- Reset button (BTN4), active low --------------------------------------------------------
# [NF-IO]: sys_rst_n AA8 LVCMOS18; [NF-SW]/[NF-NIC] have it commented out as "reset button
# (BTN4)" at AA8 LVCMOS18; [SC5]: system_rst AA8 LVCMOS18, ACTIVE_LOW in create_vivado.tcl.
# Named btn_reset_n, not reset_n: in [NF-SW]/[NF-NIC] "reset_n" is the PCIe PERST# at L17.
set_property -dict {PACKAGE_PIN AA8 IOSTANDARD LVCMOS18} [get_ports btn_reset_n]

# --- LEDs (4, on-board) -----------------------------------------------------------------------
# [NF-IO] "onboard LEDs" leds[0..3]; [SC5] leds[0..3] and [ZBNT] led_0..3 agree on pins and
# standards. The banks differ: two are on 3.3 V banks, two on 1.8 V banks.
set_property -dict {PACKAGE_PIN E17  IOSTANDARD LVCMOS33} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN AF14 IOSTANDARD LVCMOS18} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN F17  IOSTANDARD LVCMOS33} [get_ports {led[2]}]
set_property -dict {PACKAGE_PIN W19  IOSTANDARD LVCMOS18} [get_ports {led[3]}]

# --- Shared MDIO (one management bus for the four PHYs) -------------------------------------
# [NF-NIC]/[NF-SW]: mdc V13, mdio W13, LVCMOS18; [NF-MHS]: mdc output, mdio inout, one pair for
# the board; [SC5]: "Shared MDIO (all PHYs)" mdio_sck V13, mdio_sda W13, LVCMOS18.
set_property -dict {PACKAGE_PIN V13 IOSTANDARD LVCMOS18} [get_ports mdc]
set_property -dict {PACKAGE_PIN W13 IOSTANDARD LVCMOS18} [get_ports mdio]

# --- PHY resets: one per PHY, active low, 3.3 V banks ---------------------------------------
# [NF-NIC]: phy_rstn_1..4 at D18, E25, K21, L23, LVCMOS33 ([NF-MHS]: RST_POLARITY = 0);
# [NF-SW] (phy_rstn[0..3]), [SC5] (rgmii0..3_rstn: "all RGMII pins 1.8V ... except the reset")
# and [ZBNT] (phy0..3_rstn) agree. The board has one reset per PHY, not a shared one.
set_property -dict {PACKAGE_PIN D18 IOSTANDARD LVCMOS33} [get_ports phy0_reset_n]
set_property -dict {PACKAGE_PIN E25 IOSTANDARD LVCMOS33} [get_ports phy1_reset_n]
set_property -dict {PACKAGE_PIN K21 IOSTANDARD LVCMOS33} [get_ports phy2_reset_n]
set_property -dict {PACKAGE_PIN L23 IOSTANDARD LVCMOS33} [get_ports phy3_reset_n]

# --- RGMII port 0 (PHY 1) ---------------------------------------------------------------------
# [NF-NIC]/[NF-SW] "RGMII to PHY 1" (rgmii_*_1), LVCMOS18; cross-checked with [SC5] rgmii0_* and
# [ZBNT] phy0_rgmii_*: same pins. Same sources for ports 1..3 below (PHY 2..4).
set_property -dict {PACKAGE_PIN B9  IOSTANDARD LVCMOS18} [get_ports rgmii0_txc]
set_property -dict {PACKAGE_PIN H8  IOSTANDARD LVCMOS18} [get_ports rgmii0_tx_ctl]
set_property -dict {PACKAGE_PIN A8  IOSTANDARD LVCMOS18} [get_ports {rgmii0_txd[0]}]
set_property -dict {PACKAGE_PIN D8  IOSTANDARD LVCMOS18} [get_ports {rgmii0_txd[1]}]
set_property -dict {PACKAGE_PIN G9  IOSTANDARD LVCMOS18} [get_ports {rgmii0_txd[2]}]
set_property -dict {PACKAGE_PIN H9  IOSTANDARD LVCMOS18} [get_ports {rgmii0_txd[3]}]
set_property -dict {PACKAGE_PIN E10 IOSTANDARD LVCMOS18} [get_ports rgmii0_rxc]
set_property -dict {PACKAGE_PIN B12 IOSTANDARD LVCMOS18} [get_ports rgmii0_rx_ctl]
set_property -dict {PACKAGE_PIN B11 IOSTANDARD LVCMOS18} [get_ports {rgmii0_rxd[0]}]
set_property -dict {PACKAGE_PIN A10 IOSTANDARD LVCMOS18} [get_ports {rgmii0_rxd[1]}]
set_property -dict {PACKAGE_PIN B10 IOSTANDARD LVCMOS18} [get_ports {rgmii0_rxd[2]}]
set_property -dict {PACKAGE_PIN A9  IOSTANDARD LVCMOS18} [get_ports {rgmii0_rxd[3]}]

# --- RGMII port 1 (PHY 2) ---------------------------------------------------------------------
# [NF-NIC]/[NF-SW] "RGMII to PHY 2"; [SC5] rgmii1_*; [ZBNT] phy1_rgmii_*.
set_property -dict {PACKAGE_PIN J10 IOSTANDARD LVCMOS18} [get_ports rgmii1_txc]
set_property -dict {PACKAGE_PIN F8  IOSTANDARD LVCMOS18} [get_ports rgmii1_tx_ctl]
set_property -dict {PACKAGE_PIN D10 IOSTANDARD LVCMOS18} [get_ports {rgmii1_txd[0]}]
set_property -dict {PACKAGE_PIN G10 IOSTANDARD LVCMOS18} [get_ports {rgmii1_txd[1]}]
set_property -dict {PACKAGE_PIN D9  IOSTANDARD LVCMOS18} [get_ports {rgmii1_txd[2]}]
set_property -dict {PACKAGE_PIN F9  IOSTANDARD LVCMOS18} [get_ports {rgmii1_txd[3]}]
set_property -dict {PACKAGE_PIN C12 IOSTANDARD LVCMOS18} [get_ports rgmii1_rxc]
set_property -dict {PACKAGE_PIN A12 IOSTANDARD LVCMOS18} [get_ports rgmii1_rx_ctl]
set_property -dict {PACKAGE_PIN A13 IOSTANDARD LVCMOS18} [get_ports {rgmii1_rxd[0]}]
set_property -dict {PACKAGE_PIN C9  IOSTANDARD LVCMOS18} [get_ports {rgmii1_rxd[1]}]
set_property -dict {PACKAGE_PIN D11 IOSTANDARD LVCMOS18} [get_ports {rgmii1_rxd[2]}]
set_property -dict {PACKAGE_PIN C11 IOSTANDARD LVCMOS18} [get_ports {rgmii1_rxd[3]}]

# --- RGMII port 2 (PHY 3) ---------------------------------------------------------------------
# [NF-NIC]/[NF-SW] "RGMII to PHY 3"; [SC5] rgmii2_*; [ZBNT] phy2_rgmii_*.
set_property -dict {PACKAGE_PIN E13 IOSTANDARD LVCMOS18} [get_ports rgmii2_txc]
set_property -dict {PACKAGE_PIN F10 IOSTANDARD LVCMOS18} [get_ports rgmii2_tx_ctl]
set_property -dict {PACKAGE_PIN G12 IOSTANDARD LVCMOS18} [get_ports {rgmii2_txd[0]}]
set_property -dict {PACKAGE_PIN F13 IOSTANDARD LVCMOS18} [get_ports {rgmii2_txd[1]}]
set_property -dict {PACKAGE_PIN F12 IOSTANDARD LVCMOS18} [get_ports {rgmii2_txd[2]}]
set_property -dict {PACKAGE_PIN H11 IOSTANDARD LVCMOS18} [get_ports {rgmii2_txd[3]}]
set_property -dict {PACKAGE_PIN E11 IOSTANDARD LVCMOS18} [get_ports rgmii2_rxc]
set_property -dict {PACKAGE_PIN C13 IOSTANDARD LVCMOS18} [get_ports rgmii2_rx_ctl]
set_property -dict {PACKAGE_PIN A14 IOSTANDARD LVCMOS18} [get_ports {rgmii2_rxd[0]}]
set_property -dict {PACKAGE_PIN B14 IOSTANDARD LVCMOS18} [get_ports {rgmii2_rxd[1]}]
set_property -dict {PACKAGE_PIN E12 IOSTANDARD LVCMOS18} [get_ports {rgmii2_rxd[2]}]
set_property -dict {PACKAGE_PIN D13 IOSTANDARD LVCMOS18} [get_ports {rgmii2_rxd[3]}]

# --- RGMII port 3 (PHY 4) ---------------------------------------------------------------------
# [NF-NIC]/[NF-SW] "RGMII to PHY 4"; [SC5] rgmii3_*; [ZBNT] phy3_rgmii_*.
set_property -dict {PACKAGE_PIN D14 IOSTANDARD LVCMOS18} [get_ports rgmii3_txc]
set_property -dict {PACKAGE_PIN J11 IOSTANDARD LVCMOS18} [get_ports rgmii3_tx_ctl]
set_property -dict {PACKAGE_PIN J13 IOSTANDARD LVCMOS18} [get_ports {rgmii3_txd[0]}]
set_property -dict {PACKAGE_PIN G14 IOSTANDARD LVCMOS18} [get_ports {rgmii3_txd[1]}]
set_property -dict {PACKAGE_PIN H14 IOSTANDARD LVCMOS18} [get_ports {rgmii3_txd[2]}]
set_property -dict {PACKAGE_PIN H13 IOSTANDARD LVCMOS18} [get_ports {rgmii3_txd[3]}]
set_property -dict {PACKAGE_PIN G11 IOSTANDARD LVCMOS18} [get_ports rgmii3_rxc]
set_property -dict {PACKAGE_PIN A15 IOSTANDARD LVCMOS18} [get_ports rgmii3_rx_ctl]
set_property -dict {PACKAGE_PIN B15 IOSTANDARD LVCMOS18} [get_ports {rgmii3_rxd[0]}]
set_property -dict {PACKAGE_PIN F14 IOSTANDARD LVCMOS18} [get_ports {rgmii3_rxd[1]}]
set_property -dict {PACKAGE_PIN C14 IOSTANDARD LVCMOS18} [get_ports {rgmii3_rxd[2]}]
set_property -dict {PACKAGE_PIN H12 IOSTANDARD LVCMOS18} [get_ports {rgmii3_rxd[3]}]

# --- RGMII outputs: fast slew ----------------------------------------------------------------
# [NF-NIC]/[NF-SW] "High drive for RGMII outputs": SLEW FAST on rgmii_txd*, rgmii_tx_ctl*,
# rgmii_txc*; 125 MHz DDR edges need it.
set_property SLEW FAST [get_ports {rgmii*_txc rgmii*_tx_ctl rgmii*_txd[*]}]

# --- PCIe Gen2 x4: PERST# --------------------------------------------------------------------
# [NF-NIC]/[NF-SW]: "reset_n" (the PCI Express system reset, PERST#) at L17, LVCMOS33, PULLUP;
# [ZBNT]: pcie_perstn L17 LVCMOS33 PULLUP TRUE. Agree.
set_property -dict {PACKAGE_PIN L17 IOSTANDARD LVCMOS33 PULLUP TRUE} [get_ports pcie_perst_n]

# --- PCIe Gen2 x4: reference clock and lanes (GTX transceiver pins) --------------------------
# Package pins from [ZBNT] (pcie_clk_p/n H6/H5; lanes 0..3: tx H2/H1, K2/K1, M2/M1, P2/P1, rx
# J4/J3, L4/L3, N4/N3, R4/R3). The NetFPGA reference designs ([NF-NIC]/[NF-SW]) do not name these
# package pins: their PCIe core is placed by sites instead (refclk_ibuf at IBUFDS_GTE2_X0Y0,
# lane 0..3 at GTXE2_CHANNEL_X0Y3..X0Y0, PCIE_X0Y0), so the two sources cannot be compared pin
# by pin here; they are consistent if H2/J4 is GTXE2_CHANNEL_X0Y3 and H6 is MGTREFCLK0 of the
# quad of X0Y0..X0Y3 (Vivado: get_package_pins -of [get_sites GTXE2_CHANNEL_X0Y3]; listed in
# docs/board.md as a first check). No IOSTANDARD: the GT pins are dedicated analog terminals
# whose standard Vivado does not take (it refuses IOSTANDARD on GT terminals); the reference
# clock enters through the IBUFDS_GTE2 inside the PCIe IP.
set_property PACKAGE_PIN H6 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN H5 [get_ports pcie_refclk_n]
set_property PACKAGE_PIN H2 [get_ports {pcie_tx_p[0]}]
set_property PACKAGE_PIN H1 [get_ports {pcie_tx_n[0]}]
set_property PACKAGE_PIN J4 [get_ports {pcie_rx_p[0]}]
set_property PACKAGE_PIN J3 [get_ports {pcie_rx_n[0]}]
set_property PACKAGE_PIN K2 [get_ports {pcie_tx_p[1]}]
set_property PACKAGE_PIN K1 [get_ports {pcie_tx_n[1]}]
set_property PACKAGE_PIN L4 [get_ports {pcie_rx_p[1]}]
set_property PACKAGE_PIN L3 [get_ports {pcie_rx_n[1]}]
set_property PACKAGE_PIN M2 [get_ports {pcie_tx_p[2]}]
set_property PACKAGE_PIN M1 [get_ports {pcie_tx_n[2]}]
set_property PACKAGE_PIN N4 [get_ports {pcie_rx_p[2]}]
set_property PACKAGE_PIN N3 [get_ports {pcie_rx_n[2]}]
set_property PACKAGE_PIN P2 [get_ports {pcie_tx_p[3]}]
set_property PACKAGE_PIN P1 [get_ports {pcie_tx_n[3]}]
set_property PACKAGE_PIN R4 [get_ports {pcie_rx_p[3]}]
set_property PACKAGE_PIN R3 [get_ports {pcie_rx_n[3]}]
