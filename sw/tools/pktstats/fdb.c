/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `fdb`: the switch's learning table (forwarding database), like
 * `bridge fdb`: show the entries, add a static or dynamic entry, delete one, set the ageing
 * time.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "output.h"
#include "pktstats/switch.h"

#define AGEING_TIME_MAX 65535u /* switch.ageing_time is 16 bits of seconds */

static int fdb_show(struct cli *cli, int argc, char **argv)
{
	bool all = false;
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	if (argc == 1) {
		if (strcmp(argv[0], "all"))
			return cli_usage(cli, "unknown argument '%s' (the only one is: all)", argv[0]);
		all = true;
	}
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	unsigned size, ageing;
	int err = pktstats_fdb_size(cli->dev, &size);
	if (err == 0)
		err = pktstats_ageing_time_get(cli->dev, &ageing);
	if (err < 0)
		return cli_fail(cli, err);
	/* Read the whole table before printing, so that a failure prints nothing on stdout. */
	struct pktstats_fdb_entry entries[256];
	if (size > 256)
		size = 256; /* table_size is 8 bits */
	for (unsigned i = 0; i < size; i++)
		if ((err = pktstats_fdb_read(cli->dev, i, &entries[i])) < 0)
			return cli_fail(cli, err);
	char text[32];
	out_begin();
	out_uint("size", size, NULL);
	snprintf(text, sizeof text, "%u s%s", ageing, ageing ? "" : " (never)");
	out_uint("ageing-time", ageing, text);
	out_list_begin("entries");
	for (unsigned i = 0; i < size; i++) {
		const struct pktstats_fdb_entry *e = &entries[i];
		if (!e->valid && !all)
			continue;
		out_item_begin();
		out_uint("index", e->index, NULL);
		format_mac(e->mac, text, sizeof text);
		out_string("mac", text);
		out_uint("port", e->port, NULL);
		out_bool("valid", e->valid);
		out_bool("static", e->is_static);
		out_uint("age", e->age, NULL);
		out_item_end();
	}
	out_list_end();
	out_end();
	return CLI_OK;
}

static int fdb_add(struct cli *cli, int argc, char **argv)
{
	uint8_t mac[6];
	uint64_t port = 0;
	bool have_port = false, is_static = false;
	const char *error;
	if (argc < 1)
		return cli_usage(cli, "needs MAC port PORT [static]");
	if ((error = parse_mac(argv[0], mac)))
		return cli_usage(cli, "MAC '%s': %s", argv[0], error);
	if (mac[0] & 1)
		return cli_usage(cli, "MAC '%s' is a group address; the table holds unicast "
				      "addresses", argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "static")) {
			is_static = true;
		} else if (!strcmp(argv[i], "dynamic")) {
			is_static = false;
		} else if (!strcmp(argv[i], "port")) {
			if (i + 1 >= argc)
				return cli_usage(cli, "port needs a value (0..7)");
			if ((error = parse_number(argv[++i], 0, 7, &port)))
				return cli_usage(cli, "port '%s': %s", argv[i], error);
			have_port = true;
		} else {
			return cli_usage(cli, "unknown keyword '%s' (keywords: port, static, dynamic)",
					 argv[i]);
		}
	}
	if (!have_port)
		return cli_usage(cli, "needs port PORT (0..7)");
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_fdb_add(cli->dev, mac, (unsigned)port, is_static, NULL);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int fdb_del(struct cli *cli, int argc, char **argv)
{
	uint8_t mac[6];
	const char *error;
	if (argc < 1)
		return cli_usage(cli, "needs MAC");
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	if ((error = parse_mac(argv[0], mac)))
		return cli_usage(cli, "MAC '%s': %s", argv[0], error);
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_fdb_delete(cli->dev, mac);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int fdb_set(struct cli *cli, int argc, char **argv)
{
	uint64_t seconds;
	const char *error;
	if (argc < 1)
		return cli_usage(cli, "nothing to set (keywords: ageing-time)");
	if (strcmp(argv[0], "ageing-time"))
		return cli_usage(cli, "unknown keyword '%s' (keywords: ageing-time)", argv[0]);
	if (argc < 2)
		return cli_usage(cli, "ageing-time needs a value (seconds, 0..%u; 0 = never)",
				 AGEING_TIME_MAX);
	if (argc > 2)
		return cli_usage(cli, "unexpected argument '%s'", argv[2]);
	if ((error = parse_number(argv[1], 0, AGEING_TIME_MAX, &seconds)))
		return cli_usage(cli, "ageing-time '%s': %s", argv[1], error);
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_ageing_time_set(cli->dev, (unsigned)seconds);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static const struct cli_verb fdb_verbs[] = {
	{"show", "[all]", "show the learned and static entries (all: the free ones too)",
	 "With -j: size (entries in the table), ageing_time (seconds, 0 = never), entries (an\n"
	 "array of objects with index, mac, port, valid, static, age in seconds).\n",
	 fdb_show},
	{"add", "MAC port PORT [static]",
	 "add or replace the entry of a unicast MAC (static: never aged out nor relearned)", NULL,
	 fdb_add},
	{"del", "MAC", "delete the entries holding MAC", NULL, fdb_del},
	{"set", "ageing-time SECONDS", "forget learned addresses unseen for longer (0 = never)",
	 NULL, fdb_set},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_fdb = {
	"fdb", "The switch's learning table (forwarding database)", fdb_verbs,
};
