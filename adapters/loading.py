"""Reading released files record by record: one bad record is reported, never fatal.

Every loader reads through this module, so all ten benchmarks report a problem the same way:
a ``LoadProblem`` names the file, the line (when the format has lines) and what was expected.
A loader is handed a ``Problems`` collector; per record it writes::

    with problems.record(path, lineno):
        items.append(_item(record, path, lineno))

and whatever the record raises (a ``DataFormatError`` it raised on purpose, or a ``KeyError``,
``TypeError``, ``ValueError`` or decoding error from bad data) becomes a problem, and the next
record is read. A strict collector (the default when a loader is called directly) raises the
first problem as a ``DataFormatError`` instead; the harness runs lenient, counts the problems
in the run's summary and scores the rest.

Text is decoded as UTF-8 with ``surrogateescape``: a byte that is not UTF-8 does not stop the
file, it stays in the text as a lone surrogate, and ``require_utf8`` turns it into a problem
for the one record that holds it (naming the byte). The limits: a file that cannot be read at
all (missing, not JSON as a whole, the wrong shape) still raises, since nothing in it can be
scored; in a folder such a file is one problem and the other files are read.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from beliefgraph.errors import DataFormatError
from beliefgraph.models import BeliefModel

from .item import Item

__all__ = [
    "RECORD_ERRORS",
    "LoadProblem",
    "LoadedItems",
    "Problems",
    "csv_rows",
    "has_bad_bytes",
    "read_text",
    "require_utf8",
    "strict_if_none",
    "text_lines",
]

# What a malformed record raises from inside a loader: the loader's own DataFormatError, or
# Python's own complaint about a value of the wrong shape or type.
RECORD_ERRORS = (
    DataFormatError,
    KeyError,
    TypeError,
    ValueError,
    IndexError,
    AttributeError,
    ValidationError,
    UnicodeError,
    csv.Error,
)
_SURROGATE = re.compile("[\udc80-\udcff]")


class LoadProblem(BeliefModel):
    """One record (or file) a loader could not read, and why."""

    file: str
    """The file, as the loader was given it."""
    line: int | None = None
    """The 1-based line where the record starts (None for formats without lines)."""
    message: str
    """What was wrong and what was expected."""

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


class LoadedItems(list[Item]):
    """The items a loader read, with ``problems``: the records it could not read.

    A plain ``list`` of items everywhere a list is expected.
    """

    problems: tuple[LoadProblem, ...]

    def __init__(self, items: Iterable[Item] = (), problems: Iterable[LoadProblem] = ()) -> None:
        super().__init__(items)
        self.problems = tuple(problems)


class Problems:
    """Collects the problems of one load; ``strict`` raises the first one instead.

    Examples
    --------
    >>> problems = Problems()
    >>> with problems.record("data.jsonl", 3):
    ...     int("three")
    >>> print(problems.found[0])
    data.jsonl:3: invalid literal for int() with base 10: 'three'
    >>> with Problems(strict=True).record("data.jsonl", 3):
    ...     int("three")
    Traceback (most recent call last):
    ...
    beliefgraph.errors.DataFormatError: data.jsonl:3: invalid literal for int() with base 10: ...
    """

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        self.found: list[LoadProblem] = []

    def add(self, file: str | Path, line: int | None, message: str) -> None:
        """Report one problem (raised at once when strict)."""
        line, message = _locate(message, file, line)
        problem = LoadProblem(file=str(file), line=line, message=message)
        if self.strict:
            raise DataFormatError(str(problem))
        self.found.append(problem)

    @contextmanager
    def record(self, file: str | Path, line: int | None = None) -> Iterator[None]:
        """Read one record inside the block; an error in it becomes a problem."""
        try:
            yield
        except RECORD_ERRORS as err:
            self.add_error(file, line, err)

    def add_error(self, file: str | Path, line: int | None, err: BaseException) -> None:
        """Report what a record raised (one of ``RECORD_ERRORS``), described as ``record`` does.

        For a loader's hot loop: ``try: ... except RECORD_ERRORS as err:
        problems.add_error(path, lineno, err)`` is ``with problems.record(path, lineno):``
        without a context manager per line (a fifth of reading ToMi's 53,000 lines).
        """
        self.add(file, line, _describe(err))

    def result(self, items: Iterable[Item]) -> LoadedItems:
        """The items, with the problems found so far."""
        return LoadedItems(items, self.found)

    def folder(
        self, path: Path, pattern: str, load_one: Callable[[Path, Problems], list[Item]], what: str
    ) -> LoadedItems:
        """Every ``pattern`` file of the folder ``path`` through ``load_one``, in name order; a
        file that cannot be read at all is one problem and the others are still read.

        Raises
        ------
        DataFormatError
            When the folder holds no such file.
        """
        files = sorted(path.glob(pattern))
        if not files:
            raise DataFormatError(f"{path}: no {what} {pattern.lstrip('*')} files in this folder")
        items: list[Item] = []
        for f in files:
            with self.record(f):
                items.extend(load_one(f, self))
        return self.result(items)


def strict_if_none(problems: Problems | None) -> Problems:
    """The collector a loader uses: the one it was given, or a strict one."""
    return Problems(strict=True) if problems is None else problems


def read_text(path: Path) -> str:
    """The file's text; bytes that are not UTF-8 stay as lone surrogates (see ``require_utf8``).

    Raises
    ------
    DataFormatError
        For a file that cannot be read (naming it).
    """
    try:
        return path.read_bytes().decode("utf-8", errors="surrogateescape")
    except OSError as err:
        raise DataFormatError(f"{path}: cannot read the file ({err.strerror})") from None


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for every line of a text file, newline stripped."""
    yield from enumerate(read_text(path).splitlines(), start=1)


def csv_rows(path: Path, delimiter: str = ",") -> Iterator[tuple[int, list[str] | Exception]]:
    """``(line number, row)`` for every CSV row; a row the csv module rejects (a field over its
    size limit, a stray quote) comes as ``(line, error)`` and reading goes on."""
    reader = csv.reader(read_text(path).splitlines(keepends=True), delimiter=delimiter)
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            yield start, err
            continue
        yield start, row


def has_bad_bytes(text: str) -> bool:
    """Whether ``text`` (as ``read_text`` decoded it) holds a byte that was not UTF-8.

    One search over a whole file; when it finds none, a loader may skip ``require_utf8`` on
    each of its records.

    Examples
    --------
    >>> has_bad_bytes("café"), has_bad_bytes(b"caf\\xe9".decode("utf-8", "surrogateescape"))
    (False, True)
    """
    return _SURROGATE.search(text) is not None


def require_utf8(value: Any, what: str = "the record") -> None:
    """Raise when any text inside ``value`` holds a byte that was not UTF-8.

    Raises
    ------
    DataFormatError
        Naming the first such byte, e.g. ``byte 0xff is not UTF-8``.

    Examples
    --------
    >>> require_utf8({"story": b"caf\\xe9".decode("utf-8", "surrogateescape")})
    Traceback (most recent call last):
    ...
    beliefgraph.errors.DataFormatError: the record is not UTF-8 text: byte 0xe9 in 'caf\\udce9'...
    """
    for text in _strings(value):
        m = _SURROGATE.search(text)
        if m is not None:
            byte = ord(m.group()) - 0xDC00
            snippet = text[max(0, m.start() - 20) : m.start() + 20]
            raise DataFormatError(
                f"{what} is not UTF-8 text: byte 0x{byte:02x} in {snippet!r} "
                "(expected UTF-8; re-encode the file)"
            )


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _describe(err: BaseException) -> str:
    if isinstance(err, KeyError):
        return f"missing field {err.args[0]!r}" if err.args else "missing field"
    if isinstance(err, ValidationError):
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "record"
        return f"{where}: {first['msg']} (got {_short(first.get('input'))})"
    if isinstance(err, json.JSONDecodeError):
        # Python's own message for an open string ends in "starting at": drop it so the column
        # we add does not read "at at".
        return f"not valid JSON: {err.msg.removesuffix(' at')} at column {err.colno}"
    if isinstance(err, csv.Error):
        limit = csv.field_size_limit()
        return f"not a CSV row: {err} (expected at most {limit} characters a field)"
    text = str(err)
    return text if isinstance(err, DataFormatError) else f"{text or type(err).__name__}"


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _locate(message: str, file: str | Path, line: int | None) -> tuple[int | None, str]:
    """Drop a leading ``file:line:`` the message repeats (the problem names both), keeping
    its line when the caller did not know it."""
    for name in (str(file), Path(file).name):
        m = re.match(re.escape(name) + r"(?::(\d+))?: ", message)
        if m is not None:
            return (line if line is not None or m[1] is None else int(m[1])), message[m.end() :]
    return line, message
