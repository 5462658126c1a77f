"""The toolkit's noise calibrations against peer libraries (issue 31, item 7): ratios, not timings.

Rows (toolkit value / peer value; 1 = the same noise):

* Gaussian, T = 1000 releases at (ε, δ) = (1, 1e-6), Δ = 1: ``bounds.noise.gaussian`` (exact composition)
  against dp-accounting's PLD (σ found by bisection on its pessimistic ε, grid 1e-4) and RDP accountants.
* The zCDP conversion: ``bounds.accounting.zcdp_eps`` / ``zcdp_rho`` (Canonne, Kamath & Steinke 2020)
  against OpenDP's ``make_zCDP_to_approxDP`` (its ε of N(0, 9) at δ = 1e-5, and the σ it needs for (1, 1e-6)
  at T = 1000), and the σ of ``ttz.md.sigma.zcdp``'s stated (ρ + 2√(ρ ln 1/δ)) and derived rows.
* Laplace: ``bounds.noise.laplace`` at T = 1 against OpenDP's ``make_laplace`` scale (ε = 1, Δ = 1), and at
  T = 20, δ = 1e-6 the ε dp-accounting's Laplace PLD (grid 1e-4) gives for the toolkit's scale.
* Chaudhuri, Monteleoni & Sarwate: Algorithm 2 (``bounds.calibrate`` on ``cms.alg2.*``, the recommended branch)
  against diffprivlib's ``LogisticRegression`` calibration (its ``Vector`` mechanism with α = 1/C = nΛ, read
  off a run: the Gamma scale of ‖b‖ and the Δ it adds), at the issue's (ε, n, Λ) = (1, 20000, 1e-5) and at
  (1, 50000, 1e-3); Algorithm 1's rate β against the paper's nΛε/2 (diffprivlib has no output perturbation).

OpenDP and diffprivlib are optional: imported here if installed, else run in ``--peers-python PY`` (another
interpreter that has them, e.g. a venv made with ``python3 -m venv /tmp/peers && /tmp/peers/bin/pip install
opendp diffprivlib "scikit-learn<1.6"``), else their rows say "not installed".

Run: ``python bench/bench_calibration_peers.py [--peers-python /tmp/peers/bin/python]``.  No assertions.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the peer computations, run in this process or in ``--peers-python`` (prints one JSON object)
PEER_CODE = r'''
import json, math
out = {}
try:
    import opendp.prelude as dp
    dp.enable_features("contrib")
    space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
    def odp_eps(scale, delta):
        return dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*space, scale=scale)).map(1.0).epsilon(delta)
    out["opendp_zcdp_eps_sigma3_d1e-5"] = odp_eps(3.0, 1e-5)
    # σ of one Gaussian of sensitivity 1/√T ... T releases of σ at Δ = 1 are ρ = T/(2σ²): one Gaussian of σ/√T
    lo, hi = 1.0, 1000.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if odp_eps(mid / math.sqrt(1000), 1e-6) <= 1.0:
            hi = mid
        else:
            lo = mid
    out["opendp_zcdp_sigma_T1000"] = hi
    lap = dp.m.make_laplace(*space, scale=1.0)
    out["opendp_laplace_eps_scale1"] = lap.map(1.0)
    out["opendp"] = "opendp"
except ImportError as exc:
    out["opendp_missing"] = str(exc)
try:
    import numpy as np
    from diffprivlib.mechanisms import Vector

    class Rec(np.random.RandomState):
        scale = None
        def gamma(self, shape, scale=1.0, size=None):
            Rec.scale = scale
            return super().gamma(shape, scale, size)

    def dpl(eps, n, Lam):
        rng = Rec(0)
        mech = Vector(epsilon=eps, dimension=3, alpha=n * Lam, function_sensitivity=0.25, data_sensitivity=1.0,
                      n=n, random_state=rng)
        mech._rng = rng
        f = mech.randomise(lambda w: 0.0)
        w = np.array([1.0, 0.0, 0.0])
        delta = f(w) + f(-w)                    # the ±b·w/n terms cancel: 2·½Δ‖w‖² = Δ at ‖w‖ = 1
        return {"noise_per_dim": Rec.scale, "Delta": delta}   # E‖b‖/d = Gamma scale
    for e_, n_, L_ in ((1.0, 20000, 1e-5), (1.0, 50000, 1e-3)):
        out[f"diffprivlib_{e_:g}_{n_}_{L_:g}"] = dpl(e_, n_, L_)
    out["diffprivlib"] = "diffprivlib"
except ImportError as exc:
    out["diffprivlib_missing"] = str(exc)
print(json.dumps(out))
'''


def peers(python: str | None) -> dict:
    if python:
        r = subprocess.run([python, "-c", PEER_CODE], capture_output=True, text=True, check=False)
        if r.returncode == 0:
            return json.loads(r.stdout.strip().splitlines()[-1])
        print(f"--peers-python failed: {r.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
    ns: dict = {}
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(PEER_CODE, ns)  # noqa: S102 - our own code, optional imports
    return json.loads(buf.getvalue().strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers-python", default=None, help="an interpreter with opendp and diffprivlib installed")
    a = ap.parse_args()

    from dp_accounting import dp_event, rdp
    from dp_accounting.pld import privacy_loss_distribution as pld

    from bounds import accounting as acc
    from bounds import calibrate as cal
    from bounds import noise

    warnings.simplefilter("ignore")
    p = peers(a.peers_python)
    rows: list[tuple[str, float, float, str]] = []

    # Gaussian T = 1000
    g = noise.gaussian(1.0, 1.0, 1e-6, compositions=1000)

    def pld_eps(s: float) -> float:
        return pld.from_gaussian_mechanism(s, sensitivity=1.0, pessimistic_estimate=True,
                                           value_discretization_interval=1e-4).self_compose(1000).get_epsilon_for_delta(1e-6)

    lo, hi = 100.0, 200.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if pld_eps(mid) <= 1.0 else (mid, hi)
    rows.append(("Gaussian σ, T=1000, (1, 1e-6): exact vs dp-accounting PLD (grid 1e-4, pessimistic)", g.sigma, hi,
                 "σ"))

    def rdp_eps(s: float) -> float:
        r = rdp.RdpAccountant(orders=[1 + x / 100 for x in range(2, 20000)])
        r.compose(dp_event.GaussianDpEvent(s), 1000)
        return r.get_epsilon(1e-6)

    lo, hi = 100.0, 200.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if rdp_eps(mid) <= 1.0 else (mid, hi)
    rows.append(("Gaussian σ, T=1000, (1, 1e-6): exact vs dp-accounting RDP", g.sigma, hi, "σ"))
    cks = next(r for r in g.rows if r.name.startswith("zCDP, optimal"))
    rows.append(("Gaussian σ, T=1000, (1, 1e-6): zCDP optimal conversion vs dp-accounting RDP", cks.scale, hi, "σ"))

    # zCDP vs OpenDP
    if "opendp" in p:
        rows.append(("zCDP → ε of N(0, 9), δ = 1e-5: zcdp_eps vs OpenDP", acc.zcdp_eps(1 / 18, 1e-5),
                     p["opendp_zcdp_eps_sigma3_d1e-5"], "ε"))
        rows.append(("zCDP σ, T=1000, (1, 1e-6): noise 'zCDP, optimal conversion' vs OpenDP", cks.scale,
                     p["opendp_zcdp_sigma_T1000"], "σ"))
        v = dict(L2=0.5, n=1, T=1000, eps=1.0, delta=1e-6)      # Δ = 2L/n = 1
        c = cal.calibrate("ttz.md.sigma.zcdp", evidence=[], **v)
        for name in ("stated", "derived", "tight"):
            rows.append((f"ttz.md.sigma.zcdp {name} σ (Δ = 1, T=1000, (1, 1e-6)) vs OpenDP zCDP",
                         math.sqrt(c.row(name).noise), p["opendp_zcdp_sigma_T1000"], "σ"))
    else:
        rows.append(("zCDP rows vs OpenDP", math.nan, math.nan, "not installed: " + p.get("opendp_missing", "")))

    # Laplace
    lap = noise.laplace(1.0, 1.0)
    if "opendp" in p:
        rows.append(("Laplace, T=1, ε=1, Δ=1: ε of scale b vs OpenDP's ε of scale 1", 1.0 / lap.scale,
                     p["opendp_laplace_eps_scale1"], "ε"))
    lt = noise.laplace(1.0, 1.0, 1e-6, compositions=20)
    e_lib = pld.from_laplace_mechanism(lt.scale, sensitivity=1.0, pessimistic_estimate=True,
                                       value_discretization_interval=1e-4).self_compose(20).get_epsilon_for_delta(1e-6)
    rows.append(("Laplace T=20, (1, 1e-6): toolkit's certified ε vs dp-accounting Laplace PLD's ε at its b",
                 lt.eps_certified, e_lib, "ε"))

    # CMS
    for eps, n, Lam in ((1.0, 20000, 1e-5), (1.0, 50000, 1e-3)):
        vals = dict(eps=eps, n=n, Lam=Lam, c=0.25)
        c = cal.calibrate("cms.alg2.eps_prime", evidence=[], **vals)
        best = next(r for r in c.branches if c.recommended.startswith(r.key) and r.calibration == "derived")
        first = next(r for r in c.branches if r.key.endswith("eps_prime") and r.calibration == "derived")
        tag = f"{eps:g}_{n}_{Lam:g}"
        dpl = p.get(f"diffprivlib_{tag}")
        if dpl:
            rows.append((f"CMS Alg. 2 at (ε, n, Λ) = ({eps:g}, {n}, {Lam:g}): recommended branch noise E‖b‖/d vs "
                         "diffprivlib", best.noise, dpl["noise_per_dim"], "noise"))
            rows.append(("  derived first branch (recommended before) noise vs diffprivlib", first.noise,
                         dpl["noise_per_dim"], "noise"))
            if dpl["Delta"] > 0 or best.regulariser > 0:
                rows.append(("  recommended branch's extra regulariser Δ vs diffprivlib's", best.regulariser,
                             dpl["Delta"], "Δ"))
        else:
            rows.append((f"CMS Alg. 2 at ({eps:g}, {n}, {Lam:g}) vs diffprivlib", math.nan, math.nan,
                         "not installed: " + p.get("diffprivlib_missing", "")))
    c1 = cal.calibrate("cms.alg1.beta", evidence=[], eps=1.0, n=50000, Lam=1e-3)
    rows.append(("CMS Alg. 1 rate β at (1, 50000, 1e-3) vs the paper's nΛε/2 (diffprivlib: none)",
                 c1.row("derived").noise, 50000 * 1e-3 * 1.0 / 2, "β"))

    w = max(len(r[0]) for r in rows)
    print(f"{'comparison':<{w}}  {'toolkit':>12}  {'peer':>12}  {'ratio':>8}  unit")
    for name, mine, peer, unit in rows:
        ratio = mine / peer if peer and math.isfinite(peer) else math.nan
        print(f"{name:<{w}}  {mine:>12.7g}  {peer:>12.7g}  {ratio:>8.5f}  {unit}")


if __name__ == "__main__":
    main()
