/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI, object `time`: the switch's time-of-day clock (docs/time.md): show it latched
 * together with the evcap timer, set it, step it, trim its frequency, set it from the host.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "output.h"
#include "pktstats/time.h"

#define NS_PER_S INT64_C(1000000000)

/* "1700000000.123456789 s (2023-11-14T22:13:20.123456789Z)" */
static void format_time(const struct pktstats_time *t, char *text, size_t size)
{
	char utc[64];
	if (t->seconds <= INT64_MAX && format_utc((int64_t)t->seconds, t->nanoseconds, utc, sizeof utc))
		snprintf(text, size, "%" PRIu64 ".%09" PRIu32 " s (%s)", t->seconds, t->nanoseconds,
			 utc);
	else
		snprintf(text, size, "%" PRIu64 ".%09" PRIu32 " s", t->seconds, t->nanoseconds);
}

/* A signed offset: [-]NANOSECONDS, or [-]DURATION with a unit (1.5s, -20ns, 3us). */
static const char *parse_offset(const char *word, int64_t *nanoseconds)
{
	bool negative = *word == '-';
	const char *p = negative ? word + 1 : word;
	uint64_t magnitude;
	const char *error;
	if (*p == '\0')
		return "empty value";
	if (strspn(p, "0123456789") == strlen(p))
		error = parse_number(p, 0, UINT64_MAX, &magnitude);
	else
		error = parse_duration(p, &magnitude);
	if (error)
		return error;
	if (magnitude > (uint64_t)INT64_MAX)
		return "the offset does not fit in 64 bits of nanoseconds";
	*nanoseconds = negative ? -(int64_t)magnitude : (int64_t)magnitude;
	return NULL;
}


static int time_show(struct cli *cli, int argc, char **argv)
{
	int status = cli_no_arguments(cli, argc, argv);
	if (status == CLI_OK)
		status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	struct pktstats_time_pair pair;
	int32_t trim;
	uint64_t set_refused, step_refused;
	int err = pktstats_time_read(cli->dev, &pair);
	if (err == 0)
		err = pktstats_time_trim_get(cli->dev, &trim);
	if (err == 0)
		err = pktstats_time_refused_get(cli->dev, &set_refused, &step_refused);
	if (err < 0)
		return cli_fail(cli, err);
	char text[96], number[32];
	out_begin();
	format_time(&pair.time, text, sizeof text);
	/* JSON: the time as a number of seconds, its nine decimals written as the integers are
	 * (a double would lose them), and the text for people under utc; text: the one line */
	snprintf(number, sizeof number, "%" PRIu64 ".%09" PRIu32, pair.time.seconds,
		 pair.time.nanoseconds);
	out_number_text("time", number, text);
	if (out_is_json())
		out_string("utc", text);
	out_uint("seconds", pair.time.seconds, NULL);
	out_uint("nanoseconds", pair.time.nanoseconds, NULL);
	snprintf(text, sizeof text, "%" PRIu32 " (%.6f ns)", pair.time.fraction,
		 pair.time.fraction / 4294967296.0);
	out_uint("fraction", pair.time.fraction, text);
	snprintf(text, sizeof text, "%" PRIu64 " (8 ns clocks, latched in the same clock)",
		 pair.timer);
	out_uint("timer", pair.timer, text);
	snprintf(text, sizeof text, "%" PRId32 " (%+.4f ppb)", trim,
		 pktstats_time_trim_to_ppb(trim));
	out_int("trim", trim, text);
	out_real("trim-ppb", pktstats_time_trim_to_ppb(trim), 4);
	out_uint("set-refused", set_refused, NULL);
	out_uint("step-refused", step_refused, NULL);
	/* ready for `decode --time-of-day` (its fraction of a ns left out, as that takes it) */
	snprintf(text, sizeof text, "%" PRIu64 ".%09" PRIu32 "@%" PRIu64 ",%.4f", pair.time.seconds,
		 pair.time.nanoseconds, pair.timer, pktstats_time_trim_to_ppb(trim));
	out_string("time-of-day-pair", text);
	out_end();
	return CLI_OK;
}

static int time_set(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs TIME (SECONDS[.FRACTION] or YYYY-MM-DDTHH:MM:SS[.FRACTION]Z)");
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	uint64_t seconds;
	uint32_t nanoseconds;
	const char *error = parse_time_of_day(argv[0], &seconds, &nanoseconds);
	if (error)
		return cli_usage(cli, "TIME '%s': %s", argv[0], error);
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_time_set(cli->dev, seconds, nanoseconds);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int time_step(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs OFFSET ([-]NANOSECONDS or [-]DURATION: -20ns, 1.5s)");
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	int64_t offset;
	const char *error = parse_offset(argv[0], &offset);
	if (error)
		return cli_usage(cli, "OFFSET '%s': %s", argv[0], error);
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	/* Refuse a step below 0 or beyond 2^48 s before writing a register (the library checks
	 * it too, after its own read): the time only grows until the step. */
	struct pktstats_time_pair now;
	int err = pktstats_time_read(cli->dev, &now);
	if (err < 0)
		return cli_fail(cli, err);
	__int128 result = (__int128)now.time.seconds * NS_PER_S + now.time.nanoseconds + offset;
	if (result < 0)
		return cli_usage(cli, "OFFSET '%s': the time would go below 0 (it is %" PRIu64
				 ".%09" PRIu32 " s)", argv[0], now.time.seconds, now.time.nanoseconds);
	if (result / NS_PER_S > (__int128)PKTSTATS_TIME_SECONDS_MAX)
		return cli_usage(cli, "OFFSET '%s': the time would go beyond 2^48 s", argv[0]);
	err = pktstats_time_step(cli->dev, offset);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int time_trim(struct cli *cli, int argc, char **argv)
{
	if (argc < 1)
		return cli_usage(cli, "needs PPB (a signed number of parts per billion, fractions allowed)");
	if (argc > 1)
		return cli_usage(cli, "unexpected argument '%s'", argv[1]);
	double ppb;
	int32_t trim;
	const char *error = parse_ppb(argv[0], &ppb);
	if (error)
		return cli_usage(cli, "PPB '%s': %s", argv[0], error);
	if (pktstats_time_trim_from_ppb(ppb, &trim) < 0)
		return cli_usage(cli, "PPB '%s': beyond what the clock holds (-62500000 .. "
				 "+62499999.97 ppb)", argv[0]);
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	int err = pktstats_time_trim_set(cli->dev, trim);
	return err < 0 ? cli_fail(cli, err) : CLI_OK;
}

static int time_sync(struct cli *cli, int argc, char **argv)
{
	bool tai = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--tai"))
			tai = true;
		else if (!strcmp(argv[i], "--utc"))
			tai = false;
		else
			return cli_usage(cli, "unexpected argument '%s' (--tai or --utc)", argv[i]);
	}
	int status = cli_open(cli, 0);
	if (status != CLI_OK)
		return status;
	struct pktstats_time_sync sync;
	int err = pktstats_time_sync(cli->dev, tai, &sync);
	if (err < 0)
		return cli_fail(cli, err);
	char text[96];
	out_begin();
	out_string("clock", tai ? "tai" : "utc");
	format_time(&sync.host, text, sizeof text);
	out_string("host", text);
	out_uint("host-seconds", sync.host.seconds, NULL);
	out_uint("host-nanoseconds", sync.host.nanoseconds, NULL);
	out_int("correction-ns", sync.correction_ns, NULL);
	format_time(&sync.set, text, sizeof text);
	out_string("set", text);
	out_uint("set-seconds", sync.set.seconds, NULL);
	out_uint("set-nanoseconds", sync.set.nanoseconds, NULL);
	out_uint("timer-at-set", sync.timer_at_set, NULL);
	snprintf(text, sizeof text, "%+" PRId64 " ns (host minus switch, before the set)",
		 sync.offset_ns);
	out_int("offset-ns", sync.offset_ns, text);
	out_int("round-trip-ns", sync.round_trip_ns, NULL);
	out_end();
	return CLI_OK;
}

static const struct cli_verb time_verbs[] = {
	{"show", "", "show the time of day and the evcap timer, latched in the same clock",
	 "With -j: time (a number: seconds with nine decimals, exact), utc (text: the same and\n"
	 "the UTC date), seconds, nanoseconds, fraction (2^-32 ns), timer (the evcap timer,\n"
	 "8 ns clocks, latched in the same clock), trim (2^-32 ns per clock), trim_ppb,\n"
	 "set_refused, step_refused (commands the clock refused), time_of_day_pair (for\n"
	 "decode --time-of-day).\n",
	 time_show},
	{"set", "TIME", "set the time of day",
	 "TIME is SECONDS[.FRACTION] (since the epoch; a fraction of at most 9 digits) or a UTC\n"
	 "time YYYY-MM-DDTHH:MM:SS[.FRACTION]Z. The fraction of a nanosecond becomes 0.\n",
	 time_set},
	{"step", "OFFSET", "add a signed offset to the time of day, in one clock",
	 "OFFSET is [-]NANOSECONDS or [-]DURATION with a unit ns, us, ms, s (-20ns, 1.5s).\n"
	 "A step that would take the time below 0 is refused before anything is written.\n",
	 time_step},
	{"trim", "PPB", "trim the clock's frequency by PPB parts per billion",
	 "PPB is signed and may have a fraction (-12.5); the clock holds it to 0.0291 ppb, from\n"
	 "-62500000 to +62499999.97 ppb. 0 is the nominal 8 ns per clock.\n",
	 time_trim},
	{"sync", "[--utc|--tai]", "set the time of day from the host's clock and show the offset",
	 "--utc (default): CLOCK_REALTIME; --tai: CLOCK_TAI. The value written is the host's time\n"
	 "plus correction_ns (3.5 round trips of a register write); offset_ns is the host minus\n"
	 "the switch just before the set. With -j: clock, host, host_seconds, host_nanoseconds,\n"
	 "correction_ns, set, set_seconds, set_nanoseconds, timer_at_set, offset_ns, round_trip_ns.\n",
	 time_sync},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_time = {
	"time", "The switch's time-of-day clock: show, set, step, trim, sync", time_verbs,
};
