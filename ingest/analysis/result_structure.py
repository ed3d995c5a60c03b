"""The structure stage's tables read as result tables, for the results stage: a captioned table
into result cells through its header tree (`structure_table`), each cell verified on the page's
words or left for review; and the running page headers of a document, never part of a table."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ingest.analysis.benchmarks import Catalogue
from ingest.analysis.result_meaning import Table, interpret, validate
from ingest.analysis.word_verify import NOT_CHECKED, verify_on_words
from ingest.common.document import Document
from ingest.common.records import ResultCell as Cell
from ingest.reading.structure import Table as StructTable
from ingest.reading.structure_grid import RowKinds, panel_grids
from ingest.reading.table_text import Word


def running_lines(doc: Document) -> frozenset[str]:
    """The running page headers and footers of a document: a first or last line of text (digits
    aside) that three or more pages print. They are never part of a table."""
    seen: Counter[str] = Counter()
    for p in doc.pages:
        lines = [ln for ln in p.text.splitlines() if ln.strip()]
        for ln in {*lines[:2], *lines[-2:]}:
            key = running_key(ln)
            if key:
                seen[key] += 1
    return frozenset(k for k, n in seen.items() if n >= 3)


_ASCII_DIGITS = str.maketrans("", "", "0123456789")


def running_key(text: str) -> str:
    """A line's text without digits (page numbers), spaces collapsed, case folded."""
    bare = text.translate(_ASCII_DIGITS) if text.isascii() else "".join(ch for ch in text if not ch.isdigit())
    return " ".join(bare.split()).casefold()


def without_running_row(st: StructTable, running: frozenset[str]) -> StructTable:
    """A structure-stage table without its first row when that row prints a running page header
    (its cells joined are a line the document's pages repeat: `running_lines`)."""
    top = sorted((c for c in st.cells if c.row == 0), key=lambda c: c.col)
    if not running or not top or running_key(" ".join(c.text for c in top)) not in running:
        return st
    cells = [replace(c, row=c.row - 1) for c in st.cells if c.row > 0]
    return replace(st, cells=cells, n_rows=st.n_rows - 1, header_rows=max(st.header_rows - 1, 0))


def structure_table(st: StructTable, cat: Catalogue, words: list[Word] | None = None) -> tuple[Table | None, str]:
    """A captioned structure-stage table read into result cells (`structure_grid.panel_grids`,
    then the result meaning), or None and why not. `words`: the page's words, which verify its
    cells (`word_verify.verify_on_words`); without them every cell needs review."""
    if cat.is_non_result_caption(st.caption):
        return None, "the caption describes models, data or settings (architecture, hyperparameters, a data mixture), not results"
    grids = panel_grids(st, RowKinds(cat.is_attribute_row, cat.is_key_column))
    if not grids:
        return None, "no column of values"
    out: Table | None = None
    for grid in grids:  # stacked panels: one table, each panel read under its own headers
        attributes: list[Cell] = []
        orientation, cells = interpret(grid, st.caption, cat, attributes=attributes)
        if not cells:
            continue
        t = Table(st.page, str(st.page), st.label, st.caption, orientation, cells, region=list(st.bbox), attributes=attributes)
        validate(t, grid, cat)
        if out is None:
            out = t
        else:
            out.cells += t.cells
            out.flags += t.flags
            out.attributes += t.attributes
    if out is None:
        return None, "no numeric cell with a model and a benchmark header"
    # every cell's review: why the page's words do not confirm it ("" when they do), or unchecked
    if words is not None:
        out.cells = verify_on_words(out.cells, words, st.bbox, st.caption, out.attributes)
    else:
        out.cells = [replace(c, review=NOT_CHECKED) for c in out.cells]
    return out, ""
