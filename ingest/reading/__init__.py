"""Reading: faithful text, sections and table layout from a fetched file."""
