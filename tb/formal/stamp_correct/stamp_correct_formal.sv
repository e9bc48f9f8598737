// SPDX-License-Identifier: BSD-3-Clause
/*
 * stamp_correct_formal: stamp_correct (rtl/stamp/stamp_correct.v) adds a signed nanosecond
 * correction to a time of day exactly, for every input.
 *
 * Assumed: the input's nanoseconds below 10^9 (the header's contract). The seconds and the
 * correction are free: every 30-bit two's complement value, -2^29 .. 2^29 - 1 ns.
 *
 * Proved (combinational, every clock at k = 1):
 *   - the output's nanoseconds are below 10^9;
 *   - out = in + correction as a time, seconds * 10^9 + nanoseconds, the seconds modulo
 *     2^32: with S = in_nanoseconds + correction as a 34-bit signed integer (wider than the
 *     RTL's 32-bit sum, so no overflow can hide), exactly one of
 *       same second:      out_seconds = in_seconds,     out_nanoseconds = S
 *       next second:      out_seconds = in_seconds + 1, out_nanoseconds + 10^9 = S
 *       previous second:  out_seconds = in_seconds - 1, out_nanoseconds = S + 10^9
 *     holds. With out_nanoseconds < 10^9 this is the sum itself: a time's representation with
 *     nanoseconds in 0..10^9 - 1 is unique, so no multiplication by 10^9 is needed.
 * Covers: each of the three cases, the seconds wrapping both ways (0 - 1 s, 2^32 - 1 + 1 s),
 * the extreme corrections, a sum exactly 0 and exactly 10^9 (the boundaries of the cases).
 */

`default_nettype none

module stamp_correct_formal (
    input  wire        clk,
    input  wire [31:0] in_seconds,
    input  wire [29:0] in_nanoseconds,
    input  wire [29:0] correction
);

wire [31:0] out_seconds;
wire [29:0] out_nanoseconds;

stamp_correct dut (
    .in_seconds(in_seconds),
    .in_nanoseconds(in_nanoseconds),
    .correction(correction),
    .out_seconds(out_seconds),
    .out_nanoseconds(out_nanoseconds)
);

localparam signed [33:0] BILLION = 34'sd1000000000;

// the reference: nanoseconds + correction as a wide signed integer
wire signed [33:0] s = $signed({4'd0, in_nanoseconds}) + $signed({{4{correction[29]}}, correction});
wire signed [33:0] out_ns = $signed({4'd0, out_nanoseconds});

wire same_second = out_seconds == in_seconds && out_ns == s;
wire next_second = out_seconds == in_seconds + 32'd1 && out_ns + BILLION == s;
wire previous_second = out_seconds == in_seconds - 32'd1 && out_ns == s + BILLION;

always @(*) begin
    assume (in_nanoseconds < 30'd1000000000);

    out_nanoseconds_below_1e9: assert (out_nanoseconds < 30'd1000000000);
    out_is_in_plus_correction: assert (same_second || next_second || previous_second);
end

always @(*) begin
    cover_same_second: cover (same_second && correction != 30'd0);
    cover_next_second: cover (next_second);
    cover_previous_second: cover (previous_second);
    cover_seconds_wrap_down: cover (previous_second && in_seconds == 32'd0
                                    && out_seconds == 32'hffffffff);
    cover_seconds_wrap_up: cover (next_second && in_seconds == 32'hffffffff
                                  && out_seconds == 32'd0);
    cover_most_negative: cover (correction == 30'h20000000 && in_nanoseconds == 30'd0);
    cover_most_positive: cover (correction == 30'h1fffffff
                                && in_nanoseconds == 30'd999999999);
    cover_sum_zero: cover (s == 34'sd0 && correction != 30'd0);
    cover_sum_billion: cover (s == BILLION);
end

endmodule

`default_nettype wire
