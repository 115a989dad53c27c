"""Undo what ticket forms, chat clients and terminals do to pasted command output.

Why: the parsers read output as the program printed it, but a ticket rarely keeps it so. A
terminal copy keeps ANSI colour codes (``kubectl`` with a colour plugin, ``stern``, ``systemctl``
status dots); GitHub renders a pasted table as ``| a | b |`` with a ``|---|`` rule when the user
converts it; quoting a reply puts ``> `` before every line; ``<details>``/``<summary>``/``<pre>``
wrap long output (and ``<pre>`` content arrives with ``&lt;`` entities); an editor or ``cat -n``
numbers the lines. :func:`clean_lines` removes each of these, one line in, one line out (so the
line numbers the parts report still point into the paste), and leaves text that shows none of
them unchanged.

Bounded: every pattern is anchored or literal-led; lines are cut to ``MAX_LINE`` first.
"""

from __future__ import annotations

import html
import re

__all__ = ["MAX_LINE", "RFC3339_STAMP", "clean_lines", "stern_to_prefixed", "strip_ansi",
           "strip_log_timestamps"]

MAX_LINE = 4096

# CSI (colours, cursor moves) and OSC (terminal titles, hyperlinks) escape sequences
_ANSI = re.compile(r"\x1b\[[0-9;:?]{0,40}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)|"
                   r"\x1b[()][A-Za-z0-9]|\x1b[=>78DEHMc]")
_QUOTE = re.compile(r"^(?:[ \t]{0,3}>)+(?:[ \t]|$)")
_HTML_TAG = re.compile(r"</?(?:details|summary|pre|code|br|p|div|span|kbd|samp|tt|b|i|strong|em)"
                       r"(?:\s[^<>]{0,200})?/?>", re.I)
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#39|#x27|nbsp);")
# a markdown table row and its rule row (``|---|:--:|``); nvidia-smi's box lines use ``+`` and
# ``=`` in their rules, so they are never taken for one
_PIPE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_PIPE_RULE = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+(?:[ \t]*:?-{3,}:?[ \t]*)?$")
# k9s's log view draws a box: ``│ <line>   │``
_BOX = re.compile(r"^[ \t]*[│┃][ \t]?")
_BOX_END = re.compile(r"[ \t]*[│┃][ \t]*$")
# ``cat -n`` (``     1\tline``), editors and pastebins (``1 | line``, ``12: line``)
_NUMBERED = re.compile(r"^[ \t]{0,8}(\d{1,6})(?:\t| \| ?|: | {2,}| $|$)")


def strip_ansi(line: str) -> str:
    return _ANSI.sub("", line) if "\x1b" in line else line


def _unquote(lines: list[str]) -> list[str]:
    """``> `` markers (any depth) come off every line of a run of quoted lines; a lone ``>``
    line elsewhere (a shell continuation prompt) is kept for the prompt reader."""
    quoted = sum(1 for ln in lines if _QUOTE.match(ln))
    if quoted < 2:
        return lines
    return [_QUOTE.sub("", ln, count=1) for ln in lines]


def _html(line: str) -> str:
    if "<" in line and ">" in line:
        line = _HTML_TAG.sub("", line)
    if "&" in line and ";" in line:
        line = _ENTITY.sub(lambda m: html.unescape(m.group(0)).replace("\xa0", " "), line)
    return line


def _pipe_tables(lines: list[str]) -> list[str]:
    """Markdown tables back to kubectl's layout: cells padded to a common width with three
    spaces between columns (a Go tabwriter's padding), the ``|---|`` rule left blank."""
    out = list(lines)
    i = 0
    n = len(lines)
    while i < n:
        if not (_PIPE_ROW.match(lines[i]) and i + 1 < n and _PIPE_RULE.match(lines[i + 1])):
            i += 1
            continue
        j = i + 2
        while j < n and _PIPE_ROW.match(lines[j]) and not _PIPE_RULE.match(lines[j]):
            j += 1
        rows = [_cells(lines[k]) for k in [i, *range(i + 2, j)]]
        width = max(len(r) for r in rows)
        sizes = [max((len(r[c]) for r in rows if c < len(r)), default=0) for c in range(width)]
        text = ["   ".join(cell.ljust(sizes[c]) for c, cell in enumerate(r)).rstrip()
                for r in rows]
        out[i] = text[0]
        out[i + 1] = ""
        for k, t in zip(range(i + 2, j), text[1:], strict=True):
            out[k] = t
        i = j
    return out


def _cells(line: str) -> list[str]:
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") else s
    return [c.strip().replace("\\|", "|") for c in s.split("|")]


def _unnumber(lines: list[str]) -> list[str]:
    """Line numbers come off a run of at least five lines numbered n, n+1, … (blank lines
    may sit between them); shorter runs or skipped numbers are output, not numbering."""
    out = list(lines)
    i, n = 0, len(lines)
    while i < n:
        m = _NUMBERED.match(lines[i])
        if not m:
            i += 1
            continue
        want, j, run = int(m.group(1)), i, []
        while j < n:
            mj = _NUMBERED.match(lines[j])
            if mj and int(mj.group(1)) == want:
                run.append((j, mj.end()))
                want += 1
            elif lines[j].strip():
                break
            j += 1
        if len(run) >= 5:
            for k, end in run:
                out[k] = lines[k][end:]
            i = j
        else:
            i += 1
    return out


def clean_lines(lines: list[str]) -> list[str]:
    """The lines with the ticket's wrapping removed; the same number of lines."""
    cut = [strip_ansi(ln[:MAX_LINE]).replace("\r", "") for ln in lines]
    cut = [_html(ln) for ln in cut]
    cut = _unquote(cut)
    if sum(1 for ln in cut[:2000] if _BOX.match(ln)) >= 2:
        cut = [_BOX_END.sub("", _BOX.sub("", ln, count=1)).rstrip() if _BOX.match(ln) else ln
               for ln in cut]
    if any(_PIPE_RULE.match(ln) for ln in cut):
        cut = _pipe_tables(cut)
    if sum(1 for ln in cut[:2000] if _NUMBERED.match(ln)) >= 5:
        cut = _unnumber(cut)
    return cut


# ``kubectl logs --timestamps``: an RFC 3339 time with nanoseconds before every line
# (kubernetes/kubernetes@v1.34.0:pkg/kubelet/kuberuntime/logs/logs.go writes it so); a container
# log file under /var/log/pods, pasted as read from the node, adds the stream and the tag
# (``<time> stderr F <line>``: the CRI log format that logs.go's parseCRILog reads, ``F`` a
# full line and ``P`` a partial one, k8s.io/cri-api@v0.34.0:pkg/apis/runtime/v1/constants.go)
RFC3339_STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)"
_LOG_TS = re.compile(r"^" + RFC3339_STAMP + r" (?:(?:stdout|stderr) [FP] )?")
# stern's default template: ``<pod> <container> <message>`` (stern/stern@v1.30.0:cmd/cmd.go)
_STERN = re.compile(r"^(?P<pod>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?) "
                    r"(?P<c>[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?) (?P<msg>.*)$")


def strip_log_timestamps(lines: list[str]) -> list[str]:
    """The ``--timestamps`` prefix off each line, when at least half the lines carry it (a log
    line that merely starts with a time keeps it otherwise)."""
    have = sum(1 for ln in lines[:2000] if _LOG_TS.match(ln))
    if not have or have * 2 < min(len(lines), 2000):
        return lines
    return [_LOG_TS.sub("", ln, count=1) for ln in lines]


def stern_to_prefixed(lines: list[str]) -> list[str]:
    """stern's ``pod container message`` lines as ``kubectl logs --prefix`` writes them
    (``[pod/<pod>/<container>] message``), so one reader files both per container; lines of
    another shape are kept as they are."""
    out = []
    for ln in lines:
        m = _STERN.match(ln.lstrip("+ "))
        if m and "-" in m.group("pod"):
            out.append(f"[pod/{m.group('pod')}/{m.group('c')}] {m.group('msg')}")
        else:
            out.append(ln)
    return out
