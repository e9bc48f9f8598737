/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: an HTTP Accept header through pktstats-exporter's negotiation
 * (sw/tools/exporter/exposition.c, expo_negotiate()), the one parser of a scraper's bytes the
 * exporter has of its own (libmicrohttpd parses the rest).
 *
 * Input: the header's bytes (up to the first NUL). Checked, abort() on a break: the answer
 * is one of the two formats; a header that does not name application/openmetrics-text (in
 * any case) is answered in text 0.0.4; the answer does not change when the header is given
 * again with blanks before it; reading never goes beyond the header's end (ASan).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exposition.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool names_openmetrics(const char *header)
{
	static const char name[] = "application/openmetrics-text";
	for (const char *p = header; *p; p++)
		if (!strncasecmp(p, name, sizeof name - 1))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *header = malloc(size + 1), *padded = malloc(size + 3);
	FUZZ_CHECK(header && padded);
	memcpy(header, data, size);
	header[size] = '\0';
	enum expo_format format = expo_negotiate(header);
	FUZZ_CHECK(format == EXPO_TEXT_0_0_4 || format == EXPO_OPENMETRICS_1_0_0);
	if (!names_openmetrics(header))
		FUZZ_CHECK(format == EXPO_TEXT_0_0_4);
	snprintf(padded, size + 3, " \t%s", header);
	FUZZ_CHECK(expo_negotiate(padded) == format);
	free(header);
	free(padded);
	return 0;
}
