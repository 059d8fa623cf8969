"""The operator paths that store text: an admin edit through the real admin site and a
trusted import through the CLI both refuse a credential, and nothing of it is stored."""

import json

import pytest
from django.urls import reverse

from tests.security.stored import database_bytes
from tests.textrules.safety.safety_corpus import HOSTILE, leaks

CREDENTIALS = [c for c in HOSTILE if c["kind"] == "credential" and c["via"] == "ingest"]
PICKED = [next(c for c in CREDENTIALS if c["family"] == f) for f in ("slack", "stripe", "db_url", "lgx")]
PERSONAL = [c for c in HOSTILE if c["kind"] == "personal" and c["via"] == "ingest"][:2]


@pytest.fixture
def l2_strategy(make_memory):
    return make_memory(
        "brand_A 美妆大促期间出价上调15%后 ROI 从1.8升到2.3",
        layer="L2",
        advertiser="brand_A",
        business_line="美妆",
        category="出价",
        importance=6.0,
    )


def _form(memory, **overrides):
    data = {
        "content": memory.content,
        "importance": memory.importance,
        "confidence": memory.confidence,
        "category": memory.category,
        "business_line": memory.business_line,
        "tier": memory.tier,
        "expires_at_0": "",
        "expires_at_1": "",
        "_save": "Save",
    }
    return {**data, **overrides}


@pytest.mark.parametrize("case", PICKED + PERSONAL, ids=[c["id"] for c in PICKED + PERSONAL])
def test_an_admin_edit_never_stores_a_credential_or_unmasked_personal_data(operator_client, l2_strategy, case):
    url = reverse("admin:memories_memory_change", args=[l2_strategy.pk])
    response = operator_client.post(url, _form(l2_strategy, content=f"{l2_strategy.content}；{case['text']}"))
    assert response.status_code in {200, 302}
    assert leaks(database_bytes(), case) == []


@pytest.mark.parametrize("case", PICKED[:3], ids=[c["id"] for c in PICKED[:3]])
def test_a_trusted_import_refuses_a_line_with_a_credential_naming_it(db, cli, tmp_path, case):
    lines = [
        {"layer": "L2", "content": "brand_A 美妆 晚间出价上调 10%", "advertiser": "brand_A", "source": "human"},
        {"layer": "L2", "content": case["text"], "advertiser": "brand_A", "source": "human"},
    ]
    path = tmp_path / "import.jsonl"
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n", encoding="utf-8")
    code, body, err = cli("import", str(path), "--json")
    assert code != 0, body
    assert "line 2" in (err + json.dumps(body, ensure_ascii=False)), (body, err)
    assert leaks(database_bytes(), case) == []
    assert leaks((err + json.dumps(body, ensure_ascii=False)).encode(), case) == []
