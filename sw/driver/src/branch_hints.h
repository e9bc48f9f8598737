/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hints for the compiler in the library's per-event loops (decode.c, sojourn.c): functions
 * inlined whatever its heuristics say, functions kept out of line, and the branches that
 * almost never go one way.
 */
#ifndef PKTSTATS_BRANCH_HINTS_H
#define PKTSTATS_BRANCH_HINTS_H

#if defined(__GNUC__)
#define PKTSTATS_ALWAYS_INLINE inline __attribute__((always_inline))
/* a function called only on a loop's rare branch, kept out of line: inlined, decode.c's
 * departs_next_fast() cost the summary loop six instructions per event, out of line two */
#define PKTSTATS_COLD __attribute__((noinline, cold))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PKTSTATS_ALWAYS_INLINE inline
#define PKTSTATS_COLD
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

#endif
