"""A job that does nothing, for timing the executor's worker start-up.

It lives in a module of its own because a job is sent to the worker server by its importable name,
and a function of a script run as `__main__` has none while a worker starts (the executor hides the
driver's `__main__` then: `ingest.run.executor._main_unnamed`).
"""

from __future__ import annotations


def noop(arg: int, progress: object) -> int:
    return arg
