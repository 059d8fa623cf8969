"""One standalone statement from the turns a memory is about.

A memory is read months later by someone who never saw the conversation, so what is
stored must say who, what, scope and condition on its own: "brand_A 美妆新计划冷启动期出价
先设 2.2 元，ROI 稳定后逐步下调（用户确认助手建议）", not an assistant's paragraph followed by
"好的，就按这个来". The exact turns stay attached to the event for drill-down.

The statement is composed here from the turns alone (plain text rules, no model): the
substantive proposal (the assistant's suggestion the user confirmed, or the user's own
words), without greetings, acknowledgements, confirmations and question tails; the
advertiser first when the words do not name it; scope words the user gave in the turn
before (the product, plan, channel, phase) when the proposal leaves them out; and who
said it, in brackets. A model may word it better (judges/statement.py); its sentence is
kept only when `model_statement_problems` finds nothing it added or lost."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from textrules import signals as s
from textrules.claims import UNSETTLED, Claim, Stance, extract_claim
from textrules.claims.words import (
    ADVERTISER,
    AUDIENCES,
    CHANNELS,
    CONDITIONS,
    CONSEQUENCE,
    EVENTS,
    HYPOTHETICAL,
    LEVERS,
    PLAN,
    VERTICALS,
    WEEKDAY,
    WEEKDAY_SPAN,
    WEEKEND,
    WORKDAYS,
)


class Provenance(StrEnum):
    """Who the statement comes from, as its bracket says."""

    CONFIRMED = "confirmed"  # the user confirmed the assistant's suggestion
    STATED = "stated"  # the user's own words


NOTES: dict[Provenance, tuple[str, str]] = {
    Provenance.CONFIRMED: ("用户确认助手建议", "user confirmed the assistant's suggestion"),
    Provenance.STATED: ("用户陈述", "stated by the user"),
}

_CJK = re.compile(r"[\u4e00-\u9fff]")
# Where a clause ends: Chinese punctuation always; a Latin comma, "!", "?" or ";" unless a
# digit follows ("5,000"); a full stop only before a space or the end ("2.2 元" stays whole).
_BREAK = re.compile(r"[，。！？；\n]|[,!?;](?!\d)|\.(?=\s|$)")
_TRIM = " \t\r\n，,。.！!；;、~～"
_SENTENCE_ENDS = frozenset("。！？；\n.!?;")
_ENDS_ASKING = re.compile(r"[?？]\s*$|[吗呢么嘛]\s*[?？。.!！]*\s*$")

# Acknowledgements and assent, when a clause says nothing else.
_ASSENT = (
    r"好的?|好吧|好嘞|好滴|对的?|是的|嗯+|哦+|可以|行|没问题|同意|确认|收到|了解|明白(?:了)?|知道了|"
    r"ok(?:ay)?|yes|yep|yeah|sure|agreed|confirmed|sounds good|looks good|great|perfect|thanks?|thank you|got it|noted"
)
_DO_IT = (
    r"(?:那)?(?:就)?(?:按|照)(?:这个|你说的|您说的|此|这样|上面的?|你的(?:建议|方案)|这个方案)(?:来|办|做|执行|走|弄|调)?|"
    r"就这么(?:办|定|来|做|执行)|就这样|照此执行|可以执行|(?:那就|就)?执行吧|"
    r"go ahead|do it|let'?s do (?:it|that|this)|(?:let'?s )?go with (?:it|that|this)|make it so|ship it"
)
FILLER = re.compile(rf"^(?:(?:{_ASSENT}|{_DO_IT})(?:啦|了|呀|哈|啊|哦|吧)?(?:\s*(?:please|pls|谢谢|thanks))?[\s!！。.,，、~～]*)+$", re.I)
# How an assistant introduces its proposal; the proposal itself follows.
LEAD_IN = re.compile(
    r"^(?:(?:我|我们)(?:的)?(?:会)?建议(?:是)?|建议)(?:您|你|你们|大家|我们)?(?:可以)?\s*[:：]?\s*|^可以考虑|^不妨|"
    r"^(?:I(?:'d| would)? (?:suggest|recommend)(?: that)?|my (?:suggestion|recommendation) is(?: to| that)?)\s*[:,]?\s*",
    re.I,
)
# "…冷启动期建议出价 1.8 元": the same word inside a Chinese clause.
_INNER_SUGGEST = re.compile(r"(?<=[\u4e00-\u9fff\s，,：:])(?:我们?)?建议(?:您|你|你们|大家|我们)?(?=[\u4e00-\u9fffA-Za-z0-9])")
# A user turn that opens by turning the assistant down ("不，先设 2.0 元"): the statement follows.
_REFUSAL = re.compile(r"^(?:不|不对|不是|不用|不行|算了|no|nope|nah)\s*[,，]\s*", re.I)
_CONNECTOR = re.compile(r"^(?:不过|但是|但|另外|同时|还有|并且|and|but|also|however|plus)\s*[,，]?\s*", re.I)
# A tail after a comma that only asks for agreement ("…，你觉得呢？", "…, right?").
TAIL_QUESTION = re.compile(
    r"^(?:(?:你|您)?(?:觉得|看)(?:呢|怎么样|如何|行不行|可以吗|行吗|好吗|合适吗|对吗)|(?:这样|这么做)?(?:可以|行|好|对|合适|没问题)(?:吗|吧|不)|"
    r"怎么样|如何|是吧|对吧|对不对|好不好|行不行|可不可以|没问题吧|"
    r"right|ok(?:ay)?|agree|thoughts|what do you think|does that (?:work|sound \w+)|sounds? good|makes? sense|ok with you)\s*[?？]?\s*$",
    re.I,
)
# A remainder that still asks, missing only its question mark after the cut ("Can brand_X reuse…").
_ASKS = re.compile(
    r"^(?:can|could|should|shall|would|will|do|does|did|is|are|was|were|may|might|what|why|how|when|where|who|which|whether)\b", re.I
)


def _clauses(text: str) -> list[str]:
    """The clauses of `text`, each with the punctuation that ends it."""
    out, start = [], 0
    for m in _BREAK.finditer(text):
        out.append(text[start : m.end()])
        start = m.end()
    out.append(text[start:])
    return [c for c in out if c.strip(_TRIM)]


def _core(clause: str) -> str:
    return clause.strip(_TRIM)


def _is_filler(clause: str) -> bool:
    core = _core(clause)
    return not core or s.has(s.GREETING, core) or bool(FILLER.match(core))


def _settled(text: str) -> bool:
    stance = extract_claim(text).stance
    return bool(_core(text)) and stance not in UNSETTLED and not _ASKS.match(_core(text))


def _premise(text: str) -> bool:
    """The set-up of a what-if: "Imagine brand_X stopped…", or "如果…" with no consequence."""
    found = HYPOTHETICAL.search(text)
    return found is not None and not CONSEQUENCE.search(text[found.end() :])


def strip_question_tail(text: str) -> str:
    """`text` without the questions it ends on ("…出价先设2.2元，你觉得呢？"), when what is
    left is a settled statement. A question alone, or one whose rest still asks or
    wonders, is returned as it is: the stance rule refuses it."""
    text = text or ""
    if extract_claim(text).stance != Stance.QUESTION:
        return text  # a what-if or a hedge asks as a whole; so does a settled text with nothing to cut
    clauses = _clauses(text)
    k = len(clauses)
    while k > 1 and _ENDS_ASKING.search(clauses[k - 1].strip()):
        # A whole sentence that asks may go; a comma clause only when it asks for agreement.
        ender = clauses[k - 2].rstrip(" \t")[-1:]
        if ender not in _SENTENCE_ENDS and not TAIL_QUESTION.match(_core(clauses[k - 1])):
            break
        k -= 1
        if _settled("".join(clauses[:k])) and not _premise("".join(clauses[:k])):
            cut = len("".join(clauses[:k]).rstrip())
            kept = text[: text.index(clauses[k].strip(), cut - 1 if cut else 0)]
            return kept.rstrip(" \t\n，,;；")
    return text


def _is_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def _clean(text: str, *, assistant: bool) -> tuple[str, list[str]]:
    """The substance of one turn and what was left out of it."""
    dropped: list[str] = []
    kept = []
    for clause in _clauses(text):
        if _is_filler(clause):
            dropped.append(_core(clause))
        else:
            kept.append(clause)
    body = "".join(kept).strip()
    if assistant:
        lead = LEAD_IN.match(body)
        if lead and body[lead.end() :].strip():
            dropped.append(lead.group(0).strip())
            body = body[lead.end() :]
        body = _INNER_SUGGEST.sub("", body)
    else:
        refusal = _REFUSAL.match(body)
        if refusal and body[refusal.end() :].strip():
            dropped.append(refusal.group(0).strip(_TRIM))
            body = body[refusal.end() :]
    stripped = strip_question_tail(body)
    if stripped != body:
        dropped.append(_core(body[len(stripped) :]))
        body = stripped
    return body.strip(), [d for d in dropped if d]


def _one_sentence(parts: list[str], *, cjk: bool) -> str:
    """Parts joined into one sentence: inner full stops become semicolons, the end loses its stop."""
    joined = ("；" if cjk else "; ").join(p.strip(_TRIM) for p in parts if p.strip(_TRIM))
    joined = re.sub(r"\s*[。！!\n]+\s*(?=\S)", "；" if cjk else "; ", joined)
    joined = re.sub(r"(?<=[a-z\d%)])\.\s+(?=[A-Za-z])", "; ", joined)
    return re.sub(r"[ \t]+", " ", joined).strip(_TRIM)


# --- scope from the user's earlier turn -----------------------------------------------------
def _vocabulary() -> list[re.Pattern[str]]:
    tables: list[str] = []
    for broad, fine in VERTICALS.values():
        tables.append(broad)
        tables.extend(fine.values())
    for table in (CHANNELS, AUDIENCES, EVENTS, CONDITIONS):
        tables.extend(table.values())
    tables.extend(LEVERS.values())
    return [re.compile(rx, re.I | re.A) for rx in tables] + [PLAN, WEEKDAY, WEEKDAY_SPAN, WORKDAYS, WEEKEND, s.TIME_RANGE]


_SCOPE_WORDS = _vocabulary()
# "冷启动" + "期": the word a phase or a time is named with.
_SCOPE_SUFFIX = re.compile(r"期间|期|阶段|时段|类目|品类|计划")


def borrowed_scope(context: str, body: str) -> str:
    """The words of `context` (the user's turn before the proposal) naming a product,
    plan, channel, audience, event, day, time, phase or lever that `body` does not name,
    as one phrase in the user's own order ("美妆新计划冷启动期出价"). Numbers are never taken."""
    if not context:
        return ""
    spans: list[tuple[int, int]] = []
    for rx in _SCOPE_WORDS:
        if rx.search(body):
            continue
        for m in rx.finditer(context):
            if rx is s.TIME_RANGE and not (m.group(5) or (m.group(2) and m.group(4))):
                continue  # "3-5" without 点 or minutes is not a time of day
            end = m.end()
            suffix = _SCOPE_SUFFIX.match(context, end)
            spans.append((m.start(), suffix.end() if suffix else end))
    if not spans:
        return ""
    spans.sort()
    merged = [list(spans[0])]
    for start, end in spans[1:]:
        gap = context[merged[-1][1] : start]
        if start <= merged[-1][1] or (len(gap) <= 2 and not re.search(r"[\s，,。.！!？?；;]", gap) and not s.NUMBER.search(gap)):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return " ".join(context[a:b].strip(_TRIM) for a, b in merged if context[a:b].strip(_TRIM))


# --- the statement ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Statement:
    text: str  # what is stored: the sentence and its provenance in brackets
    body: str  # the sentence alone
    note: str  # the bracket's words
    dropped: tuple[str, ...] = ()  # fillers, confirmations and question tails left out
    borrowed: str = ""  # scope words taken from the user's earlier turn


def provenance_note(provenance: Provenance, *, cjk: bool) -> str:
    zh, en = NOTES[provenance]
    return zh if cjk else en


def with_note(body: str, provenance: Provenance) -> str:
    cjk = _is_cjk(body)
    note = provenance_note(provenance, cjk=cjk)
    return f"{body}（{note}）" if cjk else f"{body} ({note})"


def advertiser_first(body: str, advertiser: str | None, *, scope: str = "") -> str:
    """`body` led by the advertiser when it does not name it, and by borrowed scope words."""
    cjk = _is_cjk(body)
    lead = advertiser if advertiser and advertiser.lower() not in body.lower() else ""
    head = " ".join(p for p in (lead, scope) if p)
    if not head:
        return body
    if scope:
        return f"{head}：{body}" if cjk else f"{head}: {body}"
    return f"{head} {body}" if cjk else f"{head}: {body}"


def compose_statement(
    *, turns: Sequence[Mapping[str, str]], provenance: Provenance, advertiser: str | None = None, context: str = ""
) -> Statement | None:
    """The statement of `turns` (the turns a memory is about, role-tagged). With
    CONFIRMED, the proposal is the assistant's last turn and anything the user adds when
    confirming; with STATED, the user's turns. `context` is the user's turn before them,
    read only for scope words. None when nothing substantive is left (the caller keeps
    the turns' own words)."""
    roles = [t.get("role") for t in turns]
    dropped: list[str] = []
    parts: list[str] = []
    if provenance == Provenance.CONFIRMED:
        last = max((i for i, role in enumerate(roles) if role != "user"), default=None)
        if last is None:
            return None
        proposal, lost = _clean(turns[last]["content"], assistant=True)
        dropped += lost
        if not proposal:
            return None
        parts.append(proposal)
        for turn in turns[last + 1 :]:
            added, lost = _clean(turn["content"], assistant=False)
            dropped += lost
            if added:
                parts.append(_CONNECTOR.sub("", added))
    else:
        said = []
        for turn in turns:
            if turn.get("role") != "user":
                continue
            words, lost = _clean(turn["content"], assistant=False)
            dropped += lost
            if words:
                said.append(words)
        # A question among settled statements ("brand_A 预算多少？" … "日预算定 5000 元") is not part of what is stated.
        settled = [w for w in said if extract_claim(w).stance not in UNSETTLED]
        parts = settled or said
    if not parts:
        return None
    cjk = _is_cjk("".join(parts))
    body = _one_sentence(parts, cjk=cjk)
    if not body:
        return None
    scope = borrowed_scope(context, body)
    body = advertiser_first(body, advertiser, scope=scope)
    note = provenance_note(provenance, cjk=cjk)
    return Statement(text=with_note(body, provenance), body=body, note=note, dropped=tuple(dropped), borrowed=scope)


# --- checking a model's wording ---------------------------------------------------------------
def _subject_parts(claim: Claim) -> dict[str, frozenset[object]]:
    sub = claim.subject
    return {
        "plan": frozenset(sub.plans),
        "channel": frozenset(sub.channels),
        "audience": frozenset(sub.audiences),
        "event": frozenset(sub.events),
        "place": frozenset(sub.places),
        "weekday": frozenset(sub.weekdays),
        "time slot": frozenset(sub.time_slots),
        "lever": frozenset(claim.levers),
        "condition": frozenset(claim.conditions),
    }


def model_statement_problems(sentence: str, *, source: str, composed: str, advertiser: str | None = None) -> list[str]:
    """What a model's sentence adds to, or loses from, what the turns say; empty when it
    may be stored. `source` is the turns' text (and the user's earlier turn), `composed`
    the statement composed from them. Added: a number, an advertiser code, a plan,
    channel, category, audience, event, place, day, time, lever or condition the source
    does not hold. Lost: a number of the composed statement, or its direction, switch or
    polarity. A question, or more than one line, is not a statement either."""
    problems: list[str] = []
    text = (sentence or "").strip()
    if not text:
        return ["empty"]
    if "\n" in text:
        problems.append("more than one line")
    if extract_claim(text).stance in UNSETTLED or _ENDS_ASKING.search(text):
        problems.append("not a settled statement")
    grounds = f"{source}\n{composed}"
    added = s.match_numbers(s.numbers(text), s.numbers(grounds)).unmatched
    if added:
        problems.append("adds number " + ", ".join(f"{n:g}" for n in added[:4]))
    lost = s.match_numbers(s.numbers(composed), s.numbers(text)).unmatched
    if lost:
        problems.append("drops number " + ", ".join(f"{n:g}" for n in lost[:4]))
    known = {a.lower() for a in ADVERTISER.findall(grounds)} | ({advertiser.lower()} if advertiser else set())
    strangers = sorted({a.lower() for a in ADVERTISER.findall(text)} - known)
    if strangers:
        problems.append("adds advertiser " + ", ".join(strangers))
    said, ground, plain = extract_claim(text), extract_claim(grounds), extract_claim(composed)
    for name, values in _subject_parts(said).items():
        extra = values - _subject_parts(ground)[name]
        if extra:
            problems.append(f"adds {name} " + ", ".join(sorted(map(str, extra))))
    verticals = {c.split("/")[0] for c in ground.subject.categories}
    extra_categories = {c for c in said.subject.categories if c not in ground.subject.categories and c not in verticals}
    if extra_categories:
        problems.append("adds category " + ", ".join(sorted(extra_categories)))
    for name, new, old in (
        ("direction", said.direction, plain.direction),
        ("switch", said.switch, plain.switch),
        ("polarity", said.polarity, plain.polarity),
    ):
        if new != old:
            problems.append(f"changes the {name}")
    return problems


def model_statement_body(sentence: str, provenance: Provenance) -> str:
    """The model's sentence without a provenance bracket it added itself (ours is appended)."""
    text = (sentence or "").strip().strip("。.")
    for note in NOTES[provenance]:
        for left, right in (("（", "）"), ("(", ")")):
            if text.endswith(f"{left}{note}{right}"):
                text = text[: -len(f"{left}{note}{right}")].rstrip()
    return text.strip().rstrip("。.")
