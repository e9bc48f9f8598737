// SPDX-License-Identifier: BSD-3-Clause
//
// test_mac_rx: the receive half of the RTL Ethernet MAC (rtl/mac/mac_rgmii_rx.v, mac_rx.v,
// mac_rx_fifo.v, mac_rx_stamp.v, mac_rx_sync.v; fpga/models/IDDR.v for the primitive), joined
// as tb/mac/mac_rx_tb.v joins them, from the RGMII pins to 64-bit AXI4-Stream words.
//
// A PHY model drives rgmii_rxd/rgmii_rx_ctl as an RGMII PHY with internal clock delay does:
// each nibble 2 ns ahead of the rgmii_rxc edge that samples it (low nibble and rx_dv at the
// rising edge, high nibble and rx_dv ^ rx_er at the falling edge), rgmii_rxc at 125 MHz with a
// frequency offset (default +/-100 ppm) and a phase of its own against the switch clock
// (125 MHz exactly, the time of day stepping 8 ns a clock). Time goes in femtoseconds, each
// clock toggled at its own edges.
//
// Checked, case by case:
//   - every good frame comes out whole, equal (FCS stripped), in order; AXI4-Stream rules
//     (tkeep contiguous, all ones before tlast; a word held while tvalid && !tready);
//   - bad FCS, runts, giants, missing or broken SFD/preamble, rx_er: dropped and counted,
//     the frame after them fine; preambles of 1..7 bytes accepted;
//   - minimum and maximum sizes at their limits (64/63, 1518/1519 bytes with FCS);
//   - back-to-back frames at line rate (12-byte gap), minimum size, with and without
//     backpressure: none lost or changed;
//   - overflow: tready held low, frames dropped whole and counted, the others intact;
//   - the RX stamp of every delivered frame: the harness's time of day at the frame's first
//     bit (what sim/mac_model.h's receive side stamps: the reading of the switch clock
//     containing it) or the next clock's: stamp - reading in {0, 8} ns; across second
//     boundaries (the time of day loaded just before them);
//   - every counter pulse summed equals the frames sent of its kind; bytes_received too;
//   - out of the standard's rules: bursts of tiny runts with 1..12-clock gaps (SFDs closer
//     than the stamp's round trip), the good frame after each burst with its own stamp.
//
// TAP output; `--seed N --only NAME` replays a random case.

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vmac_rx_tb.h"
#include "tap_runner.h"
#include "verilated.h"
#include <zlib.h>

namespace {

const uint64_t FS_PER_NS = 1000000;
const uint64_t SWITCH_PERIOD_FS = 8 * FS_PER_NS;
const uint64_t RGMII_SETUP_FS = 2 * FS_PER_NS; // data ahead of the rgmii_rxc edge
const unsigned MAX_FRAME_BYTES = 1518;          // mac_rx's default (with FCS)
const unsigned FIFO_BYTES = 8 * 2048;           // mac_rx_fifo's default ADDR_WIDTH 11
const int64_t STAMP_ERROR_MIN_NS = 0, STAMP_ERROR_MAX_NS = 8; // mac_rx_stamp's bound

// The FCS: zlib's CRC-32 (IEEE 802.3's polynomial, preset and complement), an implementation
// other than the RTL's
uint32_t crc32_of(const std::vector<uint8_t> &bytes)
{
	return (uint32_t)crc32(0L, bytes.data(), (uInt)bytes.size());
}

enum Kind { GOOD, FCS_ERROR, RUNT, GIANT, PREAMBLE_ERROR, RX_ERROR, KINDS };
const char *const KIND_NAMES[KINDS] = {"good", "fcs_error", "runt", "giant", "preamble_error", "rx_error"};

struct Symbol {
	uint8_t byte = 0;
	bool dv = false, er = false;
};

struct Frame {
	Kind kind = GOOD;
	std::vector<uint8_t> data; // without FCS (a good frame's delivered bytes)
	std::vector<Symbol> symbols;
	int sfd_index = -1;        // of its SFD in symbols (-1: none)
	unsigned gap = 12;         // idle symbols after it
	// filled in by the run
	bool sfd_sent = false;
	int64_t expected_stamp_ns = 0; // the reading at its (nominal) first bit
	uint64_t first_bit_fs = 0;
};

// The bytes on the wire: preamble (0x55 x preamble), SFD, data, FCS.
Frame make_frame(Kind kind, std::vector<uint8_t> data, unsigned preamble = 7)
{
	Frame f;
	f.kind = kind;
	f.data = data;
	uint32_t fcs = crc32_of(data);
	std::vector<uint8_t> wire(preamble, 0x55);
	f.sfd_index = (int)wire.size();
	wire.push_back(0xd5);
	wire.insert(wire.end(), data.begin(), data.end());
	for (int k = 0; k < 4; k++)
		wire.push_back((uint8_t)(fcs >> (8 * k)));
	for (uint8_t b : wire) {
		Symbol s;
		s.byte = b;
		s.dv = true;
		f.symbols.push_back(s);
	}
	return f;
}

std::vector<uint8_t> random_bytes(std::mt19937_64 &rng, size_t n)
{
	std::vector<uint8_t> v(n);
	for (auto &b : v)
		b = (uint8_t)rng();
	return v;
}

Frame good_frame(std::mt19937_64 &rng, size_t n, unsigned preamble = 7)
{
	return make_frame(GOOD, random_bytes(rng, n), preamble);
}

// One frame of `kind`, random within it.
Frame frame_of_kind(std::mt19937_64 &rng, Kind kind)
{
	auto pick = [&](unsigned lo, unsigned hi) { return lo + (unsigned)(rng() % (hi - lo + 1)); };
	switch (kind) {
	case GOOD:
		return good_frame(rng, rng() % 4 ? pick(60, 200) : pick(60, 1514), rng() % 4 ? 7 : pick(1, 7));
	case FCS_ERROR: {
		Frame f = good_frame(rng, pick(60, 600));
		size_t i = (size_t)f.sfd_index + 1 + rng() % (f.symbols.size() - f.sfd_index - 1);
		f.symbols[i].byte ^= (uint8_t)(1u << (rng() % 8));
		f.kind = FCS_ERROR;
		return f;
	}
	case RUNT: {
		Frame f = good_frame(rng, pick(0, 59));
		f.kind = RUNT;
		return f;
	}
	case GIANT: {
		Frame f = good_frame(rng, pick(1515, 1600));
		f.kind = GIANT;
		return f;
	}
	case PREAMBLE_ERROR: {
		Frame f = good_frame(rng, pick(60, 200));
		f.kind = PREAMBLE_ERROR;
		switch (rng() % 4) {
		case 0: // no SFD: its byte replaced
			f.symbols[f.sfd_index].byte = 0x5d;
			break;
		case 1: // a broken preamble byte
			f.symbols[rng() % f.sfd_index].byte = 0x54;
			break;
		case 2: // no preamble at all: the SFD first
			f.symbols.erase(f.symbols.begin(), f.symbols.begin() + f.sfd_index);
			break;
		default: // rx_dv falls before the SFD
			f.symbols.resize(pick(1, (unsigned)f.sfd_index));
			break;
		}
		f.sfd_index = -1;
		return f;
	}
	default: { // RX_ERROR at any byte, preamble included
		Frame f = good_frame(rng, pick(60, 300));
		f.kind = RX_ERROR;
		f.symbols[rng() % f.symbols.size()].er = true;
		return f;
	}
	}
}

struct Delivered {
	std::vector<uint8_t> data;
	bool stamp_valid = false;
	uint64_t stamp = 0; // {seconds, nanoseconds}
};

struct RunConfig {
	double ppm = 0;
	uint64_t rx_phase_fs = 0, switch_phase_fs = 0;
	std::function<bool(uint64_t cycle, std::mt19937_64 &)> tready = [](uint64_t, std::mt19937_64 &) { return true; };
	// time of day loads: at switch cycle, to {seconds, nanoseconds}
	std::vector<std::pair<uint64_t, std::pair<uint32_t, uint32_t>>> tod_loads;
	uint64_t drain_cycles = 40000; // after the last symbol, at most
};

struct RunResult {
	std::vector<Delivered> delivered;
	uint64_t counts[KINDS] = {0};
	uint64_t bytes_received = 0, overflows = 0;
	std::string protocol_error;
	uint64_t rx_cycles = 0, switch_cycles = 0;
	std::vector<uint64_t> load_times_fs; // the edges at which the time of day was loaded
};

// Runs the frames through the RTL.
RunResult run(std::vector<Frame> &frames, const RunConfig &config, uint64_t seed)
{
	RunResult result;
	std::mt19937_64 rng(seed ^ 0x5eed);
	VerilatedContext context;
	context.randReset(2);
	context.randSeed((int)(seed & 0x7fffffff));
	Vmac_rx_tb dut(&context);

	uint64_t rx_period = (uint64_t)((double)SWITCH_PERIOD_FS * (1.0 + config.ppm * 1e-6) + 0.5);
	uint64_t rx_half = rx_period / 2;

	// the symbol stream: reset idle, then the frames with their gaps
	struct Slot {
		Symbol symbol;
		int frame = -1; // the frame whose SFD this is
	};
	std::deque<Slot> stream;
	for (int i = 0; i < 64; i++)
		stream.push_back(Slot());
	for (size_t i = 0; i < frames.size(); i++) {
		const Frame &f = frames[i];
		for (size_t k = 0; k < f.symbols.size(); k++) {
			Slot s;
			s.symbol = f.symbols[k];
			if ((int)k == f.sfd_index)
				s.frame = (int)i;
			stream.push_back(s);
		}
		for (unsigned k = 0; k < f.gap; k++)
			stream.push_back(Slot());
	}

	// the switch clock's readings: (edge time, time of day after it)
	std::deque<std::pair<uint64_t, int64_t>> readings;
	auto reading_at = [&](uint64_t t) -> int64_t {
		for (size_t i = readings.size(); i-- > 0;)
			if (readings[i].first < t)
				return readings[i].second;
		return -1;
	};

	uint64_t sw_next = config.switch_phase_fs; // next switch edge
	bool sw_high = false;
	uint64_t rx_R = config.rx_phase_fs + 4 * FS_PER_NS; // rising edge of the current rx cycle
	int rx_step = 0; // next rx event: 0 low nibble, 1 rise, 2 high nibble, 3 fall
	auto rx_event_time = [&]() -> uint64_t {
		switch (rx_step) {
		case 0: return rx_R - RGMII_SETUP_FS;
		case 1: return rx_R;
		case 2: return rx_R + rx_half - RGMII_SETUP_FS;
		default: return rx_R + rx_half;
		}
	};
	Symbol current;
	bool stream_done = false;
	uint64_t done_cycle = 0;

	dut.rst = 1;
	dut.rx_rst = 1;
	dut.rgmii_rxc = 0;
	dut.clk = 0;
	dut.rgmii_rxd = 0;
	dut.rgmii_rx_ctl = 0;
	dut.m_axis_tready = 0;
	dut.tod_load = 0;
	dut.eval();

	bool held_valid = false; // tvalid && !tready at the last edge: the word must stay
	uint64_t held_data = 0;
	uint8_t held_keep = 0;
	bool held_last = false;
	Delivered building;
	bool in_frame = false;
	size_t load_index = 0;
	auto fail = [&](const std::string &why) {
		if (result.protocol_error.empty())
			result.protocol_error = why + " (switch cycle " + std::to_string(result.switch_cycles) + ")";
	};

	for (;;) {
		uint64_t t_rx = rx_event_time();
		uint64_t t = sw_next < t_rx ? sw_next : t_rx;
		bool sw_event = sw_next == t, rx_event = t_rx == t;
		// (outputs are checked once the resets are over: before, they are random)
		if (sw_event && !sw_high && result.switch_cycles > 25) { // switch rising edge: the handshake of the clock ending
			uint64_t cycle = result.switch_cycles;
			if (dut.m_axis_tvalid) {
				if (held_valid && (dut.m_axis_tdata != held_data || dut.m_axis_tkeep != held_keep ||
						   dut.m_axis_tlast != held_last))
					fail("a word changed while tvalid && !tready");
				if (dut.m_axis_tready) {
					uint8_t keep = dut.m_axis_tkeep;
					if (!dut.m_axis_tlast && keep != 0xff)
						fail("tkeep not all ones before tlast");
					if (keep == 0 || (keep & (keep + 1)) != 0)
						fail("tkeep not contiguous from bit 0");
					if (!in_frame) {
						building = Delivered();
						building.stamp_valid = dut.m_axis_rx_timestamp_valid;
						building.stamp = dut.m_axis_rx_timestamp;
						in_frame = true;
					}
					for (int k = 0; k < 8; k++)
						if (keep >> k & 1)
							building.data.push_back((uint8_t)(dut.m_axis_tdata >> (8 * k)));
					if (dut.m_axis_tlast) {
						result.delivered.push_back(building);
						in_frame = false;
					}
					held_valid = false;
				} else {
					held_valid = true;
					held_data = dut.m_axis_tdata;
					held_keep = dut.m_axis_tkeep;
					held_last = dut.m_axis_tlast;
				}
			} else if (held_valid) {
				fail("tvalid fell without a handshake");
			}
			(void)cycle;
		}
		if (rx_event && rx_step == 1 && result.rx_cycles > 25) { // rx rising edge: the pulses of the clock ending
			result.counts[GOOD] += dut.stat_frames_received;
			result.bytes_received += dut.stat_frames_received ? dut.stat_bytes_received : 0;
			if (!dut.stat_frames_received && dut.stat_bytes_received)
				fail("stat_bytes_received without stat_frames_received");
			result.counts[FCS_ERROR] += dut.stat_fcs_errors;
			result.counts[RUNT] += dut.stat_runts;
			result.counts[GIANT] += dut.stat_giants;
			result.counts[PREAMBLE_ERROR] += dut.stat_preamble_errors;
			result.counts[RX_ERROR] += dut.stat_rx_errors;
			result.overflows += dut.stat_overflows;
			if (dut.stat_frames_received + dut.stat_fcs_errors + dut.stat_runts + dut.stat_giants +
				    dut.stat_preamble_errors + dut.stat_rx_errors > 1)
				fail("two outcomes in one clock");
		}
		// apply every event at t
		if (sw_event) {
			sw_high = !sw_high;
			dut.clk = sw_high;
			sw_next += SWITCH_PERIOD_FS / 2;
		}
		if (rx_event) {
			switch (rx_step) {
			case 0:
				if (result.rx_cycles >= 32 && !stream.empty()) {
					Slot s = stream.front();
					stream.pop_front();
					current = s.symbol;
					if (s.frame >= 0) {
						Frame &f = frames[s.frame];
						f.sfd_sent = true;
						// the nominal first bit: 7 byte times before the SFD's first nibble
						uint64_t first_bit = t - 7 * rx_period;
						f.expected_stamp_ns = reading_at(first_bit);
						f.first_bit_fs = first_bit;
					}
				} else {
					current = Symbol();
					if (stream.empty() && !stream_done) {
						stream_done = true;
						done_cycle = result.switch_cycles;
					}
				}
				dut.rgmii_rxd = current.byte & 0xf;
				dut.rgmii_rx_ctl = current.dv;
				break;
			case 1:
				dut.rgmii_rxc = 1;
				break;
			case 2:
				dut.rgmii_rxd = current.byte >> 4;
				dut.rgmii_rx_ctl = current.dv ^ current.er;
				break;
			default:
				dut.rgmii_rxc = 0;
				rx_R += rx_period;
				break;
			}
			rx_step = (rx_step + 1) % 4;
		}
		dut.eval();
		if (rx_event && rx_step == 2) { // after a rising edge
			result.rx_cycles++;
			if (result.rx_cycles == 24)
				dut.rx_rst = 0;
		}
		if (sw_event && sw_high) { // after a rising edge
			uint64_t cycle = ++result.switch_cycles;
			int64_t tod = (int64_t)dut.tod_seconds * 1000000000 + dut.tod_nanoseconds;
			readings.push_back({t, tod});
			if (dut.tod_load)
				result.load_times_fs.push_back(t);
			if (readings.size() > 4096)
				readings.pop_front();
			if (cycle == 24)
				dut.rst = 0;
			dut.tod_load = 0;
			if (load_index < config.tod_loads.size() && config.tod_loads[load_index].first == cycle) {
				dut.tod_load = 1;
				dut.tod_load_seconds = config.tod_loads[load_index].second.first;
				dut.tod_load_nanoseconds = config.tod_loads[load_index].second.second;
				load_index++;
			}
			dut.m_axis_tready = cycle > 24 && config.tready(cycle, rng);
			dut.eval();
			if (stream_done && cycle > done_cycle + 200 && !dut.m_axis_tvalid && !in_frame &&
			    cycle > done_cycle + config.drain_cycles)
				break;
			if (stream_done && cycle > done_cycle + 200 && !dut.m_axis_tvalid && !in_frame &&
			    result.delivered.size() + result.overflows >= result.counts[GOOD] &&
			    cycle > done_cycle + 2000)
				break;
		}
	}
	if (in_frame)
		fail("a frame without tlast at the end");
	return result;
}

// Compares a run with its frames: returns "" or what is wrong. `overflow_allowed`: good frames
// may be missing (dropped whole, counted); otherwise all must arrive.
std::string check(const std::vector<Frame> &frames, const RunResult &r, bool overflow_allowed,
		  std::string *summary = nullptr, uint64_t *near_second_out = nullptr)
{
	if (!r.protocol_error.empty())
		return r.protocol_error;
	uint64_t expected[KINDS] = {0};
	uint64_t expected_bytes = 0;
	std::vector<const Frame *> good;
	for (const Frame &f : frames) {
		expected[f.kind]++;
		if (f.kind == GOOD) {
			good.push_back(&f);
			expected_bytes += f.data.size();
		}
	}
	for (int k = 0; k < KINDS; k++)
		if (r.counts[k] != expected[k])
			return std::string("counter ") + KIND_NAMES[k] + ": " + std::to_string(r.counts[k]) +
			       " pulses, " + std::to_string(expected[k]) + " frames sent";
	if (r.bytes_received != expected_bytes)
		return "bytes_received " + std::to_string(r.bytes_received) + ", expected " +
		       std::to_string(expected_bytes);
	// delivered frames: the good ones in order, a few missing only with overflow
	size_t g = 0, missing = 0;
	uint64_t err_count[2] = {0, 0};
	uint64_t near_second = 0, across_load = 0;
	for (size_t i = 0; i < r.delivered.size(); i++) {
		const Delivered &d = r.delivered[i];
		while (g < good.size() && good[g]->data != d.data) {
			if (!overflow_allowed)
				return "delivered frame " + std::to_string(i) + " (" + std::to_string(d.data.size()) +
				       " bytes) is not good frame " + std::to_string(g) + " (" +
				       std::to_string(good[g]->data.size()) + " bytes)";
			g++;
			missing++;
		}
		if (g == good.size())
			return "delivered frame " + std::to_string(i) + " (" + std::to_string(d.data.size()) +
			       " bytes) equals no good frame sent (in order)";
		const Frame &f = *good[g++];
		if (!d.stamp_valid)
			return "delivered frame " + std::to_string(i) + " without a stamp";
		int64_t stamp_ns = (int64_t)(d.stamp >> 30) * 1000000000 + (int64_t)(d.stamp & 0x3fffffff);
		if ((d.stamp & 0x3fffffff) >= 1000000000)
			return "stamp nanoseconds out of range";
		// a step of the time of day (a load) between the first bit and the sampling: no single
		// right answer, not checked
		bool stepped = false;
		for (uint64_t load : r.load_times_fs)
			if (load + 16 * FS_PER_NS > f.first_bit_fs && load < f.first_bit_fs + 200 * FS_PER_NS)
				stepped = true;
		if (stepped) {
			across_load++;
			continue;
		}
		if (f.expected_stamp_ns % 1000000000 >= 1000000000 - 200)
			near_second++;
		int64_t err = stamp_ns - f.expected_stamp_ns;
		if (err < STAMP_ERROR_MIN_NS || err > STAMP_ERROR_MAX_NS)
			return "frame " + std::to_string(i) + ": stamp " + std::to_string(stamp_ns) +
			       " ns, the reading at its first bit " + std::to_string(f.expected_stamp_ns) +
			       " ns: off by " + std::to_string(err) + " ns";
		err_count[err != 0]++;
	}
	missing += good.size() - g;
	if (!overflow_allowed && missing)
		return std::to_string(missing) + " good frames not delivered";
	if (r.overflows != missing)
		return "overflows " + std::to_string(r.overflows) + ", good frames not delivered " +
		       std::to_string(missing);
	if (near_second_out)
		*near_second_out = near_second;
	if (summary) {
		char text[300];
		snprintf(text, sizeof text,
			 "%zu frames, %zu delivered, %" PRIu64 " overflows; stamp - reading: %" PRIu64
			 " x 0 ns, %" PRIu64 " x 8 ns; %" PRIu64 " first bits in the last 200 ns of a second, %"
			 PRIu64 " not checked (time of day loaded within 200 ns)",
			 frames.size(), r.delivered.size(), r.overflows, err_count[0], err_count[1], near_second,
			 across_load);
		*summary = text;
	}
	return "";
}

void note(const std::string &summary)
{
	printf("# %s\n", summary.c_str());
}

RunConfig random_clocks(std::mt19937_64 &rng, double ppm)
{
	RunConfig c;
	c.ppm = ppm;
	c.rx_phase_fs = rng() % SWITCH_PERIOD_FS;
	c.switch_phase_fs = rng() % SWITCH_PERIOD_FS;
	return c;
}

// Each bad kind, then a good frame, with the size limits; random backpressure.
tap::Result test_kinds(uint64_t seed)
{
	std::mt19937_64 rng(seed);
	std::vector<Frame> frames;
	for (int rep = 0; rep < 4; rep++)
		for (int k = 0; k < KINDS; k++) {
			frames.push_back(frame_of_kind(rng, (Kind)k)); // at the minimum gap: the next
			frames.push_back(good_frame(rng, 60));         // frame must come out fine
			frames.push_back(frame_of_kind(rng, (Kind)k)); // two in a row
			frames.push_back(frame_of_kind(rng, (Kind)k));
			frames.push_back(good_frame(rng, 60 + rng() % 100));
		}
	frames.push_back(good_frame(rng, 60));       // 64 with FCS: the shortest good
	Frame runt = good_frame(rng, 59);             // 63: a runt
	runt.kind = RUNT;
	frames.push_back(runt);
	frames.push_back(good_frame(rng, 1514));      // 1518: the longest good
	Frame giant = good_frame(rng, 1515);          // 1519: a giant
	giant.kind = GIANT;
	frames.push_back(giant);
	for (unsigned p = 1; p <= 7; p++)             // every preamble length
		frames.push_back(good_frame(rng, 100, p));
	frames.push_back(good_frame(rng, 60));
	RunConfig c = random_clocks(rng, 100);
	c.tready = [](uint64_t, std::mt19937_64 &r) { return r() % 3 != 0; };
	RunResult r = run(frames, c, seed);
	std::string summary;
	std::string why = check(frames, r, false, &summary);
	if (why.empty())
		note(summary);
	return why;
}

// Minimum-size frames back to back at line rate, the wire full.
tap::Result line_rate(uint64_t seed, double ppm, bool backpressure, bool mixed)
{
	std::mt19937_64 rng(seed);
	std::vector<Frame> frames;
	for (int i = 0; i < 400; i++)
		frames.push_back(good_frame(rng, mixed ? 60 + rng() % 1455 : 60));
	RunConfig c = random_clocks(rng, ppm);
	if (backpressure)
		c.tready = [](uint64_t, std::mt19937_64 &r) { return r() % 2 == 0; };
	RunResult r = run(frames, c, seed);
	std::string summary;
	std::string why = check(frames, r, false, &summary);
	if (why.empty())
		note(summary);
	return why;
}

// Second boundaries swept across the frames' first bits: the time of day is loaded every 85
// clocks with 320 ns to go to the next second; minimum frames every 84 rx clocks. The stamps
// of first bits in a second's last 100 ns borrow the second in mac_rx_stamp.
tap::Result test_second_boundary(uint64_t seed)
{
	std::mt19937_64 rng(seed);
	std::vector<Frame> frames;
	for (int i = 0; i < 400; i++)
		frames.push_back(good_frame(rng, 60));
	RunConfig c = random_clocks(rng, 50);
	for (uint64_t at = 200, k = 0; at < 40000; at += 85, k++)
		c.tod_loads.push_back({at, {(uint32_t)(1000 + k), 1000000000u - 320u}});
	RunResult r = run(frames, c, seed);
	std::string summary;
	uint64_t near_second = 0;
	std::string why = check(frames, r, false, &summary, &near_second);
	if (!why.empty())
		return why;
	if (near_second < 40)
		return "only " + std::to_string(near_second) + " first bits in the last 200 ns of a second";
	note(summary);
	return "";
}

// Out of 802.3's rules, for robustness: bursts of tiny runts (0..8 bytes, preambles of 1..7,
// gaps of 1..12 clocks: SFDs a few clocks apart, faster than the stamp's round trip), each burst
// followed closely by a good frame, whose stamp must still be its own.
tap::Result test_runt_bursts(uint64_t seed)
{
	std::mt19937_64 rng(seed);
	std::vector<Frame> frames;
	for (int burst = 0; burst < 150; burst++) {
		int runts = 1 + (int)(rng() % 6);
		for (int i = 0; i < runts; i++) {
			Frame f = good_frame(rng, rng() % 9, 1 + (unsigned)(rng() % 7));
			f.kind = RUNT;
			f.gap = 1 + (unsigned)(rng() % 12);
			frames.push_back(f);
		}
		Frame g = good_frame(rng, 60 + rng() % 100, 1 + (unsigned)(rng() % 7));
		g.gap = 1 + (unsigned)(rng() % 12);
		frames.push_back(g);
	}
	RunConfig c = random_clocks(rng, -100);
	RunResult r = run(frames, c, seed);
	std::string summary;
	std::string why = check(frames, r, false, &summary);
	if (why.empty())
		note(summary);
	return why;
}

// tready low while more than the FIFO holds arrives, then released.
tap::Result test_overflow(uint64_t seed)
{
	std::mt19937_64 rng(seed);
	std::vector<Frame> frames;
	size_t bytes = 0;
	while (bytes < 3 * FIFO_BYTES) {
		Frame f = rng() % 8 ? good_frame(rng, 60 + rng() % 1455) : frame_of_kind(rng, (Kind)(1 + rng() % 5));
		bytes += f.data.size();
		frames.push_back(f);
	}
	for (int i = 0; i < 20; i++) // after the release: all of these arrive
		frames.push_back(good_frame(rng, 60 + rng() % 200));
	uint64_t wire_cycles = 0;
	for (const Frame &f : frames)
		wire_cycles += f.symbols.size() + f.gap;
	uint64_t release = 32 + (wire_cycles - 20 * 272) * 9 / 10;
	RunConfig c = random_clocks(rng, -100);
	c.tready = [release](uint64_t cycle, std::mt19937_64 &) { return cycle > release; };
	RunResult r = run(frames, c, seed);
	std::string summary;
	std::string why = check(frames, r, true, &summary);
	if (!why.empty())
		return why;
	if (r.overflows == 0)
		return "no overflow with tready low for " + std::to_string(release) + " clocks";
	// the 20 short frames sent after the release all arrived
	for (size_t i = 0; i < 20; i++)
		if (r.delivered.size() < 20 ||
		    r.delivered[r.delivered.size() - 20 + i].data != frames[frames.size() - 20 + i].data)
			return "a frame sent after tready came back was lost";
	note(summary);
	return "";
}

// Random kinds, gaps, backpressure, clock offset; the time of day loaded near second boundaries.
tap::Result test_random(uint64_t seed, uint64_t cycles)
{
	std::mt19937_64 rng(seed);
	std::vector<Frame> frames;
	uint64_t wire = 0;
	while (wire < cycles) {
		Kind kind = rng() % 3 ? GOOD : (Kind)(rng() % KINDS);
		Frame f = frame_of_kind(rng, kind);
		f.gap = rng() % 2 ? 12 : 12 + (unsigned)(rng() % 200);
		wire += f.symbols.size() + f.gap;
		frames.push_back(f);
	}
	double ppm = (double)(int)(rng() % 201) - 100.0;
	RunConfig c = random_clocks(rng, ppm);
	unsigned duty = 1 + (unsigned)(rng() % 8);
	c.tready = [duty](uint64_t, std::mt19937_64 &r) { return r() % 8 < duty; };
	for (uint64_t at = 100 + rng() % 3000; at < wire; at += 1000 + rng() % 5000)
		c.tod_loads.push_back({at, {(uint32_t)rng(), 999999000u + (uint32_t)(rng() % 1000)}});
	printf("# ppm %+.0f, tready %u/8, %zu frames, %zu time-of-day loads\n", ppm, duty, frames.size(),
	       c.tod_loads.size());
	RunResult r = run(frames, c, seed);
	std::string summary;
	std::string why = check(frames, r, duty == 1, &summary);
	if (why.empty())
		note(summary);
	return why;
}

} // namespace

int main(int argc, char **argv)
{
	tap::Options options = tap::parse(argc, argv, 200000);
	std::vector<tap::Test> tests = {
		{"kinds_and_limits", [] { return test_kinds(11); }},
		{"line_rate_minimum_+100ppm", [] { return line_rate(21, 100, false, false); }},
		{"line_rate_minimum_-100ppm_backpressure", [] { return line_rate(22, -100, true, false); }},
		{"line_rate_mixed_+100ppm_backpressure", [] { return line_rate(23, 100, true, true); }},
		{"overflow", [] { return test_overflow(31); }},
		{"second_boundary", [] { return test_second_boundary(41); }},
		{"runt_bursts", [] { return test_runt_bursts(51); }},
	};
	for (uint64_t seed : tap::seeds(options, {1, 2, 3}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles, test_random));
	return tap::run(tests, options);
}
