"""Compiled (numba) sup-norm loop of the rank-2 neighbour scan of kernel least squares.

:func:`neighbour_grid_sup` computes, for every index j and candidate c, the maximum over the
evaluation grid of |f_z − f_z̄| (and optionally of |π(f_z̄) − π(f_z)|, π = clipping to [−M, M]) —
the candidate loops of :func:`simulations.solvers.neighbour_scan` and of
:func:`simulations.trials.jamp._scan_round`.  Their NumPy twins build a (G, m) temporary per
candidate; the kernel walks slabs of ``TILE`` columns of Q (which stay in cache) for every
candidate, without temporaries.

Every element is computed by the same floating-point operations in the same order as NumPy
(no ``fastmath``, so no reassociation or fused multiply-add); a maximum is exact whatever the
order, so the results are bit-identical whenever no NaN arises (the callers use the kernel only
then: finite inputs whose products cannot overflow).  The tests compare the two paths exactly.
Compiled on first use and cached on disk (``cache=True``); :mod:`simulations.jit` warms it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["neighbour_grid_sup"]

#: columns of Q (indices j) per slab: a (G, TILE) slab of float64 stays in L2 for G ≲ 2000
TILE = 64


@njit(cache=True, nogil=True)
def _amax(a: np.ndarray) -> float:
    # max |a| over all entries, NaN if an entry is NaN (then every comparison with it fails)
    r = 0.0
    for v in a.ravel():
        if v != v:
            return v
        v = abs(v)
        if v > r:
            r = v
    return r


@njit(cache=True, nogil=True)
def neighbour_grid_sup(Q: np.ndarray, Kec: np.ndarray, QK: np.ndarray, mu: float, e: np.ndarray,
                       b: np.ndarray, s: np.ndarray, D: np.ndarray, fz: np.ndarray, M: float,
                       clip: bool, sup: np.ndarray, csup: np.ndarray) -> bool:
    """Fill ``sup`` (and, with ``clip``, ``csup``), both (m, C), in place; False if it declined.

    With vc_c = (Kec[:, c] − QK[:, c])/μ and coef_c = (e − b[:, c]·s[:, c])/D (as NumPy computes
    them), diff[g, j] = Q[g, j]·coef_c[j] − vc_c[g]·b[j, c] is f_z − f_z̄ on the grid and

    * ``sup[j, c]`` = max_g |diff[g, j]|;
    * ``csup[j, c]`` = max_g |clip(fz[g] − diff[g, j], −M, M) − clip(fz[g], −M, M)|.

    It declines (returns False before the loop, leaving the outputs unset) unless every factor is
    finite and max|Q|·max|coef| and max|vc|·max|b| are at most 1e307: then no product overflows and
    no NaN can arise, where NumPy's maximum (which propagates NaN) and this one could differ.
    """
    G, m = Q.shape
    C = b.shape[1]
    VC = np.empty((C, G))
    CO = np.empty((C, m))
    BT = np.empty((C, m))
    for c in range(C):
        for g in range(G):
            VC[c, g] = (Kec[g, c] - QK[g, c]) / mu
        for j in range(m):
            bj = b[j, c]
            BT[c, j] = bj
            CO[c, j] = (e[j] - bj * s[j, c]) / D[j]
    if G == 0 or not (_amax(Q) * _amax(CO) <= 1e307 and _amax(VC) * _amax(BT) <= 1e307):
        return False                   # also when an entry is NaN or inf (the products are NaN)
    pz = np.empty(G)
    if clip:
        if not (_amax(fz) <= 1e307 and abs(M) <= 1e307):
            return False
        for g in range(G):
            v = fz[g]
            if v < -M:
                v = -M
            if v > M:
                v = M
            pz[g] = v
    smax = np.empty(TILE)
    cmax = np.empty(TILE)
    for j0 in range(0, m, TILE):
        j1 = min(j0 + TILE, m)
        w = j1 - j0
        for c in range(C):
            for k in range(w):
                smax[k] = -1.0
                cmax[k] = -1.0
            for g in range(G):
                vg = VC[c, g]
                if clip:
                    fg = fz[g]
                    pg = pz[g]
                    for k in range(w):
                        d = Q[g, j0 + k] * CO[c, j0 + k] - vg * BT[c, j0 + k]
                        a = abs(d)
                        if a > smax[k]:
                            smax[k] = a
                        f = fg - d
                        if f < -M:
                            f = -M
                        if f > M:
                            f = M
                        a = abs(f - pg)
                        if a > cmax[k]:
                            cmax[k] = a
                else:
                    for k in range(w):
                        a = abs(Q[g, j0 + k] * CO[c, j0 + k] - vg * BT[c, j0 + k])
                        if a > smax[k]:
                            smax[k] = a
            for k in range(w):
                sup[j0 + k, c] = smax[k]
                if clip:
                    csup[j0 + k, c] = cmax[k]
    return True
