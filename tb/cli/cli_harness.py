# SPDX-License-Identifier: BSD-3-Clause
"""Shared pieces of the CLI tests (tb/cli/test_cli_*.py): TAP output, a pktstats-sim in a
temporary directory, running the pktstats CLI with a time limit, and a register snapshot read
straight from the simulator's socket (only to compare before and after: the tests operate the
device through the CLI alone)."""

import os
import re
import signal
import socket
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def point(self, ok, name, detail=""):
        self.n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, name), flush=True)
        if not ok:
            self.failed += 1
            for line in str(detail).splitlines()[:30]:
                print("# " + line, flush=True)
        return ok

    def comment(self, text):
        for line in str(text).splitlines():
            print("# " + line, flush=True)

    def done(self):
        print("1..%d" % self.n, flush=True)
        return 1 if self.failed else 0


def register_table():
    """[(name, address, width, access)] from the generated C table and header."""
    addresses = {}
    with open(os.path.join(ROOT, "sw/driver/include/pktstats/regs.h")) as header:
        for line in header:
            m = re.match(r"#define (PKTSTATS_\w+)\s+0x([0-9a-fA-F]+)u\b", line)
            if m:
                addresses[m.group(1)] = int(m.group(2), 16)
    table = []
    with open(os.path.join(ROOT, "sw/driver/src/regs_table.c")) as source:
        for m in re.finditer(r'\{"([\w.]+)", (PKTSTATS_\w+), (\d+), "(\w+)"', source.read()):
            table.append((m.group(1), addresses[m.group(2)], int(m.group(3)), m.group(4)))
    return table


class Simulator:
    """pktstats-sim serving its registers on a socket in `work`, with extra arguments."""

    def __init__(self, binary, work, args=(), name="sim"):
        self.work = work
        self.socket_path = os.path.join(work, name + ".sock")
        self.device = "sim:" + self.socket_path
        self.stdout = open(os.path.join(work, name + ".out"), "w")
        self.stderr = open(os.path.join(work, name + ".err"), "w")
        self.process = subprocess.Popen([binary, "--socket", self.socket_path] + list(args),
                                        stdout=self.stdout, stderr=self.stderr)
        self.sock = None
        for _ in range(400):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.socket_path)
                self.sock = sock
                break
            except OSError:
                sock.close()
                if self.process.poll() is not None:
                    raise RuntimeError("pktstats-sim exited: " + self.log())
                time.sleep(0.025)
        if self.sock is None:
            self.kill()
            raise RuntimeError("cannot connect to " + self.socket_path)
        self.sock.settimeout(30)
        self.file = self.sock.makefile("rw", newline="\n")

    def log(self):
        self.stderr.flush()
        with open(self.stderr.name) as f:
            return f.read()

    def request(self, line):
        """One protocol request on the test's own connection: `start` (the simulator's run
        control) and the register snapshot for comparisons."""
        self.file.write(line + "\n")
        self.file.flush()
        reply = self.file.readline().rstrip("\n")
        if not reply.startswith("ok"):
            raise RuntimeError("%r: %r" % (line, reply))
        return reply.split()[1:]

    def read(self, address):
        return int(self.request("read 0x%x" % address)[0], 16)

    def snapshot(self, accesses=("rw",)):
        """{name: value} of every register with one of the given accesses."""
        values = {}
        for name, address, width, access in register_table():
            if access not in accesses:
                continue
            value = self.read(address)
            if width > 32:
                value |= self.read(address + 4) << 32  # the low word's read latched it
            values[name] = value
        return values

    def stop(self):
        """SIGINT: the simulator closes its pcaps and exits."""
        if self.sock:
            self.sock.close()
            self.sock = None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=120)
        self.stdout.close()
        self.stderr.close()
        return self.process.returncode

    def kill(self):
        if self.sock:
            self.sock.close()
            self.sock = None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait()
        self.stdout.close()
        self.stderr.close()


def run_cli(pktstats, args, device=None, env_device=None, timeout=30):
    """Runs pktstats with args (a list). device: given with -d; env_device: $PKTSTATS_DEVICE
    (neither: no device at all). Returns (status, stdout, stderr); status None on timeout."""
    env = dict(os.environ)
    env.pop("PKTSTATS_DEVICE", None)
    if env_device is not None:
        env["PKTSTATS_DEVICE"] = env_device
    command = [pktstats] + (["-d", device] if device is not None else []) + list(args)
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, errors="replace", env=env, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        return None, expired.stdout or "", expired.stderr or ""
    return proc.returncode, proc.stdout, proc.stderr
