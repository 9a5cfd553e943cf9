"""Linear LapRLS / LapSVM (Sec. 11.5) against independent computations."""

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.linear_model import Ridge

import sskernels.solvers.cg as cg_mod
import sskernels.solvers.psd as psd_mod
from sskernels.graph import KNNGraph, get_graph
from sskernels.kernels.deformed import intrinsic_matrix
from sskernels.learners.graph_base import GraphSemiSupervisedClassifier
from sskernels.learners.linear_manifold import (
    GAMMA_A_GRID,
    GAMMA_I_GRID,
    LinearLapRLS,
    LinearLapSVM,
)
from sskernels.learners.manifold import LapSVM, lapsvm_binary, lapsvm_system, laprls_coefficients
from sskernels.learners.registry import make_method
from sskernels.learners.selection import SelectOnLabeled, labeled_folds
from sskernels.solvers import SolverError
from sskernels.solvers.cg import cg_solve


def _data(n=80, d=5, n_lab=12, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y_true = rng.integers(0, n_classes, size=n)
    X[:, 0] += 2.0 * y_true
    y = np.full(n, -1)
    lab = rng.choice(n, n_lab, replace=False)
    y[lab] = y_true[lab]
    for k in range(n_classes):  # every class labeled at least once
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


@pytest.mark.parametrize(
    "n_classes,laplacian,degree",
    [(2, "unnormalized", 1), (3, "unnormalized", 2), (3, "normalized", 1)],
)
def test_equals_kernel_laprls_with_linear_kernel(n_classes, laplacian, degree):
    X, y, _ = _data(n_classes=n_classes, seed=n_classes)
    Xnew = np.random.default_rng(9).normal(size=(15, X.shape[1]))
    gA, gI = 1e-2, 1.0
    f_train, f_new = _kernel_laprls_scores(X, y, Xnew, gA, gI, laplacian, degree)
    m = LinearLapRLS(
        gamma_A=gA, gamma_I=gI, solver="direct", laplacian=laplacian, laplacian_degree=degree
    ).fit(X, y)
    np.testing.assert_allclose(m.decision_function(X), f_train, atol=1e-6, rtol=0)
    np.testing.assert_allclose(m.decision_function(Xnew), f_new, atol=1e-6, rtol=0)
    expected_shape = (X.shape[1],) if n_classes == 2 else (X.shape[1], n_classes)
    assert m.coef_.shape == expected_shape
    assert m.fit_report_.solvers == ["cholesky"] and m.fit_report_.notes == []
    assert (m.gamma_A_, m.gamma_I_) == (gA, gI)


def _rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_cg_equals_direct_dense(fit_intercept):
    X, y, _ = _data(n=120, d=30, n_lab=20, n_classes=3, seed=4)
    kw = dict(gamma_A=1e-2, gamma_I=0.5, fit_intercept=fit_intercept)
    a = LinearLapRLS(solver="direct", **kw).fit(X, y)
    b = LinearLapRLS(solver="cg", **kw).fit(X, y)
    assert a.solver_ == "direct" and b.solver_ == "cg"
    assert b.fit_report_.solvers == ["cg"] and b.fit_report_.fallbacks == []
    assert b.n_iter_.shape == (3,) and np.all(b.n_iter_ > 0)
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
    b = LinearLapRLS(gamma_A=1e-2, gamma_I=1.0, solver="cg").fit(X, y)
    assert LinearLapRLS(gamma_A=1e-2, gamma_I=1.0).fit(X, y).solver_ == "direct"  # d <= 2000
    assert _rel(b.coef_, a.coef_) < 1e-6
    Xd = X.toarray()
    c = LinearLapRLS(gamma_A=1e-2, gamma_I=1.0, solver="direct").fit(Xd, y)
    assert _rel(c.coef_, a.coef_) < 1e-10  # sparse / dense paths agree
    np.testing.assert_allclose(
        b.decision_function(X),
        c.decision_function(Xd),
        rtol=0,
        atol=1e-6 * np.abs(c.decision_function(Xd)).max(),
    )
    d_csc = LinearLapRLS(gamma_A=1e-2, gamma_I=1.0, solver="cg").fit(X.tocsc(), y)
    np.testing.assert_array_equal(d_csc.coef_, b.coef_)  # CSC input is used as CSR


@pytest.mark.parametrize("solver", ["direct", "cg"])
def test_gamma_I_zero_is_ridge_on_labeled(solver):
    X, y, _ = _data(n=60, d=8, n_lab=15, seed=2)
    gA = 0.1
    m = LinearLapRLS(gamma_A=gA, gamma_I=0.0, solver=solver).fit(X, y)
    lab = np.flatnonzero(y != -1)
    t = np.where(y[lab] == 1, 1.0, -1.0)
    r = Ridge(alpha=gA * lab.size, fit_intercept=False, solver="cholesky").fit(X[lab], t)
    np.testing.assert_allclose(m.coef_, r.coef_, rtol=1e-6, atol=1e-10)
    assert not hasattr(m, "graph_")  # the graph term vanishes: no graph
    assert LinearLapRLS(gamma_I=0.0).precompute(X) is None
    assert LinearLapRLS(gamma_I=1.0).precompute(X) is get_graph(X, k=6)


def _two_moons_linear(n=200, seed=0):
    """Two shallow arcs ('flat moons'), long along x_1, separated by a gap along x_2."""
    rng = np.random.default_rng(seed)
    lab = np.arange(n) % 2
    x1 = rng.uniform(-3, 3, n)
    bend = 0.05 * np.cos(x1 * np.pi / 6)  # shallow arcs
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
    assert np.mean(sup.transduction_ == yt) < 0.7  # the labels alone mislead
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


@pytest.mark.parametrize("cls", [LinearLapRLS, LinearLapSVM])
def test_input_validated_the_sklearn_way(cls):
    X, y, _ = _data(n=60, d=4, n_lab=12, seed=5)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        cls().fit(X, y[:-1])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls().fit(Xn, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        cls().fit(X, np.where(y == 1, 1, -1))
    with pytest.raises(ValueError, match="precomputed"):
        cls(graph="precomputed").fit(X @ X.T, y)
    m = cls().fit(X.tolist(), y.tolist())  # lists are fine
    assert m.n_features_in_ == 4
    with pytest.raises(ValueError, match="features"):
        m.predict(np.ones((3, 7)))


@pytest.mark.parametrize(
    "cls,bad",
    [
        (LinearLapRLS, dict(gamma_A=0.0)),
        (LinearLapRLS, dict(gamma_I=-1.0)),
        (LinearLapRLS, dict(cg_tol=0.0)),
        (LinearLapRLS, dict(cg_maxiter=0)),
        (LinearLapRLS, dict(fit_intercept="yes")),
        (LinearLapRLS, dict(laplacian="rw")),
        (LinearLapRLS, dict(laplacian_degree=0)),
        (LinearLapRLS, dict(graph="knn")),
        (LinearLapSVM, dict(tol=-1.0)),
        (LinearLapSVM, dict(gamma_A=-1.0)),
    ],
)
def test_invalid_parameter_rejected_before_any_computation(cls, bad, monkeypatch):
    X, y, _ = _data(n=40, d=3, n_lab=10, seed=1)

    def boom(*args, **kwargs):
        raise AssertionError("computation started before the parameters were checked")

    monkeypatch.setattr(KNNGraph, "build", boom)
    monkeypatch.setattr("sskernels.learners.linear_manifold.cg_solve", boom)
    monkeypatch.setattr("sskernels.learners.linear_manifold.solve_psd", boom)
    with pytest.raises(ValueError):
        cls(**bad).fit(X, y)


# -- solvers, fallbacks and degenerate cases reported ---------------------------


def test_direct_cholesky_failure_falls_back_to_lstsq_and_is_reported(monkeypatch):
    X, y, _ = _data(n=70, d=6, n_lab=14, seed=8)
    ref = LinearLapRLS(gamma_A=1e-2, gamma_I=1.0, solver="direct").fit(X, y)

    def no_cholesky(*args, **kwargs):
        raise scipy.linalg.LinAlgError("forced failure")

    monkeypatch.setattr(psd_mod, "solve", no_cholesky)
    m = LinearLapRLS(gamma_A=1e-2, gamma_I=1.0, solver="direct").fit(X, y)
    assert m.fit_report_.solvers == ["lstsq"]
    assert any("cholesky->lstsq" in n and "forced failure" in n for n in m.fit_report_.fallbacks)
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=1e-8, atol=1e-12)


def test_cg_not_converged_is_a_reported_fallback():
    X, y, _ = _data(n=120, d=40, n_lab=20, seed=6)
    m = LinearLapRLS(gamma_A=1e-4, gamma_I=10.0, solver="cg", cg_maxiter=2).fit(X, y)
    assert m.fit_report_.solvers == ["cg"]
    (note,) = m.fit_report_.fallbacks
    assert "cg not converged in 2 iterations" in note and "last iterate" in note
    np.testing.assert_array_equal(m.n_iter_, [2])
    ok = LinearLapRLS(gamma_A=1e-4, gamma_I=10.0, solver="cg").fit(X, y)
    assert ok.fit_report_.fallbacks == []


def test_cg_solve_reports_and_raises(monkeypatch):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(30, 30))
    A = A @ A.T + 30 * np.eye(30)
    B = rng.normal(size=(30, 2))
    X, info = cg_solve(lambda v: A @ v, B, rtol=1e-12)
    np.testing.assert_allclose(X, np.linalg.solve(A, B), rtol=1e-9)
    assert info.solver == "cg" and info.fallback is None
    assert len(info.stats["iterations"]) == 2 and max(info.stats["relative_residual"]) <= 1e-12
    x0, info0 = cg_solve(lambda v: A @ v, np.zeros(30))
    assert np.all(x0 == 0) and info0.stats["relative_residual"] == [0.0]
    # a forced non-convergence of the primary solver: reported, never silent
    monkeypatch.setattr(cg_mod, "cg", lambda op, b, **kw: (np.zeros_like(b), 7))
    _, bad = cg_solve(lambda v: A @ v, B, maxiter=7)
    assert bad.fallback and "column(s) [0, 1]" in bad.fallback
    assert bad.stats["relative_residual"] == [1.0, 1.0]
    monkeypatch.setattr(cg_mod, "cg", lambda op, b, **kw: (np.zeros_like(b), -1))
    with pytest.raises(SolverError, match="broke down"):
        cg_solve(lambda v: A @ v, B)


@pytest.mark.parametrize("solver", ["direct", "cg"])
def test_constant_prediction_is_reported_degenerate(solver):
    # 1-D points all > 0 and no intercept: f = w x has one sign once w > 0
    X = np.linspace(1.0, 3.0, 20)[:, None]
    y = np.full(20, -1)
    y[0], y[-1] = 0, 1
    m = LinearLapRLS(gamma_A=1e-2, gamma_I=0.0, solver=solver).fit(X, y)
    assert np.all(m.transduction_ == 1)
    assert m.fit_report_.degenerate == [
        "degenerate: constant prediction: every unlabeled point gets class 1"
    ]
    ok = LinearLapRLS(gamma_A=1e-2, gamma_I=0.0, fit_intercept=True, solver=solver).fit(X, y)
    assert ok.fit_report_.degenerate == []


def test_linear_lapsvm_equals_kernel_lapsvm():
    """Cholesky pre-processing + SVM = the kernel LapSVM dual (11.8)-(11.10) with K = X X^T."""
    X, y, _ = _data(n=70, d=4, n_lab=16, seed=3)
    gA, gI = 1e-2, 1.0
    m = LinearLapSVM(gamma_A=gA, gamma_I=gI).fit(X, y)
    assert m.fit_report_.solvers == ["cholesky", "libsvm"]
    lab = np.flatnonzero(y != -1)
    t = np.where(y[lab] == 1, 1.0, -1.0)
    M = intrinsic_matrix(get_graph(X, k=6))
    K = X @ X.T
    Z, KZ_L = lapsvm_system(K, M, lab, gA, gI)
    alpha, b, _, _ = lapsvm_binary(Z, KZ_L, t)
    w_kernel = X.T @ alpha  # f(x) = K(x, X) alpha = x^T X^T alpha
    assert _rel(m.coef_, w_kernel) < 1e-3

    def objective(w, bb):
        hinge = np.maximum(0, 1 - t * (X[lab] @ w + bb)).mean()
        f = X @ w
        return hinge + gA * w @ w + gI / X.shape[0] ** 2 * f @ (M @ f)

    assert objective(m.coef_, m.intercept_) <= objective(w_kernel, b) + 1e-7


def test_lapsvm_with_the_linear_kernel_equals_linear_lapsvm():
    """Sec. 11.5 solved in the dual (kernel LapSVM, K = X X^T) equals the Cholesky route."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 5))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    yp = np.full(y.size, -1)
    yp[:16] = y[:16]
    dual = LapSVM(gamma_A=1e-2, gamma_I=1.0, kernel_type="linear").fit(X, yp)
    primal = LinearLapSVM(gamma_A=1e-2, gamma_I=1.0).fit(X, yp)
    Xn = rng.normal(size=(10, 5))
    np.testing.assert_allclose(
        dual.decision_function(Xn), primal.decision_function(Xn), rtol=1e-3, atol=1e-4
    )


# -- selection on the labeled points (the wrapper) --------------------------------


def _spec_estimator(**params):
    return make_method("linear-laprls", gamma_A="auto", gamma_I="auto", **params)


def test_spec_maps_to_the_wrapper_with_the_paper_grids_in_preference_order():
    est = _spec_estimator(
        n_neighbors=10, weights="heat", metric="cosine", solver="cg", cv_folds=4, random_state=3
    )
    assert isinstance(est, SelectOnLabeled)
    assert list(est.param_grid) == ["gamma_I", "gamma_A"]  # gamma_I first (priority)
    assert est.param_grid["gamma_I"] == sorted(GAMMA_I_GRID, reverse=True)  # largest first
    assert est.param_grid["gamma_A"] == sorted(GAMMA_A_GRID)  # smallest first
    assert (est.n_folds, est.random_state) == (4, 3)
    assert (
        est.estimator.graph.get_params()
        == KNNGraph(10, weights="heat", metric="cosine").get_params()
    )
    assert est.estimator.solver == "cg"
    # gamma_I fixed: only gamma_A is selected; a user grid is put in preference order
    fixed = make_method("linear-laprls", gamma_A="auto", gamma_I=0.0)
    assert fixed.param_grid == {"gamma_A": sorted(GAMMA_A_GRID)}
    user = make_method(
        "linear-laprls",
        gamma_A="auto",
        gamma_I="auto",
        gamma_A_grid=[1.0, 1e-3],
        gamma_I_grid=[0.0, 10.0],
    )
    assert user.param_grid == {"gamma_I": [10.0, 0.0], "gamma_A": [1e-3, 1.0]}


def test_selection_picks_the_best_fold_score_ties_to_large_gamma_I_then_small_gamma_A():
    X, y = make_classification(120, 10, random_state=0)
    yp = np.full(y.size, -1)
    yp[:20] = y[:20]
    auto = _spec_estimator().fit(X, yp)
    gA, gI = auto.best_params_["gamma_A"], auto.best_params_["gamma_I"]
    assert gA in GAMMA_A_GRID and gI in GAMMA_I_GRID
    fitted = auto.best_estimator_
    assert (fitted.gamma_A_, fitted.gamma_I_) == (gA, gI)
    fixed = LinearLapRLS(gamma_A=gA, gamma_I=gI).fit(X, yp)
    np.testing.assert_allclose(fitted.coef_, fixed.coef_)
    np.testing.assert_array_equal(auto.transduction_, fixed.transduction_)
    # independent scores: each fold's labels hidden, the fold's points kept in the graph
    lab = np.flatnonzero(yp != -1)
    folds = labeled_folds(yp[lab], 5, 0)
    scores = {}
    for a in GAMMA_A_GRID:
        for i in GAMMA_I_GRID:
            correct = 0
            for fold in folds:
                y_fold = yp.copy()
                y_fold[lab[fold]] = -1
                pred = LinearLapRLS(gamma_A=a, gamma_I=i).fit(X, y_fold).transduction_
                correct += np.sum(pred[lab[fold]] == yp[lab[fold]])
            scores[(a, i)] = correct / lab.size
    best = max(scores.values())
    tied = [c for c, s in scores.items() if s == best]
    assert (gA, gI) == max(tied, key=lambda c: (c[1], -c[0]))
    assert auto.best_score_ == pytest.approx(best)


def test_sparse_graph_term_by_column_blocks_equals_the_dense_product(monkeypatch):
    """``X^T M X`` of a sparse ``X`` by dense column blocks (forced to blocks of 3 columns
    here) equals numpy's dense product, and is memoized by content: a copy of ``X`` finds
    the same read-only array."""
    import sskernels.learners.linear_manifold as lm

    rng = np.random.default_rng(3)
    X = sp.random(60, 17, density=0.2, format="csr", random_state=rng)
    M = intrinsic_matrix(get_graph(X.toarray(), k=5), "unnormalized", 1)
    monkeypatch.setattr(lm, "GRAM_BLOCK_BYTES", 8 * 60 * 3)
    lm._GRAMS.clear()
    G = lm._gram_of_graph(X, M)
    Xd = X.toarray()
    np.testing.assert_allclose(G, Xd.T @ (M.toarray() @ Xd), rtol=1e-12, atol=1e-12)
    assert lm._gram_of_graph(X.copy(), M) is G and not G.flags.writeable
    assert lm._gram_of_graph(X[:, :16], M) is not G  # other content, other entry


@pytest.mark.parametrize(
    "sparse,fit_intercept,island",
    [(False, False, False), (True, True, False), (False, False, True)],
)
def test_fold_predictor_equals_the_generic_rule(monkeypatch, sparse, fit_intercept, island):
    """The selection's fold fits through the shared graph and graph term score every
    candidate as the generic rule (clone, fit with the fold hidden) does, three classes,
    with the same report and the same refit; with a far island of points whose one label
    some folds hide (its points unreached in those fold fits); CG keeps the generic rule."""
    from sskernels.learners import selection

    X, y = make_classification(150, 8, n_informative=4, n_classes=3, random_state=1)
    yp = np.full(y.size, -1)
    yp[:24] = y[:24]
    if island:
        X = np.vstack([X, 100.0 + np.random.default_rng(0).normal(size=(12, 8))])
        y, yp = np.r_[y, np.full(12, 2)], np.r_[yp, 2, np.full(11, -1)]
    X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0)) if sparse else X
    est = LinearLapRLS(solver="direct", fit_intercept=fit_intercept)
    grid = {"gamma_I": [100.0, 1.0, 0.0], "gamma_A": [1e-4, 1.0]}

    def no_generic(*a, **k):
        raise AssertionError("the fast path was not used")

    unreached_sizes = []
    base_rule = GraphSemiSupervisedClassifier._find_unreached

    def spy(self, graph, labeled):
        base_rule(self, graph, labeled)
        unreached_sizes.append(self.unreached_.size)

    with monkeypatch.context() as m:
        m.setattr(selection, "generic_fold_predictor", no_generic)
        fast = SelectOnLabeled(est, grid, random_state=0).fit(X, yp)
    with monkeypatch.context() as m:
        m.setattr(LinearLapRLS, "_fold_predictor", lambda self, *a: None)
        m.setattr(GraphSemiSupervisedClassifier, "_find_unreached", spy)
        slow = SelectOnLabeled(est, grid, random_state=0).fit(X, yp)
    np.testing.assert_array_equal(
        fast.cv_results_["mean_test_score"], slow.cv_results_["mean_test_score"]
    )
    assert len(set(fast.cv_results_["mean_test_score"])) > 1  # the grid matters here
    assert (max(unreached_sizes) > 0) == island  # the generic fold fits met unreached points
    assert fast.best_params_ == slow.best_params_
    assert fast.fit_report_.as_dict() == slow.fit_report_.as_dict()
    np.testing.assert_array_equal(fast.transduction_, slow.transduction_)
    lab = np.flatnonzero(yp >= 0)
    assert est._fold_predictor(X, lab, yp[lab], ("cg_tol",)) is None
    assert LinearLapRLS(solver="cg")._fold_predictor(X, lab, yp[lab], ("gamma_A",)) is None
