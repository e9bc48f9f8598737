// SPDX-License-Identifier: BSD-3-Clause
//
// RegisterServer: serves register access on a Unix stream socket, to several clients at once,
// from inside the simulation loop. The protocol is line-based text, documented in
// docs/simulator-protocol.md.
//
// Nothing here blocks or runs on its own: the simulation calls poll_once() between clocks (with
// a timeout of 0 while it simulates). One call accepts new clients, reads what clients sent,
// answers complete lines that need no bus access at once (hello, time, help, quit, every
// error), hands reads and writes to the RegisterBackend, checks on the operation in flight,
// and sends the replies that are ready. A bus access takes clocks (register_backend.h): its
// reply goes out in the first poll_once() after the backend completes it, while the simulation
// keeps running in between.
//
// Ordering: each client has at most one request outstanding; the lines it sent after it wait,
// unread, in its buffer, so every client gets its replies in the order of its requests.
// Operations of different clients go to the backend one at a time, in the order they were
// parsed.
//
// Robustness: a malformed line gets an error reply and the connection goes on; a line longer
// than maximum_line_bytes gets one error reply and the rest of it is skipped; a client that
// closes its sending side gets the replies to its complete lines (and an error for a cut last
// line) and is then closed; a client that disconnects is cleaned up at once, its queued
// requests dropped, and an operation of it already in flight at the backend runs to the end
// and its result is discarded; beyond maximum_clients, a new connection gets an error line and
// is closed. The server itself never stops serving because of what a client sends.
//
// The socket file: a stale socket at the path (no server listening) is replaced; a live one,
// or a file that is not a socket, is an error. The destructor removes the socket file it made.

#ifndef PKTSTATS_SIM_REGISTER_SERVER_H
#define PKTSTATS_SIM_REGISTER_SERVER_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "register_backend.h"
#include "register_protocol.h"
#include "register_request_parser.h"

namespace pktstats_sim {

struct RegisterServerConfig {
	std::string socket_path;                     // the Unix socket to listen on
	uint64_t register_space_bytes = 0x10000;     // valid addresses: 0 .. this - 1
	std::string server_name = "pktstats-sim";    // in the hello reply; one word
	std::string design_identity = "pktstats_core"; // in the hello reply; one word
	uint64_t clock_period_ps = 8000;             // for the time reply
	size_t maximum_clients = 32;
	size_t maximum_line_bytes = 256;             // line end excluded
};

struct RegisterServerStatistics {
	uint64_t clients_accepted = 0;
	uint64_t clients_refused = 0; // beyond maximum_clients
	uint64_t requests = 0;        // lines answered, errors included
	uint64_t error_replies = 0;
	uint64_t backend_operations = 0;  // reads and writes completed by the backend
	uint64_t replies_discarded = 0;   // their client had gone
	uint64_t accept_failures = 0;     // accept() failed (e.g. out of file descriptors)
	std::string last_accept_failure;
};

class RegisterServer {
public:
	// Creates the socket and listens. Throws std::invalid_argument for a bad configuration
	// and std::runtime_error, naming the path, when the socket cannot be made.
	RegisterServer(const RegisterServerConfig &config, RegisterBackend &backend);
	~RegisterServer();
	RegisterServer(const RegisterServer &) = delete;
	RegisterServer &operator=(const RegisterServer &) = delete;

	// One round of serving; waits up to timeout_ms (0: not at all, -1: until something
	// happens) for socket activity. Returns the number of replies queued in this call. Throws
	// std::runtime_error only when the listening socket itself fails.
	int poll_once(int timeout_ms);

	// The simulation's clock count, for the time request; the loop sets it before poll_once().
	void set_simulation_cycle(uint64_t cycle) { simulation_cycle_ = cycle; }
	// In a network of switches on their own oscillators: the true time of this switch's clock
	// `cycle`, which the `time` reply then gives as NS (default: cycle × clock_period_ps).
	void set_simulation_time(uint64_t cycle, uint64_t true_time_ps)
	{
		simulation_cycle_ = cycle;
		true_time_ps_ = true_time_ps;
		have_true_time_ = true;
	}

	// The earliest clock count a client waits for with `until` (UINT64_MAX: none). The loop
	// polls when the simulation reaches it, so that the reply and the requests the client
	// sent after it are served in exactly that clock.
	uint64_t wake_cycle() const { return wake_cycle_; }

	// A client sent `start` (the simulator's --wait: traffic starts then). Stays true.
	bool start_requested() const { return start_requested_; }

	size_t client_count() const { return clients_.size(); }
	bool backend_operation_in_flight() const;
	const RegisterServerStatistics &statistics() const { return statistics_; }
	const std::string &socket_path() const { return config_.socket_path; }

private:
	struct Client {
		int descriptor = -1;
		uint64_t id = 0;
		std::string input;  // received, not yet parsed
		std::string output; // replies not yet sent
		bool skipping_long_line = false;
		bool input_closed = false;   // the client shut its sending side (or closed)
		bool peer_gone = false;      // cannot be answered any more: remove
		bool waiting_for_backend = false;
		bool close_when_sent = false; // quit
		uint64_t until_cycle = UINT64_MAX; // `until`: answered when the simulation gets there
	};
	struct Operation {
		uint64_t client_id; // 0 once the client has gone: the result is discarded
		RegisterRequest request;
		bool started = false;
		bool polled_this_round = false;
	};

	void open_listening_socket();
	void accept_clients();
	void read_from(Client &client);
	void send_to(Client &client);
	bool process_lines(Client &client);
	void handle_line(Client &client, const std::string &line);
	void reply(Client &client, const std::string &text);
	void reply_error(Client &client, ProtocolError code, const std::string &message);
	void reply_time(Client &client);
	bool wake_clients();
	bool progress_backend();
	void complete_operation(const Operation &operation, int status, uint32_t value);
	void service_clients();
	void remove_finished_clients();
	Client *find_client(uint64_t id);
	bool can_read(const Client &client) const;

	RegisterServerConfig config_;
	RegisterBackend &backend_;
	RegisterRequestParser parser_;
	int listening_descriptor_ = -1;
	uint64_t socket_inode_ = 0, socket_device_ = 0;
	std::vector<std::unique_ptr<Client>> clients_;
	std::deque<Operation> operations_; // the front one is in flight once started
	uint64_t next_client_id_ = 1;
	uint64_t simulation_cycle_ = 0;
	uint64_t wake_cycle_ = UINT64_MAX;
	bool start_requested_ = false;
	bool have_true_time_ = false;
	uint64_t true_time_ps_ = 0;
	int replies_this_call_ = 0;
	RegisterServerStatistics statistics_;
};

} // namespace pktstats_sim

#endif
