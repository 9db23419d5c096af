"""The LLM client: ``instructor`` over ``openai``, for any OpenAI-compatible server.

Settings come from arguments, else from the environment:

- ``BELIEFGRAPH_LLM_BASE_URL`` (or ``OPENAI_BASE_URL``): the server, e.g.
  ``http://127.0.0.1:8080/v1`` (llama.cpp), ``http://localhost:11434/v1`` (Ollama),
  ``http://localhost:8000/v1`` (vLLM); unset means OpenAI itself;
- ``BELIEFGRAPH_LLM_MODEL``: the model name the server knows;
- ``OPENAI_API_KEY``: required for OpenAI, optional for a local server;
- ``BELIEFGRAPH_LLM_MODE``: ``tools`` (default), ``json_schema`` or ``json_object``.

Modes: ``tools`` forces a call of one tool whose parameters are the schema (OpenAI, vLLM,
Ollama, llama.cpp). ``json_schema`` asks for ``response_format={"type": "json_schema",
...}`` (OpenAI structured outputs, vLLM, Ollama). ``json_object`` sends
``response_format={"type": "json_object", "schema": ...}``, which llama.cpp's servers turn
into a grammar (they reject ``json_schema``).

One ``extract`` is one instructor call: the reply is validated against the source, each
failure is sent back with its error text (``max_retries`` re-asks), and exhaustion raises
``ParserRetryExhausted`` with the last completion. Rate limits, 5xx answers and timeouts
are retried ``transient_retries`` times with backoff; a closed port fails at once. Every
completion is counted in ``usage``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
import instructor
import openai
from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException
from pydantic import Field, ValidationError

from beliefgraph.models import BeliefModel

from .cache import LLMCache, cache_key, default_cache_path
from .errors import (
    LLMConfigurationError,
    LLMConnectionError,
    LLMError,
    LLMRequestError,
    LLMTimeoutError,
    ParserRetryExhausted,
)
from .schema import StoryParse
from .templates import Prompt

__all__ = [
    "MODES",
    "STORY_USAGE",
    "LLMClient",
    "LLMSettings",
    "LLMUsage",
    "Mode",
    "Request",
    "collect_usage",
    "open_cache",
]

Mode = Literal["tools", "json_schema", "json_object"]
MODES: tuple[str, ...] = ("tools", "json_schema", "json_object")
_INSTRUCTOR_MODE = {
    "tools": instructor.Mode.TOOLS,
    "json_schema": instructor.Mode.JSON_SCHEMA,
    "json_object": instructor.Mode.JSON_SCHEMA,  # response_format replaced in extra_body
}
_SETTINGS_HELP = (
    "set BELIEFGRAPH_LLM_BASE_URL (e.g. http://127.0.0.1:8080/v1 for llama.cpp, "
    "http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM) and "
    "BELIEFGRAPH_LLM_MODEL; for OpenAI itself set OPENAI_API_KEY and BELIEFGRAPH_LLM_MODEL. "
    "Or pass base_url=..., model=... (and api_key=...) to the parser"
)


class LLMSettings(BeliefModel):
    """Where and how to call the model.

    Examples
    --------
    >>> s = LLMSettings.resolve(base_url="http://127.0.0.1:8080/v1", model="m", mode="tools")
    >>> s.mode, s.model, s.max_retries
    ('tools', 'm', 2)
    """

    base_url: str | None
    """The OpenAI-compatible endpoint; None for OpenAI itself."""
    model: str = Field(min_length=1)
    """The model name the server serves."""
    api_key: str = Field(repr=False)
    """The key; ``not-needed`` for local servers without one."""
    mode: Mode = "tools"
    """How structured output is requested (see the module docstring)."""
    timeout: float = Field(default=120.0, gt=0)
    """Seconds to wait for one completion (connecting: at most 10)."""
    max_retries: int = Field(default=2, ge=0)
    """Re-asks after output that fails validation."""
    transient_retries: int = Field(default=2, ge=0)
    """Retries after a rate limit, a 5xx answer or a timeout."""
    max_tokens: int = Field(default=4096, ge=16)
    """The most tokens one completion may generate."""
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)

    @classmethod
    def resolve(
        cls,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        mode: str | None = None,
        **settings: Any,
    ) -> LLMSettings:
        """Merge arguments with the environment; raise if no endpoint is configured.

        Raises
        ------
        LLMConfigurationError
            When no model is named, when neither a server nor an OpenAI key is given, or
            for a bad setting; the message names the variables to set.
        """
        env = os.environ
        base_url = base_url or env.get("BELIEFGRAPH_LLM_BASE_URL") or env.get("OPENAI_BASE_URL")
        model = model or env.get("BELIEFGRAPH_LLM_MODEL")
        api_key = api_key or env.get("OPENAI_API_KEY")
        mode = mode or env.get("BELIEFGRAPH_LLM_MODE") or "tools"
        missing = []
        if not base_url and not api_key:
            missing.append("endpoint (BELIEFGRAPH_LLM_BASE_URL, or OPENAI_API_KEY for OpenAI)")
        if not model:
            missing.append("model (BELIEFGRAPH_LLM_MODEL)")
        if missing:
            raise LLMConfigurationError(
                f"the LLM parser is not configured: no {' and no '.join(missing)}; {_SETTINGS_HELP}"
            )
        if mode not in MODES:
            raise LLMConfigurationError(
                f"unknown LLM mode {mode!r}; use one of {list(MODES)} (BELIEFGRAPH_LLM_MODE)"
            )
        try:
            return cls(
                base_url=base_url, model=model, api_key=api_key or "not-needed", mode=mode,
                **settings,
            )  # fmt: skip
        except ValidationError as err:
            raise LLMConfigurationError(f"bad LLM setting: {err}") from None


@dataclass
class LLMUsage:
    """Calls and tokens spent; ``cached`` counts answers served from the disk cache.

    Examples
    --------
    >>> u = LLMUsage(calls=2, prompt_tokens=10, completion_tokens=5)
    >>> (u + LLMUsage(calls=1, cached=1)).calls, u.total_tokens
    (3, 15)
    """

    calls: int = 0
    """Completions requested, re-asks included."""
    cached: int = 0
    """Answers read from the cache instead."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    """Wall time spent waiting for the server."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            self.calls + other.calls, self.cached + other.cached,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens, self.seconds + other.seconds,
        )  # fmt: skip

    def add(self, other: LLMUsage) -> None:
        """Add ``other`` in place."""
        self.calls += other.calls
        self.cached += other.cached
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.seconds += other.seconds

    def as_dict(self) -> dict[str, float]:
        return {
            "calls": self.calls, "cached": self.cached, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "seconds": round(self.seconds, 3),
        }  # fmt: skip


@dataclass(frozen=True)
class Request:
    """One extraction: the messages, the validation context, and the prompt behind them."""

    prompt: Prompt
    messages: tuple[dict[str, str], ...]
    context: dict[str, Any] = field(default_factory=dict)
    """Read by ``StoryParse.check`` (sentences, targets, known names, coverage)."""
    checks: tuple[Callable[[StoryParse], str | None], ...] = ()
    """Extra validators: a returned string is an error sent back to the model."""


# instructor logs every failed attempt at ERROR; the errors reach callers as exceptions, so
# keep its records off stderr unless the application configures logging.
logging.getLogger("instructor").addHandler(logging.NullHandler())

_CURRENT: contextvars.ContextVar[LLMUsage | None] = contextvars.ContextVar(
    "beliefgraph_llm_usage", default=None
)
STORY_USAGE: contextvars.ContextVar[LLMUsage | None] = contextvars.ContextVar(
    "beliefgraph_llm_story_usage", default=None
)
"""Set to an ``LLMUsage`` to collect every extraction in this context (one per batch task)."""
_SCHEMA = json.dumps(StoryParse.model_json_schema(), sort_keys=True)
_SCHEMA_SHA = hashlib.sha256(_SCHEMA.encode()).hexdigest()[:16]


class _Transient(Exception):
    def __init__(self, error: LLMError, retry_after: float | None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class LLMClient:
    """Sync and async structured extraction with caching, retries and usage counting.

    Parameters
    ----------
    settings : LLMSettings
        Endpoint, model, mode and limits.
    cache : LLMCache, optional
        Where validated answers are kept; None disables caching.
    """

    def __init__(self, settings: LLMSettings, cache: LLMCache | None = None) -> None:
        self.settings = settings
        self.cache = cache
        self.usage = LLMUsage()
        timeout = httpx.Timeout(settings.timeout, connect=min(settings.timeout, 10.0))
        common: dict[str, Any] = {
            "base_url": settings.base_url, "api_key": settings.api_key, "timeout": timeout,
            "max_retries": 0,
        }  # fmt: skip
        self._common = common
        self._sync = self._instructor(openai.OpenAI(**common))
        self._async: Any = None
        self._async_loop: asyncio.AbstractEventLoop | None = None

    def _instructor(self, client: openai.OpenAI | openai.AsyncOpenAI) -> Any:
        wrapped = instructor.from_openai(client, mode=_INSTRUCTOR_MODE[self.settings.mode])
        wrapped.on("completion:response", _count_response)
        wrapped.on("completion:error", _count_error)
        return wrapped

    def _async_client(self) -> Any:
        """The async client of the running loop (pooled connections belong to one loop)."""
        loop = asyncio.get_running_loop()
        if self._async is None or self._async_loop is not loop:
            self._async = self._instructor(openai.AsyncOpenAI(**self._common))
            self._async_loop = loop
        return self._async

    # -- public --------------------------------------------------------------------------
    def extract(self, request: Request) -> tuple[StoryParse, LLMUsage]:
        """Run ``request`` (or read it from the cache); return the parse and its usage.

        Raises
        ------
        ParserRetryExhausted
            Output still invalid after the re-asks (keeps the last completion).
        LLMConnectionError, LLMTimeoutError, LLMRequestError
            The server is unreachable, too slow, or refuses the request.
        """
        usage = LLMUsage()
        key, hit = self._cached(request, usage)
        if hit is not None:
            self._account(usage)
            return hit, usage
        token = _CURRENT.set(usage)
        started = time.monotonic()
        try:
            for attempt in range(self.settings.transient_retries + 1):
                try:
                    parse = self._once(request)
                    break
                except _Transient as t:
                    if attempt == self.settings.transient_retries:
                        raise t.error from t.__cause__
                    time.sleep(_backoff(attempt, t.retry_after))
        except ParserRetryExhausted as err:
            self._store_failure(key, err)
            raise
        finally:
            usage.seconds = time.monotonic() - started
            _CURRENT.reset(token)
            self._account(usage)
        self._store(key, parse)
        return parse, usage

    async def aextract(self, request: Request) -> tuple[StoryParse, LLMUsage]:
        """The async ``extract`` (same cache, retries and errors)."""
        usage = LLMUsage()
        key, hit = self._cached(request, usage)
        if hit is not None:
            self._account(usage)
            return hit, usage
        token = _CURRENT.set(usage)
        started = time.monotonic()
        try:
            for attempt in range(self.settings.transient_retries + 1):
                try:
                    parse = await self._aonce(request)
                    break
                except _Transient as t:
                    if attempt == self.settings.transient_retries:
                        raise t.error from t.__cause__
                    await asyncio.sleep(_backoff(attempt, t.retry_after))
        except ParserRetryExhausted as err:
            self._store_failure(key, err)
            raise
        finally:
            usage.seconds = time.monotonic() - started
            _CURRENT.reset(token)
            self._account(usage)
        self._store(key, parse)
        return parse, usage

    def _account(self, usage: LLMUsage) -> None:
        self.usage = self.usage + usage
        if (story := STORY_USAGE.get()) is not None:
            story.add(usage)

    # -- one instructor call ---------------------------------------------------------------
    def _kwargs(self, request: Request, note: str | None) -> dict[str, Any]:
        messages = [dict(m) for m in request.messages]
        if note:
            messages.append({"role": "user", "content": note})
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "messages": [_jinja_safe(m) for m in messages],
            "response_model": StoryParse,
            "context": {**request.context, "checks": request.checks},
            "max_tokens": self.settings.max_tokens,
            "temperature": self.settings.temperature,
        }
        if self.settings.mode == "json_object":
            schema = StoryParse.model_json_schema()
            kwargs["extra_body"] = {"response_format": {"type": "json_object", "schema": schema}}
        return kwargs

    def _once(self, request: Request) -> StoryParse:
        attempts = self.settings.max_retries + 1
        note = None
        while True:
            try:
                parse, _ = self._sync.create_with_completion(
                    max_retries=attempts - 1, **self._kwargs(request, note)
                )
                return parse
            except Exception as err:  # mapped to the package's errors below
                attempts, note = self._after_failure(err, attempts)

    async def _aonce(self, request: Request) -> StoryParse:
        attempts = self.settings.max_retries + 1
        note = None
        while True:
            try:
                parse, _ = await self._async_client().create_with_completion(
                    max_retries=attempts - 1, **self._kwargs(request, note)
                )
                return parse
            except Exception as err:  # mapped to the package's errors below
                attempts, note = self._after_failure(err, attempts)

    def _after_failure(self, err: Exception, attempts: int) -> tuple[int, str]:
        """Map ``err``; a cut-off answer is re-asked (as a fresh try) while attempts remain."""
        cause = err.__cause__ if isinstance(err, InstructorRetryException) else err
        if isinstance(cause, IncompleteOutputException) or isinstance(
            err, IncompleteOutputException
        ):
            last = getattr(cause, "last_completion", None)
            if attempts > 1:
                note = (
                    f"Your previous answer was cut off at {self.settings.max_tokens} tokens. "
                    "Answer again with fewer items and short names."
                )
                return attempts - 1, note
            raise ParserRetryExhausted(
                f"the model's last answer was cut off at max_tokens={self.settings.max_tokens} "
                f"after {_attempts_so_far()} attempt(s); raise max_tokens or shorten the text",
                errors="output truncated (finish_reason=length)",
                raw=_raw_text(last), last_completion=last, n_attempts=_attempts_so_far(),
            ) from None  # fmt: skip
        raise self._map(err, cause) from cause

    def _map(self, err: Exception, cause: BaseException | None) -> Exception:
        where = self.settings.base_url or "the OpenAI API"
        if isinstance(cause, openai.APITimeoutError):
            return _Transient(
                LLMTimeoutError(
                    f"the LLM server at {where} did not answer within "
                    f"{self.settings.timeout:g} s; raise timeout= or check the server"
                ),
                None,
            )
        if isinstance(cause, openai.APIConnectionError):
            return LLMConnectionError(
                f"cannot reach the LLM server at {where}: {_reason(cause)}; start the server "
                "or fix BELIEFGRAPH_LLM_BASE_URL"
            )
        if isinstance(cause, openai.APIStatusError):
            body = _body(cause)
            status = cause.status_code
            retry_after = _retry_after(cause)
            unsupported = "response_format" in body or "tool_choice" in body
            if (status == 429 or status >= 500) and not unsupported:
                what = "rate-limited the request" if status == 429 else f"failed ({status})"
                return _Transient(
                    LLMRequestError(f"the LLM server at {where} {what}: {body}", status=status,
                                    body=body),
                    retry_after,
                )  # fmt: skip
            hint = ""
            if unsupported:
                others = [m for m in MODES if m != self.settings.mode]
                hint = (
                    f" (this server does not support mode {self.settings.mode!r}; "
                    f"try mode={others[0]!r} or {others[1]!r}, or set BELIEFGRAPH_LLM_MODE)"
                )
            elif status == 404:
                hint = f" (is {self.settings.model!r} a model this server serves?)"
            return LLMRequestError(
                f"the LLM server at {where} refused the request ({status}): {body}{hint}",
                status=status, body=body,
            )  # fmt: skip
        if isinstance(err, InstructorRetryException):
            last = err.last_completion
            errors = str(cause) if cause is not None else str(err)
            attempts = max(_attempts_so_far(), err.n_attempts)
            return ParserRetryExhausted(
                f"the model's output was still invalid after {attempts} attempt(s); "
                f"last errors: {errors[:2000]}",
                errors=errors, raw=_raw_text(last), last_completion=last,
                n_attempts=attempts,
            )  # fmt: skip
        if isinstance(err, LLMError):
            return err
        return LLMError(f"the LLM call failed: {type(err).__name__}: {err}")

    # -- cache -----------------------------------------------------------------------------
    def key(self, request: Request) -> str:
        """The cache key of ``request``: model, mode, prompt, schema, settings and text."""
        s = self.settings
        return cache_key(
            model=s.model, base_url=s.base_url, mode=s.mode, prompt=request.prompt.id,
            prompt_sha=request.prompt.sha, schema=_SCHEMA_SHA, max_tokens=s.max_tokens,
            temperature=s.temperature, messages=request.messages,
            validation={k: v for k, v in request.context.items() if k != "sentences"},
            checks=[getattr(c, "__qualname__", repr(c)) for c in request.checks],
        )  # fmt: skip

    def _cached(self, request: Request, usage: LLMUsage) -> tuple[str, StoryParse | None]:
        """The cached parse, or None; a cached failure is raised again (counted as cached)."""
        key = self.key(request)
        if self.cache is None:
            return key, None
        raw = self.cache.get(key)
        if raw is None:
            return key, None
        try:
            record = json.loads(raw)
            if "failure" in record:
                failed = record["failure"]
                usage.cached += 1
                self._account(usage)
                raise ParserRetryExhausted(
                    failed["message"] + " (cached; pass cache=False to call the model again)",
                    errors=failed["errors"],
                    raw=failed["raw"],
                    n_attempts=failed["n_attempts"],
                )
            parse = StoryParse.model_validate(
                record["parse"], context={**request.context, "checks": request.checks}
            )
        except (ValidationError, KeyError, TypeError, json.JSONDecodeError):
            return key, None  # stale: the validators or the format changed since
        usage.cached += 1
        return key, parse

    def _store(self, key: str, parse: StoryParse) -> None:
        if self.cache is not None:
            value = json.dumps({"parse": parse.model_dump(mode="json")})
            self.cache.set(key, value, model=self.settings.model)

    def _store_failure(self, key: str, err: ParserRetryExhausted) -> None:
        """Keep a definitive failure: at temperature 0 a rerun would fail the same way."""
        if self.cache is not None and self.settings.temperature == 0:
            failure = {
                "message": str(err), "errors": err.errors, "raw": err.raw,
                "n_attempts": err.n_attempts,
            }  # fmt: skip
            self.cache.set(key, json.dumps({"failure": failure}), model=self.settings.model)


def open_cache(cache: LLMCache | str | Path | bool | None) -> LLMCache | None:
    """``None``/``True``: the default file; ``False``: no cache; a path or an ``LLMCache``."""
    if cache is False:
        return None
    if isinstance(cache, LLMCache):
        return cache
    if cache is None or cache is True:
        return LLMCache(default_cache_path())
    return LLMCache(cache)


@contextlib.contextmanager
def collect_usage() -> Iterator[LLMUsage]:
    """Collect the usage of every extraction inside the block (nested blocks add up).

    Examples
    --------
    >>> with collect_usage() as used:
    ...     pass
    >>> used.calls
    0
    """
    outer = STORY_USAGE.get()
    acc = LLMUsage()
    token = STORY_USAGE.set(acc)
    try:
        yield acc
    finally:
        STORY_USAGE.reset(token)
        if outer is not None:
            outer.add(acc)


# -- helpers ---------------------------------------------------------------------------------
def _count_response(response: Any) -> None:
    usage = _CURRENT.get()
    if usage is None:
        return
    usage.calls += 1
    u = getattr(response, "usage", None)
    usage.prompt_tokens += int(getattr(u, "prompt_tokens", 0) or 0)
    usage.completion_tokens += int(getattr(u, "completion_tokens", 0) or 0)


def _attempts_so_far() -> int:
    """Completions requested in the current extraction (re-asks included)."""
    usage = _CURRENT.get()
    return usage.calls if usage is not None else 0


def _count_error(error: Exception, **_: Any) -> None:
    usage = _CURRENT.get()
    if usage is not None:
        usage.calls += 1


_ENDRAW = re.compile(r"\{%[-+]?\s*endraw\s*[-+]?%\}")


def _jinja_safe(message: dict[str, str]) -> dict[str, str]:
    """Shield text from instructor's Jinja templating (it renders messages with context).

    The text goes inside a raw block; an ``endraw`` tag in the text itself is closed over
    and printed as a string literal, so the model receives the text unchanged.
    """
    content = message.get("content") or ""
    content = _ENDRAW.sub(lambda m: "{% endraw %}{{ " + repr(m.group(0)) + " }}{% raw %}", content)
    return {**message, "content": "{% raw %}" + content + "{% endraw %}"}


def _raw_text(completion: Any) -> str:
    """The text a completion carries: its tool-call arguments or its message content."""
    try:
        message = completion.choices[0].message
    except (AttributeError, IndexError, TypeError):
        return ""
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        return "".join(c.function.arguments or "" for c in calls)
    return message.content or ""


def _reason(err: BaseException) -> str:
    inner = err.__cause__ or err.__context__
    return f"{err} ({inner})" if inner and str(inner) else str(err)


def _body(err: openai.APIStatusError) -> str:
    body: Any = err.body
    if isinstance(body, dict):
        body = body.get("error", body)
        if isinstance(body, dict):
            body = body.get("message", body)
    text = str(body) if body else err.message
    return text[:500]


def _retry_after(err: openai.APIStatusError) -> float | None:
    value = err.response.headers.get("retry-after") if err.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _backoff(attempt: int, retry_after: float | None) -> float:
    if retry_after is not None:
        return min(retry_after, 60.0)
    return min(0.5 * 2**attempt, 8.0)
