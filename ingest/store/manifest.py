"""The manifest: one checked generation of every table, and the bucket a report's rows go to.

Why a manifest: a table set made of many files can only be replaced as a whole if readers go
through one small file that names every part (see `ingest.store.store` for the layout).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

#: The tables every pipeline run writes (ingest/outputs/tables.py declares how each is built; readers
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


def bucket_of(report_id: str, buckets: int) -> int:
    """The part a report's rows live in (stable across runs and machines)."""
    if buckets <= 1:
        return 0
    return int.from_bytes(hashlib.blake2b(report_id.encode(), digest_size=4).digest(), "big") % buckets


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


@dataclass(frozen=True)
class RefDeps:
    """What a report's comparison rows read from other reports: the names its cells refer to ("as in
    NAME") and a hash of what they resolved to (each name's report and that report's input key).

    Why: such a row depends on another report's bundle, so it is rebuilt when the hash changes
    (the referenced report re-ingested, added or removed), not only when its own inputs change."""

    names: tuple[str, ...]
    key: str
    #: Reports whose id, model name or alias holds every word of a name (one: the name's report; several:
    #: ambiguous): only a change to one of them, or to a report that now holds the words, can change it.
    near: tuple[str, ...] = ()

    @classmethod
    def of(cls, raw: list) -> RefDeps:
        """From its manifest form [names, key, near]."""
        return cls(tuple(map(str, raw[0])), str(raw[1]), tuple(map(str, raw[2] if len(raw) > 2 else ())))


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
    #: report id -> its references to other reports (only reports that have any; see RefDeps).
    refs: dict[str, RefDeps] = field(default_factory=dict)
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
                "refs": {rid: [list(r.names), r.key, list(r.near)] for rid, r in self.refs.items()},
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
            refs={str(rid): RefDeps.of(r) for rid, r in (d.get("refs") or {}).items()},
            retired=list(d.get("retired") or []),
            written_at=str(d.get("written_at", "")),
        )

    def files(self) -> set[str]:
        return {p.file for t in self.tables.values() for p in t.parts.values()}
