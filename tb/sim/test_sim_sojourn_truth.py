#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-sim's sojourn truth file (--sojourn-truth, issue 19) against what the simulator's
own queue bookkeeping did not compute: the frames the ports took in (rx= pcaps), the frames
they sent (out= pcaps), the wire truth file and the queue counters the switch itself keeps.

    tb/sim/test_sim_sojourn_truth.py build/bin/pktstats-sim [--seed S] [--only NAME]

Scenarios (static table entries for every port's generator address, written with --write, so
that a frame's queues follow from its destination address alone):
  - incast: MAC ports 0, 1, 2 at line rate, 60..1514 bytes, to port 3: queue 3 fills and
    drops; evcap's stat packets leave by port 3 too, between the queue's frames;
  - many: a generator on every port, each to another port, all 8 queues busy at once, the CPU
    ports' queues included; stat packets out of ports 1 and 6, the flow-latency monitor's IPFIX
    messages out of port 1;
  - broadcast: broadcasts from a MAC and a CPU port (each in 7 queues) among unicast frames,
    stat packets out of ports 0 and 5;
  - bursts: the incast in on/off bursts, idle between, run with --idle-skip on and off: the two
    runs' files (sojourn truth included) must be byte-identical and the skipping run skip;
  - bursts-200: the bursts of seed 200 whatever the seed, where a stat packet closed by its
    flush timeout just before the idle skip's quiet count was reached used to be skipped over;
  - short: frames of 6..120 bytes (and longer ones) from CPU port 4, to a CPU port, a MAC port
    (which pads them to 60 bytes) or everywhere, among line-rate frames from port 0.

Checked for every line of every scenario (W = the frame's words as queued, ceil(its bytes in /
8); rx clock = the rx= pcap's time / 8 ns, the clock in which the switch took its first word;
out clock = the out= pcap's time / 8 ns, the clock of its first word's handshake on the way
out):
  - order: per queue, the lines' frame_hash and length are, in order, those of the frames in
    that port's out= pcap that are not stat packets or IPFIX messages, and on a MAC port those
    of the wire truth's tx lines of that port (the same frames, the same order);
  - commit: commit_cycle = rx clock + W + 10 for W >= 7 (every frame from a generator): the
    input arbiter's output register (1 clock), the port lookup (3), the link-delay engines'
    steer, which holds a frame until its 7th word or its last is in (7 for every word of a
    frame of 7 words or more), the queue committing in the clock its last word is written; the
    last word is taken W - 1 clocks after the first. Shorter frames wait W to 7 clocks in the
    steer: rx clock + 2 W + 3 <= commit_cycle <= rx clock + W + 10;
  - depart: on a MAC port depart_cycle = out clock + 8 (W - 1) = tx line's clock + 1 + 8 (W - 1)
    (the MAC takes word j >= 2 in the clock 8 j after the first, sim/mac_model.h; the wire
    truth's clock is the one before the handshake's in this count); on a CPU port (8 Gb/s, one
    word per clock) depart_cycle = out clock + W - 1;
  - commit_cycle < depart_cycle, both given;
  - words = ceil(length / 8), or for a frame a MAC port padded to 60 bytes ceil(bytes queued / 8);
  - totals: lines per queue = frames out of that port less stat packets and IPFIX messages =
    the queue's frames_removed = frames_stored (read through the register bus at the end);
    stat packets in the pcaps = evcap.packets_sent times the ports they go to;
  - drops: per queue, the frames the rx= pcaps show were switched to it (by destination
    address: its static entry, or every port but the source for a group address) and have no
    line are as many as its frames_dropped, every line is one of those frames, once; and the
    incast's queue 3 dropped.

Seen failing with the simulator broken on purpose (each check at least once): the bytes of a
stat packet not forgotten at its end (order, drops); the commit's clock one late (commit);
the departure's one late (depart); each departure paired with the newest commit instead of the
oldest (commit, commit < depart); the two clocks swapped (commit, depart, commit < depart);
the words of queue p ^ 1 (words); no lines for the CPU ports' queues (totals, drops); the
harness counting its own clocks, missing the skipped ones (bursts: on and off differ, commit,
depart); frames under 60 bytes not padded (short: order); the header misspelt (the first point
of each scenario).
"""

import argparse
import collections
import csv
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
from oam_frames import read_pcap, write_timed_pcap  # noqa: E402
from tap_output import Tap  # noqa: E402

PORTS = 8
MAC_PORTS = 4
HEADER = "queue,commit_cycle,depart_cycle,words,length,frame_hash"
STAT_UDP_PORT = 0x6999   # evcap.udp_destination_port's reset value
IPFIX_UDP_PORT = 4739    # flowlat.ipfix_ports' reset value
# Clocks from a word's handshake at a switch input to its write into a queue, for frames of
# 7 words or more: the input arbiter's output register (1), the port lookup (3), the steer (7)
PIPELINE = 11
# flowlat rule 0: valid, all four MAC ports' egress, any protocol and ports, profile 0
FLOWLAT_RULE_ANY = (1 << 31) | (0xF << 24) | (1 << 22) | (1 << 21) | (1 << 20)


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h


def port_mac(port):
    return bytes([2, 0, 0, 0, 0, port + 1])


def static_table():
    """--write arguments: a static entry for every port's generator address (to=M goes to M)."""
    args = []
    for p in range(PORTS):
        args += ["--write", "switch.table_index=%d" % p,
                 "--write", "switch.table_mac=0x%s" % port_mac(p).hex(),
                 "--write", "switch.table_entry=%d" % (p | 0x300),
                 "--write", "switch.table_command=1"]
    return args


def outputs(ports):
    args = []
    for p in ports:
        args += ["--port", "%d:rx=rx%d.pcap" % (p, p)]
    for p in range(PORTS):
        args += ["--port", "%d:out=out%d.pcap" % (p, p)]
    return args + ["--sojourn-truth", "sojourn.csv", "--wire-truth", "wire.csv"]


def incast(rng):
    args = static_table() + ["--write", "evcap.output_ports=0x8", "--write",
                             "evcap.flush_timeout=%d" % rng.choice([1000, 3000, 10000]),
                             "--write", "evcap.control=1", "--duration", "1500us"]
    for p in range(3):
        args += ["--port", "%d:gen=1,size=60-1514,to=3,seed=%d" % (p, rng.randrange(1 << 30))]
    return args + outputs(range(3)), [0, 1, 2], {}


def many(rng):
    args = static_table() + ["--write", "evcap.output_ports=0x42", "--write", "evcap.flush_timeout=2000",
                             "--write", "evcap.control=1",
                             "--write", "flowlat.rule_control_0=%d" % FLOWLAT_RULE_ANY,
                             "--write", "flowlat.flush_timeout_us=50",
                             "--write", "flowlat.template_interval_s=1",
                             "--write", "flowlat.control=0x203", "--duration", "1ms"]
    shift = rng.randrange(1, PORTS)  # port p sends to p + shift: one source for every queue
    for p in range(PORTS):
        to = (p + shift) % PORTS
        rate = rng.uniform(0.5, 0.95) if p < MAC_PORTS else rng.uniform(0.03, 0.12)
        size = rng.choice(["60-1514", "imix", "60", "1514"])
        args += ["--port", "%d:gen=%.3f,size=%s,to=%d,seed=%d" % (p, rate, size, to, rng.randrange(1 << 30))]
    return args + outputs(range(PORTS)), list(range(PORTS)), {}


def broadcast(rng):
    args = static_table() + ["--write", "evcap.output_ports=0x21", "--write", "evcap.flush_timeout=4000",
                             "--write", "evcap.control=1", "--duration", "1ms",
                             "--port", "0:gen=%.3f,size=60-1514,seed=%d" % (rng.uniform(0.3, 0.6), rng.randrange(1 << 30)),
                             "--port", "4:gen=%.3f,size=imix,seed=%d" % (rng.uniform(0.03, 0.06), rng.randrange(1 << 30)),
                             "--port", "2:gen=0.5,size=60-1514,to=1,seed=%d" % rng.randrange(1 << 30),
                             "--port", "6:gen=0.05,size=60-1514,to=3,seed=%d" % rng.randrange(1 << 30)]
    return args + outputs([0, 2, 4, 6]), [0, 2, 4, 6], {}


def bursts(rng):
    args = static_table() + ["--write", "evcap.output_ports=0x8", "--write", "evcap.flush_timeout=5000",
                             "--write", "evcap.control=1", "--duration", "4ms"]
    for p in range(3):
        args += ["--port", "%d:gen=1,size=60-1514,to=3,on=%dus,off=%dus,seed=%d"
                 % (p, rng.randrange(80, 200), rng.randrange(600, 1200), rng.randrange(1 << 30))]
    return args + outputs(range(3)), [0, 1, 2], {}


def short(rng):
    """Frames of 6..120 bytes (and some long ones) from CPU port 4, back to back, to a CPU port
    (5), a MAC port (1: padded to 60 bytes on the wire) or everywhere; port 0 adds frames to
    port 5 at line rate, so that the short ones also queue behind others in the switch."""
    frames, t = [], 0
    for i in range(600):
        size = rng.choice([rng.randrange(6, 121), rng.randrange(6, 121), rng.randrange(121, 1515)])
        kind = rng.randrange(3)
        # every frame unique: its source address, or a group destination address of its own
        # when it has no whole source address
        group = bytes([1, 0, 0x5e, 1 if size < 12 else 0, i >> 8, i & 255])
        destination = group if size < 12 or kind == 2 else port_mac(5) if kind == 0 else port_mac(1)
        payload = bytes(rng.randrange(256) for _ in range(106))
        frame = (destination + bytes([2, 0, 0, 1, i >> 8, i & 255]) + b"\x88\xb5" + payload + bytes(1514))[:size]
        frames.append((t, frame))
        t += rng.choice([0, 0, 0, 100, 2000])
    args = static_table() + ["--write", "evcap.output_ports=0x2", "--write", "evcap.control=1",
                             "--duration", "%dus" % (t // 1000 + 200), "--port", "4:in=short.pcap",
                             "--port", "0:gen=1,size=60-1514,to=5,seed=%d" % rng.randrange(1 << 30)]
    return args + outputs([0, 4]), [0, 4], {"short.pcap": frames}


def bursts_200(_):
    """The bursts of seed 200, whatever the seed: a stat packet closed by its flush timeout 3
    clocks before the idle skip's quiet count reached 256 was skipped over while it was
    prepared, and left late (the fix: sim/switch_simulation.cpp, step())."""
    return bursts(random.Random("200 bursts"))


SCENARIOS = [("incast", incast), ("many", many), ("broadcast", broadcast), ("bursts", bursts),
             ("bursts-200", bursts_200), ("short", short)]


def words_of(length):
    return (length + 7) // 8


def is_switch_frame(frame):
    """A stat packet or an IPFIX message: IPv4/UDP to evcap's or the exporter's port."""
    return (len(frame) >= 38 and frame[12:14] == b"\x08\x00" and frame[23] == 17
            and int.from_bytes(frame[36:38], "big") in (STAT_UDP_PORT, IPFIX_UDP_PORT))


def is_stat_packet(frame):
    return is_switch_frame(frame) and int.from_bytes(frame[36:38], "big") == STAT_UDP_PORT


def read_sojourn(path):
    with open(path) as f:
        header = f.readline().strip()
        rows = list(csv.DictReader(f, fieldnames=HEADER.split(",")))
    return header, rows


def destinations(frame, source):
    """The queues the switch puts a frame in: its static entry's, or all but the source."""
    if len(frame) < 6:
        return []
    da = frame[0:6]
    if da[0] & 1:
        return [q for q in range(PORTS) if q != source]
    for q in range(PORTS):
        if da == port_mac(q):
            return [q] if q != source else []
    return [q for q in range(PORTS) if q != source]


def check(tap, name, work, result, inputs, stat_ports):
    problems = collections.defaultdict(list)  # check -> messages

    def fail(what, text):
        problems[what].append(text)

    summary = pktstats_sim.parse_summary(result.stdout)
    header, lines = read_sojourn(os.path.join(work, "sojourn.csv"))
    tap.point(result.returncode == 0 and summary["complete"] and header == HEADER and lines,
              "%s: the run ends drained (exit 0), sojourn.csv has the header and %d lines" % (name, len(lines)),
              "exit %d, header %r\n%s%s" % (result.returncode, header, result.stderr, result.stdout[-2000:]))

    # What went in: every frame by its hash (generated frames are unique: source port, sequence)
    rx = {}  # by hash, also of the frame padded as a MAC port sends it
    rx_frames = []  # (input port, its hashes)
    duplicates = 0
    for p in inputs:
        for t, frame in read_pcap(os.path.join(work, "rx%d.pcap" % p)):
            keys = [fnv1a(frame)] + ([fnv1a(frame + bytes(60 - len(frame)))] if len(frame) < 60 else [])
            for h in keys:
                duplicates += h in rx
                rx[h] = (p, t // 8, frame)
            rx_frames.append((p, frame, keys))
    out = {p: read_pcap(os.path.join(work, "out%d.pcap" % p)) for p in range(PORTS)}
    wire_tx = collections.defaultdict(list)
    for row in pktstats_sim.read_wire_truth(os.path.join(work, "wire.csv")):
        if row["direction"] == "tx":
            wire_tx[row["port"]].append(row)
    for p in wire_tx:
        wire_tx[p].sort(key=lambda r: r["clock"])

    per_queue = collections.defaultdict(list)
    for row in lines:
        per_queue[int(row["queue"])].append(row)

    stat_packets = ipfix_messages = 0
    checked = collections.Counter()
    for q in range(PORTS):
        frames = out[q]
        stat_packets += sum(1 for _, f in frames if is_stat_packet(f))
        ipfix_messages += sum(1 for _, f in frames if is_switch_frame(f) and not is_stat_packet(f))
        # (position in the port's output, time, bytes) of the queue's frames
        from_queue = [(i, t, f) for i, (t, f) in enumerate(frames) if not is_switch_frame(f)]
        mine = per_queue.get(q, [])
        tx = wire_tx.get(q, [])
        if q < MAC_PORTS and [r["frame_hash"] for r in tx] != [fnv1a(f) for _, f in frames]:
            fail("order", "port %d: the wire truth's tx lines are not the out= pcap's frames" % q)
        # totals: lines = frames out less the switch's own = frames_removed = frames_stored
        stored, removed, dropped = summary["queues"][q]
        if not (len(mine) == len(from_queue) == removed == stored):
            fail("totals", "queue %d: %d lines, %d frames out of the port less stat packets and IPFIX, "
                 "frames_removed %d, frames_stored %d" % (q, len(mine), len(from_queue), removed, stored))
        # order, commit, depart, per line, in departure order
        for row, (i, t, frame) in zip(mine, from_queue):
            length, words = int(row["length"]), int(row["words"])
            if row["frame_hash"] != fnv1a(frame) or length != len(frame):
                fail("order", "queue %d: line %s, next frame out of the port %s, %d bytes"
                     % (q, dict(row), fnv1a(frame), len(frame)))
                continue
            if row["depart_cycle"] == "" or row["commit_cycle"] == "":
                fail("totals", "queue %d: a line without a cycle: %s" % (q, dict(row)))
                continue
            commit, depart = int(row["commit_cycle"]), int(row["depart_cycle"])
            if not commit < depart:
                fail("order of cycles", "queue %d: commit %d not before depart %d" % (q, commit, depart))
            source = rx.get(row["frame_hash"])
            # a MAC port pads: the queue held the frame's own bytes
            queued = len(source[2]) if source and q < MAC_PORTS and length == 60 else length
            if queued < 255 * 8 and words != words_of(queued):
                fail("words", "queue %d: %d words for %d bytes (%d queued)" % (q, words, length, queued))
            if source is None:
                fail("commit", "queue %d: frame %s is in no rx= pcap" % (q, row["frame_hash"]))
            else:
                p, first, in_frame = source
                w = words_of(len(in_frame))
                if w >= 7 and commit != first + w - 1 + PIPELINE:
                    fail("commit", "queue %d: frame %s in on port %d, first word in clock %d, %d words: "
                         "commit %d, expected %d" % (q, row["frame_hash"], p, first, w, commit,
                                                     first + w - 1 + PIPELINE))
                elif w < 7 and not first + 2 * w + 3 <= commit <= first + w - 1 + PIPELINE:
                    fail("commit", "queue %d: short frame %s: commit %d outside [%d, %d]"
                         % (q, row["frame_hash"], commit, first + 2 * w + 3, first + w - 1 + PIPELINE))
            out_clock = t // 8
            w = words_of(queued)  # the frame's words, from its bytes (not the line's words)
            if q < MAC_PORTS:
                pace = 0 if w == 1 else 1 if w == 2 else 8 * (w - 1)
                line = tx[i] if i < len(tx) else None
                if line is None or depart != out_clock + pace or depart != line["clock"] + 1 + pace:
                    fail("depart", "queue %d: frame %s, %d words, out in clock %d (tx line's clock %s): "
                         "depart %d, expected %d" % (q, row["frame_hash"], w, out_clock,
                                                     line["clock"] if line else "none", depart, out_clock + pace))
            elif depart != out_clock + w - 1:
                fail("depart", "queue %d: frame %s, %d words, out in clock %d: depart %d, expected %d"
                     % (q, row["frame_hash"], w, out_clock, depart, out_clock + w - 1))
            checked[q] += 1
        # drops: the frames switched to q that have no line are its drops
        offered = [keys for p, f, keys in rx_frames if q in destinations(f, p)]
        hashes = collections.Counter(r["frame_hash"] for r in mine)
        offered_hashes = set(h for keys in offered for h in keys)
        strangers = [h for h in hashes if h not in offered_hashes]
        lost = [keys for keys in offered if not any(h in hashes for h in keys)]
        if strangers or len(lost) != dropped or any(hashes[h] > 1 for h in hashes):
            fail("drops", "queue %d: %d frames switched to it, %d lines (%d of frames not switched to it), "
                 "frames_dropped %d" % (q, len(offered), len(mine), len(strangers), dropped))
    if len(lines) != sum(len(v) for v in per_queue.values()) or set(per_queue) - set(range(PORTS)):
        fail("totals", "lines of queues outside 0..7")
    # a stat packet leaves by every port of evcap.output_ports
    if stat_packets != summary["packets"] * bin(stat_ports).count("1"):
        fail("totals", "%d stat packets in the pcaps, evcap.packets_sent %d to %d ports"
             % (stat_packets, summary["packets"], bin(stat_ports).count("1")))
    if duplicates:
        fail("commit", "%d frames in the rx= pcaps are not unique" % duplicates)
    drops = {q: summary["queues"][q][2] for q in range(PORTS)}
    tap.comment("%s: lines per queue %s; frames_dropped %s; %d stat packets, %d IPFIX messages"
                % (name, dict(sorted(checked.items())), drops, stat_packets, ipfix_messages))
    for what, text in (("order", "every line is, per queue in order, the next frame out of its port "
                        "(out= pcap less stat packets and IPFIX; wire truth tx lines on MAC ports)"),
                       ("commit", "commit_cycle = rx clock + W + 10 for W >= 7 words, within rx clock + 2 W + 3 .. "
                        "rx clock + W + 10 for shorter frames"),
                       ("depart", "depart_cycle = out clock + 8 (W - 1) = tx clock + 1 + 8 (W - 1) on MAC "
                        "ports, out clock + W - 1 on CPU ports"),
                       ("order of cycles", "commit_cycle < depart_cycle"),
                       ("words", "words = ceil(length / 8) (of the bytes queued, for frames a MAC port padded)"),
                       ("totals", "lines per queue = frames out less the switch's own = frames_removed = "
                        "frames_stored; stat packets in the pcaps = evcap.packets_sent x their ports"),
                       ("drops", "per queue, the frames switched to it (rx= pcaps) without a line are "
                        "frames_dropped in number, and every line is one of them, once")):
        tap.point(not problems[what] and len(lines) > 0, "%s: %s" % (name, text), "\n".join(problems[what][:10]))
    return drops


def run(simulator, work, args, mode=None):
    """The simulator in `work` (--idle-skip=MODE if given; else its default, which
    PKTSTATS_SIM_IDLE_SKIP may set)."""
    os.makedirs(work, exist_ok=True)
    return subprocess.run([simulator] + (["--idle-skip=" + mode] if mode else []) + args, cwd=work,
                          capture_output=True, text=True, timeout=600)


def skipped_clocks(text):
    m = re.search(r"^idle clocks skipped: (\d+)", text, re.M)
    return int(m.group(1)) if m else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("--seed", type=int, help="seed of the scenarios' random choices")
    parser.add_argument("--only", help="one scenario")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap = Tap()
    tap.comment("seed %d (replay: %s SIMULATOR --seed %d [--only NAME])" % (seed, sys.argv[0], seed))
    simulator = os.path.abspath(options.simulator)
    base = tempfile.mkdtemp(prefix="pktstats-sojourn-")
    try:
        for name, scenario in SCENARIOS:
            if options.only not in (None, name):
                continue
            args, inputs, files = scenario(random.Random("%d %s" % (seed, name)))
            tap.comment("%s: %s" % (name, " ".join(args)))
            try:
                work = os.path.join(base, name)
                os.makedirs(work)
                for file_name, frames in files.items():
                    write_timed_pcap(os.path.join(work, file_name), frames)
                skip_compared = name.startswith("bursts")
                result = run(simulator, work, args, "on" if skip_compared else None)
                stat_ports = int(re.search(r"evcap\.output_ports=(0x[0-9a-f]+)", " ".join(args)).group(1), 16)
                drops = check(tap, name, work, result, inputs, stat_ports)
                if name == "incast":
                    tap.point(drops[3] > 0, "incast: queue 3 dropped frames (%d)" % drops[3])
                if skip_compared:
                    clocked = run(simulator, os.path.join(base, name + "-clocked"), args, "off")
                    files = sorted(f for f in os.listdir(work) if f.endswith((".pcap", ".csv")))
                    different = [f for f in files if open(os.path.join(work, f), "rb").read()
                                 != open(os.path.join(base, name + "-clocked", f), "rb").read()]
                    skipped = skipped_clocks(result.stdout)
                    tap.point(clocked.returncode == 0 and not different and skipped > 0 and "sojourn.csv" in files,
                              "%s: --idle-skip on (%d clocks skipped) and off give byte-identical files, "
                              "sojourn.csv included (%d files)" % (name, skipped, len(files)),
                              "exit %d, different: %s\n%s" % (clocked.returncode, different, clocked.stderr))
            except Exception as error:  # a broken run is a failure, not a crash of the suite
                tap.point(False, "%s: run" % name, repr(error))
        if options.only in (None, "usage"):
            for args, words in ((["--sojourn-truth", ""], "--sojourn-truth: empty path"),
                                (["--switch", "0:sojourn-truth="], "empty 'sojourn-truth='"),
                                (["--switch", "1:sojourn-truth=x.csv"], "out of range")):
                result = subprocess.run([simulator] + args, capture_output=True, text=True, timeout=60)
                tap.point(result.returncode == 2 and words in result.stderr,
                          "%s: exit 2, says %r" % (" ".join(args), words),
                          "exit %d: %s" % (result.returncode, result.stderr))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
