"""One process of the machine, for test_shared_vector_file: Django on the SQLite file
database given as argv[1] (migrated by the first worker, `--migrate`), then one JSON
command per stdin line and one JSON answer per stdout line, so a test can drive two
processes against the same database and the same vector file beside it.

Writes go through memories.storage, and vectors are embedded by the bundled embedder, or
by the one the environment names (MEMORY_EMBEDDING_PROVIDER=openai and its settings)."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench._common import use_sqlite_file  # noqa: E402

use_sqlite_file(Path(sys.argv[1]))

import django  # noqa: E402

django.setup()
if "--migrate" in sys.argv:
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)

from memories import storage  # noqa: E402
from memories.constants import Status  # noqa: E402
from memories.embeddings import get_embedder  # noqa: E402
from memories.embeddings.store import embedding_text, memory_store_vectors  # noqa: E402
from memories.models import Memory  # noqa: E402
from memories.search.filters import SearchFilter  # noqa: E402
from memories.search.vectors import vector_index  # noqa: E402


def _embed(memories: list[Memory]) -> None:
    embedder = get_embedder()
    memory_store_vectors(memories, list(embedder.embed_passages([embedding_text(m) for m in memories])), embedder.model_name)


def write(texts: list[str], advertiser: str | None = None) -> dict:
    made = [storage.memory_create(layer="L2", content=text, advertiser=advertiser, embed=False) for text in texts]
    _embed(made)
    return {"ids": [m.pk for m in made]}


def supersede(memory_id: int, text: str) -> dict:
    new = storage.memory_supersede(old=Memory.objects.get(pk=memory_id), content=text, embed=False)
    _embed([new])
    return {"id": new.pk}


def archive(memory_id: int) -> dict:
    storage.memory_set_status(memory=Memory.objects.get(pk=memory_id), status=Status.ARCHIVED)
    return {}


def delete(memory_ids: list[int]) -> dict:
    return {"deleted": storage.memories_delete(memory_ids=memory_ids)}


def search(query: str, advertiser: str | None = None, exact: bool = False) -> dict:
    search_filter = SearchFilter.for_advertiser(advertiser) if advertiser else SearchFilter()
    hits = vector_index.search(get_embedder().embed_query(query), search_filter, 10, exact=exact)
    return {"hits": [memory_id for memory_id, _ in hits], "loads": dict(vector_index.loads), "shared": vector_index.shared}


def write_rolled_back(text: str, query: str) -> dict:
    """A write searched inside its own transaction, then rolled back."""
    from django.db import transaction

    class RolledBack(Exception):
        pass

    seen: list[int] = []
    try:
        with transaction.atomic():
            made = write([text])["ids"]
            seen = search(query)["hits"]
            raise RolledBack
    except RolledBack:
        pass
    return {"ids": made, "seen_inside": seen, "overlay": len(getattr(vector_index._store, "overlay", {}))}


def refresh() -> dict:
    vector_index.refresh()
    return {"loads": dict(vector_index.loads), "shared": vector_index.shared}


def prune(keep: int) -> dict:
    from memories.search.vectors import prune_deletion_log

    return {"pruned": prune_deletion_log(keep=keep)}


def copy_and_delete(copies: int) -> dict:
    """`copies` SQL copies of the first memory (each with its own content hash), then
    deleted by SQL: a long deletion log, each row logged by the delete trigger as any is."""
    from django.db import connection, transaction

    columns = ", ".join(f'"{f.column}"' for f in Memory._meta.concrete_fields if f.column != "id")
    copied = columns.replace('"content_hash"', "lower(hex(randomblob(32)))").replace('"supersedes_id"', "NULL")
    first = Memory.objects.order_by("id").values_list("id", flat=True).first()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO memories_memory ({columns}) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %s) "
            f"SELECT {copied} FROM memories_memory, n WHERE memories_memory.id = %s",
            [copies, first],
        )
        cursor.execute("DELETE FROM memories_memory WHERE id > %s", [first])
        return {"deleted": cursor.rowcount}


def model() -> dict:
    embedder = get_embedder()
    return {"model": embedder.model_name, "dimension": embedder.dimension}


COMMANDS = {f.__name__: f for f in (write, supersede, archive, delete, search, write_rolled_back, refresh, prune, copy_and_delete, model)}

print(json.dumps({"ready": os.getpid()}), flush=True)
for line in sys.stdin:
    command = json.loads(line)
    answer = COMMANDS[command.pop("do")](**command)
    print(json.dumps(answer, ensure_ascii=False), flush=True)
