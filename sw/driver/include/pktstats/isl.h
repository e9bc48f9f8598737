/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats ISL latency (docs/isl.md): OpenKilda's decision maker, which says what to do
 * with the one-way latency a discovery packet carries, from the features the two switches of
 * the ISL have (seed 000, "Decision maker service").
 *
 * Conventions as in pktstats/pktstats.h: 0 or a negative errno, nothing printed.
 */
#ifndef PKTSTATS_ISL_H
#define PKTSTATS_ISL_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a switch can do for the round trip (block oam: isl_copy_field, isl_group). */
struct pktstats_isl_features {
	bool copy_field; /* writes T0 and T1 */
	bool group;      /* reflects discovery packets */
};

enum pktstats_isl_action {
	/* Both ends will produce round-trip packets for this direction: the discovery packet's
	 * one-way latency is not needed */
	PKTSTATS_ISL_DROP_DISCOVERY = 1,
	/* Only the reverse ISL gets round-trip packets: take its round trip for this one */
	PKTSTATS_ISL_COPY_REVERSE_RTL,
	/* No round trip will come: use the discovery packet's one-way latency */
	PKTSTATS_ISL_USE_ONE_WAY,
};

/*
 * The action for a discovery packet sent by `source` and received by `destination`, row by
 * row as seed 000's table says. -EINVAL for NULL, and for a switch with copy_field but not
 * group, which the table rules out ("if a switch supports Copy Field action, it supports
 * needed group actions too").
 */
int pktstats_isl_decide(const struct pktstats_isl_features *source,
			const struct pktstats_isl_features *destination,
			enum pktstats_isl_action *action);

/* "drop-discovery", "copy-reverse-rtl", "use-one-way"; NULL for another value. */
const char *pktstats_isl_action_name(enum pktstats_isl_action action);

#ifdef __cplusplus
}
#endif

#endif
