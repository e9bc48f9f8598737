// SPDX-License-Identifier: BSD-3-Clause
/*
 * ipv4_checksum_formal: the arithmetic lemma that turns evcap_packet_output_formal's
 * checksum_field property into "the stat packet header's IPv4 checksum verifies" (issue 18).
 *
 * For every 20-bit S <= 9 * 0xffff (the integer sum of nine 16-bit words, so no wider sum
 * is needed), with fold = ipv4_fold (RFC 1071's end-around-carry fold, twice):
 *   - two folds of S are the complete fold (no carry left);
 *   - with C = ~fold(S) (the checksum RFC 1071 puts in the header, 16 bits), the 21-bit
 *     integer sum T = S + C folds completely in two folds, to 0xffff: RFC 1071's
 *     verification ("the sum of all words, the checksum included, ... all 1 bits") passes.
 *
 * Together with tb/formal/evcap_packet_output/ (the checksum field of the header the block loads
 * is ~fold(S), S being the integer sum of that header's other nine words): a receiver adds the
 * ten header words as integers (any order: integer addition is associative and commutative),
 * which is S + C = T, and folds the carries back in until none is left, which is what two
 * folds do here; the result is 0xffff.
 *
 * No RTL, no state: the assertions are combinational over the 20 free bits of S, proved in
 * every clock by induction at k = 1 (nothing to carry from clock to clock).
 */

`default_nettype none

module ipv4_checksum_formal (
    input  wire        clk,
    input  wire [19:0] s        // the sum of the nine other header words, free
);

wire [15:0] s_folded;
wire        s_complete;
ipv4_fold fold_s (
    .sum({1'b0, s}),
    .folded(s_folded),
    .complete(s_complete)
);

wire [15:0] c = ~s_folded;                     // the checksum field
wire [20:0] t = {1'b0, s} + {5'd0, c};         // the receiver's sum of all ten words

wire [15:0] t_folded;
wire        t_complete;
ipv4_fold fold_t (
    .sum(t),
    .folded(t_folded),
    .complete(t_complete)
);

always @(*) begin
    assume (s <= 20'd589815);                  // 9 * 0xffff = 0x8fff7
    sum_folds_in_two: assert (s_complete);
    verify_folds_in_two: assert (t_complete);
    checksum_verifies: assert (t_folded == 16'hffff);
end

// the extremes are allowed: the largest sum, a sum of 0, and a first fold of S that carries,
// so that the second fold is needed (T's first fold never carries: if it did, its second fold
// would be at most 0x1f, not 0xffff)
wire [16:0] s_fold1 = {1'b0, s[15:0]} + {13'd0, s[19:16]};
always @(*) begin
    cover_largest_sum: cover (s == 20'd589815);
    cover_zero_sum: cover (s == 20'd0);
    cover_sum_second_fold: cover (s_fold1[16]);
end

endmodule

`default_nettype wire
