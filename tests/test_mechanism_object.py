"""A mechanism is one object: its calibrating Statement handle, the algorithms it applies to, its sampler.

Every declared mechanism carries the Statement object the registry holds (not a string key); every
estimator refuses a mechanism whose statement's premises it does not satisfy (its declared algorithm
another) with a ValueError naming both, even with allow_unverified=True; trials reach
their paper's statements through imported handles (a static scan of their source); the release
functions and constructors validate their parameters; the PrivacyLeakWarning is short and emitted
once per estimator class per process.  No paper is named here: the mechanisms come from discovery.
"""

from __future__ import annotations

import ast
import math
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

import bounds
from bounds.core import Statement
from simulations import discovery
from simulations.estimators import (
    FUNCTION_LEAK,
    DPKernelLeastSquares,
    DPKernelSVM,
    DPOnlineKernelRegression,
    PrivacyLeakWarning,
    reset_privacy_warnings,
)
from simulations.mechanisms import Mechanism, get_mechanism, laplace_scale, mechanisms, release

ROOT = Path(__file__).resolve().parents[1]
MECHS = mechanisms()
ESTIMATORS = (DPKernelLeastSquares, DPKernelSVM, DPOnlineKernelRegression)


def _data(cls, m: int = 30) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = rng.uniform(-0.5, 0.5, (m, 1))
    y = np.clip(np.sin(3 * X[:, 0]), -1, 1)
    return X, (np.where(y > 0, 1, -1) if cls is DPKernelSVM else y)


# -- every declared mechanism is an object tied to registered statements ------------------------------


def test_mechanisms_are_declared() -> None:
    assert MECHS, "no paper declares a mechanism"


@pytest.mark.parametrize("name", list(MECHS))
def test_mechanism_carries_registered_statement_objects(name: str) -> None:
    mech = MECHS[name]
    assert isinstance(mech, Mechanism) and mech.name == name
    assert mech.statements and all(isinstance(s, Statement) for s in mech.statements)
    for st in mech.statements:
        assert bounds.registry.get(st.key) is st, f"{name}: {st.key} is not the registry's object"
        assert st.paper == name.split(".")[0]
    # the trial module's own handle: the object is reachable by an import, not only by its name
    mod = discovery.paper_module(name.split(".")[0])
    assert any(v is mech for k, v in vars(mod).items() if k != "MECHANISMS"), f"{name} has no module-level name"
    assert mech.algorithms and all(isinstance(a, str) and a for a in mech.algorithms)
    assert get_mechanism(name) is mech and pickle.loads(pickle.dumps(mech)) is mech


def test_a_string_key_is_not_a_statement() -> None:
    st = next(iter(MECHS.values())).statement
    with pytest.raises(ValueError, match="parameter 'statement'.*not a string key"):
        Mechanism(st.paper + ".x", st.key, algorithms=("kls",))
    other = next(s for s in bounds.registry if s.paper != st.paper)
    with pytest.raises(ValueError, match=f"belongs to paper '{other.paper}'"):
        Mechanism(st.paper + ".x", other, algorithms=("kls",))


@pytest.mark.parametrize("bad", [dict(algorithms=()), dict(algorithms="kls"), dict(algorithms=("",)),
                                 dict(per_eps=1), dict(clip="yes"), dict(inputs=3), dict(output="vector"),
                                 dict(sampler=None), dict(release=None)])
def test_mechanism_constructor_validates(bad: dict) -> None:
    st = next(iter(MECHS.values())).statement
    kw = {"algorithms": ("kls",), **bad}
    with pytest.raises(ValueError, match=f"parameter '{next(iter(bad))}'"):
        Mechanism(st.paper + ".x", st, **kw)


# -- every estimator refuses a mechanism of another algorithm ------------------------------------------


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", list(MECHS))
def test_estimator_refuses_a_mismatched_mechanism(cls, name: str) -> None:
    mech = MECHS[name]
    X, y = _data(cls)
    for given in (mech, name):           # the object, and its name as a convenience: validated alike
        est = cls(mechanism=given, eps=0.5, random_state=0, allow_unverified=True)
        if not mech.applies_to(cls.algorithm):
            for allow in (False, True):  # a mismatch is refused even when unverified forms are allowed
                with pytest.raises(ValueError) as err, warnings.catch_warnings():
                    warnings.simplefilter("ignore", PrivacyLeakWarning)
                    est.set_params(allow_unverified=allow).fit(X, y)
                msg = str(err.value)
                assert cls.__name__ in msg and repr(name) in msg and mech.statement.key in msg, msg
                assert "premises" in msg or "does not apply" in msg, msg
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            est.fit(X, y)
        # the noise is the mechanism's own calibration, recomputed here from its statement
        k = est.kernel_
        problem = dict(kappa=k.kappa, m=len(y), eps=0.5, M=1.0)
        if cls is DPOnlineKernelRegression:
            problem.update(t0=est.t0_, theta=est.theta)
        else:
            problem["lam"] = est.lam
        vals = mech.statement_values(problem)
        expect = bounds.value(mech.statement, {k_: v for k_, v in vals.items() if k_ != "eps" or not mech.per_eps})
        if mech.per_eps:
            expect /= 0.5
        assert est.noise_scale_ == pytest.approx(expect, rel=1e-12)


def test_each_estimator_algorithm_has_a_mechanism() -> None:
    for cls in ESTIMATORS:
        assert any(m.applies_to(cls.algorithm) for m in MECHS.values()), cls.__name__


def test_the_issue_case_least_squares_given_the_svm_calibration() -> None:
    """A least-squares estimator given a mechanism of the SVM fails, naming both (the issue's 8.3x case)."""
    svm = next(m for m in MECHS.values() if m.applies_to("svm") and not m.applies_to("kls"))
    X, y = _data(DPKernelLeastSquares)
    for allow in (False, True):
        with pytest.raises(ValueError, match=rf"DPKernelLeastSquares.*'{svm.name}'.*does not satisfy the premises "
                                             rf"of statement {svm.statement.key}.*loss: the statement assumes "
                                             r"'hinge', DPKernelLeastSquares has 'square'"):
            DPKernelLeastSquares(mechanism=svm, allow_unverified=allow).fit(X, y)


def test_clone_keeps_the_object() -> None:
    mech = next(iter(MECHS.values()))
    est = DPKernelLeastSquares(mechanism=mech)
    assert clone(est).mechanism is mech and mech.name in repr(est)


# -- trials reach statements through imported handles (static) ----------------------------------------

#: functions whose first argument is a statement
LOOKUPS = {"value", "get", "evaluate", "stated", "derived", "_value", "_proof_value", "_bound", "_both",
           "laplace_scale", "calibrations", "get_mechanism", "scalar_noise_audits"}


def _keyish(node: ast.AST, dynamic: bool) -> bool:
    """A string (or, when ``dynamic``, an f-string) that starts like a statement key: ``<paper id>.``."""
    ids = tuple(f"{p}." for p in bounds.registry.papers)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.startswith(ids)
    if dynamic and isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        return isinstance(head, ast.Constant) and str(head.value).startswith(ids)
    return False


def _string_lookups(source: str, dynamic: bool = True) -> list[str]:
    """``name("<paper id>.…", ...)`` calls of :data:`LOOKUPS` (f-strings too when ``dynamic``)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name in LOOKUPS and _keyish(node.args[0], dynamic):
            out.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return out


def _key_literals(source: str) -> list[str]:
    keys = set(bounds.registry.keys())
    return [f"line {n.lineno}: {n.value!r}" for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in keys]


def test_the_scanner_finds_string_lookups() -> None:
    key = next(iter(bounds.registry.keys()))
    pid = key.split(".")[0]
    src = (f'import bounds\nbounds.value("{key}", {{}})\n_value(f"{pid}.{{y}}")\nTABLE = {{"a": "{key}"}}\n'
           'config.get("calibration", "stated")\n')
    assert len(_string_lookups(src)) == 2 and len(_string_lookups(src, dynamic=False)) == 1
    assert len(_key_literals(src)) == 2
    assert _string_lookups("bounds.value(ALG1_BETA, {})\n") == []


SIM_FILES = sorted((ROOT / "simulations").glob("*.py")) + sorted((ROOT / "simulations" / "trials").glob("*.py"))


@pytest.mark.parametrize("path", SIM_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_simulations_use_no_string_key_lookups(path: Path) -> None:
    src = path.read_text()
    assert not _string_lookups(src), f"{path.name}: string-key lookups {_string_lookups(src)}"
    assert not _key_literals(src), f"{path.name}: statement keys as strings {_key_literals(src)}"


@pytest.mark.parametrize("path", sorted((ROOT / "verify" / "empirical").glob("*.py")), ids=lambda p: p.name)
def test_empirical_checks_use_no_literal_key_lookups(path: Path) -> None:
    """A plain look-up by a literal key is an import; the report's keys (decorators, Result.key) stay data."""
    src = path.read_text()
    assert not _string_lookups(src, dynamic=False), f"{path.name}: {_string_lookups(src, dynamic=False)}"


# -- release validates its parameters -----------------------------------------------------------------


@pytest.mark.parametrize("kw, param", [
    (dict(scale=0.0), "scale"), (dict(scale=-1.0), "scale"), (dict(scale=math.inf), "scale"),
    (dict(scale=math.nan), "scale"), (dict(scale="1"), "scale"), (dict(n=0), "n"), (dict(n=1.5), "n"),
    (dict(n=True), "n"), (dict(clip=0.0), "clip"), (dict(clip=math.nan), "clip"), (dict(clip=-1.0), "clip"),
    (dict(values=np.array([0.0, math.nan])), "values"), (dict(values=np.zeros((2, 2))), "values"),
    (dict(rng=np.random.RandomState(0)), "rng"), (dict(values="ab"), "values"),
])
def test_release_validates(kw: dict, param: str) -> None:
    args = {"values": np.zeros(3), "scale": 1.0, "n": 2, "rng": np.random.default_rng(0), "clip": None, **kw}
    with pytest.raises(ValueError, match=f"release: parameter '{param}'"):
        release(**args)


def test_clipped_release_adds_one_scalar_per_copy() -> None:
    """π first, then one b per copy: differences within a copy are those of the clipped function."""
    v = np.array([-3.0, -0.2, 0.4, 5.0])
    out = release(v, 0.7, n=500, rng=np.random.default_rng(1), clip=1.0)
    c = np.clip(v, -1, 1)
    assert np.allclose(out - out[:, :1], c - c[0], atol=1e-12)
    b = out[:, 0] - c[0]
    assert abs(np.median(np.abs(b)) - 0.7 * math.log(2)) < 0.1     # median |Laplace(s)| = s ln 2


def test_laplace_scale_validates_which_and_eps() -> None:
    mech = next(m for m in MECHS.values() if m.per_eps) if any(m.per_eps for m in MECHS.values()) else None
    any_mech = next(iter(MECHS.values()))
    with pytest.raises(ValueError, match="parameter 'which'"):
        laplace_scale(any_mech, "paper")
    if mech is not None:
        for eps in (None, 0, -1, math.inf, math.nan):
            with pytest.raises(ValueError, match="parameter 'eps'"):
                laplace_scale(mech, "derived", **({} if eps is None else {"eps": eps}))
    with pytest.raises(ValueError, match="parameter 'scale'"):
        any_mech.noise(0.0)


# -- one short PrivacyLeakWarning per estimator class per process ------------------------------------


def test_privacy_leak_warning_is_short_and_once_per_class() -> None:
    for cls in ESTIMATORS:
        assert len(FUNCTION_LEAK.format(name=cls.__name__)) <= 160
    reset_privacy_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")          # the warnings module would repeat it: the registry must not
        for _ in range(3):
            for cls in ESTIMATORS:
                mech = next(m for m in MECHS.values() if m.applies_to(cls.algorithm))
                X, y = _data(cls)
                cls(mechanism=mech, random_state=0, allow_unverified=True).fit(X, y)
    leaks = [w for w in caught if issubclass(w.category, PrivacyLeakWarning) and "not ε-DP" in str(w.message)]
    assert sorted(str(w.message).split(":")[0] for w in leaks) == sorted(c.__name__ for c in ESTIMATORS)
    assert all(len(str(w.message)) <= 160 for w in leaks)
    reset_privacy_warnings()
    with pytest.warns(PrivacyLeakWarning, match="Gaussian-process release"):
        DPKernelSVM(mechanism=next(m for m in MECHS.values() if m.applies_to("svm")), random_state=0,
                    allow_unverified=True).fit(*_data(DPKernelSVM))


# -- the iterative private releases validate their parameters ------------------------------------------


@pytest.mark.parametrize("kw, param", [
    (dict(T=0), "T"), (dict(T=2.5), "T"), (dict(scale=-1.0), "scale"), (dict(scale=math.inf), "scale"),
    (dict(scale=math.nan), "scale"), (dict(n_rep=-1), "n_rep"), (dict(n_rep=True), "n_rep"),
    (dict(radius=0.0), "radius"), (dict(rng=np.random.RandomState(0)), "rng"), (dict(c=np.ones(3)), "'A' and 'c'"),
])
def test_private_frank_wolfe_validates(kw: dict, param: str) -> None:
    from simulations.private_erm import private_fw_lasso

    args = {**dict(A=np.eye(2), c=np.ones(2), T=5, scale=0.1, rng=np.random.default_rng(0), n_rep=2), **kw}
    with pytest.raises(ValueError, match=f"private_fw_lasso: parameters? '?{param.strip(chr(39))}"):
        private_fw_lasso(**args)


@pytest.mark.parametrize("kw, param", [(dict(T=0), "T"), (dict(eta=0.0), "eta"), (dict(sigma=-0.1), "sigma"),
                                       (dict(p=0), "p"), (dict(sigma=math.inf), "sigma")])
def test_private_mirror_descent_validates(kw: dict, param: str) -> None:
    from simulations.private_erm import private_mirror_descent

    args = {**dict(grad=lambda t: np.zeros_like(t), p=2, geometry="l2", T=5, eta=0.1, sigma=0.1,
                   rng=np.random.default_rng(0)), **kw}
    with pytest.raises(ValueError, match=f"private_mirror_descent: parameter '{param}'"):
        private_mirror_descent(**args)
    # the same call with valid parameters runs (the refusal above is about the parameter alone)
    good = dict(args, **{k: v for k, v in dict(T=5, eta=0.1, sigma=0.1, p=2).items() if k in kw})
    assert private_mirror_descent(**good).shape == (1, 2)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_a_bad_calibration_parameter_names_the_statement(cls) -> None:
    mech = next(m for m in MECHS.values() if m.applies_to(cls.algorithm))
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError) as err:
            cls(mechanism=mech, eps=bad, allow_unverified=True).fit(*_data(cls))
        msg = str(err.value)
        assert "'eps'" in msg and "Assumption:" in msg and mech.statement.key in msg and cls.__name__ in msg, msg
