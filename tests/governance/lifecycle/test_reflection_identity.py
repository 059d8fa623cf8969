"""Reflection reads an identity question as the funnel does: two active memories alike in
every part but the name of their subject are a contradiction only when the names are one
thing. Two names the store holds apart are two things (the funnel wrote them beside each
other); two names nobody has tied together are a question the funnel parks, not a
contradiction."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from governance.lifecycle.reflection import DEFAULT_REFLECTION, find_contradictions, reflect
from governance.models import ReviewItem, Trace
from memories.entity_links import memory_entities_replace
from memories.entity_vocabulary import Mention
from memories.models import Memory
from tests.clock import T0

pytestmark = pytest.mark.django_db

GIFT = "用户要求：brand_tea 爆款礼盒出价不超过2元"


def _funnel_relation(decision, old_id: int) -> tuple[str, str]:
    related = Trace.objects.get(event_id=decision.event_id, stage="conflict").scores["related"]
    found = next(r for r in related if r["id"] == old_id)
    return found["relation"], found["signal"]


def _contradicting_pairs() -> set[frozenset[int]]:
    return {frozenset((f["memory_id"], f["related_memory_id"])) for f in reflect(now=T0).findings["contradictions"]}


def _link(decision, name: str) -> None:
    memory_entities_replace(memory=Memory.objects.get(pk=decision.memory_id), links=[(Mention("category", name), "offline")], triples=[])


def test_names_the_store_holds_apart_are_no_contradiction_for_reflection(ingest):
    gift = ingest(GIFT, source="user", advertiser="brand_tea")
    mooncake = ingest("用户要求：brand_tea 中秋礼盒日预算3000元", source="user", advertiser="brand_tea")
    _link(gift, "爆款礼盒")
    _link(mooncake, "中秋礼盒")
    cap = ingest("用户要求：brand_tea 中秋礼盒出价上限3元", source="user", advertiser="brand_tea")
    assert cap.action == "WRITE", cap.reasons
    assert _funnel_relation(cap, gift.memory_id) == ("compatible", "identity")

    pairs = _contradicting_pairs()
    # Without the names, reflection read 2元 → 3元 as one bid cap changed.
    assert frozenset((gift.memory_id, cap.memory_id)) not in pairs, pairs
    assert not ReviewItem.objects.filter(payload__key=f"contradiction:{gift.memory_id}:{cap.memory_id}").exists()


def test_an_unknown_name_is_the_funnels_question_not_a_contradiction(ingest, make_memory):
    gift = ingest(GIFT, source="user", advertiser="brand_tea")
    text = "用户要求：brand_tea 红色礼盒出价上限改为3元"
    parked = ingest(text, source="user", advertiser="brand_tea")
    assert parked.action == "PENDING_REVIEW", parked.reasons
    assert _funnel_relation(parked, gift.memory_id) == ("ambiguous", "identity")
    # Loaded beside it by a trusted import, which asks no question: reflection reads the pair as the funnel did.
    red = make_memory(text, advertiser="brand_tea", source="human")
    same_box = make_memory("用户要求：brand_tea 爆款礼盒出价上限改为3元", advertiser="brand_tea", source="human")

    pairs = _contradicting_pairs()
    assert frozenset((gift.memory_id, red.pk)) not in pairs, pairs
    # One gift box, two caps: that one is a contradiction.
    assert frozenset((gift.memory_id, same_box.pk)) in pairs, pairs


def test_the_store_is_asked_about_a_scopes_names_once_not_pair_by_pair(make_memory):
    boxes = ("红色", "蓝色", "中秋", "周年", "爆款", "新春")
    for i, box in enumerate(boxes):
        make_memory(f"brand_tea {box}礼盒出价不超过{i + 2}元", advertiser="brand_tea", source="human")
    with CaptureQueriesContext(connection) as queries:
        assert find_contradictions(config=DEFAULT_REFLECTION) == []
    # 15 pairs, each an identity question; one read of the entities for the scope.
    asked = [q for q in queries.captured_queries if '"memories_entity"' in q["sql"]]
    assert len(asked) == 1, [q["sql"] for q in asked]
