"""Checks of privacy arguments that are not about constants.

Two recurring issues in the seed papers are decided here by explicit,
computed witnesses (small exact examples), not by assertion:

* :func:`restricted_events_witness`: a privacy definition that quantifies only
  over events in ``Range(A(z1)) ∩ Range(A(z2))`` is satisfied by a mechanism
  that releases its input exactly; it is strictly weaker than the standard
  definition of Dwork et al. (2006).
* :func:`function_release_witness`: adding one real random variable ``b`` to a
  function ``f_z`` (output perturbation with a scalar) cannot be ε-DP for the
  released function when ``f_z − f_z̄`` is not constant: the released functions
  lie on the disjoint lines ``{f_z + c}`` and ``{f_z̄ + c}``.  The witness is
  kernel ridge regression with the linear kernel ``K(x, x') = x x'`` on
  ``X = [−1, 1]`` (κ = 1), solved exactly by sympy.

Examples
--------
>>> from bounds.privacy_logic import function_release_witness
>>> function_release_witness().ok
False
"""

from __future__ import annotations

import sympy as sp

from .core import Check, Statement


def restricted_events_witness(label: str = "definition agrees with standard ε-DP") -> Check:
    """Compare a 'range-restricted' DP definition with the standard one on an exact example.

    The mechanism ``A(z) = mean(z)`` (no noise) on neighbouring data sets
    ``z1 = (0, 0)``, ``z2 = (0, 1)`` has ranges ``{0}`` and ``{1/2}``; their
    intersection is empty, so the restricted condition holds vacuously for
    every ε, while the standard condition fails for ``O = {0}``
    (``1 ≤ e^ε · 0`` is false).
    """
    z1, z2 = (sp.Integer(0), sp.Integer(0)), (sp.Integer(0), sp.Integer(1))
    a1, a2 = sum(z1) / 2, sum(z2) / 2
    range1, range2 = {a1}, {a2}
    eps = sp.Symbol("epsilon", positive=True)

    def pr(output, event) -> sp.Integer:  # the mechanism is deterministic
        return sp.Integer(1) if output in event else sp.Integer(0)

    def dp_holds(events) -> bool:
        return all(
            bool(sp.simplify(pr(u, o) - sp.exp(eps) * pr(v, o)) <= 0)
            for o in events
            for u, v in ((a1, a2), (a2, a1))
        )

    restricted_events = [o for o in (range1, range2, range1 | range2) if o <= (range1 & range2) and o]
    restricted_ok = dp_holds(restricted_events)
    standard_ok = dp_holds([range1, range2, range1 | range2])
    p1, p2 = pr(a1, range1), pr(a2, range1)
    ok = restricted_ok == standard_ok
    detail = (
        f"the noiseless mean has ranges {sorted(range1)} and {sorted(range2)} on neighbours; "
        f"their intersection has {len(restricted_events)} events, so the restricted definition holds "
        f"vacuously while the standard one fails (Pr = {p1} vs e^ε·{p2}); the definition is strictly "
        "weaker than Dwork et al. (2006) and admits non-private mechanisms"
    )
    return Check(label, ok, "exact", detail if not ok else "definitions agree", severity="" if ok else "gap")


def function_release_witness(label: str = "function release with scalar noise is private") -> Check:
    """Decide whether ``f_z + b`` (one scalar ``b``) can be ε-DP as a released function.

    Exact witness: kernel ridge regression with ``K(x, x') = x x'``, λ = 1/10,
    ``z = ((1, 1), (1/2, 1/2))`` and its neighbour ``z̄ = ((1, 1), (-1/2, 1/2))``.
    Then ``f_z(x) = a x`` and ``f_z̄(x) = ā x`` with ``a ≠ ā``, so ``f_z − f_z̄``
    is not constant and the two release distributions have disjoint supports.
    """
    lam = sp.Rational(1, 10)
    m = 2

    def slope(points):
        # minimiser of (1/m) Σ (a x_i − y_i)² + λ a² over f = a·x (‖f‖_K = |a| for K = x x')
        a = sp.Symbol("a")
        obj = sum((a * x - y) ** 2 for x, y in points) / m + lam * a**2
        return sp.solve(sp.diff(obj, a), a)[0]

    z = [(sp.Integer(1), sp.Integer(1)), (sp.Rational(1, 2), sp.Rational(1, 2))]
    zbar = [z[0], (sp.Rational(-1, 2), sp.Rational(1, 2))]
    a, abar = slope(z), slope(zbar)
    x = sp.Symbol("x", real=True)
    diff = sp.expand((a - abar) * x)
    constant = sp.diff(diff, x) == 0
    ok = bool(constant)
    detail = (
        f"linear-kernel ridge regression, λ = 1/10: f_z(x) = {a}·x, f_z̄(x) = {abar}·x; "
        f"f_z − f_z̄ = {diff} is not constant, so f_z + b and f_z̄ + b lie on disjoint lines and the "
        "event O = {f_z + c : c ∈ ℝ} has probability 1 vs 0: no finite ε for the released function "
        "(ε-DP holds only for releasing one value f_z(x₀) + b)"
    )
    return Check(label, ok, "exact", "" if ok else detail, severity="" if ok else "invalid")


def scalar_release_checks(st: Statement, density: sp.Expr, sensitivity: sp.Expr, label: str) -> list[Check]:
    """The two privacy checks of a Laplace output perturbation f_z + b with one scalar b.

    (1) the Laplace logic for a released value of sensitivity Δ
    (:func:`bounds.checks.laplace_privacy`); (2) whether the released *function*
    can be private at all (:func:`function_release_witness`).
    """
    from .checks import laplace_privacy

    return [laplace_privacy(st, density, sensitivity, label=label), function_release_witness()]
