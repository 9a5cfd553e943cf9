"""The graph-deformed kernel of manifold regularization and its label-independent parts.

Sindhwani, Belkin & Niyogi, "The geometric basis of semi-supervised learning"
(Sec. 11.3; Sindhwani, Niyogi & Belkin, ICML 2005).

* :func:`intrinsic_matrix` — ``M = L^p``, the intrinsic regularizer of
  eq. (11.5) (iterated Laplacians, Remark 1), memoized per graph (it is label-independent:
  one product per graph, Laplacian and degree, not one per fit);
* :func:`deformed_kernel` — the warped kernel ``K~`` of eq. (11.15);
* :func:`deformation_basis` — ``(G, lam)`` with ``K (I + r M K)^{-1} = G diag(1 /
  (1 + r lam)) G^T`` for every ``r >= 0``: one eigendecomposition gives the
  deformed kernel of the training points for all ``(gamma_A, gamma_I)``;
  :func:`cached_deformation_basis` memoizes it (LRU, bounded in bytes; it does
  not depend on labels, so it is shared by folds, candidates and splits) and
  :func:`clear_cache` forgets it.

Choice the paper leaves open: eq. (11.15) as printed,
``K - k_x^T (I + (gamma_I/gamma_A) L K)^{-1} L k_z``, misses the factor
``gamma_I/gamma_A`` on its second ``L`` (it would not reduce to ``K`` at
``gamma_I = 0``); we use the ICML 2005 form ``K - k_x^T (I + M' K)^{-1} M' k_z``
with ``M' = gamma_I / (gamma_A (u+l)^2) M`` (the scale of eq. (11.5)), so that
RLS / SVM with ``K~`` on the labeled points are LapRLS / LapSVM (eq. (11.16)).
"""

from __future__ import annotations

import weakref

import numpy as np
import scipy.sparse as sp

from sskernels.errors import ParameterError
from sskernels.memo import LRU

LAPLACIANS = ("unnormalized", "normalized")


#: ``graph -> {(laplacian, degree): L^p}``; an entry lives as long as its graph object
_INTRINSIC = weakref.WeakKeyDictionary()


def intrinsic_matrix(graph, laplacian="unnormalized", degree=1):
    """``M = L^p``: the graph regularizer of eq. (11.5) (iterated Laplacians, Remark 1).

    Memoized per graph object (the same product, computed once) and read-only:
    its arrays are not writeable, so a caller that changed it in place would fail loudly
    instead of changing every later fit.

    Parameters
    ----------
    graph : Graph
        The graph (:class:`~sskernels.graph.Graph`).
    laplacian : {"unnormalized", "normalized"}, default="unnormalized"
        ``"unnormalized"`` is the paper's ``L = D - W`` (Step 3); ``"normalized"`` is
        ``I - D^{-1/2} W D^{-1/2}`` (a choice some papers make, e.g. Mao & Tsang's
        LapRLS/LapSVM baselines).
    degree : int, default=1
        The power p (>= 1).

    Returns
    -------
    M : scipy.sparse.csr_matrix of shape (n, n)
        ``L^p``, sparse (CSR) and read-only.

    Raises
    ------
    ValueError
        For an unknown ``laplacian``, or a ``degree`` that is not an integer >= 1.

    References
    ----------
    V. Sindhwani, M. Belkin and P. Niyogi. The geometric basis of semi-supervised
    learning. Chapter 11 of *Semi-Supervised Learning* (O. Chapelle, B. Schölkopf and
    A. Zien, eds.), MIT Press, 2006: eq. (11.5), Remark 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import Graph
    >>> from sskernels.kernels.deformed import intrinsic_matrix
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
    >>> g = Graph(X, k=2)
    >>> M = intrinsic_matrix(g, degree=2)
    >>> M.shape, intrinsic_matrix(g, degree=2) is M           # memoized per graph
    ((6, 6), True)
    >>> bool(np.allclose(M.toarray(), (g.laplacian @ g.laplacian).toarray()))
    True
    """
    if laplacian not in LAPLACIANS:
        raise ParameterError(f"laplacian must be one of {LAPLACIANS}, got {laplacian!r}")
    p = int(degree)
    if p != degree or p < 1:
        raise ParameterError(f"laplacian_degree must be an integer >= 1, got {degree!r}")
    try:
        memo = _INTRINSIC.setdefault(graph, {})
    except TypeError:  # an object that takes no weak reference
        memo = {}
    M = memo.get((laplacian, p))
    if M is None:
        L = graph.laplacian if laplacian == "unnormalized" else graph.normalized_laplacian
        L = sp.csr_matrix(L)
        M = L
        for _ in range(p - 1):
            M = M @ L
        M = M.tocsr()
        for a in (M.data, M.indices, M.indptr):
            a.flags.writeable = False
        memo[(laplacian, p)] = M
    return M


#: a sparse ``M`` with at least this share of its entries non-zero is multiplied as a dense
#: matrix (:func:`intrinsic_product`)
DENSE_FRACTION = 0.25
#: ``id(M) -> (weak reference to M, its dense copy)`` (read-only; the entry goes with ``M``;
#: sparse matrices are not hashable, so not a WeakKeyDictionary)
_DENSE: dict = {}


def _dense(M):
    """``M`` as a dense array; a sparse ``M`` is converted once (memoized while it lives)."""
    if not sp.issparse(M):
        return np.asarray(M, dtype=float)
    hit = _DENSE.get(id(M))
    if hit is not None and hit[0]() is M:
        return hit[1]
    D = M.toarray()
    D.flags.writeable = False
    key = id(M)
    try:
        ref = weakref.ref(M, lambda _, key=key: _DENSE.pop(key, None))
    except TypeError:  # no weak reference to it: not memoized
        return D
    _DENSE[key] = (ref, D)
    return D


def intrinsic_product(M, K):
    """``M @ K`` for the intrinsic regularizer ``M`` (sparse or dense) and a dense ``K``.

    ``L^p`` fills in with ``p`` (``L^5`` of Mao & Tsang's TEXT graph has every entry
    non-zero) while it is stored sparse; a sparse-times-dense product of a full matrix
    costs far more than the dense (BLAS) one.  So a sparse ``M`` with at least
    :data:`DENSE_FRACTION` of its entries non-zero is multiplied as a dense matrix
    (converted once per ``M``, memoized while ``M`` lives); a sparse one stays sparse.
    The two products differ in rounding only (the summation order).

    Parameters
    ----------
    M : ndarray or sparse matrix of shape (n, n)
        The intrinsic regularizer.
    K : ndarray of shape (n, k)
        A dense matrix.

    Returns
    -------
    ndarray of shape (n, k)
        ``M @ K``, dense.
    """
    if sp.issparse(M) and M.nnz >= DENSE_FRACTION * M.shape[0] * M.shape[1]:
        return _dense(M) @ K
    return np.asarray(M @ K)


def deformed_kernel(K, L, gamma_A, gamma_I, K_a=None, K_b=None, K_ab=None, normalize=True):
    """The data-dependent kernel of eq. (11.15) (Sindhwani, Niyogi & Belkin 2005).

    ``K~(x, z) = K(x, z) - k_x^T (I + M' K)^{-1} M' k_z`` with
    ``M' = gamma_I / (gamma_A (u+l)^2) L`` (``normalize=True``, the scale of
    eq. (11.5), so that RLS with ``K~`` and regularization ``gamma_A`` on the
    labeled points is LapRLS eq. (11.7)) or ``M' = (gamma_I / gamma_A) L``
    (``normalize=False``).  The chapter prints the second ``L`` without the
    factor ``gamma_I / gamma_A``; that form does not reduce to ``K`` at
    ``gamma_I = 0`` and is taken as a misprint.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix of the ``n = l + u`` training points.
    L : ndarray or sparse matrix of shape (n, n)
        Intrinsic regularizer (the Laplacian, or ``L^p``), dense or sparse.
    gamma_A : float
        Ambient regularization (> 0).
    gamma_I : float
        Intrinsic regularization (>= 0).
    K_a : ndarray of shape (s, n), default=None
        Base kernel between a point set A and the training points (rows ``k_x^T``);
        ``None`` = the training points.
    K_b : ndarray of shape (t, n), default=None
        Likewise for B; ``None`` = the same as A.
    K_ab : ndarray of shape (s, t), default=None
        Base kernel between A and B; needed when ``K_a`` is given.
    normalize : bool, default=True
        True: ``M'`` with the ``1/(u+l)^2`` of eq. (11.5); False: without.

    Returns
    -------
    K_tilde : ndarray of shape (s, t)
        The matrix ``K~(A, B)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.kernels.deformed import deformed_kernel
    >>> K = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> L = np.array([[1.0, -1.0], [-1.0, 1.0]])
    >>> bool(np.allclose(deformed_kernel(K, L, gamma_A=1.0, gamma_I=0.0), K))   # no graph term
    True
    >>> deformed_kernel(K, L, gamma_A=1.0, gamma_I=1.0).shape
    (2, 2)
    """
    K = np.asarray(K, dtype=float)
    n = K.shape[0]
    if not gamma_A > 0:
        raise ParameterError(f"gamma_A must be > 0, got {gamma_A}")
    ratio = gamma_I / gamma_A / (n * n if normalize else 1.0)
    Mp = ratio * _dense(L)
    if K_a is None:
        K_a = K
        K_ab = K if K_b is None else K_ab
    if K_b is None:
        K_b = K_a
    if K_ab is None:
        raise ValueError("K_ab (the base kernel between A and B) is needed when K_a is given")
    T = np.linalg.solve(np.eye(n) + Mp @ K, Mp @ np.asarray(K_b, dtype=float).T)
    return np.asarray(K_ab, dtype=float) - np.asarray(K_a, dtype=float) @ T


# ---------------------------------------------------------------------------
# the deformation basis (label-independent) and its memo
# ---------------------------------------------------------------------------


def deformation_basis(K, M):
    """``(G, lam)`` with ``K (I + r M K)^{-1} = G diag(1 / (1 + r lam)) G^T`` for all r >= 0.

    With ``R = K^{1/2}`` and ``R M R = V diag(lam) V^T``: ``G = R V``.  (Push-through:
    ``K (I + r M K)^{-1} = R (I + r R M R)^{-1} R``.)  With ``r = gamma_I /
    (gamma_A (u+l)^2)`` this is the deformed kernel eq. (11.15) of the training
    points.  Eigenvalues of K and of ``R M R`` below zero (round-off) are clipped to 0.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The Gram matrix, symmetric positive semidefinite.
    M : ndarray or sparse matrix of shape (n, n)
        The intrinsic regularizer (``L^p``).

    Returns
    -------
    G : ndarray of shape (n, n)
        ``R V``.
    lam : ndarray of shape (n,)
        The eigenvalues of ``R M R``, ascending, clipped to ``>= 0``.
    """
    s, U = np.linalg.eigh(K)
    R = (U * np.sqrt(np.clip(s, 0.0, None))) @ U.T
    B = np.asarray(R @ intrinsic_product(M, R))
    B = 0.5 * (B + B.T)
    lam, V = np.linalg.eigh(B)
    return R @ V, np.clip(lam, 0.0, None)


#: bytes the memoized bases may take; the least recently used are dropped beyond it
BASIS_CACHE_BYTES = 400 * 2**20
#: the memoized deformation bases ``(G, lam)`` (read-only), at most 256 and
#: :data:`BASIS_CACHE_BYTES` (read when storing: a test may lower it)
_BASIS_CACHE = LRU(256, max_bytes=BASIS_CACHE_BYTES, shared=__name__)


def cached_deformation_basis(key, make_K, M):
    """:func:`deformation_basis` of ``(make_K(), M)``, memoized under ``key`` (LRU).

    ``key`` must identify the kernel and ``M`` (data fingerprint, graph, Laplacian
    and its degree, kernel type and width): the basis depends on no label.  The
    cache holds at most :data:`BASIS_CACHE_BYTES` (always the newest entry).

    Parameters
    ----------
    key : hashable
        Identifies the kernel and ``M``.
    make_K : callable
        ``make_K()`` returns the Gram matrix; called only on a cache miss.
    M : ndarray or sparse matrix of shape (n, n)
        The intrinsic regularizer (``L^p``).

    Returns
    -------
    tuple of ndarray
        ``(G, lam)`` of :func:`deformation_basis`, read-only.
    """
    hit = _BASIS_CACHE.lookup(key)
    if hit is not None:
        return hit
    return cache_put(key, deformation_basis(make_K(), M))


def clear_cache():
    """Forget the memoized deformation bases."""
    _BASIS_CACHE.clear()


def cache_put(key, basis):
    """Memoize ``basis`` under ``key`` (its arrays made read-only); returns it.

    Parameters
    ----------
    key : hashable
        Identifies the kernel and ``M`` (:func:`cached_deformation_basis`).
    basis : tuple of ndarray
        ``(G, lam)`` of :func:`deformation_basis`.

    Returns
    -------
    tuple of ndarray
        ``basis`` itself (its arrays now read-only).
    """
    _BASIS_CACHE.max_bytes = BASIS_CACHE_BYTES
    return _BASIS_CACHE.store(key, basis)
