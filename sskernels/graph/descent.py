"""k-NN graphs of a million points by nearest-neighbour descent (``graph: {method: nndescent}``).

:class:`DescentGraph` is the graph builder (``graph=``) of the scale at which neither of
:mod:`sskernels.graph.knn`'s searches finishes in minutes: SecStr with its 1,189,472 extra
points (1,273,151 in all), where the exact search is quadratic and the HNSW index stalls on
SecStr's ties.  NN-descent (Dong, Moses & Li 2011, by ``pynndescent``) searches them in
minutes; the measurements behind the choices below are in results/README.md.

The search
----------
Points are searched in their exact compact form when they have one: rows that are one-hot
by position (every row has exactly one 1 in each class of columns ``j mod p``, ``p`` its
number of non-zeros; SecStr's 15 positions x 21 symbols, :func:`symbol_codes`) are searched
as their ``p`` symbol codes under the Hamming distance, since for them
``||x_i - x_j||^2 = 2 hamming(t_i, t_j)`` exactly; other data by the Euclidean distance as
given.  The index returns ``q = n_candidates`` candidates per point (default ``6 k + 1``,
the fewest of those measured whose recall on SecStr's 1.27 M points exceeds 0.95); they
are re-ranked by their exact float64 distance (ties by index) and the ``k`` nearest
other points are the out-edges of the point, ``h_i`` the k-th distance.  The weights and the
symmetrisation are eq. (2)'s, as for every graph (:func:`sskernels.graph.knn_graph`).

Ties: only the ``k`` nearest are edges.  The exact search makes every point tied at the
k-th distance an edge; on SecStr's 15 symbols a k-th distance is shared by dozens of points,
which would make a million-point graph several times denser.  The share of the exact tied
edges the graph keeps is reported (``edge_recall``), with the mean number of exactly tied
points (``exact_edges_per_row``).

Recall
------
On ``recall_sample`` (default 2,000) seeded random points the exact k-th distance is
computed by brute force against all n points (blocks of 64 rows, nothing n x n):
``recall`` is the share of the graph's k nearest that lie within it (ties count as hits, the
rule SecStr's exact graph uses), ``h_exact`` the share of sampled points whose ``h_i`` is
exact.  Everything is in ``Graph.knn_info``, reported with every run's graphs.

Determinism: ``random_state = 0`` and a fixed number of threads (``n_jobs``, default 2):
seeded NN-descent gives the same neighbours on every run with the same number of threads on
one type of CPU, not across numbers, so the thread count is a parameter of the graph rather
than the machine's.  Across CPU types it is not the same graph: numba compiles pynndescent
for the CPU it runs on, and the random-projection trees that start the search split on
floating-point products whose rounding follows the instruction set (on SecStr with its extra
points, 1,273,151 points: recall 0.97365 compiled for an AMD EPYC (znver4), 0.97415 for
a generic x86-64, 0.9721 on another session's machine).  A run's records are therefore keyed
by that CPU and by pynndescent's, numba's and llvmlite's versions
(:func:`sskernels.provenance.compiled_key`): on another CPU type they are computed again,
never mixed with those of another graph.

Examples
--------
The first ``build`` of a process waits for numba to compile pynndescent (20 s with its cache
warm, about two minutes cold), so the examples that build are not run as doctests;
``tests/test_descent_examples.py`` runs them as they are written here.

>>> import numpy as np
>>> from sskernels.graph.descent import DescentGraph
>>> rng = np.random.default_rng(0)
>>> X = np.vstack([rng.normal(0, 1, (150, 3)), rng.normal(8, 1, (150, 3))])
>>> DescentGraph(n_neighbors=5, recall_sample=50)
DescentGraph(n_neighbors=5, recall_sample=50)
>>> g = DescentGraph(n_neighbors=5, recall_sample=50).build(X)   # doctest: +SKIP
>>> g.knn_info["method"], g.n, g.knn_info["recall"] >= 0.9       # doctest: +SKIP
('nndescent', 300, True)
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from sskernels.errors import ParameterError
from sskernels.graph.cache import memoized_graph
from sskernels.graph.graphs import Graph
from sskernels.graph.approximate import SEED, _pair_distances, _recall, _row_order
from sskernels.graph.knn import METHODS, WEIGHTS, _assemble
from sskernels.graph.laplacian import degree_normalizer
from sskernels.hashing import fingerprint

#: the searches a spec's ``graph.method`` may name: knn.py's and this module's
SEARCHES = METHODS + ("nndescent",)
#: seeded random points of the brute-force recall measurement
RECALL_SAMPLE = 2000
#: rows per block of the brute-force recall (64 x n distances at a time)
_RECALL_BLOCK = 64


class DescentGraph(BaseEstimator):
    """The k-NN graph builder by nearest-neighbour descent, for a million points.

    A graph builder like :class:`~sskernels.graph.KNNGraph` (the learners take it as
    ``graph=``; a spec asks for it with ``graph: {method: nndescent}``); ``build(X)`` returns
    the memoized graph, shared by every split and method of a run.

    Parameters
    ----------
    n_neighbors : int, default=10
        k of the k-NN graph.
    weights : {"hein-maier", "heat", "binary"}, default="heat"
        The edge weights of eq. (2) (:func:`sskernels.graph.knn_graph`).
    sigma : float or None, default=None
        Width of "heat" weights; None = root mean squared edge length.
    metric : {"euclidean"}, default="euclidean"
        The distance (one-hot rows are searched as symbol codes, the same distance).
    method : {"nndescent"}, default="nndescent"
        The search (the spec's ``graph.method``; kept so that a spec's graph maps onto it).
    n_candidates : int or None, default=None
        Candidates per point the index returns, the point itself included (None:
        ``6 k + 1``, the fewest of those measured whose recall on SecStr's 1.27 M points
        exceeds 0.95).
    recall_sample : int, default=2000
        Seeded random points of the recall measurement (0: not measured).
    n_jobs : int, default=2
        Threads of the search.  NN-descent's neighbours depend on the number of threads
        (seeded, they are the same on every run with the same number on one type of CPU),
        so it is a parameter of the graph, fixed by default; the CPU type is not a
        parameter but is part of every record's key (see the module's notes).

    Examples
    --------
    The builds are not run as doctests (numba's first compilation: see the module's
    examples); ``tests/test_descent_examples.py`` runs them.

    >>> import numpy as np
    >>> from sskernels.graph.descent import DescentGraph
    >>> X = np.random.default_rng(1).normal(size=(200, 4))
    >>> DescentGraph(n_neighbors=4, recall_sample=0).get_params()["n_jobs"]
    2
    >>> g = DescentGraph(n_neighbors=4, recall_sample=0).build(X)    # doctest: +SKIP
    >>> same = DescentGraph(4, recall_sample=0).build(X)             # doctest: +SKIP
    >>> g.W.shape, bool((g.W != g.W.T).nnz == 0), g is same          # doctest: +SKIP
    ((200, 200), True, True)
    """

    def __init__(
        self,
        n_neighbors=10,
        weights="heat",
        sigma=None,
        metric="euclidean",
        method="nndescent",
        n_candidates=None,
        recall_sample=RECALL_SAMPLE,
        n_jobs=2,
    ):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.sigma = sigma
        self.metric = metric
        self.method = method
        self.n_candidates = n_candidates
        self.recall_sample = recall_sample
        self.n_jobs = n_jobs

    def validate(self):
        """Check the parameters.

        Returns
        -------
        self : DescentGraph
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
        if self.metric != "euclidean":
            raise ParameterError(
                f"graph method 'nndescent' searches the euclidean metric, got {self.metric!r}"
            )
        if self.method != "nndescent":
            raise ParameterError(f"DescentGraph's method is 'nndescent', got {self.method!r}")
        if self.sigma is not None and (
            isinstance(self.sigma, (bool, str)) or not float(self.sigma) > 0
        ):
            raise ParameterError(f"graph sigma must be None or > 0, got {self.sigma!r}")
        q = self.n_candidates
        if q is not None and (
            isinstance(q, bool) or not isinstance(q, (int, np.integer)) or q < k + 1
        ):
            raise ParameterError(
                f"graph n_candidates must be None or an integer > n_neighbors = {k}, got {q!r}"
            )
        m = self.recall_sample
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
            raise ParameterError(f"graph recall_sample must be an integer >= 0, got {m!r}")
        j = self.n_jobs
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or j < 1:
            raise ParameterError(f"graph n_jobs must be an integer >= 1, got {j!r}")
        return self

    def build(self, X):
        """The graph of ``X`` (memoized by content and parameters with the k-NN graphs).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The points.

        Returns
        -------
        graph : Graph
            The graph; ``knn_info`` holds the search, its seconds and its recall.

        Raises
        ------
        ValueError
            For an invalid parameter, or when ``X`` has no more points than
            ``n_neighbors``.
        """
        self.validate()
        k = int(self.n_neighbors)
        if X.shape[0] <= k:
            raise ParameterError(f"a {k}-NN graph needs more than {k} points, got {X.shape[0]}")
        q = min(X.shape[0], int(self.n_candidates or 6 * k + 1))
        sigma = None if self.sigma is None else float(self.sigma)
        key = (
            fingerprint(X),
            k,
            self.weights,
            sigma,
            self.metric,
            f"nndescent q={q} recall={int(self.recall_sample)} jobs={int(self.n_jobs)}",
        )
        return memoized_graph(
            key,
            lambda: _DescentKNN(
                X, k, self.weights, sigma, q, int(self.recall_sample), int(self.n_jobs)
            ),
        )


class _DescentKNN(Graph):
    """A :class:`~sskernels.graph.Graph` whose neighbours NN-descent found."""

    def __init__(self, X, k, weights, sigma, q, recall_sample, n_jobs):
        self.X = X
        self.k, self.weights, self.metric, self.method = k, weights, "euclidean", "nndescent"
        self.W, self.h, self.sigma, self.knn_info = descent_knn_graph(
            X,
            k,
            weights=weights,
            sigma=sigma,
            n_candidates=q,
            recall_sample=recall_sample,
            n_jobs=n_jobs,
        )
        self.degrees, self.d_inv_sqrt = degree_normalizer(self.W)
        self._spectrum = None


def symbol_codes(X):
    """The symbol codes of rows that are one-hot by position, else None.

    ``X`` qualifies when it is sparse with values 1, the same number ``p`` of non-zeros in
    every row, and in every row exactly one non-zero in each class of columns ``j mod p``
    (SecStr: 15 positions, column ``s p + j`` for symbol ``s`` at position ``j``).  Then
    ``||x_a - x_b||^2 = 2 hamming(t_a, t_b)`` with ``t[:, j]`` the column of row's non-zero
    in class ``j`` divided by ``p``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points.

    Returns
    -------
    numpy.ndarray of shape (n_samples, p) or None
        The codes (uint8 when they fit, else int32), or None when ``X`` is not one-hot by
        position.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from sskernels.graph.descent import symbol_codes
    >>> T = np.array([[0, 2], [1, 1], [2, 0]])      # 2 positions, 3 symbols
    >>> X = sp.csr_matrix((np.ones(6), (np.repeat(np.arange(3), 2), (T * 2 + [0, 1]).ravel())),
    ...                   shape=(3, 6))
    >>> symbol_codes(X).tolist(), symbol_codes(X.toarray())
    ([[0, 2], [1, 1], [2, 0]], None)
    """
    if not sp.issparse(X):
        return None
    X = sp.csr_matrix(X)
    n = X.shape[0]
    counts = np.diff(X.indptr)
    if n == 0 or counts[0] == 0 or np.any(counts != counts[0]) or np.any(X.data != 1):
        return None
    p = int(counts[0])
    idx = X.indices.reshape(n, p).astype(np.int64)
    pos = idx % p
    order = np.argsort(pos, axis=1, kind="stable")
    if not np.array_equal(
        np.take_along_axis(pos, order, axis=1), np.broadcast_to(np.arange(p), (n, p))
    ):
        return None
    T = np.take_along_axis(idx, order, axis=1) // p
    return T.astype(np.uint8 if T.max() < 256 else np.int32)


def descent_knn_graph(
    X, k, weights="heat", sigma=None, n_candidates=None, recall_sample=RECALL_SAMPLE, n_jobs=2
):
    """``(W, h, sigma, knn_info)`` of the k-NN graph of ``X`` by NN-descent.

    See the module's description for the search, the tie rule and the recall.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The points.
    k : int
        The number of neighbours.
    weights : {"hein-maier", "heat", "binary"}, default="heat"
        The weights of eq. (2).
    sigma : float or None, default=None
        Width of "heat" weights; None = root mean squared edge length.
    n_candidates : int or None, default=None
        Candidates per point (None: ``6 k + 1``, the point itself included).
    recall_sample : int, default=2000
        Seeded random points of the recall measurement (0: none).
    n_jobs : int, default=2
        Threads of the search (the neighbours depend on it; see :class:`DescentGraph`).

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The symmetric weights.
    h : numpy.ndarray of shape (n_samples,)
        The k-th neighbour distances.
    sigma : float or None
        The heat width used.
    knn_info : dict
        ``method`` ("nndescent"), ``index``, ``ties``, ``k``, ``n``, ``candidates``,
        ``edges_per_row``, ``seconds`` (CPU) and ``wall_seconds``, ``search_seconds`` (the
        index's own pass), the recall (``recall``, ``edge_recall``, ``h_exact``,
        ``recall_rows``, ``exact_edges_per_row``) and ``symbol_codes`` (whether one-hot
        rows were searched as codes).

    Raises
    ------
    ImportError
        When pynndescent is not installed.
    """
    try:
        import pynndescent
        from pynndescent import NNDescent
    except ImportError as exc:  # pragma: no cover - the dependency is declared
        raise ImportError(
            "graph method 'nndescent' needs the pynndescent package (pip install pynndescent)"
        ) from exc
    t0, w0 = time.process_time(), time.perf_counter()
    n = X.shape[0]
    q = min(n, int(n_candidates or 6 * k + 1))
    T = symbol_codes(X)
    if T is not None:
        data, metric = T, "hamming"
    else:
        data = X.tocsr().astype(np.float32) if sp.issparse(X) else np.asarray(X, np.float32)
        metric = "euclidean"
    threads = int(n_jobs)
    s0 = time.perf_counter()
    index = NNDescent(
        data,
        metric=metric,
        n_neighbors=q,
        random_state=SEED,
        n_jobs=threads,
        low_memory=True,
        compressed=True,
        verbose=False,
    )
    cand = np.asarray(index.neighbor_graph[0], dtype=np.int64)
    search_seconds = time.perf_counter() - s0
    del index
    rows = np.arange(n)
    bad = cand < 0  # fewer than q found: the point itself fills the gap
    cand[bad] = np.broadcast_to(rows[:, None], cand.shape)[bad]
    dist = _exact_distances(X, T, rows, cand)
    order = _row_order(dist, cand)
    dist = np.take_along_axis(dist, order, axis=1)
    cand = np.take_along_axis(cand, order, axis=1)
    other = cand != rows[:, None]
    first = np.argsort(~other, axis=1, kind="stable")[:, :k]  # the k nearest other points
    nn = np.take_along_axis(cand, first, axis=1)
    dk = np.take_along_axis(dist, first, axis=1)
    if np.any(~np.take_along_axis(other, first, axis=1)):
        raise ParameterError(
            f"NN-descent found fewer than k = {k} other points for some "
            f"points (duplicates beyond {q} candidates); raise n_candidates"
        )
    h = dk[:, -1].copy()
    W, sigma = _assemble(np.repeat(rows, k), nn.ravel(), dk.ravel(), h, n, weights, sigma)
    info = {
        "method": "nndescent",
        "index": (
            f"pynndescent {pynndescent.__version__} NN-descent, "
            f"{'hamming on symbol codes' if T is not None else 'euclidean'}, "
            f"{q} candidates, seed {SEED}, {threads} thread(s)"
        ),
        "ties": (
            f"the k nearest of the index's {q - 1} candidates by exact float64 "
            f"distance (ties broken by index); points tied at the k-th distance "
            f"beyond k are not edges"
        ),
        "candidates": int(q - 1),
        "symbol_codes": T is not None,
        "search_seconds": search_seconds,
    }
    info.update(_measure_recall(X, T, k, nn, h, recall_sample))
    info.update(
        k=int(k),
        n=int(n),
        edges_per_row=W.nnz / n,
        requested="nndescent",
        seconds=time.process_time() - t0,
        wall_seconds=time.perf_counter() - w0,
    )
    return W, h, sigma, info


def _exact_distances(X, T, rows, cand):
    """Exact float64 distances of every point to its candidates (codes: ``sqrt(2 hamming)``)."""
    if T is None:
        return _pair_distances(X, rows, cand)
    out = np.empty(cand.shape)
    for s in range(0, rows.size, 65536):
        c = cand[s : s + 65536]
        ham = (T[c] != T[rows[s : s + 65536], None, :]).sum(axis=2)
        out[s : s + 65536] = np.sqrt(2.0 * ham)
    return out


def _measure_recall(X, T, k, nn, h, m):
    """The recall of the graph's k nearest on ``m`` seeded random points, by brute force."""
    n = X.shape[0]
    m = min(int(m), n)
    if m == 0:
        return {
            "recall": None,
            "edge_recall": None,
            "h_exact": None,
            "recall_rows": 0,
            "exact_edges_per_row": None,
        }
    if T is None:  # knn.py's brute-force measurement, on the k nearest kept
        E = sp.csr_matrix(
            (np.ones(nn.size, dtype=bool), (np.repeat(np.arange(n), k), nn.ravel())), shape=(n, n)
        )
        out = _recall(X, k, nn, E, h, m)
        out["exact_edges_per_row"] = None
        return out
    S = np.sort(np.random.default_rng(SEED).choice(n, size=m, replace=False))
    hits = kept = exact_edges = h_ok = 0
    for s in range(0, m, _RECALL_BLOCK):
        blk = S[s : s + _RECALL_BLOCK]
        ham = np.zeros((blk.size, n), dtype=np.uint8)
        for j in range(T.shape[1]):
            ham += T[blk, j][:, None] != T[None, :, j]
        ham[np.arange(blk.size), blk] = 255
        hk = np.partition(ham, k - 1, axis=1)[:, k - 1]
        for a, i in enumerate(blk):
            inside = ham[a] <= hk[a]
            found = int(np.sum(inside[nn[i]]))
            hits += found
            kept += found
            exact_edges += int(inside.sum())
            h_ok += bool(abs(h[i] - np.sqrt(2.0 * hk[a])) <= 1e-9)
    return {
        "recall": hits / (m * k),
        "edge_recall": kept / max(exact_edges, 1),
        "h_exact": h_ok / m,
        "recall_rows": m,
        "exact_edges_per_row": exact_edges / m,
    }
