"""Compare's matrix as a component that filters and pages in the browser, without a rerun.

Why: a Streamlit widget change costs a rerun, and on this 2-core machine the framework alone takes
0.08-0.28 s to re-render a one-line app after a multiselect pick (bench/app_speed.py's reference,
depending on the host's load), which left the matrix's own redraw almost nothing of the 0.3 s
budget. Here the rows' facets and chips come as compact data (ids and category indices, no quotes:
small beside the quotes they leave out; sent
with each run of Compare's fragment, parsed by the script only when it changed), and the browser
redraws the 25 rows of a page itself when a filter value or the page changes. It then sends the
choice back (`setStateValue`): the rerun that follows writes the URL, points the exports at the
shown reports and sends the hover texts (full wording and quote) of the page's cells, which are too
long to ship for every report.

The component builds every element with DOM calls (`textContent`, `title`, `href` from
`URLSearchParams`): text from a report or YAML file is never parsed as HTML, and a class name is
used only when it is one of the short names this module makes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

#: The component's widget key; its one state value, "view", is {"filters": [[facet, value], ...], "page": n,
#: "seq": the browser's count of changes}.
KEY = "matrix"
JS = (Path(__file__).with_suffix(".js")).read_text(encoding="utf-8")
PAGE_ROWS = 25  # rows a page: a filter change redraws them
#: At most this many (facet, value) pairs, each string at most MAX_VALUE characters, are read from the
#: browser (more than any store's facets hold; a forged state cannot make a run walk millions).
MAX_PAIRS, MAX_VALUE = 2_000, 1_000
_SEEN = "_matrix_seen"  # session-state key: the browser's state as of the last run


@dataclass(frozen=True)
class Column:
    """A drawn dimension: its id (the Evidence link's `dim`), label and category chips, in index order
    as (value, colour class, label)."""

    id: str
    label: str
    chips: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class Facet:
    """A filter facet: its key (URL parameter), label, and values as (value, shown label)."""

    key: str
    label: str
    values: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Texts:
    """The component's wording, kept here rather than in its JavaScript: `{n}` is a number."""

    filter: str
    find: str
    clear: str
    count: str  # "{n} of {total} reports"
    by: str  # " (filtered by {what})"
    search: str  # the search box's name in "filtered by"
    empty: str
    warn: str  # "{n} report(s) …"
    prev: str
    next: str
    page: str  # "Page {p} of {pages}: reports {lo}–{hi} of {n}"
    model: str


def encode_rows(rows: pd.DataFrame, columns: Sequence[Column], facets: Sequence[Facet]) -> list[str]:
    """Each row as compact JSON, encoded once per store and column choice (a search then only picks
    rows): [id, model, meta line, disagrees (0/1), facet value indices per facet, [chip indices, marks,
    0/1 disagrees] per column]. `rows` holds `report_id`, `model`, `meta`, `disagree`, the values of
    each facet (`facet:<key>`, a list) and each column's (values, marks, disagrees) (`cell:<id>`)."""
    f_index = [{v: i for i, (v, _) in enumerate(f.values)} for f in facets]
    c_index = [{v: i for i, (v, _, _) in enumerate(c.chips)} for c in columns]
    f_cols = [rows[f"facet:{f.key}"].tolist() for f in facets]
    c_cols = [rows[f"cell:{c.id}"].tolist() for c in columns]
    ids, models, metas, dis = (rows[k].tolist() for k in ("report_id", "model", "meta", "disagree"))
    out: list[str] = []
    for i, rid in enumerate(ids):
        fs = [[ix[v] for v in col[i] if v in ix] for ix, col in zip(f_index, f_cols, strict=True)]
        cs = []
        for ix, col in zip(c_index, c_cols, strict=True):
            values, mk, d = col[i]
            cs.append([[ix[v] for v in values if v in ix], mk, 1 if d else 0])
        row = [str(rid), str(models[i]), str(metas[i]), 1 if dis[i] else 0, fs, cs]
        out.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
    return out


@dataclass(frozen=True)
class Model:
    """The component's data that changes only with the store, the columns or the search (JSON), and
    its fingerprint, worked out once with it: the browser parses the JSON again only when that changes."""

    json: str
    v: str


def model_json(rows: Sequence[str], columns: Sequence[Column], facets: Sequence[Facet], texts: Texts) -> Model:
    """The columns and their chips, the facets and their values, the rows (`encode_rows`' texts) and the wording."""
    head = {
        "columns": [{"id": c.id, "label": c.label, "chips": [[cls, label] for _, cls, label in c.chips]} for c in columns],
        "facets": [
            {"key": f.key, "label": f.label, "values": [v for v, _ in f.values], "shown": [s for _, s in f.values]}
            for f in facets
        ],
        "texts": texts.__dict__,
        "page_rows": PAGE_ROWS,
    }
    text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1] + ',"rows":[' + ",".join(rows) + "]}"
    return Model(text, hashlib.blake2b(text.encode(), digest_size=8).hexdigest())


@dataclass(frozen=True)
class View:
    """What the browser sent: the chosen (facet, value) pairs, the page, and its count of changes
    (echoed back, so the browser can tell a run that has seen its latest change from an older one)."""

    pairs: list[tuple[str, str]]
    page: int
    seq: int
    #: The report ids of the page the browser shows when it sorted the rows itself (a header click):
    #: their hover texts are sent instead of the store-order page's. Empty when unsorted.
    ids: tuple[str, ...] = ()


def sent() -> View | None:
    """What the browser sent since the last run; None when it sent nothing new (its state is kept
    across runs, so an unchanged one is not news)."""
    state = st.session_state.get(KEY)
    view = state.get("view") if isinstance(state, Mapping) else None
    if not isinstance(view, Mapping):
        return None
    seen = (view.get("seq"), view.get("page"), view.get("filters"), view.get("ids"))
    if st.session_state.get(_SEEN) == seen:
        return None
    st.session_state[_SEEN] = seen
    pairs, page, seq = view.get("filters"), view.get("page"), view.get("seq")
    listed = pairs[:MAX_PAIRS] if isinstance(pairs, list) else []  # a browser's state is untrusted input
    chosen = [
        (p[0], p[1])
        for p in listed
        if isinstance(p, list | tuple) and len(p) == 2 and all(isinstance(x, str) and len(x) <= MAX_VALUE for x in p)
    ]
    ids = view.get("ids")
    shown = tuple(x for x in (ids[:PAGE_ROWS] if isinstance(ids, list) else []) if isinstance(x, str) and len(x) <= MAX_VALUE)
    return View(chosen, _count(page, 1), _count(seq, 0), shown)


def _count(v: object, default: int) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= default else default


def draw(
    model: Model,
    chosen: Sequence[tuple[str, str]],
    page: int,
    seq: int,
    total: int,
    searched: bool,
    titles: Mapping[str, Sequence[str]],
    css: str,
) -> None:
    """Mount the matrix: `model` from model_json; the choice and page this run settled on, with the
    browser's change count it has seen (`seq`: the browser adopts them only when it has sent nothing
    newer); how many reports there are in all; whether a search narrows the rows; and the hover texts
    of the shown page's cells, by report id."""
    _component(css)(
        data={
            "v": model.v,
            "model": model.json,
            "view": {"filters": [list(p) for p in chosen], "page": page, "seq": seq},
            "total": total,
            "searched": searched,
            "titles": dict(titles),
        },
        key=KEY,
        default={"view": None},
        on_view_change=_ignore,
    )


def _ignore() -> None:
    """The state is read at the top of the next run (`sent`); the callback only makes "view" a state."""


@st.cache_resource(show_spinner=False)
def _component(css: str):  # type: ignore[no-untyped-def]
    """One registered component per style sheet and script (a changed script gets a new name)."""
    name = "frl_matrix_" + hashlib.sha1((css + JS).encode()).hexdigest()[:12]
    return st.components.v2.component(name, js=JS, css=css + "\n" + BAR_CSS, isolate_styles=False)


#: The filter bar, panel, count and pager, in the app's theme colours (components get Streamlit's theme as
#: `--st-*` properties; the fallbacks are the light theme's). One rule a line: Streamlit takes a one-line
#: style sheet holding "[" or "/" for a file path.
BAR_CSS = "\n".join(
    (
        ".frl-bar{position:relative;display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:0 0 6px 0}",
        ".frl-btn{font:inherit;font-size:14px;padding:4px 12px;border:1px solid var(--st-border-color,#d0d0d8);"
        "border-radius:8px;background:var(--st-background-color,#fff);color:inherit;cursor:pointer}",
        ".frl-sort{font:inherit;font-weight:600;border:0;background:none;color:inherit;padding:0;cursor:pointer;text-align:left}",
        ".frl-sort:hover{color:var(--st-primary-color,#ff4b4b)}",
        ".frl-btn:hover{border-color:var(--st-primary-color,#ff4b4b);color:var(--st-primary-color,#ff4b4b)}",
        ".frl-btn:disabled{opacity:.45;cursor:default}",
        ".frl-picked button{font:inherit;font-size:12px;border:0;border-radius:10px;padding:2px 8px;margin:0 2px;"
        "color:inherit;background:var(--st-secondary-background-color,#eef1f6);cursor:pointer}",
        ".frl-panel{position:absolute;top:100%;left:0;z-index:20;width:min(560px,90vw);max-height:60vh;overflow:auto;"
        "background:var(--st-background-color,#fff);border:1px solid var(--st-border-color,#d0d0d8);border-radius:8px;"
        "box-shadow:0 4px 16px rgba(0,0,0,.12);padding:8px}",
        ".frl-panel input[type=search]{width:100%;box-sizing:border-box;font:inherit;padding:4px 8px;margin-bottom:6px;"
        "border:1px solid var(--st-border-color,#d0d0d8);border-radius:6px;color:inherit;background:inherit}",
        ".frl-panel h4{font-size:12px;margin:8px 0 2px 0;opacity:.7;font-weight:600}",
        ".frl-panel label{display:block;font-size:13px;padding:1px 0;cursor:pointer}",
        ".frl-count,.frl-pager span{font-size:14px;opacity:.6}",
        ".frl-pager{display:flex;gap:8px;align-items:center;margin-top:6px}",
        ".frl-note{font-size:14px;padding:8px 12px;border-radius:8px;margin-top:6px}",
        ".frl-note.warn{background:rgba(255,227,18,.15);color:#926c05}",
        ".frl-note.info{opacity:.6}",
    )
)
