#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The pktstats CLI's bad-input table: malformed invocations against a running simulator.

    tb/cli/test_cli_bad_input.py build/asan/bin/pktstats build/bin/pktstats-sim

Each invocation must exit with its expected status (2: usage error, 1: runtime failure), print
nothing on stdout and exactly one line on stderr, "pktstats: ...", that names the problem (a
pattern per case), within a time limit; and every rw register of the device must read as
before (snapshot through the simulator's socket, compared after each case). The device is set
to a non-default configuration first (through the CLI), so that a bad `capture set` that wrote
anything, even defaults, shows. The last cases stop the simulator (SIGSTOP: the CLI times out)
and kill it in the middle of a command and between commands. Prints TAP.
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import Simulator, Tap, run_cli  # noqa: E402

DEV = "device"  # placeholder: the running simulator's device string

# (name, args, expected status, pattern the message must match, how the device is given)
# Device: "d" (-d DEVICE, the default), "env" ($PKTSTATS_DEVICE), None (no device at all).
CASES = [
    ("MAC with five bytes", ["capture", "set", "dst-mac", "02:00:00:00:00"], 2,
     r"dst-mac '02:00:00:00:00': not a MAC"),
    ("MAC byte 256", ["capture", "set", "src-mac", "02:00:00:00:00:256"], 2,
     r"src-mac '02:00:00:00:00:256': not a MAC"),
    ("MAC with a non-hex digit", ["capture", "set", "dst-mac", "0g:00:00:00:00:01"], 2,
     r"dst-mac '0g:00:00:00:00:01'"),
    ("MAC with seven bytes", ["capture", "set", "dst-mac", "02:00:00:00:00:01:02"], 2,
     r"dst-mac .*not a MAC"),
    ("IPv4 octet 256", ["capture", "set", "src-ip", "10.0.0.256"], 2,
     r"src-ip '10.0.0.256': octet 256 is above 255"),
    ("IPv4 with three octets", ["capture", "set", "dst-ip", "10.0.0"], 2,
     r"dst-ip '10.0.0': not an IPv4"),
    ("IPv4 octet with a leading zero", ["capture", "set", "dst-ip", "10.0.0.010"], 2,
     r"leading zero"),
    ("resolution c = 8", ["capture", "set", "resolution", "8"], 2,
     r"resolution '8': not an exponent 0\.\.7 .* nor a tick with its unit \(8ns, .*64ns"),
    ("resolution c=9 written as c=9", ["capture", "set", "resolution", "c=9"], 2,
     r"resolution 'c=9': not an exponent 0\.\.7"),
    # a tick without its unit: the message gives the form with one
    ("resolution 64 (meant 64ns)", ["capture", "set", "resolution", "64"], 2,
     r"resolution '64': .*64ns"),
    ("resolution 100ns is no tick", ["capture", "set", "resolution", "100ns"], 2,
     r"resolution '100ns': not a tick"),
    ("unknown object", ["frobnicate", "show"], 2, r"unknown object 'frobnicate'"),
    ("unknown verb", ["capture", "frobnicate"], 2, r"capture: unknown verb 'frobnicate'"),
    ("abbreviated verb is not guessed", ["capture", "sh"], 2, r"unknown verb 'sh'"),
    ("abbreviated object is not guessed", ["cap", "show"], 2, r"unknown object 'cap'"),
    ("missing verb", ["capture"], 2, r"capture: no verb given"),
    ("no object at all", [], 2, r"no object given"),
    ("missing value", ["capture", "set", "ttl"], 2, r"capture set: ttl needs a value"),
    ("nothing to set", ["capture", "set"], 2, r"nothing to set"),
    ("unknown option", ["--frobnicate", "capture", "show"], 2, r"unknown option '--frobnicate'"),
    ("option after the verb", ["capture", "show", "-j"], 2, r"'-j' goes before the object"),
    ("unknown keyword", ["capture", "set", "colour", "red"], 2, r"unknown keyword 'colour'"),
    ("keyword given twice", ["capture", "set", "ttl", "5", "ttl", "6"], 2, r"ttl given twice"),
    ("a good value then a bad one writes nothing",
     ["capture", "set", "ttl", "9", "resolution", "3", "dst-mac", "zz"], 2, r"dst-mac 'zz'"),
    ("no device: no -d, no $PKTSTATS_DEVICE", ["capture", "show"], 2, r"no device", None),
    ("-d without a device", ["-d"], 2, r"'-d' needs a DEVICE", "none-raw"),
    ("-d sim:/nonexistent", ["-d", "sim:/nonexistent/sim.sock", "capture", "show"], 1,
     r"sim:/nonexistent/sim.sock: .*", "none-raw"),
    ("$PKTSTATS_DEVICE naming no simulator", ["capture", "show"], 1,
     r"pktstats: sim:/nonexistent/sim.sock: ", "env-bad"),
    ("queue 8", ["queue", "set", "8", "limit", "100"], 2, r"queue '8': 8 is above 7"),
    ("queue limit beyond 20 bits", ["queue", "set", "3", "limit", "1048576"], 2,
     r"limit '1048576': 1048576 is above 1048575"),
    ("output port 256", ["capture", "set", "output-ports", "256"], 2,
     r"output-ports '256': 256 is above 7"),
    ("fdb port 256", ["fdb", "add", "02:00:00:00:00:09", "port", "256"], 2,
     r"port '256': 256 is above 7"),
    ("UDP port 65536", ["capture", "set", "dst-port", "65536"], 2,
     r"dst-port '65536': 65536 is above 65535"),
    ("max length 85", ["capture", "set", "max-length", "85"], 2,
     r"max-length '85': 85 is below 86"),
    ("max length 9001", ["capture", "set", "max-length", "9001"], 2, r"9001 is above 9000"),
    ("negative number", ["capture", "set", "ttl", "-1"], 2, r"ttl '-1': negative"),
    ("TTL 0", ["capture", "set", "ttl", "0"], 2, r"ttl '0': 0 is below 1"),
    ("trailing garbage 12abc", ["capture", "set", "tos", "12abc"], 2,
     r"tos '12abc': 'a' is not a decimal digit"),
    ("empty string", ["capture", "set", "ttl", ""], 2, r"ttl '': empty value"),
    ("queue mask with bit 8 set", ["capture", "set", "queues", "0x100"], 2,
     r"queues '0x100': mask 0x100 has bits above 7"),
    ("queue range backwards", ["capture", "set", "queues", "4-2"], 2, r"range 4-2 goes backwards"),
    ("queue list ending in a comma", ["capture", "set", "queues", "1,2,"], 2, r"ends with ','"),
    ("unknown event type", ["capture", "set", "events", "arrival,departed"], 2,
     r"unknown name 'departed'"),
    ("flush timeout without a unit", ["capture", "set", "flush-timeout", "100"], 2,
     r"flush-timeout '100': a duration needs a unit"),
    ("flush timeout not whole cycles", ["capture", "set", "flush-timeout", "12ns"], 2,
     r"not a whole number of 8 ns clock cycles"),
    ("flush timeout beyond 32 bits of cycles", ["capture", "set", "flush-timeout", "35s"], 2,
     r"longer than 2\^32 - 1 cycles"),
    ("collector with an octet of 256", ["capture", "set", "collector", "10.0.0.256"], 2,
     r"collector '10.0.0.256'"),
    ("via without collector", ["capture", "set", "via", "eth0"], 2, r"via needs collector"),
    ("collector through a missing interface",
     ["capture", "set", "collector", "10.0.0.1", "via", "nosuch0"], 1,
     r"collector 10.0.0.1: no interface nosuch0"),
    ("collector through the loopback", ["capture", "set", "collector", "10.0.0.1", "via", "lo"],
     1, r"collector 10.0.0.1: .*loopback.*\(give dst-ip, dst-mac, src-ip and src-mac instead\)"),
    ("argument to a verb without arguments", ["capture", "start", "now"], 2,
     r"capture start: unexpected argument 'now'"),
    ("reg write to a const register (SLVERR)", ["reg", "write", "id.magic", "0"], 1,
     r"reg write: id\.magic \(0x00000008\): .*SLVERR"),
    ("reg write to a const register by address", ["reg", "write", "0x8", "0"], 1,
     r"reg write: id\.magic \(0x00000008\): .*SLVERR"),
    ("reg read of an unaligned address", ["reg", "read", "0x1002"], 2,
     r"address '0x1002' is not a multiple of 4"),
    ("reg read beyond the register space", ["reg", "read", "0x10000"], 2,
     r"address '0x10000': 65536 is above 65532"),
    ("reg read of an unknown name", ["reg", "read", "evcap.nothing"], 2,
     r"unknown register 'evcap.nothing'"),
    ("reg write of a value wider than the register", ["reg", "write", "evcap.ttl", "0x100000000"],
     2, r"value '0x100000000': .* is above 4294967295"),
    ("reg write without a value", ["reg", "write", "evcap.ttl"], 2, r"evcap.ttl needs a VALUE"),
    ("fdb add of a group address", ["fdb", "add", "01:00:5e:00:00:01", "port", "1"], 2,
     r"group address"),
    ("fdb add without a port", ["fdb", "add", "02:00:00:00:00:09"], 2, r"needs port PORT"),
    ("timer set with a negative value", ["timer", "set", "-5"], 2, r"CYCLES '-5': negative"),
    ("time set with 10^9 nanoseconds", ["time", "set", "5.1000000000"], 2,
     r"TIME '5\.1000000000': .*nanoseconds must be below 10\^9"),
    ("time set of a negative time", ["time", "set", "-1.5"], 2, r"TIME '-1\.5': negative"),
    ("time set of February 30", ["time", "set", "2024-02-30T00:00:00Z"], 2,
     r"TIME '2024-02-30T00:00:00Z': no such date"),
    ("time set beyond 2^48 s", ["time", "set", "281474976710656"], 2, r"beyond 2\^48 - 1"),
    ("time trim beyond the range", ["time", "trim", "62500000"], 2,
     r"PPB '62500000': beyond what the clock holds"),
    ("time trim below the range", ["time", "trim", "-62500000.02"], 2,
     r"PPB '-62500000\.02': beyond what the clock holds"),
    ("time trim in exponent form", ["time", "trim", "1e5"], 2, r"PPB '1e5': not a number"),
    ("time step below 0", ["time", "step", "-1000000s"], 2,
     r"OFFSET '-1000000s': the time would go below 0"),
    ("time step with a fraction and no unit", ["time", "step", "1.5"], 2, r"OFFSET '1\.5'"),
    ("time sync with an unknown option", ["time", "sync", "--gps"], 2,
     r"time sync: unexpected argument '--gps'"),
    ("counters clear of an unknown group", ["counters", "clear", "everything"], 2,
     r"unknown group 'everything'"),
    ("-j plot: a PNG has no JSON", ["-j", "plot", "stats.pcap", "-o", "q.png"], 2,
     r"plot: -j: ", None),
    ("plot --queues none", ["plot", "stats.pcap", "-o", "q.png", "--queues", "none"], 2,
     r"plot: --queues none selects nothing", None),
    ("help for an unknown verb", ["help", "capture", "frobnicate"], 2,
     r"capture: unknown verb 'frobnicate'", None),
]


def check_message(tap, name, status, out, err, expected, pattern):
    lines = err.split("\n")
    problems = []
    if status is None:
        problems.append("did not finish within the time limit")
    elif status != expected:
        problems.append("exit status %s, expected %d" % (status, expected))
    if out:
        problems.append("stdout not empty: %r" % out[:200])
    if not (err.endswith("\n") and len(lines) == 2):
        problems.append("stderr is not exactly one line: %r" % err[:600])
    elif not lines[0].startswith("pktstats: "):
        problems.append("message does not start with 'pktstats: ': %r" % lines[0])
    elif not re.search(pattern, lines[0]):
        problems.append("message %r does not match %r" % (lines[0], pattern))
    tap.point(not problems, "%s: exit %d, one line naming it" % (name, expected),
              "\n".join(problems))
    if not problems:
        tap.comment("  " + lines[0])


def main():
    if len(sys.argv) != 3:
        print("usage: %s PKTSTATS PKTSTATS-SIM" % sys.argv[0], file=sys.stderr)
        return 2
    pktstats, sim_binary = (os.path.abspath(a) for a in sys.argv[1:])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pktstats-cli-bad.") as work:
        sim = Simulator(sim_binary, work)
        try:
            # A configuration far from the defaults, through the CLI.
            status, out, err = run_cli(pktstats, [
                "capture", "set", "resolution", "3", "queues", "1,3", "events", "drop",
                "output-ports", "2", "dst-mac", "02:00:00:00:00:04", "src-mac",
                "02:00:00:00:00:0a", "src-ip", "10.1.2.3", "dst-ip", "10.4.5.6", "tos", "0x28",
                "ttl", "17", "src-port", "4000", "dst-port", "5000", "max-length", "600",
                "flush-timeout", "250us"], device=sim.device)
            tap.point(status == 0, "setup: capture set of every field", err)
            status, out, err = run_cli(pktstats, ["queue", "set", "2", "limit", "500"],
                                       device=sim.device)
            tap.point(status == 0, "setup: queue set", err)
            before = sim.snapshot()
            tap.comment("%d rw registers compared after every case" % len(before))

            for case in CASES:
                name, args, expected, pattern = case[:4]
                how = case[4] if len(case) > 4 else "d"
                if how == "d":
                    result = run_cli(pktstats, args, device=sim.device)
                elif how == "env-bad":
                    result = run_cli(pktstats, args, env_device="sim:/nonexistent/sim.sock")
                else:  # None or "none-raw": no device at all, or the case gives its own -d
                    result = run_cli(pktstats, args)
                check_message(tap, name, *result, expected, pattern)
                after = sim.snapshot()
                changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
                tap.point(not changed, "%s: registers unchanged" % name,
                          "changed (before, after): %r" % changed)
                before = after

            # A stopped simulator: the CLI gives up after the library's 10 s reply timeout.
            sim.process.send_signal(signal.SIGSTOP)
            start = time.monotonic()
            result = run_cli(pktstats, ["capture", "set", "ttl", "99"], device=sim.device,
                             timeout=40)
            elapsed = time.monotonic() - start
            sim.process.send_signal(signal.SIGCONT)
            check_message(tap, "simulator stopped (SIGSTOP) during capture set", *result, 1,
                          r"capture set: |sim\.sock: ")
            tap.comment("  gave up after %.1f s" % elapsed)
            after = sim.snapshot()
            # A timed-out request may still land when the simulator resumes; ttl is the only
            # register the command could have reached first (it was stopped before the open).
            changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
            tap.point(not changed, "simulator stopped: registers unchanged",
                      "changed (before, after): %r" % changed)

            # Killed in the middle of a command: stop it, start a command, kill it.
            sim.process.send_signal(signal.SIGSTOP)
            holder = {}

            def command():
                holder["result"] = run_cli(pktstats, ["capture", "set", "ttl", "99", "tos", "1"],
                                           device=sim.device, timeout=40)

            thread = threading.Thread(target=command)
            thread.start()
            time.sleep(1.0)
            sim.kill()
            start = time.monotonic()
            thread.join(60)
            elapsed = time.monotonic() - start
            check_message(tap, "simulator killed in the middle of capture set",
                          *holder.get("result", (None, "", "")), 1,
                          r"sim\.sock: |capture set: ")
            tap.point(elapsed < 5, "killed simulator: the CLI ends at once (%.1f s)" % elapsed)

            # Between commands: the socket file is left behind, nobody listens.
            result = run_cli(pktstats, ["capture", "show"], device=sim.device)
            check_message(tap, "simulator killed before capture show", *result, 1, r"sim\.sock: ")
            result = run_cli(pktstats, ["reg", "read", "evcap.ttl"], device=sim.device)
            check_message(tap, "simulator killed before reg read", *result, 1, r"sim\.sock: ")
        finally:
            sim.kill()

        # Killed while commands run back to back: whichever command is in flight (open,
        # reads or writes) must end at once with status 1 and one line; finished ones exit 0.
        sim = Simulator(sim_binary, work, name="sim2")
        try:
            results = []
            stop = threading.Event()

            def commands():
                while not stop.is_set():
                    for args in (["capture", "set", "ttl", "12", "dst-ip", "10.9.8.7"],
                                 ["capture", "show"], ["queue", "show"]):
                        start = time.monotonic()
                        status, out, err = run_cli(pktstats, args, device=sim.device, timeout=40)
                        results.append((args, status, err, time.monotonic() - start))

            thread = threading.Thread(target=commands)
            thread.start()
            time.sleep(0.7)
            sim.kill()
            time.sleep(0.3)
            stop.set()
            thread.join(60)
            finished = [r for r in results if r[1] == 0]
            failed = [r for r in results if r[1] != 0]
            bad = [r for r in failed if r[1] != 1 or r[3] > 5 or not r[2].endswith("\n")
                   or r[2].count("\n") != 1 or not r[2].startswith("pktstats: ")]
            tap.point(finished and failed and not bad,
                      "simulator killed while commands run: %d finished (exit 0), %d after the "
                      "kill exit 1 with one line within 5 s" % (len(finished), len(failed)), bad)
            for r in failed[:2]:
                tap.comment("  %s: %s" % (" ".join(r[0]), r[2].strip()))
        finally:
            sim.kill()
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
