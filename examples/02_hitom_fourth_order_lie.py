"""Tutorial 2: a fourth-order Hi-ToM story with a lie, and the trust policy that decides it.

Run it from anywhere:

    python examples/02_hitom_fourth_order_lie.py

Hi-ToM (He et al., 2023) asks questions up to the fourth order ("Where does Noah think Liam
thinks Avery thinks Lily thinks the lemon is?") about stories where agents leave a room one
by one and then tell each other things, sometimes lies. Two settings matter:

- perception: Hi-ToM's containers are open, so `PerceptionModel(open_containers=True)`;
- trust: Hi-ToM states its own rule, "an agent trusts a teller who left the room later than
  itself", which is the registered `hitom` trust policy.
"""

from beliefgraph import PerceptionModel, track
from beliefgraph.solvers import ExitOrderTrust

# The story, with Hi-ToM's numbered lines (the explanations cite these numbers).
STORY = """\
1 Abigail, Liam, Avery, Noah and Lily entered the garage.
2 The lemon is in the blue_bathtub.
3 Abigail moved the lemon to the blue_treasure_chest.
4 Lily dislikes the cabbage.
5 Abigail exited the garage.
6 Liam made no movements and stayed in the garage for 1 minute.
7 Liam exited the garage.
8 Avery moved the lemon to the blue_pantry.
9 Avery exited the garage.
10 Noah made no movements and stayed in the garage for 1 minute.
11 Noah exited the garage.
12 Lily moved the lemon to the blue_bathtub.
13 Lily exited the garage.
14 Abigail, Liam, Avery, Noah and Lily entered the waiting_room.
15 Abigail lost his watch.
16 Avery privately told Abigail that the lemon is in the green_drawer.
17 Liam privately told Noah that the lemon is in the blue_treasure_chest.
"""

HITOM = PerceptionModel(open_containers=True)
graph = track(STORY, perception=HITOM, trust="hitom")
print(graph)

# --- 1. Who left when ------------------------------------------------------------------------
# Exit order is what the hitom policy reads: Abigail (5), Liam (7), Avery (9), Noah (11), Lily
# (13). Each agent saw every move made while it was in the garage, and none after.
exits = [e for e in graph.events if e.kind == "exit"]
print("exit order:", " < ".join(f"{e.actors[0]} ({e.line})" for e in exits))

# --- 2. A fourth-order question ----------------------------------------------------------------
# The chain Noah > Liam > Avery > Lily changes only at events all four perceived. All four saw
# Abigail's move (line 3); Liam had left before Avery's move (line 8), so for this chain the
# lemon stayed in the blue_treasure_chest. Asking costs one pass over the events.
q4 = "Where does Noah think Liam thinks Avery thinks Lily thinks the lemon is?"
answer = graph.ask(q4)
print(f"\n{q4}\n-> {answer.value}")
for line in answer.explanation:
    print("  -", line)
assert answer.value == "blue_treasure_chest"
assert answer.belief is not None and answer.belief.order == 4

# --- 3. The lie ----------------------------------------------------------------------------
# Avery believes the lemon is in the blue_pantry (Avery moved it there and left before Lily
# moved it), yet tells Abigail it is in the green_drawer: a lie. Abigail left before Avery, so
# under Hi-ToM's rule she trusts him and adopts the false claim.
avery = graph.belief(("Avery",), obj="lemon")
abigail = graph.belief(("Abigail",), obj="lemon")
assert avery is not None and abigail is not None
print(f"\nAvery believes: {avery.proposition.value} (yet told Abigail: green_drawer)")
print(
    f"Abigail believes: {abigail.proposition.value} "
    f"[source {abigail.mental_source}, context {abigail.context}, trust {abigail.trust}]"
)
assert abigail.mental_source == "Testimony" and abigail.context == "Deceptive"
for line in graph.ask("Where does Abigail think the lemon is?").explanation:
    print("  -", line)

# Telling never changes the teller's own belief, and the liar takes the hearer to believe it.
ava_on_abi = graph.belief(("Avery", "Abigail"), obj="lemon")
assert ava_on_abi is not None
print(f"Avery thinks Abigail thinks: {ava_on_abi.proposition.value}")

# --- 4. The trust policy decides ------------------------------------------------------------
# Liam (left at line 7) tells Noah (left at line 11) the lemon is in the blue_treasure_chest.
# Liam is not lying (that is what he saw last), but he left *earlier* than Noah, so under
# Hi-ToM's rule Noah distrusts him and keeps what he saw himself.
noah = graph.belief(("Noah",), obj="lemon")
assert noah is not None
print(f"\nNoah believes: {noah.proposition.value} (he distrusts Liam, who left first)")


# A trust policy is a small object with one method, weigh(hearer, speaker, claim, ...) -> [0, 1].
# Plug in your own: this one believes everybody.
class Credulous(ExitOrderTrust):
    """Hi-ToM's settings, but every claim is trusted."""

    def weigh(self, hearer, speaker, claim, tell, current, timeline):
        return 1.0


credulous = track(STORY, perception=HITOM, trust=Credulous())
noah_credulous = credulous.belief(("Noah",), obj="lemon")
assert noah_credulous is not None
print(f"with a credulous policy Noah believes: {noah_credulous.proposition.value}")
assert noah_credulous.proposition.value != noah.proposition.value

# The library's default policy ("fresher evidence": believe the speaker unless your own look
# is known to be fresher) also rejects Liam's stale claim, for a different reason: Noah saw
# the garage after Liam left it. Compare the two policies over every chain up to order 3.
# They differ only at order 3: Hi-ToM's rule lets a telling reach orders 1 and 2 only
# (ExitOrderTrust().max_depth == 2), the default lets it reach any order.
default = track(STORY, perception=HITOM, trust="default")
for chain in graph.chains(3):
    a = graph.belief(chain, obj="lemon")
    b = default.belief(chain, obj="lemon")
    if (a and a.proposition.value) != (b and b.proposition.value):
        print(
            f"  {' > '.join(chain)}: hitom says {a and a.proposition.value}, "
            f"default says {b and b.proposition.value}"
        )

# --- 5. Reality -------------------------------------------------------------------------------
print("\nWhere is the lemon really?", graph.ask("Where is the lemon really?").value)
