"""Bad input is a clear 4xx JSON error: bounds, body size, malformed JSON, rate limit."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": "   "},
        {"query": "出价" * 1001},
        {"query": "出价", "top_k": 0},
        {"query": "出价", "top_k": 51},
        {"query": "出价", "top_k": "many"},
        {"query": "出价", "layers": ["L5"]},
        {"query": "出价", "advertiser": ""},
        {"query": "出价", "advertiser": "brand A"},
        {"query": "出价", "advertiser": "x" * 65},
        {"query": "出价", "advertisor": "brand_A"},
        {"query": "出\x00价"},
        {"query": ["出价"]},
    ],
)
def test_search_validation(demo_memories, brand_a, body):
    response = brand_a.post("/search", body)
    assert response.status_code == 422, (body, response.status_code)
    assert "detail" in response.json()


def test_lone_surrogates_are_refused(brand_a):
    response = brand_a.post("/search", content=b'{"query": "\\ud800 bid"}')
    assert response.status_code == 422


@pytest.mark.parametrize(
    "path, body",
    [
        ("/ingest", {"text": ""}),
        ("/ingest", {"text": "x" * 8001}),
        ("/ingest", {"text": "ok", "source": "robot"}),
        ("/ingest", {"text": "ok", "layer": "L9"}),
        ("/ingest", {"text": "ok", "idempotency_key": "has space"}),
        ("/ingest", {"text": "ok", "idempotency_key": "k" * 129}),
        ("/trigger", {"event_type": "vibes", "summary": "x"}),
        ("/trigger", {"event_type": "user_feedback", "data": "not an object"}),
        ("/trigger", {"event_type": "user_feedback", "data": {"blob": "x" * 17000}}),
        ("/recall", {"query": "出价", "budget_tokens": 100000}),
        ("/recall", {"messages": [{"role": "user", "content": "hi"}] * 51}),
    ],
)
def test_write_and_recall_validation(brand_a, path, body):
    response = brand_a.post(path, body)
    assert response.status_code == 422, (path, body, response.status_code, response.content[:200])


def test_trigger_without_summary_or_data_is_a_domain_error(brand_a):
    response = brand_a.post("/trigger", {"event_type": "user_feedback"})
    assert response.status_code == 422 and "summary or some data" in response.json()["detail"]


def test_malformed_json_is_400(brand_a):
    response = brand_a.post("/search", content='{"query": "出价"'.encode())
    assert response.status_code == 400 and "detail" in response.json()


def test_oversized_body_is_413(brand_a, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    response = brand_a.post("/ingest", {"text": "出价" * 3000})
    assert response.status_code == 413 and "4096" in response.json()["detail"]


@pytest.mark.parametrize("path", ["/memories/0", "/memories/-1", "/memories/99999999999999999999999", "/memories/abc"])
def test_memory_id_bounds(brand_a, path):
    response = brand_a.get(path)
    assert response.status_code in {404, 422}
    assert "detail" in response.json()


def test_review_limit_bounds(brand_a):
    assert brand_a.get("/review", limit=0).status_code == 422
    assert brand_a.get("/review", limit=201).status_code == 422
    assert brand_a.get("/review", limit=5).status_code == 200


def test_rate_limit_is_per_token(demo_memories, make_token, api_client, settings):
    settings.MEMORY_API_RATE = "3/min"
    _, raw_1 = make_token("busy", ["brand_A"])
    _, raw_2 = make_token("calm", ["brand_A"])
    busy, calm = api_client(raw_1), api_client(raw_2)
    codes = [busy.post("/search", {"query": "出价"}).status_code for _ in range(3)]
    assert codes == [200, 200, 200]
    limited = busy.get("/status")  # one bucket across endpoints
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert "detail" in limited.json()
    assert calm.post("/search", {"query": "出价"}).status_code == 200


def test_openapi_and_docs_are_served_without_a_cdn(client):
    spec = client.get("/api/v1/openapi.json").json()
    assert set(spec["paths"]) >= {
        "/api/v1/search",
        "/api/v1/ingest",
        "/api/v1/trigger",
        "/api/v1/memories/{memory_id}",
        "/api/v1/status",
        "/api/v1/reflect",
        "/api/v1/review",
        "/api/v1/review/{item_id}/approve",
        "/api/v1/review/{item_id}/reject",
        "/api/v1/recall",
    }
    assert spec["components"]["securitySchemes"]["TokenAuth"]["scheme"] == "bearer"
    docs = client.get("/api/v1/docs").content.decode()
    assert "cdn." not in docs and "//unpkg" not in docs
    assert "/static/ninja/swagger-ui-bundle.js" in docs
    assert client.get("/static/ninja/swagger-ui-bundle.js").status_code == 200


def test_on_postgresql_the_rate_limit_is_shared_by_every_worker(demo_memories, make_token, api_client, settings):
    """Several gunicorn workers share one limit: the counts live in a database table any
    process reads, not in one process's memory."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("SQLite deployments count in process memory (one machine, one web process)")
    settings.MEMORY_API_RATE = "2/min"
    token, raw = make_token("shared", ["brand_A"])
    client = api_client(raw)
    assert [client.get("/status").status_code for _ in range(2)] == [200, 200]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT cache_key FROM {settings.RATE_LIMIT_CACHE_TABLE}")
        keys = [row[0] for row in cursor.fetchall()]
    assert any(key.endswith(f"throttle_lingix-token_{token.pk}") for key in keys), keys
    assert client.get("/status").status_code == 429
