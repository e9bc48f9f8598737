/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP output for the device tests (test_device.c, test_device_sim.c): one test point per
 * check, the device's error detail printed as a comment when a result code is wrong.
 */
#ifndef PKTSTATS_TEST_DEVICE_TAP_H
#define PKTSTATS_TEST_DEVICE_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static unsigned tap_count, tap_failures;

static void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* One test point; returns cond so that a caller can add detail when it fails. */
static bool tap_ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failures++;
	printf("%sok %u - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

/* A result code: got must equal want; on failure the detail (may be NULL) is shown. */
#define TAP_RC(got, want, detail, ...)                                                     \
	do {                                                                               \
		int got_ = (got), want_ = (want);                                          \
		const char *detail_ = (detail);                                            \
		if (!tap_ok(got_ == want_, __VA_ARGS__))                                   \
			tap_diag("got %d (%s), expected %d (%s); detail: %s", got_,        \
				 strerror(-got_), want_, strerror(-want_),                 \
				 detail_ ? detail_ : "(none)");                            \
	} while (0)

/* A string that must contain a part. */
#define TAP_HAS(text, part, ...)                                                           \
	do {                                                                               \
		const char *text_ = (text);                                                \
		if (!tap_ok(text_ && strstr(text_, (part)) != NULL, __VA_ARGS__))         \
			tap_diag("'%s' does not contain '%s'", text_ ? text_ : "(null)",   \
				 (part));                                                  \
	} while (0)

/* The plan, last; the exit status says whether everything passed. */
static int tap_done(void)
{
	printf("1..%u\n", tap_count);
	fflush(stdout); /* before LeakSanitizer, which may _exit at exit */
	return tap_failures ? 1 : 0;
}

#endif
