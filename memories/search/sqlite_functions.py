"""SQL functions the FTS triggers call. They are registered on every new SQLite connection,
so `QuerySet.update()` and admin edits keep the keyword index right, not just our services."""

from __future__ import annotations

from typing import Any

from memories.search.tokens import fts_document

FTS_TOKENS_FUNCTION = "lingix_fts_tokens"


def register_sqlite_functions(sender: Any, connection: Any, **kwargs: Any) -> None:
    if connection.vendor != "sqlite":
        return
    connection.connection.create_function(FTS_TOKENS_FUNCTION, 1, fts_document, deterministic=True)
