"""Linear LapRLS / LapSVM (Sec. 11.5) against independent computations."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import Ridge

from sskernels.graph import get_graph
from sskernels.learners.linear_manifold import LinearLapRLS, LinearLapSVM
from sskernels.learners.manifold import (
    intrinsic_matrix,
    lapsvm_binary,
    lapsvm_system,
    laprls_coefficients,
)


def _data(n=80, d=5, n_lab=12, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y_true = rng.integers(0, n_classes, size=n)
    X[:, 0] += 2.0 * y_true
    y = np.full(n, -1)
    lab = rng.choice(n, n_lab, replace=False)
    y[lab] = y_true[lab]
    for k in range(n_classes):            # every class labeled at least once
        y[np.flatnonzero(y_true == k)[0]] = k
    return X, y, y_true


def _kernel_laprls_scores(X, y, Xnew, gamma_A, gamma_I, laplacian="unnormalized", degree=1):
    """Eq. (11.7) with the linear kernel K = X X^T, evaluated as K(x, X) alpha."""
    labeled = np.flatnonzero(y != -1)
    classes, enc = np.unique(y[labeled], return_inverse=True)
    if classes.size == 2:
        Y = np.where(enc == 1, 1.0, -1.0)
    else:
        Y = -np.ones((labeled.size, classes.size))
        Y[np.arange(labeled.size), enc] = 1.0
    M = intrinsic_matrix(get_graph(X, k=6), laplacian, degree)
    K = X @ X.T
    alpha = laprls_coefficients(K, M, labeled, Y, gamma_A, gamma_I)
    return K @ alpha, (Xnew @ X.T) @ alpha


@pytest.mark.parametrize("n_classes,laplacian,degree", [
    (2, "unnormalized", 1), (3, "unnormalized", 2), (3, "normalized", 1)])
def test_equals_kernel_laprls_with_linear_kernel(n_classes, laplacian, degree):
    X, y, _ = _data(n_classes=n_classes, seed=n_classes)
    Xnew = np.random.default_rng(9).normal(size=(15, X.shape[1]))
    gA, gI = 1e-2, 1.0
    f_train, f_new = _kernel_laprls_scores(X, y, Xnew, gA, gI, laplacian, degree)
    m = LinearLapRLS(gamma_A=gA, gamma_I=gI, solver="direct", laplacian=laplacian,
                     laplacian_degree=degree).fit(X, y)
    np.testing.assert_allclose(m.decision_function(X), f_train, atol=1e-6, rtol=0)
    np.testing.assert_allclose(m.decision_function(Xnew), f_new, atol=1e-6, rtol=0)
    expected_shape = (X.shape[1],) if n_classes == 2 else (X.shape[1], n_classes)
    assert m.coef_.shape == expected_shape


def _rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_cg_equals_direct_dense(fit_intercept):
    X, y, _ = _data(n=120, d=30, n_lab=20, n_classes=3, seed=4)
    kw = dict(gamma_A=1e-2, gamma_I=0.5, fit_intercept=fit_intercept)
    a = LinearLapRLS(solver="direct", **kw).fit(X, y)
    b = LinearLapRLS(solver="cg", **kw).fit(X, y)
    assert a.solver_ == "direct" and b.solver_ == "cg"
    assert _rel(b.coef_, a.coef_) < 1e-6
    if fit_intercept:
        np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=1e-6, atol=1e-8)
    assert np.array_equal(a.transduction_, b.transduction_)


def test_cg_equals_direct_sparse():
    rng = np.random.default_rng(1)
    n, d = 200, 400
    X = sp.random(n, d, density=0.05, format="csr", random_state=rng)
    X = X + sp.csr_matrix((np.ones(n), (np.arange(n), rng.integers(0, 2, n))), shape=(n, d))
    y = np.full(n, -1)
    lab = rng.choice(n, 20, replace=False)
    y[lab] = X[lab, 0].toarray().ravel() > 0.5
    y[lab[0]], y[lab[1]] = 0, 1
    a = LinearLapRLS(gamma_A=1e-2, gamma_I=1.0, solver="direct").fit(X, y)
    b = LinearLapRLS(gamma_A=1e-2, gamma_I=1.0, solver="auto").fit(X, y)
    assert b.solver_ == "cg"                       # sparse -> CG under "auto"
    assert _rel(b.coef_, a.coef_) < 1e-6
    Xd = X.toarray()
    c = LinearLapRLS(gamma_A=1e-2, gamma_I=1.0, solver="direct").fit(Xd, y)
    assert _rel(c.coef_, a.coef_) < 1e-10            # sparse / dense paths agree
    np.testing.assert_allclose(b.decision_function(X), c.decision_function(Xd),
                               rtol=0, atol=1e-6 * np.abs(c.decision_function(Xd)).max())


@pytest.mark.parametrize("solver", ["direct", "cg"])
def test_gamma_I_zero_is_ridge_on_labeled(solver):
    X, y, _ = _data(n=60, d=8, n_lab=15, seed=2)
    gA = 0.1
    m = LinearLapRLS(gamma_A=gA, gamma_I=0.0, solver=solver).fit(X, y)
    lab = np.flatnonzero(y != -1)
    t = np.where(y[lab] == 1, 1.0, -1.0)
    r = Ridge(alpha=gA * lab.size, fit_intercept=False, solver="cholesky").fit(X[lab], t)
    np.testing.assert_allclose(m.coef_, r.coef_, rtol=1e-6, atol=1e-10)


def _two_moons_linear(n=200, seed=0):
    """Two shallow arcs ('flat moons'), long along x_1, separated by a gap along x_2."""
    rng = np.random.default_rng(seed)
    lab = np.arange(n) % 2
    x1 = rng.uniform(-3, 3, n)
    bend = 0.05 * np.cos(x1 * np.pi / 6)               # shallow arcs
    x2 = np.where(lab == 0, 0.5 + bend, -0.5 - bend)
    X = np.column_stack([x1, x2]) + rng.normal(scale=0.002, size=(n, 2))
    return X, lab


@pytest.mark.parametrize("cls", [LinearLapRLS, LinearLapSVM])
def test_toy_few_labels(cls):
    X, yt = _two_moons_linear()
    y = np.full(yt.size, -1)
    # one label per class, at the ends of the arcs (misleading for a 1-D supervised fit)
    i0 = np.flatnonzero(yt == 0)[np.argmax(X[yt == 0, 0])]
    i1 = np.flatnonzero(yt == 1)[np.argmin(X[yt == 1, 0])]
    y[i0], y[i1] = 0, 1
    kw = dict(fit_intercept=True) if cls is LinearLapRLS else {}
    sup = cls(gamma_A=1e-3, gamma_I=0.0, **kw).fit(X, y)
    assert np.mean(sup.transduction_ == yt) < 0.7       # the labels alone mislead
    m = cls(gamma_A=1e-3, gamma_I=1e4, **kw).fit(X, y)
    assert np.mean(m.transduction_ == yt) >= 0.97
    Xn, yn = _two_moons_linear(seed=5)
    assert np.mean(m.predict(Xn) == yn) >= 0.97


def test_multiclass_labels_and_errors():
    X, y, yt = _data(n=90, n_classes=3, n_lab=30, seed=7)
    y = np.where(y == -1, -1, np.array([10, 20, 30])[np.maximum(y, 0)])
    m = LinearLapRLS(gamma_A=1e-2, gamma_I=0.1).fit(X, y)
    assert set(m.transduction_) <= {10, 20, 30}
    assert m.decision_function(X).shape == (90, 3)
    with pytest.raises(ValueError):
        LinearLapRLS(solver="bogus").fit(X, y)
    with pytest.raises(ValueError):
        LinearLapRLS(gamma_A=0).fit(X, y)
    with pytest.raises(ValueError):
        LinearLapRLS().fit(X, np.full(90, -1))


def test_linear_lapsvm_equals_kernel_lapsvm():
    """Cholesky pre-processing + SVM = the kernel LapSVM dual (11.8)-(11.10) with K = X X^T."""
    X, y, _ = _data(n=70, d=4, n_lab=16, seed=3)
    gA, gI = 1e-2, 1.0
    m = LinearLapSVM(gamma_A=gA, gamma_I=gI).fit(X, y)
    lab = np.flatnonzero(y != -1)
    t = np.where(y[lab] == 1, 1.0, -1.0)
    M = intrinsic_matrix(get_graph(X, k=6))
    K = X @ X.T
    Z, KZ_L = lapsvm_system(K, M, lab, gA, gI)
    alpha, b, _, _ = lapsvm_binary(Z, KZ_L, t)
    w_kernel = X.T @ alpha                       # f(x) = K(x, X) alpha = x^T X^T alpha
    assert _rel(m.coef_, w_kernel) < 1e-3

    def objective(w, bb):
        hinge = np.maximum(0, 1 - t * (X[lab] @ w + bb)).mean()
        f = X @ w
        return hinge + gA * w @ w + gI / X.shape[0] ** 2 * f @ (M @ f)

    assert objective(m.coef_, m.intercept_) <= objective(w_kernel, b) + 1e-7


def test_auto_selection_equals_a_fixed_fit_with_the_selected_values():
    from sklearn.datasets import make_classification

    X, y = make_classification(120, 10, random_state=0)
    yp = np.full(y.size, -1)
    yp[:20] = y[:20]
    auto = LinearLapRLS(gamma_A="auto", gamma_I="auto").fit(X, yp)
    assert auto.gamma_A_ in (1e-4, 1e-2, 1.0) and auto.gamma_I_ in (0.0, 1e-2, 1.0, 100.0)
    fixed = LinearLapRLS(gamma_A=auto.gamma_A_, gamma_I=auto.gamma_I_).fit(X, yp)
    np.testing.assert_allclose(auto.coef_, fixed.coef_)
    np.testing.assert_array_equal(auto.transduction_, fixed.transduction_)
    # the score of the chosen pair is the best cross-validated one
    assert max(auto.cv_scores_) == auto.cv_scores_[auto.cv_candidates_.index(
        (auto.gamma_A_, auto.gamma_I_))]


def test_lapsvm_with_the_linear_kernel_equals_linear_lapsvm():
    """Sec. 11.5 solved in the dual (kernel LapSVM, K = X X^T) equals the Cholesky route."""
    from sskernels.learners.manifold import LapSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 5))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    yp = np.full(y.size, -1)
    yp[:16] = y[:16]
    dual = LapSVM(gamma_A=1e-2, gamma_I=1.0, kernel_type="linear").fit(X, yp)
    primal = LinearLapSVM(gamma_A=1e-2, gamma_I=1.0).fit(X, yp)
    Xn = rng.normal(size=(10, 5))
    np.testing.assert_allclose(dual.decision_function(Xn), primal.decision_function(Xn),
                               rtol=1e-3, atol=1e-4)
