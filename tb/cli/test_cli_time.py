#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats time` against the simulator, through the CLI only (docs/time.md, docs/cli.md).

    tb/cli/test_cli_time.py build/asan/bin/pktstats build/bin/pktstats-sim

Every time of day is checked exactly, to 2^-32 ns, against the evcap timer latched with it:
between two `time show`s at trim T, the time must advance by exactly
(timer2 - timer1) x (8 x 2^32 + T) units of 2^-32 ns. The simulator's own clock count (its
socket's `time`) bounds how many clocks a command took. Checks:

- set (seconds.fraction and UTC forms) and show: the value shown is the value set plus 8 ns per
  clock since, no more than the simulated clocks the two commands spanned;
- show -j: `time` is a JSON number, seconds with nine decimals, exactly seconds + nanoseconds /
  10^9 (the JSON text read as a Decimal), `utc` the text "S.NNNNNNNNN s (ISO 8601 Z)" with
  Python's own UTC date; the text output still shows that text as its `time` line, no `utc`;
- step -1.5 s and +20 ns: the time after is the time before + 8 ns per clock + the step;
- trim +100 ppm and -250.5 ppb: the rate over about 10^6 simulated clocks is exactly the trim;
- the latched timer is the evcap timer: after `timer set X`, within the clocks that passed;
- decode --time-of-day: each event of a capture made at +100 ppm gets the time of day that
  the pair (time show before the traffic) and the trim give, computed here; `device` reads a
  pair that maps the capture as the pair read before it; bad pairs exit 2;
- sync: the host time it reports lies between the test's readings of the host clock before
  and after; the value set is that time plus the reported correction; the switch's clock read
  afterwards is exactly that value + 8 ns per clock since timer_at_set; the offset it reports
  is the value set minus where the switch's clock would have been, computed from a `time show`
  before the sync. --tai reads CLOCK_TAI.
Prints TAP.
"""

import decimal
import json
import os
import re
import sys
import tempfile
import time
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import Simulator, Tap, run_cli  # noqa: E402

NS = 10 ** 9
UNIT = 1 << 32  # 2^-32 ns per ns


def units(seconds, nanoseconds, fraction=0):
    return (seconds * NS + nanoseconds) * UNIT + fraction


def shown_units(show):
    return units(show["seconds"], show["nanoseconds"], show["fraction"])


def utc_text(seconds, nanoseconds):
    """time show's text for people: "S.NNNNNNNNN s (YYYY-MM-DDTHH:MM:SS.NNNNNNNNNZ)"."""
    date = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return "%d.%09d s (%s.%09dZ)" % (seconds, nanoseconds, date, nanoseconds)


def exact_time(show):
    """`time` read from the JSON text as a Decimal: seconds + nanoseconds / 10^9, exactly, with
    nine decimals."""
    t = show.get("time")
    return isinstance(t, decimal.Decimal) and t.as_tuple().exponent == -9 and \
        t == show["seconds"] + decimal.Decimal(show["nanoseconds"]).scaleb(-9)


def pair_text(show, ppb=None):
    """--time-of-day's TIME@TIMER[,PPB] from a `time show` (its fraction of a ns left out)."""
    text = "%d.%09d@%d" % (show["seconds"], show["nanoseconds"], show["timer"])
    return text if ppb is None else text + "," + ppb


def decode_time_of_day(tap, pktstats, sim_binary, work, cli, show):
    """decode --time-of-day: every event's time of day from a pair read before the traffic, at
    +100 ppm, against the same arithmetic done here; `device` equal to the pair it reads."""
    stats = os.path.join(work, "tod.pcap")
    run = Simulator(sim_binary, work, ["--wait", "--seed", "5", "--port", "0:gen=0.6,to=3,count=400",
                                       "--port", "1:gen=0.6,to=3,count=400",
                                       "--port", "7:out=" + stats], name="tod")
    try:
        def on_run(*args):
            status, out, err = run_cli(pktstats, list(args), device=run.device)
            if status != 0:
                raise RuntimeError("pktstats %s: exit %s: %s" % (" ".join(args), status, err))
            return out
        on_run("capture", "set", "output-ports", "7", "resolution", "16ns")
        on_run("capture", "start")
        on_run("time", "set", "1764072000.5")
        on_run("time", "trim", "100000")
        pair = json.loads(on_run("-j", "time", "show"))
        run.request("start")
        run.stop(interrupt=False)
    finally:
        run.kill()
    status, out, err = run_cli(pktstats, ["-j", "decode", "--time-of-day",
                                          pair_text(pair, "100000"), stats])
    events = [json.loads(line) for line in out.splitlines()] if status == 0 else []
    base = units(pair["seconds"], pair["nanoseconds"])  # the fraction is not in TIME@TIMER
    wrong = [e for e in events
             if e["time_of_day_ns"] != (base + (e["time_ns"] // 8 - pair["timer"])
                                        * (8 * UNIT + pair["trim"])) // UNIT]
    tap.point(status == 0 and len(events) > 1000 and not wrong,
              "decode --time-of-day %s: %d events, each at the pair's time + (8 ns + trim) per "
              "clock from its timer, to the ns" % (pair_text(pair, "100000"), len(events)),
              err + (json.dumps(wrong[:3]) if wrong else ""))
    # the pair as `time show` prints it, ready: the same times
    ready = pair.get("time_of_day_pair", "")
    status, again, err = run_cli(pktstats, ["-j", "decode", "--time-of-day", ready, stats])
    tap.point(status == 0 and ready.startswith(pair_text(pair) + ",") and again == out,
              "time show's time-of-day-pair (%s) pasted into decode --time-of-day: the same "
              "times as the pair written out by hand" % ready, err)

    # `device`: the pair read now from the live switch (trim 0, fraction 0 since the set)
    # maps every tick as the pair read before it does
    cli("time", "set", "1764072000.25")
    before = show()
    by_pair = run_cli(pktstats, ["decode", "--csv", "--time-of-day", pair_text(before), stats])
    by_device = run_cli(pktstats, ["decode", "--csv", "--time-of-day", "device", stats],
                        device="sim:" + os.path.join(work, "sim.sock"))
    tap.point(by_pair[0] == 0 and by_device == by_pair and "time_of_day_ns" in by_pair[1]
              and len(by_pair[1].splitlines()) > 1000,
              "decode --time-of-day device reads the pair from the switch: the same times as "
              "the pair read before (%d lines)" % len(by_pair[1].splitlines()),
              "%s\n%s" % (by_pair[2] or by_pair[1][:200], by_device[2] or by_device[1][:200]))

    for args, names in ((["--time-of-day", "1.5@x"], "'1.5@x'"),
                        (["--time-of-day", "1.0000000001@5"], "10 digits"),
                        (["--time-of-day", "now"], "'now'"),
                        (["--time-of-day", "1@5,+90000000"], "trim"),
                        (["--summary", "--time-of-day", "1@5"], "--summary")):
        status, out, err = run_cli(pktstats, ["decode"] + args + [stats])
        tap.point(status == 2 and not out and len(err.splitlines()) == 1 and names in err,
                  "decode %s: exit 2, one line naming %s" % (" ".join(args), names),
                  "exit %s: %s" % (status, err))


def main():
    if len(sys.argv) != 3:
        print("usage: %s PKTSTATS PKTSTATS-SIM" % sys.argv[0], file=sys.stderr)
        return 2
    pktstats, sim_binary = (os.path.abspath(a) for a in sys.argv[1:])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pktstats-cli-time.") as work:
        sim = Simulator(sim_binary, work)

        def cli(*args):
            status, out, err = run_cli(pktstats, list(args), device=sim.device)
            if status != 0:
                raise RuntimeError("pktstats %s: exit %s: %s" % (" ".join(args), status, err))
            return out

        def show():
            # numbers with a fraction as Decimal: `time` digit for digit
            return json.loads(cli("-j", "time", "show"), parse_float=decimal.Decimal)

        def advanced(a, b, trim):
            """Units the clock must advance from show a to show b at a constant trim."""
            return (b["timer"] - a["timer"]) * (8 * UNIT + trim)

        try:
            # --- set and show, both forms
            for word, seconds, ns in (("1700000000.25", 1700000000, 250000000),
                                      ("2024-05-01T12:00:00.000000123Z", 1714564800, 123),
                                      ("42", 42, 0)):
                c0 = sim.cycle()
                cli("time", "set", word)
                a = show()
                c1 = sim.cycle()
                b = show()
                elapsed = shown_units(a) - units(seconds, ns)
                tap.point(a["fraction"] == 0 and elapsed >= 0 and elapsed % (8 * UNIT) == 0
                          and elapsed // (8 * UNIT) <= c1 - c0,
                          "time set %s: shown %d.%09d, %d clocks after the set, within the %d "
                          "simulated" % (word, a["seconds"], a["nanoseconds"],
                                         elapsed // (8 * UNIT), c1 - c0),
                          json.dumps(a, default=str))
                tap.point(shown_units(b) - shown_units(a) == advanced(a, b, 0),
                          "time set %s: the next show is 8 ns per evcap clock later, exactly"
                          % word, "%s\n%s" % (a, b))
                tap.point(exact_time(a) and
                          a.get("utc") == utc_text(a["seconds"], a["nanoseconds"]),
                          "time set %s: -j time show: time %s is a number, seconds + nanoseconds"
                          " / 10^9 exactly; utc %r the text with the UTC date"
                          % (word, a.get("time"), a.get("utc")), json.dumps(a, default=str))

            # --- the text output: the line `time` as it always was, no `utc`
            text = cli("time", "show")
            line = re.match(r"time {13}(\d+)\.(\d{9}) s \((.*)\)\n", text)
            tap.point(line is not None and text.splitlines()[0] == "time             " +
                      utc_text(int(line.group(1)), int(line.group(2)))
                      and not re.search(r"^utc", text, re.M) and "seconds          " in text,
                      "time show (text): the line `time  S.NNNNNNNNN s (UTC date)` first, no "
                      "`utc` line", text)

            # --- step
            for word, offset in (("-1.5s", -1500000000), ("20", 20), ("-3us", -3000)):
                a = show()
                cli("time", "step", word)
                b = show()
                diff = shown_units(b) - shown_units(a) - advanced(a, b, 0)
                tap.point(diff == offset * UNIT, "time step %s: the time moved by %d ns besides "
                          "8 ns per clock" % (word, offset),
                          "moved %.3f ns" % (diff / UNIT))

            # --- the latched timer is the evcap timer
            c0 = sim.cycle()
            cli("timer", "set", "1000000000")
            a = show()
            c1 = sim.cycle()
            tap.point(0 <= a["timer"] - 1000000000 <= c1 - c0,
                      "the latched timer is the evcap timer: %d clocks after timer set 1000000000"
                      " (%d simulated)" % (a["timer"] - 1000000000, c1 - c0),
                      json.dumps(a, default=str))
            timer_before = json.loads(cli("-j", "timer", "show"))["cycles"]
            a = show()
            timer_after = json.loads(cli("-j", "timer", "show"))["cycles"]
            tap.point(timer_before < a["timer"] < timer_after,
                      "the latched timer lies between two timer shows around it",
                      "%d %d %d" % (timer_before, a["timer"], timer_after))

            # --- trim: the rate over about 10^6 simulated clocks
            for ppb, want_trim in (("100000", 3435974), ("-250.5", -8607)):
                cli("time", "trim", ppb)
                a = show()
                tap.point(a["trim"] == want_trim, "time trim %s: trim register %d" % (ppb, want_trim),
                          json.dumps(a, default=str))
                start = sim.cycle()
                while sim.cycle() < start + 1000000:
                    time.sleep(0.05)
                b = show()
                clocks = b["timer"] - a["timer"]
                got = shown_units(b) - shown_units(a)
                rate = (got - clocks * 8 * UNIT) / (clocks * 8 * UNIT) * 1e9
                tap.point(clocks >= 1000000 and got == advanced(a, b, want_trim),
                          "time trim %s: over %d clocks the time advanced by exactly %d x "
                          "(8 ns + %d x 2^-32 ns): %+.4f ppb" % (ppb, clocks, clocks, want_trim, rate),
                          "advanced %d units, expected %d" % (got, advanced(a, b, want_trim)))
            cli("time", "trim", "0")

            # --- sync
            for option, clock in (("--utc", time.CLOCK_REALTIME), ("--tai", time.CLOCK_TAI)):
                cli("time", "set", "1000")
                a = show()
                h0 = time.clock_gettime_ns(clock)
                sync = json.loads(cli("-j", "time", "sync", option))
                h1 = time.clock_gettime_ns(clock)
                b = show()
                host = sync["host_seconds"] * NS + sync["host_nanoseconds"]
                set_ns = sync["set_seconds"] * NS + sync["set_nanoseconds"]
                tap.point(sync["clock"] == option[2:] and h0 <= host <= h1,
                          "time sync %s: the host time it read lies within the command's run"
                          % option, "%d <= %d <= %d" % (h0, host, h1))
                tap.point(set_ns - host == sync["correction_ns"] >= 0 and
                          sync["correction_ns"] == sync["round_trip_ns"] * 7 // 2,
                          "time sync %s: the value set is the host time + correction (%d ns, "
                          "3.5 round trips of %d ns)" % (option, sync["correction_ns"],
                                                        sync["round_trip_ns"]), json.dumps(sync))
                after = set_ns * UNIT + (b["timer"] - sync["timer_at_set"]) * 8 * UNIT
                tap.point(shown_units(b) == after,
                          "time sync %s: the switch's clock is the value set + 8 ns per clock "
                          "since (0 ns off, within 8 ns)" % option,
                          "shown %d, expected %d (%d clocks since the set)"
                          % (shown_units(b), after, b["timer"] - sync["timer_at_set"]))
                # where the switch would have been at timer_at_set without the sync
                would = shown_units(a) + (sync["timer_at_set"] - a["timer"]) * 8 * UNIT
                tap.point(sync["offset_ns"] * UNIT == set_ns * UNIT - would,
                          "time sync %s: offset %d ns = value set - the switch's time then"
                          % (option, sync["offset_ns"]), json.dumps(sync))
            status, out, err = run_cli(pktstats, ["time", "sync"], device=sim.device)
            tap.point(status == 0 and "offset" in out and not err,
                      "time sync (UTC by default): text output", out + err)

            decode_time_of_day(tap, pktstats, sim_binary, work, cli, show)
        except RuntimeError as e:
            tap.point(False, "pktstats time commands", str(e))
        finally:
            sim.kill()
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
