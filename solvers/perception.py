"""Who perceives what: replay the events through a perception model.

The replay tracks where every actor is and where every object is after each event, decides
who perceives each event, and lists what each event shows its perceivers. It does not
decide what anybody believes; ``propagation`` does that from what this module reports.

The story can also say who missed what: a narrated "Mom did not hear Leo" (a negated
``hear``, ``see`` or ``notice`` of an actor) removes Mom from the perceivers of Leo's
utterances (or, for seeing, of his events) in that sentence and the one before.

Groups: an actor that names a group ("everyone", "everybody", "all of them", or a group the
``PerceptionModel`` lists with its members, "the team": Ann, Bob) stands for its members.
What the group perceives, each member with it perceives; a member's place follows the
group's (the group enters, they enter) until the story moves the member on their own, and
follows it again once the member is back where the group is. A member never perceives an
event through the group unless the group perceived it.

Scenes (``PerceptionModel.scenes``, for free text where nobody "enters" a room): an act
narrated of someone on stage ("Dad nods", "the classmates laugh") is seen by everyone in
their room, as an entry or a move is; a mental state or a fact about a person stays theirs.
A sentence that opens with a jump in time or a new place ("The next day, ...", "Two weeks
later, ...", "On Sunday night, ...", "Back at home, ...") after the story has begun starts a
new scene: nobody is present until they take part in it (act, speak, are spoken to, or are
narrated acting), and then they are there.

Limits: one actor is in at most one room at a time; a room is visible as a whole (everyone
in it sees every move in it); containers are closed unless the model says otherwise; a group
named by a common noun ("the guests") has members only when the model lists them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Literal

from pydantic import Field, field_validator

from beliefgraph.models import BeliefModel, Event, ParsedStory, Proposition

__all__ = ["PerceptionModel", "Reveal", "Step", "Timeline", "groups_of", "simulate"]

Variable = tuple[str, ...]
Value = str | bool


class PerceptionModel(BeliefModel):
    """Settings of the perception model; the benchmarks' adapters switch them.

    Examples
    --------
    >>> PerceptionModel(open_containers=True).open_containers
    True
    """

    open_containers: bool = False
    """Entering a room shows where every object in it is (ToMi, Hi-ToM). Off for Sally-Anne,
    where the marble sits in a closed box."""
    scene: str = Field(default="the room", min_length=1)
    """The room of a story that never names one."""
    groups: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Group actors and their members, as the story names them: ``{"the team": ("Ann",
    "Bob")}`` or its items (kept as pairs, so the settings stay hashable). "Everyone",
    "everybody" and "all of them" need no entry: their members are every actor of the story
    that is not a group."""

    @field_validator("groups", mode="before")
    @classmethod
    def _pairs(cls, v: object) -> object:
        return tuple(v.items()) if isinstance(v, Mapping) else v

    scenes: bool = False
    """Free-text scenes: an act narrated of someone on stage is seen by those with them, and a
    sentence opening with a jump in time or a new place starts a scene with nobody present
    until they take part (module docstring). Off for the templated sets, whose rooms the
    story names."""


@dataclass(frozen=True, slots=True)
class Reveal:
    """One assignment an event shows its perceivers."""

    variable: Variable
    value: Value | None
    """None when the event shows the variable no longer holds (someone left the room)."""
    proposition: Proposition
    mode: Literal["perceive", "default", "stated"] = "perceive"
    """``default`` reveals (a label's promise) never override what was perceived; ``stated``
    ones are beliefs the narrator attributes to the perceiver ("Mom thinks ...")."""


@dataclass(frozen=True, slots=True)
class Step:
    """An event with its perceivers decided, what it shows, and the world after it."""

    event: Event
    perceivers: frozenset[str]
    reveals: tuple[Reveal, ...]
    changed: frozenset[Variable]
    world: MappingProxyType[Variable, Value]
    rooms: MappingProxyType[str, str | None]


@dataclass
class Timeline:
    """The replayed story: ``steps[t - 1]`` is the event at time ``t``."""

    steps: list[Step]
    initial_rooms: dict[str, str | None]
    container_rooms: dict[str, str]
    propositions: dict[Variable, Proposition] = field(default_factory=dict)

    def world_at(self, t: int) -> MappingProxyType[Variable, Value]:
        """The world state after the event at time ``t`` (t=0: before any event)."""
        if t <= 0 or not self.steps:
            return MappingProxyType({})
        return self.steps[min(t, len(self.steps)) - 1].world

    def room_of(self, actor: str, t: int) -> str | None:
        """Where ``actor`` is after the event at time ``t``."""
        if t <= 0 or not self.steps:
            return self.initial_rooms.get(actor)
        return self.steps[min(t, len(self.steps)) - 1].rooms.get(actor)

    def last_exit(self, actor: str, room: str | None, before: int) -> int | None:
        """The time of ``actor``'s last exit from ``room`` before time ``before``."""
        for step in reversed(self.steps[: max(before - 1, 0)]):
            e = step.event
            if e.kind == "exit" and actor in e.actors and (room is None or e.room == room):
                return e.id
        return None


def simulate(story: ParsedStory, model: PerceptionModel) -> Timeline:
    """Replay ``story``'s events under ``model``.

    Parameters
    ----------
    story : ParsedStory
        The parsed events.
    model : PerceptionModel
        Perception settings.

    Returns
    -------
    Timeline
        One ``Step`` per event, with perceivers, reveals and the world after it.

    Examples
    --------
    >>> from beliefgraph.models import Event, ParsedStory, Proposition
    >>> loc = Proposition(content_type="Location", subject="ball", relation="in", value="box")
    >>> events = (Event(id=1, kind="enter", actors=("A", "B"), room="hall"),
    ...           Event(id=2, kind="exit", actors=("B",), room="hall"),
    ...           Event(id=3, kind="move", actors=("A",), obj="ball", destination="box",
    ...                 proposition=loc))
    >>> tl = simulate(ParsedStory(text="", sentences=(), events=events, actors=("A", "B")),
    ...               PerceptionModel())
    >>> sorted(tl.steps[2].perceivers), tl.world_at(3)[("ball", "in")]
    (['A'], 'box')
    """
    return _Replay(story, model).run()


class _Replay:
    def __init__(self, story: ParsedStory, model: PerceptionModel) -> None:
        self.story = story
        self.model = model
        self.rooms: dict[str, str | None] = _initial_rooms(story, model.scene)
        self.rooms.update(_conversation_rooms(story, self.rooms, model.scene))
        self.initial_rooms = dict(self.rooms)
        self.last_room: dict[str, str | None] = dict(self.rooms)
        self.scene: str = model.scene
        self.world: dict[Variable, Value] = {}
        self.container_rooms: dict[str, str] = {}
        self.labels: dict[str, Proposition] = {}
        self.open: set[str] = set()
        self.shut: set[str] = set()  # closed by the story (not merely never opened)
        self.props: dict[Variable, Proposition] = {}
        self.anchors = _anchor_rooms(story, self.rooms, model.scene)
        self.placed: list[str] = []
        self.emptied: dict[str, list[str]] = {}  # this step: obj -> containers it left
        self.unperceived = _unperceived(story)
        self.actors = frozenset(story.actors)
        self.observing = False  # the event being replayed only looks (observe, label)
        self.groups = groups_of(story, model)
        # members with their group: where it goes they go, what it perceives they perceive
        self.following: dict[str, set[str]] = {
            g: {m for m in members if self.rooms.get(m) == self.rooms.get(g)}
            for g, members in self.groups.items()
        }
        self.offstage: set[str] = set()  # out of the scene since a scene break, until they act
        self.sentence: int | None = None  # the sentence of the last event replayed
        self.begun = False  # someone has taken part in an event (a scene can break)

    def run(self) -> Timeline:
        steps = [self._step(e) for e in self.story.events]
        return Timeline(steps, self.initial_rooms, dict(self.container_rooms), self.props)

    # -- helpers -------------------------------------------------------------------------
    def _present(self, room: str | None) -> set[str]:
        return {a for a, r in self.rooms.items() if r is not None and r == room}

    # -- groups and scenes ---------------------------------------------------------------
    def _members(self, names: set[str] | frozenset[str]) -> set[str]:
        """The members with each group among ``names``."""
        return {m for g in names if g in self.following for m in self.following[g]}

    def _carry(self, actors: tuple[str, ...]) -> None:
        """Members go where their group goes (the group's place was just set)."""
        for g in actors:
            for m in self.following.get(g, ()):
                if m not in actors:
                    self.rooms[m] = self.rooms[g]
                    self.last_room[m] = self.last_room[g]
                    self.offstage.discard(m)

    def _regroup(self, e: Event) -> None:
        """A member moved on their own leaves the group's company, or rejoins it when the
        move brings them where the group is."""
        if e.kind in ("tell", "narrate"):
            return
        for g, members in self.groups.items():
            if g in e.actors:
                continue
            for m in members.intersection(e.actors):
                here = self.rooms.get(m)
                if here is not None and here == self.rooms.get(g):
                    self.following[g].add(m)
                else:
                    self.following[g].discard(m)

    def _scene(self, e: Event) -> None:
        """A sentence opening with a jump in time or a new place starts a new scene."""
        if e.sentence_index != self.sentence:
            self.sentence = e.sentence_index
            text = self._sentence_text(e)
            if self.begun and _SCENE_BREAK.match(text):
                self.offstage = {a for a, r in self.rooms.items() if r is not None}
                for a in self.offstage:
                    self.rooms[a] = None
        if e.actors or e.hearers:
            self.begun = True

    def _sentence_text(self, e: Event) -> str:
        i = e.sentence_index
        if 0 <= i < len(self.story.sentences) and self.story.sentences[i].index == i:
            return self.story.sentences[i].text
        return e.sentence

    def _on_stage(self, names: tuple[str, ...] | list[str], room: str | None) -> None:
        """Whoever takes part in the new scene is in it."""
        for a in names:
            if a in self.offstage:
                self.offstage.discard(a)
                self.rooms[a] = self.last_room[a] = room or self.scene

    def _room_of_container(self, container: str, fallback: str | None) -> str | None:
        if container not in self.container_rooms and fallback is not None:
            where = self.world.get((container, "in"))
            if isinstance(where, str):
                # The story placed it ("the package is on the doorstep"): it stays there, in
                # the room of the place that holds it when that place has one.
                self.container_rooms[container] = self.container_rooms.get(where, fallback)
            else:
                self.container_rooms[container] = fallback
                self.placed.append(container)  # "there is a box in the room", seen there
        return self.container_rooms.get(container, fallback)

    def _actor_room(self, e: Event) -> str | None:
        for a in e.actors:
            if self.rooms.get(a) is not None:
                return self.rooms[a]
        return e.room or self.scene

    def _reveal(self, prop: Proposition, mode: Literal["perceive", "default"] = "perceive"):
        self.props.setdefault(prop.variable, prop)
        return Reveal(prop.variable, prop.assigned, prop, mode)

    def _unset(self, prop: Proposition, changed: set[Variable]) -> Reveal:
        """The variable stops holding (an actor left); perceivers see it end."""
        var = prop.variable
        self.props.setdefault(var, prop)
        if var in self.world:
            del self.world[var]
            changed.add(var)
        return Reveal(var, None, prop)

    def _action(self, prop: Proposition, changed: set[Variable]) -> Reveal:
        """The event itself as an Action/Event fact, seen by whoever perceives the event."""
        self._set(prop, changed)
        return self._reveal(prop)

    def _set(self, prop: Proposition, changed: set[Variable]) -> None:
        var, val = prop.variable, prop.assigned
        self.props.setdefault(var, prop)
        if self.world.get(var) != val:
            self.world[var] = val
            changed.add(var)
        if val is True and not self.observing:
            for old in self._superseded(prop):
                if self.world.get(old) is True:
                    self.world[old] = False
                    changed.add(old)

    def _superseded(self, prop: Proposition) -> list[Variable]:
        """The variables a state of a thing replaces: the other states with its key
        (``Proposition.key``: "the valve is open" ends "the valve is closed"). An actor's
        facts are never keyed this way ("is a fisherman", "is tired" both hold)."""
        key = prop.key
        if key is None or prop.negated or prop.subject in self.actors:
            return []
        # A state on no known scale says nothing about the others: "the box is heavy" does
        # not end "the box is big". What a label says is one text, so it still replaces.
        if key[2] == "" and key[1].startswith("be"):
            return []
        var = prop.variable
        return [v for v, p in self.props.items() if v != var and p.key == key]

    def _place(
        self, obj: str, container: str, changed: set[Variable], how: Proposition | None = None
    ) -> Proposition:
        """Put ``obj`` in ``container`` (worded as ``how`` places it: "under the tree");
        keep contents in step where the story tracks them."""
        old = self.world.get((obj, "in"))
        where = how.preposition if how is not None and how.relation == "in" else None
        loc = Proposition(
            content_type="Location", subject=obj, relation="in", value=container, preposition=where
        )
        self._set(loc, changed)
        # Contents are their own variable only in stories that talk about them (labels,
        # "what is inside"); elsewhere they would repeat every location as a second fact.
        if isinstance(old, str) and old != container and self.world.get((old, "contains")) == obj:
            del self.world[(old, "contains")]
            changed.add((old, "contains"))
            self.emptied.setdefault(obj, []).append(old)
        if (container, "contains") in self.world or container in self.labels:
            contents = Proposition(
                content_type="Contents/Physical State",
                subject=container,
                relation="contains",
                value=obj,
            )
            self._set(contents, changed)
        return loc

    def _objects_in(self, room: str | None) -> list[tuple[str, str]]:
        return [
            (var[0], str(val))
            for var, val in self.world.items()
            if var[1] == "in"
            and len(var) == 2
            and str(val) in self.container_rooms
            and self.container_rooms[str(val)] == room
        ]

    # -- one event -----------------------------------------------------------------------
    def _step(self, e: Event) -> Step:
        changed: set[Variable] = set()
        reveals: list[Reveal] = []
        handler = _HANDLERS.get(e.kind, _Replay._narrate)
        # A look changes nothing: a state seen that differs from the one the world holds
        # is another description of it, not a change ("very big", then seen "huge").
        self.observing = e.kind in ("observe", "label")
        if self.model.scenes:
            self._scene(e)
        perceivers, room = handler(self, e, changed, reveals)
        if self.groups:
            self._regroup(e)
        for container in self.placed:
            there = _located(container, self.container_rooms[container])
            self._set(there, changed)
            reveals.append(self._reveal(there))
        self.placed.clear()
        reveals.extend(self._contents_seen(reveals))
        reveals.extend(self._states_ended(reveals))
        if e.perceivers is not None:  # the parser knew better
            perceivers = set(e.perceivers)
        missed = self.unperceived.get(e.id, frozenset())
        if self.groups:  # what a group perceives (or misses), its members with it do
            perceivers |= self._members(perceivers)
            missed |= self._members(missed) - set(e.actors)  # a speaker is not his audience
        perceivers -= missed
        update: dict[str, object] = {"perceivers": tuple(sorted(perceivers))}
        if e.kind in ("enter", "exit"):
            update["room"] = room  # "Sally goes out" leaves the room she was in
        resolved = e.replaced(**update)  # model_copy without its copy.copy calls
        return Step(
            event=resolved,
            perceivers=frozenset(perceivers),
            reveals=tuple(reveals),
            changed=frozenset(changed),
            world=MappingProxyType(dict(self.world)),
            rooms=MappingProxyType(dict(self.rooms)),
        )

    def _contents_seen(self, reveals: list[Reveal]) -> list[Reveal]:
        """What a seen location shows about contents, where the story tracks them.

        "The pencil is in the box" and "the box contains the pencil" are one fact read two
        ways: whoever sees the one sees the other, so a real look overrides a label's default
        (the unexpected-contents task); and seeing a thing taken out of a tracked container
        shows it no longer holds it.
        """
        out: list[Reveal] = []
        have = {r.variable for r in reveals}
        for r in reveals:
            p = r.proposition
            if r.mode != "perceive" or p.negated or p.relation != "in" or len(r.variable) != 2:
                continue
            obj, container = p.subject, r.value
            if isinstance(container, str) and self.world.get((container, "contains")) == obj:
                twin = Proposition(
                    content_type="Contents/Physical State",
                    subject=container,
                    relation="contains",
                    value=obj,
                )
                if twin.variable not in have:
                    out.append(self._reveal(twin))
            for old in self.emptied.pop(obj, ()):
                if (old, "contains") not in have and (old, "contains") in self.props:
                    # What ends is the container holding this thing, not the first contents
                    # the story gave it (``props`` keeps a variable's first wording).
                    held = Proposition(
                        content_type="Contents/Physical State",
                        subject=old,
                        relation="contains",
                        value=obj,
                    )
                    out.append(Reveal((old, "contains"), None, held))
        self.emptied.clear()
        return out

    def _closed(self, container: str) -> bool:
        """Whether the story closed ``container`` ("Sally closes the box", "the box is
        locked") and has not opened it since."""
        if container in self.open:
            return False
        if container in self.shut:
            return True
        name = container.lower()
        return any(
            val is True
            and self.props[var].key is not None
            and self.props[var].key[0] == name
            and _state_word(self.props[var]) in _CLOSED_WORDS
            for var, val in self.world.items()
            if var in self.props
        )

    def _states_ended(self, reveals: list[Reveal]) -> list[Reveal]:
        """What a state shown ends: whoever sees "the label states Y" learns that the
        label's earlier text no longer holds, where the world says it no longer does; a
        belief the narrator states ("X thinks the valve is open") replaces X's other
        beliefs of that key, true or not."""
        have = {r.variable for r in reveals}
        out: list[Reveal] = []
        for r in reveals:
            if r.value is not True:
                continue
            for var in self._superseded(r.proposition):
                if var not in have and (r.mode == "stated" or self.world.get(var) is not True):
                    have.add(var)
                    ended = self.props[var].model_copy(update={"negated": True})
                    out.append(Reveal(var, False, ended, r.mode))
        return out

    # Each handler applies one kind of event to the world and returns who perceives it and
    # the room it happens in; ``_step`` adds what every event shares.
    def _enter(self, e: Event, changed: set[Variable], reveals: list[Reveal]) -> _Outcome:
        room = (
            e.room
            or next((self.last_room.get(a) for a in e.actors if self.last_room.get(a)), None)
            or self.scene
        )
        for a in e.actors:
            self.rooms[a] = room
            self.last_room[a] = room
            self.offstage.discard(a)
        self._carry(e.actors)
        self.scene = room
        perceivers = self._present(room)
        for a in sorted(perceivers):  # entrants see who is there, and are seen
            self._set(_located(a, room), changed)
            reveals.append(self._reveal(_located(a, room)))
        for container, label in self.labels.items():
            # Whoever sees a labelled container takes the label's word for its contents
            # until a real look; entering its room is seeing it.
            if self.container_rooms.get(container) == room:
                reveals.append(self._reveal(label, "default"))
        if self.model.open_containers:
            for obj, container in self._objects_in(room):
                loc = Proposition(
                    content_type="Location", subject=obj, relation="in", value=container
                )
                reveals.append(self._reveal(loc))
        return perceivers, room

    def _exit(self, e: Event, changed: set[Variable], reveals: list[Reveal]) -> _Outcome:
        room = e.room or self._actor_room(e)
        perceivers = self._present(room) | set(e.actors)
        for a in e.actors:
            self.last_room[a] = room
            self.rooms[a] = None
            reveals.append(self._unset(_located(a, room or self.scene), changed))
            reveals.append(self._action(_did(a, "leave", room), changed))
        self._carry(e.actors)  # the group's members leave with it, seen as the group's leaving
        return perceivers, room

    def _in_place(self, e: Event, changed: set[Variable], reveals: list[Reveal]) -> _Outcome:
        """An action in a room (move, stay, open, close, label, observe): those there see it."""
        # "Xiao Li finds a box in the basement": acting in a named room means being there.
        room = e.room or (self._actor_room(e) if e.actors else None)
        if e.room:
            for a in e.actors:
                self.rooms[a] = self.last_room[a] = e.room
        if room is None and e.obj is not None:
            room = self.container_rooms.get(e.obj, self.scene)
        for a in e.actors:  # acting in a room means being there
            if self.rooms.get(a) is None:
                self.rooms[a] = room
                self.last_room[a] = room
            self.offstage.discard(a)
        if e.room:
            self._carry(e.actors)
        _ACTIONS[e.kind](self, e, room, changed, reveals)
        return self._present(room), room

    def _move(self, e: Event, room: str | None, changed: set[Variable], reveals: list[Reveal]):
        if e.obj and e.destination:
            self._room_of_container(e.destination, room)
            placed = self._place(e.obj, e.destination, changed, e.proposition)
            reveals.append(self._reveal(placed))
            if e.agent:
                reveals.append(self._action(_did(e.agent, "move", e.obj, e.destination), changed))

    def _stay(self, e: Event, room: str | None, changed: set[Variable], reveals: list[Reveal]):
        for a in e.actors:
            reveals.append(self._action(_did(a, "stay in", room), changed))

    def _open(self, e: Event, room: str | None, changed: set[Variable], reveals: list[Reveal]):
        if not e.obj:
            return
        self.open.add(e.obj)
        self.shut.discard(e.obj)
        if e.agent:
            reveals.append(self._action(_did(e.agent, "open", e.obj), changed))
        inside = self.world.get((e.obj, "contains"))
        if isinstance(inside, str):
            contents = Proposition(
                content_type="Contents/Physical State",
                subject=e.obj,
                relation="contains",
                value=inside,
            )
            reveals.append(self._reveal(contents))

    def _close(self, e: Event, room: str | None, changed: set[Variable], reveals: list[Reveal]):
        if not e.obj:
            return
        self.open.discard(e.obj)
        self.shut.add(e.obj)
        if e.agent:
            reveals.append(self._action(_did(e.agent, "close", e.obj), changed))

    def _label(self, e: Event, room: str | None, changed: set[Variable], reveals: list[Reveal]):
        if e.proposition is None:
            return
        container = e.proposition.subject
        self._room_of_container(container, room)
        self.labels[container] = e.proposition
        reveals.append(self._reveal(e.proposition, "default"))

    def _observe(self, e: Event, room: str | None, changed: set[Variable], reveals: list[Reveal]):
        p = e.proposition
        if p is not None:
            if p.relation == "in" and p.value and not p.negated:
                self._room_of_container(p.value, room)
                reveals.append(self._reveal(self._place(p.subject, p.value, changed, p)))
            elif p.relation == "contains" and p.value and not p.negated:
                self._room_of_container(p.subject, room)
                self._set(p, changed)
                self._place(p.value, p.subject, changed)
                reveals.append(self._reveal(p))
            else:
                self._set(p, changed)
                reveals.append(self._reveal(p))
        elif e.obj is not None:
            self._room_of_container(e.obj, room)  # "they see a cabinet"
            if e.obj in self.labels:
                reveals.append(self._reveal(self.labels[e.obj], "default"))
            # Looking at a thing shows the states the story gave it ("Carlos sees the valve":
            # open); a state no longer so is shown ended by ``_states_ended``.
            name = e.obj.lower()
            for var, val in list(self.world.items()):
                key = self.props[var].key if var in self.props else None
                if val is True and key is not None and key[0] == name:
                    reveals.append(
                        self._reveal(self.props[var].model_copy(update={"negated": False}))
                    )

    def _tell(self, e: Event, changed: set[Variable], reveals: list[Reveal]) -> _Outcome:
        if self.offstage and not e.private:  # speaking to someone in a new scene is being there
            here = next((self.rooms[a] for a in e.actors if self.rooms.get(a)), None)
            self._on_stage([*e.actors, *e.hearers], here or e.room or self.scene)
        room = self._actor_room(e)
        if e.private:
            perceivers = {*e.actors, *e.hearers}
        else:
            perceivers = self._present(room) | set(e.actors) | set(e.hearers)
        if e.proposition is not None:  # what was claimed is something one can believe
            self.props.setdefault(e.proposition.variable, e.proposition)
        if e.agent and e.proposition is not None:
            said = Proposition(
                content_type="Action/Event",
                subject=e.agent,
                relation="tell",
                value=", ".join(e.hearers) or None,
                about=e.proposition,
            )
            reveals.append(self._action(said, changed))
        return perceivers, room

    def _narrate(self, e: Event, changed: set[Variable], reveals: list[Reveal]) -> _Outcome:
        room: str | None = e.room
        perceivers: set[str] = set()
        p = e.proposition
        if p is not None and p.content_type == "Epistemic" and p.holder and p.about:
            # "Mom thinks Leo wants the car": the narrator states Mom's belief.
            self._set(p, changed)
            perceivers = {p.holder}
            self.props.setdefault(p.about.variable, p.about)
            reveals.append(Reveal(p.about.variable, p.about.assigned, p.about, "stated"))
        elif p is not None:
            if p.relation == "in" and p.value and not p.negated:
                anchor = self.anchors.get(p.value) or self.anchors.get(p.subject)
                room = self._room_of_container(p.value, anchor or self.scene)
                # "There is a cup in the box" after the story closed the box: nobody sees
                # inside; on a shelf, in an open box, or a box the story never closed (the
                # scene a false-belief story sets up), those there do.
                hidden = (
                    not self.model.open_containers
                    and p.preposition is None
                    and self._closed(p.value)
                )
                perceivers = set() if hidden else self._present(room)
                reveals.append(self._reveal(self._place(p.subject, p.value, changed, p)))
            elif p.relation == "contains":
                anchor = self.anchors.get(p.subject)
                room = self._room_of_container(p.subject, anchor or self.scene)
                if p.subject in self.open:  # an open container shows what it holds
                    perceivers = self._present(room)
                self._set(p, changed)
                if p.value and not p.negated:
                    self._place(p.value, p.subject, changed)
                reveals.append(self._reveal(p))
            else:
                self._set(p, changed)
                # A fact about someone is known to them; whether others see it (a bag
                # in hand, a bite under a shirt) is for the parse to say (perceivers).
                if p.subject in self.rooms:
                    perceivers = {p.subject}
                    if self.model.scenes and p.content_type == "Action/Event" and not p.negated:
                        # An act ("Dad nods", "the classmates laugh") is seen by those there.
                        self._on_stage([p.subject], None)
                        if self.rooms.get(p.subject) is not None:
                            room = self.rooms[p.subject]
                            perceivers |= self._present(room)
                reveals.append(self._reveal(p))
        return perceivers, room


_Outcome = tuple[set[str], str | None]
_Handler = Callable[[_Replay, Event, set[Variable], list[Reveal]], _Outcome]
_Action = Callable[[_Replay, Event, "str | None", set[Variable], list[Reveal]], None]

_HANDLERS: dict[str, _Handler] = {
    "enter": _Replay._enter,
    "exit": _Replay._exit,
    "tell": _Replay._tell,
    "narrate": _Replay._narrate,
    **dict.fromkeys(("stay", "open", "close", "observe", "label", "move"), _Replay._in_place),
}
"""How each kind of event changes the world and who perceives it."""
_ACTIONS: dict[str, _Action] = {
    "move": _Replay._move,
    "stay": _Replay._stay,
    "open": _Replay._open,
    "close": _Replay._close,
    "label": _Replay._label,
    "observe": _Replay._observe,
}
"""What an action in a room does, once the actors are placed in the room."""


def _unperceived(story: ParsedStory) -> dict[int, frozenset[str]]:
    """Who the story says did not perceive which event: "Mom did not hear Leo".

    A narrated ``(X, hear|see|notice, Y)`` with ``negated=True`` and Y an actor removes X
    from the perceivers of Y's utterances (hear) or of all Y's events (see, notice) in the
    same sentence and the one before, up to the narration ("Leo shouts to her ... Mom did
    not hear Leo"). Returns event id -> the actors removed.
    """
    out: dict[int, set[str]] = {}
    for fact in story.events:
        p = fact.proposition
        if (
            fact.kind != "narrate"
            or p is None
            or not p.negated
            or p.relation not in _SENSES
            or p.value not in story.actors
        ):
            continue
        for e in story.events:
            if e.id > fact.id or e.sentence_index not in (
                fact.sentence_index,
                fact.sentence_index - 1,
            ):
                continue
            if e.agent != p.value or (p.relation == "hear" and e.kind != "tell"):
                continue
            out.setdefault(e.id, set()).add(p.subject)
    return {t: frozenset(who) for t, who in out.items()}


_SENSES = frozenset({"hear", "see", "notice"})
_EVERYONE = re.compile(
    r"(?i)^(?:every(?:one|body)|all(?: of (?:them|us))?|all the others|the others|the rest"
    r"(?: of (?:them|us))?)(?:\s|$)"
)
"""Names of a group whose members are everybody else in the story ("everyone in the office")."""
_SCENE_BREAK = re.compile(
    r"(?i)^\W*(?:(?:the\s+)?(?:next|following)\s+(?:day|morning|afternoon|evening|night|week|"
    r"weekend|month|year)|(?:a|an|one|two|three|four|five|six|seven|a\s+few|several|some)\s+"
    r"(?:\w+\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)\s+later|later\s+that\s+"
    r"(?:day|morning|afternoon|evening|night|week)|(?:that|one)\s+(?:day|morning|afternoon|"
    r"evening|night)|on\s+(?:a\s+)?(?:\w+\s+)?(?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)s?(?:\s+(?:morning|afternoon|evening|night))?|back\s+(?:at|in)\s+"
    r"(?:the\s+)?\w+)\s*,"
)
"""A sentence opening with a jump in time or a change of place: a new scene."""


def _key(name: str) -> str:
    words = name.replace("\u2019", "'").lower().split()
    return " ".join(words[1:] if words[:1] == ["the"] else words)


def groups_of(story: ParsedStory, model: PerceptionModel) -> dict[str, frozenset[str]]:
    """The story's group actors and their members (``PerceptionModel.groups``, and every
    "everyone"-like actor, whose members are the story's actors that are not groups).

    Names are matched as the story spells them, case and a leading "the" aside.

    Examples
    --------
    >>> s = ParsedStory(text="", sentences=(), events=(), actors=("Ann", "Bob", "everyone"))
    >>> sorted(groups_of(s, PerceptionModel())["everyone"])
    ['Ann', 'Bob']
    >>> m = PerceptionModel(groups={"the team": ("ann", "Carl")})
    >>> t = ParsedStory(text="", sentences=(), events=(), actors=("Ann", "Bob", "team"))
    >>> groups_of(t, m)
    {'team': frozenset({'Ann'})}
    """
    spelled = {_key(a): a for a in story.actors}
    out: dict[str, frozenset[str]] = {}
    for group, members in model.groups:
        name = spelled.get(_key(group))
        if name is not None:
            out[name] = frozenset(
                spelled[_key(m)] for m in members if _key(m) in spelled and spelled[_key(m)] != name
            )
    everyone = [a for a in story.actors if _EVERYONE.match(a) and a not in out]
    individuals = frozenset(a for a in story.actors if a not in out and a not in everyone)
    for g in everyone:
        out[g] = individuals
    return out


_CLOSED_WORDS = frozenset({"closed", "shut", "locked", "sealed"})


def _state_word(prop: Proposition) -> str:
    """The state a keyed proposition names, wherever the parse put it: in the value ("box /
    be / closed") or in the relation ("box / is closed", as LLM parses often word it)."""
    return (prop.value or prop.relation.partition(" ")[2]).strip().lower()


# Propositions are frozen, so one object can stand for every "X is in R" of a run: the replay
# states each actor's place at every entry, and building (validating) it anew each time was a
# tenth of tracking a ToMi story.
@lru_cache(maxsize=1 << 14)
def _located(thing: str, room: str) -> Proposition:
    return Proposition(content_type="Location", subject=thing, relation="in", value=room)


@lru_cache(maxsize=1 << 14)
def _did(actor: str, verb: str, value: str | None, target: str | None = None) -> Proposition:
    return Proposition(
        content_type="Action/Event", subject=actor, relation=verb, value=value, target=target
    )


def _initial_rooms(story: ParsedStory, scene: str) -> dict[str, str | None]:
    """Actors whose first physical event is not an entry are on stage from the start."""
    first: dict[str, tuple[str, str | None]] = {}
    for e in story.events:
        if e.kind == "narrate":
            continue
        for a in (*e.actors, *e.hearers):
            first.setdefault(a, (e.kind, e.room if e.kind != "exit" else None))
    rooms: dict[str, str | None] = {a: None for a in story.actors}
    for a, (kind, room) in first.items():
        rooms[a] = None if kind == "enter" else (room or scene)
    return rooms


def _conversation_rooms(
    story: ParsedStory, start: dict[str, str | None], scene: str
) -> dict[str, str]:
    """Where people who talk to each other are, when the story gives only one of them a room.

    Speaker and addressee of a spoken telling (not a call or a message: ``private``) are
    together when it is said. An actor the story never places (on stage from the start in
    the default scene) who speaks to, or is spoken to by, an actor the story put in a room
    is in that room from the start: "Bohan arrives at Xiuya's house ... he says to Xiuya"
    puts Xiuya in her house, not in a room of her own. An actor the story did place (another
    room, or one who left) keeps that place: the story says otherwise, and the consistency
    check may object. Only a story that names one place and has nobody leave is read so.
    Returns actor -> room for the actors placed this way.
    """
    # Only in a story with one named place and nobody leaving: where people come and go
    # ("Oscar went to the library ... Oscar returned"), who is where is the story's to say.
    if len({e.room for e in story.events if e.room}) != 1 or any(
        e.kind == "exit" for e in story.events
    ):
        return {}
    rooms = dict(start)
    unplaced = {a for a, r in start.items() if r == scene}
    joined: dict[str, str] = {}
    for e in story.events:
        if e.room and e.kind != "exit":
            for a in e.actors:
                rooms[a] = e.room
                unplaced.discard(a)
        elif e.kind in ("exit", "enter"):  # left, or came back to a place the story never names
            for a in e.actors:
                rooms[a] = None
                unplaced.discard(a)
        if e.kind != "tell" or e.private or e.agent is None:
            continue
        for a, b in [(e.agent, h) for h in e.hearers] + [(h, e.agent) for h in e.hearers]:
            room = rooms.get(b)
            if a != b and a in unplaced and b not in unplaced and room not in (None, scene):
                rooms[a] = joined[a] = room
                unplaced.discard(a)
    return joined


def _anchor_rooms(story: ParsedStory, start: dict[str, str | None], scene: str) -> dict[str, str]:
    """The room where each object and container is first handled by someone.

    Things do not change rooms, so a narrated "The watermelon is in the red_crate." belongs
    to the room where the watermelon is later moved, not to the room someone last entered
    (ToMi interleaves distractor actors entering other rooms).
    """
    rooms = dict(start)
    last: dict[str, str | None] = dict(start)
    anchors: dict[str, str] = {}
    for e in story.events:
        if e.kind == "enter":
            room = e.room or next((last[a] for a in e.actors if last.get(a)), None) or scene
            for a in e.actors:
                rooms[a] = last[a] = room
        elif e.kind == "exit":
            for a in e.actors:
                rooms[a] = None
        elif e.kind in ("move", "observe", "open", "close") and e.actors:
            room = next((rooms[a] for a in e.actors if rooms.get(a)), None)
            if room is None:
                continue
            for thing in (e.obj, e.origin, e.destination):
                if thing:
                    anchors.setdefault(thing, room)
    return anchors
