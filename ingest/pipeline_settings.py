"""How a pipeline run is set up and what it reports: `Settings`, `Outcome`, `RunResult`.

Why its own module: the CLI, the dashboard and the workers all need these records, and none of
them needs the stages to build one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ingest.analysis.lens import DEFAULT_LENS
from ingest.analysis.lexicon import DEFAULT_LEXICON
from ingest.reading.extract import Engine
from ingest.run.jobs import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, Limits
from ingest.sources import fetch
from ingest.sources.confine import normalise_roots
from ingest.sources.registry import SpecError
from ingest.store.store import DEFAULT_DATA_DIR

#: Bump when counting/sectioning changes, so stored bundles are recomputed.
PIPELINE_VERSION = 4

Status = Literal["ok", "cached", "no-source", "failed"]


@dataclass(frozen=True)
class Settings:
    """How to run the pipeline; validated on creation so a typo fails before any work is done."""

    data_dir: Path = DEFAULT_DATA_DIR
    lexicon_path: Path = DEFAULT_LEXICON
    lens_path: Path = DEFAULT_LENS
    engine: Engine = "pdfium"
    force: bool = False
    offline: bool = False
    max_pages: int = 3000
    #: Download limits for `source.url` (timeouts, size cap, retries, redirects); see ingest/sources/fetch.py.
    fetch_settings: fetch.FetchSettings = field(default_factory=fetch.FetchSettings)
    #: Folders a `source.path` or `file://` URL may lie in (resolved; `run` adds the reports folder).
    source_roots: tuple[Path, ...] = ()
    #: Wall-clock limit, in seconds, for one report's extraction and analysis (its worker is killed).
    timeout: float = DEFAULT_TIMEOUT
    #: Memory (address-space) limit, in MB, of the worker process that reads one report.
    memory_limit_mb: int = DEFAULT_MEMORY_MB
    #: Reports read at once, each in its own worker process (None: one per available core).
    jobs: int | None = None
    #: Address of a Dask scheduler ("tcp://host:8786") to read reports on; None reads them here.
    executor: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.source_roots, str | Path) or not isinstance(self.source_roots, tuple | list):
            raise ValueError(f"source_roots must be a tuple of folders, not {self.source_roots!r}")
        object.__setattr__(self, "source_roots", normalise_roots(self.source_roots))
        if not isinstance(self.fetch_settings, fetch.FetchSettings):
            raise ValueError("fetch_settings must be a FetchSettings")
        if self.engine not in ("pdfium", "pdfplumber"):
            raise ValueError(f"engine must be 'pdfium' or 'pdfplumber', not {self.engine!r}")
        if self.max_pages < 1:
            raise ValueError(f"max_pages must be at least 1, not {self.max_pages}")
        self.limits()  # validates timeout and memory_limit_mb
        if self.jobs is not None and (isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1):
            raise ValueError(f"jobs must be a whole number of at least 1, not {self.jobs!r}")
        if self.executor is not None and (not isinstance(self.executor, str) or not self.executor.strip()):
            raise ValueError(f"executor must be a Dask scheduler address such as tcp://host:8786, not {self.executor!r}")
        object.__setattr__(self, "data_dir", Path(self.data_dir))
        object.__setattr__(self, "lexicon_path", Path(self.lexicon_path))
        object.__setattr__(self, "lens_path", Path(self.lens_path))

    def limits(self) -> Limits:
        """The per-report limits of a worker process."""
        return Limits(timeout=self.timeout, memory_mb=self.memory_limit_mb)


@dataclass
class Outcome:
    """What happened to one report in this run."""

    report_id: str
    status: Status
    message: str = ""
    words: int | None = None
    pages: int | None = None
    seconds: float = 0.0
    file: str = ""
    #: Peak memory of the worker process that read the report, in MB (None when none ran).
    peak_mb: float | None = None

    @property
    def failed(self) -> bool:
        return self.status == "failed"


@dataclass
class RunResult:
    outcomes: list[Outcome] = field(default_factory=list)
    spec_errors: list[SpecError] = field(default_factory=list)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.failed]


def download_settings(settings: Settings) -> fetch.FetchSettings:
    """The download limits of one report: its `--timeout` covers the download too (the work gets
    what is left, see `Job.timeout`), and the download's process has the workers' memory limit."""
    fs = settings.fetch_settings
    return dataclasses.replace(fs, total_timeout=min(fs.total_timeout, settings.timeout), memory_mb=settings.memory_limit_mb)
