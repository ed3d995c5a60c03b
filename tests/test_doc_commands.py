"""Every command the README and docs/ show in a shell block runs on the shipped data, as a reader
would type it, in a temporary copy of the repository (so nothing here writes to reports/ or data/),
without network.

Commands are taken from the ```bash/```sh blocks and plain ``` blocks of README.md and docs/*.md (the
generated CLI reference is ```text, not a command). A few stand for something the shipped data has
no copy of (a file name in prose, a scheduler address): SUBSTITUTE names the shipped stand-in, SKIPPED
says why a command is not run here, and EXPECTED_ERROR gives the one-line error a command must print
when the shipped data cannot satisfy it (a diff needs two versions). Every other command must exit 0
(an ingest may exit 1: the URL-only reports cannot be fetched offline, as the README says), and no
command may print a traceback.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.slow

#: Placeholders in the docs -> what the shipped data has.
SUBSTITUTE = {
    "reports/my-model.yaml": "reports/deepseek-r1.yaml",
    "paper.pdf": "reports/files/minimax-m1.pdf",
}
#: Commands not run here, and why.
SKIPPED = {
    "make app": "sets up the venv and starts the server (bench/first_run.py times it)",
    "make test": "runs this suite",
    "python -m ingest --executor tcp://HOST:8786": "needs a Dask scheduler (tests/test_dask_executor.py starts one)",
    ".venv/bin/python eval/train_confidence.py --write": "an evaluation on the labelled corpus (make eval)",
}
#: Commands whose subject the shipped data lacks: the error they must give (exit status 1 or 2, one line).
EXPECTED_ERROR = {
    "python -m ingest diff glm-4.5": "needs two",
    "python -m ingest diff glm-4.5 v1 v2": "needs two",
    "python -m ingest discover --accept some-id": "no such proposal",
    "python -m ingest discover --accept kimi-k3.5": "no such proposal",
    "python -m ingest discover --dismiss gemma-5": "gemma-5",
}
#: discover without --accept/--dismiss asks arXiv and GitHub: tests never use the network.
NEEDS_NETWORK = re.compile(r"^python -m ingest discover(?! --(accept|dismiss))")
#: Commands that accept --offline get it, so nothing reaches the network.
OFFLINE = re.compile(r"^python -m ingest(?: (?:diff|reports/|--lens)|$)")

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "tests", "bench", "eval", "cache", "results", "__pycache__", "*.pyc")


def shown_commands() -> list[tuple[str, str]]:
    """(doc, command) for every command line in a shell or plain fenced block, in document order."""
    out = []
    for doc in DOCS:
        lang = None
        for line in doc.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                lang = line[3:].strip() if lang is None else None
                continue
            if lang in ("bash", "sh", "shell", "") and lang is not None:
                cmd = line.split("  #", 1)[0].strip()
                if re.match(r"(\.venv/bin/)?(python|make|streamlit)\b", cmd):
                    out.append((doc.name, cmd))
    return out


def _substituted(cmd: str) -> str:
    for old, new in SUBSTITUTE.items():
        cmd = cmd.replace(old, new)
    return cmd


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs") / "repo"
    shutil.copytree(REPO, root, ignore=COPY_IGNORE)
    return root


def test_the_docs_show_commands() -> None:
    cmds = [c for _, c in shown_commands()]
    assert "python -m ingest" in cmds and any(c.startswith("python -m ingest diff") for c in cmds)
    shown = set(cmds)
    assert not (set(SKIPPED) | set(EXPECTED_ERROR)) - {_substituted(c) for c in shown}, "a listed command left the docs"


def test_every_command_in_readme_and_docs_runs_on_the_shipped_data(copy: Path) -> None:
    failures = []
    for doc, shown in shown_commands():
        cmd = _substituted(shown)
        if cmd in SKIPPED or NEEDS_NETWORK.match(cmd):
            continue
        argv = shlex.split(cmd.split(" > ", 1)[0])
        if argv[0] in ("python", ".venv/bin/python"):
            argv[0] = sys.executable
        if OFFLINE.match(cmd):
            argv.append("--offline")
        proc = subprocess.run(argv, cwd=copy, capture_output=True, text=True, timeout=300, check=False)
        said = f"{doc}: {shown} -> exit {proc.returncode}: {proc.stderr.strip()[-400:]}"
        if "Traceback" in proc.stderr:
            failures.append(said)
        elif cmd in EXPECTED_ERROR:
            lines = proc.stderr.strip().splitlines()
            if proc.returncode not in (1, 2) or len(lines) != 1 or EXPECTED_ERROR[cmd] not in lines[0]:
                failures.append(said)
        elif proc.returncode != 0 and not (re.match(r"python -m ingest(?! (check|export|tables|diff|discover))", cmd)
                                           and proc.returncode == 1):  # fmt: skip
            failures.append(said)
    assert failures == []
