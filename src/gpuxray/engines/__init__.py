"""Domain engines: the real logic checks call (capacity, scheduling, containerd, MIG,
signatures)."""
