"""The review queue: approval writes through the funnel's write path, rejection records
the verdict, four eyes, sampled audit, and the metrics built on reviews."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from governance.funnel.commit import audit_draw
from governance.metrics.guard import guard_metrics, guardrail_metrics
from governance.models import AuditLog, MemoryEvent, ReviewItem, Trace
from governance.review.selectors import review_item_get, review_queue
from governance.review.services import review_approve, review_item_create, review_reject
from memories.embeddings.store import memory_vectors
from memories.exceptions import DomainError
from memories.models import Memory

pytestmark = pytest.mark.django_db

RULE = "平台规定：医药OTC类目所有广告出价不得超过2元"


@pytest.fixture
def parked(ingest):
    d = ingest(RULE, source="user", actor="token:agent-1")
    assert d.action == "PENDING_REVIEW"
    return review_item_get(item_id=d.review_item_id)


def test_approve_writes_through_the_same_path_with_a_trace(parked, django_capture_on_commit_callbacks):
    from django.contrib.auth.models import Group

    reviewer = get_user_model().objects.create_user("lina", password="x" * 12)
    reviewer.groups.add(Group.objects.get(name="reviewer"))
    # A core rule is an operator's call: a reviewer (or an API token) cannot approve it.
    with pytest.raises(DomainError, match="only an operator"):
        review_approve(item=parked, reviewer=reviewer, reviewer_name="lina", note="合规部确认")
    with pytest.raises(DomainError, match="only an operator"):
        review_approve(item=parked, reviewer=None, reviewer_name="token:agent-a", note="合规部确认")
    reviewer.groups.add(Group.objects.get(name="operator"))
    reviewer = get_user_model().objects.get(pk=reviewer.pk)  # a fresh permission cache
    with django_capture_on_commit_callbacks(execute=True):
        d = review_approve(item=parked, reviewer=reviewer, reviewer_name="lina", note="合规部确认")
    assert d.action == "WRITE" and d.layer == "L1"
    memory = Memory.objects.get(pk=d.memory_id)
    assert memory.content == RULE and memory_vectors([memory])[0] is not None
    event = MemoryEvent.objects.get(pk=parked.event_id)
    assert event.status == "resolved" and event.memory_id == memory.pk and event.action == "WRITE"
    trace = Trace.objects.filter(event=event).order_by("-seq").first()
    assert trace.stage == "review" and "lina" in trace.reasons[0] and trace.memory_id == memory.pk
    parked.refresh_from_db()
    assert parked.status == "approved" and parked.reviewer == reviewer
    assert AuditLog.objects.filter(event_type="review.approved", actor="lina").exists()
    with pytest.raises(DomainError, match="already approved"):
        review_approve(item=parked, reviewer=None, reviewer_name="wang")


def test_reject_records_the_verdict_and_needs_a_note(parked):
    with pytest.raises(DomainError, match="note"):
        review_reject(item=parked, reviewer=None, reviewer_name="wang", note="  ")
    d = review_reject(item=parked, reviewer=None, reviewer_name="wang", note="不是平台规定", decision_correct=True)
    assert d.action == "REJECT" and d.memory_id is None
    parked.refresh_from_db()
    assert parked.status == "rejected" and parked.note == "不是平台规定" and parked.decision_correct is True
    assert MemoryEvent.objects.get(pk=parked.event_id).action == "REJECT"
    assert not Memory.objects.exists()


def test_proposer_may_not_review_own_item(parked):
    with pytest.raises(DomainError, match="may not decide"):
        review_approve(item=parked, reviewer=None, reviewer_name="token:agent-1")
    user = get_user_model().objects.create_user("zhao", password="x" * 12)
    own = review_item_create(kind="reflection", reason="重复记忆过多", proposed_by_user=user)
    with pytest.raises(DomainError):
        review_reject(item=own, reviewer=user, reviewer_name="zhao", note="n")
    assert ReviewItem.objects.get(pk=own.pk).status == "open"


def test_conflict_approval_supersedes(ingest):
    first = ingest("用户确认：brand_A 冷启动期出价上限1.5元", source="user", advertiser="brand_A")
    weaker = ingest("用户说：brand_A 冷启动期出价上限2元", source="user", advertiser="brand_A")
    item = review_item_get(item_id=weaker.review_item_id)
    d = review_approve(item=item, reviewer=None, reviewer_name="lina")
    assert d.action == "UPDATE"
    new = Memory.objects.get(pk=d.memory_id)
    assert new.supersedes_id == first.memory_id and new.version == 2


def test_promotion_item_writes_l4_derived_from_source(make_memory):
    source = make_memory("brand_A 冷启动期出价上浮20%，连续三次ROI达标", layer="L2", advertiser="brand_A", importance=8)
    Memory.objects.filter(pk=source.pk).update(created_at=timezone.now() - timedelta(days=60), access_count=10)
    item = review_item_create(
        kind="promotion",
        reason="mature L2",
        memory=source,
        proposed_by="job:promote",
        candidate={
            "content": "模板：新品冷启动期出价上浮20%，观察3天ROI",
            "layer": "L4",
            "source": "system",
            "source_attribution": "promotion",
            "importance": 8.5,
        },
    )
    d = review_approve(item=item, reviewer=None, reviewer_name="lina")
    l4 = Memory.objects.get(pk=d.memory_id)
    assert l4.layer == "L4" and list(l4.derived_from.all()) == [source]


def test_sampled_audit_is_deterministic_and_controllable(ingest, set_audit_rate):
    set_audit_rate(0.0)
    d0 = ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    assert not ReviewItem.objects.filter(kind="sampled_audit").exists()
    set_audit_rate(1.0)
    d1 = ingest("用户明确要求：brand_B 周末不要投放信息流", source="user", advertiser="brand_B")
    d2 = ingest("好的谢谢", source="user")
    audits = ReviewItem.objects.filter(kind="sampled_audit").order_by("id")
    assert [a.event_id for a in audits] == [d1.event_id, d2.event_id]
    assert audits[0].payload["auto_action"] == "WRITE" and audits[0].memory_id == d1.memory_id
    assert audits[1].payload["auto_action"] == "REJECT"
    assert audit_draw(d0.event_id) == audit_draw(d0.event_id)
    assert 0 <= audit_draw(12345) < 1


def test_guard_metrics_from_reviewed_audits(ingest, set_audit_rate):
    set_audit_rate(1.0)
    w1 = ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    w2 = ingest("用户明确要求：brand_B 周末不要投放信息流", source="user", advertiser="brand_B")
    r1 = ingest("好的谢谢", source="user")
    r2 = ingest("收到", source="user")
    audit = {i.event_id: i for i in ReviewItem.objects.filter(kind="sampled_audit")}
    review_approve(item=audit[w1.event_id], reviewer=None, reviewer_name="lina")
    review_reject(item=audit[w2.event_id], reviewer=None, reviewer_name="lina", note="写错了")
    review_approve(item=audit[r1.event_id], reviewer=None, reviewer_name="lina")
    review_reject(item=audit[r2.event_id], reviewer=None, reviewer_name="lina", note="应该记住")
    m = guard_metrics()
    assert (m["true_writes"], m["false_writes"], m["true_rejects"], m["false_rejects"]) == (1, 1, 1, 1)
    assert m["precision"] == 0.5 and m["recall"] == 0.5 and m["false_rejection_rate"] == 0.5
    assert Memory.objects.get(pk=w2.memory_id).status == "archived"
    assert Memory.objects.get(pk=w1.memory_id).status == "active"


def test_guardrail_metrics_from_data(ingest, make_memory):
    make_memory("旧记忆：brand_A 医药OTC类目出价上限1元", advertiser="brand_A")
    ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    ingest("你好", source="user")
    ingest("收到", source="user")
    m = guardrail_metrics(window_days=7)
    assert m["decisions"] == 3 and m["by_action"]["REJECT"] == 2 and m["reject_rate"] == round(2 / 3, 4)
    assert m["memories_created"] == 2 and m["growth_per_day"] == round(2 / 7, 3)


def test_review_queue_scoping(trigger):
    trigger("rule_update", summary="平台规定：brand_A 所有类目出价不得超过2元", source="user", advertiser="brand_A")
    trigger("rule_update", summary="平台规定：所有类目出价不得超过2元", source="tool")
    assert len(review_queue()) == 2
    assert {i.advertiser for i in review_queue(advertisers=("brand_B",))} == {None}
    with pytest.raises(DomainError):
        review_item_get(item_id=999999)


@pytest.mark.parametrize(
    ("kind", "payload", "needs_operator"),
    [
        ("pending_write", {"candidate": {"layer": "L1", "content": "平台规定：医药OTC出价不得超过2元"}}, True),
        ("conflict", {"candidate": {"layer": "L1", "content": "L1 rule update"}}, True),
        ("pending_write", {"candidate": {"layer": "L2", "content": "brand_A 晚间加价有效"}}, False),
        ("promotion", {"candidate": {"layer": "L4", "content": "大促出价模板"}}, False),
        # A sampled audit confirms a decision already taken; approving it writes nothing.
        ("sampled_audit", {"candidate": {"layer": "L1", "content": "已写入的规则"}}, False),
        ("pending_write", None, False),
        ("pending_write", {}, False),
    ],
)
def test_which_review_items_only_an_operator_may_approve(kind, payload, needs_operator):
    from governance.models import ReviewItem
    from governance.review.selectors import review_writes_l1

    assert review_writes_l1(ReviewItem(kind=kind, payload=payload)) is needs_operator
