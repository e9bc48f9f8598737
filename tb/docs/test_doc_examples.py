#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every example in the README, docs/*.md and the man pages (docs/*.8) runs as written.

    tb/docs/test_doc_examples.py BUILD [--only FILE[:LINE]] [--timeout SECONDS] [--list]

BUILD is a build directory holding bin/pktstats, bin/pktstats-sim, bin/pktstats-exporter and
lib/libpktstats.a (what `make test` builds). The test extracts every fenced code block of the
markdown files and every .EX/.EE example of the man pages, in order, and prints one TAP point
per block, named FILE:LINE (the line of the opening fence or of .EX).

What happens to a block is decided by its language and by marker comments on the lines right
before it (`<!-- example: ... -->` in markdown, `.\\" example: ...` before .EX in the man page):

    ```sh (bash, shell), a man page example   run with bash (below)
    <!-- example: not run: REASON -->         not run: reported as skipped with REASON
    <!-- example: file NAME -->               saved as NAME in the directory where the later
                                              blocks of the same file run (C or Python code
                                              that a following sh block builds or runs)
    <!-- example: output -->                  what the previous run block of the same file
                                              prints (standard output and error together):
                                              each of its lines must appear there, in order
    <!-- example: needs tap -->               run only where TAP interfaces can be made (root,
                                              /dev/net/tun, CAP_NET_ADMIN); skipped otherwise
    <!-- example: needs nobody -->            run only where user nobody can read the files
                                              (root, setpriv, the repository and the build
                                              directory readable); skipped otherwise

Any other block (no language, text, C, Python...) without a marker fails its point, so that
nothing is left out silently.

Running a block: bash, from a scratch directory that stands in for the repository root (every
top-level entry of the repository is a symbolic link there, `build/bin` and `build/lib` lead to
BUILD's, `build/demo` to a run of scripts/demo.sh made before the first block that uses it), so
that `build/bin/pktstats ...`, `sw/...` and files the examples write (`events.csv`) work as
pasted without touching the repository. PATH starts with BUILD/bin, for examples that use
`pktstats` as installed. The blocks of one file share that directory, in order. A block fails
when a command fails: a simple command or a pipeline whose last command fails, or an earlier
command of a pipeline that fails other than by SIGPIPE (`pktstats decode ... | head` is fine;
tcpdump catches SIGPIPE and fails, so examples use its -c); like `set -e -o pipefail`, with the
SIGPIPE of a reader that stopped early allowed. Each block runs in
a process group of its own with a time limit; anything still running in that group after the
block ends (a simulator left in the background) fails the point and is killed. As root, with
`unshare`, each block gets a private, empty /tmp (a mount namespace), so stale /tmp/sim.sock
files and the like of an earlier block or of the user never reach it; otherwise sockets named
in the block that nobody listens on are removed first. Python 3 standard library only.
"""

import argparse
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
from tap_output import Tap  # noqa: E402

RUN_LANGUAGES = {"sh", "bash", "shell"}
MARKER_MD = re.compile(r"^\s*<!--\s*example:\s*(.*?)\s*-->\s*$")
MARKER_ROFF = re.compile(r'^\.\\"\s*example:\s*(.*?)\s*$')
FENCE = re.compile(r"^ {0,3}(```+)\s*([\w+-]*)\s*$")

# Before each block: strict like `set -e -o pipefail`, except that a command of a pipeline
# killed by SIGPIPE (status 141) is fine when the pipeline's last command succeeded. The ERR
# trap fires exactly where `set -e` would stop. One line, so that $LINENO - 1 is the line in
# the block.
PRELUDE = (
    "set -o pipefail -E; "
    "__example_err() { local last=${!#} i rc=0; "
    "for i in \"$@\"; do [ \"$i\" = 0 ] || [ \"$i\" = 141 ] || rc=$i; done; "
    "[ \"$last\" = 0 ] || rc=$last; "
    "[ \"$rc\" = 0 ] || { echo \"example: line $((__line - 1)) of the block: '$__cmd' "
    "exited with status $rc\" >&2; exit \"$rc\"; }; }; "
    "trap '__s=(\"${PIPESTATUS[@]}\"); __line=$LINENO; __cmd=$BASH_COMMAND; "
    "__example_err \"${__s[@]}\"' ERR\n"
)


class Block:
    def __init__(self, path, line, language, text, markers):
        self.path = path            # relative to ROOT
        self.line = line            # 1-based line of the fence or .EX
        self.language = language    # "sh" for man page examples
        self.text = text
        self.markers = markers      # marker texts, in order

    @property
    def name(self):
        return "%s:%d" % (self.path, self.line)


def markdown_blocks(path):
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, language = m.group(1), m.group(2).lower()
        start = i
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^ {0,3}" + fence + r"\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        i += 1
        markers = []
        j = start - 1
        while j >= 0 and lines[j].strip() == "":
            j -= 1
        while j >= 0 and MARKER_MD.match(lines[j]):
            markers.insert(0, MARKER_MD.match(lines[j]).group(1))
            j -= 1
        blocks.append(Block(path, start + 1, language, "\n".join(body) + "\n", markers))
    return blocks


def roff_text(line):
    """The text of one line of a man page example, as a reader sees it."""
    line = re.sub(r"\\f[BIRP]|\\f\(..|\\&|\\%", "", line)
    line = line.replace("\\(em", "\u2014").replace("\\(mu", "\u00d7").replace("\\~", " ")
    line = line.replace("\\-", "-").replace("\\e", "\\")
    return line


def roff_blocks(path):
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != ".EX":
            continue
        body = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != ".EE":
            body.append(roff_text(lines[j]))
            j += 1
        markers = []
        k = i - 1
        while k >= 0 and MARKER_ROFF.match(lines[k]):
            markers.insert(0, MARKER_ROFF.match(lines[k]).group(1))
            k -= 1
        blocks.append(Block(path, i + 1, "sh", "\n".join(body) + "\n", markers))
    return blocks


def doc_files():
    files = ["README.md"]
    files += sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    files += sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.8")))
    return files


def classify(block):
    """(action, argument): ("run", None), ("skip", reason), ("file", name), ("output", None),
    ("fail", why)."""
    needs = None
    for marker in block.markers:
        m = re.match(r"not run:\s*(.+)$", marker)
        if m:
            return "skip", "not run: " + m.group(1)
        m = re.match(r"file\s+([\w.+-]+)$", marker)
        if m:
            return "file", m.group(1)
        if marker == "output":
            return "output", None
        m = re.match(r"needs\s+(\w+)$", marker)
        if m:
            needs = m.group(1)
            continue
        return "fail", ("unknown marker %r (not run: REASON, file NAME, output, needs tap, "
                        "needs nobody)" % marker)
    if block.language in RUN_LANGUAGES:
        return "run", needs
    return "fail", ("a %s block with no marker: label it ```sh to run it, or mark it "
                    "<!-- example: not run: REASON -->, file NAME or output"
                    % (block.language or "plain"))


# ---------------------------------------------------------------------------------------------
# The environment the blocks run in


def can_make_taps():
    if os.geteuid() != 0:
        return "not root"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun"
    name = "pstdoc%d" % (os.getpid() % 100000)
    r = subprocess.run(["ip", "tuntap", "add", "mode", "tap", "name", name],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return "cannot create a TAP interface: " + r.stdout.strip()
    subprocess.run(["ip", "link", "del", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return None


def nobody_can_read(paths):
    """Why user nobody cannot read the paths (root, setpriv), or None."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return "not root or no setpriv"
    for path in paths:
        r = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                            "test", "-r", path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if r.returncode != 0:
            return "user nobody cannot read %s" % path
    return None


def private_tmp_command(work):
    """The command prefix that gives a block a private, empty /tmp, or None."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return None
    if os.path.realpath(work).startswith("/tmp/"):
        return None
    prefix = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
              'mount -t tmpfs -o mode=1777 pktstats-doc-tmp /tmp && exec "$@"', "sh"]
    r = subprocess.run(prefix + ["true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return prefix if r.returncode == 0 else None


def remove_stale_sockets(text):
    """Sockets the block names under /tmp that nobody listens on (without a private /tmp)."""
    for path in set(re.findall(r"/tmp/[\w./-]+\.sock\b", text)):
        if not os.path.exists(path):
            continue
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except ConnectionRefusedError:
            os.unlink(path)
        except OSError:
            pass
        finally:
            s.close()


def group_members(pgid):
    """Live (not zombie) processes of a process group."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open("/proc/%s/stat" % entry).read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            try:
                cmdline = open("/proc/%s/cmdline" % entry, "rb").read().replace(b"\0", b" ")
            except OSError:
                cmdline = b""
            members.append("%s %s" % (entry, cmdline.decode(errors="replace").strip()))
    return members


def run_script(command, cwd, env, timeout, log):
    """Runs a command in a process group of its own, its output into the file log. Returns
    (status, or None when it did not end in time; the output; processes of its group left
    running when it ended, which are then killed)."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        status = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        status = None
    left = group_members(proc.pid)
    # SIGTERM first: a simulator removes its TAP interfaces and socket when it ends cleanly
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if not group_members(proc.pid):
            break
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + grace
        while group_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
    proc.wait()
    with open(log, "rb") as out:
        return status, out.read().decode(errors="replace"), left


class Runner:
    def __init__(self, build, timeout):
        self.build = build
        self.timeout = timeout
        self.work = os.path.join(build, "doc-examples")
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(os.path.join(self.work, "logs"))
        self.private_tmp = private_tmp_command(self.work)
        self.needs = {}             # needs marker -> why it cannot be met, or None
        self.demo = None            # None: not run yet; else (ok, detail)
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.join(build, "bin") + os.pathsep + self.env.get("PATH", "")
        for name in ("PKTSTATS_DEVICE", "PKTSTATS_LUA", "MAKEFLAGS", "MAKELEVEL", "MFLAGS"):
            self.env.pop(name, None)
        self.env["PAGER"] = "cat"

    def need(self, what, cwd):
        """Why a `needs` marker cannot be met here, or None."""
        if what not in self.needs:
            if what == "tap":
                self.needs[what] = can_make_taps()
            elif what == "nobody":
                self.needs[what] = nobody_can_read(
                    [os.path.join(ROOT, "sw", "tools", "wireshark", "pktstats.lua"),
                     os.path.join(cwd, "build", "bin", "pktstats")])
            else:
                self.needs[what] = "unknown need (tap, nobody)"
        return self.needs[what]

    def tree(self, name):
        """A fresh directory standing in for the repository root."""
        top = os.path.join(self.work, name)
        shutil.rmtree(top, ignore_errors=True)
        os.makedirs(os.path.join(top, "build"))
        build_real = os.path.realpath(self.build)
        for entry in sorted(os.listdir(ROOT)):
            real = os.path.realpath(os.path.join(ROOT, entry))
            if entry == "build" or real == build_real or build_real.startswith(real + os.sep):
                continue
            os.symlink(os.path.join(ROOT, entry), os.path.join(top, entry))
        for entry in ("bin", "lib"):
            os.symlink(os.path.join(self.build, entry), os.path.join(top, "build", entry))
        return top

    def ensure_demo(self):
        """scripts/demo.sh into WORK/demo-build/demo, once, for the examples using build/demo/."""
        if self.demo is None:
            top = self.tree("demo-build")
            env = dict(self.env)
            if os.environ.get("DOC_DEMO_DURATION"):  # the demo's own default otherwise
                env["DEMO_DURATION"] = os.environ["DOC_DEMO_DURATION"]
            status, out, left = run_script(["bash", os.path.join(ROOT, "scripts", "demo.sh"),
                                            os.path.join(top, "build")],
                                           ROOT, env, self.timeout * 2,
                                           os.path.join(self.work, "logs", "demo.log"))
            ok = status == 0 and not left and os.path.exists(
                os.path.join(top, "build", "demo", "stats.pcap"))
            why = ("scripts/demo.sh %s: status %s%s" %
                   (os.path.join(top, "build"), status,
                    ", left running: " + "; ".join(left) if left else ""))
            self.demo = (ok, why + "\n" + tail(out))
        return self.demo

    def run_block(self, block, cwd):
        script = os.path.join(self.work, "logs", "%s-%d.sh" % (slug(block.path), block.line))
        with open(script, "w") as f:
            f.write(PRELUDE + block.text)
        if not self.private_tmp:
            remove_stale_sockets(block.text)
        command = (self.private_tmp or []) + ["bash", script]
        start = time.monotonic()
        status, out, left = run_script(command, cwd, self.env, self.timeout, script[:-3] + ".log")
        elapsed = time.monotonic() - start
        problems = []
        if status is None:
            problems.append("did not end within %d s" % self.timeout)
        elif status != 0:
            problems.append("exited with status %d" % status)
        if left:
            problems.append("left running after it ended (killed now): " + "; ".join(left))
        return not problems, out, problems, elapsed


def slug(path):
    return re.sub(r"[^\w]+", "-", path).strip("-")


def tail(text, n=25):
    return "\n".join(text.rstrip("\n").split("\n")[-n:])


NOTABLE = re.compile(r"^example: line|error|fail|cannot|unknown|usage|not found|no such|denied|"
                     r"refused|invalid|unrecognized|timed out", re.IGNORECASE)


def digest(text):
    """What to show of a failed block's output: the lines that look like errors (the failing
    command's line first), then its last lines."""
    lines = text.rstrip("\n").split("\n")
    notable = [l for l in lines if l.startswith("example: line")]
    notable += [l for l in lines if NOTABLE.search(l) and l not in notable][:8]
    return ("--- lines of its output that look like errors:\n" + "\n".join(notable) + "\n"
            if notable else "") + "--- its last lines:\n" + tail(text, 12)


def output_matches(expected, actual):
    """Each non-empty expected line appears as a whole line of actual, in order."""
    lines = [l.rstrip() for l in actual.split("\n")]
    at = 0
    for want in expected.rstrip("\n").split("\n"):
        want = want.rstrip()
        if not want:
            continue
        while at < len(lines) and lines[at] != want:
            at += 1
        if at == len(lines):
            return "line not in the output (in this order): %s" % want
        at += 1
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build", help="build directory with bin/pktstats, bin/pktstats-sim, lib/")
    parser.add_argument("--only", help="FILE or FILE:LINE: only these blocks (the others of the "
                        "file still run before, when they are files)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per block")
    parser.add_argument("--list", action="store_true", help="list the blocks and what they get")
    args = parser.parse_args()

    build = os.path.abspath(args.build)
    blocks = []
    for path in doc_files():
        blocks += roff_blocks(path) if path.endswith(".8") else markdown_blocks(path)

    if args.list:
        for block in blocks:
            action, arg = classify(block)
            print("%-32s %-6s %s" % (block.name, action, arg or ""))
        return 0

    tap = Tap()
    missing = [p for p in ("bin/pktstats", "bin/pktstats-sim", "lib/libpktstats.a")
               if not os.path.exists(os.path.join(build, p))]
    if missing:
        tap.point(False, "build directory", "%s lacks %s (make %s)" % (
            build, ", ".join(missing), " ".join(os.path.join(args.build, p) for p in missing)))
        return tap.done()

    runner = Runner(build, args.timeout)
    tap.comment("%d blocks in %d files; blocks run in %s; /tmp: %s" % (
        len(blocks), len(doc_files()), runner.work,
        "private to each block" if runner.private_tmp else "shared (not root or no unshare)"))

    only_path, only_line = None, None
    if args.only:
        only_path, _, line = args.only.partition(":")
        only_line = int(line) if line else None

    current_path, cwd, last_output = None, None, None
    for block in blocks:
        if block.path != current_path:
            current_path = block.path
            cwd = None
            last_output = None
        if only_path and block.path != only_path:
            continue
        action, arg = classify(block)
        selected = not only_line or block.line == only_line
        if cwd is None:
            cwd = runner.tree(slug(block.path))
        if action == "file":
            with open(os.path.join(cwd, arg), "w") as f:
                f.write(block.text)
            if selected:
                tap.point(True, "%s: saved as %s for the blocks after it" % (block.name, arg))
            continue
        if not selected:
            continue
        if action == "skip":
            tap.point(True, "%s # SKIP %s" % (block.name, arg))
        elif action == "fail":
            tap.point(False, block.name, arg)
        elif action == "output":
            if last_output is None:
                tap.point(False, "%s: output of the block before" % block.name,
                          "no block before it ran in this file")
            elif not last_output[0]:
                tap.point(False, "%s: output of the block before" % block.name,
                          "the block before failed")
            else:
                why = output_matches(block.text, last_output[1])
                tap.point(why is None, "%s: output of the block before" % block.name,
                          (why or "") + "\n--- the output:\n" + tail(last_output[1]))
        else:
            if arg:
                problem = runner.need(arg, cwd)
                if problem:
                    tap.point(True, "%s # SKIP needs %s: %s" % (block.name, arg, problem))
                    last_output = None
                    continue
            if "build/demo/" in block.text:
                demo_ok, demo_detail = runner.ensure_demo()
                if not demo_ok:
                    tap.point(False, block.name, "needs build/demo/ and scripts/demo.sh failed: "
                              + demo_detail)
                    last_output = (False, "")
                    continue
                link = os.path.join(cwd, "build", "demo")
                if not os.path.lexists(link):
                    os.symlink(os.path.join(runner.work, "demo-build", "build", "demo"), link)
            ok, out, problems, elapsed = runner.run_block(block, cwd)
            last_output = (ok, out)
            first = block.text.strip().split("\n")[0]
            tap.point(ok, "%s: %s (%.1f s)" % (block.name, first[:60], elapsed),
                      "; ".join(problems) + "\n--- all its output: %s\n%s" % (
                          os.path.join(runner.work, "logs", "%s-%d.log" % (slug(block.path),
                                                                           block.line)),
                          digest(out)))
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
