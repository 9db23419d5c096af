"""What the ToMATO and DialToM adapters share: the run's dialogue graph, words, option scoring.

- ``run_dialogue_graph`` is ``beliefgraph.dialogue.dialogue_graph`` (one event per turn
  offline, one or more under a model's parse: spoken turns are public ``tell`` events, hidden
  thoughts are perceived by their holder only) under the run's parser choice.
- ``tokens``, ``content_words`` and ``idf_weights`` are the lexical scorers' words.
- ``LLMOptionScorer`` asks a model to choose an option (through the one LLM client, any
  OpenAI-compatible server); it is built only when an endpoint is configured.
- ``Tally`` keeps a run's figures for the metrics the adapters report.
- ``first_dialogues`` wraps a loader to keep the items of the first N dialogues of a file
  (an item-blind sample: ``make_tomato(dialogues=N)``, ``make_dialtom(dialogues=N)``).
- ``letter_reply`` reads the option letter out of a model's plain-text reply (the direct
  baselines).

Trust is core, not here: ``TrustEdge`` (``beliefgraph.models``), the ``dialogue`` trust
policy ``EdgeTrust`` (``beliefgraph.solvers.trust``) and ``estimate_trust``
(``beliefgraph.reasoning.trust``); a holder's perspective is
``beliefgraph.dialogue.perceived_turns``.

Examples
--------
>>> g = run_dialogue_graph([("Ann", "The shop is closed."), ("Bob", "Thanks, I see.")])
>>> [e.perceivers for e in g.events]
[('Ann', 'Bob'), ('Ann', 'Bob')]
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from beliefgraph.dialogue import dialogue_story
from beliefgraph.errors import ConfigurationError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import ParsedStory
from beliefgraph.parsers.llm.dialogue import Turn
from beliefgraph.solvers.trust import EdgeTrust

from .item import Item
from .loading import LoadedItems, Problems
from .reading import chosen_llm

__all__ = [
    "LLMOptionScorer",
    "OptionChoice",
    "Tally",
    "content_words",
    "first_dialogues",
    "idf_weights",
    "letter_reply",
    "on_events",
    "run_dialogue_graph",
    "tokens",
    "turn_words",
]

LETTERS = "ABCDEFGH"


# -- the run's dialogue graph ------------------------------------------------------------------
def run_dialogue_graph(
    turns: Sequence[Turn | tuple[str, str]],
    *,
    trust: Any = "default",
    participants: Iterable[str] = (),
    max_order: int = 2,
) -> BeliefGraph:
    """``beliefgraph.dialogue.dialogue_graph`` under the run's parser choice: with
    ``evaluate(parser="llm")`` one call types what is said; offline each turn tells its words.

    An ``EdgeTrust``'s edges are timed by turn (turn k is time k, as ``estimate_trust`` sets
    them); a model's parse may give a turn several events, so they are retimed to each turn's
    first event.

    Examples
    --------
    >>> g = run_dialogue_graph([("Ann", "The shop is closed."), ("Bob", "Thanks, I see.")])
    >>> [e.perceivers for e in g.events]
    [('Ann', 'Bob'), ('Ann', 'Bob')]
    """
    story = dialogue_story(turns, participants, parser=chosen_llm())
    return BeliefGraph(story, trust=on_events(trust, story), max_order=max_order)


def on_events(trust: Any, story: ParsedStory) -> Any:
    """``trust`` with an ``EdgeTrust``'s turn-timed edges retimed to the story's events (the
    first event of each turn); any other policy as it is.

    Examples
    --------
    >>> from beliefgraph.dialogue import dialogue_story
    >>> from beliefgraph.models import TrustEdge
    >>> s = dialogue_story([("Ann", "Hi."), ("Bob", "Hey.")])
    >>> e = TrustEdge(truster="Bob", trustee="Ann", start=2, weight=0.2)
    >>> on_events(EdgeTrust(edges=(e,)), s).edges[0].start  # one event per turn: unchanged
    2
    """
    if not isinstance(trust, EdgeTrust) or all(len(x.events) == 1 for x in story.sentences):
        return trust
    first = {x.index + 1: min(x.events) for x in story.sentences if x.events}
    after = max((e.id for e in story.events), default=0) + 1

    def at(t: int | None) -> int | None:
        if t is None or t < 1:
            return t
        return first.get(t, after)

    edges = tuple(e.model_copy(update={"start": at(e.start), "end": at(e.end)})
                  for e in trust.edges)  # fmt: skip
    return trust.model_copy(update={"edges": edges})


def turn_words(graph: BeliefGraph) -> dict[int, str]:
    """Turn index -> the words of that turn, from the graph's sentences (each a turn as the
    dialogue parser rendered it, ``Name says: ...``), whatever the parser: under an LLM parse
    the events hold what the model typed each turn as saying, not the words.

    Examples
    --------
    >>> turn_words(run_dialogue_graph([("Ann", "It is: closed."), ("Bob", "Oh.")]))
    {0: 'It is: closed.', 1: 'Oh.'}
    """
    return {s.index: s.text.partition(": ")[2] for s in graph.story.sentences}


# -- samples -------------------------------------------------------------------------------
Loader = Callable[..., list[Item]]


def first_dialogues(load: Loader, n: int | None, key: Callable[[Item], str]) -> Loader:
    """``load``, keeping only the items of the first ``n`` dialogues (by ``key``, in the
    order the loader reads them): an item-blind sample, all questions of each dialogue kept.

    Raises
    ------
    ConfigurationError
        For ``n`` below 1.

    Examples
    --------
    >>> items = [Item(id=str(i), story=s, question="?", answer="a") for i, s in
    ...          enumerate(["x", "x", "y", "z"])]
    >>> [i.id for i in first_dialogues(lambda p, pr=None: items, 2, lambda i: i.story)("f")]
    ['0', '1', '2']
    """
    if n is None:
        return load
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ConfigurationError(f"dialogues must be a positive number, got {n!r}")

    def sample(path: Any, problems: Problems | None = None) -> list[Item]:
        items = load(path, problems)
        keep: dict[str, None] = {}
        kept = []
        for item in items:
            k = key(item)
            if k not in keep and len(keep) >= n:
                continue
            keep.setdefault(k, None)
            kept.append(item)
        return LoadedItems(kept, getattr(items, "problems", ()))

    return sample


_LETTERS_READ = (
    re.compile(r"\[\s*([A-H])\s*\]"),
    re.compile(r"\"option\"\s*:\s*\"\s*([A-H])\b"),
    # A bare leading letter only when it stands alone ("B", "B: ...", "(B)", "B."): "A careful
    # reading ..." opens with the article, not option A.
    re.compile(r"^\W*([A-H])(?:\s*[):.]|\s*$)"),
)


def letter_reply(reply: str, letters: Sequence[str]) -> int | None:
    """The index of the option a plain-text reply names, or None.

    Read in order: ``[X]`` (ToMATO's ``extract_answer_from_response``), a JSON
    ``{"option": "X"}`` (DialToM's release asks for that schema), else a reply that starts
    with the bare letter ("B", "B: ...", "(B)").

    Examples
    --------
    >>> letter_reply("[C]", "ABCD"), letter_reply('{"option": "B"}', "ABCD")
    (2, 1)
    >>> letter_reply("D: None of the above.", "ABCD"), letter_reply("Maybe.", "ABCD")
    (3, None)
    >>> letter_reply("A careful reading suggests option B.", "ABCD") is None  # an article
    True
    """
    for pattern in _LETTERS_READ:
        m = pattern.search(reply.strip())
        if m is not None:
            return letters.index(m[1]) if m[1] in letters else None
    return None


# -- words ---------------------------------------------------------------------------------
def _wordset(text: str) -> frozenset[str]:
    """The words of a whitespace-separated list."""
    return frozenset(text.split())


_TOKEN = re.compile(r"[a-z0-9$][a-z0-9$']*")
_STOP = _wordset(
    """a an the and or but if of to in on at for with by from as is are was were be been being
    it its this that these those i you he she they we me him her them us my your his their our
    mine yours hers theirs ours myself yourself himself herself themselves ourselves not no so
    do does did doing have has had having will would can could should may might must shall
    just about into than then there here what which who whom whose when where why how all any
    both each few more most other some such only own same too very don't i'm i've i'll i'd
    he's she's they're it's that's let's also up out over again further once really think
    thinks feel feels want wants know knows believe view going get got one like"""
)
_SUFFIXES = ("ingly", "edly", "ing", "ed", "es", "s", "ly")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (apostrophes kept inside words).

    Examples
    --------
    >>> tokens("I'm not SURE, $3000?")
    ["i'm", 'not', 'sure', '$3000']
    """
    return _TOKEN.findall(text.lower())


def _stem(word: str) -> str:
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            return word[: -len(suf)]
    return word


def content_words(text: str) -> list[str]:
    """Stemmed content words: no function words, no mental verbs.

    Examples
    --------
    >>> content_words("He thinks she is worried about the bills")
    ['worri', 'bill']
    """
    return list(_content(text))


@functools.lru_cache(maxsize=65536)
def _content(text: str) -> tuple[str, ...]:
    return tuple(_stem(t) for t in tokens(text) if t not in _STOP)


def idf_weights(texts: Sequence[str]) -> dict[str, float]:
    """Inverse document frequency of each content word over ``texts`` (one doc per text)."""
    df: Counter[str] = Counter()
    for t in texts:
        df.update(set(content_words(t)))
    n = len(texts)
    return {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}


# -- the LLM option scorer -----------------------------------------------------------------
class OptionChoice(BaseModel):
    """The model's pick among lettered options."""

    answer: str = Field(description="The letter of the chosen option, e.g. A")
    """The letter."""
    reason: str = Field(default="", description="One sentence: why this option")

    @field_validator("answer")
    @classmethod
    def _known_letter(cls, v: str, info: ValidationInfo) -> str:
        letter = v.strip().strip("[]().").upper()[:1]
        allowed = (info.context or {}).get("letters")
        if allowed and letter not in allowed:
            raise ValueError(f"answer must be one of {', '.join(allowed)}; got {v!r}")
        return letter


class LLMOptionScorer:
    """Choose an option with an LLM, through the project's one LLM client.

    Built only when an endpoint is configured: settings come from the arguments, else from
    ``BELIEFGRAPH_LLM_BASE_URL`` / ``BELIEFGRAPH_LLM_MODEL`` / ``OPENAI_API_KEY`` /
    ``BELIEFGRAPH_LLM_MODE`` (as the LLM parser reads them); the client's cache, retries,
    re-asks, usage counts and batch files (``batch_out``) apply.

    Parameters
    ----------
    client : LLMClient, optional
        A ready client (anything with ``extract(response_model, messages, **kw)``).
    **settings
        For ``make_client`` (``base_url``, ``model``, ``mode``, ``cache``, ``batch_out``, ...).

    Raises
    ------
    LLMConfigurationError
        When no endpoint or model is configured.
    """

    SYSTEM = (
        "You are an expert at understanding human communication. Use only the information "
        "provided and choose the most probable answer to the question from the options. "
        "Answer with the option's letter."
    )
    PROMPT = "option.v1"
    """The id the client's cache key and batch ``custom_id`` carry."""

    def __init__(self, *, client: Any = None, **settings: Any) -> None:
        from beliefgraph.parsers.llm.client import make_client

        self.client = client if client is not None else make_client(**settings)
        self.settings = getattr(self.client, "settings", None)

    @property
    def calls(self) -> int:
        """Completions this scorer's client requested (re-asks included)."""
        usage = getattr(self.client, "usage", None)
        return int(getattr(usage, "calls", 0))

    @classmethod
    def messages(
        cls, context: str, question: str, options: Sequence[str], *, system: str | None = None
    ) -> list[dict[str, str]]:
        """The chat messages: the context the reader may see, the question, lettered options.

        Examples
        --------
        >>> m = LLMOptionScorer.messages("A: hi", "Who spoke?", ["A", "B"])
        >>> m[1]["content"].splitlines()[-2:]
        ['[A] A', '[B] B']
        """
        lettered = "\n".join(f"[{LETTERS[i]}] {o}" for i, o in enumerate(options))
        user = f"# Context\n{context}\n\n# Question\n{question}\n\n# Options\n{lettered}"
        return [
            {"role": "system", "content": system or cls.SYSTEM},
            {"role": "user", "content": user},
        ]

    def choose(self, messages: list[dict[str, str]], n_options: int) -> tuple[int, str]:
        """Ask the model; return the chosen option's index and its reason."""
        letters = list(LETTERS[:n_options])
        reply = self.client.extract(
            OptionChoice, messages, context={"letters": letters}, prompt=self.PROMPT,
            max_tokens=512,
        )  # fmt: skip
        return letters.index(reply.answer), reply.reason


# -- side figures --------------------------------------------------------------------------
Metric = Callable[[list], float]


class Tally:
    """Per-item baseline outcomes and named values, summarised as ``Benchmark.metrics``.

    ``Benchmark.metrics`` maps names to functions of the results; an adapter that scores a
    baseline beside the tracker records each item's baseline outcome here while it answers
    and exposes ``metrics()``, whose names are known only once the run is over (one per
    breakdown key seen, e.g. ``lexical_overlap.state_order.belief/2nd``).

    Examples
    --------
    >>> t = Tally()
    >>> t.record("q1", "lexical_overlap", True, {"order": "1st"})
    >>> t.record("q2", "lexical_overlap", False, {"order": "1st"})
    >>> t.add_value("bleu", 9.5)
    >>> {k: f([]) for k, f in t.metrics().items()}
    {'lexical_overlap': 0.5, 'lexical_overlap.order.1st': 0.5, 'bleu': 9.5}
    """

    def __init__(self) -> None:
        self.outcomes: dict[str, dict[str, tuple[bool, dict[str, str]]]] = defaultdict(dict)
        self.values: dict[str, list[float]] = defaultdict(list)
        self.counts: dict[str, int] = defaultdict(int)
        self.pending: list[Callable[[Tally], None]] = []
        """Run once before the first summary (e.g. batch-embed every written line)."""

    def record(self, item_id: str, name: str, correct: bool, breakdown: dict[str, str]) -> None:
        """The baseline ``name`` answered item ``item_id`` (in)correctly."""
        self.outcomes[name][item_id] = (correct, dict(breakdown))

    def add_value(self, name: str, value: float) -> None:
        """A per-item figure (BLEU, ROUGE-L, ...); the summary is its mean."""
        self.values[name].append(value)

    def count(self, name: str, n: int = 1) -> None:
        """Count an event (a repaired record, a skipped one)."""
        self.counts[name] += n

    def figures(self) -> dict[str, float]:
        """Every figure: baselines overall and per breakdown key, means, counts."""
        while self.pending:
            self.pending.pop(0)(self)
        out: dict[str, float] = {}
        for name, items in self.outcomes.items():
            if not items:
                continue
            out[name] = sum(c for c, _ in items.values()) / len(items)
            groups: dict[str, list[bool]] = defaultdict(list)
            for correct, breakdown in items.values():
                for key, value in breakdown.items():
                    groups[f"{name}.{key}.{value}"].append(correct)
            for key in sorted(groups):
                out[key] = sum(groups[key]) / len(groups[key])
        for name, values in self.values.items():
            if values:
                out[name] = sum(values) / len(values)
        for name, n in sorted(self.counts.items()):
            out[name] = float(n)
        return out

    def metrics(self) -> Mapping[str, Metric]:
        """A live ``Benchmark.metrics`` mapping: its names are those of ``figures()``."""
        return _Live(self)


class _Live(Mapping[str, Metric]):
    def __init__(self, tally: Tally) -> None:
        self.tally = tally

    def __getitem__(self, key: str) -> Metric:
        value = self.tally.figures()[key]
        return lambda _results: value

    def __iter__(self) -> Iterator[str]:
        return iter(self.tally.figures())

    def __len__(self) -> int:
        return len(self.tally.figures())
