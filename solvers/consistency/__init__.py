"""Check a belief graph for consistency with z3: named axioms, minimal conflicts, plain English.

A ``BeliefGraph`` is encoded as finite-domain constraints over *pictures*: for every holder
chain (``()`` is reality) and every story variable, the value the chain takes it to have at
each time step. A location is one integer per object (its place; any unnamed value means
"somewhere the story never names"), a yes/no fact one boolean. The graph's facts are its
events (what each one does to the world, who perceives it, what it shows or tells) and its
beliefs (derived by propagation, or asserted with ``graph.add_belief``); the axioms are
registered rules (``beliefgraph.registry.axioms``) that tie them together:

==================== ========================================================================
unique_location      a thing is in one place at a time; "box contains x" is read as "x is
                     in the box" (a belief about a place is about the holder's one picture)
no_contradiction     no holder, at any order, believes p and not-p over the same span
factive              knowledge is true: a belief sourced by Perception and labelled True
                     holds in reality (order 1), or for the inner holder (order n), where
                     it starts and where its truth is judged (the last step of its span)
introspection        "A believes A believes p" exactly when "A believes p"
perception_source    a Perception belief starts at an event all its holders perceived that
                     shows it
testimony_source     a Testimony belief starts at a telling all its holders heard that
                     asserts it (never at the speaker's own telling)
memory_source        a Memory belief was shown or told to its holders by an event no later
                     than its start (the look it rests on)
persistence          a picture changes only at an event its holders perceived or were told
                     about (a speaker's own belief survives their lie)
observation          an event the holders perceived sets their picture to what it shows
frame                a thing's place changes only by a move of it, and no state changes by
                     being seen or labelled: "The key is in the drawer. The key is in the
                     box." with no move between is a conflict naming both lines
mover_present        whoever moves a thing is on stage, in the room of its container
taken_from           a thing taken out of a container was in it
hearer_present       a named hearer of a public telling is in the speaker's room
inference_evidence   an Inference belief's outermost holder perceived an event of its
                     provenance (the hint, look or remark it was inferred from)
==================== ========================================================================

Each constraint is asserted under the literals of the facts it encodes and of the axioms it
relies on; z3's unsat core of those literals, shrunk by deletion, names the clashing beliefs,
the events and the axioms of each conflict. z3 types never leave this package.

The package: ``report`` (the report, the error, the warning), ``axiom`` (the ``Axiom``
record, names, resolution), ``terms`` (raw z3 builders), ``encoding`` (pictures, claims,
the first pass, the tracked solver), ``axioms`` (one family of registered axioms per
module) and ``check``.

Time is finite and unrolled: a chain's picture is materialised only at the steps where
something can happen to it (an event it perceives, the start of a belief, a probe), and
consecutive materialised steps are linked by ``persistence`` or ``observation``, so the
encoding grows with beliefs and perceived events, not with the story's length times actors.
A first, untracked pass substitutes the equalities those two axioms force and leaves z3 the
rest; only an inconsistent graph pays for the tracked encoding that names its conflicts.

Limits: a proposition with Epistemic content ("Sally thinks p") is checked as an opaque
yes/no fact, not linked to the chain ``(..., "Sally")`` (state nested beliefs as holder chains
to have them reasoned about); beliefs with an empty value or span are listed as ``unchecked``;
a telling *permits* a hearer to change belief but never forces it (trust is the propagator's
business), and a container label is a permitted, not a forced, change.
"""

from . import axioms  # noqa: F401  (importing it registers the built-in axioms)
from .axiom import DEFAULT_AXIOMS, Axiom, Constraint, resolve_axioms
from .check import check, derived_beliefs, gc_paused
from .encoding import Encoding, key_test, var_test
from .report import Conflict, ConsistencyReport, InconsistencyWarning, InconsistentGraphError

__all__ = [
    "DEFAULT_AXIOMS",
    "Axiom",
    "Conflict",
    "ConsistencyReport",
    "Constraint",
    "Encoding",
    "InconsistencyWarning",
    "InconsistentGraphError",
    "check",
    "derived_beliefs",
    "gc_paused",
    "key_test",
    "resolve_axioms",
    "var_test",
]
