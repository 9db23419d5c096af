"""Closed word lists the chunker and the frame grammar rely on.

Open-class words (object, container, room and actor names) are never listed: they are
whatever fills a slot between these closed-class words. The lists are lower-case.

Examples
--------
>>> "the" in CLOSED, "basket" in CLOSED, "enter" in FRAME_VERBS
(True, False, True)
"""

import gzip
import json
from functools import cache
from importlib.resources import files

__all__ = [
    "ABSENT",
    "ANIMALS",
    "CLOSED",
    "DETERMINERS",
    "FRAME_VERBS",
    "LABEL_NOUNS",
    "NOT_NAMES",
    "PERSON_NOUNS",
    "PRONOUNS",
    "SKIPPED",
    "TIME_NOUNS",
    "word_classes",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@cache
def word_classes() -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """(verb, noun, adjective, adverb) lemmas of English, from spacy-lookups-data's index.

    The index is WordNet's word lists (8,700 verbs, 57,500 nouns, 21,000 adjectives,
    3,800 adverbs),
    installed with the lookup lemmatizer; without a tagger it is how the chunker tells
    "Kofi repaired his net" (a verb after the name) from "the repaired net". Loaded once,
    on first use.

    Examples
    --------
    >>> verbs, nouns, adjectives, _ = word_classes()
    >>> "repair" in verbs, "dolphin" in verbs, "dolphin" in nouns, "local" in adjectives
    (True, False, True, True)
    """
    index = json.loads(gzip.decompress(_LOOKUPS.joinpath("en_lemma_index.json.gz").read_bytes()))
    return tuple(frozenset(index[k]) for k in ("verb", "noun", "adj", "adv"))  # type: ignore[return-value]


_LOOKUPS = files("spacy_lookups_data") / "data"


DETERMINERS = _words("the a an some his her their its my your our another")

# Object and subject pronouns, mapped to the reference they need: "it" is the last object,
# "they" the last group of actors, "he"/"she" the last single actor of that gender (or of
# unknown gender).
PRONOUNS = {
    "it": "it",
    "they": "they",
    "them": "they",
    "he": "he",
    "she": "she",
    "him": "he",
    "her": "she",
}

# Common nouns that name a person: "his mother", "the teacher" act like names. The gender,
# where the noun has one, lets "she" find "his mother" rather than "Tom".
PERSON_NOUNS: dict[str, str | None] = {
    **dict.fromkeys(
        _words(
            "mother mom mum mommy mummy sister aunt grandmother grandma granny girl woman lady "
            "wife daughter niece girlfriend queen princess waitress"
        ),
        "she",
    ),
    **dict.fromkeys(
        _words(
            "father dad daddy brother uncle grandfather grandpa boy man gentleman husband son "
            "nephew boyfriend king prince waiter"
        ),
        "he",
    ),
    **dict.fromkeys(
        _words(
            "friend roommate teacher neighbour neighbor classmate cousin parent child kid baby "
            "colleague coworker boss teammate partner sibling grandparent babysitter nanny "
            "doctor nurse chef cook guest visitor stranger assistant apprentice gardener "
            "stagehand customer tourist villager worker employee owner manager clerk student "
            "vendor shopkeeper artisan"
        ),
        None,
    ),
}

# Nouns of time: "in the afternoon", "the next morning", "an hour later" say when, not what.
TIME_NOUNS = _words(
    "morning afternoon evening night day week weekend month year moment minute minutes "
    "hour hours second seconds while lunch dinner breakfast supper lunchtime bedtime noon "
    "midnight today tonight tomorrow yesterday monday tuesday wednesday thursday friday "
    "saturday sunday vacation holiday"
)

# States in which an actor perceives nothing around them: "while Sally was asleep".
ABSENT = _words(
    "away out gone outside absent asleep sleeping napping busy distracted elsewhere upstairs "
    "downstairs showering bathing"
)

# Adverbs that add nothing to an event; dropped before frames are matched. "privately"
# and "publicly" are not here: they decide who hears a telling.
SKIPPED = _words(
    "then now later also soon again finally next meanwhile afterwards immediately quickly "
    "suddenly still just already carefully slowly happily sadly eventually both however "
    "unfortunately fortunately luckily overnight earlier unexpectedly"
)

_PREPOSITIONS = _words(
    "in into inside to on onto at out of from for with around round about back by off "
    "through towards toward under behind near over up down away outside underneath beneath "
    "beside between upstairs downstairs indoors outdoors home upon during along across past "
    "toward throughout within without amid"
)
_CONJUNCTIONS = _words(
    "and or but so because while when after before once that what where which who whom "
    "whose if than as"
)
_AUXILIARIES = _words(
    "is are was were be been being am do does did can cannot could will would shall should "
    "may might must not n't ca wo no there here this these those"
)
_TELLING = _words(
    "privately publicly secretly quietly together everyone everybody unbeknownst unaware"
)

CLOSED = (
    ABSENT
    | _PREPOSITIONS
    | _CONJUNCTIONS
    | _AUXILIARIES
    | _TELLING
    | DETERMINERS
    | frozenset(PRONOUNS)
    | SKIPPED
)

# Verb lemmas the frames are built on: a bare (article-less) noun phrase never contains one,
# so "Youyou enters the basement and sees the box" splits at "sees".
FRAME_VERBS = _words(
    "enter exit leave move put place take remove pull get see notice spot find discover open "
    "close shut tell whisper claim announce say declare love like hate dislike enjoy lose "
    "have stay remain make wander stroll roam hang walk go come return run head step want "
    "play transfer carry drop hide grab pick look arrive reach reappear bury store stash "
    "tuck slip stuff slide push lock set lay keep eat drink break spill throw text inform "
    "shout lie dig wake fall sleep watch search swap replace empty explain mention warn "
    "assure reply answer call message email witness observe realize know"
)

# Capitalised words that start sentences but never name an actor ("May" and "Will" do).
NOT_NAMES = (CLOSED - {"may", "will"}) | _words("someone somebody nobody")

# Head nouns of "the label on the box is ..." sentences.
LABEL_NOUNS = _words("label tag sticker sign note")

# Seeing an animal is a distractor (Hi-ToM's "Owen saw a cat."), not a look at a container.
ANIMALS = _words(
    "cat dog monkey mouse bird rabbit horse cow pig sheep goat duck chicken fox frog snake "
    "squirrel puppy kitten rat bear lion tiger elephant deer owl butterfly bee"
)
