/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: what `decode` shares with `record` and `plot`: the options they have in common
 * (one parser, so the same option means the same everywhere) and the printing of events (a
 * table, CSV or JSON lines, through output.h).
 */
#ifndef PKTSTATS_CLI_DECODE_CMD_H
#define PKTSTATS_CLI_DECODE_CMD_H

#include <stdbool.h>

#include "cli.h"
#include "pktstats/time.h"
#include "stat_reader.h"

/* Help text of the selection options, shared by decode, record and plot. */
#define SELECTION_OPTIONS \
	"  -f, --filter EXPR  BPF filter (pcap-filter(7)) instead of the default\n" \
	"                     'udp dst port PORT or (vlan and udp dst port PORT)'; with it,\n" \
	"                     every UDP datagram that passes is decoded as a stat packet\n" \
	"  -p, --udp-port PORT, --port PORT\n" \
	"                     the stat packets' UDP destination port (default 27033)\n" \
	"  --queues SET       only these queues: 0..7 as a list (0,2-4), a hex mask, all\n" \
	"                     (default)\n"

/* Help text shared by decode and record. */
#define COMMON_OPTIONS \
	SELECTION_OPTIONS \
	"  --csv              events as CSV with a header line (-j: JSON lines)\n" \
	"  --time-of-day PAIR each event's time of day too (time-of-day-ns), from the switch's\n" \
	"                     time of day and evcap timer latched together: 'device' reads\n" \
	"                     them and the trim from the device (-d) now; or TIME@TIMER[,PPB]\n" \
	"                     as pktstats time show prints them (TIME: SECONDS.FRACTION or\n" \
	"                     YYYY-MM-DDTHH:MM:SS[.F]Z; PPB: the trim, default 0). Right while\n" \
	"                     the clock was not set or stepped between the events and the pair\n" \
	"  --iso              with --time-of-day: after each *time-of-day-ns column, the same\n" \
	"                     instant as UTC ISO 8601 with ns (2025-11-25T12:00:00.500737188Z)\n"

#define EVENT_COLUMNS \
	"Events, one per line (text table, --csv, or with -j one JSON object per line):\n" \
	"  time-ns          absolute time: ns since the hardware timer's reset, (tick << c) * 8\n" \
	"  time-of-day-ns   with --time-of-day: the switch's time of day at time-ns, ns since\n" \
	"                   its epoch (Unix, as set: UTC or TAI)\n" \
	"  time-of-day      with --iso: time-of-day-ns as YYYY-MM-DDTHH:MM:SS.NNNNNNNNNZ\n" \
	"                   (before 1970 too: the seconds floored, the ns counted on)\n" \
	"  queue            0..7\n" \
	"  type             arrival, departure or drop\n" \
	"  length-bytes     the frame's length: the packet's 64-bit words x 8 (2040: 2040 or\n" \
	"                   more)\n" \
	"  occupancy-bytes  the queue's occupancy after the event, bytes (words x 8)\n" \
	"  occupancy-words  the same in 64-bit words (the unit of the hardware and of\n" \
	"                   pktstats-sim --truth)\n" \
	"  seq              the stat packet's sequence number\n"

struct decode_options {
	struct stat_reader_options reader; /* filter, UDP port */
	uint32_t queues;                   /* --queues: bit q, the queues shown (default all) */
	bool csv;                          /* --csv */
	bool json;                         /* -j */
	/* --time-of-day: each event's time of day too, from the switch's time of day and evcap
	 * timer latched together (docs/time.md) and its trim; from the device ("device") once
	 * decode_prepare() has read them */
	bool time_of_day;
	bool time_of_day_from_device;
	bool iso; /* --iso: each time of day also as UTC ISO 8601 (needs --time-of-day) */
	struct pktstats_time_pair pair;
	int32_t trim;
};

/* The defaults: every queue, the default filter and port, -j as given. */
void decode_default_options(struct decode_options *options);

/* argv[*i] if it is -f/--filter, -p/--udp-port/--port or --queues (its value consumed, *i
 * moved on): CLI_OK or a usage error; -1 when it is none of them. */
int decode_parse_selection(const struct cli *cli, int argc, char **argv, int *i,
			   struct decode_options *options);
/* The same, and --csv, --time-of-day and --iso (decode and record). */
int decode_parse_option(const struct cli *cli, int argc, char **argv, int *i,
			struct decode_options *options);
/* Once every option is parsed: CLI_OK, or a usage error for a port with a filter of one's
 * own, no queue selected, or --iso without --time-of-day. */
int decode_check_options(const struct cli *cli, const struct decode_options *options);
/* After the checks: reads the time of day and timer from the device for --time-of-day device
 * (CLI_OK, or the failure printed). */
int decode_prepare(struct cli *cli, struct decode_options *options);

void decode_print_begin(const struct decode_options *options);
/* One record's events of the selected queues (and, in the text table, notes on gaps, resets,
 * M, malformed). */
void decode_print_record(const struct decode_options *options,
			 const struct pktstats_stream *stream, const struct stat_record *rec);
void decode_print_end(void);

/* One line on stderr when there were malformed, lost or duplicate packets, resets, M flags. */
void decode_report_problems(const struct cli *cli, struct stat_reader *reader);

#endif
