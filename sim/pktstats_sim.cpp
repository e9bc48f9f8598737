// SPDX-License-Identifier: BSD-3-Clause
//
// pktstats-sim: the simulated pktstats switch (rtl/core/pktstats_core.v, Verilated) with MAC
// models on its ports, traffic from pcap files or generators, frames out to pcap files, register
// access on a Unix socket, the true queue occupancy to a CSV, and a summary at the end; or a
// network of such switches, each on its own oscillator, joined by cables, with the true time of
// every frame on every wire.
// Usage: docs/simulator.md, or pktstats-sim --help.

#include <getopt.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "Vpktstats_core.h"
#include "Vpktstats_core___024root.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

#include "axil_master_backend.h"
#include "cable_wire.h"
#include "clock_timebase.h"
#include "idle_skip.h"
#include "link_timing.h"
#include "mac_model.h"
#include "model_state.h"
#include "frame_hash.h"
#include "pcap_frame_sink.h"
#include "pcap_frame_source.h"
#include "register_server.h"
#include "sojourn_truth.h"
#include "truth_file.h"
#include "tap_port.h"
#include "tee_frame_sink.h"
#include "traffic_generator.h"
#include "wire_observer.h"

extern "C" {
#include "pktstats/regs.h"
}

using namespace pktstats_sim;

namespace {

constexpr unsigned port_count = 8;
constexpr unsigned mac_port_count = 4; // 0..3 Ethernet, 4..7 CPU
constexpr uint64_t clock_period_ps = 8000;
constexpr unsigned reset_cycles = 8;
constexpr uint64_t quiet_cycles_to_stop = 1000;
constexpr uint64_t server_poll_interval = 256; // clocks between socket polls (power of 2)
constexpr uint64_t minimum_skip = 16; // idle clocks worth a skip (one costs about a clock)

const char *program = "pktstats-sim";

// The Makefile passes the commit (the identity block's git_hash); a build without it says 0.
#ifndef PKTSTATS_SIM_GIT_HASH
#define PKTSTATS_SIM_GIT_HASH 0
#endif
#define PKTSTATS_SIM_VERSION "1.0"

// The first SIGINT/SIGTERM ends the run the clean way (drained and flushed, like every end); a
// second one stops the drain at once.
volatile sig_atomic_t stop_signal = 0;
volatile sig_atomic_t signal_count = 0;
extern "C" void on_signal(int signal_number)
{
	stop_signal = signal_number;
	signal_count = signal_count + 1;
}

struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------------------------
// Command line

struct PortOptions {
	enum class Input { none, pcap, generator } input = Input::none;
	std::string input_path;
	PcapTiming timing = PcapTiming::relative_to_first;
	// generator
	double rate = 0;
	FrameSizeDistribution size_distribution = FrameSizeDistribution::fixed;
	size_t frame_bytes = 60, minimum_bytes = 60, maximum_bytes = 1514;
	int to = -1; // -1: broadcast
	bool have_seed = false;
	uint64_t seed = 0;
	double on_ns = 0, off_ns = 0;
	uint64_t count = 0;
	std::string output_path;
	std::string receive_path; // rx=: what the port delivered into the switch
	std::string tap_name;     // tap=: the far end of the wire is this TAP interface
	int cable = -1;           // index in Options::cables of the cable on this port, or -1
};

// One switch of the network: its ports, register socket, occupancy and sojourn truth files and
// oscillator.
struct SwitchOptions {
	PortOptions ports[port_count];
	std::string socket_path;
	std::string truth_path;
	std::string sojourn_truth_path; // --sojourn-truth: one line per frame through a queue
	uint64_t offset_ns = 0; // its time of day at true time 0
	int64_t ppb = 0;        // its oscillator's frequency error, parts per billion
	bool clock_given = false;
};

struct CableEnd {
	unsigned switch_index = 0, port = 0;
};

struct CableOptions {
	CableEnd ends[2];
	uint64_t delay_ps = 0;
	std::string text; // as given, for messages and the summary
};

constexpr unsigned maximum_switches = 16;

// --write: a register written by the simulator after reset, before the traffic
struct RegisterWrite {
	unsigned switch_index = 0;
	uint32_t address = 0;
	unsigned width = 32;
	uint64_t value = 0;
};

struct Options {
	unsigned switch_count = 1;
	std::vector<SwitchOptions> switches = std::vector<SwitchOptions>(maximum_switches);
	std::vector<CableOptions> cables;
	std::vector<RegisterWrite> writes;
	uint64_t cpu_rate = 8 * LinkTiming::gigabit;
	bool have_duration = false;
	uint64_t duration_cycles = 0;
	bool wait = false;
	std::string trace_path;
	std::string wire_truth_path;
	uint64_t seed = 1;
	// Idle clocks: skipped in one step, clocked one by one, or both and compared (sim/idle_skip.h)
	enum class IdleSkipMode { off, on, check } idle_skip = IdleSkipMode::on;
	unsigned threads = 0; // --threads; 0: as many as switches and cores allow
	// Switch indices are checked against --switches once the whole command line is read:
	// the highest one named and the argument that named it first.
	unsigned highest_switch = 0;
	std::string highest_switch_argument;

	// The network simulator's machinery (several switches, their oscillators, cables, wire
	// truth) is only used when asked for: one switch without it runs exactly as before.
	bool network() const
	{
		if (switch_count > 1 || !cables.empty() || !wire_truth_path.empty())
			return true;
		for (unsigned k = 0; k < switch_count; k++)
			if (switches[k].clock_given)
				return true;
		return false;
	}
};

void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [OPTION]...\n"
		"Simulate the pktstats switch (8 ports: 0..3 1 Gb/s Ethernet, 4..7 CPU ports).\n"
		"\n"
		"  --port N:in=FILE[,timing=relative|back-to-back]\n"
		"                       frames from a pcap/pcapng file into port N\n"
		"  --port N:gen=RATE[,size=SIZE|imix|MIN-MAX][,to=M][,seed=S][,on=TIME,off=TIME][,count=K]\n"
		"                       generated UDP traffic into port N at RATE (fraction of line\n"
		"                       rate, 0 < RATE <= 1) to port M's MAC address (default broadcast);\n"
		"                       on/off: mean burst and pause lengths; count: frames, then stop\n"
		"  --port N:out=FILE    frames out of port N to a pcap file (nanosecond timestamps)\n"
		"  --port N:rx=FILE     frames port N delivered into the switch (MAC drops excluded)\n"
		"                       to a pcap file, stamped with the clock of their first word\n"
		"  --port N:tap=IFACE   port N's wire ends in TAP interface IFACE (created if needed):\n"
		"                       what the host sends into it enters the port, what the port\n"
		"                       sends comes out of it (needs CAP_NET_ADMIN)\n"
		"  --port K.N:...       the same for port N of switch K (plain N: switch 0)\n"
		"  --switches N         simulate N switches (default 1, at most 16), one clock loop\n"
		"  --switch K:[socket=PATH][,offset=TIME][,ppm=X][,truth=FILE][,sojourn-truth=FILE]\n"
		"                       switch K's register socket, its time of day at true time 0\n"
		"                       (default 0), its oscillator's frequency error in ppm (-1000..\n"
		"                       1000, default 0), its occupancy truth CSV and its sojourn\n"
		"                       truth CSV\n"
		"  --cable K.N-L.M[,length=LEN|delay=TIME]\n"
		"                       a cable between MAC port N of switch K and port M of switch L\n"
		"                       (plain N: switch 0), full duplex; LEN in m or km (5 ns/m),\n"
		"                       default delay 0\n"
		"  --wire-truth FILE    CSV of every frame's first-bit time on every MAC port's wire,\n"
		"                       true and as the switch's clock read it (docs/simulator.md)\n"
		"  --cpu-rate BPS       rate of the CPU ports in bit/s (default 8e9)\n"
		"  --duration TIME      simulated time to run (from `start` with --wait): 10ms, 2s,\n"
		"                       500us, 800ns, 125000cycles;\n"
		"                       default: until every input is exhausted and everything drained\n"
		"  --socket PATH        serve register access on a Unix socket (docs/simulator-protocol.md);\n"
		"                       switch 0's (--switch K:socket=PATH for the others)\n"
		"  --wait               with --socket: start the traffic when a client sends `start`\n"
		"  --truth FILE         CSV of the true queue occupancy: cycle,queue,occupancy per change\n"
		"                       (switch 0's; --switch K:truth=FILE for the others)\n"
		"  --sojourn-truth FILE CSV of every frame through an output queue, written when it\n"
		"                       departs: queue,commit_cycle,depart_cycle,words,length,frame_hash\n"
		"                       (the clocks of its commit and of its last word's departure, its\n"
		"                       words, its bytes out and their FNV-1a 64 as in --wire-truth);\n"
		"                       switch 0's (--switch K:sojourn-truth=FILE for the others)\n"
		"  --trace FILE.fst     FST waveform of switch 0 (build/bin/pktstats-sim-trace only:\n"
		"                       make sim-trace)\n"
		"  --seed S             default seed of the generators (default 1)\n"
		"  --write [K:]REGISTER=VALUE\n"
		"                       write a register (by name, docs/regmap.md) of switch K\n"
		"                       (default 0) after reset, before the traffic; in order\n"
		"  --threads N          run the switches of a network on N threads (default: one per\n"
		"                       switch, at most one per core); results are the same\n"
		"  --idle-skip MODE     on (default): clocks in which nothing is in flight are skipped\n"
		"                       in one step; off: clocked one by one; check: both, and the\n"
		"                       model compared after each skip (slow; for tests)\n"
		"  --help               this text\n"
		"  --version            the simulator's version and the commit it was built from\n"
		"\n"
		"Exit status: 0 done, 1 run-time error, 2 usage error.\n",
		program);
}

bool parse_unsigned(const std::string &text, uint64_t &value)
{
	if (text.empty() || text[0] == '-' || text[0] == '+')
		return false;
	char *end = nullptr;
	errno = 0;
	unsigned long long parsed = strtoull(text.c_str(), &end, 0);
	if (errno || *end)
		return false;
	value = parsed;
	return true;
}

bool parse_double(const std::string &text, double &value)
{
	if (text.empty())
		return false;
	char *end = nullptr;
	errno = 0;
	value = strtod(text.c_str(), &end);
	return !errno && !*end && std::isfinite(value);
}

// TIME with a unit (s, ms, us, ns, cycles) -> picoseconds. Plain numbers are refused.
bool parse_time_ps(const std::string &text, double &picoseconds)
{
	static const struct {
		const char *suffix;
		double ps;
	} units[] = {{"cycles", (double)clock_period_ps}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"s", 1e12}};
	for (const auto &unit : units) {
		size_t n = strlen(unit.suffix);
		if (text.size() > n && text.compare(text.size() - n, n, unit.suffix) == 0) {
			double number;
			if (!parse_double(text.substr(0, text.size() - n), number) || number < 0)
				return false;
			picoseconds = number * unit.ps;
			return true;
		}
	}
	return false;
}

std::vector<std::string> split(const std::string &text, char separator)
{
	std::vector<std::string> parts;
	size_t start = 0;
	for (;;) {
		size_t end = text.find(separator, start);
		parts.push_back(text.substr(start, end == std::string::npos ? end : end - start));
		if (end == std::string::npos)
			return parts;
		start = end + 1;
	}
}

// A switch index K (of K.N or --switch K:): 0..15 here, checked against --switches later.
unsigned parse_switch_index(const std::string &text, const std::string &argument, Options &options)
{
	uint64_t index;
	if (!parse_unsigned(text, index))
		throw UsageError(argument + ": switch '" + text + "' is not a switch number");
	if (index >= maximum_switches)
		throw UsageError(argument + ": switch " + text + " is out of range (at most " +
				 std::to_string(maximum_switches) + " switches)");
	if (index > options.highest_switch || options.highest_switch_argument.empty()) {
		if (index >= options.highest_switch) {
			options.highest_switch = (unsigned)index;
			options.highest_switch_argument = argument;
		}
	}
	return (unsigned)index;
}

// TIME with a unit (s, ms, us, ns), decimals allowed down to the nanosecond, exactly (a clock
// offset such as a Unix time of day must not lose nanoseconds to floating point).
bool parse_exact_ns(const std::string &text, uint64_t &nanoseconds)
{
	static const struct {
		const char *suffix;
		unsigned decimals; // digits of a nanosecond count after the unit's point
	} units[] = {{"ms", 6}, {"us", 3}, {"ns", 0}, {"s", 9}};
	for (const auto &unit : units) {
		size_t n = strlen(unit.suffix);
		if (text.size() <= n || text.compare(text.size() - n, n, unit.suffix) != 0)
			continue;
		std::string number = text.substr(0, text.size() - n);
		size_t point = number.find('.');
		std::string whole = number.substr(0, point);
		std::string fraction = point == std::string::npos ? "" : number.substr(point + 1);
		if (whole.empty() || fraction.size() > unit.decimals ||
		    whole.find_first_not_of("0123456789") != std::string::npos ||
		    fraction.find_first_not_of("0123456789") != std::string::npos ||
		    (point != std::string::npos && fraction.empty()))
			return false;
		fraction.append(unit.decimals - fraction.size(), '0');
		uint64_t w, f = 0;
		if (!parse_unsigned(whole, w) || (!fraction.empty() && !parse_unsigned("1" + fraction, f)))
			return false;
		uint64_t scale = 1;
		for (unsigned i = 0; i < unit.decimals; i++)
			scale *= 10;
		if (!fraction.empty())
			f -= scale; // the leading 1 kept leading zeros from reading as octal
		if (w > (UINT64_MAX - f) / scale)
			return false;
		nanoseconds = w * scale + f;
		return true;
	}
	return false;
}

// --write [K:]REGISTER=VALUE: REGISTER by its name in the register map (docs/regmap.md)
void parse_write(const std::string &argument, Options &options)
{
	std::string what = "--write '" + argument + "'";
	size_t equals = argument.find('=');
	if (equals == std::string::npos)
		throw UsageError(what + ": expected [K:]REGISTER=VALUE, e.g. evcap.control=1");
	RegisterWrite w;
	std::string name = argument.substr(0, equals);
	size_t colon = name.find(':');
	if (colon != std::string::npos) {
		w.switch_index = parse_switch_index(name.substr(0, colon), what, options);
		name = name.substr(colon + 1);
	}
	const pktstats_reg_info *info = nullptr;
	for (size_t i = 0; i < pktstats_regs_count; i++)
		if (name == pktstats_regs[i].name)
			info = &pktstats_regs[i];
	if (!info)
		throw UsageError(what + ": no register '" + name + "' (pktstats reg list names them)");
	if (strcmp(info->access, "const") == 0 || strcmp(info->access, "ro") == 0)
		throw UsageError(what + ": register '" + name + "' is read-only");
	std::string value = argument.substr(equals + 1);
	if (!parse_unsigned(value, w.value) || (info->width < 64 && w.value >> info->width))
		throw UsageError(what + ": '" + value + "' is not a number of " + std::to_string(info->width) +
				 " bits");
	w.address = info->address;
	w.width = info->width;
	options.writes.push_back(w);
}

void parse_switch(const std::string &argument, Options &options)
{
	std::string what = "--switch '" + argument + "'";
	auto fail = [&](const std::string &why) { throw UsageError(what + ": " + why); };
	size_t colon = argument.find(':');
	if (colon == std::string::npos)
		fail("expected K:socket=PATH,offset=TIME,ppm=X,truth=FILE,sojourn-truth=FILE");
	unsigned k = parse_switch_index(argument.substr(0, colon), what, options);
	SwitchOptions &sw = options.switches[k];
	for (const std::string &item : split(argument.substr(colon + 1), ',')) {
		size_t equals = item.find('=');
		if (equals == std::string::npos)
			fail("'" + item + "' is not KEY=VALUE");
		std::string key = item.substr(0, equals), value = item.substr(equals + 1);
		if (key == "socket" || key == "truth" || key == "sojourn-truth") {
			if (value.empty())
				fail("empty '" + key + "='");
			(key == "socket"  ? sw.socket_path
			 : key == "truth" ? sw.truth_path
					  : sw.sojourn_truth_path) = value;
		} else if (key == "offset") {
			if (!value.empty() && value[0] == '-')
				fail("offset '" + value + "' is negative (a time of day cannot be)");
			if (!parse_exact_ns(value, sw.offset_ns))
				fail("offset '" + value + "' is not a time (e.g. 1.5s, 250us, 100ns)");
			sw.clock_given = true;
		} else if (key == "ppm") {
			double ppm;
			if (!parse_double(value, ppm) || std::fabs(ppm) > 1000 ||
			    std::fabs(ppm * 1000 - std::round(ppm * 1000)) > 1e-6)
				fail("ppm '" + value + "' is not a frequency error in ppm, -1000..1000 "
				     "in steps of 0.001");
			sw.ppb = (int64_t)std::llround(ppm * 1000);
			sw.clock_given = true;
		} else {
			fail("unknown setting '" + key + "' (socket, offset, ppm, truth, sojourn-truth)");
		}
	}
}

// K.N or N (switch 0): a cable's end.
CableEnd parse_cable_end(const std::string &text, const std::string &what, Options &options)
{
	CableEnd end;
	std::string port_text = text;
	size_t dot = text.find('.');
	if (dot != std::string::npos) {
		end.switch_index = parse_switch_index(text.substr(0, dot), what, options);
		port_text = text.substr(dot + 1);
	}
	uint64_t port;
	if (!parse_unsigned(port_text, port))
		throw UsageError(what + ": '" + text + "' is not a port (K.N or N)");
	if (port >= port_count)
		throw UsageError(what + ": port " + port_text + " does not exist (ports 0..7)");
	if (port >= mac_port_count)
		throw UsageError(what + ": port " + port_text + " is a CPU port; cables join MAC " +
				 "ports 0..3");
	end.port = (unsigned)port;
	return end;
}

void parse_cable(const std::string &argument, Options &options)
{
	std::string what = "--cable '" + argument + "'";
	auto fail = [&](const std::string &why) { throw UsageError(what + ": " + why); };
	std::vector<std::string> items = split(argument, ',');
	size_t dash = items[0].find('-');
	if (dash == std::string::npos)
		fail("expected K.N-L.M[,length=LEN|delay=TIME]");
	CableOptions cable;
	cable.text = argument;
	cable.ends[0] = parse_cable_end(items[0].substr(0, dash), what, options);
	cable.ends[1] = parse_cable_end(items[0].substr(dash + 1), what, options);
	if (cable.ends[0].switch_index == cable.ends[1].switch_index &&
	    cable.ends[0].port == cable.ends[1].port)
		fail("both ends are the same port");
	bool have_delay = false;
	for (size_t i = 1; i < items.size(); i++) {
		size_t equals = items[i].find('=');
		if (equals == std::string::npos)
			fail("'" + items[i] + "' is not KEY=VALUE");
		std::string key = items[i].substr(0, equals), value = items[i].substr(equals + 1);
		if (key != "delay" && key != "length")
			fail("unknown setting '" + key + "' (length, delay)");
		if (have_delay)
			fail("give one of length= and delay=");
		have_delay = true;
		if (!value.empty() && value[0] == '-')
			fail(key + " '" + value + "' is negative");
		if (key == "delay") {
			double ps;
			if (!parse_time_ps(value, ps))
				fail("delay '" + value + "' is not a time (e.g. 500ns, 10us)");
			cable.delay_ps = (uint64_t)std::llround(ps);
		} else {
			// 5 ns per metre (light in fibre or copper at about 2/3 c)
			double metres, scale = 0;
			if (value.size() > 2 && value.compare(value.size() - 2, 2, "km") == 0)
				scale = 1000;
			else if (value.size() > 1 && value.back() == 'm')
				scale = 1;
			if (scale == 0 || !parse_double(value.substr(0, value.size() - (scale == 1 ? 1 : 2)), metres) ||
			    metres < 0)
				fail("length '" + value + "' is not a length in m or km (e.g. 100m, 2km)");
			cable.delay_ps = (uint64_t)std::llround(metres * scale * 5000);
		}
	}
	options.cables.push_back(cable);
}

// What can only be checked with the whole command line: switch indices against --switches,
// each port in at most one cable, a cabled port with no other input or output.
void check_network(Options &options)
{
	if (options.highest_switch >= options.switch_count)
		throw UsageError(options.highest_switch_argument + ": switch " +
				 std::to_string(options.highest_switch) + " is out of range (--switches " +
				 std::to_string(options.switch_count) + ": 0.." +
				 std::to_string(options.switch_count - 1) + ")");
	for (size_t c = 0; c < options.cables.size(); c++) {
		const CableOptions &cable = options.cables[c];
		for (const CableEnd &end : cable.ends) {
			PortOptions &p = options.switches[end.switch_index].ports[end.port];
			std::string name = "port " + std::to_string(end.switch_index) + "." + std::to_string(end.port);
			if (p.cable >= 0)
				throw UsageError("--cable '" + cable.text + "': " + name + " is cabled twice (also --cable '" +
						 options.cables[p.cable].text + "')");
			if (p.input != PortOptions::Input::none || !p.tap_name.empty())
				throw UsageError("--cable '" + cable.text + "': " + name + " also has an input or " +
						 "a TAP interface (in=, gen= or tap=); a cabled port has only out= and rx=");
			p.cable = (int)c;
		}
	}
}

void parse_port(const std::string &argument, Options &options)
{
	auto fail = [&](const std::string &why) {
		throw UsageError("--port '" + argument + "': " + why);
	};
	size_t colon = argument.find(':');
	uint64_t port;
	if (colon == std::string::npos)
		fail("expected N:in=FILE, N:gen=RATE, N:out=FILE, N:rx=FILE or N:tap=IFACE");
	unsigned switch_index = 0;
	std::string port_text = argument.substr(0, colon);
	size_t dot = port_text.find('.');
	if (dot != std::string::npos) {
		switch_index = parse_switch_index(port_text.substr(0, dot), "--port '" + argument + "'",
						  options);
		port_text = port_text.substr(dot + 1);
	}
	if (!parse_unsigned(port_text, port) || port >= port_count)
		fail("port '" + port_text + "' is not a port number 0..7");
	PortOptions &p = options.switches[switch_index].ports[port];
	std::vector<std::string> items = split(argument.substr(colon + 1), ',');
	std::string kind;
	for (size_t i = 0; i < items.size(); i++) {
		size_t equals = items[i].find('=');
		if (equals == std::string::npos)
			fail("'" + items[i] + "' is not KEY=VALUE");
		std::string key = items[i].substr(0, equals), value = items[i].substr(equals + 1);
		if (i == 0) {
			kind = key;
			if ((key == "in" || key == "gen" || key == "out" || key == "tap") &&
			    !p.tap_name.empty())
				fail("port " + std::to_string(port) + " is already TAP " + p.tap_name);
			if (key == "tap") {
				if (p.input != PortOptions::Input::none || !p.output_path.empty())
					fail("a TAP port has no other input or output");
				if (value.empty() || value.size() > 15)
					fail("interface name '" + value + "' is not 1 to 15 characters");
				p.tap_name = value;
			} else if (key == "in" || key == "gen") {
				if (p.input != PortOptions::Input::none)
					fail("port " + std::to_string(port) + " already has an input");
				if (value.empty())
					fail("empty '" + key + "='");
				if (key == "in") {
					p.input = PortOptions::Input::pcap;
					p.input_path = value;
				} else {
					p.input = PortOptions::Input::generator;
					if (!parse_double(value, p.rate) || !(p.rate > 0 && p.rate <= 1))
						fail("rate '" + value + "' is not a fraction of line rate in (0, 1]");
				}
			} else if (key == "out" || key == "rx") {
				std::string &path = key == "out" ? p.output_path : p.receive_path;
				if (!path.empty())
					fail("port " + std::to_string(port) + " already has " +
					     (key == "out" ? "an output" : "a receive record"));
				if (value.empty())
					fail("empty '" + key + "='");
				path = value;
			} else {
				fail("'" + key + "' is not in, gen, out, rx or tap");
			}
			continue;
		}
		if (kind == "in" && key == "timing") {
			if (value == "relative")
				p.timing = PcapTiming::relative_to_first;
			else if (value == "back-to-back")
				p.timing = PcapTiming::back_to_back;
			else
				fail("timing '" + value + "' is not relative or back-to-back");
		} else if (kind == "gen" && key == "size") {
			uint64_t a, b;
			size_t dash = value.find('-');
			if (value == "imix") {
				p.size_distribution = FrameSizeDistribution::imix;
			} else if (dash != std::string::npos && parse_unsigned(value.substr(0, dash), a) &&
				   parse_unsigned(value.substr(dash + 1), b)) {
				p.size_distribution = FrameSizeDistribution::uniform;
				p.minimum_bytes = a;
				p.maximum_bytes = b;
			} else if (parse_unsigned(value, a)) {
				p.size_distribution = FrameSizeDistribution::fixed;
				p.frame_bytes = a;
			} else {
				fail("size '" + value + "' is not SIZE, imix or MIN-MAX");
			}
		} else if (kind == "gen" && key == "to") {
			uint64_t to;
			if (!parse_unsigned(value, to) || to >= port_count || to == port)
				fail("to '" + value + "' is not another port 0..7");
			p.to = (int)to;
		} else if (kind == "gen" && key == "seed") {
			if (!parse_unsigned(value, p.seed))
				fail("seed '" + value + "' is not a number");
			p.have_seed = true;
		} else if (kind == "gen" && (key == "on" || key == "off")) {
			double ps;
			if (!parse_time_ps(value, ps))
				fail(key + " '" + value + "' is not a time (e.g. 100us)");
			(key == "on" ? p.on_ns : p.off_ns) = ps / 1000;
		} else if (kind == "gen" && key == "count") {
			if (!parse_unsigned(value, p.count) || p.count == 0)
				fail("count '" + value + "' is not a positive number");
		} else {
			fail("unknown setting '" + key + "' for " + kind + "=");
		}
	}
	if ((p.on_ns > 0) != (p.off_ns > 0))
		fail("on= and off= go together");
}

Options::IdleSkipMode parse_idle_skip(const std::string &value, const char *what)
{
	if (value == "on")
		return Options::IdleSkipMode::on;
	if (value == "off")
		return Options::IdleSkipMode::off;
	if (value == "check")
		return Options::IdleSkipMode::check;
	throw UsageError(std::string(what) + " '" + value + "' is not on, off or check");
}

Options parse_command_line(int argc, char **argv)
{
	enum { o_port = 256, o_cpu_rate, o_duration, o_socket, o_wait, o_truth, o_trace, o_seed, o_help,
	       o_version, o_switches, o_switch, o_cable, o_wire_truth, o_idle_skip, o_write, o_threads,
	       o_sojourn_truth };
	static const struct option long_options[] = {
		{"port", required_argument, nullptr, o_port},
		{"cpu-rate", required_argument, nullptr, o_cpu_rate},
		{"duration", required_argument, nullptr, o_duration},
		{"socket", required_argument, nullptr, o_socket},
		{"wait", no_argument, nullptr, o_wait},
		{"truth", required_argument, nullptr, o_truth},
		{"sojourn-truth", required_argument, nullptr, o_sojourn_truth},
		{"trace", required_argument, nullptr, o_trace},
		{"seed", required_argument, nullptr, o_seed},
		{"help", no_argument, nullptr, o_help},
		{"version", no_argument, nullptr, o_version},
		{"switches", required_argument, nullptr, o_switches},
		{"switch", required_argument, nullptr, o_switch},
		{"cable", required_argument, nullptr, o_cable},
		{"wire-truth", required_argument, nullptr, o_wire_truth},
		{"idle-skip", required_argument, nullptr, o_idle_skip},
		{"write", required_argument, nullptr, o_write},
		{"threads", required_argument, nullptr, o_threads},
		{nullptr, 0, nullptr, 0},
	};
	Options options;
	// The default, for developers: PKTSTATS_SIM_IDLE_SKIP=check make test checks every skip of
	// every simulator run of the suite
	if (const char *mode = getenv("PKTSTATS_SIM_IDLE_SKIP"))
		options.idle_skip = parse_idle_skip(mode, "PKTSTATS_SIM_IDLE_SKIP");
	opterr = 0;
	for (;;) {
		int previous = optind;
		int c = getopt_long(argc, argv, ":", long_options, nullptr);
		if (c == -1)
			break;
		std::string value = optarg ? optarg : "";
		switch (c) {
		case o_port:
			parse_port(value, options);
			break;
		case o_cpu_rate: {
			double rate;
			if (!parse_double(value, rate) || rate < 1e6 || rate > 1e12)
				throw UsageError("--cpu-rate '" + value + "' is not a rate in bit/s (1e6..1e12)");
			options.cpu_rate = (uint64_t)rate;
			break;
		}
		case o_duration: {
			double ps;
			if (!parse_time_ps(value, ps) || ps <= 0)
				throw UsageError("--duration '" + value +
						 "' is not a time (e.g. 10ms, 2s, 500us, 125000cycles)");
			options.have_duration = true;
			options.duration_cycles = (uint64_t)std::ceil(ps / (double)clock_period_ps);
			break;
		}
		case o_socket:
			if (value.empty())
				throw UsageError("--socket: empty path");
			options.switches[0].socket_path = value;
			break;
		case o_wait:
			options.wait = true;
			break;
		case o_truth:
			options.switches[0].truth_path = value;
			break;
		case o_sojourn_truth:
			if (value.empty())
				throw UsageError("--sojourn-truth: empty path");
			options.switches[0].sojourn_truth_path = value;
			break;
		case o_trace:
			options.trace_path = value;
			break;
		case o_seed:
			if (!parse_unsigned(value, options.seed))
				throw UsageError("--seed '" + value + "' is not a number");
			break;
		case o_switches: {
			uint64_t n;
			if (!parse_unsigned(value, n) || n < 1 || n > maximum_switches)
				throw UsageError("--switches '" + value + "' is not a number of switches 1.." +
						 std::to_string(maximum_switches));
			options.switch_count = (unsigned)n;
			break;
		}
		case o_switch:
			parse_switch(value, options);
			break;
		case o_cable:
			parse_cable(value, options);
			break;
		case o_wire_truth:
			if (value.empty())
				throw UsageError("--wire-truth: empty path");
			options.wire_truth_path = value;
			break;
		case o_write:
			parse_write(value, options);
			break;
		case o_threads: {
			uint64_t n;
			if (!parse_unsigned(value, n) || n < 1 || n > maximum_switches)
				throw UsageError("--threads '" + value + "' is not a number of threads 1.." +
						 std::to_string(maximum_switches));
			options.threads = (unsigned)n;
			break;
		}
		case o_idle_skip:
			options.idle_skip = parse_idle_skip(value, "--idle-skip");
			break;
		case o_help:
			usage(stdout);
			exit(0);
		case o_version:
			printf("%s %s (commit %08x%s)\n", program, PKTSTATS_SIM_VERSION,
			       (unsigned)PKTSTATS_SIM_GIT_HASH, VM_TRACE ? ", with --trace" : "");
			exit(0);
		case ':':
			throw UsageError(std::string("option '") + argv[previous] + "' needs an argument");
		default:
			throw UsageError(std::string("unknown option '") +
					 (previous < argc ? argv[previous] : "?") + "'");
		}
	}
	if (optind < argc)
		throw UsageError(std::string("unexpected argument '") + argv[optind] + "'");
	check_network(options);
	// A waveform shows every clock
	if (!options.trace_path.empty())
		options.idle_skip = Options::IdleSkipMode::off;
	bool any_socket = false;
	for (unsigned k = 0; k < options.switch_count; k++)
		any_socket |= !options.switches[k].socket_path.empty();
	if (options.wait && !any_socket)
		throw UsageError("--wait needs --socket");
	return options;
}

// ---------------------------------------------------------------------------------------------
// A source whose frames are shifted by the time traffic started (for --wait).

class DelayedSource : public FrameSource {
public:
	DelayedSource(std::unique_ptr<FrameSource> inner) : inner_(std::move(inner)) {}
	void set_offset_ns(uint64_t offset) { offset_ns_ = offset; }
	bool next_frame(TimedFrame &frame) override
	{
		if (!inner_->next_frame(frame))
			return false;
		if (!inner_->live())
			frame.time_ns += offset_ns_;
		return true;
	}
	std::string description() const override { return inner_->description(); }
	bool live() const override { return inner_->live(); }

private:
	std::unique_ptr<FrameSource> inner_;
	uint64_t offset_ns_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The wire truth file: every frame's first bit on every MAC port's wire, in true time and as
// the switch's own time-of-day clock read it then.

// The core's stamps of a frame out of a MAC port, in its first word's handshake clock:
// m_axis_tx_timestamp, m_axis_rx_timestamp (and valid), m_axis_residence_time.
struct HardwareStamps {
	uint64_t tx = 0, rx = 0; // {seconds[31:0], nanoseconds[29:0]}
	bool rx_valid = false;
	int32_t residence = 0;
};

class WireTruthFile {
public:
	explicit WireTruthFile(const std::string &path)
		: out_(path, "switch,port,direction,true_time_ps,clock,tod_seconds,tod_nanoseconds,"
			     "tod_fraction,length,frame_hash,hw_tx_seconds,hw_tx_nanoseconds,"
			     "hw_rx_seconds,hw_rx_nanoseconds,hw_residence_ns\n")
	{
	}
	// `hw`: the core's stamps of a frame leaving the port (tx lines; null on rx lines).
	// `step_fs`: the true time of the clock edge of the switch's step that records it.
	void record(unsigned switch_index, uint64_t step_fs, unsigned port, WireDirection direction,
		    uint64_t time_ps, uint64_t cycle, const TimeOfDay &tod, const std::vector<uint8_t> &bytes,
		    const HardwareStamps *hw)
	{
		// FNV-1a over the frame as the wire carried it: the same frame at both ends of a cable
		FrameHash hash;
		for (uint8_t b : bytes)
			hash.add(b);
		char line[256];
		int n = snprintf(line, sizeof line, "%u,%u,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,%zu,%016" PRIx64,
				 switch_index, port, direction == WireDirection::transmit ? "tx" : "rx", time_ps,
				 cycle, tod.seconds, tod.nanoseconds, tod.fraction, bytes.size(), hash.value);
		if (hw == nullptr)
			snprintf(line + n, sizeof line - n, ",,,,,\n");
		else if (!hw->rx_valid)
			snprintf(line + n, sizeof line - n, ",%" PRIu64 ",%u,,,\n", hw->tx >> 30,
				 (unsigned)(hw->tx & 0x3fffffffu));
		else
			snprintf(line + n, sizeof line - n, ",%" PRIu64 ",%u,%" PRIu64 ",%u,%d\n", hw->tx >> 30,
				 (unsigned)(hw->tx & 0x3fffffffu), hw->rx >> 30, (unsigned)(hw->rx & 0x3fffffffu),
				 hw->residence);
		if (pending_.empty()) {
			fputs(line, out_.file());
			lines_++;
		} else
			pending_[switch_index].push_back(Pending{step_fs, line});
	}

	// While switches run on threads, each keeps its lines until write_pending(), which writes
	// them in the order of a single thread's run: by the true time of the step that made
	// them, then by switch (the order Network::next_switch() steps them in).
	void buffer_per_switch(size_t switches) { pending_.assign(switches, {}); }
	void write_pending()
	{
		struct Next {
			uint64_t step_fs;
			size_t switch_index, line;
		};
		std::vector<Next> all;
		for (size_t k = 0; k < pending_.size(); k++)
			for (size_t i = 0; i < pending_[k].size(); i++)
				all.push_back(Next{pending_[k][i].step_fs, k, i});
		std::stable_sort(all.begin(), all.end(), [](const Next &a, const Next &b) {
			return a.step_fs != b.step_fs ? a.step_fs < b.step_fs : a.switch_index < b.switch_index;
		});
		for (const Next &n : all)
			fputs(pending_[n.switch_index][n.line].text.c_str(), out_.file());
		lines_ += all.size();
		for (auto &lines : pending_)
			lines.clear();
	}
	// False (and the reason on stderr) when the file could not be written whole.
	bool close()
	{
		write_pending();
		return out_.close(program);
	}
	uint64_t lines() const { return lines_; }
	const std::string &path() const { return out_.path(); }

private:
	struct Pending {
		uint64_t step_fs;
		std::string text;
	};
	TruthFile out_;
	std::vector<std::vector<Pending>> pending_; // empty: lines go straight to the file
	uint64_t lines_ = 0;
};

// ---------------------------------------------------------------------------------------------
// One switch: the Verilated core, its MAC models, sources, sinks, register server.

struct SwitchSimulation;

// A MAC port's WireObserver: looks up the switch's clock reading at the frame's first bit.
struct PortWireObserver : WireObserver {
	SwitchSimulation *owner = nullptr;
	unsigned port = 0;
	WireStamp frame_on_wire(WireDirection direction, uint64_t first_bit_ps,
				const std::vector<uint8_t> &bytes) override;
};

struct SwitchSimulation {
	const Options &options;
	const SwitchOptions &switch_options;
	const unsigned index;
	VerilatedContext context;
	Vpktstats_core dut{&context};
	AxilMasterBackend bus{dut};
	// The switch's oscillator against true time; null: exactly 8 ns per clock from time 0
	// (the single-switch simulator as it always was: no per-clock time arithmetic).
	std::unique_ptr<ClockTimebase> timebase;
	std::vector<std::unique_ptr<MacModel>> macs;
	std::vector<std::unique_ptr<DelayedSource>> sources;
	std::vector<std::unique_ptr<PcapFrameSink>> sinks;
	std::shared_ptr<TapDevice> taps[port_count];
	TapFrameSource *tap_sources[port_count] = {};
	std::vector<std::unique_ptr<TapFrameSink>> tap_sinks;
	CableWire *cable_in[port_count] = {};  // the cable direction arriving at each port
	CableWire *cable_out[port_count] = {}; // and leaving it
	FrameSink *output_file[port_count] = {}; // out=FILE of each port
	std::vector<std::unique_ptr<TeeFrameSink>> tees;
	std::unique_ptr<RegisterServer> server;
	FILE *truth = nullptr;
	uint64_t truth_lines = 0;
	std::unique_ptr<SojournTruth> sojourn; // --sojourn-truth; null: not asked for
	uint64_t sojourn_lines = 0;            // its lines, once closed
	uint32_t occupancy_now[port_count] = {};
	uint32_t peak_occupancy[port_count] = {};
	bool record_truth = true;
	uint64_t cycle = 0; // clocks since the end of reset
	bool traffic_started = false;
	uint64_t traffic_start_cycle = 0;
	// The time of day after every clock edge of the last `tod_history_size` clocks, so that a
	// frame's first bit, told when its last byte has arrived (up to 1538 byte times later),
	// finds the reading of its own clock: the MAC's RX timestamp of the frame and its wire
	// truth lines.
	static constexpr uint64_t tod_history_size = 8192;
	WireTruthFile *wire_truth = nullptr;
	std::vector<TimeOfDay> tod_history;
	PortWireObserver wire_observers[mac_port_count];
	// The core's stamps of the frame being sent on each MAC port (wire truth only)
	HardwareStamps transmit_stamps[mac_port_count];
	uint8_t transmit_in_frame = 0;
#if VM_TRACE
	std::unique_ptr<VerilatedFstC> trace;
#endif
	uint64_t trace_time_ps = 0;
	IdleSkip idle{*dut.rootp};
	uint64_t skips = 0, skipped_clocks = 0;
	// Clocks since a word last entered or left the core, a queue held one, the register bus or
	// an engine was busy (IdleSkip::quiescent()): after IdleSkip::settle_clocks of them,
	// whatever entered has left or was dropped
	uint64_t quiet_clocks = 0;

	SwitchSimulation(const Options &o, unsigned k)
		: options(o), switch_options(o.switches[k]), index(k)
	{
	}

	~SwitchSimulation()
	{
		if (truth)
			fclose(truth);
#if VM_TRACE
		if (trace)
			trace->close();
#endif
	}

	// True time of clock `c`'s edge, in picoseconds.
	uint64_t time_ps(uint64_t c) const { return timebase ? timebase->edge_ps(c) : c * clock_period_ps; }

	std::string port_name(unsigned p) const
	{
		return options.network() ? std::to_string(index) + "." + std::to_string(p) : std::to_string(p);
	}

	void setup(WireTruthFile *wire_truth_file)
	{
		if (options.network())
			timebase = std::make_unique<ClockTimebase>(switch_options.ppb);
		wire_truth = wire_truth_file;
		tod_history.resize(tod_history_size);
		for (unsigned p = 0; p < port_count; p++) {
			MacModelConfig config;
			config.name = (p < mac_port_count ? "mac" : "cpu") + port_name(p);
			config.link = p < mac_port_count ? LinkTiming::ethernet()
							 : LinkTiming::cpu_port(options.cpu_rate);
			config.clock_period_ps = clock_period_ps;
			// The board's MACs take a frame's words as their serializers need them
			config.serializer_paced = p < mac_port_count;
			// At 0 ppm an edge is exactly cycle × 8 ns: the MAC models keep the single
			// switch's arithmetic (and cost).
			config.timebase = timebase && timebase->ppb() != 0 ? timebase.get() : nullptr;
			macs.push_back(std::make_unique<MacModel>(config));
			if (p < mac_port_count) {
				wire_observers[p].owner = this;
				wire_observers[p].port = p;
				macs[p]->set_wire_observer(&wire_observers[p]);
			}
			const PortOptions &po = switch_options.ports[p];
			std::unique_ptr<FrameSource> source;
			std::string what = "--port " + port_name(p);
			if (!po.tap_name.empty()) {
				auto device = std::make_shared<TapDevice>(po.tap_name);
				size_t largest = p < mac_port_count ? 1514 : TrafficGenerator::largest_frame_bytes;
				auto tap_source = std::make_unique<TapFrameSource>(device, &cycle, clock_period_ps,
										 largest);
				tap_source->set_timebase(config.timebase);
				tap_sources[p] = tap_source.get();
				source = std::move(tap_source);
				tap_sinks.push_back(std::make_unique<TapFrameSink>(device));
				macs[p]->set_frame_sink(tap_sinks.back().get());
				taps[p] = device;
			} else if (po.input == PortOptions::Input::pcap) {
				PcapFrameSourceOptions pcap_options;
				pcap_options.timing = po.timing;
				if (p >= mac_port_count)
					pcap_options.maximum_frame_bytes = TrafficGenerator::largest_frame_bytes;
				source = std::make_unique<PcapFrameSource>(po.input_path, pcap_options);
			} else if (po.input == PortOptions::Input::generator) {
				TrafficGeneratorConfig g;
				// Switch 0's seeds are those of the single-switch simulator.
				g.seed = po.have_seed ? po.seed : options.seed * 1000003 + p + 1000 * index;
				g.source_port = p;
				g.port_count = port_count;
				g.link = config.link;
				g.rate = po.rate;
				g.size_distribution = po.size_distribution;
				g.frame_bytes = po.frame_bytes;
				g.minimum_frame_bytes = po.minimum_bytes;
				g.maximum_frame_bytes = po.maximum_bytes;
				g.destination_weights.assign(port_count, 0.0);
				if (po.to >= 0) {
					g.destination_weights[po.to] = 1.0;
					g.broadcast_weight = 0.0;
				} else {
					g.broadcast_weight = 1.0;
				}
				size_t largest = po.size_distribution == FrameSizeDistribution::uniform ? po.maximum_bytes
					       : po.size_distribution == FrameSizeDistribution::fixed ? po.frame_bytes : 1514;
				if (p < mac_port_count && largest > 1514)
					throw UsageError(what + ":gen: frame size " +
							 std::to_string(largest) + " is above 1514, the largest "
							 "Ethernet frame of a MAC port");
				g.mean_on_ns = po.on_ns;
				g.mean_off_ns = po.off_ns;
				g.frame_limit = po.count;
				try {
					source = std::make_unique<TrafficGenerator>(g);
				} catch (const std::invalid_argument &e) {
					throw UsageError(what + ":gen: " + e.what());
				}
			}
			sources.push_back(source ? std::make_unique<DelayedSource>(std::move(source)) : nullptr);
			for (const std::string *path : {&po.output_path, &po.receive_path}) {
				if (path->empty())
					continue;
				auto sink = std::make_unique<PcapFrameSink>(*path);
				if (sink->pcapng_requested())
					fprintf(stderr, "%s: %s: written as %s\n", program, path->c_str(),
						sink->written_format().c_str());
				if (path == &po.output_path) {
					macs[p]->set_frame_sink(sink.get());
					output_file[p] = sink.get();
				}
				else
					macs[p]->set_receive_sink(sink.get());
				sinks.push_back(std::move(sink));
			}
		}
		if (!switch_options.truth_path.empty()) {
			truth = fopen(switch_options.truth_path.c_str(), "w");
			if (!truth)
				throw std::runtime_error(switch_options.truth_path + ": " + strerror(errno));
			setvbuf(truth, nullptr, _IOFBF, 1 << 20);
			fprintf(truth, "cycle,queue,occupancy\n");
		}
		if (!switch_options.sojourn_truth_path.empty())
			sojourn = std::make_unique<SojournTruth>(switch_options.sojourn_truth_path);
		if (index == 0 && !options.trace_path.empty()) {
#if VM_TRACE
			context.traceEverOn(true);
			trace = std::make_unique<VerilatedFstC>();
			dut.trace(trace.get(), 99);
			trace->open(options.trace_path.c_str());
#else
			throw std::runtime_error("--trace: this build has no waveform support: use "
						 "build/bin/pktstats-sim-trace (make sim-trace)");
#endif
		}
		if (!switch_options.socket_path.empty()) {
			RegisterServerConfig config;
			config.socket_path = switch_options.socket_path;
			config.clock_period_ps = clock_period_ps;
			server = std::make_unique<RegisterServer>(config, bus);
		}
	}

	// A cable on MAC port p: frames out of it go into `out`, frames into it come from `in`.
	void attach_cable(unsigned p, CableWire *in, CableWire *out)
	{
		cable_in[p] = in;
		cable_out[p] = out;
		if (output_file[p]) {
			tees.push_back(std::make_unique<TeeFrameSink>(out, output_file[p]));
			macs[p]->set_frame_sink(tees.back().get());
		} else {
			macs[p]->set_frame_sink(out);
		}
		macs[p]->set_frame_source(in);
	}

	void eval_and_dump()
	{
		dut.eval();
#if VM_TRACE
		if (trace)
			trace->dump(trace_time_ps);
#endif
	}

	void reset()
	{
		dut.rst = 1;
		dut.clk = 0;
		dut.s_axis_tvalid = 0;
		dut.m_axis_tready = 0;
		bus.drive();
		for (unsigned i = 0; i < reset_cycles; i++) {
			dut.clk = 0;
			eval_and_dump();
			trace_time_ps += clock_period_ps / 2;
			dut.clk = 1;
			eval_and_dump();
			trace_time_ps += clock_period_ps / 2;
		}
		dut.rst = 0;
	}

	// Traffic starts at true time `start_ns` (a clock edge of this switch, or the first after it).
	void start_traffic(uint64_t start_ns)
	{
		traffic_started = true;
		traffic_start_cycle = cycle;
		for (unsigned p = 0; p < port_count; p++)
			if (sources[p]) {
				sources[p]->set_offset_ns(start_ns);
				macs[p]->set_frame_source(sources[p].get());
			}
	}

	uint32_t occupancy(unsigned q) const
	{
		const auto &bus_value = dut.rootp->pktstats_core__DOT__queue_occupancy;
		unsigned lsb = 20 * q;
		uint64_t low = bus_value[lsb / 32] | (uint64_t)bus_value[lsb / 32 + 1] << 32;
		return (uint32_t)(low >> (lsb % 32)) & 0xfffff;
	}

	TimeOfDay time_of_day() const
	{
		TimeOfDay t;
		t.seconds = dut.tod_seconds;
		t.nanoseconds = dut.tod_nanoseconds;
		t.fraction = dut.tod_fraction;
		return t;
	}

	// The switch's clock reading at true time `ps`: the time of day a register clocked by the
	// first edge at or after `ps` samples, i.e. the time of day set by the last edge before
	// `ps` (an instant exactly at an edge belongs to the clock that edge ends: a frame's first
	// word handshaked at edge c goes on the wire at edge c, in the clock the TX stamp is taken).
	// It is the RX timestamp the MAC hands in with a received frame and, with the wire truth
	// file, that line's reading (one computation for both).
	WireStamp record_wire(unsigned port, WireDirection direction, uint64_t ps, const std::vector<uint8_t> &bytes)
	{
		// (A first bit at true time 0, before any edge, a single switch's traffic from its
		// first clock: clock 0's reading.)
		uint64_t before = ps == 0 ? 0 : ps - 1;
		uint64_t at = timebase ? timebase->cycle_at_ps(before) : before / clock_period_ps;
		if (at > cycle || cycle - at >= tod_history_size)
			throw std::logic_error("switch " + std::to_string(index) + " port " + std::to_string(port) +
					       ": a frame's first bit at " + std::to_string(ps) +
					       " ps is outside the clock history (clock " + std::to_string(at) +
					       ", now " + std::to_string(cycle) + ")");
		const TimeOfDay &tod = tod_history[at % tod_history_size];
		if (wire_truth)
			wire_truth->record(index, timebase ? timebase->edge_fs(cycle) : cycle * clock_period_ps * 1000,
					   port, direction, ps, at, tod, bytes,
					   direction == WireDirection::transmit ? &transmit_stamps[port] : nullptr);
		WireStamp stamp;
		stamp.valid = true;
		stamp.seconds = (uint32_t)tod.seconds;
		stamp.nanoseconds = tod.nanoseconds;
		return stamp;
	}

	// Bits lsb + width - 1 : lsb of a Verilated wide signal (width <= 64)
	static uint64_t wide_bits(const uint32_t *words, unsigned lsb, unsigned width)
	{
		unsigned __int128 value = 0;
		unsigned first = lsb / 32, last = (lsb + width - 1) / 32;
		for (unsigned k = first; k <= last; k++)
			value |= (unsigned __int128)words[k] << (32 * (k - first));
		value >>= lsb % 32;
		return (uint64_t)value & (width == 64 ? ~0ull : (1ull << width) - 1);
	}

	static void set_wide_bits(uint32_t *words, unsigned lsb, unsigned width, uint64_t value)
	{
		unsigned first = lsb / 32, last = (lsb + width - 1) / 32;
		unsigned __int128 mask = ((unsigned __int128)(width == 64 ? ~0ull : (1ull << width) - 1)) << (lsb % 32);
		unsigned __int128 bits = (unsigned __int128)value << (lsb % 32);
		for (unsigned k = first; k <= last; k++) {
			uint32_t m = (uint32_t)(mask >> (32 * (k - first)));
			words[k] = (words[k] & ~m) | ((uint32_t)(bits >> (32 * (k - first))) & m);
		}
	}

	// The core's stamps of MAC port p's output in this clock (its first word's handshake).
	void sample_transmit_stamps(unsigned p)
	{
		HardwareStamps &h = transmit_stamps[p];
		h.tx = wide_bits(&dut.m_axis_tx_timestamp[0], 62 * p, 62);
		h.rx = wide_bits(&dut.m_axis_rx_timestamp[0], 62 * p, 62);
		h.rx_valid = (dut.m_axis_rx_timestamp_valid >> p) & 1;
		h.residence = (int32_t)(uint32_t)wide_bits(&dut.m_axis_residence_time[0], 32 * p, 32);
	}

	// The sojourn truth of this clock, read before its edge: the queues' commits (arrival
	// strobes) and the words leaving on every output port, with the departure strobes that say
	// which frame ends were their queue's.
	void record_sojourn(uint8_t out_fire, const AxiStreamWord *out_words)
	{
		const auto &root = *dut.rootp;
		uint8_t arrivals = root.pktstats_core__DOT__queue_arrival;
		uint8_t departures = root.pktstats_core__DOT__queue_departure;
		for (unsigned q = 0; arrivals >> q; q++)
			if ((arrivals >> q) & 1)
				sojourn->arrival(q, cycle,
						 (unsigned)wide_bits(&root.pktstats_core__DOT__queue_arrival_length[0], 16 * q, 16));
		uint8_t frame_ends = 0;
		for (unsigned p = 0; out_fire >> p; p++) {
			if (!((out_fire >> p) & 1))
				continue;
			const AxiStreamWord &w = out_words[p];
			sojourn->word(p, w.data, w.keep);
			if (!w.last)
				continue;
			frame_ends |= (uint8_t)(1u << p);
			sojourn->frame_end(p, cycle, (departures >> p) & 1,
					   (unsigned)wide_bits(&root.pktstats_core__DOT__queue_departure_length[0], 16 * p, 16),
					   macs[p]->config().link.minimum_frame_bytes());
		}
		// A queue's last word leaves it only through its port's stream
		if (departures & ~frame_ends)
			throw std::logic_error("sojourn truth: switch " + std::to_string(index) + ": a departure in clock " +
					       std::to_string(cycle) + " without a frame's last word on its port");
	}

	// One clock. Returns true when anything moved on a stream port.
	bool step()
	{
		// A counter's event in this clock (a flush timeout, a tick) starts work inside the core
		// that the ports see only later: wait for it to settle again before skipping, counting
		// from the event (not only when it comes after settle_clocks quiet ones: a stat packet
		// closed by its timeout a few clocks before the count reached them was skipped over
		// while the packet output prepared it, and left late)
		if (quiet_clocks != 0 && idle.clocks_until_event() == 0)
			quiet_clocks = 0;
		AxiStreamWord offered[port_count];
		uint8_t valid = 0, last = 0, ready = 0, stamp_valid = 0;
		uint64_t keep = 0;
		for (unsigned p = 0; p < port_count; p++) {
			offered[p] = macs[p]->receive_offer(cycle);
			const AxiStreamWord &w = offered[p];
			uint64_t data = w.valid ? w.data : 0;
			dut.s_axis_tdata[2 * p] = (uint32_t)data;
			dut.s_axis_tdata[2 * p + 1] = (uint32_t)(data >> 32);
			if (w.valid) {
				valid |= (uint8_t)(1u << p);
				last |= (uint8_t)((w.last ? 1u : 0u) << p);
				keep |= (uint64_t)w.keep << (8 * p);
				if (w.stamp_valid) {
					stamp_valid |= (uint8_t)(1u << p);
					set_wide_bits(&dut.s_axis_rx_timestamp[0], 62 * p, 62, w.stamp);
				}
			}
			if (macs[p]->transmit_ready(cycle))
				ready |= (uint8_t)(1u << p);
		}
		dut.s_axis_tvalid = valid;
		dut.s_axis_tlast = last;
		dut.s_axis_tkeep = keep;
		dut.s_axis_rx_timestamp_valid = stamp_valid;
		dut.m_axis_tready = ready;
		bus.drive();
		dut.clk = 0;
		eval_and_dump();
		trace_time_ps += clock_period_ps / 2;

		uint8_t in_fire = valid & dut.s_axis_tready;
		uint8_t out_fire = dut.m_axis_tvalid & ready;
		AxiStreamWord out_words[port_count];
		if (out_fire)
			for (unsigned p = 0; p < port_count; p++)
				if ((out_fire >> p) & 1) {
					AxiStreamWord &w = out_words[p];
					w.valid = true;
					w.data = (uint64_t)dut.m_axis_tdata[2 * p] |
						 (uint64_t)dut.m_axis_tdata[2 * p + 1] << 32;
					w.keep = (uint8_t)(dut.m_axis_tkeep >> (8 * p));
					w.last = (dut.m_axis_tlast >> p) & 1;
					if (wire_truth && p < mac_port_count) {
						if (!((transmit_in_frame >> p) & 1))
							sample_transmit_stamps(p);
						transmit_in_frame = (uint8_t)((transmit_in_frame & ~(1u << p)) |
									      (w.last ? 0u : 1u << p));
					}
				}
		bus.sample();
		if (sojourn)
			record_sojourn(out_fire, out_words);

		dut.clk = 1;
		eval_and_dump();
		trace_time_ps += clock_period_ps / 2;
		tod_history[cycle % tod_history_size] = time_of_day();

		for (unsigned p = 0; p < port_count; p++) {
			if ((in_fire >> p) & 1)
				macs[p]->receive_accept(cycle);
			if ((out_fire >> p) & 1)
				macs[p]->transmit_accept(cycle, out_words[p]);
		}
		bus.advance();

		// Ground truth: after this edge the occupancy registers hold the occupancy after this
		// clock's events.
		bool occupied = false;
		for (unsigned q = 0; q < port_count; q++) {
			uint32_t value = occupancy(q);
			occupied |= value != 0;
			if (value != occupancy_now[q] && record_truth) {
				occupancy_now[q] = value;
				if (value > peak_occupancy[q])
					peak_occupancy[q] = value;
				if (truth) {
					fprintf(truth, "%" PRIu64 ",%u,%u\n", cycle, q, value);
					truth_lines++;
				}
			}
		}
		cycle++;
		bool active = valid || dut.m_axis_tvalid || occupied;
		quiet_clocks = active || bus.in_flight() || !idle.quiescent() ? 0 : quiet_clocks + 1;
		return active;
	}

	// Clocks up to (not including) the first edge at or after true time `end_fs`, skipping
	// idle ones (a network's switch on its own thread, Network::run_on_threads()).
	void run_until_fs(uint64_t end_fs)
	{
		while (timebase->edge_fs(cycle) < end_fs) {
			if (!last_active && options.idle_skip != Options::IdleSkipMode::off && quiescent()) {
				uint64_t until = std::min(next_event_cycle(), timebase->first_cycle_at_or_after_fs(end_fs));
				if (until >= cycle + minimum_skip) {
					skip_to(until);
					last_active = true; // a step follows before the next skip
					continue;
				}
			}
			last_active = step();
		}
	}
	bool last_active = true;

	// The first clock whose edge is at or after true time `ps`.
	uint64_t first_cycle_at_or_after(uint64_t ps) const
	{
		if (!timebase)
			return (ps + clock_period_ps - 1) / clock_period_ps;
		uint64_t c = timebase->cycle_at_ps(ps);
		return timebase->edge_ps(c) >= ps ? c : c + 1;
	}

	// True when nothing is in flight in this switch or on its wires: no frame being received
	// or sent by a MAC model, none in the core, no register access. The MAC models' next
	// frames may be scheduled (next_event_cycle() stops before them).
	bool quiescent() const
	{
		for (unsigned p = 0; p < port_count; p++) {
			if (macs[p]->receive_next_event_ps() == 0 || !macs[p]->transmit_idle(cycle))
				return false;
			if (cable_in[p] && !cable_in[p]->empty())
				return false;
		}
		for (unsigned q = 0; q < port_count; q++)
			if (occupancy_now[q] != 0)
				return false;
		// A connected client works in wall-clock time (it may poll the time until a clock, then
		// read): while one is connected, the simulation keeps its pace
		if (bus.in_flight() || (server && server->client_count() != 0))
			return false;
		return quiet_clocks >= IdleSkip::settle_clocks && idle.quiescent();
	}

	// For a quiescent switch: the first clock from now that must be clocked, because something
	// happens in it or soon after (a frame's first bit on a receive wire, a counter of the
	// core reaching its event, a poll of the register socket or of a TAP interface).
	uint64_t next_event_cycle() const
	{
		uint64_t until = UINT64_MAX;
		uint64_t design = idle.clocks_until_event();
		if (design != UINT64_MAX)
			until = cycle + design;
		bool live = server != nullptr;
		for (unsigned p = 0; p < port_count; p++) {
			live |= taps[p] != nullptr;
			uint64_t ps = macs[p]->receive_next_event_ps();
			if (ps != UINT64_MAX) {
				// The clock of the first bit and the one before it are clocked: the RX stamp
				// reads the time of day there (record_wire)
				uint64_t first = first_cycle_at_or_after(ps);
				until = std::min(until, first > 2 ? first - 2 : 0);
			}
		}
		// The socket and the TAP interfaces are polled when the clock count is a multiple of
		// the poll interval; the skip ends there and the poll follows it. At or after `cycle`:
		// a switch that a skip left on a poll's clock has not been clocked there yet (in a
		// network another switch may take the step after a skip, on a tie), and skipping it
		// to the next poll would pass over this one: the TAPs were then read seconds late.
		if (live)
			until = std::min(until, (cycle + server_poll_interval - 1) & ~(server_poll_interval - 1));
		return std::max(until, cycle);
	}

	// Skips clocks cycle .. until - 1 of a quiescent switch in one step (sim/idle_skip.h); with
	// --idle-skip=check, also clocks them and compares the model after both.
	void skip_to(uint64_t until)
	{
		uint64_t clocks = until - cycle;
		TimeOfDay before = time_of_day();
		if (options.idle_skip == Options::IdleSkipMode::check) {
			ModelState start = ModelState::of(*dut.rootp);
			idle.advance(clocks);
			ModelState skipped = ModelState::of(*dut.rootp);
			start.restore(*dut.rootp);
			std::vector<TimeOfDay> history;
			for (uint64_t c = cycle; c < until; c++)
				history.push_back(advance_time_of_day(before, idle.trim(), c - cycle + 1));
			// The skip assumed no input from live sources: a TAP's host frames, which come in
			// wall-clock time, wait until after the replay as they wait until after the skip
			FrameSource *live[port_count] = {};
			for (unsigned p = 0; p < port_count; p++) {
				FrameSource *source = macs[p]->frame_source();
				if (source && source->live()) {
					live[p] = source;
					macs[p]->set_frame_source(nullptr);
				}
			}
			uint64_t from = cycle;
			while (cycle < until)
				step();
			for (unsigned p = 0; p < port_count; p++)
				if (live[p])
					macs[p]->set_frame_source(live[p]);
			ModelState clocked = ModelState::of(*dut.rootp);
			std::vector<std::string> differ = ModelState::differences(*dut.rootp, skipped, clocked);
			// (the history keeps the last tod_history_size clocks)
			for (uint64_t c = std::max(from, until - std::min(until, tod_history_size));
			     c < until && differ.empty(); c++) {
				const TimeOfDay &a = history[c - from], &b = tod_history[c % tod_history_size];
				if (a.seconds != b.seconds || a.nanoseconds != b.nanoseconds || a.fraction != b.fraction)
					differ.push_back("time of day after clock " + std::to_string(c) + " (" +
							 std::to_string(a.seconds) + " s " + std::to_string(a.nanoseconds) +
							 " ns skipped, " + std::to_string(b.seconds) + " s " +
							 std::to_string(b.nanoseconds) + " ns clocked)");
			}
			if (!differ.empty()) {
				std::string names;
				for (const std::string &name : differ)
					names += " " + name;
				throw std::logic_error("switch " + std::to_string(index) + ": idle skip of " +
						       std::to_string(clocks) + " clocks from clock " +
						       std::to_string(from) + " differs from clocking them:" + names);
			}
		} else {
			idle.advance(clocks);
			// The time of day of the skipped clocks that the history keeps
			uint64_t first = clocks > tod_history_size ? until - tod_history_size : cycle;
			TimeOfDay t = advance_time_of_day(before, idle.trim(), first - cycle);
			for (uint64_t c = first; c < until; c++) {
				step_time_of_day(t, idle.trim());
				tod_history[c % tod_history_size] = t;
			}
			cycle = until;
			trace_time_ps += clocks * clock_period_ps;
		}
		skips++;
		skipped_clocks += clocks;
	}

	void poll_server()
	{
		if (!server)
			return;
		if (timebase)
			server->set_simulation_time(cycle, time_ps(cycle));
		else
			server->set_simulation_cycle(cycle);
		server->poll_once(0);
	}

	bool all_drained()
	{
		for (unsigned p = 0; p < port_count; p++) {
			if (sources[p] && !macs[p]->receive_exhausted())
				return false;
			if (cable_in[p] && (!cable_in[p]->empty() || !macs[p]->receive_idle()))
				return false;
			if (!macs[p]->transmit_idle(cycle))
				return false;
		}
		return true;
	}
};

WireStamp PortWireObserver::frame_on_wire(WireDirection direction, uint64_t first_bit_ps,
					  const std::vector<uint8_t> &bytes)
{
	return owner->record_wire(port, direction, first_bit_ps, bytes);
}

// ---------------------------------------------------------------------------------------------
// The network: every switch, the cables between them, one clock loop in true time.

std::string format_ps(uint64_t ps)
{
	char text[64];
	double ns = (double)ps / 1000.0;
	if (ns >= 1e9)
		snprintf(text, sizeof text, "%.6f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(text, sizeof text, "%.6f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(text, sizeof text, "%.3f us", ns / 1e3);
	else
		snprintf(text, sizeof text, "%.0f ns", ns);
	return text;
}

struct Network {
	const Options &options;
	std::vector<std::unique_ptr<SwitchSimulation>> switches;
	std::vector<std::unique_ptr<CableWire>> cable_wires;
	std::unique_ptr<WireTruthFile> wire_truth;
	std::vector<uint64_t> next_edge_fs; // of each switch's next clock (network mode)
	bool traffic_started = false;
	uint64_t traffic_start_ps = 0;

	explicit Network(const Options &o) : options(o) {}

	void setup()
	{
		if (!options.wire_truth_path.empty())
			wire_truth = std::make_unique<WireTruthFile>(options.wire_truth_path);
		for (unsigned k = 0; k < options.switch_count; k++) {
			switches.push_back(std::make_unique<SwitchSimulation>(options, k));
			switches.back()->setup(wire_truth.get());
		}
		for (const CableOptions &cable : options.cables) {
			const CableEnd &a = cable.ends[0], &b = cable.ends[1];
			std::string a_name = std::to_string(a.switch_index) + "." + std::to_string(a.port);
			std::string b_name = std::to_string(b.switch_index) + "." + std::to_string(b.port);
			cable_wires.push_back(std::make_unique<CableWire>(cable.delay_ps, "cable from " + a_name));
			CableWire *a_to_b = cable_wires.back().get();
			cable_wires.push_back(std::make_unique<CableWire>(cable.delay_ps, "cable from " + b_name));
			CableWire *b_to_a = cable_wires.back().get();
			switches[a.switch_index]->attach_cable(a.port, b_to_a, a_to_b);
			switches[b.switch_index]->attach_cable(b.port, a_to_b, b_to_a);
		}
		for (auto &s : switches)
			next_edge_fs.push_back(s->timebase ? s->timebase->edge_fs(0) : 0);
	}

	// The switch whose next clock edge comes first in true time (the lowest index on a tie):
	// stepping in this order, a frame is in a cable before the far switch's clock reaches it.
	SwitchSimulation &next_switch()
	{
		if (switches.size() == 1)
			return *switches[0];
		size_t best = 0;
		for (size_t k = 1; k < switches.size(); k++)
			if (next_edge_fs[k] < next_edge_fs[best])
				best = k;
		return *switches[best];
	}

	// One clock of switch `s`. Returns true when anything moved on its stream ports.
	bool step(SwitchSimulation &s)
	{
		bool active = s.step();
		if (s.timebase)
			next_edge_fs[s.index] = s.timebase->edge_fs(s.cycle);
		return active;
	}
	void step_once() { step(next_switch()); }

	// When every switch is quiescent (idle_skip.h) and its cables are empty, skips every switch
	// to just before the first thing that will happen in any of them, at most to true time
	// `limit_ps`. Returns true when it skipped.
	bool skip_idle(uint64_t limit_ps)
	{
		if (options.idle_skip == Options::IdleSkipMode::off)
			return false;
		uint64_t horizon_ps = limit_ps;
		std::vector<uint64_t> events;
		for (auto &s : switches) {
			if (!s->quiescent())
				return false;
			events.push_back(s->next_event_cycle());
			if (events.back() < s->cycle + minimum_skip)
				return false;
			if (events.back() != UINT64_MAX)
				horizon_ps = std::min(horizon_ps, s->time_ps(events.back()));
		}
		if (horizon_ps == UINT64_MAX) // nothing will happen: no end to skip to
			return false;
		bool skipped = false;
		for (auto &s : switches) {
			uint64_t until = std::min(events[s->index], s->first_cycle_at_or_after(horizon_ps));
			if (until > s->cycle) {
				s->skip_to(until);
				if (s->timebase)
					next_edge_fs[s->index] = s->timebase->edge_fs(s->cycle);
				skipped = true;
			}
		}
		return skipped;
	}

	// A blocking register access of switch `s`, the network running meanwhile (the register
	// server is gone by then, or not yet polled).
	bool access(SwitchSimulation &s, bool is_write, uint32_t address, uint32_t value_in, uint32_t &value_out)
	{
		for (;;) {
			int status = is_write ? s.bus.write(address, value_in) : s.bus.read(address, &value_out);
			if (status != register_status::pending)
				return status == register_status::ok;
			step_once();
		}
	}
	bool read64(SwitchSimulation &s, uint32_t address, uint64_t &value)
	{
		uint32_t low = 0, high = 0;
		if (!access(s, false, address, 0, low) || !access(s, false, address + 4, 0, high))
			return false;
		value = (uint64_t)high << 32 | low;
		return true;
	}
	void write(SwitchSimulation &s, uint32_t address, uint32_t value)
	{
		uint32_t ignored;
		if (!access(s, true, address, value, ignored))
		{
			char text[16];
			snprintf(text, sizeof text, "0x%04x", address);
			throw std::runtime_error("switch " + std::to_string(s.index) + ": register write " +
						 text + " failed");
		}
	}
	void run_clocks(SwitchSimulation &s, uint64_t clocks)
	{
		uint64_t until = s.cycle + clocks;
		while (s.cycle < until)
			step_once();
	}

	static uint64_t nanoseconds_of(const TimeOfDay &t) { return t.seconds * 1000000000u + t.nanoseconds; }

	// Sets switch s's time-of-day clock through its registers, as software would, so that
	// after its clock edge k it reads offset + 8 ns × k: its offset plus the true time of that
	// edge × (1 + ppm·10^-6) (ClockTimebase). The set lands in a clock the bus decides; the
	// simulator reads where it landed from the clock's outputs and corrects it with a step,
	// which adds the same amount whenever it lands, then checks the result.
	void set_time_of_day(SwitchSimulation &s)
	{
		const uint64_t offset = s.switch_options.offset_ns;
		uint64_t aim = offset + 8 * (s.cycle + 64);
		write(s, PKTSTATS_TIME_SET_SECONDS_LO, (uint32_t)(aim / 1000000000u));
		write(s, PKTSTATS_TIME_SET_SECONDS_HI, (uint32_t)(aim / 1000000000u >> 32));
		write(s, PKTSTATS_TIME_SET_NANOSECONDS, (uint32_t)(aim % 1000000000u));
		write(s, PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_SET_MASK);
		run_clocks(s, 4);
		int64_t correction = (int64_t)(offset + 8 * (s.cycle - 1)) - (int64_t)nanoseconds_of(s.time_of_day());
		if (correction != 0) {
			int64_t seconds = correction / 1000000000;
			int64_t nanoseconds = correction % 1000000000;
			if (nanoseconds < 0) {
				seconds -= 1;
				nanoseconds += 1000000000;
			}
			write(s, PKTSTATS_TIME_STEP_SECONDS_LO, (uint32_t)(uint64_t)seconds);
			write(s, PKTSTATS_TIME_STEP_SECONDS_HI, (uint32_t)((uint64_t)seconds >> 32) & 0xffffu);
			write(s, PKTSTATS_TIME_STEP_NANOSECONDS, (uint32_t)nanoseconds);
			write(s, PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_STEP_MASK);
			run_clocks(s, 4);
		}
		TimeOfDay now = s.time_of_day();
		if (nanoseconds_of(now) != offset + 8 * (s.cycle - 1) || now.fraction != 0)
			throw std::runtime_error("switch " + std::to_string(s.index) +
						 ": its time of day could not be set (reads " +
						 std::to_string(nanoseconds_of(now)) + " ns after clock " +
						 std::to_string(s.cycle - 1) + ", not " +
						 std::to_string(offset + 8 * (s.cycle - 1)) + ")");
	}

	void reset()
	{
		for (auto &s : switches)
			s->reset();
		if (options.network())
			for (auto &s : switches)
				set_time_of_day(*s);
		// --write: the low word first; a 48- or 64-bit register's high word commits it
		for (const RegisterWrite &w : options.writes) {
			write(*switches[w.switch_index], w.address, (uint32_t)w.value);
			if (w.width > 32)
				write(*switches[w.switch_index], w.address + 4, (uint32_t)(w.value >> 32));
		}
	}

	// The shortest cable's delay (no cable: 1 ms, to look at the signals now and then).
	uint64_t lookahead_ps() const
	{
		uint64_t lookahead = 1000000000;
		for (const CableOptions &cable : options.cables)
			lookahead = std::min(lookahead, cable.delay_ps);
		return lookahead;
	}

	// The network on `threads` threads, each running its share of the switches, up to true
	// time `limit_ps`. They run in windows of true time as long as the shortest cable's delay
	// (the look-ahead): in a window each switch runs on its own up to the window's end, since a
	// frame sent in it cannot reach the far switch before that end (cable_wire.h); between
	// windows the frames sent are delivered to the cables and the wire truth lines written in
	// a single thread's order. The results are those of one thread, byte for byte.
	void run_on_threads(unsigned threads, uint64_t limit_ps)
	{
		const uint64_t lookahead_fs = lookahead_ps() * 1000;
		const uint64_t limit_fs = limit_ps * 1000;
		if (wire_truth)
			wire_truth->buffer_per_switch(switches.size());

		// The threads meet at the end of each window by spinning (a window is a few hundred
		// clocks, a sleep and a wake-up would cost a good part of it); they yield the core
		// after a while, for runs with more threads than cores.
		std::atomic<uint64_t> generation{0}, window_end_fs{0};
		std::atomic<unsigned> done{0};
		std::atomic<bool> finished{false};
		auto wait_until = [](auto condition) {
			for (unsigned spins = 0; !condition(); spins++)
				if (spins > 2000)
					std::this_thread::yield();
		};
		std::mutex failure_mutex;
		std::exception_ptr failure;
		auto run_share = [&](unsigned worker, uint64_t end_fs) {
			try {
				for (size_t k = worker; k < switches.size(); k += threads)
					switches[k]->run_until_fs(end_fs);
			} catch (...) {
				std::lock_guard<std::mutex> lock(failure_mutex);
				if (!failure)
					failure = std::current_exception();
			}
		};
		std::vector<std::thread> workers;
		for (unsigned w = 1; w < threads; w++)
			workers.emplace_back([&, w] {
				for (uint64_t seen = 0;;) {
					wait_until([&] { return finished.load() || generation.load() != seen; });
					if (finished.load())
						return;
					seen = generation.load();
					run_share(w, window_end_fs.load());
					done.fetch_add(1);
				}
			});
		for (;;) {
			uint64_t now_fs = UINT64_MAX;
			for (auto &s : switches)
				now_fs = std::min(now_fs, s->timebase->edge_fs(s->cycle));
			bool failed;
			{
				std::lock_guard<std::mutex> lock(failure_mutex);
				failed = failure != nullptr;
			}
			if (now_fs >= limit_fs || stop_signal || failed)
				break;
			uint64_t end_fs = now_fs + std::min(lookahead_fs, limit_fs - now_fs);
			for (auto &cable : cable_wires)
				cable->set_window_end(end_fs / 1000);
			window_end_fs.store(end_fs);
			done.store(0);
			generation.fetch_add(1);
			run_share(0, end_fs);
			wait_until([&] { return done.load() == threads - 1; });
			for (auto &cable : cable_wires)
				cable->deliver();
			if (wire_truth)
				wire_truth->write_pending();
		}
		finished.store(true);
		for (std::thread &t : workers)
			t.join();
		for (auto &cable : cable_wires)
			cable->set_window_end(0);
		if (wire_truth)
			wire_truth->buffer_per_switch(0);
		for (auto &s : switches)
			next_edge_fs[s->index] = s->timebase->edge_fs(s->cycle);
		if (failure)
			std::rethrow_exception(failure);
	}

	// Every switch's traffic starts at the same true time: the latest clock edge any of them
	// has reached (each switch's first clock from then on is its first with traffic).
	void start_traffic()
	{
		uint64_t now_ps = 0;
		for (auto &s : switches)
			now_ps = std::max(now_ps, s->time_ps(s->cycle));
		uint64_t start_ns = (now_ps + 999) / 1000;
		traffic_started = true;
		traffic_start_ps = start_ns * 1000;
		for (auto &s : switches)
			s->start_traffic(start_ns);
	}

	bool all_drained()
	{
		for (auto &s : switches)
			if (!s->all_drained())
				return false;
		return true;
	}

	// Steps until the inputs are exhausted and nothing has moved for `quiet_cycles_to_stop`
	// clocks of every switch: no word offered or sent, every queue empty, every wire and cable
	// free. False when `limit_ps` of true time pass first or a second signal stops the run.
	bool run_until_quiet(uint64_t limit_ps)
	{
		uint64_t quiet = 0;
		const uint64_t enough = quiet_cycles_to_stop * switches.size();
		SwitchSimulation &first = next_switch();
		uint64_t until = first.time_ps(first.cycle) + limit_ps;
		while (quiet < enough) {
			SwitchSimulation &s = next_switch();
			if (s.time_ps(s.cycle) >= until || signal_count > 1)
				return false;
			bool active = step(s);
			quiet = active || !s.all_drained() ? 0 : quiet + 1;
		}
		return true;
	}

	// The end of a run, whatever ended it: the inputs stop, every switch drains (the
	// departures of the frames still queued are events too; frames on cables arrive), each
	// capture's open stat packet is flushed and every stat packet leaves on its wire. Only then
	// do the outputs close, so the stat packets hold every event the switches made. The register
	// servers are closed first: from here on the simulator alone uses the register buses.
	struct Ending {
		uint64_t inputs_end = 0, drained = 0, flush = 0, quiet = 0;
		bool capture_on = false;
		uint64_t events_sent = 0, packets_sent = 0, events_missed = 0;
	};
	bool complete = false;
	std::vector<Ending> end_run()
	{
		std::vector<Ending> endings(switches.size());
		for (auto &s : switches)
			s->server.reset();
		for (;;) {
			bool in_flight = false;
			for (auto &s : switches)
				in_flight |= s->bus.in_flight();
			if (!in_flight)
				break;
			step_once();
		}
		for (size_t k = 0; k < switches.size(); k++) {
			SwitchSimulation &s = *switches[k];
			s.bus.discard_result();
			endings[k].inputs_end = s.cycle;
			// A cabled port's input is the cable: what is on it still arrives.
			for (unsigned p = 0; p < port_count; p++)
				if (!s.cable_in[p])
					s.macs[p]->end_input(s.cycle);
		}
		// Draining a full queue takes 32 KiB / 1 Gb/s = 262 us; 1 s covers the slowest CPU port.
		const uint64_t limit_ps = 125000000 * clock_period_ps;
		bool drained = run_until_quiet(limit_ps);
		for (size_t k = 0; k < switches.size(); k++) {
			SwitchSimulation &s = *switches[k];
			Ending &e = endings[k];
			e.drained = s.cycle;
			uint32_t control = 0;
			e.capture_on = access(s, false, PKTSTATS_EVCAP_CONTROL, 0, control) &&
				       (control & PKTSTATS_EVCAP_CONTROL_ENABLE_MASK);
			uint32_t ignored;
			if (e.capture_on)
				access(s, true, PKTSTATS_EVCAP_COMMAND, PKTSTATS_EVCAP_COMMAND_FLUSH_MASK, ignored);
			e.flush = s.cycle;
		}
		complete = drained && run_until_quiet(limit_ps);
		for (size_t k = 0; k < switches.size(); k++) {
			SwitchSimulation &s = *switches[k];
			Ending &e = endings[k];
			e.quiet = s.cycle;
			read64(s, PKTSTATS_EVCAP_EVENTS_SENT, e.events_sent);
			read64(s, PKTSTATS_EVCAP_PACKETS_SENT, e.packets_sent);
			read64(s, PKTSTATS_EVCAP_EVENTS_MISSED, e.events_missed);
		}
		return endings;
	}
};

std::string format_ns(uint64_t cycles)
{
	return format_ps(cycles * clock_period_ps);
}

std::string format_ppm(int64_t ppb)
{
	char text[32];
	snprintf(text, sizeof text, "%+.3f", ppb / 1000.0);
	std::string s = text;
	while (s.back() == '0')
		s.pop_back();
	if (s.back() == '.')
		s.pop_back();
	return s;
}

struct QueueCounters {
	uint64_t stored = 0, removed = 0, dropped = 0, peak = 0;
	bool ok = false;
};

// One switch's part of the summary: how its run ended, its ports and its queues.
void print_switch_summary(const Options &options, SwitchSimulation &s, const Network::Ending &ending,
			  bool complete, uint64_t end_cycle, const std::vector<MacCounters> &counters,
			  const QueueCounters *queues)
{
	if (complete)
		printf("end of run: inputs stopped at clock %" PRIu64 ", switch drained at clock %" PRIu64
		       ", %s\n", ending.inputs_end, ending.drained,
		       ending.capture_on ? ("capture flushed at clock " + std::to_string(ending.flush) +
					    ", its stat packets out by clock " + std::to_string(ending.quiet)).c_str()
					 : "capture off (nothing to flush)");
	else
		printf("end of run: stopped at clock %" PRIu64 " before the switch drained and the "
		       "capture was flushed (%s): events may be missing from the stat packets\n",
		       end_cycle, signal_count > 1 ? "second signal" : "not drained within 1 s");
	printf("capture: %s, %" PRIu64 " events sent in %" PRIu64 " stat packets, %" PRIu64 " missed\n",
	       ending.capture_on ? "on" : "off", ending.events_sent, ending.packets_sent,
	       ending.events_missed);
	printf("\n%-5s %-10s %12s %14s %10s %12s %14s  %s\n", "port", "link", "frames in", "bytes in",
	       "MAC drops", "frames out", "bytes out", "input / output");
	for (unsigned p = 0; p < port_count; p++) {
		const MacCounters &c = counters[p];
		const PortOptions &po = s.switch_options.ports[p];
		std::string io;
		if (po.cable >= 0) {
			const CableOptions &cable = options.cables[po.cable];
			const CableEnd &far = cable.ends[cable.ends[0].switch_index == s.index &&
							  cable.ends[0].port == p ? 1 : 0];
			io = "cable to " + std::to_string(far.switch_index) + "." + std::to_string(far.port) +
			     " (" + format_ps(cable.delay_ps) + ")";
			if (!po.output_path.empty())
				io += " / " + po.output_path;
		} else {
			io = s.sources[p] ? s.sources[p]->description() : "-";
			io += " / ";
			io += !po.tap_name.empty() ? "TAP " + po.tap_name
			      : po.output_path.empty() ? "-" : po.output_path;
		}
		char link[32];
		snprintf(link, sizeof link, "%s %g", p < mac_port_count ? "eth" : "cpu",
			 p < mac_port_count ? 1.0 : options.cpu_rate / 1e9);
		printf("%-5u %-10s %12" PRIu64 " %14" PRIu64 " %10" PRIu64 " %12" PRIu64 " %14" PRIu64 "  %s\n", p,
		       (std::string(link) + "G").c_str(), c.frames_received, c.bytes_received, c.frames_dropped,
		       c.frames_transmitted, c.bytes_transmitted, io.c_str());
		if (s.tap_sources[p] && s.tap_sources[p]->frames_skipped_oversize())
			printf("      %" PRIu64 " frames from TAP %s skipped: longer than the port's largest\n",
			       s.tap_sources[p]->frames_skipped_oversize(), s.taps[p]->name().c_str());
		if (s.taps[p] && s.taps[p]->frames_not_delivered())
			printf("      %" PRIu64 " frames not delivered to TAP %s: its queue was full or it was down\n",
			       s.taps[p]->frames_not_delivered(), s.taps[p]->name().c_str());
		if (c.transmit_protocol_errors)
			printf("      %" PRIu64 " AXI4-Stream errors from the switch, first: %s\n",
			       c.transmit_protocol_errors, s.macs[p]->first_transmit_error().c_str());
	}
	printf("\n%-5s %12s %12s %12s %14s %14s\n", "queue", "stored", "removed", "dropped",
	       "peak (words)", "true peak");
	for (unsigned q = 0; q < port_count; q++) {
		const QueueCounters &c = queues[q];
		if (c.ok)
			printf("%-5u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14u\n", q, c.stored,
			       c.removed, c.dropped, c.peak, s.peak_occupancy[q]);
		else
			printf("%-5u %12s %12s %12s %14s %14u\n", q, "?", "?", "?", "?", s.peak_occupancy[q]);
	}
	printf("\nqueue counters read through the register bus; true peak from the occupancy bus");
	if (!s.switch_options.truth_path.empty())
		printf("; %" PRIu64 " truth lines in %s", s.truth_lines, s.switch_options.truth_path.c_str());
	if (!s.switch_options.sojourn_truth_path.empty())
		printf("; %" PRIu64 " sojourn truth lines in %s", s.sojourn_lines,
		       s.switch_options.sojourn_truth_path.c_str());
	printf("\n");
	if (s.bus.timeouts())
		printf("register bus: %" PRIu64 " timeouts\n", s.bus.timeouts());
}

// How many threads the run's switches get (Network::run_on_threads), and why only one.
unsigned thread_count(const Options &options, std::string &why_one)
{
	unsigned cores = std::max(1u, std::thread::hardware_concurrency());
	unsigned wanted = options.threads ? options.threads : std::min(options.switch_count, cores);
	wanted = std::min(wanted, options.switch_count);
	if (options.switch_count < 2)
		why_one = "one switch";
	else if (!options.have_duration)
		why_one = "no --duration (the end of a run without one is decided clock by clock)";
	else if (options.wait || !options.trace_path.empty())
		why_one = options.wait ? "--wait" : "--trace";
	for (unsigned k = 0; k < options.switch_count && why_one.empty(); k++) {
		if (!options.switches[k].socket_path.empty())
			why_one = "a register socket (it is served between clocks)";
		for (unsigned p = 0; p < port_count; p++)
			if (!options.switches[k].ports[p].tap_name.empty())
				why_one = "a TAP port (the host's frames come between clocks)";
	}
	for (const CableOptions &cable : options.cables)
		if (cable.delay_ps == 0 && why_one.empty())
			why_one = "a cable without delay (no look-ahead between its switches)";
	return why_one.empty() ? wanted : 1;
}

int run(const Options &options)
{
	auto network_owner = std::make_unique<Network>(options);
	Network &net = *network_owner;
	net.setup();
	const bool network = options.network();

	struct sigaction action;
	memset(&action, 0, sizeof action);
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, nullptr);
	sigaction(SIGTERM, &action, nullptr);
	signal(SIGPIPE, SIG_IGN);

	bool have_inputs = false, unbounded = false, have_socket = false;
	std::string first_socket;
	for (auto &s : net.switches) {
		for (unsigned p = 0; p < port_count; p++) {
			have_inputs |= s->sources[p] != nullptr;
			unbounded |= s->switch_options.ports[p].input == PortOptions::Input::generator &&
				     s->switch_options.ports[p].count == 0;
		}
		if (s->server && !have_socket) {
			have_socket = true;
			first_socket = s->switch_options.socket_path;
		}
	}
	if (!options.have_duration && unbounded)
		fprintf(stderr, "%s: a generator without count= and no --duration: running until "
				"interrupted\n", program);
	if (!options.have_duration && !have_inputs && !have_socket)
		fprintf(stderr, "%s: no inputs, no --duration: nothing to do\n", program);
	bool serve_forever = !options.have_duration && !have_inputs && have_socket;

	net.reset();
	if (!options.wait)
		net.start_traffic();
	else
		fprintf(stderr, "%s: waiting for `start` on %s\n", program,
			network ? "any switch's socket" : first_socket.c_str());

	std::string why_one_thread;
	const unsigned threads = thread_count(options, why_one_thread);
	if (options.threads > 1 && threads == 1)
		fprintf(stderr, "%s: --threads %u: running on one thread: %s\n", program, options.threads,
			why_one_thread.c_str());

	auto wall_start = std::chrono::steady_clock::now();
	uint64_t quiet = 0;
	const uint64_t enough_quiet = quiet_cycles_to_stop * net.switches.size();
	const uint64_t duration_ps = options.duration_cycles * clock_period_ps;
	const char *end_reason = "inputs exhausted, queues drained";
	const bool stop_when_quiet = !options.have_duration && !serve_forever;
	auto signalled = [] { return stop_signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)"; };
	// Switch s's socket, after a clock or a skip that ended at a poll: the start of the traffic
	// is on it too
	auto poll = [&](SwitchSimulation &s) {
		s.poll_server();
		if (!net.traffic_started && s.server->start_requested())
			net.start_traffic();
	};
	bool active = true;
	if (threads > 1) {
		net.run_on_threads(threads, net.traffic_start_ps + duration_ps);
		end_reason = stop_signal ? signalled() : "duration reached";
	}
	while (threads == 1) {
		if (stop_signal) {
			end_reason = signalled();
			break;
		}
		// Idle clocks in one step, up to the end of the run. Not when the run is counting its
		// last quiet clocks (nothing would end the skip).
		if (!active && !(stop_when_quiet && net.traffic_started && net.all_drained())) {
			uint64_t limit_ps = options.have_duration && net.traffic_started
					    ? net.traffic_start_ps + duration_ps : UINT64_MAX;
			if (net.skip_idle(limit_ps)) {
				for (auto &skipped : net.switches)
					if (skipped->server && (skipped->cycle & (server_poll_interval - 1)) == 0)
						poll(*skipped);
				active = true; // a step follows before the next skip
				continue;
			}
		}
		SwitchSimulation &s = net.next_switch();
		// With --wait the duration counts from `start`: the idle clocks before it are set-up
		if (options.have_duration && net.traffic_started &&
		    s.time_ps(s.cycle) >= net.traffic_start_ps + duration_ps) {
			end_reason = "duration reached";
			break;
		}
		active = net.step(s);
		if (s.server && ((s.cycle & (server_poll_interval - 1)) == 0 || s.bus.in_flight() ||
				 s.server->backend_operation_in_flight() || s.cycle >= s.server->wake_cycle()))
			poll(s);
		if (stop_when_quiet && net.traffic_started) {
			if (active || !s.all_drained())
				quiet = 0;
			else if (++quiet >= enough_quiet)
				break;
		}
	}
	// The speed is that of the run proper: the end's drain is lighter work.
	double wall_seconds =
		std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
	std::vector<uint64_t> run_cycles;
	uint64_t all_cycles = 0, run_true_ps = 0;
	for (auto &s : net.switches) {
		run_cycles.push_back(s->cycle);
		all_cycles += s->cycle;
		run_true_ps = std::max(run_true_ps, s->time_ps(s->cycle));
	}
	std::vector<Network::Ending> endings = net.end_run();

	// Close the outputs: the run is over. Counters as they were at the end.
	int status = !net.complete && signal_count <= 1 ? 1 : 0;
	std::vector<std::vector<MacCounters>> counters(net.switches.size());
	std::vector<uint64_t> end_cycles;
	for (auto &s : net.switches) {
		end_cycles.push_back(s->cycle);
		s->record_truth = false;
		for (auto &mac : s->macs) {
			counters[s->index].push_back(mac->counters());
			mac->set_frame_source(nullptr);
			mac->set_frame_sink(nullptr);
			mac->set_receive_sink(nullptr);
			mac->set_wire_observer(nullptr);
		}
		s->wire_truth = nullptr;
		for (auto &sink : s->sinks) {
			try {
				sink->close();
			} catch (const std::exception &e) {
				fprintf(stderr, "%s: %s\n", program, e.what());
				status = 1;
			}
		}
		if (s->truth) {
			if (fclose(s->truth) != 0) {
				fprintf(stderr, "%s: %s: %s\n", program, s->switch_options.truth_path.c_str(),
					strerror(errno));
				status = 1;
			}
			s->truth = nullptr;
		}
		if (s->sojourn) {
			if (!s->sojourn->close(program))
				status = 1;
			s->sojourn_lines = s->sojourn->lines();
			s->sojourn.reset();
		}
	}
	uint64_t wire_truth_lines = net.wire_truth ? net.wire_truth->lines() : 0;
	if (net.wire_truth && !net.wire_truth->close())
		status = 1;

	// The queue counters, read through the register bus as a driver would.
	std::vector<std::vector<QueueCounters>> queues(net.switches.size(),
						       std::vector<QueueCounters>(port_count));
	for (auto &s : net.switches)
		for (unsigned q = 0; q < port_count; q++) {
			QueueCounters &c = queues[s->index][q];
			c.ok = net.read64(*s, PKTSTATS_SWITCH_FRAMES_STORED_0 + 8 * q, c.stored) &&
			       net.read64(*s, PKTSTATS_SWITCH_FRAMES_REMOVED_0 + 8 * q, c.removed) &&
			       net.read64(*s, PKTSTATS_SWITCH_FRAMES_DROPPED_0 + 8 * q, c.dropped) &&
			       net.read64(*s, PKTSTATS_SWITCH_PEAK_OCCUPANCY_0 + 8 * q, c.peak);
		}

	printf("pktstats-sim: %s\n", end_reason);
	if (!network) {
		SwitchSimulation &s = *net.switches[0];
		printf("simulated %s = %" PRIu64 " clocks (traffic from clock %" PRIu64 "), wall %.3f s, "
		       "%.0f clocks/s\n",
		       format_ns(run_cycles[0]).c_str(), run_cycles[0], s.traffic_start_cycle, wall_seconds,
		       wall_seconds > 0 ? run_cycles[0] / wall_seconds : 0.0);
		if (s.skipped_clocks)
			printf("idle clocks skipped: %" PRIu64 " in %" PRIu64 " steps%s\n", s.skipped_clocks, s.skips,
			       options.idle_skip == Options::IdleSkipMode::check ? " (each checked against clocking them)" : "");
		print_switch_summary(options, s, endings[0], net.complete, end_cycles[0], counters[0],
				     queues[0].data());
	} else {
		printf("network: %zu switches, %zu cable%s, simulated %s of true time = %" PRIu64
		       " clocks in all (traffic from %s), wall %.3f s, %.0f clocks/s\n",
		       net.switches.size(), options.cables.size(), options.cables.size() == 1 ? "" : "s",
		       format_ps(run_true_ps).c_str(),
		       all_cycles, format_ps(net.traffic_start_ps).c_str(), wall_seconds,
		       wall_seconds > 0 ? all_cycles / wall_seconds : 0.0);
		if (threads > 1)
			printf("threads: %u, in windows of %s of true time\n", threads,
			       format_ps(net.lookahead_ps()).c_str());
		if (net.wire_truth)
			printf("wire truth: %" PRIu64 " lines in %s\n", wire_truth_lines,
			       options.wire_truth_path.c_str());
		for (auto &s : net.switches) {
			unsigned k = s->index;
			printf("\nswitch %u: clock offset %" PRIu64 " ns, %s ppm%s%s\n", k,
			       s->switch_options.offset_ns, format_ppm(s->switch_options.ppb).c_str(),
			       s->server || !s->switch_options.socket_path.empty() ? ", socket " : "",
			       s->switch_options.socket_path.c_str());
			printf("simulated %s = %" PRIu64 " clocks (traffic from clock %" PRIu64 "), wall %.3f s, "
			       "%.0f clocks/s\n",
			       format_ps(s->time_ps(run_cycles[k])).c_str(), run_cycles[k], s->traffic_start_cycle,
			       wall_seconds, wall_seconds > 0 ? run_cycles[k] / wall_seconds : 0.0);
			if (s->skipped_clocks)
				printf("idle clocks skipped: %" PRIu64 " in %" PRIu64 " steps%s\n", s->skipped_clocks,
				       s->skips, options.idle_skip == Options::IdleSkipMode::check
				       ? " (each checked against clocking them)" : "");
			print_switch_summary(options, *s, endings[k], net.complete, end_cycles[k], counters[k],
					     queues[k].data());
		}
	}
	fflush(stdout);
	for (auto &s : net.switches)
		s->dut.final();
	return status;
}

} // namespace

int main(int argc, char **argv)
{
	Options options;
	try {
		options = parse_command_line(argc, argv);
	} catch (const UsageError &e) {
		fprintf(stderr, "%s: %s\n", program, e.what());
		fprintf(stderr, "Try '%s --help'.\n", program);
		return 2;
	}
	try {
		return run(options);
	} catch (const UsageError &e) {
		fprintf(stderr, "%s: %s\n", program, e.what());
		return 2;
	} catch (const std::exception &e) {
		fprintf(stderr, "%s: %s\n", program, e.what());
		return 1;
	}
}
