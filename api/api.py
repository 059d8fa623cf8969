"""The agent API, mounted at /api/v1/. Each endpoint checks the token's scope, then
calls one selector or service; errors are mapped to 4xx JSON in one place (errors.py)."""

from __future__ import annotations

from django.utils import timezone
from ninja import Body, Path, Query
from ninja.errors import HttpError

from api.concurrency import token_slot
from api.conversation import router as conversation_router
from api.errors import install_exception_handlers
from api.models import ApiToken
from api.openapi_examples import DocumentedNinjaAPI
from api.organise import router as organise_router
from api.parser import StrictJsonParser
from api.recall import query_from_messages, recall_choice, render_block, render_tiered, should_retrieve
from api.renderer import Utf8JSONRenderer
from api.schemas import (
    TRIGGER_OPENAPI_EXAMPLES,
    DecisionOut,
    ErrorOut,
    IngestIn,
    MemoryDetailOut,
    RecallIn,
    RecallOut,
    ReflectOut,
    ReviewDecisionIn,
    ReviewListOut,
    SearchIn,
    SearchOut,
    StatusOut,
    TriggerIn,
)
from api.security import TokenAuth, TokenRateThrottle, scope_for, write_advertiser
from api.services import api_token_check_source
from api.suggestions import router as suggestions_router
from memories.metrics_registry import record_recall
from memories.presenters import memory_dict

MAX_ID = 2**63 - 1

api = DocumentedNinjaAPI(
    title="Lingix Memory agent API",
    version="1",
    description=(
        "Governed long-term memory for advertising agents. Every call needs "
        "`Authorization: Bearer <token>` (create one with `manage.py memory token create`). "
        "A token reads and writes only its advertisers; reads also see global memories. "
        'Errors are JSON `{"detail": …}`. Limits: 256 KiB bodies (413), queries up to 2000 '
        "characters (the embedder reads the first 96 tokens; `query_truncated` says when it cut), "
        "`top_k` 1-50, strict JSON (no NaN/Infinity, integers within 64 bits, nesting up to 32, "
        "no lone surrogates: 422 naming the JSON path), a per-token rate limit (429 with "
        "Retry-After; setting MEMORY_API_RATE, default 120/min) and at most MEMORY_API_CONCURRENCY "
        "(default 2) expensive requests in flight per token (429 with Retry-After). Without a judge provider the server refuses to start; "
        "if the API is reached anyway, every call answers 503 naming MEMORY_LLM_PROVIDER and "
        "MEMORY_LLM_API_KEY."
    ),
    urls_namespace="api-v1",
    docs_url="/docs",
    openapi_url="/openapi.json",
    auth=TokenAuth(),
    throttle=[TokenRateThrottle()],
    parser=StrictJsonParser(),
    renderer=Utf8JSONRenderer(),
)
install_exception_handlers(api)
api.add_router("/", organise_router)
api.add_router("/suggestions", suggestions_router)
api.add_router("", conversation_router)  # /distill and /memories/{id}/source

COMMON_ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 413: ErrorOut, 422: ErrorOut, 429: ErrorOut, 503: ErrorOut}


def _token(request) -> ApiToken:
    return request.auth


def _decision(decision, *, explain: bool = False) -> dict:
    return decision.as_dict(explain=explain)


# --- reads ----------------------------------------------------------------------------
@api.post("/search", response={200: SearchOut, **COMMON_ERRORS}, tags=["memory"], summary="Hybrid search inside the token's scope")
def search(request, payload: SearchIn):
    from memories.selectors import memory_search

    advertisers = scope_for(_token(request), payload.advertiser)
    scope = {
        "advertisers": advertisers,
        "business_line": payload.business_line,
        "layers": tuple(payload.layers) if payload.layers else None,
        "top_k": payload.top_k,
        "kinds": (payload.kind,) if payload.kind else None,
        "category": payload.category,
    }
    deep = None
    with token_slot(_token(request)):
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
        **_query_cut(response),
    }


def _query_cut(response) -> dict:
    return {
        "query_truncated": response.query_truncated,
        "query_chars_embedded": response.query_chars_embedded,
        "query_embedding": response.query_embedding,
    }


@api.get(
    "/memories/{memory_id}",
    response={200: MemoryDetailOut, 404: ErrorOut, **COMMON_ERRORS},
    tags=["memory"],
    summary="One memory with its version history",
)
def memory_detail(request, memory_id: int = Path(..., ge=1, le=MAX_ID)):
    from memories.selectors import memory_get, memory_history

    # Another advertiser's memory answers 404, not 403, so ids do not reveal what exists.
    memory = memory_get(memory_id=memory_id, advertisers=_token(request).scope)
    return {**memory_dict(memory), "history": [memory_dict(m) for m in memory_history(memory=memory)]}


@api.get("/status", response={200: StatusOut, **COMMON_ERRORS}, tags=["operations"], summary="Counts, embeddings, provider, schedules")
def status(request):
    from governance.metrics.status import status_overview

    return status_overview(advertisers=_token(request).scope)


@api.post("/recall", response={200: RecallOut, **COMMON_ERRORS}, tags=["memory"], summary="A <lingix-memory> prompt block for auto-recall")
def recall(request, payload: RecallIn):
    from memories.selectors import memory_search

    if payload.query is None and payload.messages is None:
        raise HttpError(422, "give either 'query' or 'messages'")
    advertisers = scope_for(_token(request), payload.advertiser)
    query = payload.query if payload.query is not None else query_from_messages([m.dict() for m in payload.messages or []])
    query = query.strip()[:2000]
    decision = should_retrieve(query, force=payload.force)
    empty = {"context": "", "memories": [], "tokens": 0, "retrieved": False, "reason": decision.reason, "query": query}
    if not decision.retrieve:
        return empty
    with token_slot(_token(request)):
        response = memory_search(
            query=query,
            advertisers=advertisers,
            business_line=payload.business_line,
            layers=tuple(payload.layers) if payload.layers else None,
            top_k=payload.top_k,
        )
    render = render_tiered if payload.detail == "tiered" else render_block
    block = render([(r.memory, r.score) for r in response.results], budget_tokens=payload.budget_tokens, now=timezone.now())
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
        "query": query,
        **_query_cut(response),
    }


# --- the write funnel -----------------------------------------------------------------
@api.post("/ingest", response={200: DecisionOut, **COMMON_ERRORS}, tags=["write funnel"], summary="Free text through the write funnel")
def ingest(request, payload: IngestIn):
    from governance.intake.services import event_ingest

    token = _token(request)
    api_token_check_source(token=token, source=payload.source)
    advertiser = write_advertiser(token, payload.advertiser)
    with token_slot(token):
        if (payload.text is None) == (payload.messages is None):
            raise HttpError(422, "give either 'text' or 'messages'")
        decision = event_ingest(
            text=payload.text,
            messages=[m.dict() for m in payload.messages] if payload.messages is not None else None,
            advertiser=advertiser,
            business_line=payload.business_line or "",
            source=payload.source,
            layer=payload.layer,
            idempotency_key=payload.idempotency_key,
            actor=token.actor,
        )
    return _decision(decision, explain=payload.explain)


@api.post(
    "/trigger",
    response={200: DecisionOut, **COMMON_ERRORS},
    tags=["write funnel"],
    summary="A structured event through the write funnel",
    openapi_extra=TRIGGER_OPENAPI_EXAMPLES,
)
def trigger(request, payload: TriggerIn):
    from governance.intake.services import event_trigger

    token = _token(request)
    api_token_check_source(token=token, source=payload.source)
    advertiser = write_advertiser(token, payload.advertiser)
    with token_slot(token):
        decision = event_trigger(
            event_type=payload.event_type,
            advertiser=advertiser,
            business_line=payload.business_line or "",
            summary=payload.summary,
            data=payload.data,
            source=payload.source,
            layer=payload.layer,
            idempotency_key=payload.idempotency_key,
            actor=token.actor,
        )
    return _decision(decision, explain=payload.explain)


# --- review ---------------------------------------------------------------------------
@api.get("/review", response={200: ReviewListOut, **COMMON_ERRORS}, tags=["review"], summary="Open review items in the token's scope")
def review_list(request, limit: int = Query(50, ge=1, le=200)):
    from governance.review.selectors import review_item_dict, review_queue

    return {"items": [review_item_dict(item) for item in review_queue(advertisers=_token(request).scope, limit=limit)]}


def _reviewable_item(token: ApiToken, item_id: int):
    from governance.review.selectors import review_item_get

    if not token.can_review:
        raise HttpError(403, "this token may not decide reviews (create it with --can-review)")
    item = review_item_get(item_id=item_id, advertisers=token.scope)
    if not token.allows(item.advertiser):
        # Readable (global items are), but deciding one changes what every advertiser sees.
        raise HttpError(403, "deciding a global review item needs an all-advertiser token")
    return item


@api.post(
    "/review/{item_id}/approve",
    response={200: DecisionOut, 404: ErrorOut, 409: ErrorOut, **COMMON_ERRORS},
    tags=["review"],
    summary="Approve a review item (tokens created with --can-review)",
)
def review_approve(request, item_id: int = Path(..., ge=1, le=MAX_ID), payload: ReviewDecisionIn = Body(None)):
    from governance.review.services import review_approve as approve

    token = _token(request)
    item = _reviewable_item(token, item_id)
    payload = payload or ReviewDecisionIn()
    with token_slot(token):
        decision = approve(
            item=item, reviewer=None, reviewer_name=token.actor, note=payload.note, decision_correct=payload.decision_correct
        )
    return _decision(decision)


@api.post(
    "/review/{item_id}/reject",
    response={200: DecisionOut, 404: ErrorOut, 409: ErrorOut, **COMMON_ERRORS},
    tags=["review"],
    summary="Reject a review item (needs a note; tokens created with --can-review)",
)
def review_reject(request, item_id: int = Path(..., ge=1, le=MAX_ID), payload: ReviewDecisionIn = Body(None)):
    from governance.review.services import review_reject as reject

    token = _token(request)
    item = _reviewable_item(token, item_id)
    payload = payload or ReviewDecisionIn()
    with token_slot(token):
        decision = reject(item=item, reviewer=None, reviewer_name=token.actor, note=payload.note, decision_correct=payload.decision_correct)
    return _decision(decision)


# --- reflection -----------------------------------------------------------------------
@api.post("/reflect", response={200: ReflectOut, **COMMON_ERRORS}, tags=["operations"], summary="Run one reflection pass")
def reflect(request):
    from api.reflection import run_reflection

    token = _token(request)
    if not token.all_advertisers:
        raise HttpError(403, "reflection reads every advertiser's memories; it needs an all-advertiser token")
    with token_slot(token):
        return run_reflection(actor=token.actor)


# --- URL wiring -------------------------------------------------------------------------
def _json_not_allowed(view):
    """ninja answers a wrong method with a plain-text 405; the contract says every error
    is JSON, so the wrapper rewrites that one case (keeping the Allow header)."""
    from functools import wraps

    from django.http import JsonResponse

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if response.status_code == 405 and not response.get("Content-Type", "").startswith("application/json"):
            allowed = response.get("Allow", "")
            replacement = JsonResponse({"detail": f"method {request.method} not allowed; use {allowed}"}, status=405)
            replacement["Allow"] = allowed
            return replacement
        return response

    return wrapped


def not_found(request, rest: str = ""):
    from django.http import JsonResponse

    return JsonResponse({"detail": f"no API endpoint at /api/v1/{rest}"}, status=404)


def api_urls():
    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        if hasattr(pattern, "callback") and pattern.callback is not None:
            pattern.callback = _json_not_allowed(pattern.callback)
    return patterns, app_name, namespace
