"""Command line for following the field: `discover` new reports and `diff` two versions of one.

    python -m ingest discover [--since YYYY-MM-DD]     # candidates into reports/incoming/, a table
    python -m ingest discover --accept ID              # move one candidate into reports/
    python -m ingest discover --dismiss ID             # drop one candidate (it is not proposed again)
    python -m ingest diff ID [OLD NEW]                 # what changed between two versions
    python -m ingest diff ID --list                    # the stored versions of a report

Kept apart from `ingest.cli` (which dispatches here) so those parsers stay as they are.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path

from ingest.cli_options import roots_option
from ingest.sources import confine
from ingest.store.store import DEFAULT_DATA_DIR, Store

DEFAULT_REPORTS_DIR = Path(__file__).resolve().parent.parent / "reports"
DEFAULT_WATCH = Path(__file__).resolve().parent.parent / "data" / "watch.yaml"
COMMANDS = ("discover", "diff")


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from None


def _private(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-private-hosts",
        action="store_true",
        help=f"let requests reach loopback, private and link-local addresses (also ${confine.PRIVATE_HOSTS_ENV}=1)",
    )


def _common(p: argparse.ArgumentParser) -> None:
    roots_option(p)
    p.add_argument("--reports-dir", type=Path, default=DEFAULT_REPORTS_DIR, help="folder of report YAML files")
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="data folder (default: data/)")
    _private(p)


def discover_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ingest discover",
        description="Find candidate reports published since a date (arXiv, GitHub, lab feeds; see data/watch.yaml) "
        "and propose a YAML file for each in reports/incoming/.",
    )
    p.add_argument("--since", type=_date, default=None, metavar="YYYY-MM-DD", help="published on or after (default: last run)")
    p.add_argument("--watch", type=Path, default=DEFAULT_WATCH, help="watch list (default: data/watch.yaml)")
    p.add_argument("--accept", metavar="ID", default=None, help="move candidate ID from reports/incoming/ into reports/")
    p.add_argument("--dismiss", metavar="ID", default=None, help="drop candidate ID; it is not proposed again")
    _common(p)
    return p


def diff_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ingest diff", description="Show what changed between two versions of a report's source."
    )
    p.add_argument("report", metavar="ID", help="report id")
    p.add_argument("versions", nargs="*", metavar="VERSION", help="OLD NEW: labels, 'previous', 'latest' or hash prefixes")
    p.add_argument("--list", action="store_true", help="list the stored versions and stop")
    p.add_argument("--offline", action="store_true", help="read declared versions from the download cache only")
    _common(p)
    return p


# Each command imports what it needs: discover needs no pipeline (about 0.9 s of CPU), diff no
# discovery (0.65 s); the version and model modules cost 0.8 s and 0.4 s (bench/import_costs.py).
def _settings(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from ingest.pipeline import Settings
    from ingest.sources.fetch import FetchSettings

    private = args.allow_private_hosts or confine.env_flag(confine.PRIVATE_HOSTS_ENV)
    return Settings(
        data_dir=args.data_dir,
        offline=getattr(args, "offline", False),
        source_roots=(args.reports_dir, *args.source_root, *confine.env_roots()),
        fetch_settings=FetchSettings(allow_private_hosts=private),
        jobs=1,
    )


def cmd_diff(args: argparse.Namespace) -> int:
    from ingest.analysis.confidence_fit import run_model
    from ingest.analysis.lens import LENS_DIR, known_dimensions, load_lens
    from ingest.analysis.lexicon import load_lexicon
    from ingest.outputs.diff import diff_readings, format_diff
    from ingest.sources.registry import load_registry
    from ingest.versions import Context, VersionError, listing, pair

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
    settings = _settings(args)
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


def cmd_discover(args: argparse.Namespace) -> int:
    from ingest.sources import discover

    settings = _settings(args)
    if args.accept or args.dismiss:
        return discover.accept_or_dismiss(args.reports_dir, Store(args.data_dir), accept=args.accept, dismiss=args.dismiss)
    return discover.run(
        args.watch, args.reports_dir, Store(args.data_dir), since=args.since, fetch_settings=settings.fetch_settings
    )


def main(command: str, argv: Sequence[str]) -> int:
    """Run `discover` or `diff` with these arguments; bad settings are one line and status 2."""
    parser = discover_parser() if command == "discover" else diff_parser()
    args = parser.parse_args(list(argv))
    try:
        return (cmd_discover if command == "discover" else cmd_diff)(args)
    except ValueError as exc:  # e.g. FRL_ALLOW_PRIVATE_HOSTS=maybe
        print(f"error: {exc}", file=sys.stderr)
        return 2
