"""Frontier Report Lens: ingest technical reports, count keywords, build an evidence-linked comparison.

Pipeline stages, one module each: registry → fetch → extract → sections → keywords →
evidence → annotate → store/export. `ingest.pipeline.run` ties them together.
"""
