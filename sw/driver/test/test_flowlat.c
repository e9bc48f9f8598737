/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of libpktstats' flow-latency code (src/flowlat.c, pktstats/flowlat.h):
 *   - the IPFIX parser on messages written here byte by byte from the byte map and the template
 *     of docs/flowlat.md and rtl/flowlat/flowlat_ipfix.v (not by the library): template and
 *     records, records only, the template alone, every error (truncated at every length, bad
 *     version, bad length, a set beyond the message, every byte of the template altered,
 *     another PEN, unknown sets, a data set of 4 + 47 bytes, kinds 0 and 4), fewer events
 *     asked for than the message holds, and IE 325's NTP time as Unix time (2026-11-25T00:00:00.5Z,
 *     a fraction rounding up across a second, the 2036 era, the RTL's own ns-to-fraction);
 *   - the registers through the mmap backend on a plain file: ENODEV without the block, the
 *     lookup's key and command at their addresses, the answer's and status's bits, -ETIMEDOUT
 *     when the lookup never ends;
 *   - the registers against the simulator (build/bin/pktstats-sim, traffic from port 0 to port
 *     1): rules, profiles and the configuration set and read back on several indices, every
 *     field non-default, checked also as raw words against the bit positions of
 *     regmap/flowlat.toml; invalid values refused with nothing written; then a real flow:
 *     monitored, its lookup (found, breach, group), its HIGH event waiting in the status, the
 *     counters, their clear, export with the template, send_template, the table's clear, and a
 *     flow that is not there.
 *
 * The simulator is $PKTSTATS_SIM, or ../../bin/pktstats-sim next to this program; without it
 * the simulator's part is skipped.
 */
#define _DEFAULT_SOURCE /* mkstemp, ftruncate */

#include "pktstats/flowlat.h"
#include "pktstats/regs.h"

#include "test_sim_process.h"

#include <inttypes.h>
#include <stdint.h>
#include <sys/mman.h>

/* ---------------------------------------------------------------------------------------- */
/* IPFIX messages, byte by byte (docs/flowlat.md "The IPFIX exporter")                       */

#define PEN 32473u
#define NTP_2026_11_25 0xeeb0a380u /* 1795564800 (2026-11-25T00:00:00Z) + 2208988800 */
#define UNIX_2026_11_25 UINT64_C(1795564800)

/* The block's template set for PEN 32473 (0x00007ed9), from flowlat_ipfix.v's header. */
static const uint8_t template_32473[96] = {
	0x00, 0x02, 0x00, 0x60,             /* set ID 2, length 96 */
	0x01, 0x00, 0x00, 0x0f,             /* template 256, 15 fields */
	0x01, 0x45, 0x00, 0x08,             /* 325 observationTimeNanoseconds, 8 */
	0x00, 0x08, 0x00, 0x04,             /* 8 sourceIPv4Address, 4 */
	0x00, 0x0c, 0x00, 0x04,             /* 12 destinationIPv4Address, 4 */
	0x00, 0x04, 0x00, 0x01,             /* 4 protocolIdentifier, 1 */
	0x00, 0x07, 0x00, 0x02,             /* 7 sourceTransportPort, 2 */
	0x00, 0x0b, 0x00, 0x02,             /* 11 destinationTransportPort, 2 */
	0x00, 0x0a, 0x00, 0x04,             /* 10 ingressInterface, 4 */
	0x00, 0x0e, 0x00, 0x04,             /* 14 egressInterface, 4 */
	0x80, 0x01, 0x00, 0x04, 0x00, 0x00, 0x7e, 0xd9, /* PEN/1 residence, 4 */
	0x80, 0x02, 0x00, 0x01, 0x00, 0x00, 0x7e, 0xd9, /* PEN/2 event kind, 1 */
	0x80, 0x03, 0x00, 0x01, 0x00, 0x00, 0x7e, 0xd9, /* PEN/3 flow group, 1 */
	0x80, 0x04, 0x00, 0x01, 0x00, 0x00, 0x7e, 0xd9, /* PEN/4 profile, 1 */
	0x80, 0x05, 0x00, 0x04, 0x00, 0x00, 0x7e, 0xd9, /* PEN/5 high, 4 */
	0x80, 0x06, 0x00, 0x04, 0x00, 0x00, 0x7e, 0xd9, /* PEN/6 low, 4 */
	0x80, 0x07, 0x00, 0x04, 0x00, 0x00, 0x7e, 0xd9, /* PEN/7 occupancy, 4 */
};
/* Where the PEN is in that set: after each of the 7 enterprise field specifiers. */
static const unsigned pen_offsets[7] = {44, 52, 60, 68, 76, 84, 92};

/* A record's values, written in the template's order. */
struct rec {
	uint32_t ntp_seconds, ntp_fraction, src, dst;
	uint8_t protocol;
	uint16_t sport, dport;
	uint32_t ingress, egress, residence;
	uint8_t kind, group, profile;
	uint32_t high, low, occupancy;
};

struct writer {
	uint8_t buf[2048];
	size_t len;
};

static void w8(struct writer *w, unsigned v)
{
	w->buf[w->len++] = (uint8_t)v;
}

static void w16(struct writer *w, unsigned v)
{
	w8(w, v >> 8 & 0xff);
	w8(w, v & 0xff);
}

static void w32(struct writer *w, uint32_t v)
{
	w16(w, v >> 16);
	w16(w, v & 0xffff);
}

static void w_record(struct writer *w, const struct rec *r)
{
	w32(w, r->ntp_seconds); /* IE 325: seconds since 1900, then the 2^-32 s fraction */
	w32(w, r->ntp_fraction);
	w32(w, r->src);
	w32(w, r->dst);
	w8(w, r->protocol);
	w16(w, r->sport);
	w16(w, r->dport);
	w32(w, r->ingress);
	w32(w, r->egress);
	w32(w, r->residence);
	w8(w, r->kind);
	w8(w, r->group);
	w8(w, r->profile);
	w32(w, r->high);
	w32(w, r->low);
	w32(w, r->occupancy);
}

/* A message: the IPFIX header (length filled at the end), the template set for pen when
 * with_template, and one data set of the n records when n > 0. */
static size_t build(struct writer *w, bool with_template, uint32_t pen, const struct rec *recs,
		    unsigned n)
{
	w->len = 0;
	w16(w, 10);          /* version */
	w16(w, 0);           /* length, below */
	w32(w, 1795564801);  /* export time */
	w32(w, 4242);        /* sequence */
	w32(w, 0x01020304);  /* observation domain */
	if (with_template) {
		size_t at = w->len;
		memcpy(w->buf + at, template_32473, sizeof template_32473);
		for (unsigned i = 0; i < 7; i++) {
			w->buf[at + pen_offsets[i]] = (uint8_t)(pen >> 24);
			w->buf[at + pen_offsets[i] + 1] = (uint8_t)(pen >> 16);
			w->buf[at + pen_offsets[i] + 2] = (uint8_t)(pen >> 8);
			w->buf[at + pen_offsets[i] + 3] = (uint8_t)pen;
		}
		w->len += sizeof template_32473;
	}
	if (n) {
		w16(w, 256);
		w16(w, 4 + 48 * n);
		for (unsigned i = 0; i < n; i++)
			w_record(w, &recs[i]);
	}
	w->buf[2] = (uint8_t)(w->len >> 8);
	w->buf[3] = (uint8_t)w->len;
	return w->len;
}

/* Parses a copy of exactly len bytes on the heap, so that AddressSanitizer sees any read
 * beyond len. */
static int parse(const uint8_t *bytes, size_t len, uint32_t pen,
		 struct pktstats_flowlat_message *m, struct pktstats_flowlat_event *events,
		 size_t max, enum pktstats_flowlat_ipfix_error *error)
{
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy)
		abort();
	memcpy(copy, bytes, len);
	int rc = pktstats_flowlat_ipfix_parse(copy, len, pen, m, events, max, error);
	free(copy);
	return rc;
}

static const struct rec recs[5] = {
	{NTP_2026_11_25, 0x80000000u, 0x0a000001, 0x0a000002, 17, 40000, 9, 0, 1, 1234,
	 1, 0, 0, 1000, 0, 1500},
	{NTP_2026_11_25 + 1, 0, 0xc0a80101, 0x08080808, 6, 443, 55555, 5, 3, 0xfffffc18 /* -1000 */,
	 2, 15, 7, 0x7fffffff, 0x80000000 /* INT32_MIN */, 0x000fffff},
	{NTP_2026_11_25 + 2, 0xffffffffu, 0xffffffff, 0x00000000, 1, 0, 0, 7, 2, 0x80000000,
	 3, 9, 4, 0xffffffff /* -1 */, 0xfffffffe /* -2 */, 0},
	{0x00000000u, 0x00000001u, 1, 2, 132, 1, 2, 3, 0, 5, 1, 1, 1, 6, 7, 8},
	{NTP_2026_11_25, 0x00400000u, 3, 4, 17, 3, 4, 2, 3, 6, 2, 2, 2, 9, 10, 11},
};

static bool same_event(const struct pktstats_flowlat_event *e, const struct rec *r)
{
	return e->observation_time_ntp == ((uint64_t)r->ntp_seconds << 32 | r->ntp_fraction) &&
	       e->key.source_ip == r->src && e->key.destination_ip == r->dst &&
	       e->key.protocol == r->protocol && e->key.source_port == r->sport &&
	       e->key.destination_port == r->dport && e->ingress_interface == r->ingress &&
	       e->egress_interface == r->egress && e->residence_ns == (int32_t)r->residence &&
	       e->kind == r->kind && e->group == r->group && e->profile == r->profile &&
	       e->high_ns == (int32_t)r->high && e->low_ns == (int32_t)r->low &&
	       e->occupancy == r->occupancy;
}

static void test_ipfix_valid(void)
{
	struct writer w;
	struct pktstats_flowlat_message m;
	struct pktstats_flowlat_event ev[8];
	enum pktstats_flowlat_ipfix_error error;

	/* the template and three records: 16 + 96 + 4 + 144 = 260 bytes */
	size_t len = build(&w, true, PEN, recs, 3);
	int rc = parse(w.buf, len, PEN, &m, ev, 8, &error);
	tap_ok(len == 260 && rc == 3 && error == PKTSTATS_FLOWLAT_IPFIX_OK,
	       "template + 3 records (260 bytes): 3 events, ok (rc %d, %s)", rc,
	       pktstats_flowlat_ipfix_error_name(error));
	tap_ok(m.length == 260 && m.export_time == 1795564801 && m.sequence == 4242 &&
		       m.observation_domain == 0x01020304 && m.has_template && m.records == 3,
	       "the header: length, export time, sequence, observation domain; has_template, "
	       "records 3");
	tap_ok(rc == 3 && same_event(&ev[0], &recs[0]) && same_event(&ev[1], &recs[1]) &&
		       same_event(&ev[2], &recs[2]),
	       "every field of the three records, in order (negative residence, high and low "
	       "signed)");
	tap_ok(rc == 3 && ev[1].residence_ns == -1000 && ev[1].low_ns == INT32_MIN &&
		       ev[2].high_ns == -1 && ev[2].low_ns == -2 && ev[1].occupancy == 0xfffff,
	       "signed fields as two's complement: residence -1000, low INT32_MIN, high -1");

	/* records only */
	len = build(&w, false, PEN, recs, 5);
	memset(ev, 0, sizeof ev);
	rc = parse(w.buf, len, PEN, &m, ev, 8, &error);
	bool all = rc == 5;
	for (int i = 0; all && i < 5; i++)
		all = same_event(&ev[i], &recs[i]);
	tap_ok(len == 16 + 4 + 240 && all && error == PKTSTATS_FLOWLAT_IPFIX_OK && !m.has_template &&
		       m.records == 5,
	       "records only (5, 260 bytes): every record, no template (rc %d)", rc);

	/* the template alone (when no event waits): 112 bytes */
	len = build(&w, true, PEN, NULL, 0);
	rc = parse(w.buf, len, PEN, &m, NULL, 0, &error);
	tap_ok(len == 112 && rc == 0 && error == PKTSTATS_FLOWLAT_IPFIX_OK && m.has_template &&
		       m.records == 0,
	       "the template alone (112 bytes): ok, no records");

	/* another PEN, the template built for it and parsed with it */
	len = build(&w, true, 0x12345678, recs, 1);
	rc = parse(w.buf, len, 0x12345678, &m, ev, 8, &error);
	tap_ok(rc == 1 && error == PKTSTATS_FLOWLAT_IPFIX_OK && m.has_template,
	       "the template of PEN 0x12345678, parsed with that PEN: ok");

	/* fewer events asked for than there are */
	len = build(&w, true, PEN, recs, 5);
	memset(ev, 0xa5, sizeof ev);
	rc = parse(w.buf, len, PEN, &m, ev, 2, &error);
	uint8_t untouched[sizeof ev[0]];
	memset(untouched, 0xa5, sizeof untouched);
	tap_ok(rc == 2 && error == PKTSTATS_FLOWLAT_IPFIX_OK && m.records == 5 &&
		       same_event(&ev[0], &recs[0]) && same_event(&ev[1], &recs[1]) &&
		       !memcmp(&ev[2], untouched, sizeof untouched),
	       "max_events 2 of 5: 2 events filled, records 5, the third slot untouched");
	rc = parse(w.buf, len, PEN, &m, NULL, 0, &error);
	tap_ok(rc == 0 && error == PKTSTATS_FLOWLAT_IPFIX_OK && m.records == 5,
	       "max_events 0, events NULL: 0, ok, records 5 counted");

	rc = pktstats_flowlat_ipfix_parse(NULL, len, PEN, &m, ev, 8, &error);
	int rc2 = pktstats_flowlat_ipfix_parse(w.buf, len, PEN, NULL, ev, 8, &error);
	int rc3 = pktstats_flowlat_ipfix_parse(w.buf, len, PEN, &m, NULL, 1, &error);
	int rc4 = pktstats_flowlat_ipfix_parse(w.buf, len, PEN, &m, ev, 8, NULL);
	tap_ok(rc == -EINVAL && rc2 == -EINVAL && rc3 == -EINVAL && rc4 == -EINVAL,
	       "NULL payload, message, events (max 1) or error: -EINVAL");
}

/* The parse of w must fail with want (and return 0). */
static bool fails(const uint8_t *bytes, size_t len, uint32_t pen,
		  enum pktstats_flowlat_ipfix_error want)
{
	struct pktstats_flowlat_message m;
	struct pktstats_flowlat_event ev[8];
	enum pktstats_flowlat_ipfix_error error = PKTSTATS_FLOWLAT_IPFIX_OK;
	int rc = parse(bytes, len, pen, &m, ev, 8, &error);
	if (rc != 0 || error != want) {
		tap_diag("length %zu: rc %d, %s; expected %s", len, rc,
			 pktstats_flowlat_ipfix_error_name(error),
			 pktstats_flowlat_ipfix_error_name(want));
		return false;
	}
	return true;
}

static void test_ipfix_errors(void)
{
	struct writer w;
	size_t len = build(&w, true, PEN, recs, 3);

	bool ok = true;
	for (size_t cut = 0; cut < len && ok; cut++)
		ok = fails(w.buf, cut, PEN, PKTSTATS_FLOWLAT_IPFIX_TRUNCATED);
	tap_ok(ok, "cut at every length 0..%zu of 260: truncated (below the header, or shorter "
	       "than its length says)", len - 1);

	struct writer b = w;
	b.buf[1] = 9;
	bool v9 = fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_VERSION);
	b.buf[0] = 0x0a;
	b.buf[1] = 0x00;
	tap_ok(v9 && fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_VERSION),
	       "version 9, and 10 in the wrong byte order: bad version");

	/* one byte more in the datagram than the header's length; a length below the header */
	b = w;
	b.buf[len] = 0;
	bool longer = fails(b.buf, len + 1, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_LENGTH);
	b.buf[2] = 0;
	b.buf[3] = 15;
	tap_ok(longer && fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_LENGTH),
	       "a datagram one byte longer than the header's length, a length of 15: bad length");

	/* the data set's length 48 beyond the message (the header's length right) */
	b = w;
	b.buf[112 + 2] = (uint8_t)((4 + 48 * 4) >> 8);
	b.buf[112 + 3] = (uint8_t)(4 + 48 * 4);
	bool beyond = fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_SET);
	b = w;
	b.buf[112 + 2] = 0;
	b.buf[112 + 3] = 3;
	bool short_set = fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_SET);
	/* three bytes after the last set, inside the message: no room for a set header */
	b = w;
	memset(b.buf + len, 0, 3);
	b.buf[2] = (uint8_t)((len + 3) >> 8);
	b.buf[3] = (uint8_t)(len + 3);
	bool tail = fails(b.buf, len + 3, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_SET);
	/* the template set's length runs beyond the message when it is alone */
	struct writer t;
	size_t tlen = build(&t, true, PEN, NULL, 0);
	t.buf[16 + 3] = 97;
	tap_ok(beyond && short_set && tail && fails(t.buf, tlen, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_SET),
	       "a set beyond the message (data set, template set), a set length of 3, 3 bytes "
	       "left after the last set: bad set");

	/* every byte of the template set after its header altered */
	ok = true;
	for (size_t i = 4; i < 96 && ok; i++) {
		b = w;
		b.buf[16 + i] ^= 0x01;
		ok = fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_TEMPLATE);
		if (!ok)
			tap_diag("template byte %zu altered", i);
	}
	tap_ok(ok, "each of the template set's bytes 4..95 altered (template ID, field count, IEs, "
	       "lengths, enterprise bits, PENs): bad template");
	tap_ok(fails(w.buf, len, 32474, PKTSTATS_FLOWLAT_IPFIX_BAD_TEMPLATE) &&
		       fails(w.buf, len, 0, PKTSTATS_FLOWLAT_IPFIX_BAD_TEMPLATE),
	       "the template of PEN 32473 parsed for PEN 32474 or 0: bad template");
	/* a template set of another length (a 16th field) that still fits the message */
	struct writer x;
	x.len = 0;
	w16(&x, 10);
	w16(&x, 16 + 100);
	w32(&x, 0);
	w32(&x, 0);
	w32(&x, 0);
	memcpy(x.buf + x.len, template_32473, 96);
	x.buf[x.len + 3] = 100;
	x.buf[x.len + 7] = 16;
	x.len += 96;
	w16(&x, 4);
	w16(&x, 4); /* packet delta count, 4 */
	tap_ok(fails(x.buf, x.len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_TEMPLATE),
	       "a template set of 100 bytes (a 16th field): bad template");

	/* sets of other templates: data set 257, an options template set (3) */
	b = w;
	b.buf[112 + 1] = 0x01; /* 256 -> 257 */
	bool s257 = fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_UNKNOWN_SET);
	b = w;
	b.buf[112] = 0;
	b.buf[112 + 1] = 3;
	tap_ok(s257 && fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_UNKNOWN_SET),
	       "a data set of template 257, an options template set (ID 3): unknown set");

	/* a data set of 4 + 47 bytes (the message's length agreeing) */
	struct writer d;
	size_t dlen = build(&d, false, PEN, recs, 1);
	d.buf[16 + 3] = 51;
	d.buf[3] = (uint8_t)(dlen - 1);
	bool r47 = fails(d.buf, dlen - 1, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_RECORDS);
	dlen = build(&d, false, PEN, recs, 2);
	d.buf[16 + 3] = 4 + 48 + 49;
	d.buf[3] = (uint8_t)(dlen + 1);
	d.buf[dlen] = 0;
	tap_ok(r47 && fails(d.buf, dlen + 1, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_RECORDS),
	       "a data set of 4 + 47 bytes, one of 4 + 48 + 49: bad records");

	/* event kinds 0 and 4, in the first and in the last record */
	struct rec bad[3] = {recs[0], recs[1], recs[2]};
	bool kinds = true;
	for (unsigned k = 0; k < 2; k++) {
		for (unsigned which = 0; which < 3; which += 2) {
			bad[0] = recs[0];
			bad[2] = recs[2];
			bad[which].kind = (uint8_t)(k ? 4 : 0);
			len = build(&b, true, PEN, bad, 3);
			kinds = kinds && fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_KIND);
		}
	}
	bad[2] = recs[2];
	bad[1].kind = 255;
	len = build(&b, false, PEN, bad, 3);
	tap_ok(kinds && fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_BAD_KIND),
	       "event kind 0, 4 (first record, last record), 255: bad kind");

	/* one past each field's widest value in the block, in the last record; the widest
	 * values themselves pass */
	bad[1] = recs[1];
	bool impossible = true;
	for (unsigned field = 0; field < 5; field++) {
		for (unsigned over = 0; over < 2; over++) {
			bad[2] = recs[2];
			switch (field) {
			case 0: bad[2].ingress = 7 + over; break;
			case 1: bad[2].egress = 3 + over; break;
			case 2: bad[2].group = (uint8_t)(15 + over); break;
			case 3: bad[2].profile = (uint8_t)(7 + over); break;
			default: bad[2].occupancy = (1u << 20) - 1 + over; break;
			}
			len = build(&b, false, PEN, bad, 3);
			struct pktstats_flowlat_message fine;
			struct pktstats_flowlat_event ev[3];
			enum pktstats_flowlat_ipfix_error why = PKTSTATS_FLOWLAT_IPFIX_OK;
			impossible = impossible &&
				     (over ? fails(b.buf, len, PEN, PKTSTATS_FLOWLAT_IPFIX_IMPOSSIBLE_FIELD)
					   : parse(b.buf, len, PEN, &fine, ev, 3, &why) == 3 &&
						     why == PKTSTATS_FLOWLAT_IPFIX_OK);
		}
	}
	tap_ok(impossible, "ingress 8, egress 4, group 16, profile 8, occupancy 2^20: impossible "
			   "field (7, 3, 15, 7, 2^20 - 1 pass)");
	bad[2] = recs[2];
	bad[1].kind = 255;
	len = build(&b, false, PEN, bad, 3);

	/* what a malformed message's header still tells */
	struct pktstats_flowlat_message m;
	enum pktstats_flowlat_ipfix_error error;
	int rc = parse(b.buf, len, PEN, &m, NULL, 0, &error);
	tap_ok(rc == 0 && error == PKTSTATS_FLOWLAT_IPFIX_BAD_KIND && m.sequence == 4242 &&
		       m.export_time == 1795564801,
	       "a malformed message: 0, and the header read so far in message");
}

/* The RTL's fraction of a nanosecond count (flowlat_ipfix.v ntp_fraction): ns *
 * 9671406556917033 (2^83 / 10^9 rounded) / 2^51, to the nearest. */
static uint32_t rtl_fraction(uint32_t ns)
{
	unsigned __int128 product = (unsigned __int128)ns * UINT64_C(9671406556917033);
	return (uint32_t)(product >> 51) + (uint32_t)(product >> 50 & 1);
}

static bool time_of(uint32_t ntp_seconds, uint32_t fraction, uint64_t *s, uint32_t *ns)
{
	struct writer w;
	struct rec r = recs[0];
	struct pktstats_flowlat_message m;
	struct pktstats_flowlat_event ev;
	enum pktstats_flowlat_ipfix_error error;
	r.ntp_seconds = ntp_seconds;
	r.ntp_fraction = fraction;
	size_t len = build(&w, false, PEN, &r, 1);
	if (parse(w.buf, len, PEN, &m, &ev, 1, &error) != 1)
		return false;
	*s = ev.seconds;
	*ns = ev.nanoseconds;
	return ev.observation_time_ntp == ((uint64_t)ntp_seconds << 32 | fraction);
}

static void test_ntp(void)
{
	uint64_t s = 0;
	uint32_t ns = 0;
	bool ok = time_of(NTP_2026_11_25, 0x80000000u, &s, &ns);
	tap_ok(ok && s == UNIX_2026_11_25 && ns == 500000000,
	       "NTP 0xeeb0a380.80000000 is 2026-11-25T00:00:00.5Z: %" PRIu64 " s %u ns", s,
	       (unsigned)ns);
	ok = time_of(NTP_2026_11_25, 0, &s, &ns);
	tap_ok(ok && s == UNIX_2026_11_25 && ns == 0, "fraction 0: 0 ns");
	ok = time_of(NTP_2026_11_25, 0xffffffffu, &s, &ns);
	tap_ok(ok && s == UNIX_2026_11_25 + 1 && ns == 0,
	       "fraction 0xffffffff (999999999.77 ns) rounds up across the second: %" PRIu64
	       " s %u ns", s, (unsigned)ns);
	ok = time_of(NTP_2026_11_25, 0xfffffffdu, &s, &ns);
	tap_ok(ok && s == UNIX_2026_11_25 && ns == 999999999,
	       "fraction 0xfffffffd (999999999.30 ns): 999999999 ns, same second");
	/* 1 / 2^32 s = 0.23 ns -> 0; 2 -> 0.47 -> 0; 3 -> 0.70 -> 1; 0x10c6f7a0 = 0.0654 s
	 * -> 65535999.99 ns -> 65536000 */
	uint64_t s1, s2, s3, s4;
	uint32_t n1 = 9, n2 = 9, n3 = 9, n4 = 9;
	ok = time_of(NTP_2026_11_25, 1, &s1, &n1) && time_of(NTP_2026_11_25, 2, &s2, &n2) &&
	     time_of(NTP_2026_11_25, 3, &s3, &n3) && time_of(NTP_2026_11_25, 0x10c6f7a0, &s4, &n4);
	tap_ok(ok && n1 == 0 && n2 == 0 && n3 == 1 && n4 == 65536000,
	       "fractions 1, 2, 3, 0x10c6f7a0: 0, 0, 1, 65536000 ns to the nearest (%u %u %u %u)",
	       (unsigned)n1, (unsigned)n2, (unsigned)n3, (unsigned)n4);
	ok = time_of(0, 0, &s, &ns);
	tap_ok(ok && s == UINT64_C(2085978496) && ns == 0,
	       "NTP seconds 0 after 2036 (era 1): 2036-02-07T06:28:16Z, 2085978496 s");
	ok = time_of(0x83aa7e80u, 0, &s, &ns); /* 2208988800: the Unix epoch */
	tap_ok(ok && s == 0, "NTP seconds 2208988800: Unix time 0");

	/* Every nanosecond count the RTL converts comes back (a fraction step is 0.23 ns) */
	unsigned bad = 0, tried = 0;
	for (uint32_t n = 0; n < 1000000000u; n += n < 1000 ? 1 : 999983) {
		uint32_t back = 0;
		tried++;
		if (!time_of(NTP_2026_11_25, rtl_fraction(n), &s, &back) || back != n ||
		    s != UNIX_2026_11_25) {
			if (!bad)
				tap_diag("%u ns: fraction 0x%08x, back %u ns", (unsigned)n,
					 (unsigned)rtl_fraction(n), (unsigned)back);
			bad++;
		}
	}
	uint32_t back = 0;
	bool last = time_of(NTP_2026_11_25, rtl_fraction(999999999), &s, &back) &&
		    back == 999999999 && s == UNIX_2026_11_25;
	tap_ok(bad == 0 && last,
	       "the RTL's fraction of %u nanosecond counts (0..999, then every 999983, and "
	       "999999999) comes back to the same ns", tried + 1);
}

/* The sequence numbers' rules (pktstats_flowlat_sequence_feed) */
static void test_sequence(void)
{
	struct pktstats_flowlat_sequence q;
	memset(&q, 0, sizeof q);
	struct pktstats_flowlat_message m;
	memset(&m, 0, sizeof m);
	/* {sequence, records, missing returned} */
	static const uint32_t steps[][3] = {
		{4000000000u, 5, 0},           /* the first: nothing known before it */
		{4000000005u, 5, 0},           /* in order */
		{4000000020u, 5, 10},          /* 10 missing */
		{4000000025u + 1364, 2, 1364}, /* what one message holds: missing */
		{4000001391u + 1365, 1, 0},    /* one more than that: a resynchronisation */
		{4000002757u - 3, 1, 0},       /* back: behind */
		{1035460, 1, 0},               /* 296000000 ahead, across 2^32: a resynchronisation */
		{1035468, 1, 7},               /* 7 missing, after the wrap */
	};
	bool ok = true;
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		m.sequence = steps[i][0];
		m.records = steps[i][1];
		uint64_t missing = pktstats_flowlat_sequence_feed(&q, &m);
		if (missing != steps[i][2]) {
			tap_diag("step %zu: sequence %u: %llu missing, expected %u", i, steps[i][0],
				 (unsigned long long)missing, steps[i][2]);
			ok = false;
		}
	}
	tap_ok(ok && q.missing == 10 + 1364 + 7 && q.behind == 1 && q.resyncs == 2 &&
		       q.next == 1035469,
	       "sequence numbers: in order, gaps of 10 and 1364 (a message's worth) missing; 1365 "
	       "ahead and further a resynchronisation, back behind; modulo 2^32 (missing %llu, behind %llu, resyncs %llu)", (unsigned long long)q.missing,
	       (unsigned long long)q.behind, (unsigned long long)q.resyncs);
}

static void test_names(void)
{
	tap_ok(!strcmp(pktstats_flowlat_kind_name(1), "absolute") &&
		       !strcmp(pktstats_flowlat_kind_name(2), "high") &&
		       !strcmp(pktstats_flowlat_kind_name(3), "low") &&
		       pktstats_flowlat_kind_name(0) == NULL && pktstats_flowlat_kind_name(4) == NULL,
	       "kind names: absolute, high, low; NULL for 0 and 4");
	static const char *const names[] = {"ok",           "truncated",   "bad_version",
					    "bad_length",   "bad_set",     "bad_template",
					    "unknown_set",  "bad_records", "bad_kind",
					    "impossible_field"};
	bool ok = true;
	for (int e = 0; e < 10; e++) {
		const char *text = pktstats_flowlat_ipfix_strerror(e);
		ok = ok && !strcmp(pktstats_flowlat_ipfix_error_name(e), names[e]) && text &&
		     *text && strcmp(text, pktstats_flowlat_ipfix_strerror(10)) != 0;
	}
	tap_ok(ok && pktstats_flowlat_ipfix_error_name(10) &&
		       !strcmp(pktstats_flowlat_ipfix_strerror(0), "no error"),
	       "IPFIX error names and texts for every error, something for an unknown one");

	static const char *const counters[] = {
		"monitored", "unmatched",   "table_full",   "evicted",  "evicted_in_breach",
		"events",    "events_lost", "records_lost", "not_ipv4", "no_stamp",
		"messages",  "templates",   "records_exported"};
	ok = PKTSTATS_FLOWLAT_COUNTERS == 13;
	for (int i = 0; ok && i < 13; i++)
		ok = !strcmp(pktstats_flowlat_counter_names[i], counters[i]);
	struct pktstats_flowlat_counters c = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
	uint64_t values[PKTSTATS_FLOWLAT_COUNTERS];
	pktstats_flowlat_counters_array(&c, values);
	for (int i = 0; ok && i < 13; i++)
		ok = values[i] == (uint64_t)i + 1;
	tap_ok(ok && values[2] == c.table_full && values[12] == c.records_exported,
	       "counter names in the registers' order; counters_array in the struct's order");

	struct pktstats_flowlat_config d;
	memset(&d, 0xff, sizeof d);
	pktstats_flowlat_config_defaults(&d);
	static const uint8_t zero[6];
	tap_ok(!d.monitor_enable && !d.export_enable && d.export_ports == 0 &&
		       d.idle_timeout_us == 1000000 && d.source_port == 4739 &&
		       d.destination_port == 4739 && d.enterprise_number == 32473 &&
		       d.template_interval_s == 10 && d.mtu == 1500 && d.flush_timeout_us == 1000 &&
		       d.source_ip == 0 && d.destination_ip == 0 && d.observation_domain == 0 &&
		       !memcmp(d.source_mac, zero, 6) && !memcmp(d.destination_mac, zero, 6),
	       "config_defaults: off, no ports, idle 1 s, UDP 4739 -> 4739, PEN 32473, template "
	       "10 s, MTU 1500, flush 1 ms, addresses 0");
}

/* ---------------------------------------------------------------------------------------- */
/* Registers on a plain file (mmap backend): addresses and bits without the hardware          */

static void test_registers_file(void)
{
	char path[] = "/tmp/test_flowlat.XXXXXX";
	int fd = mkstemp(path);
	uint32_t *space = MAP_FAILED;
	struct pktstats_dev *dev = NULL;
	if (fd < 0 || ftruncate(fd, PKTSTATS_REGISTER_SPACE) < 0 ||
	    (space = mmap(NULL, PKTSTATS_REGISTER_SPACE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			  0)) == MAP_FAILED) {
		tap_ok(false, "scratch register file: %s", strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return;
	}
	char device[64], error[PKTSTATS_ERROR_MAX];
	snprintf(device, sizeof device, "mmap:%s", path);
	int rc = pktstats_open(device, PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "open a register file");
	if (rc < 0)
		goto out;
#define REG(address) space[(address) / 4]
	struct pktstats_flowlat_rule rule = {.valid = true, .profile = 1};
	struct pktstats_flowlat_status status;
	struct pktstats_flowlat_counters counters;
	struct pktstats_flowlat_flow flow;
	struct pktstats_flowlat_key key = {0x0a000001, 0x0a000002, 17, 40000, 9};
	rc = pktstats_flowlat_rule_set(dev, 0, &rule);
	TAP_RC(rc, -ENODEV, pktstats_error(dev), "no flowlat block (type 0): rule_set -ENODEV");
	TAP_HAS(pktstats_error(dev), "no flowlat block", "and the detail says so");
	tap_ok(REG(0x61c0) == 0 && pktstats_flowlat_status_get(dev, &status) == -ENODEV &&
		       pktstats_flowlat_counters_get(dev, &counters) == -ENODEV &&
		       pktstats_flowlat_lookup(dev, &key, &flow) == -ENODEV &&
		       pktstats_flowlat_clear(dev) == -ENODEV &&
		       pktstats_flowlat_send_template(dev) == -ENODEV && REG(0x600c) == 0 &&
		       REG(0x6060) == 0,
	       "nothing written without the block; status, counters, lookup, clear, "
	       "send_template: -ENODEV");

	REG(0x6000) = 0x464c4154; /* "FLAT" */
	/* status: clearing, 64 events, 16 records; now_us */
	REG(0x6010) = 0x00104001;
	REG(0x6014) = 123456789;
	rc = pktstats_flowlat_status_get(dev, &status);
	tap_ok(rc == 0 && status.clearing && status.events_waiting == 64 &&
		       status.records_waiting == 16 && status.now_us == 123456789,
	       "status 0x00104001: clearing, 64 events (bits 14:8), 16 records (bits 20:16)");
	REG(0x6010) = 0x00003e00;
	rc = pktstats_flowlat_status_get(dev, &status);
	tap_ok(rc == 0 && !status.clearing && status.events_waiting == 62 &&
		       status.records_waiting == 0,
	       "status 0x00003e00: not clearing, 62 events, 0 records");

	/* a lookup that finds its flow: status done, found, breach, group 5 (0x57) */
	REG(0x6070) = 0x57;
	REG(0x6074) = (uint32_t)-250;
	REG(0x6078) = 70000;
	REG(0x607c) = 31;
	REG(0x6080) = 999;
	rc = pktstats_flowlat_lookup(dev, &key, &flow);
	tap_ok(rc == 0 && REG(0x6060) == 0x0a000001 && REG(0x6064) == 0x0a000002 &&
		       REG(0x6068) == (9u << 16 | 40000) && REG(0x606c) == 17 &&
		       REG(0x600c) == 0x2,
	       "lookup writes the key (src, dst, dport:sport, protocol) and command.lookup (bit 1)");
	tap_ok(rc == 0 && flow.found && flow.breach && flow.group == 5 &&
		       flow.last_residence_ns == -250 && flow.max_residence_ns == 70000 &&
		       flow.packets == 31 && flow.last_seen_us == 999 && flow.now_us == 123456789,
	       "lookup answer 0x57: found, breach, group 5; residences signed, packets, last "
	       "seen, now");
	REG(0x6070) = 0xf1;
	rc = pktstats_flowlat_lookup(dev, &key, &flow);
	tap_ok(rc == 0 && !flow.found && !flow.breach && flow.group == 15,
	       "lookup answer 0xf1: done, not found, group 15");
	REG(0x6070) = 0xfe; /* never done */
	rc = pktstats_flowlat_lookup(dev, &key, &flow);
	TAP_RC(rc, -ETIMEDOUT, pktstats_error(dev), "a lookup never done: -ETIMEDOUT");
	TAP_HAS(pktstats_error(dev), "1000", "after PKTSTATS_FLOWLAT_LOOKUP_TRIES (1000) reads");

	REG(0x600c) = 0;
	rc = pktstats_flowlat_clear(dev);
	uint32_t clear = REG(0x600c);
	int rc2 = pktstats_flowlat_send_template(dev);
	tap_ok(rc == 0 && rc2 == 0 && clear == 0x1 && REG(0x600c) == 0x4,
	       "clear writes command bit 0, send_template bit 2");

	/* counters: monitored at 0x6400 .. records_exported at 0x6460, 64 bits each */
	for (unsigned i = 0; i < 13; i++) {
		REG(0x6400 + 8 * i) = 100 + i;
		REG(0x6400 + 8 * i + 4) = i;
	}
	rc = pktstats_flowlat_counters_get(dev, &counters);
	uint64_t values[13];
	pktstats_flowlat_counters_array(&counters, values);
	bool ok = rc == 0;
	for (unsigned i = 0; ok && i < 13; i++)
		ok = values[i] == ((uint64_t)i << 32 | (100 + i));
	tap_ok(ok && counters.monitored == 100 && counters.records_exported == (UINT64_C(12) << 32 | 112),
	       "counters at 0x6400 + 8 i, 64 bits, in the struct's order");
	rc = pktstats_flowlat_counters_clear(dev);
	ok = rc == 0;
	for (unsigned i = 0; ok && i < 13; i++)
		ok = REG(0x6400 + 8 * i) == 0;
	tap_ok(ok, "counters_clear writes 0 to each counter's low word");
#undef REG
out:
	pktstats_close(dev);
	munmap(space, PKTSTATS_REGISTER_SPACE);
	close(fd);
	unlink(path);
}

/* ---------------------------------------------------------------------------------------- */
/* Against the simulator                                                                      */

static struct pktstats_dev *dev;

/* The block's writable words: what a refused setter must leave as it was. */
static const uint32_t rw_words[] = {0x6008, 0x6018, 0x6020, 0x6024, 0x6028, 0x602c, 0x6030,
				    0x6034, 0x6038, 0x603c, 0x6040, 0x6044, 0x6048, 0x604c,
				    0x6060, 0x6064, 0x6068, 0x606c};
#define N_RW (sizeof rw_words / sizeof rw_words[0])
#define N_SNAPSHOT (N_RW + 64 + 32) /* and 4 x 16 rule words, 4 x 8 profile words */

static bool snapshot(uint32_t out[N_SNAPSHOT])
{
	size_t n = 0;
	for (size_t i = 0; i < N_RW; i++)
		if (pktstats_read32(dev, rw_words[i], &out[n++]) < 0)
			return false;
	for (uint32_t a = 0x6100; a < 0x6200; a += 4)
		if (pktstats_read32(dev, a, &out[n++]) < 0)
			return false;
	for (uint32_t a = 0x6200; a < 0x6280; a += 4)
		if (pktstats_read32(dev, a, &out[n++]) < 0)
			return false;
	return true;
}

static uint32_t raw(uint32_t address)
{
	uint32_t v = 0xdeadbeef;
	if (pktstats_read32(dev, address, &v) < 0)
		tap_diag("read 0x%04x: %s", (unsigned)address, pktstats_error(dev));
	return v;
}

static bool same_rule(const struct pktstats_flowlat_rule *a, const struct pktstats_flowlat_rule *b)
{
	return a->valid == b->valid && a->source_ip == b->source_ip &&
	       a->source_length == b->source_length && a->destination_ip == b->destination_ip &&
	       a->destination_length == b->destination_length &&
	       a->protocol_any == b->protocol_any && a->protocol == b->protocol &&
	       a->source_port_any == b->source_port_any && a->source_port == b->source_port &&
	       a->destination_port_any == b->destination_port_any &&
	       a->destination_port == b->destination_port && a->egress_ports == b->egress_ports &&
	       a->profile == b->profile;
}

static bool same_config(const struct pktstats_flowlat_config *a,
			const struct pktstats_flowlat_config *b)
{
	return a->monitor_enable == b->monitor_enable && a->export_enable == b->export_enable &&
	       a->export_ports == b->export_ports && a->idle_timeout_us == b->idle_timeout_us &&
	       !memcmp(a->destination_mac, b->destination_mac, 6) &&
	       !memcmp(a->source_mac, b->source_mac, 6) && a->source_ip == b->source_ip &&
	       a->destination_ip == b->destination_ip && a->source_port == b->source_port &&
	       a->destination_port == b->destination_port &&
	       a->observation_domain == b->observation_domain &&
	       a->enterprise_number == b->enterprise_number &&
	       a->template_interval_s == b->template_interval_s && a->mtu == b->mtu &&
	       a->flush_timeout_us == b->flush_timeout_us;
}

static void test_sim_rules(void)
{
	struct pktstats_flowlat_rule got, zero = {0};
	bool fresh = true;
	for (unsigned i = 0; i < 16; i++)
		fresh = fresh && pktstats_flowlat_rule_get(dev, i, &got) == 0 && same_rule(&got, &zero);
	tap_ok(fresh, "after reset all 16 rules read as zero (invalid)");

	/* Every field non-default, different on each index; host bits kept (10.1.2.3/24). */
	const struct {
		unsigned index;
		struct pktstats_flowlat_rule rule;
		uint32_t ports, control; /* the raw words, from regmap/flowlat.toml's bits */
	} cases[] = {
		{0,
		 {.valid = true, .source_ip = 0x0a010203, .source_length = 24,
		  .destination_ip = 0xc0a80000, .destination_length = 16, .protocol = 6,
		  .source_port = 1234, .destination_port_any = true, .destination_port = 80,
		  .egress_ports = 0x5, .profile = 3},
		 /* sport 1234 [15:0], dport 80 [31:16] */
		 0x005004d2,
		 /* src 24 [5:0] | dst 16 [11:6] | proto 6 [19:12] | dport_any [22] | egress 5
		  * [27:24] | profile 3 [30:28] | valid [31] */
		 0xb5406418},
		{7,
		 {.valid = true, .source_ip = 0xac100001, .source_length = 32, .protocol_any = true,
		  .protocol = 17, .source_port_any = true, .destination_port = 4739,
		  .egress_ports = 0xf, .profile = 7},
		 0x12830000,
		 /* src 32 | proto 17 | proto_any [20] | sport_any [21] | egress f | profile 7 |
		  * valid */
		 0xff311020},
		{15,
		 {.valid = false, .source_ip = 0xffffffff, .source_length = 31,
		  .destination_ip = 0x0a000000, .destination_length = 8, .protocol = 255,
		  .source_port = 65535, .destination_port = 1, .egress_ports = 0x8, .profile = 1},
		 0x0001ffff,
		 /* src 31 | dst 8 | proto 255 | egress 8 | profile 1 */
		 0x180ff21f},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		unsigned i = cases[c].index;
		int rc = pktstats_flowlat_rule_set(dev, i, &cases[c].rule);
		TAP_RC(rc, 0, pktstats_error(dev), "rule_set %u", i);
		rc = pktstats_flowlat_rule_get(dev, i, &got);
		tap_ok(rc == 0 && same_rule(&got, &cases[c].rule),
		       "rule %u reads back every field as set", i);
		uint32_t src = raw(0x6100 + 4 * i), dst = raw(0x6140 + 4 * i),
			 ports = raw(0x6180 + 4 * i), control = raw(0x61c0 + 4 * i);
		if (!tap_ok(src == cases[c].rule.source_ip && dst == cases[c].rule.destination_ip &&
				    ports == cases[c].ports && control == cases[c].control,
			    "rule %u as raw words: src_ip 0x%08x, dst_ip 0x%08x, ports 0x%08x, "
			    "control 0x%08x", i, (unsigned)src, (unsigned)dst, (unsigned)ports,
			    (unsigned)control))
			tap_diag("expected ports 0x%08x control 0x%08x", (unsigned)cases[c].ports,
				 (unsigned)cases[c].control);
	}
	bool others = pktstats_flowlat_rule_get(dev, 1, &got) == 0 && same_rule(&got, &zero) &&
		      pktstats_flowlat_rule_get(dev, 14, &got) == 0 && same_rule(&got, &zero);
	tap_ok(others, "rules 1 and 14 untouched");
}

static void test_sim_profiles(void)
{
	struct pktstats_flowlat_profile got;
	const struct {
		unsigned index;
		struct pktstats_flowlat_profile p;
	} cases[] = {
		{0, {.stateful = false, .high_ns = 50000, .low_ns = -7, .min_interval_us = 100}},
		{3, {.stateful = true, .high_ns = 2000000, .low_ns = 1000,
		     .min_interval_us = 0xffffffff}},
		{7, {.stateful = true, .high_ns = -1, .low_ns = INT32_MIN, .min_interval_us = 1}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		unsigned i = cases[c].index;
		const struct pktstats_flowlat_profile *p = &cases[c].p;
		int rc = pktstats_flowlat_profile_set(dev, i, p);
		TAP_RC(rc, 0, pktstats_error(dev), "profile_set %u", i);
		rc = pktstats_flowlat_profile_get(dev, i, &got);
		tap_ok(rc == 0 && got.stateful == p->stateful && got.high_ns == p->high_ns &&
			       got.low_ns == p->low_ns && got.min_interval_us == p->min_interval_us,
		       "profile %u reads back (stateful %d, high %d, low %d, min interval %u)", i,
		       got.stateful, (int)got.high_ns, (int)got.low_ns,
		       (unsigned)got.min_interval_us);
		tap_ok(raw(0x6200 + 4 * i) == (uint32_t)p->high_ns &&
			       raw(0x6220 + 4 * i) == (uint32_t)p->low_ns &&
			       raw(0x6240 + 4 * i) == p->min_interval_us &&
			       raw(0x6260 + 4 * i) == (p->stateful ? 1u : 0u),
		       "profile %u as raw words (two's complement; stateful in bit 0)", i);
	}
	tap_ok(pktstats_flowlat_profile_get(dev, 1, &got) == 0 && !got.stateful &&
		       got.high_ns == 0 && got.low_ns == 0 && got.min_interval_us == 0,
	       "profile 1 untouched");
}

static void test_sim_config(void)
{
	struct pktstats_flowlat_config defaults, got, want;
	pktstats_flowlat_config_defaults(&defaults);
	int rc = pktstats_flowlat_config_get(dev, &got);
	TAP_RC(rc, 0, pktstats_error(dev), "config_get");
	tap_ok(same_config(&got, &defaults), "after reset the block has config_defaults' values");

	want = (struct pktstats_flowlat_config){
		.monitor_enable = true,
		.export_enable = true,
		.export_ports = 0x90,
		.idle_timeout_us = 123456,
		.destination_mac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55},
		.source_mac = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee},
		.source_ip = 0x0a000064,
		.destination_ip = 0x0a0000c8,
		.source_port = 50000,
		.destination_port = 4740,
		.observation_domain = 0xdeadbeef,
		.enterprise_number = 12345,
		.template_interval_s = 3600,
		.mtu = 9000,
		.flush_timeout_us = 250,
	};
	rc = pktstats_flowlat_config_set(dev, &want);
	TAP_RC(rc, 0, pktstats_error(dev), "config_set, every field non-default");
	rc = pktstats_flowlat_config_get(dev, &got);
	tap_ok(rc == 0 && same_config(&got, &want), "every field reads back as set");
	uint32_t control = raw(0x6008), ports = raw(0x6038);
	tap_ok(control == 0x9003 && raw(0x6018) == 123456 && raw(0x6020) == 0x22334455 &&
		       raw(0x6024) == 0x0211 && raw(0x6028) == 0xbbccddee && raw(0x602c) == 0x02aa &&
		       raw(0x6030) == 0x0a000064 && raw(0x6034) == 0x0a0000c8 &&
		       ports == 0x1284c350 && raw(0x603c) == 0xdeadbeef && raw(0x6040) == 12345 &&
		       raw(0x6044) == 3600 && raw(0x6048) == 9000 && raw(0x604c) == 250,
	       "as raw words: control 0x%04x (monitor [0], export [1], ports 0x90 [15:8]), MACs "
	       "first byte in 47:40, UDP ports 0x%08x (source [15:0], destination [31:16])",
	       (unsigned)control, (unsigned)ports);

	/* the edges: MTU 200, a template only on command, port 1 and 65535 */
	want.mtu = 200;
	want.template_interval_s = 0;
	want.source_port = 1;
	want.destination_port = 65535;
	want.monitor_enable = false;
	want.export_ports = 0x01;
	rc = pktstats_flowlat_config_set(dev, &want);
	int rc2 = pktstats_flowlat_config_get(dev, &got);
	tap_ok(rc == 0 && rc2 == 0 && same_config(&got, &want) && raw(0x6008) == 0x0102,
	       "MTU 200, template interval 0, UDP ports 1 and 65535, export only: accepted, read "
	       "back");
	rc = pktstats_flowlat_config_set(dev, &defaults);
	rc2 = pktstats_flowlat_config_get(dev, &got);
	tap_ok(rc == 0 && rc2 == 0 && same_config(&got, &defaults), "the defaults set back");
}

static void test_sim_invalid(void)
{
	uint32_t before[N_SNAPSHOT], after[N_SNAPSHOT];
	struct pktstats_flowlat_rule rule = {
		.valid = true, .source_ip = 0x01020304, .source_length = 8,
		.destination_ip = 0x05060708, .destination_length = 8, .protocol = 17,
		.source_port = 7, .destination_port = 8, .egress_ports = 0x3, .profile = 2};
	struct pktstats_flowlat_profile profile = {true, 10, 5, 3};
	struct pktstats_flowlat_config config;
	pktstats_flowlat_config_defaults(&config);
	/* every other field changed, so that a write before the check would show */
	config.monitor_enable = config.export_enable = true;
	config.export_ports = 0x0f;
	config.idle_timeout_us = 5;
	memcpy(config.destination_mac, "\x02\x01\x02\x03\x04\x05", 6);
	memcpy(config.source_mac, "\x02\x06\x07\x08\x09\x0a", 6);
	config.source_ip = config.destination_ip = 0x7f000001;
	config.source_port = config.destination_port = 999;
	config.observation_domain = 77;
	config.enterprise_number = 1;
	config.template_interval_s = 1;
	config.flush_timeout_us = 1;

	struct {
		const char *what;
		int kind; /* 0 rule, 1 profile, 2 config */
		unsigned index;
		struct pktstats_flowlat_rule rule;
		struct pktstats_flowlat_config config;
	} cases[] = {
		{"rule index 16", 0, 16, rule, config},
		{"rule source prefix length 33", 0, 1, rule, config},
		{"rule destination prefix length 33", 0, 1, rule, config},
		{"rule egress ports 0x10", 0, 1, rule, config},
		{"rule profile 8", 0, 1, rule, config},
		{"profile index 8", 1, 8, rule, config},
		{"config MTU 199", 2, 0, rule, config},
		{"config MTU 9001", 2, 0, rule, config},
		{"config UDP source port 0", 2, 0, rule, config},
		{"config UDP destination port 0", 2, 0, rule, config},
	};
	cases[1].rule.source_length = 33;
	cases[2].rule.destination_length = 33;
	cases[3].rule.egress_ports = 0x10;
	cases[4].rule.profile = 8;
	cases[6].config.mtu = 199;
	cases[7].config.mtu = 9001;
	cases[8].config.source_port = 0;
	cases[9].config.destination_port = 0;

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		if (!snapshot(before)) {
			tap_ok(false, "snapshot: %s", pktstats_error(dev));
			return;
		}
		int rc = cases[c].kind == 0 ? pktstats_flowlat_rule_set(dev, cases[c].index,
									   &cases[c].rule)
			 : cases[c].kind == 1 ? pktstats_flowlat_profile_set(dev, cases[c].index,
									      &profile)
					      : pktstats_flowlat_config_set(dev, &cases[c].config);
		const char *detail = rc == -EINVAL ? pktstats_error(dev) : strerror(-rc);
		bool same = snapshot(after) && !memcmp(before, after, sizeof before);
		tap_ok(rc == -EINVAL && same, "%s: -EINVAL, nothing written (%s)", cases[c].what,
		       detail);
	}
	struct pktstats_flowlat_rule r;
	struct pktstats_flowlat_profile p;
	tap_ok(pktstats_flowlat_rule_get(dev, 16, &r) == -EINVAL &&
		       pktstats_flowlat_profile_get(dev, 8, &p) == -EINVAL &&
		       pktstats_flowlat_rule_get(dev, 0, NULL) == -EINVAL &&
		       pktstats_flowlat_rule_set(dev, 0, NULL) == -EINVAL &&
		       pktstats_flowlat_profile_set(NULL, 0, &p) == -EINVAL &&
		       pktstats_flowlat_config_get(dev, NULL) == -EINVAL &&
		       pktstats_flowlat_config_set(NULL, &config) == -EINVAL &&
		       pktstats_flowlat_status_get(dev, NULL) == -EINVAL &&
		       pktstats_flowlat_counters_get(NULL, NULL) == -EINVAL &&
		       pktstats_flowlat_lookup(dev, NULL, NULL) == -EINVAL,
	       "get of rule 16, profile 8; NULL pointers: -EINVAL");
}

static bool counters(struct pktstats_flowlat_counters *c)
{
	int rc = pktstats_flowlat_counters_get(dev, c);
	if (rc < 0)
		tap_diag("counters_get: %s", pktstats_error(dev));
	return rc == 0;
}

/* Waits (up to 20 s of wall time) until cond holds on freshly read counters. */
#define WAIT_COUNTERS(c, cond)                                                               \
	do {                                                                                 \
		for (int tries_ = 0; tries_ < 400; tries_++) {                               \
			if (counters(&(c)) && (cond))                                        \
				break;                                                       \
			sleep_ms(50);                                                        \
		}                                                                            \
	} while (0)

static void test_sim_flow(void)
{
	struct pktstats_flowlat_rule none = {0};
	struct pktstats_flowlat_profile zero_profile = {0};
	struct pktstats_flowlat_config config;
	struct pktstats_flowlat_counters c;
	struct pktstats_flowlat_status status;
	struct pktstats_flowlat_flow flow;
	bool ok = true;
	for (unsigned i = 0; i < 16; i++)
		ok = ok && pktstats_flowlat_rule_set(dev, i, &none) == 0;
	for (unsigned i = 0; i < 8; i++)
		ok = ok && pktstats_flowlat_profile_set(dev, i, &zero_profile) == 0;
	pktstats_flowlat_config_defaults(&config);
	ok = ok && pktstats_flowlat_config_set(dev, &config) == 0 &&
	     pktstats_flowlat_counters_clear(dev) == 0 && pktstats_flowlat_clear(dev) == 0;
	tap_ok(ok, "every rule invalid, every profile zero, the defaults, counters and table "
	       "cleared");

	/* Port 0's generator sends 10.0.0.1:40000 -> 10.0.0.2:9 (UDP) to port 1 (flooded to the
	 * MAC ports 1..3 while port 1's address is unknown). Rule 5 watches MAC port 1 with any
	 * tuple; profile 3 is stateful with high 0 ns: the flow's first frame raises HIGH and it
	 * stays in breach (no residence is below INT32_MIN). */
	struct pktstats_flowlat_rule watch = {.valid = true, .protocol_any = true,
					      .source_port_any = true, .destination_port_any = true,
					      .egress_ports = 0x2, .profile = 3};
	struct pktstats_flowlat_profile breach = {.stateful = true, .high_ns = 0,
						  .low_ns = INT32_MIN};
	config.monitor_enable = true;
	ok = pktstats_flowlat_rule_set(dev, 5, &watch) == 0 &&
	     pktstats_flowlat_profile_set(dev, 3, &breach) == 0 &&
	     pktstats_flowlat_config_set(dev, &config) == 0;
	tap_ok(ok, "rule 5 (any flow leaving MAC port 1, profile 3), profile 3 stateful high 0, "
	       "monitor on");
	WAIT_COUNTERS(c, c.monitored >= 5 && c.unmatched >= 5);
	tap_ok(c.monitored >= 5 && c.unmatched >= 5 && c.events == 1 && c.events_lost == 0,
	       "frames monitored (%" PRIu64 "), the copies to ports 2 and 3 unmatched (%" PRIu64
	       "), one event (%" PRIu64 ")", c.monitored, c.unmatched, c.events);

	struct pktstats_flowlat_key key = {0x0a000001, 0x0a000002, 17, 40000, 9};
	int rc = pktstats_flowlat_lookup(dev, &key, &flow);
	TAP_RC(rc, 0, pktstats_error(dev), "lookup of 10.0.0.1:40000 -> 10.0.0.2:9 UDP");
	tap_ok(rc == 0 && flow.found && flow.breach && flow.group == 5 && flow.packets >= 5 &&
		       flow.last_residence_ns > 0 && flow.max_residence_ns >= flow.last_residence_ns &&
		       flow.now_us - flow.last_seen_us < 1000000,
	       "found, in breach, group 5, %u packets, residence last %d max %d ns, seen %u us "
	       "ago", (unsigned)flow.packets, (int)flow.last_residence_ns,
	       (int)flow.max_residence_ns, (unsigned)(flow.now_us - flow.last_seen_us));
	struct pktstats_flowlat_key absent = key;
	absent.source_port = 40001;
	rc = pktstats_flowlat_lookup(dev, &absent, &flow);
	tap_ok(rc == 0 && !flow.found, "lookup of a flow that is not there (source port 40001): "
	       "done within the tries, not found (rc %d)", rc);

	rc = pktstats_flowlat_status_get(dev, &status);
	struct pktstats_flowlat_status later;
	sleep_ms(20);
	int rc2 = pktstats_flowlat_status_get(dev, &later);
	tap_ok(rc == 0 && rc2 == 0 && !status.clearing && status.events_waiting == 1 &&
		       status.records_waiting <= 16 && later.now_us > status.now_us,
	       "status: not clearing, the HIGH event waiting for the exporter (%u), records %u, "
	       "now_us advancing (%u -> %u)", status.events_waiting, status.records_waiting,
	       (unsigned)status.now_us, (unsigned)later.now_us);

	/* monitor off: the counters stand still, then clear */
	config.monitor_enable = false;
	ok = pktstats_flowlat_config_set(dev, &config) == 0;
	rc = pktstats_flowlat_counters_clear(dev);
	struct pktstats_flowlat_counters z = {0};
	ok = ok && rc == 0 && counters(&c) && !memcmp(&c, &z, sizeof c);
	tap_ok(ok, "monitor off, counters_clear: all 13 counters read 0");

	/* export on (to no port): the template goes first, with the event waiting */
	config.export_enable = true;
	rc = pktstats_flowlat_config_set(dev, &config);
	WAIT_COUNTERS(c, c.records_exported >= 1);
	rc2 = pktstats_flowlat_status_get(dev, &status);
	tap_ok(rc == 0 && c.messages >= 1 && c.templates >= 1 && c.records_exported == 1 &&
		       rc2 == 0 && status.events_waiting == 0,
	       "export on: messages %" PRIu64 ", templates %" PRIu64 ", the event exported, "
	       "none waiting", c.messages, c.templates);
	uint64_t templates = c.templates;
	rc = pktstats_flowlat_send_template(dev);
	WAIT_COUNTERS(c, c.templates > templates);
	tap_ok(rc == 0 && c.templates == templates + 1,
	       "send_template: one more template sent (%" PRIu64 " -> %" PRIu64 ")", templates,
	       c.templates);

	/* the table's clear: 2048 clocks with status.clearing, then the flow is gone */
	rc = pktstats_flowlat_clear(dev);
	bool seen = false, done = false;
	for (int i = 0; i < 2000 && !done; i++) {
		if (pktstats_flowlat_status_get(dev, &status) < 0)
			break;
		seen = seen || status.clearing;
		done = seen && !status.clearing;
	}
	rc2 = pktstats_flowlat_lookup(dev, &key, &flow);
	tap_ok(rc == 0 && seen && done && rc2 == 0 && !flow.found,
	       "clear: status.clearing %s, then over; the flow is no longer found",
	       seen ? "seen" : "never seen");

	config.export_enable = false;
	pktstats_flowlat_config_set(dev, &config);
	pktstats_flowlat_rule_set(dev, 5, &none);
}

int main(int argc, char **argv)
{
	char sim[PATH_MAX], error[PKTSTATS_ERROR_MAX];
	(void)argc;
	signal(SIGPIPE, SIG_DFL);

	test_ipfix_valid();
	test_ipfix_errors();
	test_ntp();
	test_names();
	test_sequence();
	test_registers_file();

	if (simulator_setup(argv[0], sim, sizeof sim, "test_flowlat"))
		return tap_done();
	const char *traffic[] = {"--port", "0:gen=0.2,to=1", NULL};
	pid_t pid = start_simulator(sim, traffic);
	int rc = open_when_ready(pid, &dev, error, sizeof error);
	TAP_RC(rc, 0, error, "open the simulator");
	if (rc == 0) {
		test_sim_rules();
		test_sim_profiles();
		test_sim_config();
		test_sim_invalid();
		test_sim_flow();
		pktstats_close(dev);
	}
	stop_simulator(&pid, SIGKILL, NULL);
	simulator_cleanup();
	return tap_done();
}
