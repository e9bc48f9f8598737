#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_flowlat_ipfix.py: the IPFIX exporter's frames read by tshark's own IPFIX dissector.

Runs the Verilator harness (tb/flowlat/test_flowlat_ipfix.cpp) on one random case with
`--pcap` and `--events` into a scratch directory, then reads the capture with tshark's cflow
dissector (`-d udp.port==PORT,cflow`, PORT the destination port the harness configured),
independent of our code, and compares what it decodes with the events the harness says it sent:

  - every frame is IPFIX (version 10), with a good IPv4 header checksum, and no frame has an
    expert item or is malformed;
  - the template (ID 256) is recognized: 15 fields, the standard IEs (325, 8, 12, 4, 7, 11, 10,
    14) and the enterprise ones (1..7, with the PEN the harness configured) with their lengths,
    and every data set finds it;
  - every data record's fields (cflow.srcaddr, cflow.dstaddr, cflow.protocol, cflow.srcport,
    cflow.dstport, cflow.inputint, cflow.outputint, cflow.observation_time_nanoseconds (IE 325)
    as the date and time of the event's TX stamp, and the seven enterprise entries) equal the
    events sent, in order, none missing or extra;
  - the sequence numbers: each message's is the number of data records tshark found before it;
    the observation domain is the configured one.

Usage: test_flowlat_ipfix.py HARNESS [--keep DIR]. Prints TAP; skipped without tshark.
"""

import argparse
import calendar
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
from tap_output import Tap  # noqa: E402

# The harness's case that writes the capture: a fixed seed, long enough for several templates
HARNESS_ARGS = ["--only", "random_mtu1500", "--seed", "5", "--cycles", "60000"]
TSHARK_TIMEOUT = 120
STANDARD_FIELDS = [(325, 8), (8, 4), (12, 4), (4, 1), (7, 2), (11, 2), (10, 4), (14, 4)]
ENTERPRISE_FIELDS = [(1, 4), (2, 1), (3, 1), (4, 1), (5, 4), (6, 4), (7, 4)]
# NTP seconds (tx + 2208988800 mod 2^32) that tshark's era rule (RFC 4330: MSB 0 is after 2036)
# maps back to tx: tx below this (7 February 2104)
NTP_ERA_LIMIT = 2 ** 32 - 2208988800 + 2 ** 31

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
ABSOLUTE = re.compile(r"^(\w{3}) +(\d+), (\d+) (\d\d):(\d\d):(\d\d)\.(\d{9}) UTC$")


def absolute_time(text):
    """(seconds since 1970, ns) of tshark's absolute time text, or None."""
    m = ABSOLUTE.match(text)
    if not m or m.group(1) not in MONTHS:
        return None
    seconds = calendar.timegm((int(m.group(3)), MONTHS.index(m.group(1)) + 1, int(m.group(2)),
                               int(m.group(4)), int(m.group(5)), int(m.group(6))))
    return seconds, int(m.group(7))


def flatten(tree, out=None):
    """{field: [values in document order]} of a tshark JSON layer tree."""
    if out is None:
        out = {}
    for key, value in tree.items():
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, dict):
                flatten(v, out)
            else:
                out.setdefault(key, []).append(v)
    return out


def pcap_frames(path):
    """The number of frames and the link type of a pcap file (ours: little-endian, 2.4)."""
    with open(path, "rb") as f:
        data = f.read()
    magic, _, _, _, _, _, link = struct.unpack_from("<IHHiIII", data, 0)
    if magic != 0xA1B2C3D4:
        return -1, link
    at, count = 24, 0
    while at + 16 <= len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        at += 16 + incl
        count += 1
    return count, link


def hex_int(text, signed=False):
    value = int(text.replace(":", ""), 16)
    bits = len(text.replace(":", "")) * 4
    if signed and value >> (bits - 1):
        value -= 1 << bits
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("harness", help="the built harness (build/tb/flowlat_ipfix/test_flowlat_ipfix)")
    parser.add_argument("--keep", help="keep the capture and the events in this directory")
    args = parser.parse_args()
    if not shutil.which("tshark"):
        print("1..0 # SKIP tshark is not installed (make deps)")
        return 0
    tap = Tap()
    work = args.keep or tempfile.mkdtemp(prefix="pktstats-ipfix-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)  # tshark may run as nobody
    try:
        return run(tap, args.harness, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def run(tap, harness, work):
    pcap = os.path.join(work, "ipfix.pcap")
    events_path = os.path.join(work, "events.jsonl")
    proc = subprocess.run([harness] + HARNESS_ARGS + ["--pcap", pcap, "--events", events_path],
                          capture_output=True, text=True, timeout=TSHARK_TIMEOUT)
    if not tap.point(proc.returncode == 0 and os.path.exists(pcap),
                     "the harness writes the capture (%s)" % " ".join(HARNESS_ARGS),
                     "exit %d\n%s%s" % (proc.returncode, proc.stdout, proc.stderr)):
        return tap.done()
    for line in proc.stdout.splitlines():
        if line.startswith("# random"):
            tap.comment(line[2:])
    with open(events_path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    config = lines[0]
    events = lines[1:]
    frames, link = pcap_frames(pcap)
    port = config["destination_port"]

    command = ["tshark", "-r", pcap, "-n", "-d", "udp.port==%d,cflow" % port,
               "-o", "ip.check_checksum:TRUE", "-T", "json", "--no-duplicate-keys"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=TSHARK_TIMEOUT,
                          cwd=work)
    stderr = "\n".join(l for l in proc.stderr.splitlines() if "Running as user" not in l)
    packets = json.loads(proc.stdout) if proc.stdout.strip() else []
    flats = [flatten(p["_source"]["layers"]) for p in packets]
    tap.point(proc.returncode == 0 and not stderr.strip() and len(flats) == frames > 0 and link == 1,
              "tshark reads the %d frames (link type Ethernet, cflow on UDP %d)" % (frames, port),
              "exit %d, %d frames decoded of %d, link type %d, stderr: %s" % (
                  proc.returncode, len(flats), frames, link, stderr))

    # every frame: IPFIX, a good header checksum, the configured headers, no expert item
    bad = []
    for i, fl in enumerate(flats, 1):
        why = []
        experts = sorted(k for k in fl if k.startswith("_ws.") or k.startswith("_ws_"))
        if experts:
            why.append("expert/malformed: %s %s" % (experts, [fl[k] for k in experts][:2]))
        if fl.get("cflow.version") != ["10"]:
            why.append("cflow.version %s" % fl.get("cflow.version"))
        if fl.get("ip.checksum.status") != ["1"]:
            why.append("ip.checksum.status %s (1 = good)" % fl.get("ip.checksum.status"))
        if fl.get("ip.src") != [config["source_ip"]] or fl.get("ip.dst") != [config["destination_ip"]]:
            why.append("addresses %s %s" % (fl.get("ip.src"), fl.get("ip.dst")))
        if fl.get("udp.srcport") != [str(config["source_port"])]:
            why.append("udp.srcport %s" % fl.get("udp.srcport"))
        if fl.get("cflow.od_id") != [str(config["observation_domain"])]:
            why.append("cflow.od_id %s" % fl.get("cflow.od_id"))
        if why:
            bad.append("frame %d: %s" % (i, "; ".join(why)))
    tap.point(flats and not bad, "every frame is IPFIX 10 with a good IPv4 checksum, the "
              "configured addresses, ports and observation domain, no expert item or malformed",
              "\n".join(bad[:10]))

    # the template
    bad = []
    templates = 0
    for i, fl in enumerate(flats, 1):
        if "cflow.template_id" not in fl:
            continue
        templates += 1
        types = [int(t) for t in fl.get("cflow.template_ipfix_field_type", [])]
        lengths = [int(t) for t in fl.get("cflow.template_field_length", [])]
        enterprise_types = [int(t) for t in fl.get("cflow.template_ipfix_field_type_enterprise", [])]
        pens = [int(t) for t in fl.get("cflow.template_ipfix_field_pen", [])]
        provided = fl.get("cflow.template_ipfix_pen_provided", [])
        want_lengths = [n for _, n in STANDARD_FIELDS] + [n for _, n in ENTERPRISE_FIELDS]
        if fl.get("cflow.template_id") != ["256"] or fl.get("cflow.template_field_count") != ["15"]:
            bad.append("frame %d: template %s, %s fields" % (
                i, fl.get("cflow.template_id"), fl.get("cflow.template_field_count")))
        elif (types != [t for t, _ in STANDARD_FIELDS] or lengths != want_lengths or
              enterprise_types != [t for t, _ in ENTERPRISE_FIELDS] or
              pens != [config["enterprise_number"]] * 7 or
              [p in ("1", "True") for p in provided] != [False] * 8 + [True] * 7):
            bad.append("frame %d: types %s, enterprise %s, lengths %s, PEN %s, provided %s" % (
                i, types, enterprise_types, lengths, pens, provided))
    tap.point(templates and not bad and "cflow.template_id" in flats[0],
              "the template (%d times, the first frame): ID 256, 15 fields, the standard IEs and "
              "the enterprise ones with PEN %d, as documented" % (templates, config["enterprise_number"]),
              "\n".join(bad[:10]) or "no template in the first frame")

    # the data records, in order
    records = []  # per record: {field: value}
    bad = []
    sequence_bad = []
    seen = 0
    for i, fl in enumerate(flats, 1):
        sets = fl.get("cflow.flowset_id", [])
        n = len(fl.get("cflow.srcaddr", []))
        if "256" in sets and ("cflow.template_frame" not in fl or n == 0):
            bad.append("frame %d: a data set without its template found" % i)
        if fl.get("cflow.sequence") != [str(seen % 2 ** 32)]:
            sequence_bad.append("frame %d: cflow.sequence %s, %d records before it" % (
                i, fl.get("cflow.sequence"), seen))
        seen += n
        per = {}
        for key in ("cflow.srcaddr", "cflow.dstaddr", "cflow.protocol", "cflow.srcport",
                    "cflow.dstport", "cflow.inputint", "cflow.outputint",
                    "cflow.observation_time_nanoseconds"):
            per[key] = fl.get(key, [])
            if len(per[key]) != n:
                bad.append("frame %d: %d %s for %d records" % (i, len(per[key]), key, n))
        entries = fl.get("cflow.enterprise_private_entry", [])
        if len(entries) != 7 * n:
            bad.append("frame %d: %d enterprise entries for %d records" % (i, len(entries), n))
        for k in range(n):
            rec = {key: (vals[k] if k < len(vals) else None) for key, vals in per.items()}
            rec["enterprise"] = entries[7 * k:7 * k + 7]
            records.append(rec)
    tap.point(not bad and len(records) == len(events) > 0,
              "tshark finds %d data records, the %d events the harness sent, every data set with "
              "its template" % (len(records), len(events)), "\n".join(bad[:10]))
    tap.point(not sequence_bad, "every message's sequence number counts the data records before it",
              "\n".join(sequence_bad[:10]))

    mismatches = {"5-tuple": [], "interfaces": [], "observation time": [], "enterprise": []}
    for k, (rec, ev) in enumerate(zip(records, events)):
        tuple_got = (rec["cflow.srcaddr"], rec["cflow.dstaddr"], rec["cflow.protocol"],
                     rec["cflow.srcport"], rec["cflow.dstport"])
        tuple_want = (ev["src"], ev["dst"], str(ev["protocol"]), str(ev["sport"]), str(ev["dport"]))
        if tuple_got != tuple_want:
            mismatches["5-tuple"].append("record %d: %s, sent %s" % (k, tuple_got, tuple_want))
        if (rec["cflow.inputint"], rec["cflow.outputint"]) != (str(ev["ingress"]), str(ev["egress"])):
            mismatches["interfaces"].append("record %d: in %s out %s, sent %d %d" % (
                k, rec["cflow.inputint"], rec["cflow.outputint"], ev["ingress"], ev["egress"]))
        shown = absolute_time(rec["cflow.observation_time_nanoseconds"] or "")
        sec, ns = ev["tx_seconds"], ev["tx_ns"]
        if (shown is None or abs(shown[1] - ns) > 1 or
                (shown[0] != sec if sec < NTP_ERA_LIMIT else (shown[0] - sec) % 2 ** 32)):
            mismatches["observation time"].append("record %d: %s, sent %d s %d ns" % (
                k, rec["cflow.observation_time_nanoseconds"], sec, ns))
        e = rec["enterprise"]
        want = [ev["residence"], ev["kind"], ev["group"], ev["profile"], ev["high"], ev["low"],
                ev["occupancy"]]
        try:
            got = [hex_int(e[0], signed=True)] + [hex_int(x) for x in e[1:]]
        except (ValueError, IndexError):
            got = e
        if got != want:
            mismatches["enterprise"].append("record %d: %s, sent %s" % (k, got, want))
    tap.point(records and not mismatches["5-tuple"],
              "every record's cflow.srcaddr, dstaddr, protocol, srcport, dstport are its event's",
              "\n".join(mismatches["5-tuple"][:10]))
    tap.point(records and not mismatches["interfaces"],
              "every record's cflow.inputint and outputint are its event's ingress and egress",
              "\n".join(mismatches["interfaces"][:10]))
    tap.point(records and not mismatches["observation time"],
              "every record's observationTimeNanoseconds (cflow.observation_time_nanoseconds) shows "
              "its event's TX stamp as date and time, to 1 ns",
              "\n".join(mismatches["observation time"][:10]))
    tap.point(records and not mismatches["enterprise"],
              "every record's enterprise entries are its event's residence (signed), kind, group, "
              "profile, high, low, occupancy", "\n".join(mismatches["enterprise"][:10]))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
