/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of pktstats-exporter's parts that need no device, network or thread:
 *
 *   - exposition.c: whole expositions written out here byte for byte, in text 0.0.4 and in
 *     OpenMetrics 1.0.0 (counter, gauge, histogram, info, label and HELP escaping, exact
 *     nanoseconds as seconds), and the Accept header's negotiation (Prometheus's own header,
 *     qualities, versions, malformed headers);
 *   - stat_ingest.c: stat packets built here bit by bit (an encoder of this file, after
 *     docs/packet-format.md) into the figures: events and bytes by type, the occupancy each
 *     frame found in its bucket, the largest occupancy, microburst episodes and their
 *     duration, the peak window sliding over host time, every delay in its bucket (edges
 *     included), malformed and missing packets counted;
 *   - config.c: good configurations read back field by field, the command line winning over
 *     the file, and bad lines refused with FILE:LINE and the word at fault.
 *
 * The expected values are worked out here from the input, never taken from the code under
 * test.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "exposition.h"
#include "stat_ingest.h"

#include "../../sw/driver/test/test_device_tap.h"

/* ---------------------------------------------------------------------------------------- */
/* Exposition */

static const struct expo_family frames = {"x_frames", EXPO_COUNTER, NULL,
					  "Frames \"seen\",\nback\\slash."};
static const struct expo_family level = {"x_level_bytes", EXPO_GAUGE, "bytes", "A gauge."};
static const struct expo_family wait = {"x_wait_seconds", EXPO_HISTOGRAM, "seconds", "Waits."};
static const struct expo_family identity = {"x_device", EXPO_INFO, NULL, "Identity."};

static void write_example(struct exposition *e)
{
	struct expo_labels l;
	static const char *const bounds[] = {"1e-06", "0.001"};
	static const uint64_t counts[] = {2, 3, 1};
	char sum[32];
	expo_family(e, &frames);
	expo_labels(&l, "switch", "s\"0\\\n", "queue", "3", NULL);
	expo_counter(e, &l, 18446744073709551615u);
	expo_family(e, &level);
	expo_gauge(e, NULL, -7);
	expo_family(e, &wait);
	expo_labels(&l, "switch", "a", NULL);
	expo_histogram(e, &l, bounds, counts, 2, expo_ns_text(1500000001, sum, sizeof sum));
	expo_family(e, &identity);
	expo_labels(&l, "version", "1.0", NULL);
	expo_info(e, &l);
	expo_finish(e);
}

static void test_exposition(void)
{
	static const char text[] =
		"# HELP x_frames_total Frames \"seen\",\\nback\\\\slash.\n"
		"# TYPE x_frames_total counter\n"
		"x_frames_total{switch=\"s\\\"0\\\\\\n\",queue=\"3\"} 18446744073709551615\n"
		"# HELP x_level_bytes A gauge.\n"
		"# TYPE x_level_bytes gauge\n"
		"x_level_bytes -7\n"
		"# HELP x_wait_seconds Waits.\n"
		"# TYPE x_wait_seconds histogram\n"
		"x_wait_seconds_bucket{switch=\"a\",le=\"1e-06\"} 2\n"
		"x_wait_seconds_bucket{switch=\"a\",le=\"0.001\"} 5\n"
		"x_wait_seconds_bucket{switch=\"a\",le=\"+Inf\"} 6\n"
		"x_wait_seconds_sum{switch=\"a\"} 1.500000001\n"
		"x_wait_seconds_count{switch=\"a\"} 6\n"
		"# HELP x_device_info Identity.\n"
		"# TYPE x_device_info gauge\n"
		"x_device_info{version=\"1.0\"} 1\n";
	static const char openmetrics[] =
		"# TYPE x_frames counter\n"
		"# HELP x_frames Frames \\\"seen\\\",\\nback\\\\slash.\n"
		"x_frames_total{switch=\"s\\\"0\\\\\\n\",queue=\"3\"} 18446744073709551615\n"
		"# TYPE x_level_bytes gauge\n"
		"# UNIT x_level_bytes bytes\n"
		"# HELP x_level_bytes A gauge.\n"
		"x_level_bytes -7\n"
		"# TYPE x_wait_seconds histogram\n"
		"# UNIT x_wait_seconds seconds\n"
		"# HELP x_wait_seconds Waits.\n"
		"x_wait_seconds_bucket{switch=\"a\",le=\"1e-06\"} 2\n"
		"x_wait_seconds_bucket{switch=\"a\",le=\"0.001\"} 5\n"
		"x_wait_seconds_bucket{switch=\"a\",le=\"+Inf\"} 6\n"
		"x_wait_seconds_sum{switch=\"a\"} 1.500000001\n"
		"x_wait_seconds_count{switch=\"a\"} 6\n"
		"# TYPE x_device info\n"
		"# HELP x_device Identity.\n"
		"x_device_info{version=\"1.0\"} 1\n"
		"# EOF\n";
	struct exposition e;
	expo_init(&e, EXPO_TEXT_0_0_4);
	write_example(&e);
	if (!tap_ok(e.text && !strcmp(e.text, text), "text 0.0.4: the exposition, byte for byte"))
		tap_diag("got:\n%s", e.text ? e.text : "(null)");
	expo_free(&e);
	expo_init(&e, EXPO_OPENMETRICS_1_0_0);
	write_example(&e);
	if (!tap_ok(e.text && !strcmp(e.text, openmetrics), "OpenMetrics 1.0.0: byte for byte"))
		tap_diag("got:\n%s", e.text ? e.text : "(null)");
	expo_free(&e);

	char buf[40];
	tap_ok(!strcmp(expo_ns_text(0, buf, sizeof buf), "0") &&
		       !strcmp(expo_ns_text(8, buf, sizeof buf), "0.000000008") &&
		       !strcmp(expo_ns_text(-2500000000, buf, sizeof buf), "-2.5") &&
		       !strcmp(expo_ns_text(INT64_MAX, buf, sizeof buf), "9223372036.854775807"),
	       "nanoseconds as seconds: 0, 8 ns, -2.5 s, the largest, exactly");
	char big[64];
	expo_sum beyond = (expo_sum)UINT64_MAX * 1000 + 123;
	tap_ok(!strcmp(expo_sum_text(beyond, big, sizeof big), "18446744073709551615123") &&
		       !strcmp(expo_sum_ns_text(beyond, buf, sizeof buf),
			       "18446744073709.551615123"),
	       "sums beyond 2^64 (a counter that must not wrap) as integers and as seconds, exactly");
	tap_ok(!strcmp(expo_content_type(EXPO_TEXT_0_0_4), "text/plain; version=0.0.4; charset=utf-8") &&
		       !strcmp(expo_content_type(EXPO_OPENMETRICS_1_0_0),
			       "application/openmetrics-text; version=1.0.0; charset=utf-8"),
	       "the two content types");

	/* labels longer than the buffer are cut whole, and marked */
	struct expo_labels l;
	char long_value[600];
	memset(long_value, 'v', sizeof long_value - 1);
	long_value[sizeof long_value - 1] = '\0';
	expo_labels(&l, "a", "1", "b", long_value, NULL);
	tap_ok(l.truncated && !strcmp(l.text, "a=\"1\""), "a label set too long: the pair that "
	       "does not fit is left out and the set marked truncated");
}

static void test_negotiation(void)
{
	static const struct {
		const char *accept;
		enum expo_format want;
	} cases[] = {
		{"application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		 "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		 EXPO_OPENMETRICS_1_0_0},
		{NULL, EXPO_TEXT_0_0_4},
		{"", EXPO_TEXT_0_0_4},
		{"*/*", EXPO_TEXT_0_0_4},
		{"text/plain", EXPO_TEXT_0_0_4},
		{"application/openmetrics-text", EXPO_OPENMETRICS_1_0_0},
		{"Application/OpenMetrics-Text; Version=1.0.0", EXPO_OPENMETRICS_1_0_0},
		{"application/openmetrics-text; version=0.0.1", EXPO_OPENMETRICS_1_0_0},
		{"application/openmetrics-text; version=2.0.0", EXPO_TEXT_0_0_4},
		{"application/openmetrics-text;q=0.2, text/plain;q=0.9", EXPO_TEXT_0_0_4},
		{"text/plain;q=0.2, application/openmetrics-text;q=0.9", EXPO_OPENMETRICS_1_0_0},
		{"application/openmetrics-text;q=0", EXPO_TEXT_0_0_4},
		{"application/openmetrics-text;q=1.5", EXPO_TEXT_0_0_4},
		{"application/openmetrics-text garbage", EXPO_TEXT_0_0_4},
		{"text/html, application/openmetrics-text ; q=0.8", EXPO_OPENMETRICS_1_0_0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum expo_format got = expo_negotiate(cases[i].accept);
		tap_ok(got == cases[i].want, "Accept '%s': %s", cases[i].accept ? cases[i].accept : "(none)",
		       cases[i].want == EXPO_OPENMETRICS_1_0_0 ? "OpenMetrics" : "text 0.0.4");
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Stat packets, built here */

struct packet_builder {
	uint8_t frame[2000];
	size_t slots;
	uint64_t tick; /* of the last event */
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Ethernet, IPv4 (checksum not checked by the decoder), UDP to 27033, the stat header with
 * resolution 0, and the first timestamp */
static void begin(struct packet_builder *b, uint32_t sequence, bool missed,
		  const uint32_t sizes[PKTSTATS_QUEUES], uint64_t tick)
{
	memset(b, 0, sizeof *b);
	uint8_t *f = b->frame;
	memset(f, 0xff, 6);
	f[6] = 2;
	f[12] = 0x08;
	f[14] = 0x45;
	f[23] = 17;
	put32(f + 26, 0x0a000001);
	put32(f + 30, 0x0a000009);
	f[34] = 0x69; /* 27033 */
	f[35] = 0x99;
	f[36] = 0x69;
	f[37] = 0x99;
	uint8_t *p = f + 42;
	p[0] = (uint8_t)((missed ? 0x80 : 0) | 2);
	p[1] = 3;
	put32(p + 2, sequence);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		put32(p + 6 + 4 * q, sizes[q]);
	put32(p + 38, (uint32_t)(tick >> 32) & 0x3fffffff);
	put32(p + 42, (uint32_t)tick);
	b->slots = 2;
	b->tick = tick;
}

/* A short event at absolute tick (at most 2^19 - 1 after the previous) */
static void event(struct packet_builder *b, unsigned type, unsigned queue, unsigned words,
		  uint64_t tick)
{
	uint32_t gap = (uint32_t)(tick - b->tick);
	put32(b->frame + 80 + 4 * b->slots, (uint32_t)type << 30 | queue << 27 | words << 19 | gap);
	b->slots++;
	b->tick = tick;
}

/* The lengths filled in; the frame's length */
static size_t end(struct packet_builder *b)
{
	size_t udp = 8 + 38 + 4 * b->slots, ip = 20 + udp;
	b->frame[16] = (uint8_t)(ip >> 8);
	b->frame[17] = (uint8_t)ip;
	b->frame[38] = (uint8_t)(udp >> 8);
	b->frame[39] = (uint8_t)udp;
	return 14 + ip;
}

enum { ARRIVAL = 1, DEPARTURE = 2, DROP = 3 };

/* The first bound a delay does not exceed, searched plainly */
static unsigned plain_bucket(uint64_t ns)
{
	unsigned i = 0;
	while (i < INGEST_DELAY_BUCKETS && ns > ingest_delay_bounds_ns[i])
		i++;
	return i;
}

static struct ingest *new_ingest(uint64_t burst_bytes, uint64_t window_ns)
{
	struct ingest_options o = {.udp_port = 27033, .burst_threshold_bytes = burst_bytes,
				   .peak_window_ns = window_ns};
	struct ingest *in = NULL;
	int err = ingest_create(&in, &o);
	if (err < 0) {
		tap_ok(false, "ingest_create: %s", strerror(-err));
		exit(1);
	}
	return in;
}

static void test_ingest_figures(void)
{
	struct ingest *in = new_ingest(1000, 60000000000);
	struct packet_builder b;
	uint32_t sizes[PKTSTATS_QUEUES] = {0};
	sizes[5] = 10; /* queue 5 holds 80 bytes before the capture */

	/* Packet 0 at tick 100 (800 ns): queue 3 fills to 150 words (1200 bytes, above the
	 * 1000-byte threshold) and drains; queue 5's old frame leaves */
	begin(&b, 0, false, sizes, 100);
	event(&b, ARRIVAL, 3, 100, 110);   /* found 0 bytes: le 0 */
	event(&b, ARRIVAL, 3, 50, 120);    /* found 800: le 1024; now 1200 > 1000: burst 1 */
	event(&b, DROP, 3, 200, 121);      /* found 1200: le 2048 */
	event(&b, DEPARTURE, 3, 100, 130); /* 400 bytes: burst 1 ends, 10 ticks = 80 ns */
	event(&b, DEPARTURE, 5, 10, 131);  /* queued before: untimed */
	event(&b, DEPARTURE, 3, 50, 140);  /* both timed: 130 - 110 and 140 - 120, 160 ns */
	size_t len = end(&b);
	ingest_frame(in, b.frame, len, 5000000000);

	/* Packet 1: one-tick and boundary delays on queue 2: 8, 16, 20 (not a tick multiple,
	 * but exact here) ... as ticks: 1, 2; and one delay past 10 ms */
	memset(sizes, 0, sizeof sizes);
	begin(&b, 1, false, sizes, 1000);
	event(&b, ARRIVAL, 2, 1, 1000);
	event(&b, DEPARTURE, 2, 1, 1001);  /* 8 ns: le 8e-09 */
	event(&b, ARRIVAL, 2, 1, 1002);
	event(&b, DEPARTURE, 2, 1, 1004);  /* 16 ns: le 2e-08 */
	event(&b, ARRIVAL, 2, 1, 1005);
	event(&b, DEPARTURE, 2, 1, 1005 + 125000); /* 1 ms exactly: le 0.001 */
	event(&b, ARRIVAL, 2, 1, 1005 + 125000);
	len = end(&b);
	ingest_frame(in, b.frame, len, 5000000000);

	/* Packet 2 a long time later (the last arrival of queue 2 leaves 10 ms + 8 ns after) */
	begin(&b, 2, false, sizes, 126005 + 1250001);
	sizes[2] = 1;
	begin(&b, 2, false, sizes, 126005 + 1250001);
	event(&b, DEPARTURE, 2, 1, 126005 + 1250001);
	len = end(&b);
	ingest_frame(in, b.frame, len, 5000000000);

	struct ingest_snapshot s;
	ingest_snapshot(in, 5000000000, &s);
	const struct ingest_queue *q3 = &s.queues[3], *q2 = &s.queues[2], *q5 = &s.queues[5];
	/* the table lookup of a delay's bucket against a plain search: around every bound and
	 * every power of two, and everything below 100 us */
	unsigned wrong = 0;
	for (uint64_t ns = 0; ns < 100000; ns++)
		wrong += ingest_delay_bucket(ns) != plain_bucket(ns);
	for (unsigned i = 0; i < INGEST_DELAY_BUCKETS; i++)
		for (uint64_t ns = ingest_delay_bounds_ns[i] - 1; ns <= ingest_delay_bounds_ns[i] + 1; ns++)
			wrong += ingest_delay_bucket(ns) != plain_bucket(ns);
	for (unsigned k = 1; k < 64; k++)
		for (uint64_t ns = (UINT64_C(1) << k) - 1; ns <= (UINT64_C(1) << k) + 1; ns++)
			wrong += ingest_delay_bucket(ns) != plain_bucket(ns);
	wrong += ingest_delay_bucket(UINT64_MAX) != INGEST_DELAY_BUCKETS;
	tap_ok(wrong == 0, "a delay's bucket is the first bound it does not exceed, around every "
	       "bound and power of two (%u wrong)", wrong);
	tap_ok(q3->events[ARRIVAL] == 2 && q3->events[DEPARTURE] == 2 && q3->events[DROP] == 1 &&
		       q3->words[ARRIVAL] == 150 && q3->words[DEPARTURE] == 150 &&
		       q3->words[DROP] == 200,
	       "queue 3: events and words by type");
	/* le index: 0 -> 0, 800 -> 1024 (index 5), 1200 -> 2048 (index 6) */
	tap_ok(q3->occupancy_buckets[0] == 1 && q3->occupancy_buckets[5] == 1 &&
		       q3->occupancy_buckets[6] == 1 && q3->occupancy_sum_bytes == 2000,
	       "queue 3: the occupancy each frame found: 0, 800 and 1200 bytes in le 0, 1024, "
	       "2048; sum 2000");
	tap_ok(q3->max_words == 150, "queue 3: largest occupancy 150 words (%" PRId64 ")",
	       q3->max_words);
	tap_ok(q3->bursts == 1 && q3->burst_ns == 80 && !q3->above,
	       "queue 3: one microburst above 1000 bytes, 80 ns long, over (%" PRIu64 ", %" PRIu64
	       " ns)", q3->bursts, (uint64_t)q3->burst_ns);
	tap_ok(q3->delay_buckets[4] == 2 && q3->delay_sum_ns == 320,
	       "queue 3: two frames timed, 160 ns each, in le 2e-07; sum 320 ns");
	tap_ok(q5->sojourn.queued_before == 1 && q5->events[DEPARTURE] == 1 &&
		       q5->max_words == 10,
	       "queue 5: its frame from before the capture untimed (queued_before), its "
	       "snapshot of 10 words the largest");
	tap_ok(q2->delay_buckets[0] == 1 && q2->delay_buckets[1] == 1 &&
		       q2->delay_buckets[15] == 1 && q2->delay_buckets[INGEST_DELAY_BUCKETS] == 1,
	       "queue 2: 8 ns in le 8e-09, 16 ns in le 2e-08, 1 ms in le 0.001, 10 ms + 8 ns "
	       "in +Inf");
	tap_ok(ingest_delay_bucket(0) == 0 && ingest_delay_bucket(8) == 0 &&
		       ingest_delay_bucket(9) == 1 && ingest_delay_bucket(20) == 1 &&
		       ingest_delay_bucket(10000000) == INGEST_DELAY_BUCKETS - 1 &&
		       ingest_delay_bucket(10000001) == INGEST_DELAY_BUCKETS,
	       "delay bucket edges: a bound belongs to its bucket (le)");
	tap_ok(s.total.packets == 3 && s.total.events == 14 && s.missing == 0,
	       "3 packets, 14 events, none missing");
	ingest_destroy(in);
}

/* The largest occupancy is the largest a queue held at a clock's edge: an arrival and a
 * departure of one clock (written arrival first) pass through an occupancy the queue never
 * held, which neither the largest occupancy nor the peak window counts */
static void test_ingest_clock_edges(void)
{
	struct ingest *in = new_ingest(1000000, 60000000000);
	struct packet_builder b;
	uint32_t sizes[PKTSTATS_QUEUES] = {0};
	begin(&b, 0, false, sizes, 10);
	event(&b, ARRIVAL, 4, 100, 10);   /* 100, held from tick 10 to 20 */
	event(&b, ARRIVAL, 4, 30, 20);    /* 130 between the events of clock 20 ... */
	event(&b, DEPARTURE, 4, 100, 20); /* ... 30 at its edge */
	event(&b, ARRIVAL, 6, 50, 30);    /* 50 */
	event(&b, ARRIVAL, 6, 60, 31);    /* 110 */
	event(&b, DROP, 6, 200, 31);
	event(&b, ARRIVAL, 6, 20, 32);    /* 130, held a clock: the departure is the next one's */
	event(&b, DEPARTURE, 6, 50, 33);  /* 80 */
	event(&b, ARRIVAL, 5, 40, 35);    /* 40 */
	event(&b, ARRIVAL, 5, 25, 36);    /* 65, held: another queue's event comes before */
	event(&b, ARRIVAL, 2, 5, 36);     /* the departure, so the two are of two clocks of */
	event(&b, DEPARTURE, 5, 40, 36);  /* one coarser tick (a clock's are by queue): 25 */
	event(&b, ARRIVAL, 7, 20, 40);    /* the packet's last event: 20 (a departure in the */
	ingest_frame(in, b.frame, end(&b), 5000000000); /* same tick would be the next's) */
	struct ingest_snapshot s;
	ingest_snapshot(in, 5000000000, &s);
	tap_ok(s.queues[4].max_words == 100 && s.peak_words[4] == 100,
	       "an arrival and a departure in one clock: the largest occupancy is the edge's, 100 "
	       "words, not the 130 between them (%" PRId64 ", peak %" PRId64 ")",
	       s.queues[4].max_words, s.peak_words[4]);
	tap_ok(s.queues[6].max_words == 130 && s.queues[5].max_words == 65 &&
		       s.queues[7].max_words == 20 && s.peak_words[7] == 20,
	       "an arrival followed by a departure of a later tick, or of the same tick after "
	       "another queue's event, or last in its packet, counts (%" PRId64 ", %" PRId64
	       ", %" PRId64 ")", s.queues[6].max_words, s.queues[5].max_words,
	       s.queues[7].max_words);
	ingest_destroy(in);
}

static void test_ingest_health_and_peak(void)
{
	struct ingest *in = new_ingest(1000, 60000000000); /* slots of 1 s */
	struct packet_builder b;
	uint32_t sizes[PKTSTATS_QUEUES] = {0};
	const int64_t s = 1000000000;
	/* second 100: queue 1 reaches 40 words; second 130: 20 words; second 170: 5 words */
	begin(&b, 0, false, sizes, 1);
	event(&b, ARRIVAL, 1, 40, 2);
	event(&b, DEPARTURE, 1, 40, 3);
	ingest_frame(in, b.frame, end(&b), 100 * s);
	begin(&b, 1, false, sizes, 10);
	event(&b, ARRIVAL, 1, 20, 11);
	event(&b, DEPARTURE, 1, 20, 12);
	ingest_frame(in, b.frame, end(&b), 130 * s);
	struct ingest_snapshot snap;
	ingest_snapshot(in, 130 * s, &snap);
	tap_ok(snap.peak_words[1] == 40, "peak window: 40 words, 30 s after it (%" PRId64 ")",
	       snap.peak_words[1]);
	ingest_snapshot(in, 160 * s, &snap);
	tap_ok(snap.peak_words[1] == 20, "60 s on, the 40 left the window, the 20 is in it "
	       "(%" PRId64 ")", snap.peak_words[1]);
	ingest_snapshot(in, 191 * s, &snap);
	tap_ok(snap.peak_words[1] == 0 && snap.queues[1].max_words == 40,
	       "61 s after the 20: nothing in the window; the largest since start still 40");
	ingest_snapshot(in, 130 * s, &snap);
	tap_ok(snap.peak_words[1] == 40, "a second reader at the earlier time sees what the "
	       "first did: reading resets nothing");

	/* a gap of 3 packets, an M flag, a malformed packet, a non-stat frame */
	begin(&b, 5, true, sizes, 20);
	event(&b, ARRIVAL, 1, 1, 21);
	ingest_frame(in, b.frame, end(&b), 131 * s);
	begin(&b, 6, false, sizes, 30);
	size_t len = end(&b); /* a timestamp alone: no events */
	ingest_frame(in, b.frame, len, 131 * s);
	ingest_frame(in, b.frame, len - 2, 131 * s); /* captured short of its IP length */
	b.frame[23] = 6; /* TCP */
	ingest_frame(in, b.frame, len, 131 * s);
	ingest_snapshot(in, 131 * s, &snap);
	tap_ok(snap.missing == 3 && snap.total.gaps == 1 && snap.total.missed_flags == 1,
	       "sequence 1 then 5: 3 missing in one gap; one M flag");
	tap_ok(snap.malformed[PKTSTATS_DECODE_NO_EVENTS] == 1 &&
		       snap.malformed[PKTSTATS_DECODE_FRAME_TRUNCATED] == 1 && snap.ignored == 1 &&
		       snap.frames == 6,
	       "a packet without events and a frame cut short malformed by reason, a TCP frame "
	       "ignored, 6 frames");
	ingest_destroy(in);
}

/* ---------------------------------------------------------------------------------------- */
/* Configuration */

static int parse(struct exporter_config *c, const char *text, int argc, char **argv,
		 char *error, size_t size)
{
	const char *path = NULL;
	exporter_config_defaults(c);
	int err = exporter_config_parse_args(c, argc, argv, &path, error, size);
	if (err == 0 && text)
		err = exporter_config_parse_text(c, text, strlen(text), "x.conf", error, size);
	if (err == 0)
		err = exporter_config_check(c, error, size);
	return err;
}

static void test_config(void)
{
	static struct exporter_config c;
	char error[1024] = "";
	const char *good =
		"# a site\n"
		"listen 127.0.0.1:9999\n"
		"switch s0,device=sim:/tmp/s0.sock,stat-interface=tap0,stat-source=10.0.0.1,"
		"microburst-threshold=4096,ipfix-domain=7\n"
		"  switch s1,device=pci:0000:03:00.0   # a board\n"
		"dm-two-way s0,port=1,interface=cpu1,peer=02:00:00:00:01:02,interval=250ms,vlan=5\n"
		"dm-one-way s1,port=2,interface=cpu2\n"
		"headroom s0,port=1,interface=cpu1b,rate=1,pfc-response=1000,buffer=32768,interval=1.5h\n"
		"peak-window 10s\n"
		"ipfix-listen 0.0.0.0:4739\n";
	int err = parse(&c, good, 0, NULL, error, sizeof error);
	TAP_RC(err, 0, error, "a good configuration is taken");
	tap_ok(!strcmp(c.listen_host, "127.0.0.1") && c.listen_port == 9999 && c.n_switches == 2 &&
		       !strcmp(c.switches[0].stat_interface, "tap0") &&
		       c.switches[0].stat_source == 0x0a000001 && c.switches[0].burst_bytes == 4096 &&
		       c.switches[0].ipfix_domain == 7 && c.switches[1].burst_bytes == UINT64_MAX &&
		       !strcmp(c.switches[1].device, "pci:0000:03:00.0"),
	       "listen, both switches and their keys read back");
	tap_ok(c.n_dm == 1 && c.dm[0].port == 1 && c.dm[0].peer[5] == 2 &&
		       c.dm[0].interval_ns == 250000000 && c.dm[0].tagged && c.dm[0].vid == 5 &&
		       c.n_one_way == 1 && c.n_headroom == 1 && c.headroom[0].rate_mbps == 1000 &&
		       c.headroom[0].internal_bits == 1000 && c.headroom[0].buffer_bytes == 32768 &&
		       c.headroom[0].interval_ns == 5400000000000 &&
		       c.peak_window_ns == 10000000000 && c.ipfix_listen_port == 4739,
	       "the sessions and the single keywords read back (1000 ns at 1 Gb/s: 1000 bits; 1.5h)");

	char *args[] = {"listen", ":8000", "switch", "s9,device=sim:/x"};
	err = parse(&c, good, 4, args, error, sizeof error);
	TAP_RC(err, 0, error, "with a command line too");
	tap_ok(c.listen_port == 8000 && !c.listen_host[0] && c.n_switches == 3 &&
		       !strcmp(c.switches[0].name, "s9"),
	       "the command line's listen wins; its switch adds to the file's");

	static const struct {
		const char *text, *want;
	} bad[] = {
		{"listen 1.2.3.4\n", "x.conf:1: listen '1.2.3.4': not ADDRESS:PORT"},
		{"\n\nlisten :0\n", "x.conf:3: listen ':0': 0 is below 1"},
		{"listen :1\nlisten :2\n", "x.conf:2: 'listen' given twice"},
		{"lisen :1\n", "x.conf:1: unknown keyword 'lisen'"},
		{"listen\n", "x.conf:1: 'listen' needs a value"},
		{"listen :1 :2\n", "x.conf:1: 'listen' takes one value (':2' is one too many)"},
		{"switch s0\n", "x.conf:1: switch 's0': needs device=DEVICE or stat-interface=IFACE"},
		{"switch s/0,device=x\n", "x.conf:1: switch 's/0,device=x': a name has letters"},
		{"switch s0,device=x,colour=red\n", "x.conf:1: switch 's0,device=x,colour=red': "
		 "unknown key 'colour' (device, stat-interface"},
		{"switch s0,device=x\nswitch s0,device=y\n", "x.conf:2: switch 's0,device=y': a "
		 "switch of that name is there already"},
		{"switch s0,device=x,stat-source=10.0.0\n", "x.conf:1: switch "
		 "'s0,device=x,stat-source=10.0.0': stat-source '10.0.0'"},
		{"dm-two-way s0,port=1,interface=c,peer=02:00:00:00:00:01\n",
		 "x.conf:1: dm-two-way: no switch named 's0'"},
		{"switch s0,device=x\n\nheadroom s0,port=1,interface=a,rate=100\n"
		 "headroom s0,port=1,interface=b,rate=100\n",
		 "x.conf:4: headroom: switch s0 port 1 is measured twice"},
		{"switch s0,device=x,ipfix-domain=3\nswitch s1,device=y,ipfix-domain=3\n",
		 "x.conf:2: switch 's1,device=y,ipfix-domain=3': ipfix-domain: another switch's"},
		{"switch s0,device=x\ndm-two-way s0,port=4,interface=c,peer=02:00:00:00:00:01\n",
		 "x.conf:2: dm-two-way 's0,port=4,interface=c,peer=02:00:00:00:00:01': port '4': 4 is "
		 "above 3"},
		{"switch s0,device=x\ndm-two-way s0,port=1,interface=c\n", "x.conf:2: dm-two-way "
		 "'s0,port=1,interface=c': needs peer=MAC"},
		{"switch s0,device=x\nheadroom s0,port=1,interface=c,rate=25\n",
		 "x.conf:2: headroom 's0,port=1,interface=c,rate=25': no default internal delay"},
		{"peak-window 10\n", "x.conf:1: peak-window '10': a duration needs a unit"},
		{"peak-window 100ms\n", "x.conf:1: peak-window '100ms': not between 1 s and"},
		{"peak-window 25h\n", "x.conf:1: peak-window '25h': not between 1 s and"},
		{"peak-window 5minutes\n", "x.conf:1: peak-window '5minutes': unknown unit"},
		{"config other.conf\n", "x.conf:1: a config file cannot name another"},
		{"listen :1\0garbage\n", "x.conf:1: a NUL byte in the line"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		error[0] = '\0';
		exporter_config_defaults(&c);
		size_t len = strlen(bad[i].text);
		if (strstr(bad[i].want, "NUL"))
			len = sizeof "listen :1\0garbage\n" - 1;
		err = exporter_config_parse_text(&c, bad[i].text, len, "x.conf", error, sizeof error);
		if (err == 0)
			err = exporter_config_check(&c, error, sizeof error);
		bool ok = err == -EINVAL && !strncmp(error, bad[i].want, strlen(bad[i].want));
		if (!tap_ok(ok, "refused: %s", bad[i].want))
			tap_diag("got %d: %s", err, error);
	}
	char *bad_args[] = {"listen", ":1", "nonsense"};
	err = parse(&c, NULL, 3, bad_args, error, sizeof error);
	tap_ok(err == -EINVAL && strstr(error, "argument 'nonsense': unknown keyword 'nonsense'"),
	       "a bad command line names the word: %s", error);
	char *file_args[] = {"config", "x.conf", "listen", ":1"};
	err = parse(&c, "listen :2\n", 4, file_args, error, sizeof error);
	tap_ok(err == 0 && c.listen_port == 1, "listen on the command line and in the file: the "
	       "command line's, no error");
}

int main(void)
{
	test_exposition();
	test_negotiation();
	test_ingest_figures();
	test_ingest_clock_edges();
	test_ingest_health_and_peak();
	test_config();
	return tap_done();
}
