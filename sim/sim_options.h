// SPDX-License-Identifier: BSD-3-Clause
//
// Options: pktstats-sim's command line (docs/simulator.md, pktstats-sim --help), parsed and
// checked before anything is built: the ports of each switch, the switches' sockets, truth
// files and oscillators, the cables between them, the register writes, and how the run goes.
// Every mistake is a UsageError that names the argument at fault (exit status 2), so a bad
// command line never starts a run. Also the few facts of the simulated switch that the whole
// simulator shares (its ports, its clock period).

#ifndef PKTSTATS_SIM_SIM_OPTIONS_H
#define PKTSTATS_SIM_SIM_OPTIONS_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "link_timing.h"
#include "pcap_frame_source.h"
#include "traffic_generator.h"

namespace pktstats_sim {

constexpr unsigned port_count = 8;
constexpr unsigned mac_port_count = 4; // 0..3 Ethernet, 4..7 CPU
constexpr uint64_t clock_period_ps = 8000;
constexpr unsigned maximum_switches = 16;

// The program's name, at the start of its messages.
extern const char *program;

struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

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

// The options of argv. Throws UsageError for a bad command line; --help and --version (which
// prints `version`, the simulator's version and commit) print and exit 0.
Options parse_command_line(int argc, char **argv, const char *version);

// Port p of switch k as the messages and the summary name it: "k.p".
std::string port_label(unsigned switch_index, unsigned port);

} // namespace pktstats_sim

#endif
