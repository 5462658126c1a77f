"""The plain ``pick`` from the numeric store (:mod:`bounds.numeric_pick`): same bytes as the sympy path,
declines where a printed character is not settled, never reads a stale or damaged entry, no sympy."""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import shutil
import subprocess
import sys

import pytest

from bounds import numeric
from bounds import numeric_pick as P

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THM4 = [("B0", "1"), ("Omega0", "0"), ("kappa", "1"), ("C_L", "1"), ("gamma", "2"), ("B_rho", "1"), ("c_beta", "1"),
        ("beta", "0.5")]
S52 = [("M", "1"), ("kappa", "1"), ("c_beta", "1"), ("beta", "0.5")]


@pytest.fixture(scope="module")
def entries():
    import bounds

    keys = ("jia.thm4", "jia.s5_2.bound", "jia.s5_1.bound", "jamp.thm2")
    return {k: P.build_pick_entry(bounds.registry, k, False) for k in keys}


def _cli(key, opts, assigns, flags=()):
    argv = ["pick", key, *[t for o, r in opts.items() for t in (o, r)], *[f"{k}={r}" for k, r in assigns], *flags]
    return numeric._run_cli(argv)


def test_answers_equal_the_sympy_path(entries):
    """Wherever the numeric path answers, stdout, stderr and status equal bounds.cli.main's, byte for byte;
    the README's example and an --eps call are answered."""
    doc = entries["jia.thm4"]
    assert not doc.get("unsupported"), doc.get("unsupported")
    calls = [({"--m": "10000"}, THM4), ({"--m": "20000", "--eps": "0.3"}, THM4)]
    calls += P._pick_grid(__import__("bounds").registry, "jia.thm4", 6, 5)
    answered = 0
    for opts, assigns in calls:
        try:
            fast = P.answer_pick(doc, opts, assigns)
        except numeric._Unsure:
            assert opts.get("--m") not in ("10000", "20000"), "the README's example and the --eps call must answer"
            continue
        assert fast == _cli("jia.thm4", opts, assigns)
        answered += 1
    assert answered >= 2
    rc, out, _ = P.answer_pick(doc, {"--m": "20000", "--eps": "0.3"}, THM4)
    assert rc == 0 and "eps = 0.3 (given)" in out and "U-shaped" not in out      # ε given: nothing to explain


def test_target_and_a_vacuous_paper_row_equal_the_sympy_path(entries):
    """The README's --target call (the smallest m) and its §5.1 pick, whose paper row is vacuous until a larger
    m along the schedule (a port of _first_m), are answered byte for byte as the sympy path answers them."""
    opts = {"--target": "0.5", "--eps": "0.1"}
    fast = P.answer_pick(entries["jia.thm4"], opts, THM4)
    assert fast == _cli("jia.thm4", opts, THM4)
    assert fast[1].startswith("key=jia.thm4.bound query=min_m target=0.5 eps=0.1 lam=optimise m=")
    s51 = [("M", "1"), ("kappa", "1"), ("c_beta", "1"), ("beta", "0.5")]
    fast = P.answer_pick(entries["jia.s5_1.bound"], {"--m": "50000"}, s51)
    assert fast == _cli("jia.s5_1.bound", {"--m": "50000"}, s51)
    assert "VACUOUS (paper)" in fast[1] and "falls below it from m = " in fast[1]


def test_first_m_declines_where_a_comparison_is_not_settled():
    assert P.first_m(lambda m: (1000.3 / m, 1e-15), 1.0, 2) == 1001
    with pytest.raises(numeric._Unsure):            # the search probes m = 1000, where 1000/m is the level exactly
        P.first_m(lambda m: (1000 / m, 1e-15), 1.0, 2)
    with pytest.raises(numeric._Unsure):            # 1000/1000 = level exactly: not decided here
        P.first_m(lambda m: (1000 / m, 1e-15), 1.0, 1000)
    assert P.first_m(lambda m: (1000 / m, 1e-15), 1e-30, 2) is None       # beyond the search's limit


def test_vacuous_and_unusual_calls_decline(entries):
    """A vacuous row (its explanation searches over m), an unknown constant, a missing one, --json and --target
    go to the sympy path."""
    doc = entries["jia.s5_2.bound"]
    assert not doc.get("unsupported"), doc.get("unsupported")
    assert "VACUOUS" in _cli("jia.s5_2.bound", {"--m": "20000", "--eps": "0.5"}, S52)[1]
    with pytest.raises(numeric._Unsure):
        P.answer_pick(doc, {"--m": "20000", "--eps": "0.5"}, S52)
    thm4 = entries["jia.thm4"]
    for assigns in ([*THM4, ("x", "1")], THM4[1:], [*THM4, ("eps", "0.5")]):
        with pytest.raises(numeric._Unsure):
            P.answer_pick(thm4, {"--m": "10000"}, assigns)
    with pytest.raises(numeric._Unsure):            # an advice limit (the sympy path warns)
        P.answer_pick(thm4, {"--m": "10000", "--eps": "1"}, THM4)
    for extra in (["--json"], ["--target", "0.5"], ["--plot", "x.png"], ["--unit"], ["--lam", "0.1"]):
        assert P.parse_pick(["pick", "jia.thm4", "--m", "10000", *extra]) is None
    assert P.fast_pick(["pick", "jia.thm4", "--m", "10000", "--json"]) is None


def _synthetic(c: float) -> dict:
    """An entry for the bound c/eps + eps + 1 (minimised at eps = sqrt(c), bound 1 + 2·sqrt(c)), schedule
    eps = m^(-1/2)."""
    pos = [0.0, None, True, False, False, None]
    s = lambda n: ["s", n]          # noqa: E731
    t1 = ["Mul", [s("c"), ["Pow", [s("eps"), ["i", -1]]]]]
    return {"key": "syn", "which": P.WHICH, "allow_unverified": False, "pick_key": "syn.bound", "label": "synthetic",
            "asked_ns": ["c", "eps", "m"], "params": {"c": pos, "eps": [0.0, None, True, False, False, 1.0],
                                                      "m": [2.0, None, False, False, True, None]},
            "allowed": ["c", "eps", "m"], "free": ["c", "eps"], "choice": ["eps"], "constraints": [],
            "schedule": {"eps": ["Pow", [s("m"), ["q", -1, 2]]]}, "sched_ns": ["c", "eps", "m"],
            "expr": ["Add", [t1, s("eps"), ["i", 1]]], "terms": [["c/eps", t1], ["eps", s("eps")], ["1", ["i", 1]]],
            "stated": None, "stated_free": [], "stated_allowed": [], "lam_max": 1e4, "regime": {}, "regime_text": "",
            "line": "syn.bound (synthetic), derived form; verdict: consistent", "note": "", "warning": "",
            "verdict_text": "consistent", "ceiling": None, "ceiling_why": "", "ceiling_free": [], "stderr": ""}


def test_settledness_declines_on_a_rounding_edge():
    """The optimum's ε printed to 6 digits: settled at 0.0123456 (answered, with the value computed here), at the
    rounding edge 0.01234565 declined whatever the last bits of the search."""
    eps = 0.0123456
    rc, out, err = P.answer_pick(_synthetic(eps * eps), {"--m": "100"}, [("c", repr(eps * eps))])
    assert rc == 0 and err == ""
    assert f"optimised  eps = {eps:.6g}  lambda = —  bound = {1 + 2 * eps:.6g}" in out
    assert f"dominant term at the optimum: 1 ({100 / (1 + 2 * eps):.0f}% of the sum)" in out
    assert "paper      eps = 0.1  lambda = —" in out
    assert "U-shaped in eps: eps grows" in out
    edge = 0.01234565
    with pytest.raises(numeric._Unsure):
        P.answer_pick(_synthetic(edge * edge), {"--m": "100"}, [("c", repr(edge * edge))])


def test_error_bound_covers_the_rounding():
    """The running error bound covers the difference between a float evaluation and the 256-bit value."""
    tree = ["Add", [["Mul", [["s", "x"], ["Pow", [["s", "y"], ["q", -1, 2]]]]], ["exp", [["s", "x"]]], ["i", -1]]]
    for x, y in ((1e-3, 3.0), (0.7, 1e-5), (2.5, 7.0)):
        v, e = P.error_bound(tree, {"x": x, "y": y})
        exact = float(numeric._tree_value(tree, {"x": x, "y": y}, 256))
        assert abs(v - exact) <= e
        f = P.compile_trees([tree], ["x", "y"], {})
        assert abs(f(x, y)[0] - exact) <= e + 2**-53 * abs(exact)


def test_stale_or_damaged_entry_is_never_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DP_ERM_VERIFY_SYMBOLIC", str(tmp_path))
    monkeypatch.delenv("DP_ERM_VERIFY_NUMERIC", raising=False)
    eps = 0.0123456
    argv = ["pick", "syn", "--m", "100", f"c={eps * eps!r}"]
    dig = numeric.digest()
    assert numeric.write_entry(_synthetic(eps * eps), dig)
    assert P.fast_pick(argv) == 0
    assert "optimised  eps = 0.0123456" in capsys.readouterr().out
    path = numeric._entry_path("syn", P.WHICH, False, dig)
    raw = open(path, "rb").read()
    head, _, payload = raw.partition(b"\n")
    doc = json.loads(payload)
    doc["label"] = "tampered"
    open(path, "wb").write(head + b"\n" + json.dumps(doc, sort_keys=True, ensure_ascii=False).encode())
    numeric.MISSED.clear()
    assert P.fast_pick(argv) is None and capsys.readouterr().out == ""     # the checksum fails: a miss
    assert numeric.MISSED == [("syn", P.WHICH, False, argv)]
    numeric.MISSED.clear()
    assert numeric.write_entry(_synthetic(eps * eps), "0" * 32)     # an entry of another key (other sources): stale
    assert os.path.exists(numeric._entry_path("syn", P.WHICH, False, "0" * 32))
    assert P.fast_pick(argv) is None and capsys.readouterr().out == ""
    numeric.MISSED.clear()


def test_numeric_path_imports_neither_sympy_nor_numpy(entries, tmp_path):
    env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC=str(tmp_path))
    env.pop("DP_ERM_VERIFY_NUMERIC", None)
    old = os.environ.get("DP_ERM_VERIFY_SYMBOLIC")
    os.environ["DP_ERM_VERIFY_SYMBOLIC"] = str(tmp_path)
    try:
        assert numeric.write_entry(entries["jia.thm4"], numeric.digest())
    finally:
        if old is None:
            os.environ.pop("DP_ERM_VERIFY_SYMBOLIC")
        else:
            os.environ["DP_ERM_VERIFY_SYMBOLIC"] = old
    argv = ["pick", "jia.thm4", "--m", "10000", *[f"{k}={v}" for k, v in THM4]]
    code = ("import runpy, sys\nsys.argv = ['bounds'] + " + repr(argv) + "\ntry:\n"
            "    runpy.run_module('bounds', run_name='__main__')\nexcept SystemExit as e:\n    rc = e.code\n"
            "print(rc, 'sympy' in sys.modules, 'numpy' in sys.modules, file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert r.stderr.strip().splitlines()[-1] == "0 False False", r.stderr
    assert r.stdout == _cli("jia.thm4", {"--m": "10000"}, THM4)[1]


def test_error_bound_covers_the_numbers_the_sympy_path_prints(entries):
    """Review R1 (M1): the sympy path substitutes the constants and lambdify prints every Float with 15 digits
    (c_beta = 10.00000000000005 becomes 10.0): its value differs from the exact one by -4.87e-15 relative, 6x the
    bound without the printed numbers; the bound must cover it."""
    import bounds
    from bounds import pick

    c = {"M": 0.10000000000000049, "kappa": 0.9422193893179567, "c_beta": 10.00000000000005, "beta": 0.5}
    with pick.using(bounds.registry):
        b = pick._bound(pick.pickable("jia.s5_1.bound"), 10**6, c, "derived")
        sym = float(b(eps=0.3, lam=0.01))
    exact, err = P._exact(entries["jia.s5_1.bound"]["expr"], {**c, "m": 1e6, "eps": 0.3, "lam": 0.01})
    assert abs(sym - exact) > 4e-15 * exact             # the example is real: far beyond the float rounding
    assert abs(sym - exact) <= err


def test_error_bound_covers_any_summation_order():
    """The running bound covers every order of a sum with cancellation (leaves exact: the whole error is the
    sums' and exp's rounding, so a bound without either term is 0 and fails), each order evaluated in floats."""
    rnd = random.Random(3)
    names = ["a", "b", "c", "x"]
    tree = ("Add", [("s", "a"), ("s", "b"), ("s", "c"), ("exp", [("s", "x")])])
    args = frozenset(names)
    worst, nonzero = 0.0, 0
    for _ in range(300):
        x = rnd.uniform(-1, 1)
        a = rnd.uniform(0.5, 2)
        vals = {"a": a, "b": -(a + math.exp(x)) * (1 + rnd.uniform(-1e-6, 1e-6)), "c": rnd.uniform(-1e-3, 1e-3),
                "x": x}
        exact = float(numeric._tree_value(tree, vals, 256))
        _, e = P.error_bound(tree, vals, args)
        terms = [vals["a"], vals["b"], vals["c"], math.exp(x)]
        for order in itertools.permutations(range(4)):
            acc = 0.0
            for i in order:
                acc += terms[i]
            for pair in ((terms[order[0]] + terms[order[1]]) + (terms[order[2]] + terms[order[3]]),):
                for got in (acc, pair):
                    assert abs(got - exact) <= e, (vals, order)
                    worst = max(worst, abs(got - exact) / e)
                    nonzero += got != exact
    assert nonzero > 100 and worst > 0.05       # the orders' errors are real and the bound not vacuous
    e_tree = ("exp", [("s", "x")])
    for x in (0.1, 0.7, -2.3):                  # a library function alone: its rounding is the whole error
        v, e = P.error_bound(e_tree, {"x": x}, args)
        exact = float(numeric._tree_value(e_tree, {"x": x}, 256))
        assert abs(math.exp(x) - numeric._tree_value(e_tree, {"x": x}, 256)) > 0 and abs(v - exact) <= e
        assert e > 0


def test_target_declines_at_the_bound_and_answers_beyond_its_uncertainty(entries):
    """Review R1 (M3): at the target g(m0) (the bound's min over lambda at the answer m0) and 2e-15 from it the
    comparison is not settled (the sympy path answers 696114 where an unguarded port answers 696115); 1e-13 away
    the answer equals the sympy path's, byte for byte."""
    a = [("M", "3.3442797693762003"), ("kappa", "0.5393966629196453"), ("r", "0.20679589886299773"),
         ("fnorm", "0.2745197257570542")]
    t, eps = 0.4502423556096314, "0.03669239315158242"
    doc = entries["jamp.thm2"]
    assert not doc.get("unsupported"), doc.get("unsupported")
    for k in (0.0, 2e-15, -2e-15):
        with pytest.raises(numeric._Unsure):
            P.answer_pick(doc, {"--target": repr(t * (1 + k)), "--eps": eps}, a)
    for k in (1e-13, -1e-13):
        opts = {"--target": repr(t * (1 + k)), "--eps": eps}
        assert P.answer_pick(doc, opts, a) == _cli("jamp.thm2", opts, a)


def test_regime_edge_note_equals_the_sympy_path(entries):
    """Review R1 (M3): an optimum beyond the paper's regime (lambda > 1): the answer stays inside and the note
    gives the whole domain's optimum, as the sympy path prints it."""
    a = [("B0", "1.1199536243765589"), ("Omega0", "0.0"), ("kappa", "0.8033555426521861"), ("C_L", "3.3696906950798"),
         ("gamma", "3.2111614511475777"), ("B_rho", "0.856522147559937"), ("c_beta", "0.024629118431503654"),
         ("beta", "1.0")]
    fast = P.answer_pick(entries["jia.thm4"], {"--m": "8975"}, a)
    assert "outside the paper's regime" in fast[1]
    assert fast == _cli("jia.thm4", {"--m": "8975"}, a)


def test_the_box_is_centred_on_the_exact_optimum():
    """Review R1 (M2): the point found here and the sympy path's both lie in the sublevel set, up to twice its
    half-width apart; the box is centred on the exact minimiser (a Newton step), so that it holds the whole set
    whatever the point found.  c/eps + eps + 1: minimiser log sqrt(c), F'' = 2 sqrt(c) / (1 + 2 sqrt(c))."""
    c = 0.0123456 ** 2
    doc = _synthetic(c)
    xs = math.log(math.sqrt(c))
    level = 1e-13
    w_true = math.sqrt(2 * level * (1 + 2 * math.sqrt(c)) / (2 * math.sqrt(c)))
    for off in (0.9, -0.9, 0.0):
        x = (xs + off * w_true,)
        w, centre = P._widths(doc["expr"], {"c": c}, ["eps"], ["eps"], x, lambda y: (math.exp(y[0]),), level,
                              [math.log(1e-9)], [0.0])
        assert abs(centre[0] - xs) <= 1e-9
        assert w_true <= w[0] <= 1.1 * w_true
        ends = [p[0] for p in P._corners(centre, w, [math.log(1e-9)], [0.0])]
        assert min(ends) <= xs - w_true and max(ends) >= xs + w_true


def test_a_declining_call_stops_before_the_widths(monkeypatch):
    """Review R1 (m3): an objective known to worse than the search's margin declines before the 256-bit widths."""
    doc = _synthetic(1e-4)
    doc["expr"] = ["Add", [*doc["expr"][1], ["i", 10**4], ["i", -(10**4)]]]       # cancellation: Δ ≈ 1e-11

    def boom(*a, **k):
        raise AssertionError("_widths called")

    monkeypatch.setattr(P, "_widths", boom)
    with pytest.raises(numeric._Unsure, match="too uncertain"):
        P.answer_pick(doc, {"--m": "100"}, [("c", "0.0001")])


def test_log_of_zero_and_non_finite_numbers():
    """Review R1 (m2): the compiled tree gives numpy's log(0) = -inf (not math.log's error); a number that is not
    finite is never printed (the sympy path prints a note instead)."""
    f = P.compile_trees([("exp", [("log", [("s", "x")])])], ["x"], {})
    assert f(0.0) == (0.0,) and math.isnan(P.compile_trees([("log", [("s", "x")])], ["x"], {})(-1.0)[0])
    for x in (math.inf, math.nan):
        with pytest.raises(numeric._Unsure):
            P._g(x, ".4g", 1e-9)


def test_an_entry_under_another_keys_name_is_never_read(tmp_path, monkeypatch, capsys):
    """Review R1 (M3): a valid entry file copied to the path of another key (same digest) fails its ident."""
    monkeypatch.setenv("DP_ERM_VERIFY_SYMBOLIC", str(tmp_path))
    monkeypatch.delenv("DP_ERM_VERIFY_NUMERIC", raising=False)
    dig = numeric.digest()
    eps = 0.0123456
    assert numeric.write_entry(_synthetic(eps * eps), dig)
    src = numeric._entry_path("syn", P.WHICH, False, dig)
    dst = numeric._entry_path("syn2", P.WHICH, False, dig)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    assert numeric.read_entry("syn", P.WHICH, False, dig) is not None
    assert numeric.read_entry("syn2", P.WHICH, False, dig) is None
    numeric.MISSED.clear()
    assert P.fast_pick(["pick", "syn2", "--m", "100", f"c={eps * eps!r}"]) is None
    assert capsys.readouterr().out == ""
    numeric.MISSED.clear()
