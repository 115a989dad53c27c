"""``why``: seed §4's decision tree walked over the snapshot and the same checks."""
