"""The exact k-NN search on several threads: the thread count changes no result.

``search_threads(n)`` runs the exact search's fixed row blocks on ``n`` threads.
The graphs (``W.data``, ``W.indices``, ``W.indptr``, ``h``, ``sigma``) must be
bit-identical to the whole-query, one-thread search for every thread count,
and that to the code before the batched search (``_old_knn_graph`` of test_knn_scale.py:
a (k + 1)-query for h, a (k + 11)-query for the edges; the committed paper
tables depend on it), on dense and sparse data with many ties.  ``pairwise_dist_chunk_size = 20`` (the
least scikit-learn allows) gives blocks of 320 rows, so small sets have several.
"""

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import config_context
from sklearn.neighbors import NearestNeighbors
from threadpoolctl import threadpool_limits

import sskernels.graph.search as search_mod
from sskernels.graph import knn_graph
from sskernels.graph.search import search_threads
from test_knn_scale import _old_knn_graph


@pytest.fixture(autouse=True)
def one_thread():
    # as the runner builds graphs: one BLAS/OpenMP thread
    with threadpool_limits(limits=1):
        yield


def _one_hot(n, positions, symbols, seed):
    """SecStr-like rows: ``positions`` one-hot blocks of ``symbols`` columns (sparse binary)."""
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, symbols, size=(n, positions)) + symbols * np.arange(positions)
    return sp.csr_matrix(
        (np.ones(n * positions), cols.ravel(), np.arange(0, n * positions + 1, positions)),
        shape=(n, positions * symbols),
    )


def _data(kind, n, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "sparse-onehot":
        return _one_hot(n, 6, 4, seed)
    if kind == "sparse-real":
        X = sp.random(n, 30, density=0.1, random_state=seed, format="csr")
        X.data = np.ceil(X.data * 2) / 2  # values 0.5 and 1: ties
        return X
    if kind == "dense-binary-brute":  # d > 15: brute force (ArgKmin)
        return rng.integers(0, 2, size=(n, 20)).astype(float)
    if kind == "dense-gauss-brute":  # distances rounded differently per chunk shape
        return rng.normal(size=(n, 24))
    if kind == "dense-int-tree":  # d <= 15: kd-tree
        return rng.integers(0, 3, size=(n, 4)).astype(float)
    raise ValueError(kind)


def _reference(X, k, weights, monkeypatch):
    """The whole rows as one query on one thread (scikit-learn's ``kneighbors`` as before,
    with its default 1 GB ``working_memory``)."""
    with monkeypatch.context() as m:
        m.setattr(search_mod, "_query_blocks", lambda nn, Z: [(0, Z.shape[0])])
        m.setattr(search_mod, "_ROW_WORKING_MEMORY", 1e9)
        return knn_graph(X, k=k, weights=weights, method="exact", return_info=True)


def _assert_identical(a, b):
    (Wa, ha, sa, ia), (Wb, hb, sb, ib) = a, b
    assert Wa.shape == Wb.shape and Wa.dtype == Wb.dtype
    for x, y in ((Wa.indptr, Wb.indptr), (Wa.indices, Wb.indices), (Wa.data, Wb.data), (ha, hb)):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    assert sa == sb
    assert ia["crowded"] == ib["crowded"]


@pytest.mark.parametrize(
    "kind",
    ["sparse-onehot", "sparse-real", "dense-binary-brute", "dense-gauss-brute", "dense-int-tree"],
)
@pytest.mark.parametrize("n", [650, 1337])
def test_threads_change_no_bit(kind, n, monkeypatch):
    X = _data(kind, n, seed=n)
    with config_context(pairwise_dist_chunk_size=20):
        nn = NearestNeighbors().fit(X)
        blocks = search_mod._query_blocks(nn, X)
        assert len(blocks) == n // 320 and blocks[0] == (0, 320) and blocks[-1][1] == n
        ref = _reference(X, 5, "heat", monkeypatch)
        assert ref[3]["crowded"]["rows"] > 0 or kind == "dense-gauss-brute"
        W0, h0, s0, crowded = _old_knn_graph(X, 5, weights="heat")
        _assert_identical(ref, (W0, h0, s0, {"crowded": ref[3]["crowded"]}))
        assert crowded == ref[3]["crowded"]["rows"]
        # a few rows per chunk of distances (row-by-row searches), as on 83,679 points
        monkeypatch.setattr(search_mod, "_ROW_WORKING_MEMORY", 0.05)
        for threads in (1, 2, 3):
            with search_threads(threads):
                _assert_identical(
                    knn_graph(X, k=5, weights="heat", method="exact", return_info=True), ref
                )


def test_default_blocks_on_two_threads(monkeypatch):
    """Default configuration: 4,096-row blocks (the last takes the remainder), really on 2 threads."""
    X = _one_hot(9000, 15, 21, 1)
    ref = _reference(X, 10, "heat", monkeypatch)
    assert search_mod._query_blocks(NearestNeighbors().fit(X), X) == [(0, 4096), (4096, 9000)]
    seen = set()
    query = NearestNeighbors.kneighbors

    def spy(self, *a, **kw):
        seen.add(threading.get_ident())
        return query(self, *a, **kw)

    monkeypatch.setattr(NearestNeighbors, "kneighbors", spy)
    with search_threads(2):
        out = knn_graph(X, k=10, weights="heat", method="exact", return_info=True)
    assert len(seen) >= 2 and threading.get_ident() not in seen
    assert out[3]["crowded"]["rows"] > 0
    _assert_identical(out, ref)


def test_one_block_where_rows_depend_on_the_block():
    """A dense query ArgKmin cannot take (Fortran order) is one block: its chunks would move."""
    X = np.random.default_rng(0).normal(size=(700, 20))
    with config_context(pairwise_dist_chunk_size=20):
        nn = NearestNeighbors().fit(X)
        assert search_mod._query_blocks(nn, np.asfortranarray(X)) == [(0, 700)]
        assert search_mod._query_blocks(nn, X) == [(0, 320), (320, 700)]


def test_search_threads_restores_and_checks():
    assert search_mod._SEARCH_THREADS.get() == 1
    with search_threads(2):
        assert search_mod._SEARCH_THREADS.get() == 2
        with search_threads(3):
            assert search_mod._SEARCH_THREADS.get() == 3
        assert search_mod._SEARCH_THREADS.get() == 2
    assert search_mod._SEARCH_THREADS.get() == 1
    with pytest.raises(ValueError, match="threads"):
        with search_threads(0):
            pass


def test_run_spec_searches_on_its_jobs(tmp_path, monkeypatch):
    """``run_spec(jobs=2)`` builds its graphs inside ``search_threads(2)``, one BLAS thread."""
    from threadpoolctl import threadpool_info

    import sskernels.experiment.runner as runner
    from sskernels.spec import parse_spec

    seen = []
    warm = runner.warm_graphs

    def spy(prep):
        blas = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
        seen.append((search_mod._SEARCH_THREADS.get(), blas))
        return warm(prep)

    monkeypatch.setattr(runner, "warm_graphs", spy)
    spec = parse_spec(
        {
            "dataset": "sklearn-iris",
            "preprocess": "minmax",
            "graph": {"k": 6},
            "splits": {"n_splits": 1, "n_labeled": 15, "seed": 0},
            "methods": [{"name": "harmonic"}],
            "output": str(tmp_path / "out"),
        },
        tmp_path / "spec.yaml",
    )
    runner.run_spec(spec, jobs=2, progress=False)
    assert seen == [(2, {1})] and search_mod._SEARCH_THREADS.get() == 1
