"""Loading the stored tables for the dashboard: through the manifest, lazily, with filters pushed down.

The app never parses PDFs. It reads one generation of tables (named by `results/manifest.json`,
so it never sees a half-written mix) and caches each table or filtered read on the manifest's
size and mtime (`Stamp`), so a filter rerun costs only the filtering. Tables load on first use:
a page that shows one report's KWIC lines reads those lines only (`kwic_rows`), never the whole
KWIC table. A damaged store shows one plain-text notice instead of a traceback.
`FRL_DATA_DIR` / `FRL_REPORTS_DIR` point the app at another store (tests, benchmarks).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pandas as pd
import streamlit as st

from ingest.analysis.lens import LENS_DIR, Dimension, Lens, lens_for, load_lens
from ingest.analysis.lexicon import DEFAULT_LEXICON, Lexicon, load_lexicon
from ingest.sources import confine
from ingest.store.manifest import TABLES, StoreDamaged
from ingest.store.store import Store
from views.folders import REPO, data_dir, reports_dir, source_roots  # noqa: F401  (the pages call data.reports_dir() etc.)
from views.plain import message

Stamp = tuple[tuple[str, int, int], ...]
DAMAGED_NOTICE = "The stored tables are damaged; run python -m ingest to rebuild them."
KWIC_COLUMNS = ["report_id", "page", "section", "left", "match", "right"]


def read_only() -> bool:
    """$FRL_READ_ONLY: Add report is switched off (a value that is neither on nor off counts as on)."""
    try:
        return confine.env_flag(confine.READ_ONLY_ENV)
    except ValueError:
        return True


def allow_private_hosts() -> bool:
    """$FRL_ALLOW_PRIVATE_HOSTS=1 lets URL sources reach internal addresses (a bad value counts as off)."""
    try:
        return confine.env_flag(confine.PRIVATE_HOSTS_ENV)
    except ValueError:
        return False


def stamp(root: Path) -> Stamp:
    """Cache key: size and mtime of the manifest, which every new generation replaces."""
    size, mtime = Store(root).generation_key()
    return (("manifest", mtime, size),)


def damaged_notice() -> None:
    """A fixed sentence (no user text, no traceback, no server path); stops the page."""
    st.error(DAMAGED_NOTICE, icon=None)
    st.stop()


# ------------------------------------------------------------------------------------ cached reads
@st.cache_resource(show_spinner=False, max_entries=8)
def _damaged(root: str, key: Stamp) -> bool:
    return bool(Store(root).check())


@st.cache_resource(show_spinner=False, max_entries=32)
def _table(root: str, key: Stamp, name: str) -> pd.DataFrame:
    return Store(root).read_table(name)


@st.cache_resource(show_spinner=False, max_entries=64)
def _read(root: str, key: Stamp, name: str, report_ids: tuple[str, ...] | None, columns: tuple[str, ...] | None,
          filters: tuple[tuple[str, str, object], ...] | None) -> pd.DataFrame:  # fmt: skip
    return Store(root).read_table(name, report_ids=report_ids, columns=columns, filters=list(filters) if filters else None)


class Tables(Mapping[str, pd.DataFrame]):
    """The stored tables by name, each loaded (and cached) on first access; treat them as read-only."""

    def __init__(self, root: Path, key: Stamp):
        self.root, self.key = root, key

    def __getitem__(self, name: str) -> pd.DataFrame:
        try:
            return _table(str(self.root), self.key, name)
        except StoreDamaged:
            damaged_notice()
            raise  # st.stop() raised already; this line is for type checkers

    def __iter__(self) -> Iterator[str]:
        try:
            names = Store(self.root).table_names()
        except StoreDamaged:
            names = []
        return iter(dict.fromkeys([*TABLES, *names]))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def tables() -> tuple[Tables, Stamp]:
    """The stored tables (loaded lazily, cached per generation) and their cache key."""
    root = data_dir()
    key = stamp(root)
    if _damaged(str(root), key):
        damaged_notice()
    return Tables(root, key), key


def read(
    name: str,
    report_ids: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
    filters: Sequence[tuple[str, str, object]] | None = None,
) -> pd.DataFrame:
    """A filtered read of one stored table (only the parts and rows needed), cached per generation."""
    root = data_dir()
    try:
        return _read(
            str(root),
            stamp(root),
            name,
            tuple(report_ids) if report_ids is not None else None,
            tuple(columns) if columns is not None else None,
            tuple((c, op, tuple(v) if isinstance(v, list | set) else v) for c, op, v in filters) if filters else None,
        )
    except StoreDamaged:
        damaged_notice()
        raise


@st.cache_resource(show_spinner=False, max_entries=4)
def _names(root: str, key: Stamp) -> tuple[dict[str, str], tuple[str, ...]]:
    reports = _table(root, key, "reports")
    if reports.empty:
        return {}, ()
    models = {str(r): str(m) for r, m in zip(reports["report_id"].tolist(), reports["model"].tolist(), strict=True)}
    return models, tuple(sorted(models, key=lambda r: models[r].casefold()))


def names() -> tuple[dict[str, str], tuple[str, ...]]:
    """Each report's model name by id, and the ids in name order (case-insensitive), once per store
    generation (pages read them on every rerun; building them grows with the reports).
    Shared: callers must not change them."""
    root = data_dir()
    try:
        return _names(str(root), stamp(root))
    except StoreDamaged:
        damaged_notice()
        raise


def kwic_rows(report: str | None, term: str, section: str = "") -> pd.DataFrame:
    """KWIC lines of a term (in one report, or all with None), optionally one section; page label preferred."""
    if not term:
        return pd.DataFrame(columns=[*KWIC_COLUMNS, "page_no"])
    filters: list[tuple[str, str, object]] = [("term", "==", term)]
    if section:
        filters.append(("section", "==", section))
    df = read("kwic", report_ids=[report] if report else None, filters=filters)
    return shape_kwic(df)


def shape_kwic(df: pd.DataFrame) -> pd.DataFrame:
    """KWIC rows as shown: the printed page label where there is one (`page_no` keeps the PDF page)."""
    if df.empty:
        return pd.DataFrame(columns=[*KWIC_COLUMNS, "page_no"])
    out = df.copy()
    out["page_no"] = out["page"]  # the PDF page number, for "see the page" and ordering
    label = out["page_label"]
    out["page"] = label.where(label.notna() & (label.astype(str) != ""), out["page"])
    return out[[*KWIC_COLUMNS, "page_no"]].sort_values(["report_id", "page_no"], kind="stable")


def evidence_rows(report: str | None, dimension: str) -> pd.DataFrame:
    """Ranked evidence sentences of one dimension (one report, or all with None)."""
    return read("evidence", report_ids=[report] if report else None, filters=[("dimension", "==", dimension)])


# ------------------------------------------------------------------------------------ declared data
@st.cache_data(show_spinner=False, max_entries=4)
def _lexicon(path: str, mtime: int) -> Lexicon:
    return load_lexicon(path)


def lexicon() -> Lexicon:
    """The keyword lexicon (data/lexicon.yaml), reloaded when the file changes."""
    return _lexicon(str(DEFAULT_LEXICON), DEFAULT_LEXICON.stat().st_mtime_ns)


def lens() -> Lens:
    """The active lens: $FRL_LENS, else the lens whose dimensions the stored comparison table holds.

    `load_lens` is memoised on the file's mtime, and the stored dimension ids are cached with
    the tables, so this is cheap on every rerun.
    """
    if os.environ.get("FRL_LENS"):
        return load_lens(os.environ["FRL_LENS"])
    _, key = tables()
    return lens_for(_stored_dimensions(key, str(data_dir())), LENS_DIR)


@st.cache_data(show_spinner=False, max_entries=4)
def _stored_dimensions(key: Stamp, root: str) -> tuple[str, ...]:
    cmp_ = read("comparison", columns=["dimension"])
    return tuple(cmp_["dimension"].unique()) if not cmp_.empty else ()


def dimensions() -> list[Dimension]:
    """Comparison dimensions of the active lens, in lens order."""
    return list(lens().dimensions)


def dim_labels() -> dict[str, str]:
    return {d.id: d.label for d in dimensions()}


def clear() -> None:
    """Forget cached tables (after Add report ran the pipeline)."""
    _table.clear()
    _read.clear()
    _names.clear()
    _damaged.clear()


def is_empty(tbl: Mapping[str, pd.DataFrame]) -> bool:
    """No report stored: nothing to display."""
    return tbl["reports"].empty


def no_data_notice(tbl: Mapping[str, pd.DataFrame]) -> bool:
    """Show how to fill an empty store; True when there is nothing to display (`is_empty`)."""
    if is_empty(tbl):
        message("info", f"No results in {data_dir().name} yet. Run python -m ingest (or make app), or add a report.")
        return True
    return False
