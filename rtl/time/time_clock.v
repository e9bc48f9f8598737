/*
 * time_clock: the time-of-day clock of the switch, as a PTP hardware clock has, in the core
 * clock domain (125 MHz, 8 ns). docs/time.md is the contract; tb/time/ checks this module
 * against the reference model sw/driver/src/time_model.c, clock by clock.
 *
 *   time of day = seconds (48 bits) . nanoseconds (30 bits, 0..999 999 999)
 *                 + fraction (32 bits, in 2^-32 ns)
 *
 * Every clock the time advances by 8 ns + trim * 2^-32 ns (trim signed, 32 bits), so it
 * moves by 7, 8 or 9 ns in one clock and by exactly 8 + trim / 2^32 ns on average. Commands
 * are one-clock pulses; in cycle n (values of cycle n on the right):
 *
 *   advance(n)  = time(n) + 8 ns + trim(n) * 2^-32 ns, nanoseconds carried into seconds
 *   time(n+1)   = set(n) && set_nanoseconds(n) < 10^9        ? set_seconds(n).set_nanoseconds(n), fraction 0
 *               : step(n) && !set(n) && the stepped time fits ? advance(n) + step_seconds(n) * 10^9 ns + step_nanoseconds(n) ns
 *               : advance(n)
 *
 * A step "fits" when step_nanoseconds < 10^9 and the stepped seconds stay in 0..2^48-1
 * (step_seconds is signed). A set or step that is not applied is counted (set_refused,
 * step_refused) and the clock advances as usual: it never wraps silently. Seconds wrap at 2^48
 * only by advancing (after 8.9 million years).
 *
 * latch(n) copies time(n) and the evcap timer of cycle n into the latched_* outputs; a latch
 * in the same clock as a set or step sees the time before it.
 *
 * Counters: next = (clear ? 0 : value) + increment, 64 bits.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module time_clock (
    input  wire        clk,
    input  wire        rst,

    // Frequency trim: signed, 2^-32 ns added to the 8 ns of every clock
    input  wire [31:0] trim,

    // Set: one-clock pulse and the value it loads
    input  wire        command_set,
    input  wire [47:0] set_seconds,
    input  wire [29:0] set_nanoseconds,

    // Step: one-clock pulse and the signed offset step_seconds * 10^9 + step_nanoseconds ns
    input  wire        command_step,
    input  wire [47:0] step_seconds,
    input  wire [29:0] step_nanoseconds,

    // Latch: one-clock pulse; timer is the evcap timer latched with the time of day
    input  wire        command_latch,
    input  wire [63:0] timer,

    // Refused commands, counted
    output wire [63:0] set_refused,
    input  wire        set_refused_clear,
    output wire [63:0] step_refused,
    input  wire        step_refused_clear,

    // Time of day latched by the last latch command
    output wire [47:0] latched_seconds,
    output wire [29:0] latched_nanoseconds,
    output wire [31:0] latched_fraction,
    output wire [63:0] latched_timer,

    // Time of day, live
    output wire [47:0] tod_seconds,
    output wire [29:0] tod_nanoseconds,
    output wire [31:0] tod_fraction
);

localparam [31:0] NS_PER_S = 32'd1000000000;

reg [47:0] seconds_reg = 48'd0;
reg [29:0] nanoseconds_reg = 30'd0;
reg [31:0] fraction_reg = 32'd0;

reg [47:0] latched_seconds_reg = 48'd0;
reg [29:0] latched_nanoseconds_reg = 30'd0;
reg [31:0] latched_fraction_reg = 32'd0;
reg [63:0] latched_timer_reg = 64'd0;

reg [63:0] set_refused_reg = 64'd0;
reg [63:0] step_refused_reg = 64'd0;

assign tod_seconds = seconds_reg;
assign tod_nanoseconds = nanoseconds_reg;
assign tod_fraction = fraction_reg;
assign latched_seconds = latched_seconds_reg;
assign latched_nanoseconds = latched_nanoseconds_reg;
assign latched_fraction = latched_fraction_reg;
assign latched_timer = latched_timer_reg;
assign set_refused = set_refused_reg;
assign step_refused = step_refused_reg;

// The advance: fraction + 8 ns + trim. The sum lies in [7.5, 9.5) ns, so its whole
// nanoseconds (bits 35:32) are 7, 8 or 9.
wire [35:0] increment = {4'd0, fraction_reg} + {{4{trim[31]}}, trim} + {4'd8, 32'd0};
wire [31:0] advance_sum = {2'd0, nanoseconds_reg} + {28'd0, increment[35:32]};
wire        advance_carry = advance_sum >= NS_PER_S;
wire [31:0] advance_ns_full = advance_carry ? advance_sum - NS_PER_S : advance_sum;
wire [29:0] advance_nanoseconds = advance_ns_full[29:0];
wire [47:0] advance_seconds = seconds_reg + {47'd0, advance_carry};

// The step, added to the advance.
wire [31:0] step_sum = {2'd0, advance_nanoseconds} + {2'd0, step_nanoseconds};
wire        step_carry = step_sum >= NS_PER_S;
wire [31:0] step_ns_full = step_carry ? step_sum - NS_PER_S : step_sum;
wire [49:0] step_seconds_sum = {2'd0, advance_seconds} + {{2{step_seconds[47]}}, step_seconds}
                               + {49'd0, step_carry};

wire set_ok = {2'd0, set_nanoseconds} < NS_PER_S;
wire step_ok = {2'd0, step_nanoseconds} < NS_PER_S && step_seconds_sum[49:48] == 2'b00;
wire apply_set = command_set && set_ok;
wire apply_step = command_step && !command_set && step_ok;

always @(posedge clk) begin
    if (apply_set) begin
        seconds_reg <= set_seconds;
        nanoseconds_reg <= set_nanoseconds;
        fraction_reg <= 32'd0;
    end else if (apply_step) begin
        seconds_reg <= step_seconds_sum[47:0];
        nanoseconds_reg <= step_ns_full[29:0];
        fraction_reg <= increment[31:0];
    end else begin
        seconds_reg <= advance_seconds;
        nanoseconds_reg <= advance_nanoseconds;
        fraction_reg <= increment[31:0];
    end

    if (command_latch) begin
        latched_seconds_reg <= seconds_reg;
        latched_nanoseconds_reg <= nanoseconds_reg;
        latched_fraction_reg <= fraction_reg;
        latched_timer_reg <= timer;
    end

    set_refused_reg <= (set_refused_clear ? 64'd0 : set_refused_reg)
                       + {63'd0, command_set && !set_ok};
    step_refused_reg <= (step_refused_clear ? 64'd0 : step_refused_reg)
                        + {63'd0, command_step && !apply_step};

    if (rst) begin
        seconds_reg <= 48'd0;
        nanoseconds_reg <= 30'd0;
        fraction_reg <= 32'd0;
        latched_seconds_reg <= 48'd0;
        latched_nanoseconds_reg <= 30'd0;
        latched_fraction_reg <= 32'd0;
        latched_timer_reg <= 64'd0;
        set_refused_reg <= 64'd0;
        step_refused_reg <= 64'd0;
    end
end

// Upper bits that are 0 by construction (nanoseconds below 2 * 10^9 fit in 31 bits)
wire unused = &{1'b0, advance_ns_full[31:30], step_ns_full[31:30]};

endmodule

`resetall
