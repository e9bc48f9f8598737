#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pktstats isl run`: its bad input, command line and config file (docs/isl.md, docs/cli.md).

    tb/cli/test_cli_isl.py build/asan/bin/pktstats

- every bad invocation: exit 2, nothing on stdout, exactly one line on stderr,
  "pktstats: isl run: ...", naming the bad argument or word; a mistake in the config file is
  reported as "FILE:LINE: ..."; checked before any device is opened (the devices given do not
  exist, so opening one would exit 1 instead);
- a valid command line whose device does not exist: exit 1, one line naming the switch;
- the command line wins over the config file: a keyword the command line gave is skipped in
  the file, even with a value that would be refused; the file's other keywords are read.
No root, no simulator, no network. Prints TAP.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_harness import Tap, run_cli  # noqa: E402

PREFIX = "pktstats: isl run: "
DEV = "sim:/nonexistent/isl.sock"  # never opened by a usage error
SW = DEV + ",1=lo"


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def check_usage(tap, pktstats, name, args, words, file_line=None):
    """args must exit 2 with one line on stderr holding every word of `words` (and, for a
    mistake in a config file, whose message starts with "FILE:LINE: ")."""
    status, out, err = run_cli(pktstats, ["isl", "run"] + args)
    lines = err.splitlines()
    ok = status == 2 and not out and len(lines) == 1 and lines[0].startswith(PREFIX)
    ok = ok and all(word in lines[0] for word in words)
    if file_line is not None:
        ok = ok and lines[0][len(PREFIX):].startswith("%s:%d: " % file_line)
    where = " at %s:%d" % (os.path.basename(file_line[0]), file_line[1]) if file_line else ""
    tap.point(ok, "%s: exit 2, one line naming %s%s" % (name, " and ".join(words), where),
              "args %r\nexit %s\nstdout %r\nstderr %r" % (args, status, out, err))


def check_runtime(tap, pktstats, name, args, words, refused=()):
    """args must get past the parser: exit 1 (the device does not exist), one line naming the
    switch, holding none of `refused`."""
    status, out, err = run_cli(pktstats, ["isl", "run"] + args)
    lines = err.splitlines()
    ok = status == 1 and not out and len(lines) == 1 and lines[0].startswith(PREFIX)
    ok = ok and all(w in lines[0] for w in words) and not any(w in lines[0] for w in refused)
    tap.point(ok, "%s: exit 1, one line naming %s" % (name, " and ".join(words)),
              "args %r\nexit %s\nstdout %r\nstderr %r" % (args, status, out, err))


def main():
    if len(sys.argv) != 2:
        print("usage: %s PKTSTATS" % sys.argv[0], file=sys.stderr)
        return 2
    pktstats = os.path.abspath(sys.argv[1])
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="pktstats-cli-isl.") as work:
        secret = write(work, "secret", "s3cret\n")
        empty = write(work, "empty", "")
        long_secret = write(work, "long", "x" * 257 + "\n")
        nul_secret = write(work, "nul", "ab\0cdef\n")    # was the key "ab", silently
        missing = os.path.join(work, "no-such-file")
        S = ["switch", SW, "secret-file", secret]

        status, out, err = run_cli(pktstats, ["isl", "run", "--help"])
        tap.point(status == 0 and out.startswith("usage: pktstats [OPTIONS] isl run ") and
                  not err, "isl run --help: exit 0, the usage on stdout", out + err)

        # --- the command line
        cases = [
            ("no arguments", [], ["needs at least one switch"]),
            ("unknown keyword", ["frobnicate", "1"] + S, ["'frobnicate'"]),
            ("a keyword without its value", S + ["rounds"], ["'rounds' needs a value"]),
            ("switch without a port", ["switch", DEV, "secret-file", secret],
             ["'%s'" % DEV, "no port"]),
            ("port 4", ["switch", DEV + ",4=lo", "secret-file", secret], ["'4'"]),
            ("port given twice in one switch",
             ["switch", DEV + ",1=lo,1=eth0", "secret-file", secret],
             ["'%s,1=lo,1=eth0'" % DEV, "port given twice"]),
            ("a bad dpid", ["switch", SW + ",dpid=xyz", "secret-file", secret], ["dpid 'xyz'"]),
            ("a dpid of 9 bytes",
             ["switch", SW + ",dpid=00:00:02:00:00:00:00:01:05", "secret-file", secret],
             ["dpid '00:00:02:00:00:00:00:01:05'"]),
            ("a bad ip", ["switch", SW + ",ip=10.0.0", "secret-file", secret], ["ip '10.0.0'"]),
            ("a name with '/'", ["switch", SW + ",name=a/b", "secret-file", secret],
             ["name 'a/b'"]),
            ("an unknown key in a switch spec",
             ["switch", SW + ",colour=red", "secret-file", secret], ["'colour'"]),
            ("two switches with the same name",
             ["switch", SW + ",name=edge", "switch", DEV + "2,0=lo,name=edge",
              "secret-file", secret], ["name 'edge'"]),
            ("no secret-file", ["switch", SW], ["secret-file"]),
            ("secret-file that does not exist", ["switch", SW, "secret-file", missing],
             ["secret-file '%s'" % missing]),
            ("secret-file that is empty", ["switch", SW, "secret-file", empty],
             ["secret-file '%s'" % empty]),
            ("secret-file of 257 bytes", ["switch", SW, "secret-file", long_secret],
             ["secret-file '%s'" % long_secret]),
            ("secret-file with a NUL byte", ["switch", SW, "secret-file", nul_secret],
             ["secret-file '%s'" % nul_secret, "NUL byte"]),
            ("interval 0", S + ["interval", "0"], ["interval '0'"]),
            ("interval 0s", S + ["interval", "0s"], ["interval '0s'"]),
            ("interval abc", S + ["interval", "abc"], ["interval 'abc'"]),
            ("rounds 0", S + ["rounds", "0"], ["rounds '0'"]),
            ("tsdb ftp://x", S + ["tsdb", "ftp://x"], ["tsdb 'ftp://x'"]),
            ("a keyword given twice", S + ["interval", "1s", "interval", "2s"],
             ["'interval' given twice"]),
            ("config file that does not exist", S + ["config", missing],
             ["config '%s'" % missing]),
        ]
        for name, args, words in cases:
            check_usage(tap, pktstats, name, args, words)

        # --- the config file
        files = [
            ("config: unknown keyword", "# a comment\n\nfrobnicate 1\n", 3, ["'frobnicate'"]),
            ("config: a line with two values", "interval 1s 2s\n", 1, ["'2s'"]),
            ("config: names another config", "config %s\n" % secret, 1,
             ["cannot name another"]),
            ("config: a keyword given twice", "interval 1s\nrounds 2\ninterval 2s\n", 3,
             ["'interval' given twice"]),
            ("config: a bad value", "rounds 3\ninterval abc\n", 2, ["interval 'abc'"]),
            ("config: a keyword without its value", "interval\n", 1,
             ["'interval' needs a value"]),
            ("config: a bad switch", "switch %s,7=lo\n" % DEV, 1, ["'7'"]),
            ("config: a line longer than 510 characters", "rounds 2\n# " + "x" * 509 + "\n", 2,
             ["longer than 510"]),
            # a NUL ended the line for strlen: its length and the text after it went unseen
            ("config: a NUL byte in a line", "rounds 2\ninterval 1s\0" + "x" * 600 + "\n", 2,
             ["NUL byte"]),
        ]
        for i, (name, text, line, words) in enumerate(files):
            path = write(work, "config%d" % i, text)
            check_usage(tap, pktstats, name, S + ["config", path], words, (path, line))

        # --- past the parser: the device does not exist (the simulator's open waits 3 s)
        check_runtime(tap, pktstats, "a device that does not exist",
                      ["switch", "sim:/nonexistent.sock,1=lo,name=edge1", "secret-file", secret],
                      ["switch edge1", "sim:/nonexistent.sock"])
        # the command line wins: the file's interval (refused on its own, above) is skipped
        bad_interval = write(work, "bad-interval", "interval abc\n")
        check_runtime(tap, pktstats, "interval on the command line, 'interval abc' in the file",
                      S[:1] + ["sim:/nonexistent.sock,1=lo"] + S[2:] +
                      ["interval", "1s", "config", bad_interval],
                      ["switch s0"], refused=["abc"])
        check_usage(tap, pktstats, "the same file without interval on the command line",
                    S + ["config", bad_interval], ["interval 'abc'"], (bad_interval, 1))
        # ...also for the secret: the file's secret-file, which does not exist, is not read
        file_secret = write(work, "file-secret", "secret-file %s\n" % missing)
        check_runtime(tap, pktstats, "secret-file on the command line and a missing one in the "
                      "file", ["switch", "sim:/nonexistent.sock,1=lo", "secret-file", secret,
                               "config", file_secret], ["switch s0"], refused=[missing])
        # the file's keywords are read when the command line does not give them
        whole = write(work, "whole", "switch sim:/nonexistent.sock,1=lo,name=core\n"
                      "secret-file %s\ninterval 10ms  # comment\n" % secret)
        check_runtime(tap, pktstats, "switch and secret-file from the file only",
                      ["config", whole], ["switch core"])
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
