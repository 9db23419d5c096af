"""The typed vocabulary of beliefgraph: actors, entities, propositions, events, beliefs."""

from .actor import Actor
from .answer import Answer
from .base import BeliefModel
from .belief import Belief
from .cost import ParseCost
from .entity import Entity
from .event import Event
from .implied import HOWS, How, ImpliedBelief
from .labels import (
    CONTENT_TYPES,
    CONTEXTS,
    KNOWLEDGE_ACCESS,
    MENTAL_SOURCES,
    REPRESENTATIONS,
    TRUTH_STATUSES,
    ContentType,
    Context,
    EntityKind,
    EventKind,
    KnowledgeAccess,
    MentalSource,
    Representation,
    TruthStatus,
)
from .proposition import Proposition
from .story import ParsedStory, Sentence
from .trust_edge import TRUST_LEVELS, TrustEdge, TrustLevel, trust_level

__all__ = [
    "CONTENT_TYPES",
    "CONTEXTS",
    "HOWS",
    "KNOWLEDGE_ACCESS",
    "MENTAL_SOURCES",
    "REPRESENTATIONS",
    "TRUST_LEVELS",
    "TRUTH_STATUSES",
    "Actor",
    "Answer",
    "Belief",
    "BeliefModel",
    "ContentType",
    "Context",
    "Entity",
    "EntityKind",
    "Event",
    "EventKind",
    "How",
    "ImpliedBelief",
    "KnowledgeAccess",
    "MentalSource",
    "ParseCost",
    "ParsedStory",
    "Proposition",
    "Representation",
    "Sentence",
    "TrustEdge",
    "TrustLevel",
    "TruthStatus",
    "trust_level",
]
