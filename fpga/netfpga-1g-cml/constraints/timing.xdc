# SPDX-License-Identifier: BSD-3-Clause
# timing.xdc: clocks and I/O timing of netfpga_1g_cml_top on the NetFPGA-1G-CML.
#
# Read by build.tcl with `read_xdc -unmanaged`: it is a Tcl script (foreach, expr, lists of
# clocks), not a managed XDC that Vivado's constraint editor would rewrite. Pins and I/O
# standards are in pins.xdc. Every number that is an assumption about the board or the PHYs is
# a variable here, named, with where it comes from; build.tcl checks after routing that every
# clock defined here exists (a constraint that matched nothing fails the build, it is not a
# warning lost in the log).
#
# Sources, as in pins.xdc:
#   [NF-NIC] NetFPGA/NetFPGA-1G-CML-live projects/reference_nic_nf1_cml/hw/data/system.ucf
#   [NF-SW]  NetFPGA/NetFPGA-1G-CML-live projects/reference_switch_nf1_cml/hw/data/system.ucf
#   [NF-MHS] NetFPGA/NetFPGA-1G-CML-live projects/reference_nic_nf1_cml/hw/system.mhs
#   [SC5]    the-aerospace-corporation/satcat5 examples/netfpga/netfpga_impl.xdc
#   [ZBNT]   zbnt/hardware projects/netfpga_1g_cml/NetFPGA-1G-CML.xdc and .../RGMII.xdc

# --- Primary clocks ---------------------------------------------------------------------------

# The 200 MHz LVDS oscillator: the switch's clocks (125 MHz core and MAC TX, 125 MHz + 90 deg for
# TXC) and the IDELAYCTRL reference come from it through an MMCM in the top; Vivado derives those
# MMCM outputs as generated clocks by itself. [NF-NIC] TS_clk_in PERIOD 5000 ps; [SC5] clk_system
# 5.000; [NF-MHS] CLK_FREQ 200000000.
create_clock -name sys_clk -period 5.000 [get_ports sys_clk_p]

# The PCIe reference clock from the slot, 100 MHz. The XDMA IP's own constraints define the
# clocks inside it (TXOUTCLK, user clock) but not this one: the user design must. [NF-NIC]
# TS_SYSCLK PERIOD 100 MHz on the PCIe core's clock; [ZBNT] pcie_clk_p 10.0.
create_clock -name pcie_refclk -period 10.000 [get_ports pcie_refclk_p]

# --- RGMII receive: rxc is the PHY's 125 MHz clock, data on both edges -------------------------
#
# Assumption: the PHYs' RX internal delay is ON (RGMII-ID): the PHY shifts RXC by ~2 ns, so
# RXC's edges arrive in the middle of the data eye (center-aligned source-synchronous DDR).
# [NF-NIC]/[NF-SW] say so ("The nf1-cml has RX delay enabled") and capture with IDELAY_VALUE = 0.
# The window used: RGMII v2.0's receiver minimums, TsetupR = TholdR = 1.0 ns around each edge of
# RXC at the FPGA pins, board traces assumed matched (as [NF-NIC] assumed).
# Disagreement: [NF-NIC]/[NF-SW] constrain a wider window (OFFSET = IN 2 ns VALID 4 ns: 2 ns
# setup, 2 ns hold) and [ZBNT] RGMII.xdc 1.4 ns setup / 1.2 ns hold; we take the specification's
# 1.0/1.0, the narrowest, so that a design that meets it meets the others. If a board's PHYs are
# strapped with RX delay OFF (data edge-aligned with RXC), these numbers are wrong: the data then
# change within +-0.5 ns (TskewT) of RXC's edges, the top must delay the clock ~2 ns (IDELAYE2 or
# an MMCM phase) and the delays become -max 0.5 / -min -0.5 ("edge-aligned" case).
#
# Vivado's center-aligned DDR input template: relative to RXC's rising edge the data launched
# then are valid from (half period - setup before the falling edge) to (hold after the rising
# edge); same for the falling edge.
set rgmii_half_period 4.000
set rgmii_rx_setup 1.000
set rgmii_rx_hold 1.000
foreach i {0 1 2 3} {
    create_clock -name rgmii${i}_rxc -period 8.000 [get_ports rgmii${i}_rxc]
    set rx_data [get_ports [list rgmii${i}_rx_ctl "rgmii${i}_rxd\[*\]"]]
    set_input_delay -clock rgmii${i}_rxc -max [expr {$rgmii_half_period - $rgmii_rx_setup}] $rx_data
    set_input_delay -clock rgmii${i}_rxc -min $rgmii_rx_hold $rx_data
    set_input_delay -clock rgmii${i}_rxc -clock_fall -max [expr {$rgmii_half_period - $rgmii_rx_setup}] \
        -add_delay $rx_data
    set_input_delay -clock rgmii${i}_rxc -clock_fall -min $rgmii_rx_hold -add_delay $rx_data
}

# --- RGMII transmit: txc forwarded by an ODDR, data centred on it --------------------------------
#
# Assumption: the PHYs' TX internal delay is OFF, the FPGA makes the 2 ns clock-to-data skew:
# rtl/mac/mac_rgmii_tx.v (TXC_CLK90 = 1, its default) drives txd/tx_ctl from ODDRs on the 125 MHz
# clock and txc from an ODDR (D1 = 1, D2 = 0) on the same clock shifted +90 degrees, as the
# reference designs do ([NF-MHS]: the MAC's gtx_clk and gtx_clk90, 125 MHz at phase 0 and 90).
# The forwarded clock is a generated clock on the txc port whose source is that ODDR's clock pin,
# so that Vivado times the data against the clock as the PHY sees it. The ODDR is found from the
# port (the one ODDR in its fan-in), so the constraint does not depend on the top's instance
# names; a port not driven by exactly one ODDR is an error here.
# Output delays: the PHY's setup and hold at its pins (RGMII v2.0 receiver minimums, TsetupR =
# TholdR = 1.0 ns, matched traces), on both edges of txc: -max = setup, -min = -hold. [ZBNT]
# RGMII.xdc uses the same +-1.0 ns.
set rgmii_tx_setup 1.000
set rgmii_tx_hold 1.000
foreach i {0 1 2 3} {
    set txc_port [get_ports rgmii${i}_txc]
    set txc_oddr [filter [all_fanin -flat -only_cells $txc_port] {REF_NAME == ODDR}]
    if {[llength $txc_oddr] != 1} {
        error "timing.xdc: rgmii${i}_txc must be driven by one ODDR (found [llength $txc_oddr])"
    }
    create_generated_clock -name rgmii${i}_txc -multiply_by 1 \
        -source [get_pins -of_objects $txc_oddr -filter {REF_PIN_NAME == C}] $txc_port
    set tx_data [get_ports [list rgmii${i}_tx_ctl "rgmii${i}_txd\[*\]"]]
    set_output_delay -clock rgmii${i}_txc -max $rgmii_tx_setup $tx_data
    set_output_delay -clock rgmii${i}_txc -min [expr {-$rgmii_tx_hold}] $tx_data
    set_output_delay -clock rgmii${i}_txc -clock_fall -max $rgmii_tx_setup -add_delay $tx_data
    set_output_delay -clock rgmii${i}_txc -clock_fall -min [expr {-$rgmii_tx_hold}] -add_delay $tx_data
}

# --- Asynchronous clock groups ---------------------------------------------------------------
#
# Each PHY's RXC is its own oscillator (the link partner's clock recovered by the PHY): no phase
# relation to the switch clock or to the other ports, so every path between them crosses through
# a synchronizer or an asynchronous FIFO in the RTL and must not be timed as synchronous (it
# would fail, or worse, pass by chance). The same holds for the PCIe side: the XDMA's user clock
# comes from the slot's reference clock. Groups:
#   - sys_clk and everything generated from it (the MMCM's core/MAC TX clocks, clk90, the
#     forwarded rgmii*_txc): the switch's domain, synchronous within itself;
#   - each rgmii*_rxc with what is generated from it (e.g. a BUFR): one group per port;
#   - every other clock: the PCIe side (pcie_refclk and the clocks the XDMA's own constraints
#     create from the transceivers, which are primary clocks, not generated from pcie_refclk).
# [SC5] netfpga_impl.xdc does the same (one asynchronous group per input clock).
set clock_groups [list [get_clocks -include_generated_clocks sys_clk]]
foreach i {0 1 2 3} {
    lappend clock_groups [get_clocks -include_generated_clocks rgmii${i}_rxc]
}
set grouped {}
foreach group $clock_groups {
    foreach clock $group { lappend grouped [get_property NAME $clock] }
}
set pcie_side {}
foreach clock [get_clocks] {
    if {[lsearch -exact $grouped [get_property NAME $clock]] < 0} { lappend pcie_side $clock }
}
lappend clock_groups $pcie_side
set group_args {}
foreach group $clock_groups { lappend group_args -group $group }
set_clock_groups -name pktstats_async -asynchronous {*}$group_args

# --- False paths: asynchronous inputs and slow outputs ------------------------------------------
#
# The reset button and PCIe PERST# are asynchronous to every clock; the RTL synchronizes them
# (a reset synchronizer per domain), so the path from the pin has no timing requirement.
# [NF-NIC]/[NF-SW] do the same (NET "reset_n" TIG).
set_false_path -from [get_ports {btn_reset_n pcie_perst_n}]
# The LEDs and the PHY resets are driven by registers and read by eyes and by the PHYs' reset
# inputs (held for milliseconds): no clock at the far end, nothing to time.
set_false_path -to [get_ports {led[*] phy*_reset_n}]
# MDIO: the RTL runs MDC at 2.5 MHz or less from the switch clock and moves MDIO many switch
# clocks away from MDC's edges; the PHY's 10 ns setup/hold and 300 ns clock-to-out are met by that
# construction (hundreds of ns of margin), not by static timing, which has no clock for MDC.
set_false_path -to [get_ports {mdc mdio}]
set_false_path -from [get_ports mdio]
