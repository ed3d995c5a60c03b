"""Symbolic links in the reports folder (issue 34): a link loop, a dangling link, a link to /dev/zero
or to a named pipe each fail their one report with a plain message, quickly (the batch goes on);
the tool never writes through a link out of the reports folder (incoming/, files/, .deleted/) nor
replaces a linked report file by a copy (Review)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ingest.cli import main
from ingest.outputs import curate
from ingest.pipeline import Settings, run
from ingest.sources.confine import OutsideRoots
from ingest.sources.registry import SpecFileError
from views.add_report import delete_report, spec_from_fields, write_report

from .conftest import write_report as write_yaml

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink") or not hasattr(os, "mkfifo"), reason="needs links and pipes")


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, Path]:
    reports, outside = tmp_path / "reports", tmp_path / "outside"
    outside.mkdir()
    write_yaml(reports, "good")
    return reports, outside


def test_links_in_the_reports_folder_fail_one_report_each_never_the_batch(folder: tuple[Path, Path]) -> None:
    reports, _ = folder
    (reports / "loop1.yaml").symlink_to("loop2.yaml")
    (reports / "loop2.yaml").symlink_to("loop1.yaml")
    (reports / "dangling.yaml").symlink_to("nowhere.yaml")
    (reports / "zero.yaml").symlink_to("/dev/zero")
    os.mkfifo(reports / "pipe.yaml")
    (reports / "dir.yaml").symlink_to(reports.parent)
    t0 = time.monotonic()
    res = run(reports_dir=reports, settings=Settings(data_dir=reports.parent / "data", offline=True))
    assert time.monotonic() - t0 < 30  # /dev/zero and the pipe are refused, never read
    by = {o.report_id: o for o in res.outcomes}
    assert by["good"].status == "no-source"
    assert "Too many levels of symbolic links" in by["loop1"].message and "file not found" in by["dangling"].message
    assert "not a regular file" in by["zero"].message and "not a regular file" in by["pipe"].message
    assert "is a directory" in by["dir"].message


def test_discover_does_not_write_proposals_through_a_linked_incoming_folder(folder: tuple[Path, Path], capsys) -> None:
    reports, outside = folder
    (reports / "incoming").symlink_to(outside)
    watch = reports.parent / "watch.yaml"
    watch.write_text("version: 1\nlabs: []\n")
    args = ["discover", "--watch", str(watch), "--reports-dir", str(reports), "--data-dir", str(reports.parent / "data")]
    assert main(args) == 1
    assert "link to a folder outside reports/" in capsys.readouterr().err and not list(outside.iterdir())


def test_a_linked_proposal_is_not_accepted(folder: tuple[Path, Path], capsys) -> None:
    reports, outside = folder
    write_yaml(outside, "elsewhere")
    (reports / "incoming").mkdir()
    (reports / "incoming" / "elsewhere.yaml").symlink_to(outside / "elsewhere.yaml")
    assert (
        main(["discover", "--accept", "elsewhere", "--reports-dir", str(reports), "--data-dir", str(reports.parent / "d")]) == 1
    )
    assert "is a link" in capsys.readouterr().err and not (reports / "elsewhere.yaml").exists()


def test_add_report_does_not_write_uploads_or_deletions_through_linked_folders(folder: tuple[Path, Path]) -> None:
    reports, outside = folder
    (reports / "files").symlink_to(outside)
    spec = spec_from_fields({"id": "up", "model": "Up", "organization": "Lab", "doc_type": "other"})
    with pytest.raises(OutsideRoots, match="outside reports/"):
        write_report(spec, reports, pdf=b"%PDF-1.4\n", suffix=".pdf")
    (reports / ".deleted").symlink_to(outside)
    with pytest.raises(OutsideRoots, match="outside reports/"):
        delete_report("good", reports)
    assert (reports / "good.yaml").is_file() and not list(outside.iterdir())


def test_review_does_not_replace_a_linked_report_file_by_a_copy(folder: tuple[Path, Path]) -> None:
    reports, outside = folder
    target = write_yaml(outside, "linked")
    (reports / "linked.yaml").symlink_to(target)
    before = target.read_bytes()
    with pytest.raises(SpecFileError, match="is a link"):
        curate.record_decision(reports / "linked.yaml", "rl_algorithm", "PPO", note="x")
    assert (reports / "linked.yaml").is_symlink() and target.read_bytes() == before
