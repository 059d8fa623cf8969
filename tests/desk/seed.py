"""A morning's queue, made by the real offline funnel from structured triggers: one
written strategy, a contradiction of it parked as a conflict, and a compliance rule an
agent relayed (L1 takes authoritative sources only, so it waits for a person)."""

from governance.intake.services import event_trigger

WRITTEN = "brand_A 美妆大促期间出价上调15%，ROI 从1.8升到2.3"
CONTRADICTION = "brand_A 美妆大促期间出价上调15%，ROI 从1.8降到1.5"
PARKED_L1 = "医药OTC 广告素材禁止出现“最佳”“第一”等极限词"
# A second strategy and its newer, contradicting result: the one a reviewer approves.
WRITTEN_B = "brand_A 口红新品首发期出价下调10%，ROI 从2.0升到2.6"
UPDATE_B = "brand_A 口红新品首发期出价下调10%，ROI 从2.0降到1.7"


def _feedback(
    summary: str, roi_after: float, *, action: str = "大促期间出价上调15%", conditions: str = "美妆大促、预算充足", roi_before: float = 1.8
):
    return event_trigger(
        event_type="user_feedback",
        advertiser="brand_A",
        source="user",
        layer="L2",
        business_line="美妆",
        summary=summary,
        actor="token:ops-agent",
        data={"attitude": "确认有效", "correct_action": action, "conditions": conditions, "roi_before": roi_before, "roi_after": roi_after},
    )


def seed_second_conflict():
    kwargs = {"action": "口红新品首发期出价下调10%", "conditions": "口红新品首发、冷启动期", "roi_before": 2.0}
    written = _feedback(WRITTEN_B, 2.6, **kwargs)
    conflict = _feedback(UPDATE_B, 1.7, **kwargs)
    assert written.action == "WRITE", written.reasons
    assert conflict.action == "PENDING_REVIEW", conflict.reasons
    return written, conflict


def seed_queue():
    written = _feedback(WRITTEN, 2.3)
    conflict = _feedback(CONTRADICTION, 1.5)
    parked = event_trigger(
        event_type="rule_update",
        source="tool",
        layer="L1",
        business_line="医药OTC",
        summary=PARKED_L1,
        actor="token:ops-agent",
        data={"issued_by": "平台合规部", "scope": "医药OTC 全部素材", "constraint": "禁止极限词"},
    )
    assert written.action == "WRITE", written.reasons
    assert conflict.action == "PENDING_REVIEW" and parked.action == "PENDING_REVIEW", (conflict.reasons, parked.reasons)
    return written, conflict, parked
