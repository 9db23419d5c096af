"""Story-independent event templates: what one sentence says before pronouns are resolved.

A sentence always reads the same way, so its templates are cached by text; the story
assembler (``assemble``) then resolves pronouns, canonical names and room-or-container
ambiguities against the story so far and numbers the events.
"""

from __future__ import annotations

from dataclasses import dataclass

from beliefgraph.models import ContentType, EventKind

__all__ = ["Mention", "PropTemplate", "Template", "Who"]


@dataclass(frozen=True, slots=True)
class Who:
    """Actors as the sentence names them: a list of names, or a pronoun to resolve."""

    names: tuple[str, ...] = ()
    pronoun: str | None = None
    """``"they"`` (the last group), or ``"he"``/``"she"`` (the last single actor who may
    be referred to so)."""
    genders: tuple[str | None, ...] = ()
    """Per name, the gender the text gives it ("his mother": "she"), else None."""


@dataclass(frozen=True, slots=True)
class Mention:
    """A mention of a non-agent: text as written without article, or the pronoun "it"."""

    text: str
    key: str = ""
    """The text with its head noun lemmatised: "backpacks" and "backpack" share a key."""
    pronoun: bool = False


@dataclass(frozen=True, slots=True)
class PropTemplate:
    """A proposition whose subject and value may still be mentions or actor references."""

    content_type: ContentType
    subject: Mention | Who
    relation: str
    value: Mention | str | None = None
    negated: bool = False
    about: PropTemplate | None = None
    """For Epistemic content ("Aria believes that her flour is fresh"): what the subject,
    the holder, believes."""
    preposition: str | None = None
    """For a location: "on", "under", ... (None: "in")."""
    referent: Mention | None = None
    """For an act whose complement is kept verbatim ("checks the water level in the
    canal"): its object, which a following "it" refers to rather than the one acting."""


@dataclass(frozen=True, slots=True)
class Template:
    """One event as a sentence describes it.

    ``place`` marks readings the assembler finishes: ``"find_in"`` (the location found in
    is a room or a container, depending on what the story has said about it) and
    ``"find"`` (an object found after opening a container is that container's contents).
    """

    kind: EventKind
    actors: Who | None = None
    obj: Mention | None = None
    origin: Mention | None = None
    destination: Mention | None = None
    room: Mention | None = None
    prop: PropTemplate | None = None
    hearers: Who | None = None
    private: bool = False
    place: str | None = None
