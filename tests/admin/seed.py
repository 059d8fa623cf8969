"""A morning's queue, made by the real offline funnel from structured triggers: one
written strategy, a contradiction of it parked as a conflict, and a compliance rule an
agent relayed (L1 takes authoritative sources only, so it waits for a person)."""
from governance.services import event_trigger

WRITTEN = "brand_A 美妆大促期间出价上调15%，ROI 从1.8升到2.3"
CONTRADICTION = "brand_A 美妆大促期间出价上调15%，ROI 从1.8降到1.5"
PARKED_L1 = "医药OTC 广告素材禁止出现“最佳”“第一”等极限词"


def _feedback(summary: str, roi_after: float):
    return event_trigger(
        event_type="user_feedback", advertiser="brand_A", source="user", layer="L2", business_line="美妆", summary=summary,
        actor="token:ops-agent",
        data={"attitude": "确认有效", "correct_action": "大促期间出价上调15%", "conditions": "美妆大促、预算充足", "roi_before": 1.8, "roi_after": roi_after},
    )


def seed_queue():
    written = _feedback(WRITTEN, 2.3)
    conflict = _feedback(CONTRADICTION, 1.5)
    parked = event_trigger(
        event_type="rule_update", source="tool", layer="L1", business_line="医药OTC", summary=PARKED_L1, actor="token:ops-agent",
        data={"issued_by": "平台合规部", "scope": "医药OTC 全部素材", "constraint": "禁止极限词"},
    )
    assert written.action == "WRITE", written.reasons
    assert conflict.action == "PENDING_REVIEW" and parked.action == "PENDING_REVIEW", (conflict.reasons, parked.reasons)
    return written, conflict, parked
