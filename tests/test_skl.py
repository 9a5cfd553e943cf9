"""Mao & Tsang's spectral kernel learning (SKL, SKL_KTA) against independent computations.

* Prop. 2: ``lambda*`` of eq. (8) against a bound-constrained numerical minimizer of
  Problem (7)'s objective, written with dense matrices straight from the problem statement;
* Prop. 3: ``mu*`` of eq. (10) against a one-dimensional search of the kernel-target
  alignment computed from the kernel matrices (Frobenius products) — on an instance where
  its stationary point is a maximum — and, on graph data, what the alignment does instead;
* Prop. 4: eq. (10) substituted into eq. (8), dense RLS on ``(K̄ - I) / C``, and SKL
  (Algorithm 2) at several ``(C, mu)`` give SKL_KTA's decision function;
* the learned kernels are psd; multi-class (wine) and two moons are classified well; the
  spectrum is computed once per data set;
* the new estimator layer: SKL's (C, mu) selection by ``SelectOnLabeled`` keeps today's
  candidate order and tie rule; the Cholesky -> least-squares fallback and a zero kernel
  are reported in ``fit_report_``; invalid parameters and X/y length mismatches fail
  before any computation.
"""

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar
from sklearn.base import clone
from sklearn.datasets import load_wine, make_moons
from sklearn.preprocessing import minmax_scale

import sskernels.graph.graphs as graph_mod
import sskernels.solvers.psd as psd
from sskernels.graph import KNNGraph, get_graph
from sskernels.learners.registry import make_method
from sskernels.learners.selection import SelectOnLabeled, generic_fold_predictor, labeled_folds
from sskernels.learners.skl import (
    C_GRID,
    MU_GRID,
    SpectralKernelLearning,
    SpectralKernelLearningKTA,
    kta_free_coefficients,
    kta_mu,
    label_targets,
    skl_coefficients,
    spectral_A,
    spectral_alignment,
    spectral_B,
)


# ---------------------------------------------------------------------------- helpers


def orthonormal(n, rng):
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return Q


def padded(n, labeled, Y_l):
    """``[Y_l; 0]``: the labels of Prop. 1, zero on the unlabeled points (n, c)."""
    Y = np.zeros((n, Y_l.shape[1]))
    Y[labeled] = Y_l
    return Y


def frobenius_kta(K, Y):
    """KTA(K, Y Y^T) = <K, YY^T>_F / sqrt(<K, K>_F <YY^T, YY^T>_F) (Cristianini et al.)."""
    T = Y @ Y.T
    denom = np.sqrt(np.sum(K * K) * np.sum(T * T))
    return np.sum(K * T) / denom if denom > 0 else 0.0  # K = 0 (all lambda clipped)


def moons(n=200, seed=0, per_class=3):
    X, y = make_moons(n, noise=0.1, random_state=0)
    rng = np.random.default_rng(seed)
    lab = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), per_class, replace=False) for c in (0, 1)]
    )
    yp = np.full(n, -1)
    yp[lab] = y[lab]
    return X, y, yp, np.sort(lab)


GRAPH = dict(graph=KNNGraph(n_neighbors=10, weights="heat", sigma=None))


def skl_selected(**params):
    """SKL with C and mu selected on the labeled points: the ``skl`` method's default."""
    return SelectOnLabeled(SpectralKernelLearning(**params), random_state=0)


# ---------------------------------------------------------------------------- Prop. 2


@pytest.mark.parametrize("multiclass", [False, True])
def test_prop2_lambda_is_the_minimizer_of_problem_7(multiclass):
    """eq. (8) = argmin over lambda >= 0 of 1/2 tr(Y^T (U S U^T + I/C)^-1 Y) + mu tr(U S U^T L)."""
    rng = np.random.default_rng(3)
    n, p, eps, C, mu = 9, 2, 1e-3, 2.0, 0.2
    U = orthonormal(n, rng)
    gamma = np.sort(np.r_[0.0, rng.uniform(0.05, 1.9, n - 1)])
    L = U @ np.diag(gamma) @ U.T  # "the Laplacian"
    Lp = np.linalg.matrix_power(L, p) + eps * np.eye(n)  # L^p with the ridge
    labeled = np.array([0, 3, 5, 7])
    y_enc = np.array([0, 1, 2, 1]) if multiclass else np.array([0, 1, 1, 0])
    c = y_enc.max() + 1
    Y_l = label_targets(np.eye(c)[y_enc])
    assert Y_l.shape[1] == (3 if multiclass else 1)
    Y = padded(n, labeled, Y_l)

    def objective(lam):
        K = U @ np.diag(lam) @ U.T
        return 0.5 * np.trace(Y.T @ np.linalg.inv(K + np.eye(n) / C) @ Y) + mu * np.trace(K @ Lp)

    lam_star = skl_coefficients(spectral_A(U[labeled], Y_l), spectral_B(gamma, p, eps), C, mu)
    assert np.any(lam_star == 0) and np.any(lam_star > 0)  # the projection matters here
    best = min(
        (
            minimize(
                objective,
                x0,
                method="L-BFGS-B",
                bounds=[(0, None)] * n,
                options=dict(ftol=1e-15, gtol=1e-12, maxiter=10000),
            )
            for x0 in (np.ones(n), np.full(n, 0.1), rng.uniform(0, 3, n))
        ),
        key=lambda r: r.fun,
    )
    assert objective(lam_star) <= best.fun + 1e-10
    np.testing.assert_allclose(lam_star, best.x, rtol=2e-4, atol=2e-4)


# ---------------------------------------------------------------------------- Prop. 3


def kta_instance(seed, n=10):
    """A random instance whose alignment has an interior maximum over mu.

    ``B_ii`` is drawn so that ``sqrt(A_ii / (2 B_ii))`` roughly follows ``A_ii`` (then the
    stationary point of the alignment lies at positive ``1/sqrt(mu)``).  With seeds 1 and 5
    no ``lambda_i(mu*)`` is negative, so the projection ``[.]_+`` is inactive at ``mu*``;
    with seed 0 some are.
    """
    rng = np.random.default_rng(seed)
    U = orthonormal(n, rng)
    labeled = np.array([1, 2, 4, 8])
    y = np.array([1.0, -1.0, 1.0, -1.0])[:, None]
    A = (U[labeled].T @ y).ravel() ** 2  # diag(U_l^T y y^T U_l), by hand
    B = rng.uniform(0.8, 1.2, n) / A
    return U, labeled, y, A, B


@pytest.mark.parametrize("C", [0.3, 1.0, 5.0])
@pytest.mark.parametrize("seed", [0, 1, 5])
def test_prop3_mu_maximizes_the_alignment(seed, C):
    U, labeled, y, A, B = kta_instance(seed)
    Y = padded(U.shape[0], labeled, y)

    def kta_of(log_mu, project):
        lam = np.sqrt(A / (2 * 10.0**log_mu * B)) - 1 / C  # eq. (8)
        if project:
            lam = np.maximum(lam, 0.0)
        return frobenius_kta(U @ np.diag(lam) @ U.T, Y)

    mu_star = kta_mu(A, B, C)
    log_star = np.log10(mu_star)
    clipped = np.any(np.sqrt(A / (2 * mu_star * B)) - 1 / C < 0)
    assert clipped == (seed == 0)
    # the alignment of the proof (eq. (8) without [.]_+): mu* is its maximizer
    # the projected one (the kernel actually used): where nothing is clipped at mu*, too
    for project in (False, True) if not clipped else (False,):
        grid = np.linspace(log_star - 6, log_star + 6, 6001)
        values = np.array([kta_of(g, project) for g in grid])
        assert kta_of(log_star, project) >= values.max() - 1e-12
        res = minimize_scalar(
            lambda g: -kta_of(g, project),  # noqa: B023 (called here)
            bounds=(log_star - 2, log_star + 2),
            method="bounded",
            options=dict(xatol=1e-10),
        )
        assert abs(res.x - log_star) < 1e-4
    # the closed form of the alignment (Sec. 4.2) is the Frobenius one
    lam = np.sqrt(A / (2 * mu_star * B)) - 1 / C
    assert spectral_alignment(lam, A, y) == pytest.approx(
        frobenius_kta(U @ np.diag(lam) @ U.T, Y), rel=1e-12
    )


def test_on_graph_data_the_alignment_grows_as_mu_goes_to_zero_toward_kbar():
    """A finding, not a claim of the paper: on a real graph (here two moons, and likewise
    g50c, Digit1, COIL), eq. (10)'s stationary point lies at *negative* 1/sqrt(mu), so its
    mu* is not a maximizer; the alignment increases as mu -> 0 toward that of SKL_KTA's
    K̄ (lambda proportional to sqrt(A/(2B))), which is the supremum."""
    X, y, yp, lab = moons()
    m = SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH).fit(X, yp)
    U, A, B, Y_l = m.eigenvectors_, m.A_, m.B_, m.targets_
    Y = padded(U.shape[0], lab, Y_l)
    kbar = frobenius_kta(m.kernel_, Y)
    assert m.alignment_ == pytest.approx(kbar, rel=1e-10)
    a = np.sqrt(A / (2 * B))
    for C in (0.1, 1.0, 10.0):
        x, yb, z, u = np.sum(A * a), np.sum(a * a), np.sum(a) / C, np.sum(A) / C
        s_star = (u * z - A.size / C**2 * x) / (u * yb - z * x)  # 1/sqrt(mu) at dKTA = 0
        assert s_star < 0
        mus = np.logspace(-12, 4, 33)
        values = [frobenius_kta(U @ np.diag(skl_coefficients(A, B, C, mu)) @ U.T, Y) for mu in mus]
        assert max(values) <= kbar + 1e-9
        assert values[0] == pytest.approx(kbar, abs=1e-4)
        assert (
            frobenius_kta(U @ np.diag(skl_coefficients(A, B, C, kta_mu(A, B, C))) @ U.T, Y) < kbar
        )


# ---------------------------------------------------------------------------- Prop. 4


def test_prop4_eq10_into_eq8_gives_kbar():
    """sqrt(A/(2 mu* B)) - 1/C = (lambda̅ - 1) / C for every C (the proof of Prop. 4)."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        A, B = rng.uniform(0, 1, 30), rng.uniform(1e-3, 2, 30)
        lam_bar = kta_free_coefficients(A, B)
        for C in (1e-2, 1.0, 1e3):
            mu = kta_mu(A, B, C)
            np.testing.assert_allclose(
                np.sqrt(A / (2 * mu * B)) - 1 / C, (lam_bar - 1) / C, rtol=1e-9, atol=1e-12
            )


def test_prop4_decision_is_rls_on_kbar_minus_identity_for_any_C():
    X, y, yp, lab = moons()
    m = SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH).fit(X, yp)
    n = X.shape[0]
    y_l = np.where(y[lab] == 1, 1.0, -1.0)
    for C in (1e-3, 1.0, 1e3):
        K = (m.kernel_ - np.eye(n)) / C  # Prop. 4's proof
        f = K[:, lab] @ np.linalg.solve(K[np.ix_(lab, lab)] + np.eye(lab.size) / C, y_l)
        np.testing.assert_allclose(m.scores_[:, 1], f, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(m.scores_[:, 0], -f, rtol=1e-6, atol=1e-8)


def test_prop4_skl_at_any_unclipped_C_mu_predicts_as_skl_kta():
    """Algorithm 2 with (C, mu) that clip no lambda (mu <= C^2 min A/(2B)) = Algorithm 1."""
    X, y, yp, lab = moons()
    kta = SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH).fit(X, yp)
    unl = np.setdiff1d(np.arange(X.shape[0]), lab)
    a2_min = np.min(kta.A_ / (2 * kta.B_))
    for C in (0.1, 1.0, 100.0):
        for frac in (0.5, 1e-3):
            mu = frac * C**2 * a2_min
            skl = SpectralKernelLearning(C=C, mu=mu, laplacian_degree=2, **GRAPH).fit(X, yp)
            assert np.all(skl.lambda_ > 0)
            np.testing.assert_allclose(skl.scores_[unl], kta.scores_[unl], rtol=1e-5, atol=1e-7)
            np.testing.assert_array_equal(skl.transduction_[unl], kta.transduction_[unl])


# ---------------------------------------------------------------------------- properties


@pytest.mark.parametrize(
    "make",
    [
        lambda: SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH),
        lambda: SpectralKernelLearning(C=1.0, mu=1.0, **GRAPH),
        lambda: SpectralKernelLearning(C=10.0, mu=1e-4, laplacian_degree=5, **GRAPH),
    ],
)
def test_learned_kernel_is_psd(make):
    X, y, yp, lab = moons()
    m = make().fit(X, yp)
    K = m.kernel_
    assert K.shape == (X.shape[0],) * 2
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    w = np.linalg.eigvalsh(K)
    assert w.min() >= -1e-10 * max(w.max(), 1.0)
    assert np.all(m.lambda_ >= 0)
    np.testing.assert_allclose(m.kernel(lab, lab), K[np.ix_(lab, lab)], atol=1e-12)


def test_binary_targets_are_plus_minus_one():
    X, y, yp, lab = moons()
    m = SpectralKernelLearningKTA(**GRAPH).fit(X, yp)
    y_pm = np.where(y[lab] == 1, 1.0, -1.0)
    np.testing.assert_allclose(m.A_, (m.eigenvectors_[lab].T @ y_pm) ** 2, atol=1e-14)
    np.testing.assert_allclose(m.B_, m.eigenvalues_ + 1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_moons_with_three_labels_per_class(seed):
    X, y, yp, lab = moons(seed=seed)
    unl = yp == -1
    for m in (
        SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH),
        skl_selected(laplacian_degree=2, **GRAPH),
    ):
        m.fit(X, yp)
        assert np.mean(m.transduction_[unl] == y[unl]) >= 0.9, type(m).__name__


def test_multiclass_wine():
    X, y = load_wine(return_X_y=True)
    X = minmax_scale(X)
    rng = np.random.default_rng(0)
    lab = [rng.choice(np.flatnonzero(y == c)) for c in range(3)]
    rest = rng.permutation(np.setdiff1d(np.arange(y.size), lab))
    lab = np.r_[lab, rest[:17]]
    yp = np.full(y.size, -1)
    yp[lab] = y[lab]
    unl = yp == -1
    chance = np.bincount(y).max() / y.size
    g6 = KNNGraph(n_neighbors=6, weights="heat")
    for m in (
        SpectralKernelLearningKTA(graph=g6, laplacian_degree=2),
        skl_selected(graph=g6, laplacian_degree=2),
        SpectralKernelLearningKTA(graph=g6, laplacian_degree=2, targets="signed"),
    ):
        m.fit(X, yp)
        fitted = getattr(m, "best_estimator_", m)
        assert fitted.scores_.shape == (y.size, 3)
        assert fitted.targets_.shape == (20, 3)
        acc = np.mean(m.transduction_[unl] == y[unl])
        assert acc > max(0.8, chance), (type(m).__name__, acc)


def test_spectrum_is_computed_once_per_data_set(monkeypatch):
    calls = []
    real = graph_mod.laplacian_spectrum
    monkeypatch.setattr(
        graph_mod, "laplacian_spectrum", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    X, y, _, _ = moons()
    for seed in range(4):
        _, _, yp, _ = moons(seed=seed)
        SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH).fit(X, yp)
        SpectralKernelLearning(C=1.0, mu=0.1, laplacian_degree=5, **GRAPH).fit(X, yp)
    assert len(calls) == 1
    g = get_graph(X, k=10, weights="heat", sigma=None)
    assert g.spectrum().complete


def test_truncated_spectrum():
    X, y, yp, lab = moons()
    m = SpectralKernelLearningKTA(n_components=40, laplacian_degree=2, **GRAPH).fit(X, yp)
    assert m.lambda_.shape == (40,) and m.eigenvectors_.shape == (200, 40)
    np.testing.assert_array_equal(m.eigenvalues_, np.sort(m.eigenvalues_))
    unl = yp == -1
    assert np.mean(m.transduction_[unl] == y[unl]) >= 0.9


def test_auto_selection_uses_the_grids_and_skips_degenerate_kernels():
    X, y, yp, lab = moons(per_class=5)
    m = make_method("skl", n_neighbors=10, weights="heat")
    assert isinstance(m, SelectOnLabeled) and m.n_folds == 5 and m.protocol == "kfold"
    # today's order: ties to the largest C, then the smallest mu
    assert m.param_grid == {"C": sorted(C_GRID, reverse=True), "mu": sorted(MU_GRID)}
    m.fit(X, yp)
    fitted = m.best_estimator_
    assert fitted.C_ in C_GRID and fitted.mu_ in MU_GRID
    assert (fitted.C_, fitted.mu_) == (m.best_params_["C"], m.best_params_["mu"])
    scores = m.cv_results_["mean_test_score"]
    assert len(scores) == len(C_GRID) * len(MU_GRID)
    tied = [p for p, s in zip(m.cv_results_["params"], scores) if s == scores.max()]
    assert m.best_params_ == max(tied, key=lambda p: (p["C"], -p["mu"]))
    assert np.any(fitted.lambda_ > 0)
    only_mu = make_method("skl", C=10.0, n_neighbors=10, weights="heat").fit(X, yp)
    assert only_mu.best_estimator_.C_ == 10.0 and len(only_mu.cv_results_["params"]) == 7
    assert isinstance(make_method("skl", C=1.0, mu=0.1), SpectralKernelLearning)


def _old_selection(U_l, Y_l, B, y_enc, n_classes, n_folds=5):
    """Today's (pre-wrapper) rule, written out: candidates C ascending x mu descending,
    k-fold on the labeled points, an all-clipped candidate counts every point wrong, ties
    to the LAST candidate."""
    cands = [(c, m) for c in sorted(C_GRID) for m in sorted(MU_GRID, reverse=True)]
    folds = labeled_folds(y_enc, n_folds, 0)
    scores = []
    for c, m in cands:
        correct = 0
        for test in folds:
            train = np.setdiff1d(np.arange(y_enc.size), test)
            lam = skl_coefficients(spectral_A(U_l[train], Y_l[train]), B, c, m)
            if not np.any(lam > 0):
                continue
            K = (U_l * lam) @ U_l.T
            alpha = np.linalg.solve(K[np.ix_(train, train)] + np.eye(train.size) / c, Y_l[train])
            F = K[np.ix_(test, train)] @ alpha
            F = np.hstack([-F, F]) if n_classes == 2 else F
            correct += int(np.sum(F.argmax(axis=1) == y_enc[test]))
        scores.append(correct / y_enc.size)
    scores = np.asarray(scores)
    return cands[np.flatnonzero(scores == scores.max())[-1]], scores


@pytest.mark.parametrize("seed", [0, 1])
def test_selection_reproduces_todays_candidate_order_and_tie_rule(seed):
    X, y, yp, lab = moons(per_class=5, seed=seed)
    m = make_method("skl", laplacian_degree=2, n_neighbors=10, weights="heat").fit(X, yp)
    fitted = m.best_estimator_
    y_enc = y[lab]
    Y_l = np.where(y_enc == 1, 1.0, -1.0)[:, None]
    best, scores = _old_selection(fitted.eigenvectors_[lab], Y_l, fitted.B_, y_enc, 2)
    np.testing.assert_allclose(m.cv_results_["mean_test_score"][::-1], scores)
    assert (fitted.C_, fitted.mu_) == best


def test_fold_predictor_equals_the_generic_rule_where_no_lambda_is_clipped():
    X, y, yp, lab = moons(per_class=5)
    est = SpectralKernelLearning(laplacian_degree=2, **GRAPH)
    fast = est._fold_predictor(X, lab, y[lab], ("C", "mu"))
    slow = generic_fold_predictor(est, X, yp, lab, y[lab], np.arange(2))
    assert est._fold_predictor(X, lab, y[lab], ("C", "epsilon")) is None
    for test in labeled_folds(y[lab], 5, 0):
        train = np.setdiff1d(np.arange(lab.size), test)
        for params in ({"C": 1000.0, "mu": 1e-6}, {"C": 1.0, "mu": 1e-2}, {"C": 10.0, "mu": 1.0}):
            np.testing.assert_array_equal(fast(params, train, test), slow(params, train, test))
    # a candidate that clips every lambda counts every fold point wrong
    assert np.all(fast({"C": 1e-3, "mu": 100.0}, train, test) == -1)


def test_estimator_conventions_and_validation(monkeypatch):
    X, y, yp, lab = moons()
    m = SpectralKernelLearning(C=3.0, mu=0.2, laplacian_degree=2, epsilon=1e-4)
    assert clone(m).get_params() == m.get_params()
    built = []
    monkeypatch.setattr(graph_mod, "knn_graph", lambda *a, **k: built.append(1))
    for bad in (
        dict(epsilon=0.0),
        dict(laplacian_degree=0),
        dict(C=-1.0),
        dict(mu="best"),
        dict(C="auto"),
        dict(n_components=0),
        dict(targets="onehot"),
        dict(graph="knn"),
    ):
        with pytest.raises(ValueError, match=list(bad)[0]):
            SpectralKernelLearning(**{**GRAPH, **bad}).fit(X, yp)
    with pytest.raises(ValueError, match="epsilon"):
        SpectralKernelLearningKTA(**GRAPH, epsilon=-1).fit(X, yp)
    assert built == []  # every parameter is checked before the graph
    monkeypatch.undo()
    fitted = SpectralKernelLearningKTA(**GRAPH).fit(X, yp)
    assert not hasattr(fitted, "predict")  # transductive only (available_if)
    with pytest.raises(AttributeError, match="has no attribute 'predict'"):
        fitted.predict(X[:3])


@pytest.mark.parametrize(
    "make",
    [
        lambda: SpectralKernelLearningKTA(**GRAPH),
        lambda: SpectralKernelLearning(**GRAPH),
        lambda: make_method("skl"),
    ],
)
def test_length_mismatch_and_bad_input_are_rejected(make):
    X, y, yp, lab = moons()
    with pytest.raises(ValueError, match="inconsistent numbers of samples|rows but y has"):
        make().fit(X, yp[:-1])
    Xn = X.copy()
    Xn[5, 0] = np.inf
    with pytest.raises(ValueError, match="infinity|NaN"):
        make().fit(Xn, yp)
    one = np.full(y.size, -1)
    one[lab] = 1
    with pytest.raises(ValueError, match="at least 2 classes"):
        make().fit(X, one)


@pytest.mark.parametrize(
    "make",
    [
        lambda: SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH),
        lambda: SpectralKernelLearning(C=10.0, mu=1e-4, laplacian_degree=2, **GRAPH),
    ],
)
def test_least_squares_fallback_is_reported(make, monkeypatch):
    """Cholesky fails (forced): the least-squares answer is used and fit_report_ says so."""
    from scipy.linalg import LinAlgError

    X, y, yp, lab = moons()
    ref = make().fit(X, yp)
    assert ref.fit_report_.solvers == ["cholesky"] and ref.fit_report_.notes == []

    def failing_solve(*args, **kwargs):
        raise LinAlgError("2-th leading minor of the array is not positive definite")

    monkeypatch.setattr(psd, "solve", failing_solve)
    est = make().fit(X, yp)
    assert est.fit_report_.solvers == ["lstsq"]
    (note,) = est.fit_report_.fallbacks
    assert note.startswith("fallback: RLS cholesky->lstsq") and "not positive definite" in note
    np.testing.assert_allclose(est.scores_, ref.scores_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(est.transduction_, ref.transduction_)


def test_zero_kernel_is_reported_degenerate():
    X, y, yp, lab = moons()
    est = SpectralKernelLearning(C=1e-3, mu=100.0, laplacian_degree=2, **GRAPH).fit(X, yp)
    assert not np.any(est.lambda_ > 0)
    assert est.fit_report_.degenerate[0] == (
        "degenerate: zero kernel: every lambda* of eq. (8) is clipped to 0"
    )
    assert any(n.startswith("degenerate: constant prediction") for n in est.fit_report_.degenerate)
    assert SpectralKernelLearning(**GRAPH).fit(X, yp).fit_report_.degenerate == []


def test_kta_undefined_scale_is_reported_degenerate(monkeypatch):
    """Prop. 4's factor 0/0 (taken as 1: it only scales K-bar) is reported."""
    import sskernels.learners.skl as skl

    X, y, yp, lab = moons()
    ref = SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH).fit(X, yp)
    monkeypatch.setattr(skl, "kta_scale", lambda A, B: None)
    est = SpectralKernelLearningKTA(laplacian_degree=2, **GRAPH).fit(X, yp)
    assert len(est.fit_report_.degenerate) == 1 and "taken as 1" in est.fit_report_.notes[0]
    unl = yp == -1
    np.testing.assert_array_equal(est.transduction_[unl], ref.transduction_[unl])


def test_precomputed_graph_equals_the_feature_graph():
    X, y, yp, lab = moons()
    W = get_graph(X, k=10, weights="heat").W
    for make in (
        lambda g: SpectralKernelLearningKTA(graph=g, laplacian_degree=2),
        lambda g: SpectralKernelLearning(graph=g, C=10.0, mu=1e-3),
    ):
        feat = make(None).fit(X, yp)
        pre = make("precomputed").fit(W, yp)
        np.testing.assert_array_equal(pre.transduction_, feat.transduction_)
        np.testing.assert_allclose(pre.scores_, feat.scores_, rtol=1e-8, atol=1e-10)
