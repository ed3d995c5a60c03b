"""Running: child processes with time and memory limits, and the caches warmed before they fork."""
