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
 * follows what the queues hold, not the RAM they could (pktstats_sojourn_feed_frame() keeps
 * room after the tail for a packet's arrivals as well: arrivals_into_rings()).
 *
 * A packet is paired in bulk (bulk_lists()) when every queue it has events of is synchronised
 * with nothing from before queued, which is nearly every packet; the per-event path below it
 * takes the others, and every packet in which anything is out of the ordinary. The bulk pairs
 * lists of the packet's events by type and queue: pktstats_sojourn_feed() sorts its event
 * array into them, pktstats_sojourn_feed_frame() has the decoder's slot loop write them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pktstats/sojourn.h"

#include "branch_hints.h"
#include "sojourn_lists.h"

_Static_assert(sizeof(struct sojourn_entry) == 16, "a ring entry is 16 bytes");

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

/* The bulk path's lists of a packet's events by type and queue (sojourn_lists.h), BIN_START
 * entries or more each */
#define BINS SOJOURN_LISTS
#define BIN(type, queue) ((type) << 3 | (queue))
#define BIN_START 512u
_Static_assert(BINS == 4 * PKTSTATS_QUEUES, "a list per type and queue");

struct pktstats_sojourn_matcher {
	uint32_t queue_words;
	uint32_t max_entries; /* a ring's largest size: the power of two above queue_words */
	struct sojourn_entry *bins; /* BINS lists of bin_entries */
	uint32_t bin_entries;
	struct sojourn_lists lists; /* the same for the decoder (set once, not per packet; its
				       arrivals per packet: arrivals_into_rings()) */
	int last_source;            /* of the last packet pktstats_sojourn_feed_frame() paired */
	/* pktstats_sojourn_feed_frame(): the events of a packet the bulk does not take */
	struct pktstats_event *events;
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
	m->last_source = -1;
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
	free(matcher->events);
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

/* A ring of `entries` (a power of two, more than it holds), its entries from 0, oldest first.
 * 0 or -ENOMEM. */
static int relayout(struct sojourn_queue *queue, uint32_t entries)
{
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

/* Doubles a ring. 0 or -ENOMEM. */
static int grow(struct sojourn_queue *queue)
{
	return relayout(queue, (queue->mask + 1) * 2);
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
	tail->time_ns = event->time_ns;
	tail->seq = seq;
	tail->length = event->length;
	queue->count++;
	queue->words += event->length;
	queue->saturated += event->length == PKTSTATS_SLOT_LENGTH_MAX;
	return 0;
}

/*
 * Whether a departure's time is before its arrival's: time went back (inside a packet, or from
 * one packet to the next), which no packet the hardware sends does; timed, its delay would
 * wrap to about 584 years. The times themselves wrap modulo 2^64 ns (2^62 ticks of 1024 ns are
 * more), so the difference is taken the short way round: more than 2^63 ns is before.
 */
static PKTSTATS_ALWAYS_INLINE bool went_back(uint64_t departure_ns, uint64_t arrival_ns)
{
	return departure_ns - arrival_ns > UINT64_C(1) << 63;
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
	/* a departure before its arrival (time went back: no packet the hardware sends) is not
	 * timed either: its delay would wrap */
	if (queue->count == 0 || oldest->length != length ||
	    went_back(event->time_ns, oldest->time_ns)) {
		lose(queue, PKTSTATS_SOJOURN_LOSS_INCONSISTENT);
		queue->counts.unsynchronised++;
		return false;
	}
	/* Field by field: a compound literal is built on the stack and copied, and its byte
	 * stores read back as wider words stall (the matcher took a quarter longer) */
	sojourn->arrival_ns = oldest->time_ns;
	sojourn->departure_ns = event->time_ns;
	sojourn->delay_ns = event->time_ns - oldest->time_ns;
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
 * bulk path did not take), without a branch on the event's type (which no predictor guesses
 * in a switch's event stream): an arrival's entry is written at the tail for every event and kept only for an
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
	const uint32_t unpaired = departure & ((queue->count == 0) | (oldest->length != length) |
					       went_back(event->time_ns, oldest->time_ns));
	const uint32_t unfit = arrival & ((queue->words + length > m->queue_words) |
					  (queue->count + 1 > queue->mask));
	if (UNLIKELY(unpaired | unfit))
		return false;
	/* From here on a departure pairs: what follows depends on the type alone, not on the
	 * loads the check above made (the branch is predicted, the updates need not wait) */
	sojourn->arrival_ns = oldest->time_ns;
	sojourn->departure_ns = event->time_ns;
	sojourn->delay_ns = event->time_ns - oldest->time_ns;
	sojourn->arrival_seq = oldest->seq;
	sojourn->length = (uint8_t)length;
	sojourn->queue = event->queue;
	struct sojourn_entry *tail = &queue->ring[(queue->head + queue->count) & queue->mask];
	tail->time_ns = event->time_ns;
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

/* The bulk path's lists of a packet's events (BIN(type, queue)), allocated for n events: 0,
 * or -ENOMEM. */
static int bin_space(struct pktstats_sojourn_matcher *m, uint32_t n)
{
	/* allocated once even for n = 0: bin_list() makes pointers into it */
	if (n <= m->bin_entries && m->bins)
		return 0;
	uint32_t entries = BIN_START;
	while (entries < n)
		entries *= 2;
	struct sojourn_entry *bins = malloc((size_t)BINS * entries * sizeof *bins);
	if (!bins)
		return -ENOMEM;
	free(m->bins);
	m->bins = bins;
	m->bin_entries = entries;
	m->lists.capacity = entries;
	for (unsigned bin = 0; bin < BINS; bin++)
		m->lists.list[bin] = &bins[(size_t)bin * entries];
	return 0;
}

static struct sojourn_entry *bin_list(const struct pktstats_sojourn_matcher *m, unsigned bin)
{
	return &m->bins[(size_t)bin * m->bin_entries];
}

/*
 * Departures dep[from..to) of a queue paired with its ring's entries from the head: their
 * sojourns written to out at their ranks, their lengths taken from *words. `order`: the
 * entries are arrivals of this packet, which must have come before. Returns nonzero when a
 * pair does not hold (another length, an arrival after its departure in the packet: the queue
 * was empty, or a departure's time before its arrival's).
 */
static PKTSTATS_ALWAYS_INLINE uint32_t pair(const struct sojourn_entry *dep, uint32_t from,
					    uint32_t to, const struct sojourn_queue *queue,
					    const struct pktstats_sojourn *model,
					    struct pktstats_sojourn *out, const bool order,
					    uint64_t *words)
{
	const struct sojourn_entry *const ring = queue->ring;
	const uint32_t head = queue->head, mask = queue->mask;
	uint32_t bad = 0;
	uint64_t sum = *words;
	for (uint32_t k = from; k < to; k++) {
		const struct sojourn_entry *d = &dep[k];
		const struct sojourn_entry *entry = &ring[(head + k) & mask];
		bad |= (entry->length != d->length) | (order && entry->event > d->event) |
		       went_back(d->time_ns, entry->time_ns);
		sum -= d->length;
		struct pktstats_sojourn *sojourn = &out[d->rank];
		sojourn->arrival_ns = entry->time_ns;
		sojourn->departure_ns = d->time_ns;
		sojourn->delay_ns = d->time_ns - entry->time_ns;
		sojourn->arrival_seq = entry->seq;
		sojourn->departure_seq = model->departure_seq;
		memcpy((char *)sojourn + SOJOURN_TAIL, (const char *)model + SOJOURN_TAIL,
		       SOJOURN_TAIL_BYTES);
		sojourn->length = d->length;
	}
	*words = sum;
	return bad;
}

/* The events of length 255 in list[0..n) */
static uint32_t count_saturated(const struct sojourn_entry *list, uint32_t n)
{
	uint32_t saturated = 0;
	for (uint32_t k = 0; k < n; k++)
		saturated += list[k].length == PKTSTATS_SLOT_LENGTH_MAX;
	return saturated;
}

/* Whether the words a queue holds (`words` before the packet) stay within `limit` after each
 * of its arrivals arr[0..n_arr), its departures dep[0..n_dep) taken off in the packet's order
 * (as the per-event path counts them). Only when the arrivals' sum is above the limit. */
static bool arrivals_fit(const struct sojourn_entry *arr, uint32_t n_arr,
			 const struct sojourn_entry *dep, uint32_t n_dep, uint64_t words,
			 uint32_t limit)
{
	int64_t held = (int64_t)words;
	uint32_t d = 0;
	for (uint32_t k = 0; k < n_arr; k++) {
		while (d < n_dep && dep[d].event < arr[k].event)
			held -= dep[d++].length;
		held += arr[k].length;
		if (held > (int64_t)limit)
			return false;
	}
	return true;
}

/*
 * A whole packet at once, from its events in the lists (list[BIN(type, queue)], n[bin] entries
 * each; `departures` in all), when every queue it has events of is synchronised with nothing
 * from before queued (the common case): per queue, its arrivals are appended to the ring and
 * its departures pair in order with the ring's entries from the head (a FIFO: the k-th
 * departure is the k-th entry). Each is a plain loop with the queue's state in registers,
 * updated once per packet: no per-event branch on the type and no per-event update of the
 * queue's state in memory, which the per-event path spends most of its time on. Returns false,
 * with no state changed (ring entries after the tail and out aside), when anything is out of
 * the ordinary (a pair that does not hold, an overflow, out too small): the per-event path then
 * does the packet, and applies the rules. Lengths of 255 are counted here (saturated).
 */
static bool bulk_lists(struct pktstats_sojourn_matcher *m, struct sojourn_source *source,
		       const struct pktstats_stream_result *result,
		       struct sojourn_entry *const *list, const uint32_t *n, uint32_t departures,
		       struct pktstats_sojourn *out, size_t max_out, size_t *written)
{
	if (departures > max_out)
		return false;
	const struct pktstats_packet *packet = &result->packet;
	struct pktstats_sojourn model;
	memset(&model, 0, sizeof model);
	model.departure_seq = packet->sequence;
	model.resolution = packet->resolution;
	model.source = result->source;
	uint64_t words[PKTSTATS_QUEUES];   /* after the packet */
	uint32_t saturated[PKTSTATS_QUEUES];
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct sojourn_queue *queue = &source->queues[q];
		const struct sojourn_entry *arr = list[BIN(PKTSTATS_EVENT_ARRIVAL, q)];
		const struct sojourn_entry *dep = list[BIN(PKTSTATS_EVENT_DEPARTURE, q)];
		const uint32_t n_arr = n[BIN(PKTSTATS_EVENT_ARRIVAL, q)];
		const uint32_t n_dep = n[BIN(PKTSTATS_EVENT_DEPARTURE, q)];
		const uint32_t held = queue->count;
		words[q] = queue->words;
		saturated[q] = queue->saturated;
		if (n_arr + n_dep == 0)
			continue;
		/* more arrivals than the queue's RAM (a frame takes a word), or departures than
		 * arrivals: the per-event path finds which one */
		if (!queue->synced || queue->before_words > 0 || held + n_arr > m->queue_words ||
		    n_dep > held + n_arr)
			return false;
		/* the decoder wrote them at the ring's tail (arrivals_into_rings()), with room */
		const bool in_ring = arr == &queue->ring[(queue->head + held) & queue->mask];
		/* room for them and one entry free, as fast_event() needs (max_entries is more
		 * than queue_words) */
		while (held + n_arr > queue->mask)
			if (in_ring || grow(queue))
				return false;
		const uint32_t at = queue->head + held, mask = queue->mask;
		struct sojourn_entry *const ring = queue->ring;
		uint64_t sum = queue->words;
		uint32_t lengths = 0; /* bit 8: an arrival of length 255 */
		if (in_ring) {
			for (uint32_t k = 0; k < n_arr; k++) {
				lengths |= arr[k].length + 1u;
				sum += arr[k].length;
			}
		} else {
			for (uint32_t k = 0; k < n_arr; k++) {
				ring[(at + k) & mask] = arr[k];
				lengths |= arr[k].length + 1u;
				sum += arr[k].length;
			}
		}
		/* the words held after each arrival: at most `sum`, counted one by one when that
		 * is more than the queue's RAM */
		if (sum > m->queue_words &&
		    !arrivals_fit(arr, n_arr, dep, n_dep, queue->words, m->queue_words))
			return false;
		/* the first `held` departures pair with frames of earlier packets */
		const uint32_t old = n_dep < held ? n_dep : held;
		model.queue = (uint8_t)q;
		if (pair(dep, 0, old, queue, &model, out, false, &sum) |
		    pair(dep, old, n_dep, queue, &model, out, true, &sum))
			return false;
		/* saturated lengths are rare: counted when there can be any */
		if (UNLIKELY(lengths >> 8 & 1 || queue->saturated > 0))
			saturated[q] += count_saturated(arr, n_arr) - count_saturated(dep, n_dep);
		words[q] = sum;
	}
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct sojourn_queue *queue = &source->queues[q];
		const uint32_t n_arr = n[BIN(PKTSTATS_EVENT_ARRIVAL, q)];
		const uint32_t n_dep = n[BIN(PKTSTATS_EVENT_DEPARTURE, q)];
		queue->head = (queue->head + n_dep) & queue->mask;
		queue->count += n_arr - n_dep;
		queue->words = words[q];
		queue->saturated = saturated[q];
		queue->counts.timed += n_dep;
		for (unsigned type = 0; type < 4; type++)
			queue->by_type[type] += n[BIN(type, q)];
	}
	*written = departures;
	return true;
}

/* bulk_lists() on an event array: its events sorted into the lists first, as the decoder's
 * slot loop writes them for pktstats_sojourn_feed_frame(). */
static bool bulk_packet(struct pktstats_sojourn_matcher *m, struct sojourn_source *source,
			const struct pktstats_stream_result *result,
			const struct pktstats_event *events, size_t n_events,
			struct pktstats_sojourn *out, size_t max_out, size_t *written)
{
	/* an event's index is 16 bits */
	if (n_events > UINT16_MAX + 1u || bin_space(m, (uint32_t)n_events))
		return false;
	struct sojourn_entry *start[BINS], *end[BINS];
	for (unsigned bin = 0; bin < BINS; bin++)
		start[bin] = end[bin] = bin_list(m, bin);
	const uint32_t seq = result->packet.sequence;
	uint32_t departures = 0;
	for (uint32_t i = 0; i < (uint32_t)n_events; i++) {
		const struct pktstats_event *event = &events[i];
		const unsigned type = event->type & 3;
		const uint32_t departure = type == PKTSTATS_EVENT_DEPARTURE;
		struct sojourn_entry *e = end[BIN(type, event->queue & 7)]++;
		sojourn_entry_set(e, event->time_ns, departure ? departures : seq,
				  event->length, (uint16_t)i);
		departures += departure;
	}
	uint32_t n[BINS];
	for (unsigned bin = 0; bin < BINS; bin++)
		n[bin] = (uint32_t)(end[bin] - start[bin]);
	return bulk_lists(m, source, result, start, n, departures, out, max_out, written);
}

/* The counts that follow from a queue's state, after a packet */
static void update_counts(struct sojourn_source *source)
{
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct sojourn_queue *queue = &source->queues[q];
		queue->counts.arrivals = queue->by_type[PKTSTATS_EVENT_ARRIVAL];
		queue->counts.departures = queue->by_type[PKTSTATS_EVENT_DEPARTURE];
		queue->counts.drops = queue->by_type[PKTSTATS_EVENT_DROP];
		queue->counts.pending = queue->count;
	}
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
	update_counts(source);
	/* Events the caller's array did not hold: what they did is unknown */
	if (n_events < packet->n_events)
		lose_all(source, PKTSTATS_SOJOURN_LOSS_MALFORMED);
	if (n_out)
		*n_out = written;
	return status;
}

/*
 * Where the decoder is to write a packet's arrivals: for each queue of the source of the last
 * packet (nearly always this one's), straight into its ring after the tail, when the ring
 * has room there for as many as the lists hold without wrapping (rings of 4 times that are
 * laid out again from 0 when the tail comes near the end: one copy of what a queue holds
 * every few dozen packets); else its list, copied into the ring by bulk_lists(). It spares
 * bulk_lists() the copy (a quarter of its time). Nothing of a ring's state changes: entries
 * after the tail are free.
 */
static void arrivals_into_rings(struct pktstats_sojourn_matcher *m)
{
	struct sojourn_lists *lists = &m->lists;
	const uint32_t room = lists->capacity;
	struct sojourn_source *source = m->last_source >= 0 ? &m->sources[m->last_source] : NULL;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct sojourn_entry **list = &lists->list[BIN(PKTSTATS_EVENT_ARRIVAL, q)];
		*list = bin_list(m, BIN(PKTSTATS_EVENT_ARRIVAL, q));
		if (!source || !source->seen)
			continue;
		struct sojourn_queue *queue = &source->queues[q];
		uint32_t tail = (queue->head + queue->count) & queue->mask;
		/* after the tail, `room` entries and one free (fast_event()) */
		if (tail + room > queue->mask + 1 || queue->count + room > queue->mask) {
			uint32_t entries = queue->mask + 1;
			while (entries < queue->count + 4 * room && entries < m->max_entries)
				entries *= 2;
			if (queue->count + room >= entries || relayout(queue, entries))
				continue;
			tail = queue->count;
		}
		*list = &queue->ring[tail];
	}
}

/* Whether packet_start() would change nothing: the packet follows the last in sequence,
 * without M, and every queue is synchronised and holds the words of its snapshot. */
static bool packet_in_step(const struct sojourn_source *source,
			   const struct pktstats_stream_result *result)
{
	if (result->seq_status != PKTSTATS_SEQ_IN_ORDER || result->packet.missed ||
	    !source->seen || source->waiting)
		return false;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		if (!source->queues[q].synced ||
		    !snapshot_agrees(&source->queues[q], result->packet.queue_size[q]))
			return false;
	return true;
}

int pktstats_sojourn_feed_frame(struct pktstats_sojourn_matcher *matcher,
				struct pktstats_stream *stream, const uint8_t *frame, size_t len,
				struct pktstats_stream_result *result, struct pktstats_sojourn *out,
				size_t max_out, size_t *n_out)
{
	if (n_out)
		*n_out = 0;
	if (!matcher || !stream || !result || (!out && max_out > 0)) {
		if (result) {
			memset(result, 0, sizeof *result);
			result->source = -1;
		}
		return -EINVAL;
	}
	int err = bin_space(matcher, BIN_START);
	if (err)
		return err;
	const struct sojourn_lists *lists = &matcher->lists;
	arrivals_into_rings(matcher);
	const int r = pktstats_stream_feed_frame_lists(stream, frame, len, &matcher->lists, result);
	if (r != 0 && r != -EBADMSG)
		return r; /* no stat packet (-ENOMSG), or nothing decoded */
	const struct pktstats_packet *packet = &result->packet;
	if (result->source >= 0 && result->source < UNTRACKED)
		matcher->last_source = result->source;

	/* The common case: the lists paired as they are */
	if (r == 0 && lists->filled && result->source >= 0 && result->source < UNTRACKED) {
		struct sojourn_source *source = &matcher->sources[result->source];
		size_t written = 0;
		if (packet_in_step(source, result) &&
		    bulk_lists(matcher, source, result, lists->list, lists->n, lists->departures,
			       out, max_out, &written)) {
			update_counts(source);
			if (n_out)
				*n_out = written;
			return 0;
		}
	}

	/* Anything else goes the event path's way, with the events it would have: decoded
	 * again into an array (the lists cannot say what the per-event rules need) */
	if (!lists->filled && r == 0 && packet->n_slots - 2 <= UINT16_MAX + 1u)
		(void)bin_space(matcher, packet->n_slots - 2); /* fits the next such packet */
	size_t n_events = 0;
	if (r == 0) {
		if (!matcher->events) {
			matcher->events = malloc(PKTSTATS_DECODE_MAX_EVENTS * sizeof *matcher->events);
			if (!matcher->events)
				return -ENOMEM;
		}
		struct pktstats_packet again;
		if (pktstats_decode_payload_ex(result->frame.payload, result->frame.payload_len,
					       &stream->options.decode, &again, matcher->events,
					       PKTSTATS_DECODE_MAX_EVENTS, &n_events, NULL) == -ENOSPC)
			result->n_events = n_events; /* as the event path's array would hold */
	}
	err = pktstats_sojourn_feed(matcher, result, matcher->events, n_events, out, max_out, n_out);
	return err ? err : r;
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
