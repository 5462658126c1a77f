r"""Compiled (numba) inner loop of the box-constrained duals of :mod:`simulations.solvers`.

The offset-free SVM and the pinball-loss quantile regression both reduce to

.. math::  \min_{lo \le \alpha \le hi} \; \tfrac12 \alpha^\top K \alpha - y^\top \alpha ,

a box-constrained QP with **no** equality constraint (there is no offset), so an exact
one-dimensional minimisation in a single coordinate is a legitimate step and dual coordinate
descent needs no pairs (unlike SMO/libsvm).  :func:`cd_sweeps` is that coordinate descent:

* the gradient g = Kα − y of **all** m coordinates is kept up to date; a step s in
  coordinate j costs one contiguous row update g += s·K[j] (K symmetric, so the row is the
  column), which the compiler vectorises.  K is precomputed, so there is no kernel cache to
  manage: a row is already "cached";
* coordinates are visited in a fresh pseudo-random order every sweep (xorshift64*, seeded by
  the caller, so runs are reproducible); a visit to a coordinate that does not move costs
  O(1) because its gradient is already known;
* shrinking as in LIBLINEAR's dual coordinate descent (Hsieh et al., ICML 2008, §3.2): a
  coordinate at a bound whose gradient points out of the box by more than the largest
  violation of the previous sweep is dropped from the sweeps; since every gradient stays
  exact, "unshrinking" is free, and convergence is only declared after a full sweep over
  all m coordinates;
* stopping rule: the largest projected-gradient violation max_i |PG_i| is at most ``eps``
  (on a sweep over all coordinates).  With |PG_i| ≤ ε the duality gap of the module notes
  of :mod:`simulations.solvers` is at most 2λ·ε·Σ(hi_i − lo_i), so the caller can choose ε
  from the gap it needs; the caller (not this module) computes and certifies the gap.

Coordinate descent finds the optimal face (which coefficients sit at a bound) quickly but
converges slowly on it when the face's Gram block is ill-conditioned (small λ).
:func:`face_newton` is the compiled twin of ``solvers._newton_step``: a Newton step on the
face of the free coefficients (hand-written Cholesky, as fast as LAPACK at these sizes), cut
back to the box and line-searched, which lands on the exact optimum once the face is right.
A numerically singular face block is handed back (``NEWTON_SINGULAR``) to the LAPACK path,
which handles null spaces.  :func:`kdot` and :func:`kkt_violation` are the O(m·#nonzero)
and O(m) helpers of the driver ``solvers._box_dual_fast``.

The functions are compiled lazily on first use and cached on disk (``cache=True``: in the
``__pycache__`` directory next to this file, or numba's user-wide fallback if that is not
writable), so later processes only load machine code.  Arrays must be float64 and
C-contiguous (one compiled specialisation); :mod:`simulations.solvers` guarantees this.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["CONVERGED", "MAX_SWEEPS", "NEWTON_NONE", "NEWTON_OK", "NEWTON_SINGULAR", "STALLED",
           "cd_sweeps", "face_newton", "kdot", "kkt_violation"]

CONVERGED = 0     # max |projected gradient| <= eps on a sweep over all coordinates
MAX_SWEEPS = 1    # sweep budget exhausted
STALLED = 2       # a full sweep decreased the objective by rounding level only


@njit(cache=True, nogil=True)
def _xorshift(state: np.uint64) -> np.uint64:
    state ^= state >> np.uint64(12)
    state ^= state << np.uint64(25)
    state ^= state >> np.uint64(27)
    return state


@njit(cache=True, nogil=True)
def cd_sweeps(K, y, lo, hi, d, a, g, eps, max_sweeps, seed):
    """Exact coordinate descent (random order, shrinking) on min ½αᵀKα − yᵀα, lo ≤ α ≤ hi.

    ``a`` (feasible) and ``g`` (= Ka − y) are updated in place.  ``d`` is diag K.
    Returns ``(sweeps, updates, status)`` with status :data:`CONVERGED`,
    :data:`MAX_SWEEPS` or :data:`STALLED`.
    """
    m = a.shape[0]
    act = np.arange(m)
    n_act = m
    state = np.uint64(seed) * np.uint64(2685821657736338717) + np.uint64(0x9E3779B97F4A7C15)
    if state == np.uint64(0):
        state = np.uint64(88172645463325252)
    # objective ½αᵀKα − yᵀα = ½αᵀ(g − y), for the rounding-level stall test
    obj = 0.0
    for i in range(m):
        obj += 0.5 * a[i] * (g[i] - y[i])
    pg_max_old = np.inf
    pg_min_old = -np.inf
    sweeps = 0
    updates = 0
    while sweeps < max_sweeps:
        # fresh random order of the active coordinates (Fisher-Yates)
        for t in range(n_act - 1, 0, -1):
            state = _xorshift(state)
            r = np.int64((state * np.uint64(2685821657736338717)) >> np.uint64(33)) % (t + 1)
            tmp = act[t]
            act[t] = act[r]
            act[r] = tmp
        pg_max = -np.inf
        pg_min = np.inf
        dec = 0.0
        t = 0
        while t < n_act:
            j = act[t]
            gj = g[j]
            aj = a[j]
            pg = 0.0
            if aj <= lo[j]:
                if gj > pg_max_old:                   # far outside: shrink
                    n_act -= 1
                    act[t] = act[n_act]
                    act[n_act] = j
                    continue
                if gj < 0.0:
                    pg = gj
            elif aj >= hi[j]:
                if gj < pg_min_old:
                    n_act -= 1
                    act[t] = act[n_act]
                    act[n_act] = j
                    continue
                if gj > 0.0:
                    pg = gj
            else:
                pg = gj
            if pg > pg_max:
                pg_max = pg
            if pg < pg_min:
                pg_min = pg
            if pg != 0.0:
                dj = d[j]
                if dj > 0.0:
                    new = aj - gj / dj
                else:                                 # K_jj = 0: g_j is constant along j
                    new = hi[j] if gj < 0.0 else lo[j]
                if new < lo[j]:
                    new = lo[j]
                elif new > hi[j]:
                    new = hi[j]
                s = new - aj
                if s != 0.0:
                    a[j] = new
                    Kj = K[j]
                    for i in range(m):
                        g[i] += s * Kj[i]
                    dec -= gj * s + 0.5 * dj * s * s
                    updates += 1
            t += 1
        sweeps += 1
        obj -= dec
        viol = max(pg_max, -pg_min)
        full = n_act == m
        if viol <= eps:
            if full:
                return sweeps, updates, CONVERGED
            n_act = m                                 # unshrink and check every coordinate
            pg_max_old = np.inf
            pg_min_old = -np.inf
            continue
        if dec <= 2.2e-16 * abs(obj):
            if full:
                return sweeps, updates, STALLED
            n_act = m
            pg_max_old = np.inf
            pg_min_old = -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return sweeps, updates, MAX_SWEEPS


@njit(cache=True, nogil=True)
def kkt_violation(a, g, lo, hi):
    """(max |projected gradient|, Σ[(α−lo)g⁺ + (hi−α)g⁻], number of free coordinates)."""
    viol = 0.0
    gap = 0.0
    nfree = 0
    for i in range(a.shape[0]):
        gi = g[i]
        ai = a[i]
        if gi > 0.0:
            gap += (ai - lo[i]) * gi
            if ai > lo[i] and gi > viol:
                viol = gi
        elif gi < 0.0:
            gap -= (hi[i] - ai) * gi
            if ai < hi[i] and -gi > viol:
                viol = -gi
        if lo[i] < ai < hi[i]:
            nfree += 1
    return viol, gap, nfree


@njit(cache=True, nogil=True)
def kdot(K, a):
    """K @ a from the rows i with a_i ≠ 0 (K symmetric): one pass over the nonzero rows only."""
    m = a.shape[0]
    f = np.zeros(m)
    for i in range(m):
        ai = a[i]
        if ai != 0.0:
            Ki = K[i]
            for j in range(m):
                f[j] += ai * Ki[j]
    return f


# --------------------------------------------------------------------------------------
# Newton step on the face of the free coordinates (small faces; see solvers._newton_step)
# --------------------------------------------------------------------------------------

NEWTON_OK = 0         # a step that decreases the objective was taken
NEWTON_NONE = 1       # no decrease possible along the face's Newton directions
NEWTON_SINGULAR = 2   # the face's Gram block is (numerically) singular: use the LAPACK path


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _cholesky(H, n):
    """In-place lower Cholesky factor of H[:n, :n]; False if a pivot is below 1e-12·max H_ii
    (the criterion of solvers._psd_solve)."""
    hmax = 1e-300
    for i in range(n):
        if H[i, i] > hmax:
            hmax = H[i, i]
    for j in range(n):
        s = H[j, j]
        for k in range(j):
            s -= H[j, k] * H[j, k]
        if not s >= 1e-12 * hmax:
            return False
        ljj = np.sqrt(s)
        H[j, j] = ljj
        for i in range(j + 1, n):
            t = H[i, j]
            for k in range(j):
                t -= H[i, k] * H[j, k]
            H[i, j] = t / ljj
    return True


@njit(cache=True, nogil=True)
def _chol_solve(L, n, b):
    """Solve (L Lᵀ) x = b[:n] with the factor of :func:`_cholesky`; returns x."""
    x = np.empty(n)
    for i in range(n):
        t = b[i]
        for k in range(i):
            t -= L[i, k] * x[k]
        x[i] = t / L[i, i]
    for i in range(n - 1, -1, -1):
        t = x[i]
        for k in range(i + 1, n):
            t -= L[k, i] * x[k]
        x[i] = t / L[i, i]
    return x


@njit(cache=True, nogil=True)
def _gather(K, idx, n, H):
    for p in range(n):
        Kp = K[idx[p]]
        for q in range(n):
            H[p, q] = Kp[idx[q]]


@njit(cache=True, nogil=True)
def _face_ratio(K, a, g, lo, hi, F, max_rounds, H):
    """Active-set Newton rounds (ratio test) on the face F; returns (status, x_F)."""
    n0 = F.shape[0]
    x = a[F].copy()
    gF = g[F].copy()
    alive = np.arange(n0)             # positions (into F) of the coordinates still free
    n = n0
    idx = np.empty(n0, np.int64)
    for _ in range(max_rounds):
        if n == 0:
            break
        for p in range(n):
            idx[p] = F[alive[p]]
        _gather(K, idx, n, H)
        if not _cholesky(H, n):
            return NEWTON_SINGULAR, x
        rhs = np.empty(n)
        for p in range(n):
            rhs[p] = -gF[alive[p]]
        step = _chol_solve(H, n, rhs)
        tmax = np.inf
        for p in range(n):
            j = alive[p]
            sp = step[p]
            if sp > 0.0:
                r = (hi[F[j]] - x[j]) / sp
            elif sp < 0.0:
                r = (lo[F[j]] - x[j]) / sp
            else:
                continue
            if r < tmax:
                tmax = r
        if tmax >= 1.0:
            for p in range(n):
                j = alive[p]
                x[j] = min(max(x[j] + step[p], lo[F[j]]), hi[F[j]])
            break
        if tmax < 0.0:
            tmax = 0.0
        # move to the first bound; the blocked coordinates leave the face
        lim = tmax * (1.0 + 1e-12)
        dx = np.empty(n)
        keep = 0
        for p in range(n):
            j = alive[p]
            sp = step[p]
            old = x[j]
            blocked = False
            if sp > 0.0 and (hi[F[j]] - old) / sp <= lim:
                x[j] = hi[F[j]]
                blocked = True
            elif sp < 0.0 and (lo[F[j]] - old) / sp <= lim:
                x[j] = lo[F[j]]
                blocked = True
            else:
                x[j] = min(max(old + tmax * sp, lo[F[j]]), hi[F[j]])
            dx[p] = x[j] - old
            if not blocked:
                alive[keep] = j
                keep += 1
        # exact gradient change on the face: gF += K_FF dx (all of F, including blocked ones)
        for p in range(n):
            if dx[p] != 0.0:
                Kp = K[idx[p]]
                for q in range(n0):
                    gF[q] += dx[p] * Kp[F[q]]
        n = keep
    return NEWTON_OK, x


@njit(cache=True, nogil=True)
def _face_shrink(K, a, g, lo, hi, F, max_shrink, H):
    """Newton point of the face, coordinates leaving the box fixed at the bound they cross
    and the system re-solved (a few rounds); returns (status, target_F)."""
    n0 = F.shape[0]
    target = a[F].copy()
    alive = np.arange(n0)
    n = n0
    idx = np.empty(n0, np.int64)
    for _ in range(max_shrink):
        if n == 0:
            break
        for p in range(n):
            idx[p] = F[alive[p]]
        # rhs = g_A + K_{A,B}(target_B − a_B) for the coordinates B already fixed
        rhs = np.empty(n)
        for p in range(n):
            rhs[p] = g[idx[p]]
        isalive = np.zeros(n0, np.bool_)
        for p in range(n):
            isalive[alive[p]] = True
        for q in range(n0):
            dq = target[q] - a[F[q]]
            if not isalive[q] and dq != 0.0:
                Kq = K[F[q]]
                for p in range(n):
                    rhs[p] += dq * Kq[idx[p]]
        _gather(K, idx, n, H)
        if not _cholesky(H, n):
            return NEWTON_SINGULAR, target
        for p in range(n):
            rhs[p] = -rhs[p]
        step = _chol_solve(H, n, rhs)
        keep = 0
        out = 0
        for p in range(n):
            j = alive[p]
            v = a[F[j]] + step[p]
            if v < lo[F[j]]:
                target[j] = lo[F[j]]
                out += 1
            elif v > hi[F[j]]:
                target[j] = hi[F[j]]
                out += 1
            else:
                target[j] = v
                alive[keep] = j
                keep += 1
        n = keep
        if out == 0:
            break
    return NEWTON_OK, target


@njit(cache=True, nogil=True)
def _quad(K, F, s, g):
    """(gᵀs, sᵀKs) for s supported on F."""
    n = F.shape[0]
    gs = 0.0
    sKs = 0.0
    for p in range(n):
        if s[p] != 0.0:
            gs += g[F[p]] * s[p]
            Kp = K[F[p]]
            t = 0.0
            for q in range(n):
                t += Kp[F[q]] * s[q]
            sKs += s[p] * t
    return gs, sKs


@njit(cache=True, nogil=True)
def face_newton(K, a, g, lo, hi, max_rounds):
    """A monotone Newton step on the face of the free coordinates, in place on ``a`` and ``g``.

    The compiled twin of ``solvers._newton_step``: the "shrink" direction (Newton point with
    the coordinates that leave the box fixed at their bound, re-solved) with an exact line
    search; if that line search stops short, also the active-set ratio-test rounds, and the
    better of the two.  Returns :data:`NEWTON_OK`, :data:`NEWTON_NONE` or
    :data:`NEWTON_SINGULAR` (nothing changed: the caller falls back to the LAPACK path,
    which handles singular faces).
    """
    m = a.shape[0]
    nf = 0
    for i in range(m):
        if lo[i] < a[i] < hi[i]:
            nf += 1
    if nf == 0:
        return NEWTON_NONE
    F = np.empty(nf, np.int64)
    k = 0
    for i in range(m):
        if lo[i] < a[i] < hi[i]:
            F[k] = i
            k += 1
    H = np.empty((nf, nf))
    best_dec = 0.0
    best_t = 0.0
    best_s = np.zeros(nf)
    for variant in range(2):
        if variant == 0:
            st, x = _face_shrink(K, a, g, lo, hi, F, max_rounds, H)
        else:
            st, x = _face_ratio(K, a, g, lo, hi, F, max_rounds, H)
        if st == NEWTON_SINGULAR:
            return NEWTON_SINGULAR
        s = np.empty(nf)
        for p in range(nf):
            s[p] = x[p] - a[F[p]]
        gs, sKs = _quad(K, F, s, g)
        if not gs < 0.0:
            continue
        t = 1.0 if sKs <= 0.0 else min(1.0, -gs / sKs)
        dec = t * gs + 0.5 * t * t * sKs
        if dec < best_dec:
            best_dec = dec
            best_t = t
            best_s = s
        if t >= 1.0:
            break
    if best_dec >= 0.0:
        return NEWTON_NONE
    for p in range(nf):
        i = F[p]
        d = best_t * best_s[p]
        if d != 0.0:
            a[i] = min(max(a[i] + d, lo[i]), hi[i])
            Ki = K[i]
            for j in range(m):
                g[j] += d * Ki[j]
    return NEWTON_OK
