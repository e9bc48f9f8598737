// SPDX-License-Identifier: BSD-3-Clause
//
// DelayedSource: a port's frame source whose frames are shifted by the true time at which the
// traffic started, so that a pcap's or a generator's times count from the start of the traffic
// (with --wait, the client's `start`) rather than from the end of reset. A live source (a TAP
// interface) is passed through: its frames enter when the host sends them.

#ifndef PKTSTATS_SIM_DELAYED_FRAME_SOURCE_H
#define PKTSTATS_SIM_DELAYED_FRAME_SOURCE_H

#include <cstdint>
#include <memory>
#include <string>

#include "frame_source.h"

namespace pktstats_sim {

class DelayedSource : public FrameSource {
public:
	DelayedSource(std::unique_ptr<FrameSource> inner) : inner_(std::move(inner)) {}
	void set_offset_ns(uint64_t offset) { offset_ns_ = offset; }
	bool next_frame(TimedFrame &frame) override
	{
		if (!inner_->next_frame(frame))
			return false;
		if (!inner_->live())
			frame.time_ns += offset_ns_;
		return true;
	}
	std::string description() const override { return inner_->description(); }
	bool live() const override { return inner_->live(); }

private:
	std::unique_ptr<FrameSource> inner_;
	uint64_t offset_ns_ = 0;
};

} // namespace pktstats_sim

#endif
