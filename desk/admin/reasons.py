"""Reasons, stage names and stored codes in the reader's language.

A reason is rendered from its code and parameters (textrules.reasons holds the one English
and one Chinese wording of each code); parameters that are Django choices (an attribution,
a source, an action …) are shown by their translated labels. A row written before reasons
had codes shows its stored English sentence."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from governance.constants import Action, EventKind, ReviewKind, ReviewStatus, SignalKind, TriggerType
from governance.reasons import review_item_reasons, row_reasons
from memories.constants import Attribution, Grounding, Source, Status, Tier
from textrules.reasons import Reason, render

# Later enums win a shared code: "promotion" is a review kind before it is an attribution.
CHOICES = {
    c.value: c.label
    for enum in (Status, EventKind, Grounding, Attribution, Source, ReviewStatus, ReviewKind, TriggerType, Action)
    for c in enum
}

# Which choices a reason parameter holds, by its name.
PARAM_CHOICES: dict[str, type[models.TextChoices]] = {
    "trigger_type": TriggerType,
    "attribution": Attribution,
    "grounding": Grounding,
    "source": Source,
    "action": Action,
    "from_status": Status,
    "to_status": Status,
    "from_tier": Tier,
    "to_tier": Tier,
    "signal_kind": SignalKind,
}

# Stage names as the timeline shows them.
STAGE_LABELS = {
    "statement": _("stored statement"),
    "safety": _("safety scan"),
    "provenance": _("provenance rules"),
    "classify": _("classification"),
    "guard_rules": _("guard rules"),
    "value": _("value criteria"),
    "judge": _("judge"),
    "layer_policy": _("layer policy"),
    "conflict": _("conflict check"),
    "validate": _("quality score"),
    "decision": _("decision"),
    "sampled_audit": _("sampled audit"),
    "review": _("human review"),
}

# Stage verdicts that are not funnel actions.
DECISION_LABELS = {
    "PASS": _("pass"),
    "SAMPLED": _("sampled for audit"),
    "APPROVED": _("approved"),
    **{a.value: a.label for a in Action},
}


def get_language_is_zh() -> bool:
    return (get_language() or "").lower().startswith("zh")


def choice(value: str) -> str:
    """A stored code (user_stated, strategy_execution, WRITE…) as its translated label."""
    label = CHOICES.get(value)
    return str(label) if label is not None else value


def _param_label(name: str, value: Any) -> str | None:
    enum = PARAM_CHOICES.get(name)
    if enum is None or not isinstance(value, str):
        return None
    try:
        return str(enum(value).label)
    except ValueError:
        return None


def reason_shown(reason: Reason) -> str:
    return render(reason, get_language() or "en", _param_label)


def reasons_shown(reasons: Iterable[Reason]) -> list[str]:
    return [reason_shown(r) for r in reasons]


def row_reasons_shown(row: Any) -> list[str]:
    """A MemoryEvent's or a Trace's reasons, in the reader's language."""
    return reasons_shown(row_reasons(row))


def review_reasons_shown(item: Any) -> list[str]:
    """Why a review item is in the queue, in the reader's language."""
    return reasons_shown(review_item_reasons(item))


def stage_label(stage: str) -> str:
    label = STAGE_LABELS.get(stage)
    return str(label) if label is not None else stage


def decision_label(decision: str) -> str:
    label = DECISION_LABELS.get(decision)
    return str(label) if label is not None else (decision or "—")
