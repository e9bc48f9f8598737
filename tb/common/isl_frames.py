# SPDX-License-Identifier: BSD-3-Clause
"""OpenKilda's ISL discovery packet (docs/isl.md), written and read byte by byte for the tests,
with no code of the project behind it: Ethernet / IPv4 / UDP 61231 -> 61231 (61232 on the way
back) / LLDPDU with OpenKilda's organisation-specific TLVs (OUI 00:26:E1), the JWT signature
token (HS256), the IPv4 and UDP checksums, and the switch timestamps (32-bit seconds + 32-bit
nanoseconds) with OpenKilda's conversion to one 64-bit nanosecond value.
Python 3 standard library only."""

import base64
import hashlib
import hmac
import json
import struct

UDP_DISCOVERY = 61231          # discovery: source and destination port
UDP_ROUND_TRIP = 61232         # destination port of the copy the far switch sends back
OUI = bytes.fromhex("0026e1")
DESTINATION = bytes.fromhex("0026e1ffffff")   # verification-bcast-packet-dst (example config)
IP_DESTINATION = bytes([192, 168, 0, 255])
IP_TTL = 64
LLDP_TTL = 120                 # seconds, TTL TLV value 0x0078

TLV_END, TLV_CHASSIS_ID, TLV_PORT_ID, TLV_TTL, TLV_ORG = 0, 1, 2, 3, 127
CHASSIS_SUBTYPE_MAC = 4
PORT_SUBTYPE_COMPONENT = 2
# OpenKilda's subtypes behind OUI 00:26:E1
SUB_SWITCH_ID, SUB_TIMESTAMP, SUB_ORDINAL, SUB_TOKEN, SUB_T0, SUB_T1 = 0, 1, 2, 3, 4, 5
PATH_TYPE_ISL = 0              # PathType.ISL.ordinal()

# Byte offsets in an untagged frame (byte 0 = first byte of the destination MAC)
ETH, IP, UDP, LLDP = 0, 14, 34, 42
T0_OFFSET = 66
T1_OFFSET = 80
OFFSETS = {
    "chassis_tlv": 42, "port_tlv": 51, "ttl_tlv": 56,
    "t0_tlv": 60, "t0": 66, "t1_tlv": 74, "t1": 80,
    "switch_id_tlv": 88, "switch_id": 94, "timestamp_tlv": 102, "timestamp": 108,
    "ordinal_tlv": 116, "ordinal": 122, "token_tlv": 126, "token": 132,
}
BILLION = 1_000_000_000


# ---------------------------------------------------------------------------------------------
# Timestamps

def stamp_bytes(seconds, nanoseconds):
    """The 8 bytes of a switch timestamp: 32-bit seconds, 32-bit nanoseconds, big endian."""
    return struct.pack(">II", seconds & 0xFFFFFFFF, nanoseconds & 0xFFFFFFFF)


def noviflow_timestamp(data):
    """OpenKilda's PathVerificationService.noviflowTimestamp: seconds * 10^9 + nanoseconds,
    each read as a *signed* 32-bit integer (Java's ByteBuffer.getInt), as a 64-bit value."""
    seconds, nanoseconds = struct.unpack(">ii", bytes(data[:8]))
    value = seconds * BILLION + nanoseconds
    return ((value + (1 << 63)) % (1 << 64)) - (1 << 63)   # Java long arithmetic


def round_trip(t0_ns, t1_ns):
    """OpenKilda's calculateRoundTripLatency: T1 - T0, or -1 when either is <= 0."""
    if t0_ns <= 0 or t1_ns <= 0:
        return -1
    return t1_ns - t0_ns


# ---------------------------------------------------------------------------------------------
# Checksums

def ones_complement_sum(data):
    if len(data) % 2:
        data = bytes(data) + b"\x00"
    total = 0
    for (word,) in struct.iter_unpack(">H", bytes(data)):
        total += word
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def ip_checksum(header):
    """The IPv4 header checksum of `header` (its checksum field taken as it is; pass 0 there)."""
    return ~ones_complement_sum(header) & 0xFFFF


def ip_checksum_ok(header):
    return ones_complement_sum(header) == 0xFFFF


def udp_checksum(src_ip, dst_ip, segment):
    """The UDP checksum over the pseudo-header and `segment` (its checksum field as 0); a
    result of 0 is sent as 0xFFFF (RFC 768)."""
    pseudo = src_ip + dst_ip + struct.pack(">BBH", 0, 17, len(segment))
    value = ~ones_complement_sum(pseudo + segment) & 0xFFFF
    return value or 0xFFFF


def udp_checksum_ok(frame):
    """Whether the UDP checksum of an untagged Ethernet/IPv4/UDP frame is right (0 = none)."""
    ihl = (frame[IP] & 0x0F) * 4
    udp = IP + ihl
    length = struct.unpack_from(">H", frame, udp + 4)[0]
    if struct.unpack_from(">H", frame, udp + 6)[0] == 0:
        return True
    pseudo = frame[IP + 12:IP + 20] + struct.pack(">BBH", 0, 17, length)
    return ones_complement_sum(pseudo + frame[udp:udp + length]) == 0xFFFF


def fix_udp_checksum(frame):
    """The frame with its UDP checksum recomputed (after a rewrite: T0, T1, the port)."""
    frame = bytearray(frame)
    length = struct.unpack_from(">H", frame, UDP + 4)[0]
    struct.pack_into(">H", frame, UDP + 6, 0)
    struct.pack_into(">H", frame, UDP + 6, udp_checksum(bytes(frame[IP + 12:IP + 16]),
                                                         bytes(frame[IP + 16:IP + 20]),
                                                         bytes(frame[UDP:UDP + length])))
    return bytes(frame)


# ---------------------------------------------------------------------------------------------
# JWT (HS256), as com.auth0 java-jwt writes OpenKilda's token

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def b64url_decode(text):
    text = text if isinstance(text, bytes) else text.encode()
    return base64.urlsafe_b64decode(text + b"=" * (-len(text) % 4))


def jwt_sign(claims, secret, header=None):
    """A compact JWS: base64url(header) . base64url(claims) . base64url(HMAC-SHA256(secret,
    the two first parts joined by '.')), as bytes."""
    header = header if header is not None else {"alg": "HS256", "typ": "JWT"}
    enc = lambda obj: b64url(json.dumps(obj, separators=(",", ":")).encode())  # noqa: E731
    signing_input = enc(header) + b"." + enc(claims)
    secret = secret if isinstance(secret, bytes) else secret.encode()
    return signing_input + b"." + b64url(hmac.new(secret, signing_input, hashlib.sha256).digest())


def jwt_verify(token, secret):
    """The claims of an HS256 token whose signature is right, else None."""
    token = token if isinstance(token, bytes) else token.encode()
    parts = token.split(b".")
    if len(parts) != 3:
        return None
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("alg") != "HS256":
        return None
    secret = secret if isinstance(secret, bytes) else secret.encode()
    mac = hmac.new(secret, parts[0] + b"." + parts[1], hashlib.sha256).digest()
    return claims if hmac.compare_digest(mac, signature) else None


def java_long(value):
    """A 64-bit value as Java's long (the dpid claim of a datapath ID with its top bit set)."""
    return ((value + (1 << 63)) % (1 << 64)) - (1 << 63)


# ---------------------------------------------------------------------------------------------
# LLDP

def tlv(kind, value):
    """One LLDP TLV: 7-bit type, 9-bit length, value."""
    return struct.pack(">H", (kind << 9) | len(value)) + value


def org_tlv(subtype, value):
    return tlv(TLV_ORG, OUI + bytes([subtype]) + value)


def lldpdu(dpid, port, t0=(0, 0), t1=(0, 0), timestamp_ms=0, ordinal=PATH_TYPE_ISL, token=None):
    """The LLDPDU of generateDiscoveryPacket, TLVs in its order."""
    dpid_bytes = dpid.to_bytes(8, "big")
    body = tlv(TLV_CHASSIS_ID, bytes([CHASSIS_SUBTYPE_MAC]) + dpid_bytes[2:])
    body += tlv(TLV_PORT_ID, bytes([PORT_SUBTYPE_COMPONENT]) + struct.pack(">H", port & 0xFFFF))
    body += tlv(TLV_TTL, struct.pack(">H", LLDP_TTL))
    body += org_tlv(SUB_T0, stamp_bytes(*t0))
    body += org_tlv(SUB_T1, stamp_bytes(*t1))
    body += org_tlv(SUB_SWITCH_ID, dpid_bytes)
    body += org_tlv(SUB_TIMESTAMP, struct.pack(">q", java_long(timestamp_ms)))
    body += org_tlv(SUB_ORDINAL, struct.pack(">i", ordinal))
    if token is not None:
        body += org_tlv(SUB_TOKEN, token)
    return body + b"\x00\x00"   # End of LLDPDU


def discovery_token(dpid, timestamp_ms, secret, packet_id=None):
    claims = {"dpid": java_long(dpid), "ts": timestamp_ms}
    if packet_id is not None:
        claims["id"] = packet_id
    return jwt_sign(claims, secret)


def discovery(dpid, port, src_ip, timestamp_ms, secret=b"secret", packet_id=None,
              t0=(0, 0), t1=(0, 0), destination=DESTINATION, dst_port=UDP_DISCOVERY,
              ip_id=0, sign=True, token=None):
    """A discovery frame as OpenKilda's generateDiscoveryPacket writes it (dst_port=61232 and
    t0/t1 set: the round-trip copy as it reaches the controller). src_ip: 4 bytes. `token`
    overrides the signed token (forged packets)."""
    if token is None and sign:
        token = discovery_token(dpid, timestamp_ms, secret, packet_id)
    payload = lldpdu(dpid, port, t0, t1, timestamp_ms, PATH_TYPE_ISL, token)
    udp_len = 8 + len(payload)
    segment = struct.pack(">HHHH", UDP_DISCOVERY, dst_port, udp_len, 0) + payload
    segment = segment[:6] + struct.pack(">H", udp_checksum(src_ip, IP_DESTINATION, segment)) + \
        segment[8:]
    header = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, ip_id, 0, IP_TTL, 17, 0,
                         src_ip, IP_DESTINATION)
    header = header[:10] + struct.pack(">H", ip_checksum(header)) + header[12:]
    source = dpid.to_bytes(8, "big")[2:]
    return destination + source + struct.pack(">H", 0x0800) + header + segment


def round_trip_copy(frame, t1):
    """What switch A hands its controller: the frame B sent back (destination port 61232) with
    A's receive time in T1, the UDP checksum updated."""
    frame = bytearray(frame)
    struct.pack_into(">H", frame, UDP + 2, UDP_ROUND_TRIP)
    frame[T1_OFFSET:T1_OFFSET + 8] = stamp_bytes(*t1)
    return fix_udp_checksum(bytes(frame))


def with_t0(frame, t0):
    """The frame as it leaves switch A: its transmit time in T0, the UDP checksum updated."""
    frame = bytearray(frame)
    frame[T0_OFFSET:T0_OFFSET + 8] = stamp_bytes(*t0)
    return fix_udp_checksum(bytes(frame))


def parse_tlvs(data):
    """[(type, value)] of an LLDPDU up to and with End; raises ValueError when truncated."""
    out = []
    pos = 0
    while True:
        if pos + 2 > len(data):
            raise ValueError("truncated TLV header at %d" % pos)
        (word,) = struct.unpack_from(">H", data, pos)
        kind, length = word >> 9, word & 0x1FF
        if pos + 2 + length > len(data):
            raise ValueError("truncated TLV value at %d" % pos)
        out.append((kind, bytes(data[pos + 2:pos + 2 + length])))
        pos += 2 + length
        if kind == TLV_END:
            return out


def parse(frame, secret=None):
    """The fields of an untagged discovery frame as a dict; raises ValueError when it is not
    one. With `secret`, "signed" says whether the token verifies."""
    frame = bytes(frame)
    if len(frame) < LLDP or struct.unpack_from(">H", frame, 12)[0] != 0x0800:
        raise ValueError("not IPv4")
    if frame[IP] != 0x45 or frame[IP + 9] != 17:
        raise ValueError("not IPv4/UDP without options")
    sport, dport, ulen, _ = struct.unpack_from(">HHHH", frame, UDP)
    if sport != UDP_DISCOVERY or dport not in (UDP_DISCOVERY, UDP_ROUND_TRIP):
        raise ValueError("not a discovery port")
    out = {"destination": frame[0:6], "source": frame[6:12],
           "src_ip": frame[IP + 12:IP + 16], "dst_ip": frame[IP + 16:IP + 20],
           "round_trip": dport == UDP_ROUND_TRIP,
           "ip_checksum_ok": ip_checksum_ok(frame[IP:IP + 20]),
           "udp_checksum_ok": udp_checksum_ok(frame), "org": []}
    for kind, value in parse_tlvs(frame[LLDP:UDP + ulen]):
        if kind == TLV_CHASSIS_ID:
            out["chassis_subtype"], out["chassis_id"] = value[0], value[1:]
        elif kind == TLV_PORT_ID:
            out["port_subtype"], out["port"] = value[0], struct.unpack(">H", value[1:3])[0]
        elif kind == TLV_TTL:
            out["ttl"] = struct.unpack(">H", value)[0]
        elif kind == TLV_ORG and len(value) >= 4:
            sub, body = value[3], value[4:]
            out["org"].append((value[:3], sub, body))
            if value[:3] != OUI:
                continue
            if sub in (SUB_T0, SUB_T1) and len(body) == 8:
                key = "t0" if sub == SUB_T0 else "t1"
                out[key] = struct.unpack(">II", body)
                out[key + "_ns"] = noviflow_timestamp(body)
            elif sub == SUB_SWITCH_ID and len(body) == 8:
                out["dpid"] = int.from_bytes(body, "big")
            elif sub == SUB_TIMESTAMP and len(body) == 8:
                out["timestamp_ms"] = struct.unpack(">q", body)[0]
            elif sub == SUB_ORDINAL and len(body) == 4:
                out["ordinal"] = struct.unpack(">i", body)[0]
            elif sub == SUB_TOKEN:
                out["token"] = body
    if secret is not None:
        out["signed"] = "token" in out and jwt_verify(out["token"], secret) is not None
    return out
