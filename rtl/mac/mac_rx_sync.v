/*
 * mac_rx_sync: a two-flip-flop synchronizer for the receive path's clock-domain crossings
 * (mac_rx_fifo's Gray-coded pointers and frame counts, mac_rx_stamp's): each bit of `in`,
 * launched from a register in another clock domain, through two flip-flops of `clk`.
 *
 *   in --> [ff] --> [ff] --> out      (both ASYNC_REG: placed together, timing-analysed as a
 *            clk      clk             synchronizer; the first may go metastable)
 *
 * Only a value of which at most one bit changes at a time (a Gray code) crosses whole: the
 * output is then always the old or the new value, 1 to 2 clocks after the change (2 to 3
 * edges, by the phase of the change). No reset: the flip-flops follow the input within two
 * clocks of it settling (the pointers are reset in their own domain first).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module mac_rx_sync #(
    parameter WIDTH = 1 // bits synchronized
) (
    input  wire             clk, // the destination clock
    input  wire [WIDTH-1:0] in,  // from a register of the source clock domain
    output wire [WIDTH-1:0] out  // in, two clocks of `clk` later
);

(* ASYNC_REG = "TRUE" *) reg [WIDTH-1:0] meta;
(* ASYNC_REG = "TRUE" *) reg [WIDTH-1:0] sync;

always @(posedge clk) begin
    meta <= in;
    sync <= meta;
end

assign out = sync;

endmodule

`resetall
