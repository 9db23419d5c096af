"""One exception tree, so callers can catch ``BeliefGraphError`` and nothing else leaks."""

__all__ = [
    "BeliefGraphError",
    "ConfigurationError",
    "DataFormatError",
    "UnknownNameError",
    "UnparsedSentenceError",
    "UnreadSentencesWarning",
    "UnsupportedQuestionError",
]


class BeliefGraphError(Exception):
    """Base class of every error beliefgraph raises on purpose."""


class ConfigurationError(BeliefGraphError, ValueError):
    """Options that cannot work together, or a setting with a bad value."""


class UnknownNameError(BeliefGraphError, KeyError):
    """A registered name (parser, trust policy, benchmark) that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


PYTHON_FIX = 'pass strict=False to keep it as an uninterpreted world fact, or use parser="llm".'
"""How to go on past an unread sentence, in the Python API's words."""


def sentence_place(index: int, line: int | None) -> str:
    """Where an unread sentence is: "sentence N" as the segmenter numbers them (1-based),
    and its line in the source when known, so errors and warnings name it the same way."""
    return f"sentence {index + 1}" + (f", line {line}" if line is not None else "")


class UnparsedSentenceError(BeliefGraphError, ValueError):
    """The offline parser met sentences none of its rules reads.

    ``sentence`` is the (first) text and ``index`` its 0-based position; ``line`` is the
    source's own line number when it has one. ``unread`` lists every unread sentence of the
    story as ``(sentence, index, line, reason)``, so one error names them all; ``reason``
    is "" or why the parser gave up (a cap it hit).
    """

    def __init__(
        self,
        sentence: str,
        index: int,
        line: int | None = None,
        *,
        unread: tuple[tuple[str, int, int | None, str], ...] = (),
    ) -> None:
        self.sentence = sentence
        self.index = index
        self.line = line
        self.unread = unread or ((sentence, index, line, ""),)
        super().__init__(self.explain())

    def explain(self, fix: str = PYTHON_FIX) -> str:
        """The message, ending with ``fix`` (how to go on; the CLI names its own options)."""
        where = [
            f"{sentence_place(i, ln)}: {s!r}" + (f" ({why})" if why else "")
            for s, i, ln, why in self.unread
        ]
        if len(where) == 1:
            return f"cannot parse {where[0]}. No rule of the offline parser reads this form; {fix}"
        listed = "\n".join(f"  {w}" for w in where)
        return (
            f"cannot parse {len(where)} sentences:\n{listed}\nNo rule of the offline parser"
            f" reads these forms; {fix.replace('it as an', 'each as an')}"
        )


class UnsupportedQuestionError(BeliefGraphError, ValueError):
    """A question whose form ``BeliefGraph.ask`` does not understand."""


class DataFormatError(BeliefGraphError, ValueError):
    """A data file that is missing or not in the expected format (names the file and line)."""


class UnreadSentencesWarning(UserWarning):
    """A lenient parse kept sentences no rule could read; the message names every one."""
