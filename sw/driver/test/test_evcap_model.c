/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the event-capture reference model (sw/driver/src/evcap_model.c), TAP output.
 *
 * Expected values never come from the model: each test builds the expected frame bytes itself
 * from the header table of docs/evcap-architecture.md and the slot layout of the format, and
 * the expected cycles from the timing written there (each derivation is in a comment).
 *
 * Timing used throughout, from the document: an event in input cycle E is registered into
 * intake stage 1 (cycle E+1), written into the record FIFO at the end of E+1, and is the
 * FIFO's head in E+3, where the serializer writes the timestamp; its events follow in E+4. A
 * CLOSE in cycle C writes the descriptor, which is the descriptor FIFO's head in C+2, where the
 * packet output pops it; C+3 is PREPARE and header word 0 is on the stream in C+4.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktstats/evcap_model.h"

#define MAX_FRAMES 64
#define MAX_FRAME_BYTES 9200
#define MAX_SLOTS 2400
#define MAX_MISSES 64

enum { ARRIVAL = 1, DEPARTURE = 2, DROP = 3 };

struct frame {
	uint8_t bytes[MAX_FRAME_BYTES];
	size_t length;
	unsigned words;
	uint64_t first_cycle;
	uint64_t last_cycle;
	uint8_t tuser;
	uint8_t last_tkeep;
	bool tuser_changed;
	bool bad_tkeep;		/* tkeep other than 0xff before the last word */
	bool dirty_padding;	/* bytes not kept by tkeep are not zero */
};

struct bench {
	struct evcap_model *model;
	struct evcap_model_config config;
	struct evcap_model_inputs in;
	struct evcap_model_outputs out;	/* outputs of the current cycle */
	uint64_t cycle;			/* the input cycle the next step consumes */
	bool toggle_tready;		/* drive tready from a fixed pattern */

	struct frame *frames;
	unsigned n_frames;
	bool in_frame;
	bool overflow;
	uint64_t first_valid_cycle;
	bool seen_valid;

	uint64_t miss_cycle[MAX_MISSES];
	uint32_t miss_events[MAX_MISSES];
	unsigned n_misses;
};

/* What a frame must hold, from the format. */
struct expect {
	uint32_t seq;
	bool missed;
	unsigned resolution;
	uint32_t snapshot[PKTSTATS_QUEUES];
	uint32_t slots[MAX_SLOTS];
	unsigned n_slots;
};

static bool check_failed;

#define CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			printf("#   %s:%d: ", __FILE__, __LINE__);		\
			printf(__VA_ARGS__);					\
			printf("\n");						\
			check_failed = true;					\
		}								\
	} while (0)

/* ---- bench ---- */

static void on_miss(void *context, uint64_t cycle, uint32_t events)
{
	struct bench *b = context;

	if (b->n_misses < MAX_MISSES) {
		b->miss_cycle[b->n_misses] = cycle;
		b->miss_events[b->n_misses] = events;
	}
	b->n_misses++;
}

/* Occupancy driven in cycle n: distinct per queue and per cycle, so a snapshot tells its cycle. */
static uint32_t occupancy_of(unsigned queue, uint64_t cycle)
{
	return (uint32_t)(queue << 16) + (uint32_t)cycle;
}

static void bench_init(struct bench *b)
{
	struct evcap_model_params params;
	int err;

	memset(b, 0, sizeof(*b));
	evcap_model_default_params(&params);
	err = evcap_model_create(&params, &b->model);
	if (err) {
		printf("Bail out! evcap_model_create: %d\n", err);
		exit(1);
	}
	b->frames = calloc(MAX_FRAMES, sizeof(*b->frames));
	if (!b->frames) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	evcap_model_set_miss_observer(b->model, on_miss, b);

	b->config.enable = true;
	b->config.resolution = 0;
	b->config.queue_mask = 0xff;
	b->config.event_mask = 0x7;
	b->config.output_ports = 0x10;
	b->config.destination_mac = UINT64_C(0x02aabbccddee);
	b->config.source_mac = UINT64_C(0x021122334455);
	b->config.source_ip = 0x0a000001;	/* 10.0.0.1 */
	b->config.destination_ip = 0xc0a80114;	/* 192.168.1.20 */
	b->config.tos = 0xb8;
	b->config.ttl = 64;
	b->config.udp_source_port = PKTSTATS_UDP_PORT;
	b->config.udp_destination_port = 40000;
	b->config.max_length = PKTSTATS_MAX_LENGTH_DEFAULT;
	b->config.flush_timeout = 0;
	b->in.tready = true;
}

static void bench_free(struct bench *b)
{
	evcap_model_destroy(b->model);
	free(b->frames);
}

static void record_word(struct bench *b)
{
	const struct evcap_model_outputs *o = &b->out;
	struct frame *f;

	if (!b->in_frame) {
		if (b->n_frames == MAX_FRAMES) {
			b->overflow = true;
			return;
		}
		f = &b->frames[b->n_frames++];
		memset(f, 0, sizeof(*f));
		f->first_cycle = b->cycle;
		f->tuser = o->tuser;
		b->in_frame = true;
	}
	f = &b->frames[b->n_frames - 1];
	if (o->tuser != f->tuser)
		f->tuser_changed = true;
	if (!o->tlast && o->tkeep != 0xff)
		f->bad_tkeep = true;
	for (unsigned k = 0; k < 8; k++) {
		uint8_t byte = (uint8_t)(o->tdata >> (8 * k));

		if (!(o->tkeep >> k & 1)) {
			if (byte)
				f->dirty_padding = true;
			continue;
		}
		if (f->length < MAX_FRAME_BYTES)
			f->bytes[f->length++] = byte;
	}
	f->words++;
	if (o->tlast) {
		f->last_cycle = b->cycle;
		f->last_tkeep = o->tkeep;
		b->in_frame = false;
	}
}

/* One clock: look at the outputs of this cycle, then the edge. Pulses and strobes last a clock. */
static void step(struct bench *b)
{
	unsigned q;

	if (b->toggle_tready)
		b->in.tready = (b->cycle * 7 + b->cycle / 5) % 3 != 0;
	for (q = 0; q < PKTSTATS_QUEUES; q++)
		b->in.occupancy[q] = occupancy_of(q, b->cycle);
	evcap_model_outputs(b->model, &b->out);
	if (b->out.tvalid && !b->seen_valid) {
		b->seen_valid = true;
		b->first_valid_cycle = b->cycle;
	}
	if (b->out.tvalid && b->in.tready)
		record_word(b);
	evcap_model_step(b->model, &b->config, &b->in);
	b->cycle++;
	b->in.arrival = 0;
	b->in.departure = 0;
	b->in.drop = 0;
	b->in.flush = false;
	b->in.timer_reset = false;
	b->in.timer_load = false;
	b->in.clear_events_missed = false;
	b->in.clear_events_sent = false;
	b->in.clear_packets_sent = false;
	evcap_model_outputs(b->model, &b->out);
}

/* Run until the next step consumes the inputs of input cycle `cycle`. */
static void run_to(struct bench *b, uint64_t cycle)
{
	while (b->cycle < cycle)
		step(b);
}

/* A strobe in the current input cycle. */
static void event(struct bench *b, unsigned type, unsigned queue, uint16_t length)
{
	switch (type) {
	case ARRIVAL:
		b->in.arrival |= (uint8_t)(1u << queue);
		b->in.arrival_length[queue] = length;
		break;
	case DEPARTURE:
		b->in.departure |= (uint8_t)(1u << queue);
		b->in.departure_length[queue] = length;
		break;
	default:
		b->in.drop |= (uint8_t)(1u << queue);
		b->in.drop_length[queue] = length;
		break;
	}
}

/* ---- expected frames, from the format ---- */

static uint32_t ts_hi(uint64_t tick)
{
	return (uint32_t)(tick >> 32) & 0x3fffffff;
}

static uint32_t ts_lo(uint64_t tick)
{
	return (uint32_t)tick;
}

static uint32_t short_event(unsigned type, unsigned queue, unsigned length, uint32_t gap)
{
	return (uint32_t)type << 30 | (uint32_t)queue << 27 | (uint32_t)length << 19 | gap;
}

static void expect_init(struct expect *e, uint32_t seq, uint64_t snapshot_cycle)
{
	memset(e, 0, sizeof(*e));
	e->seq = seq;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		e->snapshot[q] = occupancy_of(q, snapshot_cycle);
}

static void add_slot(struct expect *e, uint32_t slot)
{
	if (e->n_slots < MAX_SLOTS)
		e->slots[e->n_slots++] = slot;
}

static void add_timestamp(struct expect *e, uint64_t tick)
{
	add_slot(e, ts_hi(tick));
	add_slot(e, ts_lo(tick));
}

static void put(uint8_t *p, uint64_t value, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(value >> (8 * (bytes - 1 - i)));
}

/* RFC 1071, written here again so that the test does not share the model's code. */
static uint16_t test_checksum(const uint8_t *header, size_t length)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < length; i += 2)
		sum += (uint32_t)(header[i] << 8 | header[i + 1]);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)(~sum & 0xffff);
}

/* The frame of the header table of the architecture document, then the slots. */
static size_t build_frame(uint8_t *f, const struct evcap_model_config *c, const struct expect *e)
{
	unsigned ip_length = 66 + 4 * e->n_slots;
	unsigned i;

	put(f + 0, c->destination_mac, 6);
	put(f + 6, c->source_mac, 6);
	put(f + 12, 0x0800, 2);
	f[14] = 0x45;
	f[15] = c->tos;
	put(f + 16, ip_length, 2);
	put(f + 18, e->seq & 0xffff, 2);
	put(f + 20, 0x4000, 2);
	f[22] = c->ttl;
	f[23] = 17;
	put(f + 24, 0, 2);
	put(f + 26, c->source_ip, 4);
	put(f + 30, c->destination_ip, 4);
	put(f + 24, test_checksum(f + 14, 20), 2);
	put(f + 34, c->udp_source_port, 2);
	put(f + 36, c->udp_destination_port, 2);
	put(f + 38, ip_length - 20, 2);
	put(f + 40, 0, 2);
	f[42] = (uint8_t)((e->missed ? 0x80 : 0) | e->resolution << 4 | 2);
	f[43] = 3;
	put(f + 44, e->seq, 4);
	for (i = 0; i < 8; i++)
		put(f + 48 + 4 * i, e->snapshot[i], 4);
	for (i = 0; i < e->n_slots; i++)
		put(f + 80 + 4 * i, e->slots[i], 4);
	return 80 + 4 * (size_t)e->n_slots;
}

/* Compare frame `index` with the expectation: bytes, word count, tkeep, tuser. */
static void check_frame(const struct bench *b, unsigned index, const struct expect *e)
{
	static uint8_t want[MAX_FRAME_BYTES];
	const struct frame *f;
	size_t length;
	unsigned words = 10 + (e->n_slots + 1) / 2;

	CHECK(!b->overflow, "more than %d frames", MAX_FRAMES);
	if (index >= b->n_frames) {
		CHECK(false, "frame %u missing (%u frames)", index, b->n_frames);
		return;
	}
	f = &b->frames[index];
	length = build_frame(want, &b->config, e);
	CHECK(f->length == length, "frame %u: %zu bytes, want %zu", index, f->length, length);
	CHECK(f->words == words, "frame %u: %u words, want %u", index, f->words, words);
	CHECK(f->last_tkeep == ((e->n_slots & 1) ? 0x0f : 0xff), "frame %u: last tkeep %#x",
	      index, f->last_tkeep);
	CHECK(!f->bad_tkeep, "frame %u: tkeep not 0xff before the last word", index);
	CHECK(!f->dirty_padding, "frame %u: bytes outside tkeep not zero", index);
	CHECK(!f->tuser_changed && f->tuser == b->config.output_ports, "frame %u: tuser %#x",
	      index, f->tuser);
	for (size_t i = 0; i < length && i < f->length; i++) {
		if (f->bytes[i] != want[i]) {
			CHECK(false, "frame %u byte %zu: %#04x, want %#04x", index, i, f->bytes[i],
			      want[i]);
			break;
		}
	}
}

/* ---- tests ---- */

/*
 * One arrival (queue 2, length 5) in cycle 20, flush timeout 5. Timestamp in 23 opens the
 * packet (age 0 in 24), the event in 24, age reaches 5 in cycle 29 = CLOSE, header word 0 in
 * 33, 10 header words and 2 data words: last in 44; the counters move at that edge.
 */
static void test_single_arrival(void)
{
	struct bench b;
	struct expect e;

	bench_init(&b);
	b.config.flush_timeout = 5;
	run_to(&b, 20);
	event(&b, ARRIVAL, 2, 5);
	run_to(&b, 44);
	CHECK(b.out.packets_sent == 0 && b.out.events_sent == 0, "counters moved early");
	step(&b);
	CHECK(b.out.packets_sent == 1 && b.out.events_sent == 1 && b.out.events_missed == 0,
	      "counters %" PRIu64 " %" PRIu64 " %" PRIu64, b.out.packets_sent,
	      b.out.events_sent, b.out.events_missed);
	run_to(&b, 200);

	CHECK(b.n_frames == 1, "%u frames", b.n_frames);
	CHECK(b.first_valid_cycle == 33, "first tvalid in cycle %" PRIu64, b.first_valid_cycle);
	CHECK(b.frames[0].first_cycle == 33 && b.frames[0].last_cycle == 44,
	      "frame in cycles %" PRIu64 "..%" PRIu64, b.frames[0].first_cycle,
	      b.frames[0].last_cycle);
	/*
	 * By hand: 45b8 + 004e + 0000 + 4000 + 4011 + 0000 + 0a00 + 0001 + c0a8 + 0114 = 191d4,
	 * folded 91d5, complemented 6e2a.
	 */
	CHECK(b.frames[0].bytes[24] == 0x6e && b.frames[0].bytes[25] == 0x2a,
	      "IP checksum %02x%02x, want 6e2a", b.frames[0].bytes[24], b.frames[0].bytes[25]);
	CHECK(b.frames[0].bytes[16] == 0 && b.frames[0].bytes[17] == 78, "IP total length");
	expect_init(&e, 0, 20);
	add_timestamp(&e, 20);
	add_slot(&e, 0x50280000);	/* 01 arrival, queue 010, length 00000101, gap 0 */
	CHECK(e.slots[2] == short_event(ARRIVAL, 2, 5, 0), "slot layout");
	check_frame(&b, 0, &e);
	bench_free(&b);
}

/*
 * Two events, in cycle 11 (timer loaded to P) and 12 (timer loaded to P + gap), then a force
 * flush. A gap of
 * 2^19 - 1 ticks is one short event; 2^19 needs a timestamp. P has bits above 61 set: ticks are
 * modulo 2^62.
 */
static void run_gap(struct bench *b, uint64_t gap)
{
	const uint64_t preset = UINT64_C(0xc123456789abcdef);

	b->config.timer_preset = preset;
	run_to(b, 10);
	b->in.timer_load = true;
	step(b);
	event(b, ARRIVAL, 1, 7);
	b->config.timer_preset = preset + gap;
	b->in.timer_load = true;
	step(b);
	CHECK(b->out.timer == preset + gap, "timer %#" PRIx64, b->out.timer);
	event(b, DEPARTURE, 1, 300);	/* saturates to 255 */
	run_to(b, 20);
	b->in.flush = true;
	run_to(b, 200);
}

static void test_gap_fits(void)
{
	struct bench b;
	struct expect e;

	bench_init(&b);
	run_gap(&b, (1u << 19) - 1);
	CHECK(b.n_frames == 1, "%u frames", b.n_frames);
	expect_init(&e, 0, 11);
	add_slot(&e, 0x01234567);
	add_slot(&e, 0x89abcdef);
	add_slot(&e, short_event(ARRIVAL, 1, 7, 0));
	add_slot(&e, short_event(DEPARTURE, 1, 255, 0x7ffff));
	check_frame(&b, 0, &e);
	bench_free(&b);
}

static void test_gap_needs_timestamp(void)
{
	struct bench b;
	struct expect e;

	bench_init(&b);
	run_gap(&b, 1u << 19);
	CHECK(b.n_frames == 1, "%u frames", b.n_frames);
	expect_init(&e, 0, 11);
	add_slot(&e, 0x01234567);
	add_slot(&e, 0x89abcdef);
	add_slot(&e, short_event(ARRIVAL, 1, 7, 0));
	add_slot(&e, 0x01234567);
	add_slot(&e, 0x89b3cdef);	/* 0x89abcdef + 0x80000 */
	add_slot(&e, short_event(DEPARTURE, 1, 255, 0));
	check_frame(&b, 0, &e);
	bench_free(&b);
}

/* Tick 2^62 - 3, then 5 ticks later tick 2: the gap is 5, modulo 2^62. */
static void test_tick_wraps(void)
{
	struct bench b;
	struct expect e;

	bench_init(&b);
	b.config.timer_preset = (UINT64_C(1) << 62) - 3;
	run_to(&b, 10);
	b.in.timer_load = true;
	step(&b);
	event(&b, DROP, 6, 9);
	run_to(&b, 16);
	event(&b, ARRIVAL, 0, 1);
	run_to(&b, 20);
	b.in.flush = true;
	run_to(&b, 200);
	CHECK(b.n_frames == 1, "%u frames", b.n_frames);
	expect_init(&e, 0, 11);
	add_slot(&e, 0x3fffffff);
	add_slot(&e, 0xfffffffd);
	add_slot(&e, short_event(DROP, 6, 9, 0));
	add_slot(&e, short_event(ARRIVAL, 0, 1, 5));
	check_frame(&b, 0, &e);
	bench_free(&b);
}

/*
 * All 24 strobes in cycle 20, flush in 21: slots in the order queue, then arrival, departure,
 * drop, gap 0. Timestamp in 23, two events per clock in 24..35, the flush marker is the head
 * in 36 (CLOSE), header word 0 in 40.
 */
static void run_all_24(struct bench *b)
{
	for (unsigned q = 0; q < 8; q++) {
		event(b, ARRIVAL, q, (uint16_t)(10 * q + 1));
		event(b, DEPARTURE, q, (uint16_t)(10 * q + 2));
		event(b, DROP, q, q == 7 ? 1000 : (uint16_t)(10 * q + 3));
	}
}

static void expect_all_24(struct expect *e)
{
	expect_init(e, 0, 20);
	add_timestamp(e, 20);
	for (unsigned q = 0; q < 8; q++) {
		add_slot(e, short_event(ARRIVAL, q, 10 * q + 1, 0));
		add_slot(e, short_event(DEPARTURE, q, 10 * q + 2, 0));
		add_slot(e, short_event(DROP, q, q == 7 ? 255 : 10 * q + 3, 0));
	}
}

static void test_all_24_events(void)
{
	struct bench b;
	struct expect e;

	bench_init(&b);
	run_to(&b, 20);
	run_all_24(&b);
	step(&b);
	b.in.flush = true;
	run_to(&b, 300);
	CHECK(b.n_frames == 1, "%u frames", b.n_frames);
	CHECK(b.first_valid_cycle == 40, "first tvalid in cycle %" PRIu64, b.first_valid_cycle);
	expect_all_24(&e);
	check_frame(&b, 0, &e);
	CHECK(b.out.events_sent == 24 && b.out.packets_sent == 1, "counters");
	bench_free(&b);
}

/* The same with tready toggling: the same bytes, each word once. */
static void test_backpressure(void)
{
	struct bench b;
	struct expect e;

	bench_init(&b);
	b.toggle_tready = true;
	run_to(&b, 20);
	run_all_24(&b);
	step(&b);
	b.in.flush = true;
	run_to(&b, 300);
	CHECK(b.n_frames == 1, "%u frames", b.n_frames);
	expect_all_24(&e);
	check_frame(&b, 0, &e);
	bench_free(&b);
}

/*
 * One record split over packets. The serializer keeps the events of one queue in one clock (its
 * group) in one packet: a group starts only if all its events fit (`used + rest1 <= max_slots`),
 * and a second event of another group joins a clock's slot pair only if its whole group fits
 * (`used + 1 + rest2 <= max_slots`). A packet opened in the middle of the record takes, for each
 * queue whose group went into an earlier packet, the occupancy after the clock (the inputs of
 * the next cycle, 21), and for the other queues the occupancy before it (cycle 20).
 *
 * Timing: the record of cycle 20 is the head in 23 (timestamp), one action per cycle; a CLOSE in
 * C puts header word 0 on the stream in C + 4, or, if the previous frame is still going out, 3
 * cycles after its last word (IDLE, PREPARE). The flush of cycle 21 is a marker record right
 * behind: it closes the last packet.
 */
#define BIT(q, type) (3 * (q) + (type) - 1)
#define SPLIT_MAX_EVENTS 24

struct split_packet {
	unsigned events[SPLIT_MAX_EVENTS];	/* event bits, in slot order */
	unsigned n_events;
	uint8_t after;		/* queues whose snapshot is the occupancy after the clock */
	uint64_t first_cycle;	/* header word 0 on the stream */
};

/* Length of event bit `bit` in the record: distinct per bit, 255 for one saturated length. */
static unsigned split_length(unsigned bit)
{
	return bit == BIT(7, DROP) ? 255 : 10 * (bit / 3) + bit % 3 + 1;
}

static void run_split(uint16_t max_length, const unsigned *record, unsigned n_record,
		      const struct split_packet *packets, unsigned n_packets)
{
	struct bench b;
	struct expect e;
	unsigned p, i, q;

	bench_init(&b);
	b.config.max_length = max_length;
	run_to(&b, 20);
	for (i = 0; i < n_record; i++) {
		unsigned bit = record[i];

		event(&b, bit % 3 + 1, bit / 3,
		      (uint16_t)(bit == BIT(7, DROP) ? 1000 : split_length(bit)));
	}
	step(&b);
	b.in.flush = true;	/* closes the last packet */
	run_to(&b, 600);
	CHECK(b.n_frames == n_packets, "max_length %u: %u frames, want %u", max_length, b.n_frames,
	      n_packets);
	CHECK(b.out.events_sent == n_record, "max_length %u: events_sent %" PRIu64, max_length,
	      b.out.events_sent);

	for (p = 0; p < n_packets; p++) {
		const struct split_packet *sp = &packets[p];

		expect_init(&e, p, 20);
		for (q = 0; q < PKTSTATS_QUEUES; q++)
			if (sp->after >> q & 1)
				e.snapshot[q] = occupancy_of(q, 21);
		add_timestamp(&e, 20);
		for (i = 0; i < sp->n_events; i++) {
			unsigned bit = sp->events[i];

			add_slot(&e, short_event(bit % 3 + 1, bit / 3, split_length(bit), 0));
		}
		check_frame(&b, p, &e);
		CHECK(p >= b.n_frames || b.frames[p].first_cycle == sp->first_cycle,
		      "max_length %u: frame %u from cycle %" PRIu64 ", want %" PRIu64, max_length, p,
		      p < b.n_frames ? b.frames[p].first_cycle : 0, sp->first_cycle);
	}

	/*
	 * The group rule on its own, whatever the exact slots: each queue's events are all in one
	 * frame. Slots from byte 80, 4 bytes each; a slot of type 00 is a timestamp whose second
	 * half is the next slot.
	 */
	for (q = 0; q < PKTSTATS_QUEUES; q++) {
		int frame_of_queue = -1;

		for (p = 0; p < b.n_frames; p++) {
			const struct frame *f = &b.frames[p];

			for (size_t at = 80; at + 4 <= f->length; at += 4) {
				unsigned type = f->bytes[at] >> 6, queue = f->bytes[at] >> 3 & 7;

				if (type == 0) {
					at += 4;
					continue;
				}
				if (queue != q)
					continue;
				CHECK(frame_of_queue < 0 || frame_of_queue == (int)p,
				      "max_length %u: queue %u split over frames %d and %u", max_length,
				      q, frame_of_queue, p);
				frame_of_queue = (int)p;
			}
		}
	}
	bench_free(&b);
}

/*
 * A record of groups of 3, 1, 2, 3, 0, 1, 2 and 3 events:
 * queue 0 A D X, 1 X, 2 A D, 3 A D X, 5 D, 6 A X, 7 A D X (15 events).
 */
static const unsigned split_record[] = {
	BIT(0, ARRIVAL), BIT(0, DEPARTURE), BIT(0, DROP), BIT(1, DROP), BIT(2, ARRIVAL),
	BIT(2, DEPARTURE), BIT(3, ARRIVAL), BIT(3, DEPARTURE), BIT(3, DROP), BIT(5, DEPARTURE),
	BIT(6, ARRIVAL), BIT(6, DROP), BIT(7, ARRIVAL), BIT(7, DEPARTURE), BIT(7, DROP),
};

/*
 * max_length 94: (94 - 66) >> 2 = 7 slots.
 *  23 timestamp, used 2.
 *  24 0A starts q0 (2 + 3 <= 7), 0D in its group: used 4.
 *  25 0X; 1X's group has 1 event, 4 + 1 + 1 <= 7: used 6.
 *  26 2A starts q2: 6 + 2 > 7: CLOSE (one event at a time would have taken 2A).
 *     Packet 0: 0A 0D 0X 1X, 6 slots, snapshot before the clock; header 30..39, data 40..42.
 *  27 timestamp, opens packet 1: q0, q1 emitted, so their snapshot is after the clock.
 *  28 2A (2 + 2 <= 7) 2D: used 4.  29 3A starts q3 (4 + 3 <= 7) 3D: used 6.
 *  30 3X; 5D: 6 + 1 + 1 > 7, alone: used 7.  31 5D starts q5: 7 + 1 > 7: CLOSE.
 *     Packet 1: 7 slots; header 45 (after 42: IDLE 43, PREPARE 44), last word 58.
 *  32 timestamp, packet 2: q0..q3 after.  33 5D (2 + 1 <= 7), 6A: 2 + 1 + 2 <= 7: used 4.
 *  34 6X; 7A: 4 + 1 + 3 > 7, alone: used 5.  35 7A: 5 + 3 > 7: CLOSE.
 *     Packet 2: 5 slots; header 61, last word 73.
 *  36 timestamp, packet 3: q0..q3, q5, q6 after; q4 has no event: before.  37 7A 7D.
 *  38 7X, the record is popped; 39 the flush marker: CLOSE. Packet 3: header 76.
 */
static const struct split_packet split_7_slots[] = {
	{ { BIT(0, ARRIVAL), BIT(0, DEPARTURE), BIT(0, DROP), BIT(1, DROP) }, 4, 0x00, 30 },
	{ { BIT(2, ARRIVAL), BIT(2, DEPARTURE), BIT(3, ARRIVAL), BIT(3, DEPARTURE), BIT(3, DROP) },
	  5, 0x03, 45 },
	{ { BIT(5, DEPARTURE), BIT(6, ARRIVAL), BIT(6, DROP) }, 3, 0x0f, 61 },
	{ { BIT(7, ARRIVAL), BIT(7, DEPARTURE), BIT(7, DROP) }, 3, 0x6f, 76 },
};

/*
 * max_length 98: (98 - 66) >> 2 = 8 slots.
 *  23 timestamp.  24 0A 0D: used 4.  25 0X 1X (4 + 1 + 1 <= 8): used 6.
 *  26 2A starts q2: 6 + 2 <= 8 (a group of 2 needs 2 slots, not 3), 2D: used 8.
 *  27 3A: 8 + 3 > 8: CLOSE. Packet 0: 8 slots; header 31..40, data 41..44.
 *  28 timestamp, packet 1: q0, q1, q2 after.  29 3A 3D: used 4.
 *  30 3X 5D (4 + 1 + 1 <= 8): used 6.  31 6A (6 + 2 <= 8) 6X: used 8.  32 7A: CLOSE.
 *     Packet 1: 8 slots; header 47 (after 44: IDLE 45, PREPARE 46), last word 60.
 *  33 timestamp, packet 2: q0..q3, q5, q6 after.  34 7A 7D.  35 7X.  36 flush: CLOSE.
 *     Packet 2: header 63.
 */
static const struct split_packet split_8_slots[] = {
	{ { BIT(0, ARRIVAL), BIT(0, DEPARTURE), BIT(0, DROP), BIT(1, DROP), BIT(2, ARRIVAL),
	    BIT(2, DEPARTURE) }, 6, 0x00, 31 },
	{ { BIT(3, ARRIVAL), BIT(3, DEPARTURE), BIT(3, DROP), BIT(5, DEPARTURE), BIT(6, ARRIVAL),
	    BIT(6, DROP) }, 6, 0x07, 47 },
	{ { BIT(7, ARRIVAL), BIT(7, DEPARTURE), BIT(7, DROP) }, 3, 0x6f, 63 },
};

/*
 * All 24 strobes with the least max_length: 86, (86 - 66) >> 2 = 5 slots, a timestamp and one
 * group; 85 acts as 86. Per packet: timestamp, two events, one event, CLOSE (4 cycles):
 * packet p holds queue p's 3 events, its snapshot has queues 0..p-1 after the clock. CLOSE of
 * packet 0 in 26, header 30; 13 words each, so packet p from 30 + 15p.
 */
static void run_split_all_24(uint16_t max_length)
{
	struct split_packet packets[8];
	unsigned record[24];

	for (unsigned bit = 0; bit < 24; bit++)
		record[bit] = bit;
	for (unsigned p = 0; p < 8; p++) {
		packets[p].n_events = 3;
		packets[p].events[0] = BIT(p, ARRIVAL);
		packets[p].events[1] = BIT(p, DEPARTURE);
		packets[p].events[2] = BIT(p, DROP);
		packets[p].after = (uint8_t)((1u << p) - 1);
		packets[p].first_cycle = 30 + 15 * p;
	}
	run_split(max_length, record, 24, packets, 8);
}

static void test_record_split(void)
{
	run_split(94, split_record, 15, split_7_slots, 4);
	run_split(98, split_record, 15, split_8_slots, 3);
	run_split_all_24(86);
	run_split_all_24(85);
}

/*
 * max_length 95: (95 - 66) >> 2 = 7 slots. Six arrivals in cycles 20..25: the timestamp and
 * five fit (7 slots, odd: tkeep 0x0f on the last word), the sixth closes the packet and opens
 * the next one with its own timestamp and snapshot.
 */
static void test_max_length(void)
{
	struct bench b;
	struct expect e;
	unsigned i;

	bench_init(&b);
	b.config.max_length = 95;
	for (i = 0; i < 6; i++) {
		run_to(&b, 20 + i);
		event(&b, ARRIVAL, 1, (uint16_t)(10 + i));
	}
	run_to(&b, 40);
	b.in.flush = true;
	run_to(&b, 300);
	CHECK(b.n_frames == 2, "%u frames", b.n_frames);
	expect_init(&e, 0, 20);
	add_timestamp(&e, 20);
	for (i = 0; i < 5; i++)
		add_slot(&e, short_event(ARRIVAL, 1, 10 + i, i ? 1 : 0));
	check_frame(&b, 0, &e);
	CHECK(b.frames[0].bytes[16] == 0 && b.frames[0].bytes[17] == 94, "IP total length");
	expect_init(&e, 1, 25);
	add_timestamp(&e, 25);
	add_slot(&e, short_event(ARRIVAL, 1, 15, 0));
	check_frame(&b, 1, &e);
	bench_free(&b);
}

/*
 * A timestamp inside a packet needs room for itself and the rest of its event's group
 * (`used + 2 + rest1 <= max_slots`). Arrivals of queue 4 at ticks 20, 21, 22 (5 slots used),
 * then, at tick 22 + 2^19 (timer loaded in 23), a drop of queue 5, or queue 5's arrival,
 * departure and drop together. One drop needs 3 slots: with 7 the packet closes before the
 * timestamp, with 8 it takes both. The group of 3 needs 5: with 9 slots the packet closes
 * before the timestamp (it does not end on a timestamp whose events are in the next packet),
 * with 10 it takes them all.
 */
static void run_late_event(struct bench *b, uint16_t max_length, bool late_group)
{
	b->config.max_length = max_length;
	for (unsigned i = 0; i < 3; i++) {
		run_to(b, 20 + i);
		event(b, ARRIVAL, 4, 2);
	}
	run_to(b, 23);
	b->config.timer_preset = 22 + (1u << 19);
	b->in.timer_load = true;
	step(b);
	if (late_group) {
		event(b, ARRIVAL, 5, 1);
		event(b, DEPARTURE, 5, 2);
	}
	event(b, DROP, 5, 3);
	run_to(b, 40);
	b->in.flush = true;
	run_to(b, 300);
}

static void add_late_events(struct expect *e, bool late_group)
{
	if (late_group) {
		add_slot(e, short_event(ARRIVAL, 5, 1, 0));
		add_slot(e, short_event(DEPARTURE, 5, 2, 0));
	}
	add_slot(e, short_event(DROP, 5, 3, 0));
}

static void test_timestamp_room(void)
{
	static const struct {
		uint16_t max_length;
		bool late_group;
		bool closes;	/* the late record opens a second packet */
	} cases[] = {
		{ 94, false, true },	/* (94 - 66) >> 2 = 7: 5 + 2 + 1 > 7 */
		{ 98, false, false },	/* 8: 5 + 2 + 1 <= 8 */
		{ 102, true, true },	/* 9: 5 + 2 + 3 > 9 */
		{ 106, true, false },	/* 10: 5 + 2 + 3 <= 10 */
	};
	struct bench b;
	struct expect e;

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		bench_init(&b);
		run_late_event(&b, cases[c].max_length, cases[c].late_group);
		CHECK(b.n_frames == (cases[c].closes ? 2u : 1u), "max_length %u: %u frames",
		      cases[c].max_length, b.n_frames);
		expect_init(&e, 0, 20);
		add_timestamp(&e, 20);
		add_slot(&e, short_event(ARRIVAL, 4, 2, 0));
		add_slot(&e, short_event(ARRIVAL, 4, 2, 1));
		add_slot(&e, short_event(ARRIVAL, 4, 2, 1));
		if (cases[c].closes) {
			check_frame(&b, 0, &e);
			expect_init(&e, 1, 24);
		}
		add_timestamp(&e, 22 + (1u << 19));
		add_late_events(&e, cases[c].late_group);
		check_frame(&b, cases[c].closes ? 1 : 0, &e);
		bench_free(&b);
	}
}

/*
 * tready low from the start. Packets 0..18 (one arrival in 10 + 10k, flush one cycle later)
 * fill the packet output (packet 0), the descriptor FIFO's output register (1) and its RAM
 * (2..17): packet 18's CLOSE waits, its flush marker stays the record FIFO's head. Then 520
 * arrivals in cycles 300..819: 512 fill the record FIFO's RAM, those of 812..819 are missed.
 * The flush of 820 stays pending. With tready high (900) the 512 records make packet 19
 * (timestamp + 356 events = 358 slots, the most 1500 bytes hold) and packet 20 (156 events),
 * which the pending close marker closes; the marker carries the loss, so packet 21 (an arrival
 * in 6000) has M and packet 20 has not; nor has packet 22 (a drop in 6050).
 */
static void test_record_fifo_overflow(void)
{
	struct bench b;
	struct expect e;
	unsigned i, k;

	bench_init(&b);
	b.in.tready = false;
	for (k = 0; k < 19; k++) {
		run_to(&b, 10 + 10 * k);
		event(&b, ARRIVAL, 0, 1);
		step(&b);
		b.in.flush = true;
	}
	for (i = 0; i < 520; i++) {
		run_to(&b, 300 + i);
		event(&b, ARRIVAL, 0, 1);
	}
	run_to(&b, 820);
	b.in.flush = true;
	run_to(&b, 900);
	CHECK(b.n_frames == 0, "sent with tready low");
	CHECK(b.out.events_missed == 8, "events_missed %" PRIu64, b.out.events_missed);
	CHECK(b.n_misses == 8, "%u misses reported", b.n_misses);
	for (i = 0; i < 8 && i < b.n_misses; i++)
		CHECK(b.miss_cycle[i] == 812 + i && b.miss_events[i] == 1,
		      "miss %u: cycle %" PRIu64 " events %#x", i, b.miss_cycle[i],
		      b.miss_events[i]);
	b.in.tready = true;
	run_to(&b, 6000);
	CHECK(b.n_frames == 21, "%u frames before the last arrival", b.n_frames);
	event(&b, ARRIVAL, 3, 3);
	step(&b);
	b.in.flush = true;
	run_to(&b, 6050);
	event(&b, DROP, 2, 8);
	step(&b);
	b.in.flush = true;
	run_to(&b, 6200);
	CHECK(b.n_frames == 23, "%u frames", b.n_frames);

	for (k = 0; k < 19; k++) {
		expect_init(&e, k, 10 + 10 * k);
		add_timestamp(&e, 10 + 10 * k);
		add_slot(&e, short_event(ARRIVAL, 0, 1, 0));
		check_frame(&b, k, &e);
	}
	expect_init(&e, 19, 300);
	add_timestamp(&e, 300);
	for (i = 0; i < 356; i++)
		add_slot(&e, short_event(ARRIVAL, 0, 1, i ? 1 : 0));
	check_frame(&b, 19, &e);
	expect_init(&e, 20, 656);
	add_timestamp(&e, 656);
	for (i = 356; i < 512; i++)
		add_slot(&e, short_event(ARRIVAL, 0, 1, i > 356 ? 1 : 0));
	check_frame(&b, 20, &e);
	expect_init(&e, 21, 6000);
	e.missed = true;
	add_timestamp(&e, 6000);
	add_slot(&e, short_event(ARRIVAL, 3, 3, 0));
	check_frame(&b, 21, &e);
	expect_init(&e, 22, 6050);	/* M only in the first packet after the loss */
	add_timestamp(&e, 6050);
	add_slot(&e, short_event(DROP, 2, 8, 0));
	check_frame(&b, 22, &e);

	CHECK(b.out.events_sent == 19 + 512 + 2, "events_sent %" PRIu64, b.out.events_sent);
	CHECK(b.out.packets_sent == 23, "packets_sent %" PRIu64, b.out.packets_sent);
	CHECK(b.out.events_missed == 8, "events_missed %" PRIu64, b.out.events_missed);
	b.in.clear_events_missed = true;
	step(&b);
	CHECK(b.out.events_missed == 0, "events_missed not cleared");
	bench_free(&b);
}

/*
 * The flush timeout does not separate a timestamp from its event. Timeout 10, arrival in 20:
 * timestamp in 23 (opens), event in 24 (age 0), so age is 9 in 33. An arrival in 30 with tick
 * 20 + 2^19 + 10 (timer loaded in 29) needs a timestamp, written in 33; in 34 age is 10 but the
 * timestamp's event is owed: it is written, and the timeout closes the packet in 35.
 */
static void test_timeout_waits_for_event(void)
{
	const uint64_t late = 20 + (1u << 19) + 10;
	struct bench b;
	struct expect e;

	bench_init(&b);
	b.config.flush_timeout = 10;
	run_to(&b, 20);
	event(&b, ARRIVAL, 0, 1);
	run_to(&b, 29);
	b.config.timer_preset = late;
	b.in.timer_load = true;
	step(&b);
	event(&b, DEPARTURE, 0, 1);
	run_to(&b, 300);
	CHECK(b.n_frames == 1, "%u frames", b.n_frames);
	CHECK(b.first_valid_cycle == 39, "first tvalid in cycle %" PRIu64, b.first_valid_cycle);
	expect_init(&e, 0, 20);
	add_timestamp(&e, 20);
	add_slot(&e, short_event(ARRIVAL, 0, 1, 0));
	add_timestamp(&e, late);
	add_slot(&e, short_event(DEPARTURE, 0, 1, 0));
	check_frame(&b, 0, &e);
	bench_free(&b);
}

/*
 * The ring (2048 words + output register) fills and the serializer waits, losing nothing.
 * max_length 9000: (9000 - 66) >> 2 = 2233 slots. tready low until 3000; all 24 strobes in each
 * of cycles 20..219 (4800 events, 1600 groups of 3; record r has tick 20 + r, group g is queue
 * g % 8 of record g / 8). A packet holds a timestamp and (2233 - 2) / 3 = 743 whole groups
 * (2229 events, 2231 slots, 1116 words): the next group would need 2231 + 3 > 2233.
 *   packet 0: groups 0..742, from record 0: snapshot of cycle 20.
 *   packet 1: groups 743..1485; 743 = 8 * 92 + 7 opens it in record 92 (cycle 112) at queue 7:
 *             queues 0..6 went into packet 0, so their snapshot is after the clock (cycle 113),
 *             queue 7's before it (cycle 112).
 *   packet 2: groups 1486..1599 (114 groups, 342 events), closed by the flush of 220;
 *             1486 = 8 * 185 + 6: record 185 (cycle 205), queues 0..5 from cycle 206.
 * At two events per clock packet 0 closes near cycle 1140 and waits in the ring; packet 1 does
 * not fit beside it and fills the ring near cycle 2075, so the serializer waits until the output
 * drains packet 0. The first event of a record has gap 1 unless it follows the timestamp, the
 * others 0.
 */
static unsigned ring_test_length(unsigned record, unsigned bit)
{
	return (record * 7 + bit) & 0xff;
}

static void test_ring_full_waits(void)
{
	static const struct {
		unsigned first_group;
		unsigned groups;
		uint64_t cycle;		/* cycle of the record of the first group */
		uint8_t after;		/* queues whose snapshot is from cycle + 1 */
	} packets[] = {
		{ 0, 743, 20, 0x00 },
		{ 743, 743, 112, 0x7f },
		{ 1486, 114, 205, 0x3f },
	};
	const unsigned records = 200;
	struct bench b;
	struct expect e;
	unsigned r, bit, p, g, t, q;

	bench_init(&b);
	b.config.max_length = 9000;
	b.in.tready = false;
	for (r = 0; r < records; r++) {
		run_to(&b, 20 + r);
		for (bit = 0; bit < 24; bit++)
			event(&b, bit % 3 + 1, bit / 3, (uint16_t)ring_test_length(r, bit));
	}
	run_to(&b, 220);
	b.in.flush = true;
	run_to(&b, 3000);
	CHECK(b.n_frames == 0, "sent with tready low");
	b.in.tready = true;
	run_to(&b, 8000);
	CHECK(b.n_frames == 3, "%u frames", b.n_frames);
	CHECK(b.n_misses == 0 && b.out.events_missed == 0, "misses");
	CHECK(b.out.events_sent == 24 * records, "events_sent %" PRIu64, b.out.events_sent);

	for (p = 0; p < 3; p++) {
		expect_init(&e, p, packets[p].cycle);
		for (q = 0; q < PKTSTATS_QUEUES; q++)
			if (packets[p].after >> q & 1)
				e.snapshot[q] = occupancy_of(q, packets[p].cycle + 1);
		add_timestamp(&e, packets[p].cycle);
		for (g = packets[p].first_group; g < packets[p].first_group + packets[p].groups; g++) {
			for (t = 0; t < 3; t++) {
				r = g / 8;
				bit = 3 * (g % 8) + t;
				add_slot(&e, short_event(t + 1, g % 8, ring_test_length(r, bit),
							 bit == 0 && g != packets[p].first_group ? 1 : 0));
			}
		}
		CHECK(e.n_slots == (p < 2 ? 2231u : 344u), "packet %u: %u slots expected", p,
		      e.n_slots);
		check_frame(&b, p, &e);
	}
	bench_free(&b);
}

/*
 * A force flush with no packet open sends nothing; nor does one right after a timeout close
 * (arrival in 100, timeout 5: CLOSE in 109, flush in 110), nor a disable with nothing open.
 */
static void test_empty_flush(void)
{
	struct bench b;
	struct expect e;

	bench_init(&b);
	b.config.flush_timeout = 5;
	run_to(&b, 50);
	b.in.flush = true;
	run_to(&b, 100);
	event(&b, ARRIVAL, 7, 4);
	run_to(&b, 110);
	b.in.flush = true;
	run_to(&b, 150);
	b.config.enable = false;
	run_to(&b, 400);
	CHECK(b.n_frames == 1, "%u frames", b.n_frames);
	CHECK(b.first_valid_cycle == 113, "first tvalid in cycle %" PRIu64, b.first_valid_cycle);
	CHECK(b.out.packets_sent == 1, "packets_sent %" PRIu64, b.out.packets_sent);
	expect_init(&e, 0, 100);
	add_timestamp(&e, 100);
	add_slot(&e, short_event(ARRIVAL, 7, 4, 0));
	check_frame(&b, 0, &e);
	bench_free(&b);
}

/*
 * Packets: arrival 10 + flush (seq 0), arrival 30 + flush (seq 1), disabled in 50..59 (the
 * arrival of 55 is not captured), enabled again: arrival 70 + flush (seq 0 again), arrival 80
 * closed by the disable of 81 (seq 1).
 */
static void test_enable_resets_seq(void)
{
	static const unsigned at[] = { 10, 30, 70, 80 };
	static const uint32_t seq[] = { 0, 1, 0, 1 };
	struct bench b;
	struct expect e;
	unsigned i;

	bench_init(&b);
	run_to(&b, 10);
	event(&b, ARRIVAL, 1, 1);
	step(&b);
	b.in.flush = true;
	run_to(&b, 30);
	event(&b, ARRIVAL, 1, 1);
	step(&b);
	b.in.flush = true;
	run_to(&b, 50);
	b.config.enable = false;
	run_to(&b, 55);
	event(&b, ARRIVAL, 1, 1);
	run_to(&b, 60);
	b.config.enable = true;
	run_to(&b, 70);
	event(&b, ARRIVAL, 1, 1);
	step(&b);
	b.in.flush = true;
	run_to(&b, 80);
	event(&b, ARRIVAL, 1, 1);
	step(&b);
	b.config.enable = false;
	run_to(&b, 300);
	CHECK(b.n_frames == 4, "%u frames", b.n_frames);
	for (i = 0; i < 4; i++) {
		expect_init(&e, seq[i], at[i]);
		add_timestamp(&e, at[i]);
		add_slot(&e, short_event(ARRIVAL, 1, 1, 0));
		check_frame(&b, i, &e);
	}
	bench_free(&b);
}

/*
 * Queue mask 0x0f, event mask arrival + drop: all 24 strobes in 10 give 8 events. Widening the
 * queue mask in 20 closes the packet. A departure in 30 is masked; an arrival of queue 7 in 31
 * is captured; the resolution change in 40 closes that packet; an arrival in 60 at resolution 3
 * has tick 60 >> 3 = 7 and the packet says C = 3.
 */
static void test_masks_and_resolution(void)
{
	struct bench b;
	struct expect e;
	unsigned q;

	bench_init(&b);
	b.config.queue_mask = 0x0f;
	b.config.event_mask = 0x5;
	run_to(&b, 10);
	for (q = 0; q < 8; q++) {
		event(&b, ARRIVAL, q, (uint16_t)(q + 1));
		event(&b, DEPARTURE, q, 50);
		event(&b, DROP, q, (uint16_t)(q + 100));
	}
	run_to(&b, 20);
	b.config.queue_mask = 0xff;
	run_to(&b, 30);
	event(&b, DEPARTURE, 7, 1);
	step(&b);
	event(&b, ARRIVAL, 7, 2);
	run_to(&b, 40);
	b.config.resolution = 3;
	run_to(&b, 60);
	event(&b, ARRIVAL, 5, 6);
	step(&b);
	b.in.flush = true;
	run_to(&b, 300);

	CHECK(b.n_frames == 3, "%u frames", b.n_frames);
	expect_init(&e, 0, 10);
	add_timestamp(&e, 10);
	for (q = 0; q < 4; q++) {
		add_slot(&e, short_event(ARRIVAL, q, q + 1, 0));
		add_slot(&e, short_event(DROP, q, q + 100, 0));
	}
	check_frame(&b, 0, &e);
	expect_init(&e, 1, 31);
	add_timestamp(&e, 31);
	add_slot(&e, short_event(ARRIVAL, 7, 2, 0));
	check_frame(&b, 1, &e);
	expect_init(&e, 2, 60);
	e.resolution = 3;
	add_timestamp(&e, 7);
	add_slot(&e, short_event(ARRIVAL, 5, 6, 0));
	check_frame(&b, 2, &e);
	bench_free(&b);
}

/*
 * A clear in cycle n leaves just what cycle n adds. Packet A: arrival in 20, timeout 5, last
 * word in 44. Packet B: two arrivals in 100 (timestamp 103, both events 104, CLOSE 109, header
 * 113..122, data 123..124): clearing in 124 leaves B's counts.
 */
static void test_counter_clear(void)
{
	struct bench b;

	bench_init(&b);
	b.config.flush_timeout = 5;
	run_to(&b, 20);
	event(&b, ARRIVAL, 0, 1);
	run_to(&b, 100);
	CHECK(b.out.events_sent == 1 && b.out.packets_sent == 1, "packet A not counted");
	event(&b, ARRIVAL, 0, 1);
	event(&b, ARRIVAL, 1, 1);
	run_to(&b, 124);
	CHECK(b.out.events_sent == 1 && b.out.packets_sent == 1, "packet B counted early");
	b.in.clear_events_sent = true;
	b.in.clear_packets_sent = true;
	step(&b);
	CHECK(b.out.events_sent == 2 && b.out.packets_sent == 1,
	      "after clear with increment: %" PRIu64 " %" PRIu64, b.out.events_sent,
	      b.out.packets_sent);
	run_to(&b, 200);
	b.in.clear_events_sent = true;
	step(&b);
	CHECK(b.out.events_sent == 0 && b.out.packets_sent == 1, "after clear: %" PRIu64,
	      b.out.events_sent);
	bench_free(&b);
}

/* timer(n+1) = reset ? 0 : load ? preset : timer(n) + 1; 0 after reset. */
static void test_timer(void)
{
	struct bench b;

	bench_init(&b);
	CHECK(b.out.timer == 0, "timer after reset %" PRIu64, b.out.timer);
	run_to(&b, 5);
	CHECK(b.out.timer == 5, "timer %" PRIu64, b.out.timer);
	b.config.timer_preset = 1000;
	b.in.timer_load = true;
	step(&b);
	CHECK(b.out.timer == 1000, "after load %" PRIu64, b.out.timer);
	step(&b);
	CHECK(b.out.timer == 1001, "after load + 1 %" PRIu64, b.out.timer);
	b.in.timer_load = true;
	b.in.timer_reset = true;
	step(&b);
	CHECK(b.out.timer == 0, "reset over load %" PRIu64, b.out.timer);
	bench_free(&b);
}

static void test_bad_params(void)
{
	struct evcap_model_params params;
	struct evcap_model *model = NULL;

	evcap_model_default_params(&params);
	params.queue_size_width = 0;
	CHECK(evcap_model_create(&params, &model) == -EINVAL, "width 0 accepted");
	evcap_model_default_params(&params);
	params.queue_size_width = 33;
	CHECK(evcap_model_create(&params, &model) == -EINVAL, "width 33 accepted");
	evcap_model_default_params(&params);
	params.record_fifo_depth_log2 = 0;
	CHECK(evcap_model_create(&params, &model) == -EINVAL, "depth 0 accepted");
	evcap_model_default_params(&params);
	params.packet_ram_depth_log2 = 10;	/* less than a 9000-byte packet */
	CHECK(evcap_model_create(&params, &model) == -EINVAL, "ring of 1024 words accepted");
	CHECK(model == NULL, "model set on error");
	evcap_model_default_params(&params);
	params.record_fifo_depth_log2 = 1;
	params.descriptor_fifo_depth_log2 = 1;
	CHECK(evcap_model_create(&params, &model) == 0 && model, "small FIFOs refused");
	evcap_model_destroy(model);
}

/* Occupancy is masked to QUEUE_SIZE_WIDTH bits. */
static void test_occupancy_width(void)
{
	struct evcap_model_params params;
	struct evcap_model_config config;
	struct evcap_model_inputs in;
	struct evcap_model_outputs out;
	struct evcap_model *model;
	uint8_t frame[92];
	size_t length = 0;

	evcap_model_default_params(&params);
	params.queue_size_width = 12;
	if (evcap_model_create(&params, &model)) {
		CHECK(false, "create");
		return;
	}
	memset(&config, 0, sizeof(config));
	config.enable = true;
	config.queue_mask = 0xff;
	config.event_mask = 7;
	config.max_length = 1500;
	config.flush_timeout = 1;
	memset(&in, 0, sizeof(in));
	in.tready = true;
	for (unsigned q = 0; q < 8; q++)
		in.occupancy[q] = 0xfedcb000u | (q << 8) | 0x21;
	for (unsigned cycle = 0; cycle < 100; cycle++) {
		in.arrival = cycle == 10;
		evcap_model_outputs(model, &out);
		for (unsigned k = 0; out.tvalid && k < 8 && length < sizeof(frame); k++)
			frame[length++] = (uint8_t)(out.tdata >> (8 * k));
		evcap_model_step(model, &config, &in);
	}
	CHECK(length == sizeof(frame), "%zu bytes", length);
	for (unsigned q = 0; q < 8; q++)
		CHECK(frame[48 + 4 * q] == 0 && frame[49 + 4 * q] == 0 &&
		      frame[50 + 4 * q] == q && frame[51 + 4 * q] == 0x21,
		      "snapshot %u: %02x%02x%02x%02x", q, frame[48 + 4 * q], frame[49 + 4 * q],
		      frame[50 + 4 * q], frame[51 + 4 * q]);
	evcap_model_destroy(model);
}

struct test {
	const char *name;
	void (*fn)(void);
};

static const struct test tests[] = {
	{ "one arrival: cycle, header, checksum, slots", test_single_arrival },
	{ "gap 2^19-1 is one short event", test_gap_fits },
	{ "gap 2^19 inserts a timestamp", test_gap_needs_timestamp },
	{ "ticks wrap modulo 2^62", test_tick_wraps },
	{ "24 events in one clock, fixed order", test_all_24_events },
	{ "tready toggling keeps the bytes", test_backpressure },
	{ "one record split over packets", test_record_split },
	{ "max_length boundary, odd slots tkeep 0x0f", test_max_length },
	{ "a timestamp inside a packet needs room for its group", test_timestamp_room },
	{ "record FIFO overflow: misses, counter, M bit", test_record_fifo_overflow },
	{ "flush timeout waits for the timestamp's event", test_timeout_waits_for_event },
	{ "ring full: the serializer waits, loses nothing", test_ring_full_waits },
	{ "force flush of an empty packet sends nothing", test_empty_flush },
	{ "enable rising resets seq", test_enable_resets_seq },
	{ "masks filter and close, resolution closes", test_masks_and_resolution },
	{ "counter clear keeps the same cycle's increment", test_counter_clear },
	{ "timer reset and load", test_timer },
	{ "bad parameters", test_bad_params },
	{ "occupancy masked to queue_size_width", test_occupancy_width },
};

int main(void)
{
	unsigned n = sizeof(tests) / sizeof(tests[0]);
	unsigned failed = 0;

	for (unsigned i = 0; i < n; i++) {
		check_failed = false;
		tests[i].fn();
		printf("%sok %u - %s\n", check_failed ? "not " : "", i + 1, tests[i].name);
		if (check_failed)
			failed++;
	}
	printf("1..%u\n", n);
	return failed ? 1 : 0;
}
