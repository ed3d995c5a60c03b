"""The folders the dashboard works on, from the environment: the store, the reports folder, the
allowed source roots and the repository.

Its own module so that `views.plain` (which shortens these folders in any text it shows) and
`views.data` (which reads the store) both use it without importing each other.
"""

from __future__ import annotations

import os
from pathlib import Path

from ingest.sources import confine
from ingest.store.store import DEFAULT_DATA_DIR

REPO = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """The store the app shows: $FRL_DATA_DIR or the repo's data/."""
    return Path(os.environ.get("FRL_DATA_DIR") or DEFAULT_DATA_DIR)


def reports_dir() -> Path:
    """Where Add report writes YAML files: $FRL_REPORTS_DIR or the repo's reports/."""
    return Path(os.environ.get("FRL_REPORTS_DIR") or REPO / "reports")


def source_roots() -> tuple[Path, ...]:
    """Extra folders local sources may come from ($FRL_SOURCE_ROOTS); the reports folder always may."""
    return confine.env_roots()
