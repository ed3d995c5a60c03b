"""The dashboard against hostile pages, links and stores.

render     (round 2) PDFs whose page is 7,200 to 20,000 pt square, opened with "see the page"
read-only  (round 2) Source-page links with ever new quotes, and every page with Markdown/HTML in
           its query string, with FRL_READ_ONLY=1: no file written, no live reference to another host
pages      (round 3) every page with long, Unicode and path-like query parameters; unknown report ids
           in a URL (said, never another report shown); a YAML paste over the limit (said, not an
           empty box); a report that failed to ingest (marked failed on Compare, not "not assessed");
           Timeline and Indicators over reports dated 0001-01-01 and 9999-12-31 with counts of 10^18
"""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml
from bad_input_cases import HANG_SECONDS, Catalogue, Check, rss_mb
from reportlab.pdfgen import canvas
from streamlit.testing.v1 import AppTest

from ingest.analysis.lens import load_lens
from ingest.outputs import pageimage
from ingest.outputs import timeline as tl
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.run.isolate import isolate
from ingest.store.store import Store
from views import compare, nav

VIEWS = Path(__file__).resolve().parents[1] / "views"
APP = str(Path(__file__).resolve().parents[1] / "app.py")
#: Payloads with a link, an image or a tag to another host (also used by the exports family).
PAYLOADS = [
    '=HYPERLINK("http://evil.example/x","click")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    '<img src="http://evil.example/i.png">',
    "![pixel](http://evil.example/p.png) [link](http://evil.example/)",
    "\tline one\rline two\nthree\u2028four\u2029end",
]
#: Query parameter values a link may carry (round 3).
QUERY_VALUES = {
    "long": "x" * 20_000,
    "unicode": "İ\u202e\u0000\ud7ff🙂\u2028",
    "path": "../../../../etc/passwd",
    "encoded-path": "..%2F..%2Fdata%2Fresults",
}
QUERY_KEYS = ("report", "rid", "dim", "term", "section", "q", "p", "old", "new", "table", "cols", "org", "doc", "group", "scope")


@contextmanager
def dashboard_env(root: Path, read_only: bool = True) -> Iterator[None]:
    """The app's environment pointed at `root` (data/ and reports/), restored afterwards."""
    env = {"FRL_DATA_DIR": str(root / "data"), "FRL_REPORTS_DIR": str(root / "reports")}
    if read_only:
        env["FRL_READ_ONLY"] = "1"
    saved = {k: os.environ.get(k) for k in (*env, "FRL_READ_ONLY")}
    os.environ.pop("FRL_READ_ONLY", None)
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def page(file: str, params: dict[str, str]) -> tuple[AppTest, float]:
    """A page run as a link opens it, and how much this process grew meanwhile (MB)."""
    before = rss_mb()
    at = AppTest.from_file(str(VIEWS / file), default_timeout=90)
    at.query_params.update(params)
    at.run()
    return at, rss_mb() - before


def errors(at: AppTest) -> list[str]:
    return [str(e.value)[:120] for e in at.exception]


def texts(at: AppTest) -> str:
    return " ".join(str(t.value) for t in at.text)


# -------------------------------------------------------------------------------------------- render
def _square_pdf(path: Path, side: float) -> None:
    c = canvas.Canvas(str(path), pagesize=(side, side))
    c.setFont("Helvetica", 12)
    c.drawString(40, side - 60, "The agent uses a tool and gets a reward.")
    c.showPage()
    c.save()


def render_family(cat: Catalogue, work: Path) -> Path:
    """Returns the render store's root (the read-only family reuses it)."""
    root = work / "render"
    reports = root / "reports"
    reports.mkdir(parents=True)
    sides = {"page-612pt": 612, "page-7200pt": 7200, "page-14400pt": 14400, "page-20000pt": 20000}
    for name, side in sides.items():
        _square_pdf(reports / f"{name}.pdf", side)
        spec = {
            "id": name,
            "model": PAYLOADS[5],
            "organization": PAYLOADS[4],
            "doc_type": "other",
            "source": {"path": f"{name}.pdf"},
        }
        (reports / f"{name}.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    run(reports_dir=reports, settings=Settings(data_dir=root / "data", jobs=1))
    store = Store(root / "data")
    rows = store.read_table("reports").set_index("report_id")
    for name in sides:

        def one(name: str = name) -> Check:
            row = rows.loc[name].to_dict()
            pdf = pageimage.source_file(store, row)
            if pdf is None:
                return Check(False, "source not found")
            before, t0 = rss_mb(), time.perf_counter()
            pageimage.PEAKS.mb = 0.0
            try:
                img = pageimage.render_pdf_page(pdf, row["sha256"], 1, "The agent uses a tool", isolate=isolate)
                msg = f"{len(img.png):,} bytes PNG at scale {img.scale:.2f}, {img.boxes} boxes"
            except pageimage.RenderRefused as exc:
                msg = f"refused: {exc}"
            took = time.perf_counter() - t0
            peak = max(pageimage.PEAKS.mb, rss_mb() - before)
            return Check(took <= HANG_SECONDS, f"{msg} ({took:.1f} s)", peak_mb=peak, process="render process")

        cat.add(2, "render", name, one)
    return root


# ----------------------------------------------------------------------------------------- read-only
def _files(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for d, _s, names in os.walk(root):
        for n in names:
            st = os.stat(os.path.join(d, n))
            out[os.path.join(d, n)] = (st.st_size, st.st_mtime_ns)
    return out


def live_refs(at: AppTest) -> int:
    """Rendered Markdown/HTML bodies with a live image, link or tag from the payloads."""
    n = 0
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader"):
        for e in at.get(kind):
            live = re.sub(r"\\.", "", str(e.value))
            n += len(re.findall(r"!\[|\]\(|<img", live)) if "evil" in live or "127.0.0.1:9" in live else 0
    for e in at.get("html"):
        n += len(re.findall(r"<img[^>]*evil|href=\"?https?://evil", e.proto.body))
    return n


def read_only_family(cat: Catalogue, work: Path, render_root: Path) -> None:
    hostile = PAYLOADS[5] + " " + PAYLOADS[4]
    pages = [("source.py", {"report": "page-7200pt", "p": "1", "q": f"{hostile} {i}"}, f"source-link-{i + 1}") for i in range(12)]
    params = dict.fromkeys(("report", "q", "rq", "rid", "dim", "term", "section", "group", "scope"), hostile)
    pages += [
        (f, params | {"report": "page-612pt", "rid": "page-612pt", "p": "1"}, f"page-{n}") for n, (f, *_) in nav.PAGES.items()
    ]
    with dashboard_env(render_root):
        for file, qp, name in pages:

            def one(file: str = file, qp: dict = qp) -> Check:
                before = _files(work)
                at, grew = page(file, qp)
                written = sum(1 for k, v in _files(work).items() if before.get(k) != v)
                refs, errs = live_refs(at), errors(at)
                return Check(not errs and not written and not refs, f"files written {written}, live refs {refs} {errs}",
                             wrong=written, other_hosts=refs, peak_mb=grew, process="dashboard (growth)")  # fmt: skip

            cat.add(2, "read-only", name, one)


# ------------------------------------------------------------------------------------------- round 3
def hostile_store(root: Path) -> Path:
    """Reports dated 0001-01-01 and 9999-12-31, counts of 10^18, a 5,000-character model name, a report
    that fails to ingest, and ordinary ones; ingested offline. Returns `root`."""
    reports = root / "reports"
    reports.mkdir(parents=True)
    (root / "post.md").write_text("# Post\n\nThe agent uses a tool and a reward.\n", encoding="utf-8")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    specs = [
        {"id": "ancient", "released": "0001-01-01", "reported": {"from": "x", "words": 0, "counts": {"agent": 10**18}}},
        {"id": "far", "released": "9999-12-31", "reported": {"from": "x", "words": 1, "counts": {"agent": 10**18}}},
        {"id": "huge", "model": "H" * 5000, "released": "2025-06-01", "reported": {"from": "x", "words": 10**18,
                                                                                   "counts": {"agent": 10**18}}},
        {"id": "normal", "released": "2025-05-01", "source": {"path": str(root / "post.md")}},
        {"id": "broken", "released": "2025-07-01", "source": {"path": str(root / "broken.pdf")}},
    ]  # fmt: skip
    for s in specs:
        spec = {"model": s["id"].title(), "organization": "\u202eLab", "doc_type": "other", **s}
        (reports / f"{s['id']}.yaml").write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
    run(reports_dir=reports, settings=Settings(data_dir=root / "data", source_roots=(root,), offline=True))
    return root


def pages_family(cat: Catalogue, work: Path) -> None:
    root = hostile_store(work / "pages")
    with dashboard_env(root):
        for kind, value in QUERY_VALUES.items():
            for name, (file, *_) in nav.PAGES.items():

                def one(file: str = file, value: str = value) -> Check:
                    at, grew = page(file, dict.fromkeys(QUERY_KEYS, value))
                    html = "".join(el.proto.body for el in at.get("html"))
                    leaked = "/etc/passwd" in html or "Traceback" in texts(at)
                    return Check(not errors(at) and not leaked, f"errors {errors(at)}", wrong=int(leaked), peak_mb=grew,
                                 process="dashboard (growth)")  # fmt: skip

                cat.add(3, "pages", f"query-{kind}-{name}", one)
        for file in ("report.py", "evidence.py", "source.py"):

            def unknown(file: str = file) -> Check:
                at, grew = page(file, {"report": "dapoo", "dim": load_lens().ids[0]})
                said = "No report with id 'dapoo'" in texts(at)
                shown = "Normal" in "".join(el.proto.body for el in at.get("html"))  # another report in its place
                return Check(said and not shown and not errors(at), f"said {said}, another shown {shown} {errors(at)}",
                             wrong=int(shown or not said), peak_mb=grew, process="dashboard (growth)")  # fmt: skip

            cat.add(3, "pages", f"unknown-id-{file[:-3]}", unknown)
        cat.add(3, "pages", "timeline-dates-0001-and-9999", lambda: _timeline(root))
        cat.add(3, "pages", "compare-marks-a-failed-ingest", lambda: _compare(root))
    with dashboard_env(root, read_only=False):
        cat.add(3, "pages", "yaml-paste-407KB", _paste)


def _timeline(root: Path) -> Check:
    at, grew = page("timeline.py", {})
    store = Store(root / "data")
    df, undated = tl.timeline(store.read_table("reports"), {}, store.read_table("reported"), store.read_table("counts"), "agent",
                              today=dt.date.today())  # fmt: skip
    placed = set(df["month"]) <= set(tl.months_between(df["month"].min(), df["month"].max())) if len(df) else True
    apart = {"ancient", "far"} <= set(undated)
    ok = placed and apart and not errors(at)
    return Check(ok, f"every placed month on the axis {placed}, 0001/9999 listed apart {apart} {errors(at)}",
                 wrong=int(not (placed and apart)), peak_mb=grew, process="dashboard (growth)")  # fmt: skip


def _compare(root: Path) -> Check:
    store = Store(root / "data")
    lens = load_lens()
    wide = compare.wide_table(store.read_table("reports"), store.read_table("comparison"), lens.ids, store.read_table("status"))
    cell = wide.set_index("report_id").loc["broken", f"_{lens.ids[0]}"]
    marked = cell == [compare.INGEST_FAILED]
    at, grew = page("compare.py", {})
    return Check(marked and not errors(at), f"failed report's cells {cell} {errors(at)}", wrong=int(not marked), peak_mb=grew,
                 process="dashboard (growth)")  # fmt: skip


def _paste() -> Check:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.switch_page("views/add_report.py").run()
    at.radio(key="add_mode").set_value("YAML").run()
    at.text_area(key="add_yaml").set_value(
        "id: big\nmodel: B\norganization: L\ndoc_type: blog\nnotes: |\n  " + "a" * 407_000 + "\n"
    )
    at.button[0].click().run()
    said = "too large" in texts(at) and "262,144 bytes" in texts(at)
    return Check(said and not errors(at), f"said the limit {said} {errors(at)}", wrong=int(not said))
