import json

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
