import json
from datetime import datetime, timezone

import pytest
from django.core.management import call_command

# A fixed clock: every lifecycle service takes `now`, so tests move time explicitly.
T0 = datetime(2026, 6, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def run_cli(capsys):
    """`memory …` through the real command; returns (exit code, parsed stdout, stderr)."""

    def _run(*argv):
        with pytest.raises(SystemExit) as exit_info:
            call_command("memory", *argv)
        out = capsys.readouterr()
        body = json.loads(out.out) if "--json" in argv and out.out.strip() else out.out
        return exit_info.value.code, body, out.err

    return _run


@pytest.fixture
def policy(db):
    from governance.models import LayerPolicy

    def _set(layer: str, **values):
        LayerPolicy.objects.filter(layer=layer).update(**values)
        return LayerPolicy.objects.get(layer=layer)

    return _set
