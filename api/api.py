"""The agent API, mounted at /api/v1/. This module only assembles it: one router per
domain in api/routers/. Each endpoint checks the token's scope, then calls one selector
or service; errors are mapped to 4xx JSON in one place (api/errors.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse

from api.errors import install_exception_handlers
from api.openapi_examples import DocumentedNinjaAPI
from api.parser import StrictJsonParser
from api.renderer import Utf8JSONRenderer
from api.routers.conversation import router as conversation_router
from api.routers.memory import router as memory_router
from api.routers.operations import router as operations_router
from api.routers.organise import router as organise_router
from api.routers.review import router as review_router
from api.routers.suggestions import router as suggestions_router
from api.routers.writes import router as writes_router
from api.security import TokenAuth, TokenRateThrottle

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
api.add_router("", memory_router)
api.add_router("", writes_router)
api.add_router("", review_router)
api.add_router("", operations_router)
api.add_router("/", organise_router)
api.add_router("/suggestions", suggestions_router)
api.add_router("", conversation_router)  # /distill and /memories/{id}/source


# --- URL wiring -------------------------------------------------------------------------
def _json_not_allowed(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """ninja answers a wrong method with a plain-text 405; the contract says every error
    is JSON, so the wrapper rewrites that one case (keeping the Allow header)."""
    from functools import wraps

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if response.status_code == 405 and not response.get("Content-Type", "").startswith("application/json"):
            allowed = response.get("Allow", "")
            replacement = JsonResponse({"detail": f"method {request.method} not allowed; use {allowed}"}, status=405)
            replacement["Allow"] = allowed
            return replacement
        return response

    return wrapped


def not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    return JsonResponse({"detail": f"no API endpoint at /api/v1/{rest}"}, status=404)


def api_urls() -> tuple[list[Any], str, str]:
    patterns, app_name, namespace = api.urls
    for pattern in patterns:
        if hasattr(pattern, "callback") and pattern.callback is not None:
            pattern.callback = _json_not_allowed(pattern.callback)
    return patterns, app_name, namespace
