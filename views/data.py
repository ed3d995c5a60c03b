"""Loading the stored tables for the dashboard, cached on the store files' modification times.

The app never parses PDFs: it reads `data/results/*.parquet` once per change of those files
(the cache key is their mtimes and sizes), so a filter rerun costs only the filtering.
`FRL_DATA_DIR` / `FRL_REPORTS_DIR` point the app at another store (tests, benchmarks).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import streamlit as st

from ingest.lens import LENS_DIR, Dimension, Lens, lens_for, load_lens
from ingest.lexicon import DEFAULT_LEXICON, Lexicon, load_lexicon
from ingest.store import DEFAULT_DATA_DIR, TABLES, Store

REPO = Path(__file__).resolve().parent.parent
Stamp = tuple[tuple[str, int, int], ...]


def data_dir() -> Path:
    """The store the app shows: $FRL_DATA_DIR or the repo's data/."""
    return Path(os.environ.get("FRL_DATA_DIR") or DEFAULT_DATA_DIR)


def reports_dir() -> Path:
    """Where Add report writes YAML files: $FRL_REPORTS_DIR or the repo's reports/."""
    return Path(os.environ.get("FRL_REPORTS_DIR") or REPO / "reports")


def stamp(root: Path) -> Stamp:
    """Cache key: (name, mtime_ns, size) of every stored table file; changes when a run rewrites one."""
    res = Store(root).results_dir
    out = []
    for name in TABLES:
        try:
            s = (res / f"{name}.parquet").stat()
            out.append((name, s.st_mtime_ns, s.st_size))
        except OSError:
            out.append((name, 0, 0))
    return tuple(out)


@st.cache_data(show_spinner=False, max_entries=4)
def _load(root: str, key: Stamp) -> dict[str, pd.DataFrame]:
    store = Store(root)
    return {name: store.read_table(name) for name in TABLES}


def tables() -> tuple[dict[str, pd.DataFrame], Stamp]:
    """All stored tables (copies are not made: treat them as read-only) and their cache key."""
    root = data_dir()
    key = stamp(root)
    return _load(str(root), key), key


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
    cmp_ = tables()[0]["comparison"]
    return tuple(cmp_["dimension"].unique()) if not cmp_.empty else ()


def dimensions() -> list[Dimension]:
    """Comparison dimensions of the active lens, in lens order."""
    return list(lens().dimensions)


def dim_labels() -> dict[str, str]:
    return {d.id: d.label for d in dimensions()}


def clear() -> None:
    """Forget cached tables (after Add report ran the pipeline)."""
    _load.clear()


def no_data_notice(tbl: dict[str, pd.DataFrame]) -> bool:
    """Show how to fill an empty store; True when there is nothing to display."""
    if tbl["reports"].empty:
        st.info(f"No results in `{data_dir()}` yet. Run `python -m ingest` (or `make app`), or add a report.")
        return True
    return False
