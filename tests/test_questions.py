"""Reading templated questions into queries."""

from __future__ import annotations

import pytest

from beliefgraph import UnsupportedQuestionError
from beliefgraph.questions import read_question


@pytest.mark.parametrize(
    ("question", "kind", "chain", "target", "relation"),
    [
        ("Where was the spinach at the beginning?", "memory", (), "spinach", "in"),
        ("Where is the spinach really?", "reality", (), "spinach", "in"),
        ("Where will Avery look for the spinach?", "belief", ("Avery",), "spinach", "in"),
        (
            "Where does Avery think that Ella searches for the spinach?",
            "belief",
            ("Avery", "Ella"),
            "spinach",
            "in",
        ),
        ("Where does Noah really think the lemon is?", "belief", ("Noah",), "lemon", "in"),
        (
            "Where does Noah think Liam thinks Avery thinks Lily thinks the lemon is?",
            "belief",
            ("Noah", "Liam", "Avery", "Lily"),
            "lemon",
            "in",
        ),
        ("Where is the hat now?", "reality", (), "hat", "in"),
        ("Where is the hat before?", "memory", (), "hat", "in"),
        ("What is in the box?", "reality", (), "box", "contains"),
        ("What should be inside the storage locker?", "label", (), "storage locker", "contains"),
        (
            "After Youyou opens the box, "
            "what does Xiao Li think Youyou expects to find in the box?",
            "belief",
            ("Xiao Li", "Youyou"),
            "box",
            "contains",
        ),
    ],
)
def test_templated_forms(question, kind, chain, target, relation) -> None:
    q = read_question(question)
    assert (q.kind, q.chain, q.target, q.relation) == (kind, chain, target, relation)


def test_lead_in_is_kept_and_expectations_read_before_it() -> None:
    q = read_question("After Youyou returns to the basement, where does Xiao Li look for the hat?")
    assert q.lead_in == "Youyou returns to the basement"
    assert not q.before_lead_in
    q = read_question("After Youyou opens the box, what does Youyou expect to find in the box?")
    assert q.before_lead_in


def test_unsupported_question_names_itself() -> None:
    with pytest.raises(UnsupportedQuestionError, match="Why is the sky blue"):
        read_question("Why is the sky blue?")
