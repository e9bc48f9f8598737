#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The flow-latency events of the simulated switch in a real IPFIX collector: nfacctd of pmacct
(issue 15; docs/flowlat.md).

    tb/sim/test_sim_flowlat_collector.py build/bin/pktstats-sim [--seed S]

The test runs in a network namespace of its own (it re-runs itself under `unshare --net`). The
switch runs test_sim_flowlat's scenario, configuration and model (imported, not copied): flow A
through a stateful profile, flow B through a stateless one, both congested on port 2, the
exporter sending out of port 3. Here port 3 is a TAP interface, fl3, whose host side has the
exporter's destination MAC and address (192.168.0.2/24); nfacctd listens there on UDP 4739,
started by the test with a scratch directory and a configuration written here: the
enterprise-specific IEs (PEN 32473) as `aggregate_primitives`, IE 325 too (nfacctd 1.7.7 has no
native primitive for it), and a print plugin writing every record as a JSON line, its
aggregation key made of every field of the record (with the observation time, residence and
message sequence number no two events collapse). The switch's time of day starts at a date
drawn from the seed, so that the observation times are real dates. Checked:

  - the collector got the template (template 256 from 192.168.0.1 in its templates file, with
    the 15 fields, the 7 enterprise ones under PEN 32473) and decoded data with it;
  - every event the model predicts from the wire truth is in the collector's output exactly
    once, none else: kind, residence ns, 5-tuple, ingress and egress interface, group,
    profile, high, low, the queue's occupancy (the simulator's occupancy truth in the clock the
    frame left), and the observation time as the date and time of the frame's TX first bit to
    the nanosecond; the exporter's address as its peer;
  - as many records as the block's records_exported counter and the model; the IPFIX sequence
    numbers the collector saw count the records before each message (none lost); every frame
    out of port 3 delivered to the TAP, and nothing from the host entered the switch.

Without root, /dev/net/tun, unshare or nfacctd (`apt-get install pmacct`, make deps), the
checks are skipped.
"""

import argparse
import bisect
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import pktstats_sim  # noqa: E402
import test_sim_flowlat as S  # noqa: E402  (the scenario, its configuration and its model)
import test_sim_oam as T  # noqa: E402
from tap_output import Tap  # noqa: E402

NFACCTD = "/usr/sbin/nfacctd"
TAP_NAME = "fl3"
COLLECTOR_PORT = S.IPFIX_PORT   # the exporter's default UDP destination port (4739)
CHECKS = [
    "the run ends, exit 0",
    "nfacctd got the template and decoded data with it: 256 from the exporter, its 15 fields, "
    "7 of them under PEN 32473",
    "every event the model computes is in the collector exactly once, none else: kind, "
    "residence, 5-tuple, interfaces, group, profile, high, low, occupancy, observation time",
    "records: the collector's = records_exported = the model's; sequence numbers count them",
    "port 3: every IPFIX frame delivered to the TAP, nothing from the host into the switch",
]
# nfacctd's custom primitives: (name, field type, bytes); IE 325 is an NTP timestamp
PRIMITIVES = [
    ("fl_observation_time", "325", 8),
    ("fl_residence_ns", "%d:1" % S.PEN, 4),
    ("fl_kind", "%d:2" % S.PEN, 1),
    ("fl_group", "%d:3" % S.PEN, 1),
    ("fl_profile", "%d:4" % S.PEN, 1),
    ("fl_high_ns", "%d:5" % S.PEN, 4),
    ("fl_low_ns", "%d:6" % S.PEN, 4),
    ("fl_occupancy", "%d:7" % S.PEN, 4),
]
AGGREGATE = ["src_host", "dst_host", "proto", "src_port", "dst_port", "in_iface", "out_iface",
             "peer_src_ip", "export_proto_seqno"] + [name for name, _, _ in PRIMITIVES]
KINDS = {1: "absolute", 2: "high", 3: "low"}
# template 256 as docs/flowlat.md gives it: (IE, bytes, PEN)
TEMPLATE = [(325, 8, 0), (8, 4, 0), (12, 4, 0), (4, 1, 0), (7, 2, 0), (11, 2, 0), (10, 4, 0),
            (14, 4, 0), (1, 4, S.PEN), (2, 1, S.PEN), (3, 1, S.PEN), (4, 1, S.PEN), (5, 4, S.PEN),
            (6, 4, S.PEN), (7, 4, S.PEN)]
# the time of day at the start: a date in 2025..2034 (IE 325's seconds since 1900 stay in NTP
# era 0) and a nanosecond, both from the seed
DATE_BASE, DATE_SPAN = 1735689600, 10 * 365 * 86400


def ip_text(address):
    return "%d.%d.%d.%d" % tuple(address.to_bytes(4, "big"))


def date_ns(unix_ns):
    """`2025-03-01T12:00:00.123456789Z` of nanoseconds since 1970."""
    seconds, ns = divmod(unix_ns, 10**9)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%09dZ" % ns


def ntp_date(value):
    """The date and time, to the nanosecond (nearest), of a 64-bit NTP timestamp (IE 325)."""
    seconds, fraction = value >> 32, value & 0xffffffff
    return date_ns((seconds - S.NTP_OFFSET) * 10**9 + (fraction * 10**9 + 2**31) // 2**32)


def sh(*command, timeout=10):
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if done.returncode:
        raise RuntimeError("%s: %s" % (" ".join(command), done.stderr.strip()))
    return done.stdout


class Collector:
    """nfacctd listening on ADDRESS:PORT, its configuration, log and output in WORK/nfacctd."""

    def __init__(self, work, address, port):
        self.dir = os.path.join(work, "nfacctd")
        os.makedirs(self.dir)
        self.output = os.path.join(self.dir, "events.json")
        self.templates = os.path.join(self.dir, "templates.json")
        self.log = os.path.join(self.dir, "nfacctd.log")
        primitives = os.path.join(self.dir, "primitives.lst")
        with open(primitives, "w") as f:
            for name, field_type, length in PRIMITIVES:
                f.write("name=%s field_type=%s len=%d semantics=u_int\n" % (name, field_type, length))
        self.config = os.path.join(self.dir, "nfacctd.conf")
        with open(self.config, "w") as f:
            f.write("\n".join([
                "daemonize: false",
                "logfile: %s" % self.log,
                "nfacctd_ip: %s" % address,
                "nfacctd_port: %d" % port,
                "nfacctd_templates_file: %s" % self.templates,
                "aggregate_primitives: %s" % primitives,
                "plugins: print[events]",
                "aggregate[events]: %s" % ", ".join(AGGREGATE),
                "print_output[events]: json",
                "print_output_file[events]: %s" % self.output,
                "print_output_file_append[events]: true",
                "print_refresh_time[events]: 1",
                ""]))
        # a session of its own: its plugin processes are stopped with it, by its group id
        self.process = subprocess.Popen([NFACCTD, "-f", self.config], stdout=subprocess.DEVNULL,
                                        stderr=open(os.path.join(self.dir, "stderr"), "w"),
                                        start_new_session=True)
        deadline = time.monotonic() + 15
        while not self.listening(address, port):
            if self.process.poll() is not None:
                raise RuntimeError("nfacctd exited (%d): %s" % (self.process.returncode, self.text()))
            if time.monotonic() > deadline:
                raise RuntimeError("nfacctd does not listen on %s:%d: %s" % (address, port, self.text()))
            time.sleep(0.05)

    @staticmethod
    def listening(address, port):
        local = "%08X:%04X" % (int.from_bytes(bytes(int(b) for b in address.split(".")), "little"), port)
        with open("/proc/net/udp") as f:
            return any(line.split()[1] == local for line in f.readlines()[1:])

    def text(self):
        out = ""
        for name in (self.log, os.path.join(self.dir, "stderr")):
            if os.path.exists(name):
                with open(name, errors="replace") as f:
                    out += f.read()[-3000:]
        return out

    def records(self):
        """The JSON lines written so far (a line still being written left out)."""
        if not os.path.exists(self.output):
            return []
        with open(self.output) as f:
            text = f.read()
        return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines() if line.strip()]

    def stop(self):
        """SIGINT to the core, which passes it to the plugin (the print plugin writes what its
        cache still holds) and waits for it; SIGKILL to the group (the core and its plugin)
        should it not end within 10 s."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def queue_occupancy(path, queue):
    """(clocks, occupancies) of a queue's changes in a --truth CSV."""
    clocks, values = [], []
    with open(path) as f:
        for row in csv.DictReader(f):
            if int(row["queue"]) == queue:
                clocks.append(int(row["cycle"]))
                values.append(int(row["occupancy"]))
    return clocks, values


def expected_records(truth, sent, occupancy):
    """The model's events (test_sim_flowlat) as the collector should hold them: JSON objects."""
    events, _, _ = S.expected_events(truth, sent)
    tx_clock = {}
    for (switch, port, direction, _), rows in truth.items():
        if (switch, port, direction) == (0, 2, "tx"):
            for row in rows:
                tx_clock[pktstats_sim.wire_reading(row)] = row["clock"]
    clocks, values = occupancy
    want = []
    for e in events:
        src, dst, sport, dport, ingress = S.FLOWS[e["flow"]]
        _, high, low, _ = S.PROFILES[e["profile"]]
        # the occupancy of queue 2 in the clock the frame's first word left (its last change
        # at or before that clock)
        i = bisect.bisect_right(clocks, tx_clock[e["tx_ns"]]) - 1
        want.append({"kind": KINDS[e["kind"]], "residence_ns": e["residence"],
                     "src": ip_text(src), "dst": ip_text(dst), "proto": "udp", "sport": sport,
                     "dport": dport, "in": ingress, "out": 2, "group": e["group"],
                     "profile": e["profile"], "high_ns": high, "low_ns": low,
                     "occupancy": values[i] if i >= 0 else 0,
                     # the TX time of day is taken as seconds since 1970 (32 bits)
                     "time": date_ns(e["tx_ns"]), "peer": ip_text(S.IPFIX_SOURCE_IP)})
    return want, events


def collected(row):
    """A JSON line of the collector as the fields expected_records gives (nfacctd writes the
    custom primitives as strings)."""
    number = lambda name: int(row[name])  # noqa: E731
    return {"kind": KINDS.get(number("fl_kind"), number("fl_kind")),
            "residence_ns": S.signed32(number("fl_residence_ns")),
            "src": row.get("ip_src"), "dst": row.get("ip_dst"), "proto": row.get("ip_proto"),
            "sport": row.get("port_src"), "dport": row.get("port_dst"),
            "in": row.get("iface_in"), "out": row.get("iface_out"),
            "group": number("fl_group"), "profile": number("fl_profile"),
            "high_ns": S.signed32(number("fl_high_ns")), "low_ns": S.signed32(number("fl_low_ns")),
            "occupancy": number("fl_occupancy"), "time": ntp_date(number("fl_observation_time")),
            "peer": row.get("peer_ip_src")}


def run(tap, simulator, seed, work):
    # port 3's host side: the exporter's destination MAC and address
    mac = ":".join("%02x" % b for b in S.IPFIX_DESTINATION_MAC.to_bytes(6, "big"))
    address = ip_text(S.IPFIX_DESTINATION_IP)
    sh("ip", "tuntap", "add", "dev", TAP_NAME, "mode", "tap")
    sh("ip", "link", "set", "dev", TAP_NAME, "address", mac)
    sh("ip", "addr", "add", address + "/24", "dev", TAP_NAME)
    sh("ip", "link", "set", "dev", TAP_NAME, "up")
    collector = Collector(work, address, COLLECTOR_PORT)
    try:
        start_ns = (DATE_BASE + seed % DATE_SPAN) * 10**9 + seed * 7919 % 10**9
        offset = "%d.%09ds" % divmod(start_ns, 10**9)
        tap.comment("nfacctd on %s:%d (%s); the switch's time of day from %s" % (
            address, COLLECTOR_PORT, sh(NFACCTD, "-V").splitlines()[0], date_ns(start_ns)))
        truth_csv = os.path.join(work, "occupancy.csv")
        sent, status, counters, _, log = S.simulate(
            simulator, seed, work, port3="3:tap=%s" % TAP_NAME,
            more_args=["--switch", "0:offset=%s" % offset, "--truth", truth_csv])
        with open(os.path.join(work, "s0.out")) as f:
            summary = f.read()
        tap.point(status == 0, CHECKS[0], log[-2000:])
        truth = T.read_truth(os.path.join(work, "wire.csv"))
        want, events = expected_records(truth, sent, queue_occupancy(truth_csv, 2))
        # the collector writes every second: wait until it has as many records as the model
        # (or more), then one more refresh, then stop it (it writes what it still holds)
        deadline = time.monotonic() + 20
        while len(collector.records()) < len(want) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.5)
    finally:
        collector.stop()
    rows = collector.records()
    tap.comment("the model: %d events (%d high, %d low, %d absolute); records_exported %d; "
                "the collector: %d records" % (
                    len(events), sum(1 for e in events if e["kind"] == 2),
                    sum(1 for e in events if e["kind"] == 3),
                    sum(1 for e in events if e["kind"] == 1),
                    counters["records_exported"], len(rows)))

    # 1. The template
    templates = []
    if os.path.exists(collector.templates):
        with open(collector.templates) as f:
            templates = [json.loads(line) for line in f if line.strip()]
    fields = template_fields(templates, ip_text(S.IPFIX_SOURCE_IP), 256)
    tap.point(fields == TEMPLATE and rows,
              CHECKS[1], "fields %s\ntemplates file: %s\n%s" % (
                  fields, json.dumps(templates)[:1500], collector.text()))

    # 2. Every event exactly once, none else
    problems = []
    got = []
    for row in rows:
        try:
            got.append(collected(row))
        except (KeyError, TypeError, ValueError) as error:
            problems.append("unreadable record %r: %r" % (row, error))
    key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    have = {}
    for r in got:
        have[key(r)] = have.get(key(r), 0) + 1
    for i, w in enumerate(want):
        n = have.pop(key(w), 0)
        if n != 1:
            close = [r for r in got if r["time"] == w["time"] or r["residence_ns"] == w["residence_ns"]]
            problems.append("event %d (%s): %d times in the collector; want %s; close: %s" % (
                i, events[i]["flow"], n, w, close[:2]))
    for k, n in have.items():
        problems.append("not an event of the model (%d times): %s" % (n, k))
    tap.point(not problems and len(want) >= 2 * S.BURSTS, CHECKS[2] + " (%d events)" % len(want),
              "\n".join(problems[:12]))

    # 3. The counts, the sequence numbers the collector saw
    per_message = {}
    for row in rows:
        per_message[row.get("export_proto_seqno")] = per_message.get(row.get("export_proto_seqno"), 0) + 1
    expect, sequence_ok = 0, True
    for seq in sorted(per_message, key=lambda s: (s is None, s or 0)):
        sequence_ok &= seq == expect
        expect = (seq or 0) + per_message[seq]
    tap.point(len(rows) == counters["records_exported"] == len(want) and sequence_ok,
              CHECKS[3] + " (%d records in %d messages with data)" % (len(rows), len(per_message)),
              "collector %d, records_exported %d, model %d; records per sequence number %s" % (
                  len(rows), counters["records_exported"], len(want), sorted(per_message.items())))

    # 4. Port 3 and its TAP
    # the summary's port line: port, link (2 words), frames in, bytes in, MAC drops, frames out
    m = re.search(r"^3\s+eth 1G\s+(\d+)\s+\d+\s+(\d+)\s+(\d+)\s", summary, re.M)
    port3 = {"frames_in": int(m.group(1)), "mac_drops": int(m.group(2)),
             "frames_out": int(m.group(3))} if m else {}
    tap.point(port3.get("frames_out") == counters["messages"] and port3.get("frames_in") == 0
              and "not delivered to TAP" not in summary,
              CHECKS[4] + " (%d messages)" % counters["messages"],
              "port 3 %s, messages %d\n%s" % (port3, counters["messages"], summary[-1500:]))


def template_fields(templates, exporter, template_id):
    """[(IE, length, PEN)] of a template in nfacctd's templates file (one JSON object a line;
    nfacctd 1.7.7 writes the template ID in network byte order: 256 as 1)."""
    swapped = int.from_bytes(template_id.to_bytes(2, "big"), "little")
    for t in templates:
        if t.get("agent") == exporter and t.get("template_id") in (template_id, swapped):
            fields = []
            for f in t.get("list", []):
                if "utpl" in f:   # with an enterprise number
                    fields.append((f["utpl"]["type"], f["utpl"]["len"], f["utpl"]["pen"]))
                else:
                    fields.append((f["otpl"]["tpl_index"], f["otpl"]["len"], 0))
            return fields
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("simulator")
    parser.add_argument("--seed", type=int)
    options = parser.parse_args()
    tap = Tap()
    why = None
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        why = "needs root and /dev/net/tun"
    elif not shutil.which("unshare") or not os.access(NFACCTD, os.X_OK):
        why = "needs unshare and nfacctd (pmacct; make deps)"
    if why is not None:
        for name in CHECKS:
            tap.n += 1
            print("ok %d - %s # SKIP %s" % (tap.n, name, why))
        return tap.done()
    try:
        pktstats_sim.in_private_network()   # re-runs this script under unshare --net
        setup_error = None
    except RuntimeError as error:
        setup_error = error
    seed = options.seed if options.seed is not None else int(time.time()) % 1000000007
    tap.comment("seed %d (replay: %s %s --seed %d)" % (seed, sys.argv[0], options.simulator, seed))
    work = tempfile.mkdtemp(prefix="pktstats-flowlat-collector-")
    started = time.monotonic()
    try:
        if setup_error:
            raise setup_error
        run(tap, os.path.abspath(options.simulator), seed, work)
    except Exception:  # a broken run is a failure, not a crash of the suite
        tap.point(False, "the run", traceback.format_exc())
    finally:
        if os.environ.get("PKTSTATS_KEEP"):
            tap.comment("scratch directory kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    tap.comment("%.1f s" % (time.monotonic() - started))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
