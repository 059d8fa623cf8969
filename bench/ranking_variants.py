"""Named RankingConfig overrides for the retrieval benchmarks, so one store (imported and
embedded once) can be ranked several ways in one run: the ablation rows."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any


def add_variant_arguments(parser: argparse.ArgumentParser) -> None:
    """The options variants_for_run and modes_for_variant read."""
    parser.add_argument(
        "--ranking",
        default=None,
        help="""RankingConfig overrides on top of the bench's ranking, as JSON, e.g. '{"strip_questions": false}'""",
    )
    parser.add_argument("--variants", default=None, help='several named overrides as JSON {"name": {...}, ...}, ranked on one store')
    parser.add_argument(
        "--variant-modes", default="hybrid,deep", help="modes ranked for every variant after the first (default hybrid,deep)"
    )
    parser.add_argument("--no-embed-cache", action="store_true", help="embed every text afresh (default: reuse cached vectors)")


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


def variants_for_run(prog: str, args: argparse.Namespace) -> dict[str, dict[str, Any]] | None:
    """The variants of `--ranking` / `--variants`, or None (the error written on stderr) when
    they do not parse; unless `--no-embed-cache`, the embed cache goes in front of the
    embedder, since every variant ranks the same texts again."""
    try:
        variants = parse_variants(args.ranking, args.variants)
    except ValueError as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return None
    if not args.no_embed_cache:
        from bench import embed_cache

        embed_cache.install()
    return variants


def modes_for_variant(index: int, modes: tuple[str, ...], variant_modes: str) -> tuple[str, ...]:
    """Every asked mode for the first variant; later ones rank only those in `--variant-modes`,
    because the single arms do not move with fusion settings (keyword alone does move with
    strip_questions: ask for it there explicitly)."""
    return modes if index == 0 else tuple(m for m in modes if m in variant_modes.split(","))


def ranking_with(overrides: dict[str, Any], base: Any = None) -> Any:
    from memories.search.hybrid import DEFAULT_RANKING

    return replace(base if base is not None else DEFAULT_RANKING, **overrides)


def rank_every_variant(
    variants: dict[str, dict[str, Any]],
    modes: tuple[str, ...],
    variant_modes: str,
    rank: Callable[[str, Any], dict[str, Any]],
    base: Any = None,
) -> dict[str, dict[str, Any]]:
    """{variant: {mode: rank(mode, its RankingConfig)}} over one store: every variant's
    overrides on top of `base` (the product default when None), each ranked in the modes
    modes_for_variant gives it."""
    results: dict[str, dict[str, Any]] = {}
    for index, (name, overrides) in enumerate(variants.items()):
        config = ranking_with(overrides, base)
        results[name] = {mode: rank(mode, config) for mode in modes_for_variant(index, modes, variant_modes)}
    return results
