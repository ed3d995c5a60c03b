"""Command line: a thin layer over `ingest.pipeline` and `ingest.outputs.export`.

    python -m ingest                         # ingest every reports/*.yaml, rebuild data/results
    python -m ingest reports/qwen3.yaml      # ingest some reports (tables still cover all)
    python -m ingest check                   # validate report YAML files only
    python -m ingest export --table counts --format csv          # print a table
    python -m ingest export --table counts --format md --out counts.md
    python -m ingest export --report kimi-k3                     # one report's Markdown card
    python -m ingest discover / diff ID [OLD NEW]                # follow the field (ingest/follow_cli.py)
    python -m ingest tables paper.pdf --pages 3,5-7 --format md  # every table the structure stage finds

Exit status: 0 when every report succeeded, 1 when any failed (the others are still stored),
2 for usage errors, for a broken lexicon or lens (nothing could be counted) and for an
executor that cannot start (an unreachable Dask scheduler).

Local sources must lie in the reports folder or a `--source-root` / $FRL_SOURCE_ROOTS folder;
URLs may not reach internal addresses unless `--allow-private-hosts` / $FRL_ALLOW_PRIVATE_HOSTS=1.
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ingest import follow_cli
from ingest.cli_options import roots_option
from ingest.common.atomic import describe_os_error
from ingest.sources import confine
from ingest.store.manifest import StoreError
from ingest.store.store import DEFAULT_DATA_DIR, Store

if TYPE_CHECKING:  # the pipeline, pydantic and the extractors are imported by the commands that need them:
    # a fresh `export --table counts` process pays only for the store and pyarrow. CPU at import after
    # this module (bench/import_costs.py): the pipeline about 0.6 s, the lens and the registry (pydantic) about 0.3 s
    # each, checks 0.35 s, fetch 0.4 s, the table reader 0.1-0.15 s, the executor and tqdm about 0.05 s.
    from ingest.pipeline import Outcome

DEFAULT_REPORTS_DIR = Path(__file__).resolve().parent.parent / "reports"
COMMANDS = ("run", "check", "export", "tables")
#: Set by `python -m ingest` (ingest/__main__.py), which starts with the garbage collector paused.
GC_PAUSED = False


def imports_done() -> None:
    """Resume the garbage collector paused by `python -m ingest`, with every object so far frozen
    (modules, classes, functions: never garbage, so no collection needs to walk them again)."""
    global GC_PAUSED
    if GC_PAUSED:
        GC_PAUSED = False
        gc.freeze()
        gc.enable()


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="data folder (default: data/)")


class UsageError(Exception):
    """A bad option or environment setting: one line, exit status 2."""


def source_roots(args: argparse.Namespace) -> tuple[Path, ...]:
    """--source-root folders plus $FRL_SOURCE_ROOTS ones; every one must be an existing folder."""
    env = confine.env_roots()
    for p in env:
        if not p.is_dir():
            raise UsageError(f"{confine.ROOTS_ENV}: {str(p)!r} is not a folder")
    return (*args.source_root, *env)


def build_parser(only: str | None = None) -> dict[str, argparse.ArgumentParser]:
    """One parser per command (the run command takes bare YAML paths, so no subparsers).

    `only` builds just that command's parser: the export parser imports pandas, which a
    warm `python -m ingest` run should not pay for.
    """
    parsers: dict[str, argparse.ArgumentParser] = {}
    if only in (None, "run"):
        parsers["run"] = _run_parser()
    if only in (None, "check"):
        parsers["check"] = _check_parser()
    if only in (None, "export"):
        parsers["export"] = _export_parser()
    if only in (None, "tables"):
        parsers["tables"] = _tables_parser()
    return parsers


def _run_parser() -> argparse.ArgumentParser:
    from ingest.analysis.lens import DEFAULT_LENS
    from ingest.run.executor import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT

    run_p = argparse.ArgumentParser(
        prog="python -m ingest",
        description="Ingest report YAML files and rebuild the tables.",
        epilog="other commands:\n  check     validate report files without ingesting (python -m ingest check --help)\n"
        "  export    print a stored table as CSV or Markdown, or a report card (python -m ingest export --help)\n"
        "  tables    print every table found in a PDF as JSON, CSV or Markdown (python -m ingest tables --help)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run_p.add_argument("files", nargs="*", type=Path, help="report YAML files (default: all of --reports-dir)")
    run_p.add_argument(
        "--reports-dir", type=Path, default=DEFAULT_REPORTS_DIR, help="folder of report YAML files (default: reports/)"
    )
    run_p.add_argument("--engine", choices=["pdfium", "pdfplumber"], default="pdfium", help="PDF text engine (default: pdfium)")
    run_p.add_argument(
        "--lens", type=Path, default=DEFAULT_LENS, help="comparison lens YAML (default: data/lenses/agentic_rl.yaml)"
    )
    run_p.add_argument("--force", action="store_true", help="recompute even when inputs are unchanged")
    run_p.add_argument("--offline", action="store_true", help="never use the network; URLs come from the cache only")
    run_p.add_argument("--quiet", action="store_true", help="no progress bar or summary table")
    run_p.add_argument(
        "--allow-private-hosts",
        action="store_true",
        help="let URL sources reach loopback, private and link-local addresses "
        f"(also ${confine.PRIVATE_HOSTS_ENV}=1); off by default",
    )
    roots_option(run_p)
    run_p.add_argument(
        "--jobs", type=_positive_int, default=None, metavar="N", help="reports read at once (default: one per available core)"
    )
    run_p.add_argument(
        "--timeout",
        type=_positive_float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"time limit for reading one report (default: {DEFAULT_TIMEOUT:g})",
    )
    run_p.add_argument(
        "--memory-limit",
        type=_positive_int,
        default=DEFAULT_MEMORY_MB,
        metavar="MB",
        help=f"memory limit of the process reading one report (default: {DEFAULT_MEMORY_MB})",
    )
    run_p.add_argument(
        "--executor",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler to read the reports on, e.g. tcp://host:8786 (default: this machine)",
    )
    _common(run_p)
    return run_p


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def _check_parser() -> argparse.ArgumentParser:
    check_p = argparse.ArgumentParser(prog="python -m ingest check", description="Validate report YAML files without ingesting.")
    check_p.add_argument("files", nargs="*", type=Path, help="report YAML files (default: all of --reports-dir)")
    check_p.add_argument(
        "--reports-dir", type=Path, default=DEFAULT_REPORTS_DIR, help="folder of report YAML files (default: reports/)"
    )
    roots_option(check_p)
    return check_p


def _export_parser() -> argparse.ArgumentParser:
    from ingest.outputs import export

    exp_p = argparse.ArgumentParser(prog="python -m ingest export", description="Print a stored table as CSV or Markdown.")
    exp_p.add_argument("--table", choices=sorted(export.TABLES), default="counts", help="which table (default: counts)")
    exp_p.add_argument("--format", choices=["csv", "md"], default="csv", help="output format (default: csv)")
    exp_p.add_argument("--out", type=Path, default=None, help="write to this file instead of stdout")
    exp_p.add_argument("--report", default=None, metavar="ID", help="print one report's Markdown card instead of a table")
    _common(exp_p)
    return exp_p


def _tables_parser() -> argparse.ArgumentParser:
    tab_p = argparse.ArgumentParser(
        prog="python -m ingest tables",
        description="Print every table found in a PDF (rows, columns, spanning cells; no result reading).",
    )
    tab_p.add_argument("file", type=Path, help="a PDF file")
    tab_p.add_argument("--pages", default=None, metavar="LIST", help="pages to read, e.g. 3,5-7 (default: all)")
    tab_p.add_argument("--format", choices=["json", "csv", "md"], default="json", help="output format (default: json)")
    return tab_p


def _summary(outcomes: list[Outcome]) -> str:
    head = ("report", "status", "pages", "words", "seconds", "message")
    rows = [
        (
            o.report_id,
            o.status,
            "" if o.pages is None else str(o.pages),
            "" if o.words is None else str(o.words),
            f"{o.seconds:.2f}",
            " ".join(o.message.split()),  # whole: the reason a report failed is the line a user needs
        )
        for o in outcomes
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*head), fmt.format(*("-" * w for w in widths)), *(fmt.format(*r) for r in rows)]
    return "\n".join(ln.rstrip() for ln in lines)


class _Bar:
    """A tqdm bar over reports (advancing as each finishes) whose postfix shows page progress in a long PDF."""

    def __init__(self) -> None:
        self.bar = None

    def reports(self, items):  # type: ignore[no-untyped-def]
        from tqdm import tqdm

        # No monitor thread: jobs are forked from this process only while it has a single thread
        # (see ingest.run.executor.fork_here); the monitor only tunes the refresh rate of a slow bar.
        tqdm.monitor_interval = 0
        self.bar = tqdm(items, desc="ingest", unit="report", file=sys.stderr)
        for spec, path in self.bar:
            self.bar.set_postfix_str(f"{spec.id} done")
            yield spec, path

    def page(self, done: int, total: int) -> None:
        if self.bar is not None and total >= 50 and (done % 25 == 0 or done == total):
            self.bar.set_postfix_str(f"reading a long PDF: page {done}/{total}")


def cmd_run(args: argparse.Namespace) -> int:
    from ingest.pipeline import Settings, run
    from ingest.sources.fetch import FetchSettings

    imports_done()
    try:
        private = args.allow_private_hosts or confine.env_flag(confine.PRIVATE_HOSTS_ENV)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    roots = source_roots(args)
    try:
        settings = Settings(
            data_dir=args.data_dir,
            engine=args.engine,
            force=args.force,
            offline=args.offline,
            lens_path=args.lens,
            source_roots=roots,
            fetch_settings=FetchSettings(allow_private_hosts=private),
            jobs=args.jobs,
            timeout=args.timeout,
            memory_limit_mb=args.memory_limit,
            executor=args.executor,
        )
    except ValueError as exc:  # e.g. a memory limit too small for a worker to start
        raise UsageError(str(exc)) from exc
    Store(args.data_dir).ensure_writable()  # a read-only data folder: one clear line, before any work
    bar = _Bar() if not args.quiet else None
    result = run(
        files=args.files or None,
        reports_dir=args.reports_dir,
        settings=settings,
        progress=bar.reports if bar else None,
        page_progress=bar.page if bar else None,
    )
    if not args.quiet:
        print(_summary(result.outcomes))
        print(f"\n{len(result.outcomes)} report(s): {len(result.failed)} failed. Tables in {Store(args.data_dir).results_dir}")
    for o in result.failed:
        print(f"error: {o.report_id}: {o.message}", file=sys.stderr)
    return 1 if result.failed else 0


def cmd_check(args: argparse.Namespace) -> int:
    """Every problem of every file in one run (ingest/checks.py); duplicate ids across files too."""
    from ingest import checks
    from ingest.sources.registry import load_registry, report_files

    imports_done()
    vocab = checks.load_vocabulary()
    roots = confine.normalise_roots((args.reports_dir, *source_roots(args)))
    files = list(args.files) if args.files else report_files(args.reports_dir)
    errors = 0
    for path in files:
        found = checks.check_file(Path(path), roots, vocab)
        for f in found:
            print(f"{f.severity}: {f}", file=sys.stderr)
        bad = [f for f in found if f.severity == "error"]
        errors += len(bad)
        if not bad:
            print(f"ok: {path}")
    reg = load_registry(args.reports_dir, files=args.files or None)
    for err in reg.errors:
        if err.message.startswith("duplicate id"):
            errors += 1
            print(f"error: {err}", file=sys.stderr)
    return 1 if errors else 0


def cmd_export(args: argparse.Namespace) -> int:
    from ingest.outputs import export

    imports_done()
    store = Store(args.data_dir)
    if not store.has_results():
        print(f"error: no results in {store.results_dir}; run `python -m ingest` first", file=sys.stderr)
        return 1
    if args.out is not None and args.out.is_dir():
        print(f"error: cannot write {args.out}: it is a folder; give a file name", file=sys.stderr)
        return 1
    export.check_store(store)
    if args.report:
        try:
            text = export.report_card(store, args.report)
        except KeyError as exc:
            print(f"error: {exc.args[0]}", file=sys.stderr)
            return 1
        export.write_text(text, args.out)
    else:
        export.write_table(store, args.table, args.format, args.out)
    return 0


def cmd_tables(args: argparse.Namespace) -> int:
    from ingest.outputs.table_formats import render
    from ingest.reading.structure_regions import TablesError, parse_pages, read_pdf_tables

    imports_done()
    try:
        tables, notes = read_pdf_tables(args.file, parse_pages(args.pages))
    except TablesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    sys.stdout.write(render(tables, args.format))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("discover", "diff"):  # following the field: ingest/follow_cli.py
        imports_done()
        return follow_cli.main(argv[0], argv[1:])
    command = argv.pop(0) if argv and argv[0] in COMMANDS else "run"
    try:
        args = build_parser(command)[command].parse_args(argv)
        return _run_command(command, args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        code = _setup_error(exc)
        if code is None:
            raise
        return code
    finally:
        imports_done()  # (a command that failed before its imports were done)


def _run_command(command: str, args: argparse.Namespace) -> int:
    """The command, with store and OS errors as one line and exit status 1."""
    try:
        commands = {"run": cmd_run, "check": cmd_check, "export": cmd_export, "tables": cmd_tables}
        return commands[command](args)
    except StoreError as exc:  # damaged tables, unwritable data folder or output: one line, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. the disk filled up while writing: earlier data is intact (atomic writes)
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot write{where}: {describe_os_error(exc)}; earlier results are kept", file=sys.stderr)
        return 1


def _setup_error(exc: Exception) -> int | None:
    """Exit status 2 and the message for a broken lexicon or lens or an executor that cannot start;
    None for any other exception. (Their modules are imported here, not at start-up.)"""
    from ingest.run.executor import ExecutorError
    from ingest.sources.registry import SpecFileError

    if isinstance(exc, SpecFileError):  # a broken lexicon or lens: nothing can be counted, say why and stop
        for err in exc.errors:
            print(f"error: {err}", file=sys.stderr)
        return 2
    if isinstance(exc, ExecutorError):  # e.g. the Dask scheduler is unreachable: nothing was ingested
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return None
