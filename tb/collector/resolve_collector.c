/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * resolve_collector COLLECTOR [VIA] [TIMEOUT_MS]: calls pktstats_collector_resolve() and prints
 * the path as key=value lines (interface, source_mac, source_ip, next_hop_ip, next_hop_mac), or
 * "error=-ERRNO" and "reason=..." with exit status 1. The test driver for the library's
 * collector resolution (tb/collector/test_collector.py), run inside a network namespace.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pktstats/collector.h"

static void print_mac(const char *key, const uint8_t mac[6])
{
	printf("%s=%02x:%02x:%02x:%02x:%02x:%02x\n", key, mac[0], mac[1], mac[2], mac[3], mac[4],
	       mac[5]);
}

static void print_ip(const char *key, uint32_t ip)
{
	printf("%s=%u.%u.%u.%u\n", key, ip >> 24, ip >> 16 & 0xff, ip >> 8 & 0xff, ip & 0xff);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: %s COLLECTOR [VIA|-] [TIMEOUT_MS]\n", argv[0]);
		return 2;
	}
	const char *via = argc > 2 && argv[2][0] != '-' ? argv[2] : NULL;
	unsigned timeout_ms = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 1000;
	struct pktstats_collector_path path;
	char reason[256];
	int err = pktstats_collector_resolve(argv[1], via, timeout_ms, &path, reason, sizeof reason);
	if (err < 0) {
		printf("error=%d\nreason=%s\n", err, reason);
		return 1;
	}
	printf("interface=%s\n", path.interface);
	print_mac("source_mac", path.source_mac);
	print_ip("source_ip", path.source_ip);
	print_ip("collector_ip", path.collector_ip);
	print_ip("next_hop_ip", path.next_hop_ip);
	print_mac("next_hop_mac", path.next_hop_mac);
	return 0;
}
