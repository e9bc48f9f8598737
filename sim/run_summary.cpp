// SPDX-License-Identifier: BSD-3-Clause
//
// The end-of-run summary; see run_summary.h.

#include "run_summary.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>

extern "C" {
#include "pktstats/regs.h"
}

namespace pktstats_sim {

namespace {

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
// One switch's part of the summary: its simulated time, how its run ended, its ports and its
// queues.
void print_switch_summary(const Options &options, const Network &net, const SwitchSimulation &s,
			  const RunSummary &summary)
{
	const unsigned k = s.index;
	const uint64_t run_cycles = summary.run_cycles[k];
	const double wall_seconds = summary.wall_seconds;
	printf("simulated %s = %" PRIu64 " clocks (traffic from clock %" PRIu64 "), wall %.3f s, "
	       "%.0f clocks/s\n",
	       format_ps(s.time_ps(run_cycles)).c_str(), run_cycles, s.traffic_start_cycle, wall_seconds,
	       wall_seconds > 0 ? run_cycles / wall_seconds : 0.0);
	if (s.skipped_clocks)
		printf("idle clocks skipped: %" PRIu64 " in %" PRIu64 " steps%s\n", s.skipped_clocks, s.skips,
		       options.idle_skip == Options::IdleSkipMode::check ? " (each checked against clocking them)" : "");
	const Network::Ending &ending = summary.endings[k];
	const bool complete = net.complete;
	const uint64_t end_cycle = summary.end_cycles[k];
	const std::vector<MacCounters> &counters = summary.counters[k];
	const std::vector<QueueCounters> &queues = summary.queues[k];
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
			io = "cable to " + port_label(far.switch_index, far.port) + " (" +
			     format_ps(cable.delay_ps) + ")";
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

} // namespace

std::vector<std::vector<QueueCounters>> read_queue_counters(Network &net)
{
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
	return queues;
}

void print_run_summary(const Options &options, Network &net, const RunSummary &summary)
{
	printf("pktstats-sim: %s\n", summary.end_reason);
	if (!options.network()) {
		print_switch_summary(options, net, *net.switches[0], summary);
		return;
	}
	uint64_t all_cycles = 0, run_true_ps = 0;
	for (auto &s : net.switches) {
		all_cycles += summary.run_cycles[s->index];
		run_true_ps = std::max(run_true_ps, s->time_ps(summary.run_cycles[s->index]));
	}
	const double wall_seconds = summary.wall_seconds;
	printf("network: %zu switches, %zu cable%s, simulated %s of true time = %" PRIu64
	       " clocks in all (traffic from %s), wall %.3f s, %.0f clocks/s\n",
	       net.switches.size(), options.cables.size(), options.cables.size() == 1 ? "" : "s",
	       format_ps(run_true_ps).c_str(),
	       all_cycles, format_ps(net.traffic_start_ps).c_str(), wall_seconds,
	       wall_seconds > 0 ? all_cycles / wall_seconds : 0.0);
	if (summary.threads > 1)
		printf("threads: %u, in windows of %s of true time\n", summary.threads,
		       format_ps(net.lookahead_ps()).c_str());
	if (net.wire_truth)
		printf("wire truth: %" PRIu64 " lines in %s\n", summary.wire_truth_lines,
		       options.wire_truth_path.c_str());
	for (auto &s : net.switches) {
		printf("\nswitch %u: clock offset %" PRIu64 " ns, %s ppm%s%s\n", s->index,
		       s->switch_options.offset_ns, format_ppm(s->switch_options.ppb).c_str(),
		       s->server || !s->switch_options.socket_path.empty() ? ", socket " : "",
		       s->switch_options.socket_path.c_str());
		print_switch_summary(options, net, *s, summary);
	}
}

} // namespace pktstats_sim
