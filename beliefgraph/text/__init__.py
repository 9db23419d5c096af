"""Text basics shared by every parser, adapter and renderer: one segmenter, one normaliser.

A bottom layer: it imports only ``beliefgraph.models`` and third-party code.

Examples
--------
>>> from beliefgraph.text import normalise, segment
>>> [s.text for s in segment("Dr. Lee left. Ann stayed.")]
['Dr. Lee left.', 'Ann stayed.']
>>> normalise("the Boxes")
'box'
"""

from .normalise import normalise
from .numbering import FIRST, numbered
from .phrase import phrase_chain, upper_first
from .segment import SentenceSpan, segment

__all__ = [
    "FIRST",
    "SentenceSpan",
    "normalise",
    "numbered",
    "phrase_chain",
    "segment",
    "upper_first",
]
