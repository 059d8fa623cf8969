"""Schema fuzzing: Schemathesis generates requests from our OpenAPI document, valid
(positive) and invalid (negative), for every operation, sent with an advertiser-scoped
token. No request may produce a 5xx, and every error must be JSON with a `detail`.
FUZZ_EXAMPLES sets the examples per operation and mode (default 25); run with -s to see
the totals."""

import os
from collections import Counter

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())
OPERATIONS = [result.ok() for result in schema.get_all_operations()]
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
_seen: Counter = Counter()


@pytest.fixture(scope="module", autouse=True)
def _totals():
    yield
    if _seen:
        requests = sum(n for (_, kind), n in _seen.items() if kind == "request")
        errors = sum(n for (_, kind), n in _seen.items() if kind == "5xx")
        operations = len({label for label, _ in _seen})
        print(f"\nschemathesis: {operations} operations, {requests} requests, {errors} responses >= 500")


@pytest.fixture
def fuzz_token(demo_memories, make_token, no_sampled_audit, settings):
    settings.MEMORY_API_RATE = "100000/min"
    _, raw = make_token("fuzzer", ["brand_A"], can_review=True)
    # The WSGI handler would close the test's connection (and its transaction) after
    # every request; Django's own test client avoids that by the same disconnection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield raw
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _check(case, raw):
    response = case.call(headers={"Authorization": f"Bearer {raw}"})
    where = (case.method, case.formatted_path, case.query, case.body)
    _seen[(case.operation.label, "request")] += 1
    if response.status_code >= 500:
        _seen[(case.operation.label, "5xx")] += 1
    assert response.status_code < 500, (*where, response.text[:500])
    if response.status_code >= 400:
        content_type = response.headers.get("content-type", [""])
        assert "application/json" in str(content_type), (*where, response.status_code, response.text[:200])
        assert "detail" in response.json()


def test_schema_covers_every_endpoint():
    assert {op.label for op in OPERATIONS} >= {
        "POST /api/v1/search",
        "POST /api/v1/ingest",
        "POST /api/v1/trigger",
        "GET /api/v1/memories/{memory_id}",
        "GET /api/v1/status",
        "POST /api/v1/reflect",
        "GET /api/v1/review",
        "POST /api/v1/review/{item_id}/approve",
        "POST /api/v1/review/{item_id}/reject",
        "POST /api/v1/recall",
    }


@pytest.mark.slow
@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: op.label)
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["valid", "invalid"])
def test_no_request_produces_a_server_error(operation, mode, fuzz_token):
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case):
        _check(case, fuzz_token)

    run()
