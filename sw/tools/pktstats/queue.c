/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `queue`: the switch's 8 output queues: limit, occupancy and counters;
 * set a queue's limit; clear a queue's counters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "output.h"
#include "pktstats/switch.h"

#define QUEUE_LIMIT_MAX 0xfffffu /* switch.queue_limit_N is 20 bits of 64-bit words */

/* "QUEUE" or "all" (also when absent, if allowed) into a mask. */
static int parse_queues(const struct cli *cli, const char *word, uint32_t *mask)
{
	uint64_t queue;
	if (!strcmp(word, "all")) {
		*mask = 0xff;
		return CLI_OK;
	}
	const char *error = parse_number(word, 0, PKTSTATS_QUEUES - 1, &queue);
	if (error)
		return cli_usage(cli, "queue '%s': %s", word, error);
	*mask = 1u << queue;
	return CLI_OK;
}

static int queue_show(struct cli *cli, int argc, char **argv)
{
	uint32_t mask = 0xff;
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	int status = argc == 1 ? parse_queues(cli, argv[0], &mask) : CLI_OK;
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	struct pktstats_queue_status queues[PKTSTATS_QUEUES];
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(mask >> q & 1))
			continue;
		int err = pktstats_queue_get(cli->dev, q, &queues[q]);
		if (err < 0)
			return cli_fail(cli, err);
	}
	out_begin();
	out_list_begin("queues");
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(mask >> q & 1))
			continue;
		const struct pktstats_queue_status *s = &queues[q];
		out_item_begin();
		out_uint("queue", q, NULL);
		out_uint("limit", s->limit, NULL);
		out_uint("occupancy", s->occupancy, NULL);
		out_uint("peak-occupancy", s->peak_occupancy, NULL);
		out_uint("frames-stored", s->frames_stored, NULL);
		out_uint("bytes-stored", s->bytes_stored, NULL);
		out_uint("frames-removed", s->frames_removed, NULL);
		out_uint("bytes-removed", s->bytes_removed, NULL);
		out_uint("frames-dropped", s->frames_dropped, NULL);
		out_uint("bytes-dropped", s->bytes_dropped, NULL);
		out_item_end();
	}
	out_list_end();
	out_end();
	return CLI_OK;
}

static int queue_set(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs QUEUE (0..7 or all), then limit WORDS");
	uint32_t mask;
	int status = parse_queues(cli, argv[0], &mask);
	if (status != CLI_OK)
		return status;
	if (argc < 2)
		return cli_usage(cli, "nothing to set (keywords: limit)");
	if (strcmp(argv[1], "limit"))
		return cli_usage(cli, "unknown keyword '%s' (keywords: limit)", argv[1]);
	if (argc < 3)
		return cli_usage(cli, "limit needs a value (64-bit words, 0..%u)", QUEUE_LIMIT_MAX);
	if (argc > 3)
		return cli_usage(cli, "unexpected argument '%s'", argv[3]);
	uint64_t words;
	const char *error = parse_number(argv[2], 0, QUEUE_LIMIT_MAX, &words);
	if (error)
		return cli_usage(cli, "limit '%s': %s", argv[2], error);
	if ((status = cli_open(cli, 0)) != CLI_OK)
		return status;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(mask >> q & 1))
			continue;
		int err = pktstats_queue_set_limit(cli->dev, q, (uint32_t)words);
		if (err < 0)
			return cli_fail(cli, err);
	}
	return CLI_OK;
}

static int queue_clear(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs QUEUE (0..7 or all)");
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	uint32_t mask;
	int status = parse_queues(cli, argv[0], &mask);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(mask >> q & 1))
			continue;
		int err = pktstats_queue_clear(cli->dev, q);
		if (err < 0)
			return cli_fail(cli, err);
	}
	return CLI_OK;
}

static const struct cli_verb queue_verbs[] = {
	{"show", "[QUEUE|all]", "show the limit, occupancy and counters of the queues",
	 "QUEUE is 0..7 (0..3 the Ethernet ports, 4..7 the CPU ports); default all.\n"
	 "Sizes are in 64-bit words. With -j: queues, an array of objects with queue, limit,\n"
	 "occupancy, peak_occupancy, frames_stored, bytes_stored, frames_removed,\n"
	 "bytes_removed, frames_dropped, bytes_dropped.\n",
	 queue_show},
	{"set", "QUEUE|all limit WORDS", "set the tail-drop limit of a queue, in 64-bit words",
	 "WORDS is 0..1048575; the hardware treats a limit above its RAM less one largest frame\n"
	 "(3906 words with 32 KiB per queue) as that.\n",
	 queue_set},
	{"clear", "QUEUE|all", "clear the counters and peak occupancy of a queue", NULL,
	 queue_clear},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_queue = {
	"queue", "The switch's output queues", queue_verbs,
};
