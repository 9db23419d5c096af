"""Matching a tracker's answer to a benchmark's option strings."""

from __future__ import annotations

import re

__all__ = ["match_choice", "normalise"]


def normalise(text: str) -> str:
    """Lower case, underscores as spaces, no article, no plural "s".

    Examples
    --------
    >>> normalise("The Storage_lockers")
    'storage locker'
    """
    t = re.sub(r"[_\s]+", " ", text.strip().lower()).strip(" .")
    t = re.sub(r"^(?:the|a|an) ", "", t)
    words = t.split(" ")
    last = words[-1]
    if last.endswith("oes") and len(last) > 4:
        last = last[:-2]
    elif last.endswith("s") and not last.endswith("ss") and len(last) > 3:
        last = last[:-1]
    return " ".join([*words[:-1], last])


def match_choice(value: str | None, choices: tuple[str, ...]) -> int | None:
    """The index of the option that names ``value``, or None.

    Examples
    --------
    >>> match_choice("storage locker", ("Backpack", "Suitcase", "Storage locker"))
    2
    """
    if value is None:
        return None
    wanted = normalise(value)
    for i, c in enumerate(choices):
        if normalise(c) == wanted:
            return i
    return None
