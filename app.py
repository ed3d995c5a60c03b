"""Frontier Report Lens dashboard: `streamlit run app.py` (data from $FRL_DATA_DIR or data/).

Pages live in `views/`, one module each; they read the stored tables only (no PDF parsing).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import streamlit as st

_ROOT = str(Path(__file__).resolve().parent)
if _ROOT not in sys.path:  # `streamlit run` from any folder finds views/; once, not on every rerun
    sys.path.insert(0, _ROOT)

from views import heap, nav, timing  # noqa: E402  (needs the path above)

# A local icon: a material-icon page_icon makes the browser fetch its SVG from fonts.gstatic.com.
ICON = Path(__file__).resolve().parent / "assets" / "favicon.png"
st.set_page_config(page_title="Frontier Report Lens", page_icon=str(ICON), layout="wide")
_t0, _c0 = time.perf_counter(), time.thread_time()
timing.install()  # $FRL_TIMING only: fragment reruns print their time too
# Streamlit's own menu in the sidebar (drawn by the browser from the page list, not as elements of
# every run: page links drawn by the script cost browser time on every first render).
nav_ = st.navigation(nav.pages(), position="sidebar")
nav_.run()
heap.settle()  # freeze the caches this run built, so the cycle collector stops walking them (views/heap.py)
if os.environ.get("FRL_TIMING"):  # bench/app_speed.py: server-side script time per run, wall and this thread's CPU
    wall, cpu = time.perf_counter() - _t0, time.thread_time() - _c0
    print(f"FRL_TIMING {nav_.url_path or 'home'} {wall:.3f} {cpu:.3f}", file=sys.stderr, flush=True)
