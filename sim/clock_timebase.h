// SPDX-License-Identifier: BSD-3-Clause
//
// ClockTimebase: when, in true simulated time, each clock edge of one switch's oscillator comes.
//
// Every simulated switch runs on its own oscillator: a nominal 125 MHz (8 ns) clock with a
// frequency error of `ppb` parts per billion (positive: fast). Everything in the switch (its
// time-of-day clock, evcap timer, queues, the MAC models' view of its clocks) counts these edges,
// while the wires and cables run in true time. The frequency error is defined so that the
// switch's time-of-day clock, advancing 8 ns per edge, runs exactly (1 + ppb·10^-9) times as fast
// as true time: the true period is 8 ns / (1 + ppb·10^-9). Edge `cycle` comes at
//
//     edge_fs(cycle) = floor(cycle × 8·10^15 / (10^9 + ppb))   femtoseconds,
//
// computed from the cycle number each time (128-bit arithmetic), so there is no accumulated
// rounding however long the run: the clock's reading at edge k, 8 ns × k, equals the true time of
// that edge × (1 + ppb·10^-9) to within 1 fs × (1 + ppb·10^-9). With ppb = 0 an edge is exactly
// cycle × 8000 ps.

#ifndef PKTSTATS_SIM_CLOCK_TIMEBASE_H
#define PKTSTATS_SIM_CLOCK_TIMEBASE_H

#include <cstdint>

namespace pktstats_sim {

class ClockTimebase {
public:
	static constexpr uint64_t nominal_period_ps = 8000;
	// Frequency errors beyond this are refused (std::invalid_argument): ±1000 ppm.
	static constexpr int64_t maximum_ppb = 1000000;

	explicit ClockTimebase(int64_t ppb = 0);

	int64_t ppb() const { return ppb_; }
	// True time of edge `cycle`, in femtoseconds (rounded down) and picoseconds (rounded down).
	uint64_t edge_fs(uint64_t cycle) const;
	uint64_t edge_ps(uint64_t cycle) const
	{
		// The MAC models ask for the same clock several times in a row: a one-entry cache.
		if (cycle != cached_cycle_) {
			cached_cycle_ = cycle;
			cached_ps_ = edge_fs(cycle) / 1000;
		}
		return cached_ps_;
	}
	// The clock in force at true time `ps`: the last edge whose edge_ps() is at or before it.
	uint64_t cycle_at_ps(uint64_t ps) const;
	// The first edge at or after true time `fs` (femtoseconds).
	uint64_t first_cycle_at_or_after_fs(uint64_t fs) const;

private:
	int64_t ppb_;
	uint64_t divisor_; // 10^9 + ppb
	mutable uint64_t cached_cycle_ = 0;
	mutable uint64_t cached_ps_ = 0;
};

} // namespace pktstats_sim

#endif
