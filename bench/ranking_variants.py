"""Named RankingConfig overrides for the retrieval benchmarks, so one store (imported and
embedded once) can be ranked several ways in one run: the ablation rows."""
from __future__ import annotations

import json
from dataclasses import fields, replace
from typing import Any


def parse_variants(ranking: str | None, variants: str | None) -> dict[str, dict[str, Any]]:
    """{"name": overrides}. `--ranking` alone is one variant named "ranking"; neither gives
    the benchmark's own ranking as "default". Unknown field names raise ValueError."""
    from memories.search.hybrid import RankingConfig

    named: dict[str, dict[str, Any]] = {}
    if variants:
        named.update(json.loads(variants))
    if ranking:
        named["ranking"] = json.loads(ranking)
    if not named:
        named["default"] = {}
    known = {f.name for f in fields(RankingConfig)}
    for name, overrides in named.items():
        if not isinstance(overrides, dict):
            raise ValueError(f"variant {name!r} must be a JSON object of RankingConfig fields")
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(f"variant {name!r}: unknown RankingConfig field(s) {unknown}")
    return named


def ranking_with(overrides: dict[str, Any], base: Any = None) -> Any:
    from memories.search.hybrid import DEFAULT_RANKING

    return replace(base if base is not None else DEFAULT_RANKING, **overrides)
