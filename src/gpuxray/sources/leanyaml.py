"""Kubernetes YAML decoded into typed Structs without first building every document in Python.

Why: a must-gather holds ``kubectl get pods -o yaml`` of the operator namespace — 24k operand
pods, 57 MB on a 5k-node fleet. Loading it with PyYAML's C loader and converting the dicts took
25 s and 2 GB (every scalar tag-resolved in Python, every mapping a dict, the whole document
and its node graph alive at once), for the few fields the Structs keep. Here:

* the List's items are cut out of the text a few hundred at a time, and each batch is parsed
  by libyaml on its own (``kubectl`` writes ``items:`` then one ``- `` line per item at column
  0, and no line of an item's content starts at column 0), so one batch's nodes are alive at a
  time;
* the parser resolves no tag (a Python call per scalar in PyYAML's loaders); only the scalars
  that a Struct field keeps are resolved and constructed, exactly as the safe loader does;
* the node graph is walked along the Struct's fields (``msgspec.inspect``): subtrees no field
  reads (managedFields, volumes, probes, ``last-applied-configuration`` …) are never built;
* a batch written in the block style kubectl prints (go-yaml) is not composed at all: it is
  read from its lines (:func:`line_items`), a third of libyaml's composing for the same
  objects, and falls back to libyaml on any line outside that style.

The result equals :func:`msgspec.convert` over the safe loader's objects; wherever that cannot
be shown cheaply — an explicit tag (``!``), a merge key (``<<``), a cut that does not parse, a
recursive alias — the batch or the whole text takes the safe loader's path instead, which
also words every error as before.
"""

from __future__ import annotations

import mmap
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import msgspec
import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

T = TypeVar("T")
_intern = sys.intern

STR_TAG = "tag:yaml.org,2002:str"
BATCH_ITEMS = 256
LINES = True  # batches in kubectl's block style are read from their lines (tests turn it off)
HEAD_BYTES = 1 << 16  # where ``items:`` must start for a text to be cut into batches
Buffer = bytes | mmap.mmap
_CParser: Any = getattr(getattr(yaml, "_yaml", None), "CParser", None)

#: ``items:`` of a List at column 0, its first entry on the next line (the entries start
#: after the colon: the envelope is the text with ``[]`` in their place)
_ITEMS = re.compile(rb"(?:\A|\n)items:(?=[ \t]*\n-[ \n])")
#: an entry of the items sequence: ``-`` at column 0
_ENTRY = re.compile(rb"\n-(?=[ \n])")
#: a line at column 0 that is no entry, comment or blank: the items sequence ended before it
_AFTER = re.compile(rb"\n(?:[^ \t\n#\-]|-[^ \n])")


class Fallback(Exception):
    """This text (or batch) must take the safe loader's path."""


class _Parser(_CParser if _CParser is not None else object):  # type: ignore[misc]
    """libyaml's parser and composer, without PyYAML's tag resolution (done here on demand)."""

    def resolve(self, kind: type[Node], value: Any, implicit: Any) -> str:
        return ""

    def descend_resolver(self, *args: Any) -> None:
        return None

    def ascend_resolver(self, *args: Any) -> None:
        return None


class _Every:
    """Every first character (a resolver with patterns for any first character)."""

    def __contains__(self, _c: object) -> bool:
        return True


_RESOLVER = Resolver()
_CONSTRUCTOR = SafeConstructor()
#: the first characters for which the safe loader's resolver tries a pattern (bool, int,
#: float, null, timestamp, merge, value); a plain scalar starting otherwise is a string
_RESOLVED_FIRST: Any = (frozenset(k for k in _RESOLVER.yaml_implicit_resolvers if k)
                        if None not in _RESOLVER.yaml_implicit_resolvers else _Every())
#: plain scalars the resolver did turn into something else: a fleet repeats a few (``0``,
#: ``true``); their values are immutable, so one object serves every occurrence
_PLAIN: dict[str, Any] = {}


def _scalar(node: ScalarNode) -> Any:
    """The value the safe loader gives a scalar without an explicit tag."""
    value: str = node.value
    if node.style != "" or (value and value[0] not in _RESOLVED_FIRST):
        # quoted, block, or plain that no pattern can match: a string, and one object for
        # every occurrence (24k operand pods repeat their images, nodes, labels, reasons)
        return _intern(value)
    if value in _PLAIN:
        return _PLAIN[value]
    tag = _RESOLVER.resolve(ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    if tag == STR_TAG:
        out: Any = _intern(value)
    else:
        make = _CONSTRUCTOR.yaml_constructors.get(tag)
        if make is None:  # merge or value tag as a value: the safe loader's own error
            raise Fallback(tag)
        out = make(_CONSTRUCTOR, ScalarNode(tag, value))
    if len(_PLAIN) < 4096:
        _PLAIN[value] = out
    return out


def _key(node: Node) -> Any:
    if not isinstance(node, ScalarNode):
        raise Fallback("complex key")
    return _scalar(node)


# A plan says how far to build a node: ("s", {wire name: plan}) a Struct's fields, ("d", plan)
# a dict's values, ("l", plan) a list's items, None the whole node.
Plan = tuple[str, Any] | None


_PLANS: dict[Any, Plan] = {}


def plan_for(typ: Any) -> Plan:
    if typ not in _PLANS:
        _PLANS[typ] = _plan(msgspec.inspect.type_info(typ), {})
    return _PLANS[typ]


def _plan(t: msgspec.inspect.Type, seen: dict[int, Plan]) -> Plan:
    if isinstance(t, msgspec.inspect.StructType):
        if id(t.cls) in seen:
            return None
        seen[id(t.cls)] = None
        if t.tag_field is not None or t.array_like:
            return None
        return ("s", {f.encode_name: _plan(f.type, seen) for f in t.fields})
    if isinstance(t, msgspec.inspect.DictType):
        return ("d", _plan(t.value_type, seen))
    if isinstance(t, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType,
                      msgspec.inspect.SetType, msgspec.inspect.FrozenSetType)):
        return ("l", _plan(t.item_type, seen))
    if isinstance(t, msgspec.inspect.UnionType):
        others = [u for u in t.types if not isinstance(u, msgspec.inspect.NoneType)]
        # ``X | None`` reads as X; a union of several kinds (``str | int | float``) whole
        return _plan(others[0], seen) if len(others) == 1 else None
    return None


def build(node: Node, plan: Plan, depth: int = 0) -> Any:
    """The part of ``node`` that ``plan`` reads, as the safe loader would construct it."""
    if depth > 200:
        raise Fallback("too deep")
    if isinstance(node, ScalarNode):
        return _scalar(node)
    if plan is not None:
        kind, inner = plan
        if kind == "s" and isinstance(node, MappingNode):
            out: dict[Any, Any] = {}
            for k, v in node.value:
                if not isinstance(k, ScalarNode):
                    raise Fallback("complex key")
                sub = inner.get(k.value, _SKIP)
                if sub is _SKIP:
                    continue  # a key no field has (the convert step would ignore it)
                if _key(k) != k.value:
                    raise Fallback("a field name that resolves to a non-string")
                out[k.value] = build(v, sub, depth + 1)
            return out
        if kind == "d" and isinstance(node, MappingNode):
            return {_key(k): build(v, inner, depth + 1) for k, v in node.value}
        if kind == "l" and isinstance(node, SequenceNode):
            return [build(v, inner, depth + 1) for v in node.value]
    if isinstance(node, MappingNode):
        return {_key(k): build(v, None, depth + 1) for k, v in node.value}
    if isinstance(node, SequenceNode):
        return [build(v, None, depth + 1) for v in node.value]
    raise Fallback(type(node).__name__)


_SKIP: Any = object()


def _compose(text: bytes) -> Node | None:
    parser = _Parser(text)
    try:
        node: Node | None = parser.get_single_node()
    finally:
        parser.dispose()
    return node


def item_batches(data: Buffer) -> Iterator[tuple[int, int]] | None:
    """Where a List's entries lie, :data:`BATCH_ITEMS` at a time: (start, end) offsets of
    texts that are each a YAML block sequence of their own. None when the text is not laid out
    as ``kubectl`` writes a List. Reads the text front to back, once, as it goes."""
    head = _ITEMS.search(data, 0, min(len(data), HEAD_BYTES))
    if head is None:
        return None
    return _batches(data, head.end())


def _batches(data: Buffer, start: int) -> Iterator[tuple[int, int]]:
    n, at, prev = 0, start, start
    for m in _ENTRY.finditer(data, start):
        cut = m.start() + 1
        after = _AFTER.search(data, prev - 1, cut)
        if after is not None:  # the sequence ended before this entry
            yield at, after.start() + 1
            return
        prev = cut
        n += 1
        if n > BATCH_ITEMS:
            yield at, cut
            n, at = 1, cut
    after = _AFTER.search(data, prev - 1)
    yield at, after.start() + 1 if after is not None else len(data)


def lean_objects(data: Buffer, typ: type[T], convert: Callable[[Any, type[T]], T],
                 release: Callable[[int], None] | None = None,
                 each: Callable[[list[T]], None] | None = None) -> list[T]:
    """Every object of a YAML text (the items of a List, or each single document) as ``typ``,
    through ``convert`` (the caller's ``msgspec.convert`` with its error wording). Raises
    :class:`Fallback` where the safe loader's path must decide. ``release(offset)``: the
    text before ``offset`` will not be read again (a mapped file drops those pages).
    ``each``: called with the objects of each batch as they are made."""
    if _CParser is None:
        raise Fallback("no libyaml")
    plan = plan_for(typ)
    spans = item_batches(data)
    if spans is None:
        return _documents(bytes(data), typ, plan, convert)
    out: list[T] = []
    first = last = -1
    for i, (a, b) in enumerate(spans):
        first = a if first < 0 else first
        last = b
        text = bytes(data[a:b])
        if b"!" in text or b"<<" in text:
            # a tag or a merge key: this batch as the safe loader builds it
            try:
                items = yaml.load(text, Loader=yaml.CSafeLoader)
            except yaml.YAMLError as exc:
                raise Fallback("batch") from exc
            if not isinstance(items, list):
                raise Fallback("batch")
            got = [convert(item, typ) for item in items if isinstance(item, dict)]
        else:
            got = [convert(item, typ) for item in _batch_items(text, plan)]
        if each is not None:
            each(got)
        out.extend(got)
        if release is not None and i % 16 == 15:
            release(a)
    if first < 0:
        raise Fallback("no items")
    envelope = bytes(data[:first]) + b" []\n" + bytes(data[last:])
    try:
        env = _compose(envelope)
    except yaml.YAMLError as exc:
        raise Fallback("envelope") from exc
    if not isinstance(env, MappingNode) or b"!" in envelope or b"<<" in envelope:
        raise Fallback("envelope")
    return out


def _documents(data: bytes, typ: type[T], plan: Plan,
               convert: Callable[[Any, type[T]], T]) -> list[T]:
    if b"!" in data or b"<<" in data:
        raise Fallback("tags or merge keys")
    out: list[T] = []
    try:
        docs = list(_nodes(data))
    except yaml.YAMLError as exc:
        raise Fallback("parse") from exc
    for doc in docs:
        if not isinstance(doc, MappingNode):
            raise Fallback("not a mapping")  # the safe loader's path words it
        keys = {_key(k): v for k, v in doc.value}
        items = keys.get("items")
        if isinstance(items, SequenceNode):
            out.extend(convert(build(i, plan), typ) for i in items.value
                       if isinstance(i, MappingNode))
            continue
        kind = keys.get("kind")
        if str(build(kind, None) if kind is not None else "").endswith("List"):
            continue
        out.append(convert(build(doc, plan), typ))
    return out


def _nodes(data: bytes) -> Iterator[Node]:
    """Every document but the empty (null) ones, as the safe loader's ``load_all`` skips."""
    parser = _Parser(data)
    try:
        while parser.check_node():
            node = parser.get_node()
            if not (isinstance(node, ScalarNode) and node.style == "" and _scalar(node) is None):
                yield node
    finally:
        parser.dispose()


def _batch_items(text: bytes, plan: Plan) -> Iterable[dict[str, Any]]:
    """A batch's entries: from its lines where it is written in kubectl's block style, else
    composed by libyaml."""
    if LINES:
        try:
            return line_items(text.decode(), plan)
        except (Fallback, UnicodeDecodeError):
            pass
    return _items(text, plan)


def _items(text: bytes, plan: Plan) -> Iterator[dict[str, Any]]:
    try:
        seq = _compose(text)
    except yaml.YAMLError as exc:
        raise Fallback("batch") from exc
    if not isinstance(seq, SequenceNode):
        raise Fallback("batch")
    for item in seq.value:
        if isinstance(item, MappingNode):
            yield build(item, plan)


# ----- the block style kubectl writes, read line by line --------------------------------------
# ``kubectl get -o yaml`` prints through sigs.k8s.io/yaml (go-yaml): block mappings and
# sequences, sequences at their key's column, keys plain, scalars on their key's line (plain,
# quoted, ``{}``/``[]``) or literal blocks (``|``/``|-``). Composing that text with libyaml
# makes a Python node per scalar before a single field is read (two thirds of the time for a
# must-gather's 24k operand pods). Here each line is split by one regular expression and the
# objects are built from the lines directly, along the plan. Every line is checked against
# that subset, kept or not: anything else — a flow collection, a scalar that continues on the
# next line, an escape, a tab, an anchor, odd indentation, a character YAML treats specially —
# raises Fallback and the batch takes libyaml's route, which gives its result or its error.
# So the subset is only ever read where libyaml reads the same (tests/test_leanyaml.py holds
# both routes equal on kubectl's output, bench must-gathers and mutated texts).

#: a line: indentation, an entry's ``- ``, then ``key:`` with the rest after ``: ``, or a
#: scalar. A plain key starts with no YAML indicator and holds a ``:`` only before another
#: character (managedFields' ``f:spec``, ``k:{"name":"x"}``), or the key is quoted; anything
#: else goes to the scalar alternative, where the value check falls back. ``key: `` with only
#: a space after it is no key line either (kubectl writes none).
_LINE = re.compile(
    r"^( *)(- )?(?:([^ \n'\"#:?\-\[\]{},&*!|>%@`][^\n:]*(?::[^ \n:][^\n:]*)*"
    r"|'(?:[^'\n]|'')*'|\"(?:[^\"\\\n]|\\.)*\")"
    r":(?: (.+))?|(.*))$", re.M)
#: a double-quoted scalar's escapes that libyaml reads (``\/`` and escaped tabs left out)
_ESCAPE = re.compile(r'\\(?:([0abtnvfre "\\N_LP])|x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})'
                     r'|U([0-9A-Fa-f]{8}))')
_ESCAPED = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "\\": "\\", "N": "\x85",
            "_": "\xa0", "L": "\u2028", "P": "\u2029"}
#: characters outside YAML's printable set, or that it reads as line breaks (CR, NEL, LS,
#: PS), tabs and the byte order mark: a batch holding one takes libyaml's route
_ODD_CHAR = re.compile(
    "[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
#: first characters a plain scalar cannot have (``-``, ``?``, ``:`` can, before a non-space)
_NOT_PLAIN_FIRST = frozenset(" '\"#:?-[]{},&*!|>%@`")
#: the plan of a subtree no field reads: its lines are checked, nothing is built
_DROP: Any = ("drop", None)
Line = tuple[str, str, str, str, str]  # indentation, "- ", key, rest, scalar


def _plain_value(value: str) -> Any:
    """A plain scalar as the safe loader resolves and constructs it (as :func:`_scalar`)."""
    if value[0] not in _RESOLVED_FIRST:
        return _intern(value)
    got = _PLAIN.get(value, _SKIP)
    if got is not _SKIP:
        return got
    tag = _RESOLVER.resolve(ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    if tag == STR_TAG:
        out: Any = _intern(value)
    else:
        make = _CONSTRUCTOR.yaml_constructors.get(tag)
        if make is None:
            raise Fallback(tag)
        out = make(_CONSTRUCTOR, ScalarNode(tag, value))
    if len(_PLAIN) < 4096:
        _PLAIN[value] = out
    return out


#: scalars already read (their text → value; never ``{}``/``[]``, which are new each time):
#: 24k operand pods repeat their phases, images, nodes, booleans and counts
_SCALARS: dict[str, Any] = {}
#: keys already read (text → key): a fleet's pods share one vocabulary of keys and labels
_KEYS: dict[str, Any] = {}
CACHE_ENTRIES = 4096  # a few hot values (phases, images, nodes); more only grows the RSS
CACHE_LENGTH = 64


def _value(raw: str) -> Any:
    """A scalar written on its key's (or entry's) line; checked even where it is not kept."""
    got = _SCALARS.get(raw, _SKIP)
    if got is not _SKIP:
        return got
    c = raw[0]
    if c == "'":
        inner = raw[1:-1]
        if len(raw) < 2 or raw[-1] != "'":
            raise Fallback("quoted scalar")
        if "'" in inner:
            if "'" in inner.replace("''", ""):
                raise Fallback("quoted scalar")
            inner = inner.replace("''", "'")
        out: Any = _intern(inner)
    elif c == '"':
        out = _intern(_double_quoted(raw))
    else:
        if c in _NOT_PLAIN_FIRST:
            if raw == "{}":
                return {}
            if raw == "[]":
                return []
            if c not in "-?:" or len(raw) < 2 or raw[1] == " ":
                raise Fallback("indicator")
        if " #" in raw or ": " in raw or raw[-1] in " :":
            raise Fallback("plain scalar")
        out = _plain_value(raw)
    if len(raw) <= CACHE_LENGTH and len(_SCALARS) < CACHE_ENTRIES:
        _SCALARS[raw] = out
    return out


def _double_quoted(raw: str) -> str:
    inner = raw[1:-1]
    if len(raw) < 2 or raw[-1] != '"':
        raise Fallback("double-quoted scalar")
    if "\\" not in inner:
        if '"' in inner:
            raise Fallback("double-quoted scalar")
        return inner
    if '"' in _ESCAPE.sub("", inner) or "\\" in _ESCAPE.sub("", inner):
        raise Fallback("double-quoted scalar")
    return _ESCAPE.sub(_unescape, inner)


def _unescape(m: re.Match[str]) -> str:
    one, *code = m.groups()
    if one is not None:
        return _ESCAPED[one]
    point = int(next(c for c in code if c is not None), 16)
    if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
        raise Fallback("escape")
    return chr(point)


def _key_value(key: str) -> Any:
    got = _KEYS.get(key, _SKIP)
    if got is not _SKIP:
        return got
    if key[0] == "'":
        out: Any = _intern(_value(key))
    elif key[0] == '"':
        out = _intern(_double_quoted(key))
    elif " #" in key or key[-1] == " ":
        raise Fallback("key")
    else:
        out = _plain_value(key)
    if len(_KEYS) < CACHE_ENTRIES:
        _KEYS[key] = out
    return out


def line_items(text: str, plan: Plan) -> list[dict[str, Any]]:
    """The mapping entries of a batch (a block sequence at column 0), built along ``plan``
    from its lines; raises :class:`Fallback` where the text leaves the subset read here."""
    if not text.endswith("\n") or _ODD_CHAR.search(text) is not None:
        raise Fallback("characters")
    if not _fields_are_strings(plan):
        raise Fallback("a field name that resolves to a non-string")
    lines: list[Line] = _LINE.findall(text)
    n = len(lines) - 1  # the empty match after the last line break
    i = _nonblank(lines, n, 0)
    if i >= n or lines[i][0] or not lines[i][1]:
        raise Fallback("no sequence at column 0")
    out, i = _seq(lines, n, i, 0, ("l", plan))
    if i != n:
        raise Fallback("text after the sequence")
    return [x for x in out if isinstance(x, dict)]


def _nonblank(lines: list[Line], n: int, i: int) -> int:
    while i < n:
        t = lines[i]
        if t[1] or t[2] or t[4]:
            return i
        i += 1
    return i


def _node(lines: list[Line], n: int, j: int, plan: Plan) -> tuple[Any, int]:
    """The block node whose first line is ``j`` (a value on the lines after its key)."""
    ind, dash, key, rest, _scal = lines[j]
    col = len(ind)
    if col > 400:
        raise Fallback("too deep")
    if dash:
        return _seq(lines, n, j, col, plan)
    if key:
        return _map(lines, n, j + 1, col, plan, key, rest)
    raise Fallback("a scalar on its own line")


def _seq(lines: list[Line], n: int, i: int, col: int, plan: Plan) -> tuple[Any, int]:
    """A block sequence whose entries' ``- `` stand at ``col``, from its first entry ``i``."""
    keep = plan is not _DROP
    inner = (plan[1] if plan[0] == "l" else None) if plan is not None and keep else \
        (_DROP if not keep else None)
    out: list[Any] = []
    while True:
        _ind, _dash, key, rest, scal = lines[i]
        if key:
            value, i = _map(lines, n, i + 1, col + 2, inner, key, rest)
        elif scal:
            i += 1
            if i < n and len(lines[i][0]) > col:
                value, i = _scalar_lines(lines, n, i, col, scal, keep)
            else:
                value = _value(scal)
        else:
            raise Fallback("an empty entry")
        if keep:
            out.append(value)
        if i < n:
            t = lines[i]
            if t[1] and len(t[0]) == col:
                continue  # the next entry
            i = _nonblank(lines, n, i)
        if i >= n:
            return out, i
        t = lines[i]
        ci = len(t[0])
        if ci == col and t[1]:
            continue
        if ci < col or (ci == col and t[2]):
            return out, i  # the sequence ended (at a key of the mapping it is the value of)
        raise Fallback("indentation")


def _map(lines: list[Line], n: int, i: int, col: int, plan: Plan, key: str,
         rest: str) -> tuple[Any, int]:
    """A block mapping whose keys stand at ``col``; its first key and rest are given, its
    next line is ``i``. A Struct's field names are known to resolve to themselves
    (:func:`_fields_are_strings`), so a kept field's key is not resolved again."""
    keep_all = plan is not _DROP
    fields: dict[str, Plan] | None = None
    inner: Plan = _DROP if not keep_all else None
    if keep_all and plan is not None:
        if plan[0] == "s":
            fields = plan[1]
        elif plan[0] == "d":
            inner = plan[1]
    scalars, keys = _SCALARS, _KEYS
    out: dict[Any, Any] = {}
    while True:
        if fields is not None:
            sub = fields.get(key, _DROP)
            keep = sub is not _DROP
            if not keep:
                k = keys.get(key, _SKIP)
                if k is _SKIP:
                    k = _key_value(key)  # checked all the same (a comment in it falls back)
                if k is not key and key[0] in "'\"" and k in fields:
                    key, sub, keep = k, fields[k], True  # a quoted field name
        else:
            sub, keep = inner, keep_all
        if rest:
            if i < n and len(lines[i][0]) > col:  # more lines: a block or folded scalar
                value, i = _scalar_lines(lines, n, i, col, rest, keep)
            else:
                value = scalars.get(rest, _SKIP)
                if value is _SKIP:
                    value = _value(rest)
        else:  # the value is on the next lines, or null
            value = None
            j = _nonblank(lines, n, i)
            if j < n:
                t = lines[j]
                ci = len(t[0])
                if ci > col or (ci == col and t[1]):
                    value, i = _node(lines, n, j, sub)
        if fields is None:
            k = keys.get(key, _SKIP)
            if k is _SKIP:
                k = _key_value(key)
            if keep:
                out[k] = value
        elif keep:
            out[key] = value
        if i < n:
            t = lines[i]
            if t[2] and not t[1] and len(t[0]) == col:
                key, rest = t[2], t[3]  # the next key
                i += 1
                continue
            i = _nonblank(lines, n, i)
        if i >= n:
            return out, i
        t = lines[i]
        ci = len(t[0])
        if ci < col:
            return out, i
        if ci > col or t[1] or not t[2]:
            raise Fallback("indentation")
        key, rest = t[2], t[3]
        i += 1


_CHECKED_PLANS: dict[int, bool] = {}


def _fields_are_strings(plan: Plan) -> bool:
    """Whether every field name in ``plan`` reads as that string when it is a plain key
    (``build`` falls back on one that does not, e.g. a field named ``on``)."""
    if plan is None:
        return True
    got = _CHECKED_PLANS.get(id(plan))
    if got is None:
        kind, inner = plan
        if kind == "s":
            got = all(_plain_value(k) == k and _fields_are_strings(v) for k, v in inner.items())
        else:
            got = _fields_are_strings(inner)
        _CHECKED_PLANS[id(plan)] = got
    return got


def _raw(t: Line) -> str:
    """A line's text after its indentation."""
    return t[1] + (t[2] + ":" + (" " + t[3] if t[3] else "") if t[2] else t[4])


def _scalar_lines(lines: list[Line], n: int, i: int, parent: int, first: str,
                  keep: bool) -> tuple[Any, int]:
    """A scalar that starts after its key's (or entry's) ``first`` text and goes on at line
    ``i``, indented past ``parent``: a literal block (``|``), or a plain or single-quoted
    scalar that go-yaml folded at its line width (each line break read as one space)."""
    if first[0] == "|":
        return _literal(lines, n, i, parent, first, keep)
    if first[0] not in "'-?:" and first[0] in _NOT_PLAIN_FIRST:
        raise Fallback("indicator")
    parts = [first]
    while i < n:
        t = lines[i]
        if len(t[0]) <= parent:
            break
        raw = _raw(t)
        if not raw or raw[-1] == " ":
            raise Fallback("spaces or an empty line in a folded scalar")
        parts.append(raw)
        i += 1
    if first[0] == "'":
        text = " ".join(parts)
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            raise Fallback("quoted scalar")
        return (_intern(inner.replace("''", "'")) if keep else None), i
    _value(first)  # a plain scalar's first line, checked
    for raw in parts[1:]:
        # the lines after it: any character goes on the scalar (libyaml's scan_plain_scalar)
        # but a comment, or a ``:`` that starts a mapping value
        if raw[0] == "#" or " #" in raw or ": " in raw or raw[-1] == ":":
            raise Fallback("plain scalar")
    return _plain_value(" ".join(parts)), i


def _literal(lines: list[Line], n: int, i: int, parent: int, header: str,
             keep: bool) -> tuple[Any, int]:
    """A literal block scalar (``|`` or ``|-``) under a node at column ``parent``: its lines
    from ``i``, indented as its first line is."""
    if header not in ("|", "|-"):
        raise Fallback("block scalar header")
    if i >= n:
        raise Fallback("empty block scalar")
    ci = len(lines[i][0])
    if ci <= parent or not (lines[i][1] or lines[i][2] or lines[i][4]):
        raise Fallback("block scalar start")
    text: list[str] = []
    while i < n:
        ind, dash, key, _rest, scal = lines[i]
        k = len(ind)
        if not (dash or key or scal):
            if k > ci:
                raise Fallback("spaces in a block scalar")
            text.append("")
        elif k >= ci:
            text.append(ind[ci:] + _raw(lines[i]))
        elif k > parent:
            raise Fallback("block scalar indentation")
        else:
            break
        i += 1
    end = len(text)
    while not text[end - 1]:
        end -= 1  # trailing empty lines: not content (clip, strip), and not the next node's
    i -= len(text) - end
    if not keep:
        return None, i
    core = "\n".join(text[:end])
    return _intern(core + "\n" if header == "|" else core), i
