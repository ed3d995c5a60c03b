"""Start-up cost of the imports the code defers to the function that needs them.

Usage:  python bench/import_costs.py [--repeat 3] [IMPORTER:MODULE ...]

The developers' guide puts imports at module top unless a measured start-up cost says otherwise;
each import kept inside a function cites the figure this script prints for it. For each pair it
starts a fresh interpreter, imports IMPORTER (the module that defers the import, so whatever it
already loads is not counted), then times `import MODULE`: CPU of the process, best of --repeat
interpreters (on a shared machine wall time mostly measures the other processes).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402

#: (importer, deferred import, who is spared the cost): every import kept inside a function in
#: ingest/, views/ and eval/ for its start-up cost.
DEFERRED: list[tuple[str, str, str]] = [
    ("ingest.cli", "ingest.pipeline", "`python -m ingest --help`, check, export, tables, discover"),
    ("ingest.cli", "ingest.pipeline_settings", "`python -m ingest --help`, check, export, tables, discover"),
    ("ingest.cli", "ingest.sources.fetch", "`python -m ingest --help`, check, export, tables"),
    ("ingest.cli", "ingest.checks", "`python -m ingest --help`, run, export, tables, discover, diff"),
    ("ingest.cli", "ingest.reading.structure_regions", "`python -m ingest --help`, run, check, export, discover, diff"),
    ("ingest.cli", "ingest.outputs.table_formats", "`python -m ingest --help`, run, check, export, discover, diff"),
    ("ingest.cli", "ingest.sources.registry", "`python -m ingest --help`, export, tables (pydantic)"),
    ("ingest.cli", "ingest.sources.discover", "every command but discover"),
    ("ingest.cli", "ingest.versions", "every command but diff"),
    ("ingest.cli", "ingest.outputs.diff", "every command but diff"),
    ("ingest.cli", "ingest.analysis.confidence_fit", "every command but diff"),
    ("ingest.cli", "ingest.analysis.lens", "every command but diff (pydantic)"),
    ("ingest.cli", "ingest.analysis.lexicon", "every command but diff (pydantic)"),
    ("ingest.cli", "tqdm", "runs without a progress bar"),
    ("ingest.cli", "ingest.run.isolate", "every command but discover"),
    ("ingest.cli", "ingest.tables_command", "every command but tables"),
    ("ingest.analysis.results", "ingest.analysis.results_pdf", "the driver, Markdown and HTML reports (pdfium, structure)"),
    ("ingest.pipeline_steps", "ingest.analysis.results_pdf", "the driver, Markdown and HTML reports (pdfium, structure)"),
    ("ingest.reading.extract", "ingest.reading.markdown", "the driver, PDFs and cached texts (only extracting a post needs it)"),
    ("ingest.pipeline", "ingest.outputs.tables", "ingest workers (only the driver rebuilds the tables)"),
    ("ingest.pipeline", "pandas", "runs that update existing tables (only a first build converts rows through pandas)"),
    ("ingest.outputs.export", "ingest.outputs.study_tables", "a CSV export straight from Arrow"),
    ("ingest.outputs.export", "ingest.outputs.leaderboard", "a CSV export straight from Arrow"),
    ("ingest.outputs.export", "ingest.outputs.review", "a CSV export straight from Arrow"),
    ("ingest.outputs.export", "ingest.outputs.report_card", "a CSV export straight from Arrow"),
    ("ingest.outputs.export", "pyarrow.csv", "exports through pandas"),
    ("ingest.outputs.export", "pyarrow", "exports through pandas"),
    ("ingest.outputs.export", "ingest.analysis.benchmarks", "exports of tables other than the leaderboards"),
    ("ingest.outputs.export", "ingest.outputs.mdtable", "CSV exports (pandas)"),
    ("ingest.outputs.export", "ingest.outputs.results_wide", "exports other than results-wide (pandas)"),
    ("ingest.outputs.export", "ingest.outputs.stats", "exports other than stats (pandas)"),
    ("ingest.outputs.neutral", "pyarrow.compute", "callers that neutralise pandas frames only"),
    ("ingest.outputs.neutral", "pyarrow", "callers that neutralise pandas frames only"),
    ("ingest.reading.extract", "pypdfium2", "the dashboard (it imports the extractor's records, never reads a PDF)"),
    ("ingest.reading.extract", "pdfplumber", "every ingest not using the optional pdfplumber engine"),
    ("ingest.reading.extract", "pdfminer.pdfparser", "every ingest not using the optional pdfplumber engine"),
    ("ingest.reading.extract", "pdfminer.pdfdocument", "every ingest not using the optional pdfplumber engine"),
    ("ingest.reading.markdown", "trafilatura", "reports without an HTML source"),
    ("ingest.outputs.pageimage", "pypdfium2", "dashboard pages that draw no page image"),
    ("views.chart_export", "choreographer.browsers.chromium", "dashboard pages until a figure export is offered"),
    ("ingest.outputs.pageimage", "PIL.ImageDraw", "dashboard pages that draw no page image"),
    ("ingest.analysis.annotate_common", "sklearn.feature_extraction.text", "annotation without the TF-IDF similarity"),
    ("ingest.analysis.confidence_fit", "sklearn.linear_model", "applying a fitted model (only fitting needs it)"),
    ("ingest.analysis.confidence_fit", "threadpoolctl", "every run that does not refit the confidence model"),
    ("ingest.run.executor", "distributed", "every executor but the optional dask one"),
    ("ingest.sources.hosts", "httpx", "offline runs (no fetch)"),
    ("ingest.sources.hosts", "httpcore", "offline runs (no fetch)"),
    ("ingest.sources.fetch", "httpx", "offline runs (no fetch)"),
    ("ingest.sources.http", "httpx", "offline runs (no fetch)"),
    ("ingest.sources.http", "httpcore", "offline runs (no fetch)"),
    ("ingest.store.frames", "pyarrow", "ingest workers and a warm re-run (they write bundles, not tables)"),
    ("ingest.store.frames", "pyarrow.json", "ingest workers and a warm re-run"),
    ("ingest.store.frames", "pyarrow.parquet", "ingest workers and a warm re-run"),
    ("ingest.store.frames", "pyarrow.compute", "reads without filters"),
    ("ingest.store.frames", "pandas", "ingest workers, a warm re-run, Arrow-only exports"),
    ("ingest.store.reader", "pyarrow.parquet", "ingest workers and a warm re-run"),
    ("ingest.store.reader", "pyarrow", "ingest workers and a warm re-run"),
    ("ingest.store.reader", "pyarrow.dataset", "reads of one part file"),
    ("ingest.store.reader", "pandas", "Arrow-only reads"),
    ("ingest.store.store", "pyarrow.parquet", "ingest workers and a warm re-run"),
    ("views.add_report", "ingest.pipeline", "dashboard pages other than Add report until a report is added"),
    ("views.review", "ingest.pipeline", "the Review page until a rebuild"),
    ("eval.icdar2013", "camelot", "the ICDAR test and runs of the other systems"),
    ("ingest.reading.table_text", "pypdfium2.raw", "(reference: at the top of ingest.reading.pdf_words; workers preload it)"),
]

_TIMER = (
    "import time, warnings; warnings.simplefilter('ignore'); import {importer}; "
    "t = time.process_time(); import {module}; print(time.process_time() - t)"
)


def cost_ms(importer: str, module: str, repeat: int) -> float:
    """Best of `repeat` fresh interpreters: CPU ms to import `module` once `importer` is loaded."""
    best = float("inf")
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", _TIMER.format(importer=importer, module=module)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        best = min(best, float(out.stdout.strip().splitlines()[-1]) * 1000)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("pairs", nargs="*", help="IMPORTER:MODULE (default: the deferred imports of ingest/, views/ and eval/)")
    args = ap.parse_args()
    pairs = [(*p.split(":", 1), "") for p in args.pairs] or DEFERRED
    print(f"import time after the importer is loaded, best of {args.repeat} fresh interpreters (ms of CPU)")
    for importer, module, spared in pairs:
        ms = cost_ms(importer, module, args.repeat)
        print(f"  {module:34s} after {importer:34s} {ms:7.1f} ms   {spared}")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
