# SPDX-License-Identifier: BSD-3-Clause
# build.tcl: the NetFPGA-1G-CML bitstream, Vivado non-project batch flow.
#
#   vivado -mode batch -source fpga/netfpga-1g-cml/build.tcl -tclargs BUILD_DIR [JOBS]
#
# (`make -C fpga/netfpga-1g-cml bitstream BUILD=...` runs it so.) Every output goes into BUILD_DIR:
# the generated PCIe IP (ip/), reports (reports/), checkpoints, the bitstream
# netfpga_1g_cml_top.bit and the BPI flash images netfpga_1g_cml_top.mcs and .bin. Nothing is
# written in the source tree. Steps: read the Verilog listed in sources.f and the constraints;
# create, generate and synthesise Xilinx's DMA/Bridge Subsystem for PCIe (XDMA) from the settings
# below (no IP file is kept in the repository); synthesise netfpga_1g_cml_top; opt, place,
# phys_opt, route; report utilisation and timing; fail (exit 1) on negative setup or hold slack
# or a missing clock; write the bitstream and the flash images.
#
# tb/fpga/test_build_tcl.py runs this script under tclsh with every Vivado command stubbed, so
# it may use only Tcl and the Vivado commands that test stubs.

set top netfpga_1g_cml_top
# XC7K325T-1FFG676: the NetFPGA reference designs' system.mhs (xc7k325t, ffg676, -1)
set part xc7k325tffg676-1

proc fail {message} {
    puts stderr "build.tcl: $message"
    exit 1
}

if {$argc < 1 || $argc > 2} {
    puts stderr "usage: vivado -mode batch -source build.tcl -tclargs BUILD_DIR \[JOBS\]"
    exit 2
}
set build_dir [file normalize [lindex $argv 0]]
set jobs [expr {$argc > 1 ? [lindex $argv 1] : 2}]
if {![string is integer -strict $jobs] || $jobs < 1} {
    fail "JOBS must be a positive integer, not '$jobs'"
}
set board_dir [file dirname [file normalize [info script]]]
set repo_dir [file normalize [file join $board_dir .. ..]]
set ip_dir [file join $build_dir ip]
set report_dir [file join $build_dir reports]
file mkdir $build_dir $report_dir
# the IP is created anew on every run: create_ip refuses a directory left by an earlier one
file delete -force $ip_dir
file mkdir $ip_dir

# --- sources.f: one file or glob per line, relative to the repository root --------------------
proc read_source_list {list_file repo_dir} {
    set files {}
    set handle [open $list_file r]
    set lines [split [read $handle] "\n"]
    close $handle
    set line_number 0
    foreach line $lines {
        incr line_number
        set entry [string trim [lindex [split $line "#"] 0]]
        if {$entry eq ""} {
            continue
        }
        set matches [lsort [glob -nocomplain -types f -directory $repo_dir -- $entry]]
        if {[llength $matches] == 0} {
            fail "[file tail $list_file]:$line_number: '$entry' matches no file under $repo_dir"
        }
        foreach path $matches {
            if {[lsearch -exact $files $path] < 0} {
                lappend files $path
            }
        }
    }
    return $files
}

set verilog [read_source_list [file join $board_dir sources.f] $repo_dir]
puts "build.tcl: [llength $verilog] Verilog files from sources.f"

create_project -in_memory -part $part
set_param general.maxThreads [expr {$jobs < 8 ? $jobs : 8}]
read_verilog $verilog
read_xdc [file join $board_dir constraints pins.xdc]
# timing.xdc is Tcl (loops, clock lists): read unmanaged
read_xdc -unmanaged [file join $board_dir constraints timing.xdc]

# --- PCIe: Xilinx DMA/Bridge Subsystem (XDMA), Gen2 x4 ----------------------------------------
# BAR0: the AXI4-Lite master onto the register space (regmap/, 1 MB; the library's pci:ADDR,bar0
# and chardev:/dev/xdma0_user reach it unchanged); BAR1: the DMA engine. Four H2C and four C2H
# AXI4-Stream channels: the switch's 4 CPU ports. 128 bits at 125 MHz carry Gen2 x4 (16 Gb/s
# after 8b/10b). PCIe block PCIE_X0Y0, as the NetFPGA reference designs place it
# (NetFPGA/NetFPGA-1G-CML-live projects/reference_nic_nf1_cml/hw/data/system.ucf).
set xdma pcie_xdma
create_ip -name xdma -vendor xilinx.com -library ip -module_name $xdma -dir $ip_dir
set_property -dict [list \
    CONFIG.mode_selection {Advanced} \
    CONFIG.pcie_blk_locn {X0Y0} \
    CONFIG.pl_link_cap_max_link_width {X4} \
    CONFIG.pl_link_cap_max_link_speed {5.0_GT/s} \
    CONFIG.ref_clk_freq {100_MHz} \
    CONFIG.axi_data_width {128_bit} \
    CONFIG.axisten_freq {125} \
    CONFIG.pf0_device_id {7024} \
    CONFIG.xdma_axi_intf_mm {AXI_Stream} \
    CONFIG.xdma_rnum_chnl {4} \
    CONFIG.xdma_wnum_chnl {4} \
    CONFIG.axilite_master_en {true} \
    CONFIG.axilite_master_size {1} \
    CONFIG.axilite_master_scale {Megabytes} \
    CONFIG.xdma_num_usr_irq {1} \
    CONFIG.cfg_mgmt_if {false} \
] [get_ips $xdma]
set xdma_xci [get_files [file join $ip_dir $xdma $xdma.xci]]
generate_target {instantiation_template synthesis implementation} $xdma_xci
synth_ip $xdma_xci

# --- Synthesis and implementation -------------------------------------------------------------
synth_design -top $top -part $part
write_checkpoint -force [file join $build_dir post_synth.dcp]
report_utilization -file [file join $report_dir utilization_synth.rpt]
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $build_dir post_route.dcp]
report_utilization -file [file join $report_dir utilization.rpt]
report_utilization -hierarchical -file [file join $report_dir utilization_hierarchical.rpt]
report_timing_summary -delay_type min_max -max_paths 10 -report_unconstrained \
    -file [file join $report_dir timing_summary.rpt]
report_clock_interaction -file [file join $report_dir clock_interaction.rpt]

# --- Timing: every clock of timing.xdc exists, no negative slack --------------------------------
# A constraint that matched nothing is only a warning in Vivado's log; here it fails the build.
set clocks {sys_clk pcie_refclk}
foreach i {0 1 2 3} {
    lappend clocks rgmii${i}_rxc rgmii${i}_txc
}
foreach clock $clocks {
    if {[llength [get_clocks -quiet $clock]] != 1} {
        fail "clock $clock of timing.xdc does not exist in the routed design"
    }
}
set wns [get_property SLACK [get_timing_paths -delay_type max -max_paths 1 -nworst 1]]
set whs [get_property SLACK [get_timing_paths -delay_type min -max_paths 1 -nworst 1]]
set timing_report [file join $report_dir timing_summary.rpt]
if {![string is double -strict $wns] || ![string is double -strict $whs]} {
    fail "no timed path (WNS '$wns', WHS '$whs'): the constraints did not apply; see $timing_report"
}
if {$wns < 0 || $whs < 0} {
    fail "timing not met: WNS $wns ns, WHS $whs ns (negative slack); see $timing_report"
}
puts "build.tcl: timing met: WNS $wns ns, WHS $whs ns"

# --- Bitstream and BPI flash images ---------------------------------------------------------------
# The flash: Micron 28F00AP30, 1 Gbit = 128 MB, 16-bit (NetFPGA/NetFPGA-1G-CML-live
# projects/reference_flash_nf1_cml/hw/program_flash.cmd: attachflash -bpi "28F00AP30",
# -dataWidth 16; create_bin.cmd: addPromDevice -size 131072 -name 128M, flashDataWidth 16).
# Disagreement: SatCat5 (examples/netfpga/create_bin.tcl) writes -size 32; we take the flash's
# real size, 128 MB, as the NetFPGA reference does; the image is loaded from address 0 either way.
# .mcs for Vivado's hardware manager, .bin (raw) for other programmers.
set bit_file [file join $build_dir $top.bit]
write_bitstream -force $bit_file
foreach format {mcs bin} {
    write_cfgmem -force -format $format -interface BPIx16 -size 128 \
        -loadbit [list up 0x00000000 $bit_file] [file join $build_dir $top.$format]
}
puts "build.tcl: wrote $bit_file"
exit 0
