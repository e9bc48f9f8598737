// SPDX-License-Identifier: BSD-3-Clause
//
// pktstats-sim: the simulated pktstats switch (rtl/core/pktstats_core.v, Verilated) with MAC
// models on its ports, traffic from pcap files or generators, frames out to pcap files, register
// access on a Unix socket, the true queue occupancy to a CSV, and a summary at the end.
// Usage: docs/simulator.md, or pktstats-sim --help.

#include <getopt.h>
#include <signal.h>

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vpktstats_core.h"
#include "Vpktstats_core___024root.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

#include "axil_master_backend.h"
#include "link_timing.h"
#include "mac_model.h"
#include "pcap_frame_sink.h"
#include "pcap_frame_source.h"
#include "register_server.h"
#include "tap_port.h"
#include "traffic_generator.h"

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
};

struct Options {
	PortOptions ports[port_count];
	uint64_t cpu_rate = 8 * LinkTiming::gigabit;
	bool have_duration = false;
	uint64_t duration_cycles = 0;
	std::string socket_path;
	bool wait = false;
	std::string truth_path;
	std::string trace_path;
	uint64_t seed = 1;
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
		"  --cpu-rate BPS       rate of the CPU ports in bit/s (default 8e9)\n"
		"  --duration TIME      simulated time to run (from `start` with --wait): 10ms, 2s,\n"
		"                       500us, 800ns, 125000cycles;\n"
		"                       default: until every input is exhausted and everything drained\n"
		"  --socket PATH        serve register access on a Unix socket (docs/simulator-protocol.md)\n"
		"  --wait               with --socket: start the traffic when a client sends `start`\n"
		"  --truth FILE         CSV of the true queue occupancy: cycle,queue,occupancy per change\n"
		"  --trace FILE.fst     FST waveform (build/bin/pktstats-sim-trace only: make sim-trace)\n"
		"  --seed S             default seed of the generators (default 1)\n"
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

void parse_port(const std::string &argument, Options &options)
{
	auto fail = [&](const std::string &why) {
		throw UsageError("--port '" + argument + "': " + why);
	};
	size_t colon = argument.find(':');
	uint64_t port;
	if (colon == std::string::npos)
		fail("expected N:in=FILE, N:gen=RATE, N:out=FILE, N:rx=FILE or N:tap=IFACE");
	if (!parse_unsigned(argument.substr(0, colon), port) || port >= port_count)
		fail("port '" + argument.substr(0, colon) + "' is not a port number 0..7");
	PortOptions &p = options.ports[port];
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

Options parse_command_line(int argc, char **argv)
{
	enum { o_port = 256, o_cpu_rate, o_duration, o_socket, o_wait, o_truth, o_trace, o_seed, o_help,
	       o_version };
	static const struct option long_options[] = {
		{"port", required_argument, nullptr, o_port},
		{"cpu-rate", required_argument, nullptr, o_cpu_rate},
		{"duration", required_argument, nullptr, o_duration},
		{"socket", required_argument, nullptr, o_socket},
		{"wait", no_argument, nullptr, o_wait},
		{"truth", required_argument, nullptr, o_truth},
		{"trace", required_argument, nullptr, o_trace},
		{"seed", required_argument, nullptr, o_seed},
		{"help", no_argument, nullptr, o_help},
		{"version", no_argument, nullptr, o_version},
		{nullptr, 0, nullptr, 0},
	};
	Options options;
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
			options.socket_path = value;
			break;
		case o_wait:
			options.wait = true;
			break;
		case o_truth:
			options.truth_path = value;
			break;
		case o_trace:
			options.trace_path = value;
			break;
		case o_seed:
			if (!parse_unsigned(value, options.seed))
				throw UsageError("--seed '" + value + "' is not a number");
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
	if (options.wait && options.socket_path.empty())
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
// The simulation

struct Simulation {
	const Options &options;
	VerilatedContext context;
	Vpktstats_core dut{&context};
	AxilMasterBackend bus{dut};
	std::vector<std::unique_ptr<MacModel>> macs;
	std::vector<std::unique_ptr<DelayedSource>> sources;
	std::vector<std::unique_ptr<PcapFrameSink>> sinks;
	std::shared_ptr<TapDevice> taps[port_count];
	TapFrameSource *tap_sources[port_count] = {};
	std::vector<std::unique_ptr<TapFrameSink>> tap_sinks;
	std::unique_ptr<RegisterServer> server;
	FILE *truth = nullptr;
	uint64_t truth_lines = 0;
	uint32_t occupancy_now[port_count] = {};
	uint32_t peak_occupancy[port_count] = {};
	bool record_truth = true;
	uint64_t cycle = 0; // clocks since the end of reset
	bool traffic_started = false;
	uint64_t traffic_start_cycle = 0;
#if VM_TRACE
	std::unique_ptr<VerilatedFstC> trace;
#endif
	uint64_t trace_time_ps = 0;

	explicit Simulation(const Options &o) : options(o) {}

	~Simulation()
	{
		if (truth)
			fclose(truth);
#if VM_TRACE
		if (trace)
			trace->close();
#endif
	}

	void setup()
	{
		for (unsigned p = 0; p < port_count; p++) {
			MacModelConfig config;
			config.name = (p < mac_port_count ? "mac" : "cpu") + std::to_string(p);
			config.link = p < mac_port_count ? LinkTiming::ethernet()
							 : LinkTiming::cpu_port(options.cpu_rate);
			config.clock_period_ps = clock_period_ps;
			macs.push_back(std::make_unique<MacModel>(config));
			const PortOptions &po = options.ports[p];
			std::unique_ptr<FrameSource> source;
			if (!po.tap_name.empty()) {
				auto device = std::make_shared<TapDevice>(po.tap_name);
				size_t largest = p < mac_port_count ? 1514 : TrafficGenerator::largest_frame_bytes;
				auto tap_source = std::make_unique<TapFrameSource>(device, &cycle, clock_period_ps,
										 largest);
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
				g.seed = po.have_seed ? po.seed : options.seed * 1000003 + p;
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
					throw UsageError("--port " + std::to_string(p) + ":gen: frame size " +
							 std::to_string(largest) + " is above 1514, the largest "
							 "Ethernet frame of a MAC port");
				g.mean_on_ns = po.on_ns;
				g.mean_off_ns = po.off_ns;
				g.frame_limit = po.count;
				try {
					source = std::make_unique<TrafficGenerator>(g);
				} catch (const std::invalid_argument &e) {
					throw UsageError("--port " + std::to_string(p) + ":gen: " + e.what());
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
				if (path == &po.output_path)
					macs[p]->set_frame_sink(sink.get());
				else
					macs[p]->set_receive_sink(sink.get());
				sinks.push_back(std::move(sink));
			}
		}
		if (!options.truth_path.empty()) {
			truth = fopen(options.truth_path.c_str(), "w");
			if (!truth)
				throw std::runtime_error(options.truth_path + ": " + strerror(errno));
			setvbuf(truth, nullptr, _IOFBF, 1 << 20);
			fprintf(truth, "cycle,queue,occupancy\n");
		}
		if (!options.trace_path.empty()) {
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
		if (!options.socket_path.empty()) {
			RegisterServerConfig config;
			config.socket_path = options.socket_path;
			config.clock_period_ps = clock_period_ps;
			server = std::make_unique<RegisterServer>(config, bus);
		}
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

	void start_traffic()
	{
		traffic_started = true;
		traffic_start_cycle = cycle;
		for (unsigned p = 0; p < port_count; p++)
			if (sources[p]) {
				sources[p]->set_offset_ns(cycle * clock_period_ps / 1000);
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

	// One clock. Returns true when anything moved on a stream port.
	bool step()
	{
		AxiStreamWord offered[port_count];
		uint8_t valid = 0, last = 0, ready = 0;
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
			}
			if (macs[p]->transmit_ready(cycle))
				ready |= (uint8_t)(1u << p);
		}
		dut.s_axis_tvalid = valid;
		dut.s_axis_tlast = last;
		dut.s_axis_tkeep = keep;
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
				}
		bus.sample();

		dut.clk = 1;
		eval_and_dump();
		trace_time_ps += clock_period_ps / 2;

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
		return valid || dut.m_axis_tvalid || occupied;
	}

	void poll_server()
	{
		if (!server)
			return;
		server->set_simulation_cycle(cycle);
		server->poll_once(0);
	}

	// A blocking register access for the summary (the server is gone by then).
	bool access(bool is_write, uint32_t address, uint32_t value_in, uint32_t &value_out)
	{
		for (;;) {
			int status = is_write ? bus.write(address, value_in) : bus.read(address, &value_out);
			if (status != register_status::pending)
				return status == register_status::ok;
			step();
		}
	}
	bool read64(uint32_t address, uint64_t &value)
	{
		uint32_t low = 0, high = 0;
		if (!access(false, address, 0, low) || !access(false, address + 4, 0, high))
			return false;
		value = (uint64_t)high << 32 | low;
		return true;
	}

	bool all_drained()
	{
		for (unsigned p = 0; p < port_count; p++) {
			if (sources[p] && !macs[p]->receive_exhausted())
				return false;
			if (!macs[p]->transmit_idle(cycle))
				return false;
		}
		return true;
	}

	// Steps until the inputs are exhausted and nothing has moved for `quiet_cycles_to_stop`
	// clocks: no word offered or sent, every queue empty, every wire free. False when
	// `limit` clocks pass first or a second signal stops the run.
	bool run_until_quiet(uint64_t limit)
	{
		uint64_t quiet = 0, until = cycle + limit;
		while (quiet < quiet_cycles_to_stop) {
			if (cycle >= until || signal_count > 1)
				return false;
			bool active = step();
			quiet = active || !all_drained() ? 0 : quiet + 1;
		}
		return true;
	}

	// The end of a run, whatever ended it: the inputs stop, the switch drains (the
	// departures of the frames still queued are events too), the capture's open stat packet
	// is flushed and every stat packet leaves on its wire. Only then do the outputs close,
	// so the stat packets hold every event the switch made. The register server is closed
	// first: from here on the simulator alone uses the register bus.
	struct Ending {
		uint64_t inputs_end = 0, drained = 0, flush = 0, quiet = 0;
		bool capture_on = false, complete = false;
		uint64_t events_sent = 0, packets_sent = 0, events_missed = 0;
	};
	Ending end_run()
	{
		Ending e;
		server.reset();
		while (bus.in_flight())
			step();
		bus.discard_result();
		e.inputs_end = cycle;
		for (unsigned p = 0; p < port_count; p++)
			macs[p]->end_input(cycle);
		// Draining a full queue takes 32 KiB / 1 Gb/s = 262 us; 1 s covers the slowest CPU port.
		const uint64_t limit = 125000000;
		bool drained = run_until_quiet(limit);
		e.drained = cycle;
		uint32_t control = 0;
		e.capture_on = access(false, PKTSTATS_EVCAP_CONTROL, 0, control) &&
			       (control & PKTSTATS_EVCAP_CONTROL_ENABLE_MASK);
		uint32_t ignored;
		if (e.capture_on)
			access(true, PKTSTATS_EVCAP_COMMAND, PKTSTATS_EVCAP_COMMAND_FLUSH_MASK, ignored);
		e.flush = cycle;
		e.complete = drained && run_until_quiet(limit);
		e.quiet = cycle;
		read64(PKTSTATS_EVCAP_EVENTS_SENT, e.events_sent);
		read64(PKTSTATS_EVCAP_PACKETS_SENT, e.packets_sent);
		read64(PKTSTATS_EVCAP_EVENTS_MISSED, e.events_missed);
		return e;
	}
};

std::string format_ns(uint64_t cycles)
{
	char text[64];
	double ns = (double)cycles * clock_period_ps / 1000.0;
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

int run(const Options &options)
{
	auto simulation = std::make_unique<Simulation>(options);
	Simulation &s = *simulation;
	s.setup();

	struct sigaction action;
	memset(&action, 0, sizeof action);
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, nullptr);
	sigaction(SIGTERM, &action, nullptr);
	signal(SIGPIPE, SIG_IGN);

	bool have_inputs = false;
	for (unsigned p = 0; p < port_count; p++)
		have_inputs |= s.sources[p] != nullptr;
	bool unbounded = false;
	for (unsigned p = 0; p < port_count; p++)
		unbounded |= options.ports[p].input == PortOptions::Input::generator && options.ports[p].count == 0;
	if (!options.have_duration && unbounded)
		fprintf(stderr, "%s: a generator without count= and no --duration: running until "
				"interrupted\n", program);
	if (!options.have_duration && !have_inputs && options.socket_path.empty())
		fprintf(stderr, "%s: no inputs, no --duration: nothing to do\n", program);
	bool serve_forever = !options.have_duration && !have_inputs && !options.socket_path.empty();

	s.reset();
	if (!options.wait)
		s.start_traffic();
	else
		fprintf(stderr, "%s: waiting for `start` on %s\n", program, options.socket_path.c_str());

	auto wall_start = std::chrono::steady_clock::now();
	uint64_t quiet = 0;
	const char *end_reason = "inputs exhausted, queues drained";
	for (;;) {
		if (stop_signal) {
			end_reason = stop_signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)";
			break;
		}
		// With --wait the duration counts from `start`: the idle clocks before it are set-up
		if (options.have_duration && s.traffic_started &&
		    s.cycle - s.traffic_start_cycle >= options.duration_cycles) {
			end_reason = "duration reached";
			break;
		}
		bool active = s.step();
		if (s.server && ((s.cycle & (server_poll_interval - 1)) == 0 || s.bus.in_flight() || s.server->backend_operation_in_flight())) {
			s.poll_server();
			if (!s.traffic_started && s.server->start_requested())
				s.start_traffic();
		}
		if (!options.have_duration && !serve_forever && s.traffic_started) {
			if (active || !s.all_drained())
				quiet = 0;
			else if (++quiet >= quiet_cycles_to_stop)
				break;
		}
	}
	// The speed is that of the run proper: the end's drain is lighter work.
	double wall_seconds =
		std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
	uint64_t run_cycles = s.cycle;
	Simulation::Ending ending = s.end_run();
	uint64_t end_cycle = s.cycle;

	// Close the outputs: the run is over. Counters as they were at the end.
	s.record_truth = false;
	std::vector<MacCounters> counters;
	for (auto &mac : s.macs) {
		counters.push_back(mac->counters());
		mac->set_frame_source(nullptr);
		mac->set_frame_sink(nullptr);
		mac->set_receive_sink(nullptr);
	}
	int status = !ending.complete && signal_count <= 1 ? 1 : 0;
	for (auto &sink : s.sinks) {
		try {
			sink->close();
		} catch (const std::exception &e) {
			fprintf(stderr, "%s: %s\n", program, e.what());
			status = 1;
		}
	}
	if (s.truth) {
		if (fclose(s.truth) != 0) {
			fprintf(stderr, "%s: %s: %s\n", program, options.truth_path.c_str(), strerror(errno));
			status = 1;
		}
		s.truth = nullptr;
	}

	// The queue counters, read through the register bus as a driver would.
	struct QueueCounters {
		uint64_t stored = 0, removed = 0, dropped = 0, peak = 0;
		bool ok = false;
	} queues[port_count];
	for (unsigned q = 0; q < port_count; q++) {
		QueueCounters &c = queues[q];
		c.ok = s.read64(PKTSTATS_SWITCH_FRAMES_STORED_0 + 8 * q, c.stored) &&
		       s.read64(PKTSTATS_SWITCH_FRAMES_REMOVED_0 + 8 * q, c.removed) &&
		       s.read64(PKTSTATS_SWITCH_FRAMES_DROPPED_0 + 8 * q, c.dropped) &&
		       s.read64(PKTSTATS_SWITCH_PEAK_OCCUPANCY_0 + 8 * q, c.peak);
	}

	printf("pktstats-sim: %s\n", end_reason);
	printf("simulated %s = %" PRIu64 " clocks (traffic from clock %" PRIu64 "), wall %.3f s, "
	       "%.0f clocks/s\n",
	       format_ns(run_cycles).c_str(), run_cycles, s.traffic_start_cycle, wall_seconds,
	       wall_seconds > 0 ? run_cycles / wall_seconds : 0.0);
	if (ending.complete)
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
		std::string io = s.sources[p] ? s.sources[p]->description() : "-";
		io += " / ";
		io += !options.ports[p].tap_name.empty() ? "TAP " + options.ports[p].tap_name
		      : options.ports[p].output_path.empty() ? "-" : options.ports[p].output_path;
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
	if (!options.truth_path.empty())
		printf("; %" PRIu64 " truth lines in %s", s.truth_lines, options.truth_path.c_str());
	printf("\n");
	if (s.bus.timeouts())
		printf("register bus: %" PRIu64 " timeouts\n", s.bus.timeouts());
	fflush(stdout);
	s.dut.final();
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
