"""``beliefgraph omnitom FILE``: a story's OmniToM tables (Stage 1 rows, Stage 2 labels)."""

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from beliefgraph.adapters.omnitom import extract, pipe_table, to_record
from beliefgraph.api import track

from .errors import reported
from .io import read_text

__all__ = ["omnitom_command"]


def omnitom_command(
    file: Annotated[str, typer.Argument(help="Story text file, or - for standard input.")],
    nested: Annotated[
        str, typer.Option(help="Nested rows: 'contested' (as the gold lists them), 'all', 'none'.")
    ] = "contested",
    truth: Annotated[
        str, typer.Option(help="Truth Status from 'graph', or the z3 'solver' ('auto': if usable).")
    ] = "graph",
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the rows as a release JSONL record here.")
    ] = None,
    lenient: Annotated[
        bool, typer.Option(help="Keep unreadable sentences as world facts instead of failing.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks.")] = False,
) -> None:
    """Print both OmniToM tables of a story: Stage 1 rows, then the seven labels of each."""
    console = Console()
    with reported(verbose):
        text = read_text(file)
        rows = [
            r.row
            for r in extract(
                track(text, max_order=3, strict=not lenient),
                nested=nested,
                truth=truth,  # type: ignore[arg-type]
            )
        ]
        plain = {"soft_wrap": True, "markup": False, "highlight": False}
        console.print("[bold]Stage 1: belief extraction[/]")
        console.print(pipe_table(rows), **plain)
        console.print("\n[bold]Stage 2: belief labels[/]")
        console.print(pipe_table(rows, labels=True), **plain)
        if json_out is not None:
            record = to_record(rows, story_id=0, story_category="", story=text.strip())
            json_out.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
            console.print(f"\nwrote {json_out}")
