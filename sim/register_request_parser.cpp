// SPDX-License-Identifier: BSD-3-Clause
//
// RegisterRequestParser: one protocol line -> request or error; see register_request_parser.h.

#include "register_request_parser.h"

#include <cstdio>
#include <vector>

namespace pktstats_sim {

namespace {

std::vector<std::string> split_words(const std::string &line)
{
	std::vector<std::string> words;
	size_t position = 0;
	while (position < line.size()) {
		while (position < line.size() && (line[position] == ' ' || line[position] == '\t'))
			position++;
		size_t start = position;
		while (position < line.size() && line[position] != ' ' && line[position] != '\t')
			position++;
		if (position > start)
			words.push_back(line.substr(start, position - start));
	}
	return words;
}

std::string hex32(uint32_t value)
{
	char text[16];
	std::snprintf(text, sizeof text, "0x%08x", value);
	return text;
}

} // namespace

RegisterRequestParser::RegisterRequestParser(uint64_t register_space_bytes)
	: register_space_bytes_(register_space_bytes)
{
}

std::string RegisterRequestParser::printable(const std::string &word)
{
	std::string text;
	for (size_t i = 0; i < word.size(); i++) {
		if (text.size() >= 40) {
			text += "...";
			break;
		}
		unsigned char byte = (unsigned char)word[i];
		if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
			text += (char)byte;
		} else {
			char escaped[8];
			std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
			text += escaped;
		}
	}
	return text;
}

bool RegisterRequestParser::parse_number(const std::string &word, const char *what, unsigned bits,
					 uint64_t &value, ProtocolError &error, std::string &message)
{
	const uint64_t maximum = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
	bool hexadecimal = word.size() >= 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
	size_t first_digit = hexadecimal ? 2 : 0;
	unsigned base = hexadecimal ? 16 : 10;
	if (word.size() == first_digit) {
		error = ProtocolError::syntax;
		message = std::string(what) + " '" + printable(word) + "' has no digits";
		return false;
	}
	uint64_t number = 0;
	bool too_large = false;
	for (size_t i = first_digit; i < word.size(); i++) {
		char character = word[i];
		unsigned digit;
		if (character >= '0' && character <= '9')
			digit = (unsigned)(character - '0');
		else if (hexadecimal && character >= 'a' && character <= 'f')
			digit = (unsigned)(character - 'a' + 10);
		else if (hexadecimal && character >= 'A' && character <= 'F')
			digit = (unsigned)(character - 'A' + 10);
		else {
			error = ProtocolError::syntax;
			message = std::string(what) + " '" + printable(word) + "' is not a " +
				  (hexadecimal ? "hexadecimal" : "decimal") + " number";
			return false;
		}
		// keep scanning for bad digits once too large, without overflowing
		if (!too_large && number > (maximum - digit) / base)
			too_large = true;
		else if (!too_large)
			number = number * base + digit;
	}
	if (too_large) {
		error = ProtocolError::number_out_of_range;
		message = std::string(what) + " '" + printable(word) + "' does not fit in " +
			  std::to_string(bits) + " bits";
		return false;
	}
	value = number;
	return true;
}

bool RegisterRequestParser::check_address(uint32_t address, ProtocolError &error,
					  std::string &message) const
{
	if (address % 4 != 0) {
		error = ProtocolError::unaligned_address;
		message = "address " + hex32(address) + " is not a multiple of 4";
		return false;
	}
	if (address >= register_space_bytes_) {
		error = ProtocolError::address_out_of_range;
		char limit[32];
		std::snprintf(limit, sizeof limit, "0x%llx", (unsigned long long)register_space_bytes_);
		message = "address " + hex32(address) + " is beyond the register space (below " +
			  limit + ")";
		return false;
	}
	return true;
}

bool RegisterRequestParser::parse(const std::string &line, RegisterRequest &request,
				  ProtocolError &error, std::string &message) const
{
	for (char character : line) {
		unsigned char byte = (unsigned char)character;
		if ((byte < 0x20 && byte != '\t') || byte == 0x7f) {
			error = ProtocolError::syntax;
			message = "request holds a control character: '" + printable(line) + "'";
			return false;
		}
	}
	std::vector<std::string> words = split_words(line);
	if (words.empty()) {
		error = ProtocolError::syntax;
		message = "empty request";
		return false;
	}

	struct CommandShape {
		const char *name;
		RegisterCommand command;
		size_t arguments;
		const char *usage;
	};
	static const CommandShape shapes[] = {
		{"hello", RegisterCommand::hello, 0, "hello"},
		{"read", RegisterCommand::read, 1, "read ADDR"},
		{"write", RegisterCommand::write, 2, "write ADDR VALUE"},
		{"time", RegisterCommand::time, 0, "time"},
		{"help", RegisterCommand::help, 0, "help"},
		{"quit", RegisterCommand::quit, 0, "quit"},
		{"start", RegisterCommand::start, 0, "start"},
		{"until", RegisterCommand::until, 1, "until CYCLES|+CLOCKS"},
	};
	const CommandShape *shape = nullptr;
	for (const CommandShape &candidate : shapes)
		if (words[0] == candidate.name)
			shape = &candidate;
	if (shape == nullptr) {
		error = ProtocolError::unknown_command;
		message = "unknown command '" + printable(words[0]) +
			  "' (commands: hello, read, write, time, help, quit, start, until)";
		return false;
	}
	if (words.size() - 1 != shape->arguments) {
		error = ProtocolError::syntax;
		message = "'" + std::string(shape->name) + "' takes " +
			  std::to_string(shape->arguments) + " argument" +
			  (shape->arguments == 1 ? "" : "s") + ", not " +
			  std::to_string(words.size() - 1) + " (usage: " + shape->usage + ")";
		return false;
	}

	request = RegisterRequest();
	request.command = shape->command;
	uint64_t number = 0;
	if (shape->command == RegisterCommand::until) {
		// "+N": N clocks after the clock in which the server takes the request
		request.relative = words[1][0] == '+';
		if (!parse_number(words[1].substr(request.relative ? 1 : 0), "clock count", 64, number, error,
				  message))
			return false;
		request.cycle = number;
	}
	if (shape->command == RegisterCommand::read || shape->command == RegisterCommand::write) {
		if (!parse_number(words[1], "address", 32, number, error, message))
			return false;
		request.address = (uint32_t)number;
		if (shape->command == RegisterCommand::write) {
			if (!parse_number(words[2], "value", 32, number, error, message))
				return false;
			request.value = (uint32_t)number;
		}
		if (!check_address(request.address, error, message))
			return false;
	}
	return true;
}

} // namespace pktstats_sim
