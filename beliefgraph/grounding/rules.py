"""Evidence -> labels: the seven OmniToM labels of a grounded proposition, each with its source.

The engine decides every label from the grounding (``StoryGrounding``); nothing here asks a
model for a label. The rules encode the schema's definitions (seed 000, App. A; the release's
labelling prompt ``official/prompts_label.py``):

- **Order** (source ``chain``): the number of holders; a world fact is order 0.
- **Truth Status** (``evidence``): a world fact is narrated, so True. For an actor's belief,
  True when the story states the proposition, False when it contradicts it, Unknown when it
  leaves it open. A nested belief is judged against what the inner holder believes: True or
  False only when the inner holder came by it from the story (saw, heard, remembers,
  narrated), Unknown when the inner holder could only have inferred or imagined it.
- **Knowledge Access** (``evidence``). The release's Stage 2 prompt: "who could realistically
  know it in the story world": *Private* "if the belief is held internally without evidence
  others know it"; *Shared* "if it is mutually known within a subgroup through explicit
  acknowledgment or obvious mutual awareness"; *Public* "if it is common ground across all
  actors (announced, jointly witnessed, or mutually known to be mutually known)". Implemented:
  a world fact is narrated to every reader, so Public (a narrated wish or decision too: the
  paper's worked example, App. E, labels "Xiao Hong wants to move to a bigger office" at
  order 0 Public). For an actor's belief, a private thought, an inference or an imagination
  is Private (held internally); otherwise the actors who mutually know the evidence sentence
  (``_mutual``: a thought's thinker alone; an utterance's speaker and everyone there to hear
  it; an event's parties; an onlooker alone) are counted against the story's actors: every
  actor, and at least two of them -> Public; two or more -> Shared; one -> Private (common
  ground needs two minds, so a lone actor's perception is Private even when the actor list
  names nobody else). An outdated belief (the world changed since) is Private: the mutual
  knowledge ended when the state changed, as in the graph's rule (``beliefgraph.labelling``:
  only those who still hold the same value share it). Beliefs about beliefs are Private
  (held internally; nobody perceives another's model of a third mind).
- **Representation** (``evidence``): world facts are narrated, Explicit. An actor's belief
  is Explicit when the story puts it into words for the holder (said to or by them, or
  narrated as their thought), Implicit when it must be inferred from actions, perception or
  context.
- **Content Type** (``reading``): Epistemic for beliefs about beliefs, else the typed
  reading of the proposition; a world fact read as Epistemic (the narrator telling that
  someone saw, noticed or found something) is Action/Event: Epistemic is for *beliefs* about
  knowledge or awareness, and a world fact has no believer.
- **Mental Source** (``evidence``): Narration for world facts only; else how the outermost
  holder came by it: saw -> Perception (Memory when the belief is outdated: a look the
  holder can no longer repeat; Inference when the story never states the proposition, as
  what is not shown cannot be seen), heard -> Testimony, remembers -> Memory, inferred ->
  Inference, imagined -> Imagination, narrated (a mental state the narrator gives the holder
  without saying how it arose: a plan, a need, a decision drawn from the narrated situation)
  -> Inference (the schema's Unknown is "when the source is not recoverable from the story").
- **Context** (``evidence``): a lie or a withheld fact -> Deceptive; a hypothetical or
  pretend frame -> Counterfactual; an outdated state -> Temporal; else Neutral.

A row read by the detailed grounding call (``RowReading``: OmniToM's ``omnitom.ground.v1``)
carries closer readings, which decide where they apply: Truth Status from ``settled`` (a
narrated fact or an uncontradicted claim True, contradicted False, a judgement, prediction
or reading of a mind that no narrated fact settles Unknown: the schema "prefers Unknown over
speculative completion"); Representation from ``worded`` (Explicit when p itself is said to
or by the holder or narrated as their thought; an implication of what was said is Implicit);
Knowledge Access from ``mutual`` (the holder and those who can tell the holder knows it,
counted as above); Mental Source Perception for a heard row that reports the speech itself
("A says that ...": the utterance was perceived, its content need not be trusted).

A row without evidence (no sentence supports it) gets the same rules, which then read as the
closed world: nobody told or showed the holder, so the belief is inferred, Implicit, Private
and Unknown; those labels are attributed to ``closed-world`` so the attribution table tells
them apart from labels read off evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from beliefgraph.models import (
    Context,
    KnowledgeAccess,
    MentalSource,
    Representation,
    TruthStatus,
)

from .models import Holding, RowEvidence, RowReading, StoryGrounding

__all__ = ["SOURCE_OF", "label_from_evidence"]

SOURCE_OF: dict[Holding, MentalSource] = {
    # A mental state the narrator gives the holder (a plan, a need, a decision) is one the
    # holder drew from the situation the story narrates: its source is recoverable, and the
    # schema keeps Unknown for "when the source is not recoverable from the story" (seed 000,
    # App. A), so Inference.
    "narrated": "Inference",
    "saw": "Perception",
    "heard": "Testimony",
    "remembers": "Memory",
    "inferred": "Inference",
    "imagined": "Imagination",
}
"""Mental Source by how the holder came by the belief."""

_GROUNDED = frozenset({"narrated", "saw", "heard", "remembers"})


def label_from_evidence(
    chain: tuple[str, ...],
    ev: RowEvidence,
    grounding: StoryGrounding,
    cast: Sequence[str],
) -> tuple[dict[str, str], dict[str, str]]:
    """The seven labels of the proposition ``ev`` grounds, and where each came from.

    Parameters
    ----------
    chain : tuple of str
        The holder chain, outermost first (``()`` for a world fact).
    ev : RowEvidence
        The row's evidence.
    grounding : StoryGrounding
        The story's grounding (its scenes say who perceived each sentence).
    cast : sequence of str
        The story's actors (all of them: Public means all of them).

    Returns
    -------
    (labels, sources) : (dict, dict)
        Dimension -> label and dimension -> ``chain``, ``reading``, ``evidence``,
        ``closed-world`` or ``schema``.

    Examples
    --------
    >>> from beliefgraph.grounding import ground_offline
    >>> g = ground_offline(["Ann and Bob sit.", 'Ann says, "The cake is burnt."'], ["Ann", "Bob"],
    ...                    [(("Bob",), "The cake is burnt"), (("Bob",), "Ann is hungry")])
    >>> labels, sources = label_from_evidence(("Bob",), g.rows[0], g, ["Ann", "Bob"])
    >>> labels  # doctest: +NORMALIZE_WHITESPACE
    {'order': '1', 'truth_status': 'True', 'knowledge_access': 'Public',
     'representation': 'Explicit', 'content_type': 'Contents/Physical State',
     'mental_source': 'Testimony', 'context': 'Neutral'}
    >>> labels, sources = label_from_evidence(("Bob",), g.rows[1], g, ["Ann", "Bob"])
    >>> labels["mental_source"], labels["knowledge_access"], sources["knowledge_access"]
    ('Inference', 'Private', 'closed-world')
    """
    order = len(chain)
    found = "evidence" if ev.sentences else "closed-world"
    labels: dict[str, str] = {"order": str(order)}
    sources: dict[str, str] = {"order": "chain"}
    labels["content_type"] = "Epistemic" if order >= 2 else ev.kind
    sources["content_type"] = "chain" if order >= 2 else "reading"
    if order == 0 and ev.kind == "Epistemic":
        # Epistemic is for *beliefs* about knowledge, attention or awareness; a world fact has
        # no believer, and the narrator telling that someone saw or found something tells a
        # happening: Action/Event ("happenings or actions", App. A).
        labels["content_type"] = "Action/Event"
    if order == 0:
        # Narrated to every reader, a narrated wish or decision included: the schema's worked
        # example labels "Xiao Hong wants to move to a bigger office" (order 0) Public.
        fixed = {"truth_status": "True", "knowledge_access": "Public",
                 "representation": "Explicit", "mental_source": "Narration"}  # fmt: skip
        for dim, value in fixed.items():
            labels[dim], sources[dim] = value, "schema"
        labels["context"], sources["context"] = _context(ev), "reading"
        return _ordered(labels), _ordered(sources)
    labels["truth_status"], sources["truth_status"] = _truth(ev), found
    labels["knowledge_access"], sources["knowledge_access"] = (
        _access(chain, ev, grounding, cast),
        found,
    )
    rep: Representation = "Explicit" if _explicit(order, ev) else "Implicit"
    labels["representation"], sources["representation"] = rep, found
    how = ev.how[0] if ev.how else "inferred"
    if how == "narrated" and isinstance(ev, RowReading) and ev.worded == "said":
        # the holder puts it into words from their own knowledge: what the grounding prompt
        # calls "remembers" ("what they say from their own knowledge")
        how = "remembers"
    if how in ("saw", "remembers") and _support(ev) == "not_stated" and order == 1:
        how = "inferred"  # what the story never shows cannot be seen or recalled: read into it
    if order >= 2 and how != "imagined":
        how = "inferred"  # another mind is never perceived or told whole: it is inferred
    if how == "heard" and order == 1 and isinstance(ev, RowReading) and ev.reports_speech:
        how = "saw"  # that someone said it is the utterance the holder heard: perceived
    source: MentalSource = SOURCE_OF[how]
    if source == "Perception" and ev.frame == "outdated" and order == 1:
        source = "Memory"
    labels["mental_source"], sources["mental_source"] = source, found
    labels["context"], sources["context"] = _context(ev), "reading"
    return _ordered(labels), _ordered(sources)


_DIMS = ("order", "truth_status", "knowledge_access", "representation", "content_type",
         "mental_source", "context")  # fmt: skip


def _explicit(order: int, ev: RowEvidence) -> bool:
    """Whether the belief itself is put into words for its holder.

    Heard or said (``heard``, a speaker's own ``remembers``) or narrated as the holder's
    thought (``narrated``); what the holder saw or worked out is Implicit whatever the
    words around it. A belief about a belief is Explicit only when the narrator states it.
    """
    if not ev.stated_to_holder or not ev.how:
        return False
    if order >= 2:
        return ev.how[0] == "narrated"
    return ev.how[0] in ("heard", "remembers", "narrated")


def _ordered(d: dict[str, str]) -> dict[str, str]:
    return {k: d[k] for k in _DIMS}


def _support(ev: RowEvidence) -> str:
    """Whether the story states, contradicts or leaves open the innermost proposition.

    The shared reading's ``support``, refined by a detailed reading's ``settled``: a narrated
    fact or an uncontradicted claim is stated (a seen event whose holder the model read as
    not shown believing it is still shown); a proposition nothing in the story bears on is
    open; what the story overturns is contradicted, unless the narration also states it (a
    past state the narration verified: the schema's "Temporal + True ... accurate recall of
    a past fact"; a holder who missed the change is the graph's to find, where it aligns). A
    judgement the model reads as such keeps the shared reading (measured: leaving every
    stated judgement Unknown lowered one half of the dev stories).
    """
    if not isinstance(ev, RowReading):
        return ev.support
    if ev.settled == "contradicted":
        return "stated" if ev.support == "stated" else "contradicted"
    if ev.settled in ("fact", "claim"):
        return "stated"
    if ev.settled == "open":
        return "not_stated"
    return ev.support


def _truth(ev: RowEvidence) -> TruthStatus:
    support = _support(ev)
    if support == "not_stated":
        return "Unknown"
    if len(ev.how) >= 2 and ev.how[-1] not in _GROUNDED:
        return "Unknown"  # the inner holder could only guess it
    return "True" if support == "stated" else "False"


def _mutual(ev: RowEvidence, grounding: StoryGrounding, holder: str | None) -> set[str]:
    """Who mutually knows what the evidence sentences narrate, with ``holder`` among them.

    A private thought: its thinker only. Said aloud: the speaker and everyone there to hear
    it (announced). An event: the parties to it (who acts, who is addressed or acted on)
    know that each other know; an onlooker knows it alone (nothing shows the others that it
    knows), so the result is the holder.
    """
    out: set[str] = set()
    # The first sentence narrates the event; later ones may narrate someone perceiving it
    # ("Ann sees that Bob ..."), whose perceiver is no party to the event itself.
    for n in sorted(ev.sentences)[:1]:
        scene = grounding.scene(n)
        if scene is None:
            continue
        parties = set(scene.involved) | ({scene.speaker} if scene.speaker else set())
        if scene.speaker:  # said aloud: announced to everyone there to hear it
            parties |= set(scene.present)
        if scene.private_to:
            out.add(scene.private_to)
        elif holder is None or holder in parties:
            out |= parties
        else:
            out.add(holder)  # an onlooker or overhearer: nothing shows the others it knows
    return out


def _by_count(who: set[str], cast: Sequence[str]) -> KnowledgeAccess:
    """Public: every actor and at least two of them; Shared: two or more; else Private.

    Common ground needs two minds: what a single actor perceived is held "internally without
    evidence others know it" (the release's Private) even when that actor is the only one
    the story (or the grounding's actor list) names.
    """
    everyone = set(cast)
    knowers = who & everyone
    if len(knowers) < 2:
        return "Private"
    return "Public" if knowers >= everyone else "Shared"


def _access(
    chain: tuple[str, ...], ev: RowEvidence, grounding: StoryGrounding, cast: Sequence[str]
) -> KnowledgeAccess:
    if len(chain) >= 2 or not ev.how or ev.how[0] not in ("saw", "heard", "remembers"):
        return "Private"
    if ev.frame == "outdated":
        # A state that changed since is no longer common ground: whoever saw the change holds
        # another value (the graph's labeler counts only who "still holds the same value").
        return "Private"
    if isinstance(ev, RowReading) and ev.worded == "implied":
        # "Private is used for internal or unshared beliefs, even when the underlying event
        # itself is public" (seed 000, App. A): what the holder reads into what was said is
        # their own, however many heard the words.
        return "Private"
    if isinstance(ev, RowReading):
        # The model named who mutually knows it: the holder and those who can tell that the
        # holder knows it too (the release's "explicit acknowledgment or obvious mutual
        # awareness"); counted against the cast as the scenes' knowers are.
        return _by_count({chain[0], *ev.mutual}, cast)
    who = _mutual(ev, grounding, chain[0])
    if chain[0] not in who:
        return "Private"
    return _by_count(who, cast)


def _context(ev: RowEvidence) -> Context:
    if ev.frame in ("lie", "omission"):
        return "Deceptive"
    if ev.frame in ("hypothetical", "pretend"):
        return "Counterfactual"
    if ev.frame == "outdated":
        return "Temporal"
    return "Neutral"
