"""Validators shared by the public entry points: :func:`bounds.value`, :mod:`bounds.pick`, the CLI.

Every check raises a :class:`ValueError` whose message names the offending parameter, the
statement and the violated assumption, so that the command line can print it as one line.
An unknown statement key raises :class:`UnknownKeyError`, a :class:`ValueError` that is also a
:class:`KeyError` (what a lookup in the registry has always raised), with close matches.

Results are checked too: a value that is infinite, undefined or beyond the floating-point range
(overflow) is an error that says so, never a number; a result below it rounds to 0.0 as usual.

Examples
--------
>>> from bounds.validation import real, suggest
>>> real("eps", 0.5, "statement jia.thm4.bound (Theorem 4)")
0.5
>>> real("eps", "0.5", "statement jia.thm4.bound (Theorem 4)")
Traceback (most recent call last):
...
ValueError: parameter 'eps' = '0.5' is not a real number (statement jia.thm4.bound (Theorem 4))
>>> suggest("jia.thm44", ["jia.thm4", "jia.thm4.bound", "jamp.thm2"])
'; did you mean jia.thm4, jia.thm4.bound, jamp.thm2?'
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: characters :meth:`str.splitlines` breaks on: escaped so that an error message stays one line
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


class UnknownKeyError(ValueError, KeyError):
    """An unknown statement key (or a key that is not a string).

    A :class:`ValueError` for the public entry points and a :class:`KeyError` (hence a
    :class:`LookupError`) for code that looks statements up.  ``str()`` is the plain message.

    Examples
    --------
    >>> err = UnknownKeyError("unknown statement 'x'")
    >>> isinstance(err, ValueError) and isinstance(err, KeyError), str(err)
    (True, "unknown statement 'x'")
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def one_line(text: str) -> str:
    """``text`` with its line breaks escaped, so that it prints as exactly one line.

    Examples
    --------
    >>> one_line("a\\nb")
    'a\\\\nb'
    """
    out = str(text)
    for ch in _LINE_BREAKS:
        if ch in out:
            out = out.replace(ch, repr(ch)[1:-1])
    return out


def short(value: Any, n: int = 40) -> str:
    """``repr(value)`` shortened to ``n`` characters (a 400-digit integer stays readable).

    Examples
    --------
    >>> short(10**60)
    '100000000000000000000000000000000000000…'
    """
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= n else text[: n - 1] + "…"


def suggest(name: str, known: Iterable[str], n: int = 5) -> str:
    """``"; did you mean a, b?"`` with the close matches of ``name`` in ``known`` (or ``""``).

    Close means under ``name`` (``name.`` starts it: a paper or a section), containing ``name``, or similar
    spelling (:func:`difflib.get_close_matches`), in that order.  The keys under a prefix are all named
    (up to 12, however small ``n``), so that a section's valid key is never cut off by its siblings.

    Examples
    --------
    >>> suggest("jia.s5_2", ["jia.s5_20", "jia.s5_2.a", "jia.s5_2.b", "jia.s5_2.c"], n=2)
    '; did you mean jia.s5_2.a, jia.s5_2.b, jia.s5_2.c?'
    """
    if not isinstance(name, str) or not name:
        return ""
    known = [k for k in known if isinstance(k, str)]
    under = [k for k in known if k.startswith(name + ".")]
    close = under + [k for k in known if name.lower() in k.lower() and k not in under]
    close += [k for k in difflib.get_close_matches(name, known, n=n, cutoff=0.6) if k not in close]
    limit = max(n, min(len(under), 12))
    return f"; did you mean {', '.join(close[:limit])}?" if close else ""


def unknown_key(key: Any, known: Iterable[str]) -> UnknownKeyError:
    """The error for a statement key that is not registered (or not a string).

    Examples
    --------
    >>> str(unknown_key("jia.thm", ["jia.thm1", "jia.thm2", "jamp.thm2"]))
    "unknown statement 'jia.thm'; did you mean jia.thm1, jia.thm2, jamp.thm2?"
    >>> str(unknown_key(123, ["jia.thm1"]))
    "statement key must be a string such as 'jia.thm2', not int 123"
    """
    if not isinstance(key, str):
        return UnknownKeyError(f"statement key must be a string such as 'jia.thm2', not "
                               f"{type(key).__name__} {short(key)}")
    return UnknownKeyError(f"unknown statement {short(key, 80)}{suggest(key, known)}")


def missing_parameters(missing: Iterable[tuple[str, str]], where: str) -> ValueError:
    """The one error for every parameter a statement needs and was not given (all named at once).

    Shared by :func:`bounds.core.validate` (``bounds.value``, ``eval``, ``calibrate``, the pickers'
    constants) and the paper's schedules in :mod:`bounds.pick`, so that a user learns every missing
    constant from one message, not one per attempt.

    Parameters
    ----------
    missing : iterable of (name, assumption)
        The missing parameters with the text of their domain (``"0 < C_L"``), in the order to name them.
    where : str
        What needs them, for the message (``"statement jia.thm2 (Theorem 2)"``).

    Examples
    --------
    >>> str(missing_parameters([("C_L", "0 < C_L")], "statement jia.thm2 (Theorem 2)"))
    "parameter 'C_L' is missing for statement jia.thm2 (Theorem 2); assumption: 0 < C_L"
    >>> str(missing_parameters([("C_L", "0 < C_L"), ("gamma", "0 < gamma")], "statement jia.thm2 (Theorem 2)"))
    "parameters 'C_L', 'gamma' are missing for statement jia.thm2 (Theorem 2); assumptions: 0 < C_L; 0 < gamma"
    """
    items = list(missing)
    if not items:
        raise ValueError("parameter 'missing' must name at least one parameter (missing_parameters)")
    names = ", ".join(repr(n) for n, _ in items)
    domains = "; ".join(d for _, d in items if d)
    if len(items) == 1:
        return ValueError(f"parameter {names} is missing for {where}" + (f"; assumption: {domains}" if domains else ""))
    return ValueError(f"parameters {names} are missing for {where}" + (f"; assumptions: {domains}" if domains else ""))


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def real(name: str, raw: Any, where: str) -> float:
    """``raw`` as a float, or a ValueError naming ``name`` (not NaN-, infinity- or domain-checked).

    Strings, booleans, complex numbers and None are refused (``"1"`` and ``True`` are not
    numbers here); an integer too large for a float is an overflow error.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    raw : object
        The value given.
    where : str
        The statement, for the message (``"statement jia.thm2 (Theorem 2)"``).

    Examples
    --------
    >>> real("m", 10**400, "statement jia.thm2 (Theorem 2)")
    Traceback (most recent call last):
    ...
    ValueError: parameter 'm' = 100000000000000000000000000000000000000… is too large for a float (statement jia.thm2 (Theorem 2))
    """
    if raw is None or isinstance(raw, (str, bytes, complex)) or _is_bool(raw):
        raise ValueError(f"parameter {name!r} = {short(raw)} is not a real number ({where})")
    try:
        return float(raw)
    except OverflowError:
        raise ValueError(f"parameter {name!r} = {short(raw)} is too large for a float ({where})") from None
    except (TypeError, ValueError):
        raise ValueError(f"parameter {name!r} = {short(raw)} is not a real number ({where})") from None


def positive_finite(name: str, raw: Any, where: str) -> float:
    """``raw`` as a positive finite float (a target, a limit), else a ValueError naming ``name``.

    Examples
    --------
    >>> positive_finite("target", float("nan"), "statement jia.thm4.bound (Theorem 4)")
    Traceback (most recent call last):
    ...
    ValueError: parameter 'target' = nan must be a positive finite number (statement jia.thm4.bound (Theorem 4))
    """
    v = real(name, raw, where)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"parameter {name!r} = {short(raw)} must be a positive finite number ({where})")
    return v


def num(value: Any) -> str:
    """A number for a message: 6 significant digits, or the exact repr for a subnormal float.

    Examples
    --------
    >>> num(100.0), num(1e-320), num(0.123456789)
    ('100', '1e-320', '0.123457')
    """
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return short(value)
    return repr(v) if v != 0 and abs(v) < 2.2250738585072014e-308 else f"{v:.6g}"


def fmt_point(values: Mapping[str, Any]) -> str:
    """``"lam=1e-320, m=100"``: the inputs of an evaluation, for a message."""
    return ", ".join(f"{k}={num(v)}" for k, v in values.items())


def extremeness(value: float) -> float:
    """How far ``value`` is from 1 in decades (0 for 0 and for non-numbers)."""
    try:
        v = abs(float(value))
    except (TypeError, ValueError, OverflowError):
        return 0.0
    if v == 0 or not math.isfinite(v):
        return math.inf if not math.isfinite(v) else 0.0
    return abs(math.log10(v))


def culprits(finite_at: Callable[[dict[str, float]], bool], values: Mapping[str, float],
             moderate: Callable[[str], float | None]) -> list[str]:
    """The inputs that alone make an evaluation non-finite (replacing one by a moderate value fixes it).

    Falls back to the most extreme input (farthest from 1 in decades) when no single
    replacement helps, so the list is never empty when ``values`` is not.

    Parameters
    ----------
    finite_at : callable
        ``finite_at(values)``: whether the evaluation at ``values`` gives a finite, representable number.
    values : mapping
        The inputs of the failed evaluation.
    moderate : callable
        ``moderate(name)``: an admissible, moderate value of ``name`` (None: do not try it).

    Examples
    --------
    >>> f = lambda v: v["lam"] > 1e-300
    >>> culprits(f, {"lam": 1e-320, "m": 100.0}, lambda n: 1.0)
    ['lam']
    """
    out = []
    for name, v in values.items():
        alt = moderate(name)
        if alt is None or alt == v:
            continue
        trial = dict(values)
        trial[name] = alt
        try:
            if finite_at(trial):
                out.append(name)
        except Exception:  # noqa: BLE001 - a diagnostic only
            continue
    if not out and values:
        out = [max(values, key=lambda k: extremeness(values[k]))]
    return out


def magnitude(x: Any) -> str:
    """A short text for the size of a sympy number too large or small for a float (``about 1e+319``).

    Examples
    --------
    >>> import sympy as sp
    >>> magnitude(sp.Float("2e319"))
    'about 2e+319'
    >>> magnitude(sp.exp(sp.Float(1e300)).evalf())
    'about 10^(4.343e+299)'
    """
    try:
        import mpmath

        mp = mpmath.mpf(x._mpf_) if hasattr(x, "_mpf_") else mpmath.mpf(x)
        if mp == 0:
            return "0"
        e = float(mpmath.log10(abs(mp)))
        if abs(e) < 1e5:
            mant = float(abs(mp) / mpmath.power(10, math.floor(e)))
            return f"about {'-' if mp < 0 else ''}{mant:.3g}e{math.floor(e):+d}"
        return f"about {'-' if mp < 0 else ''}10^({e:.4g})"
    except Exception:  # noqa: BLE001 - a message detail only
        return "out of range"
