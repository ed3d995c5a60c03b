"""A report without the training stage a lens is about: "no RL stage", distinct from "not disclosed".

Why: "not disclosed" tells a reader the report hides how it does RL; a report whose model is trained
without RL (an SFT-only model, a systems or architecture report) must not read as hiding anything.
The lens declares the value and its tests (`no_stage:`); the codebook's `rl_used: no` is what it
follows. A report has the stage when it uses a named method of the source dimension (other than the
`ignore`d ones, such as rejection-sampling fine-tuning) or one of its own-training sentences says
its model goes through the stage; otherwise the cell says "no RL stage", quoting the sentence that
says so (`negated`) or, failing that, the one that says how the model is trained (`evidence`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.analysis.cues import Hits, alternation, rx_hit
from ingest.analysis.evidence import Sentence
from ingest.analysis.lens import NOT_DISCLOSED, Lens


@dataclass(frozen=True)
class NoStage:
    """The finding: the value to show, the sentence behind it, and whether the report says so outright."""

    value: str
    sentence: Sentence | None
    said: bool


def no_stage(own: list[Sentence], lens: Lens, used: tuple[str, ...]) -> NoStage | None:
    """The "no stage" finding for a report whose own-training sentences are `own` and whose source
    dimension's used methods are `used`; None when the report has the stage (or the lens declares none)."""
    ns = lens.no_stage
    if ns is None or any(m not in ns.ignore and m != NOT_DISCLOSED for m in used):
        return None
    stage, negated, evidence = alternation(ns.stage), alternation(ns.negated), alternation(ns.evidence)
    said = next((s for s in own if rx_hit(negated, s.text)), None)
    heads = Hits(alternation(ns.stage_headings))  # each heading tested once
    if any((rx_hit(stage, s.text) or heads[s.heading]) and not rx_hit(negated, s.text) for s in own):
        return None
    if said is not None:
        return NoStage(ns.value, said, True)
    return NoStage(ns.value, next((s for s in own if rx_hit(evidence, s.text)), None), False)
