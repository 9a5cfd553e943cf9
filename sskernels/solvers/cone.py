"""Alignment maximization over a polyhedral cone of spectral coefficients.

The problem of the alignment-based spectral transforms (OSK: Zhu, Kandola, Ghahramani
& Lafferty, NIPS 2004; DSK: Hoi, Lyu & Chang, KDD 2006; written out in Wang et al.
2015, Sec. 2, and Liu et al. 2009, eq. (7)-(8))::

    max_mu  a^T mu   s.t.  mu^T G mu <= 1,  A mu >= 0,  mu >= 0                 (P)

with ``G = M^T M``, ``a = M^T vec(T)`` (:mod:`sskernels.kernels.alignment`).
:func:`alignment_qp` solves it as the convex QP

    (Q)   min_{mu in C}  1/2 mu^T G mu - a^T mu        C = {mu : A mu >= 0, mu >= 0}

and rescales (derivation in its docstring).  The solver rule, in this one place:

* no ``A`` (the orthant: alignf, up to thousands of base kernels) — Lawson-Hanson's
  active-set NNLS in Gram form on the exact ``G`` (:func:`gram_nnls`): ``"nnls"``;
* ``A`` made of chain links only (the order and decay constraints: always, for OSK and
  DSK) — the cone has explicit generators (:func:`chain_generators`) and (Q) is a
  non-negative least-squares problem (Lawson-Hanson on a factor of ``G``,
  :func:`cone_nnls`): ``"nnls"``;
* any other ``A`` — HiGHS's QP solver: ``"highs-qp"`` (documented, not a fallback);
* **fallback**: when NNLS stops at its iteration limit (``50 m``), HiGHS solves the
  same scaled (Q); the returned :class:`SolveInfo` says so.

``G``'s numerical rank is one rule (:data:`RANK_RTOL`): its range and null space, for alignf's
minimum-norm tie rule, come from a pivoted Cholesky factor (:func:`psd_split`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack, qr, solve_triangular
from scipy.optimize import nnls
from scipy.sparse.linalg import eigsh

from sskernels.solvers.highs import solve_qp
from sskernels.solvers.report import SolveInfo

__all__ = [
    "AlignmentSolution",
    "DEGENERATE_TOL",
    "RangeSplit",
    "alignment_qp",
    "alignf",
    "chain_generators",
    "cone_nnls",
    "cone_qp",
    "gram_nnls",
    "min_norm_optimum",
    "psd_split",
]

#: G's numerical rank: eigenvalues (the chains' factor in :func:`cone_nnls`), pivots of its
#: Cholesky factor (:func:`psd_split`) or Schur complements (:func:`gram_nnls`) below this
#: fraction of its largest eigenvalue count as 0
RANK_RTOL = 1e-12

#: relative size of the QP optimum below which (P) counts as degenerate (optimum 0)
DEGENERATE_TOL = 1e-9


@dataclass
class AlignmentSolution:
    """Solution of (P): ``mu`` with ``mu^T G mu = 1``, its value ``a^T mu`` (the alignment
    ``<K_LL, T>_F / ||K_LL||_F``), whether (P) was degenerate (the caller's fallback point
    was returned) and the :class:`SolveInfo` of the QP (None when none was needed)."""

    mu: np.ndarray
    value: float
    degenerate: bool
    info: SolveInfo | None = None
    #: ``G``'s range and null space (:func:`psd_split`) when the solve computed them (no
    #: constraint rows, no ``scale``): the tie rule's input
    split: RangeSplit | None = field(default=None, repr=False)


@dataclass
class RangeSplit:
    """A positive semidefinite ``G`` (m x m) split into its range and null space.

    ``G = R^T R`` on its numerical range (:attr:`R`: r x m, ``r`` the numerical rank),
    ``Qn`` (m x (m - r)) an orthonormal basis of the null space and ``lam_max`` the largest
    eigenvalue; :meth:`rhs` gives the ``r`` with ``R^T r = a`` for an ``a`` in the range.
    The range is used through its orthogonal projector ``P = I - Qn Qn^T`` only
    (:meth:`project`, :meth:`columns`): an orthonormal basis of it would cost another
    O(m^3).  Made by :func:`psd_split` from ``dpstrf``'s output (``factor``: its upper
    triangle holds ``U``, ``piv`` the 0-based pivots).
    """

    factor: np.ndarray = field(repr=False)
    piv: np.ndarray = field(repr=False)
    rank: int
    Qn: np.ndarray = field(repr=False)
    lam_max: float

    @cached_property
    def R(self):
        """``R`` (r x m) with ``G = R^T R`` on the range: ``U``'s first r rows, unpivoted."""
        r, m = self.rank, self.factor.shape[0]
        out = np.empty((r, m))
        out[:, self.piv] = np.triu(self.factor[:r])
        return out

    def rhs(self, a):
        """The ``r`` with ``R^T r = a`` (``a`` in the range; its first r pivoted rows)."""
        r = self.rank
        return solve_triangular(
            self.factor[:r, :r], np.asarray(a, dtype=float)[self.piv[:r]], trans="T"
        )

    def project(self, x):
        """``P x``: the range part of ``x``."""
        return x - self.Qn @ (self.Qn.T @ x)

    def columns(self, S):
        """``P[:, S]`` for a boolean mask ``S`` (m x |S|)."""
        idx = np.flatnonzero(S)
        out = -(self.Qn @ self.Qn[idx].T)
        out[idx, np.arange(idx.size)] += 1.0
        return out


def psd_split(G, rtol=None):
    """Range and null space of a positive semidefinite ``G`` by pivoted Cholesky.

    LAPACK's ``dpstrf`` (Cholesky with complete pivoting, ``P^T G P = U^T U``) stops at the
    first pivot at most ``rtol`` times ``G``'s largest eigenvalue (``RANK_RTOL`` when None;
    the largest eigenvalue by Lanczos from the all-ones vector, deterministic): the ``r``
    rows of ``U`` give ``R``, and ``P [-U_11^{-1} U_12; I]`` spans the null space
    (orthonormalized by a QR of its ``m - r`` columns).  About ``m^3 / 3`` operations where
    a full eigendecomposition takes ten times that; the dropped Schur complement has every
    eigenvalue below ``(m - r) rtol`` of the largest.

    Parameters
    ----------
    G : ndarray of shape (m, m)
        Symmetric positive semidefinite.
    rtol : float, default=None
        The relative pivot threshold; None for ``RANK_RTOL``.

    Returns
    -------
    RangeSplit

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.solvers.cone import psd_split
    >>> M = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 1.0]])     # rank 2
    >>> s = psd_split(M.T @ M)
    >>> s.rank, s.Qn.shape
    (2, (3, 1))
    >>> bool(np.allclose(s.R.T @ s.R, M.T @ M)), bool(np.allclose(M @ s.Qn, 0))
    (True, True)
    """
    G = np.asarray(G, dtype=float)
    m = G.shape[0]
    rtol = RANK_RTOL if rtol is None else float(rtol)
    lam_max = _largest_eigenvalue(G)
    c, piv, r, info = lapack.dpstrf(G, tol=rtol * max(lam_max, 0.0), lower=0)
    if info < 0:
        raise ValueError(f"dpstrf: argument {-info} is invalid")
    piv = np.asarray(piv, dtype=np.intp) - 1
    r = int(r) if lam_max > 0 else 0
    N = np.zeros((m, m - r))
    if m > r:
        if r:  # solve_triangular reads U_11's upper triangle only
            N[piv[:r]] = -solve_triangular(c[:r, :r], c[:r, r:])
        N[piv[r:]] = np.eye(m - r)
        N = qr(N, mode="economic")[0]
    return RangeSplit(c, piv, r, N, lam_max)


def _largest_eigenvalue(G):
    """``G``'s largest eigenvalue: LAPACK's divide and conquer (all eigenvalues: ``dsyevd``,
    robust where the one-eigenvalue ``dsyevr`` failed on small matrices under some OpenBLAS
    kernels) up to m = 500, Lanczos (ARPACK, from the all-ones vector: deterministic) above."""
    m = G.shape[0]
    if m == 0:
        return 0.0
    if m <= 500:
        return float(np.linalg.eigvalsh(G)[-1])
    return float(eigsh(G, k=1, which="LA", v0=np.ones(m), tol=1e-6, return_eigenvectors=False)[0])


def chain_generators(A, m):
    """Generators of the cone ``{x >= 0 : A x >= 0}`` when every row of ``A`` is a chain link.

    A link is a row ``c (x_t - x_{t+1}) >= 0`` with ``c > 0`` (the order constraints, and
    the decay constraints once rescaled).  The cone is then a product of order-chain
    cones over the maximal linked segments, each generated by the indicator vectors of
    its prefixes: ``x = B w`` with ``w >= 0``.  Returns ``B`` (m, m), or None when some
    row is not a link.  (:func:`cone_qp` does not call it without rows: the orthant.)

    Parameters
    ----------
    A : array-like or sparse matrix of shape (k, m)
        The constraint rows of ``A x >= 0``.
    m : int
        The number of variables.

    Returns
    -------
    B : ndarray of shape (m, m) or None
        The generators (columns), or None when some row is not a link.
    """
    A = sp.csr_matrix(A)
    if A.shape[0] and not np.all(np.diff(A.indptr) == 2):
        return None
    # every row has two entries (at 2r, 2r + 1): order each pair by column
    c = A.indices.reshape(-1, 2)
    v = A.data.reshape(-1, 2)
    swap = c[:, 0] > c[:, 1]
    c0, c1 = np.where(swap, c[:, 1], c[:, 0]), np.where(swap, c[:, 0], c[:, 1])
    v0, v1 = np.where(swap, v[:, 1], v[:, 0]), np.where(swap, v[:, 0], v[:, 1])
    # a link: consecutive columns, c > 0 first, -c second (to 1e-12 relative)
    if not np.all((c1 == c0 + 1) & (v0 > 0) & (np.abs(v1 + v0) <= 1e-12 * np.abs(v0))):
        return None
    links = set(c0.tolist())
    B = np.zeros((m, m))
    for k in range(m):
        start = k
        while start - 1 in links:
            start -= 1
        B[start : k + 1, k] = 1.0
    return B


def cone_nnls(G, a, B, split=None):
    """``argmin_{x = B w, w >= 0} 1/2 x^T G x - a^T x`` by non-negative least squares.

    (``B = None``: the identity, the orthant ``x >= 0``.)

    With generators (OSK's and DSK's chains, tens of variables): with ``G = R^T R`` (from
    its eigendecomposition, eigenvalues below ``RANK_RTOL`` of the largest dropped) and
    ``R^T r = a`` (``a = M^T t`` lies in the range of ``G``), the objective is
    ``1/2 ||R B w - r||^2`` up to a constant: Lawson-Hanson NNLS solves it exactly, with none
    of the iteration blow-up an active-set QP can show on these badly scaled chains.  (No tie
    rule follows: on a singular ``G`` the point returned is the one NNLS reaches on this
    factor, kept as it is.)  The orthant (alignf, up to thousands of variables): the same
    active-set method in Gram form (:func:`gram_nnls`), whose steps cost O(m |P|) instead of
    O(r m); ``split`` (``psd_split(G)``, when the caller has it) gives its dependence
    threshold.  Raises ``RuntimeError`` at NNLS's iteration limit (50 m).

    Parameters
    ----------
    G : ndarray of shape (m, m)
        The quadratic term, symmetric positive semidefinite.
    a : ndarray of shape (m,)
        The linear term, in the range of ``G``.
    B : ndarray of shape (m, m) or None
        The cone's generators (:func:`chain_generators`); None for the orthant.
    split : RangeSplit, default=None
        ``psd_split(G)`` (the orthant only); None to compute what is needed.

    Returns
    -------
    x : ndarray of shape (m,)
        The minimizer over the cone.

    Raises
    ------
    RuntimeError
        At NNLS's iteration limit.
    """
    if B is None:  # the orthant: no generators to multiply by
        lam_max = _largest_eigenvalue(G) if split is None else split.lam_max
        return gram_nnls(G, a, RANK_RTOL * lam_max, maxiter=50 * a.size)
    lam, Q = np.linalg.eigh(G)
    keep = lam > RANK_RTOL * max(lam.max(), 0.0)
    sq = np.sqrt(lam[keep])
    R = sq[:, None] * Q[:, keep].T
    r = (Q[:, keep].T @ a) / sq
    w, _ = nnls(R @ B, r, maxiter=50 * B.shape[1])
    return B @ w


def gram_nnls(G, a, dependent, maxiter=None):
    """``argmin_{x >= 0} 1/2 x^T G x - a^T x`` by Lawson-Hanson's active-set method in Gram form.

    Lawson & Hanson (*Solving Least Squares Problems*, 1974, ch. 23) on ``||R x - r||`` with
    ``G = R^T R``, ``a = R^T r``, written with ``G`` and ``a`` only (Bro & de Jong, *J.
    Chemometrics* 1997): the gradient ``w = a - G x`` costs O(m |P|) with ``P`` the passive
    set, and the passive problem ``G_PP z = a_P`` is solved by Cholesky (``|P|`` is the
    optimum's support, ~100 where m is in the thousands).  The steps are Lawson-Hanson's:
    the variable with the largest ``w`` enters ``P``; infeasible passive solutions are
    interpolated back to the feasible segment and the variables reaching 0 leave.  A
    variable whose column is numerically dependent on ``P``'s (the Schur complement
    ``G_jj - G_jP G_PP^{-1} G_Pj`` at most ``dependent``: a direction of ``G`` below its rank
    threshold) or whose first passive value is not positive is not admitted until ``x``
    changes, as Lawson-Hanson reject such a column.  Stops when every ``w_j`` outside ``P``
    is at most ``10 eps m max(|a|, 1)``.  Raises ``RuntimeError`` (the caller's fallback) if a
    passive block is not numerically positive definite after all.

    Parameters
    ----------
    G : ndarray of shape (m, m)
        Symmetric positive semidefinite.
    a : ndarray of shape (m,)
        The linear term.
    dependent : float
        The Schur complement up to which a column counts as dependent.
    maxiter : int, default=None
        Passive solves allowed (None: 50 m).

    Returns
    -------
    x : ndarray of shape (m,)

    Raises
    ------
    RuntimeError
        At the iteration limit.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.solvers.cone import gram_nnls
    >>> G = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> gram_nnls(G, np.array([1.0, -1.0]), 1e-12)          # x_2 would be negative
    array([0.5, 0. ])
    """
    m = a.size
    maxiter = 50 * m if maxiter is None else int(maxiter)
    x = np.zeros(m)
    passive = np.zeros(m, dtype=bool)
    barred = np.zeros(m, dtype=bool)
    w = np.asarray(a, dtype=float).copy()
    tol = 10.0 * np.finfo(float).eps * m * max(float(np.abs(w).max()), 1.0)
    solves = 0
    while True:
        cand = np.where(passive | barred, -np.inf, w)
        j = int(np.argmax(cand))
        if not cand[j] > tol:
            return x
        idx = np.flatnonzero(passive)
        schur = float(G[j, j])
        if idx.size:
            L, info = lapack.dpotrf(G[np.ix_(idx, idx)], lower=1, clean=1)
            if info != 0:
                raise RuntimeError("NNLS (Gram form): the passive set's Gram block is singular")
            v, _ = lapack.dtrtrs(L, G[idx, j], lower=1)
            schur -= float(v @ v)
        if not schur > dependent:
            barred[j] = True
            continue
        passive[j] = True
        first = True
        while True:
            solves += 1
            if solves > maxiter:
                raise RuntimeError(f"NNLS (Gram form) reached its iteration limit ({maxiter})")
            idx = np.flatnonzero(passive)
            L, info = lapack.dpotrf(G[np.ix_(idx, idx)], lower=1, clean=1)
            if info != 0:
                raise RuntimeError("NNLS (Gram form): the passive set's Gram block is singular")
            z, _ = lapack.dpotrs(L, a[idx], lower=1)
            if first and not z[np.searchsorted(idx, j)] > 0:
                passive[j] = False
                barred[j] = True
                break
            first = False
            if z.min() > 0:
                x[:] = 0.0
                x[idx] = z
                barred[:] = False
                break
            xi = x[idx]
            neg = np.flatnonzero(z <= 0)
            ratios = xi[neg] / (xi[neg] - z[neg])
            k = neg[int(np.argmin(ratios))]
            xi = xi + float(ratios.min()) * (z - xi)
            xi[k] = 0.0  # the variable that reached the bound
            xi[xi <= 0] = 0.0
            x[idx] = xi
            passive[idx[xi <= 0]] = False
        w = a - G[:, passive] @ x[passive]


def cone_qp(G, a, A, split=None):
    """Solve (Q) ``min 1/2 x^T G x - a^T x`` s.t. ``A x >= 0``, ``x >= 0`` (the module's rule).

    Returns ``(x, SolveInfo)``: ``"nnls"`` over the cone's generators when ``A`` is a
    chain, ``"highs-qp"`` otherwise, and ``"highs-qp"`` with a fallback reason when NNLS
    hit its iteration limit.  ``split``: ``psd_split(G)`` if the caller has it.

    Parameters
    ----------
    G : ndarray of shape (m, m)
        The quadratic term, symmetric positive semidefinite.
    a : ndarray of shape (m,)
        The linear term.
    A : array-like or sparse matrix of shape (k, m)
        The constraint rows of ``A x >= 0`` (``k = 0``: the orthant).
    split : RangeSplit, default=None
        ``psd_split(G)``, used by NNLS; None to compute it.

    Returns
    -------
    x : ndarray of shape (m,)
        The minimizer.
    info : SolveInfo
        ``"nnls"`` or ``"highs-qp"`` (with the fallback's reason when NNLS stopped).

    Raises
    ------
    SolverError
        If HiGHS, when it runs, does not reach an optimum.
    """
    A = sp.csr_matrix(A)
    orthant = A.shape[0] == 0
    B = None if orthant else chain_generators(A, a.size)
    reason = None
    if orthant or B is not None:
        try:
            return cone_nnls(G, a, B, split=split), SolveInfo("nnls")
        except RuntimeError as exc:
            reason = f"cone QP nnls->highs-qp (nnls: {exc})"
    x, _ = solve_qp(G, -a, A, row_lower=0.0, row_upper=np.inf, col_lower=0.0, col_upper=np.inf)
    return x, SolveInfo("highs-qp", fallback=reason)


def alignment_qp(G, a, constraint_matrix=None, fallback=None, scale=None):
    """Maximize the alignment ``a^T mu`` s.t. ``mu^T G mu <= 1``, ``A mu >= 0``, ``mu >= 0``.

    This is (P) of the module docstring, Zhu et al.'s QCQP (Wang et al. 2015, Sec. 2;
    Liu et al. eq. (7) for the order constraints of OSK, eq. (8) for the decay
    constraints of DSK), with ``A`` = ``constraint_matrix`` (rows ``>= 0``; ``None``:
    only ``mu >= 0``).  It is solved as the convex QP (Q) over the cone
    ``C = {mu : A mu >= 0, mu >= 0}`` by :func:`cone_qp` and rescaled.

    Derivation.  ``C`` is a cone and (P) is positively homogeneous, so its value is
    ``p* = sup {a^T mu / ||M mu|| : mu in C, M mu != 0}`` (a point of the ball is scaled
    up to its boundary; ``p* >= 0`` since ``mu = 0`` is feasible).  ``M mu = 0`` forces
    ``a^T mu = t^T M mu = 0``, so (P) is bounded even when ``G`` is singular.  On the ray
    ``{s mu : s >= 0}`` of a ``mu in C`` with ``M mu != 0`` the objective of (Q) is
    ``1/2 s^2 ||M mu||^2 - s a^T mu``, minimized at ``s = (a^T mu)_+ / ||M mu||^2`` with
    value ``-1/2 ((a^T mu)_+ / ||M mu||)^2``.  Minimizing over rays gives
    ``min (Q) = -1/2 p*^2``, attained on the ray of a maximizer of (P); a minimizer
    ``mu_Q`` of (Q) is optimal on its own ray, so ``a^T mu_Q = ||M mu_Q||^2`` and
    ``p := ||M mu_Q|| = p*``.  Hence, if ``p > 0``, ``mu* = mu_Q / ||M mu_Q||`` solves (P)
    with value ``p``.  (Equivalently ``M mu_Q`` is the Frobenius projection of ``T`` onto
    the cone ``{K_LL(mu) : mu in C}``: the nearest feasible labeled block.)  Liu et al.
    (Sec. 2) note that Zhu et al. solve their problem as a QCQP and Hoi et al. theirs as
    a QP.

    Degenerate case: ``p = 0`` (``a^T mu <= 0`` on all of ``C``; e.g. ``a <= 0``).  The
    optimal alignment is then 0, attained by ``mu = 0``, which is no kernel.  We return
    ``fallback`` (a feasible point the caller supplies; ``None`` -> zeros) scaled to
    ``mu^T G mu = 1`` when possible, flagged ``degenerate=True``; the caller reports it.

    Scaling.  (Q) is solved in ``nu`` with ``mu = scale o nu`` (``scale``: positive, the
    typical magnitudes of the coefficients; ``None`` = ones), ``G`` and ``a`` divided by
    their largest entries and the rows of ``A diag(scale)`` equilibrated (none of which
    changes the cone or the optimal ray).  DSK passes ``scale_t = eta^{-(t-1)}``, which
    turns the decay chain into the order chain ``nu_t >= nu_{t+1}``.

    Returns an :class:`AlignmentSolution`.

    Parameters
    ----------
    G : array-like of shape (m, m)
        ``M^T M``, symmetric positive semidefinite.
    a : array-like of shape (m,)
        ``M^T vec(T)``.
    constraint_matrix : array-like or sparse matrix of shape (k, m), default=None
        The rows ``A`` of ``A mu >= 0``; None for only ``mu >= 0``.
    fallback : array-like of shape (m,), default=None
        The point returned (scaled) in the degenerate case; None for zeros.
    scale : array-like of shape (m,), default=None
        Positive typical magnitudes of the coefficients; None for ones.

    Returns
    -------
    AlignmentSolution
        ``mu``, its alignment ``a^T mu``, ``degenerate`` and the QP's :class:`SolveInfo`.

    Raises
    ------
    ValueError
        If ``scale`` is not a positive vector of the length of ``a``.
    SolverError
        If HiGHS, when it runs, does not reach an optimum.
    """
    G = np.asarray(G, dtype=float)
    a = np.asarray(a, dtype=float)
    m = a.size
    d = np.ones(m) if scale is None else np.asarray(scale, dtype=float)
    if d.shape != (m,) or not np.all(d > 0):
        raise ValueError("scale must be a positive vector of the length of a")
    A = sp.csr_matrix((0, m)) if constraint_matrix is None else sp.csr_matrix(constraint_matrix)
    A = (A @ sp.diags(d)).tocsr()
    row_max = np.asarray(abs(A).max(axis=1).todense()).ravel() if A.shape[0] else np.zeros(0)
    A = (sp.diags(1.0 / np.where(row_max > 0, row_max, 1.0)) @ A).tocsr()
    A = A[row_max > 0]
    orthant = scale is None and A.shape[0] == 0
    Gd = G if orthant else d[:, None] * G * d[None, :]
    ad = d * a
    g_scale = float(np.max(np.diag(Gd))) if m else 0.0
    a_scale = float(np.max(np.abs(ad))) if m else 0.0
    mu, info, split = None, None, None
    if g_scale > 0 and a_scale > 0 and np.max(ad) > 0:
        as_ = ad / a_scale
        if orthant:
            # no constraint rows (alignf; m up to thousands): two passes over G, and its
            # range split (pivoted Cholesky): the NNLS's dependence threshold, and kept for
            # the caller's tie rule (G's null space is Gs's)
            Gs = Gd + Gd.T
            Gs *= 0.5 / g_scale
            split = psd_split(Gs)
            x, info = cone_qp(Gs, as_, A, split=split)
        else:
            Gs = Gd / g_scale
            Gs = 0.5 * (Gs + Gs.T)
            x, info = cone_qp(Gs, as_, A)
        x = np.maximum(x, 0.0)
        # a'^T x = x^T G' x = p'^2 at the optimum; p'^2 ~ 0 means p* = 0
        if float(as_ @ x) > DEGENERATE_TOL and float(x @ Gs @ x) > DEGENERATE_TOL:
            mu = d * x
    if mu is None:
        mu = np.zeros(m) if fallback is None else np.asarray(fallback, dtype=float).copy()
        nrm2 = float(mu @ G @ mu)
        if nrm2 > 0:
            mu = mu / np.sqrt(nrm2)
        return AlignmentSolution(mu, float(a @ mu), True, info)
    mu = mu / np.sqrt(float(mu @ G @ mu))
    return AlignmentSolution(mu, float(a @ mu), False, info, split)


#: slack of the least-distance program's rows ``x >= 0`` (relative to ``max |Q_r c|``):
#: the optimal set often has no interior (coordinates that are 0 at every optimum), and
#: without slack NNLS returns a spurious infeasibility certificate built from rounding errors
TIE_LDP_SLACK = 1e-12

#: Tikhonov weights of the tie rule's second method (relative to the unit-norm equality
#: rows), tried in this order until the support they give is certified
TIE_TIKHONOV = (1e-10, 1e-8, 1e-12)

#: the tie rule's certificate: relative duality gap and relative residual of the equality rows
TIE_GAP_TOL = 1e-6
TIE_FEAS_TOL = 1e-9

#: relative residual of the equality rows up to which an uncertified Tikhonov point is kept
#: (the rule's last case, recorded as ``tie_certified: False``, not a fallback)
TIE_TIKHONOV_RESIDUAL = 1e-8


def _polish(split, x0, x, c_norm):
    """The exact solution of the equality rows ``P x = x0`` on the support of ``x``
    (least squares), or None when it is negative somewhere or does not solve them."""
    S = x > 0
    if not S.any():
        return None
    PS = split.columns(S)
    xs = np.linalg.lstsq(PS, x0, rcond=None)[0]
    xs[(xs < 0) & (xs >= -TIE_FEAS_TOL * np.abs(xs).max())] = 0.0  # rounding
    if xs.min() < 0 or np.linalg.norm(PS @ xs - x0) > TIE_FEAS_TOL * c_norm:
        return None
    out = np.zeros(x.size)
    out[S] = xs
    return out


def _ldp_optimum(split, x0, c_norm, mu):
    """The minimum-norm optimum by least-distance programming (Lawson & Hanson, *Solving
    Least Squares Problems*, 1974, ch. 23), with its certificate.

    Every ``x`` with ``P x = x0`` is ``x0 + Qn z`` (``x0 = P mu``, ``Qn`` the orthonormal
    basis of the null space, ``P = I - Qn Qn^T``), and ``||x||^2 = ||x0||^2 + ||z||^2``; so
    the tie rule is the LDP
    ``min ||z||`` s.t. ``Qn z >= -x0``, in the ``m - r`` null-space coordinates only.  LDP
    is one NNLS: ``u = argmin_{u >= 0} ||E u - f||`` with ``E = [Qn^T; h^T]``,
    ``f = e_{m-r+1}``, then ``z = -res_{1:m-r} / res_{m-r+1}``, with ``h = -x0`` and:

    * *scale*: ``z`` in units of ``t = ||Qn^T mu||``, the null-space part of the known
      optimum ``mu`` (``||z*|| <= t``); then ``res_{m-r+1} ~ -1/2`` and the division is
      well conditioned (with ``max |x0|`` as unit it was 1e-5 on Wang et al.'s g241n);
    * *slack*: the rows ``x >= 0`` relaxed by ``TIE_LDP_SLACK max |x0|`` or, if larger,
      ten times the rounding by which ``mu = x0 + Qn Qn^T mu`` itself violates them: the
      optimal set often has no interior, and without slack NNLS returns a spurious
      infeasibility certificate built from rounding errors.

    When ``mu``'s null-space part dwarfs ``c`` (``||mu|| / ||c||`` up to 4e4 on Wang et
    al.'s Text) one choice does not certify every instance: the slack relative to
    ``max |mu|`` and the unit ``max |x0|`` are tried next, in the order (x0, t), (mu, t),
    (mu, x0), (x0, x0), until one is certified; else the best point is returned
    (uncertified: the caller falls back).  Each try is one NNLS with ``m - r + 1`` rows.

    Entries within the slack's rounding band (``4 slack``) are set to 0 when the equality
    rows still hold to ``TIE_FEAS_TOL``; otherwise the point is polished on its support
    (:func:`_polish`; with and then without the band).  Certificate: ``lambda = alpha u`` (best
    ``alpha``) is a dual point of the LDP without slack,
    ``D = 1/2 (x0^T u)^2 / ||Qn^T u||^2`` (when ``-x0^T u > 0``, else 0) bounds
    ``min 1/2 ||z||^2`` from below, so ``1/2 ||c||^2 + D`` bounds the tie rule's optimum
    (weak duality).  Returns ``(x, gap, residual)``, or None when NNLS stops or the
    polish fails.
    """
    Qn = split.Qn
    t = float(np.linalg.norm(Qn.T @ mu))
    if not t > 0:  # mu = x0: already the shortest point
        return mu.copy(), 0.0, float(np.linalg.norm(split.project(mu) - x0)) / c_norm
    rounding = max(-float(np.min(x0 + Qn @ (Qn.T @ mu))), 0.0)
    x0_max, mu_max = float(np.abs(x0).max()), float(np.abs(mu).max())
    best = None
    for base, unit in ((x0_max, t), (mu_max, t), (mu_max, x0_max), (x0_max, x0_max)):
        slack = max(TIE_LDP_SLACK * base, 10.0 * rounding)
        out = _ldp_solve(split, x0, c_norm, slack, unit)
        if out is not None and out[1] <= TIE_GAP_TOL and out[2] <= TIE_FEAS_TOL:
            return out
        if out is not None and (best is None or out[1] + out[2] < best[1] + best[2]):
            best = out
    return best


def _ldp_solve(split, x0, c_norm, slack, unit):
    """One LDP solve of :func:`_ldp_optimum` with ``z`` in units of ``unit``."""
    Qn = split.Qn
    k = Qn.shape[1]
    if not unit > 0:
        return None
    E = np.vstack([Qn.T, -((x0 + slack) / unit)[None]])
    f = np.zeros(k + 1)
    f[-1] = 1.0
    try:
        u, _ = nnls(E, f, maxiter=50 * E.shape[1])
    except RuntimeError:
        return None
    res = E @ u - f
    if not abs(res[k]) > 0:  # "infeasible": impossible (mu is feasible)
        return None
    raw = np.maximum(x0 + Qn @ (-res[:k] / res[k] * unit), 0.0)
    band = np.where(raw <= 4.0 * slack, 0.0, raw)  # the slack's rounding band: active rows
    x = None
    for cand in (band, raw):
        if float(np.linalg.norm(split.project(cand) - x0)) <= TIE_FEAS_TOL * c_norm:
            x = cand
            break
    for cand in (band, raw):
        if x is None:
            x = _polish(split, x0, cand, c_norm)
    if x is None:
        return None
    feas = float(np.linalg.norm(split.project(x) - x0)) / c_norm
    g1, g2 = -float(x0 @ u), float(np.sum((Qn.T @ u) ** 2))
    dual = 0.5 * float(x0 @ x0) + (0.5 * g1 * g1 / g2 if g1 > 0 and g2 > 0 else 0.0)
    primal = 0.5 * float(x @ x)
    gap = max(primal - dual, 0.0) / max(primal, np.finfo(float).tiny)
    return x, gap, feas


def min_norm_optimum(G, mu, split=None):
    """The tie rule of :func:`alignf`: ``argmin ||x||_2`` s.t. ``M x = M mu``, ``x >= 0``.

    Every maximizer of (P) without order constraints gives the same labeled block
    ``M x`` (the direction of the projection of ``T`` onto the cone ``{M x : x >= 0}`` is
    unique), so the maximizers are ``{x >= 0 : P x = P mu}`` with ``P`` the orthogonal
    projector onto the numerical range of ``G = M^T M`` (:func:`psd_split`: pivots above
    ``RANK_RTOL`` of the largest eigenvalue; the same set as ``M x = M mu``, and well
    conditioned) — a polytope, a single point when ``G`` has full rank.  Among them the
    minimum-norm point is unique (a strictly convex QP).  ``split``: ``psd_split(G)`` if
    known (the split of a positive multiple of ``G`` is as good).

    Method (exact, certified): the least-distance program in the null-space coordinates
    (:func:`_ldp_optimum`: one NNLS with ``m - r + 1`` rows, small when ``G``'s rank r is
    close to m, as for Wang et al. Table 3's seven pooled widths), certified when its
    relative duality gap is at most ``TIE_GAP_TOL`` and the equality rows hold to
    ``TIE_FEAS_TOL`` (``tie_method: "ldp"``).

    Otherwise a Tikhonov method runs, a fallback (``"ldp->tikhonov (...)"`` in the
    :class:`SolveInfo`; ``tie_method: "tikhonov"``, the LDP's gap in ``tie_ldp_gap``), in
    stages:

    1. *support*: the Tikhonov problem ``min_{x >= 0} rho^2 ||P x - x0||^2 + ||x||^2``
       (``x0 = P mu``, ``1 / rho^2`` in ``TIE_TIKHONOV``) by Lawson-Hanson NNLS; its
       solution tends to the minimum-norm optimum as ``rho -> inf`` and has (for the
       rho used) its support ``S``;
    2. *polish*: ``x_S`` = the solution of the equality rows on that support
       (least squares), kept when it is non-negative and solves them (relative residual
       below ``TIE_FEAS_TOL``): a feasible point;
    3. *certificate*: ``nu = rho^2 (x0 - P x_1)`` (the Tikhonov problem's multiplier, in
       the range) is a dual point of the QP, whose dual function ``x0^T nu - 1/2 ||nu_+||^2``
       bounds its optimum from below (weak duality); the feasible polished point is
       certified when the relative duality gap is below ``TIE_GAP_TOL`` (strong
       convexity: ``||x - x*||^2 <= 2 gap``).  Otherwise the next weight is tried.

    If no weight certifies (the equality rows restricted to a support can be so
    ill-conditioned that the exact solution there has entries of -1e-3 while the
    Tikhonov point's residual is 1e-9), the Tikhonov point with the smallest residual is
    kept when that residual is at most ``TIE_TIKHONOV_RESIDUAL`` (``tie_certified: False``
    in the stats and the note; such a point is never longer than the minimum-norm optimum, since
    ``rho^2 ||res||^2 + ||x_rho||^2 <= ||x*||^2``).  Otherwise the point with the smallest
    gap is kept and the :class:`SolveInfo` says so (a fallback, with gap and residual).
    The Tikhonov NNLS has ``2 m`` rows and m columns, so it costs far more than the
    LDP's.

    A general QP solver is not used: HiGHS's QP on the rows ``R = diag(sqrt(lambda)) Q_r^T``
    (condition up to ``1e6``) ends *Unbounded*, *Infeasible*, *Solve error* or at its time
    limit on many real instances (e.g. Wang et al. Table 2's).

    Returns ``(x, SolveInfo)``; ``(mu, None)`` when ``G`` has full rank (nothing to break).

    Parameters
    ----------
    G : ndarray of shape (m, m)
        ``M^T M``, symmetric positive semidefinite.
    mu : ndarray of shape (m,)
        A maximizer of (P) without order constraints.
    split : RangeSplit, default=None
        ``psd_split(G)``; None to compute it.

    Returns
    -------
    x : ndarray of shape (m,)
        The minimum-norm maximizer (``mu`` when ``G`` has full rank).
    info : SolveInfo or None
        The tie rule's solve (``"nnls"``, its ``tie_*`` stats and a fallback reason
        when the LDP was not certified); None when ``G`` has full rank.
    """
    split = psd_split(G) if split is None else split
    m = mu.size
    if split.rank == m:
        return mu, None
    x0 = split.project(mu)
    c_norm = max(float(np.linalg.norm(x0)), np.finfo(float).tiny)
    base = {"tie_rank": split.rank}
    ldp = _ldp_optimum(split, x0, c_norm, mu)
    if ldp is not None and ldp[1] <= TIE_GAP_TOL and ldp[2] <= TIE_FEAS_TOL:
        x, gap, feas = ldp
        return x, SolveInfo(
            "nnls",
            stats={
                **base,
                "tie_support": int(np.count_nonzero(x)),
                "tie_method": "ldp",
                "tie_gap": gap,
                "tie_residual": feas,
                "tie_certified": True,
            },
        )
    base.update(tie_method="tikhonov", tie_ldp_gap=None if ldp is None else ldp[1])
    why = (
        "ldp->tikhonov (the LDP stopped or its point did not solve the equality rows)"
        if ldp is None
        else f"ldp->tikhonov (LDP gap {ldp[1]:.1e}, residual {ldp[2]:.1e}: no certificate)"
    )
    tried = []
    P = split.columns(np.ones(m, dtype=bool))
    for weight in TIE_TIKHONOV:
        rho2 = 1.0 / weight
        x1, _ = nnls(
            np.vstack([np.sqrt(rho2) * P, np.eye(m)]),
            np.concatenate([np.sqrt(rho2) * x0, np.zeros(m)]),
            maxiter=50 * m,
        )
        polished = _polish(split, x0, x1, c_norm)
        x = x1 if polished is None else polished
        # dual point of the Tikhonov problem; its dual function bounds the optimum below
        nu = rho2 * (x0 - split.project(x1))
        dual = float(x0 @ nu - 0.5 * np.sum(np.maximum(nu, 0.0) ** 2))
        primal = 0.5 * float(x @ x)
        gap = max(primal - dual, 0.0) / max(primal, np.finfo(float).tiny)
        feas = float(np.linalg.norm(split.project(x) - x0)) / c_norm
        stats = {
            **base,
            "tie_support": int(np.count_nonzero(x)),
            "tie_tikhonov": weight,
            "tie_gap": gap,
            "tie_residual": feas,
        }
        if polished is not None and gap <= TIE_GAP_TOL:
            return x, SolveInfo("nnls", stats={**stats, "tie_certified": True}, fallback=why)
        tried.append((gap + feas, weight, x, stats))
    # no certificate: the Tikhonov point with the smallest residual, if small enough
    feas, weight, x, stats = min(
        ((t[3]["tie_residual"], t[1], t[2], t[3]) for t in tried), key=lambda t: t[0]
    )
    if feas <= TIE_TIKHONOV_RESIDUAL:
        return x, SolveInfo(
            "nnls",
            stats={**stats, "tie_certified": False},
            fallback=(
                f"{why}; no certificate, the Tikhonov point (weight {weight:g}, residual "
                f"{feas:.1e}) kept"
            ),
        )
    _, weight, x, stats = min(tried, key=lambda t: t[0])
    return x, SolveInfo(
        "nnls",
        stats=stats,
        fallback=(
            f"{why}; no certificate (relative gap {stats['tie_gap']:.1e}, residual "
            f"{stats['tie_residual']:.1e}); the Tikhonov point (weight {weight:g}) kept"
        ),
    )


def alignf(G, a):
    """Cortes, Mohri & Rostamizadeh's *alignf* (ICML 2010), with a minimum-norm tie rule.

    Non-negative weights ``mu`` of
    base kernels maximizing the centered alignment of ``sum_t mu_t K_t`` with the target.

    With the base kernels' centered labeled blocks ``K_tc`` (columns of ``M``),
    ``G_st = <K_sc, K_tc>_F`` and ``a_t = <K_tc, T>_F``, alignf is (P) with no order
    constraints, ``max a^T mu s.t. mu^T G mu <= 1, mu >= 0`` (Cortes et al.: the QP
    ``min_{v >= 0} v^T G v - 2 v^T a``, normalized) — solved exactly by
    :func:`alignment_qp` (NNLS on the least-squares form; HiGHS QP if NNLS stops).

    Tie rule.  With rank-one base kernels ``G`` is often singular (more base kernels than
    the ``l(l-1)/2`` dimensions of centered l x l blocks, or collinear centered vectors):
    every solver reaches the same alignment and labeled block but different ``mu``, hence
    different kernels on the unlabeled points.  We return the *minimum Euclidean norm*
    maximizer (:func:`min_norm_optimum`), unique and solver-independent.

    Returns ``(AlignmentSolution, tie SolveInfo or None)``; the solution's ``mu`` has
    ``mu^T G mu = 1`` (degenerate case as in :func:`alignment_qp`, uniform fallback).

    Parameters
    ----------
    G : array-like of shape (m, m)
        ``G_st = <K_sc, K_tc>_F``.
    a : array-like of shape (m,)
        ``a_t = <K_tc, T>_F``.

    Returns
    -------
    solution : AlignmentSolution
        The weights ``mu`` and their alignment.
    tie : SolveInfo or None
        The tie rule's solve (:func:`min_norm_optimum`); None when ``G`` has full rank or
        the problem is degenerate.

    Raises
    ------
    SolverError
        If HiGHS, when it runs, does not reach an optimum.
    """
    m = np.asarray(a).size
    sol = alignment_qp(G, a, fallback=np.ones(m))
    if sol.degenerate:
        return sol, None
    mu, tie = min_norm_optimum(np.asarray(G, dtype=float), sol.mu, split=sol.split)
    nrm2 = float(mu @ G @ mu)
    if tie is not None and nrm2 > 0:
        mu = mu / np.sqrt(nrm2)
        sol = AlignmentSolution(mu, float(np.asarray(a) @ mu), False, sol.info)
    return sol, tie
