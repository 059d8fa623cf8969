"""Deep search with a gateway never shows it a credential or a phone number the query
carried. The real `openai` client against the fake OpenAI-compatible server."""

import pytest

from memories.search.deep import deep_search
from tests.fakes.openai_server import chat

pytestmark = pytest.mark.django_db

SLACK_TOKEN = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
MOBILE = "13812345678"


def test_the_rewrite_and_rerank_prompts_carry_the_query_redacted(openai_gateway, make_memory):
    note = make_memory("巨量千川投放感冒灵颗粒时把竞价从30元上调到36元，ROI稳定在2.1。", advertiser="brand_A")
    openai_gateway.route("Rewrite the query", chat({"queries": ["感冒灵 竞价"]}))
    openai_gateway.route("You rank stored memories", chat({"order": [note.pk]}))
    query = f"感冒灵 千川竞价怎么调？机器人令牌 {SLACK_TOKEN}，联系 {MOBILE}"
    response = deep_search(query=query, advertisers=("brand_A",), top_k=3, record_access=False)
    assert response.deep["rewriter"] == "llm" and "fallback" not in response.deep
    prompts = [c.json["messages"][1]["content"] for c in openai_gateway.requests_to("/chat/completions")]
    assert len(prompts) == 2 and all("感冒灵" in p for p in prompts)
    assert not any(SLACK_TOKEN in p or MOBILE in p for p in prompts)
