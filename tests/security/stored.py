"""Everything the database holds, as bytes: every row of every table (on SQLite the FTS
shadow tables included), so a value can be looked for however it was stored."""

from __future__ import annotations

from django.db import connection


def database_bytes() -> bytes:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            tables = [row[0] for row in cursor.fetchall()]
        else:
            tables = connection.introspection.table_names(cursor)
        chunks = []
        for table in tables:
            cursor.execute(f'SELECT * FROM "{table}"')
            for row in cursor.fetchall():
                for value in row:
                    if isinstance(value, (bytes, memoryview)):
                        chunks.append(bytes(value))
                    elif value is not None:
                        chunks.append(str(value).encode("utf-8", "surrogatepass"))
    return b"\n".join(chunks)
