// SPDX-License-Identifier: BSD-3-Clause
//
// TimedFrame: one Ethernet frame and the earliest simulated time it may start on the wire.
//
// This is what a frame source yields and what a MAC model serializes. The bytes run from the
// destination MAC address on and carry no FCS (the switch's streams never do); the MAC model adds
// the FCS, preamble and gap when it computes wire time.

#ifndef PKTSTATS_SIM_TIMED_FRAME_H
#define PKTSTATS_SIM_TIMED_FRAME_H

#include <cstdint>
#include <vector>

namespace pktstats_sim {

struct TimedFrame {
	// Earliest time, in ns of simulated time since the simulation started, at which the frame's
	// first bit (the start of its preamble on an Ethernet port) may go on the wire. The wire
	// may start it later, when the previous frame still occupies it.
	uint64_t time_ns = 0;
	// The frame, destination MAC first, without FCS.
	std::vector<uint8_t> bytes;
	// Picoseconds past time_ns: a frame from a cable (CableWire) starts at a true time that is
	// not a whole number of nanoseconds. 0 for every other source.
	uint32_t time_ps_within_ns = 0;
};

} // namespace pktstats_sim

#endif
