#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""fpga/netfpga-1g-cml/build.tcl and Makefile, without Vivado.

build.tcl runs under tclsh with every Vivado command stubbed (tb/fpga/vivado_stubs.py: each
stub records its call; a command that is not stubbed is unknown to tclsh, so a misspelt one fails
here). It runs in a scratch copy of the tree: fpga/netfpga-1g-cml/ copied, rtl/ linked, and, while
netfpga_1g_cml_top does not exist yet, a one-line stand-in for it (the script must fail on a
sources.f entry that matches nothing). Checked:
  - sources.f against the real tree: every entry matches a file (the board's rtl/ entry is
    skipped, with the reason, while the top does not exist), none points into fpga/models or tb/;
  - the files read_verilog gets are exactly sources.f's, resolved; pins.xdc and timing.xdc are read
    (timing.xdc unmanaged); the part and the top;
  - the XDMA is created from Tcl (Gen2 x4, AXI-Lite master, AXI-Stream channels), generated and
    synthesised before synth_design; the steps in order;
  - every output under the build directory, nothing written into the tree;
  - the timing gate: positive slack passes and writes the bitstream and the BPI images; negative
    WNS, negative WHS or a clock of timing.xdc missing fails (non-zero, message, no bitstream);
  - a sources.f entry that matches nothing, and no arguments, fail with a message;
  - make bitstream without Vivado: exit 2 and one line; with VIVADO=path to a stand-in, the
    command line build.tcl expects.

    tb/fpga/test_build_tcl.py
Prints TAP.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tb", "common"))
sys.path.insert(0, HERE)
from tap_output import Tap  # noqa: E402
import vivado_stubs as stubs  # noqa: E402

BOARD = "fpga/netfpga-1g-cml"
TOP = "netfpga_1g_cml_top"
PART = "xc7k325tffg676-1"
CLOCKS = ["sys_clk", "pcie_refclk"] + ["rgmii%d_%s" % (i, k) for i in range(4) for k in ("rxc", "txc")]
STEPS = ["create_project", "read_verilog", "read_xdc", "create_ip", "generate_target", "synth_ip",
         "synth_design", "opt_design", "place_design", "phys_opt_design", "route_design",
         "report_timing_summary", "get_timing_paths", "write_bitstream", "write_cfgmem"]


def sources_entries(path):
    entries = []
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            entry = line.split("#", 1)[0].strip()
            if entry:
                entries.append((number, entry))
    return entries


def glob_tcl_like(root, entry):
    """Python's glob over the same patterns sources.f uses (*, ?, [..]), files only, sorted."""
    import glob
    return sorted(p for p in glob.glob(os.path.join(root, entry)) if os.path.isfile(p))


def make_sandbox(scratch):
    """A copy of the board directory and links to rtl/, with a stand-in top when there is none."""
    root = os.path.join(scratch, "tree")
    board = os.path.join(root, BOARD)
    os.makedirs(os.path.dirname(board))
    shutil.copytree(os.path.join(REPO, BOARD), board,
                    ignore=shutil.ignore_patterns("rtl"))
    os.symlink(os.path.join(REPO, "rtl"), os.path.join(root, "rtl"))
    real_board_rtl = os.path.join(REPO, BOARD, "rtl")
    if glob_tcl_like(REPO, BOARD + "/rtl/*.v"):
        os.symlink(real_board_rtl, os.path.join(board, "rtl"))
        stand_in = False
    else:
        os.makedirs(os.path.join(board, "rtl"))
        with open(os.path.join(board, "rtl", TOP + ".v"), "w") as handle:
            handle.write("module %s; endmodule // stand-in for the test\n" % TOP)
        stand_in = True
    return root, stand_in


def tree_listing(root):
    listing = set()
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            listing.add(os.path.relpath(os.path.join(dirpath, name), root))
    return listing


def run_build(root, build_dir, args=None, **stub_env):
    log = os.path.join(os.path.dirname(build_dir), "stub-%d.log" % len(os.listdir(os.path.dirname(build_dir))))
    env = dict(os.environ)
    env.update({"STUB_WNS": "0.125", "STUB_WHS": "0.031"})
    env.update(stub_env)
    if args is None:
        args = [build_dir, "2"]
    script = stubs.stub_prelude(log) + (
        "set argv {%s}\nset argc %d\nset argv0 build.tcl\nsource {%s}\n"
        % (" ".join("{%s}" % a for a in args), len(args),
           os.path.join(root, BOARD, "build.tcl")))
    proc = stubs.run_tcl(script, env=env, cwd=os.path.dirname(build_dir))
    calls = stubs.read_log(log) if os.path.exists(log) else []
    return proc, calls


def names(calls):
    return [c for c, _ in calls]


def first(calls, name):
    n = names(calls)
    return n.index(name) if name in n else None


def option(args, flag):
    return args[args.index(flag) + 1] if flag in args else None


def output_paths(calls):
    """Every path a command writes: -file/-dir values, checkpoint/bitstream/cfgmem targets."""
    paths = []
    for name, args in calls:
        for flag in ("-file", "-dir", "-log"):
            if flag in args:
                paths.append((name, option(args, flag)))
        if name in ("write_checkpoint", "write_bitstream", "write_cfgmem"):
            paths.append((name, args[-1]))
    return paths


def check_sources_f(tap):
    entries = sources_entries(os.path.join(REPO, BOARD, "sources.f"))
    top_exists = bool(glob_tcl_like(REPO, BOARD + "/rtl/*.v"))
    missing = []
    for number, entry in entries:
        if entry == BOARD + "/rtl/*.v" and not top_exists:
            continue
        if not glob_tcl_like(REPO, entry):
            missing.append("sources.f:%d: %s matches nothing" % (number, entry))
    tap.point(entries and not missing, "every entry of sources.f matches a file in the tree (%d entries)"
              % len(entries), "\n".join(missing))
    if top_exists:
        tap.point(True, "sources.f: the board's rtl/*.v exists")
    else:
        print("ok %d - sources.f: the board's rtl/*.v # SKIP netfpga_1g_cml_top is not written yet "
              "(next session); build.tcl stops on that entry until it is" % (tap.n + 1))
        tap.n += 1
    bad = [e for _, e in entries if e.startswith(("fpga/models", "tb/")) or e.startswith("/")]
    tap.point(not bad, "sources.f: no simulation models, testbenches or absolute paths", bad)
    needed = ["rtl/core", "rtl/evcap", "rtl/switch", "rtl/common", "rtl/time", "rtl/stamp",
              "rtl/oam", "rtl/flowlat", "rtl/gen", "rtl/mac", BOARD + "/rtl"]
    absent = [d for d in needed if not any(e.startswith(d + "/") for _, e in entries)]
    tap.point(not absent, "sources.f lists every RTL block the top needs", absent)


def main():
    tap = Tap()
    check_sources_f(tap)
    if not stubs.tclsh():
        tap.comment("tclsh not found (Debian package tcl)")
        print("ok %d - build.tcl under tclsh # SKIP tclsh not installed (Debian package tcl)" % (tap.n + 1))
        tap.n += 1
        return tap.done()

    with tempfile.TemporaryDirectory() as scratch:
        root, stand_in = make_sandbox(scratch)
        if stand_in:
            tap.comment("the board top does not exist yet: a one-line stand-in for it in the sandbox")
        runs = os.path.join(scratch, "runs")
        os.makedirs(runs)
        before = tree_listing(root)

        # --- a passing build
        build_dir = os.path.join(runs, "ok")
        proc, calls = run_build(root, build_dir)
        tap.point(proc.returncode == 0, "build.tcl runs to the end with every Vivado command stubbed",
                  proc.stderr + proc.stdout[-2000:])

        # the sources
        read = [a for n, a in calls if n == "read_verilog"]
        read_files = [f for args in read for arg in args for f in stubs.tcl_list(arg)]
        expected = []
        for _, entry in sources_entries(os.path.join(root, BOARD, "sources.f")):
            for path in glob_tcl_like(root, entry):
                if path not in expected:
                    expected.append(path)
        tap.point(read_files and [os.path.realpath(f) for f in read_files] ==
                  [os.path.realpath(f) for f in expected],
                  "read_verilog gets exactly the files of sources.f, resolved (%d)" % len(expected),
                  "read: %d, sources.f: %d; first differences: %s" % (
                      len(read_files), len(expected),
                      sorted(set(map(os.path.basename, read_files)) ^ set(map(os.path.basename, expected)))[:10]))
        tap.point(all(os.path.isfile(f) for f in read_files), "every file given to read_verilog exists")
        xdcs = [a for n, a in calls if n == "read_xdc"]
        pins = [a for a in xdcs if a[-1].endswith("constraints/pins.xdc")]
        timing = [a for a in xdcs if a[-1].endswith("constraints/timing.xdc")]
        tap.point(len(pins) == 1 and len(timing) == 1 and "-unmanaged" in timing[0] and
                  all(os.path.isfile(a[-1]) for a in xdcs),
                  "pins.xdc and timing.xdc (unmanaged: it is Tcl) are read, once each", xdcs)
        project = [a for n, a in calls if n == "create_project"]
        synth = [a for n, a in calls if n == "synth_design"]
        tap.point(project and "-in_memory" in project[0] and option(project[0], "-part") == PART and
                  synth and option(synth[0], "-top") == TOP and option(synth[0], "-part") == PART,
                  "in-memory project for %s, synth_design -top %s" % (PART, TOP), (project, synth))

        # the IP
        create = [a for n, a in calls if n == "create_ip"]
        ip_ok = (len(create) == 1 and option(create[0], "-name") == "xdma" and
                 option(create[0], "-vendor") == "xilinx.com" and option(create[0], "-library") == "ip")
        module = option(create[0], "-module_name") if create else None
        config = {}
        for n, a in calls:
            if n == "set_property" and a and a[0] == "-dict" and a[-1] == module:
                items = stubs.tcl_list(a[1])
                config.update(dict(zip(items[0::2], items[1::2])))
        wanted = {"CONFIG.pl_link_cap_max_link_width": "X4",
                  "CONFIG.pl_link_cap_max_link_speed": "5.0_GT/s",
                  "CONFIG.ref_clk_freq": "100_MHz",
                  "CONFIG.axilite_master_en": "true",
                  "CONFIG.xdma_axi_intf_mm": "AXI_Stream",
                  "CONFIG.xdma_rnum_chnl": "4", "CONFIG.xdma_wnum_chnl": "4"}
        wrong = {k: (config.get(k), v) for k, v in wanted.items() if config.get(k) != v}
        tap.point(ip_ok and not wrong, "XDMA created from Tcl: Gen2 x4, 100 MHz refclk, AXI-Lite "
                  "master BAR, 4+4 AXI-Stream channels", (create, wrong))
        order = [first(calls, s) for s in ("create_ip", "generate_target", "synth_ip", "synth_design")]
        tap.point(None not in order and order == sorted(order),
                  "the IP is created, generated and synthesised before synth_design", order)

        # the order of the steps
        positions = [(s, first(calls, s)) for s in STEPS]
        absent = [s for s, p in positions if p is None]
        out_of_order = [(a, b) for (a, pa), (b, pb) in zip(positions, positions[1:])
                        if pa is not None and pb is not None and pa > pb]
        tap.point(not absent and not out_of_order, "the steps in order: " + " < ".join(STEPS),
                  "missing %s, out of order %s" % (absent, out_of_order))

        # outputs
        outside = [(n, p) for n, p in output_paths(calls)
                   if not os.path.abspath(p).startswith(build_dir + os.sep)]
        tap.point(output_paths(calls) and not outside, "every output goes under the build directory",
                  outside)
        bit = [a for n, a in calls if n == "write_bitstream"]
        cfgmem = [a for n, a in calls if n == "write_cfgmem"]
        bit_path = os.path.join(build_dir, TOP + ".bit")
        tap.point(bit and bit[0][-1] == bit_path and cfgmem and
                  all(option(a, "-interface") == "BPIx16" and option(a, "-size") == "128" and
                      bit_path in stubs.tcl_list(option(a, "-loadbit")) for a in cfgmem) and
                  sorted(option(a, "-format") for a in cfgmem) == ["bin", "mcs"],
                  "the bitstream %s.bit and BPIx16 flash images (.mcs, .bin, 128 MB) from it" % TOP,
                  (bit, cfgmem))
        routed = first(calls, "route_design") or 0
        reports = [option(a, "-file") for n, a in calls[routed:]
                   if n in ("report_utilization", "report_timing_summary")]
        tap.point(any(r and r.endswith("timing_summary.rpt") for r in reports) and
                  any(r and r.endswith("utilization.rpt") for r in reports),
                  "utilisation and timing summary of the routed design reported to files", reports)
        tap.point(tree_listing(root) == before, "nothing written into the source tree",
                  sorted(tree_listing(root) ^ before))
        checked = [a[-1] for n, a in calls if n == "get_clocks"]
        tap.point(all(c in checked for c in CLOCKS), "every clock of timing.xdc is looked up after "
                  "routing", checked)

        # --- the timing gate
        for label, env, needle in (
                ("negative WNS", {"STUB_WNS": "-0.214"}, "timing not met"),
                ("negative WHS", {"STUB_WHS": "-0.008"}, "timing not met"),
                ("no timed path", {"STUB_WNS": ""}, "no timed path"),
                ("clock rgmii2_txc missing", {"STUB_MISSING_CLOCK": "rgmii2_txc"}, "rgmii2_txc")):
            proc, calls = run_build(root, os.path.join(runs, re.sub(r"\W", "_", label)), **env)
            tap.point(proc.returncode != 0 and needle in proc.stderr and
                      "write_bitstream" not in names(calls) and "write_cfgmem" not in names(calls),
                      "%s: the build fails (exit %d) before the bitstream, saying '%s'"
                      % (label, proc.returncode, needle), proc.stderr)
        proc, calls = run_build(root, os.path.join(runs, "zero"), STUB_WNS="0", STUB_WHS="0.0")
        tap.point(proc.returncode == 0 and "write_bitstream" in names(calls),
                  "zero slack passes (met, exactly)", proc.stderr)

        # --- usage and a broken sources.f
        proc, calls = run_build(root, os.path.join(runs, "usage"), args=[])
        tap.point(proc.returncode == 2 and "usage" in proc.stderr and "create_project" not in names(calls),
                  "no arguments: usage, exit 2, nothing run", proc.stderr)
        sources = os.path.join(root, BOARD, "sources.f")
        with open(sources) as handle:
            saved = handle.read()
        with open(sources, "a") as handle:
            handle.write("rtl/no_such_block/*.v\n")
        proc, calls = run_build(root, os.path.join(runs, "missing"))
        with open(sources, "w") as handle:
            handle.write(saved)
        tap.point(proc.returncode != 0 and "rtl/no_such_block/*.v" in proc.stderr and
                  "matches no file" in proc.stderr and "synth_design" not in names(calls),
                  "a sources.f entry matching no file stops the build before synthesis", proc.stderr)

    check_make(tap)
    return tap.done()


def path_without_vivado():
    keep = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not os.access(os.path.join(d, "vivado"), os.X_OK)]
    return os.pathsep.join(keep)


def check_make(tap):
    make = shutil.which("make")
    if not make:
        print("ok %d - make bitstream # SKIP make not installed" % (tap.n + 1))
        tap.n += 1
        return
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, PATH=path_without_vivado())
        env.pop("VIVADO", None)
        env.pop("MAKEFLAGS", None)
        env.pop("MAKELEVEL", None)
        build = os.path.join(scratch, "build")
        proc = subprocess.run([make, "--no-print-directory", "-C", os.path.join(REPO, BOARD), "bitstream",
                               "BUILD=" + build], capture_output=True, text=True, env=env)
        lines = (proc.stdout + proc.stderr).splitlines()
        tap.point(proc.returncode == 2 and len(lines) == 1 and "vivado not found on PATH" in lines[0] and
                  "VIVADO=" in lines[0] and "settings64.sh" in lines[0] and not os.path.exists(build),
                  "make bitstream without vivado on PATH: exit 2, one line naming it and how to point "
                  "at it", "exit %d: %s" % (proc.returncode, lines))
        not_executable = os.path.join(scratch, "vivado-not-executable")
        with open(not_executable, "w") as handle:
            handle.write("#!/bin/sh\n")
        results = []
        for vivado in (os.path.join(scratch, "nowhere", "vivado"), not_executable):
            proc = subprocess.run([make, "--no-print-directory", "-C", os.path.join(REPO, BOARD), "bitstream",
                                   "BUILD=" + build, "VIVADO=" + vivado],
                                  capture_output=True, text=True, env=env)
            lines = (proc.stdout + proc.stderr).splitlines()
            results.append((proc.returncode, lines))
        tap.point(all(rc == 2 and len(lines) == 1 and "not an executable file" in lines[0]
                      for rc, lines in results) and not os.path.exists(build),
                  "make bitstream VIVADO=a missing path, or a file that is not executable: exit 2, one line",
                  results)

        fake = os.path.join(scratch, "fake-vivado")
        record = os.path.join(scratch, "fake-vivado.args")
        with open(fake, "w") as handle:
            handle.write("#!/bin/sh\nprintf '%%s\\n' \"$PWD\" \"$@\" > '%s'\n" % record)
        os.chmod(fake, 0o755)
        proc = subprocess.run([make, "--no-print-directory", "-C", os.path.join(REPO, BOARD), "bitstream",
                               "BUILD=" + build, "VIVADO=" + fake, "JOBS=2"],
                              capture_output=True, text=True, env=env)
        args = open(record).read().splitlines() if os.path.exists(record) else []
        expected = [build, "-mode", "batch", "-nojournal", "-log", os.path.join(build, "vivado.log"),
                    "-source", os.path.join(REPO, BOARD, "build.tcl"), "-tclargs", build, "2"]
        tap.point(proc.returncode == 0 and args == expected,
                  "make bitstream VIVADO=path runs it in BUILD: -mode batch -source build.tcl -tclargs BUILD JOBS",
                  "exit %d, %s\n%s" % (proc.returncode, args, proc.stderr))


if __name__ == "__main__":
    sys.exit(main())
