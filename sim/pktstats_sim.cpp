// SPDX-License-Identifier: BSD-3-Clause
//
// pktstats-sim: the simulated pktstats switch (rtl/core/pktstats_core.v, Verilated) with MAC
// models on its ports, traffic from pcap files or generators, frames out to pcap files, register
// access on a Unix socket, the true queue occupancy to a CSV, and a summary at the end; or a
// network of such switches, each on its own oscillator, joined by cables, with the true time of
// every frame on every wire.
// Usage: docs/simulator.md, or pktstats-sim --help.
//
// This file is main and the run loop: when the traffic starts, when the run ends (duration,
// inputs drained, signal), idle clocks skipped, register sockets polled, then the end of the run
// and its summary. The parts it drives each have their own file: the command line
// (sim_options.h), one switch's simulation (switch_simulation.h), the network of switches and
// cables (network.h), the truth files (truth_files.h) and the summary (run_summary.h).

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "network.h"
#include "run_summary.h"
#include "sim_options.h"
#include "switch_simulation.h"

// The Makefile passes the commit (the identity block's git_hash); a build without it says 0.
// It is read here, with main: this file includes the Verilated model's headers, which every
// Verilator run writes again, so it is compiled again whenever the commit changes (a file that
// includes none of them keeps the commit of its first build).
#ifndef PKTSTATS_SIM_GIT_HASH
#define PKTSTATS_SIM_GIT_HASH 0
#endif
#define PKTSTATS_SIM_VERSION "1.0"

using namespace pktstats_sim;

namespace {

// The first SIGINT/SIGTERM ends the run the clean way (drained and flushed, like every end); a
// second one stops the drain at once.
extern "C" void on_signal(int signal_number)
{
	stop_signal = signal_number;
	signal_count = signal_count + 1;
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
	RunSummary summary;
	summary.end_reason = end_reason;
	summary.threads = threads;
	summary.wall_seconds =
		std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
	for (auto &s : net.switches)
		summary.run_cycles.push_back(s->cycle);
	summary.endings = net.end_run();

	// Close the outputs: the run is over. Counters as they were at the end.
	int status = !net.complete && signal_count <= 1 ? 1 : 0;
	summary.counters.resize(net.switches.size());
	for (auto &s : net.switches) {
		summary.end_cycles.push_back(s->cycle);
		if (!s->close_outputs(summary.counters[s->index]))
			status = 1;
	}
	summary.wire_truth_lines = net.wire_truth ? net.wire_truth->lines() : 0;
	if (net.wire_truth && !net.wire_truth->close(program))
		status = 1;

	summary.queues = read_queue_counters(net);
	print_run_summary(options, net, summary);
	fflush(stdout);
	for (auto &s : net.switches)
		s->dut.final();
	return status;
}

} // namespace

int main(int argc, char **argv)
{
	char version[64];
	snprintf(version, sizeof version, "%s %s (commit %08x%s)", program, PKTSTATS_SIM_VERSION,
		 (unsigned)PKTSTATS_SIM_GIT_HASH, VM_TRACE ? ", with --trace" : "");
	Options options;
	try {
		options = parse_command_line(argc, argv, version);
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
