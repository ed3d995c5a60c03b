"""A small store for the Benchmarks page tests, built by the real pipeline from generated sources.

Four reports: a PDF with a result table (own models Lens-7B and Lens-7B-RL, one value flagged as a
percentage above 100, plus a curated score from a figure), a Markdown post with a pipe table (own
model in two modes), a report with curated scores only, and a report with nothing.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ingest.pipeline import run
from ingest.pipeline_settings import Settings

PDF_TABLE = {
    "MMLU (EM)": ["65.3", "71.2", "72.0"],
    "SWE-bench Verified": ["20.1", "30.5", "41.3"],
    "BFCL v3 (Acc.)": ["50.2", "55.0", "104.0"],
}
PDF_MODELS = ["Alpha-8B", "Lens-7B", "Lens-7B-RL"]
POST = """# Post-9B: an agentic model

We train Post-9B as an agentic model with tool use. The agent calls a tool in a sandbox.

## Results

| Benchmark | Post-9B (thinking) | Post-9B (non-thinking) | Rival-10B |
|---|---|---|---|
| MMLU | 80.1 | 77.5 | 75.0 |
| SWE-bench Verified | 52.4 | 40.0 | 38.2 |
| TAU-bench | 61.0 | 50.5 | 45.1 |

The agentic results are strong.
"""


def _pdf(path: Path) -> Path:
    """One page: body text about agentic RL, then Table 1 (benchmarks as rows, models as columns)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    from tests.conftest import _font

    font, size = _font(), 9
    c = canvas.Canvas(str(path), pagesize=A4)
    _w, h = A4

    def put(x: float, y: float, text: str, centre: bool = False) -> None:
        c.drawString(x - (stringWidth(text, font, size) / 2 if centre else 0), h - y, text)

    c.setFont(font, size)
    xs = [250, 320, 390]
    put(72, 60, "We train the agentic model with reinforcement learning and a tool sandbox for the agent.")
    put(72, 90, "Table 1: Comparison of Lens-7B with other models.")
    put(100, 110, "Benchmark (Metric)")
    for x, m in zip(xs, PDF_MODELS, strict=True):
        put(x, 110, m, centre=True)
    for i, (bench, vals) in enumerate(PDF_TABLE.items()):
        y = 126 + 12 * i
        put(100, y, bench)
        for x, v in zip(xs, vals, strict=True):
            put(x, y, v, centre=True)
    put(72, 200, "The results show that the model is strong on agentic benchmarks and on knowledge tasks.")
    c.showPage()
    c.save()
    return path


def _report(folder: Path, rid: str, **fields: object) -> None:
    data = {"id": rid, "organization": "Lab", "doc_type": "other", **fields}
    (folder / f"{rid}.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def build(root: Path) -> tuple[Path, Path]:
    """Write sources and report YAMLs under `root`, run the pipeline; return (data dir, reports dir)."""
    reports = root / "reports"
    files = reports / "files"
    files.mkdir(parents=True)
    _pdf(files / "lens.pdf")
    (files / "post.md").write_text(POST, encoding="utf-8")
    _report(
        reports, "lens-7b", model="Lens-7B", source={"path": "files/lens.pdf"},
        results=[{"benchmark": "Terminal-Bench", "model": "Lens-7B-RL", "value": "33.0", "figure": "Figure 2",
                  "notes": "read from the bar chart"}],
    )  # fmt: skip
    _report(reports, "post-9b", model="Post-9B", doc_type="blog", source={"path": "files/post.md"})
    _report(
        reports, "curated-only", model="Curio", organization="Lab <b>X</b>",
        results=[{"benchmark": "SWE-bench Verified", "model": "Curio", "value": "61.5", "page": 4}],
        reported={"from": "a study", "words": 1000, "counts": {"agentic": 3, "agent": 5}},
    )  # fmt: skip
    _report(reports, "bare", model="Bare_Model_")
    data = root / "data"
    res = run(reports_dir=reports, settings=Settings(data_dir=data, offline=True))
    assert not res.failed, [o.message for o in res.failed]
    return data, reports
