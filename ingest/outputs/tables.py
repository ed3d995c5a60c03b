"""Build the tidy tables from the stored bundles and the registry (called under the store lock).

Incremental: every report's rows depend only on its spec, YAML path, bundle, status and the lens;
a hash of those (`input_key`) is kept in the manifest, so a run rebuilds the rows of reports whose
key changed, rewrites only the parts (buckets) holding them, and reuses every other part as is.
A part that fails its checksum is rebuilt from the bundles of the reports it holds.

Adding a table is one declaration in `TABLE_DEFS` (name, columns, rows of one report).

Which reports appear: every report that loads from its YAML, plus — so a broken edit never
hides earlier results — any report whose YAML file still exists but no longer loads, shown
from its last good bundle (status `failed`, with the error). A report whose YAML was deleted
disappears from the tables.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Container, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow._compute as kernels
import pyarrow.parquet as pq

from ingest.analysis.comparison import COMPARISON_COLUMNS, EVIDENCE_COLUMNS, comparison_rows, evidence_rows
from ingest.analysis.lens import Lens, load_lens
from ingest.analysis.results import (
    RESULT_ATTRIBUTE_COLUMNS,
    RESULT_COLUMNS,
    RESULT_NOTE_COLUMNS,
    result_attribute_rows,
    result_note_rows,
    result_rows,
)
from ingest.common.records import Annotation, Bundle, Results
from ingest.outputs.table_references import StoreReferences
from ingest.sources.registry import Registry, Roster
from ingest.sources.schema import ReportSpec
from ingest.store.frames import frame, rows_to_arrow, string_array
from ingest.store.manifest import DEFAULT_BUCKETS, Manifest, Part, TableEntry, bucket_of
from ingest.store.store import Store

if TYPE_CHECKING:  # pandas only for the frames readers ask for: a table update never imports it
    import pandas as pd

#: Bump when the rows built from a bundle change, so every report's rows are rebuilt once.
TABLES_VERSION = 4
#: Rows per row group of a clustered part (see TableDef.cluster_by).
CLUSTER_ROW_GROUP = 4096
#: Parts written at once (see `_Rebuild.build`).
PART_THREADS = 2

REPORT_COLUMNS = [
    "report_id",
    "model",
    "organization",
    "country",
    "released",
    "doc_type",
    "arxiv_id",
    "params",
    "tags",
    "notes",
    "source_url",
    "source_path",
    "yaml_path",
    "has_source",
    "measured",
    "pages",
    "words",
    "word_rule",
    "kind",
    "engine",
    "sha256",
    "ingested_at",
    "extraction_notes",
]
STATUS_COLUMNS = ["report_id", "status", "message", "seconds", "finished_at", "file"]
SECTION_COLUMNS = ["report_id", "section", "start_page", "end_page", "heading", "words"]
COUNT_COLUMNS = ["report_id", "section", "group", "term", "rule", "count", "words", "density"]
KWIC_COLUMNS = ["report_id", "group", "term", "section", "page", "page_label", "left", "match", "right", "offset"]
REPORTED_COLUMNS = ["report_id", "term", "count", "words", "density", "scope", "note", "from"]


def _specs_in_view(store: Store, roster: Roster) -> tuple[list[tuple[str, str | None]], dict[str, ReportSpec]]:
    """(report id, YAML path) of the loaded reports, plus those of reports whose YAML exists but
    fails to load, with their last good specs (from their bundles: the second value)."""
    out: list[tuple[str, str | None]] = [(rid, roster.paths[rid]) for rid in roster.ids]
    last_good: dict[str, ReportSpec] = {}
    for rid in store.bundle_ids(besides=roster.paths):
        b = store.load_bundle(rid)
        if b is None:
            continue
        yp = b.meta.yaml_path
        if yp and Path(yp).exists() and b.meta.spec:
            try:
                spec = ReportSpec.model_validate(b.meta.spec)
            except ValueError:
                continue
            last_good[spec.id] = spec
            out.append((spec.id, yp))
    return out, last_good


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


@dataclass(frozen=True)
class ReportInput:
    """Everything one report's rows are built from."""

    spec: ReportSpec
    yaml_path: str | None
    bundle: Bundle | None  # None: never ingested, or its bundle cannot be read
    status: dict | None
    lens: Lens

    @property
    def measured(self) -> bool:
        return self.bundle is not None and self.bundle.measured

    @property
    def annotation(self) -> Annotation | None:
        return self.bundle.annotation if self.bundle is not None and self.measured else None

    @property
    def results(self) -> Results | None:
        return self.bundle.results if self.bundle is not None and self.measured else None


@dataclass(frozen=True)
class TableDef:
    """A stored table: its columns, the rows one report contributes, and whether it is per report.

    Per-report tables (large: counts, kwic, …) are split into buckets so that one report's
    update rewrites one part; the others are one small part each. `dtypes` are the pandas
    extension types readers restore (Arrow keeps nulls in integer columns; pandas needs Int64).
    """

    name: str
    columns: list[str]
    rows: Callable[[ReportInput], list[dict]]
    per_report: bool = True
    dtypes: dict[str, str] = field(default_factory=dict)
    #: Sort each part by this column (stably) in small row groups, so a read filtered on it — the
    #: Evidence page's "one term across all reports" — skips most row groups of every part.
    cluster_by: str | None = None

    def frame(self, rows: list[dict]) -> pd.DataFrame:
        """Rows as a DataFrame with the declared columns and dtypes (what readers get back)."""
        df = frame(rows, self.columns)
        for c, t in self.dtypes.items():
            df[c] = df[c].astype(t)
        return df

    def arrow(self, rows: list[dict]) -> pa.Table:
        """Rows straight to Arrow in column order (pandas is far slower for a few thousand rows)."""
        tb = pa.Table.from_pylist(rows)
        for c in self.columns:
            if c not in tb.column_names:
                tb = tb.append_column(c, pa.nulls(tb.num_rows))
        return tb.select(self.columns + [c for c in tb.column_names if c not in self.columns])


def section_rows(r: ReportInput) -> list[dict]:
    """Rows of the `sections` table: a measured report's sections, each with its report_id."""
    if r.bundle is None or not r.measured:
        return []
    return [{"report_id": r.spec.id, **s.to_json()} for s in r.bundle.sections]


def count_rows(r: ReportInput) -> list[dict]:
    """Rows of the `counts` table (the bundle keeps them as table rows already)."""
    return [{"report_id": r.spec.id, **x} for x in r.bundle.counts] if r.bundle is not None and r.measured else []


def kwic_rows(r: ReportInput) -> list[dict]:
    """Rows of the `kwic` table (the bundle keeps them as table rows already)."""
    return [{"report_id": r.spec.id, **x} for x in r.bundle.kwic] if r.bundle is not None and r.measured else []


def report_rows(r: ReportInput) -> list[dict]:
    measured = r.measured
    meta = r.bundle.meta if r.bundle is not None else None
    row = spec_row(r.spec, r.yaml_path)
    row.update(
        has_source=r.spec.source is not None,
        measured=measured,
        pages=meta.pages if meta and measured else None,
        words=meta.words if meta and measured else None,
        word_rule=meta.word_rule if meta else None,
        kind=meta.kind if meta else None,
        engine=meta.engine if meta else None,
        sha256=meta.sha256 if meta else None,
        ingested_at=meta.ingested_at if meta else None,
        extraction_notes="; ".join(meta.notes) if meta else "",
    )
    return [row]


def status_rows(r: ReportInput) -> list[dict]:
    return [{k: r.status.get(k) for k in STATUS_COLUMNS} | {"report_id": r.spec.id}] if r.status else []


#: Stable dtypes of the comparison and evidence tables (nullable integer pages, float scores), kept when read back.
CMP_DTYPES = {"page": "Int64", "confidence": "Float64", "disagree": "boolean"}
EV_DTYPES = {"page": "Int64", "rank": "Int64", "score": "Float64"}

#: Every stored table. A new per-report table is one line, e.g.
#: `TableDef("results", RESULT_COLUMNS, lambda r: result_rows(r.spec, r.results)),`
TABLE_DEFS: tuple[TableDef, ...] = (
    TableDef("reports", REPORT_COLUMNS, report_rows, per_report=False),
    TableDef("status", STATUS_COLUMNS, status_rows, per_report=False),
    TableDef("sections", SECTION_COLUMNS, section_rows),
    TableDef("counts", COUNT_COLUMNS, count_rows),
    TableDef("kwic", KWIC_COLUMNS, kwic_rows, cluster_by="term"),
    TableDef("reported", REPORTED_COLUMNS, lambda r: reported_rows(r.spec), per_report=False),
    TableDef("comparison", COMPARISON_COLUMNS, lambda r: comparison_rows(r.lens, r.spec, r.annotation), dtypes=CMP_DTYPES),
    TableDef("evidence", EVIDENCE_COLUMNS, lambda r: evidence_rows(r.spec.id, r.annotation, r.lens), dtypes=EV_DTYPES),
    TableDef("results", RESULT_COLUMNS, lambda r: result_rows(r.spec, r.results)),
    TableDef("result_notes", RESULT_NOTE_COLUMNS, lambda r: result_note_rows(r.spec, r.results)),
    TableDef("result_attributes", RESULT_ATTRIBUTE_COLUMNS, lambda r: result_attribute_rows(r.spec, r.results)),
)


@dataclass(frozen=True)
class ReadyRows:
    """One report's rows of every table, built ahead (see `rows_ahead`); valid while its input key is `key`."""

    key: str
    rows: dict[str, list[dict]]


def rows_ahead(store: Store, spec: ReportSpec, yaml_path: str, lens: Lens, spec_json: str | None = None) -> ReadyRows:
    """A report's rows as the next rebuild would build them, with the input key they are built for.

    Why: a run's driver builds them while the workers read the next reports, so the rebuild after
    the last report (which then only uses them when the key still matches: same spec, YAML path,
    bundle and status, lens) does not read the bundles again (bench/ingest_speed.py: about half
    the rebuild's time on 23 reports)."""
    stamp = store.stamps_of([spec.id]).get(spec.id, "-")
    key = input_key(spec, yaml_path, lens, stamp, spec_json)
    inp = ReportInput(spec, yaml_path, store.load_bundle(spec.id), store.load_status(spec.id), lens)
    rows = {td.name: got for td in TABLE_DEFS if (got := td.rows(inp))}
    return ReadyRows(key, rows)


@dataclass
class RebuildStats:
    """What a rebuild did (for tests and bench/scale.py)."""

    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    parts_written: int = 0
    bundles_read: int = 0
    repaired: list[str] = field(default_factory=list)


def input_key(spec: ReportSpec | None, yaml_path: str | None, lens: Lens, stamp: str, spec_json: str | None = None) -> str:
    """Hash of what a report's rows depend on; bundle and status by `stamp` (size+mtime, no read).

    `spec_json` is the spec's JSON when the caller has it already (see `Roster.spec_json`); then
    `spec` may be None (its object is not needed)."""
    h = hashlib.sha256(f"{TABLES_VERSION}|{lens.fingerprint}|{yaml_path}|{stamp}|".encode())
    if spec_json is None:
        assert spec is not None
        spec_json = spec.model_dump_json(by_alias=True)
    h.update(spec_json.encode())
    return h.hexdigest()[:24]


def rebuild_tables(
    store: Store,
    registry: Registry | Roster,
    lens: Lens | None = None,
    buckets: int = DEFAULT_BUCKETS,
    stamps: dict[str, str] | None = None,
    ready: Mapping[str, ReadyRows] | None = None,
) -> RebuildStats:
    """Bring every table up to date with bundles + specs and publish them as one new generation.

    Only reports whose inputs changed (and parts that fail their checksum) are rebuilt; the
    others' parts are kept by reference. `comparison` has a row per report × lens dimension even
    without a source (curated cells, else "not assessed"); `evidence` holds the ranked
    candidate sentences of measured reports. `stamps` is `store.bundle_stamps()` when the
    caller took it already (see pipeline.run: it is scanned while the reports are read).
    A `Roster` (see ingest/sources/registry.py) makes only the specs of the reports whose rows are built.
    `ready`: rows built ahead (`rows_ahead`), used for a report whose input key they still match.
    """
    lens = lens or load_lens()
    roster = registry if isinstance(registry, Roster) else Roster.of(registry)
    rb = _start_rebuild(store, roster, lens, buckets, stamps)
    rb.ready = ready or {}
    rb.plan_tables()
    summary_rows = rb.build_per_report_tables()
    rb.build_summary_tables(summary_rows)
    store.commit(rb.manifest)
    return rb.stats


def _start_rebuild(store: Store, roster: Roster, lens: Lens, buckets: int, stamps: dict[str, str] | None) -> _Rebuild:
    """Step 1: the reports in view, the input key of each, and which changed since the stored generation."""
    view, last_good = _specs_in_view(store, roster)
    old = store.manifest_or_none()
    damaged = set(store.check()) if old else set()
    stats = RebuildStats(repaired=sorted(damaged))
    stamps = store.bundle_stamps() if stamps is None else stamps
    keys = {
        rid: input_key(last_good.get(rid), yp, lens, stamps.get(rid, "-"), None if rid in last_good else roster.spec_json(rid))
        for rid, yp in view
    }
    prev_inputs = old.inputs if old else {}
    changed = {rid for rid, k in keys.items() if prev_inputs.get(rid) != k}
    removed = set(prev_inputs) - set(keys)
    refs = StoreReferences(store, roster, lens, view, last_good, keys)
    if old is not None and (changed or removed):  # a report referring to one that came, changed or went
        changed |= refs.stale(old.refs, changed, removed)
    stats.changed, stats.removed = sorted(changed), sorted(removed)
    rb = _Rebuild(store, roster, lens, buckets, view, last_good, old, damaged, stats, keys, prev_inputs, changed, removed)
    rb.refs = refs
    return rb


@dataclass
class _Rebuild:
    """The state one `rebuild_tables` call shares between its steps."""

    store: Store
    roster: Roster
    lens: Lens
    buckets: int
    view: list[tuple[str, str | None]]
    last_good: dict[str, ReportSpec]
    old: Manifest | None
    damaged: set[str]
    stats: RebuildStats
    keys: dict[str, str]
    prev_inputs: dict[str, str]
    changed: set[str]
    removed: set[str]
    #: Per table: its bucket count, and which buckets must be rebuilt from scratch (no usable old part).
    plan: dict[str, tuple[int, set[int]]] = field(default_factory=dict)
    #: Reports whose rows are needed: changed ones, plus every report of a from-scratch bucket.
    need: set[str] = field(default_factory=set)
    #: Per table: the new entry, the previous one, and the buckets to write.
    entries: dict[str, tuple[TableEntry, TableEntry | None, set[int]]] = field(default_factory=dict)
    bucket_memo: dict[tuple[str, int], int] = field(default_factory=dict)
    #: Rows built ahead, by report (see `rows_ahead`).
    ready: Mapping[str, ReadyRows] = field(default_factory=dict)
    refs: StoreReferences | None = None

    def __post_init__(self) -> None:
        self.order = [rid for rid, _ in self.view]
        self.dirty = self.changed | self.removed
        self.by_id = dict(self.view)
        kept = {rid: d for rid, d in self.old.refs.items() if rid in self.keys} if self.old is not None else {}
        self.manifest = Manifest(order=self.order, inputs=self.keys, refs=kept)

    def where(self, rid: str, nb: int) -> int:
        """A report's bucket, looked up for the reports that matter only (a hash each)."""
        b = self.bucket_memo.get((rid, nb))
        if b is None:
            b = self.bucket_memo[rid, nb] = bucket_of(rid, nb)
        return b

    def plan_tables(self) -> None:
        """Step 2: per table, the buckets to build from scratch, the reports whose rows are needed,
        and the new entry keeping every old part no dirty report touches."""
        old, damaged = self.old, self.damaged
        for td in TABLE_DEFS:
            nb = self.buckets if td.per_report else 1
            prev = old.tables.get(td.name) if old else None
            if prev is None or prev.buckets != nb or prev.columns != td.columns:
                self.plan[td.name] = (nb, set(range(nb)))
            else:
                self.plan[td.name] = (nb, {int(d.split("/")[1]) for d in damaged if d.split("/")[0] == td.name})
        self.need = set(self.changed)
        for nb, scratch in self.plan.values():
            if scratch:
                self.need |= {rid for rid in self.keys if self.where(rid, nb) in scratch}
        for td in TABLE_DEFS:
            nb, scratch = self.plan[td.name]
            prev = old.tables.get(td.name) if old else None
            entry = TableEntry(columns=list(td.columns), dtypes=dict(td.dtypes), buckets=nb, cluster=td.cluster_by or "")
            touched = scratch | {self.where(rid, nb) for rid in self.dirty}
            if prev is not None and prev.cluster != entry.cluster:
                touched |= set(prev.parts)  # re-sort every part from its old rows (no bundle is read)
            if prev is not None and not scratch >= set(range(nb)):
                entry.parts = {b: p for b, p in prev.parts.items() if b not in touched}
            self.entries[td.name] = (entry, prev, touched)

    def build(self, work: list[tuple[TableDef, int, list[str], dict[str, list[dict]]]]) -> None:
        """Write parts of tables, each `(table, bucket, ids, rows)` (unless it came out empty), and
        name them in the new entries, in the order given.

        Two at a time: a part's work is mostly Arrow's (reading the old part, sorting, encoding and
        compressing the new one), which runs without the GIL, so on two cores adding one report
        at 10,000 spends about half the wall time on its 7 parts (bench/scale.py); the CPU is the same."""
        def one(td: TableDef, b: int, ids: list[str], rows: dict[str, list[dict]]) -> Part | None:
            prev = self.entries[td.name][1]
            return _rebuild_part(self.store, td, b, prev, b in self.plan[td.name][1], self.dirty, ids, rows, self.prev_inputs)

        if not work:
            return
        if len(work) == 1:  # no pool for one part
            parts = [one(*work[0])]
        else:
            with ThreadPoolExecutor(max_workers=min(PART_THREADS, len(work)), thread_name_prefix="part") as pool:
                parts = [job.result() for job in [pool.submit(one, *w) for w in work]]
        for (td, b, _, _), part in zip(work, parts, strict=True):
            if part is not None:
                self.entries[td.name][0].parts[b] = part
                self.stats.parts_written += 1

    def build_per_report_tables(self) -> dict[str, dict[str, list[dict]]]:
        """Step 3: per-report tables, one bucket at a time, so memory holds one bucket's rows (a full
        rebuild of 10,000 reports never has every KWIC row in memory); returns the summary tables'
        rows, kept for the end."""
        summary_rows: dict[str, dict[str, list[dict]]] = {td.name: {} for td in TABLE_DEFS if not td.per_report}
        per_defs = [td for td in TABLE_DEFS if td.per_report]
        # Each bucket's reports whose rows are built or dropped, in registry order (the others' rows
        # are kept from the old part as they are).
        members: dict[int, list[str]] = {}
        for rid in [*self.order, *sorted(self.removed)]:
            if rid in self.need or rid in self.dirty:
                members.setdefault(self.where(rid, self.buckets), []).append(rid)
        touched_any = set().union(*(self.entries[td.name][2] for td in per_defs)) if per_defs else set()
        for b in sorted(set(members) | touched_any):
            ids = members.get(b, [])
            rows = self.rows_of(ids)
            self.build([(td, b, ids, rows[td.name]) for td in per_defs if b in self.entries[td.name][2]])
            for name in summary_rows:
                summary_rows[name].update(rows[name])
        return summary_rows

    def rows_of(self, ids: list[str]) -> dict[str, dict[str, list[dict]]]:
        """Every table's rows of the needed reports among `ids` (table -> report id -> rows)."""
        rows: dict[str, dict[str, list[dict]]] = {td.name: {} for td in TABLE_DEFS}
        for rid in ids:
            if rid not in self.need or rid not in self.by_id:
                continue
            ahead = self.ready.get(rid)
            if ahead is not None and ahead.key == self.keys[rid]:
                self.stats.bundles_read += 1  # (read ahead, for this rebuild)
                for name, got in ahead.rows.items():
                    rows[name][rid] = got
                continue
            spec = self.last_good[rid] if rid in self.last_good else self.roster.spec(rid)
            inp = ReportInput(spec, self.by_id[rid], self.store.load_bundle(rid), self.store.load_status(rid), self.lens)
            self.stats.bundles_read += 1
            for td in TABLE_DEFS:
                got = td.rows(inp)
                if got:
                    rows[td.name][rid] = got
        if self.refs is not None:
            for rid in ids:
                if rid in rows["comparison"]:
                    rows["comparison"][rid], deps = self.refs.resolve(rid, rows["comparison"][rid])
                    if deps is None:
                        self.manifest.refs.pop(rid, None)
                    else:
                        self.manifest.refs[rid] = deps
        return rows

    def build_summary_tables(self, summary_rows: dict[str, dict[str, list[dict]]]) -> None:
        """Step 4: the summary tables (one part each) from the rows kept, and every entry into the manifest."""
        ids = [*self.order, *sorted(self.removed)]
        summary = [td for td in TABLE_DEFS if not td.per_report]
        self.build([(td, b, ids, summary_rows[td.name]) for td in summary for b in sorted(self.entries[td.name][2])])
        for td in TABLE_DEFS:
            self.manifest.tables[td.name] = self.entries[td.name][0]


def _rebuild_part(
    store: Store,
    td: TableDef,
    bucket: int,
    prev: TableEntry | None,
    scratch: bool,
    dirty: set[str],
    ids: list[str],
    rows: dict[str, list[dict]],
    held: Container[str] | None = None,
) -> Part | None:
    """One part: the old part minus dirty reports plus their new rows (or all rows, from scratch).

    `ids` are the reports of this part whose rows are rebuilt or dropped (from scratch: all the
    reports it holds), in registry order; `held`, the reports of the old generation (a report new
    to the store has no rows to drop from the old part, so it is not filtered then).
    """
    pieces: list[pa.Table] = []
    if not scratch and prev is not None and bucket in prev.parts:
        # One thread: a part is small, and Arrow's pool costs more CPU than it saves wall time here.
        old_file = pq.ParquetFile(store.tables_dir / prev.parts[bucket].file)
        old_tb = old_file.read(use_threads=False).replace_schema_metadata(None)
        drop = [rid for rid in ids if rid in dirty and (held is None or rid in held)]
        if drop and old_tb.num_rows:
            lookup = kernels.SetLookupOptions(string_array(drop), skip_nulls=False)
            old_tb = _call("filter", old_tb, _call("invert", _call("is_in", old_tb["report_id"], options=lookup)))
        if old_tb.num_rows:
            pieces.append(old_tb)
    fresh = [r for rid in ids if scratch or rid in dirty for r in rows.get(rid, ())]
    if fresh:  # typed like the old part when they fit it (no pandas import, see rows_to_arrow)
        typed = rows_to_arrow(fresh, pieces[0].schema) if pieces else None
        pieces.append(typed if typed is not None else td.arrow(fresh))
    if not pieces:
        return None
    tb = pa.concat_tables(pieces, promote_options="permissive")
    tb = tb.select([c for c in td.columns if c in tb.column_names] + [c for c in tb.column_names if c not in td.columns])
    if td.cluster_by and tb.num_rows:
        order = _call("sort_indices", tb, options=kernels.SortOptions(sort_keys=[(td.cluster_by, "ascending")]))  # stable
        return store.write_part(td.name, bucket, _call("take", tb, order), row_group_rows=CLUSTER_ROW_GROUP)
    return store.write_part(td.name, bucket, tb)


def _call(kernel: str, *args: Any, options: Any = None) -> Any:
    """Arrow compute kernel `kernel` on `args`: what `pyarrow.compute.<kernel>` (and `Table.filter`,
    `Table.take`) call, with the same default options. Why not `pyarrow.compute`: importing it wraps
    every kernel (~290) in a Python function with its docstring, CPU a fresh `python -m ingest NEW.yaml`
    spends for the five a table update uses (`bench/import_costs.py pyarrow._compute:pyarrow.compute`)."""
    return kernels.call_function(kernel, list(args), options)
