"""Outputs: exports, report cards, statistics, scores, review and curation over the stored tables."""
