"""The same-model direct baseline for multiple-choice benchmarks: the paper's own prompt per item.

``direct_benchmark(bench, prompt)`` turns a benchmark adapter into its direct baseline: no
belief graph is built; each item's question is sent in the benchmark paper's prompt format
(``DirectPrompt.messages``) through the project's one LLM client (the run parser's client, so
its cache, retries, usage counts and ``batch_out`` apply), the reply is read by the paper's
answer format (``DirectPrompt.read``) and the item is scored like the graph path's, with the
same breakdowns and metrics, so the two runs print side by side.

A batch run writes each item's request to the batch file; the item then reads "answer
pending" until the results are imported (``beliefgraph llm import``). One request per item,
all independent: one batch round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from beliefgraph.errors import BeliefGraphError, ConfigurationError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import ParsedStory

from .benchmark import Benchmark
from .item import Item, ItemResult

__all__ = ["DirectPrompt", "direct_benchmark", "direct_client"]


@dataclass(frozen=True)
class DirectPrompt:
    """A benchmark paper's prompt format: how to ask one item and how to read the reply."""

    prompt_id: str
    """Names the prompt (part of each request's cache key and batch ``custom_id``)."""
    messages: Callable[[Item], list[dict[str, str]]]
    """The chat messages for one item, in the paper's format."""
    read: Callable[[str, Item], str | None]
    """The label (``Item.answer``'s alphabet) the reply gives, None when it gives none."""
    breakdown: Callable[[Item], dict[str, str]]
    """The item's breakdown keys (the graph path's)."""


def direct_client() -> Any:
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
            f"the direct baseline asks a model: run it with parser='llm' and its settings, "
            f"or configure an endpoint ({err})"
        ) from None
    return LLMClient(settings, open_cache(None))


def direct_benchmark(bench: Benchmark, prompt: DirectPrompt, client: Any = None) -> Benchmark:
    """``bench``'s direct baseline: each item asked in ``prompt``'s format, scored alike."""
    state: dict[str, Any] = {"client": client}

    def build(item: Item) -> BeliefGraph:
        return BeliefGraph(
            ParsedStory(text=item.story, sentences=(), events=(), actors=(), parser="direct")
        )

    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        if state["client"] is None:
            state["client"] = direct_client()
        reply = state["client"].extract(str, prompt.messages(item), prompt=prompt.prompt_id)
        out = reply[0] if isinstance(reply, tuple) else reply
        label = prompt.read(str(out), item)
        if label is None:
            raise BeliefGraphError(f"the model's reply names no option: {str(out)[:200]!r}")
        return ItemResult(
            id=item.id,
            gold=item.answer,
            prediction=label,
            correct=label == item.answer,
            explanation=(f"Asked directly ({prompt.prompt_id}); the model replied {out!r}.",),
            breakdown=prompt.breakdown(item),
        )

    return replace(bench, build=build, answer=answer, parallel=False)
