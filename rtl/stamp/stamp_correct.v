/*
 * stamp_correct: a time of day plus a signed nanosecond correction (combinational).
 *
 *   seconds[31:0] . nanoseconds[29:0]  (0..999 999 999)
 *            |
 *            v
 *   sum = nanoseconds + correction       correction: signed, 30 bits (-2^29 .. 2^29 - 1 ns)
 *            |
 *            +-- sum < 0       --> nanoseconds = sum + 10^9, seconds - 1
 *            +-- sum >= 10^9   --> nanoseconds = sum - 10^9, seconds + 1
 *            '-- otherwise     --> nanoseconds = sum,        seconds
 *
 * |correction| < 10^9, so one carry or borrow is enough. Seconds wrap modulo 2^32 (a negative
 * correction at 0.000000000 gives 4294967295.x). No clock: the stamp is the value in the clock
 * of its inputs.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module stamp_correct (
    // Time of day: low 32 bits of the seconds, nanoseconds 0..999 999 999
    input  wire [31:0] in_seconds,
    input  wire [29:0] in_nanoseconds,
    // Signed correction in nanoseconds (two's complement)
    input  wire [29:0] correction,
    // The corrected time, nanoseconds 0..999 999 999
    output wire [31:0] out_seconds,
    output wire [29:0] out_nanoseconds
);

localparam [31:0] BILLION = 32'd1000000000;

// -2^29 .. 10^9 - 1 + 2^29 - 1: fits a signed 32-bit sum
wire [31:0] sum = {2'b00, in_nanoseconds} + {{2{correction[29]}}, correction};
wire        below = sum[31];
wire        above = !sum[31] && sum >= BILLION;
wire [31:0] wrapped = below ? sum + BILLION : above ? sum - BILLION : sum;

// 0..999 999 999 after the wrap: bits 31:30 are 0
wire unused = &{1'b0, wrapped[31:30]};

assign out_nanoseconds = wrapped[29:0];
assign out_seconds = below ? in_seconds - 32'd1 : above ? in_seconds + 32'd1 : in_seconds;

endmodule

`resetall
