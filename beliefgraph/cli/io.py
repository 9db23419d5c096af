"""Reading a story from a path or standard input, for every command."""

import sys
from pathlib import Path

from beliefgraph.errors import DataFormatError

__all__ = ["read_text"]


def read_text(path: str) -> str:
    """The text of ``path``, or of standard input for ``-``."""
    if path == "-":
        return sys.stdin.read()
    p = Path(path)
    if not p.is_file():
        raise DataFormatError(f"{path}: no such file")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise DataFormatError(f"{path}: not UTF-8 text ({err})") from None
