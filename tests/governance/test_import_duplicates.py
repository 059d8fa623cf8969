"""Import refuses files that would break the version chain, naming the lines, and writes nothing."""

import json

import pytest

from governance.write.imports import ImportFailed, memories_import
from memories.models import Memory

pytestmark = pytest.mark.django_db


def _line(**fields):
    return json.dumps({"layer": "L2", "content": "brand_A 医药OTC 冷启动出价保守", "advertiser": "brand_A", **fields}, ensure_ascii=False)


def test_duplicate_ids_and_double_replacements_are_refused():
    lines = [
        _line(id=10),
        _line(id=10, content="同一个 id 的另一条记忆"),
        _line(id=11, supersedes=10, status="active"),
        _line(id=12, supersedes=10, content="第二个替代版本"),
        _line(id=13, supersedes=13, content="自己替代自己"),
    ]
    with pytest.raises(ImportFailed) as failed:
        memories_import(lines=lines, actor="test")
    text = "\n".join(failed.value.errors)
    assert "line 2: id 10 already appears on line 1" in text
    assert "line 4: a replacement for memory 10 already appears on line 3" in text
    assert "line 5: a memory cannot supersede itself" in text
    assert Memory.objects.count() == 0
