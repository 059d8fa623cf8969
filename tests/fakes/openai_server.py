"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for tests that drive the real
`openai` client (or any HTTP client) over a real socket.

    from tests.fakes.openai_server import FakeOpenAI, chat, error, raw

    with FakeOpenAI() as fake:                      # binds 127.0.0.1:<free port>
        client_base_url = fake.base_url             # "http://127.0.0.1:PORT/v1"

        fake.queue(chat({"action": "WRITE"}))       # answer the next request once
        fake.queue(error(429, retry_after=0), error(500))   # several, in order
        fake.route("prompt:judge", chat({...}))     # answer every request whose body contains the marker
        fake.route(lambda req: req.path.endswith("/embeddings"), ..., times=2)   # or matches a predicate
        fake.route(lambda req: req.path.endswith("/rerank"), lambda req: rerank(...))   # a reply built from the request
        fake.default = chat("{}")                   # when nothing is queued or routed

        chat("not json at all")                     # malformed model output (a str is sent verbatim)
        chat({...}, usage={"prompt_tokens": 12, "completion_tokens": 3})
        chat({...}, delay=5.0)                      # answer late (client timeouts)
        raw(b"<html>oops", status=200)              # a broken HTTP body, not even JSON
        rerank([(0, 0.9), (2, 0.1)])                # a /rerank answer: {"results": [{"index", "relevance_score"}]}

        fake.requests                               # every request: method, path, headers, body, json
        fake.requests_to("/chat/completions")

Resolution order for each request: routes (first match; a route with `times` is used
up after that many answers), then the queue, then `default`. Unscripted chat requests
get an empty JSON object `{}`; unscripted embedding requests get deterministic unit
vectors (dimension `embedding_dim`, 384 by default) derived from a hash of the input,
so identical texts embed identically. `GET /v1/models` lists `models`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


@dataclass
class Reply:
    status: int = 200
    body: bytes | None = None  # sent verbatim when set
    content: str | None = None  # chat message content
    usage: dict[str, int] | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    payload: dict[str, Any] | None = None  # a whole JSON response body (e.g. embeddings)


def chat(content: str | dict | list, *, usage: dict[str, int] | None = None, delay: float = 0.0, finish_reason: str = "stop") -> Reply:
    """A chat-completions answer whose message content is `content` (dicts are JSON-encoded)."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    reply = Reply(content=text, usage=usage, delay=delay)
    reply.headers["x-finish-reason"] = finish_reason
    return reply


def error(status: int, message: str = "scripted error", *, retry_after: float | None = None, delay: float = 0.0) -> Reply:
    body = json.dumps(
        {"error": {"message": message, "type": "server_error" if status >= 500 else "rate_limit_error", "code": status}}
    ).encode()
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return Reply(status=status, body=body, headers=headers, delay=delay)


def raw(body: bytes | str, *, status: int = 200, content_type: str = "application/json", delay: float = 0.0) -> Reply:
    data = body.encode() if isinstance(body, str) else body
    return Reply(status=status, body=data, headers={"content-type": content_type}, delay=delay)


def embeddings(vectors: list[list[float]], *, model: str = "fake-embedding") -> Reply:
    return Reply(
        payload={
            "object": "list",
            "model": model,
            "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }
    )


def rerank(scores: list[tuple[int, float]], *, key: str = "results", delay: float = 0.0) -> Reply:
    """A cross-encoder's /rerank answer (Jina, Cohere; `key="data"` for Voyage's shape)."""
    hits = [{"index": index, "relevance_score": score} for index, score in scores]
    return Reply(payload={"model": "fake-reranker", key: hits, "usage": {"total_tokens": 0}}, delay=delay)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body or b"null")
        except json.JSONDecodeError:
            return None

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


@dataclass
class _Route:
    match: Callable[[Recorded], bool]
    reply: Reply | Callable[[Recorded], Reply]
    times: int | None


class FakeOpenAI:
    def __init__(self, *, embedding_dim: int = 384, models: tuple[str, ...] = ("fake-judge", "fake-embedding")):
        self.embedding_dim = embedding_dim
        self.models = models
        self.default: Reply | None = None
        self.requests: list[Recorded] = []
        self._queue: deque[Reply] = deque()
        self._routes: list[_Route] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ------------------------------------------------------------------
    def queue(self, *replies: Reply) -> FakeOpenAI:
        with self._lock:
            self._queue.extend(replies)
        return self

    def route(
        self, match: str | Callable[[Recorded], bool], reply: Reply | Callable[[Recorded], Reply], *, times: int | None = None
    ) -> FakeOpenAI:
        predicate = (lambda req, needle=match: needle in req.text) if isinstance(match, str) else match
        with self._lock:
            self._routes.append(_Route(predicate, reply, times))
        return self

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._routes.clear()
            self.requests.clear()
            self.default = None

    def requests_to(self, suffix: str) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith(suffix)]

    # -- lifecycle ------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with fake._lock:
                    fake.requests.append(request)
                reply = fake._pick(request)
                if reply.delay:
                    fake._closing.wait(reply.delay)
                status, headers, payload = fake._render(request, reply)
                try:
                    self.send_response(status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to tell it

            do_GET = do_POST = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- answering --------------------------------------------------------------------
    def _pick(self, request: Recorded) -> Reply:
        with self._lock:
            for route in self._routes:
                if route.times != 0 and route.match(request):
                    if route.times is not None:
                        route.times -= 1
                    return route.reply(request) if callable(route.reply) else route.reply
            if self._queue:
                return self._queue.popleft()
        if self.default is not None:
            return self.default
        if request.path.endswith("/embeddings"):
            return Reply(payload=self._hash_embeddings(request))
        if request.path.endswith("/models"):
            return Reply(payload={"object": "list", "data": [{"id": m, "object": "model", "owned_by": "fake"} for m in self.models]})
        return chat({})

    def _hash_embeddings(self, request: Recorded) -> dict[str, Any]:
        body = request.json or {}
        inputs = body.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        data = []
        for i, text in enumerate(inputs):
            seed = int.from_bytes(hashlib.sha256(str(text).encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self.embedding_dim)
            vector /= np.linalg.norm(vector)
            data.append({"object": "embedding", "index": i, "embedding": [round(float(x), 6) for x in vector]})
        return {
            "object": "list",
            "model": body.get("model", "fake-embedding"),
            "data": data,
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    def _render(self, request: Recorded, reply: Reply) -> tuple[int, dict[str, str], bytes]:
        headers = {"content-type": "application/json", **{k: v for k, v in reply.headers.items() if not k.startswith("x-")}}
        if reply.body is not None:
            return reply.status, headers, reply.body
        if reply.payload is not None:
            return reply.status, headers, json.dumps(reply.payload).encode()
        model = (request.json or {}).get("model", "fake-judge") if isinstance(request.json, dict) else "fake-judge"
        usage = reply.usage or {}
        body = {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": reply.headers.get("x-finish-reason", "stop"),
                }
            ],
        }
        if usage:
            body["usage"] = {
                "prompt_tokens": usage.get("prompt_tokens", 0),
                "completion_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0),
            }
        return reply.status, headers, json.dumps(body, ensure_ascii=False).encode()
