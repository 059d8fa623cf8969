"""Whole-database backup and restore: SQLite's online backup API, or pg_dump/pg_restore.

A backup is consistent while the service keeps running. A restore replaces everything,
then bumps the search epoch so every process drops its vector cache, and (SQLite) gives the
restored database a new token, so the shared vector file beside it is never trusted again
(memories/search/vector_file.py): a file written later than the backup was taken, on the
branch of history the restore throws away, may hold vectors at revs the restored database
reaches again with other rows."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.db import connection

from governance.audit import audit_record
from governance.constants import AuditEvent
from memories.exceptions import InvalidInput
from memories.models import Memory, SearchState

_REQUIRED_TABLES = {"memories_memory", "memories_memory_fts", "governance_memoryevent", "django_migrations"}


def _pg_url() -> str:
    """A libpq URI for the current database (host may be a Unix socket folder)."""
    from urllib.parse import quote

    settings_dict = connection.settings_dict
    user = quote(settings_dict.get("USER") or "", safe="")
    password = quote(settings_dict.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = quote(settings_dict.get("HOST") or "localhost", safe="")
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    return f"postgresql://{auth}{host}{port}/{quote(settings_dict['NAME'], safe='')}"


def _tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise InvalidInput(f"{name} is not installed; it is needed to back up or restore PostgreSQL")
    return found


def database_backup(*, path: str) -> dict[str, Any]:
    target = Path(path)
    if target.exists():
        raise InvalidInput(f"{target} exists; choose a new file name (a backup never overwrites)")
    if not target.parent.is_dir():
        raise InvalidInput(f"folder {target.parent} does not exist")
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        destination = sqlite3.connect(str(target))
        try:
            connection.connection.backup(destination)
        finally:
            destination.close()
    elif connection.vendor == "postgresql":
        done = subprocess.run([_tool("pg_dump"), "--format=custom", f"--file={target}", _pg_url()], capture_output=True, text=True)
        if done.returncode != 0:
            raise InvalidInput(f"pg_dump failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    else:
        raise InvalidInput(f"backup is not supported on {connection.vendor}")
    return {"backup": str(target), "bytes": target.stat().st_size, "vendor": connection.vendor}


def _check_sqlite_backup(path: Path) -> None:
    try:
        probe = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = {row[0] for row in probe.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            ok = probe.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            probe.close()
    except sqlite3.DatabaseError:
        raise InvalidInput(f"{path} is not a SQLite database") from None
    missing = _REQUIRED_TABLES - tables
    if missing:
        raise InvalidInput(f"{path} is not a Lingix Memory backup (missing {', '.join(sorted(missing))})")
    if ok != "ok":
        raise InvalidInput(f"{path} failed its integrity check: {ok}")


def _check_pg_backup(path: Path) -> None:
    listing = subprocess.run([_tool("pg_restore"), "--list", str(path)], capture_output=True, text=True)
    if listing.returncode != 0:
        raise InvalidInput(f"{path} is not a pg_dump archive")
    missing = {t for t in _REQUIRED_TABLES - {"memories_memory_fts"} if f" TABLE public {t} " not in listing.stdout}
    if missing:
        raise InvalidInput(f"{path} is not a Lingix Memory backup (missing {', '.join(sorted(missing))})")


def _new_vector_file_token() -> None:
    """A new history starts here: the shared vector file, which records the token, is
    replaced by the next process that opens it. A backup from before migration 0010 has no
    token table (the migration that follows the restore creates one, random)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories_vectorfile'")
        if cursor.fetchone() is not None:
            cursor.execute("UPDATE memories_vectorfile SET token = lower(hex(randomblob(16))) WHERE id = 1")


def database_restore(*, path: str, actor: str) -> dict[str, Any]:
    """Replace the whole database with the backup at `path`."""
    source = Path(path)
    if not source.is_file():
        raise InvalidInput(f"no such backup file: {source}")
    before = SearchState.objects.filter(pk=1).values_list("epoch", flat=True).first() or 0
    if connection.vendor == "sqlite":
        _check_sqlite_backup(source)
        connection.ensure_connection()
        origin = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            origin.backup(connection.connection)
        finally:
            origin.close()
        _new_vector_file_token()
    elif connection.vendor == "postgresql":
        _check_pg_backup(source)
        connection.close()  # pg_restore --clean drops tables; our open session must not hold locks
        done = subprocess.run(
            [_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction", f"--dbname={_pg_url()}", str(source)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise InvalidInput(f"pg_restore failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    else:
        raise InvalidInput(f"restore is not supported on {connection.vendor}")
    restored = SearchState.objects.filter(pk=1).values_list("epoch", flat=True).first() or 0
    # A restored counter may equal one a cache has already seen; move past both.
    SearchState.objects.filter(pk=1).update(epoch=max(before, restored) + 1)
    audit_record(event_type=AuditEvent.DATABASE_RESTORE, actor=actor, extra={"file": os.path.basename(path)})
    return {"restored": str(source), "memories": Memory.objects.count(), "vendor": connection.vendor}
