/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: `pktstats flowlat watch` (flowlat_watch.c), the seed's collector workflow,
 * called from the verb table of `flowlat` (flowlat_cmd.c), with its help strings.
 */
#ifndef PKTSTATS_CLI_FLOWLAT_WATCH_H
#define PKTSTATS_CLI_FLOWLAT_WATCH_H
#include "cli.h"
int flowlat_watch(struct cli *cli, int argc, char **argv);

#define FLOWLAT_WATCH_SYNOPSIS                                                                 \
	"[listen ADDR] [port N] [interval DURATION] [enterprise-number N] [count N] "          \
	"[duration DURATION]"
#define FLOWLAT_WATCH_SUMMARY "listen for the events, read each flow in breach until its LOW"
#define FLOWLAT_WATCH_DETAILS                                                                  \
	"A foreground collector (seed 003's workflow, docs/flowlat.md). Listens on UDP\n"       \
	"listen:port (default 0.0.0.0:4739) for the block's IPFIX messages (template 256 with\n" \
	"enterprise-number, default 32473) and prints a timeline, one line per event (type\n"  \
	"absolute, high or low: observation time UTC, 5-tuple, ingress, egress, residence,\n"  \
	"group, profile, high, low, occupancy-bytes). From a flow's HIGH event to its LOW\n"    \
	"event it reads the flow from the switch (-d) by its 5-tuple every interval (default\n" \
	"100ms, at least 1ms): a poll line (found, group, last-residence, max-residence,\n"    \
	"packets, age-us, breach); a flow the table no longer holds (evicted in breach: its\n"  \
	"LOW never comes) is polled once. Without a device: events only (said once on stderr).\n" \
	"-j: JSON lines, one object per event or poll with a \"type\" key, and the summary.\n"  \
	"Malformed messages are reported on stderr with the reason, counted and skipped; the\n" \
	"observation domain of the first message is followed, others counted and ignored;\n"  \
	"gaps in the sequence numbers are counted as records missing. Ends after count events,\n" \
	"after duration, or on SIGINT/SIGTERM, with a summary: datagrams, messages, templates,\n" \
	"records, events by kind, malformed, records-missing, sequence-errors, other-domain,\n" \
	"in-breach (flows still in breach), evicted, lookups, lookups-failed. Exit 1 when the\n" \
	"socket cannot be bound or 3 lookups in a row fail (after the summary).\n"
#endif
