#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats mac` (docs/cli.md, docs/pktstats.8) against pktstats-sim, which has no MAC block:
the counters and the PHYs' registers over MDIO (`mac mdio read|write|scan`).
Prints TAP.

usage: test_cli_mac.py PATH/TO/pktstats PATH/TO/pktstats-sim

The MAC port counters (regmap/mac.toml, base 0x7000) exist on the NetFPGA-1G-CML board build
only; the simulator's bus answers DECERR there. Checked:
  - help at every level (mac, mac counters, mac mdio) without a device: exit 0, the verbs
    and their synopsis, the board-only note;
  - every bad command line exits 2 with one line on stderr naming the bad argument and nothing
    on stdout, with or without a device, before the device is touched (the simulator's
    registers unchanged): a port out of 0..3 or not a number, an unknown keyword, a missing
    value, a keyword given twice, no sub-verb, an unknown sub-verb, an argument to clear, an
    unknown verb; for mdio: PHY or REGISTER out of 0..31 or not a number, VALUE above 0xffff,
    missing or extra words, an unknown or missing sub-verb, an argument to scan; and no
    device at all;
  - on the simulator, `mac counters show`, `show port N`, `-j ... show`, `clear`, `mac mdio
    read`, `-j mac mdio read`, `mdio write` and `mdio scan` exit 1 with
    exactly one line that says the device has no MAC block (and where the block exists),
    nothing on stdout, no register of the simulator changed, and the simulator still answers.
The real counters are checked in RTL by tb/board/test_board_mac_counters.cpp, the MDIO frames
by tb/board/test_board_mdio.cpp, the library's MDIO calls by sw/driver/test/test_mac.c.
"""

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cli_harness import Simulator, Tap, run_cli  # noqa: E402


def snapshot(sim):
    """{name: value} of every rw and counter register the simulator has (the mac block's
    are not there: DECERR)."""
    return sim.snapshot(("rw", "counter"))


def help_case(tap, pktstats):
    status, out, err = run_cli(pktstats, ["mac", "--help"])
    tap.point(status == 0 and "mac counters show [port N] | clear" in out and
              "board build only" in out and not err,
              "pktstats mac --help: exit 0, the verb and its synopsis", out + err)
    status, out, err = run_cli(pktstats, ["mac", "counters", "--help"])
    tap.point(status == 0 and "rx-fcs-errors" in out and "rx-overflows" in out and
              "pktstats-sim" in out and not err,
              "pktstats mac counters --help: exit 0, the counters and the simulator note",
              out + err)
    status, out, err = run_cli(pktstats, ["mac", "mdio", "--help"])
    tap.point(status == 0 and
              "mac mdio read PHY REGISTER | write PHY REGISTER VALUE | scan" in out and
              "0xffff" in out and "22.2.4.3.1" in out and "pktstats-sim" in out and not err,
              "pktstats mac mdio --help: exit 0, the synopsis, no-answer and OUI notes",
              out + err)
    status, out, err = run_cli(pktstats, ["--help"])
    tap.point(status == 0 and "\n  mac " in out,
              "pktstats --help lists the mac object", out + err)


BAD = [
    (["mac", "counters", "show", "port", "4"], "port '4'"),
    (["mac", "counters", "show", "port", "x"], "port 'x'"),
    (["mac", "counters", "show", "port", "-1"], "port '-1'"),
    (["mac", "counters", "show", "prt", "1"], "'prt'"),
    (["mac", "counters", "show", "port"], "port needs a value"),
    (["mac", "counters", "show", "port", "1", "port", "2"], "port given twice"),
    (["mac", "counters"], "needs show or clear"),
    (["mac", "counters", "list"], "'list'"),
    (["mac", "counters", "clear", "all"], "'all'"),
    (["mac", "bogus"], "bogus"),
    (["mac", "mdio", "read", "32", "1"], "PHY '32'"),
    (["mac", "mdio", "read", "x", "1"], "PHY 'x'"),
    (["mac", "mdio", "read", "-1", "1"], "PHY '-1'"),
    (["mac", "mdio", "read", "1", "32"], "REGISTER '32'"),
    (["mac", "mdio", "read", "1", "0x20"], "REGISTER '0x20'"),
    (["mac", "mdio", "read", "1"], "needs PHY and REGISTER"),
    (["mac", "mdio", "read", "1", "2", "3"], "unexpected argument '3'"),
    (["mac", "mdio", "write", "1", "2", "0x10000"], "VALUE '0x10000'"),
    (["mac", "mdio", "write", "1", "2", "65536"], "VALUE '65536'"),
    (["mac", "mdio", "write", "1", "2", "v"], "VALUE 'v'"),
    (["mac", "mdio", "write", "40", "2", "1"], "PHY '40'"),
    (["mac", "mdio", "write", "1", "99", "1"], "REGISTER '99'"),
    (["mac", "mdio", "write", "1", "2"], "needs PHY, REGISTER and VALUE"),
    (["mac", "mdio", "write", "1", "2", "3", "4"], "unexpected argument '4'"),
    (["mac", "mdio", "scan", "0"], "'0'"),
    (["mac", "mdio"], "needs read, write or scan"),
    (["mac", "mdio", "dump"], "'dump'"),
]


def bad_case(tap, pktstats, sim):
    before = snapshot(sim)
    for args, names in BAD:
        for device in (None, sim.device):
            status, out, err = run_cli(pktstats, args, device=device)
            lines = err.splitlines()
            tap.point(status == 2 and not out and len(lines) == 1 and names in lines[0],
                      "pktstats %s%s: exit 2, one line naming %s"
                      % ("" if device is None else "-d SIM ", " ".join(args), names),
                      "status %r\nstdout %r\nstderr %r" % (status, out, err))
    after = snapshot(sim)
    tap.point(before == after, "the bad command lines changed no register of the simulator",
              str({k: (before.get(k), after[k]) for k in after if before.get(k) != after[k]}))
    status, out, err = run_cli(pktstats, ["mac", "counters", "show"])
    tap.point(status == 2 and not out and len(err.splitlines()) == 1,
              "no device (no -d, no $PKTSTATS_DEVICE): exit 2, one line", err)


def simulator_case(tap, pktstats, sim):
    before = snapshot(sim)
    for args in (["mac", "counters", "show"], ["mac", "counters", "show", "port", "3"],
                 ["-j", "mac", "counters", "show"], ["mac", "counters", "clear"],
                 ["mac", "mdio", "read", "0", "2"], ["-j", "mac", "mdio", "read", "31", "3"],
                 ["mac", "mdio", "write", "1", "0", "0x8000"], ["mac", "mdio", "scan"],
                 ["-j", "mac", "mdio", "scan"]):
        status, out, err = run_cli(pktstats, args, device=sim.device)
        lines = err.splitlines()
        words = [a for a in args if a != "-j"]
        verb = " ".join(words[:3])  # "mac counters show", "mac mdio read", ...
        tap.point(status == 1 and not out and len(lines) == 1 and
                  lines[0].startswith("pktstats: %s: the device has no MAC block" % verb) and
                  "DECERR" in lines[0] and "board build only" in lines[0],
                  "pktstats %s on the simulator: exit 1, one line: no MAC block"
                  % " ".join(args),
                  "status %r\nstdout %r\nstderr %r" % (status, out, err))
    after = snapshot(sim)
    tap.point(before == after, "no register of the simulator changed",
              str({k: (before.get(k), after[k]) for k in after if before.get(k) != after[k]}))
    status, out, err = run_cli(pktstats, ["dev", "show"], device=sim.device)
    tap.point(status == 0, "the simulator still answers (dev show)", err)


def main():
    if len(sys.argv) != 3:
        print("usage: %s PKTSTATS PKTSTATS-SIM" % sys.argv[0], file=sys.stderr)
        return 2
    pktstats, sim_binary = (os.path.abspath(a) for a in sys.argv[1:])
    tap = Tap()
    help_case(tap, pktstats)
    with tempfile.TemporaryDirectory(prefix="pktstats-cli-mac.") as work:
        sim = Simulator(sim_binary, work)
        try:
            bad_case(tap, pktstats, sim)
            simulator_case(tap, pktstats, sim)
        except RuntimeError as e:
            tap.point(False, "the CLI against the simulator", str(e))
        finally:
            sim.kill()
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
