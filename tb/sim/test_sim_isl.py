#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The switch's part of OpenKilda's ISL round trip (issue 14, item 2): "copy field" (T0 at TX,
T1 at RX) and "group" (a discovery packet copied to the CPU and reflected as a round-trip
packet), on the simulated network, against the wire truth.

    tb/sim/test_sim_isl.py build/bin/pktstats-sim [--seed S]

The two switches of tb/sim/two_switches.py (+50 ppm; -50 ppm and 1.5 s ahead; 100 m between
port 0.1 and 1.2) with generators at 60 % of line rate across the cable. Switch A (0) sends
discovery packets (IPv4/UDP to port 61231, its port MAC as source) from CPU port 5, bound to
port 1, to switch B (1). For each of four settings (copy field on A, group on B: on/on, off/on,
on/off, off/off, the rows of OpenKilda's decision table as far as the switches go):

  - what reaches B's CPU port 6 and A's CPU port 5, byte for byte: with the group, B's copy
    (destination B's port MAC) and the round-trip packet back at A (UDP port 61232); without
    it, only B's copy, unchanged; with both features off on B (a fifth run), B switches the
    packets like any frame: flooded, out of its port 0 too;
  - T0 (byte 66) equals the truth's reading of the discovery packet leaving A (copy field on,
    else 0), T1 (byte 80) the truth's reading of the round-trip packet arriving at A (else 0),
    with the corrections of docs/oam.md ("Accuracy");
  - T1 - T0 equals the true round trip (twice the cable plus B's residence, as A's clock
    counts it) within 16 ns;
  - every UDP checksum out of the switches is 0 or right, every IPv4 header checksum right;
  - the counters of both switches equal what was sent.
"""

import argparse
import collections
import os
import shutil
import struct
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import isl_frames as K  # noqa: E402
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
import test_sim_oam as T  # noqa: E402
import two_switches  # noqa: E402
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()
A, B = 0, 1
A_PORT, B_PORT = 1, 2  # the 100 m cable
COUNT = 50
SPACING_NS = 20000
# Each packet's own controller timestamp (its number, in ms), 8 bytes at this offset
NUMBER_AT = K.OFFSETS["timestamp"]


def isl_counters(conn, port):
    return {n: conn.read64(R["OAM_%s_%d_LO" % (n.upper(), port)])
            for n in ("isl_t0_stamped", "isl_t1_stamped", "isl_reflected", "isl_passed_up")}


def isl_control(copy_field, group):
    return ((R["OAM_CONTROL_0_ISL_COPY_FIELD_MASK"] if copy_field else 0)
            | (R["OAM_CONTROL_0_ISL_GROUP_MASK"] if group else 0)
            | R["OAM_CONTROL_0_CPU_BOUND_MASK"])


def checksums_ok(frame):
    return K.ip_checksum_ok(frame[14:34]) and K.udp_checksum_ok(frame)


def run(tap, simulator, seed, copy_field, group, b_off=False):
    """One setting: copy field on A (on or off, group on), group on B (copy field on); b_off:
    both features off on B, which then switches discovery packets like any frame."""
    what = "A copy field %s, B group %s" % ("on" if copy_field else "off", "on" if group else "off")
    if b_off:
        what = "A copy field %s, B both off" % ("on" if copy_field else "off")
    work = tempfile.mkdtemp(prefix="pktstats-isl-")
    try:
        b_mac = F.mac_bytes(T.MEP[(B, B_PORT)])
        # OpenKilda's discovery packets (docs/isl.md): A's datapath ID gives their source MAC,
        # A's port MAC; each packet's controller timestamp is its number
        sent = [K.discovery(T.MEP[(A, A_PORT)], A_PORT, bytes([10, 0, 0, 1]), i) for i in range(COUNT)]
        F.write_pcap(os.path.join(work, "discovery.pcap"), sent, SPACING_NS)
        args = two_switches.arguments(work, seed, 5)
        if b_off:
            # B floods the packets (a group address it does not know): the second cable would
            # close a loop, and these switches have no spanning tree
            i = args.index("0.2-1.1,length=2km")
            del args[i - 1:i + 1]
        args += [
            "--port", "0.%d:in=%s" % (4 + A_PORT, os.path.join(work, "discovery.pcap")),
            "--port", "0.%d:out=%s" % (4 + A_PORT, os.path.join(work, "a_up.pcap")),
            "--port", "1.%d:out=%s" % (4 + B_PORT, os.path.join(work, "b_up.pcap")),
            "--port", "1.0:out=%s" % os.path.join(work, "b_port0.pcap"),
            "--port", "0.0:gen=0.6,size=60-1514,to=1", "--port", "1.3:gen=0.6,size=imix,to=5"]
        sim = pktstats_sim.Simulator(simulator, work, args, name="s0", wait=True)
        try:
            with pktstats_sim.Connection(os.path.join(work, "s1.sock")) as s1:
                conns = {A: sim, B: s1}
                for k, port, value in ((A, A_PORT, isl_control(copy_field, True)),
                                       (B, B_PORT, isl_control(not b_off, group))):
                    two_switches.write_tables(conns[k], R, k)
                    T.configure_port(conns[k], port, value, T.MEP[(k, port)])
                    conns[k].write(R["STAMP_TX_CORRECTION_%d" % port], T.TX_CORRECTION_NS)
                    conns[k].write(R["STAMP_RX_CORRECTION_%d" % port], T.RX_CORRECTION_NS)
                start = sim.start()
                T.wait_for_clock(sim, start + (COUNT * SPACING_NS + 200000) // 8)
                got = {A: isl_counters(sim, A_PORT), B: isl_counters(s1, B_PORT)}
                status = sim.stop()
        except BaseException:
            sim.kill()
            raise
        tap.point(status == 0, "%s: the run ends, exit 0" % what, sim.log())
        truth = T.read_truth(os.path.join(work, "wire.csv"))
        a_up = [f for t, f in F.read_pcap(os.path.join(work, "a_up.pcap"))]
        b_up = [f for t, f in F.read_pcap(os.path.join(work, "b_up.pcap"))]

        problems, rtt_errors = [], []

        def leg(k, p, direction, frame, name):
            rows = truth.get((k, p, direction, T.fnv1a64(F.pad(frame))), [])
            if len(rows) != 1:
                problems.append("%s: %d truth lines on switch %d port %d %s" % (name, len(rows), k, p, direction))
                return None
            return rows[0]

        expected_b, expected_a = [], []
        for i, frame in enumerate(sent):
            name = "discovery %d" % i
            # The discovery packet as it left A: with copy field, T0 written (the value B's copy
            # carries; its leg in the truth must match it) and the UDP checksum 0
            wire_a = frame
            if copy_field:
                match = [f for f in b_up if f[NUMBER_AT:NUMBER_AT + 8] == struct.pack(">q", i)]
                if len(match) != 1:
                    problems.append("%s: %d copies at B's CPU port" % (name, len(match)))
                    continue
                wire_a = bytearray(F.with_stamp(frame, K.T0_OFFSET, F.stamp_at(match[0], K.T0_OFFSET)))
                wire_a[40:42] = b"\0\0"
                wire_a = bytes(wire_a)
            out_a = leg(A, A_PORT, "tx", wire_a, name + " leaving A")
            in_b = leg(B, B_PORT, "rx", wire_a, name + " arriving at B")
            if out_a is None or in_b is None:
                continue
            if copy_field and F.stamp_at(wire_a, K.T0_OFFSET) != T.reading_stamp(out_a, T.TX_CORRECTION_NS):
                problems.append("%s: T0 %s, truth %s" % (name, F.stamp_at(wire_a, K.T0_OFFSET), T.reading_stamp(out_a, T.TX_CORRECTION_NS)))
            copy_b = (b_mac + wire_a[6:]) if group and not b_off else wire_a
            expected_b.append(copy_b)
            if not group or b_off:
                continue
            back = bytearray(wire_a)
            back[36:38] = struct.pack(">H", K.UDP_ROUND_TRIP)
            back[40:42] = b"\0\0"
            back = bytes(back)
            out_b = leg(B, B_PORT, "tx", back, name + " reflected by B")
            in_a = leg(A, A_PORT, "rx", back, name + " back at A")
            if out_b is None or in_a is None:
                continue
            up = back
            if copy_field:
                up = F.with_stamp(back, K.T1_OFFSET, T.reading_stamp(in_a, T.RX_CORRECTION_NS))
                t0, t1 = (T.stamp_ns(F.stamp_at(up, o)) for o in (K.T0_OFFSET, K.T1_OFFSET))
                true = T.clock_interval(in_a["true_time_ps"], out_a["true_time_ps"], A)
                rtt_errors.append(T.signed_diff(t1, t0) - true)
            expected_a.append(up)
        for where, want, frames in (("B's CPU port", expected_b, b_up), ("A's CPU port", expected_a, a_up)):
            missing = collections.Counter(want) - collections.Counter(frames)
            extra = collections.Counter(frames) - collections.Counter(want)
            problems += ["%s: missing %s" % (where, f.hex()) for f in list(missing)[:3]]
            problems += ["%s: unexpected %s" % (where, f.hex()) for f in list(extra)[:3]]
        bad_sums = [f.hex() for f in a_up + b_up if not checksums_ok(f)]
        # Switched like any frame by B: flooded, out of B's port 0 too; otherwise never there
        b_port0 = [f for t, f in F.read_pcap(os.path.join(work, "b_port0.pcap"))
                   if f[12:14] == b"\x08\x00" and f[36:38] == struct.pack(">H", K.UDP_DISCOVERY)]
        if len(b_port0) != (COUNT if b_off else 0):
            problems.append("B's port 0 sent %d discovery packets" % len(b_port0))
        tap.point(not problems and not bad_sums and len(expected_b) == COUNT
                  and len(expected_a) == (COUNT if group and not b_off else 0),
                  "%s: %d discovery packets: B's CPU port got %d copies, A's CPU port %d round-trip "
                  "packets, byte for byte as docs/isl.md says, T0 and T1 the truth's readings, every "
                  "UDP checksum 0 or right" % (what, COUNT, len(b_up), len(a_up)),
                  "\n".join(problems[:12] + bad_sums[:3]))
        if copy_field and group:
            worst = max((abs(e) for e in rtt_errors), default=float("inf"))
            tap.point(len(rtt_errors) == COUNT and worst < 16,
                      "%s: T1 - T0 of every round trip = the true round trip (2 x 500 ns + B's "
                      "residence, by A's clock) within 16 ns (max %.2f ns)" % (what, worst))
        want = {A: {"isl_t0_stamped": COUNT if copy_field else 0,
                    "isl_t1_stamped": COUNT if copy_field and group else 0,
                    "isl_reflected": 0,
                    "isl_passed_up": COUNT if group and not copy_field and not b_off else 0},
                B: {"isl_t0_stamped": 0, "isl_t1_stamped": 0,
                    "isl_reflected": COUNT if group and not b_off else 0,
                    "isl_passed_up": 0 if group or b_off else COUNT}}
        tap.point(got == want, "%s: the ISL counters of A's and B's ports: %s" % (what, got), "want %s" % want)
    except Exception as error:
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
    for copy_field, group in ((True, True), (False, True), (True, False), (False, False)):
        run(tap, simulator, seed, copy_field, group)
    run(tap, simulator, seed, True, False, b_off=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
