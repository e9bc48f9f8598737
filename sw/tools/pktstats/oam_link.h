/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats tools: a raw packet socket on a CPU port's interface (AF_PACKET: the nf interface on
 * a board, a TAP of the simulator), for `dm`, `headroom`, `isl run` and the exporter's
 * measurements. Prints nothing.
 */
#ifndef PKTSTATS_CLI_OAM_LINK_H
#define PKTSTATS_CLI_OAM_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------------------------ */
/* The packet socket */

struct oam_link {
	int fd;
	int ifindex;
	uint8_t mac[6]; /* the interface's address */
	char name[32];
};

/* Opens a raw packet socket bound to ifname (every protocol, VLAN tags given back from the
 * kernel's auxiliary data). 0, or -errno with a one-line reason in error. */
int oam_link_open(struct oam_link *link, const char *ifname, char *error, size_t size);
void oam_link_close(struct oam_link *link);
/* One frame out (no FCS). 0 or -errno. */
int oam_link_send(struct oam_link *link, const uint8_t *frame, size_t len);
/* The next frame that came in (never one this host sent), with its 802.1Q tag back in place
 * when the kernel took it out, waiting until deadline_ns (CLOCK_MONOTONIC). Returns its
 * length, 0 when the deadline passed, -errno on failure. */
int oam_link_receive(struct oam_link *link, uint8_t *buf, size_t size, int64_t deadline_ns);
/* The same, and -ECANCELED as soon as stop_fd (an eventfd or a pipe's read end a thread is
 * stopped by; -1: none) is readable, so that a daemon's thread never waits out a deadline. */
int oam_link_receive_or_stop(struct oam_link *link, uint8_t *buf, size_t size,
			     int64_t deadline_ns, int stop_fd);
/* The same without waiting: the length of a frame that is there, 0 when none is. realtime_ns
 * (when not NULL): when the kernel took it in (CLOCK_REALTIME, SO_TIMESTAMPNS; 0 if unknown). */
int oam_link_read(struct oam_link *link, uint8_t *buf, size_t size, int64_t *realtime_ns);

int64_t monotonic_ns(void);

#endif
