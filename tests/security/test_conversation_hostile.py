"""Hostile input to the conversation endpoints (/distill, /memories/{id}/source) and to
/mcp, through the real URLconf, funnel (offline judge) and SQLite migrations."""

import pytest

from governance.models import DistillRun, MemoryEvent

pytestmark = pytest.mark.django_db

ZH_TURN = '{"type":"message","message":{"role":"user","content":"以后 brand_A 医药OTC 冷启动期出价不要超过2元，ROI 目标 1.8"}}'


def test_a_jsonl_line_nested_thousands_deep_is_skipped_not_a_500(brand_a):
    hostile = "[" * 50_000
    response = brand_a.post("/distill", {"session_id": "sess-双11-hostile", "jsonl": f"{hostile}\n{ZH_TURN}\n"})
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert body["unreadable_lines"] == [1]
    assert body["turns"] == 1


def test_a_transcript_that_is_only_a_nested_line_is_a_clear_422(brand_a):
    response = brand_a.post("/distill", {"session_id": "sess-美妆-hostile", "jsonl": '{"预算":' * 10_000})
    assert response.status_code == 422
    assert "detail" in response.json()
    assert not MemoryEvent.objects.exists() and not DistillRun.objects.exists()
