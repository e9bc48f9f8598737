// SPDX-License-Identifier: BSD-3-Clause
//
// IdleSkip: see idle_skip.h. The members named here are the Verilated model's own (its root
// class keeps every variable of the design): a change in the RTL that renames one fails the
// build, and one that adds a free-running counter fails `--idle-skip=check` in make test.
//
// PKTSTATS_SIM_ENGINE_STUBS: the benchmark's build with the latency engines replaced by
// stubs (bench/engine_stubs/, `make bench`), whose flowlat_block has no state: the
// flow-latency monitor's members are left out.

#include "idle_skip.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "Vpktstats_core___024root.h"

// Verilator's settle region: computes every combinational signal from the state, as at time 0.
void Vpktstats_core___024root___eval_settle(Vpktstats_core___024root *vlSelf);

// pktstats_core's AGE_TICK_CYCLES, as the Makefile passes it to Verilator.
#ifndef PKTSTATS_SIM_AGE_TICK_CYCLES
#error "PKTSTATS_SIM_AGE_TICK_CYCLES must be the core's AGE_TICK_CYCLES"
#endif

namespace pktstats_sim {

namespace {

constexpr uint64_t age_tick_last = PKTSTATS_SIM_AGE_TICK_CYCLES - 1;

#ifndef PKTSTATS_SIM_ENGINE_STUBS
// The flow-latency monitor's microsecond prescalers (flowlat_block's CLOCKS_PER_US default)
constexpr uint64_t clocks_per_us = 125;
// flowlat_table's and flowlat_ipfix's idle states
constexpr unsigned flowlat_table_idle = 1, flowlat_ipfix_idle = 0;

// How many times a prescaler counting 0 .. period - 1, now at `prescale`, wraps in `clocks` clocks.
uint64_t wraps_in(uint64_t prescale, uint64_t period, uint64_t clocks)
{
	return (prescale + clocks) / period;
}
#endif

} // namespace

TimeOfDay advance_time_of_day(const TimeOfDay &t, int32_t trim, uint64_t clocks)
{
	// In 2^-32 ns: fraction + clocks × (8 ns + trim). Positive: trim is above -0.5 ns.
	unsigned __int128 total = (unsigned __int128)t.fraction + (unsigned __int128)clocks * ((uint64_t)8 << 32) +
				  (__int128)clocks * trim;
	TimeOfDay next;
	next.fraction = (uint32_t)total;
	unsigned __int128 nanoseconds = (total >> 32) + t.nanoseconds;
	next.seconds = t.seconds + (uint64_t)(nanoseconds / 1000000000u);
	next.nanoseconds = (uint32_t)(nanoseconds % 1000000000u);
	return next;
}

#define CORE(name) root_.pktstats_core__DOT__##name

int32_t IdleSkip::trim() const
{
	return (int32_t)CORE(time_inst__DOT__regs_inst__DOT__trim_reg);
}

TimeOfDay IdleSkip::time_of_day() const
{
	TimeOfDay t;
	t.seconds = CORE(time_inst__DOT__clock_inst__DOT__seconds_reg);
	t.nanoseconds = CORE(time_inst__DOT__clock_inst__DOT__nanoseconds_reg);
	t.fraction = CORE(time_inst__DOT__clock_inst__DOT__fraction_reg);
	return t;
}

bool IdleSkip::quiescent() const
{
#ifndef PKTSTATS_SIM_ENGINE_STUBS
	// The flow table neither clearing nor looking up, nothing asked of it and no record waiting
	// for it, in its FIFO or held at a port (records wait while it clears, 2048 clocks after
	// reset: longer than the settling the simulator waits for, which counts from here), the
	// IPFIX exporter not sending (its waiting events and their timeout are counted in
	// clocks_until_event())
	if (CORE(flowlat_inst__DOT__core_inst__DOT__table___DOT__state) != flowlat_table_idle ||
	    CORE(flowlat_inst__DOT__core_inst__DOT__held) ||
	    CORE(flowlat_inst__DOT__core_inst__DOT__record_fifo__DOT__read_index) !=
		    CORE(flowlat_inst__DOT__core_inst__DOT__record_fifo__DOT__write_index) ||
	    CORE(flowlat_inst__DOT__was_clearing) ||
	    CORE(flowlat_inst__DOT__core_inst__DOT__table___DOT__clear_pending) ||
	    CORE(flowlat_inst__DOT__core_inst__DOT__table___DOT__lookup_pending) ||
	    CORE(flowlat_inst__DOT__ipfix_inst__DOT__state) != flowlat_ipfix_idle)
		return false;
#endif
	return true;
}

uint64_t IdleSkip::clocks_until_event() const
{
	uint64_t clocks = UINT64_MAX;

	// The learning table's ageing tick: the clock in which its counter is at the last value
	uint64_t tick_counter = CORE(switch_inst__DOT__lookup_inst__DOT__tick_counter_reg);
	clocks = std::min(clocks, tick_counter <= age_tick_last ? age_tick_last - tick_counter : 0);

	// The open stat packet's flush timeout: the clock in which its age reaches the timeout
	uint32_t flush_timeout = CORE(evcap_inst__DOT__regs_inst__DOT__flush_timeout_reg);
	if (CORE(evcap_inst__DOT__core_inst__DOT__serializer_inst__DOT__open_reg) && flush_timeout != 0 &&
	    !CORE(evcap_inst__DOT__core_inst__DOT__serializer_inst__DOT__ts_owed_reg)) {
		uint32_t age = CORE(evcap_inst__DOT__core_inst__DOT__serializer_inst__DOT__age_reg);
		clocks = std::min<uint64_t>(clocks, age < flush_timeout ? flush_timeout - age : 0);
	}

#ifndef PKTSTATS_SIM_ENGINE_STUBS
	// The IPFIX exporter (flowlat_ipfix), when exporting
	if (CORE(flowlat_inst__DOT__regs_inst__DOT__control_export_enable_reg)) {
		if (CORE(flowlat_inst__DOT__ipfix_inst__DOT__template_due) ||
		    !CORE(flowlat_inst__DOT__ipfix_inst__DOT__was_enabled))
			return 0;
		// Its waiting events' flush timeout: the clock after the microsecond in which the wait
		// reaches it
		if (CORE(flowlat_inst__DOT__status_events_waiting) != 0) {
			uint32_t waited = CORE(flowlat_inst__DOT__ipfix_inst__DOT__waited_us);
			uint32_t timeout = CORE(flowlat_inst__DOT__regs_inst__DOT__flush_timeout_us_reg);
			if (waited >= timeout)
				return 0;
			uint64_t prescale = CORE(flowlat_inst__DOT__ipfix_inst__DOT__prescale);
			clocks = std::min(clocks, (clocks_per_us - 1 - prescale) + clocks_per_us * (timeout - waited - 1) + 1);
		}
		// The template's interval: the clock whose time of day's second is that many after
		// the last template's (32-bit seconds, as the exporter compares them)
		uint32_t interval = CORE(flowlat_inst__DOT__regs_inst__DOT__template_interval_s_reg);
		if (interval != 0) {
			TimeOfDay now = time_of_day();
			uint32_t since = (uint32_t)now.seconds - CORE(flowlat_inst__DOT__ipfix_inst__DOT__template_second);
			if (since >= interval)
				return 0;
			// Nanoseconds to the second (since + 1 .. interval) from now; the clock that
			// first reads it is the one after the edge that crosses it
			unsigned __int128 ns_to_go = (unsigned __int128)(interval - since) * 1000000000u - now.nanoseconds;
			unsigned __int128 units = (ns_to_go << 32) - now.fraction;
			uint64_t per_clock = ((uint64_t)8 << 32) + (uint64_t)(int64_t)trim();
			uint64_t edges = (uint64_t)((units + per_clock - 1) / per_clock);
			clocks = std::min(clocks, edges);
		}
	}
#endif
	return clocks;
}

void IdleSkip::advance(uint64_t clocks)
{
	if (clocks == 0)
		return;
	// The time of day
	TimeOfDay t = advance_time_of_day(time_of_day(), trim(), clocks);
	CORE(time_inst__DOT__clock_inst__DOT__seconds_reg) = t.seconds & ((1ull << 48) - 1);
	CORE(time_inst__DOT__clock_inst__DOT__nanoseconds_reg) = t.nanoseconds;
	CORE(time_inst__DOT__clock_inst__DOT__fraction_reg) = t.fraction;

	// The evcap timer, and the intake's copy of its ticks (timer >> resolution) from the
	// clock before
	uint64_t timer = CORE(evcap_inst__DOT__core_inst__DOT__timer_inst__DOT__timer_reg) + clocks;
	CORE(evcap_inst__DOT__core_inst__DOT__timer_inst__DOT__timer_reg) = timer;
	unsigned resolution = CORE(evcap_inst__DOT__regs_inst__DOT__resolution_reg) & 7;
	CORE(evcap_inst__DOT__core_inst__DOT__intake_inst__DOT__tick_1_reg) =
		((timer - 1) >> resolution) & ((1ull << 62) - 1);

	// The open stat packet's age, saturating
	auto &age = CORE(evcap_inst__DOT__core_inst__DOT__serializer_inst__DOT__age_reg);
	if (CORE(evcap_inst__DOT__core_inst__DOT__serializer_inst__DOT__open_reg))
		age = (uint32_t)std::min<uint64_t>((uint64_t)age + clocks, UINT32_MAX);

	// The ageing tick's counter
	CORE(switch_inst__DOT__lookup_inst__DOT__tick_counter_reg) += (uint32_t)clocks;

#ifndef PKTSTATS_SIM_ENGINE_STUBS
	// The flow table's microsecond clock
	auto &table_prescale = CORE(flowlat_inst__DOT__core_inst__DOT__table___DOT__prescale);
	CORE(flowlat_inst__DOT__now_us) += (uint32_t)wraps_in(table_prescale, clocks_per_us, clocks);
	table_prescale = (uint8_t)((table_prescale + clocks) % clocks_per_us);

	// The IPFIX exporter's: its waiting events' wait, in microseconds, saturating
	auto &ipfix_prescale = CORE(flowlat_inst__DOT__ipfix_inst__DOT__prescale);
	if (CORE(flowlat_inst__DOT__status_events_waiting) != 0) {
		auto &waited = CORE(flowlat_inst__DOT__ipfix_inst__DOT__waited_us);
		waited = (uint32_t)std::min<uint64_t>(waited + wraps_in(ipfix_prescale, clocks_per_us, clocks), UINT32_MAX);
	}
	ipfix_prescale = (uint8_t)((ipfix_prescale + clocks) % clocks_per_us);
#endif

	Vpktstats_core___024root___eval_settle(&root_);

	// The ageing tick is where the constant above says: its combinational flag is set exactly
	// when the counter has reached the last value
	bool tick_expected = CORE(switch_inst__DOT__lookup_inst__DOT__tick_counter_reg) == age_tick_last;
	if (CORE(switch_inst__DOT__lookup_inst__DOT__tick) != tick_expected)
		throw std::logic_error("idle skip: the learning table's ageing tick is not at counter value " +
				       std::to_string(age_tick_last) + ": is PKTSTATS_SIM_AGE_TICK_CYCLES the core's?");
}

} // namespace pktstats_sim
