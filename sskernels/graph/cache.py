"""The memo of graphs: every split and every method of a run share one graph.

:func:`get_graph` memoizes a :class:`~sskernels.graph.graphs.Graph` by the data's content
(:func:`sskernels.hashing.fingerprint`) and the graph parameters, in an LRU that the runner
hands to its workers (a shared :class:`sskernels.memo.LRU`); :func:`graphs_used` and
:func:`graph_searches` say which graphs a spec asked for and how their neighbours were
searched.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from sskernels.graph.graphs import Graph
from sskernels.hashing import fingerprint
from sskernels.memo import LRU

_CACHE_SIZE = 8
#: bytes the memoized graphs may take (data, weights, spectra: :attr:`Graph.nbytes`)
_CACHE_BYTES = 2 * 2**30
#: the memoized graphs, by (fingerprint, k, weights, sigma, metric, method)
_CACHE = LRU(_CACHE_SIZE, max_bytes=_CACHE_BYTES, shared=__name__)


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
    key = (fingerprint(X), int(k), weights, None if sigma is None else float(sigma), metric, method)
    return memoized_graph(
        key, lambda: Graph(X, k=k, weights=weights, sigma=sigma, metric=metric, method=method)
    )


def memoized_graph(key, build):
    """The graph memoized under ``key``, built by ``build()`` on a miss; ``key`` is
    reported to the open :func:`graphs_used` blocks (built or memoized).

    The one entry to the memo of every graph builder (:func:`get_graph`, and
    :class:`~sskernels.graph.descent.DescentGraph`).

    Parameters
    ----------
    key : tuple
        ``(fingerprint, k, weights, sigma, metric, method)``: the content of the points
        and every parameter the graph depends on.
    build : callable
        ``build()`` returns the :class:`Graph`.

    Returns
    -------
    graph : Graph
        The memoized graph, or the one just built (and memoized).
    """
    for used in getattr(_USED, "lists", ()):
        if key not in used:
            used.append(key)
    g = _CACHE.lookup(key)
    if g is None:
        g = _CACHE.store(key, build())
    return g


def clear_cache():
    """Forget every memoized graph."""
    _CACHE.clear()


def cached_graphs():
    """``[(key, graph)]`` of the memoized graphs, least recently used first; ``key`` is
    ``(fingerprint, k, weights, sigma, metric, method)`` (:func:`get_graph`)."""
    return list(_CACHE.items())


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
SEARCH_KEYS = (
    "method",
    "requested",
    "k",
    "n",
    "edges_per_row",
    "seconds",
    "wall_seconds",
    "search_seconds",
    "index",
    "recall",
    "edge_recall",
    "h_exact",
    "recall_rows",
    "exact_edges_per_row",
    "rows_second_round",
    "rows_at_cap",
    "candidates",
    "candidates_max",
    "crowded",
)


def graph_searches(X, keys=None):
    """The neighbour searches behind the memoized graphs of ``X``.

    One dict per graph: its ``weights`` and the :data:`SEARCH_KEYS` of its ``knn_info``
    (method, recall, tie handling, seconds).  The runner writes them beside the run's records
    so that a table says how its graphs were searched -- and, for the approximate search, how
    good they are (the recall is reported).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points whose graphs are reported (matched by content: :func:`fingerprint`).
    keys : list of tuple or None, default=None
        Graph keys (from :func:`graphs_used`): only those graphs, in that order -- one
        spec's, not those another spec built on the same data with other parameters; None:
        every graph of ``X`` in the cache (any parameters), in cache order.  A key no longer
        in the cache is skipped.

    Returns
    -------
    list of dict
        One entry per graph of ``X`` whose search was recorded (``knn_info``): ``weights``
        and the :data:`SEARCH_KEYS` present in it.

    Examples
    --------
    >>> import numpy as np
    >>> from sskernels.graph import get_graph, graph_searches, graphs_used
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [5.0, 6.0], [7.0, 5.0]])
    >>> with graphs_used() as keys:
    ...     _ = get_graph(X, k=2)
    >>> [(s["weights"], s["method"], s["k"], s["recall"]) for s in graph_searches(X, keys)]
    [('hein-maier', 'exact', 2, 1.0)]
    """
    fp = fingerprint(X)
    items = (
        _CACHE.items() if keys is None else [(key, _CACHE[key]) for key in keys if key in _CACHE]
    )
    out = []
    for key, g in items:
        if key[0] != fp or not getattr(g, "knn_info", None):
            continue
        info = {k: g.knn_info[k] for k in SEARCH_KEYS if k in g.knn_info}
        out.append({"weights": key[2], **info})
    return out


def search_summary(search):
    """One line for a table note: how a graph's neighbours were searched.

    Parameters
    ----------
    search : dict
        An entry of :func:`graph_searches`.

    Returns
    -------
    str
        ``k``, the weights, the method and index, for an approximate search its recall (or
        "recall not measured") and the share of points queried again, and the mean number of
        edges per point; for an exact search the points searched to their radius (more than
        10 ties at the k-th distance), if any.

    Examples
    --------
    >>> from sskernels.graph import search_summary
    >>> line = search_summary({"k": 10, "weights": "heat", "method": "approximate",
    ...                        "index": "hnswlib", "recall": 0.998, "edge_recall": 0.847,
    ...                        "h_exact": 0.9, "recall_rows": 1000, "edges_per_row": 11.2})
    >>> import textwrap
    >>> print(textwrap.fill(line, 80))
    k-NN k = 10, heat weights (approximate, hnswlib); recall 0.9980, edge recall
    0.8470, exact k-th distance on 90.0% of 1,000 sampled points (brute force); 11.2
    edges per point
    """
    k, method = search.get("k"), search.get("method")
    head = f"k-NN k = {k}, {search.get('weights')} weights"
    epr = search.get("edges_per_row")
    tail = f"{epr:.1f} edges per point" if isinstance(epr, (int, float)) else ""
    if method == "exact":
        crowded = search.get("crowded") or {}
        rows = crowded.get("rows") if isinstance(crowded, dict) else None
        text = f"{head} (exact, {search.get('index', 'brute force')}): {tail}"
        if rows:
            text += (
                f"; {rows:,} points with more than 10 ties at the k-th distance searched "
                f"to their radius ({crowded.get('pass')})"
            )
        return text
    parts = [f"{head} (approximate, {search.get('index', method)})"]
    if search.get("recall") is None:
        parts.append("recall not measured")
    else:
        parts.append(
            f"recall {search['recall']:.4f}, edge recall {search['edge_recall']:.4f}, "
            f"exact k-th distance on {search['h_exact']:.1%} of "
            f"{search['recall_rows']:,} sampled points (brute force)"
        )
    if search.get("rows_second_round") is not None:
        parts.append(
            f"{search['rows_second_round']:.1%} of points queried again for "
            f"{search.get('candidates_max')} candidates, {search['rows_at_cap']:.2%} "
            f"still tied at that cap"
        )
    parts.append(tail)
    return "; ".join(p for p in parts if p)
