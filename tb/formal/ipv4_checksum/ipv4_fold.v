// SPDX-License-Identifier: BSD-3-Clause
/*
 * ipv4_fold: the end-around-carry fold of RFC 1071 ("Computing the Internet Checksum", 4.1:
 * "while (sum>>16) sum = (sum & 0xffff) + (sum >> 16);"), done twice, on an integer sum of
 * 16-bit words of up to 21 bits (the sum of at most 32 words).
 *
 * folded is the low 16 bits after two folds; complete says that no carry is left after them,
 * i.e. that folded is what RFC 1071's loop returns. A formal helper shared by the proofs that
 * use it (tb/formal/ipv4_checksum/, tb/formal/evcap_packet_output/); not RTL.
 */

`default_nettype none

module ipv4_fold (
    input  wire [20:0] sum,
    output wire [15:0] folded,
    output wire        complete
);

// first fold: low 16 bits + the carries above them
wire [16:0] fold1 = {1'b0, sum[15:0]} + {12'd0, sum[20:16]};
// second fold: the carry of the first fold added back in
wire [16:0] fold2 = {1'b0, fold1[15:0]} + {16'd0, fold1[16]};

assign folded = fold2[15:0];
assign complete = !fold2[16];

endmodule

`default_nettype wire
