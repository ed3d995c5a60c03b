"""The README documents every CLI option and rule, and its commands are what CI runs."""

from __future__ import annotations

import re

from ingest.analysis.lexicon import Term
from ingest.cli import build_parser

from .conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_documents_every_cli_option_with_an_example():
    for name, parser in build_parser().items():
        for action in parser._actions:
            for opt in action.option_strings:
                if opt in ("-h", "--help"):
                    continue
                assert f"`{opt}" in README, f"README lacks option {opt} of {name}"
                assert re.search(rf"python -m ingest[^\n`]*{re.escape(opt)}", README), f"no example for {opt}"


def test_readme_documents_every_match_rule():
    for rule in Term.model_fields["rule"].annotation.__args__:
        assert f"| `{rule}` |" in README


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test    #" in README and "make app     #" in README
    assert re.search(r"^make test$", ci, re.M)
