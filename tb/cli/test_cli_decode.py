#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats decode` and `pktstats record` (docs/cli.md), checked against pktstats-sim's ground
truth. TAP.

usage: test_cli_decode.py PATH/TO/pktstats PATH/TO/pktstats-sim

One simulator run makes the capture: an incast (ports 0, 1, 2 to port 3 with count=, so the
traffic ends and every queue drains), capture of all queues and events configured with the CLI
before the traffic starts, stat packets out of CPU port 7 into a pcap, the truth CSV. Then:
  truth     `decode --csv`: per queue, every change of the true occupancy is at an event's
            time, and the occupancy after the last event of each clock is the truth's;
  summary   `-j decode --summary`: maximum occupancy and time-weighted mean from the truth CSV
            (computed here, independently), event counts from the simulator's queue counters,
            no loss; max_time_ns null ('-' in the text table) for queues without events; and
            the text summary shows the same table; --queues selects the events and the rows;
  agree     the summary's figures (fast path) equal those computed from the -j event lines;
  json      every -j line is a JSON object with the documented keys, as many as the CSV rows;
  iso       --time-of-day with --iso: after each *time-of-day-ns column its ISO 8601 form, in
            every row of the table, --csv, -j and --sojourn --csv equal to Python's own
            conversion of the ns (datetime.fromtimestamp of the floored seconds, UTC, and
            the 9-digit remainder), before 1970 too (a pair later than the events); the rest
            of each output as without --iso; --iso without --time-of-day: exit 2 naming it;
  pcapng    the capture rewritten as pcapng decodes to the same CSV;
  malformed stat packets with a cut timestamp, a partial slot and a bad version, mixed in:
            counted by reason, reported on stderr, exit 0, the good packets decode as before;
  filter    the stat packets moved to UDP port 5555: nothing by default, all with --port 5555,
            also with --udp-port 5555, the even IP ids only with
            --filter 'udp dst port 5555 and ip[5] & 1 = 0';
  files     a missing file among good ones: exit 1, one line, the others still decoded; a
            file that is no capture: exit 1, nothing on stdout in any output mode;
  usage     bad command lines: exit 2, one line on stderr;
  record    (root and network namespaces; else skipped) stat packets sent into a veth pair in
            a namespace: -w -c N writes a pcap that decodes to the frames sent; -c N --csv
            decodes on the fly; SIGINT leaves a readable pcap and reports kernel drops;
            -G 1 stops after a second without traffic.
"""

import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import Simulator, Tap  # noqa: E402

PORT = 27033


def run(pktstats, args, timeout=120, device=None, stdin=None):
    env = dict(os.environ)
    env.pop("PKTSTATS_DEVICE", None)
    proc = subprocess.run([pktstats] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=stdin)
    return proc.returncode, proc.stdout, proc.stderr


# ---------------------------------------------------------------------------------------------
# pcap files, read and written here (stdlib only)

def read_pcap(path):
    """(header bytes, [(sec, frac, frame)])"""
    with open(path, "rb") as f:
        data = f.read()
    header, frames, at = data[:24], [], 24
    while at + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack_from("<IIII", data, at)
        frames.append((sec, frac, data[at + 16:at + 16 + caplen]))
        at += 16 + caplen
    return header, frames


def write_pcap(path, header, frames):
    with open(path, "wb") as f:
        f.write(header)
        for sec, frac, frame in frames:
            f.write(struct.pack("<IIII", sec, frac, len(frame), len(frame)) + frame)


def write_pcapng(path, header, frames):
    nano = struct.unpack_from("<I", header)[0] == 0xa1b23c4d

    def block(kind, body):
        body += b"\0" * (-len(body) % 4)
        length = 12 + len(body)
        return struct.pack("<II", kind, length) + body + struct.pack("<I", length)

    with open(path, "wb") as f:
        f.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        options = struct.pack("<HHB3x", 9, 1, 9 if nano else 6) + struct.pack("<HH", 0, 0)
        f.write(block(1, struct.pack("<HHI", 1, 0, 262144) + options))
        for sec, frac, frame in frames:
            ts = sec * (10**9 if nano else 10**6) + frac
            f.write(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(frame),
                                         len(frame)) + frame))


def is_stat(frame, port=PORT):
    return (len(frame) >= 42 and frame[12:14] == b"\x08\x00" and frame[23] == 17 and
            struct.unpack_from("!H", frame, 36)[0] == port)


def with_payload(frame, payload, src_ip=None):
    """The frame with another UDP payload (IP and UDP lengths fixed up)."""
    head = bytearray(frame[:42])
    struct.pack_into("!H", head, 16, 28 + len(payload))
    struct.pack_into("!H", head, 38, 8 + len(payload))
    if src_ip:
        head[26:30] = bytes(src_ip)
    return bytes(head) + payload


def parse_csv(text):
    lines = text.splitlines()
    keys = lines[0].split(",")
    rows = []
    for line in lines[1:]:
        row = dict(zip(keys, line.split(",")))
        for k in row:
            if k != "type":
                row[k] = int(row[k])
        rows.append(row)
    return keys, rows


# ---------------------------------------------------------------------------------------------
# The simulator run

def make_capture(pktstats, sim_binary, work):
    sim = Simulator(sim_binary, work, [
        "--wait", "--port", "0:gen=0.6,to=3,size=imix,count=400,seed=21",
        "--port", "1:gen=0.6,to=3,size=imix,count=400,seed=22",
        "--port", "2:gen=0.5,to=3,count=1500,seed=23",
        "--port", "3:out=" + os.path.join(work, "out3.pcap"),
        "--port", "7:out=" + os.path.join(work, "stat.pcap"),
        "--truth", os.path.join(work, "truth.csv")])
    try:
        for args in (["capture", "set", "output-ports", "7", "queues", "all", "events", "all",
                      "resolution", "0", "flush-timeout", "1us"], ["capture", "start"]):
            status, _, err = run(pktstats, ["-d", sim.device] + args)
            if status != 0:
                raise RuntimeError("pktstats %s: %s" % (" ".join(args), err))
        sim.request("start")
        sim.process.wait(timeout=600)
    finally:
        if sim.sock:
            sim.sock.close()
        if sim.process.poll() is None:
            sim.process.kill()
    with open(os.path.join(work, "sim.out")) as f:
        summary = f.read()
    counters = {}
    lines = summary.splitlines()
    start = [i for i, line in enumerate(lines) if line.startswith("queue ")][0]
    for line in lines[start + 1:start + 9]:
        q, stored, removed, dropped = (int(x) for x in line.split()[:4])
        counters[q] = (stored, removed, dropped)
    truth = {q: [] for q in range(8)}
    with open(os.path.join(work, "truth.csv")) as f:
        next(f)
        for line in f:
            cycle, queue, occupancy = (int(x) for x in line.split(","))
            truth[queue].append((cycle, occupancy))
    return counters, truth


def truth_at(changes, cycle):
    """Occupancy after the edge of `cycle` (0 before the first change)."""
    value = 0
    for c, v in changes:  # the lists are short enough for a scan in a test
        if c > cycle:
            break
        value = v
    return value


# ---------------------------------------------------------------------------------------------
# Checks

def check_truth(tap, rows, truth):
    problems = []
    by_queue = {q: {} for q in range(8)}
    for row in rows:
        by_queue[row["queue"]][row["time_ns"] // 8] = row["occupancy_words"]  # last one wins
    first = min(r["time_ns"] for r in rows) // 8
    last = max(r["time_ns"] for r in rows) // 8
    changes = 0
    for q in range(8):
        events = by_queue[q]
        for cycle, value in truth[q]:
            if first <= cycle <= last:
                changes += 1
                if cycle not in events:
                    problems.append("queue %d: true change at clock %d (to %d) has no event"
                                    % (q, cycle, value))
        for cycle, value in sorted(events.items()):
            true = truth_at(truth[q], cycle)
            if value != true:
                problems.append("queue %d clock %d: decoded %d words, truth %d"
                                % (q, cycle, value, true))
    bytes_ok = all(r["occupancy_bytes"] == 8 * r["occupancy_words"] and
                   r["length_bytes"] % 8 == 0 and r["length_bytes"] > 0 for r in rows)
    tap.point(not problems and changes > 1000 and bytes_ok,
              "truth: decode --csv matches the truth at every event (%d events, %d true "
              "changes)" % (len(rows), changes), "\n".join(problems[:20]))


def truth_figures(truth, first_ns, last_ns):
    """Max and time-weighted mean over [first_ns, last_ns], from the truth alone."""
    t0, t1 = first_ns // 8, last_ns // 8
    figures = {}
    for q in range(8):
        before = truth_at([c for c in truth[q] if c[0] < t0], t0)  # just before t0's edge
        level, at, area, peak = before, t0, 0, before
        for cycle, value in truth[q]:
            if cycle < t0 or cycle > t1:
                continue
            area += level * (cycle - at)
            level, at = value, cycle
            peak = max(peak, value)
        area += level * (t1 - at)
        figures[q] = (peak, area / (t1 - t0))
    return figures


def check_summary(tap, pktstats, stat, rows, truth, counters):
    status, out, err = run(pktstats, ["-j", "decode", "--summary", stat])
    if not tap.point(status == 0, "summary: -j decode --summary exits 0", err):
        return
    s = json.loads(out)
    figures = truth_figures(truth, s["first_ns"], s["last_ns"])
    problems = []
    for entry in s["queues"]:
        q = entry["queue"]
        peak, mean = figures[q]
        if entry["max_words"] != peak or entry["max_bytes"] != 8 * peak:
            problems.append("queue %d: max %d words, truth %d" % (q, entry["max_words"], peak))
        if abs(entry["mean_words"] - mean) > 0.002:
            problems.append("queue %d: mean %.3f words, truth %.3f" % (q, entry["mean_words"],
                                                                        mean))
        got = (entry["arrivals"], entry["departures"], entry["drops"])
        if got != counters[q]:
            problems.append("queue %d: arrivals/departures/drops %s, the switch counted %s"
                            % (q, got, counters[q]))
    busy = sum(1 for q in range(8) if figures[q][0] > 0)
    tap.point(not problems and busy >= 4 and s["span_ns"] == s["last_ns"] - s["first_ns"],
              "summary: max and time-weighted mean occupancy equal the truth's, events by "
              "type the switch's counters", "\n".join(problems))
    tap.point(s["lost"] == 0 and s["gaps"] == 0 and s["resets"] == 0 and s["m_flags"] == 0 and
              s["malformed"] == 0 and len(s["sources"]) == 1 and
              s["sources"][0]["packets"] == s["packets"] and s["events"] == len(rows),
              "summary: one source, no loss, no M flag, every event counted", out)

    # the same figures from the event lines, the decoder's own reconstruction
    problems = []
    span = s["last_ns"] - s["first_ns"]
    for entry in s["queues"]:
        q = entry["queue"]
        mine = [r for r in rows if r["queue"] == q]
        counts = tuple(sum(1 for r in mine if r["type"] == t)
                       for t in ("arrival", "departure", "drop"))
        dropped = sum(r["length_bytes"] for r in mine if r["type"] == "drop")
        if counts != (entry["arrivals"], entry["departures"], entry["drops"]) or \
                dropped != entry["dropped_bytes"]:
            problems.append("queue %d: counts %s dropped %d vs %s" % (q, counts, dropped, entry))
        # the occupancy at a clock's edge is the one after the queue's last event of that
        # clock; the one after an arrival that a departure of the same clock follows is not
        edges = {}
        for r in mine:
            edges[r["time_ns"]] = r["occupancy_words"]
        if edges and max(edges.values()) > entry["max_words"]:
            problems.append("queue %d: an edge's occupancy is above the maximum" % q)
    tap.point(not problems and span > 0, "agree: --summary's counts agree with the events",
              "\n".join(problems))

    status, text, err = run(pktstats, ["decode", "--summary", stat])
    lines = text.splitlines()
    heading = [i for i, line in enumerate(lines) if line.split()[:2] == ["queue", "arrivals"]]
    ok = status == 0 and heading
    if ok:
        for entry in s["queues"]:
            cells = lines[heading[0] + 1 + entry["queue"]].split()
            ok = ok and cells[:4] == [str(entry[k]) for k in ("queue", "arrivals",
                                                            "departures", "drops")] and \
                cells[6] == str(entry["max_words"]) and \
                cells[7] == ("-" if entry["max_time_ns"] is None else str(entry["max_time_ns"]))
    tap.point(ok, "summary: the text summary's queue table shows the same figures ('-' for "
              "no max-time-ns)", text)

    # --queues: the events and the per-queue table of those queues only, figures unchanged
    busy = sorted(e["queue"] for e in s["queues"] if e["arrivals"])
    chosen = "%d,%d" % (busy[0], busy[-1])
    status, out, err = run(pktstats, ["decode", "--csv", "--queues", chosen, stat])
    _, mine = parse_csv(out) if status == 0 else ([], [])
    want = [r for r in rows if r["queue"] in (busy[0], busy[-1])]
    tap.point(status == 0 and mine == want and len(want) < len(rows),
              "queues: decode --csv --queues %s prints those queues' events (%d of %d)"
              % (chosen, len(mine), len(rows)), err)
    status, out, err = run(pktstats, ["-j", "decode", "--summary", "--queues", chosen, stat])
    part = json.loads(out) if status == 0 else {}
    tap.point(part.get("queues") == [e for e in s["queues"] if e["queue"] in (busy[0], busy[-1])]
              and part.get("events") == s["events"],
              "queues: decode --summary --queues %s: those queues' rows, the same totals"
              % chosen, out + err)


def check_quiet_queues(tap, pktstats, work, stat):
    """A queue without events has no max-time-ns, even with a maximum from the queue sizes."""
    header, frames = read_pcap(stat)
    sample = next(f for f in frames if is_stat(f[2]))
    sizes = [0] * 8
    sizes[5] = 7  # queue 5: a maximum from the packet's queue sizes alone
    payload = bytes([0x02, 3]) + struct.pack("!I8I", 0, *sizes) + struct.pack(
        "!III", 0, 1000, 1 << 30 | 3 << 27 | 2 << 19 | 5)  # timestamp 1000, q3 arrival +5
    path = os.path.join(work, "one-event.pcap")
    write_pcap(path, header, [(sample[0], sample[1], with_payload(sample[2], payload))])
    status, out, err = run(pktstats, ["-j", "decode", "--summary", path])
    queues = {e["queue"]: e for e in json.loads(out)["queues"]} if status == 0 else {}
    tap.point(len(queues) == 8 and queues[3]["max_time_ns"] == 1005 * 8 and
              queues[5]["max_words"] == 7 and
              all(queues[q]["max_time_ns"] is None for q in range(8) if q != 3),
              "summary: max_time_ns null for queues without events (queue 5 with a maximum "
              "from the queue sizes too), a number for the queue with one", out + err)
    status, text, err = run(pktstats, ["decode", "--summary", path])
    lines = text.splitlines()
    heading = [i for i, line in enumerate(lines) if line.split()[:2] == ["queue", "arrivals"]]
    cells = [lines[heading[0] + 1 + q].split() for q in range(8)] if heading else []
    tap.point(cells and all(c[7] == ("8040" if q == 3 else "-") for q, c in enumerate(cells)),
              "summary: the text table shows '-' for them", text + err)


def check_json(tap, pktstats, stat, rows):
    status, out, err = run(pktstats, ["-j", "decode", stat])
    keys = {"time_ns", "queue", "type", "length_bytes", "occupancy_bytes", "occupancy_words",
            "seq"}
    problems = []
    parsed = []
    for n, line in enumerate(out.splitlines()):
        try:
            obj = json.loads(line)
        except ValueError as e:
            problems.append("line %d: %s: %r" % (n + 1, e, line))
            continue
        if not isinstance(obj, dict) or set(obj) != keys:
            problems.append("line %d: keys %r" % (n + 1, obj))
        parsed.append(obj)
    same = [{k: o[k] for k in ("time_ns", "queue", "type", "occupancy_words")} for o in parsed] \
        == [{k: r[k] for k in ("time_ns", "queue", "type", "occupancy_words")} for r in rows]
    tap.point(status == 0 and not problems and same and len(parsed) == len(rows),
              "json: -j decode prints one JSON object per event, the CSV's events (%d)"
              % len(parsed), "\n".join(problems[:10]) or err)


def iso(ns):
    """Python's own ISO 8601 of a time of day in ns: the floored seconds as a UTC date, then the
    nine digits of the ns left (before 1970 too)."""
    seconds = ns // 10 ** 9
    return (datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
            + ".%09dZ" % (ns - seconds * 10 ** 9))


def table_cells(text):
    """A text table (no '--' notes expected between its rows) as its heading and rows of cells."""
    lines = [line.split() for line in text.splitlines() if not line.startswith("--")]
    return (lines[0], lines[1:]) if lines else ([], [])


def iso_problems(header, rows):
    """The rows whose ISO columns are not Python's conversion of the -ns column before them."""
    pairs = [(header.index(k), header.index(k) + 1) for k in header
             if re.search(r"time.of.day.ns$", k)]
    problems = []
    if not pairs or any(p[1] >= len(header) or header[p[1]] != header[p[0]][:-3]
                        for p in pairs):
        return ["header %r: no ISO column after each time-of-day ns column" % (header,)]
    for n, row in enumerate(rows):
        for ns_at, iso_at in pairs:
            if len(row) != len(header) or row[iso_at] != iso(int(row[ns_at])):
                problems.append("row %d: %r, expected %s" % (n + 1, row, iso(int(row[ns_at]))
                                                           if len(row) > ns_at else "-"))
                break
    return problems


def check_iso(tap, pktstats, stat, rows):
    """--iso: each time of day also as ISO 8601, in every output, equal to Python's conversion;
    nothing else changes."""
    # 1764072000.500737188 s at timer 1000: dates in 2025; at timer 10^13 (80000 s after the
    # capture) every time of day is before 1970 (negative ns)
    for pair, when in (("1764072000.500737188@1000", "2025"), ("0.5@10000000000000", "1969")):
        base = ["decode", "--time-of-day", pair]
        status, out, err = run(pktstats, base + ["--csv", "--iso", stat])
        lines = out.splitlines()
        header = lines[0].split(",") if lines else []
        cells = [line.split(",") for line in lines[1:]]
        problems = iso_problems(header, cells)
        tap.point(status == 0 and not err and len(cells) == len(rows) and not problems and
                  header[1:3] == ["time_of_day_ns", "time_of_day"] and
                  all(c[2].startswith(when) for c in cells),
                  "iso: decode --csv --time-of-day %s --iso: time_of_day after time_of_day_ns, "
                  "Python's ISO 8601 of it in all %d rows (%s)" % (pair, len(cells), when),
                  "\n".join(problems[:5]) or err or out[:300])
        _, without = run(pktstats, base + ["--csv", stat])[:2]
        tap.point(status == 0 and [",".join(c[:2] + c[3:]) for c in cells]
                  == without.splitlines()[1:],
                  "iso: --csv --iso %s is the CSV without --iso plus that column" % pair)

        status, out, err = run(pktstats, ["-j"] + base + ["--iso", stat])
        objects = [json.loads(line) for line in out.splitlines()] if status == 0 else []
        keys = [list(o) for o in objects]
        wrong = [o for o in objects if not isinstance(o.get("time_of_day"), str)
                 or o["time_of_day"] != iso(o["time_of_day_ns"])]
        _, without = run(pktstats, ["-j"] + base + [stat])[:2]
        tap.point(status == 0 and not err and len(objects) == len(rows) and not wrong and
                  all(k[1:3] == ["time_of_day_ns", "time_of_day"] for k in keys) and
                  [{k: v for k, v in o.items() if k != "time_of_day"} for o in objects]
                  == [json.loads(line) for line in without.splitlines()],
                  "iso: -j decode --time-of-day %s --iso: time_of_day a string, Python's ISO "
                  "8601 of time_of_day_ns, in all %d objects; the rest as without --iso"
                  % (pair, len(objects)), json.dumps(wrong[:3]) or err)

        status, out, err = run(pktstats, base + ["--iso", stat])
        heading, cells = table_cells(out)
        problems = iso_problems(heading, cells)
        tap.point(status == 0 and not err and len(cells) == len(rows) and not problems,
                  "iso: the text table of decode --time-of-day %s --iso: time-of-day after "
                  "time-of-day-ns, Python's ISO 8601 of it in all %d rows" % (pair, len(cells)),
                  "\n".join(problems[:5]) or err or out[:300])

        status, out, err = run(pktstats, base + ["--sojourn", "--csv", "--iso", stat])
        lines = out.splitlines()
        header = lines[0].split(",") if lines else []
        cells = [line.split(",") for line in lines[1:]]
        problems = iso_problems(header, cells)
        _, without = run(pktstats, base + ["--sojourn", "--csv", stat])[:2]
        tap.point(status == 0 and len(cells) > 1000 and not problems and
                  header[2:6] == ["arrival_time_of_day_ns", "arrival_time_of_day",
                                  "departure_time_of_day_ns", "departure_time_of_day"] and
                  [",".join(c[:3] + c[4:5] + c[6:]) for c in cells] == without.splitlines()[1:],
                  "iso: decode --sojourn --csv --time-of-day %s --iso: arrival_time_of_day and "
                  "departure_time_of_day after their ns, Python's ISO 8601 of them in all %d "
                  "rows; the rest as without --iso" % (pair, len(cells)),
                  "\n".join(problems[:5]) or err or out[:300])

    # --iso needs --time-of-day
    bad = []
    for args in (["decode", "--iso", stat], ["decode", "--csv", "--iso", stat],
                 ["-j", "decode", "--sojourn", "--iso", stat],
                 ["decode", "--summary", "--iso", stat],
                 ["record", "-i", "lo", "-G", "1", "--iso"]):
        status, out, err = run(pktstats, args)
        if status != 2 or out or len(err.splitlines()) != 1 or "--iso" not in err \
                or "--time-of-day" not in err:
            bad.append("%s: exit %d, stdout %r, stderr %r"
                       % (" ".join(args), status, out[:100], err))
    tap.point(not bad, "iso: --iso without --time-of-day (decode, --csv, -j --sojourn, --summary, "
              "record): exit 2, one line naming --iso and --time-of-day", "\n".join(bad))


def check_pcapng(tap, pktstats, work, stat, csv):
    header, frames = read_pcap(stat)
    path = os.path.join(work, "stat.pcapng")
    write_pcapng(path, header, frames)
    status, out, err = run(pktstats, ["decode", "--csv", path])
    with open(path, "rb") as f:
        magic = f.read(4)
    tap.point(status == 0 and out == csv and magic == b"\x0a\x0d\x0d\x0a",
              "pcapng: the capture as pcapng decodes to the same CSV", err)
    with open(path, "rb") as f:
        status, out, err = run(pktstats, ["decode", "--csv", "-"], stdin=f)
    tap.point(status == 0 and out == csv, "stdin: `decode -` reads the capture from standard "
              "input", err)


def check_malformed(tap, pktstats, work, stat, csv):
    header, frames = read_pcap(stat)
    stats = [f for f in frames if is_stat(f[2])]
    sample = stats[0][2]
    payload = sample[42:]
    other_ip = [10, 9, 9, 9]
    bad_version = with_payload(sample, bytes([0x03]) + payload[1:], other_ip)
    partial = with_payload(sample, payload[:len(payload) - 2], other_ip)  # 2 bytes short
    # header + one timestamp slot + one event + the first half of a timestamp
    cut = with_payload(sample, payload[:38 + 12] + struct.pack("!I", 0x00000001), other_ip)
    mixed = []
    for i, f in enumerate(frames):
        mixed.append(f)
        if i == 3:
            mixed.append((f[0], f[1], bad_version))
        if i == 10:
            mixed.append((f[0], f[1], partial))
        if i == 20:
            mixed.append((f[0], f[1], cut))
    path = os.path.join(work, "malformed.pcap")
    write_pcap(path, header, mixed)
    status, out, err = run(pktstats, ["decode", "--csv", path])
    tap.point(status == 0 and out == csv,
              "malformed: 3 malformed stat packets mixed in: exit 0, the good ones decode as "
              "before", "exit %d, %s" % (status, err))
    tap.point(len(err.splitlines()) == 1 and "3 malformed" in err and "cut_timestamp 1" in err
              and "partial_slot 1" in err and "bad_version 1" in err,
              "malformed: one line on stderr counts them by reason", err)
    status, out, err = run(pktstats, ["-j", "decode", "--summary", path])
    s = json.loads(out) if status == 0 else {}
    tap.point(s.get("malformed") == 3 and s.get("malformed_reasons") ==
              {"bad_version": 1, "partial_slot": 1, "cut_timestamp": 1} and s.get("lost") == 0,
              "malformed: --summary reports them by reason", out + err)
    status, text, err = run(pktstats, ["decode", path])
    notes = [line for line in text.splitlines() if line.startswith("-- frame")]
    tap.point(status == 0 and len(notes) == 3 and all("malformed" in n for n in notes),
              "malformed: the text table notes each one with its frame number", "\n".join(notes))


def check_filter(tap, pktstats, work, stat, csv_rows):
    header, frames = read_pcap(stat)
    moved = []
    for sec, frac, f in frames:
        if is_stat(f):
            f = f[:36] + struct.pack("!H", 5555) + f[38:]
        moved.append((sec, frac, f))
    path = os.path.join(work, "port5555.pcap")
    write_pcap(path, header, moved)
    _, default, _ = run(pktstats, ["decode", "--csv", path])
    status, by_port, err = run(pktstats, ["decode", "--csv", "--port", "5555", path])
    _, rows = parse_csv(by_port)
    tap.point(status == 0 and len(default.splitlines()) == 1 and len(rows) == len(csv_rows),
              "filter: port 5555: no events with the default filter, all with --port 5555",
              err)
    status, by_udp_port, err = run(pktstats, ["decode", "--csv", "--udp-port", "5555", path])
    tap.point(status == 0 and by_udp_port == by_port,
              "filter: --udp-port 5555 (plot's name for it) is --port 5555", err)
    status, out, err = run(pktstats, ["decode", "--csv", "--filter",
                                      "udp dst port 5555 and ip[5] & 1 = 0", path])
    _, rows = parse_csv(out)
    seqs = {r["seq"] for r in rows}
    tap.point(status == 0 and rows and all(q % 2 == 0 for q in seqs) and
              seqs == {r["seq"] for r in csv_rows if r["seq"] % 2 == 0},
              "filter: --filter with an expression of its own selects the even IP ids", err)


def check_files(tap, pktstats, work, stat, csv):
    missing = os.path.join(work, "no-such.pcap")
    status, out, err = run(pktstats, ["decode", "--csv", missing, stat])
    tap.point(status == 1 and out == csv and len(err.splitlines()) == 1 and missing in err,
              "files: a missing file: exit 1, one line, the other file decoded",
              "exit %d: %s" % (status, err))
    notpcap = os.path.join(work, "not.pcap")
    with open(notpcap, "w") as f:
        f.write("this is no capture\n")
    bad = []
    for mode in ([], ["--csv"], ["--summary"], ["-j"], ["-j", "--summary"]):
        args = mode[:1] + ["decode"] + mode[1:] + [notpcap] if mode[:1] == ["-j"] \
            else ["decode"] + mode + [notpcap]
        status, out, err = run(pktstats, args)
        if status != 1 or len(err.splitlines()) != 1 or out:
            bad.append("%s: exit %d, stdout %r, stderr %r" % (" ".join(args), status, out, err))
    tap.point(not bad, "files: a file that is no capture: exit 1, one line, nothing on stdout "
              "(table, --csv, --summary, -j, -j --summary)", "\n".join(bad))


def check_usage(tap, pktstats, stat):
    cases = [
        ["decode"], ["decode", "--bogus", stat], ["decode", "--csv", "--summary", stat],
        ["-j", "decode", "--csv", stat], ["decode", "--filter", "udp port", stat],
        ["decode", "--port", "0", stat], ["decode", "--port", "70000", stat],
        ["decode", stat, "--filter"], ["decode", "-", stat, "-"], ["record"], ["record", "-i"],
        ["record", "-i", "lo", "-c", "0"], ["record", "-i", "lo", "-G", "x"], ["record", "-i", "lo", "-G", "1.5s"],
        ["record", "-i", "lo", "--csv", "-w", "x.pcap"], ["record", "-i", "lo", "extra"],
        ["decode", "--queues", "8", stat], ["decode", "--queues", "none", stat],
        ["decode", "--queues"], ["decode", "--udp-port", "0", stat],
        ["decode", "--udp-port", "5555", "--filter", "udp", stat],
        ["record", "-i", "lo", "-w", "x.pcap", "--queues", "3"],
    ]
    bad = []
    for args in cases:
        status, out, err = run(pktstats, args)
        if status != 2 or len(err.splitlines()) != 1 or out:
            bad.append("%s: exit %d, stderr %r" % (" ".join(args), status, err))
    tap.point(not bad, "usage: %d bad command lines exit 2 with one line" % len(cases),
              "\n".join(bad))
    ok = True
    for args in (["decode", "--help"], ["record", "--help"], ["--help"]):
        status, out, err = run(pktstats, args)
        ok = ok and status == 0 and "usage: pktstats" in out
    tap.point(ok, "usage: --help works for decode, record and the top level")


# ---------------------------------------------------------------------------------------------
# record, in a network namespace with a veth pair

INJECT = r"""
import socket, struct, sys, time
frames, iface = sys.argv[1], sys.argv[2]
data = open(frames, "rb").read()
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
at = 24
while at + 16 <= len(data):
    caplen = struct.unpack_from("<I", data, at + 8)[0]
    s.send(data[at + 16:at + 16 + caplen])
    at += 16 + caplen
    time.sleep(0.0005)
"""


class Namespace:
    def __init__(self):
        self.name = "pstrec%d" % (os.getpid() % 100000)
        self.ok = False

    def __enter__(self):
        if os.geteuid() != 0 or not shutil.which("ip"):
            return self
        steps = [["ip", "netns", "add", self.name],
                 ["ip", "-n", self.name, "link", "add", "rv0", "type", "veth", "peer", "name",
                  "rv1"],
                 ["ip", "-n", self.name, "link", "set", "rv0", "up"],
                 ["ip", "-n", self.name, "link", "set", "rv1", "up"]]
        for step in steps:
            if subprocess.run(step, capture_output=True).returncode != 0:
                return self
        self.ok = True
        return self

    def __exit__(self, *exc):
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)

    def cmd(self, args):
        return ["ip", "netns", "exec", self.name] + list(args)


def wait_for(path, process, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path) or process.poll() is not None:
            return os.path.exists(path)
        time.sleep(0.02)
    return False


def check_record(tap, pktstats, work, stat, csv):
    with Namespace() as ns:
        if not ns.ok:
            for name in ("record -w -c", "record --csv -c", "record SIGINT", "record -G"):
                tap.skip("record: %s: needs root, ip netns and veth" % name)
            return
        header, frames = read_pcap(stat)
        stats = [f for f in frames if is_stat(f[2])][:30]
        noise = [(0, 0, b"\xff" * 6 + b"\x02" * 6 + b"\x88\xb5" + b"noise" * 10)]
        send = os.path.join(work, "send.pcap")
        write_pcap(send, header, noise + stats[:15] + noise + stats[15:])
        expect = os.path.join(work, "expect.pcap")
        write_pcap(expect, header, stats)
        _, expect_csv, _ = run(pktstats, ["decode", "--csv", expect])
        inject = ns.cmd([sys.executable, "-c", INJECT, send, "rv0"])

        # -w FILE -c 30
        out = os.path.join(work, "rec1.pcap")
        proc = subprocess.Popen(ns.cmd([pktstats, "record", "-i", "rv1", "-w", out, "-c", "30"]),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready = wait_for(out, proc)
        time.sleep(0.2)
        subprocess.run(inject, capture_output=True, timeout=60)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        status, got, derr = run(pktstats, ["decode", "--csv", out])
        tap.point(ready and proc.returncode == 0 and status == 0 and got == expect_csv and
                  "30 stat packets captured" in err and "dropped by the kernel" in err,
                  "record: -w FILE -c 30 writes the 30 stat packets sent (not the noise), "
                  "decodable, and reports the kernel's drops",
                  "exit %s: %s\n%s" % (proc.returncode, err, derr))

        # on the fly, --csv -c 30
        proc = subprocess.Popen(ns.cmd([pktstats, "record", "-i", "rv1", "--csv", "-c", "30"]),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = proc.stdout.readline()  # the CSV header: capture is active
        subprocess.run(inject, capture_output=True, timeout=60)
        try:
            rest, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            rest, err = proc.communicate()
        tap.point(proc.returncode == 0 and first + rest == expect_csv,
                  "record: --csv -c 30 decodes the stat packets on the fly, as decode does",
                  "exit %s: %s" % (proc.returncode, err))

        # SIGINT in the middle: a valid pcap with what came
        out = os.path.join(work, "rec2.pcap")
        proc = subprocess.Popen(ns.cmd([pktstats, "record", "-i", "rv1", "-w", out]),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready = wait_for(out, proc)
        time.sleep(0.2)
        subprocess.run(inject, capture_output=True, timeout=60)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        status, got, derr = run(pktstats, ["decode", "--csv", out])
        tap.point(ready and proc.returncode == 0 and status == 0 and got == expect_csv and
                  "dropped by the kernel" in err,
                  "record: SIGINT leaves a valid pcap with every stat packet, exit 0",
                  "exit %s: %s\n%s" % (proc.returncode, err, derr))

        # -G 1: stops by itself
        started = time.monotonic()
        try:
            proc = subprocess.run(ns.cmd([pktstats, "record", "-i", "rv1", "-G", "1"]),
                                  capture_output=True, text=True, timeout=10)
            took = time.monotonic() - started
            tap.point(proc.returncode == 0 and 0.9 <= took < 5 and
                      "0 stat packets captured" in proc.stderr,
                      "record: -G 1 stops after a second (%.2f s)" % took, proc.stderr)
        except subprocess.TimeoutExpired:
            tap.point(False, "record: -G 1 stops after a second", "still running after 10 s")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    pktstats, sim_binary = (os.path.abspath(p) for p in sys.argv[1:3])
    tap = Tap()
    if not hasattr(tap, "skip"):
        def skip(name):
            tap.n += 1
            print("ok %d - %s # SKIP" % (tap.n, name), flush=True)
        tap.skip = skip
    work = tempfile.mkdtemp(prefix="pktstats-decode-")
    try:
        counters, truth = make_capture(pktstats, sim_binary, work)
        stat = os.path.join(work, "stat.pcap")
        status, csv, err = run(pktstats, ["decode", "--csv", stat])
        keys, rows = parse_csv(csv) if status == 0 else ([], [])
        tap.point(status == 0 and keys == ["time_ns", "queue", "type", "length_bytes",
                                           "occupancy_bytes", "occupancy_words", "seq"] and
                  rows and not err, "csv: decode --csv exits 0 with its header line", err)
        if rows:
            check_truth(tap, rows, truth)
            check_summary(tap, pktstats, stat, rows, truth, counters)
            check_quiet_queues(tap, pktstats, work, stat)
            check_json(tap, pktstats, stat, rows)
            check_iso(tap, pktstats, stat, rows)
            check_pcapng(tap, pktstats, work, stat, csv)
            check_malformed(tap, pktstats, work, stat, csv)
            check_filter(tap, pktstats, work, stat, rows)
            check_files(tap, pktstats, work, stat, csv)
            check_record(tap, pktstats, work, stat, csv)
        check_usage(tap, pktstats, stat)
    except Exception as e:  # a broken run is a failure, not a crash without TAP
        tap.point(False, "the test ran to its end", repr(e))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
