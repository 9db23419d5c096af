"""Batch files in the OpenAI Batch API's JSONL format: write requests, import answers.

A client with ``batch_out`` (``LLMSettings.batch_out``, ``BELIEFGRAPH_LLM_BATCH_OUT``,
``--batch-out``) sends nothing: each request not already in the cache is appended once to
that file as ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``,
the body exactly what the client would have sent, and the caller gets ``AnswerPending``.
The cache keeps a ``pending`` row per request (its key, schema, model, prompt version).

``import_results(path, cache)`` (``beliefgraph llm import RESULTS.jsonl``) reads a batch
output file: for each line, it finds the request by ``custom_id``, takes the answer (a
chat completion whose message has tool-call ``arguments`` or JSON ``content``; the text
itself for a plain-text request), validates it against the request's schema and stores it
in the cache; a reply failing its schema is stored as a failure. Every problem (malformed
line, unknown ``custom_id``, an error line, an answer from another model or for another
prompt version, a failing schema) is reported by line and ``custom_id``, and the valid
lines are stored whatever the others hold. A rerun then replays from the cache.
``export_pending`` writes the unanswered requests again (``beliefgraph llm export``).

``custom_id`` is ``PROMPT_ID:KEY32`` (the prompt id and version, then 32 hex digits of the
cache key), which stays under the Batch API's 64-character limit for our prompt ids.

Limits: a reply is checked here against its schema only; the checks that need the story
(names, sentence numbers) run when the rerun reads it from the cache, where a failure is
reported like an exhausted re-ask (a batch has no live re-ask).
"""

from __future__ import annotations

import importlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .cache import LLMCache

__all__ = ["ImportReport", "defer", "export_pending", "import_results", "write_split"]

_URL = "/v1/chat/completions"
_lock = threading.Lock()
_written: dict[str, set[str]] = {}
"""custom_ids already in each batch file (read once per process, then kept up to date)."""


def _custom_id(prompt: str, key: str) -> str:
    return f"{prompt[:30]}:{key[:32]}"


def _line(custom_id: str, body: dict[str, Any]) -> str:
    return json.dumps(
        {"custom_id": custom_id, "method": "POST", "url": _URL, "body": body},
        ensure_ascii=False,
    )


def _ids_in(path: Path) -> set[str]:
    ids: set[str] = set()
    if not path.exists():
        return ids
    with path.open(encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            try:
                ids.add(json.loads(raw)["custom_id"])
            except (ValueError, KeyError, TypeError):
                continue  # not ours to judge here; the importer reports bad lines
    return ids


def defer(path: Path, cache: LLMCache, *, key: str, body: dict[str, Any],
          meta: dict[str, Any]) -> str:  # fmt: skip
    """Append the request to ``path`` unless it is there already; return its ``custom_id``."""
    custom_id = _custom_id(str(meta.get("prompt", "request")), key)
    meta = {**meta, "custom_id": custom_id, "batch_file": str(path)}
    cache.add_pending(custom_id, key, json.dumps(body), json.dumps(meta))
    with _lock:
        name = str(path.resolve())
        if name not in _written:
            _written[name] = _ids_in(path)
        if custom_id in _written[name]:
            return custom_id
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(_line(custom_id, body) + "\n")  # one write: whole lines only
        _written[name].add(custom_id)
    return custom_id


def export_pending(cache: LLMCache, out: Path, *, all_requests: bool = False) -> int:
    """Write the requests still unanswered (``all_requests``: every one) to ``out``."""
    rows = cache.pending_requests(unanswered=not all_requests)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for custom_id, body, _ in rows:
            fh.write(_line(custom_id, body) + "\n")
    with _lock:
        _written[str(out.resolve())] = {cid for cid, _, _ in rows}
    return len(rows)


def write_split(lines: list[str], out: Path, *, max_requests: int = 40) -> list[Path]:
    """Batch request ``lines`` as files of at most ``max_requests`` lines: ``out``, then
    ``out_2``, ``out_3``, ... (a batch answered by hand, or a provider's per-file limit).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> [p.name for p in write_split(["{}"] * 5, folder / "b.jsonl", max_requests=2)]
    ['b.jsonl', 'b_2.jsonl', 'b_3.jsonl']
    """
    if max_requests < 1:
        raise ValueError(f"max_requests must be at least 1, got {max_requests}")
    written = []
    for n in range(0, len(lines), max_requests):
        part = out.with_name(f"{out.stem}_{n // max_requests + 1}{out.suffix}") if n else out
        part.write_text("\n".join(lines[n : n + max_requests]) + "\n", encoding="utf-8")
        written.append(part)
    return written


@dataclass
class ImportReport:
    """What an import stored and what it could not, line by line."""

    stored: int = 0
    """Valid answers stored."""
    failures: list[tuple[int, str, str]] = field(default_factory=list)
    """``(line, custom_id, why)``: answers that failed their schema (stored as failures)."""
    problems: list[tuple[int, str, str]] = field(default_factory=list)
    """``(line, custom_id or "", why)``: lines not stored at all."""

    @property
    def ok(self) -> bool:
        return not self.failures and not self.problems

    def lines(self) -> list[str]:
        """One human-readable line per failure and problem, in file order."""
        rows = [(n, cid, f"answer fails its schema (stored as a failure): {why}")
                for n, cid, why in self.failures]  # fmt: skip
        rows += self.problems
        return [f"line {n}: {cid or '-'}: {why}" for n, cid, why in sorted(rows)]


def _resolve_model(path: str, models: dict[str, Any]) -> Any:
    """The reply model a pending row names: ``str``, one seen in this process, or one of
    beliefgraph's own (imported by name; nothing outside the package is imported)."""
    if path == "str":
        return str
    if path in models:
        return models[path]
    from .client import seen_reply_model

    seen = seen_reply_model(path)
    if seen is not None:
        return seen
    module, _, qualname = path.partition(":")
    if not (module == "beliefgraph" or module.startswith("beliefgraph.")):
        raise LookupError(
            f"the reply model {path} is not one of beliefgraph's; pass it to "
            "import_results(models={...})"
        )
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if not (isinstance(obj, type) and issubclass(obj, BaseModel)):
        raise LookupError(f"{path} is not a pydantic model")
    return obj


def _model_matches(asked: str, answered: Any) -> bool:
    """An answer's ``model`` may name a dated snapshot of the model asked for."""
    if not isinstance(answered, str) or not answered:
        return True  # servers that omit it are not penalised
    return answered == asked or answered.startswith(asked + "-")


def import_results(
    path: Path, cache: LLMCache, *, models: dict[str, Any] | None = None
) -> ImportReport:
    """Validate each line of a batch output file against its request and store it.

    Parameters
    ----------
    path : Path
        The Batch API's output JSONL (one ``{"custom_id", "response": {"status_code",
        "body"}, "error"}`` per line).
    cache : LLMCache
        The cache the batch run wrote its pending requests to.
    models : dict, optional
        ``model_path -> class`` for reply models outside beliefgraph.

    Returns
    -------
    ImportReport
    """
    from .client import reply_json, reply_text, schema_sha, validation_text

    report = ImportReport()
    models = models or {}
    prompts = {meta.get("prompt", "") for _, _, meta in cache.pending_requests(unanswered=False)}
    with path.open(encoding="utf-8", errors="replace") as fh:
        for n, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
                if not isinstance(line, dict):
                    raise ValueError("not a JSON object")
            except ValueError as err:
                report.problems.append((n, "", f"malformed line ({err}); expected a JSON object"))
                continue
            custom_id = line.get("custom_id")
            if not isinstance(custom_id, str):
                report.problems.append((n, "", "no custom_id"))
                continue
            found = cache.pending(custom_id)
            if found is None:
                report.problems.append((n, custom_id, _unknown(custom_id, prompts)))
                continue
            key, _, meta = found
            why = _answer_problem(line, meta)
            if why:
                report.problems.append((n, custom_id, why))
                continue
            body = line["response"]["body"]
            text = reply_text(body)
            try:
                model = _resolve_model(meta["response_model"], models)
            except (LookupError, ImportError, AttributeError) as err:
                report.problems.append((n, custom_id, f"cannot validate: {err}"))
                continue
            if model is not str and schema_sha(model) != meta.get("schema"):
                report.problems.append((n, custom_id, (
                    f"the schema of {meta['response_model']} changed since the request was "
                    "written; run again with --batch-out to write it anew")))  # fmt: skip
                continue
            record: dict[str, Any]
            if model is str:
                if not text.strip():
                    report.failures.append((n, custom_id, "an empty answer"))
                    record = _failure(custom_id, "an empty answer", text)
                else:
                    record = {"reply": text, "batch": custom_id}
            else:
                try:
                    reply = model.model_validate_json(text)
                    record = {"reply": reply_json(reply), "batch": custom_id}
                except ValidationError as err:
                    errors = validation_text(err)  # the re-ask's words: no pydantic version
                    report.failures.append((n, custom_id, errors.splitlines()[0][:300]))
                    record = _failure(custom_id, errors, text)
            cache.set(key, json.dumps(record), model=str(meta.get("model", "")))
            if "reply" in record:
                report.stored += 1
    return report


def _failure(custom_id: str, errors: str, raw: str) -> dict[str, Any]:
    return {"failure": {
        "message": f"the batch answer {custom_id} failed validation: {errors[:2000]}",
        "errors": errors, "raw": raw, "n_attempts": 1,
    }, "batch": custom_id}  # fmt: skip


def _unknown(custom_id: str, prompts: set[str]) -> str:
    prompt = custom_id.rpartition(":")[0]
    family = prompt.rsplit(".", 1)[0]
    same_family = sorted(p for p in prompts if p != prompt and p.rsplit(".", 1)[0] == family)
    if prompt and same_family:
        return (
            f"written for prompt {prompt}; this cache's requests use {', '.join(same_family)} "
            "(the prompt changed): run again with --batch-out and answer the new file"
        )
    return "unknown custom_id: no request of this cache has it (another cache, or edited?)"


def _answer_problem(line: dict[str, Any], meta: dict[str, Any]) -> str | None:
    """Why a result line carries no usable answer, or None."""
    if line.get("error"):
        return f"the batch reported an error: {json.dumps(line['error'])[:300]}"
    response = line.get("response")
    if not isinstance(response, dict) or not isinstance(response.get("body"), dict):
        return "no response body (expected response.body, a chat completion)"
    status = response.get("status_code", 200)
    if status != 200:
        return f"the request failed with HTTP {status}: {json.dumps(response['body'])[:300]}"
    body = response["body"]
    if not _model_matches(str(meta.get("model", "")), body.get("model")):
        return (
            f"answered by model {body.get('model')!r}, but the request was for "
            f"{meta.get('model')!r}: not stored (the rerun asks for {meta.get('model')!r})"
        )
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return "the body has no choices (expected a chat.completion)"
    if choices[0].get("finish_reason") == "length":
        return "the answer was cut off at max_tokens (finish_reason=length)"
    return None
