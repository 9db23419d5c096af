"""Numbering sentences for a model: one function, so every prompt counts the same way.

Every prompt that shows a model a story's sentences (the LLM parser's, the grounding call's)
numbers them from 1, ``[1] First sentence.``, as people and the explanations do
(``Event.cite`` says "sentence 1" for ``sentence_index`` 0). A reply's numbers are read back
with ``FIRST``: sentence ``n`` of a reply is ``Sentence.index`` ``n - FIRST``.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["FIRST", "numbered"]

FIRST = 1
"""The number a model sees on a story's first sentence."""


def numbered(texts: Iterable[str], *, start: int = FIRST) -> str:
    """The texts one per line, each after its number in brackets.

    Examples
    --------
    >>> print(numbered(["Ann left.", "Bob came."]))
    [1] Ann left.
    [2] Bob came.
    """
    return "\n".join(f"[{i}] {t}" for i, t in enumerate(texts, start=start))
