// SPDX-License-Identifier: BSD-3-Clause
//
// CableWire: one direction of a cable; see cable_wire.h.

#include "cable_wire.h"

namespace pktstats_sim {

void CableWire::write_frame_ps(uint64_t time_ps, const std::vector<uint8_t> &bytes)
{
	frames_.push_back(FrameInFlight{time_ps + delay_ps_, bytes});
	frames_carried_++;
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
