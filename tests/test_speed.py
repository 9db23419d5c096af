"""Start-up and run-time mechanisms of issue 18's speed targets: one adapter loaded per run,
the collector settled during a run, parallel runs that ship stories cheaply."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest
from test_import import _modules_after


def test_a_run_of_one_benchmark_imports_only_its_adapter() -> None:
    loaded = _modules_after("from beliefgraph.adapters import get_benchmark\nget_benchmark('tomi')")
    adapters = {m.split(".")[2] for m in loaded if m.startswith("beliefgraph.adapters.")}
    assert "tomi" in adapters
    assert not adapters & {"omnitom", "commet", "dialtom", "tomato", "bigtom", "opentom"}


def test_every_built_in_adapter_is_registered_by_the_module_the_table_names() -> None:
    from beliefgraph.adapters import benchmarks  # importing the registry loads them all
    from beliefgraph.adapters.harness import BUILTIN_ADAPTERS

    ours = {
        name: factory.__module__
        for name, factory in benchmarks.get_all().items()
        if factory.__module__.startswith("beliefgraph.adapters.")
    }
    assert set(ours) == set(BUILTIN_ADAPTERS)
    for name, module in ours.items():
        assert module.split(".")[2] == BUILTIN_ADAPTERS[name], name


def test_an_unknown_benchmark_lists_every_built_in_one() -> None:
    # In a fresh interpreter, where no other test has loaded the adapters already.
    code = (
        "from beliefgraph.adapters import get_benchmark\n"
        "try:\n    get_benchmark('no-such-bench')\n"
        "except Exception as err:\n    print(type(err).__name__, err)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.startswith("UnknownNameError")
    assert all(n in done.stdout for n in ("omnitom", "commet", "tomi", "dialtom-llm"))


def test_the_settled_heap_is_restored_after_a_run_even_when_it_fails() -> None:
    from beliefgraph.adapters.harness import _settled_heap

    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    with pytest.raises(RuntimeError), _settled_heap():
        assert gc.get_threshold()[0] >= 10_000 and gc.get_freeze_count() > frozen
        raise RuntimeError("a failing run")
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen


# What the test adapter below loads on first use, per process: the pid that loaded it.
_LOADED: list[int] = []


def test_a_parallel_run_loads_lazy_state_once_before_the_workers_fork(tmp_path) -> None:
    import os

    from beliefgraph import BeliefGraph, track
    from beliefgraph.adapters import Benchmark, Item, ItemResult, benchmarks, evaluate
    from beliefgraph.adapters.tomi import load_tomi

    def build(item: Item) -> BeliefGraph:
        if not _LOADED:  # stands for spaCy's tables or a client, loaded on first use
            _LOADED.append(os.getpid())
        return track(item.story)

    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        seen = f"{os.getpid()} loaded-by {_LOADED[0]}"
        return ItemResult(id=item.id, gold=item.answer, prediction=seen, correct=True)

    @benchmarks.register("test-lazy-state")
    def make() -> Benchmark:
        return Benchmark(name="test-lazy-state", load=load_tomi, build=build, answer=answer)

    story = "1 {0} entered the garage.\n2 Where is {0}?\tgarage\t1\n"
    path = tmp_path / "many.txt"
    path.write_text("".join(story.format(f"A{i}") for i in range(40)))
    _LOADED.clear()
    result = evaluate("test-lazy-state", path, workers=2)
    me = os.getpid()
    assert result.n == 40 and result.results[0].prediction == f"{me} loaded-by {me}"
    # every worker inherited what the first story loaded in this process
    assert all(r.prediction.endswith(f"loaded-by {me}") for r in result.results)
    assert any(not r.prediction.startswith(str(me)) for r in result.results)


def test_overlapping_runs_restore_the_collector_settings_once_all_have_ended() -> None:
    from beliefgraph.adapters.harness import _settled_heap

    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    outer, inner = _settled_heap(), _settled_heap()
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)  # the first run ends while the second goes on
    assert gc.get_threshold()[0] >= 10_000
    inner.__exit__(None, None, None)
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen


def test_replaced_is_model_copy_without_its_copies() -> None:
    from beliefgraph.models import Event, Proposition

    p = Proposition(content_type="Location", subject="ball", relation="in", value="box")
    for update in ({"value": "bag"}, {"negated": True}, {"holder": "Ann", "value": "bag"}):
        fast, slow = p.replaced(**update), p.model_copy(update=update)
        assert fast == slow and fast.__dict__ == slow.__dict__
        assert fast.model_fields_set == slow.model_fields_set
        assert fast.model_dump(exclude_unset=True) == slow.model_dump(exclude_unset=True)
        assert p.value == "box" and not p.negated  # the original is untouched
    e = Event(id=1, kind="exit", actors=("Ann",))
    update = {"perceivers": ("Ann", "Bob"), "room": "hall"}
    assert e.replaced(**update) == e.model_copy(update=update)
    assert e.replaced(**update).model_fields_set == e.model_copy(update=update).model_fields_set
