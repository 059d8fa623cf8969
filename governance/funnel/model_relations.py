"""The model's word on relations (issue 23: with a gateway, the model judges how a
candidate relates to what is remembered), asked before the write transaction and
applied inside it.

`stage_relations` runs with the other model stages, outside the transaction and its
lock: it sends the candidate and its nearest neighbours (their texts and the claims the
rules read) to the configured provider and keeps the verdicts, by memory id, on the
candidate. The conflict stage then reads the neighbours again inside the transaction and
`overlay` puts the model's verdict on each neighbour it saw; a neighbour it did not see
(a memory written meanwhile) keeps the rules' relation. A timeout, an error or a
malformed answer leaves every relation to the rules, and the trace says why.

The model may see what the claim vocabulary misses (a CPC cap is a bid cap; two
sentences that read alike but name another product). It may not erase what the rules
read: memory texts are untrusted, and a verdict is only advice on top of them.
- the same text is one memory, whatever the model says;
- a different subject the rules read on both sides (plan, weekday, category, …) stays
  compatible: no model verdict supersedes or reinforces across subjects;
- a different value of the same subject and lever the rules read is never a repeat or
  a compatible statement: a model that says so is disputed, and a person decides;
- a repeat the model sees where the rules read any difference is disputed likewise;
- a model verdict that would change what happens to an L1 rule parks it for an
  operator (a contradiction of L1 parks in the conflict stage already);
- a target in another advertiser's scope is never superseded (the conflict stage parks
  any contradiction across scopes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from governance.funnel.related import candidate_claim, memory_claim
from governance.funnel.relation import AMBIGUOUS, COMPATIBLE, CONTRADICTION, DUPLICATE, SUBJECT_FACETS, outcome_of
from governance.funnel.types import Candidate, StageOutcome
from judges.base import RelationAnswer, RelationNeighbour, RelationRequest, RelationSource
from judges.schemas import RelationOut
from memories.constants import Layer
from memories.hashing import content_hash
from textrules.claims import Facet

if TYPE_CHECKING:
    from governance.funnel.pipeline import FunnelContext

# The nearest neighbours the model is asked about; the rest keep the rules' relation.
MODEL_NEIGHBOURS = 5
REASON_CHARS = 160


def relation_request(c: Candidate, related: list[dict[str, Any]]) -> RelationRequest:
    return RelationRequest(
        content=c.content,
        claim=candidate_claim(c).as_dict(),
        neighbours=[
            RelationNeighbour(
                id=r["memory"].pk,
                content=r["memory"].content,
                claim=memory_claim(r["memory"]).as_dict(),
                relation=r.get("claims_relation", r["relation"]),
                facet=r.get("signal", ""),
                detail=r.get("detail", ""),
            )
            for r in related[:MODEL_NEIGHBOURS]
        ],
    )


def stage_relations(ctx: FunnelContext) -> StageOutcome | None:
    """Asks the provider about the neighbours the judge stage found (no refresh: this runs
    outside the transaction). No trace row of its own: the conflict stage records what
    was asked, what came back and what was used."""
    c = ctx.candidate
    if not c.related or not ctx.provider.relation_model:
        # No neighbours, the embedder failed (the conflict stage parks on that itself), or
        # no model to ask: the rules' relations stand as they are.
        return None
    c.relation_answer = ctx.provider.relate(request=relation_request(c, c.related))
    return None


def _judged(c: Candidate, r: dict[str, Any], verdict: RelationOut) -> dict[str, Any]:
    """The neighbour `r` (the rules' relation) with the model's verdict applied where the
    hard rules allow it (module docstring). The gateway's model stands in for the pair model:
    its verdict is weighed against what the claim rules alone said."""
    rules, model = r.get("claims_relation", r["relation"]), str(verdict.relation)
    r = {key: value for key, value in r.items() if key != "doubted"} | {"relation": rules}
    entry = {
        **r,
        "source": str(RelationSource.MODEL),
        "rules_relation": rules,
        "model_relation": model,
        "model_facet": str(verdict.facet),
        "model_reason": verdict.reason[:REASON_CHARS],
    }

    def kept(why: str) -> dict[str, Any]:
        entry["overruled"] = why
        return entry

    def disputed(why: str) -> dict[str, Any]:
        entry.update(relation=AMBIGUOUS, disputed=True, overruled=why)
        return entry

    if model == rules:
        return entry
    old = r["memory"]
    signal = r.get("signal", "")
    if old.content_hash == content_hash(c.content):
        return kept("the same text is the same memory")
    if rules == AMBIGUOUS:
        return kept("the rules cannot tell the two subjects apart")
    if rules == CONTRADICTION:
        return disputed("the rules read a different value of the same subject and lever")
    if rules == COMPATIBLE and signal in SUBJECT_FACETS and r.get("detail"):
        return kept("the rules read a different subject")
    if old.layer == Layer.L1 and model != CONTRADICTION and outcome_of(model) != outcome_of(rules):
        return disputed("an L1 rule changes only by an operator's review")
    if model == DUPLICATE and not (rules == DUPLICATE or (rules == COMPATIBLE and signal == str(Facet.TEXT))):
        return disputed("the rules read a difference the model calls a repeat")
    if model == AMBIGUOUS:
        return disputed("the model cannot tell the two subjects apart")
    if model == CONTRADICTION and rules == COMPATIBLE and signal in SUBJECT_FACETS:
        # Each names a part of the subject the other leaves open: not the same subject.
        return disputed("each side names a part of the subject the other leaves open")
    entry.update(relation=model, signal=str(verdict.facet), detail=f"model: {verdict.reason[:REASON_CHARS]}")
    return entry


def overlay(c: Candidate, related: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`related` (read inside the transaction) with the model's verdicts applied, and the
    scores the conflict trace records: relation_source "model" when at least one verdict
    of the model was read, else "offline", and `fallback` when a model was asked but its
    verdicts are not used."""
    answer: RelationAnswer | None = c.relation_answer
    if answer is None or answer.source != RelationSource.MODEL:
        scores: dict[str, Any] = {"relation_source": str(RelationSource.OFFLINE)}
        if answer is not None and answer.fallback:
            scores["fallback"] = answer.fallback
        if answer is not None and answer.ignored:
            scores["model_ignored"] = answer.ignored
        return [{**r, "source": str(RelationSource.OFFLINE)} for r in related], scores
    out, used, unseen = [], 0, []
    for r in related:
        verdict = answer.verdicts.get(r["memory"].pk)
        if verdict is None:
            unseen.append(r["memory"].pk)
            out.append({**r, "source": str(RelationSource.OFFLINE)})
            continue
        used += 1
        out.append(_judged(c, r, verdict))
    scores = {"relation_source": str(RelationSource.MODEL if used else RelationSource.OFFLINE)}
    if not used and related:
        scores["fallback"] = "the model saw none of the memories found inside the write transaction"
    if unseen:
        scores["model_unseen"] = unseen
    if answer.ignored:
        scores["model_ignored"] = answer.ignored
    return out, scores


def stamp(outcome: StageOutcome, answer: RelationAnswer | None) -> StageOutcome:
    """The model call's telemetry on the conflict trace row (its latency as a score: the
    row's own latency is the stage's, inside the transaction)."""
    if answer is None or not answer.model_called:
        return outcome
    t = answer.telemetry
    outcome.provider, outcome.model, outcome.prompt_version = t.provider, t.model, t.prompt_version
    outcome.tokens_in, outcome.tokens_out, outcome.cost_usd = t.tokens_in, t.tokens_out, t.cost_usd
    outcome.scores["relation_latency_ms"] = round(t.latency_ms, 3)
    if t.attempts > 1:
        outcome.scores["relation_attempts"] = t.attempts
    return outcome


__all__ = ["MODEL_NEIGHBOURS", "overlay", "relation_request", "stage_relations", "stamp"]
