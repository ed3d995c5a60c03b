"""Formula and HTML payloads in every kind of field (metadata, reported notes, curated cells, curated
results, document headings and sentences), through every export (round 2): no cell a spreadsheet
runs as a formula, no raw HTML, live link or line break in a Markdown export (each a silent wrong
result), no reference to another host left live."""

from __future__ import annotations

import csv
import io
import re
import time
from pathlib import Path

import yaml
from bad_input_cases import Catalogue, Check
from bad_input_dashboard import PAYLOADS

from ingest.outputs import export, neutral, report_card
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store

FIELDS = ("metadata", "reported", "curated", "results", "heading", "sentence")


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


def exports_family(cat: Catalogue, work: Path) -> None:
    root = work / "exports"
    reports = root / "reports"
    reports.mkdir(parents=True)
    ids = []
    for i, payload in enumerate(PAYLOADS):
        for where in FIELDS:
            rid = f"x{i}-{where}"
            ids.append(rid)
            (reports / f"{rid}.md").write_text(_doc(payload, where), encoding="utf-8")
            spec = _hostile_spec(rid, payload, where)
            (reports / f"{rid}.yaml").write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
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
    each = (time.perf_counter() - t0) / len(ids)  # one batch for all: its time shared out
    by_id = {o.report_id: o for o in res.outcomes}
    for rid in ids:
        bad_csv = sum(_count_csv(t) for n, t in outs.items() if n.endswith(".csv") and rid in t)
        bad_md = sum(_count_md(t) for n, t in outs.items() if n.endswith(".md") and rid in t)
        o = by_id.get(rid)
        msg = f"{o.status if o else 'no outcome'}; formula cells {bad_csv}, raw HTML/links/breaks {bad_md}"
        ok = not bad_csv and not bad_md and o is not None and not o.failed
        cat.add(2, "exports", rid, lambda ok=ok, msg=msg, bad=bad_csv + bad_md: Check(ok, msg, wrong=bad, seconds=each))
