"""Pausing Python's cyclic garbage collector around bulk allocation.

Listing half a million beliefs, or encoding them for z3, allocates objects that all survive
the call; each collection those allocations trigger walks every one made so far, so the
collector's passes grow with the result and cost a third of the work. Nothing built in such
a block is cyclic garbage that must go before it ends, so the collector waits until then.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block (nested blocks are fine).

    Reference counting still frees what the block drops; only cycles wait for the end.

    Examples
    --------
    >>> import gc
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
