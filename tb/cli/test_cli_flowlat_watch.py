#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats flowlat watch`, seed 003's collector workflow (docs/flowlat.md, docs/cli.md):
bad command lines, messages written here, and end to end on the simulated switch.

    tb/cli/test_cli_flowlat_watch.py build/asan/bin/pktstats build/bin/pktstats-sim [--seed S]

1. Usage: every bad command line exits 2 with one line on stderr naming the word, prints
   nothing on stdout, and opens nothing: no connection reaches the device's socket (a
   listening Unix socket given as -d sim:PATH), and the UDP port it names, held by the
   test, is never tried (that would be exit 1).
2. Messages written here to a watch on the loopback, without a device: the block's template
   and records (docs/flowlat.md's byte map) with a sequence-number gap, a message of another
   observation domain, a template-only message, and malformed datagrams (truncated, version
   9, garbage, a template of another enterprise number, a trailing byte). Checked: the one stderr note that
   there is no device; each malformed datagram reported with its reason, counted, and the
   watch going on; the event lines (-j: JSON lines with "type") carry exactly the fields
   written; the gap counted as records missing, the other domain counted and not printed;
   `count` ends it after that many events; `duration` and SIGTERM end it cleanly (exit 0,
   the summary); a port already taken exits 1; the text form (a heading, a line per event,
   the summary), a sequence number going back (a sequence error), a HIGH without its LOW
   (in breach at the end).
   And the device gone (a simulator killed) while a flow is in breach: each failed lookup
   reported on stderr, the third in a row ends the watch with its summary, exit 1.
3. End to end (root: a network namespace and a TAP): tb/sim/test_sim_flowlat.py's congestion
   scenario (its frames, rules, profiles and exporter settings, imported), with flow A held
   back after each burst's HIGH so that its breach lasts about 1 ms of simulated time (a
   few hundred ms of wall time, time for polls) before frames through an empty queue bring
   its LOW. The switch's port 3 is a TAP whose host end has the exporter's destination MAC
   and address; the watch listens there with -d the simulator's socket, interval 10ms.
   Checked:
     - every event printed equals the event the model of the profiles computes from the wire
       truth, in order, none missing or extra (kind, residence, time to the ns, 5-tuple,
       ports, group, profile, thresholds), and the occupancy equals the record on the wire
       (captured on the TAP);
     - polls appear only between a flow's HIGH and its LOW, each flow's breach has polls (on
       average at least 0.9 interval apart), and
       each poll is the switch's true state after the packets it counts: last and largest
       residence, breach; every poll taken before the flow's LOW frame reached the switch
       says breach true with a largest residence at least the HIGH event's;
     - malformed datagrams sent to the watch's port mid-run are reported on stderr with
       their reason, counted, and the events after them still printed;
     - the summary (SIGINT) counts what was printed: events by kind, lookups = poll lines,
       malformed, messages and templates and records = the block's counters, no record
       missing, no flow left in breach, no lookup failed; and a HIGH written here of a flow
       the switch does not hold (as if evicted in breach): one poll, found false, and the
       flow is no longer watched (evicted 1).
   Without root, /dev/net/tun, unshare or tcpdump, part 3 is skipped.
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import pktstats_sim  # noqa: E402
import test_sim_flowlat as S  # noqa: E402  (the congestion scenario)
import test_sim_oam as T  # noqa: E402
from oam_frames import write_timed_pcap  # noqa: E402
from tap_output import Tap  # noqa: E402

KINDS = {1: "absolute", 2: "high", 3: "low"}
NTP_OFFSET = S.NTP_OFFSET
TEMPLATE_FIELDS = [(325, 8), (8, 4), (12, 4), (4, 1), (7, 2), (11, 2), (10, 4), (14, 4)]
ENTERPRISE_FIELDS = [(1, 4), (2, 1), (3, 1), (4, 1), (5, 4), (6, 4), (7, 4)]
TAP_IFACE = "flw3"
EVENT_KEYS = ["time_ns", "type", "src", "sport", "dst", "dport", "protocol", "ingress", "egress",
              "residence", "group", "profile", "high", "low", "occupancy_bytes", "found",
              "last_residence", "max_residence", "packets", "age_us", "breach"]
SUMMARY_KEYS = ["type", "device", "observation_domain", "datagrams", "messages", "templates",
                "records", "events", "absolute_events", "high_events", "low_events", "malformed",
                "records_missing", "sequence_errors", "resyncs", "kernel_drops", "other_domain",
                "in_breach", "not_watched", "evicted", "lookups", "lookups_failed"]

# ---- IPFIX messages as the block writes them (docs/flowlat.md, "The IPFIX exporter") ----


def template_set(pen):
    fields = b"".join(struct.pack(">HH", e, n) for e, n in TEMPLATE_FIELDS)
    fields += b"".join(struct.pack(">HHI", 0x8000 | e, n, pen) for e, n in ENTERPRISE_FIELDS)
    body = struct.pack(">HH", 256, len(TEMPLATE_FIELDS) + len(ENTERPRISE_FIELDS)) + fields
    return struct.pack(">HH", 2, 4 + len(body)) + body


def record(e):
    """48 bytes of an event {seconds, ns, src, dst, protocol, sport, dport, ingress, egress,
    residence, kind, group, profile, high, low, occupancy} (seconds: Unix)."""
    fraction = (e["ns"] * 2**32 + 5 * 10**8) // 10**9
    return struct.pack(">IIIIBHHIIiBBBiiI", e["seconds"] + NTP_OFFSET, fraction, e["src"], e["dst"],
                       e["protocol"], e["sport"], e["dport"], e["ingress"], e["egress"],
                       e["residence"], e["kind"], e["group"], e["profile"], e["high"], e["low"],
                       e["occupancy"])


def message(sequence, domain, events=(), pen=S.PEN, template=False, version=10):
    sets = template_set(pen) if template else b""
    if events:
        data = b"".join(record(e) for e in events)
        sets += struct.pack(">HH", 256, 4 + len(data)) + data
    return struct.pack(">HHIII", version, 16 + len(sets), 1764072000, sequence, domain) + sets


def event(kind, n, src=0x0a000001, residence=15000):
    return {"seconds": 1764072000 + n, "ns": 123456789 + n, "src": src, "dst": 0x0a000003,
            "protocol": 17, "sport": 1000, "dport": 3000, "ingress": 0, "egress": 2,
            "residence": residence, "kind": kind, "group": n % 16, "profile": n % 8,
            "high": 12000, "low": -3000 if n % 2 else 3000, "occupancy": 4096 + n}


def expected_line(e):
    """The JSON line's event fields for an event written here."""
    return {"time_ns": e["seconds"] * 10**9 + e["ns"], "type": KINDS[e["kind"]],
            "src": dotted(e["src"]), "sport": e["sport"], "dst": dotted(e["dst"]),
            "dport": e["dport"], "protocol": e["protocol"], "ingress": e["ingress"],
            "egress": e["egress"], "residence": e["residence"], "group": e["group"],
            "profile": e["profile"], "high": e["high"], "low": e["low"],
            "occupancy_bytes": e["occupancy"]}


def dotted(address):
    return socket.inet_ntoa(struct.pack(">I", address))


def free_udp_port(host="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((host, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def json_lines(text):
    """[objects] of JSON lines; raises ValueError for a line that is not a JSON object."""
    out = []
    for line in text.splitlines():
        value = json.loads(line)
        if not isinstance(value, dict):
            raise ValueError("not an object: %r" % line)
        out.append(value)
    return out


class Watch:
    """`pktstats [-j] [-d DEVICE] flowlat watch ARGS` in the background, stdout and stderr to
    files in work; started() waits for its line saying that it listens."""

    def __init__(self, cli, work, args, device=None, json_output=True, name="watch"):
        self.out_path = os.path.join(work, name + ".out")
        self.err_path = os.path.join(work, name + ".err")
        command = [cli] + (["-j"] if json_output else []) + (["-d", device] if device else [])
        env = dict(os.environ)
        env.pop("PKTSTATS_DEVICE", None)
        self.process = subprocess.Popen(command + ["flowlat", "watch"] + args, env=env,
                                        stdout=open(self.out_path, "w"),
                                        stderr=open(self.err_path, "w"))

    def started(self, timeout=15):
        deadline = time.monotonic() + timeout
        while "listening on" not in self.err():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the watch did not start: %s" % self.err())
            time.sleep(0.02)

    def out(self):
        with open(self.out_path) as f:
            return f.read()

    def err(self):
        with open(self.err_path) as f:
            return f.read()

    def stop(self, sig=signal.SIGINT, timeout=30):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None

    def wait(self, timeout=30):
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return self.stop(signal.SIGKILL)


def send(datagrams, port, host="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for d in datagrams:
        s.sendto(d, (host, port))
        time.sleep(0.01)  # in order, none dropped
    s.close()


# ---- 1. Usage ----

USAGE_CASES = [  # (arguments, word the message must name)
    (["bogus", "1"], "bogus"),
    (["listen"], "listen"),
    (["listen", "10.0.0.256"], "10.0.0.256"),
    (["listen", "localhost"], "localhost"),
    (["port", "0"], "port"),
    (["port", "65536"], "65536"),
    (["port", "-1"], "-1"),
    (["interval", "0.5ms"], "0.5ms"),
    (["interval", "2h"], "2h"),
    (["interval", "100"], "interval"),
    (["enterprise-number", "4294967296"], "4294967296"),
    (["count", "0"], "count"),
    (["count", "ten"], "ten"),
    (["duration", "500us"], "500us"),
    (["count", "1", "count", "2"], "count"),
    (["interval", "10ms", "port", "4739", "extra"], "extra"),
]


def check_usage(tap, cli, work):
    path = os.path.join(work, "device.sock")
    device = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    device.bind(path)
    device.listen(8)
    device.setblocking(False)
    # the port the command lines name is taken: a watch that bound it would exit 1, not 2
    taken = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    taken.bind(("0.0.0.0", 0))
    port = taken.getsockname()[1]
    problems = []
    for args, word in USAGE_CASES:
        env = dict(os.environ)
        env.pop("PKTSTATS_DEVICE", None)
        prefix = [] if "port" in args else ["port", str(port)]
        r = subprocess.run([cli, "-d", "sim:" + path, "flowlat", "watch"] + prefix + args,
                           env=env, capture_output=True, text=True, timeout=30)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or word not in lines[0] or r.stdout \
                or not lines[0].startswith("pktstats: flowlat watch: "):
            problems.append("%s: exit %s, stdout %r, stderr %r" % (args, r.returncode, r.stdout,
                                                                 r.stderr))
    try:
        device.accept()
        problems.append("a bad command line connected to the device")
    except BlockingIOError:
        pass
    device.close()
    taken.close()
    tap.point(not problems, "%d bad command lines: exit 2, one line naming the word, nothing on "
              "stdout, nothing opened (no connection to the device; its UDP port, taken, not tried)"
              % len(USAGE_CASES), "\n".join(problems))


# ---- 2. Messages written here, no device ----

def check_written(tap, cli, work):
    port = free_udp_port()
    high, absolute = event(2, 1), event(1, 2, src=0x0a000101, residence=-20)
    other = event(2, 3, src=0x0a000201)
    low, absolute2 = event(3, 4, residence=-7), event(1, 5, src=0x0a000101, residence=2**31 - 1)
    good1 = message(0, 7, [high, absolute], template=True)
    malformed = [  # (datagram, reason the watch must give)
        (good1[:30], "truncated"),
        (message(2, 7, [low], version=9), "bad_version"),
        (b"this is not an IPFIX message at all, only garbage", "bad_version"),
        (message(2, 7, [low], pen=1234, template=True), "bad_template"),
        (message(2, 7, [low]) + b"\0", "bad_length"),
        # values the block cannot send (they were printed as events: ingress 4294967295)
        (message(2, 7, [dict(low, ingress=9)]), "impossible_field"),
        (message(2, 7, [dict(low, egress=4)]), "impossible_field"),
        (message(2, 7, [dict(low, group=16)]), "impossible_field"),
        (message(2, 7, [dict(low, occupancy=2**20)]), "impossible_field"),
    ]
    datagrams = [good1] + [d for d, _ in malformed] + [
        message(0, 8, [other], template=True),      # another observation domain
        message(5, 7, [low]),                       # 3 records missing (2, 3, 4)
        message(6, 7, template=True),               # the template alone
        message(6, 7, [absolute2]),
        message(7, 7, [event(2, 6)]),               # beyond count: not printed
    ]
    watch = Watch(cli, work, ["listen", "127.0.0.1", "port", str(port), "count", "4"])
    try:
        watch.started()
        send(datagrams, port)
        status = watch.wait(30)
    finally:
        watch.stop(signal.SIGKILL)
    err, out = watch.err(), watch.out()
    tap.point(status == 0, "count 4: the watch ends by itself after the fourth event, exit 0",
              "exit %s\n%s" % (status, err))
    notes = [line for line in err.splitlines() if "no device" in line]
    tap.point(len(notes) == 1, "without a device: said once on stderr (events only)", err)

    reported = [line for line in err.splitlines() if "malformed IPFIX message" in line]
    reasons_ok = len(reported) == len(malformed) and all(
        "(%s)" % reason in line and "127.0.0.1:" in line for line, (_, reason) in zip(reported, malformed))
    tap.point(reasons_ok, "malformed datagrams (truncated, version 9, garbage, another "
              "enterprise number, a trailing byte, 4 values the block cannot send): each reported "
              "with its reason and source",
              err)
    try:
        lines = json_lines(out)
    except ValueError as error:
        lines = []
        tap.comment("stdout is not JSON lines: %s\n%s" % (error, out))
    events = [line for line in lines if line.get("type") in KINDS.values()]
    want = [expected_line(e) for e in (high, absolute, low, absolute2)]
    got = [{k: line.get(k) for k in want[0]} for line in events]
    keys_ok = all(list(line) == EVENT_KEYS for line in events) and all(
        line[k] is None for line in events for k in EVENT_KEYS[15:])
    tap.point(got == want and keys_ok and len(lines) == 5,
              "-j: one JSON line per event, its fields exactly those written (time to the ns, "
              "5-tuple, ports, signed residence and thresholds, group, profile, occupancy); the "
              "other domain's event and those beyond count not printed",
              "got %s\nwant %s\n%s" % (got, want, out))
    summary = lines[-1] if lines else {}
    want_summary = {"type": "summary", "device": None, "observation_domain": 7,
                    "datagrams": 1 + len(malformed) + 4, "messages": 4, "templates": 2,
                    "records": 4, "events": 4, "absolute_events": 2, "high_events": 1,
                    "low_events": 1, "malformed": len(malformed), "records_missing": 3,
                    "sequence_errors": 0, "resyncs": 0, "kernel_drops": 0, "other_domain": 1,
                    "in_breach": 0, "not_watched": 0, "evicted": 0, "lookups": 0,
                    "lookups_failed": 0}
    tap.point(summary == want_summary and list(summary) == SUMMARY_KEYS,
              "summary: messages, templates, records, events by kind, malformed, the gap of 3 "
              "as records missing, the other domain, no flow in breach (HIGH then LOW)",
              "got %s\nwant %s" % (summary, want_summary))

    # duration, a sequence going back, a flow left in breach; the text form
    watch = Watch(cli, work, ["listen", "127.0.0.1", "port", str(port), "duration", "1500ms"],
                  json_output=False, name="text")
    try:
        watch.started()
        start = time.monotonic()
        send([message(10, 9, [high, absolute], template=True), message(4, 9, [event(1, 7)]),
              message(2005, 9, [event(1, 8)])], port)  # 2000 ahead: more than a message holds
        status = watch.wait(30)
        took = time.monotonic() - start
    finally:
        watch.stop(signal.SIGKILL)
    text = watch.out().splitlines()
    heading_ok = bool(text) and text[0].split()[:4] == ["time", "type", "src", "sport"]
    rows = text[1:4]
    rows_ok = len(rows) == 3 and rows[0].split()[:2] == ["2025-11-25T12:00:01.123456790Z", "high"] \
        and rows[1].split()[1] == "absolute" and rows[0].split()[-1] == "-"
    fields = dict(line.split(None, 1) for line in text[4:] if line.strip())
    tap.point(status == 0 and 1.3 < took < 5 and heading_ok and rows_ok
              and fields.get("in-breach") == "1" and fields.get("sequence-errors") == "1"
              and fields.get("records-missing") == "0" and fields.get("events") == "4"
              and fields.get("resyncs") == "1",
              "duration 1500ms ends it (exit 0); text: a heading, one aligned line per event, "
              "the summary; a sequence number going back counted as a sequence error, one 2000 "
              "records ahead (more than a message holds) as a resynchronisation, none missing; "
              "the flow whose LOW never came counted in breach",
              "exit %s after %.2f s\n%s" % (status, took, "\n".join(text)))

    # SIGTERM: clean, the summary; a port already taken: exit 1
    watch = Watch(cli, work, ["listen", "127.0.0.1", "port", str(port)], name="term")
    try:
        watch.started()
        r = subprocess.run([cli, "flowlat", "watch", "listen", "127.0.0.1", "port", str(port)],
                           capture_output=True, text=True, timeout=30,
                           env={k: v for k, v in os.environ.items() if k != "PKTSTATS_DEVICE"})
        status = watch.stop(signal.SIGTERM)
    finally:
        watch.stop(signal.SIGKILL)
    lines = json_lines(watch.out())
    tap.point(status == 0 and len(lines) == 1 and lines[0]["type"] == "summary",
              "SIGTERM: exit 0 after the summary", "exit %s\n%s" % (status, watch.out()))
    tap.point(r.returncode == 1 and "127.0.0.1:%d" % port in r.stderr and not r.stdout,
              "the port taken by another watch: exit 1, naming the address",
              "exit %s\n%s" % (r.returncode, r.stderr))


# ---- 2a. Floods: the flows in breach bounded, the kernel's drops counted ----

def summary_of(watch):
    """The watch's summary: its last JSON line ({} without one)."""
    lines = watch.out().splitlines()
    return json.loads(lines[-1]) if lines else {}


def watch_datagrams(cli, work, name, datagrams, settle=0.5):
    """A watch of its own on a free port is sent the datagrams, given `settle` s, and
    stopped by SIGTERM: (exit status, summary, the watch)."""
    port = free_udp_port()
    watch = Watch(cli, work, ["listen", "127.0.0.1", "port", str(port)], name=name)
    try:
        watch.started()
        send(datagrams, port)
        time.sleep(settle)
        status = watch.stop(signal.SIGTERM)
    finally:
        watch.stop(signal.SIGKILL)
    return status, summary_of(watch), watch


def check_floods(tap, cli, work, seed):
    per_message = 1364  # a whole 65535-byte message of HIGH records, every one a new flow
    flows = [dict(event(2, 0), src=0x0b000000 + i, sport=i % 65536) for i in range(8 * per_message)]
    status, summary, watch = watch_datagrams(
        cli, work, "flood", [message(k * per_message, 7,
                                     flows[k * per_message:(k + 1) * per_message])
                             for k in range(8)])
    said = [line for line in watch.err().splitlines() if "watched already" in line]
    got = {k: summary.get(k) for k in ("high_events", "in_breach", "not_watched", "records_missing")}
    want = {"high_events": len(flows), "in_breach": 8192, "not_watched": len(flows) - 8192,
            "records_missing": 0}
    tap.point(status == 0 and got == want and len(said) == 1,
              "%d flows in breach (HIGH, no LOW): 8192 watched (the flow table's entries), the "
              "rest counted not-watched and said once; exit 0 on SIGTERM" % len(flows),
              "exit %s\ngot %s\nwant %s\n%s" % (status, got, want, watch.err()[-600:]))

    # Churn near the bound: HIGHs and LOWs in random order over a table nearly half full (its
    # index), LOWs of flows never watched among them; the flows still in breach at the end
    # are those a set says (the index's deletions keep every flow findable)
    rng = random.Random(seed)
    pool = [dict(event(2, 0), src=0x0c000000 + rng.randrange(1 << 20), sport=rng.randrange(65536))
            for _ in range(12000)]
    keys = list({(e["src"], e["sport"]): e for e in pool}.values())
    watched, events = set(), []
    for e in keys[:8000]:                      # 8000 HIGHs
        events.append(e)
        watched.add((e["src"], e["sport"]))
    for _ in range(3):
        for e in rng.sample(keys[:8000 + 1000], 3000):   # LOWs, some of flows never watched
            events.append(dict(e, kind=3))
            watched.discard((e["src"], e["sport"]))
        for e in rng.sample(keys, 3000):                # HIGHs, some of flows still watched
            if len(watched) < 8192 or (e["src"], e["sport"]) in watched:
                events.append(e)
                watched.add((e["src"], e["sport"]))
    status, summary, _ = watch_datagrams(
        cli, work, "churn", [message(k, 7, events[k:k + per_message])
                             for k in range(0, len(events), per_message)])
    tap.point(status == 0 and summary.get("events") == len(events)
              and summary.get("in_breach") == len(watched) and summary.get("not_watched") == 0,
              "%d HIGH and LOW events in random order over up to 8192 flows: the flows in breach "
              "at the end are exactly those whose HIGH came last (%d)" % (len(events), len(watched)),
              "exit %s, events %s, in breach %s, not watched %s"
              % (status, summary.get("events"), summary.get("in_breach"), summary.get("not_watched")))

    # Colliding flows: keys with one home slot of the watch's index (its hash, written again
    # here), A watched before B; A's LOW, then B's: B must still be found where the probe put it
    home = lambda e: ((((e["src"] << 32 | e["dst"]) ^ (e["sport"] << 24 | e["dport"] << 8
                                                         | e["protocol"])) * 0x9e3779b97f4a7c15
                       % 2**64) >> 32) % 16384
    first, by_home, pair = event(2, 0), {}, None
    for sport in range(65536):
        e = dict(first, sport=sport)
        if home(e) in by_home:
            pair = (by_home[home(e)], e)
            break
        by_home[home(e)] = e
    a, b = pair
    status, summary, _ = watch_datagrams(
        cli, work, "collide", [message(0, 7, [a, b, dict(a, kind=3), dict(b, kind=3)])],
        settle=0.3)
    tap.point(status == 0 and summary.get("events") == 4 and summary.get("in_breach") == 0,
              "two flows of one hash slot: HIGH, HIGH, LOW of the first, LOW of the second: none "
              "left in breach", "exit %s, %s" % (status, summary))

    # Stopped, the watch cannot read: the socket's buffer fills and the kernel drops the rest.
    # Every datagram sent is read or counted dropped (the kernel's own count, SO_RXQ_OVFL).
    port = free_udp_port()
    watch = Watch(cli, work, ["listen", "127.0.0.1", "port", str(port)], name="drops")
    sent = 3000
    try:
        watch.started()
        watch.process.send_signal(signal.SIGSTOP)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        batch = [event(1, n) for n in range(100)]  # 4.8 kB each: 14 MB in all, more than fits
        for k in range(sent):
            s.sendto(message(100 * k, 7, batch), ("127.0.0.1", port))
        s.close()
        watch.process.send_signal(signal.SIGCONT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until it has read what the buffer held
            size = os.path.getsize(watch.out_path)
            time.sleep(0.5)
            if os.path.getsize(watch.out_path) == size:
                break
        # the kernel tells the drops with the next datagram it queues
        send([message(100 * sent, 7, [event(1, 0)])], port)
        sent += 1
        time.sleep(0.5)
        status = watch.stop(signal.SIGTERM)
    finally:
        watch.stop(signal.SIGKILL)
    summary = summary_of(watch)
    read, dropped = summary.get("datagrams", 0), summary.get("kernel_drops", 0)
    tap.point(status == 0 and dropped > 0 and read + dropped == sent,
              "%d datagrams into a stopped watch, then one more: those read and those the kernel "
              "dropped (its count, kernel-drops) add up to all of them" % (sent - 1),
              "exit %s, read %s, kernel drops %s" % (status, read, dropped))


# ---- 2b. The device gone while a flow is in breach ----

def check_device_gone(tap, simulator, cli, work):
    sim = pktstats_sim.Simulator(simulator, work, [], name="gone")
    port = free_udp_port()
    watch = Watch(cli, work, ["listen", "127.0.0.1", "port", str(port), "interval", "50ms"],
                  device="sim:" + sim.socket_path, name="gone")
    try:
        watch.started()
        sim.kill()
        send([message(0, 0, [event(2, 1)], template=True)], port)
        status = watch.wait(30)
    finally:
        watch.stop(signal.SIGKILL)
        sim.kill()
    err = watch.err().splitlines()
    try:
        lines = json_lines(watch.out())
    except ValueError:
        lines = []
    summary = lines[-1] if lines else {}
    failures = [line for line in err if "lookup of 10.0.0.1:1000 > 10.0.0.3:3000 protocol 17: " in line]
    tap.point(status == 1 and len(failures) == 3 and "3 lookups in a row failed" in err[-1]
              and [line.get("type") for line in lines] == ["high", "summary"]
              and summary.get("lookups_failed") == 3 and summary.get("lookups") == 0
              and summary.get("in_breach") == 1,
              "the device gone while a flow is in breach: each failed lookup reported, the third "
              "in a row ends the watch with its summary, exit 1",
              "exit %s\n%s\n%s" % (status, "\n".join(err), watch.out()))


# ---- 3. End to end on the simulated switch ----

CYCLES = 6
CYCLE_NS = 1200000           # a burst cycle: 1.2 ms of simulated time
A_STOP_NS = 50000            # flow A pauses after 50 us of each cycle, in breach ...
A_RESUME_NS = 1100000        # ... until 1.1 ms, when the queue has long drained: its LOW
A_RESUME_FRAMES = 10
INTERVAL, INTERVAL_NS = "10ms", 10 * 10**6
GONE = event(2, 9, src=0x0a090909)  # a flow the switch never saw


LIVE_CHECKS = ["the run", "the events", "the polls", "malformed datagrams mid-run",
               "nothing else on stderr", "the summary"]


def scenario(work):
    """test_sim_flowlat's frames and bursts, flow A held back between its HIGH and its LOW."""
    a, b = [], []
    n = 0
    for cycle in range(CYCLES):
        t0 = cycle * CYCLE_NS
        for t in list(range(t0, t0 + A_STOP_NS, S.A_SPACING_NS)) + [
                t0 + A_RESUME_NS + i * S.A_SPACING_NS for i in range(A_RESUME_FRAMES)]:
            a.append((t, S.udp_frame("A", len(a), 100)))
        t = t0 + 5000
        while t < t0 + 5000 + S.BURST_ON_NS:
            b.append((t, S.udp_frame("B", n, 1514)))
            n += 1
            t += (1514 + 24) * 8
    write_timed_pcap(os.path.join(work, "a.pcap"), a)
    write_timed_pcap(os.path.join(work, "b.pcap"), b)
    return {"A": [f for _, f in a], "B": [f for _, f in b]}


def ip_cmd(*args):
    subprocess.run(["ip"] + list(args), check=True, capture_output=True, text=True)


def check_live(tap, simulator, cli, seed, work):
    sent = scenario(work)
    end_ns = CYCLES * CYCLE_NS
    args = ["--seed", str(seed), "--duration", "%dns" % (end_ns + 100000000),
            "--wire-truth", os.path.join(work, "wire.csv"),
            "--port", "0:in=%s" % os.path.join(work, "a.pcap"),
            "--port", "1:in=%s" % os.path.join(work, "b.pcap"),
            "--port", "3:tap=" + TAP_IFACE]
    mac = ":".join("%02x" % (S.IPFIX_DESTINATION_MAC >> (40 - 8 * i) & 0xff) for i in range(6))
    host = dotted(S.IPFIX_DESTINATION_IP)
    sim = pktstats_sim.Simulator(simulator, work, args, name="s0", wait=True)
    watch = dump = None
    sent_at_events = None
    try:
        # the TAP's host end is the collector the exporter sends to; the watch and tcpdump
        # listen before the block is configured: export's enable sends the template
        ip_cmd("link", "set", "dev", TAP_IFACE, "address", mac)
        ip_cmd("addr", "add", host + "/24", "dev", TAP_IFACE)
        dump = subprocess.Popen(["tcpdump", "-Z", "root", "--immediate-mode", "-U", "-n", "-i",
                                 TAP_IFACE, "-Q", "in", "-w", os.path.join(work, "tap.pcap"),
                                 "udp port %d" % S.IPFIX_PORT],
                                stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "dump.err"), "w"))
        watch = Watch(cli, work, ["listen", host, "interval", INTERVAL], device="sim:" + sim.socket_path)
        watch.started()
        deadline = time.monotonic() + 10
        while "listening on" not in open(os.path.join(work, "dump.err")).read():
            if time.monotonic() > deadline:
                raise RuntimeError("tcpdump did not start")
            time.sleep(0.05)
        S.configure(sim)
        start = sim.cycle()
        sim.request("start")
        # malformed datagrams once the first events are out
        deadline = time.monotonic() + 60
        while watch.out().count('"type":"high"') < 1:
            if time.monotonic() > deadline or watch.process.poll() is not None:
                raise RuntimeError("no HIGH event printed: %s" % watch.err())
            time.sleep(0.01)
        sent_at_events = sum(1 for line in watch.out().splitlines() if '"type":"poll"' not in line)
        send([message(0, 0, [event(3, 1)])[:20], message(0, 0, [event(3, 1)], version=9),
              b"\x00\x0bgarbage" * 3], S.IPFIX_PORT, host)
        T.wait_for_clock(sim, start + (end_ns + 300000) // 8, timeout=120)
        counters = {n: sim.read64(pktstats_sim.registers()["FLOWLAT_%s_LO" % n.upper()])
                    for n in ("messages", "templates", "records_exported", "events_lost")}
        time.sleep(1.0)  # the last message through the TAP
        # a HIGH, in sequence, of a flow the switch does not hold (as if evicted in breach):
        # one poll finds it gone, and it is no longer watched
        domain = sim.read(pktstats_sim.registers()["FLOWLAT_OBSERVATION_DOMAIN"])
        send([message(counters["records_exported"], domain, [GONE])], S.IPFIX_PORT, host)
        deadline = time.monotonic() + 10
        while '"src":"%s"' % dotted(GONE["src"]) not in watch.out().split('"type":"high"')[-1]:
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        time.sleep(0.2)
        watch_status = watch.stop(signal.SIGINT)
    finally:
        if watch:
            watch.stop(signal.SIGKILL)
        if dump:
            dump.send_signal(signal.SIGINT)
            dump.wait(timeout=30)
        sim_status = sim.stop()
    out, err = watch.out(), watch.err()
    try:
        lines = json_lines(out)
    except ValueError as error:
        lines = []
        tap.comment("stdout is not JSON lines: %s" % error)
    tap.point(watch_status == 0 and sim_status == 0 and lines and lines[-1].get("type") == "summary",
              "the run: the watch stops on SIGINT with its summary (exit 0), the simulator ends",
              "watch %s: %s\nsimulator %s: %s" % (watch_status, err[-2000:], sim_status, sim.log()[-1000:]))

    truth = T.read_truth(os.path.join(work, "wire.csv"))
    model, state, per_flow = S.expected_events(truth, sent)
    _, wire_records = S.ipfix_records(os.path.join(work, "tap.pcap"))
    events = [line for line in lines if line.get("type") in KINDS.values()]
    polls = [line for line in lines if line.get("type") == "poll"]
    tap.comment("%d frames of A, %d of B; the model: %d events (%d high, %d low, %d absolute); "
                "printed: %d events, %d polls; %d records on the TAP" % (
                    len(sent["A"]), len(sent["B"]), len(model),
                    sum(e["kind"] == 2 for e in model), sum(e["kind"] == 3 for e in model),
                    sum(e["kind"] == 1 for e in model), len(events), len(polls), len(wire_records)))

    # every event printed is the model's, in order, none missing or extra
    problems = []
    for flow, (src, dst, sport, dport, ingress) in S.FLOWS.items():
        want = [e for e in model if e["flow"] == flow]
        got = [e for e in events if e["src"] == dotted(src)]
        wire = [r for r in wire_records if r["src"] == src]
        if not (len(got) == len(want) == len(wire)):
            problems.append("flow %s: %d printed, the model %d, the wire %d" % (
                flow, len(got), len(want), len(wire)))
        for i, (g, e, r) in enumerate(zip(got, want, wire)):
            stateful, high, low, _ = S.PROFILES[e["profile"]]
            expect = {"type": KINDS[e["kind"]], "src": dotted(src), "dst": dotted(dst),
                      "protocol": 17, "sport": sport, "dport": dport, "ingress": ingress,
                      "egress": 2, "residence": e["residence"], "group": e["group"],
                      "profile": e["profile"], "high": high, "low": low,
                      "occupancy_bytes": r["occupancy"]}
            diff = {k: (g.get(k), v) for k, v in expect.items() if g.get(k) != v}
            period = 2**32 * 10**9
            if abs((g["time_ns"] - e["tx_ns"] + period // 2) % period - period // 2) > 1:
                diff["time_ns"] = (g["time_ns"], e["tx_ns"])
            if diff:
                problems.append("flow %s event %d: %s" % (flow, i, diff))
    highs = sum(e["kind"] == 2 for e in model)
    tap.point(not problems and highs == CYCLES and sum(e["kind"] == 3 for e in model) == CYCLES,
              "every event printed is the model's from the wire truth, in order, none missing or "
              "extra: kind, residence, time (ns), 5-tuple, ports, group, profile, thresholds; "
              "occupancy as on the wire (%d events, %d HIGH)" % (len(model), highs),
              "\n".join(problems[:10]))

    # polls: only between a flow's HIGH and its LOW, each the switch's true state
    residences = {flow: [r[1] for r in rows] for flow, rows in per_flow.items()}
    profile_a = S.PROFILES[[p for f, p in S.RULES if f == "A"][0]]

    def breach_after(flow, packets):
        breach = False
        for res in residences[flow][:packets]:
            if not breach and res > profile_a[1]:
                breach = True
            elif breach and res < profile_a[2]:
                breach = False
        return breach

    problems, windows, current, late = [], [], {}, 0
    gone = [line for line in lines if line.get("src") == dotted(GONE["src"])]
    gone_ok = [line.get("type") for line in gone] == ["high", "poll"] and gone[1]["found"] is False \
        and all(gone[1][k] is None for k in ("last_residence", "max_residence", "packets", "breach"))
    if not gone_ok:
        problems.append("the flow the switch does not hold: %s" % gone)
    for line in lines:
        kind, flow_src = line.get("type"), line.get("src")
        if flow_src == dotted(GONE["src"]):
            continue
        flow = [f for f, v in S.FLOWS.items() if dotted(v[0]) == flow_src]
        flow = flow[0] if flow else None
        if kind == "high":
            current[flow_src] = {"high": line, "polls": 0, "in_breach_polls": 0}

        elif kind == "low":
            if flow_src in current:
                w = current.pop(flow_src)
                times = w.get("times", [])
                # the polls' mean spacing: the interval (a late tick makes the next one short)
                if len(times) > 1 and (times[-1] - times[0]) / (len(times) - 1) < 0.9 * INTERVAL_NS:
                    problems.append("polls %.3f ms apart on average (interval %s)" % (
                        (times[-1] - times[0]) / (len(times) - 1) / 1e6, INTERVAL))
                windows.append(w)
        elif kind == "poll":
            w = current.get(flow_src)
            if w is None:
                problems.append("a poll outside a HIGH..LOW window: %s" % line)
                continue
            w["polls"] += 1
            w.setdefault("times", []).append(line["time_ns"])
            p = line.get("packets") or 0
            want = {"found": True, "last_residence": residences[flow][p - 1] if p else None,
                    "max_residence": max(residences[flow][:p]) if p else None,
                    "breach": breach_after(flow, p), "group": 0}
            got = {k: line.get(k) for k in want}
            if got != want:
                problems.append("poll %s: got %s, the truth after %d packets %s" % (
                    line["time_ns"], got, p, want))
            if want["breach"]:
                w["in_breach_polls"] += 1
                if not (line["breach"] and line["max_residence"] >= w["high"]["residence"]):
                    problems.append("poll in breach: %s (HIGH %s)" % (line, w["high"]["residence"]))
            else:
                late += 1
    if current:
        problems.append("HIGH without its LOW printed: %s" % list(current))
    empty = [w["high"]["time_ns"] for w in windows if not w["in_breach_polls"]]
    tap.point(not problems and len(windows) == CYCLES and not empty and polls,
              "polls only between a flow's HIGH and its LOW, in every breach, at least the "
              "interval apart (%d polls in %d breaches); each the switch's true state after the "
              "packets it counts (last and largest residence, breach); in breach: breach true, "
              "largest residence >= the HIGH's (%d polls came after the LOW frame, before its "
              "event); a flow the switch does not hold: one poll, found false, then no more"
              % (len(polls), len(windows), late),
              "\n".join(problems[:10] + ["breaches without a poll in breach: %s" % empty]))

    # malformed datagrams mid-run: reported, counted, and the watch went on
    reported = [line for line in err.splitlines() if "malformed IPFIX message" in line]
    after = len([line for line in lines if line.get("type") in KINDS.values()])
    tap.point(len(reported) == 3 and "(truncated)" in reported[0] and "(bad_version)" in reported[1]
              and "(bad_version)" in reported[2] and sent_at_events is not None
              and after > sent_at_events,
              "malformed datagrams sent mid-run (truncated, version 9, garbage): each reported "
              "with its reason, and events printed after them (%s before, %d in all)"
              % (sent_at_events, after), err)
    others = [line for line in err.splitlines() if "malformed" not in line
              and "listening on" not in line]
    tap.point(not others, "nothing else on stderr (no lookup failed)", "\n".join(others))

    summary = lines[-1] if lines else {}
    want = {"messages": counters["messages"] + 1, "templates": counters["templates"],
            "records": counters["records_exported"] + 1, "events": len(model) + 1,
            "absolute_events": sum(e["type"] == "absolute" for e in events),
            "high_events": sum(e["type"] == "high" for e in events),
            "low_events": sum(e["type"] == "low" for e in events), "malformed": 3,
            "datagrams": counters["messages"] + 4, "records_missing": 0, "sequence_errors": 0,
            "other_domain": 0, "in_breach": 0, "evicted": 1, "lookups": len(polls),
            "lookups_failed": 0,
            "device": "sim:" + sim.socket_path}
    got = {k: summary.get(k) for k in want}
    tap.point(got == want and counters["events_lost"] == 0 and len(events) == len(model) + 1,
              "the summary counts what was printed: events by kind, lookups = poll lines, "
              "malformed; messages, templates, records = the block's counters (and the one "
              "written here); no record missing, no flow left in breach, the one evicted, no "
              "lookup failed",
              "got %s\nwant %s" % (got, want))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cli")
    parser.add_argument("simulator")
    parser.add_argument("--seed", type=int)
    options = parser.parse_args()
    cli, simulator = os.path.abspath(options.cli), os.path.abspath(options.simulator)
    tap = Tap()
    why = None
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        why = "needs root and /dev/net/tun"
    elif not all(shutil.which(t) for t in ("unshare", "tcpdump", "ip")):
        why = "needs unshare, tcpdump and ip"
    setup_error = None
    if why is None:
        try:
            pktstats_sim.in_private_network()  # re-runs this script in a namespace of its own
        except RuntimeError as error:
            setup_error = error
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap.comment("seed %d (replay: %s --seed %d)" % (seed, " ".join(sys.argv[:3]), seed))
    parts = [("usage", lambda work: check_usage(tap, cli, work)),
             ("messages written here", lambda work: check_written(tap, cli, work)),
             ("floods", lambda work: check_floods(tap, cli, work, seed)),
             ("the device gone", lambda work: check_device_gone(tap, simulator, cli, work))]
    if why is None:
        parts.append(("end to end", lambda work: check_live(tap, simulator, cli, seed, work)))
    for name, part in parts:
        work = tempfile.mkdtemp(prefix="pktstats-flowlat-watch-")
        try:
            if setup_error and name == "end to end":
                raise setup_error
            part(work)
        except Exception:  # a broken part is a failure, not a crash of the suite
            tap.point(False, name, traceback.format_exc())
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if why is not None:
        for name in LIVE_CHECKS:
            tap.n += 1
            print("ok %d - end to end: %s # SKIP %s" % (tap.n, name, why))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
