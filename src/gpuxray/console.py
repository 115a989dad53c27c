"""The rich Console gpuxray prints through: stdout for reports, stderr for progress.

``NO_COLOR`` is honoured, and ``COLUMNS`` fixes the width so golden files are stable. It sits on
the package floor, beside ``errors``, because both the CLI's reports and a source's progress
lines print through it.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from rich.console import Console


def make_console(file: TextIO | None = None, *, width: int | None = None,
                 color: bool | None = None) -> Console:
    stream = file or sys.stdout
    if color is None:
        color = "NO_COLOR" not in os.environ and stream.isatty()
    if width is None:
        cols = os.environ.get("COLUMNS", "")
        width = int(cols) if cols.isdigit() else (None if stream.isatty() else 160)
    return Console(file=stream, width=width, no_color=not color,
                   color_system="auto" if color else None,
                   highlight=False, emoji=False, soft_wrap=False, force_terminal=color or None)
