"""Normalized graph Laplacian and its smallest eigenpairs.

``L_sym = I - D^{-1/2} W D^{-1/2}`` (Liu et al., Sec. 3).  The spectrum used by
the spectral kernels is the m smallest eigenpairs with ``lambda != 1`` (Liu et
al., Sec. 4.1 and Thm. 2: the out-of-sample extension eq. (17) divides by
``1 - lambda``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import eigsh

from sskernels.errors import ParameterError
from sskernels.graph import chebyshev

#: n above which the sparse (Lanczos) solver is used when few eigenpairs are needed
DENSE_MAX_N = 2500
#: n above which a full (dense) spectrum is refused: its n x n eigenvectors alone take
#: 8 n^2 bytes (3.2 GB at n = 20,000; 56 GB for SecStr's 83,679 points)
FULL_MAX_N = 20000
#: largest acceptable residual ``max_i ||S u_i - mu_i u_i||`` of a Lanczos eigenpair
RESIDUAL_TOL = 1e-6
#: eigenvalues within this distance of 1 count as "lambda = 1"
ONE_TOL = 1e-8


def degree_normalizer(W):
    """The degrees of ``W`` and ``D^{-1/2}`` as a vector; isolated nodes get 0.

    Their rows of ``S = D^{-1/2} W D^{-1/2}`` vanish.

    Parameters
    ----------
    W : sparse matrix or ndarray of shape (n, n)
        The weight matrix.

    Returns
    -------
    degrees : ndarray of shape (n,)
        The row sums ``D_ii``.
    d_inv_sqrt : ndarray of shape (n,)
        ``1 / sqrt(D_ii)``, 0 where ``D_ii = 0``.
    """
    d = np.asarray(W.sum(axis=1)).ravel()
    with np.errstate(divide="ignore"):
        inv = np.where(d > 0, 1.0 / np.sqrt(d), 0.0)
    return d, inv


def normalized_adjacency(W):
    """``S = D^{-1/2} W D^{-1/2}`` as a sparse matrix.

    Parameters
    ----------
    W : sparse matrix of shape (n, n)
        The symmetric weight matrix (isolated nodes give zero rows and columns).

    Returns
    -------
    S : scipy.sparse.csr_matrix of shape (n, n)
        The normalized adjacency.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from sskernels.graph import normalized_adjacency
    >>> W = sp.csr_matrix(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    >>> normalized_adjacency(W).toarray().round(4)
    array([[0.    , 0.7071, 0.7071],
           [0.7071, 0.    , 0.    ],
           [0.7071, 0.    , 0.    ]])
    """
    _, inv = degree_normalizer(W)
    Dm = sp.diags(inv)
    return (Dm @ W @ Dm).tocsr()


def normalized_laplacian(W):
    """``L_sym = I - S``, with ``S`` the normalized adjacency (:func:`normalized_adjacency`).

    Parameters
    ----------
    W : sparse matrix of shape (n, n)
        The symmetric weight matrix.

    Returns
    -------
    L_sym : scipy.sparse.csr_matrix of shape (n, n)
        The normalized Laplacian.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from sskernels.graph import normalized_laplacian
    >>> W = sp.csr_matrix(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    >>> normalized_laplacian(W).toarray().round(4)
    array([[ 1.    , -0.7071, -0.7071],
           [-0.7071,  1.    ,  0.    ],
           [-0.7071,  0.    ,  1.    ]])
    """
    n = W.shape[0]
    return (sp.identity(n, format="csr") - normalized_adjacency(W)).tocsr()


@dataclass
class Spectrum:
    """Eigenpairs of ``L_sym`` in ascending order: ``values`` (k,), ``vectors`` (n, k)."""

    values: np.ndarray
    vectors: np.ndarray
    complete: bool  # True when all n eigenpairs are held
    #: "eigh" (dense, all pairs) or "eigsh" (Lanczos, a few)
    solver: str = "eigh"
    #: ``max_i ||S u_i - mu_i u_i||`` over the returned pairs (checked for ``eigsh``)
    residual: float | None = None
    #: wall seconds the eigensolver took (the spectrum stage of a run's timing)
    seconds: float | None = None
    #: the filtered Lanczos's call (``solver``, ``fallback``, ``stats``: cuts, products), for
    #: the fit reports of the learners that use the spectrum; None for ``eigh`` and ``eigsh``
    info: dict | None = None

    def smallest(self, m, exclude_one=True):
        """The m smallest eigenpairs, skipping ``lambda = 1`` when asked (Liu Sec. 4.1).

        Parameters
        ----------
        m : int or None
            The number of eigenpairs; None: every pair held (after the skipping).
        exclude_one : bool, default=True
            Skip the eigenvalues within :data:`ONE_TOL` of 1.

        Returns
        -------
        values : ndarray of shape (m,)
            The eigenvalues, ascending.
        vectors : ndarray of shape (n, m)
            The eigenvectors, column by column.

        Raises
        ------
        ValueError
            When fewer than ``m`` pairs are available
            (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

        Examples
        --------
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> from sskernels.graph import laplacian_spectrum
        >>> W = sp.csr_matrix(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
        >>> values, vectors = laplacian_spectrum(W).smallest(2)     # lambda = 1 skipped
        >>> values.round(6), vectors.shape
        (array([0., 2.]), (3, 2))
        """
        lam, V = self.values, self.vectors
        if exclude_one:
            keep = np.abs(lam - 1.0) > ONE_TOL
            lam, V = lam[keep], V[:, keep]
        if m is not None:
            if m > lam.size:
                raise ParameterError(
                    f"asked for {m} eigenpairs with lambda != 1 but only {lam.size} are available"
                )
            lam, V = lam[:m], V[:, :m]
        return lam, V


def laplacian_spectrum(W, m=None, solver="auto"):
    """Smallest eigenpairs of the normalized Laplacian of ``W``.

    ``m=None`` gives the full spectrum (dense; refused above :data:`FULL_MAX_N` points with a
    ``ValueError`` that says to ask for ``m`` pairs).  ``solver="auto"`` uses dense ``eigh``
    (all n pairs) when n <= :data:`DENSE_MAX_N` or m > n/4, else Lanczos (``eigsh`` on
    ``S``'s largest algebraic eigenvalues, which are ``1 - lambda``) for m + 10 pairs, so that
    eigenvalues equal to 1 can be skipped; if fewer than m of them differ from 1, Lanczos is
    asked again for twice as many (up to n/4) before a dense solve is considered.

    The Lanczos set-up is a choice: ``eigsh(S, which="LA", tol=1e-10)``, the fastest of the
    set-ups compared on a 10-NN graph (against ``tol=0``, the PSD shift ``S + I`` and
    ``ncv = 3k``), with residuals far below :data:`RESIDUAL_TOL`; from
    :data:`~sskernels.graph.chebyshev.FILTER_MIN_N` points on, ``eigsh`` on a Chebyshev
    filter of ``S`` (:mod:`sskernels.graph.chebyshev`: 5.8x at 1,273,151 points), its
    cut checked and recorded in ``info``.  Shift-invert
    needs a sparse factorization of ``L``, whose fill is the problem at scale.  Every Lanczos
    pair's residual ``||S u - mu u||`` is checked: above :data:`RESIDUAL_TOL` it is an error.

    Parameters
    ----------
    W : sparse matrix of shape (n, n)
        The symmetric weight matrix.
    m : int or None, default=None
        The number of smallest eigenpairs with ``lambda != 1`` needed; None: the full
        spectrum.
    solver : str, default="auto"
        "auto" as above; "dense": ``eigh``, all n pairs, whatever n and m (the full
        spectrum is then not refused above :data:`FULL_MAX_N`); any other value: Lanczos
        (``m`` must then be given).

    Returns
    -------
    spectrum : Spectrum
        The eigenpairs in ascending order of ``lambda``, eigenvalues clipped to [0, 2]: all n
        (``complete=True``, ``solver="eigh"``) or those Lanczos returned (``complete=False``,
        ``solver="eigsh"``, their ``residual``); it may hold more pairs than asked, and
        fewer than m with ``lambda != 1`` when Lanczos reached n/4 pairs.  ``seconds`` is
        the eigensolver's wall time.

    Raises
    ------
    ValueError
        For ``m=None`` above :data:`FULL_MAX_N` points without ``solver="dense"``
        (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).
    numpy.linalg.LinAlgError
        When a Lanczos eigenpair's residual is above :data:`RESIDUAL_TOL`.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from sskernels.graph import laplacian_spectrum
    >>> W = sp.csr_matrix(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    >>> spectrum = laplacian_spectrum(W)
    >>> spectrum.values.round(6), spectrum.complete, spectrum.solver
    (array([0., 1., 2.]), True, 'eigh')
    """
    n = W.shape[0]
    if m is None and n > FULL_MAX_N and solver != "dense":
        raise ParameterError(
            f"the full Laplacian spectrum of {n} points is a dense n x n eigendecomposition "
            f"({8 * n * n / 1e9:.1f} GB of eigenvectors): ask for the m smallest pairs "
            f"(n_components) instead (full spectra are computed up to {FULL_MAX_N} points)"
        )
    t0 = time.perf_counter()
    S = normalized_adjacency(W)
    dense = solver == "dense" or (solver == "auto" and (m is None or n <= DENSE_MAX_N or m > n / 4))
    if dense:
        mu, U = eigh(S.toarray())
        lam = 1.0 - mu[::-1]
        V = U[:, ::-1]
        return Spectrum(
            np.clip(lam, 0.0, 2.0),
            np.ascontiguousarray(V),
            complete=True,
            seconds=time.perf_counter() - t0,
        )
    kk = min(n - 1, m + 10)
    while True:
        spectrum = _lanczos(S, kk)
        enough = np.sum(np.abs(spectrum.values - 1.0) > ONE_TOL) >= m
        if enough or kk >= min(n - 1, n // 4):
            spectrum.seconds = time.perf_counter() - t0
            return spectrum
        kk = min(n - 1, n // 4, 2 * kk)


def _lanczos(S, kk):
    """The ``kk`` largest eigenpairs of ``S`` as a :class:`Spectrum` of ``L_sym``, with their
    residual checked: ``eigsh``, or from :data:`~sskernels.graph.chebyshev.FILTER_MIN_N`
    points on :func:`~sskernels.graph.chebyshev.largest_eigenpairs`."""
    n = S.shape[0]
    rng = np.random.default_rng(0)
    v0 = rng.standard_normal(n)
    info = None
    if n >= chebyshev.FILTER_MIN_N and kk:
        mu, U, SU, info = chebyshev.largest_eigenpairs(S, kk, v0)
    else:
        mu, U = eigsh(S, k=kk, which="LA", v0=v0, tol=1e-10)
        order = np.argsort(-mu)
        mu, U = mu[order], np.ascontiguousarray(U[:, order])
        SU = S @ U
    residual = float(np.max(np.linalg.norm(SU - U * mu, axis=0))) if kk else 0.0
    del SU
    if not residual <= RESIDUAL_TOL:
        raise np.linalg.LinAlgError(
            f"eigsh returned eigenpairs with residual {residual:.1e} > {RESIDUAL_TOL:g} "
            f"({kk} pairs of a {n}-point graph)"
        )
    lam = np.clip(1.0 - mu, 0.0, 2.0)
    solver = "eigsh" if info is None else info["solver"]
    return Spectrum(lam, U, complete=False, solver=solver, residual=residual, info=info)
