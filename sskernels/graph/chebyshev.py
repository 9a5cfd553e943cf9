"""The largest eigenpairs of ``S = D^{-1/2} W D^{-1/2}`` by Lanczos on a Chebyshev filter.

Used by :func:`sskernels.graph.laplacian_spectrum` above :data:`FILTER_MIN_N` points.
ARPACK on ``S`` itself (``eigsh(S, which="LA")``) converges slowly when the k wanted
eigenvalues are a small part of a dense spectrum: at SecStr's 1,273,151 points, 210 pairs
took 2,035 s, most of it the dense re-orthogonalisation of ARPACK's restarts.  On
``p(S)`` with ``p`` the degree-d Chebyshev polynomial of the first kind after the affine
map of ``[-1, c]`` onto ``[-1, 1]``, the wanted eigenvalues (those above the cut ``c``) are
spread far apart (``p`` grows like ``cosh(d arccosh t)`` above ``c``) while every other one is
squeezed into ``[-1, 1]``: one Lanczos pass without restarts (413 s there, the count of the
cut included: 5x).

The eigenvectors of ``p(S)`` are those of ``S``; the eigenvalues of ``S`` come from the
Rayleigh-Ritz step ``V^T S V`` on the returned vectors.  ``p`` is increasing above ``c`` and
``|p| <= 1`` on ``[-1, c]``, so when every returned Rayleigh quotient is above ``c`` the k
pairs are exactly the k largest of ``S`` (the check of :func:`largest_eigenpairs`; a failed
check means a lower cut, recorded).

The cut ``c`` comes from an estimate of how many eigenvalues of ``S`` lie in ``[c, 1]``:
the kernel polynomial method (Weisse, Wellein, Alvermann & Fehske, Rev. Mod. Phys. 78,
275, 2006, Sec. II and IV.A) with Jackson damping, :data:`KPM_PROBES` Rademacher vectors
and :data:`KPM_MOMENTS` moments; the cut is the largest ``c`` whose estimated count reaches
:data:`CUT_MARGIN` times k.  All of these are choices, measured at 1,273,151 points
(``results/scale/secstr_extra_skl``): the estimate put the cut 0.015 below the 210th
eigenvalue.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import LinearOperator, eigsh

__all__ = [
    "CUT_MARGIN",
    "FILTER_DEGREE",
    "FILTER_MIN_N",
    "KPM_MOMENTS",
    "KPM_PROBES",
    "EigenvalueCounter",
    "chebyshev_filter",
    "filtered_eigsh",
    "largest_eigenpairs",
]

#: from this many points on, :func:`sskernels.graph.laplacian_spectrum`'s Lanczos runs on
#: the filter (at 83,679 points the filter gained 1.3-2x only: ARPACK restarts little there)
FILTER_MIN_N = 200_000
#: the filter's degree d: d products with S per Lanczos step
FILTER_DEGREE = 8
#: the eigenvalue count's Rademacher probe vectors and Chebyshev moments
KPM_PROBES = 10
KPM_MOMENTS = 150
#: the cut is the largest c at which the estimated count of eigenvalues in [c, 1] reaches
#: this many times the pairs wanted; a failed check retries at the next margin
CUT_MARGIN = (1.5, 3.0)
#: the cuts scanned, from 1 down to -1
_CUT_GRID = np.linspace(1.0, -1.0, 4001)


class EigenvalueCounter:
    """The number of eigenvalues of a symmetric ``S`` with spectrum in ``[-1, 1]`` that lie
    in ``[c, 1]``, estimated by the kernel polynomial method.

    The moments ``mu_j = tr T_j(S)`` are estimated by ``r^T T_j(S) r`` averaged over
    Rademacher vectors ``r`` (Hutchinson's trace estimator); the count is
    ``sum_j g_j gamma_j(c) mu_j`` with the Jackson damping ``g_j`` and ``gamma_j(c)`` the
    Chebyshev coefficients of the indicator of ``[c, 1]`` (Weisse et al. 2006, eq. (71),
    (88)).

    Parameters
    ----------
    S : sparse matrix or LinearOperator of shape (n, n)
        Symmetric, with its eigenvalues in ``[-1, 1]``.
    probes : int, default=KPM_PROBES
        The Rademacher vectors.
    moments : int, default=KPM_MOMENTS
        The highest moment D (D products of ``S`` with the probe block).
    seed : int, default=0
        The probes' seed.

    Attributes
    ----------
    moments_ : ndarray of shape (D + 1,)
        The estimated ``tr T_j(S)``.
    products_ : int
        Products of ``S`` with one vector spent.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.diag(np.linspace(-1, 1, 201))      # 51 eigenvalues in [0.5, 1]
    >>> round(EigenvalueCounter(S, moments=200).count(0.5))
    51
    """

    def __init__(self, S, probes=KPM_PROBES, moments=KPM_MOMENTS, seed=0):
        n = S.shape[0]
        R = np.random.default_rng(seed).choice([-1.0, 1.0], size=(n, probes))
        mom = np.empty(moments + 1)
        T0, T1 = R, S @ R
        mom[0], mom[1] = np.sum(R * T0) / probes, np.sum(R * T1) / probes
        for j in range(2, moments + 1):
            T0, T1 = T1, 2.0 * (S @ T1) - T0
            mom[j] = np.sum(R * T1) / probes
        self.moments_ = mom
        self.products_ = probes * moments
        D = moments
        j = np.arange(D + 1)
        self._j = j
        self._jackson = (
            (D - j + 1) * np.cos(np.pi * j / (D + 1))
            + np.sin(np.pi * j / (D + 1)) / np.tan(np.pi / (D + 1))
        ) / (D + 1)

    def count(self, c):
        """The estimated number of eigenvalues in ``[c, 1]``.

        Parameters
        ----------
        c : float
            The interval's lower end, in ``[-1, 1]``.

        Returns
        -------
        float
            The estimate (not rounded).
        """
        a = np.arccos(np.clip(c, -1.0, 1.0))
        j = self._j
        gamma = np.empty(j.size)
        gamma[0] = a / np.pi
        gamma[1:] = 2.0 / np.pi * np.sin(j[1:] * a) / j[1:]
        return float(np.sum(self._jackson * gamma * self.moments_))

    def cut(self, k):
        """The largest ``c`` (on a grid of step 5e-4) whose estimated count reaches ``k``,
        or -1 when none does.

        Parameters
        ----------
        k : float
            The count wanted.

        Returns
        -------
        float
        """
        for c in _CUT_GRID:
            if self.count(c) >= k:
                return float(c)
        return -1.0


def chebyshev_filter(S, c, degree=FILTER_DEGREE):
    """``p(S)`` as a LinearOperator: ``T_degree((2 S - (c - 1) I) / (c + 1))``.

    The affine map sends ``[-1, c]`` onto ``[-1, 1]``, where ``|T_d| <= 1``; above ``c``
    ``p`` increases.  Each product applies ``S`` ``degree`` times (three-term recurrence).

    Parameters
    ----------
    S : sparse matrix of shape (n, n)
        Symmetric, its spectrum in ``[-1, 1]``.
    c : float
        The cut, in ``(-1, 1)``.
    degree : int, default=FILTER_DEGREE
        The polynomial's degree (at least 1).

    Returns
    -------
    LinearOperator
        ``p(S)``; its attribute ``products`` counts the products with ``S``.
    """
    a1, a0 = 2.0 / (c + 1.0), (1.0 - c) / (c + 1.0)

    def apply(x):
        op.products += degree * (x.shape[1] if x.ndim == 2 else 1)
        y0, y1 = x, a1 * (S @ x) + a0 * x
        for _ in range(degree - 1):
            y0, y1 = y1, 2.0 * (a1 * (S @ y1) + a0 * y1) - y0
        return y1

    n = S.shape[0]
    op = LinearOperator((n, n), matvec=apply, matmat=apply, dtype=np.float64)
    op.products = 0
    return op


def filtered_eigsh(S, k, c, v0, degree=FILTER_DEGREE, tol=1e-10):
    """The ``k`` largest eigenpairs of ``p(S)`` (:func:`chebyshev_filter`), then
    Rayleigh-Ritz on ``S``.

    Parameters
    ----------
    S : sparse matrix of shape (n, n)
        Symmetric, its spectrum in ``[-1, 1]``.
    k : int
        The pairs.
    c : float
        The filter's cut.
    v0 : ndarray of shape (n,)
        Lanczos's starting vector.
    degree : int, default=FILTER_DEGREE
        The filter's degree.
    tol : float, default=1e-10
        ``eigsh``'s tolerance (on the filtered eigenvalues).

    Returns
    -------
    mu : ndarray of shape (k,)
        The Rayleigh quotients of ``S``, descending.
    U : ndarray of shape (n, k)
        The orthonormal Ritz vectors, column by column.
    SU : ndarray of shape (n, k)
        ``S @ U`` (for the caller's residual check).
    products : int
        Products of ``S`` with one vector spent.
    """
    P = chebyshev_filter(S, c, degree)
    _, V = eigsh(P, k=k, which="LA", v0=v0, tol=tol)
    SV = S @ V
    H = V.T @ SV
    w, Q = eigh((H + H.T) / 2.0)
    Q = Q[:, ::-1]
    U = np.ascontiguousarray(V @ Q)
    del V
    SU = SV @ Q
    return w[::-1].copy(), U, SU, P.products + k


def largest_eigenpairs(S, k, v0):
    """The ``k`` largest eigenpairs of ``S`` by :func:`filtered_eigsh`, the cut from
    :class:`EigenvalueCounter`, checked.

    Every returned Rayleigh quotient must lie above the cut (then they are the k largest,
    see the module's text).  A failed check is run again at the next margin of
    :data:`CUT_MARGIN`; after the last, plain ``eigsh(S)`` answers.  Both are fallbacks in
    the returned ``info``.

    Parameters
    ----------
    S : sparse matrix of shape (n, n)
        Symmetric, its spectrum in ``[-1, 1]``.
    k : int
        The pairs.
    v0 : ndarray of shape (n,)
        Lanczos's starting vector.

    Returns
    -------
    mu : ndarray of shape (k,)
        The eigenvalues, descending.
    U : ndarray of shape (n, k)
        The eigenvectors.
    SU : ndarray of shape (n, k)
        ``S @ U``.
    info : dict
        The call, as :class:`~sskernels.solvers.report.SolveInfo` takes it: ``solver``
        ``"eigsh-chebyshev"`` (or ``"eigsh"`` after the last failed check), ``fallback``
        (None or why), ``stats`` (the cuts tried, the degree, the products with ``S``,
        the seconds of the count).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> S = sp.diags(np.cos(np.linspace(0, np.pi, 400)))
    >>> mu, U, SU, info = largest_eigenpairs(S, 5, np.ones(400))
    >>> np.allclose(mu, np.cos(np.linspace(0, np.pi, 400))[:5]), info["solver"]
    (True, 'eigsh-chebyshev')
    """
    t0 = time.perf_counter()
    counter = EigenvalueCounter(S)
    stats = {
        "degree": FILTER_DEGREE,
        "count_seconds": time.perf_counter() - t0,
        "cuts": [],
        "products": counter.products_,
    }
    failed = []
    for margin in CUT_MARGIN:
        c = counter.cut(margin * k)
        if c <= -1.0:
            failed.append(f"no cut: the estimated count never reaches {margin:g} x {k}")
            break
        mu, U, SU, products = filtered_eigsh(S, k, c, v0)
        stats["cuts"].append(c)
        stats["products"] += products
        if mu[-1] > c:
            fallback = "; ".join(failed) if failed else None
            return mu, U, SU, _info("eigsh-chebyshev", fallback, stats)
        failed.append(
            f"chebyshev cut {c:.4f} above the {k}th Rayleigh quotient {mu[-1]:.4f} "
            f"(count margin {margin:g})"
        )
        del U, SU
    mu, U = eigsh(S, k=k, which="LA", v0=v0, tol=1e-10)
    order = np.argsort(-mu)
    mu, U = mu[order], np.ascontiguousarray(U[:, order])
    failed.append("plain eigsh")
    return mu, U, S @ U, _info("eigsh", "; ".join(failed), stats)


def _info(solver, fallback, stats):
    return {"solver": solver, "fallback": fallback, "stats": stats}
