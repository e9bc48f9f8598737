#!/usr/bin/env python3
"""Benchmark of the link-delay engines (docs/oam.md), run by `make bench` (issue 13). Prints
figures; it never fails on a figure, only when the run itself goes wrong.

On two switches (switch 0 at 0 ppm; switch 1 at -50 ppm and 1.5 s ahead; 100 m between port 0.1
and 1.2), switch 0's CPU port 5, bound to port 1, sends N DMMs of 60 bytes back to back at line
rate (one every 672 ns) to the MEP of port 1.2, whose responder answers every one. (Switch 0 at
0 ppm: the simulated MACs start frames on clock edges, so a MAC on a fast clock needs 85 of its
8 ns clocks for a 672 ns frame and would offer the responder less than line rate.) With the
simulator's corrections (TX 8 ns, RX 4 ns: docs/oam.md, "Accuracy"):

- the two-way delay of every DMR against its true value (from the wire truth's true times of
  the four first bits, each interval counted by the clock that measured it): max and RMS error;
- the responder's throughput: DMMs answered per second of simulated time, from the first DMM's
  arrival to the last DMR's departure on the responder's wire, beside line rate (1 488 095
  minimum frames per second at 1 Gb/s);
- the simulator's wall time for the run.

Then OpenKilda's ISL round trip (docs/isl.md) on the same network: N discovery packets back to
back from switch 0 (copy field) to switch 1 (group); T1 - T0 of every round trip against its
true value (from the wire truth, by switch 0's clock): max and RMS error.

Python 3 standard library only. Usage: bench/bench_oam.py --sim PATH [--count N]
"""

import argparse
import collections
import math
import os
import shutil
import struct
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import isl_frames as K  # noqa: E402
import oam_frames as F  # noqa: E402
import pktstats_sim  # noqa: E402
import test_sim_oam as T  # noqa: E402

R = pktstats_sim.registers()
SPACING_NS = 672
T.PPM = {0: 0, 1: -50}
T.OFFSET_NS = {0: 0, 1: 1500000000}


def network(work, duration_ms, inputs):
    """Switch 0 at 0 ppm, switch 1 at -50 ppm and 1.5 s ahead, 100 m between 0.1 and 1.2."""
    return ["--switches", "2", "--switch", "0:ppm=0",
            "--switch", "1:socket=%s,ppm=-50,offset=1.5s" % os.path.join(work, "s1.sock"),
            "--cable", "0.1-1.2,length=100m", "--wire-truth", os.path.join(work, "wire.csv"),
            "--duration", "%dms" % duration_ms] + inputs


def run_network(sim_binary, work, args, configure):
    """Runs the network; configure(conns) writes both switches' registers first."""
    sim = pktstats_sim.Simulator(os.path.abspath(sim_binary), work, args, name="s0", wait=True)
    try:
        with pktstats_sim.Connection(os.path.join(work, "s1.sock")) as s1:
            configure({0: sim, 1: s1})
            sim.request("start")
            status = sim.stop(interrupt=False)
    except BaseException:
        sim.kill()
        raise
    if status != 0:
        raise RuntimeError("pktstats-sim exited %d: %s" % (status, sim.log()))


def bench_isl(sim_binary, count):
    """OpenKilda's ISL round trip: count discovery packets back to back from switch 0 (copy
    field) to switch 1 (group); T1 - T0 of every round trip against the truth."""
    work = tempfile.mkdtemp(prefix="pktstats-bench-isl-")
    try:
        a, b, a_port, b_port = 0, 1, T.DM_PORT[0], T.DM_PORT[1]
        packets = [K.discovery(T.MEP[(a, a_port)], a_port, bytes([10, 0, 0, 1]), i) for i in range(count)]
        # One packet per the longest one's time on the wire (their tokens grow with their
        # numbers): preamble, FCS and gap 24 bytes, at 8 ns
        spacing = (max(len(p) for p in packets) + 24) * 8
        F.write_pcap(os.path.join(work, "discovery.pcap"), packets, spacing)
        cpu = 4 + a_port
        args = network(work, count * spacing // 10**6 + 2, [
            "--port", "0.%d:in=%s" % (cpu, os.path.join(work, "discovery.pcap")),
            "--port", "0.%d:out=%s" % (cpu, os.path.join(work, "up.pcap"))])

        def configure(conns):
            for k, p, features in ((a, a_port, "ISL_COPY_FIELD"), (b, b_port, "ISL_GROUP")):
                value = R["OAM_CONTROL_0_%s_MASK" % features] | R["OAM_CONTROL_0_CPU_BOUND_MASK"]
                T.configure_port(conns[k], p, value, T.MEP[(k, p)])
                conns[k].write(R["STAMP_TX_CORRECTION_%d" % p], T.TX_CORRECTION_NS)
                conns[k].write(R["STAMP_RX_CORRECTION_%d" % p], T.RX_CORRECTION_NS)
        wall = time.monotonic()
        run_network(sim_binary, work, args, configure)
        wall = time.monotonic() - wall
        truth = T.read_truth(os.path.join(work, "wire.csv"))
        errors = []
        for t, frame in F.read_pcap(os.path.join(work, "up.pcap")):
            arrived = F.with_stamp(frame, K.T1_OFFSET, (0, 0))
            left = arrived[:36] + struct.pack(">H", K.UDP_DISCOVERY) + arrived[38:]
            out_rows = truth.get((a, a_port, "tx", T.fnv1a64(left)), [])
            in_rows = truth.get((a, a_port, "rx", T.fnv1a64(arrived)), [])
            if len(out_rows) != 1 or len(in_rows) != 1:
                raise RuntimeError("a round trip without its legs in the truth")
            t0, t1 = (T.stamp_ns(F.stamp_at(frame, o)) for o in (K.T0_OFFSET, K.T1_OFFSET))
            true = T.clock_interval(in_rows[0]["true_time_ps"], out_rows[0]["true_time_ps"], a)
            errors.append(T.signed_diff(t1, t0) - true)
        if len(errors) != count:
            raise RuntimeError("%d round trips of %d" % (len(errors), count))
        rms = math.sqrt(sum(e * e for e in errors) / len(errors))
        print("%d ISL discovery packets (up to %d bytes) back to back over 100 m, copy field on "
              "switch 0, group on switch 1 (%.1f s wall)" % (count, max(len(p) for p in packets), wall))
        print("  round trip T1 - T0 error vs the truth: max %.2f ns, RMS %.2f ns"
              % (max(abs(e) for e in errors), rms))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bench_dm(sim_binary, count):
    """count DMMs back to back from switch 0 to switch 1's responder: two-way delay against
    the truth, the responder's throughput."""
    work = tempfile.mkdtemp(prefix="pktstats-bench-oam-")
    try:
        near, far = 0, 1
        peer = F.mac_bytes(T.MEP[(far, T.DM_PORT[far])])
        me = F.mac_bytes(T.MEP[(near, T.DM_PORT[near])])
        dmms = [F.dm(peer, me, F.OPCODE_DMM, level=T.LEVEL, data=struct.pack(">I", i)) for i in range(count)]
        F.write_pcap(os.path.join(work, "dmm.pcap"), dmms, SPACING_NS)
        cpu = 4 + T.DM_PORT[near]
        args = network(work, count * SPACING_NS // 10**6 + 2, [
            "--port", "0.%d:in=%s" % (cpu, os.path.join(work, "dmm.pcap")),
            "--port", "0.%d:out=%s" % (cpu, os.path.join(work, "up.pcap"))])

        def configure(conns):
            for k in (near, far):
                p = T.DM_PORT[k]
                T.configure_port(conns[k], p, T.control(dm=True, dm_responder=True, cpu_bound=True), T.MEP[(k, p)])
                conns[k].write(R["STAMP_TX_CORRECTION_%d" % p], T.TX_CORRECTION_NS)
                conns[k].write(R["STAMP_RX_CORRECTION_%d" % p], T.RX_CORRECTION_NS)
        wall = time.monotonic()
        run_network(sim_binary, work, args, configure)
        wall = time.monotonic() - wall
        truth = T.read_truth(os.path.join(work, "wire.csv"))
        legs = T.Legs(truth)
        result = collections.defaultdict(list)
        dmrs = [f for t, f in F.read_pcap(os.path.join(work, "up.pcap")) if f[15] == F.OPCODE_DMR]
        for frame in dmrs:
            T.check_dmr(legs, near, frame, result)
        errors = result["two_way_error"]
        if legs.problems or len(errors) != count:
            raise RuntimeError("%d DMRs of %d checked: %s" % (len(errors), count, "\n".join(legs.problems[:5])))
        responder = T.DM_PORT[far]
        arrivals = [r["true_time_ps"] for (k, p, d, h), rows in truth.items()
                    if (k, p, d) == (far, responder, "rx") for r in rows]
        departures = [r["true_time_ps"] for (k, p, d, h), rows in truth.items()
                      if (k, p, d) == (far, responder, "tx") for r in rows]
        span_ps = max(departures) - min(arrivals)
        # DMRs per second leaving the responder's port, first bit to first bit
        rate = (len(departures) - 1) * 1e12 / (max(departures) - min(departures))
        rms = math.sqrt(sum(e * e for e in errors) / len(errors))
        print("== link-delay engines (bench/bench_oam.py)")
        print("%d DMMs of 60 bytes at line rate over 100 m, switches 1.5 s and 50 ppm apart "
              "(simulated %.2f ms, %.1f s wall)" % (count, span_ps / 1e9, wall))
        print("  two-way delay error vs the truth: max %.2f ns, RMS %.2f ns (mean %.2f ns)"
              % (max(abs(e) for e in errors), rms, sum(errors) / len(errors)))
        print("  two-way delay vs 2 x cable (1000 ns): max %.2f ns off"
              % max(abs(v) for v in result["two_way_vs_cable"]))
        print("  responder throughput: %.0f DMMs answered per second (line rate: %.0f)"
              % (rate, 1e9 / SPACING_NS))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sim", required=True)
    parser.add_argument("--count", type=int, default=10000)
    options = parser.parse_args()
    bench_dm(options.sim, options.count)
    bench_isl(options.sim, options.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
