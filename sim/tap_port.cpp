// SPDX-License-Identifier: BSD-3-Clause
//
// TapPort: a Linux TAP interface as the far end of a switch port's wire (tap_port.h).

#include "tap_port.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace pktstats_sim {

namespace {

// Larger than any frame a port carries, so a read never cuts a frame silently: a frame that
// fills the buffer is refused instead.
constexpr size_t read_buffer_bytes = 16384;

std::runtime_error tap_error(const std::string &name, const std::string &what, int error)
{
	return std::runtime_error("TAP " + name + ": " + what + ": " + strerror(error));
}

} // namespace

TapDevice::TapDevice(const std::string &name) : name_(name), buffer_(read_buffer_bytes)
{
	if (name.empty() || name.size() >= IFNAMSIZ)
		throw std::runtime_error("TAP '" + name + "': an interface name has 1 to " +
					 std::to_string(IFNAMSIZ - 1) + " characters");
	fd_ = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd_ < 0)
		throw tap_error(name, "cannot open /dev/net/tun", errno);

	struct ifreq request;
	memset(&request, 0, sizeof request);
	request.ifr_flags = IFF_TAP | IFF_NO_PI;
	memcpy(request.ifr_name, name.c_str(), name.size());
	if (ioctl(fd_, TUNSETIFF, &request) < 0) {
		int error = errno;
		close(fd_);
		throw tap_error(name, "cannot attach (TUNSETIFF; needs CAP_NET_ADMIN)", error);
	}

	// Bring the interface up, so that the host can send into it and sees what it sends.
	int control = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (control < 0) {
		int error = errno;
		close(fd_);
		throw tap_error(name, "socket", error);
	}
	bool up = ioctl(control, SIOCGIFFLAGS, &request) == 0;
	if (up && !(request.ifr_flags & IFF_UP)) {
		request.ifr_flags |= IFF_UP;
		up = ioctl(control, SIOCSIFFLAGS, &request) == 0;
	}
	int error = errno;
	close(control);
	if (!up) {
		close(fd_);
		throw tap_error(name, "cannot bring the interface up", error);
	}
}

TapDevice::~TapDevice()
{
	if (fd_ >= 0)
		close(fd_);
}

bool TapDevice::read_frame(std::vector<uint8_t> &bytes)
{
	for (;;) {
		ssize_t length = read(fd_, buffer_.data(), buffer_.size());
		if (length < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return false;
			throw tap_error(name_, "read", errno);
		}
		if ((size_t)length >= buffer_.size())
			throw std::runtime_error("TAP " + name_ + ": a frame of " +
						 std::to_string(buffer_.size()) +
						 " bytes or more, larger than any port carries");
		if (length < 14)
			continue; // no whole Ethernet header: nothing a switch port could carry
		bytes.assign(buffer_.begin(), buffer_.begin() + length);
		return true;
	}
}

void TapDevice::write_frame(const std::vector<uint8_t> &bytes)
{
	for (;;) {
		ssize_t written = write(fd_, bytes.data(), bytes.size());
		if (written >= 0)
			return;
		if (errno == EINTR)
			continue;
		// The interface's queue is full, or the interface is down: the host drops the frame,
		// as it would drop a frame from a real wire it cannot take.
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS || errno == EIO) {
			frames_not_delivered_++;
			return;
		}
		throw tap_error(name_, "write", errno);
	}
}

bool TapFrameSource::next_frame(TimedFrame &frame)
{
	while (device_->read_frame(frame.bytes)) {
		if (frame.bytes.size() > maximum_frame_bytes_) {
			frames_skipped_oversize_++;
			continue;
		}
		frame.time_ns = (timebase_ ? timebase_->edge_ps(*cycle_) : *cycle_ * clock_period_ps_) / 1000;
		return true;
	}
	return false;
}

} // namespace pktstats_sim
