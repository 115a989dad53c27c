"""Decode Kubernetes documents (JSON or YAML, a List or a single object) into typed Structs.

``kubectl get -o json`` writes a v1 List; hand-made bundles often hold one object, or YAML.
msgspec decodes JSON straight into the Structs (fast path); YAML goes through the C safe loader
then ``msgspec.convert``. Errors become one-line :class:`InputError` naming the file.
"""

# Annotations stay real objects: msgspec would compile each string annotation of the Structs
# here on first decode (see model/k8s.py).

import io
import mmap
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from gpuxray.errors import InputError

T = TypeVar("T")


def yaml_docs(data: bytes | str) -> list[Any]:
    """Every non-empty document of a YAML stream, with libyaml's C loader where present
    (~10× the pure-Python one). PyYAML is imported here, on the first YAML input: its import
    compiles a dozen patterns (~25 ms) that a JSON bundle never needs. Raises yaml.YAMLError,
    ValueError or RecursionError for the caller to word."""
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return [d for d in yaml.load_all(data, Loader=loader) if d is not None]


class _List(msgspec.Struct, Generic[T], gc=False):
    items: list[T] | None = None
    kind: str = ""


def _is_yaml(name: str) -> bool:
    return name.endswith((".yaml", ".yml"))


def _first_error_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def decode_objects(data: bytes, typ: type[T], name: str) -> list[T]:
    """All objects in a document: the items of a List, or the single object."""
    if _is_yaml(name):
        return _from_yaml(data, typ, name)
    try:
        lst = msgspec.json.decode(data, type=_List[typ])  # type: ignore[valid-type]
    except msgspec.DecodeError as exc:
        if data.lstrip()[:1] not in (b"{", b"["):
            # A YAML document saved as .json is common in hand-made bundles.
            try:
                return _from_yaml(data, typ, name)
            except InputError:
                pass
        raise InputError(f"{name}: malformed JSON ({_first_error_line(exc)})") from exc
    except msgspec.ValidationError as exc:
        raise InputError(f"{name}: unexpected content ({_first_error_line(exc)})") from exc
    if lst.items is not None:
        return lst.items
    if lst.kind.endswith("List"):
        return []
    try:
        return [msgspec.json.decode(data, type=typ)]
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise InputError(f"{name}: unexpected content ({_first_error_line(exc)})") from exc


STREAM_THRESHOLD = 32 << 20  # files above this are decoded in pieces
_WINDOW_ITEMS = 2048
_CHUNK_BYTES = 8 << 20
_STEP_BYTES = 1 << 20
_MAX_MISCUTS = 32  # wrong guesses at an item boundary before the slower exact split is used
_ITEMS_OPEN = re.compile(rb'"items"\s*:\s*\[\s*')
#: how an item opens: its first key, and that key's value when it is a string
#: (``{"apiVersion":"v1"``); a cut is only guessed where the next item opens the same way
_ITEM_OPENING = re.compile(rb'\{\s*"[^"\\]{1,64}"\s*:(?:\s*"[^"\\]{0,64}")?')


class _RawList(msgspec.Struct, gc=False):
    items: list[msgspec.Raw] | None = None
    kind: str = ""


class _Skim(msgspec.Struct, gc=False):
    pass


@dataclass(frozen=True)
class Whole:
    """A few objects of a List decoded as a fuller type than the rest: ``why`` asks about one
    pod and reads every other pod only as :class:`~gpuxray.model.k8s.PodCore`.

    ``needles``: byte strings one of which occurs in the JSON text of every object wanted
    (its name as a JSON string); a piece holding none is decoded as the slim type only.
    ``keep``: whether a fully decoded object is one of those wanted; it then replaces the slim
    one at its position. A file read whole (small, YAML, or not a List) decodes every object
    as ``typ``, which holds every field of the slim type.

    ``want`` (``check``, which wants many pods whole, by what their slim fields show; ``why``,
    which names its pod): each piece's slim objects are asked, and the wanted ones decoded
    whole from their own text."""

    typ: type[Any]
    needles: tuple[bytes, ...]
    keep: Callable[[Any], bool]
    #: instead of needles and keep: whether a slim object is wanted whole, asked of every one;
    #: the wanted ones are decoded again from their own text
    want: Callable[[Any], bool] | None = None
    #: called with each piece's objects decoded whole (the slim ones are not passed to ``each``)
    shared: Callable[[list[Any]], None] | None = None
    #: with ``want``: a piece (or the rest of the file) where many objects were wanted is
    #: decoded whole at once; off, only the wanted objects are ever whole (``why``'s one pod)
    by_share: bool = True


def decode_file(path: Path, typ: type[T], name: str, whole: Whole | None = None,
                each: Callable[[list[T]], None] | None = None) -> list[T]:
    """Like :func:`decode_objects` for a file, but a large JSON List never sits in memory twice.

    Decoding a 350 MB ``pods.json`` the plain way holds the whole text and every decoded object
    at once (measured: 2.8× the file in peak RSS). Here the items are read and decoded a few
    megabytes at a time (:func:`_decode_pieces`): the peak is the decoded objects plus one
    piece. Where the pieces cannot be proven, the file is mapped and split into raw items
    first (:func:`_decode_mapped`), which also names a bad item.
    """
    out = _decode_file(path, typ, name, whole, each)
    return out


def decode_file_where(path: Path, typ: type[T], name: str, head: type[Any],
                      keep: Callable[[Any], bool]) -> list[T]:
    """The objects of a file for which ``keep`` holds, ``keep`` asked of each object decoded
    as ``head`` (a few of its fields): ``why``'s first read keeps its pod's events alone.

    A JSON List of moderate size is parsed twice, once into heads and once into raw items,
    and only the kept items are decoded as ``typ`` (over a fleet's 29k events: ~0.02 s
    instead of ~0.05 s, and no index over all of them to build). ``head`` reads only fields
    ``typ`` has, so ``keep`` answers for the object as ``typ`` decodes it. Anything else
    (YAML, a large file, a single object, an item not of the type) takes :func:`decode_file`,
    then ``keep``, so errors are worded as there."""
    if not _is_yaml(name) and path.stat().st_size < STREAM_THRESHOLD:
        data = path.read_bytes()
        try:
            heads = msgspec.json.decode(data, type=_List[head]).items  # type: ignore[valid-type]
            raws = msgspec.json.decode(data, type=_RawList).items
            if heads is not None and raws is not None and len(heads) == len(raws):
                dec = msgspec.json.Decoder(typ)
                return [dec.decode(raws[i]) for i, h in enumerate(heads) if keep(h)]
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass
    out = decode_file(path, typ, name)
    return [o for o in out if keep(o)]


def _decode_file(path: Path, typ: type[T], name: str, whole: Whole | None,
                 each: Callable[[list[T]], None] | None) -> list[T]:
    def done(objs: list[T]) -> list[T]:
        if each is not None:
            each(objs)
        return objs

    if _is_yaml(name):
        return decode_yaml_file(path, whole.typ if whole else typ, name, each)
    size = path.stat().st_size
    if size < STREAM_THRESHOLD or not hasattr(mmap, "MADV_DONTNEED"):
        return done(decode_objects(path.read_bytes(), whole.typ if whole else typ, name))
    with open(path, "rb") as fh:
        out = _decode_pieces(fh, size, typ, whole, each)
        if out is not None:
            return out
        if whole is not None:
            typ = whole.typ
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            # every view into the mapping is gone when this returns, errors included
            out, error = _decode_mapped(mm, typ, name)
    if error:
        raise InputError(error)
    return done(out if out is not None else decode_objects(path.read_bytes(), typ, name))


def _decode_pieces(fh: io.BufferedIOBase, size: int, typ: type[T],
                   whole: Whole | None = None,
                   each: Callable[[list[T]], None] | None = None) -> list[T] | None:
    """Decode a List's items in pieces cut between two items, in one pass over the text.

    A cut is guessed where one item closes and the next opens the way the first one did
    (``},{"apiVersion":"v1"``) and proven by decoding the piece as a JSON array: a cut inside
    an item or a string leaves a bracket or a quote unclosed, so a piece decodes only when
    every cut lies between two whole items. The envelope around ``items`` is decoded on its own
    to prove the array was the List's. Anything unexpected — no ``items`` near the top, too
    many wrong guesses, an item that does not fit the type — returns None and the exact split
    decides. The file is read, not mapped: faulting in 90k pages of a mapping cost more than
    the copy. Measured on a 365 MB ``pods.json``: ~1 s less than mapping and splitting first.
    """
    first = fh.read(1 << 16)
    head = _ITEMS_OPEN.search(first)
    if head is None:
        return None
    tail_at = max(head.end(), size - (1 << 16))
    fh.seek(tail_at)
    tail = fh.read()
    end = _items_end(tail, tail_at)
    if end is None or end <= head.end():
        return None
    opening = _ITEM_OPENING.match(first, head.end())
    # A quote inside a JSON string is always escaped, so an opening that holds one never
    # matches inside a string; only an identically opening nested object could fool it, and
    # then the piece fails to decode and the next guess is tried.
    between = re.compile(rb"\}\s*,\s*" + re.escape(opening.group() if opening else b"{"))
    dec = msgspec.json.Decoder(list[typ])  # type: ignore[valid-type]
    whole_dec = msgspec.json.Decoder(list[whole.typ]) if whole else None  # type: ignore[name-defined]
    wanted = (_Wanted(whole, opening.group() if opening else b"", typ)
              if whole is not None and whole.want is not None else None)

    # buf[:n] holds the file from offset ``base``; buf[0] is a spare byte that becomes the
    # piece's "[". One buffer, reused: fresh pages for every piece cost more than the decode.
    buf, n, base = bytearray(_CHUNK_BYTES + _STEP_BYTES), 1, head.end() - 1
    buf[0] = 0x5B
    fh.seek(head.end())

    def fill(upto: int) -> None:
        nonlocal buf, n
        want = min(upto, end + 1) - base
        if want > len(buf):
            buf.extend(bytes(want - len(buf)))  # an item larger than a piece: rare
        while n < want:
            view = memoryview(buf)[n:want]
            try:
                got = fh.readinto(view)
            finally:
                view.release()
            if not got:
                return
            n += got

    def next_cut(lo: int) -> int:
        while lo < end:
            fill(lo + _STEP_BYTES)
            hi = min(end, base + n)
            m = between.search(buf, lo - base, hi - base)
            if m:
                return base + m.start() + 1
            if hi >= end or hi <= lo:
                break
            lo = max(lo, hi - 512)  # overlap: a separator may straddle two reads
        return end

    out: list[T] = []
    misses = 0
    try:
        while True:
            cut = next_cut(base + 1 + _CHUNK_BYTES)
            while True:
                fill(cut + 1)
                if base + n <= cut:
                    return None  # the file ended early (it changed under us)
                saved, buf[cut - base] = buf[cut - base], 0x5D  # "]"
                view = memoryview(buf)[:cut - base + 1]
                try:
                    got = wanted.piece(dec, view) if wanted is not None else dec.decode(view)
                    if wanted is None and whole is not None and whole_dec is not None and any(
                            buf.find(nd, 0, cut - base + 1) >= 0 for nd in whole.needles):
                        for i, full in enumerate(whole_dec.decode(view)):
                            if whole.keep(full):
                                got[i] = full
                    if each is not None:
                        each(got)
                    out.extend(got)
                    break
                except msgspec.DecodeError:
                    misses += 1
                    if misses > _MAX_MISCUTS or cut == end:
                        return None
                finally:
                    view.release()
                buf[cut - base] = saved
                cut = next_cut(cut)
            if cut == end:
                break
            nxt = buf.find(b"{", cut - base, n)
            if nxt < 0:
                return None
            keep = n - (nxt - 1)
            with memoryview(buf) as mv:
                mv[:keep] = mv[nxt - 1:n]
            n, base = keep, base + nxt - 1
            buf[0] = 0x5B  # "["
    except msgspec.ValidationError:
        return None
    envelope = b"".join((first[:head.end()], b"]", tail[end + 1 - tail_at:]))
    try:
        lst = msgspec.json.decode(envelope, type=_List[_Skim])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return out if lst.items == [] else None


#: a piece with more than this share of its objects wanted whole is decoded whole at once
_WHOLE_PIECE_SHARE = 0.3
#: after a piece that was mostly wanted, the next pieces are decoded whole without asking (the
#: slim decode and the question cost more than they save where most objects are wanted: an
#: operator's namespace, or a fleet where every piece holds its operands); one piece in a
#: stretch of them is asked again, after 2, 4, then every 8 pieces, so a stretch ends where
#: the wanted objects do. An apiserver lists objects by namespace and name: the operator's
#: pods come as one run, and a run at the head of the file must not make the rest whole
_PROBE_FIRST = 2
_PROBE_MAX = 8


class _Wanted:
    """Replaces the objects of each piece that ``whole.want`` asks for by their whole decode:
    each from its own text, or the piece decoded whole when much of it is wanted, and the pieces
    after it whole until one asked again is not.

    An object's own text is found where the items open (:meth:`by_opening`), else by splitting
    the piece into raw items — a second parse of the whole piece, which cost more than the
    whole decodes where a few percent of the pods are wanted in every piece (a pending storm:
    4,900 pending and 8,000 completed pods spread over 100k)."""

    def __init__(self, whole: Whole, opening: bytes = b"", slim: type[Any] | None = None,
                 ) -> None:
        assert whole.want is not None
        #: a slim type whose objects may point into the piece's text (``msgspec.Raw``
        #: values) says how to let go of it: called on each piece before its buffer is reused
        self.detach: Callable[[list[Any]], None] | None = getattr(slim, "detach", None)
        self.want = whole.want
        self.shared = whole.shared
        self.by_share = whole.by_share
        self.opening = opening
        self.whole_dec = msgspec.json.Decoder(list[whole.typ])  # type: ignore[name-defined]
        self.item_dec = msgspec.json.Decoder(whole.typ)
        self.raw_dec = msgspec.json.Decoder(list[msgspec.Raw])
        #: pieces to decode whole without asking before the next is asked, and the gap
        #: after that one if it is mostly wanted again
        self.unasked = 0
        self.gap = _PROBE_FIRST

    def whole_piece(self, view: memoryview) -> list[Any]:
        got: list[Any] = self.whole_dec.decode(view)
        if self.shared is not None:
            self.shared(got)
        return got

    def piece(self, dec: msgspec.json.Decoder[list[Any]], view: memoryview) -> list[Any]:
        if self.unasked:
            self.unasked -= 1
            return self.whole_piece(view)
        got = dec.decode(view)
        try:
            many = self.replace(got, view)
        finally:
            if self.detach is not None:
                self.detach(got)
        if many:  # a run of wanted objects: the next pieces whole, asked again further on
            self.unasked = self.gap - 1
            self.gap = min(self.gap * 2, _PROBE_MAX)
        else:
            self.gap = _PROBE_FIRST
        return got

    def replace(self, got: list[Any], view: memoryview) -> bool:
        """Whether the piece was mostly wanted (and so decoded whole)."""
        want = self.want
        idx = [i for i, o in enumerate(got) if want(o)]
        if not idx:
            return False
        if self.by_share and len(idx) > _WHOLE_PIECE_SHARE * len(got):
            got[:] = self.whole_piece(view)
            return True
        wholes = self.by_opening(got, idx, view)
        if wholes is None:
            raws = self.raw_dec.decode(view)
            try:
                wholes = [self.item_dec.decode(raws[i]) for i in idx]
            finally:
                del raws  # raw items hold the piece's buffer, which is released after this
        if self.shared is not None:
            self.shared(wholes)
        for i, obj in zip(idx, wholes, strict=True):
            got[i] = obj
        return False

    def by_opening(self, got: list[Any], idx: list[int], view: memoryview) -> list[Any] | None:
        """The wanted objects decoded from their own text, cut where each item opens: the
        piece (``[`` item ``,`` … ``]``) holds the List's opening bytes (``{"apiVersion":
        "v1"``, kubectl's indentation included) exactly once per item, the first at its
        start. Trusted only when it holds them as many times as the piece has objects, and
        when each text decoded is one whole object with the namespace and name of the object
        at its position; a nested object opening like an item (a pod owned by its Node) or an
        item opening otherwise fails one of those, and None sends the piece to the raw
        split."""
        opening, n = self.opening, len(got)
        if not opening:
            return None
        buf = view.obj
        if not isinstance(buf, bytearray):
            return None
        end = len(view) - 1  # the "]" closing the piece
        find, step = buf.find, len(opening)
        starts: list[int] = []
        at = find(opening, 1, end)
        while at >= 0:
            starts.append(at)
            if len(starts) > n:
                return None
            at = find(opening, at + step, end)
        if len(starts) != n or starts[0] != 1:
            return None
        starts.append(end)
        dec, out = self.item_dec, []
        try:
            for i in idx:
                stop = starts[i + 1]
                while buf[stop - 1] in _BETWEEN_ITEMS:
                    stop -= 1
                with view[starts[i]:stop] as text:
                    obj = dec.decode(text)
                if _identity(obj) != _identity(got[i]):
                    return None
                out.append(obj)
        except (msgspec.DecodeError, msgspec.ValidationError, AttributeError):
            return None
        return out


#: what separates two items of a JSON array: whitespace and one comma (an item ends in "}")
_BETWEEN_ITEMS = frozenset(b" \t\r\n,")


def _identity(obj: Any) -> tuple[str | None, str]:
    meta = obj.metadata
    return meta.namespace, meta.name


def _items_end(tail: bytes, offset: int) -> int | None:
    """File offset of the ``]`` closing the items array, found in the file's tail: the last
    ``]`` that follows a ``}`` (kubectl writes ``kind`` and ``metadata`` after ``items``)."""
    close = tail.rfind(b"]")
    while close >= 0:
        if tail[max(0, close - 64):close].rstrip().endswith(b"}"):
            return offset + close
        close = tail.rfind(b"]", 0, close)
    return None


def _decode_mapped(mm: mmap.mmap, typ: type[T], name: str) -> tuple[list[T] | None, str]:
    try:
        raws = msgspec.json.decode(mm, type=_RawList)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None, ""  # not a List: let the plain path decode it or name the error
    if raws.items is None:
        return None, ""
    mm.madvise(mmap.MADV_DONTNEED)
    dec = msgspec.json.Decoder(typ)
    out: list[T] = []
    for i, raw in enumerate(raws.items):
        try:
            out.append(dec.decode(raw))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return None, f"{name}: item {i}: unexpected content ({_first_error_line(exc)})"
        if i % _WINDOW_ITEMS == _WINDOW_ITEMS - 1:
            mm.madvise(mmap.MADV_DONTNEED)
    return out, ""


def decode_one(data: bytes, typ: type[T], name: str) -> T:
    if _is_yaml(name):
        docs = _load_yaml(data, name)
        if not docs:
            raise InputError(f"{name}: empty document")
        return _convert(docs[0], typ, name)
    try:
        return msgspec.json.decode(data, type=typ)
    except msgspec.DecodeError as exc:
        raise InputError(f"{name}: malformed JSON ({_first_error_line(exc)})") from exc
    except msgspec.ValidationError as exc:
        raise InputError(f"{name}: unexpected content ({_first_error_line(exc)})") from exc


def _load_yaml(data: bytes, name: str) -> list[Any]:
    import yaml

    try:
        return yaml_docs(data)
    except yaml.YAMLError as exc:
        raise InputError(f"{name}: malformed YAML ({_first_error_line(exc)})") from exc
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{name}: unreadable YAML ({type(exc).__name__})") from exc


def _convert(obj: Any, typ: type[T], name: str) -> T:
    try:
        return msgspec.convert(obj, type=typ, strict=False)
    except msgspec.ValidationError as exc:
        raise InputError(f"{name}: unexpected content ({_first_error_line(exc)})") from exc


def decode_yaml_file(path: Path, typ: type[T], name: str,
                     each: Callable[[list[T]], None] | None = None) -> list[T]:
    """The objects of a YAML file; a large one is mapped and read lean batch by batch
    (``sources/leanyaml.py``), the pages behind dropped as it goes, so neither the text nor
    its parse is ever whole in memory."""
    size = path.stat().st_size
    if size >= STREAM_THRESHOLD and hasattr(mmap, "MADV_DONTNEED"):
        from gpuxray.sources import leanyaml

        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:

            def release(offset: int) -> None:
                mm.madvise(mmap.MADV_DONTNEED, 0, offset - offset % mmap.PAGESIZE)

            try:
                return leanyaml.lean_objects(mm, typ, lambda obj, t: _convert(obj, t, name),
                                             release, each)
            except (leanyaml.Fallback, InputError, RecursionError):
                pass
    out = _from_yaml(path.read_bytes(), typ, name)
    if each is not None:
        each(out)
    return out


def _from_yaml(data: bytes, typ: type[T], name: str) -> list[T]:
    """The objects of a YAML text: built lean (``sources/leanyaml.py``) where that is shown to
    give what the safe loader gives; else, and for every error's wording, the safe loader."""
    from gpuxray.sources import leanyaml

    try:
        return leanyaml.lean_objects(data, typ, lambda obj, t: _convert(obj, t, name))
    except (leanyaml.Fallback, InputError, RecursionError):
        pass
    return _from_yaml_safe(data, typ, name)


def _from_yaml_safe(data: bytes, typ: type[T], name: str) -> list[T]:
    out: list[T] = []
    for doc in _load_yaml(data, name):
        if not isinstance(doc, dict):
            raise InputError(f"{name}: expected a Kubernetes object or List, "
                             f"got {type(doc).__name__}")
        items = doc.get("items")
        if isinstance(items, list):
            out.extend(_convert(i, typ, name) for i in items if isinstance(i, dict))
        elif str(doc.get("kind", "")).endswith("List"):
            continue
        else:
            out.append(_convert(doc, typ, name))
    return out
