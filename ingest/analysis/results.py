"""Stage 7b — results: benchmark-result tables of a report, one record per result cell, with page.

Sources: PDF tables are read from the text layer with word boxes (`ingest.reading.tables_pdf`), only on
pages whose cached text has a "Table N" caption and many numbers, so the stage stays cheap; the PDF
is re-opened with pdfium for those pages only. Markdown pipe tables and HTML `<table>`s are read
from the post's source file. Tables that are images are never guessed: a page (or post section)
with a table/figure caption naming a catalogue benchmark but no numbers in its text is noted as
"scores shown only as images".

Reading a table into cells and checking them is `ingest.reading.results_read`; the PDF layout is
`ingest.reading.tables_pdf`; the benchmark catalogue is `ingest.analysis.benchmarks` (`data/benchmarks.yaml`). A
table that cannot be read is skipped with a note; a report never fails because of its tables.
"""

from __future__ import annotations

import re
import time
from html.parser import HTMLParser
from pathlib import Path

from ingest.analysis.benchmarks import Catalogue, load_catalogue
from ingest.reading.extract import Document, KeptPages
from ingest.reading.results_read import Table, cell_flag, clean, interpret, is_own, names_benchmark, score_of, validate
from ingest.reading.tables_pdf import CAPTION, FIGURE_CAPTION, Grid, GridRow, build_grid, find_regions, page_rules, page_words
from ingest.store.records import Results, ResultTable

__all__ = [
    "RESULTS_VERSION",
    "RESULT_COLUMNS",
    "card_section",
    "cell_flag",
    "clean",
    "html_tables",
    "is_own",
    "markdown_tables",
    "read_results",
    "result_note_rows",
    "result_rows",
    "results_key",
    "score_of",
    "status_note",
]

#: Bump when the reading of tables changes, so stored bundles are recomputed.
RESULTS_VERSION = 2

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
    "notes",
]

_NUM_TOKEN = re.compile(r"^\(?[-+]?\d+(?:[.,]\d+)*%?\)?$")


# --------------------------------------------------------------------------- PDF


def candidate_pages(doc: Document, min_numbers: int = 6, cat: Catalogue | None = None) -> list[int]:
    """Pages whose text has a "Table N" caption line, many numbers and (with a catalogue) a
    benchmark name — cheap tests on the cached text, so only these pages are re-read from the PDF."""
    out = []
    for p in doc.pages:
        if not _may_caption(p.text, False) or not any(CAPTION.match(line) for line in p.text.splitlines()):
            continue
        nums = [t for t in p.text.split() if _NUM_TOKEN.match(t)]
        # Scores are printed with decimals or percent signs; page, section and year numbers are not.
        scores = sum(1 for t in nums if "." in t or "%" in t)
        if len(nums) >= min_numbers and scores >= min_numbers // 2 and (cat is None or cat.mentions_any(p.text)):
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
        if not caps or not any(names_benchmark(c, cat) for c in caps):
            continue
        body_numbers = sum(1 for t in p.text.split() if _NUM_TOKEN.match(t) and not re.fullmatch(r"(19|20)\d\d|\d{1,2}", t))
        if body_numbers < 5:
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


def pdf_tables(path: Path, doc: Document, cat: Catalogue, kept: KeptPages | None = None) -> tuple[list[Table], list[str]]:
    """Result tables of the candidate pages of a PDF; never raises for one bad table.

    `kept`: pages the extraction kept open (used instead of loading them again)."""
    import pypdfium2 as pdfium

    tables: list[Table] = []
    notes: list[str] = []
    pages = candidate_pages(doc, cat=cat)
    if not pages:
        return tables, notes
    pdf = None
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
                regions = find_regions(words, page.get_width(), rules)
                if have is None:
                    page.close()
            except Exception as exc:
                notes.append(f"page {num}: tables not read ({type(exc).__name__}: {exc})")
                continue
            for reg in regions:
                try:
                    grid = build_grid(reg, rules, cat.is_key_column, cat.is_attribute_row, cat.is_label_word)
                    if grid is None:
                        continue
                    orientation, cells = interpret(grid, reg.caption, cat)
                    if not cells:
                        continue
                    if not any(cat.lookup(c.benchmark) for c in cells):
                        notes.append(f"{reg.label} on page {num}: no catalogue benchmark in it; not read as results")
                        continue
                    t = Table(num, str(num), reg.label, reg.caption, orientation, cells, region=list(grid.region or ()))
                    validate(t, grid, cat)
                    tables.append(t)
                except Exception as exc:
                    notes.append(f"{reg.label} on page {num} skipped ({type(exc).__name__}: {exc})")
    finally:
        if pdf is not None:
            pdf.close()
    return tables, notes


# --------------------------------------------------------------------------- Markdown / HTML


_MD_ROW = re.compile(r"^\s*\|?(.+?)\|?\s*$")
_MD_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
#: Linear on hostile lines: no part may scan past the next opener of its own kind ("![![![…",
#: "<img <img …" and "{{< figure {{< figure …" would otherwise rescan the line from every start).
_MD_IMAGE = re.compile(r"!\[[^\[\]]*\]\([^()\s]*\)|\{\{[<%]\s*figure\b[^{}]*[>%]\}\}|<img\b[^<>]*>", re.I)


def _grid_from_rows(rows: list[list[str]], header_rows: int = 1) -> Grid | None:
    """A Grid from a plain matrix of cells (first column labels, first `header_rows` rows headers)."""
    if len(rows) <= header_rows or max(len(r) for r in rows) < 2:
        return None
    n = max(len(r) for r in rows)
    rows = [r + [""] * (n - len(r)) for r in rows]
    heads = rows[:header_rows]
    col_headers: list[list[tuple[str, int]]] = []
    for j in range(1, n):
        parts = []
        for h in heads:
            t = h[j]
            span = 1
            k = j + 1
            while k < n and h[k] == "" and t:
                span += 1
                k += 1
            parts.append((t, span))
        col_headers.append(parts)
    body = []
    group = ""
    for r in rows[header_rows:]:
        if r[0] and not any(c.strip() for c in r[1:]):
            group = r[0]
            continue
        body.append(GridRow([r[0]], r[1:], group))
    tokens = [t for r in rows for c in r for t in c.split()]
    return Grid(" ".join(h[0] for h in heads), [""], [], col_headers, body, tokens=tokens)


def markdown_tables(text: str, cat: Catalogue, own: list[str] | None = None) -> tuple[list[Table], list[str]]:
    """Pipe tables of a Markdown post (page = section heading), and image-only notes per section."""
    tables: list[Table] = []
    notes: list[str] = []
    section, sec_no = "(before first heading)", 1
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    sec_has_table = False
    sec_images: list[str] = []
    sec_text: list[str] = []

    def close_section() -> None:
        words = " ".join(sec_text)
        if sec_images and not sec_has_table and (names_benchmark(words, cat) or cat.says_benchmark(words)):
            notes.append(f"scores shown only as images in section {section!r}")

    fence = False
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
        if fence:
            i += 1
            continue
        h = _MD_HEADING.match(line)
        if h:
            close_section()
            section, sec_no = h.group(2).strip(), sec_no + 1
            sec_has_table, sec_images, sec_text = False, [], []
            i += 1
            continue
        if _MD_IMAGE.search(line):
            sec_images.append(line)
        if "|" in line and i + 1 < len(lines) and _MD_RULE.match(lines[i + 1]):
            block = [line]
            j = i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                block.append(lines[j])
                j += 1
            rows = [[c.strip() for c in _split_pipe(r)] for r in block]
            caption = next((ln.strip() for ln in reversed(lines[max(0, i - 3) : i]) if ln.strip()), section)
            t = _table_from_rows(rows, sec_no, section, caption, cat, own, notes)
            if t:
                tables.append(t)
                sec_has_table = True
            i = j
            continue
        sec_text.append(line)
        i += 1
    close_section()
    return tables, notes


def table_name(caption: str, section: str) -> str:
    """A post's table name: its own label when the line above it is a caption ("Table 1: …" keeps
    "Table 1"), else where it stands ("Table in 'Results'")."""
    m = CAPTION.match(caption or "")
    return f"Table {m.group(2)}" if m else f"Table in {section!r}"


def _split_pipe(row: str) -> list[str]:
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return [re.sub(r"(\*\*|__|`)", "", c) for c in re.split(r"(?<!\\)\|", row)]


def _table_from_rows(
    rows: list[list[str]],
    page: int,
    label: str,
    caption: str,
    cat: Catalogue,
    own: list[str] | None,
    notes: list[str],
    header_rows: int = 1,
) -> Table | None:
    try:
        grid = _grid_from_rows(rows, header_rows)
        if grid is None:
            return None
        orientation, cells = interpret(grid, caption, cat, own)
        if not cells or not any(cat.lookup(c.benchmark) for c in cells):
            return None
        t = Table(page, label, table_name(caption, label), clean(caption)[:300], orientation, cells)
        validate(t, grid, cat)
        return t
    except Exception as exc:
        notes.append(f"table in section {label!r} skipped ({type(exc).__name__}: {exc})")
        return None


class _HTMLTables(HTMLParser):
    """Collects <table> cells (with colspan) and the nearest preceding heading."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[str, list[list[str]], int]] = []
        self.heading = "(before first heading)"
        self._h: list[str] | None = None
        self._rows: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._span = 1
        self._thead_rows = 0
        self._in_thead = False
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and self._rows is None:
            self._h = []
        elif tag == "table":
            self._depth += 1
            if self._depth == 1:
                self._rows, self._thead_rows = [], 0
        elif self._rows is not None and self._depth == 1:
            if tag == "thead":
                self._in_thead = True
            elif tag == "tr":
                self._rows.append([])
                if self._in_thead:
                    self._thead_rows += 1
            elif tag in ("td", "th"):
                self._cell = []
                try:
                    self._span = max(1, min(50, int(dict(attrs).get("colspan") or 1)))
                except ValueError:
                    self._span = 1
            elif tag == "br" and self._cell is not None:
                self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if self._h is not None and tag.startswith("h") and len(tag) == 2:
            self.heading = " ".join("".join(self._h).split()) or self.heading
            self._h = None
        elif tag == "table":
            self._depth -= 1
            if self._depth == 0 and self._rows is not None:
                self.tables.append((self.heading, [r for r in self._rows if r], max(1, self._thead_rows)))
                self._rows = None
        elif tag == "thead":
            self._in_thead = False
        elif tag in ("td", "th") and self._cell is not None and self._rows is not None:
            if not self._rows:
                self._rows.append([])
            self._rows[-1].append(" ".join("".join(self._cell).split()))
            self._rows[-1].extend([""] * (self._span - 1))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._h is not None:
            self._h.append(data)


def html_tables(text: str, cat: Catalogue, own: list[str] | None = None) -> tuple[list[Table], list[str]]:
    parser = _HTMLTables()
    parser.feed(text)
    parser.close()
    tables: list[Table] = []
    notes: list[str] = []
    for k, (heading, rows, nhead) in enumerate(parser.tables, 1):
        t = _table_from_rows(rows, k, heading, heading, cat, own, notes, header_rows=nhead)
        if t:
            tables.append(t)
    return tables, notes


# --------------------------------------------------------------------------- the stage


def read_results(
    doc: Document, source: str | Path | None, catalogue: Catalogue | None = None, kept: KeptPages | None = None
) -> Results:
    """The results part of a report's bundle: the tables read, notes, and the stage's seconds.

    Never raises: a source that cannot be re-read gives a note instead of tables. `kept`: PDF
    pages the extraction kept open (see `extract.KeptPages`).
    """
    t0 = time.perf_counter()
    cat = catalogue or load_catalogue()
    tables: list[Table] = []
    notes: list[str] = []
    try:
        p = Path(source) if source else None
        if doc.kind == "pdf" and p is not None:
            tables, notes = pdf_tables(p, doc, cat, kept)
            notes += image_only_pages(doc, cat, {t.page for t in tables})
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
    return Results(
        version=RESULTS_VERSION,
        tables=tuple(_record(t) for t in tables),
        notes=tuple(notes),
        seconds=round(time.perf_counter() - t0, 3),
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
    if skipped:
        parts.append("; ".join(skipped[:3]))
    return ("; " + ", ".join(parts)) if parts else ""


# --------------------------------------------------------------------------- the stored table


def result_rows(spec, results: Results | None, catalogue: Catalogue | None = None) -> list[dict]:  # type: ignore[no-untyped-def]
    """Rows of the `results` table for one report: automatic cells from its bundle plus the
    curated `results:` of its YAML (origin `curated`, never replaced by automatic ones)."""
    cat = catalogue or load_catalogue()
    rows: list[dict] = []
    for t in results.tables if results is not None else ():
        table_flag = "table: " + "; ".join(t.flags) if t.flags else ""
        for c in t.cells:
            b = cat.lookup(c.benchmark)
            flag = cell_flag(c.value, c.metric, b.id if b else "", cat)
            rows.append(
                {
                    "report_id": spec.id,
                    "page": str(t.page_label or t.page),
                    "table": t.label,
                    "caption": t.caption,
                    "model": c.model,
                    "own": is_own(c.model, spec.model, list(getattr(spec, "aliases", []))),
                    "benchmark": c.benchmark,
                    "metric": c.metric,
                    "group": c.group,
                    "setting": c.setting,
                    "value": c.value,
                    "score": score_of(c.value),
                    "benchmark_id": b.id if b else "",
                    "category": b.category if b else "",
                    "origin": "auto",
                    "flag": "; ".join(x for x in (flag, table_flag) if x),
                    "notes": "",
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
                "own": is_own(r.model, spec.model, list(spec.aliases)),
                "benchmark": r.benchmark,
                "metric": r.metric or "",
                "group": "",
                "setting": r.setting or "",
                "value": value,
                "score": score_of(value),
                "benchmark_id": b.id if b else "",
                "category": b.category if b else "",
                "origin": "curated",
                "flag": cell_flag(value, r.metric or "", b.id if b else "", cat),
                "notes": r.notes or "",
            }
        )
    return rows


RESULT_NOTE_COLUMNS = ["report_id", "note"]


def result_note_rows(spec, results: Results | None) -> list[dict]:  # type: ignore[no-untyped-def]
    """Rows of the `result_notes` table: images-only pages, unknown benchmarks, skipped or flagged tables."""
    notes = list(results.notes) if results is not None else []
    if results is None and not getattr(spec, "results", None):
        notes.append("no result tables read (no source text)")
    elif results is None:
        notes.append("curated results only (no source text)")
    return [{"report_id": spec.id, "note": n} for n in notes]


def card_section(results, notes, report_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Markdown lines of a report card's "Benchmark results": one pivot (benchmark × model) per
    table with its page, the curated scores apart, and the notes (images-only pages, flags)."""
    from ingest.outputs.mdtable import to_markdown

    lines: list[str] = []
    df = results[results["report_id"] == report_id] if len(results) else results
    nt = notes[notes["report_id"] == report_id] if len(notes) else notes
    if not len(df) and not len(nt):
        return lines
    lines += ["## Benchmark results", ""]
    if len(df):
        auto = df[df["origin"] == "auto"]
        for (page, label), t in auto.groupby(["page", "table"], sort=False):
            cap = t["caption"].iloc[0] or ""
            lines += [f"### {label} (page {page}): {cap}", ""]
            t = t.assign(
                row=[
                    " ".join(x for x in (b, f"({m})" if m else "", s) if x)
                    for b, m, s in zip(t["benchmark"], t["metric"], t["setting"], strict=False)
                ]
            )
            t = t.assign(col=[f"{m} ★" if o else m for m, o in zip(t["model"], t["own"], strict=False)])
            piv = t.pivot_table(index="row", columns="col", values="value", aggfunc="first", sort=False).reset_index()
            piv = piv.rename(columns={"row": "benchmark"})
            lines += [to_markdown(piv.fillna(""))]
            flags = sorted({f for f in t["flag"] if f})
            if flags:
                lines += ["Review: " + "; ".join(flags), ""]
        cur = df[df["origin"] == "curated"]
        if len(cur):
            lines += [
                "### Curated scores",
                "",
                to_markdown(cur[["benchmark", "model", "metric", "setting", "value", "page", "table", "notes"]]),
            ]
        lines += ["★ = the report's own model.", ""]
    for n in nt["note"] if len(nt) else []:
        lines.append(f"- {n}")
    if len(nt):
        lines.append("")
    return lines
