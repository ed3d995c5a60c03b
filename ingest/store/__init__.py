"""Store: typed records and the data folder they are written to atomically, plus the tidy tables built from them."""
