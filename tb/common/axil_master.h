// SPDX-License-Identifier: BSD-3-Clause
/*
 * AXI4-Lite master bus model for Verilator test benches.
 *
 * Drives the s_axil_* ports of a Verilated top (templated on its class), one transaction at a
 * time, and owns the clock: every cycle goes through tick(). It can present AW and W together,
 * AW first or W first (with a chosen skew between them), and hold BREADY / RREADY low for a
 * number of cycles after BVALID / RVALID (back-pressure). While it does, it checks the slave's
 * side of the protocol:
 *
 *   - BVALID / RVALID only while a write / read is outstanding, BVALID only after both the AW
 *     and the W handshake;
 *   - once asserted, BVALID / RVALID stay high, and BRESP / RDATA / RRESP stay stable, until the
 *     handshake;
 *   - every phase completes within `timeout` cycles (a slave that hangs returns RESP_TIMEOUT).
 *
 * The first violation is kept in protocol_error().
 *
 *     axil::Master<Vfoo> bus(top);
 *     bus.reset();
 *     axil::Response r = bus.write(0x008, 1);           // r.resp == axil::RESP_OKAY
 *     r = bus.read(0x008);                              // r.data == 1
 *     bus.write(0x008, 0, 0xf, {axil::Order::w_first, 3, 5});  // W 3 cycles before AW,
 *                                                       // BREADY low for 5 cycles
 */
#ifndef PKTSTATS_TB_AXIL_MASTER_H
#define PKTSTATS_TB_AXIL_MASTER_H

#include <cstdint>
#include <functional>
#include <string>

namespace axil {

constexpr unsigned RESP_OKAY = 0;
constexpr unsigned RESP_EXOKAY = 1;
constexpr unsigned RESP_SLVERR = 2;
constexpr unsigned RESP_DECERR = 3;
constexpr unsigned RESP_TIMEOUT = 0x100; // not an AXI code: the slave did not answer in time

struct Response {
	uint32_t data; // read data; 0 for writes
	unsigned resp; // RESP_*
};

// How a write presents its address and data channels.
enum class Order {
	together, // AWVALID and WVALID in the same cycle
	aw_first, // AWVALID, then WVALID `skew` cycles later (not waiting for AWREADY)
	w_first,  // WVALID, then AWVALID `skew` cycles later
};

struct WriteTiming {
	Order order = Order::together;
	unsigned skew = 0;    // cycles between the first and the second VALID
	unsigned b_delay = 0; // cycles BREADY stays low once BVALID is up (0: BREADY high at once)
};

template <class Top>
class Master {
public:
	// address_mask: the bits of the slave's address port (12 for one register block).
	explicit Master(Top &top, uint32_t address_mask = 0xfff)
		: top_(top), address_mask_(address_mask)
	{
		idle();
		top_.clk = 0;
		top_.rst = 0;
		top_.eval();
	}

	// Called once per clock, right after the rising edge (the state of the new cycle).
	std::function<void()> on_cycle;

	// Cycles a phase may take before the transaction gives up with RESP_TIMEOUT.
	unsigned timeout = 1000;

	// One clock cycle: falling edge, rising edge, then on_cycle.
	void tick()
	{
		top_.clk = 0;
		top_.eval();
		top_.clk = 1;
		top_.eval();
		++cycle_;
		if (top_.s_axil_bvalid && !write_active_)
			violation("BVALID without an outstanding write");
		if (top_.s_axil_rvalid && !read_active_)
			violation("RVALID without an outstanding read");
		if (on_cycle)
			on_cycle();
	}

	void idle_cycles(unsigned n)
	{
		while (n--)
			tick();
	}

	// Synchronous reset: rst high for `cycles` clocks.
	void reset(unsigned cycles = 4)
	{
		idle();
		top_.rst = 1;
		idle_cycles(cycles);
		top_.rst = 0;
		top_.eval();
		tick();
	}

	Response write(uint32_t addr, uint32_t data, unsigned strb = 0xf, WriteTiming t = {})
	{
		const unsigned aw_start = t.order == Order::w_first ? t.skew : 0;
		const unsigned w_start = t.order == Order::aw_first ? t.skew : 0;
		bool aw_done = false, w_done = false;

		write_active_ = true;
		top_.s_axil_awaddr = addr & address_mask_;
		top_.s_axil_awprot = 0;
		top_.s_axil_wdata = data;
		top_.s_axil_wstrb = strb & 0xf;
		top_.s_axil_bready = 0;
		for (unsigned n = 0; !(aw_done && w_done); ++n) {
			if (n > timeout + t.skew)
				return give_up("write address/data handshake");
			top_.s_axil_awvalid = !aw_done && n >= aw_start;
			top_.s_axil_wvalid = !w_done && n >= w_start;
			top_.eval();
			if (top_.s_axil_bvalid)
				violation("BVALID before the AW and W handshakes");
			const bool aw_hs = top_.s_axil_awvalid && top_.s_axil_awready;
			const bool w_hs = top_.s_axil_wvalid && top_.s_axil_wready;
			tick();
			aw_done = aw_done || aw_hs;
			w_done = w_done || w_hs;
		}
		top_.s_axil_awvalid = 0;
		top_.s_axil_wvalid = 0;

		bool seen = false;
		unsigned held = 0, first_resp = 0;
		for (unsigned n = 0;; ++n) {
			if (n > timeout + t.b_delay)
				return give_up("write response");
			top_.s_axil_bready = held >= t.b_delay;
			top_.eval();
			if (top_.s_axil_bvalid) {
				if (!seen)
					first_resp = top_.s_axil_bresp;
				else if (top_.s_axil_bresp != first_resp)
					violation("BRESP changed while BVALID waited for BREADY");
				seen = true;
				if (top_.s_axil_bready) {
					tick();
					write_active_ = false;
					top_.s_axil_bready = 0;
					top_.eval();
					return {0, first_resp};
				}
				++held;
			} else if (seen) {
				violation("BVALID dropped before BREADY");
			}
			tick();
		}
	}

	Response read(uint32_t addr, unsigned r_delay = 0)
	{
		read_active_ = true;
		top_.s_axil_araddr = addr & address_mask_;
		top_.s_axil_arprot = 0;
		top_.s_axil_rready = 0;
		for (unsigned n = 0;; ++n) {
			if (n > timeout)
				return give_up("read address handshake");
			top_.s_axil_arvalid = 1;
			top_.eval();
			if (top_.s_axil_rvalid)
				violation("RVALID before the AR handshake");
			const bool ar_hs = top_.s_axil_arready;
			tick();
			if (ar_hs)
				break;
		}
		top_.s_axil_arvalid = 0;

		bool seen = false;
		unsigned held = 0;
		Response first = {0, 0};
		for (unsigned n = 0;; ++n) {
			if (n > timeout + r_delay)
				return give_up("read data");
			top_.s_axil_rready = held >= r_delay;
			top_.eval();
			if (top_.s_axil_rvalid) {
				const Response now = {static_cast<uint32_t>(top_.s_axil_rdata),
						      static_cast<unsigned>(top_.s_axil_rresp)};
				if (!seen)
					first = now;
				else if (now.data != first.data || now.resp != first.resp)
					violation("RDATA/RRESP changed while RVALID waited for RREADY");
				seen = true;
				if (top_.s_axil_rready) {
					tick();
					read_active_ = false;
					top_.s_axil_rready = 0;
					top_.eval();
					return first;
				}
				++held;
			} else if (seen) {
				violation("RVALID dropped before RREADY");
			}
			tick();
		}
	}

	// Two words, low then high (the coherent way to read a 64-bit value).
	uint64_t read64(uint32_t addr, unsigned *resp = nullptr)
	{
		const Response lo = read(addr);
		const Response hi = read(addr + 4);
		if (resp)
			*resp = lo.resp | hi.resp;
		return static_cast<uint64_t>(hi.data) << 32 | lo.data;
	}

	uint64_t cycle() const { return cycle_; }
	const std::string &protocol_error() const { return protocol_error_; }
	void clear_protocol_error() { protocol_error_.clear(); }

private:
	void idle()
	{
		top_.s_axil_awaddr = 0;
		top_.s_axil_awprot = 0;
		top_.s_axil_awvalid = 0;
		top_.s_axil_wdata = 0;
		top_.s_axil_wstrb = 0;
		top_.s_axil_wvalid = 0;
		top_.s_axil_bready = 0;
		top_.s_axil_araddr = 0;
		top_.s_axil_arprot = 0;
		top_.s_axil_arvalid = 0;
		top_.s_axil_rready = 0;
	}

	void violation(const std::string &what)
	{
		if (protocol_error_.empty())
			protocol_error_ = what + " (cycle " + std::to_string(cycle_) + ")";
	}

	// The slave did not answer: drop every VALID and READY and report a timeout.
	Response give_up(const char *phase)
	{
		violation(std::string("timeout in ") + phase);
		idle();
		top_.eval();
		write_active_ = read_active_ = false;
		return {0, RESP_TIMEOUT};
	}

	Top &top_;
	uint32_t address_mask_;
	uint64_t cycle_ = 0;
	bool write_active_ = false;
	bool read_active_ = false;
	std::string protocol_error_;
};

} // namespace axil

#endif
