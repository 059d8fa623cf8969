"""Scale-out: the service deployed as a team would when one dev server is not enough
(PostgreSQL, several gunicorn workers, two qclusters), driven over HTTP, then audited.

    python -m bench.scale_out --json          # re-runs itself under scripts/with_postgres.py
    python scripts/with_postgres.py -- python -m bench.scale_out --json --database-url-from-env   # the same, explicitly
    python -m bench.scale_out --sqlite --json # the same topology on one SQLite file, for comparison

It migrates a throwaway database, loads the demo data, starts `--workers` gunicorn workers
(4 threads each) and two `qcluster`s (their schedules are pushed a day ahead, so no job runs
unasked and the write phases compare like with like), then measures, in this order:

1. Governed writes/s: `--clients` client threads, one API token each, send triggers and
   ingests (each a full pass through the funnel) for one advertiser, then the same number
   of clients for as many advertisers; the two configurations alternate over two rounds
   (`--seconds` each in total), so drift in the machine's load falls on both. Afterwards:
   lost writes (every decision's event exists, every WRITE/UPDATE's memory exists, links
   back and hashes right: bench.concurrency's audit) and version chains with more than one
   active version.
2. Visibility across workers: a memory written through one worker is read back (by id and
   by keyword search) through the others. Which worker served a request comes from
   gunicorn's access log (ACCESS_LOG_FORMAT in bench/_common.py logs the pid and the
   client's X-Bench-Id header).
3. Resident memory of every worker and qcluster process (RSS and PSS from /proc), after
   warm-up and after the write load.
4. Overlapping lifecycle runs: `--expire-memories` L3 signals and a few L1 rules, all past
   their end, arrive by trusted import; then two expiry tasks go to the qclusters and two
   `memory maintain --task expire` runs start beside them. Each memory must be expired,
   reported and traced exactly once, and each L1 rule audited once.
5. kill -9 of the busiest worker while clients write (with idempotency keys; a client
   whose connection dies retries the same key, as an agent would). Afterwards: lost writes,
   duplicate events per key, undecided events, memories no event names, chains with two
   active versions, and the advisory locks and open transactions left in PostgreSQL.
6. Rate limit under parallel clients: the web tier restarts with MEMORY_API_RATE
   `--rate-limit`/min and `--rate-clients` threads race one token; at most the limit may
   pass. Then waves of parallel writes on another token test the concurrency bound
   (MEMORY_API_CONCURRENCY=2): on PostgreSQL it holds across workers.

Progress lines go to stderr, the JSON document to stdout. Exit code 0 when every
integrity check holds (the throughput ratio is reported, not enforced)."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any, NamedTuple

from bench._common import (
    REPO,
    Progress,
    add_database_url_from_env,
    api_request,
    emit,
    free_port,
    percentile,
    process_memory_mb,
    serve_gunicorn,
    stop_process,
    text_sha256,
    throwaway_postgres,
    wait_until_serving,
)

WRITE_ADVERTISERS = [f"brand_scale_{i}" for i in range(1, 9)]
VISIBILITY_ADVERTISER = "brand_vis"
KILL_ADVERTISERS = [f"brand_kill_{i}" for i in range(1, 5)]
EXPIRE_ADVERTISER = "brand_expire"
CONCURRENCY_LIMIT = 2
_LOCK_NAMESPACE = 0x4C474D58  # memories/locks.py's first key
# `memory maintain --task expire --json`, run by the real command in a process that reports
# "ready" once Django is up and connected, then waits for a line on stdin. stdout holds the
# command's JSON; the last stderr line the run's start and end (epoch seconds).
_CLI_ON_SIGNAL = """
import json, sys, time
import django
django.setup()
from django.core.management import call_command
from django.db import connection
connection.ensure_connection()
print("ready", flush=True)
sys.stdin.readline()
start = time.time()
try:
    call_command("memory", "maintain", "--task", "expire", "--json")
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write(json.dumps({"start": start, "end": time.time()}) + "\\n")
"""


# --- HTTP ------------------------------------------------------------------------
def _call(base: str, token: str, method: str, path: str, body: dict | None, tag: str = "") -> tuple[int, Any, float]:
    """bench._common.api_request as (status, parsed body, seconds); -1: no answer."""
    reply = api_request(base, token, method, path, body, tag=tag)
    return reply.status, reply.payload(), reply.seconds


def _write_body(rng: random.Random, advertiser: str, n: int) -> tuple[str, dict[str, Any]]:
    """A governed write: 60% structured environment signals, 40% free-text strategy
    results, in the soak bench's varied wording (near-identical texts would read as
    contradictions and park for review)."""
    from bench.soak import _ingest_payload, _trigger_payload

    if rng.random() < 0.6:
        return "/api/v1/trigger", {**_trigger_payload(rng, n), "advertiser": advertiser}
    return "/api/v1/ingest", {**_ingest_payload(rng, n), "advertiser": advertiser}


class Writer:
    """One agent: its own token, writing governed memories until told to stop. Every write
    carries an idempotency key; a transport failure is retried with the same key."""

    def __init__(self, base: str, token: str, advertisers: list[str], seed: int, phase: str) -> None:
        self.base, self.token, self.advertisers, self.phase = base, token, advertisers, phase
        self.rng = random.Random(seed)
        self.seed = seed
        self.records: list[dict[str, Any]] = []

    def run(self, stop: threading.Event, start: threading.Barrier) -> None:
        start.wait(timeout=60)
        n = 0
        while not stop.is_set():
            n += 1
            path, body = _write_body(self.rng, self.advertisers[n % len(self.advertisers)], self.seed * 1_000_000 + n)
            body["idempotency_key"] = f"{self.phase}-{self.seed}-{n}"
            self.records.append(self._send(path, body))

    def _send(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        transport_failures = 0
        while True:
            code, reply, seconds = _call(self.base, self.token, "POST", path, body, tag=body["idempotency_key"])
            if code != -1 or transport_failures >= 10:
                break
            transport_failures += 1
            time.sleep(0.5)
        return {
            "kind": "ingest" if path.endswith("ingest") else "trigger",
            "status": code,
            "seconds": seconds,
            "key": body["idempotency_key"],
            "sha": text_sha256(body.get("text", "")),
            "reply": reply,
            "transport_failures": transport_failures,
            "end": time.perf_counter(),
        }


def _cpu_total() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


class Sampler:
    """While writers run: how busy the machine's cores are, and (PostgreSQL) how many
    sessions wait for a write lock, sampled every 100 ms. Writers that wait for the lock
    show that the scope lock, not the CPU, bounds the rate."""

    def __init__(self, service_pids: list[int]) -> None:
        self.stop = threading.Event()
        self.waiters: list[int] = []
        self.held: list[int] = []
        self.thread = threading.Thread(target=self._run)
        self.service_pids = service_pids

    def __enter__(self) -> Sampler:
        self.cpu = _cpu_total()
        self.service_cpu = _tree_cpu_seconds(self.service_pids)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        busy, total = _cpu_total()
        self.cpu_busy = (busy - self.cpu[0]) / max(1, total - self.cpu[1])
        self.service_cpu = _tree_cpu_seconds(self.service_pids) - self.service_cpu

    def _run(self) -> None:
        from django.db import connection

        try:
            if connection.vendor != "postgresql":
                return
            while not self.stop.wait(0.1):
                with connection.cursor() as cursor:
                    # Waiting sessions, and advertiser scopes held exclusively (the two-key
                    # form of memories/locks.py: namespace, scope key; 0 is the global scope).
                    cursor.execute(
                        "SELECT count(*) FILTER (WHERE NOT granted), count(*) FILTER (WHERE granted AND mode = 'ExclusiveLock' "
                        "AND objsubid = 2 AND classid = %s AND objid <> 0) FROM pg_locks WHERE locktype = 'advisory'",
                        [_LOCK_NAMESPACE],
                    )
                    waiting, held = cursor.fetchone()
                    self.waiters.append(waiting)
                    self.held.append(held)
        finally:
            connection.close()


def _drive(writers: list[Writer], seconds: float) -> float:
    stop = threading.Event()
    start = threading.Barrier(len(writers) + 1)
    threads = [threading.Thread(target=w.run, args=(stop, start)) for w in writers]
    for thread in threads:
        thread.start()
    try:
        start.wait(timeout=60)
        began = time.perf_counter()
        time.sleep(seconds)
    finally:
        # Also when the run fails meanwhile: the writers loop until told, and would keep
        # the bench alive after its servers are gone.
        stop.set()
    for thread in threads:
        thread.join(timeout=300)
    return time.perf_counter() - began


# --- /proc -------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces; the parent pid is the second field after it.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        out += kids
        todo += kids
    return out


def _cpu_ticks(pid: int, *, reaped_children: bool = False) -> int:
    """User + system clock ticks of a process; with `reaped_children`, plus those of its
    children that have exited (a web request's PostgreSQL backend, a respawned worker)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if reaped_children else 0)


def _tree_cpu_seconds(pids: list[int]) -> float:
    """CPU seconds used so far by these processes, their live descendants and their
    exited children."""
    ticks = 0
    for pid in pids:
        ticks += _cpu_ticks(pid, reaped_children=True) + sum(_cpu_ticks(child) for child in _descendants(pid))
    return ticks / os.sysconf("SC_CLK_TCK")


def _postmaster_pid() -> int | None:
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    try:
        return int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None  # a server on another machine


def _resident(gunicorn: subprocess.Popen, qclusters: list[subprocess.Popen]) -> dict[str, Any]:
    workers = [m for pid in _children(gunicorn.pid) if (m := process_memory_mb(pid))]
    q_procs = [m for q in qclusters for pid in [q.pid, *_descendants(q.pid)] if (m := process_memory_mb(pid))]
    return {
        "gunicorn_workers": workers,
        "gunicorn_master": process_memory_mb(gunicorn.pid),
        "worker_rss_mb_max": max((w["rss_mb"] for w in workers), default=None),
        "worker_pss_mb_max": max((w["pss_mb"] for w in workers), default=None),
        "qcluster_processes": len(q_procs),
        "qcluster_rss_mb_total": round(sum(q["rss_mb"] for q in q_procs), 1),
        "qcluster_pss_mb_total": round(sum(q["pss_mb"] for q in q_procs), 1),
    }


def _served_by(access_log: Path) -> dict[str, int]:
    """X-Bench-Id -> the pid of the worker that answered it."""
    served = {}
    for line in access_log.read_text(errors="replace").splitlines():
        parts = line.split()
        pid = parts[0].strip("<>") if parts else ""
        if len(parts) >= 2 and parts[1] != "-" and pid.isdigit():
            served[parts[1]] = int(pid)
    return served


# --- database checks ------------------------------------------------------------------
def _chains_with_two_active() -> int:
    """Version chains (linked by `supersedes`) holding more than one active version."""
    from memories.constants import Status
    from memories.models import Memory

    parent = dict(Memory.objects.values_list("id", "supersedes_id"))
    active = Memory.objects.filter(status=Status.ACTIVE).values_list("id", flat=True)

    def root(pk: int) -> int:
        while parent.get(pk):
            pk = parent[pk]
        return pk

    per_chain = Counter(root(pk) for pk in active)
    return sum(1 for n in per_chain.values() if n > 1)


def _write_integrity(records: list[dict[str, Any]], advertisers: list[str]) -> dict[str, Any]:
    from bench.concurrency import _audit
    from governance.models import MemoryEvent, Trace
    from memories.models import Memory

    audit = _audit(records)
    keys = [r["key"] for r in records]
    per_key = Counter(MemoryEvent.objects.filter(idempotency_key__in=keys).values_list("idempotency_key", flat=True))
    events = MemoryEvent.objects.filter(advertiser__in=advertisers)
    named = set(events.filter(memory__isnull=False).values_list("memory_id", flat=True))
    return {
        "decisions": sum(1 for r in records if r["status"] == 200),
        "lost_writes": audit["problem_count"],
        "problems": audit["problems"][:5],
        "duplicate_events_per_key": sum(1 for k in keys if per_key.get(k, 0) > 1),
        "undecided_events": events.filter(action="").count(),
        "events_without_trace": events.exclude(pk__in=Trace.objects.filter(event__isnull=False).values("event_id")).count(),
        "memories_no_event_names": Memory.objects.filter(advertiser__in=advertisers, version=1).exclude(pk__in=named).count(),
        "chains_with_two_active_versions": _chains_with_two_active(),
    }


def _stage_times(advertisers: list[str]) -> dict[str, dict[str, Any]]:
    """Mean and p95 of each funnel stage's own time (its trace's latency_ms) over the
    events of these advertisers, in pipeline order, marking the stages that run inside
    the write transaction and its scope locks (governance/funnel/pipeline.py: `local`)."""
    from governance.funnel.commit import DEFAULT_PIPELINE
    from governance.models import Trace

    inside = {stage.__name__.removeprefix("stage_") for stage in DEFAULT_PIPELINE if getattr(stage, "local", False)}
    if "commit" in inside:
        inside.add("decision")  # the commit stage's trace is the decision it commits
    times: dict[str, list[float]] = {}
    rows = Trace.objects.filter(event__advertiser__in=advertisers).order_by("id").values_list("stage", "latency_ms")
    for stage, latency in rows:
        times.setdefault(stage, []).append(float(latency or 0.0))
    return {
        stage: {
            "traces": len(values),
            "mean_ms": round(sum(values) / len(values), 1),
            "p95_ms": round(percentile(values, 95), 1),
            "inside_write_lock": stage in inside,
        }
        for stage, values in times.items()
    }


def _postgres_leftovers() -> dict[str, int]:
    from django.db import connection

    if connection.vendor != "postgresql":
        return {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()")
        advisory = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()")
        open_tx = cursor.fetchone()[0]
    return {"advisory_locks_held": advisory, "idle_in_transaction": open_tx}


# --- the phases -----------------------------------------------------------------------
def _throughput(
    base: str, tokens: dict[str, list[str]], clients: int, seconds: float, service_pids: list[int], say: Progress
) -> dict[str, Any]:
    configs = {
        "one_advertiser": [[WRITE_ADVERTISERS[0]]] * clients,
        "distinct_advertisers": [[WRITE_ADVERTISERS[i]] for i in range(clients)],
    }
    records: dict[str, list[dict[str, Any]]] = {name: [] for name in configs}
    elapsed: dict[str, float] = dict.fromkeys(configs, 0.0)
    busy: dict[str, list[float]] = {name: [] for name in configs}
    service_cpu: dict[str, float] = dict.fromkeys(configs, 0.0)
    per_round: dict[str, list[float]] = {name: [] for name in configs}
    waiters: dict[str, list[int]] = {name: [] for name in configs}
    held: dict[str, list[int]] = {name: [] for name in configs}
    rounds = 2
    for r in range(rounds):
        for name, scopes in configs.items():
            writers = [
                Writer(
                    base, tokens[name][i], scopes[i], seed=100 * (r + 1) + i + (50 if name != "one_advertiser" else 0), phase=f"{name}-r{r}"
                )
                for i in range(clients)
            ]
            say(f"writes: {name}, round {r + 1}/{rounds}, {clients} clients for {seconds / rounds:.0f}s")
            with Sampler(service_pids) as sampled:
                took = _drive(writers, seconds / rounds)
            elapsed[name] += took
            busy[name].append(sampled.cpu_busy)
            service_cpu[name] += sampled.service_cpu
            per_round[name].append(round(sum(1 for w in writers for rec in w.records if rec["status"] == 200) / took, 2))
            waiters[name] += sampled.waiters
            held[name] += sampled.held
            records[name] += [rec for w in writers for rec in w.records]
    out: dict[str, Any] = {}
    for name, recs in records.items():
        ok = [r for r in recs if r["status"] == 200]
        out[name] = {
            "advertisers": len({a for s in configs[name] for a in s}),
            "clients": clients,
            "seconds": round(elapsed[name], 1),
            "requests": len(recs),
            "decisions": len(ok),
            "governed_writes_per_s": round(len(ok) / elapsed[name], 2) if elapsed[name] else 0.0,
            "actions": dict(Counter((r["reply"] or {}).get("action") for r in ok)),
            "http_status": {str(k): v for k, v in sorted(Counter(r["status"] for r in recs).items())},
            "latency_ms": {
                "p50": round(percentile([r["seconds"] * 1000 for r in ok], 50), 1),
                "p95": round(percentile([r["seconds"] * 1000 for r in ok], 95), 1),
            },
            "writes_per_s_by_round": per_round[name],
            # The whole machine (two cores, shared with whatever else runs) and the part of
            # it the service used: gunicorn, the qclusters and the PostgreSQL server.
            "machine_cpu_busy": round(sum(busy[name]) / len(busy[name]), 3),
            "service_cpu_s_per_write": round(service_cpu[name] / len(ok), 3) if ok else None,
            "service_cores_used": round(service_cpu[name] / elapsed[name], 2) if elapsed[name] else None,
            "write_lock_waiters_mean": round(sum(waiters[name]) / len(waiters[name]), 2) if waiters[name] else None,
            "write_lock_waiting_share": round(sum(1 for w in waiters[name] if w) / len(waiters[name]), 3) if waiters[name] else None,
            # Mean advertiser scopes held at once; with one advertiser that is the lock's
            # busy share, and busy share / writes per second is the time a write holds it.
            "write_lock_held_mean": round(sum(held[name]) / len(held[name]), 3) if held[name] else None,
        }
        if held[name] and ok:
            out[name]["write_lock_hold_ms_per_write"] = round(1000 * out[name]["write_lock_held_mean"] / (len(ok) / elapsed[name]), 1)
    one, many = out["one_advertiser"]["governed_writes_per_s"], out["distinct_advertisers"]["governed_writes_per_s"]
    out["ratio_distinct_over_one"] = round(many / one, 2) if one else None
    everything = [r for recs in records.values() for r in recs]
    out["integrity"] = _write_integrity(everything, WRITE_ADVERTISERS[:clients])
    out["stage_ms"] = _stage_times(WRITE_ADVERTISERS[:clients])
    return out


class Check(NamedTuple):
    """One read-back: the X-Bench-Id of the write, of the read by id and of the search."""

    write: str
    read: str
    search: str
    read_ok: bool
    in_search: bool


def _visibility(base: str, token: str, access_log: Path, workers: int, writes: int, say: Progress) -> dict[str, Any]:
    say(f"visibility: {writes} writes, each read back through the other workers")
    rng = random.Random(7)
    checks: list[Check] = []
    for n in range(writes):
        tag = f"vis-w-{n}-{uuid.uuid4().hex[:8]}"
        path, body = _write_body(rng, VISIBILITY_ADVERTISER, 9_000_000 + n)
        body["idempotency_key"] = tag
        code, reply, _ = _call(base, token, "POST", path, body, tag=tag)
        if code != 200 or not reply or reply.get("action") not in ("WRITE", "UPDATE"):
            continue
        memory_id = reply["memory_id"]
        # Enough reads that every other worker answers some (the kernel hands connections
        # to whichever worker accepts first).
        for k in range(3 * workers):
            rtag = f"vis-r-{n}-{k}-{uuid.uuid4().hex[:6]}"
            rcode, memory, _ = _call(base, token, "GET", f"/api/v1/memories/{memory_id}", None, tag=rtag)
            stag = f"vis-s-{n}-{k}-{uuid.uuid4().hex[:6]}"
            query = (memory or {}).get("content", "")[:24] if rcode == 200 else body.get("summary", body.get("text", ""))[:24]
            scode, found, _ = _call(
                base,
                token,
                "POST",
                "/api/v1/search",
                {"query": query, "advertiser": VISIBILITY_ADVERTISER, "top_k": 10},
                tag=stag,
            )
            in_search = scode == 200 and any(r.get("id") == memory_id for r in (found or {}).get("results", []))
            checks.append(Check(write=tag, read=rtag, search=stag, read_ok=rcode == 200, in_search=in_search))
    time.sleep(1.0)  # gunicorn logs a request just after answering it
    served = _served_by(access_log)
    cross = [c for c in checks if served.get(c.read) is not None and served.get(c.read) != served.get(c.write)]
    cross_search = [c for c in checks if served.get(c.search) is not None and served.get(c.search) != served.get(c.write)]
    pairs = {(served.get(c.write), served.get(c.read)) for c in cross}
    return {
        "writes": len({c.write for c in checks}),
        "reads_by_another_worker": len(cross),
        "seen_by_another_worker": sum(1 for c in cross if c.read_ok),
        "searches_by_another_worker": len(cross_search),
        "found_by_another_workers_search": sum(1 for c in cross_search if c.in_search),
        "worker_pairs_covered": len(pairs),
        "workers_answering": len({p for p in served.values()}),
    }


def _lifecycle(
    env: dict[str, str], workdir: Path, count: int, l1_count: int, say: Progress, children: list[subprocess.Popen]
) -> dict[str, Any]:
    from django.utils import timezone
    from django_q.models import Task
    from django_q.tasks import async_task

    from governance.constants import AuditEvent
    from governance.models import AuditLog, Trace
    from memories.constants import Status
    from memories.models import Memory

    now = timezone.now()
    path = workdir / "expiring.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            line = {
                "layer": "L3",
                "content": f"{EXPIRE_ADVERTISER} 实时信号{i}：直播间CPM临时上涨{i % 40 + 5}%，观测窗口已结束 (signal {i})",
                "advertiser": EXPIRE_ADVERTISER,
                "source": "tool",
                "importance": 4,
                "created_at": (now - timedelta(hours=30)).isoformat(),
                "expires_at": (now - timedelta(minutes=5 + i % 60)).isoformat(),
                "data": {"observed_at": (now - timedelta(hours=30)).isoformat()},
            }
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
        for i in range(l1_count):
            line = {
                "layer": "L1",
                "content": f"临时合规规则{i}：{EXPIRE_ADVERTISER} 医药OTC 活动期内禁止使用“第{i}号”夸大疗效用语，活动已结束",
                "advertiser": EXPIRE_ADVERTISER,
                "source": "human",
                "importance": 9,
                "created_at": (now - timedelta(days=3)).isoformat(),
                "expires_at": (now - timedelta(minutes=1)).isoformat(),
            }
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    say(f"lifecycle: importing {count} L3 signals and {l1_count} L1 rules past their end")
    subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "memory", "import", str(path), "--no-embed", "--json"],
        env=env,
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    ids = set(Memory.objects.filter(advertiser=EXPIRE_ADVERTISER, status=Status.ACTIVE).values_list("id", flat=True))
    l1_ids = set(Memory.objects.filter(advertiser=EXPIRE_ADVERTISER, layer="L1").values_list("id", flat=True))
    traces_before = set(Trace.objects.filter(stage="lifecycle.expire").values_list("id", flat=True))
    audits_before = AuditLog.objects.filter(event_type=AuditEvent.MEMORY_L1_STATUS).count()
    started_at = timezone.now()

    say("lifecycle: two expiry tasks to the qclusters and two `memory maintain --task expire` runs, together")
    # The command runs in processes that are already up and connected, released together
    # with the tasks, so the runs overlap instead of the slower start-up deciding the order.
    # In `children`, so that a run failing from here on stops them with the servers.
    clis = []
    for _ in range(2):
        clis.append(
            subprocess.Popen(
                [sys.executable, "-c", _CLI_ON_SIGNAL],
                env=env,
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        )
        children.append(clis[-1])
    for proc in clis:
        if proc.stdout is None or proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the expiry command did not start")
    for proc in clis:
        if proc.stdin is not None:
            proc.stdin.write("go\n")
            proc.stdin.flush()
    task_ids = [async_task("lingix_site.tasks.expire", group="scale_out") for _ in range(2)]
    runs: list[dict[str, Any]] = []
    for proc in clis:
        printed, err = proc.communicate(timeout=300)
        span: dict[str, float]
        try:
            report, span = json.loads(printed)["expire"], json.loads(err.strip().splitlines()[-1])
        except (ValueError, KeyError, IndexError):
            report, span = {"error": err.strip()[-300:]}, {"start": time.time(), "end": time.time()}
        runs.append({"by": "cli", **span, "expired": report.get("expired"), "error": report.get("error")})
    deadline = time.monotonic() + 120
    while Task.objects.filter(id__in=task_ids).count() < len(task_ids) and time.monotonic() < deadline:
        time.sleep(0.5)
    for task in Task.objects.filter(id__in=task_ids):
        result = task.result if isinstance(task.result, dict) else {}
        runs.append(
            {
                "by": "qcluster",
                "start": task.started.timestamp(),
                "end": task.stopped.timestamp(),
                "expired": result.get("expired"),
                "error": None if task.success else str(task.result)[:300],
            }
        )
    # How many runs were under way at once, at the busiest moment.
    moments = sorted([(r["start"], 1) for r in runs] + [(r["end"], -1) for r in runs])
    overlap = peak = 0
    for _, step in moments:
        overlap += step
        peak = max(peak, overlap)
    t0 = min(r["start"] for r in runs)
    traced: Counter[int] = Counter()
    for scores in Trace.objects.filter(stage="lifecycle.expire").exclude(id__in=traces_before).values_list("scores", flat=True):
        traced.update(int(i) for i in (scores or {}).get("memory_ids", []))
    expired_now = set(Memory.objects.filter(pk__in=ids, status=Status.EXPIRED).values_list("id", flat=True))
    audit_rows = Counter(
        AuditLog.objects.filter(event_type=AuditEvent.MEMORY_L1_STATUS, created_at__gte=started_at).values_list("target_id", flat=True)
    )
    reported = sum(r["expired"] or 0 for r in runs)
    result = {
        "memories": len(ids),
        "l1_rules": len(l1_ids),
        "runs": [
            {
                **{k: v for k, v in r.items() if k not in ("start", "end")},
                "start_s": round(r["start"] - t0, 2),
                "end_s": round(r["end"] - t0, 2),
            }
            for r in sorted(runs, key=lambda r: r["start"])
        ],
        "runs_at_once_max": peak,
        "expired": len(expired_now),
        "reported_expired_sum": reported,
        "traced_once": sum(1 for i in ids if traced.get(i) == 1),
        "traced_twice_or_more": sum(1 for i in ids if traced.get(i, 0) > 1),
        "never_traced": sum(1 for i in ids if i not in traced),
        "l1_audit_rows": sum(audit_rows.values()),
        "l1_audited_twice_or_more": sum(1 for n in audit_rows.values() if n > 1),
        "audit_rows_before": audits_before,
    }
    result["exactly_once"] = (
        result["expired"] == len(ids)
        and reported == len(ids)
        and result["traced_once"] == len(ids)
        and result["l1_audit_rows"] == len(l1_ids)
        and not any(r["error"] for r in runs)
    )
    return result


def _kill_worker(base: str, tokens: list[str], gunicorn: subprocess.Popen, clients: int, seconds: float, say: Progress) -> dict[str, Any]:
    writers = [Writer(base, tokens[i], [KILL_ADVERTISERS[i % len(KILL_ADVERTISERS)]], seed=900 + i, phase="kill") for i in range(clients)]
    stop = threading.Event()
    start = threading.Barrier(clients + 1)
    threads = [threading.Thread(target=w.run, args=(stop, start)) for w in writers]
    for thread in threads:
        thread.start()
    try:
        start.wait(timeout=60)
        time.sleep(seconds / 3)
        # The busiest worker over a short window is the one most surely inside a request.
        workers = _children(gunicorn.pid)
        before = {pid: _cpu_ticks(pid) for pid in workers}
        time.sleep(0.3)
        victim = max(workers, key=lambda pid: _cpu_ticks(pid) - before[pid])
        killed_at = time.perf_counter()
        os.kill(victim, signal.SIGKILL)
        say(f"kill: SIGKILL to worker {victim} while {clients} clients write")
        time.sleep(seconds * 2 / 3)
    finally:
        stop.set()  # as in _drive: a failed run must not leave the writers looping
    for thread in threads:
        thread.join(timeout=300)
    records = [r for w in writers for r in w.records]
    respawned = sorted(set(_children(gunicorn.pid)) - set(workers))
    time.sleep(0.5)
    return {
        "killed_worker": victim,
        "workers_after": len(_children(gunicorn.pid)),
        "respawned": len(respawned),
        "writes": len(records),
        "requests_cut_by_the_kill": sum(1 for r in records if r["transport_failures"]),
        "retried_then_answered": sum(1 for r in records if r["transport_failures"] and r["status"] == 200),
        # A retry answered from the stored event: the cut request had committed before the
        # kill. Decided anew: whatever it had begun was rolled back with its connection.
        "cut_after_commit_replayed": sum(1 for r in records if r["transport_failures"] and (r["reply"] or {}).get("replayed")),
        "cut_before_commit_decided_anew": sum(
            1 for r in records if r["transport_failures"] and r["status"] == 200 and not (r["reply"] or {}).get("replayed")
        ),
        "first_answer_after_kill_s": round(
            min((r["end"] - killed_at for r in records if r["end"] > killed_at and r["status"] == 200), default=-1), 2
        ),
        "http_status": {str(k): v for k, v in sorted(Counter(r["status"] for r in records).items())},
        **_write_integrity(records, KILL_ADVERTISERS),
    }


def _limits(base: str, rate_token: str, slot_token: str, limit: int, clients: int, say: Progress) -> dict[str, Any]:
    per_client = max(1, (limit * 3) // clients)
    say(f"rate limit: {clients} parallel clients, {per_client} requests each, one token, {limit}/min")
    codes: Counter[int] = Counter()
    counted = threading.Lock()
    start = threading.Barrier(clients)

    def client() -> None:
        start.wait(timeout=60)
        for _ in range(per_client):
            code = _call(base, rate_token, "GET", "/api/v1/status", None)[0]
            with counted:
                codes[code] += 1

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)

    say(f"concurrency bound: waves of {clients} parallel writes on one token, limit {CONCURRENCY_LIMIT} in flight")
    waves = max(1, (limit - 1) // clients)
    accepted_per_wave = []
    refused_busy = 0
    rng = random.Random(11)
    for wave in range(waves):
        results: list[tuple[int, Any]] = []
        wave_start = threading.Barrier(clients)
        bodies = [_write_body(rng, WRITE_ADVERTISERS[0], 8_000_000 + wave * 100 + i) for i in range(clients)]

        def send(
            path: str, body: dict[str, Any], wave_start: threading.Barrier = wave_start, results: list[tuple[int, Any]] = results
        ) -> None:
            wave_start.wait(timeout=60)
            code, reply, _ = _call(base, slot_token, "POST", path, body)
            with counted:
                results.append((code, reply))

        threads = [threading.Thread(target=send, args=pb) for pb in bodies]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        accepted_per_wave.append(sum(1 for code, _ in results if code == 200))
        refused_busy += sum(1 for code, reply in results if code == 429 and "in progress" in str((reply or {}).get("detail", "")))
    return {
        "rate": {
            "limit_per_min": limit,
            "clients": clients,
            "requests": sum(codes.values()),
            "passed": codes.get(200, 0),
            "refused_429": codes.get(429, 0),
            "other": {str(k): v for k, v in codes.items() if k not in (200, 429)},
            "held": codes.get(200, 0) <= limit,
        },
        "concurrency": {
            "limit_in_flight": CONCURRENCY_LIMIT,
            "waves": waves,
            "clients_per_wave": clients,
            "accepted_per_wave": accepted_per_wave,
            "refused_as_busy": refused_busy,
            # A wave's requests start together behind a barrier; more than the limit
            # accepted in one wave means some ran side by side beyond the bound, unless an
            # earlier one had already finished (writes take far longer than the spread).
            "held": max(accepted_per_wave, default=0) <= CONCURRENCY_LIMIT,
        },
    }


# --- the run ----------------------------------------------------------------------------
def run(args: argparse.Namespace, say: Progress) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="lingix-scale-out-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "lingix_site.settings",
        "MEMORY_LLM_PROVIDER": "offline",
        "MEMORY_EMBEDDING_PROVIDER": "local",
        "Q_SYNC": "0",
        "Q_WORKERS": "1",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "MEMORY_ACCESS_ASYNC": "1",
        "MEMORY_API_RATE": "1000000/min",  # the write phases measure the funnel, not the throttle
        "MEMORY_API_CONCURRENCY": str(CONCURRENCY_LIMIT),
        # One BLAS/OpenMP thread per process: several processes share two cores.
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1"),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
    }
    env.pop("MEMORY_LLM_API_KEY", None)
    if args.sqlite:
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'scale_out.db'}"
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "MEMORY_LLM_PROVIDER", "MEMORY_EMBEDDING_PROVIDER")})
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    procs: list[subprocess.Popen] = []
    began = time.perf_counter()
    # The children run in sessions of their own, so no signal to the bench reaches them:
    # a SIGTERM (a timeout, an operator) must end the run through the `finally` below,
    # as an error does, or the workers and qclusters outlive it.
    previous_sigterm = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        say("migrating and loading the demo data")
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=REPO, env=env, check=True, capture_output=True)
        subprocess.run([sys.executable, "manage.py", "memory", "seed-demo", "--json"], cwd=REPO, env=env, check=True, capture_output=True)
        import django

        django.setup()
        from django.db import connection
        from django.utils import timezone
        from django_q.models import Schedule

        from api.services import api_token_create

        backend = connection.vendor
        # No scheduled job runs unasked: the write phases compare like with like, and the
        # lifecycle phase starts its own runs.
        Schedule.objects.update(next_run=timezone.now() + timedelta(days=1))

        def token(name: str, advertisers: list[str] | None = None) -> str:
            return api_token_create(name=name, advertisers=advertisers, all_advertisers=advertisers is None)[1]

        c = args.clients
        tokens = {
            "one_advertiser": [token(f"one-{i}", [WRITE_ADVERTISERS[0]]) for i in range(c)],
            "distinct_advertisers": [token(f"many-{i}", [WRITE_ADVERTISERS[i]]) for i in range(c)],
        }
        kill_tokens = [token(f"kill-{i}", [KILL_ADVERTISERS[i % len(KILL_ADVERTISERS)]]) for i in range(c)]
        reader = token("reader")
        rate_token, slot_token = token("rate", [WRITE_ADVERTISERS[0]]), token("slots", [WRITE_ADVERTISERS[0]])
        connection.close()

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        access_log = workdir / "access.log"
        say(f"starting gunicorn ({args.workers} workers x 4 threads) and two qclusters on {backend}")
        gunicorn = serve_gunicorn(env=env, workers=args.workers, port=port, log_path=workdir / "gunicorn.log", access_log=access_log)
        procs.append(gunicorn)
        qclusters = []
        for n in range(2):
            q_log = open(workdir / f"qcluster{n}.log", "w")  # noqa: SIM115 - closed once the child holds it
            qclusters.append(
                subprocess.Popen(
                    [sys.executable, "manage.py", "qcluster"],
                    cwd=REPO,
                    env=env,
                    stdout=q_log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
            procs.append(qclusters[-1])
            q_log.close()
        wait_until_serving(base, reader, gunicorn, name="gunicorn")
        # Warm every worker: the embedder and the index load on a worker's first search.
        for i in range(6 * args.workers):
            _call(base, reader, "POST", "/api/v1/search", {"query": f"出价 预算 {i}", "top_k": 3})
        resident_idle = _resident(gunicorn, qclusters)

        result: dict[str, Any] = {"backend": backend, "gunicorn_workers": args.workers, "qclusters": 2, "clients": c}
        # What else the machine was doing: the figures below share its two cores.
        result["load_average_at_start"] = round(os.getloadavg()[0], 2)
        postmaster = _postmaster_pid()
        service_pids = [gunicorn.pid, *(q.pid for q in qclusters), *([postmaster] if postmaster else [])]
        result["writes"] = _throughput(base, tokens, c, args.seconds, service_pids, say)
        result["visibility"] = _visibility(base, reader, access_log, args.workers, args.visibility_writes, say)
        result["resident_memory"] = {"after_warmup": resident_idle, "after_writes": _resident(gunicorn, qclusters)}
        result["lifecycle"] = _lifecycle(env, workdir, args.expire_memories, args.expire_l1, say, procs)
        connection.close()
        result["kill_9"] = _kill_worker(base, kill_tokens, gunicorn, c, args.kill_seconds, say)
        result["kill_9"].update(_postgres_leftovers())
        connection.close()

        say("restarting the web tier with the rate limit on")
        stop_process(gunicorn)
        env_limited = {**env, "MEMORY_API_RATE": f"{args.rate_limit}/min"}
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        gunicorn = serve_gunicorn(env=env_limited, workers=args.workers, port=port, log_path=workdir / "gunicorn-limited.log")
        procs.append(gunicorn)
        wait_until_serving(base, reader, gunicorn, name="gunicorn")
        result["limits"] = _limits(base, rate_token, slot_token, args.rate_limit, args.rate_clients, say)
        for proc in procs:
            stop_process(proc)
        logs = "".join((workdir / name).read_text(errors="replace") for name in os.listdir(workdir) if name.endswith(".log"))
        result["server_tracebacks_in_logs"] = logs.count("Traceback")
        result["database_locked_in_logs"] = logs.count("database is locked")
        w, life, kill, lim = result["writes"], result["lifecycle"], result["kill_9"], result["limits"]
        vis = result["visibility"]
        integrity = w["integrity"]
        result["ok"] = bool(
            integrity["lost_writes"] == 0
            and integrity["chains_with_two_active_versions"] == 0
            and vis["reads_by_another_worker"] > 0
            and vis["seen_by_another_worker"] == vis["reads_by_another_worker"]
            and vis["found_by_another_workers_search"] == vis["searches_by_another_worker"]
            and life["exactly_once"]
            and kill["lost_writes"] == 0
            and kill["duplicate_events_per_key"] == 0
            and kill["undecided_events"] == 0
            and kill["memories_no_event_names"] == 0
            and kill["chains_with_two_active_versions"] == 0
            and not kill.get("advisory_locks_held")
            and not kill.get("idle_in_transaction")
            and (lim["rate"]["held"] or backend != "postgresql")
            and (lim["concurrency"]["held"] or backend != "postgresql")
        )
        result["load_average_at_end"] = round(os.getloadavg()[0], 2)
        result["seconds_total"] = round(time.perf_counter() - began, 1)
        if args.keep:
            result["workdir"] = str(workdir)
        return result
    finally:
        signal.signal(signal.SIGTERM, previous_sigterm)
        _stop_all(procs)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _stop_all(procs: list[subprocess.Popen]) -> None:
    """Stop every child and its process group, each whatever happened to the one before
    (a leader that already died still gets its group swept)."""
    for proc in procs:
        try:
            stop_process(proc, grace=10)
        except (OSError, subprocess.SubprocessError) as exc:
            sys.stderr.write(f"bench.scale_out: could not stop pid {proc.pid}: {exc}\n")


def _render(r: dict[str, Any]) -> str:
    w = r["writes"]
    lines = [f"backend {r['backend']}, {r['gunicorn_workers']} gunicorn workers, 2 qclusters, {r['clients']} clients"]
    for name in ("one_advertiser", "distinct_advertisers"):
        x = w[name]
        lines.append(
            f"  {name:22s} {x['governed_writes_per_s']:6.2f} writes/s  p50 {x['latency_ms']['p50']} ms  p95 {x['latency_ms']['p95']} ms  {x['actions']}"
        )
    lines.append(f"  ratio {w['ratio_distinct_over_one']}   integrity {w['integrity']}")
    lines.append(f"visibility {r['visibility']}")
    lines.append(f"resident {json.dumps(r['resident_memory'], ensure_ascii=False)}")
    lines.append(f"lifecycle {json.dumps(r['lifecycle'], ensure_ascii=False)}")
    lines.append(f"kill -9 {json.dumps(r['kill_9'], ensure_ascii=False)}")
    lines.append(f"limits {json.dumps(r['limits'], ensure_ascii=False)}")
    lines.append(f"ok {r['ok']}  ({r['seconds_total']} s)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m bench.scale_out", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes (default 3)")
    parser.add_argument("--clients", type=int, default=4, help="writer clients in each write configuration (default 4)")
    parser.add_argument("--seconds", type=float, default=60.0, help="write seconds per configuration, over two rounds (default 60)")
    parser.add_argument("--visibility-writes", type=int, default=6, help="memories written and read back across workers (default 6)")
    parser.add_argument("--expire-memories", type=int, default=2000, help="L3 signals the overlapping expiry runs share (default 2000)")
    parser.add_argument("--expire-l1", type=int, default=20, help="L1 rules past their end date among them (default 20)")
    parser.add_argument("--kill-seconds", type=float, default=15.0, help="length of the kill -9 phase (default 15)")
    parser.add_argument("--rate-limit", type=int, default=30, help="requests per minute in the rate-limit phase (default 30)")
    parser.add_argument("--rate-clients", type=int, default=6, help="parallel clients racing one token (default 6)")
    parser.add_argument("--sqlite", action="store_true", help="run on a throwaway SQLite file instead of PostgreSQL")
    add_database_url_from_env(parser)
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, access log)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if min(args.workers, args.clients, args.rate_clients, args.rate_limit, args.visibility_writes) < 1 or args.seconds <= 0:
        parser.error("--workers, --clients, --rate-clients, --rate-limit and --visibility-writes must be at least 1, --seconds positive")
    if args.clients > len(WRITE_ADVERTISERS):
        parser.error(f"--clients is at most {len(WRITE_ADVERTISERS)}")
    if not args.sqlite or args.database_url_from_env:
        rerun = throwaway_postgres("bench.scale_out", argv, args, parser)
        if rerun is not None:
            return rerun
    say = Progress(args.quiet)
    result = run(args, say)
    emit(result, args.json, _render)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
