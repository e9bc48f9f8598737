// SPDX-License-Identifier: BSD-3-Clause
//
// AxilMaster: the register server's backend in the simulators: a non-blocking AXI4-Lite master.
// AxilMasterBackend drives it onto the Verilated pktstats_core's s_axil_* port (pktstats-sim);
// the board-top simulation (tb/board/board_top_sim.cpp) onto the XDMA model's m_axil_* port.
//
// One transaction at a time. read()/write() start it and return register_status::pending; the
// simulation loop advances it one clock at a time:
//
//     bus.drive();     // before evaluating the clock's inputs: AWVALID, WVALID, ARVALID, ...
//     dut.eval();      // combinational settle
//     bus.sample();    // see AWREADY, WREADY, BVALID, ARREADY, RVALID (the coming edge)
//     ... rising edge ...
//     bus.advance();   // account for the handshakes of that edge
//
// (AxilMaster's request() and sample(request, response) are drive() and sample() with the
// signals passed as values, for a port that is not the core's.)
//
// The server's repeated call with the same arguments then returns the result once the B or R
// handshake has happened: ok, or slave_error / decode_error for BRESP/RRESP SLVERR / DECERR.
// A transaction with no answer within timeout_cycles returns register_status::timeout and the
// master drops its VALIDs (the slave may be left in a bad state; the bus of this design never
// hangs, so it is a bug when it happens).

#ifndef PKTSTATS_SIM_AXIL_MASTER_H
#define PKTSTATS_SIM_AXIL_MASTER_H

#include <cstdint>

#include "register_backend.h"

namespace pktstats_sim {

// What the master drives, and what it sees of the slave, in one clock.
struct AxilRequestSignals {
	uint32_t awaddr = 0, wdata = 0, araddr = 0;
	bool awvalid = false, wvalid = false, bready = false, arvalid = false, rready = false;
};
struct AxilResponseSignals {
	bool awready = false, wready = false, bvalid = false, arready = false, rvalid = false;
	unsigned bresp = 0, rresp = 0;
	uint32_t rdata = 0;
};

class AxilMaster : public RegisterBackend {
public:
	explicit AxilMaster(uint64_t timeout_cycles = 4096) : timeout_cycles_(timeout_cycles) {}

	int read(uint32_t address, uint32_t *value) override;
	int write(uint32_t address, uint32_t value) override;

	// The signals to drive this clock (WSTRB all ones, PROT 0).
	AxilRequestSignals request() const;
	// The handshakes of the coming edge: `driven` as request() gave them, `seen` the slave's.
	void sample(const AxilRequestSignals &driven, const AxilResponseSignals &seen);
	void advance();

	// A transaction is under way or its result has not been collected.
	bool busy() const { return state_ != State::idle; }
	// A transaction is under way on the bus (not yet answered).
	bool in_flight() const { return state_ != State::idle && state_ != State::done; }
	// Forgets a collected-or-not result (after the server that asked for it has gone).
	void discard_result()
	{
		if (state_ == State::done)
			state_ = State::idle;
	}

	uint64_t transactions() const { return transactions_; }
	uint64_t timeouts() const { return timeouts_; }

private:
	enum class State { idle, write_request, write_response, read_request, read_response, done };

	int collect(bool is_write, uint32_t address, uint32_t data, uint32_t *value);
	static int status_of(unsigned response);

	uint64_t timeout_cycles_;
	State state_ = State::idle;
	bool is_write_ = false;
	uint32_t address_ = 0, data_ = 0;
	bool aw_done_ = false, w_done_ = false;
	uint64_t cycles_ = 0;
	int result_status_ = 0;
	uint32_t result_value_ = 0;
	// Handshakes seen by sample() for the coming edge.
	bool aw_fire_ = false, w_fire_ = false, b_fire_ = false, ar_fire_ = false, r_fire_ = false;
	unsigned sampled_response_ = 0;
	uint32_t sampled_data_ = 0;
	uint64_t transactions_ = 0, timeouts_ = 0;
};

} // namespace pktstats_sim

#endif
