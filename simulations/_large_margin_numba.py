r"""Compiled (numba) solver of the large-margin problems of :mod:`simulations.large_margin`.

Pathak & Raj 2010 (seed ``004_69734a6b7aad1d0d.txt``), §4, (8): minimise over Φ_1..Φ_K ⪰ 0

.. math::  J_p(Φ) = \sum_i \sum_{c \ne y_i} \ell_h(x̃_i^T(Φ_{y_i} − Φ_c)x̃_i) + \sum_c ⟨B, Φ_c⟩ .

:func:`solve_problems` runs the iteration of :func:`simulations.large_margin.solve` (projected
FISTA with backtracking and adaptive restart, started from the given Φ⁰, the Fenchel dual
bound every ``check_every`` iterations) for m problems that share X and y, one after the
other, each with its own state, entirely in nopython mode.  The iterates are those of
``solve`` up to rounding; the arithmetic is organised differently:

* **Packed storage.**  Every symmetric (d+1)×(d+1) matrix is kept as its upper triangle
  (S = (d+1)(d+2)/2 entries, row-major).  The scores x̃ᵀΦx̃ use the packed products
  x̃_px̃_q weighted by 2 off the diagonal (``XXw``); gradients use the unweighted ones
  (``XXu``); Frobenius inner products weight the packed entries by ``wts`` (1 or 2).
* **Scores by linearity.**  The scores q_ic(Φ) = x̃_iᵀΦ_cx̃_i are linear in Φ, so the scores of
  the extrapolated point z = x⁺ + β(x⁺ − x) are q(x⁺) + β(q(x⁺) − q(x)) (O(nK) instead of
  O(nKS)); both q(x⁺) and q(x) are computed from their own iterates, so nothing accumulates.
* **Lazy gradients.**  ``solve`` evaluates f and ∇f at every trial point of the backtracking;
  only f is needed there, and ∇f only at z (the next step's point).  Each iteration therefore
  costs one score pass q(x⁺) per trial step, one gradient pass ∇f(z), and K
  eigendecompositions; the gradient of the weights W_ic skips the zero weights (points far on
  the right side of every margin).
* **Projection** of each (d+1)×(d+1) block onto the PSD cone: a block that is positive definite
  (a Cholesky factorisation succeeds) is its own projection and is kept unchanged; otherwise
  its eigenvalues are clipped at 0.  The eigendecomposition is the cyclic Jacobi method (exact
  to rounding for symmetric matrices, eigenvalues accurate to O(ε_mach‖A‖), no LAPACK call
  overhead at these sizes), warm-started: each class keeps the eigenvectors V of its previous
  projection, Jacobi runs on the nearly diagonal VᵀAV (one or two sweeps instead of five to
  eight) and V is re-orthonormalised after each update.
* **Dual bound** (:func:`simulations.large_margin.dual_lower_bound`, same dual point, same
  tolerances, same 60-step bisection on t): α = ℓ'(u(Φ)), S_c(t) = B + t·Σ_i W_ic(α)x̃_ix̃_iᵀ,
  t = 1 if every S_c(1) has λ_min ≥ −tol, else the bisection of ``solve``; the test
  "λ_min(S_c) ≥ −tol" is made as "S_c + tol·I is positive definite" (Cholesky; the two differ
  only by rounding on the boundary, far below tol), stopping at the first class that fails, as
  ``all`` does; D = Σ tα·m + h·tα(1 − tα); the reported λ_min at the dual point is Jacobi's.
  When B is singular (b = 0, the unperturbed J) the equality repair of ``_repair_equalities``
  runs first, with the same alternating least-norm corrections (``np.linalg.pinv`` and
  ``matrix_rank``, i.e. LAPACK's SVD).

The caller (``simulations.large_margin``) decides unboundedness, projects the warm start,
packs the inputs, and turns the returned arrays into results and certificates (gap =
(J_p − D)/max(1, |J_p|) from the bound returned here).  ``nb = d`` selects the projection of
``solve(..., cone="closure")`` (only the upper-left d×d block is projected).

Compiled lazily on first use and cached on disk (``cache=True``: the first compilation takes
~10–20 s, loading from the cache ~0.1 s); arrays must be float64 (int64 for labels and indices)
and C-contiguous.  Per iteration: ~1.3 µs for the Theorem 5 problems (n = 30, d ≤ 2), ~7 µs for
iris (n = 105, d = 4, C = 3), against ~90–130 µs for ``solve`` (``bench/bench_large_margin.py``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["jacobi_eigh", "project_packed", "solve_problems"]

# keys of the per-problem scalar outputs (columns of ``out_s``)
S_VALUE, S_LOWER, S_ITERS, S_LIP, S_T, S_MINEIG, S_REPAIRED, S_PG, S_NHIST = range(9)
N_SCALARS = 9


@njit(cache=True, nogil=True)
def jacobi_eigh(A: np.ndarray, V: np.ndarray, n: int, vectors: bool) -> None:
    """Cyclic Jacobi on the leading n×n block of the symmetric A, in place.

    On return the diagonal of A holds the eigenvalues (unordered) and, if ``vectors``, the
    columns of V the eigenvectors.  Sweeps stop when every off-diagonal entry is at most
    1e−18·max|A_ii| (dropping them moves the eigenvalues by less than rounding) or after 60.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])
    >>> T, V = A.copy(), np.zeros((3, 3))
    >>> jacobi_eigh(T, V, 3, True)
    >>> bool(np.allclose(np.sort(np.diag(T)), np.linalg.eigvalsh(A), atol=1e-14))
    True
    >>> bool(np.allclose((V * np.diag(T)) @ V.T, A, atol=1e-14))
    True
    """
    if vectors:
        for p in range(n):
            for q in range(n):
                V[p, q] = 1.0 if p == q else 0.0
    for _ in range(60):
        off = 0.0
        big = 0.0
        for p in range(n):
            a = abs(A[p, p])
            if a > big:
                big = a
            for q in range(p + 1, n):
                a = abs(A[p, q])
                if a > off:
                    off = a
        if off == 0.0 or off <= 1e-18 * big:
            return
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = A[p, q]
                if apq == 0.0:
                    continue
                app = A[p, p]
                aqq = A[q, q]
                theta = (aqq - app) / (2.0 * apq)
                if abs(theta) > 1e150:
                    t = 0.5 / theta
                else:
                    t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1.0))
                    if theta < 0.0:
                        t = -t
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                A[p, p] = app - t * apq
                A[q, q] = aqq + t * apq
                A[p, q] = 0.0
                A[q, p] = 0.0
                for r in range(n):
                    if r != p and r != q:
                        arp = A[r, p]
                        arq = A[r, q]
                        A[r, p] = c * arp - s * arq
                        A[p, r] = A[r, p]
                        A[r, q] = s * arp + c * arq
                        A[q, r] = A[r, q]
                if vectors:
                    for r in range(n):
                        vrp = V[r, p]
                        vrq = V[r, q]
                        V[r, p] = c * vrp - s * vrq
                        V[r, q] = s * vrp + c * vrq


@njit(cache=True, nogil=True)
def _min_eig(A: np.ndarray, n: int) -> float:
    """λ_min of the leading n×n block of A (A is overwritten)."""
    jacobi_eigh(A, A, n, False)
    w = A[0, 0]
    for p in range(1, n):
        if A[p, p] < w:
            w = A[p, p]
    return w


@njit(cache=True, nogil=True)
def _is_pd(A: np.ndarray, n: int, shift: float, L: np.ndarray) -> bool:
    """Whether A + shift·I (leading n×n block) is positive definite: Cholesky succeeds with
    every pivot > 0 (A is not modified; L is scratch)."""
    for j in range(n):
        dj = A[j, j] + shift
        for k in range(j):
            dj -= L[j, k] * L[j, k]
        if not (dj > 0.0):
            return False
        ljj = math.sqrt(dj)
        L[j, j] = ljj
        for i in range(j + 1, n):
            v = A[i, j]
            for k in range(j):
                v -= L[i, k] * L[j, k]
            L[i, j] = v / ljj
    return True


@njit(cache=True, nogil=True)
def project_packed(v: np.ndarray, out: np.ndarray, PI: np.ndarray, QI: np.ndarray, nb: int,
                   A: np.ndarray, V: np.ndarray, W: np.ndarray, T: np.ndarray) -> None:
    """Projection of one packed symmetric matrix ``v`` onto {leading nb×nb block ⪰ 0} → ``out``.

    nb = d + 1 is the PSD cone; nb = d the closure of ``solve(..., cone="closure")`` (the last
    row and column are free).  A block that is positive definite (Cholesky) is its own
    projection and is copied unchanged; otherwise its eigenvalues are clipped at 0.  The
    eigendecomposition is warm-started: ``V`` holds an orthogonal basis (on entry the
    eigenvectors of a previous, nearby block; on exit those of this one), Jacobi runs on VᵀAV,
    which is nearly diagonal, and the rotations are accumulated into V.  ``A``, ``W`` and ``T``
    are scratch.

    Examples
    --------
    >>> import numpy as np
    >>> pi, qi = np.triu_indices(2)
    >>> P = np.array([[1.0, 2.0], [2.0, 1.0]])              # eigenvalues 3 and −1
    >>> out, V = np.empty(3), np.eye(2)
    >>> project_packed(P[pi, qi].copy(), out, pi, qi, 2, np.zeros((2, 2)), V, np.zeros((2, 2)),
    ...                np.zeros((2, 2)))
    >>> [round(float(v), 12) for v in out]                 # 3·vvᵀ, v = (1, 1)/√2
    [1.5, 1.5, 1.5]
    """
    S = v.shape[0]
    for s in range(S):
        out[s] = v[s]
        if QI[s] < nb:
            A[PI[s], QI[s]] = v[s]
            A[QI[s], PI[s]] = v[s]
    if nb == 0 or _is_pd(A, nb, 0.0, T):
        return
    # T = Vᵀ A V, then Jacobi on T with rotations W; V ← V W
    for p in range(nb):
        for q in range(nb):
            acc = 0.0
            for r in range(nb):
                acc += A[p, r] * V[r, q]
            W[p, q] = acc
    for p in range(nb):
        for q in range(p, nb):
            acc = 0.0
            for r in range(nb):
                acc += V[r, p] * W[r, q]
            T[p, q] = acc
            T[q, p] = acc
    jacobi_eigh(T, W, nb, True)
    for p in range(nb):
        for q in range(nb):
            acc = 0.0
            for r in range(nb):
                acc += V[p, r] * W[r, q]
            A[p, q] = acc
    for q in range(nb):  # V ← V W, re-orthonormalised (modified Gram–Schmidt) against drift
        for r in range(q):
            acc = 0.0
            for p in range(nb):
                acc += V[p, r] * A[p, q]
            for p in range(nb):
                A[p, q] -= acc * V[p, r]
        acc = 0.0
        for p in range(nb):
            acc += A[p, q] * A[p, q]
        acc = 1.0 / math.sqrt(acc)
        for p in range(nb):
            V[p, q] = A[p, q] * acc
    neg = False
    for j in range(nb):
        if T[j, j] < 0.0:
            neg = True
    if not neg:
        return
    for s in range(S):
        p = PI[s]
        q = QI[s]
        if q < nb:
            acc = 0.0
            for j in range(nb):
                w = T[j, j]
                if w > 0.0:
                    acc += V[p, j] * w * V[q, j]
            out[s] = acc


@njit(cache=True, nogil=True)
def _scores(XXwT: np.ndarray, P: np.ndarray, q: np.ndarray) -> None:
    """q[c, i] = x̃_iᵀ Φ_c x̃_i from the packed Φ (K, S); ``XXwT`` is (S, n) (the inner loop over
    i is an axpy, which the compiler vectorises)."""
    S, n = XXwT.shape
    K = P.shape[0]
    for c in range(K):
        for i in range(n):
            q[c, i] = 0.0
        for s in range(S):
            pcs = P[c, s]
            if pcs != 0.0:
                for i in range(n):
                    q[c, i] += XXwT[s, i] * pcs


@njit(cache=True, nogil=True)
def _value(q: np.ndarray, y: np.ndarray, P: np.ndarray, Bw: np.ndarray, h: float,
           shift: float) -> float:
    """J_p from the scores q (K, n) of Φ and the packed Φ: Σ_i Σ_{c≠y_i} ℓ_h(u_ic) + Σ_c ⟨B, Φ_c⟩."""
    K, n = q.shape
    S = P.shape[1]
    val = 0.0
    for i in range(n):
        qy = q[y[i], i]
        for c in range(K):
            if c == y[i]:
                continue
            v = qy - q[c, i] + shift
            if v > h:
                val += v
            elif v >= -h:
                val += (v + h) * (v + h) / (4.0 * h)
    lin = 0.0
    for c in range(K):
        for s in range(S):
            lin += Bw[s] * P[c, s]
    return val + lin


@njit(cache=True, nogil=True)
def _alpha(q: np.ndarray, y: np.ndarray, h: float, shift: float, a: np.ndarray) -> None:
    """α_ic = ℓ'(u_ic) (n, K) for c ≠ y_i, 0 on the label, from the scores q (K, n)."""
    K, n = q.shape
    for i in range(n):
        qy = q[y[i], i]
        for c in range(K):
            if c == y[i]:
                a[i, c] = 0.0
            else:
                v = (qy - q[c, i] + shift + h) / (2.0 * h)
                a[i, c] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)


@njit(cache=True, nogil=True)
def _weighted_outer(a: np.ndarray, y: np.ndarray, XXu: np.ndarray, G: np.ndarray) -> None:
    """G[c] += Σ_i W_ic(α) x̃_ix̃_iᵀ (packed), W_ic = 1[y_i = c]Σ_c' α_ic' − α_ic; zeros skipped."""
    n, K = a.shape
    S = XXu.shape[1]
    for i in range(n):
        tot = 0.0
        for c in range(K):
            w = a[i, c]
            if w != 0.0:
                tot += w
                for s in range(S):
                    G[c, s] -= w * XXu[i, s]
        if tot != 0.0:
            yi = y[i]
            for s in range(S):
                G[yi, s] += tot * XXu[i, s]


@njit(cache=True, nogil=True)
def _feasible(Bp: np.ndarray, M: np.ndarray, t: float, tolB: float, PI: np.ndarray,
              QI: np.ndarray, D1: int, A: np.ndarray, L: np.ndarray) -> bool:
    """∀c: λ_min(B + t·M_c) ≥ −tol, tested as "B + t·M_c + tol·I is positive definite"
    (Cholesky; the two differ only by rounding on the boundary), stopping at the first class
    that fails (as ``all``)."""
    K, S = M.shape
    for c in range(K):
        for s in range(S):
            v = Bp[s] + t * M[c, s]
            A[PI[s], QI[s]] = v
            A[QI[s], PI[s]] = v
        if not _is_pd(A, D1, tolB, L):
            return False
    return True


@njit(cache=True, nogil=True)
def _repair(alpha: np.ndarray, idx_i: np.ndarray, idx_c: np.ndarray, Arep: np.ndarray,
            pinvA: np.ndarray, rankA: int, scale: float, iters: int) -> None:
    """``_repair_equalities`` of :mod:`simulations.large_margin`, in place on α (n, K).

    ``Arep`` maps the masked entries (``idx_i``, ``idx_c``) to Σ_i W_ic(α)x̃_i, c = 0..K−1;
    ``pinvA`` and ``rankA`` are its pseudo-inverse and rank (computed once by the caller).
    """
    nidx = idx_i.shape[0]
    R = Arep.shape[0]
    a = np.empty(nidx)
    for k in range(nidx):
        a[k] = alpha[idx_i[k], idx_c[k]]
    r = np.empty(R)
    for _ in range(iters):
        nr = 0.0
        for row in range(R):
            acc = 0.0
            for k in range(nidx):
                acc += Arep[row, k] * a[k]
            r[row] = acc
            nr += acc * acc
        if math.sqrt(nr) <= scale:
            break
        nfree = 0
        for k in range(nidx):
            if a[k] > 1e-12 and a[k] < 1 - 1e-12:
                nfree += 1
        done = False
        if nfree > 0:
            cols = np.empty(nfree, dtype=np.int64)
            f = 0
            for k in range(nidx):
                if a[k] > 1e-12 and a[k] < 1 - 1e-12:
                    cols[f] = k
                    f += 1
            Af = np.empty((R, nfree))
            for row in range(R):
                for f in range(nfree):
                    Af[row, f] = Arep[row, cols[f]]
            if np.linalg.matrix_rank(Af) == rankA:
                corr = np.linalg.pinv(Af) @ r
                for f in range(nfree):
                    a[cols[f]] -= corr[f]
                done = True
        if not done:
            corr = pinvA @ r
            for k in range(nidx):
                a[k] -= corr[k]
        for k in range(nidx):
            a[k] = 0.0 if a[k] < 0.0 else (1.0 if a[k] > 1.0 else a[k])
    for k in range(nidx):
        alpha[idx_i[k], idx_c[k]] = a[k]


@njit(cache=True, nogil=True)
def _dual(q: np.ndarray, y: np.ndarray, XXu: np.ndarray, Bp: np.ndarray, h: float, shift: float,
          tolB: float, repair: bool, idx_i: np.ndarray, idx_c: np.ndarray, Arep: np.ndarray,
          pinvA: np.ndarray, rankA: int, rscale: float, PI: np.ndarray, QI: np.ndarray, D1: int,
          alpha: np.ndarray, M: np.ndarray, A: np.ndarray, L: np.ndarray
          ) -> tuple[float, float, float]:
    """:func:`simulations.large_margin.dual_lower_bound` at the point with scores q.

    Returns (D, t, λ_min at the dual point); D = −inf if even t = 0 is infeasible.
    """
    K, n = q.shape
    S = XXu.shape[1]
    _alpha(q, y, h, shift, alpha)
    if repair:
        _repair(alpha, idx_i, idx_c, Arep, pinvA, rankA, rscale, 50)
    for c in range(K):
        for s in range(S):
            M[c, s] = 0.0
    _weighted_outer(alpha, y, XXu, M)
    if _feasible(Bp, M, 1.0, tolB, PI, QI, D1, A, L):
        t = 1.0
    elif not _feasible(Bp, M, 0.0, tolB, PI, QI, D1, A, L):
        for s in range(S):
            A[PI[s], QI[s]] = Bp[s]
            A[QI[s], PI[s]] = Bp[s]
        return -math.inf, 0.0, _min_eig(A, D1)
    else:
        lo = 0.0
        hi = 1.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if _feasible(Bp, M, mid, tolB, PI, QI, D1, A, L):
                lo = mid
            else:
                hi = mid
        t = lo
    D = 0.0
    for i in range(n):
        for c in range(K):
            if c != y[i]:
                a = t * alpha[i, c]
                D += a * shift + h * a * (1.0 - a)
    me = math.inf
    for c in range(K):
        for s in range(S):
            v = Bp[s] + t * M[c, s]
            A[PI[s], QI[s]] = v
            A[QI[s], PI[s]] = v
        w = _min_eig(A, D1)
        if w < me:
            me = w
    return D, t, me


@njit(cache=True, nogil=True)
def _wnorm(P: np.ndarray, wts: np.ndarray) -> float:
    """Frobenius norm of the stacked full matrices from their packed upper triangles."""
    K, S = P.shape
    acc = 0.0
    for c in range(K):
        for s in range(S):
            acc += wts[s] * P[c, s] * P[c, s]
    return math.sqrt(acc)


@njit(cache=True, nogil=True)
def _project_all(zt: np.ndarray, xn: np.ndarray, PI: np.ndarray, QI: np.ndarray, nb: int,
                 A: np.ndarray, Vs: np.ndarray, W: np.ndarray, T: np.ndarray) -> None:
    """Project every class (``Vs[c]``: the warm-start basis of class c)."""
    for c in range(zt.shape[0]):
        project_packed(zt[c], xn[c], PI, QI, nb, A, Vs[c], W, T)


@njit(cache=True, nogil=True)
def solve_problems(XXwT: np.ndarray, XXu: np.ndarray, y: np.ndarray, h: float, shift: float,
                   Bp: np.ndarray, tolB: np.ndarray, repair: np.ndarray, idx_i: np.ndarray,
                   idx_c: np.ndarray, Arep: np.ndarray, pinvA: np.ndarray, rankA: int,
                   rscale: float, x0: np.ndarray, nb: int, lip0: float, tol: float,
                   max_iter: int, check_every: int, out_x: np.ndarray, out_g: np.ndarray,
                   out_s: np.ndarray, out_hist: np.ndarray) -> None:
    """Solve the m problems (B_j = ``Bp[j]``, packed) one after the other.

    Parameters
    ----------
    XXwT : (S, n)
        Packed x̃_ix̃_iᵀ weighted by 2 off the diagonal (scores), transposed.
    XXu : (n, S)
        Packed x̃_ix̃_iᵀ, unweighted (gradients).
    y : (n,) int64
        Labels.
    h, shift : float
        Huber half-width and margin shift (1 for ``loss="margin"``, else 0).
    Bp : (m, S)
        Packed B_j = λI_Φ + sym(b_j).
    tolB, repair : (m,)
        The dual's eigenvalue tolerance 1e−11·max(1, max|B|)·max(1, n) and whether B_j is
        singular (λ_min(B_j) ≤ tol: the equality repair).
    idx_i, idx_c, Arep, pinvA, rankA, rscale
        The repair's linear map (see :func:`_repair`) and its tolerance 1e−14·max(1, Σ|A|).
    x0 : (m, K, S)
        Projected starting points.
    nb : int
        Size of the projected block: d + 1 (PSD cone) or d (closure).
    lip0, tol, max_iter, check_every
        Initial Lipschitz estimate and the stopping parameters of ``solve``.
    out_x, out_g : (m, K, S)
        The last iterate and the gradient there.
    out_s : (m, N_SCALARS)
        J_p, dual bound, iterations, Lipschitz estimate, t, λ_min at the dual point, repaired,
        projected-gradient norm, number of history rows (columns ``S_*``).
    out_hist : (m, H, 4)
        (iteration, J_p, gap, ‖Φ‖_F) at every check, H ≥ max_iter // check_every.
    """
    m, K, S = x0.shape
    n = XXu.shape[0]
    D1 = 0
    while D1 * (D1 + 1) // 2 < S:
        D1 += 1
    PI = np.empty(S, dtype=np.int64)
    QI = np.empty(S, dtype=np.int64)
    wts = np.empty(S)
    s = 0
    for p in range(D1):
        for q in range(p, D1):
            PI[s] = p
            QI[s] = q
            wts[s] = 1.0 if p == q else 2.0
            s += 1
    x = np.empty((K, S))
    z = np.empty((K, S))
    xn = np.empty((K, S))
    zt = np.empty((K, S))
    gz = np.empty((K, S))
    qx = np.empty((K, n))
    qz = np.empty((K, n))
    qn = np.empty((K, n))
    alpha = np.empty((n, K))
    M = np.empty((K, S))
    Bw = np.empty(S)
    A = np.zeros((D1, D1))
    W = np.zeros((D1, D1))
    T = np.zeros((D1, D1))
    Vs = np.zeros((K, D1, D1))
    for j in range(m):
        B = Bp[j]
        for s in range(S):
            Bw[s] = wts[s] * B[s]
        for c in range(K):
            for p in range(D1):
                for q in range(D1):
                    Vs[c, p, q] = 1.0 if p == q else 0.0
            for s in range(S):
                x[c, s] = x0[j, c, s]
                z[c, s] = x[c, s]
        _scores(XXwT, x, qx)
        fx = _value(qx, y, x, Bw, h, shift)
        for c in range(K):
            for i in range(n):
                qz[c, i] = qx[c, i]
        fz = fx
        z_is_x = True
        tk = 1.0
        Lip = lip0
        lower = -math.inf
        t_d = 0.0
        me = math.nan
        nh = 0
        it = 0
        for it in range(1, max_iter + 1):
            if not z_is_x:
                fz = _value(qz, y, z, Bw, h, shift)
            _alpha(qz, y, h, shift, alpha)
            for c in range(K):
                for s in range(S):
                    gz[c, s] = B[s]
            _weighted_outer(alpha, y, XXu, gz)
            while True:  # backtracking: double L until the descent condition holds
                for c in range(K):
                    for s in range(S):
                        zt[c, s] = z[c, s] - gz[c, s] / Lip
                _project_all(zt, xn, PI, QI, nb, A, Vs, W, T)
                _scores(XXwT, xn, qn)
                fn = _value(qn, y, xn, Bw, h, shift)
                dot = 0.0
                sq = 0.0
                for c in range(K):
                    for s in range(S):
                        df = xn[c, s] - z[c, s]
                        dot += wts[s] * gz[c, s] * df
                        sq += wts[s] * df * df
                if fn <= fz + dot + 0.5 * Lip * sq + 1e-12 * abs(fz):
                    break
                Lip *= 2.0
            if fn > fx:  # adaptive restart (O'Donoghue & Candès): z = x
                tk = 1.0
                for c in range(K):
                    for s in range(S):
                        z[c, s] = x[c, s]
                    for i in range(n):
                        qz[c, i] = qx[c, i]
                fz = fx
                z_is_x = True
                Lip *= 0.95
            else:
                t_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * tk * tk))
                beta = (tk - 1.0) / t_next
                for c in range(K):
                    for s in range(S):
                        z[c, s] = xn[c, s] + beta * (xn[c, s] - x[c, s])
                        x[c, s] = xn[c, s]
                    for i in range(n):
                        qz[c, i] = qn[c, i] + beta * (qn[c, i] - qx[c, i])
                        qx[c, i] = qn[c, i]
                fx = fn
                tk = t_next
                z_is_x = False
                Lip *= 0.98
            if it % check_every == 0:
                lower, t_d, me = _dual(qx, y, XXu, B, h, shift, tolB[j], repair[j], idx_i, idx_c,
                                       Arep, pinvA, rankA, rscale, PI, QI, D1, alpha, M, A, T)
                gap = (fx - lower) / max(1.0, abs(fx))
                out_hist[j, nh, 0] = it
                out_hist[j, nh, 1] = fx
                out_hist[j, nh, 2] = gap
                out_hist[j, nh, 3] = _wnorm(x, wts)
                nh += 1
                if gap <= tol:
                    break
        # the gradient at x and the projected-gradient mapping (step 1)
        _alpha(qx, y, h, shift, alpha)
        for c in range(K):
            for s in range(S):
                out_g[j, c, s] = B[s]
        _weighted_outer(alpha, y, XXu, out_g[j])
        for c in range(K):
            for s in range(S):
                zt[c, s] = x[c, s] - out_g[j, c, s]
        _project_all(zt, xn, PI, QI, nb, A, Vs, W, T)
        pg = 0.0
        for c in range(K):
            for s in range(S):
                df = x[c, s] - xn[c, s]
                pg += wts[s] * df * df
                out_x[j, c, s] = x[c, s]
        out_s[j, S_VALUE] = fx
        out_s[j, S_LOWER] = lower
        out_s[j, S_ITERS] = it
        out_s[j, S_LIP] = Lip
        out_s[j, S_T] = t_d
        out_s[j, S_MINEIG] = me
        out_s[j, S_REPAIRED] = 1.0 if repair[j] else 0.0
        out_s[j, S_PG] = math.sqrt(pg)
        out_s[j, S_NHIST] = nh
