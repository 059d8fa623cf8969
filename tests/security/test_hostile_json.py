"""Hostile JSON bodies on every write and read endpoint: refused with a 4xx JSON detail,
never a 5xx, and nothing written. Bodies are built as raw bytes (json.dumps cannot
produce most of them)."""

import pytest

from governance.models import MemoryEvent
from memories.models import Memory

SURROGATE = '"\\ud83d 出价"'  # a lone high surrogate, as a client could send it


@pytest.fixture
def nothing_written(db):
    before = (MemoryEvent.objects.count(), Memory.objects.count())
    yield
    assert (MemoryEvent.objects.count(), Memory.objects.count()) == before


def _refused(response):
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    assert isinstance(response.json()["detail"], (str, list))
    return response


def _trigger(data: str) -> bytes:
    return ('{"event_type": "strategy_execution", "summary": "brand_A 医药OTC 出价复盘", "source": "user", "data": ' + data + "}").encode()


NUMBERS = {
    "nan": '{"ROI": NaN}',
    "infinity": '{"出价": Infinity}',
    "minus_infinity": '{"预算": {"日预算": -Infinity}}',
    "overflow": '{"ctr": 1e999}',
    "overflow_negative": '{"cpc": -1E+400}',
    "digits_4000": '{"曝光": ' + "9" * 4000 + "}",
    "digits_4000_negative": '{"spend": -' + "1" * 4000 + "}",
    "int_65_bits": '{"点击": 36893488147419103232}',
    "nan_in_list": '{"roi_series": [1.2, 1.4, NaN]}',
}


@pytest.mark.parametrize("data", NUMBERS.values(), ids=NUMBERS.keys())
def test_non_finite_and_oversized_numbers_in_trigger_data(brand_a, nothing_written, data):
    _refused(brand_a.post("/trigger", content=_trigger(data)))


NESTING = {
    "arrays_500": "[" * 500 + "]" * 500,
    "objects_500": '{"层": ' * 500 + "1" + "}" * 500,
    "mixed_300": '{"a": [' * 300 + "0" + "]}" * 300,
    "arrays_100000": "[" * 100000 + "]" * 100000,
}


@pytest.mark.parametrize("data", NESTING.values(), ids=NESTING.keys())
def test_deep_nesting_in_trigger_data(brand_a, nothing_written, data):
    body = '{"k": ' + data + "}" if not data.startswith("{") else data
    _refused(brand_a.post("/trigger", content=_trigger(body)))


SURROGATE_BODIES = {
    "ingest_text": ("/ingest", '{"text": ' + SURROGATE + "}"),
    "ingest_advertiser": ("/ingest", '{"text": "brand_A 出价 2 元", "advertiser": ' + SURROGATE + "}"),
    "ingest_idempotency_key": ("/ingest", '{"text": "brand_A 出价 2 元", "idempotency_key": ' + SURROGATE + "}"),
    "ingest_business_line": ("/ingest", '{"text": "brand_A 出价 2 元", "business_line": ' + SURROGATE + "}"),
    "ingest_source": ("/ingest", '{"text": "brand_A 出价 2 元", "source": ' + SURROGATE + "}"),
    "trigger_summary": ("/trigger", '{"event_type": "user_feedback", "summary": ' + SURROGATE + "}"),
    "trigger_data_value": ("/trigger", '{"event_type": "user_feedback", "summary": "反馈", "data": {"备注": ' + SURROGATE + "}}"),
    "trigger_data_key": ("/trigger", '{"event_type": "user_feedback", "summary": "反馈", "data": {' + SURROGATE + ": 1}}"),
    "trigger_event_type": ("/trigger", '{"event_type": ' + SURROGATE + ', "summary": "反馈"}'),
    "search_query": ("/search", '{"query": ' + SURROGATE + "}"),
    "search_layers": ("/search", '{"query": "出价", "layers": [' + SURROGATE + "]}"),
    "recall_query": ("/recall", '{"query": ' + SURROGATE + "}"),
    "recall_message": ("/recall", '{"messages": [{"role": "user", "content": ' + SURROGATE + "}]}"),
    "recall_message_list": ("/recall", '{"messages": [{"role": "user", "content": [{"type": "text", "text": ' + SURROGATE + "}]}]}"),
    "recall_role": ("/recall", '{"messages": [{"role": ' + SURROGATE + ', "content": "出价"}]}'),
    "low_surrogate": ("/ingest", '{"text": "\\udc00 美妆 ROI"}'),
    "surrogate_as_key": ("/ingest", '{"\\ud800": "x", "text": "brand_A 出价"}'),
}


@pytest.mark.parametrize("path, body", SURROGATE_BODIES.values(), ids=SURROGATE_BODIES.keys())
def test_lone_surrogates_anywhere(brand_a, nothing_written, path, body):
    _refused(brand_a.post(path, content=body.encode()))


def test_lone_surrogate_in_a_review_note(operator_token, brand_a):
    text = "用户纠正：brand_A 医药OTC 出价上限改为 2.5 元，以后都按这个执行"
    item = brand_a.post("/ingest", {"text": text, "source": "user", "layer": "L1"}).json()
    response = operator_token.post(f"/review/{item['review_item_id']}/reject", content=('{"note": ' + SURROGATE + "}").encode())
    _refused(response)


GARBAGE = {
    "truncated": b'{"text": "brand_A ',
    "not_utf8": '{"text": "出价"}'.encode("gbk"),
    "top_level_list": b'[{"text": "x"}]',
    "top_level_number": b"1e999",
    "duplicate_keys_nan": b'{"text": "a", "text": NaN}',
    "bom": b'\xef\xbb\xbf{"text": "brand_A \xe5\x87\xba\xe4\xbb\xb7"}',
    "empty": b"",
}


@pytest.mark.parametrize("content", GARBAGE.values(), ids=GARBAGE.keys())
def test_malformed_bodies(brand_a, nothing_written, content):
    response = brand_a.post("/ingest", content=content)
    if content.startswith(b"\xef\xbb\xbf"):
        assert response.status_code < 500
        return
    _refused(response)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "1e999", "9" * 4000, "-1", "0", "51", str(2**64)])
def test_hostile_top_k(brand_a, value):
    _refused(brand_a.post("/search", content=('{"query": "美妆 出价", "top_k": ' + value + "}").encode()))
