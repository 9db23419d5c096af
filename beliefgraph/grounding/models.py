"""The typed grounding of a story: who perceived each sentence, what supports each row.

A ``StoryGrounding`` is what one reading of a story returns, whether an LLM wrote it (one
call per story, ``beliefgraph.grounding.llm``) or the offline matcher
(``beliefgraph.grounding.offline``): a ``Scene`` per story sentence (who is there to perceive
it, who speaks it, whose private thought it is) and a ``RowEvidence`` per proposition asked
about (the sentences that support it, how each holder in its chain came by it, whether the
story states, contradicts or leaves it open, its frame and the kind of thing it is about).

The class docstrings of ``Scene`` and ``RowEvidence`` (and ``GroundingReply``'s) are part of the
reply schema sent to the model, hence of every request's cache key: changing them changes
the requests (bump ``PROMPT_VERSION``; the recorded answers would no longer replay).

None of these fields is an OmniToM label: they are readings of the text. The labels are
computed from them by the engine (``beliefgraph.grounding.rules``).

``StoryGrounding.model_validate(data, context={...})`` checks the reply against the story it
answers: sentence numbers inside the segmenter's numbering, one scene per sentence, every row
answered exactly once, one ``how`` per holder, names that are the story's actors. Those
errors are what an LLM is re-asked with.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationInfo, model_validator

from beliefgraph.models import BeliefModel, ContentType

__all__ = ["FRAMES", "HOLDINGS", "SETTLEMENTS", "SUPPORTS", "WORDINGS", "Frame", "Holding",
           "RowEvidence", "RowReading", "Scene", "Settlement", "StoryGrounding", "Support",
           "Wording"]  # fmt: skip

Holding = Literal["narrated", "saw", "heard", "remembers", "inferred", "imagined"]
"""How a holder came by a proposition.

``narrated``: the narrator states the holder's mental state without saying how it arose;
``saw``: the holder perceived the event or state; ``heard``: someone said it to the holder
(or within the holder's hearing); ``remembers``: the holder knew it from before (their own
earlier experience, or a look they can no longer repeat); ``inferred``: nobody told or showed
it, the holder worked it out from what they perceived; ``imagined``: a pretend, dreamt or
supposed state.
"""
HOLDINGS: tuple[str, ...] = ("narrated", "saw", "heard", "remembers", "inferred", "imagined")

Support = Literal["stated", "contradicted", "not_stated"]
"""Whether the story (as reality) states the proposition, contradicts it, or leaves it open."""
SUPPORTS: tuple[str, ...] = ("stated", "contradicted", "not_stated")

Frame = Literal["none", "lie", "omission", "hypothetical", "pretend", "outdated"]
"""The frame the holder's belief sits in: produced by a lie or a withheld fact, inside a
hypothetical or pretend frame, outdated (the world changed since, or a recalled past state),
or none of these."""
FRAMES: tuple[str, ...] = ("none", "lie", "omission", "hypothetical", "pretend", "outdated")


Wording = Literal["said", "thought", "implied", "none"]
"""How the proposition itself reaches its (outermost) holder in words.

``said``: p itself, in any wording, is said aloud by or to the holder; ``thought``: the
narrator states p as the holder's own thought, feeling, wish or decision; ``implied``: what is
said or narrated only implies p (an agreement read from "that works", a wish read from a
question, a consequence, a scalar implicature, the motive behind a remark); ``none``: p is not
put into words for the holder at all (seen, done, or worked out).
"""
WORDINGS: tuple[str, ...] = ("said", "thought", "implied", "none")

Settlement = Literal["fact", "claim", "judgement", "contradicted", "open"]
"""What in the story settles the innermost proposition.

``fact``: the narrator reports p as what happens or is, or p follows necessarily from what is
narrated; ``claim``: only a character's sincere assertion supports p and nothing contradicts
it; ``judgement``: p is an evaluation, opinion, prediction, possibility, advice or obligation,
or a reading of someone's intention or feeling, that no narrated fact settles;
``contradicted``: the story shows p false; ``open``: nothing in the story bears on p.
"""
SETTLEMENTS: tuple[str, ...] = ("fact", "claim", "judgement", "contradicted", "open")


def _key(name: Any) -> str:
    return " ".join(str(name).replace("\u2019", "'").replace("\u2018", "'").lower().split())


class Scene(BeliefModel):
    """Who could perceive one story sentence."""

    n: int = Field(ge=1)
    """The sentence's number in the segmenter's numbering (1-based, ``SentenceSpan.index``)."""
    present: list[str] = Field(default_factory=list)
    """The actors there to see or hear what the sentence narrates."""
    involved: list[str] = Field(default_factory=list)
    """The actors taking part in what the sentence narrates (who acts, who is addressed or
    acted on): those who know that the others there know it."""
    speaker: str | None = None
    """The actor who says something in this sentence (None: nobody speaks)."""
    private_to: str | None = None
    """The actor whose unspoken thought, feeling or wish the sentence narrates (None: none)."""


class RowEvidence(BeliefModel):
    """The evidence for one proposition asked about, and how its holders came by it."""

    row: int = Field(ge=0)
    """The row's number in the list asked about (0-based)."""
    sentences: list[int] = Field(default_factory=list)
    """The sentences that state or show the proposition (empty: nothing in the story does)."""
    how: list[Holding] = Field(default_factory=list)
    """For each holder of the chain, outermost first, how that holder came by the belief
    below it (for "A thinks B thinks p": how A came to think B thinks p, then how B came to
    think p). Empty for a world fact."""
    support: Support = "not_stated"
    """Whether the story states, contradicts or leaves open the innermost proposition."""
    frame: Frame = "none"
    """The frame of the belief (see ``Frame``)."""
    stated_to_holder: bool = False
    """Whether the story puts the belief itself into words for its (outermost) holder: said
    to or by them, or narrated as their thought."""
    kind: ContentType = "Action/Event"
    """What the innermost proposition is about (the typed reading)."""


class RowReading(RowEvidence):
    """The evidence for one proposition, with the closer readings of the detailed prompt."""

    worded: Wording = "none"
    """How p itself reaches the outermost holder in words (see ``Wording``)."""
    settled: Settlement = "open"
    """What in the story settles the innermost p (see ``Settlement``)."""
    mutual: list[str] = Field(default_factory=list)
    """The actors who, with the outermost holder, know p and can tell that each other know it
    (they witnessed or heard it together, or it was announced to them); just the holder when
    nobody else can."""
    reports_speech: bool = False
    """Whether p is itself the report that someone said, asked, told or suggested something
    ("A says that ...")."""


class StoryGrounding(BeliefModel):
    """The grounding of every row of one story."""

    scenes: list[Scene] = Field(default_factory=list)
    """One per story sentence, in order."""
    rows: list[RowEvidence | RowReading] = Field(default_factory=list)
    """One per row asked about, in order."""
    source: Literal["offline", "llm"] = "offline"
    """Who read the text: the offline matcher or an LLM."""

    @model_validator(mode="before")
    @classmethod
    def _actor_spelling(cls, data: Any, info: ValidationInfo) -> Any:
        """Spell scene names as the actor list does (case, quotes, spacing may differ), and
        give world rows no ``how`` (a narrated fact has no holder to have come by it)."""
        ctx = info.context if isinstance(info.context, dict) else {}
        if not isinstance(data, dict) or not ctx.get("actors"):
            return data
        known = {_key(a): a for a in ctx["actors"]}

        def fix(name: Any) -> Any:
            return known.get(_key(name), name) if isinstance(name, str) else name

        scenes = []
        for sc in data.get("scenes") or []:
            if isinstance(sc, dict):
                sc = {
                    **sc,
                    **{f: [fix(a) for a in sc.get(f) or []] for f in ("present", "involved")},
                }
                sc.update({f: fix(sc.get(f)) for f in ("speaker", "private_to") if f in sc})
            scenes.append(sc)
        rows = [
            {**r, "mutual": [fix(a) for a in r["mutual"]]}
            if isinstance(r, dict) and isinstance(r.get("mutual"), list)
            else r
            for r in data.get("rows") or []
        ]
        chains = ctx.get("chains")
        if chains is not None:  # a world fact has no holder, so no 'how' to give
            rows = [
                {**r, "how": []}
                if isinstance(r, dict)
                and isinstance(r.get("row"), int)
                and 0 <= r["row"] < len(chains)
                and not chains[r["row"]]
                else r
                for r in rows
            ]
        return {**data, "scenes": scenes, "rows": rows}

    @model_validator(mode="after")
    def _fits_story(self, info: ValidationInfo) -> StoryGrounding:
        ctx = info.context if isinstance(info.context, dict) else {}
        errors: list[str] = []
        nums = [s.n for s in self.scenes]
        if nums != list(range(1, len(nums) + 1)):
            errors.append(f"scenes must be numbered 1..{len(nums)} in order, got {nums}")
        if (n_sent := ctx.get("sentences")) is not None and len(self.scenes) != n_sent:
            errors.append(f"expected one scene per sentence ({n_sent}), got {len(self.scenes)}")
        n_sent = ctx.get("sentences", len(self.scenes))
        rows = [r.row for r in self.rows]
        if (chains := ctx.get("chains")) is not None:
            want = list(range(len(chains)))
            if sorted(rows) != want or len(set(rows)) != len(rows):
                missing = sorted(set(want) - set(rows))
                twice = sorted({r for r in rows if rows.count(r) > 1})
                extra = sorted(set(rows) - set(want))
                errors.append(
                    f"every row 0..{len(want) - 1} must be answered exactly once "
                    f"(missing {missing}, answered twice {twice}, unknown {extra})"
                )
            for r in self.rows:
                if r.row < len(chains) and len(r.how) != len(chains[r.row]):
                    errors.append(
                        f"row {r.row}: 'how' needs one entry per holder "
                        f"({len(chains[r.row])}: {list(chains[r.row])}), got {r.how}"
                    )
        for r in self.rows:
            bad = [n for n in r.sentences if not 1 <= n <= n_sent]
            if bad:
                errors.append(f"row {r.row}: sentence numbers {bad} are not 1..{n_sent}")
        if (actors := ctx.get("actors")) is not None:
            known = set(actors)
            for r in self.rows:
                bad_names = sorted(set(getattr(r, "mutual", ())) - known)
                if bad_names:
                    errors.append(
                        f"row {r.row}: 'mutual' names {bad_names}, which are not actors of the "
                        f"story (use exactly: {sorted(known)})"
                    )
            for s in self.scenes:
                names = [*s.present, *s.involved, s.speaker, s.private_to]
                bad_names = sorted({a for a in names if a is not None and a not in known})
                if bad_names:
                    errors.append(
                        f"sentence {s.n}: {bad_names} are not actors of the story "
                        f"(use exactly: {sorted(known)})"
                    )
        if errors:
            raise ValueError("; ".join(errors))
        return self

    def scene(self, n: int) -> Scene | None:
        """The scene of sentence ``n`` (1-based; None when there is none)."""
        return self.scenes[n - 1] if 1 <= n <= len(self.scenes) else None

    def row(self, i: int) -> RowEvidence | None:
        """The evidence of row ``i`` (None when the grounding has none)."""
        return next((r for r in self.rows if r.row == i), None)
