"""mypy over the whole tree against the committed baseline (mypy-baseline.txt).

The baseline lists the errors the tree had when mypy came in, one per line, without line
numbers (so moving code does not disturb it). `make lint` fails on any error that is not
in it and says when fixed errors let it shrink. The baseline only shrinks:

    python scripts/mypy_baseline.py            check (make lint)
    python scripts/mypy_baseline.py --update   rewrite it after fixing errors; refused
                                               while there are new ones
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "mypy-baseline.txt"
_ERROR = re.compile(r"^(?P<path>[^:\s]+\.pyi?):(?P<line>\d+)(?::\d+)?: error: (?P<message>.*)$")
# Line numbers inside messages ("defined on line 40") move with the code too.
_LINE_REF = re.compile(r"\bline \d+\b")


def normalise(line: str) -> str | None:
    """`path: message [code]` for an error line, None for anything else (notes, the summary)."""
    match = _ERROR.match(line.strip())
    if match is None:
        return None
    return f"{match['path']}: {_LINE_REF.sub('line N', match['message'])}"


def run_mypy() -> tuple[list[str], str]:
    command = [sys.executable, "-m", "mypy", ".", "--no-pretty", "--no-error-summary", "--show-error-codes"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 2: mypy itself failed (a syntax error, a bad configuration)
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(done.returncode)
    errors = [n for n in (normalise(line) for line in done.stdout.splitlines()) if n]
    return errors, done.stdout


def read_baseline() -> Counter[str]:
    if not BASELINE.exists():
        return Counter()
    return Counter(line for line in BASELINE.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the baseline with the errors left (never adds one)")
    args = parser.parse_args(argv)

    errors, raw = run_mypy()
    current, baseline = Counter(errors), read_baseline()
    new = current - baseline
    fixed = baseline - current
    if new and not (args.update and not BASELINE.exists()):  # the first --update writes it
        locations = [line for line in raw.splitlines() if normalise(line) in new]
        sys.stderr.write(f"mypy: {sum(new.values())} error(s) not in {BASELINE.name}:\n")
        sys.stderr.write("\n".join(locations) + "\n")
        if args.update:
            sys.stderr.write("the baseline only shrinks: fix these first\n")
        return 1
    if args.update:
        header = "# mypy errors the tree still has (scripts/mypy_baseline.py); it may only shrink.\n"
        BASELINE.write_text(header + "".join(f"{line}\n" for line in sorted(current.elements())), encoding="utf-8")
        print(f"mypy: baseline now {sum(current.values())} error(s)")
        return 0
    print(f"mypy: {sum(current.values())} error(s), all in the baseline")
    if fixed:
        print(f"mypy: {sum(fixed.values())} baseline error(s) are fixed; shrink it with `python scripts/mypy_baseline.py --update`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
