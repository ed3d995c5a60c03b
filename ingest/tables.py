"""Build the tidy tables from the stored bundles and the registry (called under the store lock).

Which reports appear: every report that loads from its YAML, plus — so a broken edit never
hides earlier results — any report whose YAML file still exists but no longer loads, shown
from its last good bundle (status `failed`, with the error). A report whose YAML was deleted
disappears from the tables.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .comparison import comparison_frame, comparison_rows, evidence_frame, evidence_rows
from .lens import Lens, load_lens
from .registry import Registry
from .results import RESULT_COLUMNS, RESULT_NOTE_COLUMNS, result_note_rows, result_rows
from .schema import ReportSpec
from .store import Store, frame, reported_rows, spec_row

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


def _specs_in_view(store: Store, registry: Registry) -> list[tuple[ReportSpec, str | None]]:
    """Loaded specs, plus last good specs of reports whose YAML exists but fails to load."""
    out = [(s, str(registry.paths.get(s.id, ""))) for s in registry.reports]
    have = {s.id for s in registry.reports}
    for rid in store.bundle_ids():
        if rid in have:
            continue
        b = store.load_bundle(rid) or {}
        meta = b.get("meta", {})
        yp = meta.get("yaml_path")
        if yp and Path(yp).exists() and meta.get("spec"):
            try:
                out.append((ReportSpec.model_validate(meta["spec"]), yp))
            except ValueError:
                continue
    return out


def rebuild_tables(store: Store, registry: Registry, lens: Lens | None = None) -> dict[str, pd.DataFrame]:
    """Recompute every table from bundles + specs and write them atomically; returns them.

    `comparison` has a row per report × lens dimension even without a source (curated cells,
    else "not assessed"); `evidence` holds the ranked candidate sentences of measured reports.
    """
    lens = lens or load_lens()
    reports, status, sections, counts, kwic, reported = [], [], [], [], [], []
    comparison, evidence = [], []
    results, result_notes = [], []
    for spec, yaml_path in _specs_in_view(store, registry):
        bundle = store.load_bundle(spec.id) or {}
        meta = bundle.get("meta", {})
        measured = bool(bundle.get("counts"))
        row = spec_row(spec, yaml_path)
        row.update(
            has_source=spec.source is not None,
            measured=measured,
            pages=meta.get("pages") if measured else None,
            words=meta.get("words") if measured else None,
            word_rule=meta.get("word_rule"),
            kind=meta.get("kind"),
            engine=meta.get("engine"),
            sha256=meta.get("sha256"),
            ingested_at=meta.get("ingested_at"),
            extraction_notes="; ".join(meta.get("notes") or []),
        )
        reports.append(row)
        st = store.load_status(spec.id)
        if st:
            status.append({k: st.get(k) for k in STATUS_COLUMNS} | {"report_id": spec.id})
        if measured:
            sections += [{"report_id": spec.id, **s} for s in bundle.get("sections", [])]
            counts += [{"report_id": spec.id, **c} for c in bundle["counts"]]
            kwic += [{"report_id": spec.id, **k} for k in bundle.get("kwic", [])]
        reported += reported_rows(spec)
        annotation = bundle.get("annotation") if measured else None
        comparison += comparison_rows(lens, spec, annotation)
        evidence += evidence_rows(spec.id, annotation, lens)
        results += result_rows(spec, bundle.get("results") if measured else None)
        result_notes += result_note_rows(spec, bundle.get("results") if measured else None)
    tables = {
        "reports": frame(reports, REPORT_COLUMNS),
        "status": frame(status, STATUS_COLUMNS),
        "sections": frame(sections, SECTION_COLUMNS),
        "counts": frame(counts, COUNT_COLUMNS),
        "kwic": frame(kwic, KWIC_COLUMNS),
        "reported": frame(reported, REPORTED_COLUMNS),
        "comparison": comparison_frame(comparison),
        "evidence": evidence_frame(evidence),
        "results": frame(results, RESULT_COLUMNS),
        "result_notes": frame(result_notes, RESULT_NOTE_COLUMNS),
    }
    for name, df in tables.items():
        store.write_table(name, df)
    return tables
