// SPDX-License-Identifier: BSD-3-Clause
//
// test_board_mdio: the board top's MDIO master (fpga/netfpga-1g-cml/rtl/board_mdio.v) driven
// through the MAC block's registers (board_mac_counters with rtl/gen/mac_regs.v: mdio_frame
// 0x010, mdio_command 0x014, mdio_status 0x018, regmap/mac.toml), joined as
// tb/board/board_mdio_tb.v joins them (CLK_DIV 4: MDC at clk / 8; a power-up table of 3
// writes), against PHYs played by tb/board/mdio_phy_model.h on mdc, mdio_o/mdio_oe and mdio_i:
// several PHYs at addresses of their own, each a register file, decoding every frame bit by bit
// and checking preamble, start, opcode, turnaround, the master's setup and hold around MDC's
// rising edges and MDC's halves; the addressed PHY drives the turnaround's second bit and the
// data `output_delay` clocks after MDC's rising edge; both driving in one clock is a failure.
// Checked:
//   - table: a host command given before start waits (busy, not ready, nothing on the wire);
//     when start rises the 3 table writes go out first, in order, into the PHYs' registers,
//     ready rises, then the host's read, with the right data;
//   - identity: reads of registers 2 and 3 of every PHY return its identifier, no_answer low;
//     an address no PHY has reads 0xffff with no_answer high; the PHY's output delay at both
//     ends of what the master's sampling allows (0 and 2 * CLK_DIV - 3 clocks);
//   - busy: a command while busy is ignored (one frame on the wire, the PHY's registers as
//     the first command left them); changing mdio_frame while busy changes nothing of the frame
//     under way; read and write together send a read;
//   - reset: rst in the middle of a host frame: the line is let go, the table goes out again
//     and the host's frames work after it;
//   - random (seeded): random reads and writes (addresses with and without a PHY, every
//     register, random data, random AXI channel orders), random PHY addresses and output
//     delays: every read returns what the register file holds, every write lands in exactly
//     that register, the frames on the wire are the commands in order, no protocol error.
//
// TAP output; `--seed N --only NAME` replays a random case, --cycles N sets its operations.

#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vboard_mdio_tb.h"
#include "axil_master.h"
#include "mdio_phy_model.h"
#include "tap_runner.h"
#include "verilated.h"

namespace {

const unsigned CLK_DIV = 4; // board_mdio_tb's
const uint32_t FRAME = 0x010, COMMAND = 0x014, STATUS = 0x018;
const uint32_t BUSY = 1, READY = 2, NO_ANSWER = 4;
// the table of board_mdio_tb.v: {phy, register, data}
const unsigned TABLE[3][3] = {{1, 4, 0x01e1}, {5, 9, 0x0300}, {1, 0, 0x1340}};
// clocks of one frame and its gap: 66 MDC periods
const unsigned FRAME_CLOCKS = 66 * 2 * CLK_DIV;

using Top = Vboard_mdio_tb;

std::string hex(uint32_t v)
{
	char t[16];
	snprintf(t, sizeof t, "0x%04" PRIx32, v);
	return t;
}

struct Bench {
	std::unique_ptr<VerilatedContext> context;
	std::unique_ptr<Top> top;
	std::unique_ptr<axil::Master<Top>> bus;
	mdio::Bus mdio;
	std::mt19937_64 rng;

	explicit Bench(uint64_t seed, std::vector<unsigned> addresses, bool start = true)
		: rng(seed)
	{
		context = std::make_unique<VerilatedContext>();
		context->randReset(2);
		context->randSeed((int)(seed & 0x7fffffff));
		top = std::make_unique<Top>(context.get());
		bus = std::make_unique<axil::Master<Top>>(*top, 0xfff);
		for (unsigned a : addresses) {
			mdio::Phy p(a);
			for (unsigned r = 0; r < 32; r++)
				p.regs[r] = (uint16_t)rng();
			// identifier: OUI-derived bits, model, revision (802.3 22.2.4.3.1)
			p.regs[2] = (uint16_t)(0x0141 + a);
			p.regs[3] = (uint16_t)(0x0cc0 | a);
			mdio.phys.push_back(p);
		}
		mdio.min_setup = CLK_DIV - 1;
		mdio.min_hold = CLK_DIV;
		mdio.min_half = CLK_DIV;
		top->start = start;
		top->mdio_i = 1;
		bus->on_cycle = [this]() { top->mdio_i = mdio.step(top->mdc, top->mdio_oe, top->mdio_o); };
		bus->reset(4);
		bus->idle_cycles(4);
	}

	std::string write(uint32_t addr, uint32_t data)
	{
		axil::WriteTiming t;
		const axil::Order orders[3] = {axil::Order::together, axil::Order::aw_first,
					       axil::Order::w_first};
		t.order = orders[rng() % 3];
		t.skew = (unsigned)(rng() % 3);
		t.b_delay = (unsigned)(rng() % 3);
		axil::Response r = bus->write(addr, data, 0xf, t);
		if (r.resp)
			return "write " + hex(data) + " to " + hex(addr) + ": resp " + std::to_string(r.resp);
		return "";
	}

	uint32_t status()
	{
		axil::Response r = bus->read(STATUS, (unsigned)(rng() % 3));
		if (r.resp && error.empty())
			error = "mdio_status: resp " + std::to_string(r.resp);
		return r.data;
	}

	// Polls mdio_status until busy is low; the status, or error set.
	uint32_t wait_idle(unsigned limit = 4 * FRAME_CLOCKS)
	{
		const uint64_t until = bus->cycle() + limit;
		uint32_t s;
		while ((s = status()) & BUSY)
			if (bus->cycle() > until) {
				if (error.empty())
					error = "busy still high after " + std::to_string(limit) + " clocks";
				return s;
			}
		return s;
	}

	std::string error;

	// Sends one frame and waits for it; for a read, *status gets mdio_status.
	std::string frame(bool read, unsigned phy, unsigned reg, uint16_t data, uint32_t *st = nullptr)
	{
		std::string e = write(FRAME, (uint32_t)data << 16 | reg << 8 | phy);
		if (e.empty())
			e = write(COMMAND, read ? 1 : 2);
		if (!e.empty())
			return e;
		uint32_t s = wait_idle();
		if (st)
			*st = s;
		if (!error.empty())
			return error;
		if (!mdio.error.empty())
			return "PHY model: " + mdio.error;
		return "";
	}

	std::string check_frames(size_t from, const std::vector<mdio::Frame> &want)
	{
		if (mdio.frames.size() - from != want.size())
			return std::to_string(mdio.frames.size() - from) + " frames on the wire, not " +
			       std::to_string(want.size());
		for (size_t i = 0; i < want.size(); i++) {
			const mdio::Frame &f = mdio.frames[from + i], &w = want[i];
			if (f.read != w.read || f.phy != w.phy || f.reg != w.reg ||
			    (!f.read && f.data != w.data))
				return "frame " + std::to_string(i) + ": " + (f.read ? "read" : "write") +
				       " phy " + std::to_string(f.phy) + " reg " + std::to_string(f.reg) +
				       " data " + hex(f.data) + ", want " + (w.read ? "read" : "write") +
				       " phy " + std::to_string(w.phy) + " reg " + std::to_string(w.reg) +
				       " data " + hex(w.data);
		}
		return "";
	}
};

mdio::Frame wframe(unsigned phy, unsigned reg, uint16_t data)
{
	return mdio::Frame{false, phy, reg, data, true, 0};
}
mdio::Frame rframe(unsigned phy, unsigned reg)
{
	return mdio::Frame{true, phy, reg, 0, true, 0};
}

// ---- cases

tap::Result test_table()
{
	Bench b(3, {1, 5, 30}, false);
	// a host read before the PHYs are out of reset: it waits
	std::string e = b.write(FRAME, 30u << 0 | 2u << 8);
	if (e.empty())
		e = b.write(COMMAND, 1);
	if (!e.empty())
		return e;
	b.bus->idle_cycles(3 * FRAME_CLOCKS);
	uint32_t s = b.status();
	if ((s & (BUSY | READY)) != BUSY)
		return "before start: status " + hex(s) + ", want busy and not ready";
	if (b.mdio.rising_edges != 0 || b.top->mdio_oe)
		return "before start: MDC ran or MDIO was driven";
	b.top->start = 1;
	s = b.wait_idle(8 * FRAME_CLOCKS);
	if (!b.error.empty())
		return b.error;
	if (!b.mdio.error.empty())
		return "PHY model: " + b.mdio.error;
	if (!(s & READY) || !b.top->done)
		return "after the table: status " + hex(s) + ", not ready";
	std::vector<mdio::Frame> want;
	for (auto &t : TABLE)
		want.push_back(wframe(t[0], t[1], (uint16_t)t[2]));
	want.push_back(rframe(30, 2));
	if (!(e = b.check_frames(0, want)).empty())
		return e;
	for (auto &t : TABLE)
		if (b.mdio.find(t[0])->regs[t[1]] != t[2])
			return "PHY " + std::to_string(t[0]) + " register " + std::to_string(t[1]) +
			       " holds " + hex(b.mdio.find(t[0])->regs[t[1]]) + " after the table";
	if (s >> 16 != b.mdio.find(30)->regs[2] || (s & NO_ANSWER))
		return "the host's read: status " + hex(s) + ", want data " +
		       hex(b.mdio.find(30)->regs[2]);
	return "";
}

tap::Result identity_with_delay(unsigned delay)
{
	Bench b(5, {0, 7, 31});
	b.mdio.output_delay = delay;
	b.bus->idle_cycles(4 * FRAME_CLOCKS); // the table
	for (unsigned a : {0u, 7u, 31u, 3u, 16u}) {
		for (unsigned reg : {2u, 3u}) {
			uint32_t s = 0;
			std::string e = b.frame(true, a, reg, 0, &s);
			if (!e.empty())
				return e;
			const mdio::Phy *p = b.mdio.find(a);
			const uint32_t want = p ? p->regs[reg] : 0xffff;
			if (s >> 16 != want || !!(s & NO_ANSWER) != !p)
				return "read phy " + std::to_string(a) + " reg " + std::to_string(reg) +
				       ": status " + hex(s) + ", want data " + hex(want) +
				       (p ? " answered" : " no_answer");
		}
	}
	return "";
}

tap::Result test_identity() { return identity_with_delay(0); }
tap::Result test_identity_late() { return identity_with_delay(2 * CLK_DIV - 3); }

tap::Result test_busy()
{
	Bench b(7, {2, 9});
	b.bus->idle_cycles(4 * FRAME_CLOCKS);
	const size_t from = b.mdio.frames.size();
	std::string e = b.write(FRAME, 0x1234u << 16 | 5u << 8 | 2u);
	if (e.empty())
		e = b.write(COMMAND, 2);
	// while busy: another command, and a new frame register
	if (e.empty())
		e = b.write(COMMAND, 1);
	if (e.empty())
		e = b.write(FRAME, 0xbeefu << 16 | 6u << 8 | 9u);
	if (e.empty())
		e = b.write(COMMAND, 2);
	if (!e.empty())
		return e;
	if (!(b.status() & BUSY))
		return "busy low right after a command";
	b.wait_idle();
	if (!b.error.empty())
		return b.error;
	if (!(e = b.check_frames(from, {wframe(2, 5, 0x1234)})).empty())
		return "commands while busy: " + e;
	if (b.mdio.find(9)->regs[6] == 0xbeef)
		return "the command while busy wrote";
	// read and write together: a read
	uint32_t s = 0;
	if (!(e = b.write(FRAME, 0x5555u << 16 | 5u << 8 | 2u)).empty())
		return e;
	if (!(e = b.write(COMMAND, 3)).empty())
		return e;
	s = b.wait_idle();
	if (!(e = b.check_frames(from + 1, {rframe(2, 5)})).empty())
		return "read and write together: " + e;
	if (s >> 16 != 0x1234)
		return "read and write together: read " + hex(s >> 16);
	if (!b.mdio.error.empty())
		return "PHY model: " + b.mdio.error;
	return "";
}

tap::Result test_reset()
{
	Bench b(9, {1, 5});
	b.bus->idle_cycles(4 * FRAME_CLOCKS);
	std::string e = b.write(FRAME, 3u << 8 | 5u);
	if (e.empty())
		e = b.write(COMMAND, 1);
	if (!e.empty())
		return e;
	b.bus->idle_cycles(FRAME_CLOCKS / 2);
	b.bus->reset(2);
	if (b.top->mdio_oe)
		return "the line is still driven after rst";
	// the PHYs see a frame cut short: their decoders start again
	mdio::Bus fresh;
	fresh.phys = b.mdio.phys;
	fresh.min_setup = b.mdio.min_setup;
	fresh.min_hold = b.mdio.min_hold;
	fresh.min_half = b.mdio.min_half;
	b.mdio = fresh;
	uint32_t s = b.status();
	if (s & (BUSY | READY))
		return "after rst: status " + hex(s);
	b.bus->idle_cycles(4 * FRAME_CLOCKS);
	s = 0;
	if (!(e = b.frame(true, 1, 0, 0, &s)).empty())
		return e;
	std::vector<mdio::Frame> want;
	for (auto &t : TABLE)
		want.push_back(wframe(t[0], t[1], (uint16_t)t[2]));
	want.push_back(rframe(1, 0));
	if (!(e = b.check_frames(0, want)).empty())
		return "after rst: " + e;
	if (s >> 16 != 0x1340)
		return "after rst: read " + hex(s >> 16) + ", want the table's 0x1340";
	return "";
}

tap::Result test_random(uint64_t seed, uint64_t ops)
{
	std::mt19937_64 pick(seed);
	std::vector<unsigned> addresses;
	// 2..5 PHYs at distinct addresses, the table's 1 and 5 among them
	addresses.push_back(1);
	addresses.push_back(5);
	while (addresses.size() < 2 + pick() % 4) {
		unsigned a = (unsigned)(pick() % 32);
		bool seen = false;
		for (unsigned x : addresses)
			seen = seen || x == a;
		if (!seen)
			addresses.push_back(a);
	}
	Bench b(seed, addresses);
	b.mdio.output_delay = (unsigned)(pick() % (2 * CLK_DIV - 2)); // 0 .. 2 CLK_DIV - 3
	b.bus->idle_cycles(4 * FRAME_CLOCKS);
	// the harness's copy of every register file
	std::map<unsigned, std::vector<uint16_t>> shadow;
	for (const mdio::Phy &p : b.mdio.phys)
		shadow[p.address] = std::vector<uint16_t>(p.regs, p.regs + 32);
	for (auto &t : TABLE)
		shadow[t[0]][t[1]] = (uint16_t)t[2];
	const size_t from = b.mdio.frames.size();
	std::vector<mdio::Frame> want;
	unsigned reads = 0, writes = 0, absent = 0;
	for (uint64_t n = 0; n < ops; n++) {
		const bool read = b.rng() % 2;
		const unsigned phy = b.rng() % 4 ? addresses[b.rng() % addresses.size()]
						 : (unsigned)(b.rng() % 32);
		const unsigned reg = (unsigned)(b.rng() % 32);
		const uint16_t data = (uint16_t)b.rng();
		const bool there = shadow.count(phy) != 0;
		uint32_t s = 0;
		std::string e = b.frame(read, phy, reg, data, &s);
		const std::string what = std::string(read ? "read" : "write") + " phy " +
					 std::to_string(phy) + " reg " + std::to_string(reg);
		if (!e.empty())
			return "op " + std::to_string(n) + " (" + what + "): " + e;
		if (read) {
			reads++;
			const uint32_t w = there ? shadow[phy][reg] : 0xffff;
			if (s >> 16 != w || !!(s & NO_ANSWER) != !there || !(s & READY))
				return "op " + std::to_string(n) + " (" + what + "): status " + hex(s) +
				       ", want data " + hex(w) + (there ? "" : " and no_answer");
			want.push_back(rframe(phy, reg));
		} else {
			writes++;
			if (there)
				shadow[phy][reg] = data;
			want.push_back(wframe(phy, reg, data));
		}
		absent += !there;
	}
	std::string e = b.check_frames(from, want);
	if (!e.empty())
		return e;
	for (const mdio::Phy &p : b.mdio.phys)
		for (unsigned r = 0; r < 32; r++)
			if (p.regs[r] != shadow[p.address][r])
				return "PHY " + std::to_string(p.address) + " register " + std::to_string(r) +
				       " holds " + hex(p.regs[r]) + ", want " + hex(shadow[p.address][r]);
	if (!b.mdio.error.empty())
		return "PHY model: " + b.mdio.error;
	printf("# %u PHYs, output delay %u clocks: %u reads, %u writes, %u to absent addresses\n",
	       (unsigned)addresses.size(), b.mdio.output_delay, reads, writes, absent);
	return "";
}

} // namespace

int main(int argc, char **argv)
{
	tap::Options options = tap::parse(argc, argv, 300);
	std::vector<tap::Test> tests = {
		{"table", test_table},
		{"identity", test_identity},
		{"identity_late", test_identity_late},
		{"busy", test_busy},
		{"reset", test_reset},
	};
	for (uint64_t seed : tap::seeds(options, {1, 2, 3}))
		tests.push_back(tap::seeded(options, "random", seed, options.cycles, test_random));
	return tap::run(tests, options);
}
