"""Changes page: what changed between two versions of a report (`/changes?report=<id>&old=<label>&new=<label>`).

The versions are the report's stored readings (`ingest.store.history`): older ones kept when a
re-ingest found a changed source, and declared versions `python -m ingest diff` has read. The
page shows the typed diff of `ingest.outputs.diff` — pages and words, keyword counts per
section, comparison cells with their evidence, result tables, and sentences with the lens's terms
— as plain-text tables. It reads the store only; it never fetches a version.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from ingest import versions
from ingest.outputs.diff import ReportDiff, changed_reports, stored_diff
from ingest.sources.registry import SpecFileError, load_report
from ingest.sources.schema import ReportSpec
from ingest.store import history
from ingest.store.store import Store
from ingest.versions import Listed
from views import data, htmltable, nav
from views.plain import escape_md


@st.cache_data(show_spinner=False, max_entries=8)
def _changed(root: str, key: data.Stamp, marks: tuple[tuple[str, int], ...]) -> dict[str, tuple[str, ...]]:
    return changed_reports(Store(root))


def _history_marks(root: str) -> tuple[tuple[str, int], ...]:
    """Cheap change marker of the history folder: each report folder's name and mtime."""
    folder = Store(root).results_dir / "history"
    try:
        return tuple(sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir()))
    except OSError:
        return ()


def changed() -> dict[str, tuple[str, ...]]:
    """Reports whose latest version changed a comparison cell (cached per store generation and history)."""
    root = data.data_dir()
    _, key = data.tables()
    return _changed(str(root), key, _history_marks(str(root)))


def compare_note() -> None:
    """The Compare page's mark: one line naming the reports whose latest version changed a cell, each a
    link to its Changes view (nothing when there are none)."""
    found = changed()
    if not found:
        return
    models, _ = data.names()
    links = ", ".join(htmltable.link("changes", f"{models.get(r, r)} ({len(d)})", report=r) for r, d in found.items())
    st.html(f'<div class="frl-changed" style="font-size:13px">Changed in their latest version (cells): {links}</div>')


def _spec(rid: str) -> ReportSpec | None:
    """The report's file, for its declared versions and `released:` date (None when it is gone or
    unreadable: the stored readings are still listed, by the day they were read)."""
    path = data.reports_dir() / f"{rid}.yaml"
    try:
        return load_report(path) if path.is_file() else None
    except (SpecFileError, OSError):
        return None


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


@st.cache_data(show_spinner=False, max_entries=32)
def _versions(
    root: str, rid: str, marks: tuple[tuple[str, int], ...], spec_mtime: int
) -> tuple[list[Listed], dict[str, str]]:  # fmt: skip
    """The stored versions as `diff --list` lists them (each with its own date and where the date
    comes from), and the labels that name them (cached per history and report-file change)."""
    store, spec = Store(root), _spec(rid)
    if spec is None:
        found = history.versions(store, rid)
        return [Listed(v.label, v.sha256, v.ingested_at[:10], "read", v.current, v.origin) for v in found], {}
    return [x for x in versions.listing(store, spec) if x.sha256], versions.labels(store, spec)


@st.cache_resource(show_spinner=False, max_entries=16)
def _diff(
    root: str, rid: str, old: str, new: str, lens_id: str, marks: tuple[tuple[str, int], ...], labels: tuple[tuple[str, str], ...]
) -> ReportDiff | None:  # fmt: skip
    return stored_diff(Store(root), rid, data.lens(), old, new, labels=dict(labels))


def _frames(d: ReportDiff) -> dict[str, pd.DataFrame]:
    """The diff's parts as tables for the page (plain text; empty parts left out)."""
    labels = data.dim_labels()
    out: dict[str, pd.DataFrame] = {}
    nums = ([d.pages] if d.pages else []) + list(d.words)
    if nums:
        out["Pages and words"] = pd.DataFrame([{"What": n.what, d.old_label: n.old, d.new_label: n.new} for n in nums])
    if d.cells:
        out["Comparison cells"] = pd.DataFrame(
            [
                {
                    "Dimension": labels.get(c.dimension, c.dimension),
                    "Change": "value" if c.value_changed else "evidence",
                    "Was": ", ".join(c.old_value) or "-",
                    "Now": ", ".join(c.new_value) or "-",
                    "Quote before": f"p. {c.old_page}: {c.old_quote}" if c.old_quote else "",
                    "Quote now": f"p. {c.new_page}: {c.new_quote}" if c.new_quote else "",
                }
                for c in d.cells
            ]
        )
    if d.results:
        out["Result tables"] = pd.DataFrame(
            [
                {"Change": r.kind, "Benchmark": r.benchmark, "Model": r.model, "Metric": r.metric, "Setting": r.setting,
                 "Was": r.old or "", "Now": r.new or ""}
                for r in d.results
            ]
        )  # fmt: skip
    if d.sentences:
        out["Sentences with the lens's terms"] = pd.DataFrame(
            [
                {"Change": s.kind, "Page": s.page, "Dimensions": ", ".join(labels.get(x, x) for x in s.dimensions),
                 "Quote": s.text}
                for s in d.sentences
            ]
        )  # fmt: skip
    if d.keywords:
        rows = [{"Term in section": k.what, d.old_label: k.old, d.new_label: k.new} for k in d.keywords]
        out["Keyword counts"] = pd.DataFrame(rows)
    return out


def render() -> None:
    """Draw the page."""
    st.title("Changes")
    tbl, _ = data.tables()
    if data.no_data_notice(tbl):
        return
    root = str(data.data_dir())
    marks = _history_marks(root)
    models, order = data.names()
    with_history = [r for r in order if r in {name for name, _ in marks}]
    if not with_history:
        st.caption(
            "No report has two stored versions yet. A re-ingest that finds a changed source keeps the older "
            "reading; versions declared in a report's `versions:` are read with python -m ingest diff."
        )
        return
    asked = nav.unknown_id("report", with_history)
    if asked is not None:
        nav.no_such_report(asked)
    rid = nav.select("Report", with_history, "report", lambda r: models.get(r, r), **({"index": None} if asked else {}))
    if rid is None:
        return
    found, named = _versions(root, rid, marks, _mtime(data.reports_dir() / f"{rid}.yaml"))
    if len(found) < 2:
        st.caption("This report has one stored version.")
        return
    labels = [f.label for f in found]
    shown = {f.label: f"{f.label} ({f.date or 'undated'}, {f.dated}{', current' if f.current else ''})" for f in found}
    c1, c2 = st.columns(2)
    new = nav.select("New version", labels[::-1], "new", shown.get, where=c2)
    older = [x for x in labels[::-1] if x != new] or labels
    old = nav.select("Old version", older, "old", shown.get, where=c1)
    d = _diff(root, rid, old, new, data.lens().id, marks, tuple(sorted(named.items())))
    if d is None:
        st.caption("These versions cannot be read from the store.")
        return
    st.header(escape_md(f"{models.get(rid, rid)}: {old} → {new}"))
    if d.empty:
        st.caption("No differences between these versions.")
    for title, frame in _frames(d).items():
        st.subheader(title)
        st.html(htmltable.table(frame, wide=("Quote", "Quote before", "Quote now")))
    for n in d.notes:
        st.caption(escape_md(n))


if __name__ == "__main__":
    render()
