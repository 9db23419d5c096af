"""OmniToM's own grounding call: the shared grounding reading, plus closer readings of each row.

``omnitom.ground.v1`` replaces the shared grounding call (``beliefgraph.ground.v1``) in an
OmniToM Stage 2 run, so a story still costs one parse and one grounding request, independent
of each other. The request holds only the story's numbered sentences, the actor list (the
rows' holders) and the numbered rows: never the parse, a gold label, an example or the
story's category. The model reads text; the engine decides every label
(``beliefgraph.grounding.rules``).

The prompt is the shared one (its scenes and row fields, word for word) with four more row
fields (``beliefgraph.grounding.RowReading``), each a reading of the text that the release's
Stage 2 definitions (``official/prompts_label.py``) turn on:

- ``worded`` (Representation: "Explicit if the belief is directly stated, spoken, or narrated
  as a mental state; Implicit if it must be inferred from actions, perception, or context"):
  whether p *itself* is said to or by the holder, narrated as their thought, only implied by
  what is said, or not put into words;
- ``settled`` (Truth Status: "True if verified or entailed by the narration ... Unknown if
  the narrative does not provide sufficient evidence"): a narrated fact, a character's
  uncontradicted claim, a judgement or prediction no fact settles, contradicted, or open;
- ``mutual`` (Knowledge Access: Shared "mutually known within a subgroup through explicit
  acknowledgment or obvious mutual awareness", Public "common ground across all actors"):
  the actors who know p together with the holder and can tell that each other do;
- ``reports_speech`` (Mental Source: the belief that someone *said* something rests on
  hearing the utterance, a perception, not on trusting its content).

The shared prompt stays fixed (every other benchmark's recorded answers replay by its cache
key); this one is a new version, used by OmniToM only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from beliefgraph.grounding import LLMGrounder, StoryGrounding, grounding_context
from beliefgraph.grounding.llm import SYSTEM_PROMPT as SHARED_PROMPT
from beliefgraph.grounding.llm import grounding_messages
from beliefgraph.grounding.models import RowReading, Scene
from beliefgraph.models import BeliefModel

__all__ = ["PROMPT_VERSION", "SYSTEM_PROMPT", "OmniGrounder", "ReadingReply", "reading_messages"]

PROMPT_VERSION = "omnitom.ground.v1"
"""The OmniToM grounding prompt and reply schema's version."""

_EXTRA = """\
- worded: how p ITSELF reaches the outermost holder in words (for a world row: how the
  narrator puts it):
  "said": p itself, in any wording, is said aloud by the holder or to them (or within their
  hearing); "thought": the narrator states p as the holder's own thought, feeling, wish or
  decision; "implied": what is said or narrated only implies p - an agreement read from
  a casual reply, a wish or curiosity read from a question, a consequence, a scalar
  implicature, the motive or reasoning behind a remark; "none": p is not put into words for
  the holder at all (the holder saw it, did it, or worked it out).
- settled: what in the story settles the innermost p:
  "fact": the narrator reports p as what happens or is, or p follows necessarily from what is
  narrated; "claim": only a character's sincere assertion supports p, and nothing in the
  story contradicts it; "judgement": p is an evaluation, opinion, prediction, possibility,
  advice or obligation, or a reading of someone's intention or feeling, that no narrated
  fact settles; "contradicted": the story shows p is false; "open": nothing in the story
  bears on p.
- mutual: the actors (from the actor list, the outermost holder included) who know p
  together with the holder and can tell that each other know it: they witnessed or heard it
  together, took part in it together, or it was announced to them. Just [holder] when nobody
  else can tell; for a world row, every actor who witnessed or was told it together.
- reports_speech: true if p is itself the report that someone said, asked, told or suggested
  something ("A says that ..."), false otherwise.

Reply with one JSON object: {"scenes": [...], "rows": [...]}."""

_TAIL = 'Reply with one JSON object: {"scenes": [...], "rows": [...]}.'
assert SHARED_PROMPT.endswith(_TAIL)  # the shared prompt's rows part is extended, not changed
SYSTEM_PROMPT = SHARED_PROMPT.removesuffix(_TAIL).rstrip("\n") + "\n" + _EXTRA
"""The shared grounding prompt with the four closer readings of each row."""


class ReadingReply(BeliefModel):
    """The model's reply: one scene per sentence and one detailed reading per row."""

    scenes: list[Scene] = Field(default_factory=list)
    """One per story sentence, in order."""
    rows: list[RowReading] = Field(default_factory=list)
    """One per row asked about."""

    @model_validator(mode="before")
    @classmethod
    def _spelling(cls, data: Any, info: ValidationInfo) -> Any:
        return StoryGrounding._actor_spelling(data, info)  # type: ignore[call-arg]

    @model_validator(mode="after")
    def _fits(self, info: ValidationInfo) -> ReadingReply:
        # The shared checks, so the model is re-asked with their errors.
        StoryGrounding.model_validate(
            {"scenes": self.scenes, "rows": self.rows, "source": "llm"}, context=info.context
        )
        return self

    def to_grounding(self) -> StoryGrounding:
        """The reply as a ``StoryGrounding`` read by an LLM (its rows keep the readings)."""
        return StoryGrounding(scenes=self.scenes, rows=list(self.rows), source="llm")


def reading_messages(
    sentences: Sequence[str],
    actors: Sequence[str],
    rows: Sequence[tuple[tuple[str, ...], str]],
) -> list[dict[str, str]]:
    """The system prompt and the user message (the shared grounding call's user message).

    Examples
    --------
    >>> m = reading_messages(["Ann sits."], ["Ann"], [(("Ann",), "Ann sits")])
    >>> m[0]["content"].startswith(SHARED_PROMPT.splitlines()[0]), "worded" in m[0]["content"]
    (True, True)
    """
    user = grounding_messages(sentences, actors, rows)[1]
    return [{"role": "system", "content": SYSTEM_PROMPT}, user]


class OmniGrounder(LLMGrounder):
    """Ground a story's rows with OmniToM's detailed grounding call (one request per story).

    Examples
    --------
    >>> class Echo:  # a stand-in client that answers every row as inferred, told to nobody
    ...     def extract(self, response_model, messages, *, context=None, prompt=None):
    ...         return response_model.model_validate({
    ...             "scenes": [{"n": i + 1} for i in range(context["sentences"])],
    ...             "rows": [{"row": i, "how": ["inferred"] * len(c), "mutual": list(c[:1])}
    ...                      for i, c in enumerate(context["chains"])]}, context=context)
    >>> g = OmniGrounder(Echo()).ground(["Ann sits."], ["Ann"], [(("Ann",), "Ann is tired")])
    >>> g.rows[0].mutual, g.rows[0].worded
    (['Ann'], 'none')
    """

    prompt = PROMPT_VERSION

    def ground(
        self,
        sentences: Sequence[str],
        actors: Sequence[str],
        rows: Sequence[tuple[tuple[str, ...], str]],
    ) -> StoryGrounding:
        """The detailed grounding of ``rows`` in ``sentences`` (one call, or the cache)."""
        self.calls += 1
        reply = self.client.extract(
            ReadingReply,
            reading_messages(sentences, actors, rows),
            context=grounding_context(sentences, actors, rows),
            prompt=PROMPT_VERSION,
        )
        return reply.to_grounding()
