/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: the forwarding core of `pktstats cpu-bridge run` (cpu_bridge_cmd.c), kept apart
 * from the command so that it runs on any file descriptors: the XDMA's character devices and
 * TAP interfaces in the command, socketpair(AF_UNIX, SOCK_SEQPACKET) stand-ins in
 * tb/cli/test_cpu_bridge.c. One read() is one frame and one write() is one frame on every side.
 *
 * For each port: TAP -> H2C ("h2c": from the host into the board), C2H -> TAP ("c2h": from the
 * board to the host). The TAP -> H2C side of every port runs in the calling thread with poll();
 * each port's C2H -> TAP side runs in a thread of its own with blocking reads, because the xdma
 * driver's C2H device cannot be polled (see cpu_bridge.c). One thread per direction and port,
 * each handling one frame after the other: frames are never reordered.
 */
#ifndef PKTSTATS_CLI_CPU_BRIDGE_H
#define PKTSTATS_CLI_CPU_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#define CPU_BRIDGE_PORTS 4
/* The largest frame a CPU port of the switch takes or gives (without FCS):
 * TrafficGenerator::largest_frame_bytes in sim/traffic_generator.h. */
#define CPU_BRIDGE_FRAME_MAX 9216
/* Smaller than an Ethernet header: not a frame (counted as a runt, dropped). */
#define CPU_BRIDGE_FRAME_MIN 14
/* What is added to a TAP's MTU for the largest frame it takes: the Ethernet header and one
 * 802.1Q tag. */
#define CPU_BRIDGE_TAP_OVERHEAD 18

struct cpu_bridge_counters {
	uint64_t frames;   /* forwarded whole */
	uint64_t bytes;    /* of those frames */
	uint64_t oversize; /* dropped: larger than the switch takes (h2c) or the TAP's MTU (c2h) */
	uint64_t runts;    /* dropped: shorter than an Ethernet header */
	uint64_t errors;   /* dropped: a failed or short write, or a failed read */
};

struct cpu_bridge_port {
	unsigned index;       /* N of h2c_N and c2h_N: for messages */
	int h2c, c2h, tap;    /* open descriptors; the caller closes them */
	const char *h2c_name; /* for messages: "/dev/xdma0_h2c_0" */
	const char *c2h_name;
	const char *tap_name; /* the interface; "" or NULL for a stand-in */
	size_t tap_frame_max; /* the largest frame written to the TAP: its MTU + 18. When a larger
			       * frame comes and tap_name is an interface, its MTU is read again. */
	struct cpu_bridge_counters h2c_count, c2h_count;
};

struct cpu_bridge {
	struct cpu_bridge_port ports[CPU_BRIDGE_PORTS];
	unsigned n_ports;
	size_t frame_max; /* 0: CPU_BRIDGE_FRAME_MAX */
	int stop_fd;      /* readable (a byte or end of file): stop */
	char error[512];  /* after a fatal error: why, naming the port and the file */
};

/*
 * Forwards until stop_fd is readable (0) or a fatal error (-1, error filled): a peer closed
 * (end of file, EPIPE, ECONNRESET, ENODEV, ...) or a descriptor failing persistently. Other
 * failures count and drop the frame. Counters are exact when it returns. Uses SIGUSR2 (a
 * handler without SA_RESTART, restored on return) to interrupt the C2H threads' reads, and
 * ignores SIGPIPE while it runs: one run at a time in a process. A signal that interrupts a
 * blocked write while stop_fd is readable drops that frame (counted as an error), so that a
 * stop is never held up by a device that does not take the frame.
 */
int cpu_bridge_run(struct cpu_bridge *bridge);

#endif
