// SPDX-License-Identifier: BSD-3-Clause
//
// Network: every switch of a run, the cables between their MAC ports, and the one clock loop
// in true time that steps them (docs/simulator.md, "A network of switches"). A single switch is
// a network of one, without cables or oscillators: the same code path, the same output.
//
// The loop always steps the switch whose next clock edge comes first in true time (the lowest
// index on a tie), so a frame is in a cable before the far switch's clock reaches it. Before the
// traffic the network resets every switch, sets each one's time of day through its registers as
// software would, and makes the command line's register writes. With several threads the
// switches run in windows of true time as long as the shortest cable's delay, with the same
// results byte for byte. At the end of a run every switch drains and flushes its capture before
// anything closes (end_run()).

#ifndef PKTSTATS_SIM_NETWORK_H
#define PKTSTATS_SIM_NETWORK_H

#include <csignal>
#include <cstdint>
#include <memory>
#include <vector>

#include "cable_wire.h"
#include "sim_options.h"
#include "switch_simulation.h"
#include "truth_files.h"

namespace pktstats_sim {

constexpr uint64_t quiet_cycles_to_stop = 1000;

// The run's stop requests, set by pktstats-sim's SIGINT/SIGTERM handler: the first signal
// (stop_signal, its number) ends the run the clean way (drained and flushed, like every end); a
// second one (signal_count > 1) stops the drain at once.
extern volatile sig_atomic_t stop_signal;
extern volatile sig_atomic_t signal_count;

struct Network {
	const Options &options;
	std::vector<std::unique_ptr<SwitchSimulation>> switches;
	std::vector<std::unique_ptr<CableWire>> cable_wires;
	std::unique_ptr<WireTruthFile> wire_truth;
	std::vector<uint64_t> next_edge_fs; // of each switch's next clock (network mode)
	bool traffic_started = false;
	uint64_t traffic_start_ps = 0;

	explicit Network(const Options &o) : options(o) {}

	// Builds every switch and cable of the options.
	void setup();

	// The switch whose next clock edge comes first in true time (the lowest index on a tie):
	// stepping in this order, a frame is in a cable before the far switch's clock reaches it.
	SwitchSimulation &next_switch()
	{
		if (switches.size() == 1)
			return *switches[0];
		size_t best = 0;
		for (size_t k = 1; k < switches.size(); k++)
			if (next_edge_fs[k] < next_edge_fs[best])
				best = k;
		return *switches[best];
	}

	// One clock of switch `s`. Returns true when anything moved on its stream ports.
	bool step(SwitchSimulation &s)
	{
		bool active = s.step();
		note_next_edge(s);
		return active;
	}
	void step_once() { step(next_switch()); }

	// When every switch is quiescent (idle_skip.h) and its cables are empty, skips every switch
	// to just before the first thing that will happen in any of them, at most to true time
	// `limit_ps`. Returns true when it skipped.
	bool skip_idle(uint64_t limit_ps);

	// A blocking register access of switch `s`, the network running meanwhile (the register
	// server is gone by then, or not yet polled).
	bool access(SwitchSimulation &s, bool is_write, uint32_t address, uint32_t value_in, uint32_t &value_out);
	bool read64(SwitchSimulation &s, uint32_t address, uint64_t &value);
	void write(SwitchSimulation &s, uint32_t address, uint32_t value);

	// Resets every switch, sets the clocks of a network's switches, makes the --write writes.
	void reset();

	// The shortest cable's delay (no cable: 1 ms, to look at the signals now and then).
	uint64_t lookahead_ps() const;

	// The network on `threads` threads, each running its share of the switches, up to true
	// time `limit_ps`. They run in windows of true time as long as the shortest cable's delay
	// (the look-ahead): in a window each switch runs on its own up to the window's end, since a
	// frame sent in it cannot reach the far switch before that end (cable_wire.h); between
	// windows the frames sent are delivered to the cables and the wire truth lines written in
	// a single thread's order. The results are those of one thread, byte for byte.
	void run_on_threads(unsigned threads, uint64_t limit_ps);

	// Every switch's traffic starts at the same true time: the latest clock edge any of them
	// has reached (each switch's first clock from then on is its first with traffic).
	void start_traffic();

	bool all_drained();

	// The end of a run, whatever ended it: the inputs stop, every switch drains (the
	// departures of the frames still queued are events too; frames on cables arrive), each
	// capture's open stat packet is flushed and every stat packet leaves on its wire. Only then
	// do the outputs close, so the stat packets hold every event the switches made. The register
	// servers are closed first: from here on the simulator alone uses the register buses.
	struct Ending {
		uint64_t inputs_end = 0, drained = 0, flush = 0, quiet = 0;
		bool capture_on = false;
		uint64_t events_sent = 0, packets_sent = 0, events_missed = 0;
	};
	bool complete = false; // the last end_run() drained and flushed every switch
	std::vector<Ending> end_run();

private:
	// After a step or a skip of switch `s`: when its next edge comes (network mode).
	void note_next_edge(SwitchSimulation &s)
	{
		if (s.timebase)
			next_edge_fs[s.index] = s.timebase->edge_fs(s.cycle);
	}
	void run_clocks(SwitchSimulation &s, uint64_t clocks);
	void set_time_of_day(SwitchSimulation &s);
	// Steps until the inputs are exhausted and nothing has moved for `quiet_cycles_to_stop`
	// clocks of every switch: no word offered or sent, every queue empty, every wire and cable
	// free. False when `limit_ps` of true time pass first or a second signal stops the run.
	bool run_until_quiet(uint64_t limit_ps);
};

} // namespace pktstats_sim

#endif
