"""Dashboard pages, one module per page; they only display and call `ingest` functions."""
