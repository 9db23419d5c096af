"""Summary figures beyond accuracy that several benchmarks report (macro-averaged F1).

Limits: the figures are computed over the whole set of results given, not averaged over
sampled batches as some papers do (OpenToM reports the mean of 5 batches of 50 stories).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .item import ItemResult

__all__ = ["UNANSWERED", "macro_f1", "macro_f1_of"]

UNANSWERED = "(unanswered)"
"""The class an unanswered item is predicted as: a class no gold label has, so it only lowers
the F1 of the gold class it missed and adds a zero to the average (as scikit-learn does with
the "corrupted" label the OpenToM evaluator gives unreadable answers)."""


def macro_f1(gold: Sequence[str], predicted: Sequence[str | None]) -> float:
    """The unweighted mean of per-class F1 over every class in ``gold`` or ``predicted``.

    The classes are those occurring in either sequence (scikit-learn's ``f1_score(...,
    average="macro")`` default); a None prediction is the class ``UNANSWERED``. A class with
    no true and no predicted members cannot occur; a class with a zero precision and recall
    scores 0.

    Parameters
    ----------
    gold : sequence of str
        The gold labels.
    predicted : sequence of str or None
        The predictions, aligned with ``gold``.

    Returns
    -------
    float
        Macro-F1 in [0, 1]; 0.0 for empty input.

    Raises
    ------
    ValueError
        When the two sequences differ in length.

    Examples
    --------
    >>> macro_f1(["yes", "yes", "no", "no"], ["yes", "no", "no", "no"])
    0.7333333333333334
    >>> macro_f1(["yes", "no"], ["yes", None])
    0.3333333333333333
    """
    if len(gold) != len(predicted):
        raise ValueError(f"gold and predicted differ in length: {len(gold)} != {len(predicted)}")
    pred = [UNANSWERED if p is None else p for p in predicted]
    classes = sorted(set(gold) | set(pred))
    if not classes:
        return 0.0
    scores = []
    for c in classes:
        tp = sum(g == c and p == c for g, p in zip(gold, pred, strict=True))
        fp = sum(g != c and p == c for g, p in zip(gold, pred, strict=True))
        fn = sum(g == c and p != c for g, p in zip(gold, pred, strict=True))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores)


def macro_f1_of(
    *,
    answered_only: bool = True,
    gold_key: str = "gold_class",
    predicted_key: str = "predicted_class",
    **where: str,
) -> Callable[[list[ItemResult]], float]:
    """A ``Benchmark.metrics`` entry: macro-F1 of the results whose breakdown matches ``where``.

    The classes are read from each result's breakdown (``gold_key`` and ``predicted_key``),
    so an adapter can score coarser classes than its answers (OpenToM scores a fine location
    as the "initial" or "new" place); results without them use ``gold`` and ``prediction``.

    Parameters
    ----------
    answered_only : bool
        Leave unanswered items out, as the OpenToM evaluator leaves out the generations it
        cannot read (it reports their share apart); False scores them as ``UNANSWERED``.
    gold_key, predicted_key : str
        The breakdown keys holding the gold and predicted class.
    **where : str
        Breakdown name -> key the results must have (none: all results).

    Examples
    --------
    >>> r = [ItemResult(id="1", gold="Yes", prediction="No", correct=False,
    ...                 breakdown={"question_type": "coarse"}),
    ...      ItemResult(id="2", gold="No", prediction=None, correct=False,
    ...                 breakdown={"question_type": "coarse"})]
    >>> macro_f1_of(question_type="coarse")(r)
    0.0
    >>> macro_f1_of(question_type="fine")(r)
    0.0
    """

    def metric(results: list[ItemResult]) -> float:
        chosen = [
            r
            for r in results
            if all(r.breakdown.get(k) == v for k, v in where.items())
            and (r.prediction is not None or not answered_only)
        ]
        gold = [r.breakdown.get(gold_key, r.gold) for r in chosen]
        pred: list[str | None] = [
            None if r.prediction is None else r.breakdown.get(predicted_key, r.prediction)
            for r in chosen
        ]
        return macro_f1(gold, pred)

    return metric
