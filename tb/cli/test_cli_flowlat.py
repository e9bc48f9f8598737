#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats flowlat` against the simulator (docs/cli.md, docs/flowlat.md).

    tb/cli/test_cli_flowlat.py build/asan/bin/pktstats build/bin/pktstats-sim

Everything the CLI writes is read back from the simulator's registers through the test's own
connection to its socket (never only through `flowlat show`), and every read verb's -j is
compared with its text, field by field:

- `flowlat set`: every keyword, one at a time and several at once, in every value form (lists,
  hex masks, durations in each unit, upper-case MACs, hex numbers, the range ends): exactly the
  registers it maps to change, to the value expected, and `show` shows it;
- `profile set` (stateless, stateful, signed thresholds, the int32 ends), `group set` (prefixes,
  protocols, ports, any, egress ports, the defaults), `group delete`, `group show` of the valid
  groups, of all and of one;
- bad command lines of every verb and every bad value of every keyword (out of range, wrong
  form, host bits beyond a prefix, low above high, IDs out of range, unknown, missing and
  repeated keywords, missing flow keys, a bad value after a good one): exit 2, nothing on
  stdout, one line "pktstats: flowlat VERB: ..." naming the word, and not one flowlat register
  changed (all of them dumped before and after each);
- `collector IPV4 [via IFACE]` in a network namespace of its own (a veth and a permanent
  neighbour entry): dst-ip, dst-mac, src-ip and src-mac from the host's path, an explicit
  keyword wins, an unresolvable one exits 1 and writes nothing (skipped without root);
- `flow show` of a flow that is not there (exit 0, found no), and of two that are (frames of
  two UDP flows through the switch, one in breach of a stateful profile): the values equal the
  lookup registers; `clear` forgets them;
- `counters show` equals the 13 counter registers, `counters clear` zeroes them; `template`
  sends a template (the templates counter).
Prints TAP.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import ROOT, Simulator, Tap, pktstats_sim, register_table, run_cli  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tb", "sim"))
import test_sim_flowlat as FL  # noqa: E402  (frames)
import test_sim_oam as T  # noqa: E402  (wait_for_clock)
from oam_frames import write_timed_pcap  # noqa: E402

R = pktstats_sim.registers()
COUNTERS = FL.COUNTERS


# ------------------------------------------------------------------------------------------
# Registers, read through the test's own connection

def flowlat_registers():
    return [(n, a, w, acc) for n, a, w, acc in register_table()
            if n.startswith("flowlat.") and acc in ("rw", "counter")]


def dump(sim, accesses=("rw", "counter")):
    """{name: value} of every rw and counter register of the flowlat block."""
    values = {}
    for name, address, width, access in flowlat_registers():
        if access not in accesses:
            continue
        value = sim.read(address)
        if width > 32:
            value |= sim.read(address + 4) << 32  # the low word's read latched it
        values[name] = value
    return values


def diff(before, after):
    return {k: after[k] for k in after if after[k] != before.get(k)}


def u32(value):
    return value & 0xffffffff


# ------------------------------------------------------------------------------------------
# Text and JSON: the same content

SETS = re.compile(r"^(none|\d+(-\d+)?(,\d+(-\d+)?)*)$")
PROTOCOLS = {"icmp": 1, "tcp": 6, "udp": 17}
UNITS = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}


def set_list(text):
    if text == "none":
        return []
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def duration_ns(text):
    """'-1500ns', '20us', '0ns' -> ns; None when not a duration."""
    m = re.match(r"^(-?\d+)(ns|us|ms|s)$", text)
    return int(m.group(1)) * UNITS[m.group(2)] if m else None


def text_value(key, text, want):
    """Whether the text a person sees for key says the JSON value want."""
    if want is None:
        return text in ("-", "any")
    if isinstance(want, bool):
        return text == ("yes" if want else "no")
    if isinstance(want, list):
        return bool(SETS.match(text)) and set_list(text) == want
    if isinstance(want, str):
        return text == want
    if key in ("idle_timeout", "flush_timeout"):
        if want == 0:
            return text.split()[0] == "0"
        m = re.search(r"\((\d+) us\)$", text)
        return bool(m) and int(m.group(1)) * 1000 == want
    if key == "template_interval":
        m = re.match(r"^(\d+)( s|\b)", text)
        return bool(m) and int(m.group(1)) * 10**9 == want
    if key == "mtu":
        return text == "%d bytes" % want
    if key == "protocol":
        return PROTOCOLS.get(text, None) == want or text == str(want)
    if key in ("high", "low", "min_interval"):
        return duration_ns(text) == want
    if key in ("last_residence", "max_residence"):
        return text.split()[0] == str(want) and text.split()[1] == "ns"
    return text == str(want)


def text_fields(out):
    """'key  value' lines of a top-level object: [(key with '_', value)]."""
    fields = []
    for line in out.splitlines():
        key, _, value = line.strip().partition(" ")
        fields.append((key.replace("-", "_"), value.strip()))
    return fields


def text_items(out, heading):
    """The lines of a list: [[(key, value) ...] ...]; the first line is the list's key."""
    lines = out.splitlines()
    if not lines or lines[0] != heading:
        return None
    items = []
    for line in lines[1:]:
        words = line.split()
        if len(words) % 2:
            return None
        items.append([(words[i].replace("-", "_"), words[i + 1]) for i in range(0, len(words), 2)])
    return items


CLOCKS = ("now_us", "age_us")  # read twice, by two runs: a number in both, not the same


def same_object(fields, obj):
    """Text fields (in order) against a JSON object: the same keys, the same values."""
    if [k for k, _ in fields] != list(obj):
        return "keys: text %s, json %s" % ([k for k, _ in fields], list(obj))
    for k, v in fields:
        if k in CLOCKS and isinstance(obj[k], int) and v.isdigit():
            continue
        if not text_value(k, v, obj[k]):
            return "%s: text %r, json %r" % (k, v, obj[k])
    return None


# ------------------------------------------------------------------------------------------

class Case:
    def __init__(self, tap, pktstats, sim):
        self.tap, self.pktstats, self.sim = tap, pktstats, sim

    def run(self, *args):
        return run_cli(self.pktstats, list(args), device=self.sim.device)

    def cli(self, *args):
        status, out, err = self.run(*args)
        if status != 0:
            raise RuntimeError("pktstats %s: exit %s: %s" % (" ".join(args), status, err))
        return out

    def both(self, *args):
        """(JSON object, text) of a read verb."""
        return json.loads(self.cli("-j", *args)), self.cli(*args)

    def json_equals_text(self, args, heading=None):
        """Checks that the text of a read verb holds what its -j holds; returns the JSON."""
        obj, text = self.both(*args)
        if heading is None:
            problem = same_object(text_fields(text), obj)
        else:
            items = text_items(text, heading)
            listed = obj.get(heading)
            if items is None or listed is None or len(items) != len(listed):
                problem = "items: text %r, json %r" % (text, listed)
            else:
                problem = next((p for p in (same_object(f, o) for f, o in zip(items, listed)) if p),
                               None)
        self.tap.point(problem is None, "pktstats %s: -j and the text say the same"
                       % " ".join(args), "%s\n%s%s" % (problem, text, json.dumps(obj)))
        return obj


# set KEYWORD VALUE: (arguments, {register: value after}, {show key: value})
# applied in this order, each from the state the previous left (control starts at 0)
MAC_SRC = 0x0a1b2c3d4e5f
SET_CASES = [
    (["monitor", "on"], {"flowlat.control": 0x1}, {"monitor": True}),
    (["export", "on"], {"flowlat.control": 0x3}, {"export": True}),
    (["export-ports", "3,5"], {"flowlat.control": 0x2803}, {"export_ports": [3, 5]}),
    (["monitor", "off"], {"flowlat.control": 0x2802}, {"monitor": False}),
    (["export-ports", "0x81"], {"flowlat.control": 0x8102}, {"export_ports": [0, 7]}),
    (["export", "off"], {"flowlat.control": 0x8100}, {"export": False}),
    (["export-ports", "all"], {"flowlat.control": 0xff00}, {"export_ports": list(range(8))}),
    (["export-ports", "none"], {"flowlat.control": 0x0}, {"export_ports": []}),
    (["idle-timeout", "250ms"], {"flowlat.idle_timeout_us": 250000}, {"idle_timeout": 250000000}),
    (["idle-timeout", "4294967295us"], {"flowlat.idle_timeout_us": 0xffffffff},
     {"idle_timeout": 0xffffffff * 1000}),
    (["idle-timeout", "0"], {"flowlat.idle_timeout_us": 0}, {"idle_timeout": 0}),
    (["idle-timeout", "1.5s"], {"flowlat.idle_timeout_us": 1500000},
     {"idle_timeout": 1500000000}),
    (["dst-mac", "02:00:00:00:00:09"], {"flowlat.ipfix_destination_mac": 0x020000000009},
     {"dst_mac": "02:00:00:00:00:09"}),
    (["src-mac", "0A:1B:2c:3d:4e:5F"], {"flowlat.ipfix_source_mac": MAC_SRC},
     {"src_mac": "0a:1b:2c:3d:4e:5f"}),
    (["src-ip", "10.0.0.1"], {"flowlat.ipfix_source_ip": 0x0a000001}, {"src_ip": "10.0.0.1"}),
    (["dst-ip", "192.168.7.2"], {"flowlat.ipfix_destination_ip": 0xc0a80702},
     {"dst_ip": "192.168.7.2"}),
    (["src-port", "1234"], {"flowlat.ipfix_ports": 4739 << 16 | 1234}, {"src_port": 1234}),
    (["dst-port", "0x1000"], {"flowlat.ipfix_ports": 4096 << 16 | 1234}, {"dst_port": 4096}),
    (["src-port", "65535"], {"flowlat.ipfix_ports": 4096 << 16 | 65535}, {"src_port": 65535}),
    (["dst-port", "1"], {"flowlat.ipfix_ports": 1 << 16 | 65535}, {"dst_port": 1}),
    (["observation-domain", "4294967295"], {"flowlat.observation_domain": 0xffffffff},
     {"observation_domain": 0xffffffff}),
    (["enterprise-number", "0"], {"flowlat.enterprise_number": 0}, {"enterprise_number": 0}),
    (["enterprise-number", "0xdeadbeef"], {"flowlat.enterprise_number": 0xdeadbeef},
     {"enterprise_number": 0xdeadbeef}),
    (["template-interval", "65535s"], {"flowlat.template_interval_s": 65535},
     {"template_interval": 65535 * 10**9}),
    (["template-interval", "0"], {"flowlat.template_interval_s": 0}, {"template_interval": 0}),
    (["template-interval", "2000ms"], {"flowlat.template_interval_s": 2},
     {"template_interval": 2 * 10**9}),
    (["mtu", "200"], {"flowlat.mtu": 200}, {"mtu": 200}),
    (["mtu", "9000"], {"flowlat.mtu": 9000}, {"mtu": 9000}),
    (["flush-timeout", "2.5ms"], {"flowlat.flush_timeout_us": 2500}, {"flush_timeout": 2500000}),
    (["flush-timeout", "0"], {"flowlat.flush_timeout_us": 0}, {"flush_timeout": 0}),
    (["flush-timeout", "4294967295us"], {"flowlat.flush_timeout_us": 0xffffffff},
     {"flush_timeout": 0xffffffff * 1000}),
    # several at once
    (["mtu", "1400", "src-ip", "10.9.8.7", "flush-timeout", "20us", "monitor", "on",
      "export-ports", "2", "observation-domain", "42"],
     {"flowlat.mtu": 1400, "flowlat.ipfix_source_ip": 0x0a090807, "flowlat.flush_timeout_us": 20,
      "flowlat.control": 0x0401, "flowlat.observation_domain": 42},
     {"mtu": 1400, "src_ip": "10.9.8.7", "flush_timeout": 20000, "monitor": True,
      "export_ports": [2], "observation_domain": 42}),
]


def set_case(c):
    c.json_equals_text(["flowlat", "show"])
    for args, regs, shown in SET_CASES:
        # (export on sends the template: the counters count it)
        before = dump(c.sim, ("rw",))
        status, out, err = c.run("flowlat", "set", *args)
        changed = diff(before, dump(c.sim, ("rw",)))
        show, text = c.both("flowlat", "show") if status == 0 else ({}, "")
        wrong = {k: show.get(k) for k in shown if show.get(k) != shown[k]}
        problem = same_object(text_fields(text), show)
        c.tap.point(status == 0 and not out and not err and changed == regs and not wrong and
                    problem is None,
                    "flowlat set %s: the registers %s; show, text and -j" % (" ".join(args), ", ".join(
                        "%s = 0x%x" % (k[8:], v) for k, v in regs.items())),
                    "exit %s %s\nchanged %s\nwant %s\nshow differs %s\ntext: %s" % (
                        status, err, {k: hex(v) for k, v in changed.items()},
                        {k: hex(v) for k, v in regs.items()}, wrong, problem))
    c.json_equals_text(["flowlat", "show"])


# profile set: (arguments after `profile set`, profile, (high, low, min_interval_us, control),
#               JSON of the profile)
PROFILE_CASES = [
    (["5", "stateful", "high", "20us", "low", "-5us"], 5, (20000, u32(-5000), 0, 1),
     {"profile": 5, "kind": "stateful", "high": 20000, "low": -5000, "min_interval": None}),
    (["5", "stateless", "high", "2147483647ns", "min-interval", "4294967295us"], 5,
     (0x7fffffff, 0, 0xffffffff, 0),
     {"profile": 5, "kind": "stateless", "high": 2147483647, "low": None,
      "min_interval": 4294967295000}),
    (["0", "stateless", "high", "-2147483648ns"], 0, (0x80000000, 0, 0, 0),
     {"profile": 0, "kind": "stateless", "high": -2147483648, "low": None, "min_interval": 0}),
    (["7", "stateful", "high", "1.5ms", "low", "1.5ms"], 7, (1500000, 1500000, 0, 1),
     {"profile": 7, "kind": "stateful", "high": 1500000, "low": 1500000, "min_interval": None}),
    (["3", "stateless", "min-interval", "100us", "high", "-800"], 3, (u32(-800), 0, 100, 0),
     {"profile": 3, "kind": "stateless", "high": -800, "low": None, "min_interval": 100000}),
    (["1", "stateful", "low", "-2s", "high", "2s"], 1, (2000000000, u32(-2000000000), 0, 1),
     {"profile": 1, "kind": "stateful", "high": 2000000000, "low": -2000000000,
      "min_interval": None}),
]


def profile_regs(index, values):
    names = ("profile_high", "profile_low", "profile_min_interval_us", "profile_control")
    return {"flowlat.%s_%d" % (n, index): v for n, v in zip(names, values)}


def profile_case(c):
    for args, index, values, want in PROFILE_CASES:
        before = dump(c.sim)
        status, out, err = c.run("flowlat", "profile", "set", *args)
        after = dump(c.sim)
        regs = profile_regs(index, values)
        got = {k: after[k] for k in regs}
        others = {k: v for k, v in diff(before, after).items() if k not in regs}
        show = json.loads(c.cli("-j", "flowlat", "profile", "show", str(index))) if status == 0 else {}
        c.tap.point(status == 0 and got == regs and not others and show == {"profiles": [want]},
                    "flowlat profile set %s: the registers and profile show" % " ".join(args),
                    "exit %s %s\ngot %s\nwant %s\nothers %s\nshow %s" % (
                        status, err, got, regs, others, show))
    obj = c.json_equals_text(["flowlat", "profile", "show"], "profiles")
    c.tap.point([p["profile"] for p in obj["profiles"]] == list(range(8)),
                "flowlat profile show: the 8 profiles in order", json.dumps(obj))
    c.json_equals_text(["flowlat", "profile", "show", "1"], "profiles")


def rule_control(src_len, dst_len, protocol, protocol_any, sport_any, dport_any, egress, profile,
                 valid=True):
    return (src_len | dst_len << 6 | protocol << 12 | protocol_any << 20 | sport_any << 21
            | dport_any << 22 | egress << 24 | profile << 28 | int(valid) << 31)


# group set: (arguments after `group set`, group, (src, dst, ports, control), JSON of the group)
GROUP_CASES = [
    (["7", "src", "10.1.0.0/16", "dst", "192.168.1.7", "protocol", "tcp", "sport", "80",
      "dport", "any", "egress-ports", "1,3", "profile", "5"], 7,
     (0x0a010000, 0xc0a80107, 80, rule_control(16, 32, 6, 0, 0, 1, 0xa, 5)),
     {"group": 7, "valid": True, "src": "10.1.0.0/16", "dst": "192.168.1.7/32", "protocol": 6,
      "sport": 80, "dport": None, "egress_ports": [1, 3], "profile": 5}),
    (["2", "profile", "3"], 2, (0, 0, 0, rule_control(0, 0, 0, 1, 1, 1, 0xf, 3)),
     {"group": 2, "valid": True, "src": None, "dst": None, "protocol": None, "sport": None,
      "dport": None, "egress_ports": [0, 1, 2, 3], "profile": 3}),
    (["15", "profile", "7", "dst", "10.0.3.0/24", "protocol", "udp", "dport", "5001", "sport",
      "0", "src", "any", "egress-ports", "0x4"], 15,
     (0, 0x0a000300, 5001 << 16, rule_control(0, 24, 17, 0, 0, 0, 0x4, 7)),
     {"group": 15, "valid": True, "src": None, "dst": "10.0.3.0/24", "protocol": 17, "sport": 0,
      "dport": 5001, "egress_ports": [2], "profile": 7}),
    (["0", "protocol", "icmp", "src", "0.0.0.0/0", "dst", "128.0.0.0/1", "egress-ports", "none",
      "profile", "0"], 0,
     (0, 0x80000000, 0, rule_control(0, 1, 1, 0, 1, 1, 0, 0)),
     {"group": 0, "valid": True, "src": None, "dst": "128.0.0.0/1", "protocol": 1, "sport": None,
      "dport": None, "egress_ports": [], "profile": 0}),
    (["9", "protocol", "47", "src", "255.255.255.255/32", "profile", "1"], 9,
     (0xffffffff, 0, 0, rule_control(32, 0, 47, 0, 1, 1, 0xf, 1)),
     {"group": 9, "valid": True, "src": "255.255.255.255/32", "dst": None, "protocol": 47,
      "sport": None, "dport": None, "egress_ports": [0, 1, 2, 3], "profile": 1}),
]


def rule_regs(index, values):
    names = ("rule_src_ip", "rule_dst_ip", "rule_ports", "rule_control")
    return {"flowlat.%s_%d" % (n, index): v for n, v in zip(names, values)}


def group_case(c):
    for args, index, values, want in GROUP_CASES:
        before = dump(c.sim)
        status, out, err = c.run("flowlat", "group", "set", *args)
        after = dump(c.sim)
        regs = rule_regs(index, values)
        got = {k: after[k] for k in regs}
        others = {k: v for k, v in diff(before, after).items() if k not in regs}
        show = json.loads(c.cli("-j", "flowlat", "group", "show", str(index))) if status == 0 else {}
        c.tap.point(status == 0 and got == regs and not others and show == {"groups": [want]},
                    "flowlat group set %s: the registers and group show" % " ".join(args),
                    "exit %s %s\ngot %s\nwant %s\nothers %s\nshow %s" % (
                        status, err, {k: hex(v) for k, v in got.items()},
                        {k: hex(v) for k, v in regs.items()}, others, show))
    obj = c.json_equals_text(["flowlat", "group", "show"], "groups")
    c.tap.point([g["group"] for g in obj["groups"]] == [0, 2, 7, 9, 15] and
                all(g["valid"] for g in obj["groups"]),
                "flowlat group show: the valid groups only, in order", json.dumps(obj))
    before = dump(c.sim)
    status, out, err = c.run("flowlat", "group", "delete", "7")
    changed = diff(before, dump(c.sim))
    c.tap.point(status == 0 and changed == {"flowlat.rule_control_7":
                                            rule_control(16, 32, 6, 0, 0, 1, 0xa, 5, False)},
                "flowlat group delete 7: only its valid bit is cleared", "%s %s" % (changed, err))
    obj = json.loads(c.cli("-j", "flowlat", "group", "show"))
    one = json.loads(c.cli("-j", "flowlat", "group", "show", "7"))
    c.tap.point([g["group"] for g in obj["groups"]] == [0, 2, 9, 15] and
                len(one["groups"]) == 1 and one["groups"][0]["valid"] is False and
                one["groups"][0]["src"] == "10.1.0.0/16",
                "flowlat group show: 7 gone from the valid ones; group show 7 shows it, valid "
                "false", json.dumps(obj) + json.dumps(one))
    obj = c.json_equals_text(["flowlat", "group", "show", "all"], "groups")
    c.tap.point([g["group"] for g in obj["groups"]] == list(range(16)),
                "flowlat group show all: the 16 groups", json.dumps(obj))


# ------------------------------------------------------------------------------------------
# Bad command lines: (arguments after `flowlat`, verb in the message, word it must name)

BAD = [
    # set: every keyword's bad values
    (["set"], "set", "nothing to set"),
    (["set", "monitor", "yes"], "set", "monitor 'yes'"),
    (["set", "monitor", "1"], "set", "monitor '1'"),
    (["set", "export", "ON"], "set", "export 'ON'"),
    (["set", "export-ports", "8"], "set", "export-ports '8'"),
    (["set", "export-ports", "0x100"], "set", "export-ports '0x100'"),
    (["set", "export-ports", "1-9"], "set", "export-ports '1-9'"),
    (["set", "idle-timeout", "1.5us"], "set", "idle-timeout '1.5us'"),
    (["set", "idle-timeout", "4294967296us"], "set", "idle-timeout '4294967296us'"),
    (["set", "idle-timeout", "10"], "set", "idle-timeout '10'"),
    (["set", "idle-timeout", "-1us"], "set", "idle-timeout '-1us'"),
    (["set", "idle-timeout", "1h"], "set", "idle-timeout '1h'"),
    (["set", "dst-mac", "02:00:00:00:00"], "set", "dst-mac '02:00:00:00:00'"),
    (["set", "src-mac", "02:00:00:00:00:0g"], "set", "src-mac '02:00:00:00:00:0g'"),
    (["set", "src-ip", "10.0.0.256"], "set", "src-ip '10.0.0.256'"),
    (["set", "dst-ip", "10.0.0"], "set", "dst-ip '10.0.0'"),
    (["set", "dst-ip", "010.0.0.1"], "set", "dst-ip '010.0.0.1'"),
    (["set", "src-port", "0"], "set", "src-port '0'"),
    (["set", "src-port", "65536"], "set", "src-port '65536'"),
    (["set", "dst-port", "0"], "set", "dst-port '0'"),
    (["set", "dst-port", "x"], "set", "dst-port 'x'"),
    (["set", "observation-domain", "4294967296"], "set", "observation-domain '4294967296'"),
    (["set", "observation-domain", "-1"], "set", "observation-domain '-1'"),
    (["set", "enterprise-number", "0x100000000"], "set", "enterprise-number '0x100000000'"),
    (["set", "enterprise-number", " 1"], "set", "enterprise-number ' 1'"),
    (["set", "template-interval", "65536s"], "set", "template-interval '65536s'"),
    (["set", "template-interval", "1500ms"], "set", "template-interval '1500ms'"),
    (["set", "template-interval", "10"], "set", "template-interval '10'"),
    (["set", "mtu", "199"], "set", "mtu '199'"),
    (["set", "mtu", "9001"], "set", "mtu '9001'"),
    (["set", "mtu", "1500B"], "set", "mtu '1500B'"),
    (["set", "flush-timeout", "1.5us"], "set", "flush-timeout '1.5us'"),
    (["set", "flush-timeout", "4294967296us"], "set", "flush-timeout '4294967296us'"),
    (["set", "flush-timeout", "never"], "set", "flush-timeout 'never'"),
    (["set", "collector", "10.0.0.256"], "set", "collector '10.0.0.256'"),
    (["set", "via", "eth0"], "set", "via needs collector"),
    (["set", "collector", "10.0.0.1", "collector", "10.0.0.2"], "set", "collector given twice"),
    (["set", "colour", "red"], "set", "unknown keyword 'colour'"),
    (["set", "mt", "1500"], "set", "unknown keyword 'mt'"),
    (["set", "mtu"], "set", "mtu needs a value"),
    (["set", "mtu", "1500", "mtu", "1500"], "set", "mtu given twice"),
    (["set", "mtu", "1000", "src-port", "0"], "set", "src-port '0'"),  # the good one not written
    (["set", "monitor", "on", "export", "maybe"], "set", "export 'maybe'"),
    # profile
    (["profile"], "profile", "needs show or set"),
    (["profile", "get"], "profile", "unknown word 'get'"),
    (["profile", "show", "8"], "profile show", "profile '8'"),
    (["profile", "show", "1", "2"], "profile show", "'2'"),
    (["profile", "set"], "profile set", "profile ID"),
    (["profile", "set", "8", "stateless", "high", "1us"], "profile set", "profile '8'"),
    (["profile", "set", "x", "stateless", "high", "1us"], "profile set", "profile 'x'"),
    (["profile", "set", "1"], "profile set", "stateless or stateful"),
    (["profile", "set", "1", "weird", "high", "1us"], "profile set", "kind 'weird'"),
    (["profile", "set", "1", "stateless"], "profile set", "needs high"),
    (["profile", "set", "1", "stateless", "high", "3s"], "profile set", "high '3s'"),
    (["profile", "set", "1", "stateless", "high", "2147483648ns"], "profile set",
     "high '2147483648ns'"),
    (["profile", "set", "1", "stateless", "high", "-2147483649ns"], "profile set",
     "high '-2147483649ns'"),
    (["profile", "set", "1", "stateless", "high", "1.5ns"], "profile set", "high '1.5ns'"),
    (["profile", "set", "1", "stateless", "high", "--1us"], "profile set", "high '--1us'"),
    (["profile", "set", "1", "stateless", "high", "1us", "min-interval", "1.5us"], "profile set",
     "min-interval '1.5us'"),
    (["profile", "set", "1", "stateless", "high", "1us", "min-interval", "-1us"], "profile set",
     "min-interval '-1us'"),
    (["profile", "set", "1", "stateless", "high", "1us", "min-interval", "4294967296us"],
     "profile set", "min-interval '4294967296us'"),
    (["profile", "set", "1", "stateless", "high", "1us", "low", "0"], "profile set", "low '0'"),
    (["profile", "set", "1", "stateful", "high", "1us"], "profile set", "needs low"),
    (["profile", "set", "1", "stateful", "high", "1us", "low", "2us"], "profile set",
     "low '2us' is above high '1us'"),
    (["profile", "set", "1", "stateful", "high", "-5us", "low", "-4999ns"], "profile set",
     "low '-4999ns' is above high '-5us'"),
    (["profile", "set", "1", "stateful", "high", "1us", "low", "0", "min-interval", "1us"],
     "profile set", "min-interval '1us'"),
    (["profile", "set", "1", "stateful", "high", "1us", "low", "x"], "profile set", "low 'x'"),
    (["profile", "set", "1", "stateless", "high", "1us", "high", "2us"], "profile set",
     "high given twice"),
    (["profile", "set", "1", "stateless", "high"], "profile set", "high needs a value"),
    (["profile", "set", "1", "stateless", "hi", "1us"], "profile set", "unknown keyword 'hi'"),
    # group
    (["group"], "group", "needs show, set or delete"),
    (["group", "add", "1"], "group", "unknown word 'add'"),
    (["group", "show", "16"], "group show", "group '16'"),
    (["group", "show", "valid"], "group show", "group 'valid'"),
    (["group", "show", "1", "2"], "group show", "'2'"),
    (["group", "set"], "group set", "group ID"),
    (["group", "set", "16", "profile", "0"], "group set", "group '16'"),
    (["group", "set", "0"], "group set", "needs profile"),
    (["group", "set", "0", "src", "10.0.0.0/8"], "group set", "needs profile"),
    (["group", "set", "0", "src", "10.0.0.1/24", "profile", "0"], "group set",
     "src '10.0.0.1/24': host bits"),
    (["group", "set", "0", "dst", "10.0.0.128/24", "profile", "0"], "group set",
     "dst '10.0.0.128/24': host bits"),
    (["group", "set", "0", "src", "0.0.0.1/0", "profile", "0"], "group set",
     "src '0.0.0.1/0': host bits"),
    (["group", "set", "0", "dst", "10.0.0.0/33", "profile", "0"], "group set",
     "dst '10.0.0.0/33'"),
    (["group", "set", "0", "dst", "10.0.0.0/", "profile", "0"], "group set", "dst '10.0.0.0/'"),
    (["group", "set", "0", "dst", "10.0.0.0/0x8", "profile", "0"], "group set",
     "dst '10.0.0.0/0x8'"),
    (["group", "set", "0", "src", "10.0.0/8", "profile", "0"], "group set", "src '10.0.0/8'"),
    (["group", "set", "0", "src", "all", "profile", "0"], "group set", "src 'all'"),
    (["group", "set", "0", "protocol", "256", "profile", "0"], "group set", "protocol '256'"),
    (["group", "set", "0", "protocol", "sctp", "profile", "0"], "group set", "protocol 'sctp'"),
    (["group", "set", "0", "sport", "65536", "profile", "0"], "group set", "sport '65536'"),
    (["group", "set", "0", "dport", "-1", "profile", "0"], "group set", "dport '-1'"),
    (["group", "set", "0", "egress-ports", "4", "profile", "0"], "group set",
     "egress-ports '4'"),
    (["group", "set", "0", "egress-ports", "0x10", "profile", "0"], "group set",
     "egress-ports '0x10'"),
    (["group", "set", "0", "profile", "8"], "group set", "profile '8'"),
    (["group", "set", "0", "profile", "any"], "group set", "profile 'any'"),
    (["group", "set", "0", "protocol", "icmp", "sport", "5", "profile", "0"], "group set",
     "sport '5'"),
    (["group", "set", "0", "protocol", "1", "dport", "7", "profile", "0"], "group set",
     "dport '7'"),
    (["group", "set", "0", "proto", "udp", "profile", "0"], "group set",
     "unknown keyword 'proto'"),
    (["group", "set", "0", "profile", "1", "profile", "2"], "group set", "profile given twice"),
    (["group", "set", "0", "profile"], "group set", "profile needs a value"),
    (["group", "delete"], "group delete", "group ID"),
    (["group", "delete", "16"], "group delete", "group '16'"),
    (["group", "delete", "1", "2"], "group delete", "'2'"),
    # flow
    (["flow"], "flow", "needs show"),
    (["flow", "get"], "flow", "unknown word 'get'"),
    (["flow", "show"], "flow show", "needs src"),
    (["flow", "show", "dst", "10.0.0.2", "protocol", "udp", "sport", "1", "dport", "2"],
     "flow show", "needs src"),
    (["flow", "show", "src", "10.0.0.1", "protocol", "udp", "sport", "1", "dport", "2"],
     "flow show", "needs dst"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "sport", "1", "dport", "2"],
     "flow show", "needs protocol"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "protocol", "udp", "dport", "2"],
     "flow show", "needs sport"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "protocol", "tcp", "sport", "1"],
     "flow show", "needs dport"),
    (["flow", "show", "src", "10.0.0.1/32", "dst", "10.0.0.2", "protocol", "icmp"], "flow show",
     "src '10.0.0.1/32'"),
    (["flow", "show", "src", "10.0.0.1", "dst", "any", "protocol", "icmp"], "flow show",
     "dst 'any'"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "protocol", "any"], "flow show",
     "protocol 'any'"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "protocol", "udp", "sport",
      "65536", "dport", "1"], "flow show", "sport '65536'"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "protocol", "udp", "sport", "1",
      "dport", "any"], "flow show", "dport 'any'"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "protocol", "icmp", "sport", "3"],
     "flow show", "sport '3'"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "protocol", "icmp", "src",
      "10.0.0.3"], "flow show", "src given twice"),
    (["flow", "show", "src", "10.0.0.1", "dst", "10.0.0.2", "protocol", "icmp", "vlan", "3"],
     "flow show", "unknown keyword 'vlan'"),
    (["flow", "show", "src", "10.0.0.1", "dst"], "flow show", "dst needs a value"),
    # counters, clear, template
    (["counters"], "counters", "needs show or clear"),
    (["counters", "reset"], "counters", "unknown word 'reset'"),
    (["counters", "show", "all"], "counters show", "'all'"),
    (["counters", "clear", "all"], "counters clear", "'all'"),
    (["clear", "now"], "clear", "'now'"),
    (["template", "now"], "template", "'now'"),
    ([], None, "no verb given"),
    (["shw"], None, "unknown verb 'shw'"),
]


def bad_case(c):
    for args, verb, word in BAD:
        before = dump(c.sim)
        status, out, err = c.run("flowlat", *args)
        changed = diff(before, dump(c.sim))
        lines = err.splitlines()
        where = "pktstats: flowlat%s: " % (" " + verb if verb else "")
        c.tap.point(status == 2 and not out and len(lines) == 1 and lines[0].startswith(where)
                    and word in lines[0] and not changed,
                    "usage error: pktstats flowlat %s -> exit 2, one line naming %s, no flowlat "
                    "register changed" % (" ".join(args), word),
                    "exit %s\nstdout %r\nstderr %r\nchanged %s" % (status, out, err, changed))


def help_case(tap, pktstats):
    for verb in ("show", "set", "profile", "group", "flow", "counters", "clear", "template",
                 "watch"):
        status, out, err = run_cli(pktstats, ["flowlat", verb, "--help"])
        tap.point(status == 0 and out.startswith("usage: pktstats [OPTIONS] flowlat " + verb)
                  and not err, "pktstats flowlat %s --help" % verb, out + err)
    for args in (["flowlat", "profile", "set", "--help"], ["help", "flowlat", "group"]):
        status, out, err = run_cli(pktstats, args)
        tap.point(status == 0 and out.startswith("usage: pktstats [OPTIONS] flowlat") and not err,
                  "pktstats %s" % " ".join(args), out + err)
    status, out, err = run_cli(pktstats, ["flowlat", "set", "--help"])
    missing = [k for k in ("monitor", "export", "export-ports", "idle-timeout", "dst-mac",
                           "src-mac", "src-ip", "dst-ip", "src-port", "dst-port",
                           "observation-domain", "enterprise-number", "template-interval", "mtu",
                           "flush-timeout", "collector", "via") if "\n  %s " % k not in out]
    tap.point(status == 0 and not missing, "flowlat set --help lists every keyword",
              "missing %s" % missing)
    status, out, err = run_cli(pktstats, ["--help"])
    tap.point(status == 0 and "\n  flowlat " in out, "pktstats --help lists flowlat", out)
    status, out, err = run_cli(pktstats, ["flowlat", "show"])
    tap.point(status == 2 and "no device" in err, "flowlat show without a device: exit 2", err)


# ------------------------------------------------------------------------------------------
# collector, in a network namespace of its own

NEIGHBOUR_MAC = "02:00:00:00:77:09"


def collector_case(c):
    names = ["flowlat set collector: dst-ip, dst-mac, src-ip, src-mac from the host's path",
             "flowlat set collector with an explicit dst-mac and mtu: they win",
             "flowlat set collector unresolvable: exit 1, one line, nothing written"]
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        for name in names:
            c.tap.point(True, name + " # SKIP needs root, unshare and ip")
        return
    script = (
        "set -e; ip link set lo up; ip link add fl0 address 02:00:00:00:77:01 type veth peer "
        "name fl1; ip link set fl1 up; ip addr add 10.77.0.1/24 dev fl0; ip link set fl0 up; "
        "ip neigh replace 10.77.0.9 lladdr %s dev fl0 nud permanent; "
        "\"$@\"" % NEIGHBOUR_MAC)

    def in_netns(*args):
        command = ["unshare", "--net", "sh", "-c", script, "sh", c.pktstats, "-d", c.sim.device,
                   "flowlat", "set"] + list(args)
        p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=30)
        return p.returncode, p.stdout, p.stderr

    before = dump(c.sim)
    status, out, err = in_netns("collector", "10.77.0.9", "via", "fl0")
    changed = diff(before, dump(c.sim))
    want = {"flowlat.ipfix_destination_ip": 0x0a4d0009,
            "flowlat.ipfix_destination_mac": 0x020000007709,
            "flowlat.ipfix_source_ip": 0x0a4d0001,
            "flowlat.ipfix_source_mac": 0x020000007701}
    c.tap.point(status == 0 and changed == want, names[0],
                "exit %s %s\nchanged %s" % (status, err, {k: hex(v) for k, v in changed.items()}))
    before = dump(c.sim)
    status, out, err = in_netns("collector", "10.77.0.9", "dst-mac", "02:00:00:00:00:aa",
                                "src-ip", "10.77.0.5", "mtu", "1234")
    changed = diff(before, dump(c.sim))
    c.tap.point(status == 0 and changed == {"flowlat.ipfix_destination_mac": 0x0200000000aa,
                                            "flowlat.ipfix_source_ip": 0x0a4d0005,
                                            "flowlat.mtu": 1234}, names[1],
                "exit %s %s\nchanged %s" % (status, err, {k: hex(v) for k, v in changed.items()}))
    before = dump(c.sim)
    status, out, err = in_netns("collector", "10.78.0.9", "mtu", "1000")
    changed = diff(before, dump(c.sim))
    c.tap.point(status == 1 and len(err.splitlines()) == 1 and
                err.startswith("pktstats: flowlat set: collector 10.78.0.9: ") and not changed,
                names[2], "exit %s %r\nchanged %s" % (status, err, changed))


# ------------------------------------------------------------------------------------------
# flows and counters, with traffic

FLOW = (0x0a000001, 0x0a000003, 1000, 3000)  # 10.0.0.1:1000 -> 10.0.0.3:3000, UDP
BREACHING = (0x0a000002, 0x0a000003, 2000, 3000)  # 10.0.0.2:2000 -> 10.0.0.3:3000, UDP
FRAMES = 20


def traffic_case(tap, pktstats, sim_binary, work):
    frames = [(i * 2000, FL.flow_frame(*FLOW, 0, 2, i, 100)) for i in range(FRAMES)]
    frames += [(i * 2000 + 1000, FL.flow_frame(*BREACHING, 0, 2, 1000 + i, 100))
               for i in range(FRAMES)]
    frames.sort(key=lambda f: f[0])
    write_timed_pcap(os.path.join(work, "a.pcap"), frames)
    # --wait: the frames leave when the flow group is in place; --duration: the simulator
    # serves its registers long after them (it is killed at the end)
    sim = Simulator(sim_binary, work, ["--port", "0:in=%s" % os.path.join(work, "a.pcap"),
                                       "--wait", "--duration", "10s"], name="traffic")
    c = Case(tap, pktstats, sim)
    key = ["src", "10.0.0.1", "dst", "10.0.0.3", "protocol", "udp", "sport", "1000", "dport",
           "3000"]
    try:
        sim.add_port_entries(range(4))
        # absent: an answer, not a failure
        before = dump(sim)
        status, out, err = c.run("-j", "flowlat", "flow", "show", *key)
        after = dump(sim)
        obj = json.loads(out) if status == 0 else {}
        want = {"src": "10.0.0.1", "dst": "10.0.0.3", "protocol": 17, "sport": 1000,
                "dport": 3000, "found": False, "breach": None, "group": None,
                "last_residence": None, "max_residence": None, "packets": None,
                "last_seen_us": None, "age_us": None}
        tap.point(status == 0 and obj == want and not err and
                  after["flowlat.lookup_src_ip"] == FLOW[0] and
                  after["flowlat.lookup_dst_ip"] == FLOW[1] and
                  after["flowlat.lookup_ports"] == FLOW[2] | FLOW[3] << 16 and
                  after["flowlat.lookup_protocol"] == 17,
                  "flowlat flow show of an absent flow: exit 0, found false, the key written",
                  "exit %s %s %s" % (status, out, err))
        status, out, err = c.run("flowlat", "flow", "show", *key)
        tap.point(status == 0 and re.search(r"^found +no$", out, re.M) is not None,
                  "flowlat flow show of an absent flow, text: found no", out + err)
        c.json_equals_text(["flowlat", "flow", "show", *key])
        del before

        c.cli("flowlat", "profile", "set", "2", "stateless", "high", "-1s")  # every frame
        # HIGH at the first frame (residence above 0), never LOW: in breach from then on
        c.cli("flowlat", "profile", "set", "6", "stateful", "high", "0", "low", "-1s")
        c.cli("flowlat", "group", "set", "5", "src", "10.0.0.2", "protocol", "17", "sport",
              "2000", "egress-ports", "2", "profile", "6")
        c.cli("flowlat", "group", "set", "4", "src", "10.0.0.1", "protocol", "udp", "dport",
              "3000", "egress-ports", "2", "profile", "2")
        c.cli("flowlat", "set", "monitor", "on", "export", "on", "export-ports", "3",
              "flush-timeout", "10us")
        start = sim.cycle()
        sim.request("start")
        T.wait_for_clock(sim, start + (FRAMES * 2000 + 200000) // 8)
        status, out, err = c.run("-j", "flowlat", "flow", "show", *key)
        obj = json.loads(out) if status == 0 else {}
        regs = dump(sim)
        lookup = {n: sim.read(R["FLOWLAT_LOOKUP_" + n.upper()])
                  for n in ("status", "last_residence", "max_residence", "packets",
                            "last_seen_us")}
        now = sim.read(R["FLOWLAT_NOW_US"])
        tap.point(status == 0 and obj.get("found") is True and obj.get("packets") == FRAMES and
                  obj.get("group") == 4 and obj.get("breach") is False and
                  lookup["status"] & 3 == 3 and lookup["status"] >> 4 == 4 and
                  lookup["packets"] == FRAMES and
                  obj.get("last_residence") == FL.signed32(lookup["last_residence"]) and
                  obj.get("max_residence") == FL.signed32(lookup["max_residence"]) and
                  obj.get("last_residence", 0) > 0 and
                  obj.get("max_residence", 0) >= obj.get("last_residence", 0) and
                  obj.get("last_seen_us") == lookup["last_seen_us"] and
                  0 <= obj.get("age_us", -1) <= u32(now - lookup["last_seen_us"]),
                  "flowlat flow show of a flow of %d frames: found, group 4, packets, residences "
                  "and last seen as the lookup registers hold them" % FRAMES,
                  "exit %s %s %s\nlookup %s now %d" % (status, out, err, lookup, now))
        del regs
        c.json_equals_text(["flowlat", "flow", "show", *key])
        key_b = ["src", "10.0.0.2", "dst", "10.0.0.3", "protocol", "udp", "sport", "2000",
                 "dport", "3000"]
        obj = json.loads(c.cli("-j", "flowlat", "flow", "show", *key_b))
        status_b = sim.read(R["FLOWLAT_LOOKUP_STATUS"])
        tap.point(obj.get("found") is True and obj.get("breach") is True and
                  obj.get("group") == 5 and obj.get("packets") == FRAMES and
                  status_b & 7 == 7 and status_b >> 4 == 5,
                  "flowlat flow show of a flow in breach of its stateful profile: breach true, "
                  "group 5, as lookup_status holds it", "%s status 0x%x" % (obj, status_b))
        status, out, err = c.run("flowlat", "flow", "show", *key_b)
        tap.point(status == 0 and re.search(r"^breach +yes$", out, re.M) is not None and
                  re.search(r"^group +5$", out, re.M) is not None,
                  "flowlat flow show, text: breach yes, group 5", out + err)

        counters = json.loads(c.cli("-j", "flowlat", "counters", "show"))
        regs = dump(sim)
        from_regs = {n: regs["flowlat." + n] for n in COUNTERS}
        tap.point(list(counters) == list(COUNTERS) and counters == from_regs and
                  counters["monitored"] == 2 * FRAMES and counters["events"] == FRAMES + 1 and
                  counters["messages"] > 0,
                  "flowlat counters show: the 13 counter registers (%d monitored, %d events, "
                  "%d messages)" % (counters.get("monitored", -1), counters.get("events", -1),
                                    counters.get("messages", -1)),
                  "json %s\nregisters %s" % (counters, from_regs))
        c.json_equals_text(["flowlat", "counters", "show"])
        templates = regs["flowlat.templates"]
        status, out, err = c.run("flowlat", "template")
        T.wait_for_clock(sim, sim.cycle() + 2000)
        after = sim.read64(R["FLOWLAT_TEMPLATES_LO"])
        tap.point(status == 0 and not out and after == templates + 1,
                  "flowlat template: one more template sent", "%s %s -> %s" % (err, templates,
                                                                               after))
        status, out, err = c.run("flowlat", "counters", "clear")
        regs = dump(sim)
        counters = json.loads(c.cli("-j", "flowlat", "counters", "show"))
        tap.point(status == 0 and all(regs["flowlat." + n] == 0 for n in COUNTERS) and
                  all(v == 0 for v in counters.values()) and len(counters) == 13,
                  "flowlat counters clear: the 13 registers read 0, and counters show",
                  "%s\n%s\n%s" % (err, {n: regs["flowlat." + n] for n in COUNTERS}, counters))

        status, out, err = c.run("flowlat", "clear")
        T.wait_for_clock(sim, sim.cycle() + 3000)
        obj = json.loads(c.cli("-j", "flowlat", "flow", "show", *key))
        tap.point(status == 0 and not out and obj["found"] is False,
                  "flowlat clear: the flow is forgotten", "%s %s" % (err, obj))
        show = json.loads(c.cli("-j", "flowlat", "show"))
        tap.point(show["clearing"] is False and show["now_us"] > 0 and
                  show["events_waiting"] == 0 and show["records_waiting"] == 0,
                  "flowlat show: status after the clear (clearing no, nothing waiting)",
                  json.dumps(show))
    finally:
        sim.kill()


def main():
    if len(sys.argv) != 3:
        print("usage: %s PKTSTATS PKTSTATS-SIM" % sys.argv[0], file=sys.stderr)
        return 2
    pktstats, sim_binary = (os.path.abspath(a) for a in sys.argv[1:])
    tap = Tap()
    help_case(tap, pktstats)
    with tempfile.TemporaryDirectory(prefix="pktstats-cli-flowlat.") as work:
        sim = Simulator(sim_binary, work)
        try:
            c = Case(tap, pktstats, sim)
            set_case(c)
            profile_case(c)
            group_case(c)
            bad_case(c)
            collector_case(c)
        except RuntimeError as e:
            tap.point(False, "the CLI against the simulator", str(e))
        finally:
            sim.kill()
        try:
            traffic_case(tap, pktstats, sim_binary, work)
        except RuntimeError as e:
            tap.point(False, "flows and counters with traffic", str(e))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
