// SPDX-License-Identifier: BSD-3-Clause
//
// SwitchSimulation: one simulated switch, clock by clock: the Verilated pktstats_core, a MAC
// model on each of its 8 ports with the port's frame source (pcap file, generator, TAP
// interface) and sinks (pcap files, TAP interface), its register server, its oscillator against
// true time (network runs only), its truth files, and the idle skip that passes over clocks in
// which nothing is in flight (idle_skip.h).
//
// It knows nothing of the other switches: the network (network.h) joins their ports with
// cables, decides which switch clocks next, and drives the run; the switch only steps, skips,
// and says when it is quiescent or drained and when its next event comes.

#ifndef PKTSTATS_SIM_SWITCH_SIMULATION_H
#define PKTSTATS_SIM_SWITCH_SIMULATION_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Vpktstats_core.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

#include "axi_stream_word.h"
#include "axil_master_backend.h"
#include "cable_wire.h"
#include "clock_timebase.h"
#include "delayed_frame_source.h"
#include "idle_skip.h"
#include "mac_model.h"
#include "pcap_frame_sink.h"
#include "register_server.h"
#include "sim_options.h"
#include "sojourn_truth.h"
#include "tap_port.h"
#include "tee_frame_sink.h"
#include "truth_files.h"
#include "wire_observer.h"

namespace pktstats_sim {

constexpr uint64_t server_poll_interval = 256; // clocks between socket polls (power of 2)
constexpr uint64_t minimum_skip = 16; // idle clocks worth a skip (one costs about a clock)

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
	std::unique_ptr<OccupancyTruthFile> truth; // --truth; null: not asked for
	uint64_t truth_lines = 0;                  // its lines, once closed
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
	// Whether the last step moved a word (run_until_fs() skips only after one that did not).
	bool last_active = true;

	SwitchSimulation(const Options &o, unsigned k)
		: options(o), switch_options(o.switches[k]), index(k)
	{
	}
	~SwitchSimulation();

	// True time of clock `c`'s edge, in picoseconds.
	uint64_t time_ps(uint64_t c) const { return timebase ? timebase->edge_ps(c) : c * clock_period_ps; }

	std::string port_name(unsigned p) const
	{
		return options.network() ? port_label(index, p) : std::to_string(p);
	}

	// Builds the switch as its options say: oscillator, MAC models, sources and sinks of every
	// port, truth files, waveform, register server. Lines go to `wire_truth_file` (null: none).
	void setup(WireTruthFile *wire_truth_file);

	// A cable on MAC port p: frames out of it go into `out`, frames into it come from `in`.
	void attach_cable(unsigned p, CableWire *in, CableWire *out);

	void reset();

	// Traffic starts at true time `start_ns` (a clock edge of this switch, or the first after it).
	void start_traffic(uint64_t start_ns);

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
	WireStamp record_wire(unsigned port, WireDirection direction, uint64_t ps, const std::vector<uint8_t> &bytes);

	// One clock. Returns true when anything moved on a stream port.
	bool step();

	// Clocks up to (not including) the first edge at or after true time `end_fs`, skipping
	// idle ones (a network's switch on its own thread, Network::run_on_threads()).
	void run_until_fs(uint64_t end_fs);

	// The first clock whose edge is at or after true time `ps`.
	uint64_t first_cycle_at_or_after(uint64_t ps) const;

	// True when nothing is in flight in this switch or on its wires: no frame being received
	// or sent by a MAC model, none in the core, no register access. The MAC models' next
	// frames may be scheduled (next_event_cycle() stops before them).
	bool quiescent() const;

	// For a quiescent switch: the first clock from now that must be clocked, because something
	// happens in it or soon after (a frame's first bit on a receive wire, a counter of the
	// core reaching its event, a poll of the register socket or of a TAP interface).
	uint64_t next_event_cycle() const;

	// Skips clocks cycle .. until - 1 of a quiescent switch in one step (sim/idle_skip.h); with
	// --idle-skip=check, also clocks them and compares the model after both.
	void skip_to(uint64_t until);

	void poll_server();

	bool all_drained();

	// The end of the switch's run, once it has drained: the MAC models' counters as they are
	// now into `counters`, the ports detached from their sources and sinks, the output files
	// and truth files closed. False when one of them could not be written whole (the reason
	// on stderr).
	bool close_outputs(std::vector<MacCounters> &counters);

private:
	void eval_and_dump();
	uint32_t occupancy(unsigned q) const;
	// The core's stamps of MAC port p's output in this clock (its first word's handshake).
	void sample_transmit_stamps(unsigned p);
	// The sojourn truth of this clock, read before its edge: the queues' commits (arrival
	// strobes) and the words leaving on every output port, with the departure strobes that say
	// which frame ends were their queue's.
	void record_sojourn(uint8_t out_fire, const AxiStreamWord *out_words);
};

} // namespace pktstats_sim

#endif
