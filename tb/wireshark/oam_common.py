# SPDX-License-Identifier: BSD-3-Clause
"""What tb/wireshark/test_headroom_dissector.py and tb/wireshark/test_cfm_dm.py share: pcap
writing, tshark runs (unprivileged when the test runs as root, as test_dissector.py does), the
flattening of tshark's JSON into {field: [values]}, and the C decoder's view of a capture
(`pktstats -j oam decode FILE`), with the check whether that command exists yet.

The frames themselves are built by each test with struct, byte for byte from docs/oam.md, and
by no project code. Python 3 standard library only.
"""

import calendar
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import oam_frames  # noqa: E402

TSHARK_TIMEOUT = 120


def mac(text):
    return bytes(int(part, 16) for part in text.split(":"))


def write_pcap(path, frames):
    """A classic pcap of the frames (tb/common/oam_frames.py), readable by user nobody."""
    oam_frames.write_pcap(path, frames)
    os.chmod(path, 0o644)


def unprivileged(command):
    """tshark warns when run as root; as root, run it as nobody (Wireshark's own advice)."""
    if os.geteuid() == 0 and shutil.which("setpriv"):
        return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
    return command


def run_tshark(args, work):
    """tshark [-n] ARGS in `work` with HOME=work (no personal profile). (stdout, status, stderr),
    stderr without the root warning (the one line allowed when setpriv is missing)."""
    env = dict(os.environ, HOME=work)
    args = list(args)
    if args[:1] != ["-G"]:  # -G must come first
        args = ["-n"] + args
    proc = subprocess.run(unprivileged(["tshark"] + args), capture_output=True,
                          text=True, env=env, cwd=work, timeout=TSHARK_TIMEOUT)
    stderr = "".join(line for line in proc.stderr.splitlines(True)
                     if not line.startswith('Running as user "root"'))
    return proc.stdout, proc.returncode, stderr


def flatten(tree, out=None):
    """{field: [values]} of one packet's tshark JSON layers: every leaf, in order; a subtree
    (FT_NONE items, protocols) counts as a field whose value is "". Keys ending in "_tree" (the
    subtree of an item that has a value) are walked but not counted."""
    if out is None:
        out = {}
    for key, value in tree.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, dict):
                if not key.endswith("_tree"):
                    out.setdefault(key, []).append("")
                flatten(item, out)
            else:
                out.setdefault(key, []).append(item)
    return out


def tshark_json(pcap, work, extra=()):
    """[{field: [values]}] per frame from `tshark -T json`, the exit status and stderr."""
    stdout, status, stderr = run_tshark(["-r", pcap, "-T", "json", "--no-duplicate-keys"] +
                                        list(extra), work)
    packets = json.loads(stdout) if stdout.strip() else []
    return [flatten(p["_source"]["layers"]) for p in packets], status, stderr


MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
ABSOLUTE = re.compile(r"^(\w{3}) +(\d+), (\d+) (\d\d):(\d\d):(\d\d)\.(\d{9}) UTC$")


def absolute_time(text):
    """(seconds since 1970, nanoseconds) of an FT_ABSOLUTE_TIME field in UTC as tshark prints
    it ("Feb  7, 2106 06:28:15.999999999 UTC"), or the text itself if it is not one."""
    m = ABSOLUTE.match(text)
    if not m or m.group(1) not in MONTHS:
        return text
    seconds = calendar.timegm((int(m.group(3)), MONTHS.index(m.group(1)) + 1, int(m.group(2)),
                               int(m.group(4)), int(m.group(5)), int(m.group(6))))
    return (seconds, int(m.group(7)))


# ---------------------------------------------------------------------------------------------
# The C decoder: `pktstats -j oam decode FILE` (sw/tools/pktstats, docs/oam.md)

def oam_decode(cli, pcap):
    """The parsed JSON of `pktstats -j oam decode FILE`, or raises with its stderr."""
    proc = subprocess.run([cli, "-j", "oam", "decode", pcap], capture_output=True, text=True,
                          timeout=TSHARK_TIMEOUT)
    if proc.returncode != 0:
        raise RuntimeError("pktstats -j oam decode exited %d: %s" % (proc.returncode,
                                                                     proc.stderr.strip()))
    return json.loads(proc.stdout)


def oam_decode_point(tap, cli, pcap):
    """Runs `pktstats -j oam decode PCAP` as a test point: its JSON object, or None after a
    failed point."""
    try:
        result = oam_decode(cli, pcap)
    except (RuntimeError, ValueError) as e:
        tap.point(False, "pktstats -j oam decode runs and prints one JSON object", e)
        return None
    ok = isinstance(result, dict) and isinstance(result.get("frames"), list)
    tap.point(ok, "pktstats -j oam decode runs and prints one JSON object", str(result)[:300])
    return result if ok else None


def error_name(name):
    """A verdict name in one spelling: lower case, words joined by "_", no enum prefix
    (PKTSTATS_OAM_BAD_TYPE, "bad-type" and "bad_type" are the same)."""
    if name is None:
        return None
    name = re.sub(r"[\s-]+", "_", str(name).strip().lower())
    return re.sub(r"^pktstats_oam_", "", name)


def stamp_of(obj):
    """(seconds, nanoseconds) of a {"seconds": .., "nanoseconds": ..} object, or None."""
    if not isinstance(obj, dict):
        return None
    return (obj.get("seconds"), obj.get("nanoseconds"))

