"""Soak: the web API and qcluster share one SQLite file under sustained load.

    python -m bench.soak --seconds 60 --json

It migrates a throwaway SQLite database, loads the demo data plus lifecycle work
(short-TTL L3 signals, over-capacity advertisers, mature L2 strategies with
auto-promotion on), then starts a real `runserver` and a real `qcluster` against it.
For the duration, writer threads send ingest/trigger requests and searcher threads send
searches over HTTP with a bearer token, while this process enqueues every lifecycle task
(expire, promote, evict, backfill, reflect, snapshot) every few seconds into the ORM
broker for qcluster to run. (qcluster's own scheduler only looks at schedules every 30 s
with a one-minute floor, so the declared schedules alone would run each task about once
a minute; they are also set due at start.)

Afterwards it checks: no "database is locked" anywhere (HTTP bodies, both servers' logs,
task results), no 5xx, no lost writes (every memory the API said it wrote still exists
with the content hash read back right after the write; one event per accepted request;
no row deleted), and every task run succeeded. Exit code 0 only when all hold."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench._common import api_request, free_port, stop_process, text_sha256, wait_until_serving

REPO = Path(__file__).resolve().parent.parent
TASKS = ("expire", "promote", "evict", "backfill", "reflect", "snapshot")
LOCKED = "database is locked"
ADVERTISER = "brand_soak"


_T0 = time.monotonic()


def _log(message: str, quiet: bool) -> None:
    if not quiet:
        sys.stderr.write(f"[soak {time.monotonic() - _T0:6.1f}s] {message}\n")
        sys.stderr.flush()


# --- the load -------------------------------------------------------------------
# Each write is assembled from independent slots, so two writes rarely share most of
# their wording (the funnel would read near-identical texts with other numbers as a
# contradiction and park them for review).
ADVERTISERS = [f"{ADVERTISER}_{i}" for i in range(1, 5)]
PRODUCTS = [
    "感冒药",
    "维生素",
    "口红",
    "面霜",
    "耳机",
    "笔记本电脑",
    "手机",
    "洗发水",
    "儿童用药",
    "防晒霜",
    "咖啡机",
    "跑鞋",
    "护眼台灯",
    "猫粮",
    "电动牙刷",
    "羽绒服",
    "保温杯",
    "蓝牙音箱",
    "精华液",
    "奶粉",
]
CHANNELS = ["信息流", "搜索广告", "短视频", "直播间", "开屏", "朋友圈", "应用商店", "达人合作"]
WHEN = [
    "今天上午",
    "今日午间",
    "今晚黄金时段",
    "本周一",
    "周末两天",
    "双十二预热期",
    "开学季首周",
    "年货节前夕",
    "换季降温后",
    "月底结算周",
]
CAUSES = [
    "竞品上线大额优惠券",
    "平台流量高峰到来",
    "落地页加载明显变慢",
    "节日预热正式开始",
    "素材审核出现延迟",
    "行业新规开始生效",
    "转化回传延迟",
    "头部主播临时加播",
    "区域性暴雨影响物流",
    "搜索热词突然飙升",
    "苹果新机发布分流",
    "账户余额不足触发限流",
]
IMPACTS = [
    "需要下调出价保住成本",
    "应临时追加预算抢量",
    "建议暂停低效计划",
    "需切换备用落地页",
    "要收紧定向人群",
    "应延后新素材上线",
    "需改投高转化时段",
    "要提高品牌词出价防守",
]
METRICS = ["CPM", "CPC", "CTR", "ROI", "转化率", "搜索量", "到达率", "下单量"]
CONDITIONS = ["新客人群", "老客召回", "一二线城市", "下沉市场", "女性25-34岁", "学生群体", "夜间时段", "工作日白天"]
ACTIONS = [
    "分时段出价",
    "人群包定向",
    "提高品牌词出价",
    "更换竖版视频素材",
    "开启智能扩量",
    "拆分新老客计划",
    "增加否定关键词",
    "改用oCPX出价",
]


def _trigger_payload(rng: random.Random, n: int) -> dict[str, Any]:
    metric, change = rng.choice(METRICS), rng.randint(5, 60)
    direction = rng.choice(["上涨", "下降"])
    hours = rng.choice([6, 12, 24, 48])
    summary = (
        f"{rng.choice(WHEN)}{rng.choice(CHANNELS)}{rng.choice(PRODUCTS)}：{rng.choice(CAUSES)}，"
        f"{metric}{direction}{change}%，持续约{hours}小时，{rng.choice(IMPACTS)}（观测{n}）"
    )
    return {
        "event_type": "environment_change",
        "advertiser": rng.choice(ADVERTISERS),
        "summary": summary,
        "source": "tool",
        "data": {
            "metric": metric,
            "change_pct": change if direction == "上涨" else -change,
            "ttl_hours": hours,
            "impact": "调整出价与预算",
            "observation": n,
        },
    }


def _ingest_payload(rng: random.Random, n: int) -> dict[str, Any]:
    before = round(rng.uniform(1.2, 2.5), 1)
    after = round(before + rng.uniform(0.6, 2.0), 1)
    text = (
        f"{rng.choice(PRODUCTS)}{rng.choice(CHANNELS)}计划因为采用{rng.choice(ACTIONS)}，ROI从{before}提升到{after}，"
        f"目标ROI {round(before + 0.5, 1)}，实际{after}；仅适用于{rng.choice(CONDITIONS)}（第{n}轮）。"
    )
    return {"text": text, "advertiser": rng.choice(ADVERTISERS), "source": "tool"}


QUERIES = [
    "出价",
    "预算调整",
    "ROI 下降 原因",
    "冷启动",
    "大促 出价策略",
    "CPM 上涨",
    "brand_soak 感冒药",
    "素材疲劳",
    "落地页加载",
    "conversion tracking",
    "口红 定向",
    "竞品优惠券",
]


@dataclass
class Stats:
    lock = threading.Lock()
    requests: Counter = field(default_factory=Counter)
    status: Counter = field(default_factory=Counter)
    decisions: Counter = field(default_factory=Counter)
    latency: dict[str, list[float]] = field(default_factory=lambda: {"write": [], "search": [], "read": []})
    written: dict[int, str] = field(default_factory=dict)
    write_ok: int = 0
    locked_bodies: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    client_errors: list[str] = field(default_factory=list)
    transport_errors: list[str] = field(default_factory=list)
    enqueued: Counter = field(default_factory=Counter)


class Client:
    def __init__(self, base: str, token: str, stats: Stats) -> None:
        self.base, self.token, self.stats = base, token, stats

    def call(self, method: str, path: str, body: dict | None, kind: str) -> tuple[int, Any]:
        reply = api_request(self.base, self.token, method, path, body, timeout=60)
        if reply.status == -1:
            with self.stats.lock:
                self.stats.transport_errors.append(f"{path}: {reply.failure}")
            return 0, None
        code, elapsed, text = reply.status, reply.seconds * 1000, reply.text
        with self.stats.lock:
            self.stats.requests[kind] += 1
            self.stats.status[code] += 1
            self.stats.latency[kind].append(elapsed)
            if LOCKED in text:
                self.stats.locked_bodies.append(f"{path} {code}: {text[:200]}")
            if code >= 500:
                self.stats.server_errors.append(f"{path} {code}: {text[:200]}")
            elif code >= 400:
                self.stats.client_errors.append(f"{path} {code}: {text[:200]}")
        return code, reply.payload()


def _writer(client: Client, seed: int, deadline: float) -> None:
    rng = random.Random(seed)
    n = 0
    while time.monotonic() < deadline:
        n += 1
        if rng.random() < 0.6:
            path, body = "/api/v1/trigger", _trigger_payload(rng, seed * 100000 + n)
        else:
            path, body = "/api/v1/ingest", _ingest_payload(rng, seed * 100000 + n)
        code, decision = client.call("POST", path, body, "write")
        if code != 200 or not isinstance(decision, dict):
            continue
        with client.stats.lock:
            client.stats.write_ok += 1
            client.stats.decisions[decision.get("action")] += 1
        memory_id = decision.get("memory_id")
        if decision.get("action") in {"WRITE", "UPDATE"} and memory_id:
            # Read it back at once: the hash of what the API stored is the reference the
            # final check compares against.
            code, memory = client.call("GET", f"/api/v1/memories/{memory_id}", None, "read")
            if code == 200 and isinstance(memory, dict) and "content" in memory:
                with client.stats.lock:
                    client.stats.written[int(memory_id)] = text_sha256(memory["content"])


def _searcher(client: Client, seed: int, deadline: float) -> None:
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        body = {"query": rng.choice(QUERIES), "top_k": rng.choice([3, 5, 10])}
        if rng.random() < 0.5:
            body["advertiser"] = rng.choice([*ADVERTISERS[:2], "brand_A", "brand_B"])
        client.call("POST", "/api/v1/search", body, "search")


def _task_pump(stats: Stats, interval: float, deadline: float, stop: threading.Event) -> None:
    """Enqueue every lifecycle task into the ORM broker; qcluster's workers run them."""
    from django.db import connection
    from django_q.tasks import async_task

    try:
        while time.monotonic() < deadline and not stop.is_set():
            for task in TASKS:
                async_task(f"lingix_site.tasks.{task}", group="soak")
                stats.enqueued[task] += 1
            stop.wait(interval)
    finally:
        connection.close()


# --- setup ----------------------------------------------------------------------
def _seed_lifecycle_work(seconds: float) -> dict[str, int]:
    """Work for every job, so each run during the soak changes something."""
    from django.db import transaction
    from django.utils import timezone
    from django_q.models import Schedule

    from governance.models import LayerPolicy
    from memories.models import Memory
    from memories.storage import memory_create

    now = timezone.now()
    made = Counter()
    with transaction.atomic():
        # expire: L3 signals whose TTL runs out one after another across the whole run
        for i in range(120):
            memory_create(
                layer="L3",
                content=f"{ADVERTISER} 实时信号{i}：短视频CPM临时上涨{i % 40 + 5}%（测试TTL）",
                advertiser=ADVERTISER,
                source="tool",
                importance=4,
                embed=False,
                expires_at=now + timedelta(seconds=2 + seconds * i / 120),
            )
            made["l3_short_ttl"] += 1
        # evict: an advertiser well over the L2 capacity, with old, unused memories
        for i in range(90):
            memory_create(
                layer="L2",
                content=f"brand_cap 旧策略{i}：{PRODUCTS[i % len(PRODUCTS)]}出价实验ROI {1 + i % 9 / 10}",
                advertiser="brand_cap",
                source="tool",
                importance=2 + i % 5,
                embed=False,
                created_at=now - timedelta(days=30 + i),
            )
            made["l2_over_capacity"] += 1
        # promote: mature, much-recalled L2 strategies
        for i in range(12):
            m = memory_create(
                layer="L2",
                content=f"brand_mature 成熟策略{i}：{PRODUCTS[i]}冷启动三阶段出价，目标ROI 3.0，实际3.{i % 9 + 1}",
                advertiser="brand_mature",
                source="tool",
                importance=8,
                embed=False,
                created_at=now - timedelta(days=40),
            )
            Memory.objects.filter(pk=m.pk).update(access_count=6)
            made["l2_mature"] += 1
        LayerPolicy.objects.filter(layer="L2").update(capacity_per_advertiser=60, auto_promote=True, promotion_min_age_days=14)
        LayerPolicy.objects.filter(layer="L3").update(capacity_per_advertiser=80)
        Schedule.objects.filter(func__startswith="lingix_site.tasks.").update(next_run=now)
    return dict(made)


def _manage(args: list[str], env: dict[str, str], quiet: bool) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


# --- the run --------------------------------------------------------------------
def run(
    *, seconds: float, writers: int, searchers: int, interval: float, quiet: bool, keep: bool, api_rate: str = "1000000/min"
) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="lingix-soak-"))
    db_path = workdir / "soak.db"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db_path}",
        "DJANGO_SETTINGS_MODULE": "lingix_site.settings",
        "MEMORY_LLM_PROVIDER": "offline",
        "MEMORY_EMBEDDING_PROVIDER": "local",
        "Q_SYNC": "0",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        # The soak measures the server under load, not the per-token rate limit.
        "MEMORY_API_RATE": api_rate,
        # One BLAS thread per process: with several processes on two cores, OpenBLAS's
        # own threads oversubscribe the CPU and a 20 ms query embedding takes seconds.
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1"),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
    }
    env.pop("MEMORY_LLM_API_KEY", None)
    os.environ.update(
        {k: env[k] for k in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "MEMORY_LLM_PROVIDER", "MEMORY_EMBEDDING_PROVIDER", "Q_SYNC")}
    )
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    procs: list[subprocess.Popen] = []
    try:
        _log(f"migrating {db_path}", quiet)
        _manage(["migrate", "--noinput"], env, quiet)
        _manage(["memory", "seed-demo", "--json"], env, quiet)
        token = json.loads(_manage(["memory", "token", "create", "--name", "soak", "--all", "--json"], env, quiet))["token"]

        import django

        django.setup()
        from django.db import connection
        from django.db.models import Count
        from django_q.models import OrmQ, Task

        from governance.models import MemoryEvent, MetricSnapshot, ReflectionReport, Trace
        from memories.models import Memory, SearchState

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        web_log = open(workdir / "web.log", "w")
        q_log = open(workdir / "qcluster.log", "w")
        web = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=REPO,
            env=env,
            stdout=web_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(web)
        qcluster = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=REPO, env=env, stdout=q_log, stderr=subprocess.STDOUT, start_new_session=True
        )
        procs.append(qcluster)
        wait_until_serving(base, token, web, name="runserver", timeout=90)
        # Seeded only now, so the short TTLs run out during the load, not during start-up.
        seeded = _seed_lifecycle_work(seconds)
        initial_rows = Memory.objects.count()
        initial_epoch = SearchState.objects.get(pk=1).epoch
        events_before = MemoryEvent.objects.filter(actor__icontains="soak").count()
        connection.close()
        _log(f"servers up on {base}; load for {seconds:.0f}s ({writers} writers, {searchers} searchers, tasks every {interval}s)", quiet)

        stats = Stats()
        client = Client(base, token, stats)
        started = time.monotonic()
        deadline = started + seconds
        stop = threading.Event()
        threads = [threading.Thread(target=_writer, args=(client, i + 1, deadline)) for i in range(writers)]
        threads += [threading.Thread(target=_searcher, args=(client, 1000 + i, deadline)) for i in range(searchers)]
        threads.append(threading.Thread(target=_task_pump, args=(stats, interval, deadline, stop)))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        load_seconds = time.monotonic() - started

        # Let qcluster drain what was enqueued before stopping it.
        drain_started = time.monotonic()
        while OrmQ.objects.count() and time.monotonic() - drain_started < 120:
            time.sleep(0.5)
        queue_left = OrmQ.objects.count()
        time.sleep(1.0)
        stop_process(qcluster)
        stop_process(web)
        web_log.close()
        q_log.close()
        _log("load done; verifying", quiet)

        # --- verification -----------------------------------------------------
        rows = {m.pk: m for m in Memory.objects.filter(pk__in=list(stats.written)).only("id", "content", "status")}
        missing = [i for i in stats.written if i not in rows]
        mismatched = [i for i, digest in stats.written.items() if i in rows and text_sha256(rows[i].content) != digest]
        events = MemoryEvent.objects.filter(actor__icontains="soak").count() - events_before
        deleted = SearchState.objects.get(pk=1).epoch != initial_epoch
        logs = {name: (workdir / name).read_text(errors="replace") for name in ("web.log", "qcluster.log")}
        log_locks = {name: text.count(LOCKED) for name, text in logs.items()}
        tasks = {}
        task_failures = []
        for task in TASKS:
            runs = Task.objects.filter(func=f"lingix_site.tasks.{task}")
            ok = runs.filter(success=True).count()
            failed = list(runs.filter(success=False).values_list("result", flat=True)[:3])
            tasks[task] = {"enqueued": stats.enqueued[task], "succeeded": ok, "failed": runs.count() - ok}
            task_failures += [f"{task}: {str(r)[:200]}" for r in failed]
        task_locks = sum(1 for f in task_failures if LOCKED in f)
        traces = dict(
            Trace.objects.filter(stage__startswith="lifecycle.").values_list("stage").annotate(n=Count("id")).values_list("stage", "n")
        )
        statuses = dict(Memory.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
        lock_errors = len(stats.locked_bodies) + sum(log_locks.values()) + task_locks
        result = {
            "seconds": round(load_seconds, 1),
            "database": "sqlite (WAL, IMMEDIATE, timeout 20)",
            "api_rate": api_rate,
            "writers": writers,
            "searchers": searchers,
            "task_interval_s": interval,
            "requests": dict(stats.requests),
            "http_status": {str(k): v for k, v in sorted(stats.status.items())},
            "throughput_rps": round(sum(stats.requests.values()) / load_seconds, 1) if load_seconds else 0,
            "latency_ms": {
                kind: {"p50": _percentile(v, 0.5), "p95": _percentile(v, 0.95), "max": _percentile(v, 1.0)}
                for kind, v in stats.latency.items()
            },
            "decisions": dict(stats.decisions),
            "writes": {
                "accepted_requests": stats.write_ok,
                "events_recorded": events,
                "memories_written": len(stats.written),
                "missing": len(missing),
                "content_hash_mismatches": len(mismatched),
                "rows_deleted": deleted,
                "rows_before": initial_rows,
                "rows_after": Memory.objects.count(),
            },
            "lock_errors": lock_errors,
            "lock_errors_by_place": {"http": len(stats.locked_bodies), **log_locks, "task_results": task_locks},
            "http_5xx": len(stats.server_errors),
            "http_4xx": len(stats.client_errors),
            "transport_errors": len(stats.transport_errors),
            "tasks": tasks,
            "task_queue_left": queue_left,
            "lifecycle": {
                "traces": traces,
                "memory_status": statuses,
                "embeddings_missing_at_end": Memory.objects.filter(embedding__isnull=True).count(),
                "l4_templates_promoted": Memory.objects.filter(layer="L4", source_attribution="promotion").count(),
                "reflection_reports": ReflectionReport.objects.count(),
                "metric_snapshots": MetricSnapshot.objects.count(),
            },
            "seeded": seeded,
            "samples": {
                "5xx": stats.server_errors[:3],
                "4xx": stats.client_errors[:3],
                "locked": stats.locked_bodies[:3],
                "task_failures": task_failures[:3],
                "transport": stats.transport_errors[:3],
            },
        }
        result["lost_writes"] = len(missing) + len(mismatched) + (1 if deleted else 0) + abs(events - stats.write_ok)
        result["ok"] = (
            lock_errors == 0
            and result["http_5xx"] == 0
            and result["lost_writes"] == 0
            and not task_failures
            and stats.write_ok > 0
            and stats.requests["search"] > 0
            and not stats.transport_errors
            and all(t["succeeded"] > 0 for t in tasks.values())
            and queue_left == 0
        )
        if keep:
            result["workdir"] = str(workdir)
        return result
    finally:
        for proc in procs:
            stop_process(proc, grace=5)
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to keep the load on (default 60)")
    parser.add_argument("--writers", type=int, default=2, help="concurrent writer threads (default 2)")
    parser.add_argument("--searchers", type=int, default=2, help="concurrent searcher threads (default 2)")
    parser.add_argument("--task-interval", type=float, default=3.0, help="seconds between task rounds (default 3)")
    parser.add_argument("--api-rate", default="1000000/min", help="MEMORY_API_RATE for the server (default: no practical limit)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (database and logs)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.writers < 1 or args.searchers < 0 or args.task_interval <= 0:
        parser.error("--seconds and --task-interval must be positive, --writers at least 1")
    result = run(
        seconds=args.seconds,
        writers=args.writers,
        searchers=args.searchers,
        interval=args.task_interval,
        quiet=args.quiet,
        keep=args.keep,
        api_rate=args.api_rate,
    )
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        w = result["writes"]
        print(
            f"soak {result['seconds']}s: {sum(result['requests'].values())} requests ({result['throughput_rps']}/s), "
            f"{w['memories_written']} memories written, lock errors {result['lock_errors']}, lost writes "
            f"{result['lost_writes']}, 5xx {result['http_5xx']}, tasks {json.dumps(result['tasks'])} → "
            f"{'OK' if result['ok'] else 'FAILED'}"
        )
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
