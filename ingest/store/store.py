"""Stage 8 — store: results under `data/`, written atomically; tables as one checked generation.

Layout (all paths relative to the data folder, default `data/`):

    cache/text/<sha256>.<engine>.v<N>.json.gz   extracted text, keyed by the source's SHA-256
    results/reports/<id>.json.gz                last good result bundle of one report
    results/status/<id>.json                    outcome of the latest run of one report
    results/tables/<table>/<bucket>-<hash>.parquet   table parts (content-addressed names)
    results/manifest.json                       the current generation: every part with its checksum

Why a manifest: a table set made of many files can only be replaced as a whole if readers go
through one small file that names every part. Parts are written first under new names (their
content hash), the manifest is replaced last with one `os.replace`, so a run killed half-way
leaves the previous generation intact and readers never see a mix. Parts no longer named are
deleted one generation later (a reader that loaded the previous manifest can still finish).

Why buckets: rows of per-report tables (counts, kwic, evidence, sections, comparison, …) are split into
`bucket_of(report_id)` parts, so ingesting one report rewrites one part per table (about
1/64 of it) instead of the whole table, while a full read opens 64 files, not one per report.
Summary tables (reports, status, reported: one row or a few per report) are one part each.

Self-check: each part's SHA-256, size and mtime are in the manifest. `check()` stats every part
and hashes those whose size or mtime changed (like git's index), so a truncated or overwritten
part is found without re-hashing the whole store on every run; `check(full=True)` hashes all.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import json
import os
import tempfile
import time
import uuid
from collections.abc import Container, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingest.store.records import Bundle

if TYPE_CHECKING:  # pandas/pyarrow are imported lazily: a warm re-run never needs them
    import pandas as pd
    import pyarrow as pa
    from filelock import FileLock

    # Imported on use too: `export --table counts` needs neither the extractors nor pydantic.
    from ingest.reading.extract import Document
    from ingest.sources.schema import ReportSpec

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "data"

#: The tables every pipeline run writes (ingest/store/tables.py declares how each is built; readers
#: take the list from the manifest, so a table declared there needs no change here).
TABLES = ("reports", "status", "sections", "counts", "kwic", "reported", "comparison", "evidence", "results", "result_notes")
MANIFEST_FORMAT = 2
#: File in results/ saying the tables do not yet take in every bundle (see `Store.mark_tables_behind`).
TABLES_BEHIND = ".tables_behind"
#: Parts per per-report table: small enough that one report's update rewrites ~1/64 of a table,
#: few enough that a full read opens few files.
DEFAULT_BUCKETS = 64


class StoreError(Exception):
    """A problem with the stored tables, worded as one line for a user (no traceback)."""


class StoreDamaged(StoreError):
    """A stored table part is missing, truncated or altered; `python -m ingest` rebuilds it."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder and `os.replace`, so readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def _json_default(o: object) -> object:
    if hasattr(o, "isoformat"):
        return o.isoformat()  # type: ignore[union-attr]
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def dumps(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False, default=_json_default).encode("utf-8")


def bucket_of(report_id: str, buckets: int) -> int:
    """The part a report's rows live in (stable across runs and machines)."""
    if buckets <= 1:
        return 0
    return int.from_bytes(hashlib.blake2b(report_id.encode(), digest_size=4).digest(), "big") % buckets


def describe_os_error(exc: OSError) -> str:
    """An OSError as a short phrase without the file path (callers name the place themselves)."""
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission denied (read-only?)"
    if exc.errno == errno.EISDIR:
        return "is a directory"
    if exc.errno == errno.ENOENT:
        return "no such folder"
    return exc.strerror or type(exc).__name__


# --------------------------------------------------------------------------------------- manifest
@dataclass(frozen=True)
class Part:
    """One parquet file of a table: where it is and how to recognise it intact."""

    file: str  # relative to results/tables/
    sha256: str
    size: int
    rows: int
    mtime_ns: int = 0


@dataclass
class TableEntry:
    """A table of one generation: its columns, pandas dtypes to restore, and its parts by bucket."""

    columns: list[str]
    dtypes: dict[str, str] = field(default_factory=dict)
    buckets: int = 1
    parts: dict[int, Part] = field(default_factory=dict)
    #: Column each part is sorted by ("" for none); a change re-sorts parts without re-reading bundles.
    cluster: str = ""


@dataclass
class Manifest:
    """One consistent generation of every table."""

    generation: int = 0
    #: Report ids in display order (the registry's); reads return rows in this order. Stored as
    #: the key order of `inputs`.
    order: list[str] = field(default_factory=list)
    #: report id -> hash of the inputs its rows were built from (which reports must be rebuilt).
    inputs: dict[str, str] = field(default_factory=dict)
    tables: dict[str, TableEntry] = field(default_factory=dict)
    #: Files of the previous generation no longer named here, deleted at the next swap.
    retired: list[str] = field(default_factory=list)
    written_at: str = ""

    def to_json(self) -> bytes:
        """A header line with the format and the SHA-256 of the body, then the body as JSON."""
        tables = {
            name: {
                "columns": t.columns,
                "dtypes": t.dtypes,
                "buckets": t.buckets,
                "cluster": t.cluster,
                "parts": {str(b): [p.file, p.sha256, p.size, p.rows, p.mtime_ns] for b, p in sorted(t.parts.items())},
            }
            for name, t in self.tables.items()
        }
        body = json.dumps(
            {
                "generation": self.generation,
                "written_at": self.written_at,
                "inputs": self.inputs,
                "tables": tables,
                "retired": self.retired,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode()
        return f"frl-manifest {MANIFEST_FORMAT} {hashlib.sha256(body).hexdigest()}\n".encode() + body

    @classmethod
    def from_json(cls, raw: bytes) -> Manifest:
        head, _, body = raw.partition(b"\n")
        parts = head.decode("ascii", "replace").split()
        if len(parts) != 3 or parts[0] != "frl-manifest" or parts[1] != str(MANIFEST_FORMAT):
            raise ValueError("not a manifest of this format")
        if hashlib.sha256(body).hexdigest() != parts[2]:
            raise ValueError("manifest checksum mismatch")
        d = json.loads(body)
        tables = {
            name: TableEntry(
                columns=list(t["columns"]),
                dtypes=dict(t.get("dtypes") or {}),
                buckets=int(t.get("buckets", 1)),
                parts={int(b): Part(*p) for b, p in t["parts"].items()},
                cluster=str(t.get("cluster") or ""),
            )
            for name, t in d["tables"].items()
        }
        inputs = dict(d["inputs"])
        return cls(
            generation=int(d["generation"]),
            order=list(inputs),
            inputs=inputs,
            tables=tables,
            retired=list(d.get("retired") or []),
            written_at=str(d.get("written_at", "")),
        )

    def files(self) -> set[str]:
        return {p.file for t in self.tables.values() for p in t.parts.values()}


class Store:
    """The data folder: text cache, per-report bundles and the combined tables."""

    def __init__(self, root: str | Path = DEFAULT_DATA_DIR):
        self.root = Path(root)
        self.text_dir = self.root / "cache" / "text"
        self.http_dir = self.root / "cache" / "http"
        self.results_dir = self.root / "results"
        self.bundle_dir = self.results_dir / "reports"
        self.status_dir = self.results_dir / "status"
        self.tables_dir = self.results_dir / "tables"
        self.manifest_path = self.results_dir / "manifest.json"
        self._manifest: tuple[tuple[int, int], Manifest] | None = None
        self._behind_marked = False

    # ---------------------------------------------------------------- text cache
    def _text_path(self, sha256: str, engine: str) -> Path:
        from ingest.reading.extract import EXTRACTOR_VERSION

        return self.text_dir / f"{sha256}.{engine}.v{EXTRACTOR_VERSION}.json.gz"

    def get_text(self, sha256: str, engine: str) -> Document | None:
        """Cached extraction of the source with this hash, or None (a corrupt entry counts as a miss)."""
        from ingest.reading.extract import Document

        p = self._text_path(sha256, engine)
        try:
            return Document.from_dict(json.loads(gzip.decompress(p.read_bytes())))
        except (OSError, ValueError, KeyError, EOFError, TypeError):
            return None

    def put_text(self, sha256: str, engine: str, doc: Document) -> None:
        atomic_write_bytes(self._text_path(sha256, engine), gzip.compress(dumps(doc.to_dict()), compresslevel=1))

    # ---------------------------------------------------------------- bundles
    def _bundle_path(self, report_id: str) -> Path:
        return self.bundle_dir / f"{report_id}.json.gz"

    def load_bundle(self, report_id: str) -> Bundle | None:
        """The report's last good bundle, or None when there is none or it cannot be read
        (corrupt, or of a shape this code does not know): the report is then recomputed."""
        try:
            return Bundle.from_json(json.loads(gzip.decompress(self._bundle_path(report_id).read_bytes())))
        except (OSError, ValueError, EOFError, RecursionError):  # BundleError is a ValueError
            return None

    def save_bundle(self, report_id: str, bundle: Bundle) -> None:
        self.mark_tables_behind()
        atomic_write_bytes(self._bundle_path(report_id), gzip.compress(dumps(bundle.to_json()), compresslevel=3))

    def bundle_ids(self, besides: Container[str] = ()) -> list[str]:
        """Ids of the stored bundles, sorted; `besides`: ids to leave out (sorting 10,000 names
        to keep a few costs more than listing them)."""
        try:
            names = os.listdir(self.bundle_dir)  # (Path.glob makes a Path per file: slow at 10,000)
        except OSError:
            return []
        cut = len(".json.gz")
        return sorted(rid for n in names if n.endswith(".json.gz") and (rid := n[:-cut]) not in besides)

    def bundle_stamps(self) -> dict[str, str]:
        """Cheap change marker per report: size and mtime of its bundle and status files (one
        directory scan each, no file read), so 10,000 reports cost milliseconds, not a read each."""
        found: list[dict[str, str]] = []
        for folder, suffix in ((self.bundle_dir, ".json.gz"), (self.status_dir, ".json")):
            marks: dict[str, str] = {}
            found.append(marks)
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            cut = len(suffix)
            for e in entries:
                name = e.name
                if not name.endswith(suffix) or name.startswith("."):
                    continue
                try:
                    s = e.stat()
                except OSError:
                    continue
                marks[name[:-cut]] = f"{s.st_size}:{s.st_mtime_ns}"
        bundles, statuses = found
        return {rid: f"{bundles.get(rid, '-')}|{statuses.get(rid, '-')}" for rid in bundles.keys() | statuses.keys()}

    def stamps_of(self, report_ids: Iterable[str]) -> dict[str, str]:
        """`bundle_stamps()` of these reports only (absent ones are left out, as there)."""
        out: dict[str, str] = {}
        for rid in report_ids:
            marks = []
            for path in (self._bundle_path(rid), self.status_dir / f"{rid}.json"):
                try:
                    s = path.stat()
                    marks.append(f"{s.st_size}:{s.st_mtime_ns}")
                except OSError:
                    marks.append("-")
            if marks != ["-", "-"]:
                out[rid] = "|".join(marks)
        return out

    # ---------------------------------------------------------------- status
    def save_status(self, report_id: str, status: dict) -> None:
        self.mark_tables_behind()
        atomic_write_bytes(self.status_dir / f"{report_id}.json", dumps(status))

    def load_status(self, report_id: str) -> dict | None:
        try:
            return json.loads((self.status_dir / f"{report_id}.json").read_bytes())
        except (OSError, ValueError):
            return None

    # ---------------------------------------------------------------- writability
    def lock(self) -> FileLock:
        from filelock import FileLock

        self.results_dir.mkdir(parents=True, exist_ok=True)
        return FileLock(str(self.results_dir / ".lock"), timeout=120)

    def ensure_writable(self) -> None:
        """Raise StoreError (one line) when the results folder cannot be written."""
        try:
            self.results_dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.results_dir, prefix=".probe.", suffix=".tmp")
            os.close(fd)
            os.unlink(tmp)
        except OSError as exc:
            raise StoreError(f"cannot write to the data folder {self.root}: {describe_os_error(exc)}") from exc

    # ---------------------------------------------------------------- manifest
    def manifest(self) -> Manifest | None:
        """The current generation, or None when no tables were ever written.

        Raises StoreDamaged when the manifest itself is unreadable. Cached on its size and mtime.
        """
        try:
            st_ = self.manifest_path.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreDamaged(f"cannot read the table manifest: {describe_os_error(exc)}") from exc
        key = (st_.st_size, st_.st_mtime_ns)
        if self._manifest is not None and self._manifest[0] == key:
            return self._manifest[1]
        try:
            m = Manifest.from_json(self.manifest_path.read_bytes())
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreDamaged("the table manifest is damaged") from exc
        self._manifest = (key, m)
        return m

    def manifest_or_none(self) -> Manifest | None:
        """The manifest, treating a damaged one as absent (the writer then rebuilds everything)."""
        try:
            return self.manifest()
        except StoreDamaged:
            return None

    def has_results(self) -> bool:
        """True when a generation of tables exists (damaged or not)."""
        return self.manifest_path.exists()

    def generation_key(self) -> tuple[int, int]:
        """Cache key of the current generation for readers (size and mtime of the manifest)."""
        try:
            s = self.manifest_path.stat()
            return (s.st_size, s.st_mtime_ns)
        except OSError:
            return (0, 0)

    def check(self, full: bool = False) -> list[str]:
        """Damaged parts as "table/bucket" (empty when all is well; ["manifest"] when it is unreadable).

        A part whose size and mtime match the manifest is trusted; others (or all, with `full`)
        are hashed and compared with the recorded SHA-256.
        """
        try:
            m = self.manifest()
        except StoreDamaged:
            return ["manifest"]
        if m is None:
            return []
        bad = []
        for name, t in m.tables.items():
            for b, part in t.parts.items():
                if not self._part_ok(part, full):
                    bad.append(f"{name}/{b}")
        return bad

    def _part_ok(self, part: Part, full: bool = False) -> bool:
        p = self.tables_dir / part.file
        try:
            s = p.stat()
        except OSError:
            return False
        if s.st_size != part.size:
            return False
        if not full and s.st_mtime_ns == part.mtime_ns:
            return True
        try:
            return hashlib.sha256(p.read_bytes()).hexdigest() == part.sha256
        except OSError:
            return False

    def tables_key(self) -> str | None:
        """Key of the inputs the stored tables were built from (None if unknown, damaged or behind).

        Returning None for a damaged store, or one whose bundles were written after its tables
        (a run whose table write failed, e.g. on a full disk), makes the next plain
        `python -m ingest` rebuild.
        """
        if self.behind_token() is not None:
            return None
        try:
            key = (self.results_dir / ".tables_key").read_text().strip()
        except OSError:
            return None
        if not self.has_results() or self.check():
            return None
        return key

    def set_tables_key(self, key: str) -> None:
        atomic_write_bytes(self.results_dir / ".tables_key", key.encode())

    # ---------------------------------------------------------------- tables behind bundles
    def _behind_path(self) -> Path:
        return self.results_dir / TABLES_BEHIND

    def mark_tables_behind(self) -> None:
        """Record, before the first bundle or status of this Store object is written, that the
        tables no longer cover every bundle; only a finished rebuild clears it (`clear_tables_behind`).

        Written first, so a failure anywhere later (a full disk while the tables are written)
        still leaves the record behind, and the next plain run rebuilds instead of calling the
        stale tables current.
        """
        if self._behind_marked:
            return
        atomic_write_bytes(self._behind_path(), uuid.uuid4().hex.encode())
        self._behind_marked = True

    def behind_token(self) -> str | None:
        """The current "tables behind" record (None when the tables cover every bundle)."""
        try:
            return self._behind_path().read_text(encoding="utf-8").strip() or "?"
        except FileNotFoundError:
            return None
        except OSError:
            return "?"

    def clear_tables_behind(self, token: str | None) -> None:
        """After a rebuild that started when the record was `token`: remove it, unless a run marked
        it anew meanwhile (its bundles may not be in the tables just written)."""
        self._behind_marked = False
        if token is None or self.behind_token() != token:
            return
        with suppress(FileNotFoundError):
            self._behind_path().unlink()

    # ---------------------------------------------------------------- writing a generation
    def write_part(self, table: str, bucket: int, data: pa.Table, row_group_rows: int | None = None) -> Part:
        """Write one part under its content hash (an identical part already present is reused).

        `row_group_rows` makes small row groups, whose min/max statistics let a filtered read
        skip most of a part (when the rows are sorted by the filtered column).
        """
        import pyarrow.parquet as pq

        buf = io.BytesIO()
        pq.write_table(data, buf, compression="zstd", row_group_size=row_group_rows)
        raw = buf.getvalue()
        digest = hashlib.sha256(raw).hexdigest()
        rel = f"{table}/{bucket:03d}-{digest[:20]}.parquet"
        path = self.tables_dir / rel
        try:
            s = path.stat()
            reuse = s.st_size == len(raw) and hashlib.sha256(path.read_bytes()).hexdigest() == digest
        except OSError:
            reuse = False
        if not reuse:
            atomic_write_bytes(path, raw)
            s = path.stat()
        return Part(rel, digest, len(raw), data.num_rows, s.st_mtime_ns)

    def commit(self, manifest: Manifest) -> None:
        """Make `manifest` the current generation (one atomic replace), then collect old parts."""
        old = self.manifest_or_none()
        manifest.generation = (old.generation + 1) if old else max(manifest.generation, 1)
        manifest.written_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        manifest.inputs = {rid: manifest.inputs.get(rid, "") for rid in manifest.order}
        keep = manifest.files()
        manifest.retired = sorted((old.files() - keep) if old else set())
        atomic_write_bytes(self.manifest_path, manifest.to_json())
        self._manifest = None
        self._collect(keep | set(manifest.retired))

    def _collect(self, keep: set[str]) -> None:
        """Delete part files named by neither the current generation nor the one before."""
        self._collect_in(str(self.tables_dir), "", keep)

    def _collect_in(self, folder: str, rel: str, keep: set[str]) -> None:
        """`_collect` in `folder` (`rel`: its path below tables/, "" or ending in "/") and below it."""
        try:
            entries = list(os.scandir(folder))  # (Path.rglob: a Path per part, slow with thousands)
        except OSError:
            return
        for e in entries:
            name = rel + e.name
            with suppress(OSError):
                if e.is_dir(follow_symlinks=False):
                    self._collect_in(e.path, name + "/", keep)
                elif e.is_file() and name not in keep:
                    os.unlink(e.path)

    def write_tables(self, frames: dict[str, pd.DataFrame], buckets: dict[str, int] | None = None) -> None:
        """Publish whole tables as a new generation (tables not named keep their current parts).

        For fixtures and full rebuilds; the pipeline's incremental path is ingest/store/tables.py.
        """
        m = self.manifest_or_none() or Manifest()
        order = list(m.order)
        seen = set(order)
        for df in frames.values():
            if "report_id" in df.columns:
                for rid in df["report_id"].dropna().astype(str).unique().tolist():
                    if rid not in seen:
                        seen.add(rid)
                        order.append(rid)
        m.order = order
        for name, df in frames.items():
            nb = (buckets or {}).get(name, m.tables[name].buckets if name in m.tables else 1)
            m.tables[name] = self.table_entry(name, df, nb)
        self.commit(m)

    def table_entry(self, name: str, df: pd.DataFrame, buckets: int) -> TableEntry:
        """Write a whole frame as the parts of one table; returns its manifest entry (not committed)."""
        entry = TableEntry(columns=[str(c) for c in df.columns], dtypes=pandas_dtypes(df), buckets=buckets)
        if df.empty:
            return entry
        if buckets <= 1 or "report_id" not in df.columns:
            entry.buckets = 1
            entry.parts[0] = self.write_part(name, 0, to_arrow(df))
            return entry
        keys = df["report_id"].astype(str).map(lambda r: bucket_of(r, buckets))
        for b, sub in df.groupby(keys, sort=True):
            entry.parts[int(b)] = self.write_part(name, int(b), to_arrow(sub))
        return entry

    def write_table(self, name: str, df: pd.DataFrame) -> None:
        """Replace one whole table (kept for fixtures and scripts); a new generation."""
        self.write_tables({name: df})

    # ---------------------------------------------------------------- reading
    def table_names(self) -> list[str]:
        m = self.manifest()
        return list(m.tables) if m else []

    def _parts(self, m: Manifest, name: str, report_ids: Sequence[str] | None) -> list[Part]:
        t = m.tables[name]
        if report_ids is None or t.buckets <= 1:
            return [t.parts[b] for b in sorted(t.parts)]
        wanted = {bucket_of(r, t.buckets) for r in report_ids}
        return [t.parts[b] for b in sorted(t.parts) if b in wanted]

    def read_arrow(
        self,
        name: str,
        report_ids: Sequence[str] | None = None,
        columns: Sequence[str] | None = None,
        filters: Any = None,
    ) -> pa.Table | None:
        """Rows of a stored table as Arrow, filters pushed down to the parquet reader.

        `report_ids` opens only the parts holding those reports; `filters` is a pyarrow
        expression or a list of (column, op, value) tuples as `pyarrow.parquet` takes.
        Rows come in report order (the registry's). None when the table was never written.
        Raises StoreDamaged (one line) when a part cannot be read.
        """
        import pyarrow as pa

        m = self.manifest()
        if m is None or name not in m.tables:
            return None
        t = m.tables[name]
        cols = list(columns) if columns is not None else None
        want_cols = None if cols is None else list(dict.fromkeys([*cols, "report_id"])) if "report_id" in t.columns else cols
        expr = _expression(filters)
        if report_ids is not None and "report_id" in t.columns:
            import pyarrow.dataset as ds

            ids_expr = ds.field("report_id").isin(pa.array(list(report_ids), pa.string()))
            expr = ids_expr if expr is None else expr & ids_expr
        pieces = [self._read_part(name, part, want_cols, expr) for part in self._parts(m, name, report_ids)]
        if not pieces:
            return _empty_arrow(t.columns if want_cols is None else want_cols)
        out = _in_order(pa.concat_tables(pieces, promote_options="permissive"), m.order)
        if cols is not None:
            out = out.select([c for c in cols if c in out.column_names])
        return out

    def read_table(
        self,
        name: str,
        report_ids: Sequence[str] | None = None,
        columns: Sequence[str] | None = None,
        filters: Any = None,
    ) -> pd.DataFrame:
        """A stored table as pandas (see `read_arrow`); an empty frame if it was never written."""
        import pandas as pd

        tb = self.read_arrow(name, report_ids=report_ids, columns=columns, filters=filters)
        if tb is None:
            return pd.DataFrame(columns=list(columns) if columns else None)
        m = self.manifest()
        entry = m.tables[name] if m else TableEntry(columns=[])
        return restore_dtypes(tb.to_pandas(), entry.dtypes)

    def read_arrow_part(
        self,
        name: str,
        bucket: int,
        columns: Sequence[str] | None = None,
        dictionary: Sequence[str] = (),
        threads: bool = True,
    ) -> pa.Table:
        """One part of a table, rows in report order (for streaming a large table).

        `dictionary` names string columns to keep dictionary-encoded as stored (a CSV export
        decodes each distinct value once, at write time); `threads=False` decodes on this thread
        only (less CPU in all, for a caller that already overlaps reading with other work).
        """
        m = self.manifest()
        if m is None or name not in m.tables or bucket not in m.tables[name].parts:
            raise StoreError(f"table {name} has no part {bucket}")
        tb = self._read_part(name, m.tables[name].parts[bucket], columns, None, dictionary, threads)
        return _in_order(tb, m.order)

    def part_schema(self, name: str, bucket: int, columns: Sequence[str] | None = None) -> pa.Schema:
        """The Arrow schema of one part (its footer only)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        m = self.manifest()
        part = m.tables[name].parts[bucket] if m else None
        try:
            schema = pq.read_schema(self.tables_dir / part.file) if part else pa.schema([])
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise StoreDamaged(f"stored table {name} is damaged; run python -m ingest") from exc
        schema = schema.remove_metadata()
        return pa.schema([schema.field(c) for c in columns]) if columns else schema

    def _read_part(
        self,
        name: str,
        part: Part,
        columns: Sequence[str] | None,
        expr: Any,
        dictionary: Sequence[str] = (),
        threads: bool = True,
    ) -> pa.Table:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            path = self.tables_dir / part.file
            cols = list(columns) if columns else None
            # Without a filter read the file directly: pyarrow.dataset (behind read_table) imports pandas.
            if expr is None:
                tb = pq.ParquetFile(path, read_dictionary=list(dictionary) or None).read(columns=cols, use_threads=threads)
            else:
                tb = pq.read_table(path, columns=cols, filters=expr)
        except FileNotFoundError as exc:
            raise StoreDamaged(f"stored table {name} is damaged (a part is missing); run python -m ingest") from exc
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise StoreDamaged(f"stored table {name} is damaged; run python -m ingest") from exc
        return tb.replace_schema_metadata(None)


def _expression(filters: Any) -> Any:
    """A pyarrow expression from an expression, a list of tuples (AND) or None."""
    if filters is None or not isinstance(filters, list | tuple):
        return filters
    import pyarrow.parquet as pq

    return pq.filters_to_expression(list(filters)) if filters else None


def _in_order(tb: pa.Table, order: list[str]) -> pa.Table:
    """Rows sorted by the registry position of their report (stable: a report's rows keep their order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not tb.num_rows or "report_id" not in tb.column_names or not order:
        return tb
    ids, value_set = tb["report_id"], string_array(order)
    if pa.types.is_dictionary(ids.type):  # look each distinct id up once, not once per row
        chunks = [pc.index_in(c.dictionary, value_set=value_set).take(c.indices) for c in ids.chunks]
        pos = pa.chunked_array(chunks, pa.int32())
    else:
        pos = pc.index_in(ids, value_set=value_set)
    if pos.null_count == 0 and (len(pos) < 2 or pc.all(pc.greater_equal(pos[1:], pos[:-1])).as_py()):
        return tb  # already in order (the usual case): no copy
    return tb.take(pc.sort_indices(pa.table({"p": pos}), sort_keys=[("p", "ascending")]))


def string_array(values: Sequence[str]) -> pa.Array:
    """A string array built from its buffers: `pa.array(list)` makes pyarrow import pandas (about
    0.5 s of CPU), which an export or a filtered read does not otherwise need."""
    import itertools
    from array import array

    import pyarrow as pa

    data = [v.encode() for v in values]
    ends = [0, *itertools.accumulate(len(b) for b in data)]
    # 32-bit offsets make a string array as it is (a cast would import pyarrow.compute).
    if ends[-1] < 2**31 and array("i").itemsize == 4:
        return pa.StringArray.from_buffers(len(data), pa.py_buffer(array("i", ends)), pa.py_buffer(b"".join(data)))
    offsets = array("q", ends)
    return pa.LargeStringArray.from_buffers(len(data), pa.py_buffer(offsets), pa.py_buffer(b"".join(data))).cast(pa.string())


def rows_to_arrow(rows: list[dict], schema: pa.Schema) -> pa.Table | None:
    """`rows` as a table of exactly `schema` (an existing part's), or None when they do not fit it.

    Goes through Arrow's JSON reader, which is strict: a key outside the schema, a missing or
    extra key in some row, a value of another type (a float in an integer column, text in a
    null one), NaN — any of these gives None and the caller builds the rows as before
    (`Table.from_pylist`, whose result concatenates to the same table when these fit). Why: any
    conversion of Python values by `pa.array` makes pyarrow import pandas, about 0.5 s of CPU in
    a fresh `python -m ingest reports/new.yaml`.
    """
    import pyarrow as pa
    import pyarrow.json as pajson

    if not rows:
        return None
    keys = rows[0].keys()
    if not set(keys) <= set(schema.names) or any(r.keys() != keys for r in rows):
        return None
    try:
        data = "\n".join(json.dumps(r, allow_nan=False) for r in rows).encode()
        return pajson.read_json(
            io.BytesIO(data),
            read_options=pajson.ReadOptions(use_threads=False, block_size=len(data) + 1),
            parse_options=pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error"),
        )
    except (TypeError, ValueError, pa.ArrowException):
        return None


def _empty_arrow(columns: Sequence[str]) -> pa.Table:
    import pyarrow as pa

    return pa.table({c: pa.array([], pa.null()) for c in columns})


def to_arrow(df: pd.DataFrame) -> pa.Table:
    """A frame as Arrow without pandas metadata or index (parts of one table must concatenate)."""
    import pyarrow as pa

    return pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)


#: pandas extension dtypes restored on read (Arrow alone cannot tell Int64 from int64 with nulls).
_KEEP_DTYPES = ("Int64", "Float64", "boolean", "string")


def pandas_dtypes(df: pd.DataFrame) -> dict[str, str]:
    return {str(c): str(t) for c, t in df.dtypes.items() if str(t) in _KEEP_DTYPES}


def restore_dtypes(df: pd.DataFrame, dtypes: dict[str, str]) -> pd.DataFrame:
    for c, t in dtypes.items():
        if c in df.columns and str(df[c].dtype) != t:
            with suppress(TypeError, ValueError):
                df[c] = df[c].astype(t)
    return df


def spec_row(spec: ReportSpec, yaml_path: str | None = None) -> dict:
    """Flat metadata row of one report (the `reports` table)."""
    src = spec.source
    return {
        "report_id": spec.id,
        "model": spec.model,
        "organization": spec.organization,
        "country": spec.country,
        "released": spec.released.isoformat() if spec.released else None,
        "doc_type": spec.doc_type,
        "arxiv_id": spec.arxiv_id,
        "params": spec.params,
        "tags": "; ".join(spec.tags),
        "notes": spec.notes,
        "source_url": src.url if src else None,
        "source_path": src.path if src else None,
        "yaml_path": yaml_path,
    }


def reported_rows(spec: ReportSpec) -> list[dict]:
    """The `reported` table: published figures, one row per term, never mixed with measured ones."""
    rep = spec.reported
    if rep is None:
        return []
    rows = [
        {
            "report_id": spec.id,
            "term": term,
            "count": n,
            "words": rep.words,
            "density": round(n * 1000.0 / rep.words, 4) if rep.words else None,
            "scope": rep.scope,
            "note": rep.notes.get(term),
            "from": rep.from_,
        }
        for term, n in rep.counts.items()
    ]
    if not rows and rep.words is not None:
        rows.append(
            {
                "report_id": spec.id,
                "term": None,
                "count": None,
                "words": rep.words,
                "density": None,
                "scope": rep.scope,
                "note": None,
                "from": rep.from_,
            }
        )
    return rows


def frame(rows: Iterable[dict], columns: list[str]) -> pd.DataFrame:
    """DataFrame with a fixed column order, even when there are no rows."""
    import pandas as pd

    df = pd.DataFrame(list(rows))
    for c in columns:
        if c not in df.columns:
            df[c] = pd.Series(dtype="object")
    return df[columns + [c for c in df.columns if c not in columns]]
