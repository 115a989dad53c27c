"""gpuxray: read-only diagnostics for the NVIDIA GPU Operator stack on Kubernetes."""

__version__ = "0.1.0"
