#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The ISL shim (sw/tools/wireshark/pktstats_isl.lua) under tshark: OpenKilda discovery and
round-trip packets (docs/isl.md), written with tb/common/isl_frames.py, must be decoded by
tshark's own LLDP dissector field for field as the test wrote them, and must not be decoded as
LLDP without the shim.

    tb/wireshark/test_isl_dissector.py [--keep DIR]

The capture:
  discovery    as the controller writes it (T0, T1 zero), leaving switch A (T0 set), unsigned
               (no token TLV), another switch and port, a datapath ID with its top bit set;
  round trip   back at A on UDP 61232 with T0 and T1, T1 nanoseconds 999,999,999; one from
               source port 50000 (a real round trip keeps source port 61231, which Wireshark
               tries first: this frame is what proves the 61232 registration);
  others       the same LLDPDU on UDP 61230 -> 61230 (not a discovery port): never LLDP.

Checks (one TAP point each): tshark runs cleanly with the shim; for every frame the LLDP TLV
types and lengths, chassis ID (subtype 4, MAC), port ID (subtype 2, the port number), TTL,
and each organisation-specific TLV (OUI 00:26:e1, subtype, content) are what the test wrote;
tshark places T0's content at byte 66 and T1's at byte 80; tshark finds the IPv4 and UDP
checksums good; -T fields as docs/wireshark.md shows it; without the shim, no frame is LLDP.

tshark runs as nobody when the test runs as root (tb/wireshark/oam_common.py; the shim is
copied into the test's scratch directory, which is removed at the end).
PKTSTATS_ISL_LUA=/path/to/copy.lua runs the test on another copy of the shim.
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
import isl_frames as isl  # noqa: E402
import oam_common as oc  # noqa: E402

LUA = os.environ.get("PKTSTATS_ISL_LUA") or os.path.join(
    ROOT, "sw", "tools", "wireshark", "pktstats_isl.lua")
SECRET = b"isl-test-secret"
OUI_NUMBER = str(0x0026E1)   # lldp.orgtlv.oui is a number in tshark's JSON


def colons(data):
    return ":".join("%02x" % b for b in data)


class Frame:
    def __init__(self, name, data, lldp=True):
        self.name = name
        self.data = data
        self.lldp = lldp


def other_port(frame, sport=61230, dport=61230):
    """The same frame on UDP sport -> dport, checksum fixed."""
    frame = bytearray(frame)
    struct.pack_into(">HH", frame, isl.UDP, sport, dport)
    return isl.fix_udp_checksum(bytes(frame))


def build_frames():
    a, b = 0x0000020000000a01, 0x0000020000000b02
    ip_a, ip_b = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    ts = 1764080000123
    fresh = isl.discovery(a, 3, ip_a, ts, SECRET, packet_id=1)
    out = isl.with_t0(fresh, (1764080000, 123456789))
    back = isl.round_trip_copy(out, (1764080000, 999999999))
    return [
        Frame("discovery from the controller (T0, T1 zero)", fresh),
        Frame("discovery leaving A (T0)", out),
        Frame("round trip back at A (T0, T1)", back),
        Frame("discovery unsigned", isl.discovery(b, 65534, ip_b, ts + 5, sign=False)),
        Frame("discovery, dpid top bit set", isl.with_t0(
            isl.discovery(0x8000020000000c03, 1, ip_b, ts + 9, SECRET, packet_id=2**40),
            (4294967295, 1))),
        Frame("round trip, another switch", isl.round_trip_copy(isl.with_t0(
            isl.discovery(b, 48, ip_b, ts, SECRET, packet_id=77), (1, 0)), (2, 5))),
        Frame("round trip from UDP 50000 (61232 registered)", other_port(back, 50000, 61232)),
        Frame("LLDPDU on UDP 61230 (not a discovery port)", other_port(out), lldp=False),
    ]


def expected(frame):
    """{field: [values]} tshark's lldp dissector must show for what isl_frames wrote, read
    from the frame's bytes by the TLV walk here (not by isl_frames.parse)."""
    ulen = struct.unpack_from(">H", frame, isl.UDP + 4)[0]
    tlvs = isl.parse_tlvs(frame[isl.LLDP:isl.UDP + ulen])
    want = {"lldp.tlv.type": [str(t) for t, _ in tlvs],
            "lldp.tlv.len": [str(len(v)) for _, v in tlvs],
            "lldp.orgtlv.oui": [], "lldp.unknown_subtype": [],
            "lldp.unknown_subtype.content": []}
    for kind, value in tlvs:
        if kind == isl.TLV_CHASSIS_ID:
            want["lldp.chassis.subtype"] = [str(value[0])]
            want["lldp.chassis.id.mac"] = [colons(value[1:])]
        elif kind == isl.TLV_PORT_ID:
            want["lldp.port.subtype"] = [str(value[0])]
            want["port label"] = ["Port Subtype = Port component, Id: %s" % value[1:].hex()]
        elif kind == isl.TLV_TTL:
            want["lldp.time_to_live"] = [str(struct.unpack(">H", value)[0])]
        elif kind == isl.TLV_ORG:
            want["lldp.orgtlv.oui"].append(str(int.from_bytes(value[:3], "big")))
            want["lldp.unknown_subtype"].append(str(value[3]))
            want["lldp.unknown_subtype.content"].append(colons(value[4:]))
    return want


def seen(flat):
    got = {k: flat.get(k, []) for k in ("lldp.tlv.type", "lldp.tlv.len", "lldp.orgtlv.oui",
                                         "lldp.unknown_subtype", "lldp.unknown_subtype.content",
                                         "lldp.chassis.subtype", "lldp.chassis.id.mac",
                                         "lldp.port.subtype", "lldp.time_to_live")}
    got["port label"] = [k for k in flat if k.startswith("Port Subtype = ")]
    return got


def content_positions(flat):
    """{subtype: byte offset of its content} from -x's lldp.unknown_subtype.content_raw
    ([hex, position, length, bitmask, type] per occurrence, flattened)."""
    raw = flat.get("lldp.unknown_subtype.content_raw", [])
    subs = flat.get("lldp.unknown_subtype", [])
    return {int(s): raw[5 * i + 1] for i, s in enumerate(subs) if 5 * i + 1 < len(raw)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", help="keep the capture and the shim copy in this directory")
    args = parser.parse_args()
    tap = Tap()
    if not shutil.which("tshark"):
        print("1..0 # SKIP tshark is not installed (make deps)")
        return 0
    work = tempfile.mkdtemp(prefix="pktstats-isl-")
    os.chmod(work, 0o755)  # tshark may run as nobody
    try:
        lua = os.path.join(work, "pktstats_isl.lua")
        shutil.copy(LUA, lua)
        os.chmod(lua, 0o644)
        frames = build_frames()
        pcap = os.path.join(work, "isl.pcap")
        oc.write_pcap(pcap, [fr.data for fr in frames])
        script = ["-X", "lua_script:" + lua]
        checks = ["-o", "udp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE"]

        flats, status, stderr = oc.tshark_json(pcap, work, script + checks + ["-x"])
        tap.point(status == 0 and not stderr.strip() and len(flats) == len(frames),
                  "tshark with the shim runs cleanly on %d frames" % len(frames),
                  "exit %s, %d frames, stderr: %s" % (status, len(flats), stderr))
        for i, fr in enumerate(frames):
            flat = flats[i] if i < len(flats) else {}
            diff = []
            if "_ws.lua.error" in flat or any(k.startswith("Lua Error") for k in flat):
                diff.append("a Lua error")
            if "_ws.malformed" in flat:
                diff.append("tshark calls the frame malformed")
            if flat.get("udp.checksum.status") != ["1"] or flat.get("ip.checksum.status") != ["1"]:
                diff.append("checksum status ip %s udp %s (1 = good)" % (
                    flat.get("ip.checksum.status"), flat.get("udp.checksum.status")))
            if fr.lldp:
                want, got = expected(fr.data), seen(flat)
                for key in want:
                    if want[key] != got.get(key):
                        diff.append("%s: wrote %s, tshark %s" % (key, want[key], got.get(key)))
                pos = content_positions(flat)
                if pos.get(isl.SUB_T0) != 66 or pos.get(isl.SUB_T1) != 80:
                    diff.append("T0/T1 content at %s/%s, not 66/80" % (pos.get(isl.SUB_T0),
                                                                      pos.get(isl.SUB_T1)))
                label = "frame %d, %s: every LLDP field as written, T0 at 66, T1 at 80" % (
                    i + 1, fr.name)
            else:
                if "lldp" in flat:
                    diff.append("decoded as LLDP")
                label = "frame %d, %s: not LLDP" % (i + 1, fr.name)
            tap.point(not diff, label, "\n".join(diff))

        # -T fields as docs/wireshark.md shows it: T0 and T1 of the round trips
        out, status, _ = oc.run_tshark(script + [
            "-r", pcap, "-Y", "udp.dstport == 61232", "-T", "fields", "-E", "occurrence=a",
            "-E", "aggregator=,", "-e", "frame.number", "-e", "lldp.unknown_subtype",
            "-e", "lldp.unknown_subtype.content"], work)
        want = []
        for i, fr in enumerate(frames):
            if fr.lldp and fr.data[isl.UDP + 2:isl.UDP + 4] == b"\xef\x30":
                exp = expected(fr.data)
                want.append([str(i + 1), ",".join(exp["lldp.unknown_subtype"]),
                             ",".join(c.replace(":", "") for c in
                                      exp["lldp.unknown_subtype.content"])])
        got = [line.split("\t") for line in out.splitlines()]
        tap.point(status == 0 and got == want and len(want) == 3,
                  "-Y 'udp.dstport == 61232' -T fields: the round trips' subtypes and contents (hex)",
                  "got %s\nwant %s" % (got, want))

        # Without the shim, tshark must not see LLDP in any frame: the shim does the work.
        flats, status, stderr = oc.tshark_json(pcap, work)
        bad = [i + 1 for i, flat in enumerate(flats) if "lldp" in flat or "data" not in flat]
        tap.point(status == 0 and len(flats) == len(frames) and not bad,
                  "without the shim no frame decodes as LLDP (UDP payload stays data)",
                  "frames %s, exit %s, %s" % (bad, status, stderr))
    finally:
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for name in os.listdir(work):
                shutil.copy(os.path.join(work, name), args.keep)
        shutil.rmtree(work, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
