/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reference model of the time-of-day clock (rtl/time/time_clock.v), clock by clock, written from
 * docs/time.md alone. Given the register block's outputs of every clock (trim, staged values,
 * command pulses) and the evcap timer, it gives the same time of day, latched values and
 * counters as the RTL in every clock.
 *
 * Usage, once per clock:
 *     time_model_now(m, &t);        the time of day of the current clock
 *     time_model_step(m, &inputs);  advance to the next clock (the clock edge)
 */
#ifndef PKTSTATS_TIME_MODEL_H
#define PKTSTATS_TIME_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A time of day as the hardware holds it. */
struct time_model_time {
	uint64_t seconds;     /* 0 .. 2^48 - 1 */
	uint32_t nanoseconds; /* 0 .. 999 999 999 */
	uint32_t fraction;    /* 2^-32 ns */
};

/* What the clock sees in one clock: the register block's outputs and the evcap timer. */
struct time_model_inputs {
	int32_t trim;                /* 2^-32 ns per clock, signed */
	uint64_t set_seconds;        /* 48 bits */
	uint32_t set_nanoseconds;    /* 30 bits */
	uint64_t step_seconds;       /* 48 bits, two's complement */
	uint32_t step_nanoseconds;   /* 30 bits */
	uint64_t timer;              /* the evcap timer of this clock */
	bool latch, set, step;       /* command pulses */
	bool set_refused_clear, step_refused_clear;
};

struct time_model {
	struct time_model_time now;
	struct time_model_time latched;
	uint64_t latched_timer;
	uint64_t set_refused;
	uint64_t step_refused;
};

/* The state after reset: time 0, nothing latched, counters 0. */
void time_model_reset(struct time_model *model);

/* One clock edge with the inputs of the current clock. */
void time_model_step(struct time_model *model, const struct time_model_inputs *inputs);

#ifdef __cplusplus
}
#endif

#endif
