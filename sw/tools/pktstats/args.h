/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: parsers for the values on the command line. Each one takes the whole word,
 * accepts it exactly or rejects it: no leading blanks, no signs, no trailing garbage, no
 * silent truncation (the mistakes of atoi/strtoul that prior-art.md lists).
 *
 * Every parser returns NULL on success, or a short reason for people ("256 is above 255"), in
 * a static buffer valid until the next call; the caller puts the keyword and the word in
 * front of it. Nothing is stored on failure.
 */
#ifndef PKTSTATS_CLI_ARGS_H
#define PKTSTATS_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* Unsigned number, decimal or hexadecimal with 0x, in min..max. */
const char *parse_number(const char *word, uint64_t min, uint64_t max, uint64_t *value);

/* MAC address: six hex bytes of one or two digits separated by ':' (02:00:00:00:00:01).
 * mac[0] is the first byte on the wire. */
const char *parse_mac(const char *word, uint8_t mac[6]);

/* IPv4 address, dotted quad of decimal octets 0..255 without leading zeros. The first octet
 * goes into bits 31:24. */
const char *parse_ipv4(const char *word, uint32_t *address);

/* A set of numbers 0..max (max < 32) as a bit mask: "all", "none", a list of numbers and
 * ranges ("0,2-4"), or a hex mask ("0x15") with no bit above max. */
const char *parse_number_set(const char *word, unsigned max, uint32_t *mask);

/* A set of names as a bit mask: bit i is names[i] (n names): "all", "none", a comma list of
 * names, or a hex mask. */
const char *parse_name_set(const char *word, const char *const *names, unsigned n,
			   uint32_t *mask);

/* A duration: a decimal number with an optional fraction and a unit ns, us, ms, s, or
 * "cycles" (clocks of 8 ns): "128ns", "1.5us", "125000cycles". Result in nanoseconds, which
 * must be whole. */
const char *parse_duration(const char *word, uint64_t *nanoseconds);
/* A duration counted in `unit` ("ms" or "s"), min..max of them: a bare number counts that
 * unit (as the keywords that took plain numbers always did), a duration with its own unit
 * ("10ms", "1.5s", parse_duration's) must come to a whole number of them. */
const char *parse_duration_count(const char *word, const char *unit, uint64_t min, uint64_t max,
			      uint64_t *count);

/* A time of day: SECONDS[.FRACTION] (seconds since the epoch, a fraction of 1 to 9 digits), or
 * UTC as YYYY-MM-DDTHH:MM:SS[.FRACTION]Z (1970 or later); seconds at most 2^48 - 1. */
const char *parse_time_of_day(const char *word, uint64_t *seconds, uint32_t *nanoseconds);

/* A signed decimal number of parts per billion, with an optional fraction: 12, -0.5,
 * +100000 (the one parser here that takes a sign). */
const char *parse_ppb(const char *word, double *ppb);

/* Text forms for output: "0-3,5" ("none" for an empty mask); "arrival,drop"; a duration in
 * the largest unit that divides it ("1 ms", "64 ns"); a MAC; a dotted IPv4 address. */
void format_number_set(uint32_t mask, char *text, size_t size);
void format_name_set(uint32_t mask, const char *const *names, unsigned n, char *text,
		     size_t size);
void format_duration(uint64_t nanoseconds, char *text, size_t size);
void format_mac(const uint8_t mac[6], char *text, size_t size);
void format_ipv4(uint32_t address, char *text, size_t size);

/* A rate in Gb/s with at most 3 decimals ("100", "2.5", "0.1"), as Mb/s. */
const char *parse_rate_gbps(const char *word, uint64_t *mbps);

#endif
