"""Keyword candidates from the FTS5 index, ranked by bm25, inside the structured filter."""

from __future__ import annotations

from django.db import connection

from memories.constants import Status
from memories.search.backends import Others
from memories.search.filters import SearchFilter, valid_at_sql
from memories.search.state import StateCache
from memories.search.tokens import query_tokens


def filter_sql(search_filter: SearchFilter, alias: str = "m") -> tuple[str, list]:
    """WHERE clauses shared by every SQL read that must respect the structured filter."""
    if search_filter.as_of is not None:
        valid, params = valid_at_sql(alias, search_filter.as_of)
        clauses = [f"({valid})"]
    else:
        clauses = [f"{alias}.status = %s", f"({alias}.expires_at IS NULL OR {alias}.expires_at > %s)"]
        params = [Status.ACTIVE.value, search_filter.now]
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
    if search_filter.kinds:
        clauses.append(f"{alias}.kind IN ({', '.join(['%s'] * len(search_filter.kinds))})")
        params.extend(search_filter.kinds)
    if search_filter.category_ids is not None:
        if search_filter.category_ids:
            clauses.append(f"{alias}.category_node_id IN ({', '.join(['%s'] * len(search_filter.category_ids))})")
            params.extend(search_filter.category_ids)
        else:
            clauses.append("1 = 0")
    return " AND ".join(clauses), params


def filtered_ids(search_filter: SearchFilter) -> list[int]:
    """Every id inside the structured filter, from the table (the exact path of an as-of
    read, which the in-process index cannot answer)."""
    where, params = filter_sql(search_filter)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT m.id FROM memories_memory m WHERE {where}", params)
        return [row[0] for row in cursor.fetchall()]


def organised_ids(search_filter: SearchFilter) -> list[int]:
    """Ids that pass the kind and category filters (the vector cache holds neither)."""
    clauses, params = [], []
    if search_filter.kinds:
        clauses.append(f"kind IN ({', '.join(['%s'] * len(search_filter.kinds))})")
        params.extend(search_filter.kinds)
    if search_filter.category_ids is not None:
        clauses.append(
            f"category_node_id IN ({', '.join(['%s'] * len(search_filter.category_ids))})" if search_filter.category_ids else "1 = 0"
        )
        params.extend(search_filter.category_ids or ())
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM memories_memory WHERE status = %s AND {' AND '.join(clauses)}", [Status.ACTIVE.value, *params])
        return [row[0] for row in cursor.fetchall()]


# bm25 is computed per matching row (it reads each row's size and positions), so its cost
# grows with the number of matches, not with the result size: at 100k memories one common
# bigram (出价) matches ~24k rows and an unbounded query took ~1 s. Each query therefore
# scores at most about this many rows; see _plan.
SCORED_ROWS_BUDGET = 1500


# Document frequencies and recency windows of the plan below are properties of the store,
# not of a query: kept per token until the committed search state moves on (any memory,
# entity or link write), so a repeated token costs no posting-list walk.
_plan_cache = StateCache()


def _capped_frequencies(cursor, tokens: list[str], cap: int, cached: dict | None) -> dict[str, int]:
    """How many memories match each token, counted no further than `cap` (walking a
    posting list is cheap; it is scoring every match that is not). Going through MATCH
    applies FTS5's own case folding and stemming, so Latin words count as indexed."""
    counts = {t: cached[("df", t, cap)] for t in tokens if ("df", t, cap) in cached} if cached is not None else {}
    missing = [t for t in tokens if t not in counts]
    if missing:
        # One statement for every token: a round trip each cost more than the counting.
        count = "(SELECT count(*) FROM (SELECT rowid FROM memories_memory_fts WHERE memories_memory_fts MATCH %s LIMIT %s))"
        cursor.execute("SELECT " + ", ".join([count] * len(missing)), [p for t in missing for p in (_expression([t]), cap + 1)])
        for token, n in zip(missing, cursor.fetchone(), strict=True):
            counts[token] = int(n)
            if cached is not None:
                cached[("df", token, cap)] = int(n)
    return counts


def _plan(cursor, tokens: list[str], budget: int) -> tuple[list[str], int | None]:
    """Which tokens to match, and the lowest rowid worth scoring.

    Rare tokens carry almost all of bm25's weight (idf), common ones almost none but most of
    the cost. So tokens are taken rarest first while their matches fit the budget; the
    common rest is left out. When even the rarest token alone matches more rows than the
    budget (a one-word query like 出价 over a large store), only its newest `budget`
    matches are scored, an explicit recency window. Below the budget nothing changes: the
    ranking is exact bm25 over every token."""
    cached = _plan_cache.current()
    df = _capped_frequencies(cursor, tokens, budget, cached)
    present = sorted((t for t in tokens if df[t] > 0), key=lambda t: df[t])
    if sum(df[t] for t in present) <= budget:
        return present, None
    kept: list[str] = []
    total = 0
    for token in present:
        if kept and total + df[token] > budget:
            break
        kept.append(token)
        total += df[token]
    if total <= budget:
        return kept, None
    window_key = ("window", tuple(kept), budget)
    if cached is not None and window_key in cached:
        return kept, cached[window_key]
    cursor.execute(
        "SELECT rowid FROM memories_memory_fts WHERE memories_memory_fts MATCH %s ORDER BY rowid DESC LIMIT 1 OFFSET %s",
        [_expression(kept), budget],
    )
    row = cursor.fetchone()
    min_rowid = int(row[0]) if row else None
    if cached is not None:
        cached[window_key] = min_rowid
    return kept, min_rowid


def _expression(tokens: list[str]) -> str:
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


def bm25_among(tokens: list[str], memory_ids: list[int]) -> dict[int, float]:
    """(memory id, positive bm25) of each given memory that matches any of `tokens`
    (query_tokens' output), with the index's own stemming and corpus figures; a memory that
    matches none is left out. FTS5 looks each rowid of the IN list up: no other match is
    scored."""
    if not tokens or not memory_ids:
        return {}
    ids = sorted(set(memory_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rowid, bm25(memories_memory_fts) FROM memories_memory_fts WHERE memories_memory_fts MATCH %s "
            f"AND rowid IN ({', '.join(['%s'] * len(ids))})",
            [_expression(tokens), *ids],
        )
        return {int(row[0]): -float(row[1]) for row in cursor.fetchall()}


def keyword_candidates(
    query: str, search_filter: SearchFilter, limit: int = 50, budget: int | None = None, also: Others | None = None
) -> list[tuple[int, float]]:
    """(memory id, positive bm25 score): the best `limit`, best first, then the scores of
    those of the other arms' candidates that matched but ranked lower (`also` returns them;
    it is called once the keyword rows are all read). Never raises
    on user input: the match expression is built from quoted tokens only and bound as a
    parameter."""
    budget = SCORED_ROWS_BUDGET if budget is None else budget
    tokens = query_tokens(query)
    if not tokens:
        return []
    with connection.cursor() as cursor:
        tokens, min_rowid = _plan(cursor, tokens, budget)
        if not tokens:
            return []
        window = "" if min_rowid is None else "AND memories_memory_fts.rowid >= %s "
        match = [_expression(tokens), *([min_rowid] if min_rowid is not None else [])]
        from memories.search.vectors import vector_index

        # Brought up to date before the bm25 statement opens its read snapshot: refreshed
        # while it is pending, the shared index would read an older search state than
        # another thread may already have loaded, and reload itself backwards.
        vector_index.refresh()
        # The plan bounds the scored rows (about `budget`), so they can come back unfiltered
        # and the structured filter be applied from the in-process search index: joining each
        # match to its table row only to read the filter columns cost more than bm25 itself.
        cursor.execute(
            f"SELECT rowid, bm25(memories_memory_fts) AS rank FROM memories_memory_fts WHERE memories_memory_fts MATCH %s {window}"
            "ORDER BY rank",
            match,
        )
        # Rows come best first and are admitted a chunk at a time, until `limit` pass:
        # an unscoped search admits nearly every row, so most of the ~budget scored rows
        # never need to become Python objects.
        found: list[tuple[int, float]] = []
        chunk_size = max(2 * limit, 64)
        while len(found) < limit:
            chunk = cursor.fetchmany(chunk_size)
            if not chunk:
                return found
            # The index knows only today's statuses: a read of the past filters in SQL.
            admitted = None if search_filter.as_of else vector_index.admit([int(row[0]) for row in chunk], search_filter, refresh=False)
            if admitted is None:
                break
            found.extend((int(row[0]), -float(row[1])) for row, ok in zip(chunk, admitted, strict=True) if ok)
            chunk_size *= 2
        else:
            # Every planned match is scored anyway, so the other arms' candidates get their
            # bm25 from the rest of the rows (those outside the plan's recency window stay
            # unscored), through the same filter as every other keyword row.
            if also is None:
                return found[:limit]
            # Read to the end first, which ends the statement and its read snapshot: the
            # other arms read the database too (the entity arm refreshes the index), and
            # inside an older snapshot that refresh would reload the index backwards.
            scored = cursor.fetchall()
            wanted = set(also()).difference(memory_id for memory_id, _ in found[:limit])
            if not wanted:
                return found[:limit]
            tail = [(int(row[0]), -float(row[1])) for row in scored if int(row[0]) in wanted]
            admitted = vector_index.admit([memory_id for memory_id, _ in tail], search_filter, refresh=False) if tail else []
            rest = [row for row in found[limit:] if row[0] in wanted]
            rest.extend(row for row, ok in zip(tail, admitted or [False] * len(tail), strict=True) if ok)
            return found[:limit] + rest
        # A match the index does not know yet (written since its refresh), or an as-of
        # read: filter in SQL.
        # This path is rare and transient, so it leaves `also` unscored.
        where, params = filter_sql(search_filter)
        sql = (
            "SELECT m.id, bm25(memories_memory_fts) AS rank FROM memories_memory_fts "
            "JOIN memories_memory m ON m.id = memories_memory_fts.rowid "
            f"WHERE memories_memory_fts MATCH %s {window}AND {where} ORDER BY rank LIMIT %s"
        )
        cursor.execute(sql, [*match, *params, limit])
        return [(int(row[0]), -float(row[1])) for row in cursor.fetchall()]
