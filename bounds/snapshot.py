"""The symbolic snapshot: finished evaluations on disk, keyed by the source of ``bounds/``.

Evaluating every statement (sympy derivations, limits, integrals) costs tens of seconds of
CPU; the result depends only on the code of :mod:`bounds`.  A :class:`Store` keeps one
pickle per evaluated statement under ``<root>/<shared>/eval/<paper>-<paper digest>/``:

* ``shared`` (:func:`shared_digest`) hashes the shared code, every ``bounds/**/*.py`` outside
  the paper modules: an edit there starts a fresh snapshot of every paper;
* a paper's digest (:func:`paper_digests`) hashes the shared digest, its own module and the
  paper modules it imports (``from .jia import ...``, transitively): editing one paper re-derives
  that paper and the papers that import from it, and no other.  (A statement depends only on
  statements of its own paper; a paper reaches another one's code only by importing it.)

So a stored evaluation is always what the current code computes.

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
import re
import socket
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._store_io import _DIGEST_LEN, MAGIC, _atomic_write, checksum, pack, read_entry, unpack  # noqa: F401

ENV = "DP_ERM_VERIFY_SYMBOLIC"
_HERE = Path(__file__).resolve().parent
log = logging.getLogger(__name__)

#: file (in the store's root) listing the rejected files, one ``time pid path reason`` line each
REJECT_LOG = "rejected.log"
#: files this process rejected: (path, reason)
_REJECTED: list[tuple[str, str]] = []


def rejected_entries() -> list[tuple[str, str]]:
    """The snapshot files this process has rejected so far, as ``(path, reason)`` (a copy)."""
    return list(_REJECTED)


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """Hash of every ``bounds/**/*.py`` (name and bytes): changes with any edit of the symbolic layer.

    The snapshot is keyed finer (:func:`shared_digest`, :func:`paper_digests`); this one keys what
    depends on every paper at once (the report's heat maps).
    """
    h = hashlib.sha256()
    for p in sorted(_HERE.rglob("*.py")):
        h.update(p.relative_to(_HERE).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:32]


#: ``from <relative or absolute module> import <names>`` and ``import bounds.papers.X`` lines of a
#: paper's source (comments removed first); a multi-line name list in parentheses is one match
_FROM_RE = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT_RE = re.compile(r"^[ \t]*import[ \t]+bounds\.papers\.(\w+)", re.M)
_COMMENT_RE = re.compile(r"#[^\n]*")


def paper_units(src: Path | None = None) -> dict[str, list[Path]]:
    """The paper modules of ``<src>/papers`` (default: this package's): name -> its files.

    A unit is a module ``papers/<name>.py`` or a package ``papers/<name>/`` whose name does not
    start with ``_`` (the modules :func:`bounds.discovery.paper_modules` imports); ``_private``
    helpers of ``papers/`` count as shared code.
    """
    papers = (src or _HERE) / "papers"
    out: dict[str, list[Path]] = {}
    if not papers.is_dir():
        return out
    for p in sorted(papers.iterdir()):
        if p.name.startswith(("_", ".")):
            continue
        if p.is_dir() and (p / "__init__.py").exists():
            out[p.name] = sorted(p.rglob("*.py"))
        elif p.suffix == ".py":
            out[p.stem] = [p]
    return out


def _imported_units(path: Path, pkg: str, units: Iterable[str]) -> set[str]:
    """The paper units the module at ``path`` (in package ``pkg``, dotted relative to ``bounds``) imports."""
    units = set(units)
    text = _COMMENT_RE.sub("", path.read_text(encoding="utf-8", errors="replace"))
    found: set[str] = set(_IMPORT_RE.findall(text)) & units
    for dots, mod, names in _FROM_RE.findall(text):
        if dots:                                   # relative: resolved from the module's package
            base = ["bounds", *pkg.split(".")] if pkg else ["bounds"]
            base = base[:len(base) - (len(dots) - 1)] if len(dots) > 1 else base
            full = [*base, *(mod.split(".") if mod else [])]
        else:
            full = mod.split(".")
        if full[:2] != ["bounds", "papers"]:
            continue
        if len(full) > 2:
            found.add(full[2])
        else:                                      # from bounds.papers import a, b
            found |= {n.split(" as ")[0].strip() for n in names.strip("()").replace("\n", ",").split(",")}
    return found & units


@functools.lru_cache(maxsize=4)
def _digests(src: Path) -> tuple[str, dict[str, str], str]:
    """``(shared, {paper unit: digest}, all)`` for the ``bounds`` package at ``src`` (see :func:`paper_digests`)."""
    units = paper_units(src)
    owned = {p: name for name, files in units.items() for p in files}
    shared = hashlib.sha256(b"shared\0")
    for p in sorted(src.rglob("*.py")):
        if p not in owned:
            shared.update(p.relative_to(src).as_posix().encode() + b"\0")
            shared.update(p.read_bytes())
    shared_hex = shared.hexdigest()[:32]
    raw: dict[str, bytes] = {}
    deps: dict[str, set[str]] = {}
    for name, files in units.items():
        h = hashlib.sha256()
        deps[name] = set()
        for p in files:
            h.update(p.relative_to(src).as_posix().encode() + b"\0")
            h.update(p.read_bytes())
            rel = p.relative_to(src).with_suffix("")
            pkg = ".".join(rel.parts[:-1])        # a package's __init__ is in its own package
            deps[name] |= _imported_units(p, pkg, units)
        raw[name] = h.digest()
    out: dict[str, str] = {}
    for name in units:
        closure, todo = set(), [name]
        while todo:                                 # the paper and every paper it imports, transitively
            u = todo.pop()
            if u not in closure:
                closure.add(u)
                todo.extend(deps[u])
        h = hashlib.sha256(shared_hex.encode())
        for u in sorted(closure):
            h.update(u.encode() + b"\0" + raw[u])
        out[name] = h.hexdigest()[:16]
    every = hashlib.sha256(shared_hex.encode())
    for name in sorted(units):
        every.update(name.encode() + b"\0" + raw[name])
    return shared_hex, out, every.hexdigest()[:16]


def shared_digest(src: Path | None = None) -> str:
    """Hash of the shared code of ``bounds/`` (every ``*.py`` outside the paper modules).

    Examples
    --------
    >>> len(shared_digest()) == 32
    True
    """
    return _digests(Path(src or _HERE))[0]


def paper_digests(src: Path | None = None) -> dict[str, str]:
    """Each paper module's digest: the shared code, its own source and the papers it imports, transitively.

    Editing a paper changes its digest and those of the papers that import from it, no other.

    Examples
    --------
    >>> d = paper_digests()
    >>> "jia" in d and d["jia"] != d["jamp"]
    True
    """
    return dict(_digests(Path(src or _HERE))[1])


def papers_digest(src: Path | None = None) -> str:
    """One hash of the shared code and every paper module (keys the stored list of papers)."""
    return _digests(Path(src or _HERE))[2]


def clear_digests() -> None:
    """Forget the digests computed in this process (after the sources changed on disk)."""
    _digests.cache_clear()
    source_digest.cache_clear()


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
        Directory holding one sub-directory per shared digest.
    digest : str, optional
        One fixed key for every paper (a test's store); default: :func:`shared_digest` for the
        directory and each paper's :func:`paper_digests` below it.
    src : path, optional
        The ``bounds`` package whose sources key the snapshot (default: this one).

    A statement ``<id>.<name>`` belongs to the paper module ``papers/<id>``; a paper of another
    name (one built in a test) is keyed by every paper module at once (:func:`papers_digest`).
    """

    def __init__(self, root: str | os.PathLike, digest: str | None = None, src: str | os.PathLike | None = None) -> None:
        self.root = Path(root)
        self.src = Path(src) if src is not None else _HERE
        self.fixed = digest is not None
        self.digest = digest or shared_digest(self.src)
        self.dir = self.root / self.digest
        self._claims: set[str] = set()

    def paper_digest(self, pid: str) -> str:
        """The digest that keys the evaluations and light copy of paper ``pid`` ('' for a fixed store)."""
        if self.fixed:
            return ""
        return paper_digests(self.src).get(pid) or papers_digest(self.src)

    def _paper_dir(self, pid: str) -> str:
        d = self.paper_digest(pid)
        return f"{_safe(pid)}-{d}" if d else ""

    @classmethod
    def default(cls) -> Store | None:
        """The store at :func:`default_root` (None when disabled); the outcomes of
        :func:`bounds.checks.small_simplify` are kept beside it (``<root>/simplify``)."""
        root = default_root()
        if root is None:
            return None
        _use_simplify_cache(Path(root))
        return cls(root)

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
        sub = self._paper_dir(key.split(".", 1)[0])
        return (self.dir / "eval" / sub if sub else self.dir / "eval") / f"{_safe(key)}.pkl"

    def get(self, key: str) -> tuple | None:
        """The stored evaluation tuple of ``key`` (None if absent; rejected if it fails its checksum).

        In a :attr:`cooperative` store, a miss *claims* ``key`` for this process (the caller
        evaluates it and :meth:`put` releases the claim), or, when another live process of this host
        has claimed it, waits for that process to store it and returns its evaluation.
        """
        path = self._eval_path(key)
        ok, out = self._read(path, key, lambda t: isinstance(t, tuple) and len(t) == 6)
        if ok or not self.cooperative:
            return out if ok else None
        while not self._claim(key):
            state = _claim_state(path.with_suffix(".claim"))
            if state == "foreign":
                return None                            # cannot tell whether it lives: derive it here too
            if state == "gone":
                continue                               # released or stale (removed): claim it again
            time.sleep(CLAIM_POLL_S)
            ok, out = self._read(path, key, lambda t: isinstance(t, tuple) and len(t) == 6)
            if ok:
                return out
        ok, out = self._read(path, key, lambda t: isinstance(t, tuple) and len(t) == 6)
        if ok:                                         # stored between the miss and the claim
            self._release(key)
            return out
        return None

    def put(self, key: str, tup: tuple) -> bool:
        """Store an evaluation tuple atomically; False when it does not pickle or cannot be written.

        Releases this process's claim on ``key`` (:meth:`get`) either way."""
        try:
            try:
                data = pickle.dumps(tup, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # noqa: BLE001 - e.g. an expression with a custom sympy class: not stored
                return False
            return _atomic_write(self._eval_path(key), pack(key, data))
        finally:
            self._release(key)

    # -- claims: several processes deriving one paper share the work -------------------
    #: True in the worker tasks (:func:`evaluate_task`): a miss claims the statement or waits for its claimant
    cooperative = False

    def _claim(self, key: str) -> bool:
        """Claim ``key`` for this process (an exclusive ``.claim`` file beside its entry); False if taken.

        A claim by this very process counts as taken by it (True).  Without a usable claim file
        (another host's claim, a read-only directory), the caller evaluates the statement itself:
        two processes may then derive the same statement, which costs time but changes nothing.
        """
        path = self._eval_path(key).with_suffix(".claim")
        mine = _claimant_id()
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(mine, encoding="ascii")
            os.link(tmp, path)                         # atomic, and never a half-written claim
        except FileExistsError:
            try:
                return path.read_text(encoding="ascii", errors="replace") == mine
            except OSError:
                return False
        except OSError:
            return True
        finally:
            tmp.unlink(missing_ok=True)
        self._claims.add(key)
        return True

    def _release(self, key: str) -> None:
        if key in self._claims:
            self._claims.discard(key)
            self._eval_path(key).with_suffix(".claim").unlink(missing_ok=True)

    def release_claims(self) -> None:
        """Release every claim of this process (a task that failed before storing what it claimed)."""
        for key in list(self._claims):
            self._release(key)

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
        return self.dir / "paper" / f"{self._paper_dir(pid) or _safe(pid)}.pkl"

    def _index_path(self) -> Path:
        return self.dir / "paper" / ("_index.pkl" if self.fixed else f"_index-{papers_digest(self.src)}.pkl")

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
        ok, ids = self._read(self._index_path(), "index:", lambda x: isinstance(x, list))
        return list(ids) if ok else []

    def put_index(self, paper_ids: Iterable[str]) -> bool:
        """Record the full, ordered list of paper ids (written once every paper is stored)."""
        return _atomic_write(self._index_path(), pack("index:", pickle.dumps(list(paper_ids))))

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


#: seconds between two looks at a statement another process is deriving (only the wait, never a result,
#: depends on it)
CLAIM_POLL_S = 0.02


def _claimant_id() -> str:
    """``host pid start`` of this process (``start``: its start time in clock ticks, from /proc)."""
    pid = os.getpid()
    return f"{socket.gethostname()} {pid} {_proc_start(pid)}"


def _proc_start(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        return stat.rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return "?"


def _claim_state(path: Path) -> str:
    """``alive`` (a live process of this host holds claim ``path``), ``gone`` (no claim, or a stale or
    unreadable one, now removed) or ``foreign`` (another host's: its process cannot be checked)."""
    try:
        host, pid, start = path.read_text(encoding="ascii", errors="replace").split()
    except FileNotFoundError:
        return "gone"
    except (OSError, ValueError):
        host, pid, start = socket.gethostname(), "0", "?"     # half-written or corrupt: stale
    if host != socket.gethostname():
        return "foreign"
    if pid.isdigit() and _pid_alive(int(pid)) and start in ("?", _proc_start(int(pid))):
        return "alive"
    try:
        path.unlink(missing_ok=True)
    except OSError:
        return "foreign"                               # a stale claim that cannot be removed: derive here
    return "gone"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _use_simplify_cache(root: Path) -> None:
    from .checks import use_simplify_cache

    use_simplify_cache(Path(root) / "simplify")


def by_paper(keys: Iterable[str]) -> list[list[str]]:
    """``keys`` grouped by paper, in order.

    Examples
    --------
    >>> by_paper(["a.x", "b.y", "a.z"])
    [['a.x', 'a.z'], ['b.y']]
    """
    groups: dict[str, list[str]] = {}
    for k in keys:
        groups.setdefault(k.split(".", 1)[0], []).append(k)
    return list(groups.values())


def evaluation_tasks(keys: Iterable[str], registry: Any = None) -> list[list[str]]:
    """The symbolic work on ``keys`` as tasks for a pool: one statement per task, dependencies first.

    Each task (:func:`evaluate_task`) evaluates its statement in a :attr:`Store.cooperative` store:
    a dependency another task has claimed is waited for and read, never derived twice, so the
    statements of one paper run in parallel along its dependency graph (the longest paper was one
    13 s task; its longest statement costs 4 s).  Submitted in this order to a first-in first-out
    pool, a task only waits for tasks that started before it, so the waits cannot deadlock.

    ``registry`` orders the keys (dependencies first; default: :data:`bounds.registry`'s order of
    ``keys`` as given, which the discovered papers declare dependencies first).

    Examples
    --------
    >>> evaluation_tasks(["a.x", "b.y"])
    [['a.x'], ['b.y']]
    """
    keys = list(keys)
    if registry is not None:
        want = set(keys)
        keys = [k for k in registry.closure(keys) if k in want]
    return [[k] for k in keys]


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
    :func:`warm` and by the report job, which sends these tasks to its executor
    (:func:`evaluation_tasks`).  The store is cooperative (:meth:`Store.get`): a statement another
    task is deriving is waited for, not derived again.
    """
    root, keys = task
    reg = _task_registry(Store(root))
    store = reg.store
    _use_simplify_cache(store.root)
    store.cooperative = True
    try:
        for k in keys:
            reg.evaluate(k)
    finally:
        store.cooperative = False
        store.release_claims()
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
            tasks = [(str(store.root), ks) for ks in evaluation_tasks(todo, reg)]
            for _ in tqdm(pool.map(evaluate_task, tasks), total=len(tasks), desc="statements", unit="st",
                          disable=None, leave=False):
                pass
    else:
        evaluate_task((str(store.root), todo))
    store.save_registry(reg)
    return len(todo)
