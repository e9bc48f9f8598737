/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: `collector IPV4 [via IFACE]` (collector_args.h), shared by `capture set` and
 * `flowlat set`.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "collector_args.h"
#include "pktstats/collector.h"

int collector_check(const struct cli *cli, const struct collector_args *args)
{
	uint32_t address;
	const char *error = args->collector ? parse_ipv4(args->collector, &address) : NULL;
	if (error)
		return cli_usage(cli, "collector '%s': %s", args->collector, error);
	if (args->via && !args->collector)
		return cli_usage(cli, "via needs collector (via names the interface toward it)");
	return CLI_OK;
}

int collector_fill(const struct cli *cli, const struct collector_args *args,
		   const struct collector_headers *h)
{
	if (!args->collector)
		return CLI_OK;
	/* The host's route, interface and neighbour table give the headers; fields given
	 * explicitly on the command line win. Resolved before the device is touched. */
	struct pktstats_collector_path path;
	char reason[256];
	int err = pktstats_collector_resolve(args->collector, args->via, 1000, &path, reason,
					     sizeof reason);
	if (err < 0) {
		/* the way round it: the four fields by hand (a collector on this host, a
		 * simulated switch's TAP, a path the routing table does not know) */
		cli_say(cli, "collector %s: %s (give dst-ip, dst-mac, src-ip and src-mac instead)",
			args->collector, reason);
		return CLI_RUNTIME;
	}
	struct {
		bool *given;
		void *to;
		const void *from;
		size_t size;
	} fill[] = {
		{h->destination_ip_given, h->destination_ip, &path.collector_ip, 4},
		{h->destination_mac_given, h->destination_mac, path.next_hop_mac, 6},
		{h->source_ip_given, h->source_ip, &path.source_ip, 4},
		{h->source_mac_given, h->source_mac, path.source_mac, 6},
	};
	for (size_t f = 0; f < sizeof fill / sizeof fill[0]; f++)
		if (!*fill[f].given) {
			memcpy(fill[f].to, fill[f].from, fill[f].size);
			*fill[f].given = true;
		}
	return CLI_OK;
}
