// SPDX-License-Identifier: BSD-3-Clause
//
// MacModel: one port's MAC, receive and transmit; see mac_model.h.

#include "mac_model.h"

#include <cstdio>
#include <stdexcept>

namespace pktstats_sim {

namespace {

std::string keep_text(unsigned keep)
{
	char text[8];
	std::snprintf(text, sizeof text, "0x%02x", keep & 0xffu);
	return text;
}

} // namespace

MacModel::MacModel(const MacModelConfig &config) : config_(config)
{
	if (config.clock_period_ps == 0)
		throw std::invalid_argument(config.name + ": clock period must be more than 0 ps");
}

uint64_t MacModel::oscillator_time_ps(uint64_t cycle) const
{
	return config_.timebase->edge_ps(cycle);
}

void MacModel::check_cycle(uint64_t cycle, const char *operation)
{
	if (cycle < last_cycle_)
		throw std::logic_error(config_.name + ": " + operation + " at cycle " +
				       std::to_string(cycle) + " after cycle " +
				       std::to_string(last_cycle_) + " (cycles must not go back)");
	last_cycle_ = cycle;
}

// Takes the next frame from the source and schedules it on the wire. Returns false when there
// is none.
bool MacModel::fetch_next_frame()
{
	if (source_ == nullptr || source_exhausted_)
		return false;
	TimedFrame frame;
	bool have_frame;
	try {
		have_frame = source_->next_frame(frame);
	} catch (const std::exception &error) {
		throw std::runtime_error(config_.name + ": input " + source_->description() + ": " +
					 error.what());
	}
	if (!have_frame) {
		source_exhausted_ = !source_->live();
		return false;
	}
	size_t padded = config_.link.padded_frame_bytes(frame.bytes.size());
	if (padded == 0)
		throw std::runtime_error(config_.name + ": input " + source_->description() +
					 " gave an empty frame");
	frame.bytes.resize(padded, 0);

	if (frame.time_ns > UINT64_MAX / 1000)
		throw std::runtime_error(config_.name + ": input " + source_->description() +
					 ": frame time " + std::to_string(frame.time_ns) +
					 " ns is too large");
	uint64_t earliest_ps = frame.time_ns * 1000 + frame.time_ps_within_ns;
	uint64_t start_ps = earliest_ps > receive_wire_free_ps_ ? earliest_ps : receive_wire_free_ps_;
	const LinkTiming &link = config_.link;
	frame_on_wire_start_ps_ = start_ps;
	frame_on_wire_arrival_ps_ =
		start_ps + link.picoseconds_for_byte_times(link.arrival_byte_times(padded));
	frame_on_wire_end_ps_ = start_ps + link.picoseconds_for_byte_times(link.wire_byte_times(padded));
	frame_on_wire_bytes_ = std::move(frame.bytes);
	frame_on_wire_ = true;
	return true;
}

// Moves every frame whose last byte has arrived by `time_ps` into the receive FIFO, or drops it
// when the FIFO has no room.
void MacModel::advance_receive_wire(uint64_t time_ps)
{
	for (;;) {
		if (!frame_on_wire_ && !fetch_next_frame())
			return;
		if (frame_on_wire_arrival_ps_ > time_ps)
			return;
		size_t length = frame_on_wire_bytes_.size();
		WireStamp stamp;
		if (wire_observer_ != nullptr)
			stamp = wire_observer_->frame_on_wire(WireDirection::receive,
							      frame_on_wire_start_ps_, frame_on_wire_bytes_);
		counters_.frames_received++;
		counters_.bytes_received += length;
		if (receive_fifo_used_bytes_ + length > config_.receive_fifo_bytes) {
			counters_.frames_dropped++;
			counters_.bytes_dropped += length;
		} else {
			receive_fifo_used_bytes_ += length;
			receive_fifo_.push_back(ReceivedFrame{std::move(frame_on_wire_bytes_), 0, 0, stamp});
		}
		frame_on_wire_bytes_.clear();
		frame_on_wire_ = false;
		receive_wire_free_ps_ = frame_on_wire_end_ps_;
	}
}

// Byte k of the word is byte first + k of the frame, in bits 8k+7:8k (little-endian order,
// assembled explicitly so that the host's byte order does not matter).
AxiStreamWord MacModel::word_of(const std::vector<uint8_t> &bytes, size_t word_index)
{
	AxiStreamWord word;
	word.valid = true;
	size_t first = word_index * 8;
	size_t count = bytes.size() - first < 8 ? bytes.size() - first : 8;
	const uint8_t *b = bytes.data() + first;
	for (size_t i = count; i-- > 0;)
		word.data = word.data << 8 | b[i];
	word.keep = (uint8_t)((1u << count) - 1);
	word.last = first + 8 >= bytes.size();
	return word;
}

AxiStreamWord MacModel::receive_offer(uint64_t cycle)
{
	check_cycle(cycle, "receive_offer");
	offered_valid_ = false;
	advance_receive_wire(cycle_time_ps(cycle));
	if (receive_fifo_.empty() || (accepted_in_cycle_ && accepted_cycle_ == cycle))
		return AxiStreamWord();
	const ReceivedFrame &head = receive_fifo_.front();
	offered_valid_ = true;
	offered_cycle_ = cycle;
	AxiStreamWord word = word_of(head.bytes, head.next_word);
	if (head.next_word == 0 && head.stamp.valid) {
		word.stamp_valid = true;
		word.stamp = (uint64_t)head.stamp.seconds << 30 | (head.stamp.nanoseconds & 0x3fffffffu);
	}
	return word;
}

void MacModel::receive_accept(uint64_t cycle)
{
	check_cycle(cycle, "receive_accept");
	if (!offered_valid_ || offered_cycle_ != cycle)
		throw std::logic_error(config_.name + ": receive_accept at cycle " +
				       std::to_string(cycle) +
				       " without a valid word offered in that cycle");
	offered_valid_ = false;
	accepted_in_cycle_ = true;
	accepted_cycle_ = cycle;
	ReceivedFrame &head = receive_fifo_.front();
	if (head.next_word == 0)
		head.first_word_cycle = cycle;
	size_t first = head.next_word * 8;
	size_t word_bytes = head.bytes.size() - first < 8 ? head.bytes.size() - first : 8;
	receive_fifo_used_bytes_ -= word_bytes;
	head.next_word++;
	if (head.next_word * 8 >= head.bytes.size()) {
		counters_.frames_to_switch++;
		counters_.bytes_to_switch += head.bytes.size();
		ReceivedFrame frame = std::move(head);
		receive_fifo_.pop_front();
		if (receive_sink_ != nullptr) {
			try {
				receive_sink_->write_frame(cycle_time_ps(frame.first_word_cycle) / 1000,
							   frame.bytes);
			} catch (const std::exception &error) {
				throw std::runtime_error(config_.name + ": receive record: " + error.what());
			}
		}
	}
}

void MacModel::end_input(uint64_t cycle)
{
	check_cycle(cycle, "end_input");
	source_ = nullptr;
	if (frame_on_wire_ && frame_on_wire_start_ps_ > cycle_time_ps(cycle)) {
		frame_on_wire_bytes_.clear();
		frame_on_wire_ = false;
	}
}

bool MacModel::receive_exhausted() const
{
	return (source_ == nullptr || source_exhausted_) && !frame_on_wire_ && receive_fifo_.empty();
}

bool MacModel::transmit_ready(uint64_t cycle)
{
	check_cycle(cycle, "transmit_ready");
	if (transmit_accepted_once_ && last_transmit_cycle_ == cycle)
		return false; // one word per clock
	if (!transmit_in_frame_)
		return cycle_time_ps(cycle) >= transmit_wire_free_ps_;
	if (!config_.serializer_paced)
		return true;
	uint64_t j = transmit_words_taken_;
	return cycle >= transmit_first_word_cycle_ + (j == 1 ? 1 : 8 * j);
}

void MacModel::transmit_error(uint64_t cycle, const std::string &what)
{
	if (transmit_frame_has_error_)
		return; // one count per frame
	transmit_frame_has_error_ = true;
	counters_.transmit_protocol_errors++;
	if (first_transmit_error_.empty())
		first_transmit_error_ = config_.name + ": cycle " + std::to_string(cycle) + ": " + what;
}

void MacModel::transmit_accept(uint64_t cycle, const AxiStreamWord &word)
{
	if (!transmit_ready(cycle))
		throw std::logic_error(config_.name + ": transmit_accept at cycle " +
				       std::to_string(cycle) + " while the MAC is not ready");
	transmit_accepted_once_ = true;
	last_transmit_cycle_ = cycle;
	if (!transmit_in_frame_) {
		transmit_in_frame_ = true;
		transmit_first_word_cycle_ = cycle;
		transmit_words_taken_ = 0;
		transmit_frame_.clear();
		transmit_frame_has_error_ = false;
	}

	transmit_words_taken_++;
	unsigned keep = word.keep;
	unsigned byte_count = 0;
	while (byte_count < 8 && (keep >> byte_count & 1u))
		byte_count++;
	if (keep >> byte_count != 0)
		transmit_error(cycle, "tkeep " + keep_text(keep) + " is not contiguous from bit 0");
	else if (!word.last && byte_count != 8)
		transmit_error(cycle, "tkeep " + keep_text(keep) + " is not all ones before tlast");
	for (unsigned i = 0; i < 8; i++)
		if (keep >> i & 1u)
			transmit_frame_.push_back((uint8_t)(word.data >> (8 * i)));
	if (!word.last)
		return;

	transmit_in_frame_ = false;
	if (transmit_frame_.empty()) {
		transmit_error(cycle, "frame with no bytes (tkeep 0 on every word)");
		return;
	}
	const LinkTiming &link = config_.link;
	transmit_frame_.resize(link.padded_frame_bytes(transmit_frame_.size()), 0);
	uint64_t start_ps = cycle_time_ps(transmit_first_word_cycle_);
	transmit_wire_free_ps_ =
		start_ps + link.picoseconds_for_byte_times(link.wire_byte_times(transmit_frame_.size()));
	counters_.frames_transmitted++;
	counters_.bytes_transmitted += transmit_frame_.size();
	if (wire_observer_ != nullptr)
		wire_observer_->frame_on_wire(WireDirection::transmit, start_ps, transmit_frame_);
	if (sink_ == nullptr)
		return;
	try {
		sink_->write_frame_ps(start_ps, transmit_frame_);
	} catch (const std::exception &error) {
		throw std::runtime_error(config_.name + ": output: " + error.what());
	}
}

uint64_t MacModel::receive_next_event_ps() const
{
	if (!receive_fifo_.empty())
		return 0;
	if (frame_on_wire_)
		return frame_on_wire_start_ps_;
	if (source_ == nullptr || source_exhausted_ || source_->live())
		return UINT64_MAX;
	return 0;
}

bool MacModel::transmit_idle(uint64_t cycle) const
{
	return !transmit_in_frame_ && cycle_time_ps(cycle) >= transmit_wire_free_ps_;
}

uint64_t MacModel::transmit_wire_free_cycle() const
{
	return (transmit_wire_free_ps_ + config_.clock_period_ps - 1) / config_.clock_period_ps;
}

} // namespace pktstats_sim
