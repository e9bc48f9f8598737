#!/usr/bin/env python3
"""Run the pktstats regression and print one summary line: `N passed, N failed, N skipped`.

Each argument is NAME=COMMAND. A command either speaks TAP ("ok 1 - name", "not ok 2 - name",
"ok 3 - name # SKIP why", plan "1..N"), and then every test point counts, or it does not, and
then its exit status counts as one test. A TAP command that exits non-zero without reporting a
failure, or reports fewer points than its plan, counts one more failure, so a crash never
passes. Output goes to build/test-logs/NAME.log; failures print their log's tail.
"""

import os
import re
import subprocess
import sys
import time

TAP_RESULT = re.compile(r"^(not ok|ok)\b(?:\s+\d+)?(?:\s*-\s*)?(.*)$")
TAP_PLAN = re.compile(r"^1\.\.(\d+)")


def run(name, command, log_dir):
    log_path = os.path.join(log_dir, name + ".log")
    start = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.run(command, shell=True, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace")
        log.write(proc.stdout)
    elapsed = time.monotonic() - start

    passed = failed = skipped = 0
    plan = None
    failures = []
    for line in proc.stdout.splitlines():
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
        if proc.returncode == 0:
            passed = 1
        else:
            failed = 1
    else:
        if proc.returncode != 0 and failed == 0:
            failed += 1
            failures.append(f"exited with status {proc.returncode} without reporting a failure")
        if plan is not None and passed + failed + skipped < plan:
            failed += 1
            failures.append(f"reported {passed + failed + skipped} of {plan} planned tests")

    status = "FAIL" if failed else "ok"
    print(f"{status:4} {name:28} {passed:6} passed {failed:3} failed {skipped:3} skipped"
          f"  {elapsed:7.1f} s", flush=True)
    if failed:
        for line in failures[:20]:
            print(f"     {line}")
        tail = proc.stdout.splitlines()[-15:]
        print(f"     --- last lines of {log_path} ---")
        for line in tail:
            print(f"     | {line}")
    return passed, failed, skipped


def main(argv):
    log_dir = os.environ.get("TEST_LOG_DIR", "build/test-logs")
    os.makedirs(log_dir, exist_ok=True)
    totals = [0, 0, 0]
    for arg in argv[1:]:
        name, sep, command = arg.partition("=")
        if not sep:
            print(f"run_tests: bad argument '{arg}', expected NAME=COMMAND", file=sys.stderr)
            return 2
        for i, count in enumerate(run(name, command, log_dir)):
            totals[i] += count
    print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
