"""The scikit-learn API around the learners: class probabilities, methods that exist only
where they work, nested graph parameters with the default graph, feature names and pandas
output of the transformers, the lazy package face, user estimators by import path."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_wine, make_moons
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler

from sskernels.errors import ParameterError, UnknownNameError
from sskernels.graph import KNNGraph
from sskernels.learners import (
    Consistency,
    HarmonicFunction,
    LapRLS,
    RegularizedLaplacianEigenmaps,
    RegularizedSpectralClustering,
    SelectOnLabeled,
    SpectralKernelLearning,
    TransductiveSpectralKernel,
)
from sskernels.learners.registry import get_method, make_method


def _wine(n_labeled=20, seed=0):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rng = np.random.default_rng(seed)
    yp = np.full_like(y, -1)
    idx = rng.choice(y.size, n_labeled, replace=False)
    yp[idx] = y[idx]
    return X, y, yp


@pytest.mark.parametrize("cls", [Consistency, HarmonicFunction])
def test_predict_proba_is_a_distribution_agreeing_with_predict(cls):
    X, y, yp = _wine()
    est = cls().fit(X, yp)
    P = est.predict_proba(X[:40])
    assert P.shape == (40, 3) and np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X[:40]))
    D = est.label_distributions_
    np.testing.assert_allclose(D.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.classes_[D.argmax(axis=1)], est.transduction_)


def test_harmonic_distributions_are_absorption_probabilities():
    """Independent computation: the harmonic scores are the probabilities that a random
    walk on W first hits a labeled point of each class: solve (I - P_UU) F_U = P_UL C_L."""
    X, y, yp = _wine()
    est = HarmonicFunction(graph=KNNGraph(n_neighbors=10)).fit(X, yp)
    W = est.graph_.W.toarray()
    P = W / W.sum(axis=1, keepdims=True)
    lab = np.flatnonzero(yp != -1)
    unl = np.flatnonzero(yp == -1)
    C = (yp[lab][:, None] == est.classes_[None, :]).astype(float)
    F_U = np.linalg.solve(np.eye(unl.size) - P[np.ix_(unl, unl)], P[np.ix_(unl, lab)] @ C)
    np.testing.assert_allclose(est.label_distributions_[unl], F_U, atol=1e-8)


@pytest.mark.parametrize("est", [LapRLS(), TransductiveSpectralKernel()])
def test_no_probabilities_where_scores_are_not_class_masses(est):
    X, y, yp = _wine()
    est.fit(X, yp)
    assert not hasattr(est, "predict_proba")
    assert not hasattr(est, "label_distributions_")
    assert hasattr(est, "predict") and hasattr(est, "decision_function")


def test_transductive_only_learner_has_no_predict():
    X, y, yp = _wine()
    est = SpectralKernelLearning()
    assert not hasattr(est, "predict") and not hasattr(est, "score")
    est.fit(X, yp)
    assert not hasattr(est, "predict") and not hasattr(est, "decision_function")
    assert est.transduction_.shape == y.shape
    wrapped = SelectOnLabeled(SpectralKernelLearning(), {"C": [0.1, 1.0]}, random_state=0).fit(
        X, yp
    )
    assert not hasattr(wrapped, "predict")
    assert hasattr(SelectOnLabeled(Consistency(), {"alpha": [0.5, 0.9]}, random_state=0), "predict")


def test_selection_wrapper_delegates_probabilities():
    X, y, yp = _wine()
    sel = SelectOnLabeled(Consistency(), {"alpha": [0.5, 0.9, 0.99]}, random_state=0).fit(X, yp)
    np.testing.assert_allclose(sel.predict_proba(X[:5]), sel.best_estimator_.predict_proba(X[:5]))
    np.testing.assert_allclose(sel.label_distributions_, sel.best_estimator_.label_distributions_)


def test_grid_search_tunes_the_default_graph():
    """The reported call: graph__* parameters with the default graph=None."""
    X, y = make_moons(120, noise=0.1, random_state=0)
    search = GridSearchCV(Consistency(), {"graph__n_neighbors": [5, 10]}, cv=2).fit(X, y)
    assert search.best_params_["graph__n_neighbors"] in (5, 10)
    assert search.best_estimator_.graph.n_neighbors == search.best_params_["graph__n_neighbors"]
    # the default graph's other settings are kept
    assert search.best_estimator_.graph.weights == Consistency._default_graph["weights"]
    est = Consistency()
    est.set_params(graph__n_neighbors=4)
    assert isinstance(est.graph, KNNGraph) and est.graph.n_neighbors == 4
    assert Consistency().graph is None  # the default itself is untouched


def test_transformers_feature_names_and_pandas_output():
    pd = pytest.importorskip("pandas")
    X, _ = make_moons(80, noise=0.05, random_state=0)
    emb = RegularizedLaplacianEigenmaps(n_components=3).fit(X)
    names = emb.get_feature_names_out()
    assert list(names) == [f"regularizedlaplacianeigenmaps{i}" for i in range(3)]
    out = emb.set_output(transform="pandas").transform(X[:7])
    assert isinstance(out, pd.DataFrame) and list(out.columns) == list(names)
    clu = RegularizedSpectralClustering(n_clusters=3, random_state=0).fit(X)
    assert len(clu.get_feature_names_out()) == 2
    np.testing.assert_allclose(clu.transform(X[:5]), clu.embedding_[:5], atol=1e-10)


def test_learners_package_imports_lazily():
    code = (
        "import sys, sskernels.learners.registry as r; "
        "print(sorted(m for m in sys.modules if m.startswith('sskernels.learners.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    # the registry and its catalog of methods, no family (each is imported on first use)
    assert out.strip() == "['sskernels.learners.catalog', 'sskernels.learners.registry']"
    import sskernels.learners as L

    for name in L.__all__:
        assert getattr(L, name) is not None


def test_unknown_method_suggests_names():
    with pytest.raises(UnknownNameError, match="did you mean 'harmonic'"):
        get_method("harmonc")


def test_user_estimator_by_import_path(tmp_path, monkeypatch):
    (tmp_path / "ssk_user_mod.py").write_text(
        "import numpy as np\n"
        "from sklearn.base import BaseEstimator, ClassifierMixin\n"
        "class Centroid(ClassifierMixin, BaseEstimator):\n"
        "    def __init__(self, p=2):\n"
        "        self.p = p\n"
        "    def fit(self, X, y):\n"
        "        lab = y != -1\n"
        "        self.classes_ = np.unique(y[lab])\n"
        "        self.c_ = np.array([X[lab][y[lab] == c].mean(0) for c in self.classes_])\n"
        "        self.transduction_ = self.predict(X)\n"
        "        return self\n"
        "    def predict(self, X):\n"
        "        return self.classes_[np.abs(X[:, None] - self.c_[None]).sum(-1).argmin(1)]\n"
        "class NoFit:\n"
        "    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    info = get_method("ssk_user_mod:Centroid")
    assert info.user and info.inductive and not info.uses_graph
    est = make_method("ssk_user_mod:Centroid", p=1)
    assert est.p == 1
    from sskernels.provenance import foreign_modules

    digests = foreign_modules(SelectOnLabeled(est, {"p": [1, 2]}, random_state=0))
    assert list(digests) == ["ssk_user_mod"]
    with pytest.raises(ParameterError, match="has no fit"):
        get_method("ssk_user_mod:NoFit")
    with pytest.raises(ParameterError, match="cannot import"):
        get_method("ssk_user_mod:Missing")
    with pytest.raises(ParameterError, match="cannot import"):
        get_method("no_such_module_xyz:Cls")
