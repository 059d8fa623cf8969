"""Offline entity extraction: the typed event fields first (governance.funnel.
trigger_schemas), then the ad-ops vocabulary over the text. Deterministic and fast enough
to run inside the write transaction."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from governance.funnel.trigger_schemas import SCHEMAS, parse_trigger_data
from memories.constants import EntityKind, RelationPredicate
from memories.entity_vocabulary import Mention, canonical, find_mentions, with_implied

K = EntityKind
P = RelationPredicate

# Memory.category values that file a memory rather than name what it is about.
FILING_CATEGORIES = {"模板", "通用", "系统", "合规", "预算", "大促", "异常", "其他", "general", "system", "template"}
TEXT_FIELDS = (
    "strategy_used",
    "conditions",
    "cause",
    "signal",
    "impact",
    "pattern",
    "suggested_action",
    "possible_cause",
    "relation",
    "right_way",
    "scope",
    "hard_constraint",
    "stance",
)
# The head entity of a memory is the first of these kinds it names; the others hang off it.
HEAD_ORDER = (K.ADVERTISER, K.CATEGORY, K.CHANNEL, K.EVENT)
PREDICATE_FOR = {
    K.CATEGORY: P.IN_CATEGORY,
    K.CHANNEL: P.USES_CHANNEL,
    K.PLAN: P.RUNS_PLAN,
    K.METRIC: P.MEASURED_BY,
    K.TIME_SLOT: P.DURING,
    K.EVENT: P.AFFECTED_BY,
}
MAX_TRIPLES = 16


@dataclass
class Extraction:
    mentions: list[Mention] = field(default_factory=list)
    triples: list[tuple[Mention, str, Mention]] = field(default_factory=list)

    def add(self, mentions: Iterable[Mention]) -> None:
        for mention in mentions:
            if mention.name and mention not in self.mentions:
                self.mentions.append(mention)


def _named(kind: str, value: Any, *, keep_unknown: bool) -> list[Mention]:
    """Entities in a field value: vocabulary names first; a short unknown value is kept as
    the field's kind (a plan id, a category the vocabulary does not know)."""
    text = str(value).strip()
    if not text:
        return []
    found = find_mentions(text)
    if found:
        return found
    if keep_unknown and len(text) <= 32:
        return with_implied([Mention(str(kind), canonical(kind, text))])
    return []


def _from_fields(data: dict[str, Any], trigger_type: str) -> list[Mention]:
    types = [trigger_type] if trigger_type in SCHEMAS else list(SCHEMAS)
    out: list[Mention] = []
    for name in types:
        parsed = parse_trigger_data(name, data)
        get = parsed.get
        if (plan := get("plan_id")) is not None:
            out.append(Mention(str(K.PLAN), canonical(K.PLAN, plan)))
        if (category := get("category")) is not None:
            out.extend(_named(K.CATEGORY, category, keep_unknown=True))
        for domain in get("domains") or []:
            out.extend(_named(K.CATEGORY, domain, keep_unknown=True))
        for metrics_field in ("target_metric", "actual_metric", "before", "after"):
            for key in get(metrics_field) or {}:
                if key != "value":
                    out.append(Mention(str(K.METRIC), canonical(K.METRIC, key)))
        if (metric := get("metric")) is not None:
            out.extend(_named(K.METRIC, metric, keep_unknown=True))
        if (event := get("event")) is not None:
            out.extend(_named(K.EVENT, event, keep_unknown=True))
        for window_field in ("time_window", "window", "period"):
            if (window := get(window_field)) is not None:
                out.extend(_named(K.TIME_SLOT, window, keep_unknown=False))
        for variable in get("changed_variables") or []:
            out.extend(_named(K.METRIC, variable, keep_unknown=False))
        for text_field in TEXT_FIELDS:
            if (text := get(text_field)) is not None:
                out.extend(find_mentions(str(text)))
    for key in ("channel", "channels", "渠道", "媒体"):
        value = data.get(key)
        for item in value if isinstance(value, list) else [value] if value else []:
            out.extend(_named(K.CHANNEL, item, keep_unknown=True))
    return out


def triples_for(mentions: list[Mention]) -> list[tuple[Mention, str, Mention]]:
    head = next((m for kind in HEAD_ORDER for m in mentions if m.kind == kind), None)
    if head is None:
        return []
    triples = []
    for mention in mentions:
        if mention == head or mention.kind == K.ADVERTISER or mention.kind not in PREDICATE_FOR:
            continue
        triples.append((head, str(PREDICATE_FOR[mention.kind]), mention))
    return triples[:MAX_TRIPLES]


def extract_offline(*, content: str, advertiser: str | None, category: str, data: dict[str, Any], trigger_type: str = "") -> Extraction:
    extraction = Extraction()
    if advertiser:
        extraction.add([Mention(str(K.ADVERTISER), advertiser)])
    if category:
        # A filing label (模板, 通用) is no entity; 大促 as a label still names the promotion.
        extraction.add(_named(K.CATEGORY, category, keep_unknown=category.strip().lower() not in FILING_CATEGORIES))
    extraction.add(_from_fields(data or {}, trigger_type))
    extraction.add(find_mentions(content))
    extraction.triples = triples_for(extraction.mentions)
    return extraction
