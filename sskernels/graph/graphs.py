"""The graph of a data set: its k-NN weights, degrees and (lazily) Laplacian spectra.

:class:`Graph` is built from points (a k-NN search, :mod:`sskernels.graph.knn`),
:class:`PrecomputedGraph` from a user's affinity matrix (``graph="precomputed"``); both give
the normalized Laplacian and its eigenpairs (:mod:`sskernels.graph.laplacian`), computed once
and grown on demand, and the weights of new points to the graph's points (induction).  The
learners get them memoized (:func:`sskernels.graph.get_graph`), not from these constructors.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from sskernels.errors import ParameterError
from sskernels.graph.knn import induced_weights, knn_graph
from sskernels.graph.laplacian import (
    degree_normalizer,
    laplacian_spectrum,
    normalized_adjacency,
    normalized_laplacian,
)
from sskernels.memo import freeze, sizeof


class Graph:
    """The k-NN graph of ``X`` with lazily computed, memoized Laplacian spectra.

    The learners get their graphs memoized (:func:`get_graph`, :meth:`KNNGraph.build`)
    rather than from this constructor.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points.
    k : int, default=6
        The number of neighbours.
    weights : {"hein-maier", "heat", "binary"}, default="hein-maier"
        The edge weights; "hein-maier" is Liu et al. eq. (2).
    sigma : float or None, default=None
        Width of "heat" weights; None = root mean squared edge length.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance between points.
    method : {"auto", "exact", "approximate"}, default="auto"
        The neighbour search (see :mod:`sskernels.graph.knn`).

    Attributes
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points, the caller's (not copied).
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The symmetric k-NN weight matrix, with a zero diagonal.
    h : ndarray of shape (n_samples,)
        The k-th neighbour distance of every point (needed for the out-of-sample
        weights of eq. (2)).
    sigma : float or None
        The Gaussian width actually used (None for the other weightings).
    degrees : ndarray of shape (n_samples,)
        The degrees ``D_ii``.
    d_inv_sqrt : ndarray of shape (n_samples,)
        ``D^{-1/2}`` as a vector; isolated nodes get 0.
    knn_info : dict
        The search actually done (method, recall, tie rule, seconds).

    See Also
    --------
    KNNGraph : The graph builder the learners take as ``graph=``.
    get_graph : The memoized graph of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import Graph
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
    >>> g = Graph(X, k=2)
    >>> g.n, g.knn_info["method"]
    (6, 'exact')
    >>> int((g.spectrum().values < 1e-9).sum())      # two components: two zero eigenvalues
    2
    """

    def __init__(self, X, k=6, weights="hein-maier", sigma=None, metric="euclidean", method="auto"):
        self.X = X
        self.k, self.weights, self.metric, self.method = k, weights, metric, method
        self.W, self.h, self.sigma, self.knn_info = knn_graph(
            X, k=k, weights=weights, sigma=sigma, metric=metric, method=method, return_info=True
        )
        self.degrees, self.d_inv_sqrt = degree_normalizer(self.W)
        self._spectrum = None

    @property
    def nbytes(self):
        """The bytes of the arrays this graph holds: ``X`` (dense, or a sparse matrix's data,
        indices and indptr), ``W``, the degrees and the spectrum computed so far."""
        return sum(
            sizeof(a) for a in (self.X, self.W, self.degrees, self.d_inv_sqrt, self._spectrum)
        )

    def freeze(self):
        """Make the graph's own arrays read-only, and those of every spectrum it computes from
        now on (a memoized graph is shared: :func:`sskernels.memo.freeze`).  ``X`` is the
        caller's and is left as it is."""
        self._frozen = True
        freeze((self.W, self.degrees, self.d_inv_sqrt, self._spectrum))

    @property
    def n(self):
        """The number of points n."""
        return self.W.shape[0]

    @property
    def S(self):
        """``D^{-1/2} W D^{-1/2}``."""
        return normalized_adjacency(self.W)

    @property
    def laplacian(self):
        """Unnormalized Laplacian ``L = D - W`` (sparse)."""
        return (sp.diags(self.degrees) - self.W).tocsr()

    @property
    def normalized_laplacian(self):
        """Normalized Laplacian ``L_sym = I - D^{-1/2} W D^{-1/2}`` (sparse)."""
        return normalized_laplacian(self.W)

    def spectrum(self, m=None):
        """Eigenpairs of ``L_sym`` holding at least the m smallest with ``lambda != 1``.

        The largest computation so far is kept, so asking again for fewer pairs costs
        nothing.

        Parameters
        ----------
        m : int or None, default=None
            The number of smallest eigenpairs with ``lambda != 1`` needed; None asks for
            the full spectrum.

        Returns
        -------
        spectrum : Spectrum
            The eigenpairs in ascending order (:class:`~sskernels.graph.Spectrum`:
            ``values``, ``vectors``, ``complete``); it may hold more pairs than asked.
        """
        sp_ = self._spectrum
        if sp_ is not None and (sp_.complete or (m is not None and _available(sp_) >= m)):
            return sp_
        sp_ = laplacian_spectrum(self.W, m=m)
        if m is not None and not sp_.complete and _available(sp_) < m:
            sp_ = laplacian_spectrum(self.W, m=None)
        if self.__dict__.get("_frozen"):
            freeze(sp_)
        self._spectrum = sp_
        return sp_

    @property
    def computed_spectrum(self):
        """The Laplacian spectrum computed so far, or None: never computes one
        (:meth:`spectrum` does)."""
        return self._spectrum

    def state_token(self):
        """What this graph has computed lazily so far (the spectrum's size): a graph handed
        to other processes again after a larger spectrum is a new artifact for them."""
        sp_ = self._spectrum
        return None if sp_ is None else (int(sp_.values.size), bool(sp_.complete))

    def induced(self, Xnew, exclude=None):
        """Weights between new points and this graph's points (eq. (2) rule), dense (s, n).

        The rule of :func:`~sskernels.graph.knn_graph`, with ``h(x)`` the distance from
        ``x`` to its k-th nearest neighbour among the graph's points.

        Parameters
        ----------
        Xnew : array-like of shape (s, n_features)
            The new points.
        exclude : array-like of shape (s,), default=None
            Per new point, the index of a graph point to leave out (or -1): used to
            induce a training point with its self-edge removed.

        Returns
        -------
        Wx : ndarray of shape (s, n)
            The weights ``W(x, x_i)``.
        """
        return induced_weights(
            Xnew,
            self.X,
            self.h,
            k=self.k,
            weights=self.weights,
            sigma=self.sigma,
            metric=self.metric,
            exclude=exclude,
        )

    def induced_normalized(self, Xnew, exclude=None):
        """``w_x`` of Liu et al. eq. (18): ``W_{x,i} / sqrt(D_xx D_ii)``, dense (s, n).

        ``D_xx`` is the sum of the new point's weights (:meth:`induced`); a new point
        without an edge gets a zero row.

        Parameters
        ----------
        Xnew : array-like of shape (s, n_features)
            The new points (for a :class:`PrecomputedGraph`: their (s, n) affinities).
        exclude : array-like of shape (s,), default=None
            As for :meth:`induced`.

        Returns
        -------
        w_x : ndarray of shape (s, n)
            The normalized weights.
        """
        Wx = self.induced(Xnew, exclude=exclude)
        dx = Wx.sum(axis=1)
        with np.errstate(divide="ignore"):
            inv_dx = np.where(dx > 0, 1.0 / np.sqrt(dx), 0.0)
        return Wx * inv_dx[:, None] * self.d_inv_sqrt[None, :]


class PrecomputedGraph(Graph):
    """A graph given by its affinity matrix ``W`` (``graph="precomputed"``).

    There are no features: new points are given by their affinities to the graph's
    points, an (s, n) matrix, wherever another graph would take their features
    (:meth:`induced`), as scikit-learn's ``kernel="precomputed"`` does.

    Parameters
    ----------
    W : array-like or sparse matrix of shape (n, n)
        A symmetric, non-negative matrix with a zero diagonal (kept as CSR).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import PrecomputedGraph
    >>> W = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    >>> g = PrecomputedGraph(W)
    >>> g.n, g.degrees
    (3, array([1.5, 1. , 0.5]))
    >>> g.induced(np.array([[1.0, 0.0, 2.0]]))       # a new point's affinities
    array([[1., 0., 2.]])
    """

    def __init__(self, W):
        self.X = None
        self.k, self.weights, self.metric, self.h, self.sigma = (
            None,
            "precomputed",
            None,
            None,
            None,
        )
        self.method, self.knn_info = None, None
        self.W = sp.csr_matrix(W, dtype=float)
        self.degrees, self.d_inv_sqrt = degree_normalizer(self.W)
        self._spectrum = None

    def induced(self, Xnew, exclude=None):
        """The affinities of new points to the graph's points, checked, dense (s, n).

        Parameters
        ----------
        Xnew : array-like or sparse matrix of shape (s, n)
            The new points' affinities to the n graph points.
        exclude : array-like of shape (s,), default=None
            Per new point, the index of a graph point to leave out (its affinity set to
            0, in a copy).

        Returns
        -------
        Wx : ndarray of shape (s, n)
            The affinities.

        Raises
        ------
        ValueError
            When ``Xnew`` is not (s, n), or has a negative or non-finite entry.
        """
        Wx = Xnew.toarray() if sp.issparse(Xnew) else np.asarray(Xnew, dtype=float)
        if Wx.ndim != 2 or Wx.shape[1] != self.n:
            raise ParameterError(
                f"with graph='precomputed', new points are given by their affinities "
                f"to the {self.n} graph points: expected shape (s, {self.n}), "
                f"got {Wx.shape}"
            )
        if np.any(Wx < 0) or not np.all(np.isfinite(Wx)):
            raise ParameterError("affinities must be finite and non-negative")
        if exclude is not None:
            Wx = Wx.copy()
            Wx[np.arange(len(exclude)), exclude] = 0.0
        return Wx


def check_affinity(W):
    """Validate a precomputed affinity matrix: square, finite, non-negative, symmetric.

    Returns it as CSR with a zero diagonal.  Raises ``ValueError`` naming the defect.

    Parameters
    ----------
    W : array-like or sparse matrix of shape (n, n)
        The affinity matrix; symmetric up to a relative tolerance of 1e-10 of
        ``max(1, max |W_ij|)``.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n, n)
        A float copy with its diagonal set to 0 and explicit zeros removed.

    Raises
    ------
    ValueError
        When ``W`` is not square, has a NaN, infinite or negative entry, or is not symmetric
        (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import check_affinity
    >>> check_affinity(np.array([[1.0, 2.0], [2.0, 0.0]])).toarray()     # diagonal dropped
    array([[0., 2.],
           [2., 0.]])
    >>> check_affinity(np.array([[0.0, 1.0], [0.0, 0.0]]))
    Traceback (most recent call last):
    ...
    sskernels.errors.ParameterError: the precomputed affinity matrix is not symmetric
    """
    W = sp.csr_matrix(W, dtype=float)
    n, m = W.shape
    if n != m:
        raise ParameterError(
            f"graph='precomputed' needs a square (n, n) affinity matrix, got {W.shape}"
        )
    if not np.all(np.isfinite(W.data)):
        raise ParameterError("the precomputed affinity matrix has NaN or infinite entries")
    if W.nnz and W.data.min() < 0:
        raise ParameterError("the precomputed affinity matrix has negative entries")
    asym = abs(W - W.T)
    if asym.nnz and asym.max() > 1e-10 * max(1.0, abs(W).max()):
        raise ParameterError("the precomputed affinity matrix is not symmetric")
    W = W.tolil()
    W.setdiag(0.0)
    W = W.tocsr()
    W.eliminate_zeros()
    return W


def _available(spectrum):
    from sskernels.graph.laplacian import ONE_TOL

    return int(np.sum(np.abs(spectrum.values - 1.0) > ONE_TOL))
