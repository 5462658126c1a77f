"""Compiled (numba) evaluation of an s = 1 periodic Sobolev kernel expansion at many points.

:func:`sobolev1_eval_sorted` is the arithmetic of :func:`simulations.trials.jamp.sobolev1_eval`
(Σ_i α_i K(c_i, t) from prefix sums over the sorted centres) in one pass, without its ten
array temporaries; the conjugate-gradient products of :func:`simulations.trials.jamp.sobolev1_kls_fit`
call it hundreds of times per fit.  Every value is computed by the NumPy code's operations in
its order: ``np.cumsum`` is a sequential sum, and ``np.sum`` NumPy's pairwise summation
(:func:`pairwise_sum`: eight running sums per block of at most 128 elements, blocks halved on
multiples of 8), reproduced here; no ``fastmath``, so no reassociation or fused multiply-add.
The results are therefore bit-identical (the tests compare both paths, and ``pairwise_sum``
against ``np.sum``, exactly).  Compiled on first use and cached on disk (``cache=True``);
:mod:`simulations.jit` warms it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["pairwise_sum", "sobolev1_eval_sorted"]


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
