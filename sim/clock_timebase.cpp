// SPDX-License-Identifier: BSD-3-Clause
//
// ClockTimebase: one switch's oscillator in true time; see clock_timebase.h.

#include "clock_timebase.h"

#include <stdexcept>
#include <string>

namespace pktstats_sim {

namespace {
constexpr unsigned __int128 nominal_period_fs_times_1e9 = (unsigned __int128)8000000 * 1000000000u;
}

ClockTimebase::ClockTimebase(int64_t ppb) : ppb_(ppb), divisor_((uint64_t)(1000000000 + ppb))
{
	if (ppb > maximum_ppb || ppb < -maximum_ppb)
		throw std::invalid_argument("frequency error " + std::to_string(ppb) +
					    " ppb is beyond ±1000 ppm");
}

uint64_t ClockTimebase::edge_fs(uint64_t cycle) const
{
	return (uint64_t)((unsigned __int128)cycle * nominal_period_fs_times_1e9 / divisor_);
}

uint64_t ClockTimebase::cycle_at_ps(uint64_t ps) const
{
	// The estimate is within one clock of the answer; the exact edges settle it.
	uint64_t cycle = (uint64_t)((unsigned __int128)ps * 1000 * divisor_ / nominal_period_fs_times_1e9);
	while (edge_fs(cycle + 1) / 1000 <= ps)
		cycle++;
	while (cycle > 0 && edge_fs(cycle) / 1000 > ps)
		cycle--;
	return cycle;
}

uint64_t ClockTimebase::first_cycle_at_or_after_fs(uint64_t fs) const
{
	// The estimate is the last edge at or before `fs` (edge_fs rounds down): the answer or the
	// clock before it.
	uint64_t cycle = (uint64_t)((unsigned __int128)fs * divisor_ / nominal_period_fs_times_1e9);
	while (edge_fs(cycle) < fs)
		cycle++;
	return cycle;
}

} // namespace pktstats_sim
