"""The symbolic snapshot: finished evaluations on disk, keyed by the source of ``bounds/``.

Evaluating every statement (sympy derivations, limits, integrals) costs tens of seconds of
CPU; the result depends only on the code of :mod:`bounds`.  A :class:`Store` keeps one
pickle per evaluated statement under ``<root>/<digest>/``, where ``digest`` hashes every
``bounds/**/*.py`` file: an edit anywhere in the symbolic layer starts a fresh snapshot, so
a stored evaluation is always what the current code computes.

* :class:`~bounds.core.Registry` consults its store before evaluating a statement and writes
  what it computes (``bounds.registry`` uses :meth:`Store.default`), so ``bounds.value`` and
  :mod:`bounds.pick` evaluate only the statement asked for and its dependencies, from disk
  when warm.
* The command line (:mod:`bounds.cli`) goes further: :meth:`Store.light_registry` rebuilds a
  registry from stored *light* copies of the papers (statements without their derivation
  functions) and stored evaluations, without importing the paper modules at all.

The root is ``$DP_ERM_VERIFY_SYMBOLIC`` when set (``off`` disables the snapshot), else
``.cache/trials/symbolic`` in the project checkout (where ``python -m verify`` keeps it), else
``~/.cache/dp-erm-verify/symbolic``.

Every file carries the SHA-256 of its key and payload in a one-line header (:data:`MAGIC`).
An edited, truncated or older-format file is *rejected* when read (:meth:`Store.get`,
:meth:`Store.has`, the light papers): deleted, listed in ``<root>/rejected.log``
(:data:`REJECT_LOG`), counted (:func:`rejected_entries`) and treated as a miss, so the
statement is evaluated again and stored anew.

Examples
--------
>>> import tempfile
>>> from bounds.snapshot import Store
>>> st = Store(tempfile.mkdtemp())
>>> st.put("demo.thm1", ("derived", None, [], "consistent", "", ()))
True
>>> st.get("demo.thm1")[3]
'consistent'
>>> st.get("demo.other") is None
True
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import logging
import os
import pickle
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ENV = "DP_ERM_VERIFY_SYMBOLIC"
_HERE = Path(__file__).resolve().parent
log = logging.getLogger(__name__)

#: first bytes of a stored file: ``MAGIC + sha256(key NUL payload) hex + newline``, then the pickle
MAGIC = b"dp-erm-verify snapshot v2 sha256="
#: file (in the store's root) listing the rejected files, one ``time pid path reason`` line each
REJECT_LOG = "rejected.log"
_DIGEST_LEN = 64
#: files this process rejected: (path, reason)
_REJECTED: list[tuple[str, str]] = []


def rejected_entries() -> list[tuple[str, str]]:
    """The snapshot files this process has rejected so far, as ``(path, reason)`` (a copy)."""
    return list(_REJECTED)


def checksum(key: str, payload: bytes) -> str:
    """SHA-256 (hex) of a stored file: its key, a NUL byte, its payload."""
    return hashlib.sha256(key.encode() + b"\0" + payload).hexdigest()


def pack(key: str, payload: bytes, magic: bytes = MAGIC) -> bytes:
    """The bytes of a file: the header line ``magic`` + checksum of ``key`` and ``payload``, then it.

    Also the format of the trial cache (:mod:`simulations.cache`, with its own ``magic``).

    Examples
    --------
    >>> unpack("k", pack("k", b"data"))
    (b'data', '')
    >>> unpack("other", pack("k", b"data"))[1]
    'checksum mismatch (edited, truncated or moved)'
    """
    return magic + checksum(key, payload).encode() + b"\n" + payload


def unpack(key: str, data: bytes, magic: bytes = MAGIC) -> tuple[bytes | None, str]:
    """``(payload, "")`` when ``data`` is an intact file of ``key``, else ``(None, reason)``."""
    if not data.startswith(magic):
        return None, "no checksum header (older format, or not an entry)" if data else "empty file"
    head = len(magic)
    digest, nl = data[head:head + _DIGEST_LEN], data[head + _DIGEST_LEN:head + _DIGEST_LEN + 1]
    if nl != b"\n":
        return None, "truncated header"
    payload = data[head + _DIGEST_LEN + 1:]
    if digest.decode("ascii", "replace") != checksum(key, payload):
        return None, "checksum mismatch (edited, truncated or moved)"
    return payload, ""


def read_entry(path: Path, key: str, magic: bytes = MAGIC, check: Any = None) -> tuple[bool, Any, str]:
    """Read a checksummed pickle written with :func:`pack`: ``(True, object, "")`` when intact,
    ``(False, None, "")`` when the file is missing, ``(False, None, reason)`` when it must be
    rejected (checksum, unpickling, or the predicate ``check`` on the object fails).  Shared by the
    snapshot and the trial cache (:mod:`simulations.cache`), which keep their own reject logs.
    """
    try:
        data = Path(path).read_bytes()
    except OSError:
        return False, None, ""
    payload, why = unpack(key, data, magic)
    if payload is not None:
        try:
            obj = pickle.loads(payload)
        except Exception as exc:  # noqa: BLE001 - intact bytes that no longer unpickle (a moved class)
            why = f"unreadable pickle ({type(exc).__name__})"
        else:
            if check is None or check(obj):
                return True, obj, ""
            why = f"unexpected content ({type(obj).__name__})"
    return False, None, why


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """Hash of every ``bounds/**/*.py`` (name and bytes): the snapshot's key."""
    h = hashlib.sha256()
    for p in sorted(_HERE.rglob("*.py")):
        h.update(p.relative_to(_HERE).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:32]


def default_root() -> Path | None:
    """Where the default snapshot lives (None when disabled by ``$DP_ERM_VERIFY_SYMBOLIC=off``)."""
    env = os.environ.get(ENV)
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    project = _HERE.parent
    if (project / "pyproject.toml").exists() and os.access(project, os.W_OK):
        return project / ".cache" / "trials" / "symbolic"
    return Path.home() / ".cache" / "dp-erm-verify" / "symbolic"


def _safe(key: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in key)


class Store:
    """Evaluations and light papers of one version of ``bounds/`` on disk.

    Parameters
    ----------
    root : path
        Directory holding one sub-directory per source digest.
    digest : str, optional
        Snapshot key (default: :func:`source_digest`).
    """

    def __init__(self, root: str | os.PathLike, digest: str | None = None) -> None:
        self.root = Path(root)
        self.digest = digest or source_digest()
        self.dir = self.root / self.digest

    @classmethod
    def default(cls) -> Store | None:
        """The store at :func:`default_root` (None when disabled)."""
        root = default_root()
        return None if root is None else cls(root)

    def __repr__(self) -> str:
        return f"Store({str(self.dir)!r})"

    # -- checksums ---------------------------------------------------------------
    @property
    def reject_log(self) -> Path:
        """Where rejected files are listed (:data:`REJECT_LOG` in the root)."""
        return self.root / REJECT_LOG

    def _read(self, path: Path, key: str, check: Any = None) -> tuple[bool, Any]:
        """``(True, object)`` for an intact file of ``key`` at ``path``; ``(False, None)`` otherwise.

        A missing file is a plain miss; a file that fails its checksum, does not unpickle or
        fails ``check`` (a predicate on the object) is rejected (:meth:`_reject`).
        """
        ok, obj, why = read_entry(path, key, check=check)
        if not ok and why:
            self._reject(path, why)
        return ok, obj if ok else None

    def _reject(self, path: Path, reason: str) -> None:
        """Delete a bad file, count it, append it to :attr:`reject_log` and log a warning."""
        _REJECTED.append((str(path), reason))
        try:
            path.unlink()
        except OSError:
            pass
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with open(self.reject_log, "a", encoding="utf-8") as fh:   # one short append
                fh.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')}\t{os.getpid()}\t{path}\t{reason}\n")
        except OSError:
            pass
        log.warning("symbolic snapshot: rejected %s (%s); evaluating it again", path, reason)

    # -- evaluations -----------------------------------------------------------
    def _eval_path(self, key: str) -> Path:
        return self.dir / "eval" / f"{_safe(key)}.pkl"

    def get(self, key: str) -> tuple | None:
        """The stored evaluation tuple of ``key`` (None if absent; rejected if it fails its checksum)."""
        ok, out = self._read(self._eval_path(key), key, lambda t: isinstance(t, tuple) and len(t) == 6)
        return out if ok else None

    def put(self, key: str, tup: tuple) -> bool:
        """Store an evaluation tuple atomically; False when it does not pickle or cannot be written."""
        try:
            data = pickle.dumps(tup, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - e.g. an expression with a custom sympy class: not stored
            return False
        return _atomic_write(self._eval_path(key), pack(key, data))

    def has(self, key: str) -> bool:
        """Whether an intact evaluation of ``key`` is stored (a file that fails its checksum is rejected)."""
        return self._intact(self._eval_path(key), key)

    def _intact(self, path: Path, key: str) -> bool:
        """Whether ``path`` holds an intact file of ``key`` (checksum only, no unpickling); rejects a bad one."""
        try:
            data = path.read_bytes()
        except OSError:
            return False
        payload, why = unpack(key, data)
        if payload is None:
            self._reject(path, why)
        return payload is not None

    # -- light papers (for the command line) ---------------------------------------
    def _paper_path(self, pid: str) -> Path:
        return self.dir / "paper" / f"{_safe(pid)}.pkl"

    def put_paper(self, paper: Any) -> bool:
        """Store a light copy of ``paper``: its statements without derivation functions."""
        light = copy.copy(paper)
        light.calibrations = None
        light.statements = {k: dataclasses.replace(st, derive=None, checks=(), hypotheses=(), routes=())
                            for k, st in paper.statements.items()}
        try:
            data = pickle.dumps(light, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001
            return False
        return _atomic_write(self._paper_path(paper.id), pack(f"paper:{paper.id}", data))

    def paper_ids(self) -> list[str]:
        """Ids of the papers stored, in the order of the discovered papers (by ``Paper.order``)."""
        ok, ids = self._read(self.dir / "paper" / "_index.pkl", "index:", lambda x: isinstance(x, list))
        return list(ids) if ok else []

    def put_index(self, paper_ids: Iterable[str]) -> bool:
        """Record the full, ordered list of paper ids (written once every paper is stored)."""
        return _atomic_write(self.dir / "paper" / "_index.pkl", pack("index:", pickle.dumps(list(paper_ids))))

    def save_registry(self, registry: Any) -> None:
        """Store every paper of ``registry`` (light) and the index; evaluations are stored as computed."""
        for p in registry.papers.values():
            if not self._intact(self._paper_path(p.id), f"paper:{p.id}"):   # absent, or rejected
                self.put_paper(p)
        self.put_index(registry.papers)

    def light_registry(self, paper_ids: Iterable[str] | None = None, keys: Iterable[str] | None = None) -> Any:
        """A registry of light papers with the stored evaluations restored (None if a paper is missing).

        A light registry cannot derive: asking it for a statement whose evaluation is not stored
        raises :class:`LookupError`, and the caller falls back to the real registry.

        Parameters
        ----------
        paper_ids : iterable of str, optional
            Papers to load (default: every stored paper; None is returned if there is no index).
        keys : iterable of str, optional
            Statements whose evaluations are read now (default: none; each is read when asked).
        """
        from .core import Registry

        ids = list(self.paper_ids() if paper_ids is None else paper_ids)
        if not ids:
            return None
        papers = []
        for pid in ids:
            ok, paper = self._read(self._paper_path(pid), f"paper:{pid}")
            if not ok:          # missing or rejected: the caller falls back to the real registry
                return None
            papers.append(paper)
        reg = Registry(papers, store=self)   # evaluations are read from the store on demand
        reg.light = True
        if keys is not None:
            reg.restore({k: tup for k in keys if k in reg and (tup := self.get(k)) is not None})
        return reg


def _atomic_write(path: Path, data: bytes) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def by_paper(keys: Iterable[str]) -> list[list[str]]:
    """``keys`` grouped by paper, in order: one task per paper.

    A statement depends only on statements of its own paper, so no two tasks derive the same
    dependency (one task per statement let two workers derive a shared one at the same time:
    about 40 % more CPU).
    """
    groups: dict[str, list[str]] = {}
    for k in keys:
        groups.setdefault(k.split(".", 1)[0], []).append(k)
    return list(groups.values())


_TASK_REGISTRY: dict[Path, Any] = {}


def _task_registry(store: Store) -> Any:
    """One registry of every discovered paper per store and process (a worker keeps it)."""
    if store.dir not in _TASK_REGISTRY:
        from .discovery import build_registry

        _TASK_REGISTRY[store.dir] = build_registry(store=store)
    return _TASK_REGISTRY[store.dir]


def evaluate_task(task: tuple[str, list[str]]) -> int:
    """Worker task: evaluate ``keys`` (of every discovered paper) into the store at ``root``.

    ``task = (root, keys)``; returns how many of ``keys`` the store now holds.  Used by
    :func:`warm` and by the report job, which sends these tasks to its executor.
    """
    root, keys = task
    store = Store(root)
    reg = _task_registry(store)
    for k in keys:
        reg.evaluate(k)
    return sum(store.has(k) for k in keys)


def warm(store: Store | None = None, keys: Iterable[str] | None = None, workers: int | None = None) -> int:
    """Evaluate the statements missing from ``store`` (default: :meth:`Store.default`) in parallel.

    One process per core (``workers``), one paper per task (:func:`by_paper`).  Returns how many statements
    were missing.  The test suite calls it once per session, so its workers read the snapshot
    instead of each deriving every statement again.
    """
    store = Store.default() if store is None else store
    if store is None:
        return 0
    reg = _task_registry(store)
    todo = [k for k in (keys if keys is not None else reg.keys()) if not store.has(k)]
    n = workers if workers is not None else (os.cpu_count() or 1)
    if n > 1 and len(todo) > 1:
        from concurrent.futures import ProcessPoolExecutor

        from tqdm.auto import tqdm

        with ProcessPoolExecutor(max_workers=n) as pool:
            tasks = [(str(store.root), ks) for ks in by_paper(todo)]
            for _ in tqdm(pool.map(evaluate_task, tasks), total=len(tasks), desc="papers", unit="paper",
                          disable=None, leave=False):
                pass
    else:
        evaluate_task((str(store.root), todo))
    store.save_registry(reg)
    return len(todo)
