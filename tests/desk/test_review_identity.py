"""The review desk reads an identity question as the funnel does: two statements alike in
every part but the name of their subject. A parked item shows the conflict stage's own
verdict from its trace; an item opened without one (the demo's conflict item, an item an
operator opens by hand) has its relation read on the page, with the names asked of the
store the same way (governance.knowledge.entities.selectors.subject_identity)."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from desk.admin.review_compare import review_claims
from governance.constants import ReviewKind
from governance.models import ReviewItem, Trace
from governance.review.services import review_item_create
from memories.entity_links import memory_entities_replace
from memories.entity_vocabulary import Mention
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}

FLAGSHIP = "用户说：brand_tea 旗舰店奶茶团购不降价"
JINGAN = "用户要求：brand_tea 静安寺那家店奶茶团购可以降到15元"

pytestmark = pytest.mark.django_db


def _funnel_relation(decision, old_id: int) -> dict:
    """What the conflict stage recorded about the pair."""
    related = Trace.objects.get(event_id=decision.event_id, stage="conflict").scores["related"]
    found = next(r for r in related if r["id"] == old_id)
    return {"relation": found["relation"], "facet": found["signal"], "detail": found["detail"]}


def _untraced_item(*, content: str, target: Memory) -> ReviewItem:
    """The same proposal opened outside the funnel: no event, so no trace to read."""
    return review_item_create(
        kind=ReviewKind.CONFLICT,
        reason=Reason.of(ReasonCode.IDENTITY_UNCLEAR, id=target.pk, names=""),
        related_memory=target,
        advertiser=target.advertiser,
        candidate={"content": content, "layer": target.layer, "advertiser": target.advertiser, "supersedes": target.pk},
    )


def _relation_line(client, item) -> str:
    html = client.get(reverse("admin:governance_reviewitem_change", args=[item.pk]), **ZH).content.decode()
    start = html.index('id="claim-relation"')
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html[start : html.index("</p>", start)]))


def test_an_unknown_name_reads_as_the_same_identity_question_with_or_without_the_trace(reviewer_client, ingest):
    old = ingest(FLAGSHIP, source="user", advertiser="brand_tea")
    new = ingest(JINGAN, source="user", advertiser="brand_tea")
    assert new.action == "PENDING_REVIEW", new.reasons
    funnel = _funnel_relation(new, old.memory_id)
    assert funnel == {"relation": "ambiguous", "facet": "identity", "detail": "旗舰店 → 静安寺"}

    parked = ReviewItem.objects.get(pk=new.review_item_id)
    untraced = _untraced_item(content=JINGAN, target=Memory.objects.get(pk=old.memory_id))
    assert not untraced.event_id
    for item in (parked, untraced):
        with translation.override("zh-hans"):
            claims = review_claims(item)
        assert claims["target"].pk == old.memory_id
        assert (claims["relation"], claims["facet"], claims["detail"]) == ("主体不明确", "名称是否同一对象", "旗舰店 → 静安寺"), item
        line = _relation_line(reviewer_client, item)
        assert "主体不明确" in line and "名称是否同一对象" in line and "旗舰店 → 静安寺" in line, line


def test_names_the_store_holds_apart_read_as_two_things_on_the_desk_too(reviewer_client, ingest):
    gift = ingest("用户要求：brand_tea 爆款礼盒出价不超过2元", source="user", advertiser="brand_tea")
    other = ingest("用户要求：brand_tea 中秋礼盒日预算3000元", source="user", advertiser="brand_tea")
    for decision, name in ((gift, "爆款礼盒"), (other, "中秋礼盒")):
        memory_entities_replace(
            memory=Memory.objects.get(pk=decision.memory_id), links=[(Mention("category", name), "offline")], triples=[]
        )
    text = "用户要求：brand_tea 中秋礼盒出价上限3元"
    known = ingest(text, source="user", advertiser="brand_tea")
    assert known.action == "WRITE", known.reasons
    assert _funnel_relation(known, gift.memory_id) == {"relation": "compatible", "facet": "identity", "detail": "爆款礼盒 → 中秋礼盒"}

    # Without the names the desk read this pair as an unclear subject, which the funnel did not ask.
    item = _untraced_item(content=text, target=Memory.objects.get(pk=gift.memory_id))
    with translation.override("zh-hans"):
        claims = review_claims(item)
    assert (claims["relation"], claims["facet"], claims["detail"]) == ("兼容", "名称是否同一对象", "爆款礼盒 → 中秋礼盒")
    line = _relation_line(reviewer_client, item)
    assert "兼容" in line and "名称是否同一对象" in line, line
