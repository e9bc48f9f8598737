/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Clock-by-clock reference model of the event-capture block (evcap_core), written from
 * docs/evcap-architecture.md alone. A harness compares it with the RTL in every clock, so every
 * register of the document has a twin here and changes in the same clock.
 *
 * Structure
 *
 *   intake stage 0 -> stage 1 -> record FIFO -> serializer + packer -> ring FIFO  -> packet output
 *                                                      \-----------> descriptor FIFO -/
 *
 * The model state (struct evcap_model) holds exactly the registers and RAMs of the block. One
 * call of evcap_model_step is one clock edge, done in two phases, like the RTL's _next/_reg
 * pairs:
 *
 *   1. evaluate: each stage reads only the current state and this clock's inputs and writes its
 *      next values and its FIFO requests (push with data, pop) into struct evcap_next;
 *   2. commit: the FIFOs, then all registers, take their next values at once.
 *
 * So no stage sees another stage's update of the same clock, whatever order the stages are
 * evaluated in. The only next values written outside struct evcap_next are those of the intake
 * stage-1 register, which is double-buffered (the next buffer is read by nobody until the
 * commit flips it), to avoid copying a record every clock.
 *
 * Each FIFO is the document's evcap_fifo: a RAM of DEPTH entries with wr_ptr/rd_ptr of
 * DEPTH_LOG2 + 1 bits, and one output register (m_valid, m_data). The control (struct
 * evcap_fifo) is shared; each FIFO keeps its own typed RAM and output register, and the commit
 * copies the entries that the control says were written or loaded.
 *
 * evcap_model_outputs depends only on the state, as the RTL's registered outputs do: the
 * header words are prepared in the PREPARE cycle, and the data words are the ring's output
 * register. When tvalid is 0, tdata, tkeep and tlast are 0; tuser is always the port mask
 * latched with the last descriptor.
 *
 * Byte order: the ring holds slots as the document's packer writes them, {second, first}, the
 * first slot in bits 31:0. The stream must carry byte k of the frame in tdata[8k+7:8k] with
 * each slot's most significant byte first, so the output swaps the bytes within each 32-bit
 * half of a ring word. Header words are built in that stream order directly.
 *
 * Per clock, the cost is a few copies of small structures plus, when a record is written or
 * loaded, one record copy: no allocation and no scan of a RAM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pktstats/evcap_model.h"

#define EVCAP_EVENT_BITS (PKTSTATS_QUEUES * PKTSTATS_EVENT_TYPES)
#define EVCAP_HEADER_WORDS (PKTSTATS_EVENTS_OFFSET / 8)
#define EVCAP_GAP_LIMIT (UINT64_C(1) << PKTSTATS_SLOT_GAP_BITS)
#define EVCAP_RESOLUTION_BITS 0x7u
#define EVCAP_EVENT_MASK_BITS 0x7u
#define EVCAP_DEPTH_LOG2_MAX 16
#define EVCAP_RING_DEPTH_LOG2_MIN 11

/* One record of the record FIFO: everything the intake saw in one clock. */
struct evcap_record {
	uint64_t tick;
	uint32_t events;	/* bit 3 * q + t */
	uint8_t resolution;
	bool close_before;
	bool seq_reset;
	bool missed_before;
	uint8_t length[EVCAP_EVENT_BITS];	/* min(length, 255), indexed like events */
	uint32_t occupancy[PKTSTATS_QUEUES];		/* before the clock's events */
	uint32_t occupancy_after[PKTSTATS_QUEUES];	/* the inputs one clock later */
};

/*
 * Intake stage-1 register. record.close_before and record.seq_reset hold the `close` and
 * `seq_reset` markers of stage 0; the pending flags are merged in when the record is written.
 */
struct evcap_stage1 {
	struct evcap_record record;
	uint64_t cycle;	/* input cycle, for the miss observer */
};

struct evcap_descriptor {
	uint32_t seq;
	uint16_t n_slots;
	uint16_t n_events;
	bool m_flag;
	uint8_t resolution;
	uint32_t snapshot[PKTSTATS_QUEUES];
};

struct evcap_fifo {
	uint32_t wr_ptr;	/* DEPTH_LOG2 + 1 bits */
	uint32_t rd_ptr;
	uint32_t ptr_mask;	/* 2 * DEPTH - 1 */
	uint32_t depth;
	bool m_valid;
};

/* What one clock edge did to a FIFO's RAM, for the caller to move the data. */
struct evcap_fifo_edge {
	bool write;
	bool load;
	uint32_t write_index;
	uint32_t load_index;
};

struct evcap_serializer {
	bool open;
	bool head_prepared;
	bool ts_owed;
	bool m_flag;
	bool half_valid;	/* packer: one slot waiting for its partner */
	uint8_t packet_resolution;
	uint16_t used;
	uint16_t max_slots;
	uint16_t n_events;
	uint32_t age;
	uint32_t seq;
	uint32_t done;
	uint32_t half;
	uint64_t prev_tick;
	uint32_t snapshot[PKTSTATS_QUEUES];
};

enum evcap_output_state {
	EVCAP_OUT_IDLE,
	EVCAP_OUT_PREPARE,
	EVCAP_OUT_HEADER,
	EVCAP_OUT_DATA,
};

struct evcap_output_control {
	enum evcap_output_state state;
	unsigned header_word;	/* 0..9 in HEADER */
	uint32_t data_left;	/* words still to send in DATA */
};

/* What the packet output latches in IDLE: a descriptor and the header registers. */
struct evcap_output_packet {
	struct evcap_descriptor descriptor;
	uint64_t destination_mac;
	uint64_t source_mac;
	uint32_t source_ip;
	uint32_t destination_ip;
	uint8_t tos;
	uint8_t ttl;
	uint16_t udp_source_port;
	uint16_t udp_destination_port;
	uint8_t output_ports;
};

struct evcap_model {
	struct evcap_model_params params;
	uint32_t occupancy_mask;
	uint64_t cycle;	/* evcap_model_step calls so far */
	uint64_t timer;

	/* intake stage 0: the configuration of the previous cycle */
	bool enable_prev;
	uint8_t resolution_prev;
	uint8_t queue_mask_prev;
	uint8_t event_mask_prev;

	/* intake stage 1 */
	struct evcap_stage1 stage1[2];
	unsigned stage1_current;
	bool pend_close;
	bool pend_seq_reset;
	bool pend_missed;

	struct evcap_fifo record_fifo;
	struct evcap_record *record_ram;
	struct evcap_record record_head;	/* output register */

	struct evcap_serializer serializer;

	struct evcap_fifo ring_fifo;
	uint64_t *ring_ram;	/* {second slot, first slot} */
	uint64_t ring_head;

	struct evcap_fifo descriptor_fifo;
	struct evcap_descriptor *descriptor_ram;
	struct evcap_descriptor descriptor_head;

	struct evcap_output_control output;
	struct evcap_output_packet packet;
	uint64_t header_words[EVCAP_HEADER_WORDS];	/* stream byte order */

	uint64_t events_missed;
	uint64_t events_sent;
	uint64_t packets_sent;

	evcap_model_miss_fn miss_fn;
	void *miss_context;
};

/* The next values of one clock (phase 1), committed by evcap_model_step (phase 2). */
struct evcap_next {
	uint64_t timer;

	/* intake stage 1 */
	bool pend_close;
	bool pend_seq_reset;
	bool pend_missed;
	bool record_push;
	bool record_close_before;
	bool record_seq_reset;
	bool record_missed_before;
	uint32_t missed_events;	/* the record dropped in this clock, 0 if none */

	/* serializer */
	struct evcap_serializer serializer;
	bool record_pop;
	bool ring_push;
	uint64_t ring_word;
	bool descriptor_push;
	struct evcap_descriptor descriptor;

	/* packet output */
	struct evcap_output_control output;
	bool ring_pop;
	bool descriptor_pop;
	bool latch_packet;
	struct evcap_output_packet packet;
	bool prepare_header;
	uint64_t header_words[EVCAP_HEADER_WORDS];
	bool packet_sent;
	uint32_t sent_events;
};

enum evcap_action {
	EVCAP_IDLE,
	EVCAP_WAIT,	/* an action waiting for room: only `age` moves */
	EVCAP_CLOSE,
	EVCAP_POP,
	EVCAP_TIMESTAMP,
	EVCAP_EVENTS,
};

/* ---- common FIFO ---- */

static void fifo_init(struct evcap_fifo *fifo, unsigned depth_log2)
{
	fifo->depth = UINT32_C(1) << depth_log2;
	fifo->ptr_mask = 2 * fifo->depth - 1;
	fifo->wr_ptr = 0;
	fifo->rd_ptr = 0;
	fifo->m_valid = false;
}

static inline uint32_t fifo_level(const struct evcap_fifo *fifo)
{
	return (fifo->wr_ptr - fifo->rd_ptr) & fifo->ptr_mask;
}

static inline bool fifo_full(const struct evcap_fifo *fifo)
{
	return fifo_level(fifo) == fifo->depth;
}

/*
 * One clock edge, both sides evaluated with the pointers before the edge. When both a write and
 * a load happen, 0 < level < DEPTH, so they touch different RAM entries and the caller may move
 * the data in either order.
 */
static inline struct evcap_fifo_edge fifo_clock(struct evcap_fifo *fifo, bool s_valid,
						bool m_ready)
{
	uint32_t level = fifo_level(fifo);
	struct evcap_fifo_edge edge = { 0 };

	if (s_valid && level != fifo->depth) {
		edge.write = true;
		edge.write_index = fifo->wr_ptr & (fifo->depth - 1);
		fifo->wr_ptr = (fifo->wr_ptr + 1) & fifo->ptr_mask;
	}
	if (level != 0 && (!fifo->m_valid || m_ready)) {
		edge.load = true;
		edge.load_index = fifo->rd_ptr & (fifo->depth - 1);
		fifo->rd_ptr = (fifo->rd_ptr + 1) & fifo->ptr_mask;
		fifo->m_valid = true;
	} else if (m_ready) {
		fifo->m_valid = false;
	}
	return edge;
}

/* ---- intake ---- */

/* Queue bit q of a strobe byte to event bit 3 * q (the event type adds 0, 1 or 2). */
static inline uint32_t spread_queues(uint8_t strobes)
{
	uint32_t x = strobes;

	x = (x | x << 8) & 0x00f00fu;
	x = (x | x << 4) & 0x0c30c3u;
	x = (x | x << 2) & 0x249249u;
	return x;
}

/* Stage 0: this clock's inputs into the next stage-1 register. */
static void intake_stage0_eval(const struct evcap_model *m, const struct evcap_model_config *config,
			       const struct evcap_model_inputs *in, struct evcap_stage1 *next)
{
	struct evcap_record *record = &next->record;
	bool enable = config->enable;
	uint8_t resolution = config->resolution & EVCAP_RESOLUTION_BITS;
	uint8_t event_mask = config->event_mask & EVCAP_EVENT_MASK_BITS;
	uint32_t events = 0;
	unsigned q;

	if (enable) {
		uint8_t arrival = (event_mask & 1) ? in->arrival & config->queue_mask : 0;
		uint8_t departure = (event_mask & 2) ? in->departure & config->queue_mask : 0;
		uint8_t drop = (event_mask & 4) ? in->drop & config->queue_mask : 0;

		events = spread_queues(arrival) | spread_queues(departure) << 1 |
			 spread_queues(drop) << 2;
	}

	/* Lengths of the captured bits only: the others are never read. */
	for (uint32_t left = events; left; left &= left - 1) {
		unsigned bit = (unsigned)__builtin_ctz(left);
		unsigned queue = bit / 3;
		uint16_t length;

		switch (bit % 3) {
		case 0:
			length = in->arrival_length[queue];
			break;
		case 1:
			length = in->departure_length[queue];
			break;
		default:
			length = in->drop_length[queue];
			break;
		}
		record->length[bit] = length > PKTSTATS_SLOT_LENGTH_MAX ?
				      PKTSTATS_SLOT_LENGTH_MAX : (uint8_t)length;
	}

	record->events = events;
	record->tick = (m->timer >> resolution) & PKTSTATS_TIMESTAMP_MASK;
	record->resolution = resolution;
	record->close_before = (enable && (resolution != m->resolution_prev ||
					   config->queue_mask != m->queue_mask_prev ||
					   event_mask != m->event_mask_prev || in->flush)) ||
			       (m->enable_prev && !enable);
	record->seq_reset = enable && !m->enable_prev;
	record->missed_before = false;
	for (q = 0; q < PKTSTATS_QUEUES; q++)
		record->occupancy[q] = in->occupancy[q] & m->occupancy_mask;
	next->cycle = m->cycle;
}

/* Stage 1: write the registered record, or keep its markers pending and count its events. */
static void intake_stage1_eval(const struct evcap_model *m, struct evcap_next *next)
{
	const struct evcap_stage1 *stage1 = &m->stage1[m->stage1_current];
	const struct evcap_record *record = &stage1->record;
	bool want = record->events || record->close_before || record->seq_reset ||
		    m->pend_close || m->pend_seq_reset;

	next->record_push = false;
	next->record_close_before = false;
	next->record_seq_reset = false;
	next->record_missed_before = false;
	next->missed_events = 0;
	next->pend_close = m->pend_close;
	next->pend_seq_reset = m->pend_seq_reset;
	next->pend_missed = m->pend_missed;

	if (want && !fifo_full(&m->record_fifo)) {
		next->record_push = true;
		next->record_close_before = record->close_before || m->pend_close;
		next->record_seq_reset = record->seq_reset || m->pend_seq_reset;
		next->record_missed_before = m->pend_missed;
		next->pend_close = false;
		next->pend_seq_reset = false;
		next->pend_missed = false;
	} else if (want) {
		next->pend_close = m->pend_close || record->close_before;
		next->pend_seq_reset = m->pend_seq_reset || record->seq_reset;
		if (record->events) {
			next->missed_events = record->events;
			next->pend_missed = true;
		}
	}
}

/* ---- serializer and packer ---- */

static inline uint32_t short_slot(unsigned bit, uint8_t length, uint32_t gap)
{
	uint32_t type = bit % 3 + 1;
	uint32_t queue = bit / 3;

	return type << PKTSTATS_SLOT_TYPE_SHIFT | queue << PKTSTATS_SLOT_QUEUE_SHIFT |
	       (uint32_t)length << PKTSTATS_SLOT_LENGTH_SHIFT | gap;
}

static inline uint64_t ring_word(uint32_t second, uint32_t first)
{
	return (uint64_t)second << 32 | first;
}

/* The packer: slots fill ring words in order, the first one in bits 31:0. */
static void pack_one(const struct evcap_serializer *ser, struct evcap_serializer *n,
		     struct evcap_next *next, uint32_t slot)
{
	if (ser->half_valid) {
		next->ring_push = true;
		next->ring_word = ring_word(slot, ser->half);
		n->half_valid = false;
	} else {
		n->half = slot;
		n->half_valid = true;
	}
}

static void pack_two(const struct evcap_serializer *ser, struct evcap_serializer *n,
		     struct evcap_next *next, uint32_t a, uint32_t b)
{
	next->ring_push = true;
	if (ser->half_valid) {
		next->ring_word = ring_word(a, ser->half);
		n->half = b;
	} else {
		next->ring_word = ring_word(b, a);
	}
}

static unsigned max_slots_of(uint16_t max_length)
{
	unsigned length = max_length;

	if (length < PKTSTATS_MAX_LENGTH_MIN)
		length = PKTSTATS_MAX_LENGTH_MIN;
	if (length > PKTSTATS_MAX_LENGTH_MAX)
		length = PKTSTATS_MAX_LENGTH_MAX;
	return (length - PKTSTATS_IP_OVERHEAD) >> 2;
}

/* The event bits of the queue that event bit `bit` belongs to: one queue's events of a clock
 * (its group) never straddle two packets. */
static inline uint32_t group_mask(unsigned bit)
{
	return UINT32_C(7) << (bit / 3 * 3);
}

/* Rule 3 of the serializer's choice, for a valid head: room for a timestamp and the rest of
 * the first event's group, or for the rest of a group that starts. */
static enum evcap_action choose_for_head(const struct evcap_serializer *ser,
					 const struct evcap_record *head, uint64_t gap)
{
	uint32_t left = head->events & ~ser->done;
	unsigned e1, rest1;
	bool needs_ts;

	if (!head->events)
		return EVCAP_POP;
	e1 = (unsigned)__builtin_ctz(left);
	rest1 = (unsigned)__builtin_popcount(left & group_mask(e1));
	needs_ts = !ser->open || gap >= EVCAP_GAP_LIMIT;
	if (needs_ts)
		return ser->open && ser->used + 2u + rest1 > ser->max_slots ? EVCAP_CLOSE
									   : EVCAP_TIMESTAMP;
	if (!(ser->done & group_mask(e1)) && ser->used + rest1 > ser->max_slots)
		return EVCAP_CLOSE;
	return EVCAP_EVENTS;
}

static void serializer_eval(const struct evcap_model *m, const struct evcap_model_config *config,
			    struct evcap_next *next)
{
	const struct evcap_serializer *ser = &m->serializer;
	const struct evcap_record *head = &m->record_head;
	bool head_valid = m->record_fifo.m_valid;
	struct evcap_serializer *n = &next->serializer;
	enum evcap_action action = EVCAP_IDLE;
	uint64_t gap = 0;

	*n = *ser;
	next->record_pop = false;
	next->ring_push = false;
	next->descriptor_push = false;

	if (head_valid)
		gap = (head->tick - ser->prev_tick) & PKTSTATS_TIMESTAMP_MASK;

	/* Rule 1: the flush timeout, never between a timestamp and the event it was written for,
	 * nor inside a queue's events of one clock (a group). */
	bool mid_group = false;
	if (head_valid && (head->events & ~ser->done)) {
		unsigned e1 = (unsigned)__builtin_ctz(head->events & ~ser->done);
		mid_group = (ser->done & group_mask(e1)) != 0;
	}
	if (ser->open && !ser->ts_owed && !mid_group && config->flush_timeout != 0 &&
	    ser->age >= config->flush_timeout)
		action = EVCAP_CLOSE;
	/* Rule 2: a marker or a new meaning closes the packet before the head enters it. */
	else if (head_valid && !ser->head_prepared && ser->open &&
		 (head->close_before || head->seq_reset ||
		  head->resolution != ser->packet_resolution))
		action = EVCAP_CLOSE;
	else if (head_valid)
		action = choose_for_head(ser, head, gap);

	/* A waiting action is chosen again in the next clock; meanwhile only age moves. */
	if (action != EVCAP_IDLE &&
	    (fifo_full(&m->ring_fifo) ||
	     (action == EVCAP_CLOSE && fifo_full(&m->descriptor_fifo))))
		action = EVCAP_WAIT;

	/* Flags are applied with the first action on the head that is not a CLOSE. */
	if ((action == EVCAP_POP || action == EVCAP_TIMESTAMP || action == EVCAP_EVENTS) &&
	    !ser->head_prepared) {
		if (head->seq_reset) {
			n->seq = 0;
			n->m_flag = false;
		}
		if (head->missed_before)
			n->m_flag = true;
		n->head_prepared = true;
	}

	switch (action) {
	case EVCAP_IDLE:
	case EVCAP_WAIT:
		break;
	case EVCAP_CLOSE: {
		struct evcap_descriptor *d = &next->descriptor;

		next->descriptor_push = true;
		d->seq = ser->seq;
		d->n_slots = ser->used;
		d->n_events = ser->n_events;
		d->m_flag = ser->m_flag;
		d->resolution = ser->packet_resolution;
		memcpy(d->snapshot, ser->snapshot, sizeof(d->snapshot));
		if (ser->half_valid) {
			next->ring_push = true;
			next->ring_word = ring_word(0, ser->half);
			n->half_valid = false;
		}
		n->seq = ser->seq + 1;
		n->m_flag = false;
		n->open = false;
		break;
	}
	case EVCAP_POP:
		next->record_pop = true;
		n->head_prepared = false;
		n->done = 0;
		break;
	case EVCAP_TIMESTAMP:
		pack_two(ser, n, next, (uint32_t)(head->tick >> 32) & 0x3fffffffu,
			 (uint32_t)head->tick);
		if (!ser->open) {
			n->open = true;
			n->used = 2;
			n->n_events = 0;
			n->max_slots = (uint16_t)max_slots_of(config->max_length);
			/* Opening mid-record: queues whose events went into the previous packet
			 * are counted after the clock. */
			for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
				n->snapshot[q] = ser->done & group_mask(3 * q) ?
						 head->occupancy_after[q] : head->occupancy[q];
			n->packet_resolution = head->resolution;
		} else {
			n->used = ser->used + 2;
		}
		n->prev_tick = head->tick;
		n->ts_owed = true;
		break;
	case EVCAP_EVENTS: {
		uint32_t left = head->events & ~ser->done;
		unsigned e1 = (unsigned)__builtin_ctz(left);
		uint32_t rest = left & (left - 1);
		uint32_t slot1 = short_slot(e1, head->length[e1], (uint32_t)gap);
		uint32_t emitted = UINT32_C(1) << e1;
		unsigned count = 1;

		unsigned e2 = rest ? (unsigned)__builtin_ctz(rest) : 0;

		/* The second event of the clock if it is in e1's group (room was made for the
		 * group) or its own group fits too; it follows at gap 0. */
		if (rest && ((group_mask(e1) >> e2) & 1 ||
			     ser->used + 1u + (unsigned)__builtin_popcount(rest & group_mask(e2)) <=
				     ser->max_slots)) {
			pack_two(ser, n, next, slot1, short_slot(e2, head->length[e2], 0));
			emitted |= UINT32_C(1) << e2;
			count = 2;
		} else {
			pack_one(ser, n, next, slot1);
		}
		n->used = ser->used + count;
		n->n_events = ser->n_events + count;
		n->done = ser->done | emitted;
		n->prev_tick = head->tick;
		n->ts_owed = false;
		if (!(head->events & ~n->done)) {
			next->record_pop = true;
			n->head_prepared = false;
			n->done = 0;
		}
		break;
	}
	}

	/* age counts the clocks a packet has been open, so the timeout is from the open. */
	if (action == EVCAP_TIMESTAMP && !ser->open)
		n->age = 0;
	else if (ser->open && n->open)
		n->age = ser->age == UINT32_MAX ? UINT32_MAX : ser->age + 1;
	else
		n->age = 0;
}

/* ---- packet output ---- */

static void put_be(uint8_t *bytes, uint64_t value, unsigned count)
{
	while (count--) {
		bytes[count] = (uint8_t)value;
		value >>= 8;
	}
}

static uint16_t ipv4_checksum(const uint8_t *header)
{
	uint32_t sum = 0;

	for (unsigned i = 0; i < PKTSTATS_IP_HEADER_BYTES; i += 2)
		sum += (uint32_t)header[i] << 8 | header[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* PREPARE: the 10 header words of the latched packet, byte k of a word in bits 8k+7:8k. */
static void prepare_header(const struct evcap_output_packet *p, uint64_t *words)
{
	const struct evcap_descriptor *d = &p->descriptor;
	uint8_t bytes[PKTSTATS_EVENTS_OFFSET];
	unsigned ip_length = PKTSTATS_IP_OVERHEAD + PKTSTATS_SLOT_BYTES * d->n_slots;
	unsigned i;

	put_be(bytes + 0, p->destination_mac, 6);
	put_be(bytes + 6, p->source_mac, 6);
	put_be(bytes + 12, 0x0800, 2);
	bytes[14] = 0x45;
	bytes[15] = p->tos;
	put_be(bytes + 16, ip_length, 2);
	put_be(bytes + 18, d->seq & 0xffff, 2);
	put_be(bytes + 20, 0x4000, 2);
	bytes[22] = p->ttl;
	bytes[23] = 17;
	put_be(bytes + 24, 0, 2);
	put_be(bytes + 26, p->source_ip, 4);
	put_be(bytes + 30, p->destination_ip, 4);
	put_be(bytes + 24, ipv4_checksum(bytes + PKTSTATS_ETH_HEADER_BYTES), 2);
	put_be(bytes + 34, p->udp_source_port, 2);
	put_be(bytes + 36, p->udp_destination_port, 2);
	put_be(bytes + 38, ip_length - PKTSTATS_IP_HEADER_BYTES, 2);
	put_be(bytes + 40, 0, 2);
	bytes[42] = (uint8_t)((d->m_flag ? PKTSTATS_FLAG_MISSED : 0) |
			      d->resolution << PKTSTATS_RESOLUTION_SHIFT | PKTSTATS_FORMAT_VERSION);
	bytes[43] = PKTSTATS_EVENT_TYPES;
	put_be(bytes + 44, d->seq, 4);
	for (i = 0; i < PKTSTATS_QUEUES; i++)
		put_be(bytes + 48 + 4 * i, d->snapshot[i], 4);

	for (i = 0; i < EVCAP_HEADER_WORDS; i++) {
		uint64_t word = 0;

		for (unsigned k = 0; k < 8; k++)
			word |= (uint64_t)bytes[8 * i + k] << (8 * k);
		words[i] = word;
	}
}

static void output_eval(const struct evcap_model *m, const struct evcap_model_config *config,
			const struct evcap_model_inputs *in, struct evcap_next *next)
{
	const struct evcap_output_control *out = &m->output;
	struct evcap_output_control *n = &next->output;

	*n = *out;
	next->ring_pop = false;
	next->descriptor_pop = false;
	next->latch_packet = false;
	next->prepare_header = false;
	next->packet_sent = false;
	next->sent_events = 0;

	switch (out->state) {
	case EVCAP_OUT_IDLE:
		if (m->descriptor_fifo.m_valid) {
			struct evcap_output_packet *p = &next->packet;

			next->descriptor_pop = true;
			next->latch_packet = true;
			p->descriptor = m->descriptor_head;
			p->destination_mac = config->destination_mac & UINT64_C(0xffffffffffff);
			p->source_mac = config->source_mac & UINT64_C(0xffffffffffff);
			p->source_ip = config->source_ip;
			p->destination_ip = config->destination_ip;
			p->tos = config->tos;
			p->ttl = config->ttl;
			p->udp_source_port = config->udp_source_port;
			p->udp_destination_port = config->udp_destination_port;
			p->output_ports = config->output_ports;
			n->state = EVCAP_OUT_PREPARE;
		}
		break;
	case EVCAP_OUT_PREPARE:
		next->prepare_header = true;
		prepare_header(&m->packet, next->header_words);
		n->state = EVCAP_OUT_HEADER;
		n->header_word = 0;
		break;
	case EVCAP_OUT_HEADER:
		if (in->tready) {
			if (out->header_word == EVCAP_HEADER_WORDS - 1) {
				n->state = EVCAP_OUT_DATA;
				n->data_left = (m->packet.descriptor.n_slots + 1u) / 2;
			} else {
				n->header_word = out->header_word + 1;
			}
		}
		break;
	case EVCAP_OUT_DATA:
		if (in->tready && m->ring_fifo.m_valid) {
			next->ring_pop = true;
			n->data_left = out->data_left - 1;
			if (n->data_left == 0) {
				next->packet_sent = true;
				next->sent_events = m->packet.descriptor.n_events;
				n->state = EVCAP_OUT_IDLE;
			}
		}
		break;
	}
}

/* ---- the block ---- */

void evcap_model_default_params(struct evcap_model_params *params)
{
	params->queue_size_width = 20;
	params->record_fifo_depth_log2 = 9;
	params->packet_ram_depth_log2 = 11;
	params->descriptor_fifo_depth_log2 = 4;
}

static bool depth_ok(unsigned depth_log2, unsigned min)
{
	return depth_log2 >= min && depth_log2 <= EVCAP_DEPTH_LOG2_MAX;
}

int evcap_model_create(const struct evcap_model_params *params, struct evcap_model **model)
{
	struct evcap_model *m;

	/*
	 * The ring must hold a whole packet of 9000 bytes (1117 words), as the RTL requires:
	 * a packet is read out only after it closes, so a smaller ring could block forever.
	 */
	if (!params || !model || params->queue_size_width < 1 || params->queue_size_width > 32 ||
	    !depth_ok(params->record_fifo_depth_log2, 1) ||
	    !depth_ok(params->packet_ram_depth_log2, EVCAP_RING_DEPTH_LOG2_MIN) ||
	    !depth_ok(params->descriptor_fifo_depth_log2, 1))
		return -EINVAL;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->params = *params;
	m->occupancy_mask = params->queue_size_width == 32 ?
			    UINT32_MAX : (UINT32_C(1) << params->queue_size_width) - 1;
	fifo_init(&m->record_fifo, params->record_fifo_depth_log2);
	fifo_init(&m->ring_fifo, params->packet_ram_depth_log2);
	fifo_init(&m->descriptor_fifo, params->descriptor_fifo_depth_log2);
	m->record_ram = calloc(m->record_fifo.depth, sizeof(*m->record_ram));
	m->ring_ram = calloc(m->ring_fifo.depth, sizeof(*m->ring_ram));
	m->descriptor_ram = calloc(m->descriptor_fifo.depth, sizeof(*m->descriptor_ram));
	if (!m->record_ram || !m->ring_ram || !m->descriptor_ram) {
		evcap_model_destroy(m);
		return -ENOMEM;
	}
	/* Everything else is 0 after rst, as calloc left it. */
	*model = m;
	return 0;
}

void evcap_model_destroy(struct evcap_model *model)
{
	if (!model)
		return;
	free(model->record_ram);
	free(model->ring_ram);
	free(model->descriptor_ram);
	free(model);
}

void evcap_model_set_miss_observer(struct evcap_model *model, evcap_model_miss_fn fn,
				   void *context)
{
	model->miss_fn = fn;
	model->miss_context = context;
}

static inline uint32_t swap32(uint32_t x)
{
	return x >> 24 | (x >> 8 & 0xff00) | (x << 8 & 0xff0000) | x << 24;
}

/* A ring word {second, first} on the stream: slots in order, each most significant byte first. */
static inline uint64_t ring_word_to_stream(uint64_t word)
{
	return (uint64_t)swap32((uint32_t)(word >> 32)) << 32 | swap32((uint32_t)word);
}

void evcap_model_outputs(const struct evcap_model *model, struct evcap_model_outputs *out)
{
	const struct evcap_model *m = model;

	out->tvalid = false;
	out->tdata = 0;
	out->tkeep = 0;
	out->tlast = false;
	switch (m->output.state) {
	case EVCAP_OUT_HEADER:
		out->tvalid = true;
		out->tdata = m->header_words[m->output.header_word];
		out->tkeep = 0xff;
		break;
	case EVCAP_OUT_DATA:
		if (m->ring_fifo.m_valid) {
			bool last = m->output.data_left == 1;

			out->tvalid = true;
			out->tdata = ring_word_to_stream(m->ring_head);
			out->tkeep = last && (m->packet.descriptor.n_slots & 1) ? 0x0f : 0xff;
			out->tlast = last;
		}
		break;
	default:
		break;
	}
	out->tuser = m->packet.output_ports;
	out->timer = m->timer;
	out->events_missed = m->events_missed;
	out->events_sent = m->events_sent;
	out->packets_sent = m->packets_sent;
}

void evcap_model_step(struct evcap_model *model, const struct evcap_model_config *config,
		      const struct evcap_model_inputs *inputs)
{
	struct evcap_model *m = model;
	struct evcap_stage1 *stage1 = &m->stage1[m->stage1_current];
	struct evcap_stage1 *stage1_next = &m->stage1[m->stage1_current ^ 1];
	struct evcap_fifo_edge edge;
	struct evcap_next next;
	uint64_t missed_cycle = stage1->cycle;

	/* Phase 1: evaluate, from the state before the edge. */
	if (inputs->timer_reset)
		next.timer = 0;
	else if (inputs->timer_load)
		next.timer = config->timer_preset;
	else
		next.timer = m->timer + 1;
	intake_stage0_eval(m, config, inputs, stage1_next);
	intake_stage1_eval(m, &next);
	serializer_eval(m, config, &next);
	output_eval(m, config, inputs, &next);

	/* Phase 2: commit. The FIFOs move data between RAM and output register first. */
	edge = fifo_clock(&m->record_fifo, next.record_push, next.record_pop);
	if (edge.load)
		m->record_head = m->record_ram[edge.load_index];
	if (edge.write) {
		struct evcap_record *record = &m->record_ram[edge.write_index];

		*record = stage1->record;
		/* The switch has applied the clock's events to its occupancy inputs by now. */
		for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
			record->occupancy_after[q] = inputs->occupancy[q] & m->occupancy_mask;
		record->close_before = next.record_close_before;
		record->seq_reset = next.record_seq_reset;
		record->missed_before = next.record_missed_before;
	}

	edge = fifo_clock(&m->ring_fifo, next.ring_push, next.ring_pop);
	if (edge.load)
		m->ring_head = m->ring_ram[edge.load_index];
	if (edge.write)
		m->ring_ram[edge.write_index] = next.ring_word;

	edge = fifo_clock(&m->descriptor_fifo, next.descriptor_push, next.descriptor_pop);
	if (edge.load)
		m->descriptor_head = m->descriptor_ram[edge.load_index];
	if (edge.write)
		m->descriptor_ram[edge.write_index] = next.descriptor;

	m->timer = next.timer;
	m->enable_prev = config->enable;
	m->resolution_prev = config->resolution & EVCAP_RESOLUTION_BITS;
	m->queue_mask_prev = config->queue_mask;
	m->event_mask_prev = config->event_mask & EVCAP_EVENT_MASK_BITS;
	m->stage1_current ^= 1;
	m->pend_close = next.pend_close;
	m->pend_seq_reset = next.pend_seq_reset;
	m->pend_missed = next.pend_missed;

	m->serializer = next.serializer;

	m->output = next.output;
	if (next.latch_packet)
		m->packet = next.packet;
	if (next.prepare_header)
		memcpy(m->header_words, next.header_words, sizeof(m->header_words));

	m->events_missed = (inputs->clear_events_missed ? 0 : m->events_missed) +
			   (uint64_t)__builtin_popcount(next.missed_events);
	m->events_sent = (inputs->clear_events_sent ? 0 : m->events_sent) +
			 (next.packet_sent ? next.sent_events : 0);
	m->packets_sent = (inputs->clear_packets_sent ? 0 : m->packets_sent) +
			  (next.packet_sent ? 1 : 0);
	m->cycle++;

	if (next.missed_events && m->miss_fn)
		m->miss_fn(m->miss_context, missed_cycle, next.missed_events);
}

void evcap_model_set_sequence(struct evcap_model *model, uint32_t sequence)
{
	model->serializer.seq = sequence;
}
