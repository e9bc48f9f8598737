/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding core of `pktstats cpu-bridge run` (sw/tools/pktstats/cpu_bridge.c) on
 * stand-ins: for each of the 4 ports, socketpair(AF_UNIX, SOCK_SEQPACKET) pairs in place of
 * the xdma's H2C and C2H devices and of the TAP, so that one message is one frame as on the
 * real descriptors. cpu_bridge_run() runs in a thread; this test plays the host (the TAPs'
 * far ends) and the board (the devices' far ends). Prints TAP.
 *
 * Checked: frames of every size 60..9216 (a sweep of the small ones and the edges) cross both
 * ways intact, one message each; bursts on all ports at once keep their order; frames over
 * 9216 bytes, over the TAP's MTU + 18, and under 14 bytes are dropped and counted; a failed
 * write (EMSGSIZE) is counted and the next frame passes; the counters are exact; stopping
 * returns 0, also while a write to H2C is blocked (the board not taking frames); a peer that
 * closes (C2H, TAP, H2C) ends the run with -1 and an error naming it, without a crash or a
 * hang.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cpu_bridge.h"

/* ---- TAP ---- */

static unsigned tests_run, tests_failed;
static int test_ok;

static void begin(void)
{
	test_ok = 1;
}

static void end(const char *name)
{
	tests_run++;
	if (!test_ok)
		tests_failed++;
	printf("%sok %u - %s\n", test_ok ? "" : "not ", tests_run, name);
	fflush(stdout);
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define EXPECT(cond)                                                                     \
	do {                                                                             \
		if (!(cond)) {                                                           \
			if (test_ok)                                                     \
				diag("line %d: %s", __LINE__, #cond);                    \
			test_ok = 0;                                                     \
		}                                                                        \
	} while (0)

#define EXPECT_EQ(a, b)                                                                  \
	do {                                                                             \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                         \
		if (a_ != b_) {                                                          \
			if (test_ok)                                                     \
				diag("line %d: %s == %s: %" PRIu64 " != %" PRIu64, __LINE__,   \
				     #a, #b, a_, b_);                                        \
			test_ok = 0;                                                     \
		}                                                                        \
	} while (0)

/* ---- the stand-ins ---- */

#define PORTS CPU_BRIDGE_PORTS
#define BIG 20000

/* The test's ends: board_h2c receives what the bridge writes to H2C, board_c2h sends what the
 * bridge reads from C2H, host_tap is the host's side of the TAP. */
struct rig {
	struct cpu_bridge bridge;
	int board_h2c[PORTS], board_c2h[PORTS], host_tap[PORTS];
	int stop[2];
	pthread_t thread;
	int result;
	bool finished;
	char names[PORTS][3][32];
	struct cpu_bridge_counters want_h2c[PORTS], want_c2h[PORTS];
};

static void *bridge_thread(void *argument)
{
	struct rig *rig = argument;
	rig->result = cpu_bridge_run(&rig->bridge);
	__atomic_store_n(&rig->finished, true, __ATOMIC_SEQ_CST);
	return NULL;
}

static void pair(int *bridge_end, int *test_end)
{
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0) {
		printf("Bail out! socketpair: %s\n", strerror(errno));
		exit(1);
	}
	*bridge_end = fds[0];
	*test_end = fds[1];
}

/* tap_frame_max[p]: the TAP's MTU + 18 for port p. */
static void rig_start(struct rig *rig, const size_t tap_frame_max[PORTS])
{
	memset(rig, 0, sizeof *rig);
	rig->bridge.n_ports = PORTS;
	for (unsigned p = 0; p < PORTS; p++) {
		struct cpu_bridge_port *port = &rig->bridge.ports[p];
		port->index = p;
		pair(&port->h2c, &rig->board_h2c[p]);
		pair(&port->c2h, &rig->board_c2h[p]);
		pair(&port->tap, &rig->host_tap[p]);
		snprintf(rig->names[p][0], sizeof rig->names[p][0], "stand-in_h2c_%u", p);
		snprintf(rig->names[p][1], sizeof rig->names[p][1], "stand-in_c2h_%u", p);
		port->h2c_name = rig->names[p][0];
		port->c2h_name = rig->names[p][1];
		port->tap_name = "";
		port->tap_frame_max = tap_frame_max[p];
	}
	if (pipe(rig->stop) < 0) {
		printf("Bail out! pipe: %s\n", strerror(errno));
		exit(1);
	}
	rig->bridge.stop_fd = rig->stop[0];
	pthread_create(&rig->thread, NULL, bridge_thread, rig);
}

/* Waits up to 5 s for the bridge to return; false if it does not. */
static bool rig_join(struct rig *rig)
{
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	if (pthread_timedjoin_np(rig->thread, NULL, &deadline) != 0) {
		diag("the bridge did not return within 5 s");
		return false;
	}
	return true;
}

/* Stops the bridge; one that does not stop ends the test (a second run must not start while
 * it runs: the runs share the process's SIGUSR2 handler). */
static bool rig_stop(struct rig *rig)
{
	if (write(rig->stop[1], "s", 1) != 1 || !rig_join(rig)) {
		printf("not ok %u - the bridge stops when asked\nBail out! the bridge did not stop\n",
		       tests_run + 1);
		exit(1);
	}
	return true;
}

static void rig_close(struct rig *rig)
{
	for (unsigned p = 0; p < PORTS; p++) {
		struct cpu_bridge_port *port = &rig->bridge.ports[p];
		int fds[] = {port->h2c, port->c2h, port->tap, rig->board_h2c[p], rig->board_c2h[p],
			     rig->host_tap[p]};
		for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
	close(rig->stop[0]);
	close(rig->stop[1]);
}

/* A frame whose bytes say its port, direction, sequence number and length. */
static void make_frame(uint8_t *frame, size_t length, unsigned port, unsigned direction,
		       unsigned sequence)
{
	for (size_t i = 0; i < length; i++)
		frame[i] = (uint8_t)(i * 7 + sequence * 13 + port * 31 + direction * 101);
	if (length >= 14) {
		memset(frame, 0xff, 6); /* broadcast */
		frame[6] = 0x02;
		frame[7] = (uint8_t)port;
		frame[8] = (uint8_t)direction;
		frame[9] = (uint8_t)(sequence >> 16);
		frame[10] = (uint8_t)(sequence >> 8);
		frame[11] = (uint8_t)sequence;
		frame[12] = 0x88;
		frame[13] = 0xb5;
	}
}

static bool send_frame(int fd, const uint8_t *frame, size_t length)
{
	ssize_t wrote = send(fd, frame, length, MSG_NOSIGNAL);
	if (wrote != (ssize_t)length) {
		diag("send of %zu bytes: %zd (%s)", length, wrote, strerror(errno));
		return false;
	}
	return true;
}

/* One message within 2 s: its length, or -1 (nothing came). */
static ssize_t receive(int fd, uint8_t *buffer, size_t size)
{
	struct pollfd p = {fd, POLLIN, 0};
	if (poll(&p, 1, 2000) <= 0)
		return -1;
	return recv(fd, buffer, size, MSG_DONTWAIT);
}

/* Nothing within 100 ms. */
static bool quiet(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	return poll(&p, 1, 100) == 0;
}

/* Sends a frame one way and checks it comes out the other, whole and alone; counts it.
 * direction 0: host -> TAP -> H2C; 1: board -> C2H -> TAP. */
static bool cross(struct rig *rig, unsigned port, unsigned direction, size_t length,
		  unsigned sequence)
{
	static uint8_t frame[BIG], got[BIG];
	make_frame(frame, length, port, direction, sequence);
	int from = direction ? rig->board_c2h[port] : rig->host_tap[port];
	int to = direction ? rig->host_tap[port] : rig->board_h2c[port];
	if (!send_frame(from, frame, length))
		return false;
	ssize_t n = receive(to, got, sizeof got);
	if (n != (ssize_t)length || memcmp(got, frame, length)) {
		diag("port %u %s, %zu bytes: received %zd bytes%s", port, direction ? "c2h" : "h2c",
		     length, n, n == (ssize_t)length ? ", different" : "");
		return false;
	}
	struct cpu_bridge_counters *want = direction ? &rig->want_c2h[port] : &rig->want_h2c[port];
	want->frames++;
	want->bytes += length;
	return true;
}

static bool counters_equal(const char *what, unsigned port, const struct cpu_bridge_counters *a,
			   const struct cpu_bridge_counters *b)
{
	if (!memcmp(a, b, sizeof *a))
		return true;
	diag("port %u %s: frames %" PRIu64 " bytes %" PRIu64 " oversize %" PRIu64 " runts %" PRIu64
	     " errors %" PRIu64 ", expected %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	     " %" PRIu64, port, what, a->frames, a->bytes, a->oversize, a->runts, a->errors,
	     b->frames, b->bytes, b->oversize, b->runts, b->errors);
	return false;
}

static bool all_counters_equal(struct rig *rig)
{
	bool ok = true;
	for (unsigned p = 0; p < PORTS; p++) {
		ok &= counters_equal("h2c", p, &rig->bridge.ports[p].h2c_count, &rig->want_h2c[p]);
		ok &= counters_equal("c2h", p, &rig->bridge.ports[p].c2h_count, &rig->want_c2h[p]);
	}
	return ok;
}

/* ---- the tests ---- */

static const size_t jumbo[PORTS] = {9216, 1518, 9216, 9216};

static void test_forwarding(void)
{
	struct rig rig;
	rig_start(&rig, jumbo);
	unsigned sequence = 0;

	begin();
	bool ok = true;
	for (size_t length = 60; length <= 300 && ok; length++)
		for (unsigned d = 0; d < 2 && ok; d++)
			ok = cross(&rig, (unsigned)length % PORTS, d, length, sequence++);
	EXPECT(ok);
	end("every size 60..300 crosses both ways, whole and one message each, on every port");

	begin();
	static const size_t edges[] = {14, 59, 64, 127, 128, 1000, 1514, 1518, 1522, 2048,
				       4096, 8191, 9000, 9215, 9216};
	ok = true;
	for (unsigned p = 0; p < PORTS && ok; p++)
		for (size_t i = 0; i < sizeof edges / sizeof edges[0] && ok; i++)
			for (unsigned d = 0; d < 2 && ok; d++)
				if (!(d == 1 && edges[i] > jumbo[p]))
					ok = cross(&rig, p, d, edges[i], sequence++);
	EXPECT(ok);
	end("sizes 14..9216 (9216: the switch's largest) cross both ways intact");

	/* Bursts on every port and both directions at once: order kept per port and direction. */
	begin();
	enum { BURST = 40 };
	static uint8_t frame[BIG], got[BIG];
	ok = true;
	for (unsigned k = 0; k < BURST && ok; k++)
		for (unsigned p = 0; p < PORTS && ok; p++) {
			size_t length = 60 + (k * 37 + p * 11) % 1400;
			make_frame(frame, length, p, 0, 100000 + k);
			ok = send_frame(rig.host_tap[p], frame, length);
			make_frame(frame, length, p, 1, 200000 + k);
			ok = ok && send_frame(rig.board_c2h[p], frame, length);
		}
	for (unsigned p = 0; p < PORTS && ok; p++)
		for (unsigned d = 0; d < 2 && ok; d++)
			for (unsigned k = 0; k < BURST && ok; k++) {
				size_t length = 60 + (k * 37 + p * 11) % 1400;
				make_frame(frame, length, p, d, (d ? 200000 : 100000) + k);
				ssize_t n = receive(d ? rig.host_tap[p] : rig.board_h2c[p], got,
						    sizeof got);
				if (n != (ssize_t)length || memcmp(got, frame, length)) {
					diag("burst: port %u %s frame %u: %zd bytes, expected %zu "
					     "(sequence %u)", p, d ? "c2h" : "h2c", k, n, length,
					     n >= 12 ? (unsigned)(got[9] << 16 | got[10] << 8 | got[11])
						     : 0);
					ok = false;
				}
				struct cpu_bridge_counters *want = d ? &rig.want_c2h[p]
								     : &rig.want_h2c[p];
				want->frames++;
				want->bytes += length;
			}
	EXPECT(ok);
	end("bursts of 40 frames on 4 ports and both directions at once keep their order");

	/* Oversized: over 9216 both ways; over the TAP's MTU + 18 (port 1: MTU 1500). */
	begin();
	make_frame(frame, 9217, 0, 0, 1);
	EXPECT(send_frame(rig.host_tap[0], frame, 9217));
	rig.want_h2c[0].oversize++;
	EXPECT(cross(&rig, 0, 0, 9216, sequence++)); /* the next one passes, whole */
	make_frame(frame, 9217, 2, 1, 1);
	EXPECT(send_frame(rig.board_c2h[2], frame, 9217));
	rig.want_c2h[2].oversize++;
	EXPECT(cross(&rig, 2, 1, 9216, sequence++));
	make_frame(frame, 1519, 1, 1, 1);
	EXPECT(send_frame(rig.board_c2h[1], frame, 1519));
	rig.want_c2h[1].oversize++;
	EXPECT(cross(&rig, 1, 1, 1518, sequence++));
	EXPECT(cross(&rig, 1, 0, 9216, sequence++)); /* the MTU limits the TAP's side only */
	EXPECT(quiet(rig.board_h2c[0]) && quiet(rig.host_tap[2]) && quiet(rig.host_tap[1]));
	end("oversized frames (9217 bytes; over MTU + 18 to a TAP) are dropped, counted, not cut");

	begin();
	make_frame(frame, 13, 3, 0, 1);
	EXPECT(send_frame(rig.host_tap[3], frame, 13));
	rig.want_h2c[3].runts++;
	make_frame(frame, 1, 3, 1, 1);
	EXPECT(send_frame(rig.board_c2h[3], frame, 1));
	rig.want_c2h[3].runts++;
	EXPECT(cross(&rig, 3, 0, 60, sequence++));
	EXPECT(cross(&rig, 3, 1, 60, sequence++));
	end("frames under 14 bytes are dropped and counted as runts");

	/* A failed write: the bridge's H2C and TAP ends of port 2 take no message over ~4 KiB
	 * (SO_SNDBUF): EMSGSIZE, counted as an error; the next frame passes. */
	begin();
	int small = 2048;
	EXPECT(setsockopt(rig.bridge.ports[2].h2c, SOL_SOCKET, SO_SNDBUF, &small, sizeof small) ==
	       0);
	EXPECT(setsockopt(rig.bridge.ports[2].tap, SOL_SOCKET, SO_SNDBUF, &small, sizeof small) ==
	       0);
	make_frame(frame, 9000, 2, 0, 1);
	EXPECT(send_frame(rig.host_tap[2], frame, 9000));
	rig.want_h2c[2].errors++;
	make_frame(frame, 9000, 2, 1, 1);
	EXPECT(send_frame(rig.board_c2h[2], frame, 9000));
	rig.want_c2h[2].errors++;
	EXPECT(cross(&rig, 2, 0, 1000, sequence++));
	EXPECT(cross(&rig, 2, 1, 1000, sequence++));
	EXPECT(quiet(rig.board_h2c[2]) && quiet(rig.host_tap[2]));
	end("a failed write (EMSGSIZE) is counted as an error, not fatal; the next frame passes");

	begin();
	EXPECT(rig_stop(&rig));
	EXPECT_EQ(rig.result, 0);
	EXPECT(rig.bridge.error[0] == '\0');
	end("stop_fd stops the bridge: 0, no error");

	begin();
	EXPECT(all_counters_equal(&rig));
	end("the counters are exact per port and direction");
	rig_close(&rig);
}

/* A peer closing: close_end(rig) closes one of the test's ends, then `poke` sends a frame
 * where needed; the run must end with -1 and an error naming what closed. */
static void test_closed(const char *name, int which, const char *expect_in_error)
{
	struct rig rig;
	rig_start(&rig, jumbo);
	begin();
	EXPECT(cross(&rig, 1, 0, 100, 1) && cross(&rig, 1, 1, 100, 2));
	uint8_t frame[100];
	make_frame(frame, sizeof frame, 1, 0, 3);
	switch (which) {
	case 0: /* the board's C2H side closes: read() returns 0 */
		close(rig.board_c2h[1]);
		rig.board_c2h[1] = -1;
		break;
	case 1: /* the host's TAP side closes: read() returns 0 */
		close(rig.host_tap[1]);
		rig.host_tap[1] = -1;
		break;
	case 2: /* the board's H2C side closes: the next write fails with EPIPE */
		close(rig.board_h2c[1]);
		rig.board_h2c[1] = -1;
		EXPECT(send_frame(rig.host_tap[1], frame, sizeof frame));
		break;
	}
	bool returned = rig_join(&rig);
	EXPECT(returned);
	if (!returned) { /* do not leave it running into the next test */
		EXPECT(rig_stop(&rig));
	}
	EXPECT_EQ(rig.result, (uint64_t)-1);
	EXPECT(strstr(rig.bridge.error, expect_in_error) != NULL);
	if (!test_ok || getenv("VERBOSE"))
		diag("error: '%s'", rig.bridge.error);
	end(name);
	rig_close(&rig);
}

static void no_op(int signal_number)
{
	(void)signal_number;
}

/* The board not taking frames: the bridge's H2C write blocks (the stand-in's queue is full, as
 * the xdma's write waits for the board). A stop (stop_fd, then a signal to interrupt the write,
 * as SIGINT does in the command) must end the run; the frame being written counts as an
 * error. */
static void test_stop_blocked(void)
{
	struct rig rig;
	rig_start(&rig, jumbo);
	begin();
	static uint8_t frame[BIG];
	unsigned sent = 0;
	for (unsigned i = 0; i < 200; i++) { /* until the bridge stops reading: it is blocked */
		make_frame(frame, 9000, 0, 0, i);
		if (send(rig.host_tap[0], frame, 9000, MSG_DONTWAIT | MSG_NOSIGNAL) != 9000)
			break;
		sent++;
		struct timespec pause = {0, 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	EXPECT(sent > 0 && sent < 200);
	EXPECT(write(rig.stop[1], "s", 1) == 1);
	/* SIGUSR2 has the bridge's handler while it runs and no_op's after: never fatal here. */
	for (unsigned k = 0; k < 2500 && !__atomic_load_n(&rig.finished, __ATOMIC_SEQ_CST); k++) {
		pthread_kill(rig.thread, SIGUSR2);
		struct timespec pause = {0, 2 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	bool returned = rig_join(&rig);
	EXPECT(returned);
	if (!returned) {
		printf("not ok %u - a stop ends a run blocked in an H2C write\n"
		       "Bail out! the bridge did not stop\n", tests_run + 1);
		exit(1);
	}
	EXPECT_EQ(rig.result, 0);
	uint64_t drained = 0, bytes = 0;
	uint8_t got[BIG];
	ssize_t n;
	while ((n = recv(rig.board_h2c[0], got, sizeof got, MSG_DONTWAIT)) > 0) {
		drained++;
		bytes += (uint64_t)n;
	}
	rig.want_h2c[0].frames = drained;
	rig.want_h2c[0].bytes = bytes;
	rig.want_h2c[0].errors = 1;
	EXPECT(counters_equal("h2c", 0, &rig.bridge.ports[0].h2c_count, &rig.want_h2c[0]));
	end("a stop ends a run blocked in an H2C write; that frame counts as an error, the rest "
	    "were delivered");
	rig_close(&rig);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction quiet_usr2 = {0};
	quiet_usr2.sa_handler = no_op;
	sigemptyset(&quiet_usr2.sa_mask);
	sigaction(SIGUSR2, &quiet_usr2, NULL);
	test_forwarding();
	test_stop_blocked();
	test_closed("C2H peer closed: -1, the error names stand-in_c2h_1 and end of file", 0,
		    "stand-in_c2h_1: end of file");
	test_closed("TAP peer closed: -1, the error names the TAP and end of file", 1,
		    "the TAP of port 1: end of file");
	test_closed("H2C peer closed: -1 on the next frame, the error names stand-in_h2c_1", 2,
		    "stand-in_h2c_1: write: Broken pipe");
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
}
