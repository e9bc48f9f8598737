#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats decode --sojourn` and the sojourn table of `decode --summary --sojourn`
(docs/sojourn.md), checked frame by frame against pktstats-sim's per-frame queue truth
(--sojourn-truth: the clock each frame was committed to its queue and the clock it left it).
TAP.

usage: test_cli_sojourn.py PATH/TO/pktstats PATH/TO/pktstats-sim [SEED]

Simulator runs (--write configures capture, so each run is the same clock for clock; the
generators' seed is printed and replays with SEED): an incast with mixed sizes (ports 0, 1, 2
to port 3, which tail-drops) while port 3 sends to port 1 (several queues at once, and every
queue while the switch floods before it learns), at resolution c = 0 and c = 3; the same with
arrivals masked out of the capture, and with drops masked out. On their captures:
  exact      every row of `decode --sojourn --csv` is a frame of the truth: the departure is the
             truth's depart_cycle, the arrival its commit_cycle, at the capture's tick (c = 0:
             clock x 8 ns; c = 3: the clock rounded down to 8 clocks), the length its words;
  complete   every departure the capture holds (counted from `decode --csv`'s events) is timed,
             queued before or unsynchronised (-j decode --summary --sojourn), and in a whole
             capture all are timed, as many as the simulator's summary says left each queue;
  late       the capture's first stat packets removed, at the moment queue 3 is fullest: the
             frames queued then are counted as queued before (as many as the truth says),
             never timed; the others are timed exactly;
  gap        a stat packet removed in the middle: its frames are not seen, the frames queued
             across the gap are counted, the rest timed exactly;
  masked     arrivals masked: nothing timed, every departure counted; drops masked: all timed;
  missed     the stat packets' port slowed to 20 Mb/s until the hardware misses events (M
             flag): every timed frame exact, every departure seen counted, the frames after
             each M flag counted as not timed (the loss said as `missed`);
  time       --time-of-day TIME@TIMER: each timed frame's times also as the time of day;
  usage      --summary --sojourn with --time-of-day: exit 2, one line;
  summary    the percentiles of `-j decode --summary --sojourn` are the nearest-rank
             percentiles of the truth's delays, computed here;
  truth      the truth itself against totals it did not compute: as many lines per queue as
             the simulator's queue counters say frames left it;
  plot       `plot --sojourn --data DIR`: a 1600x1200 PNG; each queue's CDF points are the
             truth's sorted delays at their ranks; every true delay of queue 3 lies in the band
             drawn for its departure's time step; on the capture with arrivals masked, exit 1
             with one line.
"""

import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from oam_frames import read_pcap, write_timed_pcap  # noqa: E402
from pktstats_sim import parse_summary  # noqa: E402
from tap_output import Tap  # noqa: E402

STAT_PORT = 7
PERCENTILES = (("p50_ns", 50), ("p90_ns", 90), ("p99_ns", 99), ("p999_ns", 99.9),
               ("max_ns", 100))


def run(command, timeout=300):
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def simulate(sim, work, name, seed, resolution=0, event_mask=7, mixed="size=60-1514,count=300",
             extra=()):
    """One run; returns (stat pcap path, truth rows, simulator summary)."""
    stats = os.path.join(work, name + ".pcap")
    truth = os.path.join(work, name + ".csv")
    command = [sim, "--seed", str(seed)] + list(extra) + [
               "--write", "evcap.resolution=%d" % resolution,
               "--write", "evcap.event_mask=%d" % event_mask,
               "--write", "evcap.output_ports=%#x" % (1 << STAT_PORT),
               "--write", "evcap.control=1",
               "--port", "0:gen=0.6,to=3," + mixed, "--port", "1:gen=0.6,to=3," + mixed,
               "--port", "2:gen=0.4,to=3," + mixed, "--port", "3:gen=0.9,to=1," + mixed,
               "--port", "%d:out=%s" % (STAT_PORT, stats), "--sojourn-truth", truth]
    status, out, err = run(command)
    if status != 0:
        raise RuntimeError("pktstats-sim exited with %d: %s" % (status, err.strip()))
    rows = []
    with open(truth) as f:
        header = f.readline().strip().split(",")
        for line in f:
            rows.append(dict(zip(header, line.strip().split(","))))
    for r in rows:
        for key in ("queue", "commit_cycle", "depart_cycle", "words"):
            r[key] = int(r[key])
    return stats, rows, parse_summary(out)


def is_stat_packet(frame):
    """IPv4/UDP to the stat packets' port (CPU port 7 also gets the frames flooded before the
    switch has learned their destination)."""
    return (len(frame) >= 88 and frame[12:14] == b"\x08\x00" and frame[23] == 17
            and struct.unpack_from(">H", frame, 36)[0] == 27033)


def packet_starts(frames):
    """The first timestamp (tick) of each stat packet (Ethernet/IPv4/UDP, no tag)."""
    starts = []
    for _, frame in frames:
        high, low = struct.unpack_from(">II", frame, 42 + 38)
        starts.append((high & 0x3fffffff) << 32 | low)
    return starts


def sojourn_rows(pktstats, pcap):
    status, out, err = run([pktstats, "decode", "--sojourn", "--csv", pcap])
    if status != 0:
        raise RuntimeError("decode --sojourn: exit %d: %s" % (status, err.strip()))
    lines = out.splitlines()
    header = lines[0].split(",")
    return [dict(zip(header, (int(x) for x in line.split(",")))) for line in lines[1:]], err


def departures_in(pktstats, pcap):
    """Departure events per queue in a capture, from the decoder's event rows."""
    status, out, _ = run([pktstats, "decode", "--csv", pcap])
    counts = [0] * 8
    for line in out.splitlines()[1:]:
        fields = line.split(",")
        if fields[2] == "departure":
            counts[int(fields[1])] += 1
    return counts


def summary_of(pktstats, pcap):
    status, out, err = run([pktstats, "-j", "decode", "--summary", "--sojourn", pcap])
    if status != 0:
        raise RuntimeError("-j decode --summary --sojourn: exit %d: %s"
                           % (status, err.strip()))
    return json.loads(out)


def check_exact(tap, name, rows, truth, resolution):
    """Every timed row is a truth frame: departure, arrival and length exact at the tick."""
    by_departure = {}
    for t in truth:
        by_departure.setdefault((t["queue"], t["depart_cycle"] >> resolution), []).append(t)
    wrong = []
    for r in rows:
        candidates = by_departure.get((r["queue"], r["departure_ns"] // 8 >> resolution), [])
        match = [t for t in candidates
                 if (t["commit_cycle"] >> resolution << resolution) * 8 == r["arrival_ns"]
                 and min(t["words"], 255) * 8 == r["length_bytes"]]
        exact = (r["departure_ns"] % (8 << resolution) == 0 and len(candidates) == 1
                 and len(match) == 1
                 and r["delay_ns"] == r["departure_ns"] - r["arrival_ns"])
        if not exact:
            wrong.append("queue %d departure %d ns: arrival %d ns, truth %s"
                         % (r["queue"], r["departure_ns"], r["arrival_ns"],
                            ["%d..%d" % (t["commit_cycle"], t["depart_cycle"])
                             for t in candidates] or "none"))
    tap.point(rows and not wrong, "%s: each of %d timed frames has its true arrival and "
              "departure clock and length" % (name, len(rows)),
              "%d wrong: %s" % (len(wrong), "\n".join(wrong[:10])))


def sojourn_table(summary):
    return {row["queue"]: row for row in summary["sojourn"]}


def check_complete(tap, name, table, departures):
    bad = [q for q in range(8) if table[q]["timed"] + table[q]["queued_before"] +
           table[q]["unsynchronised"] != departures[q]]
    tap.point(not bad, "%s: every departure in the capture is timed, queued before or "
              "unsynchronised (%d departures)" % (name, sum(departures)),
              "\n".join("queue %d: %d + %d + %d of %d" % (q, table[q]["timed"],
                        table[q]["queued_before"], table[q]["unsynchronised"], departures[q])
                        for q in bad))


def frames_across(truth, start_tick, resolution):
    """Per queue: frames committed before the clock of start_tick and departed after it (sure
    to be queued at that packet's snapshot), and frames committed or departed in that very
    clock (either side of the snapshot, by the order of the packet's events)."""
    sure, edge = [0] * 8, [0] * 8
    for t in truth:
        commit, depart = t["commit_cycle"] >> resolution, t["depart_cycle"] >> resolution
        if commit < start_tick < depart:
            sure[t["queue"]] += 1
        elif commit == start_tick or depart == start_tick:
            edge[t["queue"]] += 1
    return sure, edge


def read_columns(path):
    with open(path) as f:
        return [tuple(float(x) for x in line.split()) for line in f if line.strip()]


def check_plot(tap, pktstats, pcap, work, truth, summary):
    data, png = os.path.join(work, "plot-data"), os.path.join(work, "sojourn.png")
    status, _, err = run([pktstats, "plot", "--sojourn", pcap, "-o", png, "--data", data])
    with open(png, "rb") as f:
        head = f.read(24)
    size = struct.unpack(">II", head[16:24]) if len(head) == 24 else (0, 0)
    tap.point(status == 0 and head[:8] == b"\x89PNG\r\n\x1a\n" and size == (1600, 1200),
              "plot --sojourn: a 1600x1200 PNG", "exit %d, %s: %s" % (status, size, err))
    script = open(os.path.join(data, "plot.gp")).read()
    units = {"ns": 1, "\u00b5s": 1e-3, "ms": 1e-6, "s": 1e-9}
    delay_scale = units[script.split("set xlabel 'queueing delay (", 1)[1].split(")", 1)[0]]
    time_scale = units[script.split("departure time since the first stat packet (", 1)[1]
                       .split(")", 1)[0]]
    wrong = []
    for q in range(8):
        delays = sorted((t["depart_cycle"] - t["commit_cycle"]) * 8 for t in truth
                        if t["queue"] == q)
        points = read_columns(os.path.join(data, "cdf%d.dat" % q)) if delays else []
        n = len(delays)
        count = min(n, 2000)
        for i, (x, y) in enumerate(points, 1):
            rank = math.ceil(i / count * n)
            if abs(x - delays[rank - 1] * delay_scale) > 1e-6 * max(1, x) or \
                    abs(y - rank / n) > 1e-9:
                wrong.append("queue %d point %d: (%g, %g), truth (%g, %g)"
                             % (q, i, x, y, delays[rank - 1] * delay_scale, rank / n))
        if len(points) != count:
            wrong.append("queue %d: %d points for %d frames" % (q, len(points), n))
    tap.point(not wrong, "plot --sojourn: every queue's CDF is the truth's sorted delays at "
              "their ranks", "\n".join(wrong[:10]))
    first_ns, span_ns = summary["first_ns"], summary["span_ns"]
    band = {round(t / time_scale): (lo, hi) for t, lo, hi in
            read_columns(os.path.join(data, "delay3.dat"))}
    outside = []
    for t in truth:
        if t["queue"] != 3:
            continue
        step = int((t["depart_cycle"] * 8 - first_ns) / span_ns * 1999)
        at = round(span_ns * step / 1999)
        near = min(band, key=lambda k: abs(k - at))
        lo, hi = band[near]
        delay = (t["depart_cycle"] - t["commit_cycle"]) * 8 * delay_scale
        if abs(near - at) > 1 or not lo - 1e-6 <= delay <= hi + 1e-6:
            outside.append("departure clock %d, delay %g: step %d band %g..%g"
                           % (t["depart_cycle"], delay, step, lo, hi))
    tap.point(not outside, "plot --sojourn: every true delay of queue 3 lies in the band of its "
              "departure's time step", "\n".join(outside[:10]))


def nearest_rank(values, p):
    values = sorted(values)
    return values[max(1, math.ceil(p / 100 * len(values) - 1e-9)) - 1]


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    pktstats, sim = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else random.randrange(1, 1 << 30)
    tap = Tap()
    tap.comment("seed %d (test_cli_sojourn.py PKTSTATS SIM %d replays it)" % (seed, seed))
    with tempfile.TemporaryDirectory(prefix="pktstats-sojourn.") as work:
        # A whole capture at c = 0
        pcap, truth, sim_summary = simulate(sim, work, "incast", seed)
        removed = [sim_summary["queues"][q][1] for q in range(8)]
        per_queue = [sum(1 for t in truth if t["queue"] == q) for q in range(8)]
        tap.point(per_queue == removed and sim_summary["missed"] == 0,
                  "truth: one line per frame that left each queue (%s), no event missed"
                  % per_queue, "simulator's counters: %s" % removed)
        tap.point(all(t["commit_cycle"] < t["depart_cycle"] for t in truth) and
                  sim_summary["queues"][3][2] > 0,
                  "truth: every frame left after it was committed; queue 3 dropped %d frames"
                  % sim_summary["queues"][3][2])
        rows, _ = sojourn_rows(pktstats, pcap)
        check_exact(tap, "whole capture", rows, truth, 0)
        summary = summary_of(pktstats, pcap)
        table = sojourn_table(summary)
        departures = departures_in(pktstats, pcap)
        check_complete(tap, "whole capture", table, departures)
        tap.point(all(table[q]["timed"] == removed[q] for q in range(8)) and
                  sum(table[q]["queued_before"] + table[q]["unsynchronised"]
                      for q in range(8)) == 0,
                  "whole capture: every frame timed, as many per queue as left it (%s)"
                  % [table[q]["timed"] for q in range(8)])
        wrong = []
        for q in range(8):
            delays = [(t["depart_cycle"] - t["commit_cycle"]) * 8 for t in truth
                      if t["queue"] == q]
            for key, p in PERCENTILES:
                want = nearest_rank(delays, p) if delays else None
                if table[q][key] != want:
                    wrong.append("queue %d %s: %s, truth %s" % (q, key, table[q][key], want))
        tap.point(not wrong, "summary: p50, p90, p99, p99.9 and max of every queue are the "
                  "truth's nearest-rank percentiles (queue 3 p50 %d ns)" % table[3]["p50_ns"],
                  "\n".join(wrong))

        check_plot(tap, pktstats, pcap, work, truth, summary)

        # --time-of-day: the pair 1764072000.5 s at timer 1000, no trim: 8 ns a clock from there
        status, out, err = run([pktstats, "decode", "--sojourn", "--csv", "--time-of-day",
                                "1764072000.5@1000", pcap])
        lines = out.splitlines()
        header = lines[0].split(",") if lines else []
        tod = [dict(zip(header, (int(x) for x in line.split(",")))) for line in lines[1:]]
        pair_ns = 1764072000 * 10**9 + 500000000
        wrong = [r for r in tod if r["arrival_time_of_day_ns"] != pair_ns + r["arrival_ns"] - 8000
                 or r["departure_time_of_day_ns"] != pair_ns + r["departure_ns"] - 8000]
        tap.point(status == 0 and len(tod) == len(rows) and not wrong and
                  [r["arrival_ns"] for r in tod] == [r["arrival_ns"] for r in rows],
                  "decode --sojourn --time-of-day TIME@TIMER: every timed frame's arrival and "
                  "departure also as the time of day (the pair + 8 ns a clock), %d rows" % len(tod),
                  "exit %d, %d rows of %d, %d wrong: %s %s" % (status, len(tod), len(rows), len(wrong),
                                                           wrong[:2], err))

        # The capture started late, while queue 3 was fullest
        frames = [f for f in read_pcap(pcap) if is_stat_packet(f[1])]
        starts = packet_starts(frames)
        occupancy3 = [struct.unpack_from(">I", f, 42 + 6 + 4 * 3)[0] for _, f in frames]
        k = max(range(1, len(frames) - 1), key=lambda i: occupancy3[i])
        late = os.path.join(work, "late.pcap")
        write_timed_pcap(late, frames[k:])
        rows, _ = sojourn_rows(pktstats, late)
        check_exact(tap, "late start", rows, truth, 0)
        table = sojourn_table(summary_of(pktstats, late))
        check_complete(tap, "late start", table, departures_in(pktstats, late))
        sure, edge = frames_across(truth, starts[k], 0)
        bad = [q for q in range(8)
               if not sure[q] <= table[q]["queued_before"] <= sure[q] + edge[q]
               or table[q]["unsynchronised"] != 0]
        tap.point(not bad and sure[3] > 0,
                  "late start (queue 3 at %d words): the frames queued then are counted as "
                  "queued before (%d on queue 3), never timed" % (occupancy3[k], sure[3]),
                  "\n".join("queue %d: %d queued before, truth %d (+%d in that clock), %d "
                            "unsynchronised" % (q, table[q]["queued_before"], sure[q],
                                                edge[q], table[q]["unsynchronised"])
                            for q in bad))

        # A stat packet lost in the middle
        k = len(frames) // 2
        gap = os.path.join(work, "gap.pcap")
        write_timed_pcap(gap, frames[:k] + frames[k + 1:])
        rows, err = sojourn_rows(pktstats, gap)
        check_exact(tap, "gap", rows, truth, 0)
        table = sojourn_table(summary_of(pktstats, gap))
        check_complete(tap, "gap", table, departures_in(pktstats, gap))
        sure, edge = frames_across(truth, starts[k + 1], 0)
        bad = [q for q in range(8)
               if not sure[q] <= table[q]["queued_before"] <= sure[q] + edge[q]]
        tap.point(not bad and "queued before" in err,
                  "gap: the frames queued across the lost packet are counted as queued "
                  "before (%d), and said on stderr" % sum(sure),
                  "\n".join("queue %d: %d, truth %d (+%d)" % (q, table[q]["queued_before"],
                                                             sure[q], edge[q]) for q in bad)
                  + "\nstderr: " + err)

        # Resolution c = 3 (64 ns)
        pcap, truth, _ = simulate(sim, work, "coarse", seed + 1, resolution=3)
        rows, _ = sojourn_rows(pktstats, pcap)
        check_exact(tap, "resolution 64 ns", rows, truth, 3)
        table = sojourn_table(summary_of(pktstats, pcap))
        tap.point(sum(table[q]["timed"] for q in range(8)) == len(truth),
                  "resolution 64 ns: all %d frames timed" % len(truth))

        # Event types masked out of the capture
        pcap, truth, _ = simulate(sim, work, "no-arrivals", seed, event_mask=6)
        rows, err = sojourn_rows(pktstats, pcap)
        table = sojourn_table(summary_of(pktstats, pcap))
        departures = departures_in(pktstats, pcap)
        tap.point(not rows and sum(departures) == len(truth) and "inconsistent" in err,
                  "arrivals masked: no frame timed, the contradiction said on stderr",
                  "%d rows; stderr: %s" % (len(rows), err))
        status, _, err = run([pktstats, "plot", "--sojourn", pcap, "-o",
                              os.path.join(work, "none.png")])
        tap.point(status == 1 and len(err.strip().splitlines()) == 1 and
                  "could be timed" in err,
                  "arrivals masked: plot --sojourn exits 1, saying nothing could be timed",
                  "exit %d: %s" % (status, err))
        check_complete(tap, "arrivals masked", table, departures)
        status, out, err = run([pktstats, "decode", "--sojourn", "--summary", "--time-of-day",
                                "1764072000.5@1000", pcap])
        tap.point(status == 2 and not out and len(err.strip().splitlines()) == 1 and
                  "--summary" in err and "--time-of-day" in err,
                  "decode --sojourn --summary --time-of-day: exit 2, one line naming both",
                  "exit %d: %r" % (status, err))
        pcap, truth, _ = simulate(sim, work, "no-drops", seed, event_mask=3)
        rows, _ = sojourn_rows(pktstats, pcap)
        check_exact(tap, "drops masked", rows, truth, 0)
        tap.point(len(rows) == len(truth), "drops masked: all %d frames timed" % len(truth),
                  "%d timed" % len(rows))

        # Events the hardware missed: smaller frames, more of them, and the stat packets' CPU
        # port at 20 Mb/s, so that the capture's FIFO fills and the M flag comes on
        pcap, truth, sim_summary = simulate(sim, work, "missed", seed, mixed="size=60-300,count=1500",
                                            extra=["--cpu-rate", "2e7"])
        rows, err = sojourn_rows(pktstats, pcap)
        check_exact(tap, "events missed", rows, truth, 0)
        summary = summary_of(pktstats, pcap)
        table = sojourn_table(summary)
        check_complete(tap, "events missed", table, departures_in(pktstats, pcap))
        untimed = sum(table[q]["queued_before"] + table[q]["unsynchronised"] + table[q]["pending"]
                      for q in range(8))
        tap.point(sim_summary["missed"] > 0 and summary["m_flags"] > 0 and
                  summary["sojourn_losses"].get("missed", 0) > 0 and untimed > 0,
                  "events missed (%d, by the simulator's count): %d packets with the M flag, "
                  "%d frames timed of %d, %d not (counted), the loss said as missed" % (
                      sim_summary["missed"], summary["m_flags"], len(rows), len(truth), untimed),
                  json.dumps({k: summary[k] for k in ("m_flags", "sojourn_resyncs", "sojourn_losses")}))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
