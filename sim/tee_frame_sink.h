// SPDX-License-Identifier: BSD-3-Clause
//
// TeeFrameSink: one port's transmitted frames to two sinks, in order: a cabled port's frames go
// into the cable and, with out=FILE, into a pcap file as well.

#ifndef PKTSTATS_SIM_TEE_FRAME_SINK_H
#define PKTSTATS_SIM_TEE_FRAME_SINK_H

#include "frame_sink.h"

namespace pktstats_sim {

class TeeFrameSink : public FrameSink {
public:
	// Not owned.
	TeeFrameSink(FrameSink *first, FrameSink *second) : first_(first), second_(second) {}
	void write_frame(uint64_t time_ns, const std::vector<uint8_t> &bytes) override
	{
		first_->write_frame(time_ns, bytes);
		second_->write_frame(time_ns, bytes);
	}
	void write_frame_ps(uint64_t time_ps, const std::vector<uint8_t> &bytes) override
	{
		first_->write_frame_ps(time_ps, bytes);
		second_->write_frame_ps(time_ps, bytes);
	}

private:
	FrameSink *first_;
	FrameSink *second_;
};

} // namespace pktstats_sim

#endif
