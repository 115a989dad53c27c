"""``why`` run with every pod of a bundle decoded whole, for tests that hold the slim decode
(other pods as PodCore where the answer needs no more, ``diagnose/why.py`` ``core_enough``) to
the same answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Run = Callable[..., tuple[int, Any]]


def also_from_whole_pods(gx: Run, *args: str) -> tuple[int, Any]:
    from gpuxray.cli import cmd_why

    cmd_why.CORE_PODS = False
    try:
        return gx(*args)
    finally:
        cmd_why.CORE_PODS = True
