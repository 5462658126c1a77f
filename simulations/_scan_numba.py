"""Compiled (numba) sup-norm loop of the rank-2 neighbour scan of kernel least squares.

:func:`neighbour_grid_sup` computes, for every index j and candidate c, the maximum over the
evaluation grid of |f_z − f_z̄| (and optionally of |π(f_z̄) − π(f_z)|, π = clipping to [−M, M]) —
the candidate loops of :func:`simulations.solvers.neighbour_scan` and of
:func:`simulations.trials.jamp._scan_round`.  Their NumPy twins build a (G, m) temporary per
candidate; the kernel takes one index j (a row of Qᵀ, which stays in L1) against every candidate,
without temporaries, and splits each maximum over the grid into four running maxima.

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
def _sup_loop(QT: np.ndarray, VC: np.ndarray, CO: np.ndarray, BT: np.ndarray, fz: np.ndarray,
              pz: np.ndarray, M: float, clip: bool, sup: np.ndarray, csup: np.ndarray) -> None:
    # one index j (a row of QT = Qᵀ, which stays in L1) against every candidate c; the maximum
    # over the grid is split into independent running maxima (exact in any order) for speed
    C, G = VC.shape
    m = QT.shape[0]
    for j in range(m):
        q = QT[j]
        for c in range(C):
            co = CO[c, j]
            bj = BT[c, j]
            v = VC[c]
            m0 = m1 = m2 = m3 = -1.0
            if not clip:
                g = 0
                while g + 4 <= G:
                    a0 = abs(q[g] * co - v[g] * bj)
                    a1 = abs(q[g + 1] * co - v[g + 1] * bj)
                    a2 = abs(q[g + 2] * co - v[g + 2] * bj)
                    a3 = abs(q[g + 3] * co - v[g + 3] * bj)
                    m0 = a0 if a0 > m0 else m0
                    m1 = a1 if a1 > m1 else m1
                    m2 = a2 if a2 > m2 else m2
                    m3 = a3 if a3 > m3 else m3
                    g += 4
                while g < G:
                    a0 = abs(q[g] * co - v[g] * bj)
                    m0 = a0 if a0 > m0 else m0
                    g += 1
                m0 = m1 if m1 > m0 else m0
                m2 = m3 if m3 > m2 else m2
                sup[j, c] = m2 if m2 > m0 else m0
            else:
                n0 = -1.0
                for g in range(G):
                    d = q[g] * co - v[g] * bj
                    a = abs(d)
                    m0 = a if a > m0 else m0
                    f = fz[g] - d
                    f = -M if f < -M else f
                    f = M if f > M else f
                    a = abs(f - pz[g])
                    n0 = a if a > n0 else n0
                sup[j, c] = m0
                csup[j, c] = n0


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
    _sup_loop(np.ascontiguousarray(Q.T), VC, CO, BT, fz, pz, M, clip, sup, csup)
    return True
