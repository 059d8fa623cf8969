"""Concurrency: several client processes drive the real API served by several gunicorn
workers, then the database is audited.

    python -m bench.concurrency --json                      # SQLite (a throwaway file)
    python scripts/with_postgres.py -- python -m bench.concurrency --json --database-url-from-env

Each client process makes --calls requests: ingests (unique texts, some with an
idempotency key that every process also sends), structured triggers, and searches. After
the run it checks: zero 5xx and zero transport errors; zero lost writes (every decision
the API returned exists as an event whose stored text hashes to what was sent, and every
WRITE/UPDATE names a memory that exists, links back to that event and whose content hash
is right); zero duplicates for repeated idempotency keys (one event per key, every reply
carrying the same event id). Exit code 0 only when all hold."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench._common import REPO, api_request, emit, free_port, percentile, serve_gunicorn, text_sha256, wait_until_serving

SHARED_KEYS = [f"shared-turn-{i}" for i in range(10)]
PRODUCTS = ["感冒药", "维生素", "口红", "粉底液", "蓝牙耳机", "笔记本电脑", "面膜", "止咳糖浆"]


def _client(args: tuple[str, str, int, int]) -> list[dict[str, Any]]:
    base, token, worker, calls = args
    rng = random.Random(worker)
    records = []
    for n in range(calls):
        roll = rng.random()
        advertiser = rng.choice(["brand_A", "brand_B", "brand_C"])
        product = rng.choice(PRODUCTS)
        if roll < 0.35:
            shared = rng.random() < 0.1
            key = rng.choice(SHARED_KEYS) if shared else f"w{worker}-n{n}"
            if shared:
                # A shared key always carries the same request, as a real retry would.
                index = SHARED_KEYS.index(key)
                advertiser = ["brand_A", "brand_B", "brand_C"][index % 3]
                text = f"用户确认：{advertiser} 的{PRODUCTS[index % len(PRODUCTS)]}计划夜间出价上调，共享回合 {key}"
            else:
                text = f"用户纠正：{advertiser} {product}第{worker}-{n}号计划出价不要超过{rng.randint(1, 9)}.{rng.randint(0, 9)}元"
            body = {"text": text, "advertiser": advertiser, "source": "user", "idempotency_key": key}
            reply = api_request(base, token, "POST", "/api/v1/ingest", body, timeout=60)
            status, payload, seconds = reply.status, reply.payload(), reply.seconds
            records.append({"kind": "ingest", "status": status, "seconds": seconds, "key": key, "sha": text_sha256(text), "reply": payload})
        elif roll < 0.5:
            summary = f"{advertiser} {product} 冷启动第{worker}-{n}轮：目标ROI 3.0，实际{rng.randint(25, 45) / 10}"
            body = {
                "event_type": "strategy_execution",
                "advertiser": advertiser,
                "summary": summary,
                "source": "tool",
                "data": {
                    "strategy_used": "三阶段出价",
                    "target_metric": {"roi": 3.0},
                    "actual_metric": {"roi": 3.4},
                    "conditions": "冷启动期",
                    "cause": "分时段出价",
                },
            }
            reply = api_request(base, token, "POST", "/api/v1/trigger", body, timeout=60)
            status, payload, seconds = reply.status, reply.payload(), reply.seconds
            records.append({"kind": "trigger", "status": status, "seconds": seconds, "reply": payload})
        else:
            body = {"query": f"{product} 出价 预算", "advertiser": advertiser, "top_k": 5}
            reply = api_request(base, token, "POST", "/api/v1/search", body, timeout=60)
            status, payload, seconds = reply.status, reply.payload(), reply.seconds
            records.append(
                {
                    "kind": "search",
                    "status": status,
                    "seconds": seconds,
                    "scoped": all(r.get("advertiser") in (advertiser, None) for r in (payload or {}).get("results", [])),
                }
            )
    return records


def _audit(records: list[dict[str, Any]]) -> dict[str, Any]:
    from governance.models import MemoryEvent
    from memories.hashing import content_hash
    from memories.models import Memory

    problems: list[str] = []
    decisions = [r for r in records if r["kind"] in ("ingest", "trigger") and r["status"] == 200]
    event_ids = {r["reply"]["event_id"] for r in decisions}
    events = MemoryEvent.objects.in_bulk(list(event_ids))
    for r in decisions:
        event = events.get(r["reply"]["event_id"])
        if event is None:
            problems.append(f"lost event {r['reply']['event_id']}")
            continue
        if r["kind"] == "ingest" and text_sha256(event.raw_text) != r["sha"]:
            problems.append(f"event {event.pk} text differs from what was sent")
        if r["reply"]["action"] in ("WRITE", "UPDATE"):
            memory = Memory.objects.filter(pk=r["reply"]["memory_id"]).first()
            if memory is None:
                problems.append(f"lost memory {r['reply']['memory_id']}")
            elif memory.content_hash != content_hash(memory.content) or event.memory_id != memory.pk:
                problems.append(f"memory {memory.pk} hash or event link wrong")
    by_key: dict[str, set[int]] = {}
    for r in decisions:
        if r["kind"] == "ingest":
            by_key.setdefault(r["key"], set()).add(r["reply"]["event_id"])
    duplicates = {k: v for k, v in by_key.items() if len(v) != 1}
    stored_per_key = Counter(MemoryEvent.objects.filter(idempotency_key__in=list(by_key)).values_list("idempotency_key", flat=True))
    duplicates.update({k: n for k, n in stored_per_key.items() if n != 1})
    return {"problems": problems[:20], "problem_count": len(problems), "duplicate_keys": len(duplicates), "events_checked": len(event_ids)}


def run(*, processes: int, calls: int, workers: int, use_env_database: bool) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="lingix-concurrency-"))
    env = {**os.environ, "MEMORY_LLM_PROVIDER": "offline", "DJANGO_SETTINGS_MODULE": "lingix_site.settings", "MEMORY_ACCESS_ASYNC": "1"}
    if not use_env_database or not env.get("DATABASE_URL"):
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'concurrency.db'}"
    env["MEMORY_API_RATE"] = "100000/min"  # measuring concurrency, not the throttle
    python = sys.executable
    manage = [python, str(REPO / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput"], env=env, check=True, capture_output=True, cwd=REPO)
    subprocess.run([*manage, "memory", "seed-demo"], env=env, check=True, capture_output=True, cwd=REPO)
    created = subprocess.run(
        [*manage, "memory", "token", "create", "--name", "bench", "--all", "--json"],
        env=env,
        check=True,
        capture_output=True,
        cwd=REPO,
        text=True,
    )
    token = json.loads(created.stdout)["token"]
    port = free_port()
    server = serve_gunicorn(env=env, workers=workers, port=port, log_path=workdir / "gunicorn.log")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, token, server, name="gunicorn", timeout=90)
        started = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            batches = pool.map(_client, [(base, token, w, calls) for w in range(processes)])
        elapsed = time.perf_counter() - started
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
    records = [r for batch in batches for r in batch]
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "MEMORY_LLM_PROVIDER", "DJANGO_SETTINGS_MODULE")})
    import django

    django.setup()
    audit = _audit(records)
    statuses = Counter(r["status"] for r in records)
    server_log = (workdir / "gunicorn.log").read_text(errors="replace")
    shutil.rmtree(workdir, ignore_errors=True)
    from django.db import connection

    result = {
        "backend": connection.vendor,
        "processes": processes,
        "calls_per_process": calls,
        "gunicorn_workers": workers,
        "requests": len(records),
        "seconds": round(elapsed, 2),
        "requests_per_s": round(len(records) / elapsed, 1),
        "status_codes": {str(k): v for k, v in sorted(statuses.items())},
        "server_errors_5xx": sum(v for k, v in statuses.items() if k >= 500),
        "transport_errors": statuses.get(-1, 0),
        "database_locked_in_log": server_log.count("database is locked"),
        "scope_violations": sum(1 for r in records if r["kind"] == "search" and not r.get("scoped", True)),
        "actions": dict(Counter(r["reply"]["action"] for r in records if r["kind"] != "search" and r["status"] == 200)),
        "latency_ms": {
            kind: {
                "p50": round(percentile([r["seconds"] * 1000 for r in records if r["kind"] == kind], 50), 1),
                "p95": round(percentile([r["seconds"] * 1000 for r in records if r["kind"] == kind], 95), 1),
            }
            for kind in ("ingest", "trigger", "search")
        },
        "lost_writes": audit["problem_count"],
        "duplicate_idempotency_keys": audit["duplicate_keys"],
        "events_checked": audit["events_checked"],
        "problems": audit["problems"],
    }
    result["ok"] = not (
        result["server_errors_5xx"]
        or result["transport_errors"]
        or result["lost_writes"]
        or result["duplicate_idempotency_keys"]
        or result["database_locked_in_log"]
        or result["scope_violations"]
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=8, help="client processes (default 8)")
    parser.add_argument("--calls", type=int, default=500, help="requests per client process (default 500)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    parser.add_argument(
        "--database-url-from-env", action="store_true", help="use DATABASE_URL (e.g. PostgreSQL) instead of a throwaway SQLite file"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    result = run(processes=args.processes, calls=args.calls, workers=args.workers, use_env_database=args.database_url_from_env)
    emit(result, args.json, lambda r: json.dumps(r, ensure_ascii=False, indent=2))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
