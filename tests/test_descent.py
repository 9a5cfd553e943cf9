"""The NN-descent graph (graph/descent.py): symbol codes, exactness when every point is a
candidate, the tie rule, the recall against an independent brute force, determinism, and the
spec and registry plumbing of ``graph: {method: nndescent}``."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances

from sskernels.data.parsers import one_hot_symbols
from sskernels.errors import ParameterError
from sskernels.graph import cache as graph_cache
from sskernels.graph import graph_searches, graphs_used, knn_graph
from sskernels.graph.descent import DescentGraph, descent_knn_graph, symbol_codes

pytest.importorskip("pynndescent")

#: numba compiles pynndescent's search once per process and input kind (30-40 s of CPU each
#: on the 2-core machine): every in-process NN-descent test runs on one pytest-xdist worker
#: (``--dist loadgroup``, pyproject.toml), which pays it once
pytestmark = pytest.mark.xdist_group("numba-pynndescent")


def _codes(n, p=6, s=5, seed=0):
    """Codes with structure: two prototypes, each position mutated with probability 0.3."""
    rng = np.random.default_rng(seed)
    proto = rng.integers(0, s, size=(2, p))
    T = proto[rng.integers(0, 2, size=n)]
    flip = rng.random((n, p)) < 0.3
    return np.where(flip, rng.integers(0, s, size=(n, p)), T), s


def test_symbol_codes_are_the_one_hot_rows_codes_and_give_their_distances():
    T, s = _codes(300)
    X = one_hot_symbols(T, s)
    np.testing.assert_array_equal(symbol_codes(X), T)
    D = pairwise_distances(X)
    ham = (T[:, None, :] != T[None, :, :]).sum(axis=2)
    np.testing.assert_allclose(D**2, 2.0 * ham, atol=1e-9)
    assert symbol_codes(X.toarray()) is None  # dense: searched as it is
    assert symbol_codes(X * 2.0) is None  # not binary
    bad = X.tolil()
    bad[0, 0], bad[0, 1] = 1.0, 1.0  # two ones in row 0
    assert symbol_codes(bad.tocsr()) is None


@pytest.mark.filterwarnings("ignore:Failed to correctly find n_neighbors")
def test_all_candidates_give_the_exact_k_nearest():
    """With every point a candidate, h is the exact k-th distance (sklearn's brute force)
    and every edge lies within it; the recall measured is 1."""
    T, s = _codes(400)
    X = one_hot_symbols(T, s)
    k = 5
    W, h, sigma, info = descent_knn_graph(X, k, n_candidates=400, recall_sample=100)
    D = pairwise_distances(X)
    np.fill_diagonal(D, np.inf)
    h_exact = np.sort(D, axis=1)[:, k - 1]
    np.testing.assert_allclose(h, h_exact, atol=1e-12)
    assert info["recall"] == 1.0 and info["h_exact"] == 1.0 and info["symbol_codes"]
    # out-edges: exactly k per point before symmetrisation, each within h
    Wc = W.tocoo()
    assert np.all(D[Wc.row, Wc.col] <= np.maximum(h[Wc.row], h[Wc.col]) + 1e-12)
    assert np.all(np.diff(W.indptr) >= k)
    # the tied points beyond k are counted, not kept: the share kept is k / (tied)
    tied = (D <= h_exact[:, None] + 1e-12).sum(axis=1)
    sample = np.sort(np.random.default_rng(0).choice(400, 100, replace=False))
    assert info["exact_edges_per_row"] == pytest.approx(tied[sample].mean())
    assert info["edge_recall"] == pytest.approx(k * 100 / tied[sample].sum())


def test_heat_weights_are_eq2_on_the_exact_distances():
    T, s = _codes(300, seed=3)
    X = one_hot_symbols(T, s)
    W, h, sigma, _ = descent_knn_graph(X, 4, weights="heat", recall_sample=0)
    Wc = W.tocoo()
    d = np.sqrt(((X[Wc.row] - X[Wc.col]).multiply(X[Wc.row] - X[Wc.col])).sum(axis=1)).A1
    assert sigma == pytest.approx(np.sqrt(np.mean(d**2)))
    np.testing.assert_allclose(Wc.data, np.exp(-(d**2) / (2 * sigma**2)), rtol=1e-12)
    assert (W != W.T).nnz == 0 and W.diagonal().sum() == 0


def test_recall_is_measured_against_an_independent_brute_force():
    """Few candidates: the recall is below 1 and equals a direct count on the same sample."""
    T, s = _codes(3000, p=8, s=6, seed=1)
    X = one_hot_symbols(T, s)
    k, m = 10, 300
    W, h, _, info = descent_knn_graph(X, k, n_candidates=12, recall_sample=m)
    graph_cache.clear_cache()
    # the k nearest kept per point: the k smallest-distance out-edges (rebuilt from h and W
    # is not possible, so recount from the raw candidates of the same seeded search)
    sample = np.sort(np.random.default_rng(0).choice(3000, m, replace=False))
    D = pairwise_distances(X[sample], X)
    D[np.arange(m), sample] = np.inf
    hk = np.sort(D, axis=1)[:, k - 1]
    # every sampled point's own out-edges: neighbours j with d_ij <= h_i among W's row
    hits = 0
    for a, i in enumerate(sample):
        row = W.indices[W.indptr[i] : W.indptr[i + 1]]
        mine = row[D[a, row] <= h[i] + 1e-12]
        assert mine.size >= k  # its k out-edges are in W's row
        hits += int(np.sum(np.sort(D[a, mine])[:k] <= hk[a] + 1e-12))
    assert info["recall"] == pytest.approx(hits / (m * k))
    assert info["recall_rows"] == m and 0 < info["recall"] <= 1


def test_dense_points_are_searched_in_euclidean_with_knn_recall():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (200, 3)), rng.normal(6, 1, (200, 3))])
    W, h, _, info = descent_knn_graph(X, 6, recall_sample=100)
    assert not info["symbol_codes"] and "euclidean" in info["index"]
    Wx, hx, _ = knn_graph(X, k=6, weights="heat", method="exact")
    assert info["recall"] >= 0.95
    np.testing.assert_allclose(h[h <= hx + 1e-12], hx[h <= hx + 1e-12])  # never closer than exact
    assert np.all(h >= hx - 1e-12)


def test_the_graph_is_the_same_on_every_build():
    T, s = _codes(2000, seed=2)
    X = one_hot_symbols(T, s)
    W1 = descent_knn_graph(X, 8, recall_sample=0)[0]
    W2 = descent_knn_graph(X.copy(), 8, recall_sample=0)[0]
    assert (W1 != W2).nnz == 0


def test_builder_memoizes_and_reports_the_search():
    T, s = _codes(500, seed=4)
    X = one_hot_symbols(T, s)
    graph_cache.clear_cache()
    with graphs_used() as keys:
        g = DescentGraph(n_neighbors=5, recall_sample=50).build(X)
    assert DescentGraph(n_neighbors=5, recall_sample=50).build(X.copy()) is g
    (search,) = graph_searches(X, keys)
    assert search["method"] == "nndescent" and search["recall"] == g.knn_info["recall"]
    assert g.spectrum(m=5).values.size >= 5 and g.n == 500


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_neighbors": 0}, "n_neighbors"),
        ({"metric": "cosine"}, "euclidean"),
        ({"n_candidates": 3, "n_neighbors": 5}, "n_candidates"),
        ({"recall_sample": -1}, "recall"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"weights": "gauss"}, "weights"),
    ],
)
def test_bad_parameters_are_named(params, match):
    with pytest.raises(ParameterError, match=match):
        DescentGraph(**params).build(np.zeros((20, 2)))


def test_spec_and_registry_map_method_nndescent_to_the_builder():
    from sskernels.learners.registry import make_method
    from sskernels.spec import parse_spec

    spec = parse_spec(
        {
            "name": "d",
            "dataset": "sklearn-wine",
            "methods": ["harmonic"],
            "graph": {"k": 7, "weights": "heat", "method": "nndescent"},
        }
    )
    assert spec.graph.method == "nndescent"
    est = make_method("harmonic", n_neighbors=7, weights="heat", method="nndescent")
    assert isinstance(est.graph, DescentGraph) and est.graph.n_neighbors == 7
    X = sp.random(60, 5, density=0.5, random_state=0, format="csr")
    y = np.full(60, -1)
    y[:4] = [0, 1, 0, 1]
    assert est.fit(X, y).transduction_.shape == (60,)
