#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats -j` of every read verb parses as JSON, and its keys and their types are exactly
the ones docs/cli.md documents ("JSON keys of `pktstats -j VERB`" tables); the text output of
the same verbs works; --help answers at every level; every accepted form of a `capture set`
value reads back as meant (the good-input table, beside test_cli_bad_input.py's bad one).

    tb/cli/test_cli_json.py build/asan/bin/pktstats build/bin/pktstats-sim

Each JSON output is also fed to `python3 -m json.tool`, as a user would. Key paths: `a.b` for
key b of the object under a, `a[].b` for key b of the objects of array a. Numbers with a
fraction are read as decimal.Decimal, digit for digit, so that a `decimal` (time show's `time`)
is checked exactly: seconds + nanoseconds / 10^9, nine decimals. Prints TAP.
"""

import decimal
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import ROOT, Simulator, Tap, run_cli  # noqa: E402

# Read verbs, with the documented table each must match.
READ_VERBS = [
    (["capture", "show"], "capture show"),
    (["timer", "show"], "timer show"),
    (["time", "show"], "time show"),
    (["time", "sync"], "time sync"),
    (["counters", "show"], "counters show"),
    (["queue", "show"], "queue show"),
    (["queue", "show", "5"], "queue show"),
    (["fdb", "show"], "fdb show"),
    (["fdb", "show", "all"], "fdb show"),
    (["dev", "show"], "dev show"),
    (["reg", "read", "evcap.control"], "reg read"),
    (["reg", "read", "evcap.destination_mac"], "reg read"),
    (["reg", "read", "0x1054"], "reg read"),  # high word of the timer: no 32-bit name
    (["reg", "list"], "reg list"),
]

# (keyword, word, JSON key, value capture show must give): every accepted form of a value.
GOOD_INPUTS = [
    ("resolution", "5", "resolution", 5),
    ("resolution", "c=3", "resolution", 3),
    ("resolution", "1024ns", "resolution", 7),
    ("resolution", "8ns", "resolution", 0),
    ("queues", "0,2-4", "queues", [0, 2, 3, 4]),
    ("queues", "0x15", "queues", [0, 2, 4]),
    ("queues", "none", "queues", []),
    ("queues", "all", "queues", list(range(8))),
    ("events", "drop,arrival", "events", ["arrival", "drop"]),
    ("events", "0x2", "events", ["departure"]),
    ("output-ports", "7", "output_ports", [7]),
    ("dst-mac", "AA:bb:0c:D:ee:0F", "dst_mac", "aa:bb:0c:0d:ee:0f"),
    ("src-ip", "255.0.10.1", "src_ip", "255.0.10.1"),
    ("tos", "0xb8", "tos", 184),
    ("ttl", "255", "ttl", 255),
    ("dst-port", "0x6999", "dst_port", 27033),
    ("max-length", "86", "max_length", 86),
    ("max-length", "9000", "max_length", 9000),
    ("flush-timeout", "1.5ms", "flush_timeout", 1500000),
    ("flush-timeout", "125000cycles", "flush_timeout", 1000000),
    ("flush-timeout", "34.359738360s", "flush_timeout", 34359738360),
    ("flush-timeout", "never", "flush_timeout", 0),
]

TYPES = {
    "number": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "real": lambda v: isinstance(v, (int, decimal.Decimal)) and not isinstance(v, bool),
    # a number with its fraction written out (parsed as a Decimal, never through a double)
    "decimal": lambda v: isinstance(v, decimal.Decimal),
    "boolean": lambda v: isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "string or null": lambda v: v is None or isinstance(v, str),
    "number or null": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)
                                              and v >= 0),
    "array of numbers": lambda v: isinstance(v, list) and all(
        isinstance(x, int) and not isinstance(x, bool) for x in v),
    "array of strings": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
}


def exact_time(value):
    """time show: `time` is seconds + nanoseconds / 10^9 exactly, with nine decimals."""
    t = value.get("time")
    return isinstance(t, decimal.Decimal) and t.as_tuple().exponent == -9 and \
        t == value["seconds"] + decimal.Decimal(value["nanoseconds"]).scaleb(-9)


# Checks of values beyond their types, by table.
EXACT = {"time show": (exact_time, "time is seconds + nanoseconds / 10^9 exactly, nine decimals")}


def documented_keys():
    """{verb: {path: type}} from docs/cli.md."""
    tables = {}
    current = None
    with open(os.path.join(ROOT, "docs/cli.md")) as doc:
        for line in doc:
            m = re.match(r"#+ JSON keys of `pktstats -j ([a-z ]+)`", line)
            if m:
                current = tables.setdefault(m.group(1), {})
                continue
            if line.startswith("#"):
                current = None
            m = re.match(r"\| `([a-z_.\[\]]+)` \| ([a-z ]+?) \|", line)
            if m and current is not None:
                current[m.group(1)] = m.group(2)
    return tables


def flatten(value, prefix, into):
    """Leaf paths of a JSON value: objects by key, arrays of objects as []."""
    if isinstance(value, dict):
        for key, sub in value.items():
            flatten(sub, prefix + "." + key if prefix else key, into)
    elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        for item in value:
            flatten(item, prefix + "[]", into)
    else:
        into.setdefault(prefix, []).append(value)
    return into


def main():
    if len(sys.argv) != 3:
        print("usage: %s PKTSTATS PKTSTATS-SIM" % sys.argv[0], file=sys.stderr)
        return 2
    pktstats, sim_binary = (os.path.abspath(a) for a in sys.argv[1:])
    tap = Tap()
    docs = documented_keys()
    tap.point(len(docs) == 10, "docs/cli.md documents the keys of 10 read verbs (%s)"
              % ", ".join(sorted(docs)))

    # Help at every level, without a device.
    run = run_cli  # without a device
    for args in (["--help"], ["-h"], ["help"]):
        status, out, err = run(pktstats, args)
        tap.point(status == 0 and "Objects:" in out and not err,
                  "pktstats %s prints the objects" % " ".join(args), err)
    with_objects = re.findall(r"^  (\w+)\s+([\w|]+)\s", run(pktstats, ["--help"])[1], re.M)
    for obj, verbs in with_objects:
        status, out, err = run(pktstats, [obj, "--help"])
        tap.point(status == 0 and ("pktstats %s" % obj) in out and not err,
                  "pktstats %s --help" % obj, err)
        for verb in verbs.split("|"):
            status, out, err = run(pktstats, [obj, verb, "--help"])
            tap.point(status == 0 and out.startswith("usage: pktstats [OPTIONS] %s %s" % (obj, verb))
                      and not err, "pktstats %s %s --help" % (obj, verb), out + err)
            # `help` in place of the object or the verb: the same text (ip(8)'s way)
            forms = [["help", obj, verb], [obj, "help", verb]]
            for form in forms:
                got = run(pktstats, form)
                tap.point(got == (0, out, ""), "pktstats %s is %s %s --help"
                          % (" ".join(form), obj, verb), got[1] + got[2])
        object_help = run(pktstats, [obj, "--help"])
        for form in (["help", obj], [obj, "help"]):
            got = run(pktstats, form)
            tap.point(got == object_help and got[0] == 0, "pktstats %s is %s --help"
                      % (" ".join(form), obj), got[1] + got[2])
    for command in ("decode", "record", "plot"):  # commands by themselves: no verb
        want = run(pktstats, [command, "--help"])
        got = run(pktstats, ["help", command])
        tap.point(got == want and got[0] == 0 and ("pktstats [OPTIONS] %s" % command) in got[1],
                  "pktstats help %s is %s --help" % (command, command), got[1] + got[2])

    with tempfile.TemporaryDirectory(prefix="pktstats-cli-json.") as work:
        sim = Simulator(sim_binary, work)
        try:
            # Something in every list: a table entry, a queue limit.
            status, out, err = run_cli(pktstats, ["fdb", "add", "02:00:00:00:00:07", "port", "6",
                                                  "static"], device=sim.device)
            tap.point(status == 0, "setup: fdb add", err)
            # A time of day with more digits than a double holds (time show's `time`, exact)
            status, out, err = run_cli(pktstats, ["time", "set", "1764072000.500737188"],
                                       device=sim.device)
            tap.point(status == 0, "setup: time set 1764072000.500737188", err)
            for args, table in READ_VERBS:
                name = "pktstats -j " + " ".join(args)
                status, out, err = run_cli(pktstats, ["-j"] + args, device=sim.device)
                if not tap.point(status == 0 and not err and out.endswith("\n")
                                 and out.count("\n") == 1, name + ": exit 0, one line",
                                 "status %s\n%s%s" % (status, out, err)):
                    continue
                tool = subprocess.run([sys.executable, "-m", "json.tool"], input=out,
                                      capture_output=True, text=True)
                tap.point(tool.returncode == 0, name + ": python3 -m json.tool parses it",
                          tool.stderr + out)
                try:
                    value = json.loads(out, parse_float=decimal.Decimal)
                except ValueError as e:
                    tap.point(False, name + ": keys as documented", str(e))
                    continue
                got = flatten(value, "", {})
                want = docs.get(table, {})
                missing = sorted(set(want) - set(got))
                extra = sorted(set(got) - set(want))
                tap.point(isinstance(value, dict) and not missing and not extra,
                          name + ": keys are the documented ones (%d)" % len(want),
                          "missing %s, undocumented %s" % (missing, extra))
                wrong = [k for k in got if k in want and
                         not all(TYPES[want[k]](v) for v in got[k])]
                tap.point(not wrong, name + ": values have the documented types",
                          "; ".join("%s: %r is not %s" % (k, got[k], want[k]) for k in wrong))
                if table in EXACT:
                    check, what = EXACT[table]
                    tap.point(check(value), "%s: %s" % (name, what), out)
                # The text form of the same verb.
                status, text, err = run_cli(pktstats, args, device=sim.device)
                tap.point(status == 0 and text and not err, "pktstats %s: text output"
                          % " ".join(args), err)

            # Good inputs in every accepted form, read back through -j.
            for keyword, word, key, value in GOOD_INPUTS:
                status, out, err = run_cli(pktstats, ["capture", "set", keyword, word],
                                           device=sim.device)
                shown = None
                if status == 0:
                    shown = json.loads(run_cli(pktstats, ["-j", "capture", "show"],
                                               device=sim.device)[1])[key]
                tap.point(status == 0 and shown == value, "capture set %s %s reads back as %r"
                          % (keyword, word, value), "status %s %s, shown %r" % (status, err, shown))
        finally:
            sim.kill()
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
