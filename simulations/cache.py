"""A content-addressed cache of finished trials.

A batch of trials is stored under the SHA-256 of everything its numbers depend
on: the trial function's name, a fingerprint of the code it may run
(:func:`code_fingerprint`: its module's static import closure and its paper's
files in the layers below), the configuration, the root seed and the range
of trial indices.  Hence

* a rerun with the same configuration reuses every finished batch;
* an interrupted run keeps the batches it finished (each is written as soon
  as it arrives, atomically) and resumes from them;
* changing one parameter of one configuration recomputes only that
  configuration; editing one paper's trials recomputes only that paper's
  trials, and editing a shared module recomputes every trial that imports it;
* an entry carries the SHA-256 of its key and payload in a one-line header
  (:data:`MAGIC`): an edited, truncated or older-format entry is *rejected* on
  read: deleted, logged to ``<dir>/rejected.log`` (:data:`REJECT_LOG`), counted
  (:func:`rejected_entries`) and treated as a miss, so the batch is recomputed
  and stored again; it never reaches a result.

Examples
--------
>>> import tempfile
>>> from simulations.cache import TrialCache
>>> c = TrialCache(tempfile.mkdtemp())
>>> k = c.key("mod.trial", {"m": 10}, 0, 0, 5)
>>> c.get(k) is None
True
>>> c.put(k, [{"trial": 0, "x": 1.0}]); c.get(k)
[{'trial': 0, 'x': 1.0}]
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import os
import pickle
import tempfile
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from bounds import snapshot as _snapshot

log = logging.getLogger(__name__)

#: first bytes of an entry: ``MAGIC + sha256(key NUL payload) hex + newline``, then the pickled rows
MAGIC = b"dp-erm-verify trial-cache v2 sha256="
#: file (in the cache directory) listing the rejected entries, one ``time pid path reason`` line each
REJECT_LOG = "rejected.log"

#: the project's packages (the code a fingerprint may cover)
PACKAGES = ("bounds", "simulations", "verify")
#: where each layer keeps its paper modules, lowest layer first
PAPER_DIRS = (("bounds", "bounds/papers"), ("simulations", "simulations/trials"), ("verify", "verify/empirical"))

ROOT = Path(__file__).resolve().parents[1]

#: a module whose results depend on every paper's declarations says so with ``__all_papers__ = ALL_PAPERS``
#: (it reads them through discovery, which the static import closure cannot follow)
ALL_PAPERS = "depends on every paper"


class _Mark(str):
    """What the scanner records for an ``__all_papers__`` assignment (never equal to a real string)."""

    def __eq__(self, other: object) -> bool:
        return other is self

    __hash__ = object.__hash__


_MARK = _Mark("__all_papers__")


def _module_file(name: str, root: Path) -> Path | None:
    base = root.joinpath(*name.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


def _imports(path: Path, name: str, root: Path) -> tuple[set[str], set[str]]:
    """Project modules imported anywhere in ``path`` (functions included), and its string constants."""
    tree = ast.parse(path.read_bytes())
    is_pkg = path.name == "__init__.py"
    pkg = name if is_pkg else name.rpartition(".")[0]
    mods: set[str] = set()
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            mods.add(mod)
            mods.update(f"{mod}.{a.name}" for a in node.names)   # `from pkg import submodule`
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 80:
            strings.add(node.value)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all_papers__"
                                                  for t in node.targets):
            strings.add(_MARK)
    out = set()
    for m in mods:
        if m.split(".")[0] in PACKAGES and _module_file(m, root) is not None:
            out.add(m)
    return out, strings


def paper_ids(root: Path = ROOT) -> list[str]:
    """Ids of the papers, read from the file names of ``bounds/papers`` (no import)."""
    return sorted(p.stem for p in (root / "bounds" / "papers").glob("*.py") if not p.stem.startswith("_"))


def code_files(module: str, root: Path | str = ROOT) -> list[Path]:
    """The source files whose code ``module`` may run: its static import closure, plus paper files.

    The closure follows every ``import`` inside the project's packages, including imports inside
    functions, but not modules loaded by discovery.  A paper's own files in the layers below (and
    in the module's own layer) are added when the closure names the paper: it is the module of
    that paper (``simulations/trials/<id>.py`` is paper ``<id>``) or holds a string starting with
    ``"<paper id>."`` (a statement key); every paper's files are added when a module of the closure
    declares ``__all_papers__ = ALL_PAPERS`` (it reads every paper's declarations through discovery).
    """
    root = Path(root)
    ids = set(paper_ids(root))
    layer = module.split(".")[0]
    seen: dict[str, Path] = {}
    papers: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(name, root)
        if path is None:
            continue
        seen[name] = path
        for _layer, d in PAPER_DIRS:
            rel = path.relative_to(root).as_posix()
            if rel.startswith(d + "/") and path.stem in ids:
                papers.add(path.stem)
        mods, strings = _imports(path, name, root)
        todo.extend(mods - set(seen))
        if _MARK in strings:     # the module's results depend on every paper's declarations
            papers.update(ids)
        papers.update(s.split(".", 1)[0] for s in strings if "." in s and s.split(".", 1)[0] in ids)
        # a paper named by the closure brings its files of the lower layers (and of this one)
        for pid in sorted(papers):
            for lay, d in PAPER_DIRS:
                if PACKAGES.index(lay) > PACKAGES.index(layer):
                    break
                pm = f"{d.replace('/', '.')}.{pid}"
                if pm not in seen and pm not in todo:
                    todo.append(pm)
    return sorted(set(seen.values()))


@lru_cache(maxsize=256)
def _fingerprint(module: str, root: str) -> str:
    h = hashlib.sha256()
    r = Path(root)
    for p in code_files(module, r):
        h.update(p.relative_to(r).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def code_fingerprint(module: str | None = None, root: Path | str = ROOT) -> str:
    """SHA-256 of the code :func:`code_files` finds for ``module``.

    Editing one paper's trial module changes the fingerprint of that paper's trials only;
    editing a shared module they import (a solver, the runner) changes every fingerprint
    that imports it.  ``module=None`` fingerprints all of :mod:`bounds` and :mod:`simulations`.
    """
    if module is None:
        h = hashlib.sha256()
        r = Path(root)
        for pkg in ("bounds", "simulations"):
            for p in sorted((r / pkg).rglob("*.py")):
                h.update(str(p.relative_to(r)).encode())
                h.update(p.read_bytes())
        return h.hexdigest()
    return _fingerprint(module, str(Path(root).resolve()))


#: entries this process rejected: (path, reason)
_REJECTED: list[tuple[str, str]] = []


def rejected_entries() -> list[tuple[str, str]]:
    """The entries this process has rejected so far, as ``(path, reason)`` (a copy)."""
    return list(_REJECTED)


def pack(key: str, payload: bytes, magic: bytes = MAGIC) -> bytes:
    """The bytes of an entry: the header line with the checksum, then ``payload`` (the format of
    :func:`bounds.snapshot.pack`, with this cache's ``magic``)."""
    return _snapshot.pack(key, payload, magic)


def unpack(key: str, data: bytes, magic: bytes = MAGIC) -> tuple[bytes | None, str]:
    """``(payload, "")`` when ``data`` is an intact entry of ``key``, else ``(None, reason)``."""
    return _snapshot.unpack(key, data, magic)


def reject(path: Path, reason: str, log_path: Path, what: str = "trial cache") -> None:
    """Record a rejected entry: delete it, count it, append it to ``log_path``, log a warning."""
    _REJECTED.append((str(path), reason))
    try:
        path.unlink()
    except OSError:
        pass
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')}\t{os.getpid()}\t{path}\t{reason}\n"
    try:
        with open(log_path, "a", encoding="utf-8") as fh:   # one short append: atomic between processes
            fh.write(line)
    except OSError:
        pass
    log.warning("%s: rejected %s (%s); recomputing it", what, path, reason)


def read_reject_log(log_path: str | os.PathLike, offset: int = 0) -> list[tuple[str, str]]:
    """``(path, reason)`` of the entries logged in ``log_path`` after byte ``offset`` (none if absent)."""
    try:
        with open(log_path, "rb") as fh:
            fh.seek(offset)
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 4:
            out.append((parts[2], parts[3]))
    return out


class TrialCache:
    """Pickled batches of trial rows in a directory, keyed by content, each with its checksum."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.dir = Path(directory)
        #: entries this instance rejected (edited, truncated, older format)
        self.rejected = 0

    @property
    def reject_log(self) -> Path:
        """Where rejected entries are listed (:data:`REJECT_LOG` in the cache directory)."""
        return self.dir / REJECT_LOG

    def key(self, fn_name: str, config: Mapping[str, Any], seed: int, start: int, stop: int,
            code: str | None = None) -> str:
        """Key of a batch; ``code`` defaults to the fingerprint of ``fn_name``'s module."""
        if code is None:
            code = code_fingerprint(fn_name.rpartition(".")[0] or None)
        blob = json.dumps({"fn": fn_name, "code": code, "config": config,
                           "seed": int(seed), "range": [int(start), int(stop)]},
                          sort_keys=True, default=repr)
        return hashlib.sha256(blob.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.pkl"

    def get(self, key: str) -> list[dict] | None:
        """The rows stored under ``key``; None when absent or rejected (then deleted and logged)."""
        p = self._path(key)
        ok, rows, why = _snapshot.read_entry(p, key, MAGIC, check=lambda r: isinstance(r, list))
        if not ok and why:
            self.rejected += 1
            reject(p, why, self.reject_log)
        return rows if ok else None

    def put(self, key: str, rows: list[dict]) -> None:
        """Store ``rows`` under ``key`` atomically (a reader sees the old entry or the new, never half)."""
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        data = pack(key, pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, p)
        except BaseException:       # an error or an interruption: leave no temporary file behind
            Path(tmp).unlink(missing_ok=True)
            raise


# -- timing records ----------------------------------------------------------------------------
#
# Every trial batch that runs (not one read from the cache) leaves one JSON line in
# ``<cache>/timings.jsonl`` (:data:`TIMINGS`): its CPU and wall seconds in the process that ran it,
# the trial function, the progress label, the configuration hash, the number of trials and the
# tags of the run (profile, seed, run id) that :func:`timing_tags` set.  ``python -m verify
# --plan`` (:mod:`verify.plan`) reads them back to project the wall time of a profile on N workers.

#: append-only file of timing records in the cache directory, one JSON object a line
TIMINGS = "timings.jsonl"
#: version of the timing records (the ``v`` field of every line)
TIMINGS_VERSION = 1
#: characters of a cache key that name a batch in the timing records
KEY_CHARS = 20


class TimingCollector:
    """Where the timing records of one scope go: the batch keys it touched and, for a job, its records.

    ``keep=True`` (a job on a worker): the records stay in :attr:`records`, for the main process to
    write; ``keep=False`` (the main process's run): they are appended to the file at once.
    """

    def __init__(self, tags: Mapping[str, Any], keep: bool) -> None:
        self.tags = dict(tags)
        self.keep = keep
        #: the trial grids of the scope in order, run or read: ``[seq, [batch keys]]`` (first
        #: :data:`KEY_CHARS` characters of each cache key)
        self.grids: list[list[Any]] = []
        #: the records made in the scope (only with ``keep``)
        self.records: list[dict[str, Any]] = []


_COLLECTORS: list[TimingCollector] = []
_SEQ = [0]


def next_seq() -> int:
    """The next number of this process's submission order (trial grids and jobs share it)."""
    _SEQ[0] += 1
    return _SEQ[0]


class _TimingScope:
    """The context manager :func:`timing_tags` returns."""

    def __init__(self, keep: bool, tags: Mapping[str, Any], inherit: bool = True) -> None:
        self.collector = TimingCollector({**(current_tags() if inherit else {}), **tags}, keep)

    def __enter__(self) -> TimingCollector:
        _COLLECTORS.append(self.collector)
        return self.collector

    def __exit__(self, *exc: object) -> None:
        _COLLECTORS.remove(self.collector)


def timing_tags(keep: bool = False, inherit: bool = True, **tags: Any) -> _TimingScope:
    """Tag every timing record made in the block (``profile``, ``seed``, ``run``...).

    ``keep=True`` keeps the records in the collector instead of writing them (a job on a worker
    returns them to the main process); ``inherit=False`` drops the tags of the enclosing blocks
    (a forked worker inherits its parent's).  Entering the block gives the :class:`TimingCollector`.

    Examples
    --------
    >>> from simulations.cache import timing_tags, current_tags
    >>> with timing_tags(profile="quick", seed=0) as col:
    ...     current_tags()["profile"], col.grids
    ('quick', [])
    >>> current_tags()
    {}
    """
    return _TimingScope(keep, tags, inherit)


def current_tags() -> dict[str, Any]:
    """The tags of the innermost :func:`timing_tags` block (empty outside one)."""
    return dict(_COLLECTORS[-1].tags) if _COLLECTORS else {}


def note_grid(seq: int, keys: list[str]) -> None:
    """Tell the open collectors that trial grid number ``seq`` used the batches ``keys`` (run or read).

    From the innermost outwards, up to the innermost job's (``keep``) collector: a job's grids
    are its own, not those of the run around it.
    """
    grid = [seq, [k[:KEY_CHARS] for k in keys]]
    for col in reversed(_COLLECTORS):
        col.grids.append(grid)
        if col.keep:
            break


def record_timing(directory: str | os.PathLike, record: Mapping[str, Any]) -> None:
    """Record one timing: to the innermost keeping collector, else one line appended to ``<directory>/timings.jsonl``.

    The record gets the current tags (its own fields win) and the format version.  Never raises
    for an unwritable file: a timing is worth less than the run that made it.
    """
    rec = {"v": TIMINGS_VERSION, **current_tags(), **record}
    if _COLLECTORS and _COLLECTORS[-1].keep:
        _COLLECTORS[-1].records.append(rec)
        return
    append_timings(directory, [rec])


def append_timings(directory: str | os.PathLike, records: list[Mapping[str, Any]]) -> None:
    """Append ``records`` as JSON lines to ``<directory>/timings.jsonl`` (one ``write`` each: whole
    lines even with several writers); an OSError is logged, not raised."""
    if not records:
        return
    path = Path(directory) / TIMINGS
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            for rec in records:
                os.write(fd, (json.dumps(rec, sort_keys=True, default=str) + "\n").encode())
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("timings: cannot append to %s (%s)", path, exc)


def read_timings(directory: str | os.PathLike) -> tuple[list[dict[str, Any]], int]:
    """The timing records of ``<directory>/timings.jsonl`` in file order, and how many lines were unreadable.

    A missing file gives ``([], 0)``; a torn or foreign line is skipped and counted.

    Examples
    --------
    >>> import tempfile
    >>> from simulations.cache import append_timings, read_timings
    >>> d = tempfile.mkdtemp()
    >>> append_timings(d, [{"kind": "batch", "cpu_s": 0.5}])
    >>> read_timings(d)
    ([{'cpu_s': 0.5, 'kind': 'batch'}], 0)
    """
    try:
        text = (Path(directory) / TIMINGS).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return [], 0
    out, bad = [], 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(rec, dict):
            out.append(rec)
        else:
            bad += 1
    return out, bad
