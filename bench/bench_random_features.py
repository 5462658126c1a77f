"""Benchmark of the private random-feature learners (simulations.random_features) against scikit-learn.

Prints CPU-time ratios against the non-private scikit-learn pipeline on the same data in the same
process (RBFSampler + Ridge(alpha = nΛ, no intercept, cholesky) / LogisticRegression(C = 1/(nΛ), no
intercept, lbfgs)), peak RSS of a fit run in a child process, and test error on the bundled real data
sets over a few ε.  Never a timing assertion: the numbers are read by a person (bench/README.md).

Usage::

    python bench/bench_random_features.py                      # ratios at m = 1e5, D = 1000 + utility
    python bench/bench_random_features.py --size 1e6 --memory  # the 1e6 fits in a child: CPU s and peak RSS
    python bench/bench_random_features.py --utility            # real data only

The classifier's certificate asks ‖w̃ − w*‖ ≤ 1e-3·2/(nΛ) (a relative gradient tolerance far below
scikit-learn's default tol = 1e-4), so scikit-learn's logistic regression is timed both at its default
tol and at tol = 1e-10 (the same tolerance class).  Both sides run with one BLAS thread by default
(``--threads``): on a shared 2-core machine extra OpenBLAS threads spin and inflate CPU time.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simulations.random_features import DPRandomFeatureClassifier, DPRandomFeatureRegressor  # noqa: E402

LAM = 1e-3
GAMMA = 0.5
#: BLAS threads of the child processes (set from --threads)
THREADS = 1


def data(m: int, d: int, task: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    X = rng.standard_normal((m, d)) / np.sqrt(d)
    f = np.sin(2 * X[:, 0] * np.sqrt(d)) + 0.5 * np.cos(X[:, 1] * np.sqrt(d))
    if task == "clf":
        return X, np.where(f + 0.3 * rng.standard_normal(m) >= 0, 1, 0)
    return X, np.clip(f / 1.5 + 0.1 * rng.standard_normal(m), -1, 1)


def cpu(fn, *args, **kw) -> tuple[float, object]:
    t = time.process_time()
    out = fn(*args, **kw)
    return time.process_time() - t, out


def ours(task: str, X: np.ndarray, y: np.ndarray, D: int, eps: float = 1.0):
    if task == "reg":
        return DPRandomFeatureRegressor(epsilon=eps, lam=LAM, n_components=D, gamma=GAMMA, random_state=0).fit(X, y)
    return DPRandomFeatureClassifier(epsilon=eps, lam=LAM, n_components=D, gamma=GAMMA, classes=[0, 1],
                                     random_state=0).fit(X, y)


def sklearn_fit(task: str, X: np.ndarray, y: np.ndarray, D: int, tol: float | None = None):
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import LogisticRegression, Ridge

    Z = RBFSampler(gamma=GAMMA, n_components=D, random_state=0).fit_transform(X)
    n = len(y)
    if task == "reg":
        return Ridge(alpha=n * LAM, fit_intercept=False, solver="cholesky").fit(Z, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LogisticRegression(C=1 / (n * LAM), fit_intercept=False, tol=tol or 1e-4, max_iter=100_000).fit(Z, y)


def ratios(m: int, D: int, d: int = 10) -> None:
    print(f"== CPU time, m = {m}, d = {d}, D = {D}, Λ = {LAM}, γ = {GAMMA} (same data, same D, same process)")
    for task in ("reg", "clf"):
        X, y = data(m, d, task)
        t_ours, est = cpu(ours, task, X, y, D)
        t_sk, _ = cpu(sklearn_fit, task, X, y, D)
        diag = est.private_diagnostics_unsafe()     # NOT private: the benchmark's own diagnostics
        line = (f"{task}: ours {t_ours:.2f} s (passes {diag['n_passes']}, certified ‖w̃ − w*‖ ≤ {diag['dist_bound']:.2g} "
                f"≤ τ = {est.tau_:.2g}); scikit-learn {t_sk:.2f} s; ratio {t_ours / t_sk:.2f}")
        if task == "clf":
            t_sk2, _ = cpu(sklearn_fit, task, X, y, D, tol=1e-10)
            line += f"; scikit-learn at tol = 1e-10: {t_sk2:.2f} s, ratio {t_ours / t_sk2:.2f}"
        print(line, flush=True)


def child(task: str, m: int, D: int, d: int) -> None:
    X, y = data(m, d, task)
    t, est = cpu(ours, task, X, y, D)
    diag = est.private_diagnostics_unsafe()         # NOT private: the benchmark's own diagnostics
    print(json.dumps({"cpu": t, "passes": diag["n_passes"], "dist": diag["dist_bound"], "tau": est.tau_}))


def memory(m: int) -> None:
    for task, D, budget in (("reg", 1000, "≤ 60 s CPU, ≤ 1 GB"), ("clf", 256, "≤ 120 s CPU, ≤ 2 GB")):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        out = subprocess.run([sys.executable, __file__, "--child", task, "--size", str(m), "--D", str(D),
                              "--threads", str(THREADS)],
                             capture_output=True, text=True, check=True)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        info = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{task}: m = {m}, D = {D}: fit CPU {info['cpu']:.1f} s ({info['passes']} passes), peak RSS of the "
              f"child {max(rss, before) / 1024:.0f} MB (data generation included; budget {budget})", flush=True)


def utility(eps_list=(0.1, 0.5, 1.0, 5.0), D: int = 200, seeds: int = 5) -> None:
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import LogisticRegression, Ridge

    from simulations.data import load_real_dataset

    print(f"== utility on the bundled real data (D = {D}, mean over {seeds} splits)")
    for name, task, lam, gamma in (("breast_cancer", "clf", 1e-2, 5.0), ("breast_cancer", "clf", 1e-1, 5.0),
                                   ("diabetes", "reg", 1e-1, 5.0), ("diabetes", "reg", 1.0, 5.0)):
        rows = {e: [] for e in eps_list}
        base = []
        for s in range(seeds):
            ds = load_real_dataset(name, seed=s)
            n = len(ds.y_train)
            Z = RBFSampler(gamma=gamma, n_components=D, random_state=s)
            Ztr, Zte = Z.fit_transform(ds.X_train), Z.transform(ds.X_test)
            if task == "clf":
                sk = LogisticRegression(C=1 / (n * lam), fit_intercept=False, max_iter=10_000).fit(Ztr, ds.y_train)
                base.append(np.mean(sk.predict(Zte) != ds.y_test))
            else:
                sk = Ridge(alpha=n * lam, fit_intercept=False).fit(Ztr, ds.y_train)
                base.append(np.mean((sk.predict(Zte) - ds.y_test) ** 2))
            for e in eps_list:
                if task == "clf":
                    est = DPRandomFeatureClassifier(epsilon=e, lam=lam, n_components=D, gamma=gamma, classes=[-1, 1],
                                                    random_state=s)
                    rows[e].append(1 - est.fit(ds.X_train, ds.y_train).score(ds.X_test, ds.y_test))
                else:
                    est = DPRandomFeatureRegressor(epsilon=e, lam=lam, n_components=D, gamma=gamma, random_state=s)
                    pred = est.fit(ds.X_train, ds.y_train).predict(ds.X_test)
                    rows[e].append(np.mean((pred - ds.y_test) ** 2))
        what = "test error" if task == "clf" else "test MSE (y in [−1, 1])"
        print(f"{name} ({what}), Λ = {lam}, γ = {gamma}: non-private scikit-learn {np.mean(base):.3f}; "
              + "; ".join(f"ε = {e}: {np.mean(v):.3f}" for e, v in rows.items()), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=float, default=1e5)
    ap.add_argument("--D", type=int, default=1000)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--memory", action="store_true", help="the 1e6 budgets: fits in a child process")
    ap.add_argument("--utility", action="store_true", help="real-data utility only")
    ap.add_argument("--child", choices=("reg", "clf"), help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=1,
                    help="BLAS threads for both sides (default 1: on a shared machine extra threads only spin)")
    a = ap.parse_args()
    m = int(a.size)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(a.threads):
        run(a, m)


def run(a: argparse.Namespace, m: int) -> None:
    global THREADS
    THREADS = a.threads
    if a.child:
        child(a.child, m, a.D, a.d)
    elif a.memory:
        memory(m)
    elif a.utility:
        utility()
    else:
        ratios(m, a.D, a.d)
        utility()


if __name__ == "__main__":
    main()
