// SPDX-License-Identifier: BSD-3-Clause
/*
 * formal_reset: the reset every proof starts from, one instance in each property wrapper (and
 * in formal_axil_slave.sv for the register blocks' proofs) instead of the same lines in each.
 *
 * Assumes rst in the initial state: the first clock of the BMC from reset, and in the
 * induction any state in which past_valid is still 0 (the first clock of a run). After it:
 *   - ONCE = 0: rst is free, a reset may come in any clock (the wrapper's model restarts with
 *     the RTL's, and the assertions say what a reset does);
 *   - ONCE = 1: rst stays low, the proof is of one run from one reset.
 *
 * past_valid is 1 from the second clock on: where $past is defined.
 */

`default_nettype none

module formal_reset #(
    // 1: rst in the initial state and never after; 0: in the initial state, then free
    parameter ONCE = 0
) (
    input  wire clk,
    input  wire rst,
    output reg  past_valid = 1'b0
);

always @(posedge clk) past_valid <= 1'b1;

always @(*) if (!past_valid) assume (rst);

generate
    if (ONCE) begin : once
        always @(*) if (past_valid) assume (!rst);
    end
endgenerate

endmodule

`default_nettype wire
