"""Compiled trial kernels against their NumPy reference implementations, bit for bit (issue 33).

* :func:`simulations.solvers.neighbour_grid_sup` (compiled: :mod:`simulations._scan_numba`), used by
  :func:`~simulations.solvers.neighbour_scan` and :func:`simulations.trials.jamp._scan_round`.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from simulations.kernels import PeriodicSobolevKernel  # noqa: E402
from simulations.solvers import (  # noqa: E402
    KLSFactor,
    _neighbour_grid_sup_numpy,
    neighbour_grid_sup,
    neighbour_scan,
)
from simulations.trials import jamp  # noqa: E402


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _random_args(rng: np.random.Generator, G: int, m: int, C: int, scale: float = 1.0):
    Q = rng.standard_normal((G, m)) * scale
    Kec, QK = rng.standard_normal((G, C)), rng.standard_normal((G, C))
    e, D = rng.standard_normal(m), 0.1 + rng.random(m)
    b, s = rng.standard_normal((m, C)), rng.standard_normal((m, C))
    return Q, Kec, QK, float(rng.uniform(0.01, 2.0)), e, b, s, D


# shapes around the slab width (64 columns of Q), single rows, single candidates, one grid point
SHAPES = [(1, 1, 1), (5, 3, 2), (17, 63, 4), (40, 64, 3), (33, 65, 5), (50, 130, 7), (200, 129, 2)]


@pytest.mark.parametrize("G,m,C", SHAPES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grid_sup_bit_identical_random(G, m, C, seed, monkeypatch):
    from simulations._compiled import compiled_module

    nb = compiled_module("_scan_numba")
    assert nb is not None                              # numba is importable (importorskip above)
    kernel, ran = nb.neighbour_grid_sup, []
    # record what the compiled kernel returned: a decline would silently give the NumPy result
    monkeypatch.setattr(nb, "neighbour_grid_sup", lambda *a: ran.append(kernel(*a)) or ran[-1])
    rng = np.random.default_rng([seed, G, m, C])
    args = _random_args(rng, G, m, C)
    fz = rng.standard_normal(G) * 1.5
    M = 0.8                                            # clipping active on part of the grid
    for extra in ((), (fz, M)):
        ran.clear()
        got = neighbour_grid_sup(*args, *extra)
        assert ran == [True]                           # the compiled path ran and did not decline
        ref = _neighbour_grid_sup_numpy(*args, *(extra or (None, None)))
        assert _same(got[0], ref[0])
        if extra:
            assert _same(got[1], ref[1])
            assert np.all(got[1] <= got[0] + 1e-15)  # clipping is 1-Lipschitz
        else:
            assert got[1] is None


def test_grid_sup_values_independent():
    """The sup is max_g |f_z − f_z̄| computed directly from the formula, one (j, c) at a time."""
    rng = np.random.default_rng(5)
    Q, Kec, QK, mu, e, b, s, D = _random_args(rng, 9, 6, 4)
    fz, M = rng.standard_normal(9), 0.5
    sup, clip = neighbour_grid_sup(Q, Kec, QK, mu, e, b, s, D, fz, M)
    for j in range(6):
        for c in range(4):
            diff = [Q[g, j] * ((e[j] - b[j, c] * s[j, c]) / D[j]) - ((Kec[g, c] - QK[g, c]) / mu) * b[j, c]
                    for g in range(9)]
            assert sup[j, c] == max(abs(d) for d in diff)
            cl = [abs(min(max(fz[g] - diff[g], -M), M) - min(max(fz[g], -M), M)) for g in range(9)]
            assert clip[j, c] == max(cl)


@pytest.mark.parametrize("bad", ["nan", "inf", "overflow"])
def test_grid_sup_declines_where_nan_can_arise(bad):
    """Non-finite factors or overflowing products: the NumPy path runs, NaN propagates as in NumPy."""
    rng = np.random.default_rng(3)
    Q, Kec, QK, mu, e, b, s, D = _random_args(rng, 8, 70, 3)
    if bad == "nan":
        Q[2, 5] = np.nan
    elif bad == "inf":
        b[4, 1] = np.inf
    else:
        s[1, :] = 0.0                                  # then diff[1, 1] of c = 0 is inf − inf = NaN
        Q[1, 1], e[1], Kec[1, 0], b[1, 0] = 1e200, 1e200, 1e200, 1e200
    fz, M = rng.standard_normal(8), 1.0
    with np.errstate(all="ignore"):
        got = neighbour_grid_sup(Q, Kec, QK, mu, e, b, s, D, fz, M)
        ref = _neighbour_grid_sup_numpy(Q, Kec, QK, mu, e, b, s, D, fz, M)
    assert _same(got[0], ref[0]) and _same(got[1], ref[1])
    assert np.isnan(got[0]).any()
    from simulations._scan_numba import neighbour_grid_sup as kernel
    sup, csup = np.empty((70, 3)), np.empty((70, 3))
    assert not kernel(Q, Kec, QK, mu, e, b, s, D, fz, M, True, sup, csup)


def test_grid_sup_large_finite_values_are_taken():
    """Large but safe magnitudes stay on the compiled path and agree bit for bit."""
    rng = np.random.default_rng(4)
    args = _random_args(rng, 30, 80, 3, scale=1e150)
    from simulations._scan_numba import neighbour_grid_sup as kernel
    sup, csup = np.empty((80, 3)), np.empty((0, 0))
    assert kernel(*args, np.empty(0), 0.0, False, sup, csup)
    assert _same(sup, _neighbour_grid_sup_numpy(*args, None, None)[0])


def _circle(m: int, seed: int):
    K = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.0)
    rng = np.random.default_rng(seed)
    x = rng.random(m)
    y = np.clip(np.sin(2 * np.pi * x) + 0.1 * rng.standard_normal(m), -1.1, 1.1)
    return K, x, y


@pytest.mark.parametrize("m,lam,C,G", [(30, 0.1, 12, 40), (90, 0.01, 33, 150), (150, 0.001, 8, 70)])
def test_neighbour_scan_compiled_equals_numpy(m, lam, C, G):
    K, x, y = _circle(m, m)
    xc = np.linspace(0, 1, C, endpoint=False)
    yc = np.tile([-1.1, 1.1], C)[:C]
    grid = (np.arange(G) + 0.5) / G
    F = KLSFactor(K(x), lam)
    kw = {"K_eval": K(grid, x), "K_eval_cand": K(grid, xc)}
    a = neighbour_scan(F, y, lam, K(xc, x), K.diag(xc), yc, **kw)
    b = neighbour_scan(F, y, lam, K(xc, x), K.diag(xc), yc, compiled=False, **kw)
    e = neighbour_scan(F, y, lam, K(xc, x), K.diag(xc), yc, return_eval=True, **kw)
    assert _same(a.sup_dist, b.sup_dist) and _same(a.rkhs_dist, b.rkhs_dist)
    assert _same(a.sup_dist, e.sup_dist)               # the return_eval loop (NumPy) agrees too
    # the sup is that of the returned neighbour functions on the grid
    direct = np.max(np.abs(e.f_eval - e.f_eval_z[None, None, :]), axis=2)
    np.testing.assert_allclose(a.sup_dist, direct, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("m,lam,seed", [(20, 0.1, 0), (70, 0.01, 1), (130, 0.1, 2)])
def test_jamp_scan_round_compiled_equals_numpy(m, lam, seed):
    K, x, y = _circle(m, seed)
    F = KLSFactor(K(x), lam)
    cx = np.repeat(np.linspace(0.01, 0.99, 11), 2)
    cy = np.tile([-1.1, 1.1], 11)
    a = jamp._scan_round(F, x, y, K, 1.1, cx, cy, 64, engine_sup=True)
    b = jamp._scan_round(F, x, y, K, 1.1, cx, cy, 64, engine_sup=True, compiled=False)
    assert sorted(a) == sorted(b) == ["clip", "rkhs", "sup", "sup_engine"]
    for k in a:
        assert _same(a[k], b[k]), k
    assert _same(a["sup"], a["sup_engine"])


def test_adversarial_search_compiled_equals_numpy():
    """The whole search (every round, the refits) gives the same numbers on both paths."""
    K, x, y = _circle(60, 7)
    y = 1.1 * np.sign(y)
    a = jamp.adversarial_search(x, y, 0.05, K, 1.1, n_search=16, rounds=2, n_fine=2**10)
    b = jamp.adversarial_search(x, y, 0.05, K, 1.1, n_search=16, rounds=2, n_fine=2**10, compiled=False)
    assert a.worst == b.worst
    assert (a.clip_ratio, a.n_pairs, a.consistency, a.details) == (b.clip_ratio, b.n_pairs, b.consistency,
                                                                  b.details)
    assert a.consistency == 0.0


# --------------------------------------------------------------------------------------
# sobolev_gram: the vectorised pass for points in [0, 1) (simulations._loops_numba)
# --------------------------------------------------------------------------------------
_EDGE = np.array([0.0, 5e-324, 1e-300, 1e-17, 2.0**-54, 2.0**-53, 0.25, 0.5 - 2.0**-54, 0.5, 0.5 + 2.0**-53,
                  0.75, 1 - 2.0**-52, 1 - 2.0**-53])


@pytest.mark.parametrize("s", [1, 2, 3, 6])
@pytest.mark.parametrize("n,k,seed", [(1, 1, 0), (13, 0, 1), (40, 7, 2), (257, 130, 3)])
def test_sobolev_gram_unit_path_equals_numpy(s, n, k, seed):
    """Points in [0, 1) (the edges where v + 1 rounds to 1, ±0, the fold at ½ included): the vectorised
    loop, the general fmod loop and the NumPy profile agree bit for bit."""
    from simulations._loops_numba import (
        _in_unit,
        _sobolev_gram_any,
        _sobolev_gram_unit,
        sobolev_gram,
    )
    from simulations.kernels import CircleKernelBase, _bernoulli_coeffs, _closed_form_prefactor

    rng = np.random.default_rng(seed)
    a = np.concatenate([_EDGE, rng.random(n)])
    b = a if k == 0 else np.concatenate([rng.random(k), _EDGE[::-1]])
    assert _in_unit(a) and _in_unit(b)
    K = PeriodicSobolevKernel.with_kappa(s=s, kappa=1.3)
    args = (np.array(_bernoulli_coeffs(2 * s)), _closed_form_prefactor(s), K.mu0, K.scale)
    ref = CircleKernelBase.__call__(K, a, b)           # NumPy: np.mod twice, the profile's polynomial
    for got in (_sobolev_gram_unit(a, b, *args), _sobolev_gram_any(a, b, *args), sobolev_gram(a, b, *args)):
        assert _same(got, ref)


def test_sobolev_gram_outside_unit_takes_general_path():
    """A point outside [0, 1) (1.0, a negative, NaN) is not the vectorised loop's domain."""
    from simulations._loops_numba import _in_unit, _sobolev_gram_any, sobolev_gram
    from simulations.kernels import CircleKernelBase, _bernoulli_coeffs, _closed_form_prefactor

    assert not _in_unit(np.array([0.5, 1.0])) and not _in_unit(np.array([-0.0 - 1e-300]))
    assert not _in_unit(np.array([np.nan]))
    K = PeriodicSobolevKernel.with_kappa(s=2, kappa=1.0)
    args = (np.array(_bernoulli_coeffs(4)), _closed_form_prefactor(2), K.mu0, K.scale)
    a = np.array([0.0, 0.3, 1.0, 1.7, -0.2, -1e-300])
    ref = CircleKernelBase.__call__(K, a, a)   # reduces a into [0, 1] first, as the kernel does
    b = np.mod(a, 1.0)
    assert _same(sobolev_gram(b, b, *args), ref) and _same(_sobolev_gram_any(b, b, *args), ref)
    assert _same(sobolev_gram(a, a, *args), _sobolev_gram_any(a, a, *args))


# --------------------------------------------------------------------------------------
# sobolev1_eval (jamp): the compiled pass (simulations._loops_numba)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 9, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 1000, 1601, 8192,
                               8193, 20011])
def test_pairwise_sum_is_numpy_sum(n):
    """NumPy's pairwise summation, reproduced: the same float for every length (block edges included)."""
    from simulations._loops_numba import pairwise_sum

    rng = np.random.default_rng(n)
    for scale in (1.0, 1e-290, 1e280):
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n) * scale
        assert _same(np.float64(pairwise_sum(x)), np.float64(np.sum(x)))
    assert _same(np.float64(pairwise_sum(np.full(n, -0.0))), np.float64(np.sum(np.full(n, -0.0))))


@pytest.mark.parametrize("m,n,seed", [(0, 5, 0), (1, 1, 1), (3, 7, 2), (60, 200, 3), (401, 1024, 4),
                                      (3200, 300, 5)])
def test_sobolev1_eval_compiled_equals_numpy(m, n, seed):
    """Σα_i K(c_i, t) for s = 1: the compiled pass and the NumPy reference give the same bits, with and
    without a plan, for points at 0 and ties between centres and evaluation points."""
    K = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.3)
    rng = np.random.default_rng(seed)
    c = rng.random(m)
    if m > 2:
        c[:2] = [0.0, c[2]]                            # a point at 0 and a tied centre
    t = np.concatenate([rng.random(n), c[: min(m, 5)], [0.0, 0.5]])
    for alpha in (rng.standard_normal(m), np.full(m, -0.0), rng.standard_normal(m) * 1e200):
        ref = jamp.sobolev1_eval(K, c, alpha, t, compiled=False)
        assert _same(jamp.sobolev1_eval(K, c, alpha, t), ref)
        plan = jamp._sobolev1_plan(c, t)
        assert _same(jamp.sobolev1_eval(K, c, alpha, t, plan=plan), ref)
    a2 = rng.standard_normal((m, 2))[:, 1]             # a non-contiguous coefficient vector
    assert _same(jamp.sobolev1_eval(K, c, a2, t), jamp.sobolev1_eval(K, c, a2, t, compiled=False))


@pytest.mark.parametrize("m,seed", [(1, 0), (8, 1), (129, 2), (200, 3), (1601, 4)])
def test_hinge_row_means_equals_numpy(m, seed):
    """The SVM trial's empirical hinge risk per noise draw: compiled rows equal NumPy's mean, bit for bit
    (margins exactly 1, a zero draw, ±0 and a NaN included)."""
    from simulations._loops_numba import hinge_row_means

    rng = np.random.default_rng(seed)
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    fx = rng.standard_normal(m)
    fx[0] = y[0]                                      # 1 − y f = 0 exactly
    b = np.concatenate([[0.0, -0.0, np.nan, 1e300], rng.laplace(0.0, 0.3, 300)])
    with np.errstate(all="ignore"):
        ref = np.mean(np.maximum(0.0, 1 - y[None, :] * (fx[None, :] + b[:, None])), axis=1)
    assert _same(hinge_row_means(y, fx, b), ref)


@pytest.mark.parametrize("n,k,seed", [(1, 1, 0), (65, 0, 1), (130, 300, 2)])
def test_jcc_gram_compiled_equals_numpy(n, k, seed):
    """jcc's s = 1 Gram (compiled pass vs the NumPy blocks), into a fresh array and into a reused flat
    buffer, with points at 0, near 1 and outside [0, 1)."""
    from simulations.trials import jcc

    rng = np.random.default_rng(seed)
    x = np.concatenate([[0.0, 1 - 2.0**-53, -0.25, 1.5], rng.random(n)])
    z = None if k == 0 else np.concatenate([rng.random(k), [0.0, 2.0**-60]])
    K = jcc.sobolev(1.3)
    ref = jcc.gram(K, x, z, compiled=False)
    assert _same(jcc.gram(K, x, z), ref)
    buf = np.full(x.size * (x.size if z is None else z.size) + 5, np.nan)
    assert _same(jcc.gram(K, x, z, out=buf), ref)


# --------------------------------------------------------------------------------------
# ttz: Laplace noise from uniforms, mirror descent with a constant gradient (simulations._loops_numba)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,scale,seed", [((0,), 1.0, 0), ((1,), 0.3, 1), ((7, 3), 1e-3, 2), ((500, 10, 10), 2.5, 3),
                                              ((1 << 16,), 1e6, 4)])
def test_laplace_into_equals_generator_laplace(shape, scale, seed):
    """``_laplace_into`` gives ``Generator.laplace``'s bits and leaves the generator where ``laplace`` leaves it
    (whichever path the probe chose); where the probe passes, so does the compiled transform itself."""
    from simulations.private_erm import _laplace_compiled_ok, _laplace_into, _laplace_into_compiled

    fills = [_laplace_into] + ([_laplace_into_compiled] if _laplace_compiled_ok() else [])
    for fill in fills:
        g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
        out = fill(g1, scale, np.empty(shape))
        assert _same(out, g2.laplace(0.0, scale, shape))
        assert g1.bit_generator.state == g2.bit_generator.state


def test_laplace_from_uniform_edges():
    """U = ½ (log 1 = 0), U just below ½, the extremes 2⁻⁵³ and 1 − 2⁻⁵³: NumPy's C formula (libm's ``log``,
    as CPython's ``math.log``) to the bit, where the probe finds the compiled ``log`` libm's."""
    import math

    from simulations._loops_numba import laplace_from_uniform
    from simulations.private_erm import _laplace_compiled_ok

    if not _laplace_compiled_ok():
        pytest.skip("the compiled log is not libm's here (probe False): _laplace_into uses Generator.laplace")
    u = np.array([0.5, np.nextafter(0.5, 0), 2.0**-53, 1 - 2.0**-53, 0.25, 0.75])
    out = u.copy()
    laplace_from_uniform(out, 0.0, 1.7)
    ref = np.array([0.0 - 1.7 * math.log(2.0 - x - x) if x >= 0.5 else 0.0 + 1.7 * math.log(x + x) for x in u])
    assert _same(out, ref)
    assert out[0] == 0.0 and not np.signbit(out[0])


class _ZeroFirst(np.random.Generator):
    """A generator whose ``random`` puts a 0 at the first place (as a 2⁻⁵³-probability draw would)."""

    def random(self, *args, **kwargs):  # type: ignore[override]
        out = super().random(*args, **kwargs)
        np.asarray(out).reshape(-1)[0] = 0.0
        return out


def test_laplace_into_falls_back_on_a_zero_uniform():
    """A uniform equal to 0 makes ``laplace`` draw again (the stream shifts): the generator is rewound and
    ``laplace`` fills the array, so the values and the final state are ``laplace``'s."""
    from simulations.private_erm import _laplace_into

    g = _ZeroFirst(np.random.PCG64(9))
    out = _laplace_into(g, 0.4, np.empty((20, 4)))
    ref = np.random.Generator(np.random.PCG64(9))
    assert _same(out, ref.laplace(0.0, 0.4, (20, 4)))
    assert g.bit_generator.state == ref.bit_generator.state


@pytest.mark.parametrize("geometry", ["l2", "l1", "simplex"])
@pytest.mark.parametrize("R,p,T,radius,sigma", [(1, 1, 1, 1.0, 0.5), (3, 2, 7, 1.0, 0.0), (5, 7, 30, 2.0, 1.3),
                                                 (4, 9, 25, 1.0, 3.0), (2, 64, 12, 0.5, 0.7), (3, 65, 9, 1.0, 0.2),
                                                 (2, 130, 5, 1.0, 1.0)])
def test_md_linear_compiled_equals_numpy(geometry, R, p, T, radius, sigma, monkeypatch):
    """Mirror descent with constant gradients: the compiled steps (noise drawn in blocks) give the NumPy loop's
    bits and the same final generator state, for widths across the pairwise-sum block edges (2p > 128) and
    blocks of a few steps."""
    import simulations.private_erm as PE

    monkeypatch.setattr(PE, "MD_NOISE_BLOCK", 3 * R * p)     # several blocks, a shorter last one
    rng = np.random.default_rng(R * 1000 + p)
    G = rng.standard_normal((R, p)) * rng.choice([0.0, 1.0, 50.0], (R, p))
    eta = float(rng.uniform(0.01, 2.0))
    g1, g2 = np.random.default_rng(p), np.random.default_rng(p)
    a = PE.private_mirror_descent_linear(G, geometry, T, eta, sigma, g1, radius=radius)
    b = PE.private_mirror_descent(lambda th: G, p, geometry, T, eta, sigma, g2, n_rep=R, radius=radius)
    assert _same(a, b)
    assert g1.bit_generator.state == g2.bit_generator.state
    c = PE.private_mirror_descent_linear(G, geometry, T, eta, sigma, np.random.default_rng(p), radius=radius,
                                         compiled=False)
    assert _same(c, b)


def test_md_linear_large_steps_and_inside_ball():
    """Steps that leave the ℓ2 ball (projection) and steps that stay inside it (factor 1), exp of large
    negative log-weights (underflow to 0) in the entropy geometries: still NumPy's bits."""
    import simulations.private_erm as PE

    G = np.array([[-1.0, 0.0, 0.0], [1e-3, 0.0, 0.0], [0.0, 0.0, 0.0]])
    for geometry, eta, sigma in (("l2", 5.0, 2.0), ("l2", 1e-4, 1e-3), ("l1", 400.0, 5.0), ("simplex", 300.0, 4.0)):
        a = PE.private_mirror_descent_linear(G, geometry, 40, eta, sigma, np.random.default_rng(1))
        b = PE.private_mirror_descent(lambda th: G, 3, geometry, 40, eta, sigma, np.random.default_rng(1), n_rep=3)
        assert _same(a, b), geometry


def test_md_entropy_probe_decides_the_path(monkeypatch):
    """Where the probe finds NumPy's exp/log differ from libm's, the entropy geometries run the NumPy loop (the
    compiled kernel is not called); ℓ2 stays compiled."""
    import simulations._loops_numba as L
    import simulations.private_erm as PE

    monkeypatch.setattr(PE, "_MD_ENTROPY_OK", [False])
    calls = []
    monkeypatch.setattr(L, "md_linear_steps", lambda *a: calls.append(a))
    G = np.ones((2, 3))
    a = PE.private_mirror_descent_linear(G, "l1", 5, 0.1, 0.2, np.random.default_rng(0))
    assert calls == [] and _same(a, PE.private_mirror_descent(lambda th: G, 3, "l1", 5, 0.1, 0.2,
                                                              np.random.default_rng(0), n_rep=2))
    PE.private_mirror_descent_linear(G, "l2", 5, 0.1, 0.2, np.random.default_rng(0))
    assert len(calls) == 1          # ℓ2 (no exp/log) stays compiled


# --------------------------------------------------------------------------------------
# trigonometric series: the compiled cos/sin table of simulations.data.evaluate_series
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,seed", [(1, 0), (64, 1), (3000, 2)])
def test_trig_phase_table_equals_numpy(n, seed):
    """cos/sin of 2π(t k mod 1) compiled and by NumPy's steps: the same bits for points in [0, 1), on the
    2⁻⁵³ grid, negative and large, frequencies 0…40 and 2^j up to 2^40 (exact phases, remainders 0)."""
    from simulations.data import _trig_compiled_ok, _trig_table

    if not _trig_compiled_ok():
        pytest.skip("NumPy's cos/sin are not libm's here (probe False): evaluate_series keeps NumPy's steps")
    g = np.random.default_rng(seed)
    t = np.concatenate([g.random(n), [0.0, -0.0, 0.5, 2.0**-53, 1 - 2.0**-53], g.uniform(-50.0, 50.0, n),
                        g.uniform(-1e9, 1e9, 8)])
    k = np.concatenate([np.arange(41.0), 2.0 ** np.arange(41, 45), [0.5, -3.0]])
    (c0, s0), (c1, s1) = _trig_table(t, k, False), _trig_table(t, k, True)
    assert _same(c0, c1) and _same(s0, s1)


def test_evaluate_series_compiled_equals_numpy(monkeypatch):
    """evaluate_series (three series sharing frequencies, chunks of 100 points) gives the same values with the
    compiled table and with NumPy's steps; non-finite points take the NumPy steps."""
    import simulations.data as D

    f = D.TrigSeries([0, 1, 2, 4, 8, 1024], cos=[0.5, 1.0, 0.0, 0.2, -0.1, 1e-3], sin=[0.0, -0.3, 0.7, 0.1, 0.05, 2e-3])
    series = [f, f.multiply([1.0, 0.5, 0.25, 0.1, 0.05, 0.01]), D.TrigSeries([3], cos=[1.0], sin=[2.0])]
    x = np.random.default_rng(5).random(1001)
    got = D.evaluate_series(series, x, chunk=100)
    monkeypatch.setattr(D, "_TRIG_COMPILED_MIN", 10**12)            # NumPy's steps only
    ref = D.evaluate_series(series, x, chunk=100)
    assert all(_same(a, b) for a, b in zip(got, ref, strict=True))
    monkeypatch.setattr(D, "_TRIG_COMPILED_MIN", 0)
    calls = []
    monkeypatch.setattr(D, "_trig_table", lambda t, k, compiled: calls.append(compiled) or (np.cos(np.outer(t, k)),) * 2)
    D.evaluate_series(series[:1], np.array([0.1, np.nan]))
    assert calls == [False]


# --------------------------------------------------------------------------------------
# utility trial: mean held-out risk over the noise draws (simulations._loops_numba.noise_risk_mean)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,m,seed", [(1, 1, 0), (7, 9, 1), (1000, 133, 2), (300, 171, 3), (129, 257, 4)])
@pytest.mark.parametrize("loss", ["square", "zero_one"])
def test_noise_risk_equals_numpy(n, m, seed, loss):
    """The compiled mean risk of f + s·b equals ``np.mean(_risk(f[None, :] + s * b, y, loss))`` to the bit, for
    regression targets and ±1 labels, values exactly at 0 and NaN in f."""
    from simulations.trials.utility import _noise_risk, _risk

    g = np.random.default_rng(seed)
    f = g.standard_normal(m) * 3
    y = g.standard_normal(m) if loss == "square" else np.where(g.random(m) < 0.5, 1.0, -1.0)
    b = g.laplace(0.0, 1.0, (n, 1))
    if m > 3:
        f[0], f[1] = 0.0, -0.0
        b[0, 0] = -f[2]                       # f_2 + s·b_0 = 0 exactly
        f[3] = np.nan
    for s in (1.0, 0.37, 1e-9, 250.0):
        ref = float(np.mean(_risk(f[None, :] + s * b, y, loss)))
        got = _noise_risk(f, y, s * b, loss)
        assert np.float64(got).tobytes() == np.float64(ref).tobytes() or (np.isnan(got) and np.isnan(ref))
        if m > 3:                             # without the NaN
            f2 = f.copy()
            f2[3] = 0.5
            assert np.float64(_noise_risk(f2, y, s * b, loss)).tobytes() == \
                np.float64(float(np.mean(_risk(f2[None, :] + s * b, y, loss)))).tobytes()


# --------------------------------------------------------------------------------------
# the libm probes: a kernel one ULP off (or numba with SVML) makes the probe say False and the NumPy path run
# --------------------------------------------------------------------------------------
_TINY = np.finfo(float).tiny


class _NumpyShim:
    """``numpy`` as a module sees it, with some ufuncs replaced (the probing module's ``np``)."""

    def __init__(self, **over):
        self.__dict__.update(over)

    def __getattr__(self, name):
        return getattr(np, name)


def _up(r, where):
    """r moved one ULP up where ``where``."""
    r = np.asarray(r)
    return np.where(where, np.nextafter(r, np.inf), r)


def _nudged(f, pick):
    def g(x, *a, **k):
        r = f(x, *a, **k)
        return _up(r, pick(np.asarray(x), r))
    return g


@pytest.mark.parametrize("which", ["all", "edges"])
def test_laplace_probe_false_when_the_transform_is_one_ulp_off(which, monkeypatch):
    """A compiled transform one ULP off — on every value, or only on the edge uniforms below 2⁻⁴⁰ (which 10⁵
    random draws almost never reach) — makes the probe False; ``_laplace_into`` then fills from
    ``Generator.laplace`` (the transform is not called again) and FW gives the NumPy loop's bits."""
    import simulations._loops_numba as L
    import simulations.private_erm as PE

    real = L.laplace_from_uniform
    calls = []

    def off(u, loc, scale):
        small = u < 2.0**-40
        real(u, loc, scale)
        calls.append(u.size)
        u[...] = _up(u, True if which == "all" else small)

    monkeypatch.setattr(L, "laplace_from_uniform", off)
    monkeypatch.setattr(PE, "_LAPLACE_OK", [])
    assert PE._laplace_compiled_ok() is False
    n_calls = len(calls)
    g1, g2 = np.random.default_rng(11), np.random.default_rng(11)
    assert _same(PE._laplace_into(g1, 0.8, np.empty((300, 7))), g2.laplace(0.0, 0.8, (300, 7)))
    assert g1.bit_generator.state == g2.bit_generator.state
    A, c = np.eye(3) + 0.1, np.array([0.5, -0.2, 0.1])
    a = PE.private_fw_lasso(A, c, 40, 0.05, np.random.default_rng(4), n_rep=5)
    b = PE.private_fw_lasso(A, c, 40, 0.05, np.random.default_rng(4), n_rep=5, compiled=False)
    assert _same(a, b) and len(calls) == n_calls


def test_laplace_probe_true_for_the_real_transform_and_cached(monkeypatch):
    """The real transform passes the probe where numba does not use SVML; the answer is kept per process."""
    import simulations.private_erm as PE

    monkeypatch.setattr(PE, "_LAPLACE_OK", [])
    first = PE._laplace_compiled_ok()
    assert PE._LAPLACE_OK == [first] and PE._laplace_compiled_ok() is first
    if not first:
        pytest.skip("the compiled log is not libm's here (probe False)")


def test_svml_keeps_the_numpy_paths(monkeypatch):
    """With ``numba.config.USING_SVML`` true the three probes say False without running, and the results are
    NumPy's (Laplace noise, entropy mirror descent, the cos/sin table)."""
    import numba

    import simulations._loops_numba as L
    import simulations.data as D
    import simulations.private_erm as PE

    monkeypatch.setattr(numba.config, "USING_SVML", True, raising=False)
    assert L.numba_uses_svml() is True
    for mod, name in ((PE, "_LAPLACE_OK"), (PE, "_MD_ENTROPY_OK"), (D, "_TRIG_OK")):
        monkeypatch.setattr(mod, name, [])
    calls = []
    for kernel in ("laplace_from_uniform", "md_linear_steps", "trig_phase_table"):
        monkeypatch.setattr(L, kernel, lambda *a, _k=kernel: calls.append(_k))
    assert (PE._laplace_compiled_ok(), PE._md_entropy_compiled_ok(), D._trig_compiled_ok()) == (False, False, False)
    assert calls == []
    out = PE._laplace_into(np.random.default_rng(2), 1.5, np.empty(1000))
    assert _same(out, np.random.default_rng(2).laplace(0.0, 1.5, 1000))
    G = np.random.default_rng(3).standard_normal((4, 5))
    a = PE.private_mirror_descent_linear(G, "simplex", 30, 0.4, 0.3, np.random.default_rng(5))
    b = PE.private_mirror_descent(lambda th: G, 5, "simplex", 30, 0.4, 0.3, np.random.default_rng(5), n_rep=4)
    x = np.random.default_rng(6).random(500)
    f = D.TrigSeries([0, 1, 3, 64], cos=[0.5, 1.0, 0.2, 0.1], sin=[0.0, -0.3, 0.7, 0.05])
    (y,) = D.evaluate_series([f], x)
    monkeypatch.setattr(D, "_TRIG_COMPILED_MIN", 10**12)
    (y0,) = D.evaluate_series([f], x)
    assert _same(a, b) and _same(y, y0) and calls == []


_EXP_PICKS = {
    "all": lambda x, r: np.ones(r.shape, bool),
    # exp of −708.4 … −745.13 only, and only on even bit patterns (a uniform shift of all subnormals would
    # cancel in ℓ1's θ = w₊ − w₋: their ULP is one constant)
    "subnormal results": lambda x, r: (r > 0) & (r < _TINY) & (np.asarray(r, float).view(np.int64) % 2 == 0),
    "log": None,
}


@pytest.mark.parametrize("which", list(_EXP_PICKS))
def test_md_entropy_probe_false_when_numpy_exp_or_log_is_one_ulp_off(which, monkeypatch):
    """NumPy's ``np.exp`` (as ``private_erm`` sees it) one ULP up — everywhere, or only where the result is
    subnormal, which the probe's 40 moderate steps alone never produce — or ``np.log`` one ULP up: the probe
    says False, the compiled kernel is not called for the entropy geometries, and the result is the NumPy
    loop's (with that ``np``)."""
    import simulations._loops_numba as L
    import simulations.private_erm as PE

    if which == "log":
        shim = _NumpyShim(log=_nudged(np.log, lambda x, r: np.ones(r.shape, bool)))
    else:
        shim = _NumpyShim(exp=_nudged(np.exp, _EXP_PICKS[which]))
    monkeypatch.setattr(PE, "np", shim)
    monkeypatch.setattr(PE, "_MD_ENTROPY_OK", [])
    assert PE._md_entropy_compiled_ok() is False
    calls = []
    monkeypatch.setattr(L, "md_linear_steps", lambda *a: calls.append(a))
    G = np.array([[700.0, 0.0, 3.0], [0.5, -0.25, 720.0]])
    for geometry in ("l1", "simplex"):
        a = PE.private_mirror_descent_linear(G, geometry, 6, 1.0, 0.01, np.random.default_rng(8))
        b = PE.private_mirror_descent(lambda th: G, 3, geometry, 6, 1.0, 0.01, np.random.default_rng(8), n_rep=2)
        assert _same(a, b)
    assert calls == []


def test_md_entropy_probe_reaches_extreme_exp_arguments(monkeypatch):
    """The probe's NumPy side calls ``np.exp`` on log-weights below −745.13 (result 0), in the subnormal range,
    below −10³ and at 0 — recorded through the module's ``np``."""
    import simulations.private_erm as PE

    seen = []

    def rec(x, *a, **k):
        seen.append(np.array(x, dtype=float).ravel())
        return np.exp(x, *a, **k)

    monkeypatch.setattr(PE, "np", _NumpyShim(exp=rec))
    monkeypatch.setattr(PE, "_MD_ENTROPY_OK", [])
    PE._md_entropy_compiled_ok()
    if not seen:
        pytest.skip("the probe did not run (numba with SVML)")
    x = np.concatenate(seen)
    r = np.exp(x)
    assert ((r > 0) & (r < _TINY)).sum() >= 30 and (x < -745.14).sum() >= 30 and (x < -1e3).any()
    assert (x == 0).any() and x.max() <= 0.0


_TRIG_PICKS = {
    "cos all": ("cos", lambda x, r: np.ones(r.shape, bool)),
    "cos near 2π": ("cos", lambda x, r: x > 2 * np.pi - 1e-9),
    "sin subnormal": ("sin", lambda x, r: (r != 0) & (np.abs(r) < _TINY)),
}


@pytest.mark.parametrize("which", list(_TRIG_PICKS))
def test_trig_probe_false_when_numpy_cos_or_sin_is_one_ulp_off(which, monkeypatch):
    """NumPy's ``np.cos`` / ``np.sin`` (as ``simulations.data`` sees them) one ULP up — everywhere, only for
    phases just below 2π, or only for subnormal sines — makes the probe False; ``evaluate_series`` then builds
    the table by NumPy's steps (the compiled table is not called) and gives their values."""
    import simulations._loops_numba as L
    import simulations.data as D

    name, pick = _TRIG_PICKS[which]
    monkeypatch.setattr(D, "np", _NumpyShim(**{name: _nudged(getattr(np, name), pick)}))
    monkeypatch.setattr(D, "_TRIG_OK", [])
    assert D._trig_compiled_ok() is False
    calls = []
    monkeypatch.setattr(L, "trig_phase_table", lambda *a: calls.append(a))
    f = D.TrigSeries([0, 1, 2, 1024], cos=[0.5, 1.0, 0.2, 0.1], sin=[0.0, -0.3, 0.7, 0.05])
    x = np.random.default_rng(9).random(700)
    (y,) = D.evaluate_series([f], x)
    monkeypatch.setattr(D, "_TRIG_COMPILED_MIN", 10**12)
    (y0,) = D.evaluate_series([f], x)
    assert _same(y, y0) and calls == []


def test_evaluate_series_overflowing_products_take_numpy_steps(monkeypatch):
    """Finite points whose products t·k overflow (np.mod(inf, 1) is a NaN whose sign the compiled % does not
    give) take NumPy's steps: the same bytes, NaNs included, as with NumPy's steps forced."""
    import simulations.data as D

    f = D.TrigSeries([0, 1, 1 << 20], cos=[0.5, 1.0, 0.1], sin=[0.0, -0.3, 0.05])
    x = np.concatenate([np.random.default_rng(10).random(200), [1e303, -1e303, 0.5]])
    assert D._products_finite(x[:200], [f.freqs]) and not D._products_finite(x, [f.freqs])
    with np.errstate(all="ignore"):
        (y,) = D.evaluate_series([f], x)
        monkeypatch.setattr(D, "_TRIG_COMPILED_MIN", 10**12)
        (y0,) = D.evaluate_series([f], x)
    assert _same(y, y0) and np.isnan(y[200])


@pytest.mark.parametrize("out", [np.empty((4, 6))[:, ::2], np.empty((5, 3)).T, np.empty(4, dtype=np.float32),
                                 [0.0, 1.0]])
def test_laplace_into_rejects_non_contiguous_out(out):
    """``out`` must be a C-contiguous float64 array (the uniforms are drawn into its memory in C order)."""
    from simulations.private_erm import _laplace_into

    g = np.random.default_rng(0)
    state = g.bit_generator.state
    with pytest.raises(ValueError, match="parameter 'out'"):
        _laplace_into(g, 1.0, out)
    assert g.bit_generator.state == state
