"""Fuzzing the public entry points: ``python -m bounds`` (in process), :mod:`bounds.pick`, :func:`bounds.value`.

Every input either gives an answer that is finite and inside the statement's domain, or a bad-input
error: exit status 2 with exactly one line on stderr for the command line, a ValueError that names
the offending parameter for the Python API.  Anything else (a traceback, another exit status, an
``inf``/``nan`` printed with status 0, a second stderr line) fails.  The regression tests below
pin each problem of issue 14.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import re
import subprocess
import sys
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import bounds
from bounds import pick
from bounds.cli import main
from bounds.validation import UnknownKeyError

ROOT = Path(__file__).resolve().parents[1]
REG = bounds.registry
KEYS = REG.keys()
PICKABLE = pick.pickable_keys()
#: rate statements built on a pickable bound (``jia.thm4`` → ``jia.thm4.bound``)
RATES = []
for _k in KEYS:
    with contextlib.suppress(ValueError):
        if not REG.get(_k).schedule and pick.pickable(_k):
            RATES.append(_k)
#: each pickable statement's constants, as its paper declares them for the report's table
PICK_CONSTS = {k: dict(c) for p in bounds.PAPERS.values() for k, c in p.pick.items()}
BAD_KEYS = ["no.such.key", "jia.thm", "jia.thm44", "", "jia", "JIA.THM4", "jia.thm4 ", "a\nb", "../x.y"]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: numbers as typed on a command line: valid, boundary, extreme, non-finite and not numbers at all
NUM_TOKENS = ["-0", "0", "-1", "-10", "1e-320", "1e300", "1e400", "-1e5", "nan", "inf", "-inf", "abc", "",
              "0.5", "1", "2", "3.5", "100", "10000", "0.1", "0.01", "1e-9", "0x10", "1_000", "True", " 7 "]
num_token = st.one_of(st.sampled_from(NUM_TOKENS), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                      st.integers(-10**6, 10**9).map(str))
def mostly(good, bad, k: int = 3):
    """``good`` about k times out of k + 1, else ``bad`` (keeps most examples on the valid path)."""
    return st.integers(0, k).flatmap(lambda i: bad if i == k else good)


#: Python values for a numeric parameter: valid, boundary, extreme, non-finite and of the wrong type
BAD_VALUES = [-1.0, 0.0, -0.0, math.nan, math.inf, -math.inf, 1e-320, 1e300, "1", True, None, 10**400, 1 + 1j, 2.5]
py_value = st.one_of(st.sampled_from(BAD_VALUES), st.floats(allow_nan=True, allow_infinity=True),
                     st.integers(-5, 10**9))


# --------------------------------------------------------------------------- helpers
def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in process: (status, stdout, stderr); any exception but SystemExit propagates."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
    return rc, out.getvalue(), err.getvalue()


def assert_bad_input_or_ok(rc: int, out: str, err: str, numbers: bool = True) -> None:
    """The command-line contract: 0 with no non-finite number printed, or 2 with one stderr line.

    ``numbers=False`` for the subcommands that print text (a statement's doc may say "inf ℓ''").
    """
    event(f"exit {rc}")
    if rc == 2:
        lines = err.split("\n")
        assert len([ln for ln in lines if ln]) == 1 and err.endswith("\n") and err.count("\n") == 1, err
        assert err.startswith("error: ") and "Traceback" not in err, err
        assert out == "", out
        return
    assert rc == 0, (rc, out, err)
    assert all(ln.startswith("warning: ") for ln in err.splitlines()), err
    if numbers:
        assert not re.search(r"(?<![\w.])-?(nan|inf|infinity)(?![\w])", out, flags=re.I), out


def no_nonfinite(text: str) -> object:
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"non-finite {c} in JSON output"))


def names_one_of(msg: str, names) -> bool:
    return any(f"'{n}'" in msg for n in names)


def needed(key: str, which: str = "derived") -> list[str] | None:
    """The parameters an evaluation of ``key`` needs (None: no expression)."""
    s = REG.get(key)
    expr = s.stated if which == "stated" else REG.evaluate(key).expression
    if expr is None:
        return None
    return sorted(s.ns.by_symbol(x).name for x in s.ns.known(expr.free_symbols))


_CAND = [1.0, 2.0, 0.5, 10.0, 0.75, 0.25, 100.0, 0.1, 0.9, 3.0]


@cache
def base(key: str) -> dict[str, float] | None:
    """A valid assignment of ``key``'s parameters (a seeded search over moderate values), or None."""
    s = REG.get(key)
    names = needed(key)
    if names is None:
        return None
    rng = random.Random(key)
    for i in range(80):
        vals = {}
        for n in names:
            ok = [c for c in _CAND if s.ns[n].contains(c)] or [1.0]
            vals[n] = ok[0] if i == 0 else rng.choice(ok)
        try:
            REG.value(key, vals, warn=False)
        except ValueError:
            continue
        return vals
    return None


@cache
def nonnegative(key: str) -> bool:
    expr = REG.evaluate(key).expression
    return bool(expr is not None and expr.is_nonnegative)


def _fmt(v: float) -> str:
    return repr(float(v)) if isinstance(v, float) else str(v)


# --------------------------------------------------------------------------- (a) the command line
@st.composite
def eval_argv(draw) -> list[str]:
    key = draw(mostly(st.sampled_from(KEYS), st.sampled_from(BAD_KEYS)))
    vals = dict(base(key) or {}) if key in REG else {"m": 100.0}
    toks = [f"{k}={_fmt(v)}" for k, v in vals.items()]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        kind = draw(st.sampled_from(["value", "drop", "repeat", "unknown", "option"]))
        if kind == "value" and vals:
            name = draw(st.sampled_from(sorted(vals)))
            toks = [t for t in toks if not t.startswith(name + "=")] + [f"{name}={draw(num_token)}"]
        elif kind == "drop" and toks:
            toks.pop(draw(st.integers(0, len(toks) - 1)))
        elif kind == "repeat" and toks:
            toks.append(draw(st.sampled_from(toks)))
        elif kind == "unknown":
            toks.append(draw(st.sampled_from(["foo=1", "eps=0.5", "=3", "lamda=0.1", "x", "m==3"])))
        else:
            toks.append(draw(st.sampled_from(["--stated", "--repr", "--foo", "--json", "-x=3", "--stated"])))
    return ["eval", key, *draw(st.permutations(toks))]


@FUZZ
@given(argv=eval_argv())
def test_fuzz_cli_eval(argv: list[str]) -> None:
    rc, out, err = run_cli(argv)
    assert_bad_input_or_ok(rc, out, err)
    if rc == 0:
        # the value, then the statement, the form used and its verdict (issue 24); --json: the same as JSON
        if "--json" in argv:
            d = no_nonfinite(out)
            v, form = float(d["value"]), d["form"]
        else:
            v = float(out.splitlines()[0])
            form = re.search(r", (stated|derived) form;", out).group(1)
        assert math.isfinite(v)
        key = argv[1]
        if nonnegative(key) and "--stated" not in argv:
            assert v >= 0
        if "--stated" in argv:
            assert form == "stated"
        vals = dict(t.split("=", 1) for t in argv[2:] if "=" in t and not t.startswith("-"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = REG.value(key, {k: float(x) for k, x in vals.items()}, which=form)
        assert v == pytest.approx(want, rel=1e-9, abs=0)      # the CLI prints what the API computes


@st.composite
def pick_argv(draw) -> list[str]:
    key = draw(mostly(st.sampled_from(PICKABLE + RATES), st.sampled_from([*BAD_KEYS, "jia.thm2"])))
    st_key = pick.pickable(key).key if key in PICKABLE + RATES else None
    consts = dict(PICK_CONSTS.get(st_key, {}))
    toks = [f"{k}={_fmt(v)}" for k, v in consts.items()]
    opts: list[str] = []
    target = draw(mostly(st.none(), st.sampled_from(["0.5", "1", "3", "3", "1e-300", "-1", "nan"]), k=4))
    if target is not None:
        opts += ["--target", target]
        if "eps=" not in " ".join(toks) and draw(st.booleans()):
            opts += ["--eps", draw(st.sampled_from(["0.1", "0.5", "0", "-1", "1e300", "nan", "2"]))]
        else:
            opts += ["--m", draw(st.sampled_from(["100000", "1e300", "-5"]))]
        opts += draw(st.sampled_from([[], [], [], ["--lam", "paper"], ["--lam", "0.01"], ["--lam", "-1"]]))
    else:
        if draw(st.integers(0, 9)):
            opts += ["--m", draw(mostly(st.sampled_from(["100", "10000", "1e6", "2", "1e300"]), num_token))]
        if draw(st.integers(0, 3)) == 0:
            opts += ["--eps", draw(mostly(st.sampled_from(["0.1", "0.5", "0.01", "2"]), num_token, k=2))]
        if draw(st.integers(0, 3)) == 0:
            opts += ["--lam", draw(mostly(st.sampled_from(["optimise", "0.01", "0.5"]),
                                          st.one_of(st.sampled_from(["paper", "foo"]), num_token), k=2))]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        kind = draw(st.sampled_from(["const", "drop", "repeat", "unknown", "option"]))
        if kind == "const" and consts:
            name = draw(st.sampled_from(sorted(consts)))
            toks = [t for t in toks if not t.startswith(name + "=")] + [f"{name}={draw(num_token)}"]
        elif kind == "drop" and toks:
            toks.pop(draw(st.integers(0, len(toks) - 1)))
        elif kind == "repeat" and toks:
            toks.append(draw(st.sampled_from(toks)))
        elif kind == "unknown":
            toks.append(draw(st.sampled_from(["foo=1", "m=100", "lam=0.1", "gamma=2", "eps=0.3"])))
        else:
            opts += draw(st.sampled_from([["--unit"], ["--json"], ["--foo"], ["--m", "7"], ["--unit"], ["--target"]]))
    return ["pick", key, *opts, *toks]


def check_pick_output(argv: list[str], out: str) -> None:
    if "--json" in argv:
        d = no_nonfinite(out)
        rows = [d] if "query" in d else [d["paper"], d["optimised"]]
        for r in rows:
            for name in ("bound", "eps", "lam"):
                if r.get(name) is not None and not isinstance(r[name], str):
                    assert math.isfinite(r[name]) and r[name] > 0, (name, r)
            if "query" in d:
                assert (d["m"] >= 2 and float(d["m"]).is_integer()) if d["query"] == "min_m" else 0 < d["eps"] < 1
        return
    if " query=" in out:
        fields = dict(t.split("=", 1) for t in out.split())
        if fields["query"] == "min_m":
            assert int(fields["m"]) >= 2
        else:
            assert 0 < float(fields["eps"]) < 1
        return
    nums = re.findall(r"(eps|lambda|bound) = ([^\s;,)]+)", out)
    assert len(nums) >= 4, out
    for name, text in nums:
        if text != "—":
            v = float(text)
            assert math.isfinite(v) and v > 0, (name, text)
    m = re.search(r"improvement factor \(paper / optimised\) = (\S+)", out)
    if m:
        assert float(m.group(1)) >= 1 - 1e-3


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=pick_argv())
def test_fuzz_cli_pick(argv: list[str]) -> None:
    rc, out, err = run_cli(argv)
    assert_bad_input_or_ok(rc, out, err)
    if rc == 0:
        check_pick_output(argv, out)


@st.composite
def other_argv(draw) -> list[str]:
    cmd = draw(st.sampled_from(["show", "list", "papers", "eval", "pick", "nosuch", "--json", ""]))
    argv = [cmd]
    if cmd in ("show", "eval", "pick"):
        argv.append(draw(st.one_of(st.sampled_from(KEYS), st.sampled_from(BAD_KEYS))))
    extra = ["--json", "--paper", "jia", "xyz", "--status", "erratum", "bogus", "--reports", "/nonexistent/dir",
             str(ROOT / "reports"), "--foo", "m=3", "--", "-1", "--json"]
    argv += draw(st.lists(st.sampled_from(extra), max_size=3))
    return argv


@FUZZ
@given(argv=other_argv())
def test_fuzz_cli_other_subcommands(argv: list[str]) -> None:
    rc, out, err = run_cli(argv)
    assert_bad_input_or_ok(rc, out, err, numbers=False)


# --------------------------------------------------------------------------- (b) the Python API
@st.composite
def value_call(draw):
    key = draw(mostly(st.sampled_from(KEYS), st.one_of(st.sampled_from(BAD_KEYS), st.sampled_from([123, None, 1.5])), k=5))
    vals: dict = dict(base(key) or {}) if isinstance(key, str) and key in REG else {"m": 100.0}
    bad_name = None
    kind = draw(st.sampled_from(["none", "none", "value", "value", "value", "drop", "unknown"]))
    if kind == "value" and vals:
        bad_name = draw(st.sampled_from(sorted(vals)))
        vals[bad_name] = draw(py_value)
    elif kind == "drop" and vals:
        bad_name = draw(st.sampled_from(sorted(vals)))
        del vals[bad_name]
    elif kind == "unknown":
        bad_name = draw(st.sampled_from(["foo", "lamda", "eps", "m"]))
        vals[bad_name] = 1.0
    # None: the form for numbers (the derived one for an erratum); "derived": the derived form or an error
    which = draw(st.sampled_from([None, None, "derived", "stated", "x"]))
    return key, vals, which, kind, bad_name


def _plainly_invalid(s, name: str, v) -> bool:
    """Whether ``v`` is not an admissible value of parameter ``name`` by its domain alone."""
    if v is None or isinstance(v, (str, bool, complex)):
        return True
    try:
        f = float(v)
    except OverflowError:
        return True
    return s.ns[name].violation(f) is not None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=value_call())
def test_fuzz_value(call) -> None:
    key, vals, which, kind, bad_name = call
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            v = bounds.value(key, vals, which=which)
        except ValueError as exc:
            msg = str(exc)
            event("ValueError")
            if not isinstance(key, str) or key not in REG:
                assert isinstance(exc, UnknownKeyError) and "statement" in msg
                return
            assert key in msg or names_one_of(msg, vals), msg
            if which == "x":
                assert "'which'" in msg
                return
            if which == "derived" and REG.evaluate(key).derived is None:
                assert "no derived form" in msg, msg
                return
            s = REG.get(key)
            if kind == "value" and bad_name and which is None and _plainly_invalid(s, bad_name, vals[bad_name]):
                assert f"'{bad_name}'" in msg, msg                # the parameter at fault is named
            if kind in ("drop", "unknown") and base(key) is not None:
                assert names_one_of(msg, [bad_name, *vals]), msg
            if kind == "none" and base(key) is not None and which is None:
                pytest.fail(f"a valid assignment was refused: {msg}")
            return
    assert isinstance(v, float) and math.isfinite(v), v
    assert which in (None, "derived", "stated") and isinstance(key, str)
    if which is None and nonnegative(key):
        assert v >= 0
    if kind == "value" and bad_name is not None:
        assert not _plainly_invalid(REG.get(key), bad_name, vals[bad_name])     # never accepted silently


@st.composite
def pick_call(draw):
    key = draw(mostly(st.sampled_from(PICKABLE + RATES), st.sampled_from(["jia.thm2", "no.such", "jia.thm"]), k=5))
    st_key = pick.pickable(key).key if key in PICKABLE + RATES else "jia.thm4.bound"
    consts = dict(PICK_CONSTS[st_key])
    m = draw(mostly(st.one_of(st.integers(2, 10**8), st.sampled_from([10_000, 1e300, 2, 1e6])),
                    st.sampled_from([2.5, 1, 0, -10, math.nan, math.inf, "100", True, 10**400])))
    kind = draw(st.sampled_from(["none", "none", "none", "const", "eps", "lam", "drop", "unknown"]))
    bad = None
    if kind == "const":
        bad = draw(st.sampled_from(sorted(consts)))
        consts[bad] = draw(py_value)
    elif kind in ("eps", "lam"):
        bad = kind
        consts[kind] = draw(mostly(st.floats(1e-6, 0.99), py_value, k=2))
    elif kind == "drop":
        bad = draw(st.sampled_from(sorted(consts)))
        del consts[bad]
    elif kind == "unknown":
        bad = draw(st.sampled_from(["foo", "delta", "t"]))
        consts[bad] = 1.0
    return key, m, consts, bad


def _pick_error_ok(exc: ValueError, key, inputs, bad=None) -> None:
    """A pick's error names an input (or the dropped constant ``bad``), or the unknown key."""
    msg = str(exc)
    event("ValueError")
    if key not in PICKABLE + RATES:
        assert key in msg or "statement" in msg, msg
        return
    if isinstance(exc, pick.UnverifiedError):     # a form that is not established (the stated form of a wrong bound)
        assert "no form of it is established" in msg, msg
        return
    assert names_one_of(msg, [*inputs, bad, "m", "over", "which", "target", "m_max"]), msg


@FUZZ
@given(call=pick_call(), over=st.sampled_from([None, None, None, None, "eps", "lam", ("eps", "lam"), ("m",), 3]),
       which=st.sampled_from(["derived", "derived", "derived", "stated", "foo"]))
def test_fuzz_optimise_and_paper_schedule(call, over, which) -> None:
    key, m, consts, bad = call
    for fn, kw in ((pick.paper_schedule, {}), (pick.optimise, {"over": over})):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)   # no numeric noise from valid or invalid input
            warnings.simplefilter("ignore", bounds.core.PrivacyWarning)
            try:
                p = fn(key, m, which=which, **kw, **dict(consts))
            except ValueError as exc:
                _pick_error_ok(exc, key, consts, bad)
                continue
        assert key in PICKABLE + RATES and which in ("derived", "stated")
        assert math.isfinite(p.bound) and p.bound > 0
        assert math.isfinite(p.eps) and p.eps > 0
        assert p.lam is None or (math.isfinite(p.lam) and p.lam > 0)
        for n in ("eps", "lam"):
            if n in consts and consts[n] is not None:
                assert getattr(p, n) == float(consts[n])         # a given ε or λ is kept, never ignored
        if fn is pick.optimise:
            if "eps" not in consts or consts["eps"] is None:
                assert p.eps < 1 or "already optimal" in p.note      # the search stays below 1
            if p.paper_bound is not None:
                assert p.bound <= p.paper_bound * (1 + 1e-12)
                assert p.improvement is not None and math.isfinite(p.improvement) and p.improvement >= 1 - 1e-12
        if p.bound_stated is not None:
            assert math.isfinite(p.bound_stated)


@FUZZ
@given(call=pick_call(), eps=mostly(st.floats(1e-4, 0.99), py_value),
       lam=mostly(st.one_of(st.sampled_from(["optimise", "paper"]), st.floats(1e-6, 1.0)),
                  st.one_of(st.sampled_from(["foo", None]), py_value)))
def test_fuzz_value_at(call, eps, lam) -> None:
    key, m, consts, bad = call
    consts.pop("eps", None)
    consts.pop("lam", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bounds.core.PrivacyWarning)
        try:
            v = pick.value_at(key, m, eps, lam=lam, **consts)
        except ValueError as exc:
            _pick_error_ok(exc, key, {**consts, "eps": eps, "lam": lam}, bad)
            return
    assert math.isfinite(v) and v > 0
    assert isinstance(eps, (int, float)) and not isinstance(eps, bool) and eps > 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=pick_call(),
       target=mostly(st.sampled_from([0.5, 1.0, 3.0, 10.0]), st.sampled_from([1e-300, 0.0, -1.0, math.nan, math.inf, True])),
       eps=mostly(st.sampled_from([0.1, 0.5, 0.9, 2.0]), st.sampled_from([0.0, -1.0, math.nan, 1e300, "0.1"])),
       lam=mostly(st.sampled_from(["optimise", "paper", 0.01, 0.3]), st.sampled_from([-1.0, 2.0, "foo", None])),
       m_max=mostly(st.sampled_from([1e12, 1e6]), st.sampled_from([1.0, math.nan, -5])))
def test_fuzz_min_m(call, target, eps, lam, m_max) -> None:
    key, _, consts, bad = call
    consts.pop("eps", None)
    consts.pop("lam", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bounds.core.PrivacyWarning)
        try:
            n = pick.min_m(key, target, eps=eps, lam=lam, m_max=m_max, **consts)
        except ValueError as exc:
            _pick_error_ok(exc, key, {**consts, "eps": eps, "lam": lam}, bad)
            return
        assert isinstance(n, int) and 2 <= n <= m_max
        assert pick.value_at(key, n, eps, lam=lam, **consts) <= target          # the boundary it claims
        if n > 2:
            assert pick.value_at(key, n - 1, eps, lam=lam, **consts) > target


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=pick_call(),
       target=mostly(st.sampled_from([0.5, 1.0, 3.0, 10.0]), st.sampled_from([1e-300, -1.0, math.nan])),
       lam=mostly(st.sampled_from(["paper", 0.01, 0.1, "optimise"]), st.sampled_from([-1.0, 2.0, "foo"])))
def test_fuzz_min_eps(call, target, lam) -> None:
    key, m, consts, bad = call
    consts.pop("eps", None)
    consts.pop("lam", None)
    if lam == "optimise" and m not in (10_000,):       # about 1 s a call: sampled, not swept
        lam = "paper"
    try:
        e = pick.min_eps(key, target, m=m, lam=lam, **consts)
    except ValueError as exc:
        _pick_error_ok(exc, key, {**consts, "lam": lam}, bad)
        return
    assert 0 < e < 1
    assert pick.value_at(key, m, e, lam=lam, **consts) <= target


@FUZZ
@given(call=pick_call(),
       eps=st.lists(mostly(st.floats(1e-4, 1.0), st.sampled_from([0.0, -0.5, math.nan, math.inf, 1e300]), k=8),
                    max_size=4),
       lam=st.lists(mostly(st.floats(1e-6, 1.0), st.sampled_from([0.0, -0.5, math.nan, 2.0, 1e-320]), k=8),
                    max_size=4))
def test_fuzz_bound_grid(call, eps, lam) -> None:
    key, m, consts, bad = call
    consts.pop("eps", None)
    consts.pop("lam", None)
    try:
        g = pick.bound_grid(key, m, np.array(eps, dtype=float), np.array(lam, dtype=float), **consts)
    except ValueError as exc:
        _pick_error_ok(exc, key, {**consts, "eps": eps, "lam": lam}, bad)
        return
    assert g.shape == (len(lam), len(eps))
    assert not np.isnan(g).any() and (g > 0).all()          # a bound, or inf where it overflows


# --------------------------------------------------------------------------- regressions of issue 14
JIA = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
THM2 = ["kappa=1", "C_L=1", "gamma=2", "m=100"]


def test_optimise_negative_eps_is_an_error_without_warnings() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match=r"'eps' = -0\.1 violates the assumption eps > 0 of statement jia\.thm4"):
            pick.optimise("jia.thm4", m=10000, eps=-0.1, **JIA)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("eps", [0, -1, math.nan, math.inf])
def test_zero_negative_nan_eps_are_errors(eps) -> None:
    with pytest.raises(ValueError, match="'eps'"):
        pick.optimise("jia.thm4", m=10000, eps=eps, **JIA)
    with pytest.raises(ValueError, match="'eps'"):
        pick.min_m("jia.thm4", 3.0, eps=eps, **JIA)


def test_cli_lam_is_used_or_refused() -> None:
    rc, out, err = run_cli(["pick", "jia.thm4", "--m", "10000", "--lam", "-1", "--unit", "beta=0.5"])
    assert rc == 2 and "'lam'" in err and "lam > 0" in err
    rc, out, err = run_cli(["pick", "jia.thm4", "--m", "10000", "--lam", "0.05", "--unit", "beta=0.5"])
    assert rc == 0, err
    assert re.findall(r"(?:paper|optimised) +eps = \S+ +lambda = (\S+)", out) == ["0.05", "0.05"]  # both rows
    rc, _, err = run_cli(["pick", "jia.thm4", "--m", "10000", "--lam", "paper", "--unit", "beta=0.5"])
    assert rc == 2 and "--target" in err


def test_cli_eval_overflow_is_reported_not_printed() -> None:
    rc, out, err = run_cli(["eval", "jia.thm2", *THM2, "lam=1e-320"])
    assert rc == 2 and out == "" and "overflow" in err and "'lam' = 1e-320" in err
    with pytest.raises(ValueError, match="overflow.*'lam'"):
        bounds.value("jia.thm2", kappa=1, C_L=1, gamma=2, m=100, lam=1e-320)


def test_cli_repeated_parameter_and_option_are_refused() -> None:
    rc, _, err = run_cli(["eval", "jia.thm2", *THM2, "lam=0.1", "m=200"])
    assert rc == 2 and "'m' is given twice" in err
    rc, _, err = run_cli(["pick", "jia.thm4", "--m", "100", "--m", "200", "--unit", "beta=0.5"])
    assert rc == 2 and "given twice" in err


@pytest.mark.parametrize("m", ["-10", "0", "2.5", "nan", "1e400"])
def test_cli_pick_bad_m_is_one_line(m) -> None:
    rc, out, err = run_cli(["pick", "jia.thm4", "--m", m, "--unit", "beta=0.5"])
    assert rc == 2 and out == "" and err.count("\n") == 1 and "'m'" in err


def test_cli_pick_extreme_but_valid_m_and_eps() -> None:
    # float arithmetic underflows in an intermediate step (ε·λ·m), the bound itself is finite
    rc, out, err = run_cli(["pick", "jia.thm4", "--m", "1e300", "--eps", "1e-300", "--unit", "beta=0.5"])
    assert rc == 0, err
    check_pick_output(["pick"], out)
    paper = float(re.search(r"paper .* bound = (\S+)", out).group(1))
    assert paper == pytest.approx(2e150, rel=1e-6)     # 1/(ε γ λ m) + … = 1/(1e-300·1·1e-150·1e300)·2


def test_cli_pick_overflowing_eps_is_reported() -> None:
    rc, out, err = run_cli(["pick", "jia.thm4", "--m", "1000", "--eps", "1e300", "--unit", "beta=0.5"])
    assert rc == 2 and "overflow" in err and "'eps' = 1e+300" in err


def test_value_underflow_is_the_nearest_float() -> None:
    # a density far in its tail is 0.0 in floating point, as before: only an overflow is an error
    assert bounds.value("jcc.lemma1", C_t=0.015648, b=30.0, eps=0.9) == 0.0   # exp(-1725)/…


def test_value_of_a_non_string_key() -> None:
    with pytest.raises(ValueError, match="must be a string"):
        bounds.value(123)
    with pytest.raises(KeyError):                     # still a KeyError for code that looks statements up
        bounds.registry.get(123)


def test_unknown_key_suggests_close_matches() -> None:
    with pytest.raises(ValueError, match="did you mean jia.thm4"):
        bounds.value("jia.thm44", m=100)
    rc, _, err = run_cli(["pick", "jia.thm44", "--m", "100"])
    assert rc == 2 and "did you mean jia.thm4" in err


def test_schedule_leaving_eps_free_is_a_clear_error() -> None:
    # found while fixing: jamp.thm2's schedule sets only λ; without ε the CLI printed "error: eps"
    c = dict(PICK_CONSTS["jamp.thm2.bound"])
    del c["eps"]
    with pytest.raises(ValueError, match="leaves eps free"):
        pick.paper_schedule("jamp.thm2", 10_000, **c)
    rc, _, err = run_cli(["pick", "jamp.thm2", "--m", "10000", *(f"{k}={v}" for k, v in c.items())])
    assert rc == 2 and "leaves eps free" in err


def test_given_lam_is_not_ignored_by_the_python_api() -> None:
    # found while fixing: optimise(lam=…) and paper_schedule(lam=…) silently dropped λ
    o = pick.optimise("jia.thm4", 10_000, lam=0.05, **JIA)
    p = pick.paper_schedule("jia.thm4", 10_000, lam=0.05, **JIA)
    assert o.lam == p.lam == 0.05 and o.method == "optimised over eps"
    assert p.eps == pytest.approx(1 / math.sqrt(0.05 * 10_000))
    with pytest.raises(ValueError, match="'over' names lam"):
        pick.optimise("jia.thm4", 10_000, over=("lam",), lam=0.05, **JIA)


def test_wrong_types_and_options_are_named() -> None:
    for bad in ("100", True):
        with pytest.raises(ValueError, match="'m'"):
            pick.optimise("jia.thm4", bad, **JIA)
    with pytest.raises(ValueError, match="'which'"):
        pick.optimise("jia.thm4", 10_000, which="foo", **JIA)
    with pytest.raises(ValueError, match="'over'"):
        pick.optimise("jia.thm4", 10_000, over=("m",), **JIA)
    assert pick.optimise("jia.thm4", 10_000, over="eps", **JIA).method == "optimised over eps"
    with pytest.raises(ValueError, match="'lam'"):
        pick.value_at("jia.thm4", 10_000, 0.1, lam=-1, **JIA)
    with pytest.raises(ValueError, match="'eps'"):
        pick.bound_grid("jia.thm4", 1e4, np.array([0.1, -1.0]), np.array([0.01]), **JIA)
    with pytest.raises(ValueError, match="'registry'"):
        with pick.using(object()):
            pass


def test_cli_name_value_m_is_the_option() -> None:
    rc, out, err = run_cli(["pick", "jia.thm4", "m=10000", "--unit", "beta=0.5"])
    assert rc == 0 and "at m = 10000" in out, err
    rc, _, err = run_cli(["pick", "jia.thm4", "m=10000", "--m", "100", "--unit", "beta=0.5"])
    assert rc == 2 and "given twice" in err


def test_cli_inapplicable_m_is_refused() -> None:
    rc, _, err = run_cli(["pick", "jia.thm4", "--target", "0.5", "--eps", "0.1", "--m", "100", "--unit", "beta=0.5"])
    assert rc == 2 and "--m does not apply" in err


@pytest.mark.parametrize("args", [
    ("pick", "jia.thm4", "--m", "-10", "--unit", "beta=0.5"),
    ("eval", "jia.thm2", *THM2, "lam=1e-320"),
])
def test_subprocess_bad_input_is_one_line(args) -> None:
    p = subprocess.run([sys.executable, "-m", "bounds", *args], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: ") and "Traceback" not in p.stderr


def test_value_refuses_a_parameter_given_twice_and_a_non_mapping():
    import bounds

    with pytest.raises(ValueError, match="'m' given twice"):
        bounds.value("jia.thm1", {"m": 100}, m=200)
    with pytest.raises(ValueError, match="'values' must be a mapping"):
        bounds.value("jia.thm1", [("m", 100)])
