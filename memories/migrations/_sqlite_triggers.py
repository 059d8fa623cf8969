"""The triggers SQLite keeps on memories_memory, in one list, for migrations that rebuild
the table (SQLite drops a table's triggers when it rebuilds it to add a column).

The list is the latest one: 0002's keyword-index and search-generation triggers, with the
delete trigger 0010 replaced (it logs the deleted id instead of bumping the epoch). A
migration that rebuilds memories_memory calls `restore_memory_triggers`; on a database
that has not reached 0010 yet (0005 and 0008 on a fresh migrate) the deletion log does not
exist, and the helper installs 0002's delete trigger, as those migrations always did.
Django's migration loader skips modules whose name starts with "_"."""

from importlib import import_module


def memory_triggers(*, deletion_log: bool) -> list[str]:
    """CREATE TRIGGER statements for memories_memory: the current ones, or (deletion_log
    False) those from before migration 0010."""
    fts = import_module("memories.migrations.0002_fts_and_search_state")
    triggers = [s for s in fts.SQLITE_FORWARD if s.lstrip().upper().startswith("CREATE TRIGGER")]
    if not deletion_log:
        return triggers
    log = import_module("memories.migrations.0010_vector_deletion_log")
    delete = log.MEMORY_DELETE_TRIGGER
    return [delete if _name(s) == _name(delete) else s for s in triggers]


def _name(statement: str) -> str:
    return statement.split()[2]


def restore_memory_triggers(schema_editor) -> None:
    """Create every memories_memory trigger again, replacing any left (SQLite only)."""
    if schema_editor.connection.vendor != "sqlite":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories_vectordeletion'")
        deletion_log = cursor.fetchone() is not None
    for statement in memory_triggers(deletion_log=deletion_log):
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {_name(statement)}")
        schema_editor.execute(statement)
