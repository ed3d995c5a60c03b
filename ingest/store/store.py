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

import gzip
import hashlib
import io
import json
import os
import tempfile
import time
import uuid
from collections.abc import Container, Iterable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock

from ingest.common.atomic import atomic_write_bytes, describe_os_error, dumps, fsync_files
from ingest.common.document import EXTRACTOR_VERSION, Document
from ingest.common.records import Bundle
from ingest.store.frames import pandas_dtypes, to_arrow
from ingest.store.manifest import TABLES_BEHIND, Manifest, Part, StoreDamaged, StoreError, TableEntry, bucket_of
from ingest.store.reader import TableReader

if TYPE_CHECKING:  # pandas/pyarrow are imported lazily: a warm re-run never needs them
    import pandas as pd
    import pyarrow as pa

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "data"


class Store(TableReader):
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
        #: Parts written since the last commit, not yet flushed to disk (see `write_part`).
        self._unsynced: list[Path] = []

    # ---------------------------------------------------------------- text cache
    def _text_path(self, sha256: str, engine: str) -> Path:
        return self.text_dir / f"{sha256}.{engine}.v{EXTRACTOR_VERSION}.json.gz"

    def get_text(self, sha256: str, engine: str) -> Document | None:
        """Cached extraction of the source with this hash, or None (a corrupt entry counts as a miss)."""
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

    def has_bundle(self, report_id: str) -> bool:
        """Whether a bundle of the report is stored (one stat; the bundle is not read)."""
        return self._bundle_path(report_id).exists()

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
        import pyarrow.parquet as pq  # deferred: workers write bundles only (bench/import_costs.py)

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
            atomic_write_bytes(path, raw, sync=False)
            s = path.stat()
        # Flushed to disk by `commit`, before the manifest that names it: all parts in one go (a
        # reused part too: it may be one an interrupted run wrote and never flushed).
        self._unsynced.append(path)
        return Part(rel, digest, len(raw), data.num_rows, s.st_mtime_ns)

    def commit(self, manifest: Manifest) -> None:
        """Make `manifest` the current generation (one atomic replace), then collect old parts."""
        old = self.manifest_or_none()
        manifest.generation = (old.generation + 1) if old else max(manifest.generation, 1)
        manifest.written_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        manifest.inputs = {rid: manifest.inputs.get(rid, "") for rid in manifest.order}
        keep = manifest.files()
        manifest.retired = sorted((old.files() - keep) if old else set())
        # Every part on disk before the manifest names it (a crash never leaves it naming an empty file).
        fsync_files(self._unsynced)
        self._unsynced = []
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

        For fixtures and full rebuilds; the pipeline's incremental path is ingest/outputs/tables.py.
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
