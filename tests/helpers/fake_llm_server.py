"""A small HTTP server on 127.0.0.1 that speaks the OpenAI and Anthropic wire formats.

Tests script what it does next (``server.script = ["500", "ok"]``): answer, sleep past the
client's timeout, fail with a status, or send malformed JSON. Every request is kept in
``server.requests`` so a test can check what was sent (headers, prompt).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLMServer:
    def __init__(self, answer: str = "The retry cap is six [webhook-retry-policy, 2026-08-22].") -> None:
        self.answer = answer
        self.script: list[str] = []  # consumed one per request; "ok" when empty
        self.requests: list[dict] = []
        self.slow_s = 1.0
        self.routes: dict[str, tuple[int, str, bytes]] = {}  # path -> (status, content type, body) for GETs
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # keep test output clean
                pass

            def do_GET(self):
                outer.requests.append({"method": "GET", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": None})
                path = self.path.split("?", 1)[0]
                mode = outer.script.pop(0) if outer.script else "ok"
                if mode != "ok":
                    return self._misbehave(mode)
                status, ctype, body = outer.routes.get(path, (404, "text/plain", b"not found"))
                self._send(status, body, ctype)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                outer.requests.append({"method": "POST", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                mode = outer.script.pop(0) if outer.script else "ok"
                if mode != "ok":
                    return self._misbehave(mode)
                if self.path.endswith("/messages"):
                    payload = {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                               "content": [{"type": "text", "text": outer.answer}],
                               "usage": {"input_tokens": 120, "output_tokens": 12}}
                elif self.path.endswith("/chat/completions"):
                    payload = {"id": "c1", "object": "chat.completion", "model": body["model"],
                               "choices": [{"index": 0, "message": {"role": "assistant", "content": outer.answer}}],
                               "usage": {"prompt_tokens": 100, "completion_tokens": 10}}
                else:
                    return self._send(404, b'{"error": {"message": "no such route"}}')
                self._send(200, json.dumps(payload).encode())

            def _misbehave(self, mode: str):
                if mode == "slow":
                    time.sleep(outer.slow_s)
                    return self._send(200, b'{"late": true}')
                if mode == "malformed":
                    return self._send(200, b'{"choices": [ this is not json')
                if mode == "empty":
                    return self._send(200, b'{"choices": []}')
                return self._send(int(mode), json.dumps({"error": {"message": f"scripted {mode}"}}).encode())

            def _send(self, status: int, body: bytes, ctype: str = "application/json"):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "FakeLLMServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def posts(self) -> list[dict]:
        return [r for r in self.requests if r["method"] == "POST"]
