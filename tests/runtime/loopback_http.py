"""A scriptable HTTP server on 127.0.0.1 for the runtime tests (stdlib only).

Each POST is recorded and answered by the next scripted ``Reply``, or by a function of the
received request. Nothing here reaches beyond loopback.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # JSON-able, or str sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drop: bool = False  # close the connection without answering


Script = Reply | Callable[[Received], Reply]


def chat_completion(
    content: str,
    *,
    model: str = "test-model",
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
) -> dict[str, Any]:
    """A Chat Completions response body as OpenAI-compatible servers send it."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def error_body(message: str, type_: str = "error") -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "code": None}}


class LoopbackServer:
    def __init__(self) -> None:
        self.received: list[Received] = []
        self.listed: list[str] = []  # paths of GET requests (models lists)
        self.models_reply: Reply | None = None  # what GET answers; None: a list of one model
        self._script: deque[Script] = deque()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                # The models list (maai's pre-flight): answered apart from the script, so a
                # script's replies go to model calls only.
                server.listed.append(self.path)
                reply = server.models_reply or Reply(
                    body={
                        "object": "list",
                        "data": [{"id": "test-model", "object": "model", "owned_by": "test"}],
                    }
                )
                payload = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = raw.decode("utf-8", "replace")
                received = Received(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                reply = server._next(received)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.drop:
                    self.close_connection = True
                    return
                payload = (
                    reply.body.encode()
                    if isinstance(reply.body, str)
                    else json.dumps(reply.body).encode()
                )
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (a timeout test); nothing to answer.
                    self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        # A short poll interval keeps shutdown (once per test) from costing half a second.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def script(self, *replies: Script) -> None:
        with self._lock:
            self._script.extend(replies)

    def _next(self, received: Received) -> Reply:
        with self._lock:
            self.received.append(received)
            if not self._script:
                return Reply(500, error_body("loopback server: no scripted reply left"))
            step = self._script.popleft()
        return step(received) if callable(step) else step

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@contextmanager
def loopback_server() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
