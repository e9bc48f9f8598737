#!/usr/bin/env python3
"""Benchmark of the flow-latency monitor and its IPFIX exporter (docs/flowlat.md), run by
`make bench` (issue 15). Prints figures; it never fails on a figure, only when a run itself
goes wrong.

Both figures are counted in clocks of the RTL under Verilator, so they do not depend on the
machine:

- the monitor (`test_flowlat_core`, its last part): four MAC ports offer monitored frames
  of the shortest kind (5 words) back to back; the records the flow table takes per clock,
  beside what four 1 Gb/s ports at line rate can offer (a minimum frame is 84 bytes on the
  wire with its preamble and gap: one per 84 clocks per port);
- the exporter (`test_flowlat_ipfix --only throughput`): events always waiting, the output
  always ready, MTU 1500; events per clock and IPFIX bytes per event, beside the events per
  clock one 1 Gb/s export port can carry (bytes per event plus each frame's FCS, preamble
  and gap shared by its records).

Usage: bench/bench_flowlat.py --core PATH --ipfix PATH
"""

import argparse
import re
import subprocess
import sys

CLOCK_NS = 8
MIN_FRAME_WIRE_BYTES = 84          # 60 + FCS 4 + preamble 8 + gap 12
FRAME_OVERHEAD_BYTES = 4 + 8 + 12  # FCS, preamble, gap: not in the exporter's frame bytes
PORTS = 4


def figure(output, pattern, what):
    """The first group of pattern in the test's output, as a float."""
    match = re.search(pattern, output, re.M)
    if not match:
        sys.exit("bench_flowlat: %s not found in the output:\n%s" % (what, output))
    return [float(g) for g in match.groups()]


def run(command):
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        sys.exit("bench_flowlat: %s failed (%d):\n%s" % (" ".join(command), result.returncode,
                                                          result.stdout + result.stderr))
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--core", required=True, help="build/tb/flowlat/test_flowlat_core")
    parser.add_argument("--ipfix", required=True, help="build/tb/flowlat_ipfix/test_flowlat_ipfix")
    args = parser.parse_args()

    core = run([args.core])
    records, clocks, rate = figure(
        core, r"^# throughput: (\d+) records in (\d+) clocks = ([0-9.]+) records/clock", "throughput")
    line_rate = PORTS / (MIN_FRAME_WIRE_BYTES * 8 / CLOCK_NS)
    print("== flowlat monitor (%s, throughput)" % args.core)
    print("monitored records per clock   %.4f  (%d records in %d clocks, 4 ports back to back)"
          % (rate, records, clocks))
    print("4 ports at 1 Gb/s offer       %.4f  (minimum frames: one per %d clocks per port)"
          % (line_rate, MIN_FRAME_WIRE_BYTES * 8 // CLOCK_NS))
    print("headroom                      %.2f x line rate" % (rate / line_rate))

    ipfix = run([args.ipfix, "--only", "throughput"])
    bytes_per_event, per_message = figure(
        ipfix, r"^# IPFIX bytes per event: ([0-9.]+) \(MTU 1500, full messages of (\d+) records",
        "bytes per event")
    events_per_clock, = figure(ipfix, r"^# sustained: ([0-9.]+) events per clock", "sustained")
    wire_bytes = bytes_per_event + FRAME_OVERHEAD_BYTES / per_message
    link_events_per_clock = 1.0 / (wire_bytes * 8 / CLOCK_NS)
    print("== flowlat IPFIX exporter (%s --only throughput)" % args.ipfix)
    print("events per clock              %.4f  (%.1f M events/s at 125 MHz)"
          % (events_per_clock, events_per_clock * 125))
    print("IPFIX bytes per event         %.2f  (MTU 1500, %d records per message, frame bytes "
          "without FCS)" % (bytes_per_event, per_message))
    print("a 1 Gb/s export port carries  %.4f events per clock (%.2f wire bytes per event); "
          "the exporter fills %.1f such ports"
          % (link_events_per_clock, wire_bytes, events_per_clock / link_events_per_clock))
    print("an event for every frame of 4 ports at line rate (%.4f per clock) is %.2f x what "
          "the exporter sustains, %.2f x what one 1 Gb/s export port carries"
          % (line_rate, line_rate / events_per_clock, line_rate / link_events_per_clock))

if __name__ == "__main__":
    main()
