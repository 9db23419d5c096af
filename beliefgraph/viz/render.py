"""Draw a belief graph to a file, the format chosen by the file's extension."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from beliefgraph.errors import ConfigurationError

from .html import to_html
from .layout import storyboard
from .png import to_png

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

__all__ = ["FORMATS", "render"]

FORMATS = (".html", ".png")
"""The extensions ``render`` writes."""


def render(
    graph: BeliefGraph,
    out: str | Path,
    *,
    max_order: int = 2,
    all_beliefs: bool = False,
    title: str | None = None,
) -> Path:
    """Draw ``graph`` as a timeline with one lane per actor, to ``out`` (.html or .png).

    The picture shows where each actor was (shaded by room), which events it perceived or
    missed, and the beliefs it holds at the end, nested ones indented under the holder, false
    ones in red and outdated ones in italics. See ``storyboard`` for what is listed.

    Parameters
    ----------
    graph : BeliefGraph
        A tracked story.
    out : str or Path
        The file to write; ``.html`` is an interactive page (tooltips give each event's
        sentence and each belief's labels), ``.png`` a static image with numbered sentences.
    max_order : int
        The deepest belief listed under each actor.
    all_beliefs : bool
        Also list where the actors are and what they did (the lanes already draw these).
    title : str, optional
        A heading; by default the first sentence of the story.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ConfigurationError
        For an extension other than .html or .png, or ``max_order`` below 1.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from beliefgraph import track
    >>> g = track("Ann and Bo are in the hall. Ann puts the key in the box. Ann goes out. "
    ...           "Bo moves the key to the bag.")
    >>> out = render(g, pathlib.Path(tempfile.mkdtemp()) / "story.html")
    >>> out.suffix, out.stat().st_size > 1000
    ('.html', True)
    """
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ConfigurationError(
            f"cannot draw to {str(out)!r}: the file name must end in .html or .png"
        )
    board = storyboard(graph, max_order=max_order, all_beliefs=all_beliefs, title=title)
    if suffix == ".png":
        return to_png(board, path)
    to_html(board, path)
    return path
