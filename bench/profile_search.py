"""Where one hybrid search spends its time at 100k memories (the bench.latency corpus).

Each stage of the real search is wrapped with a timer for the duration of the run (the
wrappers call the real functions). On the caller's thread: admission (the structured
filter applied from the vector index to the keyword and entity arms' rows, with any index
refresh it makes), starting the vector arm (index refresh, hand-off), the keyword side
(FTS5 plan and bm25, admission taken out), waiting for the vector arm, the entity arm,
fetching the candidates' vectors, loading their metadata, MMR, and the final row fetch in
memory_search; what is left of the wall time is fusion and the rest of the Python glue.
Each stage counts its own time only (a stage called inside another is taken out of it).
The vector arm's sweep and rescoring run on a worker thread beside the keyword side; they
are reported apart ("vectors_worker") and are not part of the sum. (With an organisation
filter the vector search runs on the caller's thread; this bench uses none.)
With --pyinstrument a call-tree profile of the same searches goes to a text file.

    python -m bench.profile_search --json [--size 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from bench._common import Progress, emit, percentile, setup_throwaway_django
from bench.corpus_cache import add_corpus_arguments

STAGES = ("admission", "vector_start", "fts", "vector_wait", "entities", "candidate_vectors", "metadata", "mmr", "row_fetch")
WORKER_STAGES = ("vectors_worker",)


class _StageClock:
    """Exclusive wall time per stage: time spent in a wrapped call made from inside another
    wrapped call on the same thread is taken out of the outer one."""

    def __init__(self) -> None:
        self.current: dict[str, float] = defaultdict(float)
        self._local = threading.local()

    def _timed(self, stage: str, inner: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args, **kwargs):
            stack = self._local.__dict__.setdefault("stack", [])
            stack.append(0.0)  # time of the calls nested in this one
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent = (time.perf_counter() - t0) * 1000
                nested = stack.pop()
                self.current[stage] += spent - nested
                if stack:
                    stack[-1] += spent

        return timed

    def wrap(self, owner: Any, name: str, stage: str) -> None:
        setattr(owner, name, self._timed(stage, getattr(owner, name)))

    def wrap_result(self, owner: Any, name: str, stage: str, wait_stage: str) -> None:
        """Time the call as `stage`, and the function it returns (a wait) as `wait_stage`."""
        inner = self._timed(stage, getattr(owner, name))
        setattr(owner, name, lambda *args, **kwargs: self._timed(wait_stage, inner(*args, **kwargs)))

    def take(self) -> dict[str, float]:
        out = dict(self.current)
        self.current.clear()
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_search", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--size", type=int, default=100_000, help="memories in the corpus (default 100000)")
    parser.add_argument("--queries", type=int, default=200, help="timed searches (default 200)")
    add_corpus_arguments(parser)
    parser.add_argument("--pyinstrument", metavar="FILE", help="also write a pyinstrument call tree of the timed searches to FILE")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.size < 1 or args.queries < 1:
        sys.stderr.write("bench.profile_search: error: --size and --queries must be positive\n")
        return 2
    progress = Progress(args.quiet)
    workdir = setup_throwaway_django("profile")

    from bench.latency import load_or_build_corpus, query_plan
    from memories import selectors
    from memories.embeddings import get_embedder
    from memories.search import backends, hybrid
    from memories.search.vectors import VectorIndex

    load_or_build_corpus(args.size, args.base_texts, args.noise, workdir, progress)
    plan = query_plan(args.queries)
    embedder = get_embedder()
    vectors = {text: embedder.embed_query(text) for text in {q for q, _ in plan}}
    # Query embedding is excluded: the embedder answers from the vectors computed above.
    embedder.embed_query = lambda text: vectors[text]

    clock = _StageClock()
    # The vector arm's own work, on its worker thread; its mask counts as vector work.
    clock.wrap(VectorIndex, "_search_loaded", "vectors_worker")
    clock.wrap(VectorIndex, "admit", "admission")
    clock.wrap(backends.SQLiteBackend, "keyword_candidates", "fts")
    clock.wrap_result(backends.SQLiteBackend, "start_vector_candidates", "vector_start", "vector_wait")
    clock.wrap(backends.SQLiteBackend, "vectors_for", "candidate_vectors")
    clock.wrap(hybrid, "_load_metadata", "metadata")
    clock.wrap(hybrid, "_mmr", "mmr")
    clock.wrap(hybrid, "entity_candidates", "entities")
    clock.wrap(selectors, "_result_rows", "row_fetch")

    for query, advertiser in plan[:5]:
        selectors.memory_search(query=query, advertisers=(advertiser,) if advertiser else None, top_k=10, record_access=False)
    clock.take()
    profiler = None
    if args.pyinstrument:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0005)
        profiler.start()
    rows: list[dict[str, float]] = []
    for query, advertiser in plan:
        t0, c0 = time.perf_counter(), time.thread_time()
        selectors.memory_search(query=query, advertisers=(advertiser,) if advertiser else None, top_k=10, record_access=False)
        total, total_cpu = (time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000
        stages = clock.take()
        stages["total"], stages["total_cpu"] = total, total_cpu
        stages["fusion_and_glue"] = total - sum(stages.get(s, 0.0) for s in STAGES)
        stages["scoped"] = 1.0 if advertiser else 0.0
        rows.append(stages)
    if profiler is not None:
        profiler.stop()
        with open(args.pyinstrument, "w", encoding="utf-8") as handle:
            handle.write(profiler.output_text(unicode=True, color=False, show_all=False))

    def summary(subset: list[dict[str, float]]) -> dict[str, Any]:
        total_mean = sum(r["total"] for r in subset) / len(subset)
        out: dict[str, Any] = {}
        for stage in (*STAGES, "fusion_and_glue", "total", *WORKER_STAGES):
            values = [r.get(stage, 0.0) for r in subset]
            mean = sum(values) / len(values)
            out[stage] = {
                "mean_ms": round(mean, 3),
                "p95_ms": round(percentile(values, 95), 3),
                "share_of_mean_total": round(mean / total_mean, 3) if total_mean else 0.0,
            }
        out["total"]["cpu_mean_ms"] = round(sum(r["total_cpu"] for r in subset) / len(subset), 3)
        return out

    doc = {
        "size": args.size,
        "queries": args.queries,
        "all": summary(rows),
        "advertiser_scoped": summary([r for r in rows if r["scoped"]]),
        "operator_view": summary([r for r in rows if not r["scoped"]]),
        "method": "memory_search(top_k=10, record_access=False), query vectors embedded up front; stage timers wrap the real "
        "functions (wall time, each stage its own time only); vectors_worker runs on the vector arm's thread beside the "
        "others and is not part of the total; total CPU from thread_time (the caller's thread)",
    }
    emit(doc, args.json, render)
    return 0


def render(doc: dict[str, Any]) -> str:
    lines = [f"{'stage':18} {'wall':>8} {'share':>6} {'scoped':>8} {'operator':>9}"]
    for stage in (*STAGES, "fusion_and_glue", "total", *WORKER_STAGES):
        a = doc["all"][stage]
        lines.append(
            f"{stage:18} {a['mean_ms']:8.2f} {a['share_of_mean_total']:6.2f} "
            f"{doc['advertiser_scoped'][stage]['mean_ms']:8.2f} {doc['operator_view'][stage]['mean_ms']:9.2f}"
        )
    lines.append(
        f"n={doc['size']}, {doc['queries']} queries; wall ms per search (mean); "
        f"CPU of the caller's thread {doc['all']['total']['cpu_mean_ms']:.2f} ms; vectors_worker runs beside, outside the total"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
