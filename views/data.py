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

from ingest import confine, summaries
from ingest.lens import DEFAULT_LENS
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


def read_only() -> bool:
    """$FRL_READ_ONLY: Add report is switched off (a value that is neither on nor off counts as on)."""
    try:
        return confine.env_flag(confine.READ_ONLY_ENV)
    except ValueError:
        return True


def source_roots() -> tuple[Path, ...]:
    """Extra folders local sources may come from ($FRL_SOURCE_ROOTS); the reports folder always may."""
    return confine.env_roots()


def allow_private_hosts() -> bool:
    """$FRL_ALLOW_PRIVATE_HOSTS=1 lets URL sources reach internal addresses (a bad value counts as off)."""
    try:
        return confine.env_flag(confine.PRIVATE_HOSTS_ENV)
    except ValueError:
        return False


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


@st.cache_data(show_spinner=False)
def _dimensions(mtime: int) -> list[summaries.Dimension]:
    return summaries.load_dimensions()


def dimensions() -> list[summaries.Dimension]:
    """Comparison dimensions and labels from the lens YAML, reloaded when the file changes."""
    return _dimensions(DEFAULT_LENS.stat().st_mtime_ns)


def dim_labels() -> dict[str, str]:
    return {d.id: d.label for d in dimensions()}


def clear() -> None:
    """Forget cached tables (after Add report ran the pipeline)."""
    _load.clear()


def no_data_notice(tbl: dict[str, pd.DataFrame]) -> bool:
    """Show how to fill an empty store; True when there is nothing to display."""
    if tbl["reports"].empty:
        from views.plain import message

        message("info", f"No results in {data_dir().name} yet. Run python -m ingest (or make app), or add a report.")
        return True
    return False
