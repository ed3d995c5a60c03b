"""`python -m ingest`: see ingest/cli.py."""

from .cli import main

raise SystemExit(main())
