"""Sources: a report's YAML, its schema, and where its file may come from (URLs, hosts, confinement, fetch)."""
