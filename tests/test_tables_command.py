"""`python -m ingest tables` reads every page in a child process under ingest's per-report limits
(issue 34): a page over the time or memory limit is a note and the other pages are read; the
command stops starting pages at its own time limit (a controllable clock here, never the wall
clock's luck); the issue's dense one-page grid is read within the limits."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ingest import tables_command
from ingest.cli import main
from ingest.run.executor import Limits
from ingest.tables_command import page_job, read_tables

from .conftest import write_pdf


def _table_pdf(path: Path, pages: int) -> Path:
    lines = ["Model        GSM8K      MATH       HumanEval"]
    lines += [f"Model-{r}      {70 + r}.5       {40 + r}.2       {50 + r}.0" for r in range(6)]
    return write_pdf(path, [lines] * pages)


def stuck_on_page_two(arg: tuple[str, int], progress: object = None) -> object:
    """Page 2 never finishes (the job of a page that would take minutes); the others as usual."""
    if arg[1] == 2:
        time.sleep(600)
    return page_job(arg, progress)


def greedy_on_page_one(arg: tuple[str, int], progress: object = None) -> object:
    """Page 1 asks for 2 GB (a page whose reading would), the others as usual."""
    if arg[1] == 1:
        blob = bytearray(2048 * 1024 * 1024)
        return [], [str(len(blob))]
    return page_job(arg, progress)


def test_a_page_over_the_time_limit_is_a_note_and_the_other_pages_are_read(tmp_path: Path, monkeypatch) -> None:
    pdf = _table_pdf(tmp_path / "t.pdf", 3)
    monkeypatch.setattr(tables_command, "page_job", stuck_on_page_two)
    read = read_tables(pdf, limits=Limits(timeout=2), workers=2)
    assert sorted({t.page for t in read.tables}) == [1, 3]
    assert read.notes == ["page 2: not read (extraction took longer than 2 s)"]


def test_a_page_over_the_memory_limit_is_a_note_and_the_other_pages_are_read(tmp_path: Path, monkeypatch) -> None:
    pdf = _table_pdf(tmp_path / "t.pdf", 2)
    monkeypatch.setattr(tables_command, "page_job", greedy_on_page_one)
    read = read_tables(pdf, limits=Limits(memory_mb=512), workers=1)
    assert [t.page for t in read.tables] == [2]
    assert read.notes == ["page 1: not read (extraction needed more than 512 MB of memory)"]
    assert read.peak_mb < 1024


def test_the_command_stops_starting_pages_at_its_time_limit(tmp_path: Path) -> None:
    pdf = _table_pdf(tmp_path / "t.pdf", 4)
    ticks = iter(range(0, 10_000, 100))  # every look at the clock: 100 s later
    read = read_tables(pdf, workers=1, time_limit=250, clock=lambda: next(ticks))
    assert [t.page for t in read.tables] == [1, 2]
    assert read.notes == ["time limit of 250 s reached: pages 3-4 not read"]


def test_a_file_that_is_not_a_pdf_is_one_line_from_its_own_process(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "x.pdf"
    bad.write_bytes(b"%PDF-1.4 not really")
    assert main(["tables", str(bad)]) == 1
    assert capsys.readouterr().err.strip() == f"error: cannot open {bad}: not a readable PDF"


def test_a_dense_one_page_grid_is_read_within_the_limits(tmp_path: Path) -> None:
    """The issue's page: a 150 x 25 grid of small numbers (3,750 words) took 26 s in the command's own process."""
    from reportlab.pdfgen import canvas

    pdf = tmp_path / "grid.pdf"
    c = canvas.Canvas(str(pdf), pagesize=(600, 1000))
    c.setFont("Helvetica", 4)
    for r in range(150):
        for k in range(25):
            c.drawString(40 + k * 20, 960 - r * 6, f"{(r * 7 + k * 3) % 97}.{k % 10}")
    c.showPage()
    c.save()
    assert len(pdf.read_bytes()) < 64 * 1024
    read = read_tables(pdf)
    assert read.notes == [] and sum(len(t.cells) for t in read.tables) >= 3000
    assert 0 < read.peak_mb < 1024


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_the_command_prints_what_the_pages_hold(tmp_path: Path, capsys, fmt: str) -> None:
    pdf = _table_pdf(tmp_path / "t.pdf", 2)
    assert main(["tables", str(pdf), "--format", fmt, "--pages", "2"]) == 0
    out = capsys.readouterr().out
    assert "Model-5" in out and "75.5" in out
