"""`make run`'s last step: the web server and the scheduler (qcluster) as one unit that
stops as one.

A shell line (`qcluster & runserver`) cannot do this: make hands SIGTERM to the shell
only, and a shell defers its trap until the foreground runserver exits, so a TERM to
`make run` stopped nothing; a TERM to the whole process group reached the qcluster's
master, its sentinel and its workers at once, and the master then hung on the database
for good. Here each child gets its own process group, so a Ctrl-C in the terminal or a
TERM reaches this process alone; it stops the server, asks the qcluster master to stop
(its sentinel then stops the workers in order), and kills whatever of either group is
still there after a grace period. A second signal skips the grace period."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from lingix_site.addresses import host_port

REPO_ROOT = Path(__file__).resolve().parent.parent
# django-q2 lets a running task finish before its worker exits; past this, it is killed.
GRACE_SECONDS = 20.0
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Unit:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.signals = 0

    def start(self) -> None:
        manage = [sys.executable, str(REPO_ROOT / "manage.py")]
        self.children["scheduler"] = subprocess.Popen([*manage, "qcluster"], cwd=REPO_ROOT, start_new_session=True)
        self.children["server"] = subprocess.Popen(
            [*manage, "runserver", host_port(self.host, self.port), "--noreload"], cwd=REPO_ROOT, start_new_session=True
        )

    def on_signal(self, signum: int, frame: object) -> None:
        self.signals += 1

    def first_exit(self) -> tuple[str, int] | None:
        for name, child in self.children.items():
            if child.poll() is not None:
                return name, child.returncode
        return None

    def stop(self) -> None:
        for child in self.children.values():
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + GRACE_SECONDS
        while time.monotonic() < deadline and self.signals < 2 and any(c.poll() is None for c in self.children.values()):
            time.sleep(0.1)
        for child in self.children.values():
            # The group, not only the leader: a worker outliving its master would keep
            # taking tasks from the database.
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            child.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lingix_site.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    unit = Unit(args.host, args.port)
    for signum in _STOP_SIGNALS:
        signal.signal(signum, unit.on_signal)
    unit.start()
    exited = None
    while not unit.signals and exited is None:
        time.sleep(0.2)
        exited = unit.first_exit()
    if exited is None:
        sys.stderr.write("lingix: stopping the server and the scheduler\n")
    unit.stop()
    if exited is not None:
        name, code = exited
        sys.stderr.write(f"lingix: the {name} exited with code {code}; stopped the rest\n")
        return code or 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
