#!/usr/bin/env python3
"""Run the pktstats regression and print one summary line: `N passed, N failed, N skipped`.

usage: run_tests.py [--jobs N] [--build COMMAND] [--no-build NAME]... [--cores NAME=N]...
                    NAME=COMMAND...

Each NAME=COMMAND is a test. A command either speaks TAP ("ok 1 - name", "not ok 2 - name",
"ok 3 - name # SKIP why", plan "1..N"), and then every test point counts, or it does not, and
then its exit status counts as one test. A TAP command that exits non-zero without reporting a
failure, or reports fewer points than its plan, counts one more failure, so a crash never
passes. Output goes to build/test-logs/NAME.log; failures print their log's tail.

With --build, the build runs first, on every core; if it fails, only the tests named by
--no-build run (they need nothing it makes) and each other counts as a failure. Then the tests
run the longest first, with as many cores busy as --jobs (default: the cores) and no more: a
test keeps one core busy, or N with --cores NAME=N (the proofs run their own N threads). Never
more: the proofs' time limits are wall-clock ones, and a proof that shares its core with a
build or another test runs out of them. The times are the last run's
(build/test-logs/times.json) or, on a fresh clone, scripts/test_times.json; a test neither
knows is taken for a long one. Each test's result is printed as it ends; at the end, the ten
slowest.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

TAP_RESULT = re.compile(r"^(not ok|ok)\b(?:\s+\d+)?(?:\s*-\s*)?(.*)$")
TAP_PLAN = re.compile(r"^1\.\.(\d+)")
HERE = os.path.dirname(os.path.abspath(__file__))
print_lock = threading.Lock()


def count(output, returncode):
    """(passed, failed, skipped, failure lines) of one test's output and exit status."""
    passed = failed = skipped = 0
    plan = None
    failures = []
    for line in output.splitlines():
        match = TAP_RESULT.match(line)
        if match:
            if match.group(1) == "ok":
                if re.search(r"#\s*SKIP", line, re.IGNORECASE):
                    skipped += 1
                else:
                    passed += 1
            else:
                failed += 1
                failures.append(line)
            continue
        match = TAP_PLAN.match(line)
        if match:
            plan = int(match.group(1))

    tap = passed + failed + skipped > 0 or plan is not None
    if not tap:
        if returncode == 0:
            passed = 1
        else:
            failed = 1
    else:
        if returncode != 0 and failed == 0:
            failed += 1
            failures.append(f"exited with status {returncode} without reporting a failure")
        if plan is not None and passed + failed + skipped < plan:
            failed += 1
            failures.append(f"reported {passed + failed + skipped} of {plan} planned tests")
    return passed, failed, skipped, failures


def report(name, result, elapsed, log_path, output):
    passed, failed, skipped, failures = result
    lines = [f"{'FAIL' if failed else 'ok':4} {name:28} {passed:6} passed {failed:3} failed "
             f"{skipped:3} skipped  {elapsed:7.1f} s"]
    if failed:
        lines += [f"     {line}" for line in failures[:20]]
        if output:
            lines.append(f"     --- last lines of {log_path} ---")
            lines += [f"     | {line}" for line in output.splitlines()[-15:]]
    with print_lock:
        print("\n".join(lines), flush=True)


running = set()  # the tests' processes, each the leader of its own process group


def stop_all(signum, _frame):
    """SIGINT or SIGTERM: every running test's process group goes too (each has its own
    session, so the terminal's signal does not reach them), then the runner."""
    for proc in list(running):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    print(f"run_tests: stopped by signal {signum}", file=sys.stderr, flush=True)
    os._exit(128 + signum)


def run(name, command, log_dir, tap=True):
    """Runs one test (tap: its output may speak TAP; else only its exit status counts);
    returns (passed, failed, skipped, failures), its time."""
    log_path = os.path.join(log_dir, name + ".log")
    start = time.monotonic()
    # Its own session: a test that leaves a process behind does not hold the others' output
    proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, errors="replace",
                            start_new_session=True)
    running.add(proc)
    output, _ = proc.communicate()
    running.discard(proc)
    elapsed = time.monotonic() - start
    with open(log_path, "w") as log:
        log.write(output)
    result = count(output if tap else "", proc.returncode)
    report(name, result, elapsed, log_path, output)
    return result, elapsed


def run_all(tests, cores, jobs, log_dir):
    """Runs the tests in order, each as soon as its cores are free (a test of more cores than
    jobs alone), none overtaking: {name: (result, time)}."""
    done = threading.Condition()
    busy = 0
    results = {}

    def work(name, command, n):
        nonlocal busy
        outcome = run(name, command, log_dir)
        with done:
            busy -= n
            results[name] = outcome
            done.notify_all()

    threads = []
    for name, command in tests:
        n = min(cores.get(name, 1), jobs)
        with done:
            done.wait_for(lambda: busy + n <= jobs)
            busy += n
        thread = threading.Thread(target=work, args=(name, command, n))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return results


def known_times(log_dir):
    """Seconds by test name: the committed table, then the last run's over it."""
    times = {}
    for path in (os.path.join(HERE, "test_times.json"), os.path.join(log_dir, "times.json")):
        try:
            with open(path) as f:
                times.update({k: float(v) for k, v in json.load(f).items()})
        except (OSError, ValueError, AttributeError):
            pass
    return times


def main(argv):
    parser = argparse.ArgumentParser(description="Run the pktstats regression.")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="tests at a time (default: the cores)")
    parser.add_argument("--build", help="the command that builds what the tests need")
    parser.add_argument("--no-build", action="append", default=[], metavar="NAME",
                        help="a test that needs nothing --build makes (runs if it fails)")
    parser.add_argument("--cores", action="append", default=[], metavar="NAME=N",
                        help="the cores a test keeps busy (default 1)")
    parser.add_argument("tests", nargs="*", metavar="NAME=COMMAND")
    args = parser.parse_args(argv[1:])
    if args.jobs < 1:
        print(f"run_tests: --jobs {args.jobs}: must be 1 or more", file=sys.stderr)
        return 2
    tests = []
    for arg in args.tests:
        name, sep, command = arg.partition("=")
        if not sep or not name:
            print(f"run_tests: bad argument '{arg}', expected NAME=COMMAND", file=sys.stderr)
            return 2
        tests.append((name, command))
    names = [name for name, _ in tests]
    cores = {}
    for arg in args.cores:
        name, _, n = arg.partition("=")
        if name not in names or not n.isdigit() or int(n) < 1:
            print(f"run_tests: --cores '{arg}': expected NAME=N, a test and 1 or more",
                  file=sys.stderr)
            return 2
        cores[name] = int(n)
    unknown = sorted(set(args.no_build) - set(names))
    if unknown or len(set(names)) != len(names):
        what = f"--no-build names no test: {', '.join(unknown)}" if unknown else "a test named twice"
        print(f"run_tests: {what}", file=sys.stderr)
        return 2

    signal.signal(signal.SIGINT, stop_all)
    signal.signal(signal.SIGTERM, stop_all)
    log_dir = os.environ.get("TEST_LOG_DIR", "build/test-logs")
    os.makedirs(log_dir, exist_ok=True)
    times = known_times(log_dir)
    longest = max(times.values(), default=0.0) + 1
    # The longest first; one no time is known of before them all (it may be long)
    order = sorted(tests, key=lambda t: -times.get(t[0], longest))

    wall_start = time.monotonic()
    results = {}
    build_ok = True
    if args.build:
        build_result, _ = run("build", args.build, log_dir, False)
        build_ok = build_result[1] == 0
    if not build_ok:
        for name, _ in order:
            if name not in args.no_build:
                result = (0, 1, 0, ["not run: the build failed"])
                report(name, result, 0.0, os.path.join(log_dir, "build.log"), "")
                results[name] = (result, 0.0)
        order = [t for t in order if t[0] in args.no_build]
    results.update(run_all(order, cores, args.jobs, log_dir))
    wall = time.monotonic() - wall_start

    measured = {name: round(elapsed, 1) for name, (_, elapsed) in results.items() if elapsed > 0}
    try:  # the tests not run this time keep their last time
        with open(os.path.join(log_dir, "times.json"), "w") as f:
            json.dump(dict(sorted({**times, **measured}.items())), f, indent=1)
    except OSError:
        pass
    slowest = sorted(measured.items(), key=lambda item: -item[1])[:10]
    print(f"the ten slowest: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in slowest))
    print(f"{len(results)} tests on {args.jobs} jobs in {wall:.0f} s")
    totals = [sum(result[i] for result, _ in results.values()) for i in range(3)]
    if not build_ok:
        totals[1] += 1  # the build itself
    print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
