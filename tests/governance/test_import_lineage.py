"""The trusted import keeps the stored lineage: an L4 line derives only from mature L2
memories of its own scope (stored, or restored by the same file with recorded age and
use), the layer judged is the stored one, a new version stays in its memory's scope, and
each refusal names its line."""

from datetime import timedelta

import pytest
from django.utils import timezone

from governance.write.imports import ImportFailed, memories_import
from memories.constants import Layer
from memories.models import Memory
from memories.selectors import memory_history
from memories.storage import memory_create
from tests.conftest import jsonl

pytestmark = pytest.mark.django_db

OLD = (timezone.now() - timedelta(days=60)).isoformat()


def _l2(**fields):
    """A mature L2 line by the default L2 policy (14 days, 3 uses, importance 7)."""
    return {
        "layer": "L2",
        "content": "brand_A 医药OTC 冷启动前3天保守出价，之后每日提价不超过10%",
        "advertiser": "brand_A",
        "source": "human",
        "importance": 8,
        "created_at": OLD,
        "access_count": 2,
        "reinforcement_count": 1,
        **fields,
    }


def _l4(derived_from, **fields):
    return {
        "layer": "L4",
        "content": "冷启动出价模板：前3天保守出价，之后每日提价不超过10%",
        "advertiser": "brand_A",
        "source": "system",
        "source_attribution": "promotion",
        "importance": 8,
        "derived_from": derived_from,
        **fields,
    }


def _stored(content, **fields):
    fields.setdefault("layer", Layer.L2)
    fields.setdefault("advertiser", "brand_A")
    fields.setdefault("source", "human")
    fields.setdefault("importance", 8)
    fields.setdefault("created_at", timezone.now() - timedelta(days=60))
    memory = memory_create(content=content, embed=False, **fields)
    Memory.objects.filter(pk=memory.pk).update(access_count=5)
    return memory


def _refused(lines) -> list[str]:
    before = Memory.objects.count()
    with pytest.raises(ImportFailed) as failed:
        memories_import(lines=jsonl(lines), actor="ops", embed=False)
    assert Memory.objects.count() == before
    return failed.value.errors


def test_an_l4_line_derived_from_a_mature_l2_line_of_the_same_file_is_restored():
    report = memories_import(lines=jsonl([_l2(id=9001), _l4([9001], id=9002)]), actor="ops", embed=False)
    assert report.imported == 2
    assert list(Memory.objects.get(pk=9002).derived_from.values_list("pk", flat=True)) == [9001]


def test_an_l4_line_derived_from_an_immature_l2_line_of_the_same_file_is_refused():
    immature = {k: v for k, v in _l2(id=9001).items() if k not in {"created_at", "access_count", "reinforcement_count"}}
    errors = _refused([immature, _l4([9001])])
    assert len(errors) == 1 and errors[0].startswith("line 2: memory 9001 (in this file) is not a mature L2 memory")
    assert "days old" in errors[0] and "recalls and reinforcements" in errors[0]


def test_each_missing_maturity_field_is_named():
    errors = _refused([_l2(id=9001, importance=5, grounding="unsupported"), _l4([9001])])
    assert errors[0].startswith("line 2:") and "importance 5" in errors[0] and "unsupported" in errors[0]


def test_a_stored_l3_relabelled_l2_in_the_file_is_judged_as_the_l3_it_is():
    signal = _stored("brand_A 双十二预热期CPM较上周上涨约25%", layer=Layer.L3, source="tool", observed_at=timezone.now())
    relabelled = _l2(id=signal.pk, content=signal.content)
    errors = _refused([relabelled, _l4([signal.pk])])
    assert errors == [f"line 2: memory {signal.pk} (stored) is not a mature L2 memory: it is L3, not L2"]


def test_an_l4_line_cannot_derive_from_another_advertisers_l2():
    theirs = _stored("brand_B 美妆新品首发期用达人种草+信息流组合投放，ROI 4.1", advertiser="brand_B")
    errors = _refused([_l4([theirs.pk])])
    assert errors == [f"line 1: an L4 template of brand_A cannot derive from memory {theirs.pk} of brand_B"]
    # A global template cannot borrow a tenant's experience either.
    assert _refused([_l4([theirs.pk], advertiser=None)])[0].startswith("line 1: an L4 template of global cannot derive")


def test_an_l4_line_derived_from_a_stored_mature_l2_of_its_scope_is_restored():
    ours = _stored("brand_A 晚间20点-23点加大出价，转化率比白天高35%")
    report = memories_import(lines=jsonl([_l4([ours.pk])]), actor="ops", embed=False)
    assert report.imported == 1
    template = Memory.objects.get(layer=Layer.L4)
    assert list(template.derived_from.values_list("pk", flat=True)) == [ours.pk]


def test_a_line_cannot_supersede_another_advertisers_memory():
    theirs = _stored("brand_B 美妆直播间晚8点投流 ROI 最高")
    Memory.objects.filter(pk=theirs.pk).update(advertiser="brand_B")
    line = _l2(content="brand_A 改写：直播间晚9点投流 ROI 最高", supersedes=theirs.pk)
    errors = _refused([_l2(content="brand_A 另一条无关的出价经验"), line])
    assert errors == [f"line 2: supersedes memory {theirs.pk} of brand_B; a new version stays in its memory's scope (brand_A)"]
    assert Memory.objects.get(pk=theirs.pk).status == "active"


def test_a_supersede_within_the_file_stays_in_one_scope_too():
    first = _l2(id=9101, advertiser="brand_B", content="brand_B 美妆出价上限 45 元")
    errors = _refused([first, _l2(id=9102, supersedes=9101, version=2)])
    assert errors[0].startswith("line 2: supersedes memory 9101 of brand_B")


def test_a_derivation_from_a_missing_memory_names_the_line():
    errors = _refused([_l2(), _l4([987654])])
    assert errors == ["line 2: derived from 987654, which is neither in the file nor stored"]


def test_history_is_filtered_by_the_callers_scope():
    # A chain that crossed scopes before these rules (written here through storage).
    from memories.storage import memory_supersede

    theirs = memory_create(content="brand_B 私有出价策略：夜间出价系数 0.7", layer="L2", advertiser="brand_B", embed=False)
    ours = memory_supersede(old=theirs, content="brand_A 夜间出价系数 0.8", advertiser="brand_A")
    assert [m.pk for m in memory_history(memory=ours, advertisers=None)] == [theirs.pk, ours.pk]
    assert [m.pk for m in memory_history(memory=ours, advertisers=("brand_A",))] == [ours.pk]
    assert memory_history(memory=ours, advertisers=("brand_C",)) == []
