/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_decode_lib: the stream decoder in summary mode on a pcap, for bench/bench_decode.py:
 * libpcap reads the frames (as the pktstats CLI does), pktstats_stream_feed_frame() decodes
 * them with events = NULL (every slot validated, no per-event output). The library's own
 * figure, beside `pktstats decode --summary`, which adds the CLI's per-queue statistics.
 *
 *   bench_decode_lib [--read-only | --in-memory] FILE.pcap
 *
 * --read-only: libpcap reads the frames and nothing decodes them, to split the time between
 * reading and decoding.
 * --in-memory: every frame is read into memory first; decode_seconds is then the stream
 * decoder's time alone, the figure to compare with the 200 M events/s target.
 *
 * Prints one line: "frames F packets P events E malformed M lost L decode_seconds S
 * decode_cpu_seconds C" (S: wall time of the read-and-decode loop alone, after opening the
 * file; C: this thread's CPU time in it). Exit 0, 2 on a bad file.
 */
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pktstats/decode.h"

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

int main(int argc, char **argv)
{
	char error[PCAP_ERRBUF_SIZE];
	struct pktstats_stream stream;
	struct pktstats_stream_result result;
	struct pcap_pkthdr *header;
	const u_char *data;
	int r, read_only = argc == 3 && strcmp(argv[1], "--read-only") == 0;
	int in_memory = argc == 3 && strcmp(argv[1], "--in-memory") == 0;
	const char *path = argv[argc - 1];
	uint8_t *buffer = NULL;     /* --in-memory: the frames back to back */
	size_t *lengths = NULL, n_frames = 0, used = 0, cap_frames = 0, cap_bytes = 0;

	if (argc != 2 + read_only + in_memory) {
		fprintf(stderr, "usage: bench_decode_lib [--read-only | --in-memory] FILE.pcap\n");
		return 2;
	}
	pcap_t *pcap = pcap_open_offline(path, error);
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
			pktstats_stream_feed_frame(&stream, data, header->caplen, NULL, 0, &result);
		}
	}
	if (in_memory) {
		const uint8_t *frame = buffer;

		start = now();
		cpu_start = cpu_now();
		for (size_t i = 0; i < n_frames; frame += lengths[i++])
			pktstats_stream_feed_frame(&stream, frame, lengths[i], NULL, 0, &result);
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
	return 0;
}
