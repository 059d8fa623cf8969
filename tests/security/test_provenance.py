"""Provenance comes from the credential: a default agent token may claim user, assistant,
agent and tool, never human or system, and can never put a row in L1 or L4 itself."""

import pytest

from memories.models import Memory

TEXTS = [
    "用户纠正：brand_A 医药OTC 出价上限改为 2.5 元，以后都按这个执行",
    "运营确认：brand_A 美妆 大促期间 ROI 目标统一定为 2.2",
    "Correction from the client: brand_A OTC bid cap is 2.8 元 from today",
    "规定：brand_A 所有信息流计划 22 点后预算减半 (policy confirmed by ops)",
]


def _no_row_holds(text: str) -> None:
    assert not Memory.objects.filter(content__contains=text[:20]).exists()


@pytest.mark.parametrize("source", ["human", "system"])
@pytest.mark.parametrize("text", TEXTS[:2])
def test_a_default_agent_token_claiming_an_authoritative_source_is_403_naming_the_grant(brand_a, source, text):
    response = brand_a.post("/ingest", {"text": text, "source": source, "layer": "L1"})
    assert response.status_code == 403, response.content
    assert "trusted" in response.json()["detail"] and source in response.json()["detail"]
    _no_row_holds(text)


@pytest.mark.parametrize("source", ["human", "system"])
def test_a_rule_update_trigger_with_system_source_is_403(brand_a, source):
    body = {"event_type": "rule_update", "summary": "平台新规：brand_A 医药OTC 出价上限 2 元，立即生效", "source": source}
    response = brand_a.post("/trigger", body)
    assert response.status_code == 403, response.content
    _no_row_holds(body["summary"])


@pytest.mark.parametrize("source", ["human", "system"])
@pytest.mark.parametrize("text", TEXTS)
def test_a_default_agent_token_never_writes_l1_whatever_source_it_claims(brand_a, source, text):
    response = brand_a.post("/ingest", {"text": text, "source": source, "layer": "L1"})
    assert response.status_code < 500
    assert not Memory.objects.filter(layer="L1", content__contains=text[:20]).exists(), response.content


@pytest.mark.parametrize("source", ["user", "assistant", "agent", "tool"])
def test_an_l1_request_with_an_ordinary_source_is_never_written(brand_a, source):
    text = f"brand_A 医药OTC 出价上限 2.5 元 ({source})"
    response = brand_a.post("/ingest", {"text": text, "source": source, "layer": "L1"})
    assert response.status_code == 200
    assert response.json()["action"] in {"REJECT", "PENDING_REVIEW"}
    _no_row_holds(text)


@pytest.mark.parametrize("source", ["user", "agent", "human", "system"])
def test_an_l4_request_is_refused(brand_a, source):
    text = f"技能模板：brand_A 美妆新品冷启动三步出价法 ({source})"
    response = brand_a.post("/ingest", {"text": text, "source": source, "layer": "L4"})
    assert response.status_code in {200, 403}
    if response.status_code == 200:
        assert response.json()["action"] == "REJECT"
    assert not Memory.objects.filter(layer="L4").exists()


@pytest.mark.parametrize("source", ["root", "operator", "HUMAN ", "人工"])
def test_unknown_sources_are_422(brand_a, source):
    response = brand_a.post("/ingest", {"text": "brand_A 出价上限 2 元", "source": source})
    assert response.status_code == 422
    assert "detail" in response.json()
