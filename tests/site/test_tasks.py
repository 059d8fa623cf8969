"""The django-q2 side: schedules declared once by the migration, and each task run
through async_task (Q_CLUSTER sync mode in the test settings)."""

from datetime import timedelta
from importlib import import_module

from django.apps import apps as django_apps
from django.utils import timezone
from django_q.models import Schedule, Task
from django_q.tasks import async_task, result

from memories.constants import Status
from memories.embeddings.store import memory_vectors
from memories.models import Memory

migration = import_module("lingix_site.migrations.0001_schedules")


def _callable(dotted: str):
    module, name = dotted.rsplit(".", 1)
    return getattr(import_module(module), name)


def test_every_schedule_is_declared_once_and_points_at_a_real_task(db):
    schedules = {s.name: s for s in Schedule.objects.all()}
    assert set(migration.SCHEDULES) <= set(schedules)
    funcs = {schedules[name].func for name in migration.SCHEDULES}
    assert funcs == {f"lingix_site.tasks.{t}" for t in ("expire", "promote", "evict", "backfill", "reflect", "snapshot")}
    for func in funcs:
        assert callable(_callable(func))
    assert all(schedules[name].repeats == -1 for name in migration.SCHEDULES)


def test_declaring_again_rewrites_old_paths_keeps_tuning_and_never_duplicates(db):
    # A database from before the move: the task module path was memories.tasks, and an
    # operator had retuned the interval in the admin.
    Schedule.objects.filter(name="lifecycle: expire L3").update(minutes=99, func="memories.tasks.expire")
    Schedule.objects.filter(name="reflection").delete()
    migration.Migration.operations[0].code(django_apps, None)
    expire = Schedule.objects.get(name="lifecycle: expire L3")
    assert (expire.func, expire.minutes) == ("lingix_site.tasks.expire", 99)
    reflection = Schedule.objects.get(name="reflection")
    assert (reflection.func, reflection.schedule_type, reflection.repeats) == ("lingix_site.tasks.reflect", "D", -1)
    assert Schedule.objects.filter(name__in=list(migration.SCHEDULES)).count() == len(migration.SCHEDULES)
    assert not Schedule.objects.filter(func__startswith="memories.").exists()


def test_reversing_the_migration_removes_only_the_schedules_it_declared(db):
    added = import_module("lingix_site.migrations.0003_vector_log_schedule")
    added.Migration.operations[0].reverse_code(django_apps, None)
    assert not Schedule.objects.filter(name__in=list(added.SCHEDULES)).exists()
    assert Schedule.objects.filter(name__in=list(migration.SCHEDULES)).count() == len(migration.SCHEDULES)


def test_the_vector_log_trim_is_scheduled_hourly_and_runs_through_the_queue(db):
    added = import_module("lingix_site.migrations.0003_vector_log_schedule")
    [(name, (func, schedule_type, _))] = added.SCHEDULES.items()
    schedule = Schedule.objects.get(name=name)
    assert schedule.func == func == "lingix_site.tasks.vector_log"
    assert (schedule.schedule_type, schedule.repeats) == ("H", -1)
    outcome = _run(func)
    assert outcome["pruned"] == 0


def _run(func: str):
    task_id = async_task(func)
    task = Task.objects.get(id=task_id)
    assert task.success, task.result
    return result(task_id)


def test_expire_task_runs_through_the_queue(make_memory):
    now = timezone.now()
    due = make_memory("brand_A 感冒药计划ROI异常下降到1.2", layer="L3", source="tool", expires_at=now - timedelta(minutes=5), embed=False)
    fresh = make_memory("brand_A 双十二预热CPM上涨25%", layer="L3", source="tool", expires_at=now + timedelta(hours=5), embed=False)
    outcome = _run("lingix_site.tasks.expire")
    assert outcome["expired"] == 1
    assert Memory.objects.get(pk=due.pk).status == Status.EXPIRED
    assert Memory.objects.get(pk=fresh.pk).status == Status.ACTIVE


def test_evict_task_reports_tiers_and_eviction(make_memory, policy):
    policy("L2", capacity_per_advertiser=1)
    old = make_memory(
        "brand_C 去年的耳机素材测试结论", advertiser="brand_C", importance=1, embed=False, created_at=timezone.now() - timedelta(days=300)
    )
    make_memory("brand_C 开学季预算提升40%后订单量增长55%", advertiser="brand_C", importance=7, embed=False)
    outcome = _run("lingix_site.tasks.evict")
    assert outcome["archived"] == 1 and outcome["memory_ids"] == [old.pk]
    assert outcome["tiers"]["evaluated"] == 2


def test_backfill_task_embeds_what_is_missing(make_memory):
    memory = make_memory("信息流素材疲劳周期约为7-10天", embed=False)
    assert memory_vectors([Memory.objects.get(pk=memory.pk)]) == [None]
    outcome = _run("lingix_site.tasks.backfill")
    assert outcome["embedded"] == 1
    memory.refresh_from_db()
    assert memory.embedding_dim == 384 and memory.embedding_model
    assert _run("lingix_site.tasks.backfill")["embedded"] == 0


def test_snapshot_task_stores_a_metrics_row(demo_memories):
    from governance.models import MetricSnapshot

    outcome = _run("lingix_site.tasks.snapshot")
    snapshot = MetricSnapshot.objects.get(pk=outcome["snapshot_id"])
    memories = snapshot.metrics["memories"]
    assert memories["total"] == len(demo_memories)
    assert sum(memories["active_by_layer"].values()) == memories["by_status"]["active"]
    assert snapshot.metrics["embeddings_missing_or_stale"] == 0
    assert "guard" in snapshot.metrics and "guardrail" in snapshot.metrics


def test_promote_task_proposes_a_mature_strategy(make_memory, policy):
    from governance.models import ReviewItem

    policy("L2", auto_promote=False)
    source = make_memory(
        "brand_B 大促前3天降低出价15%蓄水，大促当天提价30%；目标ROI 3.5，实际4.1",
        advertiser="brand_B",
        importance=8,
        grounding="grounded",
        embed=False,
        created_at=timezone.now() - timedelta(days=20),
    )
    young = make_memory("brand_B 新品首周达人种草，目标ROI 3.0，实际3.6", advertiser="brand_B", importance=8, embed=False)
    Memory.objects.filter(pk__in=[source.pk, young.pk]).update(access_count=5)
    outcome = _run("lingix_site.tasks.promote")
    assert (outcome["candidates"], outcome["proposed"]) == (1, 1)
    assert ReviewItem.objects.get(kind="promotion").memory_id == source.pk


def test_reflect_task_stores_a_report(make_memory):
    from governance.models import ReflectionReport

    make_memory("brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高35%", advertiser="brand_A", embed=False)
    make_memory("brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高12%", advertiser="brand_A", embed=False)
    outcome = _run("lingix_site.tasks.reflect")
    assert ReflectionReport.objects.get(pk=outcome["report_id"]).findings["counts"]["contradictions"] == 1
    assert outcome["run_by"] == "scheduler"
