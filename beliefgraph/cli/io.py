"""Reading a story from a path or standard input, for every command."""

import sys
from pathlib import Path

from beliefgraph.errors import DataFormatError

__all__ = ["read_text"]


def read_text(path: str) -> str:
    """The text of ``path``, or of standard input for ``-``.

    Raises
    ------
    DataFormatError
        For a path that does not exist or is a folder, text that is not UTF-8, or text with
        nothing but white space in it (every command would otherwise report on an empty
        story as if it had read one), naming the file.
    """
    if path == "-":
        text = sys.stdin.read()
        name = "standard input"
    else:
        p = Path(path)
        if p.is_dir():
            raise DataFormatError(
                f"{path}: is a folder; give a story file (or - for standard input)"
            )
        if not p.is_file():
            raise DataFormatError(f"{path}: no such file")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise DataFormatError(f"{path}: not UTF-8 text ({err})") from None
        name = path
    if not text.strip():
        raise DataFormatError(f"{name}: the file is empty; there is no story to read")
    return text
