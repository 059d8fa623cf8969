"""Overturning a sampled audit of an automatic REJECT writes the refused memory through
the governed write path, with the reviewer in the event's trace and in the audit log."""

import pytest

from governance.constants import ReviewKind, ReviewStatus
from governance.funnel.errors import L1ApprovalForbidden, ReviewNotOpen, SelfReviewForbidden
from governance.intake.services import event_trigger
from governance.models import AuditLog, LayerPolicy, MemoryEvent, ReviewItem, Trace
from governance.review.audit import NotAnAuditedRefusal, review_can_overturn_write, review_overturn_write
from governance.review.services import review_approve, review_reject
from memories.models import Memory

REFUSED = "brand_B 医药OTC 每周一上午信息流点击率偏高"


def refused_with_audit(*, event_type: str = "periodic_pattern", summary: str = REFUSED, layer: str = "L2", data: dict | None = None):
    """A pattern the value stage refuses (seen once, no operating rule), sampled for audit."""
    LayerPolicy.objects.update(sampled_audit_rate=1.0)
    decision = event_trigger(
        event_type=event_type,
        advertiser="brand_B",
        source="user",
        layer=layer,
        business_line="医药OTC",
        summary=summary,
        actor="token:ops-agent",
        data=data if data is not None else {"period": "weekly"},
    )
    LayerPolicy.objects.update(sampled_audit_rate=0.0)
    assert decision.action == "REJECT", decision.reasons
    return decision, ReviewItem.objects.get(event_id=decision.event_id, kind=ReviewKind.SAMPLED_AUDIT)


@pytest.fixture
def audited(db):
    return refused_with_audit()


def test_overturn_writes_the_refused_memory_with_the_reviewer_in_the_trace(audited, reviewer):
    decision, item = audited
    assert review_can_overturn_write(item)
    before = Memory.objects.count()

    outcome = review_overturn_write(item=item, reviewer=reviewer, reviewer_name=reviewer.get_username(), note="人工复核：这条纠正有价值")

    assert outcome.action == "WRITE" and outcome.layer == "L2"
    memory = Memory.objects.get(pk=outcome.memory_id)
    assert Memory.objects.count() == before + 1
    assert (memory.content, memory.advertiser, memory.status) == (REFUSED, "brand_B", "active")
    item.refresh_from_db()
    assert (item.status, item.decision_correct) == (ReviewStatus.APPROVED, False)
    assert (item.reviewer_name, item.memory_id) == ("reviewer_li", memory.pk)
    event = MemoryEvent.objects.get(pk=decision.event_id)
    assert (event.action, event.memory_id, event.status) == ("WRITE", memory.pk, "resolved")
    review_trace = Trace.objects.filter(event_id=event.pk, stage="review").get()
    assert review_trace.scores["reviewer"] == "reviewer_li" and review_trace.memory_id == memory.pk
    assert "overturned by reviewer reviewer_li" in review_trace.reasons[0]
    assert AuditLog.objects.filter(event_type="review.overturned", target_id=str(item.pk), actor="reviewer_li").exists()

    with pytest.raises(ReviewNotOpen):
        review_overturn_write(item=item, reviewer=reviewer, reviewer_name="reviewer_li")


def test_overturn_keep_refused_records_the_verdict_and_writes_nothing(audited, reviewer):
    _, item = audited
    before = Memory.objects.count()
    review_reject(item=item, reviewer=reviewer, reviewer_name="reviewer_li", note="判断有误但不值得记", decision_correct=False)
    item.refresh_from_db()
    assert (item.status, item.decision_correct) == (ReviewStatus.REJECTED, False)
    assert Memory.objects.count() == before


def test_confirm_keeps_memory_unchanged(audited, reviewer):
    _, item = audited
    before = Memory.objects.count()
    review_approve(item=item, reviewer=reviewer, reviewer_name="reviewer_li", decision_correct=True)
    item.refresh_from_db()
    assert (item.status, item.decision_correct) == (ReviewStatus.APPROVED, True)
    assert Memory.objects.count() == before


def test_only_an_audited_reject_can_be_overturned_into_a_write(db, reviewer):
    LayerPolicy.objects.update(sampled_audit_rate=1.0)
    written = event_trigger(
        event_type="user_feedback",
        advertiser="brand_A",
        source="user",
        layer="L2",
        business_line="美妆",
        actor="token:ops-agent",
        summary="brand_A 美妆大促期间出价上调15%，ROI 从1.8升到2.3",
        data={
            "attitude": "确认有效",
            "correct_action": "大促期间出价上调15%",
            "conditions": "美妆大促",
            "roi_before": 1.8,
            "roi_after": 2.3,
        },
    )
    assert written.action == "WRITE", written.reasons
    item = ReviewItem.objects.get(event_id=written.event_id, kind=ReviewKind.SAMPLED_AUDIT)
    assert not review_can_overturn_write(item)
    with pytest.raises(NotAnAuditedRefusal):
        review_overturn_write(item=item, reviewer=reviewer, reviewer_name="reviewer_li")
    item.refresh_from_db()
    assert item.status == ReviewStatus.OPEN


def test_four_eyes_and_l1_still_apply(db, reviewer, django_user_model):
    _, item = refused_with_audit()
    proposer = django_user_model.objects.create_user(username="token:ops-agent", is_staff=True)
    with pytest.raises(SelfReviewForbidden):
        review_overturn_write(item=item, reviewer=proposer, reviewer_name="token:ops-agent")
    _, l1_item = refused_with_audit(
        event_type="rule_update", summary="医药OTC 素材禁止出现“根治”“包治”等绝对化用语", layer="L1", data={"scope": "医药OTC 全部素材"}
    )
    before = Memory.objects.count()
    with pytest.raises(L1ApprovalForbidden):
        review_overturn_write(item=l1_item, reviewer=reviewer, reviewer_name="reviewer_li")
    assert Memory.objects.count() == before
