// SPDX-License-Identifier: BSD-3-Clause
//
// LinkTiming: how long a frame occupies a port's wire, in byte times and picoseconds.
//
// Two kinds of link use it:
//
//   - Ethernet (the MAC ports, 1 Gb/s by default). A frame of N bytes (without FCS) is padded
//     to 60 bytes when shorter, and occupies
//         8 (preamble and SFD) + N + 4 (FCS) + 12 (inter-frame gap)   byte times,
//     so 84 byte times (672 ns at 1 Gb/s) for the smallest frame and 1538 for a 1514-byte one.
//     Its last byte (the FCS) has arrived 8 + N + 4 byte times after its first bit.
//   - A CPU port (the DMA side of the switch; 8 Gb/s by default, i.e. one 64-bit word per
//     8 ns clock). No preamble, FCS, gap or padding; a frame is moved in whole 64-bit words, so
//     N bytes occupy ceil(N / 8) * 8 byte times: at 8 Gb/s exactly one word per clock.
//
// Times are computed in integer picoseconds, rounded up, so that 1 Gb/s (8000 ps per byte) and
// 8 Gb/s (1000 ps per byte) are exact and other rates lose at most 1 ps per frame.

#ifndef PKTSTATS_SIM_LINK_TIMING_H
#define PKTSTATS_SIM_LINK_TIMING_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace pktstats_sim {

class LinkTiming {
public:
	static constexpr uint64_t gigabit = 1000000000;

	// Ethernet with preamble, SFD, FCS, inter-frame gap and the 60-byte minimum.
	static LinkTiming ethernet(uint64_t bits_per_second = gigabit);
	// A CPU (DMA) port: no overhead, no padding, whole 64-bit words.
	static LinkTiming cpu_port(uint64_t bits_per_second = 8 * gigabit);

	// The general form. `bytes_before_frame` go on the wire ahead of the frame (preamble),
	// `bytes_after_frame_counted_in_arrival` right after it and before it counts as arrived
	// (FCS), `gap_bytes` after that (inter-frame gap); frames shorter than `minimum_frame_bytes`
	// are padded to it; the padded length is rounded up to a multiple of `transfer_unit_bytes`.
	// Throws std::invalid_argument when bits_per_second or transfer_unit_bytes is 0.
	LinkTiming(uint64_t bits_per_second, unsigned bytes_before_frame,
		   unsigned bytes_after_frame_counted_in_arrival, unsigned gap_bytes,
		   unsigned minimum_frame_bytes, unsigned transfer_unit_bytes);

	// The frame as the wire carries it: padded to the minimum (the padding is zeros).
	size_t padded_frame_bytes(size_t frame_bytes) const;
	// Byte times from the frame's first bit until the next frame may start (gap included).
	uint64_t wire_byte_times(size_t frame_bytes) const;
	// Byte times from the frame's first bit until its last byte has arrived at the receiver.
	uint64_t arrival_byte_times(size_t frame_bytes) const;
	// Duration of `byte_times` at this link's rate, in picoseconds, rounded up.
	uint64_t picoseconds_for_byte_times(uint64_t byte_times) const;

	uint64_t bits_per_second() const { return bits_per_second_; }
	unsigned minimum_frame_bytes() const { return minimum_frame_bytes_; }
	// e.g. "Ethernet 1 Gb/s (preamble 8, FCS 4, gap 12, minimum 60 bytes)".
	std::string description() const;

private:
	size_t rounded_frame_bytes(size_t frame_bytes) const;

	uint64_t bits_per_second_;
	unsigned bytes_before_frame_;
	unsigned bytes_after_frame_counted_in_arrival_;
	unsigned gap_bytes_;
	unsigned minimum_frame_bytes_;
	unsigned transfer_unit_bytes_;
};

} // namespace pktstats_sim

#endif
