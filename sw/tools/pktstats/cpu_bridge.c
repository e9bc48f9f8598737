/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: the forwarding core of `pktstats cpu-bridge run` (cpu_bridge.h).
 *
 * What the xdma driver does with the devices (Xilinx/dma_ip_drivers, XDMA/linux-kernel/xdma,
 * read at commit 8721136e74a6, July 2026), and what follows from it here:
 *   - H2C, write(): libxdma.c transfer_init() sets XDMA_DESC_EOP on the last descriptor of
 *     every transfer ("stop engine, EOP for AXI ST"), so one write() is one AXI4-Stream packet
 *     with tlast on its last byte (PG195, "DMA H2C Stream": a descriptor with EOP asserts tlast
 *     on the last beat). One frame, one write().
 *   - C2H, read(): a read ends at tlast only when the device was opened with O_TRUNC:
 *     cdev_sgdma.c char_sgdma_open() sets engine->eop_flush from O_TRUNC, and only then does
 *     libxdma.c complete the transfer on a descriptor whose writeback has RX_STATUS_EOP.
 *     Without O_TRUNC a read waits until the whole buffer is filled and frames run together
 *     (https://github.com/Xilinx/dma_ip_drivers/issues/353 "XDMA stream mode eop_flush", and
 *     pull request #161). So the command opens C2H devices O_RDONLY | O_TRUNC: one read is
 *     one frame only so.
 *     The buffer (16 KiB) is larger than any frame the switch gives (9216 bytes), so a frame is
 *     never split across reads.
 *   - A C2H stream device can be open once (char_sgdma_open: -EBUSY for a second open).
 *   - The devices have no poll method (cdev_sgdma.c sgdma_fops: open, release, read, write,
 *     read_iter, write_iter, unlocked_ioctl, llseek): poll() reports them always ready, and
 *     read() blocks until a packet comes or c2h_timeout (module parameter, 10 s) passes,
 *     returning ETIMEDOUT. So C2H cannot share a poll() loop: each port's C2H side is a
 *     thread of its own doing blocking reads (ETIMEDOUT: nothing came, read again),
 *     interrupted on stop by SIGUSR2 (the driver waits with wait_event_interruptible: EINTR).
 *     The TAP -> H2C side polls the TAPs, which can be polled, and writes to H2C (a write
 *     returns when the DMA is done, or after h2c_timeout with ETIMEDOUT: counted as an error).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cpu_bridge.h"

/* Larger than any frame, so that one read never cuts a frame: a read that fills more than
 * frame_max is an oversized frame, counted and dropped. */
#define BUFFER_BYTES 16384
/* Reads failing this many times in a row (with nothing read between) are a fatal error. */
#define READ_ERRORS_FATAL 16

/* The peer or the device is gone: nothing more will pass. EBADFD: a TAP whose interface was
 * deleted (ip link del). */
static bool is_gone(int err)
{
	return err == EPIPE || err == ECONNRESET || err == ENOTCONN || err == EBADF ||
	       err == EBADFD || err == ENODEV || err == ENXIO || err == ESHUTDOWN;
}

/* Transient read conditions: read again. ETIMEDOUT: the xdma's c2h_timeout, nothing came. */
static bool is_retry(int err)
{
	return err == EINTR || err == EAGAIN || err == EWOULDBLOCK || err == ETIMEDOUT;
}

/* One run's shared state. */
struct run {
	atomic_bool quitting; /* set when the threads are being stopped */
	int stop_fd;          /* the caller's: readable = stop */
	unsigned tap_failures[CPU_BRIDGE_PORTS]; /* TAP reads failed in a row */
};

struct c2h_thread {
	struct run *run;
	struct cpu_bridge *bridge;
	struct cpu_bridge_port *port;
	pthread_t thread;
	bool started;
	atomic_bool done;
	char error[256];
	int quit_fd; /* readable: stop */
	int wake_fd; /* written when the thread stops on a fatal error */
};

static void on_sigusr2(int signal_number)
{
	(void)signal_number; /* only to interrupt a blocking read (EINTR) */
}

/* The TAP's MTU again, when the port has an interface; 0 when it cannot be read. */
static size_t tap_frame_max_now(const struct cpu_bridge_port *port)
{
	if (!port->tap_name || !*port->tap_name)
		return 0;
	int control = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (control < 0)
		return 0;
	struct ifreq request;
	memset(&request, 0, sizeof request);
	snprintf(request.ifr_name, sizeof request.ifr_name, "%s", port->tap_name);
	size_t max = 0;
	if (ioctl(control, SIOCGIFMTU, &request) == 0 && request.ifr_mtu > 0)
		max = (size_t)request.ifr_mtu + CPU_BRIDGE_TAP_OVERHEAD;
	close(control);
	return max;
}

/* "TAP nf0", or "the TAP of port 0" for a stand-in without a name. */
static void tap_label(const struct cpu_bridge_port *port, char *text, size_t size)
{
	if (port->tap_name && *port->tap_name)
		snprintf(text, size, "TAP %s", port->tap_name);
	else
		snprintf(text, size, "the TAP of port %u", port->index);
}

/* A stop asked for: the threads are being stopped, or the caller's stop_fd is readable. */
static bool stopping(struct run *run)
{
	struct pollfd stop = {run->stop_fd, POLLIN, 0};
	return atomic_load(&run->quitting) || poll(&stop, 1, 0) > 0;
}

/* Writes one frame; 0 done, 1 counted as an error (dropped), -errno the peer is gone. A write
 * interrupted by a signal is tried again, unless a stop was asked for: then the frame counts
 * as an error (a blocked write, e.g. the xdma's H2C waiting for the board, must not hold the
 * stop up). */
static int write_frame(struct run *run, int fd, const uint8_t *frame, size_t length,
		       struct cpu_bridge_counters *count)
{
	for (;;) {
		ssize_t wrote = write(fd, frame, length);
		int err = wrote < 0 ? errno : 0;
		if (err == EINTR && !stopping(run))
			continue;
		if (is_gone(err))
			return -err;
		if (wrote != (ssize_t)length) { /* failed (EIO: TAP down, ENOBUFS, ...) or short */
			count->errors++;
			return 1;
		}
		count->frames++;
		count->bytes += length;
		return 0;
	}
}

static void *c2h_main(void *argument)
{
	struct c2h_thread *t = argument;
	struct cpu_bridge_port *port = t->port;
	size_t frame_max = t->bridge->frame_max;
	uint8_t *buffer = malloc(BUFFER_BYTES);
	unsigned failures = 0;
	time_t mtu_checked = 0;
	char tap[48];
	tap_label(port, tap, sizeof tap);
	if (!buffer) {
		snprintf(t->error, sizeof t->error, "out of memory");
		goto out;
	}
	for (;;) {
		/* For a socket stand-in this waits; the xdma's C2H device is always "ready" and the
		 * read below blocks (it is interrupted by SIGUSR2 on stop). */
		struct pollfd fds[2] = {{port->c2h, POLLIN, 0}, {t->quit_fd, POLLIN, 0}};
		int ready = poll(fds, 2, -1);
		if (atomic_load(&t->run->quitting) || (ready > 0 && fds[1].revents))
			break;
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			snprintf(t->error, sizeof t->error, "%s: poll: %s", port->c2h_name,
				 strerror(errno));
			break;
		}
		ssize_t got = read(port->c2h, buffer, BUFFER_BYTES);
		if (got < 0) {
			int err = errno;
			if (atomic_load(&t->run->quitting))
				break;
			if (is_retry(err))
				continue;
			if (is_gone(err) || ++failures >= READ_ERRORS_FATAL) {
				snprintf(t->error, sizeof t->error, "%s: read: %s%s", port->c2h_name,
					 strerror(err), is_gone(err) ? "" : " (again and again)");
				break;
			}
			port->c2h_count.errors++;
			continue;
		}
		failures = 0;
		if (got == 0) {
			snprintf(t->error, sizeof t->error, "%s: end of file (the device or its peer "
				 "closed)", port->c2h_name);
			break;
		}
		size_t length = (size_t)got;
		if (length < CPU_BRIDGE_FRAME_MIN) {
			port->c2h_count.runts++;
			continue;
		}
		if (length > frame_max) {
			port->c2h_count.oversize++;
			continue;
		}
		/* The TAP's MTU, read again every second and before dropping a frame over it: it
		 * may have been changed (ip link set NAME mtu N) since. */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (length > port->tap_frame_max || now.tv_sec != mtu_checked) {
			size_t max = tap_frame_max_now(port);
			if (max)
				port->tap_frame_max = max;
			mtu_checked = now.tv_sec;
		}
		if (length > port->tap_frame_max) {
			port->c2h_count.oversize++;
			continue;
		}
		int err = write_frame(t->run, port->tap, buffer, length, &port->c2h_count);
		if (err < 0) {
			snprintf(t->error, sizeof t->error, "%s: write: %s (%s)", tap,
				 strerror(-err), err == -EBADFD ? "the interface was deleted" : "closed");
			break;
		}
	}
out:
	free(buffer);
	atomic_store(&t->done, true);
	if (t->error[0]) {
		ssize_t ignored = write(t->wake_fd, "!", 1);
		(void)ignored;
	}
	return NULL;
}

/* Stops and joins the C2H threads: quit pipe, then SIGUSR2 until each is done (a signal can
 * come just before the thread enters read(), so it is sent again). */
static void stop_threads(struct run *run, struct c2h_thread *threads, unsigned n,
			 int quit_write)
{
	atomic_store(&run->quitting, true);
	ssize_t ignored = write(quit_write, "q", 1);
	(void)ignored;
	for (unsigned i = 0; i < n; i++) {
		if (!threads[i].started)
			continue;
		while (!atomic_load(&threads[i].done)) {
			pthread_kill(threads[i].thread, SIGUSR2);
			struct timespec pause = {0, 2 * 1000 * 1000};
			nanosleep(&pause, NULL);
		}
		pthread_join(threads[i].thread, NULL);
	}
}

/* One frame from TAP to H2C: 0, or -1 fatal (bridge->error filled). */
static int tap_to_h2c(struct run *run, struct cpu_bridge *bridge, struct cpu_bridge_port *port,
		      uint8_t *buffer)
{
	char tap[48];
	tap_label(port, tap, sizeof tap);
	ssize_t got;
	do
		got = read(port->tap, buffer, BUFFER_BYTES);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		int err = errno;
		unsigned *failures = &run->tap_failures[port - bridge->ports];
		if (is_gone(err) || ++*failures >= READ_ERRORS_FATAL) {
			snprintf(bridge->error, sizeof bridge->error, "%s: read: %s%s", tap,
				 strerror(err), err == EBADFD ? " (the interface was deleted)"
						: is_gone(err) ? "" : " (again and again)");
			return -1;
		}
		port->h2c_count.errors++;
		return 0;
	}
	run->tap_failures[port - bridge->ports] = 0;
	if (got == 0) {
		snprintf(bridge->error, sizeof bridge->error, "%s: end of file (closed)", tap);
		return -1;
	}
	size_t length = (size_t)got;
	if (length < CPU_BRIDGE_FRAME_MIN) {
		port->h2c_count.runts++;
		return 0;
	}
	if (length > bridge->frame_max) {
		port->h2c_count.oversize++;
		return 0;
	}
	int err = write_frame(run, port->h2c, buffer, length, &port->h2c_count);
	if (err < 0) {
		snprintf(bridge->error, sizeof bridge->error, "%s: write: %s (closed)",
			 port->h2c_name, strerror(-err));
		return -1;
	}
	return 0;
}

int cpu_bridge_run(struct cpu_bridge *bridge)
{
	bridge->error[0] = '\0';
	if (!bridge->frame_max)
		bridge->frame_max = CPU_BRIDGE_FRAME_MAX;
	if (bridge->n_ports > CPU_BRIDGE_PORTS) {
		snprintf(bridge->error, sizeof bridge->error, "%u ports, at most %d",
			 bridge->n_ports, CPU_BRIDGE_PORTS);
		return -1;
	}
	uint8_t *buffer = malloc(BUFFER_BYTES);
	int quit[2] = {-1, -1}, wake[2] = {-1, -1};
	if (!buffer || pipe2(quit, O_CLOEXEC) < 0 || pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(bridge->error, sizeof bridge->error, "setting up: %s",
			 buffer ? strerror(errno) : "out of memory");
		free(buffer);
		for (int i = 0; i < 2; i++) {
			if (quit[i] >= 0)
				close(quit[i]);
		}
		return -1;
	}
	struct run run = {.stop_fd = bridge->stop_fd};
	atomic_init(&run.quitting, false);

	struct sigaction usr2 = {0}, old_usr2, ignore = {0}, old_pipe;
	usr2.sa_handler = on_sigusr2; /* no SA_RESTART: a blocked read returns EINTR */
	sigemptyset(&usr2.sa_mask);
	sigaction(SIGUSR2, &usr2, &old_usr2);
	ignore.sa_handler = SIG_IGN;
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGPIPE, &ignore, &old_pipe);

	/* The threads take no signal but SIGUSR2: SIGINT and SIGTERM reach the caller's thread. */
	sigset_t all, old_mask;
	sigfillset(&all);
	sigdelset(&all, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &all, &old_mask);
	struct c2h_thread threads[CPU_BRIDGE_PORTS];
	memset(threads, 0, sizeof threads);
	int status = 0;
	for (unsigned i = 0; i < bridge->n_ports; i++) {
		struct c2h_thread *t = &threads[i];
		t->run = &run;
		t->bridge = bridge;
		t->port = &bridge->ports[i];
		t->quit_fd = quit[0];
		t->wake_fd = wake[1];
		atomic_init(&t->done, false);
		int err = pthread_create(&t->thread, NULL, c2h_main, t);
		if (err) {
			snprintf(bridge->error, sizeof bridge->error, "starting a thread: %s",
				 strerror(err));
			status = -1;
			break;
		}
		t->started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);

	struct pollfd fds[CPU_BRIDGE_PORTS + 2];
	unsigned n = bridge->n_ports;
	while (status == 0) {
		for (unsigned i = 0; i < n; i++)
			fds[i] = (struct pollfd){bridge->ports[i].tap, POLLIN, 0};
		fds[n] = (struct pollfd){bridge->stop_fd, POLLIN, 0};
		fds[n + 1] = (struct pollfd){wake[0], POLLIN, 0};
		int ready = poll(fds, n + 2, -1);
		if (ready < 0) {
			if (errno == EINTR)
				continue; /* a stop signal's handler makes stop_fd readable */
			snprintf(bridge->error, sizeof bridge->error, "poll: %s", strerror(errno));
			status = -1;
			break;
		}
		if (fds[n].revents || fds[n + 1].revents)
			break;
		/* One frame per ready TAP and round: no port waits behind another's burst. */
		for (unsigned i = 0; i < n && status == 0; i++)
			if (fds[i].revents)
				status = tap_to_h2c(&run, bridge, &bridge->ports[i], buffer);
	}
	stop_threads(&run, threads, n, quit[1]);
	/* A thread's fatal error, when the loop did not stop on one of its own. */
	for (unsigned i = 0; i < n; i++)
		if (threads[i].error[0] && status == 0) {
			snprintf(bridge->error, sizeof bridge->error, "%s", threads[i].error);
			status = -1;
		}

	sigaction(SIGUSR2, &old_usr2, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	for (int i = 0; i < 2; i++) {
		close(quit[i]);
		close(wake[i]);
	}
	free(buffer);
	return status;
}
