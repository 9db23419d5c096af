"""How the CLI reports errors: one red line and exit code 1, a traceback with --verbose."""

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from beliefgraph.errors import BeliefGraphError, UnparsedSentenceError

__all__ = ["error_console", "reported"]

error_console = Console(stderr=True)
"""Where errors and warnings go (standard error), so piped output stays clean."""

CLI_FIX = "pass --lenient to keep it as an uninterpreted world fact, or use --parser llm."
"""How to go on past an unread sentence, in the CLI's words (the error's own names Python's)."""


@contextmanager
def reported(verbose: bool) -> Iterator[None]:
    """Turn a ``BeliefGraphError`` (or a missing file) into a one-line error."""
    try:
        yield
    except (BeliefGraphError, OSError) as err:
        if verbose:
            error_console.print_exception()
        message = err.explain(CLI_FIX) if isinstance(err, UnparsedSentenceError) else str(err)
        error_console.print(f"[bold red]error:[/] {message}", highlight=False)
        raise typer.Exit(code=1) from None
