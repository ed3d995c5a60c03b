"""One report as a Markdown card: metadata, figures, comparison cells with quotes, sections, top terms."""

from __future__ import annotations

from ingest.analysis.lens import Lens
from ingest.outputs.distinctive import distinctive_terms
from ingest.outputs.mdtable import blank, to_markdown
from ingest.outputs.neutral import md_text
from ingest.outputs.stats import stats_frame
from ingest.outputs.study_tables import lens_of
from ingest.store.store import Store

META: tuple[tuple[str, str], ...] = (
    ("organization", "organization"), ("country", "country"), ("released", "released"), ("document", "doc_type"),
    ("arXiv", "arxiv_id"), ("parameters", "params"), ("source", "source_url"), ("notes", "notes"),
)  # fmt: skip

#: What "verified" says about a report's result tables, on the Benchmarks page and in the report card.
VERIFIED_MEANS = (
    "Verified: the page's own words put every value beside its row label and under its column headers, "
    "each name is read once and each benchmark's values share one format."
)


def report_card(store: Store, report_id: str, lens: Lens | None = None) -> str:
    """The card of one report (KeyError for an unknown id); dimension labels come from the lens."""
    reports = store.read_table("reports", report_ids=[report_id])
    hit = reports[reports["report_id"] == report_id] if not reports.empty else reports
    if hit.empty:
        raise KeyError(f"unknown report {report_id!r}")
    r = hit.iloc[0]
    lines = [f"# {md_text(r['model'])}", ""]
    for label, col in META:
        v = r.get(col)
        if not blank(v) and str(v):
            lines.append(f"- **{label}**: {md_text(v)}")
    lines.append(f"- **measured**: {'yes' if bool(r.get('measured')) else 'no (reported figures only)'}")
    lines += ["", "## Figures", ""]
    # Filtered reads: only this report's rows of the per-report tables are loaded.
    reported = store.read_table("reported", report_ids=[report_id])
    counts_one = store.read_table("counts", report_ids=[report_id])
    for src in ("reported", "measured"):
        st_ = stats_frame(hit, reported, counts_one, source=src)
        if "figures" in st_.columns and (st_["figures"] != src).all():
            continue
        lines += [f"{src.capitalize()}:", "", to_markdown(st_.drop(columns="figures", errors="ignore").drop(columns="model"))]
    cmp_ = store.read_table("comparison", report_ids=[report_id])
    lens = lens or lens_of(cmp_)
    labels = {d.id: d.label for d in lens.dimensions}
    cmp_ = cmp_[cmp_["report_id"] == report_id] if not cmp_.empty else cmp_
    lines += ["## Comparison", ""]
    for c in cmp_.to_dict("records"):
        origin = c.get("origin") or "none"
        label = md_text(labels.get(c["dimension"], c["dimension"]))
        lines.append(f"### {label}: {md_text(c.get('value'))} ({md_text(origin)})")
        if isinstance(c.get("detail"), str) and c["detail"]:
            lines.append(f"- the study's wording: {md_text(c['detail'])}")
        if c.get("disagree") is True:
            lines.append(f"- disagreement: automatic reading says {md_text(c.get('auto_value'))}")
        if isinstance(c.get("quote"), str) and c["quote"]:
            where = c.get("page_label") if not blank(c.get("page_label")) else c.get("page")
            lines.append(f"- quote (p. {md_text(where)}): \u201c{md_text(c['quote'])}\u201d")
        if isinstance(c.get("notes"), str) and c["notes"]:
            lines.append(f"- notes: {md_text(c['notes'])}")
        lines.append("")
    ev = store.read_table("evidence", report_ids=[report_id])
    if not ev.empty:
        ev = ev[ev["report_id"] == report_id]
        if len(ev):
            ev = ev.assign(dimension=ev["dimension"].map(lambda d: labels.get(d, d)))
            ev = ev[["dimension", "category", "page_label", "section", "quote"]].rename(columns={"page_label": "page"})
            lines += ["## Evidence", "", to_markdown(ev)]

    lines += card_section(
        store.read_table("results", report_ids=[report_id]), store.read_table("result_notes", report_ids=[report_id]), report_id
    )
    secs = store.read_table("sections", report_ids=[report_id])
    secs = secs[secs["report_id"] == report_id] if not secs.empty else secs
    if len(secs):
        lines += ["## Sections", "", to_markdown(secs[["section", "heading", "start_page", "end_page", "words"]])]
    top = distinctive_terms(store.read_table("counts", filters=[("section", "==", "all")]), report_id)
    if len(top):
        lines += ["## Distinctive terms (TF-IDF against the other reports)", "", to_markdown(top)]
    return "\n".join(lines).rstrip() + "\n"


def card_section(results, notes, report_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Markdown lines of a report card's "Benchmark results": one pivot (benchmark × model) per
    table with its page, the curated scores apart, and the notes (images-only pages, flags)."""
    lines: list[str] = []
    df = results[results["report_id"] == report_id] if len(results) else results
    nt = notes[notes["report_id"] == report_id] if len(notes) else notes
    if not len(df) and not len(nt):
        return lines
    lines += ["## Benchmark results", ""]
    if len(df):
        auto = df[df["origin"] == "auto"]
        for (page, label), t in auto.groupby(["page", "table"], sort=False):
            cap = t["caption"].iloc[0] or ""
            lines += [f"### {md_text(label)} (page {md_text(page)}): {md_text(cap)}", ""]
            t = t.assign(
                row=[
                    " ".join(x for x in (b, f"({m})" if m else "", s) if x)
                    for b, m, s in zip(t["benchmark"], t["metric"], t["setting"], strict=False)
                ]
            )
            t = t.assign(col=[f"{m} ★" if o else m for m, o in zip(t["model"], t["own"], strict=False)])
            piv = t.pivot_table(index="row", columns="col", values="value", aggfunc="first", sort=False).reset_index()
            piv = piv.rename(columns={"row": "benchmark"})
            lines += [to_markdown(piv.fillna(""))]
            flags = sorted({f for f in t["flag"] if f})
            if flags:
                lines += ["Needs review (not every number verified): " + "; ".join(md_text(f) for f in flags), ""]
            else:
                lines += [VERIFIED_MEANS, ""]
        cur = df[df["origin"] == "curated"]
        if len(cur):
            lines += [
                "### Curated scores",
                "",
                to_markdown(cur[["benchmark", "model", "metric", "setting", "value", "page", "table", "notes"]]),
            ]
        lines += ["★ = the report's own model.", ""]
    for n in nt["note"] if len(nt) else []:
        lines.append(f"- {md_text(n)}")
    if len(nt):
        lines.append("")
    return lines
