#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The wire timestamps of every MAC port equal the simulator's wire truth, to the clock, under
load with every MAC port busy (issue 12, item 5).

    tb/sim/test_sim_stamps.py build/bin/pktstats-sim [--seed S]

Two switches on imperfect clocks (switch 0 at +50 ppm, time of day 0 at true time 0; switch 1
at -50 ppm and 1.5 s), port 0.1 cabled to 1.2 (100 m), 0.2 to 1.1 (2 km). Generators on the
uncabled MAC ports 0 and 3 of each switch at 95 % of line rate send, through static table
entries, over a cable and out of an uncabled port of the far switch, so that every MAC port
receives and sends; CPU ports 6 and 7 of each switch add frames towards the cabled outputs, more
than they can carry, so their queues drop. The wire truth file's tx lines carry the core's
stamps of each frame (first word's handshake). Checked, for every frame leaving every MAC port:

  - its TX stamp equals the truth's reading of that line (the switch's time of day in the clock
    of its first bit on the wire: low 32 bits of the seconds, nanoseconds);
  - its RX stamp (carried through the switch) equals the truth's reading of the rx line of the
    same frame at its input port (matched by frame hash and order), frames from CPU ports have
    none;
  - its residence time equals TX - RX;

first with all corrections 0, then in a second run with a different rx_correction_i and
tx_correction_i on every MAC port of both switches, written through the register sockets: every
stamp moves by exactly its correction.
"""

import argparse
import collections
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
import two_switches  # noqa: E402
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()
MAC_PORTS = 4
DURATION_MS = 5


# Corrections of the second run, ns: (rx, tx) of switch k, port p
def corrections(k, p):
    return (-(137 + 1000 * k + 11 * p), 250 + 500 * k + 7 * p)


def arguments(work, seed):
    args = two_switches.arguments(work, seed, DURATION_MS)
    traffic = {0: [(0, "gen=0.95,size=60-1514,to=1"), (3, "gen=0.95,size=imix,to=2"),
                   (6, "gen=0.03,size=60-1514,to=1"), (7, "gen=0.03,size=imix,to=2")],
               1: [(0, "gen=0.95,size=60-1514,to=4"), (3, "gen=0.95,size=imix,to=5"),
                   (6, "gen=0.03,size=60-1514,to=4"), (7, "gen=0.03,size=imix,to=5")]}
    for k, ports in traffic.items():
        for p, spec in ports:
            args += ["--port", "%d.%d:%s" % (k, p, spec)]
    return args


def configure(conn, k, corrected):
    two_switches.write_tables(conn, R, k)
    for p in range(MAC_PORTS):
        rx, tx = corrections(k, p) if corrected else (0, 0)
        conn.write(R["STAMP_RX_CORRECTION_%d" % p], rx & 0x3fffffff)
        conn.write(R["STAMP_TX_CORRECTION_%d" % p], tx & 0x3fffffff)


def ns(seconds, nanoseconds):
    return seconds * 10**9 + nanoseconds


def check(tap, rows, corrected, what):
    arrivals = collections.defaultdict(collections.deque)  # (switch, hash) -> rx rows in time order
    for r in sorted((r for r in rows if r["direction"] == "rx"), key=lambda r: r["true_time_ps"]):
        arrivals[(r["switch"], r["frame_hash"])].append(r)
    tx_checked = collections.Counter()
    rx_checked = collections.Counter()
    stat_or_cpu = collections.Counter()
    tx_error = rx_error = residence_error = 0
    problems = []
    for r in sorted((r for r in rows if r["direction"] == "tx"), key=lambda r: r["true_time_ps"]):
        k, p = r["switch"], r["port"]
        rx_corr, tx_corr = corrections(k, p) if corrected else (0, 0)
        if r["hw_tx_seconds"] == "":
            problems.append("no hardware stamps on %s" % r)
            continue
        tx = ns(int(r["hw_tx_seconds"]), int(r["hw_tx_nanoseconds"]))
        want_tx = pktstats_sim.wire_reading(r, tx_corr)
        tx_error = max(tx_error, abs(tx - want_tx))
        if tx != want_tx:
            problems.append("switch %d port %d: TX stamp %d ns, truth %d ns (%s)" % (k, p, tx, want_tx, r))
        tx_checked[(k, p)] += 1
        # The frame's arrival at this switch: the first unmatched rx line with its hash
        queue = arrivals.get((k, r["frame_hash"]))
        arrival = queue.popleft() if queue else None
        if r["hw_rx_seconds"] == "":
            if arrival is not None and arrival["port"] < MAC_PORTS:
                problems.append("switch %d port %d: no RX stamp on a frame that arrived on port %d (%s)"
                                % (k, p, arrival["port"], r))
            stat_or_cpu[(k, p)] += 1
            continue
        if arrival is None:
            problems.append("switch %d port %d: RX stamp on a frame with no rx line (%s)" % (k, p, r))
            continue
        rx = ns(int(r["hw_rx_seconds"]), int(r["hw_rx_nanoseconds"]))
        in_corr = corrections(k, arrival["port"])[0] if corrected else 0
        want_rx = pktstats_sim.wire_reading(arrival, in_corr)
        rx_error = max(rx_error, abs(rx - want_rx))
        if rx != want_rx:
            problems.append("switch %d: frame %s in on port %d at clock %d, out on port %d: RX stamp "
                            "%d ns, truth %d ns (error %d)" % (k, r["frame_hash"], arrival["port"],
                                                              arrival["clock"], p, rx, want_rx,
                                                              rx - want_rx))
        residence = int(r["hw_residence_ns"])
        if residence != tx - rx:
            residence_error = max(residence_error, abs(residence - (tx - rx)))
            problems.append("switch %d port %d: residence %d ns, TX - RX %d ns" % (k, p, residence, tx - rx))
        rx_checked[(arrival["switch"], arrival["port"])] += 1
    ports = [(k, p) for k in (0, 1) for p in range(MAC_PORTS)]
    counts = ", ".join("%d.%d %d/%d" % (k, p, tx_checked[(k, p)], rx_checked[(k, p)]) for k, p in ports)
    tap.comment("%s: TX stamps checked / RX stamps checked (by input port): %s; frames from CPU "
                "ports (no RX stamp): %d" % (what, counts, sum(stat_or_cpu.values())))
    tap.point(not problems and all(tx_checked[x] > 200 and rx_checked[x] > 200 for x in ports),
              "%s: every frame out of every MAC port (%d) has TX stamp = the wire truth's reading "
              "at its first bit%s (max error %d ns), every one from a MAC port (%d) RX stamp = "
              "the truth's reading at its first bit on its input port%s (max error %d ns) and "
              "residence = TX - RX; at least 200 frames each way on each of the 8 MAC ports"
              % (what, sum(tx_checked.values()), " + tx_correction" if corrected else "", tx_error,
                 sum(rx_checked.values()), " + rx_correction" if corrected else "", rx_error),
              "\n".join(problems[:10]))


def run(tap, simulator, seed, corrected):
    what = "corrections set" if corrected else "corrections 0"
    work = tempfile.mkdtemp(prefix="pktstats-stamps-")
    try:
        sim = pktstats_sim.Simulator(simulator, work, arguments(work, seed), name="s0", wait=True)
        try:
            with pktstats_sim.Connection(os.path.join(work, "s1.sock")) as s1:
                conns = {0: sim, 1: s1}
                for k in (0, 1):
                    configure(conns[k], k, corrected)
                sim.request("start")
                status = sim.stop(interrupt=False)
        except BaseException:
            sim.kill()
            raise
        output = sim.output()
        summaries = pktstats_sim.parse_switch_summaries(output)
        drops = sum(q[2] for s in summaries for q in s["queues"].values())
        tap.comment(output)
        tap.point(status == 0 and len(summaries) == 2 and drops > 0,
                  "%s: the run ends by --duration, exit 0, %d frames dropped by full queues"
                  % (what, drops), sim.log())
        check(tap, pktstats_sim.read_wire_truth(os.path.join(work, "wire.csv")), corrected, what)
    except Exception as error:  # a broken run is a failure, not a crash of the suite
        tap.point(False, what, repr(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("--seed", type=int, help="seed of the generators")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap = Tap()
    tap.comment("seed %d (replay: %s SIMULATOR --seed %d)" % (seed, sys.argv[0], seed))
    simulator = os.path.abspath(options.simulator)
    run(tap, simulator, seed, corrected=False)
    run(tap, simulator, seed, corrected=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
