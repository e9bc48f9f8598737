/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats collector resolution: the stat packet headers a collector at an IPv4 address
 * needs, from the host's own tables through rtnetlink (libnl-route-3), as `ip route get` and
 * `ip neigh` would give them:
 *
 *   - the route to the collector (through IFACE only, when one is given): the interface, its
 *     MAC address (the stat packets' source MAC), the route's preferred source address or else
 *     the interface's first IPv4 address (their source IP), and the next hop: the collector
 *     itself when it is on-link, else the route's gateway;
 *   - the next hop's MAC address from the kernel's neighbour table (their destination MAC).
 *
 * The switch's stat port is meant to be cabled where that interface is, so that the host's
 * view of the path is the stat packets' path. A next hop without a usable neighbour entry is
 * probed (an empty UDP datagram to its discard port 9, which makes the kernel resolve it,
 * every 200 ms) and looked up again for up to `timeout_ms`.
 *
 * Linking: programs that call this also link -lnl-route-3 -lnl-3, which
 * `pkg-config --static --libs libpktstats` adds (libnl-route-3.0 is its Requires.private).
 */
#ifndef PKTSTATS_COLLECTOR_H
#define PKTSTATS_COLLECTOR_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pktstats_collector_path {
	char interface[IF_NAMESIZE]; /* where the route goes out */
	uint8_t source_mac[6];       /* that interface's MAC */
	uint32_t source_ip;          /* numbers, first byte on the wire in bits 31:24 */
	uint32_t collector_ip;
	uint32_t next_hop_ip;        /* collector_ip when on-link, else the gateway */
	uint8_t next_hop_mac[6];     /* the stat packets' destination MAC */
};

/*
 * Resolves the path to `collector` (dotted IPv4). `via`: interface name, or NULL to follow the
 * routing table. On failure, returns a negative errno and writes a one-line reason into error:
 *   -EINVAL       collector is not an IPv4 address, via is not an interface name
 *   -ENODEV       no such interface, or it is down
 *   -ENETUNREACH  no route to the collector (through via)
 *   -EADDRNOTAVAIL the interface is the loopback, or has no IPv4 or no MAC address
 *   -EHOSTUNREACH the next hop's MAC could not be resolved in time (no neighbour answers)
 *   other         rtnetlink failures (the reason quotes libnl's message)
 */
int pktstats_collector_resolve(const char *collector, const char *via, unsigned timeout_ms,
			       struct pktstats_collector_path *path, char *error,
			       size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
