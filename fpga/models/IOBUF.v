/*
 * IOBUF: behavioural simulation model of the Xilinx 7-series bidirectional I/O buffer (UG953
 * "IOBUF"), for Verilator and Icarus only; synthesis (Vivado, Yosys synth_xilinx) uses the
 * real primitive. Written from the documented behaviour: T high puts the output driver in
 * high impedance, T low drives I onto the pad; O is the pad's level.
 *
 * Not modelled: the parameters (DRIVE, IOSTANDARD, SLEW, IBUF_LOW_PWR: electrical only; the
 * top sets none, the constraints set the I/O standard), the buffer's delay. Verilator (5.006)
 * resolves a top-level inout to the level the design drives (z reads 0), so a harness cannot
 * drive the pad through it: tb/board/IOBUF.v is the board-top harness's version, with the
 * far end's drive as public signals.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module IOBUF (
    output wire O,   // the pad's level, into the fabric
    inout  wire IO,  // the pad
    input  wire I,   // what the fabric drives
    input  wire T    // 1: high impedance (3-state), 0: drive I
);

assign IO = T ? 1'bz : I;
assign O = IO;

endmodule

`resetall
