"""The one LLM client: ``instructor`` over ``openai``, for any OpenAI-compatible server.

Every LLM use in the project goes through ``LLMClient.extract(response_model, messages,
context=..., checks=...)`` (or ``aextract``): the story parser, the dialogue reader, the
option scorers and the judges. The reply type is any pydantic model, or ``str`` for a
plain-text answer (a baseline asking a benchmark's own free-text prompt). Each call gets
the same cache, retries, backoff, validation re-asks, usage counting and batch deferral.

Settings come from arguments, else from the environment:

- ``BELIEFGRAPH_LLM_BASE_URL`` (or ``OPENAI_BASE_URL``): the server, e.g.
  ``http://127.0.0.1:8080/v1`` (llama.cpp), ``http://localhost:11434/v1`` (Ollama),
  ``http://localhost:8000/v1`` (vLLM); unset means OpenAI itself;
- ``BELIEFGRAPH_LLM_MODEL``: the model name the server knows;
- ``OPENAI_API_KEY``: required for OpenAI, optional for a local server;
- ``BELIEFGRAPH_LLM_MODE``: ``tools`` (default), ``json_schema`` or ``json_object``;
- ``BELIEFGRAPH_LLM_BATCH_OUT``: write requests to this OpenAI Batch API input file
  instead of calling (see ``batchfile``).

Modes (``MODE_MAP``, the only place they are defined): ``tools`` forces a call of one
tool whose parameters are the schema (OpenAI, vLLM, Ollama, llama.cpp). ``json_schema``
asks for ``response_format={"type": "json_schema", ...}`` (OpenAI structured outputs, vLLM,
Ollama). ``json_object`` sends ``response_format={"type": "json_object", "schema": ...}``,
which llama.cpp's servers turn into a grammar (they reject ``json_schema``).

The text is never templated: instructor renders messages with Jinja whenever a validation
context is given, so every message goes inside one raw block (``_shield``) and reaches the
model verbatim, ``{{ }}``, ``{% %}`` and ``endraw`` included. A plain-text request does not
go through instructor at all.

A reply that fails validation is sent back with its error text (``max_retries`` re-asks);
exhaustion raises ``ParserRetryExhausted`` with the last completion and is cached (at
temperature 0 a rerun would fail the same way). Rate limits, 5xx answers, timeouts and
glitches (an empty or non-JSON HTTP 200 body) are retried ``transient_retries`` times with
backoff and never cached; a closed port fails at once. Every completion is counted.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import email.utils
import functools
import hashlib
import itertools
import json
import logging
import math
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

import instructor
import openai
from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException
from pydantic import BaseModel, Field, ValidationError, create_model, model_validator

from beliefgraph.models import BeliefModel

from .cache import LLMCache, batch_cache_path, cache_key, default_cache_path
from .errors import (
    AnswerPending,
    LLMConfigurationError,
    LLMConnectionError,
    LLMError,
    LLMRequestError,
    LLMTimeoutError,
    ParserRetryExhausted,
    ReaskPending,
)
from .schema import StoryParse
from .templates import Prompt
from .transport import (
    AsyncDeadlineTransport,
    Captured,
    CaptureTransport,
    DeadlineTransport,
    Glitch,
    httpx,
)
from .usage import STORY_USAGE, LLMUsage, collect_usage

__all__ = [
    "MODES",
    "MODE_MAP",
    "STORY_USAGE",
    "LLMClient",
    "LLMSettings",
    "LLMUsage",
    "Mode",
    "Request",
    "collect_usage",
    "make_client",
    "model_path",
    "open_cache",
    "reply_text",
    "schema_sha",
    "validation_text",
]

T = TypeVar("T")
Mode = Literal["tools", "json_schema", "json_object"]
MODES: tuple[str, ...] = ("tools", "json_schema", "json_object")
MODE_MAP: dict[str, instructor.Mode] = {
    "tools": instructor.Mode.TOOLS,
    "json_schema": instructor.Mode.JSON_SCHEMA,
    # llama.cpp's json_object takes the schema beside the type: sent in extra_body.
    "json_object": instructor.Mode.JSON_SCHEMA,
}
"""Our mode name to instructor's (``json_object`` replaces ``response_format`` itself)."""
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
    """Seconds one HTTP request may take in total (connecting: at most 10)."""
    max_retries: int = Field(default=2, ge=0)
    """Re-asks after output that fails validation."""
    transient_retries: int = Field(default=2, ge=0)
    """Retries after a rate limit, a 5xx answer, a timeout or a garbled 200 answer."""
    max_tokens: int = Field(default=4096, ge=16)
    """The most tokens one completion may generate."""
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    batch_out: Path | None = None
    """Write uncached requests to this OpenAI Batch API input file instead of calling."""

    @classmethod
    def resolve(
        cls,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        mode: str | None = None,
        batch_out: str | Path | None = None,
        **settings: Any,
    ) -> LLMSettings:
        """Merge arguments with the environment; raise if no endpoint is configured.

        A batch run (``batch_out``) calls no server, so it needs only the model name.

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
        batch_out = batch_out or env.get("BELIEFGRAPH_LLM_BATCH_OUT") or None
        missing = []
        if not base_url and not api_key and not batch_out:
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
                batch_out=Path(batch_out).expanduser() if batch_out else None, **settings,
            )  # fmt: skip
        except ValidationError as err:
            raise LLMConfigurationError(f"bad LLM setting: {err}") from None


@dataclass(frozen=True)
class Request:
    """One extraction: the prompt behind it, the messages, and how to check the reply."""

    prompt: Prompt | str
    """The template (its id and text hash are in the cache key), or just an id."""
    messages: tuple[dict[str, str], ...]
    context: dict[str, Any] = field(default_factory=dict)
    """The validation context the reply model's validators read."""
    checks: tuple[Callable[[Any], str | None], ...] = ()
    """Extra validators: a returned string is an error sent back to the model."""
    response_model: Any = StoryParse
    """A pydantic model, or ``str`` for plain text."""
    max_tokens: int | None = None
    """A tighter limit than the settings' for this request."""

    @property
    def prompt_id(self) -> str:
        return self.prompt.id if isinstance(self.prompt, Prompt) else self.prompt

    @property
    def prompt_sha(self) -> str:
        return self.prompt.sha if isinstance(self.prompt, Prompt) else ""


# instructor logs every failed attempt at ERROR; the errors reach callers as exceptions, so
# keep its records off stderr unless the application configures logging.
logging.getLogger("instructor").addHandler(logging.NullHandler())

_CURRENT: contextvars.ContextVar[LLMUsage | None] = contextvars.ContextVar(
    "beliefgraph_llm_usage", default=None
)

_MODELS: dict[str, type[BaseModel]] = {}
"""Reply models seen in this process, by ``model_path`` (the batch importer looks here)."""


def seen_reply_model(path: str) -> type[BaseModel] | None:
    """The reply model named ``path`` (``model_path``) if this process has asked for one."""
    return _MODELS.get(path)


def model_path(response_model: Any) -> str:
    """``module:QualName`` of a reply model, ``str`` for plain text.

    Examples
    --------
    >>> model_path(StoryParse), model_path(str)
    ('beliefgraph.parsers.llm.schema:StoryParse', 'str')
    """
    if response_model is str:
        return "str"
    return f"{response_model.__module__}:{response_model.__qualname__}"


@functools.cache
def schema_sha(response_model: Any) -> str:
    """A short hash of the reply model's JSON schema (``text`` for plain text)."""
    if response_model is str:
        return "text"
    blob = json.dumps(response_model.model_json_schema(), sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@functools.cache
def _checked(response_model: type[BaseModel]) -> type[BaseModel]:
    """``response_model`` with the context's ``checks`` run after its own validators.

    ``StoryParse`` runs them itself (with its own problems, in one message).
    """
    if getattr(response_model, "runs_checks", False):
        return response_model

    def run_checks(self: Any, info: Any) -> Any:
        for check in (info.context or {}).get("checks", ()):
            if message := check(self):
                raise ValueError(message)
        return self

    return create_model(  # type: ignore[call-overload,no-any-return]
        response_model.__name__,
        __base__=response_model,
        __module__=response_model.__module__,
        __validators__={"_run_checks": model_validator(mode="after")(run_checks)},
    )


class _Transient(Exception):
    def __init__(self, error: LLMError, retry_after: float | None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class _Miss:
    pass


@dataclass
class _FailedBatch:
    """A batch answer from the cache that failed its checks (``LLMClient._reask``)."""

    error: ParserRetryExhausted


_REASK = "Validation Error found:\n"
_TEXT_REASK = "Please correct your answer: "


def validation_text(err: BaseException) -> str:
    """The errors of a rejected reply as the model is told them, in pydantic's layout but
    with nothing that depends on the installed pydantic version.

    A batch re-ask carries this text, so it is part of the re-ask's cache key: pydantic's
    own rendering (``str(err)``) ends each error with a documentation link naming its minor
    version (``errors.pydantic.dev/2.13/...``) and a truncated repr of the input, so a
    recorded re-ask answer would stop replaying under another pydantic. The rows come from
    ``err.errors()`` without url, input or context; the input is the answer the model just
    gave, which the re-ask carries whole. Anything but a ``ValidationError`` (a check on a
    plain-text reply) is its own message.

    Examples
    --------
    >>> from pydantic import BaseModel
    >>> class Move(BaseModel):
    ...     obj: str
    >>> try:
    ...     Move.model_validate({"obj": None})
    ... except ValidationError as err:
    ...     print(validation_text(err))
    1 validation error for Move
    obj
      Input should be a valid string [type=string_type]
    """
    if not isinstance(err, ValidationError):
        return str(err)
    rows = err.errors(include_url=False, include_context=False, include_input=False)
    lines = [f"{len(rows)} validation error{'' if len(rows) == 1 else 's'} for {err.title}"]
    for row in rows:
        if row["loc"]:  # a model-level error has none, and pydantic prints no line for it
            lines.append(".".join(str(part) for part in row["loc"]))
        lines.append(f"  {row['msg']} [type={row['type']}]")
    return "\n".join(lines)


def _reasks_in(request: Request) -> int:
    """How many re-asks ``request``'s messages already carry (the user turns that follow an
    assistant turn with the client's re-ask words)."""
    msgs = request.messages
    return sum(
        1 for prev, m in itertools.pairwise(msgs)
        if prev["role"] == "assistant" and m["role"] == "user"
        and m["content"].startswith((_REASK, _TEXT_REASK))
    )  # fmt: skip


def _reply_raw(reply: Any) -> str:
    """A stored reply as the model's text: plain text as is, JSON data as JSON."""
    return reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)


_MISS = _Miss()


class LLMClient:
    """Sync and async extraction of any reply type, with caching, retries and counting.

    Parameters
    ----------
    settings : LLMSettings
        Endpoint, model, mode, limits, and ``batch_out``.
    cache : LLMCache, optional
        Where answers are kept; None disables caching (a batch run needs it).

    Examples
    --------
    >>> s = LLMSettings.resolve(base_url="http://127.0.0.1:9/v1", model="m")
    >>> LLMClient(s).settings.mode
    'tools'
    """

    def __init__(self, settings: LLMSettings, cache: LLMCache | None = None) -> None:
        if settings.batch_out is not None and cache is None:
            raise LLMConfigurationError(
                f"batch_out={str(settings.batch_out)!r} needs the answer cache (the importer "
                "stores the answers there); drop cache=False"
            )
        self.settings = settings
        self.cache = cache
        self.usage = LLMUsage()
        timeout = httpx.Timeout(settings.timeout, connect=min(settings.timeout, 10.0))
        self._common: dict[str, Any] = {
            "base_url": settings.base_url, "api_key": settings.api_key, "timeout": timeout,
            "max_retries": 0,
        }  # fmt: skip
        transport: Any
        if settings.batch_out is not None:
            transport = CaptureTransport()
        else:
            transport = DeadlineTransport(httpx.HTTPTransport(), settings.timeout)
        self._openai = openai.OpenAI(
            **self._common, http_client=openai.DefaultHttpxClient(transport=transport)
        )
        self._sync = self._instructor(self._openai)
        self._async: Any = None
        self._async_raw: openai.AsyncOpenAI | None = None
        self._async_loop: asyncio.AbstractEventLoop | None = None

    def _instructor(self, client: openai.OpenAI | openai.AsyncOpenAI) -> Any:
        wrapped = instructor.from_openai(client, mode=MODE_MAP[self.settings.mode])
        wrapped.on("completion:response", _count_response)
        wrapped.on("completion:error", _count_error)
        return wrapped

    def _async_client(self) -> tuple[Any, openai.AsyncOpenAI]:
        """The async clients of the running loop (pooled connections belong to one loop)."""
        loop = asyncio.get_running_loop()
        if self._async is None or self._async_loop is not loop:
            transport: Any
            if self.settings.batch_out is not None:
                transport = CaptureTransport()
            else:
                transport = AsyncDeadlineTransport(
                    httpx.AsyncHTTPTransport(), self.settings.timeout
                )
            raw = openai.AsyncOpenAI(
                **self._common, http_client=openai.DefaultAsyncHttpxClient(transport=transport)
            )
            self._async, self._async_raw, self._async_loop = self._instructor(raw), raw, loop
        assert self._async_raw is not None
        return self._async, self._async_raw

    # -- public --------------------------------------------------------------------------
    @overload
    def extract(
        self, response_model: type[str], messages: Sequence[Mapping[str, str]], **kw: Any
    ) -> str: ...
    @overload
    def extract(
        self, response_model: type[T], messages: Sequence[Mapping[str, str]], **kw: Any
    ) -> T: ...
    def extract(
        self,
        response_model: Any,
        messages: Sequence[Mapping[str, str]],
        *,
        context: Mapping[str, Any] | None = None,
        checks: Sequence[Callable[[Any], str | None]] = (),
        prompt: Prompt | str | None = None,
        max_tokens: int | None = None,
    ) -> Any:
        """Ask for one reply of type ``response_model`` (or read it from the cache).

        Parameters
        ----------
        response_model : type
            A pydantic model the reply must validate into, or ``str`` for plain text.
        messages : sequence of dict
            Chat messages (``role``, ``content``); the text reaches the model verbatim.
        context : mapping, optional
            The validation context the model's validators read.
        checks : sequence of callables, optional
            ``check(reply) -> str | None``; a string is an error re-asked like any other.
        prompt : Prompt or str, optional
            The template (or an id such as ``"omnitom.judge.v1"``), part of the cache key
            and of a batch request's ``custom_id``.
        max_tokens : int, optional
            A tighter completion limit than the settings'.

        Returns
        -------
        response_model
            The validated reply.

        Raises
        ------
        ParserRetryExhausted
            Output still invalid after the re-asks (keeps the last completion).
        AnswerPending
            In a batch run (``batch_out``): the request was written to the batch file.
        LLMConnectionError, LLMTimeoutError, LLMRequestError
            The server is unreachable, too slow, or refuses the request.
        """
        return self.run(self.request(response_model, messages, context, checks, prompt,
                                     max_tokens))  # fmt: skip

    async def aextract(
        self,
        response_model: Any,
        messages: Sequence[Mapping[str, str]],
        *,
        context: Mapping[str, Any] | None = None,
        checks: Sequence[Callable[[Any], str | None]] = (),
        prompt: Prompt | str | None = None,
        max_tokens: int | None = None,
    ) -> Any:
        """The async ``extract`` (same cache, retries, deferral and errors)."""
        return await self.arun(self.request(response_model, messages, context, checks, prompt,
                                            max_tokens))  # fmt: skip

    @staticmethod
    def request(
        response_model: Any,
        messages: Sequence[Mapping[str, str]],
        context: Mapping[str, Any] | None = None,
        checks: Sequence[Callable[[Any], str | None]] = (),
        prompt: Prompt | str | None = None,
        max_tokens: int | None = None,
    ) -> Request:
        """The ``Request`` that ``extract`` runs (an id is made from the messages if none)."""
        msgs = tuple({"role": m["role"], "content": m["content"]} for m in messages)
        if prompt is None:
            blob = json.dumps([m for m in msgs if m["role"] == "system"], sort_keys=True)
            prompt = f"{model_path(response_model).rsplit(':', 1)[-1]}.{_sha(blob)[:8]}"
        return Request(prompt, msgs, dict(context or {}), tuple(checks), response_model, max_tokens)

    def run(self, request: Request) -> Any:
        """Run a prepared ``Request``; see ``extract``."""
        usage = LLMUsage()
        key, hit = self._cached(request, usage)
        if isinstance(hit, _FailedBatch):
            follow = self._reask(request, hit)
            try:
                return self.run(follow)
            except AnswerPending as pending:
                raise ReaskPending(hit.error, path=pending.path,
                                   custom_id=pending.custom_id) from None  # fmt: skip
        if not isinstance(hit, _Miss):
            self._account(usage)
            return hit
        token = _CURRENT.set(usage)
        started = time.monotonic()
        try:
            for attempt in range(self.settings.transient_retries + 1):
                try:
                    reply = self._once(request)
                    break
                except _Transient as t:
                    if attempt == self.settings.transient_retries:
                        raise t.error from t.__cause__
                    time.sleep(_backoff(attempt, t.retry_after))
        except Captured as captured:
            self._defer(key, request, captured, usage)
        except ParserRetryExhausted as err:
            self._store_failure(key, err)
            raise
        finally:
            usage.seconds = time.monotonic() - started
            _CURRENT.reset(token)
            self._account(usage)
        self._store(key, request, reply)
        return reply

    async def arun(self, request: Request) -> Any:
        """The async ``run``."""
        usage = LLMUsage()
        key, hit = self._cached(request, usage)
        if isinstance(hit, _FailedBatch):
            follow = self._reask(request, hit)
            try:
                return await self.arun(follow)
            except AnswerPending as pending:
                raise ReaskPending(hit.error, path=pending.path,
                                   custom_id=pending.custom_id) from None  # fmt: skip
        if not isinstance(hit, _Miss):
            self._account(usage)
            return hit
        token = _CURRENT.set(usage)
        started = time.monotonic()
        try:
            for attempt in range(self.settings.transient_retries + 1):
                try:
                    reply = await self._aonce(request)
                    break
                except _Transient as t:
                    if attempt == self.settings.transient_retries:
                        raise t.error from t.__cause__
                    await asyncio.sleep(_backoff(attempt, t.retry_after))
        except Captured as captured:
            self._defer(key, request, captured, usage)
        except ParserRetryExhausted as err:
            self._store_failure(key, err)
            raise
        finally:
            usage.seconds = time.monotonic() - started
            _CURRENT.reset(token)
            self._account(usage)
        self._store(key, request, reply)
        return reply

    def _account(self, usage: LLMUsage) -> None:
        self.usage = self.usage + usage
        if (story := STORY_USAGE.get()) is not None:
            story.add(usage)

    # -- one call (with instructor's re-asks) --------------------------------------------------
    def _kwargs(self, request: Request, note: str | None) -> dict[str, Any]:
        messages = [dict(m) for m in request.messages]
        if note:
            messages.append({"role": "user", "content": note})
        max_tokens = self.settings.max_tokens
        if request.max_tokens is not None:
            max_tokens = min(max_tokens, request.max_tokens)
        kwargs: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": max_tokens,
            "temperature": self.settings.temperature,
        }
        if request.response_model is str:
            kwargs["messages"] = messages  # no instructor, so no templating to shield from
            return kwargs
        model = _checked(request.response_model) if request.checks else request.response_model
        _MODELS.setdefault(model_path(request.response_model), request.response_model)
        # The context is never empty (it carries the checks), so instructor always renders
        # the messages and the shield always comes off: one rule, no half-shielded path.
        kwargs["messages"] = [_shield(m) for m in messages]
        kwargs["response_model"] = model
        kwargs["context"] = {**request.context, "checks": request.checks}
        if self.settings.mode == "json_object":
            schema = request.response_model.model_json_schema()
            kwargs["extra_body"] = {"response_format": {"type": "json_object", "schema": schema}}
        return kwargs

    def _once(self, request: Request) -> Any:
        if request.response_model is str:
            return self._text_once(request)
        attempts = self.settings.max_retries + 1
        note = None
        while True:
            try:
                reply, _completion = self._sync.create_with_completion(
                    max_retries=attempts - 1, **self._kwargs(request, note)
                )
                return reply
            except Exception as err:  # mapped to the package's errors below
                attempts, note = self._after_failure(err, attempts)

    async def _aonce(self, request: Request) -> Any:
        if request.response_model is str:
            return await self._atext_once(request)
        attempts = self.settings.max_retries + 1
        note = None
        while True:
            try:
                client, _ = self._async_client()
                reply, _completion = await client.create_with_completion(
                    max_retries=attempts - 1, **self._kwargs(request, note)
                )
                return reply
            except Exception as err:  # mapped to the package's errors below
                attempts, note = self._after_failure(err, attempts)

    def _text_once(self, request: Request) -> str:
        messages = list(request.messages)
        for attempt in range(self.settings.max_retries + 1):
            try:
                completion = self._openai.chat.completions.create(
                    **{**self._kwargs(request, None), "messages": messages}
                )
            except Exception as err:  # mapped to the package's errors below
                raise self._map(err, _cause(err)) from err
            text, problem = self._text_reply(request, completion)
            if problem is None:
                return text
            messages = self._text_reask(messages, text, problem, request, attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _atext_once(self, request: Request) -> str:
        messages = list(request.messages)
        for attempt in range(self.settings.max_retries + 1):
            try:
                _, raw = self._async_client()
                completion = await raw.chat.completions.create(
                    **{**self._kwargs(request, None), "messages": messages}
                )
            except Exception as err:  # mapped to the package's errors below
                raise self._map(err, _cause(err)) from err
            text, problem = self._text_reply(request, completion)
            if problem is None:
                return text
            messages = self._text_reask(messages, text, problem, request, attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def _text_reply(self, request: Request, completion: Any) -> tuple[str, str | None]:
        usage = _CURRENT.get()
        if usage is not None:
            _count_response(completion)
        try:
            text = completion.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            text = None
        if not isinstance(text, str) or not text.strip():
            raise _Transient(self._glitch("an answer with no text"), None)
        for check in request.checks:
            if problem := check(text):
                return text, problem
        return text, None

    def _text_reask(
        self, messages: list[dict[str, str]], text: str, problem: str, request: Request,
        attempt: int,
    ) -> list[dict[str, str]]:  # fmt: skip
        if attempt == self.settings.max_retries:
            n = attempt + 1
            raise ParserRetryExhausted(
                f"the model's answer was still rejected after {n} attempt(s): {problem}",
                errors=problem, raw=text, n_attempts=n,
            )  # fmt: skip
        return [*messages, {"role": "assistant", "content": text},
                {"role": "user", "content": f"{_TEXT_REASK}{problem}"}]  # fmt: skip

    def _glitch(self, what: str) -> LLMRequestError:
        where = self.settings.base_url or "the OpenAI API"
        return LLMRequestError(
            f"the LLM server at {where} sent {what} (HTTP 200); a glitch, retried and never cached",
            status=200,
        )

    def _after_failure(self, err: Exception, attempts: int) -> tuple[int, str]:
        """Map ``err``; a cut-off answer is re-asked (as a fresh try) while attempts remain."""
        cause = _cause(err)
        if isinstance(cause, Captured):
            raise cause
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
        if isinstance(cause, Captured):
            return cause
        if isinstance(cause, Glitch):
            return _Transient(self._glitch(f"a body that is not a chat completion ({cause})"), None)
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
        if _is_glitch(err, cause):
            return _Transient(self._glitch("a body that is not a chat completion"), None)
        if isinstance(err, InstructorRetryException):
            last = err.last_completion
            errors = validation_text(cause if cause is not None else err)
            attempts = max(_attempts_so_far(), err.n_attempts)
            return ParserRetryExhausted(
                f"the model's output was still invalid after {attempts} attempt(s); "
                f"last errors: {errors[:2000]}",
                errors=errors, raw=_raw_text(last), last_completion=last,
                n_attempts=attempts,
            )  # fmt: skip
        if isinstance(err, _Transient | LLMError):
            return err
        return LLMError(f"the LLM call failed: {type(err).__name__}: {err}")

    # -- cache and batch ---------------------------------------------------------------------
    def key(self, request: Request) -> str:
        """The cache key of ``request``: model, mode, prompt, schema, settings and text."""
        s = self.settings
        max_tokens = s.max_tokens
        if request.max_tokens is not None:
            max_tokens = min(max_tokens, request.max_tokens)
        return cache_key(
            model=s.model, base_url=s.base_url, mode=s.mode, prompt=request.prompt_id,
            prompt_sha=request.prompt_sha, schema=schema_sha(request.response_model),
            max_tokens=max_tokens, temperature=s.temperature, messages=request.messages,
            validation={k: v for k, v in request.context.items() if k != "sentences"},
            checks=[getattr(c, "__qualname__", repr(c)) for c in request.checks],
        )  # fmt: skip

    def _cached(self, request: Request, usage: LLMUsage) -> tuple[str, Any]:
        """The cached reply, or ``_MISS``; a cached failure is raised again (counted), and a
        batch answer that fails its checks is returned as ``_FailedBatch`` while the re-asks
        a live run would send are left (``_reask``)."""
        key = self.key(request)
        if self.cache is None:
            return key, _MISS
        raw = self.cache.get(key)
        if raw is None:
            return key, _MISS
        record: dict[str, Any] = {}
        try:
            record = json.loads(raw)
            if "failure" in record:
                failed = record["failure"]
                usage.cached += 1
                self._account(usage)
                err = ParserRetryExhausted(
                    failed["message"] + " (cached; pass cache=False to call the model again)",
                    errors=failed["errors"],
                    raw=failed["raw"],
                    n_attempts=failed["n_attempts"],
                )
                if record.get("batch") and self._reasks_left(request):
                    return key, _FailedBatch(err)
                raise err
            reply = _revalidate(request, record)
        except (ValidationError, ValueError, KeyError, TypeError) as err:
            if isinstance(err, ParserRetryExhausted):
                raise
            if self.settings.batch_out is not None and record.get("batch"):
                # A batch answer the full checks reject (names, sentence numbers): as a
                # live run would, the model is re-asked with the errors, in the next round.
                usage.cached += 1
                self._account(usage)
                errors = validation_text(err)
                failed = ParserRetryExhausted(
                    f"the batch answer for {record['batch']} fails validation: {errors}",
                    errors=errors, raw=_reply_raw(record.get("reply")), n_attempts=1,
                    reask=False,
                )  # fmt: skip
                if self._reasks_left(request):
                    return key, _FailedBatch(failed)
                raise failed from None
            return key, _MISS  # stale: the validators or the format changed since
        usage.cached += 1
        return key, reply

    def _reasks_left(self, request: Request) -> bool:
        """Whether a failed batch answer to ``request`` may still be re-asked: as many
        re-asks as a live run makes (``max_retries``)."""
        return _reasks_in(request) < self.settings.max_retries

    def _reask(self, request: Request, failed: _FailedBatch) -> Request:
        """The re-ask a live run sends after ``failed``: the model's answer, then the errors
        (the words instructor uses for a structured reply; for plain text, the client's own
        ``_text_reask``). The follow-up is a request of its own, with its own cache key and
        ``custom_id``; it is looked up in the cache and, when missing, written to the batch
        file for the next round (or, with no batch file, the failure stands)."""
        err = failed.error
        if request.response_model is str:
            note = f"{_TEXT_REASK}{err.errors}"
        else:
            note = f"{_REASK}{err.errors}\nRecall the function correctly, fix the errors"
        messages = (*request.messages, {"role": "assistant", "content": err.raw},
                    {"role": "user", "content": note})  # fmt: skip
        follow = dataclasses.replace(request, messages=messages)
        if self.settings.batch_out is None and (
            self.cache is None or self.cache.get(self.key(follow)) is None
        ):
            raise err  # a cache replayed with no batch file: nothing to ask, no network
        return follow

    def _store(self, key: str, request: Request, reply: Any) -> None:
        if self.cache is not None:
            self.cache.set(key, json.dumps({"reply": reply_json(reply)}), model=self.settings.model)

    def _store_failure(self, key: str, err: ParserRetryExhausted) -> None:
        """Keep a definitive failure: at temperature 0 a rerun would fail the same way."""
        if self.cache is not None and self.settings.temperature == 0:
            failure = {
                "message": str(err), "errors": err.errors, "raw": err.raw,
                "n_attempts": err.n_attempts,
            }  # fmt: skip
            self.cache.set(key, json.dumps({"failure": failure}), model=self.settings.model)

    def _defer(self, key: str, request: Request, captured: Captured, usage: LLMUsage) -> None:
        """Write the captured request to the batch file (once per key) and say so."""
        from .batchfile import defer

        assert self.settings.batch_out is not None and self.cache is not None
        custom_id = defer(
            self.settings.batch_out, self.cache, key=key, body=captured.body,
            meta={
                "model": self.settings.model, "mode": self.settings.mode,
                "prompt": request.prompt_id, "prompt_sha": request.prompt_sha,
                "response_model": model_path(request.response_model),
                "schema": schema_sha(request.response_model),
            },
        )  # fmt: skip
        usage.deferred += 1
        raise AnswerPending(
            f"answer pending in batch file {self.settings.batch_out} (custom_id {custom_id}); "
            "have a model answer it, then `beliefgraph llm import RESULTS.jsonl --cache "
            f"{self.cache.path}` and run again",
            path=self.settings.batch_out,
            custom_id=custom_id,
        )


def _revalidate(request: Request, record: dict[str, Any]) -> Any:
    value = record["reply"] if "reply" in record else record["parse"]  # "parse": older files
    if request.response_model is str:
        if not isinstance(value, str):
            raise TypeError("a cached text answer is not a string")
        for check in request.checks:
            if problem := check(value):
                raise ValueError(problem)
        return value
    model = _checked(request.response_model) if request.checks else request.response_model
    return model.model_validate(value, context={**request.context, "checks": request.checks})


def reply_json(reply: Any) -> Any:
    """A reply as the cache stores it: plain text as is, a model as its JSON data."""
    return reply if isinstance(reply, str) else reply.model_dump(mode="json")


def make_client(*, cache: LLMCache | str | Path | bool | None = None, **settings: Any) -> LLMClient:
    """An ``LLMClient`` from keyword settings and the environment (as the parser builds one).

    ``settings`` are ``LLMSettings.resolve``'s (``base_url``, ``model``, ``mode``,
    ``batch_out``, ``timeout``, ...); ``cache`` as in ``open_cache``.

    Raises
    ------
    LLMConfigurationError
        When no endpoint or model is configured, or for a setting it does not know.

    Examples
    --------
    >>> make_client(base_url="http://127.0.0.1:9/v1", model="m", cache=False).cache is None
    True
    """
    try:
        resolved = LLMSettings.resolve(**settings)
    except TypeError as err:
        raise LLMConfigurationError(f"bad LLM setting: {err}") from None
    return LLMClient(resolved, open_cache(cache, batch_out=resolved.batch_out))


def open_cache(
    cache: LLMCache | str | Path | bool | None, *, batch_out: str | Path | None = None
) -> LLMCache | None:
    """``None``/``True``: the default file (for a batch run, ``batch_cache_path``: beside
    the batch file unless ``BELIEFGRAPH_LLM_CACHE`` is set); ``False``: no cache; a path or
    an ``LLMCache``."""
    if cache is False:
        return None
    if isinstance(cache, LLMCache):
        return cache
    if cache is None or cache is True:
        return LLMCache(batch_cache_path(batch_out) if batch_out else default_cache_path())
    return LLMCache(cache)


# -- helpers ---------------------------------------------------------------------------------
def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _cause(err: BaseException) -> BaseException | None:
    """The innermost meaningful cause: a captured request, else instructor's cause."""
    seen: set[int] = set()
    node: BaseException | None = err
    while node is not None and id(node) not in seen:
        if isinstance(node, Captured | Glitch):
            return node
        seen.add(id(node))
        node = node.__cause__ or node.__context__
    return err.__cause__ if isinstance(err, InstructorRetryException) else err


def _is_glitch(err: BaseException, cause: BaseException | None) -> bool:
    """An HTTP 200 whose body is empty or not a chat completion (not the model's fault)."""
    for e in (err, cause):
        if isinstance(e, openai.APIResponseValidationError | json.JSONDecodeError):
            return True
    if isinstance(err, InstructorRetryException):
        last = err.last_completion
        if last is None or isinstance(last, str) or not getattr(last, "choices", None):
            return True
    return False


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
    if usage is not None and not isinstance(_cause(error), Captured):
        usage.calls += 1


_ENDRAW = re.compile(r"\{%[-+]?\s*endraw\s*[-+]?%\}")


def _shield(message: Mapping[str, str]) -> dict[str, str]:
    """Shield text from instructor's Jinja templating (it renders messages with context).

    The text goes inside a raw block; an ``endraw`` tag in the text itself is closed over
    and printed as a string literal, so the model receives the text unchanged.

    Examples
    --------
    >>> from jinja2 import Template
    >>> text = "a {{ b }} {% endraw %} c"
    >>> Template(_shield({"content": text})["content"]).render() == text
    True
    """
    content = message.get("content") or ""
    content = _ENDRAW.sub(lambda m: "{% endraw %}{{ " + repr(m.group(0)) + " }}{% raw %}", content)
    return {**message, "content": "{% raw %}" + content + "{% endraw %}"}


def reply_text(completion: Any) -> str:
    """The text a completion carries: its tool-call arguments or its message content.

    Takes an ``openai`` ``ChatCompletion`` or the same as a dict (a batch result's body).

    Examples
    --------
    >>> body = {"choices": [{"message": {"content": None, "tool_calls": [
    ...     {"function": {"name": "f", "arguments": '{"a": 1}'}}]}}]}
    >>> reply_text(body)
    '{"a": 1}'
    """
    if isinstance(completion, dict):
        try:
            message = completion["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            return ""
        calls = message.get("tool_calls") or []
        if calls:
            return "".join((c.get("function") or {}).get("arguments") or "" for c in calls)
        return message.get("content") or ""
    try:
        msg = completion.choices[0].message
    except (AttributeError, IndexError, TypeError):
        return ""
    tool_calls = getattr(msg, "tool_calls", None) or []
    if tool_calls:
        return "".join(c.function.arguments or "" for c in tool_calls)
    return msg.content or ""


_raw_text = reply_text


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
    """Seconds from a ``Retry-After`` header (a number or an HTTP date); garbage is None."""
    value = err.response.headers.get("retry-after") if err.response is not None else None
    return parse_retry_after(value)


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds; None for a missing, negative, infinite or unreadable value.

    Examples
    --------
    >>> parse_retry_after("2"), parse_retry_after("-1"), parse_retry_after("nan")
    (2.0, None, None)
    >>> parse_retry_after("soon") is None, parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT")
    (True, 0.0)
    """
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        return max(0.0, when.timestamp() - time.time())
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds


def _backoff(attempt: int, retry_after: float | None) -> float:
    if retry_after is not None:
        return min(retry_after, 60.0)
    return min(0.5 * 2**attempt, 8.0)
