"""Floors for table structure on the ICDAR 2013 Table Competition set (a benchmark made by others).

The figures are what `python eval/icdar2013.py --only ours --every 3` prints (every third
document, to keep this test short), rounded down; the full set's figures are in docs/tables.md.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from .conftest import REPO, SHARED

DATA = SHARED / "external" / "icdar2013"


def _eval_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("icdar2013_eval", REPO / "eval" / "icdar2013.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = mod  # (its dataclasses look their module up)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


@pytest.mark.slow  # an eval run over 23 documents: `make test` runs it, `make check` leaves it out
def test_structure_f1_floor_on_icdar2013_complete_process_and_given_regions():
    if not DATA.is_dir():
        pytest.skip("ICDAR 2013 data ../shared/external/icdar2013 not found")
    mod = _eval_module()
    docs = mod.load(DATA)[::3]
    assert len(docs) == 23
    complete, given = mod.evaluate(docs, mod.ours_complete, mod.ours_regions)
    assert complete.prf()[2] >= 0.87, complete.line("complete process")
    assert given.prf()[2] >= 0.92, given.line("given regions")


def test_adjacency_relations_follow_the_competition_definition():
    mod = _eval_module()
    # a b        (b spans two rows; c sits below a; d right of c is b's row too)
    # c
    cells = [(0, 0, 0, 0, "a"), (0, 1, 1, 1, "b"), (1, 0, 1, 0, "c"), (2, 0, 2, 1, "d  e"), (3, 1, 3, 1, "")]
    rels = mod.relations(cells)
    assert rels == {("a", "b", "h"): 1, ("c", "b", "h"): 1, ("a", "c", "v"): 1, ("c", "de", "v"): 1, ("b", "de", "v"): 1}
