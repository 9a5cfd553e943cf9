"""DeformedKernel (eq. (11.15)) and SupervisedManifoldRLS (eq. (11.14)).

Checked against scikit-learn's SVC / KernelRidge and the package's LapSVM /
LapRLS, and against the objective of eq. (11.14) written out densely.
"""

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVC

import sskernels.learners.deformed as deformed_mod
from sskernels.graph import KNNGraph, get_graph
from sskernels.learners.deformed import DeformedKernel, SupervisedManifoldRLS
from sskernels.learners.manifold import LapRLS, LapSVM
from sskernels.learners.registry import make_method

WIDTH = 0.4


def rbf_np(A, B, width):
    D2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-D2 / (2 * width**2))


@pytest.fixture(scope="module")
def moons(moons_small):
    return moons_small


@pytest.mark.parametrize("gamma_I", [0.0, 1.0, 100.0])
def test_psd_on_train_and_unseen(moons, gamma_I):
    X, _, _, _, Xnew = moons
    dk = DeformedKernel(X, gamma_A=1e-2, gamma_I=gamma_I, kernel_width=WIDTH)
    Z = np.vstack([X, Xnew])
    G = dk(Z, Z)
    assert G.shape == (Z.shape[0],) * 2
    assert np.allclose(G, G.T, atol=1e-10)
    ev = np.linalg.eigvalsh(0.5 * (G + G.T))
    assert ev.min() >= -1e-8 * np.abs(G).max()


def test_reduces_to_base_kernel_and_cross_blocks_consistent(moons):
    X, _, _, _, Xnew = moons
    dk0 = DeformedKernel(X, gamma_A=1e-2, gamma_I=0.0, kernel_width=WIDTH)
    assert np.allclose(dk0(Xnew, X), rbf_np(Xnew, X, WIDTH), atol=1e-12)
    dk = DeformedKernel(X, gamma_A=1e-2, gamma_I=10.0, kernel_width=WIDTH)
    Z = np.vstack([X, Xnew])
    G = dk(Z)
    n = X.shape[0]
    assert np.allclose(G[n:, :n], dk(Xnew, X), atol=1e-10)
    assert np.allclose(G[:n, :n], dk.train_matrix(), atol=1e-10)
    # independent formula: K~ = K (I + M' K)^{-1} on the training points
    W = get_graph(X, k=6).W.toarray()
    L = np.diag(W.sum(1)) - W
    K = rbf_np(X, X, WIDTH)
    Mp = 10.0 / (1e-2 * n * n) * L
    assert np.allclose(dk.train_matrix(), K @ np.linalg.inv(np.eye(n) + Mp @ K), atol=1e-8)


def test_graph_width_rule_and_normalize(moons):
    X, _, _, _, Xnew = moons
    n = X.shape[0]
    dk = DeformedKernel(
        X, gamma_A=1e-2, gamma_I=3.0, kernel_width="median", graph=KNNGraph(8, weights="binary")
    )
    d = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))[np.triu_indices(n, 1)]
    assert dk.kernel_width == pytest.approx(np.median(d))
    W = get_graph(X, k=8, weights="binary").W.toarray()
    L = np.diag(W.sum(1)) - W
    K = rbf_np(X, X, dk.kernel_width)
    Mp = 3.0 / (1e-2 * n * n) * L
    assert np.allclose(dk.train_matrix(), K @ np.linalg.inv(np.eye(n) + Mp @ K), atol=1e-8)
    # normalize=False drops the 1/n^2: gamma_I / n^2 unnormalized is the same kernel
    dk2 = DeformedKernel(
        X,
        gamma_A=1e-2,
        gamma_I=3.0 / n**2,
        kernel_width="median",
        graph=KNNGraph(8, weights="binary"),
        normalize=False,
    )
    assert np.allclose(dk2(Xnew, X), dk(Xnew, X), atol=1e-10)


@pytest.mark.parametrize("gamma_I", [0.0, 1.0, 50.0])
def test_kernel_ridge_equals_laprls(moons, gamma_I):
    X, y, yp, labeled, Xnew = moons
    gA = 1e-2
    l = labeled.size
    dk = DeformedKernel(X, gamma_A=gA, gamma_I=gamma_I, kernel_width=WIDTH)
    XL = X[labeled]
    t = np.where(y[labeled] == 1, 1.0, -1.0)
    kr = KernelRidge(alpha=gA * l, kernel="precomputed").fit(dk(XL, XL), t)
    lap = LapRLS(gamma_A=gA, gamma_I=gamma_I, kernel_width=WIDTH).fit(X, yp)
    for P in (X, Xnew):
        assert np.allclose(kr.predict(dk(P, XL)), lap.decision_function(P), atol=1e-6)


@pytest.mark.parametrize("gamma_I", [0.0, 1.0, 50.0])
def test_svc_equals_lapsvm(moons, gamma_I):
    X, y, yp, labeled, Xnew = moons
    gA = 1e-2
    l = labeled.size
    dk = DeformedKernel(X, gamma_A=gA, gamma_I=gamma_I, kernel_width=WIDTH)
    XL = X[labeled]
    t = np.where(y[labeled] == 1, 1, -1)
    C = 1.0 / (2 * gA * l)
    svc = SVC(kernel="precomputed", C=C, tol=1e-12).fit(dk(XL, XL), t)
    lap = LapSVM(gamma_A=gA, gamma_I=gamma_I, kernel_width=WIDTH).fit(X, yp)
    for P in (X, Xnew):
        a = svc.decision_function(dk(P, XL))
        b = lap.decision_function(P)
        assert np.allclose(a, b, atol=1e-5), np.abs(a - b).max()
        assert np.array_equal(svc.predict(dk(P, XL)), np.where(b > 0, 1, -1))
    # the callable form gives the same machine
    svc2 = SVC(kernel=dk, C=C, tol=1e-12).fit(XL, t)
    assert np.allclose(svc2.decision_function(Xnew), svc.decision_function(dk(Xnew, XL)), atol=1e-8)


def test_deformed_kernel_rejects_bad_parameters_before_any_work(moons, monkeypatch):
    X = moons[0]

    def no_graph(self, X):
        raise AssertionError("the graph was built before the parameters were checked")

    monkeypatch.setattr(KNNGraph, "build", no_graph)
    for bad in (
        dict(gamma_A=0.0, gamma_I=1.0),
        dict(gamma_A=1e-2, gamma_I=-1.0),
        dict(gamma_A=1e-2, gamma_I=1.0, kernel_width="widest"),
        dict(gamma_A=1e-2, gamma_I=1.0, laplacian="random-walk"),
        dict(gamma_A=1e-2, gamma_I=1.0, graph="precomputed"),
    ):
        with pytest.raises(ValueError):
            DeformedKernel(X, **bad)


# -- supervised manifold regularization, eq. (11.14) --------------------------


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(60, centers=3, cluster_std=1.5, random_state=1)
    Xnew, _ = make_blobs(20, centers=3, cluster_std=1.5, random_state=2)
    return X, y, Xnew


@pytest.mark.parametrize("binary", [True, False])
def test_supervised_zero_intrinsic_is_rls(blobs, binary):
    X, y, Xnew = blobs
    if binary:
        keep = y < 2
        X, y = X[keep], y[keep]
    gA, w = 1e-2, 2.0
    m = SupervisedManifoldRLS(gamma_A=gA, gamma_I=0.0, kernel_width=w).fit(X, y)
    l = y.size
    classes = np.unique(y)
    T = np.where(y == 1, 1.0, -1.0) if binary else np.where(y[:, None] == classes, 1.0, -1.0)
    kr = KernelRidge(alpha=gA * l, kernel="precomputed").fit(rbf_np(X, X, w), T)
    for P in (X, Xnew):
        assert np.allclose(m.decision_function(P), kr.predict(rbf_np(P, X, w)), atol=1e-6)
    # per-class list of zeros is the same
    m2 = SupervisedManifoldRLS(gamma_A=gA, gamma_I=[0.0] * classes.size, kernel_width=w).fit(X, y)
    assert np.allclose(m2.decision_function(Xnew), m.decision_function(Xnew))
    assert m.fit_report_.solvers == ["lu"] and m.fit_report_.notes == []


def test_supervised_objective_and_unlabeled_rows_ignored(blobs):
    X, y, Xnew = blobs
    keep = y < 2
    X, y = X[keep], y[keep]
    gA, w, gI = 1e-2, 2.0, [5.0, 0.5]
    m = SupervisedManifoldRLS(gamma_A=gA, gamma_I=gI, kernel_width=w, graph=KNNGraph(5)).fit(X, y)
    # stationarity of the dense objective of eq. (11.14), squared loss, 1/l^2 scale
    l = y.size
    K = rbf_np(X, X, w)
    M = np.zeros((l, l))
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        W = get_graph(X[idx], k=5).W.toarray()
        M[np.ix_(idx, idx)] = gI[c] * (np.diag(W.sum(1)) - W)
    t = np.where(y == 1, 1.0, -1.0)
    a = m.alpha_
    grad = -2 / l * K @ (t - K @ a) + 2 * gA * K @ a + 2 / l**2 * K @ M @ K @ a
    assert np.abs(grad).max() < 1e-8
    # normalize=False is eq. (11.14) as printed: gamma_I without the 1/l^2
    m_raw = SupervisedManifoldRLS(
        gamma_A=gA,
        gamma_I=[g / l**2 for g in gI],
        kernel_width=w,
        graph=KNNGraph(5),
        normalize=False,
    ).fit(X, y)
    np.testing.assert_allclose(m_raw.alpha_, a, rtol=1e-8, atol=1e-10)
    # the intrinsic terms change the solution
    m0 = SupervisedManifoldRLS(gamma_A=gA, gamma_I=0.0, kernel_width=w).fit(X, y)
    assert not np.allclose(m0.alpha_, a)
    # rows labeled -1 are ignored by the fit, and labeled by transduction_
    Xu = np.vstack([X, Xnew])
    yu = np.concatenate([y, -np.ones(Xnew.shape[0], dtype=int)])
    mu = SupervisedManifoldRLS(gamma_A=gA, gamma_I=gI, kernel_width=w, graph=KNNGraph(5)).fit(
        Xu, yu
    )
    assert np.allclose(mu.decision_function(Xnew), m.decision_function(Xnew))
    assert set(m.predict(Xnew)) <= {0, 1}
    np.testing.assert_array_equal(mu.transduction_, mu.predict(Xu))
    assert mu.transduction_.shape == (Xu.shape[0],)


def test_supervised_median_width_of_the_labeled_points(blobs):
    X, y, _ = blobs
    yp = y.copy()
    yp[::2] = -1
    m = SupervisedManifoldRLS().fit(X, yp)
    XL = X[yp != -1]
    d = np.sqrt(((XL[:, None] - XL[None]) ** 2).sum(-1))[np.triu_indices(XL.shape[0], 1)]
    assert m.kernel_width_ == pytest.approx(np.median(d))
    m2 = SupervisedManifoldRLS(kernel_width_scale=2.0).fit(X, yp)
    assert m2.kernel_width_ == pytest.approx(2 * np.median(d))


def test_supervised_mr_spec_end_to_end(blobs):
    """``methods: [supervised-mr]``: make_method's estimator sets ``transduction_``."""
    X, y, _ = blobs
    rng = np.random.default_rng(0)
    yp = np.full(y.size, -1)
    lab = rng.choice(y.size, 15, replace=False)
    yp[lab] = y[lab]
    est = make_method(
        "supervised-mr", n_neighbors=4, weights="heat", sigma=None, metric="euclidean"
    )
    assert isinstance(est, SupervisedManifoldRLS)
    assert est.graph.get_params() == KNNGraph(4, weights="heat").get_params()
    assert est.precompute(X) is None  # nothing label-independent
    est.fit(X, yp)
    assert est.transduction_.shape == y.shape
    np.testing.assert_array_equal(est.transduction_[lab], est.predict(X[lab]))
    assert np.mean(est.transduction_ == y) > 0.8
    per_class = make_method("supervised-mr", gamma_I=[1.0, 0.0, 5.0]).fit(X, yp)
    np.testing.assert_array_equal(per_class.gamma_I_, [1.0, 0.0, 5.0])


def test_supervised_degenerate_cases_reported(blobs):
    X, y, _ = blobs
    yp = np.full(y.size, -1)
    lab0 = np.flatnonzero(y == 0)[:6]
    lab1 = np.flatnonzero(y == 1)[:1]  # one labeled point: no graph term
    yp[lab0], yp[lab1] = 0, 1
    m = SupervisedManifoldRLS(gamma_I=1.0, kernel_width=2.0).fit(X, yp)
    assert any("class 1 has one labeled point" in n for n in m.fit_report_.degenerate)
    # a constant prediction is noted
    # (all points at one place: f is the same everywhere, the majority class wins)
    Xc = 1e-6 * np.random.default_rng(0).normal(size=(17, 2))
    yc = np.array([0] * 6 + [1] + [-1] * 10)
    mc = SupervisedManifoldRLS(gamma_I=0.0, kernel_width=1.0).fit(Xc, yc)
    assert np.unique(mc.transduction_).size == 1
    assert any("constant prediction" in n for n in mc.fit_report_.degenerate)


def test_supervised_invalid_parameters_rejected_before_any_work(blobs, monkeypatch):
    X, y, _ = blobs

    def boom(*args, **kwargs):
        raise AssertionError("computation started before the parameters were checked")

    monkeypatch.setattr(deformed_mod, "resolve_width", boom)
    monkeypatch.setattr(deformed_mod, "laprls_coefficients", boom)
    for bad in (
        SupervisedManifoldRLS(gamma_A=0.0),
        SupervisedManifoldRLS(gamma_I=-1.0),
        SupervisedManifoldRLS(gamma_I=[1.0, 2.0]),  # 3 classes
        SupervisedManifoldRLS(gamma_I=[1.0, -1.0, 0.0]),
        SupervisedManifoldRLS(kernel_width="widest"),
        SupervisedManifoldRLS(kernel_width_scale=0.0),
        SupervisedManifoldRLS(laplacian_degree=0),
        SupervisedManifoldRLS(normalize="yes"),
        SupervisedManifoldRLS(graph="precomputed"),
    ):
        with pytest.raises(ValueError):
            bad.fit(X, y)


def test_supervised_input_validated_the_sklearn_way(blobs):
    X, y, _ = blobs
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        SupervisedManifoldRLS().fit(X, y[:-1])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SupervisedManifoldRLS().fit(Xn, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        SupervisedManifoldRLS().fit(X, np.where(y == 0, 0, -1))
    m = SupervisedManifoldRLS().fit(X.tolist(), y.tolist())  # lists are fine
    assert m.n_features_in_ == 2
    with pytest.raises(ValueError, match="features"):
        m.predict(np.ones((3, 5)))


def test_iterated_laplacian_is_memoized_per_graph_and_read_only():
    # L^p is label-independent: computed once per graph
    from sklearn.datasets import make_moons

    from sskernels.graph import Graph
    from sskernels.kernels.deformed import intrinsic_matrix

    X, _ = make_moons(120, noise=0.1, random_state=0)
    g = Graph(X, k=6)
    L = np.diag(g.degrees) - g.W.toarray()  # D - W, built independently
    M = intrinsic_matrix(g, "unnormalized", 3)
    np.testing.assert_allclose(M.toarray(), L @ L @ L, atol=1e-10)
    assert intrinsic_matrix(g, "unnormalized", 3) is M  # the memo, not a new product
    assert intrinsic_matrix(g, "normalized", 3) is not M  # keyed by the Laplacian
    with pytest.raises(ValueError):
        M.data[0] = 1.0  # read-only: no silent mutation
    g2 = Graph(X, k=6)  # another graph object: its own
    assert intrinsic_matrix(g2, "unnormalized", 3) is not M
