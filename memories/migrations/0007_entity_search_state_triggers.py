"""The entity arm of search caches the entity table, link counts and links in process
(memories.search.entities), keyed by the search state. So on SQLite every write to the
entity, link and relation tables moves the search-state generation, as memory writes do
(0002): another process's cache is then stale on its next search. PostgreSQL keeps no
search state and does not cache; there this migration does nothing."""

from django.db import migrations

TABLES = ("memories_entity", "memories_memoryentity", "memories_relation")
EVENTS = {"ai": "INSERT", "au": "UPDATE", "ad": "DELETE"}


def _trigger(table: str, suffix: str, event: str) -> str:
    return f"""CREATE TRIGGER IF NOT EXISTS {table}_gen_{suffix} AFTER {event} ON {table} BEGIN
        INSERT OR IGNORE INTO memories_searchstate(id, generation, epoch) VALUES (1, 0, 0);
        UPDATE memories_searchstate SET generation = generation + 1 WHERE id = 1;
    END"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for table in TABLES:
        for suffix, event in EVENTS.items():
            schema_editor.execute(_trigger(table, suffix, event))


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for table in TABLES:
        for suffix in EVENTS:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_gen_{suffix}")


class Migration(migrations.Migration):
    dependencies = [("memories", "0006_entities_and_relations")]
    operations = [migrations.RunPython(forward, backward)]
