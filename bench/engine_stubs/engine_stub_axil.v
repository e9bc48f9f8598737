/*
 * engine_stub_axil: the register port of the latency engines' stubs (bench/engine_stubs/), a
 * minimal AXI4-Lite slave with no registers, so that software talking to a stubbed block gets
 * answers and never hangs.
 *
 * Not hardware: a measuring tool of `make bench` (bench/bench_sim.py), which builds the
 * simulator once more with oam_block, stamp_block and flowlat_block replaced by pass-through
 * stubs to show what the idle engines cost per clock (docs/simulator.md, "Speed").
 *
 * A write is taken when its address and data are both valid (awready and wready together) and
 * answered OKAY; a read is answered with 0, OKAY. One write and one read at a time, as in the
 * generated register blocks (rtl/gen/): a new one is taken once the last one's response has
 * been accepted. Synchronous active-high reset.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module engine_stub_axil (
    input  wire            clk,
    input  wire            rst,

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

reg  bvalid_reg = 1'b0;
reg  rvalid_reg = 1'b0;

wire write_en = s_axil_awvalid && s_axil_wvalid && !bvalid_reg;
wire read_en = s_axil_arvalid && !rvalid_reg;

assign s_axil_awready = write_en;
assign s_axil_wready = write_en;
assign s_axil_bresp = 2'b00;
assign s_axil_bvalid = bvalid_reg;
assign s_axil_arready = !rvalid_reg;
assign s_axil_rdata = 32'd0;
assign s_axil_rresp = 2'b00;
assign s_axil_rvalid = rvalid_reg;

wire unused = &{1'b0, s_axil_awaddr, s_axil_awprot, s_axil_wdata, s_axil_wstrb, s_axil_araddr,
                s_axil_arprot};

always @(posedge clk) begin
    if (s_axil_bready) begin
        bvalid_reg <= 1'b0;
    end
    if (write_en) begin
        bvalid_reg <= 1'b1;
    end
    if (s_axil_rready) begin
        rvalid_reg <= 1'b0;
    end
    if (read_en) begin
        rvalid_reg <= 1'b1;
    end
    if (rst) begin
        bvalid_reg <= 1'b0;
        rvalid_reg <= 1'b0;
    end
end

endmodule

`resetall
