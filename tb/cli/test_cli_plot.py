#!/usr/bin/env python3
"""`pktstats plot` against the simulator's ground truth. Prints TAP.

usage: test_cli_plot.py PATH/TO/pktstats PATH/TO/pktstats-sim

Runs an incast on the simulator (ports 0, 1 and 2 to port 3, queue 3 limited to 1000 words, so
it fills and drops; stat packets on CPU port 7 into a pcap; the true occupancy into a CSV),
then `pktstats plot ... --data DIR`, and checks what gnuplot was given against the truth, which
the plot never saw:
  - the PNG is a 1600x900 PNG;
  - queue 3's highest plotted occupancy is its true peak, and its lowest is 0 somewhere;
  - a drop mark exists, and only for the queue that dropped;
  - every true change of queue 3 lies inside the band plotted for its time step;
  - the time axis spans the capture (ms for a few ms);
and that bad invocations exit 2 (usage) or 1 (unreadable file, no stat packets).
"""

import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import pktstats_sim  # noqa: E402

results = []


def check(name, passed, detail=""):
    results.append((name, bool(passed), detail))


def read_columns(path):
    with open(path) as f:
        return [tuple(float(x) for x in line.split()) for line in f if line.strip()]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    cli, sim_binary = (os.path.abspath(a) for a in sys.argv[1:3])
    R = pktstats_sim.registers()
    with tempfile.TemporaryDirectory(prefix="pktstats-plot-test.") as work:
        pcap, truth = os.path.join(work, "stats.pcap"), os.path.join(work, "truth.csv")
        args = ["--port", "0:gen=0.6,to=3", "--port", "1:gen=0.6,to=3",
                "--port", "2:gen=0.6,to=3,size=60-1514", "--port", f"7:out={pcap}",
                "--truth", truth, "--duration", "3ms", "--seed", "3"]
        with pktstats_sim.Simulator(sim_binary, work, args, wait=True) as sim:
            sim.add_port_entries()  # static entries: nothing flooded to other queues
            sim.write(R["SWITCH_QUEUE_LIMIT_3"], 1000)
            sim.write(R["EVCAP_OUTPUT_PORTS"], 0x80)
            sim.write(R["EVCAP_FLUSH_TIMEOUT"], 1250)
            sim.write(R["EVCAP_CONTROL"], 1)
            sim.request("start")
            sim.stop(interrupt=False)  # runs to --duration

        data = os.path.join(work, "data")
        png = os.path.join(work, "q.png")
        proc = subprocess.run([cli, "plot", pcap, "-o", png, "--data", data],
                              capture_output=True, text=True, timeout=120)
        check("plot exits 0", proc.returncode == 0, proc.stderr)
        with open(png, "rb") as f:
            head = f.read(24)
        width, height = struct.unpack(">II", head[16:24]) if len(head) == 24 else (0, 0)
        check("a 1600x900 PNG", head[:8] == b"\x89PNG\r\n\x1a\n" and (width, height) == (1600, 900),
              f"{head[:8]!r} {width}x{height}")

        # The truth: queue 3's occupancy in words after each change, by clock
        changes = []
        with open(truth) as f:
            next(f)
            for line in f:
                cycle, queue, occupancy = (int(x) for x in line.split(","))
                if queue == 3:
                    changes.append((cycle, occupancy))
        peak_bytes = max(o for _, o in changes) * 8
        script = open(os.path.join(data, "plot.gp")).read()
        kib = "(KiB)" in script
        scale = 1 / 1024 if kib else 1
        band = read_columns(os.path.join(data, "queue3.dat"))
        highest = max(h for _, _, h in band)
        check("queue 3's highest plotted occupancy is its true peak",
              abs(highest - peak_bytes * scale) < 1e-6, f"{highest} vs {peak_bytes * scale}")
        check("queue 3 is drawn down to empty", min(lo for _, lo, _ in band) == 0)
        drops3 = read_columns(os.path.join(data, "drops3.dat"))
        others = [q for q in range(8) if q != 3 and os.path.exists(os.path.join(data, f"drops{q}.dat"))
                  and read_columns(os.path.join(data, f"drops{q}.dat"))]
        check("drops are marked on queue 3 only", drops3 and not others, f"others {others}")
        unit = script.split("time since the first stat packet (", 1)[1].split(")", 1)[0]
        check("the time axis is in \u00b5s for a 3 ms capture", unit == "\u00b5s", unit)
        per_ns = {"\u00b5s": 1e-3, "ms": 1e-6, "s": 1e-9}.get(unit, 1e-3)

        # Every true change of queue 3 inside the band of its time step. The plot's time runs
        # from the first stat packet's first timestamp (the truth's clocks are the timer's).
        decoded = subprocess.run([cli, "-j", "decode", "--summary", pcap], capture_output=True,
                                 text=True, timeout=120)
        import json
        summary = json.loads(decoded.stdout)
        first_ns, span_ns = summary["first_ns"], summary["span_ns"]
        steps = len(band) and 2000
        outside = []
        times = [t for t, _, _ in band]
        for cycle, occupancy in changes:
            t_ns = cycle * 8
            if t_ns < first_ns or t_ns > first_ns + span_ns:
                continue
            b = int((t_ns - first_ns) / span_ns * (steps - 1))
            t = span_ns * b / (steps - 1) * per_ns
            row = min(range(len(times)), key=lambda i: abs(times[i] - t))
            _, lo, hi = band[row]
            value = occupancy * 8 * scale
            if not (lo - 1e-9 <= value <= hi + 1e-9):
                outside.append((cycle, occupancy, lo, hi))
        check("every true change lies inside its time step's band", not outside and changes,
              f"{len(outside)} of {len(changes)} outside, first {outside[:3]}")

        empty = os.path.join(work, "empty.pcap")
        with open(empty, "wb") as f:  # a valid pcap with no packet
            f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for name, argv, code in [
                ("no -o", [pcap], 2),
                ("--queues 9", [pcap, "-o", png, "--queues", "9"], 2),
                ("unknown option", [pcap, "-o", png, "--colour", "red"], 2),
                ("no file", ["-o", png], 2),
                ("standard input", ["-", "-o", png], 2),
                ("a missing file", [os.path.join(work, "nope.pcap"), "-o", png], 1),
                ("a capture without stat packets", [empty, "-o", png], 1)]:
            proc = subprocess.run([cli, "plot", *argv], capture_output=True, text=True, timeout=60)
            lines = proc.stderr.strip().splitlines()
            check(f"{name}: exit {code}, one line", proc.returncode == code and len(lines) == 1
                  and lines[0].startswith("pktstats: plot"),
                  f"exit {proc.returncode}: {proc.stderr!r}")

    for i, (name, passed, detail) in enumerate(results, 1):
        print(f"{'ok' if passed else 'not ok'} {i} - {name}")
        if not passed and detail:
            print(f"# {detail}")
    print(f"1..{len(results)}")
    return 0 if all(p for _, p, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
