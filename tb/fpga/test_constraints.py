#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""fpga/netfpga-1g-cml/constraints/: pins.xdc parsed, timing.xdc run under tclsh with stubs.

pins.xdc:
  - every line is a comment, a set_property on [current_design], or a set_property on
    [get_ports ...]; PACKAGE_PIN and IOSTANDARD name one port each, no wildcard;
  - every port has exactly one PACKAGE_PIN; exactly one IOSTANDARD, except the PCIe transceiver
    pins, which have none (Vivado takes no I/O standard on GT terminals);
  - no package pin used twice, no port named twice (also not in another letter case);
  - every pin is a ball of the FFG676 package (rows A..AF without I, O, Q, S, X, Z; columns 1..26);
  - the RGMII groups complete for ports 0..3 (txc, tx_ctl, txd[3:0], rxc, rx_ctl, rxd[3:0] at
    LVCMOS18, phyN_reset_n at LVCMOS33) and the other ports the top will use (system clock LVDS,
    reset button, MDIO, LEDs, PCIe Gen2 x4), differential pairs complete;
  - a pattern of any other property (SLEW) matches at least one port.
timing.xdc (tclsh, tb/fpga/vivado_stubs.py; every get_ports pattern must match a port of
pins.xdc): the clocks and their periods, 4 input delays per RGMII RX pin group and 4 output delays
per TX group against the forwarded txc, each rxc in an asynchronous group of its own apart from
sys_clk's, false paths on the resets and LEDs.
With the board top (argument TOP.v, default fpga/netfpga-1g-cml/rtl/netfpga_1g_cml_top.v):
every port bit of the top is constrained and every constrained port is one of the top's. While
the top does not exist that point is skipped, saying so; the port comparison itself is run on a
synthetic top (and one with a port too many) so that it is tested now.

    tb/fpga/test_constraints.py [TOP.v]
Prints TAP.
"""

import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tb", "common"))
sys.path.insert(0, HERE)
from tap_output import Tap  # noqa: E402
import vivado_stubs as stubs  # noqa: E402

CONSTRAINTS = os.path.join(REPO, "fpga", "netfpga-1g-cml", "constraints")
DEFAULT_TOP = os.path.join(REPO, "fpga", "netfpga-1g-cml", "rtl", "netfpga_1g_cml_top.v")
GT_PORT = re.compile(r"^pcie_(rx|tx)_[pn]\[\d\]$|^pcie_refclk_[pn]$")
# FFG676: 26 x 26 balls; rows skip I, O, Q, S, X, Z (Xilinx UG475)
ROWS = [r for r in "ABCDEFGHJKLMNPRTUVWY"] + ["AA", "AB", "AC", "AD", "AE", "AF"]
BALL = re.compile(r"^(%s)([1-9]|1\d|2[0-6])$" % "|".join(sorted(ROWS, key=len, reverse=True)))

SET_PORTS = re.compile(r"^set_property\s+(?P<what>-dict\s+\{(?P<dict>[^}]*)\}|(?P<key>\S+)\s+(?P<value>\S+))"
                       r"\s+\[get_ports\s+(?P<ports>\{[^}]*\}|\S+)\]\s*$")
SET_DESIGN = re.compile(r"^set_property\s+\S+\s+\S+\s+\[current_design\]\s*$")


def parse_pins(path):
    """[(line number, {property: value}, [port patterns])] and the lines that did not parse."""
    commands, bad = [], []
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            if SET_DESIGN.match(text):
                continue
            match = SET_PORTS.match(text)
            if not match:
                bad.append("%d: %s" % (number, text))
                continue
            if match.group("dict") is not None:
                words = match.group("dict").split()
                if len(words) % 2:
                    bad.append("%d: odd -dict: %s" % (number, text))
                    continue
                props = dict(zip(words[0::2], words[1::2]))
            else:
                props = {match.group("key"): match.group("value")}
            ports = match.group("ports").strip("{}").split()
            commands.append((number, props, ports))
    return commands, bad


def glob_match(pattern, name):
    regex = "^" + re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".") + "$"
    return re.match(regex, name) is not None


def verilog_ports(path):
    """The port bits of the first module in a Verilog file (ANSI or non-ANSI header), as names
    like led[0], and the problems found (a range that is not two numbers)."""
    with open(path) as handle:
        text = handle.read()
    text = re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))
    match = re.search(r"\bmodule\s+\w+\s*(#\s*\((?:[^()]|\([^()]*\))*\)\s*)?\((?P<header>.*?)\)\s*;", text, re.S)
    if not match:
        return set(), ["no module header found"]
    header = match.group("header")
    body = text[match.end():]
    declarations = []
    if re.search(r"\b(input|output|inout)\b", header):
        declarations = [header]
    else:
        declarations = re.findall(r"\b((?:input|output|inout)\b[^;]*);", body)
    bits, problems = set(), []
    for declaration in declarations:
        direction, rng = None, None
        for part in declaration.split(","):
            part = part.strip()
            m = re.match(r"^(?:(input|output|inout)\s+)?(?:(?:wire|reg|logic|signed|tri)\s+)*"
                         r"(\[[^\]]*\]\s*)?(\w+)\s*$", part)
            if not m:
                problems.append("cannot parse port declaration '%s'" % part)
                continue
            if m.group(1):
                direction, rng = m.group(1), m.group(2)
            elif m.group(2):
                rng = m.group(2)
            if direction is None:
                problems.append("port %s without a direction" % m.group(3))
                continue
            name = m.group(3)
            if rng:
                r = re.match(r"^\[\s*(\d+)\s*:\s*(\d+)\s*\]\s*$", rng)
                if not r:
                    problems.append("range %s of %s is not two numbers" % (rng.strip(), name))
                    continue
                hi, lo = int(r.group(1)), int(r.group(2))
                for i in range(min(hi, lo), max(hi, lo) + 1):
                    bits.add("%s[%d]" % (name, i))
            else:
                bits.add(name)
    return bits, problems


def compare_ports(top_bits, constrained):
    return sorted(top_bits - constrained), sorted(constrained - top_bits)


def expected_ports():
    ports = {"sys_clk_p": "LVDS", "sys_clk_n": "LVDS", "btn_reset_n": "LVCMOS18",
             "mdc": "LVCMOS18", "mdio": "LVCMOS18", "pcie_perst_n": "LVCMOS33",
             "pcie_refclk_p": None, "pcie_refclk_n": None}
    for i in range(4):
        ports["led[%d]" % i] = ""  # 1.8 V or 3.3 V: the bank decides
        for lane in ("rx_p", "rx_n", "tx_p", "tx_n"):
            ports["pcie_%s[%d]" % (lane, i)] = None
        for name in ("txc", "tx_ctl", "rxc", "rx_ctl"):
            ports["rgmii%d_%s" % (i, name)] = "LVCMOS18"
        for b in range(4):
            ports["rgmii%d_txd[%d]" % (i, b)] = "LVCMOS18"
            ports["rgmii%d_rxd[%d]" % (i, b)] = "LVCMOS18"
        ports["phy%d_reset_n" % i] = "LVCMOS33"
    return ports


def check_pins(tap, commands, bad):
    tap.point(commands and not bad, "pins.xdc: every line parses (%d port commands)" % len(commands),
              "\n".join(bad))
    pin_of, std_of, other = {}, {}, []
    multi = []
    for number, props, ports in commands:
        for key in ("PACKAGE_PIN", "IOSTANDARD"):
            if key in props and (len(ports) != 1 or any(c in ports[0] for c in "*?")):
                multi.append("%d: %s on %s" % (number, key, ports))
        if "PACKAGE_PIN" in props:
            pin_of.setdefault(ports[0], []).append(props["PACKAGE_PIN"])
        if "IOSTANDARD" in props:
            std_of.setdefault(ports[0], []).append(props["IOSTANDARD"])
        rest = {k: v for k, v in props.items() if k not in ("PACKAGE_PIN", "IOSTANDARD")}
        if rest:
            other.append((number, rest, ports))
    tap.point(not multi, "PACKAGE_PIN and IOSTANDARD each name one port, no wildcard", multi)
    ports = set(pin_of) | set(std_of)
    pins_wrong = {p: pin_of.get(p) for p in ports if len(pin_of.get(p, [])) != 1}
    tap.point(ports and not pins_wrong, "every port has exactly one PACKAGE_PIN (%d ports)" % len(ports),
              pins_wrong)
    std_wrong = {}
    for p in ports:
        n = len(std_of.get(p, []))
        if (GT_PORT.match(p) and n != 0) or (not GT_PORT.match(p) and n != 1):
            std_wrong[p] = std_of.get(p)
    tap.point(not std_wrong, "every port has exactly one IOSTANDARD, the PCIe transceiver pins none",
              std_wrong)
    used = {}
    for port, pins in pin_of.items():
        for pin in pins:
            used.setdefault(pin.upper(), []).append(port)
    twice = {pin: ps for pin, ps in used.items() if len(ps) > 1}
    tap.point(not twice, "no package pin used twice (%d pins)" % len(used), twice)
    folded = {}
    for p in ports:
        folded.setdefault(p.lower(), []).append(p)
    named_twice = [v for v in folded.values() if len(v) > 1]
    named_twice += [p for p, pins in pin_of.items() if len(pins) > 1]
    tap.point(not named_twice, "no port named twice (also not in another letter case)", named_twice)
    not_balls = sorted(p for p in used if not BALL.match(p))
    tap.point(not not_balls, "every pin is a ball of the FFG676 package", not_balls)

    expected = expected_ports()
    rgmii_missing = []
    for i in range(4):
        group = [p for p in expected if p.startswith("rgmii%d_" % i)] + ["phy%d_reset_n" % i]
        for p in group:
            if p not in ports:
                rgmii_missing.append(p)
            elif expected[p] and std_of.get(p) != [expected[p]]:
                rgmii_missing.append("%s is %s, not %s" % (p, std_of.get(p), expected[p]))
    extra_rgmii = [p for p in ports if re.match(r"^(rgmii|phy)(\d+)_", p) and
                   int(re.match(r"^(rgmii|phy)(\d+)_", p).group(2)) > 3]
    tap.point(not rgmii_missing and not extra_rgmii,
              "RGMII groups complete for ports 0..3 (12 pins at LVCMOS18 and the PHY reset at "
              "LVCMOS33 each)", rgmii_missing + extra_rgmii)
    others = [p for p in expected if not p.startswith(("rgmii", "phy"))]
    wrong = []
    for p in others:
        if p not in ports:
            wrong.append("%s missing" % p)
        elif expected[p] and std_of.get(p) != [expected[p]]:
            wrong.append("%s is %s, not %s" % (p, std_of.get(p), expected[p]))
    unexpected = sorted(ports - set(expected))
    tap.point(not wrong and not unexpected, "system clock (LVDS), reset button, MDIO, 4 LEDs, PCIe "
              "Gen2 x4 (refclk, 4 lanes, PERST#) present, nothing else", wrong + unexpected)
    pairs = [p for p in ports if re.search(r"_p(\[\d+\])?$", p) and
             re.sub(r"_p(\[\d+\])?$", r"_n\1", p) not in ports]
    pairs += [p for p in ports if re.search(r"_n(\[\d+\])?$", p) and p.startswith(("pcie_rx", "pcie_tx", "pcie_refclk", "sys_clk"))
              and re.sub(r"_n(\[\d+\])?$", r"_p\1", p) not in ports]
    tap.point(not pairs, "differential pairs complete", pairs)
    unmatched = [(n, pat) for n, _, pats in other for pat in pats
                 if not any(glob_match(pat, p) for p in ports)]
    tap.point(not unmatched, "the patterns of the other properties (SLEW) match ports", unmatched)
    return ports


def check_timing(tap, ports):
    if not stubs.tclsh():
        print("ok %d - timing.xdc # SKIP tclsh not installed (Debian package tcl)" % (tap.n + 1))
        tap.n += 1
        return
    with tempfile.TemporaryDirectory() as scratch:
        log = os.path.join(scratch, "stub.log")
        sys_generated = ["clk_core", "clk_core90"] + ["rgmii%d_txc" % i for i in range(4)]
        env = dict(os.environ,
                   STUB_CLOCKS=" ".join(["sys_clk", "pcie_refclk", "txoutclk", "userclk"] +
                                        sys_generated + ["rgmii%d_rxc" % i for i in range(4)]),
                   STUB_GENERATED="sys_clk=" + ",".join(sys_generated))
        proc = stubs.run_tcl(stubs.stub_prelude(log, sorted(ports)) +
                             "source {%s}\n" % os.path.join(CONSTRAINTS, "timing.xdc"), env=env)
        tap.point(proc.returncode == 0, "timing.xdc runs under tclsh; every get_ports pattern names a "
                  "port of pins.xdc", proc.stderr)
        calls = stubs.read_log(log) if os.path.exists(log) else []

    def opt(args, flag):
        return args[args.index(flag) + 1] if flag in args else None

    clocks = {opt(a, "-name"): (opt(a, "-period"), a[-1]) for n, a in calls if n == "create_clock"}
    want = {"sys_clk": ("5.000", "sys_clk_p"), "pcie_refclk": ("10.000", "pcie_refclk_p")}
    for i in range(4):
        want["rgmii%d_rxc" % i] = ("8.000", "rgmii%d_rxc" % i)
    tap.point(clocks == want, "clocks: sys_clk 5 ns on sys_clk_p, pcie_refclk 10 ns, each rgmii rxc "
              "8 ns on its port", clocks)
    generated = {opt(a, "-name"): a for n, a in calls if n == "create_generated_clock"}
    tap.point(sorted(generated) == ["rgmii%d_txc" % i for i in range(4)] and
              all(generated[k][-1] == k and opt(generated[k], "-source") for k in generated),
              "each forwarded txc a generated clock on its port, sourced at its ODDR's clock pin",
              generated)
    problems = []
    for kind, clock_fmt, port_fmt in (("set_input_delay", "rgmii%d_rxc", "rgmii%d_rx"),
                                      ("set_output_delay", "rgmii%d_txc", "rgmii%d_tx")):
        for i in range(4):
            delays = [a for n, a in calls if n == kind and opt(a, "-clock") == clock_fmt % i]
            edges = sorted(("-clock_fall" in a, "-max" in a) for a in delays)
            targets = [stubs.tcl_list(a[-1]) for a in delays]
            want_targets = ["%s_ctl" % (port_fmt % i), "%sd[*]" % (port_fmt % i)]
            if edges != [(False, False), (False, True), (True, False), (True, True)]:
                problems.append("%s %s: %s" % (kind, clock_fmt % i, edges))
            if any(sorted(t) != sorted(want_targets) for t in targets):
                problems.append("%s %s on %s" % (kind, clock_fmt % i, targets))
            later = [a for a in delays if "-clock_fall" in a]
            if any("-add_delay" not in a for a in later):
                problems.append("%s %s: falling-edge delays without -add_delay" % (kind, clock_fmt % i))
    tap.point(not problems, "RGMII: min and max delays on both edges, RX data against rxc, TX data "
              "against the forwarded txc, for 4 ports", problems)
    groups = [a for n, a in calls if n == "set_clock_groups"]
    group_lists = []
    if len(groups) == 1 and "-asynchronous" in groups[0]:
        args = groups[0]
        group_lists = [stubs.tcl_list(args[k + 1]) for k, w in enumerate(args) if w == "-group"]
    sys_group = [g for g in group_lists if "sys_clk" in g]
    rx_alone = all(["rgmii%d_rxc" % i] in group_lists for i in range(4))
    pcie = [g for g in group_lists if "pcie_refclk" in g]
    tap.point(len(sys_group) == 1 and all(c in sys_group[0] for c in sys_generated) and rx_alone and
              len(pcie) == 1 and "userclk" in pcie[0] and "sys_clk" not in pcie[0],
              "asynchronous groups: sys_clk with its generated clocks, each rxc alone, the PCIe side",
              group_lists)
    false_from = [p for n, a in calls if n == "set_false_path" and "-from" in a
                  for p in stubs.tcl_list(opt(a, "-from"))]
    false_to = [p for n, a in calls if n == "set_false_path" and "-to" in a
                for p in stubs.tcl_list(opt(a, "-to"))]
    tap.point({"btn_reset_n", "pcie_perst_n"} <= set(false_from) and
              {"led[*]", "phy*_reset_n"} <= set(false_to),
              "false paths from the reset inputs, to the LEDs and PHY resets", (false_from, false_to))


def check_top(tap, ports, top_path):
    # the comparison itself, on synthetic tops, so that it is exercised before the top exists
    with tempfile.TemporaryDirectory() as scratch:
        buses = {}
        for p in ports:
            m = re.match(r"^(\w+)\[(\d+)\]$", p)
            if m:
                buses.setdefault(m.group(1), []).append(int(m.group(2)))
        lines = []
        for p in sorted(ports):
            if "[" not in p:
                lines.append("    %s wire %s" % ("inout" if p == "mdio" else "input", p))
        for name, bits in sorted(buses.items()):
            lines.append("    output wire [%d:%d] %s" % (max(bits), min(bits), name))
        good = os.path.join(scratch, "good.v")
        with open(good, "w") as handle:
            handle.write("// synthetic\nmodule t #(parameter N = 1) (\n%s\n);\nendmodule\n" % ",\n".join(lines))
        extra = os.path.join(scratch, "extra.v")
        with open(extra, "w") as handle:
            handle.write("module t (\n%s,\n    output wire uart_tx /* not on the board list */\n);\nendmodule\n"
                         % ",\n".join(lines))
        good_bits, good_problems = verilog_ports(good)
        extra_bits, _ = verilog_ports(extra)
        tap.point(compare_ports(good_bits, ports) == ([], []) and not good_problems and
                  compare_ports(extra_bits, ports) == (["uart_tx"], []),
                  "the port comparison finds nothing on a synthetic top with exactly the constrained "
                  "ports and uart_tx on one with a port more", (good_problems, compare_ports(extra_bits, ports)))
    if not os.path.exists(top_path):
        print("ok %d - every port of the board top is constrained and nothing else # SKIP %s does "
              "not exist yet (the board top comes next session)" % (tap.n + 1, os.path.relpath(top_path, REPO)))
        tap.n += 1
        return
    bits, problems = verilog_ports(top_path)
    unconstrained, unused = compare_ports(bits, ports)
    tap.point(bits and not problems and not unconstrained and not unused,
              "every port of %s is constrained and nothing else" % os.path.basename(top_path),
              "problems %s\nnot constrained: %s\nconstrained, not a port: %s" % (problems, unconstrained, unused))


def main():
    tap = Tap()
    top_path = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_TOP
    commands, bad = parse_pins(os.path.join(CONSTRAINTS, "pins.xdc"))
    ports = check_pins(tap, commands, bad)
    check_timing(tap, ports)
    check_top(tap, ports, top_path)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
