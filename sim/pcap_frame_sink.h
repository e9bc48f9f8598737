// SPDX-License-Identifier: BSD-3-Clause
//
// PcapFrameSink: writes one port's output frames to a capture file, with nanosecond timestamps
// equal to the simulated time of each frame's first bit on the wire.
//
// Written through libpcap: a dead handle of link type EN10MB at nanosecond precision
// (pcap_open_dead_with_tstamp_precision) and pcap_dump_open, which writes the nanosecond pcap
// magic (0xa1b23c4d). The format follows the file name: ".pcap" or ".pcapng". The libpcap of
// Debian 12 (1.10) cannot write pcapng (it has no pcapng dumper), so a ".pcapng" file is
// written as nanosecond pcap too; every libpcap-based reader (tcpdump, tshark, Wireshark, this
// simulator's own PcapFrameSource) recognises the format by its magic, not its name.
// written_format() says which format the file has, so the caller can tell the user.
//
// Leaving a valid file: frames go through stdio's buffer; close() (or the destructor) flushes
// and closes the file, and the file is complete. The simulator catches SIGINT and SIGTERM with
// a handler that only sets a flag (close() is not async-signal-safe); the loop sees the flag,
// stops, and destroys its sinks, so an interrupted run leaves valid files. A process
// killed outright (SIGKILL, a crash) leaves what stdio had written: a valid header and frames
// up to a possibly cut last record, which libpcap readers report as a truncated file after
// reading every whole frame. flush() pushes everything written so far to the file (the
// simulator may call it periodically to bound what such a kill loses).
//
// Errors (a name without .pcap/.pcapng, a file that cannot be created, a failed write or
// close) are std::runtime_error / std::invalid_argument with a message that starts with the
// path.

#ifndef PKTSTATS_SIM_PCAP_FRAME_SINK_H
#define PKTSTATS_SIM_PCAP_FRAME_SINK_H

#include <cstdint>
#include <string>
#include <vector>

#include "frame_sink.h"

struct pcap;
struct pcap_dumper;

namespace pktstats_sim {

class PcapFrameSink : public FrameSink {
public:
	static constexpr uint32_t snapshot_length = 262144; // libpcap's largest

	explicit PcapFrameSink(const std::string &path);
	// Closes the file; errors at that point cannot be thrown and are printed to stderr. Call
	// close() first to get them as an exception.
	~PcapFrameSink() override;
	PcapFrameSink(const PcapFrameSink &) = delete;
	PcapFrameSink &operator=(const PcapFrameSink &) = delete;

	void write_frame(uint64_t time_ns, const std::vector<uint8_t> &bytes) override;
	void flush();
	// Flushes and closes; later writes throw std::logic_error. Calling it again does nothing.
	void close();

	// "pcap (nanosecond)"; for a ".pcapng" name also why it is not pcapng.
	std::string written_format() const;
	bool pcapng_requested() const { return pcapng_requested_; }
	const std::string &path() const { return path_; }
	uint64_t frames_written() const { return frames_written_; }

private:
	void check_stream(const char *operation);

	std::string path_;
	bool pcapng_requested_ = false;
	struct pcap *dead_handle_ = nullptr;
	struct pcap_dumper *dumper_ = nullptr;
	uint64_t frames_written_ = 0;
};

} // namespace pktstats_sim

#endif
