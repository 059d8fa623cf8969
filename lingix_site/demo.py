"""Demo data for `make run`: about forty Chinese/English ad-ops memories, loaded once, and
a few open review items (one of each kind a reviewer meets) so the desk's first visit has
something to decide."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from governance.constants import Action, AuditEvent, ReviewKind
from governance.knowledge.entities.selectors import subject_identity
from governance.knowledge.organise.consolidate import consolidations_propose
from governance.knowledge.suggestions import suggestions_for_live_signals
from governance.lifecycle.promote import memories_promote
from governance.models import AuditLog
from governance.reasons import reason_columns
from governance.review.services import review_item_create
from governance.write.imports import memories_import
from memories.constants import Attribution, Grounding, Layer, Source
from memories.embeddings.store import embed_backfill
from memories.models import Memory
from textrules.claims import Claim, extract_claim, relate_claims
from textrules.reasons import Reason, ReasonCode

DEMO_FILE = Path(__file__).resolve().parent / "fixtures" / "demo_memories.jsonl"
DEMO_AGENT = "token:demo-ops-agent"

# An agent relays a user's correction of demo memory #10 (brand_A's evening bids). The user
# states it without data, so it is no stronger evidence than #10: a person decides.
CONFLICT_TARGET = 10
CONFLICT_TURNS = [
    {"role": "user", "content": "brand_A 晚间时段最近怎么样？"},
    {"role": "assistant", "content": "按现有经验，20点-23点会加大出价，该时段转化率比白天高35%。"},
    {"role": "user", "content": "不对，brand_A 晚间20点-23点现在要降低出价，这个时段转化率只比白天高5%。"},
]
# The funnel refused an assistant's idea that no user confirmed; the audit asks whether it was right to.
AUDITED_REFUSAL_TURNS = [
    {"role": "user", "content": "brand_C 耳机新品下周上线，素材怎么定？"},
    {"role": "assistant", "content": "建议 brand_C 耳机新品用低价促销素材拉量，首周点击率可能更高。"},
]


def _conflict_item() -> int:
    target = Memory.objects.get(pk=CONFLICT_TARGET)
    content = CONFLICT_TURNS[-1]["content"].removeprefix("不对，")
    identity = subject_identity(old_text=target.content, new_text=content, advertiser=target.advertiser)
    relation = relate_claims(extract_claim(content, advertiser=target.advertiser), Claim.from_dict(target.claim), identity=identity)
    signal = [str(relation.facet)] + ([f"{relation.old} → {relation.new}"] if relation.old or relation.new else [])
    item = review_item_create(
        kind=ReviewKind.CONFLICT,
        reason=Reason.of(ReasonCode.CONTRADICTS_NOT_STRONGER, id=target.pk, signal=signal),
        related_memory=target,
        advertiser=target.advertiser,
        candidate={
            "content": content,
            "layer": Layer.L2,
            "trigger_type": "user_feedback",
            "advertiser": target.advertiser,
            "business_line": target.business_line,
            "category": target.category,
            "source": Source.USER,
            "source_attribution": Attribution.USER_STATED,
            "grounding": Grounding.UNKNOWN,
            "confidence": 0.6,
            "importance": 6.0,
            "data": {},
            "turns": CONFLICT_TURNS,
            "supersedes": target.pk,
        },
        proposed_by=DEMO_AGENT,
    )
    return item.pk


def _audit_item() -> int:
    refused = Reason.of(ReasonCode.ASSISTANT_UNCONFIRMED, quote=AUDITED_REFUSAL_TURNS[-1]["content"][:40])
    item = review_item_create(
        kind=ReviewKind.SAMPLED_AUDIT,
        reason=Reason.of(ReasonCode.SAMPLED_AUDIT_OF, action=Action.REJECT),
        layer=Layer.L2,
        advertiser="brand_C",
        candidate={
            "content": AUDITED_REFUSAL_TURNS[-1]["content"],
            "layer": Layer.L2,
            "trigger_type": "strategy_execution",
            "advertiser": "brand_C",
            "business_line": "3c",
            "category": "数码3C",
            "source": Source.ASSISTANT,
            "source_attribution": Attribution.ASSISTANT_SUGGESTION,
            "grounding": Grounding.UNKNOWN,
            "confidence": 0.4,
            "importance": 5.0,
            "data": {},
            "turns": AUDITED_REFUSAL_TURNS,
        },
        payload={"auto_action": Action.REJECT, **reason_columns([refused])},
        proposed_by=DEMO_AGENT,
    )
    return item.pk


def demo_review_items() -> dict[str, list[int]]:
    """One open item of each kind, each opened by the service that opens it in production:
    the promotion and consolidation jobs find the demo's mature strategy (#9) and its three
    agreeing brand_B promotion episodes (#36, #44, #45); the conflict and the sampled audit
    are opened through review_item_create, as the funnel would have parked them."""
    now = timezone.now()
    promoted = memories_promote(now=now, actor="demo")
    with transaction.atomic():
        consolidated = consolidations_propose(now=now)
        return {
            ReviewKind.CONFLICT: [_conflict_item()],
            ReviewKind.SAMPLED_AUDIT: [_audit_item()],
            ReviewKind.CONSOLIDATION: [c["review_item_id"] for c in consolidated if c.get("review_item_id")],
            ReviewKind.PROMOTION: [o["review_item_id"] for o in promoted["outcomes"] if o.get("review_item_id")],
        }


def demo_load_once() -> dict[str, Any]:
    """Load the demo set unless it was loaded before (an audit entry remembers)."""
    if AuditLog.objects.filter(event_type=AuditEvent.MEMORY_IMPORT, extra_data__label="demo").exists():
        return {"loaded": False, "reason": "demo data was loaded before"}
    if Memory.objects.exists():
        # The demo lines carry their ids (the L4 templates name the L2 memories they came from).
        return {"loaded": False, "reason": "the database already holds memories"}
    report = memories_import(lines=DEMO_FILE.read_text(encoding="utf-8").splitlines(), actor="make run", label="demo", embed=False)
    embedded = embed_backfill()["embedded"]
    suggested = suggestions_for_live_signals(now=timezone.now())
    review_items = demo_review_items()
    return {"loaded": True, "imported": report.imported, "embedded": embedded, "suggestions": suggested, "review_items": review_items}
