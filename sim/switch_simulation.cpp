// SPDX-License-Identifier: BSD-3-Clause
//
// SwitchSimulation: one simulated switch; see switch_simulation.h.

#include "switch_simulation.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "Vpktstats_core___024root.h"
#include "link_timing.h"
#include "model_state.h"
#include "pcap_frame_source.h"
#include "traffic_generator.h"

namespace pktstats_sim {

namespace {

constexpr unsigned reset_cycles = 8;

// Bits lsb + width - 1 : lsb of a Verilated wide signal (width <= 64)
uint64_t wide_bits(const uint32_t *words, unsigned lsb, unsigned width)
{
	unsigned __int128 value = 0;
	unsigned first = lsb / 32, last = (lsb + width - 1) / 32;
	for (unsigned k = first; k <= last; k++)
		value |= (unsigned __int128)words[k] << (32 * (k - first));
	value >>= lsb % 32;
	return (uint64_t)value & (width == 64 ? ~0ull : (1ull << width) - 1);
}

void set_wide_bits(uint32_t *words, unsigned lsb, unsigned width, uint64_t value)
{
	unsigned first = lsb / 32, last = (lsb + width - 1) / 32;
	unsigned __int128 mask = ((unsigned __int128)(width == 64 ? ~0ull : (1ull << width) - 1)) << (lsb % 32);
	unsigned __int128 bits = (unsigned __int128)value << (lsb % 32);
	for (unsigned k = first; k <= last; k++) {
		uint32_t m = (uint32_t)(mask >> (32 * (k - first)));
		words[k] = (words[k] & ~m) | ((uint32_t)(bits >> (32 * (k - first))) & m);
	}
}

} // namespace

WireStamp PortWireObserver::frame_on_wire(WireDirection direction, uint64_t first_bit_ps,
					  const std::vector<uint8_t> &bytes)
{
	return owner->record_wire(port, direction, first_bit_ps, bytes);
}

SwitchSimulation::~SwitchSimulation()
{
#if VM_TRACE
	if (trace)
		trace->close();
#endif
}

void SwitchSimulation::setup(WireTruthFile *wire_truth_file)
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
	if (!switch_options.truth_path.empty())
		truth = std::make_unique<OccupancyTruthFile>(switch_options.truth_path);
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

void SwitchSimulation::attach_cable(unsigned p, CableWire *in, CableWire *out)
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

void SwitchSimulation::eval_and_dump()
{
	dut.eval();
#if VM_TRACE
	if (trace)
		trace->dump(trace_time_ps);
#endif
}

void SwitchSimulation::reset()
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

void SwitchSimulation::start_traffic(uint64_t start_ns)
{
	traffic_started = true;
	traffic_start_cycle = cycle;
	for (unsigned p = 0; p < port_count; p++)
		if (sources[p]) {
			sources[p]->set_offset_ns(start_ns);
			macs[p]->set_frame_source(sources[p].get());
		}
}

uint32_t SwitchSimulation::occupancy(unsigned q) const
{
	const auto &bus_value = dut.rootp->pktstats_core__DOT__queue_occupancy;
	unsigned lsb = 20 * q;
	uint64_t low = bus_value[lsb / 32] | (uint64_t)bus_value[lsb / 32 + 1] << 32;
	return (uint32_t)(low >> (lsb % 32)) & 0xfffff;
}

WireStamp SwitchSimulation::record_wire(unsigned port, WireDirection direction, uint64_t ps,
					 const std::vector<uint8_t> &bytes)
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

void SwitchSimulation::sample_transmit_stamps(unsigned p)
{
	HardwareStamps &h = transmit_stamps[p];
	h.tx = wide_bits(&dut.m_axis_tx_timestamp[0], 62 * p, 62);
	h.rx = wide_bits(&dut.m_axis_rx_timestamp[0], 62 * p, 62);
	h.rx_valid = (dut.m_axis_rx_timestamp_valid >> p) & 1;
	h.residence = (int32_t)(uint32_t)wide_bits(&dut.m_axis_residence_time[0], 32 * p, 32);
}

void SwitchSimulation::record_sojourn(uint8_t out_fire, const AxiStreamWord *out_words)
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

bool SwitchSimulation::step()
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
			if (truth)
				truth->record(cycle, q, value);
		}
	}
	cycle++;
	bool active = valid || dut.m_axis_tvalid || occupied;
	quiet_clocks = active || bus.in_flight() || !idle.quiescent() ? 0 : quiet_clocks + 1;
	return active;
}

void SwitchSimulation::run_until_fs(uint64_t end_fs)
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

uint64_t SwitchSimulation::first_cycle_at_or_after(uint64_t ps) const
{
	if (!timebase)
		return (ps + clock_period_ps - 1) / clock_period_ps;
	uint64_t c = timebase->cycle_at_ps(ps);
	return timebase->edge_ps(c) >= ps ? c : c + 1;
}

bool SwitchSimulation::quiescent() const
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

uint64_t SwitchSimulation::next_event_cycle() const
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

void SwitchSimulation::skip_to(uint64_t until)
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

void SwitchSimulation::poll_server()
{
	if (!server)
		return;
	if (timebase)
		server->set_simulation_time(cycle, time_ps(cycle));
	else
		server->set_simulation_cycle(cycle);
	server->poll_once(0);
}

bool SwitchSimulation::all_drained()
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
bool SwitchSimulation::close_outputs(std::vector<MacCounters> &counters)
{
	bool ok = true;
	record_truth = false;
	for (auto &mac : macs) {
		counters.push_back(mac->counters());
		mac->set_frame_source(nullptr);
		mac->set_frame_sink(nullptr);
		mac->set_receive_sink(nullptr);
		mac->set_wire_observer(nullptr);
	}
	wire_truth = nullptr;
	for (auto &sink : sinks) {
		try {
			sink->close();
		} catch (const std::exception &e) {
			fprintf(stderr, "%s: %s\n", program, e.what());
			ok = false;
		}
	}
	if (truth) {
		if (!truth->close(program))
			ok = false;
		truth_lines = truth->lines();
		truth.reset();
	}
	if (sojourn) {
		if (!sojourn->close(program))
			ok = false;
		sojourn_lines = sojourn->lines();
		sojourn.reset();
	}
	return ok;
}

} // namespace pktstats_sim
