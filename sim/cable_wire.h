// SPDX-License-Identifier: BSD-3-Clause
//
// CableWire: one direction of a cable between two MAC ports. The transmitting port's MAC puts
// its frames in (a FrameSink, with the true time of each frame's first bit in picoseconds); the
// receiving port's MAC takes them out (a live FrameSource), each with its first bit `delay_ps`
// later. The receiving MAC serializes them at the same line rate, so a frame's first bit reaches
// the far port exactly `delay_ps` after it left. A cable is two of these, one per direction
// (full duplex).
//
// The simulator steps its switches in true-time order, so a frame is in the cable before the far
// port's clock passes its arrival; the far MAC asks again every clock while the cable is empty
// (live()), and the run is not over while a cable holds a frame (empty()).
//
// When the switches run on threads (pktstats-sim --threads), each runs up to the end of a window
// of true time at most one cable delay long; the frames put in meanwhile wait in the cable
// (staged) until deliver() at the end of the window, so that the far MAC, on another thread,
// only ever takes frames of earlier windows. None can be late: a frame's last byte reaches the far
// port at least the delay after the near MAC took it whole. write_frame() checks that, and throws
// std::logic_error if a frame would have been needed before the window's end.

#ifndef PKTSTATS_SIM_CABLE_WIRE_H
#define PKTSTATS_SIM_CABLE_WIRE_H

#include <cstdint>
#include <deque>
#include <string>

#include "frame_sink.h"
#include "frame_source.h"

namespace pktstats_sim {

class CableWire : public FrameSink, public FrameSource {
public:
	CableWire(uint64_t delay_ps, std::string description)
		: delay_ps_(delay_ps), description_(std::move(description))
	{
	}

	void write_frame(uint64_t time_ns, const std::vector<uint8_t> &bytes) override
	{
		write_frame_ps(time_ns * 1000, bytes);
	}
	void write_frame_ps(uint64_t time_ps, const std::vector<uint8_t> &bytes) override;

	bool next_frame(TimedFrame &frame) override;
	std::string description() const override { return description_; }
	bool live() const override { return true; }

	// No frame waits in the cable for the far MAC to take it.
	bool empty() const { return frames_.empty(); }

	// Frames wait until deliver() while `window_end_ps` is not 0; the far MAC runs up to it.
	void set_window_end(uint64_t window_end_ps) { window_end_ps_ = window_end_ps; }
	void deliver();
	uint64_t delay_ps() const { return delay_ps_; }
	uint64_t frames_carried() const { return frames_carried_; }

private:
	struct FrameInFlight {
		uint64_t arrival_first_bit_ps;
		std::vector<uint8_t> bytes;
	};
	uint64_t delay_ps_;
	std::string description_;
	std::deque<FrameInFlight> frames_;
	std::deque<FrameInFlight> staged_;
	uint64_t window_end_ps_ = 0;
	uint64_t frames_carried_ = 0;
};

} // namespace pktstats_sim

#endif
