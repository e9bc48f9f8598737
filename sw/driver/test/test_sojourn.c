/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of the sojourn matcher (src/sojourn.c) through the stream decoder.
 *
 * A small queue simulation of its own (random arrivals, departures and drops on 8 FIFO queues,
 * one tick per step, lengths up to 190 words, or 300 on queue 7 in one run) is the truth: it knows every frame's arrival and
 * departure tick and in which stat packet each event went. The events are written into version
 * 2 payloads by an encoder of this file (bit positions spelled out here), fed through
 * pktstats_stream_feed_payload() and the matcher, and checked:
 *   - every timed frame has exactly its true arrival and departure instants;
 *   - the departures split into timed, queued_before and unsynchronised exactly as the rules of
 *     pktstats/sojourn.h say, worked out from the truth's packet indices (below, expect());
 * with stat packets removed, M flags, duplicated and reordered packets, a capture starting on
 * full queues, and a masked event type; then edge cases by hand. Every packet goes through the
 * fused path too (pktstats_sojourn_feed_frame(), as frames), which must give the event path's
 * sojourns and counts exactly, with the default queue RAM and with half of it.
 * Random runs print their seed; PKTSTATS_TEST_SEED=N replays seed N alone.
 */
#include "pktstats/sojourn.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "test_device_tap.h"
#include "test_rng.h"

/* ---------------------------------------------------------------------------------------- */
/* The truth: a queue simulation                                                              */

#define MAX_FRAMES 20000
#define MAX_EVENTS 60000
#define EVENTS_PER_PACKET 40

struct frame {
	unsigned queue, words;
	uint64_t arrival, departure; /* ticks; departure 0 while queued */
	int arrival_packet, departure_packet; /* -1: before the capture / not departed */
};

struct truth_event {
	uint64_t tick;
	unsigned type, queue, words;
	int frame;                   /* -1 for a drop */
};

struct truth {
	struct frame frames[MAX_FRAMES];
	int n_frames;
	struct truth_event events[MAX_EVENTS];
	int n_events;
	uint64_t start_words[PKTSTATS_QUEUES]; /* at the first captured event */
};

/* Simulates `steps` ticks; the capture sees events from tick `capture_from` on (the frames
 * queued then are queued before it). Queue 7 takes lengths up to max_words_7 (above 255:
 * saturated in the slots). */
static void simulate(struct truth *t, unsigned steps, uint64_t capture_from, unsigned max_words_7)
{
	int fifo[PKTSTATS_QUEUES][MAX_FRAMES / 4];
	int head[PKTSTATS_QUEUES] = {0}, count[PKTSTATS_QUEUES] = {0};
	uint64_t words[PKTSTATS_QUEUES] = {0};
	t->n_frames = t->n_events = 0;
	uint64_t tick = 0;
	for (unsigned step = 1; step <= steps; step++) {
		/* Sometimes a long pause: a timestamp in the middle of a packet */
		tick += rng() % 500 == 0 ? 1u << 20 : 1;
		if (step >= capture_from && capture_from && t->n_events == 0)
			for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
				t->start_words[q] = words[q];
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
			unsigned r = rng() % 16;
			bool capture = step >= capture_from;
			/* In the hardware's order within a clock: arrival, departure, drop */
			unsigned w = 1 + (unsigned)(rng() % (q == 7 ? max_words_7 : 190));
			/* A frame that does not fit the queue's RAM is dropped, as the switch does */
			if (r < 3 && words[q] + w > PKTSTATS_SOJOURN_DEFAULT_QUEUE_WORDS - 300)
				r = 6;
			if (r < 3 && count[q] < MAX_FRAMES / 4 && t->n_frames < MAX_FRAMES) {
				struct frame *f = &t->frames[t->n_frames];
				*f = (struct frame){q, w, tick, 0, -1, -1};
				fifo[q][(head[q] + count[q]++) % (MAX_FRAMES / 4)] = t->n_frames;
				words[q] += w;
				if (capture && t->n_events < MAX_EVENTS)
					t->events[t->n_events++] = (struct truth_event){
						tick, PKTSTATS_EVENT_ARRIVAL, q, w, t->n_frames};
				t->n_frames++;
			}
			if (r >= 3 && r < 6 && count[q] > 0 && tick > 1) {
				int k = fifo[q][head[q]];
				if (t->frames[k].arrival < tick) {
					head[q] = (head[q] + 1) % (MAX_FRAMES / 4);
					count[q]--;
					words[q] -= t->frames[k].words;
					t->frames[k].departure = tick;
					if (capture && t->n_events < MAX_EVENTS)
						t->events[t->n_events++] = (struct truth_event){
							tick, PKTSTATS_EVENT_DEPARTURE, q,
							t->frames[k].words, k};
				}
			}
			if (r == 6 && capture && t->n_events < MAX_EVENTS)
				t->events[t->n_events++] = (struct truth_event){
					tick, PKTSTATS_EVENT_DROP, q, w > 255 ? 255 : w, -1};
		}
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Encoder: stat packets of version 2, EVENTS_PER_PACKET events each                         */

struct payload {
	uint8_t bytes[38 + 4 * (2 + 2 * EVENTS_PER_PACKET)];
	size_t len;
	unsigned n_events;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Packs the truth's events (those of event_type_mask only) into payloads[]; the snapshot of
 * each is the truth's occupancy at its first event's tick, before its events. Records each
 * frame's arrival and departure packet. Returns the number of payloads. */
static int encode(struct truth *t, struct payload *payloads, int max_payloads,
		  unsigned event_type_mask)
{
	uint64_t words[PKTSTATS_QUEUES];
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		words[q] = t->start_words[q];
	int n = 0;
	int e = 0;
	while (e < t->n_events && n < max_payloads) {
		struct payload *p = &payloads[n];
		uint8_t *b = p->bytes;
		b[0] = 0x02; /* M 0, C 0, version 2 */
		b[1] = 3;
		put32(b + 2, (uint32_t)n);
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
			put32(b + 6 + 4 * q, (uint32_t)words[q]);
		size_t at = 38;
		uint64_t prev = t->events[e].tick;
		put32(b + at, (uint32_t)(prev >> 32) & 0x3fffffffu); /* 00, bits 61:32 */
		put32(b + at + 4, (uint32_t)prev);
		at += 8;
		p->n_events = 0;
		for (; e < t->n_events && p->n_events < EVENTS_PER_PACKET; e++) {
			const struct truth_event *ev = &t->events[e];
			if (ev->type == PKTSTATS_EVENT_ARRIVAL)
				words[ev->queue] += ev->words;
			else if (ev->type == PKTSTATS_EVENT_DEPARTURE)
				words[ev->queue] -= ev->words;
			if (ev->frame >= 0) {
				struct frame *f = &t->frames[ev->frame];
				if (ev->type == PKTSTATS_EVENT_ARRIVAL)
					f->arrival_packet = n;
				else
					f->departure_packet = n;
			}
			if (!(event_type_mask >> ev->type & 1))
				continue;
			uint64_t gap = ev->tick - prev;
			if (gap >= 1u << 19) {
				put32(b + at, (uint32_t)(ev->tick >> 32) & 0x3fffffffu);
				put32(b + at + 4, (uint32_t)ev->tick);
				at += 8;
				gap = 0;
			}
			unsigned length = ev->words > 255 ? 255 : ev->words;
			put32(b + at, (uint32_t)ev->type << 30 | ev->queue << 27 | length << 19 |
					      (uint32_t)gap);
			at += 4;
			prev = ev->tick;
			p->n_events++;
		}
		p->len = at;
		if (p->n_events > 0) /* a packet with no short event is not valid version 2 */
			n++;
	}
	return n;
}

/* ---------------------------------------------------------------------------------------- */
/* The fused path against the event path                                                      */

/*
 * The same frames through pktstats_sojourn_feed_frame() and through the event path
 * (pktstats_stream_feed_frame() into an array that holds every event, then
 * pktstats_sojourn_feed()), each with its own stream and matcher: every packet's sojourns,
 * field by field, its result and return, and at the end every count, must be the same.
 */
struct twin {
	struct pktstats_stream stream[2]; /* [0]: event path, [1]: fused */
	struct pktstats_sojourn_matcher *matcher[2];
	uint64_t packets, records, differences;
	char first_difference[160];
};

static struct pktstats_event twin_events[PKTSTATS_DECODE_MAX_EVENTS];

static int twin_begin(struct twin *w, uint32_t queue_words)
{
	struct pktstats_sojourn_options o = {.queue_words = queue_words};
	*w = (struct twin){0};
	for (int k = 0; k < 2; k++) {
		pktstats_stream_init(&w->stream[k], NULL);
		if (pktstats_sojourn_create(&w->matcher[k], &o) != 0)
			return -ENOMEM;
	}
	return 0;
}

static void twin_end(struct twin *w)
{
	for (int k = 0; k < 2; k++)
		pktstats_sojourn_destroy(w->matcher[k]);
}

static void twin_differs(struct twin *w, const char *what, uint64_t a, uint64_t b)
{
	if (!w->differences++)
		snprintf(w->first_difference, sizeof w->first_difference,
			 "packet %" PRIu64 ": %s %" PRIu64 " (event path) against %" PRIu64, w->packets,
			 what, a, b);
}

static bool same_sojourn(const struct pktstats_sojourn *a, const struct pktstats_sojourn *b)
{
	return a->arrival_ns == b->arrival_ns && a->departure_ns == b->departure_ns &&
	       a->delay_ns == b->delay_ns && a->arrival_seq == b->arrival_seq &&
	       a->departure_seq == b->departure_seq && a->queue == b->queue &&
	       a->length == b->length && a->resolution == b->resolution && a->source == b->source;
}

/* A stat payload in an Ethernet, IPv4 and UDP frame from 10.0.0.1:27033 (the checksums are
 * not checked). Returns the frame's length. */
static size_t frame_of(uint8_t *frame, const uint8_t *payload, size_t len)
{
	memset(frame, 0, 42);
	frame[12] = 0x08; /* IPv4 */
	uint8_t *ip = frame + 14;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((20 + 8 + len) >> 8);
	ip[3] = (uint8_t)(20 + 8 + len);
	ip[8] = 64;
	ip[9] = 17; /* UDP */
	put32(ip + 12, 0x0a000001);
	put32(ip + 16, 0x0a000002);
	uint8_t *udp = ip + 20;
	udp[0] = 27033 >> 8;
	udp[1] = 27033 & 0xff;
	udp[2] = PKTSTATS_UDP_PORT >> 8;
	udp[3] = PKTSTATS_UDP_PORT & 0xff;
	udp[4] = (uint8_t)((8 + len) >> 8);
	udp[5] = (uint8_t)(8 + len);
	memcpy(udp + 8, payload, len);
	return 42 + len;
}

/* One frame through both; `max_out` the output array's size (at most 2 * EVENTS_PER_PACKET,
 * or any when the packet's departures fit PKTSTATS_DECODE_MAX_EVENTS). */
static void twin_feed(struct twin *w, const uint8_t *payload, size_t len, size_t max_out)
{
	static uint8_t frame[42 + 65536];
	static struct pktstats_sojourn out[2][PKTSTATS_DECODE_MAX_EVENTS];
	struct pktstats_stream_result result[2];
	size_t n_out[2] = {0, 0};
	int rc[2];
	size_t frame_len = frame_of(frame, payload, len);
	w->packets++;
	rc[0] = pktstats_stream_feed_frame(&w->stream[0], frame, frame_len, twin_events,
					   PKTSTATS_DECODE_MAX_EVENTS, &result[0]);
	if (rc[0] != -ENOMSG) {
		int err = pktstats_sojourn_feed(w->matcher[0], &result[0], twin_events,
						result[0].n_events, out[0], max_out, &n_out[0]);
		if (err)
			rc[0] = err;
	}
	rc[1] = pktstats_sojourn_feed_frame(w->matcher[1], &w->stream[1], frame, frame_len,
					    &result[1], out[1], max_out, &n_out[1]);
	if (rc[0] != rc[1])
		twin_differs(w, "return", (uint64_t)-rc[0], (uint64_t)-rc[1]);
	if (result[0].seq_status != result[1].seq_status || result[0].reason != result[1].reason ||
	    result[0].n_events != result[1].n_events || result[0].source != result[1].source ||
	    memcmp(&result[0].packet, &result[1].packet, sizeof result[0].packet))
		twin_differs(w, "result (events)", result[0].n_events, result[1].n_events);
	if (n_out[0] != n_out[1])
		twin_differs(w, "sojourns", n_out[0], n_out[1]);
	for (size_t i = 0; i < n_out[0] && i < n_out[1]; i++) {
		w->records++;
		if (!same_sojourn(&out[0][i], &out[1][i]))
			twin_differs(w, "sojourn's departure_ns", out[0][i].departure_ns,
				     out[1][i].departure_ns);
	}
}

/* The point: every packet alike, and every count of every queue of every source. */
static void twin_check(struct twin *w, const char *what)
{
	for (int s = -1; s < PKTSTATS_STREAM_MAX_SOURCES; s++)
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
			const struct pktstats_sojourn_counts *a =
				pktstats_sojourn_counts(w->matcher[0], s, q);
			const struct pktstats_sojourn_counts *b =
				pktstats_sojourn_counts(w->matcher[1], s, q);
			if ((a == NULL) != (b == NULL) || (a && memcmp(a, b, sizeof *a)))
				twin_differs(w, "counts of queue", q, q);
		}
	if (memcmp(&w->stream[0].total, &w->stream[1].total, sizeof w->stream[0].total))
		twin_differs(w, "stream's packets", w->stream[0].total.packets,
			     w->stream[1].total.packets);
	if (!tap_ok(w->differences == 0,
		    "%s: pktstats_sojourn_feed_frame() as the event path (%" PRIu64 " packets, %" PRIu64
		    " sojourns, every count)",
		    what, w->packets, w->records))
		tap_diag("%" PRIu64 " differences; first: %s", w->differences, w->first_difference);
}

/* ---------------------------------------------------------------------------------------- */
/* Feeding and checking                                                                       */

struct run {
	struct pktstats_sojourn_matcher *matcher;
	struct pktstats_stream stream;
	uint64_t timed, wrong, departures_fed;
	char first_wrong[160];
	/* The same packets through the fused path and the event path: with the default queue
	 * RAM, and with half of it (where the matcher sees overflows) */
	struct twin twin[2];
};

static int run_begin(struct run *r)
{
	*r = (struct run){0};
	pktstats_stream_init(&r->stream, NULL);
	if (twin_begin(&r->twin[0], PKTSTATS_SOJOURN_DEFAULT_QUEUE_WORDS) ||
	    twin_begin(&r->twin[1], PKTSTATS_SOJOURN_DEFAULT_QUEUE_WORDS / 2))
		return -ENOMEM;
	return pktstats_sojourn_create(&r->matcher, NULL);
}

/* A payload through both twins */
static void run_twins(struct run *r, const uint8_t *payload, size_t len, size_t max_out)
{
	twin_feed(&r->twin[0], payload, len, max_out);
	twin_feed(&r->twin[1], payload, len, max_out);
}

/* The fused path's points, and the end of the run */
static void run_end(struct run *r, const char *what)
{
	char half[200];
	twin_check(&r->twin[0], what);
	snprintf(half, sizeof half, "%s, queue RAM %u words", what,
		 PKTSTATS_SOJOURN_DEFAULT_QUEUE_WORDS / 2);
	twin_check(&r->twin[1], half);
	twin_end(&r->twin[0]);
	twin_end(&r->twin[1]);
	pktstats_sojourn_destroy(r->matcher);
}

/* Feeds one payload; every timed frame is checked against the truth (the frame that departed
 * from that queue at that tick). */
static void feed(struct run *r, const struct truth *t, const struct payload *p)
{
	struct pktstats_event events[2 * EVENTS_PER_PACKET];
	struct pktstats_stream_result result;
	struct pktstats_sojourn out[2 * EVENTS_PER_PACKET];
	size_t n_out;
	run_twins(r, p->bytes, p->len, 2 * EVENTS_PER_PACKET);
	pktstats_stream_feed_payload(&r->stream, 0x0a000001, 27033, p->bytes, p->len, events,
				     2 * EVENTS_PER_PACKET, &result);
	if (result.seq_status != PKTSTATS_SEQ_DUPLICATE && result.seq_status != PKTSTATS_SEQ_REORDERED)
		for (size_t i = 0; i < result.n_events; i++)
			r->departures_fed += events[i].type == PKTSTATS_EVENT_DEPARTURE;
	if (pktstats_sojourn_feed(r->matcher, &result, events, result.n_events, out,
				  2 * EVENTS_PER_PACKET, &n_out) != 0) {
		r->wrong++;
		return;
	}
	for (size_t i = 0; i < n_out; i++) {
		const struct frame *match = NULL;
		for (int k = 0; k < t->n_frames && !match; k++)
			if (t->frames[k].queue == out[i].queue &&
			    t->frames[k].departure * 8 == out[i].departure_ns)
				match = &t->frames[k];
		r->timed++;
		if (!match || match->arrival * 8 != out[i].arrival_ns ||
		    out[i].delay_ns != (match->departure - match->arrival) * 8 ||
		    out[i].length != (match->words > 255 ? 255 : match->words)) {
			if (!r->wrong++)
				snprintf(r->first_wrong, sizeof r->first_wrong,
					 "queue %u departure %" PRIu64 " ns: arrival %" PRIu64
					 " ns, truth %" PRIu64 " ns",
					 out[i].queue, out[i].departure_ns, out[i].arrival_ns,
					 match ? match->arrival * 8 : 0);
		}
	}
}

/* What the rules say of each departure seen, from the packet indices: blind[k] marks packet k
 * as one whose departures are unsynchronised (an M packet); sync[k] marks the packets at which
 * the queues synchronise (the first, the one after a gap or after an M). A frame that departs
 * in packet d is timed if it arrived in or after the last sync packet s <= d, queued before if
 * it arrived before s, unsynchronised if d is blind. Lost packets' departures are not seen. */
struct expectation {
	uint64_t timed, queued_before, unsynchronised;
};

static struct expectation expect(const struct truth *t, const bool *lost, const bool *blind,
				 const bool *sync)
{
	struct expectation x = {0};
	for (int k = 0; k < t->n_frames; k++) {
		const struct frame *f = &t->frames[k];
		int d = f->departure_packet;
		if (d < 0 || lost[d])
			continue;
		if (blind[d]) {
			x.unsynchronised++;
			continue;
		}
		int s = d;
		while (!sync[s])
			s--;
		if (f->arrival_packet >= s)
			x.timed++;
		else
			x.queued_before++;
	}
	return x;
}

static void check_counts(struct run *r, struct expectation x, const char *what)
{
	struct pktstats_sojourn_counts c;
	pktstats_sojourn_total(r->matcher, PKTSTATS_ALL_QUEUES, &c);
	if (!tap_ok(r->wrong == 0, "%s: every timed frame has its true times (%" PRIu64 " timed)",
		    what, r->timed))
		tap_diag("%" PRIu64 " wrong; first: %s", r->wrong, r->first_wrong);
	if (!tap_ok(c.timed + c.queued_before + c.unsynchronised == r->departures_fed &&
			    c.timed == r->timed,
		    "%s: every departure is timed, queued before or unsynchronised", what))
		tap_diag("%" PRIu64 " + %" PRIu64 " + %" PRIu64 " of %" PRIu64 " departures",
			 c.timed, c.queued_before, c.unsynchronised, r->departures_fed);
	if (!tap_ok(c.timed == x.timed && c.queued_before == x.queued_before &&
			    c.unsynchronised == x.unsynchronised,
		    "%s: timed %" PRIu64 ", queued before %" PRIu64 ", unsynchronised %" PRIu64
		    " as the rules say",
		    what, c.timed, c.queued_before, c.unsynchronised))
		tap_diag("expected %" PRIu64 ", %" PRIu64 ", %" PRIu64, x.timed, x.queued_before,
			 x.unsynchronised);
}

#define MAX_PAYLOADS 2000
static struct truth truth;
static struct payload payloads[MAX_PAYLOADS];
static bool lost[MAX_PAYLOADS], blind[MAX_PAYLOADS], sync_at[MAX_PAYLOADS];

/* One random capture: `losses` stat packets removed, `ms` packets with M, `dups` duplicated,
 * `late` swapped with their successor; the capture starts on busy queues if late_start; queue
 * 7's frames up to max_words_7 words (above 255 only where no frame from before a snapshot is
 * left, where the rules would make them unsynchronised: that is the hand case). */
static void random_capture(uint64_t seed, int losses, int ms, int dups, int late, bool late_start,
			   unsigned max_words_7)
{
	char what[140];
	snprintf(what, sizeof what, "seed %" PRIu64 ", %d lost, %d M, %d duplicated, %d late%s%s",
		 seed, losses, ms, dups, late, late_start ? ", busy at the start" : "",
		 max_words_7 > 255 ? ", queue 7 up to 300 words" : "");
	rng_state = seed * 0x9e3779b97f4a7c15u + 1;
	memset(&truth, 0, sizeof truth);
	simulate(&truth, 4000, late_start ? 600 : 0, max_words_7);
	int n = encode(&truth, payloads, MAX_PAYLOADS, 0xe);
	if (!tap_ok(n >= 10, "%s: %d stat packets", what, n))
		return;
	memset(lost, 0, sizeof lost);
	memset(blind, 0, sizeof blind);
	memset(sync_at, 0, sizeof sync_at);
	sync_at[0] = true;
	for (int i = 0; i < losses; i++) {
		int k = 1 + (int)(rng() % (uint64_t)(n - 2));
		lost[k] = true;
	}
	for (int i = 0; i < ms; i++) {
		int k = 1 + (int)(rng() % (uint64_t)(n - 2));
		if (!lost[k]) {
			blind[k] = true;
			payloads[k].bytes[0] |= 0x80;
		}
	}
	/* Where the queues synchronise: after a gap at the next packet seen, after an M at the
	 * next packet without M (after a gap: unless it has M itself) */
	bool waiting = false;
	for (int k = 1; k < n; k++) {
		if (lost[k]) {
			waiting = true;
			continue;
		}
		if (blind[k]) {
			waiting = true;
		} else if (waiting) {
			sync_at[k] = true;
			waiting = false;
		}
	}
	struct run r;
	if (run_begin(&r) != 0) {
		tap_ok(false, "%s: matcher created", what);
		return;
	}
	int dup_left = dups, late_left = late;
	for (int k = 0; k < n; k++) {
		if (lost[k])
			continue;
		/* A late packet: k+1 first, then k (k+1 is neither lost nor special) */
		if (late_left > 0 && k + 1 < n && k > 0 && !lost[k + 1] && !lost[k] && !blind[k] &&
		    !blind[k + 1] && !sync_at[k] && !sync_at[k + 1] && rng() % 50 == 0) {
			late_left--;
			/* Packet k is then lost as far as packet k+1 can tell (a gap) and comes late:
			 * its events are ignored; the queues synchronise at k+1 */
			feed(&r, &truth, &payloads[k + 1]);
			feed(&r, &truth, &payloads[k]);
			lost[k] = true;
			sync_at[k + 1] = true;
			k++;
			continue;
		}
		feed(&r, &truth, &payloads[k]);
		if (dup_left > 0 && rng() % 40 == 0) {
			dup_left--;
			feed(&r, &truth, &payloads[k]);
		}
	}
	check_counts(&r, expect(&truth, lost, blind, sync_at), what);
	run_end(&r, what);
}

/* A masked event type: the departures (or arrivals) of every queue never come. Nothing may be
 * timed wrongly, every departure seen is counted, and the contradiction is noticed. */
static void masked_capture(uint64_t seed, unsigned type_mask, const char *what)
{
	rng_state = seed * 0x9e3779b97f4a7c15u + 1;
	memset(&truth, 0, sizeof truth);
	simulate(&truth, 3000, 0, 190);
	int n = encode(&truth, payloads, MAX_PAYLOADS, type_mask);
	struct run r;
	if (run_begin(&r) != 0)
		return;
	for (int k = 0; k < n; k++)
		feed(&r, &truth, &payloads[k]);
	struct pktstats_sojourn_counts c;
	pktstats_sojourn_total(r.matcher, PKTSTATS_ALL_QUEUES, &c);
	if (!tap_ok(r.wrong == 0 && c.timed == r.timed &&
			    c.timed + c.queued_before + c.unsynchronised == r.departures_fed,
		    "%s: no wrong time, every departure counted (%" PRIu64 " timed of %" PRIu64 ")",
		    what, c.timed, r.departures_fed))
		tap_diag("%" PRIu64 " wrong (%s); %" PRIu64 " + %" PRIu64 " + %" PRIu64, r.wrong,
			 r.first_wrong, c.timed, c.queued_before, c.unsynchronised);
	tap_ok(c.losses[PKTSTATS_SOJOURN_LOSS_INCONSISTENT] > 0,
	       "%s: the contradiction is noticed (%" PRIu64 " inconsistent)", what,
	       c.losses[PKTSTATS_SOJOURN_LOSS_INCONSISTENT]);
	run_end(&r, what);
}

/* ---------------------------------------------------------------------------------------- */
/* Cases by hand                                                                              */

/* A payload with the given snapshot of queue 0 and events {type, words, gap}. */
static size_t hand_payload(uint8_t *b, uint32_t seq, uint8_t flags, uint32_t words0,
			   uint64_t tick, const unsigned (*events)[3], unsigned n)
{
	memset(b, 0, 38);
	b[0] = (uint8_t)(0x02 | flags);
	b[1] = 3;
	put32(b + 2, seq);
	put32(b + 6, words0);
	put32(b + 38, (uint32_t)(tick >> 32));
	put32(b + 42, (uint32_t)tick);
	for (unsigned i = 0; i < n; i++)
		put32(b + 46 + 4 * i, events[i][0] << 30 | events[i][1] << 19 | events[i][2]);
	return 46 + 4 * n;
}

static void hand_cases(void)
{
	uint8_t b[200];
	struct pktstats_event events[16];
	struct pktstats_stream_result result;
	struct pktstats_sojourn out[4];
	size_t n_out;
	struct run r;
	const struct pktstats_sojourn_counts *c;

	/* Queued before: 10 words at the start; departures of 4 and 6 words are untimed, then an
	 * arrival of 3 (tick 105) and its departure (tick 113): delay 8 ticks */
	run_begin(&r);
	const unsigned first[][3] = {{2, 4, 0}, {1, 3, 5}, {2, 6, 1}, {2, 3, 7}};
	size_t len = hand_payload(b, 0, 0, 10, 100, first, 4);
	run_twins(&r, b, len, 4);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len, events, 16, &result);
	int rc = pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 4, &n_out);
	c = pktstats_sojourn_counts(r.matcher, result.source, 0);
	tap_ok(rc == 0 && n_out == 1 && out[0].arrival_ns == 105 * 8 && out[0].delay_ns == 8 * 8 &&
		       c && c->queued_before == 2 && c->timed == 1,
	       "the snapshot's words depart untimed first, then the frames seen arriving are timed");

	/* -ENOSPC: the output array too small; counts complete */
	const unsigned two[][3] = {{1, 2, 0}, {1, 2, 1}, {2, 2, 1}, {2, 2, 1}};
	len = hand_payload(b, 1, 0, 0, 200, two, 4);
	run_twins(&r, b, len, 1);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len, events, 16, &result);
	rc = pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 1, &n_out);
	tap_ok(rc == -ENOSPC && n_out == 1 && c->timed == 3,
	       "an output array too small: -ENOSPC, the first sojourn written, both counted");

	/* A departure of another length than the oldest arrival: inconsistent, not timed */
	const unsigned other[][3] = {{1, 5, 0}, {2, 4, 3}};
	len = hand_payload(b, 2, 0, 0, 300, other, 2);
	run_twins(&r, b, len, 4);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len, events, 16, &result);
	rc = pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 4, &n_out);
	tap_ok(rc == 0 && n_out == 0 && c->unsynchronised == 1 &&
		       c->losses[PKTSTATS_SOJOURN_LOSS_INCONSISTENT] == 1,
	       "a departure whose length is not its arrival's is not timed: inconsistent");

	/* Resynchronised at the next snapshot, 5 words: the 5-word frame departs as queued
	 * before */
	const unsigned next[][3] = {{2, 5, 2}};
	len = hand_payload(b, 3, 0, 5, 400, next, 1);
	run_twins(&r, b, len, 4);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len, events, 16, &result);
	rc = pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 4, &n_out);
	tap_ok(rc == 0 && n_out == 0 && c->queued_before == 3 && c->resyncs == 1,
	       "resynchronised at the next packet's snapshot");

	/* A 255-word departure while words from before are queued: saturated, not timed */
	const unsigned big[][3] = {{2, 255, 2}};
	len = hand_payload(b, 4, 0, 300, 500, big, 1);
	run_twins(&r, b, len, 4);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len, events, 16, &result);
	pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 4, &n_out);
	tap_ok(n_out == 0 && c->losses[PKTSTATS_SOJOURN_LOSS_SATURATED] == 1 && c->unsynchronised == 2,
	       "a 255-word departure among frames from before: saturated, not timed");

	/* A malformed packet (cut slot) with a decoded header: the queues wait (queue 1 was
	 * synchronised; queue 0 was not) */
	len = hand_payload(b, 5, 0, 0, 600, other, 2);
	run_twins(&r, b, len - 2, 4);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len - 2, events, 16, &result);
	rc = pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 4, &n_out);
	const struct pktstats_sojourn_counts *c1 = pktstats_sojourn_counts(r.matcher, 0, 1);
	tap_ok(rc == 0 && result.reason != PKTSTATS_DECODE_OK && c1 &&
		       c1->losses[PKTSTATS_SOJOURN_LOSS_MALFORMED] == 1 &&
		       c->losses[PKTSTATS_SOJOURN_LOSS_MALFORMED] == 0,
	       "a malformed packet: its source's queues lose synchronisation");

	/* Time going back (a packet the hardware cannot send): a departure before its arrival is
	 * never timed (it was: a delay of 2^64 ns less a little, about 584 years). Across packets:
	 * an arrival of 3 words at tick 2000, its departure in the next packet at tick 1500;
	 * inside one packet: an arrival at tick 3000, a timestamp event back to 2900, a departure. */
	const struct pktstats_sojourn_counts before = *c;
	const unsigned arrive[][3] = {{1, 3, 0}}, depart[][3] = {{2, 3, 0}};
	len = hand_payload(b, 6, 0, 0, 2000, arrive, 1);
	run_twins(&r, b, len, 4);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len, events, 16, &result);
	pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 4, &n_out);
	len = hand_payload(b, 7, 0, 3, 1500, depart, 1); /* its snapshot: the 3 words queued */
	run_twins(&r, b, len, 4);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len, events, 16, &result);
	rc = pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 4, &n_out);
	tap_ok(rc == 0 && n_out == 0 && c->timed == before.timed &&
		       c->unsynchronised == before.unsynchronised + 1 &&
		       c->losses[PKTSTATS_SOJOURN_LOSS_INCONSISTENT] ==
			       before.losses[PKTSTATS_SOJOURN_LOSS_INCONSISTENT] + 1,
	       "a departure in a later packet before its arrival: not timed, inconsistent");
	len = hand_payload(b, 8, 0, 0, 3000, arrive, 1); /* synchronised again, by its snapshot */
	put32(b + len, 0);                                /* a timestamp event: tick 2900 */
	put32(b + len + 4, 2900);
	put32(b + len + 8, 2u << 30 | 3u << 19);          /* the departure, gap 0 */
	len += 12;
	run_twins(&r, b, len, 4);
	pktstats_stream_feed_payload(&r.stream, 1, 1, b, len, events, 16, &result);
	rc = pktstats_sojourn_feed(r.matcher, &result, events, result.n_events, out, 4, &n_out);
	tap_ok(rc == 0 && result.reason == PKTSTATS_DECODE_OK && n_out == 0 &&
		       c->timed == before.timed && c->resyncs == before.resyncs + 2 &&
		       c->losses[PKTSTATS_SOJOURN_LOSS_INCONSISTENT] ==
			       before.losses[PKTSTATS_SOJOURN_LOSS_INCONSISTENT] + 2,
	       "a departure before its arrival inside one packet (time went back): not timed");

	/* Bad arguments */
	tap_ok(pktstats_sojourn_feed(NULL, &result, events, 0, NULL, 0, NULL) == -EINVAL &&
		       pktstats_sojourn_feed(r.matcher, &result, NULL, 1, NULL, 0, NULL) == -EINVAL,
	       "NULL matcher or events: -EINVAL");
	struct pktstats_sojourn_options o = {.queue_words = 0};
	struct pktstats_sojourn_matcher *m = (void *)1;
	tap_ok(pktstats_sojourn_create(&m, &o) == -EINVAL && m == NULL,
	       "queue_words 0: -EINVAL, no matcher");
	tap_ok(pktstats_sojourn_counts(r.matcher, 5, 0) == NULL &&
		       pktstats_sojourn_counts(r.matcher, 0, 8) == NULL,
	       "counts of a source not seen, or a queue out of range: NULL");

	/* A packet of more events than the fused path's lists hold at first (512 each): decoded
	 * again for the event path, then the lists grow and the next ones are paired in bulk;
	 * with 255-word frames among them */
	static uint8_t large[46 + 4 * 1200];
	static unsigned many[1200][3];
	for (uint32_t k = 0; k < 3; k++) {
		for (unsigned i = 0; i < 1200; i++) {
			many[i][0] = i < 600 ? 1 : 2;
			many[i][1] = i % 100 == 7 ? 255 : 1 + i % 5;
			many[i][2] = 1;
		}
		len = hand_payload(large, 9 + k, 0, 0, 10000 + 10000 * k, many, 1200);
		run_twins(&r, large, len, PKTSTATS_DECODE_MAX_EVENTS);
	}
	/* Bad arguments of the fused path */
	tap_ok(pktstats_sojourn_feed_frame(NULL, &r.stream, b, 60, &result, out, 4, &n_out) ==
			       -EINVAL &&
		       pktstats_sojourn_feed_frame(r.matcher, NULL, b, 60, &result, out, 4, &n_out) ==
			       -EINVAL &&
		       pktstats_sojourn_feed_frame(r.matcher, &r.stream, NULL, 60, &result, out, 4,
						   &n_out) == -EINVAL &&
		       pktstats_sojourn_feed_frame(r.matcher, &r.stream, b, 60, &result, NULL, 4,
						   &n_out) == -EINVAL,
	       "fused path: NULL matcher, stream, frame or out: -EINVAL");
	run_end(&r, "cases by hand, a packet of 1200 events");
}

int main(void)
{
	const char *env = getenv("PKTSTATS_TEST_SEED");
	uint64_t seeds[2] = {1, (uint64_t)time(NULL)};
	int n_seeds = 2;
	if (env) {
		seeds[0] = strtoull(env, NULL, 0);
		n_seeds = 1;
	}
	for (int i = 0; i < n_seeds; i++) {
		printf("# seed %" PRIu64 " (PKTSTATS_TEST_SEED=%" PRIu64 " replays it)\n", seeds[i],
		       seeds[i]);
		random_capture(seeds[i], 0, 0, 0, 0, false, 190);
		random_capture(seeds[i], 0, 0, 0, 0, false, 300);
		random_capture(seeds[i], 0, 0, 0, 0, true, 190);
		random_capture(seeds[i], 5, 0, 0, 0, false, 190);
		random_capture(seeds[i], 0, 5, 0, 0, true, 190);
		random_capture(seeds[i], 4, 4, 5, 0, true, 190);
		random_capture(seeds[i], 0, 0, 0, 4, false, 190);
		masked_capture(seeds[i], 0xa, "arrivals only (departures masked)");
		masked_capture(seeds[i], 0xc, "departures only (arrivals masked)");
	}
	hand_cases();
	return tap_done();
}
