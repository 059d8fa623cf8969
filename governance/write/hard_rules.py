"""The hard layer rules, written once.

They are code, not LayerPolicy fields, so no admin edit can switch them off, and the one
write function (governance.write.memory) checks them whatever path called it: the funnel,
an approval from the admin, CLI or API, an admin edit, a trusted import, promotion.
The funnel's deterministic stages ask the same functions first, so an automatic decision
and a later write can never disagree about a rule.

- L4 is written only by promotion of an existing mature L2 memory.
- L1 is written only from an authoritative source, or by an operator's approval.
- Agent inference reaches L1 or L2 only through a person's approval.
- L3 needs an observation time; its TTL counts from that time (l3_expires_at).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import models
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from governance.models import LayerPolicy
from memories.constants import Attribution, Grounding, Layer, Source, Status
from memories.exceptions import DomainError
from memories.models import Memory
from textrules.reasons import Reason, ReasonCode

AUTHORITATIVE_SOURCES = frozenset({Source.HUMAN, Source.SYSTEM})
AUTHORITATIVE_ATTRIBUTIONS = frozenset({Attribution.HUMAN_CONFIG, Attribution.RULE_UPDATE})
DEFAULT_L3_TTL_HOURS = 24


class HardRule(models.TextChoices):
    L4_PROMOTION_ONLY = "l4_promotion_only", _("L4 is written only by promotion of a mature L2 memory")
    L1_AUTHORITATIVE = "l1_authoritative", _("L1 is written only from an authoritative source or by an operator")
    AGENT_INFERENCE_NEEDS_PERSON = "agent_inference_needs_person", _("agent inference reaches L1/L2 only through a person's approval")
    L3_OBSERVATION = "l3_observation", _("L3 needs an observation time; its TTL counts from it")
    SCOPE = "scope", _("a proposal never changes a memory outside its own scope without an operator")


# The layers each rule binds, for the layer-policy page (desk/admin/layer_policy.py), which
# shows the rules in these same words.
HARD_RULE_LAYERS: dict[HardRule, tuple[Layer, ...]] = {
    HardRule.L1_AUTHORITATIVE: (Layer.L1,),
    HardRule.AGENT_INFERENCE_NEEDS_PERSON: (Layer.L1, Layer.L2),
    HardRule.L3_OBSERVATION: (Layer.L3,),
    HardRule.L4_PROMOTION_ONLY: (Layer.L4,),
    HardRule.SCOPE: (Layer.L1, Layer.L2, Layer.L3, Layer.L4),
}


def hard_rules_for(layer: str) -> list[HardRule]:
    """The hard rules that bind one layer, in HardRule's order."""
    return [rule for rule in HardRule if layer in HARD_RULE_LAYERS[rule]]


class WriteOrigin(models.TextChoices):
    """Why a memory is being written; the rules read it together with who decided."""

    FUNNEL = "funnel", _("automatic funnel decision")
    APPROVAL = "approval", _("a person approved a review item")
    ADMIN_EDIT = "admin_edit", _("a person edited it in the admin")
    IMPORT = "import", _("trusted import by an operator")
    PROMOTION = "promotion", _("controlled promotion of a mature L2 memory")
    LIFECYCLE = "lifecycle", _("scheduled lifecycle job")


@dataclass(frozen=True)
class Authority:
    """Who stands behind a write. `person` means a named human decided it; `operator`
    means that human may change L1 (the edit_l1_memory permission, or shell access)."""

    origin: WriteOrigin
    actor: str
    person: bool = False
    operator: bool = False

    @classmethod
    def funnel(cls, actor: str) -> Authority:
        return cls(origin=WriteOrigin.FUNNEL, actor=actor)

    @classmethod
    def lifecycle(cls, actor: str, *, origin: WriteOrigin = WriteOrigin.LIFECYCLE) -> Authority:
        return cls(origin=origin, actor=actor)


class HardRuleViolation(DomainError):
    """A write the hard layer rules refuse. The API answers 403, the admin shows the
    message, the CLI prints it on one line."""

    http_status = 403

    def __init__(self, rule: HardRule, message: str):
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True)
class Refusal:
    rule: HardRule
    reason: Reason


def l3_ttl_hours(policy: LayerPolicy | None = None) -> int:
    """The one place that knows the L3 default TTL: the L3 LayerPolicy (given, or read),
    else 24 h."""
    hours = (
        policy.default_ttl_hours
        if policy is not None
        else (LayerPolicy.objects.filter(layer=Layer.L3).values_list("default_ttl_hours", flat=True).first())
    )
    return int(hours) if hours else DEFAULT_L3_TTL_HOURS


def l3_expires_at(observed_at: datetime, *, ttl_hours: int | None = None) -> datetime:
    return observed_at + timedelta(hours=ttl_hours if ttl_hours is not None else l3_ttl_hours())


def mature_l2(queryset: QuerySet[Memory], *, now: datetime, policy: LayerPolicy) -> QuerySet[Memory]:
    """What "mature" means for promotion, by the L2 policy: active, old, used and important
    enough, and not unsupported. Promotion selects with it; the write function re-checks it."""
    return (
        queryset.filter(
            layer=Layer.L2,
            status=Status.ACTIVE,
            created_at__lte=now - timedelta(days=policy.promotion_min_age_days),
            importance__gte=policy.promotion_min_importance,
        )
        .alias(uses=F("access_count") + F("reinforcement_count"))
        .filter(uses__gte=policy.promotion_min_recalls)
        .exclude(grounding=Grounding.UNSUPPORTED)
    )


def l2_maturity_gaps(memory: Memory, *, now: datetime, policy: LayerPolicy) -> list[str]:
    """What keeps one L2 row, as its fields record it, from being mature: the age, use,
    importance and grounding parts of mature_l2, read from the object rather than the
    table, so a trusted import can judge a line that is not stored yet. Status is the
    caller's to judge (a restored chain may hold a source superseded after its promotion)."""
    gaps = []
    if memory.layer != Layer.L2:
        gaps.append(f"it is {memory.layer or 'unknown'}, not L2")
    age_days = (now - memory.created_at).total_seconds() / 86400
    if age_days < policy.promotion_min_age_days:
        gaps.append(f"{age_days:.1f} days old, under {policy.promotion_min_age_days}")
    uses = int(memory.access_count or 0) + int(memory.reinforcement_count or 0)
    if uses < policy.promotion_min_recalls:
        gaps.append(f"{uses} recalls and reinforcements, under {policy.promotion_min_recalls}")
    if float(memory.importance) < policy.promotion_min_importance:
        gaps.append(f"importance {memory.importance:g}, under {policy.promotion_min_importance:g}")
    if memory.grounding == Grounding.UNSUPPORTED:
        gaps.append("its grounding is unsupported")
    return gaps


def is_mature_l2(memory: Memory, *, now: datetime | None = None) -> bool:
    policy = LayerPolicy.objects.filter(layer=Layer.L2).first()
    if policy is None:
        return False
    return mature_l2(Memory.objects.filter(pk=memory.pk), now=now or timezone.now(), policy=policy).exists()


def layer_refusal(
    *,
    layer: str,
    source: str,
    attribution: str,
    authority: Authority,
    derived_from: Sequence[Memory] = (),
    observed_at: datetime | None = None,
) -> Refusal | None:
    """The first hard rule this write breaks, or None. Pure apart from the maturity
    look-up of an L4 write's sources."""
    if layer == Layer.L4:
        if authority.origin not in {WriteOrigin.PROMOTION, WriteOrigin.IMPORT}:
            return Refusal(HardRule.L4_PROMOTION_ONLY, Reason.of(ReasonCode.L4_PROMOTION_ONLY))
        if not derived_from or any(m.layer != Layer.L2 for m in derived_from):
            return Refusal(HardRule.L4_PROMOTION_ONLY, Reason.of(ReasonCode.L4_NOT_DERIVED))
        if authority.origin == WriteOrigin.PROMOTION and not all(is_mature_l2(m) for m in derived_from):
            return Refusal(HardRule.L4_PROMOTION_ONLY, Reason.of(ReasonCode.L4_SOURCE_NOT_MATURE))
    if attribution == Attribution.AGENT_INFERENCE and layer in {Layer.L1, Layer.L2} and not authority.person:
        return Refusal(HardRule.AGENT_INFERENCE_NEEDS_PERSON, Reason.of(ReasonCode.AGENT_INFERENCE_NEEDS_PERSON, layer=layer))
    if layer == Layer.L1 and not authority.operator:
        authoritative = source in AUTHORITATIVE_SOURCES and attribution in AUTHORITATIVE_ATTRIBUTIONS
        if authority.origin != WriteOrigin.FUNNEL or not authoritative:
            return Refusal(HardRule.L1_AUTHORITATIVE, Reason.of(ReasonCode.L1_NEEDS_AUTHORITY, source=source))
    if layer == Layer.L3 and observed_at is None:
        return Refusal(HardRule.L3_OBSERVATION, Reason.of(ReasonCode.L3_NEEDS_OBSERVED_AT))
    return None


def enforce(**kwargs: Any) -> None:
    refusal = layer_refusal(**kwargs)
    if refusal is not None:
        raise HardRuleViolation(refusal.rule, refusal.reason.english())
