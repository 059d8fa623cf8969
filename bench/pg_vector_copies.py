"""What the second copy of each vector costs on PostgreSQL, and what keeping only one would.

    python -m bench.pg_vector_copies --json [--rows 20000]    # re-runs itself under scripts/with_postgres.py
    python scripts/with_postgres.py -- python -m bench.pg_vector_copies --json --database-url-from-env   # the same, explicitly

memories_memory keeps each embedding twice on PostgreSQL: the portable float32 bytes
(`embedding`, bytea, what every Python reader and SQLite use) and pgvector's copy
(`embedding_vec`, filled by a trigger from the bytes; memories/migrations/0004_postgres_search.py).
This bench loads the same random unit vectors (384-d, the bundled embedder's size) and a
short text into three scratch tables: both columns, the vector only, the bytes only. It
reports each table's size (heap plus TOAST) and the time of an exact nearest-neighbour
scan and of the mean vector (memories/search/postgres.py runs both); with the bytes only,
pgvector reads them through the migration's conversion function.

    ... -m bench.pg_vector_copies --json --migrations [--rows 5000]

measures memories_memory itself instead, the same rows before and after
memories/migrations/0011_postgres_vector_single_copy.py: loaded at 0010 with the bytes the old
write path stored (its trigger adds the vector), then migrated to 0011 (vector only). It
needs an empty database (the throwaway one of scripts/with_postgres.py)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from bench._common import Progress, add_database_url_from_env, emit, setup_postgres_django, throwaway_postgres

LAYOUTS = {
    "bytes_and_vector": ("embedding bytea, embedding_vec vector", "embedding_vec"),
    "vector_only": ("embedding_vec vector", "embedding_vec"),
    "bytes_only": ("embedding bytea", "lingix_f32le_to_vector(embedding)"),
}


def _literal(vector: np.ndarray) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def run(rows: int, say: Progress) -> dict[str, Any]:
    from django.db import connection

    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((rows, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = _literal(vectors[0])
    result: dict[str, Any] = {"rows": rows, "dimension": 384, "layouts": {}}
    with connection.cursor() as cursor:
        for name, (columns, expression) in LAYOUTS.items():
            say(f"{name}: loading {rows} rows")
            table = f"bench_vectors_{name}"
            cursor.execute(f"DROP TABLE IF EXISTS {table}")
            cursor.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, content text, {columns})")
            with cursor.cursor.copy(f"COPY {table} FROM STDIN") as copy:
                for i, vector in enumerate(vectors):
                    row: list[Any] = [i, f"{i} 医药OTC 冷启动期出价上调，ROI 目标 3.0"]
                    if "bytea" in columns:
                        row.append(vector.tobytes())
                    if "vector" in columns:
                        row.append(_literal(vector))
                    copy.write_row(row)
            cursor.execute(f"VACUUM ANALYZE {table}")
            cursor.execute(f"SELECT pg_table_size('{table}')")
            size = cursor.fetchone()[0]
            started = time.perf_counter()
            cursor.execute(f"SELECT id FROM {table} ORDER BY {expression}::vector(384) <=> %s::vector(384) LIMIT 10", [query])
            cursor.fetchall()
            scan_ms = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            cursor.execute(f"SELECT avg({expression}::vector(384)) FROM {table}")
            cursor.fetchone()
            mean_ms = (time.perf_counter() - started) * 1000
            cursor.execute(f"DROP TABLE {table}")
            result["layouts"][name] = {
                "table_mb": round(size / 2**20, 1),
                "bytes_per_row": round(size / rows),
                "exact_scan_ms": round(scan_ms, 1),
                "mean_vector_ms": round(mean_ms, 1),
            }
    both, one = result["layouts"]["bytes_and_vector"], result["layouts"]["vector_only"]
    result["second_copy_bytes_per_row"] = both["bytes_per_row"] - one["bytes_per_row"]
    return result


def _measure_memories(vectors: np.ndarray) -> dict[str, Any]:
    from django.db import connection

    from memories.search.postgres import _mean_vector, vector_literal

    scans, means = [], []
    with connection.cursor() as cursor:
        cursor.execute("VACUUM FULL ANALYZE memories_memory")
        cursor.execute("SELECT pg_table_size('memories_memory'), count(*), count(embedding), count(embedding_vec) FROM memories_memory")
        size, rows, with_bytes, with_vector = cursor.fetchone()
        for _ in range(5):
            started = time.perf_counter()
            cursor.execute(
                "SELECT id FROM memories_memory WHERE embedding_vec IS NOT NULL ORDER BY embedding_vec <=> %s::vector LIMIT 10",
                [vector_literal(vectors[0])],
            )
            cursor.fetchall()
            scans.append((time.perf_counter() - started) * 1000)
    for _ in range(5):
        started = time.perf_counter()
        _mean_vector("bench", int(vectors.shape[1]))
        means.append((time.perf_counter() - started) * 1000)
    return {
        "rows_with_bytes": with_bytes,
        "rows_with_vector": with_vector,
        "bytes_per_row": round(size / rows),
        "exact_scan_ms": round(float(np.median(scans)), 1),
        "mean_vector_ms": round(float(np.median(means)), 1),
    }


def run_migrations(rows: int, say: Progress) -> dict[str, Any]:
    from django.core.management import call_command

    from memories.models import Memory

    if Memory.objects.exists():
        raise SystemExit("--migrations needs an empty database: it migrates memories back to 0010 and forward again")
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((rows, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    call_command("migrate", "memories", "0010", verbosity=0)
    say(f"0010: {rows} memories, bytes written as the old write path did")
    Memory.objects.bulk_create(
        [
            Memory(layer="L2", content=f"{i} 医药OTC 冷启动期出价上调，ROI 目标 3.0", advertiser="brand_A", content_hash=f"h{i}")
            for i in range(rows)
        ],
        batch_size=1000,
    )
    for memory_id, vector in zip(Memory.objects.order_by("id").values_list("id", flat=True), vectors, strict=True):
        Memory.objects.filter(pk=memory_id).update(embedding=vector.tobytes(), embedding_model="bench", embedding_dim=384)
    result: dict[str, Any] = {"rows": rows, "dimension": 384, "bytes_and_vector_0010": _measure_memories(vectors)}
    say("migrating to 0011")
    started = time.perf_counter()
    call_command("migrate", "memories", "0011", verbosity=0)
    result["migration_s"] = round(time.perf_counter() - started, 2)
    result["vector_only_0011"] = _measure_memories(vectors)
    Memory.objects.all().delete()
    return result


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m bench.pg_vector_copies", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20000, help="rows per table (default 20000)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_database_url_from_env(parser)
    parser.add_argument("--migrations", action="store_true", help="measure memories_memory before and after migration 0011 instead")
    args = parser.parse_args(argv)
    if args.rows < 10:
        parser.error("--rows must be at least 10")
    # It creates and drops tables: never in the database DATABASE_URL names unless told.
    rerun = throwaway_postgres("bench.pg_vector_copies", argv, args, parser)
    if rerun is not None:
        return rerun
    setup_postgres_django()
    result = (run_migrations if args.migrations else run)(args.rows, Progress(args.quiet))
    emit(result, args.json, lambda r: "\n".join(f"{k}: {v}" for k, v in r.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
