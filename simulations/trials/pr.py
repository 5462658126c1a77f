"""Trial functions of seed 004 (Pathak & Raj, PSDML 2010): the private large-margin classifier.

Seed file ``004_69734a6b7aad1d0d.txt``.  The classifier, the solver with its duality-gap
certificate and the exact noise sampler are in :mod:`simulations.large_margin`.

=========================  ===============================================================
trial                      what one trial does
=========================  ===============================================================
``lemma1_trial``           adversarial search for max ‖∂ℓ/∂Φ_c(x, y) − ∂ℓ/∂Φ_c(x', y')‖_F
``lemma2_trial``           curvature of J along random directions and the flat one
``thm5_trial``             one data set, its certified inf J, ``n_noise`` perturbed solves:
                           Theorem 5.2 and 5.3 excesses, unbounded draws counted
``utility_trial``          iris (bundled with scikit-learn): one draw per ε, accuracy and
                           regularised excess risk of Φ^p against the non-private fit
=========================  ===============================================================

Examples
--------
>>> import numpy as np
>>> out = lemma1_trial({"K": 2, "d": 1, "h": 0.5, "n_search": 50}, np.random.default_rng(0))
>>> 2.0 < out["max_norm"] <= 2 * max(2, 2**0.5) + 1e-9      # beyond Lemma 1's 2, within the derived sup
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from simulations.runner import trial

from ..large_margin import (
    augment,
    b_matrix,
    gaussian_classes,
    huber,
    is_bounded_below,
    loss_value,
    margins,
    objective,
    per_example_class_grad,
    predict,
    random_psd,
    sample_perturbation,
    solve,
    solve_batch,
)

SEED = "004_69734a6b7aad1d0d.txt"

#: Lemma 1 cases, in the order of the derived bound 2·max(√2, C, √2(C − 1))
CASES = ("c_not_in_yy", "c_eq_y_ne_yp", "c_eq_y_eq_yp")


# --------------------------------------------------------------------------- Lemma 1
def _orth(v: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random unit vector orthogonal to v."""
    g = rng.standard_normal(v.size)
    g -= v * (g @ v) / (v @ v)
    return g / np.linalg.norm(g)


def _unit(d: int, rng: np.random.Generator) -> np.ndarray:
    g = rng.standard_normal(d)
    return g / np.linalg.norm(g)


@trial(requires=('K', 'd', 'h', 'n_search'))
def lemma1_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Adversarial search for the gradient sensitivity of 004 Lemma 1.

    Config: ``K``, ``d``, ``h``, ``n_search``.  Each candidate draws x on the unit sphere, x'
    antipodal, nearly parallel (in the ball) or random on the sphere, labels y, y' and a class c, and
    class matrices Φ_k = a_k p_kp_kᵀ + a'_k r_kr_kᵀ with p_k ⊥ x̃', r_k ⊥ x̃ (so the scores at x
    and x' are set independently, log-uniform in [1e-3, 1e6]), or a random PSD Φ.  The
    statistic is the exact Frobenius norm of the difference of the two per-example class
    gradients (:func:`simulations.large_margin.per_example_class_grad`).

    Returns ``max_norm`` and the maximum per case (``CASES``).
    """
    K, d, h, n = int(config["K"]), int(config["d"]), float(config["h"]), int(config["n_search"])
    best = {c: 0.0 for c in CASES}
    for _ in range(n):
        x = _unit(d, rng)
        kind = rng.integers(3)
        if kind == 0:
            xp = -x
        elif kind == 1:  # nearly parallel, inside the ball (on the sphere for d = 1 it would equal x)
            step = 10.0 ** rng.uniform(-4, -1)
            xp = x + step * _unit(d, rng)
            if np.linalg.norm(xp) > 1:
                xp *= (1 - step) / np.linalg.norm(xp)
        else:
            xp = _unit(d, rng)
        y, yp, c = (int(v) for v in rng.integers(0, K, 3))
        if rng.random() < 0.8:
            xt, xtp = augment(x[None])[0], augment(xp[None])[0]
            Phi = np.zeros((K, d + 1, d + 1))
            for k in range(K):
                p, r = _orth(xtp, rng), _orth(xt, rng)
                a, ap = 10.0 ** rng.uniform(-3, 6, 2) * (rng.random(2) < 0.8)
                Phi[k] = a * np.outer(p, p) + ap * np.outer(r, r)
        else:
            Phi = random_psd(K, d, rng, scale=10.0 ** rng.uniform(-2, 3))
        g = per_example_class_grad(Phi, x, y, c, h) - per_example_class_grad(Phi, xp, yp, c, h)
        v = float(np.linalg.norm(g))
        case = CASES[2] if c == y == yp else CASES[1] if c in (y, yp) else CASES[0]
        best[case] = max(best[case], v)
    out = {f"max_{c}": v for c, v in best.items()}
    out["max_norm"] = max(best.values())
    return out


# --------------------------------------------------------------------------- Lemma 2
@trial(requires=('K', 'd', 'h', 'lam', 'n', 'n_dir'))
def lemma2_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Curvature of J (004 Lemma 2) at a random Φ ≻ 0 on a random data set.

    Config: ``n``, ``d``, ``K``, ``lam``, ``h``, ``n_dir``.  For a direction D (Σ_c‖D_c‖²_F = 1)
    the modulus along D is κ = 8[(J(Φ − tD) + J(Φ + tD))/2 − J(Φ)]/(2t)², the largest μ with
    J(mid) ≤ ½J(Φ − tD) + ½J(Φ + tD) − (μ/8)Σ‖2tD‖² (Lemma 2 at α = ½ for Φ ± tD); t is
    halved until Φ ± tD ⪰ 0.  Directions: ``n_dir`` random Gaussian ones and the common
    shift E = e_(d+1)e_(d+1)ᵀ in every class (normalised).

    Returns ``kappa_min`` (over all directions), ``kappa_min_random``, ``kappa_flat``,
    ``frac_below_lam`` (share of random directions with κ < λ).
    """
    n, d, K = int(config["n"]), int(config["d"]), int(config["K"])
    lam, h, n_dir = float(config["lam"]), float(config["h"]), int(config["n_dir"])
    X, y = gaussian_classes(n, d, K, rng)
    Phi = random_psd(K, d, rng, scale=10.0 ** rng.uniform(-1, 1)) + 0.05 * np.eye(d + 1)
    J0 = objective(Phi, X, y, lam, h)
    floor = float(min(np.linalg.eigvalsh(P)[0] for P in Phi))

    def kappa(D: np.ndarray) -> float:
        t = 0.5 * floor / max(1e-12, float(max(np.abs(np.linalg.eigvalsh(Dc)).max() for Dc in D)))
        t = min(t, 1.0)
        lo, hi = objective(Phi - t * D, X, y, lam, h), objective(Phi + t * D, X, y, lam, h)
        return 8.0 * ((lo + hi) / 2 - J0) / (2 * t) ** 2

    ks = []
    for _ in range(n_dir):
        D = rng.standard_normal((K, d + 1, d + 1))
        D = 0.5 * (D + np.swapaxes(D, 1, 2))
        D /= np.linalg.norm(D)
        ks.append(kappa(D))
    E = np.zeros((K, d + 1, d + 1))
    E[:, d, d] = 1.0 / math.sqrt(K)
    kf = kappa(E)
    ks_arr = np.array(ks)
    return {"kappa_min": float(min(ks_arr.min(), kf)), "kappa_min_random": float(ks_arr.min()),
            "kappa_flat": float(kf), "frac_below_lam": float(np.mean(ks_arr < lam))}


# --------------------------------------------------------------------------- Theorems 5.2, 5.3
def true_risk(Phi: np.ndarray, X: np.ndarray, y: np.ndarray, n: int, h: float) -> float:
    """L̃(Φ) = E[L(Φ)] for a sample of n points (004 (20)), estimated on the test sample (X, y)."""
    u, mask = margins(Phi, X, y)
    return n * float(np.sum(huber(u, h)[mask])) / X.shape[0]


def true_risks(Phis: np.ndarray, X: np.ndarray, y: np.ndarray, n: int, h: float) -> np.ndarray:
    """:func:`true_risk` of every Φ in ``Phis`` (r, K, d+1, d+1) at once (equal up to rounding).

    The scores x̃ᵀΦ_cx̃ of all r·K matrices come from one product (per class of the points) of
    the packed outer products x̃x̃ᵀ (upper triangle, off-diagonal entries doubled) with the
    packed matrices.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.large_margin import gaussian_classes, random_psd
    >>> rng = np.random.default_rng(0)
    >>> X, y = gaussian_classes(500, 2, 3, rng)
    >>> P = np.stack([random_psd(3, 2, rng) for _ in range(4)])
    >>> bool(np.allclose(true_risks(P, X, y, 30, 0.5), [true_risk(p, X, y, 30, 0.5) for p in P],
    ...                  rtol=1e-12))
    True
    """
    P = np.asarray(Phis, dtype=float)
    r, K, D1 = P.shape[0], P.shape[1], P.shape[2]
    if r == 0:
        return np.zeros(0)
    pi, qi = np.triu_indices(D1)
    Xa = augment(X)
    XXw = Xa[:, pi] * Xa[:, qi] * np.where(pi == qi, 1.0, 2.0)
    Pk = P[:, :, pi, qi].reshape(r * K, -1).T  # (S, r·K)
    yy = np.asarray(y, dtype=int)
    tot = np.zeros(r)
    for c in range(K):  # the points of class c: margins u = q_c − q_c' for the K − 1 classes c' ≠ c
        q = (XXw[yy == c] @ Pk).reshape(-1, r, K)
        u = q[:, :, c:c + 1] - np.delete(q, c, axis=2)
        # ℓ_h(u) = min(max(u + h, 0), 2h)²/(4h) + max(u − h, 0) (the corrected loss of huber)
        w = np.minimum(np.maximum(u + h, 0.0), 2 * h)
        tot += (w * w).sum(axis=(0, 2)) / (4 * h) + np.maximum(u - h, 0.0).sum(axis=(0, 2))
    return n * tot / Xa.shape[0]


@trial(requires=('K', 'd', 'eps', 'h', 'lam', 'levels52', 'levels53', 'n', 'n_noise', 'n_test'), optional=('compiled', 'max_iter', 'sigma', 'tol'))
def thm5_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One data set, its certified inf J and ``n_noise`` perturbed solves (004 Theorems 5.2, 5.3).

    Config: ``n``, ``d``, ``K``, ``lam``, ``h``, ``eps``, ``n_noise``, ``n_test``, ``tol``, ``sigma``, ``max_iter``,
    ``levels52``, ``levels53`` (the bounds at each δ, computed by the caller), ``compiled``
    (default ``True``: every solve runs in the compiled solver of
    :mod:`simulations._large_margin_numba`; ``False``: the NumPy reference).

    The baseline is the minimum of J over the closure of the PSD cone (``cone="closure"``),
    which equals inf J over the PSD cone (J generally has no PSD minimiser); its value is
    certified by the duality gap (a failed certificate raises ``CertificateError``).  For
    every draw b (exact sampler of (7)): if λI_Φ + sym(b) is not PSD, J_p is unbounded below
    (Φ^p does not exist) and the draw is counted in ``n_unbounded``; otherwise J_p is solved
    over the PSD cone (all bounded draws of the data set in one
    :func:`simulations.large_margin.solve_batch`: compiled, each draw :func:`solve`'s
    iteration up to rounding and certified by its own dual bound; with ``compiled=False`` the
    vectorised NumPy batch, bit for bit the one-at-a-time ``solve``); a draw whose certificate
    fails is counted in ``n_unresolved`` (its excess is unknown).  Excess of Theorem 5.2:
    J(Φ^p) − inf J (point value, and its upper end with the certified lower bound on inf J);
    of Theorem 5.3: L̃(Φ^p) − L̃(Φ*) on ``n_test`` fresh points (L̃ sums over a sample of n;
    :func:`true_risks`, all certified Φ^p at once).

    Returns counts, ``exceed52_k`` / ``exceed53_k`` per δ-level k (bounded, resolved draws
    above the level), the per-draw excesses ``ex52_j`` / ``ex53_j`` (NaN when unbounded or
    unresolved) and the solver diagnostics.
    """
    n, d, K = int(config["n"]), int(config["d"]), int(config["K"])
    lam, h, eps = float(config["lam"]), float(config["h"]), float(config["eps"])
    tol = float(config.get("tol", 1e-7))
    sigma = float(config.get("sigma", 0.35))
    compiled = bool(config.get("compiled", True))
    X, y = gaussian_classes(n, d, K, rng, sigma=sigma)
    Xt, yt = gaussian_classes(int(config["n_test"]), d, K, rng, sigma=sigma)
    base = solve(X, y, K, lam, h, tol=tol, cone="closure", compiled=compiled)
    Jstar, Jlow = base.value, base.lower
    L52, L53 = list(config["levels52"]), list(config["levels53"])
    n_unb = n_unres = 0
    ex52, ex53, ex52u, lmins, iters = [], [], [], [], []
    # the draws in the order of the former one-at-a-time loop (nothing else uses the trial's rng
    # here), then one batched solve of the bounded ones
    draws = np.array([sample_perturbation(d, eps, rng) for _ in range(int(config["n_noise"]))])
    # λ_min(λI_Φ + sym(b)) of every draw (one stacked eigvalsh: the same numbers as one call per
    # draw); J_p is bounded below iff it is ≥ 0 (is_bounded_below)
    lam_min = np.linalg.eigvalsh(b_matrix(lam, draws, d))[:, 0]
    bounded = [j for j in range(len(draws)) if lam_min[j] >= 0]
    solved = {}
    if bounded:
        sols = solve_batch(X, y, K, lam, h, draws[bounded], tol=tol,
                           max_iter=int(config.get("max_iter", 5000)), on_failure="return",
                           compiled=compiled)
        solved = dict(zip(bounded, sols, strict=True))
    ok = [j for j in bounded if solved[j].status == "optimal"]  # L̃ of Φ* and every certified Φ^p
    Ls = true_risks(np.array([base.Phi] + [solved[j].Phi for j in ok]), Xt, yt, n, h)
    Lstar, risks = float(Ls[0]), dict(zip(ok, Ls[1:], strict=True))
    out: dict[str, float] = {"J_star": Jstar, "J_star_lower": Jlow, "gap_star": base.certificate.value,
                             "L_star": Lstar, "iters_star": float(base.details["iterations"])}
    for j in range(len(draws)):
        lmin = float(lam_min[j])
        if j not in solved:
            n_unb += 1
            out[f"ex52_{j}"] = out[f"ex53_{j}"] = math.inf
            continue
        res = solved[j]
        if res.status != "optimal":
            n_unres += 1
            out[f"ex52_{j}"] = out[f"ex53_{j}"] = math.nan
            continue
        Jp = objective(res.Phi, X, y, lam, h)
        e52, e53 = Jp - Jstar, float(risks[j]) - Lstar
        ex52.append(e52)
        ex52u.append(Jp - Jlow)
        ex53.append(e53)
        lmins.append(lmin)
        iters.append(res.details["iterations"])
        out[f"ex52_{j}"], out[f"ex53_{j}"] = e52, e53
    out.update(n_draws=float(config["n_noise"]), n_unbounded=float(n_unb), n_unresolved=float(n_unres),
               n_resolved=float(len(ex52)))
    for k, (a, c) in enumerate(zip(L52, L53, strict=True)):
        out[f"exceed52_{k}"] = float(sum(e > a for e in ex52))
        out[f"exceed52u_{k}"] = float(sum(e > a for e in ex52u))
        out[f"exceed53_{k}"] = float(sum(e > c for e in ex53))
    out["max_ex52"] = max(ex52, default=math.nan)
    out["min_lambda_B_resolved"] = min(lmins, default=math.nan)
    out["mean_iters"] = float(np.mean(iters)) if iters else math.nan
    return out


# --------------------------------------------------------------------------- real data
@lru_cache(maxsize=2)
def iris(seed: int = 0, test_fraction: float = 0.3) -> dict[str, np.ndarray]:
    """scikit-learn's bundled iris data (no download), preprocessed like
    :func:`simulations.data.load_real_dataset`: standardised over all rows, divided by
    (1 + 1e−12)·max‖row‖ so that every row lies in the unit ball (004 Lemma 1), labels 0..2,
    split by a permutation from ``default_rng(SeedSequence(seed))``.
    """
    from sklearn import datasets

    bunch = datasets.load_iris()
    X = np.asarray(bunch.data, dtype=float)
    Z = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    Z /= float(np.linalg.norm(Z, axis=1).max()) * (1 + 1e-12)
    yv = np.asarray(bunch.target, dtype=int)
    perm = np.random.default_rng(np.random.SeedSequence(seed)).permutation(len(yv))
    nt = int(round(test_fraction * len(yv)))
    te, tr = perm[:nt], perm[nt:]
    return {"X_train": Z[tr], "y_train": yv[tr], "X_test": Z[te], "y_test": yv[te]}


@lru_cache(maxsize=4)
def _baseline(lam: float, h: float, tol: float,
              compiled: bool = True) -> tuple[np.ndarray, float, float, float]:
    D = iris()
    res = solve(D["X_train"], D["y_train"], 3, lam, h, tol=tol, cone="closure", max_iter=50000,
                compiled=compiled)
    acc = float(np.mean(predict(res.Phi, D["X_test"]) == D["y_test"]))
    return res.Phi, res.value, res.lower, acc


@trial(requires=('eps', 'h', 'lam'), optional=('compiled', 'max_iter', 'tol'))
def utility_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One private release per ε on iris (004 §4), against the certified non-private fit.

    Config: ``lam``, ``h``, ``eps`` (list), ``tol``, ``max_iter``, ``compiled`` (default ``True``:
    the solves, the non-private baseline included, run in the compiled solver of
    :mod:`simulations._large_margin_numba`; ``False``: the NumPy reference).  The training split
    is the whole data set, so trials differ only in the noise.  Outputs per ε: ``bounded_{ε}`` (1 if
    λI_Φ + sym(b) ⪰ 0, i.e. Φ^p exists), ``acc_{ε}`` (held-out accuracy, NaN if unbounded or
    unresolved), ``excess_{ε}`` (J(Φ^p) − inf J, regularised empirical excess risk), and the
    baseline ``acc_nonprivate``, ``J_star``.  An uncertified solve leaves its ε's row NaN
    (``resolved_{ε}`` = 0).
    """
    return utility_trials(config, [rng])[0]      # one trial: the batched code with a batch of one


def utility_trials(config: Mapping[str, Any], rngs: list[np.random.Generator]) -> list[dict[str, float]]:
    """:func:`utility_trial` for many trials at once: the same rows, one batched solve.

    Every trial shares the iris training split, so the bounded draws of all trials and all ε are
    solved by one :func:`simulations.large_margin.solve_batch` (compiled: each problem with its
    own state, as the compiled ``solve`` solves it; with ``compiled=False`` the vectorised NumPy
    batch, bit for bit ``solve``); each trial draws its perturbations from its own generator, one
    per ε in order.  The rows do not depend on how the trials are grouped; the runner calls this
    (``utility_trial.batch``) for a batch of seeds.

    Examples
    --------
    >>> import numpy as np
    >>> cfg = {"lam": 1.0, "h": 0.5, "eps": [10.0, 1000.0], "tol": 1e-5}
    >>> rows = utility_trials(cfg, [np.random.default_rng(s) for s in (1, 2)])
    >>> rows == [utility_trial(cfg, np.random.default_rng(s)) for s in (1, 2)]
    True
    """
    lam, h, tol = float(config["lam"]), float(config["h"]), float(config.get("tol", 1e-5))
    compiled = bool(config.get("compiled", True))
    D = iris()
    _, Jstar, _, acc0 = _baseline(lam, h, tol, compiled)
    d = D["X_train"].shape[1]
    outs: list[dict[str, float]] = []
    todo: list[tuple[int, str, np.ndarray]] = []
    for i, rng in enumerate(rngs):
        out: dict[str, float] = {"acc_nonprivate": acc0, "J_star": Jstar}
        for eps in config["eps"]:
            b = sample_perturbation(d, float(eps), rng)
            tag = f"{float(eps):g}"
            out[f"bounded_{tag}"] = float(is_bounded_below(lam, b, d))
            out[f"acc_{tag}"] = out[f"excess_{tag}"] = math.nan
            out[f"resolved_{tag}"] = 0.0
            if out[f"bounded_{tag}"]:
                todo.append((i, tag, b))
        outs.append(out)
    if todo:
        sols = solve_batch(D["X_train"], D["y_train"], 3, lam, h, np.array([b for _, _, b in todo]), tol=tol,
                           max_iter=int(config.get("max_iter", 4000)), on_failure="return",
                           compiled=compiled)
        for (i, tag, _), res in zip(todo, sols, strict=True):
            if res.status != "optimal":
                continue          # as a CertificateError of ``solve`` in utility_trial
            out = outs[i]
            out[f"resolved_{tag}"] = 1.0
            out[f"acc_{tag}"] = float(np.mean(predict(res.Phi, D["X_test"]) == D["y_test"]))
            out[f"excess_{tag}"] = objective(res.Phi, D["X_train"], D["y_train"], lam, h) - Jstar
    return outs


utility_trial.batch = utility_trials  # type: ignore[attr-defined]


__all__ = ["CASES", "lemma1_trial", "lemma2_trial", "thm5_trial", "utility_trial", "iris", "true_risk", "true_risks",
           "loss_value"]
