// SPDX-License-Identifier: BSD-3-Clause
/*
 * What the Verilator harnesses share around their tests: the command line, the seeds of the
 * randomized cases and TAP output (scripts/run_tests.py counts the TAP lines).
 *
 *   --seed N     run the randomized cases with seed N only (replays a run)
 *   --cycles N   clocks of the randomized cases: a whole number, plain (1000000, 0x100) or
 *                with a decimal exponent (1e6, 5e7, 2.5E6)
 *   --only NAME  run only the cases named NAME
 *   --list       print the cases' names, run nothing
 *
 * plus any on/off flags of the harness's own. A bad argument prints the usage and exits 2.
 *
 * A case returns its outcome: empty when it passed, "SKIP why" when it was skipped, otherwise
 * the failure. Each prints "ok N - name", "ok N - name # SKIP why" or "not ok N - name # why";
 * the plan "1..N" comes last, and the exit status is 1 when a case failed.
 *
 *     tap::Options options = tap::parse(argc, argv, 200000);
 *     std::vector<tap::Test> tests = {{"fairness", test_fairness}, ...};
 *     for (uint64_t seed : tap::seeds(options, {1, 2, 3}))  // fixed seeds + the time
 *             tests.push_back(tap::seeded(options, "random", seed, options.cycles, test_random));
 *     return tap::run(tests, options);
 *
 * A harness that runs one scenario and reports checks along it as it goes uses tap::Tally
 * (and tap::seed_option() when it is randomized) instead.
 */
#ifndef PKTSTATS_TB_TAP_RUNNER_H
#define PKTSTATS_TB_TAP_RUNNER_H

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace tap {

using Result = std::string;

struct Test {
	std::string name;
	std::function<Result()> run;
};

// A harness's own on/off option, e.g. {"--bench", &bench}.
struct Flag {
	const char *name;
	bool *set;
};

struct Options {
	uint64_t seed = 0;
	bool seed_given = false;
	uint64_t cycles = 0;
	bool cycles_given = false;
	const char *only = nullptr;
	bool list = false;
};

namespace detail {

// A whole number below 2^64 written plainly (strtoull, base 0: 1000000, 0x100); false for
// anything else.
inline bool parse_plain(const char *text, uint64_t *value)
{
	char *end = nullptr;
	errno = 0;
	*value = strtoull(text, &end, 0);
	return *text && !*end && *text != '-' && !errno;
}

// A count: plain, or a decimal mantissa and a decimal exponent of at most three digits (5e7,
// 2.5E6) whose value is a whole number below 2^64; false for anything else (a sign, 1.5e0,
// 1e20, 5e).
inline bool parse_count(const char *text, uint64_t *value)
{
	const char *e = strpbrk(text, "eE");
	if (!e || (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')))
		return parse_plain(text, value);
	uint64_t mantissa = 0;
	int exponent = 0; // of ten, applied to the mantissa's digits with the point dropped
	bool digits = false, point = false;
	for (const char *c = text; c < e; c++) {
		if (*c == '.' && !point) {
			point = true;
			continue;
		}
		if (*c < '0' || *c > '9' || __builtin_mul_overflow(mantissa, 10u, &mantissa) ||
		    __builtin_add_overflow(mantissa, (uint64_t)(*c - '0'), &mantissa))
			return false;
		digits = true;
		exponent -= point;
	}
	size_t written = strlen(e + 1);
	if (!digits || written == 0 || written > 3 || strspn(e + 1, "0123456789") != written)
		return false;
	for (exponent += atoi(e + 1); exponent < 0; exponent++) {
		if (mantissa % 10)
			return false; // not a whole number
		mantissa /= 10;
	}
	for (; exponent > 0; exponent--)
		if (__builtin_mul_overflow(mantissa, 10u, &mantissa))
			return false;
	*value = mantissa;
	return true;
}

// Parses --seed N (and, for a harness with named cases, --cycles N, --only NAME, --list) and
// `flags`; exits 2 with the usage on anything else.
inline Options parse(int argc, char **argv, bool cases, uint64_t default_cycles,
		     const std::vector<Flag> &flags)
{
	std::string usage = cases ? "[--seed N] [--cycles N] [--only NAME] [--list]" : "[--seed N]";
	for (const Flag &flag : flags)
		usage += std::string(" [") + flag.name + "]";
	auto bad = [&](const std::string &why) {
		fprintf(stderr, "%s: %s\nusage: %s %s\n", argv[0], why.c_str(), argv[0], usage.c_str());
		exit(2);
	};
	auto number = [&](int i) {
		uint64_t value = 0;
		if (!parse_plain(argv[i + 1], &value))
			bad(std::string("bad number '") + argv[i + 1] + "' for " + argv[i]);
		return value;
	};
	auto count = [&](int i) {
		uint64_t value = 0;
		if (!parse_count(argv[i + 1], &value))
			bad(std::string("bad count '") + argv[i + 1] + "' for " + argv[i] +
			    ": a whole number below 2^64, such as 1000000, 1e6 or 5e7");
		return value;
	};

	Options options;
	options.cycles = default_cycles;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		bool with_value = !strcmp(arg, "--seed") || (cases && (!strcmp(arg, "--cycles") ||
								      !strcmp(arg, "--only")));
		if (with_value && i + 1 >= argc)
			bad(std::string(arg) + " needs a value");
		const Flag *flag = nullptr;
		for (const Flag &f : flags)
			if (!strcmp(arg, f.name))
				flag = &f;
		if (!strcmp(arg, "--seed")) {
			options.seed = number(i++);
			options.seed_given = true;
		} else if (cases && !strcmp(arg, "--cycles")) {
			options.cycles = count(i++);
			options.cycles_given = true;
		} else if (cases && !strcmp(arg, "--only")) {
			options.only = argv[++i];
		} else if (cases && !strcmp(arg, "--list")) {
			options.list = true;
		} else if (flag) {
			*flag->set = true;
		} else {
			bad(std::string("unknown argument '") + arg + "'");
		}
	}
	return options;
}

inline void print(bool ok, unsigned number, const std::string &name, const std::string &comment)
{
	printf("%s %u - %s%s%s\n", ok ? "ok" : "not ok", number, name.c_str(),
	       comment.empty() ? "" : " # ", comment.c_str());
}

} // namespace detail

// The command line of a harness with named cases; `default_cycles` unless --cycles.
inline Options parse(int argc, char **argv, uint64_t default_cycles,
		     const std::vector<Flag> &flags = {})
{
	return detail::parse(argc, argv, true, default_cycles, flags);
}

// The seeds of the randomized cases: the harness's fixed ones plus the time, so that every run
// also tries a new one; only N with --seed N.
inline std::vector<uint64_t> seeds(const Options &options, std::vector<uint64_t> fixed)
{
	if (options.seed_given)
		return {options.seed};
	fixed.push_back((uint64_t)time(nullptr));
	return fixed;
}

// A randomized case: prints "# NAME seed S cycles C (replay: --seed S --only NAME)" before it
// runs `body(S, C)`.
inline Test seeded(const Options &options, const std::string &name, uint64_t seed, uint64_t cycles,
		   std::function<Result(uint64_t seed, uint64_t cycles)> body)
{
	std::string replay = "--seed " + std::to_string(seed) + " --only " + name;
	if (options.cycles_given)
		replay += " --cycles " + std::to_string(options.cycles);
	return {name, [=]() {
		printf("# %s seed %" PRIu64 " cycles %" PRIu64 " (replay: %s)\n", name.c_str(), seed,
		       cycles, replay.c_str());
		fflush(stdout);
		return body(seed, cycles);
	}};
}

// Runs the cases (or lists them with --list) and returns the exit status: 0 when all passed,
// 1 when one failed, 2 when --only names no case.
inline int run(const std::vector<Test> &tests, const Options &options)
{
	unsigned number = 0, failed = 0;
	bool found = false;
	for (const Test &test : tests) {
		if (options.only && test.name != options.only)
			continue;
		found = true;
		if (options.list) {
			printf("%s\n", test.name.c_str());
			continue;
		}
		number++;
		fflush(stdout);
		Result result = test.run();
		bool ok = result.empty() || result.rfind("SKIP ", 0) == 0;
		failed += !ok;
		detail::print(ok, number, test.name, result);
		fflush(stdout);
	}
	if (options.only && !found) {
		fprintf(stderr, "no case named '%s' (--list names them)\n", options.only);
		return 2;
	}
	if (!options.list)
		printf("1..%u\n", number);
	return failed ? 1 : 0;
}

// For a harness that runs one scenario: its seed, N with --seed N, otherwise the time; printed.
inline uint64_t seed_option(int argc, char **argv)
{
	Options options = detail::parse(argc, argv, false, 0, {});
	uint64_t seed = options.seed_given ? options.seed : (uint64_t)time(nullptr);
	printf("# seed %" PRIu64 "\n", seed);
	return seed;
}

// Checks reported one by one as TAP points along a scenario; finish() prints the plan.
//
//     tap::Tally report;
//     report(bus.read(0) == 1, "the first word reads 1");
//     return report.finish();
struct Tally {
	unsigned number = 0, failed = 0;

	// `why` follows the name on a failure's line.
	void operator()(bool ok, const std::string &name, const std::string &why = "")
	{
		number++;
		failed += !ok;
		detail::print(ok, number, name, ok ? "" : why);
		fflush(stdout);
	}

	// The exit status.
	int finish()
	{
		printf("1..%u\n", number);
		return failed ? 1 : 0;
	}
};

} // namespace tap

#endif
