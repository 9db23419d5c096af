"""``beliefgraph track FILE``: the world facts and each actor's beliefs, and answers."""

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from beliefgraph.api import track
from beliefgraph.explain import phrase_chain
from beliefgraph.graph import BeliefGraph
from beliefgraph.solvers import PerceptionModel

from .errors import reported
from .io import read_text

__all__ = ["track_command"]


def track_command(
    file: Annotated[str, typer.Argument(help="Story text file, or - for standard input.")],
    ask: Annotated[
        list[str] | None,
        typer.Option("--ask", "-a", help="A question to answer (repeatable)."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the belief graph as JSON to this path.")
    ] = None,
    max_order: Annotated[int, typer.Option(help="Deepest belief order to compute and list.")] = 2,
    trust: Annotated[
        str, typer.Option(help="Trust policy: 'default' or 'hitom' (Hi-ToM's exit-order rule).")
    ] = "default",
    open_containers: Annotated[
        bool,
        typer.Option(help="Entering a room shows where every object in it is (ToMi, Hi-ToM)."),
    ] = False,
    lenient: Annotated[
        bool,
        typer.Option(help="Keep unreadable sentences as uninterpreted facts instead of failing."),
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks.")] = False,
) -> None:
    """Track a story and print what everyone believes at its end."""
    console = Console()
    with reported(verbose):
        graph = track(
            read_text(file),
            max_order=max_order,
            trust=trust,
            perception=PerceptionModel(open_containers=open_containers),
            strict=not lenient,
        )
        console.print(_beliefs_table(graph))
        for question in ask or []:
            answer = graph.ask(question)
            console.print(f"\n[bold]{question}[/]\n  [green]{answer.value}[/]")
            for line in answer.explanation:
                console.print(f"  - {line}", highlight=False)
        if json_out is not None:
            json_out.write_text(graph.to_json(indent=2), encoding="utf-8")
            console.print(f"\nwrote {json_out}")


def _beliefs_table(graph: BeliefGraph) -> Table:
    table = Table(title="Beliefs at the end of the story", show_lines=False)
    table.add_column("holder", no_wrap=True)
    table.add_column("order", justify="right")
    table.add_column("belief", min_width=28, ratio=1)
    for col in ("truth", "access", "source", "context", "from"):
        table.add_column(col, no_wrap=True)
    for b in graph.beliefs(at=graph.end):
        holder = phrase_chain(b.holders[:1]).removesuffix(" believes") if b.holders else "world"
        inner = " believes ".join(b.holders[1:])
        text = (inner + " believes " if inner else "") + b.proposition.render()
        style = "red" if b.truth_status == "False" else None
        table.add_row(
            holder,
            str(b.order),
            text,
            b.truth_status,
            b.knowledge_access,
            b.mental_source,
            b.context,
            ", ".join(map(str, b.provenance)),
            style=style,
        )
    return table
