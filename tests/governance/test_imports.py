"""Import is all-or-nothing and names the bad lines; export → import is lossless."""

import json
from datetime import timedelta

import pytest
from django.db import IntegrityError
from django.utils import timezone

from governance.models import AuditLog
from governance.write.imports import ImportFailed, memories_import
from memories.constants import Status
from memories.models import Memory
from memories.selectors import memories_for_export
from memories.storage import memory_reinforce, memory_set_status, memory_supersede
from memories.transfer import export_lines
from tests.conftest import jsonl

pytestmark = pytest.mark.django_db

GOOD = {"layer": "L2", "content": "brand_A 医药OTC冷启动前3天保守出价", "advertiser": "brand_A", "source": "human", "importance": 7}


def _import_audits() -> int:
    return AuditLog.objects.filter(event_type="memory.import").count()


def test_every_bad_line_is_named_and_nothing_is_written(make_memory):
    make_memory("已有的预算规则：单日预算调整不超过50%", layer="L1")
    before, audits = Memory.objects.count(), _import_audits()
    lines = jsonl(
        [
            GOOD,
            {**GOOD, "content": "大促期间CPM上涨25%", "layer": "L9"},
            {**GOOD, "content": "预算翻倍", "importance": 11},
        ]
    ) + ["{not json", json.dumps({**GOOD, "content": "   "}, ensure_ascii=False), json.dumps({**GOOD, "created_at": "yesterday"})]

    with pytest.raises(ImportFailed) as failed:
        memories_import(lines=lines, actor="test")

    errors = failed.value.errors
    assert [e.split(":")[0] for e in errors] == ["line 2", "line 3", "line 4", "line 5", "line 6"]
    assert "layer" in errors[0] and "importance" in errors[1] and "JSON" in errors[2]
    assert "content" in errors[3] and "created_at" in errors[4]
    assert Memory.objects.count() == before
    assert _import_audits() == audits


def test_a_reference_to_a_missing_memory_refuses_the_whole_file():
    lines = jsonl([GOOD, {**GOOD, "content": "第二版：冷启动前5天保守出价", "supersedes": 987654}])
    with pytest.raises(ImportFailed) as failed:
        memories_import(lines=lines, actor="test")
    assert failed.value.errors == ["line 2: supersedes 987654, which is neither in the file nor stored"]
    assert not Memory.objects.exists()


def test_a_failure_while_writing_rolls_back_the_lines_already_written():
    # Both lines pass validation; the second collides with the first on the primary key
    # only when written, after line 1 is already inserted inside the transaction.
    lines = jsonl([{**GOOD, "id": 500}, {**GOOD, "id": 500, "content": "另一条不同的记忆：美妆预算"}])
    with pytest.raises((ImportFailed, IntegrityError)):
        memories_import(lines=lines, actor="test")
    assert not Memory.objects.exists()
    assert _import_audits() == 0


def test_dry_run_validates_and_writes_nothing():
    report = memories_import(lines=jsonl([GOOD, {**GOOD, "content": "ROI目标3.0"}]), actor="test", dry_run=True)
    assert report.imported == 2 and report.dry_run
    assert not Memory.objects.exists()


def _export() -> list[dict]:
    return [json.loads(line) for line in export_lines(memories_for_export())]


def test_export_then_import_is_lossless(make_memory, django_capture_on_commit_callbacks):
    now = timezone.now()
    v1 = make_memory(
        "brand_A 晚间20点-23点加大出价",
        advertiser="brand_A",
        importance=6,
        confidence=0.7,
        data={"roi": 3.4, "hours": [20, 23]},
        business_line="pharma_otc",
        category="出价",
    )
    with django_capture_on_commit_callbacks(execute=True):
        v2 = memory_supersede(old=v1, content="brand_A 晚间20点-23点出价上调15%")
    with django_capture_on_commit_callbacks(execute=True):
        v3 = memory_supersede(old=v2, content="brand_A 晚间19点-23点出价上调15%，转化率高35%")
    signal = make_memory(
        "双十二大促CPM上涨25%", layer="L3", source="tool", expires_at=now + timedelta(hours=5), observed_at=now - timedelta(hours=1)
    )
    archived = make_memory(
        "brand_A Broad match without negatives wasted 25% of budget",
        advertiser="brand_A",
        importance=8,
        created_at=now - timedelta(days=40),
    )
    Memory.objects.filter(pk=archived.pk).update(access_count=3)
    memory_set_status(memory=archived, status=Status.ARCHIVED)
    memory_reinforce(memory=v3)
    # The template's sources are mature by their recorded fields, and in its own scope.
    template = make_memory("冷启动出价模板：阶段一保守出价", layer="L4", importance=8, advertiser="brand_A")
    template.derived_from.set([v3.pk, archived.pk])
    Memory.objects.filter(pk=v3.pk).update(
        access_count=4, last_accessed_at=now - timedelta(minutes=3), importance=7.5, created_at=now - timedelta(days=20)
    )

    exported = _export()
    assert [row["id"] for row in exported] == sorted(row["id"] for row in exported)
    assert {row["id"]: row["version"] for row in exported}[v3.pk] == 3

    # Wipe the store (the chain first: supersedes is PROTECTed), then restore from the export.
    Memory.objects.update(supersedes=None)
    Memory.objects.all().delete()
    lines = [json.dumps(row, ensure_ascii=False) for row in exported]
    with django_capture_on_commit_callbacks(execute=True):
        report = memories_import(lines=lines, actor="restore")
    assert report.imported == len(exported) and report.skipped == 0

    assert _export() == exported
    restored = Memory.objects.get(pk=v3.pk)
    assert restored.supersedes.supersedes_id == v1.pk and restored.supersedes.superseded_by == restored
    assert Memory.objects.get(pk=v1.pk).status == Status.SUPERSEDED
    assert Memory.objects.get(pk=archived.pk).status == Status.ARCHIVED
    assert restored.reinforcement_count == 1 and restored.access_count == 4
    assert sorted(Memory.objects.get(pk=template.pk).derived_from.values_list("pk", flat=True)) == sorted([v3.pk, archived.pk])
    assert Memory.objects.get(pk=signal.pk).expires_at == signal.expires_at


def test_importing_the_same_export_twice_skips_what_is_already_there(make_memory):
    make_memory("所有计划单日预算调整不超过50%", layer="L1", importance=10)
    lines = list(export_lines(memories_for_export()))
    report = memories_import(lines=lines, actor="test")
    assert (report.imported, report.skipped) == (0, 1)
    assert Memory.objects.count() == 1
