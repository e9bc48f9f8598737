#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-exporter's queue figures from live stat packets, against what it did not compute:
the switch's own counters, the simulator's truth, and `pktstats decode` on a tcpdump capture of
the same stat packets (docs/monitoring.md, issue 30 item 2).

    tb/exporter/test_exporter_sim.py build/bin/pktstats-sim build/asan/bin/pktstats \\
        build/asan/bin/pktstats-exporter [--seed S]

In a network namespace of its own: the simulated switch with an incast of mixed sizes (ports
0, 1, 2 to port 3, which tail-drops) while port 3 sends to port 1, a fixed number of frames
from each generator, capture on from the first clock (--write), resolution 8 ns, stat packets
out of CPU port 7 into a TAP. The exporter captures the TAP; so does tcpdump. When the traffic
is over and the last stat packet flushed, one scrape is compared with:

  totals     the stat packets and events the exporter decoded = the switch's evcap.packets_sent
             and events_sent, nothing missed, lost or malformed; tcpdump holds as many;
  decode     `pktstats -j decode --summary --sojourn` of tcpdump's capture: per queue the
             events and dropped bytes by type, the largest occupancy, the frames timed, queued
             before, unsynchronised; the stat packets' health (lost, gaps, resets, M flags,
             malformed);
  delays     the queueing-delay histogram: each bucket and the sum (to the nanosecond) = those
             of the delays `pktstats decode --sojourn --csv` lists, and = those of the
             simulator's per-frame truth (--sojourn-truth: depart - commit clocks x 8 ns), one
             observation per frame that left each queue;
  occupancy  the histogram of the occupancy each frame found = that of the events of
             `pktstats decode --csv` (before an arrival, at a drop); the largest occupancy =
             the simulator's occupancy truth (--truth); the peak window's = it too;
  bursts     microbursts above the threshold and their total time = the episodes of the
             occupancy rebuilt from the per-frame truth in the stat packets' event order
             (arrivals before departures within a clock);
  registers  the queues' stored, sent and dropped frames the exporter read = the simulator's
             summary; the stat packets' arrivals, departures and drops = the same.

Without root, /dev/net/tun, unshare or tcpdump, the checks are skipped.
"""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
from exposition_text import (DELAY_BOUNDS_NS, OCCUPANCY_BOUNDS, bucket_of,  # noqa: E402
                             free_port, histogram, http_get, kill_all, log_tails, parse,
                             value, wait_for)
from tap_output import Tap  # noqa: E402

TAP_NAME = "pxstat0"
STAT_PORT = 7
FRAMES = 2500            # per generator
THRESHOLD = 16384        # microburst threshold, bytes


def run(command, timeout=300):
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (command[0], proc.returncode, proc.stderr[-2000:]))
    return proc.stdout


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        return [dict(zip(header, line.strip().split(","))) for line in f if line.strip()]


def truth_episodes(truth_rows, threshold):
    """Per queue: the largest occupancy (words) and the microburst episodes (count, ns) of the
    occupancy rebuilt from each frame's commit and departure, in the stat packets' order of
    events within a clock (arrival before departure)."""
    events = {}
    for r in truth_rows:
        q, words = int(r["queue"]), int(r["words"])
        events.setdefault(q, []).append((int(r["commit_cycle"]), 0, words))
        events.setdefault(q, []).append((int(r["depart_cycle"]), 1, -words))
    result = {}
    for q, evs in events.items():
        evs.sort()
        occupancy, top, bursts, total, above, start = 0, 0, 0, 0, False, 0
        for clock, _, delta in evs:
            occupancy += delta
            top = max(top, occupancy)
            now_above = occupancy * 8 > threshold
            if now_above and not above:
                bursts += 1
                start = clock
            elif above and not now_above:
                total += (clock - start) * 8
            above = now_above
        result[q] = (top, bursts, total)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sim")
    parser.add_argument("pktstats")
    parser.add_argument("exporter")
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    for tool in ("unshare", "tcpdump"):
        if not shutil.which(tool):
            print("1..0 # SKIP %s is not installed" % tool)
            return 0
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        print("1..0 # SKIP needs root and /dev/net/tun")
        return 0
    pktstats_sim.in_private_network()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    print("# seed %d (replay: --seed %d)" % (seed, seed), flush=True)
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("over 240 s")))
    signal.alarm(240)
    tap = Tap()
    work = tempfile.mkdtemp(prefix="test_exporter_sim.")
    processes = []
    try:
        scenario(tap, args, seed, work, processes)
    except Exception as e:  # a failure of the run is a failed point, with the logs
        logs = log_tails(work, ("exporter.err", "sim.err"))
        tap.point(False, "the run", "%s: %s\n%s" % (type(e).__name__, e, logs))
    finally:
        kill_all(processes)
        signal.alarm(0)
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


def scenario(tap, args, seed, work, processes):
    sock = os.path.join(work, "sim.sock")
    stats = os.path.join(work, "stats.pcap")
    truth = os.path.join(work, "occupancy.csv")
    sojourn_truth = os.path.join(work, "sojourn.csv")
    mixed = "size=60-1514,count=%d" % FRAMES
    with open(os.path.join(work, "sim.out"), "w") as out, \
            open(os.path.join(work, "sim.err"), "w") as err:
        sim = subprocess.Popen(
            [args.sim, "--socket", sock, "--wait", "--seed", str(seed),
             "--write", "evcap.resolution=0", "--write", "evcap.flush_timeout=1250",
             "--write", "evcap.output_ports=%#x" % (1 << STAT_PORT),
             "--write", "evcap.control=1",
             "--port", "0:gen=0.6,to=3," + mixed, "--port", "1:gen=0.6,to=3," + mixed,
             "--port", "2:gen=0.4,to=3," + mixed, "--port", "3:gen=0.9,to=1," + mixed,
             "--port", "%d:tap=%s" % (STAT_PORT, TAP_NAME),
             "--truth", truth, "--sojourn-truth", sojourn_truth],
            stdout=out, stderr=err)
    processes.append(sim)
    conn = pktstats_sim.Connection(sock, timeout=60) if wait_for(lambda: os.path.exists(sock)) \
        else None
    if conn is None:
        raise RuntimeError("the simulator's socket did not appear")
    dump_err = open(os.path.join(work, "tcpdump.err"), "w")
    dump = subprocess.Popen(["tcpdump", "-i", TAP_NAME, "-w", stats, "-U", "-s", "0",
                             "--time-stamp-precision=nano", "udp dst port 27033"],
                            stdout=subprocess.DEVNULL, stderr=dump_err)
    processes.append(dump)
    if not wait_for(lambda: "listening on" in open(dump_err.name).read()):
        raise RuntimeError("tcpdump did not start")
    port = free_port()
    config = os.path.join(work, "exporter.conf")
    with open(config, "w") as f:
        f.write("# the switch under test\nlisten 127.0.0.1:%d\n"
                "switch s0,device=sim:%s,stat-interface=%s,microburst-threshold=%d\n"
                % (port, sock, TAP_NAME, THRESHOLD))
    exporter = subprocess.Popen([args.exporter, "config", config],
                                stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(work, "exporter.err"), "w"))
    processes.append(exporter)
    base = "http://127.0.0.1:%d" % port
    if not wait_for(lambda: ready(base)):
        raise RuntimeError("the exporter did not become ready")

    R = pktstats_sim.registers()
    conn.request("start")
    # the traffic is over when the queues are empty and the switch has sent no event for a
    # second of wall time (thousands of generator frame times)
    last = [None]

    def settled():
        occupancy = sum(conn.read(R["SWITCH_QUEUE_OCCUPANCY_%d" % q]) for q in range(8))
        sent = conn.read64(R["EVCAP_EVENTS_SENT"])
        done = occupancy == 0 and sent == last[0]
        last[0] = sent
        return done
    if not wait_for(settled, timeout=150, step=1.0):
        raise RuntimeError("the traffic did not end")
    conn.request("until +5000")  # beyond the flush timeout: the last packet is out
    packets_sent = conn.read64(R["EVCAP_PACKETS_SENT"])
    events_sent = conn.read64(R["EVCAP_EVENTS_SENT"])
    events_missed = conn.read64(R["EVCAP_EVENTS_MISSED"])

    def scrape():
        return parse(http_get(base + "/metrics", timeout=30)[1])
    if not wait_for(lambda: value(scrape(), "pktstats_stat_packets_received_total", switch="s0")
                    >= packets_sent, timeout=20):
        pass  # the totals point below says how many came
    samples = scrape()
    time.sleep(0.5)
    dump.send_signal(signal.SIGINT)
    dump.wait(10)
    exporter.send_signal(signal.SIGTERM)
    exporter.wait(10)
    conn.close()
    sim.send_signal(signal.SIGINT)
    sim.wait(60)
    with open(os.path.join(work, "sim.out")) as f:
        summary = pktstats_sim.parse_summary(f.read())

    received = value(samples, "pktstats_stat_packets_received_total", switch="s0")
    events = value(samples, "pktstats_stat_events_received_total", switch="s0")
    decoded = json.loads(run([args.pktstats, "-j", "decode", "--summary", "--sojourn", stats]))
    tap.point(received == packets_sent and events == events_sent and events_missed == 0 and
              decoded["packets"] == packets_sent and packets_sent > 100,
              "totals: the exporter decoded the switch's %d stat packets and %d events; "
              "none missed; tcpdump holds as many" % (packets_sent, events_sent),
              "exporter %s packets %s events; switch %d, %d, missed %d; tcpdump %d"
              % (received, events, packets_sent, events_sent, events_missed,
                 decoded["packets"]))

    # decode --summary --sojourn
    wrong = []
    queues = {row["queue"]: row for row in decoded["queues"]}
    sojourn = {row["queue"]: row for row in decoded["sojourn"]}
    for q in range(8):
        mine = {t: value(samples, "pktstats_queue_events_total", switch="s0", queue=q, type=t)
                for t in ("arrival", "departure", "drop")}
        theirs = {"arrival": queues[q]["arrivals"], "departure": queues[q]["departures"],
                  "drop": queues[q]["drops"]}
        checks = [(mine, theirs),
                  (value(samples, "pktstats_queue_event_bytes_total", switch="s0", queue=q,
                         type="drop"), queues[q]["dropped_bytes"]),
                  (value(samples, "pktstats_queue_occupancy_max_bytes", switch="s0", queue=q),
                   queues[q]["max_bytes"]),
                  (value(samples, "pktstats_queue_delay_seconds_count", switch="s0", queue=q),
                   sojourn[q]["timed"]),
                  (value(samples, "pktstats_queue_untimed_frames_total", switch="s0", queue=q,
                         reason="queued_before"), sojourn[q]["queued_before"]),
                  (value(samples, "pktstats_queue_untimed_frames_total", switch="s0", queue=q,
                         reason="unsynchronised"), sojourn[q]["unsynchronised"])]
        for mine_value, their_value in checks:
            if mine_value != their_value:
                wrong.append("queue %d: exporter %s, decode %s" % (q, mine_value, their_value))
    tap.point(not wrong, "decode summary: per queue the events by type, dropped bytes, largest "
              "occupancy, frames timed, queued before, unsynchronised equal `pktstats decode "
              "--summary --sojourn`'s", "\n".join(wrong))
    health = [("pktstats_stat_packets_missing_total", decoded["lost"]),
              ("pktstats_stat_packet_gaps_total", decoded["gaps"]),
              ("pktstats_stat_sequence_resets_total", decoded["resets"]),
              ("pktstats_stat_packets_missed_flag_total", decoded["m_flags"])]
    malformed = sum(value(samples, name, **dict(labels)) for (name, labels) in samples
                    if name == "pktstats_stat_packets_malformed_total")
    tap.point(all(value(samples, n, switch="s0") == v for n, v in health) and malformed == 0
              and decoded["malformed"] == 0,
              "decode health: lost, gaps, resets, M flags and malformed packets agree (all 0)",
              "%s; malformed %s / %s" % ([(n, value(samples, n, switch="s0"), v)
                                          for n, v in health], malformed, decoded["malformed"]))

    # delays
    rows = run([args.pktstats, "decode", "--sojourn", "--csv", stats]).splitlines()
    header = rows[0].split(",")
    delays = {q: [] for q in range(8)}
    for line in rows[1:]:
        r = dict(zip(header, line.split(",")))
        delays[int(r["queue"])].append(int(r["delay_ns"]))
    truth_rows = read_csv(sojourn_truth)
    true_delays = {q: [] for q in range(8)}
    for r in truth_rows:
        true_delays[int(r["queue"])].append((int(r["depart_cycle"]) - int(r["commit_cycle"])) * 8)
    wrong_decode, wrong_truth = [], []
    for q in range(8):
        counts, total, count = histogram(samples, "pktstats_queue_delay_seconds",
                                         DELAY_BOUNDS_NS, switch="s0", queue=q)
        for name, reference, wrong in (("decode", delays[q], wrong_decode),
                                       ("truth", true_delays[q], wrong_truth)):
            expect = [0] * (len(DELAY_BOUNDS_NS) + 1)
            for d in reference:
                expect[bucket_of(d, DELAY_BOUNDS_NS)] += 1
            if counts != expect or count != len(reference) or \
                    total * 10**9 != sum(reference):
                wrong.append("queue %d: buckets %s sum %s count %d; %s %s sum %d ns count %d"
                             % (q, counts, total, count, name, expect, sum(reference),
                                len(reference)))
    tap.point(not wrong_decode and sum(map(len, delays.values())) > 0,
              "delays vs decode: every bucket, the count and the sum (to the ns) of each "
              "queue's delay histogram are those of `decode --sojourn`'s %d delays"
              % sum(map(len, delays.values())), "\n".join(wrong_decode))
    tap.point(not wrong_truth, "delays vs truth: ... and of the simulator's %d per-frame truths "
              "(one per frame that left a queue)" % len(truth_rows), "\n".join(wrong_truth))

    # occupancy found
    events_csv = run([args.pktstats, "decode", "--csv", stats]).splitlines()
    header = events_csv[0].split(",")
    found = {q: [0] * (len(OCCUPANCY_BOUNDS) + 1) for q in range(8)}
    found_sum = {q: 0 for q in range(8)}
    for line in events_csv[1:]:
        r = dict(zip(header, line.split(",")))
        q, kind = int(r["queue"]), r["type"]
        if kind == "departure":
            continue
        before = int(r["occupancy_bytes"]) - (int(r["length_bytes"]) if kind == "arrival" else 0)
        found[q][bucket_of(max(before, 0), OCCUPANCY_BOUNDS)] += 1
        found_sum[q] += max(before, 0)
    wrong = []
    for q in range(8):
        counts, total, count = histogram(samples, "pktstats_queue_arrival_occupancy_bytes",
                                         OCCUPANCY_BOUNDS, switch="s0", queue=q)
        if counts != found[q] or total != found_sum[q]:
            wrong.append("queue %d: %s sum %s; decode %s sum %d" % (q, counts, total, found[q],
                                                                   found_sum[q]))
    tap.point(not wrong, "occupancy histogram: the occupancy each arriving or dropped frame "
              "found, bucket by bucket and summed, is that of `decode --csv`'s events",
              "\n".join(wrong))

    # the occupancy truth
    true_max = {q: 0 for q in range(8)}
    for r in read_csv(truth):
        q = int(r["queue"])
        true_max[q] = max(true_max[q], int(r["occupancy"]))
    wrong = ["queue %d: max %s peak %s, truth %d" % (
        q, value(samples, "pktstats_queue_occupancy_max_bytes", switch="s0", queue=q),
        value(samples, "pktstats_queue_occupancy_peak_bytes", switch="s0", queue=q),
        true_max[q] * 8) for q in range(8)
        if value(samples, "pktstats_queue_occupancy_max_bytes", switch="s0", queue=q)
        != true_max[q] * 8 or
        value(samples, "pktstats_queue_occupancy_peak_bytes", switch="s0", queue=q)
        != true_max[q] * 8]
    tap.point(not wrong and true_max[3] * 8 > THRESHOLD,
              "largest occupancy: each queue's, and its peak window's, is the simulator's "
              "occupancy truth (queue 3: %d bytes)" % (true_max[3] * 8), "\n".join(wrong))

    episodes = truth_episodes(truth_rows, THRESHOLD)
    wrong = []
    for q in range(8):
        top, bursts, total = episodes.get(q, (0, 0, 0))
        got_bursts = value(samples, "pktstats_queue_microbursts_total", switch="s0", queue=q)
        got_total = value(samples, "pktstats_queue_microburst_seconds_total", switch="s0",
                          queue=q)
        if got_bursts != bursts or got_total * 10**9 != total:
            wrong.append("queue %d: %s bursts, %s s; truth %d, %d ns" % (q, got_bursts, got_total,
                                                                        bursts, total))
    tap.point(not wrong and episodes.get(3, (0, 0, 0))[1] > 0,
              "microbursts: the episodes above %d bytes and their time equal those of the "
              "occupancy rebuilt from the per-frame truth (queue 3: %d)"
              % (THRESHOLD, episodes.get(3, (0, 0, 0))[1]), "\n".join(wrong))

    # registers and the events against the simulator's summary
    wrong_registers, wrong_events = [], []
    for q in range(8):
        stored, removed, dropped = summary["queues"][q]
        regs = [value(samples, "pktstats_queue_%s_frames_total" % n, switch="s0", queue=q)
                for n in ("stored", "sent", "dropped")]
        evs = [value(samples, "pktstats_queue_events_total", switch="s0", queue=q, type=t)
               for t in ("arrival", "departure", "drop")]
        if regs != [stored, removed, dropped]:
            wrong_registers.append("queue %d: %s, simulator %s" % (q, regs, summary["queues"][q]))
        if evs != [stored, removed, dropped]:
            wrong_events.append("queue %d: %s, simulator %s" % (q, evs, summary["queues"][q]))
    tap.point(not wrong_registers, "registers: each queue's stored, sent and dropped frames "
              "read at the scrape are the simulator's summary", "\n".join(wrong_registers))
    tap.point(not wrong_events, "events vs registers: the arrivals, departures and drops of the "
              "stat packets are those counts", "\n".join(wrong_events))


def ready(base):
    try:
        return http_get(base + "/-/ready", timeout=2)[0] == 200
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
