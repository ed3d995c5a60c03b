"""Tables as GitHub-flavoured Markdown (no extra dependency such as tabulate).

Its own module so that exports, the report card and the dashboard share it without importing
each other.
"""

from __future__ import annotations

import pandas as pd

from ingest.outputs.neutral import md_text


def blank(v: object) -> bool:
    """None, NaN, pandas' NA or NaT: a missing value, printed as an empty cell (never `<NA>`)."""
    try:
        return v is None or bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def md_cell(v: object) -> str:
    """One cell: missing values empty, one line, HTML, pipes and link brackets escaped (`neutral.md_text`)."""
    if blank(v):
        return ""
    return md_text(v)


def to_markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table."""
    cols = [md_cell(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(md_cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"
