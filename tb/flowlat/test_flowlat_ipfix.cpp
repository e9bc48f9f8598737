// SPDX-License-Identifier: BSD-3-Clause
//
// test_flowlat_ipfix: the IPFIX exporter of the flow-latency monitor (rtl/flowlat/flowlat_ipfix.v)
// against the frames RFC 7011 and its header comment say it must send. A C++ FIFO feeds it
// events (random 5-tuples, ports, residence times of both signs, TX stamps, occupancies,
// thresholds, profiles, groups, kinds) at random times, as flowlat_fifo presents them (the head,
// a pop when s_event_ready, the count); tready stalls at random; the time of day's seconds go
// on. Every frame is taken apart here, byte by byte, without the RTL's way of building it:
// Ethernet/IPv4/UDP headers (checksum computed), the IPFIX header (export time, sequence number,
// observation domain), the template set exactly as the header comment lists it and only when it
// is due (at enable, on command, every template_interval_s seconds), the data set and every
// record equal to the event it came from, in FIFO order, none lost or repeated; the MTU and as
// many records as fit, the flush timeout (a message leaves no earlier and no later than it
// says), nothing while disabled, only full messages with the timeout huge.
//
//   --pcap FILE    write the frames of the cases that run to FILE (pcap, Ethernet)
//   --events FILE  write the events they sent (JSON lines, the configuration first)
//
// Prints TAP, "IPFIX bytes per event" and the events per clock it sustains; `--seed N --only
// NAME` replays a random case.

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "Vflowlat_ipfix.h"
#include "tap_runner.h"
#include "wide_bits.h"
#include "verilated.h"

namespace {

const unsigned FIFO_DEPTH = 64;
const uint64_t CLOCKS_PER_US = 125;
const uint32_t NTP_OFFSET = 2208988800u;

FILE *pcap_file = nullptr;
FILE *events_file = nullptr;

struct Event {
	uint32_t src_ip, dst_ip;
	uint8_t protocol;
	uint16_t sport, dport;
	uint8_t ingress, egress; // 0..7, 0..3
	int32_t residence;
	uint32_t tx_seconds, tx_ns; // ns < 10^9
	uint32_t occupancy;         // 20 bits
	uint32_t high, low;
	uint8_t profile, group, kind; // 3, 4, 2 bits
};

struct Config {
	bool enable = true;
	uint64_t destination_mac = 0x02005e0000a1ull, source_mac = 0x021122334455ull;
	uint32_t source_ip = 0x0a000001, destination_ip = 0xc0a80a64;
	uint16_t source_port = 50123, destination_port = 4739;
	uint32_t observation_domain = 0x01020304, enterprise_number = 0x0000d2c5;
	uint16_t template_interval_s = 0, mtu = 1500;
	uint32_t flush_timeout_us = 20;
};

// The template as the header comment lists it: {IE, length, enterprise}
struct Field {
	uint16_t element;
	uint16_t length;
	bool enterprise;
};
const Field TEMPLATE[15] = {{325, 8, false}, {8, 4, false},  {12, 4, false}, {4, 1, false},
			    {7, 2, false},   {11, 2, false}, {10, 4, false}, {14, 4, false},
			    {1, 4, true},    {2, 1, true},   {3, 1, true},   {4, 1, true},
			    {5, 4, true},    {6, 4, true},   {7, 4, true}};

std::string ip_text(uint32_t ip)
{
	char s[20];
	snprintf(s, sizeof s, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
	return s;
}

uint32_t be32(const std::vector<uint8_t> &b, size_t at)
{
	return (uint32_t)b[at] << 24 | (uint32_t)b[at + 1] << 16 | (uint32_t)b[at + 2] << 8 | b[at + 3];
}
uint16_t be16(const std::vector<uint8_t> &b, size_t at) { return (uint16_t)(b[at] << 8 | b[at + 1]); }

uint64_t be48(const std::vector<uint8_t> &b, size_t at)
{
	uint64_t v = 0;
	for (int i = 0; i < 6; i++)
		v = v << 8 | b[at + i];
	return v;
}

// The most records an IP packet of `mtu` bytes holds: 20 + 8 + 16 (+ 96) + 4 + 48 n <= mtu,
// at most 64, at least 1 (the MTU is at least 200).
unsigned records_that_fit(unsigned mtu, bool with_template)
{
	unsigned fixed = 20 + 8 + 16 + (with_template ? 96 : 0) + 4;
	unsigned n = mtu > fixed ? (mtu - fixed) / 48 : 0;
	if (n < 1)
		n = 1;
	return n > 64 ? 64 : n;
}

// flowlat_table's layout (its header comment)
void pack(const Event &e, VlWide<10> &w)
{
	for (int i = 0; i < 10; i++)
		w[i] = 0;
	set_bits(w, 0, 32, e.src_ip);
	set_bits(w, 32, 32, e.dst_ip);
	set_bits(w, 64, 8, e.protocol);
	set_bits(w, 72, 16, e.sport);
	set_bits(w, 88, 16, e.dport);
	set_bits(w, 104, 3, e.ingress);
	set_bits(w, 107, 2, e.egress);
	set_bits(w, 109, 32, (uint32_t)e.residence);
	set_bits(w, 141, 30, e.tx_ns);
	set_bits(w, 171, 32, e.tx_seconds);
	set_bits(w, 203, 20, e.occupancy);
	set_bits(w, 223, 32, e.high);
	set_bits(w, 255, 32, e.low);
	set_bits(w, 287, 3, e.profile);
	set_bits(w, 290, 4, e.group);
	set_bits(w, 294, 2, e.kind);
}

Event random_event(std::mt19937_64 &r)
{
	Event e;
	e.src_ip = (uint32_t)r();
	e.dst_ip = (uint32_t)r();
	static const uint8_t protocols[] = {6, 17, 1, 132, 47};
	e.protocol = r() % 4 ? protocols[r() % 5] : (uint8_t)r();
	e.sport = (uint16_t)r();
	e.dport = (uint16_t)r();
	e.ingress = r() % 8;
	e.egress = r() % 4;
	switch (r() % 4) {
	case 0: e.residence = (int32_t)(r() % 20000) - 2000; break;
	case 1: e.residence = -(int32_t)(r() % 1000000) - 1; break;
	case 2: e.residence = (int32_t)(uint32_t)r(); break;
	default: e.residence = (int32_t)(r() % 2000000000); break;
	}
	e.tx_seconds = r() % 8 ? 1700000000u + (uint32_t)(r() % 300000000) : (uint32_t)r();
	switch (r() % 6) {
	case 0: e.tx_ns = 0; break;
	case 1: e.tx_ns = 999999999; break;
	case 2: e.tx_ns = 500000000; break;
	default: e.tx_ns = r() % 1000000000; break;
	}
	e.occupancy = r() % 3 ? r() % 5000 : r() & 0xfffff;
	e.high = (uint32_t)r();
	e.low = (uint32_t)r();
	e.profile = r() % 8;
	e.group = r() % 16;
	e.kind = 1 + r() % 3;
	return e;
}

void pcap_begin(const char *path)
{
	pcap_file = fopen(path, "wb");
	if (!pcap_file) {
		perror(path);
		exit(2);
	}
	uint32_t header[6] = {0xa1b2c3d4u, 0x00040002u, 0, 0, 65535, 1};
	// version 2.4: two 16-bit halves, little-endian host order written as uint16s
	uint16_t version[2] = {2, 4};
	fwrite(&header[0], 4, 1, pcap_file);
	fwrite(version, 2, 2, pcap_file);
	fwrite(&header[2], 4, 4, pcap_file);
}

void pcap_frame(const std::vector<uint8_t> &frame, uint64_t cycle)
{
	if (!pcap_file)
		return;
	uint64_t ns = cycle * 8;
	uint32_t record[4] = {(uint32_t)(1700000000u + ns / 1000000000u), (uint32_t)(ns % 1000000000u / 1000u),
			      (uint32_t)frame.size(), (uint32_t)frame.size()};
	fwrite(record, 4, 4, pcap_file);
	fwrite(frame.data(), 1, frame.size(), pcap_file);
}

void events_config(const std::string &name, const Config &c)
{
	if (!events_file)
		return;
	fprintf(events_file,
		"{\"case\": \"%s\", \"destination_port\": %u, \"source_port\": %u, \"source_ip\": \"%s\", "
		"\"destination_ip\": \"%s\", \"observation_domain\": %u, \"enterprise_number\": %u, "
		"\"mtu\": %u}\n",
		name.c_str(), c.destination_port, c.source_port, ip_text(c.source_ip).c_str(),
		ip_text(c.destination_ip).c_str(), c.observation_domain, c.enterprise_number, c.mtu);
}

void events_event(const Event &e)
{
	if (!events_file)
		return;
	fprintf(events_file,
		"{\"src\": \"%s\", \"dst\": \"%s\", \"protocol\": %u, \"sport\": %u, \"dport\": %u, "
		"\"ingress\": %u, \"egress\": %u, \"residence\": %d, \"tx_seconds\": %u, \"tx_ns\": %u, "
		"\"occupancy\": %u, \"high\": %u, \"low\": %u, \"profile\": %u, \"group\": %u, "
		"\"kind\": %u}\n",
		ip_text(e.src_ip).c_str(), ip_text(e.dst_ip).c_str(), e.protocol, e.sport, e.dport,
		e.ingress, e.egress, e.residence, e.tx_seconds, e.tx_ns, e.occupancy, e.high, e.low,
		e.profile, e.group, e.kind);
}

struct Waiting {
	Event event;
	uint64_t visible; // first clock it is in the FIFO
};

// A message the exporter decided to send (count_message), waiting for its frame
struct Decision {
	uint64_t cycle;     // the clock of the decision (count_message shows in the next)
	unsigned count;     // events waiting then
	bool with_template; // count_template
	uint64_t sequence;  // data records sent before
};

struct Bench {
	std::string name;
	std::mt19937_64 random;
	VerilatedContext context;
	Vflowlat_ipfix dut{&context};
	Config config;
	uint64_t cycle = 0;
	uint32_t tod = 1750000000u;
	std::vector<uint32_t> tod_history; // tod_seconds in each clock
	std::vector<bool> enable_history;  // config_enable in each clock
	std::vector<uint32_t> timeout_history; // flush_timeout_us in each clock: a decision is
	                                        // checked against the timeout it saw
	bool command = false;              // command_send_template in this clock

	// the FIFO and every event pushed, in order
	std::deque<Waiting> fifo;
	std::vector<Event> pushed;
	uint64_t nonempty_since = 0; // first clock of the FIFO's current non-empty run

	// the template's due events (clocks) not yet taken by a message
	std::deque<uint64_t> due;
	bool was_enabled = false;
	uint64_t enabled_since = 0;
	uint32_t last_timeout = 0;
	uint64_t timeout_changed = 0; // the clock the flush timeout was last changed
	bool first_after_enable = false; // no message decided since export was turned on
	bool strict_enable = true;        // that message must carry the template
	uint32_t last_template_second = 0;

	// decisions and frames
	std::deque<Decision> decisions;
	uint64_t last_decision = 0;
	bool any_decision = false;
	bool in_message = false; // from a decision to its frame's last word
	uint64_t idle_since = 0;
	uint64_t records_sent = 0; // in messages decided so far (the next sequence number)
	uint64_t records_checked = 0;
	uint64_t messages = 0, frames = 0, template_frames = 0, data_frames = 0, full_frames = 0;
	uint64_t frame_bytes = 0, count_records = 0, count_templates = 0;
	uint64_t previous_frame_end = 0;
	std::vector<uint8_t> frame;
	uint64_t frame_first_word = 0;
	bool held_valid = false; // tvalid without tready in the previous clock
	uint64_t held_data = 0;
	unsigned held_keep = 0;
	bool held_last = false;
	std::vector<unsigned> records_per_frame;
	std::vector<bool> template_per_frame;
	std::string error;

	Bench(const std::string &n, uint64_t seed, const Config &c) : name(n), random(seed), config(c)
	{
		dut.clk = 0;
		dut.rst = 1;
		dut.m_axis_tready = 1;
		dut.command_send_template = 0;
		bool enable = config.enable;
		config.enable = false;
		apply_config();
		for (int i = 0; i < 4; i++) {
			dut.clk = 1;
			dut.eval();
			dut.clk = 0;
			dut.eval();
		}
		dut.rst = 0;
		config.enable = enable;
		events_config(name, config);
	}

	void apply_config()
	{
		dut.config_enable = config.enable;
		dut.config_destination_mac = config.destination_mac;
		dut.config_source_mac = config.source_mac;
		dut.config_source_ip = config.source_ip;
		dut.config_destination_ip = config.destination_ip;
		dut.config_source_port = config.source_port;
		dut.config_destination_port = config.destination_port;
		dut.config_observation_domain = config.observation_domain;
		dut.config_enterprise_number = config.enterprise_number;
		dut.config_template_interval_s = config.template_interval_s;
		dut.config_mtu = config.mtu;
		dut.config_flush_timeout_us = config.flush_timeout_us;
	}

	void fail(const std::string &why)
	{
		if (error.empty())
			error = "clock " + std::to_string(cycle) + ": " + why;
	}

	bool can_push() const { return fifo.size() < FIFO_DEPTH; }

	// Pushes an event before this clock's step: the FIFO shows it from this clock.
	void push(const Event &e)
	{
		if (fifo.empty())
			nonempty_since = cycle;
		fifo.push_back({e, cycle});
		pushed.push_back(e);
	}

	uint64_t timeout_clocks() const { return (uint64_t)config.flush_timeout_us * CLOCKS_PER_US; }

	// One clock: inputs as they are, the checks on what the DUT shows, the edge.
	void step()
	{
		apply_config();
		if (config.flush_timeout_us != last_timeout) {
			last_timeout = config.flush_timeout_us;
			timeout_changed = cycle;
		}
		dut.tod_seconds = tod;
		dut.command_send_template = command;
		dut.s_event_valid = !fifo.empty();
		dut.s_event_count = (uint8_t)fifo.size();
		if (!fifo.empty())
			pack(fifo.front().event, dut.s_event);
		else
			for (int i = 0; i < 10; i++)
				dut.s_event[i] = (uint32_t)random();
		dut.eval();
		tod_history.push_back(tod);
		enable_history.push_back(config.enable);
		timeout_history.push_back(config.flush_timeout_us);

		// a decision in the previous clock
		if (dut.count_message)
			decided(cycle - 1);
		else if (dut.count_template)
			fail("count_template without count_message");
		count_records += dut.count_record;

		// the template's due events of this clock
		if (command)
			due.push_back(cycle);
		if (config.enable && !was_enabled) {
			due.push_back(cycle);
			enabled_since = cycle;
			first_after_enable = true;
		}
		if (config.enable && config.template_interval_s && due.empty() &&
		    tod - last_template_second >= config.template_interval_s)
			due.push_back(cycle);
		was_enabled = config.enable;

		idle_checks();

		// the output
		if (held_valid) {
			if (!dut.m_axis_tvalid)
				fail("tvalid dropped before tready");
			else if (dut.m_axis_tdata != held_data || dut.m_axis_tkeep != held_keep ||
				 (bool)dut.m_axis_tlast != held_last)
				fail("tdata/tkeep/tlast changed while waiting for tready");
		}
		held_valid = dut.m_axis_tvalid && !dut.m_axis_tready;
		held_data = dut.m_axis_tdata;
		held_keep = dut.m_axis_tkeep;
		held_last = dut.m_axis_tlast;
		if (dut.m_axis_tvalid && dut.m_axis_tready)
			word();

		// the FIFO at the edge
		if (dut.s_event_ready) {
			if (fifo.empty())
				fail("s_event_ready with the FIFO empty");
			else
				fifo.pop_front();
		}
		dut.clk = 1;
		dut.eval();
		dut.clk = 0;
		dut.eval();
		cycle++;
		command = false;
	}

	// The clock from which the oldest event's wait counts: the later of its FIFO run's start and
	// the previous message.
	uint64_t wait_start() const
	{
		uint64_t start = nonempty_since;
		if (any_decision && last_decision + 1 > start)
			start = last_decision + 1;
		return start;
	}

	void decided(uint64_t d)
	{
		messages++;
		bool with_template = dut.count_template;
		count_templates += with_template;
		if (!enable_history[d])
			fail("a message started while export was disabled");
		if (in_message)
			fail("a message started before the previous frame ended");
		// the FIFO as it was in clock d: without what was pushed since (nothing left at d's
		// edge: pops happen inside messages)
		unsigned count = (unsigned)fifo.size();
		for (auto it = fifo.rbegin(); it != fifo.rend() && it->visible > d; ++it)
			count--;
		// the template: due events in clocks before d; within one clock either way
		bool must = !due.empty() && due.front() + 2 <= d;
		bool may = !due.empty() && due.front() + 1 <= d + 1;
		if (with_template && !may)
			fail("the template went without being due");
		if (first_after_enable && !with_template && strict_enable)
			fail("the first message after export was turned on (clock " + std::to_string(enabled_since) +
			     ") went without the template: " + std::to_string(count) + " events waiting");
		first_after_enable = false;
		if (!with_template && must)
			fail("the template was due since clock " + std::to_string(due.front()) +
			     " but the message decided at " + std::to_string(d) + " went without it");
		if (with_template) {
			while (!due.empty() && due.front() <= d)
				due.pop_front();
			last_template_second = tod_history[d];
		}
		unsigned fit = records_that_fit(config.mtu, with_template);
		unsigned n = count < fit ? count : fit;
		if (!with_template) {
			if (count == 0)
				fail("a message without records or template");
			else if (count < records_that_fit(config.mtu, false)) {
				// not full: only after the flush timeout
				uint64_t start = wait_start();
				if (d < start || d - start + CLOCKS_PER_US <
							 (uint64_t)timeout_history[d] * CLOCKS_PER_US)
					fail("a message of " + std::to_string(count) + " records left after " +
					     std::to_string(d - start) + " clocks of waiting, before the flush timeout");
			}
		}
		decisions.push_back({d, n, with_template, records_sent});
		records_sent += n;
		last_decision = d;
		any_decision = true;
		in_message = true;
	}

	// What must not wait while the exporter is between messages.
	void idle_checks()
	{
		if (in_message || !config.enable || cycle < idle_since + 3 || cycle < enabled_since + 3)
			return;
		// the decision would show in the next clock: allow two clocks
		bool template_due = !due.empty() && due.front() + 3 <= cycle;
		unsigned count = 0;
		for (const Waiting &w : fifo)
			count += w.visible + 2 <= cycle;
		if (template_due)
			fail("the template has been due since clock " + std::to_string(due.front()) +
			     " and no message started");
		else if (count >= records_that_fit(config.mtu, false))
			fail(std::to_string(count) + " events wait (a full message) and no message started");
		else if (!fifo.empty()) {
			uint64_t start = wait_start();
			uint64_t deadline = start + timeout_clocks();
			if (idle_since > deadline)
				deadline = idle_since;
			if (timeout_changed > deadline)
				deadline = timeout_changed; // lowered below what has been waited
			if (config.flush_timeout_us != 0xffffffffu && cycle > deadline + 3 &&
			    fifo.front().visible + 3 <= cycle)
				fail("the oldest event has waited " + std::to_string(cycle - start) +
				     " clocks, beyond the flush timeout, and no message started");
		}
	}

	void word()
	{
		uint64_t data = dut.m_axis_tdata;
		unsigned keep = dut.m_axis_tkeep;
		bool last = dut.m_axis_tlast;
		if (!in_message)
			fail("a word out without a message started");
		if (frame.empty())
			frame_first_word = cycle;
		unsigned bytes = 0;
		while (bytes < 8 && (keep >> bytes) & 1)
			bytes++;
		if (keep != (1u << bytes) - 1 || bytes == 0 || (!last && bytes != 8))
			fail("tkeep " + std::to_string(keep) + (last ? " on the last word" : " on a word not the last"));
		for (unsigned i = 0; i < bytes; i++)
			frame.push_back((uint8_t)(data >> (8 * i)));
		if (last) {
			frame_done();
			frame.clear();
			in_message = false;
			idle_since = cycle + 1;
			previous_frame_end = cycle;
		}
	}

	void frame_done()
	{
		frames++;
		frame_bytes += frame.size();
		pcap_frame(frame, cycle);
		if (decisions.empty()) {
			fail("a frame without a message started");
			return;
		}
		Decision d = decisions.front();
		decisions.pop_front();
		std::string why = check_frame(d);
		if (!why.empty())
			fail("frame " + std::to_string(frames) + " (" + std::to_string(frame.size()) + " bytes): " + why);
	}

	std::string check_frame(const Decision &d)
	{
		const std::vector<uint8_t> &f = frame;
		const Config &c = config;
		size_t size = f.size();
		if (size < 14 + 20 + 8 + 16)
			return "too short";
		if (be48(f, 0) != c.destination_mac)
			return "destination MAC";
		if (be48(f, 6) != c.source_mac)
			return "source MAC";
		if (be16(f, 12) != 0x0800)
			return "EtherType";
		if (f[14] != 0x45)
			return "IPv4 version/IHL";
		if (f[15] != 0)
			return "DSCP/ECN";
		if (be16(f, 16) != size - 14)
			return "IPv4 total length " + std::to_string(be16(f, 16)) + ", frame " + std::to_string(size);
		if (be16(f, 16) > c.mtu)
			return "IP packet of " + std::to_string(be16(f, 16)) + " bytes, MTU " + std::to_string(c.mtu);
		if (be16(f, 18) != (uint16_t)(frames - 1))
			return "IPv4 identification " + std::to_string(be16(f, 18));
		if (be16(f, 20) != 0x4000)
			return "IPv4 flags/fragment (DF)";
		if (f[22] != 64 || f[23] != 17)
			return "TTL or protocol";
		uint32_t sum = 0;
		for (int i = 0; i < 20; i += 2)
			sum += be16(f, 14 + i);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		if (sum != 0xffff)
			return "IPv4 header checksum";
		if (be32(f, 26) != c.source_ip || be32(f, 30) != c.destination_ip)
			return "IPv4 addresses";
		if (be16(f, 34) != c.source_port || be16(f, 36) != c.destination_port)
			return "UDP ports";
		if (be16(f, 38) != size - 34)
			return "UDP length";
		if (be16(f, 40) != 0)
			return "UDP checksum not 0";
		if (be16(f, 42) != 10)
			return "IPFIX version";
		if (be16(f, 44) != size - 42)
			return "IPFIX length";
		uint32_t export_time = be32(f, 46);
		uint32_t earliest = tod_history[previous_frame_end];
		uint32_t latest = tod_history[frame_first_word];
		if (export_time - earliest > latest - earliest)
			return "export time " + std::to_string(export_time) + " not in " + std::to_string(earliest) +
			       ".." + std::to_string(latest);
		if (export_time != tod_history[d.cycle])
			return "export time " + std::to_string(export_time) + ", the time of day at the start " +
			       std::to_string(tod_history[d.cycle]);
		if (be32(f, 50) != (uint32_t)d.sequence)
			return "sequence number " + std::to_string(be32(f, 50)) + ", expected " +
			       std::to_string((uint32_t)d.sequence);
		if (be32(f, 54) != c.observation_domain)
			return "observation domain";
		size_t at = 58;
		bool template_seen = false;
		unsigned n = 0;
		while (at < size) {
			if (at + 4 > size)
				return "a set header cut short";
			uint16_t id = be16(f, at), length = be16(f, at + 2);
			if (length < 4 || at + length > size)
				return "set length " + std::to_string(length);
			if (id == 2) {
				if (template_seen || n)
					return "a template set twice or after the data";
				template_seen = true;
				std::string why = check_template(at);
				if (!why.empty())
					return why;
			} else if (id == 256) {
				if (n)
					return "two data sets";
				if ((length - 4) % 48 || length == 4)
					return "data set length " + std::to_string(length);
				n = (length - 4) / 48;
				for (unsigned i = 0; i < n; i++) {
					std::string why = check_record(at + 4 + 48 * i);
					if (!why.empty())
						return "record " + std::to_string(i) + ": " + why;
				}
			} else {
				return "set ID " + std::to_string(id);
			}
			at += length;
		}
		if (template_seen != d.with_template)
			return template_seen ? "a template set, count_template said none" : "no template set, count_template said one";
		if (n != d.count)
			return std::to_string(n) + " records, expected " + std::to_string(d.count) +
			       " (as many of those waiting as fit)";
		if (template_seen)
			template_frames++;
		if (n) {
			data_frames++;
			full_frames += n == records_that_fit(c.mtu, template_seen);
		}
		records_per_frame.push_back(n);
		template_per_frame.push_back(template_seen);
		return "";
	}

	std::string check_template(size_t at)
	{
		const std::vector<uint8_t> &f = frame;
		if (be16(f, at + 2) != 96)
			return "template set length " + std::to_string(be16(f, at + 2));
		if (be16(f, at + 4) != 256 || be16(f, at + 6) != 15)
			return "template ID or field count";
		size_t p = at + 8;
		for (const Field &field : TEMPLATE) {
			uint16_t element = be16(f, p), length = be16(f, p + 2);
			bool enterprise = element & 0x8000;
			if ((element & 0x7fff) != field.element || length != field.length || enterprise != field.enterprise)
				return "template field " + std::to_string(element & 0x7fff) + " (" + std::to_string(length) +
				       (enterprise ? ", enterprise)" : ")") + ", expected " + std::to_string(field.element);
			p += 4;
			if (enterprise) {
				if (be32(f, p) != config.enterprise_number)
					return "PEN " + std::to_string(be32(f, p));
				p += 4;
			}
		}
		if (p != at + 96)
			return "template fields do not fill the set";
		return "";
	}

	std::string check_record(size_t at)
	{
		const std::vector<uint8_t> &f = frame;
		if (records_checked >= pushed.size())
			return "a record with no event pushed for it";
		const Event &e = pushed[records_checked];
		uint64_t index = records_checked++;
		events_event(e);
		std::string which = "event " + std::to_string(index) + ": ";
		if (be32(f, at) != (uint32_t)(e.tx_seconds + NTP_OFFSET))
			return which + "NTP seconds " + std::to_string(be32(f, at)) + " for " + std::to_string(e.tx_seconds);
		unsigned __int128 scaled = ((unsigned __int128)e.tx_ns << 32) + 500000000u;
		uint64_t fraction = (uint64_t)(scaled / 1000000000u);
		if (fraction > 0xffffffffu || be32(f, at + 4) != fraction) /* the nearest */
			return which + "NTP fraction " + std::to_string(be32(f, at + 4)) + " for " +
			       std::to_string(e.tx_ns) + " ns (" + std::to_string(fraction) + ")";
		if (be32(f, at + 8) != e.src_ip || be32(f, at + 12) != e.dst_ip)
			return which + "addresses";
		if (f[at + 16] != e.protocol)
			return which + "protocol";
		if (be16(f, at + 17) != e.sport || be16(f, at + 19) != e.dport)
			return which + "ports";
		if (be32(f, at + 21) != e.ingress)
			return which + "ingress interface " + std::to_string(be32(f, at + 21));
		if (be32(f, at + 25) != e.egress)
			return which + "egress interface " + std::to_string(be32(f, at + 25));
		if ((int32_t)be32(f, at + 29) != e.residence)
			return which + "residence " + std::to_string((int32_t)be32(f, at + 29)) + " for " +
			       std::to_string(e.residence);
		if (f[at + 33] != e.kind || f[at + 34] != e.group || f[at + 35] != e.profile)
			return which + "kind, group or profile";
		if (be32(f, at + 36) != e.high || be32(f, at + 40) != e.low)
			return which + "high or low";
		if (be32(f, at + 44) != e.occupancy)
			return which + "occupancy";
		return "";
	}

	// Lets the exporter send what waits (enabled, tready 1) and checks that all went.
	void drain(uint64_t limit)
	{
		for (uint64_t i = 0; i < limit && error.empty(); i++) {
			if (fifo.empty() && !in_message && decisions.empty() && due.empty())
				break;
			step();
		}
		for (int i = 0; i < 20; i++)
			step();
	}

	std::string finish()
	{
		if (error.empty() && (in_message || !decisions.empty()))
			fail("a message did not end");
		if (error.empty() && records_checked != pushed.size())
			fail(std::to_string(pushed.size()) + " events pushed, " + std::to_string(records_checked) +
			     " records sent");
		if (error.empty() && count_records != records_checked)
			fail("count_record pulsed " + std::to_string(count_records) + " times for " +
			     std::to_string(records_checked) + " records");
		if (error.empty() && count_templates != template_frames)
			fail("count_template pulsed " + std::to_string(count_templates) + " times");
		dut.final();
		return error;
	}
};

Config random_config(std::mt19937_64 &r, uint16_t mtu)
{
	Config c;
	c.destination_mac = r() & 0xfeffffffffffull;
	c.source_mac = (r() & 0xfeffffffffffull) | 0x020000000000ull;
	c.source_ip = (uint32_t)r();
	c.destination_ip = (uint32_t)r();
	c.source_port = (uint16_t)(1024 + r() % 60000);
	c.destination_port = r() % 2 ? 4739 : (uint16_t)(1024 + r() % 60000);
	c.observation_domain = (uint32_t)r();
	c.enterprise_number = (uint32_t)(r() % 70000);
	c.template_interval_s = (uint16_t)(1 + r() % 3);
	c.mtu = mtu;
	c.flush_timeout_us = (uint32_t)(r() % 4 ? 2 + r() % 30 : r() % 2);
	return c;
}

// Random traffic: event bursts and pauses, tready stalls, the time of day going on (a second
// every 2000..8000 clocks), template commands, export turned off and on, the timeout changed.
tap::Result run_random(uint16_t mtu, uint64_t seed, uint64_t cycles)
{
	std::mt19937_64 r(seed);
	Config config = random_config(r, mtu);
	Bench b("random_mtu" + std::to_string(mtu), seed, config);
	unsigned push_rate = 20, stall_rate = 4, second = 4000;
	bool stalls = true, disabled_seen = false;
	for (uint64_t i = 0; i < cycles && b.error.empty(); i++) {
		if (i % 3000 == 0) {
			unsigned range = r() % 2 ? 8 : 400; // sequenced: --seed replays in any build
			push_rate = 1 + r() % range;
			stall_rate = 2 + r() % 10;
			stalls = r() % 4 != 0;
			second = 2000 + r() % 6000;
			if (r() % 6 == 0)
				b.config.flush_timeout_us = r() % 4 ? 1 + r() % 40 : 0;
		}
		if (i % second == 0 && i)
			b.tod++;
		if (r() % 20000 == 0)
			b.command = true;
		if (i % 1000 == 0 && r() % 25 == 0) {
			// events may wait when it comes back on (template_first_at_enable checks that)
			b.config.enable = !b.config.enable;
			b.strict_enable = false;
			disabled_seen = true;
		} else if (!b.config.enable && i % 1000 == 0 && r() % 3 == 0) {
			b.config.enable = true;
		}
		if (b.can_push() && r() % push_rate == 0 && i >= 10)
			b.push(random_event(r));
		b.dut.m_axis_tready = !stalls || r() % stall_rate != 0;
		b.step();
	}
	b.config.enable = true;
	b.dut.m_axis_tready = 1;
	b.drain(200000);
	std::string error = b.finish();
	printf("# %s: %" PRIu64 " events, %" PRIu64 " messages (%" PRIu64 " with the template, %" PRIu64
	       " full), %s\n",
	       b.name.c_str(), b.records_checked, b.frames, b.template_frames, b.full_frames,
	       disabled_seen ? "export turned off and on" : "export always on");
	if (error.empty() && (b.records_checked < 500 || b.template_frames < 3 || b.full_frames < 3))
		return "the run sent too few events, templates or full messages";
	return error;
}

// Export off: nothing leaves, whatever waits or is commanded; on: the template first.
tap::Result run_disabled()
{
	std::mt19937_64 r(11);
	Config c;
	c.enable = false;
	c.flush_timeout_us = 1;
	Bench b("disabled", 11, c);
	for (int i = 0; i < 20000 && b.error.empty(); i++) {
		if (b.can_push() && r() % 100 == 0)
			b.push(random_event(r));
		if (i % 5000 == 100)
			b.command = true;
		if (i % 3000 == 0)
			b.tod++;
		b.step();
		if (b.dut.m_axis_tvalid || b.messages)
			return "a frame or message while export was disabled";
	}
	if (b.fifo.size() != FIFO_DEPTH)
		return "the FIFO did not fill";
	b.config.enable = true;
	b.strict_enable = false; // template_first_at_enable
	b.drain(100000);
	std::string error = b.finish();
	if (error.empty() && (b.records_per_frame.empty() || b.template_frames != 1))
		return "expected one template (the command and the enable)";
	return error;
}

// A lone event leaves within the flush timeout of its push (and not before it), for several
// timeouts.
tap::Result run_lone_event()
{
	std::mt19937_64 r(12);
	for (uint32_t timeout : {0u, 1u, 7u, 50u, 300u}) {
		Config c;
		c.flush_timeout_us = timeout;
		Bench b("lone_event", 12, c);
		for (int i = 0; i < 500; i++) // the template at enable
			b.step();
		if (b.frames != 1 || b.template_frames != 1)
			return "timeout " + std::to_string(timeout) + ": no template-only message at enable " + b.error;
		for (int k = 0; k < 3; k++) {
			for (unsigned i = r() % 1000; i > 0; i--)
				b.step();
			uint64_t pushed = b.cycle;
			uint64_t frames = b.frames;
			b.push(random_event(r));
			while (b.frames == frames && b.cycle < pushed + timeout * CLOCKS_PER_US + 5000 && b.error.empty())
				b.step();
			if (!b.error.empty())
				break;
			uint64_t took = b.cycle - pushed;
			// + the frame itself: 62 + 48 bytes in 14 words, a few clocks before
			uint64_t slack = 3 * CLOCKS_PER_US;
			if (b.frames == frames || took > timeout * CLOCKS_PER_US + slack)
				return "timeout " + std::to_string(timeout) + " us: the event took " + std::to_string(took) +
				       " clocks to leave";
			if (took + CLOCKS_PER_US < timeout * CLOCKS_PER_US)
				return "timeout " + std::to_string(timeout) + " us: the event left after " +
				       std::to_string(took) + " clocks";
			printf("# timeout %u us: a lone event left (last word) %" PRIu64 " clocks after its push\n",
			       timeout, took);
		}
		std::string error = b.finish();
		if (!error.empty())
			return "timeout " + std::to_string(timeout) + ": " + error;
	}
	return "";
}

// With the flush timeout huge, messages leave only full; events trickle in.
tap::Result run_full_only(uint16_t mtu)
{
	std::mt19937_64 r(13 + mtu);
	Config c = random_config(r, mtu);
	c.flush_timeout_us = 0xffffffffu;
	c.template_interval_s = 0;
	Bench b("full_only", 13 + mtu, c);
	for (int i = 0; i < 60000 && b.error.empty(); i++) {
		if (b.can_push() && r() % 50 == 0)
			b.push(random_event(r));
		b.dut.m_axis_tready = r() % 3 != 0;
		b.step();
	}
	b.dut.m_axis_tready = 1;
	while (b.error.empty() && (b.in_message || !b.decisions.empty()))
		b.step();
	if (!b.error.empty())
		return b.finish();
	unsigned fit = records_that_fit(mtu, false);
	for (size_t i = 1; i < b.records_per_frame.size(); i++)
		if (b.records_per_frame[i] != fit)
			return "message " + std::to_string(i) + " of " + std::to_string(b.records_per_frame[i]) +
			       " records, not full (" + std::to_string(fit) + ")";
	if (b.records_per_frame.size() < 5)
		return "too few messages";
	if (b.fifo.size() >= fit)
		return "a full message waits";
	size_t waiting = b.fifo.size();
	printf("# MTU %u, timeout huge: %zu messages of %u records, %zu events left waiting\n", mtu,
	       b.records_per_frame.size() - 1, fit, waiting);
	// what waits stays, however long
	for (int i = 0; i < 20000; i++)
		b.step();
	if (b.fifo.size() != waiting)
		return "events left before a message was full";
	b.pushed.resize(b.records_checked); // those still waiting are not expected out
	return b.finish();
}

// The MTU's edges: for each MTU, the FIFO kept full and the template commanded now and then:
// every message, with the template and without, carries as many records as fit (check_frame).
tap::Result run_mtu_edges()
{
	std::mt19937_64 r(14);
	std::string failures;
	for (unsigned mtu : {200u, 239u, 240u, 241u, 244u, 245u, 287u, 288u, 300u, 576u, 1500u, 3119u, 3120u, 9000u}) {
		Config c;
		c.mtu = (uint16_t)mtu;
		c.flush_timeout_us = 0xffffffffu;
		Bench b("mtu_edges", 14, c);
		for (int i = 0; i < 10; i++) // the template alone at enable
			b.step();
		for (int i = 0; i < 6000 && b.error.empty(); i++) {
			while (b.can_push())
				b.push(random_event(r));
			if (i % 1000 == 500)
				b.command = true;
			b.step();
		}
		if (!b.error.empty()) {
			failures += " MTU " + std::to_string(mtu) + ": " + b.error + ";";
			continue;
		}
		bool with = false, without = false;
		for (size_t i = 0; i < b.records_per_frame.size(); i++) {
			with |= b.template_per_frame[i] && b.records_per_frame[i] == records_that_fit(mtu, true);
			without |= !b.template_per_frame[i] && b.records_per_frame[i] == records_that_fit(mtu, false);
		}
		if (!with || !without)
			return "MTU " + std::to_string(mtu) + ": no full message with the template or without";
	}
	return failures;
}

// Export turned on while events wait: the first message must carry the template (a collector
// cannot read data records before it), whatever made it leave at once: a full message waiting,
// or one event with the flush timeout 0.
tap::Result run_template_first_at_enable()
{
	std::mt19937_64 r(17);
	std::string failures;
	for (unsigned waiting : {64u, 30u, 1u}) {
		for (uint32_t timeout : {0u, 100u}) {
			Config c;
			c.enable = false;
			c.flush_timeout_us = timeout;
			Bench b("template_first_at_enable", 17, c);
			for (int i = 0; i < 20; i++)
				b.step();
			for (unsigned k = 0; k < waiting; k++)
				b.push(random_event(r));
			for (int i = 0; i < 20; i++)
				b.step();
			b.config.enable = true;
			b.drain(100000);
			std::string error = b.finish();
			if (!error.empty())
				failures += " " + std::to_string(waiting) + " waiting, timeout " + std::to_string(timeout) +
					    " us: " + error + ";";
		}
	}
	return failures;
}

// Template on command and every interval; none otherwise.
tap::Result run_template_timing()
{
	std::mt19937_64 r(15);
	Config c;
	c.template_interval_s = 2;
	c.flush_timeout_us = 5;
	Bench b("template_timing", 15, c);
	uint64_t commands = 0;
	for (int i = 0; i < 100000 && b.error.empty(); i++) {
		if (i % 1000 == 0)
			b.tod++;
		if (i % 7919 == 3000) {
			b.command = true;
			commands++;
		}
		if (b.can_push() && r() % 300 == 0 && i >= 10)
			b.push(random_event(r));
		b.dut.m_axis_tready = r() % 5 != 0;
		b.step();
	}
	b.drain(10000);
	std::string error = b.finish();
	printf("# template every 2 s and on %" PRIu64 " commands: %" PRIu64 " of %" PRIu64 " messages with it\n",
	       commands, b.template_frames, b.frames);
	if (error.empty() && b.template_frames < 50)
		return "too few templates";
	return error;
}

// Events always waiting, tready always 1, MTU 1500: the rate and the bytes per event.
tap::Result run_throughput()
{
	std::mt19937_64 r(16);
	Config c;
	c.flush_timeout_us = 0xffffffffu;
	Bench b("throughput", 16, c);
	for (int i = 0; i < 10; i++)
		b.step();
	for (int i = 0; i < 2000; i++) {
		while (b.can_push())
			b.push(random_event(r));
		b.step();
	}
	uint64_t start = b.cycle, records = b.records_checked, frames = b.frames, bytes = b.frame_bytes;
	for (int i = 0; i < 100000 && b.error.empty(); i++) {
		while (b.can_push())
			b.push(random_event(r));
		b.step();
	}
	uint64_t clocks = b.cycle - start;
	records = b.records_checked - records;
	frames = b.frames - frames;
	bytes = b.frame_bytes - bytes;
	b.config.flush_timeout_us = 0;
	b.drain(100000);
	std::string error = b.finish();
	if (!error.empty() || !records)
		return error.empty() ? "no records" : error;
	printf("# IPFIX bytes per event: %.2f (MTU 1500, full messages of %u records, %.1f bytes per "
	       "frame, Ethernet header included, no FCS)\n",
	       (double)bytes / records, records_that_fit(1500, false), (double)bytes / frames);
	printf("# sustained: %.4f events per clock (%" PRIu64 " records in %" PRIu64 " clocks; %.1f M "
	       "events/s at 125 MHz), %.3f words per clock\n",
	       (double)records / clocks, records, clocks, (double)records / clocks * 125, (double)(bytes / 8.0) / clocks);
	return "";
}

} // namespace

int main(int argc, char **argv)
{
	// --pcap FILE and --events FILE are ours; the rest goes to tap::parse
	std::vector<char *> rest = {argv[0]};
	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--pcap") || !strcmp(argv[i], "--events")) && i + 1 < argc) {
			if (!strcmp(argv[i], "--pcap")) {
				pcap_begin(argv[i + 1]);
			} else {
				events_file = fopen(argv[i + 1], "w");
				if (!events_file) {
					perror(argv[i + 1]);
					return 2;
				}
			}
			i++;
		} else {
			rest.push_back(argv[i]);
		}
	}
	tap::Options options = tap::parse((int)rest.size(), rest.data(), 150000);
	std::vector<tap::Test> tests = {{"disabled", run_disabled},
					{"lone_event", run_lone_event},
					{"template_timing", run_template_timing},
					{"full_only_1500", [] { return run_full_only(1500); }},
					{"full_only_200", [] { return run_full_only(200); }},
					{"mtu_edges", run_mtu_edges},
					{"template_first_at_enable", run_template_first_at_enable},
					{"throughput", run_throughput}};
	for (uint16_t mtu : {1500, 576, 200, 9000}) {
		std::string name = "random_mtu" + std::to_string(mtu);
		for (uint64_t seed : tap::seeds(options, {1, 2}))
			tests.push_back(tap::seeded(options, name, seed, options.cycles,
						    [mtu](uint64_t s, uint64_t c) { return run_random(mtu, s, c); }));
	}
	int status = tap::run(tests, options);
	if (pcap_file)
		fclose(pcap_file);
	if (events_file)
		fclose(events_file);
	return status;
}
