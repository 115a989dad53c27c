"""The text table: no cell is cut or cropped, the last column folds, hostile text is inert."""

from __future__ import annotations

import io

from rich.text import Text

from gpuxray.console import make_console
from gpuxray.render.text import print_table


def render(rows: list[list[object]], width: int, *, color: bool = False,
           right: tuple[str, ...] = ("gpus",)) -> list[str]:
    buf = io.StringIO()
    con = make_console(buf, width=width, color=color)
    print_table(con, "t", ["node", "gpus", "notes"], rows, right=right)
    return buf.getvalue().splitlines()


def test_columns_keep_full_width_past_the_terminal_edge() -> None:
    name = "node-" + "x" * 60
    lines = render([[name, 8, "ok"]], width=40)
    body = lines[3]
    assert body.startswith(name + " │ ")
    assert body.split(" │ ")[1:] == ["   8", "ok"]


def test_last_column_folds_under_itself_without_losing_text() -> None:
    notes = "taints: nvidia.com/gpu=present:NoSchedule cordoned"
    lines = render([["gpu-1", 4, notes]], width=40)
    body = lines[3:]
    assert len(body) > 1
    indent = len("gpu-1 │ gpus │ ")
    assert all(len(line) <= 40 for line in body)
    assert all(line[:indent].strip(" │") == "" for line in body[1:])
    rejoined = "".join(line[indent:] for line in body)
    assert rejoined.replace(" ", "") == notes.replace(" ", "")


def test_numbers_right_aligned_names_left_and_no_trailing_spaces() -> None:
    lines = render([["a", 16, ""], ["bbbb", 2, "x"]], width=80)
    assert lines[1].startswith("node ┃ gpus ┃ notes")
    assert lines[3] == "a    │   16 │"
    assert lines[4] == "bbbb │    2 │ x"
    assert all(line == line.rstrip() for line in lines)


def test_control_characters_in_cells_are_dropped() -> None:
    lines = render([["evil\x1b[2Jname", Text("3"), "a\nb"]], width=80)
    assert lines[3] == "evil[2Jname │    3 │ a b"
    assert "\x1b" not in "".join(lines)


def test_colour_console_draws_the_same_cells() -> None:
    plain = render([["gpu-1", 4, "n"]], width=80)
    coloured = render([["gpu-1", 4, "n"]], width=80, color=True)
    assert [Text.from_ansi(line).plain for line in coloured] == plain
    assert any("\x1b[" in line for line in coloured)


def test_missing_and_none_cells() -> None:
    lines = render([["gpu-1", None]], width=80)
    assert lines[3] == "gpu-1 │    - │"
