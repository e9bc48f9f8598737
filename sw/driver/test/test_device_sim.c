/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of libpktstats' simulator backend against the real simulator: starts
 * build/bin/pktstats-sim --socket in a temporary directory, opens sim:PATH, checks the
 * identity, reads and writes registers of the Verilated design (32-bit, 64-bit with the
 * latch/commit rule, a register that legitimately reads all ones, bus errors), then kills the
 * simulator and checks that the next accesses fail with an error, not a crash or SIGPIPE;
 * stops one (SIGSTOP: -ETIMEDOUT after 10 s), and ends one with SIGTERM.
 *
 * The simulator is $PKTSTATS_SIM, or ../../bin/pktstats-sim next to this program
 * (build/asan/test/ -> build/bin/); `make test` builds it first. Without it, everything is
 * skipped.
 */
#define _DEFAULT_SOURCE

#include "pktstats/pktstats.h"
#include "pktstats/regs.h"

#include "test_sim_process.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static void test_live(pid_t *pid)
{
	struct pktstats_dev *dev = NULL, *dev2 = NULL;
	struct pktstats_identity id;
	char error[PKTSTATS_ERROR_MAX], device[160];
	uint32_t v = 0;
	uint64_t v64 = 0;
	int rc;

	rc = open_when_ready(*pid, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "sim:PATH opens the running simulator, identity checked");
	if (rc < 0)
		return;
	tap_ok(pktstats_backend(dev) == PKTSTATS_BACKEND_SIM, "backend is sim");
	TAP_HAS(pktstats_description(dev), "design pktstats_core",
		"the description has the design from hello");
	TAP_HAS(pktstats_description(dev), sock, "the description has the socket path");
	rc = pktstats_identity(dev, &id);
	tap_ok(rc == 0 && id.magic == PKTSTATS_MAGIC &&
		       id.major == (PKTSTATS_ID_DESIGN_VERSION_VALUE >> 16),
	       "identity: magic 0x%08x, design version %u.%u, git hash 0x%08x", (unsigned)id.magic,
	       (unsigned)id.major, (unsigned)id.minor, (unsigned)id.git_hash);

	rc = pktstats_read32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, &v);
	tap_ok(rc == 0 && v == PKTSTATS_EVCAP_UDP_DESTINATION_PORT_RESET,
	       "evcap.udp_destination_port reads its reset value 0x%04x", (unsigned)v);
	rc = pktstats_write32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, 0x1234);
	TAP_RC(rc, 0, pktstats_error(dev), "write evcap.udp_destination_port = 0x1234");
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, &v);
	tap_ok(rc == 0 && v == 0x1234, "and it reads back 0x%04x", (unsigned)v);
	rc = pktstats_write32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT,
			      PKTSTATS_EVCAP_UDP_DESTINATION_PORT_RESET);
	TAP_RC(rc, 0, pktstats_error(dev), "and is restored");

	/* evcap.destination_ip resets to 255.255.255.255: all ones is a value here, since
	 * id.magic still answers. */
	rc = pktstats_read32(dev, PKTSTATS_EVCAP_DESTINATION_IP, &v);
	tap_ok(rc == 0 && v == 0xffffffff,
	       "evcap.destination_ip reads 0xffffffff (rc %d): a value, not a gone device", rc);

	/* 64-bit: write64 commits; a low-word write alone changes nothing visible (so the order
	 * inside write64 matters), and read64 returns both halves of one value. */
	rc = pktstats_write64(dev, PKTSTATS_EVCAP_DESTINATION_MAC, 0x020304050607ull);
	TAP_RC(rc, 0, pktstats_error(dev), "write64 evcap.destination_mac = 02:03:04:05:06:07");
	rc = pktstats_read64(dev, PKTSTATS_EVCAP_DESTINATION_MAC, &v64);
	tap_ok(rc == 0 && v64 == 0x020304050607ull, "read64 gives it back (0x%012llx)",
	       (unsigned long long)v64);
	rc = pktstats_write32(dev, PKTSTATS_EVCAP_DESTINATION_MAC_LO, 0xaabbccdd);
	rc |= pktstats_read64(dev, PKTSTATS_EVCAP_DESTINATION_MAC, &v64);
	tap_ok(rc == 0 && v64 == 0x020304050607ull,
	       "a write of the low word alone is not visible until the high word commits");
	rc = pktstats_write64(dev, PKTSTATS_EVCAP_DESTINATION_MAC, 0xffffffffffffull);
	rc |= pktstats_read64(dev, PKTSTATS_EVCAP_DESTINATION_MAC, &v64);
	tap_ok(rc == 0 && v64 == 0xffffffffffffull, "destination_mac restored to broadcast");
	rc = pktstats_read64(dev, PKTSTATS_EVCAP_EVENTS_SENT, &v64);
	TAP_RC(rc, 0, pktstats_error(dev), "read64 of the counter evcap.events_sent (%llu)",
	       (unsigned long long)v64);

	/* Bus errors from the design, through the protocol's error codes. */
	rc = pktstats_write32(dev, PKTSTATS_ID_MAGIC, 1);
	TAP_RC(rc, -EIO, pktstats_error(dev), "a write to the const id.magic: SLVERR, -EIO");
	TAP_HAS(pktstats_error(dev), "error 10", "the detail has the simulator's error 10");
	rc = pktstats_read32(dev, 0xf000, &v);
	TAP_RC(rc, -ENXIO, pktstats_error(dev), "a read with no block at 0xf000: DECERR, -ENXIO");
	TAP_HAS(pktstats_error(dev), "error 11", "the detail has the simulator's error 11");
	rc = pktstats_read32(dev, PKTSTATS_ID_MAGIC, &v);
	tap_ok(rc == 0 && v == PKTSTATS_MAGIC, "the connection still serves after errors");

	/* pktstats_read_many(): 300 pipelined reads give what single reads give, in order (the
	 * 64-bit latch rule included); a failure in the middle (DECERR) comes back with the
	 * values before it, and the connection stays in step. */
	{
		enum { N = 300 };
		uint32_t offsets[N], values[N], single[N];
		const uint32_t words[] = {PKTSTATS_ID_MAGIC, PKTSTATS_ID_DESIGN_VERSION,
					  PKTSTATS_EVCAP_DESTINATION_MAC_LO,
					  PKTSTATS_EVCAP_DESTINATION_MAC_LO + 4,
					  PKTSTATS_EVCAP_UDP_DESTINATION_PORT,
					  PKTSTATS_EVCAP_DESTINATION_IP};
		size_t nw = sizeof words / sizeof words[0];
		bool same = true;

		for (size_t i = 0; i < N; i++)
			offsets[i] = words[i % nw];
		rc = pktstats_read_many(dev, offsets, N, values);
		for (size_t i = 0; i < N && rc == 0; i++)
			if (pktstats_read32(dev, offsets[i], &single[i]) < 0 || single[i] != values[i])
				same = false;
		tap_ok(rc == 0 && same && values[0] == PKTSTATS_MAGIC && values[2] == 0xffffffff &&
			       values[3] == 0xffff && values[5] == 0xffffffff,
		       "read_many: %d pipelined reads equal single reads (rc %d)", N, rc);
		offsets[7] = 0xf000;
		memset(values, 0, sizeof values);
		rc = pktstats_read_many(dev, offsets, N, values);
		TAP_RC(rc, -ENXIO, pktstats_error(dev),
		       "read_many: a read with no block at 0xf000 in the middle: -ENXIO");
		TAP_HAS(pktstats_error(dev), "0x0000f000", "the detail names the failed address");
		tap_ok(values[6] == PKTSTATS_MAGIC && values[7] == 0 && values[8] == 0,
		       "the values before the failure are filled, none after it");
		rc = pktstats_read32(dev, PKTSTATS_ID_DESIGN_VERSION, &v);
		tap_ok(rc == 0 && v == values[1],
		       "the connection is still in step after the failed batch");
		offsets[9] = 0x10000;
		rc = pktstats_read_many(dev, offsets, N, values);
		TAP_RC(rc, -EFAULT, pktstats_error(dev),
		       "read_many: an offset beyond the register space: -EFAULT, nothing read");
		rc = pktstats_read_many(dev, offsets, 0, NULL);
		tap_ok(rc == 0, "read_many of nothing: 0");
	}

	/* A second client at the same time; a socket path without sim: finds the same backend. */
	rc = pktstats_open(sock, 0, &dev2, error, sizeof error);
	TAP_RC(rc, 0, error, "a second handle, opened by the bare socket path");
	if (rc == 0) {
		tap_ok(pktstats_backend(dev2) == PKTSTATS_BACKEND_SIM, "it is the sim backend");
		rc = pktstats_read32(dev2, PKTSTATS_ID_GIT_HASH, &v);
		tap_ok(rc == 0 && v == id.git_hash, "both handles see the same design");
	}

	/* The simulator dies: a write (send to a closed peer, SIGPIPE without MSG_NOSIGNAL, which
	 * would kill this test) and a read (end of stream) fail with -ENODEV. */
	stop_simulator(pid, SIGKILL, NULL);
	rc = pktstats_write32(dev, PKTSTATS_EVCAP_UDP_DESTINATION_PORT, 0x1234);
	TAP_RC(rc, -ENODEV, pktstats_error(dev),
	       "after SIGKILL: a write gives -ENODEV, no SIGPIPE");
	TAP_HAS(pktstats_error(dev), "closed the connection",
		"the detail says the simulator went away");
	rc = pktstats_read32(dev, PKTSTATS_ID_MAGIC, &v);
	TAP_RC(rc, -ENOTCONN, pktstats_error(dev), "the next access: -ENOTCONN");
	if (dev2) {
		rc = pktstats_read32(dev2, PKTSTATS_ID_MAGIC, &v);
		TAP_RC(rc, -ENODEV, pktstats_error(dev2), "after SIGKILL: a read gives -ENODEV");
	}
	pktstats_close(dev);
	pktstats_close(dev2);
	snprintf(device, sizeof device, "sim:%s", sock);
	rc = pktstats_open(device, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ECONNREFUSED, error, "the socket file left behind: -ECONNREFUSED");
}

/* A simulator stopped by SIGTERM closes its clients and removes its socket. */
static void test_sigterm(pid_t *pid)
{
	struct pktstats_dev *dev = NULL;
	char error[PKTSTATS_ERROR_MAX];
	uint32_t v;
	int rc, status = -1;
	time_t start, elapsed;

	rc = open_when_ready(*pid, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "a new simulator on the same path (stale socket replaced) opens");
	if (rc < 0)
		return;

	/* A stopped simulator: the read gives up after the library's 10 s, not never. */
	kill(*pid, SIGSTOP);
	start = time(NULL);
	rc = pktstats_read32(dev, PKTSTATS_ID_MAGIC, &v);
	elapsed = time(NULL) - start;
	TAP_RC(rc, -ETIMEDOUT, pktstats_error(dev), "a stopped simulator: -ETIMEDOUT");
	tap_ok(elapsed >= 9 && elapsed <= 30, "after about 10 s (%ld s)", (long)elapsed);
	rc = pktstats_read32(dev, PKTSTATS_ID_MAGIC, &v);
	TAP_RC(rc, -ENOTCONN, pktstats_error(dev), "then the connection is given up: -ENOTCONN");
	kill(*pid, SIGCONT);
	pktstats_close(dev);
	rc = open_when_ready(*pid, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "the simulator, continued, takes a new connection");
	if (rc < 0)
		return;
	stop_simulator(pid, SIGTERM, &status);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the simulator exits 0 on SIGTERM");
	rc = pktstats_read32(dev, PKTSTATS_ID_MAGIC, &v);
	TAP_RC(rc, -ENODEV, pktstats_error(dev), "after SIGTERM: a read gives -ENODEV");
	pktstats_close(dev);
	rc = pktstats_open(sock, 0, &dev, error, sizeof error);
	TAP_RC(rc, -ENOENT, error, "the socket file is gone: -ENOENT");
}

int main(int argc, char **argv)
{
	char sim[PATH_MAX];
	pid_t pid;

	(void)argc;
	/* The default action, whatever the parent set: a SIGPIPE must kill this test. */
	signal(SIGPIPE, SIG_DFL);
	if (simulator_setup(argv[0], sim, sizeof sim, "test_device_sim"))
		return tap_done();

	pid = start_simulator(sim, NULL);
	test_live(&pid);
	stop_simulator(&pid, SIGKILL, NULL); /* if test_live stopped early */
	pid = start_simulator(sim, NULL);
	test_sigterm(&pid);
	stop_simulator(&pid, SIGKILL, NULL);

	simulator_cleanup();
	return tap_done();
}
