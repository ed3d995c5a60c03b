"""Every package the code imports is declared: runtime imports in requirements.txt, the Dask executor's in
requirements-cluster.txt (`pip install .[cluster]`), the tools of tests, evals and benches in requirements-dev.txt;
and every declared pin agrees with requirements.lock."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

from .conftest import REPO

#: Modules imported only by the `--executor` code path (ingest/run/executor.py imports them lazily).
CLUSTER_MODULES = {"distributed", "dask"}
FIRST_PARTY = {"ingest", "views", "tests", "bench", "eval", "docs", "app", "scale"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(name: str) -> dict[str, str]:
    """name -> pinned version of one requirements file, following `-r` includes."""
    pins: dict[str, str] = {}
    for line in (REPO / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            pins |= _requirements(line[3:].strip())
        elif line:
            pkg, _, version = line.partition("==")
            pins[_norm(pkg)] = version.strip()
    return pins


IMPORT = re.compile(
    r"^[ \t]*(?:import[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]*(?:$|,|#| as )"  # import x, import x.y as z
    r"|from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b)",  # from x.y import z
    re.M,
)


def _imports(paths: list[Path]) -> set[str]:
    """Top-level modules imported anywhere in these files, function-level imports included (a line
    scan: ast.parse of every file cost seconds; relative imports start with "." and do not match)."""
    found = {a or b for path in paths for a, b in IMPORT.findall(path.read_text(encoding="utf-8"))}
    return found - set(sys.stdlib_module_names) - FIRST_PARTY - {"__future__"}


@functools.cache
def _distributions() -> dict[str, list[str]]:
    """Module -> distributions providing it (reads every installed package's file list: once)."""
    return dict(packages_distributions())


def _undeclared(modules: set[str], declared: dict[str, str]) -> dict[str, list[str]]:
    dists = _distributions()
    missing = {}
    for mod in sorted(modules):
        names = dists.get(mod, [mod])
        if not any(_norm(d) in declared for d in names):
            missing[mod] = names
    return missing


def _files(*folders: str) -> list[Path]:
    return [p for f in folders for p in ((REPO / f).rglob("*.py") if (REPO / f).is_dir() else [REPO / f])]


def test_runtime_imports_are_declared_in_requirements_txt():
    modules = _imports(_files("ingest", "views", "app.py")) - CLUSTER_MODULES
    assert _undeclared(modules, _requirements("requirements.txt")) == {}


def test_the_cluster_executor_is_an_optional_extra():
    runtime, cluster = _requirements("requirements.txt"), _requirements("requirements-cluster.txt")
    assert {"dask", "distributed"} <= cluster.keys() and not ({"dask", "distributed"} & runtime.keys())
    assert _undeclared(_imports(_files("ingest")) & CLUSTER_MODULES, cluster) == {}
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'cluster = { file = ["requirements-cluster.txt"] }' in pyproject


def test_test_eval_and_bench_imports_are_declared_in_requirements_dev_txt():
    files = _files("tests", "eval", "bench", "docs")
    scripts = {p.stem for p in files}  # a script that imports its neighbour (eval/cue_report.py -> annotate_eval)
    modules = _imports(files) - scripts
    assert _undeclared(modules, _requirements("requirements-dev.txt")) == {}


def test_every_pin_agrees_with_the_lock():
    lock = _requirements("requirements.lock")
    for name, version in _requirements("requirements-dev.txt").items():
        assert lock.get(name) == version, f"{name}=={version} is not what requirements.lock pins ({lock.get(name)})"


def _make_vars() -> dict[str, str]:
    return dict(re.findall(r"^([A-Z_]+) := (\S+)$", (REPO / "Makefile").read_text(encoding="utf-8"), re.M))


def test_the_installers_are_pinned_and_uv_agrees_with_the_lock():
    pins = _make_vars()
    assert pins["UV_VERSION"] and pins["PIP_VERSION"]
    assert _requirements("requirements.lock").get("uv") == pins["UV_VERSION"]


def _fake_venv(tmp_path: Path, uv_works: bool) -> tuple[Path, Path]:
    """A venv whose python and uv only log their arguments (uv fails unless uv_works)."""
    bindir, log = tmp_path / "venv" / "bin", tmp_path / "calls.log"
    bindir.mkdir(parents=True)
    for tool, status in (("python", 0), ("uv", 0 if uv_works else 1)):
        (bindir / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> {log}\nexit {status}\n')
        (bindir / tool).chmod(0o755)
    return tmp_path / "venv", log


def _make(venv: Path, target: str) -> None:
    subprocess.run(["make", "-s", "-C", str(REPO), f"VENV={venv}", target], check=True, capture_output=True)


def test_make_installs_the_requirements_with_uv_under_the_lock(tmp_path):
    venv, log = _fake_venv(tmp_path, uv_works=True)
    _make(venv, f"{venv}/.runtime")
    calls = log.read_text().splitlines()
    assert len(calls) == 1 and calls[0].startswith("uv pip install") and "-c requirements.lock -r requirements.txt" in calls[0]


def test_make_falls_back_to_the_pinned_pip_when_uv_fails(tmp_path):
    venv, log = _fake_venv(tmp_path, uv_works=False)
    _make(venv, f"{venv}/.runtime")
    calls = log.read_text().splitlines()
    assert calls[0].startswith("uv pip install")
    assert calls[1] == "python -m ensurepip --upgrade"
    assert calls[2] == f"python -m pip install --quiet pip=={_make_vars()['PIP_VERSION']}"
    assert calls[3] == "python -m pip install --quiet -c requirements.lock -r requirements.txt"


def test_make_puts_uv_into_a_venv_made_without_pip(tmp_path):
    """ensurepip costs more than the rest of the setup: the venv is made without pip and the pip of
    $(PY) installs uv into it (the venv's own pip only when that fails)."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    rule = text[text.index("$(BIN)/python:") :].split("\n\n", 1)[0]
    assert "-m venv --without-pip" in rule
    assert "$(PY) -m pip --python $(BIN)/python install --quiet uv==$(UV_VERSION)" in rule
    assert rule.index("--python $(BIN)/python") < rule.index("$(ENSUREPIP)")
