"""Seed 003 — "A Study on Differential Private Online Learning", J. Comput. Commun. 5 (2017)
28–33 (``003_8ef3daf3084cc981.txt``).  Paper id ``jcc``.

Online kernel regression f_{t+1} = f_t − η_t[(f_t(x_t) − y_t)K_{x_t} + λ_t f_t] with
η_t = (t+t₀)^{−θ}, λ_t = (t+t₀)^{θ−1}, released with Laplace output perturbation
f_{t,A} = f_t + b_t.  The paper defines κ = sup K(x, x') but uses |f(x)| ≤ κ‖f‖_K,
which needs κ ≥ sup √K(x, x'); this module takes κ = sup √K(x, x') as in seeds 000/001.

=======================  ================================================================
``jcc.def1``             Definition 1 (5): ε-DP with range-restricted events
``jcc.eta``              step size η_t = (t+t₀)^{−θ} (Theorem 1)
``jcc.lambda``           regularisation λ_t = (t+t₀)^{θ−1} (Theorem 1)
``jcc.lemma1``           Lemma 1: b_t ∝ exp(−ε|b|/C_t) gives ε-DP
``jcc.lemma2``           Lemma 2 (11): ‖f_t‖_K ≤ κM/λ_t (cited from Ying & Zhou 2006)
``jcc.eq16``             (16): ‖f_t − f_t̄‖_K ≤ 2η_{t−1}(κ²M/λ_{t−1} + M)κ
``jcc.eq17``             (17): Δf_t ≤ 2κ²(κ²+1)M/(t−1+t₀)^{2θ−1}
``jcc.thm1.C_t``         Theorem 1 (12): C_t = 2(κ²+1)κM/(t−1+t₀)^{2θ−1}
``jcc.thm1.density``     Theorem 1: density (1/α)exp{ε|b|/C_t}, α = 2C_t/ε
``jcc.initial``          §4: initial error ≤ t₀/(t+t₀)‖f_ρ‖_K
``jcc.lemma3``           Lemma 3 (21): Pinelis–Bernstein inequality
``jcc.eq24``             (22)–(24): ‖ξ_i‖_K ≤ η_t[Mκ + (κ²+1)‖f_ρ‖_K]
``jcc.eq25``             (25): ‖Σξ_i‖_K ≤ (8/3) t^{1/2−θ}[…] ln(2/δ)
``jcc.eq26``             (26): sample error ≤ (11/3) t^{1/2−θ}[…] ln(2/δ)
``jcc.thm2``             Theorem 2 (27): ‖f_{t+1,A} − f_ρ‖_K ≤ C_ε t^{−(θ−1/2)} 4/δ
=======================  ================================================================

Smallest corrections (issue 34, schema S1 in ``details["smallest_correction"]`` of the failing comparison):
``jcc.thm1.C_t`` needs C_t × κ under the proof's own chain ((17), :func:`C_t_correction`); the tight
constant is not computed (no closed form: the adversarial sensitivity searches of ``verify/empirical/jcc.py``
bound it from below, ``needed_over_printed`` per row) and no counterexample is known.  ``jcc.thm1.density``
carries the readings of ``jcc.lemma1`` (standard / Definition 1): its verdict is the same under both.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from .._lazy import lazy_module
from ..checks import (
    density_integrates_to_one,
    inequality,
    laplace_density,
    rate_check,
    simplified,
)
from ..evidence import Check
from ..paper import Paper
from ..privacy_logic import restricted_events_witness, scalar_release_checks
from ..symbols import Regime, S

stats = lazy_module("scipy.stats")

SEED = "003_8ef3daf3084cc981.txt"
PAPER = Paper(
    "jcc",
    seed=SEED,
    citation=(
        "A Study on Differential Private Online Learning. J. Comput. Commun. 5, 28–33 (2017), "
        "doi:10.4236/jcc.2017.52004"
    ),
    title="Differentially private online kernel regression (JCC 2017)",
)
PAPER.define("t0", S.t0, description="online offset t₀ > 0")
PAPER.define("theta", S.theta, hi=1, description="online step exponent θ")
PAPER.define("fnorm", S.fnorm, description="||f_ρ||_K")
add = PAPER.add

t, t0, theta, kappa, M, eps, delta, b, fn = S.t, S.t0, S.theta, S.kappa, S.M, S.eps, S.delta, S.b, S.fnorm
i_ = sp.Symbol("i", positive=True, integer=True)
PAPER.define("i", i_, lo=1, lo_open=False, integer=True, description="index 1 ≤ i ≤ t of the martingale sum")
Bm = sp.Symbol("B_mart", positive=True)
PAPER.define("B_mart", Bm, description="almost-sure bound on ‖ξ_i‖ (Lemma 3)")
sig = sp.Symbol("sigma_t", positive=True)
PAPER.define("sigma_t", sig, description="σ_t with Σ E_{i−1}‖ξ_i‖² ≤ σ_t² (Lemma 3)")

#: premises of Theorem 1 (1/2 < θ < 1, t₀^θ ≥ κ² + 1)
THM1 = (sp.Gt(theta, sp.Rational(1, 2)), sp.Ge(t0**theta, kappa**2 + 1))
_C = M * kappa + (kappa**2 + 1) * fn  # the recurring [Mκ + (κ²+1)‖f_ρ‖_K]

# --------------------------------------------------------------------------- underlying errors
#: slugs naming the underlying errors of this paper (``details["error"]``): one root per slug and paper.
#: The first two are the same errors as seed 000's (``jia.def1``, ``jia.lemma1``): one root per paper,
#: cross-referenced by the report.
RANGE_DEF = "range-restricted-dp-definition"        # Definition 1 quantifies over Range ∩ Range only
FUNCTION_RELEASE = "function-release-scalar-noise"  # f_t + b_t with ONE scalar b_t is no private function release
C_T_K_NORM = "C_t-is-the-K-norm-bound"              # (12) is the K-norm bound (16), not the sup-norm bound (17)
ONLINE_BIAS = "online-regularisation-bias-dropped"  # (25)-(27) drop E B_t = −η_tλ_t f_ρ (ξ_i no martingale)


def tag(checks, error: str, *, refutes_derived: bool = False):
    """Label the failing checks of ``checks`` (a Check or a list) with the underlying error ``error``."""
    out = checks if isinstance(checks, list) else [checks]
    for c in out:
        if c.failed:
            c.details["error"] = error
            if refutes_derived:
                c.details["refutes_derived"] = True
    return checks


def eta(tt: sp.Expr) -> sp.Expr:
    """Step size η_t = (t + t₀)^{−θ}."""
    return (tt + t0) ** (-theta)


def lam_t(tt: sp.Expr) -> sp.Expr:
    """Regularisation λ_t = (t + t₀)^{θ−1}."""
    return (tt + t0) ** (theta - 1)


def _def1_check(st, dep):
    # a definitional remark (as jia.def1, referee B10): Definition 1 is weaker than the standard one
    c = restricted_events_witness()
    if c.failed:
        c.severity = "remark"
    return tag(c, RANGE_DEF)


add(
    "def1",
    "Definition 1",
    "definition",
    "bound e^ε on the probability ratio of neighbouring outputs",
    sp.exp(eps),
    relation="none",
    params=("eps",),
    equation="Definition 1, (5)",
    checks=(_def1_check,),
    doc="003_8ef3daf3084cc981.txt, Definition 1 (5): Pr{A(z1) ∈ O} ≤ e^ε Pr{A(z2) ∈ O} for every "
    "O ∈ Range(A(z1)) ∩ Range(A(z2)) — the same range restriction as seed 000.",
    notes="a definitional remark, not a result: the restriction to Range ∩ Range makes the definition weaker than "
    "Dwork et al.'s (2006), which the paper cites; every privacy claim below is read in the standard sense",
)


add(
    "def2",
    "Definition 2",
    "definition",
    "sensitivity Δf_t := sup over neighbours of ‖f_t − f_t̄‖_∞",
    None,
    relation="none",
    equation="Definition 2, (7)",
    doc="003_8ef3daf3084cc981.txt, Definition 2 (7): Δf_t := sup_{z, z̄} ‖f_t − f_t̄‖_∞ when the last sample point "
    "changes; bounded by (17) (``jcc.eq17``).",
)


def _eta_checks(st, dep):
    prod = simplified(eta(t) * lam_t(t) - 1 / (t + t0))
    c1 = Check(
        "η_tλ_t = 1/(t+t₀)",
        prod == 0,
        "symbolic",
        "used for ‖A_t‖ ≤ 1 − η_tλ_t = (t+t₀−1)/(t+t₀)",
        severity="" if prod == 0 else "mismatch",
    )
    # A_t = (1 − η_tλ_t)I − η_t L_t is positive iff η_t(λ_t + κ²) ≤ 1; the paper says t₀^θ ≥ κ² + 1 ensures it
    c2 = inequality(st, eta(t) * (lam_t(t) + kappa**2), sp.Integer(1), "A_t positive: η_t(λ_t + κ²) ≤ 1", "1", "η_t(λ_t+κ²)", THM1)
    return [c1, c2]


add(
    "eta",
    "Theorem 1",
    "schedule",
    "step size η_t",
    (t + t0) ** (-theta),
    relation="none",
    params=("t", "t0", "theta"),
    constraints=THM1,
    equation="§3, before Lemma 2; Theorem 1",
    checks=(_eta_checks,),
    doc="003_8ef3daf3084cc981.txt, §3 and Theorem 1: η_t = 1/(t+t₀)^θ with 1/2 < θ < 1, t₀^θ ≥ κ²+1.",
)
add(
    "lambda",
    "Theorem 1",
    "schedule",
    "regularisation λ_t",
    (t + t0) ** (theta - 1),
    relation="none",
    params=("t", "t0", "theta"),
    constraints=THM1,
    equation="§3, before Lemma 2; Theorem 1",
    checks=(lambda st, dep: inequality(st, lam_t(t), sp.Integer(1), "λ_t ≤ 1 (used in ‖B_t‖_K ≤ η_t[Mκ + (κ²+1)‖f_ρ‖_K], §4)",
                                       "1", "λ_t", THM1),),
    doc="003_8ef3daf3084cc981.txt, §3 and Theorem 1: λ_t = 1/(t+t₀)^{1−θ}.",
)

C_t = sp.Symbol("C_t", positive=True)
PAPER.define("C_t", C_t, description="the sensitivity bound C_t of 003 Lemma 1")
def online_release_witness(label: str = "the paper's recursion (3) released as f_t + b_t is private") -> Check:
    """Exact witness on the paper's own algorithm: recursion (3) at t = 1, released with one scalar b_1.

    Linear kernel K(x, x') = x x' on X = [−1, 1] (κ = 1, M = 1), f_0 = 0, sample z = ((1, 1)) and its
    neighbour z̄ = ((1, −1)) (the last, here only, point changed, as in Definition 2).  Then
    f_1 = η_0 y_0 K_{x_0}, so f_1 − f̄_1 = 2η_0·x is not constant and the released functions f_1 + b,
    f̄_1 + b lie on disjoint lines: the event {f_1 + c : c ∈ ℝ} has probability 1 under z and 0 under z̄.
    """
    x = sp.Symbol("x", real=True)
    eta0 = eta(sp.Integer(0))

    def f1(x0, y0):  # one step of (3) from f_0 = 0
        f0 = sp.Integer(0)
        return sp.expand(f0 - eta0 * ((f0 - y0) * (x0 * x) + lam_t(sp.Integer(0)) * f0))

    a, ab = f1(sp.Integer(1), sp.Integer(1)), f1(sp.Integer(1), sp.Integer(-1))
    diff = simplified(a - ab)
    constant = sp.diff(diff, x) == 0
    detail = (f"recursion (3) at t = 1 with the linear kernel on [−1, 1] (κ = M = 1), z = ((1, 1)), z̄ = ((1, −1)): "
              f"f_1(x) = {sp.sstr(a)}, f̄_1(x) = {sp.sstr(ab)}; f_1 − f̄_1 = {sp.sstr(diff)} is not constant, so the "
              "event O = {f_1 + c : c ∈ ℝ} has probability 1 under z and 0 under z̄: no finite ε for the released "
              "function, whatever the density of the scalar b_t (ε-DP holds for one released value f_t(x₀) + b_t)")
    return Check(label, bool(constant), "exact", "" if constant else detail, severity="" if constant else "invalid",
                 details={} if constant else {"error": FUNCTION_RELEASE, "refutes_derived": True,
                                               "reading": "standard"})


def _lemma1_checks(st, dep):
    value, _generic = scalar_release_checks(st, st.stated, C_t, label="noise ∝ exp(−ε|b|/C_t) on one released value "
                                                                     "of sensitivity C_t")
    witness = online_release_witness()
    # the witness's two releases lie on disjoint lines exactly when it fails: Definition 1 then quantifies
    # over no event and the lemma holds vacuously (computed from the same instance, not typed in)
    vacuous = Check("under Definition 1 the claim holds vacuously", witness.failed, "exact",
                    "the witness's two releases have disjoint ranges, so Definition 1 quantifies over no event",
                    details={"reading": "definition-1"})
    return [value, witness, vacuous]


add(
    "lemma1",
    "Lemma 1",
    "lemma",
    "Laplace density making algorithm (6) ε-DP",
    sp.exp(-eps * sp.Abs(b) / C_t) * eps / (2 * C_t),
    relation="none",
    params=("eps", "C_t"),
    equation="Lemma 1, (8)–(10)",
    checks=(_lemma1_checks,),
    readings={
        "standard": "f_{t,A} = f_t + b_t is ε-DP in the standard sense (Dwork et al. 2006, the paper's [6], [11]): "
                    "false, the released functions of neighbours lie on disjoint lines",
        "definition-1": "ε-DP in the paper's own Definition 1 (events in Range ∩ Range only): holds vacuously, the "
                        "two ranges are disjoint (see the remark on jcc.def1)",
    },
    doc="003_8ef3daf3084cc981.txt, Lemma 1: Δf_t ≤ C_t and b_t with density ∝ exp(−ε|b|/C_t) ⇒ "
    "f_{t,A} = f_t + b_t is ε-DP.",
    references=(
        "Hall, R., Rinaldo, A., Wasserman, L.: Differential privacy for functions and functional data, J. Mach. "
        "Learn. Res. 14 (2013) (releasing a function needs noise that is itself a random function, e.g. a Gaussian "
        "process with the RKHS sensitivity; a scalar shift is not private)",
    ),
    notes="the proof (8)-(10) compares the densities of b_t at r − f_t and r − f_t̄ for a released *function* r; "
    "that is a density only for one released value f_t(x₀) + b_t, for which the lemma holds",
)


def _online_norm_check(st, dep):
    """Run recursion (3) with a linear kernel on the unit ball (κ = 1) and compare ‖f_t‖ with κM/λ_t."""
    rng = np.random.default_rng(np.random.SeedSequence(3002))
    worst, n = 0.0, 0
    for th in (0.55, 0.75, 0.95):
        t0v = 2.0 ** (1 / th)  # t₀^θ = κ² + 1 = 2, the smallest admissible offset
        for _ in range(5):
            d = 5
            x = rng.normal(size=(3000, d))
            x /= np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]
            y = rng.choice([-1.0, 1.0], 3000)  # |y| ≤ M = 1, adversarially noisy labels
            w = np.zeros(d)
            for tt in range(3000):
                et, lt = (tt + t0v) ** (-th), (tt + t0v) ** (th - 1)
                w = w - et * ((w @ x[tt] - y[tt]) * x[tt] + lt * w)
                bound = 1.0 / (tt + 1 + t0v) ** (th - 1)  # κM/λ_{t+1}
                worst = max(worst, float(np.linalg.norm(w) / bound))
                n += 1
    ok = worst <= 1 + 1e-12
    return Check(
        "simulated recursion (3)",
        ok,
        "numeric",
        f"linear kernel on the unit ball (κ = M = 1), t₀^θ = 2, θ ∈ {{0.55, 0.75, 0.95}}: max ‖f_t‖_K/(κM/λ_t) "
        f"= {worst:.3f} over {n} iterates",
        n,
        severity="" if ok else "invalid",
    )


add(
    "lemma2",
    "Lemma 2",
    "lemma",
    "‖f_t‖_K",
    kappa * M / lam_t(t),
    relation="none",
    params=("kappa", "M", "t", "t0", "theta"),
    constraints=THM1,
    equation="(11)",
    cited="Ying & Zhou (2006), Online regularized classification algorithms, IEEE Trans. Inf. Theory",
    checks=(_online_norm_check,),
    doc="003_8ef3daf3084cc981.txt, Lemma 2 (11): t₀^θ ≥ κ² + 1 ⇒ ‖f_t‖_K ≤ κM/λ_t for all t.",
)


def _eq16_derive(dep):
    # (15): |f_{t−1}(x) − y| ≤ κ‖f_{t−1}‖_K + M ≤ κ·κM/λ_{t−1} + M, and ‖K_x‖_K ≤ κ
    f_prev = dep("jcc.lemma2").subs(t, t - 1)
    return 2 * eta(t - 1) * (kappa * f_prev + M) * kappa


add(
    "eq16",
    "Theorem 1",
    "equation",
    "‖f_t − f_t̄‖_K",
    2 * eta(t - 1) * (kappa**2 * M / lam_t(t - 1) + M) * kappa,
    derive=_eq16_derive,
    relation="upper",
    params=("kappa", "M", "t", "t0", "theta"),
    depends=("lemma2",),
    constraints=THM1,
    equation="(16), proof of Theorem 1",
    doc="003_8ef3daf3084cc981.txt, (16): ‖f_t − f_t̄‖_K ≤ 2η_{t−1}(κ²M/λ_{t−1} + M)κ.",
)
EQ17 = add(
    "eq17",
    "Theorem 1",
    "equation",
    "sensitivity Δf_t = sup ‖f_t − f_t̄‖_∞",
    2 * kappa**2 * (kappa**2 + 1) * M / (t - 1 + t0) ** (2 * theta - 1),
    derive=lambda dep: kappa * dep("jcc.eq16"),
    relation="upper",
    params=("kappa", "M", "t", "t0", "theta"),
    depends=("eq16",),
    constraints=THM1,
    equation="(17), proof of Theorem 1",
    doc="003_8ef3daf3084cc981.txt, (17): Δf_t ≤ 2κ²(κ²+1)M/(t−1+t₀)^{2θ−1}, from (16) and ‖f‖_∞ ≤ κ‖f‖_K.",
)
_Ct_stated = 2 * (kappa**2 + 1) * kappa * M / (t - 1 + t0) ** (2 * theta - 1)


def C_t_correction(ratio: sp.Expr) -> dict:
    """The smallest correction of C_t in (12) (schema S1 of issue 34), from ratio = C_t of (12) / (17).

    ``proof``: the factor (17)/(12) = 1/ratio (= κ, sympy), the constant the proof's own chain (16) → (17)
    → Lemma 1 needs (a change only where κ > 1: for κ ≤ 1 the printed C_t already dominates (17)).
    ``tight``: not computed here: the exact sensitivity sup ‖f_t − f_t̄‖_∞ of recursion (3) has no closed
    form, and the adversarial sensitivity search (``verify/empirical/jcc.py``, ``check_thm1_C_t``) gives
    only lower bounds on it (each of its rows with the stated C_t carries ``needed_over_printed``, a lower
    bound on the tight factor).  ``printed_violated``: what that search found.

    Examples
    --------
    >>> C_t_correction(1 / S.kappa)["proof"]["factor"]
    'kappa'
    """
    need = simplified(1 / ratio)
    return {
        "proof": {"factor": sp.sstr(need),
                  "text": f"C_t × {sp.sstr(need)}: the sup-norm bound (17), 2κ²(κ²+1)M/(t−1+t₀)^(2θ−1), which the "
                          "proof's own chain ((16) and ‖f‖_∞ ≤ κ‖f‖_K) gives and Lemma 1 needs; a change only where "
                          "κ > 1 (for κ ≤ 1 the printed C_t already dominates (17))"},
        "tight": {"factor": None, "tool": "exact instance",
                  "text": "not computed: the exact sensitivity sup ‖f_t − f_t̄‖_∞ of recursion (3) has no closed form; "
                          "the adversarial sensitivity search (jcc.thm1.C_t, empirical rows 'C_t=stated') bounds it "
                          "from below only, each row's needed_over_printed being a lower bound on the tight factor"},
        "printed_violated": {"answer": "no counterexample found",
                             "evidence": "adversarial search over neighbouring streams (any replaced index, inputs x' "
                                         "on a grid of the circle refined by Brent, labels ±M, three base-stream "
                                         "families, κ ∈ {1, 2}, periodic Sobolev kernel; exact sup norm): every "
                                         "sensitivity found lies below the printed C_t (jcc.thm1.C_t, empirical rows)"},
    }


def _C_t_check(st, dep):
    """(12) against (17), exactly: their ratio is 1/κ (below 1 iff κ > 1)."""
    ratio = simplified(_Ct_stated / dep("jcc.eq17"))
    ok = bool(simplified(ratio - 1) == 0)
    c = Check("stated vs derived", ok, "symbolic",
              f"C_t of (12) / the sup-norm bound (17) = {sp.sstr(ratio)} (sympy): the printed C_t is the K-norm bound "
              "(16) after the schedule and lies below (17), which Lemma 1 needs, exactly when κ > 1; the printed "
              "constant does not follow.  Smallest correction: tight not computed (the exact sensitivity has no "
              "closed form; the adversarial searches give lower bounds only); under the proof's own argument "
              f"C_t × {sp.sstr(simplified(1 / ratio))} (= (17)).  Printed form violated: no counterexample found "
              "(the adversarial sensitivity searches stay below the printed C_t)",
              severity="" if ok else "mismatch",
              details={} if ok else {"smallest_correction": C_t_correction(ratio)})
    return tag(c, C_T_K_NORM)

THM1_C_T = add(
    "thm1.C_t",
    "Theorem 1",
    "noise",
    "sensitivity bound C_t used to calibrate b_t",
    _Ct_stated,
    derive=lambda dep: dep("jcc.eq17"),
    relation="none",   # compared by _C_t_check: an exact ratio, not a count of sampled points
    params=("kappa", "M", "t", "t0", "theta"),
    depends=("eq17",),
    constraints=THM1,
    equation="(12)",
    checks=(_C_t_check,),
    readings={
        "kappa-sqrt": "κ = sup √K(x, x) (the convention the proof uses: |f(x)| ≤ κ‖f‖_K, and Ying & Zhou's Lemma 2): "
                      "(17) is 2κ²(κ²+1)M/(t−1+t₀)^{2θ−1} and (12) is short by the factor κ when κ > 1",
        "kappa-sup-K": "κ = sup K(x, x') as printed in §3: then |f(x)| ≤ √κ‖f‖_K, the chain gives "
                       "2κ(κ+1)M/(t−1+t₀)^{2θ−1}, and (12) is short by (κ²+1)/(κ+1) ≥ 0.83 when κ < 1; an erratum "
                       "either way",
    },
    doc="003_8ef3daf3084cc981.txt, Theorem 1 (12): C_t = 2(κ²+1)κM/(t−1+t₀)^{2θ−1}; Lemma 1 needs C_t ≥ Δf_t, "
    "which (17) bounds by 2κ²(κ²+1)M/(t−1+t₀)^{2θ−1}.",
    notes="(12) is the K-norm bound (16) after the schedule, not the sup-norm bound (17) that the proof says to use.  "
    "Feature norm: the kernel bound κ and the label bound |y| ≤ M are parameters of the paper with no fixed value, so "
    "C_t answers for a user's own κ and M.  "
    "Intercept: not a parameter: recursion (3) fits f in H_K with no separate intercept; one added through the "
    "kernel (K + 1) changes only κ² by 1.  "
    "Exact minimiser: not a parameter: recursion (3) is the algorithm itself, one pass with no minimiser to reach "
    "(no tolerance enters).  "
    "Loss Lipschitz constant: not a parameter: the slope |f_{t−1}(x) − y| ≤ κ‖f_{t−1}‖_K + M of the square loss is "
    "bounded through Lemma 2 (‖f_t‖_K ≤ κM/λ_t), which needs t₀^θ ≥ κ² + 1; without that premise the proof bounds "
    "no iterate.  "
    "Loss smoothness: not used: (15)–(17) take no curvature of the square loss beyond the recursion itself",
    # what (16)-(17) assume of the algorithm whose output b_t perturbs: recursion (3) on the square loss
    premises={"loss": "square", "algorithm": "online kernel regression (recursion (3), one pass)",
              "labels": "|y| <= M"},
)
_dens_stated = sp.exp(eps * sp.Abs(b) / _Ct_stated) / (2 * _Ct_stated / eps)


def _thm1_density_checks(st, dep):
    fixed = sp.exp(-eps * sp.Abs(b) / _Ct_stated) * eps / (2 * _Ct_stated)
    sign = density_integrates_to_one(st.stated, label="stated density integrates to one")
    if sign.failed:
        # exp(+ε|b|/C_t) cannot be meant (Lemma 1 has the minus sign): a typo, the intended density is Lemma 1's
        sign.severity = "typo"
    value, _generic = scalar_release_checks(st, fixed, dep("jcc.eq17"),
                                            label="sign-corrected density with C_t of (12): privacy loss ≤ ε for one "
                                                  "released value")
    witness = online_release_witness()   # applies under the standard reading of Lemma 1 only (its tag kept)
    return [sign, tag(value, C_T_K_NORM), witness]


THM1_DENSITY = add(
    "thm1.density",
    "Theorem 1",
    "noise",
    "density of b_t",
    _dens_stated,
    derive=lambda dep: laplace_density(dep("jcc.eq17") / eps),
    relation="none",   # a printed density that is no density has no meaningful scale ratio; see the checks
    params=("kappa", "M", "t", "t0", "theta", "eps"),
    depends=("eq17",),
    constraints=THM1,
    equation="Theorem 1",
    checks=(_thm1_density_checks,),
    readings={
        "standard": "the released function f_t + b_t is ε-DP in the standard sense (jcc.lemma1's reading 'standard'): "
                    "false, whatever the density of the scalar b_t",
        "definition-1": "ε-DP in the paper's Definition 1 (jcc.lemma1's reading 'definition-1'): the function release "
                        "holds vacuously, but the calibration still fails for one released value (C_t of (12) short "
                        "by κ), so the verdict does not change",
    },
    notes="three findings, none of them its own: the missing minus sign is a typo (Lemma 1 has it); C_t of (12) is "
    "short by κ (jcc.thm1.C_t); and no scalar-noise density makes the released function private (jcc.lemma1), "
    "so no corrected density is offered for the function release (Laplace(Δf_t/ε) is valid for one value)",
    doc="003_8ef3daf3084cc981.txt, Theorem 1: b_t has density (1/α)exp{ε|b|/C_t} with α = 2C_t/ε (printed "
    "without the minus sign of Lemma 1).",
)


# --------------------------------------------------------------------------- §4
def _initial_derive(dep):
    j = sp.Symbol("j", integer=True, nonnegative=True)
    prod = sp.product((j + t0 - 1) / (j + t0), (j, 0, t))
    return simplified(sp.gammasimp(prod)) * fn


add(
    "initial",
    "Section 4",
    "equation",
    "initial error ‖A_t⋯A_0(f_0 − f_ρ)‖_K",
    t0 / (t + t0) * fn,
    derive=_initial_derive,
    relation="upper",
    params=("t", "t0", "fnorm"),
    constraints=(sp.Ge(t0, 1),),
    equation="§4, display after (20)",
    doc="003_8ef3daf3084cc981.txt, §4: ‖A_t⋯A_0(f_0 − f_ρ)‖_K ≤ Π_{j=0}^t (j+t₀−1)/(j+t₀)‖f_ρ‖_K = t₀/(t+t₀)‖f_ρ‖_K.",
    notes="the product telescopes to (t₀−1)/(t+t₀), not t₀/(t+t₀); the stated value is a valid, looser bound",
)


def _pinelis_check(st, dep):
    """P(|Σ ε_i| > 2(1/3 + √t) ln(2/δ)) ≤ δ for Rademacher ε_i (B = 1, σ_t² = t), exactly."""
    worst, n = 0.0, 0
    for tt in (1, 2, 5, 10, 30, 100, 300, 1000, 3000):
        k = np.arange(tt + 1)
        pmf = stats.binom.pmf(k, tt, 0.5)
        s = 2 * k - tt
        for dl in (0.9, 0.5, 0.2, 0.1, 0.05, 0.01, 0.001):
            thr = 2 * (1 / 3 + np.sqrt(tt)) * np.log(2 / dl)
            p = pmf[np.abs(s) > thr].sum()
            worst = max(worst, p / dl)
            n += 1
    ok = worst <= 1 + 1e-12
    return Check(
        "exact Rademacher martingale",
        ok,
        "numeric",
        f"{n} (t, δ) pairs, exact binomial: max P(|S_t| > bound)/δ = {worst:.3g}",
        n,
        severity="" if ok else "invalid",
    )


add(
    "lemma3",
    "Lemma 3",
    "lemma",
    "‖Σ_{i≤t} ξ_i‖ with probability ≥ 1 − δ (martingale differences in a Hilbert space)",
    2 * (Bm / 3 + sig) * sp.log(2 / delta),
    relation="none",
    params=("B_mart", "sigma_t", "delta"),
    equation="(21)",
    cited="Pinelis (1994) / Tarrès & Yao (2014), Pinelis–Bernstein inequality",
    checks=(_pinelis_check,),
    doc="003_8ef3daf3084cc981.txt, Lemma 3 (21): ‖ξ_i‖ ≤ B, Σ E_{i−1}‖ξ_i‖² ≤ σ_t² ⇒ "
    "‖Σξ_i‖ ≤ 2(B/3 + σ_t) ln(2/δ) with probability ≥ 1 − δ.",
)

_ibound = sp.Le(i_, t)


def _eq24_checks(st, dep):
    # (22)–(23): ‖ξ_i‖ ≤ (i+t₀−1)/(t+t₀) η_{i−1}[…] ≤ η_t[…] for 1 ≤ i ≤ t
    lhs = (i_ + t0 - 1) / (t + t0) * eta(i_ - 1)
    return inequality(st, lhs, eta(t), "(22)–(24): (i+t₀−1)η_{i−1}/(t+t₀) ≤ η_t for i ≤ t", "η_t", "(22)", (_ibound,))


add(
    "eq24",
    "Section 4",
    "equation",
    "‖ξ_i‖_K for ξ_i = A_t⋯A_i B_{i−1}",
    eta(t) * _C,
    relation="none",
    params=("t", "t0", "theta", "M", "kappa", "fnorm"),
    constraints=THM1,
    equation="(22)–(24)",
    checks=(_eq24_checks,),
    doc="003_8ef3daf3084cc981.txt, (22)–(24): ‖ξ_i‖_K ≤ η_t[Mκ + (κ²+1)‖f_ρ‖_K].",
)


#: the exact one-point instance of (25)-(27): X = {x*}, K(x*, x*) = κ², ρ = point mass at (x*, M)
BIAS_POINT = {"kappa": sp.Rational(1, 10), "M": sp.Integer(1), "theta": sp.Rational(99, 100), "t": 10**5,
              "delta": sp.Rational(1, 10), "eps": sp.Rational(1, 2)}


def bias_instance(kappa_: float, M_: float, theta_: float, t_end: int) -> dict[str, float]:
    """Run recursion (3) on the one-point space X = {x*}, K(x*, x*) = κ², y ≡ M (so f_ρ = (M/κ²)K_{x*}).

    H_K is spanned by K_{x*}; a function g is its value g(x*) and ‖g‖_K = |g(x*)|/κ.  In values,
    L_t multiplies by κ², A_t = a_t = 1 − η_tλ_t − η_tκ² and B_t = −η_tλ_tM (E B_t = B_t ≠ 0: the
    regularisation bias that (25) drops).  Returns, for t = ``t_end``, the sample error
    S = Σ_{i=0}^{t} A_t⋯A_{i+1}B_i of (20), Σ_{i=1}^{t} ξ_i = S − B_t, the initial error
    A_t⋯A_0(f_0 − f_ρ), all as values at x*, and t₀ = (κ²+1)^{1/θ} (the smallest offset Theorem 1 allows).
    Deterministic (every sample is (x*, M)); float64, whose rounding (≈ t·1e−16 relative) is far below
    every margin reported.

    Examples
    --------
    >>> r = bias_instance(0.1, 1.0, 0.99, 1000)
    >>> round(abs(r["sample"]) / 0.1, 2)   # ‖sample error‖_K ≈ ‖f_ρ‖_K·λ_t/(κ² + λ_t) ≈ 9.9
    9.9
    """
    t0v = (kappa_**2 + 1) ** (1 / theta_)
    S_, I_, B_ = 0.0, -M_, 0.0
    for tt in range(t_end + 1):
        et, lt = (tt + t0v) ** (-theta_), (tt + t0v) ** (theta_ - 1)
        a = 1 - et * lt - et * kappa_**2
        B_ = -et * lt * M_
        S_, I_ = a * S_ + B_, a * I_
    return {"sample": S_, "xi_sum": S_ - B_, "initial": I_, "B_t": B_, "t0": t0v}


def _bias_values() -> tuple[dict[sp.Symbol, Any], dict[str, float]]:
    P = BIAS_POINT
    r = bias_instance(float(P["kappa"]), float(P["M"]), float(P["theta"]), int(P["t"]))
    vals = {kappa: P["kappa"], M: P["M"], theta: P["theta"], t: P["t"], delta: P["delta"], eps: P["eps"],
            fn: P["M"] / P["kappa"], t0: sp.Float(r["t0"], 30)}
    return vals, r


def _bias_witness(st, dep, quantity: str) -> Check:
    """The exact one-point instance against the statement (stated and derived forms)."""
    vals, r = _bias_values()
    kap = float(vals[kappa])
    stated = float(st.stated.subs(vals))
    derived = float(dep(st.key).subs(vals))
    if quantity == "xi_sum" or quantity == "sample":
        norm = abs(r[quantity]) / kap
        p_stated = 1.0 if norm > stated else 0.0   # deterministic: every sample is (x*, M)
        p_derived = 1.0 if norm > derived else 0.0
        what = "‖Σ_{i=1}^t ξ_i‖_K" if quantity == "xi_sum" else "the sample error ‖B_t + A_tB_{t−1} + ⋯‖_K"
        measured = f"{what} = {norm:.4g} (deterministic: probability 1)"
    else:
        # ‖f_{t+1} + b − f_ρ‖_K = |e + b|/κ, e = (f_{t+1} − f_ρ)(x*), b ~ Laplace(C_{t+1}/ε) with C_t of (12)
        e = r["sample"] + r["initial"]
        s_ = float((_Ct_stated / eps).subs(t, t + 1).subs(vals))

        def cdf(u: float) -> float:   # Laplace(s_) distribution function
            return 0.5 * math.exp(u / s_) if u < 0 else 1 - 0.5 * math.exp(-u / s_)

        def p_exceed(bound: float) -> float:
            lo_, hi_ = -kap * bound - e, kap * bound - e   # |e + b| ≤ κ·bound ⇔ lo_ ≤ b ≤ hi_
            return 1 - (cdf(hi_) - cdf(lo_))

        p_stated, p_derived = p_exceed(stated), p_exceed(derived)
        measured = (f"‖f_{{t+1}} − f_ρ‖_K = {abs(e) / kap:.4g} before the noise; with b_{{t+1}} ~ Laplace(C_{{t+1}}/ε) "
                    f"(scale {s_:.3g}) P(‖f_{{t+1,A}} − f_ρ‖_K > bound) = {p_stated:.4g}")
    d = float(vals[delta])
    ok = p_stated <= d
    refutes_derived = p_derived > d
    detail = (f"one-point space X = {{x*}}, K(x*, x*) = κ² = 1/100, ρ = point mass at (x*, M = 1), f_ρ = (M/κ²)K_{{x*}} "
              f"(‖f_ρ‖_K = 10), θ = 99/100, t₀ = (κ²+1)^(1/θ) = {float(vals[t0]):.4f}, t = {vals[t]}, δ = 1/10, "
              f"ε = 1/2: {measured} vs the stated bound {stated:.4g} (derived {derived:.4g}); E B_t = −η_tλ_t f_ρ ≠ 0, "
              f"so the sample error carries the regularisation bias ≈ ‖f_ρ‖_K λ_t/(κ² + λ_t), of order t^(θ−1), which "
              "outlives the claimed t^(1/2−θ) whenever θ > 3/4")
    names = {"xi_sum": "‖Σξ_i‖_K within (25)", "sample": "sample error within (26)", "total": "‖f_{t+1,A} − f_ρ‖_K within (27)"}
    return Check(f"one-point instance: {names[quantity]} with probability ≥ 1 − δ", ok, "exact",
                 "" if ok else detail, severity="" if ok else "invalid",
                 details={} if ok else {"error": ONLINE_BIAS, "refutes_derived": refutes_derived,
                                        "probability": p_stated, "stated": stated, "derived": derived})


def _martingale_gap(st, dep):
    """Is ξ_i a martingale difference sequence, as Lemma 3 requires?  Exact 1-D instance.

    K(x, x') = x x' on X = {−1, 1} (uniform), f_ρ(x) = c·x, y = f_ρ(x) (noise-free).
    """
    c, lt = sp.symbols("c lambda_t", positive=True)
    xs = (sp.Integer(-1), sp.Integer(1))
    # B_t/η_t = y_t K_{x_t} − (λ_t I + L_t) f_ρ, as a coefficient on the feature x ↦ x
    eb = sum((c * x) * x - (lt * c + x * x * c) for x in xs) / 2
    eb = simplified(eb)
    ok = eb == 0
    return Check(
        "Lemma 3 premise: ξ_i are martingale differences",
        ok,
        "symbolic",
        f"E[B_t | past]/η_t = {sp.sstr(eb)} (= −λ_t f_ρ) in an exact 1-D instance (K = x x', x = ±1, f_ρ = c·x), "
        "and A_t⋯A_i depends on x_i, …, x_t; so ξ_i = A_t⋯A_i B_{i−1} is not a martingale difference sequence "
        "and (25) does not follow from Lemma 3 as used",
        severity="" if ok else "gap",
        details={} if ok else {"error": ONLINE_BIAS},
    )


def _eq25_derive(dep):
    # Lemma 3 with B = η_t C and σ_t = √t η_t C (the paper's Σ E‖ξ‖² ≤ tη_t²C, read with C squared)
    return dep("jcc.lemma3").subs({Bm: eta(t) * _C, sig: sp.sqrt(t) * eta(t) * _C})


add(
    "eq25",
    "Section 4",
    "equation",
    "‖Σ_{i=1}^t ξ_i‖_K with probability ≥ 1 − δ",
    sp.Rational(8, 3) * t ** (sp.Rational(1, 2) - theta) * _C * sp.log(2 / delta),
    derive=_eq25_derive,
    relation="upper",
    params=("t", "t0", "theta", "M", "kappa", "fnorm", "delta"),
    depends=("lemma3",),
    constraints=THM1,
    equation="(25)",
    hypotheses=(_martingale_gap,),
    checks=(lambda st, dep: _bias_witness(st, dep, "xi_sum"),),
    doc="003_8ef3daf3084cc981.txt, (25): ‖Σξ_i‖_K ≤ (8/3)√t η_t[…]ln(2/δ) ≤ (8/(3t^{θ−1/2}))[…]ln(2/δ).",
    references=(
        "Ying, Y., Zhou, D.-X.: Online regularized classification algorithms, IEEE Trans. Inf. Theory 52(11) (2006) "
        "(the online iterate tracks the regularised solution f_{λ_t}; its error bound keeps the regularisation bias)",
        "Tarrès, P., Yao, Y.: Online learning as stochastic approximation of regularization paths: optimality and "
        "almost-sure convergence, IEEE Trans. Inf. Theory 60(9) (2014) (sample error and the drift of the "
        "regularisation path, bounded separately)",
    ),
    notes="the variance line omits the square: Σ E‖ξ_i‖² ≤ tη_t²[…]², not tη_t²[…]",
)


def _eq26_derive(dep):
    # sample error = B_t + Σ ξ_i, with ‖B_t‖ ≤ η_t[…] ≤ t^{1/2−θ}[…]
    return dep("jcc.eq25") + eta(t) * _C


add(
    "eq26",
    "Section 4",
    "equation",
    "sample error ‖B_t + A_tB_{t−1} + ⋯ + A_t⋯A_1B_0‖_K with probability ≥ 1 − δ",
    sp.Rational(11, 3) * t ** (sp.Rational(1, 2) - theta) * _C * sp.log(2 / delta),
    derive=_eq26_derive,
    relation="upper",
    params=("t", "t0", "theta", "M", "kappa", "fnorm", "delta"),
    depends=("eq25",),
    constraints=THM1,
    equation="(26)",
    checks=(lambda st, dep: _bias_witness(st, dep, "sample"),),
    doc="003_8ef3daf3084cc981.txt, (26): the sample error is at most (11/(3t^{θ−1/2}))[…]ln(2/δ) for 0 < δ < 1.",
    notes="the printed step 8/3·ln(2/δ) + 1 ≤ 11/3·ln(2/δ) needs ln(2/δ) ≥ 1, i.e. δ ≤ 2/e ≈ 0.736; (26) itself "
    "still holds for all δ because ‖B_t‖_K ≤ η_t[…] is smaller than the t^{1/2−θ}[…] the proof spends on it",
)
_Ceps = 4 * (kappa**2 + 1) * kappa * M / eps + t0 * fn + sp.Rational(11, 3) * _C


def _thm2_derive(dep):
    # union bound: sample error at level δ/2 (26), and Markov on |b_{t+1}|: P(|b| ≥ 2E|b|/δ) ≤ δ/2,
    # E|b_{t+1}| = C_{t+1}/ε with the calibration C_t of Theorem 1 (12) at t+1 (its derived form is the
    # sup-norm sensitivity (17)); initial error at t+1
    initial = dep("jcc.initial").subs(t, t + 1)
    sample = dep("jcc.eq26").subs(delta, delta / 2)
    noise = 2 / delta * dep("jcc.thm1.C_t").subs(t, t + 1) / eps
    return initial + sample + noise


def _thm2_checks(st, dep):
    # the printed constant against the proof chain: it falls short only through C_t's missing κ (noise term)
    cmp_ = tag(inequality(st, dep(st.key), st.stated, "stated vs derived", "stated", "derived"), C_T_K_NORM)
    rate = rate_check(st, dep(st.key), sp.Rational(1, 2) - theta, var=t, label="rate: lim log(bound)/log(t)")
    witness = _bias_witness(st, dep, "total")
    if cmp_.failed:
        cmp_.details["smallest_correction"] = {
            "proof": {"factor": "kappa",
                      "text": "the noise term 4(κ²+1)κM/(εδ)·t^(1/2−θ) of C_ε × κ (C_t of (12) replaced by the "
                              "sup-norm bound (17), jcc.thm1.C_t); the other terms of (27) follow from (26) as printed"},
            "tight": {"factor": None, "tool": "",
                      "text": "not computed: the derived chain is itself refuted (the regularisation bias that (25) "
                              "drops, jcc.eq25), so no valid constant of this form exists to compute"},
            "printed_violated": (
                {"answer": "yes", "evidence": "exact one-point instance (check 'one-point instance', "
                                              f"probability {witness.details.get('probability', 1.0):.3g} > δ): the "
                                              "regularisation bias, not the noise constant, breaks (27)"}
                if witness.failed else
                {"answer": "no counterexample found", "evidence": "the one-point instance respects (27)"}),
        }
    return [cmp_, rate, witness]


THM2 = add(
    "thm2",
    "Theorem 2",
    "theorem",
    "‖f_{t+1,A} − f_ρ‖_K with probability ≥ 1 − δ",
    _Ceps * t ** (sp.Rational(1, 2) - theta) * 4 / delta,
    derive=_thm2_derive,
    params=("kappa", "M", "eps", "t0", "fnorm", "t", "theta", "delta"),
    depends=("initial", "eq26", "thm1.C_t"),
    constraints=THM1,
    equation="(27)",
    rate_symbol="t",
    claimed_exponent=sp.Rational(1, 2) - theta,
    relation="none",   # compared by _thm2_checks, whose failure is labelled with its underlying error
    checks=(_thm2_checks,),
    ceiling=PAPER.symbols["fnorm"].symbol,
    ceiling_why='the zero function: ‖0 − f_ρ‖_K = ‖f_ρ‖_K (the parameter fnorm), so a bound ≥ ‖f_ρ‖_K promises nothing the data-independent answer 0 does not',
    doc="003_8ef3daf3084cc981.txt, Theorem 2 (27): with confidence 1 − δ, ‖f_{t+1,A} − f_ρ‖_K ≤ C_ε t^{−(θ−1/2)}·4/δ, "
    "C_ε = 4(κ²+1)κM/ε + t₀‖f_ρ‖_K + (11/3)(κM + (κ²+1)‖f_ρ‖_K).",
    notes="b_{t+1} is a real number added to a function; the proof treats ‖b‖_K as |b| (a constant function has "
    "K-norm |b|·‖1‖_K, finite only if constants lie in H_K); the Laplace tail P(|b| ≥ s ln(2/δ)) = δ/2 would "
    "already give the ln(1/δ) dependence the conclusion asks for",
)

# Where the paper operates: ε < 1 ("meaningful privacy"), θ ∈ (1/2, 1) and t₀^θ ≥ κ² + 1 (Theorems 1-2,
# already constraints of the statements); η_t = (t+t₀)^(−θ), λ_t = (t+t₀)^(θ−1) are functions of t, not
# free parameters, so the regime has no schedule of its own; the online variable is t.
PAPER.regime = Regime(
    ranges={"eps": (0.0, 1.0)},
    variable="t",
    note="003_8ef3daf3084cc981.txt: ε < 1; θ ∈ (1/2, 1) and t₀^θ ≥ κ² + 1 (Theorem 1), t up to 1e9",
)

# --------------------------------------------------------------------------- coverage
PAPER.omit("the privacy of f_{t,A} under Definition 1 as printed (events in Range ∩ Range)",
           "vacuous for any two releases with disjoint ranges (jcc.def1); the claims are checked in the standard sense, "
           "Definition 1's reading is recorded on jcc.lemma1")
PAPER.omit("a corrected Theorem 2 (a bound that includes the regularisation bias)",
           "the one-point instance refutes (25)-(27) and their derived forms; a valid bound needs the bias term of "
           "Ying & Zhou (2006) / Tarrès & Yao (2014), which the paper does not state, so none is offered")
PAPER.omit("‖b_t‖_K of the constant function b_t (Theorem 2's proof takes it as |b_t|)",
           "‖1‖_K depends on the kernel (finite only if constants lie in H_K); the simulations use a kernel with "
           "‖1‖_K = 1/√μ₀ and the one-point witness one with ‖1‖_K = 1/κ")
PAPER.omit("the conclusion's remark that 4/δ could become ln(2/δ)", "a remark about future work, not a claim")
