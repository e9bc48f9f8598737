#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The whole board top at its pins against pktstats-sim, on the same pcaps (issue 16, item 4).

    tb/board/test_board_top.py BOARD_TOP_SIM PKTSTATS_SIM PKTSTATS [--seed S] [--only NAME]

BOARD_TOP_SIM (tb/board/board_top_sim.cpp) is netfpga_1g_cml_top in Verilator: frames go in as
RGMII nibbles on its four PHYs' receive pins and are decoded off its transmit pins, its
registers are reached through the XDMA model's AXI4-Lite master and board_axil_cdc, its CPU
ports' frames leave through the card-to-host streams. PKTSTATS_SIM is the simulator users run,
with the C++ MAC model on each port. Both get the same input pcaps (random frames of 60 to 1514
bytes, their times multiples of 8 ns, flooded and unicast, several ports at once into the same
outputs so that queues fill and drop). Checked, per scenario:

  forwarding   every port's output frames are byte for byte the simulator's, in the same order,
               none missing or extra (the counts against the simulator's own); on the MAC
               ports every frame's first preamble byte is on the pins a constant time after
               the simulator's first-bit time for it, the same constant on all four ports
               (the board's receive path and its 16 ns to the pins; nothing else differs);
               the receive clocks at three phases against the switch clock.
  bad-frames   the same pcaps plus frames with a bad FCS, runts, giants, no SFD and RX_ER in
               the gaps: the outputs still equal the simulator's run without them, and the
               board's MAC counters (`pktstats mac counters show`) count every bad frame by
               its kind, the good frames and bytes received and the frames and bytes sent.
  registers    both configured through `pktstats -d sim:SOCKET` the same way (capture of
               every event of every queue at 8 ns, stat packets out of CPU port 7), then the
               same traffic: the stat packets' events are the simulator's, the same number,
               type, queue, length and occupancy, each at the simulator's time plus one
               constant; the queue counters read through the CLI are equal; `dev show` names
               the board's design.
  cpu-ports    frames of up to 9000 bytes between CPU ports 4 <-> 5 and 6 <-> 7, through the
               XDMA model's host-to-card and card-to-host streams on a user clock drifting
               against the switch clock: what each port sends comes out of its peer whole and
               in order, as out of the simulator.
  mdio         `pktstats mac mdio scan|read|write` through the XDMA model to the harness's
               clause-22 PHY models on the top's MDC/MDIO pins.

Randomized: prints its seed; `--seed S --only NAME` replays a scenario. TAP output.
"""

import argparse
import json
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
from oam_frames import read_pcap, write_timed_pcap as write_pcap  # noqa: E402
from tap_output import Tap  # noqa: E402

MAC_PORTS, PORTS = 4, 8


def mac(n):
    return bytes([2, 0, 0, 0, 0, n])


GAPS = (0, 1, 30, 100, 200, 400, 2000) # between frames, in 8 ns


def make_inputs(work, rng, frames_per_port, flood=True, gaps=GAPS):
    """in0..in3.pcap: each port's frames from its own source address 02:00:00:00:00:<port + 1>
    to one of the other ports' addresses and, with `flood`, to addresses never seen (flooded)
    and a broadcast first; gaps from `gaps` (back to back to 16 us), multiples of 8 ns."""
    paths = []
    for p in range(MAC_PORTS):
        frames, t = [], rng.randrange(0, 200) * 8
        for k in range(frames_per_port):
            size = rng.choice([60, 64, 65, 100, 256, 512, 1000, 1514, rng.randint(60, 1514)])
            if k == 0 and flood:
                dst = b"\xff" * 6
            elif flood and rng.random() < 0.2:
                dst = mac(0x40 + rng.randrange(4))  # never a source: flooded
            else:
                dst = mac(1 + rng.choice([q for q in range(MAC_PORTS) if q != p]))
            body = bytes(rng.randrange(256) for _ in range(size - 14))
            frames.append((t, dst + mac(1 + p) + b"\x08\x00" + body))
            t += 8 * rng.choice(gaps)
        path = os.path.join(work, "in%d.pcap" % p)
        write_pcap(path, frames)
        paths.append(path)
    return paths


def run(binary, work, name, inputs, extra=()):
    """Runs a simulator to the end on the inputs; returns {port: [(time_ns, bytes)]}."""
    args = [binary]
    for p, path in enumerate(inputs):
        args += ["--port", "%d:in=%s" % (p, path)]
    for p in range(PORTS):
        args += ["--port", "%d:out=%s" % (p, os.path.join(work, "%s-out%d.pcap" % (name, p)))]
    args += list(extra)
    result = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (name, result.returncode, result.stderr[-2000:]))
    return {p: read_pcap(os.path.join(work, "%s-out%d.pcap" % (name, p))) for p in range(PORTS)}


def padded(frame):
    return frame + bytes(max(0, 60 - len(frame)))


def compare_outputs(tap, name, board, sim):
    """Frames equal port by port; MAC ports at one constant offset. Returns the offset."""
    offsets = set()
    for p in sorted(sim):
        b, s = board[p], sim[p]
        first_difference = next((k for k, (x, y) in enumerate(zip(b, s))
                                 if padded(x[1]) != padded(y[1])), None)
        tap.point(len(b) == len(s) and len(s) > 0 and first_difference is None,
                  "%s: port %d: the board's %d frames are the simulator's %d, in order"
                  % (name, p, len(b), len(s)),
                  "first difference at frame %s" % first_difference)
        if p < MAC_PORTS:
            offsets |= {x[0] - y[0] for x, y in zip(b, s)}
    tap.point(len(offsets) == 1 and 0 < min(offsets) < 1000,
              "%s: every MAC port frame on the pins a constant time after the simulator's "
              "first bit (%s ns)" % (name, sorted(offsets)[:8]))
    return min(offsets) if offsets else None


def forwarding(tap, args, work, rng):
    inputs = make_inputs(work, rng, 300)
    sim = run(args.sim, work, "sim", inputs)
    found = set()
    for phase in (3000, 500, 7100):
        board = run(args.board, work, "board", inputs, ["--rx-phase", str(phase)])
        found.add(compare_outputs(tap, "forwarding, receive clock phase %d ps" % phase, board, sim))
    tap.comment("offsets found: %s ns" % sorted(x for x in found if x is not None))
    flooded = sum(len(sim[p]) for p in range(PORTS)) - 300 * MAC_PORTS
    tap.point(flooded > 0, "forwarding: frames were flooded (%d copies more than frames in)" % flooded)


BAD_KINDS = ("rx_fcs_errors", "rx_runts", "rx_giants", "rx_preamble_errors", "rx_errors")


def bad_frames(tap, args, work, rng):
    # gaps of 16 and 24 us among the others: room for the bad frames, giants included
    inputs = make_inputs(work, rng, 200, gaps=GAPS + (2000, 3000))
    sim = run(args.sim, work, "sim", inputs)
    port_args = input_arguments(dict(enumerate(inputs)))
    for p in range(PORTS):
        port_args += ["--port", "%d:out=%s" % (p, os.path.join(work, "board-out%d.pcap" % p))]
    for p in range(MAC_PORTS):
        port_args += ["--port", "%d:bad=25" % p]
    span_ns = max(read_pcap(path)[-1][0] for path in inputs)
    counters = served_run(args, args.board, work, "board", port_args, [], span_ns,
                          lambda socket: json.loads(cli(args, socket, "-j", "mac", "counters", "show")))
    board = {p: read_pcap(os.path.join(work, "board-out%d.pcap" % p)) for p in range(PORTS)}
    compare_outputs(tap, "bad frames in the gaps", board, sim)
    # The MAC counters against what was sent (the harness says how many bad frames it could
    # fit in the gaps: kinds in turn, bad FCS first) and what came out of the pins
    log = open(os.path.join(work, "board.err")).read()
    for p in range(MAC_PORTS):
        bad = int(re.search(r"port %d: \d+ frames in \((\d+) bad\)" % p, log).group(1))
        got = counters["ports"][p]
        sent = [frame for _, frame in read_pcap(inputs[p])]
        expected = {kind: len(range(k, bad, len(BAD_KINDS))) for k, kind in enumerate(BAD_KINDS)}
        expected.update(rx_frames=len(sent), rx_bytes=sum(max(60, len(f)) for f in sent),
                        rx_overflows=0, tx_frames=len(board[p]),
                        tx_bytes=sum(max(60, len(f)) for _, f in board[p]), tx_underruns=0)
        wrong = {k: (got.get(k), v) for k, v in expected.items() if got.get(k) != v}
        tap.point(bad >= 10 and not wrong, "bad frames: port %d: the MAC counters count the %d "
                  "frames sent and the %d bad ones by kind, the %d frames out" % (
                      p, len(sent), bad, len(board[p])),
                  "counter: (read, expected): %s" % wrong)


def cli(args, socket, *words):
    result = subprocess.run([args.cli, "-d", "sim:" + socket] + list(words), capture_output=True,
                            text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError("pktstats %s: %s" % (" ".join(words), result.stderr.strip()))
    return result.stdout


# Static entries: no frame is flooded, so none goes to port 7, and the stat packets have port 7
# to themselves. (When frames share the stat packets' port, when a stat packet goes out depends
# on when `capture start` came, a matter of wall-clock time; it holds up that port's frames,
# and through the queues the frames of other ports too: two runs of the same simulator differ
# then in the same way.)
CONFIGURATION = [["fdb", "add", "02:00:00:00:00:%02x" % (p + 1), "port", str(p), "static"]
                 for p in range(MAC_PORTS)] + [
    ["capture", "set", "resolution", "8ns", "queues", "all", "events", "all", "output-ports", "7",
     "flush-timeout", "20us"],
    ["counters", "clear"],
    ["capture", "start"],
]


def served_run(args, binary, work, name, port_args, configuration, span_ns, read_back):
    """Runs a simulator with --wait: configures it through the CLI, starts the traffic, lets it
    run the inputs' span and 400 us more, calls read_back(socket path), stops it. Returns
    what read_back returned."""
    # --duration long enough never to be reached: the run is stopped once everything is out
    with pktstats_sim.Simulator(binary, work, port_args + ["--duration", "100ms"], name=name,
                                wait=True) as s:
        for words in configuration:
            cli(args, s.socket_path, *words)
        end = s.start() + (span_ns + 400000) // 8
        while s.cycle() < end:
            time.sleep(0.01)
        result = read_back(s.socket_path)
        status = s.stop()
        if status != 0:
            raise RuntimeError("%s exited %d: %s" % (name, status, s.log()[-2000:]))
    return result


def input_arguments(inputs):
    return sum((["--port", "%d:in=%s" % (p, path)] for p, path in inputs.items()), [])


def registers(tap, args, work, rng):
    inputs = make_inputs(work, rng, 300, flood=False)
    span_ns = max(read_pcap(path)[-1][0] for path in inputs)
    outputs, identities, counters = {}, {}, {}
    for name, binary in (("sim", args.sim), ("board", args.board)):
        stats = os.path.join(work, "%s-stats.pcap" % name)

        def read_back(socket):
            identities[name] = json.loads(cli(args, socket, "-j", "dev", "show"))
            counters[name] = json.loads(cli(args, socket, "-j", "queue", "show"))

        served_run(args, binary, work, name, input_arguments(dict(enumerate(inputs)))
                   + ["--port", "7:out=" + stats], CONFIGURATION, span_ns, read_back)
        decoded = subprocess.run([args.cli, "-j", "decode", stats], capture_output=True, text=True,
                                 timeout=120)
        outputs[name] = [json.loads(line) for line in decoded.stdout.splitlines() if line.strip()]
    tap.point("design netfpga_1g_cml_top" in identities["board"].get("description", "") and
              identities["board"].get("magic") == identities["sim"].get("magic"),
              "registers: dev show through the XDMA's register path names the board's design",
              json.dumps(identities["board"])[:300])
    keys = ("type", "length_bytes", "occupancy_bytes")
    all_offsets = set()
    for q in range(MAC_PORTS):
        sim_events = [e for e in outputs["sim"] if e["queue"] == q]
        board_events = [e for e in outputs["board"] if e["queue"] == q]
        first = next((k for k, (a, b) in enumerate(zip(sim_events, board_events))
                      if any(a[key] != b[key] for key in keys)), None)
        tap.point(len(sim_events) == len(board_events) and first is None and len(sim_events) > 0,
                  "registers: queue %d: the board's %d events are the simulator's %d (type, "
                  "length, occupancy)" % (q, len(board_events), len(sim_events)),
                  "first difference at event %s: %s / %s" % (
                      first, first is not None and sim_events[first],
                      first is not None and board_events[first]))
        offsets = {b["time_ns"] - a["time_ns"] for a, b in zip(sim_events, board_events)}
        tap.comment("queue %d: time offsets %s" % (q, sorted(offsets)[:6]))
        all_offsets |= offsets
    tap.point(len(all_offsets) == 1, "registers: each event at the simulator's time plus one "
              "constant (%s ns)" % sorted(all_offsets)[:8])
    tap.point(counters.get("sim") is not None and counters.get("sim") == counters.get("board"),
              "registers: queue counters through the CLI equal",
              "sim %s\nboard %s" % (counters.get("sim"), counters.get("board")))


def cpu_ports(tap, args, work, rng):
    """The CPU ports in pairs, 4 <-> 5 and 6 <-> 7: frames of 60 to 9000 bytes, each port at
    0.5 or 1 Gb/s, through the XDMA model's streams on a clock drifting
    against the switch's (--pcie-period). Only bytes and order are compared: the streams cross
    into the switch clock, so the frames enter the switch a few clocks apart from the
    simulator's. (The offered load stays below what the switch's one word per clock carries:
    the simulator's CPU ports are wires with a receive FIFO that drops when the switch does
    not keep up, the board's host-to-card streams are flow-controlled and never drop.)"""
    inputs = cpu_inputs(work, rng, back_to_back=False)
    span_ns = max(read_pcap(path)[-1][0] for path in inputs.values())
    configuration = [["fdb", "add", "02:00:00:00:00:%02x" % (p + 1), "port", str(p), "static"]
                     for p in range(PORTS)]
    outputs = {}
    period = rng.choice([7990, 8001, 8013])
    for name, binary in (("sim", args.sim), ("board", args.board)):
        outputs[name] = served_cpu_run(args, binary, work, name, inputs, configuration, span_ns,
                                       ["--pcie-period", str(period)] if name == "board" else [])
    for p in range(MAC_PORTS, PORTS):
        b, s = outputs["board"][p], outputs["sim"][p]
        sent = [frame for _, frame in read_pcap(inputs[p ^ 1])]
        tap.point([x[1] for x in b] == [x[1] for x in s] == sent,
                  "cpu ports, user clock period %d ps: port %d: the %d frames out of the "
                  "card-to-host stream are the simulator's %d and the %d port %d sent, in order"
                  % (period, p, len(b), len(s), len(sent), p ^ 1))
    # The board alone, each host-to-card stream as fast as the switch takes it: flow
    # control, nothing lost (the simulator's CPU ports would drop here)
    inputs = cpu_inputs(work, rng, back_to_back=True)
    # all at t = 0: they take the switch's 8 bytes per clock (1 byte per ns) together
    span_ns = sum(len(frame) for path in inputs.values() for _, frame in read_pcap(path))
    board = served_cpu_run(args, args.board, work, "board", inputs, configuration, span_ns,
                           ["--pcie-period", str(period)])
    for p in range(MAC_PORTS, PORTS):
        sent = [frame for _, frame in read_pcap(inputs[p ^ 1])]
        tap.point([x[1] for x in board[p]] == sent,
                  "cpu ports, back to back: port %d: the %d frames out of the card-to-host stream "
                  "are the %d port %d sent, in order" % (p, len(board[p]), len(sent), p ^ 1))


def cpu_inputs(work, rng, back_to_back):
    """in4..in7.pcap: 60 frames of 60 to 9000 bytes from each CPU port to its peer (p ^ 1)."""
    inputs = {}
    for p in range(MAC_PORTS, PORTS):
        peer = p ^ 1
        frames, t = [], 0
        for _ in range(60):
            size = rng.choice([60, 61, 64, 127, 1514, 4000, 9000, rng.randint(60, 9000)])
            body = bytes(rng.randrange(256) for _ in range(size - 14))
            frames.append((t, mac(1 + peer) + mac(1 + p) + b"\x08\x00" + body))
            if not back_to_back:
                t += 8 * size * rng.choice([1, 2])  # 1 Gb/s or 0.5 Gb/s
        inputs[p] = os.path.join(work, "in%d.pcap" % p)
        write_pcap(inputs[p], frames)
    return inputs


def served_cpu_run(args, binary, work, name, inputs, configuration, span_ns, extra):
    """Runs the CPU ports' inputs; returns {port: [(time_ns, bytes)]} of ports 4..7."""
    port_args = input_arguments(inputs) + extra + sum(
        (["--port", "%d:out=%s" % (p, os.path.join(work, "%s-out%d.pcap" % (name, p)))]
         for p in range(MAC_PORTS, PORTS)), [])
    served_run(args, binary, work, name, port_args, configuration, span_ns, lambda socket: None)
    return {p: read_pcap(os.path.join(work, "%s-out%d.pcap" % (name, p)))
            for p in range(MAC_PORTS, PORTS)}


def mdio(tap, args, work, rng):
    """The PHYs through the CLI: `mac mdio scan` finds the harness's four PHYs (MDIO addresses
    1..4, identifier 0x7070500N) and nothing else; a write reads back; an address with no PHY
    reads 0xffff. The harness's PHY model checks the master's timing on every bit and makes the
    run fail on a violation."""
    results = {}
    register, value = rng.randrange(16, 32), rng.randrange(0x10000)

    def read_back(socket):
        results["scan"] = json.loads(cli(args, socket, "-j", "mac", "mdio", "scan"))
        cli(args, socket, "mac", "mdio", "write", "3", str(register), "0x%04x" % value)
        results["read"] = json.loads(cli(args, socket, "-j", "mac", "mdio", "read", "3",
                                         str(register)))
        results["absent"] = json.loads(cli(args, socket, "-j", "mac", "mdio", "read", "9", "2"))

    # the scan's 64 frames take 2.2 ms of simulated time
    served_run(args, args.board, work, "board", [], [], 3000000, read_back)
    found = [(p["phy"], p["id"]) for p in results["scan"]["phys"]]
    tap.point(found == [(a, 0x70705000 + a) for a in range(1, 5)],
              "mdio: the scan finds the PHYs at 1..4 and no other (%s)" % found)
    tap.point(results["read"].get("value") == value and results["read"].get("answered") is True,
              "mdio: PHY 3 register %d reads back 0x%04x (%s)" % (register, value, results["read"]))
    tap.point(results["absent"].get("value") == 0xffff and results["absent"].get("answered") is False,
              "mdio: address 9, no PHY, reads 0xffff (%s)" % results["absent"])
    log = open(os.path.join(work, "board.err")).read()
    frames = re.search(r"MDIO: (\d+) frames(.*)", log)
    tap.point(frames is not None and int(frames.group(1)) == 64 + 3 and not frames.group(2),
              "mdio: the PHY model saw the 67 frames, no timing violation",
              frames.group(0) if frames else log[-500:])


SCENARIOS = {"forwarding": forwarding, "bad-frames": bad_frames, "registers": registers,
             "cpu-ports": cpu_ports, "mdio": mdio}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("board")
    parser.add_argument("sim")
    parser.add_argument("cli")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--only", choices=sorted(SCENARIOS))
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    tap = Tap()
    tap.comment("seed %d (replay: --seed %d --only NAME)" % (seed, seed))
    work = tempfile.mkdtemp(prefix="test_board_top.")
    try:
        for name, scenario in SCENARIOS.items():
            if args.only and name != args.only:
                continue
            rng = random.Random("%d/%s" % (seed, name))
            try:
                scenario(tap, args, work, rng)
            except Exception as e:  # a crash is a failed point, the others still run
                tap.point(False, "%s: ran" % name, repr(e))
    finally:
        if os.environ.get("KEEP_WORK"):
            tap.comment("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
