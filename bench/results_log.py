"""Figure history: every bench (and eval) script run from the command line appends its output to
bench/RESULTS.md (eval/RESULTS.md for the evals).

    with recorded(__file__):          # in the script's `if __name__ == "__main__":` block
        raise SystemExit(main())

Whatever the bench prints goes to the terminal as usual and, when it ends, into one dated block
(UTC time, command line, git commit, load average, core count, exit status), so the history of
figures is written by the scripts that measure them, never by hand. Tests that call a bench's
`main()` directly record nothing. `FRL_BENCH_RESULTS=FILE` writes elsewhere; `FRL_BENCH_RESULTS=off`
records nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "RESULTS.md"
ENV = "FRL_BENCH_RESULTS"
HEADER = (
    "# {title}\n\n"
    "Appended by the {kind} scripts (`bench/results_log.py`), one block per run, newest last; not edited by\n"
    "hand. Each block says when and where it ran (commit, load average, cores). `make {kind}` runs them all.\n"
)


def results_file(script: str) -> Path:
    """eval/RESULTS.md for a script in eval/, bench/RESULTS.md otherwise."""
    return ROOT / "eval" / "RESULTS.md" if Path(script).resolve().parent.name == "eval" else RESULTS


def header(target: Path) -> str:
    kind = "eval" if target.parent.name == "eval" else "bench"
    return HEADER.format(title="Evaluation results" if kind == "eval" else "Bench results", kind=kind)


class _Tee(io.TextIOBase):
    """Writes to the real stream and keeps a copy."""

    def __init__(self, stream: io.TextIOBase) -> None:
        self.stream, self.copy = stream, io.StringIO()

    def write(self, s: str) -> int:
        self.copy.write(s)
        return self.stream.write(s)

    def flush(self) -> None:
        self.stream.flush()


def _commit() -> str:
    """Short commit id, marked when the worktree has uncommitted changes (a figure of unknown code)."""
    try:
        run = {"cwd": ROOT, "capture_output": True, "text": True, "timeout": 10}
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], **run)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], **run)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    sha = head.stdout.strip() or "unknown"
    return f"{sha} with uncommitted changes" if dirty.stdout.strip() else sha


def block(script: str, argv: list[str], output: str, status: object, when: dt.datetime | None = None) -> str:
    """One run as Markdown: a heading with the time and command, the context line, the output verbatim."""
    when = when or dt.datetime.now(dt.UTC)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    command = " ".join(["python", f"{Path(script).resolve().parent.name}/{Path(script).name}", *argv])
    fence = "````" if "```" in output else "```"
    return (
        f"\n## {when:%Y-%m-%d %H:%M} UTC · `{command}`\n\n"
        f"commit {_commit()} · load average {load} · {os.cpu_count()} cores · exit status {status}\n\n"
        f"{fence}text\n{output.rstrip()}\n{fence}\n"
    )


def append(text: str, path: Path | None = None) -> Path:
    """Add a block to the results file atomically (whole new file, then rename), under a lock."""
    target = path or RESULTS
    with FileLock(str(target) + ".lock"):
        old = target.read_text(encoding="utf-8") if target.exists() else header(target)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(old + text, encoding="utf-8")
        tmp.replace(target)
    return target


@contextlib.contextmanager
def recorded(script: str, enabled: bool = True) -> Iterator[None]:
    """Tee stdout while the bench runs, then append it as a block (also when it fails or is interrupted)."""
    setting = os.environ.get(ENV, "")
    asked_for_help = any(a in ("-h", "--help") for a in sys.argv[1:])  # usage is not a figure
    if not enabled or asked_for_help or setting.lower() in ("off", "0", "no"):
        yield
        return
    tee = _Tee(sys.stdout)
    real, sys.stdout = sys.stdout, tee
    status: object = 0
    try:
        yield
    except SystemExit as e:
        status = e.code if e.code is not None else 0
        raise
    except BaseException as e:
        status = f"failed ({type(e).__name__})"
        raise
    finally:
        sys.stdout = real
        text = block(script, sys.argv[1:], tee.copy.getvalue(), status)
        target = append(text, Path(setting) if setting else results_file(script))
        print(f"(recorded in {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target})", file=sys.stderr)
