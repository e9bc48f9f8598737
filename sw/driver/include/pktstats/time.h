/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats time of day: the switch's time-of-day clock (block `time`, docs/time.md): read
 * it atomically together with the evcap timer, set it, step it, trim its frequency, and set it
 * from the host's clock.
 *
 * Conventions as in pktstats/pktstats.h: 0 or a negative errno, nothing printed; the detail of
 * a failure through pktstats_error(). Values are checked before anything is written: a value
 * the hardware cannot hold gives -EINVAL or -ERANGE and writes nothing.
 */
#ifndef PKTSTATS_TIME_H
#define PKTSTATS_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "pktstats/pktstats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PKTSTATS_TIME_NS_PER_S 1000000000u
/* Largest seconds value the clock holds (48 bits). */
#define PKTSTATS_TIME_SECONDS_MAX ((UINT64_C(1) << 48) - 1)
/* The trim register's range (2^-32 ns per 8 ns clock) and the ppb of one unit. */
#define PKTSTATS_TIME_TRIM_MIN INT32_MIN
#define PKTSTATS_TIME_TRIM_MAX INT32_MAX
#define PKTSTATS_TIME_PPB_PER_TRIM (1e9 / (8.0 * 4294967296.0))

/* A time of day as the switch holds it. */
struct pktstats_time {
	uint64_t seconds;     /* 0 .. PKTSTATS_TIME_SECONDS_MAX */
	uint32_t nanoseconds; /* 0 .. 999 999 999 */
	uint32_t fraction;    /* 2^-32 ns */
};

/* The time of day and the evcap timer (8 ns clocks) latched in the same clock. */
struct pktstats_time_pair {
	struct pktstats_time time;
	uint64_t timer;
};

/* Latches and reads the pair. */
int pktstats_time_read(struct pktstats_dev *dev, struct pktstats_time_pair *pair);

/* Sets the time of day (fraction 0) in one clock. -EINVAL when nanoseconds >= 10^9 or seconds
 * > PKTSTATS_TIME_SECONDS_MAX; nothing is written then. */
int pktstats_time_set(struct pktstats_dev *dev, uint64_t seconds, uint32_t nanoseconds);

/*
 * Steps the time of day by a signed number of nanoseconds in one clock. The time is read
 * first (a latch): -ERANGE when the step would take it below 0 or beyond 2^48 s, and then
 * nothing else is written. If the hardware refuses it anyway (another program set the time in
 * between), -ERANGE as well.
 */
int pktstats_time_step(struct pktstats_dev *dev, int64_t nanoseconds);

/* The trim in its register's units (2^-32 ns per 8 ns clock, signed). */
int pktstats_time_trim_get(struct pktstats_dev *dev, int32_t *trim);
int pktstats_time_trim_set(struct pktstats_dev *dev, int32_t trim);

/* ppb to trim units, rounded to the nearest: -ERANGE when it does not fit (the hardware holds
 * -62 500 000 .. +62 499 999.97 ppb), -EINVAL for a NaN. And back. */
int pktstats_time_trim_from_ppb(double ppb, int32_t *trim);
double pktstats_time_trim_to_ppb(int32_t trim);

/* Commands the hardware refused (docs/time.md), and clearing them. */
int pktstats_time_refused_get(struct pktstats_dev *dev, uint64_t *set_refused,
			      uint64_t *step_refused);
int pktstats_time_refused_clear(struct pktstats_dev *dev);

/* What pktstats_time_sync() did. Times are on the host clock's epoch (Unix, UTC or TAI). */
struct pktstats_time_sync {
	struct pktstats_time host;    /* the host's clock, sampled just before writing */
	int64_t correction_ns;        /* added to it: 3.5 x the measured round trip of a write */
	struct pktstats_time set;     /* host + correction: the switch's time in timer_at_set */
	struct pktstats_time before;  /* the switch's time in the clock of the set command */
	uint64_t timer_at_set;        /* evcap timer of the first clock at the set value */
	int64_t offset_ns;            /* set - (before + 8 ns + trim): host ahead of switch (> 0) */
	int64_t round_trip_ns;        /* the measured round trip of one register write */
};

/*
 * Sets the switch's clock from the host's: CLOCK_TAI when tai, else CLOCK_REALTIME (UTC), as
 * docs/time.md ("Setting the clock from the host") describes. -ERANGE when the host's time
 * does not fit the clock (before 1970).
 */
int pktstats_time_sync(struct pktstats_dev *dev, bool tai, struct pktstats_time_sync *result);

#ifdef __cplusplus
}
#endif

#endif
