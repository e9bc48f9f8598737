/*
 * IBUFDS: behavioural simulation model of the Xilinx 7-series differential input buffer
 * (UG471 "SelectIO", UG953 "IBUFDS"), for Verilator and Icarus only; synthesis (Vivado, Yosys
 * synth_xilinx) uses the real primitive. Written from the documented truth table: O is 1 when
 * I is 1 and IB 0, 0 when I is 0 and IB 1, and X otherwise (the simulator's X; Verilator makes
 * it 0). DIFF_TERM, IBUF_LOW_PWR and IOSTANDARD are electrical: no effect here.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module IBUFDS #(
    parameter [8*5-1:0]  DIFF_TERM = "FALSE",
    parameter [8*5-1:0]  IBUF_LOW_PWR = "TRUE",
    parameter [8*16-1:0] IOSTANDARD = "DEFAULT"
) (
    output wire O,  // the buffer's output
    input  wire I,  // the positive input (P pin)
    input  wire IB  // the negative input (N pin)
);

assign O = (I && !IB) ? 1'b1 : (!I && IB) ? 1'b0 : 1'bx;

wire unused = &{1'b0, DIFF_TERM[0], IBUF_LOW_PWR[0], IOSTANDARD[0]};

endmodule

`resetall
