"""Keyword candidates from the FTS5 index, ranked by bm25, inside the structured filter."""
from __future__ import annotations

from django.db import connection

from memories.constants import Status
from memories.search.filters import SearchFilter
from memories.search.tokens import fts_match_expression


def filter_sql(search_filter: SearchFilter, alias: str = "m") -> tuple[str, list]:
    """WHERE clauses shared by every SQL read that must respect the structured filter."""
    clauses = [f"{alias}.status = %s", f"({alias}.expires_at IS NULL OR {alias}.expires_at > %s)"]
    params: list = [Status.ACTIVE.value, search_filter.now]
    if search_filter.advertisers is not None:
        scoped = []
        if search_filter.advertisers:
            scoped.append(f"{alias}.advertiser IN ({', '.join(['%s'] * len(search_filter.advertisers))})")
            params.extend(search_filter.advertisers)
        if search_filter.include_global:
            scoped.append(f"{alias}.advertiser IS NULL")
        clauses.append("(" + (" OR ".join(scoped) or "FALSE") + ")")
    if search_filter.business_line:
        clauses.append(f"({alias}.business_line = %s OR {alias}.business_line = '')")
        params.append(search_filter.business_line)
    if search_filter.layers:
        clauses.append(f"{alias}.layer IN ({', '.join(['%s'] * len(search_filter.layers))})")
        params.extend(search_filter.layers)
    return " AND ".join(clauses), params


def keyword_candidates(query: str, search_filter: SearchFilter, limit: int = 50) -> list[tuple[int, float]]:
    """(memory id, positive bm25 score), best first. Never raises on user input: the match
    expression is built from quoted tokens only and bound as a parameter."""
    expression = fts_match_expression(query)
    if expression is None:
        return []
    where, params = filter_sql(search_filter)
    sql = (
        "SELECT m.id, bm25(memories_memory_fts) AS rank FROM memories_memory_fts "
        "JOIN memories_memory m ON m.id = memories_memory_fts.rowid "
        f"WHERE memories_memory_fts MATCH %s AND {where} ORDER BY rank LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [expression, *params, limit])
        return [(int(row[0]), -float(row[1])) for row in cursor.fetchall()]
