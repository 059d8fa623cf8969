"""How fast the CLI answers `--help`: the median wall time of `manage.py memory --help` and
`manage.py memory search --help`, each run N times in a fresh subprocess (a cold Python
each time, as an operator's shell gives), plus the modules a heavy import would drag in.

`--help` needs no database, model or gateway: whatever it loads beyond Django and the
argument parsers is start-up cost every command pays. The run also reports whether numpy,
openai, the embedder and the judges were imported by `memory --help` (read from
`python -X importtime`), so a regression names its cause.

    python -m bench.cli_help [--json] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from bench._common import REPO, Progress, emit

COMMANDS = {
    "memory --help": ["memory", "--help"],
    "memory search --help": ["memory", "search", "--help"],
    "memory show --help": ["memory", "show", "--help"],
}
# Modules `--help` should never need: each costs hundreds of milliseconds to import.
HEAVY = ("numpy", "openai", "onnxruntime", "tokenizers", "jieba", "memories.embeddings.local", "judges.openai_judge", "judges.doubtmem")


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "lingix_site.settings")
    # A read-only command needs no provider; keep the run independent of the caller's keys.
    env.pop("MEMORY_LLM_API_KEY", None)
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one cold run. On a busy machine the wall time mostly
    measures the queue for a core; the CPU time is close to what an idle machine's wall
    time would be."""
    cpu_before, started = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, str(REPO / "manage.py"), *argv], env=env, cwd=REPO, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    if done.returncode != 0:
        raise SystemExit(f"`manage.py {' '.join(argv)}` exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    return elapsed, cpu


def heavy_imports(env: dict[str, str]) -> dict[str, bool]:
    """Which of HEAVY `manage.py memory --help` imported (python -X importtime)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", str(REPO / "manage.py"), "memory", "--help"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return {name: name in loaded for name in HEAVY}


def run(runs: int, progress: Progress) -> dict[str, Any]:
    env = _environment()
    rows = []
    for label, argv in COMMANDS.items():
        times, cpus = [], []
        for i in range(runs):
            wall, cpu = _run_once(argv, env)
            times.append(wall)
            cpus.append(cpu)
            progress(f"{label}: run {i + 1}/{runs} {wall:.2f} s wall, {cpu:.2f} s CPU")
        rows.append(
            {
                "command": label,
                "runs": runs,
                "median_s": round(statistics.median(times), 3),
                "min_s": round(min(times), 3),
                "max_s": round(max(times), 3),
                "median_cpu_s": round(statistics.median(cpus), 3),
            }
        )
    baseline = _python_django_floor(env, runs)
    return {
        "results": rows,
        # Python + Django setup alone: the part of each figure `--help` cannot avoid.
        "django_check_median_s": baseline,
        "heavy_imports_on_help": heavy_imports(env),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "cpus": os.cpu_count(),
    }


def _python_django_floor(env: dict[str, str], runs: int) -> float:
    """Median wall time of `django.setup()` alone (settings, apps, admin autodiscovery)."""
    code = "import django; django.setup()"
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return round(statistics.median(times), 3)


def render(doc: dict[str, Any]) -> str:
    lines = [
        f"{r['command']:<24} median {r['median_s']:.2f} s (min {r['min_s']:.2f}, max {r['max_s']:.2f}, {r['runs']} runs)"
        for r in doc["results"]
    ]
    lines.append(f"{'django.setup() alone':<24} median {doc['django_check_median_s']:.2f} s")
    heavy = [name for name, loaded in doc["heavy_imports_on_help"].items() if loaded]
    lines.append("heavy imports on --help: " + (", ".join(heavy) if heavy else "none"))
    lines.append(f"load average {doc['load_average']} on {doc['cpus']} cpus")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--runs", type=int, default=5, help="subprocess runs per command (default 5)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    emit(run(args.runs, Progress(args.quiet)), args.json, render)


if __name__ == "__main__":
    main()
