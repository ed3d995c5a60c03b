"""Command-line options shared by `ingest.cli` and `ingest.follow_cli` (kept apart so neither imports the other)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ingest.sources import confine


def folder(text: str) -> Path:
    """argparse type of --source-root: an existing folder (a typo fails before any work)."""
    p = Path(text).expanduser()
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return p


def roots_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--source-root",
        type=folder,
        action="append",
        default=[],
        metavar="DIR",
        help=f"another folder local sources may come from (repeatable; also ${confine.ROOTS_ENV}); "
        "the reports folder is always allowed",
    )
