"""JSON fields (event data, stage scores, review payloads, audit details) as labelled
fields instead of Python or JSON literals: nested objects become definition lists, lists
of objects become rows, codes become their translated labels."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from desk.admin.reasons import choice, get_language_is_zh, reasons_shown, review_reasons_shown
from governance.constants import TriggerType
from governance.funnel.trigger_schemas import field_rows
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
}


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
    return key


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
        return _unrepr(choice(value))
    return str(value)


def _named(key: str, value: Any) -> tuple[str, str, Any]:
    """A nested record that carries its own Chinese name (a value criterion: {"zh": "跨越完整周期", "met": …})
    is labelled by that name, which then is not repeated inside it."""
    if isinstance(value, dict) and isinstance(value.get("zh"), str):
        rest = {k: v for k, v in value.items() if k != "zh"}
        return key, value["zh"] if get_language_is_zh() else key, rest
    return key, key_label(key), value


def readable(value: Any, *, key: str = "", depth: int = 0) -> SafeString:
    """HTML for one JSON value."""
    if key == "reasons" and isinstance(value, list):
        return reasons_list(reasons_shown(stored_reasons(value, None)))
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
                    ((label, shown if k == "reasons" else readable(v, key=k, depth=depth + 1)) for k, label, v in rows),
                ),
            )
        rows = [_named(k, v) for k, v in items[:MAX_ITEMS]]
        return format_html(
            '<dl class="lingix-fields">{}</dl>',
            format_html_join("", "<dt>{}</dt><dd>{}</dd>", ((label, readable(v, key=k, depth=depth + 1)) for k, label, v in rows)),
        )
    if isinstance(value, (list, tuple)):
        if not value:
            return mark_safe('<span class="quiet">—</span>')
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            return format_html(
                "{}",
                "、".join(_scalar(key, v) for v in value[:MAX_ITEMS])
                if get_language_is_zh()
                else ", ".join(_scalar(key, v) for v in value[:MAX_ITEMS]),
            )
        return format_html(
            '<ul class="lingix-rows">{}</ul>',
            format_html_join("", "<li>{}</li>", ((readable(v, key=key, depth=depth + 1),) for v in value[:MAX_ITEMS])),
        )
    return format_html("{}", _scalar(key, value))


def reasons_list(shown: list[str]) -> SafeString:
    """Reasons already in the reader's language, one per line."""
    if not shown:
        return mark_safe('<span class="quiet">—</span>')
    return format_html('<ul class="lingix-reasons">{}</ul>', format_html_join("", "<li>{}</li>", ((r,) for r in shown)))


def review_reasons(item) -> SafeString:
    """Why an item is in the queue, one reason per line."""
    return reasons_list(review_reasons_shown(item))
