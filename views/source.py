"""Source page ("see the page"): a quote where it stands — the PDF page with the sentence highlighted,
or the Markdown/HTML block it comes from.

The URL names a report id, a page number and the quote; the file is the report's own ingested
source (ingest.outputs.pageimage checks its stored SHA-256), never a path from the URL. Every
value from the report or the URL is shown as plain text (views/plain.py) or escaped HTML.
"""

from __future__ import annotations

import html
import re

import streamlit as st

from ingest.outputs import pageimage
from ingest.run.isolate import isolate
from ingest.store.store import Store
from views import data, htmltable, nav
from views.plain import escape_md, message


def render() -> None:
    """Draw the page."""
    st.title("Source page")
    tbl, _ = data.tables()
    if data.no_data_notice(tbl):
        return
    reports = tbl["reports"]
    rid = st.query_params.get("report", "")
    quote = st.query_params.get("q", "")[:400]
    try:
        page = int(st.query_params.get("p", "1"))
    except ValueError:
        page = 1
    hit = reports[reports["report_id"] == rid]
    if hit.empty:
        if rid:
            nav.no_such_report(rid[:64])
        st.info("Open this page from a quote on the Evidence or Report page (“see the page”).")
        return
    row = hit.iloc[0].to_dict()
    st.subheader(escape_md(f"{row['model']} — page {page}"))  # a model name is report text: never Markdown
    st.markdown(htmltable.link("evidence", "← back to the evidence", report=rid), unsafe_allow_html=True)
    if quote:
        st.text(f"Quote: “{quote}”")  # from the URL: plain text, never Markdown or HTML
    store = Store(data.data_dir())
    kind = row.get("kind")
    if kind == "pdf":
        path = pageimage.source_file(store, row)
        if path is None:
            message(
                "warning", "The source file is not available (or changed since it was ingested), so the page cannot be shown."
            )
            return
        try:
            with st.spinner("rendering the page…"):
                img = pageimage.render_pdf_page(path, row["sha256"], page, quote, isolate=isolate)
        except pageimage.RenderRefused as exc:
            message("warning", str(exc))
            return
        if quote and not img.boxes:
            st.caption("The quote was not found verbatim in this page's text layer; the page is shown unmarked.")
        st.image(img.png, width="stretch")  # from memory: nothing is written to disk
        return
    block = pageimage.block_text(store, row, page)
    if block is None:
        message("warning", "The stored text of this source is not available.")
        return
    heading, text = block
    body = html.escape(text)
    if quote:
        pat = re.escape(html.escape(re.sub(r"\s+", " ", quote).strip())).replace(r"\ ", r"\s+")
        body = re.sub(pat, lambda m: f"<mark>{m.group(0)}</mark>", body, count=1, flags=re.IGNORECASE)
    st.markdown(f"**{escape_md(heading)}**")
    st.html(f'<div style="white-space:pre-wrap;font-size:14px;line-height:1.5">{body}</div>')


if __name__ == "__main__":
    render()
