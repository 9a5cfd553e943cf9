"""KernelSVM: an SVM on the labeled block of a learned kernel (Liu et al. 2009, Sec. 5)."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_wine
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import minmax_scale
from sklearn.svm import SVC

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
    km.clear_cache()
    yield
    km.clear_cache()


def test_spec_hook_builds_the_kernel_learner_with_the_spec_graph():
    est = make_method("kernel-svm", kernel="tsk",
                      kernel_params={"n_components": 10, "eta": 2, "beta": "auto"},
                      n_neighbors=5, weights="hein-maier", sigma=None, metric="euclidean")
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
    assert {"kernel_learner__beta", "kernel_learner__eta", "kernel_learner__graph__n_neighbors",
            "C"} <= set(params)
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
    sel = SelectOnLabeled(KernelSVM(CountingTSK(beta=10.0)), {"C": list(C_GRID)}).fit(X, yp)
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
    """libsvm stopping at its iteration cap (an uncapped fit once ran > 10 min) is a recorded
    fallback, in the final fit and in the C selection's fold fits."""
    import sskernels.learners.kernel_machines as km
    from sklearn.datasets import make_moons

    from sskernels.learners.registry import make_method

    monkeypatch.setattr(km, "SVM_MAX_ITER", 2)
    X, y = make_moons(120, noise=0.1, random_state=0)
    yp = np.full(120, -1)
    yp[:20] = y[:20]
    est = km.KernelSVM(C=100.0).fit(X, yp)
    assert any("iteration cap (2)" in n for n in est.fit_report_.notes)
    sel = make_method("kernel-svm", C_grid=[1.0, 100.0]).fit(X, yp)
    assert any(n.startswith("fallback: cv: libsvm stopped") for n in sel.fit_report_.notes)
    monkeypatch.setattr(km, "SVM_MAX_ITER", 1_000_000)
    assert not km.KernelSVM(C=100.0).fit(X, yp).fit_report_.notes
