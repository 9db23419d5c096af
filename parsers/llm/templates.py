"""The prompt templates (``prompts/*.txt``), shipped as package data and versioned by file name.

A template file ``NAME.vN.txt`` holds a system part, then messages each opened by a line
``---user---`` or ``---assistant---`` (a worked example is a user and an assistant message
before the real question; a template with no system part starts with a marker). Placeholders are
``string.Template`` fields (``$sentences``); ``$items`` is replaced by ``items.vN.txt``,
the description of the output schema every prompt shares. Changing a prompt means adding
a new version file and bumping ``PROMPT_VERSION``; the cache key holds the version and a
hash of the text, so an edited template never serves stale answers.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from importlib.resources import files
from string import Template

__all__ = ["PROMPT_VERSION", "Prompt", "load_prompt", "render"]

PROMPT_VERSION = "v2"
_MARKER = re.compile(r"^---(user|assistant)---$", re.M)


class Prompt:
    """One template: its id (``story.v2``), its messages, and a hash of its text."""

    def __init__(self, ident: str, text: str) -> None:
        self.id = ident
        self.sha = hashlib.sha256(text.encode()).hexdigest()[:16]
        self.parts: list[tuple[str, Template]] = []
        role = "system"
        for piece in _MARKER.split(text):
            if piece in ("user", "assistant"):
                role = piece
            elif piece.strip():
                self.parts.append((role, Template(piece.strip())))

    def messages(self, **fields: str) -> list[dict[str, str]]:
        """The chat messages with ``fields`` filled in (a missing field is an error)."""
        return [{"role": role, "content": t.substitute(fields)} for role, t in self.parts]


@cache
def load_prompt(name: str, version: str = PROMPT_VERSION) -> Prompt:
    """Read ``prompts/NAME.VERSION.txt`` from the package, with ``$items`` filled in.

    Examples
    --------
    >>> load_prompt("story").id
    'story.v2'
    """
    ident = f"{name}.{version}"
    root = files(__package__) / "prompts"
    try:
        text = (root / f"{ident}.txt").read_text(encoding="utf-8")
        items = (root / f"items.{version}.txt").read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        known = sorted(p.name for p in root.iterdir() if p.name.endswith(".txt"))
        raise FileNotFoundError(f"no prompt template {ident!r}; shipped: {known}") from None
    return Prompt(ident, text.replace("$items", items))


def render(name: str, **fields: str) -> tuple[Prompt, list[dict[str, str]]]:
    """The template and its filled-in messages."""
    prompt = load_prompt(name)
    return prompt, prompt.messages(**fields)
