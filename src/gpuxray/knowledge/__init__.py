"""Knowledge as data: codes, operands, labels, Xids, MIG profiles, signatures (DESIGN.md §4)."""
