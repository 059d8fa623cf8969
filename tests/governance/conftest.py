import pytest

from tests.fakes.openai_server import FakeOpenAI


@pytest.fixture(autouse=True)
def _no_sampled_audit(db):
    """Sampled audit is deterministic per event id; tests that study it set the rate."""
    from governance.models import LayerPolicy

    LayerPolicy.objects.update(sampled_audit_rate=0.0)


@pytest.fixture
def set_audit_rate(db):
    from governance.models import LayerPolicy

    def _set(rate: float) -> None:
        LayerPolicy.objects.update(sampled_audit_rate=rate)

    return _set


@pytest.fixture
def ingest(db, django_capture_on_commit_callbacks):
    """event_ingest with its on-commit embedding really run (later events see the vector)."""
    from governance.intake.services import event_ingest

    def _ingest(text, **kw):
        with django_capture_on_commit_callbacks(execute=True):
            return event_ingest(text=text, **kw)

    return _ingest


@pytest.fixture
def trigger(db, django_capture_on_commit_callbacks):
    from governance.intake.services import event_trigger

    def _trigger(event_type, **kw):
        with django_capture_on_commit_callbacks(execute=True):
            return event_trigger(event_type=event_type, **kw)

    return _trigger


@pytest.fixture
def fake_openai():
    with FakeOpenAI() as fake:
        yield fake


API_KEY = "sk-test-fakegatewaykey-0123456789abcdef"


@pytest.fixture
def openai_gateway(fake_openai, settings, env):
    """MEMORY_LLM_PROVIDER=openai against the fake server on 127.0.0.1."""
    settings.MEMORY_LLM_PROVIDER = "openai"
    settings.MEMORY_LLM_BASE_URL = fake_openai.base_url
    settings.MEMORY_JUDGE_MODEL = "fake-judge"
    settings.MEMORY_LLM_TIMEOUT = 0.5
    settings.MEMORY_LLM_MAX_RETRIES = 2
    settings.MEMORY_DOUBTMEM_BASE_URL = ""
    env(MEMORY_LLM_API_KEY=API_KEY, MEMORY_LLM_BACKOFF_SECONDS="0.01")
    return fake_openai
