/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats CLI: the value parsers and formatters of args.h. Hand-written digit loops rather
 * than strtoul, which skips blanks, accepts signs ("-1" becomes 2^64-1) and reads octal.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "pktstats/time.h"

static char reason[160];

static const char *why(const char *format, ...) __attribute__((format(printf, 1, 2)));

static const char *why(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(reason, sizeof reason, format, args);
	va_end(args);
	return reason;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digits of word[0..length) in base 10 or 16 (after 0x), no overflow. */
static const char *parse_digits(const char *word, size_t length, uint64_t *value)
{
	if (length == 0)
		return "empty value";
	if (word[0] == '-')
		return "negative numbers are not allowed";
	if (word[0] == '+')
		return "a sign is not allowed";
	unsigned base = 10;
	size_t i = 0;
	if (length > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (length == 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X')) {
		return "no hex digits after 0x";
	}
	uint64_t result = 0;
	for (; i < length; i++) {
		int digit = hex_digit(word[i]);
		if (digit < 0 || (unsigned)digit >= base)
			return why("'%c' is not a %s digit", word[i], base == 16 ? "hex" : "decimal");
		if (result > (UINT64_MAX - (unsigned)digit) / base)
			return "number too large";
		result = result * base + (unsigned)digit;
	}
	*value = result;
	return NULL;
}

const char *parse_number(const char *word, uint64_t min, uint64_t max, uint64_t *value)
{
	uint64_t result;
	const char *error = parse_digits(word, strlen(word), &result);
	if (error)
		return error;
	if (result < min)
		return why("%" PRIu64 " is below %" PRIu64, result, min);
	if (result > max)
		return why("%" PRIu64 " is above %" PRIu64, result, max);
	*value = result;
	return NULL;
}

const char *parse_mac(const char *word, uint8_t mac[6])
{
	uint8_t bytes[6];
	const char *p = word;
	for (int i = 0; i < 6; i++) {
		int digits = 0, byte = 0;
		while (digits < 3 && hex_digit(*p) >= 0) {
			byte = byte * 16 + hex_digit(*p++);
			digits++;
		}
		if (digits == 0 || digits > 2)
			return "not a MAC address (six hex bytes like 02:00:00:00:00:01)";
		bytes[i] = (uint8_t)byte;
		if (i < 5 && *p++ != ':')
			return "not a MAC address (six hex bytes like 02:00:00:00:00:01)";
	}
	if (*p != '\0')
		return "not a MAC address (six hex bytes like 02:00:00:00:00:01)";
	memcpy(mac, bytes, 6);
	return NULL;
}

const char *parse_ipv4(const char *word, uint32_t *address)
{
	uint32_t result = 0;
	const char *p = word;
	for (int i = 0; i < 4; i++) {
		const char *start = p;
		while (*p >= '0' && *p <= '9')
			p++;
		size_t length = (size_t)(p - start);
		if (length == 0 || length > 3 || (i < 3 && *p != '.'))
			return "not an IPv4 address (four decimal octets like 10.0.0.1)";
		if (length > 1 && start[0] == '0')
			return why("octet '%.*s' has a leading zero (octal or decimal?)", (int)length,
				   start);
		unsigned octet = 0;
		for (size_t k = 0; k < length; k++)
			octet = octet * 10 + (unsigned)(start[k] - '0');
		if (octet > 255)
			return why("octet %u is above 255", octet);
		result = result << 8 | octet;
		if (i < 3)
			p++;
	}
	if (*p != '\0')
		return "not an IPv4 address (four decimal octets like 10.0.0.1)";
	*address = result;
	return NULL;
}

/* A hex mask "0x..." as the whole word, with no bit above max. */
static const char *parse_hex_mask(const char *word, unsigned max, uint32_t *mask)
{
	uint64_t value;
	const char *error = parse_digits(word, strlen(word), &value);
	if (error)
		return error;
	uint64_t allowed = (UINT64_C(1) << (max + 1)) - 1;
	if (value & ~allowed)
		return why("mask 0x%" PRIx64 " has bits above %u (allowed 0x%" PRIx64 ")", value, max,
			   allowed);
	*mask = (uint32_t)value;
	return NULL;
}

static bool is_hex_word(const char *word)
{
	return word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
}

const char *parse_number_set(const char *word, unsigned max, uint32_t *mask)
{
	if (word[0] == '\0')
		return "empty value";
	if (!strcmp(word, "all")) {
		*mask = (uint32_t)((UINT64_C(1) << (max + 1)) - 1);
		return NULL;
	}
	if (!strcmp(word, "none")) {
		*mask = 0;
		return NULL;
	}
	if (is_hex_word(word))
		return parse_hex_mask(word, max, mask);
	uint32_t result = 0;
	const char *p = word;
	for (;;) {
		/* One item: N or N-M. */
		uint64_t first, last;
		const char *end = p + strcspn(p, ",-");
		const char *error = parse_digits(p, (size_t)(end - p), &first);
		if (error)
			return why("'%.*s' in the list: %s", (int)(end - p), p, error);
		last = first;
		if (*end == '-') {
			p = end + 1;
			end = p + strcspn(p, ",-");
			if ((error = parse_digits(p, (size_t)(end - p), &last)))
				return why("range end '%.*s': %s", (int)(end - p), p, error);
			if (*end == '-')
				return "a range has one '-' (like 2-4)";
			if (last < first)
				return why("range %" PRIu64 "-%" PRIu64 " goes backwards", first, last);
		}
		if (last > max)
			return why("%" PRIu64 " is above %u", last, max);
		for (uint64_t i = first; i <= last; i++)
			result |= 1u << i;
		if (*end == '\0')
			break;
		p = end + 1; /* the ',' */
		if (*p == '\0')
			return "the list ends with ','";
	}
	*mask = result;
	return NULL;
}

const char *parse_name_set(const char *word, const char *const *names, unsigned n,
			   uint32_t *mask)
{
	if (word[0] == '\0')
		return "empty value";
	if (!strcmp(word, "all")) {
		*mask = (1u << n) - 1;
		return NULL;
	}
	if (!strcmp(word, "none")) {
		*mask = 0;
		return NULL;
	}
	if (is_hex_word(word))
		return parse_hex_mask(word, n - 1, mask);
	uint32_t result = 0;
	const char *p = word;
	for (;;) {
		size_t length = strcspn(p, ",");
		unsigned i;
		for (i = 0; i < n; i++)
			if (strlen(names[i]) == length && !strncmp(p, names[i], length))
				break;
		if (i == n) {
			char list[128] = "";
			for (unsigned k = 0; k < n; k++)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 k ? ", " : "", names[k]);
			return why("unknown name '%.*s' (names: %s; or all, none, a hex mask)",
				   (int)length, p, list);
		}
		result |= 1u << i;
		if (p[length] == '\0')
			break;
		p += length + 1;
		if (*p == '\0')
			return "the list ends with ','";
	}
	*mask = result;
	return NULL;
}

const char *parse_duration(const char *word, uint64_t *nanoseconds)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}, {"cycles", 8}};
	const char *p = word;
	if (*p == '\0')
		return "empty value";
	if (*p == '-')
		return "negative durations are not allowed";
	const char *integer = p;
	while (*p >= '0' && *p <= '9')
		p++;
	size_t integer_digits = (size_t)(p - integer);
	const char *fraction = NULL;
	size_t fraction_digits = 0;
	if (*p == '.') {
		fraction = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		fraction_digits = (size_t)(p - fraction);
		if (fraction_digits == 0)
			return "no digits after '.'";
	}
	if (integer_digits == 0)
		return "not a duration (a number and a unit: 128ns, 1.5us, 1ms, 125000cycles)";
	if (*p == '\0')
		return "a duration needs a unit (ns, us, ms, s or cycles), like 128ns";
	uint64_t scale = 0;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(p, units[i].name))
			scale = units[i].ns;
	if (scale == 0)
		return why("unknown unit '%s' (units: ns, us, ms, s, cycles)", p);
	uint64_t whole;
	const char *error = parse_digits(integer, integer_digits, &whole);
	if (error)
		return error;
	if (whole > UINT64_MAX / scale)
		return "duration too long";
	uint64_t result = whole * scale;
	/* The fraction, digit by digit: each must land on a whole nanosecond. */
	uint64_t place = scale;
	for (size_t i = 0; i < fraction_digits; i++) {
		unsigned digit = (unsigned)(fraction[i] - '0');
		if (place % 10 != 0) {
			if (digit != 0)
				return "the duration is not a whole number of nanoseconds";
			continue;
		}
		place /= 10;
		if (result > UINT64_MAX - digit * place)
			return "duration too long";
		result += digit * place;
	}
	*nanoseconds = result;
	return NULL;
}

const char *parse_duration_count(const char *word, const char *unit, uint64_t min, uint64_t max,
			      uint64_t *count)
{
	const uint64_t unit_ns = !strcmp(unit, "s") ? 1000000000 : 1000000;
	uint64_t ns;
	const char *error;
	if (word[0] >= '0' && word[0] <= '9' && word[strspn(word, "0123456789")] == '\0')
		return parse_number(word, min, max, count);
	if ((error = parse_duration(word, &ns)))
		return error;
	if (ns % unit_ns != 0)
		return why("not a whole number of %s", unit);
	if (ns / unit_ns < min || ns / unit_ns > max)
		return why("%" PRIu64 " %s is outside %" PRIu64 "..%" PRIu64 " %s", ns / unit_ns, unit,
			   min, max, unit);
	*count = ns / unit_ns;
	return NULL;
}

void format_number_set(uint32_t mask, char *text, size_t size)
{
	size_t used = 0;
	text[0] = '\0';
	for (unsigned i = 0; i < 32 && used < size; i++) {
		if (!(mask >> i & 1))
			continue;
		unsigned last = i;
		while (last + 1 < 32 && mask >> (last + 1) & 1)
			last++;
		if (last == i)
			used += (size_t)snprintf(text + used, size - used, "%s%u", used ? "," : "", i);
		else
			used += (size_t)snprintf(text + used, size - used, "%s%u-%u", used ? "," : "", i,
						 last);
		i = last;
	}
	if (mask == 0)
		snprintf(text, size, "none");
}

void format_name_set(uint32_t mask, const char *const *names, unsigned n, char *text,
		     size_t size)
{
	size_t used = 0;
	text[0] = '\0';
	for (unsigned i = 0; i < n && used < size; i++)
		if (mask >> i & 1)
			used += (size_t)snprintf(text + used, size - used, "%s%s", used ? "," : "",
						 names[i]);
	if (used == 0)
		snprintf(text, size, "none");
}

void format_duration(uint64_t nanoseconds, char *text, size_t size)
{
	if (nanoseconds != 0 && nanoseconds % 1000000000 == 0)
		snprintf(text, size, "%" PRIu64 " s", nanoseconds / 1000000000);
	else if (nanoseconds != 0 && nanoseconds % 1000000 == 0)
		snprintf(text, size, "%" PRIu64 " ms", nanoseconds / 1000000);
	else if (nanoseconds != 0 && nanoseconds % 1000 == 0)
		snprintf(text, size, "%" PRIu64 " us", nanoseconds / 1000);
	else
		snprintf(text, size, "%" PRIu64 " ns", nanoseconds);
}

void format_mac(const uint8_t mac[6], char *text, size_t size)
{
	snprintf(text, size, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
		 mac[4], mac[5]);
}

void format_ipv4(uint32_t address, char *text, size_t size)
{
	snprintf(text, size, "%u.%u.%u.%u", address >> 24, address >> 16 & 0xff,
		 address >> 8 & 0xff, address & 0xff);
}

/* Digits only, at least one, at most `max` of them. */
static const char *digits(const char *p, size_t n, size_t max, uint64_t *value)
{
	if (n == 0)
		return "a number is missing";
	if (n > max)
		return "too many digits";
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return "not a number";
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	*value = v;
	return NULL;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

const char *parse_time_of_day(const char *word, uint64_t *seconds, uint32_t *nanoseconds)
{
	const char *dot = strchr(word, '.');
	const char *end = word + strlen(word);
	const char *error;
	uint64_t s = 0, fraction = 0;
	size_t fraction_digits = 0;
	if (*word == '\0')
		return "empty value";
	if (*word == '-')
		return "negative times are not allowed";
	const char *whole_end = dot ? dot : end;
	if (strchr(word, 'T')) {
		/* YYYY-MM-DDTHH:MM:SS[.F]Z */
		if (end[-1] != 'Z')
			return "a UTC time ends with Z (2024-05-01T12:00:00.5Z)";
		if (dot == NULL)
			whole_end = end - 1;
		uint64_t year, month, day, hour, minute, second;
		if (whole_end - word != 19 || word[4] != '-' || word[7] != '-' || word[10] != 'T' ||
		    word[13] != ':' || word[16] != ':' || digits(word, 4, 4, &year) ||
		    digits(word + 5, 2, 2, &month) || digits(word + 8, 2, 2, &day) ||
		    digits(word + 11, 2, 2, &hour) || digits(word + 14, 2, 2, &minute) ||
		    digits(word + 17, 2, 2, &second))
			return "not a UTC time YYYY-MM-DDTHH:MM:SS[.FRACTION]Z";
		static const unsigned month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
		bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
		if (year < 1970 || month < 1 || month > 12 || day < 1 ||
		    day > month_days[month - 1] - (month == 2 && !leap) || hour > 23 || minute > 59 ||
		    second > 59)
			return "no such date or time (1970 or later, seconds 0..59)";
		s = (uint64_t)days_from_civil((int64_t)year, (unsigned)month, (unsigned)day) * 86400 +
		    hour * 3600 + minute * 60 + second;
		if (dot)
			end--; /* the Z */
	} else if ((error = digits(word, (size_t)(whole_end - word), 15, &s)) != NULL) {
		return strcmp(error, "too many digits") == 0 ? "seconds beyond 2^48 - 1" :
		       "not SECONDS[.FRACTION] or YYYY-MM-DDTHH:MM:SS[.FRACTION]Z";
	}
	if (dot) {
		fraction_digits = (size_t)(end - dot - 1);
		if (fraction_digits > 9) {
			return why("the fraction has %zu digits: nanoseconds must be below 10^9 "
				   "(at most 9 digits)", fraction_digits);
		}
		if ((error = digits(dot + 1, fraction_digits, 9, &fraction)) != NULL)
			return "the fraction after '.' is not 1 to 9 digits";
		for (size_t i = fraction_digits; i < 9; i++)
			fraction *= 10;
	}
	if (s > PKTSTATS_TIME_SECONDS_MAX)
		return "seconds beyond 2^48 - 1";
	*seconds = s;
	*nanoseconds = (uint32_t)fraction;
	return NULL;
}


const char *parse_ppb(const char *word, double *ppb)
{
	const char *p = word;
	if (*p == '+' || *p == '-')
		p++;
	size_t integer = strspn(p, "0123456789");
	p += integer;
	size_t fraction = 0;
	if (*p == '.') {
		fraction = strspn(p + 1, "0123456789");
		if (fraction == 0)
			return "no digits after '.'";
		p += 1 + fraction;
	}
	if (integer == 0 || *p != '\0')
		return "not a number of ppb (12, -0.5, +100000)";
	*ppb = strtod(word, NULL);
	return NULL;
}

const char *parse_rate_gbps(const char *word, uint64_t *mbps)
{
	const char *dot = strchr(word, '.');
	size_t whole_len = dot ? (size_t)(dot - word) : strlen(word);
	char whole[24];
	if (whole_len == 0 || whole_len >= sizeof whole)
		return "not a rate in Gb/s (100, 2.5, 0.1)";
	memcpy(whole, word, whole_len);
	whole[whole_len] = '\0';
	uint64_t g, fraction = 0;
	const char *error = parse_number(whole, 0, 1000000, &g);
	if (error)
		return error;
	if (whole_len > 1 && whole[0] == '0' && (whole[1] == 'x' || whole[1] == 'X'))
		return "not a rate in Gb/s (100, 2.5, 0.1)";
	if (dot) {
		size_t digits = strlen(dot + 1);
		if (digits == 0 || digits > 3 || strspn(dot + 1, "0123456789") != digits)
			return "at most 3 decimals after '.' (a whole number of Mb/s)";
		for (size_t i = 0; i < 3; i++)
			fraction = fraction * 10 + (i < digits ? (uint64_t)(dot[1 + i] - '0') : 0);
	}
	if (g * 1000 + fraction == 0)
		return "the rate is 0";
	*mbps = g * 1000 + fraction;
	return NULL;
}
