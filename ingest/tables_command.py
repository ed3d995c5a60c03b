"""`python -m ingest tables`: every page read in a child process under the limits of ingest's workers.

Why: a page is hostile input like a report. Before structure detection became near-linear, a
14 KB one-page PDF of a dense grid took 26 s and a page of 19,000 words over 150 s, all in the
command's own process, with the command's time limit checked only between pages. So each page runs
like a report in `python -m ingest`: in a fresh process with the per-report time and memory limits
(`ingest.run.jobs.DEFAULT_TIMEOUT`, `DEFAULT_MEMORY_MB`), a page over either is a note ("page 3:
not read (…)") and the other pages are read. Opening the file and counting its pages runs in such a
process too. The command stops starting pages after `TIME_LIMIT` seconds and says which were not read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ingest.common.gcpace import rare_collections
from ingest.reading.structure import Table
from ingest.reading.structure_regions import TIME_LIMIT, TablesError, open_pdf, read_pdf_tables, wanted_pages
from ingest.run.executor import Done, Job, Limits, default_jobs, run_isolated, run_jobs


@dataclass(frozen=True)
class TablesRead:
    """The tables of the pages read, notes (pages not read and why), and the largest peak memory (MB)
    of the processes that read them."""

    tables: list[Table]
    notes: list[str]
    peak_mb: float


def read_tables(
    path: Path,
    pages: set[int] | None = None,
    limits: Limits | None = None,
    workers: int | None = None,
    time_limit: float = TIME_LIMIT,
    clock: Callable[[], float] = time.monotonic,
) -> TablesRead:
    """The tables of a PDF's pages (all for None), each page read in its own limited process
    (`limits`: ingest's per-report defaults). Raises TablesError when the file cannot be opened."""
    limits = limits or Limits()
    plan = run_isolated(_plan_job, (str(path), pages), limits)
    if not isinstance(plan, Done):
        raise TablesError(f"cannot read {path}: {plan.message}")
    kind, value = plan.value
    if kind == "error":
        raise TablesError(value)
    wanted, notes = value
    start = clock()
    stopped: list[str] = []

    def jobs() -> Iterator[Job]:
        for num in wanted:
            if clock() - start > time_limit:
                stopped.append(f"time limit of {time_limit:g} s reached: pages {num}-{wanted[-1]} not read")
                return
            yield Job(num, page_job, (str(path), num))

    read: dict[int, tuple[list[Table], list[str]]] = {}
    peak = plan.peak_mb or 0.0
    for num, result in run_jobs(jobs(), limits, workers or default_jobs()):
        peak = max(peak, result.peak_mb or 0.0)
        read[num] = result.value if isinstance(result, Done) else ([], [f"page {num}: not read ({result.message})"])
    tables = [t for num in sorted(read) for t in read[num][0]]
    return TablesRead(tables, notes + [n for num in sorted(read) for n in read[num][1]] + stopped, peak)


def _plan_job(arg: tuple[str, set[int] | None], _progress: object = None) -> tuple[str, object]:
    """In a child: ("ok", (pages to read, notes)) or ("error", message) for a file that cannot be opened."""
    path, pages = arg
    try:
        pdf = open_pdf(Path(path))
        try:
            return "ok", wanted_pages(pdf, Path(path), pages)
        finally:
            pdf.close()
    except TablesError as exc:
        return "error", str(exc)


def page_job(arg: tuple[str, int], _progress: object = None) -> tuple[list[Table], list[str]]:
    """One page's tables and notes, as its child process reads them.

    Structure detection allocates tens of thousands of small objects without cycles: the collector
    runs rarely meanwhile (`rare_collections`), so the time grows with the words."""
    path, num = arg
    with rare_collections():
        return read_pdf_tables(Path(path), {num})


def shown_tables(tables: list[Table], all_tables: bool = False) -> tuple[list[Table], str]:
    """The tables a user asked for, and a note on those left out.

    A paper's tables are the ones its "Table N" captions name: text set in columns without one is a
    reference list, an author list, figure text or an equation array far more often than a table.
    So when any table of the file has a caption, only captioned ones are shown (`all_tables`: all);
    a file with no caption at all (a bare table, a scanned form) shows everything found."""
    if all_tables or not any(t.label for t in tables):
        return tables, ""
    kept = [t for t in tables if t.label]
    left = len(tables) - len(kept)
    note = (
        f"{left} block(s) of text set in columns without a 'Table N' caption not shown "
        "(reference lists, author lists, figure text); --all shows them"
    )
    return kept, note if left else ""
