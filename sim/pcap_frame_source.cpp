// SPDX-License-Identifier: BSD-3-Clause
//
// PcapFrameSource: a port's input from a pcap/pcapng file through libpcap; see
// pcap_frame_source.h.

#include "pcap_frame_source.h"

#include <pcap/pcap.h>

#include <stdexcept>

namespace pktstats_sim {

PcapFrameSource::PcapFrameSource(const std::string &path, const PcapFrameSourceOptions &options)
	: path_(path), options_(options)
{
	char error_text[PCAP_ERRBUF_SIZE] = "";
	handle_ = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO,
							  error_text);
	if (handle_ == nullptr)
		throw std::runtime_error(path + ": cannot read as a pcap or pcapng capture: " +
					 error_text);
	int link_type = pcap_datalink(handle_);
	if (link_type != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(link_type);
		pcap_close(handle_);
		handle_ = nullptr;
		throw std::runtime_error(path + ": link type " + std::to_string(link_type) + " (" +
					 (name != nullptr ? name : "unknown") +
					 ") is not Ethernet (EN10MB); a switch port needs Ethernet frames");
	}
}

PcapFrameSource::~PcapFrameSource()
{
	if (handle_ != nullptr)
		pcap_close(handle_);
}

std::string PcapFrameSource::description() const
{
	return "pcap file " + path_ +
	       (options_.timing == PcapTiming::back_to_back ? " (back to back)"
							     : " (timestamps relative to the first)");
}

bool PcapFrameSource::next_frame(TimedFrame &frame)
{
	while (!finished_) {
		struct pcap_pkthdr *header = nullptr;
		const u_char *data = nullptr;
		int status = pcap_next_ex(handle_, &header, &data);
		if (status == PCAP_ERROR_BREAK) { // end of file
			finished_ = true;
			return false;
		}
		if (status != 1)
			throw std::runtime_error(path_ + ": after frame " +
						 std::to_string(records_seen_) + ": " +
						 pcap_geterr(handle_));
		records_seen_++;
		std::string where = path_ + ": frame " + std::to_string(records_seen_);
		// At nanosecond precision libpcap puts nanoseconds in tv_usec. Times count from the
		// file's first record, skipped or not, so skipping a frame does not shift the rest.
		int64_t timestamp_ns = (int64_t)header->ts.tv_sec * 1000000000 + header->ts.tv_usec;
		if (!have_first_timestamp_) {
			have_first_timestamp_ = true;
			first_timestamp_ns_ = timestamp_ns;
		}
		if (header->caplen == 0)
			throw std::runtime_error(where + " has no bytes (malformed record)");
		if (header->caplen < header->len) {
			if (options_.bad_frame_policy == BadFramePolicy::stop_with_error)
				throw std::runtime_error(
					where + " was captured cut short: " +
					std::to_string(header->caplen) + " of its " +
					std::to_string(header->len) +
					" bytes (capture snapshot length too small)");
			frames_skipped_truncated_++;
			continue;
		}
		if (header->caplen > options_.maximum_frame_bytes) {
			if (options_.bad_frame_policy == BadFramePolicy::stop_with_error)
				throw std::runtime_error(
					where + " is " + std::to_string(header->caplen) +
					" bytes long, more than the maximum of " +
					std::to_string(options_.maximum_frame_bytes));
			frames_skipped_oversize_++;
			continue;
		}

		uint64_t offset_ns = 0;
		if (options_.timing == PcapTiming::relative_to_first) {
			if (timestamp_ns < first_timestamp_ns_)
				timestamps_before_first_++;
			else
				offset_ns = (uint64_t)(timestamp_ns - first_timestamp_ns_);
		}
		frame.time_ns = options_.start_time_ns + offset_ns;
		frame.bytes.assign(data, data + header->caplen);
		frames_read_++;
		return true;
	}
	return false;
}

} // namespace pktstats_sim
