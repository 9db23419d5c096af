"""Scoring exactly as released (seed 000, Sec. 5 and App. B.3).

Stage 2: predictions are matched to gold rows by normalised (actor, belief, occurrence);
each predicted label is canonicalised (``labels.canonical``) and compared with the gold's;
per story, the accuracy of each dimension is over the story's gold rows (a gold row without
a prediction is wrong on all seven), and the overall score is the mean of the seven. Stories
are macro-averaged, overall and per category.

Stage 1: every predicted and every gold row gets a MatchCount from a ``Matcher`` (rows of the
same actor only); precision is the share of predicted rows with a nonzero count, recall the
share of gold rows, F1 their harmonic mean (0 when both are 0), per story, then
macro-averaged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any

from pydantic import Field

from beliefgraph.models import BeliefModel

from .labels import DIMENSIONS, canonical
from .matching import Alignment, Matcher
from .records import OmniRow, row_key

__all__ = [
    "Stage1Score",
    "Stage2Score",
    "macro_stage1",
    "macro_stage2",
    "score_stage1",
    "score_stage2",
]


class Stage2Score(BeliefModel):
    """One story's Stage 2 labelling accuracy."""

    per_dimension: dict[str, float]
    """Dimension -> accuracy over the story's gold rows."""
    n_gold: int
    """Gold rows."""
    n_matched: int
    """Gold rows that had a prediction."""
    wrong: tuple[tuple[int, str, str | None, str], ...] = ()
    """(gold row index, dimension, predicted, gold) of every wrong cell."""

    @property
    def overall(self) -> float:
        """The mean of the seven per-dimension accuracies."""
        return fmean(self.per_dimension[d] for d in DIMENSIONS)


def score_stage2(
    predicted: Sequence[OmniRow | Mapping[str, Any]], gold: Sequence[OmniRow]
) -> Stage2Score:
    """Score one story's predicted labels against its gold rows.

    Parameters
    ----------
    predicted : sequence of OmniRow or mapping
        Rows with ``actor``, ``belief`` and the labels (as ``labels`` or as top-level
        dimension keys); labels may be any string, they are canonicalised here.
    gold : sequence of OmniRow
        The gold rows with their labels.

    Examples
    --------
    >>> from .records import OmniLabels
    >>> lab = OmniLabels(order="0", truth_status="True", knowledge_access="Public",
    ...                  representation="Explicit", content_type="Action/Event",
    ...                  mental_source="Narration", context="Neutral")
    >>> gold = [OmniRow(actor="world", belief="Bob leaves", labels=lab)]
    >>> pred = [{"actor": "World", "belief": "Bob leaves.", "order": "Order: 0",
    ...          "truth_status": "true", "knowledge_access": "Shared",
    ...          "representation": "Explicit", "content_type": "action",
    ...          "mental_source": "Narration", "context": "Neutral"}]
    >>> s = score_stage2(pred, gold)
    >>> s.per_dimension["knowledge_access"], round(s.overall, 4)
    (0.0, 0.8571)
    """
    table: dict[tuple[tuple[str, str], int], Mapping[str, Any]] = {}
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for p in predicted:
        row = p.model_dump() if isinstance(p, OmniRow) else dict(p)
        key = row_key(str(row.get("actor", "")), str(row.get("belief", "")))
        labels = row.get("labels") or {d: row.get(d) for d in DIMENSIONS}
        table.setdefault((key, seen[key]), labels)
        seen[key] += 1
    correct = dict.fromkeys(DIMENSIONS, 0)
    wrong: list[tuple[int, str, str | None, str]] = []
    matched = 0
    seen.clear()
    for i, g in enumerate(gold):
        if g.labels is None:
            raise ValueError(f"gold row {i} ({g.actor}: {g.belief!r}) has no labels")
        key = row_key(g.actor, g.belief)
        labels = table.get((key, seen[key]))
        seen[key] += 1
        matched += labels is not None
        truth = g.labels.model_dump()
        for d in DIMENSIONS:
            got = canonical(d, labels.get(d)) if labels is not None else None
            if got == truth[d]:
                correct[d] += 1
            else:
                wrong.append((i, d, got, truth[d]))
    n = len(gold)
    return Stage2Score(
        per_dimension={d: correct[d] / n if n else 0.0 for d in DIMENSIONS},
        n_gold=n,
        n_matched=matched,
        wrong=tuple(wrong),
    )


class Stage1Score(BeliefModel):
    """One story's Stage 1 extraction score."""

    mc_pred: tuple[int, ...]
    """MatchCount of every predicted row."""
    mc_gold: tuple[int, ...]
    """MatchCount of every gold row."""
    matcher: str = ""
    """The matcher that aligned the tables."""
    pairs: tuple[tuple[int, int], ...] = Field(default=())
    """(predicted index, gold index) pairs, when the matcher gives them."""

    @property
    def precision(self) -> float:
        return sum(c > 0 for c in self.mc_pred) / len(self.mc_pred) if self.mc_pred else 0.0

    @property
    def recall(self) -> float:
        return sum(c > 0 for c in self.mc_gold) / len(self.mc_gold) if self.mc_gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score_stage1(
    predicted: Sequence[OmniRow],
    gold: Sequence[OmniRow],
    matcher: Matcher,
    *,
    story: str | None = None,
) -> Stage1Score:
    """Align a predicted table with the gold table and score it.

    Examples
    --------
    >>> from .matching import TokenOverlapMatcher
    >>> gold = [OmniRow(actor="world", belief="Bob leaves the room", order=0),
    ...         OmniRow(actor="Alice", belief="Bob left the room", order=1)]
    >>> pred = [OmniRow(actor="world", belief="Bob left the room", order=0),
    ...         OmniRow(actor="Bob", belief="Bob left the room", order=1)]
    >>> s = score_stage1(pred, gold, TokenOverlapMatcher())
    >>> s.mc_pred, s.mc_gold, s.f1
    ((1, 0), (1, 0), 0.5)
    """
    alignment: Alignment = matcher.align(predicted, gold, story=story)
    return Stage1Score(
        mc_pred=alignment.mc_pred,
        mc_gold=alignment.mc_gold,
        matcher=matcher.name,
        pairs=alignment.pairs,
    )


def _macro(values: Iterable[tuple[str, float]]) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for key, v in values:
        groups[key].append(v)
    return {k: fmean(v) for k, v in sorted(groups.items())}


def macro_stage2(
    scores: Mapping[Any, Stage2Score], categories: Mapping[Any, str] | None = None
) -> dict[str, Any]:
    """Macro averages over stories: overall, per dimension, and per category.

    Returns ``{"overall": x, "per_dimension": {...}, "by_category": {cat: {"overall": x,
    "per_dimension": {...}, "stories": n}}, "stories": n}``.
    """
    out: dict[str, Any] = _summary2(list(scores.values()))
    if categories is not None:
        by: dict[str, list[Stage2Score]] = defaultdict(list)
        for sid, s in scores.items():
            by[categories[sid]].append(s)
        out["by_category"] = {c: _summary2(v) for c, v in sorted(by.items())}
    return out


def _summary2(scores: list[Stage2Score]) -> dict[str, Any]:
    if not scores:
        return {"overall": 0.0, "per_dimension": dict.fromkeys(DIMENSIONS, 0.0), "stories": 0}
    return {
        "overall": fmean(s.overall for s in scores),
        "per_dimension": {d: fmean(s.per_dimension[d] for s in scores) for d in DIMENSIONS},
        "stories": len(scores),
    }


def macro_stage1(
    scores: Mapping[Any, Stage1Score], categories: Mapping[Any, str] | None = None
) -> dict[str, Any]:
    """Macro precision, recall and F1 over stories, overall and per category."""
    out: dict[str, Any] = _summary1(list(scores.values()))
    if categories is not None:
        by: dict[str, list[Stage1Score]] = defaultdict(list)
        for sid, s in scores.items():
            by[categories[sid]].append(s)
        out["by_category"] = {c: _summary1(v) for c, v in sorted(by.items())}
    return out


def _summary1(scores: list[Stage1Score]) -> dict[str, Any]:
    if not scores:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0, "stories": 0}
    return {
        "precision": fmean(s.precision for s in scores),
        "recall": fmean(s.recall for s in scores),
        "f1": fmean(s.f1 for s in scores),
        "stories": len(scores),
    }
