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
    """``_laplace_into`` (uniforms + the compiled transform) gives ``Generator.laplace``'s bits and leaves the
    generator where ``laplace`` leaves it."""
    from simulations.private_erm import _laplace_into

    g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
    out = _laplace_into(g1, scale, np.empty(shape))
    assert _same(out, g2.laplace(0.0, scale, shape))
    assert g1.bit_generator.state == g2.bit_generator.state


def test_laplace_from_uniform_edges():
    """U = ½ (log 1 = 0), U just below ½, the extremes 2⁻⁵³ and 1 − 2⁻⁵³: NumPy's formula to the bit."""
    from simulations._loops_numba import laplace_from_uniform

    u = np.array([0.5, np.nextafter(0.5, 0), 2.0**-53, 1 - 2.0**-53, 0.25, 0.75])
    out = u.copy()
    laplace_from_uniform(out, 0.0, 1.7)
    ref = np.where(u >= 0.5, 0.0 - 1.7 * np.log(2.0 - u - u), 0.0 + 1.7 * np.log(u + u))
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
    compiled kernel is not called); on this machine the probe passes."""
    import simulations._loops_numba as L
    import simulations.private_erm as PE

    assert PE._md_entropy_compiled_ok() is True
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

    assert _trig_compiled_ok()                 # this machine: NumPy's cos/sin are libm's
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
