"""The same-model direct baseline, shared by the benchmarks: each benchmark's own prompt sent
through the run's LLM client, the reply scored by the benchmark's own scorer, no graph.

A benchmark supplies a ``DirectPrompt``: which items share a conversation (``story_key``),
how to ask them (``run``: the requests, in the benchmark paper's prompt format, through the
``ask`` callable given to it) and how to read a reply into the benchmark's own item result
(``score``). ``make_direct`` turns it into a harness ``Benchmark`` with the base adapter's
loader, breakdowns, metrics and headline, so the figures of ``evaluate(name, ...,
direct=True)`` print beside the graph path's.

The client is the run's parser's (``evaluate(parser="llm", parser_settings=...)`` or
``using_parser``), so its cache, retries, usage counts and ``batch_out`` apply: a batch run
writes the requests to the batch file and the items read "answer pending" until the results
are imported. Without a run parser the client is built from the environment
(``BELIEFGRAPH_LLM_BASE_URL``, ``BELIEFGRAPH_LLM_MODEL``, ...).

Requests are plain-text (``client.extract(str, messages, prompt=...)``): the benchmark's
prompt verbatim, the reply read as the paper's evaluator reads it. A conversation (CoMMET's
StoryTurns) asks one request per turn, each carrying the model's earlier replies, so it needs
one batch round per turn; one question per request (BigToM, OpenToM) needs one round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from beliefgraph.errors import BeliefGraphError, ConfigurationError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import ParseCost, ParsedStory

from .benchmark import Benchmark
from .item import Item, ItemResult

__all__ = ["Ask", "DirectPrompt", "QuestionPrompt", "direct_client", "import_rounds", "make_direct"]

Ask = Callable[[list[dict[str, str]]], str]
"""Send chat messages as one plain-text request; the model's reply."""


class DirectPrompt(Protocol):
    """A benchmark's own prompt and reader, for the direct baseline."""

    prompt_id: str
    """Part of each request's cache key and batch ``custom_id`` (e.g. ``bigtom.paper.v1``)."""

    def story_key(self, item: Item) -> str:
        """Items with the same key are asked in one ``run`` (one conversation)."""
        ...

    def run(self, item: Item, ask: Ask) -> Any:
        """Ask the model about ``item``'s story (the first item of its key); any state."""
        ...

    def score(self, item: Item, state: Any) -> ItemResult:
        """The item's result from the state ``run`` returned, by the benchmark's scorer."""
        ...


@dataclass(frozen=True)
class QuestionPrompt:
    """A ``DirectPrompt`` that asks one request per question and reads the reply into one of
    the item's options (SimpleToM, ToMBench): the paper's ``messages`` for an item, the
    paper's ``read`` of a reply (``None`` when it names no option) and the item's breakdown.
    """

    prompt_id: str
    messages: Callable[[Item], list[dict[str, str]]]
    read: Callable[[str, Item], str | None]
    breakdown: Callable[[Item], dict[str, str]]

    def story_key(self, item: Item) -> str:
        return item.id

    def run(self, item: Item, ask: Ask) -> str:
        return ask(self.messages(item))

    def score(self, item: Item, state: Any) -> ItemResult:
        reply = str(state)
        label = self.read(reply, item)
        if label is None:
            raise BeliefGraphError(f"the model's reply names no option: {reply[:200]!r}")
        return ItemResult(
            id=item.id,
            gold=item.answer,
            prediction=label,
            correct=label == item.answer,
            explanation=(f"Asked directly ({self.prompt_id}); the model replied {reply!r}.",),
            breakdown=self.breakdown(item),
        )


def direct_client(what: str = "the direct baseline") -> Any:
    """The LLM client of the run's parser, else one built from the environment.

    Raises
    ------
    ConfigurationError
        When no parser of the run has a client and no endpoint is configured.
    """
    from .reading import chosen_client

    client = chosen_client()
    if client is not None:
        return client
    from beliefgraph.parsers.llm import LLMClient, LLMConfigurationError, LLMSettings
    from beliefgraph.parsers.llm.client import open_cache

    try:
        settings = LLMSettings.resolve()
    except LLMConfigurationError as err:
        raise ConfigurationError(
            f"{what} asks a model: run it with parser='llm' and its settings, or configure an "
            f"endpoint ({err})"
        ) from None
    return LLMClient(settings, open_cache(None, batch_out=settings.batch_out))


class _DirectRun:
    def __init__(self, name: str, prompt: DirectPrompt) -> None:
        self.name = name
        self.prompt = prompt
        self.states: dict[str, Any] = {}
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = direct_client(f"the {self.name} direct baseline")
        return self._client

    def ask(self, messages: list[dict[str, str]]) -> str:
        return str(self.client.extract(str, messages, prompt=self.prompt.prompt_id))

    def build(self, item: Item) -> BeliefGraph:
        """Ask the model; the graph only carries the story and what the asking cost."""
        key = self.prompt.story_key(item)
        self.states.pop(key, None)
        before = _usage(self.client)
        self.states[key] = self.prompt.run(item, self.ask)
        spent = _usage(self.client)
        cost = ParseCost(**{k: spent[k] - before.get(k, 0) for k in spent})
        story = ParsedStory(
            text=item.story, sentences=(), events=(), actors=(), parser="direct", cost=cost
        )
        return BeliefGraph(story)

    def answer(self, item: Item, graph: BeliefGraph) -> ItemResult:
        del graph  # nothing was tracked: the reply is the answer
        return self.prompt.score(item, self.states[self.prompt.story_key(item)])


_COUNTS = ("calls", "cached", "prompt_tokens", "completion_tokens", "seconds")


def _usage(client: Any) -> dict[str, Any]:
    """The client's usage counts (any client with ``usage``)."""
    usage = getattr(client, "usage", None)
    return {k: getattr(usage, k, 0) for k in _COUNTS} if usage is not None else {}


def make_direct(base: Benchmark, prompt: DirectPrompt) -> Benchmark:
    """The direct baseline of ``base``: its loader, breakdowns, metrics and headline; each
    story (``prompt.story_key``) asked with ``prompt`` instead of tracked.

    Examples
    --------
    >>> from beliefgraph.adapters import get_benchmark
    >>> make_direct(get_benchmark("commet"), _Echo()).headline
    'story_accuracy'
    """
    run = _DirectRun(base.name, prompt)
    return Benchmark(
        name=base.name,
        load=base.load,
        build=run.build,
        answer=run.answer,
        breakdowns=base.breakdowns,
        metrics=base.metrics,
        headline=base.headline,
        story_key=prompt.story_key,
        parallel=False,  # the replies live in this process until each item is scored
    )


class _Echo:
    prompt_id = "echo"

    def story_key(self, item: Item) -> str:
        return item.id

    def run(self, item: Item, ask: Ask) -> str:
        return ask([{"role": "user", "content": item.question}])

    def score(self, item: Item, state: Any) -> ItemResult:
        return ItemResult.answered(item, str(state))


def import_rounds(
    answers: Path | Sequence[Path], cache: Any, run: Callable[[], Any], *, rounds: int = 20
) -> Any:
    """Import an answers file that holds several batch rounds of one run (a conversation's
    turns): ``run()`` (the run with its ``batch_out``, which records the next round's pending
    requests in ``cache``) and ``import_results`` alternate until no more answers can be
    stored; the last import's report is returned (its ``problems`` are the lines no round
    asked for).

    Parameters
    ----------
    answers : Path or sequence of Path
        The Batch API output file (every round's answers, in any order), or several such
        files (a run's rounds recorded apart), imported together each round; a problem
        then names its file.
    cache : LLMCache
        The cache the run writes its pending requests to.
    run : callable
        Runs the benchmark once with the batch file set.
    rounds : int
        At most this many rounds.
    """
    from beliefgraph.parsers.llm import ImportReport, import_results

    files = [Path(answers)] if isinstance(answers, str | Path) else [Path(a) for a in answers]
    report, stored = ImportReport(), -1
    for _ in range(rounds):
        run()
        report = ImportReport()
        for path in files:
            one = import_results(path, cache)
            where = f"{path.name}: " if len(files) > 1 else ""
            report.stored += one.stored
            report.failures += [(n, cid, where + why) for n, cid, why in one.failures]
            report.problems += [(n, cid, where + why) for n, cid, why in one.problems]
        if not report.problems or report.stored == stored:  # all stored, or no round left
            break
        stored = report.stored
    return report
