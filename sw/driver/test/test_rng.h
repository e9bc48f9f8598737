/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library tests' pseudo-random numbers (test_decode.c, test_sojourn.c): xorshift64
 * (Marsaglia), so that a printed seed replays a run exactly on every machine. A test sets
 * rng_state from its seed (never 0) and calls rng().
 */
#ifndef PKTSTATS_TEST_RNG_H
#define PKTSTATS_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state;

static inline uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

#endif
