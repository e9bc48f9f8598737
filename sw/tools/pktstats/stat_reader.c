/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: stat packets out of capture files (stat_reader.h).
 *
 * The summary has two paths that must agree (tb/cli/test_cli_decode.py checks --summary against
 * figures computed from the per-event output):
 *   - with events: the decoder's events, occupancy as it reconstructed it;
 *   - summary_only, format version 2: the stream decoder validates the packet in summary mode
 *     (no event array), then one tight loop walks the slots again and reconstructs occupancy
 *     into the per-queue figures directly. This is the path `decode --summary` takes (make bench).
 */
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <errno.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_reader.h"

struct queue_state {
	int64_t occupancy;     /* words, current */
	uint64_t span_at;      /* the span clock when occupancy was last integrated */
	__int128 integral;     /* word x ns */
};

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
	/* summary */
	struct stat_queue_summary queues[PKTSTATS_QUEUES];
	struct queue_state state[PKTSTATS_QUEUES];
	bool have_time;
	uint64_t previous_ns;          /* the last instant */
	uint64_t span;                 /* sum of forward intervals: the span clock */
	uint64_t first_ns, last_ns, events, packets;
	char error[512];
	struct pktstats_event event_buffer[PKTSTATS_DECODE_MAX_EVENTS];
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

/* ------------------------------------------------------------------------------------------ */
/* Summary */

/* A new instant: the span clock moves on by the forward interval. */
static inline void advance(struct stat_reader *r, uint64_t t)
{
	if (t > r->previous_ns)
		r->span += t - r->previous_ns;
	r->previous_ns = t;
}

/* A packet starts at t: every queue's occupancy becomes its size. */
static void summary_packet_start(struct stat_reader *r, const struct pktstats_packet *packet)
{
	uint64_t t = pktstats_tick_to_ns(packet->start_tick, packet->resolution);
	if (!r->have_time) {
		r->have_time = true;
		r->previous_ns = r->first_ns = r->last_ns = t;
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
			r->queues[q].max_occupancy = INT64_MIN;
	}
	advance(r, t);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct queue_state *s = &r->state[q];
		s->integral += (__int128)s->occupancy * (int64_t)(r->span - s->span_at);
		s->span_at = r->span;
		s->occupancy = packet->queue_size[q];
		if (s->occupancy > r->queues[q].max_occupancy) {
			r->queues[q].max_occupancy = s->occupancy;
			r->queues[q].max_time_ns = t;
		}
	}
	r->packets++;
}

/* From the decoder's events. */
static void summary_events(struct stat_reader *r, const struct pktstats_event *events, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct pktstats_event *e = &events[i];
		advance(r, e->time_ns);
		struct queue_state *s = &r->state[e->queue];
		struct stat_queue_summary *qs = &r->queues[e->queue];
		s->integral += (__int128)s->occupancy * (int64_t)(r->span - s->span_at);
		s->span_at = r->span;
		s->occupancy = e->occupancy;
		qs->events[e->type & 3]++;
		qs->words[e->type & 3] += e->length;
		if (s->occupancy > qs->max_occupancy) {
			qs->max_occupancy = s->occupancy;
			qs->max_time_ns = e->time_ns;
		}
		r->last_ns = e->time_ns;
	}
	r->events += n;
}

static inline uint32_t be32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

/*
 * The fast path: a version 2 payload the stream has validated, walked once more. Per packet,
 * everything is local: occupancy per queue; per queue and type, count << 32 | words (a packet
 * has fewer than 2^15 events of at most 255 words); and the integral in the form
 *   integral over the packet = sum over events of occupancy_before x (s_k - s_previous)
 *                            = occupancy_end x s_end - sum over changes of delta_k x s_k
 * with s the ns since the packet's start. No overflow: the timestamp slots are at most 2^40 ns
 * after the start (else, or when one goes back in time, the loop bails out to the events
 * path) and the gaps add less than n_slots << 19 ticks (checked below 2^37 clocks first), so
 * s < 2^41, |delta x s| < 2^49 and the sums stay below 2^63.
 * Returns false when it bailed out (nothing was changed).
 */
static bool summary_fast(struct stat_reader *r, const struct pktstats_packet *packet,
			 const uint8_t *payload)
{
	static const int64_t sign[4] = {0, 1, -1, 0}; /* by type: arrival +, departure -, drop 0 */
	const uint8_t *slots = payload + PKTSTATS_STAT_HEADER_BYTES;
	const unsigned c = packet->resolution;
	const uint32_t n = packet->n_slots;
	const uint64_t ns_per_tick = (uint64_t)PKTSTATS_CLOCK_NS << c; /* a multiply, no shift by cl */
	const uint64_t t0 = pktstats_tick_to_ns(packet->start_tick, c);
	uint64_t base = packet->start_tick, gaps = 0; /* tick = base + gaps */
	int64_t occupancy[PKTSTATS_QUEUES], max[PKTSTATS_QUEUES], weighted[PKTSTATS_QUEUES];
	uint64_t max_s[PKTSTATS_QUEUES];
	uint64_t packed[PKTSTATS_QUEUES * 4] = {0};
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		occupancy[q] = packet->queue_size[q];
		max[q] = r->queues[q].max_occupancy;
		max_s[q] = UINT64_MAX;
		weighted[q] = 0;
	}
	if ((((uint64_t)n << PKTSTATS_SLOT_GAP_BITS) << c) >> 37)
		return false;
	int64_t s = 0;
	for (uint32_t i = 2; i < n; i++) { /* slots 0-1: the start timestamp */
		const uint32_t slot = be32(slots + 4 * (size_t)i);
		const unsigned type = slot >> 30;
		if (__builtin_expect(type == 0, 0)) {
			uint64_t tick = (uint64_t)(slot & 0x3fffffffu) << 32 |
					be32(slots + 4 * (size_t)++i);
			uint64_t now = base + gaps;
			if (tick < now || ((tick - packet->start_tick) << c) >> 37)
				return false; /* back in time, or far ahead: the general path */
			base = tick;
			gaps = 0;
			continue;
		}
		gaps += slot & PKTSTATS_SLOT_GAP_MASK;
		s = (int64_t)((base - packet->start_tick + gaps) * ns_per_tick);
		const unsigned q = (slot >> 27) & 7, length = (slot >> 19) & 0xff;
		const int64_t delta = sign[type] * (int64_t)length; /* a table: no branch to mispredict */
		packed[q * 4 + type] += (UINT64_C(1) << 32) | length;
		occupancy[q] += delta;
		weighted[q] += delta * s;
		if (__builtin_expect(occupancy[q] > max[q], 0)) {
			max[q] = occupancy[q];
			max_s[q] = (uint64_t)s;
		}
	}
	/* commit: the packet start was summarized already (summary_packet_start) */
	const uint64_t t_end = t0 + (uint64_t)s;
	advance(r, t_end); /* the span clock moves from t0 to t_end */
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct queue_state *st = &r->state[q];
		struct stat_queue_summary *qs = &r->queues[q];
		/* the state was integrated up to the packet's start; add the packet */
		st->integral += (__int128)occupancy[q] * s - weighted[q];
		st->occupancy = occupancy[q];
		st->span_at = r->span;
		for (unsigned type = 1; type < 4; type++) {
			qs->events[type] += packed[q * 4 + type] >> 32;
			qs->words[type] += packed[q * 4 + type] & 0xffffffffu;
		}
		if (max_s[q] != UINT64_MAX) {
			qs->max_occupancy = max[q];
			qs->max_time_ns = t0 + max_s[q];
		}
	}
	r->last_ns = t_end;
	r->events += packet->n_events;
	return true;
}

void stat_reader_summary(const struct stat_reader *r, struct stat_summary *summary)
{
	memset(summary, 0, sizeof *summary);
	memcpy(summary->queues, r->queues, sizeof summary->queues);
	summary->first_ns = r->first_ns;
	summary->last_ns = r->last_ns;
	summary->span_ns = r->span;
	summary->events = r->events;
	summary->packets = r->packets;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		const struct queue_state *s = &r->state[q];
		__int128 integral = s->integral + (__int128)s->occupancy *
						  (int64_t)(r->span - s->span_at);
		summary->queues[q].mean_occupancy = r->span ? (double)integral / (double)r->span
							    : 0.0;
		if (!r->have_time)
			summary->queues[q].max_occupancy = 0;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Frames */

static int feed(struct stat_reader *r, const uint8_t *frame, size_t captured,
		uint64_t capture_ns, struct stat_record *rec)
{
	bool summary_only = r->options.summary_only;
	struct pktstats_event *events = summary_only ? NULL : r->event_buffer;
	memset(rec, 0, offsetof(struct stat_record, result));
	rec->file = NULL;
	rec->frame = r->frame;
	rec->capture_ns = capture_ns;
	rec->events = NULL;
	rec->n_events = 0;
	int err = pktstats_stream_feed_frame(&r->stream, frame, captured, events,
					     PKTSTATS_DECODE_MAX_EVENTS, &rec->result);
	if (err == -ENOMSG) {
		r->counts.ignored[rec->result.reason % PKTSTATS_DECODE_ERROR_COUNT]++;
		return 0;
	}
	if (err == -EBADMSG || err == -EINVAL) {
		rec->status = STAT_RECORD_MALFORMED;
		rec->reason = err == -EINVAL ? PKTSTATS_DECODE_TRUNCATED : rec->result.reason;
		r->counts.malformed[rec->reason % PKTSTATS_DECODE_ERROR_COUNT]++;
		return 1;
	}
	/* decoded (0; -ENOSPC cannot happen with PKTSTATS_DECODE_MAX_EVENTS) */
	rec->status = STAT_RECORD_PACKET;
	rec->reason = PKTSTATS_DECODE_OK;
	const struct pktstats_packet *packet = &rec->result.packet;
	summary_packet_start(r, packet);
	if (!summary_only) {
		rec->events = r->event_buffer;
		rec->n_events = rec->result.n_events;
		summary_events(r, rec->events, rec->n_events);
	} else if (packet->version != 2 || !summary_fast(r, packet, rec->result.frame.payload)) {
		/* version 1 (the decoder's own reading of its time field), or time jumps */
		struct pktstats_decode_options options = r->stream.options.decode;
		struct pktstats_packet again;
		size_t n = 0;
		if (pktstats_decode_payload_ex(rec->result.frame.payload,
					       rec->result.frame.payload_len, &options, &again,
					       r->event_buffer, PKTSTATS_DECODE_MAX_EVENTS, &n,
					       NULL) >= 0)
			summary_events(r, r->event_buffer, n);
	}
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
		pcap_t *p = pcap_open_offline_with_tstamp_precision(path,
								    PCAP_TSTAMP_PRECISION_NANO,
								    error);
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
		if (feed(r, data, header->caplen, ns, rec)) {
			rec->file = r->file;
			return 1;
		}
	}
}
