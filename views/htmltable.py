"""Readable tables: HTML with wrapped, whole text (st.dataframe cuts long cells to one line).

Light on purpose: an `st.html` table is plain DOM, while `st.dataframe` loads the data-grid
component and draws on a canvas, which adds most of a second to a page's first render in the
browser. Every value is escaped, so text from reports and YAML files shows as plain text; only
the links this module builds itself (to app pages, from ids) are markup. Numeric columns (by
dtype, or named in `num`) are right-aligned; floats print without a trailing ".0" and with at most
four decimals.
"""

from __future__ import annotations

import html
import math
from urllib.parse import urlencode

import numpy as np
import pandas as pd

from ingest.outputs.mdtable import blank

CSS = """<style>
table.frl-q{border-collapse:collapse;width:100%;font-size:13px;table-layout:auto}
table.frl-q caption{caption-side:top;text-align:left;color:#666;font-size:12px;padding:2px 0 4px}
table.frl-q th{text-align:left;background:#fafafa;border-bottom:1px solid #ddd;padding:5px;position:sticky;top:0}
table.frl-q td{border-bottom:1px solid #eee;padding:5px;vertical-align:top;white-space:normal;overflow-wrap:break-word}
table.frl-q td.nw{white-space:nowrap}
table.frl-q td.q{min-width:320px}
table.frl-q .n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.frl-qwrap{max-height:70vh;overflow:auto;content-visibility:auto;contain-intrinsic-size:auto 400px}
p.frl-note{color:rgba(49,51,63,.6);font-size:14px;margin:0 0 1rem}
</style>"""


def subheading(text: str) -> str:
    """A section's title inside an HTML block (an `<h3>`, as `st.subheader` draws): drawn in one element
    with the table under it. A subheader is a Markdown element, which costs a rerun several times what
    an HTML block does in the browser (bench/rerun_elements.py)."""
    return f"<h3>{html.escape(text)}</h3>"


def note(text: str) -> str:
    """A caption inside an HTML block (as `subheading`), in the colours of `st.caption`."""
    return f'<p class="frl-note">{html.escape(text)}</p>'


def link(page: str, text: str, **params: object) -> str:
    """An app-internal link (same tab) built from ids."""
    q = urlencode({k: str(v) for k, v in params.items() if not blank(v) and str(v) != ""})
    return f'<a href="{page}?{q}" target="_self">{html.escape(text)}</a>'


def see_link(rid: str, row: dict, quote: object) -> str:
    """The "see the page" link of a quote (ids and the quote text only; the Source page resolves the file)."""
    page = row.get("page_no", row.get("page"))
    if not isinstance(quote, str) or not quote or blank(page):
        return ""
    return link("source", "see the page", report=rid, p=int(page), q=quote[:400])  # type: ignore[call-overload]


def text_of(v: object) -> str:
    """A cell as a reader sees it: blank for missing, whole numbers without '.0', yes/no for booleans."""
    if blank(v):
        return ""
    if isinstance(v, bool | np.bool_):
        return "yes" if v else "no"
    if isinstance(v, float) and math.isfinite(v):
        return str(int(v)) if v.is_integer() else f"{v:.4f}".rstrip("0").rstrip(".")
    return str(v)


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def table(
    df: pd.DataFrame,
    wide: tuple[str, ...] = ("Quote",),
    raw: tuple[str, ...] = (),
    *,
    num: tuple[str, ...] = (),
    caption: str = "",
) -> str:
    """The frame as an HTML table; `wide` columns get room to wrap, `raw` columns are trusted markup,
    numeric columns (by dtype, or named in `num`) are right-aligned; `caption` is plain text above it."""
    cls: list[str] = []
    for c in df.columns:
        cls.append("q" if c in wide else "nw" if c in raw else "n" if c in num or _numeric(df[c]) else "")
    attr = [f' class="{k}"' if k else "" for k in cls]
    heads = zip(df.columns, cls, attr, strict=True)
    head = "".join(f"<th{a if k == 'n' else ''}>{html.escape(str(c))}</th>" for c, k, a in heads)
    raw_at = [c in raw for c in df.columns]
    rows = []
    for rec in df.itertuples(index=False, name=None):
        cells = "".join(
            f"<td{a}>{'' if blank(v) else str(v) if r else html.escape(text_of(v))}</td>"
            for v, a, r in zip(rec, attr, raw_at, strict=True)
        )
        rows.append(f"<tr>{cells}</tr>")
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    table = f'<table class="frl-q">{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    return f'{CSS}<div class="frl-qwrap">{table}</div>'


def bare(table_html: str) -> str:
    """A `table` without its CSS, for a page that draws `CSS` once outside its fragment: every `<style>` a
    rerun inserts makes the browser restyle the whole page."""
    return table_html.removeprefix(CSS)


def page_of(row: dict | pd.Series) -> str:
    """The page as a reader cites it: the printed label when there is one, else the PDF page number."""
    lab, num = row.get("page_label"), row.get("page")
    if not blank(lab) and str(lab):
        return str(lab)
    return "" if blank(num) else str(int(num)) if isinstance(num, float | int) else str(num)
