"""The same-model direct baseline: the release's own prompts, answered by the project's client.

``evaluate("omnitom", path, stage=1 | 2, direct=True)`` (CLI: ``beliefgraph eval omnitom
--direct``) builds no belief graph. For each story it sends the release's Stage 1 extraction
prompt or Stage 2 labelling prompt verbatim (``release.extract_messages`` /
``release.label_messages``) through the project's one LLM client as a plain-text request,
reads the reply with the release's parsers (``release.parse_extraction_rows`` /
``release.parse_label_rows``) and scores it with the same scorers as the graph path: Stage 2
with the release's metric (``scoring.score_stage2``, ``protocol="paper"``), Stage 1 with the
run's matcher (``tokens``, ``embeddings``, ``llm``, or ``release_judge``: the release's judge
prompt with its worked examples, read by the release's CSV parser). Item results, breakdowns
and metric names are the graph path's, so the two runs print side by side.

The client is the one the run's parser uses (``evaluate(parser="llm", parser_settings=...)``
or ``using_parser``), so its cache, retries, usage counts and ``batch_out`` apply: a batch
run writes the direct requests to the batch file, and every story then reads "answer
pending" until the results are imported. Without a run parser the client is built from the
environment (``BELIEFGRAPH_LLM_BASE_URL``, ``BELIEFGRAPH_LLM_MODEL``, ...).

Requests per story: one (Stage 2, or Stage 1 with a local matcher); Stage 1 with the
``release_judge`` matcher needs a second round (the judge reads the extraction's answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from beliefgraph.errors import ConfigurationError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import ParseCost, ParsedStory

from ..benchmark import Benchmark
from ..item import Item, ItemResult
from .labels import DIMENSIONS
from .matching import Alignment, Matcher, make_matcher, matchers
from .records import OmniRow
from .release import (
    JUDGE_FEWSHOTS,
    align_match_counts,
    extract_messages,
    judge_messages,
    label_messages,
    pair_indexed_rows,
    parse_extraction_rows,
    parse_judge_output,
    parse_label_rows,
    row_key,
)
from .scoring import Stage1Score, stage1_item_result, stage_metric_names

__all__ = [
    "PROMPT_IDS",
    "DirectRun",
    "ReleaseJudge",
    "direct_client",
    "make_direct_omnitom",
    "stage1_rows",
]

PROMPT_IDS = {
    "extract": "omnitom.release.extract.v1",
    "label": "omnitom.release.label.v1",
    "judge": "omnitom.release.judge.v1",
}
"""The prompt ids the direct requests carry (part of their cache key and batch ``custom_id``)."""


def direct_client() -> Any:
    """The LLM client of the run's parser, else one built from the environment (the shared
    ``adapters.direct.direct_client``).

    Raises
    ------
    ConfigurationError
        When no parser of the run has a client and no endpoint is configured.
    """
    from ..direct import direct_client as shared

    return shared("the OmniToM direct baseline")


def stage1_rows(text: str) -> tuple[list[OmniRow], int]:
    """A model's Stage 1 reply as table rows (the release's parser), and how many of the
    release's rows could not become a row (an empty actor or belief).

    The order column keeps its first number ("Order 2" is 2); none leaves it unset. Rows
    that cannot become a row still count as predicted rows, unmatched, as the release's
    judge counts every row of the table.

    >>> rows, bad = stage1_rows("Actor | Belief | Order\\nworld | Bob left. | 0\\nAnn |  | 1")
    >>> [(r.actor, r.belief, r.order) for r in rows], bad
    ([('world', 'Bob left', 0)], 1)
    """
    rows, bad = [], 0
    for r in parse_extraction_rows(text):
        if not r["actor"] or not r["belief"]:
            bad += 1
            continue
        m = re.search(r"\d+", r["order"])
        rows.append(OmniRow(actor=r["actor"], belief=r["belief"], order=int(m[0]) if m else None))
    return rows, bad


class ReleaseJudge:
    """The release's semantic judge as a matcher: its prompt verbatim with ``fewshots``
    worked examples, a plain-text reply read by the release's CSV parser and aligned back to
    the input rows (a row the judge drops or rewrites counts 0).

    Parameters
    ----------
    fewshots : int
        Worked examples sent, 0 to 3 (the paper sends 3).
    client : LLM client, optional
        Default: ``direct_client()`` when the first table is judged.
    """

    name = "release_judge"

    def __init__(self, *, fewshots: int = JUDGE_FEWSHOTS, client: Any = None) -> None:
        if not 0 <= fewshots <= JUDGE_FEWSHOTS:
            raise ConfigurationError(
                f"the judge has {JUDGE_FEWSHOTS} worked examples: fewshots must be 0 to "
                f"{JUDGE_FEWSHOTS}, got {fewshots}"
            )
        self.fewshots = fewshots
        self.client = client

    def align(
        self, predicted: Sequence[OmniRow], gold: Sequence[OmniRow], *, story: str | None = None
    ) -> Alignment:
        """Ask the judge (through the client) and read its two tables' MatchCounts."""
        client = self.client = self.client or direct_client()
        pred = [(r.actor, r.belief) for r in predicted]
        ref = [(r.actor, r.belief) for r in gold]
        system, user = judge_messages(story, pred, ref, fewshots=self.fewshots)
        reply = client.extract(
            str,
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            prompt=f"{PROMPT_IDS['judge']}.k{self.fewshots}",
        )
        parsed_pred, parsed_gold = parse_judge_output(reply)
        return Alignment(
            mc_pred=tuple(align_match_counts(pred, parsed_pred)),
            mc_gold=tuple(align_match_counts(ref, parsed_gold)),
        )


@matchers.register("beliefgraph.omnitom.release_judge.v1")
@matchers.register("release_judge")
def make_release_judge(**settings: Any) -> ReleaseJudge:
    """The release's judge prompt, read by the release's parser (``fewshots`` 0..3)."""
    return ReleaseJudge(**settings)


@dataclass
class _Story:
    reply: str
    rows: list[Any]
    bad: int = 0
    score: Stage1Score | None = None


class DirectRun:
    """One direct evaluation's state: each story's reply, rows and (Stage 1) score."""

    def __init__(self, stage: int, matcher: Matcher | None, client: Any = None) -> None:
        self.stage = stage
        self.matcher = matcher
        self._client = client
        self.stories: dict[str, _Story] = {}
        self.categories: set[str] = set()

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = direct_client()
        return self._client

    def build(self, item: Item) -> BeliefGraph:
        """Ask the model for the story's table; the graph carries only the story and cost."""
        self.categories.add(item.meta["category"])
        table: tuple[OmniRow, ...] = item.meta["table"]
        if self.stage == 1:
            system, user = extract_messages(item.story)
        else:
            system, user = label_messages(item.story, [(r.actor, r.belief) for r in table])
        before = _usage(self.client)
        reply = self.client.extract(
            str,
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            prompt=PROMPT_IDS["extract" if self.stage == 1 else "label"],
        )
        sid = str(item.meta["story_id"])
        if self.stage == 1:
            assert self.matcher is not None
            rows, bad = stage1_rows(reply)
            got = self.matcher.align(rows, list(table), story=item.story)
            score = Stage1Score(
                mc_pred=(*got.mc_pred, *(0,) * bad), mc_gold=got.mc_gold,
                matcher=self.matcher.name, pairs=got.pairs,
            )  # fmt: skip
            self.stories[sid] = _Story(reply, rows, bad, score)
        else:
            self.stories[sid] = _Story(reply, parse_label_rows(reply))
        spent = _usage(self.client)
        cost = ParseCost(**{k: spent[k] - before[k] for k in spent})
        story = ParsedStory(text=item.story, sentences=(), events=(), actors=(), parser="direct",
                            cost=cost)  # fmt: skip
        return BeliefGraph(story)

    def answer(self, item: Item, graph: BeliefGraph) -> ItemResult:
        """The item's result from the story's direct reply (graph unused)."""
        sid = str(item.meta["story_id"])
        got = self.stories[sid]
        if self.stage == 1:
            return self._stage1(item, got)
        index = pair_indexed_rows(got.rows)
        key = (*row_key(item.meta["actor"], item.meta["belief"]), item.meta["occurrence"])
        row = index.get(key)
        gold = dict(zip(DIMENSIONS, item.answer.split("|"), strict=True))
        prediction = "|".join(row[d] or "-" for d in DIMENSIONS) if row is not None else None
        wrong = [d for d in DIMENSIONS if row is None or row[d] != gold[d]]
        return ItemResult(
            id=item.id,
            gold=item.answer,
            prediction=prediction,
            correct=not wrong,
            explanation=(
                f"story {sid}: the model labelled {len(got.rows)} rows directly"
                + ("" if row is not None else "; none has this row's actor and belief"),
                *(
                    f"{d}: predicted {row[d] or '(none)'}, gold {gold[d]}"
                    for d in wrong
                    if row is not None
                ),
            ),
            breakdown={
                "category": item.meta["category"],
                "order": str(item.meta["order"]),
                "aligned": "aligned" if row is not None else "unaligned",
            },
        )

    def _stage1(self, item: Item, got: _Story) -> ItemResult:
        score = got.score
        assert score is not None
        partners = [got.rows[a].belief for a, b in score.pairs if b == item.meta["row"]]
        return stage1_item_result(item, score, partners, f"{len(score.mc_pred)} predicted directly")

    # -- the release's figures (the graph path's names) ----------------------------------------
    def metric_names(self) -> list[str]:
        """Every figure this run reports; per-category ones for the categories seen."""
        return stage_metric_names(self.stage, self.categories, stories_parsed=False)

    def metric(self, name: str) -> Callable[[list[ItemResult]], float]:
        """The figure ``name`` as a function of the item results."""
        from .bench import stage2_macro

        stage, key, *rest = name.split(".", 2)
        category = rest[0] if rest else None

        def pick(results: list[ItemResult]) -> list[ItemResult]:
            return [r for r in results
                    if category is None or r.breakdown.get("category") == category]  # fmt: skip

        if stage == "stage1":
            return lambda rs: self._stage1_macro(pick(rs), key)
        if stage == "stage2":
            return lambda rs: stage2_macro(pick(rs)).get(key, 0.0)
        return lambda rs: _share([r.breakdown.get("aligned") == "aligned" for r in pick(rs)])

    def _stage1_macro(self, results: list[ItemResult], key: str) -> float:
        stories = dict.fromkeys(r.id.split(":")[0] for r in results)
        scores = [s.score for k in stories if (s := self.stories.get(k)) and s.score is not None]
        return fmean(getattr(s, key) for s in scores) if scores else 0.0


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def _usage(client: Any) -> dict[str, Any]:
    u = client.usage
    return {
        "calls": u.calls, "cached": u.cached, "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens, "seconds": u.seconds,
    }  # fmt: skip


def make_direct_omnitom(
    stage: int,
    *,
    matcher: str = "tokens",
    judge_fewshots: int = JUDGE_FEWSHOTS,
    client: Any = None,
    **settings: Any,
) -> Benchmark:
    """The direct baseline as a harness benchmark (see the module docstring).

    Raises
    ------
    ConfigurationError
        For a stage other than 1 or 2, or a matcher that cannot run here.
    """
    from .bench import StageMetrics, load_items  # the graph path's loader and metric view

    if stage not in (1, 2):
        raise ConfigurationError(f"OmniToM has stages 1 and 2, got stage={stage!r}")
    m = None
    if stage == 1:
        if matcher in ("llm", "release_judge"):
            settings = {**settings, "fewshots": judge_fewshots}
        if matcher == "release_judge":
            settings["client"] = client
        m = make_matcher(matcher, **settings)
    run = DirectRun(stage, m, client)
    return Benchmark(
        name="omnitom",
        load=load_items,
        build=run.build,
        answer=run.answer,
        breakdowns=("category",) if stage == 1 else ("category", "order", "aligned"),
        metrics=StageMetrics(run),  # type: ignore[arg-type]
        story_key=lambda item: str(item.meta["story_id"]),
    )
