#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tb/common/isl_frames.py against values it did not compute itself:

  - OpenKilda's published timestamp vectors (telstra/open-kilda,
    src-java/floodlight-service/floodlight-modules/src/test/java/org/openkilda/floodlight/
    pathverification/PathVerificationCommonTests.java): 07 5b cd 15 3a de 68 b1 is
    123456789_987654321 ns, and T1 999999999_999999999 minus it is 876543210_012345678;
    PathVerificationPacketInTest.java's T0 01 02 03 04 01 02 03 04;
  - OpenKilda's T0/T1 offsets (ROUND_TRIP_LATENCY_T0_OFFSET = 528 bits, T1 = 640 bits in
    PathVerificationService.java) and seed 000's drawing: bytes 66 and 80, each right behind
    its subtype byte (4, 5), as PathVerificationCommonTests.assertRoundTripLatencyOffset checks;
  - a discovery frame written out here by hand, byte for byte from docs/isl.md;
  - the worked IPv4 header checksum example of Wikipedia's "Internet checksum" pages (b861),
    and the JWS HS256 example
    of RFC 7515 appendix A.1 (the signature of a token signed elsewhere).

    tb/common/test_isl_frames.py
Prints TAP.
"""

import base64
import hashlib
import hmac
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap_output import Tap  # noqa: E402
import isl_frames as isl  # noqa: E402

# RFC 7515 A.1 (JWS using HMAC SHA-256): the token and its key (JWK "k", base64url)
RFC7515_TOKEN = (b"eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
                 b".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9p"
                 b"c19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
RFC7515_KEY = ("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1"
               "Z9CAow")


def key_bytes(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main():
    tap = Tap()

    # --- timestamps: OpenKilda's vectors
    t0 = bytes([0x07, 0x5b, 0xcd, 0x15, 0x3a, 0xde, 0x68, 0xb1])
    tap.point(isl.noviflow_timestamp(t0) == 123456789_987654321,
              "noviflowTimestamp(07 5b cd 15 3a de 68 b1) = 123456789_987654321 (OpenKilda)",
              isl.noviflow_timestamp(t0))
    tap.point(isl.round_trip(isl.noviflow_timestamp(t0), 999999999_999999999) ==
              876543210_012345678, "T1 999999999_999999999 - T0 = 876543210_012345678")
    tap.point(isl.round_trip(isl.noviflow_timestamp(t0), -1) == -1 and
              isl.round_trip(-1, 999999999_999999999) == -1 and isl.round_trip(0, 5) == -1,
              "an incomplete timestamp gives -1 (calculateRoundTripLatency)")
    packet_in_t0 = bytes([1, 2, 3, 4, 1, 2, 3, 4])
    tap.point(isl.noviflow_timestamp(packet_in_t0) == 16909060 * 10**9 + 16909060,
              "noviflowTimestamp(01 02 03 04 01 02 03 04) = 16909060 s + 16909060 ns")
    tap.point(isl.noviflow_timestamp(bytes.fromhex("ffffffff00000001")) == -10**9 + 1,
              "seconds read as a signed 32-bit int, as Java's getInt (0xffffffff s = -1 s)")
    tap.point(isl.stamp_bytes(123456789, 987654321) == t0, "stamp_bytes writes seconds, ns BE")

    # --- checksums: the worked IPv4 example (45 00 00 73 ... c0 a8 00 c7 -> b861)
    header = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
    tap.point(isl.ip_checksum(header) == 0xb861, "IPv4 checksum of the textbook header = b861",
              "%04x" % isl.ip_checksum(header))
    good = header[:10] + b"\xb8\x61" + header[12:]
    tap.point(isl.ip_checksum_ok(good) and not isl.ip_checksum_ok(header),
              "ip_checksum_ok accepts b861 and refuses 0000")

    # --- JWT: RFC 7515 A.1 verifies with its key, and not with another or when altered
    claims = isl.jwt_verify(RFC7515_TOKEN, key_bytes(RFC7515_KEY))
    tap.point(claims == {"iss": "joe", "exp": 1300819380, "http://example.com/is_root": True},
              "jwt_verify accepts RFC 7515 A.1's HS256 token", claims)
    tap.point(isl.jwt_verify(RFC7515_TOKEN, b"other") is None and
              isl.jwt_verify(RFC7515_TOKEN[:-2] + b"AA", key_bytes(RFC7515_KEY)) is None,
              "jwt_verify refuses another key and an altered signature")
    # jwt_sign's signature = HMAC-SHA256 over the first two parts, checked against RFC 7515's
    # header and claims re-signed with its key: the same signature
    first_two = RFC7515_TOKEN.rsplit(b".", 1)[0]
    sig = base64.urlsafe_b64encode(hmac.new(key_bytes(RFC7515_KEY), first_two,
                                            hashlib.sha256).digest()).rstrip(b"=")
    tap.point(sig == RFC7515_TOKEN.rsplit(b".", 1)[1], "HS256 signing input is header.claims")
    token = isl.discovery_token(0x020000000a01, 1700000000123, b"s3cret", packet_id=7)
    tap.point(isl.jwt_verify(token, b"s3cret") == {"dpid": 0x020000000a01,
                                                   "ts": 1700000000123, "id": 7},
              "the discovery token carries dpid, ts (ms) and id")
    neg = isl.discovery_token(0x8000000000000001, 1, b"k")
    tap.point(isl.jwt_verify(neg, b"k")["dpid"] == -(2**63) + 1,
              "a datapath ID with its top bit set is a negative Java long in the token")

    # --- the frame, byte for byte
    dpid = 0x0000020000000a01
    ts_ms = 1700000000123
    token = isl.discovery_token(dpid, ts_ms, b"s3cret", packet_id=7)
    frame = isl.discovery(dpid, 5, bytes([10, 0, 0, 1]), ts_ms, b"s3cret", packet_id=7,
                          t0=(123456789, 987654321), t1=(999999999, 999999999))
    n = len(token)
    expect = bytes.fromhex(
        "0026e1ffffff" "020000000a01" "0800"
        "4500" + "%04x" % (20 + 8 + 92 + n) + "0000" "0000" "4011" "0000" "0a000001" "c0a800ff"
        "ef2f" "ef2f" + "%04x" % (8 + 92 + n) + "0000"
        "0207" "04" "020000000a01"
        "0403" "02" "0005"
        "0602" "0078"
        "fe0c" "0026e1" "04" "075bcd15" "3ade68b1"
        "fe0c" "0026e1" "05" "3b9ac9ff" "3b9ac9ff"
        "fe0c" "0026e1" "00" "0000020000000a01"
        "fe0c" "0026e1" "01" "0000018bcfe5687b"
        "fe08" "0026e1" "02" "00000000"
        + "%04x" % (0xFE00 | (4 + n)) + "0026e1" "03") + token + b"\x00\x00"
    # zero the two checksums of the library's frame, compare all the rest
    blank = bytearray(frame)
    blank[24:26] = b"\0\0"
    blank[40:42] = b"\0\0"
    diff = [i for i in range(max(len(expect), len(blank)))
            if i >= len(expect) or i >= len(blank) or expect[i] != blank[i]]
    tap.point(not diff, "the frame equals the hand-written bytes of docs/isl.md (%d bytes)" %
              len(expect), "first differing bytes: %s" % diff[:10])
    tap.point(len(frame) == 134 + n, "length 134 + token (%d)" % n)
    tap.point(frame[65] == 4 and frame[66:74] == isl.stamp_bytes(123456789, 987654321) and
              isl.T0_OFFSET == 66 == 528 // 8,
              "T0 at byte 66 (528 bits), behind its subtype 4")
    tap.point(frame[79] == 5 and frame[80:88] == isl.stamp_bytes(999999999, 999999999) and
              isl.T1_OFFSET == 80 == 640 // 8,
              "T1 at byte 80 (640 bits), behind its subtype 5")
    tap.point(frame[isl.OFFSETS["token"]:isl.OFFSETS["token"] + n] == token and
              frame[isl.OFFSETS["switch_id"]:isl.OFFSETS["switch_id"] + 8] ==
              dpid.to_bytes(8, "big") and
              frame[isl.OFFSETS["ordinal"]:isl.OFFSETS["ordinal"] + 4] == b"\0\0\0\0" and
              frame[isl.OFFSETS["timestamp"]:isl.OFFSETS["timestamp"] + 8] ==
              ts_ms.to_bytes(8, "big"),
              "switch ID at 94, timestamp at 108, ordinal at 122, token at 132")
    # checksums: the IPv4 one by the RFC 1071 sum written out here in another way
    words = [frame[i] << 8 | frame[i + 1] for i in range(14, 34, 2)]
    s = sum(words)
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    tap.point(s == 0xFFFF and frame[24:26] != b"\0\0", "IPv4 header checksum right")
    ulen = 8 + 92 + n
    data = frame[26:34] + bytes([0, 17]) + ulen.to_bytes(2, "big") + frame[34:34 + ulen]
    data += b"\0" * (len(data) % 2)
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    tap.point(s == 0xFFFF and frame[40:42] != b"\0\0", "UDP checksum right (pseudo-header)")
    broken = bytearray(frame)
    broken[70] ^= 1
    tap.point(isl.udp_checksum_ok(frame) and not isl.udp_checksum_ok(bytes(broken)),
              "udp_checksum_ok: right, then a flipped T0 bit is caught")

    # --- parse, and the rewrites of the switches
    p = isl.parse(frame, b"s3cret")
    tap.point(p["chassis_id"] == bytes.fromhex("020000000a01") and p["port"] == 5 and
              p["ttl"] == 120 and p["dpid"] == dpid and p["timestamp_ms"] == ts_ms and
              p["ordinal"] == 0 and p.get("t0") == (123456789, 987654321) and
              p.get("t0_ns") == 123456789_987654321 and p["signed"] and not p["round_trip"],
              "parse reads every field back", p)
    tap.point(not isl.parse(frame, b"wrong")["signed"], "a wrong secret: not signed")
    fresh = isl.discovery(dpid, 5, bytes([10, 0, 0, 1]), ts_ms, b"s3cret", packet_id=7)
    out = isl.with_t0(fresh, (10, 20))
    back = isl.round_trip_copy(out, (10, 1020))
    q = isl.parse(back, b"s3cret")
    tap.point(fresh[66:74] == bytes(8) and fresh[80:88] == bytes(8) and out[66:74] == isl.stamp_bytes(10, 20) and
              back[36:38] == b"\xef\x30" and q["round_trip"] and
              q["t1_ns"] - q["t0_ns"] == 1000 and q["udp_checksum_ok"] and q["signed"],
              "T0 placeholder zero; with_t0, round_trip_copy (port 61232, T1) keep it valid")
    try:
        isl.parse(frame[:100])
        tap.point(False, "a truncated frame raises ValueError")
    except ValueError:
        tap.point(True, "a truncated frame raises ValueError")
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
