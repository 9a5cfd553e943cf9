"""k-nearest-neighbour graphs and their edge weights.

:func:`knn_graph` builds the weight matrix of the k-NN graph of a set of points,
:func:`induced_weights` the weights between new points and a graph's points.  Three
weightings are offered:

``hein-maier``
    Liu et al. (2009), eq. (2), after Hein & Maier (2007): with h(x) the distance
    from x to its k-th nearest neighbour,
    ``W_ij = exp(-||x_i - x_j||^2 / max(h_i^2, h_j^2))`` if
    ``||x_i - x_j|| <= max(h_i, h_j)`` and 0 otherwise.  The support condition is
    the symmetric ("or") k-NN graph: j is among the k nearest neighbours of i, or
    i among those of j.
``heat``
    Gaussian weights ``exp(-||x_i - x_j||^2 / (2 sigma^2))`` on the symmetric
    k-NN graph.  ``sigma=None`` takes sigma^2 as the mean squared edge length
    (the choice of Mao & Tsang, Sec. 5.2).
``binary``
    ``W_ij = 1`` on the symmetric k-NN graph.

Self-loops are never added (``W_ii = 0``).  Distances are Euclidean; ``metric=
"cosine"`` uses ``1 - cos`` as the neighbour ranking and the Euclidean distance of
the unit-normalised rows (which is ``sqrt(2 (1 - cos))``) in the weights.

Two neighbour searches (``method=``)
------------------------------------

``"exact"`` (:mod:`sskernels.graph.exact`)
    scikit-learn ``NearestNeighbors``: eq. (2) exactly, every point tied at the k-th
    distance an edge.  Its row blocks run on the threads of :func:`search_threads`, or
    where :func:`search_mapper` sends them (:mod:`sskernels.graph.search`; both are
    importable from here): the thread count does not change any result.
``"approximate"`` (:mod:`sskernels.graph.approximate`)
    An HNSW index (``hnswlib``, one thread, seeded: the same graph on every run), its
    candidates re-ranked by their exact distance, with at most 16 k out-edges per point; its
    recall is measured against brute force.
``"auto"`` (:func:`auto_method`)
    ``"exact"`` when ``n <= EXACT_MAX_N = 20000``, or for sparse input
    ``n <= EXACT_MAX_N_SPARSE = 100000``; ``"approximate"`` above.

On sparse one-hot data such as SecStr the exact search is cheap (scikit-learn's sparse
brute force) and finds every tied edge, where the approximate one misses part of them, so
``"auto"`` searches sparse input exactly up to ``EXACT_MAX_N_SPARSE`` = 100,000 points;
``EXACT_MAX_N`` guards against the quadratic cost of the exact search on dense data.

Every choice and measurement of a build is returned in ``knn_info``
(``knn_graph(..., return_info=True)``, ``Graph.knn_info``).
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from sskernels.errors import ParameterError
from sskernels.graph.approximate import _approximate_edges
from sskernels.graph.exact import _exact_edges

# the exact search's context managers, kept importable from here (docs/distributed.md)
from sskernels.graph.search import search_mapper, search_threads  # noqa: F401

WEIGHTS = ("hein-maier", "heat", "binary")
METRICS = ("euclidean", "cosine")
METHODS = ("auto", "exact", "approximate")
#: ``method="auto"`` searches exactly up to this many points, approximately above
EXACT_MAX_N = 20000
#: ... and up to this many for sparse input (:func:`auto_method`)
EXACT_MAX_N_SPARSE = 100000
#: rows of the brute-force recall sample of the approximate path
RECALL_SAMPLE = 1000
_TINY = 1e-12


def _prepare(X, metric):
    if metric == "cosine":
        return normalize(X)
    return X


def _check_method(method):
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")


def knn_graph(
    X,
    k=6,
    weights="hein-maier",
    sigma=None,
    metric="euclidean",
    method="auto",
    return_info=False,
    recall_sample=RECALL_SAMPLE,
):
    """Symmetric k-NN weight matrix of the rows of ``X`` (Liu et al. eq. (2), Hein & Maier).

    Returns ``(W, h, sigma)``: ``W`` a symmetric ``csr_matrix`` with zero diagonal,
    ``h`` the k-th neighbour distance of every point (needed for the
    out-of-sample weights of eq. (2)), and the Gaussian width actually used
    (``None`` for the other weightings).  With ``return_info=True`` a fourth
    item, ``knn_info``: a dict with ``method`` ("exact" or "hnswlib"),
    ``recall`` (1.0 for the exact search, None if not measured), the tie rule ``ties``,
    ``seconds`` and the details of the search (:mod:`sskernels.graph.exact`,
    :mod:`sskernels.graph.approximate`).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points.
    k : int, default=6
        The number of neighbours, in [1, n_samples - 1]; every point tied at the k-th
        distance is an edge too.
    weights : {"hein-maier", "heat", "binary"}, default="hein-maier"
        The edge weights (the module docstring); "hein-maier" is Liu et al. eq. (2).
    sigma : float or None, default=None
        Width of "heat" weights; None: the root mean squared edge length.  Not used by the
        other weightings.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance between points; "cosine" ranks neighbours by ``1 - cos`` and weighs the
        edges by the Euclidean distance of the unit-normalised rows.
    method : {"auto", "exact", "approximate"}, default="auto"
        The neighbour search: "auto" (:func:`auto_method`: exact up to ``EXACT_MAX_N`` dense
        or ``EXACT_MAX_N_SPARSE`` sparse points, approximate above), "exact" or
        "approximate".
    return_info : bool, default=False
        Return ``knn_info`` as a fourth item.
    recall_sample : int, default=1000
        Rows of the approximate path's recall measurement (0: none, ``recall`` is then
        None); :data:`RECALL_SAMPLE`.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The symmetric weight matrix, zero diagonal.
    h : ndarray of shape (n_samples,)
        The k-th neighbour distance of every point.
    sigma : float or None
        The Gaussian width used by "heat" weights, None for the other weightings.
    knn_info : dict
        Only with ``return_info=True``: the search done (``method``, ``requested``,
        ``recall``, ``ties``, ``k``, ``n``, ``edges_per_row``, ``seconds`` of CPU time and
        the search's details).

    Raises
    ------
    ValueError
        For an unknown ``weights``, ``metric`` or ``method``, a ``recall_sample`` that is not
        an integer >= 0, or ``k`` outside [1, n_samples - 1]
        (:class:`~sskernels.errors.ParameterError`, a ``ValueError``).
    ImportError
        When the approximate search is used and hnswlib is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import knn_graph
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
    >>> W, h, sigma = knn_graph(X, k=1)      # points 1 and 2 tie as point 0's nearest
    >>> W.toarray().round(3)
    array([[0.   , 0.368, 0.368, 0.   , 0.   , 0.   ],
           [0.368, 0.   , 0.   , 0.   , 0.   , 0.   ],
           [0.368, 0.   , 0.   , 0.   , 0.   , 0.   ],
           [0.   , 0.   , 0.   , 0.   , 0.368, 0.368],
           [0.   , 0.   , 0.   , 0.368, 0.   , 0.   ],
           [0.   , 0.   , 0.   , 0.368, 0.   , 0.   ]])
    >>> h, sigma
    (array([1., 1., 1., 1., 1., 1.]), None)
    """
    if weights not in WEIGHTS:
        raise ParameterError(f"weights must be one of {WEIGHTS}, got {weights!r}")
    if metric not in METRICS:
        raise ParameterError(f"metric must be one of {METRICS}, got {metric!r}")
    _check_method(method)
    if (
        isinstance(recall_sample, bool)
        or not isinstance(recall_sample, (int, np.integer))
        or recall_sample < 0
    ):
        raise ParameterError(f"recall_sample must be an integer >= 0, got {recall_sample!r}")
    t0 = time.process_time()
    Z = _prepare(X, metric)
    n = Z.shape[0]
    if not 1 <= k < n:
        raise ParameterError(f"k must be in [1, n-1] = [1, {n - 1}], got {k}")
    use = method if method != "auto" else auto_method(Z)
    if use == "exact":
        h, rows, cols, d, info = _exact_edges(Z, k)
    else:
        h, rows, cols, d, info = _approximate_edges(Z, k, recall_sample)
    W, sigma = _assemble(rows, cols, d, h, n, weights, sigma)
    info.update(
        requested=method,
        exact_max_n=_exact_max_n(Z),
        k=int(k),
        n=int(n),
        edges_per_row=W.nnz / n,
        seconds=time.process_time() - t0,
    )
    if return_info:
        return W, h, sigma, info
    return W, h, sigma


def _exact_max_n(X):
    return EXACT_MAX_N_SPARSE if sp.issparse(X) else EXACT_MAX_N


def auto_method(X):
    """The search ``method="auto"`` uses for ``X``.

    "exact" up to :data:`EXACT_MAX_N` = 20,000 dense points or :data:`EXACT_MAX_N_SPARSE` =
    100,000 sparse ones, "approximate" above.  Sparse rows make the exact search cheap
    (scikit-learn's sparse brute force, no densifying) while the HNSW index needs them dense
    in blocks: on SecStr (83,679 one-hot rows) the exact search is the faster one, and the
    approximate one misses part of the tied edges (this module's docstring).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The points (their number and whether they are sparse decide).

    Returns
    -------
    str
        "exact" or "approximate".
    """
    return "exact" if X.shape[0] <= _exact_max_n(X) else "approximate"


def _assemble(rows, cols, d, h, n, weights, sigma):
    """W of eq. (2) from the directed edges ``d_ij <= h_i`` (their union is the support)."""
    # symmetric support: d_ij <= max(h_i, h_j), i.e. the union of the directed relations
    D = sp.coo_matrix((d + _TINY, (rows, cols)), shape=(n, n)).tocsr()
    D = D.maximum(D.T).tocoo()
    r, c, dij = D.row, D.col, np.maximum(D.data - _TINY, 0.0)
    keep = r != c
    r, c, dij = r[keep], c[keep], dij[keep]
    w, sigma = _edge_weights(dij, h[r], h[c], weights, sigma)
    W = sp.csr_matrix((w, (r, c)), shape=(n, n))
    W.eliminate_zeros()
    return W, sigma


def _edge_weights(dij, hi, hj, weights, sigma):
    if weights == "hein-maier":
        scale = np.maximum(np.maximum(hi, hj) ** 2, _TINY)
        return np.exp(-(dij**2) / scale), None
    if weights == "heat":
        if sigma is None:
            sigma = float(np.sqrt(np.mean(dij**2))) if dij.size else 1.0
            sigma = max(sigma, _TINY)
        return np.exp(-(dij**2) / (2.0 * sigma**2)), sigma
    return np.ones_like(dij), None


def induced_weights(
    Xnew, X, h, k=6, weights="hein-maier", sigma=None, metric="euclidean", exclude=None
):
    """Weights ``W(x, x_i)`` between new points and the graph's points.

    The same rule as :func:`knn_graph` (eq. (2) for ``hein-maier``), with
    ``h(x)`` the distance from ``x`` to its k-th nearest neighbour among the
    graph's points; an edge exists where ``||x - x_i|| <= max(h(x), h_i)``.
    ``exclude`` optionally gives, per new point, the index of a graph point to
    leave out (or -1): used to induce a training point with its self-edge
    removed.  Returns a dense ``(s, n)`` array.

    Parameters
    ----------
    Xnew : array-like or sparse matrix of shape (s, n_features)
        The new points.
    X : array-like or sparse matrix of shape (n, n_features)
        The graph's points.
    h : ndarray of shape (n,)
        The k-th neighbour distance of every graph point (as :func:`knn_graph` returns it).
    k : int, default=6
        The number of neighbours (that of the graph).
    weights : {"hein-maier", "heat", "binary"}, default="hein-maier"
        The edge weights (those of the graph).
    sigma : float or None, default=None
        Width of "heat" weights (the graph's, as :func:`knn_graph` returns it); None: the
        root mean squared length of the new points' edges.
    metric : {"euclidean", "cosine"}, default="euclidean"
        The distance between points (that of the graph).
    exclude : array-like of int of shape (s,), default=None
        Per new point, the index of a graph point to leave out, or -1.

    Returns
    -------
    ndarray of shape (s, n)
        The weights; 0 where there is no edge.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import induced_weights, knn_graph
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [6.0, 5.0]])
    >>> W, h, sigma = knn_graph(X, k=2)
    >>> induced_weights(np.array([[0.0, 0.5], [5.5, 5.5]]), X, h, k=2).round(3)
    array([[0.779, 0.882, 0.535, 0.   , 0.   , 0.   ],
           [0.   , 0.   , 0.   , 0.607, 0.779, 0.779]])
    >>> induced_weights(X[:1], X, h, k=2, exclude=[0]).round(3)     # point 0 without its self-edge
    array([[0.   , 0.607, 0.607, 0.   , 0.   , 0.   ]])
    """
    Zn = _prepare(Xnew, metric)
    Z = _prepare(X, metric)
    from sklearn.metrics import pairwise_distances

    Dn = pairwise_distances(Zn, Z)
    if exclude is not None:
        exclude = np.asarray(exclude)
        rows = np.flatnonzero(exclude >= 0)
        Dn[rows, exclude[rows]] = np.inf
    hx = np.partition(Dn, k - 1, axis=1)[:, k - 1]
    support = Dn <= np.maximum(hx[:, None], h[None, :]) * (1 + 1e-12)
    s, n = Dn.shape
    r, c = np.nonzero(support)
    w, _ = _edge_weights(Dn[r, c], hx[r], h[c], weights, sigma)
    out = np.zeros((s, n))
    out[r, c] = w
    return out
