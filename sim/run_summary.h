// SPDX-License-Identifier: BSD-3-Clause
//
// The summary pktstats-sim prints on stdout at the end of a run (docs/simulator.md): why the run
// ended, how much time it simulated and how fast; then for each switch how its end went (drained,
// capture flushed), its capture counters, a line per port (frames and bytes each way, MAC drops,
// what its input and output were) and a line per queue (the switch's own counters read through
// the register bus as a driver would, beside the true peak occupancy). A network's summary has
// a part per switch; a single switch's is the same without the network lines. Tests and scripts
// read it (tb/sim/test_sim_smoke.sh), so its layout is kept.

#ifndef PKTSTATS_SIM_RUN_SUMMARY_H
#define PKTSTATS_SIM_RUN_SUMMARY_H

#include <cstdint>
#include <vector>

#include "mac_model.h"
#include "network.h"
#include "sim_options.h"

namespace pktstats_sim {

struct QueueCounters {
	uint64_t stored = 0, removed = 0, dropped = 0, peak = 0;
	bool ok = false;
};

// What the summary reports, gathered as the run ends.
struct RunSummary {
	const char *end_reason = "";
	unsigned threads = 1;
	double wall_seconds = 0;          // of the run proper: the end's drain is lighter work
	std::vector<uint64_t> run_cycles; // each switch's clocks when the run proper ended
	std::vector<Network::Ending> endings;
	std::vector<uint64_t> end_cycles;               // each switch's clocks when its outputs closed
	std::vector<std::vector<MacCounters>> counters; // each switch's ports then
	std::vector<std::vector<QueueCounters>> queues; // each switch's queues, read after
	uint64_t wire_truth_lines = 0;
};

// The queue counters of every switch, read through its register bus as a driver would (the
// network runs meanwhile).
std::vector<std::vector<QueueCounters>> read_queue_counters(Network &net);

void print_run_summary(const Options &options, Network &net, const RunSummary &summary);

} // namespace pktstats_sim

#endif
