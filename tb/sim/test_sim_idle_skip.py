#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pktstats-sim's idle skip and threads change nothing but the speed.

    tb/sim/test_sim_idle_skip.py build/bin/pktstats-sim [--seed S] [--only NAME]

Each scenario runs twice, configured by --write (so that both runs are the same, clock for
clock):
  - with --idle-skip=check: every skip is also clocked, and the whole Verilated model after the
    skip is compared with the model after the clocks, member by member (sim/model_state.h);
    the run fails at the first difference. Its outputs are those of clocking every clock.
  - with --idle-skip=on (the default): skips only.
The two runs' pcaps, occupancy truth, wire truth and summary (the queue counters the simulator
reads through the register bus at the end) must be byte-identical, and the skipping run must
have skipped most of the run's clocks (or the test would not test anything).

Scenarios:
  - sparse-capture: sparse traffic of random sizes on four ports, capture on with a random
    flush timeout and resolution: skips end at frames and at the open stat packet's timeout;
  - bursts: on/off bursts at line rate from three ports into one (queue drops), idle between;
  - flowlat: the flow-latency monitor and its IPFIX exporter (events waiting for their flush
    timeout, templates every second, the time of day crossing a second in the run);
  - network: two switches with oscillators ppm apart and clocks offset, a 2 km cable, wire
    truth, captures on both;
  - socket: a register socket nobody uses (skips end at its polls), flush timeouts between.
Then two networks run on one thread and on several (--threads), whose outputs and summaries
must be byte-identical too:
  - threads-busy: two switches, every port busy, floods both ways across a 100 m cable;
  - threads-chain: three switches in a line (2 km, 300 m), bursts with idle gaps (each switch
    skips within its windows), oscillators and clocks apart, on three threads.
Then one run that only skips, over 2.6 s of simulated time: the learning table's entries age
out at its ticks (one a second), so a frame to an address learned at the start is sent to its
port at 0.5 s and 1.5 s, and flooded at 2.5 s.

The scenarios' random choices come from --seed (default: a new one, printed).
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
from oam_frames import read_pcap, write_timed_pcap  # noqa: E402
from tap_output import Tap  # noqa: E402

# flowlat rule 0: valid, all four MAC ports' egress, any protocol and ports, profile 0
FLOWLAT_RULE_ANY = (1 << 31) | (0xF << 24) | (1 << 22) | (1 << 21) | (1 << 20)


def sparse_capture(rng):
    timeout = rng.choice([2000, 5000, 20000])  # 16..160 us: shorter than the gaps
    args = ["--write", "evcap.output_ports=0x80", "--write", "evcap.resolution=%d" % rng.randrange(8),
            "--write", "evcap.flush_timeout=%d" % timeout, "--write", "evcap.control=1",
            "--port", "7:out=stats.pcap", "--truth", "truth.csv", "--duration", "8ms"]
    for port in range(4):
        rate = rng.uniform(0.0002, 0.002)
        args += ["--port", "%d:gen=%.6f,size=60-1514,to=%d,seed=%d"
                 % (port, rate, (port + 1) % 4, rng.randrange(1 << 30)), "--port", "%d:out=out%d.pcap" % (port, port)]
    return args


def bursts(rng):
    args = ["--write", "evcap.output_ports=0x10", "--write", "evcap.control=1",
            "--port", "4:out=stats.pcap", "--port", "3:out=out3.pcap", "--truth", "truth.csv",
            "--duration", "6ms"]
    for port in range(3):
        args += ["--port", "%d:gen=1,size=imix,to=3,on=%dus,off=%dus,seed=%d"
                 % (port, rng.randrange(5, 40), rng.randrange(500, 1500), rng.randrange(1 << 30))]
    return args


def flowlat(rng):
    # The time of day starts 5 ms before a second: the exporter's template is due again there
    return ["--switch", "0:offset=0.995s,truth=truth.csv",
            "--write", "flowlat.rule_control_0=%d" % FLOWLAT_RULE_ANY,
            "--write", "flowlat.flush_timeout_us=%d" % rng.choice([100, 300, 1000]),
            "--write", "flowlat.template_interval_s=1",
            "--write", "flowlat.control=0x803",
            "--port", "3:out=ipfix.pcap", "--duration", "12ms",
            "--port", "0:gen=%.6f,size=60-1514,to=1,seed=%d"
            % (rng.uniform(0.0005, 0.002), rng.randrange(1 << 30)), "--port", "0:out=out0.pcap",
            "--port", "2:gen=0.05,size=60,to=1,on=20us,off=2ms,seed=%d" % rng.randrange(1 << 30),
            "--port", "1:out=out1.pcap"]


def network(rng):
    return ["--switches", "2",
            "--switch", "0:ppm=%d,offset=%dus,truth=truth0.csv" % (rng.randrange(-100, 101), rng.randrange(10**6)),
            "--switch", "1:ppm=%d,offset=1.5s,truth=truth1.csv" % rng.randrange(-100, 101),
            "--cable", "0.1-1.2,length=2km", "--wire-truth", "wire.csv",
            "--write", "0:evcap.output_ports=0x8", "--write", "0:evcap.control=1",
            "--write", "1:evcap.output_ports=0x4", "--write", "1:evcap.flush_timeout=30000",
            "--write", "1:evcap.control=1",
            "--port", "0.3:out=stats0.pcap", "--port", "1.2:out=stats1.pcap",
            "--port", "0.0:gen=%.6f,size=60-1514,to=1,seed=%d" % (rng.uniform(0.0005, 0.002), rng.randrange(1 << 30)),
            "--port", "1.0:gen=0.001,size=imix,to=2,seed=%d" % rng.randrange(1 << 30),
            "--port", "1.3:gen=0.02,on=20us,off=2ms,to=2,seed=%d" % rng.randrange(1 << 30),
            "--duration", "10ms"]


def socket(rng):
    # Flush timeouts of 20 us: some come between two polls of the socket, right after a skip
    return ["--socket", "sim.sock", "--truth", "truth.csv", "--duration", "4ms",
            "--write", "evcap.output_ports=0x40", "--write", "evcap.flush_timeout=2500",
            "--write", "evcap.control=1", "--port", "6:out=stats.pcap",
            "--port", "0:gen=%.6f,size=60-1514,to=1,seed=%d"
            % (rng.uniform(0.0005, 0.002), rng.randrange(1 << 30)), "--port", "0:out=out0.pcap",
            "--port", "1:out=out1.pcap"]


SCENARIOS = [("sparse-capture", sparse_capture), ("bursts", bursts), ("flowlat", flowlat),
             ("network", network), ("socket", socket)]


def threads_busy(rng):
    """Two switches, every port busy, floods across a 100 m cable both ways."""
    args = ["--switches", "2",
            "--switch", "0:ppm=%d,truth=truth0.csv" % rng.randrange(-100, 101),
            "--switch", "1:ppm=%d,offset=1.5s,truth=truth1.csv" % rng.randrange(-100, 101),
            "--cable", "0.1-1.1,length=100m", "--wire-truth", "wire.csv", "--duration", "1ms",
            "--port", "0.0:out=stats0.pcap", "--port", "1.0:out=stats1.pcap"]
    for k in (0, 1):
        args += ["--write", "%d:evcap.output_ports=0x1" % k, "--write", "%d:evcap.control=1" % k]
        for p in (2, 3, 4, 5):
            args += ["--port", "%d.%d:gen=%.2f,size=imix,seed=%d" % (k, p, rng.uniform(0.3, 1), rng.randrange(1 << 30))]
    return args


def threads_chain(rng):
    """Three switches in a line (2 km and 300 m), bursts with idle gaps: skips within windows."""
    args = ["--switches", "3", "--cable", "0.1-1.2,length=2km", "--cable", "1.3-2.0,length=300m",
            "--wire-truth", "wire.csv", "--duration", "4ms"]
    for k in range(3):
        args += ["--switch", "%d:ppm=%d,offset=%dus,truth=truth%d.csv" % (k, rng.randrange(-200, 201), rng.randrange(10**6), k),
                 "--write", "%d:evcap.output_ports=0x80" % k, "--write", "%d:evcap.flush_timeout=%d" % (k, rng.choice([3000, 30000])),
                 "--write", "%d:evcap.control=1" % k, "--port", "%d.7:out=stats%d.pcap" % (k, k),
                 "--port", "%d.4:gen=%.2f,size=60-1514,on=30us,off=500us,seed=%d" % (k, rng.uniform(0.2, 1), rng.randrange(1 << 30))]
    return args


THREAD_SCENARIOS = [("threads-busy", threads_busy, 2), ("threads-chain", threads_chain, 3)]


def run(simulator, work, args, mode):
    os.makedirs(work)
    result = subprocess.run([simulator, "--idle-skip=" + mode] + args, cwd=work, capture_output=True,
                            text=True, timeout=600)
    return result


def summary_lines(text):
    """The summary without what depends on the wall clock or on skipping."""
    return [line for line in text.splitlines()
            if "wall" not in line and "idle clocks skipped" not in line and not line.startswith("threads:")]


def skipped_fraction(text):
    skipped = total = 0
    for line in text.splitlines():
        words = line.split()
        if line.startswith("idle clocks skipped:"):
            skipped += int(words[3])
        elif line.startswith("simulated") and "clocks (traffic" in line:
            total += int(words[words.index("clocks") - 1])
    return skipped / total if total else 0.0


def compare(tap, simulator, base, name, args):
    """The scenario with --idle-skip=check against --idle-skip=on."""
    check_dir, skip_dir = os.path.join(base, name, "check"), os.path.join(base, name, "skip")
    checked = run(simulator, check_dir, args, "check")
    tap.point(checked.returncode == 0 and "each checked against clocking them" in checked.stdout,
              "%s: every skip leaves the model exactly as clocking its clocks does" % name,
              "exit %d\n%s%s" % (checked.returncode, checked.stderr, checked.stdout[-2000:]))
    skipped = run(simulator, skip_dir, args, "on")
    fraction = skipped_fraction(skipped.stdout)
    tap.point(skipped.returncode == 0 and fraction > 0.5,
              "%s: the skipping run skips most clocks (%.1f%%)" % (name, 100 * fraction),
              "exit %d\n%s%s" % (skipped.returncode, skipped.stderr, skipped.stdout[-2000:]))
    same_outputs(tap, name, check_dir, skip_dir, checked, skipped)


def compare_threads(tap, simulator, base, name, args, threads):
    """The scenario on one thread against `threads` threads (idle skip on in both)."""
    one_dir, many_dir = os.path.join(base, name, "one"), os.path.join(base, name, "many")
    one = run(simulator, one_dir, args + ["--threads", "1"], "on")
    many = run(simulator, many_dir, args + ["--threads", str(threads)], "on")
    tap.point(one.returncode == 0 and many.returncode == 0 and "threads: %d," % threads in many.stdout
              and "threads:" not in one.stdout,
              "%s: runs on 1 thread and on %d" % (name, threads),
              "exit %d, %d\n%s%s\n%s%s" % (one.returncode, many.returncode, one.stderr, one.stdout[-1500:],
                                           many.stderr, many.stdout[-1500:]))
    same_outputs(tap, name, one_dir, many_dir, one, many)


def same_outputs(tap, name, check_dir, skip_dir, checked, skipped):
    """Every output file and the summary of two runs are the same."""
    outputs = sorted(f for f in os.listdir(check_dir) if f.endswith((".pcap", ".csv")))
    different = [f for f in outputs
                 if not os.path.exists(os.path.join(skip_dir, f))
                 or open(os.path.join(check_dir, f), "rb").read() != open(os.path.join(skip_dir, f), "rb").read()]
    sizes = ", ".join("%s %d B" % (f, os.path.getsize(os.path.join(check_dir, f))) for f in outputs)
    tap.point(outputs and not different and sorted(os.listdir(skip_dir)) == sorted(os.listdir(check_dir)),
              "%s: %d outputs byte-identical (%s)" % (name, len(outputs), sizes),
              "different: %s; files %s against %s" % (different, sorted(os.listdir(check_dir)),
                                                       sorted(os.listdir(skip_dir))))
    a, b = summary_lines(checked.stdout), summary_lines(skipped.stdout)
    tap.point(a == b and any(line.startswith("queue ") for line in a),
              "%s: the summaries are identical, queue counters read from the switch included" % name,
              "\n".join(x + " | " + y for x, y in zip(a, b) if x != y)[:3000])


def ageing(tap, simulator, base):
    """Entries age out at the table's ticks, one a second, skipped over."""
    work = os.path.join(base, "ageing")
    os.makedirs(work)
    learned = bytes.fromhex("020000000001")
    # Port 0 sends one frame from `learned` at the start; port 1 one to an unknown address at
    # the start (a pcap's times count from its first frame), then three to `learned`
    write_timed_pcap(os.path.join(work, "from0.pcap"), [(0, bytes.fromhex("020000000002") + learned + b"\x88\xb5" + bytes(46))])
    write_timed_pcap(os.path.join(work, "to0.pcap"),
               [(0, bytes.fromhex("020000000009") + bytes.fromhex("020000000003") + b"\x88\xb5" + bytes(46))] +
               [(t, learned + bytes.fromhex("020000000003") + b"\x88\xb5" + bytes([k + 1]) * 46)
                for k, t in enumerate((500 * 10**6, 1500 * 10**6, 2500 * 10**6))])
    args = ["--write", "switch.ageing_time=1", "--port", "0:in=from0.pcap", "--port", "0:out=out0.pcap",
            "--port", "1:in=to0.pcap", "--port", "2:out=out2.pcap", "--duration", "2.6s"]
    started = time.monotonic()
    try:
        result = subprocess.run([simulator, "--idle-skip=on"] + args, cwd=work, capture_output=True, text=True,
                                timeout=120)
    except subprocess.TimeoutExpired:
        tap.point(False, "ageing: 2.6 s of simulated time within 120 s", "clocked, not skipped?")
        return
    wall = time.monotonic() - started
    if not tap.point(result.returncode == 0, "ageing: 2.6 s of simulated time in %.3f s" % wall,
                     result.stderr + result.stdout[-2000:]):
        return
    to_port0 = [t // 10**6 for t, _ in read_pcap(os.path.join(work, "out0.pcap"))]
    flooded = [t // 10**6 for t, _ in read_pcap(os.path.join(work, "out2.pcap"))]
    # The two frames of the start are flooded
    tap.point(to_port0 == [0, 500, 1500, 2500] and flooded == [0, 0, 2500],
              "ageing: the learned address is aged out between its second and third tick: frames "
              "to it reach port 0 at 0.5, 1.5 and 2.5 s, and only the one at 2.5 s is flooded",
              "port 0 got frames at %s ms, port 2 at %s ms" % (to_port0, flooded))
    fraction = skipped_fraction(result.stdout)
    tap.point(fraction > 0.99, "ageing: %.4f%% of the clocks skipped" % (100 * fraction), result.stdout[-2000:])


def usage_errors(tap, simulator):
    for args, words in ((["--idle-skip=sometimes"], "--idle-skip 'sometimes'"),
                        (["--write", "evcap.nothing=1"], "no register 'evcap.nothing'"),
                        (["--write", "id.magic=1"], "read-only"),
                        (["--write", "evcap.control=0x100000000"], "not a number of 32 bits"),
                        (["--write", "evcap.control"], "expected [K:]REGISTER=VALUE")):
        result = subprocess.run([simulator] + args, capture_output=True, text=True, timeout=60)
        tap.point(result.returncode == 2 and words in result.stderr,
                  "%s: exit 2, says %r" % (" ".join(args), words), "exit %d: %s" % (result.returncode, result.stderr))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("--seed", type=int, help="seed of the scenarios' random choices")
    parser.add_argument("--only", help="one scenario (or 'ageing', 'usage')")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap = Tap()
    tap.comment("seed %d (replay: %s SIMULATOR --seed %d [--only NAME])" % (seed, sys.argv[0], seed))
    simulator = os.path.abspath(options.simulator)
    base = tempfile.mkdtemp(prefix="pktstats-idle-skip-")
    try:
        for name, scenario in SCENARIOS:
            if options.only not in (None, name):
                continue
            args = scenario(random.Random("%d %s" % (seed, name)))
            tap.comment("%s: %s" % (name, " ".join(args)))
            try:
                compare(tap, simulator, base, name, args)
            except Exception as error:  # a broken run is a failure, not a crash of the suite
                tap.point(False, "%s: run" % name, repr(error))
        for name, scenario, threads in THREAD_SCENARIOS:
            if options.only not in (None, name):
                continue
            args = scenario(random.Random("%d %s" % (seed, name)))
            tap.comment("%s: %s" % (name, " ".join(args)))
            try:
                compare_threads(tap, simulator, base, name, args, threads)
            except Exception as error:
                tap.point(False, "%s: run" % name, repr(error))
        if options.only in (None, "ageing"):
            ageing(tap, simulator, base)
        if options.only in (None, "usage"):
            usage_errors(tap, simulator)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
