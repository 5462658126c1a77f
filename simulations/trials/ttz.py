r"""Trials of seed 002 (Talwar, Thakurta & Zhang, ``002_9f0d50e873e3e787.txt``).

Module-level trial functions ``trial(config, rng) -> dict[str, float]`` for
:mod:`simulations.runner` (all randomness from ``rng``):

:func:`fw_lasso_trial`
    one LASSO data set (x_i uniform on [−1, 1]^p so ‖x_i‖_∞ ≤ 1, y_i = clip(⟨x_i, θ⁰⟩ + noise, −1, 1)),
    its exact minimiser over the unit ℓ1 ball (:func:`~simulations.private_erm.lasso_l1_solve`,
    Frank–Wolfe gap ≤ 1e-10, else the trial is rejected), then ``n_rep`` runs of private
    Frank–Wolfe with the Laplace scale of ``ttz.fw.scale`` (``calibration`` = ``derived`` or
    ``stated``) and T of ``ttz.fw.T_schedule`` (L₁ = 4, ‖C‖₁ = 1, Γ = 8); returns the mean excess
    empirical risk L(θ_T) − L* over the runs.
:func:`md_linear_trial`
    private mirror descent (σ of ``ttz.md.sigma.zcdp``, the step size of ``ttz.thm3_2.explicit``) on
    the linear loss ℓ(θ; d) = −⟨d, θ⟩ (‖d‖₂ ≤ 1, so L = 1) over the unit ℓ2 or ℓ1 ball, for data sets
    with mean d̄ = a·e₁ (a fraction (1 + a)/2 of the records are e₁, the rest −e₁) and every a of
    ``a_grid``; L* = −a on both balls, so the excess of the average iterate θ̄ is a(1 − θ̄₁).
    Returns the mean excess for each a (``excess_<i>``): the check takes the worst a.
:func:`width_trial`
    ``n_mc`` Gaussian draws of sup_C⟨θ, g⟩ (dimensions ``d1`` and, for matrices and groups, ``d2``);
    returns their mean.

Examples
--------
>>> import numpy as np
>>> out = fw_lasso_trial(fw_config(n=2000, p=5, n_rep=4), np.random.default_rng(0))
>>> out["excess"] >= -1e-9 and out["gap"] <= 1e-10
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import numpy as np

import bounds
from bounds.core import Statement
from bounds.papers import ttz as B
from simulations.runner import trial

from ..private_erm import (
    gaussian_width_mc,
    lasso_l1_solve,
    lasso_loss,
    md_step_size,
    private_fw_lasso,
    private_mirror_descent_linear,
)

#: LASSO constants: ‖∇ℓ‖_∞ = 2|y − ⟨x, θ⟩|‖x‖_∞ ≤ 4, ‖B₁‖₁ = 1, Γ ≤ 8 (``ttz.fw.lasso_curv``)
LASSO_L1, LASSO_C1, LASSO_GAMMA = 4.0, 1.0, 8.0

FW_DEFAULTS: dict[str, Any] = {"n": 20000, "p": 5, "eps": 0.5, "delta": 1e-8, "calibration": "derived",
                               "n_rep": 10, "theta0": [0.5, -0.3, 0.2], "noise": 0.1, "T": None}
MD_DEFAULTS: dict[str, Any] = {"n": 200, "p": 8, "eps": 1.0, "delta": 1e-8, "geometry": "l2", "T": 200,
                               "n_rep": 8, "a_grid": [float(a) for a in np.logspace(-2, 0, 9)]}


def fw_config(**kw: Any) -> dict[str, Any]:
    """A configuration of :func:`fw_lasso_trial` (defaults :data:`FW_DEFAULTS`)."""
    unknown = set(kw) - set(FW_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown configuration keys {sorted(unknown)}")
    return {**FW_DEFAULTS, **kw}


def md_config(**kw: Any) -> dict[str, Any]:
    """A configuration of :func:`md_linear_trial` (defaults :data:`MD_DEFAULTS`)."""
    unknown = set(kw) - set(MD_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown configuration keys {sorted(unknown)}")
    return {**MD_DEFAULTS, **kw}


def fw_T(n: int, eps: float) -> int:
    """T of ``ttz.fw.T_schedule`` for LASSO, rounded up: ⌈(Γnε/(L₁‖C‖₁))^{2/3}⌉ with Γ = 8, L₁ = 4.

    Examples
    --------
    >>> fw_T(1000, 0.5)
    100
    """
    import bounds

    v = bounds.value(B.FW_T_SCHEDULE, {"Gamma_L": LASSO_GAMMA, "n": n, "eps": eps, "L1": LASSO_L1, "C1": LASSO_C1})
    return max(2, int(math.ceil(v - 1e-9)))


def lasso_data(n: int, p: int, theta0: list[float], noise: float,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """x_i ~ U[−1, 1]^p, y_i = clip(⟨x_i, θ⁰⟩ + noise·N(0, 1), −1, 1) (θ⁰ padded with zeros)."""
    th = np.zeros(p)
    th[: min(p, len(theta0))] = theta0[:p]
    X = rng.uniform(-1.0, 1.0, (n, p))
    y = np.clip(X @ th + noise * rng.standard_normal(n), -1.0, 1.0)
    return X, y


def lasso_data_stats(n: int, p: int, theta0: list[float], noise: float, rng: np.random.Generator,
                     chunk: int = 250_000) -> tuple[np.ndarray, np.ndarray, float]:
    """(A, c, mean y²) of a :func:`lasso_data` sample, generated in chunks of ``chunk`` rows (memory O(chunk·p)).

    The draws are those of :func:`lasso_data` chunk by chunk, so for n ≤ chunk the statistics are those of
    ``lasso_stats(*lasso_data(...))`` on the same generator.
    """
    th = np.zeros(p)
    th[: min(p, len(theta0))] = theta0[:p]
    A = np.zeros((p, p))
    c = np.zeros(p)
    yy = 0.0
    # the steps of lasso_data in buffers reused chunk after chunk (no fresh pages per chunk), the same bits:
    # uniform(−1, 1) is −1 + 2·U of the same U (2·U − 1: 2·U is exact), X @ th the same gemv, then
    # + noise·N(0, 1) and the clip
    b0 = max(0, min(chunk, n))
    Xb, yb, eb = np.empty((b0, p)), np.empty(b0), np.empty(b0)
    left = n
    while left > 0:
        b = min(chunk, left)
        X, y, e = Xb[:b], yb[:b], eb[:b]
        rng.random(out=X)
        X *= 2.0
        X -= 1.0
        np.matmul(X, th, out=y)
        rng.standard_normal(out=e)
        e *= noise
        y += e
        np.clip(y, -1.0, 1.0, out=y)
        A += X.T @ X
        c += X.T @ y
        yy += float(y @ y)
        left -= b
    return A / n, c / n, yy / n


@trial(requires=('T', 'calibration', 'delta', 'eps', 'n', 'n_rep', 'noise', 'p', 'theta0'))
def fw_lasso_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One data set, its certified minimiser, ``n_rep`` private Frank–Wolfe runs (see the module docstring)."""
    n, p, eps, delta = int(config["n"]), int(config["p"]), float(config["eps"]), float(config["delta"])
    T, scale = _fw_setup(n, eps, delta, int(config["T"]) if config.get("T") else None, str(config["calibration"]))
    A, c, yy = lasso_data_stats(n, p, list(config["theta0"]), float(config["noise"]), rng)
    sol = lasso_l1_solve(A, c, yy)
    th = private_fw_lasso(A, c, T, scale, rng, n_rep=int(config["n_rep"]))
    ex = lasso_loss(th, A, c, yy) - sol.loss
    return {"excess": float(ex.mean()), "excess_sd": float(ex.std(ddof=1)) if ex.size > 1 else 0.0,
            "gap": sol.gap, "T": float(T), "scale": scale, "curvature": float(8 * np.max(np.diag(A))),
            "L_star": sol.loss}


@trial(requires=('T', 'a_grid', 'delta', 'eps', 'geometry', 'n', 'n_rep', 'p'))
def md_linear_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Private mirror descent on linear losses with d̄ = a·e₁, for every a of ``a_grid`` (module docstring)."""
    n, p, eps, delta = int(config["n"]), int(config["p"]), float(config["eps"]), float(config["delta"])
    T, geometry, R = int(config["T"]), str(config["geometry"]), int(config["n_rep"])
    sigma, eta = _md_setup(n, p, eps, delta, T, geometry)
    out: dict[str, float] = {"sigma": sigma, "eta": eta}
    # the data sets: round(n(1 + a)/2) records e₁, the rest −e₁; their mean is a_n·e₁.  All a run at once:
    # chains i·R … (i+1)·R − 1 belong to the i-th a.
    a_n = np.array([(2 * int(round(n * (1 + float(a)) / 2)) - n) / n for a in config["a_grid"]])
    G_rows = np.zeros((a_n.size * R, p))
    G_rows[:, 0] = -np.repeat(a_n, R)
    th = private_mirror_descent_linear(G_rows, geometry, T, eta, sigma, rng)
    ex = (np.repeat(a_n, R) * (1 - th[:, 0])).reshape(a_n.size, R).mean(axis=1)
    for i in range(a_n.size):
        out[f"excess_{i}"] = float(ex[i])
        out[f"a_{i}"] = float(a_n[i])
    return out


@lru_cache(maxsize=64)
def _fw_setup(n: int, eps: float, delta: float, T: int | None, calibration: str) -> tuple[int, float]:
    """(T, Laplace scale) of a Frank–Wolfe configuration (T None: ``fw_T``; a given T, even 0, is checked by
    ``fw_scale``); computed once per process and configuration, not once per trial (a pure function of its
    arguments)."""
    T = fw_T(n, eps) if T is None else T
    return T, fw_scale(LASSO_L1, LASSO_C1, T, n, eps, delta, which=calibration)


@lru_cache(maxsize=64)
def _md_setup(n: int, p: int, eps: float, delta: float, T: int, geometry: str) -> tuple[float, float]:
    """(σ, η) of a mirror-descent configuration, computed once per process and configuration."""
    sigma = md_sigma(1.0, n, T, eps, delta)
    if geometry == "l2":
        D2, G = 0.5, float(B.chi_mean(p))
    elif geometry == "l1":
        D2, G = math.log(2 * p), B.expected_max_abs_gaussian(p)
    else:
        raise ValueError(f"parameter 'geometry' = {geometry!r} must be 'l2' or 'l1'")
    return sigma, md_step_size(D2, 1.0, sigma, G, 1.0, T)


@trial(requires=('d1', 'd2', 'n_mc', 'set'))
def width_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Mean of ``n_mc`` draws of sup_C⟨θ, g⟩ for ``set`` and ``d1``/``d2`` (see :func:`gaussian_width_mc`)."""
    dims = (int(config["d1"]),) if not config.get("d2") else (int(config["d1"]), int(config["d2"]))
    m, _, _ = gaussian_width_mc(str(config["set"]), dims, int(config["n_mc"]), rng)
    return {"width": m}


# --------------------------------------------------------------------------------------
# noise calibration and Gaussian widths of the paper (from bounds/papers/ttz.py)
# --------------------------------------------------------------------------------------
def fw_scale(L1: float, C1: float, T: int, n: int, eps: float, delta: float, which: str = "derived") -> float:
    """Laplace scale λ of the vertex scores (``ttz.fw.scale``): the paper's (``stated``), the derived or the tight one.

    ``stated`` and ``derived`` evaluate the statement (advanced composition; the printed scale is ¼ of
    the derived one); ``tight`` is the smallest scale the PLD accountant certifies
    (:func:`bounds.papers.ttz.fw_scale_tight`: exact composition of T ε₀-DP selections).

    Examples
    --------
    >>> round(fw_scale(4, 1, 100, 1000, 0.5, 1e-6, "derived") / fw_scale(4, 1, 100, 1000, 0.5, 1e-6, "stated"), 6)
    4.0
    >>> fw_scale(4, 1, 100, 1000, 0.5, 1e-6, "tight") < fw_scale(4, 1, 100, 1000, 0.5, 1e-6, "derived")
    True
    """
    if which == "tight":
        return B.fw_scale_tight(L1, C1, T, n, eps, delta)
    if which not in ("stated", "derived"):
        raise ValueError(f"parameter 'which' = {which!r} must be 'stated', 'derived' or 'tight'")
    return bounds.value(B.FW_SCALE, {"L1": L1, "C1": C1, "T": T, "n": n, "eps": eps, "delta": delta},
                        which=which)


def md_sigma(L: float, n: int, T: int, eps: float, delta: float, which: str = "derived") -> float:
    """σ of Algorithm 1's Gaussian noise for (ε, δ)-DP after T steps.

    ``derived`` (default): ``ttz.md.sigma.zcdp`` (zCDP composition, Bun & Steinke); ``tight``: the
    smallest σ the PLD accountant certifies (:func:`bounds.papers.ttz.md_sigma_tight`).

    Examples
    --------
    >>> s = md_sigma(1.0, 1000, 100, 1.0, 1e-5)
    >>> rho = (math.sqrt(math.log(1e5) + 1) - math.sqrt(math.log(1e5))) ** 2
    >>> round(s**2 / (2 * 100 / (1000**2 * rho)), 9)
    1.0
    >>> round(s / md_sigma(1.0, 1000, 100, 1.0, 1e-5, which="tight"), 2)
    1.31
    """
    import warnings

    if which == "tight":
        return B.md_sigma_tight(L, n, T, eps, delta)
    if which != "derived":
        raise ValueError(f"parameter 'which' = {which!r} must be 'derived' or 'tight'")
    with warnings.catch_warnings():  # ε ≥ 1 is allowed here (zCDP conversion holds for every ε)
        warnings.simplefilter("ignore")
        return math.sqrt(bounds.value(B.MD_SIGMA_ZCDP, {"L2": L, "n": n, "T": T, "eps": eps, "delta": delta}))


def _closed_forms() -> dict[str, Callable[[tuple[int, ...]], float]]:
    ttz = B
    return {
        "l2": lambda d: float(ttz.chi_mean(d[0])),
        "l1": lambda d: ttz.expected_max_abs_gaussian(d[0]),
        "simplex": lambda d: ttz.expected_max_gaussian(d[0]),
        "group": lambda d: ttz.expected_max_chi(d[0], d[1]),
    }


#: exact Gaussian widths (chi mean; quadratures of the laws of ‖g‖_∞, max g_i, max of chi variables)
WIDTH_CLOSED_FORMS: dict[str, Callable[[tuple[int, ...]], float]] = _closed_forms()

#: the upper bounds of ``bounds`` (statement, bound)
WIDTH_BOUNDS: dict[str, tuple[Statement, Callable[[tuple[int, ...]], float]]] = {
    "l2": (B.GW_L2, lambda d: math.sqrt(d[0])),
    "l1": (B.GW_L1, lambda d: math.sqrt(2 * math.log(2 * d[0]))),
    "simplex": (B.GW_SIMPLEX, lambda d: math.sqrt(2 * math.log(d[0]))),
    "group": (B.GW_GROUP, lambda d: math.sqrt(d[0]) + math.sqrt(2 * math.log(d[1]))),
    "nuclear": (B.GW_NUCLEAR, lambda d: math.sqrt(d[0]) + math.sqrt(d[1])),
}
