"""The dashboard uses Streamlit's supported APIs only: `st.components.v1.html` is deprecated (its
removal date has passed), so scripts go through `st.html` and interactive tables through the v2
component API. The browser tests check that the scroll-into-view script still runs."""

from __future__ import annotations

import re

from .conftest import REPO

DEPRECATED = re.compile(r"components\.v1|components\.html\(|components\.declare_component")


def test_no_view_uses_the_deprecated_components_v1_api() -> None:
    files = [REPO / "app.py", *sorted((REPO / "views").rglob("*.py"))]
    used = [f"{p.relative_to(REPO)}:{n}" for p in files for n, ln in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if DEPRECATED.search(ln)]  # fmt: skip
    assert used == []
