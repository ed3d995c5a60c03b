"""Start-up of a one-report `python -m ingest` run under three garbage-collector settings.

Usage:  python bench/startup_gc.py [--repeat 5] [--pages 4]

`python -m ingest` imports the pipeline before it does any work, and the imports create only
objects that live as long as the process (modules, classes, functions); the collector walks them
again at every collection all the same. The settings compared, each in a fresh interpreter:

  enabled   the interpreter's default
  freeze    default during the imports, then `gc.freeze()` once a command's imports are done
            (`ingest.cli.imports_done`), so later collections skip what the imports made: what
            `python -m ingest` does
  disabled  `gc.disable()` before the imports, `gc.freeze()` and `gc.enable()` after them (what
            it did before: the imports ran with no collection at all)

Two runs of one generated report: cold (a new data folder: extract, analyse, build the tables) and
warm (the same folder again: nothing changed). CPU of the whole process tree (the workers too),
best of --repeat rounds; the settings take turns in every round, so load on a shared machine hits
them alike.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402
from tests.conftest import write_pdf, write_report  # noqa: E402

#: Python run by each interpreter: the setting, then `python -m ingest ARGS` as ingest/__main__.py runs it.
SETTINGS: dict[str, str] = {
    "enabled": "import sys\nfrom ingest import cli\nrc = cli.main(ARGS)",
    "freeze": "import sys\nfrom ingest import cli\ncli.FREEZE_IMPORTS = True\nrc = cli.main(ARGS)",
    "disabled": (
        "import gc, sys\ngc.disable()\nfrom ingest import cli\n"
        "def done():\n    if not gc.isenabled():\n        gc.freeze()\n        gc.enable()\n"
        "cli.imports_done = done\nrc = cli.main(ARGS)"
    ),
}


def cpu_of(code: str) -> float:
    """CPU seconds (user + system) of a fresh interpreter running `code` and of everything it started."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code + "\nsys.exit(rc)"], cwd=ROOT, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pages", type=int, default=4, help="pages of the generated report")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="frl-startup-gc-"))
    try:
        reports = tmp / "reports"
        (reports / "files").mkdir(parents=True)
        lines = [f"The agent calls a tool and gets a reward in step {i}." for i in range(40)]
        write_pdf(reports / "files" / "r.pdf", [["1 Introduction", *lines]] * args.pages)
        yaml_path = write_report(reports, "r", source={"path": "files/r.pdf"})
        best: dict[tuple[str, str], float] = {}
        for _ in range(args.repeat):
            for name, code in SETTINGS.items():
                data = tmp / f"data-{name}"
                shutil.rmtree(data, ignore_errors=True)
                run = [str(yaml_path), "--reports-dir", str(reports), "--data-dir", str(data), "--quiet", "--jobs", "1"]
                code = code.replace("ARGS", repr(run))
                for phase in ("cold", "warm"):
                    t = cpu_of(code)
                    best[phase, name] = min(best.get((phase, name), float("inf")), t)
        print(f"one {args.pages}-page report, `python -m ingest FILE --jobs 1`: CPU of the process tree, best of {args.repeat}")
        for phase in ("cold", "warm"):
            base = best[phase, "enabled"]
            cells = "   ".join(f"{n} {best[phase, n]:.3f} s ({best[phase, n] / base - 1:+.1%})" for n in SETTINGS)
            print(f"  {phase:5s} {cells}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
