"""Hostile JSON through the real NinjaAPI (Django's test client, real URLconf and
middleware): every family is refused with a 422 naming the problem and its JSON path,
nothing is written, and the same values are refused by the CLI."""

import json

import pytest
from django.core.management import call_command

from governance.models import MemoryEvent as Event
from memories.models import Memory

TRIGGER = {"event_type": "strategy_execution", "summary": "brand_A 医药OTC 双十一出价调整复盘"}


def _raw_trigger(data_json: str) -> bytes:
    # Built by hand: json.dumps cannot even produce most of these bodies.
    head = json.dumps(TRIGGER, ensure_ascii=False)[:-1]
    return f'{head}, "data": {data_json}}}'.encode()


def _refused(response, *needles):
    assert response.status_code == 422, response.content
    detail = response.json()["detail"]
    assert isinstance(detail, str)
    for needle in needles:
        assert needle in detail, detail
    return detail


@pytest.fixture
def nothing_written(db):
    before = (Event.objects.count(), Memory.objects.count())
    yield
    assert (Event.objects.count(), Memory.objects.count()) == before


NON_FINITE = [
    ('{"ROI": NaN}', "NaN", "$.data.ROI"),
    ('{"出价": [1.5, Infinity]}', "Infinity", "$.data.出价[1]"),
    ('{"预算": {"日预算": -Infinity}}', "-Infinity", "$.data.预算.日预算"),
    ('{"ctr": 1e999}', "overflows", "$.data.ctr"),
    ('{"cpc": -2.5e400}', "overflows", "$.data.cpc"),
]


@pytest.mark.parametrize("data, problem, path", NON_FINITE)
def test_non_finite_numbers_are_422_with_their_path(brand_a, nothing_written, data, problem, path):
    _refused(brand_a.post("/trigger", content=_raw_trigger(data)), problem, path)


BIG_INTEGERS = [
    ('{"曝光": ' + "9" * 4000 + "}", "4000 digits", "$.data.曝光"),
    ('{"spend": 9223372036854775808}', "64-bit", "$.data.spend"),
    ('{"spend": -9223372036854775809}', "64-bit", "$.data.spend"),
    ('{"ids": [1, ' + "1" * 31 + "]}", "31 digits", "$.data.ids[1]"),
    ('{"投放 计划": {"id": ' + "7" * 40 + "}}", "40 digits", '$.data["投放 计划"].id'),
]


@pytest.mark.parametrize("data, problem, path", BIG_INTEGERS)
def test_oversized_integers_are_422_with_their_path(brand_a, nothing_written, data, problem, path):
    _refused(brand_a.post("/trigger", content=_raw_trigger(data)), problem, path)


def test_integers_at_the_64_bit_edge_still_pass(brand_a):
    body = {**TRIGGER, "data": {"max": 2**63 - 1, "min": -(2**63), "ROI": 1.8, "出价": 0.35}}
    response = brand_a.post("/trigger", body)
    assert response.status_code == 200, response.content


DEEP = [
    ("[" * 500 + "]" * 500, "$.data" + "[0]" * 31),
    ('{"层": ' * 40 + "1" + "}" * 40, "$.data" + ".层" * 31),
    # Deeper than Python's own parser can recurse: refused before any path exists.
    ("[" * 60000 + "]" * 60000, "(at $)"),
]


@pytest.mark.parametrize("data, where", DEEP)
def test_deep_nesting_is_422(brand_a, nothing_written, data, where):
    _refused(brand_a.post("/trigger", content=_raw_trigger(data)), "nesting deeper than 32", where)


def test_nesting_up_to_the_limit_passes(brand_a):
    nested = 1
    for _ in range(30):  # the body and data objects are two more levels: 32 in all
        nested = [nested]
    response = brand_a.post("/trigger", {**TRIGGER, "data": {"层级": nested}})
    assert response.status_code == 200, response.content


SURROGATES = [
    ("/recall", b'{"messages": [{"role": "user", "content": "\\u4e4b\\u524d\\u7684\\u51fa\\u4ef7 \\ud800"}]}', "$.messages[0].content"),
    ("/recall", b'{"messages": [{"role": "user", "content": "ok"}, {"role": "user", "content": "\\udfff ROI"}]}', "$.messages[1].content"),
    ("/search", b'{"query": "\\u7f8e\\u5986 \\udbff"}', "$.query"),
    ("/ingest", b'{"text": "\\u7528\\u6237\\u8981\\u6c42\\u51fa\\u4ef7\\u4e0d\\u8d85\\u8fc71\\u5143\\ud83d"}', "$.text"),
    ("/trigger", _raw_trigger('{"\\ud800\\u51fa\\u4ef7": 1}'), "object key"),
]


@pytest.mark.parametrize("path, body, where", SURROGATES)
def test_lone_surrogates_anywhere_are_422(demo_memories, brand_a, nothing_written, path, body, where):
    _refused(brand_a.post(path, content=body), "surrogate", where)


def test_a_proper_surrogate_pair_is_an_ordinary_character(demo_memories, brand_a):
    response = brand_a.post("/search", content=b'{"query": "\\u7f8e\\u5986 \\ud83d\\ude00 ROI"}')
    assert response.status_code == 200 and response.json()["query"] == "美妆 😀 ROI"


def test_broken_json_stays_a_400(brand_a, nothing_written):
    for body in ('{"query": "出价"'.encode(), "{'query': '出价'}".encode(), b"\xff\xfe{}"):
        response = brand_a.post("/search", content=body)
        assert response.status_code == 400 and "detail" in response.json(), body


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data, needle",
    [
        ('{"ROI": NaN}', "NaN"),
        ('{"ctr": 1e999}', "overflows"),
        ('{"曝光": ' + "9" * 4000 + "}", "4000 digits"),
        ("[" * 500 + "]" * 500, "nesting deeper than 32"),
        ('{"备注": "\\ud800"}', "surrogate"),
    ],
)
def test_the_cli_refuses_the_same_values_in_one_line(capsys, data, needle):
    before = Event.objects.count()
    with pytest.raises(SystemExit) as exit_info:
        call_command("memory", "trigger", "strategy_execution", "--summary", "双十一出价复盘", "--data", data)
    err = capsys.readouterr().err
    assert exit_info.value.code != 0
    assert needle in err and "--data" in err and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert Event.objects.count() == before
