#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every way a pktstats-sim run ends leaves every event the switch made in its stat packets.

    tb/sim/test_sim_end.py build/bin/pktstats-sim build/asan/bin/pktstats [--seed S]

The scenario of issue 11: bursty traffic of 60..1514-byte frames from three MAC ports and a
CPU port into an incast on port 3 (so that queue 3 is full and a stat packet is open when the
run ends), stat packets on CPU port 7, flush timeout 100 us, capture of every queue and event.
It ends in each of the three ways a run ends:
  - exhausted: every generator has a count=, no --duration: the inputs run out;
  - duration:  --duration in the middle of the traffic;
  - sigint:    SIGINT in the middle of the traffic.
Each time, the stat packets (decoded by `pktstats -j decode --summary`, the production decoder)
must hold, per queue, as many arrivals, departures and drops as the switch's own counters
(frames stored, removed, dropped, which the simulator reads through the register bus at the
end), with no lost packet and no M flag, and as many events as evcap says it sent.

A fourth run checks the way out of a long drain: with 1 Mb/s CPU ports, draining queue 7 takes
about 200 ms of simulated time; a second SIGINT must stop it at once and the summary must say
that events may be missing.

The generators' seeds come from --seed (default: a new one, printed); --seed S replays a run.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
from tap_output import Tap  # noqa: E402

R = pktstats_sim.registers()
PORTS = 8
STAT_PORT = 7


def traffic(counted):
    """--port arguments: the incast, each generator with count= when `counted`."""
    def count(n):
        return ",count=%d" % n if counted else ""
    ports = ["%d:gen=0.7,size=60-1514,to=3,on=200us,off=150us%s" % (p, count(300)) for p in (0, 1, 2)]
    ports.append("4:gen=0.02,size=60-1514,to=3,on=100us,off=100us%s" % count(200))
    ports.append("5:gen=0.05,size=imix,to=1%s" % count(600))
    return [a for p in ports for a in ("--port", p)]


def configure(sim):
    """Static table entries (no flooding), queue 3's limit, capture of everything to port 7."""
    sim.add_port_entries()
    sim.write(R["SWITCH_QUEUE_LIMIT_0"] + 4 * 3, 1500)
    sim.write(R["EVCAP_OUTPUT_PORTS"], 1 << STAT_PORT)
    sim.write(R["EVCAP_FLUSH_TIMEOUT"], 12500)  # 100 us
    sim.write(R["EVCAP_CONTROL"], 1)


def decode_summary(cli, pcap):
    result = subprocess.run([cli, "-j", "decode", "--summary", pcap], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError("pktstats decode: " + result.stderr.strip())
    return json.loads(result.stdout)


def run_ending(tap, sim_binary, cli, work, ending, seed):
    stats = os.path.join(work, "stats.pcap")
    args = ["--seed", str(seed), "--port", "%d:out=%s" % (STAT_PORT, stats)]
    args += traffic(counted=ending == "exhausted")
    if ending == "duration":
        args += ["--duration", "2500us"]
    sim = pktstats_sim.Simulator(sim_binary, work, args, wait=True)
    try:
        configure(sim)
        sim.request("start")
        start = sim.cycle()
        if ending == "sigint":
            while sim.cycle() < start + 2_500_000 // 8:
                time.sleep(0.01)
            # Queue 3 must be busy when the run is interrupted, or nothing is left to drain. The
            # traffic comes in bursts: with some seeds queue 3 is empty at 2.5 ms (seed 795613994),
            # so the interrupt waits for a busy moment, up to 5 ms.
            busy = sim.read(R["SWITCH_QUEUE_OCCUPANCY_0"] + 4 * 3)
            while busy == 0 and sim.cycle() < start + 5_000_000 // 8:
                busy = sim.read(R["SWITCH_QUEUE_OCCUPANCY_0"] + 4 * 3)
            status = sim.stop()
        else:
            busy = None
            status = sim.stop(interrupt=False)
    except BaseException:
        sim.kill()
        raise
    output = sim.output()
    tap.comment(output)
    summary = pktstats_sim.parse_summary(output)
    decoded = decode_summary(cli, stats)

    tap.point(status == 0 and summary["complete"] and summary["flush"] is not None,
              "%s: exit 0, the summary says drained and flushed" % ending, sim.log())
    if busy is not None:
        tap.point(busy > 0, "sigint: interrupted with %d words in queue 3" % busy)
    problems = []
    for q in range(PORTS):
        got = next(([x["arrivals"], x["departures"], x["drops"]] for x in decoded["queues"]
                    if x["queue"] == q), [0, 0, 0])
        if got != summary["queues"][q]:
            problems.append("queue %d: decoded %s, switch %s" % (q, got, summary["queues"][q]))
    stored = sum(summary["queues"][q][0] for q in range(PORTS))
    drops = sum(summary["queues"][q][2] for q in range(PORTS))
    tap.point(not problems and drops > 0,
              "%s: decoded arrivals, departures and drops of every queue equal the switch's "
              "counters (%d frames stored, %d dropped)" % (ending, stored, drops),
              "; ".join(problems))
    tap.point(decoded["events"] == summary["events"] and summary["missed"] == 0 and
              decoded["lost"] == 0 and decoded["m_flags"] == 0 and decoded["malformed"] == 0,
              "%s: %d events decoded = %d evcap sent; 0 missed (%d), 0 lost (%d), 0 M flags (%d), "
              "0 malformed (%d)" % (ending, decoded["events"], summary["events"], summary["missed"],
                                    decoded["lost"], decoded["m_flags"], decoded["malformed"]))


def run_second_signal(tap, sim_binary, work, seed):
    # Queue 7 (a 1 Mb/s CPU port) filled at 8 Gb/s from CPU port 4: its drain lasts about 200 ms
    # of simulated time, far longer than the test waits.
    args = ["--seed", str(seed), "--cpu-rate", "1e6", "--port", "4:gen=1,size=1514,to=7"]
    sim = pktstats_sim.Simulator(sim_binary, work, args, name="second", wait=True)
    try:
        sim.request("start")
        start = sim.cycle()
        while sim.cycle() < start + 20000:
            time.sleep(0.01)
        sim.close()
        sim.process.send_signal(signal.SIGINT)
        time.sleep(1.0)
        still_draining = sim.process.poll() is None
        sim.process.send_signal(signal.SIGINT)
        sim.process.wait(timeout=30)
        status = sim.stop()
    except BaseException:
        sim.kill()
        raise
    output = sim.output()
    tap.comment(output)
    summary = pktstats_sim.parse_summary(output)
    tap.point(still_draining and status == 0 and not summary["complete"] and
              "second signal" in output and "events may be missing" in output,
              "a second SIGINT stops a long drain at once (exit %d, still draining after the "
              "first: %s), and the summary says events may be missing" % (status, still_draining),
              sim.log())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("cli")
    parser.add_argument("--seed", type=int, help="seed of the generators")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap = Tap()
    tap.comment("seed %d (replay: %s SIMULATOR CLI --seed %d)" % (seed, sys.argv[0], seed))
    base = tempfile.mkdtemp(prefix="pktstats-end-")
    try:
        for ending in ("exhausted", "duration", "sigint"):
            work = os.path.join(base, ending)
            os.makedirs(work)
            try:
                run_ending(tap, os.path.abspath(options.simulator), os.path.abspath(options.cli),
                           work, ending, seed)
            except Exception as error:  # a broken run is a failure, not a crash of the suite
                tap.point(False, "%s: run" % ending, repr(error))
        try:
            run_second_signal(tap, os.path.abspath(options.simulator), base, seed)
        except Exception as error:
            tap.point(False, "second signal: run", repr(error))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
