"""Solvers over belief graphs: perception replay, belief propagation, trust policies, and the
z3 consistency checker with its query for undetermined values."""

from .consistency import (
    DEFAULT_AXIOMS,
    Axiom,
    Conflict,
    ConsistencyReport,
    InconsistencyWarning,
    InconsistentGraphError,
    check,
)
from .perception import PerceptionModel, Reveal, Step, Timeline, simulate
from .possible import possible, truth_status
from .propagation import Propagator, Segment, normalise_chain
from .trust import EdgeTrust, ExitOrderTrust, FresherEvidenceTrust, TrustPolicy

__all__ = [
    "DEFAULT_AXIOMS",
    "Axiom",
    "Conflict",
    "ConsistencyReport",
    "EdgeTrust",
    "ExitOrderTrust",
    "FresherEvidenceTrust",
    "InconsistencyWarning",
    "InconsistentGraphError",
    "PerceptionModel",
    "Propagator",
    "Reveal",
    "Segment",
    "Step",
    "Timeline",
    "TrustPolicy",
    "check",
    "normalise_chain",
    "possible",
    "simulate",
    "truth_status",
]
