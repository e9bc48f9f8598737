#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-exporter's alerting rules under promtool (/usr/bin/promtool, `make deps`):

    tb/exporter/test_alert_rules.py [RULES [TESTS]]
        RULES  default sw/tools/exporter/pktstats-alerts.yml
        TESTS  default tb/exporter/pktstats-alerts.test.yml

  - `promtool check rules RULES`: exit 0, as many rules found as the file has;
  - every alert has a `for:`, a `severity` label (critical, warning or info), and `summary` and
    `description` annotations, the summary naming a label through a template;
  - TESTS's own rule_files names RULES (so that `promtool test rules TESTS` by hand tests the
    same rules), and every alert of RULES is the alertname of at least one alert_rule_test;
  - each test group of TESTS run alone (`promtool test rules` on a file holding that group,
    with rule_files set to RULES): one TAP point per group, `not ok` with promtool's report
    when it fails (promtool itself only reports per file);
  - mutants: for every alert, its expr replaced by one that never fires, and its `for:` set to
    0s, in a copy of RULES: the test groups must fail on each (so each alert is tested firing,
    and tested not firing while pending).

The YAML is read line by line (no YAML library in the standard library): test groups are the
items of the top-level `tests:` list, so an anchor must be used within its own group; an
alert's `expr:` is one line or a block scalar (`|`, `>-`, ...). Bounded: 120 s alarm.
promtool's reports (2.42): `check rules` prints `Checking FILE` and `  SUCCESS: N rules found`
on stdout, exit 0; `test rules` prints `Unit Testing:  FILE` and `  SUCCESS` on stdout, exit 0,
or `  FAILED:` and one entry per failed check on stderr (`name: GROUP, alertname: A, time: T,
exp: [...], got: [...]`), exit 1. Prints TAP.
"""

import os
import re
import shutil
import signal
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
from tap_output import Tap  # noqa: E402
from prometheus import PROMTOOL, promtool  # noqa: E402

DEFAULT_RULES = os.path.join(ROOT, "sw", "tools", "exporter", "pktstats-alerts.yml")
DEFAULT_TESTS = os.path.join(ROOT, "tb", "exporter", "pktstats-alerts.test.yml")
NEVER = "vector(1) == 0"    # an expression with no result: the alert cannot fire


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _content(line):
    """A line that is neither blank nor a comment."""
    s = line.strip()
    return s and not s.startswith("#")


def _unquote(s):
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


def split_tests(text):
    """TESTS as (header lines without rule_files, [(group name, group lines)])."""
    lines = text.splitlines(keepends=True)
    top = [i for i, l in enumerate(lines) if l[:1] not in (" ", "\t", "#", "\n", "") and l.strip()]
    start = next((i for i in top if re.match(r"tests:\s*(#.*)?$", lines[i])), None)
    if start is None:
        raise ValueError("no top-level `tests:` in the test file")
    end = next((i for i in top if i > start), len(lines))
    header = []
    skipping = False
    for i, line in enumerate(lines[:start] + lines[end:]):
        if line[:1] not in (" ", "\t") and line.strip() and not line.startswith("#"):
            skipping = line.startswith("rule_files:")
        if not skipping:
            header.append(line)
    body = [l for l in lines[start + 1:end]]
    first = next((l for l in body if _content(l)), None)
    if first is None or not first.lstrip().startswith("- "):
        raise ValueError("`tests:` is not a list of test groups")
    item = _indent(first)
    groups = []
    for line in body:
        if _content(line) and _indent(line) == item and line.lstrip().startswith("- "):
            groups.append([])
        if groups:
            groups[-1].append(line)
    named = []
    for n, g in enumerate(groups, 1):
        name = None
        for line in g:
            m = re.match(r"\s*(?:- )?name:\s*(.*?)\s*$", line)
            if m and _indent(line.replace("- ", "  ", 1)) == item + 2:
                name = _unquote(m.group(1))
                break
        named.append((name or "test group %d (no name)" % n, g))
    return header, named


def rule_files_of(text):
    """The entries of TESTS's top-level rule_files list."""
    out, inside = [], False
    for line in text.splitlines():
        if line[:1] not in (" ", "\t", "#") and line.strip():
            inside = line.startswith("rule_files:")
            continue
        m = re.match(r"\s+-\s*(.+?)\s*$", line)
        if inside and m:
            out.append(_unquote(m.group(1)))
    return out


def alerts_of(text):
    """RULES's alerts: {name: (first line, end line, indent)} in the order of the file."""
    lines = text.splitlines(keepends=True)
    alerts = {}
    for i, line in enumerate(lines):
        m = re.match(r"(\s*)- alert:\s*(\S+)", line)
        if not m:
            continue
        ind = len(m.group(1))
        end = next((j for j in range(i + 1, len(lines))
                    if _content(lines[j]) and _indent(lines[j]) <= ind), len(lines))
        while end > i + 1 and not _content(lines[end - 1]):
            end -= 1
        alerts[_unquote(m.group(2))] = (i, end, ind)
    return alerts


def _key(lines, i, end, ind, key):
    """The span [a, b) of `key:` (at the alert's key indent, ind + 2) and its value lines."""
    for a in range(i, end):
        line = lines[a].replace("- ", "  ", 1) if a == i else lines[a]
        if _indent(line) == ind + 2 and re.match(r"\s*%s:" % key, line):
            b = a + 1
            while b < end and (not _content(lines[b]) or _indent(lines[b]) > ind + 2):
                b += 1
            return a, b
    return None


def alert_block(text, name):
    lines = text.splitlines(keepends=True)
    i, end, ind = alerts_of(text)[name]
    return "".join(lines[i:end])


def replace_key(text, name, key, value):
    """RULES with alert `name`'s `key:` (expr, for) replaced by `key: value`."""
    lines = text.splitlines(keepends=True)
    i, end, ind = alerts_of(text)[name]
    span = _key(lines, i, end, ind, key)
    if span is None:
        raise ValueError("alert %s has no %s:" % (name, key))
    a, b = span
    lead = lines[a][:len(lines[a]) - len(lines[a].lstrip())]
    if a == i:
        raise ValueError("alert %s: %s on the `- alert:` line" % (name, key))
    return "".join(lines[:a] + ["%s%s: %s\n" % (lead, key, value)] + lines[b:])


def alert_problems(block):
    """What an alert block lacks of the conventions."""
    problems = []
    if not re.search(r"^\s+for:\s*\d+[smhdwy]", block, re.M):
        problems.append("no `for:`")
    m = re.search(r"^\s+severity:\s*(\S+)", block, re.M)
    if not m or _unquote(m.group(1)) not in ("critical", "warning", "info"):
        problems.append("no severity label critical, warning or info")
    for key in ("summary", "description"):
        if not re.search(r"^\s+%s:" % key, block, re.M):
            problems.append("no %s annotation" % key)
    summary = re.search(r"^\s+summary:\s*(.*)$", block, re.M)
    if summary and "$labels." not in summary.group(1):
        problems.append("the summary names no label ({{ $labels.NAME }})")
    return problems


def group_file(work, header, rules, name, group, n):
    path = os.path.join(work, "group-%02d.test.yml" % n)
    with open(path, "w") as f:
        f.write("# %s\nrule_files:\n  - '%s'\n" % (name, rules.replace("'", "''")))
        f.write("".join(header))
        f.write("\ntests:\n")
        f.write("".join(group))
    return path


def alarm(signum, frame):
    raise TimeoutError("test_alert_rules: over 120 s")


def main():
    rules = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_RULES)
    tests = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else DEFAULT_TESTS)
    if not os.access(PROMTOOL, os.X_OK):
        print("1..0 # SKIP %s is not installed (make deps)" % PROMTOOL)
        return 0
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(120)
    tap = Tap()
    work = tempfile.mkdtemp(prefix="test_alert_rules.")
    try:
        run(tap, rules, tests, work)
    except Exception as e:
        tap.point(False, "no exception", "%s: %s" % (type(e).__name__, e))
    finally:
        signal.alarm(0)
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


def run(tap, rules, tests, work):
    with open(rules) as f:
        rules_text = f.read()
    with open(tests) as f:
        tests_text = f.read()
    alerts = alerts_of(rules_text)
    n_rules = len(re.findall(r"^\s*- (?:alert|record):", rules_text, re.M))

    rc, out, err = promtool("check", "rules", rules)
    tap.point(rc == 0 and "SUCCESS: %d rules found" % n_rules in out,
              "promtool check rules %s: %d rules, no problem" % (os.path.basename(rules), n_rules),
              "exit %d\n%s%s" % (rc, out, err))

    for name in alerts:
        problems = alert_problems(alert_block(rules_text, name))
        tap.point(not problems, "%s: for, severity, summary naming a label, description" % name,
                  "; ".join(problems))

    named = [os.path.realpath(os.path.join(os.path.dirname(tests), r))
             for r in rule_files_of(tests_text)]
    tap.point(named == [os.path.realpath(rules)],
              "%s's rule_files is %s" % (os.path.basename(tests), os.path.basename(rules)),
              "rule_files %r, rules %r" % (named, rules))
    tested = set(re.findall(r"^\s*(?:- )?alertname:\s*(\S+)", tests_text, re.M))
    untested = [a for a in alerts if a not in tested]
    tap.point(not untested, "every alert is the alertname of an alert_rule_test",
              "untested: %s" % ", ".join(untested))

    header, groups = split_tests(tests_text)
    tap.comment("%d alerts, %d test groups" % (len(alerts), len(groups)))
    files = [group_file(work, header, rules, name, g, n)
             for n, (name, g) in enumerate(groups, 1)]
    for (name, _), path in zip(groups, files):
        rc, out, err = promtool("test", "rules", path)
        tap.point(rc == 0 and "SUCCESS" in out, "promtool test rules: %s" % name,
                  "exit %d\n%s%s" % (rc, err, out))   # the report first: Tap shows 30 lines

    # Mutants: each must make the tests fail (all groups in one promtool run per mutant).
    mutant_rules = os.path.join(work, "mutant-rules.yml")
    everything = group_file(work, header, mutant_rules, "all groups",
                            [l for _, g in groups for l in g], 0)
    for name in alerts:
        for what, key, value in (("its expr never firing", "expr", NEVER),
                                 ("its for: 0s", "for", "0s")):
            with open(mutant_rules, "w") as f:
                f.write(replace_key(rules_text, name, key, value))
            # a mutant that does not load would fail the tests for the wrong reason
            valid = promtool("check", "rules", mutant_rules)
            rc, out, err = promtool("test", "rules", everything)
            caught = sorted(set(re.findall(r"name: (.*),\n", err)))
            tap.point(valid[0] == 0 and rc == 1 and "FAILED" in err and
                      "alertname: %s," % name in err,
                      "mutant %s with %s: the tests fail%s" %
                      (name, what, " (%s)" % "; ".join(caught) if caught else ""),
                      "check rules: exit %d %s%s\ntest rules: exit %d\n%s%s"
                      % (valid + (rc, out, err)))


if __name__ == "__main__":
    sys.exit(main())
