"""`memory maintain` and `memory reflect` through the real command."""

from collections import Counter
from datetime import timedelta

from django.utils import timezone

from governance.models import MetricSnapshot, ReflectionReport
from memories.constants import Status
from memories.models import Memory


def test_maintain_all_reports_what_each_task_did(demo_memories, make_memory, cli, policy):
    l2_by_scope = Counter(m.advertiser for m in demo_memories if m.layer == "L2")
    capacity = l2_by_scope["brand_A"] - 1
    policy("L2", capacity_per_advertiser=capacity)
    due = make_memory(
        "brand_A 感冒药计划今日ROI异常下降到1.2",
        layer="L3",
        advertiser="brand_A",
        source="tool",
        expires_at=timezone.now() - timedelta(minutes=1),
        embed=False,
    )

    code, body, err = cli("maintain", "--task", "all", "--json")

    assert code == 0, err
    assert set(body) == {"expire", "promote", "evict", "backfill", "organise", "snapshot", "vector-log"}
    assert body["expire"]["expired"] == 1 and body["expire"]["memory_ids"] == [due.pk]
    assert body["backfill"]["embedded"] == 1  # the memory made without an embedding
    assert body["promote"]["candidates"] == 1  # demo #9 is the one mature strategy (seed-demo proposes it; this import alone does not)
    # brand_A holds one L2 memory more than the capacity; any other scope over it loses its excess too.
    assert body["evict"]["archived"] == sum(max(0, n - capacity) for n in l2_by_scope.values())
    assert {"advertiser": "brand_A", "archived": 1} in [{k: s[k] for k in ("advertiser", "archived")} for s in body["evict"]["scopes"]]
    assert MetricSnapshot.objects.filter(pk=body["snapshot"]["snapshot_id"]).exists()
    assert Memory.objects.get(pk=due.pk).status == Status.EXPIRED


def test_maintain_one_task_with_a_drill_clock(demo_memories, cli):
    code, body, _ = cli("maintain", "--task", "expire", "--as-of", "2099-01-01T00:00:00+08:00", "--json")
    assert code == 0 and list(body) == ["expire"]
    # Every demo L3 signal has a 24 h TTL: in 2099 they are all past it.
    assert body["expire"]["expired"] == sum(1 for m in demo_memories if m.layer == "L3") > 0


def test_maintain_vector_log_exits_0_with_nothing_to_trim_or_no_log_at_all(db, cli):
    """SQLite with a short log: nothing removed, no marker written. PostgreSQL keeps no
    log (memories/lifecycle/vector_log.py): the task says so and succeeds."""
    from django.db import connection

    from memories.search.vectors import LOG_KEEP

    code, body, err = cli("maintain", "--task", "vector-log", "--json")
    assert code == 0, err
    if connection.vendor == "sqlite":
        assert body == {"vector-log": {"pruned": 0, "kept": 0, "keep": LOG_KEEP}}
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM memories_vectordeletion")
            assert cursor.fetchone()[0] == 0
    else:
        assert body["vector-log"]["pruned"] == 0
        assert body["vector-log"]["skipped"] == "PostgreSQL keeps no vector deletion log: nothing to prune"
    code, text, err = cli("maintain", "--task", "vector-log")
    assert code == 0 and text.splitlines()[:2] == ["vector-log:", "  pruned: 0"], err


def test_maintain_rejects_bad_input_in_one_line(db, cli):
    code, _, err = cli("maintain", "--task", "expire", "--as-of", "next tuesday", "--json")
    assert code == 1 and err.count("\n") == 1 and "--as-of" in err and "Traceback" not in err
    code, _, err = cli("maintain", "--task", "everything", "--json")
    assert code == 2 and "invalid choice" in err and err.count("\n") == 1


def test_reflect_json_returns_the_stored_report(demo_memories, make_memory, cli):
    make_memory("brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高12%", advertiser="brand_A", source="user", embed=False)

    code, body, err = cli("reflect", "--json")

    assert code == 0, err
    report = ReflectionReport.objects.get(pk=body["report_id"])
    assert body["summary"] == report.summary and body["window_days"] == 30
    [contradiction] = body["contradictions"]
    assert contradiction["type"] == "value" and contradiction["review_item_id"]
    assert body["counts"]["contradictions"] == 1 and body["run_by"] == "cli"


def test_reflect_rejects_a_bad_window(db, cli):
    code, _, err = cli("reflect", "--window-days", "0", "--json")
    assert code == 1 and "--window-days" in err and err.count("\n") == 1
