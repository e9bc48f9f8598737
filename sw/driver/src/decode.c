/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stat packet decoder. See include/pktstats/decode.h for the contract and
 * docs/evcap-architecture.md ("Packet output") for the frame the hardware emits.
 */
#include "pktstats/decode.h"

#include <errno.h>
#include <string.h>

#include "branch_hints.h"
#include "byte_order.h"
#include "sojourn_lists.h"

_Static_assert(sizeof(struct pktstats_event) == 32, "struct pktstats_event is 32 bytes");
_Static_assert(PKTSTATS_STREAM_REORDER_WINDOW >= 1 && PKTSTATS_STREAM_REORDER_WINDOW <= 64,
	       "the reorder window is one 64-bit word");

#define V2_HEADER PKTSTATS_STAT_HEADER_BYTES
#define V1_HEADER PKTSTATS_V1_STAT_HEADER_BYTES
#define TS_HIGH_MASK 0x3fffffffu /* timestamp bits 61:32 in the first slot */

/* The timestamp event in the two slots at p: bits 61:32 in the first, 31:0 in the second. */
static inline uint64_t timestamp_at(const uint8_t *p)
{
	return (uint64_t)(get32(p) & TS_HIGH_MASK) << 32 | get32(p + PKTSTATS_SLOT_BYTES);
}

/* ---------------------------------------------------------------------------------------- */
/* Reasons                                                                                    */

static const struct {
	const char *name;
	const char *text;
} reasons[PKTSTATS_DECODE_ERROR_COUNT] = {
	[PKTSTATS_DECODE_OK] = {"ok", "no error"},
	[PKTSTATS_DECODE_FRAME_TRUNCATED] = {"frame_truncated",
		"frame truncated: captured bytes end before the headers or the IP packet end"},
	[PKTSTATS_DECODE_NOT_IPV4] = {"not_ipv4", "not an IPv4 frame (EtherType)"},
	[PKTSTATS_DECODE_BAD_IP_HEADER] = {"bad_ip_header", "bad IPv4 header (version or IHL)"},
	[PKTSTATS_DECODE_NOT_UDP] = {"not_udp", "IP protocol is not UDP"},
	[PKTSTATS_DECODE_FRAGMENT] = {"fragment", "IP fragment"},
	[PKTSTATS_DECODE_LENGTH_MISMATCH] = {"length_mismatch",
		"IP total length and UDP length disagree"},
	[PKTSTATS_DECODE_OTHER_PORT] = {"other_port", "UDP destination port not filtered on"},
	[PKTSTATS_DECODE_TRUNCATED] = {"truncated", "payload shorter than the stat header"},
	[PKTSTATS_DECODE_BAD_VERSION] = {"bad_version", "unsupported stat packet version"},
	[PKTSTATS_DECODE_BAD_EVENT_TYPES] = {"bad_event_types", "number of event types is not 3"},
	[PKTSTATS_DECODE_PARTIAL_SLOT] = {"partial_slot",
		"truncated: event area is not a multiple of 4 bytes"},
	[PKTSTATS_DECODE_NO_EVENTS] = {"no_events", "packet holds no short event"},
	[PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP] = {"first_not_timestamp",
		"first event is not a timestamp"},
	[PKTSTATS_DECODE_CUT_TIMESTAMP] = {"cut_timestamp",
		"timestamp event cut in half (its first slot is the last slot)"},
};

const char *pktstats_decode_strerror(enum pktstats_decode_error reason)
{
	if ((unsigned)reason >= PKTSTATS_DECODE_ERROR_COUNT || !reasons[reason].text)
		return "unknown decode error";
	return reasons[reason].text;
}

const char *pktstats_decode_error_name(enum pktstats_decode_error reason)
{
	if ((unsigned)reason >= PKTSTATS_DECODE_ERROR_COUNT || !reasons[reason].name)
		return "unknown";
	return reasons[reason].name;
}

const char *pktstats_seq_status_name(enum pktstats_seq_status status)
{
	switch (status) {
	case PKTSTATS_SEQ_NONE: return "none";
	case PKTSTATS_SEQ_FIRST: return "first";
	case PKTSTATS_SEQ_IN_ORDER: return "in_order";
	case PKTSTATS_SEQ_GAP: return "gap";
	case PKTSTATS_SEQ_RESET: return "reset";
	case PKTSTATS_SEQ_REORDERED: return "reordered";
	case PKTSTATS_SEQ_DUPLICATE: return "duplicate";
	}
	return "unknown";
}

/* ---------------------------------------------------------------------------------------- */
/* Frame                                                                                      */

/* view->payload stays NULL (zeroed at the start, set only on success). */
static int frame_error(struct pktstats_frame_view *view, enum pktstats_decode_error reason)
{
	view->reason = reason;
	return -EBADMSG;
}

int pktstats_parse_frame(const uint8_t *frame, size_t len, struct pktstats_frame_view *view)
{
	const uint8_t *ip, *udp;
	size_t off, ihl, total, udp_len;
	uint16_t ethertype;

	if (!view)
		return -EINVAL;
	memset(view, 0, sizeof(*view));
	if (!frame)
		return -EINVAL;

	if (len < PKTSTATS_ETH_HEADER_BYTES)
		return frame_error(view, PKTSTATS_DECODE_FRAME_TRUNCATED);
	memcpy(view->dst_mac, frame, 6);
	memcpy(view->src_mac, frame + 6, 6);
	ethertype = get16(frame + 12);
	off = PKTSTATS_ETH_HEADER_BYTES;
	if (ethertype == PKTSTATS_ETHERTYPE_VLAN) {
		if (len < off + PKTSTATS_VLAN_TAG_BYTES)
			return frame_error(view, PKTSTATS_DECODE_FRAME_TRUNCATED);
		view->vlan = true;
		view->vlan_tci = get16(frame + off);
		ethertype = get16(frame + off + 2);
		off += PKTSTATS_VLAN_TAG_BYTES;
	}
	if (ethertype != PKTSTATS_ETHERTYPE_IPV4)
		return frame_error(view, PKTSTATS_DECODE_NOT_IPV4);

	if (len - off < PKTSTATS_IP_HEADER_BYTES)
		return frame_error(view, PKTSTATS_DECODE_FRAME_TRUNCATED);
	ip = frame + off;
	if ((ip[0] >> 4) != 4 || (ip[0] & 0x0f) < 5)
		return frame_error(view, PKTSTATS_DECODE_BAD_IP_HEADER);
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	total = get16(ip + 2);
	view->ip_header_len = (uint8_t)ihl;
	view->tos = ip[1];
	view->ip_total_len = (uint16_t)total;
	view->ip_id = get16(ip + 4);
	view->ttl = ip[8];
	view->src_ip = get32(ip + 12);
	view->dst_ip = get32(ip + 16);
	if (ip[9] != PKTSTATS_IP_PROTO_UDP)
		return frame_error(view, PKTSTATS_DECODE_NOT_UDP);
	if (get16(ip + 6) & 0x3fff) /* MF flag or fragment offset */
		return frame_error(view, PKTSTATS_DECODE_FRAGMENT);
	if (len - off < ihl)
		return frame_error(view, PKTSTATS_DECODE_FRAME_TRUNCATED);

	/* The UDP header, read as soon as it is captured so that the ports are known even when a
	 * length check below fails (the stream's port filter uses them). */
	udp = ip + ihl;
	if (len - off >= ihl + PKTSTATS_UDP_HEADER_BYTES) {
		view->src_port = get16(udp);
		view->dst_port = get16(udp + 2);
		view->udp_len = get16(udp + 4);
	}
	if (total < ihl + PKTSTATS_UDP_HEADER_BYTES)
		return frame_error(view, PKTSTATS_DECODE_LENGTH_MISMATCH);
	if (len - off < total)
		return frame_error(view, PKTSTATS_DECODE_FRAME_TRUNCATED);
	udp_len = view->udp_len;
	if (udp_len < PKTSTATS_UDP_HEADER_BYTES || udp_len != total - ihl)
		return frame_error(view, PKTSTATS_DECODE_LENGTH_MISMATCH);

	view->payload = udp + PKTSTATS_UDP_HEADER_BYTES;
	view->payload_len = udp_len - PKTSTATS_UDP_HEADER_BYTES;
	view->trailer_len = len - off - total;
	view->reason = PKTSTATS_DECODE_OK;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Payload                                                                                    */

void pktstats_decode_default_options(struct pktstats_decode_options *options)
{
	if (!options)
		return;
	options->accept_v1 = true;
	options->v1_resolution = 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Summary                                                                                    */

/*
 * Summary mode keeps what a packet's events add in a struct summary_work and commits it to
 * the caller's pktstats_summary only once the packet has decoded (a malformed packet
 * contributes nothing). Per short event: a histogram by the slot's top five bits (type and
 * queue), the lengths weighted by the event's time, the occupancy change of its queue, and a
 * compare with the largest occupancy so far: the capture's, not the packet's, so it is rarely
 * beaten, the branch is predicted, and no maximum is carried from event to event in memory.
 *
 * The integral over a segment of the packet (base .. hw, s = time since base):
 *   integral = (queue_size + rel) x (hw - base) - sum over the segment's events of delta x s
 * with rel the occupancy change since the packet's start and delta an event's change (+length
 * for an arrival, -length for a departure); `weighted` keeps the sum per queue. A segment ends
 * at every fold, before hw - base reaches FOLD_TICKS + CHUNK_SLOTS x 2^19 < 2^41 and after at
 * most CHUNK_SLOTS events of at most 255 words (|sum of delta| < 2^22): the sum stays below
 * 2^63 in magnitude, and the histogram's counts and words below 2^32.
 *
 * Two variants of the slot loop: the fast one for packets whose time never goes back, with
 * at most CHUNK_SLOTS slots and no jump of FOLD_TICKS or more (all the hardware sends): s is
 * the tick since the packet's start, with no fold. It gives up (SUMMARY_RETRY) on anything
 * else, and the general one starts over, tracking the latest instant (hw) at every event.
 *
 * The largest occupancy is the largest a queue held at a clock's edge (decode.h). The events
 * of one clock are written by queue, arrival before departure, so when a frame arrives and
 * another leaves a queue in the same clock, the arrival's event is followed at once by the
 * departure's and the occupancy between them is one the queue never held: an arrival's
 * occupancy does not count when the packet's next event is a departure of the same queue in
 * the same tick. Both loops look at that next event only where an arrival would beat the
 * maximum (the branch that is rarely taken), so the straight path keeps no state for it; the
 * look, a function out of line (PKTSTATS_COLD), reads the next slot and the timestamps before
 * it, which no other look reads. The serializer never splits one queue's events of a clock
 * over two packets, so a packet's last event counts.
 */
#define CHUNK_SLOTS 16384u
#define FOLD_TICKS (UINT64_C(1) << 40)
#define SUMMARY_RETRY PKTSTATS_DECODE_ERROR_COUNT /* internal, never returned */
#define SUMMARY_BINS 32 /* slot bits 31:27: type << 3 | queue */

/* Per queue: what an event changes in its queue. */
struct summary_queue {
	int64_t rel;                      /* occupancy - queue_size */
	int64_t weighted;                 /* sum of delta x s, in this segment */
	int64_t above;                    /* the largest occupancy so far - queue_size */
	uint64_t max_at;                  /* the tick (unmasked) where an event beat it */
};

struct summary_work {
	uint64_t histogram[SUMMARY_BINS]; /* count << 32 | words, in this segment */
	struct summary_queue queue[PKTSTATS_QUEUES];
	unsigned beaten;                  /* bit q: an event of queue q beat it */
	unsigned start_beats;             /* bit q: queue_size beat it (or is the first value) */
	uint64_t events[SUMMARY_BINS];    /* folded histogram: counts */
	uint64_t words[SUMMARY_BINS];     /* folded histogram: words */
	double integral[PKTSTATS_QUEUES]; /* word x ticks, the segments folded so far */
	uint64_t span_ticks;              /* how far time advanced in the packet */
};

static void summary_work_init(struct summary_work *w, const struct pktstats_packet *packet,
			      const struct pktstats_summary *summary)
{
	memset(w, 0, sizeof(*w));
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		const int64_t size = packet->queue_size[q];
		const int64_t max = summary->queues[q].max_occupancy;

		if (summary->packets == 0 || size > max)
			w->start_beats |= 1u << q;
		else
			w->queue[q].above = max - size;
	}
}

/* Ends the segment base .. to (the occupancy holds from the latest instant to `to`). */
static void summary_fold(struct summary_work *w, const struct pktstats_packet *packet,
			 uint64_t base, uint64_t to)
{
	const double span = (double)(to - base);

	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		const int64_t occupancy = (int64_t)packet->queue_size[q] + w->queue[q].rel;

		w->integral[q] += (double)occupancy * span - (double)w->queue[q].weighted;
		w->queue[q].weighted = 0;
	}
	for (unsigned bin = 0; bin < SUMMARY_BINS; bin++) {
		w->events[bin] += w->histogram[bin] >> 32;
		w->words[bin] += w->histogram[bin] & 0xffffffffu;
		w->histogram[bin] = 0;
	}
}

/* Adds a decoded packet to the summary (see decode.h for the time line). */
static void summary_commit(struct pktstats_summary *summary,
			   const struct pktstats_packet *packet, const struct summary_work *w)
{
	const unsigned c = packet->resolution;
	const uint64_t ns_per_tick = (uint64_t)PKTSTATS_CLOCK_NS << c;
	const uint64_t start = pktstats_tick_to_ns(packet->start_tick, c);
	const uint64_t span = w->span_ticks * ns_per_tick;

	/* Later is modulo 2^64 ns, less than 2^63 ns (292 years) ahead: the time after the
	 * timer's wrap (2^62 ticks, where the ns wrap as well) follows the time before it. */
	const uint64_t gap = start - summary->latest_ns;

	if (summary->packets == 0) {
		summary->first_ns = summary->latest_ns = start;
	} else if (gap != 0 && gap < UINT64_C(1) << 63) {
		/* the occupancy carries on from the previous packet (or over lost ones) */
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
			summary->queues[q].integral +=
				(double)summary->queues[q].occupancy * (double)gap;
		summary->span_ns += gap;
	}
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		struct pktstats_queue_summary *qs = &summary->queues[q];
		const int64_t size = packet->queue_size[q];

		if (w->start_beats >> q & 1) {
			qs->max_occupancy = size;
			qs->max_time_ns = start;
		}
		if (w->beaten >> q & 1) {
			qs->max_occupancy = size + w->queue[q].above;
			qs->max_time_ns = pktstats_tick_to_ns(w->queue[q].max_at & PKTSTATS_TIMESTAMP_MASK,
							      c);
		}
		for (unsigned type = PKTSTATS_EVENT_ARRIVAL; type <= PKTSTATS_EVENT_DROP; type++) {
			qs->events[type] += w->events[type << 3 | q];
			qs->words[type] += w->words[type << 3 | q];
		}
		qs->occupancy = size + w->queue[q].rel;
		qs->integral += w->integral[q] * (double)ns_per_tick;
	}
	summary->span_ns += span;
	summary->latest_ns = start + span;
	summary->last_ns = pktstats_tick_to_ns(packet->last_tick, c);
	summary->packets++;
	summary->events += packet->n_events;
}

double pktstats_summary_mean(const struct pktstats_summary *summary, unsigned queue)
{
	if (!summary || queue >= PKTSTATS_QUEUES || summary->span_ns == 0)
		return 0.0;
	return summary->queues[queue].integral / (double)summary->span_ns;
}

/* An event's change of its queue's occupancy per word, by type: a table, not a branch. */
static const int64_t event_sign[4] = {
	[PKTSTATS_EVENT_ARRIVAL] = 1, [PKTSTATS_EVENT_DEPARTURE] = -1, [PKTSTATS_EVENT_DROP] = 0,
};

/* What the slot loop writes besides the packet's own summary. */
enum slot_output {
	OUTPUT_NONE,    /* validation only */
	OUTPUT_EVENTS,  /* one struct pktstats_event per short event */
	OUTPUT_SUMMARY, /* struct summary_work */
	OUTPUT_LISTS,   /* struct sojourn_lists: the events by type and queue, for the matcher */
};

/*
 * Whether the packet's next event after an arrival of queue q at acc (unmasked) is a departure
 * of q in the same tick (modulo 2^62): the slots from i on, a timestamp between them setting
 * the time as in decode_slots() (where it may go back). A cut timestamp ends the look (the
 * packet is malformed anyway).
 */
static PKTSTATS_COLD bool departs_next(const uint8_t *slots, uint32_t i, uint32_t n_slots,
				       const int v1, uint64_t acc, uint32_t q)
{
	const uint64_t tick = acc & PKTSTATS_TIMESTAMP_MASK;

	for (; i < n_slots; i += 2) {
		const uint32_t s = get32(slots + (size_t)i * PKTSTATS_SLOT_BYTES);
		const uint32_t type = s >> PKTSTATS_SLOT_TYPE_SHIFT;

		if (type != PKTSTATS_EVENT_TIMESTAMP) {
			const uint32_t field = s & PKTSTATS_SLOT_GAP_MASK;

			if (v1)
				acc += (field - (uint32_t)acc) & PKTSTATS_SLOT_GAP_MASK;
			else
				acc += field;
			return type == PKTSTATS_EVENT_DEPARTURE &&
			       (s >> PKTSTATS_SLOT_QUEUE_SHIFT & 7) == q &&
			       (acc & PKTSTATS_TIMESTAMP_MASK) == tick;
		}
		if (i + 1 >= n_slots)
			return false;
		acc = timestamp_at(slots + (size_t)i * PKTSTATS_SLOT_BYTES);
	}
	return false;
}

/* The same for the fast summary loop, where time never goes back: the slots from `slot` to
 * `end`, the arrival at `tick` (unmasked). A timestamp earlier than `tick` makes the fast loop
 * give up, so what this says then does not matter. */
static PKTSTATS_COLD bool departs_next_fast(const uint8_t *slot, const uint8_t *end,
					    uint64_t tick, uint32_t q)
{
	for (; slot < end; slot += 2 * PKTSTATS_SLOT_BYTES) {
		const uint32_t s = get32(slot);
		const uint32_t type = s >> PKTSTATS_SLOT_TYPE_SHIFT;

		if (type != PKTSTATS_EVENT_TIMESTAMP)
			return type == PKTSTATS_EVENT_DEPARTURE &&
			       (s >> PKTSTATS_SLOT_QUEUE_SHIFT & 7) == q &&
			       (s & PKTSTATS_SLOT_GAP_MASK) == 0;
		if (end - slot < 2 * PKTSTATS_SLOT_BYTES || timestamp_at(slot) != tick)
			return false;
	}
	return false;
}

/*
 * The slot loop, from slot 2 (slots 0..1 are the opening timestamp, already in start_tick).
 * `v1` and `output` are compile-time constants at each call site, so each variant is its own
 * tight loop (the summary one is the general variant, see above). Returns OK or the reason;
 * fills n_events/n_timestamps/first/last in packet.
 *
 * `acc` is the tick without the modulo: the loop-carried dependency is one add, and the
 * 2^62 mask is applied only where a tick is output. It cannot overflow: it starts below 2^62
 * and grows by less than 2^19 per slot, for fewer than 2^32 slots.
 */
static PKTSTATS_ALWAYS_INLINE enum pktstats_decode_error
decode_slots(const uint8_t *slots, uint32_t n_slots, const int v1, const enum slot_output output,
	     struct pktstats_packet *packet, struct pktstats_event *events,
	     size_t max_events, struct summary_work *w, struct sojourn_lists *lists)
{
	uint64_t acc = packet->start_tick;
	uint64_t first = acc, last = acc;
	uint32_t n = 0, n_ts = 1, i = 2;
	const uint64_t ns_per_tick = (uint64_t)PKTSTATS_CLOCK_NS << packet->resolution;
	int64_t occupancy[PKTSTATS_QUEUES];
	uint64_t base = acc, hw = acc; /* summary: the segment's start, the latest instant */
	struct sojourn_entry *list_end[SOJOURN_LISTS]; /* lists: where each list's next entry goes */
	uint32_t departures = 0;

	if (output == OUTPUT_EVENTS)
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
			occupancy[q] = packet->queue_size[q];
	if (output == OUTPUT_LISTS)
		for (unsigned k = 0; k < SOJOURN_LISTS; k++)
			list_end[k] = lists->list[k];

	while (i < n_slots) {
		/* The summary folds every CHUNK_SLOTS slots, which bounds its sums. */
		const uint32_t end = output == OUTPUT_SUMMARY && n_slots - i > CHUNK_SLOTS
				     ? i + CHUNK_SLOTS : n_slots;

		while (i < end) {
			const uint32_t s = get32(slots + (size_t)i * PKTSTATS_SLOT_BYTES);
			const uint32_t type = s >> PKTSTATS_SLOT_TYPE_SHIFT;

			if (UNLIKELY(type == PKTSTATS_EVENT_TIMESTAMP)) {
				if (i + 1 >= n_slots)
					return PKTSTATS_DECODE_CUT_TIMESTAMP;
				const uint64_t tick =
					timestamp_at(slots + (size_t)i * PKTSTATS_SLOT_BYTES);
				if (output == OUTPUT_SUMMARY && tick > hw) {
					/* a far jump ends the segment there: the sums stay small */
					if (tick - base >= FOLD_TICKS) {
						summary_fold(w, packet, base, tick);
						base = tick;
					}
					hw = tick;
				}
				acc = tick;
				n_ts++;
				i += 2;
				continue;
			}
			const uint32_t field = s & PKTSTATS_SLOT_GAP_MASK;
			if (v1) /* low 19 bits of the absolute tick: the next tick with them */
				acc += (field - (uint32_t)acc) & PKTSTATS_SLOT_GAP_MASK;
			else /* gap since the previous event */
				acc += field;
			if (n == 0)
				first = acc;
			last = acc;
			const uint32_t q = (s >> PKTSTATS_SLOT_QUEUE_SHIFT) & 7;
			const uint32_t length = (s >> PKTSTATS_SLOT_LENGTH_SHIFT) & 0xff;
			if (output == OUTPUT_EVENTS) {
				const uint64_t tick = acc & PKTSTATS_TIMESTAMP_MASK;

				occupancy[q] += event_sign[type] * (int64_t)length;
				if (n < max_events)
					events[n] = (struct pktstats_event){
						.tick = tick,
						.time_ns = tick * ns_per_tick, /* (tick << c) * 8 */
						.occupancy = occupancy[q],
						.slot = i,
						.type = (uint8_t)type,
						.queue = (uint8_t)q,
						.length = (uint8_t)length,
						.reserved = 0,
					};
			}
			if (output == OUTPUT_LISTS) {
				/* no branch on the type: a select for the rank, a table of lists */
				const uint32_t departure = type == PKTSTATS_EVENT_DEPARTURE;
				struct sojourn_entry *e = list_end[s >> PKTSTATS_SLOT_QUEUE_SHIFT]++;

				sojourn_entry_set(e, (acc & PKTSTATS_TIMESTAMP_MASK) * ns_per_tick,
						  departure ? departures : packet->sequence,
						  (uint8_t)length, (uint16_t)n);
				departures += departure;
			}
			if (output == OUTPUT_SUMMARY) {
				const uint32_t bin = s >> PKTSTATS_SLOT_QUEUE_SHIFT; /* type, q */
				struct summary_queue *sq = &w->queue[q];
				const int64_t delta = event_sign[type] * (int64_t)length;
				int64_t rel;

				hw = acc > hw ? acc : hw; /* time went back: it waits */
				w->histogram[bin] += UINT64_C(1) << 32 | length;
				sq->weighted += delta * (int64_t)(hw - base);
				rel = sq->rel + delta;
				sq->rel = rel;
				if (UNLIKELY(rel > sq->above) &&
				    !(type == PKTSTATS_EVENT_ARRIVAL &&
				      departs_next(slots, i + 1, n_slots, v1, acc, q))) {
					sq->above = rel;
					sq->max_at = acc;
					w->beaten |= 1u << q;
				}
			}
			n++;
			i++;
		}
		if (output == OUTPUT_SUMMARY) {
			summary_fold(w, packet, base, hw);
			base = hw;
		}
	}
	packet->n_events = n;
	packet->n_timestamps = n_ts;
	packet->first_tick = first & PKTSTATS_TIMESTAMP_MASK;
	packet->last_tick = last & PKTSTATS_TIMESTAMP_MASK;
	if (output == OUTPUT_SUMMARY)
		w->span_ticks = hw - packet->start_tick;
	if (output == OUTPUT_LISTS) {
		for (unsigned k = 0; k < SOJOURN_LISTS; k++)
			lists->n[k] = (uint32_t)(list_end[k] - lists->list[k]);
		lists->departures = departures;
	}
	if (n == 0 && !v1)
		return PKTSTATS_DECODE_NO_EVENTS;
	return PKTSTATS_DECODE_OK;
}

/* The tick of a packet's first short event (start_tick if none), from slot 2. */
static uint64_t first_event_tick(const uint8_t *slots, uint32_t n_slots, uint64_t start)
{
	uint64_t tick = start;

	for (uint32_t i = 2; i < n_slots; i += 2) {
		const uint32_t s = get32(slots + (size_t)i * PKTSTATS_SLOT_BYTES);

		if (s >> PKTSTATS_SLOT_TYPE_SHIFT != PKTSTATS_EVENT_TIMESTAMP)
			return (tick + (s & PKTSTATS_SLOT_GAP_MASK)) & PKTSTATS_TIMESTAMP_MASK;
		if (i + 1 >= n_slots)
			break;
		tick = timestamp_at(slots + (size_t)i * PKTSTATS_SLOT_BYTES);
	}
	return start;
}

/*
 * The fast summary loop (see "Summary" above): version 2, time never going back, at most
 * CHUNK_SLOTS slots, no jump of FOLD_TICKS or more. Everything per event is kept to the least:
 * t is the tick since the packet's start (one segment, no fold until the end), the sign comes
 * from a table by the event's type, and the number of events and the first one's tick are
 * worked out afterwards. rel and weighted are two arrays of the loop's own, copied to the work
 * at the end: as neighbours in one struct, gcc adds them as one 16-byte vector, which takes
 * six instructions more per event than two adds (12% of the loop's time, bench_decode_lib
 * --in-memory --per-queue). Returns OK, the reason the packet is malformed, or SUMMARY_RETRY.
 */
static enum pktstats_decode_error summarize_fast(const uint8_t *slots, uint32_t n_slots,
						 struct pktstats_packet *packet,
						 struct summary_work *w)
{
	const uint64_t start = packet->start_tick;
	const uint8_t *slot = slots + 2 * PKTSTATS_SLOT_BYTES;
	const uint8_t *const end = slots + (size_t)n_slots * PKTSTATS_SLOT_BYTES;
	const uint8_t *after_timestamp = slot; /* the slot after the last timestamp */
	uint64_t t = 0, last = 0;
	uint32_t n_ts = 1;
	int64_t rel[PKTSTATS_QUEUES] = {0}, weighted[PKTSTATS_QUEUES] = {0};

	if (n_slots > CHUNK_SLOTS)
		return SUMMARY_RETRY;
	while (slot < end) {
		const uint32_t s = get32(slot);

		if (UNLIKELY(s >> PKTSTATS_SLOT_TYPE_SHIFT == PKTSTATS_EVENT_TIMESTAMP)) {
			if (end - slot < 2 * PKTSTATS_SLOT_BYTES)
				return PKTSTATS_DECODE_CUT_TIMESTAMP;
			const uint64_t tick = timestamp_at(slot);
			if (tick < start + t || tick - start >= FOLD_TICKS)
				return SUMMARY_RETRY;
			if (slot != after_timestamp) /* an event came before: the last so far */
				last = t;
			t = tick - start;
			n_ts++;
			slot += 2 * PKTSTATS_SLOT_BYTES;
			after_timestamp = slot;
			continue;
		}
		const uint32_t bin = s >> PKTSTATS_SLOT_QUEUE_SHIFT, q = bin & 7;
		const uint64_t length = (s >> PKTSTATS_SLOT_LENGTH_SHIFT) & 0xff;

		slot += PKTSTATS_SLOT_BYTES;
		t += s & PKTSTATS_SLOT_GAP_MASK;
		w->histogram[bin] += length + (UINT64_C(1) << 32);
		const int64_t delta = event_sign[bin >> 3] * (int64_t)length;

		weighted[q] += delta * (int64_t)t;
		rel[q] += delta;
		if (UNLIKELY(rel[q] > w->queue[q].above) &&
		    !(bin >> 3 == PKTSTATS_EVENT_ARRIVAL &&
		      departs_next_fast(slot, end, start + t, q))) {
			w->queue[q].above = rel[q];
			w->queue[q].max_at = start + t;
			w->beaten |= 1u << q;
		}
	}
	if (after_timestamp != end) /* the packet ends with an event */
		last = t;
	packet->n_timestamps = n_ts;
	packet->n_events = n_slots - 2 * n_ts;
	packet->first_tick = first_event_tick(slots, n_slots, start);
	packet->last_tick = (start + last) & PKTSTATS_TIMESTAMP_MASK;
	if (packet->n_events == 0)
		return PKTSTATS_DECODE_NO_EVENTS;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		w->queue[q].rel = rel[q];
		w->queue[q].weighted = weighted[q];
	}
	summary_fold(w, packet, start, start + t);
	w->span_ticks = t;
	return PKTSTATS_DECODE_OK;
}

/* Summary mode: the fast loop, or the general one if it gave up. Commits the packet to the
 * summary if it decoded. */
static enum pktstats_decode_error summarize_slots(const uint8_t *slots, uint32_t n_slots,
						  const int v1, struct pktstats_packet *packet,
						  struct pktstats_summary *summary)
{
	struct summary_work work;
	enum pktstats_decode_error why = SUMMARY_RETRY;

	summary_work_init(&work, packet, summary);
	if (!v1)
		why = summarize_fast(slots, n_slots, packet, &work);
	if (why == SUMMARY_RETRY) {
		summary_work_init(&work, packet, summary);
		why = v1 ? decode_slots(slots, n_slots, 1, OUTPUT_SUMMARY, packet, NULL, 0, &work,
					NULL)
			 : decode_slots(slots, n_slots, 0, OUTPUT_SUMMARY, packet, NULL, 0, &work,
					NULL);
	}
	if (why == PKTSTATS_DECODE_OK)
		summary_commit(summary, packet, &work);
	return why;
}

/* The payload decoder behind the public functions: events, summary, lists or none (one at
 * most). */
static int decode_payload(const uint8_t *payload, size_t len,
			  const struct pktstats_decode_options *options,
			  struct pktstats_packet *packet, struct pktstats_event *events,
			  size_t max_events, size_t *n_events, struct pktstats_summary *summary,
			  struct sojourn_lists *lists, enum pktstats_decode_error *reason)
{
	struct pktstats_decode_options defaults;
	enum pktstats_decode_error why;
	unsigned version, resolution;
	size_t header, slot_bytes;
	const uint8_t *slots;
	uint32_t n_slots;

	if (n_events)
		*n_events = 0;
	if (reason)
		*reason = PKTSTATS_DECODE_OK;
	if (!packet || (!payload && len))
		return -EINVAL;
	if (!options) {
		pktstats_decode_default_options(&defaults);
		options = &defaults;
	}
	if (options->v1_resolution > PKTSTATS_RESOLUTION_MAX)
		return -EINVAL;
	memset(packet, 0, sizeof(*packet));
	if (!events)
		max_events = 0;
	if (lists)
		lists->filled = false;

	/* Header. packet->version is set last: nonzero means the header fields are valid. */
	if (len < 1) {
		why = PKTSTATS_DECODE_TRUNCATED;
		goto bad;
	}
	version = payload[0] & PKTSTATS_VERSION_MASK;
	if (version == PKTSTATS_FORMAT_VERSION) {
		header = V2_HEADER;
		resolution = (payload[0] & PKTSTATS_RESOLUTION_MASK) >> PKTSTATS_RESOLUTION_SHIFT;
	} else if (version == PKTSTATS_FORMAT_VERSION_1 && options->accept_v1) {
		header = V1_HEADER;
		resolution = options->v1_resolution;
	} else {
		why = PKTSTATS_DECODE_BAD_VERSION;
		goto bad;
	}
	if (len < header) {
		why = PKTSTATS_DECODE_TRUNCATED;
		goto bad;
	}
	if (payload[1] != PKTSTATS_EVENT_TYPES) {
		why = PKTSTATS_DECODE_BAD_EVENT_TYPES;
		goto bad;
	}
	slot_bytes = len - header;
#if SIZE_MAX > UINT32_MAX
	if (slot_bytes / PKTSTATS_SLOT_BYTES > UINT32_MAX)
		return -EINVAL; /* > 16 GiB: not a payload */
#endif
	packet->resolution = (uint8_t)resolution;
	packet->event_types = payload[1];
	packet->sequence = get32(payload + 2);
	if (version == PKTSTATS_FORMAT_VERSION) {
		packet->missed = (payload[0] & PKTSTATS_FLAG_MISSED) != 0;
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
			packet->queue_size[q] = get32(payload + 6 + 4 * q);
	} else {
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
			packet->queue_size[q] = get32(payload + 6 + 8 * q);
			packet->queue_packets[q] = get32(payload + 10 + 8 * q);
		}
	}
	n_slots = (uint32_t)(slot_bytes / PKTSTATS_SLOT_BYTES);
	packet->n_slots = n_slots;
	packet->version = (uint8_t)version;

	/* Slots. */
	if (slot_bytes % PKTSTATS_SLOT_BYTES) {
		why = PKTSTATS_DECODE_PARTIAL_SLOT;
		goto bad;
	}
	if (n_slots == 0) {
		why = PKTSTATS_DECODE_NO_EVENTS;
		goto bad;
	}
	slots = payload + header;
	if ((slots[0] >> 6) != PKTSTATS_EVENT_TIMESTAMP) {
		why = PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP;
		goto bad;
	}
	if (n_slots < 2) {
		why = PKTSTATS_DECODE_CUT_TIMESTAMP;
		goto bad;
	}
	packet->start_tick = timestamp_at(slots);

	if (summary) {
		why = summarize_slots(slots, n_slots, version == PKTSTATS_FORMAT_VERSION_1, packet,
				      summary);
	} else if (lists && n_slots - 2 <= lists->capacity) {
		why = version == PKTSTATS_FORMAT_VERSION
			? decode_slots(slots, n_slots, 0, OUTPUT_LISTS, packet, NULL, 0, NULL, lists)
			: decode_slots(slots, n_slots, 1, OUTPUT_LISTS, packet, NULL, 0, NULL, lists);
		lists->filled = why == PKTSTATS_DECODE_OK;
	} else if (version == PKTSTATS_FORMAT_VERSION) {
		why = events ? decode_slots(slots, n_slots, 0, OUTPUT_EVENTS, packet, events,
					    max_events, NULL, NULL)
			     : decode_slots(slots, n_slots, 0, OUTPUT_NONE, packet, NULL, 0, NULL,
					    NULL);
	} else {
		why = events ? decode_slots(slots, n_slots, 1, OUTPUT_EVENTS, packet, events,
					    max_events, NULL, NULL)
			     : decode_slots(slots, n_slots, 1, OUTPUT_NONE, packet, NULL, 0, NULL,
					    NULL);
	}
	if (why != PKTSTATS_DECODE_OK)
		goto bad;
	if (lists) { /* every event is in the lists, or (too many) none is */
		if (n_events)
			*n_events = packet->n_events;
		return 0;
	}

	if (packet->n_events > max_events) {
		if (n_events)
			*n_events = max_events;
		return events ? -ENOSPC : 0;
	}
	if (n_events)
		*n_events = packet->n_events;
	return 0;

bad:
	if (reason)
		*reason = why;
	return -EBADMSG;
}

int pktstats_decode_payload_ex(const uint8_t *payload, size_t len,
			       const struct pktstats_decode_options *options,
			       struct pktstats_packet *packet, struct pktstats_event *events,
			       size_t max_events, size_t *n_events,
			       enum pktstats_decode_error *reason)
{
	return decode_payload(payload, len, options, packet, events, max_events, n_events, NULL,
			      NULL, reason);
}

int pktstats_decode_payload_summary(const uint8_t *payload, size_t len,
				    const struct pktstats_decode_options *options,
				    struct pktstats_packet *packet,
				    struct pktstats_summary *summary,
				    enum pktstats_decode_error *reason)
{
	if (!summary) {
		if (reason)
			*reason = PKTSTATS_DECODE_OK;
		return -EINVAL;
	}
	return decode_payload(payload, len, options, packet, NULL, 0, NULL, summary, NULL, reason);
}

int pktstats_decode_payload(const uint8_t *payload, size_t len, struct pktstats_packet *packet,
			    struct pktstats_event *events, size_t max_events, size_t *n_events,
			    enum pktstats_decode_error *reason)
{
	return pktstats_decode_payload_ex(payload, len, NULL, packet, events, max_events,
					  n_events, reason);
}

/* ---------------------------------------------------------------------------------------- */
/* Stream                                                                                     */

void pktstats_stream_default_options(struct pktstats_stream_options *options)
{
	if (!options)
		return;
	options->udp_port = PKTSTATS_UDP_PORT;
	pktstats_decode_default_options(&options->decode);
}

int pktstats_stream_init(struct pktstats_stream *stream,
			 const struct pktstats_stream_options *options)
{
	if (!stream)
		return -EINVAL;
	if (options && options->decode.v1_resolution > PKTSTATS_RESOLUTION_MAX)
		return -EINVAL;
	memset(stream, 0, sizeof(*stream));
	if (options)
		stream->options = *options;
	else
		pktstats_stream_default_options(&stream->options);
	return 0;
}

/* Index of the source ip:port, created if new; -1 if the table is full. */
static int find_source(struct pktstats_stream *stream, uint32_t ip, uint16_t port)
{
	struct pktstats_source *src;
	unsigned i = stream->last_source;

	if (i < stream->n_sources && stream->sources[i].ip == ip && stream->sources[i].port == port)
		return (int)i;
	for (i = 0; i < stream->n_sources; i++) {
		if (stream->sources[i].ip == ip && stream->sources[i].port == port) {
			stream->last_source = i;
			return (int)i;
		}
	}
	if (stream->n_sources >= PKTSTATS_STREAM_MAX_SOURCES)
		return -1;
	i = stream->n_sources++;
	src = &stream->sources[i];
	memset(src, 0, sizeof(*src));
	src->ip = ip;
	src->port = port;
	stream->last_source = i;
	return (int)i;
}

/* Adds `delta` to a source's counters (if any) and to the totals. */
static void count(struct pktstats_stream *stream, struct pktstats_source *src,
		  const struct pktstats_stream_counters *delta)
{
	struct pktstats_stream_counters *c[2] = {&stream->total, src ? &src->counters : NULL};

	for (int k = 0; k < 2; k++) {
		if (!c[k])
			continue;
		c[k]->packets += delta->packets;
		c[k]->events += delta->events;
		c[k]->malformed += delta->malformed;
		c[k]->lost += delta->lost;
		c[k]->gaps += delta->gaps;
		c[k]->resets += delta->resets;
		c[k]->reordered += delta->reordered;
		c[k]->duplicates += delta->duplicates;
		c[k]->missed_flags += delta->missed_flags;
	}
}

#define WINDOW_ALL UINT64_MAX

/* Sequence tracking for one packet whose header decoded. */
static void track(struct pktstats_stream *stream, struct pktstats_source *src, uint32_t seq,
		  struct pktstats_stream_result *result)
{
	struct pktstats_stream_counters delta = {0};
	uint32_t ahead, behind;

	if (!src->synced) {
		/* Whatever came before is unknown: not lost; older numbers count as seen. */
		src->synced = true;
		src->expected = seq + 1;
		src->window = WINDOW_ALL;
		result->seq_status = PKTSTATS_SEQ_FIRST;
		return;
	}
	result->expected = src->expected;
	ahead = seq - src->expected; /* modulo 2^32: the wrap from 0xffffffff to 0 is in order */
	behind = src->expected - seq;
	if (seq == src->expected) {
		src->window = src->window << 1 | 1;
		src->expected = seq + 1;
		result->seq_status = PKTSTATS_SEQ_IN_ORDER;
	} else if (ahead < UINT32_C(0x80000000) &&
		   (seq != 0 || ahead <= PKTSTATS_STREAM_REORDER_WINDOW)) {
		/* Ahead. Sequence 0 is a reset, unless it is a small gap across the wrap. */
		uint32_t shift = ahead + 1;

		src->window = shift >= 64 ? 1 : src->window << shift | 1;
		src->expected = seq + 1;
		result->seq_status = PKTSTATS_SEQ_GAP;
		result->lost = ahead;
		delta.lost = ahead;
		delta.gaps = 1;
	} else if (seq != 0 && behind <= PKTSTATS_STREAM_REORDER_WINDOW) {
		uint64_t bit = UINT64_C(1) << (behind - 1);

		if (src->window & bit) {
			result->seq_status = PKTSTATS_SEQ_DUPLICATE;
			delta.duplicates = 1;
		} else {
			/* Its number was counted as lost when the gap was seen. */
			src->window |= bit;
			result->seq_status = PKTSTATS_SEQ_REORDERED;
			delta.reordered = 1;
			if (src->counters.lost > 0 && stream->total.lost > 0) {
				src->counters.lost--;
				stream->total.lost--;
			}
		}
	} else {
		/* 0 while something else was expected, or far behind: capture restarted. */
		src->expected = seq + 1;
		src->window = WINDOW_ALL;
		result->seq_status = PKTSTATS_SEQ_RESET;
		delta.resets = 1;
	}
	count(stream, src, &delta);
}

static int feed(struct pktstats_stream *stream, uint32_t src_ip, uint16_t src_port,
		const uint8_t *payload, size_t len, struct pktstats_event *events,
		size_t max_events, struct pktstats_summary *summary, struct sojourn_lists *lists,
		struct pktstats_stream_result *result)
{
	struct pktstats_stream_counters delta = {0};
	struct pktstats_source *src = NULL;
	int r, i;

	r = decode_payload(payload, len, &stream->options.decode, &result->packet, events,
			   max_events, &result->n_events, summary, lists, &result->reason);
	if (r != 0 && r != -EBADMSG && r != -ENOSPC)
		return r;
	i = find_source(stream, src_ip, src_port);
	result->source = i;
	if (i >= 0)
		src = &stream->sources[i];
	if (r == -EBADMSG) {
		delta.malformed = 1;
	} else {
		delta.packets = 1;
		delta.events = result->packet.n_events;
	}
	if (result->packet.version != 0) {
		if (result->packet.missed)
			delta.missed_flags = 1;
		if (src)
			track(stream, src, result->packet.sequence, result);
		else
			stream->untracked++;
	}
	count(stream, src, &delta);
	return r;
}

static void result_reset(struct pktstats_stream_result *result)
{
	memset(result, 0, sizeof(*result));
	result->source = -1;
}

/* Frame parsing and the port filter, then feed(). */
static int feed_frame(struct pktstats_stream *stream, const uint8_t *frame, size_t len,
		      struct pktstats_event *events, size_t max_events,
		      struct pktstats_summary *summary, struct sojourn_lists *lists,
		      struct pktstats_stream_result *result)
{
	struct pktstats_stream_counters delta = {0};
	uint16_t port;
	int r;

	if (!stream || !result)
		return -EINVAL;
	result_reset(result);
	if (!frame)
		return -EINVAL;
	stream->frames++;
	port = stream->options.udp_port;
	r = pktstats_parse_frame(frame, len, &result->frame);
	if (r < 0) {
		result->reason = result->frame.reason;
		if (result->reason == PKTSTATS_DECODE_NOT_IPV4 ||
		    result->reason == PKTSTATS_DECODE_NOT_UDP ||
		    result->reason == PKTSTATS_DECODE_FRAGMENT) {
			stream->ignored++;
			return -ENOMSG;
		}
		/* With a port filter, a broken frame is ours only if its port was readable and
		 * matches. */
		if (port != 0 && result->frame.dst_port != port) {
			stream->ignored++;
			return -ENOMSG;
		}
		delta.malformed = 1;
		count(stream, NULL, &delta);
		return -EBADMSG;
	}
	if (port != 0 && result->frame.dst_port != port) {
		result->reason = PKTSTATS_DECODE_OTHER_PORT;
		stream->ignored++;
		return -ENOMSG;
	}
	return feed(stream, result->frame.src_ip, result->frame.src_port, result->frame.payload,
		    result->frame.payload_len, events, max_events, summary, lists, result);
}

int pktstats_stream_feed_frame(struct pktstats_stream *stream, const uint8_t *frame, size_t len,
			       struct pktstats_event *events, size_t max_events,
			       struct pktstats_stream_result *result)
{
	return feed_frame(stream, frame, len, events, max_events, NULL, NULL, result);
}

int pktstats_stream_feed_frame_summary(struct pktstats_stream *stream, const uint8_t *frame,
				       size_t len, struct pktstats_summary *summary,
				       struct pktstats_stream_result *result)
{
	if (!summary) {
		if (result)
			result_reset(result);
		return -EINVAL;
	}
	return feed_frame(stream, frame, len, NULL, 0, summary, NULL, result);
}

int pktstats_stream_feed_payload(struct pktstats_stream *stream, uint32_t src_ip,
				 uint16_t src_port, const uint8_t *payload, size_t len,
				 struct pktstats_event *events, size_t max_events,
				 struct pktstats_stream_result *result)
{
	if (!stream || !result)
		return -EINVAL;
	result_reset(result);
	if (!payload && len)
		return -EINVAL;
	stream->frames++;
	return feed(stream, src_ip, src_port, payload, len, events, max_events, NULL, NULL, result);
}

int pktstats_stream_feed_frame_lists(struct pktstats_stream *stream, const uint8_t *frame,
				     size_t len, struct sojourn_lists *lists,
				     struct pktstats_stream_result *result)
{
	if (lists)
		lists->filled = false;
	if (!lists || lists->capacity > UINT16_MAX + 1u) {
		if (result)
			result_reset(result);
		return -EINVAL;
	}
	return feed_frame(stream, frame, len, NULL, 0, NULL, lists, result);
}
