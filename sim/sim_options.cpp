// SPDX-License-Identifier: BSD-3-Clause
//
// Options: pktstats-sim's command line; see sim_options.h. Each option's text is checked here,
// once, whole: the run that follows trusts what it is given.

#include "sim_options.h"

#include <getopt.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "pktstats/regs.h"
}

namespace pktstats_sim {

const char *program = "pktstats-sim";

std::string port_label(unsigned switch_index, unsigned port)
{
	return std::to_string(switch_index) + "." + std::to_string(port);
}

namespace {

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
			std::string name = "port " + port_label(end.switch_index, end.port);
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

// The value of a PATH option: refused when empty.
const std::string &path_value(const std::string &value, const char *option)
{
	if (value.empty())
		throw UsageError(std::string(option) + ": empty path");
	return value;
}

// --switches N, --threads N: N is 1..maximum_switches, `what` names it in the message.
unsigned parse_up_to_maximum_switches(const std::string &value, const char *option, const char *what)
{
	uint64_t n;
	if (!parse_unsigned(value, n) || n < 1 || n > maximum_switches)
		throw UsageError(std::string(option) + " '" + value + "' is not a number of " + what + " 1.." +
				 std::to_string(maximum_switches));
	return (unsigned)n;
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

} // namespace

Options parse_command_line(int argc, char **argv, const char *version)
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
			options.switches[0].socket_path = path_value(value, "--socket");
			break;
		case o_wait:
			options.wait = true;
			break;
		case o_truth:
			options.switches[0].truth_path = value;
			break;
		case o_sojourn_truth:
			options.switches[0].sojourn_truth_path = path_value(value, "--sojourn-truth");
			break;
		case o_trace:
			options.trace_path = value;
			break;
		case o_seed:
			if (!parse_unsigned(value, options.seed))
				throw UsageError("--seed '" + value + "' is not a number");
			break;
		case o_switches:
			options.switch_count = parse_up_to_maximum_switches(value, "--switches", "switches");
			break;
		case o_switch:
			parse_switch(value, options);
			break;
		case o_cable:
			parse_cable(value, options);
			break;
		case o_wire_truth:
			options.wire_truth_path = path_value(value, "--wire-truth");
			break;
		case o_write:
			parse_write(value, options);
			break;
		case o_threads:
			options.threads = parse_up_to_maximum_switches(value, "--threads", "threads");
			break;
		case o_idle_skip:
			options.idle_skip = parse_idle_skip(value, "--idle-skip");
			break;
		case o_help:
			usage(stdout);
			exit(0);
		case o_version:
			printf("%s\n", version);
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

} // namespace pktstats_sim
