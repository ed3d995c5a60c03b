"""Bytecode caches and start-up: what `python -m ingest` compiles when no .pyc is cached.

Usage:  python bench/bytecode.py [--repeat 3]

Python compiles a module's source on import and keeps the bytecode in `__pycache__/*.pyc`, unless
PYTHONDONTWRITEBYTECODE is set (this machine sets it) or the folder cannot be written. Installers
differ: pip precompiles what it installs, uv does not (unless `--compile-bytecode`). Prints

* which of the modules a run imports (the CLI, the pipeline, the table builder, the worker
  server's preload) have no cached bytecode here, by package, and the CPU time compiling them
  takes (best of --repeat, in this process: what each fresh process pays while they stay uncached);
* what precompiling the whole venv at install time would cost instead (every .py file of
  site-packages, at the compile rate just measured), against the first-run budget of 60 s
  (bench/first_run.py times the first run).

bench/scale.py measures fresh processes with caches (see its `bytecode_caches`).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import importlib.util
import os
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402

#: What the driver of `python -m ingest NEW.yaml` imports besides the worker server's preload.
DRIVER_MODULES = ["ingest.cli", "ingest.pipeline", "ingest.outputs.tables", "pyarrow.json"]


def run_modules() -> list[str]:
    """What a run of `python -m ingest NEW.yaml` imports, in the driver, the worker and the server:
    the driver's modules and the server's `PRELOAD` (read here, so the list has one source; importing
    it loads the executor, so call this only after noting what was loaded before)."""
    from ingest.run.executor import PRELOAD

    return [*DRIVER_MODULES, *PRELOAD]


def uncached(modules: list[str] | None = None) -> list[tuple[str, str]]:
    """(module name, source file) of the modules importing `modules` (default: `run_modules()`)
    loads whose bytecode is not cached."""
    before = set(sys.modules)
    for m in modules if modules is not None else run_modules():
        importlib.import_module(m)
    out = []
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None) if name not in before else None
        if f and f.endswith(".py") and not os.path.exists(importlib.util.cache_from_source(f)):
            out.append((name, f))
    return out


def compile_cpu(files: list[str], repeat: int) -> float:
    """Best CPU seconds of compiling `files` from source (as an import without a cache does)."""
    sources = [(Path(f).read_bytes(), f) for f in files]
    best = float("inf")
    for _ in range(max(1, repeat)):
        c0 = time.process_time()
        for src, f in sources:
            compile(src, f, "exec", dont_inherit=True)
        best = min(best, time.process_time() - c0)
    return best


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=3, help="compile runs; the best is shown (default 3)")
    args = p.parse_args(argv)
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE")
    prefix = os.environ.get("PYTHONPYCACHEPREFIX") or "not set"
    print(f"PYTHONDONTWRITEBYTECODE={'set' if flag else 'not set'}; PYTHONPYCACHEPREFIX={prefix}")
    loaded_before = len(sys.modules)
    missing = uncached()
    by_pkg = collections.Counter(name.split(".")[0] for name, _ in missing)
    total = len(sys.modules) - loaded_before
    print(f"modules a run imports: {total}; without cached bytecode: {len(missing)}")
    for pkg, n in by_pkg.most_common():
        print(f"  {pkg:24s} {n:4d}")
    files = [f for _, f in missing]
    size = sum(os.path.getsize(f) for f in files)
    cpu = compile_cpu(files, args.repeat) if files else 0.0
    print(f"compiling them: {size / 1e6:.2f} MB of source, {cpu:.2f} s of CPU (best of {args.repeat}), in every fresh process")
    site = Path(sysconfig.get_paths()["purelib"])
    every = [f for f in site.rglob("*.py") if f.is_file()]
    all_size = sum(f.stat().st_size for f in every)
    if cpu > 0:
        rate = size / cpu
        print(f"precompiling all of site-packages at install: {len(every):,} files, {all_size / 1e6:.0f} MB, "
              f"~{all_size / rate:.0f} s of CPU at {rate / 1e6:.1f} MB/s (first-run budget: 60 s in all)")  # fmt: skip


if __name__ == "__main__":
    with recorded(__file__):
        main()
