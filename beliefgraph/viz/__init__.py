"""Pictures of a story: one lane per actor over time, and what each believes at the end.

>>> from beliefgraph import track
>>> from beliefgraph.viz import storyboard
>>> storyboard(track("Ann and Bo are in the hall. Ann goes out.")).actors
('Ann', 'Bo')
"""

from .html import to_html
from .layout import BeliefLine, EventColumn, Lane, Mark, Span, Storyboard, storyboard
from .png import to_png
from .render import FORMATS, render

__all__ = [
    "FORMATS",
    "BeliefLine",
    "EventColumn",
    "Lane",
    "Mark",
    "Span",
    "Storyboard",
    "render",
    "storyboard",
    "to_html",
    "to_png",
]
