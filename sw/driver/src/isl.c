/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats ISL latency: OpenKilda's decision maker (pktstats/isl.h), seed 000's table.
 */
#include "pktstats/isl.h"

#include <errno.h>
#include <stddef.h>

/* A table cell: the feature is there (YES), is not (NO), or either (ANY, the seed's "?"). */
enum cell { NO, YES, ANY };

/* Seed 000's table, its rows in its order: SC, SG, DC, DG and the action. The first row that
 * matches decides. */
static const struct row {
	enum cell source_copy, source_group, destination_copy, destination_group;
	enum pktstats_isl_action action;
} rows[] = {
	{YES, YES, YES, YES, PKTSTATS_ISL_DROP_DISCOVERY},
	{YES, YES, NO, YES, PKTSTATS_ISL_DROP_DISCOVERY},
	{NO, YES, YES, YES, PKTSTATS_ISL_COPY_REVERSE_RTL},
	{NO, NO, YES, YES, PKTSTATS_ISL_USE_ONE_WAY},
	{YES, YES, NO, NO, PKTSTATS_ISL_USE_ONE_WAY},
	{NO, ANY, NO, ANY, PKTSTATS_ISL_USE_ONE_WAY},
};

static int matches(enum cell cell, bool value)
{
	return cell == ANY || (cell == YES) == value;
}

int pktstats_isl_decide(const struct pktstats_isl_features *source,
			const struct pktstats_isl_features *destination,
			enum pktstats_isl_action *action)
{
	if (!source || !destination || !action)
		return -EINVAL;
	if ((source->copy_field && !source->group) ||
	    (destination->copy_field && !destination->group))
		return -EINVAL;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		if (matches(r->source_copy, source->copy_field) &&
		    matches(r->source_group, source->group) &&
		    matches(r->destination_copy, destination->copy_field) &&
		    matches(r->destination_group, destination->group)) {
			*action = r->action;
			return 0;
		}
	}
	/* The rows cover every pair the check above lets through */
	return -EINVAL;
}

const char *pktstats_isl_action_name(enum pktstats_isl_action action)
{
	switch (action) {
	case PKTSTATS_ISL_DROP_DISCOVERY: return "drop-discovery";
	case PKTSTATS_ISL_COPY_REVERSE_RTL: return "copy-reverse-rtl";
	case PKTSTATS_ISL_USE_ONE_WAY: return "use-one-way";
	}
	return NULL;
}
