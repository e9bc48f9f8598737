// SPDX-License-Identifier: BSD-3-Clause
//
// FrameSource: where a port's receive side gets its frames (a pcap file, the traffic generator,
// a TAP device). The MAC model pulls frames one at a time, when its wire is ready for the next
// one, so a source never has to know about clocks or back-pressure; it only says when each frame
// may start at the earliest.

#ifndef PKTSTATS_SIM_FRAME_SOURCE_H
#define PKTSTATS_SIM_FRAME_SOURCE_H

#include <string>

#include "timed_frame.h"

namespace pktstats_sim {

class FrameSource {
public:
	virtual ~FrameSource() = default;

	// Fills `frame` with the next frame and returns true, or returns false once the source has
	// no more frames (and keeps returning false). Times should not decrease from one frame to
	// the next; when they do, the MAC model sends the frame as soon as the wire allows.
	// Throws std::runtime_error, with a message that names the source, when reading fails.
	virtual bool next_frame(TimedFrame &frame) = 0;

	// What this source is, for messages and the summary (e.g. "pcap file in.pcap").
	virtual std::string description() const = 0;

	// A live source (a TAP device) can have no frame now and more later: for it, next_frame()
	// returning false means "none yet", and the MAC model asks again in a later clock. Its
	// frames' times are absolute, never shifted by when traffic started.
	virtual bool live() const { return false; }
};

} // namespace pktstats_sim

#endif
