# SPDX-License-Identifier: BSD-3-Clause
"""TAP output for the Python tests (what scripts/run_tests.py counts): numbered points, their
details as comments when they fail, the plan at the end. Python 3 standard library only."""

import sys


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def point(self, ok, name, detail=""):
        """One test point; returns ok, so that a caller can add to a failure."""
        self.n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, name))
        if not ok:
            self.failed += 1
            for line in str(detail).splitlines()[:30]:
                print("# " + line)
        sys.stdout.flush()
        return ok

    def comment(self, text):
        for line in str(text).splitlines():
            print("# " + line)
        sys.stdout.flush()

    def done(self):
        """The plan; the exit status: 1 when a point failed."""
        print("1..%d" % self.n, flush=True)
        return 1 if self.failed else 0
