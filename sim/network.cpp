// SPDX-License-Identifier: BSD-3-Clause
//
// Network: the switches, their cables and the clock loop of a run; see network.h.

#include "network.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

extern "C" {
#include "pktstats/regs.h"
}

namespace pktstats_sim {

volatile sig_atomic_t stop_signal = 0;
volatile sig_atomic_t signal_count = 0;

namespace {

uint64_t nanoseconds_of(const TimeOfDay &t) { return t.seconds * 1000000000u + t.nanoseconds; }

} // namespace

void Network::setup()
{
	if (!options.wire_truth_path.empty())
		wire_truth = std::make_unique<WireTruthFile>(options.wire_truth_path);
	for (unsigned k = 0; k < options.switch_count; k++) {
		switches.push_back(std::make_unique<SwitchSimulation>(options, k));
		switches.back()->setup(wire_truth.get());
	}
	for (const CableOptions &cable : options.cables) {
		const CableEnd &a = cable.ends[0], &b = cable.ends[1];
		cable_wires.push_back(std::make_unique<CableWire>(cable.delay_ps, "cable from " +
								  port_label(a.switch_index, a.port)));
		CableWire *a_to_b = cable_wires.back().get();
		cable_wires.push_back(std::make_unique<CableWire>(cable.delay_ps, "cable from " +
								  port_label(b.switch_index, b.port)));
		CableWire *b_to_a = cable_wires.back().get();
		switches[a.switch_index]->attach_cable(a.port, b_to_a, a_to_b);
		switches[b.switch_index]->attach_cable(b.port, a_to_b, b_to_a);
	}
	for (auto &s : switches)
		next_edge_fs.push_back(s->timebase ? s->timebase->edge_fs(0) : 0);
}

bool Network::skip_idle(uint64_t limit_ps)
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
			note_next_edge(*s);
			skipped = true;
		}
	}
	return skipped;
}

bool Network::access(SwitchSimulation &s, bool is_write, uint32_t address, uint32_t value_in,
		     uint32_t &value_out)
{
	for (;;) {
		int status = is_write ? s.bus.write(address, value_in) : s.bus.read(address, &value_out);
		if (status != register_status::pending)
			return status == register_status::ok;
		step_once();
	}
}

bool Network::read64(SwitchSimulation &s, uint32_t address, uint64_t &value)
{
	uint32_t low = 0, high = 0;
	if (!access(s, false, address, 0, low) || !access(s, false, address + 4, 0, high))
		return false;
	value = (uint64_t)high << 32 | low;
	return true;
}

void Network::write(SwitchSimulation &s, uint32_t address, uint32_t value)
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

void Network::run_clocks(SwitchSimulation &s, uint64_t clocks)
{
	uint64_t until = s.cycle + clocks;
	while (s.cycle < until)
		step_once();
}

// Sets switch s's time-of-day clock through its registers, as software would, so that
// after its clock edge k it reads offset + 8 ns × k: its offset plus the true time of that
// edge × (1 + ppm·10^-6) (ClockTimebase). The set lands in a clock the bus decides; the
// simulator reads where it landed from the clock's outputs and corrects it with a step,
// which adds the same amount whenever it lands, then checks the result.
void Network::set_time_of_day(SwitchSimulation &s)
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

void Network::reset()
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

uint64_t Network::lookahead_ps() const
{
	uint64_t lookahead = 1000000000;
	for (const CableOptions &cable : options.cables)
		lookahead = std::min(lookahead, cable.delay_ps);
	return lookahead;
}

void Network::run_on_threads(unsigned threads, uint64_t limit_ps)
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
		note_next_edge(*s);
	if (failure)
		std::rethrow_exception(failure);
}

void Network::start_traffic()
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

bool Network::all_drained()
{
	for (auto &s : switches)
		if (!s->all_drained())
			return false;
	return true;
}

bool Network::run_until_quiet(uint64_t limit_ps)
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

std::vector<Network::Ending> Network::end_run()
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

} // namespace pktstats_sim
