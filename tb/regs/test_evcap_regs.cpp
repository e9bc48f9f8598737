// SPDX-License-Identifier: BSD-3-Clause
/*
 * Test of the generated event-capture register block, rtl/gen/evcap_regs.v (Verilator top
 * evcap_regs), through its AXI4-Lite port with tb/common/axil_master.h.
 *
 * Expected values come from the generated C header and register table
 * (sw/driver/include/pktstats/regs.h, sw/driver/src/regs_table.c), which the generator writes
 * from regmap/<block>.toml like the RTL: the test checks the RTL against the register map, not
 * against itself. Output is TAP; the exit status is 1 if any test fails.
 *
 *     test_evcap_regs [SEED]     SEED drives the randomized test (default 1; printed)
 */
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <verilated.h>

#include "Vevcap_regs.h"
#include "axil_master.h"
#include "pktstats/regs.h"

using Top = Vevcap_regs;
using Bus = axil::Master<Top>;

// ----------------------------------------------------------------------------------------
// What the register map says

// A read-write register: its reset value and implemented bits from regs.h, its value as the
// block's output ports show it.
struct RwReg {
	const char *name;
	uint32_t address; // absolute
	unsigned width;   // 32, 48, 64
	uint64_t reset;
	uint64_t mask;
	uint64_t (*port)(const Top &);
};

#define PORT(p, shift) [](const Top &t) { return static_cast<uint64_t>(t.p) << (shift); }

static const RwReg rw_regs[] = {
	{"evcap.control", PKTSTATS_EVCAP_CONTROL, 32, PKTSTATS_EVCAP_CONTROL_RESET,
	 PKTSTATS_EVCAP_CONTROL_ENABLE_MASK,
	 PORT(control_enable, PKTSTATS_EVCAP_CONTROL_ENABLE_SHIFT)},
	{"evcap.resolution", PKTSTATS_EVCAP_RESOLUTION, 32, PKTSTATS_EVCAP_RESOLUTION_RESET,
	 PKTSTATS_EVCAP_RESOLUTION_MASK, PORT(resolution, PKTSTATS_EVCAP_RESOLUTION_SHIFT)},
	{"evcap.queue_mask", PKTSTATS_EVCAP_QUEUE_MASK, 32, PKTSTATS_EVCAP_QUEUE_MASK_RESET,
	 PKTSTATS_EVCAP_QUEUE_MASK_MASK, PORT(queue_mask, PKTSTATS_EVCAP_QUEUE_MASK_SHIFT)},
	{"evcap.event_mask", PKTSTATS_EVCAP_EVENT_MASK, 32, PKTSTATS_EVCAP_EVENT_MASK_RESET,
	 PKTSTATS_EVCAP_EVENT_MASK_MASK, PORT(event_mask, PKTSTATS_EVCAP_EVENT_MASK_SHIFT)},
	{"evcap.output_ports", PKTSTATS_EVCAP_OUTPUT_PORTS, 32, PKTSTATS_EVCAP_OUTPUT_PORTS_RESET,
	 PKTSTATS_EVCAP_OUTPUT_PORTS_MASK,
	 PORT(output_ports, PKTSTATS_EVCAP_OUTPUT_PORTS_SHIFT)},
	{"evcap.destination_mac", PKTSTATS_EVCAP_DESTINATION_MAC, 48,
	 PKTSTATS_EVCAP_DESTINATION_MAC_RESET, PKTSTATS_EVCAP_DESTINATION_MAC_MASK,
	 PORT(destination_mac, PKTSTATS_EVCAP_DESTINATION_MAC_SHIFT)},
	{"evcap.source_mac", PKTSTATS_EVCAP_SOURCE_MAC, 48, PKTSTATS_EVCAP_SOURCE_MAC_RESET,
	 PKTSTATS_EVCAP_SOURCE_MAC_MASK, PORT(source_mac, PKTSTATS_EVCAP_SOURCE_MAC_SHIFT)},
	{"evcap.source_ip", PKTSTATS_EVCAP_SOURCE_IP, 32, PKTSTATS_EVCAP_SOURCE_IP_RESET,
	 PKTSTATS_EVCAP_SOURCE_IP_MASK, PORT(source_ip, PKTSTATS_EVCAP_SOURCE_IP_SHIFT)},
	{"evcap.destination_ip", PKTSTATS_EVCAP_DESTINATION_IP, 32,
	 PKTSTATS_EVCAP_DESTINATION_IP_RESET, PKTSTATS_EVCAP_DESTINATION_IP_MASK,
	 PORT(destination_ip, PKTSTATS_EVCAP_DESTINATION_IP_SHIFT)},
	{"evcap.tos", PKTSTATS_EVCAP_TOS, 32, PKTSTATS_EVCAP_TOS_RESET, PKTSTATS_EVCAP_TOS_MASK,
	 PORT(tos, PKTSTATS_EVCAP_TOS_SHIFT)},
	{"evcap.ttl", PKTSTATS_EVCAP_TTL, 32, PKTSTATS_EVCAP_TTL_RESET, PKTSTATS_EVCAP_TTL_MASK,
	 PORT(ttl, PKTSTATS_EVCAP_TTL_SHIFT)},
	{"evcap.udp_source_port", PKTSTATS_EVCAP_UDP_SOURCE_PORT, 32,
	 PKTSTATS_EVCAP_UDP_SOURCE_PORT_RESET, PKTSTATS_EVCAP_UDP_SOURCE_PORT_MASK,
	 PORT(udp_source_port, PKTSTATS_EVCAP_UDP_SOURCE_PORT_SHIFT)},
	{"evcap.udp_destination_port", PKTSTATS_EVCAP_UDP_DESTINATION_PORT, 32,
	 PKTSTATS_EVCAP_UDP_DESTINATION_PORT_RESET, PKTSTATS_EVCAP_UDP_DESTINATION_PORT_MASK,
	 PORT(udp_destination_port, PKTSTATS_EVCAP_UDP_DESTINATION_PORT_SHIFT)},
	{"evcap.max_length", PKTSTATS_EVCAP_MAX_LENGTH, 32, PKTSTATS_EVCAP_MAX_LENGTH_RESET,
	 PKTSTATS_EVCAP_MAX_LENGTH_MASK, PORT(max_length, PKTSTATS_EVCAP_MAX_LENGTH_SHIFT)},
	{"evcap.flush_timeout", PKTSTATS_EVCAP_FLUSH_TIMEOUT, 32,
	 PKTSTATS_EVCAP_FLUSH_TIMEOUT_RESET, PKTSTATS_EVCAP_FLUSH_TIMEOUT_MASK,
	 PORT(flush_timeout, PKTSTATS_EVCAP_FLUSH_TIMEOUT_SHIFT)},
	{"evcap.timer_preset", PKTSTATS_EVCAP_TIMER_PRESET, 64, PKTSTATS_EVCAP_TIMER_PRESET_RESET,
	 PKTSTATS_EVCAP_TIMER_PRESET_MASK,
	 PORT(timer_preset, PKTSTATS_EVCAP_TIMER_PRESET_SHIFT)},
};
static const size_t n_rw = sizeof(rw_regs) / sizeof(rw_regs[0]);

// 64-bit read-only inputs: the timer and the counters (index 1..3 have a clear pulse).
enum { IN_TIMER, IN_EVENTS_MISSED, IN_EVENTS_SENT, IN_PACKETS_SENT, N_INPUTS };
static const struct {
	const char *name;
	uint32_t address;
} inputs[N_INPUTS] = {
	{"evcap.timer", PKTSTATS_EVCAP_TIMER},
	{"evcap.events_missed", PKTSTATS_EVCAP_EVENTS_MISSED},
	{"evcap.events_sent", PKTSTATS_EVCAP_EVENTS_SENT},
	{"evcap.packets_sent", PKTSTATS_EVCAP_PACKETS_SENT},
};

static uint32_t local(uint32_t address) { return address - PKTSTATS_EVCAP_BASE; }

static uint64_t lanes_merge(uint64_t old, uint32_t data, unsigned strb)
{
	uint64_t out = old;
	for (unsigned lane = 0; lane < 4; ++lane) {
		if (strb >> lane & 1) {
			const uint64_t byte = UINT64_C(0xff) << (8 * lane);
			out = (out & ~byte) | (data & byte);
		}
	}
	return out;
}

// The register table entry of one evcap word address, or nullptr.
static const pktstats_reg_info *table_entry(uint32_t addr)
{
	for (size_t i = 0; i < pktstats_regs_count; ++i) {
		const pktstats_reg_info &r = pktstats_regs[i];
		const uint32_t words = r.width > 32 ? 2 : 1;
		if (strncmp(r.name, "evcap.", 6) == 0 && addr >= r.address &&
		    addr < r.address + 4 * words)
			return &r;
	}
	return nullptr;
}

// ----------------------------------------------------------------------------------------
// Harness

// Everything the block drives besides the bus, sampled after every rising edge.
struct Outputs {
	uint64_t value[n_rw];
	bool timer_reset, flush, commit;
	bool clear[N_INPUTS]; // [IN_TIMER] unused
};

struct Harness {
	std::unique_ptr<Top> top;
	Bus bus;
	std::vector<Outputs> history;

	explicit Harness(VerilatedContext *context) : top(new Top(context)), bus(*top)
	{
		set_input(IN_TIMER, 0);
		set_input(IN_EVENTS_MISSED, 0);
		set_input(IN_EVENTS_SENT, 0);
		set_input(IN_PACKETS_SENT, 0);
		bus.on_cycle = [this] { history.push_back(sample()); };
		bus.reset();
		history.clear();
	}
	~Harness() { top->final(); }

	Outputs sample() const
	{
		Outputs o;
		for (size_t i = 0; i < n_rw; ++i)
			o.value[i] = rw_regs[i].port(*top);
		o.timer_reset = top->command_timer_reset;
		o.flush = top->command_flush;
		o.commit = top->timer_preset_commit;
		o.clear[IN_TIMER] = false;
		o.clear[IN_EVENTS_MISSED] = top->events_missed_clear;
		o.clear[IN_EVENTS_SENT] = top->events_sent_clear;
		o.clear[IN_PACKETS_SENT] = top->packets_sent_clear;
		return o;
	}

	void set_input(int which, uint64_t value)
	{
		switch (which) {
		case IN_TIMER: top->timer = value; break;
		case IN_EVENTS_MISSED: top->events_missed = value; break;
		case IN_EVENTS_SENT: top->events_sent = value; break;
		default: top->packets_sent = value; break;
		}
		top->eval();
	}

	size_t mark() const { return history.size(); }

	// Cycles since `from` in which pulse output `get` was high.
	template <class Get>
	unsigned pulses(size_t from, Get get) const
	{
		unsigned n = 0;
		for (size_t i = from; i < history.size(); ++i)
			n += get(history[i]) ? 1 : 0;
		return n;
	}

	unsigned any_pulses(size_t from) const
	{
		return pulses(from, [](const Outputs &o) {
			return o.timer_reset || o.flush || o.commit || o.clear[1] || o.clear[2] ||
			       o.clear[3];
		});
	}

	// Write a whole rw register (low word, then high word if wide); true if all OKAY.
	bool write_rw(const RwReg &r, uint64_t value)
	{
		bool ok = bus.write(local(r.address), static_cast<uint32_t>(value)).resp ==
			  axil::RESP_OKAY;
		if (r.width > 32)
			ok = bus.write(local(r.address) + 4, static_cast<uint32_t>(value >> 32)).resp ==
				     axil::RESP_OKAY &&
			     ok;
		return ok;
	}

	uint64_t read_rw(const RwReg &r, unsigned *resp)
	{
		if (r.width > 32)
			return bus.read64(local(r.address), resp);
		const axil::Response x = bus.read(local(r.address));
		*resp = x.resp;
		return x.data;
	}
};

// ----------------------------------------------------------------------------------------
// TAP

class Check {
public:
	bool ok = true;
	std::vector<std::string> notes;

	bool that(bool cond, const char *fmt, ...) __attribute__((format(printf, 3, 4)))
	{
		if (cond)
			return true;
		ok = false;
		if (notes.size() < 12) {
			char buf[512];
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(buf, sizeof(buf), fmt, ap);
			va_end(ap);
			notes.push_back(buf);
		}
		return false;
	}

	bool eq(uint64_t got, uint64_t want, const char *what)
	{
		return that(got == want, "%s: got 0x%" PRIx64 ", want 0x%" PRIx64, what, got, want);
	}
};

static std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static std::string fmt(const char *f, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return buf;
}

static unsigned long long g_seed = 1;

// ----------------------------------------------------------------------------------------
// Tests

static void test_type_version(Harness &h, Check &c)
{
	axil::Response r = h.bus.read(local(PKTSTATS_EVCAP_TYPE));
	c.eq(r.data, PKTSTATS_EVCAP_TYPE_VALUE, "type");
	c.eq(r.resp, axil::RESP_OKAY, "type resp");
	r = h.bus.read(local(PKTSTATS_EVCAP_VERSION));
	c.eq(r.data, PKTSTATS_EVCAP_VERSION_VALUE, "version");
	c.eq(r.resp, axil::RESP_OKAY, "version resp");
}

// The test's rw table must list exactly the rw registers of the generated table.
static void test_rw_table_complete(Harness &, Check &c)
{
	size_t seen = 0;
	for (size_t i = 0; i < pktstats_regs_count; ++i) {
		const pktstats_reg_info &t = pktstats_regs[i];
		if (strncmp(t.name, "evcap.", 6) != 0 || strcmp(t.access, "rw") != 0)
			continue;
		++seen;
		const RwReg *found = nullptr;
		for (const RwReg &r : rw_regs)
			if (strcmp(r.name, t.name) == 0)
				found = &r;
		if (c.that(found != nullptr, "%s is not covered by this test", t.name))
			c.that(found->address == t.address && found->width == t.width,
			       "%s: address or width differ from the table", t.name);
	}
	c.eq(seen, n_rw, "number of rw registers in the generated table");
}

static void check_reset_values(Harness &h, Check &c, const char *when)
{
	for (const RwReg &r : rw_regs) {
		unsigned resp;
		const uint64_t v = h.read_rw(r, &resp);
		c.eq(v, r.reset, fmt("%s %s read", when, r.name).c_str());
		c.eq(resp, axil::RESP_OKAY, fmt("%s %s resp", when, r.name).c_str());
		c.eq(r.port(*h.top), r.reset, fmt("%s %s port", when, r.name).c_str());
	}
}

static void test_reset_values(Harness &h, Check &c)
{
	check_reset_values(h, c, "after power-up");

	// Change every bit, then reset: the values must come from the reset logic.
	for (const RwReg &r : rw_regs) {
		c.that(h.write_rw(r, ~r.reset & r.mask), "%s: write failed", r.name);
		unsigned resp;
		c.eq(h.read_rw(r, &resp), ~r.reset & r.mask, fmt("%s before reset", r.name).c_str());
	}
	// Leave something in the shadows; after reset a high-word write must commit the reset
	// low word, not what was left in the shadow.
	for (const RwReg &r : rw_regs)
		if (r.width > 32)
			h.bus.write(local(r.address), ~static_cast<uint32_t>(r.reset));
	h.bus.reset(3);
	check_reset_values(h, c, "after rst");
	size_t m = h.mark();
	for (const RwReg &r : rw_regs) {
		if (r.width <= 32)
			continue;
		h.bus.write(local(r.address) + 4, static_cast<uint32_t>(r.reset >> 32));
		unsigned resp;
		c.eq(h.read_rw(r, &resp), r.reset, fmt("%s high write after rst", r.name).c_str());
	}
	c.eq(h.pulses(m, [](const Outputs &o) { return o.commit; }), 1, "commit pulses");
}

static void test_write_read_back(Harness &h, Check &c)
{
	for (const RwReg &r : rw_regs) {
		std::vector<uint64_t> patterns = {0, ~UINT64_C(0), UINT64_C(0x5555555555555555),
						  UINT64_C(0xaaaaaaaaaaaaaaaa)};
		for (unsigned bit = 0; bit < r.width; ++bit)
			patterns.push_back(UINT64_C(1) << bit);
		for (uint64_t p : patterns) {
			c.that(h.write_rw(r, p), "%s: write 0x%" PRIx64 " not OKAY", r.name, p);
			unsigned resp;
			const uint64_t got = h.read_rw(r, &resp);
			if (!c.eq(got, p & r.mask, fmt("%s after writing 0x%" PRIx64, r.name, p).c_str()))
				break;
			if (!c.eq(r.port(*h.top), p & r.mask, fmt("%s port", r.name).c_str()))
				break;
		}
	}
}

// Every combination of strobes on one register (both words for a wide one); false on the
// first mismatch.
static bool wstrb_register(Harness &h, Check &c, const RwReg &r, std::mt19937_64 &rng)
{
	uint64_t model = r.reset;
	uint64_t shadow = r.reset & 0xffffffff;
	const unsigned hi_count = r.width > 32 ? 16 : 1;
	for (unsigned s_lo = 0; s_lo < 16; ++s_lo) {
		for (unsigned s_hi = 0; s_hi < hi_count; ++s_hi) {
			const uint64_t d = rng();
			h.bus.write(local(r.address), static_cast<uint32_t>(d), s_lo);
			if (r.width > 32) {
				shadow = lanes_merge(shadow, static_cast<uint32_t>(d), s_lo);
				h.bus.write(local(r.address) + 4, static_cast<uint32_t>(d >> 32), s_hi);
				const uint64_t hi =
					lanes_merge(model >> 32, static_cast<uint32_t>(d >> 32), s_hi);
				model = (hi << 32 | shadow) & r.mask;
			} else {
				model = lanes_merge(model, static_cast<uint32_t>(d), s_lo) & r.mask;
			}
			unsigned resp;
			const std::string what = fmt("%s strb 0x%x/0x%x", r.name, s_lo, s_hi);
			if (!c.eq(h.read_rw(r, &resp), model, what.c_str()) ||
			    !c.eq(r.port(*h.top), model, (what + " port").c_str()))
				return false;
		}
	}
	return true;
}

static void test_wstrb(Harness &h, Check &c)
{
	std::mt19937_64 rng(g_seed);
	for (const RwReg &r : rw_regs)
		wstrb_register(h, c, r, rng);
}

// 48/64-bit rw: the low write changes nothing; the high write changes every bit at once.
static void test_wide_commit(Harness &h, Check &c)
{
	for (size_t i = 0; i < n_rw; ++i) {
		const RwReg &r = rw_regs[i];
		if (r.width <= 32)
			continue;
		unsigned resp;
		const uint64_t old = h.read_rw(r, &resp);
		const uint64_t next = ~old & r.mask; // every bit differs, in both words

		size_t m = h.mark();
		h.bus.write(local(r.address), static_cast<uint32_t>(next));
		h.bus.idle_cycles(4);
		bool still = true;
		for (size_t k = m; k < h.history.size(); ++k)
			still = still && h.history[k].value[i] == old;
		c.that(still, "%s: output changed on the low-word write", r.name);
		c.eq(h.pulses(m, [](const Outputs &o) { return o.commit; }), 0,
		     fmt("%s: commit pulses on the low-word write", r.name).c_str());
		c.eq(h.read_rw(r, &resp), old, fmt("%s: read after the low-word write", r.name).c_str());

		m = h.mark();
		h.bus.write(local(r.address) + 4, static_cast<uint32_t>(next >> 32));
		h.bus.idle_cycles(4);
		size_t changes = 0, change_at = 0;
		bool only_old_or_new = true;
		for (size_t k = m; k < h.history.size(); ++k) {
			const uint64_t v = h.history[k].value[i];
			only_old_or_new = only_old_or_new && (v == old || v == next);
			const uint64_t prev = k == m ? old : h.history[k - 1].value[i];
			if (v != prev) {
				++changes;
				change_at = k;
			}
		}
		c.that(only_old_or_new, "%s: output went through a value that is neither old nor new",
		       r.name);
		c.eq(changes, 1, fmt("%s: output changes on the high-word write", r.name).c_str());
		c.eq(h.history.back().value[i], next, fmt("%s: output after commit", r.name).c_str());
		c.eq(h.read_rw(r, &resp), next, fmt("%s: read after commit", r.name).c_str());
		if (strcmp(r.name, "evcap.timer_preset") == 0) {
			c.eq(h.pulses(m, [](const Outputs &o) { return o.commit; }), 1,
			     "timer_preset_commit cycles on the high-word write");
			c.that(changes == 1 && h.history[change_at].commit,
			       "timer_preset_commit not in the cycle the value changes");
		}

		// The shadow keeps the low word: a second high-word write commits it again.
		const uint32_t hi2 = static_cast<uint32_t>(old >> 32);
		h.bus.write(local(r.address) + 4, hi2);
		const uint64_t want = ((static_cast<uint64_t>(hi2) << 32) | (next & 0xffffffff)) & r.mask;
		c.eq(h.read_rw(r, &resp), want, fmt("%s: high-word-only write", r.name).c_str());
	}
}

static void test_commit_pulse(Harness &h, Check &c)
{
	const uint32_t lo = local(PKTSTATS_EVCAP_TIMER_PRESET_LO);
	const uint32_t hi = local(PKTSTATS_EVCAP_TIMER_PRESET_HI);
	auto commits = [&](size_t m) {
		return h.pulses(m, [](const Outputs &o) { return o.commit; });
	};
	size_t m = h.mark();
	h.bus.write(lo, 0x12345678);
	h.bus.read(lo);
	h.bus.read(hi);
	h.bus.idle_cycles(3);
	c.eq(commits(m), 0, "commit cycles on a low write and reads");
	for (unsigned strb : {0xfu, 0x0u, 0x5u}) {
		m = h.mark();
		h.bus.write(hi, 0x9abcdef0, strb);
		h.bus.idle_cycles(3);
		c.eq(commits(m), 1, fmt("commit cycles on a high write, strb 0x%x", strb).c_str());
		c.that(!h.top->timer_preset_commit, "commit stuck high");
	}
	m = h.mark();
	h.bus.write(local(PKTSTATS_EVCAP_SOURCE_MAC_HI), 1);
	h.bus.write(local(PKTSTATS_EVCAP_COMMAND), 3);
	h.bus.idle_cycles(3);
	c.eq(commits(m), 0, "commit cycles on writes to other registers");
}

// Reading the low word of a 64-bit value latches its high word.
static void test_read_latch(Harness &h, Check &c)
{
	for (int k = 0; k < N_INPUTS; ++k) {
		const uint32_t lo = local(inputs[k].address), hi = lo + 4;
		const uint64_t a = UINT64_C(0x1111111122222222) * (k + 1);
		const uint64_t b = UINT64_C(0x3333333344444444) * (k + 1);
		const uint64_t d = UINT64_C(0x5555555566666666) * (k + 1);
		h.set_input(k, a);
		c.eq(h.bus.read(lo).data, static_cast<uint32_t>(a), fmt("%s low", inputs[k].name).c_str());
		h.set_input(k, b);
		c.eq(h.bus.read(hi).data, static_cast<uint32_t>(a >> 32),
		     fmt("%s high after the input changed", inputs[k].name).c_str());
		c.eq(h.bus.read(hi).data, static_cast<uint32_t>(a >> 32),
		     fmt("%s high read twice", inputs[k].name).c_str());
		c.eq(h.bus.read(lo).data, static_cast<uint32_t>(b), fmt("%s low again", inputs[k].name).c_str());
		// another 64-bit read in between leaves this latch alone
		const int other = (k + 1) % N_INPUTS;
		h.set_input(other, d);
		h.bus.read(local(inputs[other].address));
		h.set_input(k, d);
		const axil::Response r = h.bus.read(hi);
		c.eq(r.data, static_cast<uint32_t>(b >> 32),
		     fmt("%s high after reading another value", inputs[k].name).c_str());
		c.eq(r.resp, axil::RESP_OKAY, fmt("%s resp", inputs[k].name).c_str());
		unsigned resp;
		c.eq(h.bus.read64(lo, &resp), d, fmt("%s 64-bit read", inputs[k].name).c_str());
	}

	// rw: the latch holds the committed high word of the time of the low read
	for (const RwReg &r : rw_regs) {
		if (r.width <= 32)
			continue;
		const uint32_t lo = local(r.address), hi = lo + 4;
		h.write_rw(r, UINT64_C(0x0000aaaa00000001) & r.mask);
		h.bus.read(lo);
		h.write_rw(r, UINT64_C(0x0000555500000002) & r.mask);
		c.eq(h.bus.read(hi).data, 0xaaaa, fmt("%s high after a commit", r.name).c_str());
		c.eq(h.bus.read(lo).data, 2, fmt("%s low", r.name).c_str());
		c.eq(h.bus.read(hi).data, 0x5555, fmt("%s high", r.name).c_str());
	}

	// every 64-bit value has its own latch: read all low words, then all high words
	std::vector<std::pair<uint32_t, uint32_t>> wide; // low-word address, expected high word
	for (int k = 0; k < N_INPUTS; ++k) {
		const uint64_t v = UINT64_C(0x0000010100000000) * (k + 1);
		h.set_input(k, v);
		wide.push_back({local(inputs[k].address), static_cast<uint32_t>(v >> 32)});
	}
	for (size_t i = 0; i < n_rw; ++i) {
		const RwReg &r = rw_regs[i];
		if (r.width <= 32)
			continue;
		const uint64_t v = (UINT64_C(0x0000020200000000) * (i + 1)) & r.mask;
		h.write_rw(r, v);
		wide.push_back({local(r.address), static_cast<uint32_t>(v >> 32)});
	}
	for (int pass = 0; pass < 2; ++pass) { // low words in both orders
		for (size_t i = 0; i < wide.size(); ++i)
			h.bus.read(wide[pass ? wide.size() - 1 - i : i].first);
		for (const auto &w : wide)
			c.eq(h.bus.read(w.first + 4).data, w.second,
			     fmt("high word at 0x%03x after reading every low word, pass %d",
				 w.first + 4, pass).c_str());
	}
}

static void test_counter_clear(Harness &h, Check &c)
{
	for (int k = IN_EVENTS_MISSED; k < N_INPUTS; ++k) {
		const char *name = inputs[k].name;
		const uint32_t lo = local(inputs[k].address), hi = lo + 4;
		const uint64_t value = UINT64_C(0x0123456789abcdef) + k;
		for (int j = IN_EVENTS_MISSED; j < N_INPUTS; ++j)
			h.set_input(j, value);
		auto mine = [k](const Outputs &o) { return o.clear[k]; };
		auto others = [k](const Outputs &o) {
			bool any = false;
			for (int j = IN_EVENTS_MISSED; j < N_INPUTS; ++j)
				any = any || (j != k && o.clear[j]);
			return any || o.timer_reset || o.flush || o.commit;
		};
		struct {
			uint32_t addr, data;
			unsigned strb;
			const char *what;
		} writes[] = {{lo, 0, 0xf, "low word"},
			      {hi, 0x12345678, 0xf, "high word"},
			      {lo, 0xffffffff, 0x0, "low word, no strobe"}};
		for (const auto &w : writes) {
			size_t m = h.mark();
			const axil::Response r = h.bus.write(w.addr, w.data, w.strb);
			h.bus.idle_cycles(3);
			c.eq(r.resp, axil::RESP_OKAY, fmt("%s %s resp", name, w.what).c_str());
			c.eq(h.pulses(m, mine), 1, fmt("%s_clear cycles, %s", name, w.what).c_str());
			c.eq(h.pulses(m, others), 0, fmt("other pulses, %s %s", name, w.what).c_str());
		}
		size_t m = h.mark();
		unsigned resp;
		c.eq(h.bus.read64(lo, &resp), value, fmt("%s read", name).c_str());
		c.eq(h.bus.read64(lo, &resp), value, fmt("%s read again", name).c_str());
		h.bus.idle_cycles(3);
		c.eq(h.pulses(m, mine), 0, fmt("%s_clear cycles on reads", name).c_str());
	}
}

static void test_pulses(Harness &h, Check &c)
{
	const uint32_t cmd = local(PKTSTATS_EVCAP_COMMAND);
	const unsigned tr = PKTSTATS_EVCAP_COMMAND_TIMER_RESET_MASK;
	const unsigned fl = PKTSTATS_EVCAP_COMMAND_FLUSH_MASK;
	struct {
		uint32_t data;
		unsigned strb;
		unsigned want_tr, want_fl;
	} cases[] = {{tr, 0xf, 1, 0}, {fl, 0xf, 0, 1}, {tr | fl, 0xf, 1, 1}, {0, 0xf, 0, 0},
		     {tr | fl, 0x0, 0, 0}, {tr | fl, 0x1, 1, 1}, {tr | fl, 0xe, 0, 0},
		     {0xfffffffc, 0xf, 0, 0}};
	for (const auto &k : cases) {
		size_t m = h.mark();
		const axil::Response r = h.bus.write(cmd, k.data, k.strb);
		h.bus.idle_cycles(4);
		const std::string what = fmt("command 0x%08x strb 0x%x", k.data, k.strb);
		c.eq(r.resp, axil::RESP_OKAY, (what + " resp").c_str());
		c.eq(h.pulses(m, [](const Outputs &o) { return o.timer_reset; }), k.want_tr,
		     (what + ": timer_reset cycles").c_str());
		c.eq(h.pulses(m, [](const Outputs &o) { return o.flush; }), k.want_fl,
		     (what + ": flush cycles").c_str());
		if (k.want_tr && k.want_fl) {
			bool together = false;
			for (size_t i = m; i < h.history.size(); ++i)
				together = together || (h.history[i].timer_reset && h.history[i].flush);
			c.that(together, "%s: the two pulses are not in the same cycle", what.c_str());
		}
	}
	size_t m = h.mark();
	h.bus.write(cmd, tr);
	h.bus.write(cmd, tr);
	h.bus.idle_cycles(2);
	c.eq(h.pulses(m, [](const Outputs &o) { return o.timer_reset; }), 2,
	     "timer_reset cycles for two writes");
	m = h.mark();
	const axil::Response r = h.bus.read(cmd);
	c.eq(r.data, 0, "command read data");
	c.eq(r.resp, axil::RESP_OKAY, "command read resp");
	c.eq(h.any_pulses(m), 0, "pulses on a read");
}

static void test_unmapped_reads(Harness &h, Check &c)
{
	unsigned mapped = 0;
	for (uint32_t addr = 0; addr < PKTSTATS_EVCAP_SIZE; addr += 4) {
		const axil::Response r = h.bus.read(addr);
		if (table_entry(PKTSTATS_EVCAP_BASE + addr)) {
			++mapped;
			c.that(r.resp == axil::RESP_OKAY, "read 0x%03x: resp %u, want OKAY", addr, r.resp);
		} else {
			c.that(r.resp == axil::RESP_SLVERR && r.data == 0,
			       "read 0x%03x: resp %u data 0x%08x, want SLVERR and 0", addr, r.resp,
			       r.data);
		}
	}
	c.that(mapped > 0, "no mapped word found in the table");
}

// Writes that must answer SLVERR: unmapped words and read-only registers.
static void test_error_writes(Harness &h, Check &c)
{
	unsigned resp;
	uint64_t before[n_rw];
	for (size_t i = 0; i < n_rw; ++i) {
		h.write_rw(rw_regs[i], UINT64_C(0x0123456789abcdef) * (i + 1) & rw_regs[i].mask);
		before[i] = h.read_rw(rw_regs[i], &resp);
	}
	std::vector<uint32_t> targets;
	for (uint32_t addr = 0; addr < PKTSTATS_EVCAP_SIZE; addr += 4) {
		const pktstats_reg_info *t = table_entry(PKTSTATS_EVCAP_BASE + addr);
		if (!t || strcmp(t->access, "const") == 0 || strcmp(t->access, "ro") == 0)
			targets.push_back(addr);
	}
	const size_t m = h.mark();
	unsigned read_only = 0;
	for (uint32_t addr : targets) {
		const bool ro = table_entry(PKTSTATS_EVCAP_BASE + addr) != nullptr;
		read_only += ro;
		for (uint32_t data : {0xffffffffu, 0x00000000u}) {
			const axil::Response r = h.bus.write(addr, data);
			c.that(r.resp == axil::RESP_SLVERR, "write 0x%08x to %s 0x%03x: resp %u, want SLVERR",
			       data, ro ? "read-only" : "unmapped", addr, r.resp);
		}
	}
	c.that(read_only == 4, "expected 4 read-only words (type, version, timer), found %u",
	       read_only);
	bool unchanged = true;
	for (size_t k = m; k < h.history.size(); ++k)
		for (size_t i = 0; i < n_rw; ++i)
			unchanged = unchanged && h.history[k].value[i] == before[i];
	c.that(unchanged, "an output changed during the error writes");
	c.eq(h.any_pulses(m), 0, "pulses during the error writes");
	for (size_t i = 0; i < n_rw; ++i)
		c.eq(h.read_rw(rw_regs[i], &resp), before[i],
		     fmt("%s after the error writes", rw_regs[i].name).c_str());
	c.eq(h.bus.read(local(PKTSTATS_EVCAP_TYPE)).data, PKTSTATS_EVCAP_TYPE_VALUE, "type");
	c.eq(h.bus.read(local(PKTSTATS_EVCAP_VERSION)).data, PKTSTATS_EVCAP_VERSION_VALUE,
	     "version");
	// shadows too: a high-word write commits the low word written before the errors
	for (size_t i = 0; i < n_rw; ++i) {
		const RwReg &r = rw_regs[i];
		if (r.width <= 32)
			continue;
		h.bus.write(local(r.address) + 4, static_cast<uint32_t>(before[i] >> 32));
		c.eq(h.read_rw(r, &resp), before[i], fmt("%s shadow after the error writes", r.name).c_str());
	}
}

static void test_channel_order(Harness &h, Check &c)
{
	const uint32_t addr = local(PKTSTATS_EVCAP_SOURCE_IP);
	uint32_t value = 0x10203040;
	struct {
		axil::Order order;
		unsigned skew;
		const char *what;
	} cases[] = {{axil::Order::together, 0, "AW with W"}, {axil::Order::aw_first, 1, "AW 1 before W"},
		     {axil::Order::aw_first, 2, "AW 2 before W"}, {axil::Order::aw_first, 7, "AW 7 before W"},
		     {axil::Order::w_first, 1, "W 1 before AW"}, {axil::Order::w_first, 2, "W 2 before AW"},
		     {axil::Order::w_first, 7, "W 7 before AW"}};
	for (const auto &k : cases) {
		++value;
		const axil::Response w = h.bus.write(addr, value, 0xf, {k.order, k.skew, 0});
		c.eq(w.resp, axil::RESP_OKAY, fmt("%s: resp", k.what).c_str());
		c.eq(h.bus.read(addr).data, value, fmt("%s: read back", k.what).c_str());
		c.eq(h.top->source_ip, value, fmt("%s: port", k.what).c_str());
		// and an error write in the same order
		const axil::Response e = h.bus.write(0xffc, 0, 0xf, {k.order, k.skew, 0});
		c.eq(e.resp, axil::RESP_SLVERR, fmt("%s: unmapped resp", k.what).c_str());
	}
}

static void test_back_pressure(Harness &h, Check &c)
{
	const uint32_t addr = local(PKTSTATS_EVCAP_FLUSH_TIMEOUT);
	for (unsigned delay : {1u, 2u, 5u, 20u}) {
		const uint32_t value = 0xc0de0000 + delay;
		axil::Response r = h.bus.write(addr, value, 0xf, {axil::Order::together, 0, delay});
		c.eq(r.resp, axil::RESP_OKAY, fmt("B delay %u: resp", delay).c_str());
		r = h.bus.read(addr, delay);
		c.eq(r.data, value, fmt("R delay %u: data", delay).c_str());
		c.eq(r.resp, axil::RESP_OKAY, fmt("R delay %u: resp", delay).c_str());
		r = h.bus.write(0x800, value, 0xf, {axil::Order::w_first, 2, delay});
		c.eq(r.resp, axil::RESP_SLVERR, fmt("B delay %u: error resp", delay).c_str());
		r = h.bus.read(0x800, delay);
		c.eq(r.resp, axil::RESP_SLVERR, fmt("R delay %u: error resp", delay).c_str());
		// the value under back-pressure is the one of the read, not of a later input
		h.set_input(IN_TIMER, UINT64_C(0x0000000700000007) * delay);
		r = h.bus.read(local(PKTSTATS_EVCAP_TIMER_LO), delay);
		c.eq(r.data, 7 * delay, fmt("R delay %u: timer low", delay).c_str());
	}
}

static void test_unaligned(Harness &h, Check &c)
{
	// byte address bits 1:0 are ignored
	const uint32_t addr = local(PKTSTATS_EVCAP_TOS);
	c.eq(h.bus.write(addr + 3, 0x5a).resp, axil::RESP_OKAY, "write resp");
	c.eq(h.top->tos, 0x5a, "tos port");
	c.eq(h.bus.read(addr + 1).data, 0x5a, "read");
}

// Random transactions on every word (mapped or not), with random channel timing, against a
// model of the register map. Checks every response, every read and every pulse.
static void test_random(Harness &h, Check &c)
{
	std::mt19937_64 rng(g_seed);
	uint64_t value[n_rw], shadow[n_rw], latch_rw[n_rw];
	for (size_t i = 0; i < n_rw; ++i) {
		value[i] = rw_regs[i].reset;
		shadow[i] = rw_regs[i].reset & 0xffffffff;
		latch_rw[i] = rw_regs[i].reset >> 32;
	}
	uint64_t in[N_INPUTS] = {0, 0, 0, 0}, latch_in[N_INPUTS] = {0, 0, 0, 0};
	unsigned want_tr = 0, want_fl = 0, want_commit = 0, want_clear[N_INPUTS] = {0, 0, 0, 0};
	const size_t m = h.mark();

	for (int n = 0; n < 4000 && c.ok; ++n) {
		uint32_t addr;
		if (rng() % 5 == 0) {
			addr = rng() % PKTSTATS_EVCAP_SIZE;
		} else {
			const pktstats_reg_info *t;
			do
				t = &pktstats_regs[rng() % pktstats_regs_count];
			while (strncmp(t->name, "evcap.", 6) != 0);
			addr = local(t->address) + static_cast<uint32_t>(rng() % (t->width > 32 ? 8 : 4));
		}
		const uint32_t word = addr & ~3u;
		const pktstats_reg_info *t = table_entry(PKTSTATS_EVCAP_BASE + word);
		const bool high = t && word != local(t->address);
		int rw = -1, input = -1;
		for (size_t i = 0; t && i < n_rw; ++i)
			if (rw_regs[i].address == t->address)
				rw = static_cast<int>(i);
		for (int k = 0; t && k < N_INPUTS; ++k)
			if (inputs[k].address == t->address)
				input = k;
		if (rng() % 4 == 0) {
			const int k = static_cast<int>(rng() % N_INPUTS);
			in[k] = rng();
			h.set_input(k, in[k]);
		}

		const std::string what = fmt("op %d 0x%03x (%s)", n, addr, t ? t->name : "unmapped");
		if (rng() % 2) {
			const uint32_t data = static_cast<uint32_t>(rng());
			const unsigned strb = rng() % 4 ? 0xf : rng() % 16;
			const axil::WriteTiming timing = {static_cast<axil::Order>(rng() % 3),
							  static_cast<unsigned>(rng() % 4),
							  static_cast<unsigned>(rng() % 3 ? 0 : rng() % 6)};
			unsigned want = axil::RESP_SLVERR;
			if (rw >= 0) {
				want = axil::RESP_OKAY;
				const RwReg &r = rw_regs[rw];
				if (r.width <= 32) {
					value[rw] = lanes_merge(value[rw], data, strb) & r.mask;
				} else if (!high) {
					shadow[rw] = lanes_merge(shadow[rw], data, strb);
				} else {
					value[rw] = (lanes_merge(value[rw] >> 32, data, strb) << 32 | shadow[rw]) &
						    r.mask;
					want_commit += strcmp(r.name, "evcap.timer_preset") == 0;
				}
			} else if (t && strcmp(t->access, "counter") == 0) {
				want = axil::RESP_OKAY;
				++want_clear[input];
			} else if (t && strcmp(t->access, "pulse") == 0) {
				want = axil::RESP_OKAY;
				want_tr += (strb & 1) && (data & PKTSTATS_EVCAP_COMMAND_TIMER_RESET_MASK);
				want_fl += (strb & 1) && (data & PKTSTATS_EVCAP_COMMAND_FLUSH_MASK);
			}
			const axil::Response r = h.bus.write(addr, data, strb, timing);
			c.eq(r.resp, want, (what + " write resp").c_str());
		} else {
			uint32_t want = 0;
			unsigned want_resp = axil::RESP_OKAY;
			if (!t) {
				want_resp = axil::RESP_SLVERR;
			} else if (rw >= 0) {
				if (!high) {
					want = static_cast<uint32_t>(value[rw]);
					latch_rw[rw] = value[rw] >> 32;
				} else {
					want = static_cast<uint32_t>(latch_rw[rw]);
				}
			} else if (input >= 0) {
				if (!high) {
					want = static_cast<uint32_t>(in[input]);
					latch_in[input] = in[input] >> 32;
				} else {
					want = static_cast<uint32_t>(latch_in[input]);
				}
			} else if (strcmp(t->name, "evcap.type") == 0) {
				want = PKTSTATS_EVCAP_TYPE_VALUE;
			} else if (strcmp(t->name, "evcap.version") == 0) {
				want = PKTSTATS_EVCAP_VERSION_VALUE;
			}
			const unsigned delay = rng() % 3 ? 0 : static_cast<unsigned>(rng() % 6);
			const axil::Response r = h.bus.read(addr, delay);
			c.eq(r.resp, want_resp, (what + " read resp").c_str());
			c.eq(r.data, want, (what + " read data").c_str());
		}
		for (size_t i = 0; i < n_rw; ++i)
			c.eq(rw_regs[i].port(*h.top), value[i], (what + " port " + rw_regs[i].name).c_str());
	}
	h.bus.idle_cycles(3);
	c.eq(h.pulses(m, [](const Outputs &o) { return o.timer_reset; }), want_tr, "timer_reset cycles");
	c.eq(h.pulses(m, [](const Outputs &o) { return o.flush; }), want_fl, "flush cycles");
	c.eq(h.pulses(m, [](const Outputs &o) { return o.commit; }), want_commit, "commit cycles");
	for (int k = IN_EVENTS_MISSED; k < N_INPUTS; ++k)
		c.eq(h.pulses(m, [k](const Outputs &o) { return o.clear[k]; }), want_clear[k],
		     fmt("%s_clear cycles", inputs[k].name).c_str());
}

// ----------------------------------------------------------------------------------------

static const struct {
	const char *name;
	void (*fn)(Harness &, Check &);
} tests[] = {
	{"type and version", test_type_version},
	{"every rw register of the map is covered", test_rw_table_complete},
	{"reset values of every rw register (power-up and rst)", test_reset_values},
	{"write and read back every bit of every rw register", test_write_read_back},
	{"wstrb selects the bytes written", test_wstrb},
	{"48/64-bit rw: low write changes nothing, high write commits all at once",
	 test_wide_commit},
	{"timer_preset_commit pulses one cycle per high-word write only", test_commit_pulse},
	{"64-bit reads: low word latches the high word", test_read_latch},
	{"counters: a write to either word pulses clear for one cycle, reads do not",
	 test_counter_clear},
	{"command pulses are one cycle and self-clearing", test_pulses},
	{"unmapped reads answer SLVERR with data 0", test_unmapped_reads},
	{"unmapped and read-only writes answer SLVERR and change nothing", test_error_writes},
	{"AW before W, W before AW, AW with W", test_channel_order},
	{"back-pressure on B and R", test_back_pressure},
	{"address bits 1:0 are ignored", test_unaligned},
	{"random transactions against a model", test_random},
};

int main(int argc, char **argv)
{
	if (argc > 1)
		g_seed = strtoull(argv[1], nullptr, 0);
	else if (const char *s = getenv("SEED"))
		g_seed = strtoull(s, nullptr, 0);

	VerilatedContext context;
	context.commandArgs(argc, argv);

	const size_t n = sizeof(tests) / sizeof(tests[0]);
	printf("1..%zu\n# seed %llu\n", n, g_seed);
	unsigned failed = 0;
	for (size_t i = 0; i < n; ++i) {
		Check c;
		{
			Harness h(&context);
			tests[i].fn(h, c);
			c.that(h.bus.protocol_error().empty(), "AXI protocol: %s",
			       h.bus.protocol_error().c_str());
		}
		printf("%s %zu - %s\n", c.ok ? "ok" : "not ok", i + 1, tests[i].name);
		for (const std::string &note : c.notes)
			printf("#   %s\n", note.c_str());
		failed += !c.ok;
	}
	printf("# %zu passed, %u failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
