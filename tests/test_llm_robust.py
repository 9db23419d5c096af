"""The LLM cache and transport under misbehaving servers and broken files (issue 18, item 4).

Each test here failed on the code before the fix: a garbled HTTP 200 was cached as a
permanent failure, concurrent creation of the cache file raised "database is locked", a
read-only cache raised a raw sqlite error, a corrupt cache a raw traceback,
``Retry-After: -1`` / ``nan`` a raw ``ValueError``, and a server sending one byte a second
was not bounded by ``timeout``.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from beliefgraph.parsers.llm import (
    LLMCache,
    LLMCacheError,
    LLMCacheWarning,
    LLMParser,
    LLMRequestError,
    LLMTimeoutError,
    max_concurrency,
    parse_batch,
    set_max_concurrency,
)

if TYPE_CHECKING:
    from llm_fixtures import StubServer

pytest_plugins = ["llm_fixtures"]
pytestmark = pytest.mark.usefixtures("offline")

TEXT = "Sally goes out. Anne goes out."
GOOD: dict[str, Any] = {
    "actors": ["Sally", "Anne"],
    "items": [
        {"type": "action", "sentence": 1, "kind": "exit", "actors": ["Sally"]},
        {"type": "action", "sentence": 2, "kind": "exit", "actors": ["Anne"]},
    ],
}


def make(stub: StubServer, **settings: Any) -> LLMParser:
    settings.setdefault("cache", False)
    return LLMParser(base_url=stub.base_url, model="stub", **settings)


# -- glitches are not answers -----------------------------------------------------------------
@pytest.mark.parametrize("body", [b"", b"<html>502 Bad Gateway</html>", b'{"no": "choices"}'])
def test_a_garbled_200_is_retried_and_never_cached(
    stub: StubServer, tmp_path: Path, body: bytes
) -> None:
    from llm_fixtures import garbled

    cache = tmp_path / "c.sqlite3"
    stub.script(garbled(body))
    with pytest.raises(LLMRequestError, match="glitch"):
        make(stub, cache=cache, transient_retries=0).parse(TEXT)
    assert len(LLMCache(cache)) == 0
    stub.script(GOOD)  # the server recovered: the story parses
    assert len(make(stub, cache=cache).parse(TEXT).events) == 2
    stub.script(garbled(body), GOOD)  # and with a retry left, one glitch costs one retry
    assert len(make(stub, cache=False).parse(TEXT).events) == 2


def test_a_reply_failing_validation_is_still_a_stored_failure(
    stub: StubServer, tmp_path: Path
) -> None:
    from beliefgraph.parsers.llm import ParserRetryExhausted

    bad = {"actors": ["Bob"], "items": []}
    stub.script(bad, bad)
    cache = tmp_path / "c.sqlite3"
    with pytest.raises(ParserRetryExhausted):
        make(stub, cache=cache, max_retries=1).parse(TEXT)
    assert "failure" in json.loads(next(iter(_values(cache))))


def _values(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT value FROM answers")]


# -- Retry-After ------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["-1", "nan", "inf", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"])
def test_bad_retry_after_values_fall_back_to_backoff(stub: StubServer, value: str) -> None:
    stub.error(429, "slow down", retry_after=value)
    stub.script(GOOD)
    started = time.monotonic()
    assert len(make(stub).parse(TEXT).events) == 2
    assert stub.calls == 2 and time.monotonic() - started < 10


# -- a total deadline per request -------------------------------------------------------------
def test_a_server_dribbling_bytes_is_bounded_by_the_timeout(dribbling_port: int) -> None:
    parser = LLMParser(
        base_url=f"http://127.0.0.1:{dribbling_port}/v1", model="m", cache=False, timeout=2.0,
        transient_retries=0,
    )  # fmt: skip
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError, match="within 2 s"):
        parser.parse(TEXT)
    assert time.monotonic() - started < 5


def test_the_async_path_has_the_same_deadline(dribbling_port: int) -> None:
    parser = LLMParser(
        base_url=f"http://127.0.0.1:{dribbling_port}/v1", model="m", cache=False, timeout=2.0,
        transient_retries=0,
    )  # fmt: skip
    started = time.monotonic()
    result = parse_batch(parser, [TEXT], progress=False)
    assert isinstance(result.errors[0], LLMTimeoutError)
    assert time.monotonic() - started < 5


# -- one bound on requests in flight per process ---------------------------------------------
def test_concurrent_requests_are_bounded_across_clients(stub: StubServer) -> None:
    from llm_fixtures import Reply

    stub.responder = lambda request: Reply(GOOD, delay=0.3)
    before = max_concurrency()
    set_max_concurrency(2)
    try:
        parsers = [make(stub) for _ in range(3)]  # three clients, six threads
        errors: list[BaseException] = []

        def run(p: LLMParser) -> None:
            try:
                p.parse(TEXT)
            except BaseException as err:  # collected for the assertion below
                errors.append(err)

        threads = [threading.Thread(target=run, args=(parsers[i % 3],)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        batch = parse_batch(make(stub), [TEXT, TEXT + " ", TEXT + "  "], concurrency=3,
                            progress=False)  # fmt: skip
    finally:
        set_max_concurrency(before)
    assert errors == [] and batch.ok
    assert stub.calls == 9 and stub.max_in_flight == 2


# -- the cache file ---------------------------------------------------------------------------
_CREATE = """
import sys, time
from beliefgraph.parsers.llm.cache import LLMCache
start = float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
cache = LLMCache(sys.argv[1])
cache.set("k" + sys.argv[3], "{}")
"""


def test_concurrent_creation_of_the_cache_file(tmp_path: Path) -> None:
    path = str(tmp_path / "new" / "cache.sqlite3")
    start = str(time.time() + 3.0)  # every process opens the missing file at the same moment
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CREATE, path, start, str(n)], stderr=subprocess.PIPE, text=True
        )
        for n in range(8)
    ]
    outcomes = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in procs]
    assert [code for code, _ in outcomes] == [0] * 8, [err for _, err in outcomes if err]
    assert len(LLMCache(path)) == 8


def test_corrupt_cache_names_the_file_and_how_to_move_it(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(LLMCacheError) as err:
        LLMCache(path)
    assert str(path) in str(err.value) and "mv " in str(err.value)
    with pytest.raises(LLMCacheError):  # the parser says the same, before any call
        LLMParser(base_url="http://127.0.0.1:9/v1", model="m", cache=path)
    moved = LLMCache.move_aside(path)
    assert moved.exists() and not path.exists()
    assert len(LLMCache(path)) == 0  # a fresh cache in its place


def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE answers (id INTEGER, text TEXT)")
    with pytest.raises(LLMCacheError, match="columns"):
        LLMCache(path)


def test_read_only_cache_keeps_answers_in_memory_and_warns_once(
    stub: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.sqlite3"
    first = LLMCache(path)
    first.set("old", '{"reply": 1}')
    first.close()

    def refuse(self: LLMCache) -> sqlite3.Connection:
        # What sqlite says for a file this process may not write (tests may run as root,
        # for whom file modes do not apply).
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(LLMCache, "_open_writable", refuse)
    cache = LLMCache(path)
    assert cache.readonly and cache.get("old") == '{"reply": 1}'
    stub.script(GOOD)
    parser = make(stub, cache=cache)
    with pytest.warns(LLMCacheWarning, match="read-only") as seen:
        parser.parse(TEXT)
        parser.parse(TEXT)  # the paid answer is kept for this run
    assert stub.calls == 1 and len(seen) == 1
    assert _values(path) == ['{"reply": 1}']  # the file is untouched


def test_write_errors_other_than_read_only_are_named(tmp_path: Path) -> None:
    cache = LLMCache(tmp_path / "c.sqlite3")
    cache._conn.close()
    cache._conn = sqlite3.connect(":memory:", check_same_thread=False)  # no tables: an error
    with pytest.raises(LLMCacheError, match=str(tmp_path)), warnings.catch_warnings():
        warnings.simplefilter("error")
        cache.set("k", "{}")
