"""Stage 7b, PDF half — the result tables of a PDF, read by the structure stage on the pages whose
cached text has a "Table N" caption and many numbers (see `ingest.analysis.results`).

A module of its own so that a process that reads no PDF (the driver of `python -m ingest`, a
Markdown or HTML report's worker) does not import pdfium and the structure stage
(`ingest.analysis.results.read_results` imports it for a PDF only; the executor's forkserver
preloads it). `python bench/import_costs.py ingest.analysis.results:ingest.analysis.results_pdf`
prints what that saves.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pypdfium2 as pdfium

from ingest.analysis.benchmarks import Catalogue
from ingest.analysis.result_meaning import Table, names_benchmark
from ingest.analysis.result_structure import running_lines, structure_table, without_running_row
from ingest.common.document import Document
from ingest.common.gcpace import rare_collections
from ingest.reading.captions import label_tables
from ingest.reading.pdf_words import in_body, page_lines, page_rules, page_words
from ingest.reading.structure import Table as StructTable
from ingest.reading.structure_regions import fix_sizes, page_tables
from ingest.reading.table_text import CAPTION, FIGURE_CAPTION, Word

if TYPE_CHECKING:
    from ingest.reading.extract import KeptPages

_PAGE_OF_NOTE = re.compile(r"\bpage (\d+)\b")
#: The white-space separated tokens of a text that are numbers ("12", "(3.5)", "-4%"): the tokens of
#: `str.split` that match in full, found in one pass over the text (`\s` is `str.isspace`).
_NUM_TOKENS = re.compile(r"(?<!\S)\(?[-+]?\d+(?:[.,]\d+)*%?\)?(?!\S)")
#: A year or a number of one or two digits: no printed score (compiled once, not per job's process).
_YEAR_OR_SMALL = re.compile(r"(19|20)\d\d|\d{1,2}")


def candidate_pages(doc: Document, min_numbers: int = 6, cat: Catalogue | None = None) -> list[int]:
    """Pages whose text has a "Table N" caption line, many numbers and (with a catalogue) a
    benchmark name — cheap tests on the cached text, so only these pages are re-read from the PDF."""
    out = []
    for p in doc.pages:
        if not any(map(CAPTION.match, caption_lines(p.text))):
            continue
        nums = _NUM_TOKENS.findall(p.text)
        # Scores are printed with decimals or percent signs; page, section and year numbers are not.
        scores = sum(1 for t in nums if "." in t or "%" in t)
        if len(nums) >= min_numbers and scores >= min_numbers // 2:
            out.append(p.number)
    return out


def image_only_pages(doc: Document, cat: Catalogue, tables_on: set[int]) -> list[str]:
    """Notes for pages with a table/figure caption naming a benchmark but (almost) no numbers."""
    notes = []
    for p in doc.pages:
        if p.number in tables_on:
            continue
        caps = [ln for ln in caption_lines(p.text, True) if CAPTION.match(ln) or FIGURE_CAPTION.match(ln)]
        if not caps:
            continue
        # the numbers first, counted up to five (the text scanned only as far as the fifth): most
        # such pages print five or more, and then no caption need be looked up in the catalogue
        numbers = (t for t in map(re.Match.group, _NUM_TOKENS.finditer(p.text)) if not _YEAR_OR_SMALL.fullmatch(t))
        if sum(1 for _t in itertools.islice(numbers, 5)) < 5 and any(names_benchmark(c, cat) for c in caps):
            notes.append(f"scores shown only as images on page {p.label or p.number}")
    return notes


#: The characters `str.splitlines` ends a line at (each of them white space to `str.isspace`).
_LINE_ENDS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_LINE_END = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def caption_lines(text: str, figures: bool = False) -> list[str]:
    """The lines of `text` (as `str.splitlines` cuts it) that may be a `CAPTION` line (or, with
    `figures`, a `FIGURE_CAPTION` line), in order: those whose first non-space characters are
    "Tab"/"TAB" (or "Fig"/"FIG"), as each such line starts. Found from where the text prints those
    letters, not by splitting and matching each of a page's lines (every page is asked)."""
    starts: set[int] = set()
    for head in ("Tab", "TAB", "Fig", "FIG") if figures else ("Tab", "TAB"):
        i = text.find(head)
        while i >= 0:
            k = i
            while k > 0 and text[k - 1] not in _LINE_ENDS and text[k - 1].isspace():
                k -= 1  # (`^\s*` of the patterns: white space within the line before the letters)
            if k == 0 or text[k - 1] in _LINE_ENDS:
                starts.add(k)
            i = text.find(head, i + 1)
    out = []
    for k in sorted(starts):
        end = _LINE_END.search(text, k)
        out.append(text[k : end.start() if end else len(text)])
    return out


def may_hold_table(text: str) -> bool:
    """A cheap test on a page's raw text (as extraction reads it): might `candidate_pages` pick it?

    Extraction keeps the pages that pass open for this stage (see `extract.KeptPages`); a page
    that fails it and is a candidate after all is just loaded again, so this is about time only.
    """
    return any(map(CAPTION.match, caption_lines(text)))


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
                    words = page_words(page, tp, kept.text(num))  # (not asked of pdfium again)
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
        if p.number in tables_on or p.number in noted:
            continue
        caps = [ln.strip() for ln in caption_lines(p.text) if CAPTION.match(ln)]
        if caps:
            why = (
                "no rows set in columns found next to the caption (a table printed as an image, or a layout not recognised)"
                if p.number in read
                else "fewer than six numbers, or fewer than three with decimals or %, in the page's text"
            )
            notes.append(f"{_short(caps[0], 40)} on page {p.label or p.number} not read: {why}")
    return notes


def pdf_results(path: Path, doc: Document, cat: Catalogue, kept: KeptPages | None = None) -> tuple[list[Table], list[str]]:
    """The results stage of a PDF (see `ingest.analysis.results.read_results`): the tables read from
    the candidate pages, then notes for pages whose scores are images or whose captioned table was
    not read. The pages' words, lines and cells are tens of thousands of small acyclic objects: the
    collector runs rarely meanwhile (`rare_collections`)."""
    candidates = candidate_pages(doc)
    with rare_collections():
        tables, notes = pdf_tables(path, doc, cat, kept, candidates)
    try:  # notes on pages without tables: a failure here never costs the tables read
        notes += image_only_pages(doc, cat, {t.page for t in tables})
        noted = {int(m.group(1)) for n in notes for m in [_PAGE_OF_NOTE.search(n)] if m}
        notes += unread_caption_pages(doc, {t.page for t in tables}, noted, set(candidates))
    except Exception as exc:  # (noted as `read_results` notes any other failure of this stage)
        notes.append(f"result tables not read ({type(exc).__name__}: {exc})")
    return tables, notes
