// SPDX-License-Identifier: BSD-3-Clause
//
// test_flowlat_core: the flow-latency monitor (rtl/flowlat/flowlat_core.v, SET_BITS 11,
// CLOCKS_PER_US 125) against an independent reference model written from the modules' header
// comments: the taps' classification and records, the rules (first match in index order), the
// flow table (zlib's crc32 of the 13 key bytes for the set, 4 ways, free else stale else
// table_full), the stateless and stateful profiles and the event FIFO (64).
//
// The harness drives the 4 ports' output streams (random gaps and tready stalls, garbage on
// the bus and the sideband outside handshakes) and keeps at most 12 records in flight, so that
// no record is lost; in the order-sensitive scenarios no two ports finish a record in the same
// clock, so the table sees the records in the order the model does. Time: the model knows
// now_us only to within the records' few tens of clocks of latency; it asserts that every
// interval and staleness decision is far enough from its boundary to be certain.
//
// Checks: every event popped from m_event (per flow, in order, none missing or extra), the
// counters' pulses, and every flow's state by host lookup. Scenarios: stateful hysteresis,
// stateless with and without min_interval, rule priority, 4096 flows, a full set and stale
// eviction, the event FIFO full, command_clear, random traffic on all 4 ports, and the table's
// throughput with 4 ports of 5-word frames back to back. Prints TAP; `--seed N` replays.

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "Vflowlat_core.h"
#include "tap_runner.h"
#include "wide_bits.h"
#include "verilated.h"

namespace {

const unsigned SET_BITS = 11;
const unsigned WAYS = 4;
const uint64_t CLOCKS_PER_US = 125;
const unsigned EVENT_FIFO = 64;
const unsigned MAX_IN_FLIGHT = 12;    // records between the taps and the table (FIFO holds 16)
const uint64_t MAX_LATENCY = 120;     // clocks from a record's last word to its table update

std::string ip_str(uint32_t ip)
{
	char text[32];
	snprintf(text, sizeof text, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
	return text;
}

struct Key {
	uint32_t src = 0, dst = 0;
	uint8_t proto = 0;
	uint16_t sport = 0, dport = 0;

	std::array<uint8_t, 13> bytes() const
	{
		return {(uint8_t)(src >> 24), (uint8_t)(src >> 16), (uint8_t)(src >> 8), (uint8_t)src,
			(uint8_t)(dst >> 24), (uint8_t)(dst >> 16), (uint8_t)(dst >> 8), (uint8_t)dst,
			proto, (uint8_t)(sport >> 8), (uint8_t)sport, (uint8_t)(dport >> 8), (uint8_t)dport};
	}
	bool operator<(const Key &o) const { return bytes() < o.bytes(); }
	bool operator==(const Key &o) const { return bytes() == o.bytes(); }
	std::string str() const
	{
		return ip_str(src) + ">" + ip_str(dst) + " p" + std::to_string(proto) + " " +
		       std::to_string(sport) + ">" + std::to_string(dport);
	}
};

// The independent implementation of the set: zlib's crc32 of the key in network order
unsigned set_of(const Key &key)
{
	std::array<uint8_t, 13> b = key.bytes();
	return (unsigned)(crc32(0, b.data(), 13) & ((1u << SET_BITS) - 1));
}

struct Record {
	Key key;
	unsigned ingress = 0, egress = 0;
	int32_t residence = 0;
	uint64_t tx_stamp = 0;
	uint32_t occupancy = 0;
	bool operator==(const Record &o) const
	{
		return key == o.key && ingress == o.ingress && egress == o.egress &&
		       residence == o.residence && tx_stamp == o.tx_stamp && occupancy == o.occupancy;
	}
};

struct Event {
	unsigned kind = 0, group = 0, profile = 0;
	int32_t low = 0, high = 0;
	Record rec;
	bool operator==(const Event &o) const
	{
		return kind == o.kind && group == o.group && profile == o.profile && low == o.low &&
		       high == o.high && rec == o.rec;
	}
	std::string str() const
	{
		char text[300];
		snprintf(text, sizeof text,
			 "{kind %u group %u profile %u low %d high %d | %s in %u out %u res %d tx %" PRIx64
			 " occ %u}",
			 kind, group, profile, low, high, rec.key.str().c_str(), rec.ingress, rec.egress,
			 rec.residence, rec.tx_stamp, rec.occupancy);
		return text;
	}
};

struct Frame {
	std::vector<uint8_t> bytes;
	bool rx_valid = true;
	int32_t residence = 0;
	uint64_t tx_stamp = 0;
	unsigned ingress = 0;
	uint32_t occupancy = 0;
	unsigned words() const { return (unsigned)((bytes.size() + 7) / 8); }
	uint64_t word(unsigned i) const
	{
		uint64_t w = 0;
		for (unsigned k = 0; k < 8; k++)
			if (8 * i + k < bytes.size())
				w |= (uint64_t)bytes[8 * i + k] << (8 * k);
		return w;
	}
};

// ---------------------------------------------------------------------------------------------
// The model

enum Outcome { RECORD, NOT_IPV4, NO_STAMP };

// The tap's view of a frame (flowlat_tap's header)
Outcome classify(const Frame &f, Record *rec, unsigned port)
{
	const std::vector<uint8_t> &b = f.bytes;
	if (f.words() < 5)
		return NOT_IPV4;  // shorter than 5 words: counted with not_ipv4 (as the RTL does)
	if (b[12] != 0x08 || b[13] != 0x00 || b[14] != 0x45)
		return NOT_IPV4;
	if (!f.rx_valid)
		return NO_STAMP;
	rec->key.src = (uint32_t)b[26] << 24 | b[27] << 16 | b[28] << 8 | b[29];
	rec->key.dst = (uint32_t)b[30] << 24 | b[31] << 16 | b[32] << 8 | b[33];
	rec->key.proto = b[23];
	unsigned offset = (b[20] & 0x1f) << 8 | b[21];
	bool ports = (b[23] == 6 || b[23] == 17) && offset == 0;
	rec->key.sport = ports ? (uint16_t)(b[34] << 8 | b[35]) : 0;
	rec->key.dport = ports ? (uint16_t)(b[36] << 8 | b[37]) : 0;
	rec->ingress = f.ingress;
	rec->egress = port;
	rec->residence = f.residence;
	rec->tx_stamp = f.tx_stamp;
	rec->occupancy = f.occupancy;
	return RECORD;
}

struct Rule {
	bool valid = false;
	uint32_t src = 0, dst = 0;
	unsigned src_len = 0, dst_len = 0;  // 0..63
	uint8_t proto = 0;
	bool proto_any = true;
	uint16_t sport = 0, dport = 0;
	bool sport_any = true, dport_any = true;
	unsigned egress = 0xf, profile = 0;
};

struct Profile {
	int32_t high = INT32_MAX, low = INT32_MIN;
	uint32_t min_interval = 0;
	bool stateful = false;
};

uint32_t prefix(unsigned len)
{
	if (len == 0)
		return 0;
	if (len >= 32)
		return 0xffffffffu;
	return ~(0xffffffffu >> len);
}

// A time in us known to within [lo, hi]
struct Span {
	int64_t lo = 0, hi = 0;
};

struct Flow {
	unsigned group = 0;
	bool breach = false;
	int32_t last = 0, max = 0;
	uint32_t packets = 0;
	Span last_seen;
	bool sent = false;
	Span last_event;
};

struct Counts {
	uint64_t not_ipv4[4] = {}, no_stamp[4] = {}, lost[4] = {};
	uint64_t monitored = 0, unmatched = 0, table_full = 0, evicted = 0, evicted_in_breach = 0,
		 events = 0, events_lost = 0;
};

struct Model {
	Rule rules[16];
	Profile profiles[8];
	uint32_t timeout = 0xffffffffu;
	std::map<Key, Flow> flows;                  // in the table
	std::map<unsigned, std::vector<Key>> sets;  // their sets
	std::set<Key> absent;                       // must not be found
	Counts counts;
	std::map<Key, std::vector<Event>> expected; // events to be popped, per flow
	unsigned fifo = 0;        // events in the event FIFO (never less than the DUT's)
	bool hold = false;        // m_event_ready held at 0: the FIFO's fill is exact
	std::string error;        // the harness's own margins broken

	int match(const Key &k, unsigned egress) const
	{
		for (int r = 0; r < 16; r++) {
			const Rule &u = rules[r];
			if (u.valid && ((k.src ^ u.src) & prefix(u.src_len)) == 0 &&
			    ((k.dst ^ u.dst) & prefix(u.dst_len)) == 0 && (u.proto_any || k.proto == u.proto) &&
			    (u.sport_any || k.sport == u.sport) && (u.dport_any || k.dport == u.dport) &&
			    ((u.egress >> egress) & 1))
				return r;
		}
		return -1;
	}

	void fail(const std::string &why)
	{
		if (error.empty())
			error = why;
	}

	// The record whose last word was taken at posedge `edge` (edges counted from reset)
	void process(const Record &rec, uint64_t edge)
	{
		Span now{(int64_t)(edge / CLOCKS_PER_US), (int64_t)((edge + MAX_LATENCY) / CLOCKS_PER_US)};
		int r = match(rec.key, rec.egress);
		if (r < 0) {
			counts.unmatched++;
			if (!flows.count(rec.key))
				absent.insert(rec.key);
			return;
		}
		const Profile &p = profiles[rules[r].profile];
		auto it = flows.find(rec.key);
		if (it == flows.end()) {
			std::vector<Key> &set = sets[set_of(rec.key)];
			if (set.size() >= WAYS) {
				std::vector<size_t> stale;
				for (size_t i = 0; i < set.size(); i++) {
					const Flow &f = flows[set[i]];
					int64_t age_lo = now.lo - f.last_seen.hi, age_hi = now.hi - f.last_seen.lo;
					if (age_lo > (int64_t)timeout)
						stale.push_back(i);
					else if (age_hi > (int64_t)timeout)
						fail("staleness of " + set[i].str() + " too close to call");
				}
				if (stale.size() > 1)
					fail("more than one stale way in the set of " + rec.key.str());
				if (stale.empty()) {
					counts.table_full++;
					absent.insert(rec.key);
					return;
				}
				Key old = set[stale[0]];
				counts.evicted++;
				counts.evicted_in_breach += flows[old].breach;
				flows.erase(old);
				absent.insert(old);
				set.erase(set.begin() + (long)stale[0]);
			}
			set.push_back(rec.key);
			absent.erase(rec.key);
			it = flows.emplace(rec.key, Flow()).first;
			it->second.packets = 0;
		}
		Flow &f = it->second;
		bool fresh = f.packets == 0;
		counts.monitored++;
		f.group = (unsigned)r;
		f.packets++;
		f.last = rec.residence;
		f.max = fresh || rec.residence > f.max ? rec.residence : f.max;
		f.last_seen = now;
		unsigned kind = 0;
		if (!p.stateful) {
			if (rec.residence > p.high) {
				bool passed = true;
				if (f.sent) {
					// now_us never runs backwards: the true difference is at least 0
					int64_t lo = std::max<int64_t>(0, now.lo - f.last_event.hi);
					int64_t hi = now.hi - f.last_event.lo;
					if (lo >= (int64_t)p.min_interval)
						passed = true;
					else if (hi < (int64_t)p.min_interval)
						passed = false;
					else
						fail("min_interval of " + rec.key.str() + " too close to call");
				}
				if (passed) {
					kind = 1;
					f.sent = true;
					f.last_event = now;
				}
			}
		} else if (!f.breach && rec.residence > p.high) {
			kind = 2;
			f.breach = true;
		} else if (f.breach && rec.residence < p.low) {
			kind = 3;
			f.breach = false;
		}
		if (!kind)
			return;
		if (!hold && fifo + MAX_IN_FLIGHT >= EVENT_FIFO)
			fail("the event FIFO may have filled up");
		if (fifo >= EVENT_FIFO) {
			counts.events_lost++;
			return;
		}
		Event e;
		e.kind = kind;
		e.group = (unsigned)r;
		e.profile = rules[r].profile;
		e.low = p.low;
		e.high = p.high;
		e.rec = rec;
		expected[rec.key].push_back(e);
		counts.events++;
		fifo++;
	}

	void clear()
	{
		for (auto &kv : flows)
			absent.insert(kv.first);
		flows.clear();
		sets.clear();
	}
};

// ---------------------------------------------------------------------------------------------
// Frames

Frame ipv4_frame(std::mt19937_64 &rng, const Key &k, int32_t residence, unsigned words = 0,
		 unsigned frag_offset = 0)
{
	Frame f;
	if (!words)
		words = 5 + (unsigned)(rng() % 6);
	f.bytes.resize(8 * words - (rng() % 8));
	if (f.bytes.size() < 38)
		f.bytes.resize(38);
	for (uint8_t &b : f.bytes)
		b = (uint8_t)rng();
	f.bytes[12] = 0x08;
	f.bytes[13] = 0x00;
	f.bytes[14] = 0x45;
	uint8_t flags = (uint8_t)(rng() % 4) << 5 & 0x60;  // DF, MF: do not matter
	f.bytes[20] = (uint8_t)(flags | ((frag_offset >> 8) & 0x1f));
	f.bytes[21] = (uint8_t)frag_offset;
	f.bytes[23] = k.proto;
	for (int i = 0; i < 4; i++) {
		f.bytes[26 + i] = (uint8_t)(k.src >> (24 - 8 * i));
		f.bytes[30 + i] = (uint8_t)(k.dst >> (24 - 8 * i));
	}
	if ((k.proto == 6 || k.proto == 17) && frag_offset == 0) {
		f.bytes[34] = (uint8_t)(k.sport >> 8);
		f.bytes[35] = (uint8_t)k.sport;
		f.bytes[36] = (uint8_t)(k.dport >> 8);
		f.bytes[37] = (uint8_t)k.dport;
	}
	f.residence = residence;
	f.tx_stamp = rng() & ((1ull << 62) - 1);
	f.ingress = (unsigned)(rng() % 8);
	f.occupancy = (uint32_t)(rng() & 0xfffff);
	return f;
}

// A frame that gives no record: VLAN tag, IP options, not IP, short, no RX stamp
Frame junk_frame(std::mt19937_64 &rng, const Key &k)
{
	Frame f = ipv4_frame(rng, k, (int32_t)(rng() % 100000));
	switch (rng() % 5) {
	case 0:
		f.bytes.insert(f.bytes.begin() + 12, {0x81, 0x00, (uint8_t)rng(), (uint8_t)rng()});
		break;
	case 1:
		f.bytes[14] = 0x46;
		break;
	case 2:
		f.bytes[12] = rng() % 2 ? 0x86 : 0x08;
		f.bytes[13] = f.bytes[12] == 0x86 ? 0xdd : 0x06;
		break;
	case 3:
		f.bytes.resize(1 + rng() % 32);  // 1..4 words
		break;
	default:
		f.rx_valid = false;
		break;
	}
	return f;
}

Key random_key(std::mt19937_64 &rng)
{
	Key k;
	k.src = (uint32_t)rng();
	k.dst = (uint32_t)rng();
	static const uint8_t protos[] = {6, 17, 1, 47};
	k.proto = protos[rng() % 4];
	if (k.proto == 6 || k.proto == 17) {
		k.sport = (uint16_t)rng();
		k.dport = (uint16_t)rng();
	}
	return k;
}

// ---------------------------------------------------------------------------------------------
// The bench

struct Port {
	std::deque<Frame> queue;
	bool active = false;
	Frame frame;
	Outcome outcome = RECORD;
	Record rec;
	unsigned word = 0;
};

struct Bench {
	VerilatedContext context;
	Vflowlat_core dut{&context};
	std::mt19937_64 rng;
	Model model;
	Port ports[4];
	uint64_t edges = 0;          // posedges since reset
	unsigned gap = 30, stall = 30, ready = 70;  // percent
	bool no_ties = true, pace = true, hold = false, model_on = true;
	int64_t in_flight = 0, started = 0;
	Counts got_counts;
	std::map<Key, std::vector<Event>> got;
	bool lookup_done = false;
	uint64_t first_monitored = 0, last_monitored = 0;

	explicit Bench(uint64_t seed) : rng(seed) {}

	void apply_config()
	{
		for (int r = 0; r < 16; r++) {
			const Rule &u = model.rules[r];
			// The registers rule_src_ip, rule_dst_ip, rule_ports and rule_control
			// (docs/regmap.md), lowest word first
			unsigned b = 128 * r;
			set_bits(dut.config_rules, b, 32, u.src);
			set_bits(dut.config_rules, b + 32, 32, u.dst);
			set_bits(dut.config_rules, b + 64, 32, u.sport | (uint32_t)u.dport << 16);
			set_bits(dut.config_rules, b + 96, 32,
				 u.src_len | u.dst_len << 6 | u.proto << 12 | (uint32_t)u.proto_any << 20 |
					 (uint32_t)u.sport_any << 21 | (uint32_t)u.dport_any << 22 |
					 u.egress << 24 | u.profile << 28 | (uint32_t)u.valid << 31);
		}
		for (int p = 0; p < 8; p++) {
			const Profile &q = model.profiles[p];
			unsigned b = 128 * p;
			set_bits(dut.config_profiles, b, 32, (uint32_t)q.high);
			set_bits(dut.config_profiles, b + 32, 32, (uint32_t)q.low);
			set_bits(dut.config_profiles, b + 64, 32, q.min_interval);
			set_bits(dut.config_profiles, b + 96, 32, q.stateful);
		}
		dut.config_idle_timeout_us = model.timeout;
		dut.config_enable = 1;
	}

	void tick()
	{
		dut.clk = 0;
		bool completing = false;
		for (unsigned p = 0; p < 4; p++) {
			Port &P = ports[p];
			if (!P.active && !P.queue.empty() && rng() % 100 >= gap &&
			    (!pace || in_flight + started < (int64_t)MAX_IN_FLIGHT)) {
				P.frame = P.queue.front();
				P.queue.pop_front();
				P.active = true;
				P.word = 0;
				P.outcome = classify(P.frame, &P.rec, p);
				started += P.outcome == RECORD;
			}
			bool valid = P.active && rng() % 100 >= gap;
			bool rdy = rng() % 100 >= stall;
			bool record_beat = P.active && P.outcome == RECORD && P.word == 4;
			if (valid && rdy && record_beat && no_ties && completing)
				valid = false;
			bool beat = valid && rdy;
			uint64_t data = rng();
			bool last = rng() % 2;
			if (P.active) {
				data = P.frame.word(P.word);
				last = P.word + 1 == P.frame.words();
			}
			set_bits(dut.tap_tdata, 64 * p, 64, data);
			dut.tap_tvalid = (uint8_t)((dut.tap_tvalid & ~(1u << p)) | (unsigned)valid << p);
			dut.tap_tready = (uint8_t)((dut.tap_tready & ~(1u << p)) | (unsigned)rdy << p);
			dut.tap_tlast = (uint8_t)((dut.tap_tlast & ~(1u << p)) | (unsigned)last << p);
			// the sideband: the frame's in its first word's handshake, garbage otherwise
			bool side = beat && P.word == 0;
			set_bits(dut.residence, 32 * p, 32, side ? (uint32_t)P.frame.residence : rng());
			dut.rx_valid = (uint8_t)((dut.rx_valid & ~(1u << p)) |
						 (unsigned)(side ? P.frame.rx_valid : rng() % 2) << p);
			set_bits(dut.tx_stamp, 62 * p, 62, side ? P.frame.tx_stamp : rng());
			dut.ingress = (uint16_t)((dut.ingress & ~(7u << 3 * p)) |
						 (unsigned)(side ? P.frame.ingress : rng() % 8) << 3 * p);
			set_bits(dut.occupancy, 20 * p, 20, side ? P.frame.occupancy : rng());
			if (!beat)
				continue;
			if (record_beat) {
				completing = true;
				started--;
				in_flight++;
				if (model_on)
					model.process(P.rec, edges + 1);
			}
			if (last) {
				if (model_on && P.outcome == NOT_IPV4)
					model.counts.not_ipv4[p]++;
				if (model_on && P.outcome == NO_STAMP)
					model.counts.no_stamp[p]++;
				P.active = false;
			}
			P.word++;
		}
		bool pop_ready = !hold && rng() % 100 < ready;
		dut.m_event_ready = pop_ready;
		dut.eval();
		if (dut.m_event_valid && pop_ready) {
			Event e = decode_event();
			got[e.rec.key].push_back(e);
			if (model.fifo)
				model.fifo--;
		}
		dut.clk = 1;
		dut.eval();
		edges++;
		for (unsigned p = 0; p < 4; p++) {
			got_counts.not_ipv4[p] += (dut.count_not_ipv4 >> p) & 1;
			got_counts.no_stamp[p] += (dut.count_no_stamp >> p) & 1;
			got_counts.lost[p] += (dut.count_records_lost >> p) & 1;
			in_flight -= (dut.count_records_lost >> p) & 1;
		}
		got_counts.monitored += dut.count_monitored;
		got_counts.unmatched += dut.count_unmatched;
		got_counts.table_full += dut.count_table_full;
		got_counts.evicted += dut.count_evicted;
		got_counts.evicted_in_breach += dut.count_evicted_in_breach;
		got_counts.events += dut.count_events;
		got_counts.events_lost += dut.count_events_lost;
		in_flight -= dut.count_monitored + dut.count_unmatched + dut.count_table_full;
		if (dut.count_monitored) {
			if (!first_monitored)
				first_monitored = edges;
			last_monitored = edges;
		}
		if (dut.lookup_done)
			lookup_done = true;
		dut.command_lookup = 0;
		dut.command_clear = 0;
		dut.clk = 0;
		dut.eval();
	}

	Event decode_event()
	{
		Event e;
		const auto &w = dut.m_event;
		e.rec.key.src = (uint32_t)get_bits(w, 0, 32);
		e.rec.key.dst = (uint32_t)get_bits(w, 32, 32);
		e.rec.key.proto = (uint8_t)get_bits(w, 64, 8);
		e.rec.key.sport = (uint16_t)get_bits(w, 72, 16);
		e.rec.key.dport = (uint16_t)get_bits(w, 88, 16);
		e.rec.ingress = (unsigned)get_bits(w, 104, 3);
		e.rec.egress = (unsigned)get_bits(w, 107, 2);
		e.rec.residence = (int32_t)(uint32_t)get_bits(w, 109, 32);
		e.rec.tx_stamp = get_bits(w, 141, 62);
		e.rec.occupancy = (uint32_t)get_bits(w, 203, 20);
		e.high = (int32_t)(uint32_t)get_bits(w, 223, 32);
		e.low = (int32_t)(uint32_t)get_bits(w, 255, 32);
		e.profile = (unsigned)get_bits(w, 287, 3);
		e.group = (unsigned)get_bits(w, 290, 4);
		e.kind = (unsigned)get_bits(w, 294, 2);
		return e;
	}

	void run(uint64_t clocks)
	{
		for (uint64_t i = 0; i < clocks; i++)
			tick();
	}

	bool busy() const
	{
		for (const Port &P : ports)
			if (P.active || !P.queue.empty())
				return true;
		return in_flight > 0;
	}

	// Until every frame is sent and handled and (unless held) every event popped
	bool quiesce()
	{
		for (uint64_t i = 0; i < 300000; i++) {
			tick();
			if (!busy() && (hold || !dut.m_event_valid)) {
				run(20);
				if (!busy() && (hold || !dut.m_event_valid))
					return true;
			}
		}
		return false;
	}

	void reset()
	{
		dut.command_clear = 0;
		dut.command_lookup = 0;
		dut.m_event_ready = 0;
		dut.tap_tvalid = 0;
		dut.tap_tready = 0;
		dut.rst = 1;
		dut.clk = 0;
		dut.eval();
		for (int i = 0; i < 4; i++) {
			dut.clk = 1;
			dut.eval();
			dut.clk = 0;
			dut.eval();
		}
		dut.rst = 0;
		edges = 0;
	}

	bool wait_clear()
	{
		for (int i = 0; i < 10000; i++) {
			tick();
			if (!dut.status_clearing)
				return true;
		}
		return false;
	}

	void clear()
	{
		dut.command_clear = 1;
		tick();
		run(4);
		wait_clear();
		model.clear();
	}

	struct Lookup {
		bool done = false, found = false, breach = false;
		unsigned group = 0;
		int32_t last = 0, max = 0;
		uint32_t packets = 0, last_seen = 0;
	};

	Lookup lookup(const Key &k)
	{
		set_bits(dut.lookup_key, 0, 32, k.src);
		set_bits(dut.lookup_key, 32, 32, k.dst);
		set_bits(dut.lookup_key, 64, 8, k.proto);
		set_bits(dut.lookup_key, 72, 16, k.sport);
		set_bits(dut.lookup_key, 88, 16, k.dport);
		lookup_done = false;
		dut.command_lookup = 1;
		tick();
		Lookup r;
		for (int i = 0; i < 100 && !lookup_done; i++)
			tick();
		r.done = lookup_done;
		r.found = dut.lookup_found;
		r.group = dut.lookup_group;
		r.breach = dut.lookup_breach;
		r.last = (int32_t)dut.lookup_last_residence;
		r.max = (int32_t)dut.lookup_max_residence;
		r.packets = dut.lookup_packets;
		r.last_seen = dut.lookup_last_seen_us;
		return r;
	}

	void send(unsigned port, const Frame &f) { ports[port].queue.push_back(f); }

	// ----- checks (at quiescence)

	std::string check_events()
	{
		std::set<Key> keys;
		for (auto &kv : model.expected)
			keys.insert(kv.first);
		for (auto &kv : got)
			keys.insert(kv.first);
		std::string why;
		for (const Key &k : keys) {
			const std::vector<Event> &want = model.expected[k], &have = got[k];
			for (size_t i = 0; i < std::max(want.size(), have.size()) && why.empty(); i++) {
				if (i >= have.size())
					why = "flow " + k.str() + " event " + std::to_string(i) + " missing: " + want[i].str();
				else if (i >= want.size())
					why = "flow " + k.str() + " extra event " + std::to_string(i) + ": " + have[i].str();
				else if (!(want[i] == have[i]))
					why = "flow " + k.str() + " event " + std::to_string(i) + ": got " + have[i].str() +
					      " expected " + want[i].str();
			}
			if (!why.empty())
				break;
		}
		size_t n = 0;
		for (auto &kv : got)
			n += kv.second.size();
		printf("# %zu events in %zu flows\n", n, got.size());
		model.expected.clear();
		got.clear();
		return why;
	}

	std::string check_counts(bool lost_too = true)
	{
		const Counts &m = model.counts, &d = got_counts;
		std::string why;
		auto cmp = [&](const char *name, uint64_t have, uint64_t want) {
			if (have != want)
				why += std::string(why.empty() ? "" : ", ") + name + " " + std::to_string(have) +
				       " expected " + std::to_string(want);
		};
		for (unsigned p = 0; p < 4; p++) {
			std::string n = std::to_string(p);
			cmp(("not_ipv4[" + n + "]").c_str(), d.not_ipv4[p], m.not_ipv4[p]);
			cmp(("no_stamp[" + n + "]").c_str(), d.no_stamp[p], m.no_stamp[p]);
			if (lost_too)
				cmp(("records_lost[" + n + "]").c_str(), d.lost[p], m.lost[p]);
		}
		cmp("monitored", d.monitored, m.monitored);
		cmp("unmatched", d.unmatched, m.unmatched);
		cmp("table_full", d.table_full, m.table_full);
		cmp("evicted", d.evicted, m.evicted);
		cmp("evicted_in_breach", d.evicted_in_breach, m.evicted_in_breach);
		cmp("events", d.events, m.events);
		cmp("events_lost", d.events_lost, m.events_lost);
		return why;
	}

	std::string check_lookups(const std::vector<Key> &extra_absent = {})
	{
		for (auto &kv : model.flows) {
			const Flow &f = kv.second;
			Lookup r = lookup(kv.first);
			std::string k = kv.first.str();
			if (!r.done)
				return "no lookup_done for " + k;
			if (!r.found)
				return "flow " + k + " not found";
			if (r.group != f.group || r.breach != f.breach || r.last != f.last || r.max != f.max ||
			    r.packets != f.packets)
				return "flow " + k + ": group/breach/last/max/packets " + std::to_string(r.group) + "/" +
				       std::to_string(r.breach) + "/" + std::to_string(r.last) + "/" +
				       std::to_string(r.max) + "/" + std::to_string(r.packets) + " expected " +
				       std::to_string(f.group) + "/" + std::to_string(f.breach) + "/" +
				       std::to_string(f.last) + "/" + std::to_string(f.max) + "/" +
				       std::to_string(f.packets);
			if ((int64_t)r.last_seen < f.last_seen.lo || (int64_t)r.last_seen > f.last_seen.hi)
				return "flow " + k + ": last seen " + std::to_string(r.last_seen) + " us, expected " +
				       std::to_string(f.last_seen.lo) + ".." + std::to_string(f.last_seen.hi);
		}
		std::vector<Key> absent(model.absent.begin(), model.absent.end());
		absent.insert(absent.end(), extra_absent.begin(), extra_absent.end());
		for (const Key &k : absent) {
			Lookup r = lookup(k);
			if (!r.done)
				return "no lookup_done for " + k.str();
			if (r.found)
				return "flow " + k.str() + " found, expected absent";
		}
		return "";
	}
};

Rule any_rule(unsigned profile, unsigned egress = 0xf)
{
	Rule r;
	r.valid = true;
	r.profile = profile;
	r.egress = egress;
	return r;
}

Rule prefix_rule(uint32_t src, unsigned src_len, uint32_t dst, unsigned dst_len, unsigned profile,
		 unsigned egress = 0xf)
{
	Rule r = any_rule(profile, egress);
	r.src = src;
	r.src_len = src_len;
	r.dst = dst;
	r.dst_len = dst_len;
	return r;
}

uint32_t ip(unsigned a, unsigned b, unsigned c, unsigned d) { return a << 24 | b << 16 | c << 8 | d; }

} // namespace

int main(int argc, char **argv)
{
	uint64_t seed = tap::seed_option(argc, argv);
	Bench bench(seed);
	Model &m = bench.model;
	std::mt19937_64 &rng = bench.rng;
	tap::Tally report;

	bench.apply_config();
	bench.reset();
	report(bench.wait_clear(), "the clear after reset ends", "status_clearing stays 1");
	bench.run(3);

	// Checks at a quiescent point; the model's own margin errors fail the check
	auto checkpoint = [&](const std::string &name, bool lookups = true,
			      const std::vector<Key> &extra_absent = {}) {
		bool quiet = bench.quiesce();
		report(quiet, name + ": traffic drained", "still busy");
		report(m.error.empty(), name + ": the harness's margins held", m.error);
		m.error.clear();
		std::string why = bench.check_events();
		report(why.empty(), name + ": events equal the model's", why);
		if (!bench.hold)
			m.fifo = 0;  // drained: so that a difference is reported once
		why = bench.check_counts();
		report(why.empty(), name + ": counters equal the model's", why);
		m.counts = bench.got_counts;  // so that a difference is reported once
		if (lookups) {
			why = bench.check_lookups(extra_absent);
			report(why.empty(), name + ": flow state by lookup equals the model's", why);
		}
		// keep a sample of the flows that must stay absent
		while (m.absent.size() > 300) {
			auto it = m.absent.begin();
			std::advance(it, (long)(rng() % m.absent.size()));
			m.absent.erase(it);
		}
	};
	auto sprinkle_junk = [&](unsigned n, const std::vector<Key> &keys) {
		for (unsigned i = 0; i < n; i++)
			bench.send((unsigned)(rng() % 4), junk_frame(rng, keys[rng() % keys.size()]));
	};

	// ----- (a) stateful hysteresis: strict > high and < low, twice over, negative thresholds
	{
		m.rules[0] = prefix_rule(0, 0, ip(10, 1, 0, 0), 16, 1);
		m.rules[1] = prefix_rule(0, 0, ip(10, 2, 0, 0), 16, 2);
		m.profiles[1] = {1000, 500, 0, true};
		m.profiles[2] = {-100, -200, 0, true};
		bench.apply_config();
		const std::vector<int32_t> up = {800, 1000, 1001, 1500, 500, 499, 1000, 1001, INT32_MAX,
						 499, INT32_MIN, 1001, 501, 500, 499, 1000, 2000, 400};
		const std::vector<int32_t> neg = {-150, -100, -99, -200, -201, -99, 0, -201, -100, -99,
						  -300, -150, -200, -199, -201};
		std::vector<Key> keys;
		for (unsigned f = 0; f < 6; f++) {
			Key k = random_key(rng);
			k.dst = ip(10, f < 3 ? 1 : 2, (unsigned)f, 7);
			keys.push_back(k);
		}
		size_t longest = std::max(up.size(), neg.size());
		for (size_t i = 0; i < longest; i++)
			for (unsigned f = 0; f < 6; f++) {
				const std::vector<int32_t> &seq = f < 3 ? up : neg;
				if (i < seq.size())  // each flow by one port: its sequence in order
					bench.send(f % 4, ipv4_frame(rng, keys[f], seq[i]));
			}
		sprinkle_junk(30, keys);
		checkpoint("(a) stateful hysteresis");
	}

	// ----- (b) stateless: min_interval 0, and 10 us with decisions far from the boundary
	{
		m.rules[2] = prefix_rule(ip(172, 16, 0, 0), 12, 0, 0, 3);
		m.rules[3] = prefix_rule(ip(192, 168, 0, 0), 16, 0, 0, 4);
		m.profiles[3] = {2000, 0, 0, false};
		m.profiles[4] = {2000, 0, 10, false};
		bench.apply_config();
		std::vector<Key> keys;
		for (unsigned f = 0; f < 4; f++) {
			Key k = random_key(rng);
			k.src = ip(172, 16 + f, 3, 4);
			keys.push_back(k);
		}
		const std::vector<int32_t> res = {1999, 2000, 2001, 5000, 2000, -3, 2001, 2001, INT32_MAX, 0};
		for (int32_t r : res)
			for (unsigned f = 0; f < keys.size(); f++)
				bench.send(f % 4, ipv4_frame(rng, keys[f], r));
		sprinkle_junk(10, keys);
		checkpoint("(b) stateless, min_interval 0");

		std::vector<Key> slow;
		for (unsigned f = 0; f < 3; f++) {
			Key k = random_key(rng);
			k.src = ip(192, 168, f, 9);
			slow.push_back(k);
		}
		bench.gap = 10;
		bench.stall = 10;
		unsigned waited = 0;
		for (unsigned i = 0; i < 60; i++) {
			const Key &k = slow[rng() % slow.size()];
			int32_t r = rng() % 5 ? 2001 + (int32_t)(rng() % 5000) : 2000 - (int32_t)(rng() % 3000);
			// wait until the decision is certain with 2 us to spare (the frame is done within
			// 80 clocks, handled within MAX_LATENCY)
			for (;;) {
				auto it = m.flows.find(k);
				if (it == m.flows.end() || !it->second.sent || r <= 2000)
					break;
				int64_t lo = (int64_t)(bench.edges / CLOCKS_PER_US) - it->second.last_event.hi;
				int64_t hi = (int64_t)((bench.edges + 80 + MAX_LATENCY) / CLOCKS_PER_US) -
					     it->second.last_event.lo;
				if (lo >= 10 + 2 || hi < 10 - 2)  // 2 us beyond the uncertainty
					break;
				bench.run(CLOCKS_PER_US);
				waited++;
			}
			bench.send((unsigned)(rng() % 4), ipv4_frame(rng, k, r, 5));
			bench.quiesce();
			bench.run(rng() % (4 * CLOCKS_PER_US));
		}
		printf("# (b) min_interval 10 us: 60 packets, %u us waited for certain decisions\n", waited);
		checkpoint("(b) stateless, min_interval 10 us");
		bench.gap = 30;
		bench.stall = 30;
	}

	// ----- (c) rule priority: overlapping prefixes, wildcards, egress masks, lengths 0/8/24/32
	{
		for (int r = 0; r < 16; r++)
			m.rules[r] = Rule();
		m.profiles[5] = {INT32_MIN, 0, 0, false};  // every packet an event (residence > MIN)
		m.profiles[6] = {INT32_MIN, 7, 0, false};
		m.profiles[7] = {INT32_MIN, 8, 0, false};
		m.profiles[0] = {INT32_MIN, 9, 0, false};
		// an invalid rule that would match everything
		m.rules[0] = any_rule(6);
		m.rules[0].valid = false;
		// exact host, protocol and destination port, ports 0 and 1 only
		m.rules[1] = prefix_rule(ip(10, 9, 9, 1), 32, ip(10, 9, 9, 200), 32, 5, 0x3);
		m.rules[1].proto_any = false;
		m.rules[1].proto = 6;
		m.rules[1].dport_any = false;
		m.rules[1].dport = 80;
		// length 40 is taken as 32
		m.rules[2] = prefix_rule(ip(10, 9, 9, 1), 40, 0, 0, 6, 0x4);
		// a /24 destination, UDP source port 53
		m.rules[3] = prefix_rule(0, 0, ip(10, 9, 9, 0), 24, 7);
		m.rules[3].proto_any = false;
		m.rules[3].proto = 17;
		m.rules[3].sport_any = false;
		m.rules[3].sport = 53;
		// egress mask 0: never matches
		m.rules[4] = prefix_rule(0, 0, 0, 0, 6, 0x0);
		// a /24 and the /8 around it
		m.rules[5] = prefix_rule(ip(10, 1, 2, 0), 24, 0, 0, 0, 0xa);
		m.rules[6] = prefix_rule(ip(10, 0, 0, 0), 8, ip(10, 9, 0, 0), 8, 5);
		m.rules[7] = prefix_rule(ip(10, 0, 0, 0), 8, 0, 0, 6, 0x5);
		// ICMP anywhere
		m.rules[9] = any_rule(7, 0xf);
		m.rules[9].proto_any = false;
		m.rules[9].proto = 1;
		// source 11/8 or destination port 443
		m.rules[11] = prefix_rule(ip(11, 0, 0, 0), 8, 0, 0, 0);
		m.rules[12] = any_rule(5, 0x7);
		m.rules[12].dport_any = false;
		m.rules[12].dport = 443;
		// the last: everything but port 3
		m.rules[15] = any_rule(6, 0x7);
		bench.apply_config();
		const uint32_t addrs[] = {ip(10, 9, 9, 1), ip(10, 9, 9, 200), ip(10, 9, 8, 1), ip(10, 1, 2, 3),
					  ip(10, 1, 3, 3), ip(11, 0, 0, 1), ip(192, 0, 2, 1), ip(10, 9, 9, 2),
					  ip(12, 9, 9, 1)};
		const uint16_t pts[] = {80, 53, 443, 1234};
		const uint8_t protos[] = {6, 17, 1, 6, 17};
		std::vector<Key> keys;
		std::set<Key> unique;
		while (keys.size() < 150) {
			Key k;
			k.src = addrs[rng() % 9];
			k.dst = addrs[rng() % 9];
			k.proto = protos[rng() % 5];
			if (k.proto != 1) {
				k.sport = pts[rng() % 4];
				k.dport = pts[rng() % 4];
			}
			if (unique.insert(k).second)
				keys.push_back(k);
		}
		for (unsigned i = 0; i < 600; i++) {
			const Key &k = keys[rng() % keys.size()];
			bool fragment = rng() % 10 == 0;
			bench.send((unsigned)(rng() % 4),
				   ipv4_frame(rng, k, (int32_t)(rng() % 200000) - 100000, 0,
					      fragment ? 1 + (unsigned)(rng() % 8000) : 0));
		}
		sprinkle_junk(40, keys);
		checkpoint("(c) rule priority");
	}

	// ----- (g) command_clear: every flow gone
	{
		std::vector<Key> before;
		for (auto &kv : m.flows)
			before.push_back(kv.first);
		bench.clear();
		std::string why = bench.check_lookups();
		report(why.empty() && !before.empty(),
		       "(g) after command_clear all " + std::to_string(before.size()) + " flows miss", why);
	}

	// ----- (d) 4096 concurrent flows; the model's crc32 says which sets run full
	{
		for (int r = 0; r < 16; r++)
			m.rules[r] = Rule();
		m.rules[8] = any_rule(0);
		m.profiles[0] = {INT32_MAX, INT32_MIN, 0, false};  // never an event
		bench.apply_config();
		std::set<Key> unique;
		std::vector<Key> keys;
		std::map<unsigned, unsigned> per_set;
		unsigned overflow = 0;
		while (keys.size() < 4096) {
			Key k = random_key(rng);
			if (k.proto == 1 || k.proto == 47)
				k.proto = 17;  // with ports
			if (!unique.insert(k).second)
				continue;
			keys.push_back(k);
			overflow += ++per_set[set_of(k)] > WAYS;
		}
		bench.gap = 5;
		bench.stall = 5;
		for (const Key &k : keys)
			bench.send((unsigned)(rng() % 4), ipv4_frame(rng, k, (int32_t)(rng() % 5000), 5));
		std::vector<Key> never;
		for (int i = 0; i < 50; i++)
			never.push_back(random_key(rng));
		checkpoint("(d) 4096 flows", true, never);
		printf("# (d) %zu flows monitored, %u hit a full set (model), table_full %" PRIu64 "\n",
		       m.flows.size(), overflow, bench.got_counts.table_full);
		report(m.flows.size() + overflow == 4096 && overflow > 0,
		       "(d) the model placed all but the " + std::to_string(overflow) + " flows of full sets");
		bench.gap = 30;
		bench.stall = 30;
		bench.clear();
	}

	// ----- (e) a full set, then stale flows evicted (in breach, and not)
	{
		m.rules[8] = any_rule(1);
		m.profiles[1] = {1000, 500, 0, true};
		m.timeout = 10;
		bench.apply_config();
		std::vector<Key> keys;
		Key first = random_key(rng);
		first.proto = 6;
		keys.push_back(first);
		while (keys.size() < 6) {
			Key k = first;
			k.sport = (uint16_t)rng();
			k.dport = (uint16_t)rng();
			if (set_of(k) == set_of(first) && !(k == first))
				keys.push_back(k);
		}
		auto one = [&](const Key &k, int32_t res) {
			bench.send((unsigned)(rng() % 4), ipv4_frame(rng, k, res, 5));
			bench.quiesce();
		};
		one(keys[0], 2000);  // A: in breach
		one(keys[1], 100);
		one(keys[2], 100);
		one(keys[3], 100);  // D: not in breach
		one(keys[4], 100);  // E: the set is full
		checkpoint("(e) 4 flows in a set, the 5th table_full");
		bench.run(25 * CLOCKS_PER_US);
		one(keys[1], 100);
		one(keys[2], 100);
		one(keys[3], 100);
		one(keys[4], 3000);  // E evicts A, in breach
		checkpoint("(e) a stale flow in breach evicted");
		bench.run(25 * CLOCKS_PER_US);
		one(keys[1], 100);
		one(keys[2], 100);
		one(keys[4], 100);   // E: LOW
		one(keys[5], 100);   // F evicts D
		checkpoint("(e) a stale flow not in breach evicted");
		report(bench.got_counts.evicted == 2 && bench.got_counts.evicted_in_breach == 1,
		       "(e) evicted 2, 1 of them in breach",
		       std::to_string(bench.got_counts.evicted) + ", " +
			       std::to_string(bench.got_counts.evicted_in_breach));
		m.timeout = 0xffffffffu;
		bench.apply_config();
		bench.clear();
	}

	// ----- (f) the event FIFO full: m_event_ready held at 0 for 100 events
	{
		m.rules[8] = prefix_rule(0, 0, ip(10, 0, 0, 0), 8, 1);  // stateful
		m.rules[9] = any_rule(5);                              // an event per packet
		bench.apply_config();
		report(m.fifo == 0 && !bench.dut.m_event_valid, "(f) the event FIFO starts empty");
		std::vector<Key> keys;
		for (int i = 0; i < 10; i++) {
			Key k = random_key(rng);
			if (i < 4)
				k.dst = ip(10, 0, 0, (unsigned)i);
			keys.push_back(k);
		}
		bench.hold = m.hold = true;
		for (int i = 0; i < 160; i++)
			bench.send((unsigned)(rng() % 4), ipv4_frame(rng, keys[rng() % keys.size()],
							     rng() % 2 ? 2000 : 100));
		bench.quiesce();
		uint64_t lost = m.counts.events_lost;
		report(lost > 0 && bench.got_counts.events_lost == lost,
		       "(f) events_lost " + std::to_string(lost) + " with the FIFO full",
		       "DUT " + std::to_string(bench.got_counts.events_lost));
		report(bench.dut.m_event_valid && bench.dut.m_event_count == EVENT_FIFO,
		       "(f) m_event_count shows the 64 waiting events",
		       "m_event_count " + std::to_string(bench.dut.m_event_count));
		bench.hold = m.hold = false;
		checkpoint("(f) the FIFO's 64 events, then the rest lost");
	}

	// ----- (h) all 4 ports at once, random traffic (flows bound to ports, no set overfull)
	{
		bench.clear();
		printf("# (h) seed %" PRIu64 " (replay: --seed %" PRIu64 ")\n", seed, seed);
		bench.no_ties = false;
		bench.gap = (unsigned)(rng() % 60);
		bench.stall = (unsigned)(rng() % 60);
		bench.ready = 40 + (unsigned)(rng() % 60);
		std::vector<uint32_t> nets;
		for (int i = 0; i < 6; i++)
			nets.push_back((uint32_t)rng());
		for (int r = 0; r < 16; r++) {
			Rule u;
			u.valid = rng() % 8 != 0;
			u.src = nets[rng() % nets.size()];
			u.dst = nets[rng() % nets.size()];
			static const unsigned lens[] = {0, 0, 8, 16, 24, 32};
			u.src_len = lens[rng() % 6];
			u.dst_len = lens[rng() % 6];
			u.proto_any = rng() % 3 != 0;
			u.proto = rng() % 2 ? 6 : 17;
			u.egress = (unsigned)(rng() % 16);
			u.profile = (unsigned)(rng() % 8);
			m.rules[r] = u;
		}
		for (int p = 0; p < 8; p++) {
			int32_t hi = (int32_t)(rng() % 4000) - 1000;
			m.profiles[p] = {hi, hi - (int32_t)(rng() % 2000), 0, rng() % 2 == 0};
		}
		bench.apply_config();
		std::vector<Key> keys;
		std::vector<unsigned> port_of;
		std::map<unsigned, unsigned> per_set;
		while (keys.size() < 300) {
			Key k = random_key(rng);
			uint32_t mask = (uint32_t)rng() >> (8 + rng() % 24);
			k.src = (nets[rng() % nets.size()] & ~mask) | (k.src & mask);
			k.dst = (nets[rng() % nets.size()] & ~mask) | (k.dst & mask);
			if (m.flows.count(k) || per_set[set_of(k)] >= WAYS ||
			    std::find(keys.begin(), keys.end(), k) != keys.end())
				continue;
			per_set[set_of(k)]++;
			keys.push_back(k);
			port_of.push_back((unsigned)(rng() % 4));
		}
		for (int i = 0; i < 3000; i++) {
			size_t f = rng() % keys.size();
			if (rng() % 10 == 0)
				bench.send((unsigned)(rng() % 4), junk_frame(rng, keys[f]));
			else
				bench.send(port_of[f], ipv4_frame(rng, keys[f], (int32_t)(rng() % 6000) - 2000));
		}
		checkpoint("(h) random traffic on 4 ports");
		bench.no_ties = true;
		bench.gap = bench.stall = 30;
		bench.ready = 70;
	}

	// ----- now_us counts microseconds from reset
	{
		int64_t now = bench.dut.now_us, want = (int64_t)(bench.edges / CLOCKS_PER_US);
		report(now == want || now == want - 1, "now_us " + std::to_string(now) + " after " +
							       std::to_string(bench.edges) + " clocks");
	}

	// ----- throughput: 4 ports, 5-word frames back to back, no pacing
	{
		bench.clear();
		for (int r = 0; r < 16; r++)
			m.rules[r] = Rule();
		m.rules[0] = any_rule(0);
		m.profiles[0] = {INT32_MAX, INT32_MIN, 0, false};
		bench.apply_config();
		bench.model_on = false;
		bench.pace = false;
		bench.no_ties = false;
		bench.gap = bench.stall = 0;
		Counts before = bench.got_counts;
		std::vector<Key> keys;
		for (int i = 0; i < 16; i++)
			keys.push_back(random_key(rng));
		const unsigned per_port = 1000;
		for (unsigned p = 0; p < 4; p++)
			for (unsigned i = 0; i < per_port; i++)
				bench.send(p, ipv4_frame(rng, keys[(4 * i + p) % 16], 10, 5));
		bench.first_monitored = 0;
		bench.quiesce();
		report(bench.dut.status_records_waiting == 0, "throughput: no record waiting afterwards");
		uint64_t monitored = bench.got_counts.monitored - before.monitored, lost = 0;
		for (unsigned p = 0; p < 4; p++)
			lost += bench.got_counts.lost[p] - before.lost[p];
		uint64_t clocks = bench.last_monitored - bench.first_monitored + 1;
		double rate = (double)(monitored - 1) / (double)(clocks - 1);
		printf("# throughput: %" PRIu64 " records in %" PRIu64 " clocks = %.4f records/clock "
		       "(%.2f clocks/record) with 4 ports offering 0.8/clock; records_lost %" PRIu64 "\n",
		       monitored, clocks, rate, 1.0 / rate, lost);
		uint64_t packets = 0;
		for (const Key &k : keys)
			packets += bench.lookup(k).packets;
		report(monitored + lost == 4 * per_port && packets == monitored,
		       "throughput: every record monitored or counted in records_lost",
		       "monitored " + std::to_string(monitored) + " lost " + std::to_string(lost) +
			       " packets " + std::to_string(packets));
		report(rate > 0.245 && rate <= 0.25, "throughput: one record per 4 clocks");
		// the round robin shares the table: every port loses about as many records
		std::string spread;
		for (unsigned p = 0; p < 4; p++) {
			uint64_t port_lost = bench.got_counts.lost[p] - before.lost[p];
			spread += (p ? " " : "") + std::to_string(port_lost);
			if (port_lost * 4 + 4 * per_port / 20 < lost || port_lost * 4 > lost + 4 * per_port / 20)
				spread += "!";
		}
		printf("# throughput: records_lost per port %s\n", spread.c_str());
		report(spread.find('!') == std::string::npos,
		       "throughput: the round robin shares the table fairly (records_lost per port within 5%)",
		       spread);
	}

	return report.finish();
}
