"""The page registry and the URL: app.py builds the navigation from it, views link to each other with it.

Each page is a file in views/ run as a script (its `if __name__ == "__main__": render()`), so
AppTest can switch to it by path, while tests can also import its pure functions.

URL parameters carry ids, never display labels (`/report?report=qwen3`, `/evidence?report=qwen3&
dim=reward_source`). Streamlit's `bind="query-params"` stores a widget's *displayed* option, so
every picker whose options are ids shown through a `format_func` goes through `select`/`radio`
here instead: the URL is read before the widget is drawn and written after it. Widgets whose shown
value is already the id (category multiselects, free text) may keep `bind="query-params"`. A
filter over several facets drawn in the browser (`facet_choice`, Compare's matrix) binds each facet
to its own parameter (`?org=Lab+B&doc=blog`), read and written the same way.

To add a page: one line in `PAGES` (a file in views/ with a `render()`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import streamlit as st

from views import data
from views.plain import escape_md

VIEWS = Path(__file__).resolve().parent


#: url_path -> (module file, title, icon); the first one is the default page (also served at "/").
PAGES: dict[str, tuple[str, str, str]] = {
    "compare": ("compare.py", "Compare", ":material/table_chart:"),
    "keywords": ("keywords.py", "Keywords", ":material/bar_chart:"),
    "evidence": ("evidence.py", "Evidence", ":material/format_quote:"),
    "report": ("report.py", "Report", ":material/description:"),
    "benchmarks": ("benchmarks.py", "Benchmarks", ":material/leaderboard:"),
    "indicators": ("indicators.py", "Indicators", ":material/checklist:"),
    "search": ("search.py", "Search", ":material/search:"),
    "timeline": ("timeline.py", "Timeline", ":material/timeline:"),
    "add": ("add_report.py", "Add report", ":material/add_circle:"),
    "review": ("review.py", "Review", ":material/rate_review:"),
    "changes": ("changes.py", "Changes", ":material/difference:"),
    "incoming": ("incoming.py", "Incoming", ":material/inbox:"),
    "source": ("source.py", "Source page", ":material/picture_as_pdf:"),
}
#: Pages reached only by a link (a quote's "see the page"), not listed in the menu.
HIDDEN: frozenset[str] = frozenset({"source"})
HOME = next(iter(PAGES))
_SEEN = "_url_seen."  # session-state prefix: the URL value this session last wrote for a key
_MISSING = object()


def page(name: str) -> st.Page:
    """The `st.Page` of a page name (url_path == name); always addressable as /<name>. Pages in
    HIDDEN are left out of the menu."""
    file, title, icon = PAGES[name]
    return st.Page(str(VIEWS / file), title=title, icon=icon, url_path=name, visibility="hidden" if name in HIDDEN else "visible")


def _home() -> st.Page:
    """The default page at "/": the first page's script under a reserved path (st.Page needs one),
    not in the menu, which lists that page once, as /<name>."""
    file, title, icon = PAGES[HOME]
    return st.Page(str(VIEWS / file), title=title, icon=icon, url_path="home", default=True, visibility="hidden")


def names() -> list[str]:
    """The pages in the navigation; a read-only dashboard ($FRL_READ_ONLY) has no Add report page."""
    return [n for n in PAGES if not (n == "add" and data.read_only())]


def pages() -> list[st.Page]:
    """Every page: the home alias first (served at "/"), then each page at /<name> (a read-only
    dashboard has no Add report page)."""
    return [_home(), *(page(n) for n in names())]


def go(name: str, **params: str) -> None:
    """Open another page with these query parameters (ids); its pickers adopt them."""
    st.switch_page(page(name), query_params={k: v for k, v in params.items() if v not in (None, "")})


# ------------------------------------------------------------------------------------------- URL <-> widgets
def _url(key: str, multi: bool) -> Any:
    if multi:
        vals = st.query_params.get_all(key)
        return vals or None
    return st.query_params.get(key)


def current(key: str) -> Any:
    """A URL-bound widget's value before the widget is drawn (a popover's label is drawn first): its
    state, else the URL's (one value as text, a repeated parameter as a list)."""
    if key in st.session_state:
        return st.session_state[key]
    vals = st.query_params.get_all(key)
    return vals[0] if len(vals) == 1 else vals


def unknown_id(key: str, ids: Sequence[str]) -> str | None:
    """The id a link put in `?key=` when the store has no such report (cut to 64 characters), else None:
    the page says so and picks nothing, rather than showing another report in its place."""
    asked = st.query_params.get(key)
    if asked is None or asked in ids:
        return None
    return str(asked)[:64]


def no_such_report(asked: str) -> None:
    """The line a page shows for an unknown id in its URL (plain text: the id comes from the address)."""
    st.text(f"No report with id {asked!r} in the stored data; pick one below.")


def is_set(key: str, switch: bool = False) -> bool:
    """Whether that value is set: text that is not blank, a non-empty choice; for a `switch` (a toggle
    bound to the URL), on (the URL's "false" is off)."""
    v = current(key)
    if isinstance(v, str):
        v = v.strip()
        return bool(v) and not (switch and v.lower() == "false")
    return bool(v)


def typed(key: str, limit: int, more: str = "…") -> str:
    """A set text value shown in a label (a popover's, drawn before its box): stripped, cut to `limit`
    characters (`more` marks a cut) and Markdown-escaped, since a label renders Markdown."""
    text = str(current(key) or "").strip()
    return escape_md(text[:limit] + (more if len(text) > limit else ""))


def keep_typed(keys: Sequence[str]) -> None:
    """Keep what the reader chose or typed in a closed popover's widgets for when it opens again.

    Why: Streamlit forgets the state of a widget not drawn in a run, and a closed popover's
    widgets are not drawn; a value written back through session state is kept (Streamlit's
    documented way to retain a widget's state while it is not shown)."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def sync_in(key: str, options: Sequence[Any], multi: bool = False) -> None:
    """Before drawing widget `key`: adopt the URL's value when the URL changed since this session wrote it.

    A changed URL means a link, a page switch with parameters, a reload or a hand-edited address;
    an unchanged one means the user is working the widget, whose state then wins.
    """
    url = _url(key, multi)
    known = {str(o): o for o in options}
    if url is not None and (_changed(key, url) or key not in st.session_state):
        if multi:
            st.session_state[key] = [known[u] for u in url if u in known]
        elif url in known:
            st.session_state[key] = known[url]
    elif url is None and _changed(key, url) and key in st.session_state:
        del st.session_state[key]  # the address lost the parameter (a menu link): back to the default


def _changed(key: str, url: Any) -> bool:
    """The URL's value of `key` is not what this session last wrote there (a link, a reload, a
    hand-edited address); a parameter this session never wrote and that is absent has not changed."""
    seen = st.session_state.get(_SEEN + key, _MISSING)
    return url != seen and not (url is None and seen in (_MISSING, None))


def sync_out(key: str, value: Any, default: Any = None) -> None:
    """After drawing widget `key`: put its id into the URL (none when it is the default)."""
    if value is None or value == default or value == [] or value == "":
        if key in st.query_params:
            del st.query_params[key]
        st.session_state[_SEEN + key] = None
        return
    if isinstance(value, list):
        st.query_params[key] = [str(v) for v in value]
        st.session_state[_SEEN + key] = [str(v) for v in value]
    else:
        st.query_params[key] = str(value)
        st.session_state[_SEEN + key] = str(value)


def select(
    label: str,
    options: Sequence[Any],
    key: str,
    format_func: Callable[[Any], str] = str,
    where: Any = st,
    widget: str = "selectbox",
    default: Sequence[Any] | None = None,
    **kw: Any,
) -> Any:
    """A selectbox/radio/multiselect whose options are ids, bound to `?key=<id>` (repeated for several).

    The default is the first option (a multiselect's: `default`, else nothing); the URL omits it.
    """
    opts = list(options)
    multi = widget == "multiselect"
    sync_in(key, opts, multi)
    if multi and default is not None and key not in st.session_state:
        st.session_state[key] = [d for d in default if d in opts]
    value = getattr(where, widget)(label, opts, key=key, format_func=format_func, **kw)
    if multi:
        sync_out(key, value, [d for d in default if d in opts] if default is not None else [])
    else:
        sync_out(key, value, opts[0] if opts else None)
    return value


def facet_choice(
    known: Mapping[str, Sequence[str]], sent: Sequence[tuple[str, str]] | None, last: Sequence[tuple[str, str]] | None
) -> list[tuple[str, str]]:
    """The (facet, value) pairs of a filter drawn outside Streamlit's widgets (Compare's matrix, which
    filters in the browser), each facet bound to its own URL parameter (`?org=A&doc=blog`).

    What the browser `sent` since the last run wins; else the URL's values when it changed since this
    session wrote it (a link, a reload) or nothing was chosen before; else the `last` choice (the
    URL's values in the order they were picked). Values the store does not have are dropped. The
    choice is written back to the URL.
    """
    if sent is not None:
        pairs = list(sent)
    elif last is not None and not any(_changed(k, _url(k, True)) for k in known):
        pairs = list(last)
    else:
        pairs = [(k, v) for k in known for v in (_url(k, True) or [])]
    sets = {k: set(vals) for k, vals in known.items()}
    pairs = list(dict.fromkeys((k, v) for k, v in pairs if v in sets.get(k, ())))
    for k in known:
        sync_out(k, [v for kk, v in pairs if kk == k], [])
    return pairs


def picker_row(vertical_alignment: Literal["top", "center", "bottom"] = "top") -> Any:
    """A row of pickers: one horizontal block that wraps on a narrow screen. Not `st.columns`, which is a
    block per column besides the row's: a rerun of a fragment re-sends every block it draws and the
    browser re-draws each (bench/rerun_messages.py), so four columns cost four more messages per pick."""
    return st.container(horizontal=True, gap="medium", vertical_alignment=vertical_alignment)


#: A picker offers at most this many reports ($FRL_PICKER_LIMIT overrides it); with more, a search box
#: narrows them (a selectbox of 10,000 options ships every label to the browser on each run and takes
#: seconds to draw).
PICKER_LIMIT = 300


def _limit() -> int:
    return int(os.environ.get("FRL_PICKER_LIMIT") or PICKER_LIMIT)


def search_popover(n: int, key: str, keep: int = 1) -> None:
    """`narrow`'s search box in a popover whose label shows the typed text, drawn apart from its picker,
    e.g. outside the fragment that draws the picker, so a pick does not send it again (a popover is one
    of the costlier elements to redraw: bench/rerun_elements.py). Its box is drawn only while it is open
    (a closed popover's widgets are not drawn; what was typed is kept). Nothing when the picker's `n`
    options fit (`PICKER_LIMIT`)."""
    if n <= _limit():
        return
    label, find = f"Search {n - keep:,} reports", f"{key}_find"
    shown = f"{label}: {typed(find, 20)}" if is_set(find) else label
    pop = st.popover(shown, key=f"{find}_pop", on_change="rerun")
    if pop.open:
        with pop:
            st.text_input(label, key=find, placeholder="part of the name", max_chars=200)
    else:
        keep_typed((find,))


def narrow(options: Sequence[Any], key: str, format_func: Callable[[Any], str] = str, keep: int = 1) -> list[Any]:
    """The options a picker `key` offers: all when at most `PICKER_LIMIT`; else the first that many whose
    label contains the text typed in its search box (key `<key>_find`, drawn by `search_popover` with
    the same `key` and `keep`, e.g. outside the fragment that draws the picker). The first `keep` options
    (the picker's default, which the URL leaves out, so it must not change with the search) and the
    current choice (from the URL or the session) are always offered."""
    opts = list(options)
    limit = _limit()
    if len(opts) <= limit:
        return opts
    text = st.session_state.get(f"{key}_find", "")
    q = str(text or "").strip().casefold()
    head, rest = opts[:keep], opts[keep:]
    hits = [o for o in rest if q in str(format_func(o)).casefold()] if q else rest
    shown = hits[:limit]
    for current in (st.session_state.get(key), _url(key, False)):  # a callback's choice, a link's choice
        if current is not None and all(str(o) != str(current) for o in shown):
            shown = [o for o in rest if str(o) == str(current)][:1] + shown
    return head + shown
