/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * decode_fields: the production decoder's view of every frame of a pcap, one JSON line per
 * frame, with every field the Wireshark dissector (sw/tools/wireshark/pktstats.lua) shows, so
 * that tb/wireshark/test_dissector.py can compare the two field for field.
 *
 *   decode_fields [--port N] [--v1-resolution C] FILE.pcap
 *
 * A frame is a stat packet candidate when it parses as Ethernet/IPv4/UDP and either UDP port
 * is N (default 27033): Wireshark's udp.port table matches either port, unlike the stream
 * decoder's destination-port filter, and the test must compare the same set of frames.
 * --v1-resolution: the resolution of version 1 packets (decoder option v1_resolution).
 *
 *   not a candidate: {"frame": n, "stat": false}
 *   candidate:       {"frame": n, "stat": true, "payload_len": UDP payload bytes,
 *                     "error": "" or the decoder's reason name,
 *                     "version", "missed", "resolution", "event_types", "sequence",
 *                     "queue_size": [8], "queue_packets": [8], "n_slots", "n_events",
 *                     "n_timestamps", "start_tick", "first_tick", "last_tick",
 *                     "events": [[type, queue, length, tick, time_ns, occupancy, slot], ...]}
 * The header fields are valid when "version" is not 0 (the decoder's rule); "events" is
 * empty for a malformed packet (the decoder reports none). Exit 0, or 2 on a bad file.
 */
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktstats/decode.h"

static void print_array(const char *key, const uint32_t *v)
{
	printf("\"%s\":[", key);
	for (int q = 0; q < PKTSTATS_QUEUES; q++)
		printf("%s%" PRIu32, q ? "," : "", v[q]);
	printf("],");
}

int main(int argc, char **argv)
{
	struct pktstats_decode_options options;
	unsigned long port = PKTSTATS_UDP_PORT, v1_resolution = 0;
	int arg = 1;

	for (; arg + 2 < argc; arg += 2) {
		if (strcmp(argv[arg], "--port") == 0)
			port = strtoul(argv[arg + 1], NULL, 0);
		else if (strcmp(argv[arg], "--v1-resolution") == 0)
			v1_resolution = strtoul(argv[arg + 1], NULL, 0);
		else
			break;
	}
	if (argc != arg + 1 || port == 0 || port > 65535 || v1_resolution > 7) {
		fprintf(stderr, "usage: decode_fields [--port N] [--v1-resolution C] FILE.pcap\n");
		return 2;
	}
	pktstats_decode_default_options(&options);
	options.v1_resolution = (uint8_t)v1_resolution;
	char error[PCAP_ERRBUF_SIZE];
	pcap_t *pcap = pcap_open_offline(argv[arg], error);
	if (!pcap) {
		fprintf(stderr, "decode_fields: %s: %s\n", argv[arg], error);
		return 2;
	}
	static struct pktstats_event events[PKTSTATS_DECODE_MAX_EVENTS];
	struct pcap_pkthdr *header;
	const u_char *data;
	unsigned long frame = 0;
	int r;

	while ((r = pcap_next_ex(pcap, &header, &data)) == 1) {
		struct pktstats_frame_view view;
		struct pktstats_packet packet;
		enum pktstats_decode_error reason = PKTSTATS_DECODE_OK;
		size_t n = 0;

		frame++;
		if (pktstats_parse_frame(data, header->caplen, &view) < 0 ||
		    (view.dst_port != port && view.src_port != port)) {
			printf("{\"frame\":%lu,\"stat\":false}\n", frame);
			continue;
		}
		int err = pktstats_decode_payload_ex(view.payload, view.payload_len, &options, &packet,
						     events, PKTSTATS_DECODE_MAX_EVENTS, &n, &reason);
		if (err < 0 && err != -EBADMSG) {
			fprintf(stderr, "decode_fields: frame %lu: error %d\n", frame, err);
			return 2;
		}
		printf("{\"frame\":%lu,\"stat\":true,\"payload_len\":%zu,\"error\":\"%s\",", frame,
		       view.payload_len, err ? pktstats_decode_error_name(reason) : "");
		printf("\"version\":%u,\"missed\":%s,\"resolution\":%u,\"event_types\":%u,"
		       "\"sequence\":%" PRIu32 ",",
		       packet.version, packet.missed ? "true" : "false", packet.resolution,
		       packet.event_types, packet.sequence);
		print_array("queue_size", packet.queue_size);
		print_array("queue_packets", packet.queue_packets);
		printf("\"n_slots\":%" PRIu32 ",\"n_events\":%" PRIu32 ",\"n_timestamps\":%" PRIu32
		       ",\"start_tick\":%" PRIu64 ",\"first_tick\":%" PRIu64 ",\"last_tick\":%" PRIu64
		       ",\"events\":[",
		       packet.n_slots, packet.n_events, packet.n_timestamps, packet.start_tick,
		       packet.first_tick, packet.last_tick);
		for (size_t i = 0; i < n; i++)
			printf("%s[%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRIu32 "]",
			       i ? "," : "", events[i].type, events[i].queue, events[i].length,
			       events[i].tick, events[i].time_ns, events[i].occupancy, events[i].slot);
		printf("]}\n");
	}
	if (r == PCAP_ERROR) {
		fprintf(stderr, "decode_fields: %s: %s\n", argv[arg], pcap_geterr(pcap));
		pcap_close(pcap);
		return 2;
	}
	pcap_close(pcap);
	return 0;
}
