#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The flow-latency monitor at its edges, on the simulated switch (issue 15; docs/flowlat.md):
a full flow table with collisions, eviction after idle, rules rewritten under traffic, IPFIX
export toward a congested port. Every figure is checked against a model of the flow table
(flowlat_table's rules: 4 ways x 2048 sets, the set the low 11 bits of zlib's crc32 of the 13
key bytes) fed with the simulator's wire truth.

    tb/sim/test_sim_flowlat_scale.py build/bin/pktstats-sim [--seed S] [--only table,rules,export]
        [--mutation NAME] [--keep]

The three runs go side by side (three simulators); each prints its figures. --only runs
some of them (table, rules, export); --mutation NAME breaks one expectation on purpose, and
the test must then fail: table: collision (the "colliding" flows go to sets with a free way),
table_full (phase 1's expected table_full + 1), evicted (+1), way (the model evicts the last
stale way, not the first), event (the model's last event dropped); rules: rules (the model
takes every change 9 us late: one frame of F0 and F1); export: events_lost (+1), residence
(the model's first event 1 ns off).

Run "table" (scenarios 1 and 2), IPFIX out of CPU port 7:
  1. 4096 random flows (seeded), chosen so that no set holds more than 4, each a few 64..100
     byte frames from a random MAC port to another, with congestion that moves from port to
     port; then flows deliberately put into sets already holding 4 live flows, and flows no
     rule matches. Checked: table_full = exactly the colliding flows' frames, unmatched
     exactly the others', monitored the rest (counters read between the phases), every
     IPFIX record the model's event, in order, none missing; at the end the lookup of every
     flow by 5-tuple (found, group, breach, packets, last and largest residence) equals the
     model's, the colliding flows not found.
  2. The table idle for longer than idle_timeout_us, then new flows into full sets, into sets
     with free ways and evicted flows coming back: evicted and evicted_in_breach exact (which
     way goes: the first stale way), the evicted flows not found, those that came back new
     (packets from 1, out of breach: the LOW of an evicted flow in breach never comes).
Run "rules" (scenario 3): rules rewritten while the traffic runs (a rule's profile, a rule of
     higher priority that takes a flow over and lets it go, an egress mask that drops three
     flows out of monitoring and back). The whole schedule is sent at once, each write after
     an `until +CLOCKS` and followed by a `time`, so that the simulator takes it at the same
     clock on every run whatever the host's speed, and its window is known to the clock (5
     clocks); a frame whose record
     reaches the table after the window takes the new rules, one before it the old; a frame
     whose record could reach the table inside the window (its TX clock + 5..48 clocks) is
     ambiguous, and the model is evaluated for every cut of those frames (the frames before
     the cut take the old rules): the observations (events, counters, lookups) must be those
     of one cut. The ambiguous frames and how they were resolved are printed. The writes land
     at seeded random points between the frames.
Run "export" (scenario 4): the IPFIX messages leave by MAC port 3, whose queue is full of
     other traffic (and drops), while the other ports carry more monitored frames than port 3
     can carry events. Checked: every IPFIX frame whole (IP checksum, lengths, sets), every
     record one of the model's events, exactly, each at most once, in order per flow;
     events + events_lost = the model's events, records_exported = events = the records
     received; the sequence numbers count the records before each message (no message lost);
     no_stamp = the IPFIX frames the tap of port 3 saw; queue 3's drops = the truth's. (The
     IPFIX frames do not pass through port 3's queue: like evcap's stat packets they take the
     port at the next frame boundary, so they cannot be dropped there; the port's rate holds
     the exporter back and the loss is upstream, in the event FIFO: events_lost.)

In the table run, two records of one set within 4 clocks of each other (one of them a new
flow) may reach the table in either order (the ports' round robin): the model then tries both
orders and takes the one that matches, and says so.
"""

import argparse
import collections
import itertools
import os
import random
import shutil
import struct
import sys
import tempfile
import threading
import time
import traceback
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import isl_frames as K  # noqa: E402  (checksums)
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
import test_sim_flowlat as FL  # noqa: E402
import test_sim_oam as T  # noqa: E402
from tap_output import Tap  # noqa: E402

R = FL.R
shift = FL.shift
SETS, WAYS = 2048, 4
CLOCK_NS = 8
WIRE_EXTRA = 24  # FCS, preamble, inter-frame gap
# A record reaches the table 5.. clocks after its frame's first word left (the tap takes word
# 4, then the hold, the FIFO); at most LATENCY_MAX clocks when the record FIFO is nearly empty
LATENCY_MIN, LATENCY_MAX = 5, 48


# ------------------------------------------------------------------------------------------
# Keys, rules, the model of the flow table


def set_of(key):
    """The flow's set: low 11 bits of zlib's crc32 of src, dst, protocol, sport, dport."""
    src, dst, protocol, sport, dport = key
    return zlib.crc32(struct.pack(">IIBHH", src, dst, protocol, sport, dport)) & (SETS - 1)


def rule(src=0, src_length=0, dst=0, dst_length=0, protocol=17, sport=None, dport=None,
         egress=0xf, profile=0, valid=True):
    return {"src": src, "src_length": src_length, "dst": dst, "dst_length": dst_length,
            "protocol": protocol, "sport": sport, "dport": dport, "egress": egress,
            "profile": profile, "valid": valid}


def exact_rule(key, egress=0xf, profile=0, valid=True):
    src, dst, protocol, sport, dport = key
    return rule(src, 32, dst, 32, protocol, sport, dport, egress, profile, valid)


def prefix_mask(length):
    return 0 if length == 0 else (0xffffffff << (32 - min(length, 32))) & 0xffffffff


def rule_matches(r, key, egress):
    src, dst, protocol, sport, dport = key
    return (r["valid"] and (src ^ r["src"]) & prefix_mask(r["src_length"]) == 0
            and (dst ^ r["dst"]) & prefix_mask(r["dst_length"]) == 0
            and (r["protocol"] is None or protocol == r["protocol"])
            and (r["sport"] is None or sport == r["sport"])
            and (r["dport"] is None or dport == r["dport"])
            and r["egress"] >> egress & 1)


def rule_control(r):
    return (((r["src_length"]) << shift("FLOWLAT_RULE_CONTROL_0_SRC_LENGTH_MASK"))
            | (r["dst_length"] << shift("FLOWLAT_RULE_CONTROL_0_DST_LENGTH_MASK"))
            | ((r["protocol"] or 0) << shift("FLOWLAT_RULE_CONTROL_0_PROTOCOL_MASK"))
            | (R["FLOWLAT_RULE_CONTROL_0_PROTOCOL_ANY_MASK"] if r["protocol"] is None else 0)
            | (R["FLOWLAT_RULE_CONTROL_0_SPORT_ANY_MASK"] if r["sport"] is None else 0)
            | (R["FLOWLAT_RULE_CONTROL_0_DPORT_ANY_MASK"] if r["dport"] is None else 0)
            | (r["egress"] << shift("FLOWLAT_RULE_CONTROL_0_EGRESS_PORTS_MASK"))
            | (r["profile"] << shift("FLOWLAT_RULE_CONTROL_0_PROFILE_MASK"))
            | (R["FLOWLAT_RULE_CONTROL_0_VALID_MASK"] if r["valid"] else 0))


def write_rule(conn, index, r):
    conn.write(R["FLOWLAT_RULE_SRC_IP_%d" % index], r["src"])
    conn.write(R["FLOWLAT_RULE_DST_IP_%d" % index], r["dst"])
    conn.write(R["FLOWLAT_RULE_PORTS_%d" % index], (r["sport"] or 0) | (r["dport"] or 0) << 16)
    conn.write(R["FLOWLAT_RULE_CONTROL_%d" % index], rule_control(r))


def configure(conn, rules, profiles, export_port, idle_timeout_us=None, mtu=1500, flush_us=20):
    """Static entries for the MAC ports, the rules and profiles, the exporter (to export_port),
    monitor and export on."""
    conn.add_port_entries(range(4))
    for index, r in enumerate(rules):
        write_rule(conn, index, r)
    for p, (stateful, high, low, interval) in profiles.items():
        conn.write(R["FLOWLAT_PROFILE_HIGH_%d" % p], high & 0xffffffff)
        conn.write(R["FLOWLAT_PROFILE_LOW_%d" % p], low & 0xffffffff)
        conn.write(R["FLOWLAT_PROFILE_MIN_INTERVAL_US_%d" % p], interval)
        conn.write(R["FLOWLAT_PROFILE_CONTROL_%d" % p], 1 if stateful else 0)
    if idle_timeout_us is not None:
        conn.write(R["FLOWLAT_IDLE_TIMEOUT_US"], idle_timeout_us)
    conn.write(R["FLOWLAT_IPFIX_DESTINATION_MAC_LO"], FL.IPFIX_DESTINATION_MAC & 0xffffffff)
    conn.write(R["FLOWLAT_IPFIX_DESTINATION_MAC_HI"], FL.IPFIX_DESTINATION_MAC >> 32)
    conn.write(R["FLOWLAT_IPFIX_SOURCE_MAC_LO"], FL.IPFIX_SOURCE_MAC & 0xffffffff)
    conn.write(R["FLOWLAT_IPFIX_SOURCE_MAC_HI"], FL.IPFIX_SOURCE_MAC >> 32)
    conn.write(R["FLOWLAT_IPFIX_SOURCE_IP"], FL.IPFIX_SOURCE_IP)
    conn.write(R["FLOWLAT_IPFIX_DESTINATION_IP"], FL.IPFIX_DESTINATION_IP)
    conn.write(R["FLOWLAT_MTU"], mtu)
    conn.write(R["FLOWLAT_FLUSH_TIMEOUT_US"], flush_us)
    conn.write(R["FLOWLAT_CONTROL"], R["FLOWLAT_CONTROL_MONITOR_ENABLE_MASK"]
               | R["FLOWLAT_CONTROL_EXPORT_ENABLE_MASK"]
               | (1 << export_port) << shift("FLOWLAT_CONTROL_EXPORT_PORTS_MASK"))


class Ambiguous(Exception):
    """The model cannot decide from the truth (a time within the block's clock resolution)."""


class TableModel:
    """flowlat_table, record by record: match, set, way (hit, free, stale, else table_full),
    state, events. now_us of a record: its TX clock // 125 (the table's microsecond clock
    counts from reset; the record reaches it a few clocks after the TX clock): a staleness or
    interval decision within 2 us of its limit raises Ambiguous."""

    last_stale_way = False  # a mutation: the wrong way goes

    def __init__(self, profiles, idle_timeout_us):
        self.profiles = profiles
        self.timeout = idle_timeout_us
        self.ways = collections.defaultdict(lambda: [None] * WAYS)
        self.counters = collections.Counter()
        self.events = []
        self.evictions = []  # (evicted key, was in breach, by key, at index)
        self.outcomes = {}   # index: unmatched, hit, free, evict, full

    def record(self, rec, rules, index=0):
        key, egress = rec["key"], rec["egress"]
        match = next(((g, r["profile"]) for g, r in enumerate(rules) if rule_matches(r, key, egress)), None)
        if match is None:
            self.counters["unmatched"] += 1
            self.outcomes[index] = "unmatched"
            return
        group, profile = match
        now = rec["clock"] // 125
        ways = self.ways[set_of(key)]
        way = next((w for w in range(WAYS) if ways[w] and ways[w]["key"] == key), None)
        found = way is not None
        if not found:
            way = next((w for w in range(WAYS) if ways[w] is None), None)
        if way is None:
            for w in range(WAYS):
                if abs(now - ways[w]["seen"] - self.timeout) <= 2:
                    raise Ambiguous("staleness of a way within 2 us of the timeout")
            stale = [w for w in range(WAYS) if now - ways[w]["seen"] > self.timeout]
            way = (stale[-1] if self.last_stale_way else stale[0]) if stale else None
            if way is None:
                self.counters["table_full"] += 1
                self.outcomes[index] = "full"
                return
            self.outcomes[index] = "evict"
            self.counters["evicted"] += 1
            if ways[way]["breach"]:
                self.counters["evicted_in_breach"] += 1
            self.evictions.append((ways[way]["key"], ways[way]["breach"], key, index))
        self.outcomes.setdefault(index, "hit" if found else "free")
        old = ways[way] if found else {"breach": False, "packets": 0, "max": None, "event_us": None}
        stateful, high, low, interval = self.profiles[profile]
        residence = rec["residence"]
        kind, breach = None, old["breach"]
        if stateful:
            if not breach and residence > high:
                kind, breach = 2, True
            elif breach and residence < low:
                kind, breach = 3, False
        elif residence > high:
            if old["event_us"] is not None and interval and abs(now - old["event_us"] - interval) <= 2:
                raise Ambiguous("an ABSOLUTE interval within 2 us of min_interval_us")
            if old["event_us"] is None or now - old["event_us"] >= interval:
                kind = 1
        ways[way] = {"key": key, "group": group, "breach": breach, "last": residence,
                     "max": residence if old["max"] is None else max(old["max"], residence),
                     "packets": old["packets"] + 1, "seen": now,
                     "event_us": now if kind == 1 else old["event_us"]}
        self.counters["monitored"] += 1
        if kind:
            self.counters["events"] += 1
            self.events.append({"key": key, "kind": kind, "residence": residence, "tx_ns": rec["tx_ns"],
                                "group": group, "profile": profile, "high": high, "low": low,
                                "ingress": rec["ingress"], "egress": egress, "index": index})

    def state(self, key):
        for entry in self.ways[set_of(key)]:
            if entry and entry["key"] == key:
                return {"found": True, "group": entry["group"], "breach": entry["breach"],
                        "packets": entry["packets"], "last": entry["last"], "max": entry["max"]}
        return {"found": False}


# ------------------------------------------------------------------------------------------
# Traffic, truth, IPFIX


def wire_ns(frame):
    return (len(frame) + 4 + 20) * 8  # FCS, preamble 8, gap 12 at 1 Gb/s


def schedule(queues, rng, start_ns, load=0.75, window_ns=16000, hot_share=0.8):
    """Times for the frames of each ingress port: queues {ingress: {egress: [frame]}} (each list
    in the order it must keep). In window w, egress port w % 4 is hot: every other port sends
    to it first (hot_share of its frames), so its queue grows during the window and drains
    after. Returns ({ingress: [(t_ns, frame)]}, end of the last frame ns)."""
    out, end = {}, start_ns
    for i in sorted(queues):
        q = {e: collections.deque(frames) for e, frames in queues[i].items() if frames}
        t, timed = start_ns, []
        while q:
            hot = (t - start_ns) // window_ns % 4
            if hot != i and hot in q and rng.random() < hot_share:
                e = hot
            else:
                e = rng.choice(sorted(q))
            frame = q[e].popleft()
            if not q[e]:
                del q[e]
            timed.append((t, frame))
            t += int(wire_ns(frame) / load)
        out[i] = timed
        end = max(end, t)
    return out, end


def read_records(work, sent):
    """The table's records from the wire truth: for every frame sent (dicts with frame, key,
    ingress, egress) that left its egress port: TX clock, TX reading (ns), residence. Sorted
    as the table takes them (TX clock, then port). Returns (records, truth, frames dropped)."""
    truth = T.read_truth(os.path.join(work, "wire.csv"))
    records, dropped = [], []
    for s in sent:
        h = T.fnv1a64(F.pad(s["frame"]))
        rx = truth.get((0, s["ingress"], "rx", h), [])
        tx = truth.get((0, s["egress"], "tx", h), [])
        if len(rx) != 1 or len(tx) > 1:
            raise RuntimeError("a frame with %d RX and %d TX lines in the truth" % (len(rx), len(tx)))
        if not tx:
            dropped.append(s)
            continue
        tx_ns = pktstats_sim.wire_reading(tx[0])
        records.append(dict(s, clock=tx[0]["clock"], tx_ns=tx_ns,
                            residence=T.signed_diff(tx_ns, pktstats_sim.wire_reading(rx[0]))))
    records.sort(key=lambda r: (r["clock"], r["egress"]))
    return records, truth, dropped


def close_pairs(records, clocks=8):
    """Records of different flows of one set whose order the round robin may decide."""
    n = 0
    for a, b in zip(records, records[1:]):
        if b["clock"] - a["clock"] <= clocks and a["key"] != b["key"] and set_of(a["key"]) == set_of(b["key"]):
            n += 1
    return n


def expected_record(e):
    src, dst, protocol, sport, dport = e["key"]
    seconds, ns = divmod(e["tx_ns"], 10**9)
    return {"seconds": (seconds + FL.NTP_OFFSET) % 2**32, "fraction": (ns * 2**32 + 5 * 10**8) // 10**9,
            "src": src, "dst": dst, "protocol": protocol, "sport": sport, "dport": dport,
            "ingress": e["ingress"], "egress": e["egress"], "residence": e["residence"],
            "kind": e["kind"], "group": e["group"], "profile": e["profile"],
            "high": e["high"], "low": e["low"]}


def record_key(r):
    return (r["src"], r["dst"], r["protocol"], r["sport"], r["dport"])


def differs(got, want):
    diff = {k: (got[k], v) for k, v in want.items() if k != "fraction" and got[k] != v}
    if abs(got["fraction"] - want["fraction"]) > 1:
        diff["fraction"] = (got["fraction"], want["fraction"])
    return diff


def compare_events(records, events, subsequence=False):
    """Problems between the IPFIX records and the model's events, flow by flow in order; with
    subsequence, records may be missing (lost events) but each must be the next of the
    model's events of its flow that it equals. Returns (problems, records matched)."""
    want = collections.defaultdict(list)
    for e in events:
        want[e["key"]].append(expected_record(e))
    got = collections.defaultdict(list)
    for r in records:
        got[record_key(r)].append(r)
    problems, matched = [], 0
    for key in set(want) | set(got):
        w, g = want.get(key, []), got.get(key, [])
        if not subsequence:
            if len(w) != len(g):
                problems.append("flow %s: %d records, the model %d events" % (key, len(g), len(w)))
            for i, (r, e) in enumerate(zip(g, w)):
                d = differs(r, e)
                if d:
                    problems.append("flow %s event %d: %s" % (key, i, d))
                else:
                    matched += 1
            continue
        at = 0
        for i, r in enumerate(g):
            while at < len(w) and differs(r, w[at]):
                at += 1
            if at == len(w):
                problems.append("flow %s record %d: no event of the model is it (or it is out of "
                                "order or doubled): %s" % (key, i, r))
                break
            matched += 1
            at += 1
    return problems, matched


def ipfix_frames_check(pcap):
    """Problems with the IPFIX frames of a pcap as frames: IPv4 header checksum and lengths,
    UDP length, IPFIX length, sets that add up, records of 48 bytes."""
    problems, n = [], 0
    for _, frame in F.read_pcap(pcap):
        if frame[12:14] != b"\x08\x00" or frame[23] != 17 or struct.unpack_from(">H", frame, 36)[0] != FL.IPFIX_PORT:
            continue
        n += 1
        ip_length = struct.unpack_from(">H", frame, 16)[0]
        udp_length = struct.unpack_from(">H", frame, 38)[0]
        version, length = struct.unpack_from(">HH", frame, 42)
        what = []
        if not K.ip_checksum_ok(frame[14:34]):
            what.append("IP checksum")
        if ip_length != len(frame) - 14 and not (len(frame) == 60 and ip_length < 46):
            what.append("IP length %d, frame %d" % (ip_length, len(frame)))
        if udp_length != ip_length - 20 or length != udp_length - 8 or version != 10:
            what.append("UDP length %d, IPFIX version %d length %d" % (udp_length, version, length))
        at, end = 58, 42 + length
        while at < end:
            set_id, set_length = struct.unpack_from(">HH", frame, at)
            if set_length < 4 or (set_id == 256 and (set_length - 4) % 48) or (set_id == 2 and set_length != 96) \
                    or set_id not in (2, 256):
                what.append("set %d of length %d at %d" % (set_id, set_length, at))
                break
            at += set_length
        if at != end:
            what.append("sets end at %d, the message at %d" % (at, end))
        if what:
            problems.append("IPFIX frame %d: %s" % (n, ", ".join(what)))
    return problems, n


def pipeline(conn, lines, chunk=2000):
    """Sends request lines many at a time (the server answers them in order, one transaction
    after another): their replies' words after `ok`."""
    replies = []
    for at in range(0, len(lines), chunk):
        part = lines[at:at + chunk]
        conn.file.write("".join(line + "\n" for line in part))
        conn.file.flush()
        for line in part:
            reply = conn.file.readline().rstrip("\n")
            if not reply.startswith("ok"):
                raise RuntimeError("pktstats-sim: %r: %s" % (line, reply or "connection closed"))
            replies.append(reply.split()[1:])
    return replies


def lookup_many(conn, keys):
    """FL.lookup_flow for many flows, pipelined: {key: {found, breach, group, packets, last,
    max}} (for a flow not found only found)."""
    reads = ("FLOWLAT_LOOKUP_STATUS", "FLOWLAT_LOOKUP_PACKETS", "FLOWLAT_LOOKUP_LAST_RESIDENCE",
             "FLOWLAT_LOOKUP_MAX_RESIDENCE")
    lines = ["write 0x%x 17" % R["FLOWLAT_LOOKUP_PROTOCOL"]]
    for src, dst, protocol, sport, dport in keys:
        if protocol != 17:
            raise ValueError("UDP flows only")
        lines += ["write 0x%x 0x%x" % (R["FLOWLAT_LOOKUP_SRC_IP"], src),
                  "write 0x%x 0x%x" % (R["FLOWLAT_LOOKUP_DST_IP"], dst),
                  "write 0x%x 0x%x" % (R["FLOWLAT_LOOKUP_PORTS"], sport | dport << 16),
                  "write 0x%x 0x%x" % (R["FLOWLAT_COMMAND"], R["FLOWLAT_COMMAND_LOOKUP_MASK"])]
        lines += ["read 0x%x" % R[name] for name in reads]
    replies = pipeline(conn, lines)[1:]
    result = {}
    for n, key in enumerate(keys):
        status, packets, last, largest = (int(w[0], 16) for w in replies[8 * n + 4:8 * n + 8])
        if not status & FL.LOOKUP_DONE:
            answer = FL.lookup_flow(conn, key[0], key[1], key[3], key[4])
        else:
            answer = {"found": bool(status & FL.LOOKUP_FOUND), "breach": bool(status & FL.LOOKUP_BREACH),
                      "group": status >> 4 & 15, "packets": packets, "last": FL.signed32(last),
                      "max": FL.signed32(largest)}
        result[key] = answer if answer["found"] else {"found": False}
    return result


def compare_lookups(lookups, model):
    problems = []
    for key, got in lookups.items():
        want = model.state(key)
        if got != want:
            problems.append("flow %s: got %s, want %s" % (key, got, want))
    return problems


class Results:
    """Test points of one run, printed together at the end (the runs go side by side)."""

    def __init__(self, name):
        self.name = name
        self.points = []
        self.comments = []

    def point(self, ok, text, detail=""):
        self.points.append((bool(ok), "%s: %s" % (self.name, text), detail))
        return ok

    def comment(self, text):
        self.comments.append("%s: %s" % (self.name, text))


def random_key(rng, src_base=10 << 24):
    return (src_base | rng.getrandbits(24), 0xac100000 | rng.getrandbits(20), 17,
            rng.randrange(1024, 65536), rng.randrange(1024, 65536))


# ------------------------------------------------------------------------------------------
# Run "table": scenarios 1 and 2

TABLE_FLOWS = 4096
TABLE_PACKETS = 3            # frames per flow in phase 1
TABLE_COLLIDING = 48         # flows into sets holding 4 live flows, 2 frames each
TABLE_UNMATCHED = 32         # flows no rule matches, 2 frames each
TABLE_TIMEOUT_US = 5000
# profile: (stateful, high ns, low ns, min interval us)
TABLE_PROFILES = {0: (True, 6000, 2000, 0), 1: (False, 9000, 0, 0)}
TABLE_RULES = [rule(10 << 24, 9, profile=0), rule(10 << 24 | 1 << 23, 9, profile=1)]


def table_flows(rng, mutation=None):
    """The flows of run "table": {name: [flow dicts]} (key, ingress, egress)."""
    used, occupancy = set(), collections.Counter()

    def flow(key=None, wanted_set=None, src_base=10 << 24):
        while True:
            k = key or random_key(rng, src_base)
            if k in used or (wanted_set is not None and set_of(k) != wanted_set):
                continue
            used.add(k)
            ingress = rng.randrange(4)
            return {"key": k, "ingress": ingress, "egress": rng.choice([p for p in range(4) if p != ingress])}

    main = []
    while len(main) < TABLE_FLOWS:
        k = random_key(rng)
        if k in used or occupancy[set_of(k)] >= WAYS:
            continue
        occupancy[set_of(k)] += 1
        main.append(flow(k))
    by_occupancy = collections.defaultdict(list)
    for s in range(SETS):
        by_occupancy[occupancy[s]].append(s)
    full = rng.sample(by_occupancy[4], TABLE_COLLIDING + 24 + 24 + 8)
    colliding_sets, full = full[:TABLE_COLLIDING], full[TABLE_COLLIDING:]
    if mutation == "collision":
        # break the prediction: the "colliding" flows go to sets with a free way
        colliding_sets = rng.sample(by_occupancy[3], TABLE_COLLIDING)
    colliding = [flow(wanted_set=s) for s in colliding_sets]
    unmatched = [flow(src_base=11 << 24) for _ in range(TABLE_UNMATCHED)]
    # phase 2: new flows into full sets (4 each: every way evicted; 1: the first stale way; 5:
    # the fifth finds no way), into sets with free ways (2 holders: 2 new flows, no eviction;
    # 3 holders: 2 new flows, one eviction), and the holders of some sets come back
    new, plan = [], []
    for count, sets in ((4, full[:24]), (1, full[24:48]), (5, full[48:56]),
                        (2, rng.sample(by_occupancy[2], 24)), (2, rng.sample(by_occupancy[3], 16))):
        for s in sets:
            new += [flow(wanted_set=s) for _ in range(count)]
            plan.append((s, count))
    back_sets = set(full[24:36]) | set(s for s, c in plan[-16:][:8])
    back = [f for f in main if set_of(f["key"]) in back_sets]
    return {"main": main, "colliding": colliding, "unmatched": unmatched, "new": new, "back": back}


def table_inputs(rng, work, flows):
    """The pcaps of run "table" and the frames sent ([dict(flow, frame, phase)]), the phases'
    time limits."""
    sent, number = [], [0]

    def frames_of(flow_list, count, phase, queues):
        for f in flow_list:
            for _ in range(count):
                number[0] += 1
                frame = FL.flow_frame(f["key"][0], f["key"][1], f["key"][3], f["key"][4], f["ingress"],
                                      f["egress"], number[0], rng.randint(60, 96), tag=b"FLS")
                item = dict(f, frame=frame, phase=phase)
                queues[f["ingress"]][f["egress"]].append(item)

    def part(builders, start_ns):
        queues = {i: {e: [] for e in range(4)} for i in range(4)}
        for flow_list, count, phase in builders:
            order = list(flow_list)
            rng.shuffle(order)
            frames_of(order, count, phase, queues)
        plain = {i: {e: [x["frame"] for x in q] for e, q in es.items()} for i, es in queues.items()}
        timed, end = schedule(plain, rng, start_ns)
        items = {i: {x["frame"]: x for es in queues[i].values() for x in es} for i in queues}
        for i, lst in timed.items():
            for t, frame in lst:
                item = items[i][frame]
                item["t"] = t
                sent.append(item)
        return end

    # phase 1, part A: the first frame of every flow; part B, once the queues have drained
    # (300 us: the largest residence seen is about 60 us): the others, and the colliding and
    # unmatched flows (after every flow has its way)
    end_a = part([(flows["main"], 1, 1), (flows["unmatched"], 1, 1)], 0)
    builders = [(flows["main"], 1, 1) for _ in range(TABLE_PACKETS - 1)]
    end_b = part([(flows["colliding"], 2, 1), (flows["unmatched"], 1, 1)] + builders, end_a + 300000)
    # phase 2 after the idle time: new flows (part C), then the holders back and the new
    # flows' second frames (part D)
    start_c = end_b + TABLE_TIMEOUT_US * 1000 + 600000
    end_c = part([(flows["new"], 1, 2)], start_c)
    end_d = part([(flows["new"], 1, 2), (flows["back"], 1, 2)], end_c + 30000)
    for i in range(4):
        F.write_timed_pcap(os.path.join(work, "in%d.pcap" % i),
                      sorted((s["t"], s["frame"]) for s in sent if s["ingress"] == i))
    return sent, {"phase1_end": end_b, "phase2_start": start_c, "end": end_d}


def run_table(simulator, seed, work, res, mutation=None):
    rng = random.Random(seed)
    TableModel.last_stale_way = mutation == "way"
    flows = table_flows(rng, mutation)
    sent, times = table_inputs(rng, work, flows)
    res.comment("%d flows (%d in sets of 4), %d colliding, %d unmatched; phase 2: %d new, %d back; "
                "%d frames; phase 1 %.2f ms, idle %.2f ms, phase 2 %.2f ms" % (
                    len(flows["main"]), 4 * sum(1 for c in collections.Counter(
                        set_of(f["key"]) for f in flows["main"]).values() if c == 4),
                    len(flows["colliding"]), len(flows["unmatched"]), len(flows["new"]),
                    len(flows["back"]), len(sent), times["phase1_end"] / 1e6,
                    (times["phase2_start"] - times["phase1_end"]) / 1e6,
                    (times["end"] - times["phase2_start"]) / 1e6))
    args = ["--seed", str(seed), "--duration", "10s",
            "--wire-truth", os.path.join(work, "wire.csv"),
            "--port", "7:out=%s" % os.path.join(work, "ipfix.pcap")]
    for i in range(4):
        args += ["--port", "%d:in=%s" % (i, os.path.join(work, "in%d.pcap" % i))]
    sim = pktstats_sim.Simulator(simulator, work, args, name="table", wait=True)
    started = time.monotonic()
    try:
        configure(sim, TABLE_RULES, TABLE_PROFILES, 7, idle_timeout_us=TABLE_TIMEOUT_US)
        # Sent at once, so that the simulator takes them at exact clocks whatever the host's
        # speed: the traffic starts; between the phases, the counters after phase 1 (drained)
        # are read before phase 2 begins
        replies = pipeline(sim, ["start", "time", "until +%d" % ((times["phase1_end"] + 300000) // CLOCK_NS)]
                           + counter_reads() + ["time"])
        start, before, after = (int(replies[n][1]) for n in (1, 2, -1))
        snapshot = counter_values(replies[3:-1])
        snapshot_ok = after < start + times["phase2_start"] // CLOCK_NS
        T.wait_for_clock(sim, start + (times["end"] + 300000) // CLOCK_NS)
        counters = read_counters_pipelined(sim)
        keys = [f["key"] for name in ("main", "colliding", "unmatched", "new") for f in flows[name]]
        t0 = time.monotonic()
        lookups = lookup_many(sim, keys)
        lookup_s = time.monotonic() - t0
        status = sim.stop()
    except BaseException:
        sim.kill()
        raise
    res.comment("simulator: %.1f s wall; snapshot at clocks %d..%d (phase 2 at %d); %d lookups in %.1f s" % (
        time.monotonic() - started, before - start, after - start, times["phase2_start"] // CLOCK_NS,
        len(lookups), lookup_s))
    res.point(status == 0, "the run ends, exit 0", sim.log()[-2000:])

    records, truth, dropped = read_records(work, sent)
    res.point(not dropped, "no frame dropped (%d frames, %d records)" % (len(sent), len(records)),
              "%d dropped" % len(dropped))
    messages, ipfix = FL.ipfix_records(os.path.join(work, "ipfix.pcap"))

    def table_model(order):
        model, phase1 = TableModel(TABLE_PROFILES, TABLE_TIMEOUT_US), None
        for n, r in enumerate(order):
            if r["phase"] == 2 and phase1 is None:
                phase1 = dict(model.counters)
            model.record(r, TABLE_RULES, n)
        return model, phase1

    model, phase1 = table_model(records)
    # records of one set within 4 clocks of each other, one of them not a hit: the round robin
    # of the ports decides their order; every order is tried, the one that matches is taken
    pairs = [n for n in range(len(records) - 1) if records[n + 1]["clock"] - records[n]["clock"] <= 4
             and records[n]["key"] != records[n + 1]["key"]
             and set_of(records[n]["key"]) == set_of(records[n + 1]["key"])
             and (model.outcomes[n] != "hit" or model.outcomes[n + 1] != "hit")][:6]
    if pairs:
        for swaps in itertools.product((False, True), repeat=len(pairs)):
            order = list(records)
            for n, swap in zip(pairs, swaps):
                if swap:
                    order[n], order[n + 1] = order[n + 1], order[n]
            m, p1 = table_model(order)
            if not compare_lookups(lookups, m) and not compare_events(ipfix, m.events)[0]:
                records, model, phase1 = order, m, p1
                res.comment("%d pairs of records whose order the round robin decides, the orders "
                            "that match: %s" % (len(pairs), swaps))
                break
        else:
            res.comment("%d pairs of records whose order the round robin decides: no order matches"
                        % len(pairs))
    want = model.counters
    residences = sorted(r["residence"] for r in records)
    res.comment("residence: min %d, median %d, 90%% %d, max %d ns; %d pairs of records of one set "
                "within 8 clocks" % (residences[0], residences[len(residences) // 2],
                                     residences[len(residences) * 9 // 10], residences[-1],
                                     close_pairs(records)))
    res.comment("the model: phase 1 %s; in all %s" % (phase1, dict(want)))

    # scenario 1: the colliding flows are exactly the table_full ones, nothing else is
    colliding_keys = set(f["key"] for f in flows["colliding"])
    main_keys = set(f["key"] for f in flows["main"])
    design = (phase1.get("table_full", 0) == 2 * TABLE_COLLIDING and phase1.get("evicted", 0) == 0
              and phase1.get("unmatched", 0) == 2 * TABLE_UNMATCHED)
    res.point(design, "the model, phase 1: table_full = the colliding flows' %d frames, "
              "no eviction, unmatched = %d" % (2 * TABLE_COLLIDING, 2 * TABLE_UNMATCHED), str(phase1))
    names = ("monitored", "unmatched", "table_full", "evicted", "evicted_in_breach", "events")
    got1 = {k: snapshot[k] for k in names}
    want1 = {k: phase1.get(k, 0) for k in names}
    if mutation == "table_full":
        want1["table_full"] += 1
    res.point(snapshot_ok and got1 == want1, "scenario 1, counters after phase 1 (read at clocks %d..%d, "
              "before phase 2): %s" % (before - start, after - start, want1),
              "got  %s\nwant %s" % (got1, want1))
    lookups_main = {k: v for k, v in lookups.items() if k in main_keys or k in colliding_keys}
    problems = compare_lookups(lookups_main, model)
    found = sum(1 for k in main_keys if lookups[k]["found"])
    res.point(not problems and not any(lookups[k]["found"] for k in colliding_keys),
              "scenario 1, lookups: the %d flows by 5-tuple equal the model (found, group, breach, "
              "packets, last and largest residence; %d found, the rest evicted in phase 2), the %d "
              "colliding flows not found" % (len(main_keys), found, len(colliding_keys)),
              "\n".join(problems[:10]))

    # scenario 2: evictions
    in_breach = want["evicted_in_breach"]
    res.point(want["evicted"] > 0 and in_breach > 0 and want["evicted"] > in_breach,
              "the model, phase 2: %d evicted, %d of them in breach" % (want["evicted"], in_breach))
    evicted_keys = set(k for k, _, _, _ in model.evictions)
    returned = set(f["key"] for f in flows["back"]) & evicted_keys
    problems = compare_lookups({k: v for k, v in lookups.items() if k not in main_keys
                                and k not in colliding_keys}, model)
    res.point(not problems, "scenario 2, lookups: the %d new and unmatched flows equal the model "
              "(%d evicted flows came back as new ones)" % (len(flows["new"]) + len(flows["unmatched"]),
                                                            len(returned)), "\n".join(problems[:10]))

    events = model.events
    if mutation == "event":
        events = events[:-1]
    problems, matched = compare_events(ipfix, events)
    # an evicted flow in breach: no LOW event after its eviction, though it may come back
    lows_after, breach_back = 0, 0
    for key, breach, _, index in model.evictions:
        if breach:
            at = expected_record({"key": key, "tx_ns": records[index]["tx_ns"], "ingress": 0, "egress": 0,
                                  "residence": 0, "kind": 0, "group": 0, "profile": 0, "high": 0, "low": 0})
            breach_back += key in returned
            lows_after += sum(1 for r in ipfix if record_key(r) == key and r["kind"] == 3
                              and (r["seconds"], r["fraction"]) > (at["seconds"], at["fraction"]))
    res.point(lows_after == 0, "scenario 2: no LOW event of a flow evicted in breach after its eviction "
              "(%d of them came back)" % breach_back, "%d LOW events" % lows_after)
    res.point(not problems, "scenarios 1 and 2: every IPFIX record is the model's event, in order per "
              "flow, none missing (%d events: %d HIGH, %d LOW, %d ABSOLUTE)" % (
                  len(events), sum(1 for e in events if e["kind"] == 2),
                  sum(1 for e in events if e["kind"] == 3), sum(1 for e in events if e["kind"] == 1)),
              "\n".join(problems[:10]))
    sequence_ok = all(seq == sum(c for _, c, _ in messages[:i]) % 2**32 for i, (seq, _, _) in enumerate(messages))
    res.point(messages and messages[0][2] and sequence_ok, "IPFIX: %d messages, the template first, "
              "sequence numbers counting the records before" % len(messages), str(messages[:5]))
    names = ("monitored", "unmatched", "table_full", "evicted", "evicted_in_breach", "events",
             "events_lost", "records_lost", "records_exported", "messages", "not_ipv4", "no_stamp")
    want_all = {k: want.get(k, 0) for k in names}
    want_all["records_exported"] = len(ipfix)
    want_all["messages"] = len(messages)
    if mutation == "evicted":
        want_all["evicted"] += 1
    got_all = {k: counters[k] for k in names}
    res.point(got_all == want_all and len(ipfix) == want["events"],
              "scenarios 1 and 2, counters at the end: %s" % want_all,
              "got  %s\nwant %s" % (got_all, want_all))


def counter_reads():
    """The request lines that read every counter (low word first: it latches the high word)."""
    lines = []
    for name in FL.COUNTERS:
        lines += ["read 0x%x" % R["FLOWLAT_%s_LO" % name.upper()], "read 0x%x" % R["FLOWLAT_%s_HI" % name.upper()]]
    return lines


def counter_values(replies):
    """The counters from the replies to counter_reads()."""
    return {name: int(replies[2 * n + 1][0], 16) << 32 | int(replies[2 * n][0], 16)
            for n, name in enumerate(FL.COUNTERS)}


def read_counters_pipelined(conn):
    return counter_values(pipeline(conn, counter_reads()))


# ------------------------------------------------------------------------------------------
# Run "export": scenario 4

EXPORT_A_NS, EXPORT_B_NS = 400000, 400000   # phase A: only port 3 congested; B: everything
EXPORT_PROFILES = {0: (False, 40000, 0, 0), 1: (False, 0, 0, 0)}
# rule 0: frames leaving by port 3 (its queue full: ABSOLUTE above 40 us); rule 1: frames
# leaving by ports 0..2 (every frame an ABSOLUTE event)
EXPORT_RULES = [rule(egress=1 << 3, protocol=None, profile=0), rule(egress=0x7, protocol=None, profile=1)]


def export_inputs(rng, work):
    """Phase A: ports 0..2 send 64-byte frames to port 3 at 2/3 of line rate each (2 Gb/s into
    a 1 Gb/s port); phase B: at line rate, every other frame to port 3 and the others to the
    next of ports 0..2, and port 3 sends to ports 0..2 at line rate."""
    flows = {(i, e): [random_key(rng) for _ in range(4)] for i in range(4) for e in range(4) if i != e}
    sent, number = [], 0
    for i in range(4):
        timed, t, n = [], 0, 0
        if i == 3:
            # the pcap's times count from its first frame: one frame that is not IPv4 (counted
            # in not_ipv4 by port 0's tap) at time 0
            timed.append((0, bytes.fromhex("020000000001" "02000000aa03" "88b5") + bytes(46)))
        while t < EXPORT_A_NS + EXPORT_B_NS:
            phase_a = t < EXPORT_A_NS
            if i == 3:
                if phase_a:
                    t = EXPORT_A_NS
                    continue
                e = n % 3
            else:
                e = 3 if phase_a or n % 2 == 0 else (i + 1) % 3
            key = flows[(i, e)][n // 2 % 4]
            number += 1
            frame = FL.flow_frame(key[0], key[1], key[3], key[4], i, e, number, 60, tag=b"FLX")
            sent.append({"key": key, "ingress": i, "egress": e, "frame": frame, "t": t})
            timed.append((t, frame))
            t += int(wire_ns(frame) * (1.5 if phase_a else 1.0))
            n += 1
        F.write_timed_pcap(os.path.join(work, "in%d.pcap" % i), timed)
    return sent


def run_export(simulator, seed, work, res, mutation=None):
    rng = random.Random(seed + 4)
    sent = export_inputs(rng, work)
    args = ["--seed", str(seed), "--duration", "10s", "--wire-truth", os.path.join(work, "wire.csv"),
            "--port", "3:out=%s" % os.path.join(work, "port3.pcap")]
    for i in range(4):
        args += ["--port", "%d:in=%s" % (i, os.path.join(work, "in%d.pcap" % i))]
    sim = pktstats_sim.Simulator(simulator, work, args, name="export", wait=True)
    started = time.monotonic()
    try:
        configure(sim, EXPORT_RULES, EXPORT_PROFILES, 3)
        sim.request("start")
        start = sim.cycle()  # at or after the traffic's start: the wait below is long enough
        # the end: port 3's full queue drains (262 us), the last message is flushed
        T.wait_for_clock(sim, start + (EXPORT_A_NS + EXPORT_B_NS + 600000) // CLOCK_NS)
        counters = read_counters_pipelined(sim)
        dropped3 = sim.read64(R["SWITCH_FRAMES_DROPPED_3_LO"])
        status_word = sim.read(R["FLOWLAT_STATUS"])
        status = sim.stop()
    except BaseException:
        sim.kill()
        raise
    res.comment("simulator: %.1f s wall" % (time.monotonic() - started))
    res.point(status == 0, "the run ends, exit 0", sim.log()[-2000:])

    records, truth, dropped = read_records(work, sent)
    model = TableModel(EXPORT_PROFILES, 1000000)
    for n, r in enumerate(records):
        model.record(r, EXPORT_RULES, n)
    want = model.counters
    pcap = os.path.join(work, "port3.pcap")
    problems, frames = ipfix_frames_check(pcap)
    messages, ipfix = FL.ipfix_records(pcap)
    res.comment("%d frames sent, %d dropped by queue 3; the model: %s; %d IPFIX messages with %d "
                "records; counters %s" % (len(sent), len(dropped), dict(want), len(messages), len(ipfix),
                                          {k: v for k, v in counters.items() if v}))
    res.point(not problems and frames == len(messages),
              "scenario 4: every IPFIX frame out of the congested port is whole: IP checksum and "
              "lengths, UDP and IPFIX lengths, sets (%d frames)" % frames, "\n".join(problems[:10]))
    events = model.events
    if mutation == "residence":
        events[0] = dict(events[0], residence=events[0]["residence"] + 1)
    problems, matched = compare_events(ipfix, events, subsequence=True)
    res.point(not problems and matched == len(ipfix),
              "scenario 4: every IPFIX record received is one of the model's events, exactly, at most "
              "once, in order per flow (%d of %d events)" % (matched, len(events)), "\n".join(problems[:10]))
    got = {k: counters[k] for k in ("events", "events_lost", "records_exported", "monitored", "unmatched",
                                    "table_full", "records_lost", "messages", "no_stamp", "not_ipv4")}
    want_c = {"events": len(ipfix), "events_lost": len(events) - len(ipfix), "records_exported": len(ipfix),
              "monitored": want["monitored"], "unmatched": 0, "table_full": 0, "records_lost": 0,
              "messages": len(messages), "no_stamp": len(messages), "not_ipv4": 1}
    if mutation == "events_lost":
        want_c["events_lost"] += 1
    res.point(got == want_c and counters["events"] + counters["events_lost"] == len(events),
              "scenario 4, counters: events + events_lost = the model's %d events, events = "
              "records_exported = the %d records received, messages = no_stamp = the %d IPFIX frames "
              "port 3's tap saw, monitored = the model's, not_ipv4 = 1 (port 3's first frame)" % (len(events), len(ipfix), len(messages)),
              "got  %s\nwant %s" % (got, want_c))
    res.point(counters["events_lost"] > 0 and len(dropped) > 0,
              "scenario 4: the congestion is real: %d events lost (counted), %d frames dropped by queue 3"
              % (counters["events_lost"], len(dropped)))
    sequence_ok = all(seq == sum(c for _, c, _ in messages[:i]) % 2**32 for i, (seq, _, _) in enumerate(messages))
    gaps = sum(1 for i in range(1, len(messages)) if messages[i][0] != messages[i - 1][0] + messages[i - 1][1])
    res.point(messages and messages[0][2] and sequence_ok and gaps == 0,
              "scenario 4: sequence numbers count the records before each message: no gap, no message "
              "lost on the way", str(messages[:5]))
    to3 = sum(1 for s in sent if s["egress"] == 3)
    out3 = sum(1 for s in sent if s["egress"] == 3) - sum(1 for s in dropped if s["egress"] == 3)
    res.point(dropped3 == len(dropped) and all(s["egress"] == 3 for s in dropped),
              "scenario 4: queue 3's drop counter = the truth's frames that never left (%d of %d; %d left)"
              % (len(dropped), to3, out3), "counter %d, truth %d" % (dropped3, len(dropped)))
    res.point(status_word >> 8 & 0x7f == 0 and status_word >> 16 & 0x1f == 0,
              "scenario 4: at the end, no event and no record waiting", "status 0x%x" % status_word)


# ------------------------------------------------------------------------------------------
# Run "rules": scenario 3

RULES_FLOWS = {  # name: (key, ingress port, spacing ns, offset ns); all to port 2
    "F0": ((0x0a000001, 0x0a000203, 17, 1000, 3000), 0, 9000, 0),
    "F1": ((0x0a000011, 0x0a000203, 17, 1001, 3001), 0, 9000, 3000),
    "F2": ((0x0a000021, 0x0a000203, 17, 1002, 3002), 0, 9000, 6000),
    "F3": ((0x0a000031, 0x0a000203, 17, 1003, 3003), 3, 6000, 0),
}
RULES_B = (0x0b000101, 0x0a000203, 17, 1111, 3333)  # 3 frames of 1514 bytes every 100 us, port 1
RULES_DURATION_NS = 1600000
# profile 4: every frame an ABSOLUTE event, so that the first frame under a new rule shows
RULES_PROFILES = {0: (True, 10000, 3000, 0), 1: (True, 14000, 5000, 0), 2: (False, 8000, 0, 0),
                  3: (False, 12000, 0, 0), 4: (False, -1000000, 0, 0)}
RULES_START = [
    exact_rule(RULES_FLOWS["F1"][0], egress=1 << 2, profile=4, valid=False),  # 0: takes F1 over
    exact_rule(RULES_FLOWS["F0"][0], egress=1 << 2, profile=0),               # 1: F0
    rule(0x0a000000, 16, egress=1 << 2, profile=1),                           # 2: F1, F2, F3 (and F0)
    exact_rule(RULES_B, egress=1 << 2, profile=3),                            # 3: B
]
# (time ns after the start, rule, what changes): most when the queue of port 2 has drained
# (80 us into B's period of 100 us: frames 375 clocks apart), two while it drains
RULES_CHANGES = [
    (180000, 1, {"profile": 4}, "F0's rule: stateful profile 0 -> stateless 4 (every frame)"),
    (330000, 0, {"valid": True}, "rule 0 valid: F1 from group 2 (profile 1) to group 0 (profile 4)"),
    (480000, 1, {"profile": 2}, "F0's rule: stateless profile 4 -> 2"),
    (580000, 1, {"profile": 0}, "F0's rule: back to stateful profile 0 (its breach carried over)"),
    (780000, 0, {"valid": False}, "rule 0 invalid: F1 back to group 2"),
    (930000, 2, {"egress": 0}, "rule 2's egress mask 0: F1, F2, F3 unmatched"),
    (1180000, 2, {"egress": 1 << 2}, "rule 2's egress mask back: F1, F2, F3 monitored again"),
    (1380000, 3, {"profile": 1}, "B's rule: stateless profile 3 -> stateful 1"),
]


def rules_inputs(work):
    sent, number = [], 0
    timed = {0: [], 1: [], 3: []}
    for name, (key, ingress, spacing, offset) in RULES_FLOWS.items():
        for t in range(offset, RULES_DURATION_NS, spacing):
            number += 1
            frame = FL.flow_frame(key[0], key[1], key[3], key[4], ingress, 2, number, 100, tag=b"FLR")
            sent.append({"key": key, "ingress": ingress, "egress": 2, "frame": frame, "name": name})
            timed[ingress].append((t, frame))
    for burst in range(RULES_DURATION_NS // 100000):
        for k in range(3):
            number += 1
            frame = FL.flow_frame(RULES_B[0], RULES_B[1], RULES_B[3], RULES_B[4], 1, 2, number, 1514, tag=b"FLR")
            sent.append({"key": RULES_B, "ingress": 1, "egress": 2, "frame": frame, "name": "B"})
            timed[1].append((burst * 100000 + 5000 + k * wire_ns(frame), frame))
    for i, frames in timed.items():
        F.write_timed_pcap(os.path.join(work, "in%d.pcap" % i), sorted(frames))
    return sent


def rules_timeline(windows):
    """The rules before the first change and after each."""
    rules = [dict(r) for r in RULES_START]
    timeline = [[dict(r) for r in rules]]
    for (_, index, change, _), _ in zip(RULES_CHANGES, windows):
        rules[index].update(change)
        timeline.append([dict(r) for r in rules])
    return timeline


def run_rules(simulator, seed, work, res, mutation=None):
    sent = rules_inputs(work)
    args = ["--seed", str(seed), "--duration", "10s", "--wire-truth", os.path.join(work, "wire.csv"),
            "--port", "7:out=%s" % os.path.join(work, "ipfix.pcap")]
    for i in (0, 1, 3):
        args += ["--port", "%d:in=%s" % (i, os.path.join(work, "in%d.pcap" % i))]
    sim = pktstats_sim.Simulator(simulator, work, args, name="rules", wait=True)
    started = time.monotonic()
    try:
        configure(sim, RULES_START, RULES_PROFILES, 7)
        rules = [dict(r) for r in RULES_START]
        # Every request at once: the simulator takes each write at its clock (counted from the
        # end of the write before), whatever the host's speed
        rng = random.Random(seed + 3)
        lines, previous = ["start"], 0
        for at_ns, index, change, _ in RULES_CHANGES:
            at_ns += rng.randrange(0, 4000)  # where between the frames the write lands
            rules[index].update(change)
            lines += ["until +%d" % ((at_ns - previous) // CLOCK_NS),
                      "write 0x%x 0x%x" % (R["FLOWLAT_RULE_CONTROL_%d" % index], rule_control(rules[index])),
                      "time"]
            previous = at_ns
        replies = pipeline(sim, ["time"] + lines)
        start = int(replies[0][1])
        windows = [(int(replies[n][1]), int(replies[n + 2][1])) for n in range(2, len(replies), 3)]
        T.wait_for_clock(sim, start + (RULES_DURATION_NS + 400000) // CLOCK_NS)
        counters = read_counters_pipelined(sim)
        keys = [f[0] for f in RULES_FLOWS.values()] + [RULES_B]
        lookups = lookup_many(sim, keys)
        status = sim.stop()
    except BaseException:
        sim.kill()
        raise
    res.comment("simulator: %.1f s wall; rule writes at clocks %s (windows of %s clocks)" % (
        time.monotonic() - started, [a - start for a, _ in windows], [b - a for a, b in windows]))
    res.point(status == 0, "the run ends, exit 0", sim.log()[-2000:])
    records, truth, dropped = read_records(work, sent)
    last_clock = max(r["clock"] for r in records)
    res.point(not dropped and all(b < last_clock for _, b in windows),
              "no frame dropped (%d frames), every rule written while the traffic runs" % len(sent),
              "%d dropped; windows %s, last frame at clock %d" % (len(dropped), windows, last_clock))
    timeline = rules_timeline(windows)
    if mutation == "rules":
        # the model takes the changes one frame of F0 and F1 late
        windows = [(a + 9001 // CLOCK_NS, b + 9001 // CLOCK_NS) for a, b in windows]
    # which records are surely before or after each change, which could be either
    sure, ambiguous = [], []
    for n, r in enumerate(records):
        after = 0
        for j, (c1, c2) in enumerate(windows):
            if r["clock"] + LATENCY_MAX < c1:
                continue
            if r["clock"] + LATENCY_MIN > c2:
                after = j + 1
                continue
            ambiguous.append((j, n))
        sure.append(after)
    by_change = collections.defaultdict(list)
    for j, n in ambiguous:
        by_change[j].append(n)
    choices = [[(j, k) for k in range(len(by_change[j]) + 1)] for j in sorted(by_change)]
    messages, ipfix = FL.ipfix_records(os.path.join(work, "ipfix.pcap"))
    names = ("monitored", "unmatched", "table_full", "evicted", "events", "events_lost", "records_lost",
             "records_exported")
    got_counters = {k: counters[k] for k in names}
    outcomes = []
    for combination in itertools.product(*choices):
        cut = dict(combination)
        model = TableModel(RULES_PROFILES, 1000000)
        late = {}
        for j, k in cut.items():
            for m, n in enumerate(by_change[j]):
                late[n] = j + 1 if m >= k else j   # the first k take the rules before change j
        for n, r in enumerate(records):
            model.record(r, timeline[late.get(n, sure[n])], n)
        problems, _ = compare_events(ipfix, model.events)
        want_counters = {k: model.counters.get(k, 0) for k in names}
        want_counters["records_exported"] = len(model.events)
        if got_counters != want_counters:
            problems.append("counters: got %s, want %s" % (got_counters, want_counters))
        problems += compare_lookups(lookups, model)
        outcomes.append((cut, problems, model))
    matching = [o for o in outcomes if not o[1]]
    model = (matching or outcomes)[0][2]
    res.comment("%d frames, %d monitored, %d unmatched; %d events (%s); %d frames ambiguous (their record "
                "could reach the table inside a write's window): %d cuts tried, %d match" % (
                    len(records), model.counters["monitored"], model.counters["unmatched"],
                    len(model.events), dict(collections.Counter(e["kind"] for e in model.events)),
                    len(ambiguous), len(outcomes), len(matching)))
    groups = collections.defaultdict(set)
    for e in model.events:
        groups[[n for n, f in RULES_FLOWS.items() if f[0] == e["key"]][0] if e["key"] != RULES_B else "B"].add(
            (e["group"], e["profile"]))
    res.comment("events by flow: (group, profile) seen: %s" % {k: sorted(v) for k, v in sorted(groups.items())})
    resolved = []
    for j in sorted(by_change):
        for m, n in enumerate(by_change[j]):
            took = set(("new" if m >= o[0][j] else "old") for o in matching)
            resolved.append("change %d: %s frame at TX clock window%+d took the %s rules" % (
                j + 1, records[n]["name"], records[n]["clock"] - windows[j][0], " or ".join(sorted(took))))
    if resolved:
        res.comment("the ambiguous frames: " + "; ".join(resolved))
    margins = []
    for c1, c2 in windows:
        before = max((r["clock"] for r in records if r["clock"] < c1), default=None)
        after = min((r["clock"] for r in records if r["clock"] > c2), default=None)
        margins.append("%s/+%s" % (before - c1 if before is not None else "-", after - c2 if after is not None else "-"))
    res.comment("the frames nearest each write's window (TX clock - window start / - window end): %s"
                % ", ".join(margins))
    res.point(matching, "scenario 3: rules rewritten under traffic (%d writes): every frame whose record "
              "reaches the table after a write takes the new rules, every one before it the old: the "
              "IPFIX records are the model's events, in order, none lost or doubled; counters (monitored, "
              "unmatched, events, records_exported) and each flow's lookup (group, breach, packets, "
              "residences) equal the model's" % len(windows),
              "\n".join(outcomes[0][1][:10]))
    need = {("F0", (1, 0)), ("F0", (1, 4)), ("F0", (1, 2)), ("F1", (2, 1)), ("F1", (0, 4)), ("B", (3, 3)),
            ("B", (3, 1))}
    seen = set((n, g) for n, gs in groups.items() for g in gs)
    res.point(need <= seen and model.counters["unmatched"] > 0,
              "scenario 3: events raised under the rules before and after the changes (F0 profiles 0, 4, 2, "
              "F1 groups 2 and 0, B profiles 3 and 1), frames unmatched while rule 2 watched no port",
              "missing %s" % (need - seen))
    sequence_ok = all(seq == sum(c for _, c, _ in messages[:i]) % 2**32 for i, (seq, _, _) in enumerate(messages))
    res.point(messages and messages[0][2] and sequence_ok,
              "scenario 3: IPFIX: %d messages, sequence numbers counting the records" % len(messages))


# ------------------------------------------------------------------------------------------


RUNS = {"table": run_table, "rules": run_rules, "export": run_export}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--only", default="table,rules,export")
    parser.add_argument("--mutation", help="break one expectation on purpose (the test must fail)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap = Tap()
    tap.comment("seed %d (replay: %s %s --seed %d)" % (seed, sys.argv[0], options.simulator, seed))
    work = tempfile.mkdtemp(prefix="pktstats-flowlat-scale-")
    simulator = os.path.abspath(options.simulator)
    results, threads = [], []
    started = time.monotonic()
    for name in options.only.split(","):
        res = Results(name)
        results.append(res)
        directory = os.path.join(work, name)
        os.mkdir(directory)

        def body(function=RUNS[name], res=res, directory=directory):
            t0 = time.monotonic()
            try:
                function(simulator, seed, directory, res, options.mutation)
            except Exception:
                res.point(False, "the run", traceback.format_exc())
            res.comment("%.1f s" % (time.monotonic() - t0))
        thread = threading.Thread(target=body)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    for res in results:
        for text in res.comments:
            tap.comment(text)
        for ok, text, detail in res.points:
            tap.point(ok, text, detail)
    tap.comment("%.1f s in all" % (time.monotonic() - started))
    if options.keep:
        tap.comment("work directory: " + work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
