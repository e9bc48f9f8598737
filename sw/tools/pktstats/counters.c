/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `counters`: the event capture's counters (events missed and sent, stat
 * packets sent) and the switch's lookup counters; clear them. Per-queue counters are shown by
 * `queue show`; `counters clear` clears them too unless told which group.
 */
#include <string.h>

#include "cli.h"
#include "output.h"
#include "pktstats/capture.h"
#include "pktstats/switch.h"

static int counters_show(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	struct pktstats_capture_counters capture;
	struct pktstats_switch_counters sw;
	int err = pktstats_capture_counters_get(cli->dev, &capture);
	if (err == 0)
		err = pktstats_switch_counters_get(cli->dev, &sw);
	if (err < 0)
		return cli_fail(cli, err);
	out_begin();
	out_object_begin("capture");
	out_uint("events-missed", capture.events_missed, NULL);
	out_uint("events-sent", capture.events_sent, NULL);
	out_uint("packets-sent", capture.packets_sent, NULL);
	out_object_end();
	out_object_begin("switch");
	out_uint("frames-looked-up", sw.frames_looked_up, NULL);
	out_uint("frames-flooded", sw.frames_flooded, NULL);
	out_uint("frames-filtered", sw.frames_filtered, NULL);
	out_uint("frames-too-short", sw.frames_too_short, NULL);
	out_uint("entries-learned", sw.entries_learned, NULL);
	out_uint("entries-aged-out", sw.entries_aged_out, NULL);
	out_object_end();
	out_end();
	return CLI_OK;
}

static int counters_clear(struct cli *cli, int argc, char **argv)
{
	static const char *const groups[] = {"all", "capture", "switch", "queues"};
	unsigned group = 0;
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	if (argc == 1) {
		for (group = 0; group < 4 && strcmp(argv[0], groups[group]); group++)
			;
		if (group == 4)
			return cli_usage(cli, "unknown group '%s' (groups: all, capture, switch, "
					      "queues)", argv[0]);
	}
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = 0;
	if (group == 0 || group == 1)
		err = pktstats_capture_counters_clear(cli->dev);
	if (err == 0 && (group == 0 || group == 2))
		err = pktstats_switch_counters_clear(cli->dev);
	for (unsigned q = 0; err == 0 && (group == 0 || group == 3) && q < PKTSTATS_QUEUES; q++)
		err = pktstats_queue_clear(cli->dev, q);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static const struct cli_verb counters_verbs[] = {
	{"show", "", "show the capture and switch counters",
	 "With -j: capture.events_missed, capture.events_sent, capture.packets_sent;\n"
	 "switch.frames_looked_up, switch.frames_flooded, switch.frames_filtered,\n"
	 "switch.frames_too_short, switch.entries_learned, switch.entries_aged_out.\n"
	 "Per-queue counters: pktstats queue show.\n",
	 counters_show},
	{"clear", "[all|capture|switch|queues]",
	 "clear the counters (default all: capture, switch and every queue's)", NULL,
	 counters_clear},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_counters = {
	"counters", "Capture and switch counters", counters_verbs,
};
