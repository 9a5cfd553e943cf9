"""Graphs over a data set and their Laplacian spectra, computed once and reused.

A :class:`Graph` holds the k-NN weight matrix of a data set, its degrees and
(lazily) the eigenpairs of its normalized Laplacian.  None of this depends on
which points are labeled, so :func:`get_graph` memoizes graphs by the data's
fingerprint and the graph parameters: every split and every method of a run
share one graph and one eigendecomposition.

Why it stays whole: one module, ~590 lines, half of them docstrings: the graph classes, the builder
the
learners take, the memo they all go through and its record of the neighbour searches
stay together, so that a graph is made and memoized in one place.
"""

from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from sskernels.errors import ParameterError
from sskernels.graph.knn import EXACT_MAX_N, METHODS, METRICS, WEIGHTS, induced_weights, knn_graph
from sskernels.graph.laplacian import (
    Spectrum,
    degree_normalizer,
    laplacian_spectrum,
    normalized_adjacency,
    normalized_laplacian,
)
from sskernels.hashing import digest
from sskernels.memo import LRU, freeze, sizeof

__all__ = [
    "Graph", "PrecomputedGraph", "KNNGraph", "get_graph", "clear_cache", "graph_searches",
    "graphs_used",
    "search_summary", "Spectrum", "knn_graph", "induced_weights",
    "normalized_adjacency", "normalized_laplacian", "laplacian_spectrum", "WEIGHTS", "METRICS",
    "METHODS", "EXACT_MAX_N",
]


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

    def __init__(self, X, k=6, weights="hein-maier", sigma=None, metric="euclidean",
                 method="auto"):
        self.X = X
        self.k, self.weights, self.metric, self.method = k, weights, metric, method
        self.W, self.h, self.sigma, self.knn_info = knn_graph(
            X, k=k, weights=weights, sigma=sigma, metric=metric, method=method, return_info=True)
        self.degrees, self.d_inv_sqrt = degree_normalizer(self.W)
        self._spectrum = None

    @property
    def nbytes(self):
        """The bytes of the arrays this graph holds: ``X`` (dense, or a sparse matrix's data,
        indices and indptr), ``W``, the degrees and the spectrum computed so far."""
        return sum(sizeof(a) for a in (self.X, self.W, self.degrees, self.d_inv_sqrt,
                                        self._spectrum))

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
        return induced_weights(Xnew, self.X, self.h, k=self.k, weights=self.weights,
                               sigma=self.sigma, metric=self.metric, exclude=exclude)

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
        self.k, self.weights, self.metric, self.h, self.sigma = None, "precomputed", None, None, None
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
            raise ParameterError(f"with graph='precomputed', new points are given by their affinities "
                             f"to the {self.n} graph points: expected shape (s, {self.n}), "
                             f"got {Wx.shape}")
        if np.any(Wx < 0) or not np.all(np.isfinite(Wx)):
            raise ParameterError("affinities must be finite and non-negative")
        if exclude is not None:
            Wx = Wx.copy()
            Wx[np.arange(len(exclude)), exclude] = 0.0
        return Wx


def check_affinity(W):
    """Validate a precomputed affinity matrix: square, finite, non-negative, symmetric.

    Returns it as CSR with a zero diagonal.  Raises ``ValueError`` naming the defect.
    """
    W = sp.csr_matrix(W, dtype=float)
    n, m = W.shape
    if n != m:
        raise ParameterError(f"graph='precomputed' needs a square (n, n) affinity matrix, got {W.shape}")
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


#: ``id -> (weakref, digest)`` of read-only dense arrays already hashed (see :func:`fingerprint`):
#: not a memo of values but of digests, by weak reference and bounded to 64 entries (dead ones
#: dropped first), so not a :class:`sskernels.memo.LRU`
_FINGERPRINTS: dict = {}


def _frozen(a):
    """True when ``a`` and every array it views are read-only (their contents cannot change)."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    return a is None


def fingerprint(X):
    """A content hash of a dense or sparse matrix.

    A dense array that is read-only all the way down (``_frozen``; the runner freezes its
    data) is hashed once: its digest is kept against a weak reference to it (the experiment
    grid asks for the fingerprint of the same ``X`` on every fit: 15-35 % of a Wang et al.
    split's time before).  Anything writable is hashed every time.
    """
    frozen = isinstance(X, np.ndarray) and _frozen(X)
    if frozen:
        hit = _FINGERPRINTS.get(id(X))
        if hit is not None and hit[0]() is X:
            return hit[1]
    digest = _fingerprint(X)
    if frozen:
        if len(_FINGERPRINTS) >= 64:
            for k in [k for k, (ref, _) in _FINGERPRINTS.items() if ref() is None]:
                del _FINGERPRINTS[k]
        if len(_FINGERPRINTS) < 64:
            _FINGERPRINTS[id(X)] = (weakref.ref(X), digest)
    return digest


def _fingerprint(X):
    return digest(X if sp.issparse(X) else np.asarray(X))


_CACHE_SIZE = 8
#: bytes the memoized graphs may take (data, weights, spectra: :attr:`Graph.nbytes`)
_CACHE_BYTES = 2 * 2**30
#: the memoized graphs, by (fingerprint, k, weights, sigma, metric, method)
_CACHE = LRU(_CACHE_SIZE, max_bytes=_CACHE_BYTES)


def get_graph(X, k=6, weights="hein-maier", sigma=None, metric="euclidean", method="auto"):
    """The :class:`Graph` of ``X``, memoized by content and parameters.

    The memo (:data:`_CACHE`) holds 8 graphs and 2 GiB; a graph is label-independent, so
    every split and every method of a run share one graph and one eigendecomposition.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points (memoized by their content: :func:`fingerprint`).
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

    Returns
    -------
    graph : Graph
        The graph, the same object for the same content and parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import get_graph
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
    >>> get_graph(X, k=2) is get_graph(X.copy(), k=2)     # the same content
    True
    >>> get_graph(X, k=2) is get_graph(X, k=3)
    False
    """
    key = (fingerprint(X), int(k), weights, None if sigma is None else float(sigma), metric,
           method)
    for used in getattr(_USED, "lists", ()):
        if key not in used:
            used.append(key)
    g = _CACHE.lookup(key)
    if g is None:
        g = _CACHE.store(key, Graph(X, k=k, weights=weights, sigma=sigma, metric=metric,
                                    method=method))
    return g


def clear_cache():
    _CACHE.clear()


#: ``lists``: the key lists of the open :func:`graphs_used` blocks of this thread
_USED = threading.local()


@contextmanager
def graphs_used():
    """Collect the keys of the graphs asked for (:func:`get_graph`, built or memoized) inside
    the ``with`` block by this thread, in first-asked order: what :func:`graph_searches`
    reports for one spec, whose methods may share the data with other specs' graphs in the
    cache (or with a spec running in another thread)."""
    keys: list = []
    if not hasattr(_USED, "lists"):
        _USED.lists = []
    _USED.lists.append(keys)
    try:
        yield keys
    finally:
        _USED.lists.remove(keys)


#: the ``knn_info`` entries kept in a run's record of its graphs (:func:`graph_searches`)
SEARCH_KEYS = ("method", "requested", "k", "n", "edges_per_row", "seconds", "index", "recall",
               "edge_recall", "h_exact", "recall_rows", "rows_second_round", "rows_at_cap",
               "candidates", "candidates_max", "crowded")


def graph_searches(X, keys=None):
    """The neighbour searches behind the memoized graphs of ``X``: one dict per graph, its
    ``weights`` and the :data:`SEARCH_KEYS` of its ``knn_info`` (method, recall, tie
    handling, seconds).  ``keys`` (from :func:`graphs_used`): only those graphs, in that
    order -- one spec's, not those another spec built on the same data with other
    parameters; None: every graph of ``X`` in the cache (any parameters), in cache order.
    The runner writes them beside the run's records so that a table says how its graphs
    were searched -- and, for the approximate search, how good they are (the scale work: the
    recall is reported)."""
    fp = fingerprint(X)
    items = (_CACHE.items() if keys is None else
             [(key, _CACHE[key]) for key in keys if key in _CACHE])
    out = []
    for key, g in items:
        if key[0] != fp or not getattr(g, "knn_info", None):
            continue
        info = {k: g.knn_info[k] for k in SEARCH_KEYS if k in g.knn_info}
        out.append({"weights": key[2], **info})
    return out


def search_summary(search):
    """One line for a table note: how a graph's neighbours were searched (an entry of
    :func:`graph_searches`), e.g. ``k-NN k = 10 (approximate, hnswlib ...): recall 0.998,
    edge recall 0.847, exact h 0.9 on 1,000 rows; ...``."""
    k, method = search.get("k"), search.get("method")
    head = f"k-NN k = {k}, {search.get('weights')} weights"
    epr = search.get("edges_per_row")
    tail = f"{epr:.1f} edges per point" if isinstance(epr, (int, float)) else ""
    if method == "exact":
        crowded = search.get("crowded") or {}
        rows = crowded.get("rows") if isinstance(crowded, dict) else None
        text = f"{head} (exact, {search.get('index', 'brute force')}): {tail}"
        if rows:
            text += (f"; {rows:,} points with more than 10 ties at the k-th distance searched "
                     f"to their radius ({crowded.get('pass')})")
        return text
    parts = [f"{head} (approximate, {search.get('index', method)})"]
    if search.get("recall") is None:
        parts.append("recall not measured")
    else:
        parts.append(f"recall {search['recall']:.4f}, edge recall {search['edge_recall']:.4f}, "
                     f"exact k-th distance on {search['h_exact']:.1%} of "
                     f"{search['recall_rows']:,} sampled points (brute force)")
    if search.get("rows_second_round") is not None:
        parts.append(f"{search['rows_second_round']:.1%} of points queried again for "
                     f"{search.get('candidates_max')} candidates, {search['rows_at_cap']:.2%} "
                     f"still tied at that cap")
    parts.append(tail)
    return "; ".join(p for p in parts if p)


def cache_items():
    """The memoized graphs, to hand to worker processes."""
    return list(_CACHE.items())


def cache_put(key, graph):
    """Memoize ``graph`` under ``key`` (its arrays made read-only); returns it."""
    return _CACHE.store(key, graph)


cache_clear = clear_cache


class KNNGraph(BaseEstimator):
    """The k-NN graph builder that the graph-based learners take as ``graph=``.

    A small parameter object in scikit-learn's style (``get_params`` /
    ``set_params``), so that ``GridSearchCV`` can tune ``graph__n_neighbors``.
    ``build(X)`` returns the memoized :class:`Graph` (:func:`get_graph`): the
    label-independent part of every fit, shared by every split and method.

    Parameters
    ----------
    n_neighbors : int, default=6
        k of the k-NN graph.
    weights : {"hein-maier", "heat", "binary"}, default="hein-maier"
        "hein-maier" is Liu et al. eq. (2).
    sigma : float or None, default=None
        Width of "heat" weights; None = root mean squared edge length.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance between points.
    method : {"auto", "exact", "approximate"}, default="auto"
        Neighbour search: "auto" is exact up to ``EXACT_MAX_N`` = 20000 dense or
        100,000 sparse points, approximate (hnswlib) above (``knn.auto_method``).
    """

    def __init__(self, n_neighbors=6, weights="hein-maier", sigma=None, metric="euclidean",
                 method="auto"):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.method = method

    def validate(self):
        """Check the parameters.

        Returns
        -------
        self : KNNGraph
            This builder, when every parameter is valid.

        Raises
        ------
        ValueError
            Naming the first invalid parameter.
        """
        k = self.n_neighbors
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ParameterError(f"graph n_neighbors must be an integer >= 1, got {k!r}")
        if self.weights not in WEIGHTS:
            raise ParameterError(f"graph weights must be one of {WEIGHTS}, got {self.weights!r}")
        if self.metric not in METRICS:
            raise ParameterError(f"graph metric must be one of {METRICS}, got {self.metric!r}")
        if self.sigma is not None and (isinstance(self.sigma, (bool, str))
                                       or not float(self.sigma) > 0):
            raise ParameterError(f"graph sigma must be None or > 0, got {self.sigma!r}")
        if self.method not in METHODS:
            raise ParameterError(f"graph method must be one of {METHODS}, got {self.method!r}")
        return self

    def build(self, X):
        """The :class:`Graph` of ``X`` (memoized by content and parameters).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The points.

        Returns
        -------
        graph : Graph
            The memoized graph (:func:`get_graph`).

        Raises
        ------
        ValueError
            For an invalid parameter (:meth:`validate`), or when ``X`` has no more points
            than ``n_neighbors``.
        """
        self.validate()
        if X.shape[0] <= self.n_neighbors:
            raise ParameterError(f"a {self.n_neighbors}-NN graph needs more than {self.n_neighbors} "
                             f"points, got {X.shape[0]}")
        return get_graph(X, k=self.n_neighbors, weights=self.weights, sigma=self.sigma,
                         metric=self.metric, method=self.method)
