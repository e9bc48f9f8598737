// SPDX-License-Identifier: BSD-3-Clause
//
// TrafficGenerator: a seeded source of Ethernet II / IPv4 / UDP test frames for one input port.
//
// Same seed and configuration, same frames and times, on every run and machine: the random
// numbers come from std::mt19937_64, and the distributions are computed here from its raw
// output (the standard library's distributions differ between implementations).
//
// What it generates, frame by frame:
//   - size (bytes without FCS): fixed; uniform over min..max; or IMIX, 60, 590 and 1514 bytes
//     (64, 594 and 1518 with FCS) drawn with probabilities 7:4:1;
//   - destination: drawn from the source port's row of the port matrix (one weight per
//     destination port) plus a broadcast weight; the frame goes to that port's MAC address, or
//     to ff:ff:ff:ff:ff:ff;
//   - time: during "on" periods frames follow each other at a constant rate, either a fraction
//     of the line rate (the time between frame starts is the frame's wire time divided by the
//     fraction, so 1.0 is back to back) or a number of frames per second. With bursts enabled,
//     on and off periods alternate with exponentially distributed lengths of the given means,
//     starting with an on period; no frame starts in an off period. The long-run average rate
//     is then rate * mean_on / (mean_on + mean_off).
//
// Frame layout (all fields big-endian, as on the wire):
//   Ethernet  destination port_mac_address(d) or broadcast; source port_mac_address(source),
//             i.e. 02:00:00:00:00:<port+1>; EtherType 0x0800.
//   IPv4      version 4, IHL 5, TOS 0, total length, identification = low 16 bits of the
//             sequence number, DF, TTL 64, protocol 17, correct header checksum,
//             source 10.0.0.<source+1>, destination 10.0.0.<d+1> or 255.255.255.255.
//   UDP       source port 40000 + source port index, destination port 9 (discard), length,
//             correct checksum.
//   payload   bytes 0..7 sequence number (0 for this generator's first frame, +1 per frame);
//             bytes 8..15 the frame's scheduled time in ns; then bytes whose value is their
//             payload offset modulo 256.

#ifndef PKTSTATS_SIM_TRAFFIC_GENERATOR_H
#define PKTSTATS_SIM_TRAFFIC_GENERATOR_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "frame_source.h"
#include "link_timing.h"

namespace pktstats_sim {

enum class FrameSizeDistribution { fixed, uniform, imix };
enum class RateUnit { fraction_of_line_rate, frames_per_second };

struct TrafficGeneratorConfig {
	uint64_t seed = 1;
	unsigned source_port = 0; // 0..port_count-1
	unsigned port_count = 8;
	LinkTiming link = LinkTiming::ethernet(); // the port's link, for fraction_of_line_rate

	RateUnit rate_unit = RateUnit::fraction_of_line_rate;
	double rate = 1.0; // fraction in (0, 1], or frames per second in (0, 1e9]

	FrameSizeDistribution size_distribution = FrameSizeDistribution::fixed;
	size_t frame_bytes = 60;          // fixed size
	size_t minimum_frame_bytes = 60;  // uniform: smallest
	size_t maximum_frame_bytes = 1514; // uniform: largest

	// One weight per destination port (port_count entries, >= 0); empty means weight 1 for
	// every port but the source. A frame is broadcast with weight broadcast_weight.
	std::vector<double> destination_weights;
	double broadcast_weight = 0.0;

	// On/off bursts: both 0 means always on. mean_off_ns 0 with mean_on_ns > 0 is always on too.
	double mean_on_ns = 0.0;
	double mean_off_ns = 0.0;

	uint64_t start_time_ns = 0; // the first on period starts here
	uint64_t frame_limit = 0;   // frames to generate; 0 = no limit
};

class TrafficGenerator : public FrameSource {
public:
	static constexpr size_t smallest_frame_bytes = 60;
	static constexpr size_t largest_frame_bytes = 9216;
	static constexpr size_t header_bytes = 14 + 20 + 8; // Ethernet, IPv4, UDP
	static constexpr uint16_t udp_source_port_base = 40000;
	static constexpr uint16_t udp_destination_port = 9;

	// Throws std::invalid_argument, naming the setting, for an inconsistent configuration.
	explicit TrafficGenerator(const TrafficGeneratorConfig &config);

	bool next_frame(TimedFrame &frame) override;
	std::string description() const override;

	uint64_t frames_generated() const { return sequence_number_; }

	// 02:00:00:00:00:<port+1>: the locally administered unicast address of a port.
	static std::array<uint8_t, 6> port_mac_address(unsigned port);
	// The Internet checksum (RFC 1071) of `length` bytes, as stored in a header.
	static uint16_t internet_checksum(const uint8_t *bytes, size_t length, uint32_t initial_sum = 0);

private:
	double uniform_unit();                        // [0, 1)
	uint64_t uniform_integer(uint64_t maximum);   // 0..maximum
	double exponential(double mean);
	size_t draw_frame_bytes();
	int draw_destination();                       // port, or -1 for broadcast
	uint64_t interval_ps(size_t frame_bytes) const;
	void skip_off_periods();
	void build_frame(size_t frame_bytes, int destination, uint64_t time_ns,
			 std::vector<uint8_t> &bytes) const;

	TrafficGeneratorConfig config_;
	std::mt19937_64 random_;
	std::vector<double> cumulative_weights_; // destination ports, then broadcast last
	bool bursts_ = false;
	uint64_t next_time_ps_;
	uint64_t on_period_end_ps_ = 0;
	uint64_t sequence_number_ = 0;
};

} // namespace pktstats_sim

#endif
