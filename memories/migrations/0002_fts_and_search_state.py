"""The keyword index (FTS5, external content over memories_memory) and the search-state
generation counter, both kept right by triggers so every write path is covered."""

from django.db import migrations

# Columns whose change can alter what a search may return or how it ranks. access_count
# and last_accessed_at are deliberately absent: reads must not invalidate caches.
SEARCH_COLUMNS = (
    "embedding, embedding_model, status, layer, advertiser, business_line, expires_at, importance, created_at, content, valid_to, tier"
)

SQLITE_FORWARD = [
    """CREATE VIRTUAL TABLE memories_memory_fts USING fts5(
        content, content='memories_memory', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER memories_memory_fts_ai AFTER INSERT ON memories_memory BEGIN
        INSERT INTO memories_memory_fts(rowid, content) VALUES (new.id, lingix_fts_tokens(new.content));
    END""",
    """CREATE TRIGGER memories_memory_fts_ad AFTER DELETE ON memories_memory BEGIN
        INSERT INTO memories_memory_fts(memories_memory_fts, rowid, content)
        VALUES ('delete', old.id, lingix_fts_tokens(old.content));
    END""",
    """CREATE TRIGGER memories_memory_fts_au AFTER UPDATE OF content ON memories_memory BEGIN
        INSERT INTO memories_memory_fts(memories_memory_fts, rowid, content)
        VALUES ('delete', old.id, lingix_fts_tokens(old.content));
        INSERT INTO memories_memory_fts(rowid, content) VALUES (new.id, lingix_fts_tokens(new.content));
    END""",
    "INSERT INTO memories_searchstate(id, generation, epoch) VALUES (1, 0, 0)",
    """CREATE TRIGGER memories_memory_gen_ai AFTER INSERT ON memories_memory BEGIN
        INSERT OR IGNORE INTO memories_searchstate(id, generation, epoch) VALUES (1, 0, 0);
        UPDATE memories_searchstate SET generation = generation + 1 WHERE id = 1;
        UPDATE memories_memory SET search_rev = (SELECT generation FROM memories_searchstate WHERE id = 1)
        WHERE id = new.id;
    END""",
    f"""CREATE TRIGGER memories_memory_gen_au AFTER UPDATE OF {SEARCH_COLUMNS} ON memories_memory BEGIN
        INSERT OR IGNORE INTO memories_searchstate(id, generation, epoch) VALUES (1, 0, 0);
        UPDATE memories_searchstate SET generation = generation + 1 WHERE id = 1;
        UPDATE memories_memory SET search_rev = (SELECT generation FROM memories_searchstate WHERE id = 1)
        WHERE id = new.id;
    END""",
    """CREATE TRIGGER memories_memory_gen_ad AFTER DELETE ON memories_memory BEGIN
        INSERT OR IGNORE INTO memories_searchstate(id, generation, epoch) VALUES (1, 0, 0);
        UPDATE memories_searchstate SET generation = generation + 1, epoch = epoch + 1 WHERE id = 1;
    END""",
]

SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS memories_memory_gen_ad",
    "DROP TRIGGER IF EXISTS memories_memory_gen_au",
    "DROP TRIGGER IF EXISTS memories_memory_gen_ai",
    "DELETE FROM memories_searchstate",
    "DROP TRIGGER IF EXISTS memories_memory_fts_au",
    "DROP TRIGGER IF EXISTS memories_memory_fts_ad",
    "DROP TRIGGER IF EXISTS memories_memory_fts_ai",
    "DROP TABLE IF EXISTS memories_memory_fts",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        apps.get_model("memories", "SearchState").objects.get_or_create(id=1)
        return
    for statement in SQLITE_FORWARD:
        schema_editor.execute(statement)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for statement in SQLITE_BACKWARD:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("memories", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
