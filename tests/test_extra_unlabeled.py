"""Extra unlabeled points (``Dataset.X_extra``, ``secstr-extra``): the learners fit on the
task's points and the extra ones together, the accuracy counts the task's unlabeled points
only, the extra points enter the data fingerprint (not the code key of other data sets), and
the real SecStr extra file loads as the registry says."""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from sskernels.data.parsers import Parsed
from sskernels.data.registry import REGISTRY, Entry
from sskernels.errors import ParameterError
from sskernels.experiment import method_code, prepare
from sskernels.experiment.runner import run_spec
from sskernels.graph import KNNGraph
from sskernels.learners import HarmonicFunction
from sskernels.learners.extra_unlabeled import ExtraUnlabeled, with_extra
from sskernels.spec import parse_spec


def _blobs(seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0], [4.0, 0.0]])
    y = np.repeat([0, 1], 40)
    X = centers[y] + rng.normal(0, 0.9, (80, 2))
    extra = centers[np.repeat([0, 1], 300)] + rng.normal(0, 0.9, (600, 2))
    return X, y, extra


def test_wrapper_is_the_learner_fitted_on_the_stacked_points():
    X, y, extra = _blobs()
    yp = np.full(80, -1)
    yp[[0, 1, 40, 41]] = [0, 0, 1, 1]
    est = ExtraUnlabeled(HarmonicFunction(), unlabeled=extra).fit(X, yp)
    inner = HarmonicFunction().fit(np.vstack([X, extra]), np.r_[yp, np.full(600, -1)])
    np.testing.assert_array_equal(est.transduction_, inner.transduction_[:80])
    np.testing.assert_array_equal(est.predict(X[:5]), inner.predict(X[:5]))
    assert est.n_extra_ == 600 and list(est.classes_) == [0, 1]
    assert est.fit_report_ is est.estimator_.fit_report_
    # no extra points: the learner alone
    alone = ExtraUnlabeled(HarmonicFunction()).fit(X, yp)
    np.testing.assert_array_equal(alone.transduction_, HarmonicFunction().fit(X, yp).transduction_)


def test_wrapper_refuses_extra_points_of_other_features_and_bad_labels():
    X, y, extra = _blobs()
    with pytest.raises(ParameterError, match="3 features, X has 2"):
        ExtraUnlabeled(HarmonicFunction(), unlabeled=np.zeros((5, 3))).fit(X, np.full(80, -1))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):  # sklearn's
        ExtraUnlabeled(HarmonicFunction(), unlabeled=extra).fit(X, np.zeros(79))


def test_stacking_is_memoized_by_content():
    X, _, extra = _blobs()
    a = with_extra(X, extra)
    assert with_extra(X.copy(), extra.copy()) is a
    S = with_extra(sp.csr_matrix(X), extra)
    assert sp.issparse(S) and S.shape == (680, 2)


@pytest.fixture
def blobs_extra(monkeypatch):
    """A registered data set with 600 extra points (and its twin without them)."""
    X, y, extra = _blobs()
    for name, parsed in (("blobs-extra", Parsed(X, y, extra=extra)), ("blobs-plain", Parsed(X, y))):
        monkeypatch.setitem(
            REGISTRY,
            name,
            Entry(
                name,
                80,
                2,
                2,
                "test",
                "two blobs",
                lambda p=parsed: p,
                n_extra=600 if name == "blobs-extra" else 0,
            ),
        )
    return X, y, extra


def _spec(tmp_path, dataset, methods=("harmonic", "label-spreading")):
    return parse_spec(
        {
            "name": dataset,
            "dataset": dataset,
            "graph": {"k": 6},
            "splits": {"n_splits": 3, "n_labeled": 4, "seed": 1},
            "methods": list(methods),
            "output": str(tmp_path / dataset),
        },
        tmp_path / f"{dataset}.yaml",
    )


def test_a_run_fits_with_the_extra_points_and_scores_the_task_points_only(tmp_path, blobs_extra):
    X, y, extra = blobs_extra
    spec = _spec(tmp_path, "blobs-extra")
    prep = prepare(spec)
    assert prep.X.shape == (80, 2) and prep.X_extra.shape == (600, 2)
    run_spec(spec, progress=False, reuse=False)
    recs = [
        json.loads(p.read_text()) for p in sorted((tmp_path / "blobs-extra").rglob("split_*.json"))
    ]
    assert len(recs) == 6
    for rec in recs:
        labeled = prep.settings[0][1][rec["split"]]
        yp = np.full(80, -1)
        yp[labeled] = y[labeled]
        est = (
            HarmonicFunction(graph=None).set_params(graph__n_neighbors=6)
            if rec["method_name"] == "harmonic"
            else None
        )
        assert rec["n_unlabeled"] == 80 - 4  # never an extra point
        if est is not None:
            manual = ExtraUnlabeled(est, unlabeled=extra).fit(X, yp)
            unl = yp == -1
            acc = 100.0 * np.mean(manual.transduction_[unl] == y[unl])
            assert rec["metrics"]["accuracy"] == pytest.approx(acc)
    # the extra points are data (the fingerprint), the wrapper is code (its module)
    plain = prepare(_spec(tmp_path, "blobs-plain"))
    assert plain.data_fingerprint != prep.data_fingerprint
    code = method_code(spec, 0)["modules"]
    assert "sskernels/learners/extra_unlabeled.py" in code
    assert (
        "sskernels/learners/extra_unlabeled.py"
        not in method_code(_spec(tmp_path, "blobs-plain"), 0)["modules"]
    )


def test_the_extra_points_change_the_answer(tmp_path, blobs_extra):
    """Not a no-op: with the extra points the graph (and so some labels) differ."""
    X, y, extra = blobs_extra
    yp = np.full(80, -1)
    yp[[0, 40]] = [0, 1]
    with_ = ExtraUnlabeled(HarmonicFunction(), unlabeled=extra).fit(X, yp)
    without = HarmonicFunction().fit(X, yp)
    assert not np.allclose(with_.estimator_.label_distributions_[:80], without.label_distributions_)


def _one_hot_codes(n, p=8, s=6, seed=5):
    from sskernels.data.parsers import one_hot_symbols

    rng = np.random.default_rng(seed)
    proto = rng.integers(0, s, size=(2, p))
    cls = rng.integers(0, 2, size=n)
    T = np.where(rng.random((n, p)) < 0.35, rng.integers(0, s, size=(n, p)), proto[cls])
    return one_hot_symbols(T, s), cls


@pytest.mark.parametrize(
    "name, params",
    [
        ("harmonic", {"solver": "cg"}),
        ("consistency", {"alpha": 0.99, "solver": "cg"}),
        ("linear-laprls", {"gamma_A": 0.01, "gamma_I": 1.0, "solver": "cg"}),
        ("skl-kta", {"laplacian_degree": 2, "n_components": 20}),
    ],
)
@pytest.mark.xdist_group("numba-pynndescent")  # numba compiled once (tests/test_descent.py)
def test_the_million_point_fits_form_nothing_dense_n_by_n(name, params):
    """secstr-extra's fits (extra points, a memoized NN-descent graph, CG solves, a partial
    spectrum by Lanczos) on one-hot data: the peak Python-side allocation of a fit stays far
    below one dense n x n matrix of floats (8 n^2 bytes = 450 MB at n = 7,500).  The graph is
    built before (the search is checked on its own, below)."""
    import tracemalloc

    from sskernels.learners.registry import make_method

    pytest.importorskip("pynndescent")
    n = 7500
    X, cls = _one_hot_codes(n)
    yp = np.full(500, -1)
    yp[:40] = cls[:40]
    est = ExtraUnlabeled(
        make_method(name, n_neighbors=10, weights="heat", method="nndescent", **params),
        unlabeled=X[500:],
    )
    est.precompute(X[:500])  # memoized: the four methods share one graph
    tracemalloc.start()
    try:
        est.fit(X[:500], yp)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert est.transduction_.shape == (500,)
    assert np.mean(est.transduction_[40:] == cls[40:500]) > 0.7  # it learned
    assert peak < 0.05 * 8 * n * n, f"peak {peak / 2**20:.1f} MB"


@pytest.mark.xdist_group("numba-pynndescent")
def test_the_nndescent_search_memory_is_not_quadratic():
    """The graph of 15,000 and of 30,000 one-hot points, in this process: the peak traced
    allocation (numpy's, pynndescent's Python-side ones, ours) grows by under 400 MB from one
    to the other, where one dense n x n matrix of floats would grow by 5.4 GB.

    A difference, not a level: pynndescent's NNDescent reserves about 3 GB of address space
    whatever n (measured: 3,036 MB at 7,500 points, 3,141 MB at 60,000), most of it never
    touched -- its resident peak at 30,000 points was 1.5 GB in a process of its own.  In
    process, so that numba compiles the search once for the whole suite (a fresh process
    compiles it again: ~30 s)."""
    import tracemalloc

    from sskernels.graph.descent import DescentGraph

    pytest.importorskip("pynndescent")
    DescentGraph(n_neighbors=10, recall_sample=50).build(_one_hot_codes(300)[0])  # compiled
    peaks = {}
    for n in (15000, 30000):
        X, _ = _one_hot_codes(n, seed=n)
        tracemalloc.start()
        try:
            g = DescentGraph(n_neighbors=10, recall_sample=500).build(X)
            peaks[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert g.n == n and g.knn_info["recall"] > 0.9
    growth = peaks[30000] - peaks[15000]
    assert growth < 400 * 2**20, f"peak grew by {growth / 2**20:.0f} MB: {peaks}"


@parametrize_with_checks([ExtraUnlabeled(HarmonicFunction(graph=KNNGraph(n_neighbors=3)))])
def test_the_wrapper_passes_scikit_learns_estimator_checks(estimator, check):
    """scikit-learn's own checks on the wrapper (no extra points: they would fix the number
    of features the checks vary), but the one the package's semi-supervised classifiers all
    skip (tests/test_sklearn_checks.py): its [-1, 1] labels collide with -1 = unlabeled."""
    name = getattr(check, "func", check).__name__
    if name == "check_classifiers_classes":
        pytest.skip(
            "its [-1, 1] labels collide with y == -1 = unlabeled (as for every "
            "semi-supervised classifier of the package)"
        )
    check(estimator)


def test_precompute_stacks_the_extra_points_only_for_an_estimator_that_precomputes():
    """The default ``precompute`` does nothing, so the wrapper stacks nothing for it (the
    1.27 M SecStr points are not copied in the runner's warm-up for a supervised baseline); a
    graph learner's ``precompute`` gets the stacked points and memoizes their graph."""
    import sskernels.learners.extra_unlabeled as extra_mod
    from sskernels.graph import cached_graphs, clear_cache
    from sskernels.learners.supervised import OneNN

    rng = np.random.default_rng(3)
    X, extra = rng.normal(size=(30, 4)), rng.normal(size=(50, 4))
    extra_mod._STACKED.clear()
    clear_cache()
    ExtraUnlabeled(OneNN(), unlabeled=extra).precompute(X)
    assert len(extra_mod._STACKED) == 0 and not cached_graphs()
    ExtraUnlabeled(HarmonicFunction(graph=KNNGraph(n_neighbors=5)), unlabeled=extra).precompute(X)
    assert len(extra_mod._STACKED) == 1
    [(key, g)] = cached_graphs()
    assert g.W.shape == (80, 80)
