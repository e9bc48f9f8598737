/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sojourn times from the stat packets' events: the per-queue FIFO matcher (pktstats/sojourn.h,
 * where the rules are).
 *
 * Each queue of each source keeps a ring of the arrivals not departed yet (time, length, the
 * stat packet's sequence number) and before_words, the words still queued from before its last
 * synchronising snapshot. A departure first uses up before_words (untimed), then pairs with
 * the ring's oldest arrival, which must have its length. A ring starts at RING_START entries
 * and doubles as its queue grows, up to more entries than the queue's words: the memory
 * follows what the queues hold, not the RAM they could.
 *
 * A packet is paired in bulk (bulk_packet()) when every queue it has events of is synchronised
 * with nothing from before queued, which is nearly every packet; the per-event path below it
 * takes the others, and every packet in which anything is out of the ordinary.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pktstats/sojourn.h"

#include "branch_hints.h"

struct sojourn_entry {
	uint64_t arrival_ns;
	uint32_t seq;
	uint8_t length;
	uint16_t event;             /* bulk path: its index in its packet's events */
};

struct sojourn_queue {
	struct sojourn_entry *ring; /* mask + 1 entries, a power of two */
	uint32_t mask;
	uint32_t head;              /* oldest arrival */
	uint32_t count;             /* arrivals held */
	uint64_t words;             /* their words (a saturated length as 255) */
	uint32_t saturated;         /* arrivals held with length 255 (words unknown) */
	uint64_t before_words;      /* words from before the synchronising snapshot */
	bool synced;
	bool was_synced;            /* synchronised at least once */
	uint64_t by_type[4];        /* events by type: counts' arrivals, departures, drops */
	struct pktstats_sojourn_counts counts;
};

struct sojourn_source {
	bool seen;
	/* Every queue waits for the next packet in sequence without M to synchronise */
	bool waiting;
	struct sojourn_queue queues[PKTSTATS_QUEUES];
};

/* Entries of a new ring */
#define RING_START 64u

/* sources[PKTSTATS_STREAM_MAX_SOURCES]: the packets of sources the stream does not track */
#define UNTRACKED PKTSTATS_STREAM_MAX_SOURCES

/* The bulk path's lists of a packet's events by type and queue, BIN_START entries or more */
#define BINS (4 * PKTSTATS_QUEUES)
#define BIN(type, queue) ((type) << 3 | (queue))
#define BIN_START 512u

struct pktstats_sojourn_matcher {
	uint32_t queue_words;
	uint32_t max_entries; /* a ring's largest size: the power of two above queue_words */
	uint32_t *bins;       /* BINS lists of bin_entries: event index | departures before << 16 */
	uint32_t bin_entries;
	struct sojourn_source sources[PKTSTATS_STREAM_MAX_SOURCES + 1];
};

static const char *const loss_names[PKTSTATS_SOJOURN_LOSS_COUNT] = {
	[PKTSTATS_SOJOURN_LOSS_GAP] = "gap",
	[PKTSTATS_SOJOURN_LOSS_MISSED] = "missed",
	[PKTSTATS_SOJOURN_LOSS_MALFORMED] = "malformed",
	[PKTSTATS_SOJOURN_LOSS_RESET] = "reset",
	[PKTSTATS_SOJOURN_LOSS_INCONSISTENT] = "inconsistent",
	[PKTSTATS_SOJOURN_LOSS_SATURATED] = "saturated",
	[PKTSTATS_SOJOURN_LOSS_OVERFLOW] = "overflow",
};

const char *pktstats_sojourn_loss_name(enum pktstats_sojourn_loss loss)
{
	return (unsigned)loss < PKTSTATS_SOJOURN_LOSS_COUNT ? loss_names[loss] : "unknown";
}

void pktstats_sojourn_default_options(struct pktstats_sojourn_options *options)
{
	if (options)
		*options = (struct pktstats_sojourn_options){
			.queue_words = PKTSTATS_SOJOURN_DEFAULT_QUEUE_WORDS};
}

int pktstats_sojourn_create(struct pktstats_sojourn_matcher **matcher,
			    const struct pktstats_sojourn_options *options)
{
	struct pktstats_sojourn_options defaults;
	if (!matcher)
		return -EINVAL;
	*matcher = NULL;
	if (!options) {
		pktstats_sojourn_default_options(&defaults);
		options = &defaults;
	}
	if (options->queue_words < 1 || options->queue_words > PKTSTATS_SOJOURN_MAX_QUEUE_WORDS)
		return -EINVAL;
	struct pktstats_sojourn_matcher *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	m->queue_words = options->queue_words;
	/* More entries than a queue can hold: the fast path writes the tail's entry for every
	 * event, and it must never be the oldest */
	m->max_entries = 1;
	while (m->max_entries <= options->queue_words)
		m->max_entries <<= 1;
	*matcher = m;
	return 0;
}

void pktstats_sojourn_destroy(struct pktstats_sojourn_matcher *matcher)
{
	if (!matcher)
		return;
	for (unsigned s = 0; s <= UNTRACKED; s++)
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
			free(matcher->sources[s].queues[q].ring);
	free(matcher->bins);
	free(matcher);
}

/* The state of a source, its rings allocated the first time it is seen. */
static int source_state(struct pktstats_sojourn_matcher *m, int index,
			struct sojourn_source **source)
{
	struct sojourn_source *s = &m->sources[index >= 0 && index < UNTRACKED ? index : UNTRACKED];
	if (!s->seen) {
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
			uint32_t entries = m->max_entries < RING_START ? m->max_entries : RING_START;
			s->queues[q].ring = calloc(entries, sizeof(struct sojourn_entry));
			s->queues[q].mask = entries - 1;
			if (!s->queues[q].ring) {
				for (unsigned k = 0; k < q; k++) {
					free(s->queues[k].ring);
					s->queues[k].ring = NULL;
				}
				return -ENOMEM;
			}
		}
		s->seen = true;
	}
	*source = s;
	return 0;
}

static void forget(struct sojourn_queue *queue)
{
	queue->head = 0;
	queue->count = 0;
	queue->words = 0;
	queue->saturated = 0;
	queue->before_words = 0;
}

static void lose(struct sojourn_queue *queue, enum pktstats_sojourn_loss loss)
{
	if (queue->synced)
		queue->counts.losses[loss]++;
	queue->synced = false;
	forget(queue);
}

static void lose_all(struct sojourn_source *source, enum pktstats_sojourn_loss loss)
{
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		lose(&source->queues[q], loss);
	source->waiting = true;
}

/* Synchronises at a snapshot: the queue holds `words` from before */
static void sync_queue(struct sojourn_queue *queue, uint32_t words)
{
	forget(queue);
	queue->before_words = words;
	queue->synced = true;
	queue->counts.resyncs += queue->was_synced;
	queue->was_synced = true;
}

/* Whether a snapshot agrees with what a synchronised queue holds. A saturated length only
 * bounds the words from below. */
static bool snapshot_agrees(const struct sojourn_queue *queue, uint32_t words)
{
	uint64_t held = queue->before_words + queue->words;
	return queue->saturated ? words >= held : words == held;
}

/* The snapshot rules at the start of a packet (sojourn.h). */
static void packet_start(struct sojourn_source *source, const struct pktstats_stream_result *result)
{
	const struct pktstats_packet *packet = &result->packet;
	enum pktstats_sojourn_loss sequence_loss = PKTSTATS_SOJOURN_LOSS_COUNT;
	if (result->seq_status == PKTSTATS_SEQ_GAP)
		sequence_loss = PKTSTATS_SOJOURN_LOSS_GAP;
	else if (result->seq_status == PKTSTATS_SEQ_RESET)
		sequence_loss = PKTSTATS_SOJOURN_LOSS_RESET;
	if (sequence_loss != PKTSTATS_SOJOURN_LOSS_COUNT)
		lose_all(source, sequence_loss);
	if (packet->missed) {
		/* The loss may lie after this packet's snapshot: wait for the next one */
		lose_all(source, PKTSTATS_SOJOURN_LOSS_MISSED);
		return;
	}
	bool resync_all = result->seq_status == PKTSTATS_SEQ_FIRST || source->waiting;
	source->waiting = false;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct sojourn_queue *queue = &source->queues[q];
		uint32_t words = packet->queue_size[q];
		if (queue->synced && !resync_all && !snapshot_agrees(queue, words))
			lose(queue, PKTSTATS_SOJOURN_LOSS_INCONSISTENT);
		if (resync_all || !queue->synced)
			sync_queue(queue, words);
	}
}

/* Doubles a ring (its entries from 0, oldest first). 0 or -ENOMEM. */
static int grow(struct sojourn_queue *queue)
{
	uint32_t entries = (queue->mask + 1) * 2;
	struct sojourn_entry *ring = malloc(entries * sizeof *ring);
	if (!ring)
		return -ENOMEM;
	for (uint32_t k = 0; k < queue->count; k++)
		ring[k] = queue->ring[(queue->head + k) & queue->mask];
	free(queue->ring);
	queue->ring = ring;
	queue->mask = entries - 1;
	queue->head = 0;
	return 0;
}

/* An arrival: 0, or -ENOMEM (the queue then unsynchronised) */
static int arrival(struct pktstats_sojourn_matcher *m, struct sojourn_queue *queue,
		   const struct pktstats_event *event, uint32_t seq)
{
	if (!queue->synced)
		return 0;
	if (queue->count == m->queue_words || queue->before_words + queue->words + event->length >
							 m->queue_words) {
		lose(queue, PKTSTATS_SOJOURN_LOSS_OVERFLOW);
		return 0;
	}
	/* one entry always free: the fast path writes the tail's for every event */
	if (queue->count + 1 > queue->mask && queue->mask + 1 < m->max_entries && grow(queue)) {
		lose(queue, PKTSTATS_SOJOURN_LOSS_OVERFLOW);
		return -ENOMEM;
	}
	struct sojourn_entry *tail = &queue->ring[(queue->head + queue->count) & queue->mask];
	tail->arrival_ns = event->time_ns;
	tail->seq = seq;
	tail->length = event->length;
	queue->count++;
	queue->words += event->length;
	queue->saturated += event->length == PKTSTATS_SLOT_LENGTH_MAX;
	return 0;
}

/* A departure: true with *sojourn filled when it is timed. */
static bool departure(struct sojourn_queue *queue,
		      const struct pktstats_event *event, struct pktstats_sojourn *sojourn)
{
	if (!queue->synced) {
		queue->counts.unsynchronised++;
		return false;
	}
	if (queue->before_words > 0) {
		if (event->length == PKTSTATS_SLOT_LENGTH_MAX) {
			lose(queue, PKTSTATS_SOJOURN_LOSS_SATURATED);
			queue->counts.unsynchronised++;
		} else if (event->length > queue->before_words) {
			lose(queue, PKTSTATS_SOJOURN_LOSS_INCONSISTENT);
			queue->counts.unsynchronised++;
		} else {
			queue->before_words -= event->length;
			queue->counts.queued_before++;
		}
		return false;
	}
	const struct sojourn_entry *oldest = &queue->ring[queue->head];
	unsigned length = event->length;
	if (queue->count == 0 || oldest->length != length) {
		lose(queue, PKTSTATS_SOJOURN_LOSS_INCONSISTENT);
		queue->counts.unsynchronised++;
		return false;
	}
	/* Field by field: a compound literal is built on the stack and copied, and its byte
	 * stores read back as wider words stall (the matcher took a quarter longer) */
	sojourn->arrival_ns = oldest->arrival_ns;
	sojourn->departure_ns = event->time_ns;
	sojourn->delay_ns = event->time_ns - oldest->arrival_ns;
	sojourn->arrival_seq = oldest->seq;
	sojourn->length = event->length;
	sojourn->queue = event->queue;
	queue->head = (queue->head + 1) & queue->mask;
	queue->count--;
	queue->words -= oldest->length;
	queue->saturated -= oldest->length == PKTSTATS_SLOT_LENGTH_MAX;
	queue->counts.timed++;
	return true;
}

/*
 * One event of a queue that is synchronised with nothing from before queued (in a packet the
 * bulk path did not take), without a branch on the event's type (which no predictor guesses in a switch's event
 * stream): an arrival's entry is written at the tail for every event and kept only for an
 * arrival; a departure's sojourn is written to *sojourn for every event and kept (true) only
 * for a departure that pairs. Returns false with nothing changed, for the general path, when
 * the event is an arrival that does not fit or a departure that does not pair.
 */
static PKTSTATS_ALWAYS_INLINE bool fast_event(const struct pktstats_sojourn_matcher *m,
					      struct sojourn_queue *queue,
					      const struct pktstats_event *event, uint32_t seq,
					      struct pktstats_sojourn *sojourn, bool *timed)
{
	const uint32_t length = event->length;
	const uint32_t arrival = event->type == PKTSTATS_EVENT_ARRIVAL;
	const uint32_t departure = event->type == PKTSTATS_EVENT_DEPARTURE;
	const struct sojourn_entry *oldest = &queue->ring[queue->head];
	/* bitwise on 0/1 values: a branch on the type would be mispredicted */
	const uint32_t unpaired = departure & ((queue->count == 0) | (oldest->length != length));
	const uint32_t unfit = arrival & ((queue->words + length > m->queue_words) |
					  (queue->count + 1 > queue->mask));
	if (UNLIKELY(unpaired | unfit))
		return false;
	/* From here on a departure pairs: what follows depends on the type alone, not on the
	 * loads the check above made (the branch is predicted, the updates need not wait) */
	sojourn->arrival_ns = oldest->arrival_ns;
	sojourn->departure_ns = event->time_ns;
	sojourn->delay_ns = event->time_ns - oldest->arrival_ns;
	sojourn->arrival_seq = oldest->seq;
	sojourn->length = (uint8_t)length;
	sojourn->queue = event->queue;
	struct sojourn_entry *tail = &queue->ring[(queue->head + queue->count) & queue->mask];
	tail->arrival_ns = event->time_ns;
	tail->seq = seq;
	tail->length = (uint8_t)length;
	const int32_t change = (int32_t)arrival - (int32_t)departure;
	queue->head = (queue->head + departure) & queue->mask;
	queue->count += (uint32_t)change;
	queue->words += (uint64_t)((int64_t)change * length);
	queue->saturated += (uint32_t)(change * (length == PKTSTATS_SLOT_LENGTH_MAX));
	queue->counts.timed += departure;
	*timed = departure;
	return true;
}

/* A sojourn's queue, length, resolution and source (and the byte between them) as one word:
 * the bulk path copies it from a model record, then sets the length: two stores, not three
 * (a twentieth of the pairing's time on make bench's capture) */
#define SOJOURN_TAIL offsetof(struct pktstats_sojourn, queue)
#define SOJOURN_TAIL_BYTES (sizeof(struct pktstats_sojourn) - SOJOURN_TAIL)
_Static_assert(SOJOURN_TAIL_BYTES == 8 &&
		       offsetof(struct pktstats_sojourn, length) > SOJOURN_TAIL &&
		       offsetof(struct pktstats_sojourn, resolution) > SOJOURN_TAIL &&
		       offsetof(struct pktstats_sojourn, source) > SOJOURN_TAIL,
	       "a sojourn ends with its queue, length, resolution and source");

/* The bulk path's lists of a packet's events (BIN(type, queue)), allocated for its events: 0,
 * or -ENOMEM. */
static int bin_space(struct pktstats_sojourn_matcher *m, uint32_t n)
{
	if (n <= m->bin_entries)
		return 0;
	uint32_t entries = BIN_START;
	while (entries < n)
		entries *= 2;
	uint32_t *bins = malloc((size_t)BINS * entries * sizeof *bins);
	if (!bins)
		return -ENOMEM;
	free(m->bins);
	m->bins = bins;
	m->bin_entries = entries;
	return 0;
}

/*
 * Departures dep[from..to) of a queue paired with its ring's entries from the head: their
 * sojourns written to out at their ranks, their lengths taken from *words. `order`: the
 * entries are arrivals of this packet, which must have come before. Returns nonzero when a
 * pair does not hold (another length, or an arrival after its departure: the queue was empty).
 */
static PKTSTATS_ALWAYS_INLINE uint32_t pair(const uint32_t *dep, uint32_t from, uint32_t to,
					    const struct pktstats_event *events,
					    const struct sojourn_queue *queue,
					    const struct pktstats_sojourn *model,
					    struct pktstats_sojourn *out, const bool order,
					    uint64_t *words)
{
	const struct sojourn_entry *const ring = queue->ring;
	const uint32_t head = queue->head, mask = queue->mask;
	uint32_t bad = 0;
	uint64_t sum = *words;
	for (uint32_t k = from; k < to; k++) {
		const uint32_t i = dep[k] & 0xffff;
		const struct pktstats_event *e = &events[i];
		const struct sojourn_entry *entry = &ring[(head + k) & mask];
		bad |= (entry->length != e->length) | (order && entry->event > i);
		sum -= e->length;
		struct pktstats_sojourn *sojourn = &out[dep[k] >> 16];
		sojourn->arrival_ns = entry->arrival_ns;
		sojourn->departure_ns = e->time_ns;
		sojourn->delay_ns = e->time_ns - entry->arrival_ns;
		sojourn->arrival_seq = entry->seq;
		sojourn->departure_seq = model->departure_seq;
		memcpy((char *)sojourn + SOJOURN_TAIL, (const char *)model + SOJOURN_TAIL,
		       SOJOURN_TAIL_BYTES);
		sojourn->length = e->length;
	}
	*words = sum;
	return bad;
}

/* The events of length 255 in list[0..n) */
static uint32_t count_saturated(const uint32_t *list, uint32_t n,
				const struct pktstats_event *events)
{
	uint32_t saturated = 0;
	for (uint32_t k = 0; k < n; k++)
		saturated += events[list[k] & 0xffff].length == PKTSTATS_SLOT_LENGTH_MAX;
	return saturated;
}

/*
 * A whole packet at once, when every queue it has events of is synchronised with nothing from
 * before queued (the common case): one pass sorts its events into lists by type and queue;
 * then per queue, its arrivals are appended to the ring and its departures pair in order with
 * the ring's entries from the head (a FIFO: the k-th departure is the k-th entry). Each is a
 * plain loop with the queue's state in registers, updated once per packet: no per-event
 * branch on the type and no per-event update of the queue's state in memory, which the
 * per-event path spends most of its time on. Returns false, with no state changed (ring
 * entries after the tail and out aside), when anything is out of the ordinary (a pair that
 * does not hold, an overflow, a length of 255, out too small): the per-event path then does
 * the packet, and applies the rules.
 */
static bool bulk_packet(struct pktstats_sojourn_matcher *m, struct sojourn_source *source,
			const struct pktstats_stream_result *result,
			const struct pktstats_event *events, size_t n_events,
			struct pktstats_sojourn *out, size_t max_out, size_t *written)
{
	/* an event's index and its departure rank, 16 bits each */
	if (n_events > UINT16_MAX || bin_space(m, (uint32_t)n_events))
		return false;
	const uint32_t n = (uint32_t)n_events;
	uint32_t *end[BINS];
	for (unsigned bin = 0; bin < BINS; bin++)
		end[bin] = &m->bins[bin * m->bin_entries];
	/* what an event adds to `at`, by type: a table takes fewer instructions than a compare */
	static const uint32_t step[4] = {1, 1, 1 + (1u << 16), 1};
	uint32_t at = 0; /* the event's index | the departures before it << 16 */
	for (uint32_t i = 0; i < n; i++) {
		const unsigned type = events[i].type & 3;
		*end[BIN(type, events[i].queue & 7)]++ = at;
		at += step[type];
	}
	const uint32_t departures = at >> 16;
	if (departures > max_out)
		return false;
	const struct pktstats_packet *packet = &result->packet;
	const uint32_t seq = packet->sequence;
	struct pktstats_sojourn model;
	memset(&model, 0, sizeof model);
	model.departure_seq = seq;
	model.resolution = packet->resolution;
	model.source = result->source;
	uint32_t n_arr[PKTSTATS_QUEUES], n_dep[PKTSTATS_QUEUES];
	uint64_t words[PKTSTATS_QUEUES];   /* after the packet */
	uint32_t saturated[PKTSTATS_QUEUES];
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		const struct sojourn_queue *queue = &source->queues[q];
		const uint32_t *arr = &m->bins[BIN(PKTSTATS_EVENT_ARRIVAL, q) * m->bin_entries];
		const uint32_t *dep = &m->bins[BIN(PKTSTATS_EVENT_DEPARTURE, q) * m->bin_entries];
		const uint32_t held = queue->count;
		n_arr[q] = (uint32_t)(end[BIN(PKTSTATS_EVENT_ARRIVAL, q)] - arr);
		n_dep[q] = (uint32_t)(end[BIN(PKTSTATS_EVENT_DEPARTURE, q)] - dep);
		words[q] = queue->words;
		saturated[q] = queue->saturated;
		if (n_arr[q] + n_dep[q] == 0)
			continue;
		/* more arrivals than the queue's RAM (a frame takes a word), or departures than
		 * arrivals: the per-event path finds which one */
		if (!queue->synced || queue->before_words > 0 || held + n_arr[q] > m->queue_words ||
		    n_dep[q] > held + n_arr[q])
			return false;
		/* room for them and one entry free, as fast_event() needs (max_entries is more
		 * than queue_words) */
		while (held + n_arr[q] > queue->mask)
			if (grow(&source->queues[q]))
				return false;
		const uint32_t head = queue->head, mask = queue->mask;
		struct sojourn_entry *const ring = queue->ring;
		int64_t top = INT64_MIN;
		uint64_t sum = queue->words;
		uint32_t lengths = 0; /* bit 8: an arrival of length 255 */
		for (uint32_t k = 0; k < n_arr[q]; k++) {
			const uint32_t i = arr[k] & 0xffff;
			const struct pktstats_event *e = &events[i];
			struct sojourn_entry *entry = &ring[(head + held + k) & mask];
			entry->arrival_ns = e->time_ns;
			entry->seq = seq;
			entry->length = e->length;
			entry->event = (uint16_t)i;
			lengths |= e->length + 1u;
			sum += e->length;
			top = e->occupancy > top ? e->occupancy : top;
		}
		/* The words held after each arrival are the decoder's occupancy moved by what the
		 * matcher held at the snapshot: none may exceed the queue's RAM */
		if (n_arr[q] > 0 && top - (int64_t)packet->queue_size[q] + (int64_t)queue->words >
					    (int64_t)m->queue_words)
			return false;
		/* the first `held` departures pair with frames of earlier packets */
		const uint32_t old = n_dep[q] < held ? n_dep[q] : held;
		model.queue = (uint8_t)q;
		if (pair(dep, 0, old, events, queue, &model, out, false, &sum) |
		    pair(dep, old, n_dep[q], events, queue, &model, out, true, &sum))
			return false;
		/* saturated lengths are rare: counted when there can be any */
		if (UNLIKELY(lengths >> 8 & 1 || queue->saturated > 0))
			saturated[q] += count_saturated(arr, n_arr[q], events) -
					count_saturated(dep, n_dep[q], events);
		words[q] = sum;
	}
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct sojourn_queue *queue = &source->queues[q];
		queue->head = (queue->head + n_dep[q]) & queue->mask;
		queue->count += n_arr[q] - n_dep[q];
		queue->words = words[q];
		queue->saturated = saturated[q];
		queue->counts.timed += n_dep[q];
		for (unsigned type = 0; type < 4; type++)
			queue->by_type[type] += (uint64_t)(end[BIN(type, q)] -
							   &m->bins[BIN(type, q) * m->bin_entries]);
	}
	*written = departures;
	return true;
}

int pktstats_sojourn_feed(struct pktstats_sojourn_matcher *matcher,
			  const struct pktstats_stream_result *result,
			  const struct pktstats_event *events, size_t n_events,
			  struct pktstats_sojourn *out, size_t max_out, size_t *n_out)
{
	size_t written = 0;
	if (n_out)
		*n_out = 0;
	if (!matcher || !result || (!events && n_events > 0) || (!out && max_out > 0))
		return -EINVAL;
	const struct pktstats_packet *packet = &result->packet;
	if (packet->version == 0)
		return 0; /* no header: no source, nothing known (the stream sees the gap after) */
	struct sojourn_source *source;
	int err = source_state(matcher, result->source, &source);
	if (err)
		return err;

	if (result->seq_status == PKTSTATS_SEQ_REORDERED ||
	    result->seq_status == PKTSTATS_SEQ_DUPLICATE) {
		for (size_t i = 0; i < n_events; i++)
			source->queues[events[i].queue & 7].counts.ignored_events++;
		return 0;
	}
	if (result->reason != PKTSTATS_DECODE_OK) {
		/* Its events are unknown (the array may hold some): the queues wait for the next
		 * packet's snapshot */
		lose_all(source, PKTSTATS_SOJOURN_LOSS_MALFORMED);
		return 0;
	}
	/* A source the stream does not track has no sequence: never synchronised, its
	 * departures are all unsynchronised */
	bool use_events = result->seq_status != PKTSTATS_SEQ_NONE;
	if (use_events)
		packet_start(source, result);

	int status = 0;
	const bool bulk = use_events && bulk_packet(matcher, source, result, events, n_events,
						    out, max_out, &written);
	struct pktstats_sojourn spare; /* where a sojourn goes when out is full */
	for (size_t i = 0; !bulk && i < n_events; i++) {
		const struct pktstats_event *event = &events[i];
		struct sojourn_queue *queue = &source->queues[event->queue & 7];
		bool timed;
		queue->by_type[event->type & 3]++;
		if (LIKELY(use_events && queue->synced && queue->before_words == 0 &&
			   written < max_out) &&
		    fast_event(matcher, queue, event, packet->sequence, &out[written], &timed)) {
			/* written whatever the type, kept only when timed (no branch) */
			out[written].departure_seq = packet->sequence;
			out[written].resolution = packet->resolution;
			out[written].source = result->source;
			written += timed;
			continue;
		}
		switch (event->type) {
		case PKTSTATS_EVENT_ARRIVAL:
			if (use_events && arrival(matcher, queue, event, packet->sequence))
				status = -ENOMEM;
			break;
		case PKTSTATS_EVENT_DEPARTURE:
			if (!use_events) {
				queue->counts.unsynchronised++;
			} else {
				struct pktstats_sojourn *sojourn = written < max_out ? &out[written]
										     : &spare;
				if (departure(queue, event, sojourn)) {
					sojourn->departure_seq = packet->sequence;
					sojourn->resolution = packet->resolution;
					sojourn->source = result->source;
					if (sojourn == &spare)
						status = -ENOSPC;
					else
						written++;
				}
			}
			break;
		default:
			break;
		}
	}
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct sojourn_queue *queue = &source->queues[q];
		queue->counts.arrivals = queue->by_type[PKTSTATS_EVENT_ARRIVAL];
		queue->counts.departures = queue->by_type[PKTSTATS_EVENT_DEPARTURE];
		queue->counts.drops = queue->by_type[PKTSTATS_EVENT_DROP];
		queue->counts.pending = queue->count;
	}
	/* Events the caller's array did not hold: what they did is unknown */
	if (n_events < packet->n_events)
		lose_all(source, PKTSTATS_SOJOURN_LOSS_MALFORMED);
	if (n_out)
		*n_out = written;
	return status;
}

const struct pktstats_sojourn_counts *
pktstats_sojourn_counts(const struct pktstats_sojourn_matcher *matcher, int source,
			unsigned queue)
{
	if (!matcher || queue >= PKTSTATS_QUEUES || source < -1 || source >= UNTRACKED)
		return NULL;
	const struct sojourn_source *s = &matcher->sources[source < 0 ? UNTRACKED : source];
	return s->seen ? &s->queues[queue].counts : NULL;
}

static void add_counts(struct pktstats_sojourn_counts *sum, const struct pktstats_sojourn_counts *c)
{
	sum->arrivals += c->arrivals;
	sum->departures += c->departures;
	sum->drops += c->drops;
	sum->timed += c->timed;
	sum->queued_before += c->queued_before;
	sum->unsynchronised += c->unsynchronised;
	sum->ignored_events += c->ignored_events;
	for (unsigned k = 0; k < PKTSTATS_SOJOURN_LOSS_COUNT; k++)
		sum->losses[k] += c->losses[k];
	sum->resyncs += c->resyncs;
	sum->pending += c->pending;
}

void pktstats_sojourn_total(const struct pktstats_sojourn_matcher *matcher, uint32_t queues,
			    struct pktstats_sojourn_counts *total)
{
	if (!total)
		return;
	memset(total, 0, sizeof *total);
	if (!matcher)
		return;
	for (unsigned s = 0; s <= UNTRACKED; s++) {
		if (!matcher->sources[s].seen)
			continue;
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
			if (queues >> q & 1)
				add_counts(total, &matcher->sources[s].queues[q].counts);
	}
}
