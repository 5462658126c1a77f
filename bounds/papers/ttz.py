"""Seed 002 — Talwar, Thakurta & Zhang, "Private Empirical Risk Minimization Beyond the Worst
Case: The Effect of the Constraint Set Geometry" (arXiv 2014; NeurIPS 2015 as "Nearly Optimal
Private LASSO") (``002_9f0d50e873e3e787.txt``).  Paper id ``ttz``.

The seed text lost every formula; the formulas come from
``/work/shared/reference/talwar_thakurta_zhang.md`` (the arXiv/NeurIPS versions).  Items
tagged *confirmed* there (the private Frank–Wolfe algorithm and its noise scale) are encoded as
the paper states them and re-derived; items tagged *order* (every utility bound, the mirror-
descent noise variance, the lower bound, Table 1) are encoded as **order statements**
(kind ``order``) with an explicit unknown constant ``C_order`` and checked on their exponent
(:func:`bounds.checks.rate_check`).  For each order statement an explicit-constant version is
derived here from standard results and checked the usual way (stated vs derived):

* private Frank–Wolfe: report-noisy-min (McKenna & Sheldon 2020, Dwork & Roth 2014 §3.3),
  advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm 3.20 and
  Cor. 3.21) and the Frank–Wolfe recursion with an additive linear-oracle error (Jaggi 2013,
  Thm 1 and Lemma 7; the recursion is solved in closed form here);
* private mirror descent: the Gaussian mechanism in zero-concentrated DP (Bun & Steinke 2016,
  Prop. 1.3, Lemma 1.7 and Prop. 1.3's conversion to (ε, δ)), the mirror-descent regret bound
  (Beck & Teboulle 2003; Shalev-Shwartz 2011) and the Gaussian variance bound
  Var sup_Q⟨θ, b⟩ ≤ σ² max_Q‖θ‖²₂ (Gaussian Poincaré inequality).

Neighbouring data sets differ in one record (Definition 2.1, replacement), ℓ is L₁-Lipschitz in
ℓ1 (‖∇ℓ‖_∞ ≤ L₁) for Frank–Wolfe and L-Lipschitz in ℓ2 for mirror descent; L(θ; D) is the
*average* loss.

====================================  ======================================================
``ttz.def2_1``                        Definition 2.1: (ε, δ)-differential privacy
``ttz.gw.def``                        §2.2: Gaussian width G_C = E sup_C⟨θ, g⟩
``ttz.gw.l2``                         ℓ2 ball of radius R: R·E‖g‖₂ ≤ R√p
``ttz.gw.l1``                         ℓ1 ball: E‖g‖_∞ ≤ √(2 ln 2p)
``ttz.gw.simplex``                    simplex: E max g_i ≤ √(2 ln p)
``ttz.gw.polytope``                   conv(S), |S| = k: ≤ max‖s‖₂ √(2 ln k)
``ttz.gw.group``                      grouped ℓ1/ℓ2 unit ball: ≤ √s + √(2 ln n_g)
``ttz.gw.nuclear``                    nuclear-norm unit ball: E‖G‖_op ≤ √p₁ + √p₂
``ttz.md.sens``                       ℓ2 sensitivity of ∇L: 2L/n
``ttz.md.sigma.zcdp``                 explicit σ² of Algorithm 1 (zCDP calibration)
``ttz.md.sigma``                      Algorithm 1: σ² = O(L²T log(1/δ)/(n²ε²)) (order)
``ttz.thm3_1``                        Theorem 3.1: Algorithm 1 is (ε, δ)-DP
``ttz.thm3_2.explicit``               explicit noisy mirror-descent bound 2√(D²(L*² + σ²(G²+r²))/T)
``ttz.thm3_2``                        Theorem 3.2: O(L G_C polylog/(nε)) (order)
``ttz.eq10``                          (10) ℓ2 ball: O(L√p/(nε)) (order, explicit check)
``ttz.eq11``                          (11) polytope: O(L max‖s‖₂ √log k/(nε)) (order)
``ttz.eq11.l1``                       (11) ℓ1 ball (k = 2p)
``ttz.eq11.simplex``                  (11) simplex (k = p)
``ttz.eq12``                          (12) grouped norms (order)
``ttz.eq13``                          (13) nuclear-norm ball (order)
``ttz.thmA``                          Appendix A: Δ-strongly convex losses (order)
``ttz.fw.sens``                       §5: sensitivity of a vertex score ⟨s, ∇L⟩: 2L₁‖C‖₁/n
``ttz.fw.rnm``                        report-noisy-min with Lap(λ): privacy loss 2Δ/λ (cited, tight)
``ttz.fw.adv_comp``                   advanced composition (cited)
``ttz.fw.scale``                      §5, Algorithm 2: λ = L₁‖C‖₁√(8T log(1/δ))/(nε)  — proof gap
``ttz.fw.privacy``                    §5: private Frank–Wolfe is (ε, δ)-DP
``ttz.fw.noise_err``                  E(max − min) of k Laplace(λ) variables ≤ 2λ(1 + ln k)
``ttz.fw.curvature``                  Γ_L ≤ β diam(C)² (Jaggi 2013, Lemma 7; cited)
``ttz.fw.lasso_curv``                 LASSO (‖x‖_∞ ≤ 1, ℓ1 ball): Γ_L ≤ 8
``ttz.fw.init_gap``                   L(θ₁) − L* ≤ 2L₁‖C‖₁
``ttz.fw.utility.explicit``           E L(θ_T) − L* ≤ 2λ(1+ln k) + (4L₁‖C‖₁ + 2Γ(T−1))/(T(T+1))
``ttz.fw.T_schedule``                 T = (Γ nε/(L₁‖C‖₁))^{2/3}
``ttz.fw.lasso_explicit``             the explicit bound for LASSO (L₁ = 4, ‖C‖₁ = 1, Γ = 8, k = 2p)
``ttz.thm1_2``                        Theorem 1.2: Õ(Γ^{1/3}(L₁‖C‖₁)^{2/3}/(nε)^{2/3}) (order)
``ttz.thm1_2.lasso``                  Theorem 1.2, LASSO: Õ(log(np)/(nε)^{2/3}) (order)
``ttz.thm1_3``                        Theorem 1.3: Ω(1/(n log n)^{2/3}) lower bound (order)
``ttz.table1``                        Table 1 (data: :data:`TABLE1`, :func:`table1_markdown`)
====================================  ======================================================

Findings (issue 23 review)
--------------------------
``ttz.fw.scale`` (root) and ``ttz.fw.privacy`` (its echo): a gap in the privacy proof, not a
counterexample.  With replacement neighbours a vertex score ⟨s, ∇L(θ; D)⟩ moves by up to
Δ = 2L₁‖C‖₁/n, and report-noisy-min over the *non-monotone* scores ±∇_jL can lose 2Δ/λ per
selection (the exact ratio reaches e^{2Δ/λ}: ``ttz.fw.rnm``).  With the per-step ε₀ = ε/√(8T ln(1/δ))
of advanced composition (Dwork & Roth, Cor. 3.21, the source of the √8) the scale the proof needs is
4L₁‖C‖₁√(8T ln(1/δ))/(nε): the printed scale is ¼ of it and each step is charged 4ε₀.  At ε = 0.5,
δ = 1e-6, T = 100 advanced composition (Thm 3.20) then certifies 2.07ε and optimal composition of the
4ε₀-DP steps (``pld_epsilon``) 1.56ε; the smallest corrections (:func:`fw_scale_correction`, schema S1 on
the failing check) are λ × 1.51 under optimal composition and λ × 2.04 under the proof's own Thm 3.20.  The
derived 4× scale is *sufficient*, not necessary: the paper's claim (the printed algorithm is (ε, δ)-DP in
total) is open.  The audit of the whole printed algorithm finds no leak beyond ε, and the exact ε of
the printed algorithm on its worst two-vertex instance (:func:`fw_printed_exact_eps`) is 0.74ε; the
one-step audit at ε₀ tests a budget the toolkit derived (``details["budget"] = "toolkit"``) and cannot
refute the claim.  The reading of the √8 is recorded on ``ttz.fw.scale`` (``readings``).

Tight calibrations
------------------
:func:`calibration_rows` (``PAPER.calibrations``) sets the stated, derived and *tight* noise side by
side, the tight one from the PLD accountant of :mod:`bounds.accounting`: for Frank–Wolfe the largest
per-step ε₀ that T adaptive ε₀-DP selections may have (exact optimal composition; λ = 2Δ/ε₀,
:func:`fw_scale_tight`), 2.47× below the derived scale at the simulations' constants and 3.4× at the
audit's (T = 8); for mirror descent the smallest σ of T Gaussian steps (:func:`md_sigma_tight`), the
zCDP σ being 1.31× it at (ε, δ) = (1, 1e-5) and 1.21× at (1, 1e-8), whatever T.

Examples
--------
>>> from bounds import registry
>>> registry.evaluate("ttz.fw.scale").status     # a failing proof step (severity gap)
'erratum'
>>> registry.evaluate("ttz.fw.sens").status
'consistent'
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp

from .._lazy import lazy_module
from ..checks import balance, leading_exponent, rate_check, schedule_check, simplified, solved
from ..core import Statement
from ..evidence import Check
from ..paper import Paper
from ..symbols import Regime, S

integrate = lazy_module("scipy.integrate")
special = lazy_module("scipy.special")
stats = lazy_module("scipy.stats")

SEED = "002_9f0d50e873e3e787.txt"
PAPER = Paper(
    "ttz",
    seed=SEED,
    citation=(
        "Talwar, K., Thakurta, A., Zhang, L.: Private empirical risk minimization beyond the worst case: "
        "the effect of the constraint set geometry. arXiv:1411.5417 (2014); Nearly optimal private LASSO, "
        "NeurIPS 2015"
    ),
    title="Private ERM beyond the worst case / Nearly optimal private LASSO (Talwar, Thakurta & Zhang)",
)
_factory = PAPER.add

#: the kind of order statements ("order" when the registry knows it, else "rate")
ORDER_KIND = "order"


def add(key: str, label: str, kind: str, quantity: str, stated: sp.Expr | None, **kw) -> Statement:
    """Register a statement; its ``doc`` is prefixed with "<seed>, <label>, <equation>: "."""
    doc = kw.get("doc", "")
    kw["doc"] = f"{SEED}, {label}, {kw.get('equation', '')}: {doc}"
    return _factory(key, label, kind, quantity, stated, **kw)


def _ok(name: str, ok: bool, method: str, detail: str, severity: str = "invalid", **kw) -> Check:
    return Check(name, bool(ok), method, detail, severity="" if ok else severity, **kw)


# --------------------------------------------------------------------------- symbols
def _sym(name: str, sym_name: str, description: str, **kw) -> sp.Symbol:
    integer = kw.get("integer", False)
    s = sp.Symbol(sym_name, positive=True, integer=integer) if integer else sp.Symbol(sym_name, positive=True)
    PAPER.define(name, s, description=description, **kw)
    return s


n, eps, delta = S.n, S.eps, S.delta
p = _sym("p", "p", "dimension of θ (002)", lo=1, lo_open=False, integer=True)
T = _sym("T", "T", "number of iterations (002)", lo=1, lo_open=False, integer=True)
k = _sym("k_vert", "k", "number of vertices |S| of a polytope (002)", lo=2, lo_open=False, integer=True)
L1 = _sym("L1", "L_1", "Lipschitz constant of ℓ in ℓ1: ‖∇ℓ‖_∞ ≤ L₁ (002)")
C1 = _sym("C1", "C_1", "‖C‖₁ = max over C of ‖θ‖₁ (002)")
Gam = _sym("Gamma_L", "Gamma_L", "curvature constant Γ_L of L over C (002, Clarkson/Jaggi)")
Lip = _sym("L2", "L_2", "Lipschitz constant of ℓ in ℓ2 (002)")
GC = _sym("G_C", "G_C", "Gaussian width of the constraint set (002)")
Rc = _sym("R_C", "R_C", "radius of an ℓ2 ball / ‖C‖₂ (002)")
smax = _sym("s_max", "s_max", "max_{s∈S} ‖s‖₂ for a polytope conv(S) (002)")
D2 = _sym("D_psi2", "D_psi2", "max_C Ψ − min_C Ψ for the mirror-descent potential Ψ (002)")
Lstar = _sym("L_star", "L_star", "bound on the dual norm ‖∇ℓ‖_{Q,*} of a gradient (002)")
rQ = _sym("r_Q", "r_Q", "max_{θ∈Q} ‖θ‖₂ for the body Q of the strong-convexity norm (002)")
sig = _sym("sigma_md", "sigma", "standard deviation of the per-step Gaussian noise of Algorithm 1 (002)")
lam_n = _sym("lam_noise", "lambda_noise", "Laplace scale of the vertex scores of private Frank–Wolfe (002)")
Dsens = _sym("Delta_s", "Delta_s", "sensitivity of a score (002)")
eps0 = _sym("eps_step", "epsilon_0", "per-step privacy loss (002)")
beta_s = _sym("beta_smooth", "beta_s", "smoothness of L in a norm (002)")
diam = _sym("diam_C", "diam_C", "diameter of C in the same norm (002)")
h1 = _sym("h_1", "h_1", "initial gap L(θ₁) − L* (002)")
Dsc = _sym("Delta_sc", "Delta_sc", "strong-convexity modulus of the loss (002, Appendix A)")
p1 = _sym("p1", "p_1", "rows of a matrix parameter (002)", lo=1, lo_open=False, integer=True)
p2 = _sym("p2", "p_2", "columns of a matrix parameter (002)", lo=1, lo_open=False, integer=True)
sg = _sym("s_group", "s_g", "block size of a grouped norm (002)", lo=1, lo_open=False, integer=True)
ng = _sym("n_groups", "n_g", "number of blocks of a grouped norm (002)", lo=1, lo_open=False, integer=True)
Cord = _sym("C_order", "C_order", "the unknown constant of an order statement (002)")

_DELTA_LE_HALF = (sp.Le(delta, sp.Rational(1, 2)),)


# --------------------------------------------------------------------------- numeric helpers
def chi_mean(pp: float | np.ndarray) -> np.ndarray:
    """E‖g‖₂ for g ~ N(0, I_p): √2 Γ((p+1)/2)/Γ(p/2) (the mean of the chi distribution).

    Examples
    --------
    >>> round(float(chi_mean(1)), 6), round(float(chi_mean(2)), 6)   # √(2/π), √(π/2)
    (0.797885, 1.253314)
    """
    pp = np.asarray(pp, dtype=float)
    # Γ((p+1)/2)/Γ(p/2) = √π / B(p/2, 1/2): scipy's betaln uses an asymptotic form for a ≫ b, which keeps
    # the ratio accurate to ~1e-15 at p = 1e9, where the difference of two gammaln (each ~1e10) loses 7 digits
    return np.sqrt(2.0 * np.pi) * np.exp(-special.betaln(pp / 2, 0.5))


def expected_max_abs_gaussian(pp: int) -> float:
    """E‖g‖_∞ = ∫₀^∞ 1 − (2Φ(t) − 1)^p dt (quadrature): the Gaussian width of the unit ℓ1 ball."""
    val, _ = integrate.quad(lambda t: -np.expm1(pp * np.log(max(special.erf(t / math.sqrt(2)), 1e-300))),
                            0, np.inf, limit=200)
    return float(val)


def expected_max_gaussian(pp: int) -> float:
    """E max_i g_i = ∫₀^∞ (1 − Φ(t)^p) dt − ∫₀^∞ Φ(−t)^p dt: the Gaussian width of the simplex."""
    a, _ = integrate.quad(lambda t: -np.expm1(pp * stats.norm.logcdf(t)), 0, np.inf, limit=200)
    b, _ = integrate.quad(lambda t: np.exp(pp * stats.norm.logcdf(-t)), 0, np.inf, limit=200)
    return float(a - b)


def expected_max_chi(s: int, groups: int) -> float:
    """E max of ``groups`` i.i.d. chi(s) variables: the Gaussian width of the grouped ℓ1/ℓ2 unit ball."""
    val, _ = integrate.quad(lambda t: -np.expm1(groups * stats.chi.logcdf(t, s)), 0, np.inf, limit=200)
    return float(val)


class _ChiMean(sp.Function):
    """E‖g‖₂ as a sympy function, printed ``chi_mean`` (evaluated numerically through :func:`chi_mean`).

    A module-level class rather than ``implemented_function``, so that expressions using it pickle
    (by reference) into the symbolic snapshot.
    """

    _imp_ = staticmethod(lambda x: chi_mean(x))


_ChiMean.__name__ = "chi_mean"
#: E‖g‖₂ as a sympy function (evaluated numerically by lambdify and evalf through :func:`chi_mean`)
chi_mean_sym = _ChiMean


# --------------------------------------------------------------------------- §2
add(
    "def2_1",
    "Definition 2.1",
    "definition",
    "bound e^ε (with additive δ) on P[A(D) ∈ S]/P[A(D') ∈ S] for neighbours (one record replaced)",
    sp.exp(eps),
    relation="none",
    params=("eps", "delta"),
    equation="Definition 2.1 (§2.1)",
    doc="A is (ε, δ)-DP if P[A(D) ∈ S] ≤ e^ε P[A(D') ∈ S] + δ for all D, D' at Hamming distance 1 and all "
    "events S.  Neighbours are replacements, which fixes the sensitivities below.",
)
add(
    "gw.def",
    "Section 2.2",
    "definition",
    "Gaussian width G_C = E_{g~N(0,I_p)} sup_{θ∈C} ⟨θ, g⟩",
    GC,
    relation="none",
    params=("G_C",),
    equation="§2.2, definition of the Gaussian width",
    doc="the Gaussian width of C is G_C = E sup_{θ∈C}⟨θ, g⟩ with g ~ N(0, I_p) (the formula is lost in the "
    "extraction; the definition is the standard one of the reference).",
)


def _gw_l2_check(st: Statement, dep) -> Check:
    ps = np.unique(np.round(np.logspace(0, 6, 60)))
    m = chi_mean(ps)
    ok = bool(np.all(m <= np.sqrt(ps)) and abs(m[-1] / math.sqrt(ps[-1]) - 1) < 1e-5)
    return _ok("E‖g‖₂ ≤ √p (Jensen), ratio → 1", ok, "exact",
               f"exact chi means at {ps.size} p in [1, 1e6]: min ratio {float((m / np.sqrt(ps)).min()):.4f} "
               f"(p = 1, √(2/π)), {float(m[-1] / math.sqrt(ps[-1])):.7f} at p = 1e6", n_points=int(ps.size))


GW_L2 = add(
    "gw.l2",
    "Section 1",
    "lemma",
    "Gaussian width of the ℓ2 ball of radius R: R·E‖g‖₂",
    Rc * sp.sqrt(p),
    derive=lambda dep: Rc * chi_mean_sym(p),
    relation="upper",
    params=("R_C", "p"),
    equation="§1 ('never larger than √p'), §3.2",
    checks=(_gw_l2_check,),
    doc="for C in the unit ℓ2 ball G_C ≤ √p; for the ball of radius R, G_C = R·E‖g‖₂ = R√2Γ((p+1)/2)/Γ(p/2) "
    "exactly (the chi mean), ≤ R√p by Jensen.",
)


def _maxineq_check(name: str, exact, bound, ps) -> Check:
    vals = [(pp, exact(pp), bound(pp)) for pp in ps]
    worst = max(vals, key=lambda v: v[1] / v[2])
    ok = all(e <= b for _, e, b in vals)
    return _ok(name, ok, "numeric",
               f"quadrature at {len(vals)} sizes in [{ps[0]}, {ps[-1]}]: max exact/bound = {worst[1] / worst[2]:.4f} "
               f"at {worst[0]}", n_points=len(vals))


_PS = (1, 2, 3, 5, 10, 30, 100, 1000, 10**4, 10**5, 10**6)
GW_L1 = add(
    "gw.l1",
    "Section 1",
    "lemma",
    "Gaussian width of the unit ℓ1 ball, E‖g‖_∞",
    sp.sqrt(2 * sp.log(2 * p)),
    relation="none",
    params=("p",),
    equation="§1 ('for the ℓ1 ball the Gaussian width is only O(√log p)'), §3.2",
    cited="the maximal inequality E max_{i≤N} X_i ≤ √(2 ln N) for N σ=1 sub-Gaussians (Boucheron, Lugosi & "
    "Massart 2013, §2.5), N = 2p variables ±g_i",
    checks=(lambda st, dep: _maxineq_check("E‖g‖_∞ ≤ √(2 ln 2p), exact quadrature", expected_max_abs_gaussian,
                                           lambda q: math.sqrt(2 * math.log(2 * q)), _PS),),
    doc="sup over the ℓ1 ball of ⟨θ, g⟩ is ‖g‖_∞, and E‖g‖_∞ ≤ √(2 ln 2p).",
)
GW_SIMPLEX = add(
    "gw.simplex",
    "Section 3.2",
    "lemma",
    "Gaussian width of the probability simplex, E max_i g_i",
    sp.sqrt(2 * sp.log(p)),
    relation="none",
    params=("p",),
    constraints=(sp.Ge(p, 2),),
    equation="§3.2, after (11) ('the term gets replaced by ... in (11)')",
    cited="the maximal inequality E max_{i≤p} g_i ≤ √(2 ln p) (Boucheron, Lugosi & Massart 2013, §2.5)",
    checks=(lambda st, dep: _maxineq_check("E max g_i ≤ √(2 ln p), exact quadrature", expected_max_gaussian,
                                           lambda q: math.sqrt(2 * math.log(q)), _PS[1:]),),
    doc="sup over the simplex of ⟨θ, g⟩ is max_i g_i, E max_i g_i ≤ √(2 ln p) (p ≥ 2).",
)


def _polytope_check(st: Statement, dep) -> Check:
    red = simplified(st.stated.subs({smax: 1, k: 2 * p}) - PAPER.stated("ttz.gw.l1"))
    return _ok("the ℓ1 ball is conv{±e_j}: k = 2p, max‖s‖₂ = 1 gives ttz.gw.l1", red == 0, "symbolic",
               f"difference after substitution: {sp.sstr(red)}", severity="mismatch")


add(
    "gw.polytope",
    "Theorem 1.1",
    "lemma",
    "Gaussian width of a polytope conv(S), |S| = k",
    smax * sp.sqrt(2 * sp.log(k)),
    relation="none",
    params=("s_max", "k_vert"),
    depends=("gw.l1",),
    equation="Theorem 1.1 ('if C is a polytope with k vertices'), Claim 3.5",
    cited="the maximal inequality for k Gaussians ⟨s, g⟩ of variance ‖s‖²₂ ≤ s_max² (Boucheron, Lugosi & "
    "Massart 2013, §2.5)",
    checks=(_polytope_check,),
    doc="sup over conv(S) of ⟨θ, g⟩ = max_{s∈S}⟨s, g⟩, so G_C ≤ max‖s‖₂ √(2 ln k).",
)


def _group_check(st: Statement, dep) -> Check:
    cases = [(1, 10), (2, 5), (4, 64), (10, 100), (25, 4), (100, 1000)]
    vals = [(s_, g_, expected_max_chi(s_, g_), math.sqrt(s_) + math.sqrt(2 * math.log(g_))) for s_, g_ in cases]
    ok = all(e <= b for *_, e, b in vals)
    w = max(vals, key=lambda v: v[2] / v[3])
    return _ok("E max_b ‖g_b‖₂ ≤ √s + √(2 ln n_g), exact quadrature", ok, "numeric",
               f"{len(cases)} (s, n_g) pairs: max exact/bound = {w[2] / w[3]:.4f} at s={w[0]}, n_g={w[1]}",
               n_points=len(cases))


GW_GROUP = add(
    "gw.group",
    "Section 3.2",
    "lemma",
    "Gaussian width of the unit ball of the grouped norm Σ_b ‖θ_b‖₂ (n_g blocks of size s)",
    sp.sqrt(sg) + sp.sqrt(2 * sp.log(ng)),
    relation="none",
    params=("s_group", "n_groups"),
    equation="§3.2, grouped ℓ1/ℓ2 norm ('union bound on each of the blocks')",
    cited="Gaussian concentration of the 1-Lipschitz ‖g_b‖₂ around E‖g_b‖₂ ≤ √s and the maximal inequality over "
    "the n_g blocks (Boucheron, Lugosi & Massart 2013, Thm 5.6 and §2.5)",
    checks=(_group_check,),
    doc="the dual of Σ_b‖θ_b‖₂ is max_b‖g_b‖₂; E max_b ‖g_b‖₂ ≤ √s + √(2 ln n_g).  The paper's exact form is lost; "
    "this is the union-bound form the text describes.",
)


def _nuclear_check(st: Statement, dep) -> Check:
    rng = np.random.default_rng(np.random.SeedSequence(2002))
    rows = []
    for a, b in ((2, 2), (5, 3), (10, 10), (20, 40)):
        G = rng.standard_normal((400, a, b))
        op = np.linalg.norm(G, ord=2, axis=(1, 2))
        hi = op.mean() + 4 * op.std(ddof=1) / math.sqrt(op.size)
        rows.append((a, b, op.mean(), hi, math.sqrt(a) + math.sqrt(b)))
    ok = all(h <= bd for *_, h, bd in rows)
    return _ok("E‖G‖_op ≤ √p₁ + √p₂ (Monte Carlo, 400 draws, mean + 4 SE)", ok, "numeric",
               "; ".join(f"{a}×{b}: {m:.3f} ≤ {bd:.3f}" for a, b, m, _, bd in rows), n_points=1600)


GW_NUCLEAR = add(
    "gw.nuclear",
    "Section 3.2",
    "lemma",
    "Gaussian width of the unit nuclear-norm ball of p₁×p₂ matrices, E‖G‖_op",
    sp.sqrt(p1) + sp.sqrt(p2),
    relation="none",
    params=("p1", "p2"),
    equation="§3.2, low-rank matrices ([CRPW12, Proposition 3.11])",
    cited="Gordon's inequality E‖G‖_op ≤ √p₁ + √p₂ (Davidson & Szarek 2001, Thm II.13)",
    checks=(_nuclear_check,),
    doc="the dual of the nuclear norm is the operator norm, so G = E‖G‖_op ≤ √p₁ + √p₂ (the paper cites "
    "[CRPW12, Prop. 3.11] for O(√p₁ + √p₂)).",
)


# --------------------------------------------------------------------------- §3 private mirror descent
add(
    "md.sens",
    "Theorem 3.1",
    "lemma",
    "ℓ2 sensitivity of ∇L(θ; D) between neighbours",
    2 * Lip / n,
    derive=lambda dep: (Lip + Lip) / n,
    relation="upper",
    params=("L2", "n"),
    equation="proof of Theorem 3.1 ([BST14, Theorem 2.1])",
    doc="replacing one record changes ∇L = (1/n)Σ∇ℓ by (∇ℓ(θ; d) − ∇ℓ(θ; d'))/n, of ℓ2 norm ≤ 2L/n.",
)

#: ρ* = (√(ln(1/δ) + ε) − √ln(1/δ))²: the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε
RHO_STAR = (sp.sqrt(sp.log(1 / delta) + eps) - sp.sqrt(sp.log(1 / delta))) ** 2


def _sigma_zcdp_derive(dep) -> sp.Expr:
    # Gaussian mechanism: ρ = Δ²/(2σ²) zCDP per step; T steps: Tρ; (Tρ + 2√(Tρ ln 1/δ), δ)-DP.
    # solve u² + 2u√ln(1/δ) = ε for u = √ρ > 0
    u = sp.Symbol("u_rho", positive=True)
    sol = solved(sp.Eq(u**2 + 2 * u * sp.sqrt(sp.log(1 / delta)), eps), u)
    rho_star = max(sol, key=lambda e: float(e.subs({eps: 0.5, delta: 0.1}))) ** 2  # the positive root
    return T * dep("ttz.md.sens") ** 2 / (2 * rho_star)


MD_SIGMA_ZCDP = add(
    "md.sigma.zcdp",
    "Theorem 3.1",
    "noise",
    "per-step Gaussian noise variance σ² of Algorithm 1 for (ε, δ)-DP after T steps (explicit)",
    2 * Lip**2 * T / (n**2 * RHO_STAR),
    derive=_sigma_zcdp_derive,
    relation="eq",
    params=("L2", "T", "n", "eps", "delta"),
    depends=("md.sens",),
    equation="Algorithm 1, line 1 (explicit version)",
    cited="Bun & Steinke (2016): Gaussian mechanism is Δ²/(2σ²)-zCDP (Prop. 1.6), composition adds ρ "
    "(Lemma 1.7), ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP (Prop. 1.3)",
    doc="the toolkit's explicit calibration: σ² = TΔ²/(2ρ*) with Δ = 2L/n and ρ* = (√(ln(1/δ)+ε) − √ln(1/δ))², "
    "the largest total ρ whose conversion gives ε.  For small ε, σ² ≈ 8L²T ln(1/δ)/(n²ε²).",
    notes="Feature norm: no parameter of its own: it enters through the ℓ2 Lipschitz constant L (‖∇ℓ‖₂ ≤ L, e.g. "
    "‖x‖₂ times the loss slope), a parameter with no fixed value in the paper, so σ answers for a user's own data.  "
    "Intercept: no parameter needed: an unregularised intercept constrained with θ inside C changes only L and the "
    "width of C, and the privacy argument needs no strong convexity.  "
    "Exact minimiser: not assumed: the T noisy gradient steps are the release, with no minimiser to reach.  "
    "Loss smoothness: enters the utility only, not the privacy argument",
)


def _order_rate_checks(bound_fn, claims: dict[sp.Symbol, sp.Expr], spot: int = 1):
    def chk(st: Statement, dep) -> list[Check]:
        b = bound_fn(dep)
        return [rate_check(st, b, c, var=v, label=f"explicit bound: lim log(bound)/log({v})", spot=spot)
                for v, c in claims.items()]

    return chk


add(
    "md.sigma",
    "Algorithm 1",
    ORDER_KIND,
    "per-step noise variance σ² of Algorithm 1 (order: O(L²T log(1/δ)/(n²ε²)))",
    Cord * Lip**2 * T * sp.log(1 / delta) / (n**2 * eps**2),
    relation="none",
    params=("C_order", "L2", "T", "n", "eps", "delta"),
    depends=("md.sigma.zcdp",),
    equation="Algorithm 1, line 1 ('Set noise variance σ²')",
    checks=(_order_rate_checks(lambda dep: dep("ttz.md.sigma.zcdp"), {n: sp.Integer(-2), T: sp.Integer(1)}, 0),),
    doc="the printed σ² is lost; the reference gives its order L²T log(1/δ)/(n²ε²).  Checked: the explicit "
    "zCDP calibration ``ttz.md.sigma.zcdp`` has the same exponents in n (−2) and T (1).",
)


def _thm31_derive(dep) -> sp.Expr:
    rho = T * dep("ttz.md.sens") ** 2 / (2 * dep("ttz.md.sigma.zcdp"))
    return rho + 2 * sp.sqrt(rho * sp.log(1 / delta))


add(
    "thm3_1",
    "Theorem 3.1",
    "theorem",
    "privacy loss ε of Algorithm 1 (at δ) with the calibrated σ",
    eps,
    derive=_thm31_derive,
    relation="upper",
    params=("eps", "delta", "L2", "T", "n"),
    depends=("md.sens", "md.sigma.zcdp"),
    equation="Theorem 3.1",
    cited="Gaussian mechanism and composition (Bun & Steinke 2016); the paper cites [DKM06], [DRV10] and "
    "[BST14, Theorem 2.1]",
    doc="Algorithm 1 is (ε, δ)-DP.  Re-derived: T Gaussian steps of ℓ2 sensitivity 2L/n with the calibrated σ "
    "give total ρ = ρ*, i.e. exactly ε at δ.",
)


def _md_regret_derive(dep) -> sp.Expr:
    # E L(θ̄) − L* ≤ D²/(ηT) + (η/2)E‖g + b‖²_* ≤ D²/(ηT) + η(L*² + E‖b‖²_*), E‖b‖²_* ≤ σ²(G² + r²);
    # minimised over η
    eta = sp.Symbol("eta", positive=True)
    A = Lstar**2 + sig**2 * (GC**2 + rQ**2)
    f = D2 / (eta * T) + eta * A
    e_opt = [s for s in solved(sp.diff(f, eta), eta) if s.is_positive is not False][0]
    return simplified(f.subs(eta, e_opt))


def _dual_variance_check(st: Statement, dep) -> Check:
    """E‖b‖²_∞ ≤ σ²(G² + 1) for the ℓ1 ball (Q = B₁, r = 1), by quadrature of the law of ‖g‖_∞."""
    rows = []
    for pp in (1, 2, 10, 100, 1000):
        m2, _ = integrate.quad(lambda t, pp=pp: 2 * t * -np.expm1(pp * np.log(max(special.erf(t / math.sqrt(2)), 1e-300))),
                               0, np.inf, limit=200)
        G = expected_max_abs_gaussian(pp)
        rows.append((pp, m2, G**2 + 1))
    ok = all(a <= b for _, a, b in rows)
    return _ok("E‖g‖²_∞ ≤ G² + r² (Gaussian Poincaré: Var ‖g‖_∞ ≤ 1)", ok, "numeric",
               "; ".join(f"p={a}: {b:.4f} ≤ {c:.4f}" for a, b, c in rows), n_points=len(rows))


add(
    "thm3_2.explicit",
    "Theorem 3.2",
    "theorem",
    "explicit bound on E L(θ̄) − L* for noisy mirror descent (Ψ 1-strongly convex w.r.t. ‖·‖_Q, best η)",
    2 * sp.sqrt(D2 * (Lstar**2 + sig**2 * (GC**2 + rQ**2)) / T),
    derive=_md_regret_derive,
    relation="upper",
    params=("D_psi2", "L_star", "sigma_md", "G_C", "r_Q", "T"),
    equation="proof of Theorem 3.2, (2)–(9) (explicit version)",
    checks=(_dual_variance_check,),
    ceiling=2*PAPER.symbols["L_star"].symbol,
    ceiling_why='θ and θ* lie in Q, the unit ball of ‖·‖_Q, and ‖∇ℓ‖_{Q,*} ≤ L*, so L(θ) − L* ≤ L*‖θ − θ*‖_Q ≤ 2L* for every θ ∈ Q',
    doc="the toolkit's explicit form of Theorem 3.2: with θ₁ = argmin Ψ, B_Ψ(θ*, θ₁) ≤ D², ‖∇ℓ‖_{Q,*} ≤ L*, "
    "b ~ N(0, σ²I) independent of θ_t, E‖b‖_{Q,*} = σG_Q and Var‖b‖_{Q,*} ≤ σ²r² (r = max_Q‖θ‖₂), the "
    "mirror-descent inequality gives E L(θ̄) − L* ≤ D²/(ηT) + η(L*² + σ²(G² + r²)); the best η gives "
    "2√(D²(L*² + σ²(G² + r²))/T).  The paper's proof bounds the noise term by the Gaussian width the same way.",
)


def _md_bound(dep, *, D2v, Lsv, Gv, rv, Tv=None) -> sp.Expr:
    """The explicit bound with σ² of ``md.sigma.zcdp`` and T (default T = n²)."""
    Tv = n**2 if Tv is None else Tv
    s2 = dep("ttz.md.sigma.zcdp")
    b = dep("ttz.thm3_2.explicit").subs(sig, sp.sqrt(s2))
    return b.subs({D2: D2v, Lstar: Lsv, GC: Gv, rQ: rv}).subs(T, Tv)


def md_bound_value(geometry: str, pp: int, n_: int, eps_: float, delta_: float, L: float, T_: int) -> float:
    """Numeric explicit mirror-descent bound for the ``l2`` or ``l1`` unit ball (the check's bound).

    Examples
    --------
    >>> md_bound_value("l2", 10**4, 1000, 1.0, 1e-5, 1.0, 100) > md_bound_value("l1", 10**4, 1000, 1.0, 1e-5, 1.0, 100)
    True
    """
    rho = (math.sqrt(math.log(1 / delta_) + eps_) - math.sqrt(math.log(1 / delta_))) ** 2
    s2 = 2 * L**2 * T_ / (n_**2 * rho)
    return md_bound_at_sigma(geometry, pp, math.sqrt(s2), L, T_)


def md_bound_at_sigma(geometry: str, pp: int, sigma: float, L: float, T_: int) -> float:
    """``ttz.thm3_2.explicit`` for the ``l2`` or ``l1`` unit ball at a given per-step noise σ.

    2√(D²(L² + σ²(G² + 1))/T) with D² = ½, G = E‖g‖₂ (ℓ2 ball) or D² = ln 2p, G = E‖g‖_∞ (ℓ1 ball).

    Examples
    --------
    >>> md_bound_at_sigma("l2", 8, 0.0, 1.0, 100) == 2 * math.sqrt(0.5 / 100)
    True
    """
    if geometry == "l2":
        d2, G = 0.5, float(chi_mean(pp))
    elif geometry == "l1":
        d2, G = math.log(2 * pp), expected_max_abs_gaussian(pp)
    else:
        raise ValueError(f"parameter 'geometry' = {geometry!r} must be 'l2' or 'l1'")
    return 2 * math.sqrt(d2 * (L**2 + sigma**2 * (G**2 + 1)) / T_)


add(
    "thm3_2",
    "Theorem 3.2",
    ORDER_KIND,
    "E L(θ̄) − L* of Algorithm 1 (order: L·G_C·polylog(n, 1/δ)/(nε))",
    Cord * Lip * GC * sp.log(n / delta) / (n * eps),
    relation="none",
    params=("C_order", "L2", "G_C", "n", "eps", "delta"),
    depends=("thm3_2.explicit", "md.sigma.zcdp"),
    equation="Theorem 3.2",
    checks=(_order_rate_checks(lambda dep: _md_bound(dep, D2v=D2, Lsv=Lip, Gv=GC, rv=rQ),
                               {n: sp.Integer(-1), GC: sp.Integer(1)}),),
    ceiling_why='no ceiling in its parameters: L(θ) − L* ≤ L₂·diam₂(C) for an L₂-Lipschitz loss, but the diameter of the body is not a parameter of this order statement (ttz.eq10–eq13 and ttz.thmA declare it for each body)',
    doc="E L(θ^priv) − L* = O(L G_C polylog(n, 1/δ)/(nε)) for the Gaussian width G_C of the body Q.  Checked: "
    "the explicit bound with T = n² decays like n^{-1} and grows like G_C.",
)
add(
    "eq10",
    "Section 3.2",
    ORDER_KIND,
    "E L(θ̄) − L* over a set of ℓ2-diameter ‖C‖₂ (Q = unit ℓ2 ball): O(L‖C‖₂√p/(nε))",
    Cord * Lip * sp.sqrt(p) * sp.log(n / delta) / (n * eps),
    relation="none",
    params=("C_order", "L2", "p", "n", "eps", "delta"),
    depends=("thm3_2.explicit", "gw.l2", "md.sigma.zcdp"),
    equation="(10)",
    checks=(_order_rate_checks(lambda dep: _md_bound(dep, D2v=sp.Rational(1, 2), Lsv=Lip, Gv=sp.sqrt(p), rv=1),
                               {n: sp.Integer(-1), p: sp.Rational(1, 2)}),),
    ceiling=2*PAPER.symbols["L2"].symbol,
    ceiling_why='over the unit ℓ2 ball (diameter 2) an L₂-Lipschitz loss has L(θ) − L* ≤ 2L₂',
    doc="Ψ(θ) = ‖θ‖²₂/2 over the unit ℓ2 ball (D² = 1/2, L* = L, G ≤ √p, r = 1): the excess risk grows like √p "
    "(a slight improvement over [BST14]).",
)


def _poly_bound(dep, kk, s_):
    # weights on the k vertices, entropy potential (D² = ln k), L* = L·s_max, shifted-noise trick: G ≤ s√(2 ln k)
    return _md_bound(dep, D2v=sp.log(kk), Lsv=Lip * s_, Gv=s_ * sp.sqrt(2 * sp.log(kk)), rv=s_)


add(
    "eq11",
    "Section 3.2",
    ORDER_KIND,
    "E L(θ̄) − L* over a polytope conv(S), |S| = k: O(L max‖s‖₂ √log k polylog/(nε))",
    Cord * Lip * smax * sp.sqrt(sp.log(k)) * sp.log(n / delta) / (n * eps),
    relation="none",
    params=("C_order", "L2", "s_max", "k_vert", "n", "eps", "delta"),
    depends=("thm3_2.explicit", "gw.polytope", "md.sigma.zcdp"),
    equation="(11), with Fact 3.4 and Claim 3.5",
    checks=(_order_rate_checks(lambda dep: _poly_bound(dep, k, smax), {n: sp.Integer(-1), k: sp.Integer(0)}),),
    ceiling=2*PAPER.symbols["L2"].symbol*PAPER.symbols["s_max"].symbol,
    ceiling_why='conv(S) lies in the ℓ2 ball of radius s_max (diameter 2s_max), so L(θ) − L* ≤ 2L₂s_max',
    doc="no explicit dependence on p: the bound grows like √log k.  Explicit version: entropic mirror descent on "
    "the vertex weights (D² = ln k, L* = L·s_max, noise (⟨s_i, b⟩)_i whose centred range has mean ≤ σ s_max√(2 ln k) "
    "and variance ≤ σ² s_max²).",
)
add(
    "eq11.l1",
    "Section 3.2",
    ORDER_KIND,
    "E L(θ̄) − L* over the unit ℓ1 ball (k = 2p): O(L√log p polylog/(nε))",
    Cord * Lip * sp.sqrt(sp.log(2 * p)) * sp.log(n / delta) / (n * eps),
    relation="none",
    params=("C_order", "L2", "p", "n", "eps", "delta"),
    depends=("eq11", "gw.l1"),
    equation="(11) with C = B₁",
    checks=(_order_rate_checks(lambda dep: _poly_bound(dep, 2 * p, 1), {n: sp.Integer(-1), p: sp.Integer(0)}),),
    ceiling=2*PAPER.symbols["L2"].symbol,
    ceiling_why='the unit ℓ1 ball lies in the unit ℓ2 ball (diameter 2), so L(θ) − L* ≤ 2L₂',
    doc="the ℓ1 ball via the ±e_j doubling trick: entropic mirror descent on 2p weights; the risk grows like "
    "√log p instead of √p (exponent 0 in p).",
)
add(
    "eq11.simplex",
    "Section 3.2",
    ORDER_KIND,
    "E L(θ̄) − L* over the probability simplex (k = p): O(L√log p polylog/(nε))",
    Cord * Lip * sp.sqrt(sp.log(p)) * sp.log(n / delta) / (n * eps),
    relation="none",
    params=("C_order", "L2", "p", "n", "eps", "delta"),
    constraints=(sp.Ge(p, 2),),
    depends=("eq11", "gw.simplex"),
    equation="§3.2 after (11) ('extends to the standard p-dimensional probability simplex')",
    checks=(_order_rate_checks(lambda dep: _poly_bound(dep, p, 1), {n: sp.Integer(-1), p: sp.Integer(0)}),),
    ceiling=sp.sqrt(2)*PAPER.symbols["L2"].symbol,
    ceiling_why='the simplex has ℓ2 diameter √2, so L(θ) − L* ≤ √2·L₂',
    doc="the simplex with the entropy potential (the width term becomes E max g_i ≤ √(2 ln p)).",
)
add(
    "eq12",
    "Section 3.2",
    ORDER_KIND,
    "E L(θ̄) − L* over the grouped ℓ1/ℓ2 unit ball: O(L(√s + √log n_g) polylog/(nε))",
    Cord * Lip * (sp.sqrt(sg) + sp.sqrt(sp.log(ng))) * sp.log(n / delta) / (n * eps),
    relation="none",
    params=("C_order", "L2", "s_group", "n_groups", "n", "eps", "delta"),
    depends=("thm3_2.explicit", "gw.group"),
    equation="(12)",
    checks=(_order_rate_checks(lambda dep: _md_bound(dep, D2v=sp.log(ng + 1), Lsv=Lip,
                                                     Gv=sp.sqrt(sg) + sp.sqrt(2 * sp.log(ng)), rv=1),
                               {n: sp.Integer(-1), sg: sp.Rational(1, 2)}),),
    ceiling=2*PAPER.symbols["L2"].symbol,
    ceiling_why='the grouped unit ball lies in the unit ℓ2 ball (‖θ‖₂ ≤ Σ_b‖θ_b‖₂ ≤ 1), so L(θ) − L* ≤ 2L₂',
    doc="the potential of [BTN13, §5.3.3] on the blocks; the printed form is lost, the shape follows the width "
    "``ttz.gw.group`` (the explicit check takes D² = O(log n_g) for that potential, an assumption).",
)
add(
    "eq13",
    "Section 3.2",
    ORDER_KIND,
    "E L(θ̄) − L* over the unit nuclear-norm ball of p₁×p₂ matrices: O(L(√p₁ + √p₂) polylog/(nε))",
    Cord * Lip * (sp.sqrt(p1) + sp.sqrt(p2)) * sp.log(n / delta) / (n * eps),
    relation="none",
    params=("C_order", "L2", "p1", "p2", "n", "eps", "delta"),
    depends=("thm3_2.explicit", "gw.nuclear"),
    equation="(13)",
    checks=(_order_rate_checks(lambda dep: _md_bound(dep, D2v=sp.log(p1 + p2), Lsv=Lip,
                                                     Gv=sp.sqrt(p1) + sp.sqrt(p2), rv=1),
                               {n: sp.Integer(-1), p1: sp.Rational(1, 2)}),),
    ceiling=2*PAPER.symbols["L2"].symbol,
    ceiling_why='the unit nuclear-norm ball lies in the unit Frobenius ball (‖Θ‖_F ≤ ‖Θ‖_*), so L(Θ) − L* ≤ 2L₂ for a loss L₂-Lipschitz in the Frobenius norm',
    doc="Gaussian noise on every entry ([DTTZ14]), the Schatten potential of [BTN13, §5.2.3] (D² = O(log "
    "min(p₁, p₂)), assumed in the explicit check), width √p₁ + √p₂.",
)
add(
    "thmA",
    "Appendix A",
    ORDER_KIND,
    "E L(θ^priv) − L* for Δ-strongly convex losses: Õ(L²(G_C² + ‖C‖²₂)/(Δ n²ε²))",
    Cord * Lip**2 * (GC**2 + Rc**2) * sp.log(n / delta) ** 2 / (Dsc * n**2 * eps**2),
    relation="none",
    params=("C_order", "L2", "G_C", "R_C", "Delta_sc", "n", "eps", "delta"),
    equation="Appendix A (Theorem A.1)",
    checks=(lambda st, dep: [rate_check(st, st.stated, sp.Integer(-2), var=n, label="exponent in n", spot=0),
                             rate_check(st, st.stated, sp.Integer(2), var=GC, label="exponent in G_C", spot=0)],),
    ceiling=2*PAPER.symbols["L2"].symbol*PAPER.symbols["R_C"].symbol,
    ceiling_why='C lies in the ℓ2 ball of radius ‖C‖₂ = R_C (diameter 2R_C), so L(θ) − L* ≤ 2L₂R_C',
    doc="under Δ-strong convexity the excess risk is Õ(L²(G_C² + ‖C‖²₂)/(Δ(nε)²)) (order, reference file); "
    "only its exponents are checked (no explicit version here).",
)


# --------------------------------------------------------------------------- §5 private Frank–Wolfe
add(
    "fw.sens",
    "Section 5",
    "lemma",
    "sensitivity of a vertex score ⟨s, ∇L(θ; D)⟩ between neighbours",
    2 * L1 * C1 / n,
    derive=lambda dep: C1 * (L1 + L1) / n,
    relation="upper",
    params=("L1", "C1", "n"),
    equation="§5, proof of privacy (reference: 'each score moves by at most 2L₁‖C‖₁/n')",
    doc="Hölder: |⟨s, ∇ℓ(θ; d) − ∇ℓ(θ; d')⟩|/n ≤ ‖s‖₁ (‖∇ℓ(θ; d)‖_∞ + ‖∇ℓ(θ; d')‖_∞)/n ≤ 2L₁‖C‖₁/n.",
)


def rnm_exact_ratio(z: float, Delta: float, lam: float) -> float:
    """P[a + X₁ < b + X₂]/P[a' + X₁ < b' + X₂] for two scores shifted oppositely by ±Δ (X_i ~ Lap(λ)).

    With a − b = z on D and a' − b' = z + 2Δ on D', the ratio of the probabilities that
    report-noisy-min picks the first vertex.  P[X₂ − X₁ > u] = ½e^{−u/λ}(1 + u/(2λ)) for u ≥ 0.

    Examples
    --------
    >>> r = rnm_exact_ratio(50.0, 1.0, 1.0)
    >>> 1 < r < math.exp(2.0)
    True
    """
    def tail(u: float) -> float:
        if u >= 0:
            return 0.5 * math.exp(-u / lam) * (1 + u / (2 * lam))
        return 1 - 0.5 * math.exp(u / lam) * (1 - u / (2 * lam))

    return tail(z) / tail(z + 2 * Delta)


def _rnm_check(st: Statement, dep) -> list[Check]:
    zs = np.linspace(-20, 200, 2201)
    r = np.array([rnm_exact_ratio(float(z), 1.0, 1.0) for z in zs])
    ok = bool(np.all(r <= math.exp(2.0) * (1 + 1e-12)))
    frac = float(r.max() / math.exp(2.0))
    return [
        _ok("privacy loss ≤ 2Δ/λ (exact, two scores moved by ±Δ, Δ = λ)", ok, "exact",
            f"sup over {zs.size} score gaps of the probability ratio = {r.max():.4f} = e^{{2Δ/λ}}·{frac:.4f}", n_points=int(zs.size)),
        _ok("the factor 2 is needed (non-monotone scores ⟨±e_j, ∇L⟩)", r.max() > math.exp(1.0), "exact",
            f"the ratio exceeds e^{{Δ/λ}} = {math.e:.4f} (it tends to e^{{2Δ/λ}} = {math.exp(2):.4f} as the gap grows)",
            n_points=int(zs.size), severity="mismatch"),
    ]


add(
    "fw.rnm",
    "Section 5",
    "lemma",
    "per-step privacy loss of report-noisy-min with Lap(λ) on scores of sensitivity Δ",
    2 * Dsens / lam_n,
    relation="none",
    params=("Delta_s", "lam_noise"),
    equation="§5, Algorithm 2, line 'θ̃_t = argmin_s α_s'",
    cited="report-noisy-max with Laplace noise of scale 2Δ/ε is ε-DP, Δ/ε only for monotone scores (Dwork & "
    "Roth 2014, §3.3; McKenna & Sheldon 2020, 'Permute-and-flip', §2)",
    checks=(_rnm_check,),
    doc="the noisy vertex selection is (2Δ/λ)-DP; the vertex scores ⟨e_j, ∇L⟩ and ⟨−e_j, ∇L⟩ move in opposite "
    "directions, so the monotone Δ/λ does not apply (exact check: the ratio approaches e^{2Δ/λ}).",
)
add(
    "fw.adv_comp",
    "Section 5",
    "lemma",
    "total ε of the T-fold composition of ε₀-DP steps at slack δ",
    sp.sqrt(2 * T * sp.log(1 / delta)) * eps0 + T * eps0 * (sp.exp(eps0) - 1),
    relation="none",
    params=("T", "delta", "eps_step"),
    equation="§5 (privacy of Algorithm 2 'by the advanced composition theorem')",
    cited="advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Theorem 3.20)",
    doc="T adaptive ε₀-DP mechanisms are (√(2T ln(1/δ))ε₀ + Tε₀(e^{ε₀} − 1), δ)-DP.",
)

_fw_scale_stated = L1 * C1 * sp.sqrt(8 * T * sp.log(1 / delta)) / (n * eps)
#: the underlying error of §5's privacy proof (``details["error"]``): each noisy selection is charged ε₀ where
#: report-noisy-min over the non-monotone scores ⟨±e_j, ∇L⟩ of sensitivity 2L₁‖C‖₁/n can lose 4ε₀; one root
#: (``ttz.fw.scale``), echoed by ``ttz.fw.privacy``
FW_ACCOUNTING = "fw-per-step-accounting"
#: per-step ε₀ of Dwork & Roth Cor. 3.21: ε/(2√(2T ln(1/δ))) = ε/√(8T ln(1/δ))
EPS0_COR321 = eps / sp.sqrt(8 * T * sp.log(1 / delta))


#: the Laplace scale the privacy proof's accounting needs (= the derived form of ``ttz.fw.scale``, checked there).
#: The explicit utility statements evaluate their bound AT this scale: they use its value, not its privacy, so
#: they do not depend on ``ttz.fw.scale`` (whose proof gap cannot change a utility bound at a given λ)
FW_SCALE_NEEDED = 4 * L1 * C1 * sp.sqrt(8 * T * sp.log(1 / delta)) / (n * eps)


def _fw_scale_derive(dep) -> sp.Expr:
    # report-noisy-min is (2Δ/λ)-DP: λ = 2Δ/ε₀ with ε₀ = ε/√(8T ln 1/δ)
    rnm = dep("ttz.fw.rnm")  # = 2Δ/λ
    lam_needed = solved(sp.Eq(rnm.subs(Dsens, dep("ttz.fw.sens")), EPS0_COR321), lam_n)[0]
    return simplified(lam_needed)


def _fw_scale_check(st: Statement, dep) -> list[Check]:
    """The printed λ against the scale the proof's accounting needs: their ratio, exactly (a proof gap)."""
    same = bool(simplified(dep("ttz.fw.scale") - FW_SCALE_NEEDED) == 0)
    value = Check("FW_SCALE_NEEDED (the scale the utility statements use) = the derived scale", same, "symbolic",
                  "4L₁‖C‖₁√(8T ln(1/δ))/(nε) (sympy)", severity="" if same else "mismatch")
    return [value, _fw_scale_gap(st, dep)]


#: the paper's own point for the privacy accounting of §5 (ε < 1, δ = 1e-6, T = 100 steps): where the smallest
#: corrections of ``ttz.fw.scale`` and the certified totals of ``ttz.fw.privacy`` are computed
FW_POINT = {"eps": 0.5, "delta": 1e-6, "T": 100}


def _adv_comp_total(e0: float, T_: int, delta_: float) -> float:
    """Dwork & Roth Thm 3.20: T adaptive ε₀-DP steps are (√(2T ln(1/δ))ε₀ + Tε₀(e^{ε₀} − 1), δ)-DP."""
    return math.sqrt(2 * T_ * math.log(1 / delta_)) * e0 + T_ * e0 * math.expm1(e0)


def fw_scale_correction(eps_: float = FW_POINT["eps"], delta_: float = FW_POINT["delta"],
                        T_: int = FW_POINT["T"]) -> dict:
    """The smallest correction of the printed Frank–Wolfe scale λ (schema S1 of issue 34), at (ε, δ, T).

    The printed λ charges each noisy selection 2Δ/λ = 4ε₀ (ε₀ = ε/√(8T ln(1/δ)), ``ttz.fw.rnm``).  The
    factor is (the λ needed)/(the printed λ); λ scales the per-step loss as 1/λ, so a factor c makes
    each step (4ε₀/c)-DP:

    * ``proof``: the smallest c for which the proof's own composition theorem (Dwork & Roth Thm 3.20,
      ``ttz.fw.adv_comp``) certifies ε (root of √(2T ln(1/δ))·4ε₀/c + T(4ε₀/c)(e^{4ε₀/c} − 1) = ε;
      → 2 as ε₀ → 0); the 4 of the derived form is Cor. 3.21's simplification, sufficient only;
    * ``tight``: the smallest c for which T adaptive (4ε₀/c)-DP steps are (ε, δ)-DP under optimal
      composition (worst case T-fold randomised response, exact:
      :func:`bounds.accounting.tight_pure_step_eps`);
    * ``printed_violated``: the exact loss of the printed algorithm on its worst two-vertex instance
      (:func:`fw_printed_exact_eps`) and the totals the two composition tools certify at the printed λ.

    Examples
    --------
    >>> sc = fw_scale_correction()
    >>> round(sc["tight"]["factor"], 2), round(sc["proof"]["factor"], 2)
    (1.51, 2.04)
    """
    from scipy import optimize

    from .. import accounting

    e0 = eps_ / math.sqrt(8 * T_ * math.log(1 / delta_))
    loss = 4 * e0                                       # per-step worst case at the printed λ (2Δ/λ)
    c_proof = optimize.brentq(lambda c: _adv_comp_total(loss / c, T_, delta_) - eps_, 1e-3, 1e3, xtol=1e-14)
    e_tight = accounting.tight_pure_step_eps(eps_, delta_, T_)
    c_tight = loss / e_tight
    adv = _adv_comp_total(loss, T_, delta_)
    pld = accounting.pld_epsilon([("pure", loss, T_)], delta_)
    e_exact, z_rel, _ = fw_printed_exact_eps(eps_, delta_, T_)
    pt = f"ε = {eps_:g}, δ = {delta_:g}, T = {T_}"
    return {
        "proof": {"factor": float(c_proof),
                  "text": f"λ × {c_proof:.3f} at {pt}: the smallest scale at which the proof's own composition "
                          f"theorem (Dwork & Roth Thm 3.20) certifies ε for T selections each (2Δ/λ)-DP (→ 2 as "
                          f"ε₀ → 0); the derived 4× (Cor. 3.21 per-step ε₀) is sufficient, not minimal"},
        "tight": {"factor": float(c_tight),
                  "tool": "pld_epsilon (optimal composition of the proof's worst-case steps: the smallest change to "
                          "the proof, sufficient for the algorithm, not shown necessary)",
                  "text": f"λ × {c_tight:.3f} at {pt}: the smallest scale at which T adaptive (2Δ/λ)-DP selections "
                          f"are (ε, δ)-DP under optimal composition (exact: T-fold randomised response, "
                          f"tight_pure_step_eps); at the printed λ the algorithm's ε lies between "
                          f"{e_exact / eps_:.2f}ε (its worst two-vertex instance, exact) and {pld / eps_:.2f}ε "
                          f"(optimal composition of worst-case steps; Thm 3.20: {adv / eps_:.2f}ε), so the printed "
                          f"λ may need no change at all"},
        "printed_violated": {"answer": "no counterexample found",
                             "evidence": f"exact (ε, δ) of the printed algorithm on its worst two-vertex instance "
                                         f"(fw_printed_exact_eps, {pt}): {e_exact:.4f} = {e_exact / eps_:.2f}ε at the "
                                         f"worst score gap z = {z_rel:.2f}λ; the audit of the whole printed "
                                         "algorithm (ttz.fw.privacy) finds no leak beyond ε"},
    }


def _fw_scale_gap(st: Statement, dep) -> Check:
    ratio = simplified(_fw_scale_stated / dep("ttz.fw.scale"))
    ok = bool(simplified(ratio - 1) == 0) or bool(ratio.is_number and ratio >= 1)
    if ok:
        return Check("stated vs derived", True, "symbolic", f"printed λ / derived λ = {sp.sstr(ratio)} (sympy)")
    sc = fw_scale_correction()
    return Check("stated vs derived", ok, "symbolic",
                 f"the printed λ does not follow: each noisy selection over the scores ⟨±e_j, ∇L⟩ (sensitivity "
                 "2L₁‖C‖₁/n, non-monotone) can lose 2Δ/λ = 4ε₀ (ttz.fw.rnm), not the ε₀ = ε/√(8T ln(1/δ)) of "
                 f"Dwork–Roth Cor. 3.21.  Smallest correction: {sc['tight']['text']}; under the proof's own "
                 f"argument {sc['proof']['text']}; the derived form (printed/derived = {sp.sstr(ratio)}, sympy) is "
                 "Cor. 3.21's sufficient scale.  Printed form violated: "
                 f"{sc['printed_violated']['answer']} ({sc['printed_violated']['evidence']})",
                 severity="gap", details={"error": FW_ACCOUNTING, "smallest_correction": sc})


FW_SCALE = add(
    "fw.scale",
    "Section 5",
    "noise",
    "Laplace scale λ of the vertex scores of private Frank–Wolfe",
    _fw_scale_stated,
    derive=_fw_scale_derive,
    relation="none",   # compared by _fw_scale_check: the derived scale is sufficient, not necessary (a proof gap)
    params=("L1", "C1", "T", "n", "eps", "delta"),
    depends=("fw.sens", "fw.rnm"),
    constraints=_DELTA_LE_HALF,
    equation="§5, Algorithm 2 (A_Noise-FW(polytope)), line 1",
    checks=(_fw_scale_check,),
    references=(
        "Dwork, C., Roth, A.: The Algorithmic Foundations of Differential Privacy, Found. Trends Theor. Comput. Sci. "
        "9 (2014), §3.3 (report noisy max, Claim 3.9: Δ/ε for monotone scores) and Thm 3.20, Cor. 3.21 (advanced "
        "composition)",
        "Kairouz, P., Oh, S., Viswanath, P.: The composition theorem for differential privacy, ICML 2015 (optimal "
        "composition of ε₀-DP steps, attained by randomised response)",
        "Meiser, S., Mohammadi, E.: Tight on budget? Tight bounds for r-fold approximate differential privacy, "
        "ACM CCS 2018 (privacy-loss-distribution accounting)",
        "Koskela, A., Jälkö, J., Honkela, A.: Computing tight differential privacy guarantees using FFT, AISTATS "
        "2020 (PLD accounting)",
    ),
    readings={
        "cor3.21": "the √8 is Dwork & Roth's Cor. 3.21 per-step ε₀ = ε/√(8T ln(1/δ)) (encoded): λ = Δ'/ε₀ with "
                   "Δ' = L₁‖C‖₁/n, i.e. each selection charged Δ'/λ; with the reference's own sensitivity 2L₁‖C‖₁/n "
                   "and the non-monotone report-noisy-min loss 2Δ/λ the charge is 4ε₀ and the proof certifies 2.07ε (Thm 3.20; 1.56ε by optimal composition) at ε = 0.5, "
                   "δ = 1e-6, T = 100",
        "thm3.20": "the per-step loss is taken as Δ/λ with Δ = 2L₁‖C‖₁/n (monotone report-noisy-min): ε/√(2T ln(1/δ)) "
                   "per step, and Dwork–Roth Thm 3.20 gives ε + Tε₀'(e^{ε₀'} − 1), a hair above ε; the scores "
                   "⟨±e_j, ∇L⟩ are not monotone, so this reading also leaves the proof short (2.07ε with 2Δ/λ at the same point)",
    },
    doc="λ_noise = L₁‖C‖₁√(8T log(1/δ))/(nε) ('confirmed' in the reference).  The √8 = 2√2 is Dwork & Roth's "
    "Cor. 3.21 per-step ε₀ = ε/√(8T ln(1/δ)); the printed scale then corresponds to a per-step loss "
    "L₁‖C‖₁/(nλ), but the scores have sensitivity 2L₁‖C‖₁/n (``ttz.fw.sens``) and report-noisy-min over "
    "non-monotone scores costs 2Δ/λ (``ttz.fw.rnm``).",
    notes="at the printed scale the per-step worst-case loss is 4ε₀; at ε = 0.5, δ = 1e-6, T = 100 advanced "
    "composition (Thm 3.20) then certifies 2.07ε and optimal composition of 4ε₀-DP steps (pld_epsilon) 1.56ε.  "
    "The smallest corrections are λ × 1.51 (optimal composition) and λ × 2.04 (the proof's own Thm 3.20); the "
    "derived 4× is Cor. 3.21's sufficient scale (fw_scale_correction, details of 'stated vs derived').  A gap "
    "of the proof: whether the printed algorithm is (ε, δ)-DP is open (no counterexample: ttz.fw.privacy).  "
    "Feature norm: no parameter of its own: it enters through L₁ (for the LASSO L₁ = 2(‖x‖_∞‖C‖₁ + |y|)‖x‖_∞, 4 on "
    "the paper's ‖x‖_∞ ≤ 1, |y| ≤ 1), a parameter with no fixed value in §5, so the scale answers for a user's own "
    "data.  "
    "Intercept: no parameter needed: an unregularised intercept constrained with θ inside C changes only L₁ and "
    "‖C‖₁, and the privacy argument needs no strong convexity.  "
    "Exact minimiser: not assumed: the T noisy selections are the release, with no minimiser to reach.  "
    "Loss smoothness: enters the utility only (the curvature Γ_L), not the privacy argument",
)


def _fw_privacy_derive(dep) -> sp.Expr:
    e0 = dep("ttz.fw.rnm").subs({Dsens: dep("ttz.fw.sens"), lam_n: dep("ttz.fw.scale")})
    return dep("ttz.fw.adv_comp").subs(eps0, simplified(e0))


def _pld_printed(loss: float) -> float:
    """ε (δ = 1e-6) of 100 adaptive loss-DP selections under optimal composition (PLD accountant, exact)."""
    from .. import accounting

    return accounting.pld_epsilon([("pure", loss, FW_POINT["T"])], FW_POINT["delta"])


def _fw_privacy_stated_scale(st: Statement, dep) -> list[Check]:
    e0 = PAPER.stated("ttz.fw.rnm").subs({Dsens: PAPER.stated("ttz.fw.sens"), lam_n: _fw_scale_stated})
    tot = PAPER.stated("ttz.fw.adv_comp").subs(eps0, simplified(e0))
    pt = {eps: 0.5, delta: 1e-6, T: 100}
    v = float(tot.subs(pt))
    gap = _ok("the proof's accounting certifies total loss ≤ ε at the printed scale", v <= 0.5 * (1 + 1e-9), "numeric",
              f"with the printed λ the per-step worst-case loss is {sp.sstr(simplified(e0 / EPS0_COR321))}·ε₀ and "
              f"advanced composition gives ε_total = {v:.3f} at ε = 0.5, δ = 1e-6, T = 100 ({v / 0.5:.2f}ε; optimal "
              f"composition of the same steps, pld_epsilon: {_pld_printed(float(e0.subs(pt))) / 0.5:.2f}ε): the "
              "proof does not certify the claim; a sufficient bound, so no counterexample (see the exact instance)",
              severity="gap", details={"error": FW_ACCOUNTING})
    e_exact, z_rel, loss = fw_printed_exact_eps(0.5, 1e-6, 100)
    inst = _ok("exact loss of the printed algorithm on its worst two-vertex instance ≤ ε", e_exact <= 0.5, "exact",
               f"linear loss on the unit ℓ1 ball in one dimension (scores ∓c of the vertices ±e₁, neighbours moving c "
               f"by the full 2L₁/n), printed λ, T − 1 = 99 selections of the same binary law: the output reveals at "
               f"most the selections, whose exact (ε, δ = 1e-6) is {e_exact:.4f} = {e_exact / 0.5:.2f}ε at the worst "
               f"score gap (z = {z_rel:.2f}·λ; per-step worst-case loss {loss:.4f}); a lower bound on the algorithm's "
               "ε, not a proof of the claim (many-vertex instances stay below 0.8ε as well)",
               details={"instance": True, "eps_exact": e_exact})
    return [gap, inst]


@functools.lru_cache(maxsize=16)
def fw_printed_exact_eps(eps_: float, delta_: float, T_: int, grid: int = 241) -> tuple[float, float, float]:
    """Exact ε(δ) of T − 1 noisy selections between two vertices at the printed scale, worst score gap.

    Units L₁ = ‖C‖₁ = 1, n = 1: sensitivity Δ = 2, λ = √(8T ln(1/δ))/ε; the score gap z = score(+e₁) −
    score(−e₁) moves to z + 2Δ on the neighbour (a linear loss whose gradient moves by 2L₁/n in every
    coordinate).  Each selection is a Bernoulli with P(+e₁) = P(X₂ − X₁ > z), X_i ~ Lap(λ); the T − 1
    selections are i.i.d. (the gradient of a linear loss does not depend on θ_t), so the likelihood ratio
    depends on their count only, and the hockey-stick divergence of the two binomials is exact.
    Returns (ε, the worst gap z in units of λ, the per-step worst-case loss 2Δ/λ).

    Examples
    --------
    >>> e, _, loss = fw_printed_exact_eps(0.5, 1e-6, 100)
    >>> 0.3 < e < 0.5 and loss < 0.02
    True
    """
    from scipy import optimize

    lam = math.sqrt(8 * T_ * math.log(1 / delta_)) / eps_
    D = 2.0
    m = T_ - 1
    ks = np.arange(m + 1)

    def tail(u: float) -> float:   # P(X₂ − X₁ > u)
        return 0.5 * math.exp(-u / lam) * (1 + u / (2 * lam)) if u >= 0 else 1 - 0.5 * math.exp(u / lam) * (1 - u / (2 * lam))

    def eps_of(p_: float, q_: float) -> float:
        best = 0.0
        for a, b_ in ((p_, q_), (q_, p_)):
            P = stats.binom.pmf(ks, m, a)
            Q = stats.binom.pmf(ks, m, b_)

            def hs(e: float, P: np.ndarray = P, Q: np.ndarray = Q) -> float:
                return float(np.maximum(P - math.exp(e) * Q, 0).sum()) - delta_

            if hs(0.0) > 0:
                best = max(best, optimize.brentq(hs, 0.0, 50.0))
        return best

    worst = (0.0, 0.0)
    for z in np.linspace(-3 * lam, 3 * lam, grid):
        e = eps_of(tail(float(z)), tail(float(z) + 2 * D))
        if e > worst[0]:
            worst = (e, float(z) / lam)
    return worst[0], worst[1], 2 * D / lam


add(
    "fw.privacy",
    "Section 5",
    "theorem",
    "total privacy loss ε (at δ) of private Frank–Wolfe with the calibrated scale",
    eps,
    derive=_fw_privacy_derive,
    relation="upper",
    params=("eps", "delta", "T"),
    depends=("fw.sens", "fw.rnm", "fw.adv_comp", "fw.scale"),
    constraints=_DELTA_LE_HALF,
    equation="§5, privacy theorem of Algorithm 2",
    checks=(_fw_privacy_stated_scale,),
    doc="Algorithm 2 is (ε, δ)-DP: T noisy selections, each (2Δ/λ)-DP, composed by advanced composition.  With "
    "the derived (4×) scale the composition is ≤ ε for ε < 1 and δ ≤ 1/2 (Dwork & Roth, Cor. 3.21).",
    notes="the claim tested is the paper's: the printed algorithm (printed λ) is (ε, δ)-DP in total.  Its proof "
    "falls short (advanced composition certifies 2.07ε, optimal composition of the 4ε₀-DP steps 1.56ε, at ε = 0.5, "
    "δ = 1e-6, T = 100); no counterexample is known (audit of the whole algorithm at the printed scale: "
    "no leak beyond ε; exact two-vertex instance 0.74ε), so the statement is open.  The one-step audit at the "
    "per-step ε₀ tests a budget the toolkit derived and cannot refute the claim by itself",
)


def _noise_err_check(st: Statement, dep) -> list[Check]:
    ks = np.unique(np.round(np.logspace(np.log10(2), 6, 80))).astype(int)
    H = special.digamma(ks + 1) + np.euler_gamma
    ok = bool(np.all(H <= 1 + np.log(ks)))
    rng = np.random.default_rng(np.random.SeedSequence(2005))
    mc = []
    for kk in (2, 10, 100):
        Z = rng.laplace(0.0, 1.0, (20000, kk))
        r = Z.max(axis=1) - Z.min(axis=1)
        mc.append((kk, r.mean(), r.std(ddof=1) / math.sqrt(r.size), 2 * (special.digamma(kk + 1) + np.euler_gamma)))
    ok2 = all(m - 4 * se <= bnd for _, m, se, bnd in mc)
    return [
        _ok("E max_s |Z_s| = λH_k ≤ λ(1 + ln k) (Rényi: max of k Exp(λ))", ok, "exact",
            f"harmonic numbers at {ks.size} k in [2, 1e6]", n_points=int(ks.size)),
        _ok("Monte Carlo: E(max Z − min Z) ≤ 2λH_k", ok2, "numeric",
            "; ".join(f"k={a}: {b:.3f} ± {c:.3f} ≤ {d:.3f}" for a, b, c, d in mc), n_points=60000),
    ]


add(
    "fw.noise_err",
    "Section 5",
    "lemma",
    "E of the linear-oracle error ⟨θ̃_t − s*_t, ∇L(θ_t)⟩ ≤ E(max_s Z_s − min_s Z_s) for k Laplace(λ) scores",
    2 * lam_n * (1 + sp.log(k)),
    relation="none",
    params=("lam_noise", "k_vert"),
    equation="§5, utility proof (explicit version)",
    checks=(_noise_err_check,),
    doc="the noisy argmin θ̃ satisfies ⟨θ̃, g⟩ + Z_θ̃ ≤ ⟨s*, g⟩ + Z_s*, so its error is ≤ Z_s* − Z_θ̃ ≤ max Z − min Z, "
    "whose mean is ≤ 2λH_k ≤ 2λ(1 + ln k).",
)
add(
    "fw.curvature",
    "Section 5",
    "lemma",
    "curvature constant Γ_L of a β-smooth L over C",
    beta_s * diam**2,
    relation="none",
    params=("beta_smooth", "diam_C"),
    equation="§5, definition of Γ_L",
    cited="Jaggi (2013), 'Revisiting Frank–Wolfe', Lemma 7 (Clarkson 2010)",
    doc="Γ_L = sup (2/γ²)[L(θ₃) − L(θ₁) − ⟨θ₃ − θ₁, ∇L(θ₁)⟩] over θ₁, θ₂ ∈ C, θ₃ = θ₁ + γ(θ₂ − θ₁); a β-smooth L "
    "(in a norm) has Γ_L ≤ β diam(C)² in that norm.",
)


def lasso_curvature(X: np.ndarray) -> float:
    """Exact Γ_L of L(θ) = (1/n)‖y − Xθ‖² over the unit ℓ1 ball: 8 max_j (1/n)Σ_i x_ij².

    Γ = sup 2(θ₂ − θ₁)ᵀA(θ₂ − θ₁) with A = XᵀX/n over θ₁, θ₂ ∈ B₁; the convex quadratic is largest at a
    vertex ±2e_j of B₁ − B₁ = 2B₁.

    Examples
    --------
    >>> lasso_curvature(np.ones((5, 3)))
    8.0
    """
    X = np.asarray(X, dtype=float)
    return float(8 * np.max(np.mean(X**2, axis=0)))


def _lasso_curv_check(st: Statement, dep) -> Check:
    rng = np.random.default_rng(np.random.SeedSequence(2006))
    worst = 0.0
    for _ in range(30):
        X = rng.uniform(-1, 1, (50, 6))
        A = X.T @ X / 50
        # brute force over pairs of vertices ±e_j (the sup of a convex quadratic over B₁ − B₁)
        V = np.vstack([np.eye(6), -np.eye(6)])
        D = V[:, None, :] - V[None, :, :]
        q = 2 * np.einsum("abi,ij,abj->ab", D, A, D)
        assert abs(q.max() - lasso_curvature(X)) < 1e-12
        worst = max(worst, q.max())
    ok = worst <= 8 + 1e-12 and lasso_curvature(np.sign(rng.uniform(-1, 1, (7, 4)))) == 8.0
    return _ok("exact Γ_L on random LASSO data ≤ 8, = 8 at x ∈ {±1}^p", ok, "numeric",
               f"max over 30 random data sets (n = 50, p = 6, brute force over vertex pairs) = {worst:.4f}", n_points=30)


add(
    "fw.lasso_curv",
    "Theorem 1.2",
    "lemma",
    "Γ_L of the LASSO loss (1/n)Σ(y_i − ⟨x_i, θ⟩)² over the unit ℓ1 ball with ‖x_i‖_∞ ≤ 1",
    sp.Integer(8),
    derive=lambda dep: dep("ttz.fw.curvature").subs({beta_s: 2, diam: 2}),
    relation="upper",
    depends=("fw.curvature",),
    equation="Theorem 1.2 (sparse linear regression)",
    checks=(_lasso_curv_check,),
    doc="∇L is 2-Lipschitz from ℓ1 to ℓ∞ (|A_jk| ≤ 1 for A = XᵀX/n), diam₁(B₁) = 2, so Γ_L ≤ 2·2² = 8.",
)
add(
    "fw.init_gap",
    "Section 5",
    "lemma",
    "initial gap L(θ₁) − min_C L for any θ₁ ∈ C",
    2 * L1 * C1,
    derive=lambda dep: L1 * (C1 + C1),
    relation="upper",
    params=("L1", "C1"),
    equation="§5, utility proof (explicit version)",
    doc="convexity and Hölder: L(θ₁) − L(θ*) ≤ ⟨θ₁ − θ*, ∇L(θ₁)⟩ ≤ ‖θ₁ − θ*‖₁ L₁ ≤ 2‖C‖₁L₁.",
)

_fw_explicit_stated = 2 * lam_n * (1 + sp.log(k)) + (4 * L1 * C1 + 2 * Gam * (T - 1)) / (T * (T + 1))


def _fw_explicit_derive(dep) -> sp.Expr:
    # h_{t+1} ≤ (1 − μ_t)h_t + μ_t E + μ_t²Γ/2 (Γ's definition, convexity, oracle error E), μ_t = 2/(t+2).
    # b_t = h_t − E: (t+1)(t+2)b_{t+1} ≤ t(t+1)b_t + 2Γ(t+1)/(t+2) ≤ t(t+1)b_t + 2Γ, so
    # b_T ≤ (2b_1 + 2Γ(T − 1))/(T(T+1)) with b_1 ≤ h_1.
    return dep("ttz.fw.noise_err") + (2 * dep("ttz.fw.init_gap") + 2 * Gam * (T - 1)) / (T * (T + 1))


def _fw_recursion_check(st: Statement, dep) -> Check:
    """Iterate the worst case of the recursion and compare with the closed form."""
    worst = 0.0
    rng = np.random.default_rng(np.random.SeedSequence(2007))
    for _ in range(200):
        G_, E_, h = rng.uniform(0.01, 10), rng.uniform(0, 2), rng.uniform(0, 10)
        hs = [h]
        for t in range(1, 400):
            mu = 2 / (t + 2)
            hs.append((1 - mu) * hs[-1] + mu * E_ + mu**2 * G_ / 2)
        TT = np.arange(1, 401)
        closed = E_ + (2 * h + 2 * G_ * (TT - 1)) / (TT * (TT + 1))
        worst = max(worst, float(np.max(np.array(hs) / closed)))
    return _ok("closed form ≥ the recursion h_{t+1} = (1−μ_t)h_t + μ_tE + μ_t²Γ/2 (μ_t = 2/(t+2))",
               worst <= 1 + 1e-12, "numeric", f"200 random (Γ, E, h₁), T ≤ 400: max recursion/closed form = {worst:.4f}",
               n_points=80000)


FW_UTILITY_EXPLICIT = add(
    "fw.utility.explicit",
    "Theorem 1.2",
    "theorem",
    "explicit bound on E L(θ_T) − L* of private Frank–Wolfe with scale λ",
    _fw_explicit_stated,
    derive=_fw_explicit_derive,
    relation="upper",
    params=("lam_noise", "k_vert", "L1", "C1", "Gamma_L", "T"),
    depends=("fw.noise_err", "fw.init_gap", "fw.curvature"),
    equation="§5, utility theorem of Algorithm 2 (explicit version)",
    checks=(_fw_recursion_check,),
    cited="the Frank–Wolfe recursion with an additive linear-oracle error (Jaggi 2013, Theorem 1), solved here for "
    "the paper's start t = 1",
    ceiling=2*PAPER.symbols["L1"].symbol*PAPER.symbols["C1"].symbol,
    ceiling_why='‖∇ℓ‖_∞ ≤ L₁ and C lies in the ℓ1 ball of radius ‖C‖₁ = C₁, so L(θ) − L* ≤ L₁‖θ − θ*‖₁ ≤ 2L₁C₁ for every θ ∈ C',
    doc="E L(θ_T) − L* ≤ 2λ(1 + ln k) + (4L₁‖C‖₁ + 2Γ_L(T − 1))/(T(T + 1)) (the toolkit's explicit version; the "
    "paper's constants are lost).",
)
FW_T_SCHEDULE = add(
    "fw.T_schedule",
    "Theorem 1.2",
    "schedule",
    "number of Frank–Wolfe steps T",
    (Gam * n * eps / (L1 * C1)) ** sp.Rational(2, 3),
    derive=lambda dep: balance(L1 * C1 * sp.sqrt(T) / (n * eps), Gam / T, T, (n, eps, Gam, L1, C1)),
    relation="none",
    params=("Gamma_L", "n", "eps", "L1", "C1"),
    equation="Theorem 1.2 / §5 (T ≈ Γ^{2/3}(nε)^{2/3}/(L₁‖C‖₁)^{2/3})",
    checks=(lambda st, dep: schedule_check(st, st.stated, dep(st.key), (n, eps, Gam, L1, C1)),),
    doc="T balances the noise term L₁‖C‖₁√T/(nε) against the optimisation term Γ/T (logs ignored).",
)


def _fw_scheduled(dep, lasso: bool = False) -> sp.Expr:
    b = dep("ttz.fw.utility.explicit").subs(lam_n, FW_SCALE_NEEDED)
    if lasso:
        b = b.subs({L1: 4, C1: 1, Gam: 8, k: 2 * p})
        return b.subs(T, dep("ttz.fw.T_schedule").subs({L1: 4, C1: 1, Gam: 8}))
    return b.subs(T, dep("ttz.fw.T_schedule"))


def _fw_lasso_derive(dep) -> sp.Expr:
    b = dep("ttz.fw.utility.explicit").subs(lam_n, FW_SCALE_NEEDED)
    return b.subs({L1: 4, C1: 1, Gam: dep("ttz.fw.lasso_curv"), k: 2 * p})


_fw_lasso_stated = (8 * 4 * sp.sqrt(8 * T * sp.log(1 / delta)) / (n * eps)) * (1 + sp.log(2 * p)) + (
    16 + 16 * (T - 1)
) / (T * (T + 1))
add(
    "fw.lasso_explicit",
    "Theorem 1.2",
    "theorem",
    "explicit bound on E L(θ_T) − L* of private Frank–Wolfe for LASSO (squared loss, ‖x‖_∞ ≤ 1, |y| ≤ 1, B₁)",
    _fw_lasso_stated,
    derive=_fw_lasso_derive,
    relation="upper",
    params=("T", "n", "eps", "delta", "p"),
    depends=("fw.utility.explicit", "fw.lasso_curv"),
    constraints=_DELTA_LE_HALF,
    equation="Theorem 1.2, sparse linear regression (explicit version)",
    ceiling=1,
    ceiling_why='θ = 0 lies in the unit ℓ1 ball and L(0) − L* ≤ L(0) = (1/n)Σy_i² ≤ 1 (|y| ≤ 1), so a bound ≥ 1 promises nothing the data-independent answer 0 does not',
    doc="with ℓ = (y − ⟨x, θ⟩)², ‖∇ℓ‖_∞ = 2|y − ⟨x, θ⟩|‖x‖_∞ ≤ 4 = L₁, ‖C‖₁ = 1, k = 2p, Γ ≤ 8 and the derived "
    "scale λ = 16√(8T ln(1/δ))/(nε): 32√(8T ln(1/δ))(1 + ln 2p)/(nε) + 16T/(T(T+1)).",
)
add(
    "thm1_2",
    "Theorem 1.2",
    ORDER_KIND,
    "E L(θ_T) − L* of private Frank–Wolfe over a polytope (order)",
    Cord * Gam ** sp.Rational(1, 3) * (L1 * C1) ** sp.Rational(2, 3) * sp.log(n * k) * sp.sqrt(sp.log(1 / delta))
    / (n * eps) ** sp.Rational(2, 3),
    relation="none",
    params=("C_order", "Gamma_L", "L1", "C1", "n", "k_vert", "eps", "delta"),
    depends=("fw.utility.explicit", "fw.T_schedule"),
    equation="Theorem 1.2",
    checks=(_order_rate_checks(lambda dep: _fw_scheduled(dep), {n: sp.Rational(-2, 3), k: sp.Integer(0)}),),
    ceiling=2*PAPER.symbols["L1"].symbol*PAPER.symbols["C1"].symbol,
    ceiling_why='as ttz.fw.utility.explicit: L(θ) − L* ≤ L₁‖θ − θ*‖₁ ≤ 2L₁C₁ over C',
    doc="O(Γ^{1/3}(L₁‖C‖₁)^{2/3} log(n|S|) polylog(1/δ)/(nε)^{2/3}); whether the δ factor is √log(1/δ) or log(1/δ) is "
    "not confirmed (√ is what the explicit version gives).  Checked: the explicit bound at the derived scale and "
    "the T schedule decays like n^{-2/3} and depends on k only through log k.",
)
add(
    "thm1_2.lasso",
    "Theorem 1.2",
    ORDER_KIND,
    "E L(θ_T) − L* of private Frank–Wolfe for LASSO over the unit ℓ1 ball (order: Õ(log(np)/(nε)^{2/3}))",
    Cord * sp.log(n * p) * sp.sqrt(sp.log(1 / delta)) / (n * eps) ** sp.Rational(2, 3),
    relation="none",
    params=("C_order", "n", "p", "eps", "delta"),
    depends=("thm1_2", "fw.lasso_curv"),
    equation="Theorem 1.2 ('In particular, for the sparse linear regression problem')",
    checks=(_order_rate_checks(lambda dep: _fw_scheduled(dep, lasso=True), {n: sp.Rational(-2, 3), p: sp.Integer(0)}),),
    ceiling=1,
    ceiling_why='as ttz.fw.lasso_explicit: the answer θ = 0 has L(0) − L* ≤ (1/n)Σy_i² ≤ 1',
    doc="‖x_i‖_∞ ≤ 1, |y_i| ≤ 1, C = B₁: Õ(log(np)/(nε)^{2/3}).",
)


def _lower_checks(st: Statement, dep) -> list[Check]:
    up = _fw_scheduled(dep, lasso=True)
    e_up, e_lo = leading_exponent(up, n), leading_exponent(st.stated, n)
    return [
        rate_check(st, st.stated, sp.Rational(-2, 3), var=n, label="exponent of the lower bound in n", spot=0),
        _ok("tight up to logs: the upper bound (Theorem 1.2, explicit) has the same exponent", e_up == e_lo,
            "limit", f"upper {sp.sstr(e_up)}, lower {sp.sstr(e_lo)}"),
    ]


add(
    "thm1_3",
    "Theorem 1.3",
    ORDER_KIND,
    "lower bound on the worst-case excess LASSO risk of any (ε, δ)-DP algorithm (ε = 0.1, δ = o(1/n²))",
    Cord / (n * sp.log(n)) ** sp.Rational(2, 3),
    relation="none",
    params=("C_order", "n"),
    depends=("thm1_2.lasso", "fw.utility.explicit", "fw.T_schedule"),
    equation="Theorem 1.3",
    checks=(_lower_checks,),
    cited="the fingerprinting-code lower bound of Bun, Ullman & Vadhan (2014)",
    doc="Ω(1/(n log n)^{2/3}): n^{-2/3} is the tight rate up to logarithms.",
)

# --------------------------------------------------------------------------- Table 1
#: Table 1 of the paper (the reference's summary): upper / lower bounds, earlier work and this paper
TABLE1: list[dict[str, str]] = [
    {"assumption": "L-Lipschitz in ℓ2, ‖C‖₂ ≤ 1", "previous_upper": "√p/(nε) [BST14]",
     "previous_lower": "√p/(nε) [BST14] (ℓ2 ball)", "this_upper": "G_C/(nε) (mirror descent)",
     "this_lower": "—", "statement": "ttz.thm3_2"},
    {"assumption": "… and Δ-strongly convex", "previous_upper": "p/(Δn²ε²) [BST14]",
     "previous_lower": "p/(n²ε²) [BST14] (ℓ2 ball)", "this_upper": "G_C²/(Δn²ε²) (mirror descent)",
     "this_lower": "—", "statement": "ttz.thmA"},
    {"assumption": "… and β-smooth", "previous_upper": "√p/(nε) [CMS11]", "previous_lower": "—",
     "this_upper": "(L G_C + β‖C‖²₂)/(nε) (objective perturbation)", "this_lower": "—", "statement": ""},
    {"assumption": "L₁-Lipschitz in ℓ1, C = ℓ1 ball (2p vertices), curvature Γ", "previous_upper": "—",
     "previous_lower": "—", "this_upper": "log(np)/(nε)^{2/3} (Frank–Wolfe)", "this_lower": "Ω̃(1/n^{2/3})",
     "statement": "ttz.thm1_2.lasso"},
]


def table1_markdown(measured: dict[str, str] | None = None) -> str:
    """Table 1 as a Markdown table, with an optional ``measured`` column keyed by statement key.

    Examples
    --------
    >>> print(table1_markdown().splitlines()[0])
    | assumption | earlier upper | earlier lower | this paper: upper | this paper: lower |
    """
    cols = ["assumption", "previous_upper", "previous_lower", "this_upper", "this_lower"]
    head = ["assumption", "earlier upper", "earlier lower", "this paper: upper", "this paper: lower"]
    if measured is not None:
        head.append("measured")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in TABLE1:
        cells = [row[c] for c in cols]
        if measured is not None:
            cells.append(measured.get(row["statement"], "—"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


add(
    "table1",
    "Table 1",
    ORDER_KIND,
    "upper and lower bounds for (ε, δ)-DP ERM (summary table)",
    None,
    relation="none",
    equation="Table 1 (§1)",
    doc="the table is data (:data:`TABLE1`, rendered by :func:`table1_markdown`); its rows are the order "
    "statements ``ttz.thm3_2``, ``ttz.thmA`` and ``ttz.thm1_2.lasso`` and the lower bound ``ttz.thm1_3``.",
)

# Where the paper operates: (ε, δ)-DP with ε ≤ 1 and small δ (δ ≤ 0.1 is this toolkit's reading), Frank–Wolfe
# with Theorem 1.2's T (the fw.T_schedule statement) for n from 10 to 1e9.
PAPER.regime = Regime(
    ranges={"eps": (0.0, 1.0), "delta": (0.0, 0.1)},
    schedules=({"T": PAPER.stated("fw.T_schedule")},),
    variable="n",
    note="002_9f0d50e873e3e787.txt with ../reference/talwar_thakurta_zhang.md: ε ≤ 1, small δ (δ ≤ 0.1 "
         "assumed here); T from Theorem 1.2's schedule",
)


# --------------------------------------------------------------------------- tight calibrations (PLD accountant)
#: the constants of the Frank–Wolfe simulations (LASSO: L₁ = 4, ‖C‖₁ = 1, Γ = 8; ``FW_DEFAULTS`` of the trials)
FW_SETTING: dict[str, float] = {"L1": 4.0, "C1": 1.0, "Gamma_L": 8.0, "n": 20000, "p": 5, "eps": 0.5, "delta": 1e-8}
#: the constants of the mirror-descent simulations (linear losses, L = 1, unit ℓ2 ball; ``MD_DEFAULTS``)
MD_SETTING: dict[str, float] = {"L2": 1.0, "n": 200, "p": 8, "eps": 1.0, "delta": 1e-8, "T": 200}


def _value(key: str, which: str = "derived", **vals: float) -> float:
    """A statement of this paper evaluated through the registry (imported lazily: it is built from this module)."""
    import bounds

    return bounds.registry.value(key, vals, which=which, warn=False)


def _g(x: float) -> str:
    """A number for a setting string: 1e-08 → 1e-8."""
    return f"{x:g}".replace("e-0", "e-").replace("e+0", "e+")


def fw_T_lasso(n_: int, eps_: float, L1_: float = 4.0, C1_: float = 1.0, Gamma_: float = 8.0) -> int:
    """T of ``ttz.fw.T_schedule`` rounded up, at least 2 (the trials' ``fw_T`` for LASSO constants).

    Examples
    --------
    >>> fw_T_lasso(1000, 0.5), fw_T_lasso(20, 0.5)
    (100, 8)
    """
    v = _value("ttz.fw.T_schedule", Gamma_L=Gamma_, n=n_, eps=eps_, L1=L1_, C1=C1_)
    return max(2, int(math.ceil(v - 1e-9)))


@functools.lru_cache(maxsize=1)
def _rnm_scale_of_eps0():
    """λ(Δ, ε₀) solving ``ttz.fw.rnm`` (per-step loss 2Δ/λ) = ε₀, as a numeric function."""
    lam = solved(sp.Eq(PAPER.stated("fw.rnm"), eps0), lam_n)[0]
    return sp.lambdify((Dsens, eps0), lam, "math")


def fw_scale_tight(L1_: float, C1_: float, T_: int, n_: int, eps_: float, delta_: float) -> float:
    """The smallest Laplace scale λ of private Frank–Wolfe that the PLD accountant certifies (ε, δ)-DP.

    Each of the T noisy selections is report-noisy-min over scores of sensitivity Δ = 2L₁‖C‖₁/n
    (``ttz.fw.sens``), an ε₀-DP step with ε₀ = 2Δ/λ (``ttz.fw.rnm``); the T steps compose adaptively,
    so their worst case is the T-fold composition of ε₀-randomised response, which
    :func:`bounds.accounting.tight_pure_step_eps` inverts exactly.  λ = 2Δ/ε₀ for the largest
    certified ε₀.

    Examples
    --------
    >>> lam = fw_scale_tight(4, 1, 737, 20000, 0.5, 1e-8)
    >>> derived = 4 * 4 * math.sqrt(8 * 737 * math.log(1e8)) / (20000 * 0.5)   # 4L₁‖C‖₁√(8T ln 1/δ)/(nε)
    >>> 2.4 < derived / lam < 2.5
    True
    """
    from .. import accounting

    e0 = accounting.tight_pure_step_eps(float(eps_), float(delta_), int(T_))
    Delta = _value("ttz.fw.sens", L1=L1_, C1=C1_, n=n_)
    return float(_rnm_scale_of_eps0()(Delta, e0))


def md_sigma_tight(L_: float, n_: int, T_: int, eps_: float, delta_: float) -> float:
    """The smallest per-step σ of Algorithm 1 that the PLD accountant certifies (ε, δ)-DP after T steps.

    Each step adds N(0, σ²I) to a gradient of ℓ2 sensitivity Δ = 2L/n (``ttz.md.sens``);
    :func:`bounds.accounting.tight_gaussian_sigma` composes the T Gaussian steps (exactly: they are
    one Gaussian of noise σ/√T, with a rigorous rounding bound).  The zCDP calibration ``ttz.md.sigma.zcdp`` is ≈ 1.31× this at
    (ε, δ) = (1, 1e-5), whatever T.

    Examples
    --------
    >>> s = md_sigma_tight(1.0, 200, 20, 1.0, 1e-5)
    >>> rho = (math.sqrt(math.log(1e5) + 1) - math.sqrt(math.log(1e5))) ** 2
    >>> round(math.sqrt(20 * (2 / 200) ** 2 / (2 * rho)) / s, 2)
    1.31
    """
    from .. import accounting

    Delta = _value("ttz.md.sens", L2=L_, n=n_)
    return accounting.tight_gaussian_sigma(float(eps_), float(delta_), int(T_), Delta)


def _fw_row() -> dict:
    from .. import accounting

    c = FW_SETTING
    L1_, C1_, G_, n_, p_, e_, d_ = (c[k] for k in ("L1", "C1", "Gamma_L", "n", "p", "eps", "delta"))
    T_ = fw_T_lasso(int(n_), e_, L1_, C1_, G_)
    kw = {"L1": L1_, "C1": C1_, "T": T_, "n": n_, "eps": e_, "delta": d_}
    lam = {"stated": _value("ttz.fw.scale", "stated", **kw), "derived": _value("ttz.fw.scale", **kw),
           "tight": fw_scale_tight(L1_, C1_, T_, int(n_), e_, d_)}
    Delta = _value("ttz.fw.sens", L1=L1_, C1=C1_, n=n_)
    e0 = {k: 2 * Delta / v for k, v in lam.items()}  # the per-step loss of ttz.fw.rnm at each scale

    def bound(v: float) -> float:
        return _value("ttz.fw.utility.explicit", lam_noise=v, k_vert=2 * p_, L1=L1_, C1=C1_, Gamma_L=G_, T=T_)

    # ε at which each calibration's scale (∝ 1/ε at fixed T) equals the derived scale at the setting's ε
    accountant_eps = accounting.pld_epsilon([("pure", e0["derived"], T_)], d_, discretization=e0["derived"])
    eps_pick = {"stated": e_ * lam["stated"] / lam["derived"], "derived": e_, "tight": accountant_eps}
    return {
        "key": "ttz.fw.scale",
        "mechanism": "private Frank–Wolfe (Algorithm 2): T report-noisy-min selections over 2p vertex scores",
        "setting": f"LASSO n = {int(n_)}, p = {int(p_)}, ε = {_g(e_)}, δ = {_g(d_)}, T = {T_}, L₁ = {_g(L1_)}, "
                   f"‖C‖₁ = {_g(C1_)}",
        "noise": "Laplace scale λ",
        **lam,
        "eps0": e0,
        "accountant": accounting.accountant_name(None) + "; T adaptive ε₀-DP steps (worst case: ε₀-randomised "
                      "response), ε₀ = 2Δ/λ",
        "saving": lam["derived"] / lam["tight"],
        "bound_key": "ttz.fw.utility.explicit",
        "bound": {k: bound(v) for k, v in lam.items()},
        "eps_for_target": eps_pick,
        "eps_of_derived_noise": accountant_eps,
        "note": "eps_for_target: the ε at which each calibration's λ (T fixed) equals the derived λ at the "
                "setting's ε, i.e. the smallest ε whose explicit bound is ≤ the derived bound; the stated value is "
                "the printed (erroneous) accounting's",
    }


def _md_row() -> dict:
    import warnings

    from .. import accounting

    c = MD_SETTING
    L_, n_, p_, e_, d_, T_ = (c[k] for k in ("L2", "n", "p", "eps", "delta", "T"))
    T_ = int(T_)
    with warnings.catch_warnings():  # ε = 1 sits on the edge of the paper's regime
        warnings.simplefilter("ignore")
        s_der = math.sqrt(_value("ttz.md.sigma.zcdp", L2=L_, T=T_, n=n_, eps=e_, delta=d_))
    sig_ = {"stated": None, "derived": s_der, "tight": md_sigma_tight(L_, int(n_), T_, e_, d_)}
    Delta = _value("ttz.md.sens", L2=L_, n=n_)
    eps_der = accounting.pld_epsilon([("gaussian", s_der, Delta, T_)], d_)
    return {
        "key": "ttz.md.sigma.zcdp",
        "mechanism": "private mirror descent (Algorithm 1): T Gaussian-noised gradients, unit ℓ2 ball",
        "setting": f"linear losses n = {int(n_)}, p = {int(p_)}, ε = {_g(e_)}, δ = {_g(d_)}, T = {T_}, L = {_g(L_)}",
        "noise": "σ",
        **sig_,
        "accountant": accounting.accountant_name(accounting.DISCRETIZATION) + "; T Gaussian steps of "
                      "sensitivity Δ = 2L/n (exact: √T·σ_Balle–Wang)",
        "saving": s_der / sig_["tight"],
        "bound_key": "ttz.thm3_2.explicit",
        "bound": {"stated": None, "derived": md_bound_at_sigma("l2", int(p_), s_der, L_, T_),
                  "tight": md_bound_at_sigma("l2", int(p_), sig_["tight"], L_, T_)},
        "eps_for_target": {"stated": None, "derived": e_, "tight": eps_der},
        "eps_of_derived_noise": eps_der,
        "note": "the paper's σ² is lost (order only): no stated value; eps_for_target as for Frank–Wolfe",
    }


@functools.lru_cache(maxsize=1)
def _calibration_rows() -> tuple[dict, ...]:
    return (_fw_row(), _md_row())


def calibration_rows() -> list[dict]:
    """The noise calibrations of the two composed mechanisms (``PAPER.calibrations``), stated / derived / tight.

    One row per mechanism at the simulations' constants (:data:`FW_SETTING`, :data:`MD_SETTING`):
    ``key``, ``mechanism``, ``setting``, ``noise``, the ``stated`` (None when the paper's value is
    lost), ``derived`` and ``tight`` noise, ``accountant``, ``saving`` = derived/tight, ``bound`` =
    the explicit utility bound at each noise (``ttz.fw.utility.explicit``; ``ttz.thm3_2.explicit``),
    and ``eps_for_target``: for each calibration the smallest ε whose bound (same T) is ≤ the derived
    bound at the setting's ε — the setting's ε for ``derived``, the accountant's ε of the derived
    noise for ``tight``.  Cached (about 1 s on first call, mostly importing dp-accounting).

    Examples
    --------
    >>> rows = calibration_rows()
    >>> [r["key"] for r in rows]
    ['ttz.fw.scale', 'ttz.md.sigma.zcdp']
    >>> all(r["tight"] < r["derived"] and r["eps_for_target"]["tight"] < r["eps_for_target"]["derived"] for r in rows)
    True
    """
    import copy

    return copy.deepcopy(list(_calibration_rows()))


PAPER.calibrations = calibration_rows

# --------------------------------------------------------------------------- coverage
PAPER.omit("objective perturbation for smooth losses (Table 1 row 'β-smooth': (L G_C + β‖C‖²₂)/(nε))",
           "its algorithm and constants are not in the reference file (formulas lost from the seed); listed in "
           "Table 1 only")
PAPER.omit("the exact noise variance σ² of Algorithm 1 (mirror descent) and the log factors of every utility bound",
           "lost with the seed's formulas; encoded as order statements (ttz.md.sigma, ttz.thm3_2, ttz.eq10–13, "
           "ttz.thmA, ttz.thm1_2) with explicit-constant versions derived here from standard results")
PAPER.omit("mirror descent with sampled gradients (the extra log(n/δ) of the reference)",
           "not confirmed by the reference; the full-gradient version is encoded")
PAPER.omit("the proof of the lower bound (Theorem 1.3, fingerprinting codes)",
           "a minimax construction with no numeric claim beyond its order; encoded as an order statement")
PAPER.omit("the neighbouring relation add/remove (the reference reads Definition 2.1 as one record replaced)",
           "with add/remove neighbours the score sensitivity would be L₁‖C‖₁/n; both readings leave the privacy "
           "proof of §5 short (ttz.fw.scale readings)")


# --------------------------------------------------------------------------- accounting (bounds.calibrate)
def _fw_spent(value, lam_: float, **v: float) -> float:
    from .. import accounting

    e0 = 2 * value("ttz.fw.sens", L1=v["L1"], C1=v["C1"], n=v["n"]) / float(lam_)
    return accounting.pld_epsilon([("pure", e0, int(v["T"]))], v["delta"], discretization=e0)


def _md_spent(value, sigma2: float, **v: float) -> float:
    from .. import accounting

    Delta = value("ttz.md.sens", L2=v["L2"], n=v["n"])
    return accounting.pld_epsilon([("gaussian", math.sqrt(float(sigma2)), Delta, int(v["T"]))], v["delta"])


def _md_sigma2_cks(value, **v: float) -> float:
    from .. import accounting

    Delta = value("ttz.md.sens", L2=v["L2"], n=v["n"])
    return int(v["T"]) * Delta**2 / (2 * accounting.zcdp_rho(v["eps"], v["delta"]))


#: the tight calibration and the ε a noise spends, for bounds.calibrate (value(key, **vals) evaluates a statement)
ACCOUNTING = {
    "fw.scale": {
        "tight": lambda value, **v: fw_scale_tight(v["L1"], v["C1"], int(v["T"]), int(v["n"]), v["eps"], v["delta"]),
        "spent": _fw_spent,
        "accountant": "exact composition (bounds.accounting): T adaptive ε₀-DP selections as T-fold ε₀-randomised "
                      "response (their worst case, Kairouz et al. 2015), "
                      "ε₀ = 2Δ/λ, Δ from ttz.fw.sens",
    },
    "md.sigma.zcdp": {
        "tight": lambda value, **v: md_sigma_tight(v["L2"], int(v["n"]), int(v["T"]), v["eps"], v["delta"]) ** 2,
        "derived": _md_sigma2_cks,
        "derived_how": "the same zCDP proof (T steps of ρ = Δ²/(2σ²), Δ = 2L/n), converted to (ε, δ) by the "
                       "optimal conversion of Canonne, Kamath & Steinke 2020 (Cor. 13; bounds.accounting.zcdp_rho) "
                       "instead of ρ + 2√(ρ ln(1/δ))",
        "task": ("classification", "regression"),
        "spent": _md_spent,
        "accountant": "exact composition (bounds.accounting): T Gaussian steps of σ = √(σ²) are one Gaussian of "
                      "σ/√T, ℓ2 sensitivity Δ = 2L/n (ttz.md.sens)",
        "noise_name": "sigma2",
    },
}
