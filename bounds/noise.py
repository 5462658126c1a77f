r"""The plain Gaussian and Laplace mechanisms: the noise for (ε, δ) after T releases, and the ε it certifies.

No paper and no statement is needed: a statistic of known sensitivity Δ released T times (adaptively
or not) with Gaussian noise N(0, σ²) (ℓ2 sensitivity) or Laplace noise of scale b (ℓ1
sensitivity).  Every calibration comes from :mod:`bounds.accounting` and is certified: the ε the
accountant computes for the returned noise is at most the ε asked for.

Gaussian (:func:`gaussian`)
    ``exact``: the smallest σ for which T Gaussian releases are (ε, δ)-DP (they compose to one
    Gaussian of σ/√T; Balle & Wang 2018's exact δ(ε), rounded toward privacy:
    :func:`bounds.accounting.tight_gaussian_sigma`).  Shown beside it, for comparison: the zCDP route
    (ρ = TΔ²/(2σ²)) with the optimal conversion of Canonne, Kamath & Steinke 2020
    (:func:`bounds.accounting.zcdp_rho`) and with Bun & Steinke's ρ + 2√(ρ ln(1/δ)).
Laplace (:func:`laplace`)
    ``basic``: b = TΔ/ε, pure ε-DP (basic composition; optimal at δ = 0).  With δ > 0 and T > 1,
    ``tight``: b = Δ/ε₀ for the largest ε₀ whose T-fold composition is (ε, δ)-DP by the optimal
    composition of ε₀-DP steps (Kairouz, Oh & Viswanath 2015;
    :func:`bounds.accounting.tight_pure_step_eps`), and for T ≤ 64 ``Laplace PLD`` (the Laplace
    mechanism's own privacy-loss distribution, dp-accounting); the least noise certified is recommended.

Examples
--------
>>> g = gaussian(1.0, 1.0, 1e-6, compositions=1000)
>>> round(g.sigma, 6), g.eps_certified <= 1.0
(133.596077, True)
>>> laplace(2.0, 0.5).scale                      # one release: b = Δ/ε
4.0
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

__all__ = ["NoiseCalibration", "NoiseRow", "gaussian", "laplace", "add_parser", "command"]


@dataclass
class NoiseRow:
    """One calibration of the mechanism: its noise, the ε the accountant certifies for it, and how."""

    name: str
    scale: float
    eps_certified: float
    accountant: str
    recommended: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class NoiseCalibration:
    """The answer of :func:`gaussian` or :func:`laplace`: the recommended noise and every calibration beside it."""

    mechanism: str
    sensitivity: float
    eps: float
    delta: float
    compositions: int
    rows: list[NoiseRow] = field(default_factory=list)
    #: comparison calibrations that could not be computed at these (ε, δ), each with why
    notes: list[str] = field(default_factory=list)

    @property
    def best(self) -> NoiseRow:
        """The recommended row: the least noise certified at (ε, δ)."""
        return next(r for r in self.rows if r.recommended)

    @property
    def scale(self) -> float:
        """σ of the Gaussian, b of the Laplace mechanism (recommended calibration)."""
        return self.best.scale

    @property
    def sigma(self) -> float:
        if self.mechanism != "gaussian":
            raise AttributeError("sigma: the Laplace mechanism has a scale b (attribute 'scale'), not a σ")
        return self.best.scale

    @property
    def variance(self) -> float:
        """σ² (Gaussian) or 2b² (Laplace) per coordinate."""
        s = self.best.scale
        return s * s if self.mechanism == "gaussian" else 2 * s * s

    @property
    def eps_certified(self) -> float:
        return self.best.eps_certified

    @property
    def accountant(self) -> str:
        return self.best.accountant

    def as_dict(self) -> dict[str, Any]:
        name = "sigma" if self.mechanism == "gaussian" else "scale"
        return {"mechanism": self.mechanism, "sensitivity": self.sensitivity, "eps": self.eps, "delta": self.delta,
                "compositions": self.compositions, name: self.scale, "variance": self.variance,
                "accountant": self.accountant, "eps_certified": self.eps_certified,
                "rows": [r.as_dict() for r in self.rows], "notes": list(self.notes)}

    def text(self) -> str:
        """The command line's answer."""
        g = self.mechanism == "gaussian"
        norm = "ℓ2" if g else "ℓ1"
        head = (f"{'Gaussian' if g else 'Laplace'} mechanism: {norm} sensitivity {_n(self.sensitivity)}, "
                f"eps = {_n(self.eps)}, delta = {_n(self.delta)}, {self.compositions} release"
                f"{'s' if self.compositions > 1 else ''}")
        b = self.best
        if g:
            noise = f"  sigma = {_n(b.scale)} (sigma² = {_n(b.scale * b.scale)}) per release"
        else:
            noise = f"  Laplace scale b = {_n(b.scale)} (variance 2b² = {_n(2 * b.scale * b.scale)}) per release"
        lines = [head, noise, f"  accountant ({b.name}): {b.accountant}",
                 f"  eps certified at delta = {_n(self.delta)}: {_n(b.eps_certified)}"]
        others = [r for r in self.rows if not r.recommended]
        if others:
            sym = "sigma" if g else "b"
            lines.append(f"  other calibrations ({sym}, its ratio to the recommended one, the eps certified):")
            for r in others:
                lines.append(f"    {r.name}: {sym} = {_n(r.scale)} ({r.scale / b.scale:.4g}×), eps "
                             f"{_n(r.eps_certified)}: {r.accountant}")
        lines += [f"  {n}" for n in self.notes]
        return "\n".join(lines)


def _n(x: float) -> str:
    return f"{x:.6g}"


def _div_up(num: Fraction, den: float) -> float:
    """The smallest double ≥ num/den (exact rational quotient, rounded up)."""
    q = num / Fraction(den)
    x = float(q)                                  # correctly rounded to nearest
    return x if Fraction(x) >= q else math.nextafter(x, math.inf)


def _scale_up(num: Fraction, eps: float) -> float:
    """The smallest double scale b ≥ num/ε, so that num/b ≤ ε holds exactly (rounding toward privacy)."""
    return _div_up(num, eps)


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise ValueError(f"parameter 'compositions' = {value!r} must be an integer ≥ 1 (the number of releases)")
    return int(value)


def _positive(name: str, value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)) \
            or float(value) <= 0:
        raise ValueError(f"parameter {name!r} = {value!r} must be a finite number > 0 ({what})")
    return float(value)


def gaussian(sensitivity: float, eps: float, delta: float, compositions: int = 1) -> NoiseCalibration:
    r"""The smallest σ of T Gaussian releases of a statistic of ℓ2 sensitivity Δ that is (ε, δ)-DP.

    Parameters
    ----------
    sensitivity : float
        ℓ2 sensitivity Δ > 0 of each released statistic.
    eps : float
        Total ε > 0.
    delta : float
        Total δ ∈ (0, 1) (the Gaussian mechanism is never pure ε-DP).
    compositions : int
        Number of releases T ≥ 1 (adaptive composition included).

    Returns
    -------
    NoiseCalibration
        Rows ``exact`` (recommended: the exact Gaussian composition), ``zCDP, optimal conversion``
        and ``zCDP, Bun & Steinke``, each with the ε the exact accountant certifies at its σ.

    Raises
    ------
    ValueError
        Naming the parameter: Δ ≤ 0, ε ≤ 0, δ ∉ (0, 1), T not an integer ≥ 1, non-finite input.

    Examples
    --------
    >>> g = gaussian(1.0, 1.0, 1e-5)
    >>> round(g.sigma, 4), [r.name for r in g.rows][0]
    (3.7306, 'exact')
    >>> g.rows[1].scale / g.sigma > 1                   # the zCDP route adds more noise
    True
    """
    from . import accounting as acc

    what = "Gaussian mechanism"
    sens = _positive("sensitivity", sensitivity, what + ": ℓ2 sensitivity Δ > 0")
    eps = _positive("eps", eps, what + ": ε > 0")
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0 < float(delta) < 1:
        raise ValueError(f"parameter 'delta' = {delta!r} must lie in (0, 1) ({what}: it is (ε, δ)-DP only "
                         "with δ > 0; for pure ε-DP use the Laplace mechanism)")
    delta = float(delta)
    T = _count(compositions)
    s = acc.tight_gaussian_sigma(eps, delta, T, sens)

    def certified(sig: float) -> float:
        return acc.pld_epsilon([("gaussian", sig, sens, T)], delta)

    rows = [NoiseRow("exact", s, certified(s),
                     f"exact Gaussian composition (Balle & Wang 2018, Thm 8): {T} Gaussian release"
                     f"{'s are one Gaussian of σ/√T' if T > 1 else ''}, rounded toward privacy", True)]
    ld = -math.log(delta)
    notes = []
    for name, rho_of, how in (
            ("zCDP, optimal conversion", lambda: acc.zcdp_rho(eps, delta),
             "ρ = TΔ²/(2σ²)-zCDP converted by Canonne, Kamath & Steinke 2020, Cor. 13"),
            ("zCDP, Bun & Steinke", lambda: (eps / (math.sqrt(ld + eps) + math.sqrt(ld))) ** 2,
             "ρ = TΔ²/(2σ²)-zCDP converted by ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3)")):
        # a comparison row never aborts the exact answer: one that cannot be computed is left out, with why
        try:
            rho = rho_of()
            if not rho > 0:
                raise ValueError(f"ρ = {rho!r} underflows a double (ρ ≈ ε²/(4 ln(1/δ)))")
            sig = sens * math.sqrt(T / (2 * rho))
            while math.isfinite(sig) and T * Fraction(sens) ** 2 > 2 * Fraction(rho) * Fraction(sig) ** 2:
                sig = math.nextafter(sig, math.inf)          # TΔ²/(2σ²) ≤ ρ exactly (rounding toward privacy)
            if not math.isfinite(sig):
                raise ValueError(f"σ = TΔ²/(2ρ) overflows a double at ρ = {rho!r}")
            rows.append(NoiseRow(name, sig, certified(sig), how))
        except (ValueError, OverflowError, ZeroDivisionError) as e:
            notes.append(f"{name}: not computed ({e})")
    return NoiseCalibration("gaussian", sens, eps, delta, T, rows, notes)


def laplace(sensitivity: float, eps: float, delta: float = 0.0, compositions: int = 1) -> NoiseCalibration:
    r"""The smallest Laplace scale b of T releases of a statistic of ℓ1 sensitivity Δ that is (ε, δ)-DP.

    ``basic`` b = TΔ/ε is pure ε-DP (optimal at δ = 0).  With δ > 0, ``tight`` b = Δ/ε₀ for the
    largest ε₀ whose T-fold composition the accountant certifies (ε, δ)-DP (optimal composition of
    ε₀-DP steps, which covers every ε₀-DP mechanism, Laplace included), and, for T ≤ 64, ``Laplace
    PLD``: the smallest b whose T-fold composition of the Laplace mechanism's own privacy-loss
    distribution the accountant certifies (:func:`bounds.accounting.pld_epsilon`, grid 1e-3); the
    row with the least noise is recommended.

    Parameters
    ----------
    sensitivity : float
        ℓ1 sensitivity Δ > 0 of each released statistic.
    eps : float
        Total ε > 0.
    delta : float, optional
        Total δ ∈ [0, 1) (default 0: pure ε-DP).
    compositions : int
        Number of releases T ≥ 1.

    Returns
    -------
    NoiseCalibration

    Raises
    ------
    ValueError
        Naming the parameter: Δ ≤ 0, ε ≤ 0, δ ∉ [0, 1), T not an integer ≥ 1, non-finite input.

    Examples
    --------
    >>> laplace(1.0, 1.0, compositions=10).scale                  # basic composition: TΔ/ε
    10.0
    >>> t = laplace(1.0, 1.0, 1e-6, compositions=1000)
    >>> t.best.name, t.scale < 1000.0                               # advanced composition certifies less
    ('tight', True)
    """
    from . import accounting as acc

    what = "Laplace mechanism"
    sens = _positive("sensitivity", sensitivity, what + ": ℓ1 sensitivity Δ > 0")
    eps = _positive("eps", eps, what + ": ε > 0")
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0 <= float(delta) < 1:
        raise ValueError(f"parameter 'delta' = {delta!r} must lie in [0, 1) ({what})")
    delta = float(delta)
    T = _count(compositions)
    basic = _scale_up(T * Fraction(sens), eps)
    rows = [NoiseRow("basic", basic, _div_up(T * Fraction(sens), basic),
                     f"basic composition: {T} release{'s' if T > 1 else ''} of ε₀ = Δ/b = ε/T each, pure ε-DP"
                     if T > 1 else "one release: pure ε-DP at b = Δ/ε")]
    if delta > 0:
        e0 = acc.tight_pure_step_eps(eps, delta, T)
        b = _scale_up(Fraction(sens), e0)                       # Δ/b ≤ ε₀ exactly
        if b < basic:
            cert = acc.pld_epsilon([("pure", e0, T)], delta)
            rows.append(NoiseRow("tight", b, cert,
                                 f"optimal composition of {T} ε₀-DP release{'s' if T > 1 else ''}, ε₀ = Δ/b (their worst case: ε₀-randomised "
                                 "response, Kairouz, Oh & Viswanath 2015), exact binomial, rounded toward privacy"))
        if T <= _LAPLACE_PLD_MAX:
            pld = _laplace_pld_scale(acc, sens, eps, delta, T, min(b, basic))
            if pld is not None and pld[0] < min(b, basic):
                rows.append(NoiseRow("Laplace PLD", pld[0], pld[1],
                                     f"the Laplace mechanism's own privacy-loss distribution composed {T} time"
                                     f"{'s' if T > 1 else ''} (dp-accounting, pessimistic, grid {_PLD_GRID:g}, FFT "
                                     "round-off subtracted: bounds.accounting.pld_epsilon)"))
    best = min(rows, key=lambda r: r.scale)
    best.recommended = True
    rows.sort(key=lambda r: not r.recommended)
    return NoiseCalibration("laplace", sens, eps, delta, T, rows)


#: most releases for which the Laplace PLD itself is searched (beyond, bounds.accounting composes Laplace steps
#: as ε₀-randomised response anyway); the grid of that search
_LAPLACE_PLD_MAX = 64
_PLD_GRID = 1e-3


def _laplace_pld_scale(acc: Any, sens: float, eps: float, delta: float, T: int,
                       hi: float) -> tuple[float, float] | None:
    """The smallest scale b ≤ ``hi`` (to a relative 1e-6) at which the accountant certifies T Laplace releases
    (ε, δ)-DP through the Laplace PLD, with the ε it certifies; None if ``hi`` itself is not certified.

    Bisection on b keeping the upper end certified (any b it returns was checked), a fixed number of
    steps (deterministic)."""
    def cert(x: float) -> float:
        return acc.pld_epsilon([("laplace", x, sens, T)], delta, discretization=_PLD_GRID)

    e_hi = cert(hi)
    if e_hi > eps:
        return None
    lo = hi / 2
    for _ in range(60):
        if lo <= 0 or cert(lo) > eps:
            break
        hi, e_hi, lo = lo, cert(lo), lo / 2
    for _ in range(40):
        if hi - lo <= 1e-6 * hi:
            break
        mid = (lo + hi) / 2
        e = cert(mid)
        if e <= eps:
            hi, e_hi = mid, e
        else:
            lo = mid
    return hi, e_hi


# --------------------------------------------------------------------------- command line
def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``noise {gaussian,laplace}`` on the subparsers ``sub`` of ``python -m bounds``."""
    p = sub.add_parser("noise", help="the noise of the plain Gaussian or Laplace mechanism for (ε, δ) and T releases",
                       allow_abbrev=False)
    p.add_argument("mechanism", choices=("gaussian", "laplace"))
    p.add_argument("--sensitivity", required=True, help="sensitivity Δ of each release (ℓ2 Gaussian, ℓ1 Laplace)")
    p.add_argument("--eps", required=True, help="total ε")
    p.add_argument("--delta", default=None, help="total δ (required for gaussian; default 0 for laplace)")
    p.add_argument("--compositions", default="1", help="number of releases T (default 1)")
    p.add_argument("--json", action="store_true")
    return p


def _num(text: str, name: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"parameter {name!r} = {text!r} is not a number") from None
    if math.isinf(v) and "inf" not in text.lower():
        raise ValueError(f"parameter {name!r} = {text!r} is too large for a float (overflow)")
    return v


def command(a: argparse.Namespace) -> int:
    """Run ``python -m bounds noise``: print the calibration (or its JSON); bad input raises ValueError."""
    sens, eps = _num(a.sensitivity, "sensitivity"), _num(a.eps, "eps")
    try:
        T = int(a.compositions)
    except ValueError:
        raise ValueError(f"parameter 'compositions' = {a.compositions!r} must be an integer ≥ 1") from None
    if a.mechanism == "gaussian":
        if a.delta is None:
            raise ValueError("parameter 'delta' is required for the Gaussian mechanism (it is (ε, δ)-DP only with "
                             "δ > 0; for pure ε-DP use 'noise laplace')")
        c = gaussian(sens, eps, _num(a.delta, "delta"), T)
    else:
        c = laplace(sens, eps, 0.0 if a.delta is None else _num(a.delta, "delta"), T)
    print(json.dumps(c.as_dict(), indent=1, ensure_ascii=False) if a.json else c.text())
    return 0
