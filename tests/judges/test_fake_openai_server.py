"""The scripted OpenAI-compatible server other tests reuse: routes, queue, defaults,
recording, errors and embeddings, through the real openai client."""

import openai
import pytest

from tests.fakes.openai_server import FakeOpenAI, chat, embeddings, error


def client(fake, **kw):
    return openai.OpenAI(api_key="k", base_url=fake.base_url, max_retries=0, **kw)


def ask(c, text):
    return c.chat.completions.create(model="m", messages=[{"role": "user", "content": text}]).choices[0].message.content


def test_routes_then_queue_then_default():
    with FakeOpenAI() as fake:
        c = client(fake)
        fake.default = chat("fallback")
        assert ask(c, "x") == "fallback"
        fake.reset()
        fake.route("judge", chat("routed"), times=1)
        fake.queue(chat("first"))
        assert ask(c, "please judge") == "routed"
        assert ask(c, "please judge") == "first"  # the route is used up
        assert ask(c, "anything") == "{}"  # nothing scripted
        assert [r.json["messages"][0]["content"] for r in fake.requests_to("/chat/completions")] == [
            "please judge",
            "please judge",
            "anything",
        ]
        assert fake.requests[0].headers["authorization"] == "Bearer k"


def test_errors_usage_and_delay():
    with FakeOpenAI() as fake:
        fake.queue(error(429, retry_after=0), chat({"a": 1}, usage={"prompt_tokens": 5, "completion_tokens": 2}), chat("late", delay=2))
        c = client(fake, timeout=0.3)
        with pytest.raises(openai.RateLimitError):
            ask(c, "x")
        response = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert response.choices[0].message.content == '{"a": 1}' and response.usage.prompt_tokens == 5
        with pytest.raises(openai.APITimeoutError):
            ask(c, "x")


def test_embeddings_are_deterministic_unit_vectors():
    with FakeOpenAI(embedding_dim=8) as fake:
        c = client(fake)
        a = c.embeddings.create(model="e", input=["出价", "预算", "出价"]).data
        assert len(a[0].embedding) == 8 and a[0].embedding == a[2].embedding != a[1].embedding
        assert abs(sum(x * x for x in a[1].embedding) - 1) < 1e-4
        fake.queue(embeddings([[1.0, 0.0]]))
        assert c.embeddings.create(model="e", input="x").data[0].embedding == [1.0, 0.0]
        assert [m.id for m in c.models.list().data] == ["fake-judge", "fake-embedding"]
