/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: `collector IPV4 [via IFACE]` of the verbs that set packet headers (`capture
 * set`, `flowlat set`): the two keywords, and the headers filled from this host's path to the
 * collector (pktstats_collector_resolve(), pktstats/collector.h), before the device is opened.
 */
#ifndef PKTSTATS_CLI_COLLECTOR_ARGS_H
#define PKTSTATS_CLI_COLLECTOR_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

struct collector_args {
	const char *collector; /* the word after `collector`, NULL when not given */
	const char *via;       /* the word after `via`, NULL when not given */
};

/* The keywords' names, for a verb's keywords_parse() (keywords.h). */
#define COLLECTOR_KEYWORDS {"collector", NULL}, {"via", NULL}
#define COLLECTOR_KEYWORD_COUNT 2

/* CLI_OK, or a usage error: collector not an IPv4 address, via without collector. */
int collector_check(const struct cli *cli, const struct collector_args *args);

/* The headers a collector gives, and whether each was given on the command line. */
struct collector_headers {
	uint32_t *destination_ip;
	bool *destination_ip_given;
	uint8_t *destination_mac;
	bool *destination_mac_given;
	uint32_t *source_ip;
	bool *source_ip_given;
	uint8_t *source_mac;
	bool *source_mac_given;
};

/* With a collector: resolves the path (through via), and fills each header not given
 * explicitly, marking it given. CLI_OK (also without a collector), or CLI_RUNTIME with one
 * line "pktstats: OBJECT VERB: collector IP: REASON" printed (no route, interface down, no
 * ARP answer...). */
int collector_fill(const struct cli *cli, const struct collector_args *args,
		   const struct collector_headers *headers);

#endif
