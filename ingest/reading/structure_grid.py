"""A structure-stage `Table` as the results stage's `Grid` (labels, header stack, value rows).

The bridge between the two stages: `ingest.analysis.results` interprets Grids; this turns any
table the structure stage finds (with or without a caption) into one, with no benchmark knowledge:

- header rows: the rows above the first row holding a value; each value column gets the header
  cells standing over it, top to bottom, with the number of columns each spans;
- label columns: the columns left of the first column holding a value; the last is the main one.
  A label printed once for several rows (a row-group label column) is carried down to the rows
  below it that have none;
- a body row with a label and no value is a group heading for the rows below it.
"""

from __future__ import annotations

from ingest.reading.structure import Table
from ingest.reading.tables_pdf import DASH, Grid, GridRow, is_value


def grid_from_table(t: Table) -> Grid | None:
    """The Grid of a structure-stage table; None when no column holds a value."""
    cells = {(c.row, c.col): c for c in t.cells}
    head = t.header_rows
    value_cols = sorted({c.col for c in t.cells if c.row >= head and _value(c.text)})
    if not value_cols:
        return None
    n_lab = value_cols[0]
    vcols = list(range(n_lab, t.n_cols))
    col_headers: list[list[tuple[str, int]]] = [[] for _ in vcols]
    label_heads: list[list[str]] = [[] for _ in range(n_lab)]
    for c in sorted(t.cells, key=lambda c: (c.row, c.col)):
        if c.row >= head:
            continue
        for k in range(c.col, c.col + c.col_span):
            if k < n_lab:
                label_heads[k].append(c.text)
            else:
                col_headers[k - n_lab].append((" ".join(c.text.split()), c.col_span))
    rows: list[GridRow] = []
    group = ""
    carried = [""] * n_lab
    for r in range(head, t.n_rows):
        labels = [" ".join(cells[(r, k)].text.split()) if (r, k) in cells else "" for k in range(n_lab)]
        values = [" ".join(cells[(r, k)].text.split()) if (r, k) in cells else "" for k in vcols]
        if not any(values):
            if any(labels):
                group = next(x for x in reversed(labels) if x)
            continue
        carry_down(labels, carried)
        rows.append(GridRow(labels, values, group))
    label_headers = [" ".join(" ".join(parts).split()) for parts in label_heads]
    return Grid(
        corner=" ".join(x for x in label_headers if x),
        label_headers=label_headers,
        key_cols=[],
        col_headers=col_headers,
        rows=rows,
        tokens=[w for c in t.cells for w in c.text.split()],
        unused=[],
        main=n_lab - 1,
        region=t.bbox,
    )


def _value(text: str) -> bool:
    t = text.strip()
    return bool(t) and (is_value(t) or bool(DASH.match(t)))


def carry_down(labels: list[str], carried: list[str]) -> None:
    """Fill a row's empty label cells from the rows above (in place): a label printed once for
    several rows holds until a label at its level or above changes; the last (innermost) label
    column is never carried. `carried` holds the labels in force and is updated."""
    n_lab = len(labels)
    for k in range(n_lab):
        if labels[k]:
            carried[k] = labels[k]
            carried[k + 1 :] = [""] * (n_lab - k - 1)
        elif k < n_lab - 1:
            labels[k] = carried[k]
