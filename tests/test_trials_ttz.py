"""ttz trials (issue 33): the buffered data step gives the bits of the per-chunk ``lasso_data`` it replaced."""

from __future__ import annotations

import numpy as np
import pytest

from simulations.private_erm import lasso_stats
from simulations.trials import ttz as T


def _reference_stats(n, p, theta0, noise, rng, chunk):
    """The previous code of ``lasso_data_stats``: a fresh ``lasso_data`` sample per chunk."""
    A, c, yy, left = np.zeros((p, p)), np.zeros(p), 0.0, n
    while left > 0:
        b = min(chunk, left)
        X, y = T.lasso_data(b, p, theta0, noise, rng)
        A += X.T @ X
        c += X.T @ y
        yy += float(y @ y)
        left -= b
    return A / n, c / n, yy / n


@pytest.mark.parametrize("n,p,chunk,theta0", [(1, 1, 5, [0.5]), (10, 3, 3, [0.5, -0.3, 0.2]), (1000, 5, 250, [0.5, -0.3, 0.2]),
                                              (1001, 5, 250, [0.9] * 7), (4000, 8, 10_000, [2.0, -1.0])])
def test_lasso_data_stats_bits(n, p, chunk, theta0):
    """Several chunks and a shorter last one, θ⁰ shorter and longer than p, clipped responses: the same
    float64 bits and the generator in the same state as the reference."""
    g1, g2 = np.random.default_rng(n), np.random.default_rng(n)
    A, c, yy = T.lasso_data_stats(n, p, theta0, 0.1, g1, chunk=chunk)
    A2, c2, yy2 = _reference_stats(n, p, theta0, 0.1, g2, chunk)
    assert A.tobytes() == A2.tobytes() and c.tobytes() == c2.tobytes() and np.float64(yy).tobytes() == np.float64(yy2).tobytes()
    assert g1.bit_generator.state == g2.bit_generator.state
    if n <= chunk:   # one chunk: the statistics of one lasso_data sample
        A3, c3, yy3 = lasso_stats(*T.lasso_data(n, p, theta0, 0.1, np.random.default_rng(n)))
        assert np.allclose(A, A3, rtol=1e-12) and np.allclose(c, c3, rtol=1e-12) and abs(yy - yy3) <= 1e-12


def test_md_linear_trial_matches_generic_mirror_descent():
    """md_linear_trial's excess per a equals a(1 − θ̄₁) of the generic private_mirror_descent on the same
    generator (the compiled linear path changes no number)."""
    from simulations.private_erm import private_mirror_descent

    for geometry in ("l2", "l1"):
        cfg = T.md_config(n=200, p=5, T=30, n_rep=3, geometry=geometry, a_grid=[0.01, 0.3, 1.0])
        out = T.md_linear_trial(cfg, np.random.default_rng(11))
        sigma, eta = T._md_setup(200, 5, 1.0, 1e-8, 30, geometry)
        a_n = np.array([out[f"a_{i}"] for i in range(3)])
        G = np.zeros((9, 5))
        G[:, 0] = -np.repeat(a_n, 3)
        th = private_mirror_descent(lambda t, G=G: G, 5, geometry, 30, eta, sigma, np.random.default_rng(11), n_rep=9)
        ex = (np.repeat(a_n, 3) * (1 - th[:, 0])).reshape(3, 3).mean(axis=1)
        assert [out[f"excess_{i}"] for i in range(3)] == [float(v) for v in ex]
