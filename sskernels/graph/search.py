"""The exact neighbour search's row blocks, on threads or on a cluster.

The exact search (:mod:`sskernels.graph.exact`) queries its rows in fixed blocks
(:func:`_query_blocks`: 16 ``pairwise_dist_chunk_size`` = 4,096 rows each, the last one
taking the remainder), each block one scikit-learn ``kneighbors`` call with one OpenMP and
one BLAS thread, and its pass over the crowded rows in blocks of 256 rows.

:func:`search_threads` (the runner enters it with ``--jobs``) runs those blocks on a pool of
threads, and :func:`search_mapper` sends them elsewhere (the Dask back end's workers).  The
partition does not depend on the thread count, so **the thread count does not change any
result** (W, h and sigma are bit-identical; tests/test_knn_parallel.py).  A block's rows get
the distances and neighbours they get in one whole query: sparse rows and tree indexes are
searched row by row, and dense brute force (scikit-learn's ``ArgKmin``) in 256-row chunks
that the block boundaries do not cut.  Where neither holds (a dense query ``ArgKmin``
cannot take), the rows are one block.  The approximate search
(:mod:`sskernels.graph.approximate`) stays single-threaded (a multithreaded HNSW build is
not deterministic).

The row-by-row block queries compute their distances in chunks of at most 32 MB
(:func:`_map_blocks`).

Both context managers are importable from :mod:`sskernels.graph.knn` too.

Examples
--------
>>> import numpy as np
>>> from sskernels.graph import knn_graph
>>> from sskernels.graph.search import search_threads
>>> X = np.random.default_rng(0).normal(size=(200, 3))
>>> W1, h1, _ = knn_graph(X, k=5, method="exact")
>>> with search_threads(2):
...     W2, h2, _ = knn_graph(X, k=5, method="exact")
>>> bool((W1 != W2).nnz == 0 and np.array_equal(h1, h2))
True
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
import scipy.sparse as sp
from sklearn import config_context, get_config
from threadpoolctl import threadpool_limits

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
    OpenMP thread: ``fn`` is a module-level function of this module or of
    :mod:`sskernels.graph.exact` and ``shared`` the fitted index with the query rows (sent
    once, e.g. broadcast to a cluster's workers).
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
