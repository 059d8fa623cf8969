"""Every demo memory reads on its own: an advertiser's memory names its advertiser, and no
memory is a question, a what-if, or carries a greeting or a confirmation from the
conversation it came from (textrules.statements)."""

import json

import pytest

from lingix_site.demo import DEMO_FILE
from textrules.claims import UNSETTLED, extract_claim
from textrules.statements import FILLER, strip_question_tail

DEMO = [json.loads(line) for line in DEMO_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("memory", DEMO, ids=[str(m["id"]) for m in DEMO])
def test_a_demo_memory_is_a_standalone_statement(memory):
    content = memory["content"]
    if memory.get("advertiser"):
        assert memory["advertiser"].lower() in content.lower(), "an advertiser's memory names its advertiser"
    assert extract_claim(content).stance not in UNSETTLED
    assert strip_question_tail(content) == content
    clauses = [c.strip(" ，,。.！!；;") for c in content.replace("；", "，").split("，")]
    assert not any(FILLER.match(c) for c in clauses if c), "no acknowledgement or confirmation left in"
