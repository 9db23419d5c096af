"""Parse many texts concurrently, with a bounded number of calls in flight.

``aparse_batch`` runs ``parser.aparse`` on every text with at most ``concurrency`` at once;
rate limits, 5xx answers and timeouts are retried inside the client, cached texts cost no
call, and a rich progress bar (on stderr) counts the stories done. ``parse_batch`` is the
same from synchronous code. Results come back in input order, with each story's usage.

Limits: one event loop per ``parse_batch`` call (do not call it from inside a running loop;
await ``aparse_batch`` there); an error in one story does not stop the others.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from beliefgraph.models import ParsedStory

from .client import LLMUsage, collect_usage

__all__ = ["AsyncParser", "BatchResult", "aparse_batch", "parse_batch"]


class AsyncParser(Protocol):
    """Anything with ``async aparse(text) -> ParsedStory`` (``LLMParser``, ``AutoParser``)."""

    async def aparse(self, text: str) -> ParsedStory: ...


@dataclass
class BatchResult:
    """Per input text, in order: the story (None on error), the error, and the usage."""

    stories: list[ParsedStory | None]
    errors: list[BaseException | None]
    usage: list[LLMUsage]
    seconds: float = 0.0
    """Wall time of the whole batch."""
    total: LLMUsage = field(default_factory=LLMUsage)
    """Everything spent."""

    @property
    def ok(self) -> bool:
        """True when every text parsed."""
        return all(e is None for e in self.errors)

    def raise_first(self) -> list[ParsedStory]:
        """The stories, or the first error raised (annotated with its input's position)."""
        for i, err in enumerate(self.errors):
            if err is not None:
                err.add_note(f"(batch input {i})")
                raise err
        return [s for s in self.stories if s is not None]


async def aparse_batch(
    parser: AsyncParser,
    texts: Sequence[str],
    *,
    concurrency: int = 4,
    progress: bool = True,
) -> BatchResult:
    """Parse ``texts`` with at most ``concurrency`` stories in flight.

    Parameters
    ----------
    parser : LLMParser or AutoParser
        Any object with ``async aparse(text)``.
    texts : sequence of str
        The stories or transcripts.
    concurrency : int
        The most stories parsed at once (each makes one call at a time).
    progress : bool
        Show a progress bar on stderr.

    Returns
    -------
    BatchResult
    """
    if concurrency < 1:
        from .errors import LLMConfigurationError

        raise LLMConfigurationError(f"concurrency must be >= 1, got {concurrency}")
    n = len(texts)
    stories: list[ParsedStory | None] = [None] * n
    errors: list[BaseException | None] = [None] * n
    usage = [LLMUsage() for _ in range(n)]
    gate = asyncio.Semaphore(concurrency)
    started = time.monotonic()
    bar = Progress(
        TextColumn("[bold]parsing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), disable=not progress, transient=True,
    )  # fmt: skip

    async def one(i: int, text: str, task: object) -> None:
        async with gate:
            with collect_usage() as used:
                try:
                    stories[i] = await parser.aparse(text)
                except Exception as err:  # kept per input; see BatchResult.raise_first
                    errors[i] = err
            usage[i] = used
            bar.advance(task)  # type: ignore[arg-type]

    with bar:
        task = bar.add_task("parsing", total=n)
        await asyncio.gather(*(one(i, t, task) for i, t in enumerate(texts)))
    total = LLMUsage()
    for u in usage:
        total.add(u)
    return BatchResult(stories, errors, usage, time.monotonic() - started, total)


def parse_batch(
    parser: AsyncParser,
    texts: Sequence[str],
    *,
    concurrency: int = 4,
    progress: bool = True,
) -> BatchResult:
    """``aparse_batch`` from synchronous code (runs its own event loop).

    Examples
    --------
    >>> from beliefgraph.parsers.llm import LLMParser
    >>> p = LLMParser(base_url="http://127.0.0.1:9/v1", model="m", cache=False)
    >>> parse_batch(p, [], progress=False).stories
    []
    """
    return asyncio.run(aparse_batch(parser, texts, concurrency=concurrency, progress=progress))
