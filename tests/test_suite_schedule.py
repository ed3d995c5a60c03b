"""`make test`'s scheduler (tests/xdist_modules.py): a browser module's tests share one worker, so its
Streamlit server and Chromium start once; other tests are handed out one at a time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SLEEPY = "import time\nimport pytest\n\n@pytest.mark.parametrize('i', range(4))\ndef test_x(i):\n    time.sleep(0.05)\n"


def test_a_browser_modules_tests_run_on_one_worker_and_the_rest_spread(tmp_path: Path) -> None:
    (tmp_path / "test_browser_demo.py").write_text(SLEEPY, encoding="utf-8")
    (tmp_path / "test_plain_demo.py").write_text(SLEEPY, encoding="utf-8")
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tests.xdist_modules"]\n', encoding="utf-8")
    # only xdist among the installed plugins, so the three processes start quickly
    env = os.environ | {"PYTHONPATH": str(REPO), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    cmd = [sys.executable, "-m", "pytest", "-p", "xdist", "-v", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider",
           str(tmp_path)]  # fmt: skip
    out = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False).stdout
    workers: dict[str, set[str]] = {}
    for worker, module in re.findall(r"\[(gw\d)\] .*PASSED (test_\w+)\.py::", out):
        workers.setdefault(module, set()).add(worker)
    assert len(workers.get("test_browser_demo", ())) == 1, out
    assert len(workers.get("test_plain_demo", ())) >= 1, out


def test_only_browser_modules_and_the_listed_costly_ones_are_grouped() -> None:
    """Other modules' tests are handed out one at a time (which worker takes them is xdist's choice)."""
    from tests.xdist_modules import GROUPED_MODULES, grouped

    assert grouped("test_browser_first_run") and all(grouped(m) for m in GROUPED_MODULES)
    assert not grouped("test_annotate") and not grouped("test_app")
