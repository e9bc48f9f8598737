/*
 * IBUFDS_GTE2: behavioural simulation model of the Xilinx 7-series transceiver reference clock
 * input buffer (UG476 "Reference Clock Input Structure", UG953 "IBUFDS_GTE2"), for Verilator
 * and Icarus only; synthesis (Vivado, Yosys synth_xilinx) uses the real primitive. Written
 * from the documented behaviour: with CEB low (enabled) O follows the differential input and
 * ODIV2 is O divided by 2 (toggling at O's rising edges); with CEB high both are 0.
 * CLKCM_CFG, CLKRCV_TRST and CLKSWING_CFG are electrical: no effect here.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module IBUFDS_GTE2 #(
    parameter [8*5-1:0] CLKCM_CFG = "TRUE",
    parameter [8*5-1:0] CLKRCV_TRST = "TRUE",
    parameter [1:0]     CLKSWING_CFG = 2'b11
) (
    output wire O,     // the reference clock (to the GTX and, here, to the fabric)
    output wire ODIV2, // the same divided by 2
    input  wire CEB,   // clock enable, active low
    input  wire I,     // the positive input
    input  wire IB     // the negative input
);

wire clk_in = (I && !IB) ? 1'b1 : (!I && IB) ? 1'b0 : 1'bx;
reg  div2;

initial div2 = 1'b0;

always @(posedge clk_in) begin
    div2 <= !div2;
end

assign O = CEB ? 1'b0 : clk_in;
assign ODIV2 = CEB ? 1'b0 : div2;

wire unused = &{1'b0, CLKCM_CFG[0], CLKRCV_TRST[0], CLKSWING_CFG};

endmodule

`resetall
