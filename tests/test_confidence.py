"""Confidence of comparison cells (issue 22): features, the committed model, the review queue, the cue report."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from ingest.analysis.annotate import annotate
from ingest.analysis.confidence import (
    BASE_FEATURES,
    FEATURES,
    KIND_ONLY,
    MODEL_PATH,
    PER_KIND,
    DocContext,
    Model,
    Support,
    features,
    load_model,
    parse_model,
    unsure,
    with_doc_methods,
)
from ingest.analysis.evidence import Sentence, sentences
from ingest.analysis.lens import DEFAULT_LENS, load_lens
from ingest.common.records import Annotation
from ingest.outputs import review
from ingest.reading.sections import Segment

from .conftest import REPO


@pytest.fixture(scope="module")
def lens():
    return load_lens(DEFAULT_LENS)


def _s(i: int, heading: str, section: str = "body") -> Sentence:
    return Sentence(f"sentence {i}", 1, "1", section, i, heading)


def test_features_count_independent_sentences_and_where_they_stand() -> None:
    sents = (_s(0, "Abstract"), _s(1, "3 RL Training"), _s(1, "3 RL Training"), _s(2, "A Details", "appendix"))
    f = features(Support("algorithm", default=False, sentences=sents, definition=True), DocContext(frozenset({0}), 100))
    assert set(f) == own_features("algorithm") and own_features("algorithm") <= set(FEATURES)
    assert f["n_support"] == round(math.log1p(3), 4)  # the repeated sentence counts once
    assert f["n_method"] == round(math.log1p(1), 4)  # not the abstract, not the appendix
    assert f["n_background"] == round(math.log1p(1), 4)  # the abstract
    assert f["kind_algorithm"] == 1.0 and f["kind_level"] == 0.0 and f["definition"] == 1.0


def test_document_structure_features_and_stage_talk_outside_own_work() -> None:
    """Headings and sentences per heading are facts of the document (no per-kind copies); the stage named
    outside the authors' own work counts only for a cell of methods mentioned (issue 33, doubt)."""
    ctx = DocContext(frozenset(), 200, headings=4, topic_not_own=6)
    ment = features(Support("mentioned", default=True), ctx)
    alg = features(Support("algorithm", default=True), ctx)
    assert ment["doc_headings"] == alg["doc_headings"] == round(math.log1p(4), 4)
    assert ment["sents_per_heading"] == round(math.log1p(50), 4)
    assert ment["topic_not_own"] == round(math.log1p(6), 4) and alg["topic_not_own"] == 0.0
    assert not any(k.endswith((":doc_headings", ":sents_per_heading", ":topic_not_own")) for k in FEATURES)
    # the methods a document names: per kind only, and set after the algorithm dimensions are read
    multi = features(Support("multi", default=True), DocContext())
    assert multi["multi:doc_methods"] == 0.0 and "doc_methods" not in multi
    assert with_doc_methods(multi, 5)["multi:doc_methods"] == round(math.log1p(5), 4)
    # no heading at all: the whole text under one
    assert features(Support("level", default=True), DocContext(sentences=30))["sents_per_heading"] == round(math.log1p(30), 4)


def test_annotate_counts_headings_and_stage_sentences_outside_own_work(lens) -> None:
    segs = [Segment("body", 1, "1", "2 Related Work\nPrior work applies reinforcement learning to reasoning [3].\n"
                                    "3 Training\nWe adopt GRPO as our RL algorithm with a rule-based reward.")]  # fmt: skip
    cells = annotate(sentences(segs), lens).cells
    ment = next(c for d, c in cells.items() if lens.dimension(d).kind == "mentioned")
    assert ment.features is not None and ment.features["topic_not_own"] == round(math.log1p(1), 4)
    assert ment.features["doc_headings"] == round(math.log1p(2), 4)
    # the distinct methods the algorithm evidence names, on every cell under its own kind only
    assert all(c.features and f"{lens.dimension(d).kind}:doc_methods" in c.features for d, c in cells.items())
    assert ment.features["mentioned:doc_methods"] == round(math.log1p(1), 4)  # GRPO


def test_committed_model_loads_and_covers_only_known_features() -> None:
    data = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    model = parse_model(data)
    assert set(model.coef) <= set(FEATURES) and 0 < model.threshold < 1
    assert load_model().fingerprint == model.fingerprint


@pytest.mark.parametrize(
    "bad",
    [[], {"coef": []}, {"coef": {"nope": 1.0}, "intercept": 0}, {"coef": {"n_support": float("nan")}, "intercept": 0},
     {"coef": {}, "intercept": "x"}, {"coef": {}, "intercept": 0, "threshold": 1.5}],
)  # fmt: skip
def test_hostile_model_json_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_model(bad)


def test_unreadable_model_file_falls_back(tmp_path) -> None:
    p = tmp_path / "confidence.json"
    p.write_text("{not json", encoding="utf-8")
    assert load_model(p).coef == load_model(tmp_path / "missing.json").coef


def own_features(kind: str) -> set[str]:
    """A cell stores the shared features and its own kind's copies (the other kinds' are 0, not stored)."""
    return set(BASE_FEATURES) | {f"{kind}:{f}" for f in (*PER_KIND, *KIND_ONLY)}


def test_every_automatic_cell_gets_a_probability_and_its_features(lens) -> None:
    segs = [Segment("body", 1, "1", "3 RL Training\nWe adopt GRPO as our RL algorithm with a rule-based reward.")]
    cells = annotate(sentences(segs), lens).cells
    for dim, cell in cells.items():
        assert cell.features is not None and set(cell.features) == own_features(lens.dimension(dim).kind), dim
        assert cell.confidence is not None and 0 < cell.confidence < 1, dim


def test_cell_features_survive_the_stored_json(lens) -> None:
    segs = [Segment("body", 1, "1", "We adopt GRPO as our RL algorithm with a rule-based reward.")]
    ann = annotate(sentences(segs), lens)
    back = Annotation.from_json(json.loads(json.dumps(ann.to_json())))
    assert back.cells["rl_algorithm"].features == ann.cells["rl_algorithm"].features


def test_unsure_is_below_the_threshold_for_automatic_cells_only() -> None:
    m = Model({}, 0.0, threshold=0.8)
    assert unsure("auto", 0.5, m) and not unsure("auto", 0.85, m)
    assert not unsure("curated", 0.1, m)
    assert unsure("auto", None, m) and unsure("auto", float("nan"), m)  # never measured: to review


def _cmp(rows: list[tuple[str, str, str, str | None, float | None]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["report_id", "dimension", "origin", "auto_value", "confidence"])


def test_review_queue_orders_pending_cells_least_sure_first() -> None:
    c = _cmp([
        ("a", "x", "auto", "GRPO", 0.9), ("a", "y", "curated", "PPO", 0.1), ("b", "x", "auto", "DPO", 0.3),
        ("b", "y", "auto", "none", None), ("c", "x", "none", None, None),
    ])  # fmt: skip
    q = review.review_queue(c)
    assert list(zip(q["report_id"], q["dimension"], strict=True)) == [("b", "y"), ("b", "x"), ("a", "x")]
    assert review.next_least_sure(c) == "b"
    assert review.next_least_sure(c, after="b") == "a"
    assert review.next_least_sure(c[c["report_id"] != "b"], after="a") == "a"  # the only one left
    assert review.next_least_sure(c[c["origin"] != "auto"]) is None


def test_confident_counts_use_the_model_threshold() -> None:
    thr = load_model().threshold
    c = _cmp(
        [
            ("a", "x", "auto", "GRPO", thr),
            ("a", "y", "curated", "PPO", min(1.0, thr + 0.0005)),
            ("b", "x", "auto", "DPO", thr / 2),
        ]
    )
    assert review.confident_counts(c) == (2, 3)


def _cue_report():
    import importlib.util
    import sys

    if "cue_report" not in sys.modules:
        spec = importlib.util.spec_from_file_location("cue_report", REPO / "eval" / "cue_report.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["cue_report"] = mod  # dataclasses look their module up while the class is made
        spec.loader.exec_module(mod)
    return sys.modules["cue_report"]


def test_cue_report_walks_every_cue_and_ablates_one_at_a_time(lens) -> None:
    cr = _cue_report()
    cues = list(cr.lens_cues(lens))
    dim = lens.dimension("reward_source")
    assert sum(c.path[:3] == ("dimensions", 0, "categories") for c in cues) == sum(len(c.cues) for c in dim.categories)
    assert any("all_of" in c.path for c in cues) and any("introduces" in c.path for c in cues)
    assert any("under_heading" in c.path for c in cues)  # an indicator's heading rule is ablated too
    for cue in cues[:3] + [c for c in cues if "introduces" in c.path][:1]:
        ablated = cr.without(lens, cue)  # still a valid lens, one pattern fewer that can match
        assert ablated.fingerprint != lens.fingerprint
    row = cr.CueRow(cues[0], 1, 3, {k: 0.0 for k in cr.FIGURES} | {"rs_f1": -0.01})
    assert row.fitted and not cr.CueRow(cues[0], 2, 3, row.delta).fitted


def _train():
    import sys

    sys.path.insert(0, str(REPO / "eval"))
    import confidence_loo

    return confidence_loo


def _ex(doc: str, p: float, ok: bool):
    # one feature carries the probability's rank, so a refit model orders the cells the same way
    tc = _train()
    return tc.Example(doc, "x", {"n_support": p}, ok, "gold")


def test_threshold_is_the_lowest_probability_whose_confident_cells_meet_the_target() -> None:
    tc = _train()
    pairs = [(_ex("a", 0, ok), p) for p, ok in ((0.95, True), (0.9, True), (0.8, True), (0.7, False), (0.6, True))]
    assert tc.choose_threshold(pairs, target=0.95) == 0.8  # 0.7 would let a wrong cell in
    assert tc.choose_threshold(pairs, target=0.75) == 0.6  # 4 of 5 right
    assert tc.choose_threshold([(_ex("a", 0, False), 0.99)]) == tc.NONE_SURE  # nothing qualifies


def test_threshold_of_a_held_out_document_never_sees_its_labels() -> None:
    tc = _train()
    docs = {d: [_ex(d, v, v > 0.5) for v in (0.2, 0.6, 0.9)] for d in "abcd"}
    flipped = {**docs, "a": [_ex("a", e.features["n_support"], not e.correct) for e in docs["a"]]}
    thr = {e.doc: t for e, _, t in tc.nested_loo([e for d in docs.values() for e in d])}
    thr_flipped = {e.doc: t for e, _, t in tc.nested_loo([e for d in flipped.values() for e in d])}
    assert thr["a"] == thr_flipped["a"]  # chosen on b, c, d only
    assert thr["b"] != thr_flipped["b"] or thr["b"] == tc.NONE_SURE  # a's labels do reach the others' folds


def test_queue_doubt_expects_the_wrong_cells_of_the_least_sure_third() -> None:
    c = _cmp([
        ("a", "x", "auto", "GRPO", 0.2), ("a", "y", "auto", "PPO", 0.9), ("b", "x", "auto", "DPO", 0.6),
        ("b", "y", "curated", "none", 0.1),
    ])  # fmt: skip
    d = review.queue_doubt(c)
    assert (d.pending, d.first) == (3, 1)
    assert d.wrong_first == pytest.approx(0.8) and d.wrong_all == pytest.approx(0.8 + 0.1 + 0.4)


def test_review_note_drops_confident_when_no_cut_was_right_held_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from views.review import doubt_note

    monkeypatch.setattr(review, "labels_confident", lambda model=None: False)
    note = doubt_note(0, 3, review.QueueDoubt(3, 1, 0.8, 1.3))
    assert "No cell is labelled confident" in note and "first third (1 of 3" in note and "about 1 wrong" in note
