"""Reasons, stage names and stored codes in the reader's language.

A reason is rendered from its code and parameters (textrules.reasons holds the one English
and one Chinese wording of each code); parameters that are Django choices (an attribution,
a source, an action …) are shown by their translated labels. A row written before reasons
had codes shows its stored English sentence."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from desk.admin.list_cells import user_data
from governance.constants import Action, EventKind, ReviewKind, ReviewStatus, SignalKind, TriggerType
from governance.reasons import review_item_reasons, row_reasons
from memories.constants import Attribution, Grounding, Source, Status, Tier
from textrules.reasons import Reason, render

# Later enums win a shared code: "promotion" is a review kind before it is an attribution.
CHOICES = {
    c.value: c.label
    for enum in (Tier, Status, EventKind, Grounding, Attribution, Source, ReviewStatus, ReviewKind, TriggerType, Action)
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
    "commit": _("decision"),
    "admin_edit": _("edit in the desk"),
    "suggestions": _("playbook suggestions"),
    "lifecycle.suggestions": _("suggestion expiry"),
    "lifecycle.expire": _("expiry"),
    "lifecycle.tier": _("tiering"),
    "lifecycle.evict": _("eviction"),
    "lifecycle.promote": _("promotion to L4"),
    "reflection.consolidate": _("consolidation"),
    "entities.llm": _("entity linking"),
}

# Stage verdicts that are not funnel actions.
DECISION_LABELS = {
    "PASS": _("pass"),
    "SAMPLED": _("sampled for audit"),
    "APPROVED": _("approved"),
    "archived": _("archived"),
    "eligible": _("eligible"),
    "expired": _("expired"),
    "fallback_offline": _("fell back to the offline judge"),
    "linked": _("linked"),
    "suggested": _("suggested"),
    **{a.value: a.label for a in Action},
}


# Business lines the demo and imports store as codes; any other value is the team's own word.
BUSINESS_LINE_LABELS = {"beauty": _("beauty"), "medical": _("medical (OTC)"), "3c": _("consumer electronics (3C)")}


def business_line_label(code: str | None) -> SafeString | str:
    if not code:
        return "—"
    label = BUSINESS_LINE_LABELS.get(code.lower())
    return str(label) if label is not None else user_data(code)


# The judge that decided a stage, as the trace records it.
PROVIDER_LABELS = {
    "offline": _("offline judge"),
    "openai": _("gateway judge"),
    "doubtmem": _("DoubtMem judge"),
    "human": _("a person"),
    "lifecycle": _("lifecycle job"),
    "reflection": _("reflection"),
}


def provider_label(code: str | None) -> str:
    if not code:
        return "—"
    label = PROVIDER_LABELS.get(code)
    return str(label) if label is not None else code


def get_language_is_zh() -> bool:
    return (get_language() or "").lower().startswith("zh")


def choice(value: str) -> str:
    """A stored code (user_stated, strategy_execution, WRITE…) as its translated label."""
    label = CHOICES.get(value)
    return str(label) if label is not None else value


# Parameters that quote the store's or a person's own words: marked as data in the sentence.
DATA_PARAMS = {"actor", "category", "entities", "note", "quote", "quotes", "reviewer", "text"}
# Control characters no reason text contains, so the marks survive rendering and escaping.
_DATA_OPEN, _DATA_CLOSE = "\x02", "\x03"


def _param_label(name: str, value: Any) -> str | None:
    if name in DATA_PARAMS and isinstance(value, str):
        return f"{_DATA_OPEN}{value}{_DATA_CLOSE}"
    if name == "signal" and isinstance(value, str) and "→" in value:
        # A relation's "cvr 35% → cvr 5%": the metric and lever codes in words. The claims
        # module renders claims and imports this one, hence the import here.
        from desk.admin.claims import detail_shown

        return detail_shown(value)
    enum = PARAM_CHOICES.get(name)
    if enum is None or not isinstance(value, str):
        return None
    try:
        return str(enum(value).label)
    except ValueError:
        return None


def reason_shown(reason: Reason) -> SafeString:
    """HTML: the sentence escaped, the quoted words inside it marked as data (see user_data)."""
    text = conditional_escape(render(reason, get_language() or "en", _param_label))
    return mark_safe(text.replace(_DATA_OPEN, "<span data-user-data>").replace(_DATA_CLOSE, "</span>"))


def reasons_shown(reasons: Iterable[Reason]) -> list[SafeString]:
    return [reason_shown(r) for r in reasons]


def reasons_joined(shown: list[SafeString]) -> SafeString:
    """Several reasons on one line (a list cell)."""
    return mark_safe(("；" if get_language_is_zh() else "; ").join(shown))


def row_reasons_shown(row: Any) -> list[SafeString]:
    """A MemoryEvent's or a Trace's reasons, in the reader's language."""
    return reasons_shown(row_reasons(row))


def review_reasons_shown(item: Any) -> list[SafeString]:
    """Why a review item is in the queue, in the reader's language."""
    return reasons_shown(review_item_reasons(item))


def stage_label(stage: str) -> str:
    label = STAGE_LABELS.get(stage)
    return str(label) if label is not None else stage


def decision_label(decision: str) -> str:
    label = DECISION_LABELS.get(decision)
    return str(label) if label is not None else (decision or "—")
