/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of the stat packet decoder (src/decode.c).
 *
 * Inputs are written by hand: literal byte arrays, or small helpers that write big-endian
 * fields with the bit positions spelled out here (not taken from format.h), so that a mistake
 * shared by an encoder and this decoder cannot hide.
 *
 * The summary accumulator (pktstats_decode_payload_summary, pktstats_stream_feed_frame_summary)
 * is checked on hand-written packets whose figures are worked out in the comments, then on
 * random packets against a small exact reference of its own (tsum_add), with a fixed seed and
 * one from the clock, both printed; PKTSTATS_TEST_SEED=N replays seed N alone.
 */
#include "pktstats/decode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_rng.h"

/* ---------------------------------------------------------------------------------------- */
/* TAP                                                                                        */

static unsigned tests_run, tests_failed;
static int test_ok; /* the current test's verdict */

static void begin(void)
{
	test_ok = 1;
}

static void end(const char *name)
{
	tests_run++;
	if (!test_ok)
		tests_failed++;
	printf("%sok %u - %s\n", test_ok ? "" : "not ", tests_run, name);
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Checks inside a test: the first few failures are explained as TAP comments. */
#define EXPECT(cond)                                                                     \
	do {                                                                             \
		if (!(cond)) {                                                           \
			if (test_ok)                                                     \
				diag("line %d: %s", __LINE__, #cond);                    \
			test_ok = 0;                                                     \
		}                                                                        \
	} while (0)

#define EXPECT_EQ(a, b)                                                                  \
	do {                                                                             \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                         \
		if (a_ != b_) {                                                          \
			if (test_ok)                                                     \
				diag("line %d: %s == %s: 0x%" PRIx64 " != 0x%" PRIx64,   \
				     __LINE__, #a, #b, a_, b_);                          \
			test_ok = 0;                                                     \
		}                                                                        \
	} while (0)

/* ---------------------------------------------------------------------------------------- */
/* Hand-written input                                                                         */

struct buf {
	uint8_t b[70000];
	size_t n;
};

static void put8(struct buf *b, unsigned v)
{
	b->b[b->n++] = (uint8_t)v;
}

static void put16(struct buf *b, unsigned v)
{
	put8(b, v >> 8 & 0xff);
	put8(b, v & 0xff);
}

static void put32(struct buf *b, uint32_t v)
{
	put8(b, v >> 24 & 0xff);
	put8(b, v >> 16 & 0xff);
	put8(b, v >> 8 & 0xff);
	put8(b, v & 0xff);
}

enum { ARR = 1, DEP = 2, DROP = 3 };

/* Short event slot: type 31:30, queue 29:27, length 26:19, gap (v1: time low bits) 18:0. */
static uint32_t ev(unsigned type, unsigned queue, unsigned length, uint32_t gap)
{
	return (uint32_t)type << 30 | (uint32_t)queue << 27 | (uint32_t)length << 19 | gap;
}

static void put_ev(struct buf *b, unsigned type, unsigned queue, unsigned length, uint32_t gap)
{
	put32(b, ev(type, queue, length, gap));
}

/* Timestamp event: `00` + bits 61:32, then bits 31:0. */
static void put_ts(struct buf *b, uint64_t tick)
{
	put32(b, (uint32_t)(tick >> 32) & 0x3fffffff);
	put32(b, (uint32_t)tick);
}

/* Version 2 header: M<<7 | c<<4 | 2, 3, seq, 8 queue sizes. qs NULL = all 0. */
static void put_hdr2(struct buf *b, int missed, unsigned c, uint32_t seq, const uint32_t *qs)
{
	b->n = 0;
	put8(b, (missed ? 0x80u : 0) | c << 4 | 2);
	put8(b, 3);
	put32(b, seq);
	for (int q = 0; q < 8; q++)
		put32(b, qs ? qs[q] : 0);
}

/* Version 1 header: byte0 (reserved<<4 | 1), 3, seq, 8 x (words, packets). */
static void put_hdr1(struct buf *b, unsigned byte0, uint32_t seq, const uint32_t *words,
		     const uint32_t *packets)
{
	b->n = 0;
	put8(b, byte0);
	put8(b, 3);
	put32(b, seq);
	for (int q = 0; q < 8; q++) {
		put32(b, words ? words[q] : 0);
		put32(b, packets ? packets[q] : 0);
	}
}

/* A minimal valid v2 payload: timestamp `tick` + one arrival on queue 0. */
static void minimal_packet(struct buf *b, uint32_t seq, int missed, uint64_t tick)
{
	put_hdr2(b, missed, 0, seq, NULL);
	put_ts(b, tick);
	put_ev(b, ARR, 0, 1, 0);
}

/* Ethernet / IPv4 / UDP around a payload. */
struct frame_opts {
	int vlan;             /* add an 802.1Q tag */
	uint16_t tci;
	uint16_t ethertype;   /* after the tag */
	unsigned ihl;         /* 5.. (options are zero bytes) */
	unsigned ip_version;
	uint8_t proto;
	uint16_t frag;        /* flags + fragment offset */
	int total_adjust;     /* added to the correct IP total length */
	int udp_adjust;       /* added to the correct UDP length */
	size_t trailer;       /* padding / FCS bytes after the IP packet */
	uint32_t sip, dip;
	uint16_t sport, dport;
	uint16_t id;
};

static struct frame_opts frame_defaults(void)
{
	struct frame_opts o = {0};

	o.ethertype = 0x0800;
	o.ihl = 5;
	o.ip_version = 4;
	o.proto = 17;
	o.frag = 0x4000; /* DF */
	o.sip = 0x0a000001;
	o.dip = 0x0a000002;
	o.sport = 27033;
	o.dport = 27033;
	o.id = 7;
	return o;
}

static size_t build_frame(struct buf *f, const uint8_t *payload, size_t n,
			  const struct frame_opts *o)
{
	size_t ip_start, total = o->ihl * 4 + 8 + n;
	uint32_t sum = 0;

	f->n = 0;
	for (int i = 0; i < 6; i++)
		put8(f, i == 5 ? 1 : i == 0 ? 2 : 0);
	for (int i = 0; i < 6; i++)
		put8(f, i == 5 ? 2 : i == 0 ? 2 : 0);
	if (o->vlan) {
		put16(f, 0x8100);
		put16(f, o->tci);
	}
	put16(f, o->ethertype);
	ip_start = f->n;
	put8(f, o->ip_version << 4 | o->ihl);
	put8(f, 0);
	put16(f, (unsigned)((int)total + o->total_adjust));
	put16(f, o->id);
	put16(f, o->frag);
	put8(f, 64);
	put8(f, o->proto);
	put16(f, 0); /* checksum, below */
	put32(f, o->sip);
	put32(f, o->dip);
	for (unsigned i = 5; i < o->ihl; i++)
		put32(f, 0x01010101); /* NOP options */
	for (size_t i = ip_start; i < ip_start + o->ihl * 4; i += 2)
		sum += (uint32_t)f->b[i] << 8 | f->b[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	f->b[ip_start + 10] = (uint8_t)(~sum >> 8);
	f->b[ip_start + 11] = (uint8_t)~sum;
	put16(f, o->sport);
	put16(f, o->dport);
	put16(f, (unsigned)((int)(8 + n) + o->udp_adjust));
	put16(f, 0);
	memcpy(f->b + f->n, payload, n);
	f->n += n;
	for (size_t i = 0; i < o->trailer; i++)
		put8(f, 0xa5);
	return f->n;
}

static struct pktstats_event events[PKTSTATS_DECODE_MAX_EVENTS];

/* An exact-size heap copy, so that AddressSanitizer sees any read past the end. (calloc: for
 * n = 0 the one byte is never read, but gcc cannot tell once this is inlined.) */
static uint8_t *exact(const uint8_t *p, size_t n)
{
	uint8_t *c = calloc(n ? n : 1, 1);

	if (!c) {
		printf("Bail out! out of memory\n");
		exit(2);
	}
	if (n)
		memcpy(c, p, n);
	return c;
}

/* Decodes with events; returns the return code, fills packet/n/reason. */
static int dec(const struct buf *b, struct pktstats_packet *p, size_t *n,
	       enum pktstats_decode_error *why)
{
	uint8_t *c = exact(b->b, b->n);
	int r = pktstats_decode_payload(c, b->n, p, events, PKTSTATS_DECODE_MAX_EVENTS, n, why);

	free(c);
	return r;
}

static int dec_opt(const struct buf *b, const struct pktstats_decode_options *o,
		   struct pktstats_packet *p, size_t *n, enum pktstats_decode_error *why)
{
	uint8_t *c = exact(b->b, b->n);
	int r = pktstats_decode_payload_ex(c, b->n, o, p, events, PKTSTATS_DECODE_MAX_EVENTS, n,
					   why);

	free(c);
	return r;
}

static void expect_event(int line, const struct pktstats_event *e, uint64_t tick, unsigned type,
			 unsigned queue, unsigned length, int64_t occupancy, uint32_t slot)
{
	if (e->tick != tick || e->type != type || e->queue != queue || e->length != length ||
	    e->occupancy != occupancy || e->slot != slot) {
		if (test_ok)
			diag("line %d: event tick 0x%" PRIx64 " type %u queue %u length %u occ %" PRId64
			     " slot %u; expected 0x%" PRIx64 " %u %u %u %" PRId64 " %u",
			     line, e->tick, e->type, e->queue, e->length, e->occupancy, e->slot,
			     tick, type, queue, length, occupancy, slot);
		test_ok = 0;
	}
}
#define EXPECT_EVENT(e, ...) expect_event(__LINE__, e, __VA_ARGS__)

/* ---------------------------------------------------------------------------------------- */
/* Payload tests                                                                              */

/* A normal packet, written out byte by byte. */
static const uint8_t normal_packet[] = {
	0x02, 0x03,             /* M=0 c=0 v=2, 3 event types */
	0x00, 0x00, 0x00, 0x07, /* sequence 7 */
	0x00, 0x00, 0x00, 0x64, /* q0 100 words */
	0x00, 0x00, 0x00, 0x00, /* q1 */
	0x00, 0x01, 0x00, 0x00, /* q2 65536 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, /* q3..q6 */
	0x00, 0x00, 0x00, 0x05, /* q7 5 */
	0x00, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, /* slots 0-1: timestamp 0x123456789 */
	0x40, 0x50, 0x00, 0x00, /* slot 2: arrival q0 len 10 gap 0 */
	0x50, 0x18, 0x00, 0x05, /* slot 3: arrival q2 len 3 gap 5 */
	0x80, 0x27, 0xff, 0xff, /* slot 4: departure q0 len 4 gap 0x7ffff */
	0xff, 0xf8, 0x00, 0x01, /* slot 5: drop q7 len 255 gap 1 */
	0xb8, 0x10, 0x00, 0x02, /* slot 6: departure q7 len 2 gap 2 */
};

static void test_normal_packet(void)
{
	struct pktstats_packet p;
	enum pktstats_decode_error why = PKTSTATS_DECODE_CUT_TIMESTAMP;
	size_t n = 99;
	const uint64_t t0 = 0x123456789;
	int r;

	begin();
	r = pktstats_decode_payload(normal_packet, sizeof(normal_packet), &p, events, 16, &n, &why);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(why, PKTSTATS_DECODE_OK);
	EXPECT_EQ(n, 5);
	EXPECT_EQ(p.version, 2);
	EXPECT_EQ(p.missed, 0);
	EXPECT_EQ(p.resolution, 0);
	EXPECT_EQ(p.event_types, 3);
	EXPECT_EQ(p.sequence, 7);
	EXPECT_EQ(p.queue_size[0], 100);
	EXPECT_EQ(p.queue_size[1], 0);
	EXPECT_EQ(p.queue_size[2], 65536);
	EXPECT_EQ(p.queue_size[6], 0);
	EXPECT_EQ(p.queue_size[7], 5);
	EXPECT_EQ(p.queue_packets[0], 0);
	EXPECT_EQ(p.n_slots, 7);
	EXPECT_EQ(p.n_events, 5);
	EXPECT_EQ(p.n_timestamps, 1);
	EXPECT_EQ(p.start_tick, t0);
	EXPECT_EQ(p.first_tick, t0);
	EXPECT_EQ(p.last_tick, t0 + 5 + 0x7ffff + 1 + 2);
	EXPECT_EVENT(&events[0], t0, ARR, 0, 10, 110, 2);
	EXPECT_EVENT(&events[1], t0 + 5, ARR, 2, 3, 65539, 3);
	EXPECT_EVENT(&events[2], t0 + 5 + 0x7ffff, DEP, 0, 4, 106, 4);
	EXPECT_EVENT(&events[3], t0 + 5 + 0x7ffff + 1, DROP, 7, 255, 5, 5);
	EXPECT_EVENT(&events[4], t0 + 5 + 0x7ffff + 3, DEP, 7, 2, 3, 6);
	EXPECT_EQ(events[0].time_ns, t0 * 8);
	EXPECT_EQ(events[4].time_ns, (t0 + 5 + 0x7ffff + 3) * 8);
	EXPECT_EQ(events[1].reserved, 0);
	end("normal packet: timestamp + arrivals, departures, drop, gaps up to 0x7ffff");
}

static void test_header_fields(void)
{
	struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;
	const uint32_t qs[8] = {0xffffffff, 1, 2, 3, 4, 5, 6, 0x80000000};

	begin();
	put_hdr2(&b, 1, 5, 0xdeadbeef, qs);
	put_ts(&b, 0x2aaaaaaa55555555 & ((UINT64_C(1) << 62) - 1));
	put_ev(&b, ARR, 0, 255, 3);
	put_ev(&b, ARR, 7, 1, 0);
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(p.missed, 1);
	EXPECT_EQ(p.resolution, 5);
	EXPECT_EQ(p.sequence, 0xdeadbeef);
	for (int q = 0; q < 8; q++)
		EXPECT_EQ(p.queue_size[q], qs[q]);
	EXPECT_EQ(p.start_tick, 0x2aaaaaaa55555555);
	EXPECT_EQ(p.first_tick, 0x2aaaaaaa55555558);
	/* A full 32-bit queue plus 255 words does not wrap. */
	EXPECT_EQ(events[0].occupancy, INT64_C(0xffffffff) + 255);
	EXPECT_EQ(events[1].occupancy, INT64_C(0x80000000) + 1);
	end("header: M flag, resolution, sequence, 32-bit queue sizes, 64-bit occupancy");
}

static void test_first_gap(void)
{
	struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;

	begin();
	put_hdr2(&b, 0, 0, 1, NULL);
	put_ts(&b, 1000);
	put_ev(&b, ARR, 3, 2, 17); /* the first short event may have a gap from the timestamp */
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(p.start_tick, 1000);
	EXPECT_EQ(p.first_tick, 1017);
	EXPECT_EQ(p.last_tick, 1017);
	EXPECT_EQ(events[0].tick, 1017);
	end("first short event's gap counts from the opening timestamp");
}

static void test_mid_timestamp(void)
{
	struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;
	const uint32_t qs[8] = {0, 0, 40};
	const uint64_t t0 = 500, t1 = 500 + 1 + 0x80000 + 12345;

	begin();
	put_hdr2(&b, 0, 0, 2, qs);
	put_ts(&b, t0);
	put_ev(&b, ARR, 2, 8, 1);   /* slot 2 */
	put_ts(&b, t1);             /* slots 3-4 */
	put_ev(&b, DEP, 2, 8, 0);   /* slot 5: gap from the new timestamp */
	put_ev(&b, ARR, 2, 16, 7);  /* slot 6 */
	put_ts(&b, 3);              /* slots 7-8: timer reset: time goes back */
	put_ev(&b, DROP, 2, 9, 2);  /* slot 9 */
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(n, 4);
	EXPECT_EQ(p.n_timestamps, 3);
	EXPECT_EQ(p.n_slots, 10);
	EXPECT_EVENT(&events[0], t0 + 1, ARR, 2, 8, 48, 2);
	EXPECT_EVENT(&events[1], t1, DEP, 2, 8, 40, 5);
	EXPECT_EVENT(&events[2], t1 + 7, ARR, 2, 16, 56, 6);
	EXPECT_EVENT(&events[3], 5, DROP, 2, 9, 56, 9);
	EXPECT_EQ(p.first_tick, t0 + 1);
	EXPECT_EQ(p.last_tick, 5);
	end("timestamp mid-packet rebases the gaps; slot indices skip it; backwards ok");
}

static void test_wrap62(void)
{
	struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;
	const uint64_t top = (UINT64_C(1) << 62) - 3;

	begin();
	put_hdr2(&b, 0, 0, 3, NULL);
	put_ts(&b, top);
	put_ev(&b, ARR, 1, 1, 2);         /* 2^62 - 1 */
	put_ev(&b, ARR, 1, 1, 5);         /* 2^62 + 4 -> 4 */
	put_ev(&b, DEP, 1, 1, 0x7ffff);   /* 4 + 0x7ffff */
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(b.b[38], 0x3f); /* the helper wrote all 30 high bits */
	EXPECT_EQ(p.start_tick, top);
	EXPECT_EQ(events[0].tick, (UINT64_C(1) << 62) - 1);
	EXPECT_EQ(events[1].tick, 4);
	EXPECT_EQ(events[2].tick, 4 + 0x7ffff);
	EXPECT_EQ(events[1].time_ns, 32);
	EXPECT_EQ(p.first_tick, (UINT64_C(1) << 62) - 1);
	EXPECT_EQ(p.last_tick, 4 + 0x7ffff);
	/* the first short event already past the wrap */
	put_hdr2(&b, 0, 0, 3, NULL);
	put_ts(&b, (UINT64_C(1) << 62) - 1);
	put_ev(&b, ARR, 1, 1, 3);
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(p.first_tick, 2);
	EXPECT_EQ(p.last_tick, 2);
	EXPECT_EQ(events[0].tick, 2);
	EXPECT_EQ(pktstats_decode_payload(b.b, b.n, &p, NULL, 0, &n, &why), 0);
	EXPECT_EQ(p.first_tick, 2);
	end("tick arithmetic wraps modulo 2^62");
}

static void test_every_resolution(void)
{
	struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;
	const uint64_t t = 0x0123456789ab;

	begin();
	for (unsigned c = 0; c < 8; c++) {
		put_hdr2(&b, 0, c, c, NULL);
		put_ts(&b, t);
		put_ev(&b, ARR, 0, 1, 3);
		put_ts(&b, (UINT64_C(1) << 62) - 1); /* the largest tick: time_ns wraps at 2^64 */
		put_ev(&b, DEP, 0, 1, 0);
		EXPECT_EQ(dec(&b, &p, &n, &why), 0);
		EXPECT_EQ(p.resolution, c);
		EXPECT_EQ(events[0].tick, t + 3);
		EXPECT_EQ(events[0].time_ns, (t + 3) * 8 * (UINT64_C(1) << c));
		EXPECT_EQ(events[1].time_ns, ((UINT64_C(1) << 62) - 1) * 8 * (UINT64_C(1) << c));
		EXPECT_EQ(pktstats_tick_to_ns(t + 3, c), (t + 3) * 8 * (UINT64_C(1) << c));
	}
	end("every resolution c = 0..7: time_ns = tick * 8 * 2^c (mod 2^64)");
}

static void test_occupancy(void)
{
	struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;
	const uint32_t qs[8] = {1, 0, 0, 30, 0, 0, 0, 0};

	begin();
	put_hdr2(&b, 0, 0, 4, qs);
	put_ts(&b, 77);
	put_ev(&b, ARR, 3, 20, 0);    /* 50 */
	put_ev(&b, DROP, 3, 50, 0);   /* 50: drop unchanged */
	put_ev(&b, DROP, 3, 255, 1);  /* 50 */
	put_ev(&b, DROP, 5, 9, 0);    /* queue 5 stays 0 */
	put_ev(&b, DEP, 3, 20, 1);    /* 30 */
	put_ev(&b, DEP, 0, 5, 0);     /* queue 0: 1 - 5 = -4, shows as negative */
	put_ev(&b, ARR, 0, 4, 0);     /* 0 */
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(n, 7);
	EXPECT_EVENT(&events[0], 77, ARR, 3, 20, 50, 2);
	EXPECT_EVENT(&events[1], 77, DROP, 3, 50, 50, 3);
	EXPECT_EVENT(&events[2], 78, DROP, 3, 255, 50, 4);
	EXPECT_EVENT(&events[3], 78, DROP, 5, 9, 0, 5);
	EXPECT_EVENT(&events[4], 79, DEP, 3, 20, 30, 6);
	EXPECT_EVENT(&events[5], 79, DEP, 0, 5, -4, 7);
	EXPECT_EVENT(&events[6], 79, ARR, 0, 4, 0, 8);
	end("occupancy: +len arrival, -len departure, drops unchanged, negative when inconsistent");
}

static void test_summary_mode(void)
{
	struct pktstats_packet p, q;
	enum pktstats_decode_error why;
	size_t n = 42;

	begin();
	EXPECT_EQ(pktstats_decode_payload(normal_packet, sizeof(normal_packet), &p, NULL, 0, &n,
					  &why), 0);
	EXPECT_EQ(n, 0);
	EXPECT_EQ(p.n_events, 5);
	EXPECT_EQ(p.last_tick, 0x123456789 + 5 + 0x7ffff + 3);
	EXPECT_EQ(pktstats_decode_payload(normal_packet, sizeof(normal_packet), &q, events, 16,
					  NULL, NULL), 0);
	EXPECT(memcmp(&p, &q, sizeof(p)) == 0);
	/* max_events is ignored without an array */
	EXPECT_EQ(pktstats_decode_payload(normal_packet, sizeof(normal_packet), &p, NULL, 1000,
					  &n, &why), 0);
	EXPECT_EQ(n, 0);
	end("summary mode (events NULL): same packet summary, no events");
}

static void test_enospc(void)
{
	struct pktstats_packet p;
	enum pktstats_decode_error why;
	size_t n = 0;

	begin();
	memset(events, 0xee, 4 * sizeof(events[0]));
	EXPECT_EQ(pktstats_decode_payload(normal_packet, sizeof(normal_packet), &p, events, 2, &n,
					  &why), -ENOSPC);
	EXPECT_EQ(why, PKTSTATS_DECODE_OK);
	EXPECT_EQ(n, 2);
	EXPECT_EQ(p.n_events, 5);
	EXPECT_EQ(p.last_tick, 0x123456789 + 5 + 0x7ffff + 3);
	EXPECT_EVENT(&events[1], 0x123456789 + 5, ARR, 2, 3, 65539, 3);
	EXPECT_EQ(events[2].tick, 0xeeeeeeeeeeeeeeee); /* not written past max_events */
	EXPECT_EQ(pktstats_decode_payload(normal_packet, sizeof(normal_packet), &p, events, 5, &n,
					  &why), 0);
	EXPECT_EQ(n, 5);
	end("-ENOSPC when the event array is too small; the first max_events are written");
}

static void test_max_events(void)
{
	static struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;
	struct frame_opts o = frame_defaults();
	static struct buf f;
	struct pktstats_frame_view v;

	begin();
	put_hdr2(&b, 0, 0, 9, NULL);
	put_ts(&b, 0);
	for (int i = 0; i < PKTSTATS_DECODE_MAX_EVENTS; i++)
		put_ev(&b, (unsigned)(i % 2) + 1, 0, 1, 1);
	EXPECT_EQ(b.n, 38 + 4 * 16367);
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(n, PKTSTATS_DECODE_MAX_EVENTS);
	EXPECT_EQ(events[PKTSTATS_DECODE_MAX_EVENTS - 1].tick, PKTSTATS_DECODE_MAX_EVENTS);
	EXPECT_EQ(events[PKTSTATS_DECODE_MAX_EVENTS - 1].occupancy, 1);
	EXPECT_EQ(events[PKTSTATS_DECODE_MAX_EVENTS - 1].slot, PKTSTATS_DECODE_MAX_EVENTS + 1);
	build_frame(&f, b.b, b.n, &o);
	EXPECT_EQ(pktstats_parse_frame(f.b, f.n, &v), 0);
	EXPECT_EQ(v.ip_total_len, 65534); /* one more slot would need 65538 */
	EXPECT_EQ(v.payload_len, b.n);
	EXPECT(PKTSTATS_HW_MAX_EVENTS == (9000 - 66) / 4 - 2);
	end("largest frame (IP total 65534) holds PKTSTATS_DECODE_MAX_EVENTS events");
}

/* Malformed payloads: each with its reason. */
static void expect_bad(int line, const struct buf *b, enum pktstats_decode_error reason,
		       unsigned header_version)
{
	struct pktstats_packet p, q;
	enum pktstats_decode_error why = PKTSTATS_DECODE_OK, why2 = PKTSTATS_DECODE_OK;
	size_t n;
	uint8_t *c = exact(b->b, b->n);
	int r = dec(b, &p, &n, &why);
	int r2 = pktstats_decode_payload(c, b->n, &q, NULL, 0, NULL, &why2);

	free(c);

	if (r != -EBADMSG || why != reason || r2 != -EBADMSG || why2 != reason ||
	    p.version != header_version) {
		if (test_ok)
			diag("line %d: r %d reason %s (%s) summary %d %s, version %u; expected %s, "
			     "version %u", line, r, pktstats_decode_error_name(why),
			     pktstats_decode_strerror(why), r2, pktstats_decode_error_name(why2),
			     p.version, pktstats_decode_error_name(reason), header_version);
		test_ok = 0;
	}
}
#define EXPECT_BAD(b, reason, version) expect_bad(__LINE__, b, reason, version)

static void test_bad_truncated(void)
{
	struct buf b;
	struct pktstats_packet p;
	enum pktstats_decode_error why;

	begin();
	minimal_packet(&b, 1, 0, 5);
	for (size_t len = 0; len < 38; len++) {
		b.n = len;
		EXPECT_BAD(&b, PKTSTATS_DECODE_TRUNCATED, 0);
	}
	put_hdr1(&b, 0x01, 1, NULL, NULL);
	put_ts(&b, 5);
	for (size_t len = 1; len < 70; len++) {
		b.n = len;
		EXPECT_BAD(&b, PKTSTATS_DECODE_TRUNCATED, 0);
	}
	EXPECT_EQ(pktstats_decode_payload(NULL, 0, &p, NULL, 0, NULL, &why), -EBADMSG);
	EXPECT_EQ(why, PKTSTATS_DECODE_TRUNCATED);
	end("malformed: shorter than the header (38 bytes v2, 70 bytes v1) -> truncated");
}

static void test_bad_partial_slot(void)
{
	struct buf b;

	begin();
	minimal_packet(&b, 1, 0, 5);
	for (size_t len = 39; len < b.n; len++) {
		struct buf c = b;

		c.n = len;
		if ((len - 38) % 4)
			EXPECT_BAD(&c, PKTSTATS_DECODE_PARTIAL_SLOT, 2);
	}
	put8(&b, 0);
	EXPECT_BAD(&b, PKTSTATS_DECODE_PARTIAL_SLOT, 2);
	end("malformed: slot area not a multiple of 4 bytes -> partial_slot (header still valid)");
}

static void test_bad_version(void)
{
	struct buf b;
	struct pktstats_decode_options o;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;

	begin();
	for (unsigned v = 0; v < 16; v++) {
		if (v == 1 || v == 2)
			continue;
		put_hdr1(&b, v, 1, NULL, NULL); /* long enough for either header */
		put_ts(&b, 5);
		put_ev(&b, ARR, 0, 1, 0);
		EXPECT_BAD(&b, PKTSTATS_DECODE_BAD_VERSION, 0);
		b.b[0] = (uint8_t)(0xf0 | v);
		EXPECT_BAD(&b, PKTSTATS_DECODE_BAD_VERSION, 0);
	}
	/* version 1 refused when not accepted */
	put_hdr1(&b, 0x01, 1, NULL, NULL);
	put_ts(&b, 5);
	put_ev(&b, ARR, 0, 1, 5);
	pktstats_decode_default_options(&o);
	EXPECT_EQ(dec_opt(&b, &o, &p, &n, &why), 0);
	o.accept_v1 = false;
	EXPECT_EQ(dec_opt(&b, &o, &p, &n, &why), -EBADMSG);
	EXPECT_EQ(why, PKTSTATS_DECODE_BAD_VERSION);
	EXPECT_EQ(p.version, 0);
	o.accept_v1 = true;
	o.v1_resolution = 8;
	EXPECT_EQ(dec_opt(&b, &o, &p, &n, &why), -EINVAL);
	end("malformed: version not 2 (nor 1 when accepted) -> bad_version");
}

static void test_bad_event_types(void)
{
	struct buf b;
	const unsigned bad[] = {0, 1, 2, 4, 0x83, 0xff};

	begin();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		minimal_packet(&b, 1, 0, 5);
		b.b[1] = (uint8_t)bad[i];
		EXPECT_BAD(&b, PKTSTATS_DECODE_BAD_EVENT_TYPES, 0);
		put_hdr1(&b, 0x01, 1, NULL, NULL);
		put_ts(&b, 5);
		b.b[1] = (uint8_t)bad[i];
		EXPECT_BAD(&b, PKTSTATS_DECODE_BAD_EVENT_TYPES, 0);
	}
	end("malformed: number of event types not 3 -> bad_event_types");
}

static void test_bad_first_not_timestamp(void)
{
	struct buf b;

	begin();
	for (unsigned t = 1; t <= 3; t++) {
		put_hdr2(&b, 0, 0, 1, NULL);
		put_ev(&b, t, 0, 1, 0);
		put_ts(&b, 5);
		put_ev(&b, ARR, 0, 1, 0);
		EXPECT_BAD(&b, PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP, 2);
		b.n = 38 + 4; /* a lone short event */
		EXPECT_BAD(&b, PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP, 2);
		put_hdr1(&b, 0x01, 1, NULL, NULL);
		put_ev(&b, t, 0, 1, 0);
		put_ev(&b, t, 0, 1, 0);
		put_ts(&b, 5);
		EXPECT_BAD(&b, PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP, 1);
	}
	end("malformed: first slot is a short event -> first_not_timestamp");
}

static void test_bad_cut_timestamp(void)
{
	struct buf b;

	begin();
	put_hdr2(&b, 0, 0, 1, NULL);
	put32(&b, 0x00000001); /* first half of a timestamp, nothing after */
	EXPECT_BAD(&b, PKTSTATS_DECODE_CUT_TIMESTAMP, 2);
	minimal_packet(&b, 1, 0, 5);
	put_ev(&b, DEP, 0, 1, 4);
	put32(&b, 0x00000002); /* a later timestamp cut at the end */
	EXPECT_BAD(&b, PKTSTATS_DECODE_CUT_TIMESTAMP, 2);
	put_hdr1(&b, 0x01, 1, NULL, NULL);
	put_ts(&b, 5);
	put_ev(&b, ARR, 0, 1, 5);
	put32(&b, 0);
	EXPECT_BAD(&b, PKTSTATS_DECODE_CUT_TIMESTAMP, 1);
	end("malformed: timestamp whose first slot is the last slot -> cut_timestamp");
}

static void test_bad_no_events(void)
{
	struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;

	begin();
	put_hdr2(&b, 0, 0, 1, NULL);
	EXPECT_BAD(&b, PKTSTATS_DECODE_NO_EVENTS, 2); /* header only */
	put_ts(&b, 5);
	EXPECT_BAD(&b, PKTSTATS_DECODE_NO_EVENTS, 2); /* timestamp only */
	put_ts(&b, 9);
	EXPECT_BAD(&b, PKTSTATS_DECODE_NO_EVENTS, 2); /* timestamps only */
	/* version 1: a timestamp alone is accepted, an empty slot area is not */
	put_hdr1(&b, 0x01, 1, NULL, NULL);
	EXPECT_BAD(&b, PKTSTATS_DECODE_NO_EVENTS, 1);
	put_ts(&b, 0x1234);
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(n, 0);
	EXPECT_EQ(p.n_events, 0);
	EXPECT_EQ(p.first_tick, 0x1234);
	EXPECT_EQ(p.last_tick, 0x1234);
	/* a trailing timestamp after events is accepted (redundant, harmless) */
	minimal_packet(&b, 1, 0, 5);
	put_ts(&b, 100);
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(p.n_events, 1);
	EXPECT_EQ(p.n_timestamps, 2);
	EXPECT_EQ(p.last_tick, 5);
	end("malformed: v2 packet without a short event -> no_events (v1 timestamp alone ok)");
}

static void test_strerror(void)
{
	begin();
	for (int i = 0; i < PKTSTATS_DECODE_ERROR_COUNT; i++) {
		const char *s = pktstats_decode_strerror((enum pktstats_decode_error)i);
		const char *name = pktstats_decode_error_name((enum pktstats_decode_error)i);

		EXPECT(s && *s && strcmp(s, "unknown decode error") != 0);
		EXPECT(name && *name && strcmp(name, "unknown") != 0);
		for (int j = 0; j < i; j++) {
			EXPECT(strcmp(s, pktstats_decode_strerror((enum pktstats_decode_error)j)));
			EXPECT(strcmp(name,
				      pktstats_decode_error_name((enum pktstats_decode_error)j)));
		}
	}
	EXPECT(strcmp(pktstats_decode_strerror(PKTSTATS_DECODE_ERROR_COUNT),
		      "unknown decode error") == 0);
	EXPECT(strcmp(pktstats_decode_strerror((enum pktstats_decode_error)-1),
		      "unknown decode error") == 0);
	EXPECT(strcmp(pktstats_decode_error_name(PKTSTATS_DECODE_CUT_TIMESTAMP),
		      "cut_timestamp") == 0);
	EXPECT(strcmp(pktstats_seq_status_name(PKTSTATS_SEQ_GAP), "gap") == 0);
	EXPECT(strcmp(pktstats_seq_status_name((enum pktstats_seq_status)99), "unknown") == 0);
	end("strerror / names: every reason has distinct text and name");
}

static void test_einval(void)
{
	struct pktstats_packet p;
	struct pktstats_frame_view v;
	struct pktstats_stream s;
	struct pktstats_stream_result res;
	struct pktstats_stream_options so;

	begin();
	EXPECT_EQ(pktstats_decode_payload(normal_packet, sizeof(normal_packet), NULL, NULL, 0, NULL,
					  NULL), -EINVAL);
	EXPECT_EQ(pktstats_decode_payload(NULL, 5, &p, NULL, 0, NULL, NULL), -EINVAL);
	EXPECT_EQ(pktstats_parse_frame(NULL, 5, &v), -EINVAL);
	EXPECT_EQ(pktstats_parse_frame(normal_packet, 5, NULL), -EINVAL);
	EXPECT_EQ(pktstats_stream_init(NULL, NULL), -EINVAL);
	pktstats_stream_default_options(&so);
	so.decode.v1_resolution = 8;
	EXPECT_EQ(pktstats_stream_init(&s, &so), -EINVAL);
	EXPECT_EQ(pktstats_stream_init(&s, NULL), 0);
	EXPECT_EQ(pktstats_stream_feed_frame(&s, NULL, 5, NULL, 0, &res), -EINVAL);
	EXPECT_EQ(pktstats_stream_feed_frame(&s, normal_packet, 5, NULL, 0, NULL), -EINVAL);
	EXPECT_EQ(pktstats_stream_feed_payload(&s, 1, 2, NULL, 5, NULL, 0, &res), -EINVAL);
	EXPECT_EQ(s.frames, 0);
	end("NULL arguments -> -EINVAL");
}

/* ---------------------------------------------------------------------------------------- */
/* Version 1                                                                                  */

static const uint8_t v1_packet[] = {
	0xf1, 0x03,             /* reserved bits set (ignored), version 1; 3 event types */
	0x00, 0x00, 0x01, 0x00, /* sequence 256 */
	0x00, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x02, /* q0: 50 words, 2 packets */
	0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x01, /* q1: 10 words, 1 packet */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* q2..q7 */
	0x00, 0x00, 0x00, 0x02, 0x00, 0x07, 0xff, 0xf0, /* timestamp 0x20007fff0 */
	0x40, 0x27, 0xff, 0xf8, /* arrival q0 len 4, low bits 0x7fff8: +8 */
	0x48, 0x10, 0x00, 0x03, /* arrival q1 len 2, low bits 0x00003: wrapped, +11 */
	0x80, 0x20, 0x00, 0x03, /* departure q0 len 4, same low bits: +0 */
	0xc8, 0x00, 0x00, 0x10, /* drop q1 len 0, low bits 0x00010: +13 */
	0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x09, /* timestamp 0x500000009 */
	0x88, 0x10, 0x00, 0x0c, /* departure q1 len 2, low bits 0x0000c: +3 */
};

static void test_v1(void)
{
	struct pktstats_decode_options o;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;
	const uint64_t t0 = 0x20007fff0, t1 = 0x500000009;
	int r;

	begin();
	pktstats_decode_default_options(&o);
	EXPECT_EQ(o.accept_v1, 1);
	EXPECT_EQ(o.v1_resolution, 0);
	o.v1_resolution = 3;
	r = pktstats_decode_payload_ex(v1_packet, sizeof(v1_packet), &o, &p, events, 16, &n, &why);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(p.version, 1);
	EXPECT_EQ(p.missed, 0);
	EXPECT_EQ(p.resolution, 3);
	EXPECT_EQ(p.sequence, 256);
	EXPECT_EQ(p.queue_size[0], 50);
	EXPECT_EQ(p.queue_packets[0], 2);
	EXPECT_EQ(p.queue_size[1], 10);
	EXPECT_EQ(p.queue_packets[1], 1);
	EXPECT_EQ(p.queue_size[7], 0);
	EXPECT_EQ(p.n_events, 5);
	EXPECT_EQ(p.n_timestamps, 2);
	EXPECT_EQ(p.start_tick, t0);
	EXPECT_EVENT(&events[0], t0 + 8, ARR, 0, 4, 54, 2);
	EXPECT_EVENT(&events[1], t0 + 19, ARR, 1, 2, 12, 3);
	EXPECT_EVENT(&events[2], t0 + 19, DEP, 0, 4, 50, 4);
	EXPECT_EVENT(&events[3], t0 + 32, DROP, 1, 0, 12, 5);
	EXPECT_EVENT(&events[4], t1 + 3, DEP, 1, 2, 10, 8);
	EXPECT_EQ(events[0].time_ns, (t0 + 8) * 8 * 8);
	EXPECT_EQ(p.first_tick, t0 + 8);
	EXPECT_EQ(p.last_tick, t1 + 3);
	/* summary mode agrees */
	{
		struct pktstats_packet q;

		EXPECT_EQ(pktstats_decode_payload_ex(v1_packet, sizeof(v1_packet), &o, &q, NULL, 0,
						     NULL, NULL), 0);
		EXPECT(memcmp(&p, &q, sizeof(p)) == 0);
	}
	/* default resolution 0 */
	EXPECT_EQ(pktstats_decode_payload(v1_packet, sizeof(v1_packet), &p, events, 16, &n, &why),
		  0);
	EXPECT_EQ(p.resolution, 0);
	EXPECT_EQ(events[0].time_ns, (t0 + 8) * 8);
	end("version 1: 70-byte header, 19-bit field = low bits of the absolute tick");
}

static void test_v1_wrap62(void)
{
	struct buf b;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;
	const uint64_t top = (UINT64_C(1) << 62) - 2;

	begin();
	put_hdr1(&b, 0x01, 0, NULL, NULL);
	put_ts(&b, top); /* low 19 bits 0x7fffe */
	put_ev(&b, ARR, 0, 1, 0x7ffff); /* +1 */
	put_ev(&b, ARR, 0, 1, 0x00001); /* +2: crosses 2^62 -> 0, then 1 */
	put_ev(&b, DEP, 0, 1, 0x7fff1); /* +0x7fff0, the largest step */
	EXPECT_EQ(dec(&b, &p, &n, &why), 0);
	EXPECT_EQ(events[0].tick, top + 1);
	EXPECT_EQ(events[1].tick, 1);
	EXPECT_EQ(events[2].tick, 0x7fff1);
	EXPECT_EQ(p.last_tick, 0x7fff1);
	end("version 1: tick wraps modulo 2^62");
}

/* ---------------------------------------------------------------------------------------- */
/* Frames                                                                                     */

/* The frame the hardware emits (docs/evcap-architecture.md, "Packet output"), by hand. */
static const uint8_t hw_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* destination MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* source MAC */
	0x08, 0x00,                         /* IPv4 */
	0x45, 0x00, 0x00, 0x4e,             /* IHL 5, TOS 0, total length 78 = 66 + 4 * 3 */
	0x00, 0x07, 0x40, 0x00,             /* id = seq[15:0], DF */
	0x40, 0x11, 0x26, 0x96,             /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x00, 0x01,             /* 10.0.0.1 */
	0x0a, 0x00, 0x00, 0x02,             /* 10.0.0.2 */
	0x69, 0x99, 0x69, 0x99,             /* ports 27033 */
	0x00, 0x3a, 0x00, 0x00,             /* UDP length 58 = 78 - 20, checksum 0 */
	0x02, 0x03, 0x00, 0x00, 0x00, 0x07, /* v2, 3 types, seq 7 */
	0x00, 0x00, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* q0 = 16 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8, /* timestamp 1000 */
	0x48, 0x10, 0x00, 0x00,                         /* arrival q1 len 2 */
};

static void test_frame_hw(void)
{
	struct pktstats_frame_view v;
	struct pktstats_packet p;
	size_t n;
	enum pktstats_decode_error why;

	begin();
	EXPECT_EQ(sizeof(hw_frame), 92);
	EXPECT_EQ(pktstats_parse_frame(hw_frame, sizeof(hw_frame), &v), 0);
	EXPECT(v.payload == hw_frame + 42);
	EXPECT_EQ(v.payload_len, 50);
	EXPECT_EQ(v.reason, PKTSTATS_DECODE_OK);
	EXPECT_EQ(v.dst_mac[0], 2);
	EXPECT_EQ(v.dst_mac[5], 1);
	EXPECT_EQ(v.src_mac[5], 2);
	EXPECT_EQ(v.vlan, 0);
	EXPECT_EQ(v.ip_header_len, 20);
	EXPECT_EQ(v.tos, 0);
	EXPECT_EQ(v.ttl, 64);
	EXPECT_EQ(v.ip_total_len, 78);
	EXPECT_EQ(v.ip_id, 7);
	EXPECT_EQ(v.src_ip, 0x0a000001);
	EXPECT_EQ(v.dst_ip, 0x0a000002);
	EXPECT_EQ(v.src_port, 27033);
	EXPECT_EQ(v.dst_port, 27033);
	EXPECT_EQ(v.udp_len, 58);
	EXPECT_EQ(v.trailer_len, 0);
	EXPECT_EQ(pktstats_decode_payload(v.payload, v.payload_len, &p, events, 4, &n, &why), 0);
	EXPECT_EQ(p.sequence, 7);
	EXPECT_EVENT(&events[0], 1000, ARR, 1, 2, 2, 2);
	EXPECT_EQ(p.queue_size[0], 16);
	end("frame: the hardware's frame layout, byte by byte");
}

static void test_frame_trailer(void)
{
	uint8_t f[sizeof(hw_frame) + 30];
	struct pktstats_frame_view v;

	begin();
	memcpy(f, hw_frame, sizeof(hw_frame));
	memset(f + sizeof(hw_frame), 0x5a, 30);
	for (size_t extra = 1; extra <= 30; extra++) {
		EXPECT_EQ(pktstats_parse_frame(f, sizeof(hw_frame) + extra, &v), 0);
		EXPECT_EQ(v.payload_len, 50); /* padding/FCS is not payload */
		EXPECT_EQ(v.trailer_len, extra);
	}
	end("frame: captured length longer than the IP packet (padding, FCS) is accepted");
}

static void test_frame_small_padded(void)
{
	struct buf f;
	struct frame_opts o = frame_defaults();
	struct pktstats_frame_view v;
	const uint8_t payload[4] = {1, 2, 3, 4};

	begin();
	o.trailer = 60 - (14 + 20 + 8 + 4) + 4; /* padded to the 60-byte minimum, + FCS */
	build_frame(&f, payload, sizeof(payload), &o);
	EXPECT_EQ(f.n, 64);
	EXPECT_EQ(pktstats_parse_frame(f.b, f.n, &v), 0);
	EXPECT_EQ(v.payload_len, 4);
	EXPECT_EQ(v.trailer_len, 18);
	EXPECT(v.payload == f.b + 42);
	end("frame: a short UDP payload in a padded minimum-size frame");
}

static void test_frame_vlan(void)
{
	struct buf b, f;
	struct frame_opts o = frame_defaults();
	struct pktstats_frame_view v;

	begin();
	minimal_packet(&b, 3, 0, 9);
	o.vlan = 1;
	o.tci = 0xa00c; /* PCP 5, VID 12 */
	build_frame(&f, b.b, b.n, &o);
	EXPECT_EQ(f.b[12], 0x81);
	EXPECT_EQ(pktstats_parse_frame(f.b, f.n, &v), 0);
	EXPECT_EQ(v.vlan, 1);
	EXPECT_EQ(v.vlan_tci, 0xa00c);
	EXPECT(v.payload == f.b + 46);
	EXPECT_EQ(v.payload_len, b.n);
	/* two tags are not accepted */
	f.b[16] = 0x81;
	f.b[17] = 0x00;
	EXPECT_EQ(pktstats_parse_frame(f.b, f.n, &v), -EBADMSG);
	EXPECT_EQ(v.reason, PKTSTATS_DECODE_NOT_IPV4);
	/* a tag cut off */
	EXPECT_EQ(pktstats_parse_frame(f.b, 16, &v), -EBADMSG);
	EXPECT_EQ(v.reason, PKTSTATS_DECODE_FRAME_TRUNCATED);
	end("frame: one 802.1Q tag accepted, two refused");
}

static void test_frame_ip_options(void)
{
	struct buf b, f;
	struct frame_opts o = frame_defaults();
	struct pktstats_frame_view v;

	begin();
	minimal_packet(&b, 3, 0, 9);
	for (unsigned ihl = 5; ihl <= 15; ihl++) {
		o.ihl = ihl;
		build_frame(&f, b.b, b.n, &o);
		EXPECT_EQ(pktstats_parse_frame(f.b, f.n, &v), 0);
		EXPECT_EQ(v.ip_header_len, ihl * 4);
		EXPECT(v.payload == f.b + 14 + ihl * 4 + 8);
		EXPECT_EQ(v.payload_len, b.n);
		EXPECT_EQ(v.src_port, 27033);
		/* capture ending inside the options: truncated, whatever the total length says */
		for (int adjust = 0; adjust >= -58; adjust -= 58) {
			uint8_t *c;

			o.total_adjust = adjust;
			build_frame(&f, b.b, b.n, &o);
			c = exact(f.b, 14 + ihl * 4 - 1);
			EXPECT_EQ(pktstats_parse_frame(c, 14 + ihl * 4 - 1, &v), -EBADMSG);
			EXPECT_EQ(v.reason, PKTSTATS_DECODE_FRAME_TRUNCATED);
			EXPECT_EQ(v.dst_port, 0);
			free(c);
		}
		o.total_adjust = 0;
	}
	end("frame: IPv4 options (IHL 5..15)");
}

static void expect_frame_bad(int line, const struct frame_opts *o, size_t cut,
			     enum pktstats_decode_error reason)
{
	struct buf b, f;
	struct pktstats_frame_view v;
	uint8_t *c;
	int r;

	minimal_packet(&b, 3, 0, 9);
	build_frame(&f, b.b, b.n, o);
	if (cut)
		f.n = cut;
	c = exact(f.b, f.n);
	r = pktstats_parse_frame(c, f.n, &v);
	free(c);
	if (r != -EBADMSG || v.reason != reason || v.payload != NULL || v.payload_len != 0) {
		if (test_ok)
			diag("line %d: r %d reason %s; expected %s", line, r,
			     pktstats_decode_error_name(v.reason),
			     pktstats_decode_error_name(reason));
		test_ok = 0;
	}
}
#define EXPECT_FRAME_BAD(o, cut, reason) expect_frame_bad(__LINE__, o, cut, reason)

static void test_frame_bad_lengths(void)
{
	struct frame_opts o;

	begin();
	o = frame_defaults();
	o.total_adjust = 1; /* IP says one byte more than captured */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_FRAME_TRUNCATED);
	o.total_adjust = 400;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_FRAME_TRUNCATED);
	o.total_adjust = -1; /* IP shorter than IP header + UDP length */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_LENGTH_MISMATCH);
	o.total_adjust = -(int)(8 + 50) + 7; /* total 27 < 20 + 8 */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_LENGTH_MISMATCH);
	o.total_adjust = -(int)(8 + 50) - 20; /* total 0 */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_LENGTH_MISMATCH);
	o.total_adjust = -(int)(8 + 50) + 4; /* total 24 < 28: wrong even if the capture is short */
	EXPECT_FRAME_BAD(&o, 14 + 22, PKTSTATS_DECODE_LENGTH_MISMATCH);
	o = frame_defaults();
	o.udp_adjust = 1;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_LENGTH_MISMATCH);
	o.udp_adjust = -4;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_LENGTH_MISMATCH);
	o.udp_adjust = -(int)(8 + 50) + 7; /* UDP length 7 */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_LENGTH_MISMATCH);
	o.udp_adjust = -(int)(8 + 50); /* UDP length 0 */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_LENGTH_MISMATCH);
	o.udp_adjust = 0;
	o.trailer = 10;
	o.total_adjust = 4; /* total covers part of the trailer: UDP length disagrees */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_LENGTH_MISMATCH);
	end("frame: IP total length / UDP length / captured length disagree");
}

static void test_frame_truncated(void)
{
	struct frame_opts o = frame_defaults();

	begin();
	for (size_t cut = 1; cut < 42 + 50; cut++)
		EXPECT_FRAME_BAD(&o, cut, PKTSTATS_DECODE_FRAME_TRUNCATED);
	o.vlan = 1;
	for (size_t cut = 1; cut < 46 + 50; cut++)
		EXPECT_FRAME_BAD(&o, cut, PKTSTATS_DECODE_FRAME_TRUNCATED);
	{
		struct pktstats_frame_view v;

		EXPECT_EQ(pktstats_parse_frame(hw_frame, 0, &v), -EBADMSG);
		EXPECT_EQ(v.reason, PKTSTATS_DECODE_FRAME_TRUNCATED);
	}
	end("frame: every capture shorter than the IP packet -> frame_truncated");
}

static void test_frame_not_ours(void)
{
	struct frame_opts o;

	begin();
	o = frame_defaults();
	o.ethertype = 0x0806; /* ARP */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_NOT_IPV4);
	o.ethertype = 0x86dd; /* IPv6 */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_NOT_IPV4);
	o.ethertype = 0x88a8; /* 802.1ad outer tag: not accepted */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_NOT_IPV4);
	o.vlan = 1;
	o.ethertype = 0x0806;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_NOT_IPV4);
	o = frame_defaults();
	o.ip_version = 6;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_BAD_IP_HEADER);
	o = frame_defaults();
	o.ihl = 4;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_BAD_IP_HEADER);
	o.ihl = 0;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_BAD_IP_HEADER);
	o = frame_defaults();
	o.proto = 6; /* TCP */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_NOT_UDP);
	o.proto = 1;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_NOT_UDP);
	o = frame_defaults();
	o.frag = 0x2000; /* MF */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_FRAGMENT);
	o.frag = 0x0001; /* offset 8 */
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_FRAGMENT);
	o.frag = 0x1000;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_FRAGMENT);
	o.frag = 0x4000 | 0x2000;
	EXPECT_FRAME_BAD(&o, 0, PKTSTATS_DECODE_FRAGMENT);
	{
		struct buf b, f;
		struct pktstats_frame_view v;

		minimal_packet(&b, 3, 0, 9);
		o.frag = 0x0000; /* no DF: fine */
		build_frame(&f, b.b, b.n, &o);
		EXPECT_EQ(pktstats_parse_frame(f.b, f.n, &v), 0);
		o.frag = 0x8000 | 0x4000; /* reserved flag: ignored */
		build_frame(&f, b.b, b.n, &o);
		EXPECT_EQ(pktstats_parse_frame(f.b, f.n, &v), 0);
	}
	end("frame: not IPv4 / bad IP header / not UDP / fragment, each with its reason");
}

/* ---------------------------------------------------------------------------------------- */
/* Stream                                                                                     */

struct feeder {
	struct pktstats_stream s;
	struct pktstats_stream_result res;
	struct frame_opts o;
};

/* Feeds a minimal v2 packet with sequence `seq` as a frame from the feeder's source. */
static int feed_seq(struct feeder *fd, uint32_t seq, int missed)
{
	struct buf b, f;

	minimal_packet(&b, seq, missed, 100 + seq);
	fd->o.id = (uint16_t)seq;
	build_frame(&f, b.b, b.n, &fd->o);
	return pktstats_stream_feed_frame(&fd->s, f.b, f.n, events, 16, &fd->res);
}

static void feeder_init(struct feeder *fd)
{
	memset(fd, 0, sizeof(*fd));
	pktstats_stream_init(&fd->s, NULL);
	fd->o = frame_defaults();
}

#define EXPECT_SEQ(fd, seq, status, lost_)                                               \
	do {                                                                             \
		int r_ = feed_seq(fd, seq, 0);                                           \
		EXPECT_EQ(r_, 0);                                                        \
		if ((fd)->res.seq_status != (status) && test_ok) {                       \
			diag("line %d: seq %u: status %s, expected %s", __LINE__,        \
			     (unsigned)(seq),                                            \
			     pktstats_seq_status_name((fd)->res.seq_status),             \
			     pktstats_seq_status_name(status));                          \
			test_ok = 0;                                                     \
		}                                                                        \
		EXPECT_EQ((fd)->res.lost, lost_);                                        \
	} while (0)

static void test_stream_in_order(void)
{
	static struct feeder fd;

	begin();
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 5, PKTSTATS_SEQ_FIRST, 0); /* capture joined mid-run: not a gap */
	EXPECT_EQ(fd.res.source, 0);
	EXPECT_EQ(fd.res.n_events, 1);
	EXPECT_EQ(fd.res.packet.sequence, 5);
	EXPECT_EQ(fd.res.frame.src_ip, 0x0a000001);
	EXPECT_SEQ(&fd, 6, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_EQ(fd.res.expected, 6);
	EXPECT_SEQ(&fd, 7, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_EQ(fd.s.total.packets, 3);
	EXPECT_EQ(fd.s.total.events, 3);
	EXPECT_EQ(fd.s.total.lost, 0);
	EXPECT_EQ(fd.s.total.gaps, 0);
	EXPECT_EQ(fd.s.n_sources, 1);
	EXPECT_EQ(fd.s.sources[0].ip, 0x0a000001);
	EXPECT_EQ(fd.s.sources[0].port, 27033);
	EXPECT_EQ(fd.s.sources[0].expected, 8);
	EXPECT_EQ(fd.s.sources[0].counters.packets, 3);
	EXPECT_EQ(fd.s.frames, 3);
	end("stream: first packet at any number, then in order");
}

static void test_stream_gap(void)
{
	static struct feeder fd;

	begin();
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 0, PKTSTATS_SEQ_FIRST, 0);
	EXPECT_SEQ(&fd, 1, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_SEQ(&fd, 4, PKTSTATS_SEQ_GAP, 2);
	EXPECT_EQ(fd.res.expected, 2);
	EXPECT_SEQ(&fd, 5, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_SEQ(&fd, 1005, PKTSTATS_SEQ_GAP, 999);
	EXPECT_SEQ(&fd, 0x80000000u + 1005, PKTSTATS_SEQ_GAP, 0x7fffffff); /* largest jump */
	EXPECT_EQ(fd.s.total.lost, 2 + 999 + 0x7fffffffu);
	EXPECT_EQ(fd.s.total.gaps, 3);
	EXPECT_EQ(fd.s.sources[0].counters.lost, 2 + 999 + 0x7fffffffu);
	EXPECT_EQ(fd.s.total.packets, 6);
	end("stream: forward jump = gap, lost packets counted");
}

static void test_stream_reset(void)
{
	static struct feeder fd;

	begin();
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 40, PKTSTATS_SEQ_FIRST, 0);
	EXPECT_SEQ(&fd, 41, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_SEQ(&fd, 0, PKTSTATS_SEQ_RESET, 0);
	EXPECT_EQ(fd.res.expected, 42);
	EXPECT_SEQ(&fd, 1, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_SEQ(&fd, 0, PKTSTATS_SEQ_RESET, 0); /* 0 is a reset even right after 0 */
	EXPECT_SEQ(&fd, 1, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_EQ(fd.s.total.resets, 2);
	EXPECT_EQ(fd.s.total.lost, 0);
	/* far behind (more than the window) and not 0: also a restart */
	EXPECT_SEQ(&fd, 1000, PKTSTATS_SEQ_GAP, 998);
	EXPECT_SEQ(&fd, 1001 - 65, PKTSTATS_SEQ_RESET, 0); /* 65 behind the expected 1001 */
	EXPECT_EQ(fd.res.expected, 1001);
	EXPECT_SEQ(&fd, 1001 - 64, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_EQ(fd.s.total.resets, 3);
	EXPECT_EQ(fd.s.total.lost, 998);
	/* after a reset, numbers just behind are duplicates: they do not undo older losses */
	EXPECT_SEQ(&fd, 1001 - 70, PKTSTATS_SEQ_DUPLICATE, 0);
	EXPECT_EQ(fd.s.total.lost, 998);
	EXPECT_EQ(fd.s.total.reordered, 0);
	end("stream: sequence 0 when something else is expected, or far behind = reset");
}

static void test_stream_wrap(void)
{
	static struct feeder fd;

	begin();
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 0xfffffffe, PKTSTATS_SEQ_FIRST, 0);
	EXPECT_SEQ(&fd, 0xffffffff, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_SEQ(&fd, 0, PKTSTATS_SEQ_IN_ORDER, 0); /* not a reset */
	EXPECT_EQ(fd.res.expected, 0);
	EXPECT_SEQ(&fd, 1, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_EQ(fd.s.total.resets, 0);
	EXPECT_SEQ(&fd, 0xfffffffd, PKTSTATS_SEQ_DUPLICATE, 0); /* 5 behind 2, not 2^32 - 5 ahead */
	/* a gap across the wrap */
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 0xfffffffd, PKTSTATS_SEQ_FIRST, 0);
	EXPECT_SEQ(&fd, 1, PKTSTATS_SEQ_GAP, 3);
	EXPECT_EQ(fd.res.expected, 0xfffffffe);
	EXPECT_EQ(fd.s.total.lost, 3);
	/* and reordering across it */
	EXPECT_SEQ(&fd, 0xffffffff, PKTSTATS_SEQ_REORDERED, 0);
	EXPECT_SEQ(&fd, 0xffffffff, PKTSTATS_SEQ_DUPLICATE, 0);
	EXPECT_EQ(fd.s.total.lost, 2);
	EXPECT_EQ(fd.s.total.resets, 0);
	/* 0 after a gap just before the wrap is a gap, not a reset (up to the window) */
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 0xfffffffc, PKTSTATS_SEQ_FIRST, 0);
	EXPECT_SEQ(&fd, 0, PKTSTATS_SEQ_GAP, 3);
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 0xffffffff - 64, PKTSTATS_SEQ_FIRST, 0);
	EXPECT_SEQ(&fd, 0, PKTSTATS_SEQ_GAP, 64);
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 0xffffffff - 65, PKTSTATS_SEQ_FIRST, 0);
	EXPECT_SEQ(&fd, 0, PKTSTATS_SEQ_RESET, 0);
	EXPECT_EQ(fd.s.total.resets, 1);
	end("stream: sequence wraps from 0xffffffff to 0 in order");
}

static void test_stream_reorder(void)
{
	static struct feeder fd;

	begin();
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 10, PKTSTATS_SEQ_FIRST, 0);
	EXPECT_SEQ(&fd, 13, PKTSTATS_SEQ_GAP, 2);
	EXPECT_EQ(fd.s.total.lost, 2);
	EXPECT_SEQ(&fd, 12, PKTSTATS_SEQ_REORDERED, 0);
	EXPECT_EQ(fd.s.total.lost, 1);
	EXPECT_EQ(fd.s.sources[0].counters.lost, 1);
	EXPECT_SEQ(&fd, 12, PKTSTATS_SEQ_DUPLICATE, 0);
	EXPECT_SEQ(&fd, 13, PKTSTATS_SEQ_DUPLICATE, 0);
	EXPECT_SEQ(&fd, 10, PKTSTATS_SEQ_DUPLICATE, 0);
	EXPECT_SEQ(&fd, 9, PKTSTATS_SEQ_DUPLICATE, 0); /* before the first tracked packet */
	EXPECT_SEQ(&fd, 11, PKTSTATS_SEQ_REORDERED, 0);
	EXPECT_EQ(fd.s.total.lost, 0);
	EXPECT_SEQ(&fd, 14, PKTSTATS_SEQ_IN_ORDER, 0);
	EXPECT_SEQ(&fd, 14, PKTSTATS_SEQ_DUPLICATE, 0); /* in-order packets are marked seen */
	EXPECT_EQ(fd.s.total.reordered, 2);
	EXPECT_EQ(fd.s.total.duplicates, 5);
	EXPECT_EQ(fd.s.total.packets, 10);
	/* the window edge: a gap of 70, then the oldest missing one that still fits (64 behind) */
	EXPECT_SEQ(&fd, 85, PKTSTATS_SEQ_GAP, 70);
	EXPECT_SEQ(&fd, 22, PKTSTATS_SEQ_REORDERED, 0);
	EXPECT_SEQ(&fd, 84, PKTSTATS_SEQ_REORDERED, 0);
	EXPECT_EQ(fd.s.total.lost, 68);
	EXPECT_SEQ(&fd, 85, PKTSTATS_SEQ_DUPLICATE, 0);
	EXPECT_SEQ(&fd, 21, PKTSTATS_SEQ_RESET, 0);
	end("stream: a small backwards jump is reordering (lost corrected) or duplicate");
}

static void test_stream_malformed(void)
{
	static struct feeder fd;
	struct buf b, f;
	int r;

	begin();
	feeder_init(&fd);
	EXPECT_SEQ(&fd, 1, PKTSTATS_SEQ_FIRST, 0);
	/* a packet whose events are broken but whose header is fine: still tracked */
	minimal_packet(&b, 2, 1, 5);
	b.b[38] = 0x40; /* first slot not a timestamp */
	build_frame(&f, b.b, b.n, &fd.o);
	r = pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res);
	EXPECT_EQ(r, -EBADMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP);
	EXPECT_EQ(fd.res.packet.version, 2);
	EXPECT_EQ(fd.res.seq_status, PKTSTATS_SEQ_IN_ORDER);
	EXPECT_EQ(fd.s.total.missed_flags, 1);
	EXPECT_SEQ(&fd, 3, PKTSTATS_SEQ_IN_ORDER, 0); /* the caller goes on */
	/* a packet with a bad header: not tracked, so the next shows a gap of one */
	minimal_packet(&b, 4, 0, 5);
	b.b[0] = 0x07;
	build_frame(&f, b.b, b.n, &fd.o);
	r = pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res);
	EXPECT_EQ(r, -EBADMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_BAD_VERSION);
	EXPECT_EQ(fd.res.seq_status, PKTSTATS_SEQ_NONE);
	EXPECT_EQ(fd.res.source, 0);
	EXPECT_SEQ(&fd, 5, PKTSTATS_SEQ_GAP, 1);
	/* a frame-level error on our port */
	minimal_packet(&b, 6, 0, 5);
	fd.o.udp_adjust = 2;
	build_frame(&f, b.b, b.n, &fd.o);
	fd.o.udp_adjust = 0;
	r = pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res);
	EXPECT_EQ(r, -EBADMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_LENGTH_MISMATCH);
	EXPECT_EQ(fd.res.source, -1);
	/* a capture cut short (small snaplen), port still readable */
	minimal_packet(&b, 7, 0, 5);
	build_frame(&f, b.b, b.n, &fd.o);
	r = pktstats_stream_feed_frame(&fd.s, f.b, 64, events, 16, &fd.res);
	EXPECT_EQ(r, -EBADMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_FRAME_TRUNCATED);
	EXPECT_SEQ(&fd, 8, PKTSTATS_SEQ_GAP, 2);
	EXPECT_EQ(fd.s.total.malformed, 4);
	EXPECT_EQ(fd.s.sources[0].counters.malformed, 2); /* the two that reached the payload */
	EXPECT_EQ(fd.s.total.packets, 4);
	EXPECT_EQ(fd.s.total.lost, 3);
	EXPECT_EQ(fd.s.frames, 8);
	end("stream: malformed packets counted and reported, never fatal");
}

static void test_stream_ignored(void)
{
	static struct feeder fd;
	struct pktstats_stream_options so;
	struct buf b, f;
	int r;

	begin();
	feeder_init(&fd);
	minimal_packet(&b, 1, 0, 5);
	fd.o.ethertype = 0x0806;
	build_frame(&f, b.b, b.n, &fd.o);
	r = pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res);
	EXPECT_EQ(r, -ENOMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_NOT_IPV4);
	fd.o = frame_defaults();
	fd.o.proto = 6;
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), -ENOMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_NOT_UDP);
	fd.o = frame_defaults();
	fd.o.frag = 0x2000;
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), -ENOMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_FRAGMENT);
	fd.o = frame_defaults();
	fd.o.dport = 53;
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), -ENOMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_OTHER_PORT);
	fd.o.udp_adjust = 3; /* broken, but someone else's */
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), -ENOMSG);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, 20, events, 16, &fd.res), -ENOMSG);
	EXPECT_EQ(fd.s.ignored, 6);
	EXPECT_EQ(fd.s.total.malformed, 0);
	EXPECT_EQ(fd.s.total.packets, 0);
	EXPECT_EQ(fd.s.n_sources, 0);
	/* port 0 = any port: the same frame on port 53 is decoded */
	pktstats_stream_default_options(&so);
	EXPECT_EQ(so.udp_port, 27033);
	so.udp_port = 0;
	EXPECT_EQ(pktstats_stream_init(&fd.s, &so), 0);
	fd.o.udp_adjust = 0;
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), 0);
	EXPECT_EQ(fd.s.total.packets, 1);
	fd.o.proto = 6; /* without a port filter, non-UDP, non-IPv4 and fragments still ignored */
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), -ENOMSG);
	fd.o.proto = 17;
	fd.o.frag = 0x0010;
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), -ENOMSG);
	fd.o.frag = 0;
	fd.o.ethertype = 0x86dd;
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), -ENOMSG);
	fd.o.ethertype = 0x0800;
	build_frame(&f, b.b, b.n, &fd.o);
	EXPECT_EQ(fd.s.ignored, 3);
	EXPECT_EQ(fd.s.total.malformed, 0);
	so.udp_port = 53;
	EXPECT_EQ(pktstats_stream_init(&fd.s, &so), 0);
	EXPECT_EQ(pktstats_stream_feed_frame(&fd.s, f.b, f.n, events, 16, &fd.res), 0);
	end("stream: non-stat frames ignored (-ENOMSG), port filter");
}

static void test_stream_sources(void)
{
	static struct feeder fd;
	const struct frame_opts base = frame_defaults();

	begin();
	feeder_init(&fd);
	/* two sources interleaved, each in order */
	for (uint32_t i = 0; i < 5; i++) {
		fd.o = base;
		EXPECT_SEQ(&fd, 100 + i, i ? PKTSTATS_SEQ_IN_ORDER : PKTSTATS_SEQ_FIRST, 0);
		EXPECT_EQ(fd.res.source, 0);
		fd.o.sport = 27034; /* same IP, another port: another source */
		EXPECT_SEQ(&fd, 7 + i, i ? PKTSTATS_SEQ_IN_ORDER : PKTSTATS_SEQ_FIRST, 0);
		EXPECT_EQ(fd.res.source, 1);
		fd.o = base;
		fd.o.sip = 0x0a000009; /* another IP */
		EXPECT_SEQ(&fd, 0 + i, i ? PKTSTATS_SEQ_IN_ORDER : PKTSTATS_SEQ_FIRST, 0);
		EXPECT_EQ(fd.res.source, 2);
	}
	EXPECT_EQ(fd.s.n_sources, 3);
	EXPECT_EQ(fd.s.total.gaps, 0);
	EXPECT_EQ(fd.s.total.resets, 0);
	EXPECT_EQ(fd.s.sources[1].port, 27034);
	EXPECT_EQ(fd.s.sources[1].counters.packets, 5);
	EXPECT_EQ(fd.s.sources[2].ip, 0x0a000009);
	/* fill the table; the next source is decoded but not tracked */
	for (uint32_t i = 3; i < PKTSTATS_STREAM_MAX_SOURCES; i++) {
		fd.o = base;
		fd.o.sip = 0x0b000000 + i;
		EXPECT_SEQ(&fd, 1, PKTSTATS_SEQ_FIRST, 0);
		EXPECT_EQ(fd.res.source, i);
	}
	fd.o.sip = 0x0c000000;
	EXPECT_SEQ(&fd, 1, PKTSTATS_SEQ_NONE, 0);
	EXPECT_EQ(fd.res.source, -1);
	EXPECT_SEQ(&fd, 9, PKTSTATS_SEQ_NONE, 0);
	EXPECT_EQ(fd.s.untracked, 2);
	EXPECT_EQ(fd.s.n_sources, PKTSTATS_STREAM_MAX_SOURCES);
	EXPECT_EQ(fd.s.total.packets, 15 + PKTSTATS_STREAM_MAX_SOURCES - 3 + 2);
	/* known sources still work */
	fd.o = base;
	EXPECT_SEQ(&fd, 106, PKTSTATS_SEQ_GAP, 1);
	EXPECT_EQ(fd.res.source, 0);
	end("stream: sources tracked independently; a full table leaves new ones untracked");
}

static void test_stream_missed_and_payload(void)
{
	static struct feeder fd;
	struct pktstats_stream_options so;
	struct buf b;
	int r;

	begin();
	feeder_init(&fd);
	EXPECT_EQ(feed_seq(&fd, 0, 1), 0);
	EXPECT_EQ(fd.res.packet.missed, 1);
	EXPECT_EQ(feed_seq(&fd, 1, 0), 0);
	EXPECT_EQ(feed_seq(&fd, 2, 1), 0);
	EXPECT_EQ(fd.s.total.missed_flags, 2);
	EXPECT_EQ(fd.s.sources[0].counters.missed_flags, 2);
	/* payload feeding, e.g. from a UDP socket */
	minimal_packet(&b, 50, 0, 5);
	r = pktstats_stream_feed_payload(&fd.s, 0x7f000001, 4000, b.b, b.n, NULL, 0, &fd.res);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(fd.res.seq_status, PKTSTATS_SEQ_FIRST);
	EXPECT_EQ(fd.res.source, 1);
	EXPECT_EQ(fd.res.n_events, 0); /* summary mode */
	EXPECT_EQ(fd.res.packet.n_events, 1);
	minimal_packet(&b, 52, 0, 5);
	r = pktstats_stream_feed_payload(&fd.s, 0x7f000001, 4000, b.b, b.n, NULL, 0, &fd.res);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(fd.res.seq_status, PKTSTATS_SEQ_GAP);
	EXPECT_EQ(fd.res.lost, 1);
	EXPECT_EQ(fd.s.sources[1].counters.events, 2);
	/* -ENOSPC still counts the packet */
	r = pktstats_stream_feed_payload(&fd.s, 0x7f000001, 4000, normal_packet,
					 sizeof(normal_packet), events, 2, &fd.res);
	EXPECT_EQ(r, -ENOSPC);
	EXPECT_EQ(fd.res.n_events, 2);
	EXPECT_EQ(fd.s.sources[1].counters.events, 7);
	EXPECT_EQ(fd.s.sources[1].counters.packets, 3);
	EXPECT_EQ(fd.s.frames, 6);
	/* version 1 through the stream, with its resolution option */
	pktstats_stream_default_options(&so);
	so.decode.v1_resolution = 2;
	EXPECT_EQ(pktstats_stream_init(&fd.s, &so), 0);
	EXPECT_EQ(fd.s.total.packets, 0);
	r = pktstats_stream_feed_payload(&fd.s, 1, 2, v1_packet, sizeof(v1_packet), events, 16,
					 &fd.res);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(fd.res.packet.resolution, 2);
	EXPECT_EQ(events[0].time_ns, (UINT64_C(0x20007fff0) + 8) * 8 * 4);
	so.decode.accept_v1 = false;
	EXPECT_EQ(pktstats_stream_init(&fd.s, &so), 0);
	r = pktstats_stream_feed_payload(&fd.s, 1, 2, v1_packet, sizeof(v1_packet), events, 16,
					 &fd.res);
	EXPECT_EQ(r, -EBADMSG);
	EXPECT_EQ(fd.res.reason, PKTSTATS_DECODE_BAD_VERSION);
	end("stream: M flags counted; payload feeding; -ENOSPC counted; v1 options");
}

/* ---------------------------------------------------------------------------------------- */
/* Robustness: corrupted and random input                                                     */

/* A deliberately simple second decoder: slot by slot, no specialisation. v2 only. */
static int ref_decode(const uint8_t *pl, size_t len, struct pktstats_event *out, size_t *n_out)
{
	size_t n_slots, i = 2, n = 0;
	int64_t occ[8];
	uint64_t tick;

	if (len < 38 || (pl[0] & 15) != 2 || pl[1] != 3 || (len - 38) % 4)
		return -1;
	n_slots = (len - 38) / 4;
	for (int q = 0; q < 8; q++)
		occ[q] = (int64_t)((uint32_t)pl[6 + 4 * q] << 24 | (uint32_t)pl[7 + 4 * q] << 16 |
				   (uint32_t)pl[8 + 4 * q] << 8 | pl[9 + 4 * q]);
#define SLOT(k) ((uint32_t)pl[38 + 4 * (k)] << 24 | (uint32_t)pl[39 + 4 * (k)] << 16 | \
		 (uint32_t)pl[40 + 4 * (k)] << 8 | pl[41 + 4 * (k)])
	if (n_slots < 2 || (SLOT(0) >> 30) != 0)
		return -1;
	tick = (uint64_t)(SLOT(0) & 0x3fffffff) << 32 | SLOT(1);
	while (i < n_slots) {
		uint32_t s = SLOT(i);
		unsigned type = s >> 30, q = s >> 27 & 7, l = s >> 19 & 255;

		if (type == 0) {
			if (i + 1 == n_slots)
				return -1;
			tick = (uint64_t)(s & 0x3fffffff) << 32 | SLOT(i + 1);
			i += 2;
			continue;
		}
		tick = (tick + (s & 0x7ffff)) % (UINT64_C(1) << 62);
		if (type == 1)
			occ[q] += l;
		else if (type == 2)
			occ[q] -= l;
		out[n].tick = tick;
		out[n].time_ns = tick * 8 << (pl[0] >> 4 & 7);
		out[n].occupancy = occ[q];
		out[n].slot = (uint32_t)i;
		out[n].type = (uint8_t)type;
		out[n].queue = (uint8_t)q;
		out[n].length = (uint8_t)l;
		out[n].reserved = 0;
		n++;
		i++;
	}
#undef SLOT
	*n_out = n;
	return n ? 0 : -1;
}

static struct pktstats_event ref_events[PKTSTATS_DECODE_MAX_EVENTS];

/* Decodes with events and in summary mode, checks they agree with each other and with the
 * reference decoder. Returns the result of the full decode. */
static int cross_check(int line, const uint8_t *orig, size_t len)
{
	struct pktstats_packet p, q;
	enum pktstats_decode_error why, why2;
	size_t n = 0, n2 = 0, n_ref = 0;
	uint8_t *pl = exact(orig, len);
	int r = pktstats_decode_payload(pl, len, &p, events, PKTSTATS_DECODE_MAX_EVENTS, &n, &why);
	int r2 = pktstats_decode_payload(pl, len, &q, NULL, 0, &n2, &why2);
	int rr = ref_decode(pl, len, ref_events, &n_ref);
	int good = 1;

	if (r != 0 && r != -EBADMSG)
		good = 0;
	if (r != r2 || why != why2 || (r == 0) != (why == PKTSTATS_DECODE_OK) || n2 != 0)
		good = 0;
	if (r == 0 && memcmp(&p, &q, sizeof(p)) != 0)
		good = 0;
	if ((pl[0] & 15) == 2 || r != 0) {
		if ((rr == 0) != (r == 0))
			good = 0;
		else if (r == 0 && (n != n_ref || n != p.n_events ||
				    memcmp(events, ref_events, n * sizeof(events[0])) != 0 ||
				    p.last_tick != events[n - 1].tick ||
				    p.first_tick != events[0].tick))
			good = 0;
	}
	if (!good && test_ok) {
		diag("line %d: len %zu: r %d/%d/%d reasons %s/%s n %zu/%zu", line, len, r, r2, rr,
		     pktstats_decode_error_name(why), pktstats_decode_error_name(why2), n, n_ref);
		test_ok = 0;
	}
	free(pl);
	return r;
}

static void test_bit_flips(void)
{
	struct buf b;
	unsigned accepted = 0;

	begin();
	memcpy(b.b, normal_packet, sizeof(normal_packet));
	b.n = sizeof(normal_packet);
	for (size_t bit = 0; bit < b.n * 8; bit++) {
		b.b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (cross_check(__LINE__, b.b, b.n) == 0)
			accepted++;
		b.b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (size_t len = 0; len <= b.n; len++)
		cross_check(__LINE__, b.b, len);
	EXPECT(accepted > 0);
	end("every single-bit flip and truncation: summary and full decode agree with a "
	    "reference");
}

static void test_random(void)
{
	static uint8_t pl[38 + 4 * 600];
	unsigned accepted = 0;

	begin();
	rng_state = 0x9e3779b97f4a7c15u;
	for (int iter = 0; iter < 20000; iter++) {
		size_t n_slots = (size_t)(rng() % 600), len = 38 + 4 * n_slots;

		for (size_t i = 0; i < len; i++)
			pl[i] = (uint8_t)rng();
		pl[0] = (uint8_t)((pl[0] & 0xf0) | (rng() % 8 ? 2 : rng() % 16));
		pl[1] = rng() % 8 ? 3 : pl[1];
		if (n_slots && rng() % 4) { /* mostly a valid start, and few timestamps */
			pl[38] &= 0x3f;
			for (size_t s = 2; s < n_slots; s++)
				if ((pl[38 + 4 * s] >> 6) == 0 && rng() % 16)
					pl[38 + 4 * s] |= 0x40;
		}
		if (rng() % 8 == 0)
			len -= rng() % 4;
		if (cross_check(__LINE__, pl, len) == 0)
			accepted++;
	}
	EXPECT(accepted > 5000);
	end("20000 random payloads: summary and full decode agree with a reference decoder");
}

/* ---------------------------------------------------------------------------------------- */
/* Summary (pktstats_decode_payload_summary, pktstats_stream_feed_frame_summary)              */

#define EXPECT_DBL(a, b)                                                                 \
	do {                                                                             \
		double a_ = (a), b_ = (b);                                               \
		if (a_ != b_) {                                                          \
			if (test_ok)                                                     \
				diag("line %d: %s == %s: %.17g != %.17g", __LINE__, #a,  \
				     #b, a_, b_);                                        \
			test_ok = 0;                                                     \
		}                                                                        \
	} while (0)

/* Adds a hand-written payload to a summary (an exact-size copy, for ASan). */
static int sum_add(const struct buf *b, const struct pktstats_decode_options *o,
		   struct pktstats_summary *s, enum pktstats_decode_error *why)
{
	struct pktstats_packet p;
	uint8_t *c = exact(b->b, b->n);
	int r = pktstats_decode_payload_summary(c, b->n, o, &p, s, why);

	free(c);
	return r;
}

/* The figures of one queue, checked together. */
static void expect_queue(int line, const struct pktstats_summary *s, unsigned q,
			 const uint64_t ev3[3], const uint64_t words3[3], int64_t occupancy,
			 int64_t max, uint64_t max_ns, double integral)
{
	const struct pktstats_queue_summary *x = &s->queues[q];
	int good = x->events[0] == 0 && x->words[0] == 0 && x->occupancy == occupancy &&
		   x->max_occupancy == max && x->max_time_ns == max_ns && x->integral == integral;

	for (unsigned t = 1; t <= 3; t++)
		good = good && x->events[t] == ev3[t - 1] && x->words[t] == words3[t - 1];
	if (!good && test_ok)
		diag("line %d: queue %u: events %" PRIu64 "/%" PRIu64 "/%" PRIu64 " words %" PRIu64
		     "/%" PRIu64 "/%" PRIu64 " occupancy %" PRId64 " max %" PRId64 " at %" PRIu64
		     " integral %.17g; expected %" PRIu64 "/%" PRIu64 "/%" PRIu64 " %" PRIu64 "/%"
		     PRIu64 "/%" PRIu64 " %" PRId64 " %" PRId64 " at %" PRIu64 " %.17g",
		     line, q, x->events[1], x->events[2], x->events[3], x->words[1], x->words[2],
		     x->words[3], x->occupancy, x->max_occupancy, x->max_time_ns, x->integral,
		     ev3[0], ev3[1], ev3[2], words3[0], words3[1], words3[2], occupancy, max,
		     max_ns, integral);
	if (!good)
		test_ok = 0;
}
#define EXPECT_QUEUE(s, q, ev_, words_, occ, max, max_ns, integral)                         \
	expect_queue(__LINE__, s, q, ev_, words_, occ, max, max_ns, integral)
/* arrivals, departures, drops */
#define COUNTS(a, d, x) ((const uint64_t[3]){a, d, x})

static const uint64_t none3[3];

/*
 * One version 2 packet, c = 1 (a tick is 16 ns), queue sizes q0 10, q3 5, the others 0,
 * timestamp 1000:
 *   slot 2  arrival   q0 len 4 gap 2    tick 1002  q0 14
 *   slot 3  arrival   q1 len 3 gap 3    tick 1005  q1 3
 *   slot 4  departure q0 len 6 gap 5    tick 1010  q0 8
 *   slot 5  drop      q0 len 7 gap 0    tick 1010  q0 8
 *   slot 6  departure q1 len 3 gap 10   tick 1020  q1 0
 * Time runs from tick 1000 to 1020: 16000 ns to 16320 ns, span 320 ns.
 * q0: 10 x 2 + 14 x 8 + 8 x 10 = 212 word ticks = 3392 word ns, mean 3392 / 320 = 10.6;
 *     maximum 14 at tick 1002 = 16032 ns.
 * q1: 0 x 5 + 3 x 15 = 45 word ticks = 720 word ns, mean 2.25; maximum 3 at 16080 ns.
 * q3: 5 x 20 = 100 word ticks = 1600 word ns, mean 5; maximum 5 from the start, 16000 ns.
 * q2, q4..q7: 0; maximum 0 at 16000 ns (the first packet's sizes are the first maximum).
 * All of it in the fast loop (version 2, time never goes back).
 */
static void test_summary_one_packet(void)
{
	static const uint32_t qs[8] = {10, 0, 0, 5, 0, 0, 0, 0};
	struct pktstats_summary s;
	enum pktstats_decode_error why = PKTSTATS_DECODE_TRUNCATED;
	struct buf b;

	begin();
	memset(&s, 0, sizeof(s));
	put_hdr2(&b, 0, 1, 1, qs);
	put_ts(&b, 1000);
	put_ev(&b, ARR, 0, 4, 2);
	put_ev(&b, ARR, 1, 3, 3);
	put_ev(&b, DEP, 0, 6, 5);
	put_ev(&b, DROP, 0, 7, 0);
	put_ev(&b, DEP, 1, 3, 10);
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	EXPECT_EQ(why, PKTSTATS_DECODE_OK);
	EXPECT_EQ(s.packets, 1);
	EXPECT_EQ(s.events, 5);
	EXPECT_EQ(s.first_ns, 16000);
	EXPECT_EQ(s.last_ns, 16320);
	EXPECT_EQ(s.latest_ns, 16320);
	EXPECT_EQ(s.span_ns, 320);
	EXPECT_QUEUE(&s, 0, COUNTS(1, 1, 1), COUNTS(4, 6, 7), 8, 14, 16032, 3392);
	EXPECT_QUEUE(&s, 1, COUNTS(1, 1, 0), COUNTS(3, 3, 0), 0, 3, 16080, 720);
	EXPECT_QUEUE(&s, 3, none3, none3, 5, 5, 16000, 1600);
	for (unsigned q = 4; q < 8; q++)
		EXPECT_QUEUE(&s, q, none3, none3, 0, 0, 16000, 0);
	EXPECT_DBL(pktstats_summary_mean(&s, 0), 3392.0 / 320.0);
	EXPECT_DBL(pktstats_summary_mean(&s, 1), 2.25);
	EXPECT_DBL(pktstats_summary_mean(&s, 3), 5.0);
	EXPECT_DBL(pktstats_summary_mean(&s, 2), 0.0);
	end("summary: one packet: counts, words, occupancy, maximum and when, integral, mean");
}

/*
 * Three packets, c = 0 (8 ns a tick).
 * A: q2 size 100, timestamp 50 (400 ns):
 *      arrival q2 len 20 gap 10 (tick 60, 480 ns): 120; departure q2 len 70 gap 40 (tick
 *      100, 800 ns): 50. q2: 100 x 10 + 120 x 40 = 5800 word ticks = 46400 word ns. Span
 *      400 ns, latest 800 ns. Maximum 120 at 480 ns; q0 and q5 0 at 400 ns.
 * B: q2 size 40, q5 size 7, timestamp 200 (1600 ns), later than A's latest: the 800 ns
 *      between count, with A's occupancy: q2 50 x 800 = 40000 word ns (B's size 40 takes
 *      over only at B's start). Arrival q2 len 5 gap 25 (tick 225, 1800 ns): 45.
 *      q2: 40 x 25 = 1000 word ticks = 8000 word ns; q5: 7 x 25 x 8 = 1400 word ns.
 *      Span 800 + 200; q5's size 7 beats 0: maximum 7 at B's start, 1600 ns; q0's size 0
 *      equals the maximum 0: not beaten, it stays at 400 ns.
 * C: q2 size 45, timestamp 150 (1200 ns), not later than B's latest (1800 ns): nothing
 *      between them counts. A drop q2 len 1 gap 0: span 0. Latest becomes 1200 ns.
 * Total q2: 46400 + 40000 + 8000 = 94400 word ns over 400 + 800 + 200 = 1400 ns.
 */
static void test_summary_packets(void)
{
	static const uint32_t qa[8] = {0, 0, 100, 0, 0, 0, 0, 0};
	static const uint32_t qb[8] = {0, 0, 40, 0, 0, 7, 0, 0};
	static const uint32_t qc[8] = {0, 0, 45, 0, 0, 7, 0, 0};
	struct pktstats_summary s;
	enum pktstats_decode_error why;
	struct buf b;

	begin();
	memset(&s, 0, sizeof(s));
	put_hdr2(&b, 0, 0, 1, qa);
	put_ts(&b, 50);
	put_ev(&b, ARR, 2, 20, 10);
	put_ev(&b, DEP, 2, 70, 40);
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	EXPECT_EQ(s.span_ns, 400);
	EXPECT_EQ(s.latest_ns, 800);
	EXPECT_QUEUE(&s, 2, COUNTS(1, 1, 0), COUNTS(20, 70, 0), 50, 120, 480, 46400);

	put_hdr2(&b, 0, 0, 2, qb);
	put_ts(&b, 200);
	put_ev(&b, ARR, 2, 5, 25);
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	EXPECT_EQ(s.packets, 2);
	EXPECT_EQ(s.events, 3);
	EXPECT_EQ(s.first_ns, 400);
	EXPECT_EQ(s.last_ns, 1800);
	EXPECT_EQ(s.latest_ns, 1800);
	EXPECT_EQ(s.span_ns, 1400);
	EXPECT_QUEUE(&s, 2, COUNTS(2, 1, 0), COUNTS(25, 70, 0), 45, 120, 480, 94400);
	EXPECT_QUEUE(&s, 5, none3, none3, 7, 7, 1600, 1400);
	EXPECT_QUEUE(&s, 0, none3, none3, 0, 0, 400, 0);
	EXPECT_DBL(pktstats_summary_mean(&s, 2), 94400.0 / 1400.0);
	EXPECT_DBL(pktstats_summary_mean(&s, 5), 1.0);

	put_hdr2(&b, 0, 0, 3, qc);
	put_ts(&b, 150);
	put_ev(&b, DROP, 2, 1, 0);
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	EXPECT_EQ(s.packets, 3);
	EXPECT_EQ(s.events, 4);
	EXPECT_EQ(s.first_ns, 400);
	EXPECT_EQ(s.last_ns, 1200);
	EXPECT_EQ(s.latest_ns, 1200);
	EXPECT_EQ(s.span_ns, 1400);
	EXPECT_QUEUE(&s, 2, COUNTS(2, 1, 1), COUNTS(25, 70, 1), 45, 120, 480, 94400);
	EXPECT_QUEUE(&s, 5, none3, none3, 7, 7, 1600, 1400);
	end("summary: packets: the gap counts with the previous occupancy, an earlier start "
	    "adds nothing, a queue size beats the maximum only when greater");
}

/*
 * Across the timer's wrap (2^62 ticks; at c = 0 the ns wrap at 2^64 there too), between two
 * packets: the time after it follows the time before it.
 * A: q0 size 0, timestamp 2^62 - 20 (ns 2^64 - 160 modulo 2^64), arrival q0 len 4 gap 10
 *    (tick 2^62 - 10, ns 2^64 - 80, q0 4: the maximum). Span 80 ns.
 * B: q0 size 4, timestamp 5 (40 ns, 15 ticks after A's latest: a gap of 120 ns at q0 = 4),
 *    departure q0 len 4 gap 5 (tick 10, 80 ns, q0 0). Span 80 + 120 + 40 = 240 ns.
 * q0: 4 x 120 + 4 x 40 = 640 word ns. last_ns - first_ns = 240 modulo 2^64, = span_ns.
 */
static void test_summary_wrap(void)
{
	static const uint32_t qa[8] = {0}, qb[8] = {4};
	const uint64_t top = UINT64_C(1) << 62;
	struct pktstats_summary s;
	enum pktstats_decode_error why;
	struct buf b;

	begin();
	memset(&s, 0, sizeof(s));
	put_hdr2(&b, 0, 0, 1, qa);
	put_ts(&b, top - 20);
	put_ev(&b, ARR, 0, 4, 10);
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	put_hdr2(&b, 0, 0, 2, qb);
	put_ts(&b, 5);
	put_ev(&b, DEP, 0, 4, 5);
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	EXPECT_EQ(s.first_ns, UINT64_MAX - 159);
	EXPECT_EQ(s.last_ns, 80);
	EXPECT_EQ(s.latest_ns, 80);
	EXPECT_EQ(s.span_ns, 240);
	EXPECT_EQ(s.last_ns - s.first_ns, s.span_ns);
	EXPECT_QUEUE(&s, 0, COUNTS(1, 1, 0), COUNTS(4, 4, 0), 0, 4, UINT64_MAX - 79, 640);
	end("summary: across the 2^62-tick wrap between packets, time goes on: span_ns = "
	    "last_ns - first_ns modulo 2^64, the gap counts");
}

/*
 * A timestamp that goes back. c = 0, q0 size 10, timestamp 1000:
 *   slot 2     arrival   q0 len 5  gap 10   tick 1010  q0 15
 *   slots 3-4  timestamp 990: earlier than 1010, time waits at 1010
 *   slot 5     departure q0 len 8  gap 5    tick 995   q0 7   (at 1010)
 *   slot 6     arrival   q0 len 20 gap 10   tick 1005  q0 27  (at 1010; a new maximum, at its
 *                                                             own tick: 8040 ns)
 *   slot 7     departure q0 len 27 gap 15   tick 1020  q0 0   time moves on from 1010
 *   slots 8-9  timestamp 1030, later than everything: the span reaches it
 * q0: 10 x 10 + (15, 7, then 27 at 1010, no time) + 27 x 10 + 0 x 10 = 370 word ticks =
 * 2960 word ns over 30 ticks = 240 ns. Last event 1020 (8160 ns), latest instant 1030.
 */
static void test_summary_time_back(void)
{
	static const uint32_t qs[8] = {10};
	struct pktstats_summary s;
	enum pktstats_decode_error why;
	struct buf b;

	begin();
	memset(&s, 0, sizeof(s));
	put_hdr2(&b, 0, 0, 1, qs);
	put_ts(&b, 1000);
	put_ev(&b, ARR, 0, 5, 10);
	put_ts(&b, 990);
	put_ev(&b, DEP, 0, 8, 5);
	put_ev(&b, ARR, 0, 20, 10);
	put_ev(&b, DEP, 0, 27, 15);
	put_ts(&b, 1030);
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	EXPECT_EQ(s.first_ns, 8000);
	EXPECT_EQ(s.last_ns, 8160);
	EXPECT_EQ(s.latest_ns, 8240);
	EXPECT_EQ(s.span_ns, 240);
	EXPECT_QUEUE(&s, 0, COUNTS(2, 2, 0), COUNTS(25, 35, 0), 0, 27, 8040, 2960);
	EXPECT_DBL(pktstats_summary_mean(&s, 0), 2960.0 / 240.0);
	end("summary: time going back waits at the latest instant, the occupancy still changes");
}

/*
 * Version 1 at c = 3 (64 ns a tick), q0 4 words, and a timestamp jump of 2^41 ticks (the
 * general loop ends a segment there):
 *   timestamp 2^19 = 524288
 *   arrival   q0 len 2, low bits 5: tick 524293, q0 6 (maximum)
 *   departure q0 len 1, low bits 3: the next tick with them is 2^20 + 3 = 1048579, q0 5
 *   timestamp 2^41
 *   arrival   q0 len 3, low bits 7: tick 2^41 + 7, q0 8 (maximum)
 * q0: 4 x 5 + 6 x 524286 + 5 x (2^41 + 7 - 1048579) = 10995114180636 word ticks, x 64 =
 * 703687307560704 word ns (below 2^53: exact). Span 2^41 + 7 - 524288 ticks.
 */
static void test_summary_v1_far_jump(void)
{
	static const uint32_t words[8] = {4};
	const uint64_t t41 = UINT64_C(1) << 41;
	struct pktstats_decode_options o = {.accept_v1 = true, .v1_resolution = 3};
	struct pktstats_summary s;
	enum pktstats_decode_error why;
	struct buf b;

	begin();
	memset(&s, 0, sizeof(s));
	put_hdr1(&b, 0x01, 9, words, NULL);
	put_ts(&b, 524288);
	put_ev(&b, ARR, 0, 2, 5);
	put_ev(&b, DEP, 0, 1, 3);
	put_ts(&b, t41);
	put_ev(&b, ARR, 0, 3, 7);
	EXPECT_EQ(sum_add(&b, &o, &s, &why), 0);
	EXPECT_EQ(s.first_ns, 524288 * 64);
	EXPECT_EQ(s.last_ns, (t41 + 7) * 64);
	EXPECT_EQ(s.latest_ns, (t41 + 7) * 64);
	EXPECT_EQ(s.span_ns, (t41 + 7 - 524288) * 64);
	EXPECT_QUEUE(&s, 0, COUNTS(2, 1, 0), COUNTS(5, 1, 0), 8, 8, (t41 + 7) * 64,
		     703687307560704.0);
	end("summary: version 1 (option resolution), 19-bit times, a jump of 2^41 ticks");
}

/*
 * The largest occupancy is the largest held at a clock's edge (decode.h): an arrival's
 * occupancy does not count when the packet's next event is a departure of the same queue in
 * the same tick. One packet at c = 0 (8 ns a tick), queue sizes q0 100, q2 10, timestamp 1000,
 * the events of a clock in the hardware's order (by queue, arrival before departure):
 *   arrival   q0 len 30  tick 1005  q0 130  never held: q0's departure leaves in that clock
 *   departure q0 len 100 tick 1005  q0 30
 *   arrival   q2 len 50  tick 1008  q2 60   held from 1008 to 1009: the maximum, at 8064 ns
 *   departure q2 len 5   tick 1009  q2 55
 *   arrival   q5 len 20  tick 1010  q5 20   never held
 *   departure q5 len 20  tick 1010  q5 0
 *   drop      q5 len 9   tick 1010  q5 0
 *   arrival   q1 len 40  tick 1012  q1 40   q1's last event: held (8096 ns)
 *   arrival   q5 len 7   tick 1015  q5 7    q5's last event in the packet: 8120 ns
 * q0's maximum stays the queue size, 100, at the packet's start (8000 ns). The same events
 * three ways: version 2 (the fast loop), version 2 with a timestamp back to 990 after them
 * (the general loop), version 1 (19-bit times, the general loop).
 */
static void test_summary_clock_edges(void)
{
	static const uint32_t qs[8] = {100, 0, 10, 0, 0, 0, 0, 0};
	static const struct {
		unsigned type, q, len;
		uint64_t tick;
	} evs[] = {
		{ARR, 0, 30, 1005}, {DEP, 0, 100, 1005}, {ARR, 2, 50, 1008}, {DEP, 2, 5, 1009},
		{ARR, 5, 20, 1010}, {DEP, 5, 20, 1010},  {DROP, 5, 9, 1010}, {ARR, 1, 40, 1012},
		{ARR, 5, 7, 1015},
	};
	struct pktstats_summary s;
	enum pktstats_decode_error why;
	struct buf b;

	begin();
	for (int variant = 0; variant < 3; variant++) {
		uint64_t tick = 1000;

		memset(&s, 0, sizeof(s));
		if (variant == 2)
			put_hdr1(&b, 0x01, 1, qs, NULL);
		else
			put_hdr2(&b, 0, 0, 1, qs);
		put_ts(&b, tick);
		for (size_t k = 0; k < sizeof(evs) / sizeof(evs[0]); k++) {
			put_ev(&b, evs[k].type, evs[k].q, evs[k].len,
			       variant == 2 ? (uint32_t)evs[k].tick & 0x7ffff
					    : (uint32_t)(evs[k].tick - tick));
			tick = evs[k].tick;
		}
		if (variant == 1)
			put_ts(&b, 990);
		EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
		EXPECT_EQ(s.queues[0].occupancy, 30);
		EXPECT_EQ(s.queues[0].max_occupancy, 100);
		EXPECT_EQ(s.queues[0].max_time_ns, 8000);
		EXPECT_EQ(s.queues[2].max_occupancy, 60);
		EXPECT_EQ(s.queues[2].max_time_ns, 1008 * 8);
		EXPECT_EQ(s.queues[5].max_occupancy, 7);
		EXPECT_EQ(s.queues[5].max_time_ns, 1015 * 8);
		EXPECT_EQ(s.queues[1].max_occupancy, 40);
		EXPECT_EQ(s.queues[1].max_time_ns, 1012 * 8);
		if (!test_ok)
			diag("variant %d (0 fast, 1 time back, 2 version 1)", variant);
	}

	/*
	 * c = 2 (32 ns a tick), q1 size 50, timestamp 500: the packet's next event decides, a
	 * timestamp between them or not:
	 *   arrival   q1 len 10 tick 501  q1 60  the next event is q4's: the clocks of a tick
	 *                                        come in order, so q1's departure is a clock
	 *                                        later and 60 was held: 16032 ns
	 *   arrival   q4 len 6  tick 501  q4 6   never held
	 *   timestamp 501
	 *   departure q4 len 6  tick 501  q4 0
	 *   departure q1 len 30 tick 501  q1 30
	 *   arrival   q4 len 9  tick 503  q4 9   never held
	 *   departure q4 len 9  tick 503  q4 0
	 *   arrival   q4 len 2  tick 504  q4 2   the departure is a tick later: 2 at 16128 ns
	 *   departure q4 len 2  tick 505  q4 0
	 * and the same with a timestamp back to 400 at the end (the general loop).
	 */
	static const uint32_t qs2[8] = {0, 50, 0, 0, 0, 0, 0, 0};
	for (int variant = 0; variant < 2; variant++) {
		memset(&s, 0, sizeof(s));
		put_hdr2(&b, 0, 2, 1, qs2);
		put_ts(&b, 500);
		put_ev(&b, ARR, 1, 10, 1);
		put_ev(&b, ARR, 4, 6, 0);
		put_ts(&b, 501);
		put_ev(&b, DEP, 4, 6, 0);
		put_ev(&b, DEP, 1, 30, 0);
		put_ev(&b, ARR, 4, 9, 2);
		put_ev(&b, DEP, 4, 9, 0);
		put_ev(&b, ARR, 4, 2, 1);
		put_ev(&b, DEP, 4, 2, 1);
		if (variant == 1)
			put_ts(&b, 400);
		EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
		EXPECT_EQ(s.queues[1].max_occupancy, 60);
		EXPECT_EQ(s.queues[1].max_time_ns, 501 * 32);
		EXPECT_EQ(s.queues[4].max_occupancy, 2);
		EXPECT_EQ(s.queues[4].max_time_ns, 504 * 32);
		if (!test_ok)
			diag("c = 2, variant %d (0 fast, 1 time back)", variant);
	}

	/* A packet's last event counts, even an arrival whose departure opens the next packet
	 * in the same tick (at c > 0 a clock later: the hardware keeps one queue's events of a
	 * clock in one packet), here in both loops. */
	static const uint32_t qs3[8] = {0};
	for (int variant = 0; variant < 2; variant++) {
		memset(&s, 0, sizeof(s));
		put_hdr2(&b, 0, 2, 1, qs3);
		put_ts(&b, 600);
		put_ev(&b, ARR, 6, 9, 0);
		if (variant == 1)
			put_ts(&b, 400);
		EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
		EXPECT_EQ(s.queues[6].max_occupancy, 9);
		EXPECT_EQ(s.queues[6].max_time_ns, 600 * 32);
	}
	end("summary: the largest occupancy is held at a clock's edge: an arrival followed by a "
	    "departure of its queue in the same tick does not count (fast and general loops, "
	    "version 1, a timestamp between; another queue's event between, a packet's end: "
	    "it counts)");
}

/* A growable payload, for packets beyond struct buf (more than 16384 slots). */
struct dyn {
	uint8_t *b;
	size_t n, cap;
};

static void dreserve(struct dyn *d, size_t more)
{
	while (d->n + more > d->cap) {
		d->cap = d->cap ? 2 * d->cap : 4096;
		d->b = realloc(d->b, d->cap);
		if (!d->b) {
			printf("Bail out! out of memory\n");
			exit(2);
		}
	}
}

static void dput32(struct dyn *d, uint32_t v)
{
	dreserve(d, 4);
	for (int i = 0; i < 4; i++)
		d->b[d->n++] = (uint8_t)(v >> (24 - 8 * i));
}

/* Starts with the header of a struct buf written by put_hdr2 / put_hdr1. */
static void dstart(struct dyn *d, const struct buf *header)
{
	d->n = 0;
	dreserve(d, header->n);
	memcpy(d->b, header->b, header->n);
	d->n = header->n;
}

/* Timestamp event, as put_ts: `00` + bits 61:32, then bits 31:0. */
static void dput_ts(struct dyn *d, uint64_t tick)
{
	dput32(d, (uint32_t)(tick >> 32) & 0x3fffffff);
	dput32(d, (uint32_t)tick);
}

/*
 * 20000 arrivals on q1 (size 0), length 1, gap 1 from timestamp 0, c = 0: more than 16384
 * slots, so the general loop folds its sums on the way. Event k (1..20000) at tick k leaves
 * k words: q1 holds k over [k, k + 1), sum 1 + ... + 19999 = 199990000 word ticks =
 * 1599920000 word ns; span 20000 ticks = 160000 ns; maximum 20000 at 160000 ns.
 */
static void test_summary_long_packet(void)
{
	struct pktstats_summary s;
	enum pktstats_decode_error why;
	struct dyn d = {0};
	struct buf h;

	begin();
	memset(&s, 0, sizeof(s));
	put_hdr2(&h, 0, 0, 1, NULL);
	dstart(&d, &h);
	dput_ts(&d, 0);
	for (int k = 0; k < 20000; k++)
		dput32(&d, ev(ARR, 1, 1, 1));
	EXPECT_EQ(pktstats_decode_payload_summary(d.b, d.n, NULL, &(struct pktstats_packet){0},
						  &s, &why), 0);
	EXPECT_EQ(s.events, 20000);
	EXPECT_EQ(s.span_ns, 160000);
	EXPECT_EQ(s.last_ns, 160000);
	EXPECT_QUEUE(&s, 1, COUNTS(20000, 0, 0), COUNTS(20000, 0, 0), 20000, 20000, 160000,
		     1599920000.0);
	EXPECT_DBL(pktstats_summary_mean(&s, 1), 1599920000.0 / 160000.0);
	free(d.b);
	end("summary: a packet of 20002 slots (beyond one 16384-slot chunk)");
}

/* Malformed packets add nothing: the summary is the same, bit for bit. */
static void test_summary_malformed(void)
{
	static const uint32_t qs[8] = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};
	struct pktstats_decode_options no_v1 = {.accept_v1 = false};
	struct pktstats_summary s, copy;
	enum pktstats_decode_error why;
	struct buf b;
	struct dyn d = {0};

	begin();
	memset(&s, 0, sizeof(s));
	minimal_packet(&b, 1, 0, 5000);
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	copy = s;

#define EXPECT_NOT_ADDED(o, reason)                                                      \
	do {                                                                             \
		EXPECT_EQ(sum_add(&b, o, &s, &why), -EBADMSG);                           \
		EXPECT_EQ(why, reason);                                                  \
		EXPECT(memcmp(&s, &copy, sizeof(s)) == 0);                               \
	} while (0)
	/* events first (work done in the fast loop), then a timestamp cut in half */
	put_hdr2(&b, 0, 0, 2, qs);
	put_ts(&b, 6000);
	put_ev(&b, ARR, 0, 200, 10);
	put_ev(&b, DEP, 1, 200, 10);
	put32(&b, 0x00000000);
	EXPECT_NOT_ADDED(NULL, PKTSTATS_DECODE_CUT_TIMESTAMP);
	/* the same after time went back (the general loop) */
	put_hdr2(&b, 0, 0, 2, qs);
	put_ts(&b, 6000);
	put_ev(&b, ARR, 0, 200, 10);
	put_ts(&b, 10);
	put_ev(&b, ARR, 3, 200, 10);
	put32(&b, 0x00000000);
	EXPECT_NOT_ADDED(NULL, PKTSTATS_DECODE_CUT_TIMESTAMP);
	/* timestamps only */
	put_hdr2(&b, 0, 0, 2, qs);
	put_ts(&b, 6000);
	put_ts(&b, 7000);
	EXPECT_NOT_ADDED(NULL, PKTSTATS_DECODE_NO_EVENTS);
	/* a partial slot */
	minimal_packet(&b, 2, 0, 6000);
	b.n -= 1;
	EXPECT_NOT_ADDED(NULL, PKTSTATS_DECODE_PARTIAL_SLOT);
	/* version 1 when it is refused */
	put_hdr1(&b, 0x01, 2, qs, NULL);
	put_ts(&b, 6000);
	put_ev(&b, ARR, 0, 1, 0);
	EXPECT_NOT_ADDED(&no_v1, PKTSTATS_DECODE_BAD_VERSION);
	/* first slot not a timestamp */
	put_hdr2(&b, 0, 0, 2, qs);
	put_ev(&b, ARR, 0, 1, 0);
	put_ev(&b, ARR, 0, 1, 0);
	EXPECT_NOT_ADDED(NULL, PKTSTATS_DECODE_FIRST_NOT_TIMESTAMP);
#undef EXPECT_NOT_ADDED

	/* 30000 events (two chunks folded) and then a cut timestamp */
	put_hdr2(&b, 0, 0, 2, qs);
	dstart(&d, &b);
	dput_ts(&d, 6000);
	for (int k = 0; k < 30000; k++)
		dput32(&d, ev(ARR, k & 7, 255, 3));
	dput32(&d, 0);
	EXPECT_EQ(pktstats_decode_payload_summary(d.b, d.n, NULL, &(struct pktstats_packet){0},
						  &s, &why), -EBADMSG);
	EXPECT_EQ(why, PKTSTATS_DECODE_CUT_TIMESTAMP);
	EXPECT(memcmp(&s, &copy, sizeof(s)) == 0);
	free(d.b);
	end("summary: a malformed packet leaves the summary unchanged, bit for bit");
}

static void test_summary_mean_einval(void)
{
	struct pktstats_summary s;
	struct pktstats_packet p;
	struct pktstats_stream st;
	struct pktstats_stream_result res;
	struct pktstats_decode_options bad = {.accept_v1 = true, .v1_resolution = 8};
	enum pktstats_decode_error why = PKTSTATS_DECODE_TRUNCATED;
	struct buf b, f;
	struct frame_opts o = frame_defaults();

	begin();
	memset(&s, 0, sizeof(s));
	for (unsigned q = 0; q < 8; q++)
		EXPECT_DBL(pktstats_summary_mean(&s, q), 0.0);
	/* one event at the timestamp's tick: span 0, mean 0 (not a division by 0) */
	minimal_packet(&b, 1, 0, 5000);
	b.b[6 + 3] = 9; /* q0 size 9 */
	EXPECT_EQ(sum_add(&b, NULL, &s, &why), 0);
	EXPECT_EQ(s.span_ns, 0);
	EXPECT_EQ(s.queues[0].occupancy, 10);
	EXPECT_DBL(pktstats_summary_mean(&s, 0), 0.0);
	EXPECT_DBL(pktstats_summary_mean(&s, 8), 0.0);
	EXPECT_DBL(pktstats_summary_mean(NULL, 0), 0.0);

	/* the summary is required */
	EXPECT_EQ(pktstats_decode_payload_summary(b.b, b.n, NULL, &p, NULL, &why), -EINVAL);
	EXPECT_EQ(why, PKTSTATS_DECODE_OK);
	EXPECT_EQ(pktstats_decode_payload_summary(b.b, b.n, NULL, &p, NULL, NULL), -EINVAL);
	memset(&s, 0, sizeof(s));
	EXPECT_EQ(pktstats_decode_payload_summary(b.b, b.n, NULL, NULL, &s, &why), -EINVAL);
	EXPECT_EQ(pktstats_decode_payload_summary(b.b, b.n, &bad, &p, &s, &why), -EINVAL);
	EXPECT_EQ(pktstats_decode_payload_summary(NULL, 5, NULL, &p, &s, &why), -EINVAL);
	EXPECT_EQ(s.packets, 0);
	EXPECT_EQ(pktstats_stream_init(&st, NULL), 0);
	build_frame(&f, b.b, b.n, &o);
	EXPECT_EQ(pktstats_stream_feed_frame_summary(&st, f.b, f.n, NULL, &res), -EINVAL);
	EXPECT_EQ(pktstats_stream_feed_frame_summary(NULL, f.b, f.n, &s, &res), -EINVAL);
	EXPECT_EQ(pktstats_stream_feed_frame_summary(&st, NULL, f.n, &s, &res), -EINVAL);
	EXPECT_EQ(s.packets, 0);
	EXPECT_EQ(st.total.packets, 0);
	EXPECT_EQ(pktstats_stream_feed_frame_summary(&st, f.b, f.n, &s, &res), 0);
	EXPECT_EQ(s.packets, 1);
	end("summary: mean 0 over a span of 0; NULL summary (and other bad arguments) -> -EINVAL");
}

/* ---------------------------------------------------------------------------------------- */
/* Summary against a reference, on random packets                                             */

/*
 * A second reference, written from decode.h like tb/fuzz/fuzz_common.h's but on its own:
 * validates the payload itself, walks the slots once with unmasked ticks, integrates step by
 * step in 128-bit integers. `scale` bounds what a floating-point computation adds on the way
 * (see expect_summary()). The largest occupancy is the largest held at a clock's edge: an
 * arrival's occupancy waits for the packet's next event, is dropped if that is a departure of
 * the same queue and tick (modulo 2^62), and taken otherwise, or at the end of the packet.
 */
struct tq {
	uint64_t events[4], words[4];
	int64_t occupancy, max;
	uint64_t max_ns;
	__int128 integral;         /* word x ns, exact */
	unsigned __int128 scale;
};

struct tsum {
	uint64_t packets, events, first_ns, last_ns, latest_ns, span_ns;
	struct tq q[8];
};

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned __int128 mag(__int128 v)
{
	return v < 0 ? (unsigned __int128)-v : (unsigned __int128)v;
}

/* What a packet exercised, for the coverage count of the random tests. */
enum {
	SEEN_FAST = 1,      /* version 2, <= 16384 slots, time never back, no jump of 2^40 */
	SEEN_BACK = 2,      /* a timestamp earlier than the tick before it */
	SEEN_FAR = 4,       /* a timestamp 2^40 ticks or more after the start */
	SEEN_V1 = 8,
	SEEN_LONG = 16,     /* more than 16384 slots */
	SEEN_GAP = 32,      /* started after the previous packet's latest instant */
	SEEN_NO_GAP = 64,   /* did not */
	SEEN_KINDS = 7
};

/* Returns 0 (added; *seen says what the packet exercised) or -1 (malformed, `s` untouched). */
static int tsum_add(const uint8_t *pl, size_t len, bool accept_v1, unsigned v1_res,
		    struct tsum *s, unsigned *seen)
{
	const uint64_t mask62 = (UINT64_C(1) << 62) - 1;
	unsigned version = len ? pl[0] & 15 : 0, c;
	size_t hdr, n_slots, n_ev = 0;

	if (version == 2) {
		hdr = 38;
		c = pl[0] >> 4 & 7;
	} else if (version == 1 && accept_v1) {
		hdr = 70;
		c = v1_res;
	} else {
		return -1;
	}
	if (len < hdr || pl[1] != 3 || (len - hdr) % 4 || len - hdr < 8)
		return -1;
	n_slots = (len - hdr) / 4;
#define SL(k) rd32(pl + hdr + 4 * (size_t)(k))
	if (SL(0) >> 30 != 0)
		return -1;
	for (size_t i = 2; i < n_slots; i++) {
		if (SL(i) >> 30 != 0)
			n_ev++;
		else if (++i == n_slots)
			return -1; /* a timestamp's first half in the last slot */
	}
	if (version == 2 && n_ev == 0)
		return -1;

	const uint64_t ns = UINT64_C(8) << c, start = (uint64_t)(SL(0) & 0x3fffffff) << 32 | SL(1);
	const uint64_t start_ns = (start << c) * 8;
	uint64_t t = start, latest = start, last = start, peak[8], moved[8] = {0};
	int64_t occ[8];
	__int128 area[8] = {0};
	/* the last event if an arrival: its queue, occupancy and tick, waiting for the next */
	bool held = false;
	unsigned held_q = 0;
	int64_t held_occ = 0;
	uint64_t held_tick = 0;

	*seen = (version == 1 ? SEEN_V1 : 0) | (n_slots > 16384 ? SEEN_LONG : 0);
	if (s->packets == 0) {
		s->first_ns = start_ns;
	} else if (start_ns - s->latest_ns == 0 || start_ns - s->latest_ns > INT64_MAX) {
		*seen |= SEEN_NO_GAP; /* not later modulo 2^64 ns */
	} else {
		const uint64_t gap = start_ns - s->latest_ns;

		*seen |= SEEN_GAP;

		for (int q = 0; q < 8; q++) {
			s->q[q].integral += (__int128)s->q[q].occupancy * gap;
			s->q[q].scale += mag(s->q[q].occupancy) * gap;
		}
		s->span_ns += gap;
	}
	for (int q = 0; q < 8; q++) {
		occ[q] = version == 2 ? rd32(pl + 6 + 4 * q) : rd32(pl + 6 + 8 * q);
		peak[q] = (uint64_t)occ[q];
		if (s->packets == 0 || occ[q] > s->q[q].max) {
			s->q[q].max = occ[q];
			s->q[q].max_ns = start_ns;
		}
	}
	for (size_t i = 2; i < n_slots; i++) {
		const uint32_t v = SL(i);
		const unsigned type = v >> 30, q = v >> 27 & 7, l = v >> 19 & 255;

		if (type == 0) {
			const uint64_t ts = (uint64_t)(v & 0x3fffffff) << 32 | SL(++i);

			if (ts < t)
				*seen |= SEEN_BACK;
			if (ts >= start && ts - start >= UINT64_C(1) << 40)
				*seen |= SEEN_FAR;
			t = ts;
		} else if (version == 2)
			t += v & 0x7ffff;
		else
			t += ((v & 0x7ffff) - t) & 0x7ffff;
		if (t > latest) {
			for (int k = 0; k < 8; k++)
				area[k] += (__int128)occ[k] * (t - latest);
			latest = t;
		}
		if (type == 0)
			continue;
		last = t;
		s->q[q].events[type]++;
		s->q[q].words[type] += l;
		occ[q] += type == 1 ? l : type == 2 ? -(int64_t)l : 0;
		moved[q] += type == 3 ? 0 : l;
		if ((uint64_t)(occ[q] < 0 ? -occ[q] : occ[q]) > peak[q])
			peak[q] = (uint64_t)(occ[q] < 0 ? -occ[q] : occ[q]);
		if (held && !(type == 2 && q == held_q && held_tick == (t & mask62)) &&
		    held_occ > s->q[held_q].max) {
			s->q[held_q].max = held_occ;
			s->q[held_q].max_ns = (held_tick << c) * 8;
		}
		held = type == 1;
		held_q = q;
		held_occ = occ[q];
		held_tick = t & mask62;
		if (type != 1 && occ[q] > s->q[q].max) {
			s->q[q].max = occ[q];
			s->q[q].max_ns = ((t & mask62) << c) * 8;
		}
	}
	if (held && held_occ > s->q[held_q].max) {
		s->q[held_q].max = held_occ;
		s->q[held_q].max_ns = (held_tick << c) * 8;
	}
#undef SL
	if (!(*seen & (SEEN_V1 | SEEN_LONG | SEEN_BACK | SEEN_FAR)))
		*seen |= SEEN_FAST;
	for (int q = 0; q < 8; q++) {
		s->q[q].occupancy = occ[q];
		s->q[q].integral += area[q] * ns;
		s->q[q].scale += (unsigned __int128)(peak[q] + moved[q]) * (latest - start) * ns;
	}
	s->span_ns += (latest - start) * ns;
	s->latest_ns = start_ns + (latest - start) * ns;
	s->last_ns = ((last & mask62) << c) * 8;
	s->packets++;
	s->events += n_ev;
	return 0;
}

/*
 * The library's double against the exact integral: equal while every term a double sum of it
 * can hold is below 2^53 (decode.h: exact while below 2^53), else within 1e-9 of the larger
 * of the result and those terms (a double sum is off by a few ulps of its terms, however
 * small the result is after they cancel).
 */
static bool integral_close(double got, __int128 exact, unsigned __int128 scale)
{
	const double want = (double)exact, diff = got > want ? got - want : want - got;
	const double m = (double)mag(exact), sc = (double)scale;

	if (scale < (unsigned __int128)1 << 53)
		return got == want;
	return diff <= 1e-9 * (m > sc ? m : sc);
}

/* Every field of the library's summary against the reference; the first difference is
 * explained. */
static void expect_summary(int line, const struct pktstats_summary *a, const struct tsum *b)
{
	const struct {
		const char *name;
		uint64_t got, want;
	} top[] = {
		{"packets", a->packets, b->packets},    {"events", a->events, b->events},
		{"first_ns", a->first_ns, b->first_ns}, {"last_ns", a->last_ns, b->last_ns},
		{"latest_ns", a->latest_ns, b->latest_ns}, {"span_ns", a->span_ns, b->span_ns},
	};

	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		if (top[i].got != top[i].want) {
			if (test_ok)
				diag("line %d: summary %s %" PRIu64 ", reference %" PRIu64, line,
				     top[i].name, top[i].got, top[i].want);
			test_ok = 0;
			return;
		}
	}
	for (unsigned q = 0; q < 8; q++) {
		const struct pktstats_queue_summary *x = &a->queues[q];
		const struct tq *y = &b->q[q];
		const struct {
			const char *name;
			uint64_t got, want;
		} f[] = {
			{"events[0]", x->events[0], y->events[0]},
			{"events[1]", x->events[1], y->events[1]},
			{"events[2]", x->events[2], y->events[2]},
			{"events[3]", x->events[3], y->events[3]},
			{"words[0]", x->words[0], y->words[0]},
			{"words[1]", x->words[1], y->words[1]},
			{"words[2]", x->words[2], y->words[2]},
			{"words[3]", x->words[3], y->words[3]},
			{"occupancy", (uint64_t)x->occupancy, (uint64_t)y->occupancy},
			{"max_occupancy", (uint64_t)x->max_occupancy, (uint64_t)y->max},
			{"max_time_ns", x->max_time_ns, y->max_ns},
		};

		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			if (f[i].got != f[i].want) {
				if (test_ok)
					diag("line %d: queue %u %s %" PRId64 ", reference %" PRId64,
					     line, q, f[i].name, (int64_t)f[i].got,
					     (int64_t)f[i].want);
				test_ok = 0;
				return;
			}
		}
		if (!integral_close(x->integral, y->integral, y->scale)) {
			if (test_ok)
				diag("line %d: queue %u integral %.17g, reference %.17g "
				     "(terms up to %.3g)", line, q, x->integral,
				     (double)y->integral, (double)y->scale);
			test_ok = 0;
			return;
		}
	}
}

/*
 * A random payload in d. Starts mostly after *clock (the previous packet's latest tick) and
 * moves it on. c is the summary's usual resolution. Every kind the summary treats apart:
 * time going forward only (the fast loop), timestamps going back, jumps of 2^40 ticks or
 * more (and just below), version 1, more than 16384 slots (not beyond max_slots), ticks past
 * 2^62, queue sizes up to 2^32 - 1; one in eight is then broken. Returns true for version 1.
 */
static bool gen_packet(struct dyn *d, uint64_t *clock, unsigned c, size_t max_slots)
{
	const uint64_t mask62 = (UINT64_C(1) << 62) - 1, far = UINT64_C(1) << 40;
	const unsigned kind = (unsigned)(rng() % 16);
	const bool v1 = kind == 9 || kind == 10 || (kind == 11 && rng() % 2);
	const bool back = kind == 6 || kind == 7 || kind >= 12 || (v1 && rng() % 2);
	const bool jump = kind == 8 || kind >= 12 || (v1 && rng() % 4 == 0);
	const unsigned ts_odds = 1 + (unsigned)(rng() % 32);
	uint32_t qs[8];
	uint64_t start, t;
	size_t n_ev;
	struct buf h;

	if (kind == 11 && max_slots > 16384) /* 16384 slots and more */
		n_ev = 16383 + (size_t)(rng() % (max_slots - 16384 < 24000 ? max_slots - 16384
									  : 24000));
	else if (rng() % 8 == 0)
		n_ev = (size_t)(rng() % 600);
	else
		n_ev = 1 + (size_t)(rng() % 40);
	switch (rng() % 8) {
	case 0: start = rng() & mask62; break;                     /* anywhere */
	case 1: start = *clock - rng() % 3000; break;               /* before the previous end */
	case 2: start = mask62 - rng() % 4096; break;               /* events pass 2^62 */
	default: start = *clock + rng() % 100000; break;            /* after it: a gap */
	}
	start &= mask62;
	for (int q = 0; q < 8; q++)
		qs[q] = rng() % 8 == 0 ? (uint32_t)rng()
		      : rng() % 4 == 0 ? 0 : (uint32_t)(rng() % 3000);
	if (v1)
		put_hdr1(&h, 0x01, (uint32_t)rng(), qs, NULL);
	else
		put_hdr2(&h, (int)(rng() % 2), rng() % 4 ? c : (unsigned)(rng() % 8),
			 (uint32_t)rng(), qs);
	dstart(d, &h);
	dput_ts(d, start);
	t = start;
	for (size_t k = 0; k < n_ev; k++) {
		if (rng() % ts_odds == 0) {
			uint64_t ts;

			if (jump && rng() % 3 == 0) {
				switch (rng() % 4) {
				case 0: ts = start + far; break;        /* the first that folds */
				case 1: ts = start + far - 1; break;    /* the last that does not */
				case 2: ts = t + far + rng() % far; break;
				default: ts = rng(); break;
				}
			} else if (back && rng() % 2) {
				ts = t - rng() % (t - start + 3000); /* maybe before the start */
			} else {
				ts = t + rng() % 5000;
			}
			ts &= mask62;
			dput_ts(d, ts);
			t = ts;
		}
		const uint32_t r = (uint32_t)rng();
		const unsigned type = r % 20 < 9 ? ARR : r % 20 < 18 ? DEP : DROP;
		const unsigned q = rng() % 4 ? (unsigned)(r >> 8) % 3 : (unsigned)(r >> 8) % 8;
		const unsigned len = (unsigned)(r >> 16) % (rng() % 4 ? 16 : 256);
		const uint32_t step = rng() % 8 ? (uint32_t)(rng() % 50)
					       : (uint32_t)rng() & 0x7ffff;

		t += step;
		dput32(d, ev(type, q, len, v1 ? (uint32_t)t & 0x7ffff : step));
		/* often an arrival and a departure of its queue in the same tick (as in one clock),
		 * sometimes with another queue's event between them (two clocks of one tick) */
		if (type == ARR && k + 2 < n_ev && rng() % 3 == 0) {
			if (rng() % 4 == 0) {
				dput32(d, ev(rng() % 2 ? ARR : DEP, (q + 1 + (unsigned)(rng() % 7)) % 8,
					     (unsigned)(rng() % 16), v1 ? (uint32_t)t & 0x7ffff : 0));
				k++;
			}
			dput32(d, ev(DEP, q, (unsigned)(rng() % 64), v1 ? (uint32_t)t & 0x7ffff : 0));
			k++;
		}
	}
	if (rng() % 8 == 0) /* a last timestamp, after the last event */
		dput_ts(d, (t + rng() % 1000) & mask62);
	*clock = t & mask62;

	if (rng() % 8 == 0) {
		switch (rng() % 6) {
		case 0: /* a partial slot */
			d->n -= 1 + rng() % 3;
			break;
		case 1: /* the first half of a timestamp last */
			dput32(d, (uint32_t)rng() & 0x3fffffff);
			break;
		case 2: /* first slot a short event */
			d->b[h.n] |= 0x40;
			break;
		case 3: /* version 2 with timestamps only (version 1 accepts it) */
			d->n = h.n;
			dput_ts(d, start);
			dput_ts(d, start + 1);
			break;
		case 4: /* bad version or event types */
			d->b[rng() % 2] ^= 0x04;
			break;
		default: /* truncated */
			d->n = (size_t)(rng() % (d->n + 1));
			break;
		}
	}
	return v1;
}

static uint64_t seed_state(uint64_t seed)
{
	uint64_t x = (seed + 1) * UINT64_C(0x9e3779b97f4a7c15);

	return x ? x : 1; /* xorshift never leaves 0 */
}

/*
 * Random summaries: rounds of 1..12 packets, each added by pktstats_decode_payload_summary()
 * and by the reference, with its own options (version 1 accepted or not, its resolution):
 * several resolutions in one summary. The summary must equal the reference after each packet,
 * and be unchanged by a malformed one.
 */
static void test_summary_random(uint64_t seed)
{
	static const char *const kinds[] = {"fast", "back", "far", "v1", "long", "gap", "no gap"};
	unsigned n_seen[SEEN_KINDS] = {0}, added = 0, refused = 0;
	struct dyn d = {0};
	char name[96];

	begin();
	rng_state = seed_state(seed);
	for (int round = 0; round < 500 && test_ok; round++) {
		struct pktstats_summary s, before;
		struct tsum ref;
		const unsigned c = (unsigned)(rng() % 8), n_packets = 1 + (unsigned)(rng() % 12);
		uint64_t clock = rng() >> (rng() % 64) >> 2;

		memset(&s, 0, sizeof(s));
		memset(&ref, 0, sizeof(ref));
		for (unsigned k = 0; k < n_packets && test_ok; k++) {
			const bool v1 = gen_packet(&d, &clock, c, 40000);
			struct pktstats_decode_options o = {
				.accept_v1 = v1 ? rng() % 8 != 0 : rng() % 2,
				.v1_resolution = (uint8_t)(rng() % 8),
			};
			struct pktstats_packet p;
			enum pktstats_decode_error why;
			uint8_t *pl = exact(d.b, d.n);
			unsigned seen = 0;
			int r, rr;

			before = s;
			r = pktstats_decode_payload_summary(pl, d.n, &o, &p, &s, &why);
			rr = tsum_add(pl, d.n, o.accept_v1, o.v1_resolution, &ref, &seen);
			if (rr == 0) {
				EXPECT_EQ(r, 0);
				added++;
				for (unsigned i = 0; i < SEEN_KINDS; i++)
					n_seen[i] += seen >> i & 1;
			} else {
				EXPECT_EQ(r, -EBADMSG);
				EXPECT(why != PKTSTATS_DECODE_OK);
				EXPECT(memcmp(&s, &before, sizeof(s)) == 0);
				refused++;
			}
			expect_summary(__LINE__, &s, &ref);
			if (!test_ok)
				diag("seed %" PRIu64 " round %d packet %u: %zu bytes, "
				     "v1 %d/%d c %u", seed, round, k, d.n, v1, o.accept_v1,
				     (unsigned)o.v1_resolution);
			free(pl);
		}
	}
	free(d.b);
	diag("%u packets added, %u malformed; fast %u, back %u, far %u, v1 %u, long %u, gap %u, "
	     "no gap %u", added, refused, n_seen[0], n_seen[1], n_seen[2], n_seen[3], n_seen[4],
	     n_seen[5], n_seen[6]);
	for (unsigned i = 0; i < SEEN_KINDS; i++)
		if (n_seen[i] == 0 && test_ok) {
			diag("no packet of kind %s", kinds[i]);
			test_ok = 0;
		}
	EXPECT(refused > 0);
	snprintf(name, sizeof(name), "summary: random packets against a reference (seed %" PRIu64
		 ")", seed);
	end(name);
}

/*
 * The same through the stream: frames (build_frame) fed to pktstats_stream_feed_frame_summary()
 * give the summary pktstats_decode_payload_summary() builds from their payloads, bit for bit
 * (and the reference's); frames for another port are not added.
 */
static void test_summary_stream(uint64_t seed)
{
	static struct buf f;
	static struct pktstats_stream st;
	struct dyn d = {0};
	unsigned added = 0, ignored = 0;
	char name[96];

	begin();
	rng_state = seed_state(seed ^ 0x5ca1ab1e);
	for (int round = 0; round < 60 && test_ok; round++) {
		struct pktstats_stream_options so;
		struct pktstats_stream_result res;
		struct pktstats_summary s, sp, before;
		struct tsum ref;
		const unsigned c = (unsigned)(rng() % 8), n_packets = 1 + (unsigned)(rng() % 20);
		uint64_t clock = rng() >> (rng() % 64) >> 2;

		pktstats_stream_default_options(&so);
		so.decode.accept_v1 = rng() % 4 != 0;
		so.decode.v1_resolution = (uint8_t)(rng() % 8);
		EXPECT_EQ(pktstats_stream_init(&st, &so), 0);
		memset(&s, 0, sizeof(s));
		memset(&sp, 0, sizeof(sp));
		memset(&ref, 0, sizeof(ref));
		for (unsigned k = 0; k < n_packets && test_ok; k++) {
			struct frame_opts o = frame_defaults();
			struct pktstats_packet p;
			enum pktstats_decode_error why;
			unsigned seen;
			int r, rp;

			/* at most 16300 slots: the frame's IP total length fits in 16 bits */
			gen_packet(&d, &clock, c, 16300);
			o.id = (uint16_t)k;
			o.sport = (uint16_t)(27033 + rng() % 3);
			if (rng() % 16 == 0)
				o.dport = 9; /* not a stat packet for this stream */
			build_frame(&f, d.b, d.n, &o);
			before = s;
			r = pktstats_stream_feed_frame_summary(&st, f.b, f.n, &s, &res);
			if (o.dport != 27033) {
				EXPECT_EQ(r, -ENOMSG);
				EXPECT(memcmp(&s, &before, sizeof(s)) == 0);
				ignored++;
				continue;
			}
			rp = pktstats_decode_payload_summary(d.b, d.n, &so.decode, &p, &sp, &why);
			EXPECT_EQ(r, rp);
			EXPECT_EQ(res.reason, why);
			EXPECT(memcmp(&s, &sp, sizeof(s)) == 0);
			if (tsum_add(d.b, d.n, so.decode.accept_v1, so.decode.v1_resolution, &ref,
				     &seen) == 0)
				added++;
			if (!test_ok)
				diag("seed %" PRIu64 " round %d frame %u: payload %zu bytes", seed,
				     round, k, d.n);
		}
		expect_summary(__LINE__, &s, &ref);
		EXPECT_EQ(st.total.packets, s.packets);
		EXPECT_EQ(st.total.events, s.events);
	}
	free(d.b);
	diag("%u packets added through the stream, %u frames ignored", added, ignored);
	EXPECT(added > 100 && ignored > 0);
	snprintf(name, sizeof(name), "summary: the stream's summary equals the payloads' (seed %"
		 PRIu64 ")", seed);
	end(name);
}

int main(void)
{
	/* The random summary tests run a fixed seed and one from the clock, so that every run
	 * also tries new input; PKTSTATS_TEST_SEED=N runs N alone (a replay). */
	const char *env = getenv("PKTSTATS_TEST_SEED");
	uint64_t seeds[2] = {20240601, (uint64_t)time(NULL)};
	unsigned n_seeds = 2;

	if (env && *env) {
		seeds[0] = strtoull(env, NULL, 0);
		n_seeds = 1;
	}
	for (unsigned i = 0; i < n_seeds; i++)
		printf("# seed %" PRIu64 " (replay: PKTSTATS_TEST_SEED=%" PRIu64 ")\n", seeds[i],
		       seeds[i]);
	test_normal_packet();
	test_header_fields();
	test_first_gap();
	test_mid_timestamp();
	test_wrap62();
	test_every_resolution();
	test_occupancy();
	test_summary_mode();
	test_enospc();
	test_max_events();
	test_bad_truncated();
	test_bad_partial_slot();
	test_bad_version();
	test_bad_event_types();
	test_bad_first_not_timestamp();
	test_bad_cut_timestamp();
	test_bad_no_events();
	test_strerror();
	test_einval();
	test_v1();
	test_v1_wrap62();
	test_frame_hw();
	test_frame_trailer();
	test_frame_small_padded();
	test_frame_vlan();
	test_frame_ip_options();
	test_frame_bad_lengths();
	test_frame_truncated();
	test_frame_not_ours();
	test_stream_in_order();
	test_stream_gap();
	test_stream_reset();
	test_stream_wrap();
	test_stream_reorder();
	test_stream_malformed();
	test_stream_ignored();
	test_stream_sources();
	test_stream_missed_and_payload();
	test_bit_flips();
	test_random();
	test_summary_one_packet();
	test_summary_packets();
	test_summary_time_back();
	test_summary_v1_far_jump();
	test_summary_clock_edges();
	test_summary_wrap();
	test_summary_long_packet();
	test_summary_malformed();
	test_summary_mean_einval();
	for (unsigned i = 0; i < n_seeds; i++) {
		test_summary_random(seeds[i]);
		test_summary_stream(seeds[i]);
	}
	printf("1..%u\n", tests_run);
	if (tests_failed)
		printf("# %u of %u tests failed\n", tests_failed, tests_run);
	return tests_failed ? 1 : 0;
}
