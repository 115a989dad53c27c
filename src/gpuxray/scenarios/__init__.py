"""Scenario bundles built by code: the builder of realistic objects and the shipped demo."""
