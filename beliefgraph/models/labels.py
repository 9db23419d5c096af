"""Closed label vocabularies.

The belief dimensions use the OmniToM schema's label names exactly (seed 000, App. A);
``Trust`` is DialToM's addition and is a number, so it has no vocabulary here.
"""

from typing import Literal, get_args

__all__ = [
    "CONTENT_TYPES",
    "CONTEXTS",
    "KNOWLEDGE_ACCESS",
    "MENTAL_SOURCES",
    "REPRESENTATIONS",
    "TRUTH_STATUSES",
    "ContentType",
    "Context",
    "EntityKind",
    "EventKind",
    "KnowledgeAccess",
    "MentalSource",
    "Representation",
    "TruthStatus",
]

TruthStatus = Literal["True", "False", "Unknown"]
KnowledgeAccess = Literal["Private", "Shared", "Public"]
Representation = Literal["Explicit", "Implicit"]
ContentType = Literal[
    "Location",
    "Contents/Physical State",
    "Identity/Relation",
    "Epistemic",
    "Desire/Intention",
    "Emotion",
    "Trait/Value",
    "Action/Event",
]
MentalSource = Literal[
    "Narration", "Perception", "Memory", "Testimony", "Inference", "Imagination", "Unknown"
]
Context = Literal["Neutral", "Temporal", "Deceptive", "Counterfactual"]

EntityKind = Literal["object", "container", "room"]

EventKind = Literal[
    "enter",  # actors arrive in a room
    "exit",  # actors leave a room
    "stay",  # actors are seen to stay where they are
    "move",  # an actor moves an object to a container
    "observe",  # actors look and see a state (find, open and look inside)
    "label",  # actors see a container's label: a default belief about its contents
    "narrate",  # the narrator states a fact (no actor need perceive it)
    "tell",  # a speaker asserts a proposition to hearers
    "open",  # a container is opened (its contents become visible)
    "close",  # a container is closed
]

TRUTH_STATUSES: tuple[str, ...] = get_args(TruthStatus)
KNOWLEDGE_ACCESS: tuple[str, ...] = get_args(KnowledgeAccess)
REPRESENTATIONS: tuple[str, ...] = get_args(Representation)
CONTENT_TYPES: tuple[str, ...] = get_args(ContentType)
MENTAL_SOURCES: tuple[str, ...] = get_args(MentalSource)
CONTEXTS: tuple[str, ...] = get_args(Context)
