"""The limits hold when requests arrive in parallel on separate connections, as they do
from several web workers: six clients racing one token against a 30/min limit get exactly
30 answers between them, and on PostgreSQL a slot held by another database session (another
worker) counts against the token's concurrency bound."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections import Counter

import pytest
from django.db import connection

from api.concurrency import _slot_key

pytestmark = pytest.mark.django_db(transaction=True)


def _get(url: str, raw: str) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {raw}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_six_parallel_clients_get_at_most_the_limit(live_server, make_token, settings):
    settings.MEMORY_API_RATE = "30/min"
    _, raw = make_token("parallel-agents", ["brand_A"])
    _, calm_raw = make_token("calm-agent", ["brand_A"])
    url = f"{live_server.url}/api/v1/status"
    codes: Counter[int] = Counter()
    counted = threading.Lock()
    start = threading.Barrier(6)

    def client() -> None:
        start.wait(timeout=30)
        for _ in range(15):
            code = _get(url, raw)
            with counted:
                codes[code] += 1

    threads = [threading.Thread(target=client) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)

    assert sum(codes.values()) == 90
    assert codes[200] == 30 and codes[429] == 60, codes
    # Another token's bucket is its own.
    assert _get(url, calm_raw) == 200


def test_on_postgresql_a_slot_held_by_another_worker_counts(live_server, make_token, settings):
    if connection.vendor != "postgresql":
        pytest.skip("on SQLite the bound is per process (api/concurrency.py)")
    from django.db import connections

    settings.MEMORY_API_CONCURRENCY = 1
    token, raw = make_token("slow-agent", ["brand_A"])
    # A second session stands in for another gunicorn worker holding the token's one slot.
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [_slot_key(token.pk, 0)])
        body = b'{"query": "\\u51fa\\u4ef7"}'
        request = urllib.request.Request(
            f"{live_server.url}/api/v1/search",
            data=body,
            headers={"Authorization": f"Bearer {raw}", "Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=60)
        assert refused.value.code == 429
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_slot_key(token.pk, 0)])
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 200
    finally:
        other.close()
