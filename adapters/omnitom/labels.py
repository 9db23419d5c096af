"""The seven OmniToM label sets and the release's label canonicalisation.

The label sets are the schema's (seed 000, App. A), the same vocabularies the belief models
use. ``canonical`` maps a predicted label onto its legal spelling the way the release's
Stage 2 scorer does (App. B.3, "label-normalization note"): only trimmed strings, prefixed
forms ("Truth Status: True", "Order 2") and known aliases (the paper's compact display
labels "Physical", "Action", ...) are accepted; anything else is noise and scores as wrong.
"""

from __future__ import annotations

import re

from beliefgraph.models import (
    CONTENT_TYPES,
    CONTEXTS,
    KNOWLEDGE_ACCESS,
    MENTAL_SOURCES,
    REPRESENTATIONS,
    TRUTH_STATUSES,
)

__all__ = ["DIMENSIONS", "DISPLAY", "LABEL_SETS", "canonical"]

DIMENSIONS: tuple[str, ...] = (
    "order",
    "truth_status",
    "knowledge_access",
    "representation",
    "content_type",
    "mental_source",
    "context",
)
"""The seven dimensions, in the release's column order (the JSON keys of ``labels``)."""

DISPLAY: dict[str, str] = {
    "order": "Order",
    "truth_status": "Truth Status",
    "knowledge_access": "Knowledge Access",
    "representation": "Representation",
    "content_type": "Content Type",
    "mental_source": "Mental Source",
    "context": "Context",
}
"""The paper's names of the dimensions."""

LABEL_SETS: dict[str, tuple[str, ...]] = {
    "order": ("0", "1", "2", "3"),
    "truth_status": TRUTH_STATUSES,
    "knowledge_access": KNOWLEDGE_ACCESS,
    "representation": REPRESENTATIONS,
    "content_type": CONTENT_TYPES,
    "mental_source": MENTAL_SOURCES,
    "context": CONTEXTS,
}
"""The closed label set of each dimension."""

# Known aliases: the paper's compact display labels (App. E) and the halves of the
# slash-joined content types. Keys are lower case.
_ALIASES: dict[str, dict[str, str]] = {
    "content_type": {
        "physical": "Contents/Physical State",
        "physical state": "Contents/Physical State",
        "contents": "Contents/Physical State",
        "content": "Contents/Physical State",
        "identity": "Identity/Relation",
        "relation": "Identity/Relation",
        "desire": "Desire/Intention",
        "intention": "Desire/Intention",
        "trait": "Trait/Value",
        "value": "Trait/Value",
        "action": "Action/Event",
        "event": "Action/Event",
    },
    "order": {"zero": "0", "first": "1", "second": "2", "third": "3"},
    "representation": {"explicitly": "Explicit", "implicitly": "Implicit"},
}
_STRIP = " \t\r\n\"'`*_.,;:|"


def canonical(dimension: str, value: object) -> str | None:
    """The legal label ``value`` stands for on ``dimension``, or None for noise.

    Parameters
    ----------
    dimension : str
        One of ``DIMENSIONS``.
    value : object
        The predicted label (a string; an int is read as an order).

    Returns
    -------
    str or None
        The label as the schema spells it; None when ``value`` is not a variant of one.

    Raises
    ------
    KeyError
        For a dimension that is not one of the seven.

    Examples
    --------
    >>> canonical("truth_status", " true ")
    'True'
    >>> canonical("content_type", "physical state"), canonical("content_type", "Action")
    ('Contents/Physical State', 'Action/Event')
    >>> canonical("order", "Order: 2"), canonical("order", 3)
    ('2', '3')
    >>> canonical("context", "Content Type: Neutral") is None  # the wrong dimension's prefix
    True
    >>> canonical("mental_source", "probably perception") is None
    True
    """
    legal = LABEL_SETS[dimension]
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip(_STRIP)
    text = _strip_prefix(dimension, text).strip(_STRIP)
    if dimension == "order":
        text = re.sub(r"(?i)^(\d)(?:st|nd|rd|th)?(?:[\s-]*order)?$", r"\1", text)
    key = re.sub(r"\s*/\s*", "/", " ".join(text.split())).lower()
    for label in legal:
        if key == label.lower():
            return label
    return _ALIASES.get(dimension, {}).get(key)


def _strip_prefix(dimension: str, text: str) -> str:
    """Remove "Truth Status:", "truth_status =", "Order" and the like before the label."""
    words = DISPLAY[dimension].lower().split()
    name = r"[\s_-]*".join(re.escape(w) for w in words)
    match = re.match(rf"(?i)^{name}\s*[:=\-]?\s*", text)
    if match and match.end() < len(text):
        return text[match.end() :]
    return text
