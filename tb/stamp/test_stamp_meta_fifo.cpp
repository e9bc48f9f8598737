// SPDX-License-Identifier: BSD-3-Clause
//
// test_stamp_meta_fifo: the metadata FIFO beside an output queue (rtl/stamp/stamp_meta_fifo.v)
// against a model of the queue it serves, built small (8 entries, 5-bit tags) so that it fills
// up. Every clock: maybe a commit (with or without a stamp), and the queue's output shows its
// oldest committed frame from two clocks after its commit, for a random number of clocks, until
// its departure. In every clock a frame is on the output, m_valid must say whether it has a
// stamp (it had one and found room at its commit) and m_stamp must be that stamp. Commits and
// departures fall in the same clock, back to back, with idle stretches; the FIFO runs full
// and empty. Prints TAP; `--seed N --only random` replays.

#include <cinttypes>
#include <cstdio>
#include <deque>
#include <random>
#include <string>

#include "Vstamp_meta_fifo.h"
#include "tap_runner.h"
#include "verilated.h"

namespace {

const unsigned DEPTH = 8;       // -GDEPTH_LOG2=3
const unsigned MAX_FRAMES = 31; // < 2^TAG_WIDTH (-GTAG_WIDTH=5)

struct Frame {
	bool stamped;
	uint64_t stamp;
	uint64_t commit_cycle;
};

tap::Result run_random(uint64_t seed, uint64_t cycles)
{
	std::mt19937_64 random(seed);
	VerilatedContext context;
	Vstamp_meta_fifo dut{&context};
	dut.clk = 0;
	dut.rst = 1;
	dut.commit = 0;
	dut.departure = 0;
	for (int i = 0; i < 4; i++) {
		dut.clk = 1;
		dut.eval();
		dut.clk = 0;
		dut.eval();
	}
	dut.rst = 0;

	std::deque<Frame> queue;
	unsigned entries = 0; // stamped frames with an entry in the FIFO
	uint64_t presented = 0, stamped = 0, unstamped = 0, full = 0, both = 0;
	unsigned commit_rate = 2 + random() % 8, depart_rate = 2 + random() % 8;
	for (uint64_t cycle = 0; cycle < cycles; cycle++) {
		if (cycle % 5000 == 0) {
			commit_rate = 1 + random() % 10;
			depart_rate = 1 + random() % 10;
		}
		// This clock's inputs
		bool commit = queue.size() < MAX_FRAMES && random() % commit_rate == 0;
		bool valid = random() % 4 != 0;
		uint64_t stamp = random() & ((1ull << 62) - 1);
		bool on_output = !queue.empty() && queue.front().commit_cycle + 2 <= cycle;
		bool departure = on_output && random() % depart_rate == 0;
		dut.commit = commit;
		dut.s_valid = valid;
		dut.s_stamp = stamp;
		dut.departure = departure;
		dut.eval();

		if (on_output) {
			const Frame &f = queue.front();
			presented++;
			if ((bool)dut.m_valid != f.stamped)
				return "clock " + std::to_string(cycle) + ": m_valid " + std::to_string(dut.m_valid) +
				       ", expected " + std::to_string(f.stamped);
			if (f.stamped && dut.m_stamp != f.stamp)
				return "clock " + std::to_string(cycle) + ": wrong stamp";
		}

		// The model at the edge
		if (departure) {
			if (queue.front().stamped)
				entries--;
			queue.pop_front();
		}
		if (commit) {
			bool room = entries < DEPTH;
			bool has = valid && room;
			full += valid && !room;
			both += departure;
			if (has)
				entries++;
			(has ? stamped : unstamped)++;
			queue.push_back({has, stamp, cycle});
		}
		dut.clk = 1;
		dut.eval();
		dut.clk = 0;
		dut.eval();
	}
	printf("# seed %" PRIu64 ": %" PRIu64 " frames with a stamp, %" PRIu64 " without (%" PRIu64
	       " of them found the FIFO full), %" PRIu64 " commits in a departure's clock, %" PRIu64
	       " clocks checked\n",
	       seed, stamped, unstamped, full, both, presented);
	if (full == 0 || both == 0 || stamped < 1000)
		return "the run did not fill the FIFO or overlap commits and departures";
	dut.final();
	return "";
}

} // namespace

int main(int argc, char **argv)
{
	tap::Options options = tap::parse(argc, argv, 300000);
	std::vector<tap::Test> tests;
	for (uint64_t seed : tap::seeds(options, {1, 2, 3}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles, run_random));
	return tap::run(tests, options);
}
