"""Regularized spectral clustering / Laplacian eigenmaps (Sindhwani, Belkin & Niyogi,
Sec. 11.3.2, eq. (11.12)-(11.13))."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_moons
from sklearn.metrics import adjusted_rand_score

from sklearn.utils.estimator_checks import check_estimator

from sskernels.graph import KNNGraph
from sskernels.learners.spectral_clustering import (
    RegularizedLaplacianEigenmaps,
    RegularizedSpectralClustering,
)

MOONS_PARAMS = dict(
    graph=KNNGraph(n_neighbors=6, weights="binary"), gamma_A=1e-6, gamma_I=1.0, kernel_width=0.5
)


@pytest.fixture(scope="module")
def moons():
    return make_moons(n_samples=200, noise=0.05, random_state=0)


@pytest.fixture(scope="module")
def moons_model(moons):
    X, _ = moons
    return RegularizedSpectralClustering(**MOONS_PARAMS).fit(X)


def test_moons_separated(moons, moons_model):
    _, y = moons
    assert adjusted_rand_score(y, moons_model.labels_) >= 0.95


def test_moons_out_of_sample(moons, moons_model):
    X_new, y_new = make_moons(n_samples=200, noise=0.05, random_state=1)
    assert adjusted_rand_score(y_new, moons_model.predict(X_new)) >= 0.9
    # predict on the training points reproduces labels_
    X, _ = moons
    np.testing.assert_array_equal(moons_model.predict(X), moons_model.labels_)


def _paper_matrices(X, width, k, gamma_A, gamma_I):
    """A = P(gamma_A K + gamma_I K L K)P, B = P K^2 P of eq. (11.13), built independently:
    K_ij = exp(-|xi-xj|^2 / (2 w^2)); W the symmetrized binary k-NN adjacency; L = D - W."""
    n = X.shape[0]
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.exp(-D2 / (2 * width**2))
    order = np.argsort(D2 + np.diag(np.full(n, np.inf)), axis=1)[:, :k]
    W = np.zeros((n, n))
    W[np.repeat(np.arange(n), k), order.ravel()] = 1.0
    W = np.maximum(W, W.T)
    L = np.diag(W.sum(1)) - W
    k1 = K @ np.ones(n)
    P = np.eye(n) - np.outer(k1, k1) / (k1 @ k1)
    A = P @ (gamma_A * K + gamma_I * K @ L @ K) @ P
    B = P @ K @ K @ P
    return K, L, P, A, B


def test_generalized_eigen_equation(moons, moons_model):
    X, _ = moons
    m = moons_model
    K, L, P, A, B = _paper_matrices(X, m.kernel_width_, 6, m.gamma_A, m.gamma_I)
    # the package's graph Laplacian is the one built here
    from sskernels.graph import get_graph

    L_pkg = get_graph(X, k=6, weights="binary").laplacian
    np.testing.assert_allclose(sp.csr_matrix(L_pkg).toarray(), L, atol=1e-12)
    alpha = m.alpha_[:, 0]
    lam = m.eigenvalues_[0]
    # constraints of eq. (11.12): sum f = 0, sum f^2 = 1 with f = K alpha
    assert abs(np.ones(len(X)) @ K @ alpha) < 1e-8
    assert abs(alpha @ K @ K @ alpha - 1.0) < 1e-8
    # A alpha = lambda B alpha, alpha = P alpha
    np.testing.assert_allclose(P @ alpha, alpha, rtol=0, atol=1e-8 * np.abs(alpha).max())
    # normwise relative residual (backward error) of A alpha = lambda B alpha
    res = A @ alpha - lam * B @ alpha
    scale = (np.linalg.norm(A, 2) + abs(lam) * np.linalg.norm(B, 2)) * np.linalg.norm(alpha)
    assert np.linalg.norm(res) / scale < 1e-8
    # lambda is the objective of eq. (11.12) at f = K alpha (computed in f to avoid the
    # cancellation of alpha^T K L K alpha with large alpha)
    f = K @ alpha
    objective = m.gamma_A * alpha @ f + m.gamma_I * f @ L @ f
    assert lam == pytest.approx(objective, rel=1e-8)


def test_smallest_eigenvalue_beats_random_feasible(moons, moons_model):
    X, _ = moons
    m = moons_model
    K, L, P, A, B = _paper_matrices(X, m.kernel_width_, 6, m.gamma_A, m.gamma_I)
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = P @ rng.standard_normal(len(X))
        assert (a @ A @ a) / (a @ B @ a) >= m.eigenvalues_[0] * (1 - 1e-8)


def test_eigenmaps_out_of_sample_reproduces_training(moons):
    X, _ = moons
    e = RegularizedLaplacianEigenmaps(n_components=3, **MOONS_PARAMS).fit(X)
    assert e.embedding_.shape == (200, 3)
    np.testing.assert_allclose(e.transform(X), e.embedding_, rtol=0, atol=1e-8)
    # orthonormal, centered coordinates (the constraints of eq. (11.12))
    np.testing.assert_allclose(e.embedding_.T @ e.embedding_, np.eye(3), atol=1e-8)
    np.testing.assert_allclose(e.embedding_.sum(0), 0, atol=1e-8)
    assert np.all(np.diff(e.eigenvalues_) >= 0)
    # the first component is the clustering's eigenfunction
    c = RegularizedSpectralClustering(**MOONS_PARAMS).fit(X)
    np.testing.assert_allclose(np.abs(e.embedding_[:, 0]), np.abs(c.embedding_[:, 0]), atol=1e-6)


def test_three_blobs():
    centers = [(0.0, 0.0), (6.0, 0.0), (3.0, 5.0)]
    X, y = make_blobs(n_samples=300, centers=centers, cluster_std=0.8, random_state=0)
    m = RegularizedSpectralClustering(n_clusters=3, random_state=0).fit(
        X
    )  # default graph: k = 6, binary
    assert m.transform(X).shape == (300, 2)
    assert adjusted_rand_score(y, m.labels_) >= 0.95
    X2, y2 = make_blobs(n_samples=150, centers=centers, cluster_std=0.8, random_state=1)
    assert adjusted_rand_score(y2, m.predict(X2)) >= 0.95


def test_median_width_and_param_errors(moons):
    X, _ = moons
    m = RegularizedSpectralClustering(random_state=0).fit(X)
    assert m.kernel_width_ > 0 and m.labels_.shape == (200,)
    d = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))[np.triu_indices(200, 1)]
    assert m.kernel_width_ == pytest.approx(np.median(d))
    assert m.graph_builder().get_params() == KNNGraph(6, "binary").get_params()
    for bad in (
        RegularizedSpectralClustering(kernel_width="mean", random_state=0),
        RegularizedSpectralClustering(kernel_width=0.0, random_state=0),
        RegularizedSpectralClustering(n_clusters=1, random_state=0),
        RegularizedSpectralClustering(graph="knn", random_state=0),
        RegularizedSpectralClustering(gamma_A=0.0, gamma_I=0.0, random_state=0),
        RegularizedLaplacianEigenmaps(gamma_A=-1.0),
        RegularizedLaplacianEigenmaps(n_components=0),
    ):
        with pytest.raises(ValueError):
            bad.fit(X)


def test_input_validated_the_sklearn_way(moons):
    X, _ = moons
    Xn = X.copy()
    Xn[5, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        RegularizedSpectralClustering(random_state=0).fit(Xn)
    with pytest.raises(ValueError, match="1 sample"):
        RegularizedSpectralClustering(random_state=0).fit(X[:1])
    m = RegularizedSpectralClustering(**MOONS_PARAMS).fit(X.tolist())  # a list is fine
    assert m.n_features_in_ == 2
    with pytest.raises(ValueError, match="features"):
        m.predict(np.ones((3, 5)))
    with pytest.raises(ValueError):
        m.predict(X[0])  # 1-d input
    # batches give what the whole set gives (sample-wise out-of-sample extension)
    np.testing.assert_allclose(
        np.vstack([m.transform(X[:70]), m.transform(X[70:])]), m.transform(X), rtol=0, atol=1e-9
    )
    assert m.get_params()["graph"] is MOONS_PARAMS["graph"]  # parameters not overwritten


#: checks that force ``n_clusters=1``, which the class refuses (eq. (11.13) needs an
#: eigenfunction orthogonal to the constant); their substance is tested above with 2 clusters
_FORCE_ONE_CLUSTER = {
    name: "sets n_clusters=1 (refused: n_clusters >= 2)"
    for name in (
        "check_dont_overwrite_parameters",
        "check_methods_subset_invariance",
        "check_fit2d_1sample",
        "check_fit2d_1feature",
        "check_fit2d_predict1d",
    )
}


@pytest.mark.parametrize(
    "est, expected_failed",
    [
        (RegularizedSpectralClustering(random_state=0), _FORCE_ONE_CLUSTER),
        (RegularizedSpectralClustering(n_clusters=3, random_state=0), _FORCE_ONE_CLUSTER),
        (RegularizedLaplacianEigenmaps(), {}),
    ],
    ids=["clustering-2", "clustering-3", "eigenmaps"],
)
def test_sklearn_estimator_checks(est, expected_failed):
    check_estimator(est, expected_failed_checks=expected_failed)
