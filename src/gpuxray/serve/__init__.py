"""``gpuxray serve``: a read-only Kubernetes API over a bundle, so kubectl and k9s can browse it."""
