/*
 * pcie_xdma (board-top simulation model): the XDMA IP's ports, as fpga/models/pcie_xdma.v
 * declares them, with the host side played by tb/board/board_top_sim.cpp instead of a PCIe
 * link. Test bench only: tb/board/board_top_sim.cpp builds netfpga_1g_cml_top with this file in
 * place of fpga/models/pcie_xdma.v (which lint and Yosys take, and which Vivado replaces with
 * the generated IP).
 *
 * The harness reaches the model through Verilator's public signals (the public_flat_rd and public_flat_rw
 * metacomments): it writes the host_* registers (the user clock's reset, the AXI4-Lite master's
 * requests as the XDMA's BAR0 bridge would issue them, the host-to-card streams' words, the
 * card-to-host streams' tready) before each edge of axi_aclk and reads the input ports (the
 * register responses, the card-to-host words, the host-to-card tready). axi_aclk is sys_clk (the
 * harness drives the PCIe reference clock at the user clock's 125 MHz, asynchronous to the
 * switch clock). The link is up from the start.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module pcie_xdma (
    // PCIe: reference clock (from IBUFDS_GTE2), PERST#, lanes
    input  wire         sys_clk /*verilator public_flat_rd*/,
    input  wire         sys_rst_n /*verilator public_flat_rd*/,
    output wire         user_lnk_up,
    output wire [3:0]   pci_exp_txp,
    output wire [3:0]   pci_exp_txn,
    input  wire [3:0]   pci_exp_rxp /*verilator public_flat_rd*/,
    input  wire [3:0]   pci_exp_rxn /*verilator public_flat_rd*/,
    // the user clock and reset of every AXI interface below
    output wire         axi_aclk,
    output wire         axi_aresetn,
    // user interrupt
    input  wire [0:0]   usr_irq_req /*verilator public_flat_rd*/,
    output wire [0:0]   usr_irq_ack,
    output wire         msi_enable,
    output wire [2:0]   msi_vector_width,
    // AXI4-Lite master (BAR0)
    output wire [31:0]  m_axil_awaddr,
    output wire [2:0]   m_axil_awprot,
    output wire         m_axil_awvalid,
    input  wire         m_axil_awready /*verilator public_flat_rd*/,
    output wire [31:0]  m_axil_wdata,
    output wire [3:0]   m_axil_wstrb,
    output wire         m_axil_wvalid,
    input  wire         m_axil_wready /*verilator public_flat_rd*/,
    input  wire         m_axil_bvalid /*verilator public_flat_rd*/,
    input  wire [1:0]   m_axil_bresp /*verilator public_flat_rd*/,
    output wire         m_axil_bready,
    output wire [31:0]  m_axil_araddr,
    output wire [2:0]   m_axil_arprot,
    output wire         m_axil_arvalid,
    input  wire         m_axil_arready /*verilator public_flat_rd*/,
    input  wire [31:0]  m_axil_rdata /*verilator public_flat_rd*/,
    input  wire [1:0]   m_axil_rresp /*verilator public_flat_rd*/,
    input  wire         m_axil_rvalid /*verilator public_flat_rd*/,
    output wire         m_axil_rready,
    // card-to-host stream 0 (into the XDMA)
    input  wire [127:0] s_axis_c2h_tdata_0 /*verilator public_flat_rd*/,
    input  wire         s_axis_c2h_tlast_0 /*verilator public_flat_rd*/,
    input  wire         s_axis_c2h_tvalid_0 /*verilator public_flat_rd*/,
    output wire         s_axis_c2h_tready_0,
    input  wire [15:0]  s_axis_c2h_tkeep_0 /*verilator public_flat_rd*/,
    // host-to-card stream 0 (out of the XDMA)
    output wire [127:0] m_axis_h2c_tdata_0,
    output wire         m_axis_h2c_tlast_0,
    output wire         m_axis_h2c_tvalid_0,
    input  wire         m_axis_h2c_tready_0 /*verilator public_flat_rd*/,
    output wire [15:0]  m_axis_h2c_tkeep_0,
    // card-to-host stream 1 (into the XDMA)
    input  wire [127:0] s_axis_c2h_tdata_1 /*verilator public_flat_rd*/,
    input  wire         s_axis_c2h_tlast_1 /*verilator public_flat_rd*/,
    input  wire         s_axis_c2h_tvalid_1 /*verilator public_flat_rd*/,
    output wire         s_axis_c2h_tready_1,
    input  wire [15:0]  s_axis_c2h_tkeep_1 /*verilator public_flat_rd*/,
    // host-to-card stream 1 (out of the XDMA)
    output wire [127:0] m_axis_h2c_tdata_1,
    output wire         m_axis_h2c_tlast_1,
    output wire         m_axis_h2c_tvalid_1,
    input  wire         m_axis_h2c_tready_1 /*verilator public_flat_rd*/,
    output wire [15:0]  m_axis_h2c_tkeep_1,
    // card-to-host stream 2 (into the XDMA)
    input  wire [127:0] s_axis_c2h_tdata_2 /*verilator public_flat_rd*/,
    input  wire         s_axis_c2h_tlast_2 /*verilator public_flat_rd*/,
    input  wire         s_axis_c2h_tvalid_2 /*verilator public_flat_rd*/,
    output wire         s_axis_c2h_tready_2,
    input  wire [15:0]  s_axis_c2h_tkeep_2 /*verilator public_flat_rd*/,
    // host-to-card stream 2 (out of the XDMA)
    output wire [127:0] m_axis_h2c_tdata_2,
    output wire         m_axis_h2c_tlast_2,
    output wire         m_axis_h2c_tvalid_2,
    input  wire         m_axis_h2c_tready_2 /*verilator public_flat_rd*/,
    output wire [15:0]  m_axis_h2c_tkeep_2,
    // card-to-host stream 3 (into the XDMA)
    input  wire [127:0] s_axis_c2h_tdata_3 /*verilator public_flat_rd*/,
    input  wire         s_axis_c2h_tlast_3 /*verilator public_flat_rd*/,
    input  wire         s_axis_c2h_tvalid_3 /*verilator public_flat_rd*/,
    output wire         s_axis_c2h_tready_3,
    input  wire [15:0]  s_axis_c2h_tkeep_3 /*verilator public_flat_rd*/,
    // host-to-card stream 3 (out of the XDMA)
    output wire [127:0] m_axis_h2c_tdata_3,
    output wire         m_axis_h2c_tlast_3,
    output wire         m_axis_h2c_tvalid_3,
    input  wire         m_axis_h2c_tready_3 /*verilator public_flat_rd*/,
    output wire [15:0]  m_axis_h2c_tkeep_3
);


// Written by the harness
reg         host_aresetn /*verilator public_flat_rw*/;
reg [31:0]  host_awaddr /*verilator public_flat_rw*/;
reg         host_awvalid /*verilator public_flat_rw*/;
reg [31:0]  host_wdata /*verilator public_flat_rw*/;
reg         host_wvalid /*verilator public_flat_rw*/;
reg         host_bready /*verilator public_flat_rw*/;
reg [31:0]  host_araddr /*verilator public_flat_rw*/;
reg         host_arvalid /*verilator public_flat_rw*/;
reg         host_rready /*verilator public_flat_rw*/;
reg [3:0]   host_c2h_tready /*verilator public_flat_rw*/;
reg [511:0] host_h2c_tdata /*verilator public_flat_rw*/;  // stream j in bits 128j +: 128
reg [63:0]  host_h2c_tkeep /*verilator public_flat_rw*/;  // stream j in bits 16j +: 16
reg [3:0]   host_h2c_tvalid /*verilator public_flat_rw*/;
reg [3:0]   host_h2c_tlast /*verilator public_flat_rw*/;

assign user_lnk_up = 1'b1;
assign pci_exp_txp = 4'd0;
assign pci_exp_txn = 4'd0;
assign axi_aclk = sys_clk;
assign axi_aresetn = host_aresetn;
assign usr_irq_ack = 1'b0;
assign msi_enable = 1'b0;
assign msi_vector_width = 3'd0;
assign m_axil_awaddr = host_awaddr;
assign m_axil_awprot = 3'd0;
assign m_axil_awvalid = host_awvalid;
assign m_axil_wdata = host_wdata;
assign m_axil_wstrb = 4'hf;
assign m_axil_wvalid = host_wvalid;
assign m_axil_bready = host_bready;
assign m_axil_araddr = host_araddr;
assign m_axil_arprot = 3'd0;
assign m_axil_arvalid = host_arvalid;
assign m_axil_rready = host_rready;
assign s_axis_c2h_tready_0 = host_c2h_tready[0];
assign s_axis_c2h_tready_1 = host_c2h_tready[1];
assign s_axis_c2h_tready_2 = host_c2h_tready[2];
assign s_axis_c2h_tready_3 = host_c2h_tready[3];
assign m_axis_h2c_tdata_0 = host_h2c_tdata[128*0+:128];
assign m_axis_h2c_tlast_0 = host_h2c_tlast[0];
assign m_axis_h2c_tvalid_0 = host_h2c_tvalid[0];
assign m_axis_h2c_tkeep_0 = host_h2c_tkeep[16*0+:16];
assign m_axis_h2c_tdata_1 = host_h2c_tdata[128*1+:128];
assign m_axis_h2c_tlast_1 = host_h2c_tlast[1];
assign m_axis_h2c_tvalid_1 = host_h2c_tvalid[1];
assign m_axis_h2c_tkeep_1 = host_h2c_tkeep[16*1+:16];
assign m_axis_h2c_tdata_2 = host_h2c_tdata[128*2+:128];
assign m_axis_h2c_tlast_2 = host_h2c_tlast[2];
assign m_axis_h2c_tvalid_2 = host_h2c_tvalid[2];
assign m_axis_h2c_tkeep_2 = host_h2c_tkeep[16*2+:16];
assign m_axis_h2c_tdata_3 = host_h2c_tdata[128*3+:128];
assign m_axis_h2c_tlast_3 = host_h2c_tlast[3];
assign m_axis_h2c_tvalid_3 = host_h2c_tvalid[3];
assign m_axis_h2c_tkeep_3 = host_h2c_tkeep[16*3+:16];

endmodule

`resetall
