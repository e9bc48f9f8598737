// SPDX-License-Identifier: BSD-3-Clause
//
// TapPort: a Linux TAP interface as the far end of one switch port's wire.
//
// Frames the host sends into the interface (`ping -I pstap0 ...`, a tcpreplay, a packet socket)
// enter the switch port; frames the switch sends out of the port come out of the interface,
// where tcpdump, Wireshark or any socket on the host sees them, stat packets included. The
// interface is created when it does not exist (it then disappears when the simulator exits) and
// is brought up; it carries Ethernet frames without the packet-information header (IFF_NO_PI)
// and without FCS, as the switch's streams do.
//
// The simulation runs far slower than the wire (a few ms of simulated time per second), so a
// TAP port has no timing of its own: a frame the host wrote enters the simulated wire in the
// clock in which the simulator reads it, and a frame the switch sent is written to the host when
// the switch has handed over its last word. Opening a TAP interface needs
// CAP_NET_ADMIN and /dev/net/tun.
//
// Errors are std::runtime_error with a message that names the interface.

#ifndef PKTSTATS_SIM_TAP_PORT_H
#define PKTSTATS_SIM_TAP_PORT_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clock_timebase.h"
#include "frame_sink.h"
#include "frame_source.h"

namespace pktstats_sim {

class TapDevice {
public:
	// Opens (creating it if needed) and brings up the TAP interface `name` (at most 15
	// characters). Throws std::runtime_error when it cannot.
	explicit TapDevice(const std::string &name);
	~TapDevice();
	TapDevice(const TapDevice &) = delete;
	TapDevice &operator=(const TapDevice &) = delete;

	// Reads one frame the host sent without blocking; false when there is none now.
	bool read_frame(std::vector<uint8_t> &bytes);
	// Writes one frame to the host. A frame the kernel refuses for want of buffer space is
	// counted in frames_not_delivered(), as a full host queue would drop it; other failures
	// throw.
	void write_frame(const std::vector<uint8_t> &bytes);

	const std::string &name() const { return name_; }
	uint64_t frames_not_delivered() const { return frames_not_delivered_; }

private:
	std::string name_;
	int fd_ = -1;
	std::vector<uint8_t> buffer_;
	uint64_t frames_not_delivered_ = 0;
};

// The receive side of a TAP port: a live source, never exhausted. `cycle` points at the clock
// being simulated; each frame read gets its time. Frames longer than maximum_frame_bytes (the
// port's largest) are skipped and counted, never cut.
class TapFrameSource : public FrameSource {
public:
	TapFrameSource(std::shared_ptr<TapDevice> device, const uint64_t *cycle,
		       uint64_t clock_period_ps, size_t maximum_frame_bytes)
		: device_(std::move(device)), cycle_(cycle), clock_period_ps_(clock_period_ps),
		  maximum_frame_bytes_(maximum_frame_bytes)
	{
	}
	// The switch's oscillator (not owned; null: cycle * clock_period_ps): frames are stamped
	// with the true time of the clock in which they were read.
	void set_timebase(const ClockTimebase *timebase) { timebase_ = timebase; }
	bool next_frame(TimedFrame &frame) override;
	bool live() const override { return true; }
	std::string description() const override { return "TAP " + device_->name(); }
	uint64_t frames_skipped_oversize() const { return frames_skipped_oversize_; }

private:
	std::shared_ptr<TapDevice> device_;
	const uint64_t *cycle_;
	uint64_t clock_period_ps_;
	const ClockTimebase *timebase_ = nullptr;
	size_t maximum_frame_bytes_;
	uint64_t frames_skipped_oversize_ = 0;
};

// The transmit side of a TAP port.
class TapFrameSink : public FrameSink {
public:
	explicit TapFrameSink(std::shared_ptr<TapDevice> device) : device_(std::move(device)) {}
	void write_frame(uint64_t, const std::vector<uint8_t> &bytes) override
	{
		device_->write_frame(bytes);
	}

private:
	std::shared_ptr<TapDevice> device_;
};

} // namespace pktstats_sim

#endif
