/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of OpenKilda's decision maker (src/isl.c, pktstats/isl.h) against seed 000's
 * table, every pair of switches: the six rows as the seed writes them, and the three pairs the
 * table reaches only through its "?" row, each with the seed's reason; the seven pairs it rules
 * out (copy field without group); bad arguments.
 */
#include "pktstats/isl.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "test_device_tap.h"

/* A switch: copy field and group (C), group only (G), neither (N) */
static const struct pktstats_isl_features C = {true, true}, G = {false, true}, N = {false, false};

int main(void)
{
	static const struct {
		const struct pktstats_isl_features *source, *destination;
		enum pktstats_isl_action want;
		const char *why;
	} cases[] = {
		{&C, &C, PKTSTATS_ISL_DROP_DISCOVERY, "row 1: both will receive RTL packets"},
		{&C, &G, PKTSTATS_ISL_DROP_DISCOVERY,
		 "row 2: the source stamps, the destination reflects: the source gets RTL packets"},
		{&G, &C, PKTSTATS_ISL_COPY_REVERSE_RTL,
		 "row 3: only the destination gets RTL packets: copy the reverse ISL's"},
		{&N, &C, PKTSTATS_ISL_USE_ONE_WAY, "row 4: the source can neither stamp nor reflect"},
		{&C, &N, PKTSTATS_ISL_USE_ONE_WAY, "row 5: the destination can neither stamp nor reflect"},
		{&G, &G, PKTSTATS_ISL_USE_ONE_WAY, "row 6 (- ? - ?): neither stamps, group on both"},
		{&G, &N, PKTSTATS_ISL_USE_ONE_WAY, "row 6 (- ? - ?): neither stamps, group on the source"},
		{&N, &G, PKTSTATS_ISL_USE_ONE_WAY,
		 "row 6 (- ? - ?): neither stamps, group on the destination"},
		{&N, &N, PKTSTATS_ISL_USE_ONE_WAY, "row 6 (- ? - ?): neither switch has either feature"},
	};
	tap_diag("seed 000's table: %zu pairs of switches it allows (C: copy field and group, "
		 "G: group, N: neither)", sizeof cases / sizeof cases[0]);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum pktstats_isl_action action = 0;
		int err = pktstats_isl_decide(cases[i].source, cases[i].destination, &action);
		tap_ok(err == 0 && action == cases[i].want, "%s: %s", cases[i].why,
		       err == 0 ? pktstats_isl_action_name(action) : strerror(-err));
	}

	/* Copy field without group, on either side or both: ruled out by the seed */
	const struct pktstats_isl_features copy_only = {true, false};
	const struct pktstats_isl_features *sides[] = {&C, &G, &N, &copy_only};
	unsigned refused = 0, pairs = 0;
	for (size_t s = 0; s < 4; s++)
		for (size_t d = 0; d < 4; d++) {
			if (sides[s] != &copy_only && sides[d] != &copy_only)
				continue;
			enum pktstats_isl_action action = 0;
			pairs++;
			refused += pktstats_isl_decide(sides[s], sides[d], &action) == -EINVAL;
		}
	tap_ok(pairs == 7 && refused == 7,
	       "a switch with copy field but no group is refused (-EINVAL): %u of %u pairs", refused,
	       pairs);

	enum pktstats_isl_action action;
	tap_ok(pktstats_isl_decide(NULL, &C, &action) == -EINVAL &&
		       pktstats_isl_decide(&C, NULL, &action) == -EINVAL &&
		       pktstats_isl_decide(&C, &C, NULL) == -EINVAL,
	       "NULL arguments: -EINVAL");
	tap_ok(!strcmp(pktstats_isl_action_name(PKTSTATS_ISL_DROP_DISCOVERY), "drop-discovery") &&
		       !strcmp(pktstats_isl_action_name(PKTSTATS_ISL_COPY_REVERSE_RTL),
			       "copy-reverse-rtl") &&
		       !strcmp(pktstats_isl_action_name(PKTSTATS_ISL_USE_ONE_WAY), "use-one-way") &&
		       pktstats_isl_action_name(0) == NULL,
	       "action names; NULL for a value that is no action");
	return tap_done();
}
