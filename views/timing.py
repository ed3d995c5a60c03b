"""Server-side time of fragment reruns, for bench/app_speed.py (only with $FRL_TIMING set).

app.py prints one `FRL_TIMING <page> <wall> <cpu>` line per full run of a page; a pick inside a
fragment reruns the fragment alone, without app.py, so it printed nothing. `install()` wraps
`st.fragment` so that each fragment-only rerun prints `FRL_TIMING <file>/<function> <wall> <cpu>`
(the page's file in views/ without .py; wall seconds and the script thread's CPU seconds).
Without $FRL_TIMING nothing is wrapped.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx


def _timed(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)  # keeps __module__ and __qualname__: Streamlit derives the fragment's id from them
    def run(*args: Any, **kwargs: Any) -> Any:
        ctx = get_script_run_ctx()
        if ctx is None or not ctx.fragment_ids_this_run:  # part of a full run: app.py times that
            return func(*args, **kwargs)
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            return func(*args, **kwargs)
        finally:
            page = os.path.splitext(os.path.basename(func.__code__.co_filename))[0]  # views/<page>.py
            print(f"FRL_TIMING {page}/{func.__name__} {time.perf_counter() - t0:.3f} {time.thread_time() - c0:.3f}",
                  file=sys.stderr, flush=True)  # fmt: skip

    return run


def install() -> None:
    """Wrap `st.fragment` once per process (a no-op without $FRL_TIMING)."""
    if not os.environ.get("FRL_TIMING") or getattr(st.fragment, "_frl_timed", False):
        return
    plain = st.fragment

    def fragment(func: Callable[..., Any] | None = None, **kwargs: Any) -> Any:
        if func is None:
            return lambda f: plain(_timed(f), **kwargs)
        return plain(_timed(func), **kwargs)

    fragment._frl_timed = True  # type: ignore[attr-defined]
    st.fragment = fragment  # type: ignore[assignment]
