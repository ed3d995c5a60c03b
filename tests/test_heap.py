"""views.heap: the dashboard's long-lived objects are frozen after a run, and handed back now and then."""

from __future__ import annotations

import gc

from views import heap


def test_settle_freezes_survivors_and_collects_the_runs_cycles() -> None:
    import weakref

    class Node:
        pass

    gc.unfreeze()
    try:
        garbage = Node()
        garbage.me = garbage  # type: ignore[attr-defined]  # a reference cycle: only the collector frees it
        dead = weakref.ref(garbage)
        del garbage
        heap.settle(now=heap._last_full + 1)  # within FULL_EVERY_S: collect, then freeze
        assert dead() is None  # the run's cyclic garbage was collected, not frozen
        assert gc.get_freeze_count() > 0  # what survived is frozen
    finally:
        gc.unfreeze()


def test_settle_hands_frozen_objects_back_every_interval(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls: list[str] = []
    monkeypatch.setattr(heap.gc, "unfreeze", lambda: calls.append("unfreeze"))
    monkeypatch.setattr(heap.gc, "collect", lambda: calls.append("collect") or 0)
    monkeypatch.setattr(heap.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(heap, "_last_full", 1000.0)
    heap.settle(now=1000.0 + heap.FULL_EVERY_S - 1)
    assert calls == ["collect", "freeze"]
    calls.clear()
    heap.settle(now=1000.0 + heap.FULL_EVERY_S)
    assert calls == ["unfreeze", "collect", "freeze"]
    assert heap._last_full == 1000.0 + heap.FULL_EVERY_S
