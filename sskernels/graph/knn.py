"""k-nearest-neighbour graphs and their edge weights.

Three weightings are offered:

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
------------------------------------------------------

``"exact"`` (``"auto"`` when ``n <= EXACT_MAX_N = 20000``, or for sparse input
``n <= EXACT_MAX_N_SPARSE = 100000``: :func:`auto_method`)
    scikit-learn ``NearestNeighbors``: eq. (2) exactly, every point tied at the
    k-th distance an edge (the committed paper tables depend on these graphs, bit for
    bit).  Rows with more than ``extra = 10`` points tied at their k-th distance
    ("crowded" rows) get the edges of one ``radius_neighbors`` query per row, computed
    in one batched pass:

    * sparse input and tree indexes (kd/ball tree): one ``radius_neighbors``
      call per block of 256 crowded rows (rows sorted by radius, each block
      queried at its largest radius and filtered per row).  The distance of a
      pair does not depend on the batch there, so this is identical.
    * dense input searched by brute force: scikit-learn's Euclidean reduction
      computes ``|x|^2 - 2 x.y + |y|^2`` with a BLAS ``dgemm`` per (query chunk,
      256-row data chunk), and the rounding of ``x.y`` depends on the chunk
      shapes, so a batched query differs from a one-row query in the last bits.
      The pass repeats the one-row arithmetic (one ``dgemm`` of shape
      ``(256, 1)`` per data chunk, no scikit-learn call per row) and checks it
      against scikit-learn's own one-row query on two crowded rows; if that
      check fails (another scikit-learn or BLAS), the rows get one
      ``radius_neighbors`` query each, recorded in ``knn_info["crowded"]``.

``"approximate"`` (``"auto"`` above those sizes)
    An HNSW index (``hnswlib``, M = 16, ef_construction = 200, ef = max(64,
    2 q); built with one thread and ``random_seed = 0``, so the graph is the
    same on every run).  Tie rule: each point's ``q - 1 = k + tie_extra(k) =
    4 k`` candidates are re-ranked by their exact float64 distance (ties broken
    by index); h_i is the k-th of these, and the out-edges of i are every
    candidate with ``d_ij <= h_i``: the k nearest plus the ties at the k-th
    distance found among the candidates.  A point whose 4 k candidates are all
    within h_i (the tie may go on) is queried again for ``k + tie_extra_max(k)
    = 16 k`` candidates, and the same rule applies to those: **at most 16 k
    out-edges per point** before the symmetrisation of eq. (2).  The shares of
    points queried twice and of those still at the cap are
    ``knn_info["rows_second_round"]`` and ``knn_info["rows_at_cap"]``.
    Sparse input is given to the index in dense float32 blocks of 4096 rows
    (the index keeps an n x d float32 copy) and the exact candidate distances
    come from sparse row differences in blocks; nothing n x n is formed.

    Recall is measured on ``recall_sample = 1000`` seeded random rows against
    brute force (blocks of 64 rows x n): ``recall`` is the share of the index's
    k nearest that are within the exact k-th distance (ties count as hits),
    ``edge_recall`` the share of the exact out-edges ``{j: d_ij <= h_i}`` that
    the rule keeps, ``h_exact`` the share of sampled points whose h_i is the
    exact one.

Choice of the index: hnswlib and pynndescent were compared on SecStr and on dense
blobs (k = 10, one thread, recall of the raw index against brute force).  hnswlib is used:
it has the higher recall on SecStr, and pynndescent compiles with numba in every new
process.

On sparse one-hot data such as SecStr the exact search is cheap (scikit-learn's sparse
brute force) and finds every tied edge, where the approximate one misses part of them, so
``"auto"`` searches sparse input exactly up to ``EXACT_MAX_N_SPARSE`` = 100,000 points;
``EXACT_MAX_N`` guards against the quadratic cost of the exact search on dense data.

Every choice and measurement of a build is returned in ``knn_info``
(``knn_graph(..., return_info=True)``, ``Graph.knn_info``).

Threads of the exact search
---------------------------------------

The exact search queries its rows in fixed blocks (:func:`_query_blocks`: 16
``pairwise_dist_chunk_size`` = 4,096 rows each, the last one taking the
remainder), each block one scikit-learn ``kneighbors`` call with one OpenMP and
one BLAS thread, and the crowded pass in its blocks of 256 rows.
:func:`search_threads` (the runner enters it with ``--jobs``) runs those blocks
on a pool of threads; the partition does not depend on the thread count, so
**the thread count does not change any result** (W, h and sigma are
bit-identical; tests/test_knn_parallel.py).  A block's rows get the distances
and neighbours they get in one whole query: sparse rows and tree indexes are
searched row by row, and dense brute force (scikit-learn's ``ArgKmin``) in
256-row chunks that the block boundaries do not cut.  Where neither holds (a
dense query ``ArgKmin`` cannot take), the rows are one block.  The approximate
path stays single-threaded (a multithreaded HNSW build is not deterministic).

One query of the k + 11 nearest gives both h and the edges, and the row-by-row block
queries compute their distances in chunks of at most 32 MB (:func:`_map_blocks`).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
import scipy.sparse as sp
from sklearn import config_context, get_config
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

from sskernels.errors import ParameterError

WEIGHTS = ("hein-maier", "heat", "binary")
METRICS = ("euclidean", "cosine")
METHODS = ("auto", "exact", "approximate")
#: ``method="auto"`` searches exactly up to this many points, approximately above
EXACT_MAX_N = 20000
#: ... and up to this many for sparse input (:func:`auto_method`)
EXACT_MAX_N_SPARSE = 100000
#: seed of the approximate index and of the recall sample
SEED = 0
#: rows of the brute-force recall sample of the approximate path
RECALL_SAMPLE = 1000
#: HNSW parameters of the approximate path
HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_MIN = 16, 200, 64
_TINY = 1e-12
_BLOCK = 256
#: query rows per block of the exact search, in scikit-learn's ``pairwise_dist_chunk_size``
_QUERY_CHUNKS = 16
#: threads of the exact search (:func:`search_threads`): a context variable, so that the
#: setting of one thread (or asyncio task) never reaches another's search
_SEARCH_THREADS = ContextVar("sskernels_search_threads", default=1)
#: scikit-learn ``working_memory`` (MB) of a row-by-row block query, per thread
_ROW_WORKING_MEMORY = 32


#: where the exact search's row blocks run when set (:func:`search_mapper`): a callable
#: ``(fn, shared, items, cfg) -> [fn(shared, item) for item in items]`` (a context variable)
_SEARCH_MAP = ContextVar("sskernels_search_map", default=None)


@contextmanager
def search_mapper(mapper):
    """Send the exact search's row blocks to ``mapper`` inside the ``with`` block.

    ``mapper(fn, shared, items, cfg)`` must return ``[fn(shared, x) for x in items]`` in
    order, each call under scikit-learn's configuration ``cfg`` with one BLAS and one
    OpenMP thread: ``fn`` is a module-level function of this module and ``shared`` the
    fitted index with the query rows (sent once, e.g. broadcast to a cluster's workers).
    The Dask back end's :meth:`~sskernels.experiment.dask_backend.DaskPool.block_map` runs
    them as tasks on its workers; the blocks and each block's query are
    those of the local threads, so the graph is bit-identical.  The edges are assembled
    and symmetrized here, in the caller's process.  A search of one block stays local.

    Parameters
    ----------
    mapper : callable
        ``mapper(fn, shared, items, cfg) -> list``, as above; the previous mapper (by
        default none: local threads) is restored when the block exits.

    Yields
    ------
    None
        The ``with`` block runs with ``mapper`` in force (in this context only).
    """
    token = _SEARCH_MAP.set(mapper)
    try:
        yield
    finally:
        _SEARCH_MAP.reset(token)


@contextmanager
def search_threads(n):
    """Run the exact search's query blocks on ``n`` threads inside the ``with`` block.

    The blocks and each block's query are the same for every ``n`` (one OpenMP
    and one BLAS thread per query), so the thread count does not change any
    result: the graphs are bit-identical to ``n = 1``.  The approximate
    (hnswlib) path is not affected; it always uses one thread.

    Parameters
    ----------
    n : int
        The number of threads, at least 1; the previous count (by default 1) is restored
        when the block exits.

    Yields
    ------
    None
        The ``with`` block runs with ``n`` threads in force (in this context only).

    Raises
    ------
    ValueError
        When ``n < 1``.
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"search threads must be >= 1, got {n}")
    token = _SEARCH_THREADS.set(n)
    try:
        yield
    finally:
        _SEARCH_THREADS.reset(token)


def _map_blocks(fn, shared, items, by_rows):
    """``[fn(shared, x) for x in items]``, on up to :data:`_SEARCH_THREADS` threads (or by
    the :func:`search_mapper` in force, for more than one item).

    Every call gets the caller's scikit-learn configuration (it is per thread),
    one OpenMP thread (a per-thread setting) and one BLAS thread (a global one,
    set here once so that the calls' own ``threadpool_limits`` restore 1).
    ``by_rows``: the rows' results do not depend on the rows queried with them
    (:func:`_rows_independent`); ``working_memory``, which then only sets how many
    rows scikit-learn computes at once, is at most 32 MB: its default 1 GB
    chunks of distances cost more in page faults than in arithmetic (the neighbours
    are the same).
    """
    cfg = get_config()
    threads = min(_SEARCH_THREADS.get(), len(items))
    if by_rows:
        cfg["working_memory"] = min(cfg["working_memory"], _ROW_WORKING_MEMORY)
    mapper = _SEARCH_MAP.get()
    if mapper is not None and len(items) > 1:
        return list(mapper(fn, shared, items, cfg))

    def call(x):
        with config_context(**cfg), threadpool_limits(1, user_api="openmp"):
            return fn(shared, x)

    with threadpool_limits(1, user_api="blas"):
        if threads <= 1:
            return [call(x) for x in items]
        with ThreadPoolExecutor(threads) as pool:
            return list(pool.map(call, items))


def _query_blocks(nn, Z):
    """``[(start, stop)]`` row blocks of the exact search, independent of the thread count.

    Blocks of 16 scikit-learn ``pairwise_dist_chunk_size`` rows (the last one
    takes the remainder, so every block has more than the 4 chunks under which
    ``ArgKmin`` would change its parallel strategy); one block when the rows'
    results could depend on the block (a dense brute-force query ``ArgKmin``
    cannot take) or when there are fewer than two blocks' rows.
    """
    n = Z.shape[0]
    size = _QUERY_CHUNKS * int(get_config().get("pairwise_dist_chunk_size", 256))
    if n < 2 * size or not _rows_independent(nn, Z):
        return [(0, n)]
    bounds = list(range(0, n - size + 1, size))
    return list(zip(bounds, bounds[1:] + [n]))


def _rows_independent(nn, Z):
    """Whether a row's neighbours do not depend on the other rows of its query block.

    True for tree indexes (one query per row) and sparse input (scikit-learn
    computes its distances entry by entry and reduces them row by row); for
    dense brute force, when ``ArgKmin`` takes the query (its 256-row chunks are
    then the same in a block that starts on a chunk boundary).
    """
    if nn._fit_method != "brute" or sp.issparse(Z):
        return True
    from sklearn.metrics._pairwise_distances_reduction import ArgKmin

    return bool(ArgKmin.is_usable_for(Z, nn._fit_X, nn.effective_metric_))


def _kneighbors(nn, Z, n_neighbors):
    """``nn.kneighbors(Z, n_neighbors)`` by blocks of rows (:func:`_query_blocks`)."""
    blocks = _query_blocks(nn, Z)
    by_rows = _rows_independent(nn, Z)
    if len(blocks) == 1:
        return _map_blocks(_kneighbors_block, (nn, Z, n_neighbors), [None], by_rows)[0]
    Q = Z.tocsr() if sp.issparse(Z) else Z  # what scikit-learn queries (COO cannot slice)
    out = _map_blocks(_kneighbors_block, (nn, Q, n_neighbors), blocks, by_rows)
    return np.vstack([d for d, _ in out]), np.vstack([i for _, i in out])


def _kneighbors_block(shared, block):
    """One row block's query (``block=None``: every row, unsliced)."""
    nn, Q, n_neighbors = shared
    return nn.kneighbors(Q if block is None else Q[block[0] : block[1]], n_neighbors=n_neighbors)


def tie_extra(k):
    """Candidates beyond the k nearest that the approximate path examines for ties (3 k).

    Parameters
    ----------
    k : int
        The number of neighbours.

    Returns
    -------
    int
        ``3 * k``.
    """
    return 3 * k


def tie_extra_max(k):
    """Candidates beyond the k nearest of a point whose first 4 k are all tied (15 k).

    Parameters
    ----------
    k : int
        The number of neighbours.

    Returns
    -------
    int
        ``15 * k``.
    """
    return 15 * k


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
    ``seconds`` and the details of the search (see the module docstring).

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


# ---------------------------------------------------------------------------- exact search


def _exact_edges(Z, k, extra=10):
    nn = NearestNeighbors().fit(Z)
    n = Z.shape[0]
    # one query of the k + 1 + extra nearest serves h and the edges
    dist, ind = _kneighbors(nn, Z, min(n, k + 1 + extra))
    # h: distance to the k-th neighbour other than the point itself.  The first k + 1
    # columns hold the k + 1 smallest distances, the values a (k + 1)-query returns (a tie
    # may swap an index, never a value); dropping the point itself, or the last column
    # where a tie at its distance pushed it out, leaves the same values (so the graphs
    # equal those of a separate (k + 1)-query, bit for bit)
    h = _drop_self(dist[:, : k + 1], ind[:, : k + 1])[0][:, k - 1]
    # directed edges i -> j with d_ij <= h_i, ties at the k-th distance included
    # (eq. (2) is a distance rule, so every tied neighbour is an edge)
    rows, cols, d, crowded = _within_radius(nn, Z, h, dist, ind)
    info = {
        "method": "exact",
        "recall": 1.0,
        "edge_recall": 1.0,
        "ties": "every point at the k-th distance is an edge (eq. (2) exactly)",
        "index": f"sklearn NearestNeighbors ({nn._fit_method})",
        "crowded": crowded,
    }
    return h, rows, cols, d, info


def _within_radius(nn, Z, h, dist, ind):
    """All pairs ``(i, j != i)`` with ``d_ij <= h_i``, as ``(rows, cols, distances, how)``.

    ``dist, ind``: the ``kk = k + 1 + extra`` nearest of every point (sorted).
    They cover every point except those with more than ``extra`` ties at their
    k-th distance ("crowded"), which are searched again to their radius in one
    batched pass (:func:`_crowded_pass`).
    """
    n, kk = ind.shape
    tol = h * (1 + 1e-12) + 1e-300
    inside = (dist <= tol[:, None]) & (ind != np.arange(n)[:, None])
    r, c = np.nonzero(inside)
    rows, cols, ds = [r], [ind[r, c]], [dist[r, c]]
    crowded = np.flatnonzero(dist[:, -1] <= tol) if kk < n else np.array([], dtype=int)
    how = {"rows": int(crowded.size), "pass": None}
    if crowded.size:
        # redo these rows exactly: drop what was found above, search to the radius
        drop = np.isin(rows[0], crowded)
        rows[0], cols[0], ds[0] = rows[0][~drop], cols[0][~drop], ds[0][~drop]
        r2, c2, d2, how["pass"] = _crowded_pass(nn, Z, crowded, tol[crowded])
        keep = c2 != r2
        rows.append(r2[keep]), cols.append(c2[keep]), ds.append(d2[keep])
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(ds), how


def _crowded_pass(nn, Z, rows, radii):
    """``(i, j, d_ij)`` for every ``i`` in ``rows`` and ``d_ij <= radii``, in one pass."""
    if nn._fit_method == "brute" and not sp.issparse(Z):
        Y = nn._fit_X
        if _dense_replica_applies(nn, Y) and _dense_replica_checks(nn, Y, rows, radii):
            return (*_dense_replica(Y, rows, radii), "dense brute force: one-row BLAS replica")
        # scikit-learn computes these distances some other way: its own query, row by row
        return (
            *_per_row(nn, Z, rows, radii),
            "per-row radius_neighbors (the one-row replica did not apply)",
        )
    return (*_batched_radius(nn, Z, rows, radii), "batched radius_neighbors")


def _batched_radius(nn, Z, rows, radii):
    """Blocks of crowded rows (sorted by radius) queried at the block's largest radius."""
    order = np.argsort(radii, kind="stable")
    # sparse input or a tree index (_crowded_pass): row by row
    found = _map_blocks(
        _radius_block,
        (nn, Z, rows, radii),
        [order[s : s + _BLOCK] for s in range(0, order.size, _BLOCK)],
        by_rows=True,
    )
    return tuple(np.concatenate([a for f in found for a in f[i]]) for i in range(3))


def _radius_block(shared, blk):
    """One block of crowded rows, queried at its largest radius and filtered per row."""
    nn, Z, rows, radii = shared
    dd, jj = nn.radius_neighbors(Z[rows[blk]], radius=float(radii[blk].max()))
    out_r, out_c, out_d = [], [], []
    for a, b in enumerate(blk):
        m = dd[a] <= radii[b]
        out_r.append(np.full(int(m.sum()), rows[b]))
        out_c.append(jj[a][m]), out_d.append(dd[a][m])
    return out_r, out_c, out_d


def _per_row(nn, Z, rows, radii):
    out_r, out_c, out_d = [], [], []
    for i, t in zip(rows, radii):
        dd, jj = nn.radius_neighbors(Z[i : i + 1], radius=t)
        out_r.append(np.full(jj[0].size, i)), out_c.append(jj[0]), out_d.append(dd[0])
    return np.concatenate(out_r), np.concatenate(out_c), np.concatenate(out_d)


def _dense_replica_applies(nn, Y):
    return (
        Y.dtype == np.float64
        and Y.flags.c_contiguous
        and Y.shape[0] > 0
        and nn.effective_metric_ == "euclidean"
        and not nn.effective_metric_params_
    )


def _dense_replica(Y, rows, radii):
    """Scikit-learn's one-row Euclidean radius query, repeated without its per-call cost.

    ``sqrt(max(0, (|x|^2 + (-2 x.Y_c^T)) + |y|^2))`` with ``x.Y_c^T`` one BLAS
    ``dgemm`` per 256-row data chunk ``Y_c`` (``pairwise_dist_chunk_size``) in
    the operand layout scikit-learn passes, so every bit agrees with its query.
    """
    from scipy.linalg.blas import dgemm

    n = Y.shape[0]
    chunk = int(get_config().get("pairwise_dist_chunk_size", 256))
    norms = np.array([np.dot(y, y) for y in Y])
    chunks = [(s, Y[s : s + chunk].T) for s in range(0, n, chunk)]
    mid = np.empty(n)
    out_r, out_c, out_d = [], [], []
    for i, t in zip(rows, radii):
        x = np.asfortranarray(Y[i][:, None])
        for s, Yt in chunks:
            mid[s : s + Yt.shape[1]] = dgemm(-2.0, Yt, x, trans_a=1)[:, 0]
        sq = np.maximum((norms[i] + mid) + norms, 0.0)
        j = np.flatnonzero(sq <= t * t)
        out_r.append(np.full(j.size, i)), out_c.append(j), out_d.append(np.sqrt(sq[j]))
    return np.concatenate(out_r), np.concatenate(out_c), np.concatenate(out_d)


def _dense_replica_checks(nn, Y, rows, radii):
    """The replica against scikit-learn's own one-row query on the first and last crowded rows."""
    for a in sorted({0, len(rows) - 1}):
        r1, c1, d1 = _dense_replica(Y, rows[a : a + 1], radii[a : a + 1])
        dd, jj = nn.radius_neighbors(Y[rows[a] : rows[a] + 1], radius=radii[a])
        o = np.argsort(jj[0], kind="stable")
        if not (np.array_equal(c1, jj[0][o]) and np.array_equal(d1, dd[0][o])):
            return False
    return True


# ---------------------------------------------------------------------------- approximate search


def _approximate_edges(Z, k, recall_sample):
    try:
        import hnswlib
    except ImportError as exc:  # pragma: no cover - the dependency is declared
        raise ImportError(
            "method='approximate' needs the hnswlib package (pip install hnswlib)"
        ) from exc
    n, dim = Z.shape
    q = min(n, k + 1 + tie_extra(k))
    q2 = min(n, k + 1 + tie_extra_max(k))
    index = hnswlib.Index(space="l2", dim=dim)
    index.init_index(
        max_elements=n, ef_construction=HNSW_EF_CONSTRUCTION, M=HNSW_M, random_seed=SEED
    )
    index.set_num_threads(1)  # a one-thread build is deterministic
    for s in range(0, n, 4096):
        rows = np.arange(s, min(n, s + 4096))
        index.add_items(_dense_rows(Z, rows), rows)
    # round 1: q candidates of every point, re-ranked by exact distance
    dist, cand = _candidates(index, Z, np.arange(n), q)
    h = dist[:, k - 1].copy()
    tol = h * (1 + 1e-12) + 1e-300
    inside = dist <= tol[:, None]
    crowded = np.flatnonzero(inside[:, -1]) if q < n else np.array([], dtype=int)
    knn = cand[:, :k].copy()
    rows, cols, d = [], [], []
    keep = np.ones(n, dtype=bool)
    keep[crowded] = False
    r, c = np.nonzero(inside & keep[:, None])
    rows.append(r), cols.append(cand[r, c]), d.append(dist[r, c])
    del dist, cand, inside
    # round 2: points whose q candidates are all tied get q2 candidates
    still = 0
    if crowded.size and q2 > q:
        d2, c2 = _candidates(index, Z, crowded, q2)
        h[crowded] = d2[:, k - 1]
        knn[crowded] = c2[:, :k]
        tol2 = h[crowded] * (1 + 1e-12) + 1e-300
        in2 = d2 <= tol2[:, None]
        still = int(np.sum(in2[:, -1])) if q2 < n else 0
        r, c = np.nonzero(in2)
        rows.append(crowded[r]), cols.append(c2[r, c]), d.append(d2[r, c])
    del index
    rows, cols, d = np.concatenate(rows), np.concatenate(cols), np.concatenate(d)
    info = {
        "method": "hnswlib",
        "ties": (
            f"the index's k nearest plus every tie at the k-th distance among its "
            f"{q - 1} candidates (k + {tie_extra(k)}); points whose {q - 1} candidates "
            f"are all tied get {q2 - 1} (k + {tie_extra_max(k)}); exact float64 "
            f"distances; at most {q2 - 1} out-edges per point before symmetrisation"
        ),
        "index": (
            f"hnswlib {getattr(hnswlib, '__version__', '')} HNSW M={HNSW_M} "
            f"ef_construction={HNSW_EF_CONSTRUCTION} ef=max({HNSW_EF_MIN}, 2 q) "
            f"seed={SEED}, one thread"
        ).replace("  ", " "),
        "candidates": int(q - 1),
        "candidates_max": int(q2 - 1),
        "rows_second_round": crowded.size / n,
        "rows_at_cap": still / n,
    }
    E = sp.csr_matrix((np.ones(rows.size, dtype=bool), (rows, cols)), shape=(n, n))
    info.update(_recall(Z, k, knn, E, h, recall_sample))
    return h, rows, cols, d, info


def _candidates(index, Z, rows, q):
    """The index's q candidates of ``rows``, re-ranked by exact distance, self dropped."""
    index.set_ef(max(HNSW_EF_MIN, 2 * q))
    cand = np.empty((rows.size, q), dtype=np.int64)
    for s in range(0, rows.size, 4096):
        cand[s : s + 4096] = index.knn_query(_dense_rows(Z, rows[s : s + 4096]), k=q)[0]
    dist = _pair_distances(Z, rows, cand)
    order = _row_order(dist, cand)
    dist = np.take_along_axis(dist, order, axis=1)
    cand = np.take_along_axis(cand, order, axis=1)
    self_mask = cand == rows[:, None]
    self_mask[~self_mask.any(axis=1), -1] = True  # self not returned (duplicates): drop the last
    keep = ~self_mask
    return dist[keep].reshape(rows.size, q - 1), cand[keep].reshape(rows.size, q - 1)


def _row_order(dist, cand):
    """Per-row order by distance, then index (deterministic among ties)."""
    order = np.empty_like(cand)
    for s in range(0, dist.shape[0], 65536):
        d, c = dist[s : s + 65536], cand[s : s + 65536]
        o = np.argsort(c, axis=1, kind="stable")
        o2 = np.argsort(np.take_along_axis(d, o, axis=1), axis=1, kind="stable")
        order[s : s + 65536] = np.take_along_axis(o, o2, axis=1)
    return order


def _dense_rows(Z, rows, dtype=np.float32):
    B = Z[rows]
    B = B.toarray() if sp.issparse(B) else np.asarray(B)
    return np.ascontiguousarray(B, dtype=dtype)


def _pair_distances(Z, rows, cand):
    """Exact float64 ``||z_i - z_cand[a]||`` for ``i = rows[a]``, in blocks (never n x n)."""
    m, q = cand.shape
    dim = Z.shape[1]
    out = np.empty((m, q))
    if sp.issparse(Z):
        Z = sp.csr_matrix(Z, dtype=np.float64)
        bs = max(1, 250_000 // q)  # 250k pairs: about 100 MB of sparse blocks
        for s in range(0, m, bs):
            e = min(m, s + bs)
            diff = Z[np.repeat(rows[s:e], q)] - Z[cand[s:e].ravel()]
            sq = np.asarray(diff.multiply(diff).sum(axis=1)).ravel()
            out[s:e] = np.sqrt(sq).reshape(e - s, q)
        return out
    Z = np.asarray(Z, dtype=np.float64)
    bs = max(1, 4_000_000 // (q * dim))
    for s in range(0, m, bs):
        e = min(m, s + bs)
        diff = Z[rows[s:e], None, :] - Z[cand[s:e]]
        out[s:e] = np.sqrt(np.einsum("bqd,bqd->bq", diff, diff))
    return out


def _recall(Z, k, knn, E, h, m):
    """Recall of the approximate neighbours on ``m`` seeded random rows, by brute force.

    ``knn``: the k nearest found per point; ``E``: the out-edges kept (CSR, boolean).
    """
    n = Z.shape[0]
    m = min(int(m), n)
    if m == 0:
        return {"recall": None, "edge_recall": None, "h_exact": None, "recall_rows": 0}
    from sklearn.metrics import pairwise_distances

    S = np.sort(np.random.default_rng(SEED).choice(n, size=m, replace=False))
    hits, edges_found, edges_exact, h_ok = 0, 0, 0, 0
    for s in range(0, m, 64):
        blk = S[s : s + 64]
        D = pairwise_distances(Z[blk], Z)
        D[np.arange(blk.size), blk] = np.inf
        hx = np.partition(D, k - 1, axis=1)[:, k - 1]
        slack = hx * (1 + 1e-9) + 1e-12
        for a, i in enumerate(blk):
            exact = D[a] <= slack[a]
            hits += int(np.sum(exact[knn[i]]))
            edges_found += int(np.sum(exact[E.indices[E.indptr[i] : E.indptr[i + 1]]]))
            edges_exact += int(exact.sum())
            h_ok += bool(abs(h[i] - hx[a]) <= 1e-9 * max(hx[a], 1e-300) + 1e-12)
    return {
        "recall": hits / (m * k),
        "edge_recall": edges_found / max(edges_exact, 1),
        "h_exact": h_ok / m,
        "recall_rows": m,
    }


def _drop_self(dist, ind):
    n = ind.shape[0]
    self_mask = ind == np.arange(n)[:, None]
    # rows where self is absent (k+1 exact duplicates): drop the last column
    missing = ~self_mask.any(axis=1)
    self_mask[missing, -1] = True
    keep = ~self_mask
    k = ind.shape[1] - 1
    return dist[keep].reshape(n, k), ind[keep].reshape(n, k)


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
