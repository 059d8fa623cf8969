"""The one place where exceptions become HTTP responses: domain errors are 4xx JSON
`{"detail": …}`, never a traceback."""

from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import HttpError

from memories.exceptions import DomainError, InvalidInput, NotFound
from textrules.strict_json import UnsafeJson

logger = logging.getLogger("lingix.api")

# Matched by class name as well, so domain errors defined in other apps (conflicts,
# permission refusals) get the right status without this module importing them all.
_STATUS_BY_NAME = {
    "NotFound": 404,
    "DoesNotExist": 404,
    "InvalidInput": 422,
    "ValidationFailed": 422,
    "PermissionDenied": 403,
    "Forbidden": 403,
    "Conflict": 409,
    "AlreadyDecided": 409,
    "IdempotencyConflict": 409,
    "StateConflict": 409,
    "ReviewNotOpen": 409,
    "SelfReviewForbidden": 403,
    "InputTooLarge": 413,
}


def domain_error_status(exc: DomainError) -> int:
    explicit = getattr(exc, "http_status", None) or getattr(exc, "status_code", None)
    if isinstance(explicit, int) and 400 <= explicit < 500:
        return explicit
    for klass in type(exc).__mro__:
        if klass.__name__ in _STATUS_BY_NAME:
            return _STATUS_BY_NAME[klass.__name__]
    return 400


def install_exception_handlers(api: NinjaAPI) -> None:
    from judges.config import ProviderNotConfigured

    @api.exception_handler(DomainError)
    def _domain(request: HttpRequest, exc: DomainError) -> HttpResponse:
        return api.create_response(request, {"detail": str(exc) or type(exc).__name__}, status=domain_error_status(exc))

    @api.exception_handler(HttpError)
    def _http(request: HttpRequest, exc: HttpError) -> HttpResponse:
        # ninja turns every body-parser failure into 400 "Cannot parse request body";
        # a refusal from the strict parser says what and where (422; 400 when not JSON at all).
        if isinstance(exc.__cause__, UnsafeJson):
            return api.create_response(request, {"detail": str(exc.__cause__)}, status=domain_error_status(exc.__cause__))
        response = api.create_response(request, {"detail": str(exc)}, status=exc.status_code)
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            response["Retry-After"] = str(retry_after)
        return response

    @api.exception_handler(RequestDataTooBig)
    def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
        from django.conf import settings

        return api.create_response(
            request, {"detail": f"request body larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes"}, status=413
        )

    @api.exception_handler(SuspiciousOperation)
    def _suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
        return api.create_response(request, {"detail": "bad request"}, status=400)

    @api.exception_handler(ProviderNotConfigured)
    def _no_provider(request: HttpRequest, exc: ProviderNotConfigured) -> HttpResponse:
        return api.create_response(request, {"detail": str(exc)}, status=503)


__all__ = ["install_exception_handlers", "domain_error_status", "InvalidInput", "NotFound"]
