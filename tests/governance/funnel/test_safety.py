"""Secrets through the funnel, domain errors, idempotency and the all-or-nothing transaction."""

import pytest
from django.db import connection

from governance.funnel.commit import DEFAULT_PIPELINE
from governance.funnel.pipeline import always
from governance.intake.services import event_ingest, event_trigger
from governance.models import MemoryEvent, ReviewItem, Trace
from memories.exceptions import DomainError
from memories.models import Memory
from tests.fakes.openai_server import error

pytestmark = pytest.mark.django_db

SECRETS = [
    ("provider_api_key", "用户纠正：brand_A 的接口密钥 sk-proj-AbCdEf0123456789XyZabcdef 以后用这个"),
    ("aws_access_key", "The user said the AWS key AKIAIOSFODNN7EXAMPLE must be used for brand_B reports"),
    ("bearer_token", "用户要求：调用报表时带上 Bearer eyZ1abcdefghijklmnopqrstu 以后都用它"),
    ("json_web_token", "The user said the token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJicmFuZF9BIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ must be used"),
    ("secret_keyword", "用户说后台密码是 Lingix#2026pass 以后都用这个登录"),
    ("secret_keyword", "The user said: password: hunter2hunter for the brand_A account, always use it"),
]


def _dump() -> str:
    out = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            if table.startswith(("governance_", "memories_memory")) and "fts" not in table:
                cursor.execute(f'SELECT * FROM "{table}"')
                out.append(repr(cursor.fetchall()))
    return "\n".join(out)


@pytest.mark.parametrize("kind,text", SECRETS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(SECRETS)])
def test_secret_is_rejected_and_redacted(ingest, set_audit_rate, kind, text):
    set_audit_rate(1.0)  # even the sampled audit copy must be clean
    d = ingest(text, source="user", advertiser="brand_A")
    assert d.action == "REJECT" and any(kind in r for r in d.reasons)
    assert not Memory.objects.exists()
    secret = {
        "provider_api_key": "sk-proj-AbCdEf0123456789XyZabcdef",
        "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
        "bearer_token": "eyZ1abcdefghijklmnopqrstu",
        "json_web_token": "eyJhbGciOiJIUzI1NiJ9",
        "secret_keyword": "Lingix#2026pass" if "Lingix" in text else "hunter2hunter",
    }[kind]
    assert secret not in _dump()
    assert "[REDACTED:" in MemoryEvent.objects.get(pk=d.event_id).raw_text


def test_secret_inside_trigger_data_is_redacted(trigger):
    d = trigger(
        "environment_change",
        summary="系统监测到今天大促流量上涨，需调整出价",
        data={"api_key": "plain-secret-value-123", "note": "token sk-abcdefghijklmnopqrstuvwx"},
        source="tool",
    )
    assert d.action == "REJECT"
    dump = _dump()
    assert "plain-secret-value-123" not in dump and "sk-abcdefghijklmnopqrstuvwx" not in dump


def test_ordinary_text_is_not_mistaken_for_a_secret(ingest):
    d = ingest("用户纠正：brand_A 的 sk 系列产品出价不要超过1.5元，对于医药OTC类目", source="user", advertiser="brand_A")
    assert d.action == "WRITE"


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: event_trigger(event_type="user_feedbackx", summary="x"), "unknown event type"),
        (lambda: event_ingest(text="用户要求出价不超过1元", source="robot"), "unknown source"),
        (lambda: event_ingest(text="用户要求出价不超过1元", layer="L9"), "unknown layer"),
        (lambda: event_ingest(text="出价" * 6000), "limit"),
        (lambda: event_ingest(text="   "), "empty"),
        (lambda: event_trigger(event_type="user_feedback", data=["not", "an", "object"]), "JSON object"),
        (lambda: event_trigger(event_type="user_feedback"), "summary or some data"),
        (lambda: event_ingest(text="用户要求出价不超过1元", advertiser="a" * 65), "longer than 64"),
    ],
)
def test_bad_input_is_a_domain_error_and_writes_nothing(call, match):
    with pytest.raises(DomainError, match=match):
        call()
    assert not MemoryEvent.objects.exists() and not Trace.objects.exists()


def test_idempotency_key_returns_the_first_decision(ingest):
    first = ingest(
        "用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A", idempotency_key="k-1", actor="token:ops"
    )
    again = ingest("完全不同的文本：你好", source="user", advertiser="brand_A", idempotency_key="k-1", actor="token:ops")
    assert again.replayed and again.as_dict()["event_id"] == first.event_id
    assert (again.action, again.memory_id) == (first.action, first.memory_id)
    assert MemoryEvent.objects.count() == 1 and Memory.objects.count() == 1
    other_actor = ingest("你好", source="user", idempotency_key="k-1", actor="token:other")
    assert other_actor.event_id != first.event_id


def _boom(ctx):
    raise RuntimeError("injected failure")


@pytest.mark.parametrize("after", ["stage_conflict", "stage_commit"])
def test_exception_mid_funnel_leaves_nothing_behind(after):
    names = [s.__name__ for s in DEFAULT_PIPELINE]
    at = names.index(after) + 1
    pipeline = DEFAULT_PIPELINE[:at] + [always(_boom)] + DEFAULT_PIPELINE[at:]
    with pytest.raises(RuntimeError, match="injected"):
        event_ingest(text="用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A", pipeline=pipeline)
    assert not MemoryEvent.objects.exists()
    assert not Trace.objects.exists()
    assert not Memory.objects.exists()
    assert not ReviewItem.objects.exists()
    # The same funnel without the fault commits everything together.
    d = event_ingest(text="用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    assert d.action == "WRITE" and Trace.objects.filter(event_id=d.event_id).count() == 10


def test_exception_before_the_transaction_leaves_nothing_either():
    def early(ctx):
        raise RuntimeError("injected early")

    pipeline = DEFAULT_PIPELINE[:2] + [early] + DEFAULT_PIPELINE[2:]
    with pytest.raises(RuntimeError):
        event_ingest(text="用户纠正：brand_A 出价不要超过1.5元", source="user", advertiser="brand_A", pipeline=pipeline)
    assert not MemoryEvent.objects.exists() and not Trace.objects.exists()


@pytest.fixture
def broken_embedder(fake_openai, settings, monkeypatch):
    from memories.embeddings import reset_embedder

    fake_openai.default = error(500, "embedder down")
    settings.MEMORY_EMBEDDING_PROVIDER = "openai"
    settings.MEMORY_EMBEDDING_BASE_URL = fake_openai.base_url
    settings.MEMORY_EMBEDDING_DIMENSIONS = 8
    settings.MEMORY_EMBED_ON_WRITE = False
    reset_embedder()
    yield fake_openai
    reset_embedder()


def test_embedder_failure_parks_instead_of_writing_blind(broken_embedder):
    Memory.objects.create(layer="L2", content="用户纠正：brand_A 医药OTC类目出价不要超过2元", advertiser="brand_A", content_hash="x")
    d = event_ingest(text="用户纠正：brand_A 医药OTC类目出价不要超过1.5元", source="user", advertiser="brand_A")
    assert d.action == "PENDING_REVIEW" and any("conflict check unavailable" in r for r in d.reasons)
    assert Memory.objects.count() == 1
