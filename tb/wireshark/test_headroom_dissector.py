#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The headroom PDU dissector (sw/tools/wireshark/pktstats_headroom.lua) under tshark, against
frames whose every field the test wrote itself, then against the C decoder
(`pktstats -j oam decode`).

    tb/wireshark/test_headroom_dissector.py PKTSTATS [--keep DIR]

The capture is built here with struct, byte for byte from docs/oam.md ("Headroom measurement
PDU, version 1"), with no project code:
  requests    as the host writes one (no stamp), leaving A (t1), at B with the responder off
              (t1, t2), reserved bits set (malformed);
  responses   leaving B (t1..t3: no round trip), and back at A from exchanges with a known
              link delay: B's clock ahead and behind, an asymmetric link, the 32-bit seconds
              wrapping between t1 and t4 and between t2 and t3, nanoseconds 999,999,999 in
              every stamp, a round trip of 2^31 s (beyond a double's 2^53, exact only as
              Int64), a negative one (inconsistent stamps), 48 and 128 bytes long;
  malformed   one fault each: subtype 0 (IEEE 802.1Qcz CIM: named, not dissected), 2 and 15,
              encapsulation version 1, PDU version 0, 2 and 15, type 0 and 3, truncated at 9
              lengths from 14 to 47 bytes, nanoseconds 10^9 (t1, t4) and 2^32 - 1 (t2);
  others      IPv4/UDP, ARP, LLDP to the same group address, a Y.1731 DMM, a pktstats stat
              packet: nothing of them may be dissected as a headroom PDU.

Checks (one TAP point each): tshark runs cleanly; for every frame, the set of
pktstats_headroom fields and each value (seconds, nanoseconds, absolute time, round trip,
verdict, padding) is exactly what the test wrote, and so are the expert items; display filters
and -T fields; the dissector loaded together with pktstats.lua. Then `pktstats -j oam decode`
on the same file, field for field against the same truth and against tshark.

tshark runs as nobody when the test runs as root (as tb/wireshark/test_dissector.py does;
the dissectors are copied into the test's scratch directory, which is removed at the end).
PKTSTATS_HEADROOM_LUA=/path/to/copy.lua runs the test on another copy of the dissector.
Skips (TAP) without tshark.
"""

import argparse
import os
import shutil
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
sys.path.insert(0, HERE)
from tap_output import Tap  # noqa: E402
import oam_common as oc  # noqa: E402

LUA = os.environ.get("PKTSTATS_HEADROOM_LUA") or os.path.join(
    ROOT, "sw", "tools", "wireshark", "pktstats_headroom.lua")
STAT_LUA = os.path.join(ROOT, "sw", "tools", "wireshark", "pktstats.lua")
P = "pktstats_headroom"
GROUP = "01:80:c2:00:00:0e"
HOST_A = "02:00:00:00:0a:01"
PORT_B = "02:00:00:00:0b:02"
BILLION = 1_000_000_000
ZERO = (0, 0)
REQUEST, RESPONSE = 1, 2


class Frame:
    """One pcap record and what the test wrote into it."""

    def __init__(self, name, data, kind="headroom", **truth):
        self.name = name
        self.data = data
        self.kind = kind               # headroom, dm (another OAM frame), other
        self.encapsulation = truth.get("encapsulation")
        self.subtype = truth.get("subtype")
        self.version = truth.get("version")
        self.reserved = truth.get("reserved")
        self.type = truth.get("type")
        self.stamps = truth.get("stamps")
        self.error = truth.get("error")
        self.experts = set(truth.get("experts", ()))
        self.round_trip = truth.get("round_trip")
        # Whether docs/oam.md and enum pktstats_oam_error fix the C parser's verdict for this
        # frame (not for an encapsulation version other than 0).
        self.verdict_defined = truth.get("verdict_defined", True)
        self.source = truth.get("source", HOST_A)


def stamp(total_ns):
    """A wire stamp of a time in ns: the low 32 bits of the seconds, and the nanoseconds."""
    return ((total_ns // BILLION) % (1 << 32), total_ns % BILLION)


def exchange(t1_ns, offset_ns, forward, residence, backward):
    """The four stamps of one measurement: A sends at t1 (A's clock), the request takes
    `forward` ns, B (clock ahead of A by offset_ns) keeps it `residence` ns, the response
    takes `backward` ns. The true round trip is forward + backward."""
    t2 = t1_ns + forward + offset_ns
    t3 = t2 + residence
    t4 = t1_ns + forward + residence + backward
    return [stamp(t1_ns), stamp(t2), stamp(t3), stamp(t4)], forward + backward


def pdu(b14, b15, stamps, source=HOST_A, length=60, padding=None):
    """A headroom frame, docs/oam.md byte map: bytes 0..5 destination, 6..11 source, 12..13
    0x89A2, 14 encapsulation version | subtype, 15 version | reserved | type, 16..47 t1..t4
    (each 32-bit seconds, 32-bit nanoseconds, big-endian), then padding to `length`."""
    data = oc.mac(GROUP) + oc.mac(source) + struct.pack("!H", 0x89A2) + bytes([b14, b15])
    for seconds, nanoseconds in stamps:
        data += struct.pack("!II", seconds, nanoseconds)
    if padding is None:
        padding = bytes(max(0, length - len(data)))
    return data + padding


def headroom(name, kind_type, stamps, version=1, reserved=0, encapsulation=0, subtype=1,
             **rest):
    b14 = encapsulation << 4 | subtype
    b15 = version << 4 | reserved << 2 | kind_type
    frame_args = {k: rest.pop(k) for k in ("source", "length", "padding") if k in rest}
    data = pdu(b14, b15, stamps, **frame_args)
    if "cut" in rest:
        data = data[:rest.pop("cut")]
    return Frame(name, data, encapsulation=encapsulation, subtype=subtype, version=version,
                 reserved=reserved, type=kind_type, stamps=list(stamps),
                 source=frame_args.get("source", HOST_A), **rest)


def ethernet(dst, src, ethertype, payload):
    data = oc.mac(dst) + oc.mac(src) + struct.pack("!H", ethertype) + payload
    return data + bytes(max(0, 60 - len(data)))


def ipv4_udp(sport, dport, payload):
    total = 28 + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 1, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    words = struct.unpack("!10H", ip)
    total_sum = sum(words)
    while total_sum >> 16:
        total_sum = (total_sum & 0xffff) + (total_sum >> 16)
    ip = ip[:10] + struct.pack("!H", ~total_sum & 0xffff) + ip[12:]
    return ip + struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def build_frames():
    frames = []
    add = frames.append
    t1 = 1_700_000_000 * BILLION + 123_456_789

    # Requests.
    add(headroom("request as the host writes it (no stamp)", REQUEST, [ZERO] * 4))
    add(headroom("request leaving A (t1)", REQUEST, [stamp(t1), ZERO, ZERO, ZERO]))
    stamps, _ = exchange(t1, 3_500_000_000, 512, 0, 0)
    add(headroom("request at B, responder off (t1, t2)", REQUEST, stamps[:2] + [ZERO, ZERO]))
    add(headroom("request with reserved bits 11", REQUEST, [stamp(t1)] + [ZERO] * 3, reserved=3,
                 error="bad_reserved", experts={"bad_reserved"}))

    # Responses.
    stamps, _ = exchange(t1, 3_500_000_000, 500, 1234, 500)
    add(headroom("response leaving B (t1..t3): no round trip", RESPONSE, stamps[:3] + [ZERO],
                 source=PORT_B))
    add(headroom("response back at A, B's clock 3.5 s ahead", RESPONSE, stamps,
                 round_trip=1000, source=PORT_B))
    stamps, rtt = exchange(t1, -1000 * BILLION, 300, 50_000, 900)
    add(headroom("response, B's clock 1000 s behind, asymmetric link", RESPONSE, stamps,
                 round_trip=rtt))
    stamps, rtt = exchange(((1 << 32) - 1) * BILLION + 999_999_999, 2, 1, 1, 1)
    assert stamps[0] == (0xffffffff, 999_999_999) and stamps[3] == (0, 2)
    add(headroom("response, seconds wrap at 2^32 between t1 and t4", RESPONSE, stamps,
                 round_trip=rtt))
    stamps, rtt = exchange(5 * BILLION, ((1 << 32) - 10) * BILLION, 700, 20 * BILLION, 1300)
    assert stamps[1][0] > stamps[2][0]
    add(headroom("response, B's seconds wrap between t2 and t3 (20 s residence)", RESPONSE,
                 stamps, round_trip=rtt))
    stamps, rtt = exchange(100 * BILLION + 999_999_999, 100 * BILLION, 0, BILLION, BILLION)
    assert all(ns == 999_999_999 for _, ns in stamps)
    add(headroom("response, nanoseconds 999999999 in every stamp", RESPONSE, stamps,
                 round_trip=rtt))
    stamps = [(1, 1), (1000, 0), (1000, 0), (1 << 31, 999_999_999)]
    add(headroom("response, round trip 2^31 s - 2 ns (exact beyond 2^53)", RESPONSE, stamps,
                 round_trip=(1 << 31) * BILLION - 2))
    stamps = [(10, 0), (10, 0), (10, 1000), (10, 500)]
    add(headroom("response with inconsistent stamps: round trip -500 ns", RESPONSE, stamps,
                 round_trip=-500))
    stamps, rtt = exchange(t1, 0, 8, 96, 8)
    add(headroom("response of 48 bytes (no padding)", RESPONSE, stamps, round_trip=rtt,
                 length=48))
    add(headroom("response of 128 bytes, padding not zero", RESPONSE, stamps, round_trip=rtt,
                 padding=bytes(range(1, 81))))

    # Malformed, one fault each.
    cim = oc.mac(GROUP) + oc.mac(HOST_A) + struct.pack("!H", 0x89A2) + bytes([0x00]) + \
        bytes(range(0x40, 0x40 + 45))
    add(Frame("subtype 0: an 802.1Qcz congestion isolation message", cim, encapsulation=0,
              subtype=0, error="bad_subtype", experts={"cim"}))
    full = [stamp(t1)] * 4
    for subtype in (2, 15):
        add(headroom("subtype %d" % subtype, REQUEST, full, subtype=subtype,
                     error="bad_subtype", experts={"bad_subtype"}))
    add(headroom("encapsulation version 1", REQUEST, full, encapsulation=1, error="bad_version",
                 experts={"bad_version"}, verdict_defined=False))
    for version in (0, 2, 15):
        add(headroom("PDU version %d" % version, REQUEST, full, version=version,
                     error="bad_version", experts={"bad_version"}))
    for kind_type in (0, 3):
        add(headroom("type %d" % kind_type, kind_type, full, error="bad_type",
                     experts={"bad_type"}))
    stamps, _ = exchange(t1, 0, 8, 96, 8)
    for cut in (14, 15, 16, 17, 23, 24, 31, 40, 47):
        add(headroom("truncated: a response cut to %d bytes" % cut, RESPONSE, stamps, cut=cut,
                     error="truncated", experts={"truncated"}))
    add(headroom("nanoseconds 10^9 in t1 (request)", REQUEST, [(7, BILLION), ZERO, ZERO, ZERO],
                 error="bad_timestamp", experts={"bad_timestamp"}))
    add(headroom("nanoseconds 10^9 in t4 (response)", RESPONSE, stamps[:3] + [(9, BILLION)],
                 error="bad_timestamp", experts={"bad_timestamp"}))
    add(headroom("nanoseconds 2^32 - 1 in t2 (response)", RESPONSE,
                 [stamps[0], (9, 0xffffffff)] + stamps[2:], error="bad_timestamp",
                 experts={"bad_timestamp"}))

    # Other frames.
    add(Frame("IPv4/UDP", ethernet("02:00:00:00:00:02", HOST_A, 0x0800,
                                   ipv4_udp(5000, 5001, b"hello")), kind="other"))
    arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, oc.mac(HOST_A), bytes([10, 0, 0, 1]),
                      bytes(6), bytes([10, 0, 0, 2]))
    add(Frame("ARP", ethernet("ff:ff:ff:ff:ff:ff", HOST_A, 0x0806, arp), kind="other"))
    lldp = bytes([0x02, 0x07, 0x04]) + oc.mac(HOST_A) + bytes([0x04, 0x02, 0x07, 0x31,
                                                               0x06, 0x02, 0x00, 0x78, 0, 0])
    add(Frame("LLDP to the same group address", ethernet(GROUP, HOST_A, 0x88CC, lldp),
              kind="other"))
    dmm = bytes([3 << 5, 47, 0, 32]) + struct.pack("!II", *stamp(t1)) + bytes(24) + b"\x00"
    add(Frame("Y.1731 DMM", ethernet("02:00:00:00:00:02", HOST_A, 0x8902, dmm), kind="dm"))
    stat = bytes([0x02, 3]) + struct.pack("!I8I", 77, *range(8)) + \
        struct.pack("!IIII", 0, 1000, 1 << 30 | 1 << 27 | 8 << 19 | 5, 0)
    add(Frame("pktstats stat packet (UDP 27033)", ethernet("02:00:00:00:00:09", HOST_A, 0x0800,
                                                           ipv4_udp(27033, 27033, stat)),
              kind="other"))
    return frames


# ---------------------------------------------------------------------------------------------
# What tshark must show

def filled(s):
    return s != ZERO


def expected_fields(fr):
    """{field: [values]} the dissector must give frame `fr` (docs/wireshark.md), from what the
    test wrote; absolute times as (seconds, nanoseconds)."""
    if fr.kind != "headroom":
        return {}
    length = len(fr.data) - 14  # bytes after the EtherType
    out = {P: [""]}

    def put(name, value):
        out.setdefault(P + "." + name, []).append(str(value))

    if fr.error:
        put("error", fr.error)
    if length < 1:
        return out
    put("encapsulation_version", fr.encapsulation)
    put("subtype", fr.subtype)
    if fr.subtype != 1 or fr.encapsulation != 0 or length < 2:
        return out
    put("version", fr.version)
    if fr.version != 1:
        return out
    put("reserved", fr.reserved)
    if fr.reserved != 0:
        return out
    put("type", fr.type)
    for i, s in enumerate(fr.stamps):
        if 2 + 8 * (i + 1) > length:
            break
        name = "t%d" % (i + 1)
        put(name, "")
        put(name + ".seconds", s[0])
        put(name + ".nanoseconds", s[1])
        if filled(s) and s[1] < BILLION:
            out.setdefault(P + "." + name + ".time", []).append(s)
    if length > 34:
        put("padding", ":".join("%02x" % b for b in fr.data[48:]))
    if fr.round_trip is not None:
        put("round_trip", fr.round_trip)
    return out


def tshark_fields(flat):
    """The pktstats_headroom fields of one frame (times parsed) and its expert item names."""
    fields, experts = {}, set()
    for name, values in flat.items():
        if name.startswith(P + ".expert."):
            experts.add(name[len(P + ".expert."):])
        elif name == P or name.startswith(P + "."):
            if name.endswith(".time"):
                values = [oc.absolute_time(v) for v in values]
            fields[name] = values
    return fields, experts


def field_differences(want, got):
    diff = []
    for name in sorted(set(want) | set(got)):
        if want.get(name) != got.get(name):
            diff.append("%s: wrote %s, tshark %s" % (name, want.get(name, "(absent)"),
                                                     got.get(name, "(absent)")))
    return diff


# ---------------------------------------------------------------------------------------------
# The C decoder

def c_view(record):
    """A C decoder record as (field -> value) in the test's terms."""
    kind = record.get("type")
    kind = {"request": REQUEST, "response": RESPONSE}.get(kind, kind)
    out = {"encapsulation_version": record.get("encapsulation_version"),
           "subtype": record.get("subtype"), "version": record.get("version"), "type": kind,
           "round_trip": record.get("round_trip_ns"), "error": oc.error_name(record.get("error")),
           "destination": str(record.get("destination", "")).lower(),
           "source": str(record.get("source", "")).lower()}
    for i in range(4):
        out["t%d" % (i + 1)] = oc.stamp_of(record.get("t%d" % (i + 1)))
    return out


def tshark_view(fields):
    """tshark's fields of one frame in the same terms as c_view."""
    def one(name, convert=int):
        values = fields.get(P + "." + name)
        return convert(values[0]) if values else None

    out = {"encapsulation_version": one("encapsulation_version"), "subtype": one("subtype"),
           "version": one("version"), "type": one("type"), "round_trip": one("round_trip"),
           "error": one("error", str)}
    for i in range(4):
        name = "t%d" % (i + 1)
        seconds, ns = one(name + ".seconds"), one(name + ".nanoseconds")
        out[name] = None if seconds is None else (seconds, ns)
    return out


def compared_keys(fr):
    """The fields both sides must agree on for frame `fr`: all for a valid frame or a bad
    stamp; for another verdict only what the parser read before finding it (docs/oam.md byte
    order); the verdict itself only where docs/oam.md and the C enum fix it."""
    keys = ["encapsulation_version", "subtype"]
    if fr.error in (None, "bad_timestamp"):
        keys = ["encapsulation_version", "subtype", "version", "type", "t1", "t2", "t3", "t4",
                "round_trip"]
    elif fr.error == "truncated":
        keys = []
    elif fr.error in ("bad_version", "bad_reserved") and fr.encapsulation == 0:
        keys += ["version"]
    elif fr.error == "bad_type":
        keys += ["version", "type"]
    if fr.verdict_defined:
        keys.append("error")
    return keys


def truth_view(fr):
    return {"encapsulation_version": fr.encapsulation, "subtype": fr.subtype,
            "version": fr.version, "type": fr.type, "round_trip": fr.round_trip,
            "error": fr.error, "t1": fr.stamps[0] if fr.stamps else None,
            "t2": fr.stamps[1] if fr.stamps else None, "t3": fr.stamps[2] if fr.stamps else None,
            "t4": fr.stamps[3] if fr.stamps else None,
            "destination": GROUP, "source": fr.source}


def compare_c(tap, cli, pcap, frames, rows):
    result = oc.oam_decode_point(tap, cli, pcap)
    if result is None:
        return
    records = {r.get("index"): r for r in result["frames"]}
    headroom_index = [i + 1 for i, fr in enumerate(frames) if fr.kind == "headroom"]
    dm_index = [i + 1 for i, fr in enumerate(frames) if fr.kind == "dm"]
    others = sum(1 for fr in frames if fr.kind == "other")
    got_headroom = sorted(i for i, r in records.items() if r.get("protocol") == "headroom")
    got_dm = sorted(i for i, r in records.items() if r.get("protocol") == "dm")
    tap.point(got_headroom == headroom_index and got_dm == dm_index and
              result.get("other") == others and len(records) == len(result["frames"]),
              "C decoder: the %d headroom frames, the DMM and %d other frames, as written"
              % (len(headroom_index), others),
              "headroom %s (want %s), dm %s (want %s), other %s (want %d)"
              % (got_headroom, headroom_index, got_dm, dm_index, result.get("other"), others))
    bad_truth, bad_tshark = [], []
    for index in headroom_index:
        fr = frames[index - 1]
        r = records.get(index)
        if r is None:
            continue
        mine = c_view(r)
        if r.get("file") != pcap:
            bad_truth.append("frame %d: file %s" % (index, r.get("file")))
        for name in ("destination", "source"):
            if mine[name] != truth_view(fr)[name]:
                bad_truth.append("frame %d (%s): %s %s, wrote %s"
                                 % (index, fr.name, name, mine[name], truth_view(fr)[name]))
        ts = tshark_view(rows[index - 1][0]) if index - 1 < len(rows) else {}
        truth = truth_view(fr)
        for key in compared_keys(fr):
            if mine[key] != truth[key]:
                bad_truth.append("frame %d (%s): %s: C %s, wrote %s"
                                 % (index, fr.name, key, mine[key], truth[key]))
            if mine[key] != ts.get(key):
                bad_tshark.append("frame %d (%s): %s: C %s, tshark %s"
                                  % (index, fr.name, key, mine[key], ts.get(key)))
        if not fr.verdict_defined:
            tap.comment("frame %d (%s): C says %s, the dissector %s (not fixed by docs/oam.md)"
                        % (index, fr.name, mine["error"], ts.get("error")))
    tap.point(not bad_truth, "C decoder: every headroom field and verdict as written "
              "(%d frames)" % len(headroom_index), "\n".join(bad_truth))
    tap.point(not bad_tshark, "C decoder and tshark agree field for field", "\n".join(bad_tshark))
    n_bad = sum(1 for r in result["frames"] if r.get("error") is not None)
    defined_bad = sum(1 for fr in frames if fr.error and fr.verdict_defined)
    undefined = sum(1 for fr in frames if not fr.verdict_defined)
    tap.point(result.get("malformed") == n_bad and defined_bad <= n_bad <= defined_bad + undefined,
              "C decoder: \"malformed\" counts the frames with an error (%d)" % n_bad,
              "malformed %s, frames with an error %d, expected %d..%d"
              % (result.get("malformed"), n_bad, defined_bad, defined_bad + undefined))


# ---------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cli", help="the pktstats CLI (for `pktstats -j oam decode`)")
    parser.add_argument("--keep", help="keep the capture and the dissector copy in this directory")
    args = parser.parse_args()
    tap = Tap()
    if not shutil.which("tshark"):
        print("1..0 # SKIP tshark is not installed (make deps)")
        return 0
    work = tempfile.mkdtemp(prefix="pktstats-headroom-")
    os.chmod(work, 0o755)  # tshark may run as nobody
    try:
        lua = os.path.join(work, "pktstats_headroom.lua")
        shutil.copy(LUA, lua)
        stat_lua = os.path.join(work, "pktstats.lua")
        shutil.copy(STAT_LUA, stat_lua)
        for path in (lua, stat_lua):
            os.chmod(path, 0o644)
        frames = build_frames()
        pcap = os.path.join(work, "headroom.pcap")
        oc.write_pcap(pcap, [fr.data for fr in frames])
        script = ["-X", "lua_script:" + lua]

        flats, status, stderr = oc.tshark_json(pcap, work, script)
        tap.point(status == 0 and not stderr.strip() and len(flats) == len(frames),
                  "tshark with the dissector runs cleanly on %d frames" % len(frames),
                  "exit %s, %d frames, stderr: %s" % (status, len(flats), stderr))
        rows = [tshark_fields(flat) for flat in flats]
        for i, fr in enumerate(frames):
            fields, experts = rows[i] if i < len(rows) else ({}, set())
            diff = field_differences(expected_fields(fr), fields)
            if experts != fr.experts:
                diff.append("expert items: wrote %s, tshark %s" % (sorted(fr.experts),
                                                                   sorted(experts)))
            flat = flats[i] if i < len(flats) else {}
            if "_ws.lua.error" in flat:
                diff.append("a Lua error: %s" % [k for k in flat if k.startswith("Lua Error")])
            if fr.kind == "headroom" and not fr.error and "_ws.malformed" in flat:
                diff.append("tshark calls a valid frame malformed")
            label = "frame %d, %s: %s" % (i + 1, fr.name, "every field as written"
                                          if fr.kind == "headroom" else "not a headroom PDU")
            tap.point(not diff, label, "\n".join(diff))

        # Display filters and -T fields, as docs/wireshark.md shows them.
        out, status, _ = oc.run_tshark(script + ["-r", pcap, "-Y", P + " && !" + P + ".error",
                                                 "-T", "fields", "-e", "frame.number",
                                                 "-e", P + ".round_trip"], work)
        got = [line.split("\t") for line in out.splitlines()]
        want = [[str(i + 1), "" if fr.round_trip is None else str(fr.round_trip)]
                for i, fr in enumerate(frames) if fr.kind == "headroom" and not fr.error]
        tap.point(status == 0 and got == want,
                  "-Y '%s && !%s.error' -T fields: the valid frames and their round trips"
                  % (P, P), "got %s\nwant %s" % (got, want))
        out, status, _ = oc.run_tshark(script + ["-r", pcap, "-Y", P + ".round_trip < 0", "-T",
                                                 "fields", "-e", "frame.number"], work)
        want = [str(i + 1) for i, fr in enumerate(frames)
                if fr.round_trip is not None and fr.round_trip < 0]
        tap.point(status == 0 and out.split() == want,
                  "-Y '%s.round_trip < 0': the inconsistent response" % P, out)

        # Loaded beside pktstats.lua: each takes its own frames.
        out, status, stderr = oc.run_tshark(["-X", "lua_script:" + stat_lua] + script +
                                            ["-r", pcap, "-T", "fields", "-e", "frame.number",
                                             "-e", "pktstats.seq", "-e", P + ".subtype"], work)
        got = [line.split("\t") for line in out.splitlines()]
        want = [[str(i + 1), "77" if fr.name.startswith("pktstats stat") else "",
                 str(fr.subtype) if fr.kind == "headroom" and len(fr.data) > 14 else ""]
                for i, fr in enumerate(frames)]
        tap.point(status == 0 and not stderr.strip() and got == want,
                  "loaded together with pktstats.lua, each dissector takes its own frames",
                  "stderr %s\n%s" % (stderr, "\n".join("frame %s: got %s, want %s" % (w[0], g, w)
                                                      for g, w in zip(got, want) if g != w)))

        compare_c(tap, args.cli, pcap, frames, rows)
    finally:
        if args.keep:
            shutil.rmtree(args.keep, ignore_errors=True)
            shutil.copytree(work, args.keep)
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
