"""beliefgraph: typed multi-actor belief graphs for theory-of-mind research.

>>> from beliefgraph import track
>>> g = track("Sally and Anne are in the room. Sally puts the ball in the basket. "
...           "Sally goes out. Anne moves the ball to the box.")
>>> g.ask("Where does Anne think Sally thinks the ball is?").value
'basket'
"""

from beliefgraph.api import track, using_parser
from beliefgraph.errors import (
    BeliefGraphError,
    ConfigurationError,
    DataFormatError,
    UnknownNameError,
    UnparsedSentenceError,
    UnsupportedQuestionError,
)
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Answer, Belief, Event, ParseCost, ParsedStory, Proposition
from beliefgraph.parsers.llm import track_dialogue
from beliefgraph.solvers import ExitOrderTrust, FresherEvidenceTrust, PerceptionModel
from beliefgraph.solvers.consistency import ConsistencyReport, InconsistentGraphError, check

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "Belief",
    "BeliefGraph",
    "BeliefGraphError",
    "ConfigurationError",
    "ConsistencyReport",
    "DataFormatError",
    "Event",
    "ExitOrderTrust",
    "FresherEvidenceTrust",
    "InconsistentGraphError",
    "ParseCost",
    "ParsedStory",
    "PerceptionModel",
    "Proposition",
    "UnknownNameError",
    "UnparsedSentenceError",
    "UnsupportedQuestionError",
    "check",
    "track",
    "track_dialogue",
    "using_parser",
]
