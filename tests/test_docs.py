"""The README is a short user manual whose CLI reference is the commands' own --help; the rest lives in docs/."""

from __future__ import annotations

import re

from docs import cli_reference
from ingest.analysis.lexicon import Term
from ingest.cli import COMMANDS, build_parsers

from .conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS = REPO / "docs"
#: Documents of work in progress elsewhere that the README already links to; drop a name once its file lands.
PENDING: set[str] = set()  # docs a README link may name before they land (none now)


def test_readme_is_a_manual_of_at_most_300_lines():
    assert len(README.splitlines()) <= 300


def test_readme_cli_reference_is_the_current_help_output():
    """Regenerate with `python docs/cli_reference.py` after changing an option."""
    assert cli_reference.replace_block(README, cli_reference.render()) == README
    assert cli_reference.main(["--check"]) == 0


def test_readme_cli_reference_covers_every_command_and_option():
    parsers = build_parsers()
    assert parsers.keys() == {"", *COMMANDS}
    top_help = parsers[""].format_help()
    for name, parser in parsers.items():
        assert f"### `{f'python -m ingest {name}'.strip()}`" in README
        assert name in top_help  # `python -m ingest --help` lists every command
        for action in parser._actions:
            for opt in action.option_strings:
                assert opt in README, f"README lacks option {opt} of {name}"


def test_counting_rules_document_every_match_rule():
    counting = (DOCS / "counting.md").read_text(encoding="utf-8")
    for rule in Term.model_fields["rule"].annotation.__args__:
        assert f"| `{rule}` |" in counting


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test    #" in README and "make app     #" in README
    assert re.search(r"^make test$", ci, re.M)


def test_make_targets_the_readme_names_exist():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in re.findall(r"`make (\w+)`", README):
        assert re.search(rf"^{target}:", makefile, re.M), f"Makefile lacks target {target}"


def test_readme_links_point_to_files():
    for link in re.findall(r"\]\(((?:docs|bench)/[^)#]+)", README):
        assert (REPO / link).exists() or link in PENDING, f"README links to missing {link}"


def test_no_bench_diary_or_unsourced_figures_in_the_manual():
    """Bench history goes to bench/RESULTS.md (written by the benches); no figure from an uncommitted script."""
    assert not re.search(r"\b20\d\d-\d\d-\d\d \d\d:\d\d\b|\bUTC\b|load average \d", README)
    code = [REPO / "app.py", *(p for d in ("ingest", "views", "bench", "eval") for p in (REPO / d).rglob("*.py"))]
    for doc in [REPO / "README.md", *DOCS.glob("*.md"), *code]:
        text = doc.read_text(encoding="utf-8")
        assert "one-off" not in text, f"{doc.relative_to(REPO)} cites a script that is not committed"
