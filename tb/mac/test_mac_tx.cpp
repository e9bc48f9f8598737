// SPDX-License-Identifier: BSD-3-Clause
//
// test_mac_tx: the transmit MAC (rtl/mac/mac_tx.v) and its RGMII output (rtl/mac/mac_rgmii_tx.v,
// the ODDRs from fpga/models/ODDR.v) joined as on the board (tb/mac/mac_tx_tb.v), seen on the
// RGMII pins. The harness steps the clocks a quarter period (2 ns) at a time: clk rises, clk90
// rises, clk falls, clk90 falls, so it sees both halves of every DDR pin. It reads a byte at
// each TXC period, the low nibble and TX_EN at TXC's rising edge, the high nibble and
// TX_EN XOR TX_ER at its falling edge, as a PHY does, and rebuilds the frames on the line.
//
// A source drives s_axis with frames (byte 0 in tdata[7:0], tkeep contiguous on the last word),
// with gaps before a frame's first word and between its words. Checked on every frame:
//   - 7 x 0x55 and the SFD 0xD5, then the frame padded with zeros to 60 bytes, then an FCS
//     equal to zlib's crc32 of those bytes, least significant byte first; no TX_ER;
//   - the latency: the first preamble byte on gmii_txd exactly 1 clock, on the RGMII pins
//     exactly 2 clocks, after the clock of the first word's handshake;
//   - at least 12 idle byte times between frames (and after reset);
//   - the same timing as the simulator: a shadow of sim/mac_model's MacModel (the simulator's
//     MAC) is offered each frame's first word in the clock the source offers it to the RTL;
//     the RTL must take it in the clock the MacModel does. Frames that follow each other
//     without a wait for the source start exactly LinkTiming::wire_byte_times(N) byte times
//     apart on the pins (8 + max(N, 60) + 4 + 12);
//   - the pins: TXC toggles every half period, the data and TX_CTL change only a quarter
//     period away from TXC's edges (centred);
//   - underruns (a word later than its deadline, injected on purpose): the bytes so far, then 4
//     FCS bytes all with TX_ER, an FCS that is wrong, one stat_underrun pulse, the rest of the
//     frame's words taken and dropped, the next frame clean; the deadline is exact: a word
//     7 clocks after tready rises is in time, 8 clocks is an underrun;
//   - reset in the middle of a frame: the line idle from the reset edge on (the fragment a
//     prefix of the frame, no counter pulse), the gap kept, the next frame clean;
//   - the counter pulses: stat_frame_sent count and stat_frame_bytes sum (padded bytes without
//     preamble and FCS, as MacModel's bytes_transmitted) equal the frames and bytes sent,
//     stat_underrun the underruns injected; for the clean runs also MacModel's own counters.
//
// Prints TAP; the randomized cases print their seed, `--seed N --only NAME` replays one.
// --no-model leaves out the MacModel comparison (it stops a run at its first difference, before
// the line checks; for mutation runs). MAC_TX_TRACE=1 in the environment prints every clock.

#include <zlib.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vmac_tx_tb.h"
#include "link_timing.h"
#include "mac_model.h"
#include "tap_runner.h"
#include "verilated.h"

using pktstats_sim::AxiStreamWord;
using pktstats_sim::LinkTiming;
using pktstats_sim::MacModel;
using pktstats_sim::MacModelConfig;

namespace {

// --no-model: leave out the comparison with the simulator's MacModel, which stops a run at the
// first first-word handshake in another clock; for mutation runs, to see the line checks fail
bool no_model = false;

const unsigned GMII_LATENCY = 1;  // clocks from the first word's handshake to gmii_tx_en
const unsigned RGMII_LATENCY = 2; // ... to the first preamble nibble on the RGMII pins
const unsigned IFG = 12;

// One frame the source sends, and what the harness expects of it
struct Frame {
	std::vector<uint8_t> bytes;
	unsigned first_gap = 0;        // clocks with tvalid low before its first word
	std::vector<unsigned> gaps;    // clocks with tvalid low before word j (j >= 1)
	int deadline_wait = -1;        // >= 0: word j >= 1 comes this many clocks after tready rose
	unsigned underrun_word = 0;    // > 0: a word that comes too late (underrun expected)
	// Filled in as it runs
	uint64_t offered = 0;          // the clock its first word was first offered
	uint64_t handshake = 0;        // the clock of its first word's handshake
	bool started = false;
	bool reset_cut = false;        // reset while it was being sent
	bool compare_timing = true;    // false after an underrun or a reset (no shadow history)
	bool mac_paced = false;        // offered before the MAC took it: the MAC set its time
	uint64_t after_reset = 0;      // the clock the last reset before it ended

	size_t words() const { return (bytes.size() + 7) / 8; }
};

// A frame as the RGMII pins carried it
struct LineFrame {
	uint64_t start = 0; // the clock of its first byte (TXC rising edge)
	std::vector<uint8_t> bytes;
	std::vector<bool> error;
	uint64_t end = 0; // the clock of its last byte
};

std::vector<uint8_t> padded(const std::vector<uint8_t> &bytes)
{
	std::vector<uint8_t> out = bytes;
	if (out.size() < 60)
		out.resize(60, 0);
	return out;
}

uint32_t fcs_of(const std::vector<uint8_t> &bytes, size_t n)
{
	return (uint32_t)crc32(0L, bytes.data(), (uInt)n);
}

std::string hex(unsigned value)
{
	char text[16];
	snprintf(text, sizeof text, "0x%02x", value);
	return text;
}

class Bench {
public:
	explicit Bench(uint64_t seed) : random_(seed), dut_(&context_)
	{
		dut_.clk = 0;
		dut_.clk90 = 0;
		dut_.rst = 1;
		dut_.s_axis_tvalid = 0;
		dut_.s_axis_tdata = 0;
		dut_.s_axis_tkeep = 0;
		dut_.s_axis_tlast = 0;
		dut_.eval();
		reset_shadow();
		for (int i = 0; i < 4; i++)
			tick();
		dut_.rst = 0;
		reset_end_ = cycle_;
	}

	std::mt19937_64 &random() { return random_; }

	void add(Frame frame) { pending_.push_back(std::move(frame)); }
	bool done() const { return pending_.empty() && !source_frame_; }
	uint64_t cycle() const { return cycle_; }

	// Runs until the source has sent everything and the line has been idle for a while.
	void drain()
	{
		uint64_t stuck = cycle_ + 100000 + 20000 * pending_.size();
		while (!done() && failures_.empty() && cycle_ < stuck)
			tick();
		if (!done())
			fail("the MAC did not take the source's frames");
		// and until the line has been idle for a while
		for (unsigned idle = 0, i = 0; idle < 64 && i < 100000; i++) {
			tick();
			idle = in_line_frame_ ? 0 : idle + 1;
		}
	}
	size_t queued() const { return pending_.size(); }

	// Asserts reset for `clocks` clocks now (the source drops its frame, as its own reset would)
	void reset(unsigned clocks)
	{
		if (source_frame_) {
			source_frame_->reset_cut = true;
			finished_.push_back(*source_frame_);
			source_frame_.reset();
		}
		dut_.rst = 1;
		reset_pending_ = true;
		for (unsigned i = 0; i < clocks; i++)
			tick();
		dut_.rst = 0;
		reset_end_ = cycle_;
		reset_pending_ = false;
		reset_shadow();
	}

	// True when the source is inside a frame at word >= 2, so a reset cuts it on the line
	// (not one with an underrun to come: one or the other)
	bool mid_frame() const
	{
		return source_frame_ && source_frame_->started && word_ >= 2 &&
		       source_frame_->underrun_word == 0;
	}

	void tick();
	std::string check();

	unsigned underruns_expected = 0;

private:
	void drive();
	void observe_phase(unsigned phase);
	void reset_shadow()
	{
		MacModelConfig config;
		config.name = "shadow";
		shadow_.reset(new MacModel(config));
		shadow_fresh_ = true;
		shadow_words_.clear();
		shadow_resets_++;
	}
	void fail(const std::string &why)
	{
		if (failures_.empty())
			failures_ = "clock " + std::to_string(cycle_) + ": " + why;
	}

	std::mt19937_64 random_;
	bool trace_ = getenv("MAC_TX_TRACE") != nullptr; // every clock on stdout, for debugging
	VerilatedContext context_;
	Vmac_tx_tb dut_;
	uint64_t cycle_ = 0;
	uint64_t reset_end_ = 0;
	bool reset_pending_ = false;
	std::string failures_;

	// Source
	std::deque<Frame> pending_;
	std::unique_ptr<Frame> source_frame_;
	size_t word_ = 0;          // the word offered next
	unsigned wait_ = 0;        // clocks of tvalid low still to go
	uint64_t not_before_ = 0;  // and the clock before which it stays low
	unsigned ready_clocks_ = 0; // deadline mode: clocks with tready high for this word
	bool offering_ = false;
	std::vector<Frame> finished_; // frames whose first word was taken (or cut by reset)

	// Shadow MacModel (the simulator's MAC): words of the frame it is being fed
	std::unique_ptr<MacModel> shadow_;
	bool shadow_fresh_ = true;
	std::deque<AxiStreamWord> shadow_words_;
	bool shadow_fed_current_ = false;
	unsigned shadow_resets_ = 0;

	// Pins
	unsigned last_txd_ = 0, last_ctl_ = 0, last_txc_ = 0;
	unsigned low_nibble_ = 0, ctl_rise_ = 0;
	bool have_rise_ = false;
	uint64_t rise_clock_ = 0;
	bool in_line_frame_ = false;
	LineFrame line_;
	std::vector<LineFrame> line_frames_;
	uint64_t last_idle_run_start_ = 0;
	std::vector<uint64_t> gmii_starts_;
	bool last_gmii_en_ = false;

	// Counters
	uint64_t stat_frames_ = 0, stat_bytes_ = 0, stat_underruns_ = 0;

};

AxiStreamWord word_of(const std::vector<uint8_t> &bytes, size_t index)
{
	AxiStreamWord word;
	word.valid = true;
	size_t first = index * 8;
	for (size_t i = 0; i < 8 && first + i < bytes.size(); i++) {
		word.data |= (uint64_t)bytes[first + i] << (8 * i);
		word.keep |= (uint8_t)(1u << i);
	}
	word.last = first + 8 >= bytes.size();
	return word;
}

// The source's inputs for this clock (tready depends on the MAC's registers only)
void Bench::drive()
{
	offering_ = false;
	dut_.s_axis_tvalid = 0;
	if (!source_frame_ && !pending_.empty() && !reset_pending_) {
		source_frame_.reset(new Frame(pending_.front()));
		pending_.pop_front();
		word_ = 0;
		wait_ = source_frame_->first_gap;
		ready_clocks_ = 0;
		shadow_fed_current_ = false;
	}
	if (!source_frame_ || reset_pending_)
		return;
	Frame &frame = *source_frame_;
	if (wait_ > 0) {
		wait_--;
		return;
	}
	if (cycle_ < not_before_)
		return;
	if (word_ >= 1 && frame.deadline_wait >= 0) {
		// Deadline mode: hold back until tready has been high deadline_wait clocks
		if (ready_clocks_ < (unsigned)frame.deadline_wait) {
			dut_.eval();
			if (dut_.s_axis_tready)
				ready_clocks_++;
			return;
		}
	}
	AxiStreamWord word = word_of(frame.bytes, word_);
	dut_.s_axis_tvalid = 1;
	dut_.s_axis_tdata = word.data;
	dut_.s_axis_tkeep = word.keep;
	dut_.s_axis_tlast = word.last;
	offering_ = true;
	if (word_ == 0 && frame.offered == 0)
		frame.offered = cycle_;
}

void Bench::tick()
{
	drive();
	dut_.eval();
	bool fire = offering_ && dut_.s_axis_tready && !dut_.rst;

	// The shadow MacModel sees the same first word in the same clock
	if (source_frame_ && offering_ && word_ == 0 && !shadow_fed_current_) {
		Frame &frame = *source_frame_;
		bool shadow_ready = shadow_->transmit_ready(cycle_);
		if (shadow_fresh_ ? fire : shadow_ready) {
			shadow_fed_current_ = true;
			frame.compare_timing = !shadow_fresh_;
			shadow_fresh_ = false;
			if (frame.underrun_word > 0) {
				reset_shadow(); // the RTL cuts it short: no history for the next one
			} else {
				for (size_t j = 0; j < frame.words(); j++)
					shadow_words_.push_back(word_of(frame.bytes, j));
			}
		}
		if (!shadow_fresh_ && shadow_ready != fire && !no_model)
			fail("first word of frame " + std::to_string(finished_.size()) + ": the RTL " +
			     (fire ? "took" : "did not take") + " it, the simulator's MacModel " +
			     (shadow_ready ? "would" : "would not"));
	}
	if (!shadow_words_.empty()) {
		shadow_->transmit_accept(cycle_, shadow_words_.front());
		shadow_words_.pop_front();
	}

	if (trace_)
		printf("# trace %" PRIu64 ": rst %u tvalid %u tready %u word %zu last %u | gmii en %u er %u %02x\n",
		       cycle_, dut_.rst, dut_.s_axis_tvalid, dut_.s_axis_tready, word_,
		       dut_.s_axis_tlast, dut_.gmii_tx_en, dut_.gmii_tx_er, dut_.gmii_txd);
	if (fire) {
		Frame &frame = *source_frame_;
		if (word_ == 0) {
			frame.handshake = cycle_;
			frame.started = true;
			frame.mac_paced = frame.offered < cycle_;
			frame.after_reset = reset_end_;
		}
		word_++;
		ready_clocks_ = 0;
		if (word_ >= frame.words()) {
			finished_.push_back(frame);
			source_frame_.reset();
		} else {
			wait_ = word_ < frame.gaps.size() ? frame.gaps[word_] : 0;
			// Word j's deadline is the clock in which the last byte of word j - 1 goes
			// into gmii_txd: 8j + 7 clocks after the first word's handshake
			if (frame.underrun_word == word_ && frame.deadline_wait < 0)
				not_before_ = frame.handshake + 8 * word_ + 8 + random_() % 4;
		}
	}

	// clk rises, clk90 rises, clk falls, clk90 falls
	dut_.clk = 1;
	dut_.eval();
	cycle_++;
	observe_phase(0);
	dut_.clk90 = 1;
	dut_.eval();
	observe_phase(1);
	dut_.clk = 0;
	dut_.eval();
	observe_phase(2);
	dut_.clk90 = 0;
	dut_.eval();
	observe_phase(3);
}

void Bench::observe_phase(unsigned phase)
{
	unsigned txd = dut_.rgmii_txd, ctl = dut_.rgmii_tx_ctl, txc = dut_.rgmii_txc;
	if (phase == 0) {
		// Registered outputs of mac_tx, one clock after the edge
		if (dut_.gmii_tx_en && !last_gmii_en_)
			gmii_starts_.push_back(cycle_);
		last_gmii_en_ = dut_.gmii_tx_en;
		if (dut_.stat_frame_sent) {
			stat_frames_++;
			stat_bytes_ += dut_.stat_frame_bytes;
		} else if (dut_.stat_frame_bytes != 0) {
			fail("stat_frame_bytes " + std::to_string(dut_.stat_frame_bytes) +
			     " without stat_frame_sent");
		}
		stat_underruns_ += dut_.stat_underrun;
	}
	// TXC: high from the quarter after clk rises (phase 1) to the quarter after it falls
	unsigned expected_txc = phase == 1 || phase == 2;
	if (txc != expected_txc)
		fail("rgmii_txc is " + std::to_string(txc) + " in quarter " + std::to_string(phase));
	// Centred: the data and TX_CTL change only with clk's edges, never at TXC's
	if ((phase == 1 || phase == 3) && (txd != last_txd_ || ctl != last_ctl_))
		fail("rgmii_txd/tx_ctl change at an edge of rgmii_txc");
	if (txc && !last_txc_) {
		low_nibble_ = txd;
		ctl_rise_ = ctl;
		have_rise_ = true;
		rise_clock_ = cycle_;
	} else if (!txc && last_txc_ && have_rise_) {
		unsigned byte = low_nibble_ | txd << 4;
		bool en = ctl_rise_, er = ctl_rise_ ^ ctl;
		if (en) {
			if (!in_line_frame_) {
				in_line_frame_ = true;
				line_ = LineFrame();
				line_.start = rise_clock_;
			}
			line_.bytes.push_back((uint8_t)byte);
			line_.error.push_back(er);
			line_.end = rise_clock_;
		} else {
			if (er)
				fail("TX_ER without TX_EN (carrier extension is not sent at 1 Gb/s full duplex)");
			if (in_line_frame_) {
				in_line_frame_ = false;
				line_frames_.push_back(line_);
			}
		}
	}
	last_txd_ = txd;
	last_ctl_ = ctl;
	last_txc_ = txc;
}

// Everything sent against everything on the line
std::string Bench::check()
{
	if (trace_) {
		for (size_t k = 0; k < finished_.size(); k++)
			printf("# sent %zu: %zu bytes, handshake %" PRIu64 ", underrun word %u%s\n", k,
			       finished_[k].bytes.size(), finished_[k].handshake,
			       finished_[k].underrun_word, finished_[k].reset_cut ? ", cut by reset" : "");
		for (size_t k = 0; k < line_frames_.size(); k++)
			printf("# line %zu: %zu bytes, %" PRIu64 "..%" PRIu64 "\n", k,
			       line_frames_[k].bytes.size(), line_frames_[k].start, line_frames_[k].end);
	}
	if (!failures_.empty())
		return failures_;
	if (in_line_frame_)
		return "the line is still in a frame at the end";
	if (line_frames_.size() != finished_.size())
		return std::to_string(finished_.size()) + " frames taken, " +
		       std::to_string(line_frames_.size()) + " on the line";
	if (gmii_starts_.size() != finished_.size())
		return std::to_string(gmii_starts_.size()) + " gmii_tx_en starts for " +
		       std::to_string(finished_.size()) + " frames";
	LinkTiming link = LinkTiming::ethernet();
	uint64_t frames = 0, bytes = 0, underruns = 0, paced = 0, compared = 0, cut = 0;
	for (size_t k = 0; k < finished_.size(); k++) {
		const Frame &f = finished_[k];
		const LineFrame &l = line_frames_[k];
		std::string name = "frame " + std::to_string(k) + " (" + std::to_string(f.bytes.size()) +
				   " bytes): ";
		// Latency
		if (gmii_starts_[k] != f.handshake + GMII_LATENCY)
			return name + "on gmii " + std::to_string(gmii_starts_[k] - f.handshake) +
			       " clocks after its first word's handshake, not " + std::to_string(GMII_LATENCY);
		if (l.start != f.handshake + RGMII_LATENCY)
			return name + "on the pins " + std::to_string(l.start - f.handshake) +
			       " clocks after its first word's handshake, not " + std::to_string(RGMII_LATENCY);
		// Gap before it (from the previous frame, or from the end of reset)
		uint64_t previous_end = k > 0 ? line_frames_[k - 1].end : 0;
		if (k > 0 && l.start - previous_end - 1 < IFG)
			return name + "gap of " + std::to_string(l.start - previous_end - 1) + " byte times";
		if (f.handshake < f.after_reset + IFG)
			return name + "taken " + std::to_string(f.handshake - f.after_reset) +
			       " clocks after the end of reset (the gap is 12)";
		// Line rate: a frame that did not wait for the source starts exactly the previous
		// frame's wire time after it
		compared += f.compare_timing;
		if (k > 0 && f.compare_timing && f.mac_paced) {
			paced++;
			const Frame &p = finished_[k - 1];
			uint64_t expected = link.wire_byte_times(p.bytes.size());
			uint64_t ps = link.picoseconds_for_byte_times(expected);
			if (l.start - line_frames_[k - 1].start != expected || ps != expected * 8000)
				return name + "starts " + std::to_string(l.start - line_frames_[k - 1].start) +
				       " byte times after the previous one, LinkTiming says " +
				       std::to_string(expected);
		}
		// Preamble and SFD
		for (size_t i = 0; i < 8 && i < l.bytes.size(); i++)
			if (l.bytes[i] != (i < 7 ? 0x55 : 0xd5))
				return name + "preamble byte " + std::to_string(i) + " is " + hex(l.bytes[i]);
		if (l.bytes.size() < 8 && !f.reset_cut)
			return name + "only " + std::to_string(l.bytes.size()) + " bytes on the line";
		std::vector<uint8_t> body(l.bytes.begin() + std::min<size_t>(8, l.bytes.size()),
					  l.bytes.end());
		std::vector<uint8_t> want = padded(f.bytes);
		if (f.reset_cut) {
			// A prefix of the preamble and frame (the reset may come during the preamble: the
			// second word is taken at once), no errors, and no counter for it
			for (size_t i = 0; i < body.size(); i++)
				if (i >= want.size() + 4 || (i < want.size() && body[i] != want[i]))
					return name + "(cut by reset) byte " + std::to_string(i) +
					       " is not the frame's";
			for (bool e : l.error)
				if (e)
					return name + "(cut by reset) TX_ER on the line";
			cut++;
			continue;
		}
		if (f.underrun_word > 0) {
			size_t sent = 8 * f.underrun_word;
			if (body.size() != sent + 4)
				return name + "underrun at word " + std::to_string(f.underrun_word) + ": " +
				       std::to_string(body.size()) + " bytes after the SFD, expected " +
				       std::to_string(sent) + " + 4";
			for (size_t i = 0; i < sent; i++)
				if (body[i] != f.bytes[i])
					return name + "underrun: byte " + std::to_string(i) + " is " + hex(body[i]);
			for (size_t i = 0; i < l.error.size(); i++)
				if (l.error[i] != (i >= 8 + sent))
					return name + "underrun: TX_ER " + (l.error[i] ? "on" : "off") +
					       " at byte " + std::to_string(i) + " (expected on the 4 FCS bytes only)";
			uint32_t good = fcs_of(body, sent);
			uint32_t got = body[sent] | body[sent + 1] << 8 | body[sent + 2] << 16 |
				       (uint32_t)body[sent + 3] << 24;
			if (got == good)
				return name + "underrun: the FCS is right";
			underruns++;
			continue;
		}
		if (body.size() != want.size() + 4)
			return name + std::to_string(body.size()) + " bytes after the SFD, expected " +
			       std::to_string(want.size()) + " + 4";
		for (size_t i = 0; i < want.size(); i++)
			if (body[i] != want[i])
				return name + "byte " + std::to_string(i) + " is " + hex(body[i]) + ", sent " +
				       hex(want[i]);
		uint32_t fcs = fcs_of(want, want.size());
		for (unsigned i = 0; i < 4; i++)
			if (body[want.size() + i] != (uint8_t)(fcs >> (8 * i)))
				return name + "FCS byte " + std::to_string(i) + " is " +
				       hex(body[want.size() + i]) + ", zlib crc32 " + hex((fcs >> (8 * i)) & 0xff);
		for (bool e : l.error)
			if (e)
				return name + "TX_ER in a good frame";
		frames++;
		bytes += want.size();
	}
	if (stat_frames_ != frames || stat_bytes_ != bytes)
		return "counter pulses: " + std::to_string(stat_frames_) + " frames, " +
		       std::to_string(stat_bytes_) + " bytes; sent " + std::to_string(frames) + ", " +
		       std::to_string(bytes);
	printf("# %" PRIu64 " frames sent whole, %" PRIu64 " underruns, %" PRIu64
	       " cut by reset; %" PRIu64 " first words in the MacModel's clock, %" PRIu64
	       " starts at line rate after the previous one\n",
	       frames, underruns, cut, compared, paced);
	// The simulator's MAC, fed the same frames from the first on, counted the same (only
	// without underruns and resets: it knows neither)
	if (!no_model && shadow_resets_ == 1 && (shadow_->counters().frames_transmitted != stat_frames_ ||
				    shadow_->counters().bytes_transmitted != stat_bytes_))
		return "counter pulses: " + std::to_string(stat_frames_) + " frames, " +
		       std::to_string(stat_bytes_) + " bytes; MacModel counted " +
		       std::to_string(shadow_->counters().frames_transmitted) + ", " +
		       std::to_string(shadow_->counters().bytes_transmitted);
	if (stat_underruns_ != underruns || underruns != underruns_expected)
		return "stat_underrun pulsed " + std::to_string(stat_underruns_) + " times, " +
		       std::to_string(underruns) + " underruns on the line, " +
		       std::to_string(underruns_expected) + " injected";
	return "";
}

std::vector<uint8_t> random_bytes(std::mt19937_64 &random, size_t n)
{
	std::vector<uint8_t> bytes(n);
	for (uint8_t &b : bytes)
		b = (uint8_t)random();
	return bytes;
}

size_t random_size(std::mt19937_64 &random)
{
	switch (random() % 4) {
	case 0:
		return 1 + random() % 70; // runts and the smallest
	case 1:
		return 60 + random() % 20;
	case 2:
		return 1500 + random() % 15;
	default:
		return 1 + random() % 1514;
	}
}

// Every size from 1 to 140, and the big ones, back to back
tap::Result test_sizes()
{
	Bench bench(1);
	std::vector<size_t> sizes;
	for (size_t n = 1; n <= 140; n++)
		sizes.push_back(n);
	for (size_t n : {511, 512, 513, 1513, 1514, 1518, 9000})
		sizes.push_back(n);
	for (size_t n : sizes) {
		Frame f;
		f.bytes = random_bytes(bench.random(), n);
		bench.add(f);
	}
	bench.drain();
	return bench.check();
}

// The deadline of a word: 7 clocks after tready rises is in time, 8 is an underrun (at the
// third word: the second has 15 clocks); each late frame is followed by a clean one.
tap::Result test_deadline()
{
	Bench bench(2);
	for (size_t n : {17, 24, 25, 60, 64, 100, 1514}) {
		Frame in_time;
		in_time.bytes = random_bytes(bench.random(), n);
		in_time.deadline_wait = 7;
		bench.add(in_time);
		Frame late;
		late.bytes = random_bytes(bench.random(), n);
		late.deadline_wait = 8;
		late.underrun_word = 2;
		bench.add(late);
		bench.underruns_expected++;
		Frame clean;
		clean.bytes = random_bytes(bench.random(), 60 + n % 7);
		bench.add(clean);
	}
	// Frames of 2 words or less never wait for a third
	for (size_t n : {1, 8, 9, 16}) {
		Frame f;
		f.bytes = random_bytes(bench.random(), n);
		f.deadline_wait = 14; // the second word's deadline: 14 clocks after tready rises
		bench.add(f);
	}
	bench.drain();
	return bench.check();
}

// Random sizes, random gaps before frames (often none) and between words (never late);
// with `faults`, injected underruns and resets in the middle of frames too.
tap::Result run_random(uint64_t seed, uint64_t cycles, bool faults)
{
	Bench bench(seed);
	std::mt19937_64 &random = bench.random();
	uint64_t resets = 0;
	while (bench.cycle() < cycles) {
		// Keep a few frames queued at the source
		while (bench.queued() < 3) {
			Frame f;
			f.bytes = random_bytes(random, random_size(random));
			unsigned burst = random() % 8;
			f.first_gap = burst < 4 ? 0 : burst < 6 ? random() % 20 : random() % 3000;
			bool gappy = random() % 2;
			for (size_t j = 0; j < f.words(); j++)
				f.gaps.push_back(gappy && random() % 3 == 0 ? random() % 8 : 0);
			if (faults && f.words() >= 2 && random() % 10 == 0) {
				f.underrun_word = 1 + random() % (f.words() - 1);
				bench.underruns_expected++;
			}
			bench.add(f);
		}
		bench.tick();
		if (faults && bench.mid_frame() && random() % 3000 == 0) {
			bench.reset(1 + random() % 4);
			resets++;
		}
	}
	bench.drain();
	printf("# %s: %" PRIu64 " clocks, %" PRIu64 " underruns, %" PRIu64 " resets\n",
	       faults ? "random_faults" : "random", bench.cycle(), (uint64_t)bench.underruns_expected,
	       resets);
	return bench.check();
}

} // namespace

int main(int argc, char **argv)
{
	tap::Options options = tap::parse(argc, argv, 300000, {{"--no-model", &no_model}});
	std::vector<tap::Test> tests = {{"sizes", test_sizes}, {"deadline", test_deadline}};
	for (uint64_t seed : tap::seeds(options, {1, 2}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles,
					    [](uint64_t s, uint64_t c) { return run_random(s, c, false); }));
	for (uint64_t seed : tap::seeds(options, {3, 4}))
		tests.push_back(tap::seeded(options, "random_faults", seed, options.cycles,
					    [](uint64_t s, uint64_t c) { return run_random(s, c, true); }));
	return tap::run(tests, options);
}
