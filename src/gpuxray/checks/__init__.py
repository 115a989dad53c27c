"""Checks, one module per layer, registered by code in :mod:`gpuxray.checks.registry`."""
