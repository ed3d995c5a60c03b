"""Export neutralisers: text from reports made inert in CSV (spreadsheets) and Markdown (renderers).

Every exported value can come from a hostile report file, a curated cell, a table cell or a
document sentence. A spreadsheet runs a CSV cell beginning with `=`, `+`, `-`, `@`, tab or
carriage return as a formula (`=HYPERLINK(...)`, `+cmd|...`), so, as OWASP recommends, such a
cell gets a leading single quote; a real number (a float column, or text that is just a number
such as `-2.5`) stays a number. A Markdown renderer turns raw HTML into tags (`<img src=...>`
fetches from another host) and `![..](..)` / `[..](..)` into images and links, and a line break
ends a table row, so Markdown text is HTML-escaped, its link brackets backslash-escaped and its
line breaks (CR, LF, U+2028/9 and the other Unicode breaks) turned into spaces.

One module so the CLI's exports, the report card and the dashboard's downloads share one rule.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

#: First characters a spreadsheet reads as the start of a formula (OWASP CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: Text that is just a number (`-2`, `+3.5e-2`): left as it is, a spreadsheet reads it as a number.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?")
#: Arrow regex of a cell to neutralise: a formula start not followed by a plain number.
_ARROW_FORMULA = r"^[=+\-@\t\r]"
_ARROW_NUMBER = r"^[+-]?(?:\d+(?:[.,]\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?$"
#: Every line break a Markdown renderer or an editor may honour (str.splitlines' set).
_BREAKS = re.compile(r"\r\n|[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_MD_SPECIAL = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|", "[": "\\[", "]": "\\]", "`": "\\`"})


def is_formula(text: str) -> bool:
    """True when a spreadsheet would run `text` as a formula (and it is not a plain number)."""
    return text.startswith(FORMULA_START) and not _NUMBER.fullmatch(text)


def csv_cell(v: object) -> object:
    """One CSV value: text that a spreadsheet would run gets a leading `'`; anything else unchanged.

    A carriage return inside text becomes a line feed: pandas' writer quotes a cell holding a line
    feed but not one holding a bare CR, which a spreadsheet would read as the end of the row.
    """
    if not isinstance(v, str):
        return v
    if is_formula(v):
        v = "'" + v
    return v.replace("\r\n", "\n").replace("\r", "\n") if "\r" in v else v


def csv_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The frame with every text cell (and the index and column names) neutralised; numbers untouched."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype) in ("string", "str", "category"):
            s = out[col].astype(object) if str(out[col].dtype) == "category" else out[col]
            out[col] = s.map(csv_cell)
    out.columns = [csv_cell(c) if isinstance(c, str) else c for c in out.columns]
    if out.index.dtype == object:
        out.index = out.index.map(csv_cell)
    return out


def to_csv(df: pd.DataFrame, index: bool = False) -> str:
    """`df.to_csv` with formula cells neutralised: the one way the CLI and the dashboard write CSV."""
    return csv_frame(df).to_csv(index=index)


def arrow_neutral(tb: pa.Table) -> pa.Table:
    """An Arrow table with its text columns neutralised (dictionary columns in their dictionary)."""
    import pyarrow as pa  # deferred: callers that neutralise pandas frames never need pyarrow.compute (bench/import_costs.py)
    import pyarrow.compute as pc

    def fix(arr: pa.Array) -> pa.Array:
        if pa.types.is_dictionary(arr.type):
            return pa.DictionaryArray.from_arrays(arr.indices, fix(arr.dictionary))
        if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
            return arr
        bad = pc.and_(pc.match_substring_regex(arr, _ARROW_FORMULA), pc.invert(pc.match_substring_regex(arr, _ARROW_NUMBER)))
        if not pc.any(bad).as_py():
            return arr
        quoted = pc.binary_join_element_wise(pa.scalar("'", arr.type), arr, pa.scalar("", arr.type))
        return pc.if_else(bad, quoted, arr)

    cols = []
    for col in tb.columns:
        cols.append(pa.chunked_array([fix(c) for c in col.chunks], type=col.type) if col.num_chunks else col)
    return pa.Table.from_arrays(cols, schema=tb.schema)


def md_text(v: object) -> str:
    """Text for Markdown: one line, HTML escaped, link/image brackets, pipes and backticks escaped."""
    return _BREAKS.sub(" ", str(v)).translate(_MD_SPECIAL)
