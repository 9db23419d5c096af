"""A disk cache of validated LLM answers, so a rerun costs no call.

Keys hash everything that decides an answer: the model, the mode, the prompt's id and text
hash, the output schema, the sampling settings and the messages (which hold the text).
Values are JSON: ``{"parse": ...}`` (the validated ``StoryParse``) or ``{"failure": ...}``
(a definitive ``ParserRetryExhausted``: its message, errors, raw text and attempts).

Why sqlite3 and not ``diskcache``: the standard library already has it, the cache is one
key-to-JSON table with no eviction, and sqlite gives what matters here on its own: each
write is one transaction (atomic: a reader sees the old row or the new, never half), and
several processes can share the file (WAL journal; writers wait on the lock up to
``timeout`` seconds instead of failing). ``diskcache`` is a layer over the same sqlite with
features this does not need, and one more dependency.

Limits: entries never expire; delete the file (``LLMCache.clear``) to start afresh. A file
on a network file system may not honour sqlite's locks.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["LLMCache", "cache_key", "default_cache_path"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS answers ("
    "key TEXT PRIMARY KEY, value TEXT NOT NULL, model TEXT, created REAL)"
)


def default_cache_path() -> Path:
    """``$BELIEFGRAPH_LLM_CACHE``, else ``$XDG_CACHE_HOME/beliefgraph/llm.sqlite3``."""
    if env := os.environ.get("BELIEFGRAPH_LLM_CACHE"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "beliefgraph" / "llm.sqlite3"


def cache_key(**parts: Any) -> str:
    """A stable hash of ``parts`` (JSON-serialisable values), order-independent.

    Examples
    --------
    >>> cache_key(model="m", text="t") == cache_key(text="t", model="m")
    True
    """
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class LLMCache:
    """A key-to-JSON store in one sqlite file, safe across threads and processes.

    Parameters
    ----------
    path : str or Path
        The file; its folder is created. ``":memory:"`` keeps it in this process only.
    timeout : float
        Seconds a writer waits for another process's lock before giving up.

    Examples
    --------
    >>> c = LLMCache(":memory:")
    >>> c.set("k", '{"a": 1}'); c.get("k"), c.get("other"), len(c)
    ('{"a": 1}', None, 1)
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self.timeout = timeout
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False)
        with self._lock, self._conn:
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(_SCHEMA)

    def get(self, key: str) -> str | None:
        """The stored value, or None."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM answers WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set(self, key: str, value: str, *, model: str = "") -> None:
        """Store ``value`` under ``key`` in one transaction (last writer wins)."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO answers (key, value, model, created) VALUES (?, ?, ?, ?)",
                (key, value, model, time.time()),
            )

    def clear(self) -> None:
        """Remove every entry."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM answers")

    def close(self) -> None:
        """Close the connection (the file stays)."""
        with self._lock:
            self._conn.close()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def __repr__(self) -> str:
        return f"LLMCache({self.path!r})"
