/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the log (log.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

void exporter_log(const char *format, ...)
{
	char line[1024];
	va_list args;
	va_start(args, format);
	vsnprintf(line, sizeof line, format, args);
	va_end(args);
	/* one write of the whole line: lines of several threads never interleave */
	fprintf(stderr, "pktstats-exporter: %s\n", line);
}
