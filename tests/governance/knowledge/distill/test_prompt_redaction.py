"""What the gateway extractor of session distillation is shown: the turns with credentials
cut and personal data masked, as the judge is. The real `openai` client against the fake
OpenAI-compatible server."""

import pytest

from governance.knowledge.distill.services import session_distill
from tests.fakes.openai_server import chat
from tests.judges.test_openai_provider import script_ok

pytestmark = pytest.mark.django_db

SLACK_TOKEN = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
MOBILE = "13812345678"


def test_the_distill_prompt_never_carries_a_credential_or_a_phone_number(openai_gateway, django_capture_on_commit_callbacks):
    script_ok(openai_gateway)
    openai_gateway.route("prompt:distill", chat({"candidates": [{"turns": [2], "kind": "decision"}]}))
    messages = [
        {"role": "user", "content": f"千川账户的机器人令牌是 {SLACK_TOKEN}，有问题打我手机 {MOBILE}"},
        {"role": "assistant", "content": "好的，医药OTC 冷启动期建议出价 1.8 元"},
        {"role": "user", "content": "以后 brand_A 医药OTC 冷启动出价都不要超过2元"},
    ]
    with django_capture_on_commit_callbacks(execute=True):
        result = session_distill(session_id="sess-双11-redact", messages=messages, advertiser="brand_A", actor="test")
    assert result["extractor"] == "llm"
    (request,) = [r for r in openai_gateway.requests_to("/chat/completions") if "prompt:distill" in r.text]
    prompt = request.json["messages"][1]["content"]
    assert "冷启动出价都不要超过2元" in prompt
    assert SLACK_TOKEN not in prompt and "xoxb-" not in prompt
    assert MOBILE not in prompt
