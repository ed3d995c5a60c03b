"""The `tables` command's output: structure-stage tables as JSON, CSV (one line per cell) or Markdown.

Plain text only: cell texts come from an untrusted PDF, so Markdown escapes pipes, backslashes and
HTML-significant characters and puts a cell on one line; CSV quoting is the csv module's.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from ingest.reading.structure import Table

FORMATS = ("json", "csv", "md")
CSV_HEADER = ("table", "page", "row", "col", "row_span", "col_span", "text")


def render(tables: Sequence[Table], fmt: str) -> str:
    """All tables in one format (see FORMATS)."""
    if fmt == "json":
        return tables_json(tables)
    if fmt == "csv":
        return tables_csv(tables)
    if fmt == "md":
        return tables_markdown(tables)
    raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")


def tables_json(tables: Sequence[Table]) -> str:
    """A JSON list of {"label", "caption", "page", "bbox", "cells": [{"row", "col", "row_span", "col_span", "text"}]}
    ("label" and "caption" empty for a table no caption names)."""
    return json.dumps([t.as_dict() for t in tables], ensure_ascii=False, indent=1) + "\n"


def tables_csv(tables: Sequence[Table]) -> str:
    """One line per cell; `table` is the paper's label ("Table 3"), or for a table no caption names
    its number in the order found."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for k, t in enumerate(tables, 1):
        for c in t.cells:
            w.writerow((t.label or k, t.page, c.row, c.col, c.row_span, c.col_span, c.text))
    return buf.getvalue()


def _md(text: str) -> str:
    for a, b in (("\\", "\\\\"), ("|", "\\|"), ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(a, b)
    return " ".join(text.split())


def tables_markdown(tables: Sequence[Table]) -> str:
    """Each table as a Markdown grid under a heading with its label and page, the caption between
    them; spanned cells left empty."""
    out: list[str] = []
    for k, t in enumerate(tables, 1):
        if t.label:  # the paper's own number, and its caption over the table
            out.append(f"## {_md(t.label)} (page {t.page})\n")
            if t.caption:
                out.append(f"{_md(t.caption)}\n")
        else:
            box = ", ".join(f"{v:.0f}" for v in t.bbox)
            out.append(f"## Untitled table {k} (page {t.page}, box {box})\n")
        rows = t.matrix()
        if not rows:
            continue
        out.append("| " + " | ".join(_md(v) for v in rows[0]) + " |")
        out.append("|" + "|".join("---" for _ in rows[0]) + "|")
        out.extend("| " + " | ".join(_md(v) for v in row) + " |" for row in rows[1:])
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
