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
  reads (managedFields, volumes, probes, ``last-applied-configuration`` …) are never built.

The result equals :func:`msgspec.convert` over the safe loader's objects; wherever that cannot
be shown cheaply — an explicit tag (``!``), a merge key (``<<``), a cut that does not parse, a
recursive alias — the batch or the whole text takes the safe loader's path instead, which
also words every error as before.
"""

from __future__ import annotations

import mmap
import re
import sys
from collections.abc import Callable, Iterator
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
            got = [convert(item, typ) for item in _items(text, plan)]
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
