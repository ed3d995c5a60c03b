"""A decision saved in Review trains the confidence model on the next run (issue 22, confidence_fit.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.analysis import confidence_fit
from ingest.analysis.confidence import FEATURES, load_model
from ingest.analysis.confidence_fit import EXAMPLES_PATH, Examples, fit, load_examples, parse_examples, run_model
from ingest.analysis.lens import DEFAULT_LENS, load_lens
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.sources.registry import load_registry
from ingest.store.store import Store

from .conftest import write_report

SOURCE = """# Tiny Report

## 3 Reinforcement Learning

We adopt GRPO as our RL algorithm for agentic training.
The reward is computed by a rule-based verifier that checks the final answer against the reference.
"""


def test_shipped_examples_load_and_refit_to_the_committed_model() -> None:
    ex = load_examples()
    assert ex is not None and len(ex.y) == len(ex.x) > 0 and all(len(r) == len(FEATURES) for r in ex.x)
    text = EXAMPLES_PATH.read_text(encoding="utf-8")
    assert '"rows"' in text and "quote" not in text  # plain vectors and labels, no text
    # The committed model is the fit of the shipped examples (no Review decisions when it was written).
    committed = load_model()
    if committed.trained_on.get("review", 0) == 0:
        assert fit(ex, committed.threshold).fingerprint == committed.fingerprint


@pytest.mark.parametrize(
    "bad",
    [
        [],
        {"features": ["x"], "rows": [], "labels": []},
        {"features": list(FEATURES), "rows": [[0.0] * len(FEATURES)], "labels": []},
        {"features": list(FEATURES), "rows": [[float("nan")] * len(FEATURES)], "labels": [1]},
        {"features": list(FEATURES), "rows": [["a"] * len(FEATURES)], "labels": [1]},
        {"features": list(FEATURES), "rows": [[0.0] * len(FEATURES)], "labels": [2]},
    ],
)
def test_malformed_examples_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_examples(bad)


def test_missing_examples_file_keeps_the_committed_model(tmp_path: Path) -> None:
    assert load_examples(tmp_path / "none.json") is None
    assert load_examples(_write(tmp_path / "bad.json", "{not json")) is None


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_fit_is_deterministic() -> None:
    ex = load_examples()
    assert ex is not None
    extra = Examples(ex.x[:3], (0, 0, 0), review=3)
    assert fit(ex + extra).coef == fit(ex + extra).coef
    assert fit(ex + extra).fingerprint != fit(ex).fingerprint


def _cells(data: Path) -> dict[str, float | None]:
    ann = Store(data).load_bundle("tiny").annotation
    assert ann is not None
    return {dim: cell.confidence for dim, cell in ann.cells.items()}


def test_curated_decision_changes_the_model_on_the_next_run(tmp_path: Path) -> None:
    reports, data = tmp_path / "reports", tmp_path / "data"
    (reports / "sources").mkdir(parents=True)
    (reports / "sources" / "tiny.md").write_text(SOURCE, encoding="utf-8")
    write_report(reports, "tiny", "source:\n  path: sources/tiny.md\n")
    settings = Settings(data_dir=data, offline=True, jobs=1)
    first = run(reports_dir=reports, settings=settings)
    assert [o.status for o in first.outcomes] == ["ok"]
    before, fp_before = _cells(data), Store(data).load_bundle("tiny").meta.fingerprint
    lens = load_lens(DEFAULT_LENS)
    assert run_model(load_registry(reports).reports, Store(data), lens) == load_model()  # no decision yet

    # A Review decision: the curator replaces the automatic algorithm.
    write_report(reports, "tiny", "source:\n  path: sources/tiny.md\ncurated:\n  rl_algorithm:\n    value: [PPO]\n")
    model = run_model(load_registry(reports).reports, Store(data), lens)
    assert model.trained_on == {"gold": len(load_examples().y), "review": 1}
    assert model.fingerprint != load_model().fingerprint and model.coef != load_model().coef
    second = run(reports_dir=reports, settings=settings)
    assert [o.status for o in second.outcomes] == ["ok"]  # re-scored, not kept from the cache
    after = _cells(data)
    assert Store(data).load_bundle("tiny").meta.fingerprint != fp_before
    assert after != before and set(after) == set(before)
    # The features do not depend on the model: the next run fits the same model and keeps the bundle.
    third = run(reports_dir=reports, settings=settings)
    assert [o.status for o in third.outcomes] == ["cached"]
    # Confirming the automatic value instead is another example (labelled right): another model.
    auto = Store(data).load_bundle("tiny").annotation.cells["rl_algorithm"].value
    write_report(
        reports, "tiny", f"source:\n  path: sources/tiny.md\ncurated:\n  rl_algorithm:\n    value: {json.dumps(list(auto))}\n"
    )
    assert run_model(load_registry(reports).reports, Store(data), lens).fingerprint != model.fingerprint


def test_an_unchanged_refit_is_read_back_not_fitted_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm re-run with Review decisions neither imports scikit-learn nor fits: the refit is kept
    under its examples' digest (a new decision is another digest, and so another fit)."""
    reports, data = tmp_path / "reports", tmp_path / "data"
    (reports / "sources").mkdir(parents=True)
    (reports / "sources" / "tiny.md").write_text(SOURCE, encoding="utf-8")
    write_report(reports, "tiny", "source:\n  path: sources/tiny.md\n")
    assert not run(reports_dir=reports, settings=Settings(data_dir=data, offline=True, jobs=1)).failed
    write_report(reports, "tiny", "source:\n  path: sources/tiny.md\ncurated:\n  rl_algorithm:\n    value: [PPO]\n")
    specs, lens, cache = load_registry(reports).reports, load_lens(DEFAULT_LENS), tmp_path / "refit.json"
    fitted = run_model(specs, Store(data), lens, cache=cache)
    monkeypatch.setattr(confidence_fit, "fit", lambda *a, **k: pytest.fail("fitted again"))
    kept = run_model(specs, Store(data), lens, cache=cache)
    assert kept == fitted and kept.fingerprint == fitted.fingerprint
    cache.write_text("{broken", encoding="utf-8")  # unreadable: fitted again, never an error
    monkeypatch.setattr(confidence_fit, "fit", lambda ex, thr: fitted)
    assert run_model(specs, Store(data), lens, cache=cache).fingerprint == fitted.fingerprint
