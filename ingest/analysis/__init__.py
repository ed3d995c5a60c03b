"""Analysis: keyword counts, evidence sentences, lens decisions and benchmark results from read text."""
