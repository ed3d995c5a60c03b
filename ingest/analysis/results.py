"""Stage 7b — results: benchmark-result tables of a report, one record per result cell, with page.

Sources: PDF tables are read by the structure stage from the text layer with word boxes and drawn
rules (`ingest.reading.structure_regions`, header tree `ingest.reading.structure_grid`), only on
pages whose cached text has a "Table N" caption and many numbers, so the stage stays cheap; the PDF
is re-opened with pdfium for those pages only. Markdown pipe tables and HTML `<table>`s are read
from the post's source file. Tables that are images are never guessed: a page (or post section)
with a table/figure caption naming a catalogue benchmark but no numbers in its text is noted as
"scores shown only as images".

Reading a table into cells is `ingest.analysis.result_structure` and `ingest.analysis.result_meaning`;
which cells are verified is `ingest.analysis.word_verify`; the benchmark catalogue is
`ingest.analysis.benchmarks` (`data/benchmarks.yaml`). A table that cannot be read is skipped with a
note; a report never fails because of its tables.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.analysis.benchmarks import Catalogue, load_catalogue
from ingest.analysis.own_model import defined_names, is_own, own_model_name, own_names
from ingest.analysis.result_meaning import Table, cell_flag, clean, score_of
from ingest.analysis.results_web import html_tables, markdown_tables
from ingest.common.document import Document
from ingest.common.records import Results, ResultTable

if TYPE_CHECKING:
    from ingest.reading.extract import KeptPages

__all__ = [
    "RESULTS_VERSION",
    "RESULT_ATTRIBUTE_COLUMNS",
    "RESULT_COLUMNS",
    "cell_flag",
    "clean",
    "html_tables",
    "is_own",
    "markdown_tables",
    "own_model_name",
    "read_results",
    "report_own_names",
    "result_attribute_rows",
    "result_note_rows",
    "result_rows",
    "results_key",
    "score_of",
    "status_note",
]

#: Bump when the reading of tables changes, so stored bundles are recomputed.
RESULTS_VERSION = 6

RESULT_COLUMNS = [
    "report_id",
    "page",
    "table",
    "caption",
    "model",
    "own",
    "benchmark",
    "metric",
    "group",
    "setting",
    "value",
    "score",
    "benchmark_id",
    "category",
    "origin",
    "flag",
    "verified",
    "notes",
]

#: Columns of the `result_attributes` table: what a result table says about a model that is not a
#: score (parameters, activated parameters, context length, shots, "Type").
RESULT_ATTRIBUTE_COLUMNS = ["report_id", "page", "table", "model", "own", "attribute", "value"]


# --------------------------------------------------------------------------- the stage


def read_results(
    doc: Document,
    source: str | Path | None,
    catalogue: Catalogue | None = None,
    kept: KeptPages | None = None,
) -> Results:
    """The results part of a report's bundle: the tables read, notes, and the stage's seconds.

    Never raises: a source that cannot be re-read gives a note instead of tables. `kept`: PDF
    pages the extraction kept open (see `extract.KeptPages`). A PDF is read by
    `ingest.analysis.results_pdf`, imported only then: pdfium and the structure stage cost a
    Markdown or HTML report (and the driver, which never reads one) about 0.2 s of start-up.
    """
    t0 = time.perf_counter()
    cat = catalogue or load_catalogue()
    tables: list[Table] = []
    notes: list[str] = []
    try:
        p = Path(source) if source else None
        if doc.kind == "pdf" and p is not None:
            from ingest.analysis.results_pdf import pdf_results  # pdfium and the structure stage: PDFs only

            tables, notes = pdf_results(p, doc, cat, kept)
        elif doc.kind in ("markdown", "html") and p is not None:
            raw = p.read_bytes()[: 20 * 1024 * 1024].decode("utf-8", errors="replace")
            if doc.kind == "markdown" or "<table" not in raw.lower():
                tables, notes = markdown_tables(raw, cat)
            if "<table" in raw.lower():
                t2, n2 = html_tables(raw, cat)
                tables += t2
                notes += n2
    except Exception as exc:
        notes.append(f"result tables not read ({type(exc).__name__}: {exc})")
    unknown = sorted({c.benchmark for t in tables for c in t.cells if cat.lookup(c.benchmark) is None})
    if unknown:
        notes.append("benchmarks not in the catalogue: " + ", ".join(unknown[:40]) + (" …" if len(unknown) > 40 else ""))
    for t in tables:
        if t.flags:
            notes.append(f"{t.label} (page {t.page_label}): " + "; ".join(t.flags))
    headers = {c.model for t in tables for c in t.cells}
    defined = defined_names([p.text for p in doc.pages], headers) if headers else ()
    return Results(
        version=RESULTS_VERSION,
        tables=tuple(_record(t) for t in tables),
        notes=tuple(notes),
        seconds=round(time.perf_counter() - t0, 3),
        defined_names=defined,
    )


def _record(t: Table) -> ResultTable:
    """A table as read (mutable while it is built) as the typed record the bundle keeps."""
    return ResultTable(
        page=t.page,
        page_label=t.page_label,
        label=t.label,
        caption=t.caption,
        orientation=t.orientation,
        flags=tuple(t.flags),
        region=None if t.region is None else tuple(t.region),
        cells=tuple(t.cells),
        attributes=tuple(t.attributes),
    )


def results_key(catalogue: Catalogue | None = None) -> str:
    """The results part of a bundle fingerprint: code version and catalogue content."""
    cat = catalogue or load_catalogue()
    return f"r{RESULTS_VERSION}|{cat.fingerprint}"


def status_note(results: Results | None) -> str:
    """A short addition to the report's status line: tables read, and tables skipped or flagged."""
    if results is None:
        return ""
    n = len(results.tables)
    skipped = [x for x in results.notes if "skipped" in x or "not read" in x]
    flagged = sum(1 for t in results.tables if t.flags)
    parts = [f"{n} result table(s)"] if n else []
    if flagged:
        parts.append(f"{flagged} flagged for review")
    if skipped:  # every table found and not read is in result_notes; the first few here
        more = f" (+{len(skipped) - 3} more in result_notes)" if len(skipped) > 3 else ""
        parts.append(f"{len(skipped)} table(s) not read: " + "; ".join(skipped[:3]) + more)
    return ("; " + ", ".join(parts)) if parts else ""


# --------------------------------------------------------------------------- the stored table


def result_rows(spec, results: Results | None, catalogue: Catalogue | None = None) -> list[dict]:  # type: ignore[no-untyped-def]
    """Rows of the `results` table for one report: automatic cells from its bundle plus the
    curated `results:` of its YAML (origin `curated`, never replaced by automatic ones)."""
    cat = catalogue or load_catalogue()
    rows: list[dict] = []
    names = report_own_names(spec, results)
    for t in results.tables if results is not None else ():
        table_flag = "table: " + "; ".join(t.flags) if t.flags else ""
        for c in t.cells:
            b = cat.lookup(c.benchmark)
            flag = cell_flag(c.value, c.metric, b.id if b else "", cat, c.benchmark)
            row_flag = "; ".join(x for x in (flag, c.review, table_flag) if x)
            rows.append(
                {
                    "report_id": spec.id,
                    "page": str(t.page_label or t.page),
                    "table": t.label,
                    "caption": t.caption,
                    "model": own_model_name(c.model, spec.model),
                    "own": is_own(c.model, names[0], names[1:]),
                    "benchmark": c.benchmark,
                    "metric": c.metric,
                    "group": c.group,
                    "setting": c.setting,
                    "value": c.value,
                    "score": score_of(c.value),
                    "benchmark_id": b.id if b else "",
                    "category": b.category if b else "",
                    "origin": "auto",
                    "flag": row_flag,
                    "verified": not row_flag,
                    "notes": c.note,
                }
            )
    for r in getattr(spec, "results", []) or []:
        b = cat.lookup(r.benchmark)
        value = str(r.value)
        rows.append(
            {
                "report_id": spec.id,
                "page": "" if r.page is None else str(r.page),
                "table": r.figure or "",
                "caption": "",
                "model": r.model,
                "own": is_own(r.model, names[0], names[1:]),
                "benchmark": r.benchmark,
                "metric": r.metric or "",
                "group": "",
                "setting": r.setting or "",
                "value": value,
                "score": score_of(value),
                "benchmark_id": b.id if b else "",
                "category": b.category if b else "",
                "origin": "curated",
                "flag": (flag := cell_flag(value, r.metric or "", b.id if b else "", cat, r.benchmark)),
                "verified": not flag,
                "notes": r.notes or "",
            }
        )
    return rows


def report_own_names(spec, results: Results | None) -> list[str]:  # type: ignore[no-untyped-def]
    """The names of a report's own models: `model:`, `aliases:` and the short names the report
    defines for them (`Results.defined_names`)."""
    defined = results.defined_names if results is not None else ()
    return own_names(spec.model, list(getattr(spec, "aliases", []) or []), defined) or [""]


def result_attribute_rows(spec, results: Results | None) -> list[dict]:  # type: ignore[no-untyped-def]
    """Rows of the `result_attributes` table: model attributes read from result tables."""
    own = report_own_names(spec, results)
    return [
        {
            "report_id": spec.id,
            "page": str(t.page_label or t.page),
            "table": t.label,
            "model": own_model_name(a.model, spec.model),
            "own": is_own(a.model, own[0], own[1:]),
            "attribute": a.benchmark,
            "value": a.value,
        }
        for t in (results.tables if results is not None else ())
        for a in t.attributes
    ]


RESULT_NOTE_COLUMNS = ["report_id", "note"]


def result_note_rows(spec, results: Results | None) -> list[dict]:  # type: ignore[no-untyped-def]
    """Rows of the `result_notes` table: images-only pages, unknown benchmarks, skipped or flagged tables."""
    notes = list(results.notes) if results is not None else []
    if results is None and not getattr(spec, "results", None):
        notes.append("no result tables read (no source text)")
    elif results is None:
        notes.append("curated results only (no source text)")
    return [{"report_id": spec.id, "note": n} for n in notes]
