"""JSON fields (event data, stage scores, review payloads, audit details) as labelled
fields instead of Python or JSON literals: nested objects become definition lists, lists
of objects become rows, codes become their translated labels."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from desk.admin.claims import METRIC_LABELS, RELATION_LABELS, advertiser_names, detail_shown, facet_label, matched_shown, metric_label
from desk.admin.list_cells import user_data
from desk.admin.reasons import business_line_label, choice, get_language_is_zh, provider_label, reasons_shown, review_reasons_shown
from governance.constants import TriggerType
from governance.funnel.trigger_schemas import field_rows
from judges.base import RelationSource
from textrules.reasons import stored_reasons

MAX_DEPTH = 4
MAX_ITEMS = 40

# Keys that stages, services and audit rows write, as a reader names them.
KEY_LABELS = {
    "attribution": _("attribution"),
    "rule_attribution": _("attribution by the rules"),
    "judge_attribution": _("attribution by the judge"),
    "layer": _("layer"),
    "signals": _("signals"),
    "suggestion": _("suggestion phrases"),
    "self_vouching": _("self-vouching phrases"),
    "turns": _("conversation turns"),
    "hedge": _("hedges"),
    "numbers": _("numbers"),
    "secrets": _("credentials"),
    "personal": _("personal data"),
    "confidence": _("confidence"),
    "threshold": _("threshold"),
    "trigger_type": _("trigger type"),
    "fields": _("fields"),
    "criteria": _("criteria"),
    "met": _("met"),
    "evidence": _("evidence"),
    "zh": _("criterion"),
    "data": _("data"),
    "unknown_keys": _("unknown keys"),
    "invalid_keys": _("invalid keys"),
    "verdict": _("verdict"),
    "grounding": _("grounding"),
    "consistency": _("consistency"),
    "tools": _("verification tools"),
    "ran": _("ran"),
    "tool_latency_ms": _("tool latency (ms)"),
    "campaign_analysis": _("campaign data check"),
    "memory_search": _("related memory check"),
    "industry_benchmark": _("industry benchmark"),
    "result": _("result"),
    "claimed": _("claimed"),
    "matched": _("matched"),
    "unmatched": _("unmatched"),
    "repeats": _("repeats"),
    "related": _("related memories"),
    "id": _("memory"),
    "cosine": _("cosine"),
    "relation": _("relation"),
    "signal": _("signal"),
    "detail": _("detail"),
    "contradicts": _("contradicts"),
    "new_strength": _("new evidence strength"),
    "old_strength": _("existing evidence strength"),
    "memory_id": _("memory"),
    "version": _("version"),
    "importance": _("importance"),
    "expires_at": _("expires at"),
    "observed_at": _("observed at"),
    "reinforced": _("reinforced memory"),
    "review_item_id": _("review item"),
    "reviewer": _("reviewer"),
    "kind": _("kind"),
    "overturned": _("overturned"),
    "hard_rule": _("hard rule"),
    "source": _("source"),
    "ttl_hours": _("TTL (hours)"),
    "actionability": _("actionability"),
    "completeness": _("completeness"),
    "source_reliability": _("source reliability"),
    "specificity": _("specificity"),
    "auto_action": _("automatic decision"),
    "reasons": _("reasons"),
    "candidate": _("candidate"),
    "content": _("content"),
    "advertiser": _("advertiser"),
    "business_line": _("business line"),
    "category": _("category"),
    "note": _("note"),
    "supersedes": _("supersedes"),
    "source_attribution": _("attribution"),
    "attempts": _("attempts"),
    "window_days": _("window (days)"),
    "changes": _("changes"),
    "before": _("before"),
    "after": _("after"),
    "label": _("label"),
    "count": _("count"),
    "imported": _("imported"),
    "skipped": _("skipped"),
    "errors": _("errors"),
    "name": _("name"),
    "advertisers": _("advertisers"),
    # token grants (the audit log of api_token_create)
    "all_advertisers": _("all advertisers"),
    "can_review": _("may decide reviews"),
    "can_erase": _("may erase"),
    "trusted_sources": _("trusted sources"),
    # ids an audit row or a trace points at
    "previous_memory_id": _("previous version"),
    "event_id": _("event"),
    "first_id": _("first memory"),
    "last_id": _("last memory"),
    "l1_ids": _("L1 memories"),
    "source_ids": _("source memories"),
    "consolidated_from": _("consolidated from"),
    "promoted_from": _("promoted from"),
    "suggestion_id": _("suggestion"),
    "suggestions": _("suggestions"),
    "strategies": _("strategies"),
    "templates": _("templates"),
    "score": _("score"),
    "shared": _("shared"),
    # consolidation and promotion proposals
    "key": _("key"),
    "category_path": _("category (tree)"),
    "outcome": _("outcome"),
    "age_days": _("age (days)"),
    "min_age_days": _("minimum age (days)"),
    "recalls": _("recalls"),
    "min_recalls": _("minimum recalls"),
    "min_importance": _("minimum importance"),
    "reinforcements": _("reinforcements"),
    "role": _("role"),
    # the conflict stage's relation
    "relation_source": _("decided from"),
    "facet": _("deciding part"),
    # the pair model's second opinion (governance/funnel/relation.py)
    "claims_relation": _("relation by the claim rules"),
    "learned_relation": _("relation by the pair model"),
    "learned_p": _("pair model's certainty"),
    "doubted": _("doubted by the pair model"),
    # reflection reports
    "as_of": _("as of"),
    "run_by": _("run by"),
    "counts": _("counts"),
    "review_items_created": _("review items opened"),
    "stale": _("stale"),
    "contradictions": _("contradictions"),
    "repeated_rejects": _("repeated rejections"),
    "consolidations": _("consolidations"),
    # metric snapshots
    "memories": _("memories"),
    "active_by_layer": _("active, by layer"),
    "active_by_tier": _("active, by tier"),
    "by_status": _("by status"),
    "by_action": _("by decision"),
    "embeddings_missing_or_stale": _("embeddings missing or stale"),
    "events_24h": _("events (24 h)"),
    "decisions": _("decisions"),
    "guard": _("guard"),
    "guardrail": _("guardrail"),
    "audited": _("audited"),
    "false_rejection_rate": _("false rejection rate"),
    "false_rejects": _("false rejections"),
    "false_writes": _("false writes"),
    "true_rejects": _("right rejections"),
    "true_writes": _("right writes"),
    "growth_per_day": _("new memories per day"),
    "growth_rate": _("growth rate"),
    "memories_before_window": _("memories before the window"),
    "memories_created": _("memories created"),
    "open_reviews": _("open reviews"),
    "parked_approved": _("parked, then approved"),
    "parked_reviewed": _("parked, then reviewed"),
    "pending_rate": _("share parked for review"),
    "reject_rate": _("share rejected"),
    "precision": _("precision"),
    "recall": _("recall"),
    "total": _("total"),
    "status": _("status"),
}

# Who read the relation between two claims (judges.base.RelationSource).
RELATION_SOURCES: dict[str, Any] = {RelationSource.OFFLINE: _("the offline rules"), RelationSource.MODEL: _("the model")}

# Lists of field names: each shown as its label.
NAMED_KEYS = {"fields", "unknown_keys", "invalid_keys", "missing", "present"}

# Who ran or decided something: a person's or a token's name, shown as recorded.
PEOPLE_KEYS = {"run_by", "actor", "reviewer", "by", "proposed_by"}

# Values stages record that are not choices of a model field: verdicts of the judge's
# checks, relations between claims, kinds and directions of proposals.
VALUE_LABELS = {
    "found": _("found"),
    "consistent": _("consistent"),
    "inconsistent": _("inconsistent"),
    "no_data": _("no data to check"),
    "match_once": _("matched once"),
    **RELATION_LABELS,
    "claims": _("the claims"),
    "wording": _("the wording"),
    "semantic": _("semantic"),
    "episodic": _("episodic"),
    "up": _("up"),
    "down": _("down"),
    "suggested": _("suggested"),
    "eligible": _("eligible"),
    "proposed": _("proposed"),
    "waiting": _("waiting"),
}  # tiers and other model choices are read from their enums (desk.admin.reasons.choice)


@lru_cache(maxsize=1)
def _field_names() -> dict[str, tuple[str, str]]:
    """Trigger data keys (and their synonyms) → (Chinese name, English description)."""
    names: dict[str, tuple[str, str]] = {}
    for trigger in TriggerType:
        for row in field_rows(trigger.value):
            for key in (row["name"], *row.get("aliases", ())):
                names.setdefault(key, (row["zh"], row["en"]))
    return names


def key_label(key: str) -> str:
    if key in KEY_LABELS:
        return str(KEY_LABELS[key])
    field = _field_names().get(key)
    if field and get_language_is_zh() and field[0]:
        return field[0]
    if key in VALUE_LABELS:
        return str(VALUE_LABELS[key])
    shown = choice(key)
    if shown != key:
        return shown
    metric, _sep, when = key.rpartition("_")
    if metric in METRIC_LABELS and when in {"before", "after"}:
        # roi_before, cvr_after: a metric's value before or after the change
        return f"{metric_label(metric)} ({KEY_LABELS[when]})"
    return metric_label(key) if key in METRIC_LABELS else key


_QUOTED_LIST = re.compile(r"\[((?:'[^']*'|\"[^\"]*\")(?:, (?:'[^']*'|\"[^\"]*\"))*)?\]")


def _unrepr(text: str) -> str:
    """Evidence strings quote Python lists (hedges=[], suggested_action=['信息流']): show the items."""

    def items(m: re.Match[str]) -> str:
        found = re.findall(r"'([^']*)'|\"([^\"]*)\"", m.group(1) or "")
        return "、".join(a or b for a, b in found) if found else "—"

    return _QUOTED_LIST.sub(items, text)


def _scalar(key: str, value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str):
        if key in {"content", "note"}:
            return value
        if value in VALUE_LABELS:
            return str(VALUE_LABELS[value])
        if key == "business_line":
            return str(business_line_label(value))
        if key in {"relation_source", "source"} and value in RELATION_SOURCES:
            return str(RELATION_SOURCES[value])
        if key in {"provider", "judge"}:
            return provider_label(value)
        if key in {"facet", "signal"}:  # the conflict stage names the deciding part "signal"
            return facet_label(value)
        if key == "detail" and "→" in value:
            return detail_shown(value)
        if key in NAMED_KEYS:
            return key_label(value)
        return _unrepr(choice(value))
    return str(value)


def _named(key: str, value: Any) -> tuple[str, str, Any]:
    """A nested record that carries its own Chinese name (a value criterion: {"zh": "跨越完整周期", "met": …})
    is labelled by that name, which then is not repeated inside it."""
    if isinstance(value, dict) and isinstance(value.get("zh"), str):
        rest = {k: v for k, v in value.items() if k != "zh"}
        return key, value["zh"] if get_language_is_zh() else key, rest
    return key, key_label(key), value


def _is_matched(key: str, value: Any) -> bool:
    return key == "matched" and isinstance(value, list) and all(isinstance(v, str) for v in value)


def _matched_parts(value: Any, key: str = "") -> Iterator[str]:
    """Every shared part a relation lists anywhere in `value` (the conflict stage keeps one
    list per related memory)."""
    if _is_matched(key, value):
        yield from value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _matched_parts(v, k)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _matched_parts(v, key)


def readable(value: Any, *, key: str = "", depth: int = 0, names: Mapping[str, str] | None = None) -> SafeString:
    """HTML for one JSON value. `names`: the advertisers' spellings, read once for the whole
    value rather than once per related memory in it."""
    if names is None:
        names = advertiser_names(matched=_matched_parts(value, key))
    if key == "reasons" and isinstance(value, list):
        return reasons_list(reasons_shown(stored_reasons(value, None)))
    if _is_matched(key, value):
        return matched_shown(value, names=names)
    if isinstance(value, dict):
        if not value:
            return mark_safe('<span class="quiet">—</span>')
        if depth >= MAX_DEPTH:
            return format_html("{}", "…")
        items = list(value.items())
        if isinstance(value.get("reasons"), list) and "reason_codes" in value:
            # English sentences with their codes beside them (a review payload): one list, in the reader's language.
            shown = reasons_list(reasons_shown(stored_reasons(value["reasons"], value["reason_codes"])))
            items = [(k, v) for k, v in items if k not in {"reasons", "reason_codes"}]
            rows = [("reasons", key_label("reasons"), None), *(_named(k, v) for k, v in items[:MAX_ITEMS])]
            return format_html(
                '<dl class="lingix-fields">{}</dl>',
                format_html_join(
                    "",
                    "<dt>{}</dt><dd>{}</dd>",
                    ((label, shown if k == "reasons" else readable(v, key=k, depth=depth + 1, names=names)) for k, label, v in rows),
                ),
            )
        rows = [_named(k, v) for k, v in items[:MAX_ITEMS]]
        return format_html(
            '<dl class="lingix-fields">{}</dl>',
            format_html_join(
                "", "<dt>{}</dt><dd>{}</dd>", ((label, readable(v, key=k, depth=depth + 1, names=names)) for k, label, v in rows)
            ),
        )
    if isinstance(value, (list, tuple)):
        if not value:
            return mark_safe('<span class="quiet">—</span>')
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            return format_html_join("、" if get_language_is_zh() else ", ", "{}", ((_leaf(key, v),) for v in value[:MAX_ITEMS]))
        return format_html(
            '<ul class="lingix-rows">{}</ul>',
            format_html_join("", "<li>{}</li>", ((readable(v, key=key, depth=depth + 1, names=names),) for v in value[:MAX_ITEMS])),
        )
    return _leaf(key, value)


# A stored identifier (a code, a key, a dotted name) rather than words someone wrote.
_CODE_LIKE = re.compile(r"[A-Za-z0-9_.:/+-]+")


def _leaf(key: str, value: Any) -> SafeString:
    """One scalar: a code as its label; free text (what a person or agent wrote, a campaign's
    own values) as user data, shown as given."""
    shown = _scalar(key, value)
    if (
        isinstance(value, str)
        and value
        and (key in {"content", "note", *PEOPLE_KEYS} or (choice(value) == value and not _CODE_LIKE.fullmatch(value)))
    ):
        return user_data(shown)
    return format_html("{}", shown)


def reasons_list(shown: Sequence[str]) -> SafeString:
    """Reasons already in the reader's language, one per line."""
    if not shown:
        return mark_safe('<span class="quiet">—</span>')
    return format_html('<ul class="lingix-reasons">{}</ul>', format_html_join("", "<li>{}</li>", ((r,) for r in shown)))


def review_reasons(item) -> SafeString:
    """Why an item is in the queue, one reason per line."""
    return reasons_list(review_reasons_shown(item))
