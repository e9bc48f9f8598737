/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sojourn times (queueing delay) from the stat packets' events: a per-queue FIFO matcher.
 *
 * The switch's output queues are FIFOs: the k-th departure of a queue is the k-th frame
 * committed to it (its k-th arrival; a drop is a frame that was never committed and never
 * departs). So the events a capture already holds say how long every frame waited: its
 * departure instant minus its arrival instant, both at the capture's resolution (an instant
 * time_ns stands for [time_ns, time_ns + 8 << c), so a delay is exact to 8 << c ns).
 *
 *   struct pktstats_sojourn_matcher *m;
 *   pktstats_sojourn_create(&m, NULL);
 *   for each frame: pktstats_stream_feed_frame(&stream, ..., events, max, &result), then
 *           pktstats_sojourn_feed(m, &result, events, result.n_events, out, max_out, &n_out);
 *           (malformed packets and duplicates too: the matcher needs to see every packet)
 *   or, the same in one call, 1.6 times as fast (no event array between):
 *           pktstats_sojourn_feed_frame(m, &stream, frame, len, &result, out, max_out, &n_out);
 *   pktstats_sojourn_counts(m, source, queue) / pktstats_sojourn_total(m, queues, &total)
 *   pktstats_sojourn_destroy(m);
 *
 * Pairing is exact or not done; a frame the matcher cannot time is counted, never given a
 * time. It cannot pair while it does not know what a queue holds:
 *   - at the start of a capture (or of a source's sequence: capture restarted): the queue may
 *     hold frames that arrived before. The packet's snapshot (queue_size, words) says how many
 *     words: the first departures, up to those words, are counted as queued_before;
 *   - after a stat packet is lost (sequence gap), an M flag (events were lost), a malformed
 *     packet, a packet whose events did not all fit the caller's array: every queue of the
 *     source is unsynchronised (its departures counted as unsynchronised) until the next
 *     packet that arrives in sequence without M (after an M, the packet after it: the loss
 *     may lie after the M packet's snapshot);
 *   - when the events contradict the queue's state (a departure with no arrival or of another
 *     length than its arrival, the snapshot of the next packet not equal to the words the
 *     matcher holds, more words than the queue's RAM): events of that queue were masked out of
 *     the capture (queue or event-type masks) or lost unnoticed. That queue is unsynchronised
 *     until the next packet's snapshot;
 *   - a departure of 255 words or more (length 255) while frames from before the synchronising
 *     snapshot are still queued: their words, and so which departure is the first timed one,
 *     are unknown (same rule). Elsewhere a 255 is paired by order like any length, but the
 *     snapshot check can then only bound the queue's words until that frame has left.
 * Synchronising at a packet means: the queue holds its snapshot's words from before, all
 * departed before any later arrival; the frames the matcher held (if any) are forgotten (their
 * departures, if any come, are counted as queued_before). Late (reordered) and duplicate
 * packets are ignored: their events belong to a time already passed. A source the stream does
 * not track (more than PKTSTATS_STREAM_MAX_SOURCES) has no sequence to check: its departures
 * are all unsynchronised (source -1 in pktstats_sojourn_counts()).
 *
 * Memory is bounded: per source seen (at most PKTSTATS_STREAM_MAX_SOURCES), 8 rings of
 * queue_words entries (a frame takes at least one word of RAM), 16 bytes each; and per matcher,
 * lists of the largest packet's events by type and queue (512 bytes an event, their number
 * rounded up to a power of two, 256 KiB at least). With pktstats_sojourn_feed_frame(): the
 * rings of the source of the last packet keep room after their tail for those lists' events
 * (the decoder writes a packet's arrivals there), up to 4 times as many entries (2048, 32 KiB
 * per queue, at 512), never more than queue_words allows; and an event array of
 * PKTSTATS_DECODE_MAX_EVENTS (512 KiB) once a packet does not go the bulk way.
 * Nothing here prints or exits; functions return 0 or a negative errno (-EINVAL, -ENOMEM,
 * -ENOSPC when the caller's output array is too small: the sojourns that fit are written, the
 * counts are complete).
 */
#ifndef PKTSTATS_SOJOURN_H
#define PKTSTATS_SOJOURN_H

#include <stddef.h>
#include <stdint.h>

#include "pktstats/decode.h"
#include "pktstats/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RAM words of one output queue of the switch (switch_queue's 2^QUEUE_DEPTH_LOG2). */
#define PKTSTATS_SOJOURN_DEFAULT_QUEUE_WORDS 4096
#define PKTSTATS_SOJOURN_MAX_QUEUE_WORDS (1u << 20)

struct pktstats_sojourn_options {
	uint32_t queue_words; /* most words a queue holds, 1..PKTSTATS_SOJOURN_MAX_QUEUE_WORDS
				 (default PKTSTATS_SOJOURN_DEFAULT_QUEUE_WORDS) */
};

void pktstats_sojourn_default_options(struct pktstats_sojourn_options *options);

/* One timed frame. */
struct pktstats_sojourn {
	uint64_t arrival_ns;     /* its arrival event's time_ns (committed to the queue) */
	uint64_t departure_ns;   /* its departure event's time_ns (its last word left) */
	uint64_t delay_ns;       /* departure_ns - arrival_ns */
	uint32_t arrival_seq;    /* sequence numbers of the stat packets of the two events */
	uint32_t departure_seq;
	uint8_t queue;           /* 0..7 */
	uint8_t length;          /* 64-bit words, 255 = 255 or more */
	uint8_t resolution;      /* c of the departure's packet: the delay is exact to 8 << c ns */
	int source;              /* the stream's source index */
};

/* Why a queue was not synchronised (counted once per loss, per queue). */
enum pktstats_sojourn_loss {
	PKTSTATS_SOJOURN_LOSS_GAP = 0,      /* stat packets lost (sequence gap) */
	PKTSTATS_SOJOURN_LOSS_MISSED,       /* M flag: events lost */
	PKTSTATS_SOJOURN_LOSS_MALFORMED,    /* a malformed packet, or events beyond the array */
	PKTSTATS_SOJOURN_LOSS_RESET,        /* capture restarted (sequence reset) */
	PKTSTATS_SOJOURN_LOSS_INCONSISTENT, /* events contradict the queue (masked or lost) */
	PKTSTATS_SOJOURN_LOSS_SATURATED,    /* a 255-word departure among unknown frames */
	PKTSTATS_SOJOURN_LOSS_OVERFLOW,     /* more words than the queue's RAM */
	PKTSTATS_SOJOURN_LOSS_COUNT         /* number of values */
};
/* Stable identifier, e.g. "gap". Never NULL. */
const char *pktstats_sojourn_loss_name(enum pktstats_sojourn_loss loss);

/* Per queue (or summed over queues and sources). Every departure the matcher saw is timed,
 * queued_before or unsynchronised. */
struct pktstats_sojourn_counts {
	uint64_t arrivals;         /* arrival events seen */
	uint64_t departures;       /* departure events seen */
	uint64_t drops;            /* drop events seen (never timed: never queued) */
	uint64_t timed;            /* departures paired with their arrival */
	uint64_t queued_before;    /* departures of frames queued before a synchronising
				      snapshot (the capture's start, or a resynchronisation) */
	uint64_t unsynchronised;   /* departures while the queue was not synchronised */
	uint64_t ignored_events;   /* events of late or duplicate packets, not used */
	uint64_t losses[PKTSTATS_SOJOURN_LOSS_COUNT]; /* losses of synchronisation, by cause */
	uint64_t resyncs;          /* synchronisations after a loss */
	uint64_t pending;          /* arrivals held now, not departed yet (frames still queued at
				      the end of a capture) */
};

struct pktstats_sojourn_matcher;

/* options NULL = defaults. Returns 0, -EINVAL (matcher NULL or bad options), -ENOMEM. */
int pktstats_sojourn_create(struct pktstats_sojourn_matcher **matcher,
			    const struct pktstats_sojourn_options *options);
void pktstats_sojourn_destroy(struct pktstats_sojourn_matcher *matcher);

/*
 * Feeds one stat packet as the stream decoded it: result from pktstats_stream_feed_frame() or
 * _feed_payload() (whatever it returned: 0, -ENOSPC and -EBADMSG all count; -ENOMSG frames are
 * no stat packets and need not be fed), its events[0..n_events). Writes the frames timed by
 * this packet's departures to out[0..max_out) (out may be NULL if max_out is 0; a packet's
 * departures are at most its n_events) and their number to *n_out (may be NULL); the entries
 * of out after them may be written too (the matcher writes whatever the event's type, and
 * keeps what a departure timed).
 * Returns 0, -ENOSPC (out too small: the first max_out written, *n_out = max_out, every count
 * complete), -EINVAL (matcher or result NULL, events NULL with n_events > 0), -ENOMEM.
 */
int pktstats_sojourn_feed(struct pktstats_sojourn_matcher *matcher,
			  const struct pktstats_stream_result *result,
			  const struct pktstats_event *events, size_t n_events,
			  struct pktstats_sojourn *out, size_t max_out, size_t *n_out);

/*
 * The stream decoder and the matcher in one: decodes one captured frame as
 * pktstats_stream_feed_frame() does (the stream's sequence tracking and counters, `result`
 * filled alike, result->n_events all of the packet's events) and feeds the stat packet to the
 * matcher as pktstats_sojourn_feed() would with those events: the same sojourns in out, in the
 * same order, and the same counts, for every packet. The decoder's pass over the slots writes
 * the events straight into the matcher's lists by type and queue, paired in bulk: no event
 * array (the speed of `make bench`'s sojourn row). A packet with anything out of the ordinary
 * (not in sequence, M, malformed, a queue not synchronised or with frames from before it, a
 * pair that does not hold) is decoded again into an event array and goes through
 * pktstats_sojourn_feed().
 * Memory: the matcher's (above); nothing per call. Nothing printed, nothing exits.
 * Returns 0, -EBADMSG (a malformed frame or stat packet, fed to the matcher: result->reason
 * says why), -ENOMSG (not a stat packet: nothing fed), -ENOSPC (out too small, as
 * pktstats_sojourn_feed()), -EINVAL (matcher, stream, result or frame NULL; out NULL with
 * max_out > 0), -ENOMEM. *n_out (may be NULL): the sojourns written.
 */
int pktstats_sojourn_feed_frame(struct pktstats_sojourn_matcher *matcher,
				struct pktstats_stream *stream, const uint8_t *frame, size_t len,
				struct pktstats_stream_result *result, struct pktstats_sojourn *out,
				size_t max_out, size_t *n_out);

/* Counts of one queue of one source (source index as the stream's), or NULL if that source
 * has not been seen (or out of range). */
const struct pktstats_sojourn_counts *
pktstats_sojourn_counts(const struct pktstats_sojourn_matcher *matcher, int source,
			unsigned queue);
/* The counts of the queues in `queues` (bit q: queue q; PKTSTATS_ALL_QUEUES: all of them)
 * summed over sources. */
#define PKTSTATS_ALL_QUEUES ((1u << PKTSTATS_QUEUES) - 1)
void pktstats_sojourn_total(const struct pktstats_sojourn_matcher *matcher, uint32_t queues,
			    struct pktstats_sojourn_counts *total);

#ifdef __cplusplus
}
#endif

#endif
