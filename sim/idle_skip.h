// SPDX-License-Identifier: BSD-3-Clause
//
// IdleSkip: many clocks of an idle pktstats_core in one step.
//
// When nothing is in flight in the core (no frame in a MAC FIFO, queue, engine or the stat path,
// no register access), most of its state stands still; what moves are free-running counters:
// the time-of-day clock (with its trim), the evcap timer, the open stat packet's age (its flush
// timeout), the learning table's ageing tick, the flow-latency monitor's microsecond clocks and
// its exporter's wait (the link-delay engines only answer frames: they have none). For such a
// core, advance(n) sets every one of them to where n clocks would have left it, computed in
// closed form, then lets Verilator recompute every combinational signal from the new state (its
// settle region, as at time 0). clocks_until_event() says how many clocks may be skipped before
// one of those counters makes something happen (a tick, a timeout, a template due): that clock
// and the ones after it are clocked as usual.
//
// The core's inputs must stay idle over the skipped clocks: no frame offered, no register
// access (the simulator checks this on its side). `pktstats-sim --idle-skip=check` proves every
// skip it makes: it also clocks the same clocks and compares the whole model, member by member
// (sim/model_state.h).

#ifndef PKTSTATS_SIM_IDLE_SKIP_H
#define PKTSTATS_SIM_IDLE_SKIP_H

#include <cstdint>

class Vpktstats_core___024root;

namespace pktstats_sim {

struct TimeOfDay {
	uint64_t seconds = 0;
	uint32_t nanoseconds = 0, fraction = 0;
};

// The time-of-day clock (rtl/time/time_clock.v) after `clocks` clocks with no command: each adds
// 8 ns + trim·2^-32 ns (trim signed).
TimeOfDay advance_time_of_day(const TimeOfDay &t, int32_t trim, uint64_t clocks);

// One clock of it: fraction + 8 ns + trim, carried into nanoseconds and seconds.
inline void step_time_of_day(TimeOfDay &t, int32_t trim)
{
	uint64_t total = (uint64_t)t.fraction + ((uint64_t)8 << 32) + (uint64_t)(int64_t)trim;
	t.fraction = (uint32_t)total;
	t.nanoseconds += (uint32_t)(total >> 32);
	if (t.nanoseconds >= 1000000000u) {
		t.nanoseconds -= 1000000000u;
		t.seconds++;
	}
}

class IdleSkip {
public:
	explicit IdleSkip(Vpktstats_core___024root &root) : root_(root) {}

	// Clocks after which a frame or register access that entered the core has left it or was
	// dropped, with no word moving on its ports: the longest path through it (the queues'
	// pipelines, the stat path, the engines) is far shorter.
	static constexpr uint64_t settle_clocks = 256;

	// True when none of the core's engines that can hold work without a word moving on its
	// ports (the flow-latency monitor's table, which clears for 2048 clocks while records wait,
	// and its IPFIX exporter) is busy. With settle_clocks clocks of quiet ports since it last
	// was, every clock until the next event only moves the free-running counters.
	bool quiescent() const;
	// How many clocks from now are only counting (at least 0); UINT64_MAX: none ends it.
	uint64_t clocks_until_event() const;
	// Skips `clocks` clocks: quiescent() and clocks <= clocks_until_event() must hold.
	void advance(uint64_t clocks);
	// The time-of-day clock's trim (2^-32 ns per clock, signed) and reading.
	int32_t trim() const;
	TimeOfDay time_of_day() const;

private:
	Vpktstats_core___024root &root_;
};

} // namespace pktstats_sim

#endif
