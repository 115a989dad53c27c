"""The floor everything stands on: findings, evidence, the Snapshot and the diagnosis."""
