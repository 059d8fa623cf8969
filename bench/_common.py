"""What every benchmark shares: a throwaway SQLite database migrated for real, progress on
stderr, one JSON document on stdout."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import hashlib
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import defaultdict
from collections.abc import Hashable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def use_sqlite_file(path: Path) -> None:
    """The environment a bench or a test worker process runs Django in: the SQLite file at
    `path`, the offline judge, no background embedding or access counting, one OpenMP
    thread. Must run before anything imports Django models."""
    os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "lingix_site.settings"
    # Benchmarks embed in explicit batches and never count accesses in a background thread.
    os.environ["MEMORY_EMBED_ON_WRITE"] = "0"
    os.environ["MEMORY_ACCESS_ASYNC"] = "0"
    os.environ.setdefault("MEMORY_LLM_PROVIDER", "offline")
    # The embedder's OpenMP threads spin-wait; on a shared two-core machine two threads
    # made a query embedding ~15x slower than one (2.8 s vs 0.17 s at load 11).
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


def setup_throwaway_django(prefix: str) -> Path:
    """Point Django at a fresh SQLite file in a temporary directory and migrate it.

    Must run before anything imports Django models. The operator's database is never
    touched: DATABASE_URL is overridden whatever the environment says, and the directory
    is removed at exit."""
    workdir = Path(tempfile.mkdtemp(prefix=f"lingix-{prefix}-"))
    atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    use_sqlite_file(workdir / "bench.db")

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return workdir


def using_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def setup_postgres_django() -> None:
    """Use the PostgreSQL server DATABASE_URL names (the throwaway one
    scripts/with_postgres.py starts) and migrate it."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lingix_site.settings")
    os.environ.setdefault("MEMORY_LLM_PROVIDER", "offline")
    os.environ["MEMORY_EMBED_ON_WRITE"] = "0"
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def add_database_url_from_env(parser: argparse.ArgumentParser) -> None:
    """The flag throwaway_postgres reads."""
    parser.add_argument(
        "--database-url-from-env",
        action="store_true",
        help="use the PostgreSQL server DATABASE_URL names (it is migrated and written to: a throwaway one only)",
    )


def throwaway_postgres(module: str, argv: list[str], args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    """The guard of every bench that migrates and writes to PostgreSQL: it never runs on the
    server DATABASE_URL names unless told so (--database-url-from-env, add_database_url_from_env;
    None: go on there). Otherwise `python -m module argv` runs again under
    scripts/with_postgres.py, on a throwaway PostgreSQL 18 + pgvector for the length of the
    run, and its exit code is returned: an operator's database is never written to by
    accident, whatever DATABASE_URL says."""
    if args.database_url_from_env:
        if not using_postgres():
            parser.error("--database-url-from-env needs DATABASE_URL=postgres://…")
        return None
    bench = [sys.executable, "-m", module, *argv, "--database-url-from-env"]
    return subprocess.call([sys.executable, str(REPO / "scripts" / "with_postgres.py"), "--", *bench], cwd=REPO)


class Progress:
    """Minimal progress lines on stderr (stdout is reserved for the JSON document)."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.started = time.perf_counter()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            sys.stderr.write(f"[{time.perf_counter() - self.started:7.1f}s] {message}\n")
            sys.stderr.flush()


def emit(document: dict[str, Any], as_json: bool, render) -> None:
    if as_json:
        sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render(document) + "\n")


def text_sha256(text: str) -> str:
    """The hex SHA-256 of a text: what the HTTP benches keep of each text they send or read
    back, to check later that the database holds the same words."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def percentile(values: list[float], q: float) -> float:
    import numpy as np

    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0


def ranked_search(
    *, query: str, advertisers: tuple[str, ...] | None, mode: str, top_k: int, config: Any, include_global: bool = True
) -> Any:
    """One search as the retrieval benches rank it: `mode` is keyword, vector or hybrid
    (memory_search) or deep (deep_search, whose response also says whether it fell back);
    nothing is counted as an access, so runs do not change what the next one ranks."""
    if mode == "deep":
        from memories.search.deep import deep_search

        return deep_search(
            query=query, advertisers=advertisers, include_global=include_global, top_k=top_k, record_access=False, config=config
        )
    from memories.selectors import memory_search

    return memory_search(
        query=query,
        advertisers=advertisers,
        include_global=include_global,
        top_k=top_k,
        mode=mode,  # type: ignore[arg-type]
        record_access=False,
        config=config,
    )


class RecallTally:
    """Recall@k of each question's ranked keys against its gold keys, summed per bucket
    ("overall", a category, a kind) and averaged by summary(): the scoring the retrieval
    benches (bench.locomo, bench.zh_adops, bench.zh_chat) share, so their figures stay
    comparable. `mrr` adds the reciprocal rank of the first gold key; `hit_at` adds hit@n,
    whether any gold key is in the top n."""

    def __init__(self, ks: tuple[int, ...], *, mrr: bool = False, hit_at: int | None = None) -> None:
        self.ks, self.mrr, self.hit_at = ks, mrr, hit_at
        self._sums: dict[Hashable, dict[str, float]] = defaultdict(lambda: defaultdict(float))

    def add(self, ranked: list[str | None], gold: set[str], buckets: Iterable[Hashable]) -> dict[str, float]:
        """Score one question, count it in each of `buckets`, and return its scores."""
        scores = {f"recall@{k}": len(gold & set(ranked[:k])) / len(gold) for k in self.ks}
        if self.mrr:
            first = next((i for i, key in enumerate(ranked) if key in gold), None)
            scores["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
        if self.hit_at is not None:
            scores[f"hit@{self.hit_at}"] = 1.0 if gold & set(ranked[: self.hit_at]) else 0.0
        for bucket in buckets:
            row = self._sums[bucket]
            row["questions"] += 1
            for key, value in scores.items():
                row[key] += value
        return scores

    def buckets(self) -> list[Hashable]:
        return list(self._sums)

    def __contains__(self, bucket: Hashable) -> bool:
        return bucket in self._sums

    def summary(self, bucket: Hashable) -> dict[str, float]:
        """The bucket's mean scores, rounded to four places, then its question count."""
        row = self._sums.get(bucket, {})
        count = row.get("questions", 0)
        out = {key: round(value / (count or 1), 4) for key, value in row.items() if key != "questions"}
        out["questions"] = int(count)
        return out


def parse_modes(prog: str, text: str, allowed: tuple[str, ...]) -> tuple[str, ...] | None:
    """The search modes of a comma-separated --modes, or None (the one-line error written on
    stderr) when it names none or one outside `allowed`."""
    modes = tuple(m for m in text.split(",") if m)
    if not modes or any(m not in allowed for m in modes):
        sys.stderr.write(f"{prog}: error: --modes takes {', '.join(allowed)}\n")
        return None
    return modes


def import_line(*, layer: str, content: str, advertiser: str, source: str, created_at: str | None, data: dict[str, Any]) -> str:
    """One memory as a line of the trusted import (governance.write.imports), the way the
    retrieval benches write theirs: no category, importance 5, `data` naming the memory's
    key in the labelled set. The store cache (bench.store_cache) is keyed by these lines,
    so their form must not drift."""
    return json.dumps(
        {
            "layer": layer,
            "content": content,
            "advertiser": advertiser,
            "category": "",
            "source": source,
            "importance": 5,
            "created_at": created_at,
            "data": data,
        },
        ensure_ascii=False,
    )


def imported_store(
    label: str, lines: list[str], *, key: str, progress: Progress, reuse: bool, what: str, embed_progress: Any = None
) -> dict[int, str]:
    """Import `lines` (import_line) through the governed import path as bench.`label`, embed
    them, and return each memory's id → its `data[key]`. With `reuse`, a store imported from
    the same lines before is restored instead (bench.store_cache). `what` names what is
    imported in the progress line; an import error ends the run with a one-line error."""
    from governance.write.imports import memories_import
    from memories.embeddings.store import embed_backfill
    from memories.models import Memory

    def build() -> None:
        progress(f"importing {len(lines)} {what}")
        report = memories_import(lines=lines, actor=f"bench.{label}", embed=False, label=label)
        if report.errors:
            raise SystemExit(f"bench.{label}: error: import failed: {report.errors[:3]}")
        progress("embedding")
        embed_backfill(batch_size=64, progress=embed_progress)

    if reuse:
        from bench.store_cache import restore_or_build

        restore_or_build(label, lines, build, progress)
    else:
        build()
    return {pk: data[key] for pk, data in Memory.objects.values_list("id", "data")}


@dataclass(frozen=True)
class LabelledQuery:
    """One question of a retrieval set: its text, the scope it is searched in, its gold keys
    and the buckets (RecallTally) it counts in."""

    text: str
    gold: set[str]
    buckets: tuple[Hashable, ...]
    advertisers: tuple[str, ...] | None
    include_global: bool = True


@dataclass
class ScoredRun:
    """The queries of one mode ranked and scored: each query's scores (in order), the whole
    call's milliseconds (query embedding included), the search's own milliseconds as the
    response reports them, how often deep mode fell back, and which rewriter/reranker pair
    deep mode ran with (e.g. "offline/cross-encoder": a run with MEMORY_RERANK_ENDPOINT set
    says so in its output)."""

    per_query: list[dict[str, float]]
    wall_ms: list[float]
    search_ms: list[float]
    fallbacks: int
    deep_hooks: dict[str, int] = field(default_factory=dict)

    def latency(self) -> dict[str, float]:
        return {"p50": round(percentile(self.wall_ms, 50), 2), "p95": round(percentile(self.wall_ms, 95), 2)}


def score_queries(
    queries: Iterable[LabelledQuery],
    key_of: dict[int, str],
    *,
    mode: str,
    top_k: int,
    config: Any,
    tally: RecallTally,
    progress: Any = None,
) -> ScoredRun:
    """Rank every query with ranked_search, map the results to their keys (key_of: memory
    id → key) and count each query in `tally`; `progress(n)` after every query."""
    run = ScoredRun(per_query=[], wall_ms=[], search_ms=[], fallbacks=0)
    for n, q in enumerate(queries, start=1):
        started = time.perf_counter()
        response = ranked_search(
            query=q.text, advertisers=q.advertisers, include_global=q.include_global, mode=mode, top_k=top_k, config=config
        )
        run.wall_ms.append((time.perf_counter() - started) * 1000)
        run.search_ms.append(response.search_ms)
        if mode == "deep":
            pair = f"{response.deep.get('rewriter')}/{response.deep.get('reranker')}"
            run.deep_hooks[pair] = run.deep_hooks.get(pair, 0) + 1
            if response.deep.get("fallback"):
                run.fallbacks += 1
        ranked = [key_of.get(r.memory.pk) for r in response.results]
        run.per_query.append(tally.add(ranked, q.gold, q.buckets))
        if progress is not None:
            progress(n)
    return run


def render_by_kind(title: str, results: dict[str, dict[str, Any]]) -> str:
    """The table of a retrieval bench whose JSON holds results[variant][mode] with an
    overall row and rows by_kind (recall@5, recall@10, MRR; p50 on the overall row)."""
    lines = [title, f"{'variant':14} {'mode':8} {'scope':12} {'R@5':>6} {'R@10':>6} {'MRR':>6} {'p50ms':>7} {'n':>4}"]
    for variant, modes in results.items():
        for mode, result in modes.items():
            for scope, row in [("overall", result["overall"]), *result["by_kind"].items()]:
                lines.append(
                    f"{variant:14} {mode:8} {scope:12} {row['recall@5']:6.3f} {row['recall@10']:6.3f} {row['mrr']:6.3f} "
                    f"{result['latency_ms']['p50'] if scope == 'overall' else '':>7} {row['questions']:4d}"
                )
    return "\n".join(lines)


def lancedb_version(prog: str) -> str | None:
    """The installed LanceDB's version for the benches that compare against it; None, after
    a one-line error on stderr naming `prog`, when it is missing (a bench-only extra,
    never a runtime dependency)."""
    try:
        import lancedb
    except ImportError:
        sys.stderr.write(f"{prog}: error: lancedb is not installed (pip install '.[bench]')\n")
        return None
    return lancedb.__version__


def process_memory_mb(pid: int | str = "self") -> dict[str, float] | None:
    """A process's resident memory in MB: RSS (every page it maps, shared ones included),
    PSS (shared pages split among the processes sharing them) and private (pages no other
    process maps: what one more such process costs the machine); None once it has exited."""
    try:
        rss = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS:"))
        rollup = {
            parts[0].rstrip(":"): int(parts[1])
            for parts in (line.split() for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
            if len(parts) >= 2
        }
    except (OSError, StopIteration, ValueError):
        return None
    private = rollup.get("Private_Clean", 0) + rollup.get("Private_Dirty", 0)
    return {
        "rss_mb": round(int(rss.split()[1]) / 1024, 1),
        "pss_mb": round(rollup.get("Pss", 0) / 1024, 1),
        "private_mb": round(private / 1024, 1),
    }


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def every_core_blas() -> AbstractContextManager:
    """Context: BLAS may use every core this process may run on. The service runs BLAS on
    one thread (see memories.apps); the float32 scan the benches compare against gets them
    all, the strongest form of that baseline."""
    from threadpoolctl import threadpool_limits

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return threadpool_limits(limits=cores, user_api="blas")


def stop_process(proc: subprocess.Popen, grace: float = 20.0) -> None:
    """Stop a child the benches start in a session of its own (serve_gunicorn, qcluster,
    runserver): SIGTERM, so it stops its own workers; then SIGKILL to whatever of its
    process group is left, after `grace` seconds or at once when the leader had already
    died (a crashed gunicorn master leaves its workers running)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


# The access-log line of every request: the worker's pid, then the X-Bench-Id header the
# client sent ("-" without one), so a bench can tell which worker served which request.
ACCESS_LOG_FORMAT = "%(p)s %({x-bench-id}i)s %(s)s %(m)s %(U)s"


def serve_gunicorn(
    *, env: dict[str, str], workers: int, port: int, log_path: Path, access_log: Path | None = None, threads: int = 4
) -> subprocess.Popen:
    """The web service as a deployment runs it: gunicorn with `workers` processes of
    `threads` threads each, on 127.0.0.1:`port`, in a session of its own (so stopping it
    stops its workers). With `access_log`, one line per request in ACCESS_LOG_FORMAT."""
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "lingix_site.wsgi",
        "-w",
        str(workers),
        "--threads",
        str(threads),
        "-b",
        f"127.0.0.1:{port}",
        "--timeout",
        "120",
    ]
    if access_log is not None:
        command += ["--access-logfile", str(access_log), "--access-logformat", ACCESS_LOG_FORMAT]
    log = open(log_path, "w")  # noqa: SIM115 - the server writes to it until it stops
    try:
        return subprocess.Popen(command, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        log.close()


@dataclass(frozen=True)
class ApiReply:
    """What one request to the web API came back with. `status` -1 means no answer at all
    (refused, reset, cut off half-way: what a killed or not yet started worker leaves), and
    `failure` then says what failed; `body` is kept as sent, so a bench can look for words
    in an error page that is not JSON."""

    status: int
    body: bytes
    seconds: float
    failure: str = ""

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def payload(self) -> Any:
        """The body as JSON; None when it is empty or not JSON."""
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            return None


def api_request(
    base: str, token: str, method: str, path: str, body: dict | None = None, *, tag: str = "", timeout: float = 120.0
) -> ApiReply:
    """One request to the API at `base` with a bearer token, on a fresh connection; `tag`
    goes in the X-Bench-Id header that ACCESS_LOG_FORMAT logs. A 4xx or 5xx is an answer
    like any other: only a transport failure gives status -1."""
    data = json.dumps(body, ensure_ascii=False).encode() if body is not None else None
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    if tag:
        headers["X-Bench-Id"] = tag
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    # A worker killed mid-response can also leave an incomplete or unreadable one.
    except (OSError, http.client.HTTPException) as exc:
        return ApiReply(-1, b"", time.perf_counter() - started, failure=str(exc) or type(exc).__name__)
    return ApiReply(status, raw, time.perf_counter() - started)


def wait_until_serving(base: str, token: str, proc: subprocess.Popen, *, name: str, timeout: float = 180.0) -> None:
    """Return once the server `proc` started answers GET /api/v1/status with 200; raise
    RuntimeError (naming the server, `name`) when it exits first or stays silent for
    `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited during start-up; see its log")
        if api_request(base, token, "GET", "/api/v1/status", timeout=30).status == 200:
            return
        time.sleep(0.3)
    raise RuntimeError(f"{name} did not answer within the start-up timeout")
