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
  Python's version, ``pyproject.toml`` and the report's ``summary.json`` (the verdict reads it).
  Any change is a different directory: a stale entry is never read.  Each file carries the
  SHA-256 of its payload and its own key, checked on read (a bad file is a miss).
* **Generated** from the sympy path: after ``python -m bounds eval`` answered on the sympy path
  because the entry was missing, :func:`generate` builds the entry of that statement and form,
  then *verifies* it: the command is run on the sympy path (:func:`bounds.cli.main`) and on the
  numeric path at the call's own values and at 24 seeded points of the parameters' sampling
  ranges; the outputs must be equal byte for byte (stdout, stderr, status) wherever the numeric
  path answers, else the entry is stored as *unsupported* and that statement stays on sympy.
  ``python -m bounds.numeric [KEY ...]`` generates every statement's entries at once (without
  ``--allow-unverified``).  No entry is built where the store cannot be written.
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
    """The key of the store: the sources of ``bounds/`` (with the seeded simplify store's data), sympy's and mpmath's versions, Python's, the
    project's ``pyproject.toml`` and the report's ``summary.json`` (whose verdicts the answers print).

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
    for name, rel in (("sympy", "release.py"), ("mpmath", "__init__.py")):
        h.update(name.encode() + b"\0" + _file_bytes(_module_file(name, rel)) + b"\0")
    summary = os.path.join(_PROJECT, "reports", "summary.json")
    for p in (os.path.join(_PROJECT, "pyproject.toml"), summary):
        h.update(p.encode() + b"\0" + _file_bytes(p) + b"\0")
    return h.hexdigest()[:32]


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


def _parse(argv: list[str]) -> tuple[str, str | None, bool, list[tuple[str, str]]] | None:
    """``(key, which, allow_unverified, [(name, raw)])`` of a plain ``eval`` call, else None."""
    if len(argv) < 2 or argv[0] != "eval":
        return None
    key, flags, assigns = None, set(), []
    for t in argv[1:]:
        if not isinstance(t, str):
            return None
        if t in _FLAGS:
            if t in flags:
                return None
            flags.add(t)
        elif t.startswith("-"):
            return None
        elif "=" in t:
            name, _, raw = t.partition("=")
            assigns.append((name.strip(), raw))
        elif key is None:
            key = t
        else:
            return None
    if key is None or {"--stated", "--derived"} <= flags:
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


def fast_eval(argv: list[str]) -> int | None:
    """Answer ``eval`` from the numeric store: prints and returns 0, or returns None (nothing printed)
    where the sympy path must answer (see the module's notes)."""
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
    try:
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except BrokenPipeError:     # the reader closed the pipe (`| head`): stop quietly, as bounds.cli does
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 141
    if err:
        sys.stderr.write(err)
        sys.stderr.flush()
    return rc


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
        params = {}
        for n in ns:
            p = ns[n]
            params[n] = [None if p.lo == -math.inf else float(p.lo), None if p.hi == math.inf else float(p.hi),
                         bool(p.lo_open), bool(p.hi_open), bool(p.integer),
                         None if p.soft_hi is None else float(p.soft_hi)]
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
        cons = []
        for c in st.constraints:
            if type(c).__name__ not in _RELS:
                raise Unsupported("a joint assumption that is not one comparison")
            cons.append([_RELS[type(c).__name__], to_tree(c.lhs, name_of), to_tree(c.rhs, name_of)])
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
        answered, total, bad = verify_entry(doc, points)
        if bad:
            doc = {k: doc[k] for k in ("key", "which", "allow_unverified")}
            doc["unsupported"] = f"the numeric answer differs from the sympy path {bad}"
        else:
            doc["verified"] = f"{answered} of {total} points answered numerically, each equal to the sympy path"
    if dig == digest():               # the sources did not change meanwhile
        write_entry(doc, dig)
    return doc


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


def generate_missed() -> None:
    """After a call answered on the sympy path because its entry was missing: build that entry (only where the
    store can be written)."""
    if MISSED and not _writable(digest()):
        MISSED.clear()
        return
    while MISSED:
        key, which, au, assigns = MISSED.pop()
        try:
            vals = {k: float(r) for k, r in assigns}
            generate(key, which, au, extra=[vals])
        except Exception:  # noqa: BLE001 - the store is an optimisation: never fail the command for it
            pass


def main(argv: list[str] | None = None) -> int:
    """``python -m bounds.numeric [KEY ...]``: generate the entries of every statement (or of ``KEY``s)."""
    import argparse
    import contextlib
    import io

    import bounds

    ap = argparse.ArgumentParser(prog="python -m bounds.numeric", description=__doc__.splitlines()[0])
    ap.add_argument("keys", nargs="*", help="statements (default: every statement)")
    a = ap.parse_args(argv)
    reg = bounds.registry
    keys = a.keys or reg.keys()
    n_ok = 0
    for k in keys:
        for which in (None, "stated", "derived"):
            try:
                with contextlib.redirect_stderr(io.StringIO()):
                    doc = generate(k, which, False, reg=reg)
            except Exception as exc:  # noqa: BLE001 - one statement's failure does not stop the others
                doc = {"unsupported": f"generation failed: {type(exc).__name__}: {exc}"}
            n_ok += not doc.get("unsupported")
            what = doc.get("verified") or doc.get("unsupported") or f"refused whatever the values: {doc.get('refusal')}"
            print(f"{k:<32} {which or 'default':<8} {what}")
    print(f"{n_ok} of {3 * len(keys)} entries answer numerically (store {store_dir()}/{digest()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
