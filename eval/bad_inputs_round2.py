"""Bad inputs, second round (issue 23): the families eval/bad_inputs.py runs after its catalogue.

    fetch      compressed bodies in two and three layers (up to 1.5 GiB inside, a few KB on the
               wire), a server sending its headers one byte at a time (also with the default
               download limit and a 5 s `--timeout`)
    render     PDFs whose page is 7,200 to 20,000 pt square, opened with "see the page"
    read-only  Source-page links with ever new quotes and every dashboard page with Markdown/HTML
               in its query string, with FRL_READ_ONLY=1
    exports    formula and HTML payloads in every kind of field (metadata, reported notes, curated
               cells, curated results, document headings and sentences), through every export
    yaml-caps  pasted YAML of 2, 4 and 20 MB, and 256 KB of tiny values
    no-loss    delete / re-add / delete; a Review decision during an ingest; a full disk while the
               tables are written (then a plain run) and while a bundle is written

Each input is a `Finding`; `Metrics` counts what issue 23's acceptance names.
"""

from __future__ import annotations

import csv
import errno
import io
import os
import re
import resource
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from reportlab.pdfgen import canvas
from streamlit.testing.v1 import AppTest

from ingest.outputs import curate, export, neutral, pageimage, report_card, tables
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.sources import fetch
from ingest.sources.fetch import FetchSettings
from ingest.store.store import Store
from tests.local_http import LocalServer
from views import nav
from views.add_report import DELETED_DIR, delete_report, spec_from_fields, spec_from_yaml, write_report

HANG_SECONDS = 10.0
PAYLOADS = [
    '=HYPERLINK("http://evil.example/x","click")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    '<img src="http://evil.example/i.png">',
    "![pixel](http://evil.example/p.png) [link](http://evil.example/)",
    "\tline one\rline two\nthree\u2028four\u2029end",
]
FIELDS = ("metadata", "reported", "curated", "results", "heading", "sentence")
VIEWS = Path(__file__).resolve().parents[1] / "views"


@dataclass
class Finding:
    family: str
    name: str
    ok: bool
    message: str
    seconds: float
    crash: bool = False

    @property
    def hang(self) -> bool:
        """Over the limit: for a fetch, the report's own time (in its message), else the wall time."""
        own = re.search(r"\(report ([0-9.]+) s", self.message)
        return (float(own.group(1)) if own else self.seconds) > HANG_SECONDS and self.family != "exports"


@dataclass
class Metrics:
    findings: list[Finding] = field(default_factory=list)
    data_lost: int = 0
    stale_tables: int = 0
    formula_cells: int = 0
    raw_html_md: int = 0
    other_host_refs: int = 0
    ro_files_written: int = 0
    peak_mb: dict[str, float] = field(default_factory=dict)

    def add(self, family: str, name: str, fn: Callable[[], tuple[bool, str]]) -> None:
        t0 = time.perf_counter()
        try:
            ok, msg = fn()
            crash = "internal error" in msg or "Traceback" in msg
        except Exception:
            ok, msg, crash = False, traceback.format_exc(limit=4), True
        self.findings.append(Finding(family, name, ok, msg, time.perf_counter() - t0, crash))

    def peak(self, what: str, mb: float) -> None:
        self.peak_mb[what] = max(self.peak_mb.get(what, 0.0), mb)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --------------------------------------------------------------------------------------------- fetch
def fetch_family(m: Metrics, work: Path, server: LocalServer) -> None:
    reports = work / "fetch" / "reports"
    reports.mkdir(parents=True)
    # (3 s per download, as the catalogue's URL cases use short limits; the default is 300 s, capped by --timeout)
    fast = FetchSettings(connect_timeout=1, read_timeout=1, total_timeout=3, retries=0, allow_private_hosts=True)
    default = FetchSettings(allow_private_hosts=True)  # 300 s download limit: the report's --timeout must win
    cases = [
        # Decoded within the cap: 64 MiB of zeros behind a PDF header, which pdfium reads for over
        # 10 s before it gives up (13.5 s for the whole report in one run of this eval without a
        # short timeout); --timeout 8 bounds the whole report, download and work together.
        ("gzip,gzip-64MiB-timeout-8", "/encoded/gzip,gzip/64", fast, {"timeout": 8}, ("unreadable pdf", "longer than"), False),
        ("gzip,gzip-1GiB", "/encoded/gzip,gzip/1024", fast, {}, ("size cap",), False),
        ("gzip,gzip-1.5GiB", "/encoded/gzip,gzip/1536", fast, {}, ("size cap",), False),
        ("gzip-1GiB", "/encoded/gzip/1024", fast, {}, ("size cap",), False),
        ("gzip,gzip,gzip-1MiB", "/encoded/gzip,gzip,gzip/1", fast, {}, ("compressed 3 times",), False),
        ("gzip,gzip,gzip-1GiB", "/encoded/gzip,gzip,gzip/1024", fast, {}, ("compressed 3 times",), False),
        ("headers-byte-by-byte", "/drip-headers", fast, {}, ("too slow",), False),
        ("headers-byte-by-byte-timeout-5", "/drip-headers", default, {"timeout": 5}, ("too slow",), False),
        ("gzip,gzip-1GiB-timeout-5", "/encoded/gzip,gzip/1024", default, {"timeout": 5}, ("size cap", "too slow"), False),
    ]
    for i, (name, path, fs, extra, words, may_pass) in enumerate(cases):
        rid = f"f{i}"
        (reports / f"{rid}.yaml").write_text(
            yaml.safe_dump(
                {"id": rid, "model": rid, "organization": "L", "doc_type": "other", "source": {"url": server.url(path)}}
            ),
            encoding="utf-8",
        )

        def one(rid: str = rid, fs: FetchSettings = fs, extra: dict = extra, words: tuple = words, may: bool = may_pass):
            before = _rss_mb()
            t0 = time.perf_counter()
            settings = Settings(data_dir=work / "fetch" / "data", fetch_settings=fs, jobs=1, **extra)
            (o,) = run(files=[reports / f"{rid}.yaml"], reports_dir=reports, settings=settings).outcomes
            took = time.perf_counter() - t0
            m.peak("main process growth during a fetch", _rss_mb() - before)
            clear = (not o.failed and may) or (o.failed and any(w in o.message.lower() for w in words))
            # The report's own time (download and work), as the catalogue counts it; the run's
            # start-up and table rebuild come on top.
            return (
                clear and o.seconds <= HANG_SECONDS,
                f"{o.status}: {o.message[:110]} (report {o.seconds:.1f} s, run {took:.1f} s)",
            )

        m.add("fetch", name, one)
    m.peak("download processes", fetch.PEAKS.mb)


# -------------------------------------------------------------------------------------------- render
def _square_pdf(path: Path, side: float) -> None:
    c = canvas.Canvas(str(path), pagesize=(side, side))
    c.setFont("Helvetica", 12)
    c.drawString(40, side - 60, "The agent uses a tool and gets a reward.")
    c.showPage()
    c.save()


def render_family(m: Metrics, work: Path) -> Path:
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

        def one(name: str = name):
            row = rows.loc[name].to_dict()
            pdf = pageimage.source_file(store, row)
            if pdf is None:
                return False, "source not found"
            before = _rss_mb()
            t0 = time.perf_counter()
            try:
                img = pageimage.render_pdf_page(pdf, row["sha256"], 1, "The agent uses a tool")
                msg = f"{len(img.png):,} bytes PNG at scale {img.scale:.2f}, {img.boxes} boxes"
            except pageimage.RenderRefused as exc:
                msg = f"refused: {exc}"
            took = time.perf_counter() - t0
            m.peak("dashboard process growth during a render", _rss_mb() - before)
            return took <= HANG_SECONDS, f"{msg} ({took:.1f} s)"

        m.add("render", name, one)
    m.peak("render processes", pageimage.PEAKS.mb)
    return root


# ----------------------------------------------------------------------------------------- read-only
_LIVE = re.compile(r"!\[|\]\(|<img|<a\s|href=\"?https?://evil", re.IGNORECASE)


def _files(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for d, _s, names in os.walk(root):
        for n in names:
            st = os.stat(os.path.join(d, n))
            out[os.path.join(d, n)] = (st.st_size, st.st_mtime_ns)
    return out


def _live_refs(at: object) -> int:
    """Rendered Markdown/HTML bodies with a live image, link or tag from the payloads."""
    n = 0
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader"):
        for e in at.get(kind):  # type: ignore[attr-defined]
            live = re.sub(r"\\.", "", str(e.value))
            n += len(re.findall(r"!\[|\]\(|<img", live)) if "evil" in live or "127.0.0.1:9" in live else 0
    for e in at.get("html"):  # type: ignore[attr-defined]
        n += len(re.findall(r"<img[^>]*evil|href=\"?https?://evil", e.proto.body))
    return n


def read_only_family(m: Metrics, work: Path, render_root: Path) -> None:

    env = {"FRL_DATA_DIR": str(render_root / "data"), "FRL_REPORTS_DIR": str(render_root / "reports"), "FRL_READ_ONLY": "1"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    hostile = PAYLOADS[5] + " " + PAYLOADS[4]
    try:
        pages = [
            ("source.py", {"report": "page-7200pt", "p": "1", "q": f"{hostile} {i}"}, f"source-link-{i + 1}") for i in range(12)
        ]
        params = dict.fromkeys(("report", "q", "rq", "rid", "dim", "term", "section", "group", "scope"), hostile)
        pages += [
            (f, params | {"report": "page-612pt", "rid": "page-612pt", "p": "1"}, f"page-{n}") for n, (f, *_) in nav.PAGES.items()
        ]
        for file, qp, name in pages:

            def one(file: str = file, qp: dict = qp):
                before, rss = _files(work), _rss_mb()
                at = AppTest.from_file(str(VIEWS / file), default_timeout=60)
                at.query_params.update(qp)
                at.run()
                m.peak("dashboard process growth during a page", _rss_mb() - rss)
                written = sum(1 for k, v in _files(work).items() if before.get(k) != v)
                refs = _live_refs(at)
                m.ro_files_written += written
                m.other_host_refs += refs
                errs = [str(e.value)[:100] for e in at.exception]
                return not errs and not written and not refs, f"files written {written}, live refs {refs} {errs}"

            m.add("read-only", name, one)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# ------------------------------------------------------------------------------------------- exports
def _hostile_spec(rid: str, payload: str, where: str) -> dict:
    spec: dict = {"id": rid, "model": rid, "organization": "Lab", "doc_type": "other", "source": {"path": f"{rid}.md"}}
    if where == "metadata":
        spec.update(model=payload + " model", organization=payload, country=payload, params=payload, notes=payload)
    elif where == "reported":
        spec["reported"] = {"from": payload, "words": 100, "counts": {"agentic": 1}, "notes": {"agentic": payload}}
    elif where == "curated":
        spec["curated"] = {"rl_algorithm": {"value": payload, "detail": payload, "quote": payload, "notes": payload}}
    elif where == "results":
        spec["results"] = [{"benchmark": payload, "model": payload, "value": payload, "metric": payload, "setting": payload,
                            "page": 1, "figure": payload, "notes": payload}]  # fmt: skip
    return spec


def _doc(payload: str, where: str) -> str:
    heading = f"## {payload} agentic" if where == "heading" else "## Method"
    sentence = f"{payload} The agent uses GRPO with a verifiable reward and a tool." if where == "sentence" else ""
    return f"# Introduction\n\nThe agent uses a tool and gets a reward.\n\n{heading}\n\n{sentence}\nAgentic training.\n"


def _count_csv(text: str) -> int:
    return sum(neutral.is_formula(c) for row in csv.reader(io.StringIO(text, newline="")) for c in row)


def _count_md(text: str) -> int:
    live = re.sub(r"\\.", "", text)
    return len(re.findall(r"<\s*[a-zA-Z/!]", text)) + len(re.findall(r"\]\(", live)) + text.count("\r") + text.count("\u2028")


def exports_family(m: Metrics, work: Path) -> None:
    root = work / "exports"
    reports = root / "reports"
    reports.mkdir(parents=True)
    ids = []
    for i, payload in enumerate(PAYLOADS):
        for where in FIELDS:
            rid = f"x{i}-{where}"
            ids.append(rid)
            (reports / f"{rid}.md").write_text(_doc(payload, where), encoding="utf-8")
            (reports / f"{rid}.yaml").write_text(
                yaml.safe_dump(_hostile_spec(rid, payload, where), allow_unicode=True), encoding="utf-8"
            )
    t0 = time.perf_counter()
    res = run(reports_dir=reports, settings=Settings(data_dir=root / "data", offline=True))
    store = Store(root / "data")
    outs: dict[str, str] = {}
    for name, build in export.TABLES.items():
        df = build(store)
        outs[f"{name}.csv"] = export.render(df, "csv")
        outs[f"{name}.md"] = export.render(df, "md")
    for name in export.ARROW_CSV:
        out = root / f"{name}.arrow.csv"
        export.write_table(store, name, "csv", out)
        outs[out.name] = out.read_bytes().decode("utf-8")
    for rid in ids:
        outs[f"card-{rid}.md"] = report_card.report_card(store, rid)
    took = time.perf_counter() - t0
    by_id = {o.report_id: o for o in res.outcomes}
    for rid in ids:
        bad_csv = sum(_count_csv(t) for n, t in outs.items() if n.endswith(".csv") and rid in t)
        bad_md = sum(_count_md(t) for n, t in outs.items() if n.endswith(".md") and rid in t)
        o = by_id.get(rid)
        msg = f"{o.status if o else 'no outcome'}; formula cells {bad_csv}, raw HTML/links/breaks {bad_md}"
        m.findings.append(
            Finding("exports", rid, not bad_csv and not bad_md and o is not None and not o.failed, msg, took / len(ids))
        )
    m.formula_cells += sum(_count_csv(t) for n, t in outs.items() if n.endswith(".csv"))
    m.raw_html_md += sum(_count_md(t) for n, t in outs.items() if n.endswith(".md"))


# ----------------------------------------------------------------------------------------- yaml caps
def yaml_family(m: Metrics) -> None:
    head = "id: x\nmodel: m\norganization: o\ndoc_type: blog\n"
    cases = {
        "paste-2MB": head + "notes: |\n  " + "a" * (2 << 20) + "\n",
        "paste-4MB": head + "tags: [" + ",".join(["a"] * (2 << 20)) + "]\n",
        "paste-20MB": head + "notes: |\n  " + "a" * (20 << 20) + "\n",
        "256KB-of-values": head + "tags: [" + ",".join(["a"] * 120_000) + "]\n",
        "256KB-of-keys": "".join(f"k{i}: 1\n" for i in range(25_000)),
    }
    for name, text in cases.items():

        def one(text: str = text, name: str = name):
            before = _rss_mb()
            t0 = time.perf_counter()
            try:
                spec_from_yaml(text[: 256 * 1024] if name.startswith("256KB") else text)
                msg = "accepted"
            except Exception as exc:
                msg = str(exc)[:140]
            took = time.perf_counter() - t0
            m.peak("main process growth while parsing pasted YAML", _rss_mb() - before)
            return took < 2 and msg != "accepted", f"{msg} ({took:.2f} s)"

        m.add("yaml-caps", name, one)


# ------------------------------------------------------------------------------------------- no loss
def _agent_count(store: Store, rid: str) -> int:
    c = store.read_table("counts")
    hit = c[(c["report_id"] == rid) & (c["term"] == "agent") & (c["section"] == "all")]
    return int(hit["count"].iloc[0]) if len(hit) else -1


def no_loss_family(m: Metrics, work: Path) -> None:
    root = work / "noloss"
    reports = root / "reports"
    reports.mkdir(parents=True)
    text = "# Intro\n\n" + "The agent acts. " * 4 + "\n"
    (reports / "r.md").write_text(text, encoding="utf-8")
    (reports / "r.yaml").write_text(yaml.safe_dump({"id": "r", "model": "R", "organization": "L", "doc_type": "other",
                                                    "source": {"path": "r.md"}}), encoding="utf-8")  # fmt: skip
    (reports / "s.yaml").write_text(yaml.safe_dump({"id": "s", "model": "S", "organization": "L", "doc_type": "other",
                                                    "source": {"path": "r.md"}}), encoding="utf-8")  # fmt: skip
    settings = Settings(data_dir=root / "data", offline=True, jobs=1)
    run(reports_dir=reports, settings=settings)

    def delete_twice():
        for model in ("First", "Second"):
            write_report(spec_from_fields({"id": "same", "model": model, "organization": "L", "doc_type": "blog"}), reports)
            delete_report("same", reports)
        kept = [p.read_text(encoding="utf-8") for p in (reports / DELETED_DIR).glob("same.*.yaml")]
        lost = 2 - sum(any(mm in k for k in kept) for mm in ("First", "Second"))
        m.data_lost += lost
        return not lost, f"{len(kept)} deleted files kept"

    def decision_during_ingest():
        def meanwhile(items):  # type: ignore[no-untyped-def]
            for n, item in enumerate(items):
                if n == 0:
                    curate.record_decision(reports / "r.yaml", "rl_algorithm", "PPO", note="during a run")
                    run(files=[reports / "r.yaml"], reports_dir=reports, settings=settings)
                yield item

        (reports / "s.md").write_text(text + "more\n", encoding="utf-8")
        (reports / "s.yaml").write_text((reports / "s.yaml").read_text().replace("r.md", "s.md"), encoding="utf-8")
        run(reports_dir=reports, settings=settings, progress=meanwhile)
        c = Store(settings.data_dir).read_table("comparison")
        cell = c[(c["report_id"] == "r") & (c["dimension"] == "rl_algorithm")].iloc[0]
        ok = cell["origin"] == "curated"
        m.stale_tables += not ok
        return ok, f"table cell origin {cell['origin']}"

    def disk_full_tables():
        (reports / "r.md").write_text(text + "One more agent.\n", encoding="utf-8")
        real = tables.rebuild_tables

        def full(*_a: object, **_k: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        tables.rebuild_tables = full  # type: ignore[assignment]
        try:
            run(reports_dir=reports, settings=settings)
        except OSError:
            pass
        finally:
            tables.rebuild_tables = real  # type: ignore[assignment]
        run(reports_dir=reports, settings=settings)
        n = _agent_count(Store(settings.data_dir), "r")
        m.stale_tables += n != 5
        return n == 5, f"counts after the next plain run: {n} (the text has 5)"

    def disk_full_bundle():
        (reports / "r.md").write_text(text + "changed\n", encoding="utf-8")
        real = Store.save_bundle

        def full(*_a: object, **_k: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        Store.save_bundle = full  # type: ignore[method-assign]
        try:
            (o,) = run(files=[reports / "r.yaml"], reports_dir=reports, settings=settings).outcomes
        finally:
            Store.save_bundle = real  # type: ignore[method-assign]
        n = _agent_count(Store(settings.data_dir), "r")
        m.data_lost += n != 5
        return o.failed and "no space left" in o.message and n == 5, o.message[:140]

    m.add("no-loss", "delete-readd-delete", delete_twice)
    m.add("no-loss", "review-decision-during-ingest", decision_during_ingest)
    m.add("no-loss", "disk-full-during-tables-then-plain-run", disk_full_tables)
    m.add("no-loss", "disk-full-during-bundle-write", disk_full_bundle)


def run_round2(work: Path, server: LocalServer) -> Metrics:
    """Every family of issue 23; `work` is a scratch folder."""
    m = Metrics()
    fetch_family(m, work, server)
    render_root = render_family(m, work)
    read_only_family(m, work / "render", render_root)
    exports_family(m, work)
    yaml_family(m)
    no_loss_family(m, work)
    return m


def report(m: Metrics, verbose: bool) -> list[str]:
    """Lines for eval/bad_inputs.py's summary."""
    lines = []
    for f in m.findings:
        if verbose or not f.ok or f.crash:
            lines.append(f"{'ok ' if f.ok else 'BAD'} {f.family:9s} {f.name:38s} {f.seconds:5.2f}s  {f.message[:150]}")
    fams: dict[str, int] = {}
    for f in m.findings:
        fams[f.family] = fams.get(f.family, 0) + 1
    lines.append("")
    lines.append(f"round 2 inputs tried: {len(m.findings)}  ({', '.join(f'{k} {v}' for k, v in fams.items())})")
    lines.append(f"round 2 inputs handled as expected: {sum(f.ok for f in m.findings)}")
    lines.append(f"round 2 crashes: {sum(f.crash for f in m.findings)}")
    hangs = [f for f in m.findings if f.hang]
    lines.append(f"round 2 hangs (an input over {HANG_SECONDS:.0f} s, fetches and pages included): {len(hangs)}")
    for what, mb in sorted(m.peak_mb.items()):
        lines.append(f"round 2 peak memory, {what}: {mb:.0f} MB")
    lines.append(f"round 2 data lost: {m.data_lost}")
    lines.append(f"round 2 stale tables: {m.stale_tables}")
    lines.append(f"round 2 formula cells in exports: {m.formula_cells}")
    lines.append(f"round 2 raw HTML, live links or line breaks in Markdown exports: {m.raw_html_md}")
    lines.append(f"round 2 live references to other hosts on dashboard pages: {m.other_host_refs}")
    lines.append(f"round 2 files written in read-only mode: {m.ro_files_written}")
    return lines


def passed(m: Metrics) -> bool:
    hangs = [f for f in m.findings if f.hang]
    return not (
        any(f.crash or not f.ok for f in m.findings) or hangs or m.data_lost or m.stale_tables or m.formula_cells or m.raw_html_md
        or m.other_host_refs or m.ro_files_written or max(m.peak_mb.values(), default=0) > 1024
    )  # fmt: skip
