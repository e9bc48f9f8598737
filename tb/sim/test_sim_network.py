#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two simulated switches on imperfect clocks, joined by two cables: the wire truth, the
switches' clocks and their stat packets agree with what was configured.

    tb/sim/test_sim_network.py build/bin/pktstats-sim build/asan/bin/pktstats [--seed S]

The scenario of issue 12: switch 0's oscillator at +50 ppm with its time of day at 0 at true
time 0, switch 1's at -50 ppm and 1.5 s; port 0.1 cabled to 1.2 by 100 m (500 ns), 0.2 to 1.1
by 2 km (10 us). Bursty 60..1514-byte and IMIX traffic from ports 0 and 3 of each switch crosses
both cables both ways (static table entries send it over a cable and out of a port of the far
switch: two cables between two switches are a loop, and a flooded frame would go round it for
ever). Stat packets of every queue leave CPU port 7 of each switch. The run ends by --duration.
Checked:
  - from the wire truth file: every frame that left a cabled port reached the far port, its first
    bit exactly the cable's delay later, the same bytes (hash) and length, in order; none lost,
    none extra;
  - port 0.1's out= pcap (a cabled port may record what it sends) holds the frames the truth
    file says it sent, at their first bits' true times;
  - every clock reading in the truth file equals offset + true time x (1 + ppm 10^-6) to within
    one clock (the reading is the time of day held in the clock in force at that instant: up to
    8 ns behind, never ahead), over the whole run, and offset + 8 ns x its clock number exactly;
  - each switch's time of day latched through its register socket before the traffic and late
    in the run lies between the socket's `time` replies (true time) just before and after,
    mapped by offset and drift;
  - each switch's stat packets, decoded by `pktstats decode` (the production decoder), hold per
    queue as many arrivals, departures and drops as the switch's counters, with none missed.

The generators' seeds come from --seed (default: a new one, printed); --seed S replays a run.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
import two_switches  # noqa: E402
from two_switches import CABLES, OFFSET_NS, PPM  # noqa: E402
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()
PORTS = 8
STAT_PORT = 7
CLOCK_NS = 8
DURATION_MS = 10


def arguments(work, seed):
    args = two_switches.arguments(work, seed, DURATION_MS)
    traffic = {0: [(0, "gen=0.7,size=60-1514,on=200us,off=100us,to=1"), (3, "gen=0.5,size=imix,to=2")],
               1: [(0, "gen=0.7,size=60-1514,on=200us,off=100us,to=4"), (3, "gen=0.5,size=imix,to=5")]}
    for k, ports in traffic.items():
        for p, spec in ports:
            args += ["--port", "%d.%d:%s" % (k, p, spec)]
        args += ["--port", "%d.%d:out=%s" % (k, STAT_PORT, os.path.join(work, "stats%d.pcap" % k))]
    # A cabled port may also record what it sends into the cable.
    args += ["--port", "0.1:out=" + os.path.join(work, "cable01.pcap")]
    return args


def read_pcap_times(path):
    """Timestamps (ns) and lengths of a nanosecond pcap file's records."""
    with open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack_from("<I", data, 0)
    if magic != 0xA1B23C4D:
        raise RuntimeError("%s: not a nanosecond pcap (magic %#x)" % (path, magic))
    records, offset = [], 24
    while offset < len(data):
        seconds, nanoseconds, captured, _ = struct.unpack_from("<IIII", data, offset)
        records.append((seconds * 10**9 + nanoseconds, captured))
        offset += 16 + captured
    return records


def check_cable_pcap(tap, rows, work):
    sent = sorted((r["true_time_ps"] // 1000, r["length"]) for r in rows
                  if (r["switch"], r["port"], r["direction"]) == (0, 1, "tx"))
    recorded = read_pcap_times(os.path.join(work, "cable01.pcap"))
    tap.point(recorded == sent and len(sent) > 0,
              "port 0.1's out= pcap holds the %d frames it sent into its cable (%d in the truth "
              "file), each at its first bit's true time in ns" % (len(recorded), len(sent)))


def configure(conn, k):
    two_switches.write_tables(conn, R, k)
    conn.write(R["EVCAP_OUTPUT_PORTS"], 1 << STAT_PORT)
    conn.write(R["EVCAP_FLUSH_TIMEOUT"], 12500)  # 100 us
    conn.write(R["EVCAP_CONTROL"], 1)


def latch(conn):
    """The time of day latched through the socket, between two `time` replies: (true time
    before in ns, clock before, time of day in ns, true time after, clock after)."""
    # Sent together: the server answers `time` at once and the second one as soon as the latch's
    # write is done, so the two replies bracket the clock of the latch closely.
    conn.file.write("time\nwrite 0x%x 0x%x\ntime\n" % (R["TIME_COMMAND"], R["TIME_COMMAND_LATCH_MASK"]))
    conn.file.flush()
    replies = [conn.file.readline().split() for _ in range(3)]
    if any(r[:1] != ["ok"] for r in replies):
        raise RuntimeError("latch: %r" % replies)
    before, after = replies[0][1:], replies[2][1:]
    seconds = conn.read64(R["TIME_LATCHED_SECONDS"])
    nanoseconds = conn.read(R["TIME_LATCHED_NANOSECONDS"])
    return (int(before[0]), int(before[1]), seconds * 10**9 + nanoseconds, int(after[0]), int(after[1]))


def check_latch(tap, k, when, sample):
    true0, clock0, tod, true1, clock1 = sample
    drift = 1 + Fraction(PPM[k], 10**6)
    low = OFFSET_NS[k] + true0 * drift - CLOCK_NS
    high = OFFSET_NS[k] + true1 * drift + CLOCK_NS
    by_clock = OFFSET_NS[k] + CLOCK_NS * clock0 - CLOCK_NS <= tod <= OFFSET_NS[k] + CLOCK_NS * clock1 + CLOCK_NS
    tap.point(low <= tod <= high and by_clock,
              "switch %d, %s: time of day through the socket %d ns lies within offset + true time "
              "x (1 %+d ppm) between the `time` replies [%.1f, %.1f] (true %d..%d ns, clocks %d..%d)"
              % (k, when, tod, PPM[k], float(low), float(high), true0, true1, clock0, clock1))


def check_cables(tap, rows):
    for (a, b, delay) in CABLES:
        for (src, dst) in ((a, b), (b, a)):
            sent = sorted((r for r in rows if (r["switch"], r["port"]) == src and r["direction"] == "tx"),
                          key=lambda r: r["true_time_ps"])
            got = sorted((r for r in rows if (r["switch"], r["port"]) == dst and r["direction"] == "rx"),
                         key=lambda r: r["true_time_ps"])
            problems = []
            if len(sent) != len(got):
                problems.append("%d frames sent, %d arrived" % (len(sent), len(got)))
            delays = set()
            for s, g in zip(sent, got):
                d = g["true_time_ps"] - s["true_time_ps"]
                delays.add(d)
                if d != delay or s["frame_hash"] != g["frame_hash"] or s["length"] != g["length"]:
                    problems.append("frame sent at %d ps (%s, %d bytes) arrived at %d ps (%s, %d bytes)"
                                    % (s["true_time_ps"], s["frame_hash"], s["length"],
                                       g["true_time_ps"], g["frame_hash"], g["length"]))
                    if len(problems) > 5:
                        break
            tap.point(not problems and len(sent) > 100,
                      "cable %d.%d -> %d.%d: %d frames sent, %d arrived, each first bit exactly "
                      "%d ps later (delays seen: %s ps), same bytes" %
                      (src[0], src[1], dst[0], dst[1], len(sent), len(got), delay,
                       ",".join(str(d) for d in sorted(delays)[:4])), "\n".join(problems))


def check_clock_readings(tap, rows):
    for k in (0, 1):
        drift = 1 + Fraction(PPM[k], 10**6)
        worst_low = worst_high = None
        problems = []
        mine = [r for r in rows if r["switch"] == k]
        for r in mine:
            reading = Fraction(r["tod_seconds"] * 10**9 + r["tod_nanoseconds"]) + Fraction(r["tod_fraction"], 2**32)
            ideal = OFFSET_NS[k] + Fraction(r["true_time_ps"], 1000) * drift
            error = reading - ideal
            worst_low = error if worst_low is None or error < worst_low else worst_low
            worst_high = error if worst_high is None or error > worst_high else worst_high
            if not (-CLOCK_NS * drift - Fraction(2, 1000) < error <= Fraction(2, 1000)) or \
                    reading != OFFSET_NS[k] + CLOCK_NS * r["clock"]:
                problems.append("%s: reading %s, offset + drift %s (error %.3f ns)"
                                % (r, float(reading), float(ideal), float(error)))
                if len(problems) > 5:
                    break
        last = max((r["true_time_ps"] for r in mine), default=0)
        tap.point(not problems and len(mine) > 1000 and last > (DURATION_MS - 1) * 10**9,
                  "switch %d: %d clock readings in the truth file (up to true time %.3f ms) equal "
                  "offset %d ns + true time x (1 %+d ppm) to within one clock: error %.3f .. %.3f ns"
                  % (k, len(mine), last / 1e9, OFFSET_NS[k], PPM[k],
                     float(worst_low or 0), float(worst_high or 0)), "\n".join(problems))


def decode_summary(cli, pcap):
    result = subprocess.run([cli, "-j", "decode", "--summary", pcap], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError("pktstats decode: " + result.stderr.strip())
    return json.loads(result.stdout)


def check_stat_packets(tap, cli, work, summaries):
    for k in (0, 1):
        summary = summaries[k]
        decoded = decode_summary(cli, os.path.join(work, "stats%d.pcap" % k))
        problems = []
        for q in range(PORTS):
            got = next(([x["arrivals"], x["departures"], x["drops"]] for x in decoded["queues"]
                        if x["queue"] == q), [0, 0, 0])
            if got != summary["queues"][q]:
                problems.append("queue %d: decoded %s, switch %s" % (q, got, summary["queues"][q]))
        stored = sum(summary["queues"][q][0] for q in range(PORTS))
        tap.point(not problems and stored > 0 and summary["complete"] and summary["missed"] == 0 and
                  decoded["events"] == summary["events"] and decoded["lost"] == 0,
                  "switch %d: its stat packets rebuild its queues: decoded arrivals, departures and "
                  "drops of every queue = its counters (%d frames stored), %d events decoded = %d "
                  "sent, 0 missed, drained and flushed" % (k, stored, decoded["events"],
                                                           summary["events"]),
                  "; ".join(problems))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("cli")
    parser.add_argument("--seed", type=int, help="seed of the generators")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap = Tap()
    tap.comment("seed %d (replay: %s SIMULATOR CLI --seed %d)" % (seed, sys.argv[0], seed))
    work = tempfile.mkdtemp(prefix="pktstats-network-")
    try:
        sim = pktstats_sim.Simulator(os.path.abspath(options.simulator), work,
                                     arguments(work, seed), name="s0", wait=True)
        try:
            with pktstats_sim.Connection(os.path.join(work, "s1.sock")) as s1:
                conns = {0: sim, 1: s1}
                # A malformed request on switch 1's socket: an error, and it keeps serving.
                s1.file.write("frobnicate 1 2\n")
                s1.file.flush()
                reply = s1.file.readline()
                tap.point(reply.startswith("error") and s1.request("hello")[0] == "pktstats-sim",
                          "switch 1's socket answers a malformed request with an error (%s) and "
                          "keeps serving" % reply.strip())
                for k in (0, 1):
                    configure(conns[k], k)
                early = {k: latch(conns[k]) for k in (0, 1)}
                sim.request("start")
                while int(sim.request("time")[0]) < (DURATION_MS - 1) * 10**6:
                    time.sleep(0.02)
                late = {k: latch(conns[k]) for k in (0, 1)}
            status = sim.stop(interrupt=False)
        except BaseException:
            sim.kill()
            raise
        output = sim.output()
        tap.comment(output)
        summaries = pktstats_sim.parse_switch_summaries(output)
        tap.point(status == 0 and len(summaries) == 2 and all(s["complete"] for s in summaries),
                  "the run ends by --duration, exit 0, both switches drained and flushed", sim.log())
        for k in (0, 1):
            check_latch(tap, k, "before the traffic", early[k])
            check_latch(tap, k, "after %d ms" % (DURATION_MS - 1), late[k])
        rows = pktstats_sim.read_wire_truth(os.path.join(work, "wire.csv"))
        check_cables(tap, rows)
        check_cable_pcap(tap, rows, work)
        check_clock_readings(tap, rows)
        check_stat_packets(tap, os.path.abspath(options.cli), work, summaries)
    except Exception as error:  # a broken run is a failure, not a crash of the suite
        tap.point(False, "network run", repr(error))
    finally:
        if options.keep:
            tap.comment("work directory kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
