"""``name_key``: a plural thing matches its singular, a proper name keeps its letters.

Before, every name lost a final "s" ("Miles" -> "mile", "James" -> "jame"): names are not
plurals. A capitalised last word now keeps it; a lower-case one is still a plural.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from beliefgraph.parsers.llm.convert import split_sentences, to_story
from beliefgraph.parsers.llm.schema import (
    StoryParse,
    mentioned,
    name_key,
    short_names,
    thing_key,
)

NOUN = st.from_regex(r"[a-z]{3,10}", fullmatch=True).filter(lambda w: not w.endswith("s"))
NAME = st.from_regex(r"[A-Z][a-z]{2,10}", fullmatch=True)


def test_proper_names_keep_their_final_s() -> None:
    assert name_key("Miles") == "miles"
    assert name_key("James") == "james"
    assert name_key("Lucas Jones") == "lucas jones"
    assert name_key("James'") == "james"  # a possessive apostrophe is not a letter
    assert name_key("Miles") != name_key("Mile")


def test_plural_things_still_match_their_singular() -> None:
    assert name_key("crates") == name_key("crate") == "crate"
    assert name_key("the green_crates") == "green crate"
    assert name_key("ripe mangos") == "ripe mango"
    assert mentioned("crate", "Anne puts it in the crates.")
    assert mentioned("the crates", "Anne puts it in the crate.")


def test_a_name_is_found_in_the_text_and_by_its_short_forms() -> None:
    assert mentioned("Miles", "Miles waves at Esme.")
    assert mentioned("Miles's hat", "Esme takes Miles's hat.")
    aliases = short_names(["Miles Hawkins", "Esme Hart"])
    assert aliases[name_key("Miles")] == "Miles Hawkins"  # the model's "Miles" names him


@given(NOUN)
def test_a_lower_case_plural_keys_as_its_singular(noun: str) -> None:
    assert name_key(noun + "s") == name_key(noun) == noun


@given(NAME)
def test_a_capitalised_name_keys_as_itself_in_lower_case(name: str) -> None:
    assert name_key(name) == name.lower()
    assert name_key(f"{name}s") == f"{name}s".lower()


def test_a_thing_is_one_thing_whatever_the_case_of_its_name() -> None:
    """A model that lists "Apples" (capitalised) and moves "apples" names one thing.

    A thing's name is never proper, so only a person's capitalised name keeps its "s"; before
    ``thing_key`` the two spellings keyed as "apples" and "apple", two things, and the
    schema check asked the model again for a thing it had listed.
    """
    text = "Ann puts the apples in the basket."
    sentences = split_sentences(text)
    reply = {
        "actors": ["Ann"],
        "entities": [
            {"name": "Apples", "kind": "object"},
            {"name": "basket", "kind": "container"},
        ],
        "items": [
            {"type": "action", "sentence": 0, "kind": "move", "actors": ["Ann"],
             "obj": "apples", "destination": "basket"},
        ],
    }  # fmt: skip
    assert thing_key("Apples") == thing_key("apples") == name_key("apples")
    parse = StoryParse.model_validate(reply, context={"sentences": [text], "coverage": True})
    story = to_story(text, sentences, parse)
    things = [e.name for e in story.entities if e.kind == "object"]
    assert things == ["Apples"]
    assert [ev.obj for ev in story.events] == ["Apples"]
