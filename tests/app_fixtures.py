"""Dashboard test data built with the real pipeline: generated PDFs and Markdown with known text.

`build_store` writes report YAMLs and their source files into a folder and runs the real ingest
(`ingest.pipeline.run`) into a data folder, so the tables the app reads are exactly what the
pipeline makes today, under the lens given (drift between pipeline and dashboard fails a test).
`scale_store` (for bench/app_speed.py) clones the ingested bundles under new ids and rebuilds the
tables with the real table builders, instead of parsing hundreds of PDFs; its posts print result
tables, so the Benchmarks page has a leaderboard and claims to act on.

Every report of the corpus:
* report `r00` (PDF) has a curated `rl_algorithm` cell ("PPO") that the automatic reading (GRPO)
  disagrees with, and study-reported whole-document figures beside its measured ones;
* odd reports are Markdown posts, even ones PDFs; the last one has no source (reported figures only);
* every measured report mentions "credit assignment" only in its references.
"""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import yaml

from ingest.analysis.lens import DEFAULT_LENS
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store
from tests.conftest import write_pdf

ORGS = ("Lab A", "Lab B", "Lab C")
DOC_TYPES = ("arxiv", "blog", "github-pdf")
ALGOS = ("GRPO", "PPO", "DAPO")
#: The sentence of the curated report that the Evidence page's "see the page" must highlight.
QUOTE = "We adopt GRPO as our RL algorithm for the agentic stage."


def body_lines(i: int) -> list[str]:
    """Body text of report i: known keyword counts that grow with i (agent, tool, reward)."""
    algo = ALGOS[i % len(ALGOS)]
    lines = [
        f"Model {i:02d} is an agentic model trained with reinforcement learning.",
        f"We adopt {algo} as our RL algorithm for the agentic stage." if algo != "GRPO" else QUOTE,
        "The reward is computed by rule-based verifiers that check the final answer.",
        "Unlike DPO, our method samples rollouts online.",
    ]
    if i % 2 == 0:
        lines.append("The agent calls a tool in a sandbox and unit tests decide the reward.")
    lines += ["Each agent uses a tool in multi-turn rollouts."] * (1 + i % 4)
    return lines


REFS = ["References", "Doe. Credit assignment for agents. 2025.", "Roe. A survey of tool use. 2024."]


def results_table(i: int) -> str:
    """A Markdown result table of post i: its own model and two baselines on three benchmarks; the
    baselines' scores differ from post to post, so claims across reports disagree."""
    rows = [(f"Model {i:02d}", 60 + i), ("Baseline-7B", 40 + i % 3), ("Baseline-70B", 55 + i % 2)]
    lines = ["Table 1: Results on reasoning benchmarks.", "", "| Model | AIME 2024 | GPQA Diamond | MMLU |", "|---|---|---|---|"]
    lines += [f"| {m} | {v:.1f} | {v - 10:.1f} | {v + 15:.1f} |" for m, v in rows]
    return "\n".join(lines)


def write_corpus(reports_dir: Path, n: int = 6, results: bool = False) -> list[str]:
    """n report YAMLs with their source files (PDF for even i, Markdown for odd i; the last has none).
    `results`: the Markdown posts print a result table (`results_table`)."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    (reports_dir / "files").mkdir(exist_ok=True)
    ids = []
    for i in range(n):
        rid = f"r{i:02d}"
        spec: dict = {
            "id": rid,
            "model": f"Model {i:02d}" if i != 1 else "alpha model",  # a lower-case name: sorting is case-insensitive
            "organization": ORGS[i % len(ORGS)],
            "doc_type": DOC_TYPES[i % len(DOC_TYPES)],
            "params": f"{i + 1}B",
        }
        if i == n - 1 and n > 1:
            spec["reported"] = {"from": "a study", "words": 5000, "counts": {"agentic": 4, "agent": 9, "tool": 12}}
        elif i % 2 == 0:
            pdf = reports_dir / "files" / f"{rid}.pdf"
            filler = [f"Section text number {k} about training details." for k in range(8)]
            write_pdf(pdf, [body_lines(i) + filler, filler + REFS])
            spec["source"] = {"path": f"files/{rid}.pdf"}
        else:
            md = reports_dir / "files" / f"{rid}.md"
            text = "# Training\n\n" + " ".join(body_lines(i)) + "\n\n" + "Filler words about training. " * 30
            if results:
                text += "\n\n# Evaluation\n\n" + results_table(i)
            md.write_text(text + "\n\n## References\n\n" + "\n\n".join(REFS[1:]) + "\n", encoding="utf-8")
            spec["source"] = {"path": f"files/{rid}.md"}
        if i == 0:
            spec["reported"] = {"from": "a study", "words": 150, "counts": {"agentic": 2, "agent": 3, "tool": 3}}
            spec["curated"] = {"rl_algorithm": {"value": ["PPO"], "detail": "PPO (as the study words it)"}}
        (reports_dir / f"{rid}.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
        ids.append(rid)
    return ids


def build_store(root: Path, n: int = 6, lens: Path = DEFAULT_LENS, results: bool = False) -> tuple[Path, Path]:
    """Corpus in root/reports, ingested by the real pipeline into root/data; returns (data, reports)."""
    reports = root / "reports"
    write_corpus(reports, n, results)
    data = root / "data"
    run(reports_dir=reports, settings=Settings(data_dir=data, lens_path=lens, offline=True))
    return data, reports


def scale_store(root: Path, n: int, lens: Path = DEFAULT_LENS) -> tuple[Path, Path]:
    """A store of n reports: 6 ingested for real (the posts with a result table each), then cloned
    (YAML + bundle) and the tables rebuilt."""
    data, reports = build_store(root, 6, lens, results=True)
    store = Store(data)
    seeds = [p for p in sorted(reports.glob("r*.yaml"))]
    for k in range(6, n):
        src = seeds[k % len(seeds)]
        rid = f"x{k:04d}"
        spec = yaml.safe_load(src.read_text(encoding="utf-8"))
        spec.update(id=rid, model=f"Clone {k:04d} of {spec['model']}", organization=f"Lab {k % 23}")
        (reports / f"{rid}.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
        bundle = store.load_bundle(src.stem)
        if bundle is not None:
            store.save_bundle(rid, bundle)
            status = store.load_status(src.stem)
            if status:
                store.save_status(rid, status)
    # the real pipeline again: every clone is a cache hit, then the tables are rebuilt from the bundles
    run(reports_dir=reports, settings=Settings(data_dir=data, lens_path=lens, offline=True))
    return data, reports


def copy_store(src: Path, dst: Path) -> Path:
    """A private copy of a built store (tests that rewrite it must not touch the shared one)."""
    shutil.copytree(src, dst)
    return dst


def copy_built(built: tuple[Path, Path], dst: Path) -> tuple[Path, Path]:
    """A private copy of a built store and its reports folder (sources included): (dst/data, dst/reports)."""
    data, reports = built
    return copy_store(data, dst / "data"), copy_store(reports, dst / "reports")


class _Tables(HTMLParser):
    """Cells of every <table> as text (what a reader sees; tags such as links are dropped)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append({"caption": "", "head": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("th", "td", "caption"):
            self.cell = []

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td", "caption") and self.cell is not None and self.tables:
            text, t = "".join(self.cell), self.tables[-1]
            if tag == "caption":
                t["caption"] = text
            else:
                (t["head"] if tag == "th" else t["rows"][-1]).append(text)
            self.cell = None


def html_tables(body: str) -> list[pd.DataFrame]:
    """The tables of an HTML block (views/htmltable.py) as frames of strings; `.attrs["caption"]` holds the caption."""
    p = _Tables()
    p.feed(body)
    out = []
    for t in p.tables:
        df = pd.DataFrame([r for r in t["rows"] if r], columns=t["head"])
        df.attrs["caption"] = t["caption"]
        out.append(df)
    return out


__all__ = ["QUOTE", "build_store", "copy_built", "copy_store", "html_tables", "scale_store", "write_corpus"]
