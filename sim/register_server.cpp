// SPDX-License-Identifier: BSD-3-Clause
//
// RegisterServer: register access over a Unix socket, polled from the simulation loop; see
// register_server.h and docs/simulator-protocol.md.

#include "register_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace pktstats_sim {

namespace {

// Input kept per client before it is parsed: lines beyond it wait in the socket.
constexpr size_t input_limit = 16384;
// Replies kept per client that does not read them: beyond it its lines wait unparsed.
constexpr size_t output_limit = 65536;

std::string error_text(const std::string &path, const std::string &what)
{
	return path + ": " + what + ": " + std::strerror(errno);
}

bool is_one_word(const std::string &text)
{
	if (text.empty())
		return false;
	for (char character : text)
		if ((unsigned char)character <= 0x20 || (unsigned char)character >= 0x7f)
			return false;
	return true;
}

} // namespace

RegisterServer::RegisterServer(const RegisterServerConfig &config, RegisterBackend &backend)
	: config_(config), backend_(backend), parser_(config.register_space_bytes)
{
	if (config.register_space_bytes == 0 || config.register_space_bytes > (uint64_t)1 << 32)
		throw std::invalid_argument("register server: register space of " +
					    std::to_string(config.register_space_bytes) +
					    " bytes is not in 1..2^32");
	if (!is_one_word(config.server_name) || !is_one_word(config.design_identity))
		throw std::invalid_argument("register server: server name and design identity must "
					    "be single printable words");
	if (config.maximum_line_bytes < 16 || config.maximum_line_bytes > input_limit / 2)
		throw std::invalid_argument("register server: maximum line length must be in 16.." +
					    std::to_string(input_limit / 2));
	if (config.maximum_clients == 0)
		throw std::invalid_argument("register server: maximum clients must be at least 1");
	open_listening_socket();
}

RegisterServer::~RegisterServer()
{
	for (auto &client : clients_)
		::close(client->descriptor);
	if (listening_descriptor_ >= 0)
		::close(listening_descriptor_);
	// Remove the socket file, but only if it is still the one this server made.
	struct stat status;
	if (::lstat(config_.socket_path.c_str(), &status) == 0 && (uint64_t)status.st_ino == socket_inode_ &&
	    (uint64_t)status.st_dev == socket_device_)
		::unlink(config_.socket_path.c_str());
}

void RegisterServer::open_listening_socket()
{
	const std::string &path = config_.socket_path;
	struct sockaddr_un address;
	std::memset(&address, 0, sizeof address);
	address.sun_family = AF_UNIX;
	if (path.empty() || path.size() >= sizeof address.sun_path)
		throw std::invalid_argument("register server: socket path '" + path + "' must be 1.." +
					    std::to_string(sizeof address.sun_path - 1) + " bytes long");
	std::memcpy(address.sun_path, path.c_str(), path.size());

	struct stat status;
	if (::lstat(path.c_str(), &status) == 0) {
		if (!S_ISSOCK(status.st_mode))
			throw std::runtime_error(path + ": exists and is not a socket; not replacing it");
		int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe < 0)
			throw std::runtime_error(error_text(path, "socket"));
		int connected = ::connect(probe, (struct sockaddr *)&address, sizeof address);
		int connect_errno = errno;
		::close(probe);
		if (connected == 0)
			throw std::runtime_error(path + ": another server is already listening there");
		if (connect_errno != ECONNREFUSED) {
			errno = connect_errno;
			throw std::runtime_error(error_text(path, "cannot check the existing socket"));
		}
		if (::unlink(path.c_str()) != 0) // stale: nobody listens
			throw std::runtime_error(error_text(path, "cannot remove the stale socket"));
	}

	listening_descriptor_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (listening_descriptor_ < 0)
		throw std::runtime_error(error_text(path, "socket"));
	if (::bind(listening_descriptor_, (struct sockaddr *)&address, sizeof address) != 0 ||
	    ::listen(listening_descriptor_, 16) != 0) {
		std::string message = error_text(path, "cannot listen");
		::close(listening_descriptor_);
		listening_descriptor_ = -1;
		throw std::runtime_error(message);
	}
	if (::lstat(path.c_str(), &status) == 0) {
		socket_inode_ = (uint64_t)status.st_ino;
		socket_device_ = (uint64_t)status.st_dev;
	}
}

bool RegisterServer::backend_operation_in_flight() const
{
	return !operations_.empty() && operations_.front().started;
}

RegisterServer::Client *RegisterServer::find_client(uint64_t id)
{
	for (auto &client : clients_)
		if (client->id == id)
			return client.get();
	return nullptr;
}

bool RegisterServer::can_read(const Client &client) const
{
	return !client.input_closed && !client.peer_gone && client.input.size() < input_limit;
}

void RegisterServer::accept_clients()
{
	for (;;) {
		int descriptor = ::accept4(listening_descriptor_, nullptr, nullptr,
					   SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (descriptor < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			statistics_.accept_failures++;
			statistics_.last_accept_failure = error_text(config_.socket_path, "accept");
			return;
		}
		if (clients_.size() >= config_.maximum_clients) {
			std::string refusal = "error " +
					      std::to_string((int)ProtocolError::too_many_clients) +
					      " too many clients (at most " +
					      std::to_string(config_.maximum_clients) + ")\n";
			// Best effort: a fresh socket has room for one line.
			ssize_t ignored = ::send(descriptor, refusal.data(), refusal.size(),
						 MSG_NOSIGNAL | MSG_DONTWAIT);
			(void)ignored;
			::close(descriptor);
			statistics_.clients_refused++;
			continue;
		}
		auto client = std::make_unique<Client>();
		client->descriptor = descriptor;
		client->id = next_client_id_++;
		clients_.push_back(std::move(client));
		statistics_.clients_accepted++;
	}
}

void RegisterServer::read_from(Client &client)
{
	char buffer[4096];
	while (can_read(client)) {
		size_t room = std::min(sizeof buffer, input_limit - client.input.size());
		ssize_t received = ::recv(client.descriptor, buffer, room, MSG_DONTWAIT);
		if (received > 0) {
			client.input.append(buffer, (size_t)received);
			continue;
		}
		if (received == 0) {
			client.input_closed = true;
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			client.peer_gone = true; // ECONNRESET and the like
		return;
	}
}

void RegisterServer::send_to(Client &client)
{
	while (!client.output.empty() && !client.peer_gone) {
		ssize_t sent = ::send(client.descriptor, client.output.data(), client.output.size(),
				      MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent > 0) {
			client.output.erase(0, (size_t)sent);
			continue;
		}
		if (sent < 0 && errno == EINTR)
			continue;
		if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		client.peer_gone = true; // EPIPE, ECONNRESET
	}
}

void RegisterServer::reply(Client &client, const std::string &text)
{
	statistics_.requests++;
	replies_this_call_++;
	client.output += text;
	client.output += '\n';
	send_to(client);
}

void RegisterServer::reply_error(Client &client, ProtocolError code, const std::string &message)
{
	statistics_.error_replies++;
	reply(client, "error " + std::to_string((int)code) + " " + message);
}

void RegisterServer::reply_time(Client &client)
{
	unsigned __int128 picoseconds =
		have_true_time_ ? true_time_ps_ : (unsigned __int128)simulation_cycle_ * config_.clock_period_ps;
	reply(client, "ok " + std::to_string((uint64_t)(picoseconds / 1000)) + " " +
			      std::to_string(simulation_cycle_));
}

// Answers the `until`s the simulation has reached; recomputes the next clock to wake at.
// Returns true when it answered one.
bool RegisterServer::wake_clients()
{
	if (wake_cycle_ > simulation_cycle_)
		return false;
	bool woke = false;
	wake_cycle_ = UINT64_MAX;
	for (auto &client : clients_) {
		if (client->until_cycle <= simulation_cycle_) {
			client->until_cycle = UINT64_MAX;
			reply_time(*client);
			woke = true;
		}
		wake_cycle_ = std::min(wake_cycle_, client->until_cycle);
	}
	return woke;
}

void RegisterServer::handle_line(Client &client, const std::string &line)
{
	RegisterRequest request;
	ProtocolError error;
	std::string message;
	if (!parser_.parse(line, request, error, message)) {
		reply_error(client, error, message);
		return;
	}
	switch (request.command) {
	case RegisterCommand::hello:
		reply(client, "ok " + config_.server_name + " " +
				      std::to_string(register_protocol::version) + " " +
				      config_.design_identity);
		return;
	case RegisterCommand::time:
		reply_time(client);
		return;
	case RegisterCommand::until: {
		uint64_t cycle = request.cycle;
		if (request.relative)
			cycle = simulation_cycle_ + std::min(cycle, UINT64_MAX - simulation_cycle_);
		// UINT64_MAX marks a client that waits for no clock: a clock the count cannot reach is
		// refused, so that the request is answered and the replies after it stay in step.
		if (cycle == UINT64_MAX) {
			reply_error(client, ProtocolError::number_out_of_range,
				    "clock count '" + std::string(request.relative ? "+" : "") +
					    std::to_string(request.cycle) +
					    "' is beyond the last clock the simulation can reach (" +
					    std::to_string(UINT64_MAX - 1) + ")");
			return;
		}
		// In the past: answered at once, with the clock count that shows how late it is
		if (cycle <= simulation_cycle_) {
			reply_time(client);
		} else {
			client.until_cycle = cycle;
			wake_cycle_ = std::min(wake_cycle_, cycle);
		}
		return;
	}
	case RegisterCommand::help:
		reply(client, "ok commands: hello | read ADDR | write ADDR VALUE | time | help | quit | "
			      "start | until CYCLES|+CLOCKS");
		return;
	case RegisterCommand::start:
		// Idempotent: the simulation loop sees start_requested() and starts its traffic once.
		start_requested_ = true;
		reply(client, "ok");
		return;
	case RegisterCommand::quit:
		reply(client, "ok bye");
		client.close_when_sent = true;
		return;
	case RegisterCommand::read:
	case RegisterCommand::write:
		client.waiting_for_backend = true;
		operations_.push_back(Operation{client.id, request, false, false});
		return;
	}
}

// Answers the client's complete lines until it must wait (for the backend, or for room in its
// output). Returns true when it consumed input.
bool RegisterServer::process_lines(Client &client)
{
	bool consumed = false;
	while (!client.waiting_for_backend && client.until_cycle == UINT64_MAX &&
	       !client.close_when_sent && !client.peer_gone && client.output.size() < output_limit) {
		size_t end = client.input.find('\n');
		if (client.skipping_long_line) {
			if (end == std::string::npos) {
				consumed = consumed || !client.input.empty();
				client.input.clear();
				return consumed;
			}
			client.input.erase(0, end + 1);
			client.skipping_long_line = false;
			consumed = true;
			continue;
		}
		if (end == std::string::npos) {
			if (client.input.size() > config_.maximum_line_bytes) {
				reply_error(client, ProtocolError::line_too_long,
					    "line longer than " + std::to_string(config_.maximum_line_bytes) +
						    " bytes; skipped to its end");
				client.input.clear();
				client.skipping_long_line = true;
				consumed = true;
				continue;
			}
			if (client.input_closed && !client.input.empty()) {
				reply_error(client, ProtocolError::incomplete_line,
					    "input ended in the middle of a line: '" +
						    RegisterRequestParser::printable(client.input) + "'");
				client.input.clear();
				consumed = true;
			}
			return consumed;
		}
		std::string line = client.input.substr(0, end);
		client.input.erase(0, end + 1);
		consumed = true;
		if (!line.empty() && line.back() == '\r')
			line.pop_back();
		if (line.size() > config_.maximum_line_bytes) {
			reply_error(client, ProtocolError::line_too_long,
				    "line longer than " + std::to_string(config_.maximum_line_bytes) +
					    " bytes");
			continue;
		}
		handle_line(client, line);
	}
	return consumed;
}

void RegisterServer::complete_operation(const Operation &operation, int status, uint32_t value)
{
	statistics_.backend_operations++;
	Client *client = operation.client_id != 0 ? find_client(operation.client_id) : nullptr;
	if (client == nullptr || client->peer_gone) {
		statistics_.replies_discarded++;
		return;
	}
	client->waiting_for_backend = false;
	const char *verb = operation.request.command == RegisterCommand::read ? "read" : "write";
	char address[16];
	std::snprintf(address, sizeof address, "0x%08x", operation.request.address);
	switch (status) {
	case register_status::ok:
		if (operation.request.command == RegisterCommand::read) {
			char text[32];
			std::snprintf(text, sizeof text, "ok 0x%08x", value);
			reply(*client, text);
		} else {
			reply(*client, "ok");
		}
		return;
	case register_status::slave_error:
		reply_error(*client, ProtocolError::slave_error,
			    std::string(verb) + " " + address + ": the slave answered SLVERR");
		return;
	case register_status::decode_error:
		reply_error(*client, ProtocolError::decode_error,
			    std::string(verb) + " " + address + ": no slave there (DECERR)");
		return;
	case register_status::timeout:
		reply_error(*client, ProtocolError::timeout,
			    std::string(verb) + " " + address + ": the bus did not answer in time");
		return;
	default:
		reply_error(*client, ProtocolError::backend_failure,
			    std::string(verb) + " " + address + ": register backend failed with code " +
				    std::to_string(status));
		return;
	}
}

// Starts the next operation or checks the one in flight (at most once per poll_once). Returns
// true when an operation completed.
bool RegisterServer::progress_backend()
{
	bool completed = false;
	while (!operations_.empty()) {
		Operation &operation = operations_.front();
		if (operation.started && operation.polled_this_round)
			break;
		operation.started = true;
		operation.polled_this_round = true;
		uint32_t value = 0;
		int status = operation.request.command == RegisterCommand::read
				     ? backend_.read(operation.request.address, &value)
				     : backend_.write(operation.request.address, operation.request.value);
		if (status == register_status::pending)
			break;
		Operation finished = operation;
		operations_.pop_front();
		complete_operation(finished, status, value);
		completed = true;
	}
	return completed;
}

void RegisterServer::service_clients()
{
	bool progress = true;
	while (progress) {
		progress = wake_clients();
		for (auto &client : clients_)
			if (process_lines(*client))
				progress = true;
		if (progress_backend())
			progress = true;
	}
}

void RegisterServer::remove_finished_clients()
{
	for (size_t i = 0; i < clients_.size();) {
		Client &client = *clients_[i];
		bool finished = client.peer_gone ||
				(client.close_when_sent && client.output.empty()) ||
				(client.input_closed && client.input.empty() && !client.waiting_for_backend &&
				 client.until_cycle == UINT64_MAX && client.output.empty());
		if (!finished) {
			i++;
			continue;
		}
		for (auto operation = operations_.begin(); operation != operations_.end();) {
			if (operation->client_id != client.id) {
				++operation;
			} else if (operation->started) {
				operation->client_id = 0; // in flight: let it finish, discard the result
				++operation;
			} else {
				operation = operations_.erase(operation);
			}
		}
		::close(client.descriptor);
		clients_.erase(clients_.begin() + (long)i);
	}
}

int RegisterServer::poll_once(int timeout_ms)
{
	replies_this_call_ = 0;
	for (Operation &operation : operations_)
		operation.polled_this_round = false;

	service_clients();
	remove_finished_clients();

	std::vector<struct pollfd> descriptors;
	descriptors.push_back({listening_descriptor_, POLLIN, 0});
	for (auto &client : clients_) {
		short events = 0;
		if (can_read(*client))
			events |= POLLIN;
		if (!client->output.empty())
			events |= POLLOUT;
		descriptors.push_back({client->descriptor, events, 0});
	}
	int ready = ::poll(descriptors.data(), descriptors.size(), timeout_ms);
	if (ready < 0) {
		if (errno == EINTR)
			return replies_this_call_;
		throw std::runtime_error(error_text(config_.socket_path, "poll"));
	}
	if (ready > 0) {
		if (descriptors[0].revents & (POLLERR | POLLNVAL))
			throw std::runtime_error(config_.socket_path + ": the listening socket failed");
		// Clients first (the descriptors match clients_ as it was), then new ones.
		for (size_t i = 0; i < clients_.size(); i++) {
			Client &client = *clients_[i];
			short events = descriptors[i + 1].revents;
			if ((events & (POLLIN | POLLHUP | POLLERR)) && can_read(client))
				read_from(client);
			// POLLHUP on a Unix stream socket: the peer closed both directions, so no
			// reply can reach it any more.
			if (events & (POLLHUP | POLLERR | POLLNVAL))
				client.peer_gone = true;
			if (events & POLLOUT)
				send_to(client);
		}
		if (descriptors[0].revents & POLLIN)
			accept_clients();
	}

	service_clients();
	for (auto &client : clients_)
		send_to(*client);
	remove_finished_clients();
	return replies_this_call_;
}

} // namespace pktstats_sim
