"""The LLM grounding call: one request per story grounds every row asked about.

The model reads text and reports what the text says (who could perceive each sentence, which
sentences support each proposition, how each holder came by it); it is never asked for an
OmniToM label. The engine turns the reply into labels (``beliefgraph.grounding.rules``).

The request depends only on the story's text and the rows (their holder chains and
propositions), never on the story's parse, so it is independent of the parse call and both
can go into one batch round. The reply (``GroundingReply``) is validated against the story:
one scene per sentence of the segmenter's numbering, every row answered exactly once, one
``how`` per holder, names from the given actor list; a reply that fails is re-asked with the
errors by the client, and the answer is cached by the client.

``PROMPT_VERSION`` names the prompt and reply schema; change it whenever either changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from beliefgraph.models import BeliefModel
from beliefgraph.text import numbered

from .models import RowEvidence, Scene, StoryGrounding

__all__ = [
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "GroundingReply",
    "LLMGrounder",
    "grounding_context",
    "grounding_messages",
    "make_llm_grounder",
]

PROMPT_VERSION = "beliefgraph.ground.v1"
"""The grounding prompt and reply schema's version."""

SYSTEM_PROMPT = """\
You read a short story and link each listed proposition to the story sentences that support it.
You do not label or judge beliefs: you report what the text says - who could perceive each
sentence, which sentences support each proposition, and how each holder came by it.

Part 1, "scenes": one entry for EVERY numbered sentence, in order (n = its number, from 1):
- present: the actors physically there to see or hear what the sentence narrates, at that moment.
- involved: the actors taking part in it: who acts or speaks, who is addressed, who is acted on.
  Not actors merely mentioned as what someone sees, hears or thinks about.
- speaker: the actor who speaks aloud in the sentence, or null.
- private_to: the actor whose unspoken thought, feeling, wish or private perception the sentence
  narrates (nobody else could perceive it), or null.
Use actor names exactly as given in the actor list; leave out anyone not in it.

Part 2, "rows": one entry for EVERY numbered row, each exactly once (row = its number, from 0).
A row is a holder chain and a proposition p: "A : p" means A believes p; "A > B : p" means A
believes that B believes p; "world : p" is a fact the narrator states.
- sentences: the numbers of the sentences that state or show p (or the mental state the row is
  about); [] when no sentence does (p is only implied, hinted or guessed).
- how: one entry per holder, outermost first: how that holder came by the belief below it. For
  "A > B : p": first how A came to think that B believes p, then how B came to believe p.
  "narrated": the story states the holder's mental state but not how it arose;
  "saw": the holder perceived the event or state themself (was there, looked, noticed);
  "heard": someone said it to the holder or within their hearing (also: B telling A what B thinks);
  "remembers": the holder knew it before the narrated moment (background knowledge, their own
  earlier experience, what they say from their own knowledge, or a state they saw before it
  changed out of their sight);
  "inferred": nobody told or showed it; the holder worked it out (the intention behind a look or
  a hint, what another person thinks, an implication, a guess);
  "imagined": pretend, dreamt or supposed.
  For a world row, how = [].
- support: "stated" if the narration states p or p follows directly from what is narrated (what a
  sincere speaker asserts counts); "contradicted" if the story shows p is false; "not_stated" if p
  is only possible, predicted, hinted, asked, wished, or the story does not settle it.
- frame: "lie" if a lie, trick or misdirection produced or bears on this belief; "omission" if a
  withheld fact does; "hypothetical" if p sits in an if/would frame; "pretend" for pretence or
  imagination; "outdated" if p is a past state that no longer holds or the holder's information
  is out of date; otherwise "none".
- stated_to_holder: true if the story puts this belief itself into words for the outermost holder
  (the holder says it, is told it, or the narrator states it as their thought); false if it must
  be inferred from actions, perception or context.
- kind: what p is about: "Location" (where an entity is or was), "Contents/Physical State" (what a
  container holds, an object's condition), "Identity/Relation" (who someone is, roles, relations),
  "Epistemic" (knowledge, belief, attention, awareness), "Desire/Intention" (plans, goals,
  wishes), "Emotion" (feelings), "Trait/Value" (lasting qualities, preferences, judgements of
  worth), "Action/Event" (actions and happenings).

Reply with one JSON object: {"scenes": [...], "rows": [...]}."""


class GroundingReply(BeliefModel):
    """The model's reply: one scene per sentence and one evidence entry per row."""

    scenes: list[Scene] = Field(default_factory=list)
    """One per story sentence, in order."""
    rows: list[RowEvidence] = Field(default_factory=list)
    """One per row asked about."""

    @model_validator(mode="before")
    @classmethod
    def _spelling(cls, data: Any, info: ValidationInfo) -> Any:
        return StoryGrounding._actor_spelling(data, info)  # type: ignore[call-arg]

    @model_validator(mode="after")
    def _fits(self, info: ValidationInfo) -> GroundingReply:
        # The same checks as StoryGrounding's, so the model is re-asked with their errors.
        StoryGrounding.model_validate(
            {"scenes": self.scenes, "rows": self.rows, "source": "llm"}, context=info.context
        )
        return self

    def to_grounding(self) -> StoryGrounding:
        """The reply as a ``StoryGrounding`` read by an LLM."""
        return StoryGrounding(scenes=self.scenes, rows=self.rows, source="llm")


def _chain_text(chain: Sequence[str]) -> str:
    return " > ".join(chain) if chain else "world"


def grounding_messages(
    sentences: Sequence[str],
    actors: Sequence[str],
    rows: Sequence[tuple[tuple[str, ...], str]],
) -> list[dict[str, str]]:
    """The system prompt and the user message (actors, numbered sentences, numbered rows).

    Examples
    --------
    >>> m = grounding_messages(["Ann sits.", "Bob waves."], ["Ann", "Bob"],
    ...                        [((), "Ann sits"), (("Bob", "Ann"), "Bob waves")])
    >>> print(m[1]["content"])
    Actors: Ann; Bob
    <BLANKLINE>
    Story sentences:
    [1] Ann sits.
    [2] Bob waves.
    <BLANKLINE>
    Rows:
    [0] world : Ann sits
    [1] Bob > Ann : Bob waves
    """
    user = (
        "Actors: "
        + "; ".join(actors)
        + "\n\nStory sentences:\n"
        + numbered(sentences)
        + "\n\nRows:\n"
        + "\n".join(f"[{i}] {_chain_text(c)} : {p}" for i, (c, p) in enumerate(rows))
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def grounding_context(
    sentences: Sequence[str],
    actors: Sequence[str],
    rows: Sequence[tuple[tuple[str, ...], str]],
) -> dict[str, Any]:
    """What the reply is validated against (sentence count, chains, actor names)."""
    return {"sentences": len(sentences), "chains": [c for c, _ in rows], "actors": list(actors)}


class LLMGrounder:
    """Ground a story's rows with one LLM call, through the project's LLM client.

    Parameters
    ----------
    client : object
        The LLM client: ``client.extract(response_model, messages, context=..., prompt=...)``
        returns the validated reply, with the client's cache, re-asks and batch export (a
        request written to a batch file raises ``AnswerPending``).

    Examples
    --------
    >>> class Echo:  # a stand-in client that answers every row as inferred
    ...     def extract(self, response_model, messages, *, context=None, prompt=None):
    ...         return response_model.model_validate({
    ...             "scenes": [{"n": i + 1} for i in range(context["sentences"])],
    ...             "rows": [{"row": i, "how": ["inferred"] * len(c)}
    ...                      for i, c in enumerate(context["chains"])]}, context=context)
    >>> g = LLMGrounder(Echo()).ground(["Ann sits."], ["Ann"], [(("Ann",), "Ann is tired")])
    >>> g.source, g.rows[0].how
    ('llm', ['inferred'])
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls = 0

    def ground(
        self,
        sentences: Sequence[str],
        actors: Sequence[str],
        rows: Sequence[tuple[tuple[str, ...], str]],
    ) -> StoryGrounding:
        """The grounding of ``rows`` in the story ``sentences`` (one call, or the cache)."""
        self.calls += 1
        reply = self.client.extract(
            GroundingReply,
            grounding_messages(sentences, actors, rows),
            context=grounding_context(sentences, actors, rows),
            prompt=PROMPT_VERSION,
        )
        return reply.to_grounding()


def make_llm_grounder(**settings: Any) -> LLMGrounder:
    """An ``LLMGrounder`` over the same client the LLM parser builds from ``settings``.

    The settings are the LLM parser's (``base_url``, ``model``, ``mode``, ``cache``,
    ``batch_out``, ... and the environment variables it reads), so the grounding call shares
    the parse call's endpoint, cache and batch file.

    Raises
    ------
    ConfigurationError
        When no endpoint is configured (the message names the variables to set).
    """
    from beliefgraph.parsers.llm import make_llm_parser

    return LLMGrounder(make_llm_parser(strict=False, **settings).client)
