"""A scoped token's correction of a global memory never supersedes or reinforces it: the
global row stays active for everyone, and brand_B never sees brand_A's text."""

import pytest

from governance.models import ReviewItem
from memories.models import Memory

WRITE_SCOPE_PENDING = pytest.mark.xfail(
    strict=True,
    reason="a scoped contradiction of a global L2 memory is written as an advertiser exception, not parked for an operator",
)

CORRECTIONS = [
    ("用户纠正：美妆类目通用规则：ROI 低于 1.5 时出价下调 20%，不是 10%", "user"),
    ("纠正：美妆类目通用规则：ROI 低于 1.5 时出价下调 30%", "human"),
    ("Correction: 美妆类目通用规则 — when ROI < 1.5 cut the bid by 25%, not 10%", "user"),
]


@pytest.fixture
def global_l2(make_memory):
    return make_memory(
        "美妆类目通用规则：ROI 低于 1.5 时出价下调 10%",
        layer="L2",
        advertiser=None,
        source="human",
        business_line="美妆",
        category="出价",
    )


def _untouched(memory) -> None:
    before = (memory.status, memory.content, memory.reinforcement_count, memory.version)
    memory.refresh_from_db()
    assert (memory.status, memory.content, memory.reinforcement_count, memory.version) == before
    assert not Memory.objects.filter(supersedes=memory).exists()


@pytest.mark.parametrize("text, source", CORRECTIONS)
def test_a_scoped_correction_never_supersedes_a_global_memory(brand_a, global_l2, text, source):
    response = brand_a.post("/ingest", {"text": text, "source": source})
    assert response.status_code in {200, 403}, response.content
    _untouched(global_l2)


L1_CORRECTIONS = [
    ("纠正：医药OTC 类目全平台规则：处方药不得投放信息流广告，出价上限改为 5 元", "human"),
    ("用户纠正：医药OTC 类目全平台规则：出价上限改为 4 元", "user"),
    ("Correction: 医药OTC 全平台规则 — prescription drugs may run in feeds, bid cap 6 元", "user"),
]


@pytest.mark.parametrize("text, source", L1_CORRECTIONS)
def test_a_scoped_correction_of_a_global_l1_rule_leaves_it_active(brand_a, global_rule, text, source):
    response = brand_a.post("/ingest", {"text": text, "source": source})
    assert response.status_code in {200, 403}
    _untouched(global_rule)


def test_a_scoped_restatement_does_not_reinforce_a_global_memory(brand_a, global_l2):
    response = brand_a.post("/ingest", {"text": "用户确认：美妆类目通用规则：ROI 低于 1.5 时出价下调 10%", "source": "user"})
    assert response.status_code in {200, 403}
    _untouched(global_l2)


def _operator_only(brand_a, reviewer_a, memory, text) -> None:
    response = brand_a.post("/ingest", {"text": text, "source": "user"})
    item_id = response.json().get("review_item_id")
    assert item_id, response.content
    refused = reviewer_a.post(f"/review/{item_id}/approve", {"note": "brand_A 自己批准全局改动"})
    assert refused.status_code == 403, refused.content
    assert ReviewItem.objects.get(pk=item_id).status == "open"
    _untouched(memory)


def test_a_conflict_with_a_global_l1_rule_is_decided_only_by_an_operator(brand_a, reviewer_a, global_rule):
    _operator_only(brand_a, reviewer_a, global_rule, L1_CORRECTIONS[0][0])


@WRITE_SCOPE_PENDING
def test_a_conflict_with_a_global_l2_memory_is_decided_only_by_an_operator(brand_a, reviewer_a, global_l2):
    _operator_only(brand_a, reviewer_a, global_l2, CORRECTIONS[0][0])


def test_brand_b_still_reads_the_global_memory_after_brand_a_corrects_it(brand_a, brand_b, global_l2):
    for text, source in CORRECTIONS:
        brand_a.post("/ingest", {"text": text, "source": source})
    response = brand_b.post("/search", {"query": "美妆类目通用规则 ROI 出价下调", "top_k": 20})
    ids = [r["id"] for r in response.json()["results"]]
    assert global_l2.pk in ids
    detail = brand_b.get(f"/memories/{global_l2.pk}")
    assert detail.status_code == 200
    body = detail.content.decode()
    assert "brand_A" not in body and "25%" not in body and "30%" not in body and "20%，不是" not in body
