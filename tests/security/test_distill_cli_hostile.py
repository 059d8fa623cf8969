"""`memory distill FILE` on a hostile messages file: a one-line error, exit 1, nothing stored.
Through the real command in this process."""

import pytest

from governance.models import DistillRun, MemoryEvent

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[" * 50_000 + "]" * 50_000, "nesting"),
        ('[{"role": "user", "content": "以后医药OTC冷启动出价不超过2元", "index": 1e999}]', "overflows"),
    ],
)
def test_a_hostile_messages_file_is_a_one_line_error(cli, tmp_path, text, problem):
    path = tmp_path / "双11-chat.json"
    path.write_text(text, encoding="utf-8")
    code, _, err = cli("distill", str(path), "--advertiser", "brand_A", "--json")
    assert code == 1 and err.count("\n") == 1 and problem in err, err[-300:]
    assert "Traceback" not in err
    assert not MemoryEvent.objects.exists() and not DistillRun.objects.exists()
