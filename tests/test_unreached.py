"""Unreached points and constant predictors: one documented rule each, never a silent label.

* A point in a graph component without a labeled point has no path to a label: every graph
  learner gives it the labeled class frequencies as scores (so the most frequent labeled
  class), lists it in ``unreached_`` and records a ``degenerate`` note.  Before the rule,
  RSK, TSK, OSK, SKL and SKL_KTA gave such points scores of exactly 0 and class 0.
* Scores equal for every class (a zero kernel) follow the same rule.
* The selection on the labeled points passes over constant predictors when another
  candidate is left, and says so.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_wine

from sskernels.graph import KNNGraph
from sskernels.learners.graph_base import settle_scores, unreached
from sskernels.learners.registry import make_method
from sskernels.learners.selection import SelectOnLabeled, best_candidate

#: graph learners whose model is built on the k-NN graph of all points
GRAPH_METHODS = [
    "harmonic",
    "consistency",
    "rsk",
    "tsk",
    "osk",
    "skl",
    "skl-kta",
    "laprls",
    "lapsvm",
    "linear-laprls",
    "linear-lapsvm",
]
#: those that take a precomputed graph (the others need the features)
PRECOMPUTED = ["harmonic", "consistency", "rsk", "tsk", "osk", "skl", "skl-kta"]
NOTE = "points in graph components without a labeled point: labeled class frequencies"


@pytest.fixture(scope="module")
def far_cluster():
    """Wine (standardized) plus 8 points far away: a k-NN component of their own
    (k = 6 < 8), with no labeled point.  The labels make class 2 the most frequent
    labeled class, so the rule's answer is not the class argmax would give zero scores."""
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    rng = np.random.default_rng(1)
    far = rng.normal(size=(8, X.shape[1])) * 0.1 + 50.0
    Xa = np.vstack([X, far])
    labeled = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), k, replace=False) for c, k in ((0, 4), (1, 5), (2, 9))]
    )
    y_part = np.full(len(Xa), -1)
    y_part[labeled] = y[labeled]
    return Xa, y_part, np.arange(len(X), len(Xa))


def test_the_far_cluster_is_a_component_without_a_label(far_cluster):
    X, y, far = far_cluster
    from scipy.sparse.csgraph import connected_components

    _, comp = connected_components(KNNGraph(n_neighbors=6).build(X).W, directed=False)
    assert np.flatnonzero(unreached(comp, np.flatnonzero(y != -1))).tolist() == far.tolist()


@pytest.mark.parametrize("name", GRAPH_METHODS)
def test_every_graph_learner_gives_unreached_points_the_labeled_class_frequencies(
    far_cluster, name
):
    X, y, far = far_cluster
    est = make_method(name, n_neighbors=6)
    est.fit(X, y)
    est = getattr(est, "best_estimator_", est)
    assert est.unreached_.tolist() == far.tolist()
    assert (np.asarray(est.transduction_)[far] == 2).all()  # 9 of 18 labels are class 2
    assert any(NOTE in n for n in est.fit_report_.notes)


@pytest.mark.parametrize("name", PRECOMPUTED)
def test_three_isolated_points_of_a_precomputed_graph(name):
    """The reported reproduction: three isolated unlabeled points in a precomputed graph."""
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    W = KNNGraph(n_neighbors=6).build(X).W
    n = W.shape[0]
    Wb = sp.block_diag([W, sp.csr_matrix((3, 3))]).tocsr()
    rng = np.random.default_rng(0)
    labeled = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), k, replace=False) for c, k in ((0, 3), (1, 8), (2, 4))]
    )
    y_part = np.full(n + 3, -1)
    y_part[labeled] = y[labeled]
    est = make_method(name, graph="precomputed")
    est.fit(Wb, y_part)
    est = getattr(est, "best_estimator_", est)
    assert est.unreached_.tolist() == [n, n + 1, n + 2]
    assert (est.transduction_[n:] == 1).all()
    np.testing.assert_allclose(est.scores_[n:], np.tile([3 / 15, 8 / 15, 4 / 15], (3, 1)))
    assert any(f"3 {NOTE}" in line for line in est.fit_report_.notes)


def test_a_kernel_svm_on_a_graph_kernel_follows_the_rule(far_cluster):
    X, y, far = far_cluster
    est = make_method("kernel-svm", kernel="tsk", n_neighbors=6).fit(X, y)
    est = getattr(est, "best_estimator_", est)
    assert est.unreached_.tolist() == far.tolist()
    assert (est.transduction_[far] == 2).all()
    assert any(NOTE in n for n in est.fit_report_.notes)


def test_tied_scores_get_the_labeled_class_frequencies():
    C_L = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 1]], dtype=float)
    F = np.array([[0.0, 0.0, 0.0], [0.2, 0.5, 0.1], [0.3, 0.3, 0.3], [0.1, 0.9, 0.0]])
    G, tied = settle_scores(F, C_L, unreached_rows=[3])
    assert tied == 2  # rows 0 and 2; row 3 is unreached
    np.testing.assert_allclose(G[[0, 2, 3]], np.tile([1 / 3, 0, 2 / 3], (3, 1)))
    np.testing.assert_array_equal(G[1], F[1])
    assert np.argmax(G, axis=1).tolist() == [2, 1, 2, 2]
    row = F[[1]]
    same, none = settle_scores(row, C_L)
    assert none == 0 and same is row  # nothing to settle: no copy


def test_a_zero_kernel_predicts_the_most_frequent_labeled_class_not_class_0(far_cluster):
    """TSK whose LP optimum is mu = 0 (a zero kernel, forced here by a one-eigenvector
    spectrum on which eq. (13)'s constraints cannot be met): every point's scores are 0;
    the rule gives the most frequent labeled class, 2, where argmax said 0."""
    X, y, _ = far_cluster
    from sskernels.learners.spectral import TransductiveSpectralKernel

    est = TransductiveSpectralKernel(n_components=1, beta=1e-3).fit(X, y)
    if np.any(est.mu_ > 0):
        pytest.skip("the LP found a non-zero kernel on this data")
    assert (est.transduction_ == 2).all()
    assert any("equal scores for every class" in n for n in est.fit_report_.notes)


# ------------------------------------------------------------------- selection rule


class _Fixed(ClassifierMixin, BaseEstimator):
    """A stand-in learner: ``mode`` "truth" predicts the true labels where labeled in the
    fit and ``1 - truth`` elsewhere (a learner that is half right); "zero" predicts class 0
    everywhere (a constant predictor); "late-zero" is right in every fold but constant when
    fitted with all labels (a collapse only the refit shows)."""

    def __init__(self, truth=None, mode="truth"):
        self.truth = truth
        self.mode = mode

    def fit(self, X, y):
        y, truth = np.asarray(y), np.asarray(self.truth)
        self.classes_ = np.unique(y[y != -1])
        n_lab = int(np.sum(y != -1))
        if self.mode == "zero" or (self.mode == "late-zero" and n_lab == 12):
            self.transduction_ = np.zeros_like(truth)
        elif self.mode == "late-zero":
            self.transduction_ = truth.copy()
        else:
            self.transduction_ = np.where(np.arange(truth.size) % 3 == 0, truth, 1 - truth)
        return self


def _data():
    truth = np.array([0] * 30 + [1] * 10)  # class 0 is 3/4: a constant 0 scores well
    y = np.full(40, -1)
    y[np.r_[0:9, 30:33]] = truth[np.r_[0:9, 30:33]]  # 12 labels: 9 of class 0, 3 of class 1
    return np.zeros((40, 1)), y, truth


def test_a_constant_predictor_with_the_best_score_is_passed_over():
    X, y, truth = _data()
    sel = SelectOnLabeled(
        _Fixed(truth), {"mode": ["zero", "truth"]}, n_folds=3, random_state=0
    ).fit(X, y)
    scores = sel.cv_results_["mean_test_score"]
    assert scores[0] > scores[1]  # the constant one scores best ...
    assert sel.cv_results_["constant_predictor"].tolist() == [True, False]
    assert sel.best_params_ == {"mode": "truth"}  # ... and is not chosen
    assert any(
        n.startswith("fallback: selection: constant predictors") for n in sel.fit_report_.notes
    )


def test_a_refit_that_collapses_is_replaced_by_the_next_candidate():
    X, y, truth = _data()
    sel = SelectOnLabeled(
        _Fixed(truth), {"mode": ["late-zero", "truth"]}, n_folds=3, random_state=0
    ).fit(X, y)
    assert sel.cv_results_["mean_test_score"][0] == 1.0
    assert sel.best_params_ == {"mode": "truth"}
    assert sel.passed_over_ == [{"mode": "late-zero"}]
    assert any(
        n.startswith("fallback: selection: constant predictors") for n in sel.fit_report_.notes
    )


def test_when_every_candidate_is_constant_the_usual_rule_stands_and_says_so():
    X, y, truth = _data()
    sel = SelectOnLabeled(
        _Fixed(truth), {"mode": ["zero", "late-zero"]}, n_folds=3, random_state=0
    ).fit(X, y)
    assert sel.best_params_ == {"mode": "late-zero"}  # the best score (1.0), first refit
    assert any("no candidate escapes a constant prediction" in n for n in sel.fit_report_.notes)


def test_best_candidate_orders_by_score_then_index():
    assert best_candidate([0.5, 0.7, 0.7], [False, False, False]) == 1
    assert best_candidate([0.5, 0.7, 0.7], [False, True, False]) == 2
    assert best_candidate([0.5, 0.7, 0.7], [True, True, True]) == 1
    assert best_candidate([0.5, 0.7, 0.7], [False, False, False], skip=[1, 2]) == 0


@pytest.mark.datasets("yeast")
def test_tsk_on_yeast_collapses_because_its_lp_optimum_is_a_zero_kernel(data_mirror):
    """The reported yeast reproduction (10 classes, 50 labels): why TSK's selection on the
    labeled points cannot avoid one class.  Eq. (13) weighs every differently labeled pair -1
    and every same-labeled pair +1; with ten classes about 4/5 of the pairs differ, T mu is
    at most 0 on (nearly) every row for every mu in the decay cone, and mu = 0 is the LP's
    optimum at every beta of the grid, and beyond it (1e6).  The selection then has no
    candidate left that is not a constant predictor and says so."""
    from sskernels.data import load_dataset, preprocess
    from sskernels.learners.spectral import BETA_GRID, tsk_linear_program

    ds = load_dataset("yeast")
    X, y = preprocess(ds.X, "l2"), np.asarray(ds.y)
    graph = KNNGraph(n_neighbors=6).build(X)
    lam, V = graph.spectrum(10).smallest(10, exclude_one=True)
    rng = np.random.default_rng(0)
    zero = 0
    for _ in range(5):
        idx = rng.choice(y.size, 50, replace=False)
        y_enc = np.unique(y[idx], return_inverse=True)[1]
        mus = [tsk_linear_program(lam, V[idx], y_enc, 2.0, b)[0] for b in BETA_GRID + (1e6,)]
        zero += all(not np.any(mu > 0) for mu in mus)
    assert zero >= 3  # 4 of these 5 splits: mu = 0 at every beta
    idx = rng.choice(y.size, 50, replace=False)
    y_part = np.full(y.size, -1)
    y_part[idx] = np.unique(y, return_inverse=True)[1][idx]
    sel = make_method("tsk", n_neighbors=6).fit(X, y_part)
    trans = np.asarray(sel.transduction_)[y_part == -1]
    if np.unique(trans).size == 1:
        assert any("no candidate escapes a constant prediction" in n for n in sel.fit_report_.notes)
