"""Solvers over belief graphs: perception replay, belief propagation, trust policies."""

from .perception import PerceptionModel, Reveal, Step, Timeline, simulate
from .propagation import Propagator, Segment, normalise_chain
from .trust import EdgeTrust, ExitOrderTrust, FresherEvidenceTrust, TrustPolicy

__all__ = [
    "EdgeTrust",
    "ExitOrderTrust",
    "FresherEvidenceTrust",
    "PerceptionModel",
    "Propagator",
    "Reveal",
    "Segment",
    "Step",
    "Timeline",
    "TrustPolicy",
    "normalise_chain",
    "simulate",
]
