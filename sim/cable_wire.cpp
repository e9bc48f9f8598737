// SPDX-License-Identifier: BSD-3-Clause
//
// CableWire: one direction of a cable; see cable_wire.h.

#include "cable_wire.h"

#include <stdexcept>

#include "link_timing.h"

namespace pktstats_sim {

void CableWire::write_frame_ps(uint64_t time_ps, const std::vector<uint8_t> &bytes)
{
	uint64_t arrival = time_ps + delay_ps_;
	frames_carried_++;
	if (window_end_ps_ == 0) {
		frames_.push_back(FrameInFlight{arrival, bytes});
		return;
	}
	const LinkTiming link = LinkTiming::ethernet();
	uint64_t last_byte = arrival + link.picoseconds_for_byte_times(link.arrival_byte_times(bytes.size()));
	if (last_byte < window_end_ps_)
		throw std::logic_error(description_ + ": a frame whose last byte arrives at " +
				       std::to_string(last_byte) + " ps came in the window ending at " +
				       std::to_string(window_end_ps_) + " ps: the look-ahead of the threads is broken");
	staged_.push_back(FrameInFlight{arrival, bytes});
}

void CableWire::deliver()
{
	while (!staged_.empty()) {
		frames_.push_back(std::move(staged_.front()));
		staged_.pop_front();
	}
}

bool CableWire::next_frame(TimedFrame &frame)
{
	if (frames_.empty())
		return false;
	FrameInFlight &head = frames_.front();
	frame.time_ns = head.arrival_first_bit_ps / 1000;
	frame.time_ps_within_ns = (uint32_t)(head.arrival_first_bit_ps % 1000);
	frame.bytes = std::move(head.bytes);
	frames_.pop_front();
	return true;
}

} // namespace pktstats_sim
