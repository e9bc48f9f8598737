/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_decode_lib: the stream decoder in summary mode on a pcap, for bench/bench_decode.py:
 * libpcap reads the frames (as the pktstats CLI does, through a FILE with a 1 MiB buffer) and
 * pktstats_stream_feed_frame() decodes them with events = NULL (every slot validated, no
 * per-event output). The library's own figures, beside `pktstats decode --summary`.
 *
 *   bench_decode_lib [--read-only | --in-memory] [--per-queue | --sojourn | --sojourn-events]
 *                    FILE.pcap
 *
 * --read-only: libpcap reads the frames and nothing decodes them, to split the time between
 * reading and decoding.
 * --in-memory: every frame is read into memory first; decode_seconds is then the stream
 * decoder's time alone.
 * --per-queue: pktstats_stream_feed_frame_summary(): summary mode adding every packet to a
 * struct pktstats_summary (per-queue events, maximum and time-weighted mean occupancy), what
 * `pktstats decode --summary` runs on.
 * --sojourn: pktstats_sojourn_feed_frame(), the stream decoder and the sojourn matcher
 * (pktstats/sojourn.h) in one pass, what a program timing frames would call: every sojourn
 * written to an array, every count kept.
 * --sojourn-events: the same through an event array: pktstats_stream_feed_frame(), then
 * pktstats_sojourn_feed().
 * Both print a second line, "timed T counted C queued_before B unsynchronised U pending P":
 * T the sojourns written, then the matcher's counts (C = T).
 *
 * Prints one line: "frames F packets P events E malformed M lost L decode_seconds S
 * decode_cpu_seconds C" (S: wall time of the read-and-decode loop alone, after opening the
 * file; C: this thread's CPU time in it). Exit 0, 2 on a bad file.
 */
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

static double clock_seconds(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

/* This thread's CPU time: what one core spent, whatever else the machine runs. */
static double cpu_now(void)
{
	return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

static struct pktstats_sojourn_matcher *matcher; /* --sojourn, --sojourn-events */
static int fused;                                 /* --sojourn */
static struct pktstats_event events[PKTSTATS_DECODE_MAX_EVENTS];
static struct pktstats_sojourn sojourns[PKTSTATS_DECODE_MAX_EVENTS];
static uint64_t timed;

/* One frame in summary mode, added to `summary` when it is not NULL; with the matcher, its
 * events decoded and matched. */
static void decode(struct pktstats_stream *stream, const uint8_t *frame, size_t len,
		   struct pktstats_summary *summary, struct pktstats_stream_result *result)
{
	if (matcher && fused) {
		size_t n = 0;
		pktstats_sojourn_feed_frame(matcher, stream, frame, len, result, sojourns,
					    PKTSTATS_DECODE_MAX_EVENTS, &n);
		timed += n;
	} else if (matcher) {
		size_t n = 0;
		if (pktstats_stream_feed_frame(stream, frame, len, events, PKTSTATS_DECODE_MAX_EVENTS,
					       result) != -ENOMSG)
			pktstats_sojourn_feed(matcher, result, events, result->n_events, sojourns,
					      PKTSTATS_DECODE_MAX_EVENTS, &n);
		timed += n;
	} else if (summary) {
		pktstats_stream_feed_frame_summary(stream, frame, len, summary, result);
	} else {
		pktstats_stream_feed_frame(stream, frame, len, NULL, 0, result);
	}
}

int main(int argc, char **argv)
{
	char error[PCAP_ERRBUF_SIZE];
	struct pktstats_stream stream;
	struct pktstats_stream_result result;
	struct pcap_pkthdr *header;
	const u_char *data;
	struct pktstats_summary summary = {0};
	int r, read_only = 0, in_memory = 0, per_queue = 0, sojourn = 0, i;
	const char *path = argv[argc - 1];
	uint8_t *buffer = NULL;     /* --in-memory: the frames back to back */
	size_t *lengths = NULL, n_frames = 0, used = 0, cap_frames = 0, cap_bytes = 0;

	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--read-only"))
			read_only = 1;
		else if (!strcmp(argv[i], "--in-memory"))
			in_memory = 1;
		else if (!strcmp(argv[i], "--per-queue"))
			per_queue = 1;
		else if (!strcmp(argv[i], "--sojourn"))
			sojourn = fused = 1;
		else if (!strcmp(argv[i], "--sojourn-events"))
			sojourn = 1;
		else
			break;
	}
	if (argc < 2 || i != argc - 1 || read_only + in_memory > 1 || per_queue + sojourn > 1) {
		fprintf(stderr, "usage: bench_decode_lib [--read-only | --in-memory] [--per-queue | "
			"--sojourn | --sojourn-events] FILE.pcap\n");
		return 2;
	}
	if (sojourn && pktstats_sojourn_create(&matcher, NULL) != 0) {
		fprintf(stderr, "bench_decode_lib: out of memory\n");
		return 2;
	}
	FILE *file = fopen(path, "rb");
	pcap_t *pcap = NULL;
	if (file) {
		static char file_buffer[1 << 20]; /* as stat_reader.c */

		setvbuf(file, file_buffer, _IOFBF, sizeof file_buffer);
		pcap = pcap_fopen_offline(file, error);
	} else {
		snprintf(error, sizeof error, "%s", strerror(errno));
	}
	if (!pcap) {
		fprintf(stderr, "bench_decode_lib: %s: %s\n", path, error);
		return 2;
	}
	pktstats_stream_init(&stream, NULL);
	double start = now(), cpu_start = cpu_now();
	while ((r = pcap_next_ex(pcap, &header, &data)) == 1) {
		if (in_memory) {
			if (n_frames == cap_frames || used + header->caplen > cap_bytes) {
				cap_frames = cap_frames * 2 + 1024;
				cap_bytes = cap_bytes * 2 + header->caplen + (1u << 20);
				lengths = realloc(lengths, cap_frames * sizeof(*lengths));
				buffer = realloc(buffer, cap_bytes);
				if (!lengths || !buffer) {
					fprintf(stderr, "bench_decode_lib: out of memory\n");
					return 2;
				}
			}
			memcpy(buffer + used, data, header->caplen);
			used += header->caplen;
			lengths[n_frames++] = header->caplen;
		} else if (read_only) {
			stream.frames++;
		} else {
			decode(&stream, data, header->caplen, per_queue ? &summary : NULL, &result);
		}
	}
	if (in_memory) {
		const uint8_t *frame = buffer;

		start = now();
		cpu_start = cpu_now();
		for (size_t k = 0; k < n_frames; frame += lengths[k++])
			decode(&stream, frame, lengths[k], per_queue ? &summary : NULL, &result);
	}
	double seconds = now() - start, cpu_seconds = cpu_now() - cpu_start;
	free(buffer);
	free(lengths);
	if (r == PCAP_ERROR) {
		fprintf(stderr, "bench_decode_lib: %s: %s\n", path, pcap_geterr(pcap));
		return 2;
	}
	pcap_close(pcap);
	printf("frames %" PRIu64 " packets %" PRIu64 " events %" PRIu64 " malformed %" PRIu64
	       " lost %" PRIu64 " decode_seconds %.6f decode_cpu_seconds %.6f\n",
	       stream.frames, stream.total.packets, stream.total.events, stream.total.malformed,
	       stream.total.lost, seconds, cpu_seconds);
	if (matcher) {
		struct pktstats_sojourn_counts total;
		pktstats_sojourn_total(matcher, PKTSTATS_ALL_QUEUES, &total);
		printf("timed %" PRIu64 " counted %" PRIu64 " queued_before %" PRIu64
		       " unsynchronised %" PRIu64 " pending %" PRIu64 "\n",
		       timed, total.timed, total.queued_before, total.unsynchronised, total.pending);
	}
	pktstats_sojourn_destroy(matcher);
	return 0;
}
