/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the decoder fuzz targets (tb/fuzz/fuzz_payload.c, tb/fuzz/fuzz_stream.c):
 *
 *   FUZZ_CHECK()      abort() with a message when an invariant breaks, so that libFuzzer
 *                     reports logic bugs as crashes, not only memory errors (every target);
 *   fuzz_copy()       an exactly sized heap copy of an input (every frame parser's target);
 *   fuzz_stamp_*()    the link frames' stamps: in ns, differences, valid, zero, equal;
 *   ref_decode()      a deliberately naive reference decoder of one stat payload, written from
 *                     docs/packet-format.md and decode.h, not from decode.c: every tick is
 *                     reduced modulo 2^62 at each step (decode.c defers the modulo), every
 *                     check is spelled out in the documented order. The targets compare the
 *                     production decoder with it field for field;
 *   check_packet()    invariants a successfully decoded packet must satisfy on its own;
 *   the max_events table that makes tiny event arrays (and -ENOSPC) frequent;
 *   ref_summary_add() a naive reference of the summary accumulator (struct pktstats_summary),
 *                     written from the comment above struct pktstats_queue_summary in decode.h,
 *                     not from decode.c: it takes the events of ref_decode(), walks the slots
 *                     itself for the timestamps, and integrates the occupancy instant by
 *                     instant in exact 128-bit integers (decode.c keeps weighted sums per
 *                     segment in doubles, with a fast and a general loop);
 *                     ref_summary_check() compares a library summary with it.
 *
 * Everything is static inline: each target includes this header once and uses a subset.
 */
#ifndef PKTSTATS_FUZZ_COMMON_H
#define PKTSTATS_FUZZ_COMMON_H

#include "pktstats/decode.h"
#include "pktstats/oam.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                      \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,   \
				#cond);                                                       \
			abort();                                                              \
		}                                                                             \
	} while (0)

/* A copy of exactly size bytes on the heap, so that AddressSanitizer sees a read past the end of
 * the frame or datagram a parser is given (malloc(0) under ASan is a valid zero-byte block). */
static inline uint8_t *fuzz_copy(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	FUZZ_CHECK(copy != NULL);
	memcpy(copy, data, size);
	return copy;
}

/* The stamps of the link frames (32-bit seconds, 32-bit nanoseconds: fuzz_dm.c,
 * fuzz_headroom.c, fuzz_isl.c): in ns, and the range of their seconds in ns, 2^32 s */
#define FUZZ_STAMP_RANGE ((__int128)1000000000 << 32)

static inline __int128 fuzz_stamp_ns(struct pktstats_wire_time t)
{
	return (__int128)t.seconds * 1000000000 + t.nanoseconds;
}

/* d is b - a, modulo the stamps' range */
static inline bool fuzz_stamp_diff_is(__int128 d, struct pktstats_wire_time b,
				      struct pktstats_wire_time a)
{
	return (d - fuzz_stamp_ns(b) + fuzz_stamp_ns(a)) % FUZZ_STAMP_RANGE == 0;
}

static inline bool fuzz_stamp_valid(struct pktstats_wire_time t)
{
	return t.nanoseconds < 1000000000u;
}

static inline bool fuzz_stamp_zero(struct pktstats_wire_time t)
{
	return !t.seconds && !t.nanoseconds;
}

static inline bool fuzz_stamp_same(struct pktstats_wire_time a, struct pktstats_wire_time b)
{
	return a.seconds == b.seconds && a.nanoseconds == b.nanoseconds;
}

#define REF_MASK62 ((UINT64_C(1) << 62) - 1)

/* Event array sizes chosen by one input nibble: mostly tiny, so that -ENOSPC and the boundary
 * n_events == max_events are hit all the time, plus the two documented "always enough" sizes. */
static const size_t fuzz_max_events_table[16] = {
	0, 1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 64, 100, 365, PKTSTATS_HW_MAX_EVENTS,
	PKTSTATS_DECODE_MAX_EVENTS,
};

static inline uint32_t ref_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/*
 * Reference decode. Returns 0 or -EBADMSG (never -ENOSPC: `events` must hold at least
 * (len / 4) entries; NULL is allowed when the caller only wants the packet). *reason is set.
 * On -EBADMSG only the header fields (those set before the reason was found) are meaningful.
 */
static inline int ref_decode(const uint8_t *p, size_t len, bool accept_v1, unsigned v1_res,
			     struct pktstats_packet *pkt, struct pktstats_event *events,
			     enum pktstats_decode_error *reason)
{
	unsigned version, res;
	size_t header;

	memset(pkt, 0, sizeof(*pkt));
	*reason = PKTSTATS_DECODE_OK;
	if (len < 1) {
		*reason = PKTSTATS_DECODE_TRUNCATED;
		return -EBADMSG;
	}
	version = p[0] & 0x0f;
	if (version == 2) {
		header = 38;
		res = (p[0] >> 4) & 7;
	} else if (version == 1 && accept_v1) {
		header = 70;
		res = v1_res;
	} else {
		*reason = PKTSTATS_DECODE_BAD_VERSION;
		return -EBADMSG;
	}
	if (len < header) {
		*reason = PKTSTATS_DECODE_TRUNCATED;
		return -EBADMSG;
	}
	if (p[1] != 3) {
		*reason = PKTSTATS_DECODE_BAD_EVENT_TYPES;
		return -EBADMSG;
	}
	pkt->version = (uint8_t)version;
	pkt->resolution = (uint8_t)res;
	pkt->event_types = 3;
	pkt->sequence = ref_be32(p + 2);
	pkt->missed = version == 2 && (p[0] & 0x80);
	for (unsigned q = 0; q < 8; q++) {
		if (version == 2) {
			pkt->queue_size[q] = ref_be32(p + 6 + 4 * q);
		} else {
			pkt->queue_size[q] = ref_be32(p + 6 + 8 * q);
			pkt->queue_packets[q] = ref_be32(p + 10 + 8 * q);
		}
	}
	pkt->n_slots = (uint32_t)((len - header) / 4);
	if ((len - header) % 4) {
		*reason = PKTSTATS_DECODE_PARTIAL_SLOT;
		return -EBADMSG;
	}
	if (pkt->n_slots == 0) {
		*reason = PKTSTATS_DECODE_NO_EVENTS;
		return -EBADMSG;
	}

	const uint8_t *slots = p + header;
	if (slots[0] >> 6 != 0) {
		*reason = PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP;
		return -EBADMSG;
	}
	if (pkt->n_slots < 2) {
		*reason = PKTSTATS_DECODE_CUT_TIMESTAMP;
		return -EBADMSG;
	}

	uint64_t tick = (uint64_t)(ref_be32(slots) & 0x3fffffff) << 32 | ref_be32(slots + 4);
	int64_t occ[8];
	uint32_t n = 0, n_ts = 1;

	pkt->start_tick = pkt->first_tick = pkt->last_tick = tick;
	for (unsigned q = 0; q < 8; q++)
		occ[q] = pkt->queue_size[q];
	for (uint32_t i = 2; i < pkt->n_slots; i++) {
		uint32_t s = ref_be32(slots + 4 * (size_t)i);
		unsigned type = s >> 30, q = (s >> 27) & 7, length = (s >> 19) & 0xff;
		uint32_t field = s & 0x7ffff;

		if (type == 0) {
			if (i + 1 == pkt->n_slots) {
				*reason = PKTSTATS_DECODE_CUT_TIMESTAMP;
				return -EBADMSG;
			}
			i++;
			tick = (uint64_t)(s & 0x3fffffff) << 32 | ref_be32(slots + 4 * (size_t)i);
			n_ts++;
			continue;
		}
		if (version == 2)
			tick = (tick + field) & REF_MASK62;
		else /* the smallest tick >= the previous one whose low 19 bits are `field` */
			tick = (tick + ((field - (tick & 0x7ffff)) & 0x7ffff)) & REF_MASK62;
		if (type == 1)
			occ[q] += length;
		else if (type == 2)
			occ[q] -= length;
		if (n == 0)
			pkt->first_tick = tick;
		pkt->last_tick = tick;
		if (events)
			events[n] = (struct pktstats_event){
				.tick = tick,
				.time_ns = (tick << res) * 8,
				.occupancy = occ[q],
				.slot = i,
				.type = (uint8_t)type,
				.queue = (uint8_t)q,
				.length = (uint8_t)length,
			};
		n++;
	}
	pkt->n_events = n;
	pkt->n_timestamps = n_ts;
	if (n == 0 && version == 2) {
		*reason = PKTSTATS_DECODE_NO_EVENTS;
		return -EBADMSG;
	}
	return 0;
}

/* The header fields, valid whenever version != 0 (also on -EBADMSG). */
static inline void check_same_header(const struct pktstats_packet *a,
				     const struct pktstats_packet *b)
{
	FUZZ_CHECK(a->version == b->version);
	if (!a->version)
		return;
	FUZZ_CHECK(a->missed == b->missed);
	FUZZ_CHECK(a->resolution == b->resolution);
	FUZZ_CHECK(a->event_types == b->event_types);
	FUZZ_CHECK(a->sequence == b->sequence);
	FUZZ_CHECK(a->n_slots == b->n_slots);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		FUZZ_CHECK(a->queue_size[q] == b->queue_size[q]);
		FUZZ_CHECK(a->queue_packets[q] == b->queue_packets[q]);
	}
}

/* Every field, for packets that decoded (0 or -ENOSPC). */
static inline void check_same_packet(const struct pktstats_packet *a,
				     const struct pktstats_packet *b)
{
	check_same_header(a, b);
	FUZZ_CHECK(a->n_events == b->n_events);
	FUZZ_CHECK(a->n_timestamps == b->n_timestamps);
	FUZZ_CHECK(a->start_tick == b->start_tick);
	FUZZ_CHECK(a->first_tick == b->first_tick);
	FUZZ_CHECK(a->last_tick == b->last_tick);
}

/* Invariants of a decoded packet and its first n events, independent of any reference. */
static inline void check_packet(const struct pktstats_packet *pkt,
				const struct pktstats_event *events, size_t n)
{
	FUZZ_CHECK(pkt->version == 1 || pkt->version == 2);
	FUZZ_CHECK(pkt->resolution <= PKTSTATS_RESOLUTION_MAX);
	FUZZ_CHECK(pkt->event_types == PKTSTATS_EVENT_TYPES);
	FUZZ_CHECK(pkt->n_timestamps >= 1);
	/* a timestamp takes two slots, a short event one, and every slot is used */
	FUZZ_CHECK((uint64_t)pkt->n_events + 2 * (uint64_t)pkt->n_timestamps == pkt->n_slots);
	FUZZ_CHECK(pkt->version == 1 || pkt->n_events >= 1);
	FUZZ_CHECK(pkt->version == 2 || !pkt->missed);
	FUZZ_CHECK(pkt->start_tick <= PKTSTATS_TIMESTAMP_MASK);
	FUZZ_CHECK(pkt->first_tick <= PKTSTATS_TIMESTAMP_MASK);
	FUZZ_CHECK(pkt->last_tick <= PKTSTATS_TIMESTAMP_MASK);
	if (pkt->n_events == 0)
		FUZZ_CHECK(pkt->first_tick == pkt->start_tick && pkt->last_tick == pkt->start_tick);
	FUZZ_CHECK(n <= pkt->n_events);
	if (!events)
		return;

	int64_t occ[PKTSTATS_QUEUES];
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		occ[q] = pkt->queue_size[q];
	for (size_t i = 0; i < n; i++) {
		const struct pktstats_event *e = &events[i];

		FUZZ_CHECK(e->type >= PKTSTATS_EVENT_ARRIVAL && e->type <= PKTSTATS_EVENT_DROP);
		FUZZ_CHECK(e->queue < PKTSTATS_QUEUES && e->reserved == 0);
		FUZZ_CHECK(e->slot >= 2 && e->slot < pkt->n_slots);
		FUZZ_CHECK(i == 0 || e->slot > events[i - 1].slot);
		FUZZ_CHECK(e->tick <= PKTSTATS_TIMESTAMP_MASK);
		FUZZ_CHECK(e->time_ns == pktstats_tick_to_ns(e->tick, pkt->resolution));
		/* occupancy: the previous value of the queue +len, -len or unchanged */
		int64_t delta = e->type == PKTSTATS_EVENT_ARRIVAL ? e->length
			      : e->type == PKTSTATS_EVENT_DEPARTURE ? -(int64_t)e->length : 0;
		FUZZ_CHECK(e->occupancy == occ[e->queue] + delta);
		occ[e->queue] = e->occupancy;
	}
	if (n > 0)
		FUZZ_CHECK(events[0].tick == pkt->first_tick);
	if (n > 0 && n == pkt->n_events)
		FUZZ_CHECK(events[n - 1].tick == pkt->last_tick);
}

/* An exactly sized heap array, so that AddressSanitizer catches a write past max_events (even
 * for max_events = 0: malloc(0) under ASan is a valid zero-byte block). */
static inline struct pktstats_event *alloc_events(size_t max_events)
{
	struct pktstats_event *e = malloc(max_events * sizeof(*e));

	if (!e && max_events == 0)
		e = malloc(1);
	FUZZ_CHECK(e != NULL);
	return e;
}

/* ---------------------------------------------------------------------------------------- */
/* Summary reference                                                                          */

/*
 * Everything exact: counts and times as the library keeps them (ns modulo 2^64, as decode.h
 * defines time_ns), the integral as a 128-bit integer in word x ns. `scale` bounds the
 * magnitude of every term a floating-point computation of the integral may add or subtract
 * on the way (sum over packets of (largest |occupancy| + words moved) x span, and of
 * |occupancy| x gap between packets): a double sum is exact while that stays below 2^53, and
 * otherwise wrong by a few ulps of it, however small the result is after cancellation.
 */
struct ref_queue_summary {
	uint64_t events[4];
	uint64_t words[4];
	int64_t occupancy;
	int64_t max_occupancy;
	uint64_t max_time_ns;
	__int128 integral;          /* word x ns */
	unsigned __int128 scale;    /* see above */
};

struct ref_summary {
	uint64_t packets, events;
	uint64_t first_ns, last_ns, latest_ns, span_ns;
	struct ref_queue_summary queues[PKTSTATS_QUEUES];
};

static inline uint64_t ref_tick_ns(uint64_t tick, unsigned c)
{
	return (tick << c) * 8; /* decode.h: (tick << c) * 8 in uint64_t, modulo 2^64 */
}

static inline unsigned __int128 ref_abs128(__int128 v)
{
	return v < 0 ? (unsigned __int128)-v : (unsigned __int128)v;
}

/*
 * Adds one payload to the reference summary, as pktstats_decode_payload_summary() with these
 * options should. Returns what ref_decode() returns (0 or -EBADMSG); the summary is untouched
 * on -EBADMSG. pkt and reason receive ref_decode's outputs (either may be NULL).
 *
 * The time line, instant by instant in slot order: the packet's first timestamp, then each
 * timestamp and each short event, with unmasked ticks (a short event is the previous instant
 * plus less than 2^19; a timestamp is absolute). Time advances to an instant only when it is
 * later than the latest one so far, and every queue's occupancy is integrated over that step
 * before the event changes it.
 *
 * The largest occupancy is the largest held at a clock's edge (decode.h): the queue sizes and
 * the occupancy after each event, except after an arrival whose next event among the packet's
 * decoded events is a departure of the same queue with the same tick.
 */
static inline int ref_summary_add(const uint8_t *p, size_t len, bool accept_v1, unsigned v1_res,
				  struct ref_summary *s, struct pktstats_packet *pkt_out,
				  enum pktstats_decode_error *reason_out)
{
	struct pktstats_packet pkt_local, *pkt = pkt_out ? pkt_out : &pkt_local;
	enum pktstats_decode_error reason_local, *reason = reason_out ? reason_out : &reason_local;
	struct pktstats_event *events = alloc_events(len / 4 + 1);
	int r = ref_decode(p, len, accept_v1, v1_res, pkt, events, reason);

	if (r != 0) {
		free(events);
		return r;
	}

	const unsigned c = pkt->resolution;
	const uint64_t ns_per_tick = UINT64_C(8) << c;
	const uint64_t start_ns = ref_tick_ns(pkt->start_tick, c);
	const uint8_t *slots = p + (pkt->version == 2 ? 38 : 70);
	__int128 area[PKTSTATS_QUEUES];           /* word x ticks, this packet */
	int64_t occ[PKTSTATS_QUEUES];
	uint64_t peak[PKTSTATS_QUEUES], moved[PKTSTATS_QUEUES];
	uint64_t tick = pkt->start_tick, latest = pkt->start_tick;
	uint32_t k = 0;

	/* Between packets: the previous packet's occupancy holds until this one starts, if it
	 * starts after the previous one's latest instant. */
	if (s->packets == 0) {
		s->first_ns = start_ns;
	} else if (start_ns - s->latest_ns - 1 < (uint64_t)INT64_MAX) { /* later, mod 2^64 ns */
		const uint64_t gap = start_ns - s->latest_ns;

		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
			struct ref_queue_summary *rq = &s->queues[q];

			rq->integral += (__int128)rq->occupancy * gap;
			rq->scale += ref_abs128(rq->occupancy) * gap;
		}
		s->span_ns += gap;
	}
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct ref_queue_summary *rq = &s->queues[q];

		occ[q] = pkt->queue_size[q];
		area[q] = 0;
		peak[q] = pkt->queue_size[q];
		moved[q] = 0;
		if (s->packets == 0 || occ[q] > rq->max_occupancy) {
			rq->max_occupancy = occ[q];
			rq->max_time_ns = start_ns;
		}
	}

	for (uint32_t i = 2; i < pkt->n_slots; i++) {
		const uint32_t slot = ref_be32(slots + 4 * (size_t)i);
		const struct pktstats_event *e = NULL;

		if (slot >> 30 == 0) {
			i++;
			tick = (uint64_t)(slot & 0x3fffffff) << 32 |
			       ref_be32(slots + 4 * (size_t)i);
		} else {
			/* ref_decode's tick is modulo 2^62; the step from the previous instant is
			 * what the slot's 19-bit field gave */
			e = &events[k++];
			FUZZ_CHECK(k <= pkt->n_events && e->slot == i);
			const uint64_t step = (e->tick - tick) & REF_MASK62;

			FUZZ_CHECK(step < (UINT64_C(1) << 19));
			tick += step;
		}
		if (tick > latest) {
			for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
				area[q] += (__int128)occ[q] * (tick - latest);
			latest = tick;
		}
		if (!e)
			continue;

		const unsigned q = e->queue;
		struct ref_queue_summary *rq = &s->queues[q];

		rq->events[e->type]++;
		rq->words[e->type] += e->length;
		if (e->type == PKTSTATS_EVENT_ARRIVAL)
			occ[q] += e->length;
		else if (e->type == PKTSTATS_EVENT_DEPARTURE)
			occ[q] -= e->length;
		if (e->type != PKTSTATS_EVENT_DROP)
			moved[q] += e->length;
		FUZZ_CHECK(occ[q] == e->occupancy);
		if ((uint64_t)(occ[q] < 0 ? -occ[q] : occ[q]) > peak[q])
			peak[q] = (uint64_t)(occ[q] < 0 ? -occ[q] : occ[q]);
		/* an arrival that a departure of the same queue and tick follows at once */
		const bool never_held = e->type == PKTSTATS_EVENT_ARRIVAL && k < pkt->n_events &&
					events[k].type == PKTSTATS_EVENT_DEPARTURE &&
					events[k].queue == q && events[k].tick == e->tick;
		if (!never_held && occ[q] > rq->max_occupancy) { /* strictly: the first time */
			rq->max_occupancy = occ[q];
			rq->max_time_ns = e->time_ns;
		}
	}
	FUZZ_CHECK(k == pkt->n_events);

	const uint64_t span_ticks = latest - pkt->start_tick;

	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct ref_queue_summary *rq = &s->queues[q];

		rq->occupancy = occ[q];
		rq->integral += area[q] * ns_per_tick;
		rq->scale += (unsigned __int128)(peak[q] + moved[q]) * span_ticks * ns_per_tick;
	}
	s->span_ns += span_ticks * ns_per_tick;
	s->latest_ns = start_ns + span_ticks * ns_per_tick;
	s->last_ns = ref_tick_ns(pkt->last_tick, c);
	s->packets++;
	s->events += pkt->n_events;
	free(events);
	return 0;
}

/*
 * The library's double against the exact integral: equal when every term is below 2^53
 * (decode.h: exact while below 2^53), else within 1e-9 of the larger of the result and the
 * terms' magnitude (a few ulps of a double sum, with room to spare).
 */
static inline bool ref_integral_close(double got, __int128 exact, unsigned __int128 scale)
{
	const double want = (double)exact, diff = got > want ? got - want : want - got;
	const double mag = (double)ref_abs128(exact), sc = (double)scale;

	if (scale < ((unsigned __int128)1 << 53))
		return got == want;
	return diff <= 1e-9 * (mag > sc ? mag : sc);
}

/* Every field of a library summary against the reference; abort()s on a difference. */
static inline void ref_summary_check(const struct pktstats_summary *a, const struct ref_summary *b)
{
	FUZZ_CHECK(a->packets == b->packets);
	FUZZ_CHECK(a->events == b->events);
	FUZZ_CHECK(a->first_ns == b->first_ns);
	FUZZ_CHECK(a->last_ns == b->last_ns);
	FUZZ_CHECK(a->latest_ns == b->latest_ns);
	FUZZ_CHECK(a->span_ns == b->span_ns);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		const struct pktstats_queue_summary *x = &a->queues[q];
		const struct ref_queue_summary *y = &b->queues[q];

		for (unsigned t = 0; t < 4; t++) {
			FUZZ_CHECK(x->events[t] == y->events[t]);
			FUZZ_CHECK(x->words[t] == y->words[t]);
		}
		FUZZ_CHECK(x->occupancy == y->occupancy);
		FUZZ_CHECK(x->max_occupancy == y->max_occupancy);
		FUZZ_CHECK(x->max_time_ns == y->max_time_ns);
		FUZZ_CHECK(ref_integral_close(x->integral, y->integral, y->scale));
	}
}

#endif
