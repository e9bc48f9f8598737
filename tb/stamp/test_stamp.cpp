// SPDX-License-Identifier: BSD-3-Clause
//
// test_stamp: the wire timestamps of the MAC ports (docs/timestamps.md) on the whole design
// (pktstats_core), operated through its register bus and its ports, under load: all 8 ports
// send to stations on every port (and flood), the MAC outputs drain at random rates behind
// small queue limits, so queues fill and drop; stat packets leave on MAC port 0 and port 7.
// The corrections are random per run (set through the stamp registers, most nonzero, some
// large enough to carry or borrow a second), and the time of day is set near the 2^32-second
// wrap of the stamps' seconds and stepped back in the middle of the run.
//
// Checks, for every frame that leaves a MAC port (ports 0..3):
// - TX stamp = the time of day (pktstats_core's tod_* outputs) in the clock in which the
//   harness accepted the frame's first word, plus the port's TX correction;
// - its RX stamp is valid exactly when it came from a MAC port, and then equals, plus that
//   port's RX correction (frames are matched by content: each carries a unique tag):
//   - for about two thirds of the frames of the MAC ports, the stamp their MAC handed in on
//     s_axis_rx_timestamp with the first word (the time of day when the frame was queued at
//     the input, as a MAC stamps its first bit before its receive FIFO), garbage in the slices
//     whose valid bit is 0;
//   - for the others (valid 0, the fallback), the time of day in the clock its first word was
//     accepted at its input;
//   stat packets carry none;
// - the residence time equals TX minus RX as docs/timestamps.md defines it (saturating);
// - the stamp block's registers: last RX, last TX and last residence of each MAC port.
// Prints TAP; `--seed N` replays.

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "Vpktstats_core.h"
#include "axil_master.h"
#include "core_streams.h"
#include "tap_runner.h"
#include "wide_bits.h"
#include "verilated.h"

extern "C" {
#include "pktstats/decode.h"
#include "pktstats/regs.h"
}

namespace {

using Frame = std::vector<uint8_t>;

const int64_t BILLION = 1000000000;

struct Stamp {
	uint32_t seconds = 0;
	uint32_t nanoseconds = 0;
	bool operator==(const Stamp &o) const { return seconds == o.seconds && nanoseconds == o.nanoseconds; }
	bool operator!=(const Stamp &o) const { return !(*this == o); }
	std::string str() const
	{
		char text[40];
		snprintf(text, sizeof text, "%u.%09u", seconds, nanoseconds);
		return text;
	}
};

// A time of day (seconds modulo 2^32) plus a signed correction of less than 1 s.
Stamp corrected(Stamp t, int64_t correction)
{
	int64_t ns = (int64_t)t.nanoseconds + correction;
	uint32_t s = t.seconds;
	if (ns < 0) {
		ns += BILLION;
		s--;
	} else if (ns >= BILLION) {
		ns -= BILLION;
		s++;
	}
	return {s, (uint32_t)ns};
}

// Residence time as the hardware defines it: exact while the seconds differ by -1, 0 or 1,
// saturating otherwise.
int32_t residence_of(Stamp tx, Stamp rx)
{
	int32_t seconds = (int32_t)(tx.seconds - rx.seconds);
	int64_t ns = (int64_t)tx.nanoseconds - (int64_t)rx.nanoseconds;
	if (seconds >= -1 && seconds <= 1)
		return (int32_t)(ns + seconds * BILLION);
	return seconds < 0 ? INT32_MIN : INT32_MAX;
}

Stamp stamp_bits(const VlWide<8> &w, unsigned port)
{
	return {(uint32_t)get_bits(w, 62 * port + 30, 32), (uint32_t)get_bits(w, 62 * port, 30)};
}

void set_stamp_bits(VlWide<8> &w, unsigned port, Stamp stamp)
{
	set_bits(w, 62 * port, 62, (uint64_t)stamp.seconds << 30 | (stamp.nanoseconds & 0x3fffffffu));
}

uint8_t station(unsigned port) { return (uint8_t)(0x30 + port); }

Frame make_frame(unsigned source_port, int destination_port, size_t length, uint32_t tag)
{
	Frame frame(length);
	const uint8_t broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	const uint8_t destination[6] = {0x02, 0x00, 0x00, 0x00, 0x00, station((unsigned)destination_port & 7)};
	memcpy(frame.data(), destination_port < 0 ? broadcast : destination, 6);
	const uint8_t source[6] = {0x02, 0x00, 0x00, 0x00, 0x00, station(source_port)};
	memcpy(frame.data() + 6, source, 6);
	frame[12] = 0x88; // local experimental EtherType
	frame[13] = 0xb5;
	for (size_t i = 14; i < length; i++)
		frame[i] = (uint8_t)(i * 13 + tag);
	memcpy(frame.data() + 14, &tag, 4);
	return frame;
}

uint32_t tag_of(const Frame &frame)
{
	uint32_t tag = 0;
	if (frame.size() >= 18)
		memcpy(&tag, frame.data() + 14, 4);
	return tag;
}

bool is_stat_packet(const Frame &frame)
{
	return frame.size() >= 42 && frame[12] == 0x08 && frame[13] == 0x00 && frame[23] == 17 &&
	       (frame[36] << 8 | frame[37]) == PKTSTATS_UDP_PORT;
}

// What the sideband said at a frame's first word, and what it should have said.
struct OutStamp {
	bool rx_valid = false;
	Stamp rx, tx, tx_expected;
	int32_t residence = 0;
};

struct Harness {
	VerilatedContext context;
	Vpktstats_core dut{&context};
	axil::Master<Vpktstats_core> bus{dut, 0xffff};

	std::deque<Frame> input[8];
	size_t input_word[8] = {};
	Frame current_out[8];
	uint8_t ready_pattern[8];
	uint64_t cycle = 0;

	int64_t rx_correction[4] = {}, tx_correction[4] = {};

	// RX truth of each tag sent from a MAC port; the tags sent from CPU ports
	std::map<uint32_t, Stamp> rx_truth;
	// The MAC's RX stamp of a tag (s_axis_rx_timestamp), for the frames that have one
	std::map<uint32_t, Stamp> mac_stamp;
	uint64_t sideband_frames = 0, fallback_frames = 0;
	std::mt19937 garbage{7};
	std::map<uint32_t, uint64_t> rx_cycle;
	// Clocks in which the time of day did not advance by 8 ns (set, step)
	std::vector<uint64_t> jumps;
	Stamp previous_tod;
	uint64_t tx_cycle[4] = {};
	std::set<uint32_t> cpu_tags;
	Stamp last_rx[4];
	bool out_in_frame[4] = {};
	OutStamp pending[4];
	Stamp last_tx[4];
	int32_t last_residence[4] = {};
	bool have_residence[4] = {};

	// Results
	uint64_t frames_checked = 0, stat_packets = 0, cpu_frames = 0, mac_frames = 0;
	uint64_t tx_wrong = 0, rx_wrong = 0, residence_wrong = 0, valid_wrong = 0, unknown = 0;
	uint64_t crossing_step = 0, negative_residence = 0, saturated = 0;
	std::string first_tx_error, first_rx_error, first_residence_error, first_valid_error;

	Harness()
	{
		for (unsigned p = 0; p < 8; p++)
			ready_pattern[p] = 0xff;
		bus.on_cycle = [this]() { after_edge(); };
		drive();
		bus.reset();
	}

	Stamp tod() const
	{
		return {(uint32_t)(dut.tod_seconds & 0xffffffffu), (uint32_t)dut.tod_nanoseconds};
	}

	void drive()
	{
		drive_core_streams(dut, input, input_word, ready_pattern, cycle);
		uint8_t stamp_valid = 0;
		for (unsigned p = 0; p < 4; p++) {
			auto found = input[p].empty() || input_word[p] != 0 ? mac_stamp.end()
									   : mac_stamp.find(tag_of(input[p].front()));
			if (found != mac_stamp.end()) {
				set_stamp_bits(dut.s_axis_rx_timestamp, p, found->second);
				stamp_valid |= (uint8_t)(1u << p);
			} else {
				set_stamp_bits(dut.s_axis_rx_timestamp, p, {(uint32_t)garbage(), (uint32_t)garbage()});
			}
		}
		dut.s_axis_rx_timestamp_valid = stamp_valid;
	}

	void finish_frame(unsigned q, const Frame &frame)
	{
		const OutStamp &s = pending[q];
		frames_checked++;
		std::string where = "port " + std::to_string(q) + " frame " + std::to_string(frames_checked);
		if (s.tx != s.tx_expected) {
			if (!tx_wrong++)
				first_tx_error = where + ": TX " + s.tx.str() + ", expected " + s.tx_expected.str();
		}
		bool expect_rx = false;
		Stamp rx_expected;
		if (is_stat_packet(frame)) {
			stat_packets++;
		} else {
			uint32_t tag = tag_of(frame);
			auto found = rx_truth.find(tag);
			if (found != rx_truth.end()) {
				expect_rx = true;
				rx_expected = found->second;
				mac_frames++;
			} else if (cpu_tags.count(tag)) {
				cpu_frames++;
			} else {
				unknown++;
			}
		}
		if (s.rx_valid != expect_rx) {
			if (!valid_wrong++)
				first_valid_error = where + ": RX valid " + std::to_string(s.rx_valid) + ", expected " +
						    std::to_string(expect_rx) + (is_stat_packet(frame) ? " (stat packet)" : "");
			return;
		}
		if (!expect_rx) {
			if (s.residence != 0 && !residence_wrong++)
				first_residence_error = where + ": residence " + std::to_string(s.residence) + " without RX stamp";
			return;
		}
		if (s.rx != rx_expected && !rx_wrong++)
			first_rx_error = where + ": RX " + s.rx.str() + ", expected " + rx_expected.str();
		int32_t expected = residence_of(s.tx_expected, rx_expected);
		if (s.residence != expected && !residence_wrong++)
			first_residence_error = where + ": residence " + std::to_string(s.residence) + ", expected " +
						std::to_string(expected);
		if (expected < 0)
			negative_residence++;
		if (expected == INT32_MAX || expected == INT32_MIN)
			saturated++;
		uint64_t from = rx_cycle[tag_of(frame)], to = tx_cycle[q];
		for (uint64_t jump : jumps)
			if (from < jump && jump <= to) {
				crossing_step++;
				break;
			}
	}

	// Called right after each rising edge: the handshakes of the clock that ended, then the
	// next clock's inputs.
	void after_edge()
	{
		for (unsigned p = 0; p < 8; p++) {
			if ((seen.in_handshake >> p) & 1) {
				input_word[p]++;
				if (8 * input_word[p] >= input[p].front().size()) {
					input[p].pop_front();
					input_word[p] = 0;
				}
			}
			if ((seen.out_handshake >> p) & 1) {
				for (unsigned i = 0; i < 8; i++)
					if ((seen.out_keep[p] >> i) & 1)
						current_out[p].push_back((uint8_t)(seen.out_data[p] >> (8 * i)));
				bool last = (seen.out_last >> p) & 1;
				if (p < 4)
					out_in_frame[p] = !last;
				if (last) {
					if (p < 4)
						finish_frame(p, current_out[p]);
					current_out[p].clear();
				}
			}
		}
		cycle++;
		drive();
		dut.eval();
		sample();
	}

	CoreStreamSample seen; // this clock's handshakes, for the coming edge

	// The settled values of this clock: its handshakes and the time of day in it.
	void sample()
	{
		seen.take(dut);
		Stamp now = tod();
		if (cycle > 0 && now != corrected(previous_tod, 8))
			jumps.push_back(cycle);
		previous_tod = now;
		for (unsigned p = 0; p < 8; p++) {
			if (!((seen.in_handshake >> p) & 1) || input_word[p] != 0)
				continue;
			uint32_t tag = tag_of(input[p].front());
			if (p < 4) {
				auto given = mac_stamp.find(tag);
				if (given != mac_stamp.end())
					sideband_frames++;
				else
					fallback_frames++;
				rx_truth[tag] = corrected(given != mac_stamp.end() ? given->second : now, rx_correction[p]);
				rx_cycle[tag] = cycle;
				last_rx[p] = rx_truth[tag];
			} else {
				cpu_tags.insert(tag);
			}
		}
		for (unsigned q = 0; q < 4; q++) {
			if (!((seen.out_handshake >> q) & 1) || out_in_frame[q])
				continue;
			OutStamp &s = pending[q];
			s.rx_valid = (dut.m_axis_rx_timestamp_valid >> q) & 1;
			s.rx = stamp_bits(dut.m_axis_rx_timestamp, q);
			s.tx = stamp_bits(dut.m_axis_tx_timestamp, q);
			s.tx_expected = corrected(now, tx_correction[q]);
			s.residence = (int32_t)(uint32_t)get_bits(dut.m_axis_residence_time, 32 * q, 32);
			last_tx[q] = s.tx_expected;
			tx_cycle[q] = cycle;
			if (s.rx_valid) {
				last_residence[q] = s.residence;
				have_residence[q] = true;
			}
		}
	}

	uint32_t read(uint32_t address) { return bus.read(address).data; }
	void write(uint32_t address, uint32_t value) { bus.write(address, value); }
	uint64_t read64(uint32_t address) { return bus.read64(address); }
	bool idle()
	{
		for (unsigned p = 0; p < 8; p++)
			if (!input[p].empty() || !current_out[p].empty())
				return false;
		return true;
	}
};

int64_t random_correction(std::mt19937_64 &random)
{
	switch (random() % 8) {
	case 0:
		return 0;
	case 1: // large: carries or borrows a second often
		return (int64_t)(random() % (1u << 30)) - (1 << 29);
	case 2:
		return -(1 << 29);
	default: // PHY-like: a few hundred ns either way
		return (int64_t)(random() % 4001) - 2000;
	}
}

} // namespace

int main(int argc, char **argv)
{
	uint64_t seed = tap::seed_option(argc, argv);
	tap::Tally report;
	std::mt19937_64 random(seed);

	Harness h;
	report(h.read(PKTSTATS_STAMP_TYPE) == PKTSTATS_STAMP_TYPE_VALUE, "the stamp block answers");

	// Corrections, through the registers.
	bool readback = true;
	bool nonzero = false;
	for (unsigned p = 0; p < 4; p++) {
		h.rx_correction[p] = random_correction(random);
		h.tx_correction[p] = random_correction(random);
		nonzero |= h.rx_correction[p] != 0 || h.tx_correction[p] != 0;
	}
	if (!nonzero)
		h.tx_correction[0] = 8;
	for (unsigned p = 0; p < 4; p++) {
		h.write(PKTSTATS_STAMP_RX_CORRECTION_0 + 4 * p, (uint32_t)h.rx_correction[p] & 0x3fffffffu);
		h.write(PKTSTATS_STAMP_TX_CORRECTION_0 + 4 * p, (uint32_t)h.tx_correction[p] & 0x3fffffffu);
		readback &= h.read(PKTSTATS_STAMP_RX_CORRECTION_0 + 4 * p) == ((uint32_t)h.rx_correction[p] & 0x3fffffffu);
		readback &= h.read(PKTSTATS_STAMP_TX_CORRECTION_0 + 4 * p) == ((uint32_t)h.tx_correction[p] & 0x3fffffffu);
	}
	printf("# corrections (ns) rx %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 ", tx %" PRId64 " %" PRId64
	       " %" PRId64 " %" PRId64 "\n",
	       h.rx_correction[0], h.rx_correction[1], h.rx_correction[2], h.rx_correction[3], h.tx_correction[0],
	       h.tx_correction[1], h.tx_correction[2], h.tx_correction[3]);
	report(readback, "corrections written and read back through the stamp registers");

	// The time of day: just below the 2^32 s wrap of the stamps' seconds.
	uint64_t start_seconds = 0xffffffffull + (random() % 3);
	uint32_t start_ns = (uint32_t)(BILLION - 200000 - random() % 100000);
	h.write(PKTSTATS_TIME_SET_SECONDS, (uint32_t)start_seconds);
	h.write(PKTSTATS_TIME_SET_SECONDS + 4, (uint32_t)(start_seconds >> 32));
	h.write(PKTSTATS_TIME_SET_NANOSECONDS, start_ns);
	h.write(PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_SET_MASK);

	// Queue limits small enough to drop; stat packets out of MAC port 0 and CPU port 7.
	for (unsigned q = 0; q < 8; q++)
		h.write(PKTSTATS_SWITCH_QUEUE_LIMIT_0 + 4 * q, 100 + (uint32_t)(random() % 300));
	h.write(PKTSTATS_EVCAP_OUTPUT_PORTS, 0x81);
	h.write(PKTSTATS_EVCAP_FLUSH_TIMEOUT, 3000);
	h.write(PKTSTATS_EVCAP_CONTROL, PKTSTATS_EVCAP_CONTROL_ENABLE_MASK);

	// Every station speaks first, so the switch learns where they are.
	uint32_t tag = 1;
	for (unsigned p = 0; p < 8; p++)
		h.input[p].push_back(make_frame(p, -1, 60, tag++));
	for (int i = 0; i < 600; i++)
		h.bus.tick();

	// Load: every port sends; the MAC outputs drain at random rates.
	for (unsigned p = 0; p < 4; p++)
		h.ready_pattern[p] = (uint8_t)(random() | 1);
	const uint64_t cycles = 400000;
	bool stepped = false, set_again = false;
	size_t jumps_before = h.jumps.size();
	uint8_t patterns[4];
	for (unsigned p = 0; p < 4; p++)
		patterns[p] = h.ready_pattern[p];
	for (uint64_t t = 0; t < cycles; t++) {
		// The MAC outputs stall before each step or set, so that frames are queued across it
		bool stall = (t >= cycles / 3 - 3000 && t < cycles / 3) || (t >= 2 * cycles / 3 - 3000 && t < 2 * cycles / 3);
		for (unsigned p = 0; p < 4; p++)
			h.ready_pattern[p] = stall ? 0 : patterns[p];
		for (unsigned p = 0; p < 8; p++)
			if (h.input[p].size() < 2 && random() % 40 == 0) {
				int destination = random() % 10 == 0 ? -1 : (int)(random() % 8);
				if (destination == (int)p)
					destination = (int)((p + 1 + random() % 7) % 8);
				size_t length = random() % 3 == 0 ? 60 : 60 + random() % 1455;
				if (p < 4 && random() % 3 != 0)
					h.mac_stamp[tag] = h.tod();
				h.input[p].push_back(make_frame(p, destination, length, tag++));
			}
		if (!stepped && t == cycles / 3) {
			// Step back by 1.000 01 s (-2 s + 999 990 000 ns), frames in flight
			h.write(PKTSTATS_TIME_STEP_SECONDS, 0xfffffffeu);
			h.write(PKTSTATS_TIME_STEP_SECONDS + 4, 0xffffu);
			h.write(PKTSTATS_TIME_STEP_NANOSECONDS, 999990000u);
			h.write(PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_STEP_MASK);
			stepped = true;
		}
		if (!set_again && t == 2 * cycles / 3) {
			// Set far ahead: residence saturates for the frames in flight
			h.write(PKTSTATS_TIME_SET_SECONDS, 1700000000u);
			h.write(PKTSTATS_TIME_SET_SECONDS + 4, 0);
			h.write(PKTSTATS_TIME_SET_NANOSECONDS, 999999000u);
			h.write(PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_SET_MASK);
			set_again = true;
		}
		h.bus.tick();
	}
	size_t jumps = h.jumps.size() - jumps_before;
	// Drain: the outputs take everything, the last stat packets are flushed.
	for (unsigned p = 0; p < 8; p++)
		h.ready_pattern[p] = 0xff;
	for (int i = 0; i < 30000 && !h.idle(); i++)
		h.bus.tick();
	h.write(PKTSTATS_EVCAP_COMMAND, PKTSTATS_EVCAP_COMMAND_FLUSH_MASK);
	for (int i = 0; i < 5000; i++)
		h.bus.tick();

	uint64_t dropped = 0;
	for (unsigned q = 0; q < 4; q++)
		dropped += h.read64(PKTSTATS_SWITCH_FRAMES_DROPPED_0 + (PKTSTATS_SWITCH_FRAMES_DROPPED_1 - PKTSTATS_SWITCH_FRAMES_DROPPED_0) * q);
	printf("# %" PRIu64 " frames out of MAC ports checked: %" PRIu64 " from MAC ports, %" PRIu64
	       " from CPU ports, %" PRIu64 " stat packets; %" PRIu64 " dropped from MAC queues; %" PRIu64
	       " in flight across a step or set (%" PRIu64 " negative, %" PRIu64 " saturated residence)\n",
	       h.frames_checked, h.mac_frames, h.cpu_frames, h.stat_packets, dropped, h.crossing_step,
	       h.negative_residence, h.saturated);
	printf("# %zu clocks in which the time of day was set or stepped during the load\n", jumps);
	report(h.frames_checked > 1000 && h.mac_frames > 500 && h.cpu_frames > 100 && h.stat_packets > 0 &&
		       dropped > 0 && h.unknown == 0 && h.idle(),
	       "load: MAC and CPU frames and stat packets out of every MAC port, with drops");
	report(h.tx_wrong == 0, "TX stamp = time of day of the first word's handshake + TX correction",
	       std::to_string(h.tx_wrong) + " wrong, first: " + h.first_tx_error);
	report(h.valid_wrong == 0, "RX stamp valid for frames from MAC ports only (not CPU ports, not stat packets)",
	       std::to_string(h.valid_wrong) + " wrong, first: " + h.first_valid_error);
	printf("# frames into MAC ports: %" PRIu64 " with the MAC's RX stamp (s_axis_rx_timestamp), %" PRIu64
	       " without (fallback)\n", h.sideband_frames, h.fallback_frames);
	report(h.rx_wrong == 0 && h.sideband_frames > 1000 && h.fallback_frames > 500,
	       "RX stamp = the MAC's stamp (s_axis_rx_timestamp) + RX correction when valid with the first word, "
	       "else the time of day of the first word's input handshake + RX correction",
	       std::to_string(h.rx_wrong) + " wrong, first: " + h.first_rx_error);
	report(h.residence_wrong == 0, "residence time = TX - RX (saturating), 0 without RX stamp",
	       std::to_string(h.residence_wrong) + " wrong, first: " + h.first_residence_error);
	report(jumps == 2 && h.crossing_step > 0 && h.saturated > 0 && h.negative_residence > 0,
	       "the time of day was stepped and set with frames in flight; stamps followed it");

	// Debug registers.
	std::string registers;
	for (unsigned p = 0; p < 4; p++) {
		uint64_t rx = h.read64(PKTSTATS_STAMP_LAST_RX_0 + 8 * p);
		uint64_t tx = h.read64(PKTSTATS_STAMP_LAST_TX_0 + 8 * p);
		int32_t residence = (int32_t)h.read(PKTSTATS_STAMP_LAST_RESIDENCE_0 + 4 * p);
		Stamp rx_stamp = {(uint32_t)(rx >> 32), (uint32_t)rx & 0x3fffffffu};
		Stamp tx_stamp = {(uint32_t)(tx >> 32), (uint32_t)tx & 0x3fffffffu};
		if (rx_stamp != h.last_rx[p])
			registers += " last_rx_" + std::to_string(p) + " " + rx_stamp.str() + " != " + h.last_rx[p].str();
		if (tx_stamp != h.last_tx[p])
			registers += " last_tx_" + std::to_string(p) + " " + tx_stamp.str() + " != " + h.last_tx[p].str();
		if (!h.have_residence[p] || residence != h.last_residence[p])
			registers += " last_residence_" + std::to_string(p) + " " + std::to_string(residence);
	}
	report(registers.empty(), "registers: last RX, TX and residence of each MAC port", registers);
	report(h.bus.protocol_error().empty(), "AXI4-Lite protocol", h.bus.protocol_error());

	int status = report.finish();
	h.dut.final();
	return status;
}
