/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: what `dm`, `headroom` and `oam` share: a raw packet socket
 * on the CPU port's interface (AF_PACKET: the nf interface on a board, a TAP of the
 * simulator), a series of delays with its statistics, and the printing of wire times.
 */
#ifndef PKTSTATS_CLI_OAM_LINK_H
#define PKTSTATS_CLI_OAM_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "keywords.h"
#include "pktstats/oam.h"

/* A rate in Gb/s with at most 3 decimals ("100", "2.5", "0.1"), as Mb/s. */
const char *parse_rate_gbps(const char *word, uint64_t *mbps);

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
/* The same without waiting: the length of a frame that is there, 0 when none is. realtime_ns
 * (when not NULL): when the kernel took it in (CLOCK_REALTIME, SO_TIMESTAMPNS; 0 if unknown). */
int oam_link_read(struct oam_link *link, uint8_t *buf, size_t size, int64_t *realtime_ns);

int64_t monotonic_ns(void);

/* ------------------------------------------------------------------------------------------ */
/* Series of delays (ns) and their figures */

struct series {
	int64_t *values;
	size_t n, capacity;
};

/* 0 or -ENOMEM. */
int series_add(struct series *s, int64_t value);
void series_free(struct series *s);

struct series_figures {
	size_t n;
	int64_t min, max, p50, p90, p99; /* percentiles by nearest rank: the value at rank
					    ceil(p / 100 x n) of the sorted series */
	double avg;
};
/* false when the series is empty. */
bool series_figures(const struct series *s, struct series_figures *f);

/* Prints the figures under key as an object (min, avg, max, p50, p90, p99, count); all null
 * for an empty series. */
void out_series(const char *key, const struct series *s);

/* A wire time: JSON {"seconds":S,"nanoseconds":N}; text "S.NNNNNNNNN" ("Ss+Nns" when N is
 * not below 10^9). present false: null. */
void out_wire_time(const char *key, struct pktstats_wire_time t, bool present);
/* A signed number of ns, or null when !present. */
void out_ns(const char *key, int64_t value, bool present);

/* The MAC as text (static buffer per call slot 0..3). */
const char *mac_text(const uint8_t mac[6], int slot);

#endif
