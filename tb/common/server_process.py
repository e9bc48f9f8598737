# SPDX-License-Identifier: BSD-3-Clause
"""A server binary the tests run on the loopback: the process handling shared by
tb/common/prometheus.py and tb/common/victoria.py. Python 3 standard library only.

    class Server(ServerProcess):
        NAME, PORTS = "server", 1          # in messages; free loopback ports it takes
        def _use_ports(self): self.port, = self.ports; self.http_url = ...
        def _command(self): return [self.binary, "--listen=127.0.0.1:%d" % self.port, ...]
        def _ready(self): return ...       # True once it serves

    with Server(work_dir, binary, "server.log") as s:   # started; stopped at the end
        s.running(), s.log(), s.stop(), s.start()

start() picks PORTS free loopback ports at the first start and keeps them for every later start
(a client configured with them reconnects after a restart). A server that exits at once at its
first start is started again on fresh ports (3 tries in all) unless _port_taken() says that was
not the reason; at a later start it is not tried again. Each start appends "--- COMMAND" and
then the server's stdout and stderr to WORK_DIR/LOG_NAME (log()). stop() sends SIGTERM, waits,
then SIGKILL. Every instance still running is stopped at interpreter exit, the last started
first (a Prometheus before the VictoriaMetrics it writes to).
"""

import atexit
import itertools
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import weakref

_running = weakref.WeakValueDictionary()   # launch number: server, while running
_launches = itertools.count()


def _stop_all():
    for n in sorted(_running.keys(), reverse=True):
        server = _running.get(n)
        if server is not None:
            server.stop()


atexit.register(_stop_all)


def _free_ports(n):
    """n distinct free TCP ports on 127.0.0.1 (all held open while picking)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class ServerProcess:
    NAME = "server"   # the binary's name in messages
    PORTS = 1         # free loopback ports it takes (self.ports)

    def __init__(self, work_dir, binary, log_name):
        self.work_dir = os.path.abspath(work_dir)
        self.binary = binary
        self.log_path = os.path.join(self.work_dir, log_name)
        self.ports = None
        self.proc = None
        self._log_file = None
        self._launch_number = None

    # --- what a server gives

    def _use_ports(self):
        """Set the attributes that derive from self.ports (port numbers, URLs)."""
        raise NotImplementedError

    def _command(self):
        raise NotImplementedError

    def _ready(self):
        """True once the server serves (polled every 50 ms while it starts)."""
        raise NotImplementedError

    def _prepare(self):
        """Before every start (directories, configuration files)."""

    def _port_taken(self):
        """After an exit at start: whether a port may have been taken meanwhile (then fresh
        ones are tried)."""
        return True

    # --- running it

    def _answers(self, path):
        """Whether GET http_url + path (the subclass's http_url) answers 200 within 1 s."""
        try:
            with urllib.request.urlopen(self.http_url + path, timeout=1) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def _where(self):
        return "on port%s %s" % ("s" if len(self.ports) > 1 else "",
                                 " and ".join(str(p) for p in self.ports))

    def _forget(self):
        """Out of the registry stopped at interpreter exit."""
        if self._launch_number is not None:
            _running.pop(self._launch_number, None)
            self._launch_number = None

    def _launch(self, timeout):
        self._log_file = open(self.log_path, "ab")
        self._log_file.write(("--- %s\n" % " ".join(self._command())).encode())
        self._log_file.flush()
        self.proc = subprocess.Popen(self._command(), stdin=subprocess.DEVNULL,
                                     stdout=self._log_file, stderr=subprocess.STDOUT,
                                     cwd=self.work_dir)
        self._forget()
        self._launch_number = next(_launches)
        _running[self._launch_number] = self
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            if self._ready():
                return True
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("%s not ready within %g s %s\n%s"
                           % (self.NAME, timeout, self._where(), self.log()[-3000:]))

    def start(self, timeout=20):
        """Start the server on its ports (picked at the first start, kept after); wait until
        _ready(). RuntimeError with the log's end if it exits at once or is not ready in time."""
        if self.running():
            return self
        self._prepare()
        fresh = self.ports is None
        for _ in range(3 if fresh else 1):
            if fresh:
                self.ports = _free_ports(self.PORTS)
            self._use_ports()
            if self._launch(timeout):
                return self
            self.stop()   # died at once: a port taken in the meantime? fresh ones once more
            if not self._port_taken():
                break
        raise RuntimeError("%s exited at start %s\n%s"
                           % (self.NAME, self._where(), self.log()[-3000:]))

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=15):
        """SIGTERM, wait up to timeout, then SIGKILL. Ports and data directory are kept."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        self._forget()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def log(self):
        """The server's log so far (all starts), for failure messages."""
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""
