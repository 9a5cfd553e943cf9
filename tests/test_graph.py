"""The k-NN graph of Liu et al. (2009) eq. (2), the normalized Laplacian and its spectrum.

Every check compares the package with an independent dense computation: a
brute-force implementation of eq. (2) from a full distance matrix, numpy's
``eigh`` of a densely built ``I - D^{-1/2} W D^{-1/2}``, or the eigen-equation itself.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.datasets import load_wine, make_moons
from sklearn.preprocessing import minmax_scale
from threadpoolctl import threadpool_limits

import sskernels.graph.laplacian as lap_mod
from sskernels.graph import (
    Graph,
    KNNGraph,
    Spectrum,
    clear_cache,
    get_graph,
    induced_weights,
    knn_graph,
    laplacian_spectrum,
    normalized_laplacian,
)
from sskernels.learners import RegularizedSpectralKernel, TransductiveSpectralKernel


# ---------------------------------------------------------------------------- brute force


def _kth_distance(D, k, exclude_self=True):
    """Distance of every row point to its k-th nearest column point (self excluded)."""
    D = np.array(D, dtype=float)
    if exclude_self:
        np.fill_diagonal(D, np.inf)
    return np.sort(D, axis=1)[:, k - 1]


def brute_graph(X, k, weights="hein-maier", sigma=None, metric="euclidean"):
    """Dense W of eq. (2) (and the heat / binary variants on the same support), h, sigma."""
    X = np.asarray(X, dtype=float)
    if metric == "cosine":
        X = X / np.linalg.norm(X, axis=1, keepdims=True)
    n = X.shape[0]
    D = cdist(X, X)
    h = _kth_distance(D, k)
    H = np.maximum(h[:, None], h[None, :])
    support = (D <= H) & ~np.eye(n, dtype=bool)
    if weights == "hein-maier":
        W = np.where(support, np.exp(-(D**2) / H**2), 0.0)
    elif weights == "heat":
        if sigma is None:
            sigma = np.sqrt(np.mean(D[support] ** 2))
        W = np.where(support, np.exp(-(D**2) / (2 * sigma**2)), 0.0)
    else:
        W = support.astype(float)
    return W, h, sigma


def brute_induced(Xnew, X, k):
    """Eq. (2) between new points and the graph points (h(x): k-th NN distance of x in X)."""
    D = cdist(X, X)
    h = _kth_distance(D, k)
    Dn = cdist(Xnew, X)
    hx = _kth_distance(Dn, k, exclude_self=False)
    H = np.maximum(hx[:, None], h[None, :])
    return np.where(Dn <= H, np.exp(-(Dn**2) / H**2), 0.0)


def dense_sym_laplacian(W):
    W = np.asarray(W.toarray() if sp.issparse(W) else W, dtype=float)
    d = W.sum(axis=1)
    Dm = np.diag(1.0 / np.sqrt(d))
    return np.eye(W.shape[0]) - Dm @ W @ Dm, d


def wine_minmax():
    X, y = load_wine(return_X_y=True)
    return minmax_scale(X), y


@pytest.fixture(autouse=True)
def fresh_graph_cache():
    # one BLAS thread: on a busy 2-core machine threaded eigh of n = 400 can take seconds
    clear_cache()
    with threadpool_limits(limits=1):
        yield
    clear_cache()


# ---------------------------------------------------------------------------- eq. (2) weights


@pytest.mark.parametrize(
    "n,d,k,seed", [(40, 3, 5, 0), (60, 5, 6, 1), (25, 2, 1, 2), (50, 8, 10, 3)]
)
def test_hein_maier_weights_equal_brute_force_eq2(n, d, k, seed):
    X = np.random.default_rng(seed).standard_normal((n, d))
    W, h, sigma = knn_graph(X, k=k, weights="hein-maier")
    Wb, hb, _ = brute_graph(X, k)
    assert sp.issparse(W) and sigma is None
    np.testing.assert_allclose(h, hb, rtol=1e-12)
    Wd = W.toarray()
    np.testing.assert_array_equal(Wd > 0, Wb > 0)  # same edges
    np.testing.assert_allclose(Wd, Wb, atol=1e-12)  # same weights
    assert np.all(np.diag(Wd) == 0)
    assert abs(W - W.T).max() == 0  # exactly symmetric
    # every point keeps at least its k nearest neighbours
    assert np.all((Wd > 0).sum(axis=1) >= k)


@pytest.mark.parametrize("sigma", [None, 0.7])
def test_heat_weights_equal_brute_force(sigma):
    X = np.random.default_rng(5).standard_normal((45, 4))
    W, h, s = knn_graph(X, k=6, weights="heat", sigma=sigma)
    Wb, hb, sb = brute_graph(X, 6, weights="heat", sigma=sigma)
    np.testing.assert_allclose(s, sb, rtol=1e-12)
    np.testing.assert_allclose(W.toarray(), Wb, atol=1e-12)
    assert abs(W - W.T).max() == 0


def test_binary_weights_equal_brute_force_support():
    X = np.random.default_rng(6).standard_normal((45, 4))
    W, _, s = knn_graph(X, k=4, weights="binary")
    Wb, _, _ = brute_graph(X, 4, weights="binary")
    assert s is None
    np.testing.assert_array_equal(W.toarray(), Wb)


def test_cosine_metric_uses_unit_normalized_rows():
    X = np.abs(np.random.default_rng(7).standard_normal((40, 6))) + 0.1
    W, h, _ = knn_graph(X, k=5, metric="cosine")
    Wb, hb, _ = brute_graph(X, 5, metric="cosine")
    np.testing.assert_allclose(h, hb, rtol=1e-10)
    np.testing.assert_allclose(W.toarray(), Wb, atol=1e-12)


def test_wine_graph_equals_brute_force():
    X, _ = wine_minmax()
    W, _, _ = knn_graph(X, k=6)
    Wb, _, _ = brute_graph(X, 6)
    np.testing.assert_allclose(W.toarray(), Wb, atol=1e-12)


def test_tied_distances_follow_eq2():
    # x = 0, 1, 2, 2.5 with k = 1: h = (1, 1, 0.5, 0.5); ||x_1 - x_2|| = 1 <= max(h_1, h_2) = 1
    X = np.array([[0.0], [1.0], [2.0], [2.5]])
    W, h, _ = knn_graph(X, k=1)
    Wb, hb, _ = brute_graph(X, 1)
    np.testing.assert_allclose(h, hb)
    assert Wb[1, 2] == pytest.approx(np.exp(-1.0))
    np.testing.assert_allclose(W.toarray(), Wb, atol=1e-12)


# ---------------------------------------------------------------------------- Laplacian spectrum


def test_normalized_laplacian_and_dense_spectrum():
    X, _ = make_moons(150, noise=0.08, random_state=0)
    W, _, _ = knn_graph(X, k=6)
    Ld, d = dense_sym_laplacian(W)
    np.testing.assert_allclose(normalized_laplacian(W).toarray(), Ld, atol=1e-13)
    ref = np.linalg.eigvalsh(Ld)
    assert ref.min() >= -1e-10 and ref.max() <= 2 + 1e-10
    spec = laplacian_spectrum(W, solver="dense")
    assert spec.complete and spec.values.shape == (150,)
    np.testing.assert_allclose(spec.values, ref, atol=1e-10)
    V = spec.vectors
    np.testing.assert_allclose(V.T @ V, np.eye(150), atol=1e-10)
    np.testing.assert_allclose(Ld @ V, V * spec.values, atol=1e-10)
    # connected graph: a single zero eigenvalue, eigenvector proportional to sqrt(degree)
    assert abs(spec.values[0]) < 1e-10 and spec.values[1] > 1e-6
    u = np.sqrt(d) / np.linalg.norm(np.sqrt(d))
    assert abs(abs(V[:, 0] @ u) - 1) < 1e-10


def test_bipartite_graph_has_eigenvalue_two():
    # points on a line with k = 1 form a path, which is bipartite: lambda_max = 2
    X = np.cumsum(np.random.default_rng(3).uniform(0.5, 1.5, 12))[:, None]
    W, _, _ = knn_graph(X, k=1)
    spec = laplacian_spectrum(W, solver="dense")
    assert spec.values[-1] == pytest.approx(2.0, abs=1e-10)
    Ld, _ = dense_sym_laplacian(W)
    np.testing.assert_allclose(spec.values, np.linalg.eigvalsh(Ld), atol=1e-10)


def test_sparse_solver_agrees_with_dense(monkeypatch):
    X, _ = make_moons(400, noise=0.08, random_state=0)
    W, _, _ = knn_graph(X, k=8)
    m = 12
    dense = laplacian_spectrum(W, m=m, solver="dense")
    monkeypatch.setattr(lap_mod, "DENSE_MAX_N", 10)
    sparse = laplacian_spectrum(W, m=m)  # "auto" now takes eigsh
    assert not sparse.complete and sparse.values.size == m + 10
    lam_d, V_d = dense.smallest(m)
    lam_s, V_s = sparse.smallest(m)
    np.testing.assert_allclose(lam_s, lam_d, atol=1e-8)
    assert dense.values[m] - dense.values[m - 1] > 1e-4  # a gap, so the subspace is defined
    np.testing.assert_allclose(V_s @ V_s.T, V_d @ V_d.T, atol=1e-6)
    # each sparse vector is an eigenvector of the densely built Laplacian
    Ld, _ = dense_sym_laplacian(W)
    np.testing.assert_allclose(Ld @ V_s, V_s * lam_s, atol=1e-7)


def test_tsk_is_the_same_with_sparse_and_dense_spectra(monkeypatch):
    X, y = make_moons(400, noise=0.08, random_state=0)  # a connected graph
    yp = np.full(400, -1)
    lab = np.random.default_rng(0).choice(400, 16, replace=False)
    yp[lab] = y[lab]
    kw = dict(graph=KNNGraph(n_neighbors=8), n_components=12, beta=1.0)
    dense = TransductiveSpectralKernel(**kw).fit(X, yp)
    assert dense.graph_.spectrum(12).complete
    clear_cache()
    monkeypatch.setattr(lap_mod, "DENSE_MAX_N", 10)
    sparse = TransductiveSpectralKernel(**kw).fit(X, yp)
    assert not sparse.graph_.spectrum(12).complete
    np.testing.assert_allclose(sparse.eigenvalues_, dense.eigenvalues_, atol=1e-8)
    assert dense.objective_ > 1.0
    np.testing.assert_allclose(sparse.objective_, dense.objective_, rtol=1e-8)
    np.testing.assert_allclose(sparse.mu_, dense.mu_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sparse.kernel_, dense.kernel_, atol=1e-8)
    np.testing.assert_array_equal(sparse.transduction_, dense.transduction_)


def test_smallest_skips_eigenvalue_one_on_a_star():
    # centre at the origin, leaves at the unit vectors: with k = 1 the graph of eq. (2) is a
    # star (leaf-leaf distance sqrt(2) > max(h) = 1), whose L_sym has eigenvalues 0, 1 (x4), 2
    X = np.vstack([np.zeros(5), np.eye(5)])
    g = Graph(X, k=1)
    Wd = g.W.toarray()
    np.testing.assert_allclose(Wd[0, 1:], np.exp(-1.0))
    assert np.all(Wd[1:, 1:] == 0)
    spec = g.spectrum(2)
    np.testing.assert_allclose(spec.values, [0, 1, 1, 1, 1, 2], atol=1e-12)
    lam, V = spec.smallest(2, exclude_one=True)
    np.testing.assert_allclose(lam, [0.0, 2.0], atol=1e-12)
    Ld, _ = dense_sym_laplacian(g.W)
    np.testing.assert_allclose(Ld @ V, V * lam, atol=1e-12)
    lam_all, _ = spec.smallest(3, exclude_one=False)
    np.testing.assert_allclose(lam_all, [0, 1, 1], atol=1e-12)
    with pytest.raises(ValueError, match="only 2 are available"):
        spec.smallest(3, exclude_one=True)


def test_smallest_on_a_given_spectrum():
    vals = np.array([0.0, 0.3, 1.0 - 1e-12, 1.0, 1.0 + 1e-11, 1.4, 1.9])
    vecs = np.arange(4 * 7, dtype=float).reshape(4, 7)
    lam, V = Spectrum(vals, vecs, complete=False).smallest(3)
    np.testing.assert_array_equal(lam, [0.0, 0.3, 1.4])
    np.testing.assert_array_equal(V, vecs[:, [0, 1, 5]])
    lam, V = Spectrum(vals, vecs, complete=False).smallest(None)
    np.testing.assert_array_equal(lam, [0.0, 0.3, 1.4, 1.9])


# ---------------------------------------------------------------------------- memoization


def test_get_graph_memoizes_by_content_and_parameters():
    X, _ = wine_minmax()
    g1 = get_graph(X, k=6)
    assert get_graph(X.copy(), k=6) is g1  # same content
    assert get_graph(np.asfortranarray(X), k=6) is g1  # memory layout irrelevant
    g7 = get_graph(X, k=7)
    assert g7 is not g1
    np.testing.assert_allclose(g7.W.toarray(), brute_graph(X, 7)[0], atol=1e-12)
    gh = get_graph(X, k=6, weights="heat")
    assert gh is not g1 and gh.sigma is not None
    X2 = X.copy()
    X2[0, 0] += 1e-3
    assert get_graph(X2, k=6) is not g1
    # the neighbour search is part of the key; the exact search gives the same graph
    ge = get_graph(X, k=6, method="exact")
    assert ge is not g1 and g1.knn_info["method"] == ge.knn_info["method"] == "exact"
    assert (ge.W != g1.W).nnz == 0
    # the spectrum is computed once and kept
    s = g1.spectrum(10)
    assert get_graph(X, k=6).spectrum(5) is s


# ---------------------------------------------------------------------------- out-of-sample weights


def test_induced_weights_of_new_points_equal_brute_force():
    X, _ = wine_minmax()
    rng = np.random.default_rng(0)
    Xnew = np.vstack(
        [X[rng.choice(178, 10)] + 0.05 * rng.standard_normal((10, 13)), rng.uniform(0, 1, (5, 13))]
    )
    _, h, _ = knn_graph(X, k=6)
    np.testing.assert_allclose(
        induced_weights(Xnew, X, h, k=6), brute_induced(Xnew, X, 6), atol=1e-12
    )


def test_inducing_training_points_without_self_edge_gives_their_rows_of_W():
    X, _ = wine_minmax()
    g = Graph(X, k=6)
    n = g.n
    Wx = g.induced(X, exclude=np.arange(n))
    np.testing.assert_allclose(Wx, g.W.toarray(), atol=1e-12)
    Ld, d = dense_sym_laplacian(g.W)
    np.testing.assert_allclose(
        g.induced_normalized(X, exclude=np.arange(n)), np.eye(n) - Ld, atol=1e-12
    )
    # with exclude = -1 (nothing left out) a training point is its own neighbour at distance 0
    Wself = g.induced(X[:3], exclude=[-1, -1, -1])
    np.testing.assert_allclose(Wself[[0, 1, 2], [0, 1, 2]], 1.0)


@pytest.mark.parametrize(
    "learner",
    [
        RegularizedSpectralKernel(alpha=0.99, n_components=10),
        TransductiveSpectralKernel(n_components=10, beta=1.0),
    ],
    ids=["rsk", "tsk"],
)
def test_embedding_training_points_with_exclusion_gives_their_eigenvector_rows(learner):
    # eq. (17) for a training point with its self-edge removed is the eigen-equation
    # S v_t = (1 - lambda_t) v_t, so it must return that point's row of V-bar
    X, y = wine_minmax()
    yp = np.full(178, -1)
    lab = np.random.default_rng(1).choice(178, 20, replace=False)
    yp[lab] = y[lab]
    est = learner.fit(X, yp)
    V = est.eigenvectors_
    assert V.shape == (178, 10)
    Ld, _ = dense_sym_laplacian(est.graph_.W)
    np.testing.assert_allclose(Ld @ V, V * est.eigenvalues_, atol=1e-9)
    emb = est.spectral_embedding(X, exclude=np.arange(178))
    np.testing.assert_allclose(emb, V, atol=1e-8)
    # without the exclusion the self-edge changes the embedding
    assert np.abs(est.spectral_embedding(X) - V).max() > 1e-3


def test_fingerprint_memo_only_for_frozen_arrays():
    """A read-only array is hashed once; a writable one every time (its content may change),
    and a frozen view of a writable base is not trusted either."""
    import sskernels.hashing as g
    from sskernels.hashing import fingerprint

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    before = fingerprint(X)
    X[0, 0] += 1.0
    assert fingerprint(X) != before  # writable: rehashed
    view = X[:]
    view.setflags(write=False)
    d = fingerprint(view)
    X[1, 1] += 1.0
    assert fingerprint(view) != d  # its base is writable: rehashed
    F = X.copy()
    F.setflags(write=False)
    d = fingerprint(F)
    assert id(F) in g._FINGERPRINTS and fingerprint(F) == d == fingerprint(X.copy())
    with pytest.raises(ValueError):
        F[0, 0] = 0.0  # and nobody can change it
