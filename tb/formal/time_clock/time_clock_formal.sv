// SPDX-License-Identifier: BSD-3-Clause
/*
 * time_clock_formal: the time-of-day clock (rtl/time/time_clock.v) keeps docs/time.md, for
 * every input sequence, by k-induction.
 *
 * Assumed: reset in the first clock, nothing else. trim, the commands, their operands, the
 * timer and the counter clears are free in every clock (any trim, any combination of commands,
 * nanoseconds >= 10^9, steps out of range).
 *
 * Proved, of every clock n to n+1:
 *   - the nanoseconds (live and latched) stay below 10^9: also the invariant that closes the
 *     induction;
 *   - time(n+1) is exactly the reference's (below): set (fields compared with the operands),
 *     step, advance; a refused set or step leaves only the advance;
 *   - without a set or step the time goes forward, wrapping only from 2^48 - 1 s;
 *   - set_refused and step_refused count each refused command, and clear;
 *   - a latch copies the time and timer of its clock, and nothing else changes the latched
 *     values; reset clears the time, the latch and the counters.
 * Covers: each command applied and refused in each way, advances of 7 and 9 ns, the carry into
 * seconds, the wrap at 2^48 s, a latch with a set.
 *
 * The reference does the arithmetic of docs/time.md as sw/driver/src/time_model.c does, on
 * T = seconds * 10^9 * 2^32 + part, part = nanoseconds * 2^32 + fraction (2^-32 ns), but keeps
 * T as (seconds, part), 0 <= part < 10^9 * 2^32: an exact representation, with part one number
 * ({nanoseconds, fraction}) where the RTL carries fraction, then nanoseconds. The products
 * seconds * 10^9 of a one-number T are out of reach of z3 (BMC stuck at step 2 for 5 min),
 * so the seconds are added, not multiplied.
 */

`default_nettype none

module time_clock_formal (
    input  wire        clk,
    input  wire        rst,
    input  wire [31:0] trim,
    input  wire        command_set,
    input  wire [47:0] set_seconds,
    input  wire [29:0] set_nanoseconds,
    input  wire        command_step,
    input  wire [47:0] step_seconds,
    input  wire [29:0] step_nanoseconds,
    input  wire        command_latch,
    input  wire [63:0] timer,
    input  wire        set_refused_clear,
    input  wire        step_refused_clear
);

wire [63:0] set_refused;
wire [63:0] step_refused;
wire [47:0] latched_seconds;
wire [29:0] latched_nanoseconds;
wire [31:0] latched_fraction;
wire [63:0] latched_timer;
wire [47:0] tod_seconds;
wire [29:0] tod_nanoseconds;
wire [31:0] tod_fraction;

time_clock dut (
    .clk(clk),
    .rst(rst),
    .trim(trim),
    .command_set(command_set),
    .set_seconds(set_seconds),
    .set_nanoseconds(set_nanoseconds),
    .command_step(command_step),
    .step_seconds(step_seconds),
    .step_nanoseconds(step_nanoseconds),
    .command_latch(command_latch),
    .timer(timer),
    .set_refused(set_refused),
    .set_refused_clear(set_refused_clear),
    .step_refused(step_refused),
    .step_refused_clear(step_refused_clear),
    .latched_seconds(latched_seconds),
    .latched_nanoseconds(latched_nanoseconds),
    .latched_fraction(latched_fraction),
    .latched_timer(latched_timer),
    .tod_seconds(tod_seconds),
    .tod_nanoseconds(tod_nanoseconds),
    .tod_fraction(tod_fraction)
);

// The reset the proof starts from (common/formal_reset.sv)
wire past_valid;
formal_reset initial_reset (.clk(clk), .rst(rst), .past_valid(past_valid));

// ---------------------------------------------------------------------------------------------
// The reference: (seconds, part of the second in 2^-32 ns)

localparam [29:0] NS_PER_S = 30'd1000000000;
localparam [62:0] SECOND = 63'd1000000000 << 32;    // 10^9 ns in 2^-32 ns, below 2^62

wire [62:0] part = {1'b0, tod_nanoseconds, tod_fraction};

// advance: + 8 ns + trim (trim signed: the sum is 7.5 .. 9.5 ns, always positive), at most
// one second carried; the seconds wrap at 2^48
wire [62:0] per_clock = (63'd8 << 32) + {{31{trim[31]}}, trim};
wire [62:0] advance_part_sum = part + per_clock;
wire        advance_carry = advance_part_sum >= SECOND;
wire [62:0] advance_part = advance_part_sum - (advance_carry ? SECOND : 63'd0);
wire [47:0] advance_seconds = tod_seconds + {47'd0, advance_carry};

// step: advance + step_seconds (signed) s + step_nanoseconds ns, in range or refused
wire [62:0] stepped_part_sum = advance_part + {1'b0, step_nanoseconds, 32'd0};
wire        stepped_carry = stepped_part_sum >= SECOND;
wire [62:0] stepped_part = stepped_part_sum - (stepped_carry ? SECOND : 63'd0);
wire signed [49:0] stepped_seconds = $signed({2'b00, advance_seconds})
                                     + $signed({{2{step_seconds[47]}}, step_seconds})
                                     + $signed({49'd0, stepped_carry});

wire set_valid = set_nanoseconds < NS_PER_S;
wire step_valid = step_nanoseconds < NS_PER_S && stepped_seconds >= 0
                  && stepped_seconds < $signed(50'd1 << 48);
wire do_set = command_set && set_valid;
wire do_step = command_step && !command_set && step_valid;
wire refuse_set = command_set && !set_valid;
wire refuse_step = command_step && !do_step;
// for the covers: why a step was refused
wire step_below_0 = command_step && !command_set && step_nanoseconds < NS_PER_S
                    && stepped_seconds < 0;
wire step_past_end = command_step && !command_set && step_nanoseconds < NS_PER_S
                     && stepped_seconds >= $signed(50'd1 << 48);

// what clock n decided and showed, seen in clock n+1 (explicit registers rather than $past, so
// that every check below is of the same clock: a clocked assert would be checked a clock late)
reg          prev_rst = 1'b1;
reg          prev_set = 1'b0;
reg          prev_step = 1'b0;
reg          prev_refuse_set = 1'b0;
reg          prev_refuse_step = 1'b0;
reg          prev_step_below_0 = 1'b0;
reg          prev_step_past_end = 1'b0;
reg  [47:0]  prev_advance_seconds = 48'd0;
reg  [61:0]  prev_advance_part = 62'd0;
reg  [47:0]  prev_stepped_seconds = 48'd0;
reg  [61:0]  prev_stepped_part = 62'd0;
reg  [47:0]  prev_set_seconds = 48'd0;
reg  [29:0]  prev_set_nanoseconds = 30'd0;
reg  [47:0]  prev_seconds = 48'd0;
reg  [29:0]  prev_nanoseconds = 30'd0;
reg  [31:0]  prev_fraction = 32'd0;
reg          prev_latch = 1'b0;
reg  [63:0]  prev_timer = 64'd0;
reg  [173:0] prev_latched = 174'd0;
reg          prev_set_refused_clear = 1'b0;
reg          prev_step_refused_clear = 1'b0;
reg  [63:0]  prev_set_refused = 64'd0;
reg  [63:0]  prev_step_refused = 64'd0;

wire [173:0] latched = {latched_seconds, latched_nanoseconds, latched_fraction, latched_timer};

always @(posedge clk) begin
    prev_rst <= rst;
    prev_set <= do_set;
    prev_step <= do_step;
    prev_refuse_set <= refuse_set;
    prev_refuse_step <= refuse_step;
    prev_step_below_0 <= step_below_0;
    prev_step_past_end <= step_past_end;
    prev_advance_seconds <= advance_seconds;
    prev_advance_part <= advance_part[61:0];
    prev_stepped_seconds <= stepped_seconds[47:0];
    prev_stepped_part <= stepped_part[61:0];
    prev_set_seconds <= set_seconds;
    prev_set_nanoseconds <= set_nanoseconds;
    prev_seconds <= tod_seconds;
    prev_nanoseconds <= tod_nanoseconds;
    prev_fraction <= tod_fraction;
    prev_latch <= command_latch;
    prev_timer <= timer;
    prev_latched <= latched;
    prev_set_refused_clear <= set_refused_clear;
    prev_step_refused_clear <= step_refused_clear;
    prev_set_refused <= set_refused;
    prev_step_refused <= step_refused;
end

// a clock after a clock out of reset: what it shows follows from the clock before
wire running = past_valid && !prev_rst;

// ---------------------------------------------------------------------------------------------
// Properties

always @(*) begin
    nanoseconds_below_1e9: assert (tod_nanoseconds < NS_PER_S);
    latched_nanoseconds_below_1e9: assert (latched_nanoseconds < NS_PER_S);

    if (past_valid && prev_rst)
        reset_clears: assert (tod_seconds == 48'd0 && tod_nanoseconds == 30'd0
                              && tod_fraction == 32'd0 && set_refused == 64'd0
                              && step_refused == 64'd0 && latched == 174'd0);

    // time(n+1) from the values of clock n
    if (running && prev_set)
        time_after_set: assert (tod_seconds == prev_set_seconds
                                && tod_nanoseconds == prev_set_nanoseconds
                                && tod_fraction == 32'd0);
    if (running && prev_step)
        time_after_step: assert (tod_seconds == prev_stepped_seconds
                                 && {tod_nanoseconds, tod_fraction} == prev_stepped_part);
    if (running && !prev_set && !prev_step)
        time_after_advance: assert (tod_seconds == prev_advance_seconds
                                    && {tod_nanoseconds, tod_fraction} == prev_advance_part);
    // a refused command changes nothing but its counter (the latch is checked below)
    if (running && (prev_refuse_set || prev_refuse_step) && !prev_set && !prev_step)
        refused_is_advance: assert (tod_seconds == prev_advance_seconds
                                    && {tod_nanoseconds, tod_fraction} == prev_advance_part);

    // forward, or the wrap from 2^48 - 1 s to 0 s (compared field by field, no product)
    if (running && !prev_set && !prev_step)
        never_backwards: assert ({tod_seconds, tod_nanoseconds, tod_fraction}
                                 > {prev_seconds, prev_nanoseconds, prev_fraction}
                                 || (prev_seconds == {48{1'b1}} && tod_seconds == 48'd0));

    if (running)
        set_refused_counts: assert (set_refused
                                    == (prev_set_refused_clear ? 64'd0 : prev_set_refused)
                                       + (prev_refuse_set ? 64'd1 : 64'd0));
    if (running)
        step_refused_counts: assert (step_refused
                                     == (prev_step_refused_clear ? 64'd0 : prev_step_refused)
                                        + (prev_refuse_step ? 64'd1 : 64'd0));

    if (running && prev_latch)
        latch_copies_time: assert (latched == {prev_seconds, prev_nanoseconds, prev_fraction,
                                               prev_timer});
    if (running && !prev_latch)
        latch_held: assert (latched == prev_latched);
end

// ---------------------------------------------------------------------------------------------
// Reachable: the assumptions leave every case open

always @(*) begin
    if (running) begin
        cover_set_with_latch: cover (prev_set && prev_latch);
        cover_step_back: cover (prev_step && tod_seconds < prev_advance_seconds);
        cover_step_refused_below_0: cover (prev_refuse_step && prev_step_below_0);
        cover_step_refused_past_end: cover (prev_refuse_step && prev_step_past_end);
        cover_step_refused_with_set: cover (prev_refuse_step && prev_set);
        cover_set_refused: cover (prev_refuse_set);
        cover_carry_into_seconds: cover (tod_seconds == prev_seconds + 48'd1 && !prev_set
                                         && !prev_step);
        cover_advance_7_ns: cover (!prev_set && !prev_step && tod_seconds == prev_seconds
                                   && tod_nanoseconds == prev_nanoseconds + 30'd7);
        cover_advance_9_ns: cover (!prev_set && !prev_step && tod_seconds == prev_seconds
                                   && tod_nanoseconds == prev_nanoseconds + 30'd9);
        cover_wrap: cover (tod_seconds == 48'd0 && prev_seconds == {48{1'b1}});
    end
end

endmodule

`default_nettype wire
