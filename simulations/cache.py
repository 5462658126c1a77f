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
* an entry carries an HMAC-SHA256 of its key and payload in a one-line header
  (:data:`MAGIC`), keyed with the cache's own secret (:data:`KEY_FILE`: 32 random
  bytes from :mod:`secrets`, made when the cache is first written, mode 0600): an
  edited, truncated, moved, older-format or foreign entry is *rejected* on read,
  before it is unpickled: deleted, logged to ``<dir>/rejected.log``
  (:data:`REJECT_LOG`), counted (:func:`rejected_entries`) and treated as a miss,
  so the batch is recomputed and stored again; it never reaches a result.

Threat model.  The MAC defends against edits by someone who can write entries but
cannot read the secret: a plain checksum recomputed after an edit (or any entry
forged without the key) fails the MAC.  It does not defend against anyone who can
read the key file (the cache's owner, root) or replace it (whoever can write the
cache directory itself can delete the key and every entry: then everything is
recomputed, or forged under their own key).  A key file readable by other users is
refused (:class:`CacheKeyError`).  The symbolic snapshot (``<cache>/symbolic``,
:mod:`bounds.snapshot`) carries a plain checksum: it detects corruption, not tampering.

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
import hmac
import json
import logging
import os
import pickle
import secrets
import stat
import tempfile
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: first bytes of an entry: ``MAGIC + hmac_sha256(secret, key NUL payload) hex + newline``, then the pickled rows
MAGIC = b"dp-erm-verify trial-cache v3 hmac-sha256="
#: the cache's secret, in its directory: 64 hex digits (32 bytes from :mod:`secrets`), mode 0600
KEY_FILE = ".hmac-key"
_MAC_LEN = 64
#: why an entry whose MAC does not match is rejected
MAC_MISMATCH = "MAC mismatch (edited, truncated, moved or written under another key)"
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
    """Project modules imported anywhere in ``path`` (functions included), and its string constants.

    Parsed once per file content and process (:func:`_parsed_imports`): every fingerprint walks
    the same shared modules.
    """
    mods, strings = _parsed_imports(path, name, root, hashlib.sha256(path.read_bytes()).hexdigest())
    return set(mods), set(strings)


@lru_cache(maxsize=1024)
def _parsed_imports(path: Path, name: str, root: Path, digest: str) -> tuple[frozenset[str], frozenset[str]]:
    mods, strings = _scan_imports(path, name, root)
    return frozenset(mods), frozenset(strings)


def _scan_imports(path: Path, name: str, root: Path) -> tuple[set[str], set[str]]:
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


class CacheKeyError(ValueError):
    """The cache's key file cannot be trusted or used (readable by others, another owner, malformed)."""


def mac(secret: bytes, key: str, payload: bytes) -> str:
    """HMAC-SHA256 (hex) of an entry under ``secret``: its key, a NUL byte, its payload.

    Examples
    --------
    >>> mac(b"s" * 32, "k", b"data") == mac(b"s" * 32, "k", b"data") != mac(b"t" * 32, "k", b"data")
    True
    """
    return hmac.new(secret, key.encode() + b"\0" + payload, hashlib.sha256).hexdigest()


def pack(key: str, payload: bytes, secret: bytes, magic: bytes = MAGIC) -> bytes:
    """The bytes of an entry: the header line with the MAC of ``key`` and ``payload``, then ``payload``.

    Examples
    --------
    >>> unpack("k", pack("k", b"rows", b"s" * 32), b"s" * 32)
    (b'rows', '')
    >>> unpack("k", pack("k", b"rows", b"s" * 32), b"t" * 32)[1]
    'MAC mismatch (edited, truncated, moved or written under another key)'
    """
    return magic + mac(secret, key, payload).encode() + b"\n" + payload


def unpack(key: str, data: bytes, secret: bytes, magic: bytes = MAGIC) -> tuple[bytes | None, str]:
    """``(payload, "")`` when ``data`` is an intact entry of ``key`` under ``secret``, else ``(None, reason)``."""
    if not data.startswith(magic):
        return None, "no MAC header (older format, or not an entry)" if data else "empty file"
    head = len(magic)
    digest, nl = data[head:head + _MAC_LEN], data[head + _MAC_LEN:head + _MAC_LEN + 1]
    if nl != b"\n":
        return None, "truncated header"
    payload = data[head + _MAC_LEN + 1:]
    if not hmac.compare_digest(digest, mac(secret, key, payload).encode()):
        return None, MAC_MISMATCH
    return payload, ""


def load_secret(directory: str | os.PathLike, create: bool = True) -> bytes | None:
    """The secret of the cache in ``directory`` (:data:`KEY_FILE`), made first if ``create`` and absent.

    A new secret is 32 bytes of :func:`secrets.token_bytes`, written to a private temporary file
    (mode 0600) and linked into place, so concurrent writers (the worker processes of a run) all
    end up with the one that got there first.  Returns None when absent and not ``create``.

    Raises
    ------
    CacheKeyError
        The key file is not a regular file, belongs to another user, is readable or writable by
        group or others, or does not hold 64 hex digits (a ValueError naming it).
    OSError
        The directory cannot be created or written (the caller names its option).
    """
    d = Path(directory)
    path = d / KEY_FILE
    for _ in range(3):
        try:
            return _read_secret(path)
        except FileNotFoundError:
            if not create:
                return None
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-key-")          # mode 0600
        try:
            os.write(fd, secrets.token_bytes(32).hex().encode() + b"\n")
            os.fsync(fd)
            os.close(fd)
            try:
                os.link(tmp, path)              # atomic, and fails if another process made one first
            except FileExistsError:
                pass
            except OSError:                     # a file system without hard links
                try:
                    fd2 = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                except FileExistsError:
                    pass
                else:
                    with os.fdopen(fd2, "wb") as fh:
                        fh.write(Path(tmp).read_bytes())
        finally:
            Path(tmp).unlink(missing_ok=True)
    return _read_secret(path)


def _read_secret(path: Path) -> bytes:
    """The secret in ``path``, after checking its type, owner and mode (FileNotFoundError if absent)."""
    where = f"trial cache {str(path.parent)!r} (--cache): its key file {str(path)!r}"
    # open once without following a link and check the open file itself (no lstat-then-open race)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError:            # ELOOP (a symbolic link) and the like: refused; others go to the caller
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise CacheKeyError(f"{where} is not a regular file; delete it (every entry is then "
                                "recomputed)") from None
        lst = os.lstat(path)
        if hasattr(os, "getuid") and lst.st_uid != os.getuid():   # unreadable and someone else's
            raise CacheKeyError(f"{where} belongs to another user (uid {lst.st_uid}): its entries cannot be "
                                "trusted; use a cache directory of your own") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise CacheKeyError(f"{where} is not a regular file; delete it (every entry is then recomputed)")
        text = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise CacheKeyError(f"{where} belongs to another user (uid {st.st_uid}): its entries cannot be trusted; "
                            "use a cache directory of your own")
    if st.st_mode & 0o077:
        raise CacheKeyError(f"{where} is accessible to group or others (mode {stat.S_IMODE(st.st_mode):04o}): its "
                            f"entries cannot be trusted; delete it (every entry is then recomputed)")
    try:
        secret = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        secret = b""
    if len(secret) != 32:
        raise CacheKeyError(f"{where} does not hold a key (64 hex digits); delete it (every entry is then "
                            "recomputed)")
    return secret


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
    """Pickled batches of trial rows in a directory, keyed by content, each authenticated with the
    cache's secret (HMAC-SHA256; see the module's threat model).

    Nothing is created until the first :meth:`put` (which makes the directory and its key file).
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.dir = Path(directory)
        #: entries this instance rejected (edited, truncated, older format, another key)
        self.rejected = 0
        self._secret: bytes | None = None

    def secret(self, create: bool = True) -> bytes | None:
        """The cache's secret (:func:`load_secret`; made by the first writer)."""
        if self._secret is None:
            self._secret = load_secret(self.dir, create=create)
        return self._secret

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
        """The rows stored under ``key``; None when absent or rejected (then deleted and logged).

        The MAC is checked before anything is unpickled.  An entry in a cache without a key
        file cannot be authenticated: it is rejected (and the key file is not made by a read).
        """
        p = self._path(key)
        try:
            data = p.read_bytes()
        except OSError:
            return None
        secret = self.secret(create=False)
        if secret is None:
            payload, why = None, "no key file to authenticate it (the cache's key was deleted)"
        else:
            payload, why = unpack(key, data, secret)
        if payload is not None:
            try:
                rows = pickle.loads(payload)
            except Exception as exc:  # noqa: BLE001 - authentic bytes that no longer unpickle (a moved class)
                why = f"unreadable pickle ({type(exc).__name__})"
            else:
                if isinstance(rows, list):
                    return rows
                why = f"unexpected content ({type(rows).__name__})"
        self.rejected += 1
        reject(p, why, self.reject_log)
        return None

    def put(self, key: str, rows: list[dict]) -> None:
        """Store ``rows`` under ``key`` atomically (a reader sees the old entry or the new, never half)."""
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        data = pack(key, pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL), self.secret())
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
