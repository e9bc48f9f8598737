// SPDX-License-Identifier: BSD-3-Clause
//
// test_switch_lookup: the learning L2 lookup (rtl/switch/switch_output_port_lookup.v) against
// a reference model written from docs/switch-architecture.md and the clock-by-clock contract
// in the module's header comment.
//
// Every clock the harness drives the stream, the table ports and the commands, and checks:
// every output word (bytes, keep, last, tuser = {source, mask}) against the model's frames in
// input order; the AXI stream rules on m_axis (held while stalled) and that the input is never
// stalled while the output is ready; the read port against the model's table of the previous
// clock; all six counters against the model. Directed tests add explicit expectations of
// their own (masks, latencies, table contents), so that a model mistake cannot hide an RTL one.
//
// Build (the -G and -D values must agree; the harness cannot read Verilog parameters; TABLE_SIZE
// may be set the same way, 8..64):
//   verilator --cc --exe --build -Wall -GAGE_TICK_CYCLES=32 -GAGE_WIDTH=8 ...
//     -CFLAGS "... -DAGE_TICK_CYCLES=32 -DAGE_WIDTH=8" ...
// AGE_TICK_CYCLES must be at least 16; age_saturation is skipped when 2^AGE_WIDTH ticks take
// more than 4M clocks (so build with a small AGE_WIDTH).
// Usage: test_switch_lookup [--seed N] [--cycles N] [--only NAME] [--list] [--directed-only]
// Prints TAP. The randomized test prints its seed; `--seed N --only random` replays it.
// --directed-only leaves out the model comparisons (see g_model_checks).

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vswitch_output_port_lookup.h"
#include "tap_runner.h"
#include "verilated.h"

#ifndef AGE_TICK_CYCLES
#error "define AGE_TICK_CYCLES (-CFLAGS -DAGE_TICK_CYCLES=N) to the value given to -GAGE_TICK_CYCLES=N"
#endif
#ifndef AGE_WIDTH
#define AGE_WIDTH 16
#endif
#ifndef TABLE_SIZE
#define TABLE_SIZE 32
#endif

namespace {

constexpr unsigned kTableSize = TABLE_SIZE;
constexpr uint64_t kAgeTickCycles = AGE_TICK_CYCLES;
constexpr unsigned kAgeWidth = AGE_WIDTH;
constexpr uint64_t kAgeMax = (1ull << kAgeWidth) - 1;
constexpr unsigned kLatency = 3; // clocks from an input handshake to the word on m_axis
constexpr unsigned kPorts = 8;

// --directed-only: skip the comparisons with the model (tuser, read port, counters), keeping
// the stream checks (bytes, order, AXI rules) and the directed tests' own expectations. Used to
// show that a directed test catches a broken RTL by itself.
bool g_model_checks = true;

static_assert(kTableSize >= 8 && kTableSize <= 64, "the harness needs TABLE_SIZE 8..64");
static_assert(kAgeWidth >= 2 && kAgeWidth <= 32, "AGE_WIDTH 2..32");
// The directed tests place a few frames between two ticks
static_assert(kAgeTickCycles >= 16, "build with AGE_TICK_CYCLES of at least 16");

// MAC addresses as on the table ports: first byte on the wire in bits 47:40.
using Mac = uint64_t;
constexpr Mac kBroadcast = 0xffffffffffffULL;

Mac station(unsigned n) { return 0x020000000000ULL | ((Mac)n << 8) | 0x10; }
bool is_group(Mac mac) { return (mac >> 40) & 1; }

struct Frame {
	std::vector<uint8_t> bytes;
	unsigned source = 0;
};

// A frame of `length` bytes: DA, SA, EtherType 0x88b5, then a pattern that carries `tag`.
// Shorter lengths cut the header.
Frame make_frame(Mac destination, Mac source_mac, unsigned source_port, size_t length,
		 uint32_t tag)
{
	Frame f;
	f.source = source_port;
	std::vector<uint8_t> bytes;
	for (int k = 5; k >= 0; k--)
		bytes.push_back((uint8_t)(destination >> (8 * k)));
	for (int k = 5; k >= 0; k--)
		bytes.push_back((uint8_t)(source_mac >> (8 * k)));
	bytes.push_back(0x88);
	bytes.push_back(0xb5);
	for (int k = 3; k >= 0; k--)
		bytes.push_back((uint8_t)(tag >> (8 * k)));
	while (bytes.size() < length)
		bytes.push_back((uint8_t)(bytes.size() * 7 + tag));
	bytes.resize(length);
	f.bytes = bytes;
	return f;
}

Mac mac_at(const std::vector<uint8_t> &bytes, size_t offset)
{
	Mac mac = 0;
	for (size_t k = 0; k < 6; k++)
		mac = mac << 8 | bytes[offset + k];
	return mac;
}

struct Word {
	uint64_t data;
	uint8_t keep;
	bool last;
};

std::vector<Word> words_of(const std::vector<uint8_t> &bytes)
{
	std::vector<Word> words;
	for (size_t at = 0; at < bytes.size(); at += 8) {
		Word w{0, 0, false};
		for (size_t k = 0; k < 8 && at + k < bytes.size(); k++) {
			w.data |= (uint64_t)bytes[at + k] << (8 * k);
			w.keep |= (uint8_t)(1u << k);
		}
		w.last = at + 8 >= bytes.size();
		words.push_back(w);
	}
	return words;
}

// ---------------------------------------------------------------------------------------------
// Reference model, from the spec: lookup, learning, ageing, software access, counters.

enum class Class { forwarded, flooded, filtered, too_short };

struct Decision {
	uint8_t mask;
	Class kind;
};

struct Entry {
	bool valid = false;
	bool is_static = false;
	Mac mac = 0;
	unsigned port = 0;
	uint64_t age = 0;
};

struct Counters {
	uint64_t looked_up = 0, flooded = 0, filtered = 0, too_short = 0, learned = 0, aged_out = 0;
};

enum CounterId { C_LOOKED_UP, C_FLOODED, C_FILTERED, C_TOO_SHORT, C_LEARNED, C_AGED_OUT, C_N };
const char *const kCounterNames[C_N] = {"frames_looked_up", "frames_flooded",
					"frames_filtered", "frames_too_short",
					"entries_learned", "entries_aged_out"};

struct SoftwareWrite {
	bool active = false;
	unsigned index = 0;
	Mac mac = 0;
	unsigned port = 0;
	bool valid = false;
	bool is_static = false;
};

struct LearnRequest {
	bool active = false;
	Mac mac = 0;
	unsigned port = 0;
};

class Model {
public:
	Entry table[kTableSize];
	uint64_t counters[C_N] = {};
	uint64_t ageing_time = 0;
	uint64_t tick_counter = 0; // 0 in the first clock after reset
	// Coverage: how often the interesting cases happened
	uint64_t inserts = 0, replacements = 0, tied_replacements = 0, learn_write_same_clock = 0;
	uint64_t removals = 0;

	bool tick_now() const { return tick_counter == kAgeTickCycles - 1; }

	// The lowest-index valid entry holding `mac`, or -1.
	int find(Mac mac) const
	{
		for (unsigned i = 0; i < kTableSize; i++)
			if (table[i].valid && table[i].mac == mac)
				return (int)i;
		return -1;
	}

	Decision decide(const Frame &f) const
	{
		if (f.bytes.size() < 6)
			return {0, Class::too_short};
		Mac destination = mac_at(f.bytes, 0);
		uint8_t flood = (uint8_t)(0xff & ~(1u << f.source));
		if (is_group(destination))
			return {flood, Class::flooded};
		int e = find(destination);
		if (e < 0)
			return {flood, Class::flooded};
		if (table[e].port == f.source)
			return {0, Class::filtered};
		return {(uint8_t)(1u << table[e].port), Class::forwarded};
	}

	// Whether the spec learns from this frame at all.
	static bool learns_from(const Frame &f)
	{
		return f.bytes.size() >= 12 && !is_group(mac_at(f.bytes, 6));
	}

	void count_frame(Class kind)
	{
		if (kind != Class::too_short)
			counters[C_LOOKED_UP]++;
		if (kind == Class::flooded)
			counters[C_FLOODED]++;
		if (kind == Class::filtered)
			counters[C_FILTERED]++;
		if (kind == Class::too_short)
			counters[C_TOO_SHORT]++;
	}

	// Where learning `mac` would go in the current table: {index or -1, new entry}.
	std::pair<int, bool> learn_target(Mac mac) const
	{
		int e = find(mac);
		if (e >= 0)
			return {table[e].is_static ? -1 : e, false};
		for (unsigned i = 0; i < kTableSize; i++)
			if (!table[i].valid)
				return {(int)i, true};
		int victim = -1;
		for (unsigned i = 0; i < kTableSize; i++) {
			if (table[i].is_static)
				continue;
			if (victim < 0 || table[i].age > table[victim].age)
				victim = (int)i;
		}
		return {victim, victim >= 0};
	}

	// One clock edge. Software write first, then learning, then ageing of the entries neither
	// wrote; the decisions use the table before the edge. Clears come before this clock's
	// increments.
	void clock(const SoftwareWrite &w, const LearnRequest &l, const bool clear[C_N])
	{
		bool tick = tick_now();
		tick_counter = tick ? 0 : tick_counter + 1;

		Entry next[kTableSize];
		bool written[kTableSize] = {};
		std::copy(table, table + kTableSize, next);
		uint64_t learned = 0, aged_out = 0;

		int target = -1;
		bool insert = false;
		if (l.active && !(w.active && w.valid && w.mac == l.mac))
			std::tie(target, insert) = learn_target(l.mac);
		if (l.active && w.active)
			learn_write_same_clock++;
		if (insert && table[target].valid) {
			replacements++;
			for (unsigned i = 0; i < kTableSize; i++) {
				if ((int)i != target && table[i].valid && !table[i].is_static &&
				    table[i].age == table[target].age) {
					tied_replacements++;
					break;
				}
			}
		}
		if (w.active && w.index < kTableSize) {
			next[w.index] = Entry{w.valid, w.is_static, w.mac, w.port, 0};
			written[w.index] = true;
		}
		if (target >= 0 && !(w.active && w.index == (unsigned)target)) {
			next[target] = Entry{true, false, l.mac, l.port, 0};
			written[target] = true;
			if (insert) {
				learned++;
				inserts++;
			}
		}
		if (tick) {
			for (unsigned i = 0; i < kTableSize; i++) {
				if (written[i] || !table[i].valid || table[i].is_static)
					continue;
				uint64_t age = std::min(table[i].age + 1, kAgeMax);
				if (ageing_time != 0 && age > ageing_time) {
					next[i].valid = false;
					aged_out++;
					removals++;
				} else {
					next[i].age = age;
				}
			}
		}
		std::copy(next, next + kTableSize, table);
		for (unsigned c = 0; c < C_N; c++)
			if (clear[c])
				counters[c] = 0;
		counters[C_LEARNED] += learned;
		counters[C_AGED_OUT] += aged_out;
	}
};

// ---------------------------------------------------------------------------------------------
// The bench: DUT and model in lock step.

struct OutFrame {
	std::vector<uint8_t> bytes;
	unsigned tuser;
	uint64_t first_cycle; // clock its first word was first presented
};

class Bench {
public:
	explicit Bench(uint64_t seed = 1) : random_(seed)
	{
		context_ = std::make_unique<VerilatedContext>();
		dut_ = std::make_unique<Vswitch_output_port_lookup>(context_.get());
		reset_dut();
	}

	~Bench() { dut_->final(); }
	Bench(const Bench &) = delete;
	Bench &operator=(const Bench &) = delete;

	// ---- stimulus controls ----
	// Probability that the input idles in a clock where it could present a word (within and
	// between frames), and that m_axis_tready is high.
	double input_idle = 0.0;
	double ready_probability = 1.0;
	// When set, decides m_axis_tready for each clock (overrides ready_probability).
	std::function<bool(uint64_t)> ready_pattern;
	uint8_t read_index = 0;
	// Called at the start of every clock (the random test drives its stimulus from here).
	std::function<void(Bench &)> on_clock;

	void send(const Frame &f) { pending_.push_back(f); }
	size_t pending() const { return pending_.size() + (presenting_frame_ ? 1 : 0); }

	// Software write in the next clock.
	void write_entry(unsigned index, Mac mac, unsigned port, bool valid, bool is_static)
	{
		write_ = SoftwareWrite{true, index, mac, port, valid, is_static};
	}
	void clear_counter(CounterId c) { clear_[c] = true; }
	void set_ageing_time(uint64_t ticks)
	{
		ageing_time_ = ticks;
		model.ageing_time = ticks;
	}

	// ---- running ----
	void step();
	void run(uint64_t cycles)
	{
		for (uint64_t i = 0; i < cycles && ok(); i++)
			step();
	}
	// Runs until every frame sent has left the block.
	void drain(uint64_t max_cycles = 200000)
	{
		for (uint64_t i = 0; i < max_cycles && ok(); i++) {
			if (pending() == 0 && words_in_flight_ == 0)
				return;
			step();
		}
		fail("did not drain in %" PRIu64 " clocks", max_cycles);
	}
	// Runs until the clock before a tick: the next step() is a tick clock.
	void run_to_tick()
	{
		while (ok() && !model.tick_now())
			step();
	}
	// The read port, through the RTL: table_index in one clock, the answer after its edge.
	Entry read(unsigned index)
	{
		read_index = (uint8_t)index;
		step();
		const Vswitch_output_port_lookup &d = *dut_;
		return Entry{(bool)d.table_read_valid, (bool)d.table_read_static, d.table_read_mac,
			     d.table_read_port, d.table_read_age};
	}

	// ---- observation ----
	Model model;
	std::vector<OutFrame> out_frames;
	std::vector<Decision> decisions;          // per frame in input order, as the model decided
	std::vector<uint64_t> first_word_latency; // per frame: first-word in -> out clocks
	uint64_t cycle() const { return cycle_; }
	uint64_t counter(CounterId c) const
	{
		const Vswitch_output_port_lookup &d = *dut_;
		switch (c) {
		case C_LOOKED_UP: return d.status_frames_looked_up;
		case C_FLOODED: return d.status_frames_flooded;
		case C_FILTERED: return d.status_frames_filtered;
		case C_TOO_SHORT: return d.status_frames_too_short;
		case C_LEARNED: return d.status_entries_learned;
		default: return d.status_entries_aged_out;
		}
	}
	uint64_t output_valid_clocks = 0; // clocks with m_axis_tvalid, since reset
	Vswitch_output_port_lookup &dut() { return *dut_; }

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

private:
	struct ExpectedFrame {
		Frame frame;
		std::vector<Word> words;
		bool decided = false;
		Decision decision{0, Class::flooded};
		std::vector<uint64_t> in_cycles; // handshake clock of each word
	};

	void reset_dut()
	{
		Vswitch_output_port_lookup &d = *dut_;
		d.rst = 1;
		d.clk = 0;
		d.s_axis_tvalid = 0;
		d.m_axis_tready = 0;
		d.table_write = 0;
		for (int i = 0; i < 4; i++) {
			d.clk = 1;
			d.eval();
			d.clk = 0;
			d.eval();
		}
		d.rst = 0;
		d.eval();
	}

	bool random_chance(double p)
	{
		if (p <= 0.0)
			return false;
		if (p >= 1.0)
			return true;
		return std::uniform_real_distribution<double>(0.0, 1.0)(random_) < p;
	}

	void check_outputs();

	std::unique_ptr<VerilatedContext> context_;
	std::unique_ptr<Vswitch_output_port_lookup> dut_;
	std::mt19937_64 random_;
	std::string failure_;
	uint64_t cycle_ = 0;

	// input side
	std::deque<Frame> pending_;
	bool presenting_frame_ = false;
	Frame current_;
	std::vector<Word> current_words_;
	size_t current_word_ = 0;
	bool tvalid_held_ = false; // tvalid was high without a handshake: keep it

	// per-clock one-shot controls
	SoftwareWrite write_;
	bool clear_[C_N] = {};
	uint64_t ageing_time_ = 0;

	// model scheduling: lookup and learning in the clock after the handshakes
	int lookup_next_ = -1; // expected-frame index whose lookup is in the next clock
	LearnRequest learn_next_;

	// output side
	std::vector<ExpectedFrame> expected_;
	size_t out_frame_ = 0, out_word_ = 0; // next expected output word
	bool out_presented_ = false;          // the current m_axis word was already seen
	bool prev_stalled_ = false;
	uint64_t prev_data_ = 0;
	unsigned prev_keep_ = 0, prev_last_ = 0, prev_user_ = 0;
	Entry read_expected_;
	bool read_expected_valid_ = false;
	bool read_expected_in_range_ = false;
	uint64_t words_in_flight_ = 0;
};

void Bench::step()
{
	if (on_clock)
		on_clock(*this);
	Vswitch_output_port_lookup &d = *dut_;

	// Input stream: present the next word unless idling; never drop tvalid before the
	// handshake.
	if (!presenting_frame_ && !pending_.empty()) {
		current_ = pending_.front();
		pending_.pop_front();
		current_words_ = words_of(current_.bytes);
		current_word_ = 0;
		presenting_frame_ = true;
	}
	bool present = presenting_frame_ && (tvalid_held_ || !random_chance(input_idle));
	if (present) {
		const Word &w = current_words_[current_word_];
		d.s_axis_tvalid = 1;
		d.s_axis_tdata = w.data;
		d.s_axis_tkeep = w.keep;
		d.s_axis_tlast = w.last;
		d.s_axis_tuser = current_.source;
	} else {
		d.s_axis_tvalid = 0;
		d.s_axis_tdata = random_();
		d.s_axis_tkeep = (uint8_t)random_();
		d.s_axis_tlast = random_() & 1;
		d.s_axis_tuser = random_() & 7;
	}
	d.m_axis_tready = ready_pattern ? ready_pattern(cycle_) : random_chance(ready_probability);
	d.table_write = write_.active;
	d.table_index = write_.active ? (uint8_t)write_.index : read_index;
	d.table_mac = write_.active ? write_.mac : (random_() & 0xffffffffffffULL);
	d.table_port = write_.active ? write_.port : (random_() & 7);
	d.table_valid = write_.active ? write_.valid : (random_() & 1);
	d.table_static = write_.active ? write_.is_static : (random_() & 1);
	d.config_ageing_time = (uint32_t)ageing_time_;
	d.command_clear_frames_looked_up = clear_[C_LOOKED_UP];
	d.command_clear_frames_flooded = clear_[C_FLOODED];
	d.command_clear_frames_filtered = clear_[C_FILTERED];
	d.command_clear_frames_too_short = clear_[C_TOO_SHORT];
	d.command_clear_entries_learned = clear_[C_LEARNED];
	d.command_clear_entries_aged_out = clear_[C_AGED_OUT];
	d.clk = 0;
	d.eval();

	check_outputs();

	// Model, this clock: read snapshot, lookup, then the edge.
	unsigned index = d.table_index;
	read_expected_in_range_ = index < kTableSize;
	read_expected_ = read_expected_in_range_ ? model.table[index] : Entry{};
	read_expected_valid_ = true;
	if (lookup_next_ >= 0) {
		ExpectedFrame &e = expected_[lookup_next_];
		e.decision = model.decide(e.frame);
		e.decided = true;
		decisions.push_back(e.decision);
		lookup_next_ = -1;
	}
	LearnRequest learn = learn_next_;
	learn_next_ = LearnRequest{};
	model.clock(write_, learn, clear_);

	// Handshakes of this clock schedule the next clock's lookup and learning.
	if (d.s_axis_tvalid && d.s_axis_tready) {
		if (current_word_ == 0) {
			expected_.push_back(
				ExpectedFrame{current_, current_words_, false, {0, Class::flooded}, {}});
			lookup_next_ = (int)expected_.size() - 1;
		}
		expected_.back().in_cycles.push_back(cycle_);
		words_in_flight_++;
		if (current_word_ == 1 && Model::learns_from(current_))
			learn_next_ = LearnRequest{true, mac_at(current_.bytes, 6), current_.source};
		current_word_++;
		tvalid_held_ = false;
		if (current_word_ == current_words_.size())
			presenting_frame_ = false;
	} else if (d.s_axis_tvalid) {
		tvalid_held_ = true;
	}

	// Output stall bookkeeping for the AXI check
	prev_stalled_ = d.m_axis_tvalid && !d.m_axis_tready;
	prev_data_ = d.m_axis_tdata;
	prev_keep_ = d.m_axis_tkeep;
	prev_last_ = d.m_axis_tlast;
	prev_user_ = d.m_axis_tuser;
	if (d.m_axis_tvalid && d.m_axis_tready) {
		out_presented_ = false;
		words_in_flight_--;
		if (++out_word_ == expected_[out_frame_].words.size()) {
			out_frame_++;
			out_word_ = 0;
		}
	}

	write_ = SoftwareWrite{};
	std::fill(clear_, clear_ + C_N, false);

	// Rising edge; the falling edge goes with the next clock's inputs (one eval fewer). The
	// registered outputs are up to date after this eval.
	d.clk = 1;
	d.eval();
	cycle_++;
}

void Bench::check_outputs()
{
	const Vswitch_output_port_lookup &d = *dut_;
	if (!ok())
		return;

	if (d.m_axis_tready && !d.s_axis_tready)
		fail("s_axis_tready low while m_axis_tready is high (a frame stalled for a lookup)");

	if (prev_stalled_ && (!d.m_axis_tvalid || d.m_axis_tdata != prev_data_ ||
			      d.m_axis_tkeep != prev_keep_ || d.m_axis_tlast != prev_last_ ||
			      d.m_axis_tuser != prev_user_))
		fail("m_axis changed while stalled (tvalid and not tready in the previous clock)");

	if (d.m_axis_tvalid) {
		output_valid_clocks++;
		if (out_frame_ >= expected_.size()) {
			fail("m_axis_tvalid with no frame expected");
			return;
		}
		ExpectedFrame &e = expected_[out_frame_];
		if (!e.decided) {
			fail("frame %zu on m_axis before its lookup clock", out_frame_);
			return;
		}
		const std::vector<Word> &words = e.words;
		if (out_word_ >= e.in_cycles.size()) {
			fail("frame %zu word %zu on m_axis before it was accepted", out_frame_, out_word_);
			return;
		}
		const Word &w = words[out_word_];
		unsigned tuser = e.frame.source << 8 | e.decision.mask;
		if (!g_model_checks)
			tuser = d.m_axis_tuser;
		if (d.m_axis_tdata != w.data || d.m_axis_tkeep != w.keep || d.m_axis_tlast != w.last ||
		    d.m_axis_tuser != tuser) {
			fail("frame %zu word %zu: rtl data %016" PRIx64 " keep %02x last %d tuser %03x,"
			     " expected %016" PRIx64 " keep %02x last %d tuser %03x",
			     out_frame_, out_word_, (uint64_t)d.m_axis_tdata, d.m_axis_tkeep,
			     d.m_axis_tlast, d.m_axis_tuser, w.data, w.keep, w.last, tuser);
			return;
		}
		if (!out_presented_) {
			out_presented_ = true;
			uint64_t latency = cycle_ - e.in_cycles[out_word_];
			if (latency < kLatency)
				fail("frame %zu word %zu out %" PRIu64 " clocks after it came in", out_frame_,
				     out_word_, latency);
			if (out_word_ == 0) {
				first_word_latency.push_back(latency);
				out_frames.push_back(OutFrame{{}, d.m_axis_tuser, cycle_});
			}
			// Counted at the edge that put the first word on m_axis
			if (out_word_ == 0)
				model.count_frame(e.decision.kind);
			OutFrame &o = out_frames.back();
			for (unsigned k = 0; k < 8; k++)
				if (w.keep >> k & 1)
					o.bytes.push_back((uint8_t)(w.data >> (8 * k)));
		}
	}

	if (!g_model_checks)
		return;
	if (read_expected_valid_) {
		const Entry &x = read_expected_;
		bool match;
		if (!read_expected_in_range_)
			match = !d.table_read_valid && !d.table_read_static && d.table_read_mac == 0 &&
				d.table_read_port == 0 && d.table_read_age == 0;
		else if (!x.valid)
			match = !d.table_read_valid;
		else
			match = d.table_read_valid && d.table_read_static == x.is_static &&
				d.table_read_mac == x.mac && d.table_read_port == x.port &&
				d.table_read_age == x.age;
		if (!match)
			fail("read port: rtl valid %d static %d mac %012" PRIx64 " port %u age %u,"
			     " model valid %d static %d mac %012" PRIx64 " port %u age %" PRIu64,
			     d.table_read_valid, d.table_read_static, (uint64_t)d.table_read_mac,
			     d.table_read_port, (unsigned)d.table_read_age, x.valid, x.is_static, x.mac,
			     x.port, x.age);
	}

	for (unsigned c = 0; c < C_N; c++)
		if (counter((CounterId)c) != model.counters[c]) {
			fail("counter %s: rtl %" PRIu64 " model %" PRIu64, kCounterNames[c],
			     counter((CounterId)c), model.counters[c]);
			break;
		}
}

// ---------------------------------------------------------------------------------------------
// Helpers for directed tests

using tap::Result; // empty = pass, "SKIP reason" = skipped, otherwise the failure

#define EXPECT(cond, ...)                                                                  \
	do {                                                                               \
		if (!b.ok())                                                               \
			return b.failure();                                                \
		if (!(cond)) {                                                             \
			char message_[400];                                                \
			snprintf(message_, sizeof(message_), __VA_ARGS__);                 \
			return std::string(message_) + " (clock " + std::to_string(b.cycle()) + ")"; \
		}                                                                          \
	} while (0)

uint8_t flood_of(unsigned source) { return (uint8_t)(0xff & ~(1u << source)); }
unsigned mask_of(const OutFrame &f) { return f.tuser & 0xff; }
unsigned source_of(const OutFrame &f) { return f.tuser >> 8; }

// Sends one frame and drains, returning its output.
OutFrame send_one(Bench &b, const Frame &f)
{
	size_t before = b.out_frames.size();
	b.send(f);
	b.drain();
	if (b.out_frames.size() != before + 1) {
		b.fail("expected one frame out");
		return OutFrame{};
	}
	return b.out_frames.back();
}

// Learns stations by sending one frame from each (to broadcast), back to back, then drains.
void learn_stations(Bench &b, const std::vector<std::pair<Mac, unsigned>> &stations,
		    size_t length = 60)
{
	uint32_t tag = 0x1000;
	for (const auto &s : stations)
		b.send(make_frame(kBroadcast, s.first, s.second, length, tag++));
	b.drain();
}

// Steps through the next tick clock; what follows is learned early in a tick interval.
void pass_tick(Bench &b)
{
	b.run_to_tick();
	b.step();
}

// ---------------------------------------------------------------------------------------------
// Tests

// Unknown and group destinations flood; learned ones go to their port; mask and source on
// every word; frame bytes unchanged.
Result test_forwarding()
{
	Bench b;
	OutFrame o = send_one(b, make_frame(station(1), station(2), 3, 100, 1));
	EXPECT(mask_of(o) == flood_of(3) && source_of(o) == 3, "unknown DA: tuser %03x", o.tuser);
	o = send_one(b, make_frame(kBroadcast, station(3), 5, 64, 2));
	EXPECT(mask_of(o) == flood_of(5), "broadcast: mask %02x", mask_of(o));
	o = send_one(b, make_frame(0x01005e000001ULL, station(4), 0, 64, 3));
	EXPECT(mask_of(o) == flood_of(0), "multicast: mask %02x", mask_of(o));
	// station 2 was learned on port 3 from the first frame
	o = send_one(b, make_frame(station(2), station(5), 6, 200, 4));
	EXPECT(mask_of(o) == 0x08 && source_of(o) == 6, "learned DA: tuser %03x", o.tuser);
	EXPECT(o.bytes == make_frame(station(2), station(5), 6, 200, 4).bytes, "bytes changed");
	o = send_one(b, make_frame(station(5), station(2), 3, 1514, 5));
	EXPECT(mask_of(o) == 0x40, "learned DA: mask %02x", mask_of(o));
	EXPECT(b.counter(C_LOOKED_UP) == 5 && b.counter(C_FLOODED) == 3, "counters %" PRIu64 " %" PRIu64,
	       b.counter(C_LOOKED_UP), b.counter(C_FLOODED));
	// A group address floods even when software put it in the table
	b.write_entry(9, 0x01005e000001ULL, 2, true, true);
	b.step();
	o = send_one(b, make_frame(0x01005e000001ULL, station(4), 0, 64, 6));
	EXPECT(mask_of(o) == flood_of(0), "group address in the table: mask %02x", mask_of(o));
	return b.failure();
}

// Back-to-back 60-byte frames from rotating sources at full rate: one word per clock, fixed
// latency, and each frame's DA is the previous frame's SA, learned just in time.
Result test_line_rate()
{
	Bench b;
	const unsigned frames = 400;
	for (unsigned n = 0; n < frames; n++) {
		unsigned source = n % kPorts;
		// station 1000+n on port `source`; sends to the previous station
		Mac destination = n == 0 ? station(999) : station(1000 + n - 1);
		b.send(make_frame(destination, station(1000 + n), source, 60, n));
	}
	b.step(); // the first word goes in during this clock
	uint64_t start = b.cycle();
	b.drain();
	EXPECT(b.out_frames.size() == frames, "frames out %zu", b.out_frames.size());
	EXPECT(b.output_valid_clocks == frames * 8, "m_axis_tvalid in %" PRIu64 " clocks, want %u",
	       b.output_valid_clocks, frames * 8);
	for (unsigned n = 0; n < frames; n++) {
		EXPECT(b.first_word_latency[n] == kLatency, "frame %u latency %" PRIu64, n,
		       b.first_word_latency[n]);
		EXPECT(b.out_frames[n].first_cycle == start - 1 + kLatency + 8 * n,
		       "frame %u first word at clock %" PRIu64, n, b.out_frames[n].first_cycle);
		unsigned want = n == 0 ? flood_of(0) : 1u << ((n - 1) % kPorts);
		EXPECT(mask_of(b.out_frames[n]) == want, "frame %u mask %02x want %02x", n,
		       mask_of(b.out_frames[n]), want);
	}
	return b.failure();
}

// Frames shorter than the minimum, back to back: 2-word frames whose DA is the previous SA
// (learning still in time), frames of 6..11 bytes (forwarded on their DA, not learned),
// frames under 6 bytes (mask 0, too short); the stream stays intact.
Result test_short_frames()
{
	Bench b;
	std::vector<unsigned> expect;
	uint32_t tag = 0;
	for (unsigned n = 0; n < 64; n++) {
		unsigned source = n % kPorts;
		Mac destination = n == 0 ? station(999) : station(2000 + n - 1);
		b.send(make_frame(destination, station(2000 + n), source, 12 + n % 5, tag++));
		expect.push_back(n == 0 ? flood_of(0) : 1u << ((n - 1) % kPorts));
	}
	// 6..11 bytes to station 2063 (the last learned, port 7): forwarded; SA not learned
	for (unsigned length = 6; length < 12; length++) {
		b.send(make_frame(station(2063), station(3000 + length), 4, length, tag++));
		expect.push_back(0x80);
	}
	// under 6 bytes: dropped (mask 0)
	for (unsigned length = 1; length < 6; length++) {
		b.send(make_frame(station(2063), station(3100), 2, length, tag++));
		expect.push_back(0x00);
	}
	// nothing was learned from the 6..11-byte frames: frames to them flood
	for (unsigned length = 6; length < 12; length++) {
		b.send(make_frame(station(3000 + length), station(2001), 1, 60, tag++));
		expect.push_back(flood_of(1));
	}
	b.drain();
	EXPECT(b.out_frames.size() == expect.size(), "frames out %zu", b.out_frames.size());
	for (size_t n = 0; n < expect.size(); n++)
		EXPECT(mask_of(b.out_frames[n]) == expect[n], "frame %zu mask %02x want %02x", n,
		       mask_of(b.out_frames[n]), expect[n]);
	EXPECT(b.counter(C_TOO_SHORT) == 5, "too_short %" PRIu64, b.counter(C_TOO_SHORT));
	EXPECT(b.counter(C_LOOKED_UP) == expect.size() - 5, "looked_up %" PRIu64,
	       b.counter(C_LOOKED_UP));
	return b.failure();
}

// A station moves: its entry follows it, without a new entry.
Result test_station_moves()
{
	Bench b;
	learn_stations(b, {{station(7), 1}});
	OutFrame o = send_one(b, make_frame(station(7), station(8), 4, 60, 1));
	EXPECT(mask_of(o) == 0x02, "before move: mask %02x", mask_of(o));
	learn_stations(b, {{station(7), 6}});
	o = send_one(b, make_frame(station(7), station(8), 4, 60, 2));
	EXPECT(mask_of(o) == 0x40, "after move: mask %02x", mask_of(o));
	EXPECT(b.counter(C_LEARNED) == 2, "learned %" PRIu64 " (station 7 once, station 8 once)",
	       b.counter(C_LEARNED));
	unsigned found = 0;
	for (unsigned i = 0; i < kTableSize; i++) {
		Entry e = b.read(i);
		if (e.valid && e.mac == station(7)) {
			found++;
			EXPECT(e.port == 6 && !e.is_static, "entry %u port %u", i, e.port);
		}
	}
	EXPECT(found == 1, "station 7 in %u entries", found);
	return b.failure();
}

// Destination port == source port: mask 0, counted as filtered.
Result test_filtering()
{
	Bench b;
	learn_stations(b, {{station(1), 2}, {station(2), 2}});
	OutFrame o = send_one(b, make_frame(station(1), station(2), 2, 60, 1));
	EXPECT(mask_of(o) == 0 && source_of(o) == 2, "same port: tuser %03x", o.tuser);
	o = send_one(b, make_frame(station(1), station(3), 5, 60, 2));
	EXPECT(mask_of(o) == 0x04, "other port: mask %02x", mask_of(o));
	EXPECT(b.counter(C_FILTERED) == 1, "filtered %" PRIu64, b.counter(C_FILTERED));
	return b.failure();
}

// Static entries: forwarding, never changed by learning, never replaced; a table of only
// static entries learns nothing.
Result test_static_entries()
{
	Bench b;
	b.write_entry(5, station(50), 6, true, true);
	b.step();
	Entry e = b.read(5);
	EXPECT(e.valid && e.is_static && e.mac == station(50) && e.port == 6 && e.age == 0,
	       "read back static entry");
	// station 50 talks from port 1: learning must leave the static entry alone
	learn_stations(b, {{station(50), 1}});
	e = b.read(5);
	EXPECT(e.port == 6 && e.is_static, "static entry changed: port %u", e.port);
	OutFrame o = send_one(b, make_frame(station(50), station(51), 3, 60, 1));
	EXPECT(mask_of(o) == 0x40, "to static: mask %02x", mask_of(o));
	for (unsigned i = 0; i < kTableSize; i++) {
		e = b.read(i);
		EXPECT(!(e.valid && e.mac == station(50) && i != 5), "station 50 learned into %u", i);
	}
	// static entries survive ageing and a full table
	b.set_ageing_time(1);
	b.run(4 * kAgeTickCycles);
	e = b.read(5);
	EXPECT(e.valid && e.age == 0, "static entry aged");
	for (unsigned i = 0; i < kTableSize; i++) {
		if (i != 5) {
			b.write_entry(i, station(100 + i), i % kPorts, true, false);
			b.step();
		}
	}
	b.set_ageing_time(0);
	learn_stations(b, {{station(60), 2}, {station(61), 3}, {station(62), 4}});
	e = b.read(5);
	EXPECT(e.valid && e.mac == station(50), "static entry replaced");
	// all static: nothing learned
	for (unsigned i = 0; i < kTableSize; i++) {
		b.write_entry(i, station(200 + i), i % kPorts, true, true);
		b.step();
	}
	uint64_t learned = b.counter(C_LEARNED);
	learn_stations(b, {{station(70), 2}});
	EXPECT(b.counter(C_LEARNED) == learned, "learned into an all-static table");
	o = send_one(b, make_frame(station(70), station(201), 1, 60, 2));
	EXPECT(mask_of(o) == flood_of(1), "all static: mask %02x", mask_of(o));
	return b.failure();
}

// Full table: a new station takes the dynamic entry with the largest age, lowest index on a
// tie; the free entry comes first when there is one.
Result test_replacement()
{
	Bench b;
	b.set_ageing_time(0);
	// Fill the table: stations 300.. learned in groups of 4 within one tick interval, the
	// groups one tick apart, so that ages differ between groups and tie within
	for (unsigned i = 0; i < kTableSize; i += 4) {
		pass_tick(b);
		std::vector<std::pair<Mac, unsigned>> group;
		for (unsigned k = i; k < i + 4 && k < kTableSize; k++)
			group.push_back({station(300 + k), k % kPorts});
		learn_stations(b, group, 12);
	}
	pass_tick(b);
	// Entries 0..3 have the largest age (learned in the same tick interval): lowest index
	uint64_t learned = b.counter(C_LEARNED);
	EXPECT(learned == kTableSize, "learned %" PRIu64, learned);
	learn_stations(b, {{station(400), 1}});
	Entry e = b.read(0);
	EXPECT(e.valid && e.mac == station(400) && e.age == 0, "replaced entry 0: mac %012" PRIx64,
	       e.mac);
	learn_stations(b, {{station(401), 1}});
	e = b.read(1);
	EXPECT(e.mac == station(401), "then entry 1: mac %012" PRIx64, e.mac);
	// Refresh station 302 (entry 2): now 303 (entry 3) is the oldest
	learn_stations(b, {{station(302), 5}});
	learn_stations(b, {{station(402), 1}});
	e = b.read(3);
	EXPECT(e.mac == station(402), "refresh kept entry 2; entry 3: mac %012" PRIx64, e.mac);
	e = b.read(2);
	EXPECT(e.mac == station(302) && e.port == 5, "entry 2: mac %012" PRIx64, e.mac);
	// Free an entry by software: it is taken before any victim (entry 4 would be next)
	const unsigned freed = kTableSize / 2 + 1;
	b.write_entry(freed, 0, 0, false, false);
	b.step();
	learn_stations(b, {{station(403), 2}});
	e = b.read(freed);
	EXPECT(e.valid && e.mac == station(403), "free entry %u not taken: mac %012" PRIx64, freed,
	       e.mac);
	e = b.read(4);
	EXPECT(e.mac == station(304), "entry 4 replaced although %u was free", freed);
	return b.failure();
}

// Ageing: ages count ticks of exactly AGE_TICK_CYCLES clocks; an entry older than the ageing
// time goes at the tick that makes it so, and is counted; 0 = never; traffic refreshes.
Result test_ageing()
{
	Bench b;
	const uint64_t ageing_time = 3;
	b.set_ageing_time(ageing_time);
	b.read_index = 0;
	pass_tick(b);
	learn_stations(b, {{station(1), 1}});
	// Watch the age of entry 0 through the read port: +1 exactly every AGE_TICK_CYCLES
	std::vector<uint64_t> change_clocks;
	uint64_t last_age = 0;
	bool removed_seen = false;
	uint64_t removed_at = 0;
	for (uint64_t i = 0; i < (ageing_time + 3) * kAgeTickCycles && b.ok(); i++) {
		b.step();
		const Vswitch_output_port_lookup &d = b.dut();
		if (!d.table_read_valid && !removed_seen) {
			removed_seen = true;
			removed_at = b.cycle();
		}
		if (d.table_read_valid && d.table_read_age != last_age) {
			change_clocks.push_back(b.cycle());
			last_age = d.table_read_age;
		}
	}
	EXPECT(change_clocks.size() == ageing_time, "age changed %zu times", change_clocks.size());
	for (size_t k = 1; k < change_clocks.size(); k++)
		EXPECT(change_clocks[k] - change_clocks[k - 1] == kAgeTickCycles,
		       "tick period %" PRIu64 " clocks, built for %" PRIu64
		       " (are -GAGE_TICK_CYCLES and -DAGE_TICK_CYCLES the same?)",
		       change_clocks[k] - change_clocks[k - 1], kAgeTickCycles);
	EXPECT(removed_seen && removed_at - change_clocks.back() == kAgeTickCycles,
	       "removal %" PRIu64 " clocks after the last age change", removed_at - change_clocks.back());
	EXPECT(b.counter(C_AGED_OUT) == 1, "aged_out %" PRIu64, b.counter(C_AGED_OUT));
	OutFrame o = send_one(b, make_frame(station(1), station(2), 4, 60, 1));
	EXPECT(mask_of(o) == flood_of(4), "aged-out station not flooded: mask %02x", mask_of(o));

	// Refresh: a station that keeps talking stays
	for (unsigned k = 0; k < 8; k++) {
		learn_stations(b, {{station(2), 4}});
		b.run(kAgeTickCycles);
	}
	o = send_one(b, make_frame(station(2), station(3), 0, 60, 2));
	EXPECT(mask_of(o) == 0x10, "refreshed station lost: mask %02x", mask_of(o));

	// 0 = never
	b.set_ageing_time(0);
	b.run(10 * kAgeTickCycles);
	o = send_one(b, make_frame(station(3), station(2), 4, 60, 3));
	EXPECT(mask_of(o) == 0x01, "ageing time 0 removed an entry: mask %02x", mask_of(o));
	EXPECT(b.counter(C_AGED_OUT) == 1, "aged_out %" PRIu64, b.counter(C_AGED_OUT));
	// Lowering the ageing time removes older entries at the next tick: station 3 (10 ticks),
	// not station 2 (just refreshed)
	b.set_ageing_time(2);
	pass_tick(b);
	EXPECT(b.counter(C_AGED_OUT) == 2, "aged_out %" PRIu64 " after lowering", b.counter(C_AGED_OUT));
	o = send_one(b, make_frame(station(2), station(4), 0, 60, 4));
	EXPECT(mask_of(o) == 0x10, "young station removed: mask %02x", mask_of(o));
	return b.failure();
}

// Ages saturate at 2^AGE_WIDTH - 1, and saturated entries tie: the lowest index goes first,
// also for an entry that reached the maximum after the others.
Result test_age_saturation()
{
	// About 2 (2^AGE_WIDTH) ticks; too long for the default AGE_WIDTH of 16
	if ((kAgeMax + 1) * kAgeTickCycles > 4000000)
		return "SKIP needs (2^AGE_WIDTH) * AGE_TICK_CYCLES <= 4000000 (build with -GAGE_WIDTH=8"
		       " -DAGE_WIDTH=8)";
	Bench b;
	b.set_ageing_time(0);
	for (unsigned i = 0; i < kTableSize; i++)
		learn_stations(b, {{station(500 + i), i % kPorts}});
	for (uint64_t t = 0; t < kAgeMax + 2; t++)
		pass_tick(b);
	Entry e = b.read(kTableSize - 1);
	EXPECT(e.valid && e.age == kAgeMax, "age %" PRIu64 " want saturated %" PRIu64, e.age, kAgeMax);
	// Entry 0 restarts, and reaches the maximum one tick after the others are there
	pass_tick(b);
	learn_stations(b, {{station(500), 3}});
	for (uint64_t t = 0; t < kAgeMax - 1; t++)
		pass_tick(b);
	e = b.read(0);
	EXPECT(e.age == kAgeMax - 1, "entry 0 age %" PRIu64, e.age);
	pass_tick(b);
	e = b.read(0);
	EXPECT(e.age == kAgeMax, "entry 0 age %" PRIu64, e.age);
	learn_stations(b, {{station(600), 1}}, 12);
	e = b.read(0);
	EXPECT(e.mac == station(600), "tie among saturated ages: entry 0 not chosen, has %012" PRIx64,
	       e.mac);
	learn_stations(b, {{station(601), 1}}, 12);
	e = b.read(1);
	EXPECT(e.mac == station(601), "then entry 1 not chosen, has %012" PRIx64, e.mac);
	return b.failure();
}

// The table ports: write, read one clock later, out-of-range indexes, write/read same clock.
Result test_table_access()
{
	Bench b;
	for (unsigned i = 0; i < kTableSize; i++) {
		b.write_entry(i, 0x0a0000000000ULL + i * 0x010203ULL, (i * 3) % kPorts, i % 3 != 0,
			      i % 2 == 0);
		b.step();
	}
	for (unsigned i = 0; i < kTableSize; i++) {
		Entry e = b.read(i);
		EXPECT(e.valid == (i % 3 != 0), "entry %u valid %d", i, e.valid);
		if (e.valid)
			EXPECT(e.mac == 0x0a0000000000ULL + i * 0x010203ULL && e.port == (i * 3) % kPorts &&
				       e.is_static == (i % 2 == 0) && (e.age == 0 || !e.is_static),
			       "entry %u read back mac %012" PRIx64 " port %u", i, e.mac, e.port);
	}
	Entry e = b.read(kTableSize);
	EXPECT(!e.valid && e.mac == 0, "index beyond the table reads %012" PRIx64, e.mac);
	e = b.read(255);
	EXPECT(!e.valid, "index 255 valid");
	// Writes outside the table change nothing
	b.write_entry(kTableSize + 3, station(9), 1, true, false);
	b.step();
	for (unsigned i = 0; i < kTableSize; i++) {
		e = b.read(i);
		EXPECT(e.mac != station(9), "write to %u landed in %u", kTableSize + 3, i);
	}
	// Read latency: after the edge of the clock with table_index, the entry is out
	Vswitch_output_port_lookup &d = b.dut();
	b.read_index = 1;
	b.step();
	EXPECT(d.table_read_valid == 1 && d.table_read_mac == 0x0a0000000000ULL + 0x010203ULL,
	       "read of index 1, one clock later");
	// A written entry is read back as written; the clock of the write shows the old content
	b.write_entry(2, station(77), 7, true, false);
	b.step();
	EXPECT(d.table_read_mac == 0x0a0000000000ULL + 2 * 0x010203ULL, "read during write");
	b.read_index = 2;
	b.step();
	EXPECT(d.table_read_mac == station(77) && d.table_read_port == 7, "read after write");
	// Forwarding follows a software entry, and an entry deleted by software is gone
	OutFrame o = send_one(b, make_frame(station(77), station(78), 0, 60, 1));
	EXPECT(mask_of(o) == 0x80, "to software entry: mask %02x", mask_of(o));
	b.write_entry(2, station(77), 7, false, false);
	b.step();
	o = send_one(b, make_frame(station(77), station(78), 0, 60, 2));
	EXPECT(mask_of(o) == flood_of(0), "deleted entry still used: mask %02x", mask_of(o));
	return b.failure();
}

// A software write in the clock of a learning: the write wins its entry; a learning of the
// MAC being written is dropped.
Result test_write_learn_race()
{
	Bench b;
	// Find the learning clock: the clock after the second word's handshake. With the input
	// never idle and m_axis ready, word 1 of a frame sent now goes in at the second step.
	auto race = [&](Mac sa, unsigned port, const SoftwareWrite &w) {
		b.send(make_frame(kBroadcast, sa, port, 60, 9));
		b.step(); // word 0
		b.step(); // word 1
		b.write_entry(w.index, w.mac, w.port, w.valid, w.is_static);
		b.step(); // learning clock
		b.drain();
	};
	// Learning of station 10 would take free entry 0; software writes entry 0 meanwhile
	race(station(10), 1, SoftwareWrite{true, 0, station(11), 2, true, false});
	Entry e = b.read(0);
	EXPECT(e.mac == station(11) && e.port == 2, "write lost to learning: %012" PRIx64, e.mac);
	EXPECT(b.counter(C_LEARNED) == 0, "learned %" PRIu64, b.counter(C_LEARNED));
	// Software makes station 12 static in entry 5 while it is learned: no duplicate
	race(station(12), 3, SoftwareWrite{true, 5, station(12), 4, true, true});
	unsigned copies = 0;
	for (unsigned i = 0; i < kTableSize; i++) {
		e = b.read(i);
		copies += e.valid && e.mac == station(12);
	}
	EXPECT(copies == 1, "station 12 in %u entries", copies);
	// A write elsewhere does not disturb the learning
	race(station(13), 3, SoftwareWrite{true, 9, station(14), 4, true, false});
	e = b.read(1);
	EXPECT(e.valid && e.mac == station(13), "learning beside a write lost: %012" PRIx64, e.mac);
	return b.failure();
}

// Each counter counts its own events and is cleared by its own pulse, with the increment of
// the clearing clock kept.
Result test_counters()
{
	Bench b;
	learn_stations(b, {{station(1), 1}, {station(2), 2}});
	send_one(b, make_frame(station(1), station(2), 2, 60, 1)); // forwarded
	send_one(b, make_frame(station(1), station(3), 1, 60, 2)); // filtered
	send_one(b, make_frame(station(1), station(3), 1, 3, 3));  // too short
	b.set_ageing_time(1);
	b.run(3 * kAgeTickCycles);
	EXPECT(b.counter(C_LOOKED_UP) == 4 && b.counter(C_FLOODED) == 2 &&
		       b.counter(C_FILTERED) == 1 && b.counter(C_TOO_SHORT) == 1 &&
		       b.counter(C_LEARNED) == 3 && b.counter(C_AGED_OUT) == 3,
	       "counts %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
	       b.counter(C_LOOKED_UP), b.counter(C_FLOODED), b.counter(C_FILTERED),
	       b.counter(C_TOO_SHORT), b.counter(C_LEARNED), b.counter(C_AGED_OUT));
	for (unsigned c = 0; c < C_N; c++) {
		uint64_t before[C_N];
		for (unsigned k = 0; k < C_N; k++)
			before[k] = b.counter((CounterId)k);
		b.clear_counter((CounterId)c);
		b.step();
		for (unsigned k = 0; k < C_N; k++)
			EXPECT(b.counter((CounterId)k) == (k == c ? 0 : before[k]),
			       "clear of %s: %s = %" PRIu64, kCounterNames[c], kCounterNames[k],
			       b.counter((CounterId)k));
	}
	// Clear in the clock of an increment: the increment stays. The frame's first word reaches
	// m_axis at the edge of the clock kLatency-1 after its handshake.
	b.send(make_frame(station(9), station(4), 3, 60, 4));
	b.step(); // handshake of word 0
	b.run(kLatency - 2);
	b.clear_counter(C_LOOKED_UP);
	b.clear_counter(C_FLOODED);
	b.step();
	EXPECT(b.counter(C_LOOKED_UP) == 1 && b.counter(C_FLOODED) == 1,
	       "increment lost to the clear of the same clock: %" PRIu64, b.counter(C_LOOKED_UP));
	b.drain();
	return b.failure();
}

// Backpressure: random and long stalls of m_axis; nothing lost, duplicated or reordered, the
// output held while stalled (checked every clock), decisions unchanged. First a directed case:
// the output stalls right in the lookup clock of a frame and its destination's entry changes
// during the stall; the frame keeps the decision of its lookup clock.
Result test_backpressure()
{
	Bench b(7);
	// During the stall station 1 moves to port 5, or its entry is deleted
	for (bool deleted : {false, true}) {
		b.write_entry(0, station(1), 1, true, false);
		b.step();
		uint64_t c0 = b.cycle();
		b.ready_pattern = [c0](uint64_t c) { return c < c0 + 9 || c >= c0 + 20; };
		b.send(make_frame(kBroadcast, station(2), 3, 64, 1)); // words in at c0 .. c0+7
		b.send(make_frame(station(1), station(3), 4, 64, 2)); // first word in at c0+8
		b.run(10);
		EXPECT(b.cycle() == c0 + 10, "clock %" PRIu64, b.cycle());
		b.write_entry(0, station(1), 5, !deleted, false);
		b.drain();
		unsigned mask = mask_of(b.out_frames.back());
		EXPECT(mask == 0x02, "frame stalled in its lookup clock: mask %02x, want 02 (the table"
		       " of that clock; entry %s during the stall)", mask, deleted ? "deleted" : "moved");
		OutFrame o = send_one(b, make_frame(station(1), station(3), 4, 64, 3));
		EXPECT(mask_of(o) == (deleted ? flood_of(4) : 0x20), "after the stall: mask %02x",
		       mask_of(o));
	}
	b.ready_pattern = nullptr;
	const size_t directed_frames = b.out_frames.size();

	// Random traffic through stalls of many patterns; stations move and outnumber the entries
	b.input_idle = 0.2;
	const unsigned stations = kTableSize + 8;
	std::vector<unsigned> home(stations);
	for (auto &h : home)
		h = b.random()() % kPorts;
	for (unsigned phase = 0; phase < 4; phase++) {
		if (phase == 0) {
			b.ready_probability = 0.5;
		} else if (phase == 1) {
			b.ready_probability = 0.1;
		} else if (phase == 2) {
			b.ready_pattern = [](uint64_t c) { return (c / 37) % 3 == 0; };
		} else {
			b.ready_pattern = [](uint64_t c) { return c % 2 == 0; };
		}
		for (unsigned n = 0; n < 150; n++) {
			unsigned s = b.random()() % stations;
			if (b.random()() % 8 == 0)
				home[s] = b.random()() % kPorts;
			unsigned d = b.random()() % (stations + 4);
			b.send(make_frame(station(d), station(s), home[s], 1 + b.random()() % 300, n));
		}
		b.drain(2000000);
	}
	EXPECT(b.out_frames.size() == directed_frames + 600, "frames out %zu", b.out_frames.size());
	return b.failure();
}

uint64_t count_kind(const std::vector<Decision> &decisions, Class kind)
{
	return (uint64_t)std::count_if(decisions.begin(), decisions.end(),
				       [kind](const Decision &d) { return d.kind == kind; });
}

// Seeded random traffic, table writes, ageing, clears, backpressure; everything compared with
// the model every clock.
Result test_random(uint64_t seed, uint64_t cycles)
{
	Bench b(seed);
	std::mt19937_64 &r = b.random();
	const unsigned stations = kTableSize + kTableSize / 2;
	std::vector<unsigned> home(stations);
	for (auto &h : home)
		h = r() % kPorts;
	uint32_t tag = 0;
	uint64_t next_phase = 0;
	b.on_clock = [&](Bench &bench) {
		uint64_t c = bench.cycle();
		if (c >= next_phase) {
			next_phase = c + 2000 + r() % 20000;
			static const double idles[] = {0.0, 0.0, 0.05, 0.3, 0.7};
			static const double readies[] = {1.0, 1.0, 0.9, 0.5, 0.2};
			bench.input_idle = idles[r() % 5];
			bench.ready_probability = readies[r() % 5];
			static const uint64_t ageing[] = {0, 0, 1, 2, 5, 20, 100};
			uint64_t a = ageing[r() % 7];
			if (r() % 8 == 0)
				a = kAgeMax;
			bench.set_ageing_time(std::min(a, kAgeMax));
		}
		while (bench.pending() < 3) {
			unsigned s = r() % stations;
			if (r() % 64 == 0)
				home[s] = r() % kPorts; // the station moves
			Mac sa = station(s);
			unsigned roll = r() % 100;
			if (roll < 3)
				sa |= 0x010000000000ULL; // group SA: not learned
			else if (roll < 6)
				sa = 0x060000000000ULL | (r() & 0xffffff); // one-off station
			Mac da;
			roll = r() % 100;
			if (roll < 60)
				da = station(r() % stations);
			else if (roll < 75)
				da = kBroadcast;
			else if (roll < 85)
				da = 0x01005e000000ULL | (r() & 0x7fffff);
			else
				da = 0x040000000000ULL | (r() & 0xffffff); // unknown
			size_t length;
			roll = r() % 100;
			if (roll < 65)
				length = 60 + r() % 69;
			else if (roll < 80)
				length = 129 + r() % (1514 - 128);
			else if (roll < 93)
				length = 12 + r() % 48;
			else
				length = 1 + r() % 11;
			bench.send(make_frame(da, sa, home[s], length, tag++));
		}
		// read port: a random entry, now and then out of range
		bench.read_index = (uint8_t)(r() % 16 == 0 ? r() % 256 : r() % kTableSize);
		if (r() % 100 == 0) {
			unsigned index = r() % 40 == 0 ? kTableSize + r() % 8 : r() % kTableSize;
			bench.write_entry(index, station(r() % stations), r() % kPorts, r() % 5 != 0,
					  r() % 2 == 0);
		}
		if (r() % 3000 == 0)
			bench.clear_counter((CounterId)(r() % C_N));
	};
	b.run(cycles);
	b.on_clock = nullptr;
	b.drain(2000000);
	if (b.ok() && b.out_frames.size() < cycles / 200)
		b.fail("only %zu frames in %" PRIu64 " clocks", b.out_frames.size(), cycles);
	if (b.ok())
		printf("# random: %zu frames, learned %" PRIu64 " (%" PRIu64 " replacing, %" PRIu64
		       " of them among equal ages), aged out %" PRIu64 ", filtered %" PRIu64
		       ", too short %" PRIu64 ", learning and software write in one clock %" PRIu64 "\n",
		       b.out_frames.size(), b.model.inserts, b.model.replacements,
		       b.model.tied_replacements, b.model.removals,
		       count_kind(b.decisions, Class::filtered), count_kind(b.decisions, Class::too_short),
		       b.model.learn_write_same_clock);
	return b.failure();
}

} // namespace

int main(int argc, char **argv)
{
	bool directed_only = false;
	tap::Options options = tap::parse(argc, argv, 200000, {{"--directed-only", &directed_only}});
	g_model_checks = !directed_only;
	Verilated::commandArgs(argc, argv);

	std::vector<tap::Test> tests = {
		{"forwarding", test_forwarding},
		{"line_rate", test_line_rate},
		{"short_frames", test_short_frames},
		{"station_moves", test_station_moves},
		{"filtering", test_filtering},
		{"static_entries", test_static_entries},
		{"replacement", test_replacement},
		{"ageing", test_ageing},
		{"age_saturation", test_age_saturation},
		{"table_access", test_table_access},
		{"write_learn_race", test_write_learn_race},
		{"counters", test_counters},
		{"backpressure", test_backpressure},
	};
	for (uint64_t seed : tap::seeds(options, {1}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles, test_random));
	return tap::run(tests, options);
}
