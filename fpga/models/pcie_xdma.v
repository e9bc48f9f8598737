/*
 * pcie_xdma: a port-only stand-in for the XDMA IP ("DMA/Bridge Subsystem for PCI Express",
 * xdma 4.1, PG195) that fpga/netfpga-1g-cml/build.tcl creates as module pcie_xdma, for lint
 * (Verilator, Icarus) and for Yosys, which reads it as a black box (the (* blackbox *)
 * attribute: its body is not synthesised). Never in the Vivado build: there the module is the
 * generated IP.
 *
 * The ports are those of the configuration in build.tcl: 7-series Gen2 x4 (pci_exp_* [3:0]),
 * 128-bit AXI at 125 MHz (axi_aclk, axi_aresetn), AXI4-Lite master (m_axil_*, 32-bit address),
 * AXI4-Stream mode with 4 H2C (m_axis_h2c_*_0..3) and 4 C2H (s_axis_c2h_*_0..3) channels,
 * 1 user interrupt (usr_irq_req/ack [0:0], MSI status), the configuration management
 * interface off (cfg_mgmt_if false). Port names as in PG195's port tables and the IP's
 * instantiation template; to be compared with the generated
 * ip/pcie_xdma/pcie_xdma_stub.v (Vivado's own port list) after the first Vivado build.
 *
 * The file is pcie_xdma.v, not pcie_xdma_stub.v: Verilator -Wall (DECLFILENAME) wants a file
 * named after its module.
 *
 * Behaviour of this stand-in, for a simulation that includes it: the link never comes up
 * (user_lnk_up 0), axi_aresetn stays low, axi_aclk is sys_clk, every other output is 0.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

(* blackbox *)
module pcie_xdma (
    // PCIe: reference clock (from IBUFDS_GTE2), PERST#, lanes
    input  wire         sys_clk,
    input  wire         sys_rst_n,
    output wire         user_lnk_up,
    output wire [3:0]   pci_exp_txp,
    output wire [3:0]   pci_exp_txn,
    input  wire [3:0]   pci_exp_rxp,
    input  wire [3:0]   pci_exp_rxn,
    // the user clock and reset of every AXI interface below
    output wire         axi_aclk,
    output wire         axi_aresetn,
    // user interrupt
    input  wire [0:0]   usr_irq_req,
    output wire [0:0]   usr_irq_ack,
    output wire         msi_enable,
    output wire [2:0]   msi_vector_width,
    // AXI4-Lite master (BAR0)
    output wire [31:0]  m_axil_awaddr,
    output wire [2:0]   m_axil_awprot,
    output wire         m_axil_awvalid,
    input  wire         m_axil_awready,
    output wire [31:0]  m_axil_wdata,
    output wire [3:0]   m_axil_wstrb,
    output wire         m_axil_wvalid,
    input  wire         m_axil_wready,
    input  wire         m_axil_bvalid,
    input  wire [1:0]   m_axil_bresp,
    output wire         m_axil_bready,
    output wire [31:0]  m_axil_araddr,
    output wire [2:0]   m_axil_arprot,
    output wire         m_axil_arvalid,
    input  wire         m_axil_arready,
    input  wire [31:0]  m_axil_rdata,
    input  wire [1:0]   m_axil_rresp,
    input  wire         m_axil_rvalid,
    output wire         m_axil_rready,
    // card-to-host stream 0 (into the XDMA)
    input  wire [127:0] s_axis_c2h_tdata_0,
    input  wire         s_axis_c2h_tlast_0,
    input  wire         s_axis_c2h_tvalid_0,
    output wire         s_axis_c2h_tready_0,
    input  wire [15:0]  s_axis_c2h_tkeep_0,
    // host-to-card stream 0 (out of the XDMA)
    output wire [127:0] m_axis_h2c_tdata_0,
    output wire         m_axis_h2c_tlast_0,
    output wire         m_axis_h2c_tvalid_0,
    input  wire         m_axis_h2c_tready_0,
    output wire [15:0]  m_axis_h2c_tkeep_0,
    // card-to-host stream 1 (into the XDMA)
    input  wire [127:0] s_axis_c2h_tdata_1,
    input  wire         s_axis_c2h_tlast_1,
    input  wire         s_axis_c2h_tvalid_1,
    output wire         s_axis_c2h_tready_1,
    input  wire [15:0]  s_axis_c2h_tkeep_1,
    // host-to-card stream 1 (out of the XDMA)
    output wire [127:0] m_axis_h2c_tdata_1,
    output wire         m_axis_h2c_tlast_1,
    output wire         m_axis_h2c_tvalid_1,
    input  wire         m_axis_h2c_tready_1,
    output wire [15:0]  m_axis_h2c_tkeep_1,
    // card-to-host stream 2 (into the XDMA)
    input  wire [127:0] s_axis_c2h_tdata_2,
    input  wire         s_axis_c2h_tlast_2,
    input  wire         s_axis_c2h_tvalid_2,
    output wire         s_axis_c2h_tready_2,
    input  wire [15:0]  s_axis_c2h_tkeep_2,
    // host-to-card stream 2 (out of the XDMA)
    output wire [127:0] m_axis_h2c_tdata_2,
    output wire         m_axis_h2c_tlast_2,
    output wire         m_axis_h2c_tvalid_2,
    input  wire         m_axis_h2c_tready_2,
    output wire [15:0]  m_axis_h2c_tkeep_2,
    // card-to-host stream 3 (into the XDMA)
    input  wire [127:0] s_axis_c2h_tdata_3,
    input  wire         s_axis_c2h_tlast_3,
    input  wire         s_axis_c2h_tvalid_3,
    output wire         s_axis_c2h_tready_3,
    input  wire [15:0]  s_axis_c2h_tkeep_3,
    // host-to-card stream 3 (out of the XDMA)
    output wire [127:0] m_axis_h2c_tdata_3,
    output wire         m_axis_h2c_tlast_3,
    output wire         m_axis_h2c_tvalid_3,
    input  wire         m_axis_h2c_tready_3,
    output wire [15:0]  m_axis_h2c_tkeep_3
);

assign user_lnk_up = 1'b0;
assign pci_exp_txp = 4'd0;
assign pci_exp_txn = 4'd0;
assign axi_aclk = sys_clk;
assign axi_aresetn = 1'b0;
assign usr_irq_ack = 1'b0;
assign msi_enable = 1'b0;
assign msi_vector_width = 3'd0;
assign m_axil_awaddr = 32'd0;
assign m_axil_awprot = 3'd0;
assign m_axil_awvalid = 1'b0;
assign m_axil_wdata = 32'd0;
assign m_axil_wstrb = 4'd0;
assign m_axil_wvalid = 1'b0;
assign m_axil_bready = 1'b0;
assign m_axil_araddr = 32'd0;
assign m_axil_arprot = 3'd0;
assign m_axil_arvalid = 1'b0;
assign m_axil_rready = 1'b0;
assign s_axis_c2h_tready_0 = 1'b0;
assign m_axis_h2c_tdata_0 = 128'd0;
assign m_axis_h2c_tlast_0 = 1'b0;
assign m_axis_h2c_tvalid_0 = 1'b0;
assign m_axis_h2c_tkeep_0 = 16'd0;
assign s_axis_c2h_tready_1 = 1'b0;
assign m_axis_h2c_tdata_1 = 128'd0;
assign m_axis_h2c_tlast_1 = 1'b0;
assign m_axis_h2c_tvalid_1 = 1'b0;
assign m_axis_h2c_tkeep_1 = 16'd0;
assign s_axis_c2h_tready_2 = 1'b0;
assign m_axis_h2c_tdata_2 = 128'd0;
assign m_axis_h2c_tlast_2 = 1'b0;
assign m_axis_h2c_tvalid_2 = 1'b0;
assign m_axis_h2c_tkeep_2 = 16'd0;
assign s_axis_c2h_tready_3 = 1'b0;
assign m_axis_h2c_tdata_3 = 128'd0;
assign m_axis_h2c_tlast_3 = 1'b0;
assign m_axis_h2c_tvalid_3 = 1'b0;
assign m_axis_h2c_tkeep_3 = 16'd0;

wire unused = &{1'b0, sys_rst_n, pci_exp_rxp, pci_exp_rxn, usr_irq_req, m_axil_awready, m_axil_wready,
    m_axil_bvalid, m_axil_bresp, m_axil_arready, m_axil_rdata, m_axil_rresp, m_axil_rvalid,
    s_axis_c2h_tdata_0, s_axis_c2h_tlast_0, s_axis_c2h_tvalid_0, s_axis_c2h_tkeep_0, m_axis_h2c_tready_0,
    s_axis_c2h_tdata_1, s_axis_c2h_tlast_1, s_axis_c2h_tvalid_1, s_axis_c2h_tkeep_1, m_axis_h2c_tready_1,
    s_axis_c2h_tdata_2, s_axis_c2h_tlast_2, s_axis_c2h_tvalid_2, s_axis_c2h_tkeep_2, m_axis_h2c_tready_2,
    s_axis_c2h_tdata_3, s_axis_c2h_tlast_3, s_axis_c2h_tvalid_3, s_axis_c2h_tkeep_3, m_axis_h2c_tready_3};

endmodule

`resetall
