"""The auditor on the catalogue of mechanisms from the literature (issue 26, items 1, 2, 4, 5, 6).

For every mechanism of :mod:`audit_catalogue` (true ε on its pair known), at n = 10⁴ and 10⁵ releases
per data set over a few seeds: the verdict on the claimed ε, ε_lower and ε_lower / true ε, the output
kind and statistic the auditor used, and the trade-off-curve line (:mod:`verify.audit.tradeoff`).
Then the CLI on saved outputs (``verify audit --samples``) against the API on the same arrays, the
false-alarm rate on correct mechanisms claimed at their true ε over ≥ 1000 seeds, and the speed of a
scalar audit against a plain ``np.sort`` of the same sample.  A goal table ends the output; a goal
not met is printed as NOT met.

Goals (issue 26):

* every incorrect mechanism detected at 10⁴ (in every seed);
* median tightness (mean ε_lower / true ε over seeds) of the correct mechanisms ≥ 0.97 at 10⁵;
* Gaussian (1, 1e-5) ≥ 0.75 of its true ε at 10⁵ (the trade-off line's ε at δ under its stated
  assumption, an exactly Gaussian trade-off curve, which holds for the Gaussian mechanism);
* false-alarm rate ≤ α = 0.05 on each correct mechanism over ≥ 1000 seeds at 10⁴;
* ≥ 10⁶ releases per second for a scalar audit in process;
* the CLI reaching the same ε_lower as the API on saved outputs.

No assertions: ``make bench`` prints, tests never time (the false-alarm rate is also a slow-marked
test).  Run: ``python bench/bench_audit_catalogue.py [--quick]`` (``--quick``: 2 seeds, 200 false-alarm
seeds).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_catalogue import catalogue  # noqa: E402

from verify.audit import audit, audit_samples, audit_seed, laplace_releases  # noqa: E402
from verify.cli import main as cli_main  # noqa: E402

ALPHA = 0.05
FALSE_ALARM_MECHANISMS = ("Laplace", "randomized response", "report-noisy-max index (4 counts)",
                          "exponential mechanism (10 candidates)", "SVT Alg. 1 (Lyu et al. 2017)")


def run_catalogue(seeds: int) -> list[dict]:
    rows = []
    for e in catalogue():
        for n in (10**4, 10**5):
            res = [audit(e.release0, e.release1, n=n, seed=audit_seed(0, e.name, n, s), delta=e.delta,
                         claim_eps=e.claim_eps) for s in range(seeds)]
            low = np.array([r.eps_lower for r in res])
            tr = [r.tradeoff for r in res if r.tradeoff is not None]
            rows.append({"entry": e, "n": n, "lower": low, "detected": sum(r.verdict == "violated" for r in res),
                         "seeds": seeds, "kind": res[0].details["output"], "statistic": res[0].details["statistic"],
                         "event": res[0].details["event_kind"],
                         "tr_eps": float(np.mean([t.eps_lower for t in tr])) if tr else math.nan,
                         "tr_gdp": float(np.mean([t.eps_gdp for t in tr])) if tr else math.nan,
                         "tr_rejected": sum(t.gdp_rejected for t in tr)})
    return rows


def cli_vs_api(seeds: int) -> list[dict]:
    """Saved outputs through ``verify audit --samples`` and through :func:`audit_samples`, same seed."""
    out = []
    names = ("Laplace, noise clamped at ±8", "SVT Alg. 4 (Lee & Clifton 2014)", "SVT Alg. 3 (Roth 2011)")
    cat = {e.name: e for e in catalogue()}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            e = cat[name]
            n = 10**5 if "clamped" in name else 10**4
            for s in range(seeds):
                rng0, rng1 = (np.random.default_rng(c) for c in audit_seed(1, name, s).spawn(2))
                d0, d1 = e.release0(rng0, n), e.release1(rng1, n)
                f = Path(tmp) / "out.npz"
                np.savez(f, d0=d0, d1=d1)
                api = audit_samples(d0, d1, claim_eps=e.claim_eps, seed=s)
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    code = cli_main(["audit", "--samples", str(f), "--claim-eps", str(e.claim_eps), "--seed", str(s),
                                     "--json"])
                d = json.loads(buf.getvalue())
                out.append({"name": name, "n": n, "seed": s, "cli": d["eps_lower"], "api": api.eps_lower,
                            "cli_verdict": d["verdict"], "code": code, "kind": d["output"]})
    return out


def false_alarms(seeds: int) -> list[dict]:
    cat = {e.name: e for e in catalogue()}
    out = []
    for name in FALSE_ALARM_MECHANISMS:
        e = cat[name]
        t0 = time.perf_counter()
        over = sum(audit(e.release0, e.release1, n=10**4, seed=audit_seed(2, name, s), claim_eps=e.true_eps,
                         delta=e.delta, tradeoff=False).verdict == "violated" for s in range(seeds))
        out.append({"name": name, "alarms": over, "seeds": seeds, "seconds": time.perf_counter() - t0})
    return out


def speed() -> list[dict]:
    r0, r1 = laplace_releases(1.0)
    out = []
    for n in (10**5, 10**6):
        for tr in (False, True):
            audit(r0, r1, n=n, seed=0, tradeoff=tr)                 # warm (tables, imports)
            t0 = time.perf_counter()
            audit(r0, r1, n=n, seed=1, tradeoff=tr)
            ta = time.perf_counter() - t0
            x = np.concatenate([r0(np.random.default_rng(2), n), r1(np.random.default_rng(3), n)])
            t0 = time.perf_counter()
            np.sort(x)
            ts = time.perf_counter() - t0
            out.append({"n": n, "tradeoff": tr, "seconds": ta, "rate": 2 * n / ta, "sort": ts})
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    seeds, fa_seeds = (2, 200) if quick else (3, 1000)
    rows = run_catalogue(seeds)
    print(f"{'mechanism':<40} {'ok':>3} {'true ε':>7} {'n':>6} {'detected':>8} {'ε_lower':>8} {'(min)':>7} "
          f"{'/true':>6} {'ideal':>7} {'/ideal':>6} {'tr. ε':>7} {'tr. ε_GDP':>9}  output; event of seed 0; statistic")
    for r in rows:
        e = r["entry"]
        tight = r["lower"].mean() / e.true_eps if math.isfinite(e.true_eps) else math.nan
        ideal = e.ideal(r["n"])
        det = "" if e.correct else f"{r['detected']}/{r['seeds']}"
        print(f"{e.name:<40} {'yes' if e.correct else 'no':>3} {e.true_eps:>7.4f} {r['n']:>6.0e} {det:>8} "
              f"{r['lower'].mean():>8.4f} {r['lower'].min():>7.4f} {tight:>6.3f} {ideal:>7.4f} "
              f"{r['lower'].mean() / ideal if ideal > 0 else math.nan:>6.3f} {r['tr_eps']:>7.4f} "
              f"{r['tr_gdp']:>9.4f}  {r['kind']}; {r['event']}; {r['statistic']}")
    print("(ideal: the best ε_lower at n when the optimal event is known in advance, counts at their expectations, "
          "no selection split; nan where not computed. tr. ε: the trade-off line's ε_lower, valid for any mechanism; "
          "tr. ε_GDP: its ε at δ, a lower bound only if the trade-off curve is exactly Gaussian; means over seeds)")

    cli = cli_vs_api(seeds)
    print("\nsaved outputs: verify audit --samples (CLI) vs audit_samples (API), same arrays and seed")
    for c in cli:
        print(f"  {c['name']:<36} n = {c['n']:.0e} seed {c['seed']}: CLI ε_lower {c['cli']:.4f} ({c['cli_verdict']}, "
              f"{c['kind']}), API {c['api']:.4f}")

    fa = false_alarms(fa_seeds)
    print(f"\nfalse alarms: claim = the true ε on the pair, n = 1e4, {fa_seeds} seeds each (α = {ALPHA})")
    for f in fa:
        print(f"  {f['name']:<40} {f['alarms']:>4}/{f['seeds']} = {f['alarms'] / f['seeds']:.3f}  "
              f"({f['seconds'] / f['seeds'] * 1e3:.0f} ms per audit)")

    sp = speed()
    print("\nspeed: Laplace (scalar) audit in process vs np.sort of the same 2n values")
    for s in sp:
        print(f"  n = {s['n']:.0e} per data set, trade-off line {'on ' if s['tradeoff'] else 'off'}: "
              f"{s['seconds']:.3f} s = {s['rate']:.3g} releases/s; np.sort {s['sort']:.3f} s "
              f"(audit / sort = {s['seconds'] / s['sort']:.1f})")

    inc = [r for r in rows if r["n"] == 10**4 and not r["entry"].correct]
    missed = [f"{r['entry'].name} {r['detected']}/{r['seeds']}" for r in inc if r["detected"] < r["seeds"]]
    cor = [r["lower"].mean() / r["entry"].true_eps for r in rows if r["n"] == 10**5 and r["entry"].correct]
    med = float(np.median(cor))
    gauss = next(r for r in rows if r["n"] == 10**5 and r["entry"].name.startswith("Gaussian, analytic"))
    g_single = gauss["lower"].mean() / gauss["entry"].true_eps
    g_tr = gauss["tr_gdp"] / gauss["entry"].true_eps
    worst_fa = max(f["alarms"] / f["seeds"] for f in fa)
    rate = min(s["rate"] for s in sp if not s["tradeoff"])
    rate_tr = min(s["rate"] for s in sp if s["tradeoff"])
    same = all(abs(c["cli"] - c["api"]) <= 1e-12 for c in cli)
    goals = [
        ("every incorrect mechanism detected at 1e4 (every seed)",
         f"{sum(r['detected'] for r in inc)}/{sum(r['seeds'] for r in inc)} audits"
         + (f"; missed: {', '.join(missed)}" if missed else ""), not missed),
        ("median tightness of correct mechanisms >= 0.97 at 1e5", f"{med:.3f} (over {len(cor)}: "
         + ", ".join(f"{c:.3f}" for c in sorted(cor)) + ")", med >= 0.97),
        ("Gaussian (1, 1e-5) >= 0.75 of true eps at 1e5", f"trade-off line (exact-Gaussian assumption) {g_tr:.3f}; "
         f"single threshold {g_single:.3f}; trade-off, any mechanism {gauss['tr_eps'] / gauss['entry'].true_eps:.3f}",
         g_tr >= 0.75),
        (f"false-alarm rate <= {ALPHA} over >= 1000 seeds", f"worst {worst_fa:.3f} over {fa_seeds} seeds each",
         worst_fa <= ALPHA and fa_seeds >= 1000),
        (">= 1e6 releases/s, scalar audit in process", f"{rate:.3g}/s (trade-off line off), {rate_tr:.3g}/s (on)",
         rate >= 1e6),
        ("CLI on saved outputs = API", f"{sum(abs(c['cli'] - c['api']) <= 1e-12 for c in cli)}/{len(cli)} identical",
         same),
    ]
    clamp = [r for r in rows if r["entry"].name.startswith("Laplace, noise clamped")]
    goals.insert(1, ("clamped Laplace caught at 1e5 (every seed)", " ".join(
        f"{r['detected']}/{r['seeds']} at {r['n']:.0e};" for r in clamp), clamp[-1]["detected"] == clamp[-1]["seeds"]))
    ideal_ratio = [r["entry"].ideal(10**5) / r["entry"].true_eps for r in rows
                   if r["n"] == 10**5 and r["entry"].correct and math.isfinite(r["entry"].ideal(10**5))]
    print("\ngoal table")
    for g, v, ok in goals:
        print(f"  {'met    ' if ok else 'NOT met'}  {g}: {v}")
    print("context (not goals): the ideal at 1e5 (optimal event known in advance, expected counts) over true ε, for the "
          f"{len(ideal_ratio)} correct mechanisms where it is computed: median {np.median(ideal_ratio):.3f} ("
          + ", ".join(f"{x:.3f}" for x in sorted(ideal_ratio)) + f"); clamped Laplace at 1e4: ideal "
          f"{clamp[0]['entry'].ideal(10**4):.3f} (its event, probability e^-7/2 = 4.6e-4 on D′ and 0 on D, is below "
          "what 1e4 releases can detect)")


if __name__ == "__main__":
    main()
