/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `timer`: the event capture's timer (8 ns cycles since reset), which
 * stamps every event; show it, reset it to 0, or load it with a value.
 */
#include <inttypes.h>
#include <stdio.h>

#include "args.h"
#include "cli.h"
#include "output.h"
#include "pktstats/capture.h"

static int timer_show(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	uint64_t cycles;
	int err = pktstats_timer_read(cli->dev, &cycles);
	if (err < 0)
		return cli_fail(cli, err);
	char text[48];
	out_begin();
	out_uint("cycles", cycles, NULL);
	/* The timer is 62 bits of 8 ns cycles: the product fits in 64 bits. */
	uint64_t ns = cycles * PKTSTATS_CLOCK_NS;
	snprintf(text, sizeof text, "%" PRIu64 " (%" PRIu64 ".%09" PRIu64 " s)", ns,
		 ns / 1000000000, ns % 1000000000);
	out_uint("ns", ns, text);
	out_end();
	return CLI_OK;
}

static int timer_reset(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_timer_reset(cli->dev);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int timer_set(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs CYCLES (8 ns clock cycles)");
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	uint64_t cycles;
	const char *error = parse_number(argv[0], 0, (UINT64_C(1) << 62) - 1, &cycles);
	if (error)
		return cli_usage(cli, "CYCLES '%s': %s", argv[0], error);
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_timer_load(cli->dev, cycles);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static const struct cli_verb timer_verbs[] = {
	{"show", "", "show the timer in 8 ns cycles and in nanoseconds",
	 "With -j: cycles (8 ns clock cycles since the last reset or load), ns (the same in\n"
	 "nanoseconds).\n",
	 timer_show},
	{"reset", "", "reset the timer to 0", NULL, timer_reset},
	{"set", "CYCLES", "load the timer with CYCLES (0 .. 2^62 - 1, decimal or 0x hex)", NULL,
	 timer_set},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_timer = {
	"timer", "The capture timer that stamps every event", timer_verbs,
};
