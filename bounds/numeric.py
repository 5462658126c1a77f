"""The numeric store: ``python -m bounds eval`` without sympy (issue 33, item 4).

``bounds eval KEY name=value ...`` reads the symbolic snapshot, builds sympy expressions and
evaluates them: the import of sympy alone is about half a second of CPU.  This module answers the
same command from a small *numeric store* instead, importing neither sympy nor numpy (only
:mod:`mpmath`), and prints byte for byte what :func:`bounds.cli.main` prints.

What is stored (one JSON file per statement, form and ``--allow-unverified``, under
``<snapshot root>/numeric/<digest>/``): the expression of the form the command uses as a plain tree
(``Add``, ``Mul``, ``Pow``, ``log``, ``exp``, ``Min``, ``Max``, ``Abs``, ``gamma``, ``factorial``
over rationals, floats and parameters), the parameters' domains, the joint assumptions, the relaxed
premises, the ceiling and the texts the answer prints that do not depend on the numbers (the basis
line with the verdict, its note and warning, the report's note).

* **Keyed**: ``<digest>`` hashes every ``bounds/**/*.py`` and the seeded simplify store's data, the installed sympy and mpmath versions,
  Python's version, ``pyproject.toml`` and what the answers read of the report's ``summary.json`` (its
  version and non-symbolic evidence rows, :func:`_summary_key`; not its provenance's time).
  Any change is a different directory: a stale entry is never read.  Each file carries the
  SHA-256 of its payload and its own key, checked on read (a bad file is a miss): a check against
  corruption (a truncated or damaged file), not against tampering (there is no secret key; whoever can
  write the store can write a matching digest).
* **Generated** from the sympy path: after ``python -m bounds eval`` answered on the sympy path
  because the entry was missing, :func:`generate` builds the entry of that statement and form,
  then *verifies* it: the command is run on the sympy path (:func:`bounds.cli.main`) and on the
  numeric path at the call's own values and at 24 seeded points of the parameters' sampling
  ranges; the outputs must be equal byte for byte (stdout, stderr, status) wherever the numeric
  path answers, and at least :data:`MIN_COMPARED` (6) points must have been answered and compared, else
  the entry is stored as *unsupported* and that statement stays on sympy.
  ``python -m bounds.numeric [KEY ...]`` generates every statement's entries at once (without
  ``--allow-unverified``; ``--calibrate``: that command's entries; ``python -m bounds.numeric_pick``: a plain
  ``pick``'s).  No entry is built where
  the store cannot be written.
* **Refuses rather than guesses** (the call then runs on the sympy path, same output): anything but
  the plain ``eval KEY name=value ... [--stated|--derived] [--allow-unverified]`` (``--json`` and
  ``--repr`` print the full float, which only the sympy path gives bit for bit); any input the
  sympy path would refuse or warn about (unknown, repeated or missing parameter, a domain or joint
  assumption violated, an advice limit such as ε ≥ 1 reached; the refusal of a statement with no
  established form is answered from the store); a ``value_of`` value within 1e-12 of the edge of its
  meaning; a vacuous value (its explanation searches over m); and any number whose printed digits are not
  settled: the expression is evaluated with 53-bit and with 256-bit arithmetic, and the answer is
  given only when both agree to 2e-14 (well conditioned at that point) and the printed digits
  (``%.10g``, ``%.6g``) do not change under a relative perturbation of 1e-13 (not at a rounding
  edge).  A comparison (joint assumption, ceiling) closer than 1e-12 is not decided here either.

``calibrate`` (the same store, one entry per mechanism statement and ``--allow-unverified``,
:func:`fast_calibrate`): the stated and derived forms as trees with their domains, joint assumptions
and ``value_of`` meanings (a printed form outside its meaning is an n/a row, a derived one the
error naming the branch that applies), the paper's accountant hook and branch costs traced on
symbols to trees (``float`` the identity, ``math`` sympy's), every text that does not depend on the
numbers, and for a statement with no established form the refusal with what its private
alternative reads (candidates, parameter roles, penalty conventions, a declared penalty callable
traced with every name given and with none, the formulas that fill a constant).  Not covered (the
sympy path answers): ``--json``, a ``tight``/``derived`` hook, an alternative that
prints a formula partly evaluated by sympy.  Verified like ``eval``'s entries (the call's values
and 24 seeded points, byte for byte).  ``pick`` and ``calibrate`` on a paper or section (a listing,
or one error whatever else is given) are answered from a *prefix* entry (:func:`fast_prefix`),
verified on the listing and four calls.  A plain ``pick`` on a statement (``--m``, ``--eps``,
``--target`` with ``--eps``) is answered by :mod:`bounds.numeric_pick` from an entry of this store.

Examples
--------
>>> _tree_value(("Add", [("i", 1), ("Pow", [("s", "x"), ("q", 1, 2)])]), {"x": 4.0}, 256)
mpf('3.0')
>>> fast_eval(["eval", "jia.thm2", "m=1", "--json"]) is None     # --json: the sympy path answers
True
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from typing import Any

#: the file format (bump it to orphan every stored entry)
FORMAT = "numeric-1"
#: the options of ``eval`` the numeric path answers (anything else: the sympy path)
_FLAGS = ("--stated", "--derived", "--allow-unverified")
#: relative agreement of the 53-bit and the 256-bit value required to answer
COND_TOL = 2e-14
#: relative perturbation under which the printed digits must not change
EDGE_TOL = 1e-13
#: relative margin a comparison must clear to be decided here
CMP_TOL = 1e-12
#: seeded grid points per entry in the verification (besides the call's own values)
GRID_POINTS = 24
#: the fewest points (of the call's own values and the grid) that must be answered numerically and compared equal
#: to the sympy path for an entry to be stored as verified (fewer: unsupported, the sympy path answers)
MIN_COMPARED = 6

_HERE = os.path.dirname(os.path.abspath(__file__))
_PROJECT = os.path.dirname(_HERE)


# --------------------------------------------------------------------------- key and location
def _file_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return b"<absent>"


def _module_file(name: str, rel: str) -> str:
    """The path of ``rel`` in the installed package ``name`` (found without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        return ""
    return os.path.join(os.path.dirname(spec.origin), rel)


def digest() -> str:
    """The key of the store: the sources of ``bounds/`` (with the seeded simplify store's data), sympy's, mpmath's
    and numpy's versions (numpy's functions evaluate the sympy path's numbers; its ``version.py`` is read, numpy
    not imported: 0.2 ms), Python's, the project's ``pyproject.toml`` and the report's ``summary.json`` (whose verdicts the answers print).

    Examples
    --------
    >>> len(digest())
    32
    """
    h = hashlib.sha256(FORMAT.encode() + b"\0" + sys.version.encode() + b"\0")
    files = []
    for base, dirs, names in os.walk(_HERE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [os.path.join(base, n) for n in names if n.endswith((".py", ".json.gz"))]   # and the seeded store
    for p in sorted(files, key=lambda p: os.path.relpath(p, _HERE).replace(os.sep, "/")):
        h.update(os.path.relpath(p, _HERE).replace(os.sep, "/").encode() + b"\0" + _file_bytes(p) + b"\0")
    for name, rel in (("sympy", "release.py"), ("mpmath", "__init__.py"), ("numpy", "version.py")):
        h.update(name.encode() + b"\0" + _file_bytes(_module_file(name, rel)) + b"\0")
    pyproject = os.path.join(_PROJECT, "pyproject.toml")
    h.update(pyproject.encode() + b"\0" + _file_bytes(pyproject) + b"\0")
    summary = os.path.join(_PROJECT, "reports", "summary.json")
    h.update(summary.encode() + b"\0" + _summary_key(summary) + b"\0")
    return h.hexdigest()[:32]


def _summary_key(path: str) -> bytes:
    """What the store's answers read of the report ``path`` (:func:`bounds.report_io.read_summary`): whether it
    exists, ``provenance.bounds_version`` (the note of a foreign report) and the rows of ``evidence`` that are not
    symbolic (the verdicts); not the rest of ``provenance`` (its ``generated`` time is printed by ``list`` and
    ``show`` only, which the store never answers), so that a new ``python -m verify`` with the same evidence keeps
    the store.  A file that is no JSON object is keyed by its bytes.  The reduced key is remembered beside the
    store per (inode, mtime, size), so that a call parses the 2 MB summary only after it changed."""
    try:
        info = os.stat(path)
    except OSError:
        return b"<absent>"
    sig = f"{path} {info.st_ino} {info.st_mtime_ns} {info.st_size}"
    root = store_dir()
    side = os.path.join(root, "summary-key.json") if root else None
    if side:
        try:
            with open(side, encoding="utf-8") as fh:
                got = json.load(fh)
            if got.get("sig") == sig and isinstance(got.get("key"), str):
                return got["key"].encode()
        except (OSError, ValueError, AttributeError):
            pass
    raw = _file_bytes(path)
    try:
        data = json.loads(raw.decode("utf-8"))
        prov = data.get("provenance")
        rows = [r for r in data["evidence"] if not (isinstance(r, dict) and r.get("evidence") == "symbolic")]
        reduced = json.dumps({"bounds_version": prov.get("bounds_version") if isinstance(prov, dict) else prov,
                              "evidence": rows}, sort_keys=True).encode()
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        reduced = b"<bytes>" + raw
    key = "summary:" + hashlib.sha256(reduced).hexdigest()
    if side:
        try:
            os.makedirs(root, exist_ok=True)
            tmp = f"{side}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump({"sig": sig, "key": key}, fh)
            os.replace(tmp, side)
        except OSError:
            pass
    return key.encode()


def store_dir() -> str | None:
    """``<snapshot root>/numeric`` (the root as :func:`bounds.snapshot.default_root`; None when it is off)."""
    env = os.environ.get("DP_ERM_VERIFY_SYMBOLIC")
    if env is not None:
        if env.strip().lower() in ("", "off", "0", "none"):
            return None
        return os.path.join(env, "numeric")
    if os.path.exists(os.path.join(_PROJECT, "pyproject.toml")) and os.access(_PROJECT, os.W_OK):
        return os.path.join(_PROJECT, ".cache", "trials", "symbolic", "numeric")
    return os.path.join(os.path.expanduser("~"), ".cache", "dp-erm-verify", "symbolic", "numeric")


def _entry_name(key: str, which: str | None, allow_unverified: bool) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in key)
    return f"{safe}.{which or 'default'}.{'u' if allow_unverified else 'v'}.json"


def _entry_path(key: str, which: str | None, allow_unverified: bool, dig: str | None = None) -> str | None:
    root = store_dir()
    if root is None:
        return None
    return os.path.join(root, dig or digest(), _entry_name(key, which, allow_unverified))


def _ident(key: str, which: str | None, allow_unverified: bool, dig: str) -> str:
    return f"{FORMAT} {dig} {key} {which} {bool(allow_unverified)}"


def read_entry(key: str, which: str | None, allow_unverified: bool, dig: str | None = None) -> dict | None:
    """The stored entry (None: absent, or a file that fails its checksum or names another key)."""
    dig = dig or digest()
    path = _entry_path(key, which, allow_unverified, dig)
    if path is None:
        return None
    raw = _file_bytes(path)
    head, _, payload = raw.partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != head:
        return None
    try:
        doc = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("ident") != _ident(key, which, allow_unverified, dig):
        return None
    return doc


def write_entry(doc: dict, dig: str) -> bool:
    """Store ``doc`` atomically (a temporary file renamed); False when it cannot be written."""
    path = _entry_path(doc["key"], doc["which"], doc["allow_unverified"], dig)
    if path is None:
        return False
    doc = dict(doc, ident=_ident(doc["key"], doc["which"], doc["allow_unverified"], dig))
    payload = json.dumps(doc, sort_keys=True, ensure_ascii=False).encode()
    data = hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        if not os.path.isdir(os.path.dirname(path)):      # a new key: the entries of the others are stale
            _prune(os.path.dirname(os.path.dirname(path)), keep=dig)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True


def _prune(root: str, keep: str) -> None:
    """Remove the entries stored under other keys than ``keep`` (never read again: their sources changed)."""
    import shutil

    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        if name != keep and len(name) == 32 and all(c in "0123456789abcdef" for c in name):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


# --------------------------------------------------------------------------- evaluation without sympy
class _Unsure(Exception):
    """The numeric path cannot settle this answer: the sympy path gives it."""


_FUNCS = {"log": "log", "exp": "exp", "gamma": "gamma", "factorial": "factorial"}


def _tree_value(t: Any, vals: dict[str, float], prec: int) -> Any:
    """The value of tree ``t`` at ``vals`` with ``prec``-bit arithmetic (an mpmath number)."""
    import mpmath

    with mpmath.workprec(prec):
        return _ev(t, vals, mpmath)


def _ev(t: Any, vals: dict[str, float], mp: Any) -> Any:
    op = t[0]
    if op == "s":
        return mp.mpf(vals[t[1]])
    if op == "i":
        return mp.mpf(t[1])
    if op == "q":
        return mp.mpf(t[1]) / t[2]
    if op == "F":
        return mp.mpf((t[1], t[2], t[3], t[4]))
    if op == "pi":
        return +mp.pi
    if op == "E":
        return mp.e + 0
    args = [_ev(a, vals, mp) for a in t[1]]
    if op == "Add":
        out = args[0]
        for a in args[1:]:
            out = out + a
        return out
    if op == "Mul":
        out = args[0]
        for a in args[1:]:
            out = out * a
        return out
    if op == "Pow":
        return mp.power(args[0], args[1])
    if op == "Min":
        return min(args)
    if op == "Max":
        return max(args)
    if op == "Abs":
        return abs(args[0])
    return getattr(mp, _FUNCS[op])(*args)


def _real(x: Any) -> float:
    """A finite, normal float of mpmath number ``x`` (``_Unsure`` for complex, infinite, nan, tiny)."""
    import mpmath

    if not isinstance(x, mpmath.mpf) or not mpmath.isfinite(x):
        raise _Unsure("not a finite real number")
    f = float(x)
    if math.isinf(f) or (f != 0 and abs(f) < 2.3e-308):
        raise _Unsure("beyond the float range")
    return f


def _settled(t: Any, vals: dict[str, float]) -> float:
    """The float of tree ``t`` at ``vals`` when 53-bit and 256-bit arithmetic agree (else ``_Unsure``)."""
    try:
        hi = _real(_tree_value(t, vals, 256))
        lo = _real(_tree_value(t, vals, 53))
    except (ValueError, ZeroDivisionError, OverflowError, ArithmeticError, TypeError) as exc:
        raise _Unsure(str(exc)) from None
    if abs(lo - hi) > COND_TOL * abs(hi):
        raise _Unsure("ill-conditioned at this point")
    return hi


def _text(x: float, spec: str) -> str:
    """``format(x, spec)``, unless a relative change of :data:`EDGE_TOL` changes it (``_Unsure``)."""
    out = format(x, spec)
    if format(x * (1 - EDGE_TOL), spec) != out or format(x * (1 + EDGE_TOL), spec) != out:
        raise _Unsure("at a rounding edge")
    return out


def _num(v: float) -> str:
    """:func:`bounds.validation.num` of a float."""
    return repr(v) if v != 0 and abs(v) < 2.2250738585072014e-308 else f"{v:.6g}"


def _violates(dom: list, v: float) -> bool:
    """:meth:`bounds.symbols.Param.violation` is not None (``dom``: lo, hi, lo_open, hi_open, integer)."""
    lo, hi, lo_open, hi_open, integer = dom[:5]
    lo = -math.inf if lo is None else lo
    hi = math.inf if hi is None else hi
    if math.isnan(v) or math.isinf(v):
        return True
    if lo != -math.inf and (not v > lo if lo_open else not v >= lo):
        return True
    if hi != math.inf and (not v < hi if hi_open else not v <= hi):
        return True
    return bool(integer and float(v) != round(float(v)))


def _names(t: Any) -> set[str]:
    """The parameters tree ``t`` reads."""
    if t[0] == "s":
        return {t[1]}
    if len(t) > 1 and isinstance(t[1], list):
        return set().union(*(_names(a) for a in t[1]))
    return set()


def _decide(rel: list, vals: dict[str, float]) -> bool:
    """A joint assumption ``[op, lhs, rhs]`` at ``vals`` (``_Unsure`` when too close to call)."""
    op, lhs, rhs = rel
    if not _names(lhs) | _names(rhs) <= set(vals):
        raise _Unsure("an assumption on a parameter not given (sympy may or may not decide it)")
    a, b = _settled(lhs, vals), _settled(rhs, vals)
    if abs(a - b) <= CMP_TOL * max(abs(a), abs(b)):
        raise _Unsure("an assumption at its edge")
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _plain_call(argv: list[str], cmd: str, flags_ok: tuple[str, ...],
                raw_ok: Any = None) -> tuple[str, set[str], list[tuple[str, str]]] | None:
    """``(key, flags, [(name, raw)])`` of ``cmd KEY [flag ...] [name=raw ...]`` with each flag at most once
    and every ``raw`` accepted by ``raw_ok`` (when given), else None (the sympy path answers)."""
    if len(argv) < 2 or argv[0] != cmd:
        return None
    key, flags, assigns = None, set(), []
    for t in argv[1:]:
        if not isinstance(t, str):
            return None
        if t in flags_ok:
            if t in flags:
                return None
            flags.add(t)
        elif t.startswith("-"):
            return None
        elif "=" in t:
            name, _, raw = t.partition("=")
            if raw_ok is not None and not raw_ok(raw):
                return None
            assigns.append((name.strip(), raw))
        elif key is None:
            key = t
        else:
            return None
    return None if key is None else (key, flags, assigns)


def _parse(argv: list[str]) -> tuple[str, str | None, bool, list[tuple[str, str]]] | None:
    """``(key, which, allow_unverified, [(name, raw)])`` of a plain ``eval`` call, else None."""
    call = _plain_call(argv, "eval", _FLAGS)
    if call is None:
        return None
    key, flags, assigns = call
    if {"--stated", "--derived"} <= flags:
        return None
    which = "stated" if "--stated" in flags else "derived" if "--derived" in flags else None
    return key, which, "--allow-unverified" in flags, assigns


def _one_line(text: str) -> str:
    """:func:`bounds.validation.one_line`."""
    for ch in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
        if ch in text:
            text = text.replace(ch, repr(ch)[1:-1])
    return text


def _user_values(doc: dict, assigns: list[tuple[str, str]]) -> dict[str, float]:
    """The typed values, as :func:`bounds.cli._parse_assign` and ``_check_domain`` accept them (else ``_Unsure``)."""
    vals: dict[str, float] = {}
    for name, raw in assigns:
        if name not in doc["ns"] or name in vals:
            raise _Unsure("an unknown or repeated parameter")
        try:
            v = float(raw)
        except ValueError:
            raise _Unsure("not a number") from None
        if not math.isfinite(v) or _violates(doc["params"][name], v):
            raise _Unsure("a parameter outside its domain")
        vals[name] = v
    return vals


def answer(doc: dict, assigns: list[tuple[str, str]]) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of ``eval`` from entry ``doc`` (``_Unsure`` where the sympy path must answer)."""
    if doc.get("unsupported"):
        raise _Unsure(doc["unsupported"])
    vals = _user_values(doc, assigns)
    if doc["refusal"]:                        # no form is established: refused whatever the values
        return 2, "", f"error: {doc['refusal']}\n"
    full = dict(vals)
    for name, (pv, _premise) in doc["relaxes"].items():
        full.setdefault(name, pv)
    for name, v in full.items():
        dom = doc["params"].get(name)
        if dom is None or name not in doc["allowed"] or _violates(dom, float(v)):
            raise _Unsure("a parameter outside the statement's assumptions")
        if dom[5] is not None and v >= dom[5]:
            raise _Unsure("an advice limit reached (a warning)")
    if any(n not in full for n in doc["free"]):
        raise _Unsure("a missing parameter")
    fvals = {k: float(v) for k, v in full.items()}
    for rel in doc["constraints"]:
        if not _decide(rel, fvals):
            raise _Unsure("a joint assumption violated")
    v = _settled(doc["expr"], fvals)
    if v < 0 and doc["nonneg"]:
        raise _Unsure("negative by rounding")
    if doc["value_of"]:
        name, lo, lo_open, lo_text, hi, hi_open, hi_text, tail, label = doc["value_of"]
        bad = ""
        for edge, text, below in ((lo, lo_text, True), (hi, hi_text, False)):
            if edge is None or bad:
                continue
            if abs(v - edge) <= CMP_TOL * max(abs(v), abs(edge), 1e-300):
                raise _Unsure("the value at the edge of its meaning")
            if (v < edge) if below else (v > edge):
                bad = text
        if bad:
            point = ", ".join(f"{k}={_num(float(x))}" for k, x in full.items())
            msg = (f"statement {doc['key']} ({label}) gives {name} = {_text(v, '.6g')} at {point}, outside the "
                   f"meaning of {name} (assumption {bad}){tail}")
            return 2, "", f"error: {_one_line(msg)}\n"
    lines = [_text(v, ".10g"), f"  statement {doc['line']}"]
    given = {k: (vals[k], p) for k, (_, p) in doc["relaxes"].items() if k in vals}
    paper = {k: (pv, p) for k, (pv, p) in doc["relaxes"].items() if k not in vals}
    if given:
        lines.append("  premises relaxed: " + "; ".join(f"{k} = {_num(x)} ({p})" for k, (x, p) in given.items()))
    if paper:
        lines.append("  premises at the paper's value: "
                     + "; ".join(f"{k} = {_num(x)} ({p})" for k, (x, p) in paper.items()))
    if doc["ceiling"] is None:
        vac = f"ceiling: none ({doc['ceiling_why']})" if doc["ceiling_why"] else ""
    else:
        if any(n not in full for n in doc["ceiling_free"]):
            raise _Unsure("a ceiling that needs more values")
        c = _settled(doc["ceiling"], fvals)
        if v >= c or abs(v - c) <= CMP_TOL * max(abs(v), abs(c)):
            raise _Unsure("vacuous, or at the ceiling")
        vac = f"not vacuous: {_text(v, '.6g')} < the ceiling {_text(c, '.6g')} ({doc['ceiling_why']})"
    for line in (doc["note"] and f"note: {doc['note']}", doc["warning"] and f"warning: {doc['warning']}", vac):
        if line:
            lines.append(f"  {line}")
    return 0, "\n".join(lines) + "\n", doc["stderr"]


#: set by :func:`fast_eval` when the entry of the call was missing: ``(key, which, allow_unverified, assigns)``
MISSED: list[tuple] = []
#: entry builders of call kinds answered by another module, by the ``which`` of their :data:`MISSED` records
#: (``bounds.numeric_pick`` registers ``"pick"`` when imported, which it is before it records a miss), so
#: that this module never imports them back
GENERATORS: dict[str, Any] = {}


def fast_eval(argv: list[str]) -> int | None:
    """Answer ``eval`` from the numeric store: prints and returns 0, or returns None (nothing printed)
    where the sympy path must answer (see the module's notes).  A ``calibrate`` call is passed to
    :func:`fast_calibrate` (``python -m bounds`` asks this function first for every command)."""
    if argv and argv[0] == "calibrate":
        return fast_calibrate(argv)
    if argv and argv[0] == "pick":
        return fast_prefix(argv)
    parsed = _parse(list(argv))
    if parsed is None or os.environ.get("DP_ERM_VERIFY_NUMERIC", "").strip().lower() in ("off", "0", "no"):
        return None
    key, which, au, assigns = parsed
    if store_dir() is None:                 # the snapshot is off: no store either
        return None
    try:
        dig = digest()
        doc = read_entry(key, which, au, dig)
    except OSError:
        return None
    if doc is None:
        MISSED.append((key, which, au, assigns))
        return None
    try:
        rc, out, err = answer(doc, assigns)
    except Exception:  # noqa: BLE001 - _Unsure, or an entry this code cannot read: the sympy path answers
        return None
    return _emit(rc, out, err)


# --------------------------------------------------------------------------- generation (sympy path)
class Unsupported(Exception):
    """An expression the numeric trees do not cover."""


def to_tree(e: Any, name_of: Any) -> Any:
    """The plain tree of sympy expression ``e`` (``name_of(symbol)`` names a parameter; ``Unsupported`` else)."""
    import sympy as sp

    if e.is_Symbol:
        return ("s", name_of(e))
    if e.is_Integer:
        return ("i", int(e))
    if e.is_Rational:
        return ("q", int(e.p), int(e.q))
    if e.is_Float:
        s, man, ex, bc = e._mpf_
        return ("F", int(s), int(man), int(ex), int(bc))
    if e is sp.pi:
        return ("pi",)
    if e is sp.E:
        return ("E",)
    name = type(e).__name__
    if isinstance(e, sp.exp):
        return ("exp", [to_tree(e.args[0], name_of)])
    if name in ("Add", "Mul", "Pow", "Min", "Max", "Abs", "log", "gamma", "factorial") and e.args:
        if name == "log" and len(e.args) != 1:
            raise Unsupported("log with a base")
        return (name, [to_tree(a, name_of) for a in e.args])
    raise Unsupported(f"{name} is not covered")


_RELS = {"StrictLessThan": "<", "LessThan": "<=", "StrictGreaterThan": ">", "GreaterThan": ">="}


def param_domain(p: Any) -> list:
    """A parameter's domain as an entry stores it: ``[lo, hi, lo_open, hi_open, integer, soft_hi]`` (None for ±∞/none)."""
    return [None if p.lo == -math.inf else float(p.lo), None if p.hi == math.inf else float(p.hi),
            bool(p.lo_open), bool(p.hi_open), bool(p.integer), None if p.soft_hi is None else float(p.soft_hi)]


def constraint_trees(st: Any, name_of: Any) -> list:
    """The statement's joint assumptions as ``[relation, lhs tree, rhs tree]``; :class:`Unsupported` otherwise."""
    cons = []
    for c in st.constraints:
        if type(c).__name__ not in _RELS:
            raise Unsupported("a joint assumption that is not one comparison")
        cons.append([_RELS[type(c).__name__], to_tree(c.lhs, name_of), to_tree(c.rhs, name_of)])
    return cons


def build_entry(reg: Any, key: str, which: str | None, allow_unverified: bool) -> dict:
    """The entry of ``eval key`` with form ``which`` from the sympy registry ``reg`` (unverified)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from . import pick
    from .report_io import read_summary
    from .validation import one_line

    st = reg.get(key)
    doc: dict[str, Any] = {"key": st.key, "which": which, "allow_unverified": bool(allow_unverified)}
    ns = st.ns

    def name_of(s: Any) -> str:
        if not ns.has_symbol(s):
            raise Unsupported(f"symbol {s} is no parameter")
        return ns.by_symbol(s).name

    try:
        if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v, _ in st.relaxes.values()):
            raise Unsupported("a relaxed premise whose paper value is not a plain number")
        params = {n: param_domain(ns[n]) for n in ns}
        doc.update(ns=sorted(ns), params=params, refusal="")
        try:
            with pick.using(reg):
                b = pick.basis(st.key, which, allow_unverified)
        except pick.UnverifiedError as exc:      # the same refusal whatever the (admissible) values
            doc["refusal"] = one_line(str(exc))
            return doc
        ev = reg.evaluate(st.key)
        expr = st.stated if b.form == "stated" else ev.derived if b.form == "derived" else ev.expression
        if expr is None:
            raise Unsupported("no expression")
        value_of = None
        if st.value_of:
            from .symbols import _fmt

            p = ns[st.value_of]
            if p.integer:
                raise Unsupported("an integer value_of")
            lo = None if p.lo == -math.inf else float(p.lo)
            hi = None if p.hi == math.inf else float(p.hi)
            value_of = [p.name, lo, bool(p.lo_open), f"{p.name} {'>' if p.lo_open else '>='} {_fmt(p.lo)}",
                        hi, bool(p.hi_open), f"{p.name} {'<' if p.hi_open else '<='} {_fmt(p.hi)}",
                        one_line(f": {st.outside}" if st.outside else ""), one_line(st.label)]
        free = sorted({name_of(s) for s in expr.free_symbols})
        cons = constraint_trees(st, name_of)
        allowed = set(st.params) | set(free)
        summary = io.StringIO()
        note = read_summary().note
        if note:
            summary.write(f"note: {one_line(note)}\n")
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            ceiling_free = [] if st.ceiling is None else sorted({name_of(s) for s in st.ceiling.free_symbols})
        doc.update(
            allowed=sorted(allowed), free=free, value_of=value_of,
            relaxes={k: [v, p] for k, (v, p) in st.relaxes.items()}, constraints=cons,
            expr=to_tree(expr, name_of), nonneg=bool(expr.is_nonnegative is True),
            line=b.line(), note=b.note, warning=b.warning,
            ceiling=None if st.ceiling is None else to_tree(st.ceiling, name_of), ceiling_why=st.ceiling_why,
            ceiling_free=ceiling_free, stderr=summary.getvalue(),
        )
    except (Unsupported, ValueError, LookupError) as exc:
        doc["unsupported"] = f"{type(exc).__name__}: {exc}"
    return doc


def _grid(st: Any, names: list[str], n: int, seed: int = 0) -> list[dict[str, float]]:
    """``n`` seeded points of the parameters ``names`` over their sampling ranges (:meth:`Param.sample`)."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    cols = {k: st.ns[k].sample(rng, n) for k in names}
    return [{k: float(cols[k][i]) for k in names} for i in range(n)]


def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from .cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def verify_entry(doc: dict, points: list[dict[str, float]]) -> tuple[int, int, str]:
    """Compare the numeric answer of ``doc`` with :func:`bounds.cli.main` at ``points``.

    Returns ``(points answered by the numeric path, points compared, first mismatch or '')``.
    """
    flags = ([f"--{doc['which']}"] if doc["which"] else []) + (["--allow-unverified"] if doc["allow_unverified"]
                                                                  else [])
    answered = 0
    for pt in points:
        assigns = [(k, repr(v)) for k, v in pt.items()]
        try:
            fast = answer(doc, assigns)
        except _Unsure:
            continue
        got = _run_cli(["eval", doc["key"], *[f"{k}={r}" for k, r in assigns], *flags])
        if got != fast:
            return answered, len(points), f"at {pt}: sympy {got!r} != numeric {fast!r}"
        answered += 1
    return answered, len(points), ""


def _registry_for(key: str) -> Any:
    """The snapshot's light registry of the paper of ``key`` (what the command line read; no paper module is
    imported), else :data:`bounds.registry`; None when the snapshot's index lists no such paper."""
    from .snapshot import Store

    store = Store.default()
    pid = key.split(".", 1)[0]
    if store is not None and "." in key:
        light = store.light_registry([pid]) if pid in store.paper_ids() else None
        if light is not None:
            return light
        if store.paper_ids() and pid not in store.paper_ids():
            return None
    import bounds

    return bounds.registry


def generate(key: str, which: str | None, allow_unverified: bool, extra: list[dict[str, float]] = (),
             reg: Any = None) -> dict:
    """Build, verify and store the entry of ``eval key`` (form ``which``); returns it (``unsupported``
    says why a statement stays on the sympy path)."""
    dig = digest()
    reg = reg or _registry_for(key)
    if reg is None or key not in reg.keys():
        return {"key": key, "which": which, "allow_unverified": allow_unverified, "unsupported": "no such statement"}
    doc = build_entry(reg, key, which, allow_unverified)
    if getattr(reg, "light", False) and doc.get("unsupported", "").startswith("LookupError"):
        import bounds  # the light copy lacks an evaluation: the papers' registry has it

        reg = bounds.registry
        doc = build_entry(reg, key, which, allow_unverified)
    if not doc.get("unsupported"):
        st = reg.get(key)
        every = sorted(set(doc.get("free", ())) | set(st.params))       # the relaxed premises given, half the time
        bare = [n for n in every if n not in doc.get("relaxes", {})]
        points = [dict(p) for p in extra] + _grid(st, every, GRID_POINTS // 2) + _grid(st, bare, GRID_POINTS // 2, 1)
        doc = _judged(doc, *verify_entry(doc, points))
    if dig == digest():               # the sources did not change meanwhile
        write_entry(doc, dig)
    return doc


def _judged(doc: dict, answered: int, total: int, bad: Any) -> dict:
    """An entry after its verification: *unsupported* when a compared point differs from the sympy path
    (``bad``) or fewer than :data:`MIN_COMPARED` points were answered numerically, else marked verified."""
    if bad or answered < MIN_COMPARED:
        why = (f"the numeric answer differs from the sympy path {bad}" if bad else
               f"only {answered} of {total} points answered numerically (at least {MIN_COMPARED} compared "
               "equal are required)")
        return {**{k: doc[k] for k in ("key", "which", "allow_unverified")}, "unsupported": why}
    return {**doc, "verified": f"{answered} of {total} points answered numerically, each equal to the sympy path"}


def _writable(dig: str) -> bool:
    """Whether this key's directory of the store exists or can be made, and takes files (else no entry is
    built: a store that cannot be written would make every sympy-path call pay for a generation)."""
    root = store_dir()
    if root is None:
        return False
    where = os.path.join(root, dig)
    try:
        if not os.path.isdir(where):
            _prune(root, keep=dig)
        os.makedirs(where, exist_ok=True)
    except OSError:
        return False
    return os.access(where, os.W_OK)


def _store_could_answer(rc: int, failed: list) -> bool:
    """Whether the store holds answers of the kind of a call the sympy path answered with status ``rc`` (its input
    error ``failed``): an answer (0), or one of the errors the store gives (the refusal of a statement with no
    established form, a value outside its meaning, a paper or section); never a status-2 error it leaves to sympy
    (an unknown, missing or repeated parameter, an assumption violated: nothing to generate for those)."""
    if rc == 0:
        return True
    if rc != 2 or not failed:
        return False
    from .pick import UnverifiedError
    from .validation import UnknownKeyError

    exc = failed[0]
    return isinstance(exc, (UnverifiedError, UnknownKeyError)) or (
        type(exc) is ValueError and "outside the meaning of" in str(exc))


def _detach_stdio() -> None:
    """Flush stdout and stderr and point their descriptors at the null device: a reader of the answer (``| head``,
    a terminal) sees its end now, and the generation that follows prints nothing."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    for fd in (1, 2):
        try:
            os.dup2(null, fd)
        except OSError:
            pass
    os.close(null)


def generate_missed(rc: int = 0, failed: list = ()) -> None:
    """After a call answered on the sympy path (status ``rc``, input error ``failed``) because its entry was
    missing: build that entry, only where the store can be written and could answer a call of that kind
    (:func:`_store_could_answer`).  The answer is out first (stdout and stderr closed to the reader); an
    interrupt or a closed pipe during the generation ends it silently (the entry is simply not stored)."""
    if not MISSED:
        return
    try:
        # a paper or section: its one error is stored (a plain pick's miss of the same call comes along)
        prefix = any(str(m[1]).startswith("prefix-") for m in MISSED) and all(
            str(m[1]).startswith("prefix-") or m[1] == "pick" for m in MISSED)
        wanted = (_store_could_answer(rc, list(failed)) or (rc == 2 and prefix)) and _writable(digest())
    except Exception:  # noqa: BLE001 - the store is an optimisation: never fail the command for it
        wanted = False
    if not wanted:
        MISSED.clear()
        return
    _detach_stdio()
    import signal

    try:
        if hasattr(signal, "SIGPIPE"):
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        _generate_missed()
    except (KeyboardInterrupt, BrokenPipeError):
        MISSED.clear()


def _generate_missed() -> None:
    while MISSED:
        key, which, au, assigns = MISSED.pop()
        try:
            if which and which.startswith("prefix-"):     # assigns: the call's argv
                generate_prefix(which[7:], key, assigns)
                continue
            gen = GENERATORS.get(which)
            if gen is not None:                           # a kind its own module registered; assigns: the argv
                gen(key, au, assigns)
                continue
            vals = {k: float(r) for k, r in assigns}
            if which == "calibrate":
                doc = generate_calibrate(key, au, extra=[vals])
                if doc.get("unsupported") == _NO_STATEMENT:     # a paper or section: the listing and the error
                    generate_prefix("calibrate", key, ["calibrate", key, *(f"{k}={r}" for k, r in assigns),
                                                       *(["--allow-unverified"] if au else [])])
            else:
                generate(key, which, au, extra=[vals])
        except Exception:  # noqa: BLE001 - the store is an optimisation: never fail the command for it
            pass


# --------------------------------------------------------------------------- calibrate (issue 33, item 4)
#: the options of ``calibrate`` the numeric path answers (anything else, ``--json`` first: the sympy path)
_CAL_FLAGS = ("--allow-unverified",)
#: a number typed on the command line that the numeric path reads (what ``float`` reads the same way as
#: :func:`bounds.cli._number`; anything else goes to the sympy path)
_PLAIN_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
#: what the calibrate entry of a key that is no statement says (the call then asks the key's prefix entry)
_NO_STATEMENT = "no such statement"
#: the stand-in of the hook's argument x (the calibration's value) in a traced hook or branch cost
_X = "__x__"


def _parse_calibrate(argv: list[str]) -> tuple[str, bool, list[tuple[str, str]]] | None:
    """``(key, allow_unverified, [(name, raw)])`` of a plain ``calibrate`` call, else None."""
    import re

    call = _plain_call(argv, "calibrate", _CAL_FLAGS, lambda raw: re.fullmatch(_PLAIN_NUMBER, raw) is not None)
    if call is None:
        return None
    key, flags, assigns = call
    return key, "--allow-unverified" in flags, assigns


def _at(t: Any, env: dict[str, float]) -> float:
    """:func:`_settled` of tree ``t``, ``_Unsure`` where ``env`` lacks a name it reads."""
    if not _names(t) <= set(env):
        raise _Unsure("a value the hook reads is not given")
    return _settled(t, env)


def _plain_name(s: Any) -> str:
    return s.name


def _trace_pair(fn: Any, x: Any, syms: dict) -> tuple[Any, Any]:
    import sympy as sp

    out = _trace(fn, (x,), dict(syms), keep=True)
    noise, extra = out
    return sp.sympify(noise), sp.sympify(extra)


def _close(a: float, b: float, tol: float = CMP_TOL) -> bool:
    """``a`` and ``b`` within ``tol`` (relative): a comparison of them is not decided here."""
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-300)


def _form_value(f: dict, full: dict[str, float], params: list[str]) -> tuple[float, str]:
    """The value of one stored form (``f``: tree, free names, value_of) at ``full`` (``params``: the statement's
    parameters) and ``""``, or the assumption its ``value_of`` parameter's meaning violates there (the row is
    n/a, or the answer an error)."""
    if any(n not in full for n in f["free"]):
        raise _Unsure("a missing parameter")
    if any(n not in params and n not in f["free"] for n in full):
        raise _Unsure("a parameter this form does not take")
    v = _settled(f["expr"], full)
    if v < 0 and f["nonneg"]:
        raise _Unsure("negative by rounding")
    if f["value_of"]:
        _name, lo, _lo_open, lo_text, hi, _hi_open, hi_text = f["value_of"]
        for edge, below, text in ((lo, True, lo_text), (hi, False, hi_text)):
            if edge is None:
                continue
            if _close(v, edge):
                raise _Unsure("the value at the edge of its meaning")
            if (v < edge) if below else (v > edge):
                return v, text
    return v, ""


def _meaning_error(doc: dict, which: str, v: float, bad: str, full: dict[str, float]) -> str:
    """:func:`bounds.core.check_meaning`'s message for form ``which`` of the entry's statement."""
    name = doc[which]["value_of"][0]
    point = ", ".join(f"{k}={_num(float(x))}" for k, x in full.items())
    return (f"statement {doc['key']} ({doc['label']}) gives {name} = {_text(v, '.6g')} at {point}, outside the "
            f"meaning of {name} (assumption {bad}){doc['outside_tail']}")


def _check_values(doc: dict, full: dict[str, float], names: list[str]) -> None:
    """The checks of :func:`bounds.core.validate` for the values ``names`` of ``full`` against entry part
    ``doc`` (``_Unsure`` wherever the sympy path could refuse)."""
    for name in names:
        dom = doc["params"].get(name)
        if dom is None or _violates(dom, float(full[name])):
            raise _Unsure("a parameter outside the statement's assumptions")
    for rel in doc["constraints"]:
        if not _decide(rel, full):
            raise _Unsure("a joint assumption violated")


def _cal_values(doc: dict, assigns: list[tuple[str, str]]) -> dict[str, float]:
    """The typed values as ``bounds.cli._cmd_calibrate``'s checks accept them (else ``_Unsure``)."""
    vals: dict[str, float] = {}
    for name, raw in assigns:
        if name not in doc["ns"] or name in vals:
            raise _Unsure("an unknown or repeated parameter")
        v = float(raw)
        if not math.isfinite(v) or _violates(doc["params"][name], v):
            raise _Unsure("a parameter outside its domain")
        vals[name] = v
    return vals


def _command_text(key: str, params: list[str], relaxes: dict, vals: dict[str, float], inexact: tuple = ()) -> str:
    """:func:`bounds.calibrate._command` (the relaxed premises at the paper's value left out; ``inexact``: the
    values computed here, printed only where their digits are settled)."""
    for k in inexact:
        if k in relaxes and _close(float(vals[k]), float(relaxes[k][0])):
            raise _Unsure("a computed value at a relaxed premise's paper value")
    vals = {k: v for k, v in vals.items() if not (k in relaxes and float(v) == float(relaxes[k][0]))}
    given = " ".join((f"{p}={_text(vals[p], '.6g')}" if p in inexact else f"{p}={_num(vals[p])}") if p in vals
                     else f"{p}=…" for p in params)
    return f"python -m bounds calibrate {key} {given}".rstrip()


def _branch_answer(doc: dict, vals: dict[str, float]) -> tuple[str, list[tuple], str, tuple | None]:
    """``(label line, rows, recommendation, best row)`` of :func:`bounds.calibrate._compare_branches` from the
    entry (the best row as :func:`bounds.calibrate._best_branch`, None where no branch applies)."""
    g = doc["branches"]
    rows = []          # (key, name, which, value, noise, regulariser, note)
    for m in g["members"]:
        mvals = {k: v for k, v in vals.items() if k in m["ns"]}
        for name, (pv, _premise) in m["relaxes"].items():
            mvals.setdefault(name, float(pv))
        _check_values(m, mvals, list(mvals))
        for which in ("stated", "derived"):
            f = m[which]
            if f is None:
                continue
            x, bad = _form_value(f, mvals, m["allowed"])
            if bad:
                rows.append((m["key"], m["name"], which, None, None, None, m["outside_note"]))
                continue
            noise = _at(m["cost"][0], {**vals, _X: x})
            extra = _at(m["cost"][1], {**vals, _X: x})
            note = "" if which == "stated" or m["established"] else "not established"
            rows.append((m["key"], m["name"], which, x, noise, extra, note))
    est = {m["key"]: m["established"] for m in g["members"]}
    cands = [r for r in rows if r[2] == "derived" and r[4] is not None and est.get(r[0])]
    if not cands:
        return g["label"], rows, "none: no established derived form of a branch applies here", None
    for a in cands:                     # every comparison below must be decided by a clear margin: two noises
        for b in cands:                 # (or regularisers other than an exact 0) within 1e-10, equal ones too
            if a is not b and (_close(a[4], b[4], 1e-10)
                               or (_close(a[5], b[5], 1e-10) and not a[5] == b[5] == 0.0)):
                raise _Unsure("two branches too close to rank")
    least = min(r[4] for r in cands)
    near = [r for r in cands if r[4] <= least * (1 + 1e-12)]
    best = min(near, key=lambda r: (r[5], r[4]))
    others = [r for r in cands if r[0] != best[0]]
    if not others:
        why = "the only branch whose derived form applies here"
    else:
        o = min(others, key=lambda r: (r[4], r[5]))
        if o[4] > best[4] * (1 + 1e-12):
            why = (f"the least noise ({_text(best[4], '.6g')} against {_text(o[4], '.6g')} for {o[0]}, "
                   f"{_text(o[4] / best[4], '.3g')}×)")
        else:
            why = (f"the same noise as {o[0]} with less extra regularisation ({_text(best[5], '.6g')} against "
                   f"{_text(o[5], '.6g')})")
        if best[5] > o[5]:
            why += f", at the cost of extra regularisation {_text(best[5], '.6g')} (against {_text(o[5], '.6g')})"
    here = " (this statement)" if best[0] == doc["key"] else ""
    mb = next(m for m in g["members"] if m["key"] == best[0])
    run = _command_text(best[0], mb["cal_params"], mb["relaxes"], vals)
    return g["label"], rows, f"{best[0]}{here}, derived: {why}; run: {run}", best


def _g6(x: float | None, exact: bool = False) -> str:
    if x is None:
        return "—"
    return format(x, ".6g") if exact else _text(x, ".6g")


def answer_calibrate(doc: dict, assigns: list[tuple[str, str]]) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of ``calibrate`` from entry ``doc`` (``_Unsure``: the sympy path answers)."""
    if doc.get("unsupported"):
        raise _Unsure(doc["unsupported"])
    vals = _cal_values(doc, assigns)
    full = dict(vals)
    for name, (pv, _premise) in doc["relaxes"].items():
        full.setdefault(name, float(pv))
    if doc.get("refusal"):          # no form is established: refused at any values, naming the private alternative
        ref = doc["refusal"]
        return 2, "", f"error: {_one_line(ref['message'] + '; ' + _alternative_n(ref, full))}\n"
    _check_values(doc, full, list(full))
    eps = full.get("eps")
    out: dict[str, float | None] = {}
    refused: dict[str, str] = {}
    for which in ("stated", "derived"):
        f = doc[which]
        if f is None:
            out[which] = None
            continue
        v, bad = _form_value(f, full, doc["allowed"])
        out[which] = None if bad else v
        if bad and which == "stated":    # the printed form leaves its meaning here: that row alone is n/a
            refused[which] = f"n/a here: {_meaning_error(doc, which, v, bad, full)}"
        elif bad:                        # the derived form's: the answer is the error, naming the branch that applies
            msg = _meaning_error(doc, which, v, bad, full)
            if doc["branches"] is not None:
                best = _branch_answer(doc, full)[3]
                if best is not None and best[0] != doc["key"]:
                    mb = next(m for m in doc["branches"]["members"] if m["key"] == best[0])
                    msg += f"; run: {_command_text(best[0], mb['cal_params'], mb['relaxes'], full)}"
            return 2, "", f"error: {_one_line(msg)}\n"

    def spent(x: float) -> tuple[float | None, bool]:
        """The ε spent by noise ``x`` and whether it is exact (``eps`` itself)."""
        if doc["spent"] is not None:
            return _at(doc["spent"], {**full, _X: x}), False
        if doc["power"] is not None and eps is not None and out["derived"]:
            if not doc["established"]:
                return None, True
            if not x > 0:
                raise _Unsure("a noise at or below 0")
            return eps * (out["derived"] / x) ** (-doc["power"]), False
        return None, True

    tight = out["derived"] if out["derived"] is not None else out["stated"]
    status = dict(doc["status"])
    moved = {n: full[n] for n, (pv, _p) in doc["relaxes"].items() if n in full and float(full[n]) != float(pv)}
    if moved and doc["printed"]:
        status["stated"] = ("the paper's form generalised to " + ", ".join(f"{n} = {_num(v)}" for n, v in moved.items())
                            + " (relaxed premises; the printed form itself is for "
                            + ", ".join(f"{n} = {_num(float(doc['relaxes'][n][0]))}" for n in moved) + "): "
                            + status["stated"].split(": ", 1)[-1])
    rows = []
    for name, x in (("stated", out["stated"]), ("derived", out["derived"]), ("tight", tight)):
        e, exact = None, True
        if x is not None:
            by_proof = name == "derived" and doc["spent"] is None
            if by_proof and eps is not None:
                e = eps if doc["established"] else None
            else:
                e, exact = spent(x)
        how = refused.get(name, doc["how"][name])
        rows.append((name, x, e, exact, status[name], how))
    notes = []
    if doc["form"] in refused:   # the form the answer rests on leaves its meaning here: say which row answers
        notes.append(f"the {doc['form']} form is n/a at these values (see its row); the derived row is the calibration "
                     "that applies here")
    x = out.get(doc["form"]) if out.get(doc["form"]) is not None else tight
    if doc["rate"] and x is not None:
        if _close(x, 0.0):
            raise _Unsure("a rate at 0")
        if x > 0:
            sym = doc["rate"]
            notes.append(f"{sym} = {_text(x, '.6g')} is a rate (density ∝ exp(−{sym}‖b‖)), not a scale: the noise's "
                         f"scale is 1/{sym} = {_text(1 / x, '.6g')}")
    comp = doc.get("composition")
    if comp is not None and eps is not None:
        e1 = _at(comp["eps"], full)
        runs = "; ".join(_command_text(k, params, relaxes, {**{n: v for n, v in full.items() if n in ns}, "eps": e1},
                                       inexact=("eps",))
                         for k, ns, params, relaxes in comp["keys"])
        notes.append(f"this release spends only its part of eps = {_num(full['eps'])} (the eps spent column); the "
                     f"rest, eps = {_text(e1, '.6g')}, is for {', '.join(k[0] for k in comp['keys'])} ({comp['why']}): "
                     f"run {runs} — calibrating them at eps = {_num(full['eps'])} would spend more than eps in total")
    lines = [f"{doc['key']} ({doc['label']}): {doc['quantity']}",
             f"  at {', '.join(f'{k}={_num(v)}' for k, v in full.items())}",
             f"  statement {doc['line']}"]
    if doc["note"]:
        lines.append(f"  note: {doc['note']}")
    if doc["warning"]:
        lines.append(f"  warning: {doc['warning']}")
    given = {k: (vals[k], p) for k, (_, p) in doc["relaxes"].items() if k in vals}
    paper = {k: (float(pv), p) for k, (pv, p) in doc["relaxes"].items() if k not in vals}
    if given:
        lines.append("  premises relaxed: " + "; ".join(f"{k} = {_num(x)} ({p})" for k, (x, p) in given.items()))
    if paper:
        lines.append("  premises at the paper's value: "
                     + "; ".join(f"{k} = {_num(x)} ({p})" for k, (x, p) in paper.items()))
    cells = [(_g6(r[1]), _g6(r[2], r[3])) for r in rows]
    name = doc["noise_name"]
    w = max(len(name), *(len(c[0]) for c in cells))
    lines.append(f"  {'':<9}{name:>{w}}  {'eps spent':>10}  status")
    for r, (noise, sp_) in zip(rows, cells, strict=True):
        lines.append(f"  {r[0]:<9}{noise:>{w}}  {sp_:>10}  {r[4]}")
    for r in rows:
        if r[5]:
            lines.append(f"  {r[0]}: {r[5]}")
    lines += [f"  note: {n}" for n in notes]
    if doc["branches"] is not None:
        label, brows, recommended, _best = _branch_answer(doc, full)
        lines.append(f"  {label}")
        w = max(len(f"{r[0]} ({r[1]})") for r in brows)
        shown = set()
        for r in brows:
            both = [q for q in brows if q[0] == r[0] and q[4] is None and q[6] == r[6]]
            if r[4] is None and len(both) > 1:
                if r[0] in shown:
                    continue
                shown.add(r[0])
                lines.append(f"    {r[0] + ' (' + r[1] + ')':<{w}}  both forms n/a: {r[6]}")
                continue
            head = f"    {r[0] + ' (' + r[1] + ')':<{w}}  {r[2]:<8}"
            if r[4] is None:
                lines.append(f"{head}n/a: {r[6]}")
            else:
                lines.append(f"{head}noise {_text(r[4], '<10.6g')} regulariser {_text(r[5], '.6g')}"
                             + (f"  ({r[6]})" if r[6] else ""))
        if recommended:
            lines.append(f"  recommended: {recommended}")
    return 0, "\n".join(lines) + "\n", doc["stderr"]


def fast_calibrate(argv: list[str]) -> int | None:
    """Answer ``calibrate`` from the numeric store: prints and returns the status, or returns None (nothing
    printed) where the sympy path must answer."""
    parsed = _parse_calibrate(list(argv))
    if parsed is None or os.environ.get("DP_ERM_VERIFY_NUMERIC", "").strip().lower() in ("off", "0", "no"):
        return None
    key, au, assigns = parsed
    if store_dir() is None:
        return None
    try:
        dig = digest()
        doc = read_entry(key, "calibrate", au, dig)
    except OSError:
        return None
    if doc is None:
        MISSED.append((key, "calibrate", au, assigns))
        return None
    if doc.get("unsupported") == _NO_STATEMENT:         # a paper or section: its listing or its error
        return fast_prefix(argv)
    try:
        rc, out, err = answer_calibrate(doc, assigns)
    except Exception:  # noqa: BLE001 - _Unsure, or an entry this code cannot read: the sympy path answers
        return None
    return _emit(rc, out, err)


def _emit(rc: int, out: str, err: str) -> int:
    """Print an answer as :func:`bounds.cli.main` does, failures of stdout included (:func:`bounds._lazy.emit`)."""
    from ._lazy import emit

    return emit(rc, out, err)


class _SymMath:
    """``math`` for tracing a hook on sympy symbols (only the functions a tree covers)."""

    def __init__(self) -> None:
        import sympy as sp

        self.log, self.exp, self.sqrt, self.pi, self.e = sp.log, sp.exp, sp.sqrt, sp.pi, sp.E


def _trace(fn: Any, args: tuple, kwargs: dict, keep: bool = False) -> Any:
    """``fn(*args, **kwargs)`` on sympy symbols, with ``float`` the identity and ``math`` sympy's (a hook written
    for floats, traced to the expression it computes; any other use of the numbers raises)."""
    import types

    import sympy as sp

    if kwargs:
        _by_name_only(fn, kwargs)
    g = dict(fn.__globals__)
    g["float"] = sp.sympify
    g["math"] = _SymMath()
    f2 = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    out = f2(*args, **kwargs)
    return out if keep else sp.sympify(out)


_BY_NAME = "a hook that reads its values otherwise than one by name (v['name'], v.get('name', default))"


def _by_name_only(fn: Any, kwargs: dict) -> None:
    """Refuse (``Unsupported``) a hook traced with every name given that could branch on which names the sympy path
    gives it: a default for one of the names, or a ``**`` mapping used otherwise than ``v["name"]`` or
    ``v.get("name", default)`` (``"q" in v``, iteration, passing it on): traced with every name present, one branch
    would be frozen.  (``v.get("q", d)`` is traced as ``q``: the tree then names ``q``, and a call that does not
    give it is left to the sympy path, :func:`_at`.)

    Examples
    --------
    >>> _by_name_only(lambda value, x, **v: x * v["eps"] * v.get("q", 1), {"eps": 1})
    >>> try:
    ...     _by_name_only(lambda value, x, **v: x if "q" in v else 2 * x, {"q": 1})
    ... except Unsupported as exc:
    ...     print(exc)
    a hook that reads its values otherwise than one by name (v['name'], v.get('name', default))
    """
    import dis
    import inspect

    code = fn.__code__
    pos = code.co_varnames[:code.co_argcount]
    defaulted = set(pos[len(pos) - len(fn.__defaults__ or ()):]) | set(fn.__kwdefaults__ or {})
    if defaulted & set(kwargs):
        raise Unsupported("a hook with a default for a value (a test of which values are given)")
    if not code.co_flags & inspect.CO_VARKEYWORDS:
        return
    name = code.co_varnames[code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS)]
    if name in code.co_cellvars:
        raise Unsupported("a hook whose values are read by a nested function")
    ins = list(dis.get_instructions(code))
    for i, a in enumerate(ins):
        if not a.opname.startswith("LOAD_FAST"):
            continue
        if a.argval != name:
            if isinstance(a.argval, tuple) and name in a.argval:
                raise Unsupported(_BY_NAME)
            continue
        nxt = ins[i + 1:i + 3]
        by_name = (len(nxt) == 2 and nxt[0].opname == "LOAD_CONST" and isinstance(nxt[0].argval, str)
                   and nxt[1].opname == "BINARY_SUBSCR")
        by_get = (len(nxt) == 2 and nxt[0].opname in ("LOAD_METHOD", "LOAD_ATTR") and nxt[0].argval == "get"
                  and nxt[1].opname == "LOAD_CONST" and isinstance(nxt[1].argval, str))
        if not (by_name or by_get):
            raise Unsupported(_BY_NAME)


def _no_value(*_a: Any, **_k: Any) -> Any:
    raise Unsupported("a hook that evaluates other statements")


def _form_part(reg: Any, st: Any, expr: Any, name_of: Any) -> dict | None:
    if expr is None:
        return None
    value_of = None
    if st.value_of:
        p = st.ns[st.value_of]
        if p.integer:
            raise Unsupported("an integer value_of")
        from .symbols import _fmt

        value_of = [p.name, None if p.lo == -math.inf else float(p.lo), bool(p.lo_open),
                    f"{p.name} {'>' if p.lo_open else '>='} {_fmt(p.lo)}",
                    None if p.hi == math.inf else float(p.hi), bool(p.hi_open),
                    f"{p.name} {'<' if p.hi_open else '<='} {_fmt(p.hi)}"]
    return {"expr": to_tree(expr, name_of), "free": sorted({name_of(s) for s in expr.free_symbols}),
            "nonneg": bool(expr.is_nonnegative is True), "value_of": value_of}


def _params_part(st: Any, name_of: Any) -> dict:
    ns = st.ns
    params = {n: param_domain(ns[n]) for n in ns}
    cons = constraint_trees(st, name_of)
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v, _ in st.relaxes.values()):
        raise Unsupported("a relaxed premise whose paper value is not a plain number")
    return {"ns": sorted(ns), "params": params, "constraints": cons, "allowed": sorted(st.params)}


def build_calibrate_entry(reg: Any, key: str, allow_unverified: bool) -> dict:
    """The entry of ``calibrate key`` from the sympy registry ``reg`` (unverified)."""
    import io

    import sympy as sp

    from . import alternative as alt
    from . import calibrate as cal
    from . import pick
    from .report_io import read_summary
    from .validation import one_line

    st = reg.get(key)
    doc: dict[str, Any] = {"key": st.key, "which": "calibrate", "allow_unverified": bool(allow_unverified)}

    def namer(s_st: Any) -> Any:
        def name_of(s: Any) -> str:
            if s.name == _X:
                return _X
            if not s_st.ns.has_symbol(s):
                raise Unsupported(f"symbol {s} is no parameter")
            return s_st.ns.by_symbol(s).name
        return name_of

    try:
        with pick.using(reg):
            if not cal._is_mechanism(st):
                raise Unsupported("not a mechanism statement")
            name_of = namer(st)
            try:
                b = pick.basis(st.key, None, allow_unverified)
            except pick.UnverifiedError as exc:     # refused whatever the values; the alternative depends on them
                doc.update(_params_part(st, name_of))
                doc["refusal"] = build_refusal(reg, st, str(exc))
                doc["relaxes"] = {k: [v, p] for k, (v, p) in st.relaxes.items()}
                return doc
            ev = reg.evaluate(st.key)
            hook = cal._hook(st) or {}
            if any(h in hook for h in ("tight", "derived")):
                raise Unsupported("a declared tight or derived calibration (a numeric accountant)")
            doc.update(_params_part(st, name_of))
            doc.update(stated=_form_part(reg, st, st.stated, name_of), derived=_form_part(reg, st, ev.derived, name_of))
            syms = {n: sp.Symbol(n) for n in st.ns}
            X = sp.Symbol(_X)
            spent = None
            how_spent = ""
            if "spent" in hook:
                expr = _trace(hook["spent"], (_no_value, X), dict(syms))
                spent = to_tree(expr, _plain_name)
                how_spent = hook.get("accountant", "the paper's declared accountant")
            eps_sym = st.ns["eps"].symbol if "eps" in st.ns else None
            power = cal._eps_power(ev.derived if ev.derived is not None else st.stated, eps_sym) \
                if eps_sym is not None else None
            if spent is None and power is not None and "eps" in st.ns:
                how_spent = ("one release of pure ε-DP noise: ε spent = ε·(derived/noise)" if power == -1
                             else "one release of pure ε-DP noise: ε spent = ε·(noise/derived)")
            if not b.established:
                how_spent = ""
            how_tight = ("= derived: one release, nothing composes (the derived calibration is what its privacy "
                         "proof needs)" if b.established else
                         "= derived: one release, nothing composes; the derived form is not established, so no "
                         "privacy proof stands behind it")
            comp = None
            if "composes_with" in hook:       # one part of a composition: the note names the rest, as commands
                c = hook["composes_with"]
                comp = {"eps": to_tree(_trace(c["eps"], (), dict(syms)), _plain_name), "why": c.get("why", ""),
                        "keys": []}
                for k in c.get("keys", ()):
                    k = k if k.startswith(f"{st.paper}.") else f"{st.paper}.{k}"
                    kst = reg.get(k)
                    comp["keys"].append([k, sorted(kst.ns), alt.parameters(k, reg),
                                         {a: [v, q] for a, (v, q) in (getattr(kst, "relaxes", {}) or {}).items()}])
                how_tight = "= derived: this release alone; it composes with the rest of the algorithm (see the note)"
            status = cal._statuses(b, st, ev)
            noise_name = hook.get("noise_name") or st.value_of or cal._value_name(st.quantity)
            rate = st.quantity.split(" of ", 1)[0].split()[-1] if st.quantity.startswith("rate ") else ""
            branches = None
            group = cal._branch_group(st)
            if group:
                members = []
                for mkey, m in group["members"].items():
                    mst = reg.get(mkey)
                    mev = reg.evaluate(mkey)
                    mname = namer(mst)
                    try:
                        mest = pick.basis(mkey, None, False).established
                    except pick.UnverifiedError:
                        mest = False
                    noise, extra = _trace_pair(m["cost"], X, syms)
                    part = _params_part(mst, mname)
                    part.update(
                        key=mst.key, name=m.get("name", mkey), established=bool(mest),
                        stated=_form_part(reg, mst, mst.stated, mname),
                        derived=_form_part(reg, mst, mev.derived, mname),
                        outside_note=(f"outside its meaning here: {mst.outside}" if mst.outside
                                      else "outside its meaning here"),
                        cost=[to_tree(noise, _plain_name), to_tree(extra, _plain_name)],
                        cal_params=alt.parameters(mkey, reg),
                        relaxes={k: [v, p] for k, (v, p) in (getattr(mst, "relaxes", {}) or {}).items()})
                    members.append(part)
                label = (f"branches of {group.get('label', st.label)} (noise added: {group.get('noise', 'noise')}; "
                         f"extra regularisation: {group.get('regulariser', 'none')}), stated and derived forms:")
                branches = {"label": label, "members": members}
            summary = io.StringIO()
            note = read_summary().note
            if note:
                summary.write(f"note: {one_line(note)}\n")
            doc.update(
                label=st.label, quantity=st.quantity, noise_name=noise_name,
                outside_tail=one_line(f": {st.outside}" if st.outside else ""), line=b.line(), note=b.note,
                warning=b.warning, established=bool(b.established), form=b.form,
                relaxes={k: [v, p] for k, (v, p) in st.relaxes.items()}, printed=bool(cal.printed_in_paper(st)),
                spent=spent, power=power, status=status, rate=rate, branches=branches, composition=comp,
                how={"stated": how_spent, "derived": "", "tight": how_tight}, stderr=summary.getvalue())
    except (Unsupported, ValueError, LookupError, TypeError, AttributeError, KeyError) as exc:
        doc = {k: doc[k] for k in ("key", "which", "allow_unverified")}
        doc["unsupported"] = f"{type(exc).__name__}: {exc}"
    return doc


def verify_calibrate_entry(doc: dict, points: list[dict[str, float]]) -> tuple[int, int, str]:
    """Compare the numeric ``calibrate`` of ``doc`` with :func:`bounds.cli.main` at ``points``."""
    flags = ["--allow-unverified"] if doc["allow_unverified"] else []
    answered = 0
    for pt in points:
        assigns = [(k, repr(v)) for k, v in pt.items()]
        try:
            fast = answer_calibrate(doc, assigns)
        except Exception:  # noqa: BLE001 - _Unsure, or anything fast_calibrate would leave to the sympy path
            continue
        got = _run_cli(["calibrate", doc["key"], *[f"{k}={r}" for k, r in assigns], *flags])
        if got != fast:
            return answered, len(points), f"at {pt}: sympy {got!r} != numeric {fast!r}"
        answered += 1
    return answered, len(points), ""


def generate_calibrate(key: str, allow_unverified: bool, extra: list[dict[str, float]] = (), reg: Any = None) -> dict:
    """Build, verify and store the entry of ``calibrate key``; returns it."""
    from . import alternative as alt

    dig = digest()
    reg = reg or _registry_for(key)
    if reg is None or key not in reg.keys():
        doc = {"key": key, "which": "calibrate", "allow_unverified": allow_unverified, "unsupported": _NO_STATEMENT}
        if dig == digest():
            write_entry(doc, dig)
        return doc
    if reg.get(key).key != key:      # an alias: never stored under it
        return {"key": key, "which": "calibrate", "allow_unverified": allow_unverified,
                "unsupported": "an alias"}
    doc = build_calibrate_entry(reg, key, allow_unverified)
    if getattr(reg, "light", False) and doc.get("unsupported", "").startswith("LookupError"):
        import bounds

        reg = bounds.registry
        doc = build_calibrate_entry(reg, key, allow_unverified)
    if not doc.get("unsupported"):
        st = reg.get(key)
        every = sorted(set(alt.parameters(key, reg)) | set(st.relaxes))
        bare = [n for n in every if n not in doc.get("relaxes", {})]
        points = [dict(p) for p in extra] + _grid(st, every, GRID_POINTS // 2) + _grid(st, bare, GRID_POINTS // 2, 1)
        doc = _judged(doc, *verify_calibrate_entry(doc, points))
    if dig == digest():
        write_entry(doc, dig)
    return doc


# --------------------------------------------------------------------------- calibrate's refusal and its alternative
class _Probe(dict):
    """The values a penalty hook reads, recording which names it asks for and whether each was there."""

    def __init__(self, present: dict, log: list) -> None:
        super().__init__(present)
        self.log = log

    def __contains__(self, k: object) -> bool:
        r = dict.__contains__(self, k)
        self.log.append([k, r])
        return r

    def __getitem__(self, k: Any) -> Any:
        self.log.append([k, dict.__contains__(self, k)])
        return dict.__getitem__(self, k)

    def get(self, k: Any, default: Any = None) -> Any:
        self.log.append([k, dict.__contains__(self, k)])
        return dict.get(self, k, default)

    def _opaque(self, *_a: Any, **_k: Any) -> Any:
        raise Unsupported("a penalty hook that reads the values as a whole")

    __iter__ = keys = items = values = __len__ = copy = _opaque     # type: ignore[assignment]


def _penalty_spec(reg: Any, st: Any, name: str) -> list:
    """How :func:`bounds.alternative.penalty` gives the coefficient of ``name``: ``["c", float]``, or a declared
    callable traced on symbols with every parameter given and with none (``["t", [[probes, tree or None]]]``)."""
    import sympy as sp

    from . import alternative as alt

    c = alt.paper_declaration(st, "PENALTY", reg).get(name, 1)
    if not callable(c):
        return ["c", float(c)]
    variants = []
    for present in ({n: sp.Symbol(n) for n in st.ns}, {}):
        log: list = []
        out = _trace(c, (st, _Probe(present, log)), {}, keep=True)
        variants.append([log, None if out is None else to_tree(sp.sympify(out), _plain_name)])
    return ["t", variants]


def _penalty(spec: list, vals: dict[str, float]) -> tuple[float | None, bool]:
    """``(coefficient, exact)`` at ``vals`` (exact: the sympy path's own float, not a settled value)."""
    if spec[0] == "c":
        return spec[1], True
    for log, tree in spec[1]:
        if all((k in vals) == bool(r) for k, r in log):
            return (None, True) if tree is None else (_at(tree, vals), False)
    raise _Unsure("a penalty hook on another set of names")


def _fmt_num(x: float, exact: bool) -> str:
    return _num(x) if exact else _text(x, ".6g")


def _carry_n(src: dict, dst: dict, vals: dict[str, float]) -> tuple[dict[str, float], set[str]]:
    """:func:`bounds.alternative._carry` from the stored roles and penalties (and the names carried inexactly)."""
    out: dict[str, float] = {}
    inexact: set[str] = set()
    roles: dict[str, str] = {}
    for k in vals:
        if k in src["roles"]:
            roles.setdefault(src["roles"][k], k)
    for p in dst["plist"]:
        q = p if p in vals else roles.get(dst["roles"][p])
        if q is None:
            continue
        if q in src["roles"]:
            (cs, ex_s), (cd, ex_d) = _penalty(src["pen"][q], vals), _penalty(dst["pen"][p], vals)
            if cs is None or cd is None:
                continue
            ratio = cs / cd
            if not (ex_s and ex_d):
                if ratio != 1 and _close(ratio, 1.0):
                    raise _Unsure("a conversion ratio at 1")
                inexact.add(p)
        else:
            ratio = 1.0
        out[p] = vals[q] * ratio if ratio != 1 else vals[q]
    return out, inexact


def _conversions_n(src: dict, dst: dict, vals: dict[str, float]) -> list[str]:
    """:func:`bounds.alternative._conversions` from the stored data."""
    out = []
    roles = {src["roles"][k]: k for k in vals if k in src["roles"]}
    for p in dst["plist"]:
        q = p if p in vals else roles.get(dst["roles"][p])
        if q is None or q not in src["roles"]:
            continue
        (cs, ex_s), (cd, ex_d) = _penalty(src["pen"][q], vals), _penalty(dst["pen"][p], vals)
        if cs is None or cd is None:
            out.append(f"{p} not carried from {q}: the penalty convention of {src['key']} depends on a parameter "
                       "not given (give it to carry the value)")
            continue
        exact = ex_s and ex_d
        if not exact and cs != cd and _close(cs, cd):
            raise _Unsure("two penalties too close to tell apart")
        if cs == cd:
            continue
        r = cs / cd
        out.append(f"{p} = {_fmt_num(r, exact)}·{q} = {_fmt_num(vals[q] * r, exact)}: the same penalty in both "
                   f"objectives ({_fmt_num(cd, ex_d)}·{p}‖f‖² = {_fmt_num(cs, ex_s)}·{q}‖f‖²)")
    return out


def _fill_n(src: dict, vals: dict[str, float], cand: dict, tasks: list[str], carried: dict[str, float],
            inexact: set[str]) -> tuple[dict[str, float], list[str]]:
    """:func:`bounds.alternative._fill` from the stored data (a partly known formula, printed by sympy: ``_Unsure``)."""
    out: dict[str, float] = {}
    how: list[str] = []
    for t in tasks:
        for p, skey in cand["fill"].get(t, []):
            if p in carried or p in out:
                continue
            F = cand["fill_src"][skey]
            need = F["plist"]
            known, _inexact = _carry_n(src, F, vals)
            known = {**known, **{n: carried[n] for n in need if n in carried}}
            if len(known) == len(need):
                if _inexact or any(n in inexact for n in known):
                    raise _Unsure("a formula at values carried inexactly")
                full = dict(known)
                for name, (pv, _premise) in F["relaxes"].items():
                    full.setdefault(name, float(pv))
                _check_values(F, full, list(full))
                v, bad = _form_value(F["form"], full, F["allowed"])
                if bad:
                    raise _Unsure("a filled value outside its meaning")
                out[p] = v
                inexact.add(p)
                how.append(f"{p} = {_text(v, '.6g')} from {skey} ({F['quantity']}) for {t} learning")
            else:
                if known:
                    raise _Unsure("a formula partly evaluated (sympy prints it)")
                how.append(f"for {t} learning {p} = {F['sstr']} ({skey}: {F['quantity']}); give {', '.join(need)}")
    return out, how


def _alternative_n(ref: dict, vals: dict[str, float]) -> str:
    """:func:`bounds.alternative.private_alternative` from the entry's refusal data."""
    src, want = ref["src"], set(ref["want"])
    best = None
    for cand in ref["cands"]:
        declared, covers = set(cand["declared"]), set(cand["covers"])
        carried, inexact = _carry_n(src, cand, vals)
        score = (len(want & declared), len(want & covers), len(carried) - len(cand["plist"]))
        if best is None or score > best[0]:
            best = (score, cand, carried, inexact, covers)
    parts = []
    if best is not None:
        _, cand, carried, inexact, covers = best
        filled, how = _fill_n(src, vals, cand, sorted(want & covers), carried, inexact)
        carried = {**carried, **filled}
        missing = [p for p in cand["plist"] if p not in carried]
        fill = "".join(f"; {x}" for x in (*_conversions_n(src, cand, vals), *how))
        fill += f"; fill in {', '.join(missing)}" if missing else ""
        given = " ".join(f"{p}={_fmt_num(carried[p], p not in inexact)}" if p in carried else f"{p}=…"
                         for p in cand["plist"])
        command = f"python -m bounds calibrate {cand['key']} {given}".rstrip()
        parts.append(f"a private alternative the toolkit calibrates: {command} ({cand['what']}{fill})")
        for t in sorted(want & covers):
            if t in cand["estimators"]:
                parts.append(f"for {t} learning its estimators " + " / ".join(cand["estimators"][t]))
    eps = vals.get("eps")
    parts.append("for a finite-dimensional statistic of known sensitivity Δ, the plain Laplace mechanism: "
                 f"python -m bounds noise laplace --sensitivity 1 --eps {_num(eps) if eps else '…'} "
                 "(per unit of Δ: the scale grows with Δ)")
    return "; ".join(parts)


def _roles_of(st: Any, names: Any) -> dict[str, str]:
    from . import alternative as alt

    return {n: alt._role(st, n) for n in names}


def build_refusal(reg: Any, st: Any, message: str) -> dict:
    """The refusal part of a calibrate entry: the value-independent message and what
    :func:`bounds.alternative.private_alternative` reads (``Unsupported`` where it is not covered)."""
    import sympy as sp

    from . import alternative as alt
    from . import pick

    full = alt.every_paper(reg)
    with pick.using(full):
        def established(k: str) -> bool:
            try:
                return pick.basis(k, None, False).established
            except pick.UnverifiedError:
                return False

        st = full.get(st.key)
        src = {"key": st.key, "roles": _roles_of(st, st.ns), "pen": {n: _penalty_spec(full, st, n) for n in st.ns}}
        cands = []
        for k in alt.mechanism_keys(None, full):
            if k == st.key or not established(k):
                continue
            cand = full.get(k)
            h = alt.hook(cand, full) or {}
            params = alt.parameters(k, full)
            paper = full.papers.get(cand.paper)
            fill: dict[str, list] = {}
            fill_src: dict[str, dict] = {}
            for t, m in (h.get("fill", {}) or {}).items():
                fill[t] = []
                for p, s in (m or {}).items():
                    skey = s if "." in s and s.split(".", 1)[0] == cand.paper else f"{cand.paper}.{s}"
                    fill[t].append([p, skey])
                    sst = full.get(skey)
                    sev = full.evaluate(skey)
                    expr = sev.expression
                    named = expr.subs({x: sp.Symbol(sst.ns.by_symbol(x).name) for x in expr.free_symbols
                                       if sst.ns.has_symbol(x)}, simultaneous=True)

                    def name_of(s: Any, sst: Any = sst) -> str:
                        if not sst.ns.has_symbol(s):
                            raise Unsupported(f"symbol {s} is no parameter")
                        return sst.ns.by_symbol(s).name

                    sparams = alt.parameters(skey, full)
                    part = _params_part(sst, name_of)
                    part.update(plist=sparams, roles=_roles_of(sst, sparams),
                                pen={n: _penalty_spec(full, sst, n) for n in sparams}, quantity=sst.quantity,
                                sstr=sp.sstr(named), form=_form_part(full, sst, expr, name_of),
                                relaxes={a: [v, q] for a, (v, q) in sst.relaxes.items()})
                    fill_src[skey] = part
            cands.append({"key": k, "declared": sorted(set(h.get("task", ()))),
                          "covers": sorted(alt.task(k, full) | set(h.get("task", ()))), "plist": params,
                          "roles": _roles_of(cand, params), "pen": {n: _penalty_spec(full, cand, n) for n in params},
                          "what": f"{cand.label} of {getattr(paper, 'title', cand.paper)}: {cand.quantity}",
                          "estimators": {t: list(v) for t, v in (h.get("estimators", {}) or {}).items()},
                          "fill": fill, "fill_src": fill_src})
        return {"message": message, "want": sorted(alt.task(st.key, full)), "src": src, "cands": cands}


# --------------------------------------------------------------------------- a paper or section given as the key
#: the options of ``pick`` that take a value, and its flags, that a prefix entry answers (anything else: sympy path)
_PICK_VALUED = ("--m", "--eps", "--target", "--lam")
_PICK_FLAGS = ("--unit", "--allow-unverified", "--unconstrained")


def _parse_prefix(argv: list[str]) -> tuple[str, str, bool] | None:
    """``(command, key, bare)`` of a ``pick``/``calibrate`` call whose answer depends on the key alone when the
    key is a paper or section (a listing when ``bare``, else one error), or None for any other form."""
    import re

    if len(argv) < 2 or argv[0] not in ("pick", "calibrate") or not all(isinstance(t, str) for t in argv):
        return None
    cmd, key, rest = argv[0], argv[1], argv[2:]
    if not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*", key):
        return None
    valued = _PICK_VALUED if cmd == "pick" else ()
    flags = _PICK_FLAGS if cmd == "pick" else ("--allow-unverified",)
    seen: set[str] = set()
    i = 0
    while i < len(rest):
        t = rest[i]
        name, eq, raw = t.partition("=")
        if t.startswith("-"):
            if name in seen:
                return None
            seen.add(name)
            if name in valued:
                if not eq:
                    if i + 1 >= len(rest):
                        return None
                    i, raw = i + 1, rest[i + 1]
                ok = re.fullmatch(_PLAIN_NUMBER, raw) or (name == "--lam" and raw in ("optimise", "paper"))
                if not ok or (name == "--lam" and raw not in ("optimise", "paper") and not math.isfinite(float(raw))):
                    return None                 # (--lam is read before the key: 1e999 is its own error)
            elif eq or name not in flags:
                return None
        elif eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and re.fullmatch(_PLAIN_NUMBER, raw):
            pass
        else:
            return None
        i += 1
    return cmd, key, not rest


def answer_prefix(doc: dict, bare: bool) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of a call on a paper or section from its entry (``_Unsure`` for a statement)."""
    if doc.get("unsupported"):
        raise _Unsure(doc["unsupported"])
    rc, out, err = doc["bare" if bare else "other"]
    return int(rc), out, err


def fast_prefix(argv: list[str]) -> int | None:
    """Answer ``pick``/``calibrate`` on a paper or section from the store (None: the sympy path answers)."""
    parsed = _parse_prefix(list(argv))
    if parsed is None or os.environ.get("DP_ERM_VERIFY_NUMERIC", "").strip().lower() in ("off", "0", "no"):
        return None
    cmd, key, bare = parsed
    if store_dir() is None:
        return None
    try:
        doc = read_entry(key, f"prefix-{cmd}", False, digest())
    except OSError:
        return None
    if doc is None:
        MISSED.append((key, f"prefix-{cmd}", False, list(argv)))
        return None
    try:
        rc, out, err = answer_prefix(doc, bare)
    except Exception:  # noqa: BLE001 - a statement, or an entry this code cannot read: the sympy path answers
        return None
    return _emit(rc, out, err)


def generate_prefix(cmd: str, key: str, argv: list[str] = ()) -> dict:
    """Build, verify and store the entry of ``cmd key`` for a paper or section ``key``: the listing (no other
    argument) and the one error of any other call, each from :func:`bounds.cli.main`; ``argv`` (the call that
    missed) and three other calls must give that error byte for byte, else the entry is unsupported."""
    from . import cli

    dig = digest()
    doc: dict[str, Any] = {"key": key, "which": f"prefix-{cmd}", "allow_unverified": False}
    if cli._prefix(key) is None:
        doc["unsupported"] = "a statement (or no known key), not a paper or section"
    else:
        bare = _run_cli([cmd, key])
        variants = [[cmd, key, "x=1"], [cmd, key, "--allow-unverified", "eps=0.5"]]
        if cmd == "pick":
            variants += [[cmd, key, "--m", "100", "kappa=2"], [cmd, key, "--target", "0.5", "--eps", "0.1", "--unit"]]
        if argv and _parse_prefix(list(argv)) is not None and len(argv) > 2:
            variants.insert(0, list(argv))
        outs = [_run_cli(v) for v in variants]
        one_error = outs[0][0] == 2 and outs[0][1] == "" and outs[0][2].startswith("error: unknown statement ") \
            and outs[0][2].count("\n") == 1
        if bare[0] != 0 or bare[2] != "" or not one_error or any(o != outs[0] for o in outs):
            doc["unsupported"] = "the answer is not the same error for every call"
        else:
            doc.update(bare=list(bare), other=list(outs[0]),
                       verified=f"the listing and {len(outs)} calls compared with the sympy path")
    if dig == digest():
        write_entry(doc, dig)
    return doc


def main(argv: list[str] | None = None) -> int:
    """``python -m bounds.numeric [KEY ...]``: generate the entries of every statement (or of ``KEY``s)."""
    import argparse

    import bounds

    ap = argparse.ArgumentParser(prog="python -m bounds.numeric", description=__doc__.splitlines()[0])
    ap.add_argument("keys", nargs="*", help="statements (default: every statement)")
    ap.add_argument("--calibrate", action="store_true",
                    help="the entries of `calibrate` (default: every mechanism statement) instead of `eval`'s")
    a = ap.parse_args(argv)
    reg = bounds.registry
    if a.calibrate:
        from . import calibrate as cal
        from . import pick

        with pick.using(reg):
            keys = a.keys or cal.mechanism_keys()
        return prefill([(k, "calibrate", lambda k=k: generate_calibrate(k, False, reg=reg)) for k in keys],
                       "calibrate entries")
    return prefill([(k, f"{which or 'default':<8}", lambda k=k, which=which: generate(k, which, False, reg=reg))
                    for k in (a.keys or reg.keys()) for which in (None, "stated", "derived")], "entries")


def prefill(jobs: list[tuple[str, str, Any]], what: str) -> int:
    """Build the store's entries ``jobs`` (statement, label, builder) one by one, a line each, then a count.

    One statement's failure does not stop the others (it is printed as unsupported); the builders' own
    output to stderr is dropped.  Returns the exit status 0.  Used by ``python -m bounds.numeric`` and
    ``python -m bounds.numeric_pick``.
    """
    import contextlib
    import io

    n_ok = 0
    for k, label, build in jobs:
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                doc = build()
        except Exception as exc:  # noqa: BLE001 - one statement's failure does not stop the others
            doc = {"unsupported": f"generation failed: {type(exc).__name__}: {exc}"}
        n_ok += not doc.get("unsupported")
        res = doc.get("verified") or doc.get("unsupported") or f"refused whatever the values: {doc.get('refusal')}"
        print(f"{k:<32} {label} {res}")
    print(f"{n_ok} of {len(jobs)} {what} answer numerically (store {store_dir()}/{digest()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
