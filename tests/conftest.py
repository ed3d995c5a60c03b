"""Shared fixtures: PDFs with exactly known text, report folders, and the optional real corpus."""

from __future__ import annotations

import functools
import os
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from streamlit.components.v2 import manifest_scanner

from ingest.pipeline import run
from ingest.pipeline_settings import RunResult, Settings
from tests import review_fixtures
from tests.bench_fixtures import build as build_bench_store

#: `make test`'s scheduling of the modules over the cores (see its docstring).
pytest_plugins = ["tests.xdist_modules"]

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"

#: Fixtures that mean a test takes seconds: a store the real pipeline builds (the dashboard tests), the
#: real corpus. A test using one — or marked `browser` or `corpus`, or in SLOW_MODULES — is marked `slow`,
#: which `make check` leaves out (`make test` runs everything).
SLOW_FIXTURES = frozenset({"pipeline_store", "bench_store", "review_store", "shipped", "corpus"})
#: Modules whose tests run the whole pipeline or start processes (worker pools, a Dask cluster, the CLI),
#: or time inputs at several sizes: seconds per test.
SLOW_MODULES = frozenset(
    {
        "test_bad_inputs", "test_corpus", "test_dask_executor", "test_executor", "test_linear_time", "test_pipeline",
        "test_records", "test_results_pipeline", "test_store", "test_store_app", "test_store_fresh_rows",
        "test_store_incremental", "test_suite_schedule",
    }
)  # fmt: skip


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = getattr(getattr(item, "module", None), "__name__", "").rsplit(".", 1)[-1]
        if (
            module in SLOW_MODULES
            or SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
            or item.get_closest_marker("browser")
            or item.get_closest_marker("corpus")
        ):
            item.add_marker(pytest.mark.slow)


#: Every `AppTest` scans the metadata of every installed package for Streamlit components (over a hundred
#: AppTests in the suite); the installed packages do not change during a test run, so the scan runs once
#: per process. The app's own servers (browser tests) are separate processes and scan
#: as usual.
manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


#: A page is a list of lines (one column) or a pair of line lists (two columns: left, right).
PageSpec = Sequence[str] | tuple[Sequence[str], Sequence[str]]


def _font() -> str:
    """Bitstream Vera ships with reportlab and has the ﬁ/ﬂ ligature glyphs; register it once."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    if "Vera" not in pdfmetrics.getRegisteredFontNames():
        import reportlab

        pdfmetrics.registerFont(TTFont("Vera", os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")))
    return "Vera"


def write_pdf(path: Path, pages: Sequence[PageSpec], font_size: float = 10) -> Path:
    """Draw each page's lines top-down (left column first on two-column pages) with reportlab."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    font = _font()
    c = canvas.Canvas(str(path), pagesize=A4)
    width, height = A4
    for page in pages:
        columns = page if isinstance(page, tuple) else (page,)
        col_w = (width - 100) / len(columns)
        for ci, lines in enumerate(columns):
            y = height - 60
            for line in lines:
                c.setFont(font, font_size)
                c.drawString(50 + ci * (col_w + 10), y, line)
                y -= font_size * 1.4
        c.showPage()
    c.save()
    return path


@pytest.fixture
def make_pdf(tmp_path: Path) -> Callable[..., Path]:
    """Factory: make_pdf([["line", ...], ...], name="x.pdf") -> path of a generated PDF."""

    def make(pages: Sequence[PageSpec], name: str = "doc.pdf", **kw) -> Path:
        return write_pdf(tmp_path / name, pages, **kw)

    return make


def write_report(folder: Path, report_id: str, body: str = "", **fields: object) -> Path:
    """Write reports/<id>.yaml with the required fields plus `body` (raw YAML lines appended)."""
    import yaml

    data = {"id": report_id, "model": report_id.upper(), "organization": "Lab", "doc_type": "other", **fields}
    text = yaml.safe_dump(data, sort_keys=False) + textwrap.dedent(body)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{report_id}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def corpus() -> Path:
    """The real corpus beside the repo (../shared/corpus); skips the test when it is absent."""
    if not (CORPUS / "reference_counts.tsv").exists():
        pytest.skip(f"real corpus not found at {CORPUS} (it is provided beside the repo in CI and dev sessions)")
    return CORPUS


@pytest.fixture(scope="session")
def pipeline_store(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Path, Path]]:
    """Factory: pipeline_store(n=6, lens=DEFAULT_LENS) -> (data, reports) of `app_fixtures.build_store`,
    built by the real pipeline once per session for each (n, lens) and shared by every module.

    Building is the slow part of a dashboard test, so it is done once; the result is READ-ONLY —
    a test that writes (ingests, deletes, curates) works on a copy (`app_fixtures.copy_built`).
    """
    # app_fixtures imports write_pdf from this module: importing it at the top would be a cycle.
    from ingest.analysis.lens import DEFAULT_LENS
    from tests.app_fixtures import build_store

    built: dict[tuple[int, Path], tuple[Path, Path]] = {}

    def get(n: int = 6, lens: Path = DEFAULT_LENS) -> tuple[Path, Path]:
        key = (n, Path(lens).resolve())
        if key not in built:
            built[key] = build_store(tmp_path_factory.mktemp(f"store{n}-{Path(lens).stem}"), n, lens)
        return built[key]

    return get


@pytest.fixture(scope="session")
def bench_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(data, reports) of `bench_fixtures.build`, built once per session; READ-ONLY (copy before writing)."""
    return build_bench_store(tmp_path_factory.mktemp("bench"))


@pytest.fixture(scope="session")
def review_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Root of `review_fixtures.build` (reports/ and data/), built once per session; tests take a private
    copy with `review_fixtures.copy_built` (the Review page writes the YAML files)."""
    root = tmp_path_factory.mktemp("review-built")
    review_fixtures.build(root)
    return root


#: The reports the repository ships (the study's ten and DeepSeek-R1), by id. Tests read copies of these
#: files (`copy_shipped`), never the reports/ folder itself: a user's own reports there never change a test.
SHIPPED_IDS = ("ax-k2", "deepseek-r1", "deepseek-v4", "gemma-4", "glm-4.5", "k-exaone-2.0", "kimi-k3", "llama-4", "minimax-m1",
               "qwen3", "solar-open-2")  # fmt: skip
#: The bundled sources of the shipped reports (reports/files/) and their provenance file.
SHIPPED_FILES = ("deepseek-r1.pdf", "glm-4.5.pdf", "minimax-m1.pdf", "SOURCES.tsv")


def copy_shipped(folder: Path) -> Path:
    """`folder` (created) holding the shipped report files and their bundled sources (files/), as shipped."""
    import shutil

    (folder / "files").mkdir(parents=True, exist_ok=True)
    for rid in SHIPPED_IDS:
        shutil.copy2(REPO / "reports" / f"{rid}.yaml", folder / f"{rid}.yaml")
    for name in SHIPPED_FILES:
        shutil.copy2(REPO / "reports" / "files" / name, folder / "files" / name)
    return folder


@dataclass(frozen=True)
class ShippedRun:
    """The shipped reports (a copy in `reports`) ingested offline into `data` (the run's result kept for its outcomes)."""

    result: RunResult
    data: Path
    reports: Path


@pytest.fixture(scope="session")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> ShippedRun:
    """The shipped reports ingested offline by the real pipeline, once per session; READ-ONLY.

    The reports with a source URL fail to fetch offline (not cached); like the others they keep their
    reported figures and curated cells, and nothing is measured.
    """
    root = tmp_path_factory.mktemp("shipped")
    reports = copy_shipped(root / "reports")
    data = root / "data"
    return ShippedRun(run(reports_dir=reports, settings=Settings(data_dir=data, offline=True)), data, reports)
