"""Readable tables for quotes: HTML with wrapped, whole text (st.dataframe cuts long cells to one line).

Every value is escaped, so text from reports and YAML files shows as plain text; only the links
this module builds itself (to app pages, from ids) are markup.
"""

from __future__ import annotations

import html
from urllib.parse import urlencode

import pandas as pd

from ingest.mdtable import blank

CSS = """<style>
table.frl-q{border-collapse:collapse;width:100%;font-size:13px;table-layout:auto}
table.frl-q th{text-align:left;background:#fafafa;border-bottom:1px solid #ddd;padding:5px;position:sticky;top:0}
table.frl-q td{border-bottom:1px solid #eee;padding:5px;vertical-align:top;white-space:normal;overflow-wrap:break-word}
table.frl-q td.nw{white-space:nowrap}
table.frl-q td.q{min-width:320px}
.frl-qwrap{max-height:70vh;overflow:auto}
</style>"""


def link(page: str, text: str, **params: object) -> str:
    """An app-internal link (same tab) built from ids."""
    q = urlencode({k: str(v) for k, v in params.items() if not blank(v) and str(v) != ""})
    return f'<a href="{page}?{q}" target="_self">{html.escape(text)}</a>'


def table(df: pd.DataFrame, wide: tuple[str, ...] = ("Quote",), raw: tuple[str, ...] = ()) -> str:
    """The frame as an HTML table; `wide` columns get room to wrap, `raw` columns are trusted markup."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    rows = []
    for rec in df.itertuples(index=False):
        cells = []
        for c, v in zip(df.columns, rec, strict=True):
            text = "" if blank(v) else (str(v) if c in raw else html.escape(str(v)))
            cls = ' class="q"' if c in wide else ' class="nw"' if c in raw else ""
            cells.append(f"<td{cls}>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = f'<table class="frl-q"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    return f'{CSS}<div class="frl-qwrap">{table}</div>'


def page_of(row: dict | pd.Series) -> str:
    """The page as a reader cites it: the printed label when there is one, else the PDF page number."""
    lab, num = row.get("page_label"), row.get("page")
    if not blank(lab) and str(lab):
        return str(lab)
    return "" if blank(num) else str(int(num)) if isinstance(num, float | int) else str(num)
