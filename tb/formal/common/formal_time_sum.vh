// SPDX-License-Identifier: BSD-3-Clause
// formal_time_sum.vh: time_sum_ok(out, in, c), whether the time `out` is the time `in` plus
// c nanoseconds (docs/timestamps.md): times are {seconds[31:0], nanoseconds[29:0]}, c is 30
// bits signed (|c| < 10^9), and out's nanoseconds stay below 10^9, the seconds modulo 2^32.
// Written with additions only (the same second, the next or the previous one), as z3 does not
// decide seconds x 10^9. Included inside the modules of the proofs that use it
// (tb/formal/stamp_rx/, tb/formal/stamp_tx/); formal.py reads with tb/formal/common/ on the
// include path.

localparam signed [33:0] TIME_SUM_BILLION = 34'sd1000000000;

function time_sum_ok(input [61:0] out, input [61:0] in, input [29:0] c);
    reg signed [33:0] s;
    reg signed [33:0] o;
    begin
        s = $signed({4'd0, in[29:0]}) + $signed({{4{c[29]}}, c});
        o = $signed({4'd0, out[29:0]});
        time_sum_ok = out[29:0] < 30'd1000000000
                      && ((out[61:30] == in[61:30] && o == s)
                          || (out[61:30] == in[61:30] + 32'd1 && o + TIME_SUM_BILLION == s)
                          || (out[61:30] == in[61:30] - 32'd1 && o == s + TIME_SUM_BILLION));
    end
endfunction
