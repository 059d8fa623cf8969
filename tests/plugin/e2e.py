"""Plugin tier 2 (`make e2e`): the plugin inside a real OpenClaw gateway.

Installs Node 24 (npm `node@24`) and `openclaw@2026.9.6` into .cache/e2e/ (git-ignored),
starts a Lingix server, a scripted OpenAI-compatible model and an OpenClaw gateway on
127.0.0.1 with the plugin linked. Supplement mode (openclaw_plugin/, beside memory-core)
checks:
  (a) POST /tools/invoke lingix_memory_search returns a memory stored in the database;
  (b) an `openclaw agent` turn sends recalled memories inside the model request;
  (c) agent_end produced an ingest event, with its traces, in the database;
  (d) memory-core's own memory_search returns Lingix hits (the corpus supplement);
  (e) the gateway accepted seed 000's plugin config keys (pythonCommand, dataDir, autoSeed,
      recallTopK, judge, embedding) beside the plugin's own, and the plugin logged what
      replaces each key it does not apply.
Slot mode (openclaw_plugin/slot/, plugins.slots.memory = lingix-agent-memory) checks the list in
tests/plugin/e2e_slot.py: OpenClaw's memory_search answered by Lingix, auto-recall, a
confirmed and an unconfirmed suggestion, a cron turn not captured, a capture made while
Lingix is down delivered after it returns, and session distillation with drill-down.
Everything it starts is stopped by PID; every file it writes stays under .cache/e2e/.

    python -m tests.plugin.e2e [--mode both|supplement|slot] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.plugin.server import REPO, LingixServer, free_port, stop_process, wait_http

CACHE = REPO / ".cache" / "e2e"
NODE_DIR = CACHE / "node24"
OPENCLAW_DIR = CACHE / "openclaw"
OPENCLAW_VERSION = "2026.9.6"
PLUGIN_DIR = REPO / "openclaw_plugin"
SLOT_PLUGIN_DIR = PLUGIN_DIR / "slot"
PLUGIN_ID = "lingix-agent-memory"  # seed 000's name; CONTRACT.md
# Seed 000's own example of the plugin's config ("OpenClaw 配置"), as the node tests use it.
SEED_CONFIG_FILE = PLUGIN_DIR / "test" / "fixtures" / "seed-000-openclaw.json"
SEED_KEYS = ("pythonCommand", "dataDir", "autoSeed", "judge", "embedding")
# What the scripted model answers, by a substring of the user's last message.
MODEL_REPLIES = [
    {"when": "冷启动出价怎么定", "reply": "建议 brand_A 美妆新计划冷启动期出价先设 2.2元，ROI 稳定后再逐步下调。"},
    {"when": "双11 美妆预算怎么安排", "reply": "建议 brand_A 美妆双11 预算提高到 300万，并提前两周蓄水。"},
]

RECALL_TURN = "之前 brand_A 医药OTC 的出价上限是怎么定的？用户纠正：brand_A 医药OTC类目新计划出价不要超过1.7元"
CAPTURE_MARK = "1.7元"


def say(message: str) -> None:
    print(f"[e2e] {message}", flush=True)


def run(cmd: list[str], *, env: dict[str, str] | None = None, timeout: float = 900, cwd: Path | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}… exited {done.returncode}:\n{(done.stdout + done.stderr)[-3000:]}")
    return done


# --- toolchain ------------------------------------------------------------------------
def node_bin() -> Path:
    return NODE_DIR / "node_modules" / ".bin" / "node"


def openclaw_bin() -> Path:
    return OPENCLAW_DIR / "node_modules" / ".bin" / "openclaw"


def node_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{node_bin().parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def ensure_toolchain() -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed to install Node 24 and OpenClaw (apt-get install npm)")
    if not node_bin().exists():
        say("installing node@24 into .cache/e2e/node24")
        run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR), "node@24"])
    version = run([str(node_bin()), "--version"]).stdout.strip()
    major, minor = (int(x) for x in version.lstrip("v").split(".")[:2])
    if (major, minor) < (24, 16):
        raise RuntimeError(f"node {version} from the node@24 package is older than OpenClaw's minimum 24.16")
    installed = OPENCLAW_DIR / "node_modules" / "openclaw" / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != OPENCLAW_VERSION:
        say(f"installing openclaw@{OPENCLAW_VERSION} into .cache/e2e/openclaw")
        run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(OPENCLAW_DIR), f"openclaw@{OPENCLAW_VERSION}"], env=node_env())
    say(f"node {version}, openclaw {OPENCLAW_VERSION}")


# --- the run -------------------------------------------------------------------------------
class E2E:
    def __init__(self, rundir: Path, lingix: LingixServer | None = None, *, slot: bool = False) -> None:
        self.rundir = rundir
        self.slot = slot
        self.plugin_dir = SLOT_PLUGIN_DIR if slot else PLUGIN_DIR
        self.home = rundir / "home"
        self.procs: list[subprocess.Popen] = []
        self.lingix = lingix or LingixServer(workdir=rundir / "lingix")
        self.model_port = free_port()
        self.model_record = rundir / "model-requests.jsonl"
        self.gateway_port = free_port()
        self.gateway_token = secrets.token_hex(16)
        self.gateway: subprocess.Popen | None = None

    # environment for every openclaw command: its own HOME, Node 24 first on PATH
    def oc_env(self) -> dict[str, str]:
        env = node_env()
        env.update(
            HOME=str(self.home),
            OPENCLAW_HOME=str(self.home),
            OPENCLAW_GATEWAY_TOKEN=self.gateway_token,
            OPENCLAW_GATEWAY_PORT=str(self.gateway_port),
            LINGIX_API_KEY=self.lingix.tokens["plugin-a"],
            NO_COLOR="1",
            CI="1",
        )
        for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            env.pop(key, None)
        return env

    def oc(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return run([str(openclaw_bin()), *args], env=self.oc_env(), timeout=timeout, cwd=self.rundir)

    def spawn(self, cmd: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
        with open(log, "ab") as fh:
            proc = subprocess.Popen(cmd, env=env, cwd=self.rundir, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def start_lingix(self) -> None:
        self.lingix.prepare().start()
        say(f"lingix server on {self.lingix.base_url} (pid {self.lingix.proc.pid})")

    def start_model(self) -> None:
        replies = self.rundir / "model-replies.json"
        replies.write_text(json.dumps(MODEL_REPLIES, ensure_ascii=False), encoding="utf-8")
        proc = self.spawn(
            [
                sys.executable,
                "-m",
                "tests.fakes.model_server",
                "--port",
                str(self.model_port),
                "--record",
                str(self.model_record),
                "--replies",
                str(replies),
            ],
            self.rundir / "model-server.log",
            {**os.environ, "PYTHONPATH": str(REPO)},
        )
        wait_http(f"http://127.0.0.1:{self.model_port}/v1/models", timeout=30, proc=proc, ok=lambda s: s == 200)
        say(f"scripted model on 127.0.0.1:{self.model_port} (pid {proc.pid})")

    def configure_openclaw(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        self.oc("plugins", "install", "--link", str(self.plugin_dir), "--force", "--accept-capabilities")
        config_path = self.home / ".openclaw" / "openclaw.json"
        config = json.loads(config_path.read_text()) if config_path.exists() else {}
        installed = config.get("plugins", {}).get("entries", {}).get(PLUGIN_ID, {})
        assert installed.get("enabled") is True, f"plugins install did not enable {PLUGIN_ID}: {config.get('plugins')}"
        config.setdefault("gateway", {}).update(
            {"mode": "local", "bind": "loopback", "port": self.gateway_port, "auth": {"mode": "token", "token": self.gateway_token}}
        )
        config["logging"] = {"file": str(self.rundir / "openclaw.log"), "level": "debug"}
        config["models"] = {
            "mode": "replace",
            "providers": {
                "scripted": {
                    "baseUrl": f"http://127.0.0.1:{self.model_port}/v1",
                    "apiKey": "scripted-key",
                    "api": "openai-completions",
                    "models": [
                        {
                            "id": "scripted",
                            "name": "Scripted model",
                            "reasoning": False,
                            "input": ["text"],
                            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                            "contextWindow": 128000,
                            "maxTokens": 4096,
                        }
                    ],
                }
            },
        }
        agents = config.setdefault("agents", {}).setdefault("defaults", {})
        agents["model"] = {"primary": "scripted/scripted"}
        agents["workspace"] = str(self.rundir / "workspace")
        plugins = config.setdefault("plugins", {})
        if self.slot:
            plugins.setdefault("slots", {})["memory"] = PLUGIN_ID
        else:
            # supplement mode: memory-core keeps the slot, whatever the install chose
            plugins.get("slots", {}).pop("memory", None)
            plugins.setdefault("entries", {}).pop("memory-core", None)
        entry = plugins.setdefault("entries", {}).setdefault(PLUGIN_ID, {})
        entry["enabled"] = True
        entry["hooks"] = {"allowConversationAccess": True}
        # Supplement mode starts from seed 000's config as it stands (its recallTopK: 4 is
        # applied; its other keys are accepted and logged with their replacement).
        seed = json.loads(SEED_CONFIG_FILE.read_text(encoding="utf-8"))["plugins"]["entries"][PLUGIN_ID]["config"]
        entry["config"] = {
            **({} if self.slot else seed),
            "baseUrl": self.lingix.base_url,
            "apiKey": "${LINGIX_API_KEY}",
            "advertiser": "brand_A",
            "autoRecall": True,
            "autoCapture": True,
            "recallBudgetTokens": 600,
            "timeoutMs": 8000,
            "retryBaseMs": 1000,
            "retryMaxMs": 8000,
        }
        if self.slot:
            # the CLI's main agent is mapped explicitly; the static advertiser stays the fallback
            entry["config"]["advertisers"] = [{"agent": "main", "advertiser": "brand_A"}]
        config_path.write_text(json.dumps(config, indent=2, ensure_ascii=False))
        mode = f"slot mode (plugins.slots.memory = {PLUGIN_ID})" if self.slot else "supplement mode, with seed 000's config keys"
        say(f"openclaw home {self.home.relative_to(REPO)} with {PLUGIN_ID} linked from {self.plugin_dir.relative_to(REPO)}, {mode}")

    def start_gateway(self) -> None:
        self.gateway = self.spawn(
            [
                str(openclaw_bin()),
                "gateway",
                "run",
                "--bind",
                "loopback",
                "--port",
                str(self.gateway_port),
                "--auth",
                "token",
                "--token",
                self.gateway_token,
                "--allow-unconfigured",
            ],
            self.rundir / "gateway.log",
            self.oc_env(),
        )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.gateway.poll() is not None:
                raise RuntimeError(f"gateway exited with {self.gateway.returncode}; see {self.rundir / 'gateway.log'}")
            status, _ = self.invoke("lingix_memory_status", {}, quiet=True)
            if status == 200:
                say(f"openclaw gateway on 127.0.0.1:{self.gateway_port} (pid {self.gateway.pid})")
                return
            time.sleep(1)
        raise TimeoutError("gateway did not serve /tools/invoke within 180 s")

    def invoke(self, tool: str, args: dict, *, quiet: bool = False) -> tuple[int, dict]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.gateway_port}/tools/invoke",
            data=json.dumps({"tool": tool, "args": args}, ensure_ascii=False).encode("utf-8"),
            method="POST",
            headers={"Authorization": f"Bearer {self.gateway_token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            body = exc.read()
            try:
                return exc.code, json.loads(body or b"{}")
            except ValueError:
                return exc.code, {"raw": body.decode("utf-8", "replace")[:500]}
        except OSError as exc:
            if not quiet:
                raise
            return 0, {"error": str(exc)}

    # --- the three checks -----------------------------------------------------------------
    def db(self) -> sqlite3.Connection:
        return sqlite3.connect(self.lingix.db_path)

    def check_tools_invoke(self) -> dict:
        status, body = self.invoke("lingix_memory_search", {"query": "医药OTC 出价上限", "top_k": 5})
        assert status == 200 and body.get("ok") is True, (status, body)
        result = body["result"]
        text = "\n".join(part.get("text", "") for part in result.get("content", []))
        ids = [int(i) for i in re.findall(r"· #(\d+) ·", text)]
        assert ids, text
        with self.db() as db:
            stored = dict(db.execute(f"SELECT id, content FROM memories_memory WHERE id IN ({','.join('?' * len(ids))})", ids).fetchall())
        assert stored and all(content[:30] in text for content in stored.values()), (text, stored)
        say(f"(a) /tools/invoke lingix_memory_search → {len(ids)} memories, e.g. #{ids[0]}: {stored[ids[0]][:50]}")
        return {"ids": ids}

    def check_agent_turn(self) -> dict:
        before = self.model_record.read_text(encoding="utf-8").count("\n") if self.model_record.exists() else 0
        done = self.oc("agent", "--agent", "main", "--message", RECALL_TURN, "--json", "--timeout", "120", timeout=240)
        say(f"openclaw agent exited 0; reply: {done.stdout.strip()[:160]!r}")
        lines = self.model_record.read_text(encoding="utf-8").splitlines()[before:]
        chats = [json.loads(line) for line in lines if '"/chat/completions"' in line or "/chat/completions" in json.loads(line)["path"]]
        assert chats, f"no model request recorded after the agent turn ({len(lines)} lines)"
        body = json.dumps(chats[0]["body"], ensure_ascii=False)
        assert "<lingix-memory>" in body, f"no recalled block; /recall answers {self.recall_answer(RECALL_TURN)}\n{body[:2000]}"
        recalled = [int(i) for i in re.findall(r"· #(\d+)\]", body)]
        assert recalled, body[:2000]
        with self.db() as db:
            rows = db.execute(
                f"SELECT id, advertiser, content FROM memories_memory WHERE id IN ({','.join('?' * len(recalled))})", recalled
            ).fetchall()
        assert len(rows) == len(set(recalled)), (recalled, rows)
        assert all(advertiser in (None, "brand_A") for _, advertiser, _ in rows), rows
        relevance = self.recall_answer(RECALL_TURN)["relevance"]
        say(f"(b) the model request carried a <lingix-memory> block with memories {sorted(set(recalled))}; relevance {relevance}")
        return {"recalled": sorted(set(recalled)), "relevance": relevance}

    def recall_answer(self, turn: str) -> dict:
        """Why /recall stays quiet for a turn (its reason, skipped code and relevance), asked
        the way the plugin asks, for a failure message."""
        status, answer = self.lingix.call(
            "POST",
            "/recall",
            {"messages": [{"role": "user", "content": turn}], "advertiser": "brand_A", "budget_tokens": 600},
            token=self.lingix.tokens["plugin-a"],
        )
        keys = ("reason", "skipped", "relevance", "retrieved")
        return {"status": status, **{key: answer.get(key) for key in keys}}

    def check_capture(self) -> dict:
        deadline = time.monotonic() + 60
        row = None
        while time.monotonic() < deadline and row is None:
            with self.db() as db:
                row = db.execute(
                    "SELECT id, action, source, actor, advertiser FROM governance_memoryevent WHERE raw_text LIKE ? ORDER BY id DESC",
                    (f"%{CAPTURE_MARK}%",),
                ).fetchone()
            if row is None:
                time.sleep(1)
        assert row is not None, "agent_end produced no ingest event"
        event_id, action, source, actor, advertiser = row
        assert (source, actor, advertiser) == ("user", "token:plugin-a", "brand_A"), row
        with self.db() as db:
            stages = [
                s
                for (s,) in db.execute("SELECT stage || ':' || decision FROM governance_trace WHERE event_id = ? ORDER BY seq", (event_id,))
            ]
        assert stages, f"event {event_id} has no traces"
        say(f"(c) agent_end → ingest event #{event_id} {action}, source=user, actor=token:plugin-a, traces: {', '.join(stages)}")
        return {"event_id": event_id, "action": action, "traces": stages}

    def check_corpus_supplement(self) -> dict:
        # memory-core's own memory_search, with Lingix registered as a corpus supplement
        status, body = self.invoke("memory_search", {"query": "医药OTC 出价上限", "corpus": "wiki"})
        assert status == 200 and body.get("ok") is True, (status, body)
        text = json.dumps(body["result"], ensure_ascii=False)
        ids = sorted({int(i) for i in re.findall(r"lingix/memory/(\d+)", text)})
        assert ids, text[:2000]
        say(f"(d) memory-core's memory_search → Lingix corpus hits {ids}")
        return {"lingix_hits": ids}

    def logs(self) -> str:
        paths = (self.rundir / "gateway.log", self.rundir / "openclaw.log")
        return "".join(p.read_text(encoding="utf-8", errors="replace") for p in paths if p.exists())

    def check_seed_config(self) -> dict:
        # The gateway validated the config against the manifest's schema (an invalid one is
        # refused before the plugin loads, and checks a-d would have failed), and the plugin
        # logged one notice per seed key it leaves to the server. The log file is JSON lines,
        # so the quotes around a key may be escaped.
        text = self.logs().replace('\\"', '"')
        noticed = [key for key in SEED_KEYS if f'config key "{key}" (seed 000) is accepted but not applied' in text]
        assert noticed == list(SEED_KEYS), f"notices for {noticed}, expected {list(SEED_KEYS)}"
        say(f"(e) seed 000's config accepted by the gateway; the plugin named the replacement of {', '.join(noticed)}")
        return {"noticed": noticed}

    def stop_gateway(self) -> None:
        for proc in reversed(self.procs):
            stop_process(proc)
        self.procs = []

    def stop(self) -> None:
        self.stop_gateway()
        self.lingix.stop()


def run_phase(e2e: E2E, checks) -> dict:
    e2e.start_model()
    e2e.configure_openclaw()
    e2e.start_gateway()
    try:
        return checks(e2e)
    finally:
        e2e.stop_gateway()


def supplement_checks(e2e: E2E) -> dict:
    return {
        "a": e2e.check_tools_invoke(),
        "b": e2e.check_agent_turn(),
        "c": e2e.check_capture(),
        "d": e2e.check_corpus_supplement(),
        "e": e2e.check_seed_config(),
    }


def main() -> int:
    from tests.plugin.e2e_slot import slot_checks

    parser = argparse.ArgumentParser(description="OpenClaw plugin end-to-end run")
    parser.add_argument("--mode", choices=["both", "supplement", "slot"], default="both", help="which plugin mode(s) to run (default both)")
    parser.add_argument("--keep", action="store_true", help="keep .cache/e2e/run for inspection")
    args = parser.parse_args()
    started = time.monotonic()
    ensure_toolchain()
    rundir = CACHE / "run"
    shutil.rmtree(rundir, ignore_errors=True)
    rundir.mkdir(parents=True)
    # One Lingix server for both phases (each phase looks for its own marks).
    lingix = LingixServer(workdir=rundir / "lingix")
    phases = [("supplement", False, supplement_checks), ("slot", True, slot_checks)]
    phases = [p for p in phases if args.mode in ("both", p[0])]
    results: dict = {}
    current = None
    ok = False
    try:
        lingix.prepare().start()
        say(f"lingix server on {lingix.base_url} (pid {lingix.proc.pid})")
        for name, slot, checks in phases:
            say(f"=== {name} mode ===")
            current = E2E(rundir / name, lingix, slot=slot)
            current.rundir.mkdir(parents=True, exist_ok=True)
            results[name] = run_phase(current, checks)
        ok = True
        say(f"PASS in {time.monotonic() - started:.0f} s: {json.dumps(results, ensure_ascii=False)}")
    except (AssertionError, RuntimeError, TimeoutError, subprocess.TimeoutExpired) as exc:
        say(f"FAIL: {type(exc).__name__}: {exc}")
        base = current.rundir if current else rundir
        for log in (base / "gateway.log", base / "openclaw.log", rundir / "lingix" / "runserver.log"):
            if log.exists():
                tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
                say(f"--- tail of {log.relative_to(rundir)} ---\n{tail}")
    finally:
        if current is not None:
            current.stop_gateway()
        lingix.stop()
        if ok and not args.keep:
            shutil.rmtree(rundir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
