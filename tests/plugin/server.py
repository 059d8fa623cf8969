"""A real Lingix server in a subprocess: fresh SQLite file, real migrations, demo data,
API tokens made by the CLI, `runserver` on 127.0.0.1. Shared by the plugin's tier-1
tests and the `make e2e` run; stopped by PID."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench._common import free_port
from tests.subprocess_env import isolated_env

REPO = Path(__file__).resolve().parents[2]


def wait_http(url: str, *, timeout: float, proc: subprocess.Popen | None = None, ok=lambda status: status < 500) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if ok(response.status):
                    return
        except urllib.error.HTTPError as exc:
            if ok(exc.code):
                return
            last = f"HTTP {exc.code}"
        except OSError as exc:
            last = str(exc)
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {timeout}s ({last})")


def stop_process(proc: subprocess.Popen | None, *, grace: float = 5.0) -> None:
    """Stop one process we started, and its process group, by PID."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=grace)


@dataclass
class LingixServer:
    workdir: Path
    port: int = 0
    python: str = sys.executable
    tokens: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen | None = None
    log_path: Path | None = None

    @property
    def db_path(self) -> Path:
        return self.workdir / "lingix.db"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        return isolated_env(
            DATABASE_URL=f"sqlite:///{self.db_path}",
            DJANGO_SETTINGS_MODULE="lingix_site.settings",
            MEMORY_LLM_PROVIDER="offline",
            MEMORY_API_RATE="10000/min",
            PYTHONUNBUFFERED="1",
        )

    def manage(self, *args: str) -> str:
        done = subprocess.run([self.python, "manage.py", *args], cwd=REPO, env=self.env(), capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
        return done.stdout

    def prepare(self) -> LingixServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.manage("migrate", "--noinput", "-v", "0")
        self.manage("memory", "seed-demo", "--json")
        # No sampled audits: a capture test should see the funnel's own decision.
        self.manage("shell", "-c", "from governance.models import LayerPolicy; LayerPolicy.objects.update(sampled_audit_rate=0.0)")
        for name, scope in [("plugin-a", ["--advertisers", "brand_A"]), ("plugin-ops", ["--all", "--can-review"])]:
            self.tokens[name] = json.loads(self.manage("memory", "token", "create", "--name", name, *scope, "--json"))["token"]
        return self

    def start(self) -> LingixServer:
        self.port = self.port or free_port()
        self.log_path = self.workdir / "runserver.log"
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.python, "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"],
            cwd=REPO,
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        wait_http(f"{self.base_url}/api/v1/openapi.json", timeout=60, proc=self.proc, ok=lambda s: s == 200)
        if self.tokens:
            self.warm_up()
        return self

    def call(self, method: str, path: str, body=None, *, token: str, timeout: float = 60) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(
            f"{self.base_url}/api/v1{path}",
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def warm_up(self) -> None:
        # The first search loads the embedder and the vector matrix; do it before any
        # client with a short timeout arrives.
        status, body = self.call("POST", "/search", {"query": "出价 预算 warm-up"}, token=next(iter(self.tokens.values())))
        if status != 200:
            raise RuntimeError(f"warm-up search failed: {status} {body}")

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None

    def __enter__(self) -> LingixServer:
        try:
            return self.prepare().start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()
