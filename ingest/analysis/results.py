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

import itertools
import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pypdfium2 as pdfium

from ingest.analysis.benchmarks import Catalogue, load_catalogue
from ingest.analysis.result_meaning import (
    Table,
    cell_flag,
    clean,
    defined_names,
    is_own,
    names_benchmark,
    own_model_name,
    own_names,
    score_of,
)
from ingest.analysis.result_structure import running_lines, structure_table, without_running_row
from ingest.analysis.results_web import html_tables, markdown_tables
from ingest.common.document import Document
from ingest.common.gcpace import rare_collections
from ingest.common.records import Results, ResultTable
from ingest.reading.captions import label_tables
from ingest.reading.extract import KeptPages
from ingest.reading.pdf_words import in_body, page_lines, page_rules, page_words
from ingest.reading.structure import Table as StructTable
from ingest.reading.structure_regions import fix_sizes, page_tables
from ingest.reading.table_text import CAPTION, FIGURE_CAPTION, Word

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

_PAGE_OF_NOTE = re.compile(r"\bpage (\d+)\b")
_NUM_TOKEN = re.compile(r"^\(?[-+]?\d+(?:[.,]\d+)*%?\)?$")
#: A year or a number of one or two digits: no printed score (compiled once, not per job's process).
_YEAR_OR_SMALL = re.compile(r"(19|20)\d\d|\d{1,2}")


# --------------------------------------------------------------------------- PDF


def candidate_pages(doc: Document, min_numbers: int = 6, cat: Catalogue | None = None) -> list[int]:
    """Pages whose text has a "Table N" caption line, many numbers and (with a catalogue) a
    benchmark name — cheap tests on the cached text, so only these pages are re-read from the PDF."""
    out = []
    for p in doc.pages:
        if not _may_caption(p.text, False) or not any(CAPTION.match(line) for line in p.text.splitlines()):
            continue
        nums = list(filter(_NUM_TOKEN.match, p.text.split()))
        # Scores are printed with decimals or percent signs; page, section and year numbers are not.
        scores = sum(1 for t in nums if "." in t or "%" in t)
        if len(nums) >= min_numbers and scores >= min_numbers // 2:
            out.append(p.number)
    return out


def image_only_pages(doc: Document, cat: Catalogue, tables_on: set[int]) -> list[str]:
    """Notes for pages with a table/figure caption naming a benchmark but (almost) no numbers."""
    notes = []
    for p in doc.pages:
        if p.number in tables_on or not _may_caption(p.text, True):
            continue
        lines = p.text.splitlines()
        caps = [ln for ln in lines if CAPTION.match(ln) or FIGURE_CAPTION.match(ln)]
        if not caps:
            continue
        # the numbers first, counted up to five: most such pages print five or more, and then no
        # caption need be looked up in the catalogue
        numbers = (t for t in filter(_NUM_TOKEN.match, p.text.split()) if not _YEAR_OR_SMALL.fullmatch(t))
        if sum(1 for _t in itertools.islice(numbers, 5)) < 5 and any(names_benchmark(c, cat) for c in caps):
            notes.append(f"scores shown only as images on page {p.label or p.number}")
    return notes


def _may_caption(text: str, figures: bool) -> bool:
    """Whether a page may hold a `CAPTION` line (or, with `figures`, a `FIGURE_CAPTION` line): each
    starts with "Tab"/"TAB" (or "Fig"/"FIG"), so a page without them is not read line by line."""
    return "Tab" in text or "TAB" in text or (figures and ("Fig" in text or "FIG" in text))


def may_hold_table(text: str) -> bool:
    """A cheap test on a page's raw text (as extraction reads it): might `candidate_pages` pick it?

    Extraction keeps the pages that pass open for this stage (see `extract.KeptPages`); a page
    that fails it and is a candidate after all is just loaded again, so this is about time only.
    """
    return ("able" in text or "ABLE" in text) and any(CAPTION.match(line) for line in text.splitlines())


def pdf_tables(
    path: Path,
    doc: Document,
    cat: Catalogue,
    kept: KeptPages | None = None,
    pages: list[int] | None = None,
) -> tuple[list[Table], list[str]]:
    """Result tables of the candidate pages of a PDF; never raises for one bad table.

    Each page is read by the structure stage (words and rules -> regions with their caption ->
    a typed table with spans); every captioned table is read into result cells through its header
    tree (`result_structure.structure_table`). `kept`: pages the extraction kept open (used instead
    of loading them again); `pages`: `candidate_pages(doc)` when the caller has them."""
    tables: list[Table] = []
    notes: list[str] = []
    pages = candidate_pages(doc, cat=cat) if pages is None else pages
    if not pages:
        return tables, notes
    pdf = None
    running = running_lines(doc)
    try:
        for num in pages:
            try:
                have = kept.get(num) if kept is not None else None
                if have is not None:
                    page, tp = have
                    words = page_words(page, tp)
                else:
                    if pdf is None:
                        pdf = pdfium.PdfDocument(str(path))
                    page, tp = pdf[num - 1], None
                    words = page_words(page)
                rules = page_rules(page)
                width, height = page.get_width(), page.get_height()
                fixed = fix_sizes(words)
                every = page_lines(fixed)  # the page's lines, grouped once: captions may sit in the margins
                body = [ln for ln in every[0] if in_body(ln.top, ln.bottom, height)]
                found = label_tables(fixed, page_tables(fixed, rules, width, num, height, (body, every[1])), every)
                if have is None:
                    page.close()
            except Exception as exc:
                notes.append(f"page {num}: tables not read ({type(exc).__name__}: {exc})")
                continue
            for st in found:
                if st.label:
                    read = partial(_structure_read, st, running, cat, fixed)
                    _read_one(read, st.label, st.caption, num, tables, notes)
    finally:
        if pdf is not None:
            pdf.close()
    return tables, notes


def _structure_read(st: StructTable, running: frozenset[str], cat: Catalogue, fixed: list[Word]) -> tuple[Table | None, str]:
    return structure_table(without_running_row(st, running), cat, fixed)


def _read_one(
    read: Callable[[], tuple[Table | None, str]], label: str, caption: str, num: int, tables: list[Table], notes: list[str]
) -> None:
    """One captioned table: its table, or a note saying why not (never raises)."""
    try:
        t, why = read()
    except Exception as exc:
        t, why = None, f"skipped ({type(exc).__name__}: {exc})"
    if t is not None:
        tables.append(t)
    else:
        notes.append(f"{label} on page {num} not read: {why} (caption: {_short(caption)})")


def _short(text: str, n: int = 80) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def unread_caption_pages(
    doc: Document, tables_on: set[int], noted: set[int], read: set[int] | frozenset[int] = frozenset()
) -> list[str]:
    """A note for every page with a "Table N" caption where no table was read and no other note
    says why: nothing that looks like a table is passed over without a word. `read`: the pages
    whose layout was read (`candidate_pages`); on those no rows set in columns were found next to
    the caption, on the others the text has too few printed scores for a result table."""
    notes = []
    for p in doc.pages:
        if p.number in tables_on or p.number in noted or not _may_caption(p.text, False):
            continue
        caps = [ln.strip() for ln in p.text.splitlines() if CAPTION.match(ln)]
        if caps:
            why = (
                "no rows set in columns found next to the caption (a table printed as an image, or a layout not recognised)"
                if p.number in read
                else "fewer than six numbers, or fewer than three with decimals or %, in the page's text"
            )
            notes.append(f"{_short(caps[0], 40)} on page {p.label or p.number} not read: {why}")
    return notes


# --------------------------------------------------------------------------- the stage


def read_results(
    doc: Document,
    source: str | Path | None,
    catalogue: Catalogue | None = None,
    kept: KeptPages | None = None,
) -> Results:
    """The results part of a report's bundle: the tables read, notes, and the stage's seconds.

    Never raises: a source that cannot be re-read gives a note instead of tables. `kept`: PDF
    pages the extraction kept open (see `extract.KeptPages`). The pages' words, lines and cells
    are tens of thousands of small acyclic objects: the collector runs rarely meanwhile
    (`rare_collections`), not after every 700 of them over the job's whole heap.
    """
    t0 = time.perf_counter()
    cat = catalogue or load_catalogue()
    tables: list[Table] = []
    notes: list[str] = []
    try:
        p = Path(source) if source else None
        if doc.kind == "pdf" and p is not None:
            candidates = candidate_pages(doc)
            with rare_collections():
                tables, notes = pdf_tables(p, doc, cat, kept, candidates)
            notes += image_only_pages(doc, cat, {t.page for t in tables})
            noted = {int(m.group(1)) for n in notes for m in [_PAGE_OF_NOTE.search(n)] if m}
            notes += unread_caption_pages(doc, {t.page for t in tables}, noted, set(candidates))
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
