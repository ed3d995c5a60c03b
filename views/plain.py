"""Plain-text messages for the dashboard: user- and file-derived text is never rendered as Markdown.

`st.error`, `st.warning`, `st.info`, `st.success`, `st.caption` and headers render their text as
Markdown, so a pasted path like `![x](http://host/t.png)` becomes an image the visitor's browser
fetches, and underscores in an id vanish into italics. Every message that can carry text from a
report file, a form field, an upload or an error goes through `message` instead: the icon is a
fixed string, the text is an `st.text` element (no Markdown, no HTML). Text that must sit in a
Markdown element (a header) goes through `escape_md`. `redact` turns server paths into short
names (the reports/data folder's name, or `…/file-name`), so no absolute path is shown.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import streamlit as st

from views import folders

Kind = Literal["error", "warning", "info", "success"]
#: Fixed Markdown for the icon of each kind (never built from input).
ICONS: dict[str, str] = {
    "error": ":red[:material/error:]",
    "warning": ":orange[:material/warning:]",
    "info": ":blue[:material/info:]",
    "success": ":green[:material/check_circle:]",
}
_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character: CommonMark escapes them all
#: An absolute POSIX path not inside a URL (not preceded by a host, scheme or path character).
_ABS_PATH = re.compile(r"(?<![\w.:/~%-])/(?:[^\s/'\"`()\[\]<>|,;]+/)+([^\s/'\"`()\[\]<>|,;]*)")


def escape_md(text: object) -> str:
    """Text that Markdown shows literally: every ASCII punctuation backslash-escaped, lines kept apart."""
    lines = str(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # Leading spaces would start an indented code block (where escapes show as backslashes).
    return "  \n".join(_PUNCT.sub(r"\\\1", line.strip()) for line in lines)


def _known_folders() -> list[tuple[str, str]]:
    """(absolute path, short name) for the folders the app knows, longest first."""
    named: list[tuple[Path, str]] = [
        (folders.reports_dir(), folders.reports_dir().name),
        (folders.data_dir(), folders.data_dir().name),
    ]
    named += [(r, r.name) for r in folders.source_roots()]
    named += [(folders.REPO, ".")]
    out: dict[str, str] = {}
    for p, name in named:
        for form in {str(p.absolute()), os.path.realpath(p)}:
            if len(form) > 1:
                out.setdefault(form, name or ".")
    return sorted(out.items(), key=lambda kv: -len(kv[0]))


def redact(text: object, folders: Iterable[tuple[str, str]] | None = None) -> str:
    """`text` with server paths shortened: known folders by their name, any other absolute path to `…/name`."""
    s = str(text)
    for full, name in _known_folders() if folders is None else folders:
        s = re.sub(re.escape(full) + r"(?=[/\s'\"`),;:]|$)", lambda _m, n=name: n, s)
    return _ABS_PATH.sub(lambda m: "…/" + m.group(1), s)


def message(kind: Kind, text: object) -> None:
    """Show an error/warning/info/success line as plain text (no Markdown, no HTML, no server paths)."""
    box = st.container(border=True, horizontal=True, gap="small", vertical_alignment="center")
    box.markdown(ICONS[kind], width="content")
    box.text(redact(text), width="stretch")


def plotly_text(text: object) -> str:
    """Report text for plotly labels and hovers, which read a subset of HTML (<a>, <span style>): escaped."""
    return html.escape("" if text is None else str(text), quote=False)
