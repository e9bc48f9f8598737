// SPDX-License-Identifier: BSD-3-Clause
//
// TrafficGenerator: seeded Ethernet/IPv4/UDP frames; see traffic_generator.h.

#include "traffic_generator.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace pktstats_sim {

namespace {

constexpr size_t imix_sizes[3] = {60, 590, 1514};
constexpr unsigned imix_weights[3] = {7, 4, 1};

void put16(std::vector<uint8_t> &bytes, size_t offset, uint16_t value)
{
	bytes[offset] = (uint8_t)(value >> 8);
	bytes[offset + 1] = (uint8_t)value;
}

void put64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value)
{
	for (int i = 0; i < 8; i++)
		bytes[offset + i] = (uint8_t)(value >> (56 - 8 * i));
}

std::string invalid(const std::string &what)
{
	return "traffic generator: " + what;
}

} // namespace

TrafficGenerator::TrafficGenerator(const TrafficGeneratorConfig &config)
	: config_(config), random_(config.seed)
{
	if (config.port_count == 0 || config.port_count > 254)
		throw std::invalid_argument(invalid("port count " + std::to_string(config.port_count) +
						    " is not in 1..254"));
	if (config.source_port >= config.port_count)
		throw std::invalid_argument(invalid("source port " + std::to_string(config.source_port) +
						    " is not in 0.." +
						    std::to_string(config.port_count - 1)));
	if (!(std::isfinite(config.rate) && config.rate > 0))
		throw std::invalid_argument(invalid("rate must be a number above 0"));
	if (config.rate_unit == RateUnit::fraction_of_line_rate && config.rate > 1.0)
		throw std::invalid_argument(invalid("rate " + std::to_string(config.rate) +
						    " is more than the line rate (fraction above 1)"));
	if (config.rate_unit == RateUnit::frames_per_second && config.rate > 1e9)
		throw std::invalid_argument(invalid("rate " + std::to_string(config.rate) +
						    " frames per second is above 1e9"));

	auto check_size = [](size_t bytes, const char *name) {
		if (bytes < smallest_frame_bytes || bytes > largest_frame_bytes)
			throw std::invalid_argument(invalid(std::string(name) + " " +
							    std::to_string(bytes) + " is not in " +
							    std::to_string(smallest_frame_bytes) + ".." +
							    std::to_string(largest_frame_bytes)));
	};
	if (config.size_distribution == FrameSizeDistribution::fixed)
		check_size(config.frame_bytes, "frame size");
	if (config.size_distribution == FrameSizeDistribution::uniform) {
		check_size(config.minimum_frame_bytes, "minimum frame size");
		check_size(config.maximum_frame_bytes, "maximum frame size");
		if (config.minimum_frame_bytes > config.maximum_frame_bytes)
			throw std::invalid_argument(invalid("minimum frame size is above the maximum"));
	}

	std::vector<double> weights = config.destination_weights;
	if (weights.empty()) {
		weights.assign(config.port_count, 1.0);
		weights[config.source_port] = 0.0;
	}
	if (weights.size() != config.port_count)
		throw std::invalid_argument(invalid("the destination weight row has " +
						    std::to_string(weights.size()) +
						    " entries, one per port (" +
						    std::to_string(config.port_count) + ") is needed"));
	weights.push_back(config.broadcast_weight);
	double sum = 0;
	for (size_t i = 0; i < weights.size(); i++) {
		if (!(std::isfinite(weights[i]) && weights[i] >= 0))
			throw std::invalid_argument(
				invalid(i + 1 == weights.size()
						? std::string("broadcast weight is negative or not a number")
						: "destination weight of port " + std::to_string(i) +
							  " is negative or not a number"));
		sum += weights[i];
		cumulative_weights_.push_back(sum);
	}
	if (!(sum > 0))
		throw std::invalid_argument(invalid("every destination weight is 0: no frame can go anywhere"));

	if (!(std::isfinite(config.mean_on_ns) && config.mean_on_ns >= 0 && std::isfinite(config.mean_off_ns) &&
	      config.mean_off_ns >= 0))
		throw std::invalid_argument(invalid("burst on/off means must be numbers >= 0"));
	if (config.mean_on_ns == 0 && config.mean_off_ns > 0)
		throw std::invalid_argument(invalid("bursts with a mean on time of 0 never send"));
	bursts_ = config.mean_on_ns > 0 && config.mean_off_ns > 0;

	next_time_ps_ = config.start_time_ns * 1000;
	if (bursts_)
		on_period_end_ps_ = next_time_ps_ + (uint64_t)std::llround(exponential(config.mean_on_ns) * 1000);
}

std::array<uint8_t, 6> TrafficGenerator::port_mac_address(unsigned port)
{
	return {0x02, 0x00, 0x00, 0x00, 0x00, (uint8_t)(port + 1)};
}

uint16_t TrafficGenerator::internet_checksum(const uint8_t *bytes, size_t length, uint32_t initial_sum)
{
	uint64_t sum = initial_sum;
	for (size_t i = 0; i + 1 < length; i += 2)
		sum += (uint32_t)bytes[i] << 8 | bytes[i + 1];
	if (length % 2 != 0)
		sum += (uint32_t)bytes[length - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

double TrafficGenerator::uniform_unit()
{
	return (double)(random_() >> 11) * 0x1.0p-53;
}

uint64_t TrafficGenerator::uniform_integer(uint64_t maximum)
{
	if (maximum == UINT64_MAX)
		return random_();
	uint64_t range = maximum + 1;
	uint64_t limit = UINT64_MAX - UINT64_MAX % range; // reject the uneven tail: no bias
	for (;;) {
		uint64_t value = random_();
		if (value < limit)
			return value % range;
	}
}

double TrafficGenerator::exponential(double mean)
{
	return -mean * std::log1p(-uniform_unit());
}

size_t TrafficGenerator::draw_frame_bytes()
{
	switch (config_.size_distribution) {
	case FrameSizeDistribution::fixed:
		return config_.frame_bytes;
	case FrameSizeDistribution::uniform:
		return config_.minimum_frame_bytes +
		       uniform_integer(config_.maximum_frame_bytes - config_.minimum_frame_bytes);
	case FrameSizeDistribution::imix: {
		uint64_t draw = uniform_integer(imix_weights[0] + imix_weights[1] + imix_weights[2] - 1);
		for (int i = 0; i < 3; i++) {
			if (draw < imix_weights[i])
				return imix_sizes[i];
			draw -= imix_weights[i];
		}
		break;
	}
	}
	throw std::logic_error("traffic generator: unknown size distribution");
}

int TrafficGenerator::draw_destination()
{
	double draw = uniform_unit() * cumulative_weights_.back();
	for (size_t i = 0; i < cumulative_weights_.size(); i++) {
		bool has_weight = i == 0 ? cumulative_weights_[0] > 0
					 : cumulative_weights_[i] > cumulative_weights_[i - 1];
		if (has_weight && draw < cumulative_weights_[i])
			return i + 1 == cumulative_weights_.size() ? -1 : (int)i;
	}
	// Rounding put the draw at the very top: take the last entry with weight.
	for (size_t i = cumulative_weights_.size(); i-- > 0;)
		if (i == 0 || cumulative_weights_[i] > cumulative_weights_[i - 1])
			return i + 1 == cumulative_weights_.size() ? -1 : (int)i;
	return 0;
}

uint64_t TrafficGenerator::interval_ps(size_t frame_bytes) const
{
	if (config_.rate_unit == RateUnit::frames_per_second)
		return (uint64_t)std::llround(1e12 / config_.rate);
	const LinkTiming &link = config_.link;
	double wire_ps = (double)link.picoseconds_for_byte_times(link.wire_byte_times(frame_bytes));
	return (uint64_t)std::llround(wire_ps / config_.rate);
}

// Moves next_time_ps_ out of off periods, drawing new on/off periods as time passes them.
void TrafficGenerator::skip_off_periods()
{
	if (!bursts_)
		return;
	while (next_time_ps_ >= on_period_end_ps_) {
		uint64_t on_start = on_period_end_ps_ +
				    (uint64_t)std::llround(exponential(config_.mean_off_ns) * 1000);
		on_period_end_ps_ = on_start + (uint64_t)std::llround(exponential(config_.mean_on_ns) * 1000);
		if (next_time_ps_ < on_start)
			next_time_ps_ = on_start;
	}
}

void TrafficGenerator::build_frame(size_t frame_bytes, int destination, uint64_t time_ns,
				   std::vector<uint8_t> &bytes) const
{
	bytes.assign(frame_bytes, 0);
	unsigned source = config_.source_port;
	std::array<uint8_t, 6> source_mac = port_mac_address(source);
	for (int i = 0; i < 6; i++) {
		bytes[i] = destination < 0 ? 0xff : port_mac_address((unsigned)destination)[i];
		bytes[6 + i] = source_mac[i];
	}
	put16(bytes, 12, 0x0800);

	const size_t ip = 14;
	uint8_t source_ip[4] = {10, 0, 0, (uint8_t)(source + 1)};
	uint8_t destination_ip[4] = {255, 255, 255, 255};
	if (destination >= 0) {
		destination_ip[0] = 10;
		destination_ip[1] = 0;
		destination_ip[2] = 0;
		destination_ip[3] = (uint8_t)(destination + 1);
	}
	bytes[ip + 0] = 0x45;
	bytes[ip + 1] = 0;
	put16(bytes, ip + 2, (uint16_t)(frame_bytes - 14));
	put16(bytes, ip + 4, (uint16_t)sequence_number_);
	put16(bytes, ip + 6, 0x4000); // DF, fragment offset 0
	bytes[ip + 8] = 64;
	bytes[ip + 9] = 17;
	for (int i = 0; i < 4; i++) {
		bytes[ip + 12 + i] = source_ip[i];
		bytes[ip + 16 + i] = destination_ip[i];
	}
	put16(bytes, ip + 10, internet_checksum(&bytes[ip], 20));

	const size_t udp = ip + 20;
	const size_t udp_length = frame_bytes - udp;
	put16(bytes, udp + 0, (uint16_t)(udp_source_port_base + source));
	put16(bytes, udp + 2, udp_destination_port);
	put16(bytes, udp + 4, (uint16_t)udp_length);

	const size_t payload = udp + 8;
	put64(bytes, payload, sequence_number_);
	put64(bytes, payload + 8, time_ns);
	for (size_t i = 16; payload + i < frame_bytes; i++)
		bytes[payload + i] = (uint8_t)i;

	// UDP checksum over the pseudo-header (addresses, protocol, UDP length) and the datagram.
	uint32_t pseudo_sum = 0;
	for (int i = 0; i < 4; i += 2) {
		pseudo_sum += (uint32_t)source_ip[i] << 8 | source_ip[i + 1];
		pseudo_sum += (uint32_t)destination_ip[i] << 8 | destination_ip[i + 1];
	}
	pseudo_sum += 17 + (uint32_t)udp_length;
	uint16_t udp_checksum = internet_checksum(&bytes[udp], udp_length, pseudo_sum);
	put16(bytes, udp + 6, udp_checksum == 0 ? 0xffff : udp_checksum);
}

bool TrafficGenerator::next_frame(TimedFrame &frame)
{
	if (config_.frame_limit != 0 && sequence_number_ >= config_.frame_limit)
		return false;
	skip_off_periods();
	size_t frame_bytes = draw_frame_bytes();
	int destination = draw_destination();
	frame.time_ns = next_time_ps_ / 1000;
	build_frame(frame_bytes, destination, frame.time_ns, frame.bytes);
	next_time_ps_ += interval_ps(frame_bytes);
	sequence_number_++;
	return true;
}

std::string TrafficGenerator::description() const
{
	std::ostringstream text;
	text << "traffic generator seed " << config_.seed << " port " << config_.source_port << ", ";
	if (config_.rate_unit == RateUnit::fraction_of_line_rate)
		text << config_.rate << " of line rate";
	else
		text << config_.rate << " frames/s";
	switch (config_.size_distribution) {
	case FrameSizeDistribution::fixed:
		text << ", " << config_.frame_bytes << " bytes";
		break;
	case FrameSizeDistribution::uniform:
		text << ", " << config_.minimum_frame_bytes << ".." << config_.maximum_frame_bytes
		     << " bytes";
		break;
	case FrameSizeDistribution::imix:
		text << ", IMIX";
		break;
	}
	if (bursts_)
		text << ", bursts on " << config_.mean_on_ns << " ns / off " << config_.mean_off_ns << " ns";
	return text.str();
}

} // namespace pktstats_sim
