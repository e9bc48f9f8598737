/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal, between the decoder (decode.c) and the sojourn matcher (sojourn.c): a stat
 * packet's short events in lists by type and queue, the form the matcher pairs them in. The
 * decoder's slot loop can write them directly (pktstats_sojourn_feed_frame(): no struct
 * pktstats_event between), or the matcher sorts a decoded event array into them.
 */
#ifndef PKTSTATS_SOJOURN_LISTS_H
#define PKTSTATS_SOJOURN_LISTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pktstats/decode.h"

/* An event in its list, and an arrival in a queue's ring (the same 16 bytes: a packet's
 * arrivals are copied into the ring as they are). */
struct sojourn_entry {
	uint64_t time_ns;
	union {
		uint32_t seq;  /* arrival: its stat packet's sequence number */
		uint32_t rank; /* departure: departures before it in its packet (its sojourn's
				  index in the output) */
	};
	uint8_t length;
	uint16_t event;        /* its index in its packet's events */
};

_Static_assert(sizeof(struct sojourn_entry) == 16 && offsetof(struct sojourn_entry, seq) == 8 &&
		       offsetof(struct sojourn_entry, length) == 12 &&
		       offsetof(struct sojourn_entry, event) == 14,
	       "a sojourn_entry is a time and a word of seq, length and event");

/* Writes an entry, field by field: one 8-byte store of the last three fields (little-endian)
 * made the fused path a seventh slower */
static inline void sojourn_entry_set(struct sojourn_entry *e, uint64_t time_ns, uint32_t seq,
				     uint8_t length, uint16_t event)
{
	e->time_ns = time_ns;
	e->seq = seq;
	e->length = length;
	e->event = event;
}

/* One list per slot bits 31:27, type << 3 | queue (the 8 of type 0, timestamps, stay empty) */
#define SOJOURN_LISTS 32

struct sojourn_lists {
	struct sojourn_entry *list[SOJOURN_LISTS]; /* in: capacity entries each */
	uint32_t capacity;                         /* in: at most UINT16_MAX + 1 */
	uint32_t n[SOJOURN_LISTS];                 /* out: the entries of each list */
	uint32_t departures;                       /* out */
	bool filled; /* out: the lists hold the packet's events (false: malformed, not a stat
			packet, or more events than capacity) */
};

/* pktstats_stream_feed_frame() with the events written to `lists` instead of an array
 * (result->n_events: all of them). Same returns (never -ENOSPC). */
int pktstats_stream_feed_frame_lists(struct pktstats_stream *stream, const uint8_t *frame,
				     size_t len, struct sojourn_lists *lists,
				     struct pktstats_stream_result *result);

#endif
