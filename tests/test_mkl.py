"""SimpleMKL (Rakotomamonjy et al. 2008) against independent computations.

``J(d)`` is recomputed here from scratch: kernels from
``sklearn.metrics.pairwise`` normalized to unit trace, an ``sklearn.svm.SVC``
fit, and the SVM dual objective ``sum alpha - 1/2 alpha^T Q alpha``.
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.svm import SVC

import sskernels.learners.mkl as mkl_module
import sskernels.solvers.mkl as mkl_solver
from sskernels.learners.base import check_partial_labels
from sskernels.learners.mkl import C_GRID, SimpleMKL
from sskernels.learners.registry import make_method
from sskernels.learners.selection import SelectOnLabeled, generic_fold_predictor, score_candidates
from sskernels.solvers.mkl import descent_direction, mkl_gradient, simplemkl, svm_solution


def minmax(X):
    return (X - X.min(0)) / np.maximum(X.max(0) - X.min(0), 1e-12)


def partial(y, labeled):
    yp = np.full(len(y), -1)
    yp[labeled] = y[labeled]
    return yp


def ref_kernels(A, B, widths, degrees):
    """Independent base kernels: sklearn's rbf (gamma = 1/(2 sigma^2)), poly (gamma=1, coef0=1)."""
    return [rbf_kernel(A, B, gamma=1.0 / (2.0 * s**2)) for s in widths] + [
        polynomial_kernel(A, B, degree=q, gamma=1.0, coef0=1.0) for q in degrees
    ]


def ref_normalized(XL, widths, degrees):
    return np.array([K / np.trace(K) for K in ref_kernels(XL, XL, widths, degrees)])


def ref_J(K, y, C):
    """SVM dual optimum sum(alpha) - 1/2 alpha^T Q alpha from an independent SVC fit."""
    svc = SVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
    beta = np.zeros(len(y))
    beta[svc.support_] = svc.dual_coef_[0]
    return np.abs(beta).sum() - 0.5 * beta @ K @ beta


def ref_J_total(Ks, d, y, C):
    """Sum of the binary objectives (one-vs-rest for more than two classes)."""
    K = np.tensordot(np.asarray(d, float), Ks, axes=1)
    classes = np.unique(y)
    if classes.size == 2:
        return ref_J(K, y, C)
    return sum(ref_J(K, np.where(y == c, 1, -1), C) for c in classes)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return minmax(X), y


# ---------------------------------------------------------------------------


@pytest.mark.parametrize("C", [0.5, 10.0, 1000.0])
def test_single_kernel_equals_svc(C):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=200) > 0.5, 7, 3)
    lab = rng.choice(200, 40, replace=False)
    yp = partial(y, lab)
    Xn = rng.normal(size=(50, 3))
    # Gaussian: unit trace divides K by l = 40, i.e. SVC on the raw kernel with C / 40
    m = SimpleMKL(gaussian_widths=(1.5,), poly_degrees=(), C=C, svm_tol=1e-10).fit(X, yp)
    s = SVC(kernel="rbf", gamma=1 / (2 * 1.5**2), C=C / 40, tol=1e-10).fit(X[lab], y[lab])
    assert m.weights_.tolist() == [1.0]
    np.testing.assert_allclose(m.decision_function(Xn), s.decision_function(Xn), atol=1e-4)
    np.testing.assert_array_equal(m.predict(Xn), s.predict(Xn))
    np.testing.assert_array_equal(m.transduction_, s.predict(X))
    # polynomial (<x, z> + 1)^2, trace on the labeled points
    m = SimpleMKL(gaussian_widths=(), poly_degrees=(2,), C=C, svm_tol=1e-10).fit(X, yp)
    tr = np.sum((np.sum(X[lab] ** 2, 1) + 1) ** 2)
    s = SVC(kernel="poly", degree=2, gamma=1, coef0=1, C=C / tr, tol=1e-10).fit(X[lab], y[lab])
    np.testing.assert_allclose(m.decision_function(Xn), s.decision_function(Xn), atol=1e-4)
    np.testing.assert_array_equal(m.predict(Xn), s.predict(Xn))


def test_learned_kernel_is_unit_trace_combination(cancer):
    X, y = cancer
    lab = np.random.default_rng(3).choice(len(y), 40, replace=False)
    widths, degrees = (0.5, 2.0, 10.0), (1, 3)
    m = SimpleMKL(gaussian_widths=widths, poly_degrees=degrees, C=10.0).fit(X, partial(y, lab))
    d = m.weights_
    assert np.all(d >= 0) and np.isclose(d.sum(), 1.0)
    XL, Xn = X[lab], X[:25]
    tr = np.array([np.trace(K) for K in ref_kernels(XL, XL, widths, degrees)])
    expect = sum(w / t * K for w, t, K in zip(d, tr, ref_kernels(Xn, XL, widths, degrees)))
    np.testing.assert_allclose(m.kernel(Xn, XL), expect, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(m.kernel_[np.ix_(lab, lab)].trace(), 1.0)


def test_returned_d_minimizes_J(cancer):
    X, y = cancer
    lab = np.random.default_rng(0).choice(len(y), 50, replace=False)
    C = 10.0
    m = SimpleMKL(C=C, tol=1e-4).fit(X, partial(y, lab))
    d = m.weights_
    assert np.all(d >= 0) and abs(d.sum() - 1) < 1e-12
    assert np.sum(d > 0.05) >= 2  # an interior optimum: the test is not about a vertex
    Ks = ref_normalized(X[lab], m.gaussian_widths, m.poly_degrees)
    M = len(Ks)
    J_d = ref_J_total(Ks, d, y[lab], C)
    assert J_d == pytest.approx(m.objective_, rel=1e-5)
    others = [np.eye(M)[k] for k in range(M)] + [np.full(M, 1 / M)]
    others += list(np.random.default_rng(1).dirichlet(np.ones(M), size=10))
    J_others = np.array([ref_J_total(Ks, e, y[lab], C) for e in others])
    assert np.all(J_d <= J_others * (1 + 2e-4))
    assert J_d < J_others[:M].min() * (1 - 1e-3)  # strictly better than any single kernel


@pytest.mark.parametrize("n_classes", [2, 3])
def test_gradient_matches_finite_differences(n_classes):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 4))
    y = np.digitize(
        X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=30),
        np.quantile(X[:, 0], np.linspace(0, 1, n_classes + 1)[1:-1]),
    )
    Ks = ref_normalized(X, (0.5, 2.0, 5.0), (1, 2))
    C, d = 5.0, np.array([0.3, 0.2, 0.1, 0.25, 0.15])
    Y = (
        np.where(y == 1, 1.0, -1.0)[None]
        if n_classes == 2
        else np.where(y[None] == np.arange(n_classes)[:, None], 1.0, -1.0)
    )
    sol = svm_solution(np.tensordot(d, Ks, 1), Y, C, svm_tol=1e-10)
    grad = mkl_gradient(Ks, sol.beta)
    h = 1e-5
    fd = np.array(
        [
            (ref_J_total(Ks, d + h * e, y, C) - ref_J_total(Ks, d - h * e, y, C)) / (2 * h)
            for e in np.eye(len(d))
        ]
    )
    np.testing.assert_allclose(grad, fd, rtol=1e-4)
    assert np.all(grad < 0)


def test_descent_direction_is_feasible_and_descending():
    rng = np.random.default_rng(2)
    for _ in range(20):
        d = rng.dirichlet(np.ones(6))
        d[rng.random(6) < 0.3] = 0.0
        if d.sum() == 0:
            continue
        d /= d.sum()
        g = -rng.random(6)
        D, mu = descent_direction(d, g)
        assert mu == np.argmax(d)
        assert abs(D.sum()) < 1e-12
        assert g @ D <= 1e-15
        r = g - g[mu]
        assert np.all(D[(d == 0) & (r > 0)] == 0)  # no weight may go below 0


def test_informative_kernel_among_noise_kernels():
    """Kernel 0 is linear on the label-bearing feature; the others are Gaussians on noise."""
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(200, 6))
    yy = np.where(Z[:, 0] > 0, 1.0, -1.0)
    Ks = np.array(
        [np.outer(Z[:, 0], Z[:, 0])]
        + [rbf_kernel(Z[:, [j]], gamma=1 / (2 * s**2)) for j in range(1, 6) for s in (0.3, 1.0)]
    )
    tr, te = np.arange(100), np.arange(100, 200)
    scale = 1 / np.einsum("mii->m", Ks[:, tr][:, :, tr])
    Kn = Ks * scale[:, None, None]
    C = 10.0
    res = simplemkl(Kn[:, tr][:, :, tr], yy[tr][None], C)
    assert res.d[0] >= 0.8
    sol = res.solution
    f = np.tensordot(res.d, Kn[:, te][:, :, tr], 1) @ sol.beta[0] + sol.intercept[0]
    acc_mkl = np.mean(np.sign(f) == yy[te])
    svc = SVC(kernel="precomputed", C=C).fit(Kn[0][np.ix_(tr, tr)], yy[tr])
    acc_one = np.mean(svc.predict(Kn[0][np.ix_(te, tr)]) == yy[te])
    assert acc_one > 0.9 and acc_mkl >= acc_one - 0.02


def test_periodic_labels_pick_a_narrow_gaussian():
    """Only Gaussians of width <= 1 resolve labels of period 4 on a line."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 12, size=(300, 1))
    y = (np.sin(x[:, 0] * np.pi / 2) > 0).astype(int)
    lab = rng.choice(300, 60, replace=False)
    unl = np.setdiff1d(np.arange(300), lab)
    C = 100.0
    m = SimpleMKL(C=C).fit(x, partial(y, lab))
    widths = np.array(m.gaussian_widths)
    narrow = np.flatnonzero(widths <= 1.0)
    assert m.weights_[narrow].sum() >= 0.8
    Ks = ref_kernels(x[lab], x[lab], m.gaussian_widths, m.poly_degrees)
    Ku = ref_kernels(x[unl], x[lab], m.gaussian_widths, m.poly_degrees)
    accs = []
    for K, Kx in zip(Ks, Ku):
        s = SVC(kernel="precomputed", C=C).fit(K / np.trace(K), y[lab])
        accs.append(np.mean(s.predict(Kx / np.trace(K)) == y[unl]))
    accs = np.array(accs)
    assert np.delete(accs, narrow).max() < 0.75 < accs[narrow].max()  # the data discriminate
    assert np.mean(m.transduction_[unl] == y[unl]) >= accs.max() - 0.03


def test_multiclass_wine():
    X, y = load_wine(return_X_y=True)
    X = minmax(X)
    rng = np.random.default_rng(0)
    lab = np.concatenate([rng.choice(np.flatnonzero(y == c), 10, replace=False) for c in range(3)])
    yp = partial(y + 1, lab)  # labels 1, 2, 3
    m = make_method("simplemkl").fit(X, yp).best_estimator_  # C selected on the labeled points
    unl = yp == -1
    assert set(np.unique(m.transduction_)) <= set(m.classes_) and m.classes_.tolist() == [1, 2, 3]
    assert np.mean(m.transduction_[unl] == y[unl] + 1) >= 0.8  # chance is 1/3
    F = m.decision_function(X[:7])
    assert F.shape == (7, 3)
    np.testing.assert_array_equal(m.classes_[np.argmax(F, 1)], m.predict(X[:7]))
    # one shared d: the objective is the sum of the three one-vs-rest SVM objectives
    Ks = ref_normalized(X[lab], m.gaussian_widths, m.poly_degrees)
    J_d = ref_J_total(Ks, m.weights_, y[lab], m.C_)
    assert J_d == pytest.approx(m.objective_, rel=1e-5)
    M = len(Ks)
    for e in list(np.eye(M)) + [np.full(M, 1 / M)]:
        assert J_d <= ref_J_total(Ks, e, y[lab], m.C_) * (1 + 0.01)


def test_auto_C_by_cv_on_labeled_points_is_fast(cancer, monkeypatch):
    """Fast = little work, counted (never timed): the 35 fold fits (7 C x 5 folds) share one
    bank of base kernels of the labeled points (``SimpleMKL._fold_predictor``), and the 36
    MKL fits (the fold fits and the refit) together solve a few hundred SVMs."""
    X, y = cancer
    lab = np.sort(np.random.default_rng(4).choice(len(y), 100, replace=False))
    yp = partial(y, lab)
    banks, svm_solves = [], []
    base_kernels, svm_solution = mkl_module.base_kernels, mkl_solver.svm_solution

    def counted_base_kernels(A, B=None, *args, **kwargs):
        banks.append((A.shape[0], None if B is None else B.shape[0]))
        return base_kernels(A, B, *args, **kwargs)

    def counted_svm_solution(*args, **kwargs):
        svm_solves.append(1)
        return svm_solution(*args, **kwargs)

    monkeypatch.setattr(mkl_module, "base_kernels", counted_base_kernels)
    monkeypatch.setattr(mkl_solver, "svm_solution", counted_svm_solution)
    sel = make_method("simplemkl").fit(X, yp)
    # one bank of the labeled points for all 35 fold fits, one for the refit, one cross bank
    # for the transduction; the generic fold rule (clone and fit per fold) computes 72
    assert len(banks) <= 3, banks
    # evaluations of J(d) (one libsvm fit each, two classes) over all 36 MKL fits: 579 today;
    # a solver that stops late goes far beyond (without the duality-gap stop: 6569)
    assert len(svm_solves) <= 1500, len(svm_solves)
    assert isinstance(sel, SelectOnLabeled)
    m = sel.best_estimator_
    scores = sel.cv_results_["mean_test_score"]
    cands = [c["C"] for c in sel.cv_results_["params"]]
    assert sorted(cands) == sorted(C_GRID) and len(scores) == len(C_GRID)
    best = [c for c, s in zip(cands, scores) if s == scores.max()]
    assert m.C_ == max(best)  # ties to the largest C
    unl = yp == -1
    assert np.mean(m.transduction_[unl] == y[unl]) > 0.9
    # the unlabeled points do not enter the fit (supervised): same labeled rows, same fit
    m2 = SimpleMKL(C=m.C_).fit(X[lab], y[lab])
    np.testing.assert_allclose(m2.weights_, m.weights_)
    np.testing.assert_array_equal(m2.predict(X), m.transduction_)


def test_fold_predictor_equals_the_generic_rule(cancer):
    """The fast CV (raw base kernels shared by folds) = clone, set C, fit with the fold hidden."""
    X, y = cancer
    lab = np.sort(np.random.default_rng(7).choice(len(y), 40, replace=False))
    yp = partial(y, lab)
    classes, labeled, y_enc = check_partial_labels(yp)
    est = SimpleMKL()
    cands = [{"C": c} for c in (1e3, 10.0, 0.1)]
    fast = est._fold_predictor(X, labeled, y_enc, ("C",))
    slow = generic_fold_predictor(est, X, yp, labeled, y_enc, classes)
    _, s_fast = score_candidates(cands, fast, y_enc)
    _, s_slow = score_candidates(cands, slow, y_enc)
    np.testing.assert_array_equal(s_fast, s_slow)
    assert est._fold_predictor(X, labeled, y_enc, ("C", "tol")) is None


def test_one_labeled_class_and_bad_parameters_are_refused():
    X = np.random.default_rng(0).normal(size=(10, 2))
    yp = np.array([4, 4, -1, -1, 4, -1, -1, -1, -1, -1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        SimpleMKL().fit(X, yp)
    yp[2] = 5
    for bad in (
        dict(C="auto"),
        dict(C=-1.0),
        dict(tol=0.0),
        dict(max_iter=-1),
        dict(line_search_tol=2.0),
        dict(gaussian_widths=(), poly_degrees=()),
        dict(gaussian_widths=(1.0, -2.0)),
        dict(poly_degrees=(1.5,)),
    ):
        with pytest.raises(ValueError):
            SimpleMKL(**bad).fit(X, yp)


def test_invalid_parameter_rejected_before_any_computation(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("computed before the parameters were checked")

    monkeypatch.setattr(mkl_module, "base_kernels", boom)
    monkeypatch.setattr(mkl_module, "simplemkl", boom)
    X = np.random.default_rng(0).normal(size=(10, 2))
    yp = np.array([0, 1, -1, -1, 0, 1, -1, -1, -1, -1])
    for bad in (dict(C=0.0), dict(gaussian_widths=(0.0,)), dict(poly_degrees=(0,))):
        with pytest.raises(ValueError):
            SimpleMKL(**bad).fit(X, yp)


def test_input_validated_the_sklearn_way():
    X = np.random.default_rng(0).normal(size=(10, 2))
    yp = np.array([0, 1, -1, -1, 0, 1, -1, -1, -1, -1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        SimpleMKL().fit(X, yp[:-1])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SimpleMKL().fit(Xn, yp)
    m = SimpleMKL(C=10.0).fit(X.tolist(), yp.tolist())  # lists are fine
    assert m.n_features_in_ == 2
    with pytest.raises(ValueError, match="features"):
        m.predict(np.ones((3, 5)))


def _two_class_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    lab = np.concatenate([np.flatnonzero(y == 0)[:10], np.flatnonzero(y == 1)[:10]])
    return X, partial(y, lab)


def test_solves_are_recorded_and_a_certified_fit_has_no_note():
    X, yp = _two_class_problem()
    m = SimpleMKL(C=10.0).fit(X, yp)
    assert m.converged_
    assert m.fit_report_.solvers == ["simplemkl-reduced-gradient", "libsvm"]
    assert m.fit_report_.notes == []


def test_max_iter_stop_is_a_reported_fallback():
    X, yp = _two_class_problem()
    m = SimpleMKL(C=10.0, tol=1e-12, max_iter=1).fit(X, yp)
    assert not m.converged_ and m.duality_gap_ > 1e-12
    (note,) = m.fit_report_.fallbacks
    assert "max_iter=1" in note and "duality gap" in note


def test_line_search_floor_stop_is_a_reported_fallback(monkeypatch):
    """Force the descent step to never decrease J: the solver stops at the line-search floor."""
    monkeypatch.setattr(mkl_solver, "_descent_step", lambda d, D, mu, sol, ev, tol: (d, sol))
    X, yp = _two_class_problem()
    m = SimpleMKL(C=10.0, tol=1e-12).fit(X, yp)
    assert not m.converged_
    (note,) = m.fit_report_.fallbacks
    assert "no decrease of J" in note


def test_constant_prediction_is_reported_degenerate():
    """Unit-trace kernels with a tiny C: every alpha at its bound, one class everywhere."""
    X, yp = _two_class_problem()
    yp[np.flatnonzero(yp == 1)[:7]] = -1  # 10 against 3 labeled points
    m = SimpleMKL(C=1e-3).fit(X, yp)
    assert np.unique(m.transduction_).size == 1
    assert any("constant prediction" in n for n in m.fit_report_.degenerate)
