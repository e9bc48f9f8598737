/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Clock-by-clock reference model of the time-of-day clock, written from docs/time.md alone.
 *
 * Where the RTL carries field by field (fraction into nanoseconds into seconds), the model
 * turns the time into one number of 2^-32 ns, does the arithmetic of the document on it (signed
 * 128-bit), checks the ranges there, and splits it back with a division. So the two agree only
 * if the carries, the borrows of a negative trim and the range checks are all right.
 */
#include "pktstats/time_model.h"

#include <string.h>

typedef __int128 units_t; /* a time or an offset in 2^-32 ns */

#define NS_PER_S 1000000000
#define SECONDS_LIMIT ((uint64_t)1 << 48)
/* 2^48 s in 2^-32 ns: where the seconds wrap */
#define UNITS_LIMIT ((units_t)SECONDS_LIMIT * NS_PER_S << 32)

static units_t to_units(const struct time_model_time *t)
{
	return (((units_t)t->seconds * NS_PER_S + t->nanoseconds) << 32) + t->fraction;
}

static void from_units(units_t u, struct time_model_time *t)
{
	units_t ns = u >> 32;

	t->fraction = (uint32_t)(u & 0xffffffffu);
	t->seconds = (uint64_t)(ns / NS_PER_S);
	t->nanoseconds = (uint32_t)(ns % NS_PER_S);
}

/* A 48-bit two's complement value as a signed number. */
static int64_t signed48(uint64_t value)
{
	value &= SECONDS_LIMIT - 1;
	return value & (SECONDS_LIMIT >> 1) ? (int64_t)value - (int64_t)SECONDS_LIMIT : (int64_t)value;
}

void time_model_reset(struct time_model *model)
{
	memset(model, 0, sizeof(*model));
}

void time_model_step(struct time_model *model, const struct time_model_inputs *in)
{
	units_t now = to_units(&model->now);
	/* advance(n) = time(n) + 8 ns + trim x 2^-32 ns; only the seconds wrap, at 2^48 */
	units_t advance = (now + ((units_t)8 << 32) + in->trim) % UNITS_LIMIT;
	units_t next = advance;
	bool set_refused = false, step_refused = false;

	if (in->set) {
		if ((in->set_nanoseconds & 0x3fffffffu) < NS_PER_S) {
			struct time_model_time t = {in->set_seconds & (SECONDS_LIMIT - 1),
						    in->set_nanoseconds & 0x3fffffffu, 0};
			next = to_units(&t);
		} else {
			set_refused = true;
		}
	}
	if (in->step) {
		uint32_t step_ns = in->step_nanoseconds & 0x3fffffffu;
		units_t offset = ((units_t)signed48(in->step_seconds) * NS_PER_S + step_ns) *
				 ((units_t)1 << 32);
		units_t stepped = advance + offset;

		if (in->set || step_ns >= NS_PER_S || stepped < 0 || stepped >= UNITS_LIMIT)
			step_refused = true;
		else
			next = stepped;
	}
	if (in->latch) {
		model->latched = model->now;
		model->latched_timer = in->timer;
	}
	model->set_refused = (in->set_refused_clear ? 0 : model->set_refused) + set_refused;
	model->step_refused = (in->step_refused_clear ? 0 : model->step_refused) + step_refused;
	from_units(next, &model->now);
}
