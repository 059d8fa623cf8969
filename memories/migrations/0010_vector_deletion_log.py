"""On SQLite, a memory delete no longer makes every process reload its whole vector index.

Until now the delete trigger bumped the search-state epoch, and a new epoch meant a full
reload (about 5.7 s per process at 100k memories). The trigger now moves only the
generation and logs which memory went, under that generation, in
`memories_vectordeletion`; a process drops the ids logged after the generation it last saw
(memories/search/vectors.py). The log keeps ids only, never words: 16 bytes a deleted row.

`memories_vectorfile` holds one random token naming this database's history. The shared
vector file beside the database (memories/search/vector_file.py) records it, so a file left
by another database at the same path (a recreated or swapped file) is never trusted.

PostgreSQL keeps no search state and has no shared vector file: nothing to do there."""

from django.db import migrations

# Also what memories/migrations/_sqlite_triggers.py puts back after a later migration
# rebuilds memories_memory (which drops its triggers).
MEMORY_DELETE_TRIGGER = """CREATE TRIGGER memories_memory_gen_ad AFTER DELETE ON memories_memory BEGIN
        INSERT OR IGNORE INTO memories_searchstate(id, generation, epoch) VALUES (1, 0, 0);
        UPDATE memories_searchstate SET generation = generation + 1 WHERE id = 1;
        INSERT INTO memories_vectordeletion(memory_id, rev)
        SELECT old.id, generation FROM memories_searchstate WHERE id = 1;
    END"""

FORWARD = [
    "CREATE TABLE memories_vectordeletion (memory_id INTEGER NOT NULL, rev INTEGER NOT NULL)",
    "CREATE INDEX memories_vectordeletion_rev ON memories_vectordeletion(rev)",
    "CREATE TABLE memories_vectorfile (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL)",
    "INSERT INTO memories_vectorfile(id, token) VALUES (1, lower(hex(randomblob(16))))",
    "DROP TRIGGER IF EXISTS memories_memory_gen_ad",
    MEMORY_DELETE_TRIGGER,
    # The search state row goes only when the tables are flushed (tests) or replaced: its
    # generation then starts again from 0, and deletes logged under the old numbers must
    # not be read as new ones.
    """CREATE TRIGGER memories_searchstate_ad AFTER DELETE ON memories_searchstate BEGIN
        DELETE FROM memories_vectordeletion;
    END""",
]

BACKWARD = [
    "DROP TRIGGER IF EXISTS memories_searchstate_ad",
    "DROP TRIGGER IF EXISTS memories_memory_gen_ad",
    """CREATE TRIGGER memories_memory_gen_ad AFTER DELETE ON memories_memory BEGIN
        INSERT OR IGNORE INTO memories_searchstate(id, generation, epoch) VALUES (1, 0, 0);
        UPDATE memories_searchstate SET generation = generation + 1, epoch = epoch + 1 WHERE id = 1;
    END""",
    "DROP TABLE IF EXISTS memories_vectorfile",
    "DROP TABLE IF EXISTS memories_vectordeletion",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("memories", "0009_tombstones")]
    operations = [migrations.RunPython(forward, backward)]
