"""What the label-aware family and the kernel designs share (Wang et al. 2015): the unsupervised
eigenvectors of a Gaussian kernel and the kernels of an embedding.

* :func:`label_aware_vectors` — Algorithm 1 steps 1.-2., ``D_n^{-1} K_nl Y`` (a softmax where the
  denominator underflows);
* :func:`landmark_indices`, :func:`empirical_spectrum` and the mixin :class:`RBFEigenbasis` —
  step 3, the memoized eigenvectors of ``exp(-b d^2)`` (or of ``D^{-1/2} K D^{-1/2}``), exact or
  by the Nystrom method;
* :class:`EmbeddingKernel` — the mixin of a learner with an embedding ``phi`` and weights
  ``mu_``: ``K(a, b) = phi(a) diag(mu) phi(b)^T``, its labeled columns and factors without the
  n x n matrix, and eq. (5)'s decision function.

The label-aware kernels (:mod:`sskernels.learners.label_aware`, and their regression
counterpart :mod:`sskernels.learners.label_aware_regression`) and the Table 1 designs
(:mod:`sskernels.learners.kernel_designs`) subclass the mixins; :data:`EIGENBASIS_CONSTRAINTS`
are the constraints of the parameters the label-aware classifier and regressor share.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigvalsh
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from sskernels.hashing import fingerprint
from sskernels.kernels.rbf import rbf_kernel
from sskernels.kernels.spectra import cache_get, cache_put, nystrom_spectrum

__all__ = [
    "EIGENBASIS_CONSTRAINTS",
    "EmbeddingKernel",
    "RBFEigenbasis",
    "empirical_spectrum",
    "gaussian_width",
    "label_aware_vectors",
    "landmark_indices",
    "weighted_factors",
]

#: the constraints of the parameters the label-aware classifier and regressor share (one
#: width, its eigenvectors, the label-aware switch, the metric and the landmark seed)
EIGENBASIS_CONSTRAINTS = {
    "b_scale": [Interval(Real, 0, None, closed="neither")],
    "n_components": [
        Interval(Integral, 1, None, closed="left"),
        Interval(Real, 0, 1, closed="right"),
    ],
    "n_landmarks": [
        Interval(Integral, 1, None, closed="left"),
        Interval(Real, 0, 1, closed="right"),
    ],
    "eigen_solver": [StrOptions({"nystrom", "exact"})],
    "basis": [StrOptions({"kernel", "normalized-laplacian"})],
    "label_aware": ["boolean"],
    "metric": [StrOptions({"euclidean", "cosine"})],
    "random_state": ["random_state"],
}


def gaussian_width(b):
    """The :func:`sskernels.kernels.rbf.rbf` width ``w`` of ``exp(-b d^2)``: ``1 / sqrt(2 b)``.

    Parameters
    ----------
    b : float
        The Gaussian's ``b`` (> 0).

    Returns
    -------
    float
        The width ``w``, with ``exp(-d^2 / (2 w^2)) = exp(-b d^2)``.
    """
    return 1.0 / math.sqrt(2.0 * b)


def label_aware_vectors(D2, Y, b):
    """Alg. 1 step 2: ``D^{-1} K Y`` with ``K = exp(-b D2)`` and ``D = diag(K 1)``.

    ``D2`` holds the squared distances of the points to the labeled points, (s, l); ``Y``
    (l, c) the label columns.

    Computed as the row softmax of ``-b D2`` (shifted by each row's minimum), the same
    numbers wherever ``K 1 > 0`` in floating point and their limit where it underflows.

    Parameters
    ----------
    D2 : array-like of shape (s, l)
        Squared distances of the points to the labeled points.
    Y : ndarray of shape (l, c)
        The label columns of the labeled points.
    b : float
        The Gaussian's ``b``.

    Returns
    -------
    ndarray of shape (s, c)
        The label-aware vectors (as columns) at the s points.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.embedding import label_aware_vectors
    >>> D2 = np.array([[0.0, 4.0], [4.0, 0.0], [1.0, 1.0]])
    >>> label_aware_vectors(D2, np.eye(2), b=1.0).round(3)
    array([[0.982, 0.018],
           [0.018, 0.982],
           [0.5  , 0.5  ]])
    """
    E = -b * np.asarray(D2, dtype=float)
    E -= E.max(axis=1, keepdims=True)
    W = np.exp(E)
    return (W @ Y) / W.sum(axis=1, keepdims=True)


def landmark_indices(X, m, random_state=0):
    """m rows drawn uniformly without replacement, order-free.

    The rows with the m smallest keyed hashes (blake2b, key = ``random_state``) of the rows'
    contents, ties by position: the draw does not depend on the order of the rows.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n, n_features)
        The points (a sparse matrix is not modified).
    m : int
        The number of landmarks (all n rows when m >= n).
    random_state : int, default=0
        The hash key.

    Returns
    -------
    ndarray of int of shape (min(m, n),)
        Positions of the landmarks, sorted.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.learners.embedding import landmark_indices
    >>> X = np.arange(20.0).reshape(10, 2)
    >>> idx = landmark_indices(X, 3)
    >>> bool(np.array_equal(np.sort(9 - landmark_indices(X[::-1], 3)), idx))   # order-free
    True
    """
    n = X.shape[0]
    key = str(int(random_state)).encode()
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)  # the caller's matrix is left as it is
        X.eliminate_zeros()
        X.sort_indices()
        X.data = X.data + 0.0
        rows = [
            X.data[X.indptr[i] : X.indptr[i + 1]].tobytes()
            + X.indices[X.indptr[i] : X.indptr[i + 1]].astype(np.int64).tobytes()
            for i in range(n)
        ]
    else:
        Z = np.ascontiguousarray(X, dtype=float) + 0.0  # -0.0 -> 0.0
        rows = [Z[i].tobytes() for i in range(n)]
    # a keyed pseudo-random ranking that decides the landmarks (numbers), not a cache key:
    # stays here, not in sskernels.hashing
    h = np.array(
        [
            int.from_bytes(hashlib.blake2b(r, key=key, digest_size=8).digest(), "little")
            for r in rows
        ],
        dtype=np.uint64,
    )
    return np.sort(np.argsort(h, kind="stable")[:m])


def _count(value, n):
    """A count (int) or a fraction of n (float), at least 1 and at most n."""
    if isinstance(value, Integral):
        return int(min(value, n))
    return int(min(max(math.ceil(value * n), 1), n))


def empirical_spectrum(X, b, metric="euclidean", basis="kernel", key=None):
    """Every eigenvalue of the n x n empirical matrix the eigenvectors of width b come from.

    The matrix is ``E = exp(-b d^2)`` (``basis="kernel"``) or ``D^-1/2 E D^-1/2``
    (``"normalized-laplacian"``, exact degrees), for the tail sums of local Rademacher
    complexity; label-independent, memoized.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, n_features)
        The points.
    b : float
        The Gaussian's ``b``.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance of the Gaussian kernel.
    basis : {"kernel", "normalized-laplacian"}, default="kernel"
        The matrix, as above.
    key : str or None, default=None
        The memo key of ``X`` (its :func:`~sskernels.hashing.fingerprint`); None computes it.

    Returns
    -------
    ndarray of shape (n,)
        The eigenvalues, ascending (read-only: memoized).
    """
    ck = ("empirical-spectrum", fingerprint(X) if key is None else key, metric, b, basis)
    hit = cache_get(ck)
    if hit is None:
        E = rbf_kernel(X, X, gaussian_width(b), metric)
        if basis == "normalized-laplacian":
            r = 1.0 / np.sqrt(E.sum(axis=1))
            E = r[:, None] * E * r[None, :]
        hit = cache_put(ck, eigvalsh(E))
    return hit


class RBFEigenbasis:
    """Mixin: the memoized unsupervised eigenvectors of the Gaussian kernel ``exp(-b d^2)`` (or
    of its ``S = D^{-1/2} K D^{-1/2}``), exact or by the Nystrom method, for the learners that
    define ``n_components``, ``n_landmarks``, ``eigen_solver``, ``basis``, ``metric`` and
    ``random_state`` (:class:`~sskernels.learners.label_aware.LabelAwareKernel`, :mod:`sskernels.learners.kernel_designs`)."""

    def _eigenvectors(self, X, b, key=None):
        """``(NystromSpectrum, V)``: the unsupervised eigenvectors at width b (memoized);
        ``eigen_solver="exact"`` is the Nystrom method with every row a landmark.

        Every kept eigenpair of the landmark block is computed once per width and landmark
        set, and ``n_components`` takes the leading ones: a grid over ``n_components``
        (Wang et al. Sec. 4.3.2's ``p``) shares one eigendecomposition, its bases nested."""
        n = X.shape[0]
        k = _count(self.n_components, n)
        m = n if self.eigen_solver == "exact" else _count(self.n_landmarks, n)
        seed = self.random_state
        if m >= n:  # every row a landmark: nothing is drawn
            seed = 0
        elif not isinstance(seed, Integral):  # None or a generator: a fresh draw per fit
            seed = int(check_random_state(seed).randint(2**31))
        ck = (
            "nystrom",
            fingerprint(X) if key is None else key,
            self.metric,
            b,
            m,
            seed,
            self.basis,
        )
        hit = cache_get(ck)
        if hit is None:
            idx = np.arange(n) if m == n else landmark_indices(X, m, seed)
            hit = cache_put(
                ck,
                nystrom_spectrum(
                    X,
                    gaussian_width(b),
                    idx,
                    m,
                    self.metric,
                    normalized=self.basis == "normalized-laplacian",
                ),
            )
        spectrum, V = hit
        if k < spectrum.values.size:  # the leading k pairs (read-only views)
            spectrum = replace(spectrum, values=spectrum.values[:k], basis=spectrum.basis[:, :k])
            V = V[:, :k]
        return spectrum, V


def weighted_factors(Pa, Pb, mu):
    """``(Pa diag(mu), Pb)`` restricted to the columns with ``mu != 0``.

    All columns are kept when no ``mu`` is 0.  These are the factors of
    ``Pa diag(mu) Pb^T`` that every kernel entry of an :class:`EmbeddingKernel` is computed
    from.  The terms dropped are exact zeros, but the BLAS sums the rest in another grouping
    than over every column: entries can differ from the full product in the last bits, so
    every product of such a kernel goes through here (``kernel``, and the oracle's labeled
    columns, :func:`sskernels.learners.kernel_machines._labeled_columns`).  alignf's and local
    Rademacher's weights are sparse (e.g. a few dozen of the ~850 base vectors of Table 3's
    seven widths): the product costs that fraction.

    Parameters
    ----------
    Pa : ndarray of shape (n_a, k)
        The embedding of the first point set.
    Pb : ndarray of shape (n_b, k)
        The embedding of the second point set.
    mu : array-like of shape (k,)
        The weights.

    Returns
    -------
    Pa_mu : ndarray of shape (n_a, k_nz)
        The columns of ``Pa`` with ``mu != 0``, times their ``mu``.
    Pb : ndarray of shape (n_b, k_nz)
        The same columns of ``Pb`` (``Pb`` itself when no ``mu`` is 0).
    """
    mu = np.asarray(mu)
    nz = np.flatnonzero(mu)
    if nz.size == mu.size:
        return Pa * mu, Pb
    return Pa[:, nz] * mu[nz], Pb[:, nz]


#: rows per block of the diagonal in :meth:`EmbeddingKernel.labeled_columns`
_DIAG_BLOCK = 128


class EmbeddingKernel:
    """Mixin: the kernel ``K(a, b) = phi(a) diag(mu) phi(b)^T`` of a learner with ``embedding(X)``
    (None = the training points) and ``mu_`` (PSD on any point sets), and eq. (5)'s
    ``decision_function`` from its ``_scores(P)``."""

    #: ``kernel_`` is computed once per fit and kept, read-only
    #: (:func:`sskernels.learners.kernel_machines._fitted_learner` computes it in its memo)
    _memoizes_kernel = True

    def _own_kernel(self):
        """True when ``kernel_`` and ``kernel`` are this mixin's (not a subclass's)."""
        cls = type(self)
        return cls.kernel_ is EmbeddingKernel.kernel_ and cls.kernel is EmbeddingKernel.kernel

    def kernel_factors(self):
        """``(P, mu)`` with ``kernel_ = P diag(mu) P^T`` (the embedding at the training points
        and the weights), or None when a subclass computes its kernel otherwise or before
        ``fit``: the centered alignment of the run's metrics is computed from them without the
        n x n kernel (:func:`sskernels.experiment.tasks.kernel_factors`)."""
        if not (self._own_kernel() and hasattr(self, "mu_")):
            return None
        return self.embedding(), self.mu_

    def labeled_columns(self, labeled):
        """``(K[:, labeled], diag(K))`` of ``kernel_`` without the n x n kernel.

        Only when the kernel is not computed yet (else None: the caller takes its columns): only
        the product with the labeled rows, ``(P mu) P_L^T``, and the diagonal by blocks of rows,
        ``diag((P_B mu) P_B^T)`` -- the same dot products as the full product's entries,
        O(n l k) instead of O(n^2 k).  That they are bitwise the same entries is what the BLAS
        does (an entry is accumulated over the inner dimension in an order that does not
        depend on which other rows and columns are multiplied; OpenBLAS here), not a law:
        ``tests/test_kernel_svm.py`` checks it on the designs, and the oracle refits its
        chosen candidate the ordinary way and redoes the grid the generic way should the two
        disagree.

        Parameters
        ----------
        labeled : array-like of int of shape (l,)
            Positions of the columns (the labeled points).

        Returns
        -------
        tuple of ndarray or None
            ``(K[:, labeled], diag(K))``, of shapes (n, l) and (n,); None when ``kernel_`` is
            already computed or a subclass computes its kernel otherwise.
        """
        if not self._own_kernel() or self.__dict__.get("_kernel_memo") is not None:
            return None
        P = self.embedding()
        Pm, P = weighted_factors(P, P, self.mu_)  # as kernel() multiplies them
        diag = np.empty(P.shape[0])
        for i in range(0, P.shape[0], _DIAG_BLOCK):
            b = slice(i, i + _DIAG_BLOCK)
            diag[b] = np.diag(Pm[b] @ P[b].T)
        return Pm @ P[labeled].T, diag

    @property
    def kernel_(self):
        """``kernel()`` on the training points, computed once per fit (the oracle grid and the
        SVM's C selection read it once per candidate)."""
        cached = self.__dict__.get("_kernel_memo")
        if cached is None or cached[0] is not self.mu_:
            K = self.kernel()
            K.setflags(write=False)  # shared by every reader: never edited in place
            cached = (self.mu_, K)
            self._kernel_memo = cached
        return cached[1]

    def kernel(self, A=None, B=None):
        """``K(a, b) = phi(a) diag(mu) phi(b)^T`` (PSD); None means the training points.

        Only the base vectors with ``mu != 0`` enter the product (:func:`weighted_factors`).

        Parameters
        ----------
        A : array-like of shape (n_a, n_features), default=None
            Points; None: the training points.
        B : array-like of shape (n_b, n_features), default=None
            Points; None: the training points.

        Returns
        -------
        ndarray of shape (n_a, n_b)
            The kernel between the two point sets.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_wine
        >>> from sklearn.preprocessing import StandardScaler
        >>> from sskernels.learners import LabelAwareKernel
        >>> X, y = load_wine(return_X_y=True)
        >>> X = StandardScaler().fit_transform(X)
        >>> y_partial = np.full_like(y, -1)
        >>> y_partial[::10] = y[::10]
        >>> est = LabelAwareKernel(random_state=0).fit(X, y_partial)
        >>> est.kernel(X[:2], X[:3]).shape
        (2, 3)
        >>> bool(np.allclose(est.kernel(), est.kernel_))
        True
        """
        Pa = self.embedding(A)
        Pb = Pa if B is A else self.embedding(B)
        Pm, Pb = weighted_factors(Pa, Pb, self.mu_)
        return Pm @ Pb.T

    def decision_function(self, X):
        """Scores of new points by eq. (5): (s, c), or (s,) ``F_1 - F_0`` for two classes.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            New points.

        Returns
        -------
        scores : ndarray of shape (n_queries,) or (n_queries, n_classes)
            ``F = K(x, X_L) C_L`` per class; for two classes the score of ``classes_[1]``
            minus that of ``classes_[0]``.
        """
        F = self._scores(self.embedding(X))
        return F[:, 1] - F[:, 0] if F.shape[1] == 2 else F
