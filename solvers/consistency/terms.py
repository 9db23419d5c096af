"""Fast z3 term builders over the raw C API of a private context.

z3 types never leave the consistency package; this module is where they are made.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import z3
import z3.z3core as _C

__all__ = ["Terms", "assert_raw", "check_raw"]


def _bare(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The C function behind a ``z3core`` wrapper, without its per-call error check.

    The check costs more than the call; the builders below only combine well-sorted terms,
    and any error z3 records still surfaces at the next checked call (``Solver.check``).
    """
    elems = (fn.__defaults__ or (None,))[-1]
    return getattr(elems, "f", fn)


_mk_const, _mk_int_symbol = _bare(_C.Z3_mk_const), _bare(_C.Z3_mk_int_symbol)
_mk_eq, _mk_not, _mk_implies = _bare(_C.Z3_mk_eq), _bare(_C.Z3_mk_not), _bare(_C.Z3_mk_implies)
_mk_and, _mk_or, _inc_ref = _bare(_C.Z3_mk_and), _bare(_C.Z3_mk_or), _bare(_C.Z3_inc_ref)


class _Context:
    """A z3 context and what every ``Terms`` over it shares: sorts, constants, the counter
    that names fresh variables, and how many terms were kept alive in it."""

    def __init__(self) -> None:
        self.ctx = z3.Context()
        self.ref = self.ctx.ref()
        self.pid = os.getpid()
        self.sorts = (z3.IntSort(self.ctx), z3.BoolSort(self.ctx))  # keep them referenced
        self.numbers = itertools.count()
        self.nums: dict[int, Any] = {}
        self.kept = 0


# Creating and deleting a z3 context costs 10-30 ms (more than checking a short story), so
# encodings share one per thread (z3 contexts are not thread-safe) and per process (a forked
# worker makes its own). Terms are never released one by one, so a context is retired once
# it has kept this many: later encodings get a fresh one, and the old one goes with the last
# encoding that uses it.
_RETIRE_AFTER = 500_000
_LOCAL = threading.local()


def _shared_context() -> _Context:
    shared: _Context | None = getattr(_LOCAL, "context", None)
    if shared is None or shared.kept > _RETIRE_AFTER or shared.pid != os.getpid():
        shared = _LOCAL.context = _Context()
    return shared


class Terms:
    """Fast z3 term builders over raw ASTs of a shared context.

    The python wrappers (``z3.BoolRef``) cost more than the solving here, so terms are raw
    C-API ASTs. Each one is kept alive by one reference that is never released: the context
    frees everything when it goes. Encodings in one thread share a context until it has kept
    ``_RETIRE_AFTER`` terms (a context costs more to create and delete than a short story
    costs to check); fresh variables are numbered across the context, so two encodings never
    share one.
    """

    def __init__(self) -> None:
        self._context = shared = _shared_context()
        self.ctx = shared.ctx
        self.ref = shared.ref
        self.int_sort, self.bool_sort = (s.ast for s in shared.sorts)
        self.true = self._keep(_C.Z3_mk_true(self.ref))
        self.false = self._keep(_C.Z3_mk_false(self.ref))
        self._nums = shared.nums
        self._n = shared.numbers

    def _keep(self, ast: Any) -> Any:
        _inc_ref(self.ref, ast)
        self._context.kept += 1
        return ast

    def var(self, boolean: bool) -> Any:
        """A fresh, anonymous picture variable."""
        sym = _mk_int_symbol(self.ref, next(self._n))
        return self._keep(_mk_const(self.ref, sym, self.bool_sort if boolean else self.int_sort))

    def literal(self, name: str) -> Any:
        """The named boolean that tracks a fact or an axiom."""
        sym = _C.Z3_mk_string_symbol(self.ref, name)
        return self._keep(_mk_const(self.ref, sym, self.bool_sort))

    def num(self, v: int) -> Any:
        n = self._nums.get(v)
        if n is None:
            n = self._nums[v] = self._keep(_C.Z3_mk_int(self.ref, v, self.int_sort))
        return n

    def eq(self, a: Any, b: Any) -> Any:
        return self._keep(_mk_eq(self.ref, a, b))

    def not_(self, a: Any) -> Any:
        return self._keep(_mk_not(self.ref, a))

    def implies(self, a: Any, b: Any) -> Any:
        return self._keep(_mk_implies(self.ref, a, b))

    def and_(self, xs: Sequence[Any]) -> Any:
        if len(xs) == 1:
            return xs[0]
        if not xs:
            return self.true
        return self._keep(_mk_and(self.ref, len(xs), (_C.Ast * len(xs))(*xs)))

    def or_(self, xs: Sequence[Any]) -> Any:
        if len(xs) == 1:
            return xs[0]
        if not xs:
            return self.false
        return self._keep(_mk_or(self.ref, len(xs), (_C.Ast * len(xs))(*xs)))

    def as_bool(self, a: Any) -> z3.BoolRef:
        """A python-API view of a raw formula (for ``Solver.add`` and ``check``)."""
        return z3.BoolRef(a, self.ctx)

    def as_int(self, a: Any) -> z3.ArithRef:
        """A python-API view of a raw integer term (for model evaluation)."""
        return z3.ArithRef(a, self.ctx)


def assert_raw(terms: Terms, solver: z3.Solver, formula: Any) -> None:
    """Assert a raw formula on ``solver`` without the python API's casts."""
    _C.Z3_solver_assert(terms.ref, solver.solver, formula)


def check_raw(terms: Terms, solver: z3.Solver, assumptions: Sequence[Any] = ()) -> bool | None:
    """``solver``'s verdict under raw ``assumptions``: True, False, or None when undecided."""
    lits = list(assumptions)
    result = _C.Z3_solver_check_assumptions(
        terms.ref, solver.solver, len(lits), (_C.Ast * len(lits))(*lits)
    )
    if result == _C.Z3_L_UNDEF:
        return None
    return result == _C.Z3_L_TRUE
