// SPDX-License-Identifier: BSD-3-Clause
//
// RegisterBackend: what the register server reads and writes. In the simulator it is the
// switch's AXI4-Lite slave port driven by a bus master model; in tests, a fake.
//
// Bus transactions take clocks, and the simulation keeps running while one is in flight, so an
// operation may complete later than the call that starts it:
//
//   - The server calls read() or write() to start an operation. The backend either completes it
//     at once (returns register_status::ok, or a negative error) or starts it and returns
//     register_status::pending.
//   - While it is pending, the server calls the same function with the same arguments again,
//     once per RegisterServer::poll_once(), until it returns something other than pending. The
//     backend recognises the repeated call as the operation it is already running (the server
//     never starts another operation in between: one operation is in flight at a time, across
//     all clients).
//   - *value is written only by the call that returns register_status::ok for a read.
//
// A backend that reports its own time limit returns register_status::timeout; the server never
// abandons an operation, because the bus would still be busy with it.

#ifndef PKTSTATS_SIM_REGISTER_BACKEND_H
#define PKTSTATS_SIM_REGISTER_BACKEND_H

#include <cstdint>

namespace pktstats_sim {

namespace register_status {
constexpr int ok = 0;
constexpr int pending = 1;       // started, not complete: call again later
constexpr int slave_error = -1;  // the slave answered SLVERR
constexpr int decode_error = -2; // the interconnect answered DECERR (no slave at that address)
constexpr int timeout = -3;      // no answer within the backend's time limit
} // namespace register_status

struct RegisterBackend {
	virtual ~RegisterBackend() = default;
	// Returns a register_status value; any other negative value is reported to the client
	// as a backend failure with that number.
	virtual int read(uint32_t address, uint32_t *value) = 0;
	virtual int write(uint32_t address, uint32_t value) = 0;
};

} // namespace pktstats_sim

#endif
