"""Every method that ``sskernels methods list`` names runs from a spec."""

import json

import pytest

from sskernels.experiment.runner import run_spec
from sskernels.learners.registry import method_names
from sskernels.spec import parse_spec

#: parameters that keep each run small (the defaults are the papers' settings)
SMALL = {
    "tsk": {"n_components": 5},
    "osk": {"n_components": 5},
    "dsk": {"n_components": 5},
    "rsk": {"n_components": 10},
    "kernel-svm": {"kernel": "tsk", "kernel_params": {"n_components": 5, "beta": 1.0}},
    "lapsvm": {"gamma_A": 0.01, "gamma_I": 1.0},
    "laprls": {"gamma_A": 0.01, "gamma_I": 1.0},
    "svm": {"C": 1.0},
    "simplemkl": {"C": 10.0, "max_iter": 5},
    "skl": {"C": 1.0, "mu": 1.0},
    "label-propagation": {"kernel": "knn", "n_neighbors": 6, "max_iter": 2000},
    "label-spreading": {"kernel": "knn", "n_neighbors": 6},
}


@pytest.mark.parametrize("name", method_names("classification"))
def test_every_listed_method_runs_from_a_spec(name, tmp_path):
    spec = parse_spec(
        {
            "dataset": "sklearn-iris",
            "preprocess": "minmax",
            "graph": {"k": 6},
            "splits": {"n_splits": 1, "n_labeled": 15, "seed": 0},
            "methods": [{"name": name, "params": SMALL.get(name, {})}],
            "output": str(tmp_path / "out"),
        },
        tmp_path / f"{name}.yaml",
    )
    df = run_spec(spec, progress=False)
    acc = df[df.metric == "accuracy"].value
    assert len(acc) == 1 and 0.0 <= float(acc.iloc[0]) <= 100.0
    (rec,) = (tmp_path / "out" / "records").rglob("split_000.json")
    rec = json.loads(rec.read_text())
    # an iterative solver also keeps its iterations and residuals (``stats``)
    assert {"solvers", "notes"} <= set(rec["report"]) <= {"solvers", "notes", "stats"}


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in method_names("classification")
        if n not in ("label-spreading", "label-propagation")
    ],
)
def test_fit_refuses_bad_y_and_predict_before_fit(name):
    """Bad input refused by every registered method (one place, not one copy per family):
    y shorter than X, NaN in y, infinite X, one labeled class, predict before fit."""
    import numpy as np
    from sklearn.datasets import load_iris
    from sklearn.exceptions import NotFittedError

    from sskernels.learners.registry import make_method

    X, y = load_iris(return_X_y=True)
    yp = np.full(150, -1.0)
    idx = np.random.default_rng(0).choice(150, 30, replace=False)
    yp[idx] = y[idx]
    with pytest.raises(ValueError):
        make_method(name, **SMALL.get(name, {})).fit(X, yp[:100])
    y_nan = yp.copy()
    y_nan[idx[0]] = np.nan
    with pytest.raises(ValueError):
        make_method(name, **SMALL.get(name, {})).fit(X, y_nan)
    X_inf = X.copy()
    X_inf[5, 0] = np.inf
    with pytest.raises(ValueError, match="infinity|NaN"):
        make_method(name, **SMALL.get(name, {})).fit(X_inf, yp)
    one = np.full(150, -1)
    one[idx] = 1
    with pytest.raises(ValueError, match="at least 2 classes"):
        make_method(name, **SMALL.get(name, {})).fit(X, one)
    est = make_method(name, **SMALL.get(name, {}))
    if name not in ("skl", "skl-kta"):  # transductive only: no predict on new points
        with pytest.raises(NotFittedError):
            est.predict(X)


#: regression methods: fixed parameters (no selection) keep the WiFi runs small
SMALL_REGRESSION = {
    "svr": {"b_scale": 1.0, "C": 1.0},
    "harmonic-regression": {"b_scale": 50.0},
    "label-aware-svr": {"b_scale": 20.0, "C": 1.0},
}


def test_every_method_has_a_task():
    from sskernels.learners.registry import METHODS

    assert {m.task for m in METHODS.values()} == {"classification", "regression"}
    assert set(method_names("regression")) == set(SMALL_REGRESSION)


@pytest.mark.datasets("wifi")
@pytest.mark.parametrize("name", method_names("regression"))
def test_every_regression_method_runs_from_a_spec(name, tmp_path, data_mirror):
    spec = parse_spec(
        {
            "dataset": "wifi",
            "preprocess": "rss-floor",
            "target_scale": "minmax",
            "splits": {"n_splits": 1, "n_labeled": 30, "seed": 0},
            "methods": [{"name": name, "params": SMALL_REGRESSION[name]}],
            "output": str(tmp_path / "out"),
        },
        tmp_path / f"{name}.yaml",
    )
    df = run_spec(spec, progress=False)
    assert set(df.metric) == {"rmse", "mse"}
    rmse, mse = (float(df[df.metric == m].value.iloc[0]) for m in ("rmse", "mse"))
    assert 0.0 < rmse < 0.5 and mse == pytest.approx(rmse**2)
    (rec,) = (tmp_path / "out" / "records").rglob("split_000.json")
    assert set(json.loads(rec.read_text())["report"]) == {"solvers", "notes"}


@pytest.mark.parametrize("name", method_names("regression"))
def test_regression_fit_refuses_bad_y_and_predict_before_fit(name):
    """The regressors' version of the check above: y shorter than X, infinite X, an infinite
    target, one labeled point, predict before fit (NaN targets mark unlabeled points)."""
    import numpy as np
    from sklearn.datasets import load_diabetes
    from sklearn.exceptions import NotFittedError

    from sskernels.learners.registry import make_method

    X, y = load_diabetes(return_X_y=True)
    yp = np.full(y.size, np.nan)
    idx = np.random.default_rng(0).choice(y.size, 30, replace=False)
    yp[idx] = y[idx]
    with pytest.raises(ValueError):
        make_method(name, **SMALL_REGRESSION[name]).fit(X, yp[:100])
    X_inf = X.copy()
    X_inf[5, 0] = np.inf
    with pytest.raises(ValueError, match="infinity|NaN"):
        make_method(name, **SMALL_REGRESSION[name]).fit(X_inf, yp)
    y_inf = yp.copy()
    y_inf[idx[0]] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        make_method(name, **SMALL_REGRESSION[name]).fit(X, y_inf)
    one = np.full(y.size, np.nan)
    one[idx[0]] = 1.0
    with pytest.raises(ValueError, match="at least 2 labeled points"):
        make_method(name, **SMALL_REGRESSION[name]).fit(X, one)
    with pytest.raises(NotFittedError):
        make_method(name, **SMALL_REGRESSION[name]).predict(X)


@pytest.mark.datasets("yeast")
def test_tsk_collapse_on_yeast_is_flagged(tmp_path, data_mirror):
    """TSK's LP gives mu = 0 on 10-class yeast (most labeled pairs are in D):
    the summary flags it instead of averaging a zero kernel in silently."""
    from sskernels.experiment.tables import summarize

    spec = parse_spec(
        {
            "dataset": "yeast",
            "preprocess": "minmax",
            "graph": {"k": 6},
            "splits": {"n_splits": 5, "n_labeled": 50, "seed": 0},
            "methods": [{"name": "tsk", "params": {"n_components": 10, "eta": 2, "beta": "auto"}}],
            "output": str(tmp_path / "out"),
        },
        tmp_path / "yeast.yaml",
    )
    summary = summarize(run_spec(spec, progress=False), spec)
    notes = summary[summary.metric == "accuracy"].notes.iloc[0]
    assert "zero kernel" in notes and "constant prediction" in notes, notes
