// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_flowlat_block: the flow-latency block (rtl/flowlat/flowlat_block.v: flowlat_regs,
 * flowlat_core, flowlat_ipfix; Verilator top flowlat_block, SET_BITS 11, CLOCKS_PER_US 125)
 * driven through its AXI4-Lite port only (tb/common/axil_master.h), with addresses, fields and
 * reset values from the generated C header (sw/driver/include/pktstats/regs.h):
 *
 *   - type, version and every read-write register's reset value; status.clearing after reset;
 *   - a rule (group 2, behind a rule 0 that does not match) and a stateful profile (5), the
 *     exporter's headers, export_ports, MTU 100 (taken as 200: 3 records a message);
 *   - export enabled: the template message, with m_axis_tuser = export_ports;
 *   - frames of one UDP flow on MAC port 2 with residences 5 us, 15 us (HIGH), 12 us, 1 us
 *     (LOW), a frame of another port no rule watches (unmatched), non-IPv4 frames on two ports
 *     and frames without RX stamp on two ports in the same clocks (the block's counters add the
 *     ports' simultaneous pulses);
 *   - the counters, lookups through the registers (in breach after HIGH, out after LOW, an
 *     unknown flow), the IPFIX data message: one message (the MTU's clamp) carrying HIGH then
 *     LOW with their 5-tuple, ports, residence, group, profile, thresholds, occupancy and TX
 *     stamp in NTP format;
 *   - the clear command (the lookup then misses), counters cleared by a write.
 *
 * Output is TAP (tap::Tally); the exit status is 1 if any check fails.
 */
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <verilated.h>

#include "Vflowlat_block.h"
#include "axil_master.h"
#include "pktstats/regs.h"
#include "tap_runner.h"
#include "wide_bits.h"

namespace {

using Top = Vflowlat_block;
using Bus = axil::Master<Top>;

std::string hex(uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "0x%" PRIx64, v);
	return buf;
}

std::string got(uint64_t value, uint64_t expected)
{
	return "got " + hex(value) + ", expected " + hex(expected);
}

uint32_t ip(unsigned a, unsigned b, unsigned c, unsigned d)
{
	return a << 24 | b << 16 | c << 8 | d;
}

// A frame leaving a MAC port, with its sideband
struct TapFrame {
	unsigned port = 0;
	std::vector<uint8_t> bytes;
	int32_t residence = 0;
	bool rx_valid = true;
	uint64_t tx_stamp = 0; // {seconds[31:0], nanoseconds[29:0]}
	unsigned ingress = 0;
	uint32_t occupancy = 0;
};

std::vector<uint8_t> ipv4_udp(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
	std::vector<uint8_t> b(64, 0);
	const uint8_t mac[12] = {0x02, 0, 0, 0, 0, 0xaa, 0x02, 0, 0, 0, 0, 0xbb};
	for (int i = 0; i < 12; i++)
		b[i] = mac[i];
	b[12] = 0x08;
	b[13] = 0x00;
	b[14] = 0x45;
	b[16] = 0;
	b[17] = 50; // total length
	b[22] = 64;
	b[23] = 17; // UDP
	for (int i = 0; i < 4; i++) {
		b[26 + i] = (uint8_t)(src >> (24 - 8 * i));
		b[30 + i] = (uint8_t)(dst >> (24 - 8 * i));
	}
	b[34] = (uint8_t)(sport >> 8);
	b[35] = (uint8_t)sport;
	b[36] = (uint8_t)(dport >> 8);
	b[37] = (uint8_t)dport;
	return b;
}

std::vector<uint8_t> arp()
{
	std::vector<uint8_t> b(64, 0);
	for (int i = 0; i < 6; i++)
		b[i] = 0xff;
	b[12] = 0x08;
	b[13] = 0x06;
	return b;
}

// An IPFIX frame seen on m_axis
struct OutFrame {
	std::vector<uint8_t> bytes;
	unsigned tuser = 0;
	bool tuser_stable = true;
};

class Bench {
public:
	Bench() : top(new Top), bus(*top)
	{
		top->m_axis_tready = 1;
		top->tod_seconds = TOD_SECONDS;
		bus.on_cycle = [this] { sample(); };
	}
	~Bench() { top->final(); }

	// Frames starting in the same clock on their ports, one word a clock
	void send(const std::vector<TapFrame> &frames)
	{
		size_t words = 0;
		for (const TapFrame &f : frames)
			words = std::max(words, (f.bytes.size() + 7) / 8);
		for (size_t w = 0; w < words; w++) {
			for (const TapFrame &f : frames) {
				const unsigned p = f.port;
				const size_t n = (f.bytes.size() + 7) / 8;
				const bool on = w < n;
				uint64_t data = 0;
				for (unsigned j = 0; j < 8 && 8 * w + j < f.bytes.size(); j++)
					data |= (uint64_t)f.bytes[8 * w + j] << (8 * j);
				set_bits(top->tap_tdata, 64 * p, 64, on ? data : 0);
				set_bit(top->tap_tvalid, p, on);
				set_bit(top->tap_tready, p, on);
				set_bit(top->tap_tlast, p, on && w == n - 1);
				set_bits(top->residence, 32 * p, 32, (uint32_t)f.residence);
				set_bit(top->rx_valid, p, f.rx_valid);
				set_bits(top->tx_stamp, 62 * p, 62, f.tx_stamp);
				top->ingress = (uint16_t)((top->ingress & ~(7u << 3 * p)) |
							  (f.ingress & 7u) << 3 * p);
				set_bits(top->occupancy, 20 * p, 20, f.occupancy);
			}
			bus.tick();
		}
		top->tap_tvalid = 0;
		top->tap_tready = 0;
		top->tap_tlast = 0;
		bus.idle_cycles(20); // the record through the FIFO and the table
	}

	uint32_t read(uint32_t addr) { return bus.read(addr).data; }
	void write(uint32_t addr, uint32_t data) { bus.write(addr, data); }
	uint64_t read64(uint32_t addr) { return bus.read64(addr); }
	void write48(uint32_t addr, uint64_t v)
	{
		write(addr, (uint32_t)v);
		write(addr + 4, (uint32_t)(v >> 32));
	}

	// Polls status.clearing until 0; false on timeout
	bool wait_cleared()
	{
		for (int i = 0; i < 2000; i++) {
			if (!(read(PKTSTATS_FLOWLAT_STATUS) & 1))
				return true;
			bus.idle_cycles(10);
		}
		return false;
	}

	// Polls lookup_status.done; returns the status, or ~0 on timeout
	uint32_t lookup(uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport, uint16_t dport)
	{
		write(PKTSTATS_FLOWLAT_LOOKUP_SRC_IP, src);
		write(PKTSTATS_FLOWLAT_LOOKUP_DST_IP, dst);
		write(PKTSTATS_FLOWLAT_LOOKUP_PORTS,
		      (uint32_t)dport << PKTSTATS_FLOWLAT_LOOKUP_PORTS_DPORT_SHIFT |
			      (uint32_t)sport << PKTSTATS_FLOWLAT_LOOKUP_PORTS_SPORT_SHIFT);
		write(PKTSTATS_FLOWLAT_LOOKUP_PROTOCOL, proto);
		write(PKTSTATS_FLOWLAT_COMMAND, PKTSTATS_FLOWLAT_COMMAND_LOOKUP_MASK);
		for (int i = 0; i < 100; i++) {
			const uint32_t s = read(PKTSTATS_FLOWLAT_LOOKUP_STATUS);
			if (s & 1)
				return s;
		}
		return ~0u;
	}

	// Runs until `n` frames came out or `cycles` passed
	bool wait_frames(size_t n, unsigned cycles)
	{
		for (unsigned i = 0; i < cycles && out.size() < n; i++)
			bus.tick();
		return out.size() >= n;
	}

	static constexpr uint32_t TOD_SECONDS = 1700000000u;
	std::unique_ptr<Top> top;
	Bus bus;
	std::vector<OutFrame> out;

private:
	template <typename T> static void set_bit(T &v, unsigned bit, bool on)
	{
		v = (T)((v & ~(1u << bit)) | (unsigned)on << bit);
	}

	void sample()
	{
		if (!(top->m_axis_tvalid && top->m_axis_tready))
			return;
		if (!in_frame) {
			current = OutFrame();
			current.tuser = top->m_axis_tuser;
			in_frame = true;
		}
		if (top->m_axis_tuser != current.tuser)
			current.tuser_stable = false;
		for (unsigned j = 0; j < 8; j++)
			if (top->m_axis_tkeep >> j & 1)
				current.bytes.push_back((uint8_t)(top->m_axis_tdata >> (8 * j)));
		if (top->m_axis_tlast) {
			out.push_back(current);
			in_frame = false;
		}
	}

	bool in_frame = false;
	OutFrame current;
};

uint32_t be32(const std::vector<uint8_t> &b, size_t at)
{
	return (uint32_t)b[at] << 24 | (uint32_t)b[at + 1] << 16 | (uint32_t)b[at + 2] << 8 |
	       b[at + 3];
}

uint16_t be16(const std::vector<uint8_t> &b, size_t at)
{
	return (uint16_t)(b[at] << 8 | b[at + 1]);
}

// One data record of the template (48 bytes), decoded
struct Record {
	uint64_t time;
	uint32_t src, dst;
	unsigned protocol, sport, dport;
	uint32_t ingress, egress;
	int32_t residence;
	unsigned kind, group, profile;
	int32_t high, low;
	uint32_t occupancy;
};

Record decode(const std::vector<uint8_t> &b, size_t at)
{
	Record r;
	r.time = (uint64_t)be32(b, at) << 32 | be32(b, at + 4);
	r.src = be32(b, at + 8);
	r.dst = be32(b, at + 12);
	r.protocol = b[at + 16];
	r.sport = be16(b, at + 17);
	r.dport = be16(b, at + 19);
	r.ingress = be32(b, at + 21);
	r.egress = be32(b, at + 25);
	r.residence = (int32_t)be32(b, at + 29);
	r.kind = b[at + 33];
	r.group = b[at + 34];
	r.profile = b[at + 35];
	r.high = (int32_t)be32(b, at + 36);
	r.low = (int32_t)be32(b, at + 40);
	r.occupancy = be32(b, at + 44);
	return r;
}

int run()
{
	tap::Tally report;
	Bench b;
	b.bus.reset();

	// ------------------------------------------------------------------------------------
	// Identity and reset values

	report(b.read(PKTSTATS_FLOWLAT_TYPE) == PKTSTATS_FLOWLAT_TYPE_VALUE, "type reads FLAT",
	       got(b.read(PKTSTATS_FLOWLAT_TYPE), PKTSTATS_FLOWLAT_TYPE_VALUE));
	report(b.read(PKTSTATS_FLOWLAT_VERSION) == PKTSTATS_FLOWLAT_VERSION_VALUE, "version",
	       got(b.read(PKTSTATS_FLOWLAT_VERSION), PKTSTATS_FLOWLAT_VERSION_VALUE));
	report(b.read(PKTSTATS_FLOWLAT_STATUS) & 1, "status.clearing after reset");

	struct Reset {
		const char *name;
		uint32_t addr;
		uint32_t value;
	};
	const Reset resets[] = {
		{"control", PKTSTATS_FLOWLAT_CONTROL, PKTSTATS_FLOWLAT_CONTROL_RESET},
		{"idle_timeout_us", PKTSTATS_FLOWLAT_IDLE_TIMEOUT_US, 1000000},
		{"ipfix_ports", PKTSTATS_FLOWLAT_IPFIX_PORTS, 4739u << 16 | 4739u},
		{"observation_domain", PKTSTATS_FLOWLAT_OBSERVATION_DOMAIN, 0},
		{"enterprise_number", PKTSTATS_FLOWLAT_ENTERPRISE_NUMBER, 32473},
		{"template_interval_s", PKTSTATS_FLOWLAT_TEMPLATE_INTERVAL_S, 10},
		{"mtu", PKTSTATS_FLOWLAT_MTU, 1500},
		{"flush_timeout_us", PKTSTATS_FLOWLAT_FLUSH_TIMEOUT_US, 1000},
		{"ipfix_source_ip", PKTSTATS_FLOWLAT_IPFIX_SOURCE_IP, 0},
		{"rule_control_15", PKTSTATS_FLOWLAT_RULE_CONTROL(15), 0},
		{"profile_control_7", PKTSTATS_FLOWLAT_PROFILE_CONTROL(7), 0},
		{"lookup_status", PKTSTATS_FLOWLAT_LOOKUP_STATUS, 0},
	};
	for (const Reset &r : resets) {
		const uint32_t v = b.read(r.addr);
		report(v == r.value, std::string("reset value of ") + r.name, got(v, r.value));
	}
	report(b.read64(PKTSTATS_FLOWLAT_IPFIX_DESTINATION_MAC) == 0, "reset ipfix_destination_mac");
	report(b.read64(PKTSTATS_FLOWLAT_MONITORED) == 0 &&
		       b.read64(PKTSTATS_FLOWLAT_RECORDS_EXPORTED) == 0,
	       "counters 0 after reset");
	report(b.wait_cleared(), "status.clearing falls after the table's clear");

	// ------------------------------------------------------------------------------------
	// Configuration

	const uint32_t SRC = ip(10, 1, 2, 3), DST = ip(192, 168, 1, 10);
	const uint16_t SPORT = 1234, DPORT = 5000;
	const unsigned GROUP = 2, PROFILE = 5;
	const int32_t HIGH = 10000, LOW = 2000;

	// rule 0: TCP only (does not match the UDP flow, valid)
	b.write(PKTSTATS_FLOWLAT_RULE_CONTROL(0),
		6u << PKTSTATS_FLOWLAT_RULE_CONTROL_0_PROTOCOL_SHIFT |
			PKTSTATS_FLOWLAT_RULE_CONTROL_0_SPORT_ANY_MASK |
			PKTSTATS_FLOWLAT_RULE_CONTROL_0_DPORT_ANY_MASK |
			0xfu << PKTSTATS_FLOWLAT_RULE_CONTROL_0_EGRESS_PORTS_SHIFT |
			PKTSTATS_FLOWLAT_RULE_CONTROL_0_VALID_MASK);
	// rule 2: 10.0.0.0/8 -> 192.168.1.10/32, UDP, any source port, destination port 5000, MAC
	// ports 0 and 2, profile 5
	b.write(PKTSTATS_FLOWLAT_RULE_SRC_IP(GROUP), ip(10, 0, 0, 0));
	b.write(PKTSTATS_FLOWLAT_RULE_DST_IP(GROUP), DST);
	b.write(PKTSTATS_FLOWLAT_RULE_PORTS(GROUP),
		(uint32_t)DPORT << PKTSTATS_FLOWLAT_RULE_PORTS_0_DPORT_SHIFT | 77u);
	const uint32_t rule = 8u << PKTSTATS_FLOWLAT_RULE_CONTROL_0_SRC_LENGTH_SHIFT |
			      32u << PKTSTATS_FLOWLAT_RULE_CONTROL_0_DST_LENGTH_SHIFT |
			      17u << PKTSTATS_FLOWLAT_RULE_CONTROL_0_PROTOCOL_SHIFT |
			      PKTSTATS_FLOWLAT_RULE_CONTROL_0_SPORT_ANY_MASK |
			      0x5u << PKTSTATS_FLOWLAT_RULE_CONTROL_0_EGRESS_PORTS_SHIFT |
			      PROFILE << PKTSTATS_FLOWLAT_RULE_CONTROL_0_PROFILE_SHIFT |
			      PKTSTATS_FLOWLAT_RULE_CONTROL_0_VALID_MASK;
	b.write(PKTSTATS_FLOWLAT_RULE_CONTROL(GROUP), rule);
	b.write(PKTSTATS_FLOWLAT_PROFILE_HIGH(PROFILE), (uint32_t)HIGH);
	b.write(PKTSTATS_FLOWLAT_PROFILE_LOW(PROFILE), (uint32_t)LOW);
	b.write(PKTSTATS_FLOWLAT_PROFILE_CONTROL(PROFILE),
		PKTSTATS_FLOWLAT_PROFILE_CONTROL_0_STATEFUL_MASK);
	report(rule == 0xd5211808u && b.read(PKTSTATS_FLOWLAT_RULE_CONTROL(GROUP)) == rule,
	       "rule_control reads back", got(b.read(PKTSTATS_FLOWLAT_RULE_CONTROL(GROUP)), rule));

	const uint64_t DMAC = 0x020000000001ull, SMAC = 0x020000000002ull;
	const uint32_t EXP_SRC = ip(10, 9, 9, 1), EXP_DST = ip(10, 9, 9, 2);
	const unsigned EXPORT_PORTS = 0x90;
	b.write48(PKTSTATS_FLOWLAT_IPFIX_DESTINATION_MAC, DMAC);
	b.write48(PKTSTATS_FLOWLAT_IPFIX_SOURCE_MAC, SMAC);
	b.write(PKTSTATS_FLOWLAT_IPFIX_SOURCE_IP, EXP_SRC);
	b.write(PKTSTATS_FLOWLAT_IPFIX_DESTINATION_IP, EXP_DST);
	b.write(PKTSTATS_FLOWLAT_IPFIX_PORTS, 4739u << 16 | 40000u);
	b.write(PKTSTATS_FLOWLAT_OBSERVATION_DOMAIN, 77);
	b.write(PKTSTATS_FLOWLAT_FLUSH_TIMEOUT_US, 20);
	b.write(PKTSTATS_FLOWLAT_MTU, 100); // taken as 200: 3 records a message without template
	report(b.read(PKTSTATS_FLOWLAT_MTU) == 100, "mtu reads back what was written");
	b.write(PKTSTATS_FLOWLAT_CONTROL,
		PKTSTATS_FLOWLAT_CONTROL_MONITOR_ENABLE_MASK |
			PKTSTATS_FLOWLAT_CONTROL_EXPORT_ENABLE_MASK |
			EXPORT_PORTS << PKTSTATS_FLOWLAT_CONTROL_EXPORT_PORTS_SHIFT);

	// The template message, at once
	bool ok = b.wait_frames(1, 2000);
	report(ok, "a message when export is enabled");
	if (ok) {
		const OutFrame &f = b.out[0];
		const bool headers = f.bytes.size() == 58 + 96 && be16(f.bytes, 12) == 0x0800 &&
				     be32(f.bytes, 26) == EXP_SRC && be32(f.bytes, 30) == EXP_DST &&
				     be16(f.bytes, 34) == 40000 && be16(f.bytes, 36) == 4739 &&
				     be16(f.bytes, 42) == 10 &&
				     be32(f.bytes, 46) == Bench::TOD_SECONDS &&
				     be32(f.bytes, 54) == 77 && f.bytes[0] == 0x02 && f.bytes[5] == 0x01 &&
				     f.bytes[11] == 0x02;
		report(headers, "its headers are the registers'",
		       "length " + std::to_string(f.bytes.size()));
		report(be16(f.bytes, 58) == 2 && be16(f.bytes, 60) == 96 && be16(f.bytes, 62) == 256 &&
			       be32(f.bytes, 58 + 4 + 4 + 8 * 4 + 4) == 32473,
		       "it is the template, with the default PEN");
		report(f.tuser == EXPORT_PORTS && f.tuser_stable, "m_axis_tuser is export_ports",
		       got(f.tuser, EXPORT_PORTS));
	}

	// ------------------------------------------------------------------------------------
	// Traffic

	auto flow_frame = [&](int32_t residence, uint32_t ns) {
		TapFrame f;
		f.port = 2;
		f.bytes = ipv4_udp(SRC, DST, SPORT, DPORT);
		f.residence = residence;
		f.tx_stamp = (uint64_t)Bench::TOD_SECONDS << 30 | ns;
		f.ingress = 1;
		f.occupancy = 0x12345;
		return f;
	};
	b.send({flow_frame(5000, 100)});
	b.send({flow_frame(15000, 200000)}); // HIGH
	uint32_t s = b.lookup(SRC, DST, 17, SPORT, DPORT);
	report(s != ~0u && (s & 0xf7) == (GROUP << 4 | 0x7), "lookup after HIGH: found, breach, group 2",
	       got(s, GROUP << 4 | 0x7));
	b.send({flow_frame(12000, 300000)});
	b.send({flow_frame(1000, 400000)}); // LOW

	// Another port no rule watches; two non-IPv4 and two unstamped frames in the same clocks
	TapFrame other = flow_frame(50000, 0);
	other.port = 1;
	b.send({other});
	TapFrame a0, a3;
	a0.port = 0;
	a0.bytes = arp();
	a3.port = 3;
	a3.bytes = arp();
	TapFrame n1 = flow_frame(0, 0), n2 = flow_frame(0, 0);
	n1.port = 1;
	n1.rx_valid = false;
	n2.port = 2;
	n2.rx_valid = false;
	b.send({a0, a3, n1, n2});

	struct Count {
		const char *name;
		uint32_t addr;
		uint64_t value;
	};
	const Count counts[] = {
		{"monitored", PKTSTATS_FLOWLAT_MONITORED, 4},
		{"unmatched", PKTSTATS_FLOWLAT_UNMATCHED, 1},
		{"table_full", PKTSTATS_FLOWLAT_TABLE_FULL, 0},
		{"evicted", PKTSTATS_FLOWLAT_EVICTED, 0},
		{"events", PKTSTATS_FLOWLAT_EVENTS, 2},
		{"events_lost", PKTSTATS_FLOWLAT_EVENTS_LOST, 0},
		{"records_lost", PKTSTATS_FLOWLAT_RECORDS_LOST, 0},
		{"not_ipv4 (2 in one clock)", PKTSTATS_FLOWLAT_NOT_IPV4, 2},
		{"no_stamp (2 in one clock)", PKTSTATS_FLOWLAT_NO_STAMP, 2},
	};
	for (const Count &c : counts) {
		const uint64_t v = b.read64(c.addr);
		report(v == c.value, std::string("counter ") + c.name, got(v, c.value));
	}

	s = b.lookup(SRC, DST, 17, SPORT, DPORT);
	report(s != ~0u && (s & 0xf7) == (GROUP << 4 | 0x3),
	       "lookup after LOW: found, not in breach, group 2", got(s, GROUP << 4 | 0x3));
	report(b.read(PKTSTATS_FLOWLAT_LOOKUP_PACKETS) == 4, "lookup: 4 packets",
	       got(b.read(PKTSTATS_FLOWLAT_LOOKUP_PACKETS), 4));
	report(b.read(PKTSTATS_FLOWLAT_LOOKUP_LAST_RESIDENCE) == 1000 &&
		       b.read(PKTSTATS_FLOWLAT_LOOKUP_MAX_RESIDENCE) == 15000,
	       "lookup: last residence 1 us, largest 15 us");
	const uint32_t seen = b.read(PKTSTATS_FLOWLAT_LOOKUP_LAST_SEEN_US);
	const uint32_t now = b.read(PKTSTATS_FLOWLAT_NOW_US);
	report(seen > 0 && seen <= now && now - seen < 100, "lookup: last seen shortly before now_us",
	       "seen " + std::to_string(seen) + ", now " + std::to_string(now));
	s = b.lookup(SRC, DST, 17, SPORT, DPORT + 1);
	report(s == 1, "lookup of an unknown flow: done, not found", got(s, 1));

	// The data message: both events in one (MTU 100 taken as 200), after the flush timeout
	ok = b.wait_frames(2, 20000);
	b.bus.idle_cycles(4000);
	report(ok && b.out.size() == 2, "one data message for the two events",
	       "frames " + std::to_string(b.out.size()));
	if (ok) {
		const OutFrame &f = b.out[1];
		report(f.tuser == EXPORT_PORTS && f.tuser_stable, "its m_axis_tuser is export_ports",
		       got(f.tuser, EXPORT_PORTS));
		const bool shape = f.bytes.size() == 58 + 4 + 2 * 48 && be16(f.bytes, 58) == 256 &&
				   be16(f.bytes, 60) == 4 + 2 * 48;
		report(shape, "a data set of two records", "length " + std::to_string(f.bytes.size()));
		if (shape) {
			const unsigned kinds[2] = {2, 3};
			const int32_t res[2] = {15000, 1000};
			const uint32_t ns[2] = {200000, 400000};
			for (int i = 0; i < 2; i++) {
				const Record r = decode(f.bytes, 62 + 48 * i);
				const std::string n = i ? "LOW" : "HIGH";
				report(r.kind == kinds[i] && r.residence == res[i],
				       "record " + std::to_string(i) + ": " + n + ", residence",
				       "kind " + std::to_string(r.kind) + ", residence " +
					       std::to_string(r.residence));
				report(r.src == SRC && r.dst == DST && r.protocol == 17 &&
					       r.sport == SPORT && r.dport == DPORT,
				       "record " + std::to_string(i) + ": 5-tuple");
				report(r.ingress == 1 && r.egress == 2 && r.group == GROUP &&
					       r.profile == PROFILE && r.high == HIGH && r.low == LOW &&
					       r.occupancy == 0x12345,
				       "record " + std::to_string(i) +
					       ": ports, group, profile, thresholds, occupancy");
				const uint64_t frac = ((uint64_t)ns[i] << 32) / 1000000000ull;
				const uint32_t sec = (uint32_t)(Bench::TOD_SECONDS + 2208988800ull);
				const uint32_t rf = (uint32_t)r.time;
				report((uint32_t)(r.time >> 32) == sec && rf + 1 >= frac && rf <= frac + 1,
				       "record " + std::to_string(i) + ": TX stamp in NTP format",
				       got(r.time, (uint64_t)sec << 32 | frac));
			}
		}
	}
	const Count exported[] = {
		{"messages", PKTSTATS_FLOWLAT_MESSAGES, 2},
		{"templates", PKTSTATS_FLOWLAT_TEMPLATES, 1},
		{"records_exported", PKTSTATS_FLOWLAT_RECORDS_EXPORTED, 2},
	};
	for (const Count &c : exported) {
		const uint64_t v = b.read64(c.addr);
		report(v == c.value, std::string("counter ") + c.name, got(v, c.value));
	}
	report((b.read(PKTSTATS_FLOWLAT_STATUS) & 0x1fff01) == 0,
	       "status: not clearing, nothing waiting", got(b.read(PKTSTATS_FLOWLAT_STATUS), 0));

	// ------------------------------------------------------------------------------------
	// Clear command, counters clear on write

	b.write(PKTSTATS_FLOWLAT_COMMAND, PKTSTATS_FLOWLAT_COMMAND_CLEAR_MASK);
	report(b.read(PKTSTATS_FLOWLAT_STATUS) & 1, "status.clearing after the clear command");
	report(b.wait_cleared(), "the clear ends");
	s = b.lookup(SRC, DST, 17, SPORT, DPORT);
	report(s == 1, "after the clear, the lookup misses", got(s, 1));
	report(b.read64(PKTSTATS_FLOWLAT_MONITORED) == 4, "the clear command keeps the counters");

	b.write(PKTSTATS_FLOWLAT_MONITORED, 0);
	b.write(PKTSTATS_FLOWLAT_NOT_IPV4 + 4, 0x1234);
	report(b.read64(PKTSTATS_FLOWLAT_MONITORED) == 0, "monitored clears on a write (low word)");
	report(b.read64(PKTSTATS_FLOWLAT_NOT_IPV4) == 0, "not_ipv4 clears on a write (high word)");
	report(b.read64(PKTSTATS_FLOWLAT_EVENTS) == 2, "events unchanged by the others' clear");

	report(b.bus.protocol_error().empty(), "AXI4-Lite protocol", b.bus.protocol_error());
	return report.finish();
}

} // namespace

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	return run();
}
