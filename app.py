"""Frontier Report Lens dashboard: `streamlit run app.py` (data from $FRL_DATA_DIR or data/).

Pages live in `views/`, one module each; they read the stored tables only (no PDF parsing).
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `streamlit run` from any folder finds views/

from views import nav

# A local icon: a material-icon page_icon makes the browser fetch its SVG from fonts.gstatic.com.
ICON = Path(__file__).resolve().parent / "assets" / "favicon.png"
st.set_page_config(page_title="Frontier Report Lens", page_icon=str(ICON), layout="wide")
nav_ = st.navigation(nav.pages(), position="hidden")
nav.sidebar_links()
nav_.run()
