"""A disk cache of LLM answers, so a rerun costs no call, and of batch requests still pending.

Keys hash everything that decides an answer: the model, the mode, the prompt's id and text
hash, the reply schema, the sampling settings and the messages (which hold the text).
Values are JSON: ``{"reply": ...}`` (a validated answer; older files say ``"parse"``) or
``{"failure": ...}`` (a definitive ``ParserRetryExhausted``: its message, errors, raw text
and attempts). Only a parsed reply that fails validation is a failure; a transport error or
a garbled HTTP answer is never stored. A second table, ``pending``, holds the requests a
batch run wrote to a batch file (``batchfile``), so the importer finds each one's schema,
model and prompt version by its ``custom_id``.

Why sqlite3 and not ``diskcache``: the standard library already has it, the cache is one
key-to-JSON table with no eviction, and sqlite gives what matters here on its own: each
write is one transaction (atomic: a reader sees the old row or the new, never half), and
several processes can share the file (WAL journal; writers wait on the lock up to
``timeout`` seconds, and opening retries while another process is creating the file).

Failure modes: a file that is not an sqlite database, or one whose tables are not this
cache's, raises ``LLMCacheError`` naming the file and how to move it aside
(``LLMCache.move_aside``). A file the process cannot write is read, and answers received
in this run are kept in memory, with one ``LLMCacheWarning``.

Limits: entries never expire; delete the file (``LLMCache.clear``) to start afresh. A file
on a network file system may not honour sqlite's locks.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from .errors import LLMCacheError

__all__ = ["LLMCache", "LLMCacheWarning", "batch_cache_path", "cache_key", "default_cache_path"]

_TABLES = (
    "CREATE TABLE IF NOT EXISTS answers ("
    "key TEXT PRIMARY KEY, value TEXT NOT NULL, model TEXT, created REAL)",
    "CREATE TABLE IF NOT EXISTS pending ("
    "custom_id TEXT PRIMARY KEY, key TEXT NOT NULL, body TEXT NOT NULL, meta TEXT NOT NULL, "
    "created REAL)",
)
_COLUMNS = {
    "answers": ["key", "value", "model", "created"],
    "pending": ["custom_id", "key", "body", "meta", "created"],
}


class LLMCacheWarning(UserWarning):
    """The cache cannot be written; answers of this run are kept in memory only."""


def default_cache_path() -> Path:
    """``$BELIEFGRAPH_LLM_CACHE``, else ``$XDG_CACHE_HOME/beliefgraph/llm.sqlite3``."""
    if env := os.environ.get("BELIEFGRAPH_LLM_CACHE"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "beliefgraph" / "llm.sqlite3"


def batch_cache_path(batch_out: str | Path) -> Path:
    """The cache of a batch run that names none: ``$BELIEFGRAPH_LLM_CACHE``, else a file
    beside the batch file (``b.jsonl`` -> ``b.cache.sqlite3``).

    A batch export writes a pending row per request and, once imported, the answers; kept
    beside its batch file they stay with that batch instead of filling the user's own cache
    (``default_cache_path``) with a run they may never answer. Import the answers into it
    (``beliefgraph llm import ANSWERS --cache b.cache.sqlite3``) and rerun with the same
    batch file; to share one cache across runs, set ``BELIEFGRAPH_LLM_CACHE`` or pass
    ``cache=``.

    Examples
    --------
    >>> import os
    >>> if "BELIEFGRAPH_LLM_CACHE" not in os.environ:
    ...     print(batch_cache_path("runs/b.jsonl"))
    ... else:
    ...     print("runs/b.cache.sqlite3")
    runs/b.cache.sqlite3
    """
    if env := os.environ.get("BELIEFGRAPH_LLM_CACHE"):
        return Path(env).expanduser()
    path = Path(batch_out).expanduser()
    return path.with_name(f"{path.stem}.cache.sqlite3")


def cache_key(**parts: Any) -> str:
    """A stable hash of ``parts`` (JSON-serialisable values), order-independent.

    Examples
    --------
    >>> cache_key(model="m", text="t") == cache_key(text="t", model="m")
    True
    """
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _locked(err: sqlite3.OperationalError) -> bool:
    text = str(err).lower()
    return "locked" in text or "busy" in text


def _readonly(err: sqlite3.Error) -> bool:
    text = str(err).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


class LLMCache:
    """A key-to-JSON store in one sqlite file, safe across threads and processes.

    Parameters
    ----------
    path : str or Path
        The file; its folder is created. ``":memory:"`` keeps it in this process only.
    timeout : float
        Seconds a writer (or an opener) waits for another process's lock before giving up.

    Raises
    ------
    LLMCacheError
        The file is not this cache (corrupt, or another program's database).

    Examples
    --------
    >>> c = LLMCache(":memory:")
    >>> c.set("k", '{"a": 1}'); c.get("k"), c.get("other"), len(c)
    ('{"a": 1}', None, 1)
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self.timeout = timeout
        self.readonly = False
        self._memory: dict[str, str] = {}
        """Answers that could not be written (a read-only file): kept for this run."""
        self._warned = False
        self._lock = threading.Lock()
        self._conn = self._open()

    # -- opening -------------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        if self.path == ":memory:":
            conn = sqlite3.connect(self.path, check_same_thread=False)
            for sql in _TABLES:
                conn.execute(sql)
            return conn
        file = Path(self.path)
        with contextlib.suppress(OSError):  # a read-only folder: the file may still be read
            file.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.timeout
        delay = 0.01
        while True:
            try:
                return self._open_writable()
            except sqlite3.OperationalError as err:
                if _locked(err) and time.monotonic() < deadline:
                    # Another process is creating the file or switching it to WAL.
                    time.sleep(delay)
                    delay = min(delay * 2, 0.2)
                    continue
                if _readonly(err) and file.exists():
                    return self._open_readonly()
                raise self._unusable(err) from None
            except sqlite3.DatabaseError as err:
                raise self._unusable(err) from None

    def _open_writable(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.timeout, check_same_thread=False)
        try:
            self._check_tables(conn)
            with conn:
                conn.execute("PRAGMA journal_mode=WAL")
                # WAL + NORMAL: a commit survives a crash of this process (kill -9), and skips
                # an fsync per answer; only a power cut may lose the last few answers.
                conn.execute("PRAGMA synchronous=NORMAL")
                for sql in _TABLES:
                    conn.execute(sql)
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_readonly(self) -> sqlite3.Connection:
        base = Path(self.path).resolve().as_uri()
        # mode=ro reads the WAL journal too, but needs its shared-memory file; immutable=1
        # reads the main file alone, for a folder where even that cannot be made.
        for query in ("?mode=ro", "?mode=ro&immutable=1"):
            conn = sqlite3.connect(base + query, uri=True, check_same_thread=False)
            try:
                self._check_tables(conn)
                conn.execute("SELECT COUNT(*) FROM answers").fetchone()
            except sqlite3.OperationalError:
                conn.close()
                continue
            except sqlite3.DatabaseError as err:
                conn.close()
                raise self._unusable(err) from None
            self.readonly = True
            return conn
        raise LLMCacheError(
            f"the LLM cache {self.path} is read-only and cannot be read either; make it "
            "readable or point BELIEFGRAPH_LLM_CACHE at another file",
            path=self.path,
        )

    def _check_tables(self, conn: sqlite3.Connection) -> None:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        for (name,) in rows:
            if name not in _COLUMNS:
                continue
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({name})")]
            if cols != _COLUMNS[name]:
                raise sqlite3.DatabaseError(
                    f"its table {name!r} has columns {cols}, not {_COLUMNS[name]}"
                )

    def _unusable(self, err: BaseException) -> LLMCacheError:
        return LLMCacheError(
            f"the LLM cache {self.path} cannot be used ({err}): it is corrupt or not a "
            f"beliefgraph cache. Move it aside (mv {self.path} {self.path}.broken, or "
            "LLMCache.move_aside(path)) and a new one is created; or point "
            "BELIEFGRAPH_LLM_CACHE / cache= at another file",
            path=self.path,
        )

    @staticmethod
    def move_aside(path: str | Path) -> Path:
        """Rename a broken cache file (and its journal files) to ``NAME.broken[N]``; return it.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.sqlite3"; _ = p.write_text("junk")
        >>> LLMCache.move_aside(p).name
        'c.sqlite3.broken'
        """
        path = Path(path)
        target = path.with_name(path.name + ".broken")
        n = 1
        while target.exists():
            n += 1
            target = path.with_name(f"{path.name}.broken{n}")
        path.rename(target)
        for suffix in ("-wal", "-shm"):
            extra = path.with_name(path.name + suffix)
            if extra.exists():
                extra.rename(target.with_name(target.name + suffix))
        return target

    # -- answers ---------------------------------------------------------------------------------
    def get(self, key: str) -> str | None:
        """The stored value, or None."""
        if key in self._memory:
            return self._memory[key]
        with self._lock:
            row = self._conn.execute("SELECT value FROM answers WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set(self, key: str, value: str, *, model: str = "") -> None:
        """Store ``value`` under ``key`` in one transaction (last writer wins).

        A read-only file keeps the value in memory for this run and warns once.
        """
        self._write(
            "INSERT OR REPLACE INTO answers (key, value, model, created) VALUES (?, ?, ?, ?)",
            (key, value, model, time.time()),
            memory=(key, value),
        )

    def _write(self, sql: str, args: tuple, *, memory: tuple[str, str] | None = None) -> bool:
        if not self.readonly:
            try:
                with self._lock, self._conn:
                    self._conn.execute(sql, args)
                return True
            except sqlite3.OperationalError as err:
                if not _readonly(err):
                    raise LLMCacheError(
                        f"cannot write to the LLM cache {self.path}: {err}", path=self.path
                    ) from None
                self.readonly = True
        if memory is not None:
            self._memory[memory[0]] = memory[1]
        if not self._warned:
            self._warned = True
            warnings.warn(
                f"the LLM cache {self.path} is read-only: answers received in this run are "
                "kept in memory only and will be asked again next time; make the file "
                "writable or set BELIEFGRAPH_LLM_CACHE to a writable path",
                LLMCacheWarning,
                stacklevel=4,
            )
        return False

    # -- batch requests ------------------------------------------------------------------------
    def add_pending(self, custom_id: str, key: str, body: str, meta: str) -> None:
        """Remember a request written to a batch file (kept after it is answered)."""
        self._write(
            "INSERT OR REPLACE INTO pending (custom_id, key, body, meta, created) "
            "VALUES (?, ?, ?, ?, ?)",
            (custom_id, key, body, meta, time.time()),
        )

    def pending(self, custom_id: str) -> tuple[str, dict[str, Any], dict[str, Any]] | None:
        """``(key, body, meta)`` of a batch request, or None when unknown."""
        with self._lock:
            row = self._conn.execute(
                "SELECT key, body, meta FROM pending WHERE custom_id = ?", (custom_id,)
            ).fetchone()
        return (row[0], json.loads(row[1]), json.loads(row[2])) if row else None

    def pending_requests(self, *, unanswered: bool = True) -> list[tuple[str, dict, dict]]:
        """``(custom_id, body, meta)`` of every batch request, oldest first (by default only
        those with no answer yet)."""
        sql = "SELECT custom_id, body, meta, key FROM pending ORDER BY created, custom_id"
        with self._lock:
            rows = self._conn.execute(sql).fetchall()
        out = []
        for cid, body, meta, key in rows:
            if unanswered and self.get(key) is not None:
                continue
            out.append((cid, json.loads(body), json.loads(meta)))
        return out

    # -- housekeeping ----------------------------------------------------------------------------
    def clear(self) -> None:
        """Remove every entry."""
        self._memory.clear()
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM answers")
            self._conn.execute("DELETE FROM pending")

    def close(self) -> None:
        """Close the connection (the file stays)."""
        with self._lock:
            self._conn.close()

    def __len__(self) -> int:
        with self._lock:
            n = int(self._conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0])
        return n + len(self._memory)

    def __repr__(self) -> str:
        return f"LLMCache({self.path!r})"
