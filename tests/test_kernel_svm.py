"""KernelSVM: an SVM on the labeled block of a learned kernel (Liu et al. 2009, Sec. 5)."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_wine
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import minmax_scale
from sklearn.svm import SVC

import sskernels.learners.fitted as fitted_memo
import sskernels.learners.kernel_machines as km
from sskernels.experiment.splits import random_split
from sskernels.graph import Graph, KNNGraph
from sskernels.learners.kernel_machines import C_GRID, KernelSVM
from sskernels.learners.registry import make_method
from sskernels.learners.selection import SelectOnLabeled, labeled_folds
from sskernels.learners.spectral import BETA_GRID, TransductiveSpectralKernel
from sskernels.solvers.report import FitReport


@pytest.fixture(scope="module")
def wine_split():
    X, y = load_wine(return_X_y=True)
    X = minmax_scale(X)
    lab = random_split(y, 20, 0, 0)
    yp = np.full(y.size, -1)
    yp[lab] = y[lab]
    return X, y, yp, lab


@pytest.fixture(autouse=True)
def _fresh_cache():
    fitted_memo.clear_cache()
    yield
    fitted_memo.clear_cache()


def test_spec_hook_builds_the_kernel_learner_with_the_spec_graph():
    est = make_method(
        "kernel-svm",
        kernel="tsk",
        kernel_params={"n_components": 10, "eta": 2, "beta": "auto"},
        n_neighbors=5,
        weights="hein-maier",
        sigma=None,
        metric="euclidean",
    )
    # C selected (smallest C on ties) with the kernel learner inside: beta selected too
    assert isinstance(est, SelectOnLabeled) and est.param_grid == {"C": list(C_GRID)}
    svm = est.estimator
    assert isinstance(svm, KernelSVM)
    inner = svm.kernel_learner
    assert isinstance(inner, SelectOnLabeled)
    assert inner.param_grid == {"beta": sorted(BETA_GRID, reverse=True)}
    tsk = inner.estimator
    assert isinstance(tsk, TransductiveSpectralKernel)
    assert (tsk.n_components, tsk.eta) == (10, 2)
    assert tsk.graph.get_params() == KNNGraph(5, "hein-maier").get_params()
    # a fixed C is no selection; a method without a kernel is refused
    assert isinstance(make_method("kernel-svm", kernel="tsk", C=3.0), KernelSVM)
    with pytest.raises(ValueError, match="does not learn a kernel"):
        make_method("kernel-svm", kernel="harmonic")


def test_nested_parameters_and_grid_search(wine_split):
    X, y, _, _ = wine_split
    est = KernelSVM(TransductiveSpectralKernel(graph=KNNGraph(), n_components=10), C=1.0)
    params = est.get_params(deep=True)
    assert {
        "kernel_learner__beta",
        "kernel_learner__eta",
        "kernel_learner__graph__n_neighbors",
        "C",
    } <= set(params)
    est.set_params(kernel_learner__eta=3, kernel_learner__graph__n_neighbors=8)
    assert est.kernel_learner.eta == 3 and est.kernel_learner.graph.n_neighbors == 8
    # scikit-learn's GridSearchCV tunes the kernel learner's beta and the SVM's C together
    sub = np.random.default_rng(0).choice(y.size, 90, replace=False)
    grid = {"kernel_learner__beta": [0.1, 10.0], "C": [1.0, 10.0]}
    gs = GridSearchCV(KernelSVM(TransductiveSpectralKernel(n_components=10)), grid, cv=3)
    gs.fit(X[sub], y[sub])
    assert len(gs.cv_results_["params"]) == 4
    best = gs.best_estimator_
    assert best.kernel_learner.beta in (0.1, 10.0) and best.C in (1.0, 10.0)
    assert gs.score(X, y) > 0.8


def test_selected_C_equals_an_independent_cv_on_the_fixed_kernel(wine_split):
    """C by 5-fold CV on the labeled block of ONE learned kernel; ties to the smallest C."""
    X, y, yp, lab = wine_split
    sel = make_method("kernel-svm", kernel="tsk", kernel_params={"n_components": 10, "beta": 10.0})
    sel.fit(X, yp)
    K = TransductiveSpectralKernel(n_components=10, beta=10.0).fit(X, yp).kernel_
    K = K / np.mean(np.diag(K))
    lab = np.flatnonzero(yp != -1)
    K_LL, y_L = K[np.ix_(lab, lab)], yp[lab]
    folds = labeled_folds(y_L, 5, 0)
    scores = []
    for C in C_GRID:
        correct = 0
        for test in folds:
            train = np.setdiff1d(np.arange(lab.size), test)
            svc = SVC(kernel="precomputed", C=C).fit(K_LL[np.ix_(train, train)], y_L[train])
            correct += np.sum(svc.predict(K_LL[np.ix_(test, train)]) == y_L[test])
        scores.append(correct / lab.size)
    np.testing.assert_allclose(sel.cv_results_["mean_test_score"], scores)
    assert sel.best_params_["C"] == C_GRID[int(np.argmax(scores))]
    best = sel.best_estimator_
    assert best.C_ == sel.best_params_["C"]
    svc = SVC(kernel="precomputed", C=best.C_).fit(K_LL, y_L)
    np.testing.assert_array_equal(sel.transduction_, svc.predict(K[:, lab]))


class CountingTSK(TransductiveSpectralKernel):
    fits = 0

    def fit(self, X, y):
        type(self).fits += 1
        return super().fit(X, y)


def test_the_selection_fits_the_kernel_learner_once(wine_split):
    X, _, yp, _ = wine_split
    CountingTSK.fits = 0
    sel = SelectOnLabeled(
        KernelSVM(CountingTSK(beta=10.0)), {"C": list(C_GRID)}, random_state=0
    ).fit(X, yp)
    assert CountingTSK.fits == 1  # the final refit found the selection's fit
    # another labeling is another fit
    yp2 = yp.copy()
    yp2[np.flatnonzero(yp2 != -1)[0]] = -1
    KernelSVM(CountingTSK(beta=10.0), C=sel.best_params_["C"]).fit(X, yp2)
    assert CountingTSK.fits == 2


def test_precompute_reaches_the_kernel_learner(wine_split):
    X = wine_split[0]
    est = make_method("kernel-svm", kernel="tsk", kernel_params={"beta": "auto"})
    assert isinstance(est.precompute(X), Graph)


class LinearKernelLearner(BaseEstimator):
    """A minimal kernel learner: the linear kernel (times ``factor``) and a fit report."""

    def __init__(self, factor=1.0, note=None):
        self.factor = factor
        self.note = note

    def fit(self, X, y):
        self.X_ = np.asarray(X)
        self.fit_report_ = FitReport()
        if self.note:
            self.fit_report_.note("fallback", self.note)
        return self

    def kernel(self, A=None, B=None):
        A = self.X_ if A is None else A
        B = self.X_ if B is None else B
        return self.factor * (A @ B.T)

    @property
    def kernel_(self):
        return self.kernel()


def test_any_kernel_learner_and_its_report_is_merged(wine_split):
    X, y, yp, lab = wine_split
    est = KernelSVM(LinearKernelLearner(note="toy solver a->b"), C=10.0).fit(X, yp)
    K = X @ X.T
    K = K / np.mean(np.diag(K))
    svc = SVC(kernel="precomputed", C=10.0).fit(K[np.ix_(lab, lab)], y[lab])
    np.testing.assert_array_equal(est.transduction_, svc.predict(K[:, lab]))
    np.testing.assert_array_equal(est.predict(X[:9]), svc.predict(K[:9][:, lab]))
    np.testing.assert_allclose(est.decision_function(X[:9]), svc.decision_function(K[:9][:, lab]))
    assert est.fit_report_.fallbacks == ["fallback: kernel: toy solver a->b"]
    assert "libsvm" in est.fit_report_.solvers


def test_zero_kernel_is_reported_degenerate(wine_split):
    X, _, yp, _ = wine_split
    est = KernelSVM(LinearKernelLearner(factor=0.0)).fit(X, yp)
    assert est.kernel_scale_ == 1.0
    notes = est.fit_report_.degenerate
    assert any("zero diagonal" in n for n in notes)
    assert any("constant prediction" in n for n in notes)


class ExplodingLearner(LinearKernelLearner):
    def fit(self, X, y):
        raise AssertionError("the kernel learner ran before the parameters were checked")


@pytest.mark.parametrize("bad", [dict(C=0.0), dict(C="auto"), dict(kernel_learner="tsk")])
def test_invalid_parameter_rejected_before_any_computation(wine_split, bad):
    X, _, yp, _ = wine_split
    params = {"kernel_learner": ExplodingLearner(), **bad}
    with pytest.raises(ValueError):
        KernelSVM(**params).fit(X, yp)


def test_input_validated_the_sklearn_way(wine_split):
    X, _, yp, _ = wine_split
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        KernelSVM(ExplodingLearner()).fit(X, yp[:-1])
    one_class = np.where(yp == 2, 1, yp)
    one_class = np.where(one_class == 0, 1, one_class)
    with pytest.raises(ValueError, match="at least 2 classes"):
        KernelSVM(ExplodingLearner()).fit(X, one_class)
    est = KernelSVM(TransductiveSpectralKernel(beta=10.0)).fit(X.tolist(), yp.tolist())
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:3, :5])
    assert clone(est).get_params()["kernel_learner"].beta == 10.0


def test_libsvm_iteration_cap_is_reported(monkeypatch):
    """libsvm not converging within its iteration budget (an uncapped fit once ran > 10 min)
    hands the SVM to the exact solver, a recorded fallback, in the final fit and in the C
    selection's fold fits."""
    import sskernels.learners.kernel_machines as km
    from sklearn.datasets import make_moons

    from sskernels.learners.registry import make_method

    monkeypatch.setattr(km, "SVM_ITER_PER_PAIR", 2)
    X, y = make_moons(120, noise=0.1, random_state=0)
    yp = np.full(120, -1)
    yp[:20] = y[:20]
    est = km.KernelSVM(C=100.0).fit(X, yp)
    assert any(
        "converge in 2 iterations" in n and "interior point" in n for n in est.fit_report_.notes
    )
    assert "interior-point" in est.fit_report_.solvers
    assert est.predict(X[:7]).shape == (7,) and est.decision_function(X[:7]).shape == (7,)
    np.testing.assert_array_equal(est.predict(X[:20]), est.transduction_[:20])
    sel = make_method("kernel-svm", C_grid=[1.0, 100.0]).fit(X, yp)
    assert any(n.startswith("fallback: cv: libsvm did not") for n in sel.fit_report_.notes)
    monkeypatch.setattr(km, "SVM_ITER_PER_PAIR", 1_000_000)
    assert not km.KernelSVM(C=100.0).fit(X, yp).fit_report_.notes


# ---------------------------------------------------------------- fast paths: the same numbers


def test_capped_svc_predict_equals_svc_fit_and_predict(monkeypatch):
    """The bare libsvm calls give SVC's labels and cap flag (two and three classes, labels
    that are not 0..c-1), and draw from the global RNG as SVC does."""
    rng = np.random.default_rng(0)
    for trial in range(12):
        c = 2 + trial % 2
        P = rng.normal(size=(60, 6)) * rng.random(6) ** (3 if trial % 4 == 0 else 1)
        K = P @ P.T
        L = rng.choice(60, 24, replace=False)
        y = rng.integers(0, c, L.size) * (2 if trial % 3 == 0 else 1)
        C = (0.1, 10.0, 1e4)[trial % 3]
        svc, note = km.capped_svc(C, K[np.ix_(L, L)], y)
        pred, note_fast = km.capped_svc_predict(C, K[np.ix_(L, L)], y, K[:, L])
        np.testing.assert_array_equal(pred, svc.predict(K[:, L]))
        assert pred.dtype == svc.predict(K[:, L]).dtype and note_fast == note
    np.random.seed(3)
    km.capped_svc(1.0, np.eye(4), [0, 1, 0, 1])
    after_svc = np.random.rand()
    np.random.seed(3)
    km.capped_svc_predict(1.0, np.eye(4), [0, 1, 0, 1], np.eye(4))
    assert np.random.rand() == after_svc
    monkeypatch.setattr(km, "SVM_ITER_PER_PAIR", 2)
    K_LL = K[np.ix_(L, L)]
    assert km.capped_svc(1e4, K_LL, y)[1] and km.capped_svc_predict(1e4, K_LL, y, K_LL)[1]


def test_unconverged_svm_is_solved_exactly(monkeypatch):
    """A fit libsvm does not finish within its budget is the exact SVM: the labels and
    decision values of libsvm run to a tight tolerance without a budget (two and three
    classes), the model's and the fast path's alike."""
    from sklearn.svm import SVC

    monkeypatch.setattr(km, "SVM_ITER_PER_PAIR", 1)
    rng = np.random.default_rng(5)
    for c, C in [(2, 1e4), (3, 10.0), (2, 0.5)]:
        X = np.vstack([rng.normal(1.2 * k, 1.0, (15, 4)) for k in range(c)])
        y = np.repeat(np.arange(c) + 7, 15)
        T = rng.normal(0.6, 1.5, (80, 4))
        K = np.exp(-0.2 * ((X[:, None] - X[None]) ** 2).sum(-1))
        K_T = np.exp(-0.2 * ((T[:, None] - X[None]) ** 2).sum(-1))
        model, note = km.capped_svc(C, K, y)
        # one iteration per pair: 1 (two classes), 3 (three)
        assert note.startswith(f"libsvm did not converge in {c * (c - 1) // 2} iterations")
        pred, note_fast = km.capped_svc_predict(C, K, y, K_T)
        ref = SVC(kernel="precomputed", C=C, tol=1e-10).fit(K, y)
        np.testing.assert_array_equal(pred, ref.predict(K_T))
        np.testing.assert_array_equal(model.predict(K_T), ref.predict(K_T))
        np.testing.assert_allclose(
            model.decision_function(K_T), ref.decision_function(K_T), atol=1e-4
        )
        assert note_fast == note


def _designs():
    from sskernels.learners import (
        ClusterKernel,
        DiffusionKernel,
        LabelAwareKernel,
        MaxAlignmentKernel,
    )

    return [
        ClusterKernel(n_components=15, random_state=0),
        DiffusionKernel(n_components=15, random_state=0),
        MaxAlignmentKernel(n_components=15, random_state=0),
        LabelAwareKernel(n_components=15, random_state=0),
        LabelAwareKernel(n_components=15, weighting="local-rademacher", random_state=0),
    ]


def test_sparse_weights_multiply_only_their_base_vectors(wine_split):
    """With some ``mu = 0`` (local Rademacher's l1 weights) the kernel is the product over the
    weighted base vectors only, equal to the full product up to rounding, and the oracle's
    labeled columns are exactly its entries."""
    from sskernels.learners import LabelAwareKernel
    from sskernels.learners.embedding import weighted_factors

    X, _, yp, lab = wine_split
    est = LabelAwareKernel(n_components=15, weighting="local-rademacher", random_state=0).fit(X, yp)
    P, mu = est.embedding(), est.mu_
    nnz = np.count_nonzero(mu)
    assert 0 < nnz < mu.size
    Pm, Pb = weighted_factors(P, P, mu)
    assert Pm.shape[1] == Pb.shape[1] == nnz
    full = (P * mu) @ P.T
    np.testing.assert_allclose(est.kernel_, full, rtol=1e-12, atol=1e-13 * np.abs(full).max())
    cols, diag = km._labeled_columns(clone(est).fit(X, yp), lab)
    np.testing.assert_array_equal(cols, est.kernel_[:, lab])
    np.testing.assert_array_equal(diag, np.diag(est.kernel_))
    dense = np.ones(3)
    Pm, Pb = weighted_factors(P[:, :3], P[:, :3], dense)
    np.testing.assert_array_equal(Pm, P[:, :3])
    assert Pb is not None and Pb.shape == (P.shape[0], 3)


@pytest.mark.parametrize("learner", _designs(), ids=lambda e: type(e).__name__)
def test_labeled_columns_are_the_kernels_entries(wine_split, learner):
    """``_labeled_columns`` (product with the labeled rows, diagonal by blocks) gives exactly
    the entries of the learner's n x n kernel."""
    X, _, yp, lab = wine_split
    fitted = clone(learner).fit(X, yp)
    cols, diag = km._labeled_columns(fitted, lab)  # before kernel_ is memoized
    K = fitted.kernel_
    np.testing.assert_array_equal(cols, K[:, lab])
    np.testing.assert_array_equal(diag, np.diag(K))
    assert float(np.mean(diag)) == float(np.mean(np.diag(K)))
    cols2, diag2 = km._labeled_columns(fitted, lab)  # memoized kernel: its own entries
    np.testing.assert_array_equal(cols2, K[:, lab])
    np.testing.assert_array_equal(diag2, np.diag(K))


@pytest.mark.parametrize(
    "design", ["diffusion-kernel", "cluster-kernel", "max-alignment-kernel", "tsk"]
)
def test_oracle_fast_path_equals_fitting_every_candidate(wine_split, monkeypatch, design):
    """The oracle's per-candidate accuracies, its choice and the chosen fit are those of
    fitting every candidate separately (the generic rule)."""
    from sskernels.experiment import oracle

    X, y, yp, _ = wine_split
    params = {"n_components": 15} if design != "tsk" else {"n_components": 10}
    if design == "diffusion-kernel":
        params["delta"] = [1.0, 1e-1, 1e-3]
    if design != "tsk":
        params["b_scale"] = [1.0, 0.2, 5.0]
    else:
        params["beta"] = [1.0, 0.5]
    est = make_method("kernel-svm", kernel=design, kernel_params=params, C_grid=[0.1, 1, 10, 1000])
    base, grid = oracle.flatten(est)
    fast = base._transduction_predictor(X, yp, tuple(grid))
    assert fast is not None
    for cand in oracle.candidates(grid):  # every candidate, not only the best
        ref = clone(base).set_params(**cand).fit(X, yp)
        np.testing.assert_array_equal(fast(cand), ref.transduction_)
    best_fast, info_fast = oracle.oracle_fit(est, X, yp, y)
    monkeypatch.setattr(KernelSVM, "_transduction_predictor", lambda self, *a: None)
    best_slow, info_slow = oracle.oracle_fit(est, X, yp, y)
    assert info_fast == info_slow
    assert np.unique(info_fast["accuracy"]).size > 1  # the grid discriminates
    np.testing.assert_array_equal(best_fast.transduction_, best_slow.transduction_)
    np.testing.assert_array_equal(best_fast.kernel_, best_slow.kernel_)
    assert best_fast.fit_report_.as_dict() == best_slow.fit_report_.as_dict()


@pytest.mark.parametrize("kernel", ["rbf", "cosine"])
def test_svm_baseline_oracle_fast_path_equals_fitting_every_candidate(
    wine_split, monkeypatch, kernel
):
    """The RBF SVM's oracle fast path (the labeled columns once per width, libsvm on the
    precomputed blocks) predicts as libsvm's own RBF fit does, candidate by candidate."""
    import scipy.sparse as sp

    from sskernels.experiment import oracle
    from sskernels.learners.supervised import SVMBaseline

    X, y, yp, _ = wine_split
    est = make_method("svm", kernel=kernel)
    base, grid = oracle.flatten(est)
    assert set(grid) == ({"C"} if kernel == "cosine" else {"C", "kernel_width_scale"})
    for data in (X, sp.csr_matrix(X)):
        fast = base._transduction_predictor(data, yp, tuple(grid))
        for cand in oracle.candidates(grid):
            ref = clone(base).set_params(**cand).fit(data, yp)
            np.testing.assert_array_equal(fast(cand), ref.transduction_)
    assert base._transduction_predictor(X, yp, ("C", "kernel")) is None
    best_fast, info_fast = oracle.oracle_fit(est, X, yp, y)
    monkeypatch.setattr(SVMBaseline, "_transduction_predictor", lambda self, *a: None)
    best_slow, info_slow = oracle.oracle_fit(est, X, yp, y)
    assert info_fast == info_slow and np.unique(info_fast["accuracy"]).size > 1
    np.testing.assert_array_equal(best_fast.transduction_, best_slow.transduction_)


def test_oracle_falls_back_to_the_generic_rule_when_the_chosen_fit_disagrees(
    wine_split, monkeypatch
):
    from sskernels.experiment import oracle

    X, y, yp, _ = wine_split
    est = make_method(
        "kernel-svm",
        kernel="diffusion-kernel",
        kernel_params={"n_components": 15, "b_scale": [1.0, 0.2]},
        C_grid=[0.1, 10],
    )
    expected = oracle.oracle_fit(est, X, yp, y)[1]
    real = KernelSVM._transduction_predictor

    def wrong(self, X, y, keys):  # a fast path that is off
        predict = real(self, X, y, keys)
        return lambda params: (predict(params) + 1) % 3

    monkeypatch.setattr(KernelSVM, "_transduction_predictor", wrong)
    best, info = oracle.oracle_fit(est, X, yp, y)
    assert info.pop("fallback").startswith("oracle: the fast path's prediction differed")
    assert info == expected
    assert any(n.startswith("fallback: oracle: the fast path") for n in best.fit_report_.notes)


def test_c_selection_without_the_full_scaled_kernel_is_unchanged(wine_split, monkeypatch):
    """The C selection's fold fits by the bare libsvm calls select as SVC's fits do."""
    X, _, yp, _ = wine_split
    learner = make_method("diffusion-kernel", n_components=15)
    fast = SelectOnLabeled(KernelSVM(learner), {"C": list(C_GRID)}, random_state=0).fit(X, yp)
    fitted_memo.clear_cache()
    monkeypatch.setattr(km, "capped_svc_predict", km._svc_predict)
    slow = SelectOnLabeled(KernelSVM(learner), {"C": list(C_GRID)}, random_state=0).fit(X, yp)
    np.testing.assert_array_equal(
        fast.cv_results_["mean_test_score"], slow.cv_results_["mean_test_score"]
    )
    np.testing.assert_array_equal(fast.transduction_, slow.transduction_)


def test_oracle_candidates_with_the_same_kernel_share_the_svms_predictions(wine_split, monkeypatch):
    """Local Rademacher weights on wine (three classes): (theta, MKL C) pairs past the hard
    margin give the same weights, hence the same kernel bit for bit; the oracle's fast path
    solves the SVM once per distinct (kernel, C) and every candidate's predictions are still
    those of fitting it on its own."""
    from sskernels.experiment import oracle

    X, _, yp, _ = wine_split
    params = {
        "weighting": "local-rademacher",
        "n_components": 15,
        "b_scale": 1.0,
        "theta": [0.1, 0.5, 0.9],
        "mkl_C": [1.0, 100.0, 10000.0],
    }
    est = make_method("kernel-svm", kernel="label-aware", kernel_params=params, C_grid=[0.1, 1000])
    base, grid = oracle.flatten(est)
    calls = []
    real = km.capped_svc_predict
    monkeypatch.setattr(
        km, "capped_svc_predict", lambda C, K, y, K_pred: calls.append(C) or real(C, K, y, K_pred)
    )
    fast = base._transduction_predictor(X, yp, tuple(grid))
    cands = list(oracle.candidates(grid))
    got = [fast(c) for c in cands]
    assert len(cands) == 18 and 0 < len(calls) < len(cands)  # some kernels repeat
    monkeypatch.setattr(km, "capped_svc_predict", real)
    for cand, pred in zip(cands, got):
        ref = clone(base).set_params(**cand).fit(X, yp)
        np.testing.assert_array_equal(pred, ref.transduction_)
