#!/usr/bin/env python3
"""`pktstats flash` against stand-ins: no board, no JTAG cable, no root. Prints TAP.

usage: test_cli_flash.py PATH/TO/pktstats

The two seams of `pktstats flash` (docs/pktstats.8, ENVIRONMENT):
  - openFPGALoader is looked up on PATH: the test writes a stand-in `openFPGALoader` (a
    Python script) into a scratch directory put first on PATH. It appends its argv to a log
    (one JSON list per run) and acts as told by $STANDIN_MODE;
  - sysfs is $PKTSTATS_SYSFS_ROOT: the test builds a fake /sys/bus/pci tree (devices/,
    rescan). The stand-in "loads" the bitstream by creating the board there (vendor 0x10ee,
    device 0x7024, a 64 KiB resource0 holding the pktstats identity), at once or later in a
    background process, or never.

The stand-in's messages are openFPGALoader's (v0.10.0, src/main.cpp, src/ftdipp_mpsse.cpp):
"unable to open ftdi device: -3 (device not found)" and "JTAG init failed with: unable to open
ftdi device" with exit 1 when no cable is plugged in (also what the real tool printed here),
"error : NAME not found" for an unknown cable, the --detect listing ("index 0:", "idcode
0x3651093", "manufacturer xilinx", "family kintex7", "model  xc7k325t", "irlength 6"), and
"Error: Failed to program FPGA: WHAT" with exit 1 for a failed load (WHAT assumed: "Read ID
failed", what its SPI flash code throws when no SPI flash answers).

Checked: the exact command lines run (with and without `cable NAME`; `flash` refused), the
board removed and PCI rescanned, the identity read; every runtime error exits 1 with one line
naming the cause and keeping the tool's words; every bad command line and bad .bit exits 2
before the tool runs (the log stays empty); the wait for the board is bounded; -j.
"""

import json
import os
import stat
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tap_output import Tap  # noqa: E402

BOARD = "0000:03:00.0"
MAGIC, DESIGN_VERSION, GIT_HASH = 0x504B5453, 0x00010002, 0x1234ABCD

STANDIN = r'''#!%(python)s
import json, os, struct, sys, time
args = sys.argv[1:]
with open(os.environ["STANDIN_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
mode = os.environ.get("STANDIN_MODE", "ok")
root = os.environ.get("PKTSTATS_SYSFS_ROOT", "")

def board(magic=%(magic)d):
    d = os.path.join(root, "bus/pci/devices/%(board)s")
    os.makedirs(d, exist_ok=True)
    for name, text in (("vendor", "0x10ee\n"), ("device", "0x7024\n"), ("remove", "")):
        if not os.path.exists(os.path.join(d, name)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
    space = bytearray(0x10000)
    struct.pack_into("<III", space, 8, magic, %(version)d, %(git)d)
    with open(os.path.join(d, "resource0.tmp"), "wb") as f:
        f.write(space)
    os.rename(os.path.join(d, "resource0.tmp"), os.path.join(d, "resource0"))

if mode == "nocable":
    sys.stderr.write("unable to open ftdi device: -3 (device not found)\n"
                     "JTAG init failed with: unable to open ftdi device\n")
    sys.exit(1)
if mode == "unknown-cable":
    sys.stderr.write("error : " + args[args.index("-c") + 1] + " not found\n")
    sys.exit(1)
if "--detect" in args:
    if mode == "nofpga":
        sys.exit(0)          # 0.10.0 lists nothing and exits 0 for an empty chain
    if mode == "other":
        print("index 0:\n\tidcode 0x362d093\n\tmanufacturer xilinx\n\tfamily artix a7 35t\n"
              "\tmodel  xc7a35\n\tirlength 6")
    else:
        print("index 0:\n\tidcode 0x3651093\n\tmanufacturer xilinx\n\tfamily kintex7\n"
              "\tmodel  xc7k325t\n\tirlength 6")
    sys.exit(0)
old = os.path.join(root, "bus/pci/devices/%(board)s/remove")
if os.path.exists(old):  # what the board's remove file held when the load began
    with open(os.environ["STANDIN_LOG"] + ".remove", "w") as f:
        f.write(open(old).read())
print("Open file DONE\nParse file DONE\nload program\nFlash SRAM: [====] 100.00%%\nDone")
if mode == "loadfail":
    sys.stderr.write("Error: Failed to program FPGA: Read ID failed\n")
    sys.exit(1)
if mode == "ok":
    board()
elif mode == "late":
    if os.fork() == 0:
        os.setsid()
        time.sleep(1.5)
        board()
        os._exit(0)
elif mode == "deaf":
    board(0xFFFFFFFF)
sys.exit(0)
'''


def bit_file(path, part="7k325tffg676", data=b"\xff" * 64 + b"\xaa\x99\x55\x66",
             design="netfpga_1g_cml_top;UserID=0XFFFFFFFF;Version=2022.2", cut=None,
             length=None):
    def field(key, text):
        raw = text.encode() + b"\0"
        return key.encode() + struct.pack(">H", len(raw)) + raw
    head = (b"\x00\x09" + b"\x0f\xf0" * 4 + b"\x00" + b"\x00\x01" + field("a", design) +
            field("b", part) + field("c", "2026/11/25") + field("d", "23:00:00") + b"e" +
            struct.pack(">I", len(data) if length is None else length))
    raw = head + data
    with open(path, "wb") as f:
        f.write(raw if cut is None else raw[:cut])
    return len(head)


class World:
    """A scratch directory: bin/openFPGALoader, the log, a fake sysfs."""

    def __init__(self, work, name):
        self.dir = os.path.join(work, name)
        self.bin = os.path.join(self.dir, "bin")
        self.sys = os.path.join(self.dir, "sys")
        self.log = os.path.join(self.dir, "standin.log")
        os.makedirs(self.bin)
        os.makedirs(os.path.join(self.sys, "bus/pci/devices"))
        with open(os.path.join(self.sys, "bus/pci/rescan"), "w"):
            pass
        tool = os.path.join(self.bin, "openFPGALoader")
        with open(tool, "w") as f:
            f.write(STANDIN % {"python": sys.executable, "board": BOARD, "magic": MAGIC,
                               "version": DESIGN_VERSION, "git": GIT_HASH})
        os.chmod(tool, 0o755)

    def runs(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def read(self, relative):
        path = os.path.join(self.sys, relative)
        return open(path).read() if os.path.exists(path) else None


def run(cli, world, args, mode="ok", path=None, timeout=60):
    env = dict(os.environ)
    env.pop("PKTSTATS_DEVICE", None)
    env["PATH"] = path if path is not None else world.bin + ":" + env.get("PATH", "")
    env["PKTSTATS_SYSFS_ROOT"] = world.sys
    env["STANDIN_LOG"] = world.log
    env["STANDIN_MODE"] = mode
    start = time.monotonic()
    proc = subprocess.run([cli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, errors="replace", env=env, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start


def one_line(err):
    return err.count("\n") == 1 and err.startswith("pktstats: flash: ")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    cli = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pktstats-flash-test.") as work:
        good = os.path.join(work, "good.bit")
        bit_file(good)
        part = "xc7k325tffg676"
        n = [0]

        def world(name):
            n[0] += 1
            return World(work, "%02d-%s" % (n[0], name))

        # Success, into the FPGA's memory, default cable; a board already on PCI is removed.
        w = world("ok")
        os.makedirs(os.path.join(w.sys, "bus/pci/devices", BOARD))
        for name, text in (("vendor", "0x10ee\n"), ("device", "0x7024\n"), ("remove", "")):
            with open(os.path.join(w.sys, "bus/pci/devices", BOARD, name), "w") as f:
                f.write(text)
        status, out, err, _ = run(cli, w, ["flash", good])
        tap.point(status == 0, "load into SRAM: exit 0", err)
        tap.point(w.runs() == [["--detect"], ["--fpga-part", part, good]],
                  "load into SRAM: openFPGALoader --detect, then --fpga-part %s FILE" % part,
                  w.runs())
        tap.point("pktstats: flash: running: openFPGALoader --detect\n" in err and
                  "pktstats: flash: running: openFPGALoader --fpga-part %s %s\n" % (part, good)
                  in err, "load into SRAM: both command lines printed on stderr", err)
        at_load = open(w.log + ".remove").read() if os.path.exists(w.log + ".remove") else None
        tap.point(at_load == "1" and w.read("bus/pci/rescan") == "1",
                  "the board on PCI was removed before the load began, PCI rescanned after",
                  (at_load, w.read("bus/pci/rescan")))
        lines = dict(line.split(None, 1) for line in out.splitlines() if " " in line)
        tap.point(lines.get("device") == "pci:" + BOARD and
                  lines.get("magic") == "0x504b5453" and
                  lines.get("design-version") == "1.2" and lines.get("git-hash") == "1234abcd" and
                  lines.get("target") == "sram" and lines.get("part") == "7k325tffg676",
                  "text output: the device found, its identity, the part, sram", out)

        # The configuration flash is BPI: refused before anything runs, saying what works.
        w = world("flash")
        status, out, err, _ = run(cli, w, ["flash", good, "flash", "cable", "digilent_hs2"])
        tap.point(status == 2 and one_line(err) and "BPI" in err and ".mcs" in err and
                  w.runs() == [] and out == "",
                  "flash keyword: exit 2 (the BPI flash cannot be written by openFPGALoader), "
                  "the tool never ran", (status, err, w.runs()))

        # A cable; -j.
        w = world("success")
        status, out, err, _ = run(cli, w, ["-j", "flash", good, "cable", "digilent_hs2",
                                           "board-timeout", "5s"])
        tap.point(status == 0 and w.runs() ==
                  [["-c", "digilent_hs2", "--detect"],
                   ["-c", "digilent_hs2", "--fpga-part", part, good]],
                  "cable digilent_hs2: -c digilent_hs2 on both runs",
                  (status, err, w.runs()))
        try:
            j = json.loads(out)
        except ValueError:
            j = {}
        tap.point(out.count("\n") == 1 and j.get("target") == "sram" and
                  j.get("cable") == "digilent_hs2" and j.get("device") == "pci:" + BOARD and
                  j.get("magic") == MAGIC and j.get("design_version") == "1.2" and
                  j.get("git_hash") == "1234abcd" and j.get("fpga") == "xc7k325t" and
                  j.get("idcode") == 0x3651093 and j.get("bitstream_bytes") == 68 and
                  j.get("design", "").startswith("netfpga_1g_cml_top;") and
                  j.get("date") == "2026/11/25" and j.get("time") == "23:00:00" and
                  j.get("removed") == [] and
                  j.get("detect_command") == "openFPGALoader -c digilent_hs2 --detect" and
                  j.get("load_command") ==
                  "openFPGALoader -c digilent_hs2 --fpga-part %s %s" % (part, good),
                  "-j: one JSON line with the header, the chain, the commands, the identity",
                  out + err)
        tap.point(err == "", "-j: nothing on stderr (the commands are fields)", err)

        # The board appears late: the rescan loop finds it.
        w = world("late")
        status, out, err, took = run(cli, w, ["flash", good, "board-timeout", "8s"], "late")
        tap.point(status == 0 and 1.4 < took < 8, "board appearing 1.5 s after the load: "
                  "found (%.1f s)" % took, err)

        # Runtime errors: exit 1, one line of ours (after the tool's own output, echoed).
        def ours(err):
            return [line for line in err.splitlines() if line.startswith("pktstats: flash: ")
                    and not line.startswith("pktstats: flash: running: ")]

        w = world("nocable")
        status, out, err, _ = run(cli, w, ["flash", good], "nocable")
        m = ours(err)
        tap.point(status == 1 and len(m) == 1 and "no JTAG cable found" in m[0] and
                  "JTAG init failed with: unable to open ftdi device" in m[0] and
                  w.runs() == [["--detect"]] and out == "",
                  "no cable: exit 1, 'no JTAG cable found' with the tool's message, no load",
                  (status, err, w.runs()))
        w = world("unknown-cable")
        status, out, err, _ = run(cli, w, ["flash", good, "cable", "nosuch"], "unknown-cable")
        m = ours(err)
        tap.point(status == 1 and len(m) == 1 and "does not know this cable" in m[0] and
                  "error : nosuch not found" in m[0], "unknown cable: exit 1, the tool's words",
                  err)
        w = world("nofpga")
        status, out, err, _ = run(cli, w, ["flash", good], "nofpga")
        m = ours(err)
        tap.point(status == 1 and len(m) == 1 and "no FPGA on the JTAG chain" in m[0] and
                  len(w.runs()) == 1, "empty chain: exit 1, 'no FPGA on the JTAG chain'", err)
        w = world("other")
        status, out, err, _ = run(cli, w, ["flash", good], "other")
        m = ours(err)
        tap.point(status == 1 and len(m) == 1 and "xc7a35 (idcode 0x0362d093)" in m[0] and
                  "xc7k325t" in m[0] and len(w.runs()) == 1,
                  "another FPGA on the chain: exit 1 naming both, no load", (err, w.runs()))
        w = world("loadfail")
        status, out, err, _ = run(cli, w, ["flash", good], "loadfail")
        m = ours(err)
        tap.point(status == 1 and len(m) == 1 and
                  "loading the bitstream failed" in m[0] and "exit 1" in m[0] and
                  "Error: Failed to program FPGA: Read ID failed" in m[0] and
                  len(w.runs()) == 2, "failing load: exit 1 with the tool's error", err)
        w = world("never")
        status, out, err, took = run(cli, w, ["flash", good, "board-timeout", "300ms"],
                                     "never")
        m = ours(err)
        tap.point(status == 1 and len(m) == 1 and "no PCI device 10ee:7024 appeared within "
                  "300 ms" in m[0] and 0.3 <= took < 5 and w.read("bus/pci/rescan") == "1",
                  "board never on PCI: exit 1 after the timeout (%.2f s), rescan written" %
                  took, err)
        w = world("deaf")
        status, out, err, took = run(cli, w, ["flash", good, "board-timeout", "300ms"],
                                     "deaf")
        m = ours(err)
        tap.point(status == 1 and len(m) == 1 and "appeared as pci:%s but does not answer"
                  % BOARD in m[0] and took < 5,
                  "board on PCI reading all ones: exit 1, 'does not answer' (%.2f s)" % took,
                  err)
        w = world("missing")
        empty = os.path.join(w.dir, "empty")
        os.makedirs(empty)
        status, out, err, _ = run(cli, w, ["flash", good], path=empty)
        tap.point(status == 1 and one_line(err) and "openFPGALoader not found on PATH" in err
                  and "openfpgaloader" in err and w.runs() == [],
                  "openFPGALoader not on PATH: exit 1 naming the Debian package", err)

        # Bad bitstreams: exit 2 before anything runs.
        def refused(name, args, words):
            wb = world("bad")
            status, out, err, _ = run(cli, wb, args)
            ok = status == 2 and one_line(err) and all(x in err for x in words) and \
                wb.runs() == [] and out == ""
            tap.point(ok, "%s: exit 2 naming it, the tool never ran" % name,
                      (status, err, wb.runs()))

        other = os.path.join(work, "other.bit")
        bit_file(other, part="7a35tcpg236")
        refused("a bitstream for another part", ["flash", other],
                ["7a35tcpg236", "xc7k325tffg676", "other.bit"])
        package = os.path.join(work, "package.bit")
        bit_file(package, part="7k325tffg900")
        refused("the right device in another package", ["flash", package], ["7k325tffg900"])
        truncated = os.path.join(work, "truncated.bit")
        bit_file(truncated, cut=30)
        refused("a truncated header", ["flash", truncated], ["truncated header"])
        short = os.path.join(work, "short.bit")
        head = bit_file(short, length=1000)
        refused("data shorter than the header says", ["flash", short],
                ["truncated", "1000 bytes", "holds %d" % (68)])
        text = os.path.join(work, "notes.bit")
        with open(text, "w") as f:
            f.write("this is not a bitstream\n")
        refused("not a .bit file", ["flash", text], ["not a Xilinx .bit file"])
        refused("a missing file", ["flash", os.path.join(work, "nope.bit")],
                ["nope.bit", "No such file"])
        refused("a directory", ["flash", work], ["not a regular file"])
        # Usage errors.
        refused("no file", ["flash"], ["no bitstream given"])
        refused("unknown keyword", ["flash", good, "speed", "1"], ["unknown keyword 'speed'"])
        refused("cable without a name", ["flash", good, "cable"], ["cable needs a value"])
        refused("cable twice", ["flash", good, "cable", "a", "cable", "b"],
                ["cable given twice"])
        refused("cable name like an option", ["flash", good, "cable", "-x"], ["cable '-x'"])
        refused("flash twice", ["flash", good, "flash", "flash"], ["flash given twice"])
        refused("board-timeout 0", ["flash", good, "board-timeout", "0s"],
                ["board-timeout '0s'"])
        refused("board-timeout without a unit", ["flash", good, "board-timeout", "10"],
                ["board-timeout '10'", "unit"])
        refused("board-timeout above 600 s", ["flash", good, "board-timeout", "601s"],
                ["above 600 s"])
        refused("-j after the object", ["flash", good, "-j"], ["goes before the object"])

        # Help.
        w = world("help")
        status, out, err, _ = run(cli, w, ["flash", "--help"])
        tap.point(status == 0 and "FILE.bit [cable NAME] [board-timeout DURATION]" in
                  out and "PKTSTATS_SYSFS_ROOT" in out and w.runs() == [],
                  "flash --help: the synopsis and the seams", out)
        status, out, err, _ = run(cli, w, ["--help"])
        tap.point(status == 0 and "\n  flash " in out, "pktstats --help lists flash", out)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
