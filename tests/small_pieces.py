"""Large-List decoding forced into small pieces (``sources/decode.py`` streams files above
``STREAM_THRESHOLD`` in chunks cut between items), so a test sees the piecewise path on a
small bundle."""

from __future__ import annotations

import pytest

from gpuxray.sources import decode


def stream_in_small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decode, "STREAM_THRESHOLD", 1)
    monkeypatch.setattr(decode, "_CHUNK_BYTES", 4000)
    monkeypatch.setattr(decode, "_STEP_BYTES", 600)
    monkeypatch.setattr(decode, "_MAX_MISCUTS", 10_000)
