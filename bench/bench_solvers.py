"""Benchmark of simulations.solvers against peers run in the same process (m = 2000, RBF Gram).

Rows:

* kernel least squares: ``KLSFactor(K, λ).fit(y)`` (Cholesky, one refinement step, KKT
  certificate) against ``sklearn.kernel_ridge.KernelRidge(alpha=λm, kernel="precomputed")``;
  ratio = sklearn time / ours (goal ≥ 1).
* neighbour scan: ‖f_z − f_z̄‖_K and sup over a 200-point grid of |f_z − f_z̄| for every index j
  and one candidate replacement, against refitting KernelRidge on each neighbour (timed on 20
  refits and extrapolated to m); ratio = refits time / ours (goal ≥ 50).
* offset-free SVM (Nie & Wang 2017, J. Inequal. Appl., §5.2): ``svm_fit`` to relative duality gap 1e-10 against
  ``sklearn.svm.SVC(kernel="precomputed", C=1/(2λm))``; ratio = ours / SVC (goal ≤ 2).
  SVC solves a different problem (it has an offset b, i.e. the extra constraint Σ y_i a_i = 0)
  and stops at its own KKT tolerance (default 1e-3); the row compares costs, not solutions.
* pinball loss (quantile regression): ``pinball_fit`` timings only; scikit-learn has no kernel
  quantile regression to compare with.

Timings are the best of a few runs.  No assertions: ``make bench`` prints, tests never time.
Run: ``python bench/bench_solvers.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from simulations.solvers import (  # noqa: E402
    KLSFactor,
    neighbour_scan,
    pinball_fit,
    replace_point,
    svm_fit,
    union_rkhs_distance,
)

M = 2000
D = 5


def rbf(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-np.maximum(sq, 0.0) / (2.0 * D))        # bandwidth σ² = d


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def row(name: str, ours: float, peer: float, ratio: float, goal: str, note: str = "") -> None:
    print(f"{name:<38} {ours * 1e3:>10.1f} {peer * 1e3:>12.1f} {ratio:>9.2f}  {goal:<8} {note}")


def main() -> None:
    rng = np.random.default_rng(2017)
    X = rng.standard_normal((M, D))
    K = rbf(X, X)
    y_reg = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.3 * rng.standard_normal(M)
    y_cls = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 + 0.5 * rng.standard_normal(M) > 0, 1.0, -1.0)
    lam_paper = M ** (-4 / 9)          # Nie & Wang 2017 (J. Inequal. Appl.) §5: λ = m^(−2/(3(β+1))), β = 1/2
    print(f"bench_solvers: m = {M}, d = {D}, Gaussian kernel exp(-|x-x'|^2/(2d)), "
          f"paper lambda = m^(-4/9) = {lam_paper:.4f}")
    print(f"{'task':<38} {'ours ms':>10} {'peer ms':>12} {'ratio':>9}  {'goal':<8} note")
    print("-" * 100)

    # -- kernel least squares -----------------------------------------------------------
    for lam in (lam_paper, 1e-4):
        t_ours, res = best_of(lambda lam=lam: KLSFactor(K, lam).fit(y_reg))
        t_peer, kr = best_of(lambda lam=lam: KernelRidge(alpha=lam * M, kernel="precomputed").fit(K, y_reg))
        diff = np.max(np.abs(res.alpha - kr.dual_coef_)) / np.max(np.abs(kr.dual_coef_))
        row(f"KLS fit, lam={lam:.3g}", t_ours, t_peer, t_peer / t_ours, ">= 1",
            f"KernelRidge; max rel diff alpha {diff:.1e}; KKT {res.certificate.value:.1e}")

    # -- neighbour scan, every j, one candidate -----------------------------------------
    lam = 1e-3
    xc = rng.standard_normal((1, D)) * 1.5
    yc = 2.0
    kc = rbf(xc, X)
    grid = rng.standard_normal((200, D))
    Kg, Kgc = rbf(grid, X), rbf(grid, xc)
    t_scan, scan = best_of(lambda: neighbour_scan(K, y_reg, lam, kc, 1.0, yc, K_eval=Kg,
                                                  K_eval_cand=Kgc), repeat=2)
    js = rng.choice(M, 20, replace=False)
    a0 = KernelRidge(alpha=lam * M, kernel="precomputed").fit(K, y_reg).dual_coef_
    t0 = time.perf_counter()
    refits = []
    for j in js:
        Kb = replace_point(K, int(j), kc[0], 1.0)
        yb = y_reg.copy()
        yb[j] = yc
        refits.append(KernelRidge(alpha=lam * M, kernel="precomputed").fit(Kb, yb).dual_coef_)
    t_ref = (time.perf_counter() - t0) / len(js) * M
    err = max(abs(union_rkhs_distance(K, kc[0], 1.0, int(j), a0, ab) - scan.rkhs_dist[j, 0])
              / scan.rkhs_dist[j, 0] for j, ab in zip(js, refits, strict=True))
    row("neighbour scan, all j x 1 cand.", t_scan, t_ref, t_ref / t_scan, ">= 50",
        f"vs {M} KernelRidge refits (20 timed); rel err {err:.1e}; +200-pt grid sup")

    # -- offset-free SVM ------------------------------------------------------------------
    svm_fit(K[:200, :200], y_cls[:200], 0.01)                # warm-up (imports, first calls)
    for lam in (lam_paper, 1e-2, 1e-3, 1e-4):
        C = 1.0 / (2.0 * lam * M)
        t_ours, res = best_of(lambda lam=lam: svm_fit(K, y_cls, lam))
        t_peer, svc = best_of(lambda C=C: SVC(kernel="precomputed", C=C).fit(K, y_cls))
        t_peer8, _ = best_of(lambda C=C: SVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y_cls), 1)
        row(f"SVM, lam={lam:.3g} (C={C:.3g})", t_ours, t_peer, t_ours / t_peer, "<= 2",
            f"SVC has an offset; gap {res.certificate.value:.0e}, {int(res.free.sum())} free, "
            f"{res.iterations} it; SVC tol=1e-8: {t_peer8 * 1e3:.0f} ms")

    # -- pinball --------------------------------------------------------------------------
    for lam in (lam_paper, 1e-3):
        t_ours, res = best_of(lambda lam=lam: pinball_fit(K, y_reg, lam, 0.9), repeat=2)
        print(f"{f'pinball tau=0.9, lam={lam:.3g}':<38} {t_ours * 1e3:>10.1f} {'-':>12} {'-':>9}  "
              f"{'-':<8} no peer; gap {res.certificate.value:.0e}, {res.iterations} it")
    print("-" * 100)
    print("ratios: KLS and scan = peer/ours (higher is better); SVM = ours/peer (lower is better).")


if __name__ == "__main__":
    main()
