/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: stat packets out of capture files (stat_reader.h).
 *
 * In summary_only mode the stream decoder adds each packet to a struct pktstats_summary in the
 * pass that validates it (decode.h): the path `decode --summary` takes, and `make bench`
 * measures. tb/cli/test_cli_decode.py checks its figures against the simulator's truth.
 */
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <errno.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_reader.h"

#define STAT_READER_FILE_BUFFER (1 << 20) /* bytes */

struct stat_reader {
	struct stat_reader_options options;
	char filter[256];
	struct bpf_program program;
	bool have_program;
	const char *const *paths;
	size_t n_paths, next_path;
	pcap_t *pcap;                  /* the file being read */
	const char *file;
	uint64_t frame;
	struct pktstats_stream stream;
	struct stat_reader_counts counts;
	struct pktstats_summary summary; /* summary_only */
	struct pktstats_sojourn_matcher *matcher; /* sojourn */
	struct pktstats_sojourn *sojourn_buffer;  /* sojourn: PKTSTATS_DECODE_MAX_EVENTS */
	char error[512];
	struct pktstats_event event_buffer[PKTSTATS_DECODE_MAX_EVENTS];
	char file_buffer[STAT_READER_FILE_BUFFER]; /* stdio's, for the file being read */
};

static void set_error(struct stat_reader *r, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void set_error(struct stat_reader *r, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(r->error, sizeof r->error, format, args);
	va_end(args);
}

void stat_reader_default_options(struct stat_reader_options *options)
{
	memset(options, 0, sizeof *options);
	options->udp_port = PKTSTATS_UDP_PORT;
}

int stat_reader_open(struct stat_reader **reader, const char *const *paths, size_t n_paths,
		     const struct stat_reader_options *options, char *error, size_t error_size)
{
	struct stat_reader_options defaults;
	if (!reader || (!paths && n_paths))
		return -EINVAL;
	*reader = NULL;
	if (!options) {
		stat_reader_default_options(&defaults);
		options = &defaults;
	}
	if (options->v1_resolution > PKTSTATS_RESOLUTION_MAX || options->udp_port == 0) {
		snprintf(error, error_size, "%s", options->udp_port == 0 ? "UDP port 0"
						: "version 1 resolution above 7");
		return -EINVAL;
	}
	size_t stdin_count = 0;
	for (size_t i = 0; i < n_paths; i++)
		stdin_count += !strcmp(paths[i], "-");
	if (stdin_count > 1) {
		snprintf(error, error_size, "'-' (standard input) given %zu times: it can be read once",
			 stdin_count);
		return -EINVAL;
	}
	struct stat_reader *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->options = *options;
	r->paths = paths;
	r->n_paths = n_paths;
	if (options->filter)
		snprintf(r->filter, sizeof r->filter, "%s", options->filter);
	else
		snprintf(r->filter, sizeof r->filter, STAT_READER_DEFAULT_FILTER,
			 options->udp_port, options->udp_port);
	if (options->filter && strlen(options->filter) >= sizeof r->filter) {
		snprintf(error, error_size, "filter longer than %zu characters", sizeof r->filter - 1);
		free(r);
		return -EINVAL;
	}
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 262144,
							    PCAP_TSTAMP_PRECISION_NANO);
	if (!dead) {
		free(r);
		return -ENOMEM;
	}
	if (pcap_compile(dead, &r->program, r->filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(error, error_size, "filter '%s': %s", r->filter, pcap_geterr(dead));
		pcap_close(dead);
		free(r);
		return -EINVAL;
	}
	pcap_close(dead);
	r->have_program = true;
	struct pktstats_stream_options stream_options;
	pktstats_stream_default_options(&stream_options);
	stream_options.udp_port = options->filter ? 0 : options->udp_port;
	stream_options.decode.v1_resolution = options->v1_resolution;
	int err = pktstats_stream_init(&r->stream, &stream_options);
	if (err < 0) {
		snprintf(error, error_size, "stream: %s", strerror(-err));
		stat_reader_close(r);
		return err;
	}
	if (options->sojourn) {
		struct pktstats_sojourn_options sojourn_options;
		pktstats_sojourn_default_options(&sojourn_options);
		if (options->queue_words)
			sojourn_options.queue_words = options->queue_words;
		err = pktstats_sojourn_create(&r->matcher, &sojourn_options);
		r->sojourn_buffer = malloc(PKTSTATS_DECODE_MAX_EVENTS * sizeof *r->sojourn_buffer);
		if (err == 0 && !r->sojourn_buffer)
			err = -ENOMEM;
		if (err < 0) {
			snprintf(error, error_size, "%s", err == -EINVAL
				 ? "queue words out of range" : strerror(-err));
			stat_reader_close(r);
			return err;
		}
	}
	*reader = r;
	return 0;
}

void stat_reader_close(struct stat_reader *r)
{
	if (!r)
		return;
	if (r->pcap)
		pcap_close(r->pcap);
	if (r->have_program)
		pcap_freecode(&r->program);
	pktstats_sojourn_destroy(r->matcher);
	free(r->sojourn_buffer);
	free(r);
}

const char *stat_reader_filter(const struct stat_reader *r)
{
	return r->filter;
}

const char *stat_reader_error(const struct stat_reader *r)
{
	return r->error;
}

const struct pktstats_stream *stat_reader_stream(const struct stat_reader *r)
{
	return &r->stream;
}

const struct stat_reader_counts *stat_reader_counts(const struct stat_reader *r)
{
	return &r->counts;
}

const struct pktstats_summary *stat_reader_summary(const struct stat_reader *r)
{
	return &r->summary;
}

const struct pktstats_sojourn_matcher *stat_reader_sojourn(const struct stat_reader *r)
{
	return r->matcher;
}

/* The matcher takes every stat packet, malformed ones included. In summary mode the events
 * are decoded again from the payload (the summary pass writes none). */
static void match(struct stat_reader *r, struct stat_record *rec)
{
	const struct pktstats_event *events = rec->events;
	size_t n_events = rec->n_events;
	if (r->options.summary_only && rec->status == STAT_RECORD_PACKET) {
		struct pktstats_packet packet;
		if (pktstats_decode_payload_ex(rec->result.frame.payload, rec->result.frame.payload_len,
					       &r->stream.options.decode, &packet, r->event_buffer,
					       PKTSTATS_DECODE_MAX_EVENTS, &n_events, NULL) != 0)
			n_events = 0;
		events = r->event_buffer;
	}
	/* -ENOSPC cannot happen: a packet has at most PKTSTATS_DECODE_MAX_EVENTS departures */
	pktstats_sojourn_feed(r->matcher, &rec->result, events, n_events, r->sojourn_buffer,
			      PKTSTATS_DECODE_MAX_EVENTS, &rec->n_sojourns);
	rec->sojourns = r->sojourn_buffer;
}

/* ------------------------------------------------------------------------------------------ */
/* Frames */

static int feed(struct stat_reader *r, const uint8_t *frame, size_t captured,
		uint64_t capture_ns, struct stat_record *rec)
{
	memset(rec, 0, offsetof(struct stat_record, result));
	rec->frame = r->frame;
	rec->capture_ns = capture_ns;
	rec->events = NULL;
	rec->n_events = 0;
	rec->sojourns = NULL;
	rec->n_sojourns = 0;
	int err = r->options.summary_only
		? pktstats_stream_feed_frame_summary(&r->stream, frame, captured, &r->summary,
						     &rec->result)
		: pktstats_stream_feed_frame(&r->stream, frame, captured, r->event_buffer,
					     PKTSTATS_DECODE_MAX_EVENTS, &rec->result);
	if (err == -ENOMSG) {
		r->counts.ignored[rec->result.reason % PKTSTATS_DECODE_ERROR_COUNT]++;
		return 0;
	}
	if (err == -EBADMSG || err == -EINVAL) {
		rec->status = STAT_RECORD_MALFORMED;
		rec->reason = err == -EINVAL ? PKTSTATS_DECODE_TRUNCATED : rec->result.reason;
		r->counts.malformed[rec->reason % PKTSTATS_DECODE_ERROR_COUNT]++;
		if (r->matcher)
			match(r, rec);
		return 1;
	}
	/* decoded (0; -ENOSPC cannot happen with PKTSTATS_DECODE_MAX_EVENTS) */
	rec->status = STAT_RECORD_PACKET;
	rec->reason = PKTSTATS_DECODE_OK;
	if (!r->options.summary_only) {
		rec->events = r->event_buffer;
		rec->n_events = rec->result.n_events;
	}
	if (r->matcher)
		match(r, rec);
	return 1;
}

int stat_reader_feed(struct stat_reader *r, const uint8_t *frame, size_t captured,
		     uint64_t capture_ns, struct stat_record *rec)
{
	r->frame++;
	r->counts.frames++;
	return feed(r, frame, captured, capture_ns, rec);
}

/* Opens the next file; 0 when there is none, 1 when open, -errno when it failed. */
static int open_next(struct stat_reader *r)
{
	while (r->next_path < r->n_paths) {
		const char *path = r->paths[r->next_path++];
		char error[PCAP_ERRBUF_SIZE] = "";
		pcap_t *p = NULL;
		/* Our own FILE, for its buffer: stdio's default (the file system's block size,
		 * 4 KiB) costs a read() per few packets. (glibc ignores setvbuf's size without a
		 * buffer.) "-" is standard input, as for libpcap's own open. */
		FILE *file = strcmp(path, "-") ? fopen(path, "rb") : stdin;
		if (!file) {
			snprintf(error, sizeof error, "%s", strerror(errno));
		} else {
			setvbuf(file, r->file_buffer, _IOFBF, sizeof r->file_buffer);
			p = pcap_fopen_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO,
								     error);
			if (!p)
				fclose(file);
		}
		if (!p) {
			if (!strncmp(error, path, strlen(path))) /* libpcap names it already */
				set_error(r, "%s", error);
			else
				set_error(r, "%s: %s", path, *error ? error : "cannot open");
			return -EIO;
		}
		r->counts.files++;
		int link = pcap_datalink(p);
		if (link != DLT_EN10MB) {
			const char *name = pcap_datalink_val_to_name(link);
			set_error(r, "%s: link type %s, not Ethernet", path, name ? name : "unknown");
			r->counts.bad_link++;
			pcap_close(p);
			return -EPROTONOSUPPORT;
		}
		r->pcap = p;
		r->file = path;
		r->frame = 0;
		return 1;
	}
	return 0;
}

int stat_reader_next(struct stat_reader *r, struct stat_record *rec)
{
	r->error[0] = '\0';
	for (;;) {
		if (!r->pcap) {
			int err = open_next(r);
			if (err <= 0)
				return err;
		}
		struct pcap_pkthdr *header;
		const u_char *data;
		int got = pcap_next_ex(r->pcap, &header, &data);
		if (got != 1) {
			int err = 0;
			if (got != PCAP_ERROR_BREAK) { /* -2: end of file */
				set_error(r, "%s: %s", r->file, pcap_geterr(r->pcap));
				err = -EIO;
			}
			pcap_close(r->pcap);
			r->pcap = NULL;
			if (err)
				return err;
			continue;
		}
		r->frame++;
		r->counts.frames++;
		if (!pcap_offline_filter(&r->program, header, data)) {
			r->counts.filtered++;
			continue;
		}
		uint64_t ns = (uint64_t)header->ts.tv_sec * 1000000000u +
			      (uint64_t)header->ts.tv_usec;
		if (r->options.raw_frames) {
			memset(rec, 0, sizeof *rec);
			rec->status = STAT_RECORD_RAW;
			rec->file = r->file;
			rec->frame = r->frame;
			rec->capture_ns = ns;
			rec->data = data;
			rec->captured = header->caplen;
			return 1;
		}
		if (feed(r, data, header->caplen, ns, rec)) {
			rec->file = r->file;
			return 1;
		}
	}
}
