"""The learner protocol (sskernels/learners/protocol.py): its defaults are the generic path, and
a family with a default grid and a fast cross-validation path is added the way
``label_propagation.py`` is, one module and one registry entry.

``LabeledRidge`` below is such a family: a kernel ridge classifier on the labeled points
(one-vs-rest targets, ``alpha`` the ridge), whose ``alpha`` a spec selects by default over
``_selection``'s grid.  Its fast path (``_fold_params``, ``_fold_setup``) forms the labeled
points' kernel once and solves one ridge system per fold and candidate; the tests check it
against the generic rule (clone, set, fit with the fold's labels hidden) score for score, and
run it through the registry and a spec as a user's family would be.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import Interval

from sskernels.kernels.rbf import rbf, squared_distances
from sskernels.learners import SelectOnLabeled
from sskernels.learners.base import SemiSupervisedClassifier, ovr_targets
from sskernels.learners.protocol import LearnerProtocol


class LabeledRidge(SemiSupervisedClassifier):
    """Kernel ridge on the labeled points, RBF kernel of unit width: a test family."""

    _parameter_constraints = {"alpha": [Interval(Real, 0, None, closed="neither")]}
    _selection = {"alpha": ((0.01, 0.1, 1.0, 10.0), "largest")}
    _selected_attributes = ("alpha_",)
    _fold_params = frozenset({"alpha"})
    _fold_one_class = True
    #: how often the fast path's shared part was built (the tests read it)
    setups = 0

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    @staticmethod
    def _solve(K, y_enc, n_classes, alpha):
        T = ovr_targets(y_enc, n_classes).reshape(len(y_enc), -1)
        return np.linalg.solve(K + alpha * np.eye(len(y_enc)), T)

    @staticmethod
    def _labels(F):
        return np.argmax(F, axis=1) if F.shape[1] > 1 else (F[:, 0] > 0).astype(int)

    def fit(self, X, y):
        X, labeled, y_enc = self._fit_start(X, y)
        self.alpha_ = float(self.alpha)
        self.X_L_ = X[labeled]
        self.coef_ = self._solve(
            rbf(squared_distances(self.X_L_), 1.0), y_enc, self.classes_.size, self.alpha_
        )
        self.transduction_ = self.predict(X)
        return self

    def decision_function(self, X):
        X = self._check_X(X)
        F = rbf(squared_distances(X, self.X_L_), 1.0) @ self.coef_
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, X):
        F = np.asarray(self.decision_function(X))
        return self.classes_[self._labels(F.reshape(F.shape[0], -1))]

    def _fold_setup(self, X, labeled, y_enc, report):
        type(self).setups += 1
        X = np.asarray(X, dtype=np.float64)
        K = rbf(squared_distances(X[labeled]), 1.0)

        def predict(params, train, test):
            classes, enc = np.unique(y_enc[train], return_inverse=True)
            coef = self._solve(K[np.ix_(train, train)], enc, classes.size, params["alpha"])
            return classes[self._labels(K[np.ix_(test, train)] @ coef)]

        return predict


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y_partial = np.full_like(y, -1)
    y_partial[::6] = y[::6]
    return X, y, y_partial


def test_the_defaults_are_the_generic_path():
    est = LearnerProtocol()
    assert est.precompute(np.zeros((3, 2))) is None
    assert est._fold_predictor(np.zeros((3, 2)), np.arange(2), np.array([0, 1]), ("C",)) is None
    assert est._transduction_predictor(None, None, ("C",)) is None
    assert est.kernel_factors() is None and est.labeled_columns(np.arange(2)) is None
    assert est._fit_labeled is None and est._inductive()
    assert est.selected_params_ == {}


def test_every_family_declares_its_fast_path_through_the_template():
    # the one _fold_predictor: no family overrides it, each gives _fold_setup instead
    import inspect

    from sskernels.learners.registry import METHODS

    for info in METHODS.values():
        cls = getattr(info.factory, "cls", None) or type(info.factory())
        for c in inspect.getmro(cls):
            if c.__module__.startswith("sskernels.learners.") and c is not LearnerProtocol:
                assert "_fold_predictor" not in vars(c), (info.name, c.__name__)


def test_the_fast_path_scores_as_the_generic_rule(wine, monkeypatch):
    X, _, y_partial = wine
    LabeledRidge.setups = 0
    fast = SelectOnLabeled(LabeledRidge(), random_state=0).fit(X, y_partial)
    assert LabeledRidge.setups == 1  # one shared kernel for every fold and candidate
    monkeypatch.setattr(LabeledRidge, "_fold_params", frozenset())  # the generic rule
    generic = SelectOnLabeled(LabeledRidge(), random_state=0).fit(X, y_partial)
    assert LabeledRidge.setups == 1
    np.testing.assert_allclose(
        fast.cv_results_["mean_test_score"], generic.cv_results_["mean_test_score"], atol=1e-12
    )
    assert fast.best_params_ == generic.best_params_
    assert [p["alpha"] for p in fast.cv_results_["params"]] == [10.0, 1.0, 0.1, 0.01]
    np.testing.assert_array_equal(fast.transduction_, generic.transduction_)


def test_a_one_class_fold_predicts_its_class():
    est = LabeledRidge()
    predict = est._fold_predictor(
        np.random.RandomState(0).randn(6, 2), np.arange(6), np.array([0, 0, 0, 1, 1, 1]), ("alpha",)
    )
    pred = predict({"alpha": 1.0}, np.array([0, 1, 2]), np.array([3, 4, 5]))
    np.testing.assert_array_equal(pred, [0, 0, 0])
    assert predict.report.notes == []


def test_added_as_a_method_with_its_default_grid(wine, monkeypatch):
    from sskernels.learners import registry

    monkeypatch.setitem(
        registry.METHODS,
        "labeled-ridge",
        registry.MethodInfo(
            "labeled-ridge",
            registry._lazy(__name__, "LabeledRidge"),  # the registry line of a family
            "a test family",
            "kernel ridge on the labeled points",
            True,
            "kernel ridge on the labeled points (tests/test_protocol.py)",
            uses_graph=False,
        ),
    )
    est = registry.make_method("labeled-ridge")
    assert isinstance(est, SelectOnLabeled) and est.param_grid == {"alpha": [10.0, 1.0, 0.1, 0.01]}
    X, y, y_partial = wine
    est.fit(X, y_partial)
    assert est.best_params_["alpha"] in (10.0, 1.0, 0.1, 0.01)
    unl = y_partial == -1
    assert (est.transduction_[unl] == y[unl]).mean() > 0.8
