"""The page registry: app.py builds the navigation from it, views use it to link to each other.

Each page is a file in views/ run as a script (its `if __name__ == "__main__": render()`), so
AppTest can switch to it by path, while tests can also import its pure functions.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

VIEWS = Path(__file__).resolve().parent
#: url_path -> (module file, title, icon); the first one is the default page.
PAGES: dict[str, tuple[str, str, str]] = {
    "compare": ("compare.py", "Compare", ":material/table_chart:"),
    "keywords": ("keywords.py", "Keywords", ":material/bar_chart:"),
    "evidence": ("evidence.py", "Evidence", ":material/format_quote:"),
    "report": ("report.py", "Report", ":material/description:"),
    "benchmarks": ("benchmarks.py", "Benchmarks", ":material/leaderboard:"),
    "add": ("add_report.py", "Add report", ":material/add_circle:"),
    "review": ("review.py", "Review", ":material/rate_review:"),
}


def page(name: str) -> st.Page:
    """The `st.Page` for a page name (url_path == name)."""
    file, title, icon = PAGES[name]
    return st.Page(str(VIEWS / file), title=title, icon=icon, url_path=name, default=name == next(iter(PAGES)))


def names() -> list[str]:
    """The pages in the navigation; a read-only dashboard ($FRL_READ_ONLY) has no Add report page."""
    from views import data

    return [n for n in PAGES if not (n == "add" and data.read_only())]


def pages() -> list[st.Page]:
    return [page(n) for n in names()]


def go(name: str, **params: str) -> None:
    """Open another page with these query parameters (its bound widgets pick them up)."""
    st.switch_page(page(name), query_params=params)
