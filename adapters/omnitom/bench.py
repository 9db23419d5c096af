"""OmniToM in the evaluation harness: ``evaluate("omnitom", path, stage=1 | 2)``.

The loader gives one item per gold row, whatever the stage (the harness may load with the
factory's defaults), with the story's whole gold table shared in ``meta["table"]``.

- Stage 2 (default): the row's seven labels are predicted from the graph (the benchmark's
  protocol, ``protocol.label_rows``); ``prediction`` and ``gold`` are the seven labels
  joined by ``|``, and an item is correct when all seven are. Breakdowns: ``category``,
  ``order``, ``aligned``.
- Stage 1: the story's table is extracted from the graph once and aligned with the gold
  table by the matcher; an item is correct when its gold row was recovered (MatchCount > 0),
  so the harness's accuracy is the micro recall. Breakdown: ``category``.

The release's figures (per story, then macro-averaged) are in ``EvalResult.metrics``:
``stage2.overall``, ``stage2.<dimension>``, ``coverage.rows_aligned`` (rows aligned with a
graph belief), ``coverage.stories_parsed`` (stories the parser read whole), or
``stage1.precision`` / ``stage1.recall`` / ``stage1.f1``, each also per category
(``stage2.overall.False Belief Task``, ...).

Settings: ``stage`` (1 or 2), ``parser`` (default: the run's parser, ``evaluate(parser=...)``
or ``using_parser``, else ``rules``; ``auto`` or ``llm`` need an endpoint), ``matcher``
(``tokens``, ``embeddings``, ``llm``), ``truth`` (``auto``, ``solver``, ``graph``),
``threshold`` (the matcher's), ``grounding`` (``auto``: one LLM grounding call per story when
the run's parser is an LLM one, else the offline matcher; ``offline``; ``llm``),
``grounding_prompt`` (``omnitom``, the default: OmniToM's own ``omnitom.ground.v1``,
``grounding.py``, the shared reading plus closer readings of each row; ``shared``: the
shared ``beliefgraph.ground.v1``).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from statistics import fmean
from typing import Any, Literal

from beliefgraph.api import track
from beliefgraph.errors import BeliefGraphError, ConfigurationError
from beliefgraph.graph import BeliefGraph
from beliefgraph.grounding import LLMGrounder, make_llm_grounder

from ..benchmark import Benchmark, benchmarks
from ..item import Item, ItemResult
from ..loading import Problems, strict_if_none
from ..reading import chosen_client
from .grounding import OmniGrounder
from .labeler import Labeler, TruthMode
from .labels import DIMENSIONS
from .matching import make_matcher
from .proposals import Graph as GraphRows
from .proposals import Proposer, stage1_table
from .protocol import RowLabels, label_rows, occurrences
from .records import OmniRow, load_stories
from .scoring import Stage1Score, score_stage1, stage1_item_result, stage_metric_names

__all__ = ["StageMetrics", "load_items", "make_omnitom"]

Metric = Callable[[list[ItemResult]], float]
Grounding = Literal["auto", "offline", "llm"]
GroundingPrompt = Literal["shared", "omnitom"]
"""Which grounding call an LLM run makes: the shared ``beliefgraph.ground.v1`` or OmniToM's
``omnitom.ground.v1`` (``grounding.OmniGrounder``: the shared reading plus closer readings
of each row); either way one request per story."""


def load_items(path: Path, problems: Problems | None = None) -> list[Item]:
    """Read a release JSONL file into one harness item per gold row.

    Ids are ``<story_id>:<row>``; ``answer`` is the seven gold labels joined by ``|``;
    ``meta`` holds ``story_id``, ``category``, ``row``, ``actor``, ``belief``,
    ``occurrence``, ``order`` and ``table`` (the story's gold rows, one shared tuple).

    Raises
    ------
    DataFormatError
        For a missing file or a malformed record.
    """
    problems = strict_if_none(problems)
    items: list[Item] = []
    for s in load_stories(path, problems):
        table = s.beliefs
        for i, (row, k) in enumerate(zip(table, occurrences(table), strict=True)):
            assert row.labels is not None  # release records always carry labels
            items.append(
                Item(
                    id=f"{s.story_id}:{i}",
                    story=s.story,
                    question=f"{row.actor} | {row.belief}",
                    answer=_joined(row.labels.model_dump()),
                    meta={
                        "story_id": s.story_id,
                        "category": s.story_category,
                        "row": i,
                        "actor": row.actor,
                        "belief": row.belief,
                        "occurrence": k,
                        "order": row.labels.order,
                        "table": table,
                    },
                )
            )
    return problems.result(items)


def _joined(labels: Mapping[str, str | None]) -> str:
    return "|".join(labels.get(d) or "-" for d in DIMENSIONS)


class _Run:
    """One evaluation's state: a labeler per graph, row labels, and story scores."""

    def __init__(
        self, stage: int, parser: str | None, matcher: str, truth: TruthMode, **settings: Any
    ) -> None:
        self.stage = stage
        self.parser = parser
        self.truth = truth
        self.matcher = make_matcher(matcher, **settings) if stage == 1 else None
        self.labelers: dict[int, Labeler] = {}
        self.rows: dict[tuple[int, int], RowLabels] = {}
        self.stage1: dict[str, tuple[Stage1Score, list[OmniRow]]] = {}
        self.parsed: dict[str, bool] = {}
        self.categories: set[str] = set()
        self.grounding: Grounding = "auto"
        self.grounding_prompt: GroundingPrompt = "omnitom"
        self.graph_rows: GraphRows = "auto"  # which graph rows join Stage 1's proposals
        self.notes: dict[str, str] = {}  # story id -> why its graph is not the chosen parser's
        self._grounder: LLMGrounder | bool | None = False  # False: not decided yet

    def build(self, item: Item) -> BeliefGraph:
        self.categories.add(item.meta["category"])
        sid = str(item.meta["story_id"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                graph = track(item.story, parser=self.parser, max_order=3, strict=False)
            except BeliefGraphError as err:
                # The parse failed as a whole (e.g. a recorded answer that fails its checks):
                # the story is still tracked offline, and its rows still grounded, with the
                # failure kept as every item's first explanation.
                self.notes[sid] = (
                    f"the {self.parser or 'chosen'} parse failed ({err}); tracked offline"
                )
                graph = track(item.story, parser="rules", max_order=3, strict=False)
            story = graph.story
            if (
                story.parser != "rules"
                and story.sentences
                and not any(s.parsed for s in story.sentences)
            ):
                # The chosen parser read none of it (its answer is pending in a batch file,
                # or failed the parser's own checks with no re-ask left): the offline parse
                # stands in rather than an empty graph, and every item's trace says so.
                why = next((s.reason for s in story.sentences if s.reason), "no sentence read")
                self.notes[sid] = (
                    f"the {story.parser} parse read no sentence ({why}); tracked offline"
                )
                graph = track(item.story, parser="rules", max_order=3, strict=False)
        self.parsed[sid] = not graph.story.unparsed and sid not in self.notes
        return graph

    def grounder(self) -> LLMGrounder | None:
        """The LLM grounding call, over the run's LLM client; None: the offline matcher.

        ``grounding="auto"`` uses it whenever the run's parser is an LLM one (the parser
        ``using_parser`` chose, or ``parser="llm"``/``"auto"``); ``"llm"`` requires it;
        ``"offline"`` never uses it.
        """
        if self._grounder is False:
            self._grounder = None
            client = chosen_client()
            if self.grounding == "offline":
                pass
            elif client is not None:
                self._grounder = LLMGrounder(client)
            elif self.grounding == "llm" or self.parser in ("llm", "auto"):
                try:
                    self._grounder = make_llm_grounder()
                except ConfigurationError:
                    if self.grounding == "llm":
                        raise
            if self._grounder and self.grounding_prompt == "omnitom":
                self._grounder = OmniGrounder(self._grounder.client)
        return self._grounder or None

    def proposer(self) -> Proposer | None:
        """Stage 1's LLM call (``proposals.Proposer``) over the grounding call's client: in
        Stage 1 there are no rows to ground, so the story's second request reads its beliefs
        instead. None whenever the grounding would be offline."""
        grounder = self.grounder()
        return Proposer(grounder.client) if grounder is not None else None

    def labeler(self, graph: BeliefGraph) -> Labeler:
        if id(graph) not in self.labelers:
            self.labelers[id(graph)] = Labeler(graph, truth=self.truth)
        return self.labelers[id(graph)]

    def answer(self, item: Item, graph: BeliefGraph) -> ItemResult:
        self.categories.add(item.meta["category"])
        return self._stage1(item, graph) if self.stage == 1 else self._stage2(item, graph)

    # -- stage 2 -------------------------------------------------------------------------------
    def _stage2(self, item: Item, graph: BeliefGraph) -> ItemResult:
        m = item.meta
        key = (id(graph), m["row"])
        if key not in self.rows:
            # The whole table at once: its rows are grounded together (one grounding per story).
            table: list[OmniRow] = list(m["table"])
            grounder = self.grounder()
            got_all = label_rows(
                graph, table, labeler=self.labeler(graph), story=item.story, grounder=grounder,
                # With the grounding call the model reads every row in that one call; the
                # graph alignment then reads rows offline instead of one parse call per row.
                parser="rules" if grounder is not None else self.parser,
            )  # fmt: skip
            for j, got_j in enumerate(got_all):
                self.rows[(id(graph), j)] = got_j
        got = self.rows[key]
        gold = dict(zip(DIMENSIONS, item.answer.split("|"), strict=True))
        wrong = [d for d in DIMENSIONS if got.labels.get(d) != gold[d]]
        why = (
            f"aligned with {' believes '.join(got.chain or ()) or 'the world'}: {got.proposition}"
            if got.aligned
            else f"not aligned: {got.reason}"
        )
        return ItemResult(
            id=item.id,
            gold=item.answer,
            prediction=_joined(got.labels),
            correct=not wrong,
            explanation=(
                why,
                "sources: " + ", ".join(f"{d}={got.sources.get(d, 'none')}" for d in DIMENSIONS),
                *(f"{d}: predicted {got.labels.get(d)}, gold {gold[d]}" for d in wrong),
                *self._note(m),
            ),
            breakdown={
                "category": m["category"],
                "order": str(m["order"]),
                "aligned": "aligned" if got.aligned else "unaligned",
            },
        )

    def _note(self, meta: Mapping[str, Any]) -> tuple[str, ...]:
        note = self.notes.get(str(meta["story_id"]))
        return (note,) if note else ()

    # -- stage 1 -------------------------------------------------------------------------------
    def _stage1(self, item: Item, graph: BeliefGraph) -> ItemResult:
        assert self.matcher is not None
        sid = str(item.meta["story_id"])
        if sid not in self.stage1:
            gold = list(item.meta["table"])
            table, note = stage1_table(
                graph, proposer=self.proposer(), labeler=self.labeler(graph), add=self.graph_rows
            )
            if note:
                self.notes.setdefault(sid, note)
            predicted = table.rows
            score = score_stage1(predicted, gold, self.matcher, story=item.story)
            self.stage1[sid] = (score, predicted)
        score, predicted = self.stage1[sid]
        partners = [predicted[a].belief for a, b in score.pairs if b == item.meta["row"]]
        return stage1_item_result(
            item, score, partners, f"{len(predicted)} predicted", *self._note(item.meta)
        )

    # -- the release's figures -----------------------------------------------------------------
    def metric_names(self) -> list[str]:
        """Every figure this run reports; per-category ones for the categories seen."""
        return stage_metric_names(self.stage, self.categories)

    def metric(self, name: str) -> Metric:
        """The figure ``name`` as a function of the item results."""
        stage, key, *rest = name.split(".", 2)
        category = rest[0] if rest else None

        def pick(results: list[ItemResult]) -> list[ItemResult]:
            if category is None:
                return results
            return [r for r in results if r.breakdown.get("category") == category]

        if stage == "stage1":
            return lambda rs: self._stage1_macro(pick(rs), key)
        if stage == "stage2":
            return lambda rs: stage2_macro(pick(rs)).get(key, 0.0)
        if key == "rows_aligned":
            return lambda rs: _share(r.breakdown.get("aligned") == "aligned" for r in pick(rs))
        return lambda rs: _share(self.parsed[s] for s in _stories(pick(rs)) if s in self.parsed)

    def _stage1_macro(self, results: list[ItemResult], key: str) -> float:
        vals = [getattr(self.stage1[s][0], key) for s in _stories(results) if s in self.stage1]
        return fmean(vals) if vals else 0.0


def _stories(results: list[ItemResult]) -> list[str]:
    return list(dict.fromkeys(r.id.split(":")[0] for r in results))


def _share(flags: Iterator[bool] | Any) -> float:
    flags = list(flags)
    return sum(flags) / len(flags) if flags else 0.0


def stage2_macro(results: list[ItemResult]) -> dict[str, float]:
    """The release's Stage 2 figures from item results: per story and dimension, the
    accuracy over the story's gold rows; per story the mean of the seven; then the mean
    over stories (``overall`` and each dimension)."""
    cells: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        story = r.id.split(":")[0]
        got = (r.prediction or "").split("|")
        gold = r.gold.split("|")
        for i, d in enumerate(DIMENSIONS):
            cells[story][d].append(i < len(got) and got[i] == gold[i])
    if not cells:
        return {}
    per_story = [{d: sum(v) / len(v) for d, v in dims.items()} for dims in cells.values()]
    out = {d: fmean(p[d] for p in per_story) for d in DIMENSIONS}
    out["overall"] = fmean(fmean(p.values()) for p in per_story)
    return out


class StageMetrics(Mapping[str, Metric]):
    """A run's figures as the harness's metric mapping; per-category names appear once the
    categories are known. ``run`` is anything with ``metric_names()`` and ``metric(name)``
    (the graph path's run, or the direct baseline's)."""

    def __init__(self, run: Any) -> None:
        self._run = run

    def __getitem__(self, name: str) -> Metric:
        if name not in self._run.metric_names():
            raise KeyError(name)
        return self._run.metric(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._run.metric_names())

    def __len__(self) -> int:
        return len(self._run.metric_names())


@benchmarks.register("omnitom")
def make_omnitom(
    *,
    stage: int | None = 2,
    parser: str | None = None,
    matcher: str = "tokens",
    truth: TruthMode = "auto",
    threshold: float | None = None,
    grounding: Grounding = "auto",
    grounding_prompt: GroundingPrompt = "omnitom",
    judge_fewshots: int = 3,
    direct: bool = False,
) -> Benchmark:
    """The OmniToM adapter (Stage 1 or Stage 2; see the module docstring).

    ``direct=True`` is the same-model direct baseline (``direct.make_direct_omnitom``: the
    release's prompts through the LLM client, no graph); ``judge_fewshots`` (0..3) is the
    number of worked examples the ``llm`` / ``release_judge`` matchers send.

    Raises
    ------
    ConfigurationError
        For a stage other than 1 or 2, or a matcher that cannot run here.

    Examples
    --------
    >>> make_omnitom(stage=1).breakdowns
    ('category',)
    """
    stage = 2 if stage is None else stage
    if stage not in (1, 2):
        raise ConfigurationError(f"OmniToM has stages 1 and 2, got stage={stage!r}")
    settings: dict[str, Any] = {} if threshold is None else {"threshold": threshold}
    if grounding not in ("auto", "offline", "llm"):
        raise ConfigurationError(f"grounding must be 'auto', 'offline' or 'llm', got {grounding!r}")
    if grounding_prompt not in ("shared", "omnitom"):
        raise ConfigurationError(
            f"grounding_prompt must be 'shared' or 'omnitom', got {grounding_prompt!r}"
        )
    if direct:
        from .direct import make_direct_omnitom

        return make_direct_omnitom(stage, matcher=matcher, judge_fewshots=judge_fewshots,
                                   **settings)  # fmt: skip
    if matcher in ("llm", "release_judge"):
        settings["fewshots"] = judge_fewshots
    run = _Run(stage, parser, matcher, truth, **settings)
    run.grounding = grounding
    run.grounding_prompt = grounding_prompt
    return Benchmark(
        name="omnitom",
        load=load_items,
        build=run.build,
        answer=run.answer,
        breakdowns=("category",) if stage == 1 else ("category", "order", "aligned"),
        metrics=StageMetrics(run),
        parallel=False,  # the run's Stage 1 scores and parse flags live in this process
        headline="stage1.f1" if stage == 1 else "stage2.overall",  # the release's figures
        story_key=lambda item: str(item.meta["story_id"]),
    )
