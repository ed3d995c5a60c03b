"""What every stage shares and may import: the typed records the stages hand each other and the
store keeps (`records.py`, their JSON in `jsonrecord.py`), the extracted document and its limits
(`document.py`), and atomic file writes (`atomic.py`). It imports no stage."""
