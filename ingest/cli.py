"""Command line: one parser with a subcommand per task, a thin layer over the pipeline and the outputs.

    python -m ingest                         # = run: ingest every reports/*.yaml, rebuild data/results
    python -m ingest reports/qwen3.yaml      # = run reports/qwen3.yaml (the tables still cover all)
    python -m ingest check                   # validate report YAML files only
    python -m ingest export --table counts --format md --out counts.md
    python -m ingest export --report kimi-k3                     # one report's Markdown card
    python -m ingest tables paper.pdf --pages 3,5-7 --format md  # the paper's captioned tables
    python -m ingest discover [--since YYYY-MM-DD | --accept ID | --dismiss ID]
    python -m ingest diff ID [OLD NEW] [--list]

`run` is the default command: arguments that do not start with a command name are `run`'s, so
the short forms above (and every script and Makefile rule that uses them) keep working.

Exit status: 0 when every report succeeded, 1 when any failed (the others are still stored),
2 for usage errors, for a broken lexicon or lens (nothing could be counted) and for an
executor that cannot start (an unreachable Dask scheduler).

Local sources must lie in the reports folder or a `--source-root` / $FRL_SOURCE_ROOTS folder;
URLs may not reach internal addresses unless `--allow-private-hosts` / $FRL_ALLOW_PRIVATE_HOSTS=1.

Each command imports the stages only it uses inside its function, so `--help`, `check` or
`export` do not load the pipeline (see "Start-up" in docs/performance.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.common.atomic import describe_os_error
from ingest.outputs import export
from ingest.run.jobs import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, ExecutorError
from ingest.sources import confine
from ingest.store.manifest import StoreError
from ingest.store.store import DEFAULT_DATA_DIR, Store

if TYPE_CHECKING:
    from ingest.pipeline_settings import Outcome, Settings

REPO = Path(__file__).resolve().parent.parent
DEFAULT_REPORTS_DIR = REPO / "reports"
DEFAULT_WATCH = REPO / "data" / "watch.yaml"
COMMANDS = ("run", "check", "export", "tables", "discover", "diff")
#: Set by `python -m ingest` (ingest/__main__.py), a process that ends with its command.
FREEZE_IMPORTS = False


def imports_done() -> None:
    """In `python -m ingest`, once the command's imports are done, move every object so far
    (modules, classes, functions: never garbage) out of the collector's view, so no collection walks
    them again (bench/startup_gc.py compares this with the default and with a paused collector)."""
    global FREEZE_IMPORTS
    if FREEZE_IMPORTS:
        FREEZE_IMPORTS = False
        gc.freeze()


class UsageError(Exception):
    """A bad option or environment setting: one line, exit status 2."""


# ------------------------------------------------------------------------------------- the parser


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's help layout with room for the longest option name beside its help."""
    return argparse.HelpFormatter(prog, max_help_position=32)


def build_parsers() -> dict[str, argparse.ArgumentParser]:
    """The parser of `python -m ingest` (key "") and each command's, in the order `--help` lists them."""
    top = argparse.ArgumentParser(
        prog="python -m ingest",
        formatter_class=_formatter,
        usage="python -m ingest [-h] [COMMAND] [ARGS ...]",
        description="Read frontier-lab technical reports into keyword counts, an evidence-linked comparison "
        "table and benchmark result tables (data/results), and print or export them.",
        epilog="Without a command, the arguments are run's: `python -m ingest reports/x.yaml` is "
        "`python -m ingest run reports/x.yaml`. Each command has its own --help.",
    )
    sub = top.add_subparsers(dest="command", title="commands", metavar="COMMAND", prog="python -m ingest")
    parsers = {"": top}
    for name, summary, description, add in (
        ("run", "ingest report YAML files and rebuild the tables (the default command)", "", _run_options),
        ("check", "validate report YAML files without ingesting", "", _check_options),
        ("export", "print a stored table as CSV or Markdown, or one report's card", "", _export_options),
        (
            "tables",
            "print the tables of a PDF as JSON, CSV or Markdown",
            "Print the tables of a PDF under the paper's own labels and captions (rows, columns, spanning cells; "
            "no result reading).",
            _tables_options,
        ),
        (
            "discover",
            "propose new reports from arXiv, GitHub and lab feeds (data/watch.yaml)",
            "Find candidate reports published since a date (arXiv, GitHub, lab feeds; see data/watch.yaml) "
            "and propose a YAML file for each in reports/incoming/.",
            _discover_options,
        ),
        ("diff", "show what changed between two versions of a report's source", "", _diff_options),
    ):
        p = sub.add_parser(
            name, help=summary, description=description or summary[0].upper() + summary[1:] + ".", formatter_class=_formatter
        )
        parsers[name] = p
        p.set_defaults(func=add(p))
    return parsers


def _reports_dir(p: argparse.ArgumentParser) -> None:
    help_ = "folder of report YAML files (default: reports/)"
    p.add_argument("--reports-dir", type=Path, default=DEFAULT_REPORTS_DIR, metavar="DIR", help=help_)


def _data_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, metavar="DIR", help="data folder (default: data/)")


def _folder(text: str) -> Path:
    """argparse type of --source-root: an existing folder (a typo fails before any work)."""
    p = Path(text).expanduser()
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return p


def _source_roots(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--source-root",
        type=_folder,
        action="append",
        default=[],
        metavar="DIR",
        help=f"extra folder for local sources (repeatable; also ${confine.ROOTS_ENV})",
    )


def _private_hosts(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-private-hosts",
        action="store_true",
        help=f"allow private/loopback addresses (also ${confine.PRIVATE_HOSTS_ENV}=1)",
    )


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


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from None


def _run_options(p: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    p.add_argument("files", nargs="*", type=Path, metavar="FILE", help="report YAML files (default: all of --reports-dir)")
    _reports_dir(p)
    p.add_argument("--engine", choices=["pdfium", "pdfplumber"], default="pdfium", help="PDF text engine (default: pdfium)")
    p.add_argument(
        "--lens", type=Path, default=None, metavar="FILE", help="comparison lens YAML (default: data/lenses/agentic_rl.yaml)"
    )
    p.add_argument("--force", action="store_true", help="recompute even when inputs are unchanged")
    p.add_argument("--offline", action="store_true", help="never use the network; URLs come from the cache only")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary table")
    _private_hosts(p)
    _source_roots(p)
    p.add_argument(
        "--jobs", type=_positive_int, default=None, metavar="N", help="reports read at once (default: one per available core)"
    )
    p.add_argument(
        "--timeout",
        type=_positive_float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"time limit for reading one report (default: {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--memory-limit",
        type=_positive_int,
        default=DEFAULT_MEMORY_MB,
        metavar="MB",
        help=f"memory limit of the process reading one report (default: {DEFAULT_MEMORY_MB})",
    )
    p.add_argument(
        "--executor",
        default=None,
        metavar="ADDRESS",
        help="a Dask scheduler, e.g. tcp://host:8786 (default: this machine)",
    )
    _data_dir(p)
    return cmd_run


def _check_options(p: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    p.add_argument("files", nargs="*", type=Path, metavar="FILE", help="report YAML files (default: all of --reports-dir)")
    _reports_dir(p)
    _source_roots(p)
    return cmd_check


def _export_options(p: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    tables = sorted(export.TABLES)
    p.add_argument(
        "--table", choices=tables, default="counts", metavar="TABLE", help=f"which table (default: counts): {', '.join(tables)}"
    )
    p.add_argument("--format", choices=["csv", "md"], default="csv", help="output format (default: csv)")
    p.add_argument("--out", type=Path, default=None, metavar="FILE", help="write to this file instead of stdout")
    p.add_argument("--report", default=None, metavar="ID", help="print one report's Markdown card instead of a table")
    _data_dir(p)
    return cmd_export


def _tables_options(p: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    p.add_argument("file", type=Path, metavar="FILE", help="a PDF file")
    p.add_argument("--pages", default=None, metavar="LIST", help="pages to read, e.g. 3,5-7 (default: all)")
    p.add_argument("--format", choices=["json", "csv", "md"], default="json", help="output format (default: json)")
    p.add_argument(
        "--all", action="store_true", dest="all_tables",
        help="also text set in columns without a 'Table N' caption (shown anyway when the file has no caption)",
    )  # fmt: skip
    return cmd_tables


def _discover_options(p: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    p.add_argument("--since", type=_date, default=None, metavar="YYYY-MM-DD", help="published on or after (default: last run)")
    p.add_argument("--watch", type=Path, default=DEFAULT_WATCH, metavar="FILE", help="watch list (default: data/watch.yaml)")
    p.add_argument("--accept", metavar="ID", default=None, help="move candidate ID from reports/incoming/ into reports/")
    p.add_argument("--dismiss", metavar="ID", default=None, help="drop candidate ID; it is not proposed again")
    _reports_dir(p)
    _data_dir(p)
    _source_roots(p)
    _private_hosts(p)
    return cmd_discover


def _diff_options(p: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    p.add_argument("report", metavar="ID", help="report id")
    p.add_argument("versions", nargs="*", metavar="VERSION", help="OLD NEW: labels, 'previous', 'latest' or hash prefixes")
    p.add_argument("--list", action="store_true", help="list the stored versions and stop")
    p.add_argument("--offline", action="store_true", help="read declared versions from the download cache only")
    _reports_dir(p)
    _data_dir(p)
    _source_roots(p)
    _private_hosts(p)
    return cmd_diff


# ------------------------------------------------------------------------------------- settings


def source_roots(args: argparse.Namespace) -> tuple[Path, ...]:
    """--source-root folders plus $FRL_SOURCE_ROOTS ones; every one must be an existing folder."""
    env = confine.env_roots()
    for p in env:
        if not p.is_dir():
            raise UsageError(f"{confine.ROOTS_ENV}: {str(p)!r} is not a folder")
    return (*args.source_root, *env)


def _allow_private(args: argparse.Namespace) -> bool:
    try:
        return args.allow_private_hosts or confine.env_flag(confine.PRIVATE_HOSTS_ENV)
    except ValueError as exc:  # e.g. FRL_ALLOW_PRIVATE_HOSTS=maybe
        raise UsageError(str(exc)) from exc


def _settings(args: argparse.Namespace, roots: tuple[Path, ...], **more: object) -> Settings:
    """The pipeline's settings from the options a command has; a bad value is a UsageError."""
    from ingest.pipeline_settings import Settings
    from ingest.sources.fetch import FetchSettings

    given = {"lens_path": args.lens} if getattr(args, "lens", None) else {}
    try:
        return Settings(
            data_dir=args.data_dir,
            offline=getattr(args, "offline", False),
            source_roots=roots,
            fetch_settings=FetchSettings(allow_private_hosts=_allow_private(args)),
            **given,
            **more,
        )
    except ValueError as exc:  # e.g. a memory limit too small for a worker to start
        raise UsageError(str(exc)) from exc


# ------------------------------------------------------------------------------------- commands


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
    from ingest.pipeline import run

    imports_done()
    settings = _settings(
        args,
        source_roots(args),
        engine=args.engine,
        force=args.force,
        jobs=args.jobs,
        timeout=args.timeout,
        memory_limit_mb=args.memory_limit,
        executor=args.executor,
    )
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
    from ingest.reading.structure_regions import TablesError, parse_pages
    from ingest.tables_command import read_tables, shown_tables  # each page in a child process under ingest's limits

    imports_done()
    try:
        read = read_tables(args.file, parse_pages(args.pages))
    except TablesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    tables, note = shown_tables(read.tables, args.all_tables)
    for n in [*read.notes, *([note] if note else [])]:
        print(f"note: {n}", file=sys.stderr)
    sys.stdout.write(render(tables, args.format))
    return 0


def cmd_discover(args: argparse.Namespace) -> int:
    from ingest.run.isolate import isolate  # every request and download in a limited child process
    from ingest.sources import discover
    from ingest.sources.fetch import FetchSettings

    imports_done()
    store = Store(args.data_dir)
    if args.accept or args.dismiss:
        return discover.accept_or_dismiss(args.reports_dir, store, accept=args.accept, dismiss=args.dismiss)
    source_roots(args)  # a bad $FRL_SOURCE_ROOTS is a usage error here too
    fetch_settings = FetchSettings(allow_private_hosts=_allow_private(args))
    return discover.run(args.watch, args.reports_dir, store, since=args.since, fetch_settings=fetch_settings, isolate=isolate)


def cmd_diff(args: argparse.Namespace) -> int:
    from ingest.analysis.confidence_fit import run_model
    from ingest.analysis.lens import LENS_DIR, known_dimensions, load_lens
    from ingest.analysis.lexicon import load_lexicon
    from ingest.outputs.diff import diff_readings, format_diff
    from ingest.sources.registry import load_registry
    from ingest.versions import Context, VersionError, listing, pair

    imports_done()
    if len(args.versions) not in (0, 2):
        print("error: give no versions (previous vs latest) or two: OLD NEW", file=sys.stderr)
        return 2
    reg = load_registry(args.reports_dir, known_dimensions=known_dimensions(LENS_DIR))
    spec = next((s for s in reg.reports if s.id == args.report), None)
    if spec is None:
        print(f"error: no report {args.report!r} in {args.reports_dir}", file=sys.stderr)
        return 1
    store = Store(args.data_dir)
    if args.list:
        for v in listing(store, spec):
            print(v.line())
        return 0
    settings = _settings(args, (args.reports_dir, *source_roots(args)), jobs=1)
    lens = load_lens(settings.lens_path)
    model = run_model(reg.reports, store, lens)  # the model `python -m ingest` scores this folder with
    ctx = Context(spec, Path(reg.paths[spec.id]), store, settings, load_lexicon(settings.lexicon_path), lens, model)
    try:
        old, new = pair(ctx, *(args.versions or (None, None)))
    except VersionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(format_diff(diff_readings(spec.id, old, new, lens)))
    return 0


# ------------------------------------------------------------------------------------- dispatch


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in (*COMMANDS, "-h", "--help"):
        argv.insert(0, "run")  # the default command: `python -m ingest [FILE ...] [options]`
    try:
        args = build_parsers()[""].parse_args(argv)
        return _run_command(args)
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


def _run_command(args: argparse.Namespace) -> int:
    """The command, with store and OS errors as one line and exit status 1."""
    try:
        return args.func(args)
    except StoreError as exc:  # damaged tables, unwritable data folder or output: one line, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. the disk filled up while writing: earlier data is intact (atomic writes)
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot write{where}: {describe_os_error(exc)}; earlier results are kept", file=sys.stderr)
        return 1


def _setup_error(exc: Exception) -> int | None:
    """Exit status 2 and the message for a broken lexicon or lens or an executor that cannot start;
    None for any other exception."""
    from ingest.sources.registry import SpecFileError

    if isinstance(exc, SpecFileError):  # a broken lexicon or lens: nothing can be counted, say why and stop
        for err in exc.errors:
            print(f"error: {err}", file=sys.stderr)
        return 2
    if isinstance(exc, ExecutorError):  # e.g. the Dask scheduler is unreachable: nothing was ingested
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return None
