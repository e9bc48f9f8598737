/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_ingest: how fast pktstats-exporter turns stat packets into its queue figures, in
 * memory, without the capture: the part of the 1 Gb/s target (about 29 M events/s on one core,
 * issue 30) that is the exporter's own code. `make bench` runs it before the veth replay
 * (bench/bench_exporter.py), which adds libpcap and the kernel.
 *
 *   bench_ingest FILE.pcap [ROUNDS]
 *
 * The capture (gen_stat_pcap's) is read into memory once; then, side by side in each round,
 * the whole capture goes through
 *   decode     the library's stream decoder alone (pktstats_stream_feed_frame);
 *   pair       the decoder and the sojourn matcher (decode, then pktstats_sojourn_feed), what
 *              the exporter calls;
 *   ingest     the exporter's ingest_frame(): the above and every figure it keeps (events,
 *              bytes, the occupancy and delay histograms, maxima, peak window, microbursts).
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that a loaded machine moves
 * them less; the medians of the rounds are printed per event and as events per second, with
 * ingest's share spent outside the library.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pktstats/decode.h"
#include "pktstats/sojourn.h"
#include "stat_ingest.h"

#define ROUNDS_MAX 50

struct capture {
	uint8_t *bytes;
	size_t *offsets, *lengths, n, capacity, used;
};

static int load(const char *path, struct capture *c)
{
	char error[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, error);
	if (!p) {
		fprintf(stderr, "bench_ingest: %s\n", error);
		return -1;
	}
	struct pcap_pkthdr *header;
	const u_char *data;
	size_t bytes_capacity = 0;
	while (pcap_next_ex(p, &header, &data) == 1) {
		if (c->n == c->capacity) {
			c->capacity = c->capacity ? 2 * c->capacity : 4096;
			c->offsets = realloc(c->offsets, c->capacity * sizeof *c->offsets);
			c->lengths = realloc(c->lengths, c->capacity * sizeof *c->lengths);
		}
		while (c->used + header->caplen > bytes_capacity) {
			bytes_capacity = bytes_capacity ? 2 * bytes_capacity : 1 << 20;
			c->bytes = realloc(c->bytes, bytes_capacity);
		}
		if (!c->offsets || !c->lengths || !c->bytes) {
			fprintf(stderr, "bench_ingest: out of memory\n");
			return -1;
		}
		memcpy(c->bytes + c->used, data, header->caplen);
		c->offsets[c->n] = c->used;
		c->lengths[c->n++] = header->caplen;
		c->used += header->caplen;
	}
	pcap_close(p);
	return 0;
}

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, compare);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each mode over the whole capture: its CPU seconds; *events the events decoded */
static double run_decode(const struct capture *c, bool pair, uint64_t *events)
{
	static struct pktstats_event buffer[PKTSTATS_DECODE_MAX_EVENTS];
	static struct pktstats_sojourn sojourns[PKTSTATS_DECODE_MAX_EVENTS];
	struct pktstats_stream stream;
	struct pktstats_sojourn_matcher *matcher = NULL;
	pktstats_stream_init(&stream, NULL);
	if (pair && pktstats_sojourn_create(&matcher, NULL) < 0)
		return -1;
	double start = cpu_seconds();
	for (size_t i = 0; i < c->n; i++) {
		struct pktstats_stream_result result;
		int err = pktstats_stream_feed_frame(&stream, c->bytes + c->offsets[i], c->lengths[i],
						     buffer, PKTSTATS_DECODE_MAX_EVENTS, &result);
		if (pair && err != -ENOMSG)
			pktstats_sojourn_feed(matcher, &result, buffer, result.n_events, sojourns,
					      PKTSTATS_DECODE_MAX_EVENTS, NULL);
	}
	double seconds = cpu_seconds() - start;
	*events = stream.total.events;
	pktstats_sojourn_destroy(matcher);
	return seconds;
}

static double run_ingest(const struct capture *c, uint64_t *events)
{
	struct ingest_options o = {.udp_port = PKTSTATS_UDP_PORT, .burst_threshold_bytes = 8192,
				   .peak_window_ns = 60000000000};
	struct ingest *in;
	if (ingest_create(&in, &o) < 0)
		return -1;
	double start = cpu_seconds();
	for (size_t i = 0; i < c->n; i++)
		ingest_frame(in, c->bytes + c->offsets[i], c->lengths[i], (int64_t)i * 1000);
	double seconds = cpu_seconds() - start;
	*events = in->stream.total.events;
	ingest_destroy(in);
	return seconds;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_ingest FILE.pcap [ROUNDS]\n");
		return 2;
	}
	int rounds = argc == 3 ? atoi(argv[2]) : 5;
	if (rounds < 1 || rounds > ROUNDS_MAX) {
		fprintf(stderr, "bench_ingest: rounds '%s': 1..%d\n", argv[2], ROUNDS_MAX);
		return 2;
	}
	struct capture c = {0};
	if (load(argv[1], &c) < 0)
		return 1;
	double decode[ROUNDS_MAX], pair[ROUNDS_MAX], ingest[ROUNDS_MAX];
	uint64_t events = 0, e1 = 0, e2 = 0;
	for (int r = 0; r < rounds; r++) {
		decode[r] = run_decode(&c, false, &events);
		pair[r] = run_decode(&c, true, &e1);
		ingest[r] = run_ingest(&c, &e2);
		if (decode[r] < 0 || pair[r] < 0 || ingest[r] < 0 || e1 != events || e2 != events) {
			fprintf(stderr, "bench_ingest: a run failed (%" PRIu64 ", %" PRIu64 ", %" PRIu64
				" events)\n", events, e1, e2);
			return 1;
		}
	}
	double d = median(decode, rounds), p = median(pair, rounds), g = median(ingest, rounds);
	printf("%zu stat packets, %" PRIu64 " events in memory; medians of %d rounds, CPU time\n",
	       c.n, events, rounds);
	printf("  decode                     %6.1f ns/event  %7.1f M events/s\n", d * 1e9 / events,
	       events / d / 1e6);
	printf("  decode + pair              %6.1f ns/event  %7.1f M events/s\n", p * 1e9 / events,
	       events / p / 1e6);
	printf("  exporter ingest_frame()    %6.1f ns/event  %7.1f M events/s  (%.2f x the 1 Gb/s "
	       "stream's 29 M/s; %.0f%% of it outside the library)\n", g * 1e9 / events,
	       events / g / 1e6, events / g / 29e6, 100 * (g - p) / g);
	free(c.bytes);
	free(c.offsets);
	free(c.lengths);
	return 0;
}
