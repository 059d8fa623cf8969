import json
from pathlib import Path

import pytest
from django.core.management import call_command

from lingix_site.demo import DEMO_FILE


@pytest.fixture
def demo_memories(db):
    """The bundled demo set, imported and embedded for real."""
    from governance.write.imports import memories_import
    from memories.embeddings.store import embed_backfill

    memories_import(lines=DEMO_FILE.read_text(encoding="utf-8").splitlines(), actor="test", label="demo-test", embed=False)
    embed_backfill()
    from memories.models import Memory

    return list(Memory.objects.all())


@pytest.fixture
def make_memory(db, django_capture_on_commit_callbacks):
    """memory_create through the service, with its on-commit embedding really run."""
    from memories.storage import memory_create

    def _make(content: str, **fields):
        fields.setdefault("layer", "L2")
        with django_capture_on_commit_callbacks(execute=True):
            return memory_create(content=content, **fields)

    return _make


@pytest.fixture
def cli(capsys, django_capture_on_commit_callbacks):
    """`memory …` through the real command in this process, its on-commit work really run;
    returns (exit code, stdout parsed as JSON when --json was given, stderr)."""

    def _run(*argv):
        with django_capture_on_commit_callbacks(execute=True), pytest.raises(SystemExit) as exit_info:
            call_command("memory", *argv)
        out = capsys.readouterr()
        body = json.loads(out.out) if "--json" in argv and out.out.strip() else out.out
        return exit_info.value.code, body, out.err

    return _run


@pytest.fixture
def policy(db):
    """Set fields of one layer's LayerPolicy row; returns the row."""
    from governance.models import LayerPolicy

    def _set(layer: str, **values):
        LayerPolicy.objects.filter(layer=layer).update(**values)
        return LayerPolicy.objects.get(layer=layer)

    return _set


def jsonl(rows) -> list[str]:
    return [json.dumps(r, ensure_ascii=False) for r in rows]


# -- The funnel's own decision -------------------------------------------------------------


@pytest.fixture
def no_sampled_audit(db):
    """Sampled audit is deterministic per event id; a test that studies the funnel's own
    decision turns it off, a test that studies sampling sets the rate (set_audit_rate)."""
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


# -- The OpenAI-compatible gateway (tests/fakes) --------------------------------------------

GATEWAY_API_KEY = "sk-test-fakegatewaykey-0123456789abcdef"


@pytest.fixture
def fake_openai():
    from tests.fakes.openai_server import FakeOpenAI

    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def openai_gateway(fake_openai, settings, env):
    """MEMORY_LLM_PROVIDER=openai against the fake server on 127.0.0.1."""
    settings.MEMORY_LLM_PROVIDER = "openai"
    settings.MEMORY_LLM_BASE_URL = fake_openai.base_url
    settings.MEMORY_JUDGE_MODEL = "fake-judge"
    settings.MEMORY_LLM_TIMEOUT = 0.5
    settings.MEMORY_LLM_MAX_RETRIES = 2
    settings.MEMORY_DOUBTMEM_BASE_URL = ""
    env(MEMORY_LLM_API_KEY=GATEWAY_API_KEY, MEMORY_LLM_BACKOFF_SECONDS="0.01")
    return fake_openai


# -- Tenants: API tokens ---------------------------------------------------------------------


@pytest.fixture
def fresh_throttle(settings):
    """Empty rate-limit buckets. The in-process cache (SQLite) outlives a test and is
    cleared; the database cache (PostgreSQL) is a table rolled back with the test's
    transaction, and tests without database access must not touch it."""
    from django.core.cache import cache

    if settings.CACHES["default"]["BACKEND"].endswith("DatabaseCache"):
        yield
        return
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_token(db):
    """Create a token through the service; returns (ApiToken, raw secret)."""
    from api.services import api_token_create

    def _make(name: str, advertisers=None, *, all_advertisers: bool = False, can_review: bool = False):
        return api_token_create(
            name=name, advertisers=advertisers, all_advertisers=all_advertisers, can_review=can_review, created_by_name="test"
        )

    return _make


class ApiClient:
    """Django's test client speaking JSON with a bearer token, through the real URLconf
    and middleware."""

    def __init__(self, raw: str | None = None):
        from django.test import Client

        self.client = Client()
        self.raw = raw

    def _headers(self, raw):
        token = self.raw if raw is None else raw
        return {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}

    def post(self, path: str, body=None, *, raw: str | None = None, content: bytes | None = None):
        data = content if content is not None else json.dumps(body if body is not None else {}, ensure_ascii=False)
        return self.client.post(f"/api/v1{path}", data=data, content_type="application/json", **self._headers(raw))

    def get(self, path: str, *, raw: str | None = None, **params):
        return self.client.get(f"/api/v1{path}", params, **self._headers(raw))


@pytest.fixture
def api_client():
    return ApiClient


@pytest.fixture
def brand_a(make_token):
    _, raw = make_token("agent-a", ["brand_A"])
    return ApiClient(raw)


@pytest.fixture
def brand_b(make_token):
    _, raw = make_token("agent-b", ["brand_B"])
    return ApiClient(raw)


@pytest.fixture
def reviewer_a(make_token):
    """A brand_A token that may decide reviews, but only inside brand_A."""
    _, raw = make_token("review-a", ["brand_A"], can_review=True)
    return ApiClient(raw)


@pytest.fixture
def operator_token(make_token):
    """An operator's API token: every advertiser, and it may decide reviews."""
    _, raw = make_token("ops", all_advertisers=True, can_review=True)
    return ApiClient(raw)


# -- People: staff accounts in the roles the migrations create -------------------------------


def staff_user(django_user_model, username: str, group: str, *, password: str | None = None):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(username=username, password=password or "pw-" + username, is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def reviewer(db, django_user_model):
    return staff_user(django_user_model, "reviewer_li", "reviewer")


@pytest.fixture
def second_reviewer(db, django_user_model):
    return staff_user(django_user_model, "reviewer_wang", "reviewer")


@pytest.fixture
def operator(db, django_user_model):
    return staff_user(django_user_model, "operator_zhao", "operator")


def _client_for(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def reviewer_client(reviewer):
    return _client_for(reviewer)


@pytest.fixture
def second_reviewer_client(second_reviewer):
    return _client_for(second_reviewer)


@pytest.fixture
def operator_client(operator):
    return _client_for(operator)


@pytest.fixture
def env():
    """Set (a string) or unset (None) environment variables for one test, and rebuild the
    configuration object that reads them once (lingix_config); both come back afterwards.
    `env(MEMORY_LLM_API_KEY="sk-…", LINGIX_METRICS_ALLOW=None)`."""
    from lingix_config import reload_config

    with pytest.MonkeyPatch.context() as patch:

        def _set(**values: str | None) -> None:
            for name, value in values.items():
                if value is None:
                    patch.delenv(name, raising=False)
                else:
                    patch.setenv(name, value)
            reload_config()

        yield _set
    reload_config()


# Modules whose tests start real servers or subprocesses, scan big corpora or embed the
# demo store per test: several seconds each (pytest --durations on a full run). Marked
# here in one place, so `make test-fast` (-m "not slow and not browser") leaves them out.
SLOW_MODULES = frozenset(
    {
        "tests/api/test_fuzz.py",
        "tests/api/test_limits.py",
        "tests/api/test_limits_across_workers.py",
        "tests/api/test_log_redaction.py",
        "tests/api/test_mcp.py",
        "tests/bench/test_benches.py",
        "tests/bench/test_conversational_sets.py",
        "tests/governance/lifecycle/test_overlapping_runs.py",
        "tests/governance/test_funnel_labelled_set.py",
        "tests/memories/test_search_threads.py",
        "tests/memories/test_shared_vector_file.py",
        "tests/memories/test_vector_first_pass.py",
        "tests/security/test_erase_files.py",
        "tests/site/test_cli_process.py",
        "tests/site/test_operator_experience.py",
        "tests/site/test_soak.py",
        "tests/site/test_tasks.py",
    }
)


# After pytest-django's own sort (tryfirst), so the serialized tests can be moved within it.
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    root = Path(__file__).resolve().parent.parent
    for item in items:
        if Path(str(item.fspath)).resolve().relative_to(root).as_posix() in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
    _serialized_rollback_first(items)


def _django_db_kwargs(item) -> dict:
    marker = item.get_closest_marker("django_db")
    return dict(marker.kwargs) if marker else {}


def _is_transactional(item) -> bool:
    kwargs = _django_db_kwargs(item)
    fixtures = getattr(item, "fixturenames", ())
    return bool(kwargs.get("transaction") or kwargs.get("reset_sequences")) or bool({"transactional_db", "live_server"} & set(fixtures))


def _serialized_rollback_first(items) -> None:
    """A serialized_rollback test re-inserts the migrated content types by id. The flush after
    a plain transactional test re-creates them (post_migrate) under new AUTOINCREMENT ids, so
    a serialized test after one fails with UNIQUE constraint failed on django_content_type.
    The serialized tests therefore go first among the transactional tests, wherever their
    module sits in collection order."""
    serialized = [item for item in items if _django_db_kwargs(item).get("serialized_rollback")]
    if not serialized:
        return
    moved = {id(item) for item in serialized}
    first = next(i for i, item in enumerate(items) if id(item) in moved or _is_transactional(item))
    rest = [item for item in items[first:] if id(item) not in moved]
    items[first:] = serialized + rest
