"""DoubtMem output parsing, and the local judge over HTTP."""

import pytest

from governance.models import Trace
from judges.doubtmem import DoubtMemParseError, parse_doubtmem, to_judge_out
from memories.models import Memory
from tests.fakes.openai_server import chat

GOOD = """<doubt-check>
说话人是用户本人，明确纠正了出价上限；没有数字超出对话内容；与已有记忆不冲突。
</doubt-check>
{"action": "WRITE", "source_attribution": "user_stated", "grounding": "grounded", "consistency": "consistent", "confidence": 0.88, "reason": "用户明确纠正"}"""


def test_parses_well_formed_output():
    reasoning, verdict = parse_doubtmem(GOOD)
    assert reasoning.startswith("说话人是用户本人")
    assert verdict.action == "WRITE" and verdict.grounding == "grounded" and verdict.confidence == 0.88
    out = to_judge_out(reasoning, verdict)
    assert out.action == "WRITE" and out.source_attribution == "user_stated"
    assert any(r.startswith("doubt-check:") for r in out.reasons)


def test_json_in_a_fence_after_the_tag():
    text = '<doubt-check>assistant suggestion, never confirmed</doubt-check>\n```json\n{"action": "REJECT", "source_attribution": "assistant_suggestion"}\n```'
    assert parse_doubtmem(text)[1].action == "REJECT"


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "WRITE", "grounding": "grounded"}',  # missing tag
        "<doubt-check>reasoning but no verdict</doubt-check>",
        '<doubt-check>x</doubt-check> {"action": "DELETE_ALL"}',
        "garbage \x00\x01 ~~~ <doubt",
        "",
    ],
)
def test_missing_tag_or_garbage_is_refused(text):
    with pytest.raises(DoubtMemParseError):
        parse_doubtmem(text)


@pytest.fixture
def doubtmem(fake_openai, no_sampled_audit, settings, env):
    settings.MEMORY_DOUBTMEM_BASE_URL = fake_openai.base_url
    settings.MEMORY_DOUBTMEM_MODEL = "DoubtMem-test"
    env(MEMORY_LLM_BACKOFF_SECONDS="0.01")
    return fake_openai


@pytest.mark.django_db
def test_local_judge_decides_the_judge_step(doubtmem, ingest):
    doubtmem.queue(chat(GOOD))
    d = ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    assert d.action == "WRITE"
    judge = Trace.objects.get(event_id=d.event_id, stage="judge")
    assert (judge.provider, judge.model, judge.prompt_version) == ("doubtmem", "DoubtMem-test", "doubtmem-2026.12.1")
    # Classification and value stayed with the offline provider.
    assert Trace.objects.get(event_id=d.event_id, stage="classify").provider == "offline"
    sent = doubtmem.requests_to("/chat/completions")[0].json
    assert "response_format" not in sent and "<untrusted_data>" in sent["messages"][1]["content"]


@pytest.mark.django_db
def test_local_judge_garbage_parks(doubtmem, ingest):
    doubtmem.queue(chat("I think it is fine, write it."))
    d = ingest("用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    assert d.action == "PENDING_REVIEW" and not Memory.objects.exists()
    assert any("doubt-check" in r for r in Trace.objects.get(event_id=d.event_id, stage="judge").reasons)
