/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stat_dump: prints every frame of a pcap as one JSON line, decoding stat packets with the
 * production decoder (pktstats/decode.h), for the CLI's system tests (tb/cli/test_cli_system.py),
 * which compare what the CLI configured with what the simulator emitted.
 *
 *   stat_dump FILE.pcap
 *
 * A stat packet: {"time_ns", "stat": true, "dst_mac", "src_mac", "src_ip", "dst_ip",
 * "src_port", "dst_port", "tos", "ttl", "ip_id", "ip_total_length", "version", "missed",
 * "resolution", "sequence", "queue_size": [8], "start_tick", "last_tick",
 * "events": [[type, queue, length, tick], ...]} (type 1 arrival, 2 departure, 3 drop).
 * Any other frame: {"time_ns", "stat": false, "reason"}. Exit 0, or 2 when the file cannot be
 * read.
 */
#define _DEFAULT_SOURCE /* libpcap's headers use u_char */

#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

#include "pktstats/decode.h"

static void print_mac(const char *key, const uint8_t *m)
{
	printf("\"%s\":\"%02x:%02x:%02x:%02x:%02x:%02x\",", key, m[0], m[1], m[2], m[3], m[4],
	       m[5]);
}

static void print_ip(const char *key, uint32_t a)
{
	printf("\"%s\":\"%u.%u.%u.%u\",", key, a >> 24, a >> 16 & 0xff, a >> 8 & 0xff, a & 0xff);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: stat_dump FILE.pcap\n");
		return 2;
	}
	char error[PCAP_ERRBUF_SIZE];
	pcap_t *pcap = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO,
							       error);
	if (!pcap) {
		fprintf(stderr, "stat_dump: %s: %s\n", argv[1], error);
		return 2;
	}
	static struct pktstats_event events[PKTSTATS_DECODE_MAX_EVENTS];
	struct pcap_pkthdr *header;
	const u_char *data;
	int r;
	while ((r = pcap_next_ex(pcap, &header, &data)) == 1) {
		uint64_t time_ns = (uint64_t)header->ts.tv_sec * 1000000000u +
				   (uint64_t)header->ts.tv_usec;
		printf("{\"time_ns\":%" PRIu64 ",", time_ns);
		struct pktstats_frame_view view;
		struct pktstats_packet packet;
		enum pktstats_decode_error reason = PKTSTATS_DECODE_OK;
		size_t n = 0;
		int err = pktstats_parse_frame(data, header->caplen, &view);
		if (err < 0)
			reason = view.reason;
		else
			err = pktstats_decode_payload(view.payload, view.payload_len, &packet, events,
						      PKTSTATS_DECODE_MAX_EVENTS, &n, &reason);
		if (err < 0) {
			printf("\"stat\":false,\"reason\":\"%s\"}\n", pktstats_decode_error_name(reason));
			continue;
		}
		printf("\"stat\":true,");
		print_mac("dst_mac", view.dst_mac);
		print_mac("src_mac", view.src_mac);
		print_ip("src_ip", view.src_ip);
		print_ip("dst_ip", view.dst_ip);
		printf("\"src_port\":%u,\"dst_port\":%u,\"tos\":%u,\"ttl\":%u,\"ip_id\":%u,"
		       "\"ip_total_length\":%u,",
		       view.src_port, view.dst_port, view.tos, view.ttl, view.ip_id, view.ip_total_len);
		printf("\"version\":%u,\"missed\":%s,\"resolution\":%u,\"sequence\":%" PRIu32
		       ",\"queue_size\":[",
		       packet.version, packet.missed ? "true" : "false", packet.resolution,
		       packet.sequence);
		for (int q = 0; q < PKTSTATS_QUEUES; q++)
			printf("%s%" PRIu32, q ? "," : "", packet.queue_size[q]);
		printf("],\"start_tick\":%" PRIu64 ",\"last_tick\":%" PRIu64 ",\"events\":[",
		       packet.start_tick, packet.last_tick);
		for (size_t i = 0; i < n; i++)
			printf("%s[%u,%u,%u,%" PRIu64 "]", i ? "," : "", events[i].type, events[i].queue,
			       events[i].length, events[i].tick);
		printf("]}\n");
	}
	if (r == PCAP_ERROR) {
		fprintf(stderr, "stat_dump: %s: %s\n", argv[1], pcap_geterr(pcap));
		pcap_close(pcap);
		return 2;
	}
	pcap_close(pcap);
	return 0;
}
