#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The link-delay engines (docs/oam.md) on the simulated network, against the simulator's wire
truth (issue 13, item 5).

    tb/sim/test_sim_oam.py build/bin/pktstats-sim build/asan/bin/pktstats [--seed S]

Run 1, "network": the two switches of tb/sim/two_switches.py (switch 0 at +50 ppm; switch 1 at
-50 ppm and 1.5 s ahead; port 0.1 cabled to 1.2 over 100 m, 0.2 to 1.1 over 2 km), with
generators at 60 % of line rate on ports 0 and 3 of each switch sending over both cables, so
every queue on the way is busy. Each switch sends, from a CPU port bound to a cabled MAC port,
DMMs and 1DMs over the 100 m cable to the far switch's MEP (whose responder answers) and
headroom requests over the 2 km cable (whose responder answers). Checked for every DMR, 1DM and
headroom response that comes back up to a CPU port, with the legs of each frame found in the
wire truth by their bytes:

  - every stamp written into a frame equals the truth's reading of its leg (the switch's time
    of day in the clock of the frame's first bit on that wire; for the headroom PDU plus the
    frame's 72 byte times to its last bit), plus the port's correction: 8 ns (one clock) on TX
    legs, 4 ns (half a clock) on RX legs;
  - the two-way delay (RxTimeb - TxTimeStampf) - (TxTimeStampb - RxTimeStampf) and the headroom
    round trip t4 - t1 - (t3 - t2) equal their true values (true times of the four first bits,
    each interval as the clock that measured it counts it: 1 + ppm) within 8 ns, and so the
    true cable delays (1 us and 20 us round trip) within the clocks' frequency errors;
  - the one-way delays of DMMs and 1DMs equal the true cable delay plus the offset between the
    two clocks at that instant, within 8 ns;
  - the totals: every DMM answered and every answer back, every 1DM passed up, against the
    engines' counters of both switches and what the test sent.

Run 2, "responder": one switch, frames into MAC port 0 from a pcap: DMMs at MEL 5 (answered),
version 1, tagged, to another MAC or another MEL or with an unknown opcode (switched as usual),
of version 2 (malformed: passed up unchanged), 1DM and DMR (passed up with the RX stamp),
headroom requests and responses, headroom frames of another subtype, version or type, and on a
port whose engine is off (passed up unchanged, counted). Every frame is found where docs/oam.md
says, byte for byte, and every counter equals the test's count.

Run 3, "line rate": DMMs of 60 bytes back to back from switch 0's CPU port over the 100 m cable
at line rate, mixed with ordinary frames to an uncabled port of switch 1: every DMM answered,
every DMR back with its four stamps, every ordinary frame delivered unchanged.

Run 4, "synchronised": the network of run 1 without load, at 0 ppm, switch 1 1.5 s ahead and
synchronised with `pktstats time step -1.5s` before the traffic: the one-way delays are then
the cable's 500 ns within 8 ns.
"""

import argparse
import collections
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
import two_switches  # noqa: E402
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()
LEVEL = 5
# MEP MACs: switch k, port p
MEP = {(k, p): 0x02000000ee00 | (k << 4) | p for k in (0, 1) for p in range(4)}
# The DM legs cross the 100 m cable (0.1 - 1.2), the headroom legs the 2 km one (0.2 - 1.1)
DM_PORT = {0: 1, 1: 2}
HEADROOM_PORT = {0: 2, 1: 1}
CABLE_PS = {"dm": 500000, "headroom": 10000000}
LAST_BIT_NS = (8 + 60 + 4) * 8
# The corrections that make the stamps the simulated wire times (docs/oam.md, "Accuracy"): a TX
# first bit leaves at the edge that ends its handshake clock, whose time of day is that of the
# edge before: one clock of constant latency, which tx_correction removes (TX stamps exact). An
# RX stamp floors the first bit to its clock (0..8 ns behind): rx_correction adds half a clock,
# so each is within 4 ns, and a delay made of two RX stamps and two TX stamps within 8 ns.
TX_CORRECTION_NS = 8
RX_CORRECTION_NS = 4
SECOND_MOD = 2**32 * 10**9


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h


def control(dm=False, dm_responder=False, headroom=False, headroom_responder=False,
            cpu_bound=False, level=LEVEL):
    return ((R["OAM_CONTROL_0_DM_ENABLE_MASK"] if dm else 0)
            | (R["OAM_CONTROL_0_DM_RESPONDER_MASK"] if dm_responder else 0)
            | (level * (R["OAM_CONTROL_0_DM_LEVEL_MASK"] & -R["OAM_CONTROL_0_DM_LEVEL_MASK"]))
            | (R["OAM_CONTROL_0_HEADROOM_ENABLE_MASK"] if headroom else 0)
            | (R["OAM_CONTROL_0_HEADROOM_RESPONDER_MASK"] if headroom_responder else 0)
            | (R["OAM_CONTROL_0_CPU_BOUND_MASK"] if cpu_bound else 0))


def configure_port(conn, port, value, mac):
    conn.write(R["OAM_CONTROL_%d" % port], value)
    conn.write(R["OAM_PORT_MAC_%d_LO" % port], mac & 0xffffffff)
    conn.write(R["OAM_PORT_MAC_%d_HI" % port], mac >> 32)


def counters(conn, port):
    names = ("dm_stamped", "dm_answered", "dm_replies_sent", "dm_passed_up", "dm_malformed",
             "headroom_stamped", "headroom_answered", "headroom_replies_sent",
             "headroom_passed_up", "headroom_malformed")
    return {n: conn.read64(R["OAM_%s_%d_LO" % (n.upper(), port)]) for n in names}


def read_truth(path):
    """The wire truth's lines by (switch, port, direction, frame hash) -> [rows]."""
    legs = collections.defaultdict(list)
    for row in pktstats_sim.read_wire_truth(path):
        legs[(row["switch"], row["port"], row["direction"], row["frame_hash"])].append(row)
    return legs


def stamp_ns(stamp):
    return stamp[0] * 10**9 + stamp[1]


reading = pktstats_sim.wire_reading


def reading_stamp(row, add_ns=0):
    """The same as a stamp: (seconds, nanoseconds)."""
    return divmod(reading(row, add_ns), 10**9)


def signed_diff(a, b):
    """a - b of two stamps (ns modulo 2^32 s), signed."""
    d = (a - b) % SECOND_MOD
    return d - SECOND_MOD if d >= SECOND_MOD // 2 else d


class Legs:
    """Finds a frame's leg in the truth; collects what does not match."""

    def __init__(self, truth):
        self.truth = truth
        self.problems = []
        self.checked = 0

    def find(self, k, p, direction, wire, what):
        rows = self.truth.get((k, p, direction, fnv1a64(F.pad(wire))), [])
        if len(rows) != 1:
            self.problems.append("%s: %d truth lines on switch %d port %d %s" % (what, len(rows), k, p, direction))
            return None
        return rows[0]

    def expect(self, got, row, add_ns, what):
        self.checked += 1
        if row is not None and stamp_ns(got) != reading(row, add_ns):
            self.problems.append("%s: %d ns, truth %d ns" % (what, stamp_ns(got), reading(row, add_ns)))


# The clocks of the switches (bench/bench_oam.py runs others)
PPM = dict(two_switches.PPM)
OFFSET_NS = dict(two_switches.OFFSET_NS)


def clock_interval(later_ps, earlier_ps, k):
    """A true interval as switch k's clock counts it, ns."""
    return (later_ps - earlier_ps) * (1 + PPM[k] * 1e-6) / 1000.0


def tod(k, ps):
    """Switch k's time of day at true time ps, ns (no flooring)."""
    return OFFSET_NS[k] + ps * (1 + PPM[k] * 1e-6) / 1000.0


def network_inputs(work, count):
    """The CPU inputs of run 1: per switch, DMMs (each with its number in a Data TLV) and 1DMs
    on the CPU port bound to its DM port, headroom requests on the one bound to its headroom
    port, one frame every 20 us."""
    files, sent = {}, {}
    for k in (0, 1):
        far = 1 - k
        dm_frames, headroom_frames = [], []
        for i in range(count):
            peer = F.mac_bytes(MEP[(far, DM_PORT[far])])
            me = F.mac_bytes(MEP[(k, DM_PORT[k])])
            vlan = 100 + i if i % 4 == 3 else None
            dm_frames.append(F.dm(peer, me, F.OPCODE_DMM, level=LEVEL, vlan=vlan,
                                  data=struct.pack(">BI", k, i)))
            dm_frames.append(F.dm(peer, me, F.OPCODE_1DM, level=LEVEL, data=struct.pack(">BI", k, i)))
            headroom_frames.append(F.headroom(F.mac_bytes(MEP[(k, HEADROOM_PORT[k])]), F.HEADROOM_REQUEST))
        for name, frames, port in (("dm", dm_frames, DM_PORT[k]), ("headroom", headroom_frames, HEADROOM_PORT[k])):
            path = os.path.join(work, "in%d-%s.pcap" % (k, name))
            F.write_pcap(path, frames, spacing_ns=20000 if name == "headroom" else 10000)
            files[(k, name)] = (path, 4 + port)
        sent[k] = {"dmm": count, "1dm": count, "headroom": count}
    return files, sent


def check_dmr(legs, k, frame, result):
    """A DMR that came up to switch k's CPU port: its DMM went k -> far, it came back."""
    far = 1 - k
    tagged = frame[12:14] == b"\x81\x00"
    o = 4 if tagged else 0
    tx_f, rx_f, tx_b, rx_b = (F.stamp_at(frame, F.DM_FIELDS[n] + o) for n in ("tx_f", "rx_f", "tx_b", "rx_b"))
    dmm = frame[6:12] + frame[0:6] + frame[12:15 + o] + bytes([F.OPCODE_DMM]) + frame[16 + o:]
    for n in ("rx_f", "tx_b", "rx_b"):
        dmm = F.with_stamp(dmm, F.DM_FIELDS[n] + o, (0, 0))
    dmr = F.with_stamp(frame, F.DM_FIELDS["rx_b"] + o, (0, 0))
    what = "switch %d DMR %s" % (k, frame[-8:].hex())
    dmm_out = legs.find(k, DM_PORT[k], "tx", dmm, what + " (DMM leaving)")
    dmm_in = legs.find(far, DM_PORT[far], "rx", dmm, what + " (DMM arriving)")
    dmr_out = legs.find(far, DM_PORT[far], "tx", dmr, what + " (DMR leaving)")
    dmr_in = legs.find(k, DM_PORT[k], "rx", dmr, what + " (DMR arriving)")
    legs.expect(tx_f, dmm_out, TX_CORRECTION_NS, what + " TxTimeStampf")
    legs.expect(rx_f, dmm_in, RX_CORRECTION_NS, what + " RxTimeStampf")
    legs.expect(tx_b, dmr_out, TX_CORRECTION_NS, what + " TxTimeStampb")
    legs.expect(rx_b, dmr_in, RX_CORRECTION_NS, what + " RxTimeb")
    if None in (dmm_out, dmm_in, dmr_out, dmr_in):
        return
    two_way = signed_diff(stamp_ns(rx_b), stamp_ns(tx_f)) - signed_diff(stamp_ns(tx_b), stamp_ns(rx_f))
    true_two_way = (clock_interval(dmr_in["true_time_ps"], dmm_out["true_time_ps"], k)
                    - clock_interval(dmr_out["true_time_ps"], dmm_in["true_time_ps"], far))
    forward = signed_diff(stamp_ns(rx_f), stamp_ns(tx_f))
    true_forward = tod(far, dmm_in["true_time_ps"]) - tod(k, dmm_out["true_time_ps"])
    result["two_way_error"].append(two_way - true_two_way)
    result["two_way_vs_cable"].append(two_way - 2 * CABLE_PS["dm"] / 1000.0)
    result["one_way_error"].append(forward - true_forward)


def check_1dm(legs, k, frame, result):
    """A 1DM that came up to switch k's CPU port from the far switch."""
    far = 1 - k
    tx_f, rx_f = F.stamp_at(frame, 18), F.stamp_at(frame, 26)
    sent = F.with_stamp(frame, 26, (0, 0))
    what = "switch %d 1DM %s" % (k, frame[34:41].hex())
    out = legs.find(far, DM_PORT[far], "tx", sent, what + " (leaving)")
    arrived = legs.find(k, DM_PORT[k], "rx", sent, what + " (arriving)")
    legs.expect(tx_f, out, TX_CORRECTION_NS, what + " TxTimeStampf")
    legs.expect(rx_f, arrived, RX_CORRECTION_NS, what + " RxTimef")
    if out is not None and arrived is not None:
        delay = signed_diff(stamp_ns(rx_f), stamp_ns(tx_f))
        result["one_way_error"].append(delay - (tod(k, arrived["true_time_ps"]) - tod(far, out["true_time_ps"])))


def check_headroom(legs, k, frame, result):
    """A headroom response that came up to switch k's CPU port."""
    far = 1 - k
    t = {n: F.stamp_at(frame, o) for n, o in F.HEADROOM_FIELDS.items()}
    request = F.headroom(F.mac_bytes(MEP[(k, HEADROOM_PORT[k])]), F.HEADROOM_REQUEST, {"t1": t["t1"]})
    response = F.with_stamp(frame, 40, (0, 0))
    what = "switch %d headroom response t1 %d.%09d" % ((k,) + t["t1"])
    req_out = legs.find(k, HEADROOM_PORT[k], "tx", request, what + " (request leaving)")
    req_in = legs.find(far, HEADROOM_PORT[far], "rx", request, what + " (request arriving)")
    resp_out = legs.find(far, HEADROOM_PORT[far], "tx", response, what + " (response leaving)")
    resp_in = legs.find(k, HEADROOM_PORT[k], "rx", response, what + " (response arriving)")
    legs.expect(t["t1"], req_out, TX_CORRECTION_NS + LAST_BIT_NS, what + " t1")
    legs.expect(t["t2"], req_in, RX_CORRECTION_NS + LAST_BIT_NS, what + " t2")
    legs.expect(t["t3"], resp_out, TX_CORRECTION_NS + LAST_BIT_NS, what + " t3")
    legs.expect(t["t4"], resp_in, RX_CORRECTION_NS + LAST_BIT_NS, what + " t4")
    if frame[6:12] != F.mac_bytes(MEP[(far, HEADROOM_PORT[far])]) or frame[15] != 0x12:
        legs.problems.append(what + ": source %s, byte 15 0x%02x" % (frame[6:12].hex(), frame[15]))
    if None in (req_out, req_in, resp_out, resp_in):
        return
    round_trip = (signed_diff(stamp_ns(t["t4"]), stamp_ns(t["t1"]))
                  - signed_diff(stamp_ns(t["t3"]), stamp_ns(t["t2"])))
    true_round_trip = (clock_interval(resp_in["true_time_ps"], req_out["true_time_ps"], k)
                       - clock_interval(resp_out["true_time_ps"], req_in["true_time_ps"], far))
    result["round_trip_error"].append(round_trip - true_round_trip)
    result["round_trip_vs_cable"].append(round_trip - 2 * CABLE_PS["headroom"] / 1000.0)


def run_network(tap, simulator, seed, count):
    work = tempfile.mkdtemp(prefix="pktstats-oam-")
    try:
        files, sent = network_inputs(work, count)
        args = two_switches.arguments(work, seed, 5)
        for k in (0, 1):
            for p, spec in ((0, "gen=0.6,size=60-1514,to=%d" % (1 if k == 0 else 4)),
                            (3, "gen=0.6,size=imix,to=%d" % (2 if k == 0 else 5))):
                args += ["--port", "%d.%d:%s" % (k, p, spec)]
            for name in ("dm", "headroom"):
                path, cpu = files[(k, name)]
                args += ["--port", "%d.%d:in=%s" % (k, cpu, path),
                         "--port", "%d.%d:out=%s" % (k, cpu, os.path.join(work, "up%d-%d.pcap" % (k, cpu)))]
        sim = pktstats_sim.Simulator(simulator, work, args, name="s0", wait=True)
        try:
            with pktstats_sim.Connection(os.path.join(work, "s1.sock")) as s1:
                conns = {0: sim, 1: s1}
                for k in (0, 1):
                    two_switches.write_tables(conns[k], R, k)
                    for p in (DM_PORT[k], HEADROOM_PORT[k]):
                        conns[k].write(R["STAMP_TX_CORRECTION_%d" % p], TX_CORRECTION_NS)
                        conns[k].write(R["STAMP_RX_CORRECTION_%d" % p], RX_CORRECTION_NS)
                    configure_port(conns[k], DM_PORT[k], control(dm=True, dm_responder=True, cpu_bound=True), MEP[(k, DM_PORT[k])])
                    configure_port(conns[k], HEADROOM_PORT[k], control(headroom=True, headroom_responder=True, cpu_bound=True), MEP[(k, HEADROOM_PORT[k])])
                sim.request("start")
                # The inputs end after count x 20 us; read the counters once everything is back
                deadline = time.monotonic() + 120
                done = False
                while not done and time.monotonic() < deadline:
                    time.sleep(0.2)
                    got = {k: (counters(conns[k], DM_PORT[k]), counters(conns[k], HEADROOM_PORT[k])) for k in (0, 1)}
                    done = all(got[k][0]["dm_passed_up"] >= 2 * count and got[k][1]["headroom_passed_up"] >= count for k in (0, 1))
                status = sim.stop(interrupt=False)
        except BaseException:
            sim.kill()
            raise
        tap.point(status == 0 and done, "network: the run ends by --duration, every answer back before it",
                  sim.log() + "\n" + repr(got))
        for k in (0, 1):
            far = 1 - k
            dm_own, hr_own = got[k]
            dm_far, hr_far = got[far]
            want = {"dm_stamped": 2 * count, "dm_passed_up": 2 * count, "headroom_stamped": count,
                    "headroom_passed_up": count, "dm_malformed": 0, "headroom_malformed": 0}
            counted = {n: (dm_own if n.startswith("dm") else hr_own)[n] for n in want}
            answered = {"dm_answered": dm_far["dm_answered"], "dm_replies_sent": dm_far["dm_replies_sent"],
                        "headroom_answered": hr_far["headroom_answered"],
                        "headroom_replies_sent": hr_far["headroom_replies_sent"]}
            tap.point(counted == want and all(v == count for v in answered.values()),
                      "network: switch %d sent %d DMMs, %d 1DMs, %d headroom requests: its counters %s, "
                      "the far responders' %s" % (k, count, count, count, counted, answered),
                      "want %s and %d answered and sent" % (want, count))

        legs = Legs(read_truth(os.path.join(work, "wire.csv")))
        result = collections.defaultdict(list)
        seen = collections.Counter()
        for k in (0, 1):
            for t, frame in F.read_pcap(os.path.join(work, "up%d-%d.pcap" % (k, 4 + DM_PORT[k]))):
                tagged = frame[12:14] == b"\x81\x00"
                opcode = frame[15 + (4 if tagged else 0)]
                if opcode == F.OPCODE_DMR:
                    seen[(k, "dmr")] += 1
                    check_dmr(legs, k, frame, result)
                elif opcode == F.OPCODE_1DM:
                    seen[(k, "1dm")] += 1
                    check_1dm(legs, k, frame, result)
                else:
                    legs.problems.append("switch %d: unexpected frame %s" % (k, frame[:20].hex()))
            for t, frame in F.read_pcap(os.path.join(work, "up%d-%d.pcap" % (k, 4 + HEADROOM_PORT[k]))):
                seen[(k, "headroom")] += 1
                check_headroom(legs, k, frame, result)
        tap.point(all(seen[(k, n)] == count for k in (0, 1) for n in ("dmr", "1dm", "headroom")),
                  "network: each CPU port got back one DMR per DMM, one 1DM per 1DM, one response per "
                  "request (%s)" % dict(seen))
        tap.point(not legs.problems and legs.checked > 0,
                  "network: %d stamps written by the switches (TxTimeStampf, RxTimeStampf, TxTimeStampb, "
                  "RxTimeb, RxTimef, t1..t4) equal the wire truth's reading of their leg" % legs.checked,
                  "\n".join(legs.problems[:20]))

        def worst(name):
            values = result[name]
            return max((abs(v) for v in values), default=float("inf"))
        tap.comment("two-way delay: error vs true %.2f ns max, vs 2 x cable %.2f ns max; one-way "
                    "error %.2f ns max; headroom round trip error %.2f ns max, vs 2 x cable %.2f ns max"
                    % (worst("two_way_error"), worst("two_way_vs_cable"), worst("one_way_error"),
                       worst("round_trip_error"), worst("round_trip_vs_cable")))
        tap.point(worst("two_way_error") < 8 and len(result["two_way_error"]) == 2 * count,
                  "network: two-way delay of every DMR = the true value within 8 ns (max %.2f ns)" % worst("two_way_error"))
        tap.point(worst("round_trip_error") < 8 and len(result["round_trip_error"]) == 2 * count,
                  "network: headroom round trip of every response = the true value within 8 ns (max %.2f ns)"
                  % worst("round_trip_error"))
        # The clocks' frequency errors (100 ppm between them) over intervals of up to ~300 us
        tap.point(worst("two_way_vs_cable") < 40 and worst("round_trip_vs_cable") < 40,
                  "network: two-way delay = 2 x 500 ns and round trip = 2 x 10 us (the cables) within "
                  "the clocks' frequency errors (max %.2f ns, %.2f ns)" % (worst("two_way_vs_cable"), worst("round_trip_vs_cable")))
        tap.point(worst("one_way_error") < 8 and len(result["one_way_error"]) == 4 * count,
                  "network: one-way delay of every DMM and 1DM = cable + the clocks' offset (1.5 s and "
                  "drift) within 8 ns (max %.2f ns)" % worst("one_way_error"))
    except Exception as error:  # a broken run is a failure, not a crash of the suite
        tap.point(False, "network", repr(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def wait_for_clock(conn, clock, timeout=120):
    """Polls until the simulation has passed `clock` (its socket answers while it runs)."""
    deadline = time.monotonic() + timeout
    while conn.cycle() < clock:
        if time.monotonic() > deadline:
            raise RuntimeError("the simulation did not reach clock %d" % clock)
        time.sleep(0.05)


def responder_inputs():
    """Run 2's frames into MAC ports 0, 1 and 2 of one switch, each with its fate: what it
    becomes and where it goes ("reflect": back out of its port; "up": to CPU port 4+i;
    "flood": switched as usual, its destination unknown: every other port)."""
    m0, m1, m2 = (F.mac_bytes(MEP[(0, p)]) for p in range(3))
    peer = bytes.fromhex("02000000bb01")
    other = bytes.fromhex("02000000cc01")
    host = bytes.fromhex("02000000ff04")  # the host behind CPU port 4
    ordinary = peer[:5] + b"\x77" + peer + struct.pack(">H", 0x0800) + bytes(range(46))
    cases = [
        # port, frame, fate, counter, what
        (0, F.dm(m0, peer, F.OPCODE_DMM, level=LEVEL, data=b"a"), "reflect", "dm_answered", "DMM"),
        (0, F.dm(m0, peer, F.OPCODE_DMM, level=LEVEL, version=1, data=b"b"), "reflect", "dm_answered", "DMM version 1"),
        (0, F.dm(m0, peer, F.OPCODE_DMM, level=LEVEL, vlan=7, data=b"c"), "reflect", "dm_answered", "tagged DMM"),
        (0, F.dm(m0, peer, F.OPCODE_DMM, level=LEVEL - 1, data=b"d"), "flood", None, "DMM of a lower MEL"),
        (0, F.dm(m0, peer, F.OPCODE_DMM, level=LEVEL + 1, data=b"e"), "flood", None, "DMM of a higher MEL"),
        (0, F.dm(other, peer, F.OPCODE_DMM, level=LEVEL, data=b"f"), "flood", None, "DMM to another MAC"),
        (0, F.dm(m0, peer, 43, level=LEVEL, data=b"g"), "flood", None, "opcode 43 (LMM)"),
        (0, F.dm(m0, peer, F.OPCODE_DMM, level=LEVEL, version=2, data=b"h"), "up", "dm_malformed", "DMM version 2"),
        (0, F.dm(m0, peer, F.OPCODE_1DM, level=LEVEL, stamps={"tx_f": (7, 8)}), "up", "dm_passed_up", "1DM"),
        (0, F.dm(m0, peer, F.OPCODE_DMR, level=LEVEL, stamps={"tx_f": (1, 2), "rx_f": (3, 4), "tx_b": (5, 6)}), "up", "dm_passed_up", "DMR"),
        (0, F.dm(m0, peer, F.OPCODE_DMR, level=LEVEL, vlan=9, stamps={"tx_f": (1, 3)}), "up", "dm_passed_up", "tagged DMR"),
        (0, F.headroom(peer, F.HEADROOM_REQUEST, {"t1": (9, 10)}), "reflect", "headroom_answered", "headroom request"),
        (0, F.headroom(peer, F.HEADROOM_RESPONSE, {"t1": (9, 10), "t2": (1, 1), "t3": (1, 500)}), "up", "headroom_passed_up", "headroom response"),
        (0, F.headroom(peer, F.HEADROOM_REQUEST, byte14=0x02), "up", "headroom_malformed", "headroom subtype 2"),
        (0, F.headroom(peer, F.HEADROOM_REQUEST, byte14=0x00), "up", "headroom_malformed", "subtype 0 (802.1Qcz CIM)"),
        (0, F.headroom(peer, F.HEADROOM_REQUEST, version=2), "up", "headroom_malformed", "headroom version 2"),
        (0, F.headroom(peer, 0), "up", "headroom_malformed", "headroom type 0"),
        (0, F.headroom(peer, 3), "up", "headroom_malformed", "headroom type 3"),
        (0, F.headroom(peer, F.HEADROOM_REQUEST | 4), "up", "headroom_malformed", "headroom request with a reserved bit set"),
        (0, F.headroom(peer, F.HEADROOM_REQUEST, byte14=0x11, length=14), "up", "headroom_malformed", "headroom frame of 14 bytes (padded)"),
        (0, ordinary, "flood", None, "an ordinary frame after them"),
        (1, F.headroom(bytes.fromhex("02000000dd01"), F.HEADROOM_REQUEST), "up", "headroom_malformed", "headroom request on a port whose engine is off"),
        (1, F.dm(m1, bytes.fromhex("02000000dd02"), F.OPCODE_DMM, level=LEVEL, data=b"i"), "flood", None, "DMM on a port whose engine is off"),
        (2, F.dm(m2, peer, F.OPCODE_DMM, level=LEVEL, data=b"j"), "up", "dm_passed_up", "DMM, responder off"),
        (2, F.headroom(peer, F.HEADROOM_REQUEST, {"t1": (3, 3)}), "up", "headroom_passed_up", "headroom request, responder off"),
        # From CPU port 4, bound to MAC port 0: stamped on the way out (the offset of the field)
        (4, F.dm(peer, host, F.OPCODE_DMM, level=LEVEL, data=b"k"), ("out", 18), "dm_stamped", "DMM from the CPU"),
        (4, F.dm(peer, host, F.OPCODE_DMM, level=LEVEL, vlan=5, data=b"l"), ("out", 22), "dm_stamped", "tagged DMM from the CPU"),
        (4, F.dm(peer, host, F.OPCODE_1DM, level=2, data=b"m"), ("out", 18), "dm_stamped", "1DM from the CPU (any MEL)"),
        (4, F.dm(peer, host, F.OPCODE_DMR, level=LEVEL, stamps={"tx_f": (1, 1), "rx_f": (2, 2)}), ("out", 34), "dm_stamped", "DMR from the CPU"),
        (4, F.dm(peer, host, F.OPCODE_DMM, level=LEVEL)[:40], ("out", None), None, "DMM from the CPU, 40 bytes: too short, not stamped"),
        (4, F.headroom(host, F.HEADROOM_REQUEST), ("out", 16), "headroom_stamped", "headroom request from the CPU"),
        (4, F.headroom(host, F.HEADROOM_RESPONSE, {"t1": (4, 4), "t2": (5, 5)}), ("out", 32), "headroom_stamped", "headroom response from the CPU"),
        (4, F.headroom(host, F.HEADROOM_REQUEST, byte14=0x02), ("out", None), None, "headroom subtype 2 from the CPU: not stamped"),
    ]
    return cases


def expected_output(port, frame, fate, rx_row, tx_row, legs):
    """Run 2: the frame as it must come out, the stamps from the truth's legs (corrections 0)."""
    tagged = frame[12:14] == b"\x81\x00"
    o = 4 if tagged else 0
    headroom = frame[12:14] == b"\x89\xa2" and fate != "flood"
    if fate == "flood" or rx_row is None:
        return frame
    rx = reading_stamp(rx_row, LAST_BIT_NS if headroom else 0)
    if headroom:
        kind = frame[15] & 3
        if fate == "up" and (frame[14] != 0x01 or frame[15] not in (0x11, 0x12) or port == 1):
            return frame
        if fate == "up":
            return F.with_stamp(frame, 24 if kind == 1 else 40, rx)
        out = frame[:6] + F.mac_bytes(MEP[(0, port)]) + frame[12:15] + bytes([(frame[15] & 0xfc) | 2]) + frame[16:]
        out = F.with_stamp(out, 24, rx)
        if tx_row is None:
            return out
        return F.with_stamp(out, 32, reading_stamp(tx_row, LAST_BIT_NS))
    opcode = frame[15 + o]
    if fate == "up":
        if frame[14 + o] & 0x1f > 1:
            return frame
        return F.with_stamp(frame, (42 if opcode == F.OPCODE_DMR else 26) + o, rx)
    out = frame[6:12] + frame[0:6] + frame[12:15 + o] + bytes([F.OPCODE_DMR]) + frame[16 + o:]
    out = F.with_stamp(out, 26 + o, rx)
    if tx_row is None:
        return out
    return F.with_stamp(out, 34 + o, reading_stamp(tx_row))


def run_responder(tap, simulator):
    work = tempfile.mkdtemp(prefix="pktstats-oam-responder-")
    try:
        cases = responder_inputs()
        spacing = 10000
        last_ns = 0
        for port in (0, 1, 2, 4):
            frames = [c[1] for c in cases if c[0] == port]
            F.write_pcap(os.path.join(work, "in%d.pcap" % port), frames, spacing)
            last_ns = max(last_ns, len(frames) * spacing)
        outputs = (0, 1, 4, 5, 6)
        # Long enough for the test to read the counters while it runs
        args = ["--wire-truth", os.path.join(work, "wire.csv"), "--duration", "%dus" % (last_ns // 1000 + 100000)]
        for port in (0, 1, 2, 4):
            args += ["--port", "%d:in=%s" % (port, os.path.join(work, "in%d.pcap" % port))]
        for port in outputs:
            args += ["--port", "%d:out=%s" % (port, os.path.join(work, "out%d.pcap" % port))]
        sim = pktstats_sim.Simulator(simulator, work, args, wait=True)
        try:
            configure_port(sim, 0, control(dm=True, dm_responder=True, headroom=True, headroom_responder=True,
                                           cpu_bound=True), MEP[(0, 0)])
            configure_port(sim, 1, control(), MEP[(0, 1)])
            configure_port(sim, 2, control(dm=True, headroom=True), MEP[(0, 2)])
            start = sim.start()
            wait_for_clock(sim, start + (last_ns + 100000) // 8)
            got = {p: counters(sim, p) for p in (0, 1, 2)}
            status = sim.stop()
        except BaseException:
            sim.kill()
            raise
        tap.point(status == 0, "responder: the run ends, exit 0", sim.log())
        legs = read_truth(os.path.join(work, "wire.csv"))
        outputs_got = {p: collections.Counter(f for t, f in F.read_pcap(os.path.join(work, "out%d.pcap" % p)))
                       for p in outputs}
        problems = []
        want_counters = {p: collections.Counter() for p in (0, 1, 2)}
        expected = {p: collections.Counter() for p in outputs}
        for port, frame, fate, counter, what in cases:
            wire = F.pad(frame)
            if counter:
                want_counters[port % 4][counter] += 1
                if counter.endswith("answered"):
                    want_counters[port][counter.replace("answered", "replies_sent")] += 1
            if isinstance(fate, tuple):
                # From the CPU: find the frame that left port 0 (its bytes but the field) and
                # check the field against that leg's reading
                offset = fate[1]
                sent = wire  # the MAC pads what is shorter than 60 bytes
                found = None
                for f in outputs_got[0]:
                    if offset is None or len(f) != len(sent):
                        continue
                    if F.with_stamp(f, offset, (0, 0)) == F.with_stamp(sent, offset, (0, 0)):
                        found = f
                rows = legs.get((0, 0, "tx", fnv1a64(F.pad(found))), []) if found else []
                if offset is None:
                    expected[0][sent] += 1
                elif len(rows) != 1:
                    problems.append("%s: did not leave port 0 (%d tx lines)" % (what, len(rows)))
                else:
                    t = reading_stamp(rows[0], LAST_BIT_NS if frame[12:14] == b"\x89\xa2" else 0)
                    expected[0][F.with_stamp(sent, offset, t)] += 1
                continue
            rx_rows = legs.get((0, port, "rx", fnv1a64(wire)), [])
            rx_row = rx_rows[0] if len(rx_rows) == 1 else None
            if rx_row is None:
                problems.append("%s: %d rx lines in the truth" % (what, len(rx_rows)))
            if fate == "flood":
                for p in outputs:
                    if p != port:
                        expected[p][wire] += 1
                continue
            out_port = port if fate == "reflect" else 4 + port
            tx_row = None
            if fate == "reflect":
                # The answer's tx line: the frame that left, whatever its stamp
                candidates = [f for f in outputs_got[out_port] if f[12:] [:2] == wire[12:14]
                              and expected_output(port, wire, fate, rx_row, None, legs)[:24] == f[:24]]
                for f in candidates:
                    rows = legs.get((0, port, "tx", fnv1a64(f)), [])
                    if len(rows) == 1:
                        tx_row = rows[0]
                if tx_row is None:
                    problems.append("%s: no answer left port %d" % (what, port))
            expected[out_port][expected_output(port, wire, fate, rx_row, tx_row, legs)] += 1
        for p in outputs:
            missing = expected[p] - outputs_got[p]
            extra = outputs_got[p] - expected[p]
            for f in missing:
                problems.append("port %d: missing %s" % (p, f.hex()))
            for f in extra:
                problems.append("port %d: unexpected %s" % (p, f.hex()))
        tap.point(not problems,
                  "responder: each of %d frames (DMMs answered, other MELs, MACs and opcodes switched "
                  "as usual, 1DM/DMR passed up with the RX stamp, malformed ones passed up unchanged, "
                  "headroom requests answered and responses passed up) came out where docs/oam.md says, "
                  "byte for byte, nothing else" % len(cases), "\n".join(problems[:20]))
        bad = {p: (dict(got[p]), dict(want_counters[p])) for p in (0, 1, 2)
               if {n: v for n, v in got[p].items() if v} != dict(want_counters[p])}
        tap.point(not bad, "responder: every counter of ports 0, 1 and 2 equals the test's count",
                  "port: (counters, wanted): %r" % bad)
    except Exception as error:
        tap.point(False, "responder", repr(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_line_rate(tap, simulator, count, mixed):
    """DMMs at line rate over the 100 m cable: alone (mixed False), or alternating with
    ordinary frames, with more ordinary frames beside the DMRs on the way back."""
    work = tempfile.mkdtemp(prefix="pktstats-oam-rate-")
    try:
        far_station = 0x020000000099
        near_station = 0x020000000098
        peer = F.mac_bytes(MEP[(1, DM_PORT[1])])
        me = F.mac_bytes(MEP[(0, DM_PORT[0])])
        forward, backward, dmms = [], [], []
        for i in range(count):
            dmm = F.dm(peer, me, F.OPCODE_DMM, level=LEVEL, data=struct.pack(">I", i))
            dmms.append(dmm)
            forward.append(dmm)
            if not mixed:
                continue
            forward.append(F.pad(F.mac_bytes(far_station) + me + struct.pack(">HI", 0x0800, i)))
            if i % 5 < 2:
                backward.append(F.pad(F.mac_bytes(near_station) + peer + struct.pack(">HI", 0x0800, i)))
        # One 60-byte frame every 672 ns: 84 byte times at 1 Gb/s, the MAC port's line rate
        F.write_pcap(os.path.join(work, "forward.pcap"), forward, 672)
        F.write_pcap(os.path.join(work, "backward.pcap"), backward, 1680)
        args = ["--duration", "%dus" % (len(forward) * 672 // 1000 + 100000),
                "--switches", "2", "--switch", "1:socket=%s" % os.path.join(work, "s1.sock"),
                "--cable", "0.1-1.2,length=100m",
                "--port", "0.5:in=%s" % os.path.join(work, "forward.pcap"),
                "--port", "0.5:out=%s" % os.path.join(work, "up.pcap"),
                "--port", "1.3:out=%s" % os.path.join(work, "far3.pcap"),
                "--port", "0.3:out=%s" % os.path.join(work, "near3.pcap")]
        if backward:
            args += ["--port", "1.6:in=%s" % os.path.join(work, "backward.pcap")]
        sim = pktstats_sim.Simulator(simulator, work, args, name="s0", wait=True)
        try:
            with pktstats_sim.Connection(os.path.join(work, "s1.sock")) as s1:
                configure_port(sim, 1, control(dm=True, cpu_bound=True), MEP[(0, 1)])
                configure_port(s1, 2, control(dm=True, dm_responder=True, cpu_bound=True), MEP[(1, 2)])
                for conn, station, port in ((s1, far_station, 3), (sim, near_station, 3)):
                    conn.write(R["SWITCH_TABLE_INDEX"], 0)
                    conn.write(R["SWITCH_TABLE_MAC_LO"], station & 0xffffffff)
                    conn.write(R["SWITCH_TABLE_MAC_HI"], station >> 32)
                    conn.write(R["SWITCH_TABLE_ENTRY"], port | R["SWITCH_TABLE_ENTRY_VALID_MASK"]
                               | R["SWITCH_TABLE_ENTRY_STATIC_MASK"])
                    conn.write(R["SWITCH_TABLE_COMMAND"], 1)
                start = sim.start()
                wait_for_clock(sim, start + (len(forward) * 672 + 200000) // 8)
                near, far = counters(sim, 1), counters(s1, 2)
                status = sim.stop()
        except BaseException:
            sim.kill()
            raise
        up = [f for t, f in F.read_pcap(os.path.join(work, "up.pcap"))]
        far3 = [f for t, f in F.read_pcap(os.path.join(work, "far3.pcap"))]
        near3 = [f for t, f in F.read_pcap(os.path.join(work, "near3.pcap"))]
        answered = [f for f in up if f[15] == F.OPCODE_DMR]
        complete = [f for f in answered if all(F.stamp_at(f, o) != (0, 0) for o in F.DM_FIELDS.values())]
        numbers = sorted(struct.unpack_from(">I", f, 53)[0] for f in answered)
        what = "line rate, DMMs alternating with ordinary frames" if mixed else "line rate, DMMs only"
        tap.point(status == 0 and far["dm_answered"] == count == far["dm_replies_sent"]
                  and near["dm_stamped"] == count and near["dm_passed_up"] == count
                  and numbers == list(range(count)) and len(complete) == count and len(up) == count,
                  "%s: %d DMMs of 60 bytes, every one answered (dm_answered %d, dm_replies_sent %d), "
                  "every DMR back with its four stamps (%d)"
                  % (what, count, far["dm_answered"], far["dm_replies_sent"], len(complete)),
                  "near %r far %r, %d frames up" % (near, far, len(up)))
        if mixed:
            tap.point(far3 == forward[1::2] and near3 == backward,
                      "%s: the %d ordinary frames beside the DMMs and the %d beside the DMRs arrived "
                      "unchanged, in order" % (what, count, len(backward)),
                      "%d of %d, %d of %d" % (len(far3), count, len(near3), len(backward)))
    except Exception as error:
        tap.point(False, "line rate (mixed %s)" % mixed, repr(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_synchronised(tap, simulator, cli, seed, count):
    """Run 4: the network without load and with exact oscillators (0 ppm: nothing drifts while
    the test sets up), switch 1 1.5 s ahead, synchronised with `pktstats time step -1.5s` before
    the traffic. The one-way delays of DMMs and 1DMs are then the cable's 500 ns."""
    work = tempfile.mkdtemp(prefix="pktstats-oam-sync-")
    try:
        files, sent = network_inputs(work, count)
        args = ["--seed", str(seed), "--switches", "2",
                "--switch", "1:socket=%s,offset=1.5s" % os.path.join(work, "s1.sock"),
                "--cable", "0.1-1.2,length=100m", "--cable", "0.2-1.1,length=2km",
                "--wire-truth", os.path.join(work, "wire.csv"), "--duration", "%dms" % (2 + count // 50)]
        for k in (0, 1):
            path, cpu = files[(k, "dm")]
            args += ["--port", "%d.%d:in=%s" % (k, cpu, path),
                     "--port", "%d.%d:out=%s" % (k, cpu, os.path.join(work, "up%d.pcap" % k))]
        sim = pktstats_sim.Simulator(simulator, work, args, name="s0", wait=True)
        try:
            with pktstats_sim.Connection(os.path.join(work, "s1.sock")) as s1:
                conns = {0: sim, 1: s1}
                sockets = {0: sim.socket_path, 1: os.path.join(work, "s1.sock")}
                for k in (0, 1):
                    configure_port(conns[k], DM_PORT[k], control(dm=True, dm_responder=True, cpu_bound=True), MEP[(k, DM_PORT[k])])
                    conns[k].write(R["STAMP_TX_CORRECTION_%d" % DM_PORT[k]], TX_CORRECTION_NS)
                    conns[k].write(R["STAMP_RX_CORRECTION_%d" % DM_PORT[k]], RX_CORRECTION_NS)
                commands = [(1, ["time", "step", "-1.5s"])]
                failed = []
                for k, words in commands:
                    done = subprocess.run([cli, "-d", "sim:" + sockets[k]] + words, capture_output=True, text=True, timeout=30)
                    if done.returncode != 0:
                        failed.append("%s: %s" % (" ".join(words), done.stderr.strip()))
                sim.request("start")
                status = sim.stop(interrupt=False)
        except BaseException:
            sim.kill()
            raise
        legs = Legs(read_truth(os.path.join(work, "wire.csv")))
        delays = []
        for k in (0, 1):
            for t, frame in F.read_pcap(os.path.join(work, "up%d.pcap" % k)):
                o = 4 if frame[12:14] == b"\x81\x00" else 0
                if frame[15 + o] in (F.OPCODE_DMR, F.OPCODE_1DM):
                    delays.append(signed_diff(stamp_ns(F.stamp_at(frame, 26 + o)), stamp_ns(F.stamp_at(frame, 18 + o))))
        worst = max((abs(d - CABLE_PS["dm"] / 1000) for d in delays), default=float("inf"))
        tap.point(status == 0 and not failed and len(delays) == 4 * count and worst < 8,
                  "synchronised: after `pktstats time step -1.5s` on switch 1, the one-way delay of "
                  "each of %d DMMs and 1DMs is the cable's 500 ns within 8 ns (max %.1f ns off)"
                  % (len(delays), worst),
                  "\n".join(failed) + sim.log())
    except Exception as error:
        tap.point(False, "synchronised", repr(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("cli", help="the pktstats CLI (run 4 synchronises the clocks with it)")
    parser.add_argument("--seed", type=int, help="seed of the generators")
    parser.add_argument("--count", type=int, default=100, help="frames of each kind per switch")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap = Tap()
    tap.comment("seed %d (replay: %s SIMULATOR --seed %d)" % (seed, sys.argv[0], seed))
    simulator = os.path.abspath(options.simulator)
    run_network(tap, simulator, seed, options.count)
    run_responder(tap, simulator)
    run_line_rate(tap, simulator, 20 * options.count, mixed=False)
    run_line_rate(tap, simulator, 20 * options.count, mixed=True)
    run_synchronised(tap, simulator, os.path.abspath(options.cli), seed, options.count // 5)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
