"""Sources turn the world into a Snapshot. Only sources do I/O (DESIGN.md §1)."""
