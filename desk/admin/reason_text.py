"""The funnel's reasons in the reader's language.

Stages record their reasons as English sentences (the API, the CLI and the traces keep
them as written, so a reason never changes after the fact). The admin translates them on
display: each sentence shape the funnel and the review services write has a pattern here,
and its parts (trigger types, attributions, layers, actions, conflict signals) are
translated too. A sentence with no pattern is shown as stored, never dropped."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from governance.constants import Action, EventKind, ReviewKind, ReviewStatus, TriggerType
from memories.constants import Attribution, Grounding, Source, Status

# Later enums win a shared code: "promotion" is a review kind before it is an attribution.
CHOICES = {
    c.value: c.label
    for enum in (Status, EventKind, Grounding, Attribution, Source, ReviewStatus, ReviewKind, TriggerType, Action)
    for c in enum
}

# Stage names as the timeline shows them.
STAGE_LABELS = {
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

# Words inside parentheses: conflict signals, relations, the judge's consistency verdict.
PHRASES = {
    "related, no conflicting signal": _("related, no conflicting signal"),
    "related, different scope": _("related, different scope"),
    "different topic": _("different topic"),
    "different lever": _("different lever"),
    "different channel": _("different channel"),
    "different subject": _("different subject"),
    "different audience segment": _("different audience segment"),
    "different advertiser": _("different advertiser"),
    "different category": _("different category"),
    "different metric": _("different metric"),
    "near-identical, same polarity": _("near-identical, same polarity"),
    "same text": _("same text"),
    "cosine": _("cosine"),
    "antonym": _("antonym"),
    "negations": _("negations"),
    "negation": _("negation"),
    "different value": _("different value"),
    "correction": _("correction"),
    "time": _("time window"),
    "/day": _("/day"),
    "/week": _("/week"),
    "/month": _("/month"),
    "up_down": _("raise/lower"),
    "max_min": _("highest/lowest"),
    "stop_start": _("pause/resume"),
    "fit_unfit": _("suitable/unsuitable"),
    "consistent": _("consistent"),
    "contradiction": _("contradiction"),
    "duplicate": _("duplicate"),
    "compatible": _("compatible"),
}
# Slot names the conflict stage writes (levers and metrics of governance.funnel.relation).
SLOTS = {
    "bid": _("bid"),
    "budget": _("budget"),
    "audience": _("audience"),
    "landing": _("landing page"),
    "creative": _("creative"),
    "daypart": _("daypart"),
    "keyword": _("keywords"),
    "channel": _("channel"),
    "promotion": _("promotions and discounts"),
    "frequency": _("frequency cap"),
    "roi": "ROI",
    "ctr": "CTR",
    "cvr": "CVR",
    "cpa": "CPA",
    "cpc": "CPC",
    "cpm": "CPM",
    "gmv": "GMV",
}
PHRASES.update(SLOTS)
_PHRASE_RE = re.compile(
    "|".join(
        # "/day" follows a slot name directly ("budget/day"); words must stand alone.
        re.escape(p) if p.startswith("/") else rf"(?<![A-Za-z_]){re.escape(p)}(?![A-Za-z_])"
        for p in sorted(PHRASES, key=len, reverse=True)
    )
)
_TIME_RANGES = re.compile(r"\[((?:\([\d.]+, [\d.]+\)(?:, )?)+)\]")
_NUMBER_LIST = re.compile(r"\[([\d., ]+)\]")


def _clock(hours: str) -> str:
    value = float(hours)
    return f"{int(value)}:{round((value - int(value)) * 60):02d}"


def _readable_values(text: str) -> str:
    """The conflict stage quotes sorted Python lists of the values it compared
    ([(9.0, 11.0)] for a time window, [5000.0] for an amount); a reader wants 9:00–11:00 and 5000."""

    def ranges(m: re.Match[str]) -> str:
        pairs = re.findall(r"\(([\d.]+), ([\d.]+)\)", m.group(1))
        return "、".join(f"{_clock(a)}–{_clock(b)}" for a, b in pairs)

    def numbers(m: re.Match[str]) -> str:
        return "、".join(f"{float(n):g}" for n in m.group(1).split(", ") if n.strip())

    return _NUMBER_LIST.sub(numbers, _TIME_RANGES.sub(ranges, text))


def choice(value: str) -> str:
    """A stored code (user_stated, strategy_execution, WRITE…) as its translated label."""
    label = CHOICES.get(value)
    return str(label) if label is not None else value


def phrases(text: str) -> str:
    translated = _PHRASE_RE.sub(lambda m: str(PHRASES[m.group(0)]), _readable_values(text))
    return translated.replace(": ", "：").replace(", ", "，")


def _criteria(text: str) -> str:
    # "有可能原因 (a possible cause is named); 非一次性噪音 (…)": the Chinese name is the criterion.
    names = [re.sub(r"\s*\([^()]*\)\s*$", "", part).strip() for part in text.split("; ")]
    return "；".join(names) if get_language_is_zh() else text


def get_language_is_zh() -> bool:
    return (get_language() or "").lower().startswith("zh")


Part = Callable[[str], str]
KEEP: Part = str

# (pattern, translated template, how each named part is translated)
PATTERNS: list[tuple[re.Pattern[str], object, dict[str, Part]]] = [
    (re.compile(r"no credentials found"), _("no credentials found"), {}),
    (re.compile(r"personal data masked before storage \((?P<kinds>.+)\)"), _("personal data masked before storage (%(kinds)s)"), {}),
    (
        re.compile(r"content holds a credential \((?P<kinds>.+)\); redacted before storage and refused"),
        _("content holds a credential (%(kinds)s); redacted before storage and refused"),
        {},
    ),
    (
        re.compile(r"attribution (?P<attr>\w+); no provenance rule fired"),
        _("attribution: %(attr)s; no provenance rule fired"),
        {"attr": choice},
    ),
    (
        re.compile(r"no deterministic rule fired \(attribution (?P<attr>\w+)\)"),
        _("no deterministic rule fired (attribution: %(attr)s)"),
        {"attr": choice},
    ),
    (
        re.compile(r"assistant suggestion without a user confirmation signal \((?P<quote>.+)\)"),
        _("assistant suggestion without a user confirmation signal (%(quote)s)"),
        {},
    ),
    (
        re.compile(r"tentative statement, not a settled preference or fact \((?P<quote>.+)\)"),
        _("tentative statement, not a settled preference or fact (%(quote)s)"),
        {},
    ),
    (
        re.compile(r"a number-backed conclusion with no grounding in the event's data"),
        _("a number-backed conclusion with no grounding in the event's data"),
        {},
    ),
    (
        re.compile(r"agent inference may not write (?P<layer>L\d) without a person's approval"),
        _("agent inference may not write %(layer)s without a person's approval"),
        {},
    ),
    (
        re.compile(r"L4 accepts no outside writes; only controlled promotion of mature L2 memories"),
        _("L4 accepts no outside writes; only controlled promotion of mature L2 memories"),
        {},
    ),
    (
        re.compile(r"patterns point to (?P<type>\w+) \(score (?P<score>[\d.]+), runner-up (?P<second>[\d.]+)\)"),
        _("patterns point to %(type)s (score %(score)s, runner-up %(second)s)"),
        {"type": choice},
    ),
    (
        re.compile(r"could not classify with enough confidence: (?P<why>.+)"),
        _("could not classify with enough confidence: %(why)s"),
        {"why": lambda s: translate_reason(s)},
    ),
    (re.compile(r"greeting or acknowledgement: nothing to remember"), _("greeting or acknowledgement: nothing to remember"), {}),
    (
        re.compile(r"no trigger type has enough signal \(best (?P<type>\w+)=(?P<score>[\d.]+)\)"),
        _("no trigger type has enough signal (best: %(type)s, %(score)s)"),
        {"type": choice},
    ),
    (re.compile(r"confidence (?P<value>[\d.]+) below (?P<limit>[\d.]+)"), _("confidence %(value)s below %(limit)s"), {}),
    (re.compile(r"(?P<type>[a-z_]+) \(confidence (?P<value>[\d.]+)\)"), _("%(type)s (confidence %(value)s)"), {"type": choice}),
    (re.compile(r"(?P<type>[a-z_]+): all 3 criteria met"), _("%(type)s: all three value criteria met"), {"type": choice}),
    (
        re.compile(r"(?P<type>[a-z_]+): criterion not met: (?P<criteria>.+)"),
        _("%(type)s: value criteria not met: %(criteria)s"),
        {"type": choice, "criteria": _criteria},
    ),
    (
        re.compile(r"attribution (?P<attr>\w+), grounding (?P<grounding>\w+), (?P<consistency>\w+)"),
        _("attribution: %(attr)s; grounding: %(grounding)s; %(consistency)s"),
        {"attr": choice, "grounding": choice, "consistency": phrases},
    ),
    (re.compile(r"a quantified effect with only weak grounding"), _("a quantified effect with only weak grounding"), {}),
    (
        re.compile(r"grounding unsupported: the claim's numbers are not in the event's data"),
        _("grounding unsupported: the claim's numbers are not in the event's data"),
        {},
    ),
    (
        re.compile(r"judge confidence (?P<value>[\d.]+) below the (?P<layer>L\d) review threshold (?P<limit>[\d.]+)"),
        _("judge confidence %(value)s below the %(layer)s review threshold %(limit)s"),
        {},
    ),
    (re.compile(r"judge: (?P<action>\w+)"), _("judge: %(action)s"), {"action": choice}),
    (
        re.compile(r"(?P<provider>\S+) judge unavailable: (?P<why>.+); parked, nothing written"),
        _("%(provider)s judge unavailable: %(why)s; parked for review, nothing written"),
        {},
    ),
    (
        re.compile(r"L1 accepts authoritative sources only \(human, system\); source is (?P<source>\w+): an operator must approve"),
        _("L1 accepts authoritative sources only (human operator, system); the source is %(source)s: an operator must approve"),
        {"source": choice},
    ),
    (
        re.compile(r"L3 observation from (?P<source>\w+); expires (?P<hours>\d+) h after it was observed"),
        _("L3 observation from %(source)s; expires %(hours)s h after it was observed"),
        {"source": choice},
    ),
    (
        re.compile(r"(?P<layer>L\d) accepts (?P<attr>\w+) from (?P<source>\w+)"),
        _("%(layer)s accepts %(attr)s from %(source)s"),
        {"attr": choice, "source": choice},
    ),
    (
        re.compile(r"observed (?P<when>.+), older than the (?P<hours>\d+) h L3 TTL: already stale"),
        _("observed %(when)s, older than the %(hours)s h L3 TTL: already stale"),
        {},
    ),
    (
        re.compile(r"compatible with memory #(?P<id>\d+) \((?P<why>.+)\); no duplicate or contradiction"),
        _("compatible with memory #%(id)s (%(why)s); no duplicate or contradiction"),
        {"why": phrases},
    ),
    (re.compile(r"no duplicate or contradiction in scope"), _("no duplicate or contradiction in scope"), {}),
    (
        re.compile(r"contradicts L1 rule #(?P<id>\d+) \((?P<signal>.+)\); L1 is never overwritten automatically"),
        _("contradicts L1 rule #%(id)s (%(signal)s); L1 is never overwritten automatically"),
        {"signal": phrases},
    ),
    (
        re.compile(
            r"contradicts memory #(?P<id>\d+) \((?P<signal>.+)\) "
            r"without stronger evidence \((?P<new>[\d.]+) ≤ (?P<old>[\d.]+)\): a person decides"
        ),
        _("contradicts memory #%(id)s (%(signal)s) without stronger evidence (%(new)s ≤ %(old)s): a person decides"),
        {"signal": phrases},
    ),
    (
        re.compile(
            r"contradicts memory #(?P<id>\d+) \((?P<signal>.+)\) "
            r"with stronger evidence \((?P<new>[\d.]+) > (?P<old>[\d.]+)\): new version"
        ),
        _("contradicts memory #%(id)s (%(signal)s) with stronger evidence (%(new)s > %(old)s): new version"),
        {"signal": phrases},
    ),
    (
        re.compile(r"duplicate of global memory #(?P<id>\d+) \((?P<why>.+)\); not reinforced from another scope"),
        _("duplicate of global memory #%(id)s (%(why)s); not reinforced from another scope"),
        {"why": phrases},
    ),
    (
        re.compile(r"duplicate of memory #(?P<id>\d+) \((?P<why>.+)\); reinforced it instead"),
        _("duplicate of memory #%(id)s (%(why)s); reinforced it instead"),
        {"why": phrases},
    ),
    (re.compile(r"importance (?P<value>[\d.]+)/10"), _("importance %(value)s/10"), {}),
    (
        re.compile(r"picked for human audit \(draw (?P<draw>[\d.]+) < rate (?P<rate>[\d.]+)\)"),
        _("picked for human audit (draw %(draw)s < rate %(rate)s)"),
        {},
    ),
    (re.compile(r"sampled audit of an automatic (?P<action>\w+)"), _("sampled audit of an automatic %(action)s"), {"action": choice}),
    (
        re.compile(
            r"sampled audit overturned by reviewer (?P<who>.+?): automatic REJECT was wrong; "
            r"(?P<action>\w+) to (?P<layer>L\d) as memory #(?P<id>\d+)"
        ),
        _("sampled audit overturned by reviewer %(who)s: the automatic reject was wrong; %(action)s to %(layer)s as memory #%(id)s"),
        {"action": choice},
    ),
    (
        re.compile(r"sampled audit: automatic (?P<action>\w*) confirmed by reviewer (?P<who>.+)"),
        _("sampled audit: automatic %(action)s confirmed by reviewer %(who)s"),
        {"action": choice},
    ),
    (
        re.compile(r"approved by reviewer (?P<who>.+?): (?P<action>\w+) to (?P<layer>L\d) as memory #(?P<id>\d+)"),
        _("approved by reviewer %(who)s: %(action)s to %(layer)s as memory #%(id)s"),
        {"action": choice},
    ),
    (
        re.compile(r"automatic (?P<action>\w*) judged wrong: memory #(?P<id>\d+) archived"),
        _("automatic %(action)s judged wrong: memory #%(id)s archived"),
        {"action": choice},
    ),
    (re.compile(r"automatic (?P<action>\w*) judged wrong"), _("automatic %(action)s judged wrong"), {"action": choice}),
    (re.compile(r"rejected by reviewer (?P<who>.+)"), _("rejected by reviewer %(who)s"), {}),
    (re.compile(r"acknowledged by reviewer (?P<who>.+)"), _("acknowledged by reviewer %(who)s"), {}),
    (re.compile(r"note: (?P<note>.*)", re.S), _("note: %(note)s"), {}),
]


def translate_reason(text: str) -> str:
    """One stored reason in the active language (unchanged in English or when unknown)."""
    if not isinstance(text, str):
        return str(text)
    if not get_language_is_zh():
        return text
    stripped = text.strip()
    for pattern, template, parts in PATTERNS:
        match = pattern.fullmatch(stripped)
        if match is None:
            continue
        values = {name: parts.get(name, KEEP)(value or "") for name, value in match.groupdict().items()}
        return str(template) % values
    return text


def translate_reasons(reasons) -> list[str]:
    if isinstance(reasons, str):
        return [translate_reason(reasons)]
    return [translate_reason(r) for r in (reasons or [])]


def stage_label(stage: str) -> str:
    label = STAGE_LABELS.get(stage)
    return str(label) if label is not None else stage


def decision_label(decision: str) -> str:
    label = DECISION_LABELS.get(decision)
    return str(label) if label is not None else (decision or "—")
