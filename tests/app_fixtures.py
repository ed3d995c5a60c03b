"""A synthetic store for the dashboard tests and bench/app_speed.py, built directly as tables.

No PDFs and no pipeline: the app only reads tables, so tests write the tables of the
contract (reports, status, sections, counts, kwic, reported, comparison, evidence).
"""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd

from ingest.store import Store

ORGS = ("Lab A", "Lab B", "Lab C", "Lab D")
DOC_TYPES = ("arxiv", "github-pdf", "blog", "other")
VALUES: dict[str, tuple[str, ...]] = {
    "reward_source": ("rule-based/verifiable", "environment-execution", "reward-model", "not disclosed"),
    "credit_granularity": ("trajectory/outcome", "turn/step", "token", "not disclosed"),
    "rl_algorithm": ("GRPO", "PPO", "CISPO", "not disclosed"),
    "rl_algorithm_mentioned": ("GRPO", "DPO", "not disclosed"),
    "disclosure": ("detailed", "medium", "low", "none"),
    "rl_disclosure": ("detailed", "medium", "low", "none"),
}
TERMS = ("agentic", "agent", "tool", "reward", "credit assignment")


def build_tables(n: int = 3, seed: int = 7) -> dict[str, pd.DataFrame]:
    """Tables for `n` reports; report 0 is curated and disagrees on rl_algorithm, every report has KWIC lines."""
    rnd = random.Random(seed)
    reports, status, sections, counts, kwic, reported, comparison, evidence = ([] for _ in range(8))
    for i in range(n):
        rid = f"r{i:04d}"
        words = {"body": 8000 + 37 * i, "appendix": 1000, "references": 1500}
        words["all"] = sum(words.values())
        reports.append({
            "report_id": rid, "model": f"Model {i:04d}", "organization": ORGS[i % len(ORGS)], "country": "Nowhere",
            "released": None, "doc_type": DOC_TYPES[i % len(DOC_TYPES)], "arxiv_id": None, "params": f"{i + 1}B",
            "tags": "synthetic", "notes": "wording about sandboxes" if i == 1 else None, "source_url": None,
            "source_path": None, "yaml_path": None, "has_source": True, "measured": True, "pages": 20,
            "words": words["all"], "word_rule": "whitespace", "kind": "pdf", "engine": "pdfium", "sha256": "0" * 64,
            "ingested_at": "2026-01-01T00:00:00+00:00", "extraction_notes": "",
        })  # fmt: skip
        status.append({"report_id": rid, "status": "ok", "message": "extracted", "seconds": 0.1,
                       "finished_at": "2026-01-01T00:00:00+00:00", "file": f"reports/{rid}.yaml"})  # fmt: skip
        for sec, (a, b) in {"body": (1, 14), "references": (15, 17), "appendix": (18, 20)}.items():
            sections.append({"report_id": rid, "section": sec, "start_page": a, "end_page": b,
                             "heading": sec.title(), "words": words[sec]})  # fmt: skip
        for t in TERMS:
            per = {"body": rnd.randint(0, 40), "appendix": rnd.randint(0, 5), "references": rnd.randint(0, 5)}
            if t == "credit assignment":
                per = {"body": 0, "appendix": 0, "references": 0}
            per["all"] = sum(per.values())
            for sec, c in per.items():
                counts.append({"report_id": rid, "section": sec, "group": "study", "term": t, "rule": "substring",
                               "count": c, "words": words[sec], "density": round(c * 1000 / words[sec], 4)})  # fmt: skip
            for k in range(min(per["body"], 2)):
                kwic.append({"report_id": rid, "group": "study", "term": t, "section": "body", "page": 3 + k,
                             "page_label": str(3 + k), "left": "we train the ", "match": t, "right": " with RL",
                             "offset": 100 * k})  # fmt: skip
        if i == 0:
            reported += [{"report_id": rid, "term": t, "count": 5, "words": 12000, "density": 0.4167, "scope": "whole-document",
                          "note": None, "from": "synthetic study"} for t in TERMS]  # fmt: skip
        for dim, vals in VALUES.items():
            v = vals[(i + len(dim)) % len(vals)]
            curated = i == 0
            comparison.append({
                "report_id": rid, "dimension": dim, "value": v, "origin": "curated" if curated else "auto",
                "confidence": 0.8, "quote": f"We use {v} for training.", "page": 5, "page_label": "5", "section": "body",
                "detail": f"{v} (as the study words it)" if curated else None, "notes": None,
                "auto_value": "PPO" if curated and dim == "rl_algorithm" else v,
                "disagree": curated and dim == "rl_algorithm", "indicators": None,
            })  # fmt: skip
            evidence.append({"report_id": rid, "dimension": dim, "category": v, "rank": 1, "score": 0.9,
                             "quote": f"We use {v} for training.", "page": 5, "page_label": "5", "section": "body"})  # fmt: skip
    frames = {
        "reports": reports, "status": status, "sections": sections, "counts": counts, "kwic": kwic,
        "reported": reported, "comparison": comparison, "evidence": evidence,
    }  # fmt: skip
    out = {k: pd.DataFrame(v) for k, v in frames.items()}
    out["comparison"]["page"] = out["comparison"]["page"].astype("Int64")
    return out


def write_store(root: Path, n: int = 3, seed: int = 7) -> Store:
    """Write the synthetic tables into a store at `root` (parquet, like the pipeline)."""
    store = Store(root)
    for name, df in build_tables(n, seed).items():
        store.write_table(name, df)
    return store
