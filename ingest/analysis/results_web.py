"""Result tables of Markdown and HTML posts: pipe tables and `<table>`s read from the post's source
file into the same `Table` records as PDF tables (page = section number, label = section heading),
and notes for sections whose scores are shown only as images."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ingest.analysis.benchmarks import Catalogue
from ingest.analysis.result_meaning import Table, clean, interpret, names_benchmark, validate
from ingest.common.records import ResultCell as Cell
from ingest.reading.table_text import CAPTION, Grid, GridRow

__all__ = ["html_tables", "markdown_tables"]


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
    spans = [[1] * n for _ in heads]
    for i, h in enumerate(heads):
        for j in range(1, n):
            k = j + 1
            while k < n and h[k] == "" and h[j]:
                spans[i][j] += 1
                k += 1
    for j in range(1, n):
        parts = []
        for i, h in enumerate(heads):
            t, span = h[j], spans[i][j]
            if not t and i < len(heads) - 1:  # under a spanning cell of an upper header row: its text
                k = next((k for k in range(j - 1, 0, -1) if h[k]), 0)
                if k and k + spans[i][k] > j:
                    t, span = h[k], spans[i][k]
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
    return [re.sub(r"(\*\*|__|`)", "", c).replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row)]


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
        attributes: list[Cell] = []
        orientation, cells = interpret(grid, caption, cat, own, attributes)
        if not cells:
            notes.append(f"table in section {label!r} not read: no numeric cell with a model and a benchmark header")
            return None
        if cat.is_non_result_caption(caption) or (
            not any(cat.lookup(c.benchmark) for c in cells) and not cat.is_result_caption(caption)
        ):
            notes.append(f"table in section {label!r} not read: its caption does not say it holds results")
            return None
        t = Table(page, label, table_name(caption, label), clean(caption)[:300], orientation, cells, attributes=attributes)
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
