// SPDX-License-Identifier: BSD-3-Clause
//
// test_board_mac_counters: the MAC counters of the NetFPGA-1G-CML top
// (fpga/netfpga-1g-cml/rtl/board_mac_counters.v with rtl/gen/mac_regs.v and
// rtl/mac/mac_rx_sync.v) behind the board's register split (board_axil_split.v), joined as
// tb/board/board_mac_counters_tb.v joins them, with a stand-in for pktstats_core.
//
// The harness drives the MACs' statistics pulses as mac_tx (switch clock) and mac_rx_port
// (each port's own RX clock) give them: the four RX clocks run at periods of their own, drawn
// per case between 6 and 10 ns (unrelated to the switch's 8 ns and to each other), with a
// phase of their own; time goes in picoseconds, every RX edge evaluated in order between two
// switch clock edges. RX events of one kind are at least a minimum frame (84 RX clocks)
// apart, as the MAC's are; a good frame's FIFO overflow comes 0..3 RX clocks after it (the
// same clock included); TX pulses come in any clock. The harness counts what it drove and
// reads the counters over AXI4-Lite (low word, then high word):
//
//   - while traffic runs, each value read lies between what was driven up to 12 switch clocks
//     before the read and what was driven by its end (the crossing's latency);
//   - when traffic stops, every counter equals what was driven, exactly (none lost, none twice);
//   - a write to either word clears that counter and no other; rst clears them all and a
//     toggle left high by the traffic before it is no event; rx_rst[i] (which sets port i's
//     toggles back to 0 in its RX clock) counts nothing; events of every RX kind in the same
//     RX clock all count; the 64-bit carry (bytes past 2^32);
//   - the split: addresses 0x7000-0x7fff reach the MAC block (type "MAC ", its SLVERR for
//     unmapped offsets and const and ro writes; the MDIO registers at 0x010-0x018 answer,
//     tb/board/test_board_mdio.cpp tests what they do), every other address reaches the core stand-in whole,
//     with its data and its response (OKAY, SLVERR, DECERR) unchanged, and the MAC block never
//     sees them; one response per request, whatever the order and delays of the channels and
//     the stand-in's stalls (axil_master.h checks the protocol).
//
// TAP output; `--seed N --only NAME` replays a random case, --cycles N sets its length.

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vboard_mac_counters_tb.h"
#include "axil_master.h"
#include "tap_runner.h"
#include "verilated.h"

namespace {

const uint64_t CLK_PS = 8000;
const unsigned PORTS = 4;
const unsigned KINDS = 11;
const unsigned COUNTERS = PORTS * KINDS;
const uint32_t MAC_BASE = 0x7000;
const unsigned MIN_RX_GAP = 84; // RX clocks between two events of one kind (a minimum frame)
const uint64_t LATENCY = 12;    // switch clocks from a pulse driven to its count readable

enum Kind {
	TX_FRAMES, TX_BYTES, TX_UNDERRUNS, RX_FRAMES, RX_BYTES, RX_FCS_ERRORS, RX_RUNTS,
	RX_GIANTS, RX_PREAMBLE_ERRORS, RX_ERRORS, RX_OVERFLOWS,
};
const char *const KIND_NAMES[KINDS] = {
	"tx_frames", "tx_bytes", "tx_underruns", "rx_frames", "rx_bytes", "rx_fcs_errors",
	"rx_runts", "rx_giants", "rx_preamble_errors", "rx_errors", "rx_overflows",
};

uint32_t counter_address(unsigned c)
{
	return MAC_BASE + 0x100 * (c / KINDS + 1) + 8 * (c % KINDS);
}

std::string counter_name(unsigned c)
{
	return std::string(KIND_NAMES[c % KINDS]) + "_" + std::to_string(c / KINDS);
}

using Top = Vboard_mac_counters_tb;

struct Bench {
	std::unique_ptr<VerilatedContext> context;
	std::unique_ptr<Top> top;
	std::unique_ptr<axil::Master<Top>> bus;
	std::mt19937_64 rng;

	// the RX clocks
	uint64_t rx_period[PORTS] = {};
	uint64_t rx_next[PORTS] = {}; // time of the next rising edge, ps

	// what is driven
	bool tx_traffic = false, rx_traffic = false;
	unsigned tx_one_in = 16;         // a TX event about once in this many clocks per port
	bool core_stalls = false;
	unsigned rx_gap[PORTS] = {};     // RX clocks to the next event
	int overflow_in[PORTS] = {-1, -1, -1, -1}; // RX clocks to a pending overflow pulse
	unsigned rx_reset_left[PORTS] = {};
	std::vector<std::pair<unsigned, uint16_t>> rx_script[PORTS]; // directed: pulses next edge
	bool tx_max_bytes = false;       // every clock, port 2 sends 65535 bytes (the carry case)

	// the harness's count: cumulative amounts with the switch clock they were driven in
	uint64_t driven[COUNTERS] = {};
	uint64_t base[COUNTERS] = {};    // driven[] at the counter's last clear
	std::vector<std::pair<uint64_t, uint64_t>> history[COUNTERS];

	explicit Bench(uint64_t seed) : rng(seed)
	{
		context = std::make_unique<VerilatedContext>();
		context->randReset(2);
		context->randSeed((int)(seed & 0x7fffffff));
		top = std::make_unique<Top>(context.get());
		bus = std::make_unique<axil::Master<Top>>(*top, 0xffff);
		for (unsigned p = 0; p < PORTS; p++) {
			rx_period[p] = 6000 + rng() % 4001;
			rx_next[p] = 1 + rng() % rx_period[p];
			rx_gap[p] = 1 + rng() % 200;
		}
		top->rx_rst = 0xf;
		top->mdio_status = 0;
		top->core_stall = 0;
		bus->on_cycle = [this]() { cycle(); };
		// the RX domains leave reset while the switch clock is in it
		for (unsigned p = 0; p < PORTS; p++)
			rx_reset_left[p] = 20;
		bus->reset(8);
		bus->idle_cycles(40);
	}

	uint64_t now() const { return bus->cycle(); }

	void drive(unsigned c, uint64_t amount)
	{
		if (!amount && c % KINDS != TX_BYTES && c % KINDS != RX_BYTES)
			return;
		driven[c] += amount;
		history[c].push_back({now(), driven[c]});
	}

	// What had been driven of counter c by switch clock `cycle`.
	uint64_t driven_by(unsigned c, uint64_t cycle) const
	{
		const auto &h = history[c];
		auto it = std::upper_bound(h.begin(), h.end(), std::make_pair(cycle, UINT64_MAX));
		return it == h.begin() ? 0 : std::prev(it)->second;
	}

	// Called right after each switch clock edge: the TX pulses of the next clock, then every
	// RX edge until the next switch clock edge, in time order.
	void cycle()
	{
		uint8_t sent = 0, underrun = 0;
		uint64_t bytes = 0;
		for (unsigned p = 0; p < PORTS; p++) {
			unsigned b = 0;
			if (tx_max_bytes && p == 2) {
				sent |= 1u << p;
				b = 0xffff;
			} else if (tx_traffic && rng() % tx_one_in == 0) {
				if (rng() % 8 == 0) {
					underrun |= 1u << p;
				} else {
					sent |= 1u << p;
					b = rng() % 4 ? 60 + rng() % 1455 : rng() % 65536;
				}
			}
			if (sent >> p & 1) {
				drive(KINDS * p + TX_FRAMES, 1);
				drive(KINDS * p + TX_BYTES, b);
			}
			if (underrun >> p & 1)
				drive(KINDS * p + TX_UNDERRUNS, 1);
			bytes |= (uint64_t)b << (16 * p);
		}
		top->tx_frame_sent = sent;
		top->tx_underrun = underrun;
		top->tx_frame_bytes = bytes;
		if (core_stalls)
			top->core_stall = rng() % 3 == 0;

		const uint64_t t = now() * CLK_PS, until = t + CLK_PS;
		for (;;) {
			unsigned p = PORTS;
			for (unsigned q = 0; q < PORTS; q++)
				if (rx_next[q] <= until && (p == PORTS || rx_next[q] < rx_next[p]))
					p = q;
			if (p == PORTS)
				break;
			rx_next[p] += rx_period[p];
			top->rx_clk &= ~(1u << p);
			top->eval();
			top->rx_clk |= 1u << p;
			top->eval();
			rx_edge(p);
		}
		top->eval();
	}

	void set_bit(uint8_t &v, unsigned p, bool on) { v = (uint8_t)(on ? v | 1u << p : v & ~(1u << p)); }

	// After RX edge of port p: the values its MAC drives for the next one.
	void rx_edge(unsigned p)
	{
		uint8_t frame = top->rx_frame_received, fcs = top->rx_fcs_errors, runt = top->rx_runts,
			giant = top->rx_giants, pre = top->rx_preamble_errors, err = top->rx_errors,
			ovf = top->rx_overflows, rst = top->rx_rst;
		uint8_t *bits[7] = {&frame, &fcs, &runt, &giant, &pre, &err, &ovf};
		for (uint8_t *b : bits)
			set_bit(*b, p, false);
		uint64_t bytes = top->rx_bytes_received;
		bytes &= ~((uint64_t)0xffff << (16 * p));

		set_bit(rst, p, rx_reset_left[p] > 0);
		if (rx_reset_left[p] > 0) {
			rx_reset_left[p]--;
		} else {
			auto pulse = [&](unsigned e, uint16_t b) {
				// e: 0 frame, 1 fcs, 2 runt, 3 giant, 4 preamble, 5 rx_er, 6 overflow
				set_bit(*bits[e], p, true);
				unsigned c = KINDS * p + (e == 0 ? (unsigned)RX_FRAMES : (unsigned)RX_BYTES + e);
				drive(c, 1);
				if (e == 0) {
					bytes |= (uint64_t)b << (16 * p);
					drive(KINDS * p + RX_BYTES, b);
				}
			};
			for (auto &s : rx_script[p])
				pulse(s.first, s.second);
			rx_script[p].clear();
			if (overflow_in[p] == 0)
				pulse(6, 0);
			if (overflow_in[p] >= 0)
				overflow_in[p]--;
			if (rx_traffic && --rx_gap[p] == 0) {
				rx_gap[p] = MIN_RX_GAP + rng() % 200;
				unsigned kind = rng() % 10;
				if (kind < 5) {
					pulse(0, rng() % 4 ? 60 + rng() % 1455 : rng() % 65536);
					if (rng() % 4 == 0) {
						int d = (int)(rng() % 4);
						if (d == 0)
							pulse(6, 0);
						else
							overflow_in[p] = d - 1;
					}
				} else {
					pulse(kind - 4, 0);
				}
			} else if (!rx_traffic && rx_gap[p] == 0) {
				rx_gap[p] = 1;
			}
		}
		top->rx_frame_received = frame;
		top->rx_fcs_errors = fcs;
		top->rx_runts = runt;
		top->rx_giants = giant;
		top->rx_preamble_errors = pre;
		top->rx_errors = err;
		top->rx_overflows = ovf;
		top->rx_rst = rst;
		top->rx_bytes_received = bytes;
	}

	// Stops the pulses and lets the last ones through.
	void quiesce()
	{
		tx_traffic = rx_traffic = false;
		bus->idle_cycles(1);
		// a pending overflow and the RX clocks' last edges
		bus->idle_cycles(20 + 3 * 10);
	}

	// A counter's 64-bit value (low word first: it latches the high word); "" or the problem.
	std::string read64(unsigned c, uint64_t &value, uint64_t *start = nullptr,
			   uint64_t *end = nullptr)
	{
		if (start)
			*start = now();
		axil::Response lo = bus->read(counter_address(c));
		if (end)
			*end = now();
		axil::Response hi = bus->read(counter_address(c) + 4);
		if (lo.resp != axil::RESP_OKAY || hi.resp != axil::RESP_OKAY)
			return counter_name(c) + ": read answered " + std::to_string(lo.resp) + "/" +
			       std::to_string(hi.resp);
		value = (uint64_t)hi.data << 32 | lo.data;
		return "";
	}

	// Every counter equals what was driven since its clear.
	std::string check_all(const std::string &when)
	{
		for (unsigned c = 0; c < COUNTERS; c++) {
			uint64_t v = 0;
			std::string e = read64(c, v);
			if (!e.empty())
				return when + ": " + e;
			if (v != driven[c] - base[c])
				return when + ": " + counter_name(c) + " reads " + std::to_string(v) +
				       ", driven " + std::to_string(driven[c] - base[c]);
		}
		return bus->protocol_error();
	}

	// Clears counter c by a write to its low or high word (traffic stopped).
	std::string clear(unsigned c, bool high)
	{
		axil::Response r = bus->write(counter_address(c) + (high ? 4 : 0), (uint32_t)rng());
		if (r.resp != axil::RESP_OKAY)
			return counter_name(c) + ": clear answered " + std::to_string(r.resp);
		base[c] = driven[c];
		return "";
	}
};

std::string fmt_ns(uint64_t ps)
{
	char text[32];
	snprintf(text, sizeof text, "%.3f", ps / 1000.0);
	return text;
}

// ---- cases

tap::Result test_identity()
{
	Bench b(1);
	axil::Response type = b.bus->read(MAC_BASE), version = b.bus->read(MAC_BASE + 4);
	if (type.resp || type.data != 0x4d414320)
		return "type reads " + std::to_string(type.data) + " resp " + std::to_string(type.resp);
	if (version.resp || version.data != 0x00010001)
		return "version reads " + std::to_string(version.data);
	return b.check_all("after reset");
}

tap::Result test_random(uint64_t seed, uint64_t cycles)
{
	Bench b(seed);
	std::string periods;
	for (unsigned p = 0; p < PORTS; p++)
		periods += " " + fmt_ns(b.rx_period[p]);
	printf("# rx clock periods (ns):%s\n", periods.c_str());
	b.tx_one_in = 4 + (unsigned)(b.rng() % 40);
	uint64_t reads = 0, clears = 0;
	while (b.now() < cycles) {
		b.tx_traffic = b.rx_traffic = true;
		uint64_t burst_end = b.now() + 2000 + b.rng() % 20000;
		while (b.now() < burst_end && b.now() < cycles) {
			unsigned c = (unsigned)(b.rng() % COUNTERS);
			uint64_t v = 0, start = 0, end = 0;
			std::string e = b.read64(c, v, &start, &end);
			if (!e.empty())
				return e;
			uint64_t low = b.driven_by(c, start > LATENCY ? start - LATENCY : 0) - b.base[c];
			uint64_t high = b.driven_by(c, end) - b.base[c];
			if (b.driven_by(c, start > LATENCY ? start - LATENCY : 0) < b.base[c])
				low = 0;
			if (v < low || v > high)
				return counter_name(c) + " read " + std::to_string(v) + " at clock " +
				       std::to_string(start) + ", driven " + std::to_string(low) + " by " +
				       std::to_string(LATENCY) + " clocks before and " +
				       std::to_string(high) + " by the read";
			reads++;
			b.bus->idle_cycles((unsigned)(b.rng() % 50));
		}
		b.quiesce();
		std::string e = b.check_all("after a burst at clock " + std::to_string(b.now()));
		if (!e.empty())
			return e;
		for (unsigned n = (unsigned)(b.rng() % 4); n > 0; n--, clears++)
			if (!(e = b.clear((unsigned)(b.rng() % COUNTERS), b.rng() % 2)).empty())
				return e;
	}
	b.quiesce();
	std::string e = b.check_all("at the end");
	uint64_t total = 0;
	for (unsigned c = 0; c < COUNTERS; c++)
		total += c % KINDS == TX_BYTES || c % KINDS == RX_BYTES ? 0 : b.driven[c];
	printf("# %" PRIu64 " events, %" PRIu64 " reads in traffic, %" PRIu64 " clears\n", total,
	       reads, clears);
	return e;
}

tap::Result test_clear_words()
{
	Bench b(7);
	b.tx_traffic = b.rx_traffic = true;
	b.bus->idle_cycles(20000);
	b.quiesce();
	for (unsigned c = 0; c < COUNTERS; c++)
		if (b.driven[c] == 0)
			return counter_name(c) + ": no events to clear (the case needs them)";
	for (unsigned c = 0; c < COUNTERS; c++) {
		std::string e = b.clear(c, c % 2);
		if (e.empty())
			e = b.check_all("after clearing " + counter_name(c) + (c % 2 ? " (high)" : " (low)"));
		if (!e.empty())
			return e;
	}
	// and counting again from 0
	b.tx_traffic = b.rx_traffic = true;
	b.bus->idle_cycles(3000);
	b.quiesce();
	return b.check_all("counting after the clears");
}

tap::Result test_coincident()
{
	Bench b(11);
	for (unsigned round = 0; round < 20; round++) {
		for (unsigned p = 0; p < PORTS; p++)
			for (unsigned e = 0; e < 7; e++)
				b.rx_script[p].push_back({e, (uint16_t)(100 + round * 7 + p)});
		// one minimum frame of the slowest RX clock
		b.bus->idle_cycles(MIN_RX_GAP * 10 / 8 + 1);
	}
	b.quiesce();
	return b.check_all("every RX kind in the same RX clock");
}

// Leaves an odd number of each RX event (toggles high) on every port.
void odd_events(Bench &b)
{
	for (unsigned p = 0; p < PORTS; p++)
		for (unsigned e = 0; e < 7; e++)
			b.rx_script[p].push_back({e, 77});
	b.bus->idle_cycles(40);
}

tap::Result test_rx_reset()
{
	Bench b(13);
	odd_events(b);
	b.quiesce();
	std::string e = b.check_all("before rx_rst");
	if (!e.empty())
		return e;
	for (unsigned p = 0; p < PORTS; p++)
		b.rx_reset_left[p] = 19 + p; // board_reset_sync's shortest: 2^4 + 3
	b.bus->idle_cycles(100);
	if (!(e = b.check_all("after rx_rst (toggles back to 0)")).empty())
		return e;
	b.rx_traffic = true;
	b.bus->idle_cycles(3000);
	b.quiesce();
	return b.check_all("counting after rx_rst");
}

tap::Result test_reset()
{
	Bench b(17);
	b.tx_traffic = true;
	b.bus->idle_cycles(500);
	b.quiesce();
	odd_events(b);
	b.quiesce();
	b.bus->reset(4);
	for (unsigned c = 0; c < COUNTERS; c++)
		b.base[c] = b.driven[c];
	b.bus->idle_cycles(50);
	std::string e = b.check_all("after rst (RX toggles left high)");
	if (!e.empty())
		return e;
	b.tx_traffic = b.rx_traffic = true;
	b.bus->idle_cycles(3000);
	b.quiesce();
	return b.check_all("counting after rst");
}

tap::Result test_carry()
{
	Bench b(19);
	b.tx_max_bytes = true;
	b.bus->idle_cycles(65540);
	b.tx_max_bytes = false;
	b.quiesce();
	unsigned c = KINDS * 2 + TX_BYTES;
	if (b.driven[c] >> 32 == 0)
		return "the case did not pass 2^32 bytes";
	return b.check_all("past 2^32 bytes");
}

// The split: every address of the 64 KiB space, random, in random channel orders.
tap::Result test_split(uint64_t seed, uint64_t)
{
	Bench b(seed);
	b.core_stalls = true;
	b.tx_traffic = true; // the MAC block counts while it is read
	const axil::Order orders[3] = {axil::Order::together, axil::Order::aw_first,
				       axil::Order::w_first};
	unsigned core_reads = 0, core_writes = 0, mac_accesses = 0;
	for (unsigned n = 0; n < 3000; n++) {
		uint32_t addr;
		switch (b.rng() % 4) {
		case 0: addr = MAC_BASE + (uint32_t)(b.rng() % 0x1000); break;
		case 1: addr = (b.rng() % 2 ? 0x6ffc : 0x8000) + (uint32_t)(b.rng() % 8); break;
		default: addr = (uint32_t)(b.rng() % 0x10000); break;
		}
		addr &= ~3u;
		const bool mac = addr >= 0x7000 && addr < 0x8000;
		const unsigned core_resp = addr >= 0x8000 ? axil::RESP_DECERR
					 : (addr >> 12) == 6 ? axil::RESP_SLVERR : axil::RESP_OKAY;
		const std::string where = "address 0x" + [&] {
			char t[8];
			snprintf(t, sizeof t, "%04x", addr);
			return std::string(t);
		}();
		if (b.rng() % 2) {
			axil::Response r = b.bus->read(addr, (unsigned)(b.rng() % 4));
			if (mac) {
				mac_accesses++;
				const uint32_t off = addr & 0xfff;
				const bool counter = off >= 0x100 && off < 0x500 && (off & 0xff) < 8 * KINDS;
				// type, version; mdio_frame, mdio_command (reads 0), mdio_status
				const bool mdio = off >= 0x10 && off <= 0x18;
				const unsigned want = off < 8 || mdio || counter ? axil::RESP_OKAY
										 : axil::RESP_SLVERR;
				if (r.resp != want)
					return where + ": the MAC block answered " + std::to_string(r.resp) +
					       ", not " + std::to_string(want);
				if (off == 0 && r.data != 0x4d414320)
					return where + ": type reads " + std::to_string(r.data);
			} else {
				core_reads++;
				if (r.resp != core_resp || r.data != (0xc0de0000u | addr))
					return where + ": read " + std::to_string(r.data) + " resp " +
					       std::to_string(r.resp) + ", the core answers " +
					       std::to_string(0xc0de0000u | addr) + " resp " +
					       std::to_string(core_resp);
			}
		} else {
			axil::WriteTiming t;
			t.order = orders[b.rng() % 3];
			t.skew = (unsigned)(b.rng() % 4);
			t.b_delay = (unsigned)(b.rng() % 4);
			uint32_t data = (uint32_t)b.rng();
			unsigned strb = 1 + (unsigned)(b.rng() % 15);
			const uint32_t before = b.top->core_writes;
			axil::Response r = b.bus->write(addr, data, strb, t);
			if (mac) {
				mac_accesses++;
				const uint32_t off = addr & 0xfff;
				const bool counter = off >= 0x100 && off < 0x500 && (off & 0xff) < 8 * KINDS;
				// mdio_frame (rw) and mdio_command (pulse) take writes, mdio_status (ro) not
				const bool mdio = off == 0x10 || off == 0x14;
				const unsigned want = counter || mdio ? axil::RESP_OKAY : axil::RESP_SLVERR;
				if (r.resp != want)
					return where + ": write: the MAC block answered " +
					       std::to_string(r.resp) + ", not " + std::to_string(want);
				if (b.top->core_writes != before)
					return where + ": write reached the core";
			} else {
				core_writes++;
				if (r.resp != core_resp)
					return where + ": write resp " + std::to_string(r.resp) +
					       ", the core answers " + std::to_string(core_resp);
				if (b.top->core_writes != before + 1 || b.top->core_last_waddr != addr ||
				    b.top->core_last_wdata != data || b.top->core_last_wstrb != strb)
					return where + ": the write did not reach the core whole";
			}
		}
		if (b.top->core_reads != core_reads || b.top->core_writes != core_writes)
			return where + ": the core answered " + std::to_string(b.top->core_reads) +
			       " reads and " + std::to_string(b.top->core_writes) + " writes, " +
			       std::to_string(core_reads) + " and " + std::to_string(core_writes) +
			       " routed to it";
		if (!b.bus->protocol_error().empty())
			return where + ": " + b.bus->protocol_error();
	}
	printf("# %u core reads, %u core writes, %u MAC block accesses\n", core_reads, core_writes,
	       mac_accesses);
	return "";
}

} // namespace

int main(int argc, char **argv)
{
	tap::Options options = tap::parse(argc, argv, 100000);
	std::vector<tap::Test> tests = {
		{"identity", test_identity},
		{"clear_words", test_clear_words},
		{"coincident", test_coincident},
		{"rx_reset", test_rx_reset},
		{"reset", test_reset},
		{"carry", test_carry},
	};
	for (uint64_t seed : tap::seeds(options, {1, 2, 3}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles, test_random));
	for (uint64_t seed : tap::seeds(options, {1, 2}))
		tests.push_back(tap::seeded(options, "split", seed, options.cycles, test_split));
	return tap::run(tests, options);
}
