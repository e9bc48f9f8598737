#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The flow-latency monitor in the simulated switch, end to end (issue 15; docs/flowlat.md):
congestion pushes two flows' residence times through their thresholds and back, the switch
sends its events as IPFIX out of port 3, and everything is checked against the simulator's
wire truth.

    tb/sim/test_sim_flowlat.py build/bin/pktstats-sim [--seed S]

Port 0 sends flow A (UDP 10.0.0.1:1000 -> 10.0.0.3:3000, 100-byte frames every 2 us), port 1
bursts of 1514-byte frames of flow B (UDP 10.0.1.1:1111 -> 10.0.1.3:3333) at line rate, 40 us
on and 60 us off, both to port 2, whose queue grows during each burst and drains after it.
Rule 0 watches flow A with a stateful profile (high 12 us, low 3 us), rule 1 flow B with a
stateless one (above 15 us, at least 55 us apart); a third rule that no frame matches sits
between them. The exporter sends to port 3 (MTU 576, flush 20 us). Checked:

  - a reference model of both profiles, fed with each frame's true residence time (its TX
    reading at port 2 minus its RX reading at port 0 or 1, in the wire truth), gives exactly
    the events the IPFIX records carry, in order: kind, residence, the TX time as
    observationTimeNanoseconds, the 5-tuple, ingress and egress ports, group, profile, high
    and low; and none is missing (the run ends with the queue drained and the last message
    flushed);
  - the IPFIX messages: sequence numbers that count the records, the template in the first;
  - the block's counters (monitored = the frames of both flows; events; nothing lost) and
    its lookup of each flow by 5-tuple (packets, last and largest residence, breach state)
    equal the truth.
"""

import argparse
import os
import shutil
import struct
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import isl_frames as K  # noqa: E402  (checksums)
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
import test_sim_oam as T  # noqa: E402
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()


def shift(mask_name):
    """A field's shift from its mask (the header's shift macros are decimal)."""
    mask = R[mask_name]
    return (mask & -mask).bit_length() - 1


# lookup_status: done, found, breach (an ro register: no field macros)
LOOKUP_DONE, LOOKUP_FOUND, LOOKUP_BREACH = 1, 2, 4
IPFIX_PORT = 4739
PEN = 32473
FLOWS = {  # name: (src ip, dst ip, sport, dport, ingress port)
    "A": (0x0a000001, 0x0a000003, 1000, 3000, 0),
    "B": (0x0a000101, 0x0a000103, 1111, 3333, 1),
}
# profile: (stateful, high ns, low ns, min interval us)
# (the 55 us keep the model's true-time interval and the block's microsecond clock apart from
# the boundary: flow B's frames are 12.3 us apart, 4 of them 49.2 us, 5 of them 61.5 us)
PROFILES = {0: (True, 12000, 3000, 0), 1: (False, 15000, 0, 55)}
RULES = [  # (flow, profile); rule 1 matches nothing (another port)
    ("A", 0), (None, 2), ("B", 1)]
BURSTS = 10
A_SPACING_NS = 2000
BURST_ON_NS, BURST_PERIOD_NS = 40000, 100000
NTP_OFFSET = 2208988800
# the exporter's headers (a collector on a TAP port takes the destination's MAC and address)
IPFIX_SOURCE_MAC, IPFIX_DESTINATION_MAC = 0x0200000000f1, 0x020000000099
IPFIX_SOURCE_IP, IPFIX_DESTINATION_IP = 0xc0a80001, 0xc0a80002


def flow_frame(src, dst, sport, dport, ingress, egress, number, size, tag=b""):
    """An Ethernet/IPv4/UDP frame of size bytes (without FCS) to MAC port egress's address
    (02:00:00:00:00:<egress+1>, Connection.add_port_entries) from 02:00:00:00:aa:<ingress>;
    the payload starts with tag and the number (4 bytes), which also gives the IP
    identification: frames with distinct (tag, number) are distinct on the wire."""
    payload = tag + struct.pack(">I", number)
    payload += bytes(size - 42 - len(payload))
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBHII", 0x45, 0, 20 + len(udp), number & 0xffff, 0, 64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack(">H", K.ip_checksum(ip)) + ip[12:]
    return bytes.fromhex("0200000000%02x" % (egress + 1)) + bytes.fromhex("02000000aa%02x" % ingress) \
        + b"\x08\x00" + ip + udp


def udp_frame(flow, number, size):
    """An Ethernet/IPv4/UDP frame of the flow to port 2's address, its number in the payload."""
    src, dst, sport, dport, ingress = FLOWS[flow]
    return flow_frame(src, dst, sport, dport, ingress, 2, number, size)


def lookup_flow(conn, src, dst, sport, dport, protocol=17, tries=100):
    """The block's lookup of a flow by 5-tuple: {found, breach, group, packets, last, max}."""
    conn.write(R["FLOWLAT_LOOKUP_SRC_IP"], src)
    conn.write(R["FLOWLAT_LOOKUP_DST_IP"], dst)
    conn.write(R["FLOWLAT_LOOKUP_PORTS"], sport | dport << 16)
    conn.write(R["FLOWLAT_LOOKUP_PROTOCOL"], protocol)
    conn.write(R["FLOWLAT_COMMAND"], R["FLOWLAT_COMMAND_LOOKUP_MASK"])
    status = 0
    for _ in range(tries):
        status = conn.read(R["FLOWLAT_LOOKUP_STATUS"])
        if status & LOOKUP_DONE:
            break
    return {"found": bool(status & LOOKUP_FOUND), "breach": bool(status & LOOKUP_BREACH),
            "group": status >> 4 & 15,
            "packets": conn.read(R["FLOWLAT_LOOKUP_PACKETS"]),
            "last": signed32(conn.read(R["FLOWLAT_LOOKUP_LAST_RESIDENCE"])),
            "max": signed32(conn.read(R["FLOWLAT_LOOKUP_MAX_RESIDENCE"]))}


COUNTERS = ("monitored", "unmatched", "table_full", "evicted", "evicted_in_breach", "events",
            "events_lost", "records_lost", "not_ipv4", "no_stamp", "messages", "templates",
            "records_exported")


def read_counters(conn, names=COUNTERS):
    """The block's 64-bit counters by name."""
    return {n: conn.read64(R["FLOWLAT_%s_LO" % n.upper()]) for n in names}


def inputs(work):
    a, b = [], []
    end = BURSTS * BURST_PERIOD_NS
    for i in range(end // A_SPACING_NS):
        a.append((i * A_SPACING_NS, udp_frame("A", i, 100)))
    n = 0
    for burst in range(BURSTS):
        t = burst * BURST_PERIOD_NS + 5000
        while t < burst * BURST_PERIOD_NS + 5000 + BURST_ON_NS:
            b.append((t, udp_frame("B", n, 1514)))
            n += 1
            t += (1514 + 24) * 8   # back to back at 1 Gb/s: frame, FCS, preamble, gap
    F.write_timed_pcap(os.path.join(work, "a.pcap"), a)
    F.write_timed_pcap(os.path.join(work, "b.pcap"), b)
    return {"A": [f for _, f in a], "B": [f for _, f in b]}


def configure(conn):
    conn.add_port_entries(range(4))
    for r, (flow, profile) in enumerate(RULES):
        base = "FLOWLAT_RULE_%s_%d"
        if flow is None:
            src, dst, sport, dport, egress = 0, 0, 0, 0, 1 << 1
        else:
            src, dst, sport, dport, _ = FLOWS[flow]
            egress = 1 << 2
        conn.write(R[base % ("SRC_IP", r)], src)
        conn.write(R[base % ("DST_IP", r)], dst)
        conn.write(R[base % ("PORTS", r)], sport | dport << 16)
        control = ((32 << shift("FLOWLAT_RULE_CONTROL_0_SRC_LENGTH_MASK"))
                   | (32 << shift("FLOWLAT_RULE_CONTROL_0_DST_LENGTH_MASK"))
                   | (17 << shift("FLOWLAT_RULE_CONTROL_0_PROTOCOL_MASK"))
                   | (egress << shift("FLOWLAT_RULE_CONTROL_0_EGRESS_PORTS_MASK"))
                   | (profile << shift("FLOWLAT_RULE_CONTROL_0_PROFILE_MASK"))
                   | R["FLOWLAT_RULE_CONTROL_0_VALID_MASK"])
        conn.write(R[base % ("CONTROL", r)], control)
    for p, (stateful, high, low, interval) in PROFILES.items():
        conn.write(R["FLOWLAT_PROFILE_HIGH_%d" % p], high)
        conn.write(R["FLOWLAT_PROFILE_LOW_%d" % p], low)
        conn.write(R["FLOWLAT_PROFILE_MIN_INTERVAL_US_%d" % p], interval)
        conn.write(R["FLOWLAT_PROFILE_CONTROL_%d" % p], 1 if stateful else 0)
    conn.write(R["FLOWLAT_IPFIX_DESTINATION_MAC_LO"], IPFIX_DESTINATION_MAC & 0xffffffff)
    conn.write(R["FLOWLAT_IPFIX_DESTINATION_MAC_HI"], IPFIX_DESTINATION_MAC >> 32)
    conn.write(R["FLOWLAT_IPFIX_SOURCE_MAC_LO"], IPFIX_SOURCE_MAC & 0xffffffff)
    conn.write(R["FLOWLAT_IPFIX_SOURCE_MAC_HI"], IPFIX_SOURCE_MAC >> 32)
    conn.write(R["FLOWLAT_IPFIX_SOURCE_IP"], IPFIX_SOURCE_IP)
    conn.write(R["FLOWLAT_IPFIX_DESTINATION_IP"], IPFIX_DESTINATION_IP)
    conn.write(R["FLOWLAT_MTU"], 576)
    conn.write(R["FLOWLAT_FLUSH_TIMEOUT_US"], 20)
    conn.write(R["FLOWLAT_CONTROL"], R["FLOWLAT_CONTROL_MONITOR_ENABLE_MASK"]
               | R["FLOWLAT_CONTROL_EXPORT_ENABLE_MASK"]
               | (1 << 3) << shift("FLOWLAT_CONTROL_EXPORT_PORTS_MASK"))


def signed32(value):
    return value - (1 << 32) if value & (1 << 31) else value


def ipfix_records(pcap):
    """(messages [(sequence, records, has template)], records [dict]) of the IPFIX frames."""
    messages, records = [], []
    for _, frame in F.read_pcap(pcap):
        if frame[12:14] != b"\x08\x00" or frame[23] != 17 or struct.unpack_from(">H", frame, 36)[0] != IPFIX_PORT:
            continue
        version, length, export, sequence, domain = struct.unpack_from(">HHIII", frame, 42)
        at, end = 58, 42 + length
        count, template = 0, False
        while at < end:
            set_id, set_length = struct.unpack_from(">HH", frame, at)
            if set_id == 2:
                template = True
            elif set_id == 256:
                for r in range(at + 4, at + set_length, 48):
                    (seconds, fraction, src, dst, proto, sport, dport, ingress, egress, residence,
                     kind, group, profile, high, low, occupancy) = struct.unpack_from(
                         ">IIIIBHHIIIBBBIII", frame, r)
                    records.append({"seconds": seconds, "fraction": fraction, "src": src, "dst": dst,
                                    "protocol": proto, "sport": sport, "dport": dport,
                                    "ingress": ingress, "egress": egress,
                                    "residence": signed32(residence), "kind": kind, "group": group,
                                    "profile": profile, "high": signed32(high), "low": signed32(low),
                                    "occupancy": occupancy})
                    count += 1
            at += set_length
        messages.append((sequence, count, template))
    return messages, records


def expected_events(truth, sent):
    """The events the model of the profiles gives from the truth: per flow in TX order."""
    events, state = [], {}
    per_flow = {}
    for flow, frames in sent.items():
        ingress = FLOWS[flow][4]
        rows = []
        for frame in frames:
            h = T.fnv1a64(F.pad(frame))
            rx = truth.get((0, ingress, "rx", h), [])
            tx = truth.get((0, 2, "tx", h), [])
            if len(rx) != 1 or len(tx) != 1:
                raise RuntimeError("flow %s: frame without one RX and one TX line" % flow)
            residence = T.signed_diff(pktstats_sim.wire_reading(tx[0]), pktstats_sim.wire_reading(rx[0]))
            rows.append((tx[0]["true_time_ps"], residence, pktstats_sim.wire_reading(tx[0]), flow))
        per_flow[flow] = rows
    group_of = {flow: r for r, (flow, _) in enumerate(RULES) if flow}
    for flow, rows in per_flow.items():
        profile = [p for f, p in RULES if f == flow][0]
        stateful, high, low, interval = PROFILES[profile]
        breach, last_event_ps = False, None
        for true_ps, residence, tx_ns, _ in rows:
            kind = None
            if stateful:
                if not breach and residence > high:
                    kind, breach = 2, True
                elif breach and residence < low:
                    kind, breach = 3, False
            elif residence > high and (last_event_ps is None
                                       or true_ps - last_event_ps >= interval * 10**6):
                kind, last_event_ps = 1, true_ps
            if kind:
                events.append({"flow": flow, "kind": kind, "residence": residence, "tx_ns": tx_ns,
                               "group": group_of[flow], "profile": profile, "true_ps": true_ps})
        state[flow] = {"packets": len(rows), "last": rows[-1][1], "max": max(r[1] for r in rows),
                       "breach": breach}
    return events, state, per_flow


def simulate(simulator, seed, work, port3=None, more_args=()):
    """Runs the scenario (wire truth in WORK/wire.csv; port 3: `port3`, by default out= to
    WORK/ipfix.pcap): (frames sent per flow, exit status, counters, lookups, simulator log)."""
    sent = inputs(work)
    # --duration: the run outlasts the inputs, so that the registers can be read at the end
    args = ["--seed", str(seed), "--duration", "3ms", "--wire-truth", os.path.join(work, "wire.csv"),
            "--port", "0:in=%s" % os.path.join(work, "a.pcap"),
            "--port", "1:in=%s" % os.path.join(work, "b.pcap"),
            "--port", port3 or "3:out=%s" % os.path.join(work, "ipfix.pcap")] + list(more_args)
    sim = pktstats_sim.Simulator(simulator, work, args, name="s0", wait=True)
    try:
        configure(sim)
        sim.request("start")
        start = sim.cycle()  # at or after the traffic's start: the wait below is long enough
        T.wait_for_clock(sim, start + (BURSTS * BURST_PERIOD_NS + 400000) // 8)
        counters = read_counters(sim, ("monitored", "unmatched", "table_full", "events", "events_lost",
                                       "records_lost", "messages", "records_exported"))
        lookups = {}
        for flow, (src, dst, sport, dport, _) in FLOWS.items():
            lookups[flow] = lookup_flow(sim, src, dst, sport, dport)
            del lookups[flow]["group"]
        status = sim.stop()
    except BaseException:
        sim.kill()
        raise
    return sent, status, counters, lookups, sim.log()


def run(tap, simulator, seed, work):
    sent, status, counters, lookups, log = simulate(simulator, seed, work)
    tap.point(status == 0, "the run ends, exit 0", log[-2000:])

    truth = T.read_truth(os.path.join(work, "wire.csv"))
    events, state, per_flow = expected_events(truth, sent)
    messages, records = ipfix_records(os.path.join(work, "ipfix.pcap"))
    highs = sum(1 for e in events if e["kind"] == 2)
    tap.comment("%d frames of A, %d of B; the model: %d events (%d high, %d low, %d absolute); "
                "%d IPFIX messages, %d records" % (
                    len(sent["A"]), len(sent["B"]), len(events), highs,
                    sum(1 for e in events if e["kind"] == 3), sum(1 for e in events if e["kind"] == 1),
                    len(messages), len(records)))

    problems = []
    for flow in FLOWS:
        src, dst, sport, dport, ingress = FLOWS[flow]
        want = [e for e in events if e["flow"] == flow]
        got = [r for r in records if (r["src"], r["dst"]) == (src, dst)]
        if len(got) != len(want):
            problems.append("flow %s: %d records, the model %d events" % (flow, len(got), len(want)))
        for i, (r, e) in enumerate(zip(got, want)):
            stateful, high, low, _ = PROFILES[e["profile"]]
            seconds, ns = divmod(e["tx_ns"], 10**9)
            fraction = (ns * 2**32 + 5 * 10**8) // 10**9
            expect = {"seconds": (seconds + NTP_OFFSET) % 2**32, "src": src, "dst": dst, "protocol": 17,
                      "sport": sport, "dport": dport, "ingress": ingress, "egress": 2,
                      "residence": e["residence"], "kind": e["kind"], "group": e["group"],
                      "profile": e["profile"], "high": high, "low": low}
            diff = {k: (r[k], v) for k, v in expect.items() if r[k] != v}
            if r["fraction"] != fraction:  # the nearest (docs/flowlat.md)
                diff["fraction"] = (r["fraction"], fraction)
            if diff:
                problems.append("flow %s event %d: %s" % (flow, i, diff))
    tap.point(not problems and len(events) >= 2 * BURSTS and highs >= BURSTS,
              "every IPFIX record is the event the model of the profiles computes from the true "
              "residence times, in order, none missing: kind, residence, TX time (IE 325), 5-tuple, "
              "ports, group, profile, thresholds (%d events)" % len(events), "\n".join(problems[:10]))

    sequence_ok = all(seq == sum(c for _, c, _ in messages[:i]) % 2**32
                      for i, (seq, _, _) in enumerate(messages))
    tap.point(messages and messages[0][2] and sequence_ok,
              "IPFIX messages: the template first, sequence numbers counting the records before",
              str(messages[:5]))

    frames = len(sent["A"]) + len(sent["B"])
    want_counters = {"monitored": frames, "unmatched": 0, "table_full": 0, "events": len(events),
                     "events_lost": 0, "records_lost": 0, "records_exported": len(events)}
    got_counters = {k: counters[k] for k in want_counters}
    tap.point(got_counters == want_counters and counters["messages"] == len(messages),
              "counters: monitored = the frames of both flows, events and records exported = the "
              "model's, nothing lost; messages = those captured",
              "got %s\nwant %s (messages %d)" % (counters, want_counters, len(messages)))

    want_lookup = {flow: {"found": True, "breach": s["breach"], "packets": s["packets"],
                          "last": s["last"], "max": s["max"]} for flow, s in state.items()}
    tap.point(lookups == want_lookup, "each flow's state read back by 5-tuple: packets, last and "
              "largest residence, breach, as the truth says", "got %s\nwant %s" % (lookups, want_lookup))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("--seed", type=int)
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap = Tap()
    tap.comment("seed %d (replay: %s %s --seed %d)" % (seed, sys.argv[0], options.simulator, seed))
    work = tempfile.mkdtemp(prefix="pktstats-flowlat-")
    try:
        run(tap, os.path.abspath(options.simulator), seed, work)
    except Exception:
        import traceback
        tap.point(False, "the run", traceback.format_exc())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
