"""Trial functions of Chaudhuri, Monteleoni & Sarwate (2011), "Differentially Private Empirical
Risk Minimization", JMLR 12, 1069–1109 (paper id ``cms``; statements in :mod:`bounds.papers.cms`).

The algorithm is L2-regularised logistic regression without intercept,

    J_D(f) = (1/n) Σ log(1 + exp(−y_i fᵀx_i)) + (Λ/2)‖f‖²,   ‖x_i‖ ≤ 1, y_i = ±1,

released by output perturbation (Algorithm 1: f* + b, b ∝ exp(−β‖b‖), β = ``cms.alg1.beta``) or
objective perturbation (Algorithm 2: argmin J_D(f) + (1/n)bᵀf + (Δ/2)‖f‖², b ∝ exp(−(ε′/2)‖b‖),
ε′ and Δ from ``cms.alg2.eps_prime`` / ``cms.alg2.delta``, c = ``cms.alg2.c_logistic``).

Solver: Newton's method with Armijo backtracking (:func:`fit_logistic`, and
:func:`fit_logistic_batch` for many noise vectors at once).  Certificate: J is (Λ+Δ)-strongly
convex, so ‖w − w*‖ ≤ ‖∇F(w)‖/(Λ+Δ); the certificate value is this distance bound relative to
max(1, ‖w‖) and must be ≤ 1e-10, else :class:`~simulations.solvers.CertificateError`.

Noise: the density ∝ exp(−r‖b‖) on R^d is sampled exactly as a Γ(d, 1/r) norm times a uniform
direction (:func:`sample_noise`).

==========================  ===============================================================
trial                       what one trial does
==========================  ===============================================================
``sensitivity_trial``       adversarial search for max ‖f*_D − f*_D′‖₂ over one replaced record
                            (artefact ``pair``: the worst neighbouring pair and its two fits)
``noise_norm_trial``        ``n_noise`` draws of the noise of Algorithm 1 or 2: mean ‖b‖
``utility_trial``           breast cancer (bundled with scikit-learn): misclassification of
                            Algorithms 1 and 2 at one ε
``rff_sensitivity_trial``   kernel version: worst replacement of one record for the random-
                            feature minimiser (artefact ``pair``, with its feature map)
``rff_noise_excess_trial``  kernel version, breast cancer: rise of the training loss from the
                            output noise, test errors of the release and of the fit
==========================  ===============================================================

Mechanisms (``MECHANISMS``): ``RFF_OUTPUT`` (``cms.rff_output``, Algorithm 1 on random Fourier
features with a certified solver, calibrated by ``cms.rff.beta``) and ``RFF_OBJECTIVE``
(``cms.rff_objective``, Algorithm 2 at (1 − ρ)ε plus the residual noise of ``cms.rff.amp_rate``),
used by :class:`simulations.random_features.DPRandomFeatureClassifier` and
:class:`~simulations.random_features.DPRandomFeatureRegressor`.

Examples
--------
>>> import numpy as np
>>> out = sensitivity_trial({"n": 30, "d": 2, "lam": 0.05, "n_search": 16}, np.random.default_rng(0))
>>> bool(0.3 < out["ratio"] <= 1.0), out["pair"]["j"] >= 0
(True, True)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from numpy.typing import NDArray
from scipy.special import expit

import bounds
from bounds.core import Statement, check_meaning, numeric, validate
from bounds.papers.cms import (
    ALG1_BETA,
    ALG1_MEAN_NORM,
    ALG1_SENSITIVITY,
    ALG2_C_LOGISTIC,
    ALG2_DELTA,
    ALG2_EPS_PRIME,
)
from simulations.runner import trial
from simulations.solvers import Certificate, require_certificate

FloatArray = NDArray[np.float64]

#: relative certificate tolerance: ‖∇F‖/((Λ+Δ)·max(1, ‖w‖))
TOL = 1e-10
#: the problem of the sensitivity searches and audits: class means ±MU·e₁, spread SIGMA, flips
MU, SIGMA, LABEL_NOISE = 0.5, 0.4, 0.1


# --------------------------------------------------------------------------- calibrations
def _value(key: Statement, which: str = "stated", *, branch: bool = False, **vals: float) -> float:
    """A statement's value: ``stated`` (as printed) or ``derived`` (the form its proof gives,
    which is sharper than the printed one for a consistent statement with slack; the registry's
    numeric form where nothing derives it).

    ``branch=True`` returns a value outside what the quantity means (ε′ ≤ 0 of Algorithm 2) instead
    of refusing it: there its sign is what selects the algorithm's branch.

    A relaxed premise the caller leaves out (``Statement.relaxes``: the feature norm q, the Lipschitz
    constant L, the optimisation tolerance tol) takes the paper's value (:meth:`Statement.paper_values`).
    """
    st = bounds.get(key)
    ev = bounds.evaluate(key)
    vals = st.paper_values(vals)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expr = st.stated if which == "stated" else ev.expression
        v = float(numeric(st, expr, validate(st, vals, expr, warn=False), vals))   # validates the values
    if which == "derived" and ev.derived is not None:
        subs = {ev.statement.ns[k].symbol: float(x) for k, x in vals.items()}
        v = float(sp.N(ev.derived.subs(subs), 30))
    if not branch:
        check_meaning(st, v, vals)
    return v


def curvature_logistic() -> float:
    """c of Algorithm 2 for the logistic loss (``cms.alg2.c_logistic``)."""
    return _value(ALG2_C_LOGISTIC)


def output_rate(n: int, lam: float, eps: float, which: str = "stated") -> float:
    """β of Algorithm 1 (``cms.alg1.beta``): the noise density is ∝ exp(−β‖b‖).

    Examples
    --------
    >>> output_rate(100, 0.1, 1.0)
    5.0
    """
    return _value(ALG1_BETA, which, n=n, Lam=lam, eps=eps)


def objective_calibration(n: int, lam: float, eps: float, which: str = "stated") -> dict[str, float]:
    """ε′, Δ and the noise rate ε′/2 of Algorithm 2 for the logistic loss.

    ``stated``: the printed rule (``cms.alg2.eps_prime``; if ε′ ≤ 0, Δ = ``cms.alg2.delta`` and
    ε′ = ε/2).  ``derived``: the same rule with the tight Jacobian factor of ``cms.alg2.det_ratio``.

    Examples
    --------
    >>> cal = objective_calibration(30, 0.05, 1.0)
    >>> round(cal["eps_p"], 4), cal["delta"], cal["regime"]
    (0.6917, 0.0, 1)
    >>> objective_calibration(30, 0.005, 1.0)["regime"]
    2
    """
    c = curvature_logistic()
    vals = dict(eps=eps, c=c, n=n, Lam=lam)
    eps_p = _value(ALG2_EPS_PRIME, which, branch=True, **vals)
    if eps_p > 0:
        return {"eps_p": eps_p, "delta": 0.0, "rate": eps_p / 2, "regime": 1, "c": c}
    delta = _value(ALG2_DELTA, which, **vals)
    return {"eps_p": eps / 2, "delta": delta, "rate": eps / 4, "regime": 2, "c": c}


# --------------------------------------------------------------------------- noise
def sample_noise(d: int, rate: float, rng: np.random.Generator, size: int) -> FloatArray:
    """``size`` exact draws from the density ∝ exp(−rate·‖b‖) on R^d, shape (size, d).

    The norm is Γ(d, 1/rate) (polar coordinates, ``cms.alg1.norm_law``) and the direction is
    uniform on the sphere (a normalised Gaussian vector).

    Examples
    --------
    >>> b = sample_noise(3, 2.0, np.random.default_rng(0), 100_000)
    >>> b.shape, bool(abs(np.linalg.norm(b, axis=1).mean() - 1.5) < 0.02)
    ((100000, 3), True)
    """
    if rate <= 0:
        raise ValueError(f"parameter 'rate' = {rate!r} must be positive")
    g = rng.standard_normal((size, d))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return g * rng.gamma(shape=d, scale=1.0 / rate, size=(size, 1))


# --------------------------------------------------------------------------- solver
def _loss(Z: FloatArray) -> FloatArray:
    """Logistic loss log(1 + e^{−Z}) at margins Z."""
    return np.logaddexp(0.0, -Z)


def _derivs(Z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """ℓ' and ℓ'' at margins Z (expit(−Z) computed once)."""
    e = expit(-Z)
    return -e, expit(Z) * e


def _parts(Z: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Logistic loss, ℓ' and ℓ'' at margins Z."""
    return (_loss(Z), *_derivs(Z))


@dataclass(frozen=True)
class LogisticFit:
    """A certified minimiser of J_D(f) + (1/n)bᵀf + (Δ/2)‖f‖²."""

    w: FloatArray
    certificate: Certificate

    @property
    def dist_bound(self) -> float:
        """Certified bound on ‖w − w*‖₂ (‖∇F(w)‖/(Λ+Δ))."""
        return float(self.certificate.details["dist_bound"])


def objective(w: FloatArray, X: FloatArray, y: FloatArray, lam: float, b: FloatArray | None = None,
              delta: float = 0.0) -> float:
    """F(w) = (1/n)Σ log(1 + e^{−y_i wᵀx_i}) + ((Λ+Δ)/2)‖w‖² + (1/n)bᵀw."""
    n = X.shape[0]
    out = float(np.mean(_loss((X * y[:, None]) @ w)) + (lam + delta) / 2 * w @ w)
    return out + (float(b @ w) / n if b is not None else 0.0)


def fit_logistic_batch(X: FloatArray, y: FloatArray, lam: float, B: FloatArray | None = None,
                       delta: float = 0.0, W0: FloatArray | None = None, tol: float = TOL,
                       max_iter: int = 100) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Minimise F_k(w) = J_D(w) + (1/n)b_kᵀw + (Δ/2)‖w‖² for every row b_k of ``B`` at once.

    Damped Newton (Armijo backtracking per problem).  Returns ``(W, rel, dist)``: the minimisers
    (k, d), the relative certificates ‖∇F_k‖/((Λ+Δ)max(1, ‖w_k‖)) and the distance bounds
    ‖∇F_k‖/(Λ+Δ).  Raises :class:`CertificateError` if any certificate exceeds ``tol``.
    """
    n, d = X.shape
    V = X * y[:, None]
    B = np.zeros((1, d)) if B is None else np.atleast_2d(np.asarray(B, dtype=float))
    k = B.shape[0]
    mu = lam + delta
    W = np.zeros((k, d)) if W0 is None else np.array(np.broadcast_to(W0, (k, d)), dtype=float)

    def value(Wc: FloatArray) -> FloatArray:
        return (np.mean(_loss(Wc @ V.T), axis=1) + mu / 2 * np.sum(Wc * Wc, axis=1)
                + np.sum(B * Wc, axis=1) / n)

    def grad(Wc: FloatArray) -> tuple[FloatArray, FloatArray]:
        l1, l2 = _derivs(Wc @ V.T)           # the loss itself is not needed here
        return l1 @ V / n + mu * Wc + B / n, l2

    def certificate(G: FloatArray, Wc: FloatArray) -> tuple[FloatArray, FloatArray]:
        dist = np.linalg.norm(G, axis=1) / mu
        return dist / np.maximum(1.0, np.linalg.norm(Wc, axis=1)), dist

    F = value(W)
    for _ in range(max_iter):
        G, l2 = grad(W)
        rel, _ = certificate(G, W)
        todo = rel > tol * 1e-2          # iterate a little beyond the tolerance
        if not todo.any():
            break
        H = np.einsum("kn,ni,nj->kij", l2[todo], V, V) / n + mu * np.eye(d)
        P = -np.linalg.solve(H, G[todo][..., None])[..., 0]
        slope = np.sum(G[todo] * P, axis=1)
        t = np.ones(int(todo.sum()))
        Wt, Ft = W[todo], F[todo]
        for _ls in range(40):
            Wn = Wt + t[:, None] * P
            Bt = B[todo] if B.shape[0] == k else B
            Fn = (np.mean(_loss(Wn @ V.T), axis=1) + mu / 2 * np.sum(Wn * Wn, axis=1)
                  + np.sum(Bt * Wn, axis=1) / n)
            # Armijo, with an allowance for rounding in F; near the optimum (relative certificate
            # below 1e-6) the full Newton step is taken (quadratic convergence region)
            ok = (Fn <= Ft + 1e-4 * t * slope + 1e-12 * (1.0 + np.abs(Ft))) | (rel[todo] < 1e-6)
            if ok.all():
                break
            t = np.where(ok, t, t / 2)
        W[todo], F[todo] = Wn, Fn
    G, _ = grad(W)
    rel, dist = certificate(G, W)
    worst = int(np.argmax(rel))
    cert = Certificate("relative_distance_bound", float(rel[worst]), tol, bool(np.all(np.isfinite(rel))),
                       solver="cms.fit_logistic_batch", details={"dist_bound": float(dist[worst]), "k": k})
    require_certificate(cert)
    return W, rel, dist


def fit_logistic(X: FloatArray, y: FloatArray, lam: float, b: FloatArray | None = None, delta: float = 0.0,
                 w0: FloatArray | None = None, tol: float = TOL) -> LogisticFit:
    """The certified minimiser of J_D(w) + (1/n)bᵀw + (Δ/2)‖w‖² (logistic loss, no intercept).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X, y = draw_problem(50, 3, rng)
    >>> fit = fit_logistic(X, y, lam=0.1)
    >>> fit.certificate.ok, fit.dist_bound < 1e-10
    (True, True)
    """
    W, rel, dist = fit_logistic_batch(X, y, lam, None if b is None else np.asarray(b)[None, :], delta,
                                      None if w0 is None else np.asarray(w0)[None, :], tol)
    cert = Certificate("relative_distance_bound", float(rel[0]), tol, True, solver="cms.fit_logistic",
                       details={"dist_bound": float(dist[0])})
    return LogisticFit(W[0], cert)


def noise_of_output(W: FloatArray, X: FloatArray, y: FloatArray, lam: float, delta: float) -> FloatArray:
    """The noise b that makes w the minimiser of Algorithm 2's objective: b = −n∇J_D(w) − nΔw."""
    n = X.shape[0]
    V = X * y[:, None]
    l1, _ = _derivs(np.atleast_2d(W) @ V.T)
    return -(l1 @ V) - n * (lam + delta) * np.atleast_2d(W)


def objective_log_density(W: FloatArray, X: FloatArray, y: FloatArray, lam: float, delta: float,
                          eps_p: float) -> FloatArray:
    """log p(w | D) of Algorithm 2's output up to a constant independent of D (change of variables).

    p(w|D) = ν(b_D(w)) |det ∇b_D(w)| with ν ∝ exp(−(ε′/2)‖b‖) and ∇b_D = −(Σ ℓ''(·)x_i x_iᵀ + n(Λ+Δ)I).
    """
    n, d = X.shape
    W = np.atleast_2d(W)
    V = X * y[:, None]
    Bn = np.linalg.norm(noise_of_output(W, X, y, lam, delta), axis=1)
    _, l2 = _derivs(W @ V.T)
    A = np.einsum("kn,ni,nj->kij", l2, V, V) + n * (lam + delta) * np.eye(d)
    return -eps_p / 2 * Bn + np.linalg.slogdet(A)[1]


# --------------------------------------------------------------------------- data
def draw_problem(n: int, d: int, rng: np.random.Generator, label_noise: float = LABEL_NOISE
                 ) -> tuple[FloatArray, FloatArray]:
    """n points: y = ±1 equiprobable, x = y·MU·e₁ + SIGMA·N(0, I) projected into the unit ball, labels
    flipped with probability ``label_noise``."""
    y = rng.choice([-1.0, 1.0], size=n)
    X = SIGMA * rng.standard_normal((n, d))
    X[:, 0] += MU * y
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    flip = rng.random(n) < label_noise
    return X, np.where(flip, -y, y)


def _unit(v: FloatArray) -> FloatArray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _candidates(d: int, f: FloatArray, n_search: int, rng: np.random.Generator) -> FloatArray:
    """Replacement inputs x′ on the unit sphere: a grid (d = 2) or random directions, ±e_i, ±f/‖f‖."""
    if d == 1:
        return np.array([[1.0], [-1.0]])
    if d == 2:
        a = np.linspace(0, 2 * np.pi, n_search, endpoint=False)
        base = np.column_stack([np.cos(a), np.sin(a)])
    else:
        base = _unit(rng.standard_normal((n_search, d)))
    extra = [np.eye(d), -np.eye(d)]
    if np.linalg.norm(f) > 0:
        extra.append(np.vstack([_unit(f), -_unit(f)]))
    return np.vstack([base, *extra])


def worst_neighbour(X: FloatArray, y: FloatArray, lam: float, n_search: int, rng: np.random.Generator,
                    n_exact: int = 24, n_refine: int = 80) -> dict[str, Any]:
    """Search for the replacement (j, x′, y′) maximising ‖f*_D − f*_D′‖₂.

    Screening: for every index j and candidate (x′, y′ = ±1), the first-order change
    H⁻¹(ℓ'(v_jᵀf)v_j − ℓ'(v′ᵀf)v′)/n (v = y·x, H the Hessian of J_D at f = f*_D); the ``n_exact``
    best are refitted exactly, the best of them refined by a random local search on the sphere
    (exact refits).  Every reported distance comes from two certified fits; ``cert_error`` bounds
    the error of the reported distance (sum of the two certified distance bounds).
    """
    n, d = X.shape
    fit = fit_logistic(X, y, lam)
    f = fit.w
    V = X * y[:, None]
    l1, l2 = _derivs(V @ f)
    H = (V.T * l2) @ V / n + lam * np.eye(d)
    cand = _candidates(d, f, n_search, rng)
    Vc = np.vstack([cand, -cand])                               # v′ = y′x′ for y′ = +1, −1
    yc = np.concatenate([np.ones(len(cand)), -np.ones(len(cand))])
    lc1, _ = _derivs(Vc @ f)
    G = (l1[:, None, None] * V[:, None, :] - lc1[None, :, None] * Vc[None, :, :]) / n   # (n, K, d)
    D = np.linalg.solve(H, G.reshape(-1, d).T).T
    score = np.linalg.norm(D, axis=1)
    order = np.argsort(score)[::-1][:n_exact]

    def refit(j: int, x_new: FloatArray, y_new: float) -> tuple[float, FloatArray, float]:
        X1, y1 = X.copy(), y.copy()
        X1[j], y1[j] = x_new, y_new
        g = fit_logistic(X1, y1, lam, w0=f)
        return float(np.linalg.norm(g.w - f)), g.w, g.dist_bound

    best = (-1.0, None, None, None, None, 0.0)
    for idx in order:
        j, kk = divmod(int(idx), len(Vc))
        x_new, y_new = yc[kk] * Vc[kk], float(yc[kk])
        dist, w1, err = refit(j, x_new, y_new)
        if dist > best[0]:
            best = (dist, j, x_new, y_new, w1, err)
    n_evals = len(order)
    dist, j, x_new, y_new, w1, err = best
    if d > 1:
        step = 0.5
        for _ in range(n_refine):
            prop = _unit(x_new + step * rng.standard_normal(d))
            dd, ww, ee = refit(j, prop, y_new)
            n_evals += 1
            if dd > dist:
                dist, x_new, w1, err = dd, prop, ww, ee
            else:
                step = max(step * 0.93, 1e-3)
    X1, y1 = X.copy(), y.copy()
    X1[j], y1[j] = x_new, y_new
    return {"dist": dist, "cert_error": err + fit.dist_bound, "n_screened": int(score.size),
            "n_exact": n_evals, "pair": {"X": X, "y": y, "X1": X1, "y1": y1, "j": int(j), "x_new": x_new,
                                         "y_new": y_new, "w": f, "w1": w1, "lam": lam}}


# --------------------------------------------------------------------------- trials
@trial(requires=("n", "d", "lam", "n_search"), optional=("label_noise", "n_exact", "n_refine", "q"),
       artefacts=("pair",))
def sensitivity_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Adversarial search for the L2 sensitivity of regularised logistic regression (``cms.alg1.sensitivity``).

    Config: ``n``, ``d``, ``lam`` (Λ), ``n_search`` (candidate directions); optional
    ``label_noise``, ``n_exact``, ``n_refine``.  Draws D from :func:`draw_problem` and runs
    :func:`worst_neighbour`.  Returns the worst distance found, its certified error, the bound
    2/(nΛ) (``cms.alg1.sensitivity``), their ratio and the artefact ``pair``.

    Optional ``q`` (default 1, the paper's ‖x‖ ≤ 1): the relaxed feature norm bound (issue 34).  The problem on
    data q·x at Λ is the unit problem at Λ/q² with w = v/q (J_q(w) = J_1(qw; Λ/q²), exactly), so the search runs
    on the unit problem at Λ/q² and its distances are divided by q; the bound is ``cms.alg1.sensitivity`` at q,
    2q/(nΛ).
    """
    n, d, lam = int(config["n"]), int(config["d"]), float(config["lam"])
    q = float(config.get("q", 1.0))
    X, y = draw_problem(n, d, rng, float(config.get("label_noise", LABEL_NOISE)))
    res = worst_neighbour(X, y, lam / q**2, int(config["n_search"]), rng, int(config.get("n_exact", 24)),
                          int(config.get("n_refine", 80)))
    bound = _value(ALG1_SENSITIVITY, n=n, Lam=lam, q=q)
    pair = res["pair"]
    if q != 1.0:       # the pair on the data of norm ≤ q: x scaled by q, w by 1/q
        pair = {**pair, "X": pair["X"] * q, "X1": pair["X1"] * q, "x_new": pair["x_new"] * q, "w": pair["w"] / q,
                "w1": pair["w1"] / q, "lam": lam}
    return {"max_dist": res["dist"] / q, "cert_error": res["cert_error"] / q, "bound": bound,
            "ratio": res["dist"] / q / bound, "n_screened": res["n_screened"], "n_exact": res["n_exact"],
            "pair": pair, "q": q}


@trial(requires=("n", "d", "lam", "eps", "n_noise"), optional=("mechanism", "calibration"))
def noise_norm_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Mean norm of ``n_noise`` draws of the noise of Algorithm 1 (``mechanism="output"``, default)
    or Algorithm 2 (``"objective"``), with the ``stated`` (default) or ``derived`` calibration.

    Returns ``mean_norm``, the noise ``rate`` and ``expected`` = d/rate (``cms.alg1.mean_norm``).
    """
    n, d, lam, eps = int(config["n"]), int(config["d"]), float(config["lam"]), float(config["eps"])
    which = str(config.get("calibration", "stated"))
    if str(config.get("mechanism", "output")) == "output":
        rate = output_rate(n, lam, eps, which)
    else:
        rate = objective_calibration(n, lam, eps, which)["rate"]
    b = sample_noise(d, rate, rng, int(config["n_noise"]))
    return {"mean_norm": float(np.linalg.norm(b, axis=1).mean()), "rate": rate,
            "expected": _value(ALG1_MEAN_NORM, d=d, beta=rate)}


def breast_cancer_unit_ball(rng: np.random.Generator, test_fraction: float = 0.3
                            ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """scikit-learn's bundled breast-cancer data (no download): standardised, rows scaled by the
    largest training norm (so ‖x‖ ≤ 1 on the training set; test rows are clipped to the ball),
    labels ±1, a random train/test split."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    perm = rng.permutation(len(y))
    n_test = int(round(test_fraction * len(y)))
    te, tr = perm[:n_test], perm[n_test:]
    m, s = X[tr].mean(0), X[tr].std(0)
    X = (X - m) / s
    X /= np.linalg.norm(X[tr], axis=1).max()
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = 2.0 * y - 1.0
    return X[tr], y[tr], X[te], y[te]


@trial(requires=("eps", "lam"), optional=("calibration", "n_noise"))
def utility_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Breast cancer: test misclassification of non-private, Algorithm 1 and Algorithm 2 logistic regression.

    One random split per trial; ``n_noise`` (default 20) noise draws per mechanism, averaged.
    """
    eps, lam = float(config["eps"]), float(config["lam"])
    which = str(config.get("calibration", "stated"))
    k = int(config.get("n_noise", 20))
    Xtr, ytr, Xte, yte = breast_cancer_unit_ball(rng)
    n, d = Xtr.shape
    f = fit_logistic(Xtr, ytr, lam).w

    def err(W: FloatArray) -> float:
        return float(np.mean(np.sign(np.atleast_2d(W) @ Xte.T) != yte[None, :]))

    W1 = f + sample_noise(d, output_rate(n, lam, eps, which), rng, k)
    cal = objective_calibration(n, lam, eps, which)
    B = sample_noise(d, cal["rate"], rng, k)
    W2, _, _ = fit_logistic_batch(Xtr, ytr, lam, B, cal["delta"], W0=f)
    return {"err_nonprivate": err(f), "err_output": err(W1), "err_objective": err(W2),
            "regime": float(cal["regime"]), "n_train": float(n)}


__all__ = ["LogisticFit", "breast_cancer_unit_ball", "curvature_logistic", "draw_problem", "fit_logistic",
           "fit_logistic_batch", "noise_norm_trial", "noise_of_output", "objective", "objective_calibration",
           "objective_log_density", "output_rate", "sample_noise", "sensitivity_trial", "utility_trial",
           "worst_neighbour"]


# --------------------------------------------------------------------------- kernel version (random features)
# The mechanisms of the private random-feature learner (simulations.random_features): every noise parameter
# comes from the cms.rff.* statements (and cms.alg2.* for objective perturbation), evaluated as printed.
from bounds.papers.cms import (  # noqa: E402  (the kernel section's handles, kept beside their use)
    ALG2_C_HUBER,
    LIPSCHITZ,
    RFF_AMP_RATE,
    RFF_BETA,
    RFF_FEATURE_NORM,
    RFF_SENSITIVITY,
    RFF_SENSITIVITY_INEXACT,
    RFF_SQ_LIPSCHITZ,
)
from simulations.random_features import (  # noqa: E402
    RandomFourierFeatures,
    VectorMechanism,
    glm_streamed,
    ridge_streamed,
    sample_norm_noise,
)

#: share ρ of ε spent on the residual noise of an inexact Algorithm 2 (cms.rff.amp_privacy)
RFF_RHO = 0.01


def rff_lipschitz(loss: str, lam: float, M: float | None = None) -> tuple[float, float]:
    """(L, R) of the kernel version: R from ``cms.rff.feature_norm`` (‖z‖² = 1), L = 1 (``cms.lipschitz``) for
    the logistic and Huber losses, L = M(1 + R/√Λ) (``cms.rff.sq_lipschitz``) for the squared loss.

    Examples
    --------
    >>> rff_lipschitz("logistic", 0.1)
    (1.0, 1.0)
    >>> round(rff_lipschitz("squared", 0.25, M=1.0)[0], 12)
    3.0
    """
    R = math.sqrt(_value(RFF_FEATURE_NORM, D=2))
    if loss == "squared":
        if M is None:
            raise ValueError("rff_lipschitz: parameter 'M' (the bound on |y|) is required for the squared loss")
        return _value(RFF_SQ_LIPSCHITZ, M=M, R_z=R, Lam=lam), R
    if loss not in ("logistic", "huber"):
        raise ValueError(f"rff_lipschitz: parameter 'loss' = {loss!r} is not 'logistic', 'huber' or 'squared'")
    return _value(LIPSCHITZ), R


def rff_output_calibration(*, n: int, lam: float, eps: float, tol: float, loss: str, which: str = "stated",
                           M: float | None = None, h: float | None = None) -> dict[str, float]:
    """Output perturbation on the random features: τ = tol·2LR/(nΛ) (``cms.rff.sensitivity``), sensitivity
    2LR/(nΛ) + 2τ (``cms.rff.sensitivity_inexact``) and β (``cms.rff.beta``); both calibrations coincide.  β is
    rounded down (``np.nextafter``) until β·sensitivity ≤ ε in floating point (rounding toward privacy).

    Examples
    --------
    >>> cal = rff_output_calibration(n=100, lam=0.1, eps=1.0, tol=1e-3, loss="logistic")
    >>> round(cal["sensitivity"], 9), round(cal["rate"] * cal["sensitivity"], 12)
    (0.2004, 1.0)
    """
    L, R = rff_lipschitz(loss, lam, M)
    sens = _value(RFF_SENSITIVITY, C_L=L, R_z=R, n=n, Lam=lam)
    tau = tol * sens
    full = _value(RFF_SENSITIVITY_INEXACT, C_L=L, R_z=R, n=n, Lam=lam, tau=tau)
    beta = _round_down(_value(RFF_BETA, n=n, Lam=lam, eps=eps, C_L=L, R_z=R, tau=tau), lambda b: b * full <= eps)
    return {"rate": beta, "tau": tau, "sensitivity": full, "L": L, "R": R, "delta": 0.0,
            "eps_spent": beta * full}


def _round_down(rate: float, ok: Callable[[float], bool]) -> float:
    """``rate`` lowered ulp by ulp (``np.nextafter`` toward 0) until ``ok(rate)``: rounding toward privacy
    (a noise rate whose computed ε spent would exceed ε by an ulp is lowered; more noise, never less).

    Examples
    --------
    >>> _round_down(1.0, lambda r: r * 3.0 <= 2.9999999999999996) < 1.0
    True
    """
    for _ in range(64):
        if ok(rate):
            return rate
        rate = float(np.nextafter(rate, 0.0))
    raise ValueError(f"the noise rate could not be rounded to spend at most ε (stopped at {rate!r})")


def alg2_branch(*, eps: float, c: float, n: int, lam: float, which: str = "stated") -> dict[str, float]:
    """The branch of Algorithm 2 adding the least noise, then the least extra regularisation (the rule of
    ``python -m bounds calibrate``: :func:`bounds.calibrate._best_branch` over the costs declared in
    ``bounds.papers.cms.BRANCHES``), among the branches whose ``which`` form applies at these values.

    Returns ``eps_p``, ``delta``, ``rate`` (= ε′/2) and ``regime`` (1: Δ = 0; 2: ε′ = ε/2, Δ of
    ``cms.alg2.delta``).  Data-independent: it reads only public parameters.

    Examples
    --------
    >>> b = alg2_branch(eps=0.99, c=0.25, n=1000, lam=1.5e-4, which="derived")   # branch 1: ε′ = 0.00917, 54× the noise
    >>> b["regime"], round(b["delta"], 9)
    (2, 0.000240321)
    """
    from bounds.calibrate import BranchRow, _best_branch
    from bounds.papers.cms import BRANCHES

    members = BRANCHES["alg2"]["members"]
    vals = dict(eps=eps, c=c, n=n, Lam=lam)
    rows, params = [], {}
    eps_p = _value(ALG2_EPS_PRIME, which, branch=True, **vals)
    if eps_p > 0:
        noise, extra = members["alg2.eps_prime"]["cost"](eps_p, **vals)
        rows.append(BranchRow(ALG2_EPS_PRIME.key, "first", "derived", eps_p, float(noise), float(extra)))
        params[ALG2_EPS_PRIME.key] = {"eps_p": eps_p, "delta": 0.0, "rate": eps_p / 2, "regime": 1}
    try:
        delta = _value(ALG2_DELTA, which, **vals)
    except ValueError:          # outside its meaning here (Δ ≤ 0): the second branch does not apply
        delta = None
    if delta is not None:
        noise, extra = members["alg2.delta"]["cost"](delta, **vals)
        rows.append(BranchRow(ALG2_DELTA.key, "second", "derived", delta, float(noise), float(extra)))
        params[ALG2_DELTA.key] = {"eps_p": eps / 2, "delta": delta, "rate": eps / 4, "regime": 2}
    # rows are labelled "derived" for _best_branch's filter; they hold the values of the requested form
    best = _best_branch(rows, dict.fromkeys(params, True))
    if best is None:
        raise ValueError(f"no branch of Algorithm 2 applies at ε = {eps:g}, n = {n}, Λ = {lam:g} ({which} form)")
    return params[best.key]


def rff_objective_calibration(*, n: int, lam: float, eps: float, tol: float, loss: str, which: str = "stated",
                              h: float = 0.5, M: float | None = None, rho: float = RFF_RHO) -> dict[str, float]:
    """Objective perturbation on the random features with a certified solver: Algorithm 2 at ε₁ = (1 − ρ)ε
    (ε′, Δ of ``cms.alg2.eps_prime`` / ``cms.alg2.delta``, c of ``cms.alg2.c_logistic`` / ``cms.alg2.c_huber``;
    ``which`` = stated or derived), and the residual noise of rate ρε/(2τ) (``cms.rff.amp_rate``).  The branch
    is the one adding the least noise, then the least extra regularisation (:func:`alg2_branch`, the rule of
    ``python -m bounds calibrate``), not the printed "first branch whenever ε′ > 0"; the residual rate is rounded
    down (``np.nextafter``) so that the computed ε spent never exceeds ε.

    Examples
    --------
    >>> cal = rff_objective_calibration(n=1000, lam=0.01, eps=1.0, tol=1e-3, loss="logistic")
    >>> cal["regime"], round(cal["eps_spent"], 12) <= 1.0
    (1, True)
    """
    if loss == "squared":
        raise ValueError("objective perturbation needs a loss Lipschitz everywhere; the squared loss is not")
    L, R = rff_lipschitz(loss, lam, M)
    c = curvature_logistic() if loss == "logistic" else _value(ALG2_C_HUBER, h=h)
    eps1 = (1 - rho) * eps
    br = alg2_branch(eps=eps1, c=c, n=n, lam=lam, which=which)
    delta, rate, regime, eps_p = br["delta"], br["rate"], br["regime"], br["eps_p"]
    sens = _value(RFF_SENSITIVITY, C_L=L, R_z=R, n=n, Lam=lam)
    tau = tol * sens
    r2 = _round_down(_value(RFF_AMP_RATE, rho=rho, eps=eps, tau=tau), lambda r: eps1 + r * 2 * tau <= eps)
    return {"rate": rate, "delta": delta, "eps_p": eps_p, "regime": regime, "c": c, "tau": tau,
            "residual_rate": r2, "sensitivity": 2 * tau, "eps_spent": eps1 + r2 * 2 * tau, "L": L, "R": R}


RFF_OUTPUT = VectorMechanism(
    "cms.rff_output", RFF_BETA, algorithms=("rff_output",), release="w̃ + b on random Fourier features, "
    "b ∝ exp(−β‖b‖) (Algorithm 1 with a certified solver)", sampler=sample_norm_noise,
    calibrator=rff_output_calibration, extra=(RFF_SENSITIVITY, RFF_SENSITIVITY_INEXACT, RFF_FEATURE_NORM))
RFF_OBJECTIVE = VectorMechanism(
    "cms.rff_objective", RFF_AMP_RATE, algorithms=("rff_objective",), release="argmin J + bᵀw/n + Δ‖w‖²/2, "
    "then + b′ of rate ρε/(2τ) (Algorithm 2 with a certified solver)", sampler=sample_norm_noise,
    calibrator=rff_objective_calibration, extra=(ALG2_EPS_PRIME, ALG2_DELTA, RFF_SENSITIVITY))



def linear_output_calibration(*, n: int, lam: float, eps: float, q: float, tol: float, L: float = 1.0,
                              which: str = "stated") -> dict[str, float]:
    """Algorithm 1 on raw features with the relaxed premises (issue 34): ‖x‖ ≤ q, |ℓ'| ≤ L, a released minimiser
    with ‖∇J(w̃)‖ ≤ tol.  Sensitivity 2Lq/(nΛ) + 2·tol/Λ (``cms.alg1.sensitivity``) and β (``cms.alg1.beta``), both
    read from the statements with these values (nothing re-typed); β is rounded down until β·sensitivity ≤ ε.

    Examples
    --------
    >>> cal = linear_output_calibration(n=1000, lam=0.01, eps=0.5, q=20.0, tol=0.0)
    >>> cal["rate"], cal["sensitivity"]
    (0.125, 4.0)
    """
    vals = {"n": n, "Lam": lam, "q": q, "C_L": L, "tol": tol}
    sens = _value(ALG1_SENSITIVITY, which, **vals)
    beta = _round_down(_value(ALG1_BETA, which, eps=eps, **vals), lambda b: b * sens <= eps)
    return {"rate": beta, "tau": tol / lam, "sensitivity": sens, "L": L, "R": q, "delta": 0.0,
            "eps_spent": beta * sens}


#: the algorithm cms.alg1.beta's premises name (Statement.premises["algorithm"]); the linear estimator establishes it
LINEAR_ALGORITHM = ALG1_BETA.premises["algorithm"]
LINEAR_OUTPUT = VectorMechanism(
    "cms.linear_output", ALG1_BETA, algorithms=("linear_output",), release="w̃ + b on the raw features, "
    "b ∝ exp(−β‖b‖) (Algorithm 1 with ‖x‖ ≤ q, |ℓ'| ≤ L and ‖∇J(w̃)‖ ≤ tol)", sampler=sample_norm_noise,
    calibrator=linear_output_calibration, extra=(ALG1_SENSITIVITY,))

MECHANISMS = (RFF_OUTPUT, RFF_OBJECTIVE, LINEAR_OUTPUT)


def rff_problem(n: int, d: int, rng: np.random.Generator, task: str = "classification"
                ) -> tuple[FloatArray, FloatArray]:
    """n points x ~ N(0, I_d)/√d; classification: y = sign(sin(2x₁) + 0.3·N(0, 1)) ∈ ±1; regression:
    y = clip(sin(2x₁) + 0.1·N(0, 1), −1, 1)."""
    X = rng.standard_normal((n, d)) / math.sqrt(d)
    f = np.sin(2 * X[:, 0] * math.sqrt(d))
    if task == "classification":
        return X, np.where(f + 0.3 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    return X, np.clip(f + 0.1 * rng.standard_normal(n), -1.0, 1.0)


def rff_worst_pair(n: int, d: int, D: int, lam: float, gamma: float, task: str, rng: np.random.Generator,
                   n_cand: int = 64, loss: str = "logistic") -> dict[str, Any]:
    """A hard neighbouring pair for the random-feature learner: the last record replaced by the candidate
    (x′, y′) (random inputs, both extreme labels) that moves the certified minimiser the most.

    Returns the pair, the feature map (its frequencies), both minimisers and their distance.
    """
    X, y = rff_problem(n, d, rng, task)
    fm = RandomFourierFeatures(d, D, gamma, rng)
    sens_tau = 1e-9

    def fit(Xm: FloatArray, ym: FloatArray) -> tuple[FloatArray, float]:
        f = (glm_streamed(fm, Xm, ym, lam, sens_tau, loss) if task == "classification"
             else ridge_streamed(fm, Xm, ym, lam, sens_tau, 1.0))
        return f.w, f.dist_bound

    w0, e0 = fit(X, y)
    best = (-1.0, None, None, None, 0.0)
    # random inputs, and the last record's own input (a label flip moves the minimiser the most where ℓ' = ±1)
    cands = np.vstack([X[-1:], rng.standard_normal((n_cand, d)) / math.sqrt(d)])
    for xc in cands:
        for yc in (-1.0, 1.0):
            X1, y1 = X.copy(), y.copy()
            X1[-1], y1[-1] = xc, yc
            w1, e1 = fit(X1, y1)
            dist = float(np.linalg.norm(w1 - w0))
            if dist > best[0]:
                best = (dist, X1, y1, w1, e1)
    dist, X1, y1, w1, e1 = best
    return {"X": X, "y": y, "X1": X1, "y1": y1, "w": w0, "w1": w1, "dist": dist, "fmap": fm, "lam": lam,
            "task": task, "loss": loss, "cert_error": e0 + e1}


@trial(requires=("n", "d", "D", "lam", "gamma", "task"), optional=("n_cand", "loss"), artefacts=("pair",))
def rff_sensitivity_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Search for the sensitivity of the random-feature minimiser (``cms.rff.sensitivity``): the worst
    replacement of the last record among ``n_cand`` random inputs × both extreme labels, exact (certified)
    refits; returns the distance, the bound 2LR/(nΛ) and the artefact ``pair``."""
    n, d, D, lam = int(config["n"]), int(config["d"]), int(config["D"]), float(config["lam"])
    task, loss = str(config["task"]), str(config.get("loss", "logistic"))
    res = rff_worst_pair(n, d, D, lam, float(config["gamma"]), task, rng, int(config.get("n_cand", 64)), loss)
    L, R = rff_lipschitz("squared" if task == "regression" else loss, lam, 1.0)
    bound = _value(RFF_SENSITIVITY, C_L=L, R_z=R, n=n, Lam=lam)
    return {"max_dist": res["dist"], "cert_error": res["cert_error"], "bound": bound, "ratio": res["dist"] / bound,
            "pair": res}


@trial(requires=("lam", "eps", "D", "gamma"), optional=("loss", "n_noise", "tol"))
def rff_noise_excess_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Breast cancer (bundled): the certified private random-feature classifier by output perturbation;
    the mean over ``n_noise`` noise draws of L̂(w̃ + b) − L̂(w̃) on the training set (``cms.rff.noise_excess``
    bounds it by LR(D/β + τ)), and the test error of the release and of the non-private w̃."""
    from simulations.data import load_real_dataset

    ds = load_real_dataset("breast_cancer", seed=int(rng.integers(2**31)))
    lam, eps, D, gamma = float(config["lam"]), float(config["eps"]), int(config["D"]), float(config["gamma"])
    loss, k, tol = str(config.get("loss", "logistic")), int(config.get("n_noise", 50)), float(config.get("tol", 1e-3))
    n = ds.X_train.shape[0]
    cal = rff_output_calibration(n=n, lam=lam, eps=eps, tol=tol, loss=loss)
    fm = RandomFourierFeatures(ds.X_train.shape[1], D, gamma, rng)
    fit = glm_streamed(fm, ds.X_train, ds.y_train, lam, cal["tau"], loss)
    Ztr, Zte = fm.transform(ds.X_train), fm.transform(ds.X_test)
    B = sample_norm_noise(rng, 1.0 / cal["rate"], (k, D))
    from simulations.random_features import _loss_parts

    def emp(W: FloatArray) -> FloatArray:
        return np.mean(_loss_parts(loss, 0.5, (np.atleast_2d(W) @ Ztr.T) * ds.y_train)[0], axis=1)

    excess = float(np.mean(emp(fit.w + B)) - emp(fit.w)[0])
    err_priv = float(np.mean(np.sign((fit.w + B) @ Zte.T) != ds.y_test[None, :]))
    err_np = float(np.mean(np.sign(Zte @ fit.w) != ds.y_test))
    bound = cal["L"] * cal["R"] * (D / cal["rate"] + cal["tau"])
    return {"excess": excess, "bound": bound, "err_private": err_priv, "err_nonprivate": err_np,
            "n_train": float(n), "rate": cal["rate"]}


__all__ += ["alg2_branch", "MECHANISMS", "RFF_OBJECTIVE", "RFF_OUTPUT", "rff_lipschitz", "rff_noise_excess_trial",  # noqa: PLE0605
            "rff_objective_calibration", "rff_output_calibration", "rff_problem", "rff_sensitivity_trial",
            "rff_worst_pair"]
