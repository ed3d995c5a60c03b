"""Scale of the store (issue 12 §3): a synthetic store of N reports, each figure beside its target.

    .venv/bin/python bench/scale.py                   # 10,000 reports, ~40 pages each worth of rows
    .venv/bin/python bench/scale.py --reports 500     # a quicker run
    .venv/bin/python bench/scale.py --keep /tmp/s10k  # keep (and on a re-run reuse) the store

Rows are generated directly (no PDFs): per report 3 sections, every lexicon term × 4 sections of
counts, ~10 KWIC hits per page, a comparison cell and 3 evidence sentences per lens dimension,
written as real bundles; the initial tables come from `ingest.tables.rebuild_tables`. Then:

* add one report end to end: a new Markdown report through `pipeline.ingest_report` (fetch,
  extract, sections, keywords, annotate, bundle) plus the incremental table update (target ≤ 2 s).
  The registry is built in memory: parsing 10,000 YAML files is the registry's cost, printed
  separately when `--yaml` is given;
* `python -m ingest export --table counts --out FILE` as a fresh process (target ≤ 5 s);
* the dashboard's first render reads, in a fresh process, through views/data.py's functions
  (reports, status, reported, comparison and counts whole; one report's KWIC and evidence):
  wall time and peak RSS (target ≤ 2 GB; the browser timing is bench/app_speed.py's).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ingest.lens import Lens, load_lens  # noqa: E402
from ingest.lexicon import load_lexicon  # noqa: E402
from ingest.registry import Registry, load_registry  # noqa: E402
from ingest.schema import ReportSpec  # noqa: E402
from ingest.store import Store, dumps  # noqa: E402
from ingest.tables import rebuild_tables  # noqa: E402

WORDS = [
    "agentic",
    "reinforcement",
    "learning",
    "with",
    "verifiable",
    "rewards",
    "trains",
    "the",
    "policy",
    "on",
    "tool",
    "use",
    "in",
    "a",
    "sandbox",
]
ORGS = ("Lab A", "Lab B", "Lab C", "Lab D", "Lab E")
DOC_TYPES = ("arxiv", "github-pdf", "blog", "other")


def spec_for(i: int, reports_dir: Path) -> tuple[ReportSpec, str]:
    rid = f"s{i:05d}"
    fields = {"id": rid, "model": f"Synthetic {i}", "organization": ORGS[i % len(ORGS)], "doc_type": DOC_TYPES[i % 4],
              "source": {"path": f"{rid}.pdf"}, "params": f"{i % 300 + 1}B"}  # fmt: skip
    spec = ReportSpec.model_validate(fields)
    return spec, str(reports_dir / f"{rid}.yaml")


def synth_bundle(spec: ReportSpec, yaml_path: str, rnd: random.Random, terms: list, lens: Lens, pages: int) -> dict:
    """A bundle shaped like pipeline.ingest_report's, with ~`pages` pages worth of rows."""
    words = {"body": pages * 500, "appendix": pages * 60, "references": pages * 80}
    words["all"] = sum(words.values())
    body_end, ref_end = int(pages * 0.8), int(pages * 0.9)
    spans = [("body", 1, body_end, ""), ("references", body_end + 1, ref_end, "References"),
             ("appendix", ref_end + 1, pages, "Appendix A")]  # fmt: skip
    sections = [{"section": n, "start_page": a, "end_page": b, "heading": h, "words": words[n]} for n, a, b, h in spans]
    counts, kwic = [], []
    for group, term, rule in terms:
        total = 0
        for sec in ("body", "appendix", "references"):
            n = rnd.randrange(0, 6)
            total += n
            counts.append({"group": group, "term": term, "rule": rule, "section": sec, "count": n, "words": words[sec],
                           "density": round(n * 1000 / words[sec], 4)})  # fmt: skip
        counts.append({"group": group, "term": term, "rule": rule, "section": "all", "count": total, "words": words["all"],
                       "density": round(total * 1000 / words["all"], 4)})  # fmt: skip
    for k in range(pages * 10):
        group, term, _ = terms[rnd.randrange(len(terms))]
        page = 1 + k // 10
        sec = "body" if page <= body_end else "references" if page <= ref_end else "appendix"
        kwic.append({"group": group, "term": term, "section": sec, "page": page, "page_label": str(page),
                     "left": " ".join(rnd.choices(WORDS, k=8)), "match": term, "right": " ".join(rnd.choices(WORDS, k=8)),
                     "offset": 1000 * k})  # fmt: skip
    cells, evidence = {}, []
    for d in lens.dimensions:
        cat = d.values[rnd.randrange(len(d.values))] if d.values else "not disclosed"
        quote = f"We use {cat} for training ({' '.join(rnd.choices(WORDS, k=12))})."
        cells[d.id] = {"value": [cat], "confidence": 0.7, "quote": quote, "page": 5, "page_label": "5", "section": "body",
                       "indicators": ["reward source named"], "why": "synthetic"}  # fmt: skip
        evidence += [{"dimension": d.id, "category": cat, "rank": r + 1, "score": 1.0 - r / 10, "quote": quote,
                      "page": 5 + r, "page_label": str(5 + r), "section": "body"} for r in range(3)]  # fmt: skip
    meta = {
        "report_id": spec.id, "fingerprint": "synthetic", "sha256": f"{rnd.getrandbits(256):064x}", "origin": "local",
        "final_url": None, "kind": "pdf", "engine": "pdfium", "pages": pages, "words": words["all"],
        "word_rule": "whitespace", "notes": [], "spec": spec.model_dump(mode="json", by_alias=True),
        "yaml_path": yaml_path, "ingested_at": "2026-01-01T00:00:00+00:00",
    }  # fmt: skip
    ann = {"lens": lens.id, "lens_fingerprint": lens.fingerprint, "cells": cells, "evidence": evidence}
    return {"meta": meta, "sections": sections, "counts": counts, "kwic": kwic, "annotation": ann}


def generate(root: Path, reports_dir: Path, n: int, pages: int, lens: Lens) -> Registry:
    """Write n bundles and statuses (skipped when `root` already holds them) and return the registry."""
    store = Store(root)
    lexicon = load_lexicon()
    terms = [(g.id, t.name, t.rule) for g in lexicon.groups for t in g.terms]
    rnd = random.Random(12)
    reg = Registry()
    have = set(store.bundle_ids())
    for i in range(n):
        spec, yp = spec_for(i, reports_dir)
        reg.reports.append(spec)
        reg.paths[spec.id] = Path(yp)
        if spec.id in have:
            continue
        bundle = synth_bundle(spec, yp, rnd, terms, lens, pages)
        store.bundle_dir.mkdir(parents=True, exist_ok=True)
        (store.bundle_dir / f"{spec.id}.json.gz").write_bytes(gzip.compress(dumps(bundle), compresslevel=1))
        store.status_dir.mkdir(parents=True, exist_ok=True)
        status = {"report_id": spec.id, "status": "ok", "message": "synthetic", "seconds": 0.1,
                  "finished_at": "2026-01-01T00:00:00+00:00", "file": yp}  # fmt: skip
        (store.status_dir / f"{spec.id}.json").write_bytes(json.dumps(status).encode())
    return reg


def add_one(root: Path, reports_dir: Path, reg: Registry, lens: Lens) -> tuple[float, float, object]:
    """Write a new Markdown report and take it through the real pipeline plus the table update."""
    from ingest.pipeline import Settings, ingest_report

    reports_dir.mkdir(parents=True, exist_ok=True)
    rid = f"new-{int(time.time() * 1000)}"
    text = "# Training\n\n" + "\n\n".join(
        f"## Part {k}\n\nWe adopt GRPO with verifiable rewards from unit tests; the agentic policy uses tools. " * 5
        for k in range(40)
    )
    (reports_dir / f"{rid}.md").write_text(text)
    yaml_path = reports_dir / f"{rid}.yaml"
    yaml_path.write_text(f"id: {rid}\nmodel: New\norganization: Lab N\ndoc_type: blog\nsource:\n  path: {rid}.md\n")
    spec = ReportSpec.model_validate(
        {"id": rid, "model": "New", "organization": "Lab N", "doc_type": "blog", "source": {"path": f"{rid}.md"}}
    )
    store = Store(root)
    t0, c0 = time.perf_counter(), time.process_time()
    out = ingest_report(spec, yaml_path, store, load_lexicon(), Settings(data_dir=root, source_roots=(reports_dir,)), lens)
    assert out.status == "ok", out.message
    reg.reports.append(spec)
    reg.paths[spec.id] = yaml_path
    with store.lock():
        stats = rebuild_tables(store, reg, lens)
    return time.perf_counter() - t0, time.process_time() - c0, stats


DASHBOARD = """
import json, os, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from views import data
tbl, key = data.tables()
for name in ("reports", "status", "reported", "comparison", "counts"):
    tbl[name]
rid = tbl["reports"]["report_id"].iloc[0]
k1 = data.kwic_rows(rid, "agentic")
ev = data.evidence_rows(rid, "rl_algorithm")
t1, c1 = time.perf_counter(), time.process_time()
k2 = data.kwic_rows(None, "GRPO")
t2, c2 = time.perf_counter(), time.process_time()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"first": t1 - t0, "term_all": t2 - t1, "first_cpu": c1 - c0, "term_all_cpu": c2 - c1, "rss_mb": rss,
                  "counts": len(tbl["counts"]), "kwic_one": len(k1), "kwic_term": len(k2)}))
"""


def dashboard(root: Path) -> dict:
    env = {"FRL_DATA_DIR": str(root), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    res = subprocess.run([sys.executable, "-c", DASHBOARD], env=env, cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def export_counts(root: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of a fresh `python -m ingest export` process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "ingest", "export", "--table", "counts", "--data-dir", str(root), "--out", str(out)]
    subprocess.run(cmd, cwd=REPO, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def line(figure: str, value: str, target: str = "", ok: bool | None = None) -> None:
    mark = "" if ok is None else ("ok" if ok else "MISSED")
    print(f"{figure:<46} {value:>16}   {target:<10} {mark}")


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reports", type=int, default=10_000, help="reports in the synthetic store (default 10000)")
    p.add_argument("--pages", type=int, default=40, help="pages worth of rows per report (default 40)")
    p.add_argument("--keep", type=Path, default=None, help="store folder to keep and reuse (default: a temp folder)")
    p.add_argument("--yaml", action="store_true", help="also write the YAML files and time load_registry on them")
    args = p.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="frl-scale-"))
    root, reports_dir = work / "data", work / "reports"
    lens = load_lens()
    figures: dict = {}
    try:
        t0 = time.perf_counter()
        reg = generate(root, reports_dir, args.reports, args.pages, lens)
        gen = time.perf_counter() - t0
        store = Store(root)
        t0 = time.perf_counter()
        with store.lock():
            first = rebuild_tables(store, reg, lens)
        build = time.perf_counter() - t0
        m = store.manifest()
        rows = {n: sum(p.rows for p in t.parts.values()) for n, t in m.tables.items()}
        size = sum(p.size for t in m.tables.values() for p in t.parts.values())
        print(f"store: {args.reports:,} reports × ~{args.pages} pages: " + ", ".join(f"{n} {r:,}" for n, r in rows.items()))
        line("generate bundles (bench setup)", f"{gen:.1f} s")
        line(f"build tables ({first.bundles_read:,} bundles read)", f"{build:.1f} s")
        line("stored parts", f"{size / 1e6:.0f} MB")
        secs, cpu, stats = add_one(root, reports_dir, reg, lens)
        written = stats.parts_written  # type: ignore[attr-defined]
        line("add one report end to end", f"{secs:.2f} s", "≤ 2 s", secs <= 2)
        line("  its CPU time", f"{cpu:.2f} s")
        line("  parts rewritten / bundles read", f"{written} / {stats.bundles_read}")  # type: ignore[attr-defined]
        ex, ex_cpu = export_counts(root, work / "counts.csv")
        line(f"export --table counts ({rows['counts']:,} rows)", f"{ex:.2f} s", "≤ 5 s", ex <= 5)
        line("  its CPU time (user + system)", f"{ex_cpu:.2f} s")
        dash = dashboard(root)
        line("dashboard first-render reads (in-process)", f"{dash['first']:.2f} s")
        line("  their CPU time", f"{dash['first_cpu']:.2f} s")
        line("  one term's KWIC across all reports", f"{dash['term_all']:.2f} s (cpu {dash['term_all_cpu']:.2f} s)")
        line("dashboard peak memory (RSS)", f"{dash['rss_mb']:.0f} MB", "≤ 2048 MB", dash["rss_mb"] <= 2048)
        if args.yaml:
            for spec in reg.reports:
                yp = reg.paths[spec.id]
                if not yp.exists():
                    yp.write_text(f"id: {spec.id}\nmodel: {spec.model}\norganization: {spec.organization}\n"
                                  f"doc_type: {spec.doc_type}\nsource:\n  path: {spec.id}.pdf\n")  # fmt: skip
            t0 = time.perf_counter()
            load_registry(reports_dir)
            line("registry: parse every YAML (not the store's)", f"{time.perf_counter() - t0:.2f} s")
        load = os.getloadavg()[0]
        print(f"load average {load:.1f} on {os.cpu_count()} cores: wall times above include waiting for the CPU")
        figures = {"add_one": secs, "add_one_cpu": cpu, "export_cpu": ex_cpu}
        figures |= {"export_counts": ex, "dashboard": dash, "build": build, "parts_written": written}
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"(peak RSS of this process, incl. the initial build: {rss:.0f} MB; {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC)")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return figures


if __name__ == "__main__":
    main()
