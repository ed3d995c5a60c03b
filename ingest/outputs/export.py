"""Export: stored tables as CSV or Markdown, by pure functions the CLI and the dashboard share.

Large per-report tables go out as CSV straight from Arrow (no pandas round trip), so
`export --table counts` on 10,000 reports takes seconds; see `write_table`.
"""

from __future__ import annotations

import csv
import io
import os
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from ingest.common.atomic import describe_os_error
from ingest.outputs.neutral import arrow_neutral, to_csv
from ingest.store.manifest import StoreDamaged, StoreError
from ingest.store.store import Store

if TYPE_CHECKING:  # pandas and the study tables are imported on use: a CSV export of counts needs neither
    # (bench/import_costs.py prints what each import costs)
    import pandas as pd

Format = str  # "csv" | "md"


def _stored(name: str) -> Callable[[Store], pd.DataFrame]:
    def get(store: Store) -> pd.DataFrame:
        return store.read_table(name)

    get.__doc__ = f"The stored `{name}` table."
    return get


#: Export column order of `counts` (the stored table keeps group and rule earlier).
COUNTS_EXPORT_COLUMNS = ["report_id", "section", "term", "count", "words", "density", "group", "rule"]


def counts_table(store: Store) -> pd.DataFrame:
    """Tidy counts: one row per report × section × term (sections body/appendix/references/all)."""
    df = store.read_table("counts")
    if df.empty:
        return df
    return df[COUNTS_EXPORT_COLUMNS]


#: Every exportable table: name -> builder. The CLI's `--table` choices derive from this.
TABLES: dict[str, Callable[[Store], pd.DataFrame]] = {
    "counts": counts_table,
    "reports": _stored("reports"),
    "sections": _stored("sections"),
    "kwic": _stored("kwic"),
    "reported": _stored("reported"),
    "status": _stored("status"),
    "evidence": _stored("evidence"),
    "results": _stored("results"),
    "results-wide": lambda store: _wide().wide_table(store),
    "result_notes": _stored("result_notes"),
    "result_attributes": _stored("result_attributes"),
    "leaderboard": lambda store: _leaderboard(store),
    "unknown_benchmarks": lambda store: _unknown(store),
    "comparison": lambda store: _study_tables().comparison_table(store),
    "summary": lambda store: _study_tables().summary_table(store),
    "summary-quotes": lambda store: _study_tables().summary_table(store, quotes=True),
    "stats": lambda store: _stats().stats_table(store),
    "stats-measured": lambda store: _stats().stats_table(store, source="measured"),
    "tiers": lambda store: _study_tables().tiers_table(store),
    "agreement": lambda store: _review().agreement_table(store),
}
__all__ = ["TABLES", "render", "report_card", "to_csv", "to_markdown", "write_table"]


def _leaderboard(store: Store) -> pd.DataFrame:
    """The cross-report leaderboard with disagreements (see ingest.outputs.leaderboard)."""
    from ingest.analysis.benchmarks import load_catalogue
    from ingest.outputs.leaderboard import leaderboard

    return leaderboard(store.read_table("results"), load_catalogue())


def _unknown(store: Store) -> pd.DataFrame:
    """Benchmark names read but not in the catalogue (see ingest.outputs.leaderboard)."""
    from ingest.outputs.leaderboard import unknown_benchmarks

    return unknown_benchmarks(store.read_table("results"))


def _review():  # type: ignore[no-untyped-def]
    from ingest.outputs import review

    return review


# The study-format tables and Markdown need pandas: imported on use, so a CSV export of counts
# (straight from Arrow) pays for neither (bench/import_costs.py prints the cost).
def _study_tables():  # type: ignore[no-untyped-def]
    from ingest.outputs import study_tables

    return study_tables


def _wide():  # type: ignore[no-untyped-def]
    from ingest.outputs import results_wide

    return results_wide


def _stats():  # type: ignore[no-untyped-def]
    from ingest.outputs import stats

    return stats


def report_card(store: Store, report_id: str) -> str:
    """One report as Markdown (see ingest.outputs.report_card)."""
    from ingest.outputs.report_card import report_card as card

    return card(store, report_id)


def to_markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (see ingest.outputs.mdtable)."""
    from ingest.outputs.mdtable import to_markdown as md

    return md(df)


def render(df: pd.DataFrame, fmt: Format) -> str:
    """The table as text in the requested format (formula cells and raw HTML neutralised, see `neutral`)."""
    if fmt == "csv":
        return to_csv(df)
    if fmt == "md":
        return to_markdown(df)
    raise ValueError(f"unknown format {fmt!r}; use csv or md")


# ---------------------------------------------------------------------------------------- CLI output
#: Stored tables exported as CSV straight from Arrow (the large per-report ones), with their columns.
ARROW_CSV: dict[str, list[str] | None] = {"counts": COUNTS_EXPORT_COLUMNS, "kwic": None, "sections": None, "evidence": None}
#: Above this many rows a table is written part by part, without a global sort: rows stay grouped
#: by report, but reports come bucket by bucket instead of in registry order (bounded memory, and
#: the sort of millions of rows would cost more than the rest of the export).
STREAM_ROWS = 500_000
#: Rows the CSV writer formats at a time (Arrow's default of 1,024 costs a third more CPU).
CSV_BATCH_ROWS = 65_536


def check_store(store: Store) -> None:
    """Raise StoreDamaged (one line) when a stored part fails its checksum."""
    bad = store.check()
    if bad:
        names = sorted({b.split("/")[0] for b in bad})
        raise StoreDamaged(f"stored tables are damaged ({', '.join(names)}); run python -m ingest to rebuild them")


def _arrow_csv(store: Store, name: str, columns: list[str] | None, fh: BinaryIO) -> None:
    """Write a stored table as CSV from Arrow: whole and in report order, or part by part when large.

    Part by part, string columns stay dictionary-encoded as stored (each distinct value is decoded
    once, the writer formats the rest), and the next part is read while this one is written.
    """
    import pyarrow.csv as pacsv

    m = store.manifest()
    entry = m.tables[name] if m and name in m.tables else None
    if entry is None:
        fh.write(_csv_line(columns or []))
        return
    cols = columns or entry.columns
    # Arrow always quotes header names; write the header as pandas/csv would, values with Arrow.
    fh.write(_csv_line(cols))
    opts = pacsv.WriteOptions(quoting_style="needed", include_header=False, batch_size=CSV_BATCH_ROWS)
    total = sum(p.rows for p in entry.parts.values())
    if total <= STREAM_ROWS:
        tb = arrow_neutral(store.read_arrow(name, columns=cols))
        pacsv.write_csv(tb, fh, write_options=opts)
        return
    import pyarrow as pa

    buckets = sorted(entry.parts)
    schema = pa.unify_schemas([store.part_schema(name, b, cols) for b in buckets], promote_options="permissive")
    strings = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    schema = pa.schema([pa.field(f.name, pa.dictionary(pa.int32(), f.type)) if f.name in strings else f for f in schema])

    def read(b: int) -> pa.Table:
        return arrow_neutral(store.read_arrow_part(name, b, columns=cols, dictionary=strings, threads=False).cast(schema))

    with ThreadPoolExecutor(1) as pool, pacsv.CSVWriter(fh, schema, write_options=opts) as writer:
        ahead = pool.submit(read, buckets[0])
        for i in range(len(buckets)):
            tb = ahead.result()
            if i + 1 < len(buckets):
                ahead = pool.submit(read, buckets[i + 1])
            writer.write_table(tb)


def _csv_line(values: list[str]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue().encode("utf-8")


def write_table(store: Store, name: str, fmt: Format, out: Path | None) -> None:
    """`export --table`: the table in `fmt` to `out` (atomically) or stdout."""
    if fmt == "csv" and name in ARROW_CSV:
        _write_out(lambda fh: _arrow_csv(store, name, ARROW_CSV[name], fh), out)
        return
    text = render(TABLES[name](store), fmt)
    write_text(text, out)


def write_text(text: str, out: Path | None) -> None:
    data = text.encode("utf-8")
    _write_out(lambda fh: fh.write(data), out)


def _created_mode() -> int:
    """The mode a file the user creates gets (0666 less the umask), as `>` in a shell would give it."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _write_out(produce: Callable[[BinaryIO], object], out: Path | None) -> None:
    """Stream to stdout, or to a temp file beside `out` renamed over it at the end (never half a file).

    Any OSError (a folder, read-only place, disk full) becomes a one-line StoreError; an
    earlier file at `out` is left as it was.
    """
    if out is None:
        produce(sys.stdout.buffer if hasattr(sys.stdout, "buffer") else _TextSink(sys.stdout))
        sys.stdout.flush()
        return
    out = Path(out)
    tmp = None
    try:
        if out.is_dir():
            raise IsADirectoryError(21, "Is a directory", str(out))
        fd, tmp = tempfile.mkstemp(dir=out.parent if str(out.parent) else ".", prefix=f".{out.name}.", suffix=".tmp")
        os.fchmod(fd, _created_mode())  # mkstemp's 0600 would make the user's export private
        with os.fdopen(fd, "wb") as fh:
            produce(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, out)
        tmp = None
    except OSError as exc:
        raise StoreError(f"cannot write {out}: {describe_os_error(exc)}") from exc
    finally:
        if tmp is not None:
            with suppress(OSError):
                os.unlink(tmp)


class _TextSink(io.RawIOBase):
    """Bytes to a text stream (pytest's captured stdout has no .buffer)."""

    def __init__(self, stream: object):
        self.stream = stream

    def writable(self) -> bool:
        return True

    def write(self, b: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        self.stream.write(bytes(b).decode("utf-8"))  # type: ignore[attr-defined]
        return len(b)
