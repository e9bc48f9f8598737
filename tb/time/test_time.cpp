// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_time: the time-of-day clock (rtl/time/time_base.v: generated registers + time_clock)
 * operated only through its AXI4-Lite registers, against the reference model
 * sw/driver/src/time_model.c (written from docs/time.md).
 *
 * In every clock the harness compares the RTL's live time of day (tod_seconds,
 * tod_nanoseconds, tod_fraction) with the model's. It drives the evcap timer input itself
 * (counting, or a new random value every clock) and gives the model, in every clock, what
 * docs/time.md says the register block presents: a write acts in the clock in which the block
 * raises BVALID for it (rw registers change, command bits pulse), 48-bit values commit with
 * their high word, counters clear on a write to either word.
 *
 * Beyond the model, each directed case checks its own closed-form expectation: the time a
 * given number of clocks after a set, computed as N x (8 ns + trim x 2^-32 ns) in integers;
 * the latched timer and time equal the timer the harness drove and the RTL's outputs in the
 * clock of the latch command; refused commands counted.
 *
 *   test_time [--seed N] [--cycles N] [--only NAME] [--list]
 *
 * Prints TAP (tb/common/tap_runner.h); randomized cases print their seed and how to replay it.
 */
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "Vtime_base.h"
#include "axil_master.h"
#include "tap_runner.h"
#include "verilated.h"

extern "C" {
#include "pktstats/regs.h"
#include "pktstats/time_model.h"
}

namespace {

constexpr uint64_t NS_PER_S = 1000000000;
constexpr uint64_t SECONDS_MASK = (UINT64_C(1) << 48) - 1;
constexpr uint32_t REG_MASK = 0xfff;

std::string fmt_time(const struct time_model_time &t)
{
	char text[80];
	snprintf(text, sizeof(text), "%" PRIu64 ".%09" PRIu32 "+%08" PRIx32, t.seconds,
		 t.nanoseconds, t.fraction);
	return text;
}

bool same(const struct time_model_time &a, const struct time_model_time &b)
{
	return a.seconds == b.seconds && a.nanoseconds == b.nanoseconds && a.fraction == b.fraction;
}

// The time `clocks` clocks after `start` at a constant trim, in integers (docs/time.md):
// start + clocks x (8 x 2^32 + trim) units of 2^-32 ns.
struct time_model_time after(const struct time_model_time &start, uint64_t clocks, int32_t trim)
{
	unsigned __int128 units = (unsigned __int128)clocks * (unsigned __int128)((INT64_C(8) << 32) + trim);
	unsigned __int128 total = ((unsigned __int128)(start.seconds * NS_PER_S + start.nanoseconds) << 32) +
				  start.fraction + units;
	unsigned __int128 ns = total >> 32;
	struct time_model_time t;
	t.fraction = (uint32_t)total;
	t.seconds = (uint64_t)(ns / NS_PER_S);
	t.nanoseconds = (uint32_t)(ns % NS_PER_S);
	return t;
}

uint32_t merge(uint32_t old, uint32_t data, unsigned strb)
{
	uint32_t mask = 0;
	for (unsigned i = 0; i < 4; i++)
		if (strb >> i & 1)
			mask |= 0xffu << (8 * i);
	return (old & ~mask) | (data & mask);
}

struct Latched {
	struct time_model_time time;
	uint64_t timer;
};

struct Harness {
	VerilatedContext context;
	Vtime_base dut{&context};
	axil::Master<Vtime_base> bus{dut};
	struct time_model model;
	struct time_model_inputs in;   // what the register block presents, as the harness knows it
	uint32_t set_seconds_shadow = 0, step_seconds_shadow = 0;
	std::mt19937_64 rng;
	bool random_timer = false;
	uint64_t timer = 0;            // the evcap timer driven in the current clock
	uint64_t clock = 0;            // clocks since the harness started
	uint64_t compared = 0;
	std::string error;

	// The write in progress: it acts in the clock its BVALID rises.
	struct {
		bool active = false;
		uint32_t address = 0, data = 0;
		unsigned strb = 0;
		uint64_t clock = 0;    // the clock it acted in
		struct time_model_time tod; // the RTL's time of day in that clock
		uint64_t timer = 0;    // the timer driven in that clock
	} write_state;
	bool bvalid_before = false;

	explicit Harness(uint64_t seed = 1) : rng(seed)
	{
		time_model_reset(&model);
		memset(&in, 0, sizeof(in));
		bus.on_cycle = [this]() { cycle(); };
		dut.timer = 0;
		bus.reset();
	}

	struct time_model_time rtl_time() const
	{
		return {static_cast<uint64_t>(dut.tod_seconds), static_cast<uint32_t>(dut.tod_nanoseconds),
			static_cast<uint32_t>(dut.tod_fraction)};
	}

	// After each rising edge: the state of the new clock. The model holds the state of this
	// clock on entry and of the next one on exit (a reset clock restarts it from 0).
	void cycle()
	{
		clock++;
		if (dut.rst)
			time_model_reset(&model);
		// The evcap timer of this clock
		timer = random_timer ? rng() : timer + 1;
		dut.timer = timer;
		if (dut.s_axil_bvalid && !bvalid_before && write_state.active) {
			write_state.active = false;
			write_state.clock = clock;
			write_state.tod = rtl_time();
			write_state.timer = timer;
			apply(write_state.address, write_state.data, write_state.strb);
		}
		bvalid_before = dut.s_axil_bvalid;

		struct time_model_time rtl = rtl_time();
		if (!dut.rst && !same(rtl, model.now) && error.empty())
			error = "clock " + std::to_string(clock) + ": RTL " + fmt_time(rtl) + ", model " +
				fmt_time(model.now);
		compared++;

		in.timer = timer;
		time_model_step(&model, &in);
		in.latch = in.set = in.step = false;
		in.set_refused_clear = in.step_refused_clear = false;
	}

	// docs/regmap.md's rules for this block's registers, in the clock the write acts.
	void apply(uint32_t address, uint32_t data, unsigned strb)
	{
		switch (address) {
		case PKTSTATS_TIME_COMMAND & REG_MASK:
			if (strb & 1) {
				in.latch = data & PKTSTATS_TIME_COMMAND_LATCH_MASK;
				in.set = data & PKTSTATS_TIME_COMMAND_SET_MASK;
				in.step = data & PKTSTATS_TIME_COMMAND_STEP_MASK;
			}
			break;
		case PKTSTATS_TIME_TRIM & REG_MASK:
			in.trim = (int32_t)merge((uint32_t)in.trim, data, strb);
			break;
		case PKTSTATS_TIME_SET_SECONDS_LO & REG_MASK:
			set_seconds_shadow = merge(set_seconds_shadow, data, strb);
			break;
		case PKTSTATS_TIME_SET_SECONDS_HI & REG_MASK:
			in.set_seconds = (uint64_t)(merge((uint32_t)(in.set_seconds >> 32), data, strb & 3) & 0xffff) << 32 |
					 set_seconds_shadow;
			break;
		case PKTSTATS_TIME_SET_NANOSECONDS & REG_MASK:
			in.set_nanoseconds = merge(in.set_nanoseconds, data, strb) & PKTSTATS_TIME_SET_NANOSECONDS_MASK;
			break;
		case PKTSTATS_TIME_STEP_SECONDS_LO & REG_MASK:
			step_seconds_shadow = merge(step_seconds_shadow, data, strb);
			break;
		case PKTSTATS_TIME_STEP_SECONDS_HI & REG_MASK:
			in.step_seconds = (uint64_t)(merge((uint32_t)(in.step_seconds >> 32), data, strb & 3) & 0xffff) << 32 |
					  step_seconds_shadow;
			break;
		case PKTSTATS_TIME_STEP_NANOSECONDS & REG_MASK:
			in.step_nanoseconds = merge(in.step_nanoseconds, data, strb) & PKTSTATS_TIME_STEP_NANOSECONDS_MASK;
			break;
		case PKTSTATS_TIME_SET_REFUSED_LO & REG_MASK:
		case PKTSTATS_TIME_SET_REFUSED_HI & REG_MASK:
			in.set_refused_clear = true;
			break;
		case PKTSTATS_TIME_STEP_REFUSED_LO & REG_MASK:
		case PKTSTATS_TIME_STEP_REFUSED_HI & REG_MASK:
			in.step_refused_clear = true;
			break;
		default:
			break; // const, ro, unmapped: SLVERR, nothing changes
		}
	}

	unsigned write(uint32_t address, uint32_t data, unsigned strb = 0xf, axil::WriteTiming t = {})
	{
		write_state.active = true;
		write_state.address = address & REG_MASK;
		write_state.data = data;
		write_state.strb = strb;
		unsigned resp = bus.write(address & REG_MASK, data, strb, t).resp;
		if (write_state.active && error.empty())
			error = "a write was never answered";
		return resp;
	}

	uint32_t read(uint32_t address) { return bus.read(address & REG_MASK).data; }
	uint64_t read64(uint32_t address) { return bus.read64(address & REG_MASK); }

	void write48(uint32_t address, uint64_t value)
	{
		write(address, (uint32_t)value);
		write(address + 4, (uint32_t)(value >> 32 & 0xffff));
	}

	void stage_set(uint64_t seconds, uint32_t nanoseconds)
	{
		write48(PKTSTATS_TIME_SET_SECONDS, seconds);
		write(PKTSTATS_TIME_SET_NANOSECONDS, nanoseconds);
	}

	// A signed offset in ns as the registers hold it: seconds floored, nanoseconds 0..10^9-1.
	void stage_step(int64_t offset_ns)
	{
		int64_t seconds = offset_ns / (int64_t)NS_PER_S;
		int64_t ns = offset_ns % (int64_t)NS_PER_S;
		if (ns < 0) {
			ns += NS_PER_S;
			seconds--;
		}
		write48(PKTSTATS_TIME_STEP_SECONDS, (uint64_t)seconds & SECONDS_MASK);
		write(PKTSTATS_TIME_STEP_NANOSECONDS, (uint32_t)ns);
	}

	// Writes the command bits; returns the clock they acted in.
	uint64_t command(uint32_t bits)
	{
		write(PKTSTATS_TIME_COMMAND, bits);
		return write_state.clock;
	}

	// Reads the latched registers.
	Latched read_latched()
	{
		Latched l;
		l.time.seconds = read64(PKTSTATS_TIME_LATCHED_SECONDS);
		l.time.nanoseconds = read(PKTSTATS_TIME_LATCHED_NANOSECONDS);
		l.time.fraction = read(PKTSTATS_TIME_LATCHED_FRACTION);
		l.timer = read64(PKTSTATS_TIME_LATCHED_TIMER);
		return l;
	}

	// The model's and the harness's own view of the latch must agree with what the RTL holds.
	std::string check_latched(const Latched &l)
	{
		if (!same(l.time, model.latched) || l.timer != model.latched_timer)
			return "latched " + fmt_time(l.time) + " timer " + std::to_string(l.timer) +
			       ", model " + fmt_time(model.latched) + " timer " +
			       std::to_string(model.latched_timer);
		return "";
	}

	std::string result(const std::string &own)
	{
		if (!error.empty())
			return error;
		if (!bus.protocol_error().empty())
			return "bus: " + bus.protocol_error();
		return own;
	}
};

int32_t ppb_units(double ppb)
{
	double units = ppb * 8.0 * 4294967296.0 / 1e9;
	return (int32_t)(units < 0 ? units - 0.5 : units + 0.5);
}

// ----------------------------------------------------------------------------------------
// Directed cases

tap::Result test_identity()
{
	Harness h;
	if (h.read(PKTSTATS_TIME_TYPE) != PKTSTATS_TIME_TYPE_VALUE ||
	    h.read(PKTSTATS_TIME_VERSION) != PKTSTATS_TIME_VERSION_VALUE)
		return "type/version words";
	if (h.read(PKTSTATS_TIME_TRIM) != 0 || h.read(PKTSTATS_TIME_COMMAND) != 0)
		return "trim or command not 0 after reset";
	if (h.write(PKTSTATS_TIME_LATCHED_NANOSECONDS, 5) != axil::RESP_SLVERR)
		return "a write to a read-only register is not refused";
	h.bus.idle_cycles(100);
	uint64_t c = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
	Latched l = h.read_latched();
	// From reset the clock ran 8 ns per clock: the latch clock's time is 8 ns per clock since
	// the reset's end, exactly what the RTL showed in that clock.
	if (!same(l.time, h.write_state.tod) || l.time.fraction != 0 || l.time.seconds != 0 ||
	    l.time.nanoseconds % 8 != 0)
		return "latched " + fmt_time(l.time) + " in clock " + std::to_string(c) + ", RTL showed " +
		       fmt_time(h.write_state.tod);
	return h.result(h.check_latched(l));
}

// Set, then a latch N clocks later: the time is the set value plus N clocks of 8 ns + trim.
tap::Result run_trim(Harness &h, int32_t trim, uint64_t clocks, std::string *figure)
{
	h.write(PKTSTATS_TIME_TRIM, (uint32_t)trim);
	const struct time_model_time start = {1000, 0, 0};
	h.stage_set(start.seconds, start.nanoseconds);
	uint64_t set_clock = h.command(PKTSTATS_TIME_COMMAND_SET_MASK);
	// The set value is the time of the clock after the command; the latch's write takes two
	// clocks of its own, so that the latch comes `clocks` clocks after it.
	h.bus.idle_cycles(clocks > 2 ? clocks - 2 : 0);
	uint64_t latch_clock = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
	Latched l = h.read_latched();
	uint64_t n = latch_clock - (set_clock + 1);
	struct time_model_time want = after(start, n, trim);
	if (!same(l.time, want))
		return "after " + std::to_string(n) + " clocks at trim " + std::to_string(trim) + ": " +
		       fmt_time(l.time) + ", expected " + fmt_time(want);
	if (figure) {
		double elapsed = (double)((l.time.seconds - start.seconds) * NS_PER_S + l.time.nanoseconds) +
				 l.time.fraction / 4294967296.0;
		char text[200];
		snprintf(text, sizeof(text),
			 "trim %" PRId32 " units over %" PRIu64 " clocks: %.6f ns for %" PRIu64
			 " ns nominal, rate %+.6f ppm (exact to 2^-32 ns)",
			 trim, n, elapsed, 8 * n, (elapsed - 8.0 * (double)n) / (8.0 * (double)n) * 1e6);
		*figure = text;
	}
	return h.result(h.check_latched(l));
}

tap::Result test_trim_plus_100ppm()
{
	Harness h;
	std::string figure;
	int32_t trim = ppb_units(100000.0);
	if (trim != 3435974)
		return "100 ppm should be 3435974 units, not " + std::to_string(trim);
	tap::Result r = run_trim(h, trim, 1000000, &figure);
	printf("# %s\n", figure.c_str());
	return r;
}

tap::Result test_trim_minus_100ppm()
{
	Harness h;
	std::string figure;
	tap::Result r = run_trim(h, ppb_units(-100000.0), 1000000, &figure);
	printf("# %s\n", figure.c_str());
	return r;
}

// The smallest unit, both signs, over 10^7 clocks: the fraction holds exactly N (or 2^32 - N).
tap::Result test_trim_smallest_unit()
{
	for (int32_t trim : {1, -1}) {
		Harness h;
		std::string figure;
		tap::Result r = run_trim(h, trim, 10000000, &figure);
		printf("# %s\n", figure.c_str());
		if (!r.empty())
			return r;
	}
	return "";
}

// The extremes of the range: 9 ns and 7 ns per clock nearly every clock.
tap::Result test_trim_extremes()
{
	for (int32_t trim : {INT32_MAX, INT32_MIN, 12345678, -87654321}) {
		Harness h;
		tap::Result r = run_trim(h, trim, 200000, nullptr);
		if (!r.empty())
			return r;
	}
	return "";
}

// A trim written while the clock runs acts in the clock of its write: the model compares every
// clock, and a write that took effect one clock late moves the nanoseconds at INT32_MAX.
tap::Result test_trim_change_in_flight()
{
	Harness h;
	for (int i = 0; i < 200; i++) {
		int32_t trim = (int32_t)h.rng();
		if (i % 3 == 0)
			trim = i % 2 ? INT32_MAX : INT32_MIN;
		h.write(PKTSTATS_TIME_TRIM, (uint32_t)trim);
		h.bus.idle_cycles((unsigned)(h.rng() % 5));
	}
	h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
	return h.result(h.check_latched(h.read_latched()));
}

// Nanoseconds carry into seconds at 10^9, at every trim; the seconds wrap at 2^48 by advancing.
tap::Result test_wrap()
{
	Harness h;
	h.stage_set(41, 999999990);
	uint64_t set_clock = h.command(PKTSTATS_TIME_COMMAND_SET_MASK);
	uint64_t latch_clock = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
	Latched l = h.read_latched();
	struct time_model_time want = after({41, 999999990, 0}, latch_clock - set_clock - 1, 0);
	if (l.time.seconds != 42 || !same(l.time, want))
		return "after the wrap " + fmt_time(l.time) + ", expected " + fmt_time(want);
	// Near 2^48 s, with a negative trim (borrows) and a positive one
	for (int32_t trim : {-5, 7, INT32_MAX}) {
		h.write(PKTSTATS_TIME_TRIM, (uint32_t)trim);
		h.stage_set(SECONDS_MASK, 999999950);
		h.command(PKTSTATS_TIME_COMMAND_SET_MASK);
		h.bus.idle_cycles(20);
	}
	if (h.model.now.seconds > 10)
		return "the seconds did not wrap at 2^48";
	return h.result("");
}

// Latch and evcap timer in the same clock: the harness drives a new random timer every clock;
// the latched timer must be the one of the command's clock, the latched time the time the RTL
// showed in that clock.
tap::Result test_latch_with_timer()
{
	Harness h(7);
	h.random_timer = true;
	h.write(PKTSTATS_TIME_TRIM, (uint32_t)ppb_units(-2500.5));
	for (int i = 0; i < 300; i++) {
		h.bus.idle_cycles((unsigned)(h.rng() % 50));
		axil::WriteTiming t;
		t.order = static_cast<axil::Order>(h.rng() % 3);
		t.skew = (unsigned)(h.rng() % 4);
		t.b_delay = (unsigned)(h.rng() % 4);
		h.write(PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_LATCH_MASK, 0xf, t);
		Latched l = h.read_latched();
		if (l.timer != h.write_state.timer || !same(l.time, h.write_state.tod))
			return "latch " + std::to_string(i) + ": timer " + std::to_string(l.timer) +
			       " time " + fmt_time(l.time) + "; in the command's clock the timer was " +
			       std::to_string(h.write_state.timer) + " and the time " +
			       fmt_time(h.write_state.tod);
		std::string m = h.check_latched(l);
		if (!m.empty())
			return m;
	}
	return h.result("");
}

// Commands together in one write, and with other writes around them.
tap::Result test_same_clock()
{
	Harness h(3);
	h.random_timer = true;
	h.write(PKTSTATS_TIME_TRIM, (uint32_t)ppb_units(37.25));
	h.stage_set(5000, 123456789);
	h.bus.idle_cycles(10);
	// latch + set: the latch sees the time before the set, the next clock is the set value
	struct time_model_time before_set;
	uint64_t c = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK | PKTSTATS_TIME_COMMAND_SET_MASK);
	before_set = h.write_state.tod;
	Latched l = h.read_latched();
	if (!same(l.time, before_set) || l.timer != h.write_state.timer)
		return "latch with set: latched " + fmt_time(l.time) + ", the time in that clock was " +
		       fmt_time(before_set);
	uint64_t c2 = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
	l = h.read_latched();
	struct time_model_time want = after({5000, 123456789, 0}, c2 - c - 1, ppb_units(37.25));
	if (!same(l.time, want))
		return "after latch + set: " + fmt_time(l.time) + ", expected " + fmt_time(want);

	// latch + step: the latch sees the time before the step, which lands on the next clock
	h.stage_step(-1500000000); // -1.5 s
	c = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK | PKTSTATS_TIME_COMMAND_STEP_MASK);
	struct time_model_time before_step = h.write_state.tod;
	l = h.read_latched();
	if (!same(l.time, before_step))
		return "latch with step: latched " + fmt_time(l.time) + ", the time was " +
		       fmt_time(before_step);
	c2 = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
	l = h.read_latched();
	struct time_model_time unstepped = after(before_step, c2 - c, ppb_units(37.25));
	int64_t difference = ((int64_t)unstepped.seconds - (int64_t)l.time.seconds) * (int64_t)NS_PER_S +
			     ((int64_t)unstepped.nanoseconds - (int64_t)l.time.nanoseconds);
	if (difference != 1500000000 || unstepped.fraction != l.time.fraction)
		return "a -1.5 s step: " + fmt_time(l.time) + ", unstepped " + fmt_time(unstepped);

	// set + step in one command: the set applies, the step is refused
	h.stage_set(7, 0);
	h.stage_step(1000);
	c = h.command(PKTSTATS_TIME_COMMAND_SET_MASK | PKTSTATS_TIME_COMMAND_STEP_MASK);
	c2 = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
	l = h.read_latched();
	want = after({7, 0, 0}, c2 - c - 1, ppb_units(37.25));
	if (!same(l.time, want))
		return "set + step: " + fmt_time(l.time) + ", expected the set alone " + fmt_time(want);
	if (h.read64(PKTSTATS_TIME_STEP_REFUSED) != 1 || h.read64(PKTSTATS_TIME_SET_REFUSED) != 0)
		return "set + step: step_refused should be 1";

	// a step of 0 changes nothing
	h.stage_step(0);
	h.command(PKTSTATS_TIME_COMMAND_STEP_MASK);
	return h.result(h.check_latched(l));
}

// Refusals: nothing wraps silently, the clock advances as usual and the counter counts.
tap::Result test_refused()
{
	Harness h(5);
	// set with nanoseconds 10^9 and the largest 30-bit value
	h.stage_set(100, 0);
	h.command(PKTSTATS_TIME_COMMAND_SET_MASK);
	for (uint32_t ns : {1000000000u, 0x3fffffffu}) {
		h.stage_set(200, ns);
		uint64_t c = h.command(PKTSTATS_TIME_COMMAND_SET_MASK | PKTSTATS_TIME_COMMAND_LATCH_MASK);
		struct time_model_time at_command = h.write_state.tod;
		uint64_t c2 = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
		Latched l = h.read_latched();
		if (l.time.seconds != 100 || !same(l.time, after(at_command, c2 - c, 0)))
			return "a set of " + std::to_string(ns) + " ns was not refused: " + fmt_time(l.time);
	}
	if (h.read64(PKTSTATS_TIME_SET_REFUSED) != 2)
		return "set_refused " + std::to_string(h.read64(PKTSTATS_TIME_SET_REFUSED)) + ", not 2";

	// A step to exactly 0 is allowed, one nanosecond more back is refused. The clocks between
	// two command writes are always the same (D, measured first); the time is set to 1000 ns,
	// so in the step's clock advance = 1000 + 8 D ns.
	h.stage_set(0, 1000);
	uint64_t c = h.command(PKTSTATS_TIME_COMMAND_SET_MASK);
	const uint64_t d = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK) - c;
	const int64_t advance = 1000 + 8 * (int64_t)d;
	for (int64_t extra : {0, 1}) {
		uint64_t refused_before = h.model.step_refused;
		h.stage_step(-(advance + extra));
		c = h.command(PKTSTATS_TIME_COMMAND_SET_MASK);
		uint64_t s = h.command(PKTSTATS_TIME_COMMAND_STEP_MASK);
		if (s - c != d)
			return "two command writes " + std::to_string(s - c) + " clocks apart, not " +
			       std::to_string(d);
		uint64_t l_clock = h.command(PKTSTATS_TIME_COMMAND_LATCH_MASK);
		Latched l = h.read_latched();
		struct time_model_time want = extra ? after({0, 1000, 0}, l_clock - c - 1, 0)
						    : after({0, 0, 0}, l_clock - s - 1, 0);
		uint64_t refused = h.read64(PKTSTATS_TIME_STEP_REFUSED) - refused_before;
		if (!same(l.time, want) || refused != (uint64_t)extra)
			return "a step of -" + std::to_string(advance + extra) + " ns from " +
			       std::to_string(advance) + " ns: " + fmt_time(l.time) + ", expected " +
			       fmt_time(want) + "; refused " + std::to_string(refused);
	}
	const uint64_t refused_before = h.model.step_refused;

	// beyond 2^48 s, and step_nanoseconds of 10^9
	h.stage_set(SECONDS_MASK - 1, 0);
	h.command(PKTSTATS_TIME_COMMAND_SET_MASK);
	h.stage_step(2 * (int64_t)NS_PER_S);
	h.command(PKTSTATS_TIME_COMMAND_STEP_MASK);
	h.write(PKTSTATS_TIME_STEP_SECONDS, 0);
	h.write(PKTSTATS_TIME_STEP_SECONDS + 4, 0);
	h.write(PKTSTATS_TIME_STEP_NANOSECONDS, 1000000000);
	h.command(PKTSTATS_TIME_COMMAND_STEP_MASK);
	if (h.read64(PKTSTATS_TIME_STEP_REFUSED) != refused_before + 2)
		return "a step beyond 2^48 s or of 10^9 ns was not refused";
	if (h.model.now.seconds != SECONDS_MASK - 1)
		return "a refused step changed the time: " + fmt_time(h.model.now);

	// counters clear on a write to either word
	h.write(PKTSTATS_TIME_STEP_REFUSED + 4, 0);
	h.write(PKTSTATS_TIME_SET_REFUSED, 0);
	if (h.read64(PKTSTATS_TIME_STEP_REFUSED) != 0 || h.read64(PKTSTATS_TIME_SET_REFUSED) != 0)
		return "the refusal counters did not clear";
	return h.result("");
}

// ----------------------------------------------------------------------------------------
// Randomized

tap::Result test_random(uint64_t seed, uint64_t cycles)
{
	Harness h(seed);
	std::mt19937_64 &rng = h.rng;
	unsigned sets = 0, steps = 0, latches = 0, trims = 0;
	auto pick_ns = [&]() -> uint32_t {
		switch (rng() % 8) {
		case 0: return 1000000000u + (uint32_t)(rng() % 3);
		case 1: return 0x3fffffffu;
		case 2: return 999999999u - (uint32_t)(rng() % 100);
		case 3: return (uint32_t)(rng() % 100);
		default: return (uint32_t)(rng() % NS_PER_S);
		}
	};
	auto pick_seconds = [&]() -> uint64_t {
		switch (rng() % 6) {
		case 0: return SECONDS_MASK - rng() % 3;
		case 1: return rng() % 3;
		case 2: return (SECONDS_MASK + 1) / 2 - 1 + rng() % 3;
		default: return rng() & SECONDS_MASK;
		}
	};
	while (h.clock < cycles) {
		h.random_timer = rng() % 4 == 0;
		axil::WriteTiming t;
		t.order = static_cast<axil::Order>(rng() % 3);
		t.skew = (unsigned)(rng() % 3);
		t.b_delay = (unsigned)(rng() % 3);
		unsigned strb = rng() % 8 ? 0xf : (unsigned)(rng() % 16);
		switch (rng() % 12) {
		case 0:
		case 1: {
			int32_t trim;
			switch (rng() % 4) {
			case 0: trim = (int32_t)rng(); break;
			case 1: trim = rng() % 2 ? INT32_MAX : INT32_MIN; break;
			default: trim = (int32_t)(rng() % 2001) - 1000; break;
			}
			h.write(PKTSTATS_TIME_TRIM, (uint32_t)trim, strb, t);
			trims++;
			break;
		}
		case 2: {
			uint64_t s = pick_seconds();
			h.write(PKTSTATS_TIME_SET_SECONDS, (uint32_t)s, strb, t);
			h.write(PKTSTATS_TIME_SET_SECONDS + 4, (uint32_t)(s >> 32), 0xf, t);
			h.write(PKTSTATS_TIME_SET_NANOSECONDS, pick_ns(), 0xf, t);
			break;
		}
		case 3: {
			// offsets around the current time, to hit 0 and 2^48 from both sides
			uint64_t s;
			switch (rng() % 4) {
			case 0: s = (uint64_t)(-(int64_t)h.model.now.seconds - (int64_t)(rng() % 3)); break;
			case 1: s = SECONDS_MASK - h.model.now.seconds - rng() % 3; break;
			case 2: s = (uint64_t)((int64_t)(rng() % 5) - 2); break;
			default: s = rng(); break;
			}
			h.write(PKTSTATS_TIME_STEP_SECONDS, (uint32_t)s, 0xf, t);
			h.write(PKTSTATS_TIME_STEP_SECONDS + 4, (uint32_t)(s >> 32), strb, t);
			h.write(PKTSTATS_TIME_STEP_NANOSECONDS, pick_ns(), 0xf, t);
			break;
		}
		case 4:
		case 5:
		case 6: {
			uint32_t bits = (uint32_t)(rng() % 8);
			if (rng() % 4 == 0)
				bits |= (uint32_t)rng() & ~7u; // bits that mean nothing
			h.write(PKTSTATS_TIME_COMMAND, bits, strb, t);
			sets += bits >> 1 & 1;
			steps += bits >> 2 & 1;
			latches += bits & 1;
			break;
		}
		case 7: {
			static const uint32_t counters[] = {PKTSTATS_TIME_SET_REFUSED, PKTSTATS_TIME_SET_REFUSED + 4,
							    PKTSTATS_TIME_STEP_REFUSED, PKTSTATS_TIME_STEP_REFUSED + 4};
			h.write(counters[rng() % 4], (uint32_t)rng(), strb, t);
			break;
		}
		case 8: {
			std::string m = h.check_latched(h.read_latched());
			if (!m.empty())
				return m;
			if (h.read64(PKTSTATS_TIME_SET_REFUSED) != h.model.set_refused ||
			    h.read64(PKTSTATS_TIME_STEP_REFUSED) != h.model.step_refused)
				return "refusal counters differ from the model's at clock " + std::to_string(h.clock);
			break;
		}
		case 9:
			h.bus.idle_cycles((unsigned)(rng() % 5000));
			break;
		default:
			h.bus.idle_cycles((unsigned)(rng() % 30));
			break;
		}
		if (!h.error.empty())
			break;
	}
	printf("# %" PRIu64 " clocks compared; %u commands with set, %u with step, %u with latch, %u trims;"
	       " %" PRIu64 " sets and %" PRIu64 " steps refused at the end's counters\n",
	       h.compared, sets, steps, latches, trims, h.model.set_refused, h.model.step_refused);
	std::string m = h.check_latched(h.read_latched());
	return h.result(m);
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(1, argv);
	tap::Options options = tap::parse(argc, argv, 400000);
	std::vector<tap::Test> tests = {
		{"identity", test_identity},
		{"trim_plus_100ppm", test_trim_plus_100ppm},
		{"trim_minus_100ppm", test_trim_minus_100ppm},
		{"trim_smallest_unit", test_trim_smallest_unit},
		{"trim_extremes", test_trim_extremes},
		{"trim_change_in_flight", test_trim_change_in_flight},
		{"wrap", test_wrap},
		{"latch_with_timer", test_latch_with_timer},
		{"same_clock", test_same_clock},
		{"refused", test_refused},
	};
	// Fixed seeds plus a new one per run; a seed that ever fails joins the fixed list.
	for (uint64_t seed : tap::seeds(options, {1, 2, 3}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles, test_random));
	return tap::run(tests, options);
}
