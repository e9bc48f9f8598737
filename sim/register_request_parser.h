// SPDX-License-Identifier: BSD-3-Clause
//
// RegisterRequestParser: one line of the register protocol -> a RegisterRequest, or a protocol
// error code with a message that says what is wrong (quoting the offending word, made
// printable). Kept apart from the socket handling so that every malformed input can be checked
// without a socket.
//
// Grammar (docs/simulator-protocol.md): words separated by spaces or tabs; commands are
// lowercase: "hello", "read ADDR", "write ADDR VALUE", "time", "help", "quit", "start",
// "until CYCLES", "until +CLOCKS". Numbers are decimal ("4096") or hexadecimal with 0x
// ("0x1000"), unsigned, at most 32 bits (clock counts: 64). An address must be a multiple of 4
// and below the register space size.

#ifndef PKTSTATS_SIM_REGISTER_REQUEST_PARSER_H
#define PKTSTATS_SIM_REGISTER_REQUEST_PARSER_H

#include <cstdint>
#include <string>

#include "register_protocol.h"

namespace pktstats_sim {

class RegisterRequestParser {
public:
	// Addresses 0 .. register_space_bytes - 1 are valid (up to 2^32).
	explicit RegisterRequestParser(uint64_t register_space_bytes);

	// `line` without its line end. Returns true and fills `request`, or returns false and
	// fills `error` and `message`.
	bool parse(const std::string &line, RegisterRequest &request, ProtocolError &error,
		   std::string &message) const;

	// A word as it may appear in a message: at most 40 characters, non-printable bytes as \xNN.
	static std::string printable(const std::string &word);

private:
	// Parses a number of at most `bits` bits (32 or 64); on failure fills error and message
	// (`what` names the argument).
	static bool parse_number(const std::string &word, const char *what, unsigned bits,
				 uint64_t &value, ProtocolError &error, std::string &message);
	bool check_address(uint32_t address, ProtocolError &error, std::string &message) const;

	uint64_t register_space_bytes_;
};

} // namespace pktstats_sim

#endif
