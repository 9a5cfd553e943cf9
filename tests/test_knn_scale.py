"""k-NN graphs at scale: the batched tie pass and the approximate path.

* The exact path must give bit-for-bit the graphs of the per-row search it replaced
  (``_old_knn_graph`` below is that code, frozen: one ``radius_neighbors`` query
  per crowded row) and eq. (2) of Liu et al. as a brute-force reference, on
  data with heavy ties (binary and integer features).
* The approximate path (hnswlib) must report its recall, measured by brute force,
  and return a symmetric CSR matrix with zero diagonal, the same on every run.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.datasets import make_blobs
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

import sskernels.graph.approximate as approx_mod
import sskernels.graph.exact as exact_mod
import sskernels.graph.knn as knn_mod
from sskernels.graph import Graph, KNNGraph, clear_cache, get_graph, knn_graph


@pytest.fixture(autouse=True)
def one_thread():
    clear_cache()
    with threadpool_limits(limits=1):
        yield
    clear_cache()


# ---------------------------------------------------------------------------- references


def _old_knn_graph(X, k, weights="hein-maier", metric="euclidean"):
    """``knn_graph`` as it was before the batched tie pass (per-row radius queries), frozen here."""
    Z = normalize(X) if metric == "cosine" else X
    n = Z.shape[0]
    nn = NearestNeighbors().fit(Z)
    dist, ind = nn.kneighbors(Z, n_neighbors=k + 1)
    dist, ind = exact_mod._drop_self(dist, ind)
    h = dist[:, k - 1]
    kk = min(n, k + 1 + 10)
    dist, ind = nn.kneighbors(Z, n_neighbors=kk)
    tol = h * (1 + 1e-12) + 1e-300
    inside = (dist <= tol[:, None]) & (ind != np.arange(n)[:, None])
    r, c = np.nonzero(inside)
    rows, cols, ds = [r], [ind[r, c]], [dist[r, c]]
    crowded = np.flatnonzero(dist[:, -1] <= tol) if kk < n else np.array([], dtype=int)
    if crowded.size:
        drop = np.isin(rows[0], crowded)
        rows[0], cols[0], ds[0] = rows[0][~drop], cols[0][~drop], ds[0][~drop]
        for i in crowded:
            dd, jj = nn.radius_neighbors(Z[i : i + 1], radius=tol[i])
            keep = jj[0] != i
            rows.append(np.full(keep.sum(), i)), cols.append(jj[0][keep]), ds.append(dd[0][keep])
    W, sigma = knn_mod._assemble(
        np.concatenate(rows), np.concatenate(cols), np.concatenate(ds), h, n, weights, None
    )
    return W, h, sigma, crowded.size


def brute_eq2(X, k, metric="euclidean"):
    """Liu et al. eq. (2) from the dense distance matrix: W_ij = exp(-d^2 / max(h_i, h_j)^2)
    where d_ij <= max(h_i, h_j), h_i the k-th smallest d_ij over j != i."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    if metric == "cosine":
        X = X / np.linalg.norm(X, axis=1, keepdims=True)
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    h = np.sort(D, axis=1)[:, k - 1]
    H = np.maximum(h[:, None], h[None, :])
    # (duplicate points give h = 0: the package floors max(h_i, h_j)^2 at 1e-12)
    W = np.where(D <= H * (1 + 1e-9), np.exp(-(D**2) / np.maximum(H**2, 1e-12)), 0.0)
    return W, h


def _identical(A, B):
    A, B = A.tocsr(), B.tocsr()
    A.sort_indices(), B.sort_indices()
    return (
        A.shape == B.shape
        and np.array_equal(A.indptr, B.indptr)
        and np.array_equal(A.indices, B.indices)
        and np.array_equal(A.data, B.data)
    )


def _tied_sets():
    rng = np.random.default_rng(7)
    binary = (rng.random((300, 24)) < 0.3).astype(float)  # dense, d > 15: brute force
    return {
        "binary-dense": binary,
        "binary-dense-F": np.asfortranarray(binary),
        "binary-sparse": sp.csr_matrix((rng.random((300, 40)) < 0.2).astype(float)),
        "integer-lowdim": rng.integers(0, 4, (300, 3)).astype(float),  # kd tree
        "one-hot": sp.csr_matrix(np.eye(6)[rng.integers(0, 6, (250, 5))].reshape(250, 30)),
    }


# ---------------------------------------------------------------------------- exact path


@pytest.mark.parametrize("name", list(_tied_sets()))
@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
@pytest.mark.parametrize("k", [3, 10])
def test_exact_path_is_bit_identical_to_the_old_per_row_code(name, metric, k):
    X = _tied_sets()[name]
    W, h, sigma, info = knn_graph(X, k=k, metric=metric, method="exact", return_info=True)
    Wo, ho, so, crowded = _old_knn_graph(X, k, metric=metric)
    assert info["crowded"]["rows"] == crowded
    if crowded:
        assert "per-row" not in info["crowded"]["pass"]  # the batched pass was used
    assert _identical(W, Wo) and np.array_equal(h, ho) and sigma == so


def test_the_tied_sets_are_crowded():
    # the identity test above exercises the batched pass on every kind of index
    for name, X in _tied_sets().items():
        assert _old_knn_graph(X, 10)[3] > 20, name


@pytest.mark.parametrize("name", list(_tied_sets()))
@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_exact_path_with_heavy_ties_equals_brute_force_eq2(name, metric):
    X = _tied_sets()[name]
    if metric == "cosine":
        X = X[np.asarray(abs(X).sum(axis=1)).ravel() > 0]  # cosine needs non-zero rows
    W, h, _ = knn_graph(X, k=10, metric=metric, method="exact")
    Wb, hb = brute_eq2(X, 10, metric=metric)
    np.testing.assert_allclose(h, hb, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(W.toarray() > 0, Wb > 0)
    np.testing.assert_allclose(W.toarray(), Wb, atol=1e-12)
    # ties make many more than k neighbours
    assert (Wb > 0).sum(axis=1).mean() > 13


# ---------------------------------------------------------------------------- approximate path


def _check_graph(W, n):
    assert sp.isspmatrix_csr(W) and W.shape == (n, n)
    assert abs(W - W.T).max() == 0
    assert np.all(W.diagonal() == 0)


def test_approximate_path_reports_recall_and_is_symmetric():
    X, _ = make_blobs(6000, n_features=20, centers=15, random_state=0)
    W, h, _, info = knn_graph(X, k=10, method="approximate", return_info=True, recall_sample=500)
    _check_graph(W, X.shape[0])
    assert info["method"] == "hnswlib" and info["recall_rows"] == 500
    assert info["recall"] >= 0.9 and info["edge_recall"] >= 0.9
    assert info["seconds"] > 0 and "ties" in info
    # every point keeps at least its k (approximate) neighbours
    assert np.all(np.diff(W.indptr) >= 10)
    We, he, _ = knn_graph(X, k=10, method="exact")
    assert np.mean(np.isclose(h, he, rtol=1e-12)) >= 0.9


def test_approximate_path_with_massive_ties_on_sparse_input_is_deterministic():
    rng = np.random.default_rng(3)
    X = sp.csr_matrix(np.eye(5)[rng.integers(0, 5, (3000, 6))].reshape(3000, 30))  # one-hot
    out1 = knn_graph(X, k=10, method="approximate", return_info=True, recall_sample=300)
    out2 = knn_graph(X, k=10, method="approximate", return_info=True, recall_sample=300)
    W, h, _, info = out1
    _check_graph(W, X.shape[0])
    assert _identical(W, out2[0]) and np.array_equal(h, out2[1])
    assert info["recall"] >= 0.9
    # the tie rule: at most k + tie_extra(k) out-edges per point before symmetrisation
    assert info["candidates"] == 10 + approx_mod.tie_extra(10)
    assert info["candidates_max"] == 10 + approx_mod.tie_extra_max(10)
    assert 0 < info["rows_second_round"] <= 1
    assert 0 <= info["rows_at_cap"] <= 1
    # the weights follow eq. (2) on the edges found: d_ij <= max(h_i, h_j)
    Wb, hb = brute_eq2(X, 10)
    r, c = W.nonzero()
    np.testing.assert_allclose(W.data, Wb[r, c], atol=1e-12)  # each edge found is an eq. (2) edge


def test_auto_switches_to_the_approximate_path_above_the_threshold(monkeypatch):
    X, _ = make_blobs(800, n_features=8, centers=5, random_state=1)
    _, _, _, info = knn_graph(X, k=5, return_info=True)
    assert info["method"] == "exact" and info["recall"] == 1.0
    monkeypatch.setattr(knn_mod, "EXACT_MAX_N", 500)
    _, _, _, info = knn_graph(X, k=5, return_info=True, recall_sample=200)
    assert info["method"] == "hnswlib" and info["requested"] == "auto"
    assert info["exact_max_n"] == 500 and info["recall"] >= 0.9


def test_graph_records_knn_info_and_memoizes_by_method():
    X, _ = make_blobs(400, n_features=5, centers=3, random_state=2)
    g = get_graph(X, k=6)
    assert g.knn_info["method"] == "exact" and g.method == "auto"
    ga = get_graph(X, k=6, method="approximate")
    assert ga is not g and ga.knn_info["method"] == "hnswlib"
    assert get_graph(X, k=6, method="approximate") is ga
    assert KNNGraph(n_neighbors=6, method="approximate").build(X) is ga
    assert Graph(X, k=6, method="exact").knn_info["recall"] == 1.0


# ---------------------------------------------------------------------------- validation


def test_method_is_validated():
    X = np.random.default_rng(0).standard_normal((30, 3))
    with pytest.raises(ValueError, match="method must be one of"):
        knn_graph(X, k=3, method="fast")
    with pytest.raises(ValueError, match="graph method must be one of"):
        KNNGraph(method="hnsw").validate()
    with pytest.raises(ValueError, match="method must be one of"):
        get_graph(X, k=3, method=None)
    with pytest.raises(ValueError, match="recall_sample must be an integer >= 0"):
        knn_graph(X, k=3, method="approximate", recall_sample=-1)


def test_auto_searches_sparse_input_exactly_up_to_its_own_threshold(monkeypatch):
    """Sparse rows: the exact search is cheap (no densifying) and "auto" keeps it up to
    EXACT_MAX_N_SPARSE points; dense rows switch at EXACT_MAX_N."""
    import scipy.sparse as sp

    X, _ = make_blobs(800, n_features=8, centers=5, random_state=1)
    Xs = sp.csr_matrix(np.where(X > 0, X, 0.0))
    monkeypatch.setattr(knn_mod, "EXACT_MAX_N", 500)
    assert knn_mod.auto_method(X) == "approximate" and knn_mod.auto_method(Xs) == "exact"
    _, _, _, info = knn_graph(Xs, k=5, return_info=True)
    assert info["method"] == "exact" and info["exact_max_n"] == knn_mod.EXACT_MAX_N_SPARSE
    monkeypatch.setattr(knn_mod, "EXACT_MAX_N_SPARSE", 700)
    assert knn_mod.auto_method(Xs) == "approximate"
    _, _, _, info = knn_graph(Xs, k=5, return_info=True, recall_sample=100)
    assert info["method"] == "hnswlib" and info["exact_max_n"] == 700
