import json

import pytest

from lingix_site.demo import DEMO_FILE


@pytest.fixture
def demo_memories(db):
    """The bundled demo set, imported and embedded for real."""
    from memories.services import embed_backfill
    from governance.imports import memories_import

    memories_import(lines=DEMO_FILE.read_text(encoding="utf-8").splitlines(), actor="test", label="demo-test", embed=False)
    embed_backfill()
    from memories.models import Memory

    return list(Memory.objects.all())


@pytest.fixture
def make_memory(db, django_capture_on_commit_callbacks):
    """memory_create through the service, with its on-commit embedding really run."""
    from memories.services import memory_create

    def _make(content: str, **fields):
        fields.setdefault("layer", "L2")
        with django_capture_on_commit_callbacks(execute=True):
            return memory_create(content=content, **fields)

    return _make


def jsonl(rows) -> list[str]:
    return [json.dumps(r, ensure_ascii=False) for r in rows]
