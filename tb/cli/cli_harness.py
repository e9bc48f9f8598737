# SPDX-License-Identifier: BSD-3-Clause
"""Shared pieces of the CLI tests (tb/cli/test_cli_*.py): TAP output, a pktstats-sim in a
temporary directory, running the pktstats CLI with a time limit, and a register snapshot read
straight from the simulator's socket (only to compare before and after: the tests operate the
device through the CLI alone)."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tb", "common"))
import pktstats_sim  # noqa: E402
from tap_output import Tap  # noqa: E402


# One entry of the generated register table: name, address, width, access, description (a C
# string literal, escapes and all), board_only.
TABLE_ENTRY = re.compile(r'\{"([\w.]+)", PKTSTATS_(\w+), (\d+), "(\w+)",'
                         r'\s*"(?:[^"\\]|\\.)*", ([01])\}')


def register_table(simulated_only=False):
    """[(name, address, width, access)] from the generated C table and header. simulated_only:
    without the registers the table marks board_only (the NetFPGA-1G-CML board top's own
    blocks, regmap/pktstats.toml), which pktstats-sim answers with DECERR."""
    addresses = pktstats_sim.registers()
    table = []
    with open(os.path.join(ROOT, "sw/driver/src/regs_table.c")) as source:
        for m in TABLE_ENTRY.finditer(source.read()):
            if simulated_only and m.group(5) == "1":
                continue
            table.append((m.group(1), addresses[m.group(2)], int(m.group(3)), m.group(4)))
    return table


class Simulator(pktstats_sim.Simulator):
    """pktstats-sim serving its registers on a socket in `work`, with extra arguments. The
    test's own connection is for `start` (the simulator's run control) and the register
    snapshot for comparisons."""

    def __init__(self, binary, work, args=(), name="sim"):
        super().__init__(binary, work, args, name=name, timeout=30)
        self.device = "sim:" + self.socket_path

    def snapshot(self, accesses=("rw",)):
        """{name: value} of every register of the simulated design with one of the given
        accesses (the board top's own blocks, board_only in the table, are not in
        pktstats-sim)."""
        values = {}
        for name, address, width, access in register_table(simulated_only=True):
            if access not in accesses:
                continue
            value = self.read(address)
            if width > 32:
                value |= self.read(address + 4) << 32  # the low word's read latched it
            values[name] = value
        return values


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
