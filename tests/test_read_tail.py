"""``read_tail`` keeps a file's last bytes, cut at the first whole line when it cut anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuxray.sources.files import read_tail


def _reference(data: bytes, limit: int) -> str:
    if len(data) > limit:
        data = data[len(data) - limit:]
        nl = data.find(b"\n")
        data = data[nl + 1:] if nl >= 0 else data
    return data.decode("utf-8", errors="replace")


CASES = {
    "empty": b"",
    "short": b"one line\n",
    "no-newline": b"x" * 50,
    "lines": b"".join(b"line %d\n" % i for i in range(40)),
    "bad-utf8": b"ok\n\xff\xfe broken \xc3\n tail\n" * 8,
    "long-last-line": b"head\n" + b"y" * 300,
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("limit", [1, 7, 64, 100, 1 << 20])
def test_read_tail_keeps_the_last_whole_lines(tmp_path: Path, name: str, limit: int) -> None:
    data = CASES[name]
    f = tmp_path / "f.log"
    f.write_bytes(data)
    assert read_tail(f, limit) == _reference(data, limit)
    assert read_tail(str(f), limit) == _reference(data, limit)


def test_read_tail_of_a_file_larger_than_one_read(tmp_path: Path) -> None:
    data = b"".join(b"%08d some log text\n" % i for i in range(200_000))  # ~4 MB
    f = tmp_path / "big.log"
    f.write_bytes(data)
    for limit in (1 << 16, (1 << 20) + 3, len(data), len(data) + 1):
        assert read_tail(f, limit) == _reference(data, limit)


def test_read_tail_of_a_file_whose_size_stat_does_not_give(tmp_path: Path) -> None:
    proc = Path("/proc/self/status")
    if not proc.is_file() or proc.stat().st_size:
        pytest.skip("no procfs file that stats as empty here")
    text = read_tail(proc, 1 << 20)
    assert "Name:" in text and text.endswith("\n")


def test_read_tail_of_a_directory_fails_as_reading_one_does(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        read_tail(tmp_path, 100)
