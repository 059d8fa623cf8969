"""Backup and restore at size: time `memory backup` and `memory restore` on a store of
synthetic memories, and prove the restore is exact.

The store is fingerprinted (every memory's id, status, version, content hash and vector
bytes), backed up, then changed (new memories imported, some archived); the restore must
bring back the fingerprint, the same keyword results, and none of the later changes.

    python -m bench.backup --json [--size N]             # a throwaway SQLite file
    python -m bench.backup --json --postgres             # re-runs itself under scripts/with_postgres.py
    python scripts/with_postgres.py -- python -m bench.backup --json --database-url-from-env   # the same, explicitly

It fills, changes and replaces the whole database, so it never runs on the PostgreSQL
server DATABASE_URL names unless told to (--database-url-from-env): a postgres
DATABASE_URL without it runs the bench on a throwaway server instead (bench._common's
throwaway_postgres)."""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._common import (
    Progress,
    add_database_url_from_env,
    emit,
    setup_postgres_django,
    setup_throwaway_django,
    throwaway_postgres,
    using_postgres,
)

PROBE_QUERIES = ("出价", "大促 ROI", "素材疲劳 更换", "weekend bid multiplier", "oCPC 目标CPA")


def _setup(*, postgres: bool) -> None:
    if postgres:
        setup_postgres_django()
    else:
        setup_throwaway_django("backup")


FINGERPRINT_FIELDS = (
    "id",
    "layer",
    "advertiser",
    "business_line",
    "status",
    "version",
    "supersedes_id",
    "importance",
    "confidence",
    "content_hash",
    "expires_at",
    "access_count",
    "updated_at",
)


def fingerprint() -> dict[str, Any]:
    """Row count and one digest over every memory's identity, scope, state and vector, plus
    the counts of funnel events and traces the restore must also bring back. (The audit
    log is checked apart: the restore adds its own entry after it.)"""
    from governance.models import MemoryEvent, Trace
    from memories.embeddings.store import stored_vectors
    from memories.models import Memory

    digest = hashlib.sha256()
    count = 0
    rows = list(Memory.objects.order_by("id").values_list(*FINGERPRINT_FIELDS))
    for start in range(0, len(rows), 5000):
        chunk = rows[start : start + 5000]
        # The vector from the column that holds it on this backend (bytes on SQLite, pgvector on PostgreSQL).
        vectors = stored_vectors([fields[0] for fields in chunk])
        for fields in chunk:
            digest.update("|".join(str(f) for f in fields).encode())
            vector = vectors.get(fields[0])
            digest.update(b"" if vector is None else vector.tobytes())
            count += 1
    audit = {"events": MemoryEvent.objects.count(), "traces": Trace.objects.count()}
    digest.update(repr(sorted(audit.items())).encode())
    return {"memories": count, "sha256": digest.hexdigest(), **audit}


def probe_searches(mode: str) -> list[list[int]]:
    from memories.selectors import memory_search

    return [[r.memory.pk for r in memory_search(query=q, top_k=10, mode=mode, record_access=False).results] for q in PROBE_QUERIES]


def overlap_at_10(before: list[list[int]], after: list[list[int]]) -> float:
    """Mean share of each probe's top 10 found again after the restore."""
    # Two empty lists agree completely.
    shares = [len(set(a) & set(b)) / len(b) if b else float(not a) for a, b in zip(after, before, strict=True)]
    return round(sum(shares) / len(shares), 3)


def _drift(texts: list[str], rng: random.Random, progress: Progress) -> dict[str, int]:
    """What happens after the backup and must be undone by the restore."""
    from bench.latency import import_synthetic
    from memories.constants import Status
    from memories.models import Memory
    from memories.storage import memory_set_status

    before = Memory.objects.count()
    import_synthetic([f"备份之后新增：{t}" for t in texts[:1000]], 1000, rng, progress)
    archived = 0
    for memory in Memory.objects.filter(status=Status.ACTIVE).exclude(layer="L1").order_by("id")[:50]:
        memory_set_status(memory=memory, status=Status.ARCHIVED)
        archived += 1
    return {"imported_after_backup": Memory.objects.count() - before, "archived_after_backup": archived}


def run(size: int, progress: Progress) -> dict[str, Any]:
    from django.db import connection

    from bench.latency import attach_vectors, import_synthetic, synthetic_texts
    from governance.models import AuditLog
    from lingix_site.backup import database_backup, database_restore
    from memories.embeddings import get_embedder
    from memories.models import Memory

    if Memory.objects.exists():
        # The bench fills, changes and finally replaces the whole database.
        raise SystemExit("bench.backup: error: the database at DATABASE_URL holds memories; use an empty, throwaway one")
    rng = random.Random(5)
    texts = synthetic_texts(size)
    base = get_embedder().embed_passages(texts[:500])
    import_synthetic(texts, size, rng, progress)
    attach_vectors(base, 0.02, size, progress)
    before = fingerprint()
    audit_rows_before = AuditLog.objects.count()
    # Keyword ranking is deterministic on both backends; hybrid on PostgreSQL goes through
    # an HNSW index that pg_restore rebuilds, and a rebuilt graph may answer a little
    # differently, so it is reported as an overlap rather than required to be identical.
    searches_before = {mode: probe_searches(mode) for mode in ("keyword", "hybrid")}
    progress(f"fingerprinted {before['memories']} memories")

    workdir = Path(tempfile.mkdtemp(prefix="lingix-backup-bench-"))
    try:
        target = workdir / ("lingix.sqlite3" if connection.vendor == "sqlite" else "lingix.dump")
        t0 = time.perf_counter()
        backup = database_backup(path=str(target))
        backup_s = time.perf_counter() - t0
        progress(f"backup: {backup['bytes'] / 1e6:.1f} MB in {backup_s:.1f}s")

        drift = _drift(texts, rng, progress)
        changed = fingerprint()

        t0 = time.perf_counter()
        database_restore(path=str(target), actor="bench.backup")
        restore_s = time.perf_counter() - t0
        progress(f"restore in {restore_s:.1f}s")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    after = fingerprint()
    searches_after = {mode: probe_searches(mode) for mode in ("keyword", "hybrid")}

    # Exact: everything is back, the drift really happened, and the audit log kept exactly
    # one new line, the restore's own.
    exact = after == before and changed != before and AuditLog.objects.count() == audit_rows_before + 1
    # SQLite's vector side is an exact scan, so there hybrid results must match as well.
    hybrid_must_match = connection.vendor == "sqlite"
    return {
        "backend": connection.vendor,
        "memories": before["memories"],
        "backup_s": round(backup_s, 2),
        "backup_mb": round(backup["bytes"] / 1e6, 1),
        "backup_memories_per_s": round(before["memories"] / backup_s, 0),
        "restore_s": round(restore_s, 2),
        "restore_memories_per_s": round(before["memories"] / restore_s, 0),
        **drift,
        "fingerprint_before": before["sha256"][:16],
        "fingerprint_after_restore": after["sha256"][:16],
        "restore_exact": exact,
        "keyword_results_identical": searches_after["keyword"] == searches_before["keyword"],
        "hybrid_results_identical": searches_after["hybrid"] == searches_before["hybrid"],
        "hybrid_overlap_at_10": overlap_at_10(searches_before["hybrid"], searches_after["hybrid"]),
        "ok": exact
        and searches_after["keyword"] == searches_before["keyword"]
        and (searches_after["hybrid"] == searches_before["hybrid"] or not hybrid_must_match),
    }


def render(doc: dict[str, Any]) -> str:
    return (
        f"{doc['backend']}: {doc['memories']} memories, backup {doc['backup_s']}s ({doc['backup_mb']} MB), "
        f"restore {doc['restore_s']}s; exact={doc['restore_exact']} keyword results identical="
        f"{doc['keyword_results_identical']}, hybrid top-10 overlap {doc['hybrid_overlap_at_10']}"
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m bench.backup", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--size", type=int, default=100_000, help="memories in the store (default 100000)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--postgres", action="store_true", help="run on a throwaway PostgreSQL (scripts/with_postgres.py)")
    add_database_url_from_env(parser)
    args = parser.parse_args(argv)
    if args.size < 1:
        sys.stderr.write("bench.backup: error: --size must be positive\n")
        return 2
    if args.postgres or args.database_url_from_env or using_postgres():
        rerun = throwaway_postgres("bench.backup", argv, args, parser)
        if rerun is not None:
            return rerun
    progress = Progress(args.quiet)
    _setup(postgres=args.database_url_from_env)
    doc = run(args.size, progress)
    emit(doc, args.json, render)
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
