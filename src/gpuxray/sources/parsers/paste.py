"""Pasted ticket text → its parts: what each block is and which command printed it.

Why: users paste several outputs into one ticket — a shell prompt and the command, the output,
another prompt; or markdown fences around each; or bare blocks with no command at all. The
bundle path has a parser per output kind (describe, dmesg, lsmod, systemctl, nvidia-smi, …); to
use them on a paste, the paste is first cut where a prompt names a command or a fence opens or
closes, and each block is typed by the command that printed it, else by its own shape (a
``Capacity:`` block is describe-node text, ``Module  Size  Used by`` is lsmod, …).

A block may hold several kinds at once (a bare paste of dmesg lines followed by a describe):
sniffing runs per block, and lines of kernel-log shape are also taken from mixed blocks.
Bounded: each line is cut to ``MAX_LINE`` characters before any regex runs, and every pattern
here is anchored or literal-led, so a huge line costs linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuxray.sources.parsers import helm
from gpuxray.sources.parsers.cleanup import clean_lines, stern_to_prefixed, strip_log_timestamps
from gpuxray.sources.parsers.journal import JournalLine, is_journal_line, parse_journal

MAX_LINE = 4096  # the same cut as cleanup.MAX_LINE

# Part kinds.
DESCRIBE_NODE, DESCRIBE_POD, DESCRIBE_OTHER = "describe-node", "describe-pod", "describe-other"
EVENTS_TABLE, GET_TABLE, K8S_OBJECTS = "events-table", "get-table", "k8s-objects"
POD_LOG, DMESG, JOURNAL = "pod-log", "dmesg", "journal"
NODE_STATUS = "node-status-yaml"  # a fragment of `kubectl get node -o yaml` (status only)
SMI, SMI_QUERY, SMI_XML = "nvidia-smi", "nvidia-smi-q", "nvidia-smi-xml"
SYSTEMCTL_STATUS, SYSTEMCTL_SHOW, LSMOD, MOKUTIL = (
    "systemctl-status", "systemctl-show", "lsmod", "mokutil")
RUNTIMECLASS_TABLE = "runtimeclass-table"
RUNTIMECLASS_WORDS = frozenset({"runtimeclass", "runtimeclasses", "runtimeclass.node.k8s.io",
                                "runtimeclasses.node.k8s.io"})
CONTAINERD_DUMP, CONTAINERD_TOML, PLUGIN_CONFIG, HELM_VALUES, TEXT = (
    "containerd-config-dump", "containerd-toml", "plugin-config", "helm-values", "text")
DRIVER_VERSION, CTK_VERSION, CONTAINER_CLI, UNAME = (
    "driver-version", "nvidia-ctk-version", "nvidia-container-cli", "uname")


@dataclass(frozen=True, slots=True)
class Part:
    """One block of a paste. ``command`` is the shell command that printed it ("" when the
    paste did not name one); ``unit`` the systemd unit or container a command names;
    ``start`` the block's first line (1-based) in the paste."""

    kind: str
    text: str
    command: str = ""
    unit: str = ""
    start: int = 1


_FENCE = re.compile(r"^[ \t]*(?:```|~~~)")
_FENCE_TAG = re.compile(r"^[\w+.#-]{0,40}[ \t]*$")  # ```yaml, ```console, ``` (a language tag)
_FENCE_END = re.compile(r"^(.*\S)[ \t]*```[ \t]*$")
_CMD_WORDS = (r"kubectl|oc|k|nvidia-smi|dmesg|journalctl|systemctl|lsmod|mokutil|containerd|"
              r"helm|crictl|cat|nvidia-ctk|nvidia-container-cli|nvidia-cdi-hook|"
              r"nvidia-container-runtime(?:-hook)?|modprobe|uname|lspci|"
              r"nv-fabricmanager|ctr|sudo|grep|tail|head|less|stern|uname")
# ``user@host:~$ cmd``, ``$ cmd``, ``# cmd``, ``> cmd``, ``[root@h ~]# cmd``, ``PS> cmd``
_PROMPT = re.compile(r"^[ \t]*(?:\[[^\]\n]{0,80}\]|[\w.@-]{0,80}(?::[^\s$#]{0,120})?)?\s?[$#%>]\s*"
                     r"((?:" + _CMD_WORDS + r")\b.*)$")
_BARE_KUBECTL = re.compile(r"^[ \t]*((?:kubectl|oc)\s+(?:describe|get|logs|events)\b.*)$")


# A command pasted without its prompt, on a line of its own: only invocations whose shape no
# program's output line has (the command word, then options, a pipe or a path; never a colon
# after the word as in ``nvidia-smi: command not found``).
_BARE_CMD = re.compile(
    r"^[ \t]*((?:sudo\s+(?:-\S+\s+)*)?(?:"
    r"nvidia-smi(?:\s+(?:-|mig\b|topo\b|\|).*)?|dmesg(?:\s+(?:-|\|).*)?|lsmod(?:\s*\|.*)?|"
    r"mokutil\s+--sb-state|journalctl\s+-.*|systemctl\s+(?:status|show|cat)\s+[\w@.-]+.*|"
    r"cat\s+/[\w./@-]+|containerd\s+config\s+dump.*|helm\s+get\s+values\b.*|"
    r"uname(?:\s+-\w+)?|nvidia-ctk\s+(?:--version|-v)|"
    r"nvidia-container-cli(?:\s+[-/\w.=]{1,80}){0,8}?\s+(?:info|list|-V|--version)))[ \t]*$")


def _prompt(line: str) -> str | None:
    m = _PROMPT.match(line) or _BARE_KUBECTL.match(line) or _BARE_CMD.match(line)
    if not m:
        return None
    cmd = m.group(1).strip()
    return re.sub(r"^sudo\s+(?:-\S+\s+)*", "", cmd)


#: the first line of output no log prints, after a blank line: a `kubectl describe` (its
#: ``Name:`` header, a node's Capacity and Allocatable sections), a `kubectl get` table's
#: header, an object's YAML, nvidia-smi's table. A paste that runs one command's log on into
#: the next output without its own prompt or fence is cut there, so the log does not swallow it
_NOT_A_LOG_LINE = re.compile(r"^[ \t]{0,2}(?:Name:[ \t]+\S|(?:Capacity|Allocatable):[ \t]*$|"
                             r"apiVersion:[ \t]|NAME[ \t]{2,}\S|\+-{20,}\+)|"
                             r"^[ \t]{0,4}(?:metadata|spec|status):[ \t]*$")
_LOG_KINDS = frozenset({POD_LOG, DMESG, JOURNAL})
#: a reporter's sentence: a capitalised word and three more, no key-value or log shape
_PROSE = re.compile(r"^[ \t]*[A-Z][a-z'’]*[,.]?(?:[ \t]+[\w'’,()/-]+[.,]?){3,}[.:?!]?[ \t]*$")


def _blocks(lines: list[str]) -> list[tuple[str, int, list[str]]]:
    """(command, first line number, lines) per block; cut at prompts and fences, and where a
    log command's output is followed, after a blank line, by output no log prints."""
    out: list[tuple[str, int, list[str]]] = []
    cmd, start, cur = "", 1, list[str]()
    in_log = False
    # whether the block's text so far is all prose, read once per line: ``read`` lines of
    # ``of`` (the current block's list) are read (asking the whole block at every paragraph
    # was quadratic in a paste of many short paragraphs)
    of, read, has_text, all_prose = cur, 0, False, True
    for i, raw in enumerate(lines, 1):
        line = raw[:MAX_LINE]
        # (a lone backtick is the blank line a broken inline fence leaves)
        if in_log and cur and not cur[-1].strip(" \t`") and _NOT_A_LOG_LINE.match(line):
            out.append((cmd, start, cur))
            cmd, cur, start, in_log = "", [], i, False
        elif not in_log and cur and not cur[-1].strip() and line.strip():
            if of is not cur:
                of, read, has_text, all_prose = cur, 0, False, True
            for x in cur[read:]:
                if x.strip():
                    has_text = True
                    all_prose = all_prose and bool(_PROSE.match(x))
            read = len(cur)
            if has_text and ((not cmd and all_prose)
                             or (not all_prose and _PROSE.match(line))):
                # the reporter's words before the output, or after a structured one (a
                # describe, YAML, a table: its parser reads it without them)
                out.append((cmd, start, cur))
                cmd, cur, start = "", [], i
        fence = _FENCE.match(line)
        closing = None if fence else _FENCE_END.match(line)
        if closing:
            cur.append(closing.group(1))  # ``last line```: the line, then the fence
            line = "```"
            fence = _FENCE.match(line)
        if fence:
            if cur:
                out.append((cmd, start, cur))
                cmd, in_log = "", False  # a fence closes what the prompt before it named
            cur, start = [], i + 1
            rest = line[fence.end():]
            if rest.strip() and not _FENCE_TAG.match(rest):
                cur, start = [rest], i  # ```driver:  (text glued to the fence)
            continue
        c = _prompt(line)
        if c is not None:
            if cur:
                out.append((cmd, start, cur))
            cmd, cur, start = c, [], i + 1
            in_log = kind_of_command(c)[0] in _LOG_KINDS
            continue
        cur.append(line)
    if cur:
        out.append((cmd, start, cur))
    return out


_KUBECTL_VALUED = frozenset({"-n", "--namespace", "--context", "--kubeconfig", "-l",
                             "--selector", "--cluster", "--user", "-s", "--server"})


def _words(cmd: str) -> list[str]:
    """The first command of a pipeline (it decides what printed the text); for kubectl the
    global options before the verb (``-n ns``, ``--context c``) are dropped."""
    w = cmd.split("|")[0].split()
    if w and w[0] in ("kubectl", "oc", "k"):
        rest, i = [w[0]], 1
        while i < len(w) and w[i].startswith("-"):
            i += 2 if w[i] in _KUBECTL_VALUED else 1
        rest += w[i:]
        return rest
    return w


def namespace_of(cmd: str) -> str:
    """The namespace a kubectl command names (``-n ns``, ``--namespace=ns``); "" when none."""
    w = cmd.split("|")[0].split()
    if not w or w[0] not in ("kubectl", "oc", "k"):
        return ""
    for i, x in enumerate(w):
        if x in ("-n", "--namespace") and i + 1 < len(w):
            return w[i + 1]
        if x.startswith("--namespace="):
            return x.split("=", 1)[1]
        if x.startswith("-n") and len(x) > 2 and x[2] != "-":
            return x[2:]
    return ""


_LOGS_VALUED = frozenset({"-n", "--namespace", "-c", "--container", "--since", "--tail",
                          "-l", "--selector", "--context", "--since-time", "--kubeconfig",
                          "--max-log-requests", "--pod-running-timeout", "--limit-bytes"})
_DEFAULTED = re.compile(r'^\s*Defaulted container "([\w.-]{1,63})" out of: ')


def log_target(cmd: str) -> tuple[str, str, bool]:
    """(pod, container, previous) a ``kubectl logs`` command names: the pod (``pod/`` dropped;
    ``ds/<name>`` gives the DaemonSet's name, which names its operand), ``-c``, ``-p``."""
    w = cmd.split("|")[0].split()
    if "logs" not in w[:6]:
        return "", "", False
    rest = w[w.index("logs") + 1:]
    pod, i = "", 0
    previous = any(x in ("-p", "--previous") or x.startswith("--previous=true") for x in rest)
    while i < len(rest):
        x = rest[i]
        if x in _LOGS_VALUED:
            i += 2
            continue
        if x.startswith("-"):
            i += 1
            continue
        pod = x.split("/", 1)[1] if "/" in x else x
        break
    return pod, _container(w), previous


def defaulted_container(text: str) -> str:
    """The container kubectl says it chose (``Defaulted container "plugin" out of: …``), from
    the first lines of a log; "" when it does not say."""
    for line in text.splitlines()[:5]:
        m = _DEFAULTED.match(line)
        if m:
            return m.group(1)
    return ""


def _container(words: list[str]) -> str:
    for i, w in enumerate(words):
        if w in ("-c", "--container") and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--container="):
            return w.split("=", 1)[1]
        if w.startswith("-c") and len(w) > 2:
            return w[2:]
    return ""


def _unit(words: list[str]) -> str:
    for i, w in enumerate(words):
        if w in ("-u", "--unit") and i + 1 < len(words):
            return words[i + 1].removesuffix(".service")
        if w.startswith("--unit="):
            return w.split("=", 1)[1].removesuffix(".service")
    nonopt = [w for w in words[2:] if not w.startswith("-")]
    return nonopt[0].removesuffix(".service") if nonopt else ""


def kind_of_command(cmd: str) -> tuple[str, str]:
    """(kind, unit-or-container) named by a shell command; ("", "") when it says nothing."""
    w = _words(cmd)
    if not w:
        return "", ""
    head = w[0]
    if head in ("kubectl", "oc", "k"):
        verb = w[1] if len(w) > 1 else ""
        what = w[2].split("/")[0].lower() if len(w) > 2 else ""
        if verb == "describe":
            if what in ("node", "nodes", "no"):
                return DESCRIBE_NODE, ""
            if what in ("pod", "pods", "po"):
                return DESCRIBE_POD, ""
            return DESCRIBE_OTHER, ""
        if verb == "logs":
            return POD_LOG, _container(w)
        if verb == "events" or (verb == "get" and what in ("events", "event", "ev")):
            return EVENTS_TABLE, ""
        if verb == "get" and what in RUNTIMECLASS_WORDS:
            joined = " ".join(w)
            if not re.search(r"-o\s*=?\s*(?:yaml|json)\b|--output[= ](?:yaml|json)\b", joined):
                return RUNTIMECLASS_TABLE, ""
        if verb == "get":
            joined = " ".join(w)
            if re.search(r"-o\s*=?\s*(?:yaml|json)\b|--output[= ](?:yaml|json)\b", joined):
                return K8S_OBJECTS, ""
            return GET_TABLE, ""
        return "", ""
    if head == "stern":
        return POD_LOG, ""
    if head == "nvidia-smi":
        if "-q" in w or "--query" in w:
            return (SMI_XML if "-x" in w or "--xml-format" in w else SMI_QUERY), ""
        return SMI, ""
    if head == "dmesg":
        return DMESG, ""
    if head == "journalctl":
        if "-k" in w or "--dmesg" in w:
            return DMESG, ""
        return JOURNAL, _unit([*w[:1], "x", *w[1:]])
    if head == "systemctl" and len(w) > 1:
        if w[1] == "status":
            return SYSTEMCTL_STATUS, _unit(w)
        if w[1] == "show":
            return SYSTEMCTL_SHOW, _unit(w)
    if head == "lsmod":
        return LSMOD, ""
    if head == "uname":
        return UNAME, ""
    if head in ("nvidia-ctk", "nvidia-cdi-hook", "nvidia-container-runtime",
                "nvidia-container-runtime-hook") and any(
            x in ("--version", "-v", "version", "-version") for x in w[1:3]):
        return CTK_VERSION, ""
    if head == "nvidia-container-cli" and any(
            x in ("info", "-V", "--version") for x in w[1:]):
        return CONTAINER_CLI, ""
    if head == "mokutil":
        return MOKUTIL, ""
    if head == "containerd" and "config" in w and "dump" in w:
        return CONTAINERD_DUMP, ""
    if head == "cat" and len(w) > 1 and w[-1] == "/proc/driver/nvidia/version":
        return DRIVER_VERSION, ""
    if head == "cat" and len(w) > 1:
        path = w[-1]
        if path.endswith(".toml") and ("containerd" in path or "/conf.d/" in path):
            return CONTAINERD_TOML, path
    if head == "helm" and "values" in w:
        return HELM_VALUES, ""
    return "", ""


_DMESG_LINE = re.compile(r"^[ \t]*(?:(?:\S+: )?kern:\s+[a-z]{2,8}: \[\d{4}-|"
                         r"\[\s*\d+\.\d+\]|\[\w{3} \w{3} [ \d]\d [\d:]{8} \d{4}\]|"
                         r"\w{3} [ \d]\d [\d:]{8} \S+ kernel:|"
                         r"\d{4}-\d\d-\d\dT[\d:.,]+(?:Z|[+-][\d:]+)? \S+ kernel:)")
_NVRM = re.compile(r"\bNVRM: |\bnvidia(?:-nvswitch|-modeset|-uvm|-drm)?: |\bnouveau ")


_VALUES_KEY = re.compile(r"^([ \t]*)(" + "|".join(sorted(helm.SPEC_SECTIONS)) + r"):[ \t]*$", re.M)


_DISTINCT_CHILD = re.compile(r"^[ \t]+(?:usePrecompiled|kernelModuleConfig|kernelModuleType|"
                             r"useOpenKernelModules|nvidiaDriverCRD|nriPluginEnabled):", re.M)


def _values_keys(head: str) -> bool:
    """GPU Operator chart values (or a ClusterPolicy spec): two of the chart's sections at one
    indentation, or one only this chart has; confirmed by parsing in ``sources.pasted``."""
    by_indent: dict[str, set[str]] = {}
    for m in _VALUES_KEY.finditer(head):
        by_indent.setdefault(m.group(1), set()).add(m.group(2))
    if any(len(keys) >= 2 or helm.looks_like_values(dict.fromkeys(keys))
           for keys in by_indent.values()):
        return True
    return bool(by_indent) and bool(_DISTINCT_CHILD.search(head))


# ``Capacity:`` then an indented resource row (``cpu:``, ``memory:``, ``pods:``, a vendor's
# ``<domain>/<name>:``): kubectl describe node's own layout (kubernetes/kubectl@v0.34.0:
# pkg/describe/describe.go ``describeNode`` prints the block so, its rows sorted by name: the
# in-tree volume plugins' ``attachable-volumes-aws-ebs|azure-disk|gce-pd`` come first)
_LONE_CAPACITY = re.compile(r"^Capacity:[ \t]*\n[ \t]+(?:cpu|memory|pods|ephemeral-storage|"
                            r"attachable-volumes-[\w-]+|"
                            r"hugepages-[\w.]+|[a-z0-9.-]+\.[a-z]+/[\w.-]+):[ \t]+\S", re.M)


def sniff(lines: list[str]) -> str:
    """The kind of an unnamed block, from its shape."""
    text = "\n".join(lines)
    head = text[:8192]
    if re.search(r"^[ \t]*<nvidia_smi_log>|^[ \t]*<\?xml[^\n]*\n\s*<!DOCTYPE nvidia_smi_log",
                 head, re.M):
        return SMI_XML
    if "==============NVSMI LOG==============" in head:
        return SMI_QUERY
    if re.search(r"^[ \t]*allocatable:[ \t]*$", text, re.M) and \
            re.search(r"^[ \t]*capacity:[ \t]*$", text, re.M):
        return NODE_STATUS
    if re.search(r"^Capacity:[ \t]*$", text, re.M) and \
            re.search(r"^Allocatable:[ \t]*$", text, re.M):
        return DESCRIBE_NODE
    if _LONE_CAPACITY.search(head):  # a describe node cut to its Capacity block
        return DESCRIBE_NODE
    if re.search(r"^Name:\s+\S", text, re.M):
        if re.search(r"^[ \t]*(?:Capacity|Allocatable|Allocated resources|System Info):", text,
                     re.M):
            return DESCRIBE_NODE
        if re.search(r"^Desired Number of Nodes Scheduled:", text, re.M):
            return DESCRIBE_OTHER  # a DaemonSet: its pod template has Containers too
        if re.search(r"^[ \t]*(?:Containers|Init Containers|QoS Class|Node):", text, re.M):
            return DESCRIBE_POD
        if re.search(r"^Events:", text, re.M):
            return DESCRIBE_OTHER
    if re.search(r"^[ \t]*(?:NAMESPACE\s+)?LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE", head,
                 re.M):
        return EVENTS_TABLE
    if re.search(r"^[ \t]*Module\s+Size\s+Used by", head, re.M):
        return LSMOD
    if re.search(r"^[ \t]*(?:apiVersion:\s*\S|\{\s*\"apiVersion\"|\{[ \t]*$)", head, re.M) and \
            re.search(r"\bkind\W+\s*\"?(?:Node|Pod|List|DaemonSet|ClusterPolicy|RuntimeClass|"
                      r"ConfigMap|Event)\b", head):
        return K8S_OBJECTS
    if _values_keys(head):
        return HELM_VALUES
    if re.search(r"^[ \t]*version:\s*v1[ \t]*$", head, re.M) and \
            re.search(r"^[ \t]*(?:sharing|flags|resources):", head, re.M):
        return PLUGIN_CONFIG
    if re.search(r"^[ \t]*\[plugins\.|^[ \t]*version\s*=\s*\d", head, re.M) and \
            re.search(r"^[ \t]*\[plugins[.\]]", text, re.M):
        dump = all(re.search(p, text, re.M) for p in (r"^[ \t]*root\s*=", r"^[ \t]*state\s*=",
                                                      r"^[ \t]*\[grpc\]"))
        return CONTAINERD_DUMP if dump else CONTAINERD_TOML
    if re.search(r"^[ \t]*[●*×]?\s*[\w@.-]+\.service\b.*\n\s*Loaded:", head, re.M) or \
            re.search(r"^[ \t]*Unit [\w@.-]+\.service could not be found", head, re.M):
        return SYSTEMCTL_STATUS
    # short host outputs: typed by their first line only (a longer block that quotes one
    # stays text; the version file is still read from anywhere in the paste)
    first = next((ln for ln in lines[:50] if ln.strip()), "")
    if re.match(r"^[ \t]*NVRM version:[ \t]+NVIDIA UNIX", first):
        return DRIVER_VERSION
    if re.match(r"^[ \t]*NVRM version:[ \t]+\d", first) and \
            re.search(r"^[ \t]*(?:CUDA version|Device Index):", head, re.M):
        return CONTAINER_CLI
    if re.match(r"^[ \t]*NVIDIA (?:Container Toolkit CLI|CDI Hook|Container Runtime(?: Hook)?) "
                r"version", first):
        return CTK_VERSION
    if re.search(r"^[ \t]*SecureBoot (?:enabled|disabled)|^[ \t]*EFI variables are not supported",
                 head, re.M):
        return MOKUTIL
    if re.search(r"NVIDIA-SMI \d|^[ \t]*GPU \d+: .*\(UUID: GPU-|NVIDIA-SMI has failed|"
                 r"^No devices were found", head, re.M):
        return SMI
    if re.search(r"^[ \t]*NAME\s+HANDLER\s+AGE\b", head, re.M):
        return RUNTIMECLASS_TABLE
    if re.search(r"^[ \t]*(?:NAME|NAMESPACE)\s+(?:NAME\s+)?(?:READY|STATUS|ROLES|DESIRED)\s", head,
                 re.M):
        return GET_TABLE
    if lines and sum(1 for ln in lines[:200] if _DMESG_LINE.match(ln)) * 2 >= min(len(lines), 200):
        return DMESG
    # a journal excerpt: entries of any journalctl layout, with wrapped continuation lines
    # (ticket forms break long entries), so a quarter of the lines is enough
    if lines and sum(1 for ln in lines[:200] if is_journal_line(ln[:MAX_LINE])) * 4 >= \
            min(len(lines), 200):
        return JOURNAL
    return TEXT


def kernel_lines(lines: list[str]) -> list[str]:
    """Lines of kernel-log shape about the GPU driver, from any block (a log that mixes them)."""
    return [ln for ln in lines if _NVRM.search(ln) and (_DMESG_LINE.match(ln) or
                                                         ln.lstrip().startswith("NVRM"))]


# journal identifiers → the unit whose journal they belong to (``journalctl -u <unit>`` shows
# the daemon's own lines and systemd's about the unit)
JOURNAL_UNITS = ("containerd", "kubelet")


def journal_unit(line: JournalLine) -> str:
    """The unit a journal entry belongs to, from its identifier (``containerd[1278]``) or, for
    systemd's own lines, the unit it names (``containerd.service: Main process exited``);
    "" for any other unit."""
    ident = line.ident
    if ident in ("systemd", "init"):
        msg = line.message[:200]
        for unit in JOURNAL_UNITS:
            if msg.startswith(f"{unit}.service") or re.search(
                    rf"^(?:Start|Stopp)(?:ed|ing) .*\b{re.escape(unit)}\b", msg):
                return unit
        return ""
    return ident if ident in JOURNAL_UNITS else ""


def journal_by_unit(text: str) -> dict[str, str]:
    """The journal lines of ``text`` grouped by the unit they belong to (each group keeps the
    lines in order, as ``journalctl -u <unit>`` would print them)."""
    out: dict[str, list[str]] = {}
    for ln in parse_journal(text):
        unit = journal_unit(ln)
        if unit:
            out.setdefault(unit, []).append(ln.raw[:MAX_LINE])
    return {u: "\n".join(lines) + "\n" for u, lines in out.items()}


#: a markdown code block by indentation: four spaces before every line (CommonMark 0.31, 4.4
#: "Indented code blocks"), which a ticket's text keeps when it is copied
_CODE_INDENT = 4


def _dedent(lines: list[str]) -> list[str]:
    """``lines`` without the indentation every non-blank one shares, when that is a markdown
    code block's (four spaces or more): kubectl's and the configs' own layout starts at the
    first column, and their parsers read it from there. A smaller shared indent is kept (a
    describe fragment's items stand two spaces in)."""
    common: int | None = None
    for ln in lines:
        if ln.strip():
            n = len(ln) - len(ln.lstrip(" "))
            common = n if common is None else min(common, n)
            if common < _CODE_INDENT:
                return lines
    if not common:
        return lines
    return [ln[common:] for ln in lines]


def split_paste(text: str, cleaned: bool = False) -> list[Part]:
    """The parts of a paste, in order. A block's command names its kind; a block with no
    command, or whose command names nothing known, is typed by its shape. ``cleaned``: the
    text is already without the ticket's wrapping (``clean_lines``)."""
    parts: list[Part] = []
    lines_in = text.splitlines()
    for cmd, start, lines in _blocks(lines_in if cleaned else clean_lines(lines_in)):
        end = len(lines)
        while end and not lines[end - 1].strip():
            end -= 1
        lines = lines[:end]
        if not any(ln.strip() for ln in lines):
            continue
        lines = _dedent(lines)
        if not cmd and lines:
            # ``# /etc/containerd/config.toml``: a file shown under a comment naming its path
            head = re.match(r"^[ \t]*#[ \t]*(/[\w./@-]{1,255}\.toml)[ \t]*$", lines[0])
            if head:
                cmd = f"cat {head.group(1)}"
        kind, unit = kind_of_command(cmd) if cmd else ("", "")
        if not kind or kind == GET_TABLE:
            sniffed = sniff(lines)
            kind = sniffed if (not kind or sniffed != TEXT) else kind
        rest: list[str] = []
        if kind == POD_LOG:
            lines = strip_log_timestamps(lines)
            if cmd.startswith("stern"):
                lines = stern_to_prefixed(lines)
        if kind in (CONTAINERD_TOML, CONTAINERD_DUMP):
            lines, rest = toml_extent(lines)
        parts.append(Part(kind, "\n".join(lines) + "\n", cmd, unit, start))
        if any(ln.strip() for ln in rest):
            # what follows a `cat` of a file without a prompt of its own: typed by its shape
            parts.append(Part(sniff(rest), "\n".join(rest) + "\n", "", "",
                              start + len(lines)))
    return parts


_TOML_LINE = re.compile(r"^[ \t]*(?:#.*|\[.*|[\w.\"'-]+[ \t]*=.*|[\]}][ \t,]*|)$")
# a logfmt line (``time="…" level=fatal msg="…"``: logrus's text format, what the toolkit and
# containerd print) holds several ``key=value`` pairs; TOML holds one per line
_LOGFMT = re.compile(r"^[ \t]*[\w.-]+=(?:\"[^\"\n]*\"|[^\s\"=]+)[ \t]+[\w.-]+=\S")


def toml_extent(lines: list[str]) -> tuple[list[str], list[str]]:
    """A TOML file's lines and what follows them in a block: the file ends at the first line
    that no TOML line looks like (no ``key =``, no ``[table]``, no comment), outside a
    multi-line array or string. A malformed TOML line still has its ``=`` or ``[``, so it
    stays in the file (the config checks report it)."""
    depth, in_str = 0, False
    for i, ln in enumerate(lines):
        if in_str:
            in_str = ln.count('"""') % 2 == 0 and ln.count("'''") % 2 == 0
            continue
        if depth > 0:
            depth = max(0, depth + ln.count("[") - ln.count("]"))
            continue
        if not _TOML_LINE.match(ln) or _LOGFMT.match(ln):
            return lines[:i], lines[i:]
        if "=" in ln and not ln.lstrip().startswith("#"):
            value = ln.split("=", 1)[1]
            if value.count('"""') % 2 == 1 or value.count("'''") % 2 == 1:
                in_str = True
            depth = max(0, value.count("[") - value.count("]"))
    return lines, []
