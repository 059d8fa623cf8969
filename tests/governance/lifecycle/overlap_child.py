"""A child process of test_overlapping_runs: `seed COUNT` writes COUNT due signals (and two
L1 rules) into the database DATABASE_URL names; `expire GO_FILE ACTOR` says it is ready (GO_FILE.ready-ACTOR),
waits for GO_FILE to exist (the parent creates it once every run is ready, so the runs overlap), runs one
expiry and prints its report as JSON."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> None:
    import django

    django.setup()
    from tests.governance.lifecycle.test_overlapping_runs import due_memories

    if argv[0] == "seed":
        signals, rules = due_memories(int(argv[1]))
        print(json.dumps({"signals": signals, "rules": rules}))
        return
    from governance.lifecycle.expire import memories_expire
    from tests.clock import T0

    go = Path(argv[1])
    Path(f"{go}.ready-{argv[2]}").touch()
    while not go.exists():
        time.sleep(0.005)
    report = memories_expire(now=T0, batch_size=5, actor=argv[2])
    print(json.dumps({"expired": report["expired"], "by_layer": report["by_layer"]}))


if __name__ == "__main__":
    main(sys.argv[1:])
