"""Page rendering bounded, read-only writes nothing, plain text everywhere (issue 23).

A report whose PDF declares a 7,200 × 7,200 pt page and whose model name is Markdown/HTML is
ingested by the real pipeline. "See the page" renders it in a limited child at a capped pixel
count (the dashboard process does not grow); with FRL_READ_ONLY=1 a walk over Source-page links
with ever new quotes writes no file; and every page of the dashboard, opened with Markdown and
HTML payloads in its query string, shows no live link or image and no raw tag.
"""

from __future__ import annotations

import io
import os
import resource
import time
from pathlib import Path

import pytest
import yaml
from PIL import Image
from streamlit.testing.v1 import AppTest

from ingest.outputs import pageimage
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store
from tests.test_app_security import HOSTILE, assert_no_markdown_payload
from views import nav

VIEWS = Path(__file__).resolve().parents[1] / "views"
QUOTE = "The agent uses a tool and gets a reward"
PARAMS = ("report", "q", "p", "rq", "rid", "dim", "term", "section", "group", "scope", "cols", "scatter", "interactive")


def _huge_pdf(path: Path, side_pt: float) -> Path:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(side_pt, side_pt))
    c.setFont("Helvetica", 12)
    c.drawString(50, side_pt - 60, QUOTE + ".")
    c.drawString(50, side_pt - 80, "Introduction of an agentic model trained with a verifiable reward.")
    c.showPage()
    c.save()
    return path


@pytest.fixture(scope="module")
def hostile_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("render")
    reports = root / "reports"
    reports.mkdir()
    _huge_pdf(reports / "huge.pdf", 7200)
    spec = {"id": "huge", "model": HOSTILE, "organization": HOSTILE, "doc_type": "other", "notes": HOSTILE,
            "source": {"path": "huge.pdf"}}  # fmt: skip
    (reports / "huge.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    res = run(reports_dir=reports, settings=Settings(data_dir=root / "data", jobs=1))
    assert [o.status for o in res.outcomes] == ["ok"], res.outcomes
    return root


def _row(root: Path) -> dict:
    return Store(root / "data").read_table("reports").set_index("report_id").loc["huge"].to_dict() | {"report_id": "huge"}


def test_a_huge_page_renders_in_a_child_at_a_capped_pixel_count(hostile_env: Path) -> None:
    store = Store(hostile_env / "data")
    row = _row(hostile_env)
    pdf = pageimage.source_file(store, row)
    assert pdf is not None
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.monotonic()
    img = pageimage.render_pdf_page(pdf, row["sha256"], 1, QUOTE)
    assert time.monotonic() - t0 < 10
    w, h = Image.open(io.BytesIO(img.png)).size
    assert w * h <= pageimage.MAX_PIXELS and img.scale < 1.6
    assert img.boxes >= 1  # the quote is still marked at the lower scale
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before < 100  # not rendered here
    again = pageimage.render_pdf_page(pdf, row["sha256"], 1, QUOTE)
    assert again is img  # from the in-memory cache
    with pytest.raises(pageimage.RenderRefused, match="outside"):
        pageimage.render_pdf_page(pdf, row["sha256"], 99, QUOTE)


def test_capped_scale() -> None:
    assert pageimage.capped_scale(612, 792, 1.6) == 1.6
    s = pageimage.capped_scale(14_400, 14_400, 1.6)
    assert (14_400 * s) ** 2 <= pageimage.MAX_PIXELS * 1.0001


def test_render_over_the_time_limit_shows_a_message(hostile_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pageimage, "RENDER_SECONDS", 0.01)
    row = _row(hostile_env)
    pdf = pageimage.source_file(Store(hostile_env / "data"), row)
    assert pdf is not None
    with pytest.raises(pageimage.RenderRefused, match="longer than"):
        pageimage.render_pdf_page(pdf, row["sha256"], 1, "a quote never rendered before")


def _files(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            st = os.stat(os.path.join(dirpath, n))
            out[os.path.join(dirpath, n)] = (st.st_size, st.st_mtime_ns)
    return out


def _page(file: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(VIEWS / file), default_timeout=90)
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def read_only(hostile_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FRL_DATA_DIR", str(hostile_env / "data"))
    monkeypatch.setenv("FRL_REPORTS_DIR", str(hostile_env / "reports"))
    monkeypatch.setenv("FRL_READ_ONLY", "1")
    return hostile_env


def test_read_only_source_links_write_no_file_and_show_plain_text(read_only: Path) -> None:
    before = _files(read_only)
    for i in range(4):
        at = _page("source.py", {"report": "huge", "p": "1", "q": f"{HOSTILE} {i}"})
        assert any(type(e).__name__ == "Image" for e in at.main.children.values()), "the page image is shown"
        assert_no_markdown_payload(at)
        assert any(HOSTILE in t.value for t in at.text)  # the quote, as plain text
    assert _files(read_only) == before  # nothing written, not even a cache entry


@pytest.mark.parametrize("name", list(nav.PAGES))
def test_every_page_with_payloads_in_its_query_string_renders_no_markup(read_only: Path, name: str) -> None:
    file = nav.PAGES[name][0]
    before = _files(read_only)
    at = _page(file, dict.fromkeys(PARAMS, HOSTILE) | {"report": "huge", "rid": "huge", "p": "1"})
    assert_no_markdown_payload(at)
    assert _files(read_only) == before, "a read-only page wrote a file"
    html = "\n".join(el.proto.body for el in at.get("html"))
    assert "<img src=x>" not in html and 'href="http://evil/' not in html
