"""The deterministic guard rules. No model is asked; these decide alone, and they run
before any model call they can precede (provenance before classification, content
rules before value and judge), so an outage can only park what they let through.

They also derive the source attribution, which the layer policy later relies on: a
judge's opinion about attribution is recorded but never grants a layer."""

from __future__ import annotations

import re

from django.utils import timezone

from governance.funnel.injection import injection_hits
from governance.funnel.types import PASS, Candidate, StageOutcome
from governance.write.hard_rules import Authority, HardRule, layer_refusal
from memories.constants import Attribution as A
from memories.constants import Source
from textrules import signals as s
from textrules.claims import UNSETTLED, Stance, extract_claim
from textrules.reasons import Reason, ReasonCode
from textrules.statements import strip_question_tail

# How a user answers "yes" in their own words, beside the reported forms in s.CONFIRMATION.
USER_ASSENT = re.compile(
    r"^\s*(?:好的?|好吧|对的?|是的|嗯+|可以|行|没问题|同意|确认|就这么办|就按(?:这个|你说的)|按(?:这个|你说的)来|照(?:此|这个)执行|ok(?:ay)?|yes|yep|sure|"
    r"agreed|confirmed|sounds good|go ahead|do it|let'?s do (?:it|that))\b|就按这个|按这个执行",
    re.IGNORECASE,
)


# The agent's own reasoning, as opposed to a report of what the data says.
INFERENCE = re.compile(
    r"推断|推测|推理|我认为|我觉得|我估计|估计是|应该是因为|看起来是|猜测|"
    r"\bI (?:infer|think|believe|guess|suspect)\b|\bprobably\b|\bseems? to\b|\bmy guess\b",
    re.IGNORECASE,
)


# "我没同意", "I never agreed": a confirmation word under a negation is a denial.
DENIED = re.compile(
    r"(?:没|没有|并没有|未|不|从没|从来没)(?:有)?(?:说过?)?(?:同意|确认|答应|认可)|不记得|没印象|理解错|没说过|没说要|"
    r"\b(?:never|didn'?t|did not|haven'?t|have not)\s+(?:agree|confirm|approve|say)|\bwhen did I\b|\bdid I (?:say|agree|confirm|approve)\b",
    re.I,
)


# "嗯……先看看数据再说", "wait and see": an answer put off is no yes, unless a yes came first
# and the put-off is about something else ("好的，先暂停，等数据回来再说").
DEFERRED = re.compile(
    r"再说(?:吧)?[\s。.!！…~～]*$|回头再|晚点再|先跑完|先看看|"
    r"\bhold off\b|\bnot yet\b|\bwait and see\b",
    re.I,
)
# "好，我考虑一下", "ok, let me think about it": the proposal itself is put off, whatever came first.
THINKING_IT_OVER = re.compile(r"考虑一下|想一想|想想看|再商量|\blet me think\b|\bget back to you\b|\bthink (?:it|this) over\b", re.I)


# A sound made while thinking, not an answer: "嗯……", "hmm", "um".
HESITATION = re.compile(r"^\s*(?:嗯+|呃+|额+|hmm+|um+|uh+)[\s…。.,，、~～]*", re.I)


# Words inside quotation marks are someone else's, quoted back: “好的，就这么办”——这是你替我说的吧.
QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|‘[^’]*’|\"[^\"]*\"")


def assents(text: str) -> bool:
    """Whether these words say yes. A question, a what-if or a hedge never does, nor a
    confirmation that is quoted back or denied ("你说我同意了？", "I never agreed to that"),
    nor an answer put off ("嗯……先看看数据再说")."""
    if extract_claim(text).stance in UNSETTLED or DENIED.search(text) or THINKING_IT_OVER.search(text):
        return False
    own = QUOTED.sub(" ", text)
    put_off = DEFERRED.search(own)
    if put_off:
        # A yes said before the put-off holds ("好的，先暂停，等数据回来再说"); a bare "嗯" is no yes.
        own = HESITATION.sub("", own[: put_off.start()])
    return s.has(s.CONFIRMATION, own) or bool(USER_ASSENT.search(own))


def user_confirms(texts: list[str]) -> bool:
    """Whether a user's own words say yes to what the assistant proposed."""
    return any(assents(text) for text in texts)


def claim_turns(turns: list[dict[str, str]]) -> list[dict[str, str]]:
    """The turns a memory is about. The assistant's last word belongs to the claim only
    when the user's answer confirms it; otherwise the claim is what the user said after
    it, so assistant text is never credited to the user. A conversation that ends with
    the assistant is the assistant's claim."""
    last = max((i for i, t in enumerate(turns) if t["role"] != "user"), default=None)
    if last is None:
        return turns
    answer = turns[last + 1 :]
    if not answer or user_confirms([t["content"] for t in answer]):
        return turns[last:]
    return answer


def attribution_from_turns(turns: list[dict[str, str]]) -> str:
    """Who said it, from the structure of a role-tagged conversation: only a user turn
    after the assistant's last word can confirm what the assistant proposed."""
    roles = [t["role"] for t in turns]
    if "user" not in roles:
        return A.ASSISTANT_SUGGESTION
    last_assistant = max((i for i, role in enumerate(roles) if role != "user"), default=-1)
    later_user = [t["content"] for t in turns[last_assistant + 1 :] if t["role"] == "user"]
    if last_assistant < 0:
        return A.USER_STATED
    if not later_user:
        return A.ASSISTANT_SUGGESTION
    return A.USER_CONFIRMED if user_confirms(later_user) else A.USER_STATED


def derive_attribution(c: Candidate) -> str:
    if c.turns:
        return attribution_from_turns(c.turns)
    text = c.content
    if c.source == Source.HUMAN:
        return A.HUMAN_CONFIG
    if c.source == Source.SYSTEM:
        return A.RULE_UPDATE if c.trigger_type == "rule_update" else A.TOOL_OBSERVATION
    if c.source == Source.TOOL:
        return A.TOOL_OBSERVATION
    if c.source == Source.USER:
        confirmed = s.has(s.CONFIRMATION, text) and assents(text)
        if s.has(s.ASSISTANT_VOICE, text) and not confirmed:
            return A.ASSISTANT_SUGGESTION
        return A.USER_CONFIRMED if confirmed else A.USER_STATED
    # Assistant or agent text: words that vouch for it ("用户已确认") earn nothing; only
    # a user turn confirms (send messages with roles).
    suggests = s.has(s.ASSISTANT_VOICE, text) or s.has(s.SUGGESTION, text)
    if c.source == Source.ASSISTANT or suggests:
        return A.ASSISTANT_SUGGESTION
    if s.has(s.USER_VOICE, text):
        return A.USER_STATED  # an agent relaying what a user said
    measured = s.numbers_in_data(c.data) if c.data else []
    if measured and not INFERENCE.search(text):
        match = s.match_numbers(s.numbers(text), measured)
        if not match.unmatched:
            # Every figure it states (if any) comes from the structured data the task
            # system returned: a report of that data, not an inference.
            return A.TOOL_OBSERVATION
    return A.AGENT_INFERENCE


def self_vouching(c: Candidate) -> list[str]:
    """Confirmation words inside assistant or agent text: recorded, never credited."""
    if c.turns:
        return [h for t in c.turns if t["role"] != "user" for h in s.hits(s.CONFIRMATION, t["content"])][:2]
    return s.hits(s.CONFIRMATION, c.content)[:2] if c.source in {Source.ASSISTANT, Source.AGENT} else []


def number_conclusion(text: str) -> bool:
    return bool(s.numbers(text)) and (s.has(s.EFFECT, text) or s.has(s.METRIC, text))


def _layer_refusal(c: Candidate) -> Reason | None:
    """A hard layer rule an automatic write would break (L1 without authority parks later,
    in the layer policy, so it is not a refusal here)."""
    if not c.layer:
        return None
    refusal = layer_refusal(
        layer=c.layer, source=c.source, attribution=c.attribution, authority=Authority.funnel("funnel"), observed_at=timezone.now()
    )
    if refusal is None or refusal.rule == HardRule.L1_AUTHORITATIVE:
        return None
    return refusal.reason


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_strings(k), *_strings(v))]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _strings(v)]
    return []


def provenance_rules(c: Candidate) -> StageOutcome:
    """Before any model is asked: whose claim is it, and may it go where it asks to?"""
    c.attribution = derive_attribution(c)
    reasons: list[Reason] = []
    suggestions = s.hits(s.SUGGESTION, c.content) + s.hits(s.ASSISTANT_VOICE, c.content)
    if suggestions and c.attribution == A.ASSISTANT_SUGGESTION:
        reasons.append(Reason.of(ReasonCode.ASSISTANT_UNCONFIRMED, quote=suggestions[0]))
    layer_reason = _layer_refusal(c)
    if layer_reason:
        reasons.append(layer_reason)
    scores: dict[str, object] = {
        "attribution": c.attribution,
        "layer": c.layer,
        "signals": {"suggestion": suggestions[:2], "self_vouching": self_vouching(c), "turns": [t["role"] for t in c.turns]},
    }
    if reasons:
        return StageOutcome("provenance", "REJECT", reasons, scores)
    return StageOutcome("provenance", PASS, [Reason.of(ReasonCode.PROVENANCE_PASSED, attribution=c.attribution)], scores)


def _speaker_words(c: Candidate) -> str:
    """Whose stance decides: in a conversation, the user's words after the assistant's last
    turn (a user who answers "要，按这个做" to an assistant's question states it)."""
    if not c.turns:
        return c.content
    last = max((i for i, t in enumerate(c.turns) if t["role"] != "user"), default=-1)
    # A statement that ends by asking for agreement ("…先设2.2元，你觉得呢？") still states it,
    # as the stored statement does (textrules.statements).
    answer = [strip_question_tail(t["content"]) for t in c.turns[last + 1 :] if t["role"] == "user"]
    return "\n".join(answer) if answer else c.content


def content_rules(c: Candidate) -> StageOutcome:
    """After classification, still without a model: hedged claims, figures with no
    grounding, the layer rules for a layer the trigger type chose, and text that gives
    the system orders (quarantined for a person whatever a judge would say)."""
    c.attribution = derive_attribution(c)  # the trigger type may be known only now
    reasons: list[Reason] = []
    scores: dict[str, object] = {"attribution": c.attribution, "layer": c.layer}
    text = c.content
    hedges = [] if c.trigger_type == "anomaly_pattern" else s.is_hedged(text)
    stance = extract_claim(_speaker_words(c)).stance
    if stance in {Stance.QUESTION, Stance.HYPOTHETICAL} and not c.data:
        # Stance first: a question or a what-if states nothing, whatever else it mentions.
        reasons.append(Reason.of(ReasonCode.UNSETTLED_STANCE, stance=str(stance)))
    elif hedges:
        reasons.append(Reason.of(ReasonCode.HEDGED, quote=hedges[0]))
    layer_reason = _layer_refusal(c)
    if layer_reason:
        reasons.append(layer_reason)
    if c.attribution in {A.AGENT_INFERENCE, A.ASSISTANT_SUGGESTION} and number_conclusion(text):
        match = s.match_numbers(s.numbers(text), s.numbers_in_data(c.data))
        scores["numbers"] = {"claimed": match.claimed[:8], "matched": match.matched[:8]}
        if not match.matched:
            reasons.append(Reason.of(ReasonCode.UNGROUNDED_NUMBERS))
    scores["signals"] = {"hedge": hedges[:2]}
    if reasons:
        return StageOutcome("guard_rules", "REJECT", reasons, scores)
    injected = injection_hits("\n".join([c.content, *_strings(c.data)]))
    if injected:
        scores["injection"] = [kind for kind, _ in injected]
        reason = Reason.of(ReasonCode.INJECTION_PARKED, quotes=[text for _, text in injected])
        return StageOutcome("guard_rules", "PENDING_REVIEW", [reason], scores)
    return StageOutcome("guard_rules", PASS, [Reason.of(ReasonCode.GUARD_PASSED, attribution=c.attribution)], scores)


def deterministic_refusals(c: Candidate) -> list[Reason]:
    """The reasons the deterministic rules refuse a candidate, for an approval that runs
    them again. The layer rules are left to the write function, which knows who approves."""
    layer = c.layer
    c.layer = ""
    try:
        # An injection park is what brought the item to a person; only refusals count here.
        reasons = [r for outcome in (provenance_rules(c), content_rules(c)) if outcome.decision == "REJECT" for r in outcome.reasons]
    finally:
        c.layer = layer
    return reasons
