"""/metrics: a short scripted session through the real API, then a scrape that must carry
every lingix_ family with the session's figures; and who may scrape."""

import json

import pytest
from django.core.cache import cache
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.django_db

FAMILIES = {
    # name as parsed (counters lose _total) -> the sample that must be non-zero
    "lingix_memories": "lingix_memories",
    "lingix_decisions": "lingix_decisions_total",
    "lingix_judge_latency_seconds": "lingix_judge_latency_seconds_count",
    "lingix_embedding_latency_seconds": "lingix_embedding_latency_seconds_count",
    "lingix_search_latency_seconds": "lingix_search_latency_seconds_count",
    "lingix_review_queue_size": "lingix_review_queue_size",
    "lingix_review_queue_oldest_age_seconds": "lingix_review_queue_oldest_age_seconds",
    "lingix_recall_hits": "lingix_recall_hits_total",
    "lingix_recall_injected_tokens": "lingix_recall_injected_tokens_total",
    "lingix_rate_limit_refusals": "lingix_rate_limit_refusals_total",
}


def _scrape(client: Client, **extra) -> dict[str, float]:
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content[:200]
    assert response["Content-Type"].startswith("text/plain")
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        assert family.name.startswith("lingix_")
        for sample in family.samples:
            totals[sample.name] = totals.get(sample.name, 0.0) + sample.value
        totals.setdefault(f"family:{family.name}", 1)
    return totals


def _api(client: Client, raw: str, path: str, body: dict):
    return client.post(
        f"/api/v1{path}", data=json.dumps(body, ensure_ascii=False), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}"
    )


def test_a_scripted_session_shows_in_every_family(demo_memories, settings, django_capture_on_commit_callbacks):
    from api.services import api_token_create
    from governance.models import LayerPolicy

    LayerPolicy.objects.update(sampled_audit_rate=0.0)
    cache.clear()
    client = Client()
    before = _scrape(client)
    _, agent = api_token_create(name="agent-metrics", advertisers=["brand_A"], created_by_name="test")
    _, reviewer = api_token_create(name="reviewer-metrics", advertisers=["brand_A"], can_review=True, created_by_name="test")

    with django_capture_on_commit_callbacks(execute=True):
        written = _api(client, agent, "/ingest", {"text": "用户纠正：brand_A 医药OTC类目出价不要超过1.5元", "source": "user"}).json()
        assert written["action"] == "WRITE", written
        parked = _api(client, agent, "/ingest", {"text": "平台规定：医药OTC类目所有广告出价不得超过2元", "source": "user"}).json()
        assert parked["action"] == "PENDING_REVIEW", parked
        # A second parked item stays open, so the queue has a size and an age.
        _api(client, agent, "/ingest", {"text": "平台规定：美妆类目双11期间日预算不得超过5万元", "source": "user"})
        rejected = _api(client, reviewer, f"/review/{parked['review_item_id']}/reject", {"note": "用户转述，不是平台规定"})
        assert rejected.status_code == 200, rejected.json()
        assert _api(client, agent, "/search", {"query": "医药OTC 出价上限"}).status_code == 200
        recall = _api(client, agent, "/recall", {"query": "医药OTC 出价 上限是多少", "force": True}).json()
        assert recall["memories"] and recall["tokens"] > 0
        settings.MEMORY_API_RATE = "1/min"
        cache.clear()
        assert _api(client, agent, "/search", {"query": "双11 预算"}).status_code == 200
        assert _api(client, agent, "/search", {"query": "双11 预算"}).status_code == 429

    after = _scrape(client)
    for family, sample in FAMILIES.items():
        assert f"family:{family}" in after, f"{family} missing from /metrics"
        grown = after.get(sample, 0) - (
            0
            if family in {"lingix_memories", "lingix_review_queue_size", "lingix_review_queue_oldest_age_seconds"}
            else before.get(sample, 0)
        )
        assert grown > 0, f"{sample} did not move during the session"

    text = client.get("/metrics").content.decode()
    assert 'lingix_decisions_total{action="REJECT",stage="review"}' in text
    assert 'lingix_memories{layer="L1",status="active"}' in text


def test_only_loopback_allow_list_or_token_may_scrape(db, env):
    client = Client()
    outside = {"REMOTE_ADDR": "203.0.113.9"}
    refused = client.get("/metrics", **outside)
    assert refused.status_code == 403 and "LINGIX_METRICS_ALLOW" in refused.json()["detail"]

    env(LINGIX_METRICS_TOKEN="scrape-secret-42")
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong", **outside).status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-secret-42", **outside).status_code == 200

    env(LINGIX_METRICS_ALLOW="203.0.113.0/24, not-an-address")
    assert client.get("/metrics", **outside).status_code == 200
    # The allow-list replaces the loopback default.
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403
    assert client.post("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 405


def test_an_ipv4_client_of_a_dual_stack_server_is_judged_by_its_ipv4_address(db, env):
    client = Client()
    assert client.get("/metrics", REMOTE_ADDR="::ffff:127.0.0.1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="::ffff:203.0.113.9").status_code == 403
    env(LINGIX_METRICS_ALLOW="203.0.113.0/24")
    assert client.get("/metrics", REMOTE_ADDR="::ffff:203.0.113.9").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="::ffff:127.0.0.1").status_code == 403


def test_an_allow_list_written_in_ipv4_mapped_form_still_matches(db, env):
    env(LINGIX_METRICS_ALLOW="::ffff:10.0.3.0/120")
    client = Client()
    assert client.get("/metrics", REMOTE_ADDR="::ffff:10.0.3.7").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="::ffff:10.0.4.7").status_code == 403
