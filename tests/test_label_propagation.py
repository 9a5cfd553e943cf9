"""Iterative label propagation with hard clamping (Zhu & Ghahramani 2002), checked against
scikit-learn's LabelPropagation on the same graph and against the harmonic function it
converges to."""

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.semi_supervised import LabelPropagation

from sskernels.graph import KNNGraph, get_graph
from sskernels.learners.label_propagation import IterativeLabelPropagation
from sskernels.learners.propagation import HarmonicFunction


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y_partial = np.full_like(y, -1)
    y_partial[::9] = y[::9]
    return X, y, y_partial


def test_equals_scikit_learn_label_propagation_on_the_same_graph(wine):
    X, _, y_partial = wine
    W = get_graph(X, k=8).W.toarray()
    ours = IterativeLabelPropagation(graph=KNNGraph(n_neighbors=8)).fit(X, y_partial)
    theirs = LabelPropagation(kernel=lambda A, B: W, max_iter=1000, tol=1e-3).fit(X, y_partial)
    assert ours.n_iter_ == theirs.n_iter_
    np.testing.assert_allclose(ours.label_distributions_, theirs.label_distributions_, atol=1e-12)
    np.testing.assert_array_equal(ours.transduction_, theirs.transduction_)


def test_converges_to_the_harmonic_function(wine):
    X, _, y_partial = wine
    graph = KNNGraph(n_neighbors=8)
    it = IterativeLabelPropagation(graph=graph, max_iter=100_000, tol=1e-12).fit(X, y_partial)
    hf = HarmonicFunction(graph=graph).fit(X, y_partial)
    assert it.fit_report_.fallbacks == []
    np.testing.assert_allclose(it.label_distributions_, hf.label_distributions_, atol=1e-8)
    np.testing.assert_array_equal(it.transduction_, hf.transduction_)
    np.testing.assert_allclose(it.predict_proba(X[:5]), hf.predict_proba(X[:5]), atol=1e-8)


def test_stopping_at_max_iter_is_recorded(wine):
    X, _, y_partial = wine
    est = IterativeLabelPropagation(max_iter=2).fit(X, y_partial)
    assert est.n_iter_ == 2
    assert any("not converged" in n for n in est.fit_report_.as_dict()["notes"])
    assert est.fit_report_.as_dict()["stats"]["label propagation"]["iterations"] == 2


def test_registered_as_a_method():
    from sskernels.learners import IterativeLabelPropagation as Exported
    from sskernels.learners.registry import METHODS, make_method

    assert Exported is IterativeLabelPropagation
    assert type(make_method("label-propagation-iterative")) is IterativeLabelPropagation
    assert METHODS["label-propagation-iterative"].inductive
