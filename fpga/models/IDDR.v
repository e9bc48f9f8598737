/*
 * IDDR: a behavioural simulation model of the Xilinx 7-series input DDR register (UG471
 * "ILOGIC resources", UG953 "IDDR"), for Verilator and Icarus only. The board build uses
 * Vivado's primitive; Yosys knows IDDR as a black box. Written from the documented behaviour,
 * not from Xilinx's library.
 *
 * D is sampled at both edges of C: Q1 carries the rising-edge sample, Q2 the falling-edge one.
 * DDR_CLK_EDGE says when they appear (D0 sampled at rising edge n, D1 at the falling edge
 * that follows, D2 at rising edge n+1, ...):
 *
 *                   C   _/~~\__/~~\__/~~\__
 *                   D    D0 D1 D2 D3 D4 D5
 *   OPPOSITE_EDGE   Q1   ..D0....D2....D4..    (after the rising edge)
 *                   Q2   .....D1....D3....     (after the falling edge)
 *   SAME_EDGE       Q1   ..D0....D2....D4..    (Q1, Q2 both change after the rising edge;
 *                   Q2   ..--....D1....D3..     a pair D0/D1 is split over two clocks)
 *   SAME_EDGE_PIPELINED
 *                   Q1   ..--....D0....D2..    (one clock more on Q1: the pair D0/D1
 *                   Q2   ..--....D1....D3..     together after rising edge n+1)
 *
 *   rise_q <- D @ rising C        fall_q <- D @ falling C
 *   OPPOSITE_EDGE:        Q1 = rise_q,                   Q2 = fall_q
 *   SAME_EDGE:            Q1 = rise_q,                   Q2 = fall_q re-registered @ rising C
 *   SAME_EDGE_PIPELINED:  Q1 = rise_q re-registered,     Q2 = fall_q re-registered
 *
 * CE = 0 holds every register. R (reset to 0) and S (set to 1), R first, act on every register
 * of the primitive, at the register's own clock edge (SRTYPE "SYNC") or at once ("ASYNC").
 * INIT_Q1 and INIT_Q2 are the registers' values after configuration (the start of the
 * simulation). Any other DDR_CLK_EDGE or SRTYPE stops the simulation with a message.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module IDDR #(
    parameter [8*20-1:0] DDR_CLK_EDGE = "OPPOSITE_EDGE", // "OPPOSITE_EDGE", "SAME_EDGE", "SAME_EDGE_PIPELINED"
    parameter [0:0]      INIT_Q1 = 1'b0,                 // Q1's registers after configuration
    parameter [0:0]      INIT_Q2 = 1'b0,                 // Q2's registers after configuration
    parameter [8*20-1:0] SRTYPE = "SYNC"                 // "SYNC" or "ASYNC" set and reset
) (
    output wire Q1, // the rising-edge sample
    output wire Q2, // the falling-edge sample
    input  wire C,  // clock
    input  wire CE, // clock enable (1: sample)
    input  wire D,  // the DDR input
    input  wire R,  // reset to 0, active high
    input  wire S   // set to 1, active high
);

// The string parameters are 20 characters wide (a literal is right-aligned, zero-padded), and
// so are the literals they are compared with.
localparam [8*20-1:0] OPPOSITE_EDGE_S = "OPPOSITE_EDGE";
localparam [8*20-1:0] SAME_EDGE_S = "SAME_EDGE";
localparam [8*20-1:0] SAME_EDGE_PIPELINED_S = "SAME_EDGE_PIPELINED";
localparam [8*20-1:0] SYNC_S = "SYNC";
localparam [8*20-1:0] ASYNC_S = "ASYNC";
localparam MODE_OPPOSITE = DDR_CLK_EDGE == OPPOSITE_EDGE_S;
localparam MODE_SAME = DDR_CLK_EDGE == SAME_EDGE_S;
localparam MODE_PIPELINED = DDR_CLK_EDGE == SAME_EDGE_PIPELINED_S;
localparam ASYNC = SRTYPE == ASYNC_S;

reg rise_q = INIT_Q1;     // D at the rising edge
reg rise_pipe_q = INIT_Q1; // rise_q one rising edge later (SAME_EDGE_PIPELINED)
reg fall_q = INIT_Q2;     // D at the falling edge
reg fall_pipe_q = INIT_Q2; // fall_q at the next rising edge (SAME_EDGE, SAME_EDGE_PIPELINED)

initial begin
    if (!(MODE_OPPOSITE || MODE_SAME || MODE_PIPELINED)) begin
        $display("IDDR %m: DDR_CLK_EDGE is not OPPOSITE_EDGE, SAME_EDGE or SAME_EDGE_PIPELINED");
        $finish;
    end
    if (!(SRTYPE == SYNC_S || ASYNC)) begin
        $display("IDDR %m: SRTYPE is not SYNC or ASYNC");
        $finish;
    end
end

generate
if (ASYNC) begin : g_async
    always @(posedge C or posedge R or posedge S) begin
        if (R) begin
            rise_q <= 1'b0;
            rise_pipe_q <= 1'b0;
            fall_pipe_q <= 1'b0;
        end else if (S) begin
            rise_q <= 1'b1;
            rise_pipe_q <= 1'b1;
            fall_pipe_q <= 1'b1;
        end else if (CE) begin
            rise_q <= D;
            rise_pipe_q <= rise_q;
            fall_pipe_q <= fall_q;
        end
    end
    always @(negedge C or posedge R or posedge S) begin
        if (R)
            fall_q <= 1'b0;
        else if (S)
            fall_q <= 1'b1;
        else if (CE)
            fall_q <= D;
    end
end else begin : g_sync
    always @(posedge C) begin
        if (R) begin
            rise_q <= 1'b0;
            rise_pipe_q <= 1'b0;
            fall_pipe_q <= 1'b0;
        end else if (S) begin
            rise_q <= 1'b1;
            rise_pipe_q <= 1'b1;
            fall_pipe_q <= 1'b1;
        end else if (CE) begin
            rise_q <= D;
            rise_pipe_q <= rise_q;
            fall_pipe_q <= fall_q;
        end
    end
    always @(negedge C) begin
        if (R)
            fall_q <= 1'b0;
        else if (S)
            fall_q <= 1'b1;
        else if (CE)
            fall_q <= D;
    end
end
endgenerate

assign Q1 = MODE_PIPELINED ? rise_pipe_q : rise_q;
assign Q2 = MODE_OPPOSITE ? fall_q : fall_pipe_q;

endmodule

`resetall
