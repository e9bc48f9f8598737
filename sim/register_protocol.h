// SPDX-License-Identifier: BSD-3-Clause
//
// The register-access protocol of the simulator's Unix socket (docs/simulator-protocol.md):
// request kinds and error codes, shared by the parser and the server. The numbers are part of
// the protocol: clients (libpktstats' simulator backend) map them to errno values.

#ifndef PKTSTATS_SIM_REGISTER_PROTOCOL_H
#define PKTSTATS_SIM_REGISTER_PROTOCOL_H

#include <cstdint>

namespace pktstats_sim {

namespace register_protocol {
constexpr int version = 1;
} // namespace register_protocol

enum class RegisterCommand { hello, read, write, time, help, quit, start, until };

struct RegisterRequest {
	RegisterCommand command = RegisterCommand::hello;
	uint32_t address = 0; // read, write
	uint32_t value = 0;   // write
	uint64_t cycle = 0;   // until: the clock count, or with `relative` the clocks from now
	bool relative = false;
};

// "error CODE message": the CODE values.
enum class ProtocolError : int {
	syntax = 1,               // wrong number of arguments, not a number, control characters, empty line
	unknown_command = 2,      // first word is not a command
	number_out_of_range = 3,  // a number does not fit in 32 bits (64 for until), or a clock past the last
	unaligned_address = 4,    // address not a multiple of 4
	address_out_of_range = 5, // address beyond the register space
	line_too_long = 6,        // longer than the server's limit; the rest of the line is skipped
	incomplete_line = 7,      // the client closed its sending side in the middle of a line
	too_many_clients = 8,     // sent on connection, then the server closes it
	slave_error = 10,         // the bus answered SLVERR
	decode_error = 11,        // the bus answered DECERR
	timeout = 12,             // the bus did not answer in time
	backend_failure = 13,     // any other failure of the register backend
};

} // namespace pktstats_sim

#endif
