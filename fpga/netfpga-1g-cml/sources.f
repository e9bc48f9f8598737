# sources.f: the Verilog that netfpga_1g_cml_top is built from, read by build.tcl.
#
# One entry per line, relative to the repository root; '#' starts a comment. An entry is a file
# or a glob (Tcl `glob` patterns: *, ?, [..]); build.tcl resolves each glob in sorted order and
# fails when an entry matches no file, so a renamed directory or a missing top stops the build
# before Vivado starts synthesis. Globs, not a list of files, for the same reason the top-level
# Makefile takes $(wildcard rtl/<block>/*.v): a module added to a block is built without an edit
# here. tb/fpga/test_build_tcl.py checks every entry against the tree.
#
# Not here, on purpose: fpga/models/ (behavioural models of the 7-series primitives and the
# XDMA's port-only stand-in, for Verilator, Icarus and Yosys; Vivado has the real ones) and
# everything under tb/.

# the portable core (docs/switch-architecture.md, docs/evcap-architecture.md)
rtl/core/*.v
rtl/switch/*.v
rtl/evcap/*.v
rtl/common/*.v
rtl/time/*.v
rtl/stamp/*.v
rtl/oam/*.v
rtl/flowlat/*.v
# generated register blocks (make regmap)
rtl/gen/*.v
# our RGMII Ethernet MAC
rtl/mac/*.v
# the board: the top, clocking, resets, MDIO, the PCIe glue
fpga/netfpga-1g-cml/rtl/*.v
