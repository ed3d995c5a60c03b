"""`python -m ingest`: see ingest/cli.py."""

from ingest import cli

cli.FREEZE_IMPORTS = True
raise SystemExit(cli.main())
