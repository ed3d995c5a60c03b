"""Shared fixtures: PDFs with exactly known text, report folders, and the optional real corpus."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"

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
