"""The built-in axioms, one family per module; importing this package registers them all.

==================== ===================================================================
module               axioms
==================== ===================================================================
``claims``           unique_location, no_contradiction
``knowledge``        factive, introspection
``sources``          perception_source, testimony_source, memory_source
``dynamics``         persistence, observation
``frame``            frame
``preconditions``    mover_present, taken_from, hearer_present
``implied``          inference_evidence
==================== ===================================================================
"""

from . import claims, dynamics, frame, implied, knowledge, preconditions, sources

__all__ = ["claims", "dynamics", "frame", "implied", "knowledge", "preconditions", "sources"]
