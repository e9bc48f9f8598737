/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Simulator backend: pktstats-sim's Unix socket, text protocol version 1
 * (docs/simulator-protocol.md). One request line, then its one reply line; `error CODE`
 * replies map to errno by the protocol's table. A simulator that exits or dies gives -ENODEV
 * (never SIGPIPE: every send uses MSG_NOSIGNAL); one that stops answering gives -ETIMEDOUT.
 */
#define _DEFAULT_SOURCE

#include "device_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SIM_NAME "pktstats-sim"
#define SIM_PROTOCOL "1"
/* How long a reply may take. Replies take a few simulated clocks, far less than this even for
 * a slow simulation; beyond it the simulator is stopped or hung, and the caller gets
 * -ETIMEDOUT rather than hanging with it. */
#define SIM_TIMEOUT_S 10
/* How long open waits for a socket that is not there yet (ENOENT, its directory existing) or
 * not yet listening (ECONNREFUSED: bound a moment before listen, or a stale file a starting
 * simulator is about to replace), trying again every SIM_RETRY_MS. A simulator started in the
 * background just before (`pktstats-sim --socket P & pktstats ...`) listens within ~100 ms.
 * Not with PKTSTATS_OPEN_NO_WAIT: a daemon that retries on its own schedule. */
#define SIM_CONNECT_WAIT_MS 3000
#define SIM_RETRY_MS 10

/* The protocol's error codes and the errno a client maps them to. */
static int sim_errno(long code)
{
	switch (code) {
	case 1: /* syntax */
	case 2: /* unknown command */
	case 4: /* unaligned address */
	case 7: /* incomplete line */
		return EINVAL;
	case 3: /* number out of range */
		return ERANGE;
	case 5: /* address out of range */
		return EFAULT;
	case 6: /* line too long */
		return E2BIG;
	case 8: /* too many clients */
		return EBUSY;
	case 11: /* decode error */
		return ENXIO;
	case 12: /* timeout */
		return ETIMEDOUT;
	case 10: /* slave error */
	case 13: /* backend failure */
	default: /* codes added later: a failure with its message */
		return EIO;
	}
}

/* Once the stream may be out of step (a reply not read in time, a reply not understood), no
 * later reply can be matched to its request: the connection is closed and later calls fail. */
static int give_up(struct pktstats_dev *dev, int err)
{
	if (dev->fd >= 0) {
		close(dev->fd);
		dev->fd = -1;
	}
	dev->broken = true;
	return err;
}

static int sys_failed(struct pktstats_dev *dev, int err, const char *what)
{
	char text[128];

	if (err == EPIPE || err == ECONNRESET)
		return pktstats_fail(dev, give_up(dev, -ENODEV),
				     "simulator closed the connection (exited or killed)");
	if (err == EAGAIN || err == EWOULDBLOCK)
		return pktstats_fail(dev, give_up(dev, -ETIMEDOUT),
				     "no reply from the simulator in %d s (stopped or hung?)",
				     SIM_TIMEOUT_S);
	return pktstats_fail(dev, give_up(dev, -err), "%s: %s", what,
			     pktstats_errno_text(err, text, sizeof text));
}

/* A quoted reply leaves room in the detail for what precedes it. */
#define QUOTED_MAX (PKTSTATS_ERROR_MAX - 64)

/* Copy a reply into the error detail, with control bytes as \xNN, so that the detail stays
 * one printable line. */
static void quote(char *out, size_t size, const char *line)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)line; *p && n + 5 < size; p++) {
		if (*p >= 0x20 && *p < 0x7f)
			out[n++] = (char)*p;
		else
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", *p);
	}
	out[n] = '\0';
}

/* Send bytes (request lines, each with its \n). */
static int send_all(struct pktstats_dev *dev, const char *data, size_t len)
{
	size_t sent = 0;

	if (dev->broken)
		return pktstats_fail(dev, -ENOTCONN,
				     "simulator connection closed after an earlier failure");
	while (sent < len) {
		ssize_t n = send(dev->fd, data + sent, len - sent, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sys_failed(dev, errno, "send");
		}
		sent += (size_t)n;
	}
	return 0;
}

/* Read the next reply line into reply (without the \n or a \r before it). */
static int receive_line(struct pktstats_dev *dev, char *reply, size_t size)
{
	for (;;) {
		char *nl = memchr(dev->rx, '\n', dev->rx_len);
		ssize_t n;

		if (nl) {
			size_t line = (size_t)(nl - dev->rx);

			if (line >= size)
				return pktstats_fail(dev, give_up(dev, -EPROTO),
						     "simulator reply of %zu bytes, too long",
						     line);
			memcpy(reply, dev->rx, line);
			reply[line] = '\0';
			if (line && reply[line - 1] == '\r')
				reply[line - 1] = '\0';
			dev->rx_len -= line + 1;
			memmove(dev->rx, nl + 1, dev->rx_len);
			return 0;
		}
		if (dev->rx_len == sizeof dev->rx)
			return pktstats_fail(dev, give_up(dev, -EPROTO),
					     "simulator reply longer than %zu bytes",
					     sizeof dev->rx);
		n = recv(dev->fd, dev->rx + dev->rx_len, sizeof dev->rx - dev->rx_len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sys_failed(dev, errno, "recv");
		}
		if (n == 0)
			return pktstats_fail(dev, give_up(dev, -ENODEV),
					     "simulator closed the connection (exited or killed)");
		dev->rx_len += (size_t)n;
	}
}

/* Send one request line (with its \n) and read its reply line. */
static int transact(struct pktstats_dev *dev, const char *request, char *reply, size_t size)
{
	int r = send_all(dev, request, strlen(request));

	return r < 0 ? r : receive_line(dev, reply, size);
}

/* A reply line: on `ok` return 0 with *rest pointing at the words after it; on `error CODE
 * msg` return the mapped -errno with the reply in the detail. */
static int interpret(struct pktstats_dev *dev, char *reply, const char **rest)
{
	char quoted[QUOTED_MAX];

	if (strcmp(reply, "ok") == 0 || strncmp(reply, "ok ", 3) == 0) {
		*rest = reply[2] ? reply + 3 : reply + 2;
		return 0;
	}
	quote(quoted, sizeof quoted, reply);
	if (strncmp(reply, "error ", 6) == 0) {
		char *end;
		long code = strtol(reply + 6, &end, 10);

		if (end != reply + 6 && (*end == ' ' || *end == '\0'))
			return pktstats_fail(dev, -sim_errno(code), "simulator answered: %s",
					     quoted);
	}
	return pktstats_fail(dev, give_up(dev, -EPROTO), "unexpected simulator reply: %s", quoted);
}

/* Send line and interpret its reply (in reply, size bytes). */
static int request(struct pktstats_dev *dev, const char *line, char *reply, size_t size,
		   const char **rest)
{
	int r = transact(dev, line, reply, size);

	return r < 0 ? r : interpret(dev, reply, rest);
}

/* The value of a read's `ok 0xVVVVVVVV`, nothing else. */
static int read_value(struct pktstats_dev *dev, const char *rest, uint32_t *value)
{
	char quoted[QUOTED_MAX];

	if (strncmp(rest, "0x", 2) != 0 || strlen(rest) != 10 ||
	    strspn(rest + 2, "0123456789abcdefABCDEF") != 8) {
		quote(quoted, sizeof quoted, rest);
		return pktstats_fail(dev, give_up(dev, -EPROTO),
				     "unexpected reply to read: 'ok %s'", quoted);
	}
	*value = (uint32_t)strtoul(rest + 2, NULL, 16);
	return 0;
}

static int sim_read32(struct pktstats_dev *dev, uint32_t offset, uint32_t *value)
{
	char line[32], reply[PKTSTATS_SIM_LINE_MAX];
	const char *rest;
	int r;

	snprintf(line, sizeof line, "read 0x%08x\n", (unsigned)offset);
	r = request(dev, line, reply, sizeof reply, &rest);
	return r < 0 ? r : read_value(dev, rest, value);
}

/* Reads sent SIM_PIPELINE at a time: the server takes one request after another from its
 * socket buffer, each as soon as the previous one is answered, without waiting for its next
 * poll; a bounded batch keeps both socket buffers far from full. */
#define SIM_PIPELINE 128
#define SIM_READ_LINE 17 /* "read 0xVVVVVVVV\n" */

static int sim_read_many(struct pktstats_dev *dev, const uint32_t *offsets, size_t n,
			 uint32_t *values, size_t *done)
{
	char lines[SIM_PIPELINE * SIM_READ_LINE + 1], reply[PKTSTATS_SIM_LINE_MAX];
	int first_error = 0;

	*done = 0;
	for (size_t start = 0; start < n; start += SIM_PIPELINE) {
		size_t count = n - start < SIM_PIPELINE ? n - start : SIM_PIPELINE, len = 0;
		int r;

		for (size_t i = 0; i < count; i++)
			len += (size_t)snprintf(lines + len, sizeof lines - len, "read 0x%08x\n",
						(unsigned)offsets[start + i]);
		r = send_all(dev, lines, len);
		if (r < 0)
			return r;
		/* Every reply is read, also after an error reply, so that the stream stays in
		 * step; the first failure is returned. */
		for (size_t i = 0; i < count; i++) {
			const char *rest;

			r = receive_line(dev, reply, sizeof reply);
			if (r < 0)
				return r; /* the connection is given up */
			if (first_error)
				continue;
			r = interpret(dev, reply, &rest);
			if (r == 0)
				r = read_value(dev, rest, &values[start + i]);
			if (r < 0) {
				if (dev->broken)
					return r;
				first_error = r;
				continue;
			}
			*done = start + i + 1;
		}
		if (first_error)
			return first_error;
	}
	return 0;
}

static int sim_write32(struct pktstats_dev *dev, uint32_t offset, uint32_t value)
{
	char line[40], reply[PKTSTATS_SIM_LINE_MAX], quoted[QUOTED_MAX];
	const char *rest;
	int r;

	snprintf(line, sizeof line, "write 0x%08x 0x%08x\n", (unsigned)offset, (unsigned)value);
	r = request(dev, line, reply, sizeof reply, &rest);
	if (r < 0)
		return r;
	if (rest[0] != '\0') {
		quote(quoted, sizeof quoted, rest);
		return pktstats_fail(dev, give_up(dev, -EPROTO),
				     "unexpected reply to write: 'ok %s'", quoted);
	}
	return 0;
}

static void sim_close(struct pktstats_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

static const struct pktstats_backend_ops sim_ops = {
	.kind = PKTSTATS_BACKEND_SIM,
	.read32 = sim_read32,
	.write32 = sim_write32,
	.read_many = sim_read_many,
	.close = sim_close,
};

/* A socket for one connection attempt (POSIX leaves a socket whose connect failed
 * unspecified, so every attempt has a new one), with the reply timeout. */
static int new_socket(struct pktstats_dev *dev)
{
	struct timeval timeout = {.tv_sec = SIM_TIMEOUT_S};
	char text[128];
	int r;

	dev->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (dev->fd < 0) {
		r = errno;
		return pktstats_fail(dev, -r, "socket: %s",
				     pktstats_errno_text(r, text, sizeof text));
	}
	if (setsockopt(dev->fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0 ||
	    setsockopt(dev->fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout) != 0) {
		r = errno;
		return pktstats_fail(dev, -r, "setsockopt: %s",
				     pktstats_errno_text(r, text, sizeof text));
	}
	return 0;
}

/* Whether a failed connect may succeed soon: the socket file is missing but its directory is
 * there (a missing directory will not appear by itself), or nobody listens on it yet. */
static bool may_appear(int err, const char *path)
{
	char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (err == ECONNREFUSED)
		return true;
	if (err != ENOENT)
		return false;
	if (!slash)
		return true; /* in the current directory */
	snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static long elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

int pktstats_sim_open(struct pktstats_dev *dev, const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	static const char hello_ok[] = SIM_NAME " " SIM_PROTOCOL " "; /* then the design */
	static const struct timespec retry = {.tv_nsec = SIM_RETRY_MS * 1000000L};
	char text[128], design[64], reply[PKTSTATS_SIM_LINE_MAX], quoted[QUOTED_MAX];
	char waited[32] = "";
	struct timespec start;
	const char *rest;
	bool wait;
	int r;

	if (strlen(path) >= sizeof addr.sun_path)
		return pktstats_fail(dev, -ENAMETOOLONG,
				     "socket path too long (%zu bytes, at most %zu)", strlen(path),
				     sizeof addr.sun_path - 1);
	memcpy(addr.sun_path, path, strlen(path) + 1);
	dev->ops = &sim_ops;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		r = new_socket(dev);
		if (r < 0)
			return r;
		if (connect(dev->fd, (const struct sockaddr *)&addr, sizeof addr) == 0)
			break;
		r = errno;
		sim_close(dev);
		wait = r == EINTR || (!(dev->flags & PKTSTATS_OPEN_NO_WAIT) && may_appear(r, path));
		if (wait && elapsed_ms(&start) < SIM_CONNECT_WAIT_MS) {
			nanosleep(&retry, NULL);
			continue;
		}
		if (wait)
			snprintf(waited, sizeof waited, ", waited %d s", SIM_CONNECT_WAIT_MS / 1000);
		return pktstats_fail(dev, -r, "cannot connect to the simulator%s: %s%s", waited,
				     pktstats_errno_text(r, text, sizeof text),
				     r == ECONNREFUSED
					     ? " (a socket left by a simulator that died?)"
				     : r == ENOENT ? " (is pktstats-sim running with --socket?)"
						   : "");
	}
	/* The server name and protocol version first: anything else on the socket is not ours. */
	r = request(dev, "hello\n", reply, sizeof reply, &rest);
	if (r < 0) {
		/* error 8 (too many clients) keeps its -EBUSY; a server that does not know
		 * `hello` is not the simulator. */
		pktstats_error_prefix(dev, "hello: ");
		return r == -EINVAL ? -EPROTO : r;
	}
	if (strncmp(rest, hello_ok, sizeof hello_ok - 1) != 0 ||
	    sscanf(rest + sizeof hello_ok - 1, "%63s", design) != 1) {
		quote(quoted, sizeof quoted, rest);
		return pktstats_fail(dev, give_up(dev, -EPROTO),
				     "does not answer as %s protocol %s: 'ok %s'", SIM_NAME,
				     SIM_PROTOCOL, quoted);
	}
	snprintf(dev->description, sizeof dev->description,
		 "%s (protocol %s, design %s) on socket %s", SIM_NAME, SIM_PROTOCOL, design, path);
	return 0;
}
