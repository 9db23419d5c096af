"""The LLM parser's errors, all under ``BeliefGraphError``.

Every message names the setting or the value at fault and how to fix it; no ``openai`` or
``instructor`` exception reaches a caller (the original stays on ``__cause__``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from beliefgraph.errors import BeliefGraphError, ConfigurationError

__all__ = [
    "AnswerPending",
    "LLMCacheError",
    "LLMConfigurationError",
    "LLMConnectionError",
    "LLMError",
    "LLMRequestError",
    "LLMTimeoutError",
    "ParserRetryExhausted",
    "ReaskPending",
]


class LLMError(BeliefGraphError):
    """Base class of the LLM parser's errors."""


class LLMConfigurationError(LLMError, ConfigurationError):
    """No endpoint or model configured, or a setting with a bad value."""


class LLMConnectionError(LLMError, ConnectionError):
    """The server could not be reached (closed port, unknown host, connection reset)."""


class LLMTimeoutError(LLMConnectionError, TimeoutError):
    """The server did not answer within the configured timeout."""


class LLMRequestError(LLMError, ValueError):
    """The server refused the request (bad model name, unsupported mode, context too long).

    ``status`` is the HTTP status code and ``body`` the server's own message.
    """

    def __init__(self, message: str, *, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class ParserRetryExhausted(LLMError, ValueError):
    """The model's output stayed invalid after every re-ask.

    Attributes
    ----------
    errors : str
        The validation errors of the last attempt, as sent back to the model.
    raw : str
        The text of the last completion (tool-call arguments or message content).
    last_completion : Any
        The last completion object itself (an ``openai`` ``ChatCompletion``), or None.
    n_attempts : int
        How many completions were requested.
    reask : bool
        False when no re-ask was possible (a batch answer replayed from the cache).
    """

    def __init__(
        self,
        message: str,
        *,
        errors: str = "",
        raw: str = "",
        last_completion: Any = None,
        n_attempts: int = 0,
        reask: bool = True,
    ) -> None:
        super().__init__(message)
        self.errors = errors
        self.raw = raw
        self.last_completion = last_completion
        self.n_attempts = n_attempts
        self.reask = reask


class ReaskPending(ParserRetryExhausted):
    """A batch answer failed its checks, and the re-ask a live run would send waits in a
    batch file for the next round.

    It is a ``ParserRetryExhausted`` (``raw``, ``errors`` and ``reask`` of the failed
    answer), so a caller that salvages a failed answer does so meanwhile; ``path`` and
    ``custom_id`` name the re-ask's line in the batch file. Once its answer is imported, a
    rerun reads the re-ask's answer instead.
    """

    def __init__(self, failed: ParserRetryExhausted, *, path: Path, custom_id: str) -> None:
        super().__init__(
            f"{failed}; the re-ask waits in batch file {path} (custom_id {custom_id})",
            errors=failed.errors, raw=failed.raw, last_completion=failed.last_completion,
            n_attempts=failed.n_attempts, reask=failed.reask,
        )  # fmt: skip
        self.path = path
        self.custom_id = custom_id


class AnswerPending(LLMError):
    """A batch run wrote the request to a batch file instead of calling (not a failure).

    ``path`` is the batch input file and ``custom_id`` the request's line in it; once the
    results are imported (``beliefgraph llm import``), a rerun reads the answer from the cache.
    """

    def __init__(self, message: str, *, path: Path, custom_id: str) -> None:
        super().__init__(message)
        self.path = path
        self.custom_id = custom_id


class LLMCacheError(LLMError):
    """The answer cache file cannot be used (corrupt, another program's, unreadable).

    ``path`` is the file; the message says how to move it aside.
    """

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path
