"""Option values that differ by a negating prefix contradict each other (review, stop 14).

Before, two values sharing any content word were "the same" ("ripe and sweet" / "unripe and
sweet", "the crate holds ripe plums" / "the crate holds unripe plums"), so a belief supported
the option it contradicts. Wordings here are invented, not benchmark rows.
"""

from __future__ import annotations

from beliefgraph.adapters.choices import choose_by_belief, read_option, verdict
from beliefgraph.models import Belief, Proposition


def _state(subject: str, value: str, negated: bool = False) -> Proposition:
    return Proposition(content_type="Contents/Physical State", subject=subject, relation="be",
                       value=value, negated=negated)  # fmt: skip


def test_a_prefix_negated_value_contradicts() -> None:
    assert verdict(_state("plums", "ripe and sweet"), _state("plums", "unripe and sweet")) == -1
    assert verdict(_state("gate", "locked"), _state("gate", "unlocked")) == -1
    assert verdict(_state("ink", "visible"), _state("ink", "invisible")) == -1
    assert verdict(_state("plums", "ripe and sweet"), _state("plums", "ripe and soft")) == 1


def test_contents_with_a_negated_modifier_contradict() -> None:
    held = read_option("the crate holds ripe plums")
    other = read_option("the crate holds unripe plums")
    assert held and other
    said = [verdict(h, o) for h in held for o in other]
    assert 1 not in said and -1 in said


def test_the_belief_chooses_the_option_it_supports() -> None:
    belief = Belief(holders=("Noor",), proposition=_state("plums", "ripe and sweet"), start=1,
                    truth_status="True", knowledge_access="Private",
                    representation="Explicit", mental_source="Perception")  # fmt: skip
    options = [read_option("The plums are unripe and sweet."), read_option("The plums are ripe.")]
    chosen = choose_by_belief([belief], options)
    assert chosen is not None and chosen[0] == 1
