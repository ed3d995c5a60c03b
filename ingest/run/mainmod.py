"""A `__main__` without a file while a child process starts (see `main_unnamed`)."""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator


@contextlib.contextmanager
def main_unnamed() -> Iterator[None]:
    """While the forkserver or a job's process starts, a `__main__` without a file: multiprocessing
    would have them import the driver's main script, which in the dashboard is a Streamlit page (it
    imports Streamlit outside a session and logs "missing ScriptRunContext!" per cached function)."""
    main = sys.modules.get("__main__")
    if main is None or getattr(getattr(main, "__spec__", None), "name", None) or not getattr(main, "__file__", None):
        yield  # `python -m ingest` and the like: multiprocessing names the module, it imports no file
        return
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main
