/*
 * BUFG: behavioural simulation model of the Xilinx 7-series global clock buffer (UG472, UG953
 * "BUFG"), for Verilator and Icarus only; synthesis (Vivado, Yosys synth_xilinx) uses the real
 * primitive. Written from the documented behaviour: O follows I (the buffer's delay is not
 * modelled).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module BUFG (
    output wire O, // the buffered clock
    input  wire I  // the clock in
);

assign O = I;

endmodule

`resetall
