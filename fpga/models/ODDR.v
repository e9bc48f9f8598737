/*
 * ODDR: behavioural simulation model of the Xilinx 7-series output DDR register (OLOGIC ODDR,
 * UG471 "Output DDR Overview (ODDR)", UG953 "ODDR"), for Verilator and Icarus only. Synthesis
 * (Vivado, Yosys synth_xilinx) uses the real primitive: never put this file in a synthesis
 * source list. Written from the documented behaviour, not from Xilinx's unisim source.
 *
 * Ports: Q (the pin side), C (clock), CE (clock enable, active high), D1, D2 (data), R (reset:
 * Q to 0), S (set: Q to 1).
 *
 * Parameters:
 *   DDR_CLK_EDGE "OPPOSITE_EDGE": D1 is taken at the rising edge of C and is on Q from that
 *                edge; D2 is taken at the falling edge and is on Q from that edge.
 *                "SAME_EDGE": D1 and D2 are both taken at the rising edge of C; D1 is on Q
 *                from that edge, D2 from the following falling edge.
 *   INIT         Q's value after configuration (both halves), 0 or 1.
 *   SRTYPE       "SYNC": R and S act at the edges of C (each half at its edge);
 *                "ASYNC": at once.
 *   IS_C_INVERTED, IS_D1_INVERTED, IS_D2_INVERTED: 1 inverts that input (the optional
 *                inverters of the 7-series OLOGIC), default 0.
 *
 * Q is the rising-edge register while C is high and the falling-edge register while C is
 * low, as the OLOGIC's output multiplexer does; with CE low both hold and Q keeps alternating
 * between them. The hardware forbids R and S together; here R wins. Not modelled: the global
 * set/reset (GSR), timing, X propagation beyond what the simulator does itself. As for any
 * flip-flop in Icarus, a C that starts as X and becomes 0 at time 0 is a falling edge there
 * (Q shows D2 instead of INIT until the first rising edge); Verilator sees no such edge.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module ODDR #(
    // "OPPOSITE_EDGE" or "SAME_EDGE" (see above)
    parameter [8*13-1:0] DDR_CLK_EDGE = "OPPOSITE_EDGE",
    // Initial value of Q
    parameter [0:0] INIT = 1'b0,
    // "SYNC" or "ASYNC" set and reset
    parameter [8*5-1:0] SRTYPE = "SYNC",
    // Optional inversion of C, D1 and D2
    parameter [0:0] IS_C_INVERTED = 1'b0,
    parameter [0:0] IS_D1_INVERTED = 1'b0,
    parameter [0:0] IS_D2_INVERTED = 1'b0
) (
    output wire Q,
    input  wire C,
    input  wire CE,
    input  wire D1,
    input  wire D2,
    input  wire R,
    input  wire S
);

// The parameters' values, as wide as the parameters (strings are compared as numbers)
localparam [8*13-1:0] OPPOSITE_EDGE = "OPPOSITE_EDGE",
                      SAME_EDGE = "SAME_EDGE";
localparam [8*5-1:0]  SYNC = "SYNC",
                      ASYNC = "ASYNC";

wire clock = C ^ IS_C_INVERTED;
wire d1 = D1 ^ IS_D1_INVERTED;
wire d2 = D2 ^ IS_D2_INVERTED;

reg rise_q = INIT;  // on Q while the clock is high
reg fall_q = INIT;  // on Q while the clock is low
reg d2_held = INIT; // SAME_EDGE: D2 as taken at the rising edge

// D2 as the falling edge loads it: taken at that edge, or at the rising edge before it
wire fall_d = DDR_CLK_EDGE == SAME_EDGE ? d2_held : d2;

initial begin
    if (DDR_CLK_EDGE != OPPOSITE_EDGE && DDR_CLK_EDGE != SAME_EDGE) begin
        $display("ODDR %m: DDR_CLK_EDGE must be \"OPPOSITE_EDGE\" or \"SAME_EDGE\"");
        $finish;
    end
    if (SRTYPE != SYNC && SRTYPE != ASYNC) begin
        $display("ODDR %m: SRTYPE must be \"SYNC\" or \"ASYNC\"");
        $finish;
    end
end

generate
    if (SRTYPE == ASYNC) begin : async_set_reset
        always @(posedge clock or posedge R or posedge S) begin
            if (R) begin
                rise_q <= 1'b0;
                d2_held <= 1'b0;
            end else if (S) begin
                rise_q <= 1'b1;
                d2_held <= 1'b1;
            end else if (CE) begin
                rise_q <= d1;
                d2_held <= d2;
            end
        end

        always @(negedge clock or posedge R or posedge S) begin
            if (R)
                fall_q <= 1'b0;
            else if (S)
                fall_q <= 1'b1;
            else if (CE)
                fall_q <= fall_d;
        end
    end else begin : sync_set_reset
        always @(posedge clock) begin
            if (R) begin
                rise_q <= 1'b0;
                d2_held <= 1'b0;
            end else if (S) begin
                rise_q <= 1'b1;
                d2_held <= 1'b1;
            end else if (CE) begin
                rise_q <= d1;
                d2_held <= d2;
            end
        end

        always @(negedge clock) begin
            if (R)
                fall_q <= 1'b0;
            else if (S)
                fall_q <= 1'b1;
            else if (CE)
                fall_q <= fall_d;
        end
    end
endgenerate

assign Q = clock ? rise_q : fall_q;

endmodule

`resetall
