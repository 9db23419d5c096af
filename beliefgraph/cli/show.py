"""``beliefgraph show FILE --out graph.html|graph.png``: the story as a picture."""

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from beliefgraph.api import track
from beliefgraph.solvers import PerceptionModel
from beliefgraph.viz import render

from .errors import reported
from .io import read_text

__all__ = ["show_command"]


def show_command(
    file: Annotated[str, typer.Argument(help="Story text file, or - for standard input.")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="graph.html (interactive, hover for details) or graph.png (static). "
            "Default: <story name>.html here.",
        ),
    ] = None,
    max_order: Annotated[int, typer.Option(help="Deepest belief listed under each actor.")] = 2,
    all_beliefs: Annotated[
        bool, typer.Option(help="Also list where actors are and what they did (already drawn).")
    ] = False,
    trust: Annotated[
        str, typer.Option(help="Trust policy: 'default' or 'hitom' (Hi-ToM's exit-order rule).")
    ] = "default",
    open_containers: Annotated[
        bool,
        typer.Option(help="Entering a room shows where every object in it is (ToMi, Hi-ToM)."),
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks.")] = False,
) -> None:
    """Draw a story: a lane per actor over time, and each one's beliefs at the end."""
    with reported(verbose):
        graph = track(
            read_text(file),
            max_order=max_order,
            trust=trust,
            perception=PerceptionModel(open_containers=open_containers),
        )
        name = "story" if file == "-" else Path(file).stem
        target = out or Path(f"{name}.html")
        title = f"{name}: who was where, what they saw, what they believe"
        written = render(graph, target, max_order=max_order, all_beliefs=all_beliefs, title=title)
        Console().print(f"wrote {written}", highlight=False)
