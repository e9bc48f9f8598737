/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats time of day (pktstats/time.h): the time block's registers (docs/time.md).
 */
#define _DEFAULT_SOURCE /* device_internal.h: IFNAMSIZ, PATH_MAX; CLOCK_TAI */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "device_internal.h"
#include "named_access.h"
#include "pktstats/regs.h"
#include "pktstats/time.h"

#define NS_PER_S ((int64_t)PKTSTATS_TIME_NS_PER_S)

/* Latches and reads the pair (the latch command is written first). */
static int latch_and_read(struct pktstats_dev *dev, uint32_t command,
			  struct pktstats_time_pair *pair)
{
	uint64_t wide;
	uint32_t value;
	int err;
	memset(pair, 0, sizeof *pair);
	if ((err = named_write32(dev, PKTSTATS_TIME_COMMAND, command)) < 0)
		return err;
	if ((err = named_read64(dev, PKTSTATS_TIME_LATCHED_SECONDS, &wide)) < 0)
		return err;
	pair->time.seconds = wide & PKTSTATS_TIME_SECONDS_MAX;
	if ((err = named_read32(dev, PKTSTATS_TIME_LATCHED_NANOSECONDS, &value)) < 0)
		return err;
	pair->time.nanoseconds = value & PKTSTATS_TIME_LATCHED_NANOSECONDS_MASK;
	if ((err = named_read32(dev, PKTSTATS_TIME_LATCHED_FRACTION, &pair->time.fraction)) < 0)
		return err;
	return named_read64(dev, PKTSTATS_TIME_LATCHED_TIMER, &pair->timer);
}

int pktstats_time_read(struct pktstats_dev *dev, struct pktstats_time_pair *pair)
{
	if (!dev || !pair)
		return -EINVAL;
	return latch_and_read(dev, PKTSTATS_TIME_COMMAND_LATCH_MASK, pair);
}

static int check_set(struct pktstats_dev *dev, uint64_t seconds, uint32_t nanoseconds)
{
	if (nanoseconds >= PKTSTATS_TIME_NS_PER_S)
		return pktstats_fail(dev, -EINVAL, "nanoseconds %" PRIu32 " is not below 10^9",
				     nanoseconds);
	if (seconds > PKTSTATS_TIME_SECONDS_MAX)
		return pktstats_fail(dev, -EINVAL, "seconds %" PRIu64 " is beyond 2^48 - 1", seconds);
	return 0;
}

static int stage_set(struct pktstats_dev *dev, uint64_t seconds, uint32_t nanoseconds)
{
	int err = named_write64(dev, PKTSTATS_TIME_SET_SECONDS, seconds);
	return err < 0 ? err : named_write32(dev, PKTSTATS_TIME_SET_NANOSECONDS, nanoseconds);
}

int pktstats_time_set(struct pktstats_dev *dev, uint64_t seconds, uint32_t nanoseconds)
{
	if (!dev)
		return -EINVAL;
	int err = check_set(dev, seconds, nanoseconds);
	if (err == 0)
		err = stage_set(dev, seconds, nanoseconds);
	if (err == 0)
		err = named_write32(dev, PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_SET_MASK);
	return err;
}

int pktstats_time_refused_get(struct pktstats_dev *dev, uint64_t *set_refused,
			      uint64_t *step_refused)
{
	if (!dev || !set_refused || !step_refused)
		return -EINVAL;
	int err = named_read64(dev, PKTSTATS_TIME_SET_REFUSED, set_refused);
	return err < 0 ? err : named_read64(dev, PKTSTATS_TIME_STEP_REFUSED, step_refused);
}

int pktstats_time_refused_clear(struct pktstats_dev *dev)
{
	if (!dev)
		return -EINVAL;
	int err = named_write32(dev, PKTSTATS_TIME_SET_REFUSED, 0);
	return err < 0 ? err : named_write32(dev, PKTSTATS_TIME_STEP_REFUSED, 0);
}

int pktstats_time_step(struct pktstats_dev *dev, int64_t nanoseconds)
{
	if (!dev)
		return -EINVAL;
	struct pktstats_time_pair now;
	int err = pktstats_time_read(dev, &now);
	if (err < 0)
		return err;
	/* The time only grows from here on, so a step that fits now fits below 0 later too; one
	 * that would pass 2^48 s later is refused by the hardware, seen below. */
	__int128 ns = (__int128)now.time.seconds * NS_PER_S + now.time.nanoseconds + nanoseconds;
	if (ns < 0)
		return pktstats_fail(dev, -ERANGE,
				     "a step of %" PRId64 " ns would take the time below 0 (it is "
				     "%" PRIu64 ".%09" PRIu32 " s)",
				     nanoseconds, now.time.seconds, now.time.nanoseconds);
	if (ns / NS_PER_S > (__int128)PKTSTATS_TIME_SECONDS_MAX)
		return pktstats_fail(dev, -ERANGE,
				     "a step of %" PRId64 " ns would take the time beyond 2^48 s",
				     nanoseconds);
	uint64_t set_before, step_before, set_after, step_after;
	if ((err = pktstats_time_refused_get(dev, &set_before, &step_before)) < 0)
		return err;
	/* Seconds floored, nanoseconds 0..10^9-1 (docs/time.md) */
	int64_t seconds = nanoseconds / NS_PER_S, rest = nanoseconds % NS_PER_S;
	if (rest < 0) {
		rest += NS_PER_S;
		seconds--;
	}
	if ((err = named_write64(dev, PKTSTATS_TIME_STEP_SECONDS,
				 (uint64_t)seconds & PKTSTATS_TIME_SECONDS_MAX)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_TIME_STEP_NANOSECONDS, (uint32_t)rest)) < 0 ||
	    (err = named_write32(dev, PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_STEP_MASK)) < 0 ||
	    (err = pktstats_time_refused_get(dev, &set_after, &step_after)) < 0)
		return err;
	if (step_after != step_before)
		return pktstats_fail(dev, -ERANGE, "the switch refused the step of %" PRId64 " ns "
				     "(time.step_refused counted it)", nanoseconds);
	return 0;
}

int pktstats_time_trim_get(struct pktstats_dev *dev, int32_t *trim)
{
	if (!dev || !trim)
		return -EINVAL;
	uint32_t value;
	int err = named_read32(dev, PKTSTATS_TIME_TRIM, &value);
	*trim = err < 0 ? 0 : (int32_t)value;
	return err;
}

int pktstats_time_trim_set(struct pktstats_dev *dev, int32_t trim)
{
	if (!dev)
		return -EINVAL;
	return named_write32(dev, PKTSTATS_TIME_TRIM, (uint32_t)trim);
}

int pktstats_time_trim_from_ppb(double ppb, int32_t *trim)
{
	if (!trim || ppb != ppb) /* NaN */
		return -EINVAL;
	/* to the nearest unit, halves away from 0 (no libm) */
	double units = ppb / PKTSTATS_TIME_PPB_PER_TRIM;
	if (!(units > -4294967296.0 && units < 4294967296.0))
		return -ERANGE;
	units = units < 0 ? -(double)(int64_t)(0.5 - units) : (double)(int64_t)(units + 0.5);
	if (!(units >= (double)PKTSTATS_TIME_TRIM_MIN && units <= (double)PKTSTATS_TIME_TRIM_MAX))
		return -ERANGE;
	*trim = (int32_t)units;
	return 0;
}

double pktstats_time_trim_to_ppb(int32_t trim)
{
	return trim * PKTSTATS_TIME_PPB_PER_TRIM;
}

static int64_t monotonic_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

/* A time in 2^-32 ns. */
static __int128 to_units(const struct pktstats_time *t)
{
	return (((__int128)t->seconds * NS_PER_S + t->nanoseconds) << 32) + t->fraction;
}

int pktstats_time_sync(struct pktstats_dev *dev, bool tai, struct pktstats_time_sync *result)
{
	if (!dev || !result)
		return -EINVAL;
	memset(result, 0, sizeof *result);
	struct pktstats_time_pair pair;
	int32_t trim;
	int err = pktstats_time_trim_get(dev, &trim);
	if (err < 0)
		return err;
	/* 1. one write, timed: what a register write costs on this device */
	int64_t t0 = monotonic_ns();
	if ((err = named_write32(dev, PKTSTATS_TIME_COMMAND, PKTSTATS_TIME_COMMAND_LATCH_MASK)) < 0)
		return err;
	result->round_trip_ns = monotonic_ns() - t0;
	result->correction_ns = result->round_trip_ns * 7 / 2;

	/* 2. the host's time, plus three staging writes and half of the command's */
	struct timespec host;
	if (clock_gettime(tai ? CLOCK_TAI : CLOCK_REALTIME, &host) < 0)
		return pktstats_fail(dev, -errno, "clock_gettime(%s): %s",
				     tai ? "CLOCK_TAI" : "CLOCK_REALTIME", strerror(errno));
	if (host.tv_sec < 0)
		return pktstats_fail(dev, -ERANGE, "the host's clock is before 1970");
	result->host.seconds = (uint64_t)host.tv_sec;
	result->host.nanoseconds = (uint32_t)host.tv_nsec;
	int64_t ns = (int64_t)host.tv_nsec + result->correction_ns;
	result->set.seconds = result->host.seconds + (uint64_t)(ns / NS_PER_S);
	result->set.nanoseconds = (uint32_t)(ns % NS_PER_S);
	if ((err = check_set(dev, result->set.seconds, result->set.nanoseconds)) < 0 ||
	    (err = stage_set(dev, result->set.seconds, result->set.nanoseconds)) < 0)
		return err;
	/* 3. latch and set in one command: the latch sees the clock just before the set */
	if ((err = latch_and_read(dev, PKTSTATS_TIME_COMMAND_LATCH_MASK |
					       PKTSTATS_TIME_COMMAND_SET_MASK, &pair)) < 0)
		return err;
	result->before = pair.time;
	result->timer_at_set = pair.timer + 1;
	__int128 advance = to_units(&pair.time) + ((__int128)8 << 32) + trim;
	__int128 offset = to_units(&result->set) - advance;
	/* to the nearest ns (offset is a whole number of ns minus the fraction) */
	result->offset_ns = (int64_t)((offset + ((__int128)1 << 31)) >> 32);
	return 0;
}
