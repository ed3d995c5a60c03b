"""Incoming page: the reports `python -m ingest discover` proposed (reports/incoming/), to accept or dismiss.

Accept moves the proposal into the reports folder (the next ingest reads it); dismiss deletes it
and remembers its URL so discover does not propose it again. Every field is shown as plain text.
A read-only dashboard ($FRL_READ_ONLY) lists the proposals without the buttons. The page never
makes a network request: finding candidates is the command's job.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ingest.sources.discover import ProposalError, move_proposal, proposals
from views import data, htmltable
from views.plain import escape_md, message


def _row(spec) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {
        "Id": spec.id,
        "Model": spec.model,
        "Organization (guessed)": spec.organization,
        "Released": str(spec.released or ""),
        "Type": spec.doc_type,
        "Source": spec.source.url if spec.source and spec.source.url else "",
        "Notes": spec.notes or "",
    }


def _act(rid: str, accept: bool) -> None:
    """Button callback: accept or dismiss, and leave the outcome for the next run to show."""
    try:
        st.session_state["incoming_msg"] = ("success", move_proposal(data.reports_dir(), data.data_dir(), rid, accept))
    except (ProposalError, OSError) as exc:
        st.session_state["incoming_msg"] = ("error", str(exc))


def render() -> None:
    """Draw the page."""
    st.title("Incoming")
    st.caption("Reports proposed by python -m ingest discover. Check each one, then accept or dismiss it.")
    if "incoming_msg" in st.session_state:
        message(*st.session_state.pop("incoming_msg"))
    found, errors = proposals(data.reports_dir())
    for e in errors:
        message("warning", e)
    if not found:
        st.caption("No proposals waiting (run python -m ingest discover).")
        return
    st.html(htmltable.table(pd.DataFrame([_row(s) for s in found]), wide=("Notes",)))
    if data.read_only():
        st.caption("This dashboard is read-only: accept or dismiss with python -m ingest discover --accept/--dismiss ID.")
        return
    for spec in found:
        with st.container(horizontal=True, vertical_alignment="center"):
            st.markdown(escape_md(f"{spec.id}: {spec.model} ({spec.organization})"), width="stretch")
            st.button("Accept", key=f"acc_{spec.id}", on_click=_act, args=(spec.id, True))
            st.button("Dismiss", key=f"dis_{spec.id}", on_click=_act, args=(spec.id, False))


if __name__ == "__main__":
    render()
