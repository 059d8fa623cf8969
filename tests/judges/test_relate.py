"""The judges' `relate` call: the offline judge answers with the rules' verdicts, the
gateway judge asks the model (real `openai` client, tests/fakes/openai_server) and falls
back to the rules on any failure, DoubtMem leaves relations to the rules."""

import pytest

from judges.base import RelationNeighbour, RelationRequest, RelationSource
from judges.config import get_judge, get_provider
from judges.offline import OfflineProvider
from judges.prompts import PROMPT_VERSIONS
from tests.fakes.openai_server import chat, error

REQUEST = RelationRequest(
    content="用户纠正：brand_A 医药OTC日预算改为8000元",
    claim={"levers": ["budget"]},
    neighbours=[
        RelationNeighbour(
            id=11, content="brand_A 医药OTC日预算5000元", claim={"levers": ["budget"]}, relation="contradiction", facet="value"
        ),
        RelationNeighbour(id=12, content="brand_A 医药OTC周五出价上浮10%", claim={"levers": ["bid"]}, relation="compatible", facet="lever"),
    ],
)


def verdict(memory_id, relation="contradiction", facet="value", reason="预算改了"):
    return {"id": memory_id, "relation": relation, "facet": facet, "reason": reason}


def test_the_offline_judge_answers_with_the_rules():
    answer = OfflineProvider().relate(request=REQUEST)
    assert answer.source == RelationSource.OFFLINE and not answer.fallback and not answer.model_called
    assert {i: str(v.relation) for i, v in answer.verdicts.items()} == {11: "contradiction", 12: "compatible"}
    assert answer.telemetry.prompt_version == PROMPT_VERSIONS["relate"]


def test_the_gateway_judge_reads_one_verdict_per_asked_id(openai_gateway):
    openai_gateway.route(
        "prompt:relate",
        chat({"relations": [verdict(11), verdict(12, "compatible", "lever"), verdict(12, "duplicate"), verdict(99)]}),
    )
    answer = get_provider().relate(request=REQUEST)
    assert answer.source == RelationSource.MODEL and answer.model_called
    assert {i: str(v.relation) for i, v in answer.verdicts.items()} == {11: "contradiction", 12: "compatible"}
    assert answer.ignored == ["second verdict for #12", "unknown id 99"]
    (request,) = openai_gateway.requests_to("/chat/completions")
    assert request.json["response_format"] == {"type": "json_object"}


def test_a_gateway_without_neighbours_is_not_called(openai_gateway):
    answer = get_provider().relate(request=RelationRequest(content="x", claim={}, neighbours=[]))
    assert answer.verdicts == {} and not answer.model_called
    assert openai_gateway.requests_to("/chat/completions") == []


@pytest.mark.parametrize(
    "reply,why",
    [
        (error(500, "boom"), "HTTP 500"),
        (chat({"relations": [{"id": "11", "relation": "contradiction", "facet": "value", "reason": "x"}]}), "malformed"),
        (chat({"relations": [verdict(11, facet="budget")]}), "malformed"),
        (chat({"relations": [verdict(11, reason="")]}), "malformed"),
    ],
)
def test_the_gateway_judge_falls_back_to_the_rules(openai_gateway, reply, why):
    openai_gateway.route("prompt:relate", reply)
    answer = get_provider().relate(request=REQUEST)
    assert answer.source == RelationSource.OFFLINE and answer.model_called
    assert why in answer.fallback
    assert {i: str(v.relation) for i, v in answer.verdicts.items()} == {11: "contradiction", 12: "compatible"}


def test_doubtmem_leaves_relations_to_the_rules(openai_gateway, settings):
    settings.MEMORY_DOUBTMEM_BASE_URL = openai_gateway.base_url
    judge = get_judge(OfflineProvider())
    answer = judge.relate(request=REQUEST)
    assert judge.name == "doubtmem" and answer.source == RelationSource.OFFLINE
    assert "faithfulness" in answer.fallback
    assert openai_gateway.requests_to("/chat/completions") == []
