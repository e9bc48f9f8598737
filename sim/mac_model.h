// SPDX-License-Identifier: BSD-3-Clause
//
// MacModel: one switch port's MAC, both directions, driven clock by clock by the simulation.
//
// Receive side (wire -> switch input). The model pulls frames from a FrameSource and serializes
// them on a simulated wire at the link's rate (LinkTiming): each frame starts at its source time
// or, when the wire is still busy, right after the previous frame's gap. A frame becomes
// available when its last byte has arrived (store and forward); it then enters a receive FIFO of
// `receive_fifo_bytes` (default 16 KiB) or, when the FIFO has no room for it, is dropped and
// counted (a MAC drop: the switch did not take frames fast enough). Frames shorter than the
// link's minimum are padded with zeros, as the sending MAC would. From the FIFO the frame is
// offered to the switch as 64-bit AXI4-Stream words, one per clock while the switch accepts:
//
//     AxiStreamWord word = mac.receive_offer(cycle);   // drive tvalid/tdata/tkeep/tlast
//     ... evaluate the switch ...
//     if (word.valid && switch_tready) mac.receive_accept(cycle);
//
// A wire observer, if set, is told of each frame at its arrival and returns its RX timestamp:
// the switch's time of day in the clock of the frame's first bit on the wire, as a PTP MAC
// samples it. The model hands it in with the frame's first word (AxiStreamWord::stamp, the
// core's s_axis_rx_timestamp sideband).
//
// Every frame the switch took whole (its last word accepted) also goes to the receive sink, if
// one is set, with the time of the clock in which the switch accepted its first word: a record
// of what the port delivered into the switch, MAC drops excluded.
//
// Transmit side (switch output -> wire). tready is transmit_ready(cycle); every handshaked word
// goes to transmit_accept(cycle, word). The MAC takes a frame's first word when the wire is free,
// the rest either at one per clock (CPU ports) or, with `serializer_paced` (the Ethernet ports),
// as the board's RTL MAC takes them (rtl/mac/mac_tx.v: the second word in the next clock, word
// j >= 2 in the clock 8j after the first, as its serializer needs them), then stays not ready
// until the frame's wire time (from its first word's clock, LinkTiming) has passed, so the
// switch's output queue drains at line rate. The complete frame goes to the
// FrameSink with the time of its first word's clock, which is when its first bit goes on the
// wire (the start of the preamble on an Ethernet port).
//
// A cycle is the switch clock count since the simulation started; cycle c is at time
// c * clock_period. Calls must come with non-decreasing cycles. CPU ports use the same model
// with LinkTiming::cpu_port() (default 8 Gb/s: one word per clock, no preamble or gap).
//
// Misuse (accepting a word that was not offered, sending to a port that is not ready, cycles
// going back) throws std::logic_error: it is a bug in the integration, not a run-time condition.
// A malformed stream from the switch (tkeep not contiguous, not all ones before tlast, empty)
// is counted in transmit_protocol_errors and the first one is described by
// first_transmit_error(); the frame is still sent with the bytes tkeep selects.

#ifndef PKTSTATS_SIM_MAC_MODEL_H
#define PKTSTATS_SIM_MAC_MODEL_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "axi_stream_word.h"
#include "frame_sink.h"
#include "frame_source.h"
#include "clock_timebase.h"
#include "link_timing.h"
#include "wire_observer.h"

namespace pktstats_sim {

struct MacModelConfig {
	std::string name = "port";                // for messages and the summary, e.g. "mac0"
	LinkTiming link = LinkTiming::ethernet(); // rate and framing of the wire
	size_t receive_fifo_bytes = 16384;        // receive FIFO capacity, in frame bytes
	uint64_t clock_period_ps = 8000;          // the switch clock: 125 MHz
	// When set (not owned), cycle c is at timebase->edge_ps(c) instead of c * clock_period_ps:
	// the switch's own oscillator, with its frequency error, against the wire's true time.
	const ClockTimebase *timebase = nullptr;
	// Take a frame's words at the RTL MAC's pace (see above) instead of one per clock.
	bool serializer_paced = false;
};

struct MacCounters {
	// Receive side. Bytes are frame bytes as the wire carries them (padded, without FCS).
	uint64_t frames_received = 0; // frames that arrived whole from the wire
	uint64_t bytes_received = 0;
	uint64_t frames_dropped = 0; // arrived, but the receive FIFO had no room (MAC drops)
	uint64_t bytes_dropped = 0;
	uint64_t frames_to_switch = 0; // frames whose last word the switch accepted
	uint64_t bytes_to_switch = 0;
	// Transmit side.
	uint64_t frames_transmitted = 0; // frames taken from the switch and put on the wire
	uint64_t bytes_transmitted = 0;  // their bytes, padded
	uint64_t transmit_protocol_errors = 0;
};

class MacModel {
public:
	// Throws std::invalid_argument for a clock period of 0.
	explicit MacModel(const MacModelConfig &config);

	// The source feeding the receive side and the sink of the transmit side. Not owned; either
	// may be null (no input: the receive side stays idle; no output: frames are counted and
	// discarded).
	void set_frame_source(FrameSource *source) { source_ = source; }
	FrameSource *frame_source() const { return source_; }
	void set_frame_sink(FrameSink *sink) { sink_ = sink; }
	// Where the frames delivered into the switch go (not owned; null: nowhere).
	void set_receive_sink(FrameSink *sink) { receive_sink_ = sink; }
	// Told of every frame that crossed the wire, either way (not owned; null: nobody).
	void set_wire_observer(WireObserver *observer) { wire_observer_ = observer; }
	// Ends the input at `cycle` (the end of a run): no frame is taken from the source after
	// it. A frame whose first bit is on the wire by then arrives whole, as it would on a real
	// wire; one fetched ahead of its start (waiting for its time or for the wire) never starts.
	// Frames in the receive FIFO still go to the switch.
	void end_input(uint64_t cycle);

	// Receive side: advances the wire to the clock edge of `cycle`, then returns the word the
	// MAC presents to the switch in that cycle (valid = false when it has none). The word stays
	// the same until it is accepted. Throws std::runtime_error when the source fails (its
	// message names the port and the source).
	AxiStreamWord receive_offer(uint64_t cycle);
	// The switch took the word offered in `cycle` (tvalid and tready both high). At most one
	// word per cycle: a further receive_offer() in the same cycle returns valid = false. Throws
	// std::runtime_error when the receive sink fails.
	void receive_accept(uint64_t cycle);

	// Transmit side: tready in `cycle`.
	bool transmit_ready(uint64_t cycle);
	// A word handshaked in `cycle`; the frame goes to the sink at its tlast. Throws
	// std::runtime_error when the sink fails.
	void transmit_accept(uint64_t cycle, const AxiStreamWord &word);

	// True when the source (if any) has no more frames and every frame it gave has arrived
	// and been taken by the switch or dropped. Only known after a receive_offer() has found
	// the source empty.
	bool receive_exhausted() const;
	// True when no frame is on the receive wire (fetched and not yet arrived) or in the FIFO.
	bool receive_idle() const { return !frame_on_wire_ && receive_fifo_.empty(); }
	// The true time, in ps, of the next thing the receive side will do if its source gives it no
	// new frame before: the first bit of the frame it has fetched; 0 when it has a frame to
	// offer or has not yet asked its source since the last one; UINT64_MAX when its source is
	// exhausted, absent or live with nothing now (a live source is asked again every clock: a
	// TAP's frames come when the host sends them). The idle skip stops before this time.
	uint64_t receive_next_event_ps() const;
	// True when no frame is being taken from the switch and the wire is free at `cycle`.
	bool transmit_idle(uint64_t cycle) const;
	// The cycle at which the wire finishes the last frame sent (for "run until drained").
	uint64_t transmit_wire_free_cycle() const;

	const MacCounters &counters() const { return counters_; }
	const std::string &first_transmit_error() const { return first_transmit_error_; }
	const MacModelConfig &config() const { return config_; }
	// Bytes now in the receive FIFO.
	size_t receive_fifo_used_bytes() const { return receive_fifo_used_bytes_; }

private:
	struct ReceivedFrame {
		std::vector<uint8_t> bytes;
		size_t next_word = 0;          // index of the word offered next
		uint64_t first_word_cycle = 0; // when the switch took word 0
		WireStamp stamp;               // the RX timestamp of its first bit (wire observer)
	};

	void check_cycle(uint64_t cycle, const char *operation);
	// Called several times per port per clock: the plain clock stays a multiplication, inline;
	// a switch's own oscillator is the exception, out of line (inlining it cost the single
	// switch 5% of its speed).
	uint64_t cycle_time_ps(uint64_t cycle) const
	{
		if (__builtin_expect(config_.timebase != nullptr, 0))
			return oscillator_time_ps(cycle);
		return cycle * config_.clock_period_ps;
	}
	uint64_t oscillator_time_ps(uint64_t cycle) const;
	void advance_receive_wire(uint64_t time_ps);
	bool fetch_next_frame();
	void transmit_error(uint64_t cycle, const std::string &what);
	static AxiStreamWord word_of(const std::vector<uint8_t> &bytes, size_t word_index);

	MacModelConfig config_;
	FrameSource *source_ = nullptr;
	FrameSink *sink_ = nullptr;
	FrameSink *receive_sink_ = nullptr;
	WireObserver *wire_observer_ = nullptr;
	uint64_t last_cycle_ = 0;

	// Receive side.
	bool source_exhausted_ = false;
	bool frame_on_wire_ = false;        // `frame_on_wire_bytes_` has been fetched and scheduled
	std::vector<uint8_t> frame_on_wire_bytes_;
	uint64_t frame_on_wire_start_ps_ = 0;   // when its first bit goes on the wire
	uint64_t frame_on_wire_arrival_ps_ = 0; // when its last byte has arrived
	uint64_t frame_on_wire_end_ps_ = 0;     // when the wire is free again after it
	uint64_t receive_wire_free_ps_ = 0;
	std::deque<ReceivedFrame> receive_fifo_;
	size_t receive_fifo_used_bytes_ = 0;
	bool offered_valid_ = false; // receive_offer() returned a valid word in offered_cycle_
	uint64_t offered_cycle_ = 0;
	bool accepted_in_cycle_ = false; // receive_accept() happened in accepted_cycle_
	uint64_t accepted_cycle_ = 0;

	// Transmit side.
	bool transmit_in_frame_ = false;
	std::vector<uint8_t> transmit_frame_;
	uint64_t transmit_first_word_cycle_ = 0;
	uint64_t transmit_words_taken_ = 0; // of the frame in progress
	bool transmit_frame_has_error_ = false;
	uint64_t transmit_wire_free_ps_ = 0;
	bool transmit_accepted_once_ = false; // a word was accepted in last_transmit_cycle_
	uint64_t last_transmit_cycle_ = 0;

	MacCounters counters_;
	std::string first_transmit_error_;
};

} // namespace pktstats_sim

#endif
