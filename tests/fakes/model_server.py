"""A scripted OpenAI-compatible chat model for agent end-to-end runs, as a process:

    python -m tests.fakes.model_server --port 18001 --record requests.jsonl [--reply TEXT] [--replies FILE]

Every request is appended to the record file (one JSON object per line: method, path,
headers without Authorization, body), so a test can read exactly what an agent sent to
its model. `/v1/chat/completions` answers `--reply` (streamed as SSE when the request
asks for a stream), or, with `--replies` (a JSON list of {"when": substring, "reply"}), the
reply of the first rule whose substring is in the last user message; `/v1/models` lists
one model. No network beyond 127.0.0.1."""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MODEL_ID = "scripted"


def last_user_text(body: dict) -> str:
    """The user messages after the assistant's last word (a host may add its own context
    as a further user message)."""
    said: list[str] = []
    for message in reversed(body.get("messages") or []):
        if not isinstance(message, dict) or message.get("role") == "assistant":
            break
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
            said.insert(0, str(content or ""))
    return "\n".join(said)


def make_handler(record: Path, default_reply: str, model: str, rules: list[dict] | None = None):
    lock = threading.Lock()
    rules = rules or []

    def reply_for(body: dict) -> str:
        said = last_user_text(body)
        return next((r["reply"] for r in rules if r.get("when") and r["when"] in said), default_reply)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _record(self, body) -> None:
            headers = {k: v for k, v in self.headers.items() if k.lower() != "authorization"}
            with lock, record.open("a", encoding="utf-8") as fh:
                fh.write(
                    json.dumps({"method": self.command, "path": self.path, "headers": headers, "body": body}, ensure_ascii=False) + "\n"
                )

        def _send_json(self, status: int, payload) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self._record(None)
            if self.path.rstrip("/").endswith("/models"):
                self._send_json(200, {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "lingix-tests"}]})
            else:
                self._send_json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            self._record(body)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            reply = reply_for(body)
            created = int(time.time())
            usage = {"prompt_tokens": 100, "completion_tokens": 8, "total_tokens": 108}
            if not body.get("stream"):
                self._send_json(
                    200,
                    {
                        "id": "chatcmpl-scripted",
                        "object": "chat.completion",
                        "created": created,
                        "model": model,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                        "usage": usage,
                    },
                )
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": created, "model": model}
            chunks = [
                {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": reply}, "finish_reason": None}]},
                {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            ]
            if (body.get("stream_options") or {}).get("include_usage"):
                chunks.append({**base, "choices": [], "usage": usage})
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--record", type=Path, required=True)
    parser.add_argument("--reply", default="好的，已记录。")
    parser.add_argument("--replies", type=Path, help='JSON list of {"when": substring of the last user message, "reply": text}')
    parser.add_argument("--model", default=MODEL_ID)
    args = parser.parse_args()
    args.record.parent.mkdir(parents=True, exist_ok=True)
    rules = json.loads(args.replies.read_text(encoding="utf-8")) if args.replies else []
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.record, args.reply, args.model, rules))
    server.daemon_threads = True
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
