"""Simulate containerd's config load: import resolution, per-line merge, migration, defaults,
and attribution of every lost setting to the file that caused the loss.

Import resolution (facts.md §1.1, same in every line): the root first, then a FIFO queue
(breadth-first); a path is globbed only if it contains ``*``; matches in Go's lexical order; a
glob without matches is fine; a missing literal import stops containerd; a file already loaded
is skipped, so cycles are harmless. A relative literal path is joined to the importing file's
directory; a relative glob is joined too except on 1.6.20 and older, which glob it from the
daemon's working directory (VERIFIED against Debian's 1.6.20 binary).

Merge per line:

- **1.x** (``mergeConfig``): each ``plugins.<key>`` is **replaced** by the later file's section;
  top-level scalars override only when non-empty; ``disabled_plugins``/``required_plugins``
  append without dedupe; ``proxy_plugins``/``stream_processors``/``timeouts`` replace per key;
  the version is the last non-zero one and decides whether short IDs (v1) or URIs (v2) are
  read; with version 2 every plugin key and disabled/required plugin must be a
  ``io.containerd.*`` URI or loading fails; 1.6.32+/1.7.17+ refuse version > 2.
  VERIFIED by the differential test against ``containerd config dump`` of 1.6.20.
- **2.0–2.2**: v0/v1 files get short IDs renamed and are stamped with the version merged so far;
  plugins **deep-merge** (tables merged, scalars override even when zero, arrays replaced);
  top-level slices append with dedupe; the v2->v3 CRI migration runs **once on the merged
  config** and only when the merged version (the last one a file states) is below 3. Since
  2.0.2 it takes only keys the v3 section lacks, so a v3 root with a ``runtimes`` table keeps a
  v2 drop-in's runtimes out — the mixed-version hazard; a merged version above 3 is refused.
- **2.3 and later**: every file is migrated to version 4 before merging; 2.3.0–2.3.4 refuse a
  drop-in whose version is above the first one a file stated.
- 2.x keeps the default ``runc`` runtime next to what the files add; 1.x replaces the map.

Every 2.x rule and each refusal's message is VERIFIED against the real binaries
(tests/test_containerd_versions.py); containerd's own code is cited per rule in migrate.py and
versions.py.
"""

from __future__ import annotations

import copy
import posixpath
import tomllib
from collections.abc import Iterator
from typing import Any

from gpuxray.engines.containerd import defaults as D
from gpuxray.engines.containerd.migrate import (
    GRPC_CRI_KEEP,
    cri_migrate,
    service_migrate,
    v1_migrate,
)
from gpuxray.engines.containerd.model import (
    Analysis,
    ConfigFile,
    LostKey,
    Problem,
    ProblemKind,
    Section,
)
from gpuxray.engines.containerd.reader import ConfigReader, ReadFailure, TooManyMatches
from gpuxray.engines.containerd.versions import (
    Line,
    ResolvedVersion,
    glob_relative_to_cwd,
    max_config_version,
    migration_wholesale,
    refuses_higher_dropin,
)

Table = dict[str, Any]
Path_ = tuple[str, ...]

ROOT_CONFIG = "/etc/containerd/config.toml"
#: Analysis caps: a glob reaching more files, or an import chain deeper, is reported instead of
#: followed (containerd itself has no cap; a tree this size is a mistake or an attack).
MAX_FILES = 1000
MAX_DEPTH = 32

APPEND_SLICES = ("disabled_plugins", "required_plugins")
PER_KEY_TABLES = ("proxy_plugins", "stream_processors", "timeouts")
SECTION_TABLES = ("proxy_plugins", "stream_processors")  # attributed like plugin sections


# ----- small dict helpers ------------------------------------------------------------------
def _is_zero(v: Any) -> bool:
    """Go's zero value: what mergo's override leaves alone on struct fields."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        return v == 0
    if isinstance(v, (str, list, dict)):
        return len(v) == 0
    return v is None


def _merge_nonzero(dst: Table, src: Table) -> None:
    """mergo ``WithOverride`` on struct fields: non-empty values override, tables recurse."""
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _merge_nonzero(dst[k], v)
        elif not _is_zero(v):
            dst[k] = copy.deepcopy(v)


def _deep_merge(dst: Table, src: Table) -> None:
    """mergo on ``map[string]any`` with override (2.x plugins): tables recurse, every other
    value — including false, 0, "" and arrays — replaces."""
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _deep_merge(dst[k], v)
        else:
            dst[k] = copy.deepcopy(v)


def leaves(t: Any, prefix: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every leaf path of a table; an empty table is a leaf (``[...runtimes.nvidia]``)."""
    if isinstance(t, dict) and t:
        for k, v in t.items():
            yield from leaves(v, (*prefix, str(k)))
    else:
        yield prefix, t


def has_path(t: Any, path: Path_) -> bool:
    for p in path:
        if not isinstance(t, dict) or p not in t:
            return False
        t = t[p]
    return True


def dig(t: Any, *path: str) -> Any:
    for p in path:
        if not isinstance(t, dict):
            return None
        t = t.get(p)
    return t


def overlay_defaults(dflt: Table, tree: Table, replaced: tuple[Path_, ...],
                     at: Path_ = ()) -> Table:
    """A plugin's decoded config: ``tree`` unmarshalled onto its defaults. Maps listed in
    ``replaced`` are taken from ``tree`` whole when present (1.6.20: naming any runtime drops
    the default ``runc``)."""
    out = copy.deepcopy(dflt)
    for k, v in tree.items():
        here = (*at, k)
        if here in replaced or not (isinstance(v, dict) and isinstance(out.get(k), dict)):
            out[k] = copy.deepcopy(v)
        else:
            out[k] = overlay_defaults(out[k], v, replaced, here)
    return out


def migrate_file_23(data: Table, version: int, target: int) -> Table:
    """2.3+: one file migrated to ``target`` before it is merged, step by step as
    ``LoadConfigWithPlugins`` does: config migration ``v -> v+1`` (v1: short IDs -> URIs,
    v3: server tables -> plugins), then each plugin's migration at ``v`` — the CRI ones run for
    every ``v < 4``, so a v3 file's v2-layout CRI table is migrated too
    (``containerd/containerd@v2.3.7:cmd/containerd/server/config/config.go``)."""
    out = dict(data)
    plugins = dict(out.get("plugins") or {})
    for v in range(version, target):
        if v == 1:
            plugins = v1_migrate(plugins)
        if v == 3:
            out["plugins"] = plugins
            out = service_migrate(out)
            plugins = out["plugins"]
        if v < 4:
            plugins = cri_migrate(plugins)
    out["plugins"] = plugins
    return out


# ----- per-line merge state ------------------------------------------------------------------
class _Merge:
    """Accumulates files in load order the way one containerd line does."""

    def __init__(self, rv: ResolvedVersion) -> None:
        self.rv = rv
        self.line = rv.line
        self.out: Table = {"plugins": {}}
        # 2.x starts from defaultConfig() whose version is 3 (facts.md §1.2); 2.3 migrates
        # every file to 4 before merging; 1.x's default config says 1.
        self.version = {Line.V1: 0, Line.V2: 3, Line.V23: 4}[self.line]
        self.version_setter: str | None = None
        self.root_version = 0
        self.first_version = 0   # 2.3.0-2.3.4 compare drop-ins with the first version stated
        self.last_path = ""      # the last path taken off the import queue (error messages)
        self.pre_migration: Table = {}
        self.raw_2x: list[tuple[str, Table]] = []  # 2.x: file -> plugins as merged
        self.writers: dict[str, list[str]] = {}       # raw section key -> files
        self.intended: list[tuple[str, Table]] = []   # file -> sections in final namespace
        self.raw_names: dict[tuple[str, str], str] = {}  # (file, final name) -> key as written
        self.notes: list[str] = []

    # -- the public step
    def add(self, f: ConfigFile, sources: dict[str, str]) -> list[Problem]:
        probs: list[Problem] = []
        data = f.data
        is_root = f.imported_by is None
        if is_root:
            self.root_version = f.version
        if self.line is Line.V23 and refuses_higher_dropin(self.rv.ver):
            if self.first_version == 0:
                self.first_version = f.version
            if f.version > self.first_version:
                msg = (f"drop-in config version {f.version} higher than root config version "
                       f"{self.first_version}")
                probs.append(Problem(ProblemKind.DROPIN_HIGHER, f.path, f.source,
                                     f"{msg} (containerd {self.rv.text} refuses to start)", True,
                                     daemon=msg))
                return probs
        plugins = data.get("plugins") or {}
        if not isinstance(plugins, dict):
            return [Problem(ProblemKind.PARSE, f.path, f.source, "`plugins` is not a table",
                            True)]
        if self.line is Line.V1:
            self._add_1x(f, data, plugins)
        else:
            probs += self._add_2x(f, data, plugins)
            if probs:
                return probs
        self.intended.append((f.path, self._intended(f, data, plugins)))
        return probs

    def _top_level(self, data: Table, dedupe: bool) -> None:
        for k, v in data.items():
            if k in ("plugins", "imports", "version"):
                continue
            cur = self.out.get(k)
            if k in APPEND_SLICES and isinstance(v, list) and isinstance(cur, list | None):
                cur = self.out.setdefault(k, [])
                cur.extend(x for x in v if not (dedupe and x in cur))
            elif k in PER_KEY_TABLES and isinstance(v, dict) and isinstance(cur, dict | None):
                self.out.setdefault(k, {}).update(copy.deepcopy(v))
            elif isinstance(v, dict) and isinstance(cur, dict):
                _merge_nonzero(cur, v)
            elif isinstance(v, dict) or not _is_zero(v):
                self.out[k] = copy.deepcopy(v)

    def _set_version(self, f: ConfigFile, v: int) -> None:
        if v:
            self.version = v
            self.version_setter = f.path

    def _add_1x(self, f: ConfigFile, data: Table, plugins: Table) -> None:
        self._top_level(data, dedupe=False)
        self._set_version(f, f.version)
        for k, v in plugins.items():
            self.out["plugins"][k] = copy.deepcopy(v)     # the whole section, replaced
            self.writers.setdefault(k, []).append(f.path)
        for t in SECTION_TABLES:
            for k in (data.get(t) or {}) if isinstance(data.get(t), dict) else {}:
                self.writers.setdefault(f"{t}.{k}", []).append(f.path)

    def validate(self, sources: dict[str, str]) -> list[Problem]:
        """The version/URI validation each line runs once, on the merged config after every
        file was loaded (1.x ``ValidateV2``, 2.x ``ValidateVersion``). The daemon's message
        names the last path taken off the import queue; the finding names the file at fault."""
        last = self.last_path
        where = f"failed to load TOML from {last}: "
        mx = max_config_version(self.rv.ver)
        version = self.version
        if self.line is Line.V1 and version < 2:
            return []
        if mx is not None and version > mx:
            setter = self.version_setter or last
            if self.line is Line.V1:
                daemon = f"unsupported config version `{version}`"
            else:
                daemon = (f"expected containerd config version equal to or less than `{mx}`, "
                          f"got `{version}`")
            return [Problem(ProblemKind.VERSION_REFUSED, setter, sources.get(setter, setter),
                            f"containerd config version {version} is not supported by "
                            f"containerd {self.rv.text}, the max version is {mx}", True,
                            daemon=where + daemon)]

        def bad(name: str) -> bool:
            if self.line is Line.V1:
                return not name.startswith("io.containerd.") or len(name.split(".", 3)) < 4
            return "." not in name

        for t in APPEND_SLICES:
            for name in self.out.get(t) or []:
                if bad(str(name)):
                    msg = (f'invalid {t[:-1].replace("_", " ")} URI "{name}" '
                           "expect io.containerd.x.vx")
                    return [Problem(ProblemKind.PLUGIN_KEY, last, sources.get(last, last), msg,
                                    True, daemon=where + msg)]
        if self.line is not Line.V1:
            return []
        for k in self.out["plugins"]:
            if bad(k):
                culprit = self.writers[k][-1]
                msg = f'invalid plugin key URI "{k}" expect io.containerd.x.vx'
                return [Problem(ProblemKind.PLUGIN_KEY, culprit, sources.get(culprit, culprit),
                                f"{msg} (config version {version})", True, daemon=where + msg)]
        return []

    def _add_2x(self, f: ConfigFile, data: Table, plugins: Table) -> list[Problem]:
        if self.line is Line.V23:
            data = migrate_file_23(data, f.version, self.version)
            plugins = data.get("plugins") or {}
        elif f.version in (0, 1):
            if self.version > 3:
                # MigrateConfigTo(merged version) indexes the 3-entry migration table past its
                # end: the release panics (index out of range) before anything else is checked
                return [Problem(ProblemKind.VERSION_REFUSED, f.path, f.source,
                                f"containerd {self.rv.text} crashes migrating this file without "
                                f"a version after a version {self.version} file", True,
                                daemon="panic: runtime error: index out of range "
                                       f"[{self.version - 1}] with length 3")]
            plugins = v1_migrate(plugins)
            if D.CRI_V2 in plugins and self.version >= 3:
                # the file is stamped with the version merged so far (3): no CRI migration
                self.notes.append(f"{f.path} has no `version = 2` or later: containerd "
                                  f"{self.rv.text} renames its plugin IDs but does not migrate "
                                  "its CRI settings to the v3 layout; they are ignored")
        self._top_level(data, dedupe=True)
        # a v0/v1 file is stamped with the merged version: it does not change it (2.0-2.2)
        if self.line is Line.V23:
            self._set_version(f, max(f.version, self.version))
        elif f.version not in (0, 1):
            self._set_version(f, f.version)
        _deep_merge(self.out["plugins"], plugins)
        self.raw_2x.append((f.path, plugins))
        for k in plugins:
            self.writers.setdefault(k, []).append(f.path)
        for t in SECTION_TABLES:
            for k in (data.get(t) or {}) if isinstance(data.get(t), dict) else {}:
                self.writers.setdefault(f"{t}.{k}", []).append(f.path)
        return []

    def _intended(self, f: ConfigFile, data: Table, plugins: Table) -> Table:
        """What this file asks for, standalone, in the final namespace of its line."""
        if self.line is Line.V1:
            sec = {}
            for k, v in plugins.items():
                final = k if k.startswith("io.containerd.") else D.v1_to_uri(k)
                sec[final] = v
                self.raw_names[(f.path, final)] = k
        else:
            sec = dict(migrate_file_23({"plugins": plugins}, f.version, 4).get("plugins") or {})
            sec = {k: val for k, val in sec.items() if val != {}}
        for t in SECTION_TABLES:
            if isinstance(data.get(t), dict):
                for k, v2 in data[t].items():
                    sec[f"{t}.{k}"] = v2
        return sec

    # -- the end
    def finish(self) -> tuple[int, Table, Table, list[str]]:
        """(config version, merged config, effective sections by final name, notes)."""
        notes: list[str] = list(self.notes)
        merged = self.out
        plugins: Table = merged["plugins"]
        if self.line is Line.V1:
            version = self.version or 1
            if version == 1:
                eff = {D.v1_to_uri(k): v for k, v in plugins.items()
                       if not k.startswith("io.containerd.")}
                skipped = [k for k in plugins if k.startswith("io.containerd.")]
            else:
                eff = {k: v for k, v in plugins.items() if k.startswith("io.containerd.")}
                skipped = [k for k in plugins if not k.startswith("io.containerd.")]
            if skipped:
                notes.append(f"config version {version}: sections {', '.join(skipped)} are not "
                             "read by this containerd")
            v3 = [k for k in eff if k.startswith("io.containerd.cri.v1.")]
            if v3:
                notes.append(f"containerd {self.rv.text} has no plugin {', '.join(v3)} "
                             "(config version 3 names): those sections are ignored")
        else:
            version = self.version
            eff = copy.deepcopy(plugins)
            self.pre_migration = plugins
            if self.line is Line.V2 and version < 3:
                # server.New (and config dump) migrate the merged config once
                eff = cri_migrate(eff, wholesale=migration_wholesale(self.rv.ver))
            elif isinstance(eff.get(D.CRI_V2), dict):
                # v3 grpc.v1.cri keeps only the CRI server keys; the rest is unknown there.
                eff[D.CRI_V2] = {k: v for k, v in eff[D.CRI_V2].items() if k in GRPC_CRI_KEEP}
        for t in SECTION_TABLES:
            if isinstance(merged.get(t), dict):
                for k, v in merged[t].items():
                    eff[f"{t}.{k}"] = v
        merged["version"] = version
        return version, merged, eff, notes

    def attribute(self, eff: Table, version: int) -> tuple[dict[str, Section], list[str]]:
        """Per final section: its writers and the settings earlier files made that ``eff`` lost.
        Also returns every runtime handler any file named."""
        rt_plugin = D.runtime_plugin(self.line)
        named: list[str] = []
        writers: dict[str, list[str]] = {}
        lost: dict[str, list[LostKey]] = {}
        order = [p for p, _ in self.intended]
        for path, sec in self.intended:
            rts = dig(sec.get(rt_plugin), "containerd", "runtimes")
            if isinstance(rts, dict):
                named += [r for r in rts if r not in named]
            for name in sec:
                writers.setdefault(name, []).append(path)
        for idx, (path, sec) in enumerate(self.intended):
            for name, tree in sec.items():
                for leaf, value in leaves(tree):
                    if has_path(eff.get(name), leaf):
                        continue
                    raw = self.raw_names.get((path, name), name)
                    later = [w for w in self.writers.get(raw, writers.get(name, []))
                             if w in order and order.index(w) > idx]
                    blocked: tuple[str, tuple[str, ...]] = ("", ())
                    if self.line is Line.V1 and later:
                        culprit, reason = later[-1], "replaced"
                    elif self.line is Line.V2 and version < 3:
                        culprit = self.version_setter or path
                        if migration_wholesale(self.rv.ver):
                            reason = "migration-overwrote"
                        else:
                            reason = "migration-kept"
                            blocked = self._blocking(name, leaf)
                    else:
                        culprit, reason = (self.version_setter or path), "ignored-version"
                    lost.setdefault(name, []).append(
                        LostKey(name, ".".join(leaf), value, path, culprit, reason,
                                blocked[1], blocked[0]))
        if (self.line is Line.V2 and version < 3 and not migration_wholesale(self.rv.ver)):
            for k in self._kept_out_values(eff):
                lost.setdefault(k.section, []).append(k)
        sections = {name: Section(name, tuple(ws), tuple(lost.get(name, ())))
                    for name, ws in writers.items()}
        return sections, named

    def intended_of(self, path: str) -> Table:
        return next((sec for p, sec in self.intended if p == path), {})

    def _blocking(self, name: str, leaf: Path_) -> tuple[str, tuple[str, ...]]:
        """2.0.2–2.2: the v3 key that kept a v2 setting out of the migration (the migration
        fills top-level keys, and ``cni``/``containerd`` keys one level deep) and the files
        that wrote it."""
        if name != D.CRI_RUNTIME_V3 or not leaf:
            return "", ()
        key = leaf[:2] if leaf[0] in ("cni", "containerd") and len(leaf) > 1 else leaf[:1]
        if not has_path(self.pre_migration.get(D.CRI_RUNTIME_V3), key):
            return "", ()
        files = tuple(p for p, plugins in self.raw_2x
                      if has_path(plugins.get(D.CRI_RUNTIME_V3), key))
        return ".".join(key), files

    def _kept_out_values(self, eff: Table) -> list[LostKey]:
        """2.0.2–2.2: v2 settings whose key the v3 section already had, so the migration kept
        the earlier v3 value (a later drop-in's ``default_runtime_name``, ``enable_cdi``, …)."""
        src = self.pre_migration.get(D.CRI_V2)
        if not isinstance(src, dict):
            return []
        alone = cri_migrate({D.CRI_V2: src}).get(D.CRI_RUNTIME_V3) or {}
        have = eff.get(D.CRI_RUNTIME_V3)
        out = []
        for leaf, value in leaves(alone):
            if not leaf or not has_path(have, leaf) or dig(have, *leaf) == value:
                continue
            files = [p for p, sec in self.intended
                     if has_path(sec.get(D.CRI_RUNTIME_V3), leaf)
                     and dig(sec.get(D.CRI_RUNTIME_V3), *leaf) == value]
            if not files:
                continue
            key, blockers = self._blocking(D.CRI_RUNTIME_V3, leaf)
            out.append(LostKey(D.CRI_RUNTIME_V3, ".".join(leaf), value, files[-1],
                               self.version_setter or files[-1], "migration-kept", blockers,
                               key))
        return out


# ----- loading ------------------------------------------------------------------------------
def _resolve(reader: ConfigReader, parent: str, imports: list[str], rv: ResolvedVersion,
             cwd: str, limit: int) -> list[str]:
    out: list[str] = []
    for imp in imports:
        if "*" in imp:
            if posixpath.isabs(imp):
                pattern = imp
            elif glob_relative_to_cwd(rv.ver):
                # Go globs the relative pattern from the working directory and returns
                # *relative* matches; they are new keys of the "loaded" set, so a file reached
                # both ways is loaded twice (verified on 1.6.20).
                matches = reader.glob(posixpath.normpath(posixpath.join(cwd, imp)), limit)
                out += [posixpath.relpath(m, cwd) for m in matches]
                continue
            else:
                pattern = posixpath.join(_abs(posixpath.dirname(parent), cwd), imp)
            out += reader.glob(posixpath.normpath(pattern), limit)
        else:
            p = posixpath.normpath(imp)
            out.append(p if posixpath.isabs(p) else
                       posixpath.normpath(posixpath.join(posixpath.dirname(parent), p)))
    return out


def _abs(path: str, cwd: str) -> str:
    return path if posixpath.isabs(path) else posixpath.normpath(posixpath.join(cwd, path))


def _parse(text: str) -> Table:
    return tomllib.loads(text)


def analyse(reader: ConfigReader, rv: ResolvedVersion, root: str = ROOT_CONFIG, *,
            cwd: str = "/", extra_imports: tuple[str, ...] = (),
            dropin_dirs: tuple[str, ...] | None = None) -> Analysis:
    """Load ``root`` and everything it imports through ``reader`` as containerd ``rv`` would.

    ``extra_imports`` are appended to the root's ``imports`` (the ``--add`` what-if when the
    added file lands in no import glob). ``dropin_dirs``: the globs where drop-ins that no
    loaded file imports are looked for (default :data:`DROPIN_DIRS`, and only for the stock
    root; a k3s/RKE2 root passes its own).
    """
    a = Analysis(version=rv, root=root)
    m = _Merge(rv)
    queue: list[tuple[str, str | None, int]] = [(root, None, 0)]
    loaded: set[str] = set()
    sources: dict[str, str] = {}
    while queue:
        path, parent, depth = queue.pop(0)
        m.last_path = path
        if path in loaded:
            continue
        src = reader.source(_abs(path, cwd))
        if depth > MAX_DEPTH:
            a.problems.append(Problem(ProblemKind.TOO_DEEP, path, src,
                                      f"import chain deeper than {MAX_DEPTH} files; "
                                      "analysis stopped", False))
            break
        try:
            text = reader.read(_abs(path, cwd))
        except ReadFailure as exc:
            if parent is None and exc.missing:
                a.root_missing = True
                break
            kind = ProblemKind.MISSING_IMPORT if exc.missing else ProblemKind.UNREADABLE
            what = f"imported by {parent}: " if parent else ""
            daemon = None
            if exc.missing:
                # the daemon stops with this; ``config dump`` of 2.x ignores a not-exist error
                # and prints what was merged so far (cmd/containerd/command/config.go)
                daemon = f"open {path}: no such file or directory"
                if rv.line is Line.V1:
                    daemon = f"failed to load TOML: {path}: {daemon}"
            a.problems.append(Problem(kind, path, src, f"{what}{exc.reason}", True,
                                      daemon=daemon))
            break
        try:
            data = _parse(text)
        except tomllib.TOMLDecodeError as exc:
            a.problems.append(Problem(ProblemKind.PARSE, path, src, f"invalid TOML: {exc}",
                                      True))
            break
        except RecursionError:
            a.problems.append(Problem(ProblemKind.PARSE, path, src,
                                      "invalid TOML: nested too deeply", True))
            break
        version = data.get("version", 0)
        imports = data.get("imports", [])
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            a.problems.append(Problem(ProblemKind.PARSE, path, src,
                                      f"`version` must be a non-negative integer, got "
                                      f"{version!r}", True))
            break
        if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
            a.problems.append(Problem(ProblemKind.PARSE, path, src,
                                      "`imports` must be an array of strings", True))
            break
        f = ConfigFile(path, src, data, version, parent, depth)
        sources[path] = src
        probs = m.add(f, sources)
        a.files.append(f)
        a.problems += probs
        if any(p.fatal for p in probs):
            break
        if parent is None:
            imports = [*imports, *extra_imports]
        try:
            resolved = _resolve(reader, path, imports, rv, cwd, MAX_FILES)
        except TooManyMatches as exc:
            a.problems.append(Problem(ProblemKind.TOO_MANY_FILES, path, src,
                                      f"import {exc.pattern!r} matches more than {exc.limit} "
                                      "files; analysis stopped", False))
            break
        loaded.add(path)
        queue += [(p, path, depth + 1) for p in resolved]
        if len(loaded) + len(queue) > MAX_FILES * 2:
            a.problems.append(Problem(ProblemKind.TOO_MANY_FILES, path, src,
                                      f"imports reach more than {MAX_FILES} files; "
                                      "analysis stopped", False))
            break
    if a.files and not a.fatal:
        a.problems += m.validate(sources)
    _finish(a, m)
    if dropin_dirs is not None:
        _unimported(a, reader, cwd, dropin_dirs)
    elif root == ROOT_CONFIG:
        _unimported(a, reader, cwd)
    return a


#: Where drop-ins are written: conf.d (toolkit 1.18.1+, operator) and config.d (toolkit
#: 1.18.0's default, facts.md §2.2).
DROPIN_DIRS = ("/etc/containerd/conf.d/*.toml", "/etc/containerd/config.d/*.toml")


def _unimported(a: Analysis, reader: ConfigReader, cwd: str,
                dirs: tuple[str, ...] = DROPIN_DIRS) -> None:
    """Drop-ins that exist but that no loaded file imports: containerd never reads them (2.2+
    has conf.d in its *defaults*, but follows it only when config.toml lists it, §1.2)."""
    loaded = {_abs(f.path, cwd) for f in a.files}
    for pattern in dirs:
        try:
            found = reader.glob(pattern, MAX_FILES)
        except TooManyMatches:
            continue
        for p in found:
            if p not in loaded:
                a.unimported.append(p)
                a.other_sources[p] = reader.source(p)
    if a.unimported and not a.root_missing:
        a.notes.append(f"not imported by any loaded file, so never read: "
                       f"{', '.join(a.unimported)}")


def _finish(a: Analysis, m: _Merge) -> None:
    line = a.version.line
    version, merged, eff, notes = m.finish()
    a.config_version = version
    a.merged = merged
    a.notes += notes
    replaced = D.replaced_maps(line)
    effective = copy.deepcopy(eff)
    for name, dflt in D.plugin_defaults(line, a.version.ver).items():
        tree = eff.get(name)
        effective[name] = overlay_defaults(dflt, tree if isinstance(tree, dict) else {}, replaced)
    a.effective = effective
    rt = effective.get(D.runtime_plugin(line), {})
    runtimes = dig(rt, "containerd", "runtimes")
    a.runtimes = sorted(runtimes) if isinstance(runtimes, dict) else []
    dflt_rt = dig(rt, "containerd", "default_runtime_name")
    a.default_runtime = dflt_rt if isinstance(dflt_rt, str) else None
    if line is not Line.V1 and a.version.ver >= D.CDI_ALWAYS_ON_FROM:
        set_by = [f.path for f in a.files
                  if "enable_cdi" in (dig(m.intended_of(f.path), D.CRI_RUNTIME_V3) or {})]
        rt.pop("enable_cdi", None)   # an unknown key there: the dump drops it
        a.cdi = {"enable_cdi": True, "cdi_spec_dirs": rt.get("cdi_spec_dirs", [])}
        if set_by:
            a.notes.append(f"containerd {a.version.text} has no enable_cdi setting (CDI is always"
                           f" on); the one in {', '.join(set_by)} is ignored")
    else:
        if line is Line.V1 and a.version.ver < (1, 7, 0):
            for k in ("enable_cdi", "cdi_spec_dirs"):   # 1.6 has no CDI: unknown keys
                rt.pop(k, None)
        a.cdi = {k: rt[k] for k in ("enable_cdi", "cdi_spec_dirs") if k in rt}
    a.sections, a.intended_runtimes = m.attribute(eff, version)
    if a.files and a.default_runtime and a.default_runtime not in a.runtimes and not a.fatal:
        writer = m.writers.get(D.runtime_plugin(line)) or m.writers.get("cri") or [a.root]
        culprit = writer[-1]
        a.problems.append(Problem(
            ProblemKind.CRI_DEFAULT_RUNTIME, culprit, a.source_of(culprit),
            f"default_runtime_name {a.default_runtime!r} is not among the runtimes "
            f"{a.runtimes}: the CRI plugin fails to load", True,
            # the CRI plugin's ValidateRuntimeConfig (internal/cri/config/config.go; 1.7:
            # pkg/cri/config/config.go), logged as "failed to load plugin"; containerd itself
            # keeps running without CRI (VERIFIED on 2.0.14-2.2.9 by test_containerd_daemon.py)
            daemon="invalid plugin config: no corresponding runtime configured in "
                   "`containerd.runtimes` for `containerd` `default_runtime_name = "
                   f'"{a.default_runtime}"'))
    if a.root_missing:
        a.notes.append(f"{a.root} does not exist: containerd runs on built-in defaults and "
                       "follows no imports")


def import_patterns(a: Analysis) -> list[str]:
    """The absolute glob patterns the loaded files import, in load order (for ``--add``)."""
    out: list[str] = []
    for f in a.files:
        for imp in f.data.get("imports", []) or []:
            if not isinstance(imp, str) or "*" not in imp:
                continue
            if posixpath.isabs(imp):
                pat = imp
            elif glob_relative_to_cwd(a.version.ver):
                pat = posixpath.join("/", imp)
            else:
                pat = posixpath.join(posixpath.dirname(f.path), imp)
            pat = posixpath.normpath(pat)
            if pat not in out:
                out.append(pat)
    return out


def nvidia_dump_lines(a: Analysis) -> int | None:
    """What ``containerd config dump | grep -c runtimes.nvidia`` shows for this config (seed §5
    counts this way): one line per table header under ``runtimes.nvidia*``. 1.x prints every
    runtime with its ``.options`` table (2 lines per handler, 6 for the toolkit's three); 2.x
    prints ``.options`` only when it has keys. None when containerd would refuse the config
    (the dump fails). VERIFIED against each binary's dump by tests/test_containerd_versions.py.
    """
    if any(p.fatal and p.kind is not ProblemKind.CRI_DEFAULT_RUNTIME for p in a.problems):
        return None
    rts = dig(a.effective.get(D.runtime_plugin(a.version.line)), "containerd", "runtimes")
    if not isinstance(rts, dict):
        return 0
    n = 0
    for name, rt in rts.items():
        if not str(name).startswith("nvidia"):
            continue
        n += 1
        if a.version.line is Line.V1 or (isinstance(rt, dict) and dig(rt, "options")):
            n += 1
    return n
