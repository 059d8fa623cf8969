"""Overlapping lifecycle runs record each change once: three expiry runs at the same time
expire, report, trace and audit every memory exactly once, as a single run would. The
transition returns only the rows its own UPDATE changed, so a run whose selection went
stale reports nothing for the rows another run took first.

On SQLite the three runs are three processes on one database file (as a cron run beside
the scheduler would be; threads on the suite's shared-cache in-memory database would
fail on its table locks, which a WAL file never has). On PostgreSQL they are three
threads, each with its own connection to the test database."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection

from governance.constants import AuditEvent
from governance.lifecycle.expire import STAGE, memories_expire
from governance.models import AuditLog, Trace
from governance.write.hard_rules import Authority
from governance.write.memory import governed_lifecycle_transition
from memories.constants import Layer, Status
from memories.models import Memory
from memories.storage import memory_create
from tests.clock import T0
from tests.subprocess_env import isolated_env

REPO = Path(__file__).resolve().parents[3]

SIGNALS = [
    "brand_A 感冒药计划今日ROI异常下降到1.2，疑似落地页加载超时",
    "brand_B 美妆直播间在线人数骤降40%",
    "brand_A 双十二预热期CPM较上周上涨约25%",
    "brand_C 竞品今日上线大额优惠券",
]


def due_memories(count: int = 36) -> tuple[list[int], list[int]]:
    """`count` L3 signals and two L1 rules past their end date, committed."""
    signals = [
        memory_create(
            content=f"{SIGNALS[i % len(SIGNALS)]}（第{i}号计划）",
            layer=Layer.L3,
            advertiser=["brand_A", "brand_B", "brand_C"][i % 3],
            source="tool",
            observed_at=T0 - timedelta(hours=30),
            expires_at=T0 - timedelta(hours=1, minutes=i),
            embed=False,
        ).pk
        for i in range(count)
    ]
    rules = [
        memory_create(content=text, layer=Layer.L1, source="human", importance=10, expires_at=T0 - timedelta(minutes=5), embed=False).pk
        for text in ("双11活动期间所有计划单日预算上限 5 万元", "618 大促期间禁止投放竞品词")
    ]
    return signals, rules


def _in_threads(count: int, run) -> list:
    """Run `run` in `count` threads released together; each closes its own connection."""
    start = threading.Barrier(count)
    results: list = [None] * count
    failures: list[BaseException] = []

    def worker(slot: int) -> None:
        try:
            start.wait(timeout=30)
            results[slot] = run()
        except BaseException as exc:  # reported to the test below
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    return results


@pytest.mark.django_db(transaction=True)
def test_three_overlapping_expiry_threads_record_each_memory_once_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite runs them as processes on a database file (the next test)")
    signals, rules = due_memories()
    due = set(signals) | set(rules)

    reports = _in_threads(3, lambda: memories_expire(now=T0, batch_size=5, actor="overlap"))

    # Reported once: the three reports add up to the memories that expired, no more.
    assert sum(r["expired"] for r in reports) == len(due)
    assert sum(sum(r["by_layer"].values()) for r in reports) == len(due)
    assert set(Memory.objects.filter(status=Status.EXPIRED).values_list("id", flat=True)) == due
    # Traced once: each memory appears in exactly one expiry trace.
    traced = Counter(i for t in Trace.objects.filter(stage=STAGE) for i in t.scores["memory_ids"])
    assert set(traced) == due and set(traced.values()) == {1}
    # Audited once: each L1 rule has one status row.
    audited = Counter(AuditLog.objects.filter(event_type=AuditEvent.MEMORY_L1_STATUS).values_list("target_id", flat=True))
    assert audited == Counter({str(pk): 1 for pk in rules})


@pytest.mark.slow
def test_three_overlapping_expiry_processes_record_each_memory_once_on_sqlite(tmp_path):
    database = tmp_path / "lingix.db"
    env = isolated_env(DATABASE_URL=f"sqlite:///{database}", DJANGO_SETTINGS_MODULE="lingix_site.test_settings")

    def child(*args: str, **popen) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, *args], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen
        )

    migrate = child("manage.py", "migrate", "--noinput", "-v", "0")
    assert migrate.wait(timeout=300) == 0, migrate.stderr.read()[-2000:]
    # Enough batches of 5 that the three runs take turns on the write lock.
    seed = child("-m", "tests.governance.lifecycle.overlap_child", "seed", "400")
    out, err = seed.communicate(timeout=300)
    assert seed.returncode == 0, err[-2000:]
    seeded = json.loads(out.strip().splitlines()[-1])
    due, rules = set(seeded["signals"]) | set(seeded["rules"]), seeded["rules"]

    # Every child loads Django and says it is ready; then all three are let go at once.
    go = tmp_path / "go"
    runs = [child("-m", "tests.governance.lifecycle.overlap_child", "expire", str(go), f"run-{i}") for i in range(3)]
    deadline = time.time() + 240
    while len(list(tmp_path.glob("go.ready-*"))) < len(runs) and time.time() < deadline:
        time.sleep(0.05)
    go.touch()
    reports = []
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err[-2000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))

    assert sum(r["expired"] for r in reports) == len(due), reports
    # The three runs start together (the barrier above), but SQLite's single writer may hand
    # every batch to one of them; which memories each run took is not asserted, only that
    # together they expired, traced and audited each memory once. The stale-selection test
    # in this module forces the race deterministically.
    with sqlite3.connect(database) as db:
        expired = {pk for (pk,) in db.execute("SELECT id FROM memories_memory WHERE status = 'expired'")}
        traces = [json.loads(scores) for (scores,) in db.execute("SELECT scores FROM governance_trace WHERE stage = ?", (STAGE,))]
        audited = Counter(
            target
            for (target,) in db.execute(
                "SELECT target_id FROM governance_auditlog WHERE event_type = ?", (AuditEvent.MEMORY_L1_STATUS.value,)
            )
        )
    assert expired == due
    traced = Counter(i for scores in traces for i in scores["memory_ids"])
    assert set(traced) == due and set(traced.values()) == {1}
    assert audited == Counter({str(pk): 1 for pk in rules})


@pytest.mark.django_db(transaction=True)
def test_a_transition_with_a_stale_selection_changes_and_reports_nothing():
    signals, rules = due_memories(6)
    selection = signals + rules  # chosen by two runs before either moved anything
    authority = Authority.lifecycle("overlap")

    def move() -> list[int]:
        return governed_lifecycle_transition(
            memory_ids=selection, from_status=Status.ACTIVE, to_status=Status.EXPIRED, at=T0, authority=authority, expired_by=T0
        )

    first, second = move(), move()
    assert sorted(first) == sorted(selection) and second == []
    assert AuditLog.objects.filter(event_type=AuditEvent.MEMORY_L1_STATUS).count() == len(rules)


@pytest.mark.django_db(transaction=True)
def test_a_ttl_extended_after_the_selection_keeps_the_memory_active():
    signals, _ = due_memories(2)
    Memory.objects.filter(pk=signals[0]).update(expires_at=T0 + timedelta(hours=6))  # a person extended it meanwhile
    moved = governed_lifecycle_transition(
        memory_ids=signals, from_status=Status.ACTIVE, to_status=Status.EXPIRED, at=T0, authority=Authority.lifecycle("t"), expired_by=T0
    )
    assert moved == [signals[1]]
    assert Memory.objects.get(pk=signals[0]).status == Status.ACTIVE


@pytest.mark.django_db(transaction=True)
def test_an_archiving_job_never_moves_an_l1_rule():
    _, rules = due_memories(0)
    moved = governed_lifecycle_transition(
        memory_ids=rules, from_status=Status.ACTIVE, to_status=Status.ARCHIVED, at=T0, authority=Authority.lifecycle("t")
    )
    assert moved == [] and set(Memory.objects.filter(pk__in=rules).values_list("status", flat=True)) == {Status.ACTIVE}
