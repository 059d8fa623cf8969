"""How a new statement relates to one already remembered, decided on their claims
(textrules.claims): duplicate, contradiction, refinement, compatible or ambiguous.

The embedding only finds the neighbours worth comparing. It cannot decide: the bundled
embedder puts a Wednesday bid rule and a Friday bid rule at cosine 0.97, and a daily
budget of 5000 元 and one of 8000 元 closer still. So:

1. a different part of the subject (advertiser, plan, category, channel, audience,
   weekday, time slot, event, place) or a different lever -> compatible;
2. the same subject and lever with a different value, direction, switch or polarity ->
   contradiction; when one side names a part of the subject the other leaves open, the
   two cannot be told apart -> ambiguous, for a person;
3. the same claim under narrower conditions or a narrower subject -> refinement, when the
   words show the narrowing (the old text with the part added, or a detail said as an
   addition: "用户补充：…") and take nothing back (no "no" or lifted bound added);
   otherwise the two may be one rule reworded -> ambiguous, for a person;
4. the same claim -> duplicate (a paraphrase, another language); only a pair found on
   structure alone, far apart in meaning and in words, is kept apart as compatible: the
   claim vocabulary missed what tells them apart (a product, a store). The same words with
   one noun swapped ("登山鞋" / "徒步鞋"), or the old words held with more said as an
   addition the vocabulary has no name for, are neither a repeat nor surely a second rule
   -> ambiguous, for a person.

Every answer names the part that decided, in words a reviewer reads without scores.

The rules were written pair by pair and read new wording worse than the wording they were
written on, so a model trained on labelled pairs (textrules/claims/pair_model.py) gives a
second opinion on what they found (`second_opinion`). The rules stay hard where they read
something outright: the same text, a different value of the same subject and lever, another
subject read on both sides. The model never writes or supersedes on its own: sure of itself,
it settles a question the rules left open only as a repeat, and parks for a person what they
would write or reinforce."""

from __future__ import annotations

from dataclasses import dataclass, replace

from textrules.claims import (
    UNSETTLED,
    Claim,
    ClaimRelation,
    Facet,
    Identity,
    RelationKind,
    Wording,
    claim_parts,
    relate_claims,
    within_bound,
)
from textrules.claims.pair_model import Opinion, pair_features, pair_model

DUPLICATE = RelationKind.DUPLICATE.value
CONTRADICTION = RelationKind.CONTRADICTION.value
REFINEMENT = RelationKind.REFINEMENT.value
COMPATIBLE = RelationKind.COMPATIBLE.value
AMBIGUOUS = RelationKind.AMBIGUOUS.value

# Below the related threshold by at most this, a pair with the same subject and lever is
# still compared (English paraphrases embed further apart than Chinese ones).
CONTRADICTION_MARGIN = 0.12
# Two structurally equal claims are one memory repeated only when worded alike too.
WORDING_DUPLICATE = 0.5
# A "refinement" worded almost exactly like the memory is that memory repeated.
WORDING_REPEAT = 0.8
# From this probability on, the pair model is sure of its verdict (second_opinion). Set by
# hand, not tuned: for an earlier, looser version of the policy, 10-fold cross-validation on
# the train split put thresholds from 0.5 to 0.8 within four pairs of each other; the final
# policy was not swept.
OPINION_SURE = 0.6


@dataclass(frozen=True)
class Relation:
    kind: str  # a RelationKind value
    signal: str  # the Facet that decided
    detail: str = ""  # what differed, "old → new", in the claim's own words
    matched: tuple[str, ...] = ()  # the subject parts and levers both share
    # Set when the pair model was asked: what the rules alone said, and the model's answer.
    rules_kind: str = ""
    opinion: Opinion | None = None
    doubted: bool = False  # the model, sure, disagreed with what the rules would do: a person decides

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {"relation": self.kind, "signal": self.signal, "detail": self.detail, "matched": list(self.matched)}
        if self.opinion is not None:
            found.update(
                claims_relation=self.rules_kind,
                learned_relation=self.opinion.relation,
                learned_p=round(self.opinion.probability, 3),
            )
        if self.doubted:
            found["doubted"] = True
        return found


# Refinements the words do tell apart: one more number for the lever, or an advertiser's
# memory beside a global one (narrower by its credential).
_TOLD_APART = {str(Facet.VALUE), str(Facet.ADVERTISER)}


def _shares_more_than_advertiser(found: Relation) -> bool:
    return any(not part.startswith(f"{Facet.ADVERTISER}:") for part in found.matched)


def _from_claims(found: ClaimRelation) -> Relation:
    detail = f"{found.old} → {found.new}" if found.old or found.new else ""
    return Relation(str(found.kind), str(found.facet), detail, found.matched)


def with_second_opinion(found: Relation, new: Claim, old: Claim, *, wording: Wording, cosine: float) -> Relation:
    """`found` (what `relate` read) with the pair model's opinion applied (second_opinion).
    The caller asks only where a model may have a say: never about an L1 rule (a changed
    rule goes to an operator) and never about an exact repeat."""
    features = pair_features(new, old, wording=wording, cosine=cosine, rules=found.kind, rules_facet=found.signal)
    return second_opinion(found, pair_model().opinion(features), new=new)


def outcome_of(kind: str) -> str:
    """What a relation makes the conflict stage do with the candidate."""
    if kind == DUPLICATE:
        return "reinforce"
    if kind in {CONTRADICTION, AMBIGUOUS}:
        return "change"
    return "beside"


def second_opinion(found: Relation, opinion: Opinion, *, new: Claim) -> Relation:
    """The rules' relation with the pair model's opinion applied where the rules allow it.
    A wrong memory is worse than a missing one, so the model never writes and never
    supersedes on its own. It counts only where it disagrees on what happens to the
    statement (reinforced, written beside, parked), and only when sure:
    - hard, whatever it says: what the rules read outright (a contradiction: a value, a
      switch, a polarity of the same subject and lever; another subject read on both
      sides), any difference they read and could not weigh ("安卓包" / "iOS包", "禁止" /
      "允许"), whether two names are one thing, and an unsettled statement (a question is
      never a repeat or a rule);
    - a question the rules left open without reading a difference (one side names a part
      the other leaves open, nothing read in common), a model sure of a repeat settles:
      reinforced. Never as a statement written beside: on pairs unlike those it learned
      from, the model takes a paraphrase for another subject ("只投18-30岁女性" / "定向18-30岁
      女性，男性暂不投", compatible at 0.79);
    - what the rules would write beside or reinforce, a model sure of something else parks
      for a person (its "contradiction" supersedes nothing)."""
    asked = replace(found, rules_kind=found.kind, opinion=opinion)
    if opinion.relation == found.kind or outcome_of(opinion.relation) == outcome_of(found.kind):
        # Refinement or compatible, contradiction or ambiguous: the same thing happens.
        return asked
    if found.kind == CONTRADICTION or new.stance in UNSETTLED or found.signal == Facet.IDENTITY:
        return asked
    if found.detail and (found.kind == AMBIGUOUS or (found.kind == COMPATIBLE and found.signal in SUBJECT_FACETS)):
        return asked
    if opinion.probability < OPINION_SURE:
        return asked
    if found.kind == AMBIGUOUS:
        return replace(asked, kind=DUPLICATE) if opinion.relation == DUPLICATE else asked
    return replace(asked, kind=AMBIGUOUS, doubted=True)


# Parts of a subject: a difference the rules read in one of them is a different subject.
SUBJECT_FACETS = frozenset(
    str(f)
    for f in (
        Facet.ADVERTISER,
        Facet.PLAN,
        Facet.CATEGORY,
        Facet.CHANNEL,
        Facet.AUDIENCE,
        Facet.WEEKDAY,
        Facet.TIME_SLOT,
        Facet.EVENT,
        Facet.PERIOD,
        Facet.PLACE,
        Facet.IDENTITY,
        Facet.CONDITION,
    )
)


def relate(
    new: Claim,
    old: Claim,
    *,
    cosine: float,
    same_text: bool,
    wording: Wording,
    related_cosine: float,
    exception_to_global: bool = False,
    identity: Identity | None = None,
) -> Relation | None:
    """None when the two are not about the same thing. `wording`: how the two texts' words
    compare (textrules.claims Wording). `exception_to_global`: the old memory holds for
    everyone and the new one for one advertiser only, so a different rule for that
    advertiser is an exception, not a contradiction. `identity`: the names each side gives
    its subject and what the store knows of them (an identity question when unknown).
    The claim rules alone: the pair model's opinion goes on top (with_second_opinion)."""
    if same_text:
        return Relation(DUPLICATE, str(Facet.TEXT))
    claims = relate_claims(new, old, wording=wording.overlap, identity=identity)
    # Far apart in meaning, a pair is still compared when it sets the same lever and no part of
    # its subject differs (another language, a paraphrase): the one relation decides both.
    same_ground = bool(new.topic & old.topic) and claims.kind != RelationKind.COMPATIBLE
    if cosine < related_cosine - CONTRADICTION_MARGIN and not same_ground:
        return None
    found = _from_claims(claims)
    if found.kind in {CONTRADICTION, AMBIGUOUS} and exception_to_global:
        return Relation(COMPATIBLE, str(Facet.ADVERTISER), "advertiser exception to a global memory", found.matched)
    if found.kind == REFINEMENT and wording.extends and wording.words_narrow and not wording.takes_back:
        # The old statement word for word with a part added, and the part narrows it
        # ("…CPC上限3.5元" → "…CPC上限3.5元只在工作日生效"): a refinement the words show.
        return found
    if found.kind in {REFINEMENT, AMBIGUOUS} and not found.detail and wording.adds_detail:
        # Said as a detail added ("客户补充：…健身人群只投女性"), naming a part the old one left
        # open: the speaker narrows the earlier statement, which stays as it was.
        return Relation(REFINEMENT, found.signal, found.detail, found.matched)
    if found.kind == DUPLICATE and wording.adds_detail and wording.extends:
        # The old words held and more said as an addition, in words the vocabulary has no name
        # for ("…target IT decision makers at director level or above"): it may narrow the
        # rule or say something else of it; neither a repeat nor a second rule. A person decides.
        return Relation(AMBIGUOUS, str(Facet.CONDITION), found.detail, found.matched)
    if found.kind == REFINEMENT and wording.takes_back and found.signal not in _TOLD_APART and not exception_to_global:
        # A narrower part with a "no" or a lifted bound added ("for new customers, bids are
        # not raised"): it may take the old rule back for that part; a person decides. An
        # advertiser's own rule beside a global memory is narrower by its credential: written.
        return Relation(AMBIGUOUS, found.signal, found.detail, found.matched)
    if found.kind in {REFINEMENT, AMBIGUOUS} and found.signal == str(Facet.CATEGORY) and not found.detail and wording.swapped_category:
        # The same words but at one place, where one names a category and the other a thing the
        # vocabulary does not know ("跑鞋日预算1.2万" / "篮球鞋日预算1.2万", "Meta ads for dining
        # tables…" / "…for sofas…"): two things, however alike the rest of the words.
        before, after = wording.swapped_category
        return Relation(COMPATIBLE, str(Facet.CATEGORY), f"{before} → {after}", found.matched)
    if found.kind == REFINEMENT and wording.overlap >= WORDING_REPEAT:
        # Nearly the same words, none added: a repeat that spells out a detail its data
        # carries (a plan id), not a new rule.
        return Relation(DUPLICATE, str(Facet.TEXT), found.detail, found.matched)
    if found.kind == DUPLICATE and wording.overlap < WORDING_DUPLICATE and cosine < related_cosine - CONTRADICTION_MARGIN:
        return Relation(COMPATIBLE, str(Facet.TEXT), found.detail, found.matched)
    if found.kind == REFINEMENT and found.signal not in _TOLD_APART and _shares_more_than_advertiser(found):
        # Something in common, and a part of the subject or a condition named on one side only:
        # "新款SUV" beside "SUV" is as often the same statement reworded as a narrower one,
        # and the words cannot tell which. Writing it beside would keep a repeat; a person
        # decides instead. Sharing only the advertiser, there is no rule to repeat.
        found = Relation(AMBIGUOUS, found.signal, found.detail, found.matched)
    if (
        found.kind == DUPLICATE
        and wording.overlap < WORDING_DUPLICATE
        and (
            (not _shares_more_than_advertiser(found) and not wording.shares_figure)
            or (wording.same_script and not new.states_a_value and not old.states_a_value)
        )
    ):
        # Worded apart, and nothing read in common but the advertiser ("companies with 50-500
        # employees" / "the landing page should lead with the case video"), or no value read on
        # either side in words that could be compared ("落地页首屏放价格" / "详情页首屏放用户评价"):
        # too little to call it a repeat, and reinforcing would drop what was said.
        return Relation(AMBIGUOUS, str(Facet.UNREAD), found.detail, found.matched)
    if found.kind == DUPLICATE and wording.swapped_name:
        # The same words but one name ("重疾险…日预算3万" / "百万医疗险…日预算3万"): the rule said
        # of another product the vocabulary does not know, or the same rule changed in a word
        # it does not know either ("偏年轻化" / "偏商务化"). Neither a repeat nor for sure a
        # second rule: a person decides.
        before, after = wording.swapped_name
        return Relation(AMBIGUOUS, str(Facet.IDENTITY), f"{before} → {after}", found.matched)
    if found.kind == AMBIGUOUS and not found.matched and cosine < related_cosine:
        # Nothing structured in common and not close in meaning: unrelated, not a question for a person.
        return None
    return found


def against_rule(found: Relation | None, *, rule: Claim, rule_text: str, other: Claim, other_text: str) -> Relation | None:
    """What a statement of another layer says against an L1 rule that binds it. A rule is
    guarded, not repeated or refined from below, so only a contradiction counts, or a change
    whose subject is narrower than the rule's (ambiguous with a before and after: the rule
    binds every narrower part of its subject too). A figure inside the rule's bound follows
    the rule, when the figure is all that differs ("0.8倍" under "不得高于1.3倍")."""
    if found is None:
        return None
    if found.kind == AMBIGUOUS and found.detail:
        # Only when the statement is the narrower one: a rule about 医药OTC does not bind a
        # statement that names no category.
        open_part = found.signal
        return None if claim_parts(rule).get(open_part) and not claim_parts(other).get(open_part) else found
    if found.kind != CONTRADICTION or not found.detail:
        # A correction that shows no changed value ("以后周末预算下调到8万" beside a monthly cap)
        # corrects something else: against a rule, only a change of what it states counts.
        return None
    if found.signal == str(Facet.VALUE) and within_bound(rule_text, rule, other_text, other):
        # With the rule's figures in place of its own, does the statement still go against it?
        rest = relate_claims(replace(other, quantities=rule.quantities), rule, wording=1.0)
        if rest.kind not in {RelationKind.CONTRADICTION, RelationKind.AMBIGUOUS}:
            return None
    return found


def rule_in_scope(rule: Claim, other: Claim) -> Claim:
    """A global L1 rule read in the scope of the advertiser it binds: it holds for every
    advertiser, so it leaves none open ("素材不得出现'根治'" against brand_A's "可以使用'根治'")."""
    if rule.subject.advertiser or not other.subject.advertiser:
        return rule
    return replace(rule, subject=replace(rule.subject, advertiser=other.subject.advertiser))
