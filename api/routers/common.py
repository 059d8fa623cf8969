"""What every router shares: the error responses, id bounds, the token of a request."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from api.models import ApiToken
from api.schemas import (
    ErrorOut,
)
from governance.funnel.types import Decision

MAX_ID = 2**63 - 1

COMMON_ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 413: ErrorOut, 422: ErrorOut, 429: ErrorOut, 503: ErrorOut}


def request_token(request: HttpRequest) -> ApiToken:
    return request.auth


def decision_dict(decision: Decision, *, explain: bool = False) -> dict[str, Any]:
    return decision.as_dict(explain=explain)
