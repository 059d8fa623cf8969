"""The bench.latency corpus, built once and kept under .cache/issue14a.

Building 100k memories through the governed import and embedding the base texts takes
minutes on a shared two-core machine; the benches that only *search* that corpus
(bench.vs_lancedb, bench.profile_search) copy a finished SQLite file instead. The cache is
keyed by everything that shapes the corpus (size, base texts, noise, seed), so a changed
generator never reuses a stale file. bench.latency itself still imports for real, because
it times the import.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench._common import REPO

CACHE_DIR = REPO / ".cache" / "issue14a"


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """The corpus knobs, declared once: a bench reuses another's cached corpus only when
    their defaults agree."""
    parser.add_argument("--base-texts", type=int, default=2000, help="distinct texts embedded for real (default 2000)")
    parser.add_argument("--noise", type=float, default=0.02, help="std-dev of the per-row vector noise (default 0.02)")


def cache_path(name: str) -> Path:
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    return CACHE_DIR / name


def text_key(texts: list[str], *extra: object) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\x00")
    for item in extra:
        digest.update(repr(item).encode("utf-8"))
    return digest.hexdigest()[:16]


def cached_passages(texts: list[str], model_name: str, embed: Callable[[list[str]], np.ndarray], label: str) -> np.ndarray:
    """Passage vectors for `texts`, embedded once per (texts, model) and then read from disk."""
    path = cache_path(f"{label}-{text_key(texts, model_name)}.npy")
    if path.exists():
        return np.load(path)
    vectors = np.asarray(embed(texts), dtype=np.float32)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, vectors)
    tmp.replace(path)
    return vectors


def corpus_db_path(n: int, base_texts: int, noise: float, seed: int, model_name: str) -> Path:
    return cache_path(f"latency-corpus-n{n}-b{base_texts}-s{noise}-r{seed}-{hashlib.sha256(model_name.encode()).hexdigest()[:8]}.sqlite3")


def save_db(source: Path, target: Path) -> None:
    tmp = target.with_suffix(".tmp")
    shutil.copyfile(source, tmp)
    tmp.replace(target)
