// SPDX-License-Identifier: BSD-3-Clause
//
// LinkTiming: wire occupancy of frames; see link_timing.h.

#include "link_timing.h"

#include <sstream>
#include <stdexcept>

namespace pktstats_sim {

LinkTiming LinkTiming::ethernet(uint64_t bits_per_second)
{
	return LinkTiming(bits_per_second, 8, 4, 12, 60, 1);
}

LinkTiming LinkTiming::cpu_port(uint64_t bits_per_second)
{
	return LinkTiming(bits_per_second, 0, 0, 0, 0, 8);
}

LinkTiming::LinkTiming(uint64_t bits_per_second, unsigned bytes_before_frame,
		       unsigned bytes_after_frame_counted_in_arrival, unsigned gap_bytes,
		       unsigned minimum_frame_bytes, unsigned transfer_unit_bytes)
	: bits_per_second_(bits_per_second), bytes_before_frame_(bytes_before_frame),
	  bytes_after_frame_counted_in_arrival_(bytes_after_frame_counted_in_arrival),
	  gap_bytes_(gap_bytes), minimum_frame_bytes_(minimum_frame_bytes),
	  transfer_unit_bytes_(transfer_unit_bytes)
{
	if (bits_per_second == 0)
		throw std::invalid_argument("link rate must be more than 0 bits per second");
	if (transfer_unit_bytes == 0)
		throw std::invalid_argument("link transfer unit must be at least 1 byte");
}

size_t LinkTiming::padded_frame_bytes(size_t frame_bytes) const
{
	return frame_bytes < minimum_frame_bytes_ ? minimum_frame_bytes_ : frame_bytes;
}

size_t LinkTiming::rounded_frame_bytes(size_t frame_bytes) const
{
	size_t padded = padded_frame_bytes(frame_bytes);
	return (padded + transfer_unit_bytes_ - 1) / transfer_unit_bytes_ * transfer_unit_bytes_;
}

uint64_t LinkTiming::arrival_byte_times(size_t frame_bytes) const
{
	return bytes_before_frame_ + rounded_frame_bytes(frame_bytes) +
	       bytes_after_frame_counted_in_arrival_;
}

uint64_t LinkTiming::wire_byte_times(size_t frame_bytes) const
{
	return arrival_byte_times(frame_bytes) + gap_bytes_;
}

uint64_t LinkTiming::picoseconds_for_byte_times(uint64_t byte_times) const
{
	unsigned __int128 bit_picoseconds = (unsigned __int128)byte_times * 8 * 1000000000000ull;
	unsigned __int128 result = (bit_picoseconds + bits_per_second_ - 1) / bits_per_second_;
	if (result > UINT64_MAX)
		throw std::overflow_error("link time of " + std::to_string(byte_times) +
					  " byte times does not fit in 64-bit picoseconds");
	return (uint64_t)result;
}

std::string LinkTiming::description() const
{
	std::ostringstream text;
	if (bits_per_second_ % gigabit == 0)
		text << bits_per_second_ / gigabit << " Gb/s";
	else
		text << bits_per_second_ << " b/s";
	text << " (before frame " << bytes_before_frame_ << ", after frame "
	     << bytes_after_frame_counted_in_arrival_ << ", gap " << gap_bytes_ << ", minimum "
	     << minimum_frame_bytes_ << ", unit " << transfer_unit_bytes_ << " bytes)";
	return text.str();
}

} // namespace pktstats_sim
