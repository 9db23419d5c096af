"""The offline rules parser: story text in, typed events out, no model or network needed.

Lines may carry bAbI numbering ("1 Ella entered the garage."), kept as each sentence's
``line``. Sentences are those of ``beliefgraph.text.segment``; comma-spliced sentences
are cut into clauses (``chunks``), and each clause is one ``Sentence`` of the result,
numbered (``Sentence.index``, ``Event.sentence_index``) as the segmenter numbers the
sentence it belongs to, so "sentence N" in errors and explanations is the N-th sentence
a user counts, whatever its clauses.
Lines without a letter or digit ("***") are separators, not sentences. The clause
shapes read, and the events they give, are listed in ``frames``; the story-level
resolution of pronouns and names in ``assemble``.

Limits: the grammar reads templated false-belief stories (ToMi, Hi-ToM, ToMBench
false-belief tasks, OpenToM plots) and plain narrative prose about placing, moving, going,
telling and perceiving (see ``frames``); other acts, events and states of things are read
by any English verb as verbatim facts; emotions, reduced relatives and moves by things it
does not name as actors are unread. An unread sentence raises in strict mode (one error
naming every unread sentence with its line) and is kept as an uninterpreted world fact
otherwise.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

from beliefgraph.models import ParsedStory
from beliefgraph.text import segment

from .assemble import Item, assemble
from .chunks import clear_word_caches, split
from .frames import read_clauses
from .templates import Template

__all__ = ["RulesParser"]


class RulesParser:
    """Read templated false-belief stories with spaCy ``Matcher`` rules.

    Parameters
    ----------
    strict : bool, default True
        Raise ``UnparsedSentenceError`` on a sentence no rule reads. With False the
        sentence is kept (``parsed=False``) as a narrated ``Action/Event`` fact about the
        world, and a warning names it.

    Examples
    --------
    >>> story = RulesParser().parse("1 Ella entered the garage.\\n2 Ella exited the garage.")
    >>> [(e.id, e.kind, e.actors, e.room, e.line) for e in story.events]
    [(1, 'enter', ('Ella',), 'garage', 1), (2, 'exit', ('Ella',), 'garage', 2)]
    """

    name = "rules"

    def __init__(self, *, strict: bool = True) -> None:
        self.strict = strict

    def __repr__(self) -> str:
        return f"RulesParser(strict={self.strict})"

    @staticmethod
    def cache_clear() -> None:
        """Forget the cached sentence readings and stories (for cold-start timings), and
        the chunker's per-word lemmas and lexeme attributes."""
        _parse.cache_clear()
        _read.cache_clear()
        clear_word_caches()

    def parse(self, text: str) -> ParsedStory:
        """Parse one story.

        Parameters
        ----------
        text : str
            The story; lines may carry bAbI numbers.

        Returns
        -------
        ParsedStory
            Every sentence (clause), and the events read from them numbered 1..n.

        Raises
        ------
        UnparsedSentenceError
            In strict mode, for the first sentence no rule reads (names it and its line).
        """
        story = _parse(text, self.strict)
        for s in story.unparsed:
            where = f"line {s.line}" if s.line is not None else f"sentence {s.index + 1}"
            warnings.warn(
                f"rules parser cannot read {where}: {s.text!r}; kept as an uninterpreted "
                "world fact",
                stacklevel=2,
            )
        return story


@lru_cache(maxsize=1 << 12)
def _parse(text: str, strict: bool) -> ParsedStory:
    # ToMi asks several questions of each story, so whole stories repeat too; the result
    # is frozen, so one object can serve every caller.
    items: list[Item] = []
    sources: list[tuple[int | None, str]] = []
    numbers: list[int] = []
    for span in segment(text):
        for clause, templates, reason in _read(span.text):
            items.append((clause, span.number, templates))
            sources.append((span.line, reason))
            numbers.append(span.index - 1)
    return assemble(text, items, strict=strict, sources=sources, sentence_of=numbers)


@lru_cache(maxsize=1 << 16)
def _read(sentence: str) -> tuple[tuple[str, tuple[Template, ...] | None, str], ...]:
    # Benchmarks repeat sentences heavily (ToMi reuses each story for many questions), so
    # the story-independent reading of a sentence is computed once per process.
    clauses = split(sentence)
    if any(c.meta for c in clauses):
        return tuple((c.text, (), "") for c in clauses)
    reads = read_clauses([c.chunks for c in clauses], sentence)
    return tuple((c.text, r, why) for c, (r, why) in zip(clauses, reads, strict=True))
