#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats dm` and `pktstats headroom measure` on a real link: two network namespaces
joined by a veth pair, the CLI on one end, a small responder (this script, --responder) on the
other that plays the peer and both switches: it answers DMMs with DMRs and headroom requests
with responses, writing every stamp from a known fake clock, and sends 1DMs with known stamps.
The CLI's figures are checked against the values the responder wrote, worked out here.

    tb/cli/test_cli_oam_live.py build/asan/bin/pktstats

Needs root and `ip` (network namespaces, veth); without them every point is skipped. Bounded
in time (the responder stops itself after 60 s; each CLI run has a limit) and cleaned up.

- dm two-way, tagged (VID 100, 802.1Q tag put back from the kernel's auxiliary data), MEL 3,
  size 100: 8 DMMs; the responder answers one twice (duplicates 1), leaves one unanswered
  (lost 1), leaves RxTimeb 0 in one (incomplete 1), makes one two-way delay negative
  (negative 1, kept), sends one DMR of another session (unmatched 1), and one DMM's stamps
  cross the 2^32 s wrap. Every row (two-way, forward, backward, responder, variation) and every
  summary figure (min, avg, max, p50, p90, p99 by nearest rank) is compared. The DMMs the
  responder saw: zero stamps, MEL 3, VID 100, 100 bytes, the session and sequence numbers;
- dm two-way untagged, default size: 62-byte DMMs, all answered; text output;
- dm one-way send: 1DMs of 60 bytes at MEL 6 with zero stamps and sequence numbers;
- dm one-way receive: 1DMs sent with known stamps (one negative, one incomplete, one without
  a Data TLV) among other frames: delays, variation, summary;
- headroom measure: requests to 01:80:c2:00:00:0e with zero stamps, 60 bytes; responses with
  known t1..t4 (one request unanswered, one response without t2): round trips, cable delay, figures, the PFC headroom
  at 100 Gb/s from the largest round trip.
Prints TAP.
"""

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import Tap  # noqa: E402

MAC_A = "02:00:00:00:0a:01"
MAC_B = "02:00:00:00:0b:01"
GROUP = "01:80:c2:00:00:0e"
NS = 10 ** 9
ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8


def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def mac_text(b):
    return ":".join("%02x" % x for x in b)


def diff(b, a):
    """b - a in ns, seconds modulo 2^32 (pktstats_wire_time_diff)."""
    ds = (b[0] - a[0]) % (1 << 32)
    if ds >= 1 << 31:
        ds -= 1 << 32
    return ds * NS + b[1] - a[1]


def add(t, ns):
    total = t[0] * NS + t[1] + ns
    return ((total // NS) % (1 << 32), total % NS)


def figures(values):
    """count, min, avg, max, p50, p90, p99 (nearest rank), as the CLI prints them."""
    if not values:
        return {"count": 0, "min": None, "avg": None, "max": None, "p50": None, "p90": None,
                "p99": None}
    s = sorted(values)
    n = len(s)

    def rank(p):
        return s[max((p * n + 99) // 100, 1) - 1]
    return {"count": n, "min": s[0], "avg": round(sum(s) / n, 1), "max": s[-1], "p50": rank(50),
            "p90": rank(90), "p99": rank(99)}


# ------------------------------------------------------------------------------------------
# The plans: what the fake clocks say for each frame

A_BASE = (0xffffffff, 999000500)  # the CLI's switch: crosses the 2^32 s wrap after 1 ms
B_BASE = (5000, 0)                 # the peer's clock, 5000 s apart


def dm_plan(k):
    """The stamps the responder writes for DMM k, and what it does: (stamps, action)."""
    tx_f = add(A_BASE, k * 1000000)
    rx_f = add(B_BASE, k * 1000000 + 777)
    responder = 30000 + 100 * k
    tx_b = add(rx_f, responder)
    two_way = 2200 + 17 * k if k != 3 else -500
    rx_b = add(tx_f, two_way + responder)
    action = {2: "twice", 5: "no-rx-b", 6: "drop"}.get(k, "answer")
    if action == "no-rx-b":
        rx_b = (0, 0)
    return [tx_f, rx_f, tx_b, rx_b], action


def headroom_plan(k):
    t1 = add(A_BASE, k * 1000000)
    t2 = add(B_BASE, k * 1000000 + 333)
    held = 500 + 10 * k
    t3 = add(t2, held)
    rt = [1000, 1016, 992, 1000, 1024, 1000][k]
    t4 = add(t1, rt + held)
    if k == 5:  # the far end did not stamp t2: incomplete
        t2 = (0, 0)
    return [t1, t2, t3, t4], "drop" if k == 3 else "answer"


ONE_DM = [  # (tx_f, delay ns or None: RxTimef 0, with a Data TLV)
    ((10, 999999990), 5000, True),
    ((11, 500), 5003, True),
    ((12, 500), -100, True),
    ((13, 500), 5009, False),
    ((14, 500), None, True),
]


# ------------------------------------------------------------------------------------------
# The responder (runs in the other namespace)

def packet_socket(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((ifname, 0))
    return s


def receive(s):
    """(frame with its 802.1Q tag put back, outgoing)."""
    data, ancillary, _, address = s.recvmsg(65536, socket.CMSG_SPACE(20))
    for level, kind, value in ancillary:
        if level == SOL_PACKET and kind == PACKET_AUXDATA and len(value) >= 20:
            status, _, _, _, _, tci, tpid = struct.unpack("IIIHHHH", value[:20])
            if status & 0x10 or tci:  # TP_STATUS_VLAN_VALID
                data = data[:12] + struct.pack(">HH", tpid if status & 0x40 else 0x8100, tci) + \
                    data[12:]
    return data, address[2] == socket.PACKET_OUTGOING


def stamp_bytes(t):
    return struct.pack(">II", *t)


def responder(ifname, log_path):
    s = packet_socket(ifname)
    s.settimeout(0.2)
    log = open(log_path, "a")
    own = mac(MAC_B)
    end = time.monotonic() + 60
    sent_unmatched = False
    while time.monotonic() < end:
        try:
            frame, outgoing = receive(s)
        except socket.timeout:
            continue
        if outgoing or len(frame) < 14:
            continue
        at = 16 if frame[12:14] == b"\x81\x00" else 12
        vid = struct.unpack(">H", frame[14:16])[0] & 0xfff if at == 16 else None
        ethertype = struct.unpack(">H", frame[at:at + 2])[0]
        pdu = at + 2
        if ethertype == 0x8902 and len(frame) >= pdu + 4:
            level, opcode = frame[pdu] >> 5, frame[pdu + 1]
            stamps = [struct.unpack(">II", frame[pdu + 4 + 8 * i:pdu + 12 + 8 * i])
                      for i in range(4 if opcode == 47 else 2)]
            tlv = pdu + 4 + (32 if opcode == 47 else 16)
            session = seq = None
            if frame[tlv] == 3:
                session, seq = struct.unpack(">II", frame[tlv + 3:tlv + 11])
            log.write(json.dumps({"kind": "dm", "opcode": opcode, "level": level, "vid": vid,
                                  "length": len(frame), "stamps": stamps, "session": session,
                                  "seq": seq, "destination": mac_text(frame[0:6]),
                                  "data_length": struct.unpack(">H", frame[tlv + 1:tlv + 3])[0]
                                  if frame[tlv] == 3 else 0}) + "\n")
            log.flush()
            if opcode != 47 or seq is None:
                continue
            plan, action = dm_plan(seq)
            if action == "drop":
                continue
            reply = bytearray(frame)
            reply[0:6], reply[6:12] = frame[6:12], own
            reply[pdu + 1] = 46
            for i in range(4):
                reply[pdu + 4 + 8 * i:pdu + 12 + 8 * i] = stamp_bytes(plan[i])
            for _ in range(2 if action == "twice" else 1):
                s.send(bytes(reply))
            if not sent_unmatched:  # a DMR of another session
                other = bytearray(reply)
                other[tlv + 3:tlv + 7] = struct.pack(">I", (session + 1) & 0xffffffff)
                s.send(bytes(other))
                sent_unmatched = True
        elif ethertype == 0x89a2 and at == 12 and len(frame) >= 48:
            log.write(json.dumps({"kind": "headroom", "destination": mac_text(frame[0:6]),
                                  "length": len(frame), "b14": frame[14], "b15": frame[15],
                                  "stamps": [struct.unpack(">II", frame[16 + 8 * i:24 + 8 * i])
                                             for i in range(4)]}) + "\n")
            log.flush()
            if frame[15] != 0x11:
                continue
            k = sum(1 for line in open(log_path) if '"kind": "headroom"' in line) - 1
            plan, action = headroom_plan(k % 6)
            if action == "drop":
                continue
            reply = bytearray(frame)
            reply[6:12] = own
            reply[15] = 0x12
            for i in range(4):
                reply[16 + 8 * i:24 + 8 * i] = stamp_bytes(plan[i])
            s.send(bytes(reply))


def send_one_dms(ifname):
    """The 1DMs of ONE_DM with their stamps, between other frames."""
    s = packet_socket(ifname)
    head = mac(MAC_A) + mac(MAC_B)
    s.send(head + b"\x08\x00" + bytes(46))  # IPv4: not ours
    for k, (tx_f, delay, data) in enumerate(ONE_DM):
        rx_f = add(tx_f, delay) if delay is not None else (0, 0)
        frame = head + b"\x89\x02" + bytes([4 << 5, 45, 0, 16]) + stamp_bytes(tx_f) + \
            stamp_bytes(rx_f)
        if data:
            frame += b"\x03\x00\x08" + struct.pack(">II", 0x5e55, k)
        frame += b"\x00"
        s.send(frame + bytes(max(0, 60 - len(frame))))
        # a DMM in between: not a 1DM
        s.send(head + b"\x89\x02" + bytes([0, 47, 0, 32]) + bytes(32 + 1 + 9))
        time.sleep(0.01)


# ------------------------------------------------------------------------------------------
# The test

def run(*args, check=True):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          check=check, timeout=30)


class Link:
    def __init__(self):
        tag = "%d" % os.getpid()
        self.a, self.b = "pkoama" + tag, "pkoamb" + tag
        for ns in (self.a, self.b):
            run("ip", "netns", "add", ns)
        run("ip", "link", "add", "va", "netns", self.a, "address", MAC_A, "type", "veth", "peer",
            "vb", "netns", self.b, "address", MAC_B)
        for ns, ifname in ((self.a, "va"), (self.b, "vb")):
            run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                check=False)
            run("ip", "-n", ns, "link", "set", ifname, "up")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            out = run("ip", "-n", self.a, "link", "show", "va").stdout
            if "LOWER_UP" in out:
                break
            time.sleep(0.05)

    def close(self):
        for ns in (self.a, self.b):
            run("ip", "netns", "del", ns, check=False)


def cli(link, pktstats, *args, timeout=30):
    command = ["ip", "netns", "exec", link.a, pktstats] + list(args)
    try:
        p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def expected_two_way(count, vid):
    rows, complete = [], []
    for k in range(count):
        stamps, action = dm_plan(k)
        row = {"seq": k}
        row["vlan"] = None if action == "drop" else vid
        if action == "drop":
            row.update(status="lost", two_way_ns=None, forward_ns=None, backward_ns=None,
                       responder_ns=None, variation_ns=None)
            rows.append(row)
            continue
        tx_f, rx_f, tx_b, rx_b = stamps
        if action == "no-rx-b":
            row.update(status="incomplete", two_way_ns=None, forward_ns=None, backward_ns=None,
                       responder_ns=None, variation_ns=None)
        else:
            responder_ns = diff(tx_b, rx_f)
            d = diff(rx_b, tx_f) - responder_ns
            row.update(status="negative" if d < 0 else "ok", two_way_ns=d,
                       forward_ns=diff(rx_f, tx_f), backward_ns=diff(rx_b, tx_b),
                       responder_ns=responder_ns,
                       variation_ns=abs(d - complete[-1]["two_way_ns"]) if complete else None)
            complete.append(row)
        for key, t in zip(("tx_timestamp_f", "rx_timestamp_f", "tx_timestamp_b",
                           "rx_timestamp_b"), stamps):
            row[key] = {"seconds": t[0], "nanoseconds": t[1]}
        rows.append(row)
    return rows, complete


def two_way_case(tap, pktstats, link, log_path):
    count = 8
    status, out, err = cli(link, pktstats, "-j", "dm", "two-way", "-i", "va", "peer", MAC_B,
                           "count", str(count), "interval", "20", "timeout", "1000", "level", "3",
                           "size", "100", "vlan", "100")
    try:
        got = json.loads(out)
    except ValueError:
        got = {}
    rows, complete = expected_two_way(count, 100)
    wrong = []
    frames = got.get("frames", [])
    for want in rows:
        g = frames[want["seq"]] if want["seq"] < len(frames) else {}
        for key, value in want.items():
            if g.get(key, "absent") != value:
                wrong.append("seq %d %s: got %r, want %r" % (want["seq"], key, g.get(key, "absent"),
                                                             value))
        if want["status"] == "lost" and any(g.get(k) is not None for k in
                                            ("tx_timestamp_f", "rx_timestamp_b")):
            wrong.append("seq %d: lost but stamps shown" % want["seq"])
    tap.point(status == 0 and len(frames) == count and not wrong,
              "dm two-way: every frame's VID, two-way, forward, backward, responder and "
              "variation delays are the responder's stamps worked out (the 2^32 s wrap, a "
              "negative kept)",
              "exit %s %s\n%s" % (status, err, "\n".join(wrong[:10])))
    two = [r["two_way_ns"] for r in complete]
    summary = got.get("summary", {})
    want = {"sent": 8, "received": 7, "lost": 1, "duplicates": 1, "unmatched": 1,
            "incomplete": 1, "negative": 1,
            "two_way_ns": figures(two),
            "forward_ns": figures([r["forward_ns"] for r in complete]),
            "backward_ns": figures([r["backward_ns"] for r in complete]),
            "variation_ns": figures([abs(two[i] - two[i - 1]) for i in range(1, len(two))])}
    tap.point(summary == want,
              "dm two-way: summary: sent 8, received 7, lost 1, duplicates 1, unmatched 1, "
              "incomplete 1, negative 1; min/avg/max/p50/p90/p99 of each delay",
              "got  %s\nwant %s" % (json.dumps(summary), json.dumps(want)))
    seen = [e for e in read_log(log_path) if e["kind"] == "dm" and e["opcode"] == 47]
    sessions = {e["session"] for e in seen}
    tap.point(len(seen) == count and [e["seq"] for e in seen] == list(range(count)) and
              len(sessions) == 1 and
              all(e["vid"] == 100 and e["level"] == 3 and e["length"] == 100 and
                  e["destination"] == MAC_B and e["data_length"] == 100 - 58 and
                  all(s == [0, 0] for s in e["stamps"]) for e in seen),
              "dm two-way: the DMMs on the wire: VID 100, MEL 3, 100 bytes, zero stamps, one "
              "session, sequence 0..7", json.dumps(seen[:3]))
    return got


def two_way_untagged_case(tap, pktstats, link, log_path):
    before = len(read_log(log_path))
    status, out, err = cli(link, pktstats, "dm", "two-way", "-i", "va", "peer", MAC_B, "count",
                           "2", "interval", "10", "timeout", "1000")
    seen = [e for e in read_log(log_path)[before:] if e["kind"] == "dm" and e["opcode"] == 47]
    lines = out.splitlines()
    tap.point(status == 0 and len(seen) == 2 and all(e["length"] == 62 and e["vid"] is None and
                                                     e["level"] == 0 for e in seen) and
              any(line.split()[:2] == ["1", "ok"] for line in lines) and
              "  sent             2" in out and "  received         2" in out,
              "dm two-way: untagged, default size: 62-byte DMMs at MEL 0; text output",
              "exit %s\n%s%s\n%s" % (status, out, err, seen))


def two_way_interrupted_case(tap, pktstats, link, log_path):
    """count 1000 at 20 ms (20 s), SIGINT after 1 s: what came back so far is printed."""
    before = len(read_log(log_path))
    command = ["ip", "netns", "exec", link.a, pktstats, "-j", "dm", "two-way", "-i", "va", "peer",
               MAC_B, "count", "1000", "interval", "20ms"]
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    p.send_signal(signal.SIGINT)  # ip netns exec passes it on (it execs)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    seen = [e for e in read_log(log_path)[before:] if e["kind"] == "dm" and e["opcode"] == 47]
    try:
        result = json.loads(out)
    except ValueError:
        result = {}
    summary, frames = result.get("summary", {}), result.get("frames", [])
    tap.point(p.returncode == 0 and 10 <= summary.get("sent", 0) < 1000
              and summary.get("sent") == len(frames) == len(seen)
              and summary.get("received", 0) >= summary.get("sent", 0) - 2  # seq 6 dropped, the last in flight
              and "interrupted after" in err,
              "dm two-way: SIGINT after 1 s of a 20 s run: the DMMs sent so far, their delays and "
              "the summary printed, exit 0",
              "exit %s, summary %s, %d frames, %d DMMs on the wire\n%s"
              % (p.returncode, summary, len(frames), len(seen), err))


def one_way_send_case(tap, pktstats, link, log_path):
    before = len(read_log(log_path))
    status, out, err = cli(link, pktstats, "-j", "dm", "one-way", "send", "-i", "va", "peer",
                           MAC_B, "count", "4", "interval", "10", "level", "6")
    time.sleep(0.3)
    seen = [e for e in read_log(log_path)[before:] if e["kind"] == "dm" and e["opcode"] == 45]
    got = json.loads(out) if status == 0 else {}
    tap.point(status == 0 and got.get("sent") == 4 and len(seen) == 4 and
              [e["seq"] for e in seen] == [0, 1, 2, 3] and
              all(e["length"] == 60 and e["level"] == 6 and e["stamps"] == [[0, 0], [0, 0]] and
                  "%08x" % e["session"] == got.get("session") for e in seen),
              "dm one-way send: four 60-byte 1DMs at MEL 6, zero stamps, session and sequence",
              "exit %s %s %s\n%s" % (status, out, err, seen))


def one_way_receive_case(tap, pktstats, link, this):
    command = ["ip", "netns", "exec", link.a, pktstats, "-j", "dm", "one-way", "receive", "-i",
               "va", "count", str(len(ONE_DM)), "timeout", "3000"]
    receiver = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    time.sleep(0.5)
    run("ip", "netns", "exec", link.b, sys.executable, this, "--send-1dm", "vb")
    try:
        out, err = receiver.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        receiver.kill()
        out, err = receiver.communicate()
    try:
        got = json.loads(out)
    except ValueError:
        got = {}
    rows, delays = [], []
    for k, (tx_f, delay, data) in enumerate(ONE_DM):
        row = {"index": k + 1, "source": MAC_B, "level": 4, "seq": k if data else None,
               "delay_ns": delay}
        if delay is None:
            row["status"] = "incomplete"
            row["variation_ns"] = None
        else:
            row["status"] = "negative" if delay < 0 else "ok"
            row["variation_ns"] = abs(delay - delays[-1]) if delays else None
            delays.append(delay)
        rx_f = add(tx_f, delay) if delay is not None else (0, 0)
        row["tx_timestamp_f"] = {"seconds": tx_f[0], "nanoseconds": tx_f[1]}
        row["rx_timestamp_f"] = {"seconds": rx_f[0], "nanoseconds": rx_f[1]}
        rows.append(row)
    frames = got.get("frames", [])
    wrong = ["%s\n  want %s" % (json.dumps(frames[i] if i < len(frames) else None), json.dumps(r))
             for i, r in enumerate(rows) if i >= len(frames) or frames[i] != r]
    tap.point(receiver.returncode == 0 and len(frames) == len(rows) and not wrong,
              "dm one-way receive: each 1DM's delay RxTimef - TxTimeStampf and variation "
              "(a negative kept, one incomplete, one without a Data TLV); other frames ignored",
              "exit %s %s\n%s" % (receiver.returncode, err, "\n".join(wrong[:4])))
    want = {"received": 5, "incomplete": 1, "negative": 1, "delay_ns": figures(delays),
            "variation_ns": figures([abs(delays[i] - delays[i - 1])
                                     for i in range(1, len(delays))])}
    tap.point(got.get("summary") == want, "dm one-way receive: summary figures",
              "got  %s\nwant %s" % (json.dumps(got.get("summary")), json.dumps(want)))


def headroom_case(tap, pktstats, link, log_path):
    before = len(read_log(log_path))
    status, out, err = cli(link, pktstats, "-j", "headroom", "measure", "-i", "va", "count", "6",
                           "interval", "10", "timeout", "300", "rate", "100")
    try:
        got = json.loads(out)
    except ValueError:
        got = {}
    seen = [e for e in read_log(log_path)[before:] if e["kind"] == "headroom"]
    tap.point(len(seen) == 6 and all(e["destination"] == GROUP and e["length"] == 60 and
                                     e["b14"] == 0x01 and e["b15"] == 0x11 and
                                     e["stamps"] == [[0, 0]] * 4 for e in seen),
              "headroom measure: six 60-byte requests to 01:80:c2:00:00:0e, zero stamps",
              json.dumps(seen[:2]))
    rows, rts = [], []
    for k in range(6):
        stamps, action = headroom_plan(k)
        if action == "drop":
            rows.append({"seq": k, "status": "lost", "round_trip_ns": None,
                         "cable_delay_ns": None, "t1": None, "t2": None, "t3": None, "t4": None})
            continue
        rt = diff(stamps[3], stamps[0]) - diff(stamps[2], stamps[1])
        if k == 5:
            row = {"seq": k, "status": "incomplete", "round_trip_ns": None,
                   "cable_delay_ns": None}
        else:
            rts.append(rt)
            row = {"seq": k, "status": "ok", "round_trip_ns": rt, "cable_delay_ns": rt / 2}
        for i, t in enumerate(stamps):
            row["t%d" % (i + 1)] = {"seconds": t[0], "nanoseconds": t[1]}
        rows.append(row)
    frames = got.get("frames", [])
    tap.point(status == 0 and frames == rows,
              "headroom measure: each response's round trip t4 - t1 - (t3 - t2) and cable delay, "
              "one request lost, one incomplete", "exit %s %s\ngot  %s\nwant %s" % (status, err, json.dumps(frames),
                                                                     json.dumps(rows)))
    worst = max(rts)
    total = 32992 + 203776 + worst * 100
    want_summary = {"sent": 6, "received": 5, "lost": 1, "unexpected": 0, "incomplete": 1,
                    "negative": 0, "round_trip_ns": figures(rts),
                    "cable_delay_ns": round(sum(rts) / len(rts) / 2, 1)}
    want_headroom = {"rate_mbps": 100000, "round_trip_ns": worst, "max_frame": 2000,
                     "fixed_bits": 32992, "internal_bits": 203776, "medium_bits": worst * 100,
                     "total_bits": total, "headroom_bytes": (total + 7) // 8,
                     "bytes_per_10ns": 125.0}
    tap.point(got.get("summary") == want_summary and got.get("headroom") == want_headroom,
              "headroom measure: summary (round trip %d..%d ns) and the PFC headroom at 100 Gb/s "
              "from the largest: %d bytes" % (min(rts), worst, (total + 7) // 8),
              "got  %s %s\nwant %s %s" % (json.dumps(got.get("summary")),
                                          json.dumps(got.get("headroom")),
                                          json.dumps(want_summary), json.dumps(want_headroom)))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--responder":
        responder(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "--send-1dm":
        send_one_dms(sys.argv[2])
        return 0
    if len(sys.argv) != 2:
        print("usage: %s PKTSTATS" % sys.argv[0], file=sys.stderr)
        return 2
    pktstats = os.path.abspath(sys.argv[1])
    this = os.path.abspath(__file__)
    tap = Tap()
    names = ["dm two-way: every frame", "dm two-way: summary", "dm two-way: the DMMs on the wire",
             "dm two-way: untagged", "dm two-way: interrupted", "dm one-way send", "dm one-way receive: frames",
             "dm one-way receive: summary", "headroom measure: requests",
             "headroom measure: round trips", "headroom measure: summary and headroom"]
    if os.geteuid() != 0 or not shutil.which("ip"):
        for name in names:
            tap.n += 1
            print("ok %d - %s # SKIP needs root and ip (network namespaces, veth)" % (tap.n, name))
        return tap.done()
    link = None
    responder_process = None
    with tempfile.TemporaryDirectory(prefix="pktstats-oam-live.") as work:
        log_path = os.path.join(work, "responder.log")
        try:
            link = Link()
            responder_process = subprocess.Popen(
                ["ip", "netns", "exec", link.b, sys.executable, this, "--responder", "vb",
                 log_path])
            time.sleep(0.5)
            two_way_case(tap, pktstats, link, log_path)
            two_way_untagged_case(tap, pktstats, link, log_path)
            two_way_interrupted_case(tap, pktstats, link, log_path)
            one_way_send_case(tap, pktstats, link, log_path)
            headroom_case(tap, pktstats, link, log_path)
            responder_process.kill()
            responder_process.wait()
            responder_process = None
            one_way_receive_case(tap, pktstats, link, this)
        except (subprocess.CalledProcessError, OSError) as e:
            tap.point(False, "the veth link and the responder",
                      "%s\n%s" % (e, getattr(e, "stderr", "")))
        finally:
            if responder_process:
                responder_process.kill()
                responder_process.wait()
            if link:
                link.close()
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
