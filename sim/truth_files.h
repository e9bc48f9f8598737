// SPDX-License-Identifier: BSD-3-Clause
//
// The truth files of a run (docs/simulator.md) that the switch simulation writes itself: what
// the simulator knows to be true, for the tests to compare the hardware's and the tools' view
// with.
//
//   - OccupancyTruthFile (--truth FILE): one line per change of a queue's occupancy,
//     `cycle,queue,occupancy`, read from the core's occupancy bus after every clock edge.
//   - WireTruthFile (--wire-truth FILE): every frame's first bit on every MAC port's wire, in
//     true time and as the switch's own time-of-day clock read it then, with the core's stamps
//     of the frames it sent. One file for the whole network; while the switches run on threads
//     each keeps its lines until the threads meet, then they are written in the order a single
//     thread would have written them, so the file is the same byte for byte.
//
// The third, the sojourn truth (--sojourn-truth), is sojourn_truth.h. All three are TruthFiles
// (truth_file.h): fully buffered, their write errors reported when they close.

#ifndef PKTSTATS_SIM_TRUTH_FILES_H
#define PKTSTATS_SIM_TRUTH_FILES_H

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "idle_skip.h" // TimeOfDay
#include "truth_file.h"
#include "wire_observer.h"

namespace pktstats_sim {

class OccupancyTruthFile {
public:
	explicit OccupancyTruthFile(const std::string &path) : out_(path, "cycle,queue,occupancy\n") {}
	// Queue `queue` holds `occupancy` 64-bit words after the edge of clock `cycle`.
	void record(uint64_t cycle, unsigned queue, uint32_t occupancy)
	{
		fprintf(out_.file(), "%" PRIu64 ",%u,%u\n", cycle, queue, occupancy);
		lines_++;
	}
	// False (and the reason on stderr) when the file could not be written whole.
	bool close(const char *program) { return out_.close(program); }
	uint64_t lines() const { return lines_; }

private:
	TruthFile out_;
	uint64_t lines_ = 0;
};

// The core's stamps of a frame out of a MAC port, in its first word's handshake clock:
// m_axis_tx_timestamp, m_axis_rx_timestamp (and valid), m_axis_residence_time.
struct HardwareStamps {
	uint64_t tx = 0, rx = 0; // {seconds[31:0], nanoseconds[29:0]}
	bool rx_valid = false;
	int32_t residence = 0;
};

class WireTruthFile {
public:
	explicit WireTruthFile(const std::string &path);
	// `hw`: the core's stamps of a frame leaving the port (tx lines; null on rx lines).
	// `step_fs`: the true time of the clock edge of the switch's step that records it.
	void record(unsigned switch_index, uint64_t step_fs, unsigned port, WireDirection direction,
		    uint64_t time_ps, uint64_t cycle, const TimeOfDay &tod, const std::vector<uint8_t> &bytes,
		    const HardwareStamps *hw);

	// While switches run on threads, each keeps its lines until write_pending(), which writes
	// them in the order of a single thread's run: by the true time of the step that made
	// them, then by switch (the order Network::next_switch() steps them in).
	void buffer_per_switch(size_t switches) { pending_.assign(switches, {}); }
	void write_pending();
	// False (and the reason on stderr) when the file could not be written whole.
	bool close(const char *program);
	uint64_t lines() const { return lines_; }
	const std::string &path() const { return out_.path(); }

private:
	struct Pending {
		uint64_t step_fs;
		std::string text;
	};
	TruthFile out_;
	std::vector<std::vector<Pending>> pending_; // empty: lines go straight to the file
	uint64_t lines_ = 0;
};

} // namespace pktstats_sim

#endif
