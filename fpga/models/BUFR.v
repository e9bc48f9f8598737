/*
 * BUFR: behavioural simulation model of the Xilinx 7-series regional clock buffer (UG472
 * "Regional Clock Buffer", UG953 "BUFR"), for Verilator and Icarus only; synthesis (Vivado,
 * Yosys synth_xilinx) uses the real primitive. Written from the documented behaviour.
 *
 * Modelled: BUFR_DIVIDE "BYPASS" only (O follows I; CE and CLR have no effect in bypass), the
 * mode the board top uses. A divided mode ("1" .. "8") stops the simulation at time 0 with a
 * message rather than model it wrongly. Not modelled: the buffer's delay.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module BUFR #(
    // "BYPASS" or "1" .. "8" (only "BYPASS" is modelled)
    parameter [8*6-1:0] BUFR_DIVIDE = "BYPASS",
    // "VIRTEX4", "VIRTEX5", "VIRTEX6", "7SERIES"
    parameter [8*7-1:0] SIM_DEVICE = "7SERIES"
) (
    output wire O,   // the buffered (or divided) clock
    input  wire CE,  // clock enable of the divider (divided modes)
    input  wire CLR, // asynchronous clear of the divider (divided modes)
    input  wire I    // the clock in
);

initial begin
    if (BUFR_DIVIDE != "BYPASS") begin
        $display("BUFR model: BUFR_DIVIDE %0s is not modelled, only \"BYPASS\"", BUFR_DIVIDE);
        $finish;
    end
end

assign O = I;

wire unused = &{1'b0, CE, CLR, SIM_DEVICE[0]};

endmodule

`resetall
