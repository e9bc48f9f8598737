// SPDX-License-Identifier: BSD-3-Clause
//
// PcapFrameSink: a port's output to a nanosecond pcap file through libpcap; see
// pcap_frame_sink.h.

#include "pcap_frame_sink.h"

#include <pcap/pcap.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace pktstats_sim {

namespace {

// Case-insensitive: "OUT.PCAP" is a pcap file too.
bool ends_with(const std::string &text, const std::string &suffix)
{
	if (text.size() < suffix.size())
		return false;
	size_t offset = text.size() - suffix.size();
	for (size_t i = 0; i < suffix.size(); i++)
		if (std::tolower((unsigned char)text[offset + i]) != suffix[i])
			return false;
	return true;
}

} // namespace

PcapFrameSink::PcapFrameSink(const std::string &path) : path_(path)
{
	if (ends_with(path, ".pcapng"))
		pcapng_requested_ = true;
	else if (!ends_with(path, ".pcap"))
		throw std::invalid_argument(path +
					    ": output capture file name must end in .pcap or .pcapng");

	dead_handle_ = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, snapshot_length,
							    PCAP_TSTAMP_PRECISION_NANO);
	if (dead_handle_ == nullptr)
		throw std::runtime_error(path + ": libpcap could not make a handle for writing");
	dumper_ = pcap_dump_open(dead_handle_, path.c_str());
	if (dumper_ == nullptr) {
		std::string reason = pcap_geterr(dead_handle_);
		pcap_close(dead_handle_);
		dead_handle_ = nullptr;
		throw std::runtime_error(path + ": cannot create the capture file: " + reason);
	}
}

PcapFrameSink::~PcapFrameSink()
{
	try {
		close();
	} catch (const std::exception &error) {
		std::fprintf(stderr, "pktstats-sim: %s\n", error.what());
	}
}

std::string PcapFrameSink::written_format() const
{
	if (pcapng_requested_)
		return "pcap (nanosecond): this libpcap cannot write pcapng, so the .pcapng file holds "
		       "nanosecond pcap, which pcapng readers accept";
	return "pcap (nanosecond)";
}

void PcapFrameSink::check_stream(const char *operation)
{
	FILE *file = pcap_dump_file(dumper_);
	if (file != nullptr && std::ferror(file)) {
		int error_number = errno;
		throw std::runtime_error(path_ + ": " + operation + " failed: " +
					 (error_number != 0 ? std::strerror(error_number)
							    : "I/O error"));
	}
}

void PcapFrameSink::write_frame(uint64_t time_ns, const std::vector<uint8_t> &bytes)
{
	if (dumper_ == nullptr)
		throw std::logic_error(path_ + ": frame written after the file was closed");
	if (bytes.size() > snapshot_length)
		throw std::runtime_error(path_ + ": frame of " + std::to_string(bytes.size()) +
					 " bytes is longer than the file's snapshot length " +
					 std::to_string(snapshot_length));
	struct pcap_pkthdr header;
	std::memset(&header, 0, sizeof header);
	header.ts.tv_sec = (time_t)(time_ns / 1000000000);
	header.ts.tv_usec = (suseconds_t)(time_ns % 1000000000); // nanoseconds at this precision
	header.caplen = (bpf_u_int32)bytes.size();
	header.len = (bpf_u_int32)bytes.size();
	pcap_dump((u_char *)dumper_, &header, bytes.data());
	check_stream("writing a frame");
	frames_written_++;
}

void PcapFrameSink::flush()
{
	if (dumper_ == nullptr)
		return;
	if (pcap_dump_flush(dumper_) != 0) {
		int error_number = errno;
		throw std::runtime_error(path_ + ": flushing failed: " + std::strerror(error_number));
	}
}

void PcapFrameSink::close()
{
	if (dumper_ == nullptr)
		return;
	int flush_status = pcap_dump_flush(dumper_);
	int flush_errno = errno;
	bool stream_error = std::ferror(pcap_dump_file(dumper_)) != 0;
	// pcap_dump_close() does not report fclose() errors, so flush (above) and check first.
	pcap_dump_close(dumper_);
	dumper_ = nullptr;
	pcap_close(dead_handle_);
	dead_handle_ = nullptr;
	if (flush_status != 0)
		throw std::runtime_error(path_ + ": writing the capture file failed: " +
					 std::strerror(flush_errno));
	if (stream_error)
		throw std::runtime_error(path_ + ": writing the capture file failed earlier; "
						 "it is incomplete");
}

} // namespace pktstats_sim
