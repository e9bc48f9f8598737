/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: its configuration, from the command line and a config file in the
 * keyword style of `pktstats isl run` (docs/monitoring.md, "Configuration"):
 *
 *   # comments, blank lines; one "KEYWORD VALUE" per line
 *   listen 127.0.0.1:9733
 *   switch s0,device=sim:/run/pktstats/s0.sock,stat-interface=eth1
 *   dm-two-way s0,port=1,interface=nf1,peer=02:00:00:00:01:02,interval=1s
 *
 * Keywords taking one value may be given once in the file and once on the command line,
 * where the command line wins; `switch`, `dm-two-way`, `dm-one-way` and `headroom` may be
 * given any number of times and add up. Parsing is a pure function of the text (no file
 * system, no device), so that the fuzzer and the reload share it; an error comes back as
 * "FILE:LINE: message" (the command line's as "argument 'WORD': message").
 */
#ifndef PKTSTATS_EXPORTER_CONFIG_H
#define PKTSTATS_EXPORTER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORTER_DEFAULT_PORT 9733
#define EXPORTER_NAME_MAX 32   /* a switch's name, with its NUL */
#define EXPORTER_SWITCHES_MAX 64
#define EXPORTER_SESSIONS_MAX 256 /* of each kind of measurement */
#define EXPORTER_CONFIG_BYTES_MAX (1 << 20)
#define EXPORTER_LINE_MAX 1024
#define EXPORTER_WHERE_MAX 300

struct exporter_switch_config {
	char name[EXPORTER_NAME_MAX];
	char device[256];         /* a device string (pktstats.h's forms); "" none */
	char stat_interface[32];  /* where its stat packets arrive; "" none */
	bool have_stat_source;
	uint32_t stat_source;     /* only stat packets from this IPv4 source */
	uint16_t stat_port;       /* their UDP destination port */
	uint64_t burst_bytes;     /* microburst threshold; UINT64_MAX: the config's default */
	uint32_t queue_words;     /* the sojourn matcher's bound (0: the switch's 4096) */
	bool have_ipfix_domain;
	uint32_t ipfix_domain;    /* the IPFIX observation domain of its flow monitor */
};

/* A Y.1731 two-way session: DMMs out of a CPU port's interface to a peer MEP */
struct exporter_dm_config {
	char switch_name[EXPORTER_NAME_MAX];
	unsigned port;            /* the MAC port the CPU port is bound to, 0..3 */
	char interface[32];
	uint8_t peer[6];
	uint64_t interval_ns, timeout_ns;
	unsigned level;           /* MEL 0..7 */
	bool tagged;
	unsigned vid;
	unsigned size;            /* frame bytes without FCS; 0: the least */
};

/* A 1DM receive session on a CPU port's interface */
struct exporter_one_way_config {
	char switch_name[EXPORTER_NAME_MAX];
	unsigned port;
	char interface[32];
};

/* Headroom measurement of one port */
struct exporter_headroom_config {
	char switch_name[EXPORTER_NAME_MAX];
	unsigned port;
	char interface[32];
	uint64_t interval_ns, timeout_ns;
	unsigned count;           /* requests per measurement */
	uint64_t rate_mbps;       /* the link's rate */
	uint32_t max_frame;
	uint64_t internal_bits;
	bool have_buffer;
	uint64_t buffer_bytes;    /* the buffer the headroom must fit in */
};

struct exporter_config {
	char listen_host[64];     /* "" all addresses */
	uint16_t listen_port;
	uint64_t peak_window_ns;
	uint64_t burst_bytes;     /* default microburst threshold */
	uint64_t retry_max_ns;    /* the longest wait between two attempts to open a device */
	uint64_t scrape_timeout_ns;
	char ipfix_listen_host[64];
	uint16_t ipfix_listen_port; /* 0: no IPFIX listener */
	uint32_t ipfix_enterprise;
	struct exporter_switch_config switches[EXPORTER_SWITCHES_MAX];
	size_t n_switches;
	struct exporter_dm_config dm[EXPORTER_SESSIONS_MAX];
	size_t n_dm;
	struct exporter_one_way_config one_way[EXPORTER_SESSIONS_MAX];
	size_t n_one_way;
	struct exporter_headroom_config headroom[EXPORTER_SESSIONS_MAX];
	size_t n_headroom;
	/* where each session's line was ("FILE:LINE: " or "argument 'KEYWORD': "), for the
	 * cross-checks' messages; apart from the sessions, so that a line that moved in the file
	 * is still the same session at a reload */
	char dm_where[EXPORTER_SESSIONS_MAX][EXPORTER_WHERE_MAX];
	char one_way_where[EXPORTER_SESSIONS_MAX][EXPORTER_WHERE_MAX];
	char headroom_where[EXPORTER_SESSIONS_MAX][EXPORTER_WHERE_MAX];
	unsigned given_on_command_line; /* single keywords (by bit), internal */
};

void exporter_config_defaults(struct exporter_config *config);

/*
 * Adds the text of a config file (named `name` in messages) to config: each line a keyword
 * and its value. Single keywords already given on the command line keep the command line's
 * value. Returns 0, or -EINVAL with "NAME:LINE: message" in error. Never reads beyond len.
 */
int exporter_config_parse_text(struct exporter_config *config, const char *text, size_t len,
			       const char *name, char *error, size_t size);

/*
 * The command line's KEYWORD VALUE pairs (argv[0..argc), without the program name or the
 * flags). *config_path gets the value of `config` (NULL when none). Returns 0 or -EINVAL.
 */
int exporter_config_parse_args(struct exporter_config *config, int argc, char **argv,
			       const char **config_path, char *error, size_t size);

/* Cross-checks once everything is read: every session's switch exists, no two sessions on
 * one interface or port, no two switches with one IPFIX domain. 0, or -EINVAL with the
 * message naming the line at fault. */
int exporter_config_check(const struct exporter_config *config, char *error, size_t size);

/* Reads a config file and adds it: 0, -EINVAL (its content: "FILE:LINE: ..."), or -errno
 * when it cannot be read ("FILE: reason"). */
int exporter_config_read_file(struct exporter_config *config, const char *path, char *error,
			      size_t size);

/* The switch's index by name, -1 when none */
int exporter_config_switch(const struct exporter_config *config, const char *name);

#endif
