"""Bench history is written by the bench scripts (bench/results_log.py), never by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import results_log

from .conftest import REPO


def test_a_recorded_run_appends_its_output_as_a_dated_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "RESULTS.md"
    monkeypatch.setenv(results_log.ENV, str(target))
    monkeypatch.setattr(sys, "argv", ["bench/x.py", "--pages", "3"])
    for figure in ("1.25", "0.75"):
        with pytest.raises(SystemExit), results_log.recorded("bench/x.py"):
            print(f"figure {figure} s")
            raise SystemExit(0)
    text = target.read_text(encoding="utf-8")
    assert text.startswith(results_log.header(target))
    assert text.count("\n## ") == 2 and "`python bench/x.py --pages 3`" in text
    assert "exit status 0" in text and "load average" in text and "cores" in text
    assert text.index("figure 1.25 s") < text.index("figure 0.75 s")  # newest last


def test_a_failed_run_is_recorded_with_its_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "RESULTS.md"
    monkeypatch.setenv(results_log.ENV, str(target))
    with pytest.raises(ZeroDivisionError), results_log.recorded("bench/x.py"):
        print("half a line")
        _ = 1 / 0
    assert "exit status failed (ZeroDivisionError)" in target.read_text(encoding="utf-8")


def test_recording_can_be_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(results_log.ENV, "off")
    monkeypatch.chdir(tmp_path)
    before = results_log.RESULTS.read_text(encoding="utf-8") if results_log.RESULTS.exists() else None
    with results_log.recorded("bench/x.py"):
        print("not kept")
    after = results_log.RESULTS.read_text(encoding="utf-8") if results_log.RESULTS.exists() else None
    assert before == after


def test_asking_a_script_for_its_usage_records_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "RESULTS.md"
    monkeypatch.setenv(results_log.ENV, str(target))
    monkeypatch.setattr(sys, "argv", ["bench/x.py", "--help"])
    with pytest.raises(SystemExit), results_log.recorded("bench/x.py"):
        print("usage: x.py [-h]")
        raise SystemExit(0)
    assert not target.exists()


def test_every_bench_and_eval_script_records_its_runs() -> None:
    for script in sorted([*(REPO / "bench").glob("*.py"), *(REPO / "eval").glob("*.py")]):
        text = script.read_text(encoding="utf-8")
        if script.name in ("results_log.py", "__init__.py") or 'if __name__ == "__main__":' not in text:
            continue  # a module the scripts import (bench/noop_job.py, eval/cue_report.py), not a script
        assert "with recorded(__file__" in text, f"{script.name} does not record its runs"


def test_a_bench_run_from_the_command_line_is_recorded(tmp_path: Path) -> None:
    target = tmp_path / "RESULTS.md"
    env = {"PATH": "/usr/bin:/bin", results_log.ENV: str(target)}
    cmd = [sys.executable, str(REPO / "bench" / "sections_speed.py"), "--pages", "20", "--repeat", "1"]
    subprocess.run(cmd, cwd=REPO, env=env, check=True, capture_output=True, timeout=120)
    assert "sections_speed.py --pages 20 --repeat 1" in target.read_text(encoding="utf-8")


def test_eval_runs_go_to_their_own_history() -> None:
    assert results_log.results_file(str(REPO / "eval" / "x.py")) == REPO / "eval" / "RESULTS.md"
    assert results_log.results_file(str(REPO / "bench" / "x.py")) == REPO / "bench" / "RESULTS.md"
    assert results_log.header(REPO / "eval" / "RESULTS.md").startswith("# Evaluation results")
