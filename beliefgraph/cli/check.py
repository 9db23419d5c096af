"""``beliefgraph check FILE``: whether a story or a saved graph is consistent, and why not."""

from typing import Annotated

import typer
from rich.console import Console

from beliefgraph.api import track
from beliefgraph.graph import BeliefGraph
from beliefgraph.solvers import PerceptionModel
from beliefgraph.solvers.consistency import DEFAULT_AXIOMS, ConsistencyReport, check

from .errors import reported
from .io import read_text

__all__ = ["check_command"]


def check_command(
    file: Annotated[
        str,
        typer.Argument(help="Story text, a graph JSON (track --json), or - for standard input."),
    ],
    without: Annotated[
        list[str] | None,
        typer.Option(
            "--without",
            "-x",
            help=f"Switch an axiom off (repeatable): {', '.join(DEFAULT_AXIOMS)}. Its "
            "conflicts then go unreported.",
        ),
    ] = None,
    max_order: Annotated[
        int | None,
        typer.Option(help="Deepest derived beliefs to check (default: 2, or the JSON's own)."),
    ] = None,
    max_conflicts: Annotated[int, typer.Option(help="Stop after this many conflicts.")] = 10,
    trust: Annotated[
        str, typer.Option(help="Trust policy for story text: 'default' or 'hitom'.")
    ] = "default",
    open_containers: Annotated[
        bool,
        typer.Option(help="Entering a room shows where every object in it is (ToMi, Hi-ToM)."),
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks.")] = False,
) -> None:
    """Check a story's beliefs against the consistency axioms; exit 1 when they clash."""
    console = Console()
    with reported(verbose):
        text = read_text(file)
        if text.lstrip().startswith("{"):
            graph = BeliefGraph.from_json(text)
        else:
            graph = track(
                text,
                max_order=2 if max_order is None else max_order,
                trust=trust,
                perception=PerceptionModel(open_containers=open_containers),
            )
        report = check(
            graph, without=without or (), max_order=max_order, max_conflicts=max_conflicts
        )
        _print(console, report)
    if not report.consistent:
        raise typer.Exit(code=1)


def _print(console: Console, report: ConsistencyReport) -> None:
    if report.consistent:
        console.print(f"[bold green]{report.explain()}[/]", highlight=False)
    else:
        console.print(f"[bold red]inconsistent[/]: {len(report.conflicts)} conflict(s)")
        for i, c in enumerate(report.conflicts, 1):
            console.print(f"\n[bold]{i}.[/] {c.explanation}", highlight=False)
            console.print(f"   axioms: {', '.join(c.axioms) or 'none'}", highlight=False)
            for line in c.sentences:
                console.print(f"   - {line}", highlight=False)
        if not report.complete:
            console.print("\n(more conflicts may remain: raise --max-conflicts)")
    if report.unchecked:
        console.print(f"{len(report.unchecked)} belief(s) could not be encoded and were skipped.")
