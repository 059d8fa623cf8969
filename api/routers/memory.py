"""Reads of memory: hybrid search, one memory with its versions, and the auto-recall block."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import Path, Query, Router
from ninja.errors import HttpError

from api.concurrency import token_slot
from api.recall import RecallSkip, query_from_messages, recall_choice, render_block, render_tiered, should_retrieve
from api.routers.common import COMMON_ERRORS, MAX_ID, request_token
from api.schemas import (
    AS_OF_HELP,
    EraseIn,
    EraseOut,
    ErrorOut,
    MemoryDetailOut,
    RecallIn,
    RecallOut,
    SearchIn,
    SearchOut,
    as_of_utc,
)
from api.security import scope_for
from memories.metrics_registry import record_recall
from memories.presenters import memory_dict
from memories.search.relevance import relevance_of

router = Router()


# --- reads ----------------------------------------------------------------------------
@router.post("/search", response={200: SearchOut, **COMMON_ERRORS}, tags=["memory"], summary="Hybrid search inside the token's scope")
def search(request: HttpRequest, payload: SearchIn) -> dict[str, Any]:
    from memories.selectors import memory_search

    advertisers = scope_for(request_token(request), payload.advertiser)
    scope = {
        "advertisers": advertisers,
        "business_line": payload.business_line,
        "layers": tuple(payload.layers) if payload.layers else None,
        "top_k": payload.top_k,
        "kinds": (payload.kind,) if payload.kind else None,
        "category": payload.category,
        "as_of": payload.as_of,
    }
    deep = None
    with token_slot(request_token(request)):
        if payload.mode == "deep":
            from memories.search.deep import deep_search

            response = deep_search(query=payload.query, **scope)
            deep = response.deep
        else:
            response = memory_search(query=payload.query, **scope)
    return {
        "query": payload.query,
        "results": [{**memory_dict(r.memory), "score": round(r.score, 4), "explain": r.explain} for r in response.results],
        "timing_ms": {"embed": round(response.embed_ms, 2), "search": round(response.search_ms, 2)},
        "mode": payload.mode,
        "deep": deep,
        **({"as_of": payload.as_of.isoformat()} if payload.as_of else {}),
        **_query_cut(response),
    }


def _query_cut(response: Any) -> dict[str, Any]:
    return {
        "query_truncated": response.query_truncated,
        "query_chars_embedded": response.query_chars_embedded,
        "query_embedding": response.query_embedding,
    }


@router.get(
    "/memories/{memory_id}",
    response={200: MemoryDetailOut, 404: ErrorOut, **COMMON_ERRORS},
    tags=["memory"],
    summary="One memory with its version history",
)
def memory_detail(
    request: HttpRequest, memory_id: int = Path(..., ge=1, le=MAX_ID), as_of: datetime | None = Query(None, description=AS_OF_HELP)
) -> dict[str, Any]:
    from memories.selectors import memory_as_of, memory_get, memory_history, memory_history_as_of

    # Another advertiser's memory answers 404, not 403, so ids do not reveal what exists.
    memory = memory_get(memory_id=memory_id, advertisers=request_token(request).scope)
    if as_of is not None:
        # The version valid then, with the versions that existed by then.
        at = as_of_utc(as_of)
        scope = request_token(request).scope
        then = memory_as_of(memory=memory, at=at, advertisers=scope)
        history = memory_history_as_of(memory=then, at=at, advertisers=scope)
        return {**memory_dict(then), "history": [memory_dict(m) for m in history], "as_of": at.isoformat()}
    return {
        **memory_dict(memory),
        "history": [memory_dict(m) for m in memory_history(memory=memory, advertisers=request_token(request).scope)],
    }


@router.delete(
    "/memories/{memory_id}",
    response={200: EraseOut, 404: ErrorOut, **COMMON_ERRORS},
    tags=["memory"],
    summary="Erase a memory's words (all versions) from every table, leaving a tombstone",
)
def memory_erase(request: HttpRequest, payload: EraseIn, memory_id: int = Path(..., ge=1, le=MAX_ID)) -> dict[str, Any]:
    from governance.write.erase import memory_erase as erase

    token = request_token(request)
    if not token.can_erase:
        raise HttpError(403, "this token may not erase memories (an operator grants the erase right)")
    result = erase(memory_id=memory_id, reason=payload.reason, actor=token.actor, advertisers=token.scope).as_dict()
    asked = next(t for t in result["tombstones"] if t["memory_id"] == memory_id)
    # The service's whole report, as much of it as this token may hear, so the API says what
    # the CLI and the audit row say.
    return {**result, "tombstone": asked}


@router.post(
    "/recall", response={200: RecallOut, **COMMON_ERRORS}, tags=["memory"], summary="A <lingix-memory> prompt block for auto-recall"
)
def recall(request: HttpRequest, payload: RecallIn) -> dict[str, Any]:
    from memories.selectors import memory_search

    if payload.query is None and payload.messages is None:
        raise HttpError(422, "give either 'query' or 'messages'")
    advertisers = scope_for(request_token(request), payload.advertiser)
    query = payload.query if payload.query is not None else query_from_messages([m.dict() for m in payload.messages or []])
    query = query.strip()[:2000]
    decision = should_retrieve(query, force=payload.force)
    empty = {
        "context": "",
        "memories": [],
        "tokens": 0,
        "retrieved": False,
        "reason": decision.reason,
        "skipped": decision.skipped,
        "query": query,
    }
    if not decision.retrieve:
        return empty
    scope = {
        "query": query,
        "advertisers": advertisers,
        "business_line": payload.business_line,
        "layers": tuple(payload.layers) if payload.layers else None,
        "top_k": payload.top_k,
        "as_of": payload.as_of,
    }
    with token_slot(request_token(request)):
        if payload.mode == "deep":
            from memories.search.deep import deep_search

            response = deep_search(**scope)
        else:
            response = memory_search(**scope)
    relevance = relevance_of(query=query, results=response.results, mode=payload.mode)
    measured = {"best": round(relevance.best, 4), "floor": relevance.floor} if response.results else None
    if not payload.force and not relevance.passes:
        # The store knows nothing close enough: an empty block beats eight unrelated lines.
        skipped = RecallSkip.BELOW_FLOOR if response.results else RecallSkip.NOTHING_FOUND
        reason = "nothing in memory is relevant enough" if response.results else "nothing found"
        return {**empty, "retrieved": True, "reason": reason, "skipped": skipped, "relevance": measured, **_query_cut(response)}
    render = render_tiered if payload.detail == "tiered" else render_block
    block = render(
        [(r.memory, r.score) for r in response.results], budget_tokens=payload.budget_tokens, now=payload.as_of or timezone.now()
    )
    record_recall(hits=len(block.lines), tokens=block.tokens)
    return {
        "context": block.context,
        "memories": [
            {
                "id": line.memory.pk,
                "layer": line.memory.layer,
                "advertiser": line.memory.advertiser,
                "content": line.memory.content,
                "score": round(line.score, 4),
                "age": line.age,
                "tokens": line.tokens,
                "detail": line.detail,
            }
            for line in block.lines
        ],
        "chosen": recall_choice(block, ranked=len(response.results)),
        "tokens": block.tokens,
        "retrieved": True,
        "reason": decision.reason if block.lines else f"{decision.reason}; nothing relevant fits",
        "skipped": None if block.lines else RecallSkip.NOTHING_FITS,
        "relevance": measured,
        "query": query,
        **_query_cut(response),
    }
