"""Stage 8 — store: results under `data/`, written atomically, rebuilt into tidy tables.

Layout (all paths relative to the data folder, default `data/`):

    cache/text/<sha256>.<engine>.v<N>.json.gz   extracted text, keyed by the source's SHA-256
    results/reports/<id>.json.gz                last good result bundle of one report
    results/status/<id>.json                    outcome of the latest run of one report
    results/<table>.parquet (+ .csv)            tables rebuilt from the bundles after each run

A report's bundle is replaced only by a newer good result (write to a temp file, then
`os.replace`), so a failed run never erases earlier results. Table rebuilds hold a file
lock, so two `python -m ingest` processes on one store cannot interleave their writes.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock

from .extract import EXTRACTOR_VERSION, Document
from .schema import ReportSpec

if TYPE_CHECKING:  # pandas is imported lazily: a warm re-run never needs it
    import pandas as pd

DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent / "data"

#: Tables written after every run; those in CSV_TABLES also get a CSV copy for spreadsheets.
TABLES = ("reports", "status", "sections", "counts", "kwic", "reported", "comparison", "evidence", "results", "result_notes")
CSV_TABLES = ("reports", "status", "sections", "counts", "reported", "comparison", "results")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder and `os.replace`, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _json_default(o: object) -> object:
    if hasattr(o, "isoformat"):
        return o.isoformat()  # type: ignore[union-attr]
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def dumps(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False, default=_json_default).encode("utf-8")


class Store:
    """The data folder: text cache, per-report bundles and the combined tables."""

    def __init__(self, root: str | Path = DEFAULT_DATA_DIR):
        self.root = Path(root)
        self.text_dir = self.root / "cache" / "text"
        self.http_dir = self.root / "cache" / "http"
        self.results_dir = self.root / "results"
        self.bundle_dir = self.results_dir / "reports"
        self.status_dir = self.results_dir / "status"

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

    def load_bundle(self, report_id: str) -> dict | None:
        try:
            return json.loads(gzip.decompress(self._bundle_path(report_id).read_bytes()))
        except (OSError, ValueError, EOFError):
            return None

    def save_bundle(self, report_id: str, bundle: dict) -> None:
        atomic_write_bytes(self._bundle_path(report_id), gzip.compress(dumps(bundle), compresslevel=3))

    def bundle_ids(self) -> list[str]:
        return sorted(p.name[: -len(".json.gz")] for p in self.bundle_dir.glob("*.json.gz"))

    # ---------------------------------------------------------------- status
    def save_status(self, report_id: str, status: dict) -> None:
        atomic_write_bytes(self.status_dir / f"{report_id}.json", dumps(status))

    def load_status(self, report_id: str) -> dict | None:
        try:
            return json.loads((self.status_dir / f"{report_id}.json").read_bytes())
        except (OSError, ValueError):
            return None

    # ---------------------------------------------------------------- tables
    def lock(self) -> FileLock:
        self.results_dir.mkdir(parents=True, exist_ok=True)
        return FileLock(str(self.results_dir / ".lock"), timeout=120)

    def write_table(self, name: str, df: pd.DataFrame) -> None:
        """Write one table as parquet (and CSV where people open it), atomically."""
        import io

        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        atomic_write_bytes(self.results_dir / f"{name}.parquet", buf.getvalue())
        if name in CSV_TABLES:
            atomic_write_bytes(self.results_dir / f"{name}.csv", df.to_csv(index=False).encode("utf-8"))

    def read_table(self, name: str) -> pd.DataFrame:
        """A stored table, or an empty frame if it was never written."""
        import pandas as pd

        p = self.results_dir / f"{name}.parquet"
        if not p.exists():
            return pd.DataFrame()
        return pd.read_parquet(p)

    def tables_key(self) -> str | None:
        """Key of the inputs the stored tables were built from (None if unknown)."""
        try:
            return (self.results_dir / ".tables_key").read_text().strip() if self.has_results() else None
        except OSError:
            return None

    def set_tables_key(self, key: str) -> None:
        atomic_write_bytes(self.results_dir / ".tables_key", key.encode())

    def has_results(self) -> bool:
        return (self.results_dir / "reports.parquet").exists()


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
