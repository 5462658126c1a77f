"""A real client audited: diffprivlib's ``LogisticRegression`` with ``data_norm`` > 1 (issue 32, item 6).

diffprivlib 0.6.6 trains logistic regression by objective perturbation (Chaudhuri, Monteleoni & Sarwate
2011, Algorithm 2, "CMS"): it minimises ``mean ℓ(y wᵀx) + (1/(2Cn))‖w‖² + bᵀw/n + (Δ/2)‖w‖²`` with
‖b‖ ~ Gamma(d, 2q/ε′) in a uniform direction, q = ``data_norm``.  Its ``Vector`` mechanism spends
``2 ln(1 + c·q/α)`` (c = 1/4, α = 1/C) on the Jacobian of b ↦ w, or, when that exceeds ε, sets ε′ = ε/2 and
adds Δ so that ``n(Λ + Δ) = μ = c·q / (e^{ε/4} − 1)``.

**The theory.**  CMS's Lemma on the Jacobian (proof of Theorem 9): the density ratio of the released w on
neighbouring data sets carries the factor det(A_D(w)) / det(A_D′(w)) with A = Σ ℓ″(y wᵀxᵢ) xᵢxᵢᵀ + μI.
Replacing one record changes A by ℓ″·xxᵀ, whose eigenvalue is up to c‖x‖² = c·q² (CMS normalise ‖x‖ ≤ 1,
so q² = q there).  diffprivlib accounts c·q, not c·q²: with q > 1 the factor can reach
1 + c·q²/μ = 1 + q·(e^{ε/4} − 1), i.e. ln of it = 1.90 at q = 20, ε = 1 where the budget gave ε/2 = 0.5.

**The neighbouring pair (fixed before the draws).**  Two features, no intercept, C = 1, ε = 1, q = 20:
D = {(q·e₁, 1), (0, 0)}, D′ = {(0, 1), (0, 0)} (one record replaced; every ‖x‖ ≤ q; both classes present).
Only the first coordinate differs.  On D′ w₁ = −b₁/μ; on D, b₁ = q·σ(−q w₁) − μ w₁.  Where the margin
z = q·w₁ of the replaced record is near 0, ℓ″ = 1/4 and the Jacobian ratio is 1 + q²/(4μ) ≈ 9.5, while the
‖b‖ term is negligible when |b₂| ≫ |b₁|.

**The statistic (fixed before the draws, motivated by the theory):** ``|q · w₁|`` = |wᵀx| of the
replaced record, the projection of the released coefficient on the direction where the Jacobian differs:
small values say D.  The auditor (:func:`verify.audit.audit_samples` with ``score=`` this function,
selection fraction 0.1 as for scalars) chooses the threshold and direction on its selection split and
bounds ε on the rest.  The theory predicts (flat-noise quadrature below, exact solver assumed): the best
event ``|q·w₁| < 1.1`` has P 0.047 on D vs 0.0077 on D′, ln ratio 1.80, an ideal ε_lower ≈ 1.5 at 1.17·10⁴
evaluation releases — a violation of the claimed ε = 1.  At q = 10 the same computation gives an
ideal ≈ 1.03 at this n: too close to call, hence q = 20.

Default statistic too: the same samples audited with the auditor's own choice (no ``score``), for the
issue's report that 3000 fits gave ε_lower 0.000.

Fits are real ``diffprivlib.models.LogisticRegression(...).fit`` calls (about 25 ms CPU each), each
seeded by ``random_state`` = an integer from ``SeedSequence(20261128, spawn_key=(side, i))``; at most
2 processes; cached and resumable in ``/tmp/dp_erm_diffprivlib_q{q}_eps{ε}.npz``.

Run with the peers venv (diffprivlib 0.6.6 needs scikit-learn < 1.6)::

    nice -n 10 /work/peers-venv/bin/python bench/bench_diffprivlib_client.py [--fits 13000] [--jobs 2]

No assertions; prints the prediction, the measured counts, ε_lower and the p-value against the claim.

``--record DIR`` also writes the fits as recorded outputs for the report (issue 32, item 6):
``DIR/diffprivlib_logreg_q{q}_eps{ε}.npz`` (``w0``, ``w1``: coefficients on D and D′) and its manifest
``….json`` (implementation and versions, parameters, the pair, the seeds, the claim, the statistic, the
statement and the implementation parameter holding its relaxed q, this command, the SHA-256 of the npz), read by :mod:`verify.audit.clients`::

    nice -n 10 /work/peers-venv/bin/python bench/bench_diffprivlib_client.py --record verify/data/clients
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import platform
import resource
import sys
import warnings
from multiprocessing import get_context
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT_SEED = 20261128
EPS, C = 1.0, 1.0
BLOCK = 250


def pair(q: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X_D, X_D′, y): the neighbouring pair (first record replaced)."""
    xd = np.array([[q, 0.0], [0.0, 0.0]])
    xd1 = np.array([[0.0, 0.0], [0.0, 0.0]])
    return xd, xd1, np.array([1, 0])


def statistic(q: float):
    """|q·w₁|: the replaced record's margin, where the Jacobian factor differs (small says D)."""
    def stat(w: np.ndarray) -> np.ndarray:
        w = np.atleast_2d(np.asarray(w, dtype=float))
        return np.abs(q * w[:, 0])
    stat.__name__ = f"abs_margin_q{q:g}"
    return stat


def _fit_block(args: tuple[float, int, int, int]) -> np.ndarray:
    """Coefficients of fits [start, stop) on side (0 = D, 1 = D′)."""
    q, side, start, stop = args
    from diffprivlib.models import LogisticRegression

    xd, xd1, y = pair(q)
    X = xd if side == 0 else xd1
    out = np.empty((stop - start, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for j, i in enumerate(range(start, stop)):
            rs = int(np.random.SeedSequence(ROOT_SEED, spawn_key=(side, i)).generate_state(1)[0])
            m = LogisticRegression(epsilon=EPS, data_norm=q, fit_intercept=False, C=C, random_state=rs).fit(X, y)
            out[j] = m.coef_[0]
    return out


def draws(q: float, fits: int, jobs: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Coefficients on D and D′ (fits each), from the cache where present; returns the CPU seconds spent now."""
    path = Path(f"/tmp/dp_erm_diffprivlib_q{q:g}_eps{EPS:g}.npz")
    have = {0: np.empty((0, 2)), 1: np.empty((0, 2))}
    if path.exists():
        z = np.load(path)
        have = {0: z["w0"], 1: z["w1"]}
    todo = [(q, s, a, min(a + BLOCK, fits)) for a in range(0, fits, BLOCK) for s in (0, 1) if a >= have[s].shape[0]]
    t0 = _cpu()
    if todo:
        print(f"fitting {sum(b - a for _, _, a, b in todo)} models in {jobs} process(es); cache {path}", flush=True)
        with get_context("spawn").Pool(jobs) as pool:
            for k, (task, res) in enumerate(zip(todo, pool.imap(_fit_block, todo), strict=True)):
                have[task[1]] = np.concatenate([have[task[1]], res])
                np.savez(path, w0=have[0], w1=have[1])
                if k % 8 == 7:
                    print(f"  {have[0].shape[0]} + {have[1].shape[0]} fits", flush=True)
    return have[0][:fits], have[1][:fits], _cpu() - t0


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def prediction(q: float, n_eval: int) -> dict:
    """The theory's event probabilities for {|q·w₁| < z} (exact solver, 2-D isotropic noise, quadrature)."""
    from scipy import integrate, special, stats

    mu = 0.25 * q / math.expm1(EPS / 4)            # n(Λ + Δ) of diffprivlib's δ branch (ε′ = ε/2)
    s = 2 * q / (EPS / 2)                          # Gamma scale of ‖b‖

    def f1(b: float) -> float:                     # marginal density of b₁ (2-D, density ∝ exp(−‖b‖/s))
        b = abs(b)
        return 1 / (math.pi * s) if b == 0 else b * special.k1(b / s) / (math.pi * s * s)

    def prob(a: float, b: float) -> float:
        return integrate.quad(f1, a, b)[0]

    def g(w: float) -> float:                      # b₁ as a function of w₁ on D
        return q / (1 + math.exp(q * w)) - mu * w

    best = None
    for z in np.linspace(0.1, 4.0, 40):
        t = z / q
        p1, p0 = prob(-mu * t, mu * t), prob(g(t), g(-t))
        lo = math.log(stats.beta.ppf(0.025, p0 * n_eval, n_eval - p0 * n_eval + 1)
                      / stats.beta.ppf(0.975, p1 * n_eval + 1, n_eval - p1 * n_eval))
        if best is None or lo > best["ideal"]:
            best = {"z": float(z), "p_d": p0, "p_d1": p1, "ln_ratio": math.log(p0 / p1), "ideal": lo}
    best["jacobian_sup"] = math.log(1 + q * math.expm1(EPS / 4))
    best["mu"] = mu
    return best


def run_audits(w0: np.ndarray, w1: np.ndarray, q: float) -> dict:
    from verify.audit import audit_samples

    stat = statistic(q)
    kw = {"statistic": stat} if "statistic" in inspect.signature(audit_samples).parameters else {"score": stat}
    fixed = audit_samples(w0, w1, claim_eps=EPS, seed=ROOT_SEED, selection_fraction=0.1, tradeoff=False, **kw)
    default = audit_samples(w0, w1, claim_eps=EPS, seed=ROOT_SEED, tradeoff=False)
    return {"fixed": fixed, "default": default}


def record(directory: Path, w0: np.ndarray, w1: np.ndarray, q: float) -> tuple[Path, Path]:
    """Write the fits and their manifest into ``directory`` (read by :mod:`verify.audit.clients`)."""
    import diffprivlib
    import sklearn

    directory.mkdir(parents=True, exist_ok=True)
    name = f"diffprivlib_logreg_q{q:g}_eps{EPS:g}"
    npz = directory / f"{name}.npz"
    np.savez_compressed(npz, w0=w0, w1=w1)
    xd, xd1, y = pair(q)
    fits = w0.shape[0]
    man = {
        "format": 1,
        "name": name,
        "title": f"diffprivlib LogisticRegression, data_norm = {q:g}, epsilon = {EPS:g}",
        "implementation": {
            "package": "diffprivlib", "version": diffprivlib.__version__,
            "class": "diffprivlib.models.LogisticRegression",
            "parameters": {"epsilon": EPS, "data_norm": q, "C": C, "fit_intercept": False},
            "environment": {"scikit-learn": sklearn.__version__, "numpy": np.__version__,
                            "python": platform.python_version()},
            "output": "coef_[0]: the 2 released coefficients",
        },
        "pair": {"D": {"X": xd.tolist(), "y": y.tolist()}, "D_prime": {"X": xd1.tolist(), "y": y.tolist()},
                 "relation": "the first record replaced: (q·e₁, 1) on D, (0, 1) on D′; every ‖x‖ ≤ q"},
        "seeds": (f"fit i on side s (0 = D, 1 = D′) has random_state = "
                  f"int(SeedSequence({ROOT_SEED}, spawn_key=(s, i)).generate_state(1)[0]), i = 0 … {fits - 1}"),
        "claim": {"epsilon": EPS, "delta": 0.0},
        "statistic": {"name": "abs_margin", "params": {"q": q}, "selection_fraction": 0.1,
                      "fixed_before_draws": True,
                      "why": ("|q·w₁|, the replaced record's margin: the CMS Jacobian factor "
                              "det A_D(w)/det A_D′(w) differs only along e₁ and is largest (1 + q²/(4μ)) "
                              "where this margin is near 0, so small values say D")},
        "statement": {"key": "cms.alg2.privacy",
                      "source": "Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 2 (objective perturbation)",
                      # the relaxed parameter q of the statement is diffprivlib's data_norm; the premise
                      # text (‖x‖ ≤ q) is the registry's, read by verify.audit.clients
                      "at": {"q": "data_norm"},
                      "calibration": "with the Jacobian charged c·q, where the statement derives c·q²"},
        "n": fits,
        "arrays": {"w0": "coefficients released on D", "w1": "coefficients released on D′"},
        "file": npz.name,
        "sha256": hashlib.sha256(npz.read_bytes()).hexdigest(),
        "regenerate": (f"nice -n 10 /work/peers-venv/bin/python bench/bench_diffprivlib_client.py "
                       f"--fits {fits} --data-norm {q:g} --record {directory}"),
        "doc": "docs/audit-diffprivlib.md",
    }
    js = directory / f"{name}.json"
    js.write_text(json.dumps(man, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return npz, js


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fits", type=int, default=13_000, help="fits per data set (default 13000)")
    ap.add_argument("--jobs", type=int, default=2, help="processes (at most 2)")
    ap.add_argument("--data-norm", type=float, default=20.0, help="q = data_norm (default 20)")
    ap.add_argument("--record", type=Path, default=None, metavar="DIR",
                    help="also write the fits and their manifest into DIR (e.g. verify/data/clients)")
    a = ap.parse_args()
    if a.fits < 20:
        print("error: --fits must be at least 20 (an audit needs 20 outputs per data set)")
        raise SystemExit(2)
    if not 1 <= a.jobs <= 2:
        print("error: --jobs must be 1 or 2 (the machine is shared)")
        raise SystemExit(2)
    if not a.data_norm > 0:
        print("error: --data-norm must be positive")
        raise SystemExit(2)
    try:
        import diffprivlib
        import sklearn
    except ImportError as exc:
        print(f"diffprivlib not installed ({exc}); run with the peers venv")
        raise SystemExit(2) from exc
    q = a.data_norm
    n_eval = a.fits - math.ceil(0.1 * a.fits)
    pred = prediction(q, n_eval)
    print(f"diffprivlib {diffprivlib.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}; "
          f"ε = {EPS:g}, C = {C:g}, data_norm q = {q:g}, {a.fits} fits per data set")
    print(f"theory: μ = n(Λ+Δ) = {pred['mu']:.3f}; Jacobian factor sup ln(1 + q(e^(ε/4) − 1)) = "
          f"{pred['jacobian_sup']:.3f} (budgeted ε/2 = {EPS / 2:g}); best event |q·w₁| < {pred['z']:.2f}: "
          f"P_D = {pred['p_d']:.4f}, P_D′ = {pred['p_d1']:.4f}, ln ratio {pred['ln_ratio']:.3f}, "
          f"ideal ε_lower at {n_eval} evaluation releases {pred['ideal']:.3f}")
    w0, w1, cpu = draws(q, a.fits, a.jobs)
    if cpu > 0:
        print(f"fits: {cpu:.0f} s CPU this run")
    stat = statistic(q)
    z = pred["z"]
    c0, c1 = int(np.sum(stat(w0) < z)), int(np.sum(stat(w1) < z))
    print(f"measured, event |q·w₁| < {z:.2f} on all fits (a check of the theory, not the audit): D {c0}/{w0.shape[0]} = "
          f"{c0 / w0.shape[0]:.4f}, D′ {c1}/{w1.shape[0]} = {c1 / w1.shape[0]:.4f}")
    res = run_audits(w0, w1, q)
    for name, r in res.items():
        d = r.details
        print(f"audit ({'statistic |q·w₁| fixed before the draws' if name == 'fixed' else 'default statistic'}): "
              f"ε_lower = {r.eps_lower:.4f}, verdict {r.verdict}, p-value against ε = {EPS:g}: {r.p_value:.3g}; "
              f"output {d.get('output')}; statistic {d.get('statistic')}; event {d.get('event')}; "
              f"FP {d.get('false_positives')}, FN {d.get('false_negatives')} of "
              f"{d.get('n_evaluation0')}/{d.get('n_evaluation1')}")
        print(f"  meaning: {r.meaning()}")
    if a.record is not None:
        npz, js = record(a.record, w0, w1, q)
        print(f"recorded {npz} and {js}")


if __name__ == "__main__":
    main()
