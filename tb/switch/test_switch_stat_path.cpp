// SPDX-License-Identifier: BSD-3-Clause
//
// test_switch_stat_path: stat packets and queue frames sharing the 8 output ports
// (rtl/switch/switch_stat_path.v). Random queue frames on every port, random stat packets
// with random port masks (none, one, several), random backpressure on every output. Checks:
// every output is a sequence of whole frames; each port carries its queue's frames in order,
// unchanged, and exactly the stat packets that select it, in order, unchanged; nothing is
// lost, duplicated or cut.
//
// Usage: test_switch_stat_path [--seed N] [--cycles N] [--only NAME] [--list]
// Prints TAP: one case per seed, each printing its seed; `--seed N` replays one.

#include <cinttypes>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "Vswitch_stat_path.h"
#include "tap_runner.h"
#include "verilated.h"

namespace {

struct Frame {
	std::vector<uint8_t> bytes;
	uint8_t mask = 0; // stat packets: selected ports
	int id = 0;       // stat packets: >= 0; queue frames: -1
};

struct Source {
	std::deque<Frame> frames;
	size_t word = 0; // next word of frames.front()
};

uint64_t word_of(const Frame &frame, size_t word, uint8_t *keep)
{
	uint64_t data = 0;
	*keep = 0;
	for (size_t i = 0; i < 8 && 8 * word + i < frame.bytes.size(); i++) {
		data |= (uint64_t)frame.bytes[8 * word + i] << (8 * i);
		*keep |= (uint8_t)(1u << i);
	}
	return data;
}

size_t words_of(const Frame &frame) { return (frame.bytes.size() + 7) / 8; }

Frame random_frame(std::mt19937_64 &random, int id, uint8_t mask)
{
	Frame frame;
	frame.id = id;
	frame.mask = mask;
	size_t length = 60 + random() % 200;
	for (size_t i = 0; i < length; i++)
		frame.bytes.push_back((uint8_t)random());
	// Tag the frame so that the checker can tell frames apart: byte 0 is 1 for stat packets,
	// bytes 1..2 their id.
	frame.bytes[0] = 1;
	frame.bytes[1] = (uint8_t)id;
	frame.bytes[2] = (uint8_t)(id >> 8);
	return frame;
}

std::string run(uint64_t seed, uint64_t clocks)
{
	std::mt19937_64 random(seed);
	VerilatedContext context;
	Vswitch_stat_path dut(&context);

	Source stat;
	Source queues[8];
	std::vector<Frame> expected_queue[8]; // frames in the order queue i offers them
	std::vector<int> expected_stat[8];    // stat ids in order, per port
	std::vector<uint8_t> current[8];      // bytes of the frame being received on each port
	std::vector<Frame> received[8];
	int next_stat = 0;
	unsigned ready_bias[8];
	for (unsigned p = 0; p < 8; p++)
		ready_bias[p] = 1 + random() % 8;

	dut.rst = 1;
	for (int i = 0; i < 4; i++) {
		dut.clk = 0;
		dut.eval();
		dut.clk = 1;
		dut.eval();
	}
	dut.rst = 0;

	for (uint64_t cycle = 0; cycle < clocks; cycle++) {
		// New frames now and then.
		if (stat.frames.size() < 3 && random() % 40 == 0) {
			uint8_t mask = random() % 5 == 0 ? 0 : (uint8_t)(random() % 3 == 0 ? random() : 1u << (random() % 8));
			Frame frame = random_frame(random, next_stat++, mask);
			for (unsigned p = 0; p < 8; p++)
				if ((mask >> p) & 1)
					expected_stat[p].push_back(frame.id);
			stat.frames.push_back(frame);
		}
		for (unsigned p = 0; p < 8; p++)
			if (queues[p].frames.size() < 3 && random() % 30 == 0) {
				Frame frame = random_frame(random, -1, 0);
				frame.bytes[0] = 0; // queue frames carry tag 0
				frame.bytes[1] = (uint8_t)expected_queue[p].size();
				frame.bytes[2] = (uint8_t)(expected_queue[p].size() >> 8);
				expected_queue[p].push_back(frame);
				queues[p].frames.push_back(frame);
			}

		// Drive the inputs of this clock.
		dut.s_stat_tvalid = !stat.frames.empty();
		if (!stat.frames.empty()) {
			uint8_t keep;
			dut.s_stat_tdata = word_of(stat.frames.front(), stat.word, &keep);
			dut.s_stat_tkeep = keep;
			dut.s_stat_tlast = stat.word + 1 == words_of(stat.frames.front());
			dut.s_stat_tuser = stat.frames.front().mask;
		}
		uint8_t queue_valid = 0, queue_last = 0;
		for (unsigned p = 0; p < 8; p++) {
			uint8_t keep = 0;
			uint64_t data = 0;
			if (!queues[p].frames.empty()) {
				queue_valid |= (uint8_t)(1u << p);
				data = word_of(queues[p].frames.front(), queues[p].word, &keep);
				if (queues[p].word + 1 == words_of(queues[p].frames.front()))
					queue_last |= (uint8_t)(1u << p);
			}
			dut.s_queue_tdata[2 * p] = (uint32_t)data;
			dut.s_queue_tdata[2 * p + 1] = (uint32_t)(data >> 32);
			dut.s_queue_tkeep = (dut.s_queue_tkeep & ~(0xffULL << (8 * p))) | ((uint64_t)keep << (8 * p));
		}
		dut.s_queue_tvalid = queue_valid;
		dut.s_queue_tlast = queue_last;
		uint8_t ready = 0;
		for (unsigned p = 0; p < 8; p++)
			if (random() % ready_bias[p] == 0)
				ready |= (uint8_t)(1u << p);
		dut.m_axis_tready = ready;
		dut.clk = 0;
		dut.eval();

		// Sample the handshakes of this clock.
		bool stat_taken = dut.s_stat_tvalid && dut.s_stat_tready;
		uint8_t queue_taken = dut.s_queue_tvalid & dut.s_queue_tready;
		for (unsigned p = 0; p < 8; p++) {
			if (!((dut.m_axis_tvalid >> p) & 1) || !((ready >> p) & 1))
				continue;
			uint64_t data = (uint64_t)dut.m_axis_tdata[2 * p] | (uint64_t)dut.m_axis_tdata[2 * p + 1] << 32;
			uint8_t keep = (uint8_t)(dut.m_axis_tkeep >> (8 * p));
			for (unsigned i = 0; i < 8; i++)
				if ((keep >> i) & 1)
					current[p].push_back((uint8_t)(data >> (8 * i)));
			if ((dut.m_axis_tlast >> p) & 1) {
				Frame frame;
				frame.bytes = current[p];
				received[p].push_back(frame);
				current[p].clear();
			}
		}
		dut.clk = 1;
		dut.eval();

		if (stat_taken) {
			if (++stat.word == words_of(stat.frames.front())) {
				stat.frames.pop_front();
				stat.word = 0;
			}
		}
		for (unsigned p = 0; p < 8; p++)
			if ((queue_taken >> p) & 1) {
				if (++queues[p].word == words_of(queues[p].frames.front())) {
					queues[p].frames.pop_front();
					queues[p].word = 0;
				}
			}
	}

	// Check every port: its frames, split into stat packets (tag > 0) and queue frames.
	uint64_t stat_frames = 0, queue_frames = 0;
	for (unsigned p = 0; p < 8; p++) {
		size_t next_queue = 0, next_stat_index = 0;
		for (const Frame &frame : received[p]) {
			if (frame.bytes.empty())
				return "port " + std::to_string(p) + ": empty frame";
			if (frame.bytes[0] == 0) {
				if (next_queue >= expected_queue[p].size() ||
				    frame.bytes != expected_queue[p][next_queue].bytes)
					return "port " + std::to_string(p) + ": queue frame " +
					       std::to_string(next_queue) + " wrong or out of order";
				next_queue++;
				queue_frames++;
			} else {
				int id = frame.bytes[1] | frame.bytes[2] << 8;
				if (next_stat_index >= expected_stat[p].size() ||
				    (expected_stat[p][next_stat_index] & 0xffff) != id)
					return "port " + std::to_string(p) + ": stat packet " + std::to_string(id) +
					       " unexpected";
				next_stat_index++;
				stat_frames++;
			}
		}
		// Whatever was offered long ago must have come out: only the last few may be in flight.
		if (next_queue + 4 < expected_queue[p].size())
			return "port " + std::to_string(p) + ": only " + std::to_string(next_queue) + " of " +
			       std::to_string(expected_queue[p].size()) + " queue frames came out";
		if (next_stat_index + 4 < expected_stat[p].size())
			return "port " + std::to_string(p) + ": stat packets stuck";
	}
	if (stat_frames == 0 || queue_frames == 0)
		return "the run carried no traffic";
	printf("# seed %" PRIu64 ": %" PRIu64 " stat packets and %" PRIu64 " queue frames delivered\n",
	       seed, stat_frames, queue_frames);
	return "";
}

} // namespace

int main(int argc, char **argv)
{
	tap::Options options = tap::parse(argc, argv, 200000);
	std::vector<tap::Test> tests;
	for (uint64_t seed : tap::seeds(options, {1, 2, 3}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles, run));
	return tap::run(tests, options);
}
