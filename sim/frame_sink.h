// SPDX-License-Identifier: BSD-3-Clause
//
// FrameSink: where a port's transmit side puts the frames the switch sent, or its receive side
// records the frames it delivered into the switch (a pcap file, a TAP device, a test's list).
// The MAC model calls it once per frame, in order.

#ifndef PKTSTATS_SIM_FRAME_SINK_H
#define PKTSTATS_SIM_FRAME_SINK_H

#include <cstdint>
#include <vector>

namespace pktstats_sim {

class FrameSink {
public:
	virtual ~FrameSink() = default;

	// One frame: `time_ns` is the simulated time of its first bit on the wire (the start of the
	// preamble on an Ethernet port) for a transmit sink, of the clock in which the switch took
	// its first word for a receive sink; `bytes` the frame from the destination MAC on, padded to
	// the link's minimum size, without FCS. Throws std::runtime_error, naming the sink, when the
	// frame cannot be stored.
	virtual void write_frame(uint64_t time_ns, const std::vector<uint8_t> &bytes) = 0;
	// The same with the time in picoseconds, as the MAC model's transmit side calls it: a
	// switch whose clock is not exactly 8 ns sends on true-time edges that are not whole
	// nanoseconds, and a cable (CableWire) keeps them exact. Files keep nanoseconds.
	virtual void write_frame_ps(uint64_t time_ps, const std::vector<uint8_t> &bytes)
	{
		write_frame(time_ps / 1000, bytes);
	}
};

} // namespace pktstats_sim

#endif
