from bench._common import RecallTally


def test_recall_tally_scores_each_question_and_averages_per_bucket():
    tally = RecallTally((1, 2), mrr=True, hit_at=2)
    first = tally.add(["预算", "出价", "素材"], {"出价", "素材"}, ("overall", "single"))
    assert first == {"recall@1": 0.0, "recall@2": 0.5, "mrr": 0.5, "hit@2": 1.0}
    tally.add([None, "ROI"], {"CPM"}, ("overall", "multi"))
    assert tally.summary("overall") == {"recall@1": 0.0, "recall@2": 0.25, "mrr": 0.25, "hit@2": 0.5, "questions": 2}
    assert tally.summary("multi")["questions"] == 1 and "temporal" not in tally
    assert tally.summary("temporal") == {"questions": 0}
    assert tally.buckets() == ["overall", "single", "multi"]


def _serve(handler_body) -> tuple[str, object]:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            handler_body(self)

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def test_api_request_keeps_error_bodies_and_tells_a_dead_server_apart():
    from bench._common import api_request, free_port

    seen = {}

    def answer(handler):
        seen["auth"], seen["tag"] = handler.headers["Authorization"], handler.headers["X-Bench-Id"]
        length = int(handler.headers.get("Content-Length") or 0)
        seen["body"] = handler.rfile.read(length).decode("utf-8")
        status, body = (200, '{"action": "WRITE"}') if handler.path == "/ok" else (500, "<html>database is locked</html>")
        handler.send_response(status)
        handler.end_headers()
        handler.wfile.write(body.encode("utf-8"))

    base, server = _serve(answer)
    try:
        ok = api_request(base, "lgx_tok_a1", "POST", "/ok", {"text": "预算上调"}, tag="write-1-7")
        assert (ok.status, ok.payload(), ok.failure) == (200, {"action": "WRITE"}, "")
        assert seen == {"auth": "Bearer lgx_tok_a1", "tag": "write-1-7", "body": '{"text": "预算上调"}'}
        failed = api_request(base, "lgx_tok_a1", "GET", "/locked")
        assert failed.status == 500 and failed.payload() is None and "database is locked" in failed.text
    finally:
        server.shutdown()
    gone = api_request(f"http://127.0.0.1:{free_port()}", "tok", "GET", "/api/v1/status", timeout=5)
    assert gone.status == -1 and gone.body == b"" and gone.failure


def test_wait_until_serving_names_a_server_that_died_during_start_up():
    import subprocess
    import sys

    import pytest

    from bench._common import free_port, wait_until_serving

    def answer(handler):
        handler.send_response(200 if handler.path == "/api/v1/status" else 404)
        handler.end_headers()

    base, server = _serve(answer)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        wait_until_serving(base, "tok", alive, name="gunicorn", timeout=10)
    finally:
        alive.kill()
        alive.wait()
        server.shutdown()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with pytest.raises(RuntimeError, match="runserver exited during start-up"):
        wait_until_serving(f"http://127.0.0.1:{free_port()}", "tok", dead, name="runserver", timeout=10)


def test_import_line_keeps_the_form_the_store_cache_is_keyed_by():
    import json

    from bench._common import import_line

    line = import_line(
        layer="L2",
        content="（2024年11月11日）小王：预算先别动",
        advertiser="zh-chat",
        source="user",
        created_at=None,
        data={"key": "旅行:1:1"},
    )
    # The cache of imported stores hashes these exact bytes: key order and ensure_ascii matter.
    assert line == (
        '{"layer": "L2", "content": "（2024年11月11日）小王：预算先别动", "advertiser": "zh-chat", "category": "", '
        '"source": "user", "importance": 5, "created_at": null, "data": {"key": "旅行:1:1"}}'
    )
    assert json.loads(line)["importance"] == 5


def test_parse_modes_refuses_an_unknown_mode_in_one_line(capsys):
    from bench._common import parse_modes

    assert parse_modes("bench.zh_chat", "keyword,,hybrid", ("keyword", "vector", "hybrid")) == ("keyword", "hybrid")
    assert parse_modes("bench.zh_chat", "关键词", ("keyword", "hybrid")) is None
    assert parse_modes("bench.zh_chat", "", ("keyword",)) is None
    assert capsys.readouterr().err.splitlines() == [
        "bench.zh_chat: error: --modes takes keyword, hybrid",
        "bench.zh_chat: error: --modes takes keyword",
    ]


def test_rank_every_variant_ranks_later_variants_only_in_the_variant_modes():
    from bench.ranking_variants import rank_every_variant

    variants = {"default": {}, "重关键词": {"keyword_weight": 0.7, "vector_weight": 0.3}}
    calls = []

    def rank(mode, config):
        calls.append((mode, config.keyword_weight))
        return {"mode": mode}

    out = rank_every_variant(variants, ("keyword", "hybrid", "deep"), "hybrid", rank)
    assert out == {"default": {m: {"mode": m} for m in ("keyword", "hybrid", "deep")}, "重关键词": {"hybrid": {"mode": "hybrid"}}}
    assert calls[-1] == ("hybrid", 0.7) and calls[0][1] != 0.7
