"""How the API reads: Chinese as UTF-8, times with the configured zone's offset, and a
realistic request example for every endpoint in the OpenAPI document."""

import json
import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

RULE = "平台规定：医药OTC类目所有广告出价不得超过2元"


def test_chinese_comes_back_as_utf8_not_escapes(brand_a, demo_memories):
    response = brand_a.post("/search", {"query": "医药OTC 出价上限", "advertiser": "brand_A"})
    assert response.status_code == 200
    raw = response.content.decode("utf-8")
    assert "\\u" not in raw and "医药" in raw
    assert response["Content-Type"].startswith("application/json")
    assert json.loads(raw)["results"]
    # Errors too.
    refused = brand_a.post("/search", {"query": "出价", "advertiser": "品牌B"})
    assert refused.status_code == 403 and "品牌B" in refused.content.decode("utf-8")


def test_times_carry_the_configured_zone_offset(brand_a):
    parked = brand_a.post("/ingest", {"text": RULE, "source": "user"}).json()
    assert parked["action"] == "PENDING_REVIEW"
    item = next(i for i in brand_a.get("/review").json()["items"] if i["id"] == parked["review_item_id"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+08:00", item["created_at"]), item["created_at"]


def test_memory_times_are_local_iso_8601(brand_a):
    written = brand_a.post("/ingest", {"text": "用户纠正：brand_A 医药OTC类目出价不要超过1.5元", "source": "user"}).json()
    memory = brand_a.get(f"/memories/{written['memory_id']}").json()
    assert memory["created_at"].endswith("+08:00")
    status = brand_a.get("/status").json()
    assert status["time_zone"] == "Asia/Shanghai"
    assert all(s["next_run"] is None or s["next_run"].endswith("+08:00") for s in status["schedules"])


def test_every_endpoint_has_a_chinese_request_example():
    schema = Client().get("/api/v1/openapi.json").json()
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method == "post":
                examples = operation["requestBody"]["content"]["application/json"].get("examples")
                assert examples, f"{method} {path} has no request example"
                if not path.endswith("/reflect"):
                    assert any(cjk.search(json.dumps(e["value"], ensure_ascii=False)) for e in examples.values()), path
            for parameter in operation.get("parameters", []):
                assert "example" in parameter, f"{method} {path} parameter {parameter['name']}"
    advertiser = schema["components"]["schemas"]["SearchIn"]["properties"]["advertiser"]
    assert advertiser["examples"] == ["brand_A"]
    assert all(option.get("examples", ["brand_A"]) == ["brand_A"] for option in advertiser["anyOf"])
