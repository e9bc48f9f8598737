// SPDX-License-Identifier: BSD-3-Clause
//
// PcapFrameSource: frames for one port's receive side from a pcap or pcapng capture file.
//
// The file is read through libpcap at nanosecond precision
// (pcap_open_offline_with_tstamp_precision), so microsecond pcap, nanosecond pcap and pcapng
// with any if_tsresol all give exact times. Only Ethernet captures (link type DLT_EN10MB) can
// feed a switch port; anything else is refused when the file is opened.
//
// Timing modes:
//   relative_to_first  frame i may start at start_time_ns + (timestamp_i - timestamp_0), where
//                      timestamp_0 is the file's first record's: the capture's spacing is
//                      replayed (the MAC model still never sends faster than the wire). A
//                      timestamp earlier than the first record's is taken as equal to it and
//                      counted in timestamps_before_first().
//   back_to_back       every frame may start at start_time_ns: the port sends them as fast as
//                      the wire allows.
//
// Frames longer than maximum_frame_bytes, and frames the capture cut short (captured length
// below the original length, from a small snapshot length), are never passed on cut: with
// BadFramePolicy::stop_with_error reading stops with an error naming the file and the frame
// number; with skip_and_count the frame is skipped and counted. Zero-length records are
// malformed and always an error.
//
// All errors are std::runtime_error with a message that starts with the file's path.

#ifndef PKTSTATS_SIM_PCAP_FRAME_SOURCE_H
#define PKTSTATS_SIM_PCAP_FRAME_SOURCE_H

#include <cstdint>
#include <string>

#include "frame_source.h"

struct pcap; // libpcap's handle, kept out of this header

namespace pktstats_sim {

enum class PcapTiming { relative_to_first, back_to_back };
enum class BadFramePolicy { stop_with_error, skip_and_count };

struct PcapFrameSourceOptions {
	PcapTiming timing = PcapTiming::relative_to_first;
	uint64_t start_time_ns = 0;        // added to every frame's time
	size_t maximum_frame_bytes = 1514; // without FCS; the MAC ports' largest frame
	BadFramePolicy bad_frame_policy = BadFramePolicy::stop_with_error;
};

class PcapFrameSource : public FrameSource {
public:
	// Opens the file; throws std::runtime_error when it is missing, unreadable, not a capture
	// file, or not an Ethernet capture.
	explicit PcapFrameSource(const std::string &path, const PcapFrameSourceOptions &options = {});
	~PcapFrameSource() override;
	PcapFrameSource(const PcapFrameSource &) = delete;
	PcapFrameSource &operator=(const PcapFrameSource &) = delete;

	bool next_frame(TimedFrame &frame) override;
	std::string description() const override;

	uint64_t frames_read() const { return frames_read_; }                 // passed on
	uint64_t frames_skipped_oversize() const { return frames_skipped_oversize_; }
	uint64_t frames_skipped_truncated() const { return frames_skipped_truncated_; }
	uint64_t timestamps_before_first() const { return timestamps_before_first_; }

private:
	std::string path_;
	PcapFrameSourceOptions options_;
	struct pcap *handle_ = nullptr;
	bool finished_ = false;
	uint64_t records_seen_ = 0; // records read from the file, skipped ones included
	bool have_first_timestamp_ = false;
	int64_t first_timestamp_ns_ = 0;
	uint64_t frames_read_ = 0;
	uint64_t frames_skipped_oversize_ = 0;
	uint64_t frames_skipped_truncated_ = 0;
	uint64_t timestamps_before_first_ = 0;
};

} // namespace pktstats_sim

#endif
