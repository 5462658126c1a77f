"""Compiled (numba) inner loops whose NumPy twins are bound by per-step Python overhead.

* :func:`fw_l1_steps` — steps of private Frank–Wolfe on the ℓ1 ball from sufficient statistics
  (:func:`simulations.private_erm.private_fw_lasso`), given the Laplace noise of a block of steps;
* :func:`sobolev_gram` — the Gram matrix of a circle kernel whose profile is a polynomial in the
  folded distance min(d, 1 − d) (:class:`simulations.kernels.PeriodicSobolevKernel` with a
  closed-form Bernoulli profile);
* :func:`sobolev1_eval_sorted` — Σ_i α_i K(c_i, t) for the s = 1 Sobolev kernel from prefix sums
  over the sorted centres (:func:`simulations.trials.jamp.sobolev1_eval`, called hundreds of times
  per conjugate-gradient fit), in one pass without its ten temporaries;
* :func:`hinge_row_means` — the SVM trial's empirical hinge risk for every noise draw;
* :func:`laplace_from_uniform` — NumPy's ``Generator.laplace`` from the uniforms it would draw
  (``random_laplace``: loc ∓ scale·log(…) with libm's ``log``), in place, for
  :func:`simulations.private_erm.private_fw_lasso`;
* :func:`md_linear_steps` — steps of noisy mirror descent with a constant gradient (a linear loss:
  :func:`simulations.private_erm.private_mirror_descent_linear`) over the ℓ2 ball or with the
  entropy (ℓ1 ball, simplex), given the Gaussian noise of a block of steps;
* :func:`trig_phase_table` — cos and sin of the phases 2π·(t_i k_j mod 1) of
  :func:`simulations.data.evaluate_series` (libm's ``cos``/``sin``, as NumPy's on AVX2 builds);
* :func:`noise_risk_mean` — the utility trial's mean held-out risk of f + s·b over the noise draws b
  (:func:`simulations.trials.utility.utility_trial`) without the (draws × test points) temporaries;
* :func:`pairwise_sum` — ``np.sum`` of a contiguous float64 vector, reproduced: NumPy's pairwise
  summation (eight running sums per block of at most 128 elements, blocks halved on multiples
  of 8) added to the reduction's identity 0.0; the two kernels above sum as ``np.sum`` does with it.

Each performs the same floating-point operations in the same order as its NumPy twin (no
``fastmath``, so no reassociation or fused multiply-add), hence returns bit-identical numbers;
the tests compare the two paths exactly.  Functions compile on first use and are cached on disk
(``cache=True``).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit


def numba_uses_svml() -> bool:
    """Whether numba compiles ``math.log`` / ``math.exp`` / ``math.cos`` … with Intel SVML (accurate to 1 ULP,
    not libm's bits): then the kernels that must match NumPy's libm calls (:func:`laplace_from_uniform`,
    the entropy steps of :func:`md_linear_steps`, :func:`trig_phase_table`) are not used.

    Examples
    --------
    >>> isinstance(numba_uses_svml(), bool)
    True
    """
    return bool(getattr(numba.config, "USING_SVML", False))

__all__ = ["fw_l1_steps", "hinge_row_means", "laplace_from_uniform", "md_linear_steps", "noise_risk_mean", "online_sup_grid", "pairwise_sum",
           "sobolev1_eval_sorted", "sobolev1_gram_into", "sobolev_gram", "trig_phase_table"]


@njit(cache=True, nogil=True)
def fw_l1_steps(th: np.ndarray, u: np.ndarray, A: np.ndarray, c: np.ndarray, noise: np.ndarray,
                t_first: int, n_steps: int, radius: float, noisy: bool) -> None:
    """Run ``n_steps`` Frank–Wolfe steps t = t_first, … in place on θ (``th``) and Aθ (``u``).

    ``noise[s, r, :]`` is the Laplace noise of the 2p scores of chain r at the block's step s
    (ignored when ``noisy`` is false).  The scores are ±2r(Aθ − c)_j in the vertex order e_1..e_p,
    −e_1..−e_p; ties go to the first index, as ``np.argmin``.
    """
    n_rep, p = th.shape
    two_r = 2 * radius
    g = np.empty(p)
    for s in range(n_steps):
        t = t_first + s
        mu = 2.0 / (t + 2)
        keep = 1 - mu
        for r in range(n_rep):
            for k in range(p):
                g[k] = two_r * (u[r, k] - c[k])
            best = 0
            bestv = 0.0
            for k in range(2 * p):
                v = g[k] if k < p else -g[k - p]
                if noisy:
                    v = v + noise[s, r, k]
                if k == 0 or v < bestv:
                    best = k
                    bestv = v
            sign = radius if best < p else -radius
            jj = best % p
            step = mu * sign
            for k in range(p):
                th[r, k] = th[r, k] * keep
            th[r, jj] = th[r, jj] + step
            for k in range(p):
                u[r, k] = keep * u[r, k] + step * A[jj, k]


@njit(cache=True, nogil=True)
def _mod1(v: float) -> float:
    # np.mod(v, 1.0) for a float: fmod, shifted into [0, 1) when its sign differs (+0.0 for 0)
    m = np.fmod(v, 1.0)
    if m != 0.0:
        if m < 0.0:
            m += 1.0
    else:
        m = 0.0
    return m


@njit(cache=True, nogil=True)
def _in_unit(a: np.ndarray) -> bool:
    # every entry in [0, 1) (False for a NaN)
    for v in a:
        if not (v >= 0.0 and v < 1.0):
            return False
    return True


@njit(cache=True, nogil=True)
def _sobolev_gram_any(a: np.ndarray, b: np.ndarray, coeffs: np.ndarray, pref: float, mu0: float,
                      scale: float) -> np.ndarray:
    # any finite or non-finite points: np.mod through fmod, element by element
    na, nb = a.shape[0], b.shape[0]
    out = np.empty((na, nb))
    nc = coeffs.shape[0]
    for i in range(na):
        ai = a[i]
        for j in range(nb):
            d = _mod1(ai - b[j])
            x = _mod1(d)
            y = 1.0 - x
            if y < x:
                x = y
            h = 0.0
            for q in range(nc):
                h = h * x + coeffs[q]
            out[i, j] = mu0 + scale * (pref * h)
    return out


@njit(cache=True, nogil=True)
def _sobolev_gram_unit(a: np.ndarray, b: np.ndarray, coeffs: np.ndarray, pref: float, mu0: float,
                       scale: float) -> np.ndarray:
    # points in [0, 1): v = a_i − b_j lies in (−1, 1), where fmod(v, 1) = v exactly, so np.mod(v, 1)
    # is v + 1 for v < 0, +0.0 for v = ±0 and v otherwise; the second reduction maps only 1.0
    # (v + 1 rounded up) to 0.  Branch-free selects, and Horner's rule run across a row (each
    # element still sees the same operations in the same order), so that the loops vectorise.
    na, nb = a.shape[0], b.shape[0]
    out = np.empty((na, nb))
    nc = coeffs.shape[0]
    x = np.empty(nb)
    h = np.empty(nb)
    for i in range(na):
        ai = a[i]
        for j in range(nb):
            v = ai - b[j]
            d = v + 1.0 if v < 0.0 else (v if v != 0.0 else 0.0)
            d = d if d < 1.0 else 0.0
            y = 1.0 - d
            x[j] = y if y < d else d
            h[j] = 0.0
        for q in range(nc):
            cq = coeffs[q]
            for j in range(nb):
                h[j] = h[j] * x[j] + cq
        row = out[i]
        for j in range(nb):
            row[j] = mu0 + scale * (pref * h[j])
    return out


@njit(cache=True, nogil=True)
def sobolev_gram(a: np.ndarray, b: np.ndarray, coeffs: np.ndarray, pref: float, mu0: float,
                 scale: float) -> np.ndarray:
    """K[i, j] = mu0 + scale·(pref·B(x)) with x = min(d, 1 − d), d = (a_i − b_j) mod 1 (twice, as NumPy).

    ``coeffs`` are B's coefficients from the highest power down, evaluated by Horner's rule
    starting from 0 (as :func:`simulations.kernels.bernoulli_polynomial`).  Points all in [0, 1)
    (what :class:`~simulations.kernels.PeriodicSobolevKernel` passes) take a vectorised loop
    without ``fmod`` (5–7× faster at m = 200–1600, the same bits); any other input the general one.
    """
    if _in_unit(a) and _in_unit(b):
        return _sobolev_gram_unit(a, b, coeffs, pref, mu0, scale)
    return _sobolev_gram_any(a, b, coeffs, pref, mu0, scale)


@njit(cache=True, nogil=True)
def online_sup_grid(Kc: np.ndarray, V: np.ndarray, kE: np.ndarray, U: np.ndarray, scale: np.ndarray,
                    u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """sup[i, c, k, k'] = max_e |(scale_i u_ik) U_ie − v_ick' · W_cie| of seed 003's all-index scan.

    ``W_cie = (kE_ce − Σ_{s>i} Kc_sc V_se) · scale_i`` with the suffix sum accumulated from the last
    index down, one addition per index (as ``np.cumsum`` over the reversed axis): the operations and
    their order are those of the NumPy code in :func:`simulations.trials.jcc.all_index_sensitivity`,
    without its (candidates × t × grid) temporaries.
    """
    t, nc = Kc.shape
    ne = V.shape[1]
    out = np.empty((t, nc, 2, 2))
    run = np.empty(ne)
    for c in range(nc):
        for e in range(ne):
            run[e] = 0.0
        for i in range(t - 1, -1, -1):
            a0 = scale[i] * u[i, 0]
            a1 = scale[i] * u[i, 1]
            v0 = v[i, c, 0]
            v1 = v[i, c, 1]
            m00 = m01 = m10 = m11 = -1.0
            for e in range(ne):
                w = (kE[c, e] - run[e]) * scale[i]
                x0 = a0 * U[i, e]
                x1 = a1 * U[i, e]
                w0 = v0 * w
                w1 = v1 * w
                d = abs(x0 - w0)
                if d > m00:
                    m00 = d
                d = abs(x0 - w1)
                if d > m01:
                    m01 = d
                d = abs(x1 - w0)
                if d > m10:
                    m10 = d
                d = abs(x1 - w1)
                if d > m11:
                    m11 = d
            out[i, c, 0, 0] = m00
            out[i, c, 0, 1] = m01
            out[i, c, 1, 0] = m10
            out[i, c, 1, 1] = m11
            if i == t - 1:
                for e in range(ne):
                    run[e] = Kc[i, c] * V[i, e]
            else:
                for e in range(ne):
                    run[e] = run[e] + Kc[i, c] * V[i, e]
    return out


@njit(cache=True, nogil=True)
def _block(a: np.ndarray, lo: int, n: int) -> float:
    # NumPy's DOUBLE_pairwise_sum over a[lo:lo + n] for n ≤ 128 (a block)
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    end = n - (n % 8)
    i = 8
    while i < end:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def _pairwise(a: np.ndarray, lo: int, n: int) -> float:
    # NumPy's DOUBLE_pairwise_sum over a[lo:lo + n]: blocks of ≤ 128, else
    # pairwise(first n2) + pairwise(rest) with n2 = n/2 rounded down to a multiple of 8.  The
    # recursion is run on an explicit stack (numba's disk cache does not hold recursive functions).
    if n <= 128:
        return _block(a, lo, n)
    los = np.empty(64, np.int64)
    ns = np.empty(64, np.int64)
    state = np.zeros(64, np.int64)      # 0: to split, 1: left half pending, 2: right half pending
    left = np.empty(64)
    sp = 0
    los[0], ns[0], state[0] = lo, n, 0
    while True:
        nn = ns[sp]
        if nn > 128:                    # split: descend into the left half
            state[sp] = 1
            n2 = nn // 2
            n2 -= n2 % 8
            los[sp + 1], ns[sp + 1], state[sp + 1] = los[sp], n2, 0
            sp += 1
            continue
        ret = _block(a, los[sp], nn)
        sp -= 1
        while sp >= 0:                  # hand the value up until a right half remains to do
            if state[sp] == 1:
                left[sp] = ret
                state[sp] = 2
                n2 = ns[sp] // 2
                n2 -= n2 % 8
                los[sp + 1], ns[sp + 1], state[sp + 1] = los[sp] + n2, ns[sp] - n2, 0
                sp += 1
                break
            ret = left[sp] + ret
            sp -= 1
        if sp < 0:
            return ret


@njit(cache=True, nogil=True)
def pairwise_sum(a: np.ndarray) -> float:
    """``np.sum(a)`` of a contiguous 1-D float64 array, to the bit: NumPy's pairwise summation added to
    the reduction's identity 0.0 (so that a sum of −0.0 is +0.0, as NumPy's)."""
    return 0.0 + _pairwise(a, 0, a.shape[0])


@njit(cache=True, nogil=True)
def sobolev1_eval_sorted(order: np.ndarray, xs: np.ndarray, tt: np.ndarray, k: np.ndarray, alpha: np.ndarray,
                         mu0: float, spi2: float) -> np.ndarray:
    """Σ_i α_i K(c_i, t) at the points ``tt`` for the plan ``(order, xs, tt, k)`` of ``_sobolev1_plan``.

    ``spi2`` is ``kernel.scale * math.pi**2`` (as the NumPy code forms it).  Same operations, same
    order as :func:`simulations.trials.jamp.sobolev1_eval`.
    """
    m = order.shape[0]
    n = tt.shape[0]
    ca = np.empty(m + 1)
    cax = np.empty(m + 1)
    sq = np.empty(m)
    ca[0] = 0.0
    cax[0] = 0.0
    s0 = 0.0
    s1 = 0.0
    for i in range(m):
        ai = alpha[order[i]]
        x = xs[i]
        p = ai * x
        # np.cumsum starts from the first element itself (no 0.0 + a[0]: the same value, but
        # -0.0 would become +0.0)
        s0 = ai if i == 0 else s0 + ai
        s1 = p if i == 0 else s1 + p
        ca[i + 1] = s0
        cax[i + 1] = s1
        sq[i] = p * x
    A0 = ca[m]
    A1 = cax[m]
    A2 = 0.0 + _pairwise(sq, 0, m)                 # np.sum: the identity 0.0 plus the pairwise sum
    head = mu0 * A0
    a6 = A0 / 6.0
    out = np.empty(n)
    for j in range(n):
        t = tt[j]
        kj = k[j]
        le = t * ca[kj] - cax[kj]
        gt = (A1 - cax[kj]) - t * (A0 - ca[kj])
        quad = t * (t * A0 - 2.0 * A1) + A2
        out[j] = head + spi2 * ((quad - (le + gt)) + a6)
    return out


@njit(cache=True, nogil=True)
def hinge_row_means(y: np.ndarray, fx: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.mean(np.maximum(0.0, 1 - y[None, :] * (fx[None, :] + b[:, None])), axis=1)``, to the bit.

    Per noise value b_i the row is formed by the same operations (fx + b, times y, 1 minus, the
    maximum with 0 passing a NaN through as ``np.maximum``), summed by NumPy's pairwise summation
    from the identity 0.0 (:func:`pairwise_sum`) and divided by m, as
    ``np.mean`` does; no (n_noise × m) temporaries.
    """
    m = y.shape[0]
    n = b.shape[0]
    out = np.empty(n)
    row = np.empty(m)
    for i in range(n):
        bi = b[i]
        for j in range(m):
            q = 1 - y[j] * (fx[j] + bi)
            row[j] = q if (q > 0.0 or q != q) else 0.0
        out[i] = (0.0 + _pairwise(row, 0, m)) / m
    return out


@njit(cache=True, nogil=True)
def sobolev1_gram_into(G: np.ndarray, x: np.ndarray, z: np.ndarray, c: float, k0: float) -> None:
    """G[i, j] = (((x_i − z_j) − ⌊x_i − z_j⌋ − ½)²·c) + k0, the NumPy steps of
    :func:`simulations.trials.jcc.gram` (``subtract.outer``, ``-= floor``, ``-= 0.5``, ``square``,
    ``*= c``, ``+= k0``) element by element: the same bits."""
    for i in range(x.shape[0]):
        xi = x[i]
        for j in range(z.shape[0]):
            d = xi - z[j]
            d = d - np.floor(d)
            d = d - 0.5
            d = d * d
            d = d * c
            G[i, j] = d + k0


@njit(cache=True, nogil=True)
def laplace_from_uniform(u: np.ndarray, loc: float, scale: float) -> None:
    """In place on a contiguous 1-D array of uniforms U ∈ (0, 1) (``Generator.random``): NumPy's
    ``random_laplace``, U ≥ ½ → loc − scale·log(2 − U − U), else loc + scale·log(U + U).

    ``Generator.laplace`` draws one uniform per value and rejects U = 0 (drawing again): the caller
    must not pass a 0 (:func:`simulations.private_erm.private_fw_lasso` falls back to
    ``Generator.laplace`` then).  NumPy's C code calls libm's ``log``, as numba does (not with SVML), so the
    values are NumPy's to the bit where :func:`simulations.private_erm._laplace_compiled_ok` finds them so.
    """
    for i in range(u.shape[0]):
        U = u[i]
        if U >= 0.5:
            u[i] = loc - scale * math.log(2.0 - U - U)
        else:
            u[i] = loc + scale * math.log(U + U)


@njit(cache=True, nogil=True)
def md_linear_steps(state: np.ndarray, acc: np.ndarray, G: np.ndarray, z: np.ndarray, n_steps: int, eta: float,
                    sigma: float, radius: float, geometry: int) -> None:
    """``n_steps`` steps of noisy mirror descent with the constant gradient rows ``G`` (R, p), in place.

    ``geometry`` 0 (ℓ2 ball): ``state`` is θ (R, p); 1 (ℓ1 ball, entropy on 2p weights) and
    2 (simplex): ``state`` is log w (R, 2p) or (R, p).  ``acc`` (R, p) accumulates θ_t before each
    step; ``z[s]`` (R, p) is the standard normal noise of the block's step s.  The operations and their
    order are those of the NumPy loop of :func:`simulations.private_erm.private_mirror_descent`
    (row norms and row sums as NumPy's pairwise sums from the identity 0.0, ``np.maximum`` /
    ``np.minimum`` / ``max`` passing NaN through, libm's ``exp`` and ``log``).
    """
    R, p = G.shape
    m = state.shape[1]
    v = np.empty(m)
    e = np.empty(m)
    for s in range(n_steps):
        for r in range(R):
            if geometry == 0:
                for j in range(p):
                    acc[r, j] = acc[r, j] + state[r, j]
                for j in range(p):
                    g = G[r, j] + sigma * z[s, r, j]
                    v[j] = state[r, j] - eta * g
                    e[j] = v[j] * v[j]
                nrm = math.sqrt(0.0 + _pairwise(e, 0, p))
                den = nrm if (nrm >= 1e-300 or nrm != nrm) else 1e-300
                q = radius / den
                f = q if (q < 1.0 or q != q) else 1.0
                for j in range(p):
                    state[r, j] = v[j] * f
                continue
            for k in range(m):
                e[k] = math.exp(state[r, k])
            for j in range(p):
                th = radius * (e[j] - e[p + j]) if geometry == 1 else e[j]
                acc[r, j] = acc[r, j] + th
            for j in range(p):
                g = G[r, j] + sigma * z[s, r, j]
                if geometry == 1:
                    state[r, j] = state[r, j] - eta * (radius * g)
                    state[r, p + j] = state[r, p + j] - eta * (radius * (-g))
                else:
                    state[r, j] = state[r, j] - eta * g
            mx = state[r, 0]
            for k in range(1, m):
                x = state[r, k]
                if x > mx or x != x:
                    if mx == mx:
                        mx = x
            for k in range(m):
                e[k] = math.exp(state[r, k] - mx)
            c = mx + math.log(0.0 + _pairwise(e, 0, m))
            for k in range(m):
                state[r, k] = state[r, k] - c


@njit(cache=True, nogil=True)
def trig_phase_table(t: np.ndarray, k: np.ndarray, c: np.ndarray, s: np.ndarray) -> None:
    """c[i, j], s[i, j] = cos, sin of ``2 * math.pi * np.mod(np.outer(t, k), 1.0)``, element by element.

    ``np.mod`` of floats is NumPy's ``npy_divmod`` remainder: ``fmod`` (exact), moved into [0, 1) by
    adding 1 when negative, and +0.0 for a zero remainder (NaN passes through), as Python's float ``%``
    that numba compiles.  Then the product with
    the Python float 2π and libm's ``cos`` and ``sin`` (:func:`simulations.data.evaluate_series` uses
    this table only where a probe finds NumPy's ``np.cos``/``np.sin`` equal to libm's).
    """
    two_pi = 2 * math.pi
    for i in range(t.shape[0]):
        ti = t[i]
        for j in range(k.shape[0]):
            r = (ti * k[j]) % 1.0       # numba's float % is CPython's float_rem: NumPy's npy_divmod remainder
            ph = two_pi * r
            c[i, j] = math.cos(ph)
            s[i, j] = math.sin(ph)


@njit(cache=True, nogil=True)
def noise_risk_mean(f: np.ndarray, y: np.ndarray, sb: np.ndarray, square: bool) -> float:
    """``np.mean(_risk(f[None, :] + sb[:, None], y, loss))`` of :mod:`simulations.trials.utility`, to the bit.

    Row i holds f_j + sb_i.  ``square``: the row's mean of (f_j + sb_i − y_j)² (``** 2`` is NumPy's
    square, x·x), a pairwise sum from the identity 0.0 divided by the row length; otherwise the share
    of j with sign(f_j + sb_i) ≠ y_j (``np.where(v >= 0, 1.0, -1.0)``; a count, exact in float64).
    The mean over the rows is again NumPy's pairwise sum divided by the number of rows.
    """
    n = sb.shape[0]
    m = f.shape[0]
    risks = np.empty(n)
    row = np.empty(m)
    for i in range(n):
        bi = sb[i]
        if square:
            for j in range(m):
                d = (f[j] + bi) - y[j]
                row[j] = d * d
            risks[i] = (0.0 + _pairwise(row, 0, m)) / m
        else:
            cnt = 0
            for j in range(m):
                sg = 1.0 if f[j] + bi >= 0 else -1.0
                if sg != y[j]:
                    cnt += 1
            risks[i] = float(cnt) / m
    return (0.0 + _pairwise(risks, 0, n)) / n
