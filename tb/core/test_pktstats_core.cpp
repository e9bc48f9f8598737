// SPDX-License-Identifier: BSD-3-Clause
//
// test_pktstats_core: the whole design (switch + event capture + registers) in one Verilator
// model, operated only through its register bus and its ports. An incast: ports 0, 1, 2 and 4
// send frames to a station on port 3, whose output drains at 1 Gb/s (one word every 8 clocks)
// behind a small queue limit, so the queue fills and drops. Stat packets leave on port 7.
//
// Checks:
// - the station is learned: frames for it leave only port 3, in order, unchanged;
// - the stat packets decode without loss (consecutive sequence numbers, no M flag);
// - the occupancy rebuilt from the stat packets equals the switch's true occupancy (its queue
//   occupancy registers, read through tb/core/pktstats_core.vlt) after every clock with events;
// - conservation: frames sent to queue 3 = its arrival + drop events; departures = frames out
//   of port 3; the switch's counters agree.
// Prints TAP; `--seed N` replays.

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "Vpktstats_core.h"
#include "Vpktstats_core___024root.h"
#include "axil_master.h"
#include "core_streams.h"
#include "tap_runner.h"
#include "verilated.h"

extern "C" {
#include "pktstats/decode.h"
#include "pktstats/regs.h"
}

namespace {

using Frame = std::vector<uint8_t>;

const uint8_t STATION_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x33};

Frame make_frame(const uint8_t *destination, unsigned source_port, size_t length, uint32_t tag)
{
	Frame frame(length);
	memcpy(frame.data(), destination, 6);
	const uint8_t source[6] = {0x02, 0x00, 0x00, 0x00, 0x01, (uint8_t)source_port};
	memcpy(frame.data() + 6, source, 6);
	frame[12] = 0x88; // local experimental EtherType: never taken for a stat packet
	frame[13] = 0xb5;
	for (size_t i = 14; i < length; i++)
		frame[i] = (uint8_t)(i * 7 + tag);
	memcpy(frame.data() + 14, &tag, 4);
	return frame;
}

struct Harness {
	VerilatedContext context;
	Vpktstats_core dut{&context};
	axil::Master<Vpktstats_core> bus{dut, 0xffff};

	std::deque<Frame> input[8];
	size_t input_word[8] = {};
	Frame current_out[8];
	std::vector<Frame> output[8];
	uint8_t ready_pattern[8];
	uint64_t cycle = 0;
	// True occupancy of each queue after the clock whose timer value is the key
	std::map<uint64_t, std::vector<uint32_t>> truth_after;
	uint64_t previous_timer = 0;
	bool have_previous = false;

	Harness()
	{
		for (unsigned p = 0; p < 8; p++)
			ready_pattern[p] = 0xff;
		ready_pattern[3] = 0x01; // 1 Gb/s: one word in 8 clocks
		// The bus model owns the clock; after each rising edge we see the new cycle.
		bus.on_cycle = [this]() { after_edge(); };
		drive();
		bus.reset();
	}

	uint32_t occupancy(unsigned q)
	{
		const auto &bus_value = dut.rootp->pktstats_core__DOT__queue_occupancy;
		unsigned lsb = 20 * q;
		uint64_t low = bus_value[lsb / 32] | (uint64_t)bus_value[lsb / 32 + 1] << 32;
		return (uint32_t)(low >> (lsb % 32)) & 0xfffff;
	}

	// Inputs of the next cycle.
	void drive() { drive_core_streams(dut, input, input_word, ready_pattern, cycle); }

	// Called right after each rising edge: account for the handshakes of the cycle that just
	// ended, record the truth, and drive the next cycle.
	void after_edge()
	{
		// The handshakes were decided with the values driven before the edge; recompute them
		// from what we drove (inputs) and what the DUT showed (outputs) before the edge.
		for (unsigned p = 0; p < 8; p++) {
			if ((seen.in_handshake >> p) & 1) {
				input_word[p]++;
				if (8 * input_word[p] >= input[p].front().size()) {
					input[p].pop_front();
					input_word[p] = 0;
				}
			}
			if ((seen.out_handshake >> p) & 1) {
				uint64_t data = seen.out_data[p];
				for (unsigned i = 0; i < 8; i++)
					if ((seen.out_keep[p] >> i) & 1)
						current_out[p].push_back((uint8_t)(data >> (8 * i)));
				if ((seen.out_last >> p) & 1) {
					output[p].push_back(current_out[p]);
					current_out[p].clear();
				}
			}
		}
		// Truth: the occupancy register of this cycle is the occupancy after the previous one.
		uint64_t timer = dut.timer;
		if (have_previous) {
			std::vector<uint32_t> after(8);
			for (unsigned q = 0; q < 8; q++)
				after[q] = occupancy(q);
			truth_after[previous_timer] = after;
		}
		previous_timer = timer;
		have_previous = true;
		cycle++;
		drive();
		dut.eval();
		seen.take(dut);
	}

	CoreStreamSample seen; // handshakes of the coming edge, from this cycle's settled values

	void run(uint64_t cycles)
	{
		for (uint64_t i = 0; i < cycles; i++)
			bus.tick();
	}
	uint32_t read(uint32_t address) { return bus.read(address).data; }
	void write(uint32_t address, uint32_t value) { bus.write(address, value); }
	uint64_t read64(uint32_t address) { return bus.read64(address); }
};

bool is_stat_packet(const Frame &frame)
{
	return frame.size() >= 42 && frame[12] == 0x08 && frame[13] == 0x00 && frame[23] == 17 &&
	       (frame[36] << 8 | frame[37]) == PKTSTATS_UDP_PORT;
}

} // namespace

int main(int argc, char **argv)
{
	uint64_t seed = tap::seed_option(argc, argv);
	tap::Tally report;
	std::mt19937_64 random(seed);

	Harness h;
	report(h.read(PKTSTATS_ID_MAGIC) == PKTSTATS_ID_MAGIC_VALUE &&
		       h.read(PKTSTATS_EVCAP_TYPE) == PKTSTATS_EVCAP_TYPE_VALUE &&
		       h.read(PKTSTATS_SWITCH_TYPE) == PKTSTATS_SWITCH_TYPE_VALUE,
	       "identity, evcap and switch blocks answer");

	const uint32_t limit = 300;
	h.write(PKTSTATS_SWITCH_QUEUE_LIMIT_3, limit);
	h.write(PKTSTATS_EVCAP_OUTPUT_PORTS, 0x80);
	h.write(PKTSTATS_EVCAP_FLUSH_TIMEOUT, 5000);
	h.write(PKTSTATS_EVCAP_CONTROL, PKTSTATS_EVCAP_CONTROL_ENABLE_MASK);

	// The station on port 3 speaks first, so the switch learns where it is.
	const uint8_t broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	Frame hello = make_frame(broadcast, 3, 60, 0xffff);
	memcpy(hello.data() + 6, STATION_MAC, 6);
	h.input[3].push_back(hello);
	h.run(400);

	// Incast towards the station.
	std::vector<Frame> sent_to_station;
	const unsigned senders[] = {0, 1, 2, 4};
	uint32_t tag = 0;
	for (uint64_t t = 0; t < 200000; t++) {
		for (unsigned s : senders)
			if (h.input[s].size() < 2 && random() % 200 == 0) {
				Frame frame = make_frame(STATION_MAC, s, 60 + random() % 1455, tag++);
				h.input[s].push_back(frame);
				sent_to_station.push_back(frame);
			}
		h.bus.tick();
	}
	h.run(40000);
	h.write(PKTSTATS_EVCAP_COMMAND, PKTSTATS_EVCAP_COMMAND_FLUSH_MASK);
	h.run(20000);

	// Frames for the station: only on port 3, a subsequence of what was sent, in order per source.
	bool only_port3 = true;
	for (unsigned p = 0; p < 8; p++) {
		if (p == 3)
			continue;
		for (const Frame &frame : h.output[p])
			if (!memcmp(frame.data(), STATION_MAC, 6))
				only_port3 = false;
	}
	report(only_port3 && !h.output[3].empty(), "the station is learned: its frames leave port 3 only");
	std::map<std::vector<uint8_t>, int> sent;
	for (const Frame &frame : sent_to_station)
		sent[frame]++;
	bool intact = true;
	for (const Frame &frame : h.output[3])
		if (memcmp(frame.data(), STATION_MAC, 6) == 0 && sent[frame]-- <= 0)
			intact = false;
	report(intact, "frames out of port 3 are frames that were sent, unchanged");

	// Stat packets.
	std::vector<const Frame *> stats;
	for (const Frame &frame : h.output[7])
		if (is_stat_packet(frame))
			stats.push_back(&frame);
	struct pktstats_stream stream;
	pktstats_stream_init(&stream, nullptr);
	std::vector<struct pktstats_event> events(PKTSTATS_DECODE_MAX_EVENTS);
	uint64_t arrivals[8] = {}, departures[8] = {}, drops[8] = {}, checked = 0;
	std::string mismatch;
	for (const Frame *frame : stats) {
		struct pktstats_stream_result result;
		int err = pktstats_stream_feed_frame(&stream, frame->data(), frame->size(), events.data(),
						     events.size(), &result);
		if (err) {
			mismatch = std::string("stat packet does not decode: ") + pktstats_decode_strerror(result.reason);
			break;
		}
		for (size_t i = 0; i < result.n_events; i++) {
			const struct pktstats_event &e = events[i];
			uint64_t *counts = e.type == PKTSTATS_EVENT_ARRIVAL ? arrivals
					   : e.type == PKTSTATS_EVENT_DEPARTURE ? departures : drops;
			counts[e.queue]++;
			// Compare at the last event of its queue in its clock.
			bool last_of_clock = i + 1 == result.n_events || events[i + 1].tick != e.tick ||
					     events[i + 1].queue != e.queue;
			if (!last_of_clock)
				continue;
			auto truth = h.truth_after.find(e.tick);
			if (truth == h.truth_after.end()) {
				mismatch = "no truth for tick " + std::to_string(e.tick);
				break;
			}
			if (e.occupancy != (int64_t)truth->second[e.queue]) {
				mismatch = "queue " + std::to_string(e.queue) + " at tick " + std::to_string(e.tick) +
					   ": rebuilt " + std::to_string(e.occupancy) + ", true " +
					   std::to_string(truth->second[e.queue]);
				break;
			}
			checked++;
		}
		if (!mismatch.empty())
			break;
	}
	printf("# %zu stat packets, %" PRIu64 " events, %" PRIu64 " occupancy checks; queue 3: %" PRIu64
	       " arrivals, %" PRIu64 " departures, %" PRIu64 " drops\n",
	       stats.size(), stream.total.events, checked, arrivals[3], departures[3], drops[3]);
	report(!stats.empty() && stream.total.malformed == 0 && stream.total.lost == 0 &&
		       stream.total.missed_flags == 0,
	       "stat packets: all decode, no sequence gap, no M flag");
	report(mismatch.empty() && checked > 1000 && drops[3] > 0,
	       "occupancy rebuilt from the stat packets equals the true occupancy, with drops", mismatch);

	// Conservation on queue 3. The hello frame was flooded (not to queue 3).
	size_t to_station = 0;
	for (const Frame &frame : h.output[3])
		to_station += !memcmp(frame.data(), STATION_MAC, 6);
	report(arrivals[3] + drops[3] == sent_to_station.size() && departures[3] == h.output[3].size() &&
		       arrivals[3] == departures[3],
	       "conservation: sent = arrivals + drops, departures = frames out of port 3",
	       std::to_string(sent_to_station.size()) + " sent, " + std::to_string(h.output[3].size()) +
		       " out");
	report(h.read64(PKTSTATS_SWITCH_FRAMES_STORED_3) == arrivals[3] &&
		       h.read64(PKTSTATS_SWITCH_FRAMES_DROPPED_3) == drops[3] &&
		       h.read64(PKTSTATS_SWITCH_FRAMES_REMOVED_3) == departures[3] &&
		       h.read64(PKTSTATS_EVCAP_EVENTS_MISSED) == 0,
	       "switch counters agree with the events; nothing missed");
	report(h.bus.protocol_error().empty(), "AXI4-Lite protocol", h.bus.protocol_error());

	int status = report.finish();
	h.dut.final();
	return status;
}
