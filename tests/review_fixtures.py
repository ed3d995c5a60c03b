"""Small reports built with the real pipeline for the Review tests (AppTest and browser).

Two Markdown sources with known sentences, report files with comments (which a review must
keep), ingested by `ingest.pipeline.run` into a data folder, exactly as `python -m ingest` would.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ALPHA_MD = """# Alpha Technical Report

## 1 Introduction

Alpha is an agentic model trained with reinforcement learning for tool use.

## 3 Reinforcement Learning

We adopt GRPO as our RL algorithm for agentic training.
The reward is computed by a rule-based verifier that checks the final answer against the reference.
For coding tasks the reward comes from executing unit tests in a sandbox environment.
The advantage is computed at the trajectory level from the outcome reward of each rollout.
We compare against PPO as a baseline.

## References

Schulman et al. Proximal policy optimization algorithms. 2017.
"""

BETA_MD = """# Beta Report

## 2 Post-training

We train Beta with PPO and a learned reward model trained on human preference pairs.
"""

ALPHA_YAML = """# Alpha: a report file with comments that must survive a review.
id: alpha
model: Alpha   # inline comment
organization: Lab A
doc_type: blog
arxiv_id: "2501.00001"
source:
  path: sources/alpha.md
params: 7B dense
tags: [test]
# reported figures from somewhere
reported:
  from: somebody
  words: 100
"""

BETA_YAML = """id: beta
model: Beta
organization: Lab B
doc_type: other
source:
  path: sources/beta.md
  url: https://example.org/beta.pdf  # the local copy wins
curated:
  # checked by hand earlier
  rl_algorithm:
    value: [PPO]
    detail: PPO with a value model
    notes: study
"""


def build(root: Path) -> tuple[Path, Path]:
    """Write reports/ and ingest them into data/ under `root`; returns (reports_dir, data_dir)."""
    from ingest.pipeline import run
    from ingest.pipeline_settings import Settings

    reports, data = root / "reports", root / "data"
    (reports / "sources").mkdir(parents=True, exist_ok=True)
    (reports / "sources" / "alpha.md").write_text(ALPHA_MD, encoding="utf-8")
    (reports / "sources" / "beta.md").write_text(BETA_MD, encoding="utf-8")
    (reports / "alpha.yaml").write_text(ALPHA_YAML, encoding="utf-8")
    (reports / "beta.yaml").write_text(BETA_YAML, encoding="utf-8")
    result = run(reports_dir=reports, settings=Settings(data_dir=data, offline=True))
    assert not result.failed, [o.message for o in result.failed]
    return reports, data


def copy_built(template: Path, root: Path) -> tuple[Path, Path]:
    """A private copy of a built tree (the pipeline run once per test module, copied per test)."""
    shutil.copytree(template / "reports", root / "reports")
    shutil.copytree(template / "data", root / "data")
    return root / "reports", root / "data"
