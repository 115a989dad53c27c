"""Renderers only format Findings, Diagnosis and tables; they import the model, never checks."""
