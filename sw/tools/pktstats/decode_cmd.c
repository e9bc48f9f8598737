/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, command `decode FILE...`: the events of the stat packets in capture files, as a
 * table, CSV or JSON lines; or, with --summary, per-queue figures. Needs no device. The
 * reading is stat_reader.h's; the event printing is shared with `record` (decode_print_*).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "decode_cmd.h"
#include "output.h"
#include "sojourn_stats.h"

static const char *const type_names[4] = {"none", "arrival", "departure", "drop"};

#define NS_PER_S INT64_C(1000000000)

/* The event columns; time-of-day-ns only with --time-of-day, time-of-day (its ISO 8601 form)
 * with --iso too. */
static const struct out_column event_columns[] = {
	{"time-ns", NULL, 15},        {"time-of-day-ns", NULL, 19}, {"time-of-day", NULL, 30},
	{"queue", NULL, 0},           {"type", NULL, 9},            {"length-bytes", NULL, 0},
	{"occupancy-bytes", NULL, 0}, {"occupancy-words", NULL, 0}, {"seq", NULL, 10},
};
#define EVENT_COLUMNS_N (sizeof event_columns / sizeof event_columns[0])

/* Whether a column is printed: those of the time of day only with --time-of-day, and their
 * ISO 8601 forms (the keys without -ns) only with --iso too. */
static bool column_shown(const struct decode_options *options, const char *key)
{
	if (!strstr(key, "time-of-day"))
		return true;
	size_t n = strlen(key);
	bool ns = n >= 3 && !strcmp(key + n - 3, "-ns");
	return options->time_of_day && (ns || options->iso);
}

void decode_default_options(struct decode_options *options)
{
	*options = (struct decode_options){.queues = (1u << PKTSTATS_QUEUES) - 1,
					   .json = out_is_json()};
	stat_reader_default_options(&options->reader);
}

int decode_parse_selection(const struct cli *cli, int argc, char **argv, int *i,
			   struct decode_options *options)
{
	const char *word = argv[*i];
	const char *error = NULL;
	if (!strcmp(word, "-f") || !strcmp(word, "--filter")) {
		if (*i + 1 >= argc)
			return cli_usage(cli, "option '%s' needs a BPF filter expression", word);
		options->reader.filter = argv[++*i];
	} else if (!strcmp(word, "-p") || !strcmp(word, "--port") || !strcmp(word, "--udp-port")) {
		uint64_t port;
		if (*i + 1 >= argc)
			return cli_usage(cli, "option '%s' needs a UDP port", word);
		if (!(error = parse_number(argv[++*i], 1, 65535, &port)))
			options->reader.udp_port = (uint16_t)port;
	} else if (!strcmp(word, "--queues")) {
		if (*i + 1 >= argc)
			return cli_usage(cli, "option '%s' needs a SET of queues", word);
		error = parse_number_set(argv[++*i], PKTSTATS_QUEUES - 1, &options->queues);
	} else {
		return -1; /* not one of ours */
	}
	if (error)
		return cli_usage(cli, "%s '%s': %s", word, argv[*i], error);
	return CLI_OK;
}

/* --time-of-day's value: "device", or TIME@TIMER[,PPB]. */
static const char *parse_pair(const char *word, struct decode_options *options)
{
	options->time_of_day = true;
	if (!strcmp(word, "device")) {
		options->time_of_day_from_device = true;
		return NULL;
	}
	char text[128];
	const char *error;
	uint64_t timer;
	double ppb = 0;
	if (strlen(word) >= sizeof text)
		return "too long";
	snprintf(text, sizeof text, "%s", word);
	char *at = strchr(text, '@');
	if (!at)
		return "not 'device' or TIME@TIMER[,PPB] (1764072000.5@428815)";
	*at++ = '\0';
	char *comma = strchr(at, ',');
	if (comma)
		*comma++ = '\0';
	if ((error = parse_time_of_day(text, &options->pair.time.seconds,
				       &options->pair.time.nanoseconds)) != NULL ||
	    (error = parse_number(at, 0, UINT64_MAX, &timer)) != NULL ||
	    (comma && (error = parse_ppb(comma, &ppb)) != NULL))
		return error;
	options->pair.timer = timer;
	if (pktstats_time_trim_from_ppb(ppb, &options->trim) < 0)
		return "the trim is beyond what the clock holds (-62500000..+62499999.97 ppb)";
	return NULL;
}

int decode_parse_option(const struct cli *cli, int argc, char **argv, int *i,
			struct decode_options *options)
{
	if (!strcmp(argv[*i], "--csv")) {
		options->csv = true;
		return CLI_OK;
	}
	if (!strcmp(argv[*i], "--iso")) {
		options->iso = true;
		return CLI_OK;
	}
	if (strcmp(argv[*i], "--time-of-day"))
		return decode_parse_selection(cli, argc, argv, i, options);
	if (*i + 1 >= argc)
		return cli_usage(cli, "option '%s' needs 'device' or TIME@TIMER[,PPB]", argv[*i]);
	const char *error = parse_pair(argv[++*i], options);
	return error ? cli_usage(cli, "--time-of-day '%s': %s", argv[*i], error) : CLI_OK;
}

int decode_prepare(struct cli *cli, struct decode_options *options)
{
	if (!options->time_of_day_from_device)
		return CLI_OK;
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_time_read(cli->dev, &options->pair);
	if (err == 0)
		err = pktstats_time_trim_get(cli->dev, &options->trim);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

/* The switch's time of day, in ns, in the clock at timer value time_ns / 8: the pair's time
 * plus 8 ns + trim (2^-32 ns) for every clock from the pair's timer (before it: minus). */
static int64_t time_of_day_ns(const struct decode_options *options, uint64_t time_ns)
{
	const struct pktstats_time *t = &options->pair.time;
	__int128 clocks = (__int128)(time_ns / 8) - (__int128)options->pair.timer;
	__int128 units = ((((__int128)t->seconds * 1000000000 + t->nanoseconds) << 32) + t->fraction) +
			 clocks * (((__int128)8 << 32) + options->trim);
	return (int64_t)(units >> 32); /* floored (GCC and Clang shift signed values arithmetically) */
}

/* --iso: a time of day in ns since the epoch as UTC ISO 8601 with nanoseconds,
 * "2025-11-25T12:00:00.500737188Z". Before 1970 (negative) too: the seconds floored and the
 * nanoseconds counted on from them, so -1 ns is 1969-12-31T23:59:59.999999999Z. Every int64_t
 * of ns is a date from 1677 to 2262, which gmtime_r gives with a 64-bit time_t; should it
 * refuse one (a 32-bit time_t), the column holds the ns as time-of-day-ns prints them. */
static void out_iso(const char *key, int64_t ns)
{
	int64_t seconds = ns / NS_PER_S, nanoseconds = ns % NS_PER_S;
	if (nanoseconds < 0) {
		seconds--;
		nanoseconds += NS_PER_S;
	}
	char text[128];
	if (!format_utc(seconds, (uint32_t)nanoseconds, text, sizeof text))
		snprintf(text, sizeof text, "%" PRId64, ns);
	out_string(key, text);
}

/* The time-of-day columns of one instant of the timer: ns, and with --iso its ISO 8601 form
 * under the same key without -ns. */
static void out_time_of_day(const struct decode_options *options, const char *key,
			    uint64_t time_ns)
{
	int64_t ns = time_of_day_ns(options, time_ns);
	char ns_key[64];
	snprintf(ns_key, sizeof ns_key, "%s-ns", key);
	out_int(ns_key, ns, NULL);
	if (options->iso)
		out_iso(key, ns);
}

int decode_check_options(const struct cli *cli, const struct decode_options *options)
{
	if (options->reader.filter && options->reader.udp_port != PKTSTATS_UDP_PORT)
		return cli_usage(cli, "--udp-port sets the default filter's port; with --filter, "
				      "write the port into the filter");
	if (!options->queues)
		return cli_usage(cli, "--queues none selects nothing to show");
	if (options->iso && !options->time_of_day)
		return cli_usage(cli, "--iso writes the times of --time-of-day as ISO 8601: give "
				      "--time-of-day too");
	return CLI_OK;
}

void decode_print_begin(const struct decode_options *options)
{
	/* out_table_begin keeps the columns until out_table_end */
	static struct out_column columns[EVENT_COLUMNS_N];
	size_t n = 0;
	for (size_t c = 0; c < EVENT_COLUMNS_N; c++)
		if (column_shown(options, event_columns[c].key))
			columns[n++] = event_columns[c];
	out_csv(options->csv);
	out_table_begin(NULL, columns, n);
}

void decode_print_end(void)
{
	out_table_end();
}

static void source_name(const struct pktstats_stream *stream, int index, char *text,
			size_t size)
{
	if (index < 0 || (unsigned)index >= stream->n_sources) {
		snprintf(text, size, "-");
		return;
	}
	char ip[16];
	format_ipv4(stream->sources[index].ip, ip, sizeof ip);
	snprintf(text, size, "%s:%u", ip, stream->sources[index].port);
}

void decode_print_record(const struct decode_options *options, const struct pktstats_stream *stream,
			 const struct stat_record *rec)
{
	bool notes = !options->csv && !options->json;
	if (rec->status == STAT_RECORD_MALFORMED) {
		if (notes)
			printf("-- frame %" PRIu64 ": malformed stat packet: %s\n", rec->frame,
			       pktstats_decode_strerror(rec->reason));
		return;
	}
	const struct pktstats_stream_result *r = &rec->result;
	if (notes) {
		char source[40];
		source_name(stream, r->source, source, sizeof source);
		if (r->seq_status == PKTSTATS_SEQ_GAP)
			printf("-- frame %" PRIu64 ": %" PRIu32 " stat packets lost from %s before "
			       "sequence %" PRIu32 "\n", rec->frame, r->lost, source,
			       r->packet.sequence);
		else if (r->seq_status == PKTSTATS_SEQ_RESET)
			printf("-- frame %" PRIu64 ": sequence reset of %s (%" PRIu32 " after %" PRIu32
			       ")\n", rec->frame, source, r->packet.sequence, r->expected - 1);
		if (r->packet.missed)
			printf("-- frame %" PRIu64 ": M flag: events were lost before the end of "
			       "sequence %" PRIu32 "\n", rec->frame, r->packet.sequence);
	}
	for (size_t i = 0; i < rec->n_events; i++) {
		const struct pktstats_event *e = &rec->events[i];
		if (!(options->queues >> e->queue & 1))
			continue;
		out_row_begin();
		out_uint("time-ns", e->time_ns, NULL);
		if (options->time_of_day)
			out_time_of_day(options, "time-of-day", e->time_ns);
		out_uint("queue", e->queue, NULL);
		out_string("type", type_names[e->type & 3]);
		out_uint("length-bytes", (uint64_t)STAT_BYTES(e->length), NULL);
		out_int("occupancy-bytes", STAT_BYTES(e->occupancy), NULL);
		out_int("occupancy-words", e->occupancy, NULL);
		out_uint("seq", r->packet.sequence, NULL);
		out_row_end();
	}
}

/* The columns of --sojourn: one timed frame per row; the time-of-day ones only with
 * --time-of-day, their ISO 8601 forms with --iso too */
static const struct out_column sojourn_columns[] = {
	{"arrival-ns", NULL, 15},
	{"departure-ns", NULL, 15},
	{"arrival-time-of-day-ns", NULL, 19},
	{"arrival-time-of-day", NULL, 30},
	{"departure-time-of-day-ns", NULL, 19},
	{"departure-time-of-day", NULL, 30},
	{"delay-ns", NULL, 10},
	{"queue", NULL, 0},
	{"length-bytes", NULL, 0},
	{"seq", NULL, 10},
};
#define SOJOURN_COLUMNS_N (sizeof sojourn_columns / sizeof sojourn_columns[0])

static void print_sojourns(const struct decode_options *options, const struct stat_record *rec)
{
	for (size_t i = 0; i < rec->n_sojourns; i++) {
		const struct pktstats_sojourn *s = &rec->sojourns[i];
		if (!(options->queues >> s->queue & 1))
			continue;
		out_row_begin();
		out_uint("arrival-ns", s->arrival_ns, NULL);
		out_uint("departure-ns", s->departure_ns, NULL);
		if (options->time_of_day) {
			out_time_of_day(options, "arrival-time-of-day", s->arrival_ns);
			out_time_of_day(options, "departure-time-of-day", s->departure_ns);
		}
		out_uint("delay-ns", s->delay_ns, NULL);
		out_uint("queue", s->queue, NULL);
		out_uint("length-bytes", (uint64_t)STAT_BYTES(s->length), NULL);
		out_uint("seq", s->departure_seq, NULL);
		out_row_end();
	}
}

/* "gap 1, missed 2" */
static void losses_text(const struct pktstats_sojourn_counts *c, char *text, size_t size)
{
	text[0] = '\0';
	for (int k = 0; k < PKTSTATS_SOJOURN_LOSS_COUNT; k++)
		if (c->losses[k])
			snprintf(text + strlen(text), size - strlen(text), "%s%s %" PRIu64,
				 *text ? ", " : "", pktstats_sojourn_loss_name(k), c->losses[k]);
}

/* One line on stderr when departures could not be timed (decode --sojourn). */
static void report_untimed(const struct cli *cli, struct stat_reader *reader, uint32_t queues)
{
	struct pktstats_sojourn_counts c;
	pktstats_sojourn_total(stat_reader_sojourn(reader), queues, &c);
	if (!c.queued_before && !c.unsynchronised && !c.pending)
		return;
	char losses[256];
	losses_text(&c, losses, sizeof losses);
	fprintf(stderr, "pktstats: %s: %" PRIu64 " frames timed; not timed: %" PRIu64 " queued "
		"before the capture or a resynchronisation, %" PRIu64 " while unsynchronised%s%s%s, "
		"%" PRIu64 " still queued at the end\n", cli->object, c.timed, c.queued_before,
		c.unsynchronised, *losses ? " (losses: " : "", losses, *losses ? ")" : "",
		c.pending);
}

/* "cut_timestamp 1, partial_slot 2" */
static void reasons_text(const uint64_t *counts, char *text, size_t size)
{
	text[0] = '\0';
	for (int k = 1; k < PKTSTATS_DECODE_ERROR_COUNT; k++)
		if (counts[k])
			snprintf(text + strlen(text), size - strlen(text), "%s%s %" PRIu64,
				 *text ? ", " : "", pktstats_decode_error_name(k), counts[k]);
}

static uint64_t sum(const uint64_t *counts)
{
	uint64_t total = 0;
	for (int k = 0; k < PKTSTATS_DECODE_ERROR_COUNT; k++)
		total += counts[k];
	return total;
}

void decode_report_problems(const struct cli *cli, struct stat_reader *reader)
{
	const struct pktstats_stream *stream = stat_reader_stream(reader);
	const struct stat_reader_counts *counts = stat_reader_counts(reader);
	const struct pktstats_stream_counters *t = &stream->total;
	uint64_t malformed = sum(counts->malformed);
	if (!malformed && !t->lost && !t->resets && !t->missed_flags && !t->duplicates)
		return;
	char reasons[512];
	reasons_text(counts->malformed, reasons, sizeof reasons);
	fprintf(stderr, "pktstats: %s: %" PRIu64 " stat packets, %" PRIu64 " events; %" PRIu64
		" malformed%s%s%s, %" PRIu64 " lost in %" PRIu64 " gaps, %" PRIu64 " resets, %"
		PRIu64 " with the M flag, %" PRIu64 " duplicates\n", cli->object, t->packets,
		t->events, malformed, *reasons ? " (" : "", reasons, *reasons ? ")" : "", t->lost,
		t->gaps, t->resets, t->missed_flags, t->duplicates);
}

static void reasons_object(const char *key, const uint64_t *counts)
{
	char text[512];
	reasons_text(counts, text, sizeof text);
	out_object_begin(key);
	for (int k = 1; k < PKTSTATS_DECODE_ERROR_COUNT; k++)
		if (counts[k])
			out_uint(pktstats_decode_error_name(k), counts[k], NULL);
	out_object_end();
}

static const struct out_column queue_columns[] = {
	{"queue", NULL, 0},         {"arrivals", NULL, 10},  {"departures", NULL, 10},
	{"drops", NULL, 8},         {"dropped-bytes", NULL, 0}, {"max-bytes", NULL, 10},
	{"max-words", NULL, 0},     {"max-time-ns", NULL, 13}, {"mean-bytes", NULL, 12},
	{"mean-words", NULL, 11},
};

static const struct out_column source_columns[] = {
	{"source", NULL, 21},   {"packets", NULL, 9}, {"events", NULL, 10},
	{"lost", NULL, 6},      {"gaps", NULL, 6},    {"resets", NULL, 0},
	{"reordered", NULL, 0}, {"duplicates", NULL, 0}, {"m-flags", NULL, 0},
	{"malformed", NULL, 0},
};

static const struct out_column sojourn_summary_columns[] = {
	{"queue", NULL, 0},       {"timed", NULL, 9},      {"queued-before", NULL, 0},
	{"unsynchronised", NULL, 0}, {"pending", NULL, 0}, {"p50-ns", NULL, 10},
	{"p90-ns", NULL, 10},     {"p99-ns", NULL, 10},    {"p999-ns", "p99.9-ns", 10},
	{"max-ns", NULL, 10},
};

/* The sojourn table of --summary: per queue, what was timed, what not, and the delays'
 * percentiles (empty where nothing was timed) */
static void print_sojourn_summary(struct stat_reader *reader, const struct sojourn_stats *stats,
				  uint32_t queues)
{
	struct pktstats_sojourn_counts total;
	pktstats_sojourn_total(stat_reader_sojourn(reader), PKTSTATS_ALL_QUEUES, &total);
	char text[256];
	losses_text(&total, text, sizeof text);
	out_uint("sojourn-resyncs", total.resyncs, NULL);
	if (out_is_json()) {
		out_object_begin("sojourn-losses");
		for (int k = 0; k < PKTSTATS_SOJOURN_LOSS_COUNT; k++)
			if (total.losses[k])
				out_uint(pktstats_sojourn_loss_name(k), total.losses[k], NULL);
		out_object_end();
	} else {
		out_string("sojourn-losses", *text ? text : "none");
	}
	out_table_begin("sojourn", sojourn_summary_columns,
			sizeof sojourn_summary_columns / sizeof sojourn_summary_columns[0]);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(queues >> q & 1))
			continue;
		struct pktstats_sojourn_counts c;
		pktstats_sojourn_total(stat_reader_sojourn(reader), 1u << q, &c);
		out_row_begin();
		out_uint("queue", q, NULL);
		out_uint("timed", c.timed, NULL);
		out_uint("queued-before", c.queued_before, NULL);
		out_uint("unsynchronised", c.unsynchronised, NULL);
		out_uint("pending", c.pending, NULL);
		for (int k = 0; k < SOJOURN_PERCENTILES; k++) {
			if (c.timed)
				out_uint(sojourn_percentile_keys[k],
					 sojourn_stats_percentile(stats, q, sojourn_percentiles[k]), NULL);
			else
				out_string(sojourn_percentile_keys[k], NULL);
		}
		if (c.timed)
			out_uint("max-ns", sojourn_stats_percentile(stats, q, 100), NULL);
		else
			out_string("max-ns", NULL);
		out_row_end();
	}
	out_table_end();
}

static void print_summary(struct stat_reader *reader, const struct sojourn_stats *stats,
			  uint32_t queues)
{
	const struct pktstats_stream *stream = stat_reader_stream(reader);
	const struct stat_reader_counts *counts = stat_reader_counts(reader);
	const struct pktstats_stream_counters *t = &stream->total;
	const struct pktstats_summary *summary = stat_reader_summary(reader);
	char text[600];

	out_begin();
	out_string("filter", stat_reader_filter(reader));
	out_uint("files", counts->files, NULL);
	out_uint("frames", counts->frames, NULL);
	out_uint("filtered-out", counts->filtered, NULL);
	out_uint("packets", t->packets, NULL);
	out_uint("events", t->events, NULL);
	uint64_t malformed = sum(counts->malformed), ignored = sum(counts->ignored);
	reasons_text(counts->malformed, text, sizeof text);
	char with[620];
	snprintf(with, sizeof with, "%" PRIu64 "%s%s%s", malformed, *text ? " (" : "", text,
		 *text ? ")" : "");
	out_uint("malformed", malformed, with);
	reasons_text(counts->ignored, text, sizeof text);
	snprintf(with, sizeof with, "%" PRIu64 "%s%s%s", ignored, *text ? " (" : "", text,
		 *text ? ")" : "");
	out_uint("ignored", ignored, with);
	if (out_is_json()) {
		reasons_object("malformed-reasons", counts->malformed);
		reasons_object("ignored-reasons", counts->ignored);
	}
	out_uint("lost", t->lost, NULL);
	out_uint("gaps", t->gaps, NULL);
	out_uint("resets", t->resets, NULL);
	out_uint("m-flags", t->missed_flags, NULL);
	out_uint("first-ns", summary->first_ns, NULL);
	out_uint("last-ns", summary->last_ns, NULL);
	char span[64];
	snprintf(span, sizeof span, "%" PRIu64 " ns (%.6f s)", summary->span_ns,
		 summary->span_ns / 1e9);
	out_uint("span-ns", summary->span_ns, span);

	out_table_begin("queues", queue_columns, sizeof queue_columns / sizeof queue_columns[0]);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		const struct pktstats_queue_summary *s = &summary->queues[q];
		const double mean = pktstats_summary_mean(summary, q);
		if (!(queues >> q & 1))
			continue;
		out_row_begin();
		out_uint("queue", q, NULL);
		out_uint("arrivals", s->events[PKTSTATS_EVENT_ARRIVAL], NULL);
		out_uint("departures", s->events[PKTSTATS_EVENT_DEPARTURE], NULL);
		out_uint("drops", s->events[PKTSTATS_EVENT_DROP], NULL);
		out_uint("dropped-bytes", (uint64_t)STAT_BYTES(s->words[PKTSTATS_EVENT_DROP]), NULL);
		out_int("max-bytes", STAT_BYTES(s->max_occupancy), NULL);
		out_int("max-words", s->max_occupancy, NULL);
		/* Without events the maximum is only a packet's queue size: no instant to give. */
		if (s->events[PKTSTATS_EVENT_ARRIVAL] + s->events[PKTSTATS_EVENT_DEPARTURE] +
		    s->events[PKTSTATS_EVENT_DROP])
			out_uint("max-time-ns", s->max_time_ns, NULL);
		else
			out_string("max-time-ns", NULL);
		out_real("mean-bytes", mean * 8, 1);
		out_real("mean-words", mean, 3);
		out_row_end();
	}
	out_table_end();
	if (stats)
		print_sojourn_summary(reader, stats, queues);

	out_table_begin("sources", source_columns,
			sizeof source_columns / sizeof source_columns[0]);
	for (unsigned k = 0; k < stream->n_sources; k++) {
		const struct pktstats_stream_counters *c = &stream->sources[k].counters;
		source_name(stream, (int)k, text, sizeof text);
		out_row_begin();
		out_string("source", text);
		out_uint("packets", c->packets, NULL);
		out_uint("events", c->events, NULL);
		out_uint("lost", c->lost, NULL);
		out_uint("gaps", c->gaps, NULL);
		out_uint("resets", c->resets, NULL);
		out_uint("reordered", c->reordered, NULL);
		out_uint("duplicates", c->duplicates, NULL);
		out_uint("m-flags", c->missed_flags, NULL);
		out_uint("malformed", c->malformed, NULL);
		out_row_end();
	}
	out_table_end();
	out_end();
}

/* The table's header: events, or with --sojourn timed frames */
static void begin(const struct decode_options *options, bool sojourn)
{
	if (!sojourn) {
		decode_print_begin(options);
		return;
	}
	static struct out_column columns[SOJOURN_COLUMNS_N];
	size_t n = 0;
	for (size_t c = 0; c < SOJOURN_COLUMNS_N; c++)
		if (column_shown(options, sojourn_columns[c].key))
			columns[n++] = sojourn_columns[c];
	out_csv(options->csv);
	out_table_begin(NULL, columns, n);
}

static int decode_run(struct cli *cli, int argc, char **argv)
{
	struct decode_options options;
	decode_default_options(&options);
	bool summary = false, sojourn = false;
	const char **paths = calloc((size_t)argc + 1, sizeof *paths);
	size_t n_paths = 0;
	if (!paths)
		return CLI_RUNTIME;
	int status = CLI_OK;
	bool options_done = false;
	for (int i = 0; i < argc && status == CLI_OK; i++) {
		if (!options_done && !strcmp(argv[i], "--")) {
			options_done = true;
		} else if (!options_done && !strcmp(argv[i], "--summary")) {
			summary = true;
		} else if (!options_done && !strcmp(argv[i], "--sojourn")) {
			sojourn = true;
		} else if (!options_done && argv[i][0] == '-' && argv[i][1]) {
			int got = decode_parse_option(cli, argc, argv, &i, &options);
			if (got < 0)
				status = cli_usage(cli, "unknown option '%s' (see pktstats decode "
						   "--help)", argv[i]);
			else
				status = got;
		} else {
			paths[n_paths++] = argv[i];
		}
	}
	if (status == CLI_OK && !n_paths)
		status = cli_usage(cli, "no capture file given (pktstats decode FILE...)");
	if (status == CLI_OK && options.csv && options.json)
		status = cli_usage(cli, "--csv and -j are two output formats: choose one");
	if (status == CLI_OK && options.csv && summary)
		status = cli_usage(cli, "--csv prints events; --summary prints figures (-j for "
				   "JSON)");
	if (status == CLI_OK && options.time_of_day && summary)
		status = cli_usage(cli, "--time-of-day gives the events' times; --summary prints "
				   "figures");
	if (status == CLI_OK)
		status = decode_check_options(cli, &options);
	if (status == CLI_OK)
		status = decode_prepare(cli, &options);
	if (status != CLI_OK) {
		free(paths);
		return status;
	}
	options.reader.summary_only = summary;
	options.reader.sojourn = sojourn;
	struct stat_reader *reader;
	char error[512] = "";
	int err = stat_reader_open(&reader, paths, n_paths, &options.reader, error, sizeof error);
	if (err < 0) {
		free(paths);
		if (err == -EINVAL)
			return cli_usage(cli, "%s", error);
		fprintf(stderr, "pktstats: %s: %s\n", cli->object, *error ? error : strerror(-err));
		return CLI_RUNTIME;
	}
	/* The table's header waits for the first record, or for the end when a file was read
	 * without one: when no file can be read, nothing is printed on stdout, only the errors. */
	bool begun = false, out_of_memory = false;
	struct sojourn_stats stats = {0};
	struct stat_record rec;
	while ((err = stat_reader_next(reader, &rec)) != 0) {
		if (err < 0) {
			fflush(stdout);
			fprintf(stderr, "pktstats: %s: %s\n", cli->object, stat_reader_error(reader));
			status = CLI_RUNTIME;
			continue;
		}
		if (summary) {
			if (sojourn && sojourn_stats_add(&stats, rec.sojourns, rec.n_sojourns) < 0)
				out_of_memory = true;
			continue;
		}
		if (!begun)
			begin(&options, sojourn);
		begun = true;
		if (sojourn)
			print_sojourns(&options, &rec);
		else
			decode_print_record(&options, stat_reader_stream(reader), &rec);
	}
	const struct stat_reader_counts *counts = stat_reader_counts(reader);
	if (out_of_memory) {
		fprintf(stderr, "pktstats: %s: out of memory for the sojourn times\n", cli->object);
		status = CLI_RUNTIME;
	} else if (counts->files > counts->bad_link) { /* a file was read as a capture */
		if (summary) {
			sojourn_stats_sort(&stats);
			print_summary(reader, sojourn ? &stats : NULL, options.queues);
		} else {
			if (!begun)
				begin(&options, sojourn);
			decode_print_end();
		}
	}
	sojourn_stats_free(&stats);
	fflush(stdout);
	decode_report_problems(cli, reader);
	if (sojourn && !summary)
		report_untimed(cli, reader, options.queues);
	stat_reader_close(reader);
	free(paths);
	return status;
}

static const struct cli_verb decode_verbs[] = {
	{"", "[OPTIONS] FILE...", "decode the stat packets of capture files (pcap, pcapng)",
	 "Reads the files in order as one capture (sequence numbers followed across them).\n"
	 "Needs no device.\n"
	 "\n"
	 "Options:\n"
	 COMMON_OPTIONS
	 "  --summary          per-queue figures instead of events: events by type, drops,\n"
	 "                     maximum and time-weighted mean occupancy; per source: lost stat\n"
	 "                     packets, gaps, resets, M flags; malformed packets by reason.\n"
	 "                     With --queues, the per-queue table shows those queues; the\n"
	 "                     totals count every queue. With --sojourn, a sojourn table too:\n"
	 "                     per queue, the frames timed, those that could not be (queued\n"
	 "                     before the capture or a resynchronisation, unsynchronised, still\n"
	 "                     queued at the end), the delays' percentiles p50, p90, p99, p99.9\n"
	 "                     (nearest rank) and maximum\n"
	 "  --sojourn          each frame's queueing delay instead of events: the queues are\n"
	 "                     FIFOs, so a queue's k-th departure is its k-th arrival; one row\n"
	 "                     per frame timed: arrival-ns, departure-ns (its last word left),\n"
	 "                     delay-ns (exact to the capture's tick, 8 ns << c), queue,\n"
	 "                     length-bytes, seq (of the departure's stat packet); with\n"
	 "                     --time-of-day, arrival-time-of-day-ns and departure-time-of-day-ns\n"
	 "                     after departure-ns (with --iso, each followed by its ISO 8601\n"
	 "                     form, arrival-time-of-day, departure-time-of-day). Frames that\n"
	 "                     cannot be timed (queued before the capture, after lost stat\n"
	 "                     packets, an M flag, masked events) are counted on stderr, never\n"
	 "                     given a time (docs/sojourn.md)\n"
	 "\n"
	 EVENT_COLUMNS
	 "In the text table, lines starting with '--' note lost stat packets, sequence resets,\n"
	 "M flags and malformed packets. Malformed packets are counted, reported on stderr at\n"
	 "the end, and skipped: never fatal. Exit status 1 only when a file cannot be read.\n",
	 decode_run},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_decode = {
	"decode", "Decode stat packets from capture files (no device)", decode_verbs,
};
