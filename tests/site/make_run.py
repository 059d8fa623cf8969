"""`make run` as a newcomer runs it, in a subprocess: the real Makefile target (migrate,
the settings file, `memory bootstrap`, then lingix_site/run.py with runserver and
qcluster) on a free port of 127.0.0.1, with a throwaway SQLite file and settings file
instead of the repository's. Every process it starts carries a marker in its
environment, so a test can find all of them (qcluster workers included) and, at the
end, nothing of another run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from bench._common import free_port
from tests.plugin.server import wait_http
from tests.subprocess_env import isolated_env

REPO = Path(__file__).resolve().parents[2]
MARKER = "LINGIX_TEST_MAKE_RUN"
BANNER_START = "Lingix Memory is starting."


def marked_processes(mark: str) -> dict[int, str]:
    """pid -> command line of every live process whose environment carries `mark`."""
    found: dict[int, str] = {}
    needle = f"{MARKER}={mark}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":  # a zombie has ended; only its parent's wait is missing
                    found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return found


@dataclass
class MakeRun:
    workdir: Path
    port: int = 0
    mark: str = field(default_factory=lambda: uuid.uuid4().hex)
    proc: subprocess.Popen | None = None
    log_path: Path | None = None
    log_offset: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def env_file(self) -> Path:
        return self.workdir / ".lingix.env"

    def make_env(self) -> dict[str, str]:
        # Nothing of the judge is set here: the Makefile's own default (offline) applies.
        return isolated_env(
            DATABASE_URL=f"sqlite:///{self.workdir / 'lingix.db'}",
            LINGIX_ENV_FILE=str(self.env_file),
            PYTHONUNBUFFERED="1",
            **{MARKER: self.mark},
        )

    def shell_env(self) -> dict[str, str]:
        """A second terminal: none of make's exports, only the settings file it wrote (at
        the test's path instead of the repository's .lingix.env)."""
        return isolated_env(LINGIX_ENV_FILE=str(self.env_file))

    def start(self, *, timeout: float = 900) -> MakeRun:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log_path = self.workdir / "make-run.log"
        self.log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = open(self.log_path, "ab")
        # `-o .venv/.installed`: the test uses the installed .venv as it is instead of
        # reinstalling when pyproject.toml is newer (that needs the network, not this test).
        self.proc = subprocess.Popen(
            ["make", "--no-print-directory", "-o", ".venv/.installed", "run", f"PORT={self.port}"],
            cwd=REPO,
            env=self.make_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        wait_http(f"{self.base_url}/api/v1/openapi.json", timeout=timeout, proc=self.proc, ok=lambda status: status == 200)
        return self

    def output(self) -> str:
        assert self.log_path is not None
        with open(self.log_path, "rb") as log:
            log.seek(self.log_offset)
            return log.read().decode("utf-8", errors="replace")

    def banner(self) -> str:
        text = self.output()
        assert BANNER_START in text, text[-3000:]
        return text.split(BANNER_START, 1)[1].split("\n\n", 1)[0]

    def banner_commands(self) -> list[str]:
        """The banner's indented lines: the commands it prints to run in a new shell."""
        return [line[4:] for line in self.banner().splitlines() if re.match(r"    \S", line)]

    def processes(self) -> dict[int, str]:
        return marked_processes(self.mark)

    def wait_for_scheduler(self, *, timeout: float = 120) -> dict[int, str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            scheduler = {pid: cmd for pid, cmd in self.processes().items() if "qcluster" in cmd}
            if len(scheduler) >= 2:  # the master and at least its sentinel or a worker
                return scheduler
            time.sleep(0.5)
        raise TimeoutError(f"no qcluster came up: {self.processes()}\n{self.output()[-3000:]}")

    def stop(self, signum: int, *, whole_group: bool, timeout: float = 90) -> int:
        """Signal `make` alone (as `kill PID` does) or its whole process group (as Ctrl-C
        in a terminal does); returns make's exit code."""
        assert self.proc is not None
        if whole_group:
            os.killpg(self.proc.pid, signum)
        else:
            self.proc.send_signal(signum)
        code = self.proc.wait(timeout=timeout)
        self.proc = None
        return code

    def kill_leftovers(self) -> None:
        """After a failed test: end what this run started, each by its pid."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        for pid in self.processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc = None
