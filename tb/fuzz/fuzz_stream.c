/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: a capture, frame by frame, through pktstats_stream_feed_frame() (which runs
 * pktstats_parse_frame() and the payload decoder) or pktstats_stream_feed_payload(), with
 * events output on (or summary mode).
 *
 * Input:
 *   byte 0     bit 0 accept_v1; bits 3:1 v1_resolution; bits 5:4 UDP port filter (0 and 3:
 *              the default 27033, 1: any port, 2: 40001); bit 6 summary mode (events NULL);
 *              bit 7 records are payloads for feed_payload, their first byte naming the
 *              source (IP 10.0.0.<byte>, port <byte & 3>), instead of frames
 *   byte 1     bits 3:0 max_events, index in fuzz_max_events_table; bit 4, in summary mode
 *              with frames: pktstats_stream_feed_frame() with events NULL instead of
 *              pktstats_stream_feed_frame_summary()
 *   then       records: a 16-bit big-endian length, then that many bytes (fewer at the end)
 *
 * Each frame is also parsed and decoded on its own (pktstats_parse_frame, checked against a
 * reference parse, and the reference decoder of fuzz_common.h), and a model of the stream,
 * written from the documentation in decode.h (an explicit set of the sequence numbers seen
 * instead of the decoder's bit window), predicts the return value, the sequence status, lost
 * count, source index and every counter; any difference abort()s. In summary mode with frames,
 * the capture's struct pktstats_summary (pktstats_stream_feed_frame_summary) is compared after
 * every frame with the reference summary of fuzz_common.h, fed the payloads that decoded; a
 * frame that is not added (malformed, ignored) must leave it unchanged, byte for byte.
 * tb/fuzz/make_corpus.py seeds it with consecutive stat frames from simulator captures, so
 * that in-order runs, gaps and resets are all reachable.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEEN_MAX (PKTSTATS_STREAM_REORDER_WINDOW + 1)

/* The model of one source. */
struct model_source {
	uint32_t ip;
	uint16_t port;
	bool synced;
	uint32_t newest;           /* newest sequence number (expected - 1) */
	uint32_t seen[SEEN_MAX];   /* sequence numbers counted as received, within the window */
	unsigned n_seen;
	struct pktstats_stream_counters c;
};

struct model {
	uint16_t port;
	bool accept_v1;
	unsigned v1_res;
	uint64_t frames, ignored, untracked;
	struct pktstats_stream_counters total;
	unsigned n_sources;
	struct model_source src[PKTSTATS_STREAM_MAX_SOURCES];
	struct ref_summary *summary; /* the reference summary, when one is kept (else NULL) */
};

static bool seen_has(const struct model_source *s, uint32_t seq)
{
	for (unsigned i = 0; i < s->n_seen; i++)
		if (s->seen[i] == seq)
			return true;
	return false;
}

/* Drops what fell out of the window behind `newest`; adds seq. */
static void seen_add(struct model_source *s, uint32_t seq)
{
	unsigned k = 0;

	for (unsigned i = 0; i < s->n_seen; i++)
		if ((uint32_t)(s->newest - s->seen[i]) <= PKTSTATS_STREAM_REORDER_WINDOW &&
		    s->seen[i] != seq)
			s->seen[k++] = s->seen[i];
	FUZZ_CHECK(k < SEEN_MAX);
	s->seen[k++] = seq;
	s->n_seen = k;
}

/* A new run starting at seq: the numbers before it count as seen (not lost, not late). */
static void seen_restart(struct model_source *s, uint32_t seq)
{
	s->synced = true;
	s->newest = seq;
	s->n_seen = 0;
	for (uint32_t b = 0; b <= PKTSTATS_STREAM_REORDER_WINDOW; b++)
		s->seen[s->n_seen++] = seq - b;
}

static int model_find_source(struct model *m, uint32_t ip, uint16_t port)
{
	for (unsigned i = 0; i < m->n_sources; i++)
		if (m->src[i].ip == ip && m->src[i].port == port)
			return (int)i;
	if (m->n_sources == PKTSTATS_STREAM_MAX_SOURCES)
		return -1;
	memset(&m->src[m->n_sources], 0, sizeof(m->src[0]));
	m->src[m->n_sources].ip = ip;
	m->src[m->n_sources].port = port;
	return (int)m->n_sources++;
}

static void add(struct pktstats_stream_counters *c, struct pktstats_stream_counters *c2,
		const struct pktstats_stream_counters *d)
{
	for (int k = 0; k < 2; k++) {
		struct pktstats_stream_counters *x = k ? c2 : c;

		if (!x)
			continue;
		x->packets += d->packets;
		x->events += d->events;
		x->malformed += d->malformed;
		x->lost += d->lost;
		x->gaps += d->gaps;
		x->resets += d->resets;
		x->reordered += d->reordered;
		x->duplicates += d->duplicates;
		x->missed_flags += d->missed_flags;
	}
}

static void check_counters(const struct pktstats_stream_counters *a,
			   const struct pktstats_stream_counters *b)
{
	FUZZ_CHECK(a->packets == b->packets);
	FUZZ_CHECK(a->events == b->events);
	FUZZ_CHECK(a->malformed == b->malformed);
	FUZZ_CHECK(a->lost == b->lost);
	FUZZ_CHECK(a->gaps == b->gaps);
	FUZZ_CHECK(a->resets == b->resets);
	FUZZ_CHECK(a->reordered == b->reordered);
	FUZZ_CHECK(a->duplicates == b->duplicates);
	FUZZ_CHECK(a->missed_flags == b->missed_flags);
}

/* Sequence tracking as decode.h documents it; checks the stream's verdict. */
static void model_track(struct model *m, struct model_source *s, uint32_t seq,
			const struct pktstats_stream_result *res)
{
	struct pktstats_stream_counters d = {0};

	if (!s->synced) {
		seen_restart(s, seq);
		FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_FIRST);
		FUZZ_CHECK(res->expected == 0 && res->lost == 0);
		return;
	}
	const uint32_t expected = s->newest + 1, ahead = seq - expected, behind = expected - seq;

	FUZZ_CHECK(res->expected == expected);
	if (seq == expected) {
		FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_IN_ORDER && res->lost == 0);
		s->newest = seq;
		seen_add(s, seq);
	} else if (ahead < UINT32_C(0x80000000) &&
		   (seq != 0 || ahead <= PKTSTATS_STREAM_REORDER_WINDOW)) {
		FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_GAP && res->lost == ahead);
		s->newest = seq;
		seen_add(s, seq);
		d.lost = ahead;
		d.gaps = 1;
	} else if (seq != 0 && behind <= PKTSTATS_STREAM_REORDER_WINDOW) {
		FUZZ_CHECK(res->lost == 0);
		if (seen_has(s, seq)) {
			FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_DUPLICATE);
			d.duplicates = 1;
		} else {
			FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_REORDERED);
			seen_add(s, seq);
			d.reordered = 1;
			/* counted as lost when its gap was seen: no longer lost */
			if (s->c.lost > 0 && m->total.lost > 0) {
				s->c.lost--;
				m->total.lost--;
			}
		}
	} else {
		FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_RESET && res->lost == 0);
		seen_restart(s, seq);
		d.resets = 1;
	}
	add(&m->total, &s->c, &d);
}

/* A payload from src_ip:src_port that reached the decoder; r is what the stream returned. */
static void model_payload(struct model *m, uint32_t src_ip, uint16_t src_port,
			  const uint8_t *payload, size_t len, const struct pktstats_event *events,
			  size_t max_events, int r, const struct pktstats_stream_result *res)
{
	struct pktstats_stream_counters d = {0};
	struct pktstats_event *ref_events = alloc_events(len / 4 + 1);
	enum pktstats_decode_error ref_reason;
	struct pktstats_packet ref;
	int ref_r, i;

	ref_r = ref_decode(payload, len, m->accept_v1, m->v1_res, &ref, ref_events, &ref_reason);
	FUZZ_CHECK(res->reason == ref_reason);
	if (ref_r == -EBADMSG) {
		FUZZ_CHECK(r == -EBADMSG && ref_reason != PKTSTATS_DECODE_OK);
		FUZZ_CHECK(res->n_events == 0);
		check_same_header(&res->packet, &ref);
		d.malformed = 1;
	} else {
		const size_t expect_n = !events ? 0
				      : ref.n_events < max_events ? ref.n_events : max_events;

		FUZZ_CHECK(r == (events && ref.n_events > max_events ? -ENOSPC : 0));
		FUZZ_CHECK(res->n_events == expect_n);
		check_same_packet(&res->packet, &ref);
		check_packet(&res->packet, events, expect_n);
		for (size_t k = 0; k < expect_n; k++)
			FUZZ_CHECK(memcmp(&events[k], &ref_events[k], sizeof(events[k])) == 0);
		d.packets = 1;
		d.events = ref.n_events;
		if (m->summary)
			FUZZ_CHECK(ref_summary_add(payload, len, m->accept_v1, m->v1_res,
						   m->summary, NULL, NULL) == 0);
	}
	free(ref_events);

	i = model_find_source(m, src_ip, src_port);
	FUZZ_CHECK(res->source == i);
	if (ref.version != 0) {
		d.missed_flags = ref.missed;
		if (i >= 0) {
			model_track(m, &m->src[i], ref.sequence, res);
		} else {
			m->untracked++;
			FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_NONE);
		}
	} else {
		FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_NONE);
	}
	add(&m->total, i >= 0 ? &m->src[i].c : NULL, &d);
}

static void check_same_view(const struct pktstats_frame_view *a,
			    const struct pktstats_frame_view *b)
{
	FUZZ_CHECK(a->payload == b->payload && a->payload_len == b->payload_len);
	FUZZ_CHECK(!memcmp(a->dst_mac, b->dst_mac, 6) && !memcmp(a->src_mac, b->src_mac, 6));
	FUZZ_CHECK(a->vlan == b->vlan && a->vlan_tci == b->vlan_tci);
	FUZZ_CHECK(a->ip_header_len == b->ip_header_len && a->tos == b->tos && a->ttl == b->ttl);
	FUZZ_CHECK(a->ip_total_len == b->ip_total_len && a->ip_id == b->ip_id);
	FUZZ_CHECK(a->src_ip == b->src_ip && a->dst_ip == b->dst_ip);
	FUZZ_CHECK(a->src_port == b->src_port && a->dst_port == b->dst_port);
	FUZZ_CHECK(a->udp_len == b->udp_len && a->trailer_len == b->trailer_len);
	FUZZ_CHECK(a->reason == b->reason);
}

/* What pktstats_parse_frame() promises about a frame it accepted or refused. */
static void check_view(const uint8_t *frame, size_t len, int r,
		       const struct pktstats_frame_view *v)
{
	const size_t l2 = v->vlan ? 18 : 14;

	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK((r == 0) == (v->reason == PKTSTATS_DECODE_OK));
	FUZZ_CHECK(v->vlan || v->vlan_tci == 0);
	if (r != 0) {
		FUZZ_CHECK(v->payload == NULL && v->payload_len == 0);
		return;
	}
	FUZZ_CHECK(v->ip_header_len >= 20 && v->ip_header_len <= 60 && v->ip_header_len % 4 == 0);
	FUZZ_CHECK(v->udp_len >= 8 && v->payload_len == (size_t)v->udp_len - 8);
	FUZZ_CHECK(v->ip_total_len == v->ip_header_len + v->udp_len);
	FUZZ_CHECK(l2 + v->ip_total_len + v->trailer_len == len);
	FUZZ_CHECK(v->payload == frame + l2 + v->ip_header_len + 8);
	FUZZ_CHECK(frame[l2] >> 4 == 4 && frame[l2 + 9] == PKTSTATS_IP_PROTO_UDP);
	FUZZ_CHECK((((unsigned)frame[l2 + 6] << 8 | frame[l2 + 7]) & 0x3fff) == 0);
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Reference frame parse, in the order decode.h documents the reasons; checks the view.
 * Ethernet II [+ one 802.1Q tag] / IPv4 (IHL >= 5) / UDP, IP total length within the capture,
 * UDP length = IP total length - IHL * 4.
 */
static void ref_frame(const uint8_t *f, size_t len, const struct pktstats_frame_view *v)
{
	enum pktstats_decode_error why = PKTSTATS_DECODE_OK;
	size_t off = 14, ihl = 0, total = 0;
	const uint8_t *ip = NULL;
	bool vlan = false;

	if (len < 14) {
		why = PKTSTATS_DECODE_FRAME_TRUNCATED;
		goto out;
	}
	uint16_t type = rd16(f + 12);
	if (type == 0x8100) {
		if (len < 18) {
			why = PKTSTATS_DECODE_FRAME_TRUNCATED;
			goto out;
		}
		vlan = true;
		type = rd16(f + 16);
		off = 18;
	}
	if (type != 0x0800)
		why = PKTSTATS_DECODE_NOT_IPV4;
	else if (len < off + 20)
		why = PKTSTATS_DECODE_FRAME_TRUNCATED;
	else if (f[off] >> 4 != 4 || (f[off] & 15) < 5)
		why = PKTSTATS_DECODE_BAD_IP_HEADER;
	if (why != PKTSTATS_DECODE_OK)
		goto out;
	ip = f + off;
	ihl = (size_t)(ip[0] & 15) * 4;
	total = rd16(ip + 2);
	if (ip[9] != 17)
		why = PKTSTATS_DECODE_NOT_UDP;
	else if (rd16(ip + 6) & 0x3fff)
		why = PKTSTATS_DECODE_FRAGMENT;
	else if (len < off + ihl)
		why = PKTSTATS_DECODE_FRAME_TRUNCATED;
	else if (total < ihl + 8)
		why = PKTSTATS_DECODE_LENGTH_MISMATCH;
	else if (len < off + total)
		why = PKTSTATS_DECODE_FRAME_TRUNCATED;
	else if (rd16(ip + ihl + 4) != total - ihl)
		why = PKTSTATS_DECODE_LENGTH_MISMATCH;
out:
	FUZZ_CHECK(v->reason == why);
	FUZZ_CHECK(v->vlan == vlan && v->vlan_tci == (vlan ? rd16(f + 14) : 0));
	if (len >= 14)
		FUZZ_CHECK(!memcmp(v->dst_mac, f, 6) && !memcmp(v->src_mac, f + 6, 6));
	if (ip) { /* the IP header was parsed */
		FUZZ_CHECK(v->ip_header_len == ihl && v->ip_total_len == total);
		FUZZ_CHECK(v->tos == ip[1] && v->ttl == ip[8] && v->ip_id == rd16(ip + 4));
		FUZZ_CHECK(v->src_ip == ref_be32(ip + 12) && v->dst_ip == ref_be32(ip + 16));
	}
	/* the ports are read whenever the UDP header is captured (the port filter needs them
	 * even for a frame rejected on its lengths) */
	if (ip && why != PKTSTATS_DECODE_NOT_UDP && why != PKTSTATS_DECODE_FRAGMENT &&
	    len >= off + ihl + 8) {
		FUZZ_CHECK(v->src_port == rd16(ip + ihl) && v->dst_port == rd16(ip + ihl + 2));
		FUZZ_CHECK(v->udp_len == rd16(ip + ihl + 4));
	}
	if (why == PKTSTATS_DECODE_OK) {
		FUZZ_CHECK(v->payload == ip + ihl + 8 && v->payload_len == total - ihl - 8);
		FUZZ_CHECK(v->trailer_len == len - off - total);
	}
}

static void model_frame(struct model *m, const uint8_t *frame, size_t len,
			const struct pktstats_event *events, size_t max_events, int r,
			const struct pktstats_stream_result *res)
{
	struct pktstats_frame_view v;
	int pr = pktstats_parse_frame(frame, len, &v);

	check_view(frame, len, pr, &v);
	ref_frame(frame, len, &v);
	check_same_view(&res->frame, &v);
	if (pr != 0) {
		FUZZ_CHECK(res->reason == v.reason && res->source == -1);
		FUZZ_CHECK(res->seq_status == PKTSTATS_SEQ_NONE && res->n_events == 0);
		if (v.reason == PKTSTATS_DECODE_NOT_IPV4 || v.reason == PKTSTATS_DECODE_NOT_UDP ||
		    v.reason == PKTSTATS_DECODE_FRAGMENT ||
		    (m->port != 0 && v.dst_port != m->port)) {
			FUZZ_CHECK(r == -ENOMSG);
			m->ignored++;
		} else {
			FUZZ_CHECK(r == -EBADMSG);
			m->total.malformed++; /* no source */
		}
		return;
	}
	if (m->port != 0 && v.dst_port != m->port) {
		FUZZ_CHECK(r == -ENOMSG && res->reason == PKTSTATS_DECODE_OTHER_PORT);
		FUZZ_CHECK(res->source == -1 && res->n_events == 0);
		m->ignored++;
		return;
	}
	model_payload(m, v.src_ip, v.src_port, v.payload, v.payload_len, events, max_events, r,
		      res);
}

static void check_stream(const struct model *m, const struct pktstats_stream *st)
{
	struct pktstats_stream_counters sum = {0};

	FUZZ_CHECK(st->frames == m->frames && st->ignored == m->ignored);
	FUZZ_CHECK(st->untracked == m->untracked && st->n_sources == m->n_sources);
	check_counters(&st->total, &m->total);
	for (unsigned i = 0; i < m->n_sources; i++) {
		const struct pktstats_source *s = &st->sources[i];

		FUZZ_CHECK(s->ip == m->src[i].ip && s->port == m->src[i].port);
		FUZZ_CHECK(s->synced == m->src[i].synced);
		if (s->synced)
			FUZZ_CHECK(s->expected == m->src[i].newest + 1);
		check_counters(&s->counters, &m->src[i].c);
		add(&sum, NULL, &s->counters);
	}
	/* the sources' counters never exceed the totals (these also hold the malformed frames
	 * without a source and the untracked packets) */
	FUZZ_CHECK(sum.packets <= st->total.packets && sum.events <= st->total.events);
	FUZZ_CHECK(sum.malformed <= st->total.malformed);
	FUZZ_CHECK(sum.gaps == st->total.gaps && sum.resets == st->total.resets);
	FUZZ_CHECK(sum.reordered == st->total.reordered);
	FUZZ_CHECK(sum.duplicates == st->total.duplicates);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pktstats_stream stream; /* about 4 KiB: not on the stack */
	static struct model m;
	static struct pktstats_summary sum, before;
	static struct ref_summary ref_sum;
	struct pktstats_stream_options opt;
	struct pktstats_stream_result res;
	struct pktstats_event *events;
	size_t max_events, off = 2;
	bool summary, payloads, summary_api;

	if (size < 2)
		return 0;
	pktstats_stream_default_options(&opt);
	opt.decode.accept_v1 = data[0] & 1;
	opt.decode.v1_resolution = (data[0] >> 1) & 7;
	switch ((data[0] >> 4) & 3) {
	case 1: opt.udp_port = 0; break;
	case 2: opt.udp_port = 40001; break;
	default: break;
	}
	summary = data[0] & 0x40;
	payloads = data[0] & 0x80;
	max_events = fuzz_max_events_table[data[1] & 15];
	summary_api = summary && !payloads && !(data[1] & 0x10);
	FUZZ_CHECK(pktstats_stream_init(&stream, &opt) == 0);
	memset(&m, 0, sizeof(m));
	m.port = opt.udp_port;
	m.accept_v1 = opt.decode.accept_v1;
	m.v1_res = opt.decode.v1_resolution;
	memset(&sum, 0, sizeof(sum));
	memset(&ref_sum, 0, sizeof(ref_sum));
	m.summary = summary_api ? &ref_sum : NULL;
	events = summary ? NULL : alloc_events(max_events);

	while (off + 2 <= size) {
		size_t len = (size_t)data[off] << 8 | data[off + 1];
		const uint8_t *rec = data + off + 2;
		int r;

		off += 2;
		if (len > size - off)
			len = size - off;
		off += len;
		uint8_t *copy = fuzz_copy(rec, len);
		m.frames++;
		if (payloads) {
			const uint32_t ip = len ? 0x0a000000u | copy[0] : 0x0a000000u;
			const uint16_t port = len ? copy[0] & 3 : 0;
			const uint8_t *p = len ? copy + 1 : copy;
			const size_t plen = len ? len - 1 : 0;

			r = pktstats_stream_feed_payload(&stream, ip, port, p, plen, events,
							 max_events, &res);
			FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOSPC);
			model_payload(&m, ip, port, p, plen, events, max_events, r, &res);
		} else if (summary_api) {
			before = sum;
			r = pktstats_stream_feed_frame_summary(&stream, copy, len, &sum, &res);
			FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMSG);
			model_frame(&m, copy, len, NULL, 0, r, &res);
			/* added only when it returned 0; otherwise not a bit changed */
			if (r != 0)
				FUZZ_CHECK(memcmp(&sum, &before, sizeof(sum)) == 0);
			ref_summary_check(&sum, &ref_sum);
			FUZZ_CHECK(sum.packets == m.total.packets && sum.events == m.total.events);
		} else {
			r = pktstats_stream_feed_frame(&stream, copy, len, events, max_events, &res);
			FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMSG || r == -ENOSPC);
			model_frame(&m, copy, len, events, max_events, r, &res);
		}
		/* -EBADMSG always says why; a success never has a reason */
		FUZZ_CHECK((r == -EBADMSG) == (res.reason != PKTSTATS_DECODE_OK &&
					       r != -ENOMSG));
		check_stream(&m, &stream);
		free(copy);
	}
	if (summary_api)
		ref_summary_check(&sum, &ref_sum);
	/* the summary-only entry point refuses a NULL summary (and counts nothing) */
	FUZZ_CHECK(pktstats_stream_feed_frame_summary(&stream, data, size, NULL, &res) == -EINVAL);
	FUZZ_CHECK(stream.frames == m.frames);
	free(events);
	return 0;
}
