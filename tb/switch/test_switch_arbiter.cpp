// SPDX-License-Identifier: BSD-3-Clause
//
// test_switch_arbiter: the input arbiter (rtl/switch/switch_input_arbiter.v) against the rules
// of docs/switch-architecture.md, "switch_input_arbiter", and the timing in its header.
//
// Every clock the harness checks:
// - arbitration: between frames, the input accepted is the first one with tvalid after the
//   last served one in round-robin order (input 0 first after reset); during a frame, only its
//   input; and a word is accepted whenever the chosen input has tvalid and the output register
//   is free (!m_axis_tvalid || m_axis_tready), so no idle clock between frames and no stall of
//   anyone but the granted input;
// - the output: every word accepted in clock t is on m_axis from clock t+1, in order, with
//   tuser = its input, held while stalled; frames come out whole and unchanged.
// Directed tests add explicit expectations (orders of sources, clocks without tvalid).
//
// Usage: test_switch_arbiter [--seed N] [--cycles N] [--only NAME] [--list]
// Prints TAP. The randomized test prints its seed; `--seed N --only random` replays it.

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vswitch_input_arbiter.h"
#include "tap_runner.h"
#include "verilated.h"

namespace {

constexpr unsigned kInputs = 8;

struct Word {
	uint64_t data;
	uint8_t keep;
	bool last;
};

struct Frame {
	std::vector<Word> words;
};

// A frame of `bytes` bytes whose content names its input and number.
Frame make_frame(unsigned input, uint32_t number, size_t bytes)
{
	Frame f;
	for (size_t at = 0; at < bytes; at += 8) {
		Word w{0, 0, false};
		for (size_t k = 0; k < 8 && at + k < bytes; k++) {
			uint8_t byte = (uint8_t)(at + k == 0 ? input : at + k == 1 ? number : number * 31 + at + k);
			w.data |= (uint64_t)byte << (8 * k);
			w.keep |= (uint8_t)(1u << k);
		}
		w.last = at + 8 >= bytes;
		f.words.push_back(w);
	}
	return f;
}

struct Accepted {
	Word word;
	unsigned input;
	uint64_t cycle;
};

struct OutFrame {
	unsigned source;
	std::vector<Word> words;
	uint64_t first_cycle;
};

class Bench {
public:
	explicit Bench(uint64_t seed = 1) : random_(seed)
	{
		context_ = std::make_unique<VerilatedContext>();
		dut_ = std::make_unique<Vswitch_input_arbiter>(context_.get());
		for (unsigned i = 0; i < kInputs; i++)
			idle[i] = 0.0;
		reset_dut();
	}
	~Bench() { dut_->final(); }
	Bench(const Bench &) = delete;
	Bench &operator=(const Bench &) = delete;

	// Per input: probability of idling in a clock where it could present a word.
	double idle[kInputs];
	double ready_probability = 1.0;
	std::function<bool(uint64_t)> ready_pattern;
	// When set, decides per input and clock whether it may present a word (overrides idle).
	std::function<bool(unsigned, uint64_t)> input_pattern;
	std::function<void(Bench &)> on_clock;

	void send(unsigned input, const Frame &f) { queue_[input].push_back(f); sent_[input].push_back(f); }
	size_t queued(unsigned input) const
	{
		return queue_[input].size() + (word_[input] > 0 ? 1 : 0);
	}

	void step();
	void run(uint64_t n)
	{
		for (uint64_t i = 0; i < n && ok(); i++)
			step();
	}
	void drain(uint64_t max_cycles = 2000000)
	{
		for (uint64_t i = 0; i < max_cycles && ok(); i++) {
			bool empty = accepted_.empty() && !dut_->m_axis_tvalid;
			for (unsigned k = 0; k < kInputs; k++)
				empty = empty && queued(k) == 0;
			if (empty) {
				check_frames();
				return;
			}
			step();
		}
		fail("did not drain in %" PRIu64 " clocks", max_cycles);
	}

	// Frames out, in order, and per clock whether m_axis_tvalid was high.
	std::vector<OutFrame> out_frames;
	std::vector<bool> output_valid;
	std::vector<uint64_t> stalled_handshakes; // clocks with an input accepted while stalled

	uint64_t cycle() const { return cycle_; }
	bool ok() const { return failure_.empty(); }
	const std::string &failure() const { return failure_; }
	void fail(const char *format, ...) __attribute__((format(printf, 2, 3)))
	{
		if (!failure_.empty())
			return;
		char buffer[600];
		va_list args;
		va_start(args, format);
		vsnprintf(buffer, sizeof(buffer), format, args);
		va_end(args);
		failure_ = "clock " + std::to_string(cycle_) + ": " + buffer;
	}
	std::mt19937_64 &random() { return random_; }

	// Whole frames out equal the frames sent, per input and in order.
	void check_frames()
	{
		std::vector<size_t> next(kInputs, 0);
		for (const OutFrame &o : out_frames) {
			if (!ok())
				return;
			unsigned s = o.source;
			if (next[s] >= sent_[s].size()) {
				fail("extra frame from input %u", s);
				return;
			}
			const Frame &f = sent_[s][next[s]++];
			if (f.words.size() != o.words.size()) {
				fail("input %u frame %zu: %zu words out, %zu in", s, next[s] - 1,
				     o.words.size(), f.words.size());
				return;
			}
			for (size_t k = 0; k < f.words.size(); k++)
				if (f.words[k].data != o.words[k].data || f.words[k].keep != o.words[k].keep ||
				    f.words[k].last != o.words[k].last) {
					fail("input %u frame %zu word %zu differs", s, next[s] - 1, k);
					return;
				}
		}
		for (unsigned s = 0; s < kInputs; s++)
			if (next[s] != sent_[s].size())
				fail("input %u: %zu frames out of %zu", s, next[s], sent_[s].size());
	}

private:
	void reset_dut()
	{
		Vswitch_input_arbiter &d = *dut_;
		d.rst = 1;
		d.s_axis_tvalid = 0;
		d.m_axis_tready = 0;
		for (int i = 0; i < 4; i++) {
			d.clk = 0;
			d.eval();
			d.clk = 1;
			d.eval();
		}
		d.rst = 0;
	}

	bool chance(double p)
	{
		if (p <= 0.0)
			return false;
		if (p >= 1.0)
			return true;
		return std::uniform_real_distribution<double>(0.0, 1.0)(random_) < p;
	}

	std::unique_ptr<VerilatedContext> context_;
	std::unique_ptr<Vswitch_input_arbiter> dut_;
	std::mt19937_64 random_;
	std::string failure_;
	uint64_t cycle_ = 0;

	std::deque<Frame> queue_[kInputs];
	std::vector<Frame> sent_[kInputs];
	size_t word_[kInputs] = {};      // next word of the head frame
	bool held_[kInputs] = {};        // tvalid up without a handshake: keep it

	// spec model of the arbitration
	bool in_frame_ = false;
	unsigned owner_ = 0;
	unsigned last_served_ = kInputs - 1;

	std::deque<Accepted> accepted_; // accepted, not yet read from m_axis
	bool presented_ = false;        // the m_axis word was already seen
	bool prev_stalled_ = false;
	uint64_t prev_data_ = 0;
	unsigned prev_keep_ = 0, prev_last_ = 0, prev_user_ = 0;
	bool out_in_frame_ = false;
};

void Bench::step()
{
	if (on_clock)
		on_clock(*this);
	Vswitch_input_arbiter &d = *dut_;
	uint8_t tvalid = 0, tlast = 0;
	for (unsigned i = 0; i < kInputs; i++) {
		bool has = !queue_[i].empty();
		bool present = has && (held_[i] ||
				       (input_pattern ? input_pattern(i, cycle_) : !chance(idle[i])));
		uint64_t data = random_();
		uint8_t keep = (uint8_t)random_();
		bool last = random_() & 1;
		if (present) {
			const Word &w = queue_[i].front().words[word_[i]];
			data = w.data;
			keep = w.keep;
			last = w.last;
			tvalid |= (uint8_t)(1u << i);
		}
		d.s_axis_tdata[2 * i] = (uint32_t)data;
		d.s_axis_tdata[2 * i + 1] = (uint32_t)(data >> 32);
		d.s_axis_tkeep = (d.s_axis_tkeep & ~(0xffULL << (8 * i))) | (uint64_t)keep << (8 * i);
		tlast |= (uint8_t)((last ? 1u : 0u) << i);
	}
	d.s_axis_tvalid = tvalid;
	d.s_axis_tlast = tlast;
	d.m_axis_tready = ready_pattern ? ready_pattern(cycle_) : chance(ready_probability);
	d.clk = 0;
	d.eval();

	uint8_t handshakes = d.s_axis_tvalid & d.s_axis_tready;
	bool output_free = !d.m_axis_tvalid || d.m_axis_tready;

	if (ok()) {
		// Output held while stalled
		if (prev_stalled_ && (!d.m_axis_tvalid || d.m_axis_tdata != prev_data_ ||
				      d.m_axis_tkeep != prev_keep_ || d.m_axis_tlast != prev_last_ ||
				      d.m_axis_tuser != prev_user_))
			fail("m_axis changed while stalled");

		// Arbitration
		unsigned expected = owner_;
		bool any = false;
		if (!in_frame_) {
			for (unsigned k = 1; k <= kInputs && !any; k++) {
				unsigned i = (last_served_ + k) % kInputs;
				if (tvalid >> i & 1) {
					expected = i;
					any = true;
				}
			}
		}
		for (unsigned i = 0; i < kInputs; i++) {
			if (!(tvalid >> i & 1))
				continue;
			bool should = output_free && i == expected && (in_frame_ || any);
			bool did = handshakes >> i & 1;
			if (did != should) {
				std::string want = !output_free ? "none (output stalled)"
					: in_frame_ ? "input " + std::to_string(owner_) + " (in its frame)"
					: "input " + std::to_string(expected) + " (round robin after " +
						  std::to_string(last_served_) + ")";
				if (did)
					fail("input %u accepted; expected %s", i, want.c_str());
				else
					fail("input %u not accepted though it is %s and the output is free", i,
					     in_frame_ ? "in its frame" : "next in round robin");
				break;
			}
		}
		if (handshakes && !output_free)
			stalled_handshakes.push_back(cycle_);

		// Output word: accepted in clock t, on m_axis from t+1, in order, tuser = input
		if (d.m_axis_tvalid) {
			if (accepted_.empty()) {
				fail("m_axis_tvalid with nothing accepted");
			} else {
				const Accepted &a = accepted_.front();
				if (d.m_axis_tdata != a.word.data || d.m_axis_tkeep != a.word.keep ||
				    d.m_axis_tlast != a.word.last || d.m_axis_tuser != a.input)
					fail("m_axis word %016" PRIx64 " keep %02x last %d tuser %u, expected"
					     " %016" PRIx64 " keep %02x last %d tuser %u",
					     (uint64_t)d.m_axis_tdata, d.m_axis_tkeep, d.m_axis_tlast,
					     d.m_axis_tuser, a.word.data, a.word.keep, a.word.last, a.input);
				if (!presented_ && cycle_ != a.cycle + 1)
					fail("word accepted in clock %" PRIu64 " first on m_axis in clock %" PRIu64,
					     a.cycle, cycle_);
				presented_ = true;
			}
		}
	}
	output_valid.push_back(d.m_axis_tvalid);

	// Output handshake
	if (d.m_axis_tvalid && d.m_axis_tready && !accepted_.empty()) {
		const Accepted &a = accepted_.front();
		if (!out_in_frame_) {
			out_frames.push_back(OutFrame{a.input, {}, cycle_});
			out_in_frame_ = true;
		}
		if (out_frames.back().source != a.input)
			fail("input %u interleaved into a frame of input %u", a.input,
			     out_frames.back().source);
		out_frames.back().words.push_back(a.word);
		if (a.word.last)
			out_in_frame_ = false;
		accepted_.pop_front();
		presented_ = false;
	}

	// Input handshakes: model state and input queues
	for (unsigned i = 0; i < kInputs; i++) {
		if (!(tvalid >> i & 1))
			continue;
		if (!(handshakes >> i & 1)) {
			held_[i] = true;
			continue;
		}
		held_[i] = false;
		const Word w = queue_[i].front().words[word_[i]];
		accepted_.push_back(Accepted{w, i, cycle_});
		if (!in_frame_) {
			in_frame_ = true;
			owner_ = i;
		}
		if (w.last) {
			in_frame_ = false;
			last_served_ = i;
		}
		if (++word_[i] == queue_[i].front().words.size()) {
			queue_[i].pop_front();
			word_[i] = 0;
		}
	}

	prev_stalled_ = d.m_axis_tvalid && !d.m_axis_tready;
	prev_data_ = d.m_axis_tdata;
	prev_keep_ = d.m_axis_tkeep;
	prev_last_ = d.m_axis_tlast;
	prev_user_ = d.m_axis_tuser;

	d.clk = 1;
	d.eval();
	cycle_++;
}

using tap::Result;

#define EXPECT(cond, ...)                                                                  \
	do {                                                                               \
		if (!b.ok())                                                               \
			return b.failure();                                                \
		if (!(cond)) {                                                             \
			char message_[400];                                                \
			snprintf(message_, sizeof(message_), __VA_ARGS__);                 \
			return std::string(message_);                                      \
		}                                                                          \
	} while (0)

// All 8 inputs always have a frame ready and the output is always ready: the frames come out
// from inputs 0, 1, ..., 7, 0, ... and the output never idles.
Result test_fairness()
{
	Bench b(3);
	const unsigned rounds = 50;
	for (unsigned n = 0; n < rounds; n++)
		for (unsigned i = 0; i < kInputs; i++)
			b.send(i, make_frame(i, n, 1 + b.random()() % 200));
	b.drain();
	EXPECT(b.out_frames.size() == rounds * kInputs, "frames out %zu", b.out_frames.size());
	for (size_t n = 0; n < b.out_frames.size(); n++)
		EXPECT(b.out_frames[n].source == n % kInputs, "frame %zu from input %u, want %zu", n,
		       b.out_frames[n].source, n % kInputs);
	// tvalid from clock 1 (the first word is accepted in clock 0) to the last word
	size_t words = 0;
	for (const OutFrame &o : b.out_frames)
		words += o.words.size();
	for (size_t c = 1; c <= words; c++)
		EXPECT(b.output_valid[c], "idle output clock %zu with frames waiting", c);
	return b.failure();
}

// Only some inputs busy: the turn skips the idle ones, and comes back in order.
Result test_round_robin_order()
{
	Bench b(4);
	for (unsigned n = 0; n < 10; n++) {
		b.send(2, make_frame(2, n, 64));
		b.send(6, make_frame(6, n, 24));
	}
	b.drain();
	for (size_t n = 0; n < b.out_frames.size(); n++)
		EXPECT(b.out_frames[n].source == (n % 2 ? 6u : 2u), "frame %zu from input %u", n,
		       b.out_frames[n].source);
	// Inputs 1, 3, 7 wait; the last served is 6: 7, 1, 3, 7, 1, 3
	for (unsigned n = 0; n < 2; n++)
		for (unsigned i : {3u, 1u, 7u})
			b.send(i, make_frame(i, n, 16));
	b.drain();
	const unsigned want[] = {7, 1, 3, 7, 1, 3};
	for (unsigned n = 0; n < 6; n++)
		EXPECT(b.out_frames[20 + n].source == want[n], "frame %u from input %u, want %u", 20 + n,
		       b.out_frames[20 + n].source, want[n]);
	return b.failure();
}

// A granted input that pauses in the middle of its frame keeps the grant: nobody else's words
// come in between, and the next input starts in the clock after the tlast.
Result test_grant_held_through_gaps()
{
	Bench b(5);
	b.input_pattern = [](unsigned i, uint64_t c) { return i != 1 || c % 4 == 0; };
	b.send(1, make_frame(1, 0, 80)); // 10 words, one every 4 clocks
	for (unsigned i = 2; i < kInputs; i++)
		b.send(i, make_frame(i, 0, 40));
	b.drain();
	EXPECT(b.out_frames.size() == 7 && b.out_frames[0].source == 1, "first frame from input %u",
	       b.out_frames.empty() ? 99 : b.out_frames[0].source);
	// input 1's last word goes in at clock 36; input 2's first at 37, out at 38
	EXPECT(b.out_frames[1].source == 2 && b.out_frames[1].first_cycle == 38,
	       "next frame from input %u at clock %" PRIu64, b.out_frames[1].source,
	       b.out_frames[1].first_cycle);
	return b.failure();
}

// Output backpressure: nothing is accepted while the output register is full and stalled;
// bursts of stall of many lengths; the output is held (checked every clock).
Result test_backpressure()
{
	Bench b(6);
	for (unsigned i = 0; i < kInputs; i++)
		b.idle[i] = 0.1 * i;
	for (unsigned phase = 0; phase < 3; phase++) {
		if (phase == 0)
			b.ready_probability = 0.3;
		else if (phase == 1)
			b.ready_pattern = [](uint64_t c) { return (c / 50) % 2 == 0; };
		else
			b.ready_pattern = [](uint64_t c) { return c % 3 == 0; };
		for (unsigned n = 0; n < 20; n++)
			for (unsigned i = 0; i < kInputs; i++)
				b.send(i, make_frame(i, n, 1 + b.random()() % 300));
		b.drain();
	}
	EXPECT(b.stalled_handshakes.empty(), "an input was accepted in stalled clock %" PRIu64,
	       b.stalled_handshakes.empty() ? 0 : b.stalled_handshakes[0]);
	return b.failure();
}

// One-word frames from every input: one frame per clock, still in turn.
Result test_single_word_frames()
{
	Bench b(8);
	for (unsigned n = 0; n < 30; n++)
		for (unsigned i = 0; i < kInputs; i++)
			b.send(i, make_frame(i, n, 1 + n % 8));
	b.drain();
	for (size_t n = 0; n < b.out_frames.size(); n++) {
		EXPECT(b.out_frames[n].source == n % kInputs, "frame %zu from input %u", n,
		       b.out_frames[n].source);
		EXPECT(b.out_frames[n].first_cycle == n + 1, "frame %zu out at clock %" PRIu64, n,
		       b.out_frames[n].first_cycle);
	}
	return b.failure();
}

// Seeded random: idle patterns per input, frame lengths 1..1514 bytes, output stalls.
Result test_random(uint64_t seed, uint64_t cycles)
{
	Bench b(seed);
	std::mt19937_64 &r = b.random();
	uint64_t next_phase = 0;
	uint32_t number = 0;
	b.on_clock = [&](Bench &bench) {
		if (bench.cycle() >= next_phase) {
			next_phase = bench.cycle() + 1000 + r() % 10000;
			static const double idles[] = {0.0, 0.0, 0.0, 0.05, 0.2, 0.5, 0.8};
			for (unsigned i = 0; i < kInputs; i++)
				bench.idle[i] = idles[r() % 7];
			static const double readies[] = {1.0, 1.0, 0.9, 0.6, 0.3};
			bench.ready_probability = readies[r() % 5];
		}
		for (unsigned i = 0; i < kInputs; i++) {
			while (bench.queued(i) < 2) {
				size_t bytes = r() % 4 ? 60 + r() % 200 : 1 + r() % 1514;
				bench.send(i, make_frame(i, number++, bytes));
			}
		}
	};
	b.run(cycles);
	b.on_clock = nullptr;
	for (unsigned i = 0; i < kInputs; i++)
		b.idle[i] = 0.0;
	b.ready_probability = 1.0;
	b.drain();
	if (b.ok() && b.out_frames.size() < cycles / 100)
		b.fail("only %zu frames in %" PRIu64 " clocks", b.out_frames.size(), cycles);
	if (b.ok())
		printf("# random: %zu frames\n", b.out_frames.size());
	return b.failure();
}

} // namespace

int main(int argc, char **argv)
{
	tap::Options options = tap::parse(argc, argv, 200000);
	Verilated::commandArgs(argc, argv);

	std::vector<tap::Test> tests = {
		{"fairness", test_fairness},
		{"round_robin_order", test_round_robin_order},
		{"grant_held_through_gaps", test_grant_held_through_gaps},
		{"backpressure", test_backpressure},
		{"single_word_frames", test_single_word_frames},
	};
	for (uint64_t seed : tap::seeds(options, {1}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles, test_random));
	return tap::run(tests, options);
}
